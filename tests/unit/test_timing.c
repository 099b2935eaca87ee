/* tm — unit tests of the timing model's clocks (timing/timing.c,
 * timing/merge.c, tm/timing.h, docs/capture.md §3): per-core clocks
 * stamped from n x CPI plus the stalls and floors given, the merge in
 * (cycle, thread) order and its window, clamps, futex waits and wakes,
 * threads created and not started, where each core's cycles went.  The
 * caches and the order of the accesses are the frontend's
 * (test_tfront.c). */
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

static uint64_t sc_next; /* the serial cycles of the groups put */

static tm_timing *mk_cpi(out *o, uint32_t threads, uint64_t window, uint32_t cpi)
{
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    if (window)
        cfg.window = window;
    if (cpi)
        cfg.cpi_milli = cpi;
    tm_timing_sink s = {collect, NULL, o};
    tm_timing *t = NULL;
    cr_assert_eq(tm_timing_new(&cfg, threads, &s, &t), TM_OK);
    o->n = 0;
    sc_next = 0;
    return t;
}

static tm_timing *mk(out *o, uint32_t threads, uint64_t window) { return mk_cpi(o, threads, window, 0); }

/* A group of thread TID in serial cycle SC: a RUN of N instructions at PC
 * and, if MEM, an operand (STORE or load) at ADDR; left open. */
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
        memcpy(r.value, &sc, 8);
        cr_assert_eq(tm_timing_put(t, &r), TM_OK);
    }
}

/* A whole group of thread TID: a RUN of N instructions, ended. */
static void run(tm_timing *t, uint32_t tid, uint64_t n)
{
    uint64_t sc = sc_next++;
    put_group(t, tid, sc, (uint64_t)tid << 32 | sc << 4, n, 0, 0, 0);
    cr_assert_eq(tm_timing_end(t), TM_OK);
}

/* A whole group of thread TID of an event of TYPE alone (START, EXIT), ended. */
static void event(tm_timing *t, uint32_t tid, tmc_type type)
{
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.tid = tid;
    r.cycle = sc_next++;
    r.type = type;
    r.pc = (uint64_t)tid << 32;
    cr_assert_eq(tm_timing_put(t, &r), TM_OK);
    cr_assert_eq(tm_timing_end(t), TM_OK);
}

/* The output is in (cycle, thread) order. */
static void assert_ordered(const out *o)
{
    for (size_t i = 1; i < o->n; i++) {
        const tmc_record *a = &o->r[i - 1], *b = &o->r[i];
        cr_assert(a->cycle < b->cycle || (a->cycle == b->cycle && a->tid <= b->tid),
                  "record %zu (cycle %llu, T%u) after (cycle %llu, T%u)", i, (unsigned long long)b->cycle, b->tid,
                  (unsigned long long)a->cycle, a->tid);
    }
}

/* The output's records are exactly N of (cycle, thread) WANT, in order. */
static void assert_out(const out *o, const uint64_t (*want)[2], size_t n)
{
    cr_assert_eq(o->n, n, "%zu records, want %zu", o->n, n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(o->r[i].cycle, want[i][0], "record %zu: cycle %llu, want %llu", i,
                     (unsigned long long)o->r[i].cycle, (unsigned long long)want[i][0]);
        cr_assert_eq(o->r[i].tid, want[i][1], "record %zu: T%u, want T%llu", i, o->r[i].tid,
                     (unsigned long long)want[i][1]);
    }
}

/* Thread TID's core breakdown is exactly NS, BUSY, IFETCH, DATA, the waits
 * W and CLAMPED, and adds up to its last cycle + 1. */
static void assert_core(const tm_timing *t, uint32_t tid, uint64_t ns, uint64_t busy, uint64_t ifetch, uint64_t data,
                        const uint64_t w[TM_WAIT_KINDS], uint64_t clamped)
{
    tm_timing_core c;
    tm_timing_get_core(t, tid, &c);
    cr_assert_eq(c.not_started, ns, "T%u not started %llu", tid, (unsigned long long)c.not_started);
    cr_assert_eq(c.busy, busy, "T%u busy %llu", tid, (unsigned long long)c.busy);
    cr_assert_eq(c.ifetch, ifetch, "T%u ifetch %llu", tid, (unsigned long long)c.ifetch);
    cr_assert_eq(c.data, data, "T%u data %llu", tid, (unsigned long long)c.data);
    for (int k = 0; k < TM_WAIT_KINDS; k++)
        cr_assert_eq(c.wait[k], w[k], "T%u wait[%d] %llu", tid, k, (unsigned long long)c.wait[k]);
    cr_assert_eq(c.clamped, clamped, "T%u clamped %llu", tid, (unsigned long long)c.clamped);
    uint64_t cycles, insns, sum = c.not_started + c.busy + c.ifetch + c.data + c.clamped;
    for (int k = 0; k < TM_WAIT_KINDS; k++)
        sum += c.wait[k];
    tm_timing_thread(t, tid, &cycles, &insns);
    cr_assert_eq(sum, cycles, "T%u: parts %llu, cycles %llu", tid, (unsigned long long)sum,
                 (unsigned long long)cycles);
}

static const uint64_t NOWAIT[TM_WAIT_KINDS] = {0};

