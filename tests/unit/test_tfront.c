/* tm — unit tests of the timing model's frontend half (timing/tfront.c,
 * timing/tshadow.c, tm/tfront.h, docs/capture.md §3): its configuration
 * text, the caches' latencies (L1I, L1D per core, the shared L2, memory)
 * and coherence, the instruction fetch of blocks, the dependencies it
 * sends (a load after the store it read, with TMF_WAR a store after the
 * load or store of what it overwrites, a thread's end clearing its
 * CLEARTID word), the per-thread counts and the estimate of the threads'
 * clocks. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "tm/tfront.h"

/* The frontend's memory: malloc, every block kept to be freed at the end. */
typedef struct arena {
    void **p;
    size_t n, cap;
    int fail; /* refuse every allocation */
} arena;

static void *alloc_fn(void *ctx, unsigned long n)
{
    arena *a = ctx;
    if (a->fail)
        return NULL;
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->p = realloc(a->p, a->cap * sizeof *a->p);
        cr_assert_not_null(a->p);
    }
    void *p = malloc(n);
    cr_assert_not_null(p);
    memset(p, 0xa5, n); /* the frontend zeroes what it needs */
    a->p[a->n++] = p;
    return p;
}

/* The dependencies sent. */
typedef struct deps {
    unsigned kind[64], uid[64];
    tmf_word k[64];
    size_t n;
} deps;

static void dep_fn(void *ctx, unsigned kind, unsigned uid, tmf_word k)
{
    deps *d = ctx;
    cr_assert_lt(d->n, 64);
    d->kind[d->n] = kind;
    d->uid[d->n] = uid;
    d->k[d->n] = k;
    d->n++;
}

static arena A_;
static deps D;

/* The machine of the tests: 64-byte lines, L1I 1 KB 2-way (a hit 1
 * cycle), L1D 1 KB 2-way (2 cycles), L2 8 KB 4-way (10), memory 100: a
 * data access costs 2 (L1 hit), 12 (L2 hit) or 112; a line fetched 1, 11
 * or 111.  Both caches have 8 sets: lines 8 apart (512 bytes) share one. */
static tmf_cfg machine(unsigned flags)
{
    tmf_cfg c = {64, {1024, 2, 1}, {1024, 2, 2}, {8192, 4, 10}, 100, flags, 0, 0};
    return c;
}

static tmf *mkf(unsigned flags)
{
    tmf_cfg c = machine(flags);
    tmf *f = tmf_new(&c, alloc_fn, &A_, dep_fn, &D);
    cr_assert_not_null(f);
    return f;
}

static void done(void)
{
    for (size_t i = 0; i < A_.n; i++)
        free(A_.p[i]);
    free(A_.p);
    memset(&A_, 0, sizeof A_);
    D.n = 0;
}

TestSuite(tfront, .fini = done);

enum { ALL = TMF_ICACHE | TMF_DCACHE | TMF_ORDER };
#define NONE TMF_MAX_TIDS

static unsigned load(tmf *f, unsigned tid, tmf_word a, unsigned size) { return tmf_access(f, tid, a, size, 0, 0); }
static unsigned store(tmf *f, unsigned tid, tmf_word a, unsigned size) { return tmf_access(f, tid, a, size, 1, 0); }

/* Thread TID completes N blocks (id 0, never described: no fetch). */
static void blocks(tmf *f, unsigned tid, unsigned n)
{
    tmf_word d, i;
    for (unsigned j = 0; j < n; j++)
        tmf_exec(f, tid, 0, 0, &d, &i);
}

/* The dependencies sent are exactly N of KIND, UID, K. */
static void assert_deps(const unsigned (*want)[3], size_t n)
{
    cr_assert_eq(D.n, n, "%zu dependencies, want %zu", D.n, n);
    for (size_t i = 0; i < n; i++)
        cr_assert(D.kind[i] == want[i][0] && D.uid[i] == want[i][1] && D.k[i] == want[i][2],
                  "dependency %zu: kind %u uid %u block %llu, want %u %u %u", i, D.kind[i], D.uid[i],
                  (unsigned long long)D.k[i], want[i][0], want[i][1], want[i][2]);
}

