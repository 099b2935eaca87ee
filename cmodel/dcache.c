/* tm — the CFiat data cache with first-access flags (docs/spec.md §3.8). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "tm/cache.h"

/* Layout: one block per set, its ways' tags then their flags (a 4-way set
 * is one 64-byte host cache line), so that a lookup touches one line, and
 * the probe of another core's cache by a store too.  True LRU as a rank per
 * way (0 = most recent; a permutation of 0..ways-1 in each set): the same
 * order as last-access stamps for the ways that were accessed, and every
 * valid way was (ways become valid only by a fill, never invalid again). */
struct tm_cache {
    tm_cache_cfg cfg;
    int shared;
    uint32_t sets, ways, flags_per_line;
    unsigned line_shift, set_shift, gran_shift;
    uint64_t *blk;     /* sets x (ways tags + 1 (0 = invalid), ways flags) */
    uint8_t *rank;     /* sets x ways: LRU rank */
    uint16_t *owner;   /* shared: thread of each flag (ways x flags_per_line) */
    uint64_t *fset;    /* bit per set: some flag of the set may be set (a clear of
                          every flag visits only those sets) */
    uint16_t *snoop;   /* the snoop filter's counters (sets x 64), or NULL */
    int used;          /* some line was ever filled (an unused cache holds nothing to
                          invalidate or clear: the probes are skipped) */
    /* last operand, for tests */
    unsigned last_lines;
    uint8_t last[5];   /* per line: way | hit << 7 */
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

uint64_t tm_size_class_sum(const uint64_t *v)
{
    uint64_t s = 0;
    for (unsigned k = 0; k < TM_SZ_CLASSES; k++)
        s += v[k];
    return s;
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


int tm_cache_cfg_check(const tm_cache_cfg *c, char *err, size_t errlen)
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

/* Zeroed, on a host cache line boundary. */
static void *aligned_zalloc(size_t bytes)
{
    size_t n = (bytes + 63) / 64 * 64;
    void *p = aligned_alloc(64, n);
    if (p)
        memset(p, 0, n);
    return p;
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
    c->blk = aligned_zalloc(2 * n * sizeof *c->blk);
    c->rank = malloc(n);
    c->fset = calloc((c->sets + 63) / 64, sizeof *c->fset);
    if (c->rank)
        for (size_t i = 0; i < n; i++)
            c->rank[i] = (uint8_t)(i & (c->ways - 1));
    if (c->shared)
        c->owner = calloc(n * c->flags_per_line, sizeof *c->owner);
    if (!c->blk || !c->rank || !c->fset || (c->shared && !c->owner)) {
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
    free(c->blk);
    free(c->rank);
    free(c->owner);
    free(c->fset);
    free(c);
}

#if defined(__GNUC__) || defined(__clang__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define ALWAYS_INLINE inline
#define NOINLINE
#define LIKELY(x) (x)
#endif

/* The tags of the W-way set whose first way is BASE (set * W), and the
 * flags of its way WAY (the block layout above). */
static inline uint64_t *tags_at(const tm_cache *c, uint64_t base) { return c->blk + 2 * base; }

static inline uint64_t *flags_at(const tm_cache *c, uint64_t base, uint64_t way, uint32_t W)
{
    return c->blk + 2 * base + W + way;
}

/* The flags of way IDX (set * ways + way). */
static inline uint64_t *flags_of(const tm_cache *c, size_t idx)
{
    uint64_t way = idx & (c->ways - 1);
    return flags_at(c, idx - way, way, c->ways);
}

static inline uint64_t span(unsigned lo, unsigned hi) /* bits lo..hi, lo <= hi < 64 */
{
    return (~UINT64_C(0) >> (63 - hi)) & (~UINT64_C(0) << lo);
}

/* The way of the W-way set at T holding TV, or -1.  Without early exit:
 * valid ways hold distinct tags, and a branch-free scan beats a mispredicted
 * exit for the usual 4 or 8 ways. */
static ALWAYS_INLINE long scan(const uint64_t *t, uint64_t tv, uint32_t w_n)
{
    long hit = -1;
#pragma GCC unroll 8
    for (uint32_t w = 0; w < w_n; w++)
        hit = t[w] == tv ? (long)w : hit;
    return hit;
}

/* The functions below take the associativity W as a parameter: the entry
 * points call them with a constant for 2, 4 and 8 ways (loops unrolled,
 * no index arithmetic on c->ways), else with c->ways. */

/* Index of the way holding LINE or -1; *BASE = first way of its set. */
static ALWAYS_INLINE long find_w(const tm_cache *c, uint64_t line, uint64_t *base, uint32_t W)
{
    uint64_t set = line & (c->sets - 1);
    uint64_t tv = (line >> c->set_shift) + 1;
    *base = set * W;
    return scan(tags_at(c, *base), tv, W);
}

static inline long find(const tm_cache *c, uint64_t line, uint64_t *base)
{
    return find_w(c, line, base, c->ways);
}

struct tm_snoop {
    uint16_t *cnt;
};

#define SNOOP_MAX_SETS (64u << 10)

tm_snoop *tm_snoop_new(const tm_cache_cfg *cfg, uint32_t n)
{
    uint32_t sets = cfg->size / (cfg->line * cfg->assoc);
    if (sets > SNOOP_MAX_SETS || (uint64_t)n * cfg->assoc > UINT16_MAX)
        return NULL;
    tm_snoop *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    if (!(s->cnt = aligned_zalloc((size_t)sets * 64 * sizeof *s->cnt))) {
        free(s);
        return NULL;
    }
    return s;
}

void tm_snoop_free(tm_snoop *s)
{
    if (s)
        free(s->cnt);
    free(s);
}

void tm_cache_set_snoop(tm_cache *c, tm_snoop *s) { c->snoop = s ? s->cnt : NULL; }

/* The filter's hash of tag value TV (the tag + 1 as stored). */
static inline unsigned snoop_hash(uint64_t tv) { return (unsigned)((tv ^ (tv >> 6) ^ (tv >> 12)) & 63); }

/* Fills LINE into its set (the highest invalid way, else the LRU one);
 * flags clear. */
static ALWAYS_INLINE uint32_t fill(tm_cache *c, uint64_t line, uint64_t base, uint32_t W)
{
    c->used = 1;
    uint32_t v = 0;
    int found = 0;
    uint64_t *t = tags_at(c, base);
#pragma GCC unroll 8
    for (uint32_t w = 0; w < W; w++) { /* the highest invalid way */
        int inv = t[w] == 0;
        v = inv ? w : v;
        found |= inv;
    }
    if (!found) {
        const uint8_t *rk = c->rank + base;
        uint32_t last = W - 1;
#pragma GCC unroll 8
        for (uint32_t w = 0; w < W; w++)
            v = rk[w] == last ? w : v;
    }
    uint64_t tv = (line >> c->set_shift) + 1;
    if (c->snoop) {
        uint16_t *k = c->snoop + (base / W) * 64;
        if (t[v])
            k[snoop_hash(t[v])]--;
        k[snoop_hash(tv)]++;
    }
    t[v] = tv;
    *flags_at(c, base, v, W) = 0;
    return v;
}

/* Way W of the set at BASE becomes the most recently used. */
static ALWAYS_INLINE void touch_lru(tm_cache *c, uint64_t base, uint32_t w, uint32_t W)
{
    uint8_t *rk = c->rank + base;
    unsigned r = rk[w];
#pragma GCC unroll 8
    for (uint32_t v = 0; v < W; v++)
        rk[v] = (uint8_t)(rk[v] + (rk[v] < r));
    rk[w] = 0;
}

/* Flags of way IDX valid for thread TID among MASK. */
static inline uint64_t valid_for(const tm_cache *c, size_t idx, uint32_t tid, uint64_t mask)
{
    uint64_t f = *flags_of(c, idx) & mask;
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
    *flags_of(c, idx) |= mask;
    if (c->shared) {
        uint16_t *o = c->owner + idx * c->flags_per_line;
        for (uint64_t m = mask; m; m &= m - 1)
            o[__builtin_ctzll(m)] = (uint16_t)tid;
    }
}

/* One line of an operand: LINE, bytes LO..HI of it (LO <= HI). */
static ALWAYS_INLINE void line_access(tm_cache *c, uint32_t tid, uint64_t line, unsigned lo, unsigned hi,
                                      int store, tm_cache_res *r, uint32_t W)
{
    uint64_t base;
    long w = find_w(c, line, &base, W);
    int hit = w >= 0;
    if (!hit) {
        w = fill(c, line, base, W);
        r->all_hit = 0;
    }
    size_t idx = base + (size_t)w;
    uint64_t set = base / W;
    touch_lru(c, base, (uint32_t)w, W);
    if (r->lines < 5)
        c->last[r->lines] = (uint8_t)((unsigned)w | (unsigned)hit << 7);
    r->lines++;
    /* The granules the operand touches and those it fully covers. */
    unsigned g = c->gran_shift;
    uint64_t touch = span(lo >> g, hi >> g);
    unsigned fl = (lo + c->cfg.gran - 1) >> g;
    unsigned fh1 = (hi + 1) >> g; /* last fully covered granule + 1 */
    uint64_t full = fh1 > fl ? span(fl, fh1 - 1) : 0;
    c->fset[set >> 6] |= (uint64_t)(full != 0) << (set & 63);
    if (!c->shared) {
        /* Every flag is valid for every access: a store keeps the flags
         * of the granules it covers partly (below), a load misses flags
         * only on a hit with some touched flag clear. */
        uint64_t *f = flags_at(c, base, (uint64_t)w, W);
        if (!store)
            r->flags_hit &= (uint8_t)(!hit | ((*f & touch) == touch));
        *f |= full;
        return;
    }
    if (store) {
        /* A partly covered granule keeps its flag only if it is valid
         * for the storing thread. */
        uint64_t part = touch & ~full;
        if (part)
            *flags_of(c, idx) &= ~(part & ~valid_for(c, idx, tid, part));
    } else if (hit && valid_for(c, idx, tid, touch) != touch) {
        r->flags_hit = 0;
    }
    set_flags(c, idx, tid, full);
}

/* An operand of lines L0 .. L1 other than one line (bytes A .. E; none if
 * E < A at a line boundary: size 0, which the co-simulation drives). */
static NOINLINE void multi_access(tm_cache *c, uint32_t tid, uint64_t a, uint64_t e, int store,
                                  tm_cache_res *r)
{
    uint64_t l0 = a >> c->line_shift, l1 = e >> c->line_shift;
    unsigned lmask = c->cfg.line - 1;
    for (uint64_t line = l0; line <= l1; line++)
        line_access(c, tid, line, line == l0 ? (unsigned)(a & lmask) : 0,
                    line == l1 ? (unsigned)(e & lmask) : lmask, store, r, c->ways);
}

static ALWAYS_INLINE tm_cache_res cache_access(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size,
                                               int store, uint32_t W)
{
    tm_cache_res r = {0, 1, 1, 0};
    uint64_t e = addr + size - 1;
    if (LIKELY((addr ^ e) >> c->line_shift == 0)) {
        unsigned lmask = c->cfg.line - 1;
        line_access(c, tid, addr >> c->line_shift, (unsigned)(addr & lmask), (unsigned)(e & lmask), store,
                    &r, W);
    } else {
        multi_access(c, tid, addr, e, store, &r);
    }
    c->last_lines = r.lines;
    if (!store)
        r.report = !r.all_hit || !r.flags_hit;
    return r;
}

/* cache_access for the associativity of C, a constant for 2, 4 and 8. */
static ALWAYS_INLINE tm_cache_res access_ways(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size, int store)
{
    switch (c->ways) {
    case 4: return cache_access(c, tid, addr, size, store, 4);
    case 8: return cache_access(c, tid, addr, size, store, 8);
    case 2: return cache_access(c, tid, addr, size, store, 2);
    default: return cache_access(c, tid, addr, size, store, c->ways);
    }
}

tm_cache_res tm_cache_access(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size, int store)
{
    return store ? access_ways(c, tid, addr, size, 1) : access_ways(c, tid, addr, size, 0);
}

tm_cache_res tm_cache_load(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size)
{
    return access_ways(c, tid, addr, size, 0);
}

tm_cache_res tm_cache_store(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size)
{
    return access_ways(c, tid, addr, size, 1);
}

static ALWAYS_INLINE unsigned invalidate_line(tm_cache *c, uint64_t line, uint32_t W)
{
    uint64_t base;
    long w = find_w(c, line, &base, W);
    if (w < 0)
        return 0;
    *flags_at(c, base, (uint64_t)w, W) = 0;
    return 1;
}

/* No cache but the storing one can hold LINE (which it holds): the counter
 * of its tag's hash is 1. */
static ALWAYS_INLINE int snoop_none(const tm_cache *self, uint64_t line)
{
    uint64_t set = line & (self->sets - 1);
    return self->snoop[set * 64 + snoop_hash((line >> self->set_shift) + 1)] == 1;
}

static ALWAYS_INLINE unsigned invalidate_w(tm_cache *c, uint64_t addr, unsigned size, uint32_t W)
{
    if (!c->used)
        return 0;
    uint64_t l0 = addr >> c->line_shift, l1 = (addr + size - 1) >> c->line_shift;
    if (LIKELY(l0 == l1))
        return invalidate_line(c, l0, W);
    unsigned n = 0;
    for (uint64_t line = l0; line <= l1; line++)
        n += invalidate_line(c, line, W);
    return n;
}

unsigned tm_cache_invalidate(tm_cache *c, uint64_t addr, unsigned size)
{
    return invalidate_w(c, addr, size, c->ways);
}

/* invalidate_w of each of the N caches CS (of W ways) but CS[SELF]. */
static ALWAYS_INLINE unsigned invalidate_all_w(tm_cache *const *cs, uint32_t n, uint32_t self, uint64_t addr,
                                               unsigned size, uint32_t W)
{
    unsigned k = 0;
    for (uint32_t j = 0; j < n; j++)
        k += j != self ? invalidate_w(cs[j], addr, size, W) : 0;
    return k;
}

unsigned tm_cache_invalidate_others(tm_cache *const *cs, uint32_t n, uint32_t self, uint64_t addr,
                                    unsigned size)
{
    /* The caches of one configuration: one associativity, one snoop filter. */
    if (n && cs[self]->snoop) {
        const tm_cache *c = cs[self];
        uint64_t l0 = addr >> c->line_shift, l1 = (addr + size - 1) >> c->line_shift;
        int none = 1;
        for (uint64_t line = l0; line <= l1 && none; line++)
            none = snoop_none(c, line);
        if (LIKELY(none))
            return 0;
    }
    switch (n ? cs[0]->ways : 0) {
    case 4: return invalidate_all_w(cs, n, self, addr, size, 4);
    case 8: return invalidate_all_w(cs, n, self, addr, size, 8);
    default: return invalidate_all_w(cs, n, self, addr, size, n ? cs[0]->ways : 0);
    }
}

void tm_cache_clear_flags(tm_cache *c)
{
    if (!c->used)
        return;
    size_t nw = (c->sets + 63) / 64;
    for (size_t i = 0; i < nw; i++) {
        for (uint64_t b = c->fset[i]; b; b &= b - 1) {
            size_t base = (i * 64 + (size_t)__builtin_ctzll(b)) * c->ways;
            for (uint32_t w = 0; w < c->ways; w++)
                *flags_at(c, base, w, c->ways) = 0;
        }
        c->fset[i] = 0;
    }
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
    return w < 0 ? 0 : *flags_of(c, base + (size_t)w);
}

unsigned tm_cache_last_ways(const tm_cache *c, int ways[5], int hits[5])
{
    unsigned n = c->last_lines < 5 ? c->last_lines : 5;
    for (unsigned i = 0; i < n; i++) {
        ways[i] = c->last[i] & 0x7f;
        hits[i] = c->last[i] >> 7;
    }
    return c->last_lines;
}
