/* tm — the timing model's clocks (tm/timing.h, docs/capture.md §3): each
 * thread's core and clock, the groups being collected, the waits (futex,
 * thread starts and ends, other threads' accesses), where each core's
 * cycles went.  The merge by cycle is merge.c's. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "timing_int.h"

void tm_timing_defaults(tm_timing_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cpi_milli = MILLI;
    cfg->window = (uint64_t)4 << 20;
    cfg->line = 64;
    cfg->l1i = (tm_timing_cache){8u << 10, 2, 0};
    cfg->l1 = (tm_timing_cache){8u << 10, 2, 2};
    cfg->l2 = (tm_timing_cache){0, 8, 4};
    cfg->mem_lat = 200;
    cfg->turn = 2000;
    cfg->drift = 1000000;
}

/* The caller's error buffer (docs/architecture.md), formatted. */
#define ERRF(err, n, ...)                      \
    do {                                       \
        if ((err) && (n))                      \
            snprintf((err), (n), __VA_ARGS__); \
    } while (0)

static int check_cache(const char *name, const tm_timing_cache *c, uint32_t line, int size0, char *err, size_t n)
{
    if (size0 && c->size == 0) {
        if (!c->ways || c->ways > 64 || !tm_is_pow2(c->ways)) {
            ERRF(err, n, "%s: ways %u: allowed a power of two 1..64", name, c->ways);
            return TM_ERR_ARG;
        }
        if (c->lat > 100000) {
            ERRF(err, n, "%s: latency %u: allowed 0..100000", name, c->lat);
            return TM_ERR_ARG;
        }
        return TM_OK;
    }
    if (!tm_is_pow2(c->size) || c->size > (1u << 30)) {
        ERRF(err, n, "%s: size %u bytes: allowed a power of two up to 1G", name, c->size);
        return TM_ERR_ARG;
    }
    if (!tm_is_pow2(c->ways) || c->ways > 64 || (uint64_t)c->ways * line > c->size) {
        ERRF(err, n, "%s: %u ways of %u-byte lines in %u bytes: allowed a power of two 1..64 ways that fit",
                   name, c->ways, line, c->size);
        return TM_ERR_ARG;
    }
    if (c->lat > 100000) {
        ERRF(err, n, "%s: latency %u: allowed 0..100000", name, c->lat);
        return TM_ERR_ARG;
    }
    return TM_OK;
}

int tm_timing_check(const tm_timing_cfg *cfg, char *err, size_t errlen)
{
    if (cfg->cpi_milli < 1 || cfg->cpi_milli > 1000000) {
        ERRF(err, errlen, "cpi %u.%03u: allowed 0.001..1000", cfg->cpi_milli / MILLI, cfg->cpi_milli % MILLI);
        return TM_ERR_ARG;
    }
    if (cfg->line != 64) {
        ERRF(err, errlen, "line %u bytes: the machine has 64-byte lines (a line's bytes are a word's bits)", cfg->line);
        return TM_ERR_ARG;
    }
    if (cfg->mem_lat > 100000) {
        ERRF(err, errlen, "memory latency %u: allowed 0..100000", cfg->mem_lat);
        return TM_ERR_ARG;
    }
    if (cfg->window < 1 || cfg->window > ((uint64_t)1 << 32)) {
        ERRF(err, errlen, "window %llu groups: allowed 1..2^32", (unsigned long long)cfg->window);
        return TM_ERR_ARG;
    }
    int rc = check_cache("l1", &cfg->l1, cfg->line, 0, err, errlen);
    if (rc == TM_OK && cfg->l1i.size)
        rc = check_cache("l1i", &cfg->l1i, cfg->line, 0, err, errlen);
    return rc ? rc : check_cache("l2", &cfg->l2, cfg->line, 1, err, errlen);
}

uint32_t tm_timing_l2_size(const tm_timing_cfg *cfg, uint32_t cores)
{
    if (cfg->l2.size)
        return cfg->l2.size;
    uint64_t s = (uint64_t)(cores ? cores : 1) * (64u << 10);
    while (s & (s - 1))
        s &= s - 1; /* a power of two: the largest not above cores x 64 KB */
    return s > (1u << 30) ? 1u << 30 : (uint32_t)s;
}

int tm_timing_new(const tm_timing_cfg *cfg, uint32_t threads, const tm_timing_sink *sink, tm_timing **out)
{
    *out = NULL;
    if (!threads || threads > TMC_MAX_THREADS || cfg->cpi_milli < 1 || cfg->cpi_milli > 1000000 || cfg->window < 1)
        return TM_ERR_ARG;
    tm_timing *t = calloc(1, sizeof *t);
    if (!t)
        return TM_ERR_NOMEM;
    t->cfg = *cfg;
    t->sink = *sink;
    t->nthreads = threads;
    t->rrun.type = TMC_RUN;
    t->rmem.type = TMC_MEM;
    t->birth_min = NOKEY;
    t->th = calloc(threads, sizeof *t->th);
    t->hkey = malloc(threads * sizeof *t->hkey);
    t->lkey = malloc(threads * sizeof *t->lkey);
    t->wakes = calloc(MAX_WAKES, sizeof *t->wakes);
    if (!t->th || !t->hkey || !t->lkey || !t->wakes) {
        tm_timing_free(t);
        return TM_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < threads; i++)
        t->hkey[i] = t->lkey[i] = NOKEY;
    *out = t;
    return TM_OK;
}

