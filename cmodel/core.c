/* tm — one core of the trace module (docs/spec.md §3.2-§3.5, §3.8); mirrors
 * rtl/tm_core.sv.  Each cycle in which its thread retires a group the core
 * runs the group through its predictors (and the data cache), forms the
 * bundle it offers (a DATA message, a control message, or both), offers it
 * to the buffer in its arbitration slot, and updates its state from the
 * answer.  A LOST core offers its resynchronization instead. */
#include <stdio.h>
#include <string.h>
#include "model_int.h"

/* The bundle a core offers in one cycle (spec §3.6, §3.8): the DATA message
 * of its group's load if DM, then a control message if HAVE.  Fields a kind
 * does not use are 0. */
typedef struct bundle {
    int dm, have, resync;
    unsigned clen;      /* the control message's length when already known */
    tm_msg_kind kind;
    uint8_t t, reason, lost, dropped;
    uint64_t cnt, icnt, gap, addr;
    int64_t diff_ta;
} bundle;

/* The control message of B as a tm_msg (for the encoder of the rarer kinds
 * and for lengths): every field but the operand bytes, which only a DATA
 * message has (SIZE = 0), so no 150-byte clearing per message. */
static inline void bundle_msg(const bundle *b, uint32_t t, uint64_t dcc, tm_msg *msg)
{
    msg->kind = b->kind;
    msg->ti = t;
    msg->cnt = b->cnt;
    msg->t = b->t;
    msg->diff_ta = b->diff_ta;
    msg->icnt = b->icnt;
    msg->gap = b->gap;
    msg->addr = b->addr;
    msg->reason = b->reason;
    msg->lost = b->lost;
    msg->dropped = b->dropped;
    msg->diff_cc = dcc;
    msg->fah = 0;
    msg->size = 0;
}

/* The same, whole (the operand bytes 0 too): what the hook sees. */
static void bundle_msg_whole(const bundle *b, uint32_t t, uint64_t dcc, tm_msg *msg)
{
    memset(msg, 0, sizeof *msg);
    bundle_msg(b, t, dcc, msg);
}

/* The one offer path (spec §3.6 step 2, §3.8): the bundle's length from the
 * encoder, the buffer's answer, then the bits and the statistics.  Returns
 * 1 if accepted. */
static inline __attribute__((always_inline)) int core_offer(tm_model *m, uint32_t t, const bundle *b)
{
    core *th = &m->th[t];
    unsigned Ld = 0, L = 0;
    uint64_t dcc = 0;
    tm_msg cmsg;
    if (b->dm)
        Ld = tm_msg_lens_data(&m->lens, th->fah, m->g.mrec.size);
    if (b->have) {
        if (m->enc->timestamps)
            dcc = (m->cur - th->pcc) & m->ts_mask;
        if (b->kind == TM_MSG_BRANCH) {
            L = m->adaptive ? tm_msg_lens_branch_a(&m->lens, &m->adapt[t], b->cnt, b->t, b->diff_ta, dcc)
                            : tm_msg_lens_branch(&m->lens, b->cnt, b->t, b->diff_ta, dcc);
        } else {
            bundle_msg(b, t, dcc, &cmsg);
            L = b->clen ? b->clen : tm_msg_bits_a(m->enc, m->adapt, &cmsg);
        }
    }
    uint64_t Lb = (uint64_t)Ld + L;
    int ok = buffer_offer(&m->buf, Lb, b->resync, m->lost_count);
    if (__builtin_expect(m->hook != NULL, 0) && (ok || !b->resync)) {
        if (b->dm) {
            tm_msg dmsg;
            memset(&dmsg, 0, sizeof dmsg);
            dmsg.kind = TM_MSG_DATA;
            dmsg.ti = t;
            dmsg.fah = th->fah;
            dmsg.size = m->g.mrec.size;
            memcpy(dmsg.value, m->g.mrec.value, dmsg.size);
            m->hook(m->hook_arg, m->cur, t, &dmsg, Ld, ok);
        }
        if (b->have) {
            bundle_msg_whole(b, t, dcc, &cmsg);
            m->hook(m->hook_arg, m->cur, t, &cmsg, L, ok);
        }
    }
    if (!ok) {
        if (!b->resync) {
            th->st.dropped_messages += (unsigned)b->dm + (unsigned)b->have;
            th->st.dropped_bits += Lb;
            th->st.dropped_data += (unsigned)b->dm;
            m->cycle_drop = 1;
        }
        return 0;
    }
    if (b->dm) {
        tm_msg_encode_data(m->enc, t, th->fah, m->g.mrec.value, m->g.mrec.size, &m->buf.trace, &th->st.bits);
        th->st.messages[TM_MSG_DATA]++;
        th->st.data_bits += Ld;
    }
    if (b->have) {
        if (b->kind == TM_MSG_BRANCH)
            tm_msg_encode_branch_a(m->enc, m->adapt, t, b->cnt, b->t, b->diff_ta, dcc, &m->buf.trace,
                                   &th->st.bits);
        else
            tm_msg_encode_a(m->enc, m->adapt, &cmsg, &m->buf.trace, &th->st.bits);
        if (m->adaptive) /* the accepted message moves the thread's code (§4.9) */
            tm_adapt_fold(&m->adapt[t], b->kind, b->cnt, b->t, dcc, m->enc->timestamps);
        th->st.messages[b->kind]++;
        if (b->kind == TM_MSG_SYNC)
            th->st.sync_reasons[b->reason]++;
    }
    th->st.bits_total += Lb;
    return 1;
}

