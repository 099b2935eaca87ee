/* tm — unit tests of the timing model (capture/timing.c, tm/timing.h,
 * docs/capture.md §3): per-core clocks, the merge in (cycle, thread) order,
 * the order a line's stores impose, system calls, the window, the
 * instruction cache and the data caches fed by addresses alone. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "tm/timing.h"

#define MAXOUT 100000

typedef struct out {
    tmc_record r[MAXOUT];
    size_t n;
} out;

static int collect(void *arg, const tmc_record *r)
{
    out *o = arg;
    cr_assert_lt(o->n, MAXOUT);
    o->r[o->n++] = *r;
    return 0;
}

static tm_timing *mk(out *o, uint32_t threads, uint64_t window)
{
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    cfg.l1i.size = 0; /* the clocks and the merge without the instruction cache */
    if (window)
        cfg.window = window;
    tm_timing_sink s = {collect, NULL, o};
    tm_timing *t = NULL;
    cr_assert_eq(tm_timing_new(&cfg, threads, &s, &t), TM_OK);
    return t;
}

/* A group of thread TID in serial cycle SC: a RUN of N instructions at PC
 * and, if MEM, an operand (STORE or load) at ADDR. */
static void put_group(tm_timing *t, uint32_t tid, uint64_t sc, uint64_t pc, uint64_t n, int mem, int store,
                      uint64_t addr)
{
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.tid = tid;
    r.cycle = sc;
    r.type = TMC_RUN;
    r.pc = pc;
    r.count = n;
    r.bytes = 4 * n;
    cr_assert_eq(tm_timing_put(t, &r), TM_OK);
    if (mem) {
        memset(&r, 0, sizeof r);
        r.tid = tid;
        r.cycle = sc;
        r.type = TMC_MEM;
        r.flags = store ? TMC_MEM_STORE : 0;
        r.size = 8;
        r.addr = addr;
        r.pc = pc + 4 * (n - 1);
        memcpy(r.value, &sc, 8); /* the serial order, for the checks */
        cr_assert_eq(tm_timing_put(t, &r), TM_OK);
    }
}

static void put_start(tm_timing *t, uint32_t tid, uint64_t sc, uint64_t pc)
{
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.tid = tid;
    r.cycle = sc;
    r.type = TMC_START;
    r.pc = pc;
    cr_assert_eq(tm_timing_put(t, &r), TM_OK);
}

/* The output is in (cycle, thread) order, one group per thread per cycle. */
static void assert_ordered(const out *o)
{
    for (size_t i = 1; i < o->n; i++) {
        const tmc_record *a = &o->r[i - 1], *b = &o->r[i];
        cr_assert(a->cycle < b->cycle || (a->cycle == b->cycle && a->tid <= b->tid),
                  "record %zu (cycle %llu, T%u) after (cycle %llu, T%u)", i, (unsigned long long)b->cycle, b->tid,
                  (unsigned long long)a->cycle, a->tid);
    }
}

Test(timing, two_cores_retire_in_the_same_cycle)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    uint64_t sc = 0;
    put_start(t, 0, sc++, 0x1000);
    put_start(t, 1, sc++, 0x2000);
    for (int i = 0; i < 3; i++)
        put_group(t, 0, sc++, 0x1000, 10, 0, 0, 0);
    for (int i = 0; i < 3; i++)
        put_group(t, 1, sc++, 0x2000, 10, 0, 0, 0);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    /* START at 0, then each core 10 instructions at CPI 1 per group */
    static const uint64_t want[][2] = {{0, 0}, {0, 1}, {10, 0}, {10, 1}, {20, 0}, {20, 1}, {30, 0}, {30, 1}};
    cr_assert_eq(o->n, 8);
    for (size_t i = 0; i < 8; i++) {
        cr_assert_eq(o->r[i].cycle, want[i][0], "record %zu: cycle %llu", i, (unsigned long long)o->r[i].cycle);
        cr_assert_eq(o->r[i].tid, want[i][1], "record %zu: T%u", i, o->r[i].tid);
    }
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.cycles, 31);
    cr_assert_eq(s.clamped, 0);
    tm_timing_free(t);
    free(o);
}