void tm_timing_free(tm_timing *t)
{
    if (!t)
        return;
    tm_tq_free(t);
    free(t->th);
    free(t->hkey);
    free(t->lkey);
    free(t->wakes);
    free(t->births);
    free(t);
}

/* ------------------------------------------------------------ the open group */

static int is_event(tmc_type ty) { return ty == TMC_START || ty == TMC_EXIT || ty == TMC_BRANCH || ty == TMC_EXC; }

/* A general entry's header word of a record (its type, size, flags,
 * bclass, taken and len as the entry keeps them). */
static inline uint64_t gen_hdr(tmc_type type, uint8_t size, uint32_t flags, uint8_t bclass, uint8_t taken,
                               uint8_t len)
{
    return (uint64_t)type | (uint64_t)size << 8 | (uint64_t)(flags & 0xffff) << 16 | (uint64_t)bclass << 32 |
           (uint64_t)(taken & 1) << 40 | (uint64_t)len << 48;
}

/* Record R after the open general group's words: as the general entry
 * keeps it (RUN pc, count, bytes; MEM addr, pc, value words; an event pc,
 * target, count). */
static void gen_put(tm_timing *t, const tmc_record *r)
{
    uint64_t *w = t->gw + t->gn;
    *w++ = gen_hdr(r->type, r->size, r->flags, r->bclass, r->taken, r->len);
    if (r->type == TMC_RUN) {
        *w++ = r->pc;
        *w++ = r->count;
        *w++ = r->bytes;
    } else if (r->type == TMC_MEM) {
        unsigned nw = (r->size + 7u) / 8u;
        *w++ = r->addr;
        *w++ = r->pc;
        memcpy(w, r->value, 8 * nw);
        w += nw;
    } else {
        *w++ = r->pc;
        *w++ = r->target;
        *w++ = r->count;
    }
    t->gn = (size_t)(w - t->gw);
    t->nrec++;
}

/* A RUN of the open general group: its words. */
static void gen_run(tm_timing *t, uint64_t pc, uint64_t count, uint64_t bytes)
{
    uint64_t *w = t->gw + t->gn;
    w[0] = TMC_RUN;
    w[1] = pc;
    w[2] = count;
    w[3] = bytes;
    t->gn += 4;
    t->nrec++;
}

/* A MEM of the open general group (its value MSIZE bytes at VAL, the rest
 * of its last word 0): its words. */
static void gen_mem(tm_timing *t, uint32_t flags, uint8_t size, uint64_t addr, uint64_t pc, const void *val)
{
    uint64_t *w = t->gw + t->gn;
    unsigned nw = (size + 7u) / 8u;
    w[0] = gen_hdr(TMC_MEM, size, flags, 0, 0, 0);
    w[1] = addr;
    w[2] = pc;
    if (nw) {
        w[2 + nw] = 0;
        memcpy(w + 3, val, size);
    }
    t->gn += 3 + nw;
    t->nrec++;
}

/* The open group becomes general: its records as the entry's words. */
static void pend_general(tm_timing *t)
{
    if (t->gen)
        return;
    const pend *p = &t->p;
    t->gen = 1;
    t->nrec = 0;
    t->gn = 0;
    if (p->has & P_RUN)
        gen_run(t, p->pc, p->count, p->bytes);
    if (p->has & P_MEM)
        gen_mem(t, p->mflags, p->msize, p->maddr, p->mpc, p->mval);
    if (p->has & P_EV) {
        uint64_t *w = t->gw + t->gn;
        w[0] = gen_hdr(p->etype, p->esize, p->eflags, p->ebclass, p->etaken, p->elen);
        w[1] = p->epc;
        w[2] = p->etarget;
        w[3] = p->ecount;
        t->gn += 4;
        t->nrec++;
    }
}

/* The records of the open general group's words: each one's type (*TYPE)
 * and words (the return), from the header word at W. */
static inline size_t gen_len(const uint64_t *w, tmc_type *type)
{
    *type = (tmc_type)(w[0] & 0xff);
    return *type == TMC_MEM ? 3u + ((uint8_t)(w[0] >> 8) + 7u) / 8u : 4u;
}

static void pend_ev(pend *p, const tmc_record *r)
{
    p->has |= P_EV;
    p->etype = r->type;
    p->eflags = r->flags;
    p->esize = r->size;
    p->ebclass = r->bclass;
    p->etaken = r->taken;
    p->elen = r->len;
    p->epc = r->pc;
    p->etarget = r->target;
    p->ecount = r->count;
}

/* Whether the open group fits the compact entry (what the general one
 * would keep of it, the compact one keeps). */
