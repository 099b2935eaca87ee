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
#include "tm/decoder.h"
#include "tm/pred.h"
#include "tm/tmc.h"

enum { D_WAIT = 0, D_ACTIVE, D_TAIL, D_GAP, D_DONE };

typedef struct qent {
    tm_msg m;
    uint64_t pos;
    uint64_t lidx;     /* DATA: index of the reported load among the thread's */
} qent;

typedef struct msgq {
    qent *v;
    size_t head, len, cap; /* ring buffer */
} msgq;

/* The replay's copy of the bytes a thread loaded or stored since its last
 * gap (spec §6 step 7): 64-byte blocks in an open-addressing table whose
 * entries belong to generation GEN; emptying the copy is GEN++. */
typedef struct kblock {
    uint64_t key;      /* address >> 6 */
    uint32_t gen;      /* 0 = never used */
    uint64_t known;    /* bit i: byte i is known */
    uint8_t b[64];
} kblock;

typedef struct kmap {
    kblock *v;
    size_t cap, live;  /* live: entries of generation gen */
    uint32_t gen;
} kmap;

typedef struct dthread {
    int mode;
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
    msgq q;
    /* data tracing */
    msgq dq;           /* parsed DATA messages, in order */
    uint64_t lcount;   /* loads retired so far (in and out of gaps) */
    kmap known;
    uint64_t g_cycle;  /* cycle of the last instruction record replayed */
    int g_valid;
    int rec_gap;       /* that record was inside a gap */
} dthread;

typedef struct vstate {
    tm_enc_cfg enc;
    int nx, ts, shared;
    uint64_t ts_mask;      /* time stamps are modulo 2^ts_bits */
    uint32_t n;
    dthread *th;
    tm_pred *shared_pred;
    tm_bitrd rd;
    uint64_t last_cycle;
    tm_verify_result *res;
    int data;              /* tm_data_mode */
    tm_load_sizes *ls;     /* data: sizes of the loads, read ahead */
} vstate;

static int fail(vstate *v, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(vstate *v, int rc, const char *fmt, ...)
{
    if (!v->res->error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->res->error, sizeof v->res->error, fmt, ap);
        va_end(ap);
    }
    v->res->ok = 0;
    return rc;
}

static tm_pred *pred_of(vstate *v, uint32_t t)
{
    return v->shared ? v->shared_pred : v->th[t].pred;
}

static const char *kind_name(const tm_msg *m)
{
    static const char *const k[] = {"BRANCH", "EXC", "SYNC", "END", "DATA"};
    return (unsigned)m->kind < 5 ? k[m->kind] : "?";
}

/* ---------------------------------------------------------------- messages */

