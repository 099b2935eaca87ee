/* tm — the trace module (docs/spec.md §3); mirrors rtl/tm_top.sv.
 *
 * The model is event-driven but cycle-exact: it assembles each (cycle,
 * thread) group of the commit stream, gives the cores of a cycle their slots
 * in index order (the arbitration order; each core is cmodel/core.c, the
 * buffer and port cmodel/buffer.c), and simulates the cycles in which
 * nothing retires in bulk when no thread waits for resynchronization.
 * Every decision that affects the output bits is named after the spec
 * paragraph that defines it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_int.h"
#include "tm/isa.h"
#include "tm/tmcrec.h"

/* ---------------------------------------------------------------- life */

int tm_model_new(const tm_model_cfg *cfg, tm_model **out, char *err, size_t errlen)
{
    *out = NULL;
    tm_model_cfg c = *cfg;
    if (tm_model_cfg_resolve(&c, err, errlen) != TM_OK)
        return TM_ERR_ARG; /* its message in ERR */
    tm_model *m = calloc(1, sizeof *m);
    if (!m) {
        tm_err_set(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    m->cfg = c;
    m->enc = &m->cfg.enc;
    m->ts_mask = c.ts_bits >= 64 ? UINT64_MAX : (UINT64_C(1) << c.ts_bits) - 1;
    m->enc_nots = m->cfg.enc;
    m->enc_nots.timestamps = 0;
    m->n = c.enc.threads;
    m->msgmax = tm_msg_max_bits(m->enc);
    tm_msg_lens_init(&m->lens, m->enc);
    buffer_init(&m->buf, c.buffer_bits, c.port_bits, tm_msg_reserve_bits(m->enc));
    {
        /* The shortest resynchronization message: END(lost) of zeros. */
        tm_msg e;
        memset(&e, 0, sizeof e);
        e.kind = TM_MSG_END;
        e.lost = 1;
        /* tr_a: with the shortest codes an adaptive state can give */
        const tm_adapt best = {0, 0, 0};
        m->resync_min = tm_msg_bits_a(m->enc, &best, &e);
    }
    m->th = calloc(m->n, sizeof *m->th);
    m->adapt = calloc(m->n, sizeof *m->adapt);
    if (!m->th || !m->adapt)
        goto nomem;
    m->adaptive = tm_enc_adaptive(m->enc);
    for (uint32_t i = 0; i < m->n; i++)
        tm_adapt_reset(&m->adapt[i]);
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
    m->stats.buffer_bits = m->buf.B;
    m->stats.port_bits = m->buf.W;
    m->stats.msg_max_bits = m->msgmax;
    m->stats.reserve_bits = m->buf.reserve;
    *out = m;
    return TM_OK;
nomem:
    tm_model_free(m);
    tm_err_set(err, errlen, "out of memory");
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
    free(m->adapt);
    free(m->pcache);
    tm_snoop_free(m->snoop);
    tm_pred_free(m->shared_pred);
    tm_cache_free(m->shared_cache);
    buffer_free(&m->buf);
    free(m);
}

void tm_model_set_hook(tm_model *m, tm_model_msg_hook hook, void *arg)
{
    m->hook = hook;
    m->hook_arg = arg;
}

int tm_model_set_isa(tm_model *m, int isa)
{
    if (isa < 0 || isa >= TM_ISA_COUNT)
        return TM_ERR_ARG;
    m->isa = isa;
    return TM_OK;
}

int tm_model_isa(const tm_model *m) { return m->isa; }

const tm_bitbuf *tm_model_trace(const tm_model *m) { return &m->buf.trace; }

void tm_model_trace_drop(tm_model *m, uint64_t nbytes)
{
    tm_bitbuf *b = &m->buf.trace;
    uint64_t whole = b->nbits >> 3;
    if (nbytes > whole)
        nbytes = whole;
    if (!nbytes)
        return;
    /* The partial last byte (if any) moves to the front; a put depends on
     * nothing after the current byte (msg/bitio.h). */
    uint64_t held = (b->nbits + 7) >> 3;
    memmove(b->data, b->data + nbytes, (size_t)(held - nbytes));
    b->nbits -= nbytes << 3;
    m->trace_dropped += nbytes;
}

uint64_t tm_model_trace_dropped(const tm_model *m) { return m->trace_dropped; }
const char *tm_model_error(const tm_model *m) { return m->err; }

const tm_thread_stats *tm_model_thread_stats(const tm_model *m, uint32_t t)
{
    return t < m->n ? &m->th[t].st : NULL;
}

/* ---------------------------------------------------------------- cycles */

static void begin_cycle(tm_model *m, uint64_t c)
{
    m->cur = c;
    m->in_cycle = 1;
    m->next_core = 0;
    m->shared_drop = 0;
    m->cycle_drop = 0;
    buffer_port_cycle(&m->buf);
    m->next_cycle = c + 1;
}

/* The LOST cores' slots of lost_slots, out of line: the callers on the
 * per-record path then need no registers for the loop. */
static __attribute__((noinline)) void lost_resyncs(tm_model *m, uint32_t limit)
{
    /* Within a cycle the buffer only fills: once it has no room for the
     * shortest resynchronization, or after a drop of the shared predictor,
     * no LOST core can resynchronize until the next cycle (core_resync's
     * own first tests, made once for all). */
    if (m->buf.B - m->buf.occ < m->resync_min || m->shared_drop)
        return;
    if (!m->rs_floor_ok || m->cur >= m->rs_until) {
        uint64_t f = UINT64_MAX, until = UINT64_MAX;
        for (uint32_t t = 0; t < m->n; t++)
            if (m->th[t].state == ST_LOST) {
                uint64_t u, L = core_resync_len_at(m, t, m->cur, &u);
                f = L < f ? L : f;
                until = u < until ? u : until;
            }
        m->rs_floor = f;
        m->rs_until = until;
        m->rs_floor_ok = 1;
    }
    if (m->buf.B - m->buf.occ < m->rs_floor)
        return;
    for (uint32_t j = m->next_core; j < limit; j++)
        if (m->th[j].state == ST_LOST)
            core_resync(m, j);
}

/* Slots of LOST cores before core LIMIT that have no group this cycle. */
static inline void lost_slots(tm_model *m, uint32_t limit)
{
    if (__builtin_expect(m->lost_count != 0, 0) && rs_may_fit(m))
        lost_resyncs(m, limit);
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
             * shortest resynchronization a LOST core can offer in them (no
             * record changes its fields) cannot accept anything: drain them
             * in bulk (identical to stepping them).  The shortest: the
             * floor while it holds, else each core's with a diffCC of 0. */
            uint64_t need_free = UINT64_MAX, until = c;
            if (m->rs_floor_ok && m->next_cycle < m->rs_until) {
                /* the floor (struct tm_model), until a diffCC wraps */
                need_free = m->rs_floor;
                until = m->rs_until < c ? m->rs_until : c;
            } else {
                for (uint32_t t = 0; t < m->n; t++)
                    if (m->th[t].state == ST_LOST) {
                        uint64_t f = core_resync_floor(m, t);
                        need_free = f < need_free ? f : need_free;
                    }
            }
            tm_buffer *b = &m->buf;
            if (need_free > b->B) { /* none can offer, or none fits ever: idle to C */
                buffer_port_bulk(b, until - m->next_cycle);
                m->next_cycle = until;
                continue;
            }
            if (b->occ > b->B - need_free) {
                uint64_t excess = b->occ - (b->B - need_free);
                uint64_t j = buffer_cycles_for(b, excess); /* first cycle with room */
                uint64_t skip = j - 1;
                if (skip > until - m->next_cycle)
                    skip = until - m->next_cycle;
                if (skip) {
                    buffer_port_bulk(b, skip);
                    m->next_cycle += skip;
                    continue;
                }
            }
            begin_cycle(m, m->next_cycle);
            end_cycle(m);
        } else {
            buffer_port_bulk(&m->buf, c - m->next_cycle);
            m->next_cycle = c;
        }
    }
    begin_cycle(m, c);
}