static int pend_compact(const tm_timing *t)
{
    const pend *p = &t->p;
    if (t->gen)
        return 0;
    if ((p->has & P_RUN) && (p->count >> 32 || p->bytes >> 32))
        return 0;
    if ((p->has & P_MEM) && (p->mflags & 0xffff) > 0xff)
        return 0;
    if ((p->has & P_EV) && ((p->eflags & 0xffff) > 0xff || p->esize || p->ecount))
        return 0;
    return 1;
}

/* Instructions of the open group. */
static uint64_t open_insns(const tm_timing *t)
{
    uint64_t n = 0;
    if (t->gen) {
        tmc_type ty;
        for (size_t i = 0, len; i < t->gn; i += len) {
            len = gen_len(t->gw + i, &ty);
            n += ty == TMC_RUN ? t->gw[i + 2] : ty == TMC_BRANCH;
        }
        return n;
    }
    if (t->p.has & P_RUN)
        n += t->p.count;
    if ((t->p.has & P_EV) && t->p.etype == TMC_BRANCH)
        n++;
    return n;
}

/* A compact entry's header word: what the group has (P_*) and the narrow
 * fields of its MEM and event. */
static uint64_t compact_hdr(unsigned has, tmc_type etype, uint8_t bclass, uint8_t taken, uint8_t len, uint8_t msize,
                            uint32_t mflags, uint32_t eflags)
{
    return (uint64_t)has | (uint64_t)(has & P_EV ? etype : 0) << 3 | (uint64_t)bclass << 8 |
           (uint64_t)(taken & 1) << 16 | (uint64_t)len << 17 | (uint64_t)(msize & 0x7f) << 25 |
           (uint64_t)(mflags & 0xff) << 32 | (uint64_t)(eflags & 0xff) << 40;
}


/* Thread TID's group of N instructions gets its cycle *CP: its clock moves
 * by N x CPI and the stalls given for it, to no earlier than its previous
 * group + 1 and the floor given for it, and never before what was handed on
 * (else it is clamped); where the cycles went is counted.  TM_OK, or
 * TM_ERR_ARG beyond MAX_CYCLE. */
static inline int stamp(tm_timing *t, uint32_t tid, uint64_t n, uint64_t *cp)
{
    tthread *th = &t->th[tid];
    uint64_t busy = n * t->cfg.cpi_milli, sif = th->sif * MILLI, sd = th->sdata * MILLI;
    uint64_t acc = th->acc + busy + sif + sd;
    th->sp.busy += busy;
    th->sp.ifetch += sif;
    th->sp.data += sd;
    th->sif = th->sdata = 0;
    uint64_t c = acc / MILLI;
    int why = -1; /* what c came from beyond the clock: -1 none, -2 one cycle a group, else a wait */
    if (th->next > c) {
        c = th->next;
        why = -2;
    }
    if (th->floor > c) {
        c = th->floor;
        why = th->fkind;
        t->st.floors[th->fkind]++;
    }
    th->floor = 0;
    uint64_t unclamped = c;
    if (t->emitted && (c < t->last_cycle || (c == t->last_cycle && tid < t->last_tid))) {
        c = t->last_cycle + (tid < t->last_tid);
        t->st.clamped++;
    }
    if (c >= MAX_CYCLE)
        return TM_ERR_ARG;
    if (acc < unclamped * MILLI) {
        uint64_t d = unclamped * MILLI - acc;
        if (why == -2)
            th->sp.busy += d;
        else if (why >= 0)
            th->sp.wait[why] += d;
        acc = unclamped * MILLI;
    }
    if (acc < c * MILLI) {
        th->sp.clamped += c * MILLI - acc;
        acc = c * MILLI;
    }
    th->acc = acc;
    th->next = c + 1;
    th->insns += n;
    *cp = c;
    return TM_OK;
}

/* The open group of thread OTID, stamped: into its queue, or, a compact
 * one that the merge would hand on first (its thread's queue empty, before
 * every other thread's key), handed on at once: the same entry, read by
 * the same code, without the trip through the queue. */