Test(tfront, configuration_text)
{
    tmf_cfg c;
    const char *ex = "64/8192:2:0/8192:2:2/524288:8:4/200/7/20000/300000";
    cr_assert(tmf_cfg_parse(ex, &c));
    cr_assert_eq(c.line, 64);
    cr_assert(c.l1i.size == 8192 && c.l1i.ways == 2 && c.l1i.lat == 0);
    cr_assert(c.l1.size == 8192 && c.l1.ways == 2 && c.l1.lat == 2);
    cr_assert(c.l2.size == 524288 && c.l2.ways == 8 && c.l2.lat == 4);
    cr_assert(c.mem_lat == 200 && c.flags == 7 && c.turn == 20000 && c.drift == 300000);
    char buf[128];
    cr_assert_eq(tmf_cfg_format(&c, buf, sizeof buf), strlen(ex));
    cr_assert_str_eq(buf, ex);
    /* a round trip of other values, the largest ones among them */
    tmf_cfg m = {64, {0, 0, 0}, {1u << 30, 64, 100000}, {4096, 64, 0}, 100000,
                 TMF_DCACHE | TMF_ORDER | TMF_WAR | TMF_SYNC, 4294967295u, 4294967295u};
    unsigned len = tmf_cfg_format(&m, buf, sizeof buf);
    cr_assert_str_eq(buf, "64/0:0:0/1073741824:64:100000/4096:64:0/100000/30/4294967295/4294967295");
    cr_assert_eq(len, strlen(buf));
    cr_assert(tmf_cfg_parse(buf, &c));
    cr_assert(c.line == m.line && c.l1i.size == 0 && c.l1.size == m.l1.size && c.l1.ways == 64 &&
              c.l1.lat == 100000 && c.l2.size == 4096 && c.l2.ways == 64 && c.l2.lat == 0 && c.mem_lat == 100000 &&
              c.flags == 30 && c.turn == 4294967295u && c.drift == 4294967295u);
    /* a buffer too short: 0 */
    cr_assert_eq(tmf_cfg_format(&m, buf, len), 0);
    cr_assert_eq(tmf_cfg_format(&m, buf, len + 1), len);
    static const char *bad[] = {
        "32/8192:2:0/8192:2:2/524288:8:4/200/7/20000/300000",         /* line 32 */
        "128/8192:2:0/8192:2:2/524288:8:4/200/7/20000/300000",        /* line 128 */
        "64/8192:3:0/8192:2:2/524288:8:4/200/7/20000/300000",         /* 3 ways */
        "64/8192:2:0/8192:128:2/524288:8:4/200/7/20000/300000",       /* 128 ways */
        "64/8192:2:0/64:2:2/524288:8:4/200/7/20000/300000",           /* 2 ways of 64 bytes in 64 */
        "64/8192:2:0/8192:0:2/524288:8:4/200/7/20000/300000",         /* 0 ways */
        "64/3000:2:0/8192:2:2/524288:8:4/200/7/20000/300000",         /* size not a power of two */
        "64/8192:2:0/8192:2:2/2147483648:8:4/200/7/20000/300000",     /* above 1 GB */
        "64/8192:2:100001/8192:2:2/524288:8:4/200/7/20000/300000",    /* latency */
        "64/8192:2:0/8192:2:2/524288:8:4/100001/7/20000/300000",      /* memory latency */
        "64/8192:2:0/8192:2:2/524288:8:4/200/32/20000/300000",        /* flags */
        "64/8192:2:0/8192:2:2/524288:8:4/200/8/20000/300000",         /* WAR without ORDER */
        "64/0:0:0/8192:2:2/524288:8:4/200/7/20000/300000",            /* ICACHE without L1I */
        "64/8192:2:0/0:0:0/524288:8:4/200/7/20000/300000",            /* DCACHE without L1D */
        "64/8192:2:0/8192:2:2/0:0:0/200/2/20000/300000",              /* DCACHE without L2 */
        "64/8192:2:0/8192:2:2/0:0:0/200/1/20000/300000",              /* ICACHE without L2 */
        "64/8192:2:0/8192:2:2/524288:8:4/200/7",                      /* no turn */
        "64/8192:2:0/8192:2:2/524288:8:4/200/7/20000",                /* no drift */
        "64/8192:2:0/8192:2:2/524288:8:4/200/7/20000/",               /* empty drift */
        "64/8192:2:0/8192:2/524288:8:4/200/7/20000/300000",           /* a latency missing */
        "64/8192:2:0/8192:2:2/524288:8:4/7/20000/300000",             /* a field missing */
        "64/8192:2:0/8192:2:2/524288:8:4/200/7/20000/300000x",        /* trailing garbage */
        "64/8192:2:0/8192:2:2/524288:8:4/200/7/20000/300000/",        /* a field too many */
        "64/8192:2:0/8192:2:2/524288:8:4/200/7/20000/300000 ",        /* a space */
        " 64/8192:2:0/8192:2:2/524288:8:4/200/7/20000/300000",        /* a space before */
        "64/8192:2:0/8192:2:2/524288:8:4/200/7/20000/4294967296",     /* above 32 bits */
        "64/8192:2:0/8192:2:2/524288:8:4/200/-7/20000/300000",        /* a sign */
        "64/8192:2:0/8192:2:2/524288:8:4/200/+7/20000/300000",
        "64,8192:2:0/8192:2:2/524288:8:4/200/7/20000/300000",         /* a comma */
        "",
        "64",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&c, 0x5a, sizeof c);
        cr_assert_not(tmf_cfg_parse(bad[i], &c), "accepted \"%s\"", bad[i]);
        cr_assert_eq(c.line, 0x5a5a5a5au, "\"%s\": the configuration changed", bad[i]);
    }
    /* without a cost, the caches are not needed */
    cr_assert(tmf_cfg_parse("64/0:0:0/0:0:0/0:0:0/0/4/0/0", &c));
    cr_assert(tmf_cfg_parse("64/8192:2:0/8192:2:2/0:0:0/200/4/0/0", &c));
    /* tmf_new checks its machine and fails without memory */
    m.line = 32;
    cr_assert_null(tmf_new(&m, alloc_fn, &A_, dep_fn, &D));
    cr_assert(tmf_cfg_parse(ex, &c));
    A_.fail = 1;
    cr_assert_null(tmf_new(&c, alloc_fn, &A_, dep_fn, &D));
    A_.fail = 0;
}

