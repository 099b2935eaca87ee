/* tm — the timing model's clocks (tm/timing.h): what timing.c (the
 * clocks, the waits, the groups being collected) and merge.c (the
 * per-thread queues and the merge by cycle) share. */
#ifndef TM_TIMING_INT_H
#define TM_TIMING_INT_H

#include <stdint.h>
#include "tm/timing.h"

#define MILLI 1000u
#define MAX_GROUP 16u /* records of one group */
/* A record's words in a general entry, at most: a MEM of size 255 */
#define GEN_MAX_WORDS (3u + 32u)

/* A thread's queue: a list of chunks from a pool shared by the threads
 * (memory follows the groups held, not each thread's peak).  An entry, in
 * 64-bit words: the stamped cycle, a header word, then
 *   compact (header bit 63 clear; the group is RUN? MEM? event?): RUN pc,
 *     count | bytes << 32; MEM addr, pc, value words; event pc, target;
 *   general (bit 63 set, record count in the low bits): per record a header
 *     word (type, size, flags, bclass, taken, len) and its fields: RUN pc,
 *     count, bytes; MEM addr, pc, value words; START, EXIT, BRANCH, EXC pc,
 *     target, count;
 * or, for the usual group of a RUN and a branch (or a RUN alone), a short
 * entry: a word of bit 63 set, bit 62 the branch, the cycle's distance from
 * the previous entry's (30 bits), the RUN's count and bytes (16 bits each);
 * the RUN's pc; with the branch, its target (48 bits), class, taken and
 * length (the branch's pc is the RUN's end, its flags 0). */
#define CHUNK_WORDS 8190u
#define GENERAL ((uint64_t)1 << 63)
#define SHORT ((uint64_t)1 << 63)
#define SHORT_BR ((uint64_t)1 << 62)
/* (cycle, thread) as one word, ordered as the pair (threads < 1024) */
#define KEY(c, tid) ((uint64_t)(c) << 10 | (tid))
#define NOKEY UINT64_MAX
#define MAX_CYCLE ((uint64_t)1 << 53)
enum { P_RUN = 1, P_MEM = 2, P_EV = 4 };
#define MAX_WAKES 4096u /* wakes remembered (the oldest go) */

typedef struct chunk {
    struct chunk *next;
    uint32_t used;
    uint64_t w[CHUNK_WORDS];
} chunk;

typedef struct tqueue {
    chunk *head, *tail;
    uint32_t rd;         /* next word to read in head */
    uint64_t hc;         /* the head entry's cycle (groups > 0) */
    uint64_t tc;         /* the tail entry's cycle */
    uint64_t groups;     /* entries held */
} tqueue;

/* Where a core's time went, in 1/1000 cycles (tm_timing_core). */
typedef struct tspent {
    uint64_t busy, ifetch, data, wait[TM_WAIT_KINDS], clamped;
} tspent;

typedef struct tthread {
    uint64_t acc;        /* clock, 1/1000 cycles */
    uint64_t next;       /* the earliest cycle of its next group */
    uint64_t insns;
    uint64_t born;       /* its start: its creator's clock at the clone */
    int live;            /* started, not ended */
    int done;
    int waiting;         /* in a futex wait on waddr since wseq */
    uint64_t waddr, wseq;
    int woke;            /* in a futex call that posted wakes wk[0..woke-1] */
    uint64_t wk[2];
    uint64_t sif, sdata; /* stall cycles for its next group */
    uint64_t floor;      /* its next group comes no earlier (0: none) ... */
    int fkind;           /* ... for this reason */
    tspent sp;
    tqueue q;
} tthread;

/* A wake posted (futex wake, a thread's end): up to LEFT releases of
 * ADDR's waiters that began waiting before SEQ, at CYCLE. */
typedef struct twake {
    uint64_t id, addr, cycle, seq, left, used;
    int exit;            /* a thread's end (join) */
    int open;            /* its call has not returned (LEFT is the count asked) */
    int bcast;           /* it asked to release every waiter of ADDR there was: it
                            releases those that had not blocked yet too (they
                            return without waiting, EAGAIN) */
} twake;