static int close_group(tm_timing *t)
{
    t->need = 0;
    if (!t->open)
        return TM_OK;
    t->open = 0;
    uint32_t tid = t->otid;
    tthread *th = &t->th[tid];
    const pend *p = &t->p;
    uint64_t n = open_insns(t);
    int compact = pend_compact(t);
    size_t words = 2;
    if (compact) {
        words += (p->has & P_RUN ? 2 : 0) + (p->has & P_EV ? 2 : 0);
        if (p->has & P_MEM)
            words += 2 + (p->msize + 7u) / 8u;
    } else {
        tmc_type ty;
        words += t->gn;
        for (size_t i = 0, len; i < t->gn; i += len) {
            len = gen_len(t->gw + i, &ty);
            words += ty == TMC_MEM; /* room as for a record of 4 words and its value */
        }
    }
    uint64_t c;
    if (stamp(t, tid, n, &c) != TM_OK)
        return TM_ERR_ARG;
    tqueue *q = &th->q;
    if (compact && q->groups == 0 && KEY(c, tid) < tm_tq_bar(t, tid)) {
        /* handed on at once, as the merge would hand on its entry */
        if ((p->has & P_EV) && p->etype == TMC_EXIT)
            th->done = 1;
        tm_tq_at_once(t, tid, c);
        if (tm_tq_emit_pend(t, tid, c, p, p->mval))
            return tm_tq_stopped(t);
        t->need = tm_tq_at_once_keys(t, tid);
        return TM_OK;
    }
    int was_empty = q->groups == 0;
    uint64_t *w0 = tm_tq_room(t, q, words), *w = w0;
    if (!w)
        return TM_ERR_NOMEM;
    *w++ = c;
    if (compact) {
        *w++ = compact_hdr(p->has, p->etype, p->ebclass, p->etaken, p->elen, p->msize, p->mflags, p->eflags);
        if (p->has & P_RUN) {
            *w++ = p->pc;
            *w++ = p->count | p->bytes << 32;
        }
        if (p->has & P_MEM) {
            unsigned nw = (p->msize + 7u) / 8u;
            *w++ = p->maddr;
            *w++ = p->mpc;
            memcpy(w, p->mval, 8 * nw);
            w += nw;
        }
        if (p->has & P_EV) {
            *w++ = p->epc;
            *w++ = p->etarget;
            if (p->etype == TMC_EXIT)
                th->done = 1;
        }
    } else {
        *w++ = GENERAL | t->nrec;
        memcpy(w, t->gw, 8 * t->gn);
        w += t->gn;
        tmc_type ty;
        for (size_t i = 0, len; i < t->gn; i += len) {
            len = gen_len(t->gw + i, &ty);
            if (ty == TMC_EXIT)
                th->done = 1;
        }
    }
    tm_tq_push(t, tid, (size_t)(w - w0), c);
    /* into an empty queue: its head may go (a general entry), or another
     * thread's that waited for this thread's next group */
    t->need = was_empty && (!compact || tm_tq_may_go(t, tid, 0));
    return TM_OK;
}

/* Thread TID's first group: it runs (and was no longer only created). */
static void go_live(tm_timing *t, uint32_t tid)
{
    t->th[tid].live = 1;
    tm_tq_rekey(t, tid);
}
/* ------------------------------------------------------------ input */

/* A record of thread TID in CYCLE comes: the open group is closed if it is
 * another's, and one opened. */
static int open_for(tm_timing *t, uint32_t tid, uint64_t cycle)
{
    if (t->open && (tid != t->otid || cycle != t->ocycle)) {
        int rc = close_group(t);
        if (rc == TM_OK && t->held && (t->need || t->kick || t->held > t->cfg.window))
            rc = tm_tq_drain(t, 0);
        if (rc != TM_OK)
            return rc;
    }
    if (!t->open) {
        t->open = 1;
        t->otid = tid;
        t->ocycle = cycle;
        t->p.has = 0;
        t->gen = 0;
        t->nrec = 0;
        t->gn = 0;
        if (!t->th[tid].live)
            go_live(t, tid);
        if (tid >= t->ntop)
            t->ntop = tid + 1;
    }
    return TM_OK;
}

int tm_timing_put(tm_timing *t, const tmc_record *r)
{
    if (t->failed)
        return TM_ERR_IO;
    if (r->tid >= t->nthreads)
        return TM_ERR_ARG;
    int rc = open_for(t, r->tid, r->cycle);
    if (rc != TM_OK)
        return rc;
    if (r->type != TMC_RUN && r->type != TMC_MEM && !is_event(r->type))
        return TM_ERR_ARG;
    pend *p = &t->p;
    if (!t->gen) {
        if (r->type == TMC_RUN && !p->has) {
            p->has = P_RUN;
            p->pc = r->pc;
            p->count = r->count;
            p->bytes = r->bytes;
            if (!(r->flags & 0xffff) && !r->size && !r->bclass && !(r->taken & 1) && !r->len)
                return TM_OK;
            p->has = 0; /* fields the compact entry leaves out: general */
        } else if (r->type == TMC_MEM && !(p->has & (P_MEM | P_EV))) {
            p->has |= P_MEM;
            p->mflags = r->flags;
            p->msize = r->size;
            p->maddr = r->addr;
            p->mpc = r->pc;
            memcpy(p->mval, r->value, sizeof p->mval);
            if (!r->bclass && !(r->taken & 1) && !r->len)
                return TM_OK;
            p->has &= ~(unsigned)P_MEM;
        } else if (is_event(r->type) && !(p->has & P_EV)) {
            pend_ev(p, r);
            return TM_OK;
        }
        pend_general(t);
    }
    if (t->nrec == MAX_GROUP)
        return TM_ERR_ARG;
    gen_put(t, r);
    return TM_OK;
}

