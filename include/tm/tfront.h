/* tm — the timing model's frontend half (docs/capture.md §3): what the
 * program's memory operands and instruction fetches cost, and which
 * other thread's store (or, with values captured, load) each access must
 * follow, computed where the accesses are seen — inside the frontend
 * (the Valgrind tool, the QEMU plugin, the Pin tool), in the serial order
 * the frontend runs the program's threads — so that no address crosses
 * the wire.  The clocks are the other half's (tm/timing.h, in tm record):
 * this half knows no cycle, only
 *   - each block run's stall beyond its base CPI: the instruction fetch
 *     (private L1I, shared L2, memory) and the data accesses (private L1D,
 *     the L2, memory), as numbers of cycles;
 *   - dependencies: "the running thread's block comes after block K of
 *     thread UID", where thread UID's store wrote bytes a load of the
 *     running thread read (byte granularity: false sharing orders
 *     nothing), or, with values captured, thread UID's load read (or its
 *     store wrote) bytes a store of the running thread overwrites (the
 *     replay of load values needs all three), or thread UID's end cleared
 *     a word (CLEARTID) that the running thread read.
 * Threads are numbered UID by the caller (the emitter: in the order they
 * appear, tm/capwire.h's CREATE).  Their blocks are numbered from 0 per
 * thread, in the order they complete (tmf_exec), and a thread's end is
 * one block more.
 *
 * Freestanding C, no includes, no library calls (the Valgrind tool is
 * linked without libc): memory comes from the caller's allocator and is
 * never freed. */
#ifndef TM_TFRONT_H
#define TM_TFRONT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long long tmf_word;

/* One cache: SIZE bytes (0: none), WAYS-way set associative, LAT cycles
 * for an access it serves. */
typedef struct tmf_cache {
    unsigned size, ways, lat;
} tmf_cache;

/* flags */
enum {
    TMF_ICACHE = 1, /* instruction fetch costs (L1I, L2, memory) */
    TMF_DCACHE = 2, /* data accesses cost (L1D, L2, memory) */
    TMF_ORDER = 4,  /* loads follow the foreign stores they read */
    TMF_WAR = 8,    /* stores follow the foreign loads and stores of what they overwrite */
    TMF_SYNC = 16   /* a thread's atomic instruction waits until no running thread is
                       behind it in time (tmf_behind; frontends that can) */
};

typedef struct tmf_cfg {
    unsigned line;          /* cache line bytes: 64 (the shadow keeps 64-byte lines) */
    tmf_cache l1i, l1, l2;  /* l2 is needed when either cost is on */
    unsigned mem_lat;
    unsigned flags;         /* TMF_* */
    unsigned turn;          /* TMF_SYNC: cycles a running thread may be behind a
                               thread at an atomic instruction before that one waits
                               for it (tmf_behind's slack) */
    unsigned drift;         /* cycles a thread may run ahead of the least running
                               thread before the frontend lets the others run
                               (tmf_ahead; 0: never) */
} tmf_cfg;

/* The machine as a frontend's option carries it (its own text, no commas,
 * no '='): "LINE/L1I/L1/L2/MEM/FLAGS/TURN/DRIFT", each cache SIZE:WAYS:LAT,
 * FLAGS in decimal (e.g. "64/8192:2:0/8192:2:2/524288:8:4/200/23/2000/1000000").
 * Parse: 1 if S is such a text and the values are in range
 * (tmf_cfg_check), else 0. */
int tmf_cfg_parse(const char *s, tmf_cfg *cfg);
/* The text of CFG into BUF (N bytes, at least 112): its length, 0 if short. */
unsigned tmf_cfg_format(const tmf_cfg *cfg, char *buf, unsigned n);
/* 1 if CFG's values are in range: line 64, each cache
 * on (size > 0) a power of two with power-of-two ways (1..64) that fit it,
 * latencies up to 100000, the L2 present when a cost flag is on. */
int tmf_cfg_check(const tmf_cfg *cfg);

/* Dependency kinds (the DEP event, tm/capwire.h). */
enum { TMF_DEP_STORE = 0, TMF_DEP_LOAD = 1, TMF_DEP_END = 2 };

typedef struct tmf tmf;
typedef void *(*tmf_alloc_fn)(void *ctx, unsigned long n);
/* A dependency of the running thread's block in progress: kind TMF_DEP_*,
 * thread UID, its block K. */
typedef void (*tmf_dep_fn)(void *ctx, unsigned kind, unsigned uid, tmf_word k);

/* Thread ids the frontend may use: 0 .. TMF_MAX_TIDS - 1 (reused ones are
 * new threads after tmf_thread_new). */
#define TMF_MAX_TIDS 1024u

/* A machine of CFG (tmf_cfg_check), its memory from ALLOC; DEP receives
 * the dependencies.  NULL without memory. */