/* Bookkeeping of an accepted control message (spec §3.4 step 4). */
static void accepted(tm_model *m, uint32_t t, const bundle *b, uint64_t target)
{
    core *th = &m->th[t];
    th->icnt = th->bcnt = 0;
    th->pcc = m->cur;
    if ((b->kind == TM_MSG_BRANCH && b->t) || b->kind == TM_MSG_EXC || b->kind == TM_MSG_SYNC)
        th->pta = target;
    if (b->kind == TM_MSG_SYNC && b->reason == TM_SYNC_OVERFLOW && m->data == TM_DATA_CFIAT) {
        th->clear_flags = 1;
        m->any_clear = 1;
    }
    if (b->kind == TM_MSG_END) {
        if (th->state == ST_LOST)
            m->lost_count--;
        th->state = ST_DONE;
        m->live_count--;
    } else if (th->state == ST_LOST) {
        th->state = ST_RUN;
        m->lost_count--;
    }
    rs_floor_drop(m); /* (a LOST core's left: the floor holds, but may be loose) */
}

/* Core T becomes LOST in the current cycle (spec §3.5). */
static void make_lost(tm_model *m, uint32_t t, uint64_t tail, uint64_t gap, int dropped, int pend_end)
{
    core *th = &m->th[t];
    th->state = ST_LOST;
    th->tail = tail;
    th->gap = gap;
    th->dropped = (uint8_t)dropped;
    th->pend_end = (uint8_t)pend_end;
    th->lost_cycle = m->cur;
    th->rs_valid = 0;
    th->empty_tail = 0;
    th->st.losses++;
    m->lost_count++;
    rs_floor_drop(m);
    if (!m->shared_pred)
        tm_pred_reset(th->pred);
}

/* The bundle of core T was dropped: T (and, shared, every RUN core: the
 * buffer suppresses their offers, tm_buffer's suppressed_o) becomes LOST. */
static void dropped(tm_model *m, uint32_t t, uint64_t tail, uint64_t gap, int pend_end)
{
    make_lost(m, t, tail, gap, 1, pend_end);
    if (m->shared_pred) {
        for (uint32_t j = 0; j < m->n; j++)
            if (j != t && m->th[j].state == ST_RUN)
                make_lost(m, j, m->th[j].icnt, 0, 0, END_NONE);
        tm_pred_reset(m->shared_pred);
        m->shared_drop = 1;
    }
}

