/* tm — verifying replay (docs/spec.md §6).
 *
 * The commit stream plays the instruction-set simulator: for every record the
 * replay uses only the static facts (class, pc, length, direct target) and
 * reconstructs the dynamic ones (conditional outcomes, indirect targets,
 * exceptions and their handlers, counts, cycles) from the trace messages and
 * the software predictors, then compares them with the record.
 *
 * Messages are parsed lazily from the bitstream into per-thread queues, so
 * memory stays bounded by how far threads drift apart in the trace. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"
#include "vsrc.h"

typedef rp_thread dthread;
typedef rp_state vstate;

/* ---------------------------------------------------------------- replay */

static int mismatch_rec(vstate *v, uint32_t t, const tmc_record *r, const char *what)
{
    dthread *d = &v->th[t];
    /* A MEM record has no pc: name the thread's next pc (the operand is of
     * an instruction before it, or of the group's event at it). */
    int mem = r->type == TMC_MEM;
    return rp_fail(v, TM_ERR_MISMATCH,
                "thread %u, instruction %" PRIu64 " (%spc 0x%" PRIx64 ", cycle %" PRIu64 "): %s "
                "(pending message: %s at trace bit %" PRIu64 ")",
                t, d->index, mem ? "next " : "", mem ? d->npc : r->pc, r->cycle, what,
                d->have ? rp_kind_name(&d->m) : "none", d->have ? d->m_pos : 0);
}

/* A branch in ACTIVE or TAIL mode (spec §6 step 2: rp_branch), compared with
 * the record.  IN_TAIL: no message may be reached. */
static int replay_branch(vstate *v, uint32_t t, const tmc_record *r, int in_tail)
{
    dthread *d = &v->th[t];
    char buf[256];
    int taken, is_msg;
    uint64_t target;
    int rc = rp_branch(v, t, r->bclass, r->pc, r->len, r->target, in_tail, &taken, &target, &is_msg, buf, sizeof buf);
    if (rc != TM_OK)
        return mismatch_rec(v, t, r, buf);
    if (r->bclass == TMC_COND && taken != r->taken) {
        snprintf(buf, sizeof buf, "reconstructed outcome %s, the commit stream says %s",
                 taken ? "taken" : "not taken", r->taken ? "taken" : "not taken");
        return mismatch_rec(v, t, r, buf);
    }
    if (r->bclass != TMC_COND && target != r->target) {
        snprintf(buf, sizeof buf, "reconstructed target 0x%" PRIx64 ", the commit stream says 0x%" PRIx64,
                 target, r->target);
        return mismatch_rec(v, t, r, buf);
    }
    v->res->branches++;
    v->res->checked++;
    d->index++;
    d->npc = taken ? r->target : r->pc + r->len;
    if (is_msg) {
        rc = rp_check_cc(v, t, 1, r->cycle, 0);
        if (rc)
            return rc;
        rp_branch_done(v, t, r->bclass, target);
    }
    return TM_OK;
}

/* The gap of a lost thread is used up and its pending message is a
 * SYNC(OVERFLOW): the thread must continue at ADDR (WHERE says how it goes
 * on, for the message); afterwards it replays normally again. */
static int resync(vstate *v, uint32_t t, const char *where)
{
    dthread *d = &v->th[t];
    if (d->npc != d->m.addr)
        return rp_fail(v, TM_ERR_MISMATCH,
                    "thread %u, instruction %" PRIu64 ": resynchronization address 0x%" PRIx64
                    " at trace bit %" PRIu64 " but the thread %s 0x%" PRIx64,
                    t, d->index, d->m.addr, d->m_pos, where, d->npc);
    int rc = rp_check_cc(v, t, 0, 0, d->last_cycle);
    if (rc)
        return rc;
    d->pta = d->m.addr;
    rp_consume(d);
    d->mode = D_ACTIVE;
    return TM_OK;
}

static int record_active(vstate *v, uint32_t t, const tmc_record *r);