/* A first access misses to memory (L1 + L2 + memory), one to the same
 * line hits (L1), in the line accessed last or another; LRU within a set;
 * a line gone from the L1 and still in the L2 costs L1 + L2; an access
 * across two lines costs its first line's; a write by the system costs
 * nothing; the block's data stall is what its accesses cost (taken by
 * tmf_take_data, else given by tmf_exec). */
Test(tfront, data_latencies)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    static const struct { tmf_word a; int st; unsigned cost; } acc[] = {
        {0x10000, 0, 112}, /* line 0x400, set 0 */
        {0x10008, 0, 2},   /* the same line */
        {0x10040, 0, 112}, /* 0x401, set 1 */
        {0x10000, 0, 2},
        {0x10200, 1, 112}, /* 0x408, set 0: a store costs as a load */
        {0x10000, 0, 2},
        {0x10400, 0, 112}, /* 0x410, set 0: 0x408 goes (least recently used) */
        {0x10000, 0, 2},
        {0x10208, 0, 12},  /* 0x408: the L2 has it; 0x410 goes */
        {0x10000, 0, 2},
        {0x1003e, 0, 2},   /* across 0x400 and 0x401: the first line's */
        {0x10410, 0, 12},  /* 0x410 again */
    };
    unsigned total = 0;
    for (size_t i = 0; i < sizeof acc / sizeof acc[0]; i++) {
        unsigned c = tmf_access(f, 0, acc[i].a, 4, acc[i].st, 0);
        cr_assert_eq(c, acc[i].cost, "access %zu (0x%llx): %u cycles, want %u", i, (unsigned long long)acc[i].a, c,
                     acc[i].cost);
        total += c;
    }
    cr_assert_eq(tmf_access(f, 0, 0x20040, 8, 1, 1), 0, "a write by the system costs nothing");
    tmf_stats s;
    tmf_get_stats(f, &s);
    cr_assert_eq(s.l1_hits, 6);
    cr_assert_eq(s.l1_misses, 6);
    cr_assert_eq(s.l2_hits, 2);
    cr_assert_eq(s.l2_misses, 4);
    tmf_thread_stats ts;
    tmf_get_thread(f, 0, &ts);
    cr_assert_eq(ts.data_l1, 12 * 2);
    cr_assert_eq(ts.data_l2, 6 * 10);
    cr_assert_eq(ts.data_mem, 4 * 100);
    cr_assert_eq(ts.data_l1 + ts.data_l2 + ts.data_mem, total);
    cr_assert_eq(tmf_take_data(f, 0), total);
    cr_assert_eq(tmf_take_data(f, 0), 0);
    tmf_word d = 1, i = 1;
    tmf_exec(f, 0, 0, 0, &d, &i);
    cr_assert_eq(d, 0, "taken");
    cr_assert_eq(load(f, 0, 0x10000, 8), 2);
    cr_assert_eq(load(f, 0, 0x10040, 8), 2);
    tmf_exec(f, 0, 0, 0, &d, &i);
    cr_assert_eq(d, 4);
    cr_assert_eq(i, 0);
    tmf_exec(f, 0, 0, 0, &d, &i);
    cr_assert_eq(d, 0, "the next block starts with none");
    /* without TMF_DCACHE: nothing costs */
    tmf *g = mkf(TMF_ORDER);
    tmf_thread_new(g, 0, 0, NONE);
    cr_assert_eq(load(g, 0, 0x10000, 8), 0);
    tmf_get_stats(g, &s);
    cr_assert_eq(s.l1_hits + s.l1_misses + s.l2_hits + s.l2_misses, 0);
}

/* The fetch of a block's retired bytes: a line when the core's
 * instructions enter it (none while they stay in the line fetched last),
 * L1I hit 1, L2 11, memory 111; nothing retired, nothing fetched; the L2
 * is shared with the data. */