int tm_timing_put_group(tm_timing *t, const tmc_group *g, uint64_t mpc)
{
    if (t->failed)
        return TM_ERR_IO;
    if (g->tid >= t->nthreads || (g->ev && !is_event(g->ev->type)) || (g->mem && g->msize > TMC_MAX_OPERAND))
        return TM_ERR_ARG;
    if (!g->count && !g->mem && !g->ev)
        return TM_OK;
    int rc = open_for(t, g->tid, g->cycle);
    if (rc != TM_OK)
        return rc;
    pend *p = &t->p;
    if (t->gen) { /* joins a general group: its words */
        if (g->count) {
            if (t->nrec == MAX_GROUP)
                return TM_ERR_ARG;
            gen_run(t, g->pc, g->count, g->bytes);
        }
        if (g->mem) {
            if (t->nrec == MAX_GROUP)
                return TM_ERR_ARG;
            gen_mem(t, g->mflags, g->msize, g->maddr, mpc, g->mvalue);
        }
        return g->ev ? tm_timing_put(t, g->ev) : TM_OK;
    }
    if (p->has) { /* joins records: as records */
        tmc_record r;
        memset(&r, 0, sizeof r);
        r.tid = g->tid;
        r.cycle = g->cycle;
        if (g->count) {
            r.type = TMC_RUN;
            r.pc = g->pc;
            r.count = g->count;
            r.bytes = g->bytes;
            if ((rc = tm_timing_put(t, &r)) != TM_OK)
                return rc;
        }
        if (g->mem) {
            memset(&r, 0, sizeof r);
            r.tid = g->tid;
            r.cycle = g->cycle;
            r.type = TMC_MEM;
            r.flags = g->mflags;
            r.size = g->msize;
            r.addr = g->maddr;
            r.pc = mpc;
            memcpy(r.value, g->mvalue, g->msize);
            if ((rc = tm_timing_put(t, &r)) != TM_OK)
                return rc;
        }
        return g->ev ? tm_timing_put(t, g->ev) : TM_OK;
    }
    if (g->count) {
        p->has = P_RUN;
        p->pc = g->pc;
        p->count = g->count;
        p->bytes = g->bytes;
    }
    if (g->mem) {
        p->has |= P_MEM;
        p->mflags = g->mflags;
        p->msize = g->msize;
        p->maddr = g->maddr;
        p->mpc = mpc;
        memcpy(p->mval, g->mvalue, g->msize);
        if (g->msize < sizeof p->mval)
            memset((uint8_t *)p->mval + g->msize, 0, sizeof p->mval - g->msize);
    }
    if (g->ev)
        pend_ev(p, g->ev);
    return TM_OK;
}

int tm_timing_end(tm_timing *t)
{
    if (t->failed)
        return TM_ERR_IO;
    int rc = close_group(t);
    if (rc == TM_OK && t->held && (t->need || t->kick || t->held > t->cfg.window))
        rc = tm_tq_drain(t, 0);
    return rc;
}

/* Whether G, whole, takes the short way of tm_timing_put_whole: no MEM, and
 * what the compact entry keeps of its RUN and event is all of them. */
static int whole_short(const tm_timing *t, const tmc_group *g)
{
    const tmc_record *e = g->ev;
    return !t->open && !g->mem && g->tid < t->nthreads && (g->count | g->bytes) >> 32 == 0 &&
           (!e || (is_event(e->type) && (e->flags & 0xffff) <= 0xff && !e->size && !e->count)) && (g->count || e);
}

int tm_timing_put_whole(tm_timing *t, const tmc_group *g, uint64_t mpc)
{
    if (t->failed)
        return TM_ERR_IO;
    if (!whole_short(t, g)) {
        int rc = tm_timing_put_group(t, g, mpc);
        return rc == TM_OK ? tm_timing_end(t) : rc;
    }
    /* what open_for, tm_timing_put_group and close_group do with it, in
     * short: a group of a RUN? and an event?, stamped, then handed on at
     * once or queued */
    uint32_t tid = g->tid;
    tthread *th = &t->th[tid];
    const tmc_record *e = g->ev;
    if (!th->live)
        go_live(t, tid);
    if (tid >= t->ntop)
        t->ntop = tid + 1;
    int br = e && e->type == TMC_BRANCH;
    uint64_t n = g->count + br, c;
    if (stamp(t, tid, n, &c) != TM_OK)
        return TM_ERR_ARG;
    if (e && e->type == TMC_EXIT)
        th->done = 1;
    tqueue *q = &th->q;
    int need;
    if (q->groups == 0 && KEY(c, tid) < tm_tq_bar(t, tid)) {
        tm_tq_at_once(t, tid, c);
        tmc_group o = *g;
        o.cycle = c;
        if (e)
            o.ev = tm_tq_out_ev(t, tid, c, e->type, e->flags, e->bclass, e->taken, e->len, e->pc, e->target);
        if (tm_tq_emit_g(t, &o, 0))
            return tm_tq_stopped(t);
        need = tm_tq_at_once_keys(t, tid);
    } else {
        int was_empty = q->groups == 0;
        uint64_t d = c - q->tc;
        size_t k;
        uint64_t *w;
        if (g->count && g->count < 0x10000 && g->bytes < 0x10000 && d < 0x40000000 &&
            (!e || (e->type == TMC_BRANCH && !e->flags && e->pc == g->pc + g->bytes && e->target >> 48 == 0 &&
                    e->bclass < 8 && e->len < 16))) { /* the short entry */
            k = e ? 3 : 2;
            if (!(w = tm_tq_room(t, q, k)))
                return TM_ERR_NOMEM;
            w[0] = SHORT | (e ? SHORT_BR : 0) | d << 32 | g->count << 16 | g->bytes;
            w[1] = g->pc;
            if (e)
                w[2] = e->target | (uint64_t)e->bclass << 48 | (uint64_t)(e->taken & 1) << 51 | (uint64_t)e->len << 52;
        } else { /* the compact one */
            if (!(w = tm_tq_room(t, q, e ? 6 : 4)))
                return TM_ERR_NOMEM;
            unsigned has = (g->count ? P_RUN : 0) | (e ? P_EV : 0);
            w[0] = c;
            w[1] = e ? compact_hdr(has, e->type, e->bclass, e->taken, e->len, 0, 0, e->flags) : has;
            k = 2;
            if (g->count) {
                w[2] = g->pc;
                w[3] = g->count | g->bytes << 32;
                k = 4;
            }
            if (e) {
                w[k++] = e->pc;
                w[k++] = e->target;
            }
        }
        tm_tq_push(t, tid, k, c);
        need = was_empty && tm_tq_may_go(t, tid, 0);
    }
    return t->held && (need || t->kick || t->held > t->cfg.window) ? tm_tq_drain(t, 0) : TM_OK;
}