Test(timing, cpi_and_a_load_that_misses_everything)
{
    out *o = calloc(1, sizeof *o);
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    cfg.l1i.size = 0;
    cfg.cpi_milli = 1500;
    tm_timing_sink s = {collect, NULL, o};
    tm_timing *t = NULL;
    cr_assert_eq(tm_timing_new(&cfg, 1, &s, &t), TM_OK);
    put_group(t, 0, 0, 0x1000, 4, 0, 0, 0);    /* 6 cycles */
    put_group(t, 0, 1, 0x1000, 4, 1, 0, 0x9000); /* 6 + 2 + 4 + 200 */
    put_group(t, 0, 2, 0x1000, 4, 1, 0, 0x9008); /* the same line: 6 + 2 */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    cr_assert_eq(o->n, 5);
    cr_assert_eq(o->r[0].cycle, 6);
    cr_assert_eq(o->r[1].cycle, 6 + 212);
    cr_assert_eq(o->r[3].cycle, 6 + 212 + 8);
    cr_assert_eq(o->r[2].type, TMC_MEM);
    cr_assert_eq(o->r[2].cycle, o->r[1].cycle);
    cr_assert_eq(o->r[2].pc, 0x100c, "the operand's instruction address is passed on");
    tm_timing_stats st;
    tm_timing_get_stats(t, &st);
    cr_assert_eq(st.l1_hits, 1);
    cr_assert_eq(st.l1_misses, 1);
    cr_assert_eq(st.l2_misses, 1);
    tm_timing_free(t);
    free(o);
}

Test(timing, a_load_comes_after_the_store_it_read)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    put_group(t, 0, 0, 0x1000, 1000, 1, 1, 0x8000); /* T0 stores at its cycle ~1200 */
    put_group(t, 1, 1, 0x2000, 1, 1, 0, 0x8004);    /* T1 loads the line at its cycle ~200 */
    put_group(t, 1, 2, 0x2000, 1, 0, 0, 0);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    assert_ordered(o);
    uint64_t store_c = 0, load_c = 0;
    for (size_t i = 0; i < o->n; i++)
        if (o->r[i].type == TMC_MEM)
            *(o->r[i].tid ? &load_c : &store_c) = o->r[i].cycle;
    cr_assert_gt(load_c, store_c, "load at %llu, store at %llu", (unsigned long long)load_c,
                 (unsigned long long)store_c);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.ordered, 1);
    tm_timing_free(t);
    free(o);
}

Test(timing, a_store_comes_after_a_load_before_it)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    put_group(t, 0, 0, 0x1000, 1000, 1, 0, 0x8000); /* T0 loads late */
    put_group(t, 1, 1, 0x2000, 1, 1, 1, 0x8000);    /* T1 stores early in its clock */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    cr_assert_eq(o->n, 4);
    cr_assert_eq(o->r[0].tid, 0);
    cr_assert_eq(o->r[2].tid, 1);
    cr_assert_gt(o->r[2].cycle, o->r[0].cycle);
    tm_timing_free(t);
    free(o);
}

Test(timing, a_thread_in_a_system_call_holds_nothing_back)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    put_group(t, 0, 0, 0x1000, 5, 0, 0, 0);
    cr_assert_eq(tm_timing_syscall(t, 0, 0), TM_OK);
    size_t before = o->n;
    for (uint64_t i = 0; i < 100; i++)
        put_group(t, 1, 1 + i, 0x2000, 50, 0, 0, 0);
    /* T1's groups went out while T0 is in its system call (all but the open one) */
    cr_assert_geq(o->n - before, 99);
    cr_assert_eq(tm_timing_syscall(t, 0, 1), TM_OK);
    put_group(t, 0, 200, 0x1000, 5, 0, 0, 0);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    assert_ordered(o);
    const tmc_record *last = NULL;
    for (size_t i = 0; i < o->n; i++)
        if (o->r[i].tid == 0)
            last = &o->r[i];
    /* T0 resumes after the clock of T1's last closed group (99 x 50) */
    cr_assert_eq(last->cycle, 99 * 50 + 1 + 5, "T0 resumed at %llu", (unsigned long long)last->cycle);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.blocked, 1);
    cr_assert_eq(s.clamped, 0);
    tm_timing_free(t);
    free(o);
}

