/* tm — trace module model (docs/spec.md §3).
 *
 * The model is event-driven but cycle-exact: it assembles each (cycle, thread)
 * group of the commit stream, runs the cores of a cycle in index order (the
 * arbitration order), and simulates the cycles in which nothing retires in
 * bulk when no thread waits for resynchronization.  Every decision that
 * affects the output bits is named after the spec paragraph that defines it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/model.h"
#include "cache.h"
#include "pred_int.h"

enum { ST_IDLE = 0, ST_RUN, ST_LOST, ST_DONE };

/* What the model keeps of a MEM record (the value only of a load). */
typedef struct memop {
    uint32_t flags;
    uint8_t size;
    uint64_t addr;
    uint8_t value[TMC_MAX_OPERAND];
} memop;
enum { END_NONE = 0, END_EXIT, END_STOP };

typedef struct thread {
    uint8_t state;
    uint8_t dropped;   /* D bit of the pending resync */
    uint8_t pend_end;  /* END_* while LOST */
    uint64_t icnt, bcnt, gap, tail;
    uint64_t pta, pcc, npc;
    uint64_t lost_cycle;
    /* Cached length of the resynchronization message without diffCC, valid
     * for (rs_tail, rs_gap, rs_end): a waiting thread offers every cycle. */
    uint64_t rs_tail, rs_gap;
    unsigned rs_base;
    uint8_t rs_end, rs_valid;
    tm_pred *pred;     /* private organization */
    tm_cache *cache;   /* cfiat, private organization */
    uint64_t fah;      /* loads since the load of the last accepted DATA */
    uint8_t clear_flags; /* SYNC(OVERFLOW) accepted this cycle (spec §3.8) */
    uint8_t empty_tail;  /* LOST: the gap's last group has a memory operand and no
                            instruction; no resynchronization then (spec §3.5) */
    tm_thread_stats st;
} thread;

/* CFiat counts of one operand size class ([0] loads, [1] stores; misses
 * and first-access misses follow from them). */
typedef struct cls_count {
    uint64_t refs[2], hits[2], fa_hits;
} cls_count;

struct tm_model {
    tm_model_cfg cfg;
    const tm_enc_cfg *enc;
    tm_enc_cfg enc_nots;   /* the same encoding without time stamps */
    uint32_t n;
    thread *th;
    tm_pred *shared_pred;
    tm_cache *shared_cache;  /* cfiat_shared */
    tm_cache **pcache;       /* cfiat, private: each thread's cache */
    tm_snoop *snoop;         /* their snoop filter, or NULL */
    cls_count cls[TM_SZ_CLASSES]; /* cfiat counts per operand size class */
    int data;                /* tm_data_mode */
    int any_clear;           /* some thread's clear_flags is set */
    tm_bitbuf trace;
    uint64_t occ;
    uint32_t B, W, reserve, msgmax;
    uint32_t resync_min;   /* no SYNC(OVERFLOW)/END(lost) is shorter */
    uint64_t ts_mask;      /* diffCC is taken modulo 2^ts_bits */
    /* Lengths for the fast path (offer_fast): Ti + Q, and each chunked
     * field's length by the significant bits of its value (0..64). */
    unsigned tiq_bits;
    uint8_t len_cnt[65], len_ta[65], len_cc[65], len_fah[65];

    /* cycle bookkeeping */
    uint64_t next_cycle;   /* first cycle not yet begun */
    uint64_t cur;          /* cycle in progress (valid if in_cycle) */
    int in_cycle;
    uint32_t next_core;    /* arbitration slot reached in cycle `cur` */
    int shared_drop;       /* a shared-organization drop happened in `cur` */
    int cycle_drop;        /* some message dropped in `cur` */
    uint32_t lost_count;   /* threads in ST_LOST */
    uint32_t live_count;   /* threads in ST_RUN or ST_LOST */
    uint64_t last_cycle;
    int any_record, finished;

    /* group being assembled */
    int grp;
    uint32_t g_tid;
    uint64_t g_n;          /* plain instructions */
    uint64_t g_npc;        /* npc after the runs */
    int g_has_npc;
    int g_mem;             /* the group has a memory operand (data tracing) */
    memop g_mrec;          /* it */

    tm_model_stats stats;
    tm_model_msg_hook hook;
    void *hook_arg;
    char err[256];
};

/* ---------------------------------------------------------------- config */

int tm_model_preset(tm_model_cfg *cfg, const char *name)
{
    if (!strcmp(name, "small")) {
        cfg->pred.gshare = 512; cfg->pred.ras = 8; cfg->pred.ibtb = 0;
    } else if (!strcmp(name, "medium")) {
        cfg->pred.gshare = 1024; cfg->pred.ras = 16; cfg->pred.ibtb = 16;
    } else if (!strcmp(name, "large")) {
        cfg->pred.gshare = 4096; cfg->pred.ras = 32; cfg->pred.ibtb = 64;
    } else {
        return TM_ERR_ARG;
    }
    return TM_OK;
}

void tm_model_cfg_default(tm_model_cfg *cfg, uint32_t threads)
{
    memset(cfg, 0, sizeof *cfg);
    tm_enc_cfg_default(&cfg->enc, TM_ENC_TR_E, threads, 0);
    tm_model_preset(cfg, "large");
}

