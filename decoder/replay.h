/* tm — the debugger's message consumption (docs/spec.md §6), shared by both
 * replays: tm_verify (decoder/verify.c: the commit stream plays the
 * instruction-set simulator) and tm_frombin (decoder/frombin.c: the program
 * binaries do).  One source of truth for: splitting the trace into per-thread
 * message queues, the predictor copies and the Fig. 6 decision at a branch,
 * exceptions, time stamps, losses and resynchronization, and load values.
 * Internal to the decoder library. */
#ifndef TM_DECODER_REPLAY_H
#define TM_DECODER_REPLAY_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include "tm/bytemap.h"
#include <stdio.h>
#include "tm/decoder.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/tmc.h"
#include "../cmodel/pred_int.h"

enum { D_WAIT = 0, D_ACTIVE, D_TAIL, D_GAP, D_DONE };

typedef struct rp_qent {
    tm_msg m;
    uint64_t pos;
    uint64_t lidx;     /* DATA: index of the reported load among the thread's */
} rp_qent;

typedef struct rp_msgq {
    rp_qent *v;
    size_t head, len, cap; /* ring buffer */
} rp_msgq;

/* The replay's copy of the bytes a thread loaded or stored since its last
 * gap (spec §6 step 7): a tm/bytemap.h map. */
typedef tm_bytemap rp_kmap;

typedef struct rp_thread {
    int mode;          /* D_* */
    int have;          /* m is the thread's pending message */
    tm_msg m;
    uint64_t m_pos;    /* bit offset of m in the trace */
    uint64_t icnt, bcnt, pta, pcc;
    uint64_t tail_left, gap_left;
    int gap_started;
    uint64_t npc;
    uint64_t index;    /* instructions retired by the thread so far */
    uint64_t last_cycle;
    tm_pred *pred;
    rp_msgq q;
    /* data tracing */
    rp_msgq dq;        /* parsed DATA messages, in order */
    uint64_t lcount;   /* loads retired so far (in and out of gaps) */
    rp_kmap known;
    uint64_t g_cycle;  /* cycle of the last instruction record replayed */
    int g_valid;
    int rec_gap;       /* that record was inside a gap */
} rp_thread;

/* Where each thread's messages start in the trace, found by an earlier
 * splitting pass (tm_frombin's outputs split the trace once per thread):
 * every message that starts before FRONTIER decoded without error and is
 * listed under its thread, in trace order.  A later pass for one thread
 * decodes just that thread's messages at their positions, and parses on
 * from FRONTIER as before.  Without data tracing only (a DATA message's
 * length depends on the loads split before it). */
typedef struct rp_index {
    uint32_t n;            /* threads */
    struct rp_index_th {
        uint32_t *delta;   /* each message's start minus the thread's previous one's (the first: minus 0) */
        size_t len, cap;
        uint64_t last;     /* start of the last one listed */
    } *th;
    uint64_t frontier;
    size_t total;          /* entries of every thread: at most RP_INDEX_MAX */
    tm_adapt *adapt;       /* tr_a: every thread's code state at FRONTIER */
} rp_index;
#define RP_INDEX_MAX ((size_t)1 << 28)

int rp_index_init(rp_index *x, uint32_t threads);
void rp_index_free(rp_index *x);

