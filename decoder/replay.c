/* tm — the debugger's message consumption, shared by the commit-stream replay
 * (verify.c) and the replay from the program binaries (frombin.c); see
 * replay.h and docs/spec.md §6.
 *
 * Messages are parsed lazily from the bitstream into per-thread queues, so
 * memory stays bounded by how far threads drift apart in the trace. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/grow.h"
#include "replay.h"

char *rp_errbuf(char *err, size_t *errlen, char *own, size_t ownlen)
{
    if (!err || !*errlen) {
        err = own;
        *errlen = ownlen;
    }
    err[0] = '\0';
    return err;
}

int rp_fail(rp_state *v, int rc, const char *fmt, ...)
{
    if (!v->err[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->err, v->errlen, fmt, ap);
        va_end(ap);
    }
    v->res->ok = 0;
    return rc;
}

int rp_blame_tmc(rp_state *v, tmc_reader *rd, int rc)
{
    if (rc != TM_ERR_MISMATCH || !rd)
        return rc;
    tmc_record r;
    int k;
    while ((k = tmc_reader_next(rd, &r)) == 1)
        ;
    if (k == 0)
        return rc;
    snprintf(v->err, v->errlen, "%s (the commit stream is damaged; the replay's divergence "
             "before that point is not the trace's)", tmc_reader_error(rd));
    return k;
}

const char *rp_kind_name(const tm_msg *m)
{
    static const char *const k[] = {"BRANCH", "EXC", "SYNC", "END", "DATA"};
    return (unsigned)m->kind < 5 ? k[m->kind] : "?";
}

int rp_init(rp_state *v, const tmt_file *tf, tm_verify_result *res, char *err, size_t errlen,
            const char *load_sizes_tmc)
{
    memset(v, 0, sizeof *v);
    v->res = res;
    v->err = err;
    v->errlen = errlen;
    v->only = -1;
    v->enc = tf->cfg.enc;
    v->nx = v->enc.enc == TM_ENC_NX_B;
    v->ts = v->enc.timestamps;
    v->shared = tf->cfg.shared;
    v->ts_mask = tf->cfg.ts_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << tf->cfg.ts_bits) - 1;
    v->n = v->enc.threads;
    v->data = v->enc.data;
    tm_bitrd_init(&v->rd, tf->data, tf->bits);
    int rc;
    if (v->data) {
        if (!load_sizes_tmc)
            return rp_fail(v, TM_ERR_ARG, "the trace has load values, whose lengths are the loads' sizes: the "
                                          "commit stream is needed for them");
        char e[600];
        rc = tm_load_sizes_open(load_sizes_tmc, v->n, &v->ls, e, sizeof e);
        if (rc != TM_OK)
            return rp_fail(v, rc, "%s", e);
    }
    v->th = calloc(v->n, sizeof *v->th);
    v->adapt = calloc(v->n, sizeof *v->adapt);
    v->idx_adapt = calloc(v->n, sizeof *v->idx_adapt);
    if (!v->adapt || !v->idx_adapt) {
        free(v->th);
        v->th = NULL;
    }
    for (uint32_t i = 0; v->th && i < v->n; i++) {
        tm_bytemap_init(&v->th[i].known);
        tm_adapt_reset(&v->adapt[i]);
        tm_adapt_reset(&v->idx_adapt[i]);
    }
    tm_pred_cfg pc = tf->cfg.pred;
    if (v->nx)
        memset(&pc, 0, sizeof pc);
    rc = v->th ? TM_OK : TM_ERR_NOMEM;
    if (rc == TM_OK && v->shared)
        rc = tm_pred_new(&pc, &v->shared_pred);
    for (uint32_t i = 0; rc == TM_OK && !v->shared && i < v->n; i++)
        rc = tm_pred_new(&pc, &v->th[i].pred);
    if (rc != TM_OK)
        return rp_fail(v, rc, "cannot set up the replay: %s", tm_status_str(rc));
    return TM_OK;
}

void rp_free(rp_state *v)
{
    if (v->th)
        for (uint32_t i = 0; i < v->n; i++) {
            tm_pred_free(v->th[i].pred);
            free(v->th[i].q.v);
            free(v->th[i].dq.v);
            tm_bytemap_free(&v->th[i].known);
        }
    free(v->th);
    v->th = NULL;
    free(v->adapt);
    free(v->idx_adapt);
    v->adapt = v->idx_adapt = NULL;
    tm_pred_free(v->shared_pred);
    v->shared_pred = NULL;
    tm_load_sizes_close(v->ls);
    v->ls = NULL;
}

/* ---------------------------------------------------------------- messages */