int tm_model_cfg_resolve(tm_model_cfg *cfg, char *err, unsigned long errlen)
{
    if (cfg->enc.threads < 1 || cfg->enc.threads > TMC_MAX_THREADS) {
        snprintf(err, errlen, "threads %u: allowed 1..%u", cfg->enc.threads, TMC_MAX_THREADS);
        return TM_ERR_ARG;
    }
    if (cfg->enc.data > TM_DATA_ALL) {
        snprintf(err, errlen, "data tracing mode %u: allowed none, cfiat, all", cfg->enc.data);
        return TM_ERR_ARG;
    }
    if (tm_enc_cfg_check(&cfg->enc) != TM_OK) {
        if (cfg->enc.data)
            snprintf(err, errlen, "chunk sizes (%u,%u)/(%u,%u)/(%u,%u), fah (%u,%u): each must be 1..32",
                     cfg->enc.cnt_a, cfg->enc.cnt_b, cfg->enc.ta_a, cfg->enc.ta_b, cfg->enc.cc_a,
                     cfg->enc.cc_b, cfg->enc.fah_a, cfg->enc.fah_b);
        else
            snprintf(err, errlen, "chunk sizes (%u,%u)/(%u,%u)/(%u,%u): each must be 1..32",
                     cfg->enc.cnt_a, cfg->enc.cnt_b, cfg->enc.ta_a, cfg->enc.ta_b,
                     cfg->enc.cc_a, cfg->enc.cc_b);
        return TM_ERR_ARG;
    }
    if (tm_pred_cfg_check(&cfg->pred, err, errlen) != TM_OK)
        return TM_ERR_ARG;
    if (cfg->enc.data == TM_DATA_CFIAT) {
        if (!cfg->cache.size && !cfg->cache.assoc && !cfg->cache.line && !cfg->cache.gran)
            tm_cache_preset(&cfg->cache, "tool");
        if (tm_cache_cfg_check(&cfg->cache, err, errlen) != TM_OK)
            return TM_ERR_ARG;
    } else {
        if (cfg->cfiat_shared) {
            snprintf(err, errlen, "--cfiat-shared: only with CFiat data tracing (--cfiat)");
            return TM_ERR_ARG;
        }
        memset(&cfg->cache, 0, sizeof cfg->cache);
    }
    if (!cfg->enc.data)
        cfg->enc.fah_a = cfg->enc.fah_b = 0;
    unsigned msgmax = tm_msg_max_bits(&cfg->enc);
    if (cfg->port_bits == 0)
        cfg->port_bits = cfg->enc.data ? 32 : 4; /* load values need a wider port */
    if (cfg->ts_bits == 0)
        cfg->ts_bits = 64;
    if (cfg->ts_bits < 8 || cfg->ts_bits > 64) {
        snprintf(err, errlen, "--ts-bits %u: allowed 8..64", cfg->ts_bits);
        return TM_ERR_ARG;
    }
    if (cfg->port_bits > 1024) {
        snprintf(err, errlen, "--port %u: allowed 1..1024 bits per cycle", cfg->port_bits);
        return TM_ERR_ARG;
    }
    if (cfg->buffer_bits == 0) {
        uint32_t b = cfg->enc.threads * (cfg->enc.data ? 1024u : 64u);
        uint32_t m = (msgmax * (cfg->enc.data ? 2u : 1u) + 63u) / 64u * 64u;
        cfg->buffer_bits = b > m ? b : m;
    }
    if (cfg->buffer_bits < msgmax || cfg->buffer_bits > (1u << 24)) {
        snprintf(err, errlen,
                 "--buffer %u: allowed %u..%u bits (the minimum is the longest message of "
                 "this encoding, see docs/spec.md §4.6)",
                 cfg->buffer_bits, msgmax, 1u << 24);
        return TM_ERR_ARG;
    }
    return TM_OK;
}

/* ---------------------------------------------------------------- life */

int tm_model_new(const tm_model_cfg *cfg, tm_model **out)
{
    *out = NULL;
    tm_model_cfg c = *cfg;
    char err[200];
    if (tm_model_cfg_resolve(&c, err, sizeof err) != TM_OK)
        return TM_ERR_ARG;
    tm_model *m = calloc(1, sizeof *m);
    if (!m)
        return TM_ERR_NOMEM;
    m->cfg = c;
    m->enc = &m->cfg.enc;
    m->ts_mask = c.ts_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << c.ts_bits) - 1;
    m->enc_nots = m->cfg.enc;
    m->enc_nots.timestamps = 0;
    m->n = c.enc.threads;
    m->B = c.buffer_bits;
    m->W = c.port_bits;
    m->msgmax = tm_msg_max_bits(m->enc);
    m->tiq_bits = tm_ti_bits(c.enc.threads) + (c.enc.data ? 1u : 0u);
    for (unsigned k = 0; k <= 64; k++) {
        uint64_t v = k ? UINT64_C(1) << (k - 1) : 0; /* any value of k bits */
        m->len_cnt[k] = (uint8_t)tm_chunked_bits(v, c.enc.cnt_a, c.enc.cnt_b);
        m->len_ta[k] = (uint8_t)tm_chunked_bits(v, c.enc.ta_a, c.enc.ta_b);
        m->len_cc[k] = (uint8_t)tm_chunked_bits(v, c.enc.cc_a, c.enc.cc_b);
        m->len_fah[k] = c.enc.data ? (uint8_t)tm_chunked_bits(v, c.enc.fah_a, c.enc.fah_b) : 0;
    }
    m->reserve = tm_msg_reserve_bits(m->enc);
    {
        /* The shortest resynchronization message: END(lost) of zeros. */
        tm_msg e;
        memset(&e, 0, sizeof e);
        e.kind = TM_MSG_END;
        e.lost = 1;
        m->resync_min = tm_msg_bits(m->enc, &e);
    }
    tm_bitbuf_init(&m->trace);
    m->th = calloc(m->n, sizeof *m->th);
    if (!m->th)
        goto nomem;
    /* nx_b has no predictors: keep empty sets so the code paths are uniform. */
    tm_pred_cfg pc = c.pred;
    if (c.enc.enc == TM_ENC_NX_B)
        memset(&pc, 0, sizeof pc);
    if (c.shared) {
        if (tm_pred_new(&pc, &m->shared_pred) != TM_OK)
            goto nomem;
    } else {
        for (uint32_t i = 0; i < m->n; i++)
            if (tm_pred_new(&pc, &m->th[i].pred) != TM_OK)
                goto nomem;
    }
    m->data = c.enc.data;
    if (m->data == TM_DATA_CFIAT) {
        if (c.cfiat_shared) {
            if (tm_cache_new(&c.cache, 1, &m->shared_cache) != TM_OK)
                goto nomem;
        } else {
            m->pcache = calloc(m->n, sizeof *m->pcache);
            if (!m->pcache)
                goto nomem;
            m->snoop = tm_snoop_new(&c.cache, m->n); /* NULL: probes without a filter */
            for (uint32_t i = 0; i < m->n; i++) {
                if (tm_cache_new(&c.cache, 0, &m->th[i].cache) != TM_OK)
                    goto nomem;
                tm_cache_set_snoop(m->th[i].cache, m->snoop);
                m->pcache[i] = m->th[i].cache;
            }
        }
    }
    m->stats.threads = m->n;
    m->stats.buffer_bits = m->B;
    m->stats.port_bits = m->W;
    m->stats.msg_max_bits = m->msgmax;
    m->stats.reserve_bits = m->reserve;
    *out = m;
    return TM_OK;