uint64_t tm_timing_clock(const tm_timing *t, uint32_t tid)
{
    if (tid >= t->nthreads)
        return 0;
    const tthread *th = &t->th[tid];
    uint64_t acc = th->acc + (th->sif + th->sdata) * MILLI;
    if (t->open && t->otid == tid)
        acc += open_insns(t) * t->cfg.cpi_milli;
    return acc / MILLI;
}

void tm_timing_start_at(tm_timing *t, uint32_t tid, uint64_t at)
{
    if (tid >= t->nthreads)
        return;
    tthread *th = &t->th[tid];
    if (th->acc < at * MILLI)
        th->acc = at * MILLI;
    if (th->born < at)
        th->born = at;
}

/* ------------------------------------------------------------ threads not started */

static void births_min(tm_timing *t)
{
    uint64_t m = NOKEY;
    for (size_t i = 0; i < t->nbirths; i++)
        if (KEY(t->births[i], 0) < m)
            m = KEY(t->births[i], 0);
    if (m != t->birth_min)
        t->bar_ok = 0;
    t->birth_min = m;
}

int tm_timing_born(tm_timing *t, uint64_t at)
{
    if (t->nbirths == t->capbirths) {
        size_t cap = t->capbirths ? t->capbirths * 2 : 16;
        uint64_t *n = realloc(t->births, cap * sizeof *n);
        if (!n)
            return TM_ERR_NOMEM;
        t->births = n;
        t->capbirths = cap;
    }
    t->births[t->nbirths++] = at;
    births_min(t);
    return TM_OK;
}

void tm_timing_unborn(tm_timing *t, uint64_t at)
{
    for (size_t i = 0; i < t->nbirths; i++)
        if (t->births[i] == at) {
            t->births[i] = t->births[--t->nbirths];
            births_min(t);
            t->kick = 1;
            return;
        }
}

/* ------------------------------------------------------------ system calls, waits */

/* Thread TID's open group, if any, is stamped (its clock is current). */
static int close_own(tm_timing *t, uint32_t tid)
{
    if (!t->open || t->otid != tid)
        return TM_OK;
    int rc = close_group(t);
    return rc == TM_OK && t->need ? tm_tq_drain(t, 0) : rc;
}

int tm_timing_syscall(tm_timing *t, uint32_t tid, int leave)
{
    if (t->failed)
        return TM_ERR_IO;
    if (tid >= t->nthreads)
        return TM_ERR_ARG;
    return leave ? TM_OK : close_own(t, tid);
}

void tm_timing_floor(tm_timing *t, uint32_t tid, uint64_t at, int kind)
{
    if (tid >= t->nthreads || kind < 0 || kind >= TM_WAIT_KINDS)
        return;
    tthread *th = &t->th[tid];
    if (at > th->floor) {
        th->floor = at;
        th->fkind = kind;
    }
}

void tm_timing_stall(tm_timing *t, uint32_t tid, uint64_t ifetch, uint64_t data)
{
    if (tid >= t->nthreads)
        return;
    t->th[tid].sif += ifetch;
    t->th[tid].sdata += data;
}

uint64_t tm_timing_last(const tm_timing *t, uint32_t tid)
{
    if (tid >= t->nthreads)
        return 0;
    const tthread *th = &t->th[tid];
    return th->next ? th->next - 1 : th->born;
}

/* Whether wake W may release thread TH's wait: a wake of its address
 * after it began waiting, with releases left or releasing everyone. */