static int q_push(rp_msgq *q, const tm_msg *m, uint64_t pos)
{
    if (q->len == q->cap && TM_RING_GROW(q->v, q->cap, q->head, q->len) != TM_OK)
        return TM_ERR_NOMEM;
    q->v[(q->head + q->len) % q->cap] = (rp_qent){*m, pos, 0};
    q->len++;
    return TM_OK;
}

/* Decodes the message at the reader with the code states A (tr_a), which
 * it then moves on. */
static int decode_at(rp_state *v, tm_adapt *a, tm_msg *m)
{
    int rc = tm_msg_decode_a(&v->enc, a, &v->rd, m, v->data ? tm_load_sizes_fn : NULL, v->data ? v->ls : NULL);
    if (rc == TM_OK)
        tm_adapt_update(&v->enc, a, m);
    return rc;
}

/* Recovery: from bit POS on, the first position where a plausible SYNC
 * message decodes, followed by at least a few more decodable messages (or the
 * end of the trace).  Without data tracing only: DATA messages cannot be
 * split without knowing which load they report. */
static int scan_sync(rp_state *v, uint64_t pos)
{
    for (uint64_t p = pos; p < v->rd.nbits; p++) {
        tm_bitrd r = v->rd;
        r.pos = p;
        tm_msg m;
        if (tm_msg_decode(&v->enc, &r, &m) != TM_OK || m.kind != TM_MSG_SYNC)
            continue;
        if (v->sync_ok && !v->sync_ok(v->cb_arg, &m))
            continue;
        int good = 1;
        for (int k = 0; k < 4 && r.pos < r.nbits; k++) {
            tm_msg x;
            if (tm_msg_decode(&v->enc, &r, &x) != TM_OK) {
                good = 0;
                break;
            }
        }
        if (good) {
            v->rd.pos = p;
            return 1;
        }
    }
    v->rd.pos = v->rd.nbits;
    return 0;
}

int rp_index_init(rp_index *x, uint32_t threads)
{
    memset(x, 0, sizeof *x);
    x->th = calloc(threads, sizeof *x->th);
    x->adapt = calloc(threads, sizeof *x->adapt);
    if (!x->th || !x->adapt) {
        free(x->th);
        free(x->adapt);
        return TM_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < threads; i++)
        tm_adapt_reset(&x->adapt[i]);
    x->n = threads;
    return TM_OK;
}

void rp_index_free(rp_index *x)
{
    if (x->th)
        for (uint32_t i = 0; i < x->n; i++)
            free(x->th[i].delta);
    free(x->th);
    free(x->adapt);
    memset(x, 0, sizeof *x);
}

/* A message of thread TI decoded at POS, ending at the reader's position,
 * after which thread TI's code state is A: listed if it continues the index
 * without a hole. */
static void index_add(rp_index *x, uint32_t ti, uint64_t pos, uint64_t end, const tm_adapt *a)
{
    if (pos != x->frontier || ti >= x->n || x->total >= RP_INDEX_MAX)
        return; /* the index stops here: later passes parse on from the frontier */
    struct rp_index_th *e = &x->th[ti];
    if (pos - e->last > UINT32_MAX || (e->len == e->cap && TM_GROW(e->delta, e->cap, e->len + 1) != TM_OK))
        return;
    e->delta[e->len++] = (uint32_t)(pos - e->last);
    e->last = pos;
    x->total++;
    x->frontier = end;
    x->adapt[ti] = *a;
}

/* Parses messages until thread T's queue is not empty.  1: a message is
 * queued; 0: the trace ends; < 0: error. */