nomem:
    tm_model_free(m);
    return TM_ERR_NOMEM;
}

void tm_model_free(tm_model *m)
{
    if (!m)
        return;
    if (m->th)
        for (uint32_t i = 0; i < m->n; i++) {
            tm_pred_free(m->th[i].pred);
            tm_cache_free(m->th[i].cache);
        }
    free(m->th);
    free(m->pcache);
    tm_snoop_free(m->snoop);
    tm_pred_free(m->shared_pred);
    tm_cache_free(m->shared_cache);
    tm_bitbuf_free(&m->trace);
    free(m);
}

void tm_model_set_hook(tm_model *m, tm_model_msg_hook hook, void *arg)
{
    m->hook = hook;
    m->hook_arg = arg;
}

const tm_bitbuf *tm_model_trace(const tm_model *m) { return &m->trace; }
const char *tm_model_error(const tm_model *m) { return m->err; }

const tm_thread_stats *tm_model_thread_stats(const tm_model *m, uint32_t t)
{
    return t < m->n ? &m->th[t].st : NULL;
}

static tm_pred *pred_of(tm_model *m, uint32_t t)
{
    return m->shared_pred ? m->shared_pred : m->th[t].pred;
}

/* ---------------------------------------------------------------- port */

/* One cycle's port transfer (spec §3.6 step 1). */
static void port_cycle(tm_model *m)
{
    uint64_t d = m->occ < m->W ? m->occ : m->W;
    m->occ -= d;
    if (d)
        m->stats.busy_cycles++;
    else
        m->stats.idle_cycles++;
}

/* K cycles in which nothing is offered: only the port drains. */
static void port_bulk(tm_model *m, uint64_t k)
{
    if (!k)
        return;
    if (!m->occ) {
        m->stats.idle_cycles += k;
        return;
    }
    uint64_t need = (m->occ + m->W - 1) / m->W; /* cycles to empty the buffer */
    uint64_t busy = need < k ? need : k;
    m->stats.busy_cycles += busy;
    m->stats.idle_cycles += k - busy;
    if (need <= k)
        m->occ = 0;
    else
        m->occ -= k * (uint64_t)m->W;
}

/* ---------------------------------------------------------------- offers */

/* Offers the bundle of core T (spec §3.6 step 2, §3.8): the DATA message
 * DMSG (NULL if none) followed by the control message MSG (NULL if none).
 * Returns 1 if accepted. */
static int offer2(tm_model *m, uint32_t t, tm_msg *dmsg, tm_msg *msg, int resync)
{
    thread *th = &m->th[t];
    unsigned Ld = 0, L = 0;
    if (dmsg) {
        dmsg->ti = t;
        Ld = tm_msg_bits(m->enc, dmsg);
    }
    if (msg) {
        msg->ti = t;
        if (m->enc->timestamps)
            msg->diff_cc = (m->cur - th->pcc) & m->ts_mask;
        L = tm_msg_bits(m->enc, msg);
    }
    uint64_t freeb = m->B - m->occ;
    uint64_t Lb = (uint64_t)Ld + L;
    int ok = Lb <= freeb && (resync || m->lost_count == 0 || freeb - Lb >= m->reserve);
    if (m->hook && (ok || !resync)) {
        if (dmsg)
            m->hook(m->hook_arg, m->cur, t, dmsg, Ld, ok);
        if (msg)
            m->hook(m->hook_arg, m->cur, t, msg, L, ok);
    }
    if (!ok) {
        if (!resync) {
            th->st.dropped_messages += (dmsg != NULL) + (msg != NULL);
            th->st.dropped_bits += Lb;
            th->st.dropped_data += dmsg != NULL;
            m->cycle_drop = 1;
        }
        return 0;
    }
    if (dmsg) {
        tm_msg_encode(m->enc, dmsg, &m->trace, &th->st.bits);
        th->st.messages[TM_MSG_DATA]++;
        th->st.data_bits += Ld;
    }
    if (msg) {
        tm_msg_encode(m->enc, msg, &m->trace, &th->st.bits);
        th->st.messages[msg->kind]++;
        if (msg->kind == TM_MSG_SYNC)
            th->st.sync_reasons[msg->reason]++;
    }
    m->occ += Lb;
    if (m->occ > m->stats.peak_occupancy)
        m->stats.peak_occupancy = m->occ;
    th->st.bits_total += Lb;
    return 1;
}

