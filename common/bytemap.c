/* tm — a map of known bytes (tm/bytemap.h). */
#include <stdlib.h>
#include <string.h>
#include "tm/bytemap.h"
#include "tm/status.h"

/* A block's home slot: the blocks of one aligned kilobyte (16 blocks) in
 * 16 slots side by side, the kilobytes hashed: a program's neighbouring
 * bytes share the processor's cache lines and pages (random slots cost a
 * cache and TLB miss per block: issue 39, --cfiat's memory image). */
static size_t hash(uint64_t key)
{
    uint64_t k = (key >> 4) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)((k >> 17) << 4 | (key & 15));
}

void tm_bytemap_init(tm_bytemap *m)
{
    memset(m, 0, sizeof *m);
    m->gen = 1; /* calloc's entries (generation 0) are free */
}

void tm_bytemap_free(tm_bytemap *m)
{
    free(m->v);
    tm_bytemap_init(m);
}

void tm_bytemap_clear(tm_bytemap *m)
{
    m->live = 0;
    if (++m->gen == 0) {
        if (m->v)
            memset(m->v, 0, m->cap * sizeof *m->v);
        m->gen = 1;
    }
}

static int grow(tm_bytemap *m)
{
    size_t nc = m->cap ? m->cap * 2 : 1024;
    tm_byteblk *nv = calloc(nc, sizeof *nv);
    if (!nv)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i < m->cap; i++) {
        const tm_byteblk *b = &m->v[i];
        if (b->gen != m->gen)
            continue;
        size_t j = hash(b->key) & (nc - 1);
        while (nv[j].gen == m->gen)
            j = (j + 1) & (nc - 1);
        nv[j] = *b;
    }
    free(m->v);
    m->v = nv;
    m->cap = nc;
    return TM_OK;
}

tm_byteblk *tm_bytemap_block(tm_bytemap *m, uint64_t key, int create)
{
    if (create && (m->live + 1) * 2 > m->cap && grow(m) != TM_OK)
        return NULL;
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
        tm_byteblk *b = &m->v[i];
        if (b->gen != m->gen) {
            if (!create)
                return NULL;
            b->key = key;
            b->gen = m->gen;
            b->known = 0;
            m->live++;
            return b;
        }
        if (b->key == key)
            return b;
    }
}

int tm_bytemap_put(tm_bytemap *m, uint64_t addr, const uint8_t *val, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t a = addr + i;
        tm_byteblk *b = tm_bytemap_block(m, a >> 6, 1);
        if (!b)
            return TM_ERR_NOMEM;
        b->b[a & 63] = val[i];
        b->known |= UINT64_C(1) << (a & 63);
    }
    return TM_OK;
}

int tm_bytemap_get(tm_bytemap *m, uint64_t addr, uint8_t *val, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t a = addr + i;
        tm_byteblk *b = tm_bytemap_block(m, a >> 6, 0);
        if (!b || !(b->known >> (a & 63) & 1))
            return (int)i;
        val[i] = b->b[a & 63];
    }
    return -1;
}