Test(timing, two_cores_retire_in_the_same_cycle)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    uint64_t sc = 0;
    tmc_record r;
    for (uint32_t tid = 0; tid < 2; tid++) {
        memset(&r, 0, sizeof r);
        r.tid = tid;
        r.cycle = sc++;
        r.type = TMC_START;
        cr_assert_eq(tm_timing_put(t, &r), TM_OK);
    }
    for (int i = 0; i < 3; i++)
        put_group(t, 0, sc++, 0x1000, 10, 0, 0, 0);
    for (int i = 0; i < 3; i++)
        put_group(t, 1, sc++, 0x2000, 10, 0, 0, 0);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    /* START at 0, then each core 10 instructions at CPI 1 per group */
    static const uint64_t want[][2] = {{0, 0}, {0, 1}, {10, 0}, {10, 1}, {20, 0}, {20, 1}, {30, 0}, {30, 1}};
    assert_out(o, want, 8);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.cycles, 31);
    cr_assert_eq(s.groups, 8);
    cr_assert_eq(s.clamped, 0);
    tm_timing_free(t);
    free(o);
}

/* CPI 1.5: 4 instructions are 6 cycles; a MEM record keeps its .pc and
 * its group's cycle; the groups' instructions are counted. */
Test(timing, cpi_and_memory_operands)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk_cpi(o, 1, 0, 1500);
    put_group(t, 0, 0, 0x1000, 4, 0, 0, 0);
    put_group(t, 0, 1, 0x1000, 4, 1, 0, 0x9000);
    put_group(t, 0, 2, 0x1000, 3, 1, 1, 0x9008);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{6, 0}, {12, 0}, {12, 0}, {16, 0}, {16, 0}};
    assert_out(o, want, 5);
    cr_assert_eq(o->r[2].type, TMC_MEM);
    cr_assert_eq(o->r[2].pc, 0x100c, "the operand's instruction address is passed on");
    cr_assert_eq(o->r[2].addr, 0x9000);
    cr_assert_eq(o->r[4].flags, TMC_MEM_STORE);
    cr_assert_eq(o->r[4].pc, 0x1008);
    uint64_t cycles, insns;
    tm_timing_thread(t, 0, &cycles, &insns);
    cr_assert_eq(cycles, 17);
    cr_assert_eq(insns, 11);
    cr_assert_eq(tm_timing_last(t, 0), 16);
    tm_timing_free(t);
    free(o);
}

/* Stalls given for a thread's next group add to its cycle (and to that
 * group only); the clock counts them and the open group's instructions. */
Test(timing, stalls_add_to_the_next_group)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    run(t, 0, 10);                 /* 10 */
    tm_timing_stall(t, 0, 3, 4);
    tm_timing_stall(t, 1, 100, 100); /* another thread's: not T0's */
    cr_assert_eq(tm_timing_clock(t, 0), 17);
    put_group(t, 0, sc_next++, 0x1000, 10, 0, 0, 0);
    cr_assert_eq(tm_timing_clock(t, 0), 27, "the open group counted");
    cr_assert_eq(tm_timing_end(t), TM_OK); /* 10 + 10 + 3 + 4 */
    run(t, 0, 10);                         /* 37: the stall is gone */
    tm_timing_stall(t, 0, 0, 5);
    tm_timing_stall(t, 0, 2, 0);           /* they add up */
    run(t, 0, 1);                          /* 37 + 1 + 7 */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{10, 0}, {27, 0}, {37, 0}, {45, 0}};
    assert_out(o, want, 4);
    assert_core(t, 0, 0, 31 + 1, 5, 9, NOWAIT, 0);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    for (int k = 0; k < TM_WAIT_KINDS; k++)
        cr_assert_eq(s.floors[k], 0);
    tm_timing_free(t);
    free(o);
}

/* A floor delays the next group to it (the delay counted as its kind); a
 * floor the clock is past delays nothing and is not counted; of two
 * floors the later counts, with its kind; a kind out of range is ignored. */
Test(timing, floors_delay_the_next_group)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 1, 0);
    run(t, 0, 10);                        /* 10 */
    tm_timing_floor(t, 0, 50, TM_WAIT_STORE);
    run(t, 0, 10);                        /* 20 -> 50: 30 waited */
    tm_timing_floor(t, 0, 55, TM_WAIT_LOAD);
    run(t, 0, 10);                        /* 60: not delayed */
    tm_timing_floor(t, 0, 70, TM_WAIT_LOAD);
    tm_timing_floor(t, 0, 65, TM_WAIT_STORE);
    tm_timing_floor(t, 0, 1000, TM_WAIT_KINDS);
    run(t, 0, 1);                         /* 61 -> 70: 9 waited on a load */
    run(t, 0, 1);                         /* 71: the floors are used up */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{10, 0}, {50, 0}, {60, 0}, {70, 0}, {71, 0}};
    assert_out(o, want, 5);
    const uint64_t w[TM_WAIT_KINDS] = {[TM_WAIT_STORE] = 30, [TM_WAIT_LOAD] = 9};
    assert_core(t, 0, 0, 32 + 1, 0, 0, w, 0);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.floors[TM_WAIT_STORE], 1);
    cr_assert_eq(s.floors[TM_WAIT_LOAD], 1);
    cr_assert_eq(s.floors[TM_WAIT_FUTEX] + s.floors[TM_WAIT_JOIN], 0);
    uint64_t cycles, insns;
    tm_timing_thread(t, 0, &cycles, &insns);
    cr_assert_eq(cycles, 72);
    cr_assert_eq(insns, 32);
    tm_timing_free(t);
    free(o);
}

/* Fractional CPI: the clock keeps thousandths, a group's cycle is its
 * clock's whole part; the breakdown's parts (rounded so that they add
 * up; the code rounds their running sums in the order busy, ifetch, data,
 * clamped, waits) add up exactly to the last cycle + 1. */