static int offer(tm_model *m, uint32_t t, tm_msg *msg, int resync)
{
    return offer2(m, t, NULL, msg, resync);
}

/* Significant bits of V (0 for 0). */
static inline unsigned nbits64(uint64_t v)
{
    return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
}

static inline uint64_t abs64(int64_t d)
{
    return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
}

/* offer2 for the common bundle, without tm_msg structures and without a
 * hook: a DATA message for the group's load if DM, then a BRANCH message
 * (CNT, TBIT, DIFF_TA) if HAVE.  Lengths come from the tables (the same as
 * tm_msg_bits); not a resynchronization.  Returns 1 if accepted. */
static int offer_fast(tm_model *m, uint32_t t, int dm, int have, uint64_t cnt, unsigned tbit,
                      int64_t diff_ta)
{
    thread *th = &m->th[t];
    unsigned Ld = 0, L = 0;
    uint64_t dcc = 0;
    if (dm)
        Ld = m->tiq_bits + m->len_fah[nbits64(th->fah)] + 8u * m->g_mrec.size;
    if (have) {
        L = m->tiq_bits + m->len_cnt[nbits64(cnt)] + 1;
        if (tbit)
            L += 1 + m->len_ta[nbits64(abs64(diff_ta))];
        if (m->enc->timestamps) {
            dcc = (m->cur - th->pcc) & m->ts_mask;
            L += m->len_cc[nbits64(dcc)];
        }
    }
    uint64_t freeb = m->B - m->occ;
    uint64_t Lb = (uint64_t)Ld + L;
    if (Lb > freeb || (m->lost_count != 0 && freeb - Lb < m->reserve)) {
        th->st.dropped_messages += (unsigned)dm + (unsigned)have;
        th->st.dropped_bits += Lb;
        th->st.dropped_data += (unsigned)dm;
        m->cycle_drop = 1;
        return 0;
    }
    if (dm) {
        tm_msg_encode_data(m->enc, t, th->fah, m->g_mrec.value, m->g_mrec.size, &m->trace, &th->st.bits);
        th->st.messages[TM_MSG_DATA]++;
        th->st.data_bits += Ld;
    }
    if (have) {
        tm_msg_encode_branch(m->enc, t, cnt, tbit, diff_ta, dcc, &m->trace, &th->st.bits);
        th->st.messages[TM_MSG_BRANCH]++;
    }
    m->occ += Lb;
    if (m->occ > m->stats.peak_occupancy)
        m->stats.peak_occupancy = m->occ;
    th->st.bits_total += Lb;
    return 1;
}

/* Bookkeeping of an accepted message of KIND (spec §3.4 step 4): TBIT of a
 * BRANCH, REASON of a SYNC. */
static void accepted_k(tm_model *m, uint32_t t, int kind, unsigned tbit, unsigned reason, uint64_t target)
{
    thread *th = &m->th[t];
    th->icnt = th->bcnt = 0;
    th->pcc = m->cur;
    if ((kind == TM_MSG_BRANCH && tbit) || kind == TM_MSG_EXC || kind == TM_MSG_SYNC)
        th->pta = target;
    if (kind == TM_MSG_SYNC && reason == TM_SYNC_OVERFLOW && m->data == TM_DATA_CFIAT) {
        th->clear_flags = 1;
        m->any_clear = 1;
    }
    if (kind == TM_MSG_END) {
        if (th->state == ST_LOST)
            m->lost_count--;
        th->state = ST_DONE;
        m->live_count--;
    } else if (th->state == ST_LOST) {
        th->state = ST_RUN;
        m->lost_count--;
    }
}

static void accepted(tm_model *m, uint32_t t, const tm_msg *msg, uint64_t target)
{
    accepted_k(m, t, msg->kind, msg->t, msg->reason, target);
}

/* Thread T becomes LOST in the current cycle (spec §3.5). */
static void make_lost(tm_model *m, uint32_t t, uint64_t tail, uint64_t gap, int dropped, int pend_end)
{
    thread *th = &m->th[t];
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
    if (!m->shared_pred)
        tm_pred_reset(th->pred);
}

/* The message of core T was dropped: T (and, shared, every RUN thread)
 * becomes LOST. */
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

/* A LOST thread offers its resynchronization in its slot (spec §3.5). */
static void offer_resync(tm_model *m, uint32_t t)
{
    thread *th = &m->th[t];
    if (th->lost_cycle >= m->cur || m->shared_drop)
        return;
    /* With data tracing, not right after a group of operands alone: the
     * debugger could not tell it from the groups after the gap (§3.5). */
    if (th->empty_tail && !th->pend_end)
        return;
    uint64_t freeb = m->B - m->occ;
    if (freeb < m->resync_min)
        return; /* cannot fit, whatever its fields */
    /* A resynchronization that does not fit is offered again next cycle and
     * changes nothing: decide from the cached length (diffCC is the last
     * field, spec §4.3) before building the message. */
    int valid = th->rs_valid && th->rs_tail == th->tail && th->rs_gap == th->gap &&
                th->rs_end == th->pend_end;
    if (valid) {
        uint64_t L = th->rs_base;
        if (m->enc->timestamps)
            L += tm_chunked_bits((m->cur - th->pcc) & m->ts_mask, m->enc->cc_a, m->enc->cc_b);
        if (L > freeb)
            return;
    }
    tm_msg msg;
    memset(&msg, 0, sizeof msg);
    msg.ti = t;
    msg.icnt = th->tail;
    msg.gap = th->gap;
    msg.dropped = th->dropped;
    if (th->pend_end) {
        msg.kind = TM_MSG_END;
        msg.reason = th->pend_end == END_STOP ? TM_END_STOP : TM_END_EXIT;
        msg.lost = 1;
    } else {
        msg.kind = TM_MSG_SYNC;
        msg.reason = TM_SYNC_OVERFLOW;
        msg.addr = th->npc;
    }
    if (!valid) {
        th->rs_base = tm_msg_bits(&m->enc_nots, &msg);
        th->rs_tail = th->tail;
        th->rs_gap = th->gap;
        th->rs_end = th->pend_end;
        th->rs_valid = 1;
        uint64_t L = th->rs_base;
        if (m->enc->timestamps)
            L += tm_chunked_bits((m->cur - th->pcc) & m->ts_mask, m->enc->cc_a, m->enc->cc_b);
        if (L > freeb)
            return;
    }
    if (offer(m, t, &msg, 1))
        accepted(m, t, &msg, th->npc);
}

