/* tm — the CFiat data cache with first-access flags (docs/spec.md §3.8). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bits_int.h"
#include "cache.h"

/* One way of a set; the ways of a set are adjacent (one lookup touches one
 * or two host cache lines). */
typedef struct way {
    uint64_t tagv;     /* tag + 1; 0 = invalid */
    uint64_t stamp;    /* last access */
    uint64_t flags;    /* bit k: granule k's flag */
} way;

struct tm_cache {
    tm_cache_cfg cfg;
    int shared;
    uint32_t sets, ways, flags_per_line;
    unsigned line_shift, set_shift, gran_shift;
    uint64_t clock;
    way *w;
    uint16_t *owner;   /* shared: thread of each flag (ways x flags_per_line) */
    /* last operand, for tests */
    unsigned last_lines;
    int last_way[5], last_hit[5];
};

static const char *const class_names[TM_SZ_CLASSES] = {"byte", "word", "dword", "qword", "10-byte",
                                                      "oword", "hword", "64-byte", "other"};

unsigned tm_size_class(unsigned size)
{
    switch (size) {
    case 1: return TM_SZ_BYTE;
    case 2: return TM_SZ_WORD;
    case 4: return TM_SZ_DWORD;
    case 8: return TM_SZ_QWORD;
    case 10: return TM_SZ_10;
    case 16: return TM_SZ_OWORD;
    case 32: return TM_SZ_HWORD;
    case 64: return TM_SZ_64;
    default: return TM_SZ_OTHER;
    }
}

const char *tm_size_class_name(unsigned cls)
{
    return cls < TM_SZ_CLASSES ? class_names[cls] : "?";
}

int tm_cache_preset(tm_cache_cfg *c, const char *name)
{
    if (!strcmp(name, "tool")) {
        c->size = 32u << 10; c->assoc = 4; c->line = 32; c->gran = 4;
    } else if (!strcmp(name, "study")) {
        c->size = 64u << 10; c->assoc = 4; c->line = 64; c->gran = 4;
    } else {
        return TM_ERR_ARG;
    }
    return TM_OK;
}


int tm_cache_cfg_check(const tm_cache_cfg *c, char *err, unsigned long errlen)
{
    if (!tm_is_pow2(c->size) || c->size < 16 || c->size > (64u << 20)) {
        snprintf(err, errlen, "--cache %u: allowed a power of two from 16 bytes to 64M", c->size);
        return TM_ERR_ARG;
    }
    if (!tm_is_pow2(c->line) || c->line < 4 || c->line > 4096 || c->line > c->size) {
        snprintf(err, errlen, "--line %u: allowed a power of two from 4 to 4096 bytes, at most the cache size %u",
                 c->line, c->size);
        return TM_ERR_ARG;
    }
    uint32_t maxa = c->size / c->line < 64 ? c->size / c->line : 64;
    if (!tm_is_pow2(c->assoc) || c->assoc > maxa) {
        snprintf(err, errlen, "--assoc %u: allowed a power of two from 1 to %u (cache size / line, at most 64)",
                 c->assoc, maxa);
        return TM_ERR_ARG;
    }
    if (!tm_is_pow2(c->gran) || c->gran > c->line || c->line / c->gran > 64) {
        snprintf(err, errlen,
                 "--granularity %u: allowed a power of two from %u to the line size %u (at most 64 flags per line)",
                 c->gran, c->line / 64 > 1 ? c->line / 64 : 1, c->line);
        return TM_ERR_ARG;
    }
    return TM_OK;
}

int tm_cache_new(const tm_cache_cfg *cfg, int shared, tm_cache **out)
{
    char err[160];
    *out = NULL;
    if (tm_cache_cfg_check(cfg, err, sizeof err) != TM_OK)
        return TM_ERR_ARG;
    tm_cache *c = calloc(1, sizeof *c);
    if (!c)
        return TM_ERR_NOMEM;
    c->cfg = *cfg;
    c->shared = shared != 0;
    c->ways = cfg->assoc;
    c->sets = cfg->size / (cfg->line * cfg->assoc);
    c->flags_per_line = cfg->line / cfg->gran;
    c->line_shift = tm_log2u(cfg->line);
    c->set_shift = tm_log2u(c->sets);
    c->gran_shift = tm_log2u(cfg->gran);
    size_t n = (size_t)c->sets * c->ways;
    c->w = calloc(n, sizeof *c->w);
    if (c->shared)
        c->owner = calloc(n * c->flags_per_line, sizeof *c->owner);
    if (!c->w || (c->shared && !c->owner)) {
        tm_cache_free(c);
        return TM_ERR_NOMEM;
    }
    *out = c;
    return TM_OK;
}

void tm_cache_free(tm_cache *c)
{
    if (!c)
        return;
    free(c->w);
    free(c->owner);
    free(c);
}

static inline uint64_t span(unsigned lo, unsigned hi) /* bits lo..hi, hi < 64 */
{
    uint64_t top = hi >= 63 ? ~UINT64_C(0) : (UINT64_C(1) << (hi + 1)) - 1;
    return top & ~((UINT64_C(1) << lo) - 1);
}

/* Index of the way holding LINE (line number) or -1. */
static inline long find(const tm_cache *c, uint64_t line, uint64_t *base)
{
    uint64_t set = line & (c->sets - 1);
    uint64_t tv = (line >> c->set_shift) + 1;
    *base = set * c->ways;
    const way *s = c->w + *base;
    /* Without early exit: valid ways hold distinct tags, and a branch-free
     * scan beats a mispredicted exit for the usual 4 or 8 ways. */
    long hit = -1;
    for (uint32_t w = 0; w < c->ways; w++)
        hit = s[w].tagv == tv ? (long)w : hit;
    return hit;
}