Test(timing, core_breakdown_adds_up_with_fractional_cpi)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk_cpi(o, 1, 0, 1500);
    run(t, 0, 1);                         /* 1.5: cycle 1 */
    tm_timing_stall(t, 0, 1, 0);
    run(t, 0, 1);                         /* 1.5 + 1.5 + 1 = 4 */
    tm_timing_floor(t, 0, 7, TM_WAIT_STORE);
    run(t, 0, 1);                         /* 5.5 -> 7: 1.5 waited */
    run(t, 0, 1);                         /* 8.5: cycle 8 */
    event(t, 0, TMC_EXIT);                /* no instruction: one cycle later, 9 */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{1, 0}, {4, 0}, {7, 0}, {8, 0}, {9, 0}};
    assert_out(o, want, 5);
    /* busy 6 (instructions) + 0.5 (the EXIT's cycle) + 1 (the last
     * group's own cycle) = 7.5 -> 8; ifetch 1 (running sum 8.5 -> 9);
     * wait 1.5 (running sum 10 -> 10): 1 */
    const uint64_t w[TM_WAIT_KINDS] = {[TM_WAIT_STORE] = 1};
    assert_core(t, 0, 0, 8, 1, 0, w, 0);
    tm_timing_free(t);

    /* CPI 1/3 over many groups with stalls: still exact */
    t = mk_cpi(o, 1, 0, 333);
    for (int i = 0; i < 100; i++) {
        if (i % 7 == 0)
            tm_timing_stall(t, 0, 1, 2);
        if (i % 11 == 0)
            tm_timing_floor(t, 0, tm_timing_clock(t, 0) + 3, TM_WAIT_FUTEX);
        run(t, 0, 1 + (uint64_t)(i % 5));
    }
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    tm_timing_core c;
    tm_timing_get_core(t, 0, &c);
    uint64_t cycles, insns;
    tm_timing_thread(t, 0, &cycles, &insns);
    cr_assert_eq(c.ifetch, 15);
    cr_assert_eq(c.data, 30);
    cr_assert_eq(c.not_started + c.busy + c.ifetch + c.data + c.clamped + c.wait[0] + c.wait[1] + c.wait[2] +
                     c.wait[3],
                 cycles);
    cr_assert_eq(cycles, o->r[o->n - 1].cycle + 1);
    tm_timing_free(t);
    free(o);
}

/* A thread in a system call other than a futex holds back what comes
 * after its clock, and resumes at its own clock (no wait counted). */
Test(timing, system_call_resumes_at_its_own_clock)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    event(t, 0, TMC_START);
    event(t, 1, TMC_START);
    run(t, 0, 5);                         /* 5 */
    cr_assert_eq(tm_timing_syscall(t, 0, 0), TM_OK);
    run(t, 1, 10);
    run(t, 1, 10);
    run(t, 1, 10);                        /* 10, 20, 30: after T0's clock, held */
    cr_assert_eq(o->n, 3, "%zu records out", o->n);
    cr_assert_eq(tm_timing_syscall(t, 0, 1), TM_OK);
    run(t, 0, 5);                         /* 10 */
    cr_assert_eq(o->n, 5);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{0, 0}, {0, 1}, {5, 0}, {10, 0}, {10, 1}, {20, 1}, {30, 1}};
    assert_out(o, want, 7);
    assert_core(t, 0, 0, 11, 0, 0, NOWAIT, 0);
    tm_timing_free(t);
    free(o);
}

/* At most WINDOW groups wait: beyond that the oldest go, and a late
 * thread's group is clamped (counted, in its core's breakdown too). */
Test(timing, the_window_bounds_what_is_held_and_clamps_are_counted)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 10);
    run(t, 0, 1); /* 1; T0 then never runs until the end */
    for (uint64_t i = 0; i < 1000; i++)
        run(t, 1, 3); /* 3, 6, ..., 3000 */
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.held_max, 11);
    cr_assert_eq(o->n, 1 + 990);
    cr_assert_eq(o->r[o->n - 1].cycle, 2970);
    run(t, 0, 1); /* its clock 2, behind 2970 (T1) that went out: 2971 */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    assert_ordered(o);
    cr_assert_eq(o->n, 1002);
    cr_assert_eq(o->r[991].tid, 0);
    cr_assert_eq(o->r[991].cycle, 2971);
    cr_assert_eq(o->r[992].cycle, 2973);
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.clamped, 1);
    cr_assert_eq(s.groups, 1002);
    cr_assert_eq(s.cycles, 3001);
    assert_core(t, 0, 0, 3, 0, 0, NOWAIT, 2969);
    assert_core(t, 1, 0, 3001, 0, 0, NOWAIT, 0);
    tm_timing_free(t);
    free(o);
}

/* The reference clocks of random_serial_orders. */
typedef struct refth {
    uint64_t acc, next, floor, sif, sd, n;
    int fkind;
    uint64_t cyc[4000];
} refth;

/* Random serial orders of 4 threads (all started first) with memory
 * operands, stalls, floors and system calls: the output is in (cycle,
 * thread) order, every group is there in its thread's order, and, with a
 * window that holds everything, each group has exactly the cycle the
 * rules give (no clamp); with a small window, clamps may happen but the
 * order holds.  Every core's breakdown adds up. */