/* ---------------------------------------------------------------- cycles */

static void begin_cycle(tm_model *m, uint64_t c)
{
    m->cur = c;
    m->in_cycle = 1;
    m->next_core = 0;
    m->shared_drop = 0;
    m->cycle_drop = 0;
    port_cycle(m);
    m->next_cycle = c + 1;
}

/* Slots of LOST cores before core LIMIT that have no group this cycle. */
static inline void lost_slots(tm_model *m, uint32_t limit)
{
    if (__builtin_expect(m->lost_count != 0, 0))
        for (uint32_t j = m->next_core; j < limit; j++)
            if (m->th[j].state == ST_LOST)
                offer_resync(m, j);
    if (limit > m->next_core)
        m->next_core = limit;
}

static void end_cycle(tm_model *m)
{
    if (!m->in_cycle)
        return;
    lost_slots(m, m->n);
    if (m->cycle_drop)
        m->stats.overflow_cycles++;
    if (m->any_clear) {
        /* Resynchronized threads forget their flags (spec §3.8). */
        m->any_clear = 0;
        for (uint32_t t = 0; t < m->n; t++)
            if (m->th[t].clear_flags) {
                m->th[t].clear_flags = 0;
                tm_cache_clear_flags(m->shared_cache ? m->shared_cache : m->th[t].cache);
                m->stats.cache.flag_clears++;
            }
    }
    m->in_cycle = 0;
}

/* Simulates the cycles before C in which nothing retires, then begins C. */
static void advance_to(tm_model *m, uint64_t c)
{
    end_cycle(m);
    while (m->next_cycle < c) {
        if (m->lost_count) {
            /* Cycles whose port transfer still leaves less room than the
             * shortest resynchronization message cannot accept anything:
             * drain them in bulk (identical to stepping them). */
            uint64_t need_free = m->resync_min;
            if (m->occ > m->B - need_free) {
                uint64_t excess = m->occ - (m->B - need_free);
                uint64_t j = (excess + m->W - 1) / m->W; /* first cycle with room */
                uint64_t skip = j - 1;
                if (skip > c - m->next_cycle)
                    skip = c - m->next_cycle;
                if (skip) {
                    port_bulk(m, skip);
                    m->next_cycle += skip;
                    continue;
                }
            }
            begin_cycle(m, m->next_cycle);
            end_cycle(m);
        } else {
            port_bulk(m, c - m->next_cycle);
            m->next_cycle = c;
        }
    }
    begin_cycle(m, c);
}

/* ---------------------------------------------------------------- groups */

/* tm_size_class of 0..64 */
#define O TM_SZ_OTHER
static const uint8_t size_class[TM_DATA_MAX_SIZE + 1] = {
    O, TM_SZ_BYTE, TM_SZ_WORD, O, TM_SZ_DWORD, O, O, O, TM_SZ_QWORD, O, TM_SZ_10, O, O, O, O, O,
    TM_SZ_OWORD, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, TM_SZ_HWORD, O, O, O, O, O, O, O, O,
    O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, O, TM_SZ_64,
};
#undef O

/* The memory operand of thread T's group goes through the cache (spec
 * §3.8).  Returns 1 if the thread forms a DATA message for it. */