/* The resynchronization bundle of LOST core TH (without its length). */
static inline void resync_bundle(const core *th, bundle *b)
{
    memset(b, 0, sizeof *b);
    b->have = 1;
    b->resync = 1;
    b->icnt = th->tail;
    b->gap = th->gap;
    b->dropped = th->dropped;
    if (th->pend_end) {
        b->kind = TM_MSG_END;
        b->reason = th->pend_end == END_STOP ? TM_END_STOP : TM_END_EXIT;
        b->lost = 1;
    } else {
        b->kind = TM_MSG_SYNC;
        b->reason = TM_SYNC_OVERFLOW;
        b->addr = th->npc;
    }
}

/* The length of LOST core T's resynchronization without its time stamp.
 * While LOST, a core's tail, address, D bit and adaptive state stay and its
 * gap grows (each cycle it retires something), and the gap is one field of
 * either message (SYNC(OVERFLOW), END(lost): spec §4.3), chunked with the
 * cnt code: so the message is formed once per tail and ending with a gap
 * of 0 (cached) and the gap's length added from the table of chunked
 * lengths (tests/unit/test_msg.c: resync_length_is_linear_in_the_gap). */
static __attribute__((noinline)) void rs_form(tm_model *m, uint32_t t)
{
    core *th = &m->th[t];
    bundle b;
    tm_msg msg;
    resync_bundle(th, &b);
    b.gap = 0;
    bundle_msg(&b, t, 0, &msg);
    th->rs_base = tm_msg_bits_a(&m->enc_nots, m->adapt, &msg) - m->lens.cnt[0];
    th->rs_tail = th->tail;
    th->rs_end = th->pend_end;
    th->rs_valid = 1;
}

static inline uint64_t rs_len(tm_model *m, uint32_t t)
{
    core *th = &m->th[t];
    if (__builtin_expect(!(th->rs_valid && th->rs_tail == th->tail && th->rs_end == th->pend_end), 0))
        rs_form(m, t);
    return th->rs_base + m->lens.cnt[tm_nbits64(th->gap)];
}

/* Core T's diffCC field for the value D (0 without time stamps). */
static inline uint64_t cc_len(const tm_model *m, uint32_t t, uint64_t d)
{
    if (!m->enc->timestamps)
        return 0;
    return m->adaptive ? tm_eg_bits(d, tm_adapt_k(m->adapt[t].cc)) : m->lens.cc[tm_nbits64(d)];
}

uint64_t core_resync_floor(tm_model *m, uint32_t t)
{
    const core *th = &m->th[t];
    if (th->empty_tail && !th->pend_end)
        return UINT64_MAX;
    return rs_len(m, t) + cc_len(m, t, 0); /* the shortest diffCC: of 0 (lengths grow with the value) */
}

uint64_t core_resync_len_at(tm_model *m, uint32_t t, uint64_t c, uint64_t *until)
{
    uint64_t d = (c - m->th[t].pcc) & m->ts_mask; /* diffCC in cycle C */
    *until = m->enc->timestamps && m->ts_mask != UINT64_MAX ? c + (m->ts_mask - d) + 1 /* there it is 0 again */
                                                             : UINT64_MAX;
    return rs_len(m, t) + cc_len(m, t, d);
}

/* A LOST core offers its resynchronization in its slot (spec §3.5). */
void core_resync(tm_model *m, uint32_t t)
{
    core *th = &m->th[t];
    if (th->lost_cycle >= m->cur || m->shared_drop)
        return;
    /* With data tracing, not right after a group of operands alone: the
     * debugger could not tell it from the groups after the gap (§3.5). */
    if (th->empty_tail && !th->pend_end)
        return;
    uint64_t freeb = m->buf.B - m->buf.occ;
    if (freeb < m->resync_min)
        return; /* cannot fit, whatever its fields */
    if (m->rs_floor_ok && m->cur < m->rs_until && freeb < m->rs_floor)
        return; /* nor any LOST core's */
    /* A resynchronization that does not fit is offered again next cycle and
     * changes nothing: decide from the cached length (diffCC is the last
     * field, spec §4.3) before forming the bundle. */
    uint64_t until, L = core_resync_len_at(m, t, m->cur, &until);
    if (L > freeb)
        return;
    bundle b;
    resync_bundle(th, &b);
    b.clen = (unsigned)L;
    if (core_offer(m, t, &b))
        accepted(m, t, &b, th->npc);
}