static int q_push(msgq *q, const tm_msg *m, uint64_t pos)
{
    if (q->len == q->cap) {
        size_t nc = q->cap ? q->cap * 2 : 16;
        qent *nv = malloc(nc * sizeof *nv);
        if (!nv)
            return TM_ERR_NOMEM;
        for (size_t i = 0; i < q->len; i++)
            nv[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = nv;
        q->cap = nc;
        q->head = 0;
    }
    q->v[(q->head + q->len) % q->cap] = (qent){*m, pos, 0};
    q->len++;
    return TM_OK;
}

/* Makes thread T's next message pending.  Returns TM_OK, or an error if the
 * trace holds no further message for T. */
static int fetch(vstate *v, uint32_t t)
{
    dthread *d = &v->th[t];
    if (d->have)
        return TM_OK;
    while (d->q.len == 0) {
        if (v->rd.pos >= v->rd.nbits)
            return fail(v, TM_ERR_MISMATCH,
                        "thread %u, instruction %" PRIu64 ": the trace ends but the replay needs "
                        "another message for this thread",
                        t, d->index);
        tm_msg m;
        uint64_t pos = v->rd.pos;
        int rc = v->data ? tm_msg_decode_sized(&v->enc, &v->rd, &m, tm_load_sizes_fn, v->ls)
                         : tm_msg_decode(&v->enc, &v->rd, &m);
        if (rc != TM_OK) {
            if (v->data && tm_load_sizes_error(v->ls)[0])
                return fail(v, rc, "trace bit %" PRIu64 ": cannot split off a DATA message: %s", pos,
                            tm_load_sizes_error(v->ls));
            return fail(v, rc, "trace bit %" PRIu64 ": cannot decode a message (%s)", pos,
                        rc == TM_ERR_TRUNCATED ? "the trace ends inside it" : "invalid field");
        }
        if (m.kind == TM_MSG_DATA) {
            msgq *dq = &v->th[m.ti].dq;
            rc = q_push(dq, &m, pos);
            if (rc == TM_OK)
                dq->v[(dq->head + dq->len - 1) % dq->cap].lidx = tm_load_sizes_split(v->ls);
        } else {
            rc = q_push(&v->th[m.ti].q, &m, pos);
        }
        if (rc != TM_OK)
            return fail(v, rc, "out of memory");
    }
    qent *e = &d->q.v[d->q.head];
    d->m = e->m;
    d->m_pos = e->pos;
    d->q.head = (d->q.head + 1) % d->q.cap;
    d->q.len--;
    d->have = 1;
    v->res->messages++;
    return TM_OK;
}

static int is_lost_msg(const tm_msg *m)
{
    return (m->kind == TM_MSG_SYNC && m->reason == TM_SYNC_OVERFLOW) ||
           (m->kind == TM_MSG_END && m->lost);
}

/* Checks and applies the time stamp of the consumed message: the event it
 * reports happened in cycle EXPECT (or, if EXPECT is unknown, in a cycle not
 * before NOT_BEFORE). */
static int check_cc(vstate *v, uint32_t t, int known, uint64_t expect, uint64_t not_before)
{
    dthread *d = &v->th[t];
    if (!v->ts)
        return TM_OK;
    uint64_t got = (d->pcc + d->m.diff_cc) & v->ts_mask;
    expect &= v->ts_mask;
    if (v->ts_mask != UINT64_MAX)
        not_before = 0; /* a wrapped counter gives no order */
    if (known && got != expect)
        return fail(v, TM_ERR_MISMATCH,
                    "thread %u, instruction %" PRIu64 ": %s message at trace bit %" PRIu64
                    " is stamped cycle %" PRIu64 " (PCC %" PRIu64 " + diffCC %" PRIu64
                    ") but the event retired in cycle %" PRIu64,
                    t, d->index, kind_name(&d->m), d->m_pos, got, d->pcc, d->m.diff_cc, expect);
    if (!known && got < not_before)
        return fail(v, TM_ERR_MISMATCH,
                    "thread %u: resynchronization at trace bit %" PRIu64 " is stamped cycle %" PRIu64
                    ", before the thread's last retirement in cycle %" PRIu64,
                    t, d->m_pos, got, not_before);
    d->pcc = got;
    v->res->cycles_checked += known;
    return TM_OK;
}

/* The pending message has been reached: reset the counters. */
static void consume(dthread *d)
{
    d->icnt = d->bcnt = 0;
    d->have = 0;
}

/* After fetching, a SYNC(OVERFLOW) or END(lost) message starts the tail. */
static void enter_lost_if(vstate *v, dthread *d)
{
    if (!is_lost_msg(&d->m))
        return;
    d->tail_left = d->m.icnt;
    d->gap_left = d->m.gap;
    d->gap_started = 0;
    d->mode = d->tail_left ? D_TAIL : D_GAP;
    v->res->gaps++;
    v->res->gap_instructions += d->m.gap;
}

/* ---------------------------------------------------------------- copy */

static size_t km_hash(uint64_t key)
{
    key *= UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(key >> 17);
}

static int km_grow(kmap *k)
{
    size_t nc = k->cap ? k->cap * 2 : 1024;
    kblock *nv = calloc(nc, sizeof *nv);
    if (!nv)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i < k->cap; i++) {
        const kblock *b = &k->v[i];
        if (b->gen != k->gen)
            continue;
        size_t j = km_hash(b->key) & (nc - 1);
        while (nv[j].gen)
            j = (j + 1) & (nc - 1);
        nv[j] = *b;
    }
    free(k->v);
    k->v = nv;
    k->cap = nc;
    return TM_OK;
}