/* Fills LINE into its set (highest invalid way, else LRU); flags clear. */
static inline uint32_t fill(tm_cache *c, uint64_t line, uint64_t base)
{
    uint32_t v = 0;
    int found = 0;
    way *s = c->w + base;
    for (uint32_t w = 0; w < c->ways; w++) { /* the highest invalid way */
        int inv = s[w].tagv == 0;
        v = inv ? w : v;
        found |= inv;
    }
    if (!found) {
        uint64_t best = UINT64_MAX;
        for (uint32_t w = 0; w < c->ways; w++) {
            int older = s[w].stamp < best;
            best = older ? s[w].stamp : best;
            v = older ? w : v;
        }
    }
    s[v].tagv = (line >> c->set_shift) + 1;
    s[v].flags = 0;
    return v;
}

/* The granules of line LINE the operand [a, e] touches and fully covers. */
static inline void masks(const tm_cache *c, uint64_t line, uint64_t a, uint64_t e, uint64_t *touch,
                         uint64_t *full)
{
    uint64_t lb = line << c->line_shift;
    unsigned lo = (unsigned)((a > lb ? a : lb) - lb);
    unsigned hi = (unsigned)((e < lb + c->cfg.line - 1 ? e : lb + c->cfg.line - 1) - lb);
    unsigned g = c->gran_shift;
    *touch = span(lo >> g, hi >> g);
    unsigned fl = (lo + c->cfg.gran - 1) >> g;
    int fh = (int)((hi + 1) >> g) - 1;
    *full = fh >= (int)fl ? span(fl, (unsigned)fh) : 0;
}

/* Flags of way IDX valid for thread TID among MASK. */
static inline uint64_t valid_for(const tm_cache *c, size_t idx, uint32_t tid, uint64_t mask)
{
    uint64_t f = c->w[idx].flags & mask;
    if (!c->shared || !f)
        return f;
    const uint16_t *o = c->owner + idx * c->flags_per_line;
    uint64_t v = 0;
    for (uint64_t m = f; m; m &= m - 1) {
        unsigned k = (unsigned)__builtin_ctzll(m);
        if (o[k] == tid)
            v |= UINT64_C(1) << k;
    }
    return v;
}

static inline void set_flags(tm_cache *c, size_t idx, uint32_t tid, uint64_t mask)
{
    c->w[idx].flags |= mask;
    if (c->shared) {
        uint16_t *o = c->owner + idx * c->flags_per_line;
        for (uint64_t m = mask; m; m &= m - 1)
            o[__builtin_ctzll(m)] = (uint16_t)tid;
    }
}

static tm_cache_res cache_access(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size, int store)
{
    tm_cache_res r = {0, 1, 1, 0};
    uint64_t e = addr + size - 1;
    uint64_t l0 = addr >> c->line_shift, l1 = e >> c->line_shift;
    c->last_lines = 0;
    for (uint64_t line = l0; line <= l1; line++) {
        uint64_t base, touch, full;
        long w = find(c, line, &base);
        int hit = w >= 0;
        if (!hit)
            w = fill(c, line, base);
        size_t idx = base + (size_t)w;
        c->w[idx].stamp = ++c->clock;
        if (c->last_lines < 5) {
            c->last_way[c->last_lines] = (int)w;
            c->last_hit[c->last_lines] = hit;
        }
        c->last_lines++;
        r.lines++;
        masks(c, line, addr, e, &touch, &full);
        if (!hit)
            r.all_hit = 0;
        if (store) {
            /* A partly covered granule keeps its flag only if it is valid
             * for the storing thread. */
            uint64_t part = touch & ~full;
            if (part)
                c->w[idx].flags &= ~(part & ~valid_for(c, idx, tid, part));
        } else if (hit && valid_for(c, idx, tid, touch) != touch) {
            r.flags_hit = 0;
        }
        set_flags(c, idx, tid, full);
    }
    if (!store)
        r.report = !r.all_hit || !r.flags_hit;
    return r;
}

tm_cache_res tm_cache_load(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size)
{
    return cache_access(c, tid, addr, size, 0);
}

tm_cache_res tm_cache_store(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size)
{
    return cache_access(c, tid, addr, size, 1);
}

unsigned tm_cache_invalidate(tm_cache *c, uint64_t addr, unsigned size)
{
    unsigned n = 0;
    uint64_t l0 = addr >> c->line_shift, l1 = (addr + size - 1) >> c->line_shift;
    for (uint64_t line = l0; line <= l1; line++) {
        uint64_t base;
        long w = find(c, line, &base);
        if (w >= 0) {
            c->w[base + (size_t)w].flags = 0;
            n++;
        }
    }
    return n;
}

void tm_cache_clear_flags(tm_cache *c)
{
    size_t n = (size_t)c->sets * c->ways;
    for (size_t i = 0; i < n; i++)
        c->w[i].flags = 0;
}

int tm_cache_way_of(const tm_cache *c, uint64_t addr)
{
    uint64_t base;
    long w = find(c, addr >> c->line_shift, &base);
    return (int)w;
}

uint64_t tm_cache_flags_of(const tm_cache *c, uint64_t addr)
{
    uint64_t base;
    long w = find(c, addr >> c->line_shift, &base);
    return w < 0 ? 0 : c->w[base + (size_t)w].flags;
}

unsigned tm_cache_last_ways(const tm_cache *c, int ways[5], int hits[5])
{
    unsigned n = c->last_lines < 5 ? c->last_lines : 5;
    for (unsigned i = 0; i < n; i++) {
        ways[i] = c->last_way[i];
        hits[i] = c->last_hit[i];
    }
    return c->last_lines;
}
