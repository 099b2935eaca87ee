/* tm — the timing model of recorded programs, its clocks (docs/capture.md
 * §3).  A frontend runs the program's threads one at a time; the capture
 * layer cuts what each thread retires into groups (docs/spec.md §2.3) in
 * that serial order.  This stage puts each thread on a core of its own with
 * its own clock, gives every group the cycle its core retires it in, and
 * hands the groups on merged in (cycle, thread) order, so that several
 * cores retire in the same cycle.  What the caches cost and which other
 * thread's access each access follows is computed in the frontend
 * (tm/tfront.h) and arrives here as stalls and floors.
 *
 *   clock: a thread's core retires a group of n instructions n x CPI cycles
 *          after the previous one (at least one cycle later), plus the
 *          stalls given for it (tm_timing_stall: instruction fetch and data
 *          accesses), and no earlier than the floors given for it
 *          (tm_timing_floor: another thread's store it read, a wake).
 *   waits: a futex wait that blocked resumes at the clock of the wake that
 *          released it (tm_timing_futex); a thread starts no earlier than
 *          its creator's clock at the clone; a thread's end wakes the
 *          futex on its CLEARTID word (pthread_join).  Anything else (other
 *          system calls, the frontend switching threads) orders nothing.
 *   order: a group is never stamped before what has been handed on already
 *          (such a group is "clamped").
 *   memory: groups wait in per-thread queues until no thread can still
 *          retire earlier (a thread blocked in a futex wait holds nothing
 *          back until a wake may release it); at most WINDOW groups wait,
 *          beyond that the oldest are handed on and late threads are
 *          clamped.
 *
 * Calls on a handle report errors through the sink (a nonzero return of
 * the downstream sink stops) and return a tm_status. */
#ifndef TM_TIMING_H
#define TM_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include "tm/status.h"
#include "tm/tfront.h"
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One cache level: SIZE bytes, WAYS-way set associative, LAT cycles for
 * an access it serves (size 0: none). */
typedef struct tm_timing_cache {
    uint32_t size, ways, lat;
} tm_timing_cache;

typedef struct tm_timing_cfg {
    uint32_t cpi_milli;   /* base cycles per instruction x 1000 (1..1000000) */
    uint64_t window;      /* groups held at most */
    /* the frontend's machine (tm/tfront.h): tm record passes it to the
     * frontend, which times the caches; the clocks do not use it */
    uint32_t line;        /* cache line bytes: 64 (the frontend's shadow keeps 64-byte lines) */
    tm_timing_cache l1i;  /* instruction cache per core; lat: what a hit adds (0: pipelined) */
    tm_timing_cache l1;   /* data cache per core */
    tm_timing_cache l2;   /* shared; size 0: cores x 64 KB */
    uint32_t mem_lat;     /* cycles of an access that misses both */
    uint32_t turn;        /* cycles a running thread may be behind one at an atomic
                             instruction before that one waits for it (tm/tfront.h's
                             TMF_SYNC, tmf_behind) */
    uint32_t drift;       /* cycles a thread may run ahead of the others before the
                             frontend lets them run (tm/tfront.h's tmf_ahead; 0: never) */
} tm_timing_cfg;

/* The defaults (docs/capture.md §3): CPI 1, a window of 4M groups; 64-byte
 * lines, an instruction cache of 8 KB 2-way whose hits add 0 cycles, L1
 * data 8 KB 2-way 2 cycles, L2 (unified) cores x 64 KB 8-way 4 cycles,
 * memory 200 cycles. */
void tm_timing_defaults(tm_timing_cfg *cfg);
/* Checks CFG: TM_OK, or TM_ERR_ARG with one line in ERR. */
int tm_timing_check(const tm_timing_cfg *cfg, char *err, size_t errlen);
/* The L2's size for CORES cores when CFG leaves it 0: the largest power of
 * two not above cores x 64 KB (at most 1 GB). */
uint32_t tm_timing_l2_size(const tm_timing_cfg *cfg, uint32_t cores);

/* Where the groups go, in (cycle, thread) order: GROUP if set (MEM .pc is
 * then not given), else RECORD for each of the group's records.  A nonzero
 * return stops (the call that handed on returns TM_ERR_IO). */
typedef struct tm_timing_sink {
    int (*record)(void *arg, const tmc_record *r);
    int (*group)(void *arg, const tmc_group *g);
    void *arg;
} tm_timing_sink;

typedef struct tm_timing tm_timing;