Test(tfront, instruction_fetch_of_blocks)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    const tmf_word e1[] = {0x1030, 0x1080, 0x1000}, e2[] = {0x2010}, e3[] = {0x3010};
    const unsigned n1[] = {12, 32, 0}, n2[] = {4}, n3[] = {4};
    tmf_block(f, 1, 0x1000, e1, n1, 3); /* lines 0x40 (set 0) and 0x41 (set 1) */
    tmf_block(f, 2, 0x2000, e2, n2, 1); /* 0x80: set 0 */
    tmf_block(f, 3, 0x3000, e3, n3, 1); /* 0xc0: set 0 */
    static const struct { tmf_word id; unsigned x, cost; } ex[] = {
        {1, 0, 111}, /* 0x40 misses both */
        {1, 0, 0},   /* still in 0x40 */
        {1, 1, 111}, /* still in 0x40; 0x41 misses both */
        {1, 1, 2},   /* 0x40 and 0x41 hit */
        {1, 2, 0},   /* nothing retired */
        {2, 0, 111},
        {3, 0, 111}, /* 0x40 goes (least recently used in set 0) */
        {1, 0, 11},  /* 0x40: the L2 has it */
        {1, 0, 0},
        {7, 0, 0},   /* a block never described: nothing known */
    };
    tmf_word total = 0;
    for (size_t j = 0; j < sizeof ex / sizeof ex[0]; j++) {
        tmf_word d, i;
        tmf_exec(f, 0, ex[j].id, ex[j].x, &d, &i);
        cr_assert_eq(i, ex[j].cost, "exec %zu: %llu cycles, want %u", j, (unsigned long long)i, ex[j].cost);
        cr_assert_eq(d, 0);
        total += i;
    }
    tmf_stats s;
    tmf_get_stats(f, &s);
    cr_assert_eq(s.il1_hits, 2);
    cr_assert_eq(s.il1_misses, 5);
    cr_assert_eq(s.l2_hits, 1);
    cr_assert_eq(s.l2_misses, 4);
    cr_assert_eq(s.l1_hits + s.l1_misses, 0);
    tmf_thread_stats ts;
    tmf_get_thread(f, 0, &ts);
    cr_assert_eq(ts.ifetch, total);
    cr_assert_eq(ts.blocks, 10);
    /* a data access to a line fetched as instructions: the L2 has it */
    cr_assert_eq(load(f, 0, 0x1040, 4), 12);
    /* without TMF_ICACHE no fetch costs */
    tmf *g = mkf(TMF_DCACHE | TMF_ORDER);
    tmf_thread_new(g, 0, 0, NONE);
    tmf_block(g, 1, 0x1000, e1, n1, 3);
    tmf_word d, i;
    tmf_exec(g, 0, 1, 1, &d, &i);
    cr_assert_eq(i, 0);
}

/* Coherence: another core's store takes the line from this core's L1 (its
 * next access misses; the L2 serves it); another core's load shares it
 * (both keep it; a store to a shared line takes the other copies too). */
Test(tfront, coherence)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word X = 0x40000;
    cr_assert_eq(load(f, 0, X, 8), 112);
    cr_assert_eq(load(f, 0, X, 8), 2);
    cr_assert_eq(store(f, 1, X + 8, 8), 12);
    cr_assert_eq(load(f, 0, X, 8), 12, "T1's store took the line");
    cr_assert_eq(load(f, 0, X + 16, 8), 2);
    cr_assert_eq(load(f, 1, X + 8, 8), 2, "T0's load shared the line");
    cr_assert_eq(store(f, 1, X + 8, 8), 2);
    cr_assert_eq(load(f, 0, X, 8), 12, "T1's store to the shared line took it");
    cr_assert_eq(load(f, 1, X, 8), 2);
    cr_assert_eq(store(f, 0, X, 8), 2);
    cr_assert_eq(load(f, 1, X, 8), 12);
}

/* A load of bytes another thread stored follows that store's block (the
 * store was still in the other core's L1); again: nothing more; bytes of
 * the line that thread did not store (false sharing) order nothing; a
 * thread's own stores order nothing. */
Test(tfront, a_load_follows_the_store_it_read)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word X = 0x50000;
    blocks(f, 0, 3);
    store(f, 0, X, 4);             /* block 3 */
    load(f, 0, X, 4);
    cr_assert_eq(D.n, 0, "its own store");
    load(f, 1, X + 8, 4);
    load(f, 1, X + 4, 4);
    cr_assert_eq(D.n, 0, "false sharing orders nothing");
    load(f, 1, X + 2, 2);
    load(f, 1, X, 4);
    blocks(f, 1, 1);
    load(f, 1, X, 1);
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 3}};
    assert_deps(want, 1);
    tmf_stats s;
    tmf_get_stats(f, &s);
    cr_assert_eq(s.deps[TMF_DEP_STORE], 1);
    cr_assert_eq(s.deps[TMF_DEP_LOAD] + s.deps[TMF_DEP_END], 0);
}

/* A line's granules keep the block of their last store: a load of the
 * first granule follows its block, not the line's later store elsewhere;
 * the filter: a dependency on the same thread's block or an earlier one
 * is not sent again (even after the line came back), a later one is. */