/* The block of KEY, or NULL (not present; CREATE: out of memory). */
static kblock *km_find(kmap *k, uint64_t key, int create)
{
    if (create && (k->live + 1) * 2 > k->cap && km_grow(k) != TM_OK)
        return NULL;
    if (!k->cap)
        return NULL;
    size_t mask = k->cap - 1;
    for (size_t i = km_hash(key) & mask;; i = (i + 1) & mask) {
        kblock *b = &k->v[i];
        if (b->gen != k->gen) {
            if (!create)
                return NULL;
            b->key = key;
            b->gen = k->gen;
            b->known = 0;
            k->live++;
            return b;
        }
        if (b->key == key)
            return b;
    }
}

static void km_clear(kmap *k)
{
    k->live = 0;
    if (++k->gen == 0) {
        if (k->v)
            memset(k->v, 0, k->cap * sizeof *k->v);
        k->gen = 1;
    }
}

static int km_put(kmap *k, uint64_t addr, const uint8_t *val, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t a = addr + i;
        kblock *b = km_find(k, a >> 6, 1);
        if (!b)
            return TM_ERR_NOMEM;
        b->b[a & 63] = val[i];
        b->known |= UINT64_C(1) << (a & 63);
    }
    return TM_OK;
}

/* Fills VAL from the copy; returns -1 if every byte is known, else the
 * index of the first unknown byte. */
static int km_get(kmap *k, uint64_t addr, uint8_t *val, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t a = addr + i;
        kblock *b = km_find(k, a >> 6, 0);
        if (!b || !(b->known >> (a & 63) & 1))
            return (int)i;
        val[i] = b->b[a & 63];
    }
    return -1;
}

/* ---------------------------------------------------------------- replay */

static int mismatch_rec(vstate *v, uint32_t t, const tmc_record *r, const char *what)
{
    dthread *d = &v->th[t];
    /* A MEM record has no pc: name the thread's next pc (the operand is of
     * an instruction before it, or of the group's event at it). */
    int mem = r->type == TMC_MEM;
    return fail(v, TM_ERR_MISMATCH,
                "thread %u, instruction %" PRIu64 " (%spc 0x%" PRIx64 ", cycle %" PRIu64 "): %s "
                "(pending message: %s at trace bit %" PRIu64 ")",
                t, d->index, mem ? "next " : "", mem ? d->npc : r->pc, r->cycle, what,
                d->have ? kind_name(&d->m) : "none", d->have ? d->m_pos : 0);
}

