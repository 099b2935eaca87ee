/* tm — the capture layer (tm/capture.h, docs/capture.md): what its files
 * share.  capture.c reads the stream (the events' lengths, blocks, threads'
 * creation and signals, the input calls); capgroup.c turns blocks run into
 * the commit stream's groups (the window, START and EXIT, the memory
 * operands) and hands them to the timing model; captime.c is the timing
 * model's side of the stream (the threads' uids and blocks, DEP, STALL,
 * futex calls, the frontend's machine and counts); capimage.c keeps the
 * memory image the loads are checked against and the modules mapped. */
#ifndef TM_CAPTURE_INT_H
#define TM_CAPTURE_INT_H

#include <stdint.h>
#include "tm/bytemap.h"
#include "tm/capture.h"
#include "tm/capwire.h"
#include "tm/tfront.h"

typedef struct xit {
    uint8_t kind, dyn;
    uint16_t insn;
    uint8_t passes;     /* a conditional side exit before it is passed through */
    uint8_t blen;       /* length of instruction insn */
    uint32_t nrun;      /* instructions before the branch (or retired, without one) */
    uint32_t boff;      /* offset of instruction insn in the block */
    uint64_t target;
} xit;

typedef struct block {
    uint64_t addr;
    uint32_t ninsn, nexit;
    size_t ioff;   /* into c->ilen / c->ioffs */
    size_t xoff;   /* into c->xits */
} block;

typedef struct pmem {
    uint16_t insn;
    uint8_t store, size;
    uint32_t stall;    /* the access's cycles (the timing model's frontend) */
    uint64_t addr;
    uint64_t v[TMC_MAX_OPERAND / 8]; /* the value's words (ceil(size / 8) of them) */
} pmem;

enum { T_NONE = 0, T_NEW, T_RUN, T_DONE };
#define CAP_SYS_INSN 0xffffu /* a MEM written by the system, not an instruction */

typedef struct cthread {
    uint8_t state;
    int32_t id;          /* tmc thread id, -1 until it runs */
    uint64_t expect;     /* pc of its next instruction */
    uint8_t tr;          /* trace: 0 not started, 1 on, 2 ended */
    uint8_t ran;         /* it retired instructions before its START */
    int exc;             /* an exception is pending: the next block is its target */
    uint64_t birth;      /* timing: its creator's clock when it was created */
    uint32_t handlers;   /* signal handlers entered (SIGNAL) and not yet returned (SIGRET) */
    uint8_t insys;       /* inside a system call (SYSCALL entered, not yet left) */
    uint8_t born;        /* created, its start not yet given to the timing model */
    uint16_t sysno;      /* the number of the system call it is in */
    uint32_t uid;        /* + 1: the frontend's number of the thread (0: none yet) */
    uint64_t ctid;       /* its CLEARTID word (CTID), 0 if none */
    /* for the timing model's next group of the thread: stall cycles and a
     * floor (DEP, STALL), kept until the thread has an id */
    uint64_t psif, psdata, pfloor;
    int pkind;
    pmem *mem;           /* memory operands of the block being run */
    size_t nmem, capmem;
} cthread;

/* Per thread uid: the cycle of each of its blocks' last group (the DEP
 * events name them), the last RING_MAX blocks kept. */
#define RING_MAX (1u << 20)
typedef struct uthr {
    uint64_t *ring;
    uint64_t cap, k;     /* ring entries, blocks done */
    int64_t core;        /* its tmc thread id + 1 (0: never traced) */
} uthr;

/* The memory image (img_*): 32 MB of the program's memory known (a table
 * of at most 2^20 blocks of 88 bytes, 92 MB), then it starts over. */
#define IMG_MAX_BLOCKS (1u << 19)