/* The END reason an EXIT record R says. */
static int end_reason(const tmc_record *r)
{
    return (r->flags & TMC_EXIT_TRACE_OFF) ? TM_END_STOP : TM_END_EXIT;
}

/* Thread T's END message is reached at its EXIT record R (KNOWN: the exit's
 * cycle is known, not only a bound): its time stamp, then the thread is done. */
static int reach_end(vstate *v, uint32_t t, const tmc_record *r, int known)
{
    int rc = known ? rp_check_cc(v, t, 1, r->cycle, 0) : rp_check_cc(v, t, 0, 0, r->cycle);
    if (rc)
        return rc;
    rp_consume(&v->th[t]);
    v->th[t].mode = D_DONE;
    return TM_OK;
}

/* A run of instructions retires in step with the trace. */
static inline void run_retires(vstate *v, dthread *d, const tmc_record *r)
{
    d->icnt += r->count;
    d->index += r->count;
    v->res->checked += r->count;
    d->npc = r->pc + r->bytes;
}

/* GAP mode: records retire without reconstruction until the gap is used up. */
static int record_gap(vstate *v, uint32_t t, const tmc_record *r)
{
    dthread *d = &v->th[t];
    d->rec_gap = 1;
    rp_gap_begin(v, d);
    int counted = r->type == TMC_RUN || r->type == TMC_BRANCH || r->type == TMC_EXC;
    if (d->gap_left == 0 && (counted || r->type == TMC_EXIT)) {
        if (d->m.kind == TM_MSG_SYNC) {
            int rc = resync(v, t, "continues at");
            return rc ? rc : record_active(v, t, r);
        }
        /* END(lost) */
        if (r->type != TMC_EXIT)
            return mismatch_rec(v, t, r, "the trace says the thread ended, but it retires more");
        if (d->m.reason != end_reason(r))
            return mismatch_rec(v, t, r, "END message says exit/stop differently from the commit stream");
        return reach_end(v, t, r, 0);
    }
    switch (r->type) {
    case TMC_RUN:
        if (r->count > d->gap_left)
            return mismatch_rec(v, t, r, "the gap ends inside a run of instructions");
        d->gap_left -= r->count;
        d->index += r->count;
        d->npc = r->pc + r->bytes;
        break;
    case TMC_BRANCH:
        d->gap_left--;
        d->index++;
        d->npc = r->taken ? r->target : r->pc + r->len;
        break;
    case TMC_EXC:
        d->gap_left--;
        d->npc = r->target;
        break;
    case TMC_EXIT:
        return mismatch_rec(v, t, r, "the thread exits inside a gap the trace says is longer");
    case TMC_START:
        d->npc = r->pc;
        break;
    default:
        break;
    }
    d->last_cycle = r->cycle;
    return TM_OK;
}

static int record_tail(vstate *v, uint32_t t, const tmc_record *r)
{
    dthread *d = &v->th[t];
    int rc = TM_OK;
    d->rec_gap = 0;
    switch (r->type) {
    case TMC_RUN:
        if (r->count > d->tail_left)
            return mismatch_rec(v, t, r, "the lost thread's replayable tail ends inside a run");
        d->tail_left -= r->count;
        run_retires(v, d, r);
        break;
    case TMC_BRANCH:
        rc = replay_branch(v, t, r, 1);
        d->tail_left--;
        break;
    case TMC_EXC:
        return mismatch_rec(v, t, r, "an exception retired where the trace reports none");
    case TMC_EXIT:
        return mismatch_rec(v, t, r, "the thread exits inside the replayable tail of a loss");
    default:
        break;
    }
    d->last_cycle = r->cycle;
    if (rc == TM_OK && d->tail_left == 0)
        d->mode = D_GAP;
    return rc;
}