Test(timing, random_serial_orders)
{
    out *o = calloc(1, sizeof *o);
    refth *rf = calloc(4, sizeof *rf);
    static const uint32_t cpis[] = {1000, 1500, 333, 2250};
    for (unsigned seed = 1; seed <= 16; seed++) {
        srand(seed);
        uint64_t window = seed % 2 ? 64 : 0;
        uint32_t cpi = cpis[seed % 4];
        tm_timing *t = mk_cpi(o, 4, window, cpi);
        memset(rf, 0, 4 * sizeof *rf);
        uint64_t floors[TM_WAIT_KINDS] = {0}, sifs[4] = {0}, sds[4] = {0};
        for (uint32_t tid = 0; tid < 4; tid++) {
            event(t, tid, TMC_START);
            rf[tid].next = 1;
        }
        for (int g = 0; g < 3000; g++) {
            uint32_t tid = (uint32_t)(rand() % 4);
            refth *r = &rf[tid];
            if (rand() % 50 == 0)
                cr_assert_eq(tm_timing_syscall(t, tid, rand() % 2), TM_OK);
            if (rand() % 4 == 0) {
                uint64_t a = (uint64_t)(rand() % 30), b = (uint64_t)(rand() % 30);
                tm_timing_stall(t, tid, a, b);
                r->sif += a;
                r->sd += b;
                sifs[tid] += a;
                sds[tid] += b;
            }
            if (rand() % 5 == 0) {
                uint64_t at = r->acc / 1000 + (uint64_t)(rand() % 100);
                int kind = rand() % TM_WAIT_KINDS;
                tm_timing_floor(t, tid, at, kind);
                if (at > r->floor) {
                    r->floor = at;
                    r->fkind = kind;
                }
            }
            uint64_t n = 1 + (uint64_t)(rand() % 20);
            int mem = rand() % 3 == 0, store = rand() % 2;
            uint64_t addr = 0x8000 + 8u * (uint64_t)(rand() % 64);
            /* the pc counts the thread's groups */
            put_group(t, tid, sc_next++, (uint64_t)tid << 32 | r->n, n, mem, store, addr);
            cr_assert_eq(tm_timing_end(t), TM_OK);
            /* the rules: n x CPI and the stalls, at least one cycle after the
             * previous group, no earlier than the floor */
            r->acc += n * cpi + 1000 * (r->sif + r->sd);
            r->sif = r->sd = 0;
            uint64_t c = r->acc / 1000;
            if (r->next > c)
                c = r->next;
            if (r->floor > c) {
                c = r->floor;
                floors[r->fkind]++;
            }
            r->floor = 0;
            if (r->acc < c * 1000)
                r->acc = c * 1000;
            r->next = c + 1;
            r->cyc[r->n++] = c;
        }
        cr_assert_eq(tm_timing_finish(t), TM_OK);
        assert_ordered(o);
        uint64_t seen[4] = {0};
        size_t runs = 0;
        tm_timing_stats s;
        tm_timing_get_stats(t, &s);
        for (size_t i = 0; i < o->n; i++) {
            const tmc_record *x = &o->r[i];
            if (x->type != TMC_RUN)
                continue;
            runs++;
            uint64_t k = x->pc & 0xffffffffu;
            cr_assert_eq(k, seen[x->tid]++, "seed %u: T%u's groups out of order", seed, x->tid);
            if (!window)
                cr_assert_eq(x->cycle, rf[x->tid].cyc[k], "seed %u: T%u's group %llu at %llu, want %llu", seed,
                             x->tid, (unsigned long long)k, (unsigned long long)x->cycle,
                             (unsigned long long)rf[x->tid].cyc[k]);
        }
        cr_assert_eq(runs, 3000);
        if (!window) {
            cr_assert_eq(s.clamped, 0, "seed %u", seed);
            for (int k = 0; k < TM_WAIT_KINDS; k++)
                cr_assert_eq(s.floors[k], floors[k], "seed %u: floors[%d]", seed, k);
        }
        for (uint32_t tid = 0; tid < 4; tid++) {
            tm_timing_core c;
            uint64_t cycles, insns;
            tm_timing_get_core(t, tid, &c);
            tm_timing_thread(t, tid, &cycles, &insns);
            cr_assert_eq(c.ifetch, sifs[tid], "seed %u T%u", seed, tid);
            cr_assert_eq(c.data, sds[tid], "seed %u T%u", seed, tid);
            cr_assert_eq(c.not_started + c.busy + c.ifetch + c.data + c.clamped + c.wait[0] + c.wait[1] +
                             c.wait[2] + c.wait[3],
                         cycles, "seed %u T%u", seed, tid);
            cr_assert_eq(cycles, tm_timing_last(t, tid) + 1);
        }
        tm_timing_free(t);
    }
    free(rf);
    free(o);
}

/* A futex waiter holds nothing back while no wake may release it (the
 * other thread's groups go out at once meanwhile); a wake posted before
 * its wait began cannot release it; it resumes at the cycle of the wake
 * that released it (the waker's next cycle), counted as a futex wait. */
Test(timing, futex_wait_resumes_at_the_releasing_wake)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    const uint64_t A = 0x7000;
    event(t, 0, TMC_START);
    event(t, 1, TMC_START);
    run(t, 1, 10);                                          /* 10 */
    cr_assert_eq(tm_timing_futex(t, 1, TM_FUTEX_WAKE, A, 1, 0, 0), TM_OK); /* at 11, before the wait */
    cr_assert_eq(tm_timing_futex_leave(t, 1, 1), TM_OK);  /* one release left */
    run(t, 0, 5);                                           /* 5 */
    cr_assert_eq(tm_timing_futex(t, 0, TM_FUTEX_WAIT, A, 0, 0, 0), TM_OK);
    cr_assert_eq(o->n, 4, "T1's group at 10 went out when T0 began waiting");
    for (int i = 0; i < 10; i++) {
        run(t, 1, 10); /* 20 .. 110 */
        cr_assert_eq(o->n, 5 + (size_t)i, "T1's group %d went out at once", i);
    }
    cr_assert_eq(tm_timing_futex(t, 1, TM_FUTEX_WAKE, A, 1, 0, 0), TM_OK); /* at 111 */
    cr_assert_eq(tm_timing_futex_leave(t, 1, 1), TM_OK);
    run(t, 1, 10);                                          /* 120: T0 may resume at 111: held */
    cr_assert_eq(o->n, 14);
    cr_assert_eq(tm_timing_futex_leave(t, 0, 0), TM_OK);
    run(t, 0, 5);                                           /* 10 -> 111 */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    assert_ordered(o);
    cr_assert_eq(o->n, 16);
    cr_assert_eq(o->r[14].tid, 0);
    cr_assert_eq(o->r[14].cycle, 111);
    cr_assert_eq(o->r[15].cycle, 120);
    const uint64_t w[TM_WAIT_KINDS] = {[TM_WAIT_FUTEX] = 101};
    assert_core(t, 0, 0, 11, 0, 0, w, 0);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.futex_waits, 1);
    cr_assert_eq(s.futex_wakes, 2);
    cr_assert_eq(s.futex_released, 1);
    cr_assert_eq(s.futex_unmatched, 0);
    cr_assert_eq(s.floors[TM_WAIT_FUTEX], 1);
    cr_assert_eq(s.clamped, 0);
    tm_timing_free(t);
    free(o);
}