/* A branch in ACTIVE or TAIL mode.  IN_TAIL: no message may be reached. */
static int replay_branch(vstate *v, uint32_t t, const tmc_record *r, int in_tail)
{
    dthread *d = &v->th[t];
    char buf[256];
    tm_pred *p = pred_of(v, t);
    int is_msg = 0;
    int taken = 1;
    uint64_t target = r->target;
    d->icnt++;
    int reported = r->bclass == TMC_COND || r->bclass == TMC_IJUMP || r->bclass == TMC_ICALL ||
                   r->bclass == TMC_RET;
    if (!v->nx) {
        if (reported) {
            d->bcnt++;
            is_msg = !in_tail && d->m.kind == TM_MSG_BRANCH && d->bcnt == d->m.cnt;
        }
        switch (r->bclass) {
        case TMC_COND: {
            int pred = tm_pred_cond_predict(p, r->pc);
            if (is_msg && d->m.t)
                return mismatch_rec(v, t, r, "the message reports a target misprediction at a conditional branch");
            taken = is_msg ? !pred : pred;
            tm_pred_cond_update(p, r->pc, taken);
            break;
        }
        case TMC_JUMP:
            break;
        case TMC_CALL:
            tm_pred_ras_push(p, r->pc + r->len);
            break;
        default: {
            uint64_t pt = 0;
            int hit = r->bclass == TMC_RET ? tm_pred_ras_pop(p, &pt) : tm_pred_ind_predict(p, r->pc, &pt);
            if (is_msg) {
                if (!d->m.t)
                    return mismatch_rec(v, t, r, "the message reports an outcome misprediction at an indirect branch");
                target = d->pta + (uint64_t)d->m.diff_ta;
                if (hit && pt == target) {
                    snprintf(buf, sizeof buf,
                             "the message reports a target misprediction, but the predictor predicts "
                             "the reported target 0x%" PRIx64, target);
                    return mismatch_rec(v, t, r, buf);
                }
            } else {
                if (!hit)
                    return mismatch_rec(v, t, r, r->bclass == TMC_RET
                                                     ? "the RAS copy is empty but no message reports the return's target"
                                                     : "the iBTB copy has no target but no message reports one");
                target = pt;
            }
            if (r->bclass != TMC_RET) {
                tm_pred_ind_update(p, r->pc, target);
                if (r->bclass == TMC_ICALL)
                    tm_pred_ras_push(p, r->pc + r->len);
            }
            break;
        }
        }
    } else {
        is_msg = !in_tail && d->m.kind == TM_MSG_BRANCH && d->icnt == d->m.cnt;
        if (r->bclass == TMC_COND) {
            if (is_msg && d->m.t)
                return mismatch_rec(v, t, r, "the message carries a target for a conditional branch");
            taken = is_msg;
        } else if (reported) {
            if (!is_msg)
                return mismatch_rec(v, t, r, in_tail ? "an indirect branch retired where the trace reports none"
                                                     : "no message reports this indirect branch");
            if (!d->m.t)
                return mismatch_rec(v, t, r, "the message for an indirect branch carries no target");
            target = d->pta + (uint64_t)d->m.diff_ta;
        } else if (is_msg) {
            return mismatch_rec(v, t, r, "the stream length of the message ends at a direct jump or call");
        }
    }
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
        if (reported && d->m.t)
            d->pta = target;
        int rc = check_cc(v, t, 1, r->cycle, 0);
        if (rc)
            return rc;
        consume(d);
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
        return fail(v, TM_ERR_MISMATCH,
                    "thread %u, instruction %" PRIu64 ": resynchronization address 0x%" PRIx64
                    " at trace bit %" PRIu64 " but the thread %s 0x%" PRIx64,
                    t, d->index, d->m.addr, d->m_pos, where, d->npc);
    int rc = check_cc(v, t, 0, 0, d->last_cycle);
    if (rc)
        return rc;
    d->pta = d->m.addr;
    consume(d);
    d->mode = D_ACTIVE;
    return TM_OK;
}

static int record_active(vstate *v, uint32_t t, const tmc_record *r);

/* The first record of a gap. */
static void gap_begin(vstate *v, dthread *d)
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
        km_clear(&d->known);
}

