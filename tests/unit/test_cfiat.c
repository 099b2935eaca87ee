/* tm — unit tests of the CFiat cache (docs/spec.md §3.8): the thesis's
 * evict.s and multiblock.s scenarios (Figs. 4.42-4.45), flags across lines
 * and granules, the shared organization's per-thread flags, invalidation,
 * and configuration errors. */
#include <criterion/criterion.h>
#include <string.h>
#include "tm/cache.h"

typedef struct op {
    int store;
    uint64_t addr;
    unsigned size;
    int nlines;
    int way[2], hit[2];  /* per line, in address order */
    int report;          /* loads: a data message is needed */
} op;

static void run_ops(tm_cache *c, const op *ops, int n)
{
    for (int i = 0; i < n; i++) {
        const op *o = &ops[i];
        tm_cache_res r = o->store ? tm_cache_store(c, 0, o->addr, o->size) : tm_cache_load(c, 0, o->addr, o->size);
        int ways[5], hits[5];
        unsigned nl = tm_cache_last_ways(c, ways, hits);
        cr_assert_eq(nl, (unsigned)o->nlines, "op %d: lines", i);
        cr_assert_eq(r.lines, o->nlines, "op %d: lines", i);
        for (int k = 0; k < o->nlines; k++) {
            cr_assert_eq(hits[k], o->hit[k], "op %d line %d: hit %d, expected %d", i, k, hits[k], o->hit[k]);
            cr_assert_eq(ways[k], o->way[k], "op %d line %d: way %d, expected %d", i, k, ways[k], o->way[k]);
        }
        if (!o->store)
            cr_assert_eq(r.report, o->report, "op %d: report %d, expected %d", i, r.report, o->report);
    }
}

/* The thesis's test cache: 32 bytes, 2 ways, 16-byte lines (one set); g = 4. */
static tm_cache *thesis_cache(int shared)
{
    tm_cache_cfg cfg = {.size = 32, .assoc = 2, .line = 16, .gran = 4};
    tm_cache *c = NULL;
    cr_assert_eq(tm_cache_new(&cfg, shared, &c), TM_OK);
    return c;
}

/* evict.s (Figs. 4.42, 4.43): push rbp; nine 4-byte stores to rbp-48+4i;
 * leave (8-byte load of the saved rbp); ret (8-byte load of the return
 * address).  Exactly the thesis's ways and hits: the push misses into way 1,
 * the stores fill way 0, way 1, way 0 (three evictions), leave misses into
 * way 1 (a report), ret hits way 1 but its flags are clear (a report). */
Test(cfiat, thesis_evict_s)
{
    tm_cache *c = thesis_cache(0);
    const uint64_t rbp = 0x7fffa51e1680;
    op ops[] = {
        {1, rbp, 8, 1, {1}, {0}, 0},          /* push rbp: "Local Miss! Replacing way 1" */
        {1, rbp - 48, 4, 1, {0}, {0}, 0},     /* 0x...650: miss, way 0 */
        {1, rbp - 44, 4, 1, {0}, {1}, 0},
        {1, rbp - 40, 4, 1, {0}, {1}, 0},
        {1, rbp - 36, 4, 1, {0}, {1}, 0},
        {1, rbp - 32, 4, 1, {1}, {0}, 0},     /* 0x...660: miss, way 1 (evicts the push's line) */
        {1, rbp - 28, 4, 1, {1}, {1}, 0},
        {1, rbp - 24, 4, 1, {1}, {1}, 0},
        {1, rbp - 20, 4, 1, {1}, {1}, 0},
        {1, rbp - 16, 4, 1, {0}, {0}, 0},     /* 0x...670: miss, way 0 */
        {0, rbp, 8, 1, {1}, {0}, 1},          /* leave: miss, way 1 -> report */
        {0, rbp + 8, 8, 1, {1}, {1}, 1},      /* ret: hit way 1, flags miss -> report */
    };
    run_ops(c, ops, (int)(sizeof ops / sizeof ops[0]));
    /* leave set granules 0 and 1 of the line, ret granules 2 and 3. */
    cr_assert_eq(tm_cache_flags_of(c, rbp), 0xF);
    /* A second ret-like load now hits flags: no report. */
    cr_assert_eq(tm_cache_load(c, 0, rbp + 8, 8).report, 0);
    tm_cache_free(c);
}