Test(tfront, per_granule_blocks_and_the_filter)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word X = 0x60000;
    blocks(f, 0, 2);
    store(f, 0, X, 4);      /* granule 0 in block 2 */
    blocks(f, 0, 3);
    store(f, 0, X + 8, 4);  /* granule 2 in block 5 */
    load(f, 1, X, 4);       /* block 2, not 5 */
    load(f, 1, X + 8, 4);   /* block 5 */
    blocks(f, 0, 1);
    store(f, 0, X + 12, 4); /* granule 3 in block 6: T1's copy goes */
    load(f, 1, X, 4);       /* block 2 again: filtered */
    load(f, 1, X + 8, 4);   /* block 5 again: filtered */
    load(f, 1, X + 12, 4);  /* block 6 */
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 2}, {TMF_DEP_STORE, 0, 5}, {TMF_DEP_STORE, 0, 6}};
    assert_deps(want, 3);

    /* the later block first: the earlier one is filtered */
    D.n = 0;
    tmf_thread_new(f, 2, 2, NONE);
    load(f, 2, X + 12, 4);
    load(f, 2, X, 4);
    static const unsigned want2[][3] = {{TMF_DEP_STORE, 0, 6}};
    assert_deps(want2, 1);
}

/* Stores reach the shadow when the storing core evicts the line and at its
 * thread's end: a later load still follows them. */
Test(tfront, stores_evicted_or_at_the_end_still_order)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word X = 0x20000, Y = 0x30040;
    blocks(f, 0, 1);
    store(f, 0, X, 4);                         /* block 1, line 0x800 (set 0) */
    cr_assert_eq(load(f, 0, X + 0x200, 4), 112); /* 0x808 (set 0) */
    cr_assert_eq(load(f, 0, X + 0x400, 4), 112); /* 0x810 (set 0): 0x800 goes */
    blocks(f, 0, 1);
    store(f, 0, Y, 4);                         /* block 2 */
    tmf_thread_end(f, 0, 0);
    load(f, 1, X, 4);
    load(f, 1, Y, 4);
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 1}, {TMF_DEP_STORE, 0, 2}};
    assert_deps(want, 2);
}

/* Two threads' stores in one line: a load of both threads' bytes follows
 * both stores (a writer per byte). */
Test(tfront, a_line_written_by_two_threads)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    tmf_thread_new(f, 2, 2, NONE);
    const tmf_word W = 0x70000;
    blocks(f, 0, 1);
    store(f, 0, W, 4);     /* T0's block 1 */
    blocks(f, 1, 2);
    store(f, 1, W + 8, 4); /* T1's block 2 */
    load(f, 2, W, 12);
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 1}, {TMF_DEP_STORE, 1, 2}};
    assert_deps(want, 2);
    tmf_stats s;
    tmf_get_stats(f, &s);
    cr_assert_eq(s.split, 1);
    /* T0 stores over T1's bytes too: a load of them follows T0 now */
    D.n = 0;
    blocks(f, 0, 2);
    store(f, 0, W + 8, 4); /* T0's block 3 */
    load(f, 2, W + 8, 4);
    static const unsigned want2[][3] = {{TMF_DEP_STORE, 0, 3}};
    assert_deps(want2, 1);
}

/* A load across two lines follows the store it read in the second line,
 * once that store is in the shadow (here: its thread ended). */
Test(tfront, a_load_across_two_lines_follows_a_store_in_the_shadow)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word L = 0x80000; /* lines L/64 and L/64 + 1 */
    blocks(f, 0, 1);
    store(f, 0, L + 64, 4); /* block 1, the second line */
    tmf_thread_end(f, 0, 0);
    load(f, 1, L + 60, 8);
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 1}};
    assert_deps(want, 1);
}

/* The same with the store still in the storing core's L1: the load
 * touches its line, so the store must reach the shadow (tm/tfront.h: a
 * load follows the foreign store whose bytes it read). */
Test(tfront, a_load_across_two_lines_follows_a_store_still_in_the_other_core)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word L = 0x80000;
    blocks(f, 0, 1);
    store(f, 0, L + 64, 4); /* block 1, the second line, in T0's L1 */
    load(f, 1, L + 60, 8);
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 1}};
    assert_deps(want, 1);
}

/* A store across two lines orders a load of its second line's bytes. */
Test(tfront, a_store_across_two_lines)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word L = 0x90000;
    blocks(f, 0, 4);
    store(f, 0, L + 60, 8); /* block 4: bytes 60..63 and 0..3 of the next line */
    load(f, 1, L + 64, 4);
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 4}};
    assert_deps(want, 1);
}

/* A thread's end clears its CLEARTID word: a store of its end block (one
 * more than its blocks), which takes the line from the other cores; a
 * later load of the word follows it as an END dependency. */
Test(tfront, a_thread_end_clears_its_cleartid_word)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word CT = 0xa0010, Z = 0xb0000;
    blocks(f, 0, 2);
    store(f, 0, Z, 4); /* block 2 */
    blocks(f, 0, 2);
    cr_assert_eq(load(f, 1, CT, 4), 112);
    cr_assert_eq(D.n, 0);
    tmf_thread_end(f, 0, CT); /* its end: block 4 */
    load(f, 1, Z, 4);
    cr_assert_eq(load(f, 1, CT, 4), 12, "the end's store took the line");
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 2}, {TMF_DEP_END, 0, 4}};
    assert_deps(want, 2);
    tmf_stats s;
    tmf_get_stats(f, &s);
    cr_assert_eq(s.deps[TMF_DEP_END], 1);
    tmf_thread_stats ts;
    tmf_get_thread(f, 0, &ts);
    cr_assert_eq(ts.blocks, 5);
}