static int may_release(const twake *w, const tthread *th)
{
    return w->addr == th->waddr && w->seq > th->wseq && (w->left || w->bcast);
}

/* The earliest cycle among the wakes that may release TH's wait (NOKEY:
 * none). */
static uint64_t release_min(const tm_timing *t, const tthread *th)
{
    uint64_t best = NOKEY;
    for (size_t j = 0; j < t->nwakes; j++)
        if (may_release(&t->wakes[j], th) && t->wakes[j].cycle < best)
            best = t->wakes[j].cycle;
    return best;
}

uint64_t tm_tq_wait_key(const tm_timing *t, uint32_t i)
{
    const tthread *th = &t->th[i];
    uint64_t c = release_min(t, th);
    if (c == NOKEY)
        return NOKEY;
    return KEY(c > th->next ? c : th->next, i);
}

/* The waiting threads on ADDR: their keys again (a wake came or went). */
static void rekey_waiters(tm_timing *t, uint64_t addr)
{
    for (uint32_t i = 0; i < t->ntop; i++)
        if (t->th[i].waiting && t->th[i].waddr == addr && !t->th[i].q.groups)
            tm_tq_rekey(t, i);
}

/* Wake J is used up (its call returned, its releases taken, and, one
 * that releases everyone, no thread that waited before it still waits):
 * it goes. */
static void wake_gc(tm_timing *t, size_t j)
{
    const twake *w = &t->wakes[j];
    if (w->open || w->left)
        return;
    for (uint32_t i = 0; w->bcast && i < t->ntop; i++)
        if (t->th[i].waiting && may_release(w, &t->th[i]))
            return;
    memmove(t->wakes + j, t->wakes + j + 1, (t->nwakes - j - 1) * sizeof *t->wakes);
    t->nwakes--;
}

/* Every used-up wake of ADDR goes (a waiter of it returned). */
static void wakes_gc(tm_timing *t, uint64_t addr)
{
    for (size_t j = t->nwakes; j-- > 0;)
        if (t->wakes[j].addr == addr)
            wake_gc(t, j);
}

/* Thread TID posts a wake of ADDR (up to COUNT releases) at CYCLE; EXIT:
 * its end.  The wake's id. */
static uint64_t post_wake(tm_timing *t, uint64_t addr, uint64_t count, uint64_t cycle, int exit)
{
    if (t->nwakes == MAX_WAKES) { /* the oldest goes */
        memmove(t->wakes, t->wakes + 1, (MAX_WAKES - 1) * sizeof *t->wakes);
        t->nwakes--;
    }
    uint64_t waiters = 0;
    for (uint32_t i = 0; i < t->ntop; i++)
        waiters += t->th[i].waiting && t->th[i].waddr == addr;
    twake *w = &t->wakes[t->nwakes++];
    w->id = ++t->wake_ids;
    w->addr = addr;
    w->cycle = cycle;
    w->seq = ++t->seq;
    w->left = count;
    w->used = 0;
    w->exit = exit;
    w->open = !exit;
    w->bcast = waiters && count >= waiters;
    t->st.futex_wakes++;
    rekey_waiters(t, addr);
    return w->id;
}

static int is_wait(uint32_t op)
{
    return op == TM_FUTEX_WAIT || op == TM_FUTEX_WAIT_BITSET || op == TM_FUTEX_LOCK_PI || op == TM_FUTEX_LOCK_PI2 ||
           op == TM_FUTEX_WAIT_REQUEUE_PI;
}

int tm_timing_futex(tm_timing *t, uint32_t tid, uint32_t op, uint64_t addr, uint64_t val, uint64_t addr2,
                    uint64_t val2)
{
    if (t->failed)
        return TM_ERR_IO;
    if (tid >= t->nthreads)
        return TM_ERR_ARG;
    int rc = close_own(t, tid);
    if (rc != TM_OK)
        return rc;
    tthread *th = &t->th[tid];
    op &= 127;
    th->woke = 0;
    if (is_wait(op)) {
        th->waiting = 1;
        th->waddr = addr;
        th->wseq = ++t->seq;
        t->st.futex_waits++;
        if (!th->q.groups)
            tm_tq_rekey(t, tid);
        /* it holds nothing back now: queue heads may go */
        return t->held ? tm_tq_drain(t, 0) : TM_OK;
    }
    /* the releases count from the waker's next cycle: after its group
     * with the call */
    uint64_t at = th->next > th->acc / MILLI ? th->next : th->acc / MILLI;
    switch (op) {
    case TM_FUTEX_WAKE: case TM_FUTEX_WAKE_BITSET: case TM_FUTEX_REQUEUE: case TM_FUTEX_CMP_REQUEUE:
        th->wk[th->woke++] = post_wake(t, addr, val, at, 0);
        break;
    case TM_FUTEX_UNLOCK_PI:
        th->wk[th->woke++] = post_wake(t, addr, 1, at, 0);
        break;
    case TM_FUTEX_WAKE_OP:
        th->wk[th->woke++] = post_wake(t, addr, val, at, 0);
        th->wk[th->woke++] = post_wake(t, addr2, val2, at, 0);
        break;
    default:
        break;
    }
    return TM_OK;
}