typedef struct rp_state {
    tm_enc_cfg enc;
    int nx, ts, shared;
    uint64_t ts_mask;      /* time stamps are modulo 2^ts_bits */
    uint32_t n;
    rp_thread *th;
    tm_pred *shared_pred;
    tm_bitrd rd;
    tm_adapt *adapt;       /* tr_a: every thread's code state at rd.pos (spec §4.9) */
    tm_adapt *idx_adapt;   /* tr_a: the state of ONLY's messages taken from the index */
    uint64_t last_cycle;
    tm_verify_result *res;
    char *err;             /* the caller's message buffer (never NULL) */
    size_t errlen;
    int data;              /* tm_data_mode */
    tm_load_sizes *ls;     /* data: sizes of the loads, read ahead */
    /* Splitting: -1 queues every thread's messages; a thread id keeps only
     * that thread's (the others are parsed and dropped). */
    int only;
    /* Recovery (tm_frombin without --verify): a message that cannot be
     * decoded is reported through ON_BAD, and parsing resumes at the next
     * bit position where a SYNC message decodes (FIND_SYNC). */
    int recover;
    void (*on_bad)(void *arg, uint64_t pos, const char *what);
    int (*sync_ok)(void *arg, const tm_msg *m); /* plausibility of a SYNC found by scanning */
    void *cb_arg;
    uint64_t resyncs;      /* recoveries in the bit stream */
    int drop_data;         /* DATA messages are split off and dropped (outputs) */
    rp_index *idx;         /* with ONLY >= 0 and no data tracing: shared across passes (or NULL) */
    size_t idx_next;       /* next entry of idx->th[only] */
    uint64_t idx_pos;      /* the start of the entry before it (0 at the first) */
} rp_state;

/* Sets up V for trace TF (predictor copies, queues).  TM_OK or an error
 * (in res->error).  LOAD_SIZES_TMC: the commit stream to read load sizes
 * from (NULL without data tracing). */
int rp_init(rp_state *v, const tmt_file *tf, tm_verify_result *res, char *err, size_t errlen,
            const char *load_sizes_tmc);
void rp_free(rp_state *v);

/* The caller's message buffer ERR (*ERRLEN bytes), or OWN (OWNLEN) when it
 * gave none; emptied. */
