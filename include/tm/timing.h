/* tm — the timing model of recorded programs (docs/capture.md §3).
 *
 * A frontend runs the program's threads one at a time (Valgrind serializes
 * them); the capture layer cuts what each thread retires into groups
 * (docs/spec.md §2.3) in that serial order.  This stage puts each thread on
 * a core of its own with its own clock, gives every group the cycle its
 * core retires it in, and hands the groups on merged in (cycle, thread)
 * order, so that several cores retire in the same cycle.
 *
 *   clock: a thread's core retires a group of n instructions n x CPI cycles
 *          after the previous one (at least one cycle later), plus, for a
 *          memory operand (a MEM record, or an access given by
 *          tm_timing_access), the latency of the level that serves it: a
 *          private L1 data cache per core, a shared L2, memory; plus, for
 *          each line of the group's instructions that misses the core's
 *          instruction cache, the L2's latency (and memory's if it misses).
 *   order: memory operands (MEM records) of different threads on one
 *          64-byte line keep their serial order where one of them is a
 *          store (the data tracing's replay depends on it; accesses given
 *          by tm_timing_access do not); a thread starts no earlier than
 *          its creator's clock; a group is never stamped before what has
 *          been handed on already (such a group is "clamped").
 *   memory: groups wait in per-thread queues until no thread can still
 *          retire earlier; at most WINDOW groups wait, beyond that the
 *          oldest are handed on and late threads are clamped.
 *
 * Calls on a handle report errors through the sink (a nonzero return of
 * the downstream sink stops) and return a tm_status. */
#ifndef TM_TIMING_H
#define TM_TIMING_H

#include <stddef.h>
#include <stdint.h>
#include "tm/status.h"
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One cache level: SIZE bytes, WAYS-way set associative, LINE-byte lines,
 * LAT cycles for an access it serves. */
typedef struct tm_timing_cache {
    uint32_t size, ways, lat;
} tm_timing_cache;

typedef struct tm_timing_cfg {
    uint32_t cpi_milli;   /* base cycles per instruction x 1000 (1..1000000) */
    uint32_t line;        /* cache line bytes (power of two, 8..4096) */
    tm_timing_cache l1i;  /* instruction cache per core; size 0: none (fetch
                             is free); lat: what a hit adds (0: pipelined) */
    tm_timing_cache l1;   /* data cache per core */
    tm_timing_cache l2;   /* shared; size 0: cores x 64 KB */
    uint32_t mem_lat;     /* cycles of an access that misses both */
    uint64_t window;      /* groups held at most */
} tm_timing_cfg;

/* The defaults (docs/capture.md §3): CPI 1, 64-byte lines, an instruction
 * cache of 8 KB 2-way whose hits add 0 cycles, L1 data 8 KB 2-way 2
 * cycles, L2 (unified) cores x 64 KB 8-way 4 cycles, memory 200 cycles, a
 * window of 4M groups. */
void tm_timing_defaults(tm_timing_cfg *cfg);
/* Checks CFG: TM_OK, or TM_ERR_ARG with one line in ERR. */
int tm_timing_check(const tm_timing_cfg *cfg, char *err, size_t errlen);

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
/* Thread TID enters (LEAVE 0) or leaves (LEAVE 1) a system call.  While
 * in one it holds no group back; if other threads retired groups
 * meanwhile (it blocked), it resumes no earlier than the clock of the
 * last of them (its likely waker). */
int tm_timing_syscall(tm_timing *t, uint32_t tid, int leave);
/* A data access of thread TID that is not in the commit stream (its
 * address only: tm record's control-flow recordings): SIZE bytes at ADDR,
 * a STORE or a load.  Its latency (L1, L2, memory, as a MEM record's) is
 * charged to the thread's next group to be stamped (its open group, or the
 * next one); a store makes the other cores' copies of its line stale.  It
 * imposes no order between threads.  TM_OK, or TM_ERR_ARG (TID beyond the
 * cores), TM_ERR_NOMEM. */
int tm_timing_access(tm_timing *t, uint32_t tid, uint64_t addr, uint32_t size, int store);
/* N accesses of thread TID as tm_timing_access, given as the capture's
 * ADDR words (tm/capwire.h: store << 8, address << 16; the size does not
 * matter, an operand's first line is charged): the same results as N calls,
 * faster (the capture layer's runs of ADDR events). */
int tm_timing_access_words(tm_timing *t, uint32_t tid, const uint64_t *w, size_t n);
/* Everything held is handed on. */
int tm_timing_finish(tm_timing *t);

typedef struct tm_timing_stats {
    uint64_t groups, cycles;       /* groups handed on; last cycle + 1 */
    uint64_t held_max;             /* most groups held at once */
    uint64_t clamped;              /* groups stamped later than their clock */
    uint64_t ordered;              /* groups delayed by a line's serial order */
    uint64_t blocked;              /* system calls during which other threads ran */
    uint64_t l1_hits, l1_misses, l2_hits, l2_misses; /* L2: the data's and instructions' misses */
    uint64_t il1_hits, il1_misses; /* instruction cache: lines fetched */
    uint64_t accesses;             /* tm_timing_access calls */
    uint32_t l2_size;              /* the L2's bytes (cores x 64 KB by default) */
} tm_timing_stats;
void tm_timing_get_stats(const tm_timing *t, tm_timing_stats *s);
/* Thread TID's last stamped cycle + 1 (0 if it retired nothing) and the
 * instructions it retired. */
void tm_timing_thread(const tm_timing *t, uint32_t tid, uint64_t *cycles, uint64_t *insns);
void tm_timing_free(tm_timing *t);

/* ---- tm record's timing options (capture/timingopt.c) ---- */

/* The timing model as the options give it. */
typedef struct tm_timing_opts {
    int serial;           /* --timing serial (-1 until tm_timing_opts_check: not given) */
    tm_timing_cfg cfg;    /* --timing cores with --cpi, --l1i, --l1, --l2, --mem-latency, --timing-window */
    int set;              /* a cores-only option was given */
    int no_caches;        /* --no-caches: no instruction cache, no data addresses captured */
    int no_icache;        /* --no-icache (or --no-caches) */
    int l1i_given;        /* --l1i */
} tm_timing_opts;
/* Not given: the defaults (tm_timing_defaults), the model not chosen yet. */
void tm_timing_opts_init(tm_timing_opts *o);
/* Option NAME (--timing, --cpi, --l1i, --l1, --l2, --mem-latency,
 * --timing-window; the flags --no-icache, --no-caches with V unused) with
 * its value V: TM_OK, or TM_ERR_ARG with the message ("--cpi 0: allowed
 * ..."). */
int tm_timing_opt(tm_timing_opts *o, const char *name, const char *v, char *err, size_t errlen);
/* After the options: decides the model if --timing was not given (cores;
 * serial with MODE, tm record --mode, unless a cores option was given) and
 * checks them together; TM_OK, or TM_ERR_ARG with the message (a cores
 * option with serial, --l1i with --no-icache, a model out of range). */
int tm_timing_opts_check(tm_timing_opts *o, int mode, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