Test(timing, the_window_bounds_what_is_held)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 10);
    put_group(t, 0, 0, 0x1000, 1, 0, 0, 0); /* T0 then never runs until the end */
    for (uint64_t i = 0; i < 1000; i++)
        put_group(t, 1, 1 + i, 0x2000, 3, 0, 0, 0);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_leq(s.held_max, 11);
    put_group(t, 0, 2000, 0x1000, 1, 0, 0, 0); /* behind what went out: clamped */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    assert_ordered(o);
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.clamped, 1);
    cr_assert_eq(s.groups, 1002);
    tm_timing_free(t);
    free(o);
}

/* Random serial orders of 4 threads with memory operands and system
 * calls, with and without a small window: the output is ordered, every
 * thread's groups keep their order, nothing is lost, and each line's
 * conflicting operands keep their serial order (a MEM's value carries its
 * serial group). */
Test(timing, random_serial_orders)
{
    out *o = calloc(1, sizeof *o);
    for (unsigned seed = 1; seed <= 20; seed++) {
        o->n = 0;
        srand(seed);
        tm_timing *t = mk(o, 4, seed % 2 ? 64 : 0);
        uint64_t next_pc[4] = {0}, sc = 0;
        for (int g = 0; g < 3000; g++) {
            uint32_t tid = (uint32_t)(rand() % 4);
            int mem = rand() % 3 == 0;
            if (rand() % 50 == 0)
                cr_assert_eq(tm_timing_syscall(t, tid, rand() % 2), TM_OK);
            uint64_t addr = 0x8000 + 8u * (uint64_t)(rand() % 64);
            /* the pc counts the thread's groups: the order check below */
            put_group(t, tid, sc++, (uint64_t)tid << 32 | next_pc[tid]++, 1 + (uint64_t)(rand() % 20), mem,
                      rand() % 2, addr);
        }
        cr_assert_eq(tm_timing_finish(t), TM_OK);
        assert_ordered(o);
        uint64_t seen[4] = {0};
        size_t runs = 0;
        for (size_t i = 0; i < o->n; i++) {
            const tmc_record *r = &o->r[i];
            if (r->type != TMC_RUN)
                continue;
            runs++;
            cr_assert_eq(r->pc & 0xffffffffu, seen[r->tid]++, "seed %u: T%u's groups out of order", seed, r->tid);
        }
        cr_assert_eq(runs, 3000);
        /* a line's store and any other access to it: serial order kept */
        for (size_t i = 0; i < o->n; i++)
            for (size_t j = i + 1; j < o->n; j++) {
                const tmc_record *a = &o->r[i], *b = &o->r[j];
                if (a->type != TMC_MEM || b->type != TMC_MEM || a->tid == b->tid || (a->addr >> 6) != (b->addr >> 6) ||
                    !((a->flags | b->flags) & TMC_MEM_STORE))
                    continue;
                uint64_t sa, sb;
                memcpy(&sa, a->value, 8);
                memcpy(&sb, b->value, 8);
                cr_assert_lt(sa, sb, "seed %u: a line's operands of serial groups %llu and %llu out of order", seed,
                             (unsigned long long)sa, (unsigned long long)sb);
            }
        tm_timing_free(t);
    }
    free(o);
}

/* A group sink that writes the group's records into the out. */
static int collect_group(void *arg, const tmc_group *g)
{
    out *o = arg;
    tmc_record r;
    if (g->count) {
        memset(&r, 0, sizeof r);
        r.type = TMC_RUN;
        r.tid = g->tid;
        r.cycle = g->cycle;
        r.pc = g->pc;
        r.count = g->count;
        r.bytes = g->bytes;
        collect(o, &r);
    }
    cr_assert(!g->mem);
    if (g->ev) {
        cr_assert_eq(g->ev->cycle, g->cycle);
        cr_assert_eq(g->ev->tid, g->tid);
        collect(o, g->ev);
    }
    return 0;
}