/* multiblock.s (Figs. 4.44, 4.45), with rsp = 0x7fffb79aa780 after the
 * alignment and the saved rbp at 0x...788: four 8-byte stores, the four
 * loads hit (ways 0, 0, 1, 1, flags set: no report), the 32-byte store
 * misses into way 0 then way 1, the 32-byte load hits both, the 8-byte store
 * at rsp-0x60 replaces way 0, and the last 32-byte load misses twice: way 1
 * is replaced before way 0 (true LRU), as the thesis explains. */
Test(cfiat, thesis_multiblock_s)
{
    tm_cache *c = thesis_cache(0);
    const uint64_t rsp = 0x7fffb79aa780;
    op ops[] = {
        {1, rsp + 8, 8, 1, {1}, {0}, 0},                  /* push rbp (line 0x...780) */
        {1, rsp - 8, 8, 1, {0}, {0}, 0},                  /* mov [rsp-8]: line 0x...770 */
        {1, rsp - 16, 8, 1, {0}, {1}, 0},
        {1, rsp - 24, 8, 1, {1}, {0}, 0},                 /* line 0x...760 replaces the push's */
        {1, rsp - 32, 8, 1, {1}, {1}, 0},
        {0, rsp - 8, 8, 1, {0}, {1}, 0},                  /* vmovsd loads: hits, flags set */
        {0, rsp - 16, 8, 1, {0}, {1}, 0},
        {0, rsp - 24, 8, 1, {1}, {1}, 0},
        {0, rsp - 32, 8, 1, {1}, {1}, 0},
        {1, rsp - 64, 32, 2, {0, 1}, {0, 0}, 0},          /* vmovapd store: miss way 0, miss way 1 */
        {0, rsp - 64, 32, 2, {0, 1}, {1, 1}, 0},          /* vmovapd load: hits, flags set */
        {1, rsp - 96, 8, 1, {0}, {0}, 0},                 /* mov [rsp-0x60]: replaces way 0 */
        {0, rsp - 64, 32, 2, {1, 0}, {0, 0}, 1},          /* way 1 replaced first, then way 0 */
    };
    run_ops(c, ops, (int)(sizeof ops / sizeof ops[0]));
    tm_cache_free(c);
}

/* Flags are set only for fully covered granules; a touched granule that is
 * not fully covered keeps its flag on a store only if it was valid. */