/* START (spec §3.4): the core leaves IDLE with SYNC(START or TRACE_ON). */
static int core_start(tm_model *m, uint32_t t, const group *g, const tmc_record *ev)
{
    core *th = &m->th[t];
    if (g->mem) {
        snprintf(m->err, sizeof m->err, "cycle %llu: thread %u has a memory operand before it starts",
                 (unsigned long long)m->cur, t);
        return TM_ERR_ARG;
    }
    if (th->state != ST_IDLE) {
        snprintf(m->err, sizeof m->err, "cycle %llu: thread %u started twice", (unsigned long long)m->cur, t);
        return TM_ERR_ARG;
    }
    th->state = ST_RUN;
    m->live_count++;
    th->npc = ev->pc;
    th->icnt = th->bcnt = 0;
    if (!m->shared_pred)
        tm_pred_reset(th->pred);
    bundle b;
    memset(&b, 0, sizeof b);
    b.have = 1;
    b.kind = TM_MSG_SYNC;
    b.reason = (ev->flags & TMC_START_TRACE_ON) ? TM_SYNC_TRACE_ON : TM_SYNC_START;
    b.addr = ev->pc;
    if (m->shared_drop) {
        /* A lower core dropped this cycle: the offer is suppressed. */
        tm_msg msg;
        bundle_msg(&b, t, 0, &msg);
        th->st.dropped_messages++;
        th->st.dropped_bits += tm_msg_bits_a(m->enc, m->adapt, &msg);
        make_lost(m, t, 0, 0, 1, END_NONE);
    } else if (core_offer(m, t, &b)) {
        accepted(m, t, &b, ev->pc);
    } else {
        dropped(m, t, 0, 0, END_NONE);
    }
    return TM_OK;
}

/* tm_size_class of 0..64 */
#define O TM_SZ_OTHER
static const uint8_t size_class[TM_DATA_MAX_SIZE + 1] = {
    O, TM_SZ_BYTE, TM_SZ_WORD, O, TM_SZ_DWORD, O, O, O, TM_SZ_QWORD, O, TM_SZ_10, O, O, O, O, O,
    TM_SZ_OWORD, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, TM_SZ_HWORD, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, TM_SZ_64,
};
#undef O

/* The memory operand of core T's group goes through the cache (spec §3.8;
 * tm_core's dc_valid_o / dc_report_i).  Returns 1 if the core forms a DATA
 * message for it. */
static int mem_operand(tm_model *m, uint32_t t, const memop *r)
{
    /* Branch-free counting: whether an operand is a load, hits, needs a
     * report, are data the host cannot predict. */
    core *th = &m->th[t];
    unsigned store = (r->flags & TMC_MEM_STORE) != 0, load = !store;
    unsigned lost = th->state != ST_RUN;
    th->st.stores += store;
    th->st.lost_stores += store & lost;
    th->st.loads += load;
    th->st.lost_loads += load & lost;
    unsigned need = load;
    if (m->data == TM_DATA_CFIAT) {
        tm_cache *c = m->shared_cache ? m->shared_cache : th->cache;
        tm_cache_stats *cs = &m->stats.cache;
        cls_count *k = &m->cls[size_class[r->size]];
        tm_cache_res res = tm_cache_access(c, t, r->addr, r->size, (int)store);
        unsigned hit = res.all_hit, fh = res.flags_hit;
        k->refs[store]++;
        k->hits[store] += hit;
        k->fa_hits += load & hit & fh;
        cs->multi_line += res.lines > 1;
        if (store && !m->shared_cache && !m->cfg.no_invalidate)
            cs->invalidations += tm_cache_invalidate_others(m->pcache, m->n, t, r->addr, r->size);
        need = load & res.report;
    }
    th->st.reports += need;
    unsigned dm = need & !lost;
    th->fah += load & !dm;
    return (int)dm;
}