static int fill(rp_state *v, uint32_t t)
{
    rp_thread *d = &v->th[t];
    rp_index *x = v->only >= 0 && !v->data ? v->idx : NULL;
    if (x && d->q.len == 0 && v->rd.pos < x->frontier) {
        v->rd.pos = x->frontier; /* the rest of the indexed part: other threads' messages (take_indexed
                                    took T's) */
        memcpy(v->adapt, x->adapt, v->n * sizeof *v->adapt);
    }
    while (d->q.len == 0) {
        if (v->rd.pos >= v->rd.nbits)
            return 0;
        tm_msg m;
        uint64_t pos = v->rd.pos;
        int rc = decode_at(v, v->adapt, &m);
        if (x && rc == TM_OK) {
            index_add(x, m.ti, pos, v->rd.pos, &v->adapt[m.ti]);
            /* T's own messages are queued here, not decoded again */
            v->idx_next = x->th[t].len;
            v->idx_pos = x->th[t].last;
        }
        if (rc != TM_OK) {
            char what[700];
            if (v->data && tm_load_sizes_error(v->ls)[0])
                snprintf(what, sizeof what, "cannot split off a DATA message: %s", tm_load_sizes_error(v->ls));
            else
                snprintf(what, sizeof what, "cannot decode a message (%s)",
                         rc == TM_ERR_TRUNCATED ? "the trace ends inside it" : "invalid field");
            if (v->recover && !v->data && !tm_enc_adaptive(&v->enc)) {
                if (v->on_bad)
                    v->on_bad(v->cb_arg, pos, what);
                v->resyncs++;
                scan_sync(v, pos + 1);
                continue;
            }
            if (v->recover) {
                /* With load values the rest cannot be split (a DATA
                 * message's length is its load's size): the trace ends
                 * here, for every thread, once. */
                if (v->on_bad) {
                    char w2[800];
                    snprintf(w2, sizeof w2, "%s; with %s the rest of the trace cannot be split into messages",
                             what, v->data ? "load values" : "tr_a's adaptive codes");
                    v->on_bad(v->cb_arg, pos, w2);
                }
                v->resyncs++;
                v->rd.pos = v->rd.nbits;
                return 0;
            }
            return rp_fail(v, rc, "trace bit %" PRIu64 ": %s", pos, what);
        }
        if (m.kind == TM_MSG_DATA) {
            uint64_t lidx = tm_load_sizes_split(v->ls);
            if (v->drop_data || (v->only >= 0 && m.ti != (uint32_t)v->only))
                continue;
            rp_msgq *dq = &v->th[m.ti].dq;
            rc = q_push(dq, &m, pos);
            if (rc == TM_OK)
                dq->v[(dq->head + dq->len - 1) % dq->cap].lidx = lidx;
        } else {
            if (v->only >= 0 && m.ti != (uint32_t)v->only)
                continue;
            rc = q_push(&v->th[m.ti].q, &m, pos);
        }
        if (rc != TM_OK)
            return rp_fail(v, rc, "out of memory");
    }
    return 1;
}

static void take(rp_state *v, rp_thread *d)
{
    rp_qent *e = &d->q.v[d->q.head];
    d->m = e->m;
    d->m_pos = e->pos;
    d->q.head = (d->q.head + 1) % d->q.cap;
    d->q.len--;
    d->have = 1;
    v->res->messages++;
}

/* Thread T's next message straight from the index into d->m, when its
 * queue is empty: what fill and take would do (the other threads' messages
 * before it decoded without error and would be dropped, as ONLY is T, and
 * the reader ends just after it, where the parse in order would end), without
 * parsing them again.  1 = pending, 0 = the index does not list it, < 0 =
 * error. */
static int take_indexed(rp_state *v, rp_thread *d, uint32_t t)
{
    rp_index *x = v->idx;
    if (!x || v->only < 0 || v->data || d->q.len)
        return 0;
    struct rp_index_th *e = &x->th[t];
    if (v->idx_next >= e->len)
        return 0;
    uint64_t pos = v->idx_pos + e->delta[v->idx_next];
    v->rd.pos = pos;
    int rc = decode_at(v, v->idx_adapt, &d->m);
    if (rc != TM_OK)
        return rp_fail(v, rc, "trace bit %" PRIu64 ": internal: an indexed message does not decode", pos);
    v->idx_next++;
    v->idx_pos = pos;
    d->m_pos = pos;
    d->have = 1;
    v->res->messages++;
    return 1;
}

int rp_fetch(rp_state *v, uint32_t t)
{
    rp_thread *d = &v->th[t];
    if (d->have)
        return TM_OK;
    int rc = take_indexed(v, d, t);
    if (rc != 0)
        return rc < 0 ? rc : TM_OK;
    rc = fill(v, t);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return rp_fail(v, TM_ERR_MISMATCH,
                       "thread %u, instruction %" PRIu64 ": the trace ends but the replay needs "
                       "another message for this thread",
                       t, d->index);
    take(v, d);
    return TM_OK;
}