char *rp_errbuf(char *err, size_t *errlen, char *own, size_t ownlen);
int rp_fail(rp_state *v, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *rp_kind_name(const tm_msg *m);
/* After a divergence RC (TM_ERR_MISMATCH) found while reading RD: reads the
 * rest of the commit stream; if it is damaged (a zstd checksum, a broken
 * record), that is the error to report (its status, the message in
 * v->res->error), not the divergence.  Else RC. */
int rp_blame_tmc(rp_state *v, tmc_reader *rd, int rc);
static inline tm_pred *rp_pred_of(rp_state *v, uint32_t t)
{
    return v->shared ? v->shared_pred : v->th[t].pred;
}

/* Makes thread T's next message pending (TM_OK), or fails (the trace holds
 * no further message for T, or cannot be decoded). */
int rp_fetch(rp_state *v, uint32_t t);
/* As rp_fetch, but returns 0 (not an error) when the trace ends without
 * another message for T; 1 when one is pending. */
int rp_fetch_opt(rp_state *v, uint32_t t);
int rp_is_lost(const tm_msg *m);
/* Applies the time stamp of the pending message (spec §6 step 4): the event
 * happened in cycle EXPECT if KNOWN, else not before NOT_BEFORE. */
int rp_check_cc(rp_state *v, uint32_t t, int known, uint64_t expect, uint64_t not_before);
/* The pending message has been reached: reset the counters. */
void rp_consume(rp_thread *d);
/* After fetching, a SYNC(OVERFLOW) or END(lost) starts the tail (or gap). */
void rp_enter_lost_if(rp_state *v, rp_thread *d);
/* The first instruction of a gap: the loss reset the predictors and the
 * thread's copy of loaded bytes. */
void rp_gap_begin(rp_state *v, rp_thread *d);

/* Fig. 6 at one branch of class CLS (tmc_bclass) at PC, LEN bytes long,
 * direct target DTARGET (cond, jump, call): the outcome (*TAKEN) and target
 * (*TARGET) from the predictor copies and the pending message, which the
 * predictors then learn.  Counts iCnt and bCnt.  *IS_MSG: the pending message
 * reports this branch (the caller consumes it after its own checks, with
 * rp_branch_done).  IN_TAIL: inside a loss's replayable tail no message is
 * reached.  On a contradiction returns TM_ERR_MISMATCH with WHY (N bytes)
 * saying what. */
int rp_branch(rp_state *v, uint32_t t, unsigned cls, uint64_t pc, unsigned len, uint64_t dtarget, int in_tail,
              int *taken, uint64_t *target, int *is_msg, char *why, size_t n);
static inline int rp_branch_inline(rp_state *v, uint32_t t, unsigned cls, uint64_t pc, unsigned len,
                                   uint64_t dtarget, int in_tail, int *taken_out, uint64_t *target_out,
                                   int *is_msg_out, char *why, size_t n)
{
    rp_thread *d = &v->th[t];
    tm_pred *p = rp_pred_of(v, t);
    int is_msg = 0;
    int taken = 1;
    uint64_t target = dtarget;
    d->icnt++;
    int reported = cls == TMC_COND || cls == TMC_IJUMP || cls == TMC_ICALL || cls == TMC_RET;
    if (!v->nx) {
        if (reported) {
            d->bcnt++;
            is_msg = !in_tail && d->have && d->m.kind == TM_MSG_BRANCH && d->bcnt == d->m.cnt;
        }
        switch (cls) {
        case TMC_COND: {
            if (is_msg && d->m.t) {
                snprintf(why, n, "the message reports a target misprediction at a conditional branch");
                return TM_ERR_MISMATCH;
            }
            taken = pred_cond_follow(p, pc, is_msg);
            break;
        }
        case TMC_JUMP:
            break;
        case TMC_CALL:
            pred_ras_push(p, pc + len);
            break;
        default: {
            uint64_t pt = 0;
            int hit = cls == TMC_RET ? pred_ras_pop(p, &pt) : pred_ind_predict(p, pc, &pt);
            if (is_msg) {
                if (!d->m.t) {
                    snprintf(why, n, "the message reports an outcome misprediction at an indirect branch");
                    return TM_ERR_MISMATCH;
                }
                target = d->pta + (uint64_t)d->m.diff_ta;
                if (hit && pt == target) {
                    snprintf(why, n,
                             "the message reports a target misprediction, but the predictor predicts "
                             "the reported target 0x%" PRIx64, target);
                    return TM_ERR_MISMATCH;
                }
            } else {
                if (!hit) {
                    snprintf(why, n, "%s",
                             cls == TMC_RET ? "the RAS copy is empty but no message reports the return's target"
                                            : "the iBTB copy has no target but no message reports one");
                    return TM_ERR_MISMATCH;
                }
                target = pt;
            }
            if (cls != TMC_RET) {
                pred_ind_update(p, pc, target);
                if (cls == TMC_ICALL)
                    pred_ras_push(p, pc + len);
            }
            break;
        }
        }
    } else {
        is_msg = !in_tail && d->have && d->m.kind == TM_MSG_BRANCH && d->icnt == d->m.cnt;
        if (cls == TMC_COND) {
            if (is_msg && d->m.t) {
                snprintf(why, n, "the message carries a target for a conditional branch");
                return TM_ERR_MISMATCH;
            }
            taken = is_msg;
        } else if (reported) {
            if (!is_msg) {
                snprintf(why, n, "%s", in_tail ? "an indirect branch retired where the trace reports none"
                                               : "no message reports this indirect branch");
                return TM_ERR_MISMATCH;
            }
            if (!d->m.t) {
                snprintf(why, n, "the message for an indirect branch carries no target");
                return TM_ERR_MISMATCH;
            }
            target = d->pta + (uint64_t)d->m.diff_ta;
        } else if (is_msg) {
            snprintf(why, n, "the stream length of the message ends at a direct jump or call");
            return TM_ERR_MISMATCH;
        }
    }
    *taken_out = taken;
    *target_out = target;
    *is_msg_out = is_msg;
    return TM_OK;
}

/* A branch's message has been reached: PTA and consumption (the time stamp is
 * checked by the caller before). */
void rp_branch_done(rp_state *v, uint32_t t, unsigned cls, uint64_t target);

/* Load values (spec §6 step 7).  R is the thread's MEM record (address, size,
 * stored value; for a load the value to compare), IN_GAP whether its group is
 * inside an overflow gap.  PC_HINT names the place in messages. */
int rp_mem(rp_state *v, const tmc_record *r, int in_gap, uint64_t pc_hint);

#endif