/* A branch through the predictors (spec §3.3): fills B's control message if
 * the debugger cannot follow it (tr_*: a misprediction; nx_b: every taken
 * conditional and every indirect branch); *TARGET for an accepted one. */
static void core_branch(tm_model *m, uint32_t t, const tmc_record *ev, bundle *b, uint64_t *target)
{
    core *th = &m->th[t];
    th->icnt++;
    int tr = m->enc->enc != TM_ENC_NX_B;
    tm_pred *p = m->shared_pred ? m->shared_pred : th->pred;
    switch (ev->bclass) {
    case TMC_COND:
        if (tr) {
            th->bcnt++;
            int pred = pred_cond_step(p, ev->pc, ev->taken);
            th->st.cond_predicted++;
            if (pred != ev->taken) {
                th->st.cond_mispredicted++;
                b->cnt = th->bcnt;
                b->have = 1;
            }
        } else if (ev->taken) {
            b->cnt = th->icnt;
            b->have = 1;
        }
        break;
    case TMC_CALL:
        if (tr)
            pred_ras_push(p, ev->pc + ev->len);
        break;
    case TMC_IJUMP:
    case TMC_ICALL:
    case TMC_RET:
        if (tr) {
            th->bcnt++;
            uint64_t pt = 0;
            int hit;
            if (ev->bclass == TMC_RET) {
                hit = pred_ras_pop(p, &pt);
            } else {
                hit = pred_ind_predict(p, ev->pc, &pt);
                pred_ind_update(p, ev->pc, ev->target);
                if (ev->bclass == TMC_ICALL)
                    pred_ras_push(p, ev->pc + ev->len);
            }
            th->st.target_predicted++;
            if (!hit || pt != ev->target) {
                th->st.target_mispredicted++;
                b->cnt = th->bcnt;
                b->have = 1;
            }
        } else {
            b->cnt = th->icnt;
            b->have = 1;
        }
        if (b->have) {
            b->t = 1;
            *target = ev->target;
            b->diff_ta = (int64_t)(ev->target - th->pta);
        }
        break;
    default: /* TMC_JUMP */
        break;
    }
}

/* Processes the group G of core T in the current cycle, then its event EV
 * (NULL if none) (spec §3.4).  The top has given the core its slot. */