/* The group being collected: RUN? MEM? event?, or general records. */
typedef struct pend {
    unsigned has;                       /* P_RUN | P_MEM | P_EV */
    uint64_t pc, count, bytes;          /* RUN */
    uint32_t mflags;                    /* MEM */
    uint8_t msize;
    uint64_t maddr, mpc;
    uint64_t mval[TMC_MAX_OPERAND / 8];
    tmc_type etype;                     /* event */
    uint32_t eflags;
    uint8_t ebclass, etaken, elen, esize;
    uint64_t epc, etarget, ecount;
} pend;

struct tm_timing {
    tm_timing_cfg cfg;
    tm_timing_sink sink;
    uint32_t nthreads;
    uint32_t ntop;        /* threads seen: ids < ntop */
    tthread *th;
    uint64_t *hkey;       /* per thread: KEY of its queue's head, or NOKEY */
    uint64_t *lkey;       /* per thread without a queue that may still retire: KEY of its next group */
    uint64_t bar;         /* the least key of the threads other than bar_tid ... */
    uint64_t bar_h;       /* ... and the least of their queues' heads ... */
    uint32_t bar_tid;
    int bar_ok;           /* ... while no other thread's keys changed */
    int need;             /* the last group closed may let a queue's head go */
    int kick;             /* a key rose outside a close (a birth gone, a wait over):
                             the next group closed drains */
    /* threads created and not started yet: their start cycles */
    uint64_t *births;
    size_t nbirths, capbirths;
    uint64_t birth_min;   /* the least of them (NOKEY: none) */
    /* the group being collected (serial order) */
    int open;
    uint32_t otid;
    uint64_t ocycle;
    pend p;               /* its records: RUN? MEM? event? */
    int gen;              /* ... or general: */
    unsigned nrec;        /* its records, in order, ... */
    size_t gn;            /* ... as the general entry's words (after its count word): */
    uint64_t gw[MAX_GROUP * GEN_MAX_WORDS];
    chunk *pool;          /* free chunks */
    /* emission */
    uint64_t last_cycle;  /* of the last group handed on */
    uint32_t last_tid;
    int emitted;
    uint64_t held;
    /* wakes posted */
    twake *wakes;
    size_t nwakes;
    uint64_t wake_ids, seq;
    tm_timing_stats st;
    int failed;
    tmc_record out[MAX_GROUP]; /* a general group being handed on (records) */
    tmc_record gev;              /* its event (groups): only the fields a general entry keeps are set */
    tmc_record rrun, rmem, rev;  /* a compact one's records */
    unsigned rmem_nw;            /* value words rmem had */
};

/* merge.c */
void tm_tq_rekey(tm_timing *t, uint32_t i);
uint64_t tm_tq_bar(tm_timing *t, uint32_t tid);
int tm_tq_may_go(tm_timing *t, uint32_t tid, int direct);
uint64_t *tm_tq_room(tm_timing *t, tqueue *q, size_t k);
void tm_tq_push(tm_timing *t, uint32_t tid, size_t k, uint64_t cycle);
int tm_tq_drain(tm_timing *t, int all);
void tm_tq_at_once(tm_timing *t, uint32_t tid, uint64_t c);
int tm_tq_at_once_keys(tm_timing *t, uint32_t tid);
int tm_tq_emit_pend(tm_timing *t, uint32_t tid, uint64_t c, const pend *p, const uint64_t *mval);
int tm_tq_emit_g(tm_timing *t, const tmc_group *g, uint64_t mpc);
const tmc_record *tm_tq_out_ev(tm_timing *t, uint32_t tid, uint64_t c, tmc_type type, uint32_t flags, uint8_t bclass,
                               uint8_t taken, uint8_t len, uint64_t pc, uint64_t target);
int tm_tq_stopped(tm_timing *t);
void tm_tq_free(tm_timing *t);
/* timing.c: a waiting thread's key (its earliest release), NOKEY if none */
uint64_t tm_tq_wait_key(const tm_timing *t, uint32_t i);

#endif