static int record_active(vstate *v, uint32_t t, const tmc_record *r)
{
    dthread *d = &v->th[t];
    int rc = rp_fetch(v, t);
    if (rc)
        return rc;
    if (rp_is_lost(&d->m)) {
        rp_enter_lost_if(v, d);
        return d->mode == D_TAIL ? record_tail(v, t, r) : record_gap(v, t, r);
    }
    d->rec_gap = 0;
    if (r->type == TMC_START)
        return mismatch_rec(v, t, r, "thread started twice");
    int counts_to_icnt = d->m.kind == TM_MSG_EXC || d->m.kind == TM_MSG_END;
    char buf[200];
    switch (r->type) {
    case TMC_RUN:
        if (counts_to_icnt && d->icnt + r->count > d->m.icnt) {
            snprintf(buf, sizeof buf, "the trace reports %s after %" PRIu64 " instructions, but more retire",
                     d->m.kind == TM_MSG_EXC ? "an exception" : "the end of the thread", d->m.icnt);
            return mismatch_rec(v, t, r, buf);
        }
        if (v->nx && d->m.kind == TM_MSG_BRANCH && d->icnt + r->count >= d->m.cnt)
            return mismatch_rec(v, t, r, "the message's stream length ends at a non-branch instruction");
        run_retires(v, d, r);
        break;
    case TMC_BRANCH:
        if (counts_to_icnt && d->icnt + 1 > d->m.icnt) {
            snprintf(buf, sizeof buf, "the trace reports %s after %" PRIu64 " instructions, but a branch retires",
                     d->m.kind == TM_MSG_EXC ? "an exception" : "the end of the thread", d->m.icnt);
            return mismatch_rec(v, t, r, buf);
        }
        rc = replay_branch(v, t, r, 0);
        break;
    case TMC_EXC:
        if (d->m.kind != TM_MSG_EXC || d->m.icnt != d->icnt)
            return mismatch_rec(v, t, r, "an exception retired where the trace reports none");
        {
            uint64_t h = d->pta + (uint64_t)d->m.diff_ta;
            if (h != r->target) {
                snprintf(buf, sizeof buf, "reconstructed handler 0x%" PRIx64 ", the commit stream says 0x%" PRIx64,
                         h, r->target);
                return mismatch_rec(v, t, r, buf);
            }
            rc = rp_check_cc(v, t, 1, r->cycle, 0);
            if (rc)
                return rc;
            d->pta = h;
            d->npc = h;
            rp_consume(d);
            v->res->exceptions++;
        }
        break;
    case TMC_EXIT:
        if (d->m.kind != TM_MSG_END || d->m.icnt != d->icnt || d->m.reason != end_reason(r))
            return mismatch_rec(v, t, r, "the thread ends where the trace does not report its end");
        if ((rc = reach_end(v, t, r, 1)) != TM_OK)
            return rc;
        break;
    default:
        break;
    }
    d->last_cycle = r->cycle;
    return rc;
}

static int record_start(vstate *v, uint32_t t, const tmc_record *r)
{
    dthread *d = &v->th[t];
    if (r->type != TMC_START)
        return mismatch_rec(v, t, r, "record of a thread that has not started");
    d->rec_gap = 0;
    if (!v->shared)
        tm_pred_reset(d->pred);
    d->npc = r->pc;
    d->last_cycle = r->cycle;
    int rc = rp_fetch(v, t);
    if (rc)
        return rc;
    if (rp_is_lost(&d->m)) {
        if (d->m.icnt != 0)
            return mismatch_rec(v, t, r, "the first message of the thread claims earlier instructions");
        rp_enter_lost_if(v, d);
        return record_gap(v, t, r);
    }
    int want = (r->flags & TMC_START_TRACE_ON) ? TM_SYNC_TRACE_ON : TM_SYNC_START;
    if (d->m.kind != TM_MSG_SYNC || d->m.reason != want)
        return mismatch_rec(v, t, r, "the thread's first message is not its start synchronization");
    if (d->m.addr != r->pc) {
        char buf[160];
        snprintf(buf, sizeof buf, "start address 0x%" PRIx64 " in the trace, 0x%" PRIx64 " in the commit stream",
                 d->m.addr, r->pc);
        return mismatch_rec(v, t, r, buf);
    }
    rc = rp_check_cc(v, t, 1, r->cycle, 0);
    if (rc)
        return rc;
    d->pta = r->pc;
    rp_consume(d);
    d->mode = D_ACTIVE;
    return TM_OK;
}