/* N threads: T1 runs, the others (T0 at 5, T2 at 7, T3 at 9) wait on A
 * (their waits hold nothing back: T1's 10 groups go out at once), and T1
 * wakes COUNT of A at 101 (its call has not returned). */
static tm_timing *waiters(out *o, uint32_t n, uint64_t count)
{
    tm_timing *t = mk(o, n, 0);
    for (uint32_t tid = 0; tid < n; tid++)
        event(t, tid, TMC_START);
    for (uint32_t tid = 0; tid < n; tid++)
        if (tid != 1)
            run(t, tid, tid ? 3 + 2 * tid : 5);
    for (uint32_t tid = 0; tid < n; tid++)
        if (tid != 1)
            cr_assert_eq(tm_timing_futex(t, tid, TM_FUTEX_WAIT, 0x7000, 0, 0, 0), TM_OK);
    for (int i = 0; i < 10; i++)
        run(t, 1, 10); /* 10 .. 100 */
    cr_assert_eq(o->n, n + (n - 1) + 10, "the waiters held nothing back");
    cr_assert_eq(tm_timing_futex(t, 1, TM_FUTEX_WAKE, 0x7000, count, 0, 0), TM_OK); /* at 101 */
    return t;
}

/* A count-1 wake with two waiters: either may be the one it releases until
 * one returns 0 (T1's group after the wake is held); the other then holds
 * nothing back, the waker's call not returned yet or returned 1. */
Test(timing, futex_count_one_wake_releases_one_waiter)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = waiters(o, 3, 1);
    run(t, 1, 10); /* 110: held (a waiter may resume at 101) */
    cr_assert_eq(o->n, 15);
    cr_assert_eq(tm_timing_futex_leave(t, 0, 0), TM_OK);
    run(t, 0, 5); /* 10 -> 101 */
    cr_assert_eq(o->n, 16);
    cr_assert_eq(o->r[15].cycle, 101);
    cr_assert_eq(o->r[15].tid, 0);
    /* T0 waits for good: only T2 could hold T1's groups back now */
    cr_assert_eq(tm_timing_futex(t, 0, TM_FUTEX_WAIT, 0x7008, 0, 0, 0), TM_OK);
    cr_assert_eq(o->n, 17, "T2 (the wake's release used) holds nothing back: %zu records", o->n);
    cr_assert_eq(o->r[16].cycle, 110);
    cr_assert_eq(tm_timing_futex_leave(t, 1, 1), TM_OK);
    run(t, 1, 10); /* 120: at once */
    cr_assert_eq(o->n, 18);
    cr_assert_eq(o->r[17].cycle, 120);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    cr_assert_eq(o->n, 18);
    const uint64_t w[TM_WAIT_KINDS] = {[TM_WAIT_FUTEX] = 91};
    assert_core(t, 0, 0, 11, 0, 0, w, 0);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.futex_waits, 3);
    cr_assert_eq(s.futex_released, 1);
    cr_assert_eq(s.futex_wakes, 1);
    cr_assert_eq(s.clamped, 0);
    tm_timing_free(t);
    free(o);
}

/* A wake of 2 of 3 waiters whose call returned 1: once one waiter returned
 * 0, the other two hold nothing back. */
Test(timing, futex_wake_releases_what_its_call_returned)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = waiters(o, 4, 2);
    cr_assert_eq(tm_timing_futex_leave(t, 1, 1), TM_OK);
    run(t, 1, 10); /* 110: held */
    cr_assert_eq(o->n, 17);
    cr_assert_eq(tm_timing_futex_leave(t, 0, 0), TM_OK);
    run(t, 0, 5); /* 101 */
    cr_assert_eq(tm_timing_futex(t, 0, TM_FUTEX_WAIT, 0x7008, 0, 0, 0), TM_OK);
    cr_assert_eq(o->n, 19, "T2 and T3 hold nothing back: %zu records", o->n);
    cr_assert_eq(o->r[17].cycle, 101);
    cr_assert_eq(o->r[18].cycle, 110);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    tm_timing_free(t);
    free(o);
}

/* A wake of at least as many as wait releases them all: the waiter that
 * returned 0 and the one that returned EAGAIN (it had not blocked yet)
 * both resume at the wake's cycle, although the waker's call returned 1. */