/* Whole groups (tm_timing_put_whole, the capture layer's usual group, in
 * the queues' short entries where they fit) come out as the same groups put
 * record by record and ended (tm_timing_end) do, to a record sink and to a
 * group sink: runs of up to 2^16 instructions and longer, a branch at the
 * run's end or elsewhere, targets above 2^48, distances between a thread's
 * cycles beyond 30 bits, queues held and handed on at once. */
Test(timing, whole_groups_as_records)
{
    out *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *c = calloc(1, sizeof *c);
    for (unsigned seed = 1; seed <= 20; seed++) {
        a->n = b->n = c->n = 0;
        tm_timing_cfg cfg;
        tm_timing_defaults(&cfg);
        cfg.window = seed % 3 ? 0 : 50;
        if (!cfg.window)
            cfg.window = (uint64_t)1 << 20;
        if (seed % 4 == 0)
            cfg.cpi_milli = 1000000; /* 2^16 instructions: 2^36 cycles */
        tm_timing_sink sa = {collect, NULL, a}, sb = {collect, NULL, b}, sc = {collect, collect_group, c};
        tm_timing *ta, *tb, *tc;
        cr_assert_eq(tm_timing_new(&cfg, 4, &sa, &ta), TM_OK);
        cr_assert_eq(tm_timing_new(&cfg, 4, &sb, &tb), TM_OK);
        cr_assert_eq(tm_timing_new(&cfg, 4, &sc, &tc), TM_OK);
        srand(seed);
        for (uint64_t sc_ = 0; sc_ < 2000; sc_++) {
            uint32_t tid = (uint32_t)(rand() % 4);
            if (rand() % 40 == 0) {
                int leave = rand() % 2;
                cr_assert_eq(tm_timing_syscall(ta, tid, leave), TM_OK);
                cr_assert_eq(tm_timing_syscall(tb, tid, leave), TM_OK);
                cr_assert_eq(tm_timing_syscall(tc, tid, leave), TM_OK);
            }
            tmc_record run, br;
            memset(&run, 0, sizeof run);
            memset(&br, 0, sizeof br);
            run.type = TMC_RUN;
            run.tid = br.tid = tid;
            run.cycle = br.cycle = sc_;
            run.pc = (uint64_t)tid << 40 | sc_ << 8;
            run.count = rand() % 50 == 0 ? 70000 : 1 + (uint64_t)(rand() % 20);
            if (seed % 4 == 0 && run.count > 20)
                run.count = 20;
            run.bytes = run.count * (1 + (uint64_t)(rand() % 6));
            int has_run = rand() % 10 != 0, has_br = rand() % 10 < 7;
            if (!has_run && !has_br)
                has_br = 1;
            br.type = TMC_BRANCH;
            br.pc = rand() % 10 ? run.pc + (has_run ? run.bytes : 0) : run.pc + 3;
            br.len = (uint8_t)(1 + rand() % 15);
            br.bclass = (uint8_t)(rand() % 6);
            br.taken = (uint8_t)(rand() % 2);
            br.target = rand() % 10 ? (uint64_t)(rand() % 100000) << 4 : (uint64_t)1 << 50 | (uint64_t)rand();
            if (has_run)
                cr_assert_eq(tm_timing_put(ta, &run), TM_OK);
            if (has_br)
                cr_assert_eq(tm_timing_put(ta, &br), TM_OK);
            cr_assert_eq(tm_timing_end(ta), TM_OK);
            tmc_group g = {tid, sc_, has_run ? run.pc : 0, has_run ? run.count : 0, has_run ? run.bytes : 0,
                           0, 0, 0, 0, NULL, has_br ? &br : NULL};
            cr_assert_eq(tm_timing_put_whole(tb, &g, 0), TM_OK);
            cr_assert_eq(tm_timing_put_whole(tc, &g, 0), TM_OK);
        }
        cr_assert_eq(tm_timing_finish(ta), TM_OK);
        cr_assert_eq(tm_timing_finish(tb), TM_OK);
        cr_assert_eq(tm_timing_finish(tc), TM_OK);
        assert_ordered(a);
        cr_assert_gt(a->n, 2000);
        cr_assert_eq(b->n, a->n, "seed %u", seed);
        cr_assert_eq(c->n, a->n, "seed %u", seed);
        for (size_t i = 0; i < a->n; i++) {
            const tmc_record *x = &a->r[i], *y = &b->r[i], *z = &c->r[i];
            cr_assert(x->type == y->type && x->tid == y->tid && x->cycle == y->cycle && x->pc == y->pc &&
                          x->count == y->count && x->bytes == y->bytes && x->target == y->target &&
                          x->bclass == y->bclass && x->taken == y->taken && x->len == y->len && x->flags == y->flags,
                      "seed %u: record %zu differs (whole groups, records)", seed, i);
            cr_assert(x->type == z->type && x->tid == z->tid && x->cycle == z->cycle && x->pc == z->pc &&
                          x->count == z->count && x->bytes == z->bytes && x->target == z->target &&
                          x->bclass == z->bclass && x->taken == z->taken && x->len == z->len && x->flags == z->flags,
                      "seed %u: record %zu differs (whole groups, group sink)", seed, i);
        }
        tm_timing_stats s1, s2;
        tm_timing_get_stats(ta, &s1);
        tm_timing_get_stats(tb, &s2);
        cr_assert_eq(s1.cycles, s2.cycles);
        cr_assert_eq(s1.clamped, s2.clamped);
        cr_assert_eq(s1.held_max, s2.held_max);
        tm_timing_free(ta);
        tm_timing_free(tb);
        tm_timing_free(tc);
    }
    free(a);
    free(b);
    free(c);
}