/* The slot of the core of the group being assembled: it processes the
 * group and its event EV (NULL if none). */
static inline __attribute__((always_inline)) int group_slot(tm_model *m, const tmc_record *ev)
{
    uint32_t t = m->g_tid;
    m->next_core = t + 1;
    m->grp = 0;
    return core_group(m, t, &m->g, ev); /* empties m->g */
}

/* group_slot after the slots of the LOST cores before it (out of line, so
 * that flush_group's callers need no stack frame for it). */
static __attribute__((noinline)) int lost_then_group_slot(tm_model *m, const tmc_record *ev)
{
    if (rs_may_fit(m))
        lost_resyncs(m, m->g_tid);
    return group_slot(m, ev);
}

static inline __attribute__((always_inline)) int flush_group(tm_model *m, const tmc_record *ev)
{
    if (!m->grp && !ev)
        return TM_OK;
    /* The LOST cores before this one offer their resynchronizations in
     * their slots; then this core has its slot. */
    if (__builtin_expect(m->lost_count != 0, 0))
        return lost_then_group_slot(m, ev);
    return group_slot(m, ev);
}

/* A MEM (of thread TID in CYCLE) of the group being assembled.  VALUE
 * holds whole 8-byte words (SIZE rounded up). */
static inline int put_mem_fields(tm_model *m, uint64_t cycle, uint32_t tid, uint32_t flags, unsigned size,
                                 uint64_t addr, const uint8_t *value)
{
    if (!m->data)
        return TM_OK;
    if (m->g.mem) {
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
    m->g.mem = 1;
    m->g.mrec.flags = flags;
    m->g.mrec.size = (uint8_t)size;
    m->g.mrec.addr = addr;
    if (!(flags & TMC_MEM_STORE)) {
        /* The words of the value, 8 bytes at a time (a memcpy of SIZE
         * bytes may become rep movs; wider loads than the producer's stores
         * would not be forwarded from them).  Only the first SIZE bytes are
         * used. */
        unsigned nw = (size + 7u) / 8u;
        for (unsigned q = 0; q < nw; q++)
            memcpy(m->g.mrec.value + 8 * q, value + 8 * q, 8);
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
        m->g.n += r->count;
        m->g.npc = r->pc + r->bytes;
        m->g.has_npc = 1;
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

/* The refusal of a record after tm_model_finish. */
static int after_finish(tm_model *m)
{
    snprintf(m->err, sizeof m->err, "record after tm_model_finish");
    return TM_ERR_STATE;
}

int tm_model_put_group(tm_model *m, const tmc_group *g)
{
    int rc;
    if (!(m->grp && g->tid == m->g_tid && g->cycle == m->cur)) {
        if (m->finished)
            return after_finish(m);
        if ((rc = open_group(m, g->tid, g->cycle)) != TM_OK)
            return rc;
    }
    if (g->count) {
        m->g.n += g->count;
        m->g.npc = g->pc + g->bytes;
        m->g.has_npc = 1;
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

/* tm_model_put of a record that does not join the group being assembled. */
static __attribute__((noinline)) int put_other(tm_model *m, const tmc_record *r)
{
    if (m->finished)
        return after_finish(m);
    if (r->type == TMC_MODULE || r->type == TMC_END || r->type == TMC_ENDING)
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

int tm_model_put(tm_model *m, const tmc_record *r)
{
    /* Fast path: another record of the group being assembled (same cycle
     * and thread; every check of put_other holds for it). */
    if (m->grp && r->tid == m->g_tid && r->cycle == m->cur && r->type >= TMC_START && r->type <= TMC_MEM)
        return add_to_group(m, r);
    return put_other(m, r);
}

/* tm_model_put of each of N compact records in turn (include/tm/model.h),
 * without a tmc_record for the RUN and MEM records: a RUN or MEM of the
 * group being assembled is added from its compact fields, an event is
 * unpacked for the core.  Stops before a record of another type than
 * START..MEM. */
int tm_model_put_crecs(tm_model *m, const tmc_crec *v, size_t n, const uint8_t *vals, size_t *done,
                       size_t *vdone)
{
    size_t i = 0, nv = 0;
    int rc = TM_OK;
    for (; i < n; i++) {
        const tmc_crec *c = &v[i];
        unsigned t = c->type;
        if (t < TMC_START || t > TMC_MEM)
            break;
        if (!(m->grp && c->tid == m->g_tid && c->cycle == m->cur)) {
            if (m->finished) {
                rc = after_finish(m);
                break;
            }
            if ((rc = open_group(m, c->tid, c->cycle)) != TM_OK)
                break;
        }
        if (t == TMC_RUN) {
            m->g.n += c->y;
            m->g.npc = c->pc + c->x;
            m->g.has_npc = 1;
        } else if (t == TMC_MEM) {
            unsigned size = c->y & 0xff;
            uint8_t w[TMC_MAX_OPERAND + 8]; /* whole words, as put_mem_fields reads them */
            const uint8_t *val = vals + nv;
            if (m->data && !(c->info & TMC_MEM_STORE) && size <= TMC_MAX_OPERAND) {
                memset(w, 0, sizeof w);
                memcpy(w, vals + nv, size);
                val = w;
            }
            if ((rc = put_mem_fields(m, c->cycle, c->tid, c->info, size, c->x, val)) != TM_OK)
                break;
            nv += size;
        } else {
            tmc_record ev;
            tmc_crec_unpack(&ev, c);
            if ((rc = flush_group(m, &ev)) != TM_OK)
                break;
        }
    }
    *done = i;
    *vdone = nv;
    return rc;
}

/* T += S, counter by counter: tm_thread_stats holds only uint64_t counters
 * (tm_field_bits too), so it is summed as an array of them. */
_Static_assert(sizeof(tm_thread_stats) % sizeof(uint64_t) == 0 && sizeof(tm_field_bits) % sizeof(uint64_t) == 0,
               "tm_thread_stats holds only uint64_t counters");
static void add_stats(tm_thread_stats *T, const tm_thread_stats *S)
{
    enum { N = sizeof(tm_thread_stats) / sizeof(uint64_t) };
    uint64_t t[N], s[N];
    memcpy(t, T, sizeof t);
    memcpy(s, S, sizeof s);
    for (size_t k = 0; k < N; k++)
        t[k] += s[k];
    memcpy(T, t, sizeof t);
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
            m->next_core = t;
            core_flush(m, t);
        }
        m->next_core = m->n;
        end_cycle(m);
        while (m->live_count) {
            begin_cycle(m, m->next_cycle);
            end_cycle(m);
        }
    }
    /* Drain. */
    uint64_t need = buffer_drain_cycles(&m->buf);
    buffer_port_bulk(&m->buf, need);
    m->next_cycle += need;
    m->stats.cycles = m->any_record ? m->next_cycle : 0;
    m->finished = 1;

    /* Totals. */
    memset(&m->stats.total, 0, sizeof m->stats.total);
    for (uint32_t t = 0; t < m->n; t++)
        add_stats(&m->stats.total, &m->th[t].st);
    m->stats.bits = (m->trace_dropped << 3) + m->buf.trace.nbits;
    return TM_OK;
}

const tm_model_stats *tm_model_get_stats(const tm_model *m)
{
    /* The per-class counts, kept compact while running, in the public form. */
    tm_model_stats *st = &((tm_model *)m)->stats;
    st->peak_occupancy = m->buf.peak;
    st->busy_cycles = m->buf.busy;
    st->idle_cycles = m->buf.idle;
    tm_cache_stats *cs = &st->cache;
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
        tm_pred_counts pc;
        tm_pred_get_counts(p, &pc);
        tm_tage_counts *dst[2] = {&c->tage, &c->ittage}, *src[2] = {&pc.tage, &pc.ittage};
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k <= TM_TAGE_TABLES_MAX; k++) {
                dst[i]->hits[k] += src[i]->hits[k];
                dst[i]->allocs[k] += src[i]->allocs[k];
            }
            dst[i]->replaced += src[i]->replaced;
            dst[i]->alloc_fails += src[i]->alloc_fails;
            dst[i]->use_alt += src[i]->use_alt;
        }
    }
}