Test(timing, futex_broadcast_releases_an_eagain_waiter_too)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = waiters(o, 3, 2);
    cr_assert_eq(tm_timing_futex_leave(t, 1, 1), TM_OK);
    cr_assert_eq(tm_timing_futex_leave(t, 2, 0), TM_OK);
    cr_assert_eq(tm_timing_futex_leave(t, 0, -11), TM_OK);
    run(t, 0, 5); /* 10 -> 101 */
    run(t, 2, 3); /* 10 -> 101 */
    run(t, 1, 10); /* 110 */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{0, 0},   {0, 1},   {0, 2},   {5, 0},   {7, 2},   {10, 1},
                                       {20, 1},  {30, 1},  {40, 1},  {50, 1},  {60, 1},  {70, 1},
                                       {80, 1},  {90, 1},  {100, 1}, {101, 0}, {101, 2}, {110, 1}};
    assert_out(o, want, sizeof want / sizeof want[0]);
    const uint64_t w0[TM_WAIT_KINDS] = {[TM_WAIT_FUTEX] = 91}, w2[TM_WAIT_KINDS] = {[TM_WAIT_FUTEX] = 91};
    assert_core(t, 0, 0, 11, 0, 0, w0, 0);
    assert_core(t, 2, 0, 11, 0, 0, w2, 0);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.futex_released, 2);
    cr_assert_eq(s.futex_unmatched, 0);
    cr_assert_eq(s.floors[TM_WAIT_FUTEX], 2);
    cr_assert_eq(s.clamped, 0);
    tm_timing_free(t);
    free(o);
}

/* A thread's end wakes its CLEARTID word at its next cycle: the joiner
 * waiting on it resumes there, counted as a join. */
Test(timing, exit_wake_releases_the_joiner)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    const uint64_t CT = 0x7ff0;
    event(t, 0, TMC_START);
    event(t, 1, TMC_START);
    run(t, 0, 5);
    cr_assert_eq(tm_timing_futex(t, 0, TM_FUTEX_WAIT, CT, 2, 0, 0), TM_OK);
    run(t, 1, 20);
    run(t, 1, 20);
    run(t, 1, 20); /* 20, 40, 60 */
    tm_timing_exit_wake(t, 1, CT); /* at 61 */
    event(t, 1, TMC_EXIT);         /* 61 */
    cr_assert_eq(tm_timing_futex_leave(t, 0, 0), TM_OK);
    run(t, 0, 5); /* 10 -> 61 */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{0, 0},  {0, 1},  {5, 0},  {20, 1},
                                       {40, 1}, {60, 1}, {61, 0}, {61, 1}};
    assert_out(o, want, 8);
    const uint64_t w[TM_WAIT_KINDS] = {[TM_WAIT_JOIN] = 51};
    assert_core(t, 0, 0, 11, 0, 0, w, 0);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.floors[TM_WAIT_JOIN], 1);
    cr_assert_eq(s.futex_released, 1);
    cr_assert_eq(s.futex_wakes, 1);
    tm_timing_free(t);
    free(o);
}

/* A thread created and not started yet (tm_timing_born at its creator's
 * clock) holds back every group from its birth on, until it starts
 * (tm_timing_start_at, then tm_timing_unborn as the capture layer calls
 * them); its first group comes no earlier than its birth, and the cycles
 * before are its core's not_started. */
Test(timing, born_thread_holds_back_until_it_starts)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 0);
    event(t, 0, TMC_START);
    run(t, 0, 10); /* 10 */
    cr_assert_eq(o->n, 2);
    uint64_t at = tm_timing_clock(t, 0);
    cr_assert_eq(at, 10);
    cr_assert_eq(tm_timing_born(t, at), TM_OK);
    run(t, 0, 5);
    run(t, 0, 5); /* 15, 20: after the birth, held */
    cr_assert_eq(o->n, 2);
    tm_timing_start_at(t, 1, at);
    tm_timing_unborn(t, at);
    event(t, 1, TMC_START); /* 10 */
    cr_assert_eq(o->n, 3);
    run(t, 1, 10); /* 20 */
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want[][2] = {{0, 0}, {10, 0}, {10, 1}, {15, 0}, {20, 0}, {20, 1}};
    assert_out(o, want, 6);
    assert_core(t, 1, 10, 11, 0, 0, NOWAIT, 0);
    cr_assert_eq(tm_timing_last(t, 1), 20);
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.clamped, 0);
    tm_timing_free(t);

    /* a group before the birth goes out; one after it waits until
     * tm_timing_unborn says the thread will never start (here handed on
     * when the thread then begins a futex wait) */
    t = mk(o, 1, 0);
    event(t, 0, TMC_START);
    cr_assert_eq(tm_timing_born(t, 20), TM_OK);
    cr_assert_eq(tm_timing_born(t, 30), TM_OK);
    run(t, 0, 15); /* 15 */
    cr_assert_eq(o->n, 2);
    run(t, 0, 5); /* 20 */
    cr_assert_eq(o->n, 2);
    tm_timing_unborn(t, 20);
    cr_assert_eq(tm_timing_futex(t, 0, TM_FUTEX_WAIT, 0x7000, 0, 0, 0), TM_OK);
    cr_assert_eq(o->n, 3, "T0's group at 20 went (the birth at 30 remains)");
    cr_assert_eq(tm_timing_futex_leave(t, 0, -11), TM_OK);
    run(t, 0, 10); /* 30: the born thread's first group comes after its birth's cycle */
    cr_assert_eq(o->n, 4, "the wait's end let the merge look again: T0's group at 30 went");
    tm_timing_unborn(t, 30);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    static const uint64_t want2[][2] = {{0, 0}, {15, 0}, {20, 0}, {30, 0}};
    assert_out(o, want2, 4);
    tm_timing_get_stats(t, &s);
    cr_assert_eq(s.futex_unmatched, 0);
    cr_assert_eq(s.clamped, 0);
    tm_timing_free(t);
    free(o);
}

/* When a birth goes (tm_timing_unborn) or a wait ends, the merge looks
 * again at the next group: the queues do not grow to the window while
 * every thread keeps retiring (the groups held stay few). */