static twake *wake_by_id(tm_timing *t, uint64_t id, size_t *at)
{
    for (size_t j = 0; j < t->nwakes; j++)
        if (t->wakes[j].id == id) {
            *at = j;
            return &t->wakes[j];
        }
    return NULL;
}

int tm_timing_futex_leave(tm_timing *t, uint32_t tid, int64_t result)
{
    if (t->failed)
        return TM_ERR_IO;
    if (tid >= t->nthreads)
        return TM_ERR_ARG;
    tthread *th = &t->th[tid];
    if (th->waiting) {
        /* released by the earliest wake with a release left; or one that
         * releases everyone (also what a wait that did not block, EAGAIN,
         * was too late for): resumes at its cycle */
        size_t best = t->nwakes, any = t->nwakes;
        for (size_t j = 0; j < t->nwakes; j++) {
            const twake *w = &t->wakes[j];
            if (!may_release(w, th))
                continue;
            if (w->left && result == 0 && (best == t->nwakes || w->seq < t->wakes[best].seq))
                best = j;
            if (any == t->nwakes || w->cycle < t->wakes[any].cycle)
                any = j;
        }
        if (best == t->nwakes && (result == 0 || result == -11) && any < t->nwakes && t->wakes[any].bcast)
            best = any;
        uint64_t addr = th->waddr;
        if (best < t->nwakes) {
            twake *w = &t->wakes[best];
            tm_timing_floor(t, tid, w->cycle, w->exit ? TM_WAIT_JOIN : TM_WAIT_FUTEX);
            if (w->left && result == 0) {
                w->left--;
                w->used++;
            }
            t->st.futex_released++;
        } else if (result == 0) {
            t->st.futex_unmatched++;
        }
        th->waiting = 0;
        wakes_gc(t, addr);
        rekey_waiters(t, addr);
        if (!th->q.groups)
            tm_tq_rekey(t, tid);
    }
    for (int k = 0; k < th->woke; k++) {
        size_t j;
        twake *w = wake_by_id(t, th->wk[k], &j);
        if (!w)
            continue;
        w->open = 0;
        if (result >= 0) {
            uint64_t r = (uint64_t)result, more = r > w->used ? r - w->used : 0;
            if (w->left > more)
                w->left = more;
        }
        uint64_t addr = w->addr;
        wake_gc(t, j);
        rekey_waiters(t, addr);
    }
    th->woke = 0;
    t->kick = 1;
    return TM_OK;
}

void tm_timing_exit_wake(tm_timing *t, uint32_t tid, uint64_t addr)
{
    if (tid >= t->nthreads || !addr)
        return;
    post_wake(t, addr, 1, t->th[tid].next, 1);
}

int tm_timing_finish(tm_timing *t)
{
    if (t->failed)
        return TM_ERR_IO;
    int rc = close_group(t);
    return rc != TM_OK ? rc : tm_tq_drain(t, 1);
}

void tm_timing_get_stats(const tm_timing *t, tm_timing_stats *s) { *s = t->st; }

void tm_timing_thread(const tm_timing *t, uint32_t tid, uint64_t *cycles, uint64_t *insns)
{
    *cycles = tid < t->nthreads ? t->th[tid].next : 0;
    *insns = tid < t->nthreads ? t->th[tid].insns : 0;
}

void tm_timing_get_core(const tm_timing *t, uint32_t tid, tm_timing_core *c)
{
    memset(c, 0, sizeof *c);
    if (tid >= t->nthreads || !t->th[tid].next)
        return;
    const tthread *th = &t->th[tid];
    /* 1/1000 cycles, rounded so that the parts add up to the thread's
     * cycles: the last group's own cycle beyond its clock is busy */
    uint64_t m[4 + TM_WAIT_KINDS], *out[4 + TM_WAIT_KINDS];
    uint64_t sum = th->sp.busy + th->sp.ifetch + th->sp.data + th->sp.clamped, total = (th->next - th->born) * MILLI;
    for (int k = 0; k < TM_WAIT_KINDS; k++)
        sum += th->sp.wait[k];
    m[0] = th->sp.busy + (total > sum ? total - sum : 0);
    m[1] = th->sp.ifetch;
    m[2] = th->sp.data;
    m[3] = th->sp.clamped;
    out[0] = &c->busy;
    out[1] = &c->ifetch;
    out[2] = &c->data;
    out[3] = &c->clamped;
    for (int k = 0; k < TM_WAIT_KINDS; k++) {
        m[4 + k] = th->sp.wait[k];
        out[4 + k] = &c->wait[k];
    }
    uint64_t cum = 0, prev = 0;
    for (int k = 0; k < 4 + TM_WAIT_KINDS; k++) {
        cum += m[k];
        uint64_t r = (cum + MILLI / 2) / MILLI;
        *out[k] = r - prev;
        prev = r;
    }
    c->not_started = th->born;
}