Test(timing, configuration_checks)
{
    tm_timing_cfg cfg;
    char err[256];
    tm_timing_defaults(&cfg);
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_OK);
    cfg.l1.size = 3000;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "l1: size 3000"), "%s", err);
    tm_timing_defaults(&cfg);
    cfg.cpi_milli = 0;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_defaults(&cfg);
    cfg.l2.size = 1024;
    cfg.l2.ways = 32;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_sink s = {collect, NULL, NULL};
    tm_timing *t = (tm_timing *)1;
    tm_timing_defaults(&cfg);
    cr_assert_eq(tm_timing_new(&cfg, 0, &s, &t), TM_ERR_ARG);
    cr_assert_null(t);
}

/* A group of thread TID in serial cycle SC, a RUN of N 4-byte instructions
 * at PC, ended at once. */
static void put_run(tm_timing *t, uint32_t tid, uint64_t sc, uint64_t pc, uint64_t n)
{
    put_group(t, tid, sc, pc, n, 0, 0, 0);
    cr_assert_eq(tm_timing_end(t), TM_OK);
}

/* The instruction cache (2 sets of 2 ways, 64-byte lines, a hit adds 0
 * cycles): a miss costs the L2's 4 cycles and, if the L2 misses too,
 * memory's 200; a line the core is still in is not fetched again; LRU
 * replacement within a set. */