static inline __attribute__((always_inline)) int group_body(tm_model *m, uint32_t t, const group *g,
                                                            const tmc_record *ev)
{
    core *th = &m->th[t];
    uint64_t n = g->n;
    th->st.instructions += n;
    if (g->has_npc)
        th->npc = g->npc;
    if (ev && ev->type == TMC_START)
        return core_start(m, t, g, ev);
    if (th->state != ST_RUN && th->state != ST_LOST) {
        snprintf(m->err, sizeof m->err, "cycle %llu: thread %u retires while %s", (unsigned long long)m->cur, t,
                 th->state == ST_IDLE ? "not started" : "exited");
        return TM_ERR_ARG;
    }
    /* The memory operand first, then the event (spec §3.8). */
    int dm = g->mem ? mem_operand(m, t, &g->mrec) : 0;

    uint64_t extra = 0; /* instructions + exceptions of the event */
    int pend = END_NONE;
    if (ev) {
        if (ev->type == TMC_BRANCH) {
            extra = 1;
            th->st.instructions++;
            th->st.branches[ev->bclass]++;
            /* without branches: the outcomes vary unpredictably */
            uint64_t tk = 0 - (uint64_t)(ev->taken & 1u);
            th->st.taken_cond += (uint64_t)(ev->bclass == TMC_COND) & tk;
            th->npc = (ev->target & tk) | ((ev->pc + ev->len) & ~tk);
        } else if (ev->type == TMC_EXC) {
            extra = 1;
            th->st.exceptions++;
            th->npc = ev->target;
        } else if (ev->type == TMC_EXIT) {
            pend = (ev->flags & TMC_EXIT_TRACE_OFF) ? END_STOP : END_EXIT;
        }
    }

    if (th->state == ST_LOST) {
        /* Retires into the gap; touches no predictor (spec §3.5). */
        th->gap += n + extra;
        th->st.lost_instructions += n + (ev && ev->type == TMC_BRANCH);
        if (pend) {
            th->pend_end = (uint8_t)pend;
            rs_floor_drop(m);
        }
        if (n + extra)
            th->empty_tail = 0;
        else if (g->mem)
            th->empty_tail = 1;
        if (rs_may_fit(m))
            core_resync(m, t);
        return TM_OK;
    }

    /* ST_RUN */
    uint64_t icnt_before = th->icnt;
    th->icnt += n;
    bundle b;
    memset(&b, 0, sizeof b);
    b.kind = TM_MSG_BRANCH;
    uint64_t target = 0;
    if (ev && ev->type == TMC_BRANCH) {
        core_branch(m, t, ev, &b, &target);
    } else if (ev && ev->type == TMC_EXC) {
        b.kind = TM_MSG_EXC;
        b.icnt = th->icnt;
        b.diff_ta = (int64_t)(ev->target - th->pta);
        target = ev->target;
        b.have = 1;
    } else if (pend) {
        b.kind = TM_MSG_END;
        b.reason = pend == END_STOP ? TM_END_STOP : TM_END_EXIT;
        b.icnt = th->icnt;
        b.have = 1;
    }
    if (!b.have && !dm)
        return TM_OK;
    if (m->shared_drop) {
        /* Unreachable: after a shared drop every RUN core is LOST. */
        return TM_OK;
    }
    b.dm = dm;
    if (core_offer(m, t, &b)) {
        if (b.have)
            accepted(m, t, &b, target);
        if (dm)
            th->fah = 0;
        return TM_OK;
    }
    th->fah += (uint64_t)dm;
    /* The dropped group is in the gap (spec §3.5): count its instructions
     * and its memory operand there (spec §8). */
    th->st.lost_instructions += th->icnt - icnt_before;
    if (g->mem) {
        if (g->mrec.flags & TMC_MEM_STORE)
            th->st.lost_stores++;
        else
            th->st.lost_loads++;
    }
    uint64_t gap = th->icnt - icnt_before + (ev && ev->type == TMC_EXC);
    dropped(m, t, icnt_before, gap, pend);
    th->empty_tail = gap == 0 && g->mem;
    return TM_OK;
}

/* core_group: the group, then G is empty again (the top's group register
 * is free for the next group; done here so that the top's call is its last
 * step). */
int core_group(tm_model *m, uint32_t t, group *g, const tmc_record *ev)
{
    int rc = group_body(m, t, g, ev);
    g->n = 0;
    g->has_npc = 0;
    g->mem = 0;
    return rc;
}

/* The flush (spec §3.7): a RUN core offers END(STOP); a LOST one without a
 * pending END will end with END(lost, STOP). */
void core_flush(tm_model *m, uint32_t t)
{
    core *th = &m->th[t];
    if (th->state == ST_RUN) {
        bundle b;
        memset(&b, 0, sizeof b);
        b.have = 1;
        b.kind = TM_MSG_END;
        b.reason = TM_END_STOP;
        b.icnt = th->icnt;
        if (m->shared_drop)
            make_lost(m, t, th->icnt, 0, 1, END_STOP);
        else if (core_offer(m, t, &b))
            accepted(m, t, &b, 0);
        else
            dropped(m, t, th->icnt, 0, END_STOP);
    } else if (th->state == ST_LOST) {
        if (!th->pend_end) {
            th->pend_end = END_STOP;
            rs_floor_drop(m);
        }
        core_resync(m, t);
    }
}