struct tm_cap {
    tm_cap_cfg cfg;
    tm_timing_cfg tcfg;
    tm_timing *tim;      /* the timing model, NULL = serial */
    tm_cap_sink sink;
    tm_cap_info info;
    char err[256];
    int failed;
    /* input reassembly */
    uint64_t *w;
    size_t nw, capw;
    uint8_t part[8];
    unsigned npart;
    int have_magic;
    uint64_t off;        /* byte offset of w[0] in the stream */
    uint64_t exec_end;   /* offset just after the last EXECVE event */
    uint64_t end_off;    /* offset of the END event (c->info.ended) */
    /* blocks */
    block *blocks;       /* index = id */
    size_t nblocks, bcap;
    uint32_t *ioffs;     /* per insn: offset from the block's address */
    uint8_t *ilen;
    size_t ni, capi;
    xit *xits;
    size_t nx, capx;
    /* addr -> latest block id (open addressing) */
    uint64_t *hkey, *hval;
    size_t hcap, hn;
    /* threads (capture ids) */
    cthread *th;
    size_t nth;
    uint32_t cur;        /* capture thread running */
    uint32_t next_id;
    /* groups */
    uint64_t cycle;      /* cycle of the open group */
    int open, open_mem;
    uint32_t open_tid;
    /* record templates, one per type (fields of other types stay 0) */
    tmc_record rrun, rbr, rmem, rev;
    unsigned rmem_nw;    /* words of rmem.value that may be nonzero */
    /* the tracing window (docs/capture.md §5) */
    int on;              /* 0 not yet, 1 tracing, 2 stopped */
    uint64_t seen, traced;
    struct { uint64_t lo, hi; } *fr; /* filter ranges [lo, hi) */
    size_t nf, fcap;
    int have_main;
    char *main_path;
    /* modules seen (path + base) */
    struct { char *path; uint64_t base; } *mods;
    size_t nmods, modcap;
    tm_bytemap img;      /* the memory image (img_access) */
    /* the timing model's frontend half (TIMING, TSTATS) and the threads' uids */
    int has_timing, has_tstats;
    tmf_cfg fm;
    tmf_stats fst;
    tmf_thread_stats *fth;
    size_t nfth;
    uthr *ut;
    size_t nut, capu;
    uint32_t next_uid;
};

/* capture.c */
int tm_capi_fail(tm_cap *c, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* capgroup.c */
const char *tm_capi_timing_why(int rc);
cthread *tm_capi_thread_of_slow(tm_cap *c, uint64_t tid);
int tm_capi_run_block(tm_cap *c, cthread *t, const block *b, uint32_t e, int partial, uint32_t end, uint64_t dyn);
int tm_capi_flush_pending(tm_cap *c, cthread *t);
int tm_capi_end_thread(tm_cap *c, cthread *t);
int tm_capi_resolve_exc(tm_cap *c, cthread *t, uint64_t target);
long tm_capi_ev_exec(tm_cap *c, const uint64_t *w, size_t n, size_t len, uint64_t id, uint32_t e, uint64_t data,
                     uint64_t ifetch);
long tm_capi_ev_mem(tm_cap *c, const uint64_t *w, size_t len);

/* captime.c */
uthr *tm_capi_uthr_of(tm_cap *c, uint32_t uid);
int64_t tm_capi_thread_uid(tm_cap *c, cthread *t);
long tm_capi_ev_syscall(tm_cap *c, const uint64_t *w, size_t len);
long tm_capi_ev_wait(tm_cap *c, const uint64_t *w, size_t len);
long tm_capi_ev_timing(tm_cap *c, const uint64_t *w, size_t len);
long tm_capi_ev_tstats(tm_cap *c, const uint64_t *w, size_t len);

/* capimage.c */
int tm_capi_img_access(tm_cap *c, uint32_t tid, const pmem *m, int novalue, uint64_t off);
long tm_capi_ev_map(tm_cap *c, const uint64_t *w, size_t len);
long tm_capi_ev_vdso(tm_cap *c, const uint64_t *w, size_t len);

/* Capture thread TID's record (made if new); NULL beyond 2^20. */
static inline cthread *thread_of(tm_cap *c, uint64_t tid)
{
    return tid < c->nth ? &c->th[tid] : tm_capi_thread_of_slow(c, tid);
}
#endif