static int mem_operand(tm_model *m, uint32_t t)
{
    /* Branch-free counting: whether an operand is a load, hits, needs a
     * report, are data the host cannot predict. */
    thread *th = &m->th[t];
    const memop *r = &m->g_mrec;
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

/* Processes the group of thread T in the current cycle: G_N plain
 * instructions then the event EV (NULL if none) (spec §3.4). */
static int process_group(tm_model *m, uint32_t t, const tmc_record *ev)
{
    thread *th = &m->th[t];
    lost_slots(m, t);
    m->next_core = t + 1;
    uint64_t n = m->g_n;
    th->st.instructions += n;
    if (m->g_has_npc)
        th->npc = m->g_npc;

    if (ev && ev->type == TMC_START) {
        if (m->g_mem) {
            snprintf(m->err, sizeof m->err, "cycle %llu: thread %u has a memory operand before it starts",
                     (unsigned long long)m->cur, t);
            return TM_ERR_ARG;
        }
        if (th->state != ST_IDLE) {
            snprintf(m->err, sizeof m->err, "cycle %llu: thread %u started twice",
                     (unsigned long long)m->cur, t);
            return TM_ERR_ARG;
        }
        th->state = ST_RUN;
        m->live_count++;
        th->npc = ev->pc;
        th->icnt = th->bcnt = 0;
        if (!m->shared_pred)
            tm_pred_reset(th->pred);
        tm_msg msg;
        memset(&msg, 0, sizeof msg);
        msg.kind = TM_MSG_SYNC;
        msg.reason = (ev->flags & TMC_START_TRACE_ON) ? TM_SYNC_TRACE_ON : TM_SYNC_START;
        msg.addr = ev->pc;
        if (m->shared_drop) {
            msg.ti = t;
            unsigned L = tm_msg_bits(m->enc, &msg);
            th->st.dropped_messages++;
            th->st.dropped_bits += L;
            make_lost(m, t, 0, 0, 1, END_NONE);
        } else if (offer(m, t, &msg, 0)) {
            accepted(m, t, &msg, ev->pc);
        } else {
            dropped(m, t, 0, 0, END_NONE);
        }
        return TM_OK;
    }
    if (th->state != ST_RUN && th->state != ST_LOST) {
        snprintf(m->err, sizeof m->err, "cycle %llu: thread %u retires while %s",
                 (unsigned long long)m->cur, t, th->state == ST_IDLE ? "not started" : "exited");
        return TM_ERR_ARG;
    }
    /* The memory operand first, then the event (spec §3.8). */
    int dm = m->g_mem ? mem_operand(m, t) : 0;

    uint64_t extra = 0;      /* instructions + exceptions of the event */
    int pend = END_NONE;
    if (ev) {
        if (ev->type == TMC_BRANCH) {
            extra = 1;
            th->st.instructions++;
            th->st.branches[ev->bclass]++;
            if (ev->bclass == TMC_COND && ev->taken)
                th->st.taken_cond++;
            th->npc = ev->taken ? ev->target : ev->pc + ev->len;
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
        if (pend)
            th->pend_end = (uint8_t)pend;
        if (n + extra)
            th->empty_tail = 0;
        else if (m->g_mem)
            th->empty_tail = 1;
        offer_resync(m, t);
        return TM_OK;
    }

    /* ST_RUN */
    uint64_t icnt_before = th->icnt;
    th->icnt += n;
    struct {  /* the control message's fields (a whole tm_msg only if needed) */
        int kind;
        uint8_t t, reason;
        uint64_t cnt, icnt;
        int64_t diff_ta;
    } msg = {TM_MSG_BRANCH, 0, 0, 0, 0, 0};
    int have = 0;
    uint64_t target = 0;
    if (ev && ev->type == TMC_BRANCH) {
        th->icnt++;
        int tr = m->enc->enc != TM_ENC_NX_B;
        tm_pred *p = pred_of(m, t);
        switch (ev->bclass) {
        case TMC_COND:
            if (tr) {
                th->bcnt++;
                int pred = pred_cond_predict(p, ev->pc);
                pred_cond_update(p, ev->pc, ev->taken);
                th->st.cond_predicted++;
                if (pred != ev->taken) {
                    th->st.cond_mispredicted++;
                    msg.kind = TM_MSG_BRANCH; msg.cnt = th->bcnt; msg.t = 0;
                    have = 1;
                }
            } else if (ev->taken) {
                msg.kind = TM_MSG_BRANCH; msg.cnt = th->icnt; msg.t = 0;
                have = 1;
            }
            break;
        case TMC_JUMP:
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
                    msg.kind = TM_MSG_BRANCH; msg.cnt = th->bcnt; msg.t = 1;
                    have = 1;
                }
            } else {
                msg.kind = TM_MSG_BRANCH; msg.cnt = th->icnt; msg.t = 1;
                have = 1;
            }
            if (have) {
                target = ev->target;
                msg.diff_ta = (int64_t)(ev->target - th->pta);
            }
            break;
        default:
            break;
        }
    } else if (ev && ev->type == TMC_EXC) {
        msg.kind = TM_MSG_EXC;
        msg.cnt = 0;
        msg.icnt = th->icnt;
        msg.diff_ta = (int64_t)(ev->target - th->pta);
        target = ev->target;
        have = 1;
    } else if (pend) {
        msg.kind = TM_MSG_END;
        msg.cnt = 0;
        msg.reason = pend == END_STOP ? TM_END_STOP : TM_END_EXIT;
        msg.icnt = th->icnt;
        have = 1;
    }
    if (!have && !dm)
        return TM_OK;
    if (m->shared_drop) {
        /* Unreachable: after a shared drop every RUN thread is LOST. */
        return TM_OK;
    }
    int ok;
    if (!m->hook && (!have || msg.kind == TM_MSG_BRANCH)) {
        ok = offer_fast(m, t, dm, have, msg.cnt, msg.t, msg.diff_ta);
    } else {
        /* Whole messages: every field the kind does not use is 0 (they are
         * not encoded, but the hook and the tests see the whole message). */
        tm_msg dmsg, full;
        if (dm) {
            memset(&dmsg, 0, sizeof dmsg);
            dmsg.kind = TM_MSG_DATA;
            dmsg.fah = th->fah;
            dmsg.size = m->g_mrec.size;
            memcpy(dmsg.value, m->g_mrec.value, dmsg.size);
        }
        if (have) {
            memset(&full, 0, sizeof full);
            full.kind = (tm_msg_kind)msg.kind;
            full.cnt = msg.cnt;
            full.t = msg.t;
            if (msg.kind == TM_MSG_BRANCH && msg.t)
                full.diff_ta = msg.diff_ta;
            if (msg.kind == TM_MSG_EXC) {
                full.diff_ta = msg.diff_ta;
                full.icnt = msg.icnt;
            }
            if (msg.kind == TM_MSG_END) {
                full.icnt = msg.icnt;
                full.reason = msg.reason;
            }
        }
        ok = offer2(m, t, dm ? &dmsg : NULL, have ? &full : NULL, 0);
    }
    if (ok) {
        if (have)
            accepted_k(m, t, msg.kind, msg.t, msg.reason, target);
        if (dm)
            th->fah = 0;
    } else {
        th->fah += dm;
        /* The dropped group is in the gap (spec §3.5): count its
         * instructions and its memory operand there (spec §8). */
        th->st.lost_instructions += th->icnt - icnt_before;
        if (m->g_mem) {
            if (m->g_mrec.flags & TMC_MEM_STORE)
                th->st.lost_stores++;
            else
                th->st.lost_loads++;
        }
        uint64_t gap = th->icnt - icnt_before + (ev && ev->type == TMC_EXC);
        dropped(m, t, icnt_before, gap, pend);
        th->empty_tail = gap == 0 && m->g_mem;
    }
    return TM_OK;
}