Test(cfiat, flags_granules_and_lines)
{
    tm_cache_cfg cfg = {.size = 1024, .assoc = 2, .line = 32, .gran = 4};
    tm_cache *c = NULL;
    cr_assert_eq(tm_cache_new(&cfg, 0, &c), TM_OK);
    /* 1-byte load: a report, no flag. */
    cr_assert_eq(tm_cache_load(c, 0, 0x1001, 1).report, 1);
    cr_assert_eq(tm_cache_flags_of(c, 0x1000), 0);
    cr_assert_eq(tm_cache_load(c, 0, 0x1001, 1).report, 1); /* still reported */
    /* A 4-byte aligned load sets granule 0; then the 1-byte load hits. */
    cr_assert_eq(tm_cache_load(c, 0, 0x1000, 4).report, 1);
    cr_assert_eq(tm_cache_flags_of(c, 0x1000), 0x1);
    cr_assert_eq(tm_cache_load(c, 0, 0x1001, 1).report, 0);
    /* A 10-byte load at 0x101A crosses into the next line: bytes 26..31 of
     * line 0x1000 (granule 7 full, granule 6 half) and 0..3 of 0x1020
     * (granule 0 full). */
    tm_cache_res r = tm_cache_load(c, 0, 0x101A, 10);
    cr_assert_eq(r.lines, 2);
    cr_assert_eq(r.report, 1);
    cr_assert_eq(tm_cache_flags_of(c, 0x1000), 0x81);
    cr_assert_eq(tm_cache_flags_of(c, 0x1020), 0x1);
    /* A 64-byte load at 0x1004 covers lines 0x1000, 0x1020, 0x1040. */
    r = tm_cache_load(c, 0, 0x1004, 64);
    cr_assert_eq(r.lines, 3);
    cr_assert_eq(r.report, 1);
    cr_assert_eq(tm_cache_flags_of(c, 0x1000), 0xFF);
    cr_assert_eq(tm_cache_flags_of(c, 0x1020), 0xFF);
    cr_assert_eq(tm_cache_flags_of(c, 0x1040), 0x1);
    cr_assert_eq(tm_cache_load(c, 0, 0x1004, 64).report, 0);
    /* A 2-byte store into a granule without its flag leaves it clear; into a
     * set one keeps it (private: set means valid). */
    tm_cache_store(c, 0, 0x1046, 2);
    cr_assert_eq(tm_cache_flags_of(c, 0x1040), 0x1);
    tm_cache_store(c, 0, 0x1042, 2);
    cr_assert_eq(tm_cache_flags_of(c, 0x1040), 0x1);
    /* A store miss allocates and sets the covered flags (write-allocate). */
    tm_cache_res s = tm_cache_store(c, 0, 0x2000, 8);
    cr_assert_eq(s.all_hit, 0);
    cr_assert_eq(tm_cache_flags_of(c, 0x2000), 0x3);
    cr_assert_eq(tm_cache_load(c, 0, 0x2004, 4).report, 0);
    /* Invalidation clears the whole line's flags, keeps the line. */
    cr_assert_eq(tm_cache_invalidate(c, 0x2010, 1), 1);
    cr_assert_eq(tm_cache_flags_of(c, 0x2000), 0);
    cr_assert_geq(tm_cache_way_of(c, 0x2000), 0);
    cr_assert_eq(tm_cache_load(c, 0, 0x2004, 4).report, 1);
    cr_assert_eq(tm_cache_invalidate(c, 0x9000, 4), 0); /* not held */
    tm_cache_clear_flags(c);
    cr_assert_eq(tm_cache_flags_of(c, 0x1000), 0);
    tm_cache_free(c);
}

/* Shared organization: a flag counts only for the thread that set it; a
 * store by another thread takes full granules over and clears its partly
 * covered ones. */
Test(cfiat, shared_flags_per_thread)
{
    tm_cache_cfg cfg = {.size = 1024, .assoc = 4, .line = 32, .gran = 4};
    tm_cache *c = NULL;
    cr_assert_eq(tm_cache_new(&cfg, 1, &c), TM_OK);
    cr_assert_eq(tm_cache_load(c, 1, 0x100, 8).report, 1);  /* thread 1 learns 0x100..0x107 */
    cr_assert_eq(tm_cache_load(c, 1, 0x100, 8).report, 0);
    cr_assert_eq(tm_cache_load(c, 2, 0x100, 8).report, 1);  /* thread 2 does not know it */
    cr_assert_eq(tm_cache_load(c, 1, 0x100, 8).report, 1);  /* the flags are now thread 2's */
    /* Thread 2 stores 2 bytes into granule 0 (thread 1's): cleared. */
    tm_cache_store(c, 2, 0x101, 2);
    cr_assert_eq(tm_cache_flags_of(c, 0x100) & 1, 0);
    /* Thread 1 stores 2 bytes into granule 1 (its own): kept. */
    tm_cache_store(c, 1, 0x105, 2);
    cr_assert_eq(tm_cache_flags_of(c, 0x100) & 2, 2);
    cr_assert_eq(tm_cache_load(c, 1, 0x104, 4).report, 0);
    cr_assert_eq(tm_cache_load(c, 2, 0x104, 4).report, 1);
    tm_cache_free(c);
}

Test(cfiat, config_errors)
{
    char err[200];
    tm_cache_cfg ok = {.size = 32768, .assoc = 4, .line = 32, .gran = 4};
    cr_assert_eq(tm_cache_cfg_check(&ok, err, sizeof err), TM_OK);
    tm_cache_cfg b = ok;
    b.size = 30000;
    cr_assert_eq(tm_cache_cfg_check(&b, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "--cache 30000"));
    b = ok;
    b.line = 24;
    cr_assert_eq(tm_cache_cfg_check(&b, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "--line 24"));
    b = ok;
    b.assoc = 3;
    cr_assert_eq(tm_cache_cfg_check(&b, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "--assoc 3"));
    b = ok;
    b.gran = 64; /* larger than the line */
    cr_assert_eq(tm_cache_cfg_check(&b, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "--granularity 64"));
    b = ok;
    b.line = 4096;
    b.gran = 32; /* 128 flags per line */
    cr_assert_eq(tm_cache_cfg_check(&b, err, sizeof err), TM_ERR_ARG);
    cr_assert_eq(tm_size_class(10), TM_SZ_10);
    cr_assert_eq(tm_size_class(3), TM_SZ_OTHER);
    cr_assert_str_eq(tm_size_class_name(TM_SZ_HWORD), "hword");
}