/* With TMF_WAR, a store follows the foreign load of what it overwrites
 * (its latest block) and the foreign store it overwrites; bytes of the
 * line the other thread did not read order nothing.  Without it, neither. */
Test(tfront, stores_follow_loads_and_stores_they_overwrite_with_war)
{
    for (int war = 0; war < 2; war++) {
        tmf *f = mkf(ALL | (war ? TMF_WAR : 0));
        tmf_thread_new(f, 0, 0, NONE);
        tmf_thread_new(f, 1, 1, NONE);
        const tmf_word X = 0xc0000, Y = 0xc1000, Z = 0xc2000;
        load(f, 0, Z + 8, 4);  /* block 0 */
        blocks(f, 0, 1);
        load(f, 0, X, 4);      /* block 1 */
        blocks(f, 0, 1);
        load(f, 0, X, 4);      /* block 2: the latest */
        blocks(f, 0, 1);
        store(f, 0, Y, 4);     /* block 3 */
        store(f, 1, Z, 4);     /* not what T0 read */
        cr_assert_eq(D.n, 0);
        store(f, 1, X, 4);
        store(f, 1, Y, 4);
        if (!war) {
            cr_assert_eq(D.n, 0, "without TMF_WAR stores follow nothing");
            done();
            continue;
        }
        static const unsigned want[][3] = {{TMF_DEP_LOAD, 0, 2}, {TMF_DEP_STORE, 0, 3}};
        assert_deps(want, 2);
        tmf_stats s;
        tmf_get_stats(f, &s);
        cr_assert_eq(s.deps[TMF_DEP_LOAD], 1);
        cr_assert_eq(s.deps[TMF_DEP_STORE], 1);
        /* the readers went with the store: T1 stores X again, nothing */
        store(f, 1, X, 4);
        cr_assert_eq(D.n, 2);
    }
}

/* A write by the system is a block of its own: a later store of the
 * thread is one block later; both order loads of their bytes. */
Test(tfront, a_write_by_the_system_counts_as_a_block)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word X = 0xd0000, Y = 0xd1000;
    blocks(f, 0, 2);
    cr_assert_eq(tmf_access(f, 0, Y, 16, 1, 1), 0); /* block 2 */
    store(f, 0, X, 4);                               /* block 3 */
    tmf_thread_stats ts;
    tmf_get_thread(f, 0, &ts);
    cr_assert_eq(ts.blocks, 3);
    load(f, 1, Y + 12, 4);
    load(f, 1, X, 4);
    static const unsigned want[][3] = {{TMF_DEP_STORE, 0, 2}, {TMF_DEP_STORE, 0, 3}};
    assert_deps(want, 2);
}

/* Per thread: its blocks (a write by the system and the end count one),
 * its stalls by level adding up to what tmf_access and tmf_exec gave;
 * tmf_threads is the greatest uid + 1. */
Test(tfront, per_thread_counts)
{
    tmf *f = mkf(ALL);
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 5, 3, 0);
    const tmf_word e[] = {0x4100};
    const unsigned n[] = {64};
    tmf_block(f, 9, 0x4000, e, n, 1); /* 4 lines */
    tmf_word data = 0, ifetch = 0, d, i;
    for (int j = 0; j < 5; j++) {
        data += load(f, 0, 0x100000 + 0x40 * (tmf_word)j, 8);
        data += store(f, 0, 0x100000 + 0x80 * (tmf_word)j, 8);
        tmf_exec(f, 0, 9, 0, &d, &i);
        ifetch += i;
    }
    tmf_exec(f, 5, 9, 0, &d, &i);
    tmf_word ifetch3 = i;
    tmf_exec(f, 5, 9, 0, &d, &i);
    ifetch3 += i;
    tmf_access(f, 5, 0x200000, 8, 1, 1);
    tmf_thread_end(f, 5, 0);
    cr_assert_eq(tmf_threads(f), 4);
    tmf_thread_stats s;
    tmf_get_thread(f, 0, &s);
    cr_assert_eq(s.blocks, 5);
    cr_assert_eq(s.data_l1 + s.data_l2 + s.data_mem, data);
    cr_assert_eq(s.data_l1, 10 * 2);
    cr_assert_eq(s.ifetch, ifetch);
    cr_assert_eq(ifetch, 4 * 111 + 4 * 4 * 1, "4 lines from memory, then 4 hits a block");
    tmf_get_thread(f, 3, &s);
    cr_assert_eq(s.blocks, 4);
    cr_assert_eq(s.ifetch, ifetch3);
    cr_assert_eq(ifetch3, 4 * 11 + 4 * 1, "the L2 has T0's lines");
    cr_assert_eq(s.data_l1 + s.data_l2 + s.data_mem, 0);
    tmf_get_thread(f, 1, &s);
    cr_assert_eq(s.blocks + s.ifetch + s.data_l1, 0);
    tmf_get_thread(f, 100, &s);
    cr_assert_eq(s.blocks + s.ifetch + s.data_l1, 0);
}