static int flush_group(tm_model *m, const tmc_record *ev)
{
    if (!m->grp && !ev)
        return TM_OK;
    int rc = process_group(m, m->g_tid, ev);
    m->grp = 0;
    m->g_n = 0;
    m->g_has_npc = 0;
    m->g_mem = 0;
    return rc;
}

/* A MEM (of thread TID in CYCLE) of the group being assembled.  VALUE
 * holds whole 8-byte words (SIZE rounded up). */
static inline int put_mem_fields(tm_model *m, uint64_t cycle, uint32_t tid, uint32_t flags, unsigned size,
                                 uint64_t addr, const uint8_t *value)
{
    if (!m->data)
        return TM_OK;
    if (m->g_mem) {
        snprintf(m->err, sizeof m->err,
                 "cycle %llu thread %u: two memory operands in one cycle; with data tracing the "
                 "retire interface carries at most one per thread per cycle (docs/spec.md §3.8)",
                 (unsigned long long)cycle, tid);
        return TM_ERR_ARG;
    }
    if (size < 1 || size > TM_DATA_MAX_SIZE) {
        snprintf(m->err, sizeof m->err, "cycle %llu thread %u: memory operand of %u bytes (allowed 1..%u)",
                 (unsigned long long)cycle, tid, size, TM_DATA_MAX_SIZE);
        return TM_ERR_ARG;
    }
    m->g_mem = 1;
    m->g_mrec.flags = flags;
    m->g_mrec.size = (uint8_t)size;
    m->g_mrec.addr = addr;
    if (!(flags & TMC_MEM_STORE)) {
        /* The words of the value, 8 bytes at a time (a memcpy of SIZE
         * bytes may become rep movs; wider loads than the producer's stores
         * would not be forwarded from them).  Only the first SIZE bytes are
         * used. */
        unsigned nw = (size + 7u) / 8u;
        for (unsigned q = 0; q < nw; q++)
            memcpy(m->g_mrec.value + 8 * q, value + 8 * q, 8);
    }
    return TM_OK;
}

/* A MEM record of the group being assembled. */
static int put_mem(tm_model *m, const tmc_record *r)
{
    return put_mem_fields(m, r->cycle, r->tid, r->flags, r->size, r->addr, r->value);
}

/* Record R (START .. MEM) of the group being assembled: a RUN or MEM joins
 * it, an event ends it. */
static inline int add_to_group(tm_model *m, const tmc_record *r)
{
    switch (r->type) {
    case TMC_RUN:
        m->g_n += r->count;
        m->g_npc = r->pc + r->bytes;
        m->g_has_npc = 1;
        return TM_OK;
    case TMC_MEM:
        return put_mem(m, r);
    default: /* START, EXIT, BRANCH, EXC */
        return flush_group(m, r);
    }
}

/* A record of thread TID in CYCLE that does not join the group being
 * assembled (after the finish and MODULE / END checks): the checks, the
 * group before it, the cycles before it; its group is then open. */
static int open_group(tm_model *m, uint32_t tid, uint64_t cycle)
{
    if (tid >= m->n) {
        snprintf(m->err, sizeof m->err, "thread id %u out of range (model has %u threads)", tid, m->n);
        return TM_ERR_ARG;
    }
    if (m->any_record && (cycle < m->last_cycle ||
                          (cycle == m->last_cycle && m->grp == 0 && tid < m->next_core) ||
                          (cycle == m->last_cycle && m->grp && tid < m->g_tid))) {
        snprintf(m->err, sizeof m->err, "cycle %llu thread %u: records out of (cycle, thread) order",
                 (unsigned long long)cycle, tid);
        return TM_ERR_ARG;
    }
    int rc;
    if (m->grp && (cycle != m->cur || tid != m->g_tid)) {
        if ((rc = flush_group(m, NULL)) != TM_OK)
            return rc;
    }
    if (!m->in_cycle || cycle != m->cur)
        advance_to(m, cycle);
    m->any_record = 1;
    m->last_cycle = cycle;
    if (!m->grp) {
        m->grp = 1;
        m->g_tid = tid;
    }
    return TM_OK;
}

int tm_model_put_group(tm_model *m, const tmc_group *g)
{
    int rc;
    if (!(m->grp && g->tid == m->g_tid && g->cycle == m->cur)) {
        if (m->finished) {
            snprintf(m->err, sizeof m->err, "record after tm_model_finish");
            return TM_ERR_STATE;
        }
        if ((rc = open_group(m, g->tid, g->cycle)) != TM_OK)
            return rc;
    }
    if (g->count) {
        m->g_n += g->count;
        m->g_npc = g->pc + g->bytes;
        m->g_has_npc = 1;
    }
    if (g->mem && (rc = put_mem_fields(m, g->cycle, g->tid, g->mflags, g->msize, g->maddr, g->mvalue)) != TM_OK)
        return rc;
    if (!g->ev)
        return TM_OK;
    tmc_type et = g->ev->type;
    if (et != TMC_START && et != TMC_EXIT && et != TMC_BRANCH && et != TMC_EXC) {
        snprintf(m->err, sizeof m->err, "a group's event of record type %d", (int)g->ev->type);
        return TM_ERR_ARG;
    }
    return flush_group(m, g->ev);
}