Test(timing, instruction_cache_hits_misses_and_lru)
{
    out *o = calloc(1, sizeof *o);
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    cfg.l1i = (tm_timing_cache){256, 2, 0};
    tm_timing_sink s = {collect, NULL, o};
    tm_timing *t = NULL;
    cr_assert_eq(tm_timing_new(&cfg, 1, &s, &t), TM_OK);
    /* lines 0x40, 0x42, 0x44 are all in set 0 */
    static const struct { uint64_t pc, cycle; } g[] = {
        {0x1000, 4 + 204},           /* line 0x40: misses both */
        {0x1010, 208 + 4},           /* still line 0x40: no fetch */
        {0x1080, 212 + 4 + 204},     /* 0x42: misses both */
        {0x1000, 420 + 4},           /* 0x40: hits */
        {0x1100, 424 + 4 + 204},     /* 0x44: misses both, replaces 0x42 (least recently used) */
        {0x1000, 632 + 4},           /* 0x40: hits */
        {0x1080, 636 + 4 + 4},       /* 0x42: replaced: misses, the L2 hits */
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
        put_run(t, 0, i, g[i].pc, 4);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    cr_assert_eq(o->n, sizeof g / sizeof g[0]);
    for (size_t i = 0; i < o->n; i++)
        cr_assert_eq(o->r[i].cycle, g[i].cycle, "group %zu: cycle %llu, want %llu", i,
                     (unsigned long long)o->r[i].cycle, (unsigned long long)g[i].cycle);
    tm_timing_stats st;
    tm_timing_get_stats(t, &st);
    cr_assert_eq(st.il1_hits, 2);
    cr_assert_eq(st.il1_misses, 4);
    cr_assert_eq(st.l2_hits, 1);
    cr_assert_eq(st.l2_misses, 3);
    cr_assert_eq(st.l1_hits + st.l1_misses, 0, "no data access");
    tm_timing_free(t);
    free(o);
}

/* A run across two lines fetches both; a branch right after the run is in
 * the run's last line. */
Test(timing, instruction_cache_run_across_lines)
{
    out *o = calloc(1, sizeof *o);
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    tm_timing_sink s = {collect, NULL, o};
    tm_timing *t = NULL;
    cr_assert_eq(tm_timing_new(&cfg, 1, &s, &t), TM_OK);
    tmc_record br;
    memset(&br, 0, sizeof br);
    br.type = TMC_BRANCH;
    br.bclass = TMC_JUMP;
    br.taken = 1;
    br.len = 2;
    br.pc = 0x1038 + 4 * 4; /* 0x1048: line 0x41 */
    br.target = 0x1038;
    tmc_group g = {0, 0, 0x1038, 4, 16, 0, 0, 0, 0, NULL, &br};
    cr_assert_eq(tm_timing_put_whole(t, &g, 0), TM_OK);
    g.cycle = 1;
    cr_assert_eq(tm_timing_put_whole(t, &g, 0), TM_OK); /* lines 0x40, 0x41 again: both hit */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    cr_assert_eq(o->n, 4);
    cr_assert_eq(o->r[0].cycle, 5 + 2 * 204);
    cr_assert_eq(o->r[2].cycle, 5 + 2 * 204 + 5);
    tm_timing_stats st;
    tm_timing_get_stats(t, &st);
    cr_assert_eq(st.il1_misses, 2);
    cr_assert_eq(st.il1_hits, 2);
    tm_timing_free(t);
    free(o);
}

/* Data accesses given by address (tm_timing_access): their latency goes to
 * the thread's next group, they are not in the output, and they impose no
 * order; another core's store makes a line stale (the next access misses
 * the L1, the L2 serves it); LRU within a set of the 2-way L1. */
Test(timing, data_accesses_by_address)
{
    out *o = calloc(1, sizeof *o);
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    cfg.l1i.size = 0;
    tm_timing_sink s = {collect, NULL, o};
    tm_timing *t = NULL;
    cr_assert_eq(tm_timing_new(&cfg, 2, &s, &t), TM_OK);
    uint64_t sc = 0;
    put_start(t, 0, sc++, 0x1000); /* both cores run: the merge waits for T1 */
    put_start(t, 1, sc++, 0x2000);
    cr_assert_eq(tm_timing_access(t, 0, 0x9000, 8, 0), TM_OK); /* misses both: 2 + 4 + 200 */
    put_run(t, 0, sc++, 0x1000, 1);                             /* 1 + 206: cycle 207 */
    cr_assert_eq(tm_timing_access(t, 0, 0x9008, 8, 0), TM_OK); /* the same line: 2 */
    put_run(t, 0, sc++, 0x1004, 1);                             /* 207 + 1 + 2: cycle 210 */
    cr_assert_eq(tm_timing_access(t, 1, 0x9010, 8, 1), TM_OK); /* T1 stores: L2 hit, 6; T0's copy stale */
    put_run(t, 1, sc++, 0x2000, 1);                             /* 1 + 6: cycle 7, before T0's: no order */
    cr_assert_eq(tm_timing_access(t, 0, 0x9000, 8, 0), TM_OK); /* stale: L1 miss, L2 hit: 6 */
    put_run(t, 0, sc++, 0x1008, 1);                             /* 210 + 1 + 6: cycle 217 */
    cr_assert_eq(tm_timing_access(t, 1, 0x9018, 8, 0), TM_OK); /* T1's own copy: hit, 2 */
    put_run(t, 1, sc++, 0x2004, 1);                             /* 7 + 1 + 2: cycle 10 */
    /* LRU: 0x10000, 0x11000, 0x12000 (and 0x9000) are in one set of T0's L1 */
    static const struct { uint64_t a; int hit; } lru[] = {
        {0x10000, 0}, {0x11000, 0}, {0x10000, 1}, {0x12000, 0} /* replaces 0x11000 */, {0x10000, 1}, {0x11000, 0}};
    tm_timing_stats st;
    for (size_t i = 0; i < sizeof lru / sizeof lru[0]; i++) {
        tm_timing_stats before;
        tm_timing_get_stats(t, &before);
        cr_assert_eq(tm_timing_access(t, 0, lru[i].a, 4, 0), TM_OK);
        tm_timing_get_stats(t, &st);
        cr_assert_eq(st.l1_hits - before.l1_hits, (uint64_t)lru[i].hit, "access %zu (0x%llx)", i,
                     (unsigned long long)lru[i].a);
    }
    put_run(t, 0, sc++, 0x100c, 1);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{7, 1}, {10, 1}, {207, 0}, {210, 0}, {217, 0}};
    cr_assert_eq(o->n, 8, "only the groups: %zu records", o->n);
    for (size_t i = 0; i < 5; i++) {
        const tmc_record *r = &o->r[2 + i];
        cr_assert_eq(r->cycle, want[i][0], "record %zu: cycle %llu", i, (unsigned long long)r->cycle);
        cr_assert_eq(r->tid, want[i][1], "record %zu: T%u", i, r->tid);
        cr_assert_eq(r->type, TMC_RUN);
    }
    tm_timing_get_stats(t, &st);
    cr_assert_eq(st.accesses, 11);
    cr_assert_eq(st.ordered, 0);
    cr_assert_eq(st.l1_hits, 4);
    cr_assert_eq(st.l1_misses, 7);
    cr_assert_eq(st.l2_hits, 3);
    cr_assert_eq(st.l2_misses, 4);
    /* the last group: 216 + 1 + the LRU accesses: 3 misses to memory
     * (0x10000, 0x11000, 0x12000: 206 each), 2 hits (2 each), 0x11000 again
     * (L2 hit: 6) */
    cr_assert_eq(o->r[7].cycle, 217 + 1 + 3 * 206 + 2 * 2 + 6);
    cr_assert_eq(st.clamped, 0);
    tm_timing_free(t);
    free(o);
}