/* tmf_ahead compares a thread's estimate (its instructions and stalls)
 * with the least of the other running threads' every 32nd call; a thread
 * in a system call is not running, one back from it is no earlier than
 * the least of the others, a thread starts at its creator's estimate. */
Test(tfront, ahead_every_32_blocks)
{
    tmf *f = mkf(TMF_ORDER); /* nothing costs: 10 a block */
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word e[] = {0x1028};
    const unsigned n[] = {10};
    tmf_block(f, 1, 0x1000, e, n, 1);
    tmf_word d, i;
    for (int j = 1; j <= 64; j++) {
        tmf_exec(f, 0, 1, 0, &d, &i);
        cr_assert_eq(tmf_ahead(f, 0, 319), j == 32 || j == 64, "call %d", j); /* 320 > 0 + 319 */
    }
    for (int j = 1; j <= 32; j++) {
        tmf_exec(f, 0, 1, 0, &d, &i);
        cr_assert_eq(tmf_ahead(f, 0, 960), 0, "call %d", j); /* 960: not more */
    }
    tmf_thread_sys(f, 1, 1); /* T1 (at 0) not running: T0 ahead of no one */
    for (int j = 1; j <= 32; j++) {
        tmf_exec(f, 0, 1, 0, &d, &i);
        cr_assert_eq(tmf_ahead(f, 0, 0), 0);
    }
    tmf_thread_sys(f, 1, 0); /* back from its call: at its own 0 */
    cr_assert_eq(tmf_estimate(f, 1), 0);
    tmf_thread_idle(f, 1); /* ... and waited for in vain: not running */
    cr_assert_eq(tmf_behind(f, 0, 0), 0);
    tmf_thread_wake(f, 1, tmf_estimate(f, 0)); /* released by T0's wake: at T0's 1280, running */
    cr_assert_eq(tmf_estimate(f, 1), 1280);
    for (int j = 1; j <= 32; j++) {
        tmf_exec(f, 0, 1, 0, &d, &i);
        cr_assert_eq(tmf_ahead(f, 0, 319), j == 32); /* 1600 > 1280 + 319 */
    }
    for (int j = 1; j <= 32; j++) {
        tmf_exec(f, 0, 1, 0, &d, &i);
        cr_assert_eq(tmf_ahead(f, 0, 640), 0); /* 1920: not more than 1280 + 640 */
    }
    /* T2, created by T0, starts at T0's 1920: 32 blocks later 2240 */
    tmf_thread_new(f, 2, 2, 0);
    for (int j = 1; j <= 32; j++) {
        tmf_exec(f, 2, 1, 0, &d, &i);
        cr_assert_eq(tmf_ahead(f, 2, 959), j == 32); /* 2240 > 1280 + 959 */
    }
    /* stalls count: T1's 32 blocks of 10 and 112 (a load from memory each) */
    tmf *g = mkf(TMF_DCACHE | TMF_ORDER);
    tmf_thread_new(g, 0, 0, NONE);
    tmf_thread_new(g, 1, 1, NONE);
    tmf_block(g, 1, 0x1000, e, n, 1);
    for (int j = 1; j <= 32; j++) {
        load(g, 1, 0x100000 + 0x1000 * (tmf_word)j, 4);
        tmf_exec(g, 1, 1, 0, &d, &i);
        cr_assert_eq(tmf_ahead(g, 1, 32 * 122 - 1), j == 32);
    }
}

/* A new thread on a reused id starts with empty caches (instructions and
 * data) and counts its own blocks; the old thread's stores still order. */
Test(tfront, a_reused_thread_id_starts_empty)
{
    tmf *f = mkf(ALL);
    const tmf_word e[] = {0x1010};
    const unsigned n[] = {4};
    tmf_block(f, 1, 0x1000, e, n, 1);
    tmf_word d, i;
    tmf_thread_new(f, 0, 0, NONE);
    tmf_exec(f, 0, 1, 0, &d, &i);
    cr_assert_eq(i, 111);
    cr_assert_eq(load(f, 0, 0x5000, 4), 112);
    tmf_thread_end(f, 0, 0);
    tmf_thread_new(f, 0, 1, NONE);
    cr_assert_eq(load(f, 0, 0x5000, 4), 12);
    tmf_exec(f, 0, 1, 0, &d, &i);
    cr_assert_eq(i, 11, "the L1I is empty");
    cr_assert_eq(d, 12);
    store(f, 0, 0x6000, 4); /* uid 1's block 1 */
    /* reused while it runs (no end): its stores reach the shadow */
    tmf_thread_new(f, 0, 2, NONE);
    cr_assert_eq(load(f, 0, 0x5000, 4), 12);
    tmf_exec(f, 0, 1, 0, &d, &i);
    cr_assert_eq(i, 11);
    tmf_thread_new(f, 1, 3, NONE);
    load(f, 1, 0x6000, 4);
    static const unsigned want[][3] = {{TMF_DEP_STORE, 1, 1}};
    assert_deps(want, 1);
    cr_assert_eq(tmf_threads(f), 4);
    tmf_thread_stats s;
    tmf_get_thread(f, 0, &s);
    cr_assert_eq(s.blocks, 2);
    tmf_get_thread(f, 2, &s);
    cr_assert_eq(s.blocks, 1);
    cr_assert_eq(s.ifetch, 11);
}