/* THREADS: thread ids 0 .. THREADS - 1 (cores). */
int tm_timing_new(const tm_timing_cfg *cfg, uint32_t threads, const tm_timing_sink *sink, tm_timing **out);
/* The records of the frontend's serial order: a group is the run of
 * records with one (tid, cycle); its cycle is replaced by the thread's
 * clock.  MEM records' .pc is passed on. */
int tm_timing_put(tm_timing *t, const tmc_record *r);
/* The same for a whole group G (as tm_timing_put of its RUN, MEM and event
 * records); MPC is the MEM's .pc.  G's MEM value is read for .msize
 * bytes. */
int tm_timing_put_group(tm_timing *t, const tmc_group *g, uint64_t mpc);
/* The open group is whole: it is stamped and handed on (or queued) now,
 * and a later record of its thread and cycle starts a group of its own.
 * (The capture layer calls it where its own group ends.) */
int tm_timing_end(tm_timing *t);
/* tm_timing_put_group of a whole group, then tm_timing_end. */
int tm_timing_put_whole(tm_timing *t, const tmc_group *g, uint64_t mpc);
/* The clock of thread TID now (its open group counted): what a thread it
 * creates starts from. */
uint64_t tm_timing_clock(const tm_timing *t, uint32_t tid);
/* Thread TID's first group comes no earlier than cycle AT (its creator's
 * clock when it was created). */
void tm_timing_start_at(tm_timing *t, uint32_t tid, uint64_t at);
/* A thread was created that has no id yet (it starts later, no earlier
 * than cycle AT): nothing after AT goes out until tm_timing_unborn(AT)
 * says it started (its tm_timing_start_at given) or never will.  TM_OK or
 * TM_ERR_NOMEM. */
int tm_timing_born(tm_timing *t, uint64_t at);
void tm_timing_unborn(tm_timing *t, uint64_t at);
/* Thread TID enters (LEAVE 0) or leaves (LEAVE 1) a system call other
 * than a futex operation (tm_timing_futex): it resumes at its own clock
 * (the call costs nothing and orders nothing), so it holds back what comes
 * after its clock meanwhile. */
int tm_timing_syscall(tm_timing *t, uint32_t tid, int leave);

/* Kinds of waiting, in the cycle breakdown (tm_timing_core). */
enum {
    TM_WAIT_FUTEX = 0, /* a futex wait, until the wake that released it */
    TM_WAIT_JOIN,      /* another thread's end (its CLEARTID futex, or the word it cleared) */
    TM_WAIT_STORE,     /* another thread's store that a load read */
    TM_WAIT_LOAD,      /* another thread's load of what a store overwrote (values captured) */
    TM_WAIT_KINDS
};
/* Thread TID's next group comes no earlier than cycle AT, for the reason
 * KIND (TM_WAIT_*). */
void tm_timing_floor(tm_timing *t, uint32_t tid, uint64_t at, int kind);
/* Stall cycles beyond the CPI of thread TID's next group: its instruction
 * fetch (IFETCH) and its data accesses (DATA). */
void tm_timing_stall(tm_timing *t, uint32_t tid, uint64_t ifetch, uint64_t data);
/* The cycle of thread TID's last group (0 if it has none; its start then). */
uint64_t tm_timing_last(const tm_timing *t, uint32_t tid);

/* Futex operations (the op's low 7 bits, futex(2)). */
enum {
    TM_FUTEX_WAIT = 0, TM_FUTEX_WAKE = 1, TM_FUTEX_REQUEUE = 3, TM_FUTEX_CMP_REQUEUE = 4, TM_FUTEX_WAKE_OP = 5,
    TM_FUTEX_LOCK_PI = 6, TM_FUTEX_UNLOCK_PI = 7, TM_FUTEX_WAIT_BITSET = 9, TM_FUTEX_WAKE_BITSET = 10,
    TM_FUTEX_WAIT_REQUEUE_PI = 11, TM_FUTEX_LOCK_PI2 = 13
};
/* Thread TID enters futex(ADDR, OP, VAL, ..., ADDR2, VAL2) (VAL2: the
 * count of FUTEX_WAKE_OP's second address and of the requeues): a wait
 * holds nothing back until a wake on ADDR may release it; a wake posts, at
 * TID's clock, up to VAL releases of ADDR's waiters (VAL2 of ADDR2's for
 * FUTEX_WAKE_OP). */