/* The snoop filter (tm_snoop) skips only probes that would invalidate
 * nothing: two sets of four private caches, one with the filter and one
 * without, see the same random loads and stores (few sets, a small address
 * range: many lines shared, many evictions, operands across lines) and give
 * the same invalidation counts, reports, ways and flags throughout. */
Test(cfiat, snoop_filter_changes_nothing)
{
    static const tm_cache_cfg geoms[] = {
        {.size = 256, .assoc = 4, .line = 16, .gran = 4},
        {.size = 1024, .assoc = 2, .line = 32, .gran = 8},
        {.size = 512, .assoc = 8, .line = 8, .gran = 4},
        {.size = 64, .assoc = 1, .line = 4, .gran = 4},
    };
    for (size_t g = 0; g < sizeof geoms / sizeof geoms[0]; g++) {
        enum { N = 4 };
        tm_cache *a[N], *b[N];
        tm_snoop *s = tm_snoop_new(&geoms[g], N);
        cr_assert_not_null(s);
        for (int i = 0; i < N; i++) {
            cr_assert_eq(tm_cache_new(&geoms[g], 0, &a[i]), TM_OK);
            cr_assert_eq(tm_cache_new(&geoms[g], 0, &b[i]), TM_OK);
            tm_cache_set_snoop(a[i], s);
        }
        uint64_t x = 88172645463325252ull + g, skipped = 0, inv = 0;
        for (int k = 0; k < 200000; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            uint32_t t = (uint32_t)(x % N);
            int store = (x >> 8) % 3 == 0;
            uint64_t addr = 0x10000 + (x >> 16) % 4096;
            unsigned size = 1u << ((x >> 40) % 4);
            tm_cache_res ra = tm_cache_access(a[t], t, addr, size, store);
            tm_cache_res rb = tm_cache_access(b[t], t, addr, size, store);
            cr_assert_eq(ra.report, rb.report, "geometry %zu op %d: report", g, k);
            cr_assert_eq(ra.all_hit, rb.all_hit, "geometry %zu op %d: hit", g, k);
            if (store) {
                unsigned ia = tm_cache_invalidate_others(a, N, t, addr, size);
                unsigned ib = tm_cache_invalidate_others(b, N, t, addr, size);
                cr_assert_eq(ia, ib, "geometry %zu op %d: %u lines invalidated, %u without the filter", g, k, ia,
                             ib);
                inv += ib;
                skipped += ib == 0;
            }
            for (int i = 0; i < N; i++)
                cr_assert_eq(tm_cache_flags_of(a[i], addr), tm_cache_flags_of(b[i], addr),
                             "geometry %zu op %d: flags of cache %d", g, k, i);
        }
        cr_assert_gt(inv, 1000, "the stream invalidates lines");
        cr_assert_gt(skipped, 1000, "and has stores that invalidate nothing");
        for (int i = 0; i < N; i++) {
            tm_cache_free(a[i]);
            tm_cache_free(b[i]);
        }
        tm_snoop_free(s);
    }
}

/* Geometries whose filter would be too big, or whose counters could
 * overflow, get none. */
Test(cfiat, snoop_filter_limits)
{
    tm_cache_cfg big = {.size = 64u << 20, .assoc = 1, .line = 4, .gran = 4};
    cr_assert_null(tm_snoop_new(&big, 2));
    tm_cache_cfg wide = {.size = 4096, .assoc = 64, .line = 4, .gran = 4};
    cr_assert_null(tm_snoop_new(&wide, 1024));
    tm_snoop *s = tm_snoop_new(&wide, 1023);
    cr_assert_not_null(s);
    tm_snoop_free(s);
}