int rp_fetch_opt(rp_state *v, uint32_t t)
{
    rp_thread *d = &v->th[t];
    if (d->have)
        return 1;
    int rc = take_indexed(v, d, t);
    if (rc != 0)
        return rc;
    rc = fill(v, t);
    if (rc <= 0)
        return rc;
    take(v, d);
    return 1;
}

int rp_is_lost(const tm_msg *m)
{
    return (m->kind == TM_MSG_SYNC && m->reason == TM_SYNC_OVERFLOW) ||
           (m->kind == TM_MSG_END && m->lost);
}

int rp_check_cc(rp_state *v, uint32_t t, int known, uint64_t expect, uint64_t not_before)
{
    rp_thread *d = &v->th[t];
    if (!v->ts)
        return TM_OK;
    uint64_t got = (d->pcc + d->m.diff_cc) & v->ts_mask;
    expect &= v->ts_mask;
    if (v->ts_mask != UINT64_MAX)
        not_before = 0; /* a wrapped counter gives no order */
    if (known && got != expect)
        return rp_fail(v, TM_ERR_MISMATCH,
                       "thread %u, instruction %" PRIu64 ": %s message at trace bit %" PRIu64
                       " is stamped cycle %" PRIu64 " (PCC %" PRIu64 " + diffCC %" PRIu64
                       ") but the event retired in cycle %" PRIu64,
                       t, d->index, rp_kind_name(&d->m), d->m_pos, got, d->pcc, d->m.diff_cc, expect);
    if (!known && got < not_before)
        return rp_fail(v, TM_ERR_MISMATCH,
                       "thread %u: resynchronization at trace bit %" PRIu64 " is stamped cycle %" PRIu64
                       ", before the thread's last retirement in cycle %" PRIu64,
                       t, d->m_pos, got, not_before);
    d->pcc = got;
    v->res->cycles_checked += known;
    return TM_OK;
}

void rp_consume(rp_thread *d)
{
    d->icnt = d->bcnt = 0;
    d->have = 0;
}

void rp_enter_lost_if(rp_state *v, rp_thread *d)
{
    if (!rp_is_lost(&d->m))
        return;
    d->tail_left = d->m.icnt;
    d->gap_left = d->m.gap;
    d->gap_started = 0;
    d->mode = d->tail_left ? D_TAIL : D_GAP;
    v->res->gaps++;
    v->res->gap_instructions += d->m.gap;
}

void rp_gap_begin(rp_state *v, rp_thread *d)
{
    if (d->gap_started)
        return;
    d->gap_started = 1;
    /* The loss reset the predictors: the shared set at the dropping
     * thread's first gap record (spec §3.5), a private set any time. */
    if (v->shared) {
        if (d->m.dropped)
            tm_pred_reset(v->shared_pred);
    } else {
        tm_pred_reset(d->pred);
    }
    /* The module cleared the thread's FA flags when it resynchronized: the
     * loads after the gap are reported until their bytes are known again. */
    if (v->data)
        tm_bytemap_clear(&d->known);
}

/* ---------------------------------------------------------------- branches */

int rp_branch(rp_state *v, uint32_t t, unsigned cls, uint64_t pc, unsigned len, uint64_t dtarget, int in_tail,
              int *taken_out, uint64_t *target_out, int *is_msg_out, char *why, size_t n)
{
    return rp_branch_inline(v, t, cls, pc, len, dtarget, in_tail, taken_out, target_out, is_msg_out, why, n);
}

void rp_branch_done(rp_state *v, uint32_t t, unsigned cls, uint64_t target)
{
    rp_thread *d = &v->th[t];
    int reported = cls == TMC_COND || cls == TMC_IJUMP || cls == TMC_ICALL || cls == TMC_RET;
    if (reported && d->m.t)
        d->pta = target;
    rp_consume(d);
}

/* ---------------------------------------------------------------- load values */