/* A memory operand (spec §6 step 7). */
static int on_mem(vstate *v, const tmc_record *r)
{
    uint32_t t = r->tid;
    dthread *d = &v->th[t];
    int rc;
    if (d->mode == D_WAIT || d->mode == D_DONE)
        return mismatch_rec(v, t, r, "memory operand of a thread that is not being traced");
    int in_gap;
    if (d->g_valid && d->g_cycle == r->cycle) {
        in_gap = d->rec_gap; /* the group's instructions tell */
    } else {
        /* The operand opens its group: classify the group as its first
         * instruction will be. */
        for (;;) {
            if (d->mode == D_ACTIVE) {
                if ((rc = rp_fetch(v, t)) != TM_OK)
                    return rc;
                if (rp_is_lost(&d->m))
                    rp_enter_lost_if(v, d);
            }
            if (d->mode == D_GAP && d->gap_left == 0 && d->m.kind == TM_MSG_SYNC) {
                /* The gap is over: this group comes after it (and may open
                 * the next loss). */
                if ((rc = resync(v, t, "continues at")) != TM_OK)
                    return rc;
                continue;
            }
            break;
        }
        in_gap = d->mode == D_GAP;
    }
    return rp_mem(v, r, in_gap, d->npc);
}

static int on_record(vstate *v, const tmc_record *r)
{
    if (r->type == TMC_MODULE || r->type == TMC_END || r->type == TMC_ENDING)
        return TM_OK;
    if (r->type == TMC_MEM)
        return v->data ? on_mem(v, r) : TM_OK;
    uint32_t t = r->tid;
    dthread *d = &v->th[t];
    v->last_cycle = r->cycle;
    if (r->type == TMC_RUN)
        v->res->instructions += r->count;
    else if (r->type == TMC_BRANCH)
        v->res->instructions++;
    d->g_cycle = r->cycle;
    d->g_valid = 1;
    switch (d->mode) {
    case D_WAIT: return record_start(v, t, r);
    case D_ACTIVE: return record_active(v, t, r);
    case D_TAIL: return record_tail(v, t, r);
    case D_GAP: return record_gap(v, t, r);
    default: return mismatch_rec(v, t, r, "record after the thread's end");
    }
}

/* After the last record: every started thread must end exactly as the
 * trace says (spec §3.7). */
static int finish_thread(vstate *v, uint32_t t)
{
    dthread *d = &v->th[t];
    for (int guard = 0; guard < 1000 && d->mode != D_DONE && d->mode != D_WAIT; guard++) {
        int rc = rp_fetch(v, t);
        if (rc)
            return rc;
        if (d->mode == D_ACTIVE && rp_is_lost(&d->m))
            rp_enter_lost_if(v, d);
        switch (d->mode) {
        case D_ACTIVE:
            if (d->m.kind != TM_MSG_END || d->m.reason != TM_END_STOP || d->m.icnt != d->icnt)
                return rp_fail(v, TM_ERR_MISMATCH,
                            "thread %u, instruction %" PRIu64 ": the commit stream ends, but the trace's "
                            "next message for the thread (%s at bit %" PRIu64 ") is not its end",
                            t, d->index, rp_kind_name(&d->m), d->m_pos);
            rc = rp_check_cc(v, t, 1, v->last_cycle + 1, 0);
            if (rc)
                return rc;
            rp_consume(d);
            d->mode = D_DONE;
            break;
        case D_TAIL:
            return rp_fail(v, TM_ERR_MISMATCH,
                        "thread %u: the commit stream ends %" PRIu64 " instructions before the trace's loss point",
                        t, d->tail_left);
        case D_GAP:
            if (d->gap_left)
                return rp_fail(v, TM_ERR_MISMATCH,
                            "thread %u: the commit stream ends %" PRIu64 " instructions before the trace's gap does",
                            t, d->gap_left);
            if (d->m.kind == TM_MSG_SYNC) {
                if ((rc = resync(v, t, "stopped at")) != TM_OK)
                    return rc;
            } else {
                if (d->m.reason != TM_END_STOP)
                    return rp_fail(v, TM_ERR_MISMATCH, "thread %u: the trace says the thread exited, the commit stream only ends", t);
                rc = rp_check_cc(v, t, 0, 0, d->last_cycle);
                if (rc)
                    return rc;
                rp_consume(d);
                d->mode = D_DONE;
            }
            break;
        default:
            break;
        }
    }
    return TM_OK;
}