/* The estimates follow the dependencies: a load of another thread's store
 * makes the reader's estimate no earlier than the writer's at that block
 * (kept every 64 blocks: the estimate at the last multiple of 64 before
 * it; older than 16384 blocks: nothing known, no change), a thread's end
 * its end's; tmf_behind names the running thread furthest behind. */
Test(tfront, estimates_follow_dependencies)
{
    tmf *f = mkf(TMF_ORDER); /* nothing costs: 10 a block */
    tmf_thread_new(f, 0, 0, NONE);
    tmf_thread_new(f, 1, 1, NONE);
    const tmf_word e[] = {0x1028};
    const unsigned n[] = {10};
    tmf_block(f, 1, 0x1000, e, n, 1);
    tmf_word d, i;
    for (int j = 0; j < 100; j++)
        tmf_exec(f, 0, 1, 0, &d, &i);
    store(f, 0, 0x8000, 4); /* in block 100 */
    for (int j = 0; j < 101; j++)
        tmf_exec(f, 0, 1, 0, &d, &i);
    cr_assert_eq(tmf_estimate(f, 0), 2010);
    cr_assert_eq(tmf_behind(f, 0, 0), 2, "T1 (at 0) is behind T0");
    cr_assert_eq(tmf_behind(f, 0, 2010), 0, "not by more than 2010");
    cr_assert_eq(tmf_behind(f, 1, 0), 0);
    load(f, 1, 0x8000, 4);
    static const unsigned w1[][3] = {{TMF_DEP_STORE, 0, 100}};
    assert_deps(w1, 1);
    cr_assert_eq(tmf_estimate(f, 1), 640, "T0's estimate at block 64");
    /* a block 16384 back or more: not kept */
    store(f, 0, 0x9000, 4); /* block 201 */
    for (int j = 0; j < 16384 + 64; j++)
        tmf_exec(f, 0, 1, 0, &d, &i);
    load(f, 1, 0x9000, 4);
    cr_assert_eq(D.n, 2);
    cr_assert_eq(tmf_estimate(f, 1), 640);
    /* T0's end clears its CLEARTID word: T1 reading it is after T0's end */
    tmf_word end = tmf_estimate(f, 0);
    tmf_thread_end(f, 0, 0xa000);
    load(f, 1, 0xa000, 4);
    cr_assert_eq(D.n, 3);
    cr_assert_eq(D.kind[2], TMF_DEP_END);
    cr_assert_eq(tmf_estimate(f, 1), end);
    cr_assert_eq(tmf_behind(f, 1, 0), 0, "T0 ended: no one behind");
}

/* tmf_behind ignores the threads that do not run (in a call that sleeps,
 * or idle until their next block) and names the one furthest behind. */
Test(tfront, behind_ignores_threads_that_do_not_run)
{
    tmf *f = mkf(TMF_ORDER);
    for (unsigned t = 0; t < 3; t++)
        tmf_thread_new(f, t, t, NONE);
    const tmf_word e[] = {0x1028};
    const unsigned n[] = {10};
    tmf_block(f, 1, 0x1000, e, n, 1);
    tmf_word d, i;
    for (int j = 0; j < 5; j++)
        tmf_exec(f, 1, 1, 0, &d, &i); /* T1 at 50 */
    for (int j = 0; j < 9; j++)
        tmf_exec(f, 0, 1, 0, &d, &i); /* T0 at 90, T2 at 0 */
    cr_assert_eq(tmf_behind(f, 0, 0), 3, "T2, furthest behind");
    tmf_thread_sys(f, 2, 1);
    cr_assert_eq(tmf_behind(f, 0, 0), 2, "T2 in a call: T1");
    tmf_thread_idle(f, 1);
    cr_assert_eq(tmf_behind(f, 0, 0), 0);
    tmf_exec(f, 1, 1, 0, &d, &i); /* T1 runs a block: running again, at 60 */
    cr_assert_eq(tmf_behind(f, 0, 0), 2);
    tmf_thread_wake(f, 2, 70); /* T2 released by a wake at 70: running, at 70 */
    cr_assert_eq(tmf_estimate(f, 2), 70);
    cr_assert_eq(tmf_behind(f, 0, 0), 2);
    cr_assert_eq(tmf_behind(f, 1, 0), 0);
}