/* The data caches' fast paths (the repeated line, the lines one core owns
 * after its store, tm_timing_access_words' runs) against the plain model:
 * per-core LRU L1s, a store removing the line from the other L1s, a shared
 * LRU L2.  Random accesses of 4 cores to a few lines (some a multiple of
 * 2048 lines apart: the fast paths' hashed table collides), through
 * tm_timing_access one by one and through tm_timing_access_words in runs:
 * every access's L1 and L2 outcome as the plain model's. */
typedef struct refc {
    uint64_t tag[4][2][2], age[4][2][2]; /* [core][set][way]: L1 256 B, 2-way */
    uint64_t tag2[4][4], age2[4][4];     /* [set][way]: L2 1 KB, 4-way */
    uint64_t tick;
} refc;

static int ref_set(uint64_t *tag, uint64_t *age, unsigned ways, uint64_t key, uint64_t tick)
{
    unsigned lru = 0;
    for (unsigned w = 0; w < ways; w++) {
        if (tag[w] == key) {
            age[w] = tick;
            return 1;
        }
        if (age[w] < age[lru])
            lru = w;
    }
    tag[lru] = key;
    age[lru] = tick;
    return 0;
}

/* 0: L1 hit, 1: L2 hit, 2: memory */
static int ref_access(refc *c, unsigned tid, uint64_t line, int store)
{
    uint64_t key = line + 1;
    unsigned set = line & 1;
    c->tick++;
    if (store)
        for (unsigned j = 0; j < 4; j++)
            for (unsigned w = 0; j != tid && w < 2; w++)
                if (c->tag[j][set][w] == key)
                    c->tag[j][set][w] = c->age[j][set][w] = 0;
    if (ref_set(c->tag[tid][set], c->age[tid][set], 2, key, c->tick))
        return 0;
    return ref_set(c->tag2[line & 3], c->age2[line & 3], 4, key, c->tick) ? 1 : 2;
}

