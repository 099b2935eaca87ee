/* tm — capture layer: the memory image that the loads are checked
 * against, the modules mapped and the --filter-rtn ranges (capture_int.h). */
#include <stdlib.h>
#include <string.h>
#include "tm/elf.h"
#include "tm/grow.h"
#include "capture_int.h"

/* ------------------------------------------------------------ memory image */

/* A frontend gives every load's value and every store's (docs/capture.md
 * §2); memory changes only by the stores it reports (a system call's
 * output, a signal frame: writes by the system).  A load whose bytes differ
 * from what the last load or store of them gave contradicts the capture
 * itself -- a damaged stream, or a write the frontend did not see -- and the
 * trace module, which sends no DATA message for a value the debugger knows,
 * would give a trace that replays wrong: refused.  Bounded: at
 * IMG_MAX_BLOCKS blocks the image starts over (fewer checks, never a false
 * one). */

/* The block of KEY in the image (CREATE: made, the image started over
 * when it is full); NULL if absent (CREATE: out of memory). */
static tm_byteblk *img_find(tm_cap *c, uint64_t key, int create)
{
    if (create && c->img.live >= IMG_MAX_BLOCKS && (c->img.live + 1) * 2 > c->img.cap)
        tm_bytemap_clear(&c->img);
    return tm_bytemap_block(&c->img, key, create);
}

/* The operand M of thread TID at stream offset OFF: a load is checked
 * against the image, then its bytes (a store's too) become known; a store
 * without its value makes them unknown.  0, or -1 after tm_capi_fail(). */
int tm_capi_img_access(tm_cap *c, uint32_t tid, const pmem *m, int novalue, uint64_t off)
{
    const uint8_t *v = (const uint8_t *)m->v;
    for (unsigned i = 0; i < m->size;) {
        uint64_t a = m->addr + i;
        unsigned o = (unsigned)(a & 63), n = 64 - o < m->size - i ? 64 - o : m->size - i;
        uint64_t bits = n == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << n) - 1) << o;
        tm_byteblk *b = img_find(c, a >> 6, !novalue);
        if (novalue) {
            if (b)
                b->known &= ~bits;
            i += n;
            continue;
        }
        if (!b)
            return tm_capi_fail(c, off, "out of memory"), -1;
        if (!m->store && (b->known & bits)) {
            for (unsigned j = 0; j < n; j++)
                if ((b->known >> (o + j) & 1) && b->b[o + j] != v[i + j])
                    return tm_capi_fail(c, off,
                                        "thread %u loads 0x%02x at 0x%llx, but the capture's last load or store of "
                                        "that byte gave 0x%02x, with no write in between (a damaged capture, or a "
                                        "write the frontend did not see)",
                                        tid, v[i + j], (unsigned long long)(a + j), b->b[o + j]), -1;
        }
        memcpy(b->b + o, v + i, n);
        b->known |= bits;
        i += n;
    }
    return 0;
}

/* ------------------------------------------------------------ events */

static int add_range(tm_cap *c, uint64_t lo, uint64_t hi)
{
    if (TM_GROW(c->fr, c->fcap, c->nf + 1) != TM_OK)
        return -1;
    c->fr[c->nf].lo = lo;
    c->fr[c->nf++].hi = hi;
    return 0;
}

/* --filter-rtn: the address range of the function named by the
 * configuration in the ELF file E whose file offset 0 is at BASE. */
typedef struct rtn_find {
    const char *name;
    uint64_t value, size;
} rtn_find;

static int rtn_match(void *arg, const char *name, uint64_t value, uint64_t size)
{
    rtn_find *f = arg;
    if (strcmp(name, f->name))
        return 0;
    f->value = value;
    f->size = size;
    return 1;
}

static int filter_rtn(tm_cap *c, const tm_elf *e, uint64_t base)
{
    rtn_find f = {c->cfg.rtn, 0, 0};
    uint64_t vaddr0 = 0;
    if (!tm_elf_functions(e, rtn_match, &f) || !tm_elf_vaddr0(e, &vaddr0))
        return TM_OK;
    uint64_t lo = base - vaddr0 + f.value;
    return add_range(c, lo, lo + (f.size ? f.size : 1)) ? TM_ERR_NOMEM : TM_OK;
}

/* Whether the module (BASE, PATH) is new: then it is added to those seen
 * (1), else 0; -1 out of memory. */
static int new_module(tm_cap *c, uint64_t base, const char *path)
{
    for (size_t i = 0; i < c->nmods; i++)
        if (c->mods[i].base == base && !strcmp(c->mods[i].path, path))
            return 0;
    char *p = strdup(path);
    if (!p || TM_GROW(c->mods, c->modcap, c->nmods + 1) != TM_OK) {
        free(p);
        return -1;
    }
    c->mods[c->nmods].path = p;
    c->mods[c->nmods++].base = base;
    return 1;
}

static int module(tm_cap *c, uint64_t base, const char *path)
{
    int k = new_module(c, base, path);
    if (k <= 0)
        return k ? TM_ERR_NOMEM : TM_OK;
    uint8_t id[64];
    size_t idlen = 0;
    tm_elf e;
    if (tm_elf_map(&e, path, NULL, 0) == TM_OK) {
        idlen = tm_elf_build_id(&e, id);
        int rc = c->cfg.rtn ? filter_rtn(c, &e, base) : TM_OK;
        tm_elf_unmap(&e);
        if (rc != TM_OK)
            return rc;
    }
    tm_cap_module m = {base, path, id, idlen, NULL, 0};
    if (c->sink.module && c->sink.module(c->sink.arg, &m))
        return tm_capi_fail(c, c->off, "the consumer stopped");
    return TM_OK;
}

/* MAP: an executable file mapping. */
long tm_capi_ev_map(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    size_t pl = (w0 >> 8) & 0xffff;
    if (pl == 0 || pl > TMCAP_MAX_PATH)
        return tm_capi_fail(c, c->off, "mapping path of %zu bytes", pl), -1;
    char path[TMCAP_MAX_PATH + 1];
    memcpy(path, &w[4], pl);
    path[pl] = 0;
    if (w[3] > w[1])
        return tm_capi_fail(c, c->off, "mapping at 0x%llx with file offset 0x%llx", (unsigned long long)w[1],
                            (unsigned long long)w[3]), -1;
    if (c->cfg.main_only) { /* the first file mapped is the program */
        if (!c->have_main) {
            c->have_main = 1;
            if (!(c->main_path = strdup(path)))
                return tm_capi_fail(c, c->off, "out of memory"), -1;
        }
        if (!strcmp(path, c->main_path) && add_range(c, w[1], w[1] + w[2]))
            return tm_capi_fail(c, c->off, "out of memory"), -1;
    }
    return module(c, w[1] - w[3], path) == TM_OK ? (long)len : -1;
}

/* VDSO: the vdso's bytes. */
long tm_capi_ev_vdso(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    size_t vl = (w0 >> 8) & 0xffffffff;
    if (vl == 0 || vl > TMCAP_MAX_VDSO)
        return tm_capi_fail(c, c->off, "vdso of %zu bytes", vl), -1;
    int k = new_module(c, w[1], "[vdso]");
    if (k < 0)
        return tm_capi_fail(c, c->off, "out of memory"), -1;
    if (k == 0)
        return (long)len;
    tm_cap_module m = {w[1], "[vdso]", NULL, 0, (const uint8_t *)&w[2], vl};
    if (c->sink.module && c->sink.module(c->sink.arg, &m))
        return tm_capi_fail(c, c->off, "the consumer stopped"), -1;
    return (long)len;
}