tmf *tmf_new(const tmf_cfg *cfg, tmf_alloc_fn alloc, void *actx, tmf_dep_fn dep, void *dctx);
const tmf_cfg *tmf_config(const tmf *f);

/* Thread TID is a new thread numbered UID (its core's caches empty),
 * created by thread PARENT (TMF_MAX_TIDS or more: none); a thread's
 * accesses and blocks count only after this. */
void tmf_thread_new(tmf *f, unsigned tid, unsigned uid, unsigned parent);
/* Thread TID ends; the system zeroes its CLEARTID word CTID (0: none) at
 * its end, which counts as a store of its end block. */
void tmf_thread_end(tmf *f, unsigned tid, tmf_word ctid);

/* Block ID's shape before it runs: its first instruction at LO and, per
 * exit j of NX, the end of the bytes retired when it leaves through it
 * (ENDS[j]; LO itself when nothing retires) and the instructions it
 * retires (NRET[j]). */
void tmf_block(tmf *f, tmf_word id, tmf_word lo, const tmf_word *ends, const unsigned *nret, unsigned nx);
/* Thread TID ran block ID and left through exit X: the fetch of the
 * retired bytes (a line is fetched when the core's instructions enter it);
 * *DATA and *IFETCH get the block run's data and fetch stall (cycles) and
 * the thread's next block begins. */
void tmf_exec(tmf *f, unsigned tid, tmf_word id, unsigned x, tmf_word *data, tmf_word *ifetch);
/* A memory operand of TID's block in progress: SIZE bytes (1..64) at A, a
 * STORE or a load.  Its cost (the first line's level) is added to the
 * block's data stall, and returned; dependencies go to the callback.  SYS:
 * a write by the system (a system call's output): ordered, not timed. */
unsigned tmf_access(tmf *f, unsigned tid, tmf_word a, unsigned size, int store, int sys);
/* The data stall TID's block in progress has gathered so far, taken (the
 * values-mode MEM events carry their own). */
tmf_word tmf_take_data(tmf *f, unsigned tid);

/* Turns of time: each thread's clock as this half can estimate it (its
 * instructions at one cycle each, its stalls, and no earlier than the
 * blocks it depends on and the wakes that released it; a new thread
 * starts at its creator's).  1 if TID's estimate is more than BY cycles
 * ahead of the least of the other running threads' (checked every 32
 * blocks): a frontend that can makes it yield, so that the serial order
 * in which it runs the threads follows their time (docs/capture.md §3). */
int tmf_ahead(tmf *f, unsigned tid, tmf_word by);
/* Thread TID enters (IN 1) or leaves (IN 0) a system call: it is not
 * running meanwhile, and comes back at its own estimate. */
void tmf_thread_sys(tmf *f, unsigned tid, int in);
/* Synchronization in time order (TMF_SYNC): 0 if thread TID may go on to
 * an atomic instruction (a lock's, a condition variable's, an atomic
 * counter's) -- no other running thread's estimate is more than SLACK
 * cycles behind its own -- else that thread's id + 1, the furthest behind:
 * the frontend lets the others run first, so that the threads' atomic
 * operations, and the locks and queues built on them, happen in the order
 * of their time, not of the frontend's schedule. */
unsigned tmf_behind(tmf *f, unsigned tid, tmf_word slack);
/* Thread TID does not run for now (it was waited for in vain: blocked
 * where the frontend does not see it); running again at its next block. */
void tmf_thread_idle(tmf *f, unsigned tid);
/* Thread TID's estimate now. */
tmf_word tmf_estimate(tmf *f, unsigned tid);
/* A futex wake (or a thread's end, for a join) at estimate AT released
 * thread TID from its wait: TID counts as running again, no earlier than
 * AT, though the frontend may not have run it yet. */
void tmf_thread_wake(tmf *f, unsigned tid, tmf_word at);

typedef struct tmf_stats {
    tmf_word il1_hits, il1_misses, l1_hits, l1_misses, l2_hits, l2_misses;
    tmf_word deps[3];           /* sent, per kind */
    tmf_word split;             /* granules written in parts by several threads */
    tmf_word readers_overflow;  /* granules read by more threads than kept (TMF_WAR) */
} tmf_stats;
void tmf_get_stats(const tmf *f, tmf_stats *s);
/* Per thread UID (< tmf_threads: the greatest uid + 1): its stall cycles
 * by cause. */
typedef struct tmf_thread_stats {
    tmf_word ifetch, data_l1, data_l2, data_mem;
    tmf_word blocks; /* its blocks (a thread's end and a write by the system count one) */
} tmf_thread_stats;
unsigned tmf_threads(const tmf *f);
void tmf_get_thread(const tmf *f, unsigned uid, tmf_thread_stats *s);

#ifdef __cplusplus
}
#endif
#endif