Test(timing, data_access_fast_paths)
{
    static const uint64_t lines[] = {0, 1, 2, 3, 5, 6, 2048, 2049, 4096, 4098, 6145, 7, 8, 12, 16, 4100};
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    cfg.l1i.size = 0;
    cfg.l1 = (tm_timing_cache){256, 2, 2};
    cfg.l2 = (tm_timing_cache){1024, 4, 4};
    for (int via_words = 0; via_words < 2; via_words++) {
        out *o = calloc(1, sizeof *o);
        tm_timing_sink s = {collect, NULL, o};
        tm_timing *t = NULL;
        cr_assert_eq(tm_timing_new(&cfg, 4, &s, &t), TM_OK);
        refc *c = calloc(1, sizeof *c);
        uint64_t seed = 12345, want[3] = {0, 0, 0};
        unsigned tid = 0;
        uint64_t run[16];
        size_t nrun = 0;
        tm_timing_stats st;
        for (int i = 0; i < 40000; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(seed >> 33);
            unsigned ntid = r % 5 == 0 ? (r >> 3) % 4 : tid;           /* another core now and then */
            uint64_t line = r % 3 ? lines[(r >> 5) % 16] : lines[(r >> 5) % 3]; /* repeats */
            int store = (r >> 9) % 10 < 3;
            uint64_t addr = line * 64 + (r >> 12) % 64;
            if (via_words && nrun && (ntid != tid || nrun == 16 || (r >> 20) % 4 == 0)) {
                cr_assert_eq(tm_timing_access_words(t, tid, run, nrun), TM_OK);
                nrun = 0;
            }
            tid = ntid;
            want[ref_access(c, tid, line, store)]++;
            if (via_words) {
                run[nrun++] = 14 | (uint64_t)store << 8 | (uint64_t)7 << 10 | addr << 16;
                continue;
            }
            cr_assert_eq(tm_timing_access(t, tid, addr, 8, store), TM_OK);
            tm_timing_get_stats(t, &st);
            cr_assert_eq(st.l1_hits, want[0], "access %d: T%u line %llu store %d", i, tid,
                         (unsigned long long)line, store);
            cr_assert_eq(st.l2_hits, want[1], "access %d", i);
            cr_assert_eq(st.l2_misses, want[2], "access %d", i);
        }
        if (nrun)
            cr_assert_eq(tm_timing_access_words(t, tid, run, nrun), TM_OK);
        tm_timing_get_stats(t, &st);
        cr_assert_eq(st.accesses, 40000);
        cr_assert_eq(st.l1_hits, want[0]);
        cr_assert_eq(st.l1_misses, want[1] + want[2]);
        cr_assert_eq(st.l2_hits, want[1]);
        cr_assert_eq(st.l2_misses, want[2]);
        cr_assert(want[0] > 10000 && want[1] > 1000 && want[2] > 1000, "%llu %llu %llu",
                  (unsigned long long)want[0], (unsigned long long)want[1], (unsigned long long)want[2]);
        tm_timing_free(t);
        free(c);
        free(o);
    }
}