int tm_timing_futex(tm_timing *t, uint32_t tid, uint32_t op, uint64_t addr, uint64_t val, uint64_t addr2,
                    uint64_t val2);
/* Thread TID leaves its futex call with RESULT (negative: -errno): a wait
 * that returned 0 was released by the earliest wake of its address posted
 * after it began waiting and resumes at that wake's clock; a wake that
 * returned r released r waiters at most. */
int tm_timing_futex_leave(tm_timing *t, uint32_t tid, int64_t result);
/* Thread TID ends and the system clears its CLEARTID word ADDR and wakes
 * one waiter of it, at the thread's last clock (pthread_join). */
void tm_timing_exit_wake(tm_timing *t, uint32_t tid, uint64_t addr);

/* Everything held is handed on. */
int tm_timing_finish(tm_timing *t);

typedef struct tm_timing_stats {
    uint64_t groups, cycles;       /* groups handed on; last cycle + 1 */
    uint64_t held_max;             /* most groups held at once */
    uint64_t clamped;              /* groups stamped later than their clock */
    uint64_t futex_waits, futex_released, futex_unmatched; /* waits; released by a wake seen; returned 0 without one */
    uint64_t futex_wakes;          /* wake calls (and thread ends with CLEARTID) */
    uint64_t floors[TM_WAIT_KINDS]; /* groups a floor delayed, per kind */
} tm_timing_stats;
void tm_timing_get_stats(const tm_timing *t, tm_timing_stats *s);
/* Thread TID's last stamped cycle + 1 (0 if it retired nothing) and the
 * instructions it retired. */
void tm_timing_thread(const tm_timing *t, uint32_t tid, uint64_t *cycles, uint64_t *insns);

/* Where thread TID's core's cycles went, up to its last group: the cycles
 * before it started (its creator's clock at the clone), retiring
 * instructions (n x CPI, and at least one cycle a group), stalled on the
 * instruction fetch and on data, waiting (per TM_WAIT_*), and clamped;
 * they add up to its last cycle + 1 (tm_timing_thread). */
typedef struct tm_timing_core {
    uint64_t not_started, busy, ifetch, data, wait[TM_WAIT_KINDS], clamped;
} tm_timing_core;
void tm_timing_get_core(const tm_timing *t, uint32_t tid, tm_timing_core *c);
void tm_timing_free(tm_timing *t);

/* ---- tm record's timing options (timing/timingopt.c) ---- */

/* The timing model as the options give it. */
typedef struct tm_timing_opts {
    int serial;           /* --timing serial (-1 until tm_timing_opts_check: not given) */
    tm_timing_cfg cfg;    /* --timing cores with --cpi, --l1i, --l1, --l2, --mem-latency, --timing-window,
                             --timing-turn, --timing-drift */
    int set;              /* a cores-only option was given */
    int no_caches;        /* --no-caches: no instruction cache, the data accesses free (still
                             seen by the frontend, for the order) */
    int no_icache;        /* --no-icache (or --no-caches) */
    int l1i_given;        /* --l1i */
} tm_timing_opts;
/* Not given: the defaults (tm_timing_defaults), the model not chosen yet. */
void tm_timing_opts_init(tm_timing_opts *o);
/* Option NAME (--timing, --cpi, --l1i, --l1, --l2, --mem-latency,
 * --timing-window, --timing-turn, --timing-drift; the flags --no-icache, --no-caches with V unused) with
 * its value V: TM_OK, or TM_ERR_ARG with the message ("--cpi 0: allowed
 * ..."). */
int tm_timing_opt(tm_timing_opts *o, const char *name, const char *v, char *err, size_t errlen);
/* After the options: decides the model if --timing was not given (cores;
 * serial with MODE, tm record --mode, unless a cores option was given) and
 * checks them together; TM_OK, or TM_ERR_ARG with the message (a cores
 * option with serial, --l1i with --no-icache, a model out of range). */
int tm_timing_opts_check(tm_timing_opts *o, int mode, char *err, size_t errlen);
/* The machine the frontend times the accesses on (tm/tfront.h) for CFG on
 * CORES cores: its caches cost (NO_CACHES: none; no instruction cache when
 * CFG has none), loads follow the stores they read, and with VALUES (the
 * memory operands' values captured) stores follow the loads of what they
 * overwrite. */
void tm_timing_frontend(const tm_timing_cfg *cfg, uint32_t cores, int no_caches, int values, tmf_cfg *m);

#ifdef __cplusplus
}
#endif
#endif