Test(timing, a_birth_gone_lets_the_merge_go_on)
{
    out *o = calloc(1, sizeof *o);
    tm_timing *t = mk(o, 2, 1u << 22);
    event(t, 0, TMC_START);
    event(t, 1, TMC_START);
    cr_assert_eq(tm_timing_born(t, 10), TM_OK);
    run(t, 0, 20);
    run(t, 1, 20);
    tm_timing_unborn(t, 10);
    for (int i = 0; i < 2000; i++) {
        run(t, 0, 1);
        run(t, 1, 1);
    }
    tm_timing_stats s;
    tm_timing_get_stats(t, &s);
    cr_assert_lt(s.held_max, 16, "%llu groups held at most", (unsigned long long)s.held_max);
    cr_assert_eq(tm_timing_finish(t), TM_OK);
    cr_assert_eq(o->n, 4004);
    tm_timing_free(t);
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

/* Whole groups (tm_timing_put_whole, in the queues' short entries where
 * they fit) come out as the same groups put record by record and ended
 * do, to a record sink and to a group sink: runs of up to 2^16
 * instructions and longer, a branch at the run's end or elsewhere, targets
 * above 2^48, distances between a thread's cycles beyond 30 bits, queues
 * held and handed on at once, stalls and floors. */
Test(timing, whole_groups_as_records)
{
    out *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *c = calloc(1, sizeof *c);
    for (unsigned seed = 1; seed <= 20; seed++) {
        a->n = b->n = c->n = 0;
        tm_timing_cfg cfg;
        tm_timing_defaults(&cfg);
        cfg.window = seed % 3 ? (uint64_t)1 << 20 : 50;
        if (seed % 4 == 0)
            cfg.cpi_milli = 1000000; /* 2^16 instructions: 2^36 cycles */
        tm_timing_sink sa = {collect, NULL, a}, sb = {collect, NULL, b}, sc = {collect, collect_group, c};
        tm_timing *ts[3];
        cr_assert_eq(tm_timing_new(&cfg, 4, &sa, &ts[0]), TM_OK);
        cr_assert_eq(tm_timing_new(&cfg, 4, &sb, &ts[1]), TM_OK);
        cr_assert_eq(tm_timing_new(&cfg, 4, &sc, &ts[2]), TM_OK);
        srand(seed);
        for (uint64_t sc_ = 0; sc_ < 2000; sc_++) {
            uint32_t tid = (uint32_t)(rand() % 4);
            int r = rand() % 40;
            uint64_t x = (uint64_t)(rand() % 300);
            for (int k = 0; k < 3; k++) {
                if (r == 0)
                    cr_assert_eq(tm_timing_syscall(ts[k], tid, (int)(x & 1)), TM_OK);
                else if (r < 4)
                    tm_timing_stall(ts[k], tid, x % 17, x % 23);
                else if (r < 6)
                    tm_timing_floor(ts[k], tid, tm_timing_clock(ts[k], tid) + x, r - 4);
            }
            tmc_record rn, br;
            memset(&rn, 0, sizeof rn);
            memset(&br, 0, sizeof br);
            rn.type = TMC_RUN;
            rn.tid = br.tid = tid;
            rn.cycle = br.cycle = sc_;
            rn.pc = (uint64_t)tid << 40 | sc_ << 8;
            rn.count = rand() % 50 == 0 ? 70000 : 1 + (uint64_t)(rand() % 20);
            if (seed % 4 == 0 && rn.count > 20)
                rn.count = 20;
            rn.bytes = rn.count * (1 + (uint64_t)(rand() % 6));
            int has_run = rand() % 10 != 0, has_br = rand() % 10 < 7;
            if (!has_run && !has_br)
                has_br = 1;
            br.type = TMC_BRANCH;
            br.pc = rand() % 10 ? rn.pc + (has_run ? rn.bytes : 0) : rn.pc + 3;
            br.len = (uint8_t)(1 + rand() % 15);
            br.bclass = (uint8_t)(rand() % 6);
            br.taken = (uint8_t)(rand() % 2);
            br.target = rand() % 10 ? (uint64_t)(rand() % 100000) << 4 : (uint64_t)1 << 50 | (uint64_t)rand();
            if (has_run)
                cr_assert_eq(tm_timing_put(ts[0], &rn), TM_OK);
            if (has_br)
                cr_assert_eq(tm_timing_put(ts[0], &br), TM_OK);
            cr_assert_eq(tm_timing_end(ts[0]), TM_OK);
            tmc_group g = {tid, sc_, has_run ? rn.pc : 0, has_run ? rn.count : 0, has_run ? rn.bytes : 0,
                           0, 0, 0, 0, NULL, has_br ? &br : NULL};
            cr_assert_eq(tm_timing_put_whole(ts[1], &g, 0), TM_OK);
            cr_assert_eq(tm_timing_put_whole(ts[2], &g, 0), TM_OK);
        }
        for (int k = 0; k < 3; k++)
            cr_assert_eq(tm_timing_finish(ts[k]), TM_OK);
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
        tm_timing_get_stats(ts[0], &s1);
        tm_timing_get_stats(ts[1], &s2);
        cr_assert_eq(s1.cycles, s2.cycles);
        cr_assert_eq(s1.clamped, s2.clamped);
        cr_assert_eq(s1.held_max, s2.held_max);
        for (int k = 0; k < TM_WAIT_KINDS; k++)
            cr_assert_eq(s1.floors[k], s2.floors[k]);
        for (int k = 0; k < 3; k++)
            tm_timing_free(ts[k]);
    }
    free(a);
    free(b);
    free(c);
}

static int refuse(void *arg, const tmc_record *r)
{
    (void)r;
    return ++*(int *)arg >= 2;
}

/* A nonzero return of the sink stops: the call that handed on and every
 * later one return TM_ERR_IO. */
Test(timing, a_sink_that_refuses_stops)
{
    int calls = 0;
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    tm_timing_sink s = {refuse, NULL, &calls};
    tm_timing *t = NULL;
    cr_assert_eq(tm_timing_new(&cfg, 1, &s, &t), TM_OK);
    put_group(t, 0, 0, 0x1000, 1, 0, 0, 0);
    cr_assert_eq(tm_timing_end(t), TM_OK);
    put_group(t, 0, 1, 0x1000, 1, 0, 0, 0);
    cr_assert_eq(tm_timing_end(t), TM_ERR_IO);
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_RUN;
    r.count = 1;
    r.bytes = 4;
    r.cycle = 2;
    cr_assert_eq(tm_timing_put(t, &r), TM_ERR_IO);
    cr_assert_eq(tm_timing_finish(t), TM_ERR_IO);
    cr_assert_eq(calls, 2);
    tm_timing_free(t);
}

Test(timing, configuration_checks)
{
    tm_timing_cfg cfg;
    char err[256];
    tm_timing_defaults(&cfg);
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_OK);
    cr_assert_eq(cfg.line, 64);
    cr_assert_eq(cfg.cpi_milli, 1000);
    cr_assert_eq(cfg.mem_lat, 200);
    cfg.l1.size = 3000;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "l1: size 3000"), "%s", err);
    static const uint32_t bad_lines[] = {32, 128, 8, 4096, 0, 63};
    for (size_t i = 0; i < sizeof bad_lines / sizeof bad_lines[0]; i++) {
        tm_timing_defaults(&cfg);
        cfg.line = bad_lines[i];
        err[0] = 0;
        cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG, "line %u", bad_lines[i]);
        cr_assert(strstr(err, "line"), "%s", err);
    }
    tm_timing_defaults(&cfg);
    cfg.cpi_milli = 0;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    cfg.cpi_milli = 1000001;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_defaults(&cfg);
    cfg.window = 0;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_defaults(&cfg);
    cfg.mem_lat = 100001;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_defaults(&cfg);
    cfg.l2.size = 1024;
    cfg.l2.ways = 32;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_defaults(&cfg);
    cfg.l2.ways = 3; /* size 0: still checked */
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_defaults(&cfg);
    cfg.l1i.size = 0; /* no instruction cache */
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_OK);
    cfg.l1i = (tm_timing_cache){4096, 128, 0};
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_defaults(&cfg);
    cfg.l1.lat = 100001;
    cr_assert_eq(tm_timing_check(&cfg, err, sizeof err), TM_ERR_ARG);
    tm_timing_sink s = {collect, NULL, NULL};
    tm_timing *t = (tm_timing *)1;
    tm_timing_defaults(&cfg);
    cr_assert_eq(tm_timing_new(&cfg, 0, &s, &t), TM_ERR_ARG);
    cr_assert_null(t);
    t = (tm_timing *)1;
    cr_assert_eq(tm_timing_new(&cfg, TMC_MAX_THREADS + 1, &s, &t), TM_ERR_ARG);
    cr_assert_null(t);
    /* the L2 of N cores when not given: the largest power of two not above N x 64 KB */
    cr_assert_eq(tm_timing_l2_size(&cfg, 1), 65536);
    cr_assert_eq(tm_timing_l2_size(&cfg, 3), 131072);
    cr_assert_eq(tm_timing_l2_size(&cfg, 4), 262144);
    cr_assert_eq(tm_timing_l2_size(&cfg, 0), 65536);
    cr_assert_eq(tm_timing_l2_size(&cfg, 20000), 1u << 30);
    cfg.l2.size = 1u << 20;
    cr_assert_eq(tm_timing_l2_size(&cfg, 3), 1u << 20);
}