int tm_verify(const char *tmc_path, const tmt_file *tf, tm_verify_result *res,
              void (*progress)(uint64_t records, void *arg), void *arg, char *err, size_t errlen)
{
    char own[1024];
    err = rp_errbuf(err, &errlen, own, sizeof own);
    memset(res, 0, sizeof *res);
    res->ok = 1;
    vstate v;
    vsrc *src = NULL;
    int rc = rp_init(&v, tf, res, err, errlen, tmc_path);
    if (rc != TM_OK)
        goto out;
    char e[600];
    /* One read of the commit stream: the replay here, the file checks
     * (spec §6.2) on a second thread over the same records. */
    rc = vsrc_open(tmc_path, tf, 1, 1, &src, e, sizeof e);
    if (rc != TM_OK) {
        rp_fail(&v, rc, "%s", e);
        goto out;
    }
    if (vsrc_threads(src) != v.n) {
        rc = rp_fail(&v, TM_ERR_MISMATCH, "the commit stream declares %u threads but the trace was made for %u",
                     vsrc_threads(src), v.n);
        goto out;
    }

    const tmc_record *r;
    uint64_t nrec = 0;
    while ((rc = vsrc_next(src, &r)) == 1) {
        if ((rc = on_record(&v, r)) != TM_OK)
            goto out;
        if (progress && (++nrec & ((1u << 22) - 1)) == 0)
            progress(nrec, arg);
    }
    if (rc < 0) {
        rp_fail(&v, rc, "%s", vsrc_error(src));
        goto out;
    }
    for (uint32_t t = 0; t < v.n; t++)
        if ((rc = finish_thread(&v, t)) != TM_OK)
            goto out;
    /* Nothing may be left in the trace. */
    for (uint32_t t = 0; t < v.n; t++)
        if (v.th[t].dq.len) {
            rc = rp_fail(&v, TM_ERR_MISMATCH,
                      "thread %u: the DATA message at trace bit %" PRIu64 " reports a load after the thread's last",
                      t, v.th[t].dq.v[v.th[t].dq.head].pos);
            goto out;
        } else if (v.th[t].q.len || v.th[t].have) {
            rc = rp_fail(&v, TM_ERR_MISMATCH, "thread %u: the trace holds messages beyond the end of the commit stream", t);
            goto out;
        }
    if (v.rd.pos < v.rd.nbits) {
        uint64_t pos = v.rd.pos;
        tm_msg m;
        if (tm_msg_decode_a(&v.enc, v.adapt, &v.rd, &m, v.data ? tm_load_sizes_fn : NULL, v.data ? v.ls : NULL) ==
            TM_OK)
            rc = rp_fail(&v, TM_ERR_MISMATCH, "trace bit %" PRIu64 ": a message for thread %u follows the end of every thread",
                      pos, m.ti);
        else
            rc = rp_fail(&v, TM_ERR_FORMAT, "trace bit %" PRIu64 ": %" PRIu64 " undecodable bits after the last message",
                      pos, v.rd.nbits - pos);
        goto out;
    }
    /* The replay matched: what it cannot see (spec §6.2). */
    rc = vsrc_finish(src, v.err, v.errlen);
    if (rc != TM_OK)
        goto out;
    rc = TM_OK;
out:
    rc = src ? vsrc_blame(src, rc, v.err, v.errlen) : rc;
    rp_free(&v);
    vsrc_close(src);
    if (rc != TM_OK)
        res->ok = 0;
    return rc;
}