/* GAP mode: records retire without reconstruction until the gap is used up. */
static int record_gap(vstate *v, uint32_t t, const tmc_record *r)
{
    dthread *d = &v->th[t];
    d->rec_gap = 1;
    gap_begin(v, d);
    int counted = r->type == TMC_RUN || r->type == TMC_BRANCH || r->type == TMC_EXC;
    if (d->gap_left == 0 && (counted || r->type == TMC_EXIT)) {
        if (d->m.kind == TM_MSG_SYNC) {
            int rc = resync(v, t, "continues at");
            return rc ? rc : record_active(v, t, r);
        }
        /* END(lost) */
        if (r->type != TMC_EXIT)
            return mismatch_rec(v, t, r, "the trace says the thread ended, but it retires more");
        if (d->m.reason != ((r->flags & TMC_EXIT_TRACE_OFF) ? TM_END_STOP : TM_END_EXIT))
            return mismatch_rec(v, t, r, "END message says exit/stop differently from the commit stream");
        int rc = check_cc(v, t, 0, 0, r->cycle);
        if (rc)
            return rc;
        consume(d);
        d->mode = D_DONE;
        return TM_OK;
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
        d->icnt += r->count;
        d->index += r->count;
        v->res->checked += r->count;
        d->npc = r->pc + r->bytes;
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
    int rc = fetch(v, t);
    if (rc)
        return rc;
    if (is_lost_msg(&d->m)) {
        enter_lost_if(v, d);
        return d->mode == D_TAIL ? record_tail(v, t, r) : record_gap(v, t, r);
    }
    d->rec_gap = 0;
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
        d->icnt += r->count;
        d->index += r->count;
        v->res->checked += r->count;
        d->npc = r->pc + r->bytes;
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
            rc = check_cc(v, t, 1, r->cycle, 0);
            if (rc)
                return rc;
            d->pta = h;
            d->npc = h;
            consume(d);
            v->res->exceptions++;
        }
        break;
    case TMC_EXIT: {
        int want = (r->flags & TMC_EXIT_TRACE_OFF) ? TM_END_STOP : TM_END_EXIT;
        if (d->m.kind != TM_MSG_END || d->m.icnt != d->icnt || d->m.reason != want)
            return mismatch_rec(v, t, r, "the thread ends where the trace does not report its end");
        rc = check_cc(v, t, 1, r->cycle, 0);
        if (rc)
            return rc;
        consume(d);
        d->mode = D_DONE;
        break;
    }
    case TMC_START:
        return mismatch_rec(v, t, r, "thread started twice");
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
    int rc = fetch(v, t);
    if (rc)
        return rc;
    if (is_lost_msg(&d->m)) {
        if (d->m.icnt != 0)
            return mismatch_rec(v, t, r, "the first message of the thread claims earlier instructions");
        enter_lost_if(v, d);
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
    rc = check_cc(v, t, 1, r->cycle, 0);
    if (rc)
        return rc;
    d->pta = r->pc;
    consume(d);
    d->mode = D_ACTIVE;
    return TM_OK;
}

static void hex_value(char *buf, size_t n, const uint8_t *v, unsigned size)
{
    /* The bytes in memory order, as "0x" + two digits per byte. */
    size_t k = (size_t)snprintf(buf, n, "0x");
    for (unsigned i = 0; i < size && k + 3 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%02x", v[i]);
}

/* A memory operand (spec §6 step 7). */
static int on_mem(vstate *v, const tmc_record *r)
{
    uint32_t t = r->tid;
    dthread *d = &v->th[t];
    int store = (r->flags & TMC_MEM_STORE) != 0;
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
                if ((rc = fetch(v, t)) != TM_OK)
                    return rc;
                if (is_lost_msg(&d->m))
                    enter_lost_if(v, d);
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
    if (in_gap)
        gap_begin(v, d);
    if (store) {
        if (!in_gap) {
            v->res->stores++;
            if (km_put(&d->known, r->addr, r->value, r->size) != TM_OK)
                return fail(v, TM_ERR_NOMEM, "out of memory");
        }
        return TM_OK;
    }
    uint64_t k = d->lcount++;
    v->res->loads++;
    /* Every DATA message up to the thread's pending control message is
     * parsed, so the queue shows whether one reports this load. */
    if (d->mode == D_ACTIVE && !d->have && (rc = fetch(v, t)) != TM_OK)
        return rc;
    msgq *dq = &d->dq;
    qent *e = dq->len ? &dq->v[dq->head] : NULL;
    char buf[600], a[140], b[140];
    if (e && e->lidx < k)
        return fail(v, TM_ERR_MISMATCH,
                    "thread %u, load %" PRIu64 ": the DATA message at trace bit %" PRIu64
                    " reports the thread's load %" PRIu64 ", which retired without it",
                    t, k, e->pos, e->lidx);
    if (in_gap) {
        if (e && e->lidx == k)
            return fail(v, TM_ERR_MISMATCH,
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
        int u = km_get(&d->known, r->addr, val, r->size);
        if (u >= 0) {
            snprintf(buf, sizeof buf,
                     "load %" PRIu64 " of %u bytes at 0x%" PRIx64 " has no DATA message, but the replay does not "
                     "know its byte at 0x%" PRIx64 " (the thread has not loaded or stored it since it started or "
                     "since its last gap)",
                     k, (unsigned)r->size, r->addr, r->addr + (uint64_t)u);
            return mismatch_rec(v, t, r, buf);
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
        return mismatch_rec(v, t, r, buf);
    }
    if (km_put(&d->known, r->addr, val, r->size) != TM_OK)
        return fail(v, TM_ERR_NOMEM, "out of memory");
    return TM_OK;
}

static int on_record(vstate *v, const tmc_record *r)
{
    if (r->type == TMC_MODULE || r->type == TMC_END)
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
        int rc = fetch(v, t);
        if (rc)
            return rc;
        if (d->mode == D_ACTIVE && is_lost_msg(&d->m))
            enter_lost_if(v, d);
        switch (d->mode) {
        case D_ACTIVE:
            if (d->m.kind != TM_MSG_END || d->m.reason != TM_END_STOP || d->m.icnt != d->icnt)
                return fail(v, TM_ERR_MISMATCH,
                            "thread %u, instruction %" PRIu64 ": the commit stream ends, but the trace's "
                            "next message for the thread (%s at bit %" PRIu64 ") is not its end",
                            t, d->index, kind_name(&d->m), d->m_pos);
            rc = check_cc(v, t, 1, v->last_cycle + 1, 0);
            if (rc)
                return rc;
            consume(d);
            d->mode = D_DONE;
            break;
        case D_TAIL:
            return fail(v, TM_ERR_MISMATCH,
                        "thread %u: the commit stream ends %" PRIu64 " instructions before the trace's loss point",
                        t, d->tail_left);
        case D_GAP:
            if (d->gap_left)
                return fail(v, TM_ERR_MISMATCH,
                            "thread %u: the commit stream ends %" PRIu64 " instructions before the trace's gap does",
                            t, d->gap_left);
            if (d->m.kind == TM_MSG_SYNC) {
                if ((rc = resync(v, t, "stopped at")) != TM_OK)
                    return rc;
            } else {
                if (d->m.reason != TM_END_STOP)
                    return fail(v, TM_ERR_MISMATCH, "thread %u: the trace says the thread exited, the commit stream only ends", t);
                rc = check_cc(v, t, 0, 0, d->last_cycle);
                if (rc)
                    return rc;
                consume(d);
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
              void (*progress)(uint64_t records, void *arg), void *arg)
{
    memset(res, 0, sizeof *res);
    res->ok = 1;
    vstate v;
    memset(&v, 0, sizeof v);
    v.res = res;
    v.enc = tf->cfg.enc;
    v.nx = v.enc.enc == TM_ENC_NX_B;
    v.ts = v.enc.timestamps;
    v.shared = tf->cfg.shared;
    v.ts_mask = tf->cfg.ts_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << tf->cfg.ts_bits) - 1;
    v.n = v.enc.threads;
    v.data = v.enc.data;
    tm_bitrd_init(&v.rd, tf->data, tf->bits);

    tmc_reader *rd = NULL;
    int rc = tmc_reader_open(tmc_path, &rd);
    if (rc != TM_OK) {
        fail(&v, rc, "%s", rd ? tmc_reader_error(rd) : "cannot open the commit stream");
        tmc_reader_close(rd);
        return rc;
    }
    if (tmc_reader_threads(rd) != v.n) {
        rc = fail(&v, TM_ERR_MISMATCH, "the commit stream declares %u threads but the trace was made for %u",
                  tmc_reader_threads(rd), v.n);
        tmc_reader_close(rd);
        return rc;
    }
    if (v.data) {
        rc = tm_load_sizes_open(tmc_path, v.n, &v.ls);
        if (rc != TM_OK) {
            fail(&v, rc, "%s", v.ls ? tm_load_sizes_error(v.ls) : "out of memory");
            goto out;
        }
    }
    v.th = calloc(v.n, sizeof *v.th);
    for (uint32_t i = 0; v.th && i < v.n; i++)
        v.th[i].known.gen = 1;
    tm_pred_cfg pc = tf->cfg.pred;
    if (v.nx)
        memset(&pc, 0, sizeof pc);
    rc = v.th ? TM_OK : TM_ERR_NOMEM;
    if (rc == TM_OK && v.shared)
        rc = tm_pred_new(&pc, &v.shared_pred);
    for (uint32_t i = 0; rc == TM_OK && !v.shared && i < v.n; i++)
        rc = tm_pred_new(&pc, &v.th[i].pred);
    if (rc != TM_OK) {
        fail(&v, rc, "cannot set up the replay: %s", tm_status_str(rc));
        goto out;
    }

    tmc_record r;
    uint64_t nrec = 0;
    while ((rc = tmc_reader_next(rd, &r)) == 1) {
        if ((rc = on_record(&v, &r)) != TM_OK)
            goto out;
        if (progress && (++nrec & ((1u << 22) - 1)) == 0)
            progress(nrec, arg);
    }
    if (rc < 0) {
        fail(&v, rc, "%s", tmc_reader_error(rd));
        goto out;
    }
    for (uint32_t t = 0; t < v.n; t++)
        if ((rc = finish_thread(&v, t)) != TM_OK)
            goto out;
    /* Nothing may be left in the trace. */
    for (uint32_t t = 0; t < v.n; t++)
        if (v.th[t].dq.len) {
            rc = fail(&v, TM_ERR_MISMATCH,
                      "thread %u: the DATA message at trace bit %" PRIu64 " reports a load after the thread's last",
                      t, v.th[t].dq.v[v.th[t].dq.head].pos);
            goto out;
        } else if (v.th[t].q.len || v.th[t].have) {
            rc = fail(&v, TM_ERR_MISMATCH, "thread %u: the trace holds messages beyond the end of the commit stream", t);
            goto out;
        }
    if (v.rd.pos < v.rd.nbits) {
        uint64_t pos = v.rd.pos;
        tm_msg m;
        if ((v.data ? tm_msg_decode_sized(&v.enc, &v.rd, &m, tm_load_sizes_fn, v.ls)
                    : tm_msg_decode(&v.enc, &v.rd, &m)) == TM_OK)
            rc = fail(&v, TM_ERR_MISMATCH, "trace bit %" PRIu64 ": a message for thread %u follows the end of every thread",
                      pos, m.ti);
        else
            rc = fail(&v, TM_ERR_FORMAT, "trace bit %" PRIu64 ": %" PRIu64 " undecodable bits after the last message",
                      pos, v.rd.nbits - pos);
        goto out;
    }
    rc = TM_OK;
out:
    if (v.th)
        for (uint32_t i = 0; i < v.n; i++) {
            tm_pred_free(v.th[i].pred);
            free(v.th[i].q.v);
            free(v.th[i].dq.v);
            free(v.th[i].known.v);
        }
    free(v.th);
    tm_pred_free(v.shared_pred);
    tmc_reader_close(rd);
    tm_load_sizes_close(v.ls);
    if (rc != TM_OK)
        res->ok = 0;
    return rc;
}
