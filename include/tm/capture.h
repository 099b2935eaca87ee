/* tm — capture layer: turns a frontend's capture stream (tm/capwire.h,
 * docs/capture.md) into the commit stream, one record at a time.
 *
 * The frontends (the Valgrind tool, the Pin tool, the QEMU plugin) only
 * report what ran: block descriptors, the exit each executed block took,
 * memory operands, thread and signal events, system calls, mappings, and
 * the timing model's stalls and dependencies.  This layer cuts the blocks
 * into groups, gives them to the timing model's clocks (tm/timing.h,
 * docs/capture.md §3: one clock per core; --timing serial: every group the
 * next cycle of one clock), assigns thread ids in order of first execution,
 * checks the control flow's continuity, and hands tmc records to a sink:
 * the model, a .tmc writer, or both. */
#ifndef TM_CAPTURE_H
#define TM_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include "tm/capwire.h"
#include "tm/status.h"
#include "tm/tfront.h"
#include "tm/timing.h"
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_cap tm_cap;

typedef struct tm_cap_cfg {
    uint32_t threads;  /* thread ids available (the trace module's cores) */
    /* The tracing window (docs/capture.md §5): tracing starts at the first
     * instruction after SKIP instructions (all threads, in retire order)
     * that passes the filter, and stops after LENGTH traced instructions
     * (0 = no limit) or at tm_cap_stop. */
    uint64_t skip, length;
    int main_only;     /* filter: the program's own code (no shared libraries) */
    const char *rtn;   /* filter: the function of this name (any module) */
    int slow;          /* tests: never take the fast paths (same output) */
    /* The timing model (tm/timing.h, docs/capture.md §3): NULL = serial
     * (every group the next global cycle, one thread at a time). */
    const tm_timing_cfg *timing;
    /* A store sent without its value (TMCAP_MEM_NOVALUE) is an error: the
     * consumers need every value (a commit stream, descriptors). */
    int need_values;
} tm_cap_cfg;

/* A module: an executable file mapping (load address = address of file
 * offset 0) or the vdso (path "[vdso]", bytes given). */
typedef struct tm_cap_module {
    uint64_t base;
    const char *path;
    const uint8_t *build_id;
    size_t build_id_len;
    const uint8_t *bytes;  /* vdso only */
    size_t len;            /* vdso: byte count */
} tm_cap_module;

typedef struct tm_cap_sink {
    /* Every commit-stream record, in (cycle, thread) order; nonzero stops.
     * MEM records also carry, in .pc (not part of the commit stream), the
     * address of the instruction they belong to (0: a write by the system,
     * e.g. a system call's output, docs/capture.md). */
    int (*record)(void *arg, const tmc_record *r);
    /* Every module, once, before the first record that runs in it. */
    int (*module)(void *arg, const tm_cap_module *m);
    void *arg;
    /* Optional: where the layer has a group whole (its fast paths), the
     * group at once instead of its records (tm/tmc.h; nonzero stops).  For
     * a consumer that needs no record on its own (the model:
     * tm_model_put_group); MEM records' .pc is not given this way. */
    int (*group)(void *arg, const tmc_group *g);
    /* Optional: the program's instruction set (TM_ISA_*, tm/isa.h), from
     * the stream's ISA event, before any record or module (nonzero stops).
     * Not called for a stream without one (x86-64). */
    int (*isa)(void *arg, int isa);
} tm_cap_sink;

/* How the capture ended. */
typedef struct tm_cap_info {
    int ended;            /* the frontend reported the program's end */
    int execd;            /* the stream ended right after an EXECVE event:
                             the program replaced itself (complete too) */
    int status;           /* its exit status, or with SIGNALED the signal that killed it */
    int signaled;         /* the END event says the program was killed by signal STATUS */
    uint64_t bytes;       /* capture bytes consumed */
    uint64_t blocks;      /* block descriptors */
    uint64_t execs;       /* executed blocks */
    uint64_t instructions;
    uint64_t mem;         /* memory operands */
    uint64_t signals;
    uint32_t threads;     /* thread ids used */
    uint64_t cycles;      /* last cycle + 1 (after tm_cap_finish with a timing model) */
    uint64_t skipped;     /* instructions before the window began */
    int isa;              /* the program's instruction set (TM_ISA_*, tm/isa.h):
                             the stream's ISA event, else x86-64 (0) */
    int untimed;          /* a timing model was asked for, but the stream has
                             no TIMING event (its frontend ran without a
                             machine): the groups were timed serially */
} tm_cap_info;

int tm_cap_new(const tm_cap_cfg *cfg, const tm_cap_sink *sink, tm_cap **out);
/* Consumes N bytes of the capture stream (any chunking). */
int tm_cap_feed(tm_cap *c, const void *data, size_t n);
/* The same without a copy: room for the next N bytes of the stream (NULL
 * if out of memory or after a failure), valid until the next call; read up
 * to N bytes into it, then tm_cap_commit with how many were read. */
void *tm_cap_input(tm_cap *c, size_t n);
int tm_cap_commit(tm_cap *c, size_t n);
/* End of the stream: threads still running exit.  A stream that ends
 * inside an event, or without the frontend's END, still ends every thread
 * cleanly (tm_cap_info.ended tells which). */
int tm_cap_finish(tm_cap *c);
void tm_cap_get_info(const tm_cap *c, tm_cap_info *info);
/* Stops tracing now (a size limit): every traced thread ends with
 * EXIT(TRACE_OFF); the program goes on untraced. */
int tm_cap_stop(tm_cap *c);
/* 1 if PC passes the filter (always, without one). */
int tm_cap_in_filter(const tm_cap *c, uint64_t pc);
/* The timing model's statistics (zeros when serial; complete after
 * tm_cap_finish). */
void tm_cap_timing_stats(const tm_cap *c, tm_timing_stats *s);
/* Thread (core) TID under the timing model: its last stamped cycle + 1 and
 * the instructions it retired (zeros when serial). */
void tm_cap_timing_thread(const tm_cap *c, uint32_t tid, uint64_t *cycles, uint64_t *insns);
/* Where core TID's cycles went (zeros when serial). */
void tm_cap_timing_core(const tm_cap *c, uint32_t tid, tm_timing_core *core);
/* The machine the frontend timed the accesses on (the stream's TIMING
 * event): 1 and *M, or 0 if the stream has none. */
int tm_cap_frontend(const tm_cap *c, tmf_cfg *m);
/* The frontend's counts (its TSTATS event, before END): 1 and *S, or 0 if
 * the stream has none (a capture cut short). */
int tm_cap_frontend_stats(const tm_cap *c, tmf_stats *s);
/* Core TID's stall cycles by cause as the frontend counted them (the
 * threads that ran on it: one per core), 1, or 0 if unknown. */
int tm_cap_frontend_core(const tm_cap *c, uint32_t tid, tmf_thread_stats *s);
/* The bytes of an unfinished event the stream fed so far ends with (0: it
 * ends where an event ends), and in *OFF the byte offset where that event
 * (or, before the magic is whole, the stream) begins.  tm_cap_finish
 * accepts such a stream (a frontend cut short); a reader of a complete
 * stream (a file) can refuse it. */
uint64_t tm_cap_unfinished(const tm_cap *c, uint64_t *off);
/* One line: what went wrong and at which byte offset of the capture. */
const char *tm_cap_error(const tm_cap *c);
void tm_cap_free(tm_cap *c);

#ifdef __cplusplus
}
#endif
#endif
