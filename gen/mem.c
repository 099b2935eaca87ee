/* tm — generator: sparse simulated memory.
 *
 * Loads of the generated stream must return what the latest store (in the
 * global record order) left in memory, so the generator keeps the data it
 * writes.  Memory is a hash table of 4 KiB pages created on first touch;
 * a new page is filled with a deterministic pattern of its addresses (the
 * "initial contents", like a loaded data segment). */
#include <stdlib.h>
#include <string.h>
#include "tm/status.h"
#include "gen_int.h"

#define PAGE_BITS 12
#define PAGE_SIZE (1u << PAGE_BITS)

int gen_mem_init(gen_mem *m, uint64_t seed)
{
    memset(m, 0, sizeof *m);
    m->cap = 1024;
    m->key = calloc(m->cap, sizeof *m->key);
    m->page = calloc(m->cap, sizeof *m->page);
    m->seed = gen_mix(seed ^ 0x6D656D6F7279ULL);
    if (!m->key || !m->page) {
        gen_mem_free(m);
        return TM_ERR_NOMEM;
    }
    return TM_OK;
}

void gen_mem_free(gen_mem *m)
{
    if (m->page)
        for (size_t i = 0; i < m->cap; i++)
            free(m->page[i]);
    free(m->page);
    free(m->key);
    memset(m, 0, sizeof *m);
}

static size_t slot_of(const gen_mem *m, uint64_t key)
{
    size_t i = (size_t)gen_mix(key) & (m->cap - 1);
    while (m->key[i] && m->key[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int grow(gen_mem *m)
{
    size_t ncap = m->cap * 2;
    uint64_t *nkey = calloc(ncap, sizeof *nkey);
    uint8_t **npage = calloc(ncap, sizeof *npage);
    if (!nkey || !npage) {
        free(nkey);
        free(npage);
        return TM_ERR_NOMEM;
    }
    uint64_t *okey = m->key;
    uint8_t **opage = m->page;
    size_t ocap = m->cap;
    m->key = nkey;
    m->page = npage;
    m->cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (okey[i]) {
            size_t j = slot_of(m, okey[i]);
            m->key[j] = okey[i];
            m->page[j] = opage[i];
        }
    free(okey);
    free(opage);
    return TM_OK;
}

/* The page holding ADDR, created (with its initial pattern) if new. */
static uint8_t *page_of(gen_mem *m, uint64_t addr)
{
    uint64_t key = (addr >> PAGE_BITS) + 1;
    if (key == m->last_key)
        return m->last_page;
    size_t i = slot_of(m, key);
    if (!m->key[i]) {
        if ((m->n + 1) * 2 > m->cap) {
            if (grow(m))
                return NULL;
            i = slot_of(m, key);
        }
        uint8_t *pg = malloc(PAGE_SIZE);
        if (!pg)
            return NULL;
        uint64_t a0 = addr & ~(uint64_t)(PAGE_SIZE - 1);
        for (unsigned w = 0; w < PAGE_SIZE; w += 8) {
            /* Like real data: half zeros, small integers, pointers, and a
             * few random words. */
            uint64_t h = gen_mix((a0 + w) ^ m->seed), v;
            switch (h & 7) {
            case 0: case 1: case 2: case 3: v = 0; break;
            case 4: case 5: v = h >> 56; break;
            case 6: v = GEN_PRIV_BASE + ((h >> 40) & 0xFFF8); break;
            default: v = h; break;
            }
            for (unsigned b = 0; b < 8; b++)
                pg[w + b] = (uint8_t)(v >> (8 * b));
        }
        m->key[i] = key;
        m->page[i] = pg;
        m->n++;
    }
    m->last_key = key;
    m->last_page = m->page[i];
    return m->page[i];
}

/* Copies SIZE bytes at ADDR page by page: into OUT, or from IN when OUT is
 * NULL. */
static int copy(gen_mem *m, uint64_t addr, unsigned size, uint8_t *out, const uint8_t *in)
{
    while (size) {
        uint8_t *pg = page_of(m, addr);
        if (!pg)
            return TM_ERR_NOMEM;
        unsigned o = (unsigned)(addr & (PAGE_SIZE - 1));
        unsigned k = PAGE_SIZE - o < size ? PAGE_SIZE - o : size;
        if (out) {
            memcpy(out, pg + o, k);
            out += k;
        } else {
            memcpy(pg + o, in, k);
            in += k;
        }
        addr += k;
        size -= k;
    }
    return TM_OK;
}

int gen_mem_read(gen_mem *m, uint64_t addr, unsigned size, uint8_t *out)
{
    return copy(m, addr, size, out, NULL);
}

int gen_mem_write(gen_mem *m, uint64_t addr, unsigned size, const uint8_t *in)
{
    return copy(m, addr, size, NULL, in);
}