static void hex_value(char *buf, size_t n, const uint8_t *v, unsigned size)
{
    /* The bytes in memory order, as "0x" + two digits per byte. */
    size_t k = (size_t)snprintf(buf, n, "0x");
    for (unsigned i = 0; i < size && k + 3 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%02x", v[i]);
}

static int mem_mismatch(rp_state *v, uint32_t t, const tmc_record *r, uint64_t pc_hint, const char *what)
{
    rp_thread *d = &v->th[t];
    return rp_fail(v, TM_ERR_MISMATCH,
                   "thread %u, instruction %" PRIu64 " (next pc 0x%" PRIx64 ", cycle %" PRIu64 "): %s "
                   "(pending message: %s at trace bit %" PRIu64 ")",
                   t, d->index, pc_hint, r->cycle, what, d->have ? rp_kind_name(&d->m) : "none",
                   d->have ? d->m_pos : 0);
}

int rp_mem(rp_state *v, const tmc_record *r, int in_gap, uint64_t pc_hint)
{
    uint32_t t = r->tid;
    rp_thread *d = &v->th[t];
    int store = (r->flags & TMC_MEM_STORE) != 0;
    int rc;
    /* An operand classified into a gap before any of the gap's records (a
     * group with no instruction right where the loss begins: the second
     * operand of an instruction, a rep iteration) may precede the dropped
     * group: the gap is not begun here (spec §6 step 7). */
    int boundary = in_gap && !d->gap_started;
    if (store) {
        if (!in_gap) {
            v->res->stores++;
            if (tm_bytemap_put(&d->known, r->addr, r->value, r->size) != TM_OK)
                return rp_fail(v, TM_ERR_NOMEM, "out of memory");
        }
        return TM_OK;
    }
    uint64_t k = d->lcount++;
    v->res->loads++;
    /* Every DATA message up to the thread's pending control message is
     * parsed, so the queue shows whether one reports this load. */
    if (d->mode == D_ACTIVE && !d->have && (rc = rp_fetch(v, t)) != TM_OK)
        return rc;
    rp_msgq *dq = &d->dq;
    rp_qent *e = dq->len ? &dq->v[dq->head] : NULL;
    char buf[600], a[140], b[140];
    if (e && e->lidx < k)
        return rp_fail(v, TM_ERR_MISMATCH,
                       "thread %u, load %" PRIu64 ": the DATA message at trace bit %" PRIu64
                       " reports the thread's load %" PRIu64 ", which retired without it",
                       t, k, e->pos, e->lidx);
    if (boundary && e && e->lidx == k)
        in_gap = 0; /* its DATA message was accepted: before the dropped group */
    if (in_gap) {
        if (e && e->lidx == k)
            return rp_fail(v, TM_ERR_MISMATCH,
                           "thread %u, load %" PRIu64 ": the DATA message at trace bit %" PRIu64
                           " reports a load inside an overflow gap",
                           t, k, e->pos);
        return TM_OK;
    }
    uint8_t val[TMC_MAX_OPERAND];
    const char *src;
    char srcbuf[80];
    if (e && e->lidx == k) {
        memcpy(val, e->m.value, r->size);
        snprintf(srcbuf, sizeof srcbuf, "the DATA message at trace bit %" PRIu64, e->pos);
        src = srcbuf;
        dq->head = (dq->head + 1) % dq->cap;
        dq->len--;
        v->res->loads_reported++;
        v->res->messages++;
    } else {
        int u = tm_bytemap_get(&d->known, r->addr, val, r->size);
        if (u >= 0) {
            snprintf(buf, sizeof buf,
                     "load %" PRIu64 " of %u bytes at 0x%" PRIx64 " has no DATA message, but the replay does not "
                     "know its byte at 0x%" PRIx64 " (the thread has not loaded or stored it since it started or "
                     "since its last gap)",
                     k, (unsigned)r->size, r->addr, r->addr + (uint64_t)u);
            return mem_mismatch(v, t, r, pc_hint, buf);
        }
        src = "the bytes the thread last loaded or stored (no DATA message)";
        v->res->loads_inferred++;
    }
    if (memcmp(val, r->value, r->size)) {
        hex_value(a, sizeof a, val, r->size);
        hex_value(b, sizeof b, r->value, r->size);
        snprintf(buf, sizeof buf,
                 "load %" PRIu64 " of %u bytes at 0x%" PRIx64 ": replayed value %s (from %s), the commit stream "
                 "says %s",
                 k, (unsigned)r->size, r->addr, a, src, b);
        return mem_mismatch(v, t, r, pc_hint, buf);
    }
    if (tm_bytemap_put(&d->known, r->addr, val, r->size) != TM_OK)
        return rp_fail(v, TM_ERR_NOMEM, "out of memory");
    return TM_OK;
}