/* The machine tm record gives the frontend (tm/tfront.h) for a
 * configuration: the same caches, the L2 sized for the cores, the flags
 * of the costs and of the order; one tmf_cfg_check accepts. */
Test(timing, frontend_machine_of_a_configuration)
{
    tm_timing_cfg cfg;
    tm_timing_defaults(&cfg);
    cfg.turn = 5000;
    cfg.drift = 70000;
    tmf_cfg m;
    tm_timing_frontend(&cfg, 4, 0, 0, &m);
    cr_assert_eq(m.line, 64);
    cr_assert(m.l1i.size == 8192 && m.l1i.ways == 2 && m.l1i.lat == 0);
    cr_assert(m.l1.size == 8192 && m.l1.ways == 2 && m.l1.lat == 2);
    cr_assert(m.l2.size == 262144 && m.l2.ways == 8 && m.l2.lat == 4);
    cr_assert_eq(m.mem_lat, 200);
    cr_assert_eq(m.turn, 5000);
    cr_assert_eq(m.drift, 70000);
    cr_assert_eq(m.flags, TMF_ICACHE | TMF_DCACHE | TMF_ORDER | TMF_SYNC);
    cr_assert(tmf_cfg_check(&m));
    tm_timing_frontend(&cfg, 4, 0, 1, &m);
    cr_assert_eq(m.flags, TMF_ICACHE | TMF_DCACHE | TMF_ORDER | TMF_SYNC | TMF_WAR);
    cr_assert(tmf_cfg_check(&m));
    tm_timing_frontend(&cfg, 4, 1, 1, &m);
    cr_assert_eq(m.flags, TMF_ORDER | TMF_SYNC | TMF_WAR);
    cr_assert(tmf_cfg_check(&m));
    cfg.l1i.size = 0;
    tm_timing_frontend(&cfg, 2, 0, 0, &m);
    cr_assert_eq(m.flags, TMF_DCACHE | TMF_ORDER | TMF_SYNC);
    cr_assert_eq(m.l2.size, 131072);
    cr_assert(tmf_cfg_check(&m));
    cfg.l2 = (tm_timing_cache){128, 8, 4}; /* the ways that fit */
    tm_timing_frontend(&cfg, 2, 0, 0, &m);
    cr_assert_eq(m.l2.ways, 2);
    cr_assert(tmf_cfg_check(&m));
}