int tm_model_put(tm_model *m, const tmc_record *r)
{
    /* Fast path: another record of the group being assembled (same cycle
     * and thread; every check below holds for it). */
    if (m->grp && r->tid == m->g_tid && r->cycle == m->cur && r->type >= TMC_START && r->type <= TMC_MEM)
        return add_to_group(m, r);
    if (m->finished) {
        snprintf(m->err, sizeof m->err, "record after tm_model_finish");
        return TM_ERR_STATE;
    }
    if (r->type == TMC_MODULE || r->type == TMC_END || r->type == TMC_CUT)
        return TM_OK;
    int rc;
    if ((rc = open_group(m, r->tid, r->cycle)) != TM_OK)
        return rc;
    if (r->type < TMC_START || r->type > TMC_MEM) {
        snprintf(m->err, sizeof m->err, "unknown record type %d", (int)r->type);
        return TM_ERR_ARG;
    }
    return add_to_group(m, r);
}

int tm_model_finish(tm_model *m)
{
    if (m->finished)
        return TM_OK;
    int rc = flush_group(m, NULL);
    if (rc != TM_OK)
        return rc;
    end_cycle(m);
    m->stats.exec_cycles = m->any_record ? m->last_cycle + 1 : 0;
    if (m->live_count) {
        /* Flush (spec §3.7): cycle L + 1. */
        begin_cycle(m, m->any_record ? m->last_cycle + 1 : 0);
        for (uint32_t t = 0; t < m->n; t++) {
            thread *th = &m->th[t];
            m->next_core = t;
            if (th->state == ST_RUN) {
                tm_msg msg;
                memset(&msg, 0, sizeof msg);
                msg.kind = TM_MSG_END;
                msg.reason = TM_END_STOP;
                msg.icnt = th->icnt;
                if (m->shared_drop) {
                    make_lost(m, t, th->icnt, 0, 1, END_STOP);
                } else if (offer(m, t, &msg, 0)) {
                    accepted(m, t, &msg, 0);
                } else {
                    dropped(m, t, th->icnt, 0, END_STOP);
                }
            } else if (th->state == ST_LOST) {
                if (!th->pend_end)
                    th->pend_end = END_STOP;
                offer_resync(m, t);
            }
        }
        m->next_core = m->n;
        end_cycle(m);
        while (m->live_count) {
            begin_cycle(m, m->next_cycle);
            end_cycle(m);
        }
    }
    /* Drain. */
    uint64_t need = (m->occ + m->W - 1) / m->W;
    port_bulk(m, need);
    m->next_cycle += need;
    m->stats.cycles = m->any_record ? m->next_cycle : 0;
    m->finished = 1;

    /* Totals. */
    tm_thread_stats *T = &m->stats.total;
    memset(T, 0, sizeof *T);
    for (uint32_t t = 0; t < m->n; t++) {
        const tm_thread_stats *s = &m->th[t].st;
        T->instructions += s->instructions;
        for (int c = 0; c < TMC_NCLASSES; c++)
            T->branches[c] += s->branches[c];
        T->taken_cond += s->taken_cond;
        T->exceptions += s->exceptions;
        T->cond_predicted += s->cond_predicted;
        T->cond_mispredicted += s->cond_mispredicted;
        T->target_predicted += s->target_predicted;
        T->target_mispredicted += s->target_mispredicted;
        for (int k = 0; k < TM_MSG_KINDS; k++)
            T->messages[k] += s->messages[k];
        for (int k = 0; k < 3; k++)
            T->sync_reasons[k] += s->sync_reasons[k];
        T->bits.ti += s->bits.ti;
        T->bits.cnt += s->bits.cnt;
        T->bits.diffta += s->bits.diffta;
        T->bits.diffcc += s->bits.diffcc;
        T->bits.sync += s->bits.sync;
        T->bits.q += s->bits.q;
        T->bits.fah += s->bits.fah;
        T->bits.value += s->bits.value;
        T->loads += s->loads;
        T->stores += s->stores;
        T->lost_loads += s->lost_loads;
        T->lost_stores += s->lost_stores;
        T->reports += s->reports;
        T->data_bits += s->data_bits;
        T->dropped_data += s->dropped_data;
        T->bits_total += s->bits_total;
        T->dropped_messages += s->dropped_messages;
        T->dropped_bits += s->dropped_bits;
        T->losses += s->losses;
        T->lost_instructions += s->lost_instructions;
    }
    m->stats.bits = m->trace.nbits;
    return TM_OK;
}

const tm_model_stats *tm_model_get_stats(const tm_model *m)
{
    /* The per-class counts, kept compact while running, in the public form. */
    tm_cache_stats *cs = &((tm_model *)m)->stats.cache;
    for (unsigned k = 0; k < TM_SZ_CLASSES; k++) {
        const cls_count *c = &m->cls[k];
        cs->load_refs[k] = c->refs[0];
        cs->load_hits[k] = c->hits[0];
        cs->load_misses[k] = c->refs[0] - c->hits[0];
        cs->store_refs[k] = c->refs[1];
        cs->store_hits[k] = c->hits[1];
        cs->store_misses[k] = c->refs[1] - c->hits[1];
        cs->fa_hits[k] = c->fa_hits;
        cs->fa_misses[k] = c->hits[0] - c->fa_hits;
    }
    return &m->stats;
}

void tm_model_pred_counts(const tm_model *m, tm_pred_counts *c)
{
    memset(c, 0, sizeof *c);
    for (uint32_t t = 0; t <= m->n; t++) {
        const tm_pred *p = t < m->n ? m->th[t].pred : m->shared_pred;
        if (!p)
            continue;
        c->ras_wraps += p->counts.ras_wraps;
        c->ras_underflows += p->counts.ras_underflows;
        c->ibtb_fills[0] += p->counts.ibtb_fills[0];
        c->ibtb_fills[1] += p->counts.ibtb_fills[1];
    }
}
