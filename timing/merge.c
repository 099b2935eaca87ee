/* tm — the timing model's merge (tm/timing.h, docs/capture.md §3): the
 * stamped groups wait in per-thread queues and go out in (cycle, thread)
 * order, each when no thread can still retire earlier. */
#include <stdlib.h>
#include <string.h>
#include "timing_int.h"

/* Thread I's keys after a change of its queue or state: its queue's head,
 * or the next group it may still retire (a thread in a futex wait: when a
 * wake may release it; none while nothing may). */
void tm_tq_rekey(tm_timing *t, uint32_t i)
{
    const tthread *th = &t->th[i];
    if (i != t->bar_tid)
        t->bar_ok = 0;
    if (th->q.groups) {
        t->hkey[i] = KEY(th->q.hc, i);
        t->lkey[i] = NOKEY;
    } else {
        t->hkey[i] = NOKEY;
        t->lkey[i] = !th->live || th->done ? NOKEY : th->waiting ? tm_tq_wait_key(t, i) : KEY(th->next, i);
    }
}

/* Room for K words at the tail of Q: a pointer to them, NULL without
 * memory.  q_push makes them an entry. */
uint64_t *tm_tq_room(tm_timing *t, tqueue *q, size_t k)
{
    chunk *c = q->tail;
    if (c && c->used + k <= CHUNK_WORDS)
        return c->w + c->used;
    if (c && q->groups == 0) { /* empty: start over in its chunk */
        c->used = 0;
        q->rd = 0;
        return c->w;
    }
    chunk *n = t->pool;
    if (n)
        t->pool = n->next;
    else if (!(n = malloc(sizeof *n)))
        return NULL;
    n->next = NULL;
    n->used = 0;
    if (c)
        c->next = n;
    else {
        q->head = n;
        q->rd = 0;
    }
    q->tail = n;
    return n->w;
}

void tm_tq_push(tm_timing *t, uint32_t tid, size_t k, uint64_t cycle)
{
    tqueue *q = &t->th[tid].q;
    q->tail->used += (uint32_t)k;
    q->tc = cycle;
    if (q->groups++ == 0) {
        q->hc = cycle;
        tm_tq_rekey(t, tid);
    }
    t->held++;
    if (t->held > t->st.held_max)
        t->st.held_max = t->held;
}

/* The head entry of Q is read up to END: the next one (or none). */
static void q_pop(tm_timing *t, uint32_t tid, const uint64_t *end)
{
    tqueue *q = &t->th[tid].q;
    q->rd = (uint32_t)(end - q->head->w);
    if (q->rd == q->head->used && q->head != q->tail) {
        chunk *c = q->head;
        q->head = c->next;
        q->rd = 0;
        c->next = t->pool;
        t->pool = c;
    }
    t->held--;
    if (--q->groups) {
        uint64_t w = q->head->w[q->rd];
        q->hc = w & SHORT ? q->hc + (w >> 32 & 0x3fffffff) : w;
    }
    tm_tq_rekey(t, tid);
}

static void handed_on(tm_timing *t, uint32_t tid, uint64_t c);

/* The least key of the threads other than TID (their queues' heads, the
 * next groups of those without a queue, the starts of those created and
 * not started yet). */
uint64_t tm_tq_bar(tm_timing *t, uint32_t tid)
{
    if (t->bar_ok && t->bar_tid == tid)
        return t->bar;
    uint64_t h = NOKEY, l = t->birth_min; /* a thread created, not started yet: not before its start */
    for (uint32_t i = 0; i < t->ntop; i++) {
        if (i == tid)
            continue;
        if (t->hkey[i] < h)
            h = t->hkey[i];
        if (t->lkey[i] < l)
            l = t->lkey[i];
    }
    uint64_t b = h < l ? h : l;
    t->bar = b;
    t->bar_h = h;
    t->bar_tid = tid;
    t->bar_ok = 1;
    return b;
}

/* Whether, after thread TID's group was handed on at once (DIRECT, its
 * keys updated) or queued behind another thread's key, a queue's head may
 * go now: the least key of the other threads is a queue's head (not the
 * next group of a thread without a queue), and, DIRECT, it precedes TID's
 * next group. */
int tm_tq_may_go(tm_timing *t, uint32_t tid, int direct)
{
    uint64_t b = tm_tq_bar(t, tid);
    return b != NOKEY && b == t->bar_h && (!direct || b < t->lkey[tid]);
}

/* Thread TID's group of cycle C goes out at once (its queue empty, before
 * every other thread's key), as tm_tq_drain() would hand on
 * its entry: counted as
 * if it had been queued. */
void tm_tq_at_once(tm_timing *t, uint32_t tid, uint64_t c)
{
    if (t->held + 1 > t->st.held_max)
        t->st.held_max = t->held + 1;
    handed_on(t, tid, c);
}

/* After at_once's group went: thread TID's keys (tm_tq_rekey() of an empty queue;
 * the bar stays: its own), and whether a queue's head may go now. */
int tm_tq_at_once_keys(tm_timing *t, uint32_t tid)
{
    const tthread *th = &t->th[tid];
    t->hkey[tid] = NOKEY;
    t->lkey[tid] = th->live && !th->done ? KEY(th->next, tid) : NOKEY;
    return tm_tq_may_go(t, tid, 1);
}

/* The downstream sink stopped. */
int tm_tq_stopped(tm_timing *t)
{
    t->failed = 1;
    return TM_ERR_IO;
}

/* A general entry at W (after its cycle C) of thread TID: its records to
 * the sink, as one group if they are RUN?, MEM?, event? in that order.
 * Returns the end of the entry, NULL if the sink stopped. */
static const uint64_t *emit_general(tm_timing *t, uint32_t tid, uint64_t c, const uint64_t *w)
{
    unsigned nrec = (unsigned)(*w++ & 0xff);
    if (t->sink.group) {
        /* as calls of the sink's group, each of a RUN?, a MEM?, an event?
         * in that order (the capture layer's serial cycles give the model
         * such groups one after another in one cycle too: a memory
         * operand's group, then the rest of the run and the branch); the
         * MEM's value read in the entry, the event in gev, whose fields
         * the entry does not keep stay 0 */
        tmc_record *e = &t->gev;
        for (unsigned k = 0; k < nrec;) {
            tmc_group g = {tid, c, 0, 0, 0, 0, 0, 0, 0, NULL, NULL};
            tmc_type ty = (tmc_type)(w[0] & 0xff);
            if (ty == TMC_RUN) {
                g.pc = w[1];
                g.count = w[2];
                g.bytes = w[3];
                w += 4;
                if (++k < nrec)
                    ty = (tmc_type)(w[0] & 0xff);
            }
            if (k < nrec && ty == TMC_MEM) {
                g.mem = 1;
                g.msize = (uint8_t)(w[0] >> 8);
                g.mflags = (uint32_t)(w[0] >> 16) & 0xffff;
                g.maddr = w[1];
                g.mvalue = (const uint8_t *)(w + 3);
                w += 3 + (g.msize + 7u) / 8u;
                if (++k < nrec)
                    ty = (tmc_type)(w[0] & 0xff);
            }
            if (k < nrec && ty != TMC_RUN && ty != TMC_MEM) {
                uint64_t h = w[0];
                e->type = ty;
                e->size = (uint8_t)(h >> 8);
                e->flags = (uint32_t)(h >> 16) & 0xffff;
                e->bclass = (uint8_t)(h >> 32);
                e->taken = (uint8_t)(h >> 40) & 1;
                e->len = (uint8_t)(h >> 48);
                e->tid = tid;
                e->cycle = c;
                e->pc = w[1];
                e->target = w[2];
                e->count = w[3];
                w += 4;
                k++;
                g.ev = e;
            }
            if (t->sink.group(t->sink.arg, &g))
                return NULL;
        }
        return w;
    }
    tmc_record *rs = t->out;
    for (unsigned k = 0; k < nrec; k++) {
        tmc_record *r = &rs[k];
        uint64_t h = *w++;
        memset(r, 0, sizeof *r);
        r->type = (tmc_type)(h & 0xff);
        r->size = (uint8_t)(h >> 8);
        r->flags = (uint32_t)(h >> 16) & 0xffff;
        r->bclass = (uint8_t)(h >> 32);
        r->taken = (uint8_t)(h >> 40) & 1;
        r->len = (uint8_t)(h >> 48);
        r->tid = tid;
        r->cycle = c;
        if (r->type == TMC_RUN) {
            r->pc = w[0];
            r->count = w[1];
            r->bytes = w[2];
            w += 3;
        } else if (r->type == TMC_MEM) {
            unsigned nw = (r->size + 7u) / 8u;
            r->addr = w[0];
            r->pc = w[1];
            memcpy(r->value, w + 2, 8 * nw);
            w += 2 + nw;
        } else {
            r->pc = w[0];
            r->target = w[1];
            r->count = w[2];
            w += 3;
        }
    }
    for (unsigned k = 0; k < nrec; k++)
        if (t->sink.record(t->sink.arg, &rs[k]))
            return NULL;
    return w;
}

/* Thread TID's group of cycle C goes out. */
static void handed_on(tm_timing *t, uint32_t tid, uint64_t c)
{
    t->last_cycle = c;
    t->last_tid = tid;
    t->emitted = 1;
    t->st.groups++;
    if (c + 1 > t->st.cycles)
        t->st.cycles = c + 1;
}

/* Hands on group G of thread TID, stamped (G's tid, cycle and event as they
 * go out; MPC: its MEM's .pc): one call of the sink's group if it has one,
 * else its records.  Returns nonzero if the sink stopped. */
int tm_tq_emit_g(tm_timing *t, const tmc_group *g, uint64_t mpc)
{
    if (t->sink.group)
        return t->sink.group(t->sink.arg, g);
    if (g->count) {
        tmc_record *r = &t->rrun;
        r->tid = g->tid;
        r->cycle = g->cycle;
        r->pc = g->pc;
        r->count = g->count;
        r->bytes = g->bytes;
        if (t->sink.record(t->sink.arg, r))
            return 1;
    }
    if (g->mem) {
        tmc_record *r = &t->rmem;
        unsigned nw = (g->msize + 7u) / 8u;
        r->tid = g->tid;
        r->cycle = g->cycle;
        r->flags = g->mflags;
        r->size = g->msize;
        r->addr = g->maddr;
        r->pc = mpc;
        memcpy(r->value, g->mvalue, 8 * nw);
        if (nw < t->rmem_nw)
            memset(r->value + 8 * nw, 0, 8 * (t->rmem_nw - nw));
        t->rmem_nw = nw;
        if (t->sink.record(t->sink.arg, r))
            return 1;
    }
    return g->ev ? t->sink.record(t->sink.arg, g->ev) : 0;
}

/* The event of a compact entry as it goes out (the entry's fields' widths). */
const tmc_record *tm_tq_out_ev(tm_timing *t, uint32_t tid, uint64_t c, tmc_type type, uint32_t flags,
                                uint8_t bclass, uint8_t taken, uint8_t len, uint64_t pc, uint64_t target)
{
    tmc_record *e = &t->rev;
    e->type = (tmc_type)(type & 0x1f);
    e->tid = tid;
    e->cycle = c;
    e->flags = flags & 0xff;
    e->bclass = bclass;
    e->taken = taken & 1;
    e->len = len;
    e->pc = pc;
    e->target = target;
    return e;
}

/* Hands on thread TID's compact group of cycle C, P (RUN? MEM? event?, with
 * the MEM's value words at MVAL), as its entry keeps it (the masks are the
 * entry's fields' widths).  Returns nonzero if the sink stopped. */
int tm_tq_emit_pend(tm_timing *t, uint32_t tid, uint64_t c, const pend *p, const uint64_t *mval)
{
    unsigned has = p->has;
    tmc_group g = {tid, c, 0, 0, 0, 0, 0, 0, 0, NULL, NULL};
    if (has & P_RUN) {
        g.pc = p->pc;
        g.count = (uint32_t)p->count;
        g.bytes = p->bytes & 0xffffffffu;
    }
    if (has & P_MEM) {
        g.mem = 1;
        g.msize = p->msize & 0x7f;
        g.mflags = p->mflags & 0xff;
        g.maddr = p->maddr;
        g.mvalue = (const uint8_t *)mval;
    }
    if (has & P_EV)
        g.ev = tm_tq_out_ev(t, tid, c, p->etype, p->eflags, p->ebclass, p->etaken, p->elen, p->epc, p->etarget);
    return tm_tq_emit_g(t, &g, p->mpc);
}

/* Hands on the group of thread TID whose entry is at W.  Returns the end
 * of the entry, NULL if the sink stopped. */
static const uint64_t *emit_entry(tm_timing *t, uint32_t tid, const uint64_t *w)
{
    uint64_t c = t->th[tid].q.hc;
    handed_on(t, tid, c);
    if (*w & SHORT) { /* RUN, branch? */
        uint64_t h = w[0];
        tmc_group g = {tid, c, w[1], h >> 16 & 0xffff, h & 0xffff, 0, 0, 0, 0, NULL, NULL};
        if (!(h & SHORT_BR))
            return tm_tq_emit_g(t, &g, 0) ? NULL : w + 2;
        uint64_t x = w[2];
        g.ev = tm_tq_out_ev(t, tid, c, TMC_BRANCH, 0, (uint8_t)(x >> 48 & 7), (uint8_t)(x >> 51 & 1),
                      (uint8_t)(x >> 52 & 15), g.pc + g.bytes, x & 0xffffffffffffull);
        return tm_tq_emit_g(t, &g, 0) ? NULL : w + 3;
    }
    w++;
    uint64_t h = *w++;
    if (h & GENERAL)
        return emit_general(t, tid, c, w - 1);
    tmc_group g = {tid, c, 0, 0, 0, 0, 0, 0, 0, NULL, NULL};
    uint64_t mpc = 0;
    if (h & P_RUN) {
        g.pc = w[0];
        g.count = (uint32_t)w[1];
        g.bytes = w[1] >> 32;
        w += 2;
    }
    if (h & P_MEM) {
        g.mem = 1;
        g.msize = (uint8_t)(h >> 25) & 0x7f;
        g.mflags = (uint32_t)(h >> 32) & 0xff;
        g.maddr = w[0];
        mpc = w[1];
        g.mvalue = (const uint8_t *)(w + 2);
        w += 2 + (g.msize + 7u) / 8u;
    }
    if (h & P_EV) {
        g.ev = tm_tq_out_ev(t, tid, c, (tmc_type)((h >> 3) & 0x1f), (uint32_t)(h >> 40), (uint8_t)(h >> 8),
                      (uint8_t)(h >> 16), (uint8_t)(h >> 17), w[0], w[1]);
        w += 2;
    }
    return tm_tq_emit_g(t, &g, mpc) ? NULL : w;
}

/* Hands on the head group of thread TID. */
static int emit_head(tm_timing *t, uint32_t tid)
{
    tqueue *q = &t->th[tid].q;
    const uint64_t *w = q->head->w + q->rd;
#if defined(__GNUC__) || defined(__clang__)
    /* the queue was written long ago: out of the cache; a few entries ahead */
    if (q->rd + 72 < CHUNK_WORDS)
        __builtin_prefetch(w + 64);
#endif
    const uint64_t *end = emit_entry(t, tid, w);
    if (!end)
        return tm_tq_stopped(t);
    q_pop(t, tid, end);
    return TM_OK;
}

/* Hands on every group no thread can still precede; beyond the window the
 * oldest too; with ALL, everything.  The head of the earliest queue goes
 * first (ties: the lower thread), while it comes before every other
 * queue's head and before the next group of every thread without one. */
int tm_tq_drain(tm_timing *t, int all)
{
    t->kick = 0;
    if (!t->held)
        return TM_OK; /* nothing queued */
    for (;;) {
        uint64_t b = NOKEY, o = NOKEY; /* the earliest queue head, the next one */
        uint64_t l = t->birth_min;     /* the earliest next group of a thread without a queue */
        for (uint32_t i = 0; i < t->ntop; i++) {
            uint64_t h = t->hkey[i];
            if (h < b) {
                o = b;
                b = h;
            } else if (h < o) {
                o = h;
            }
            if (t->lkey[i] < l)
                l = t->lkey[i];
        }
        if (b == NOKEY)
            return TM_OK;
        uint32_t best = (uint32_t)(b & 1023);
        do {
            uint64_t k = t->hkey[best];
            if (k > o)
                break; /* another queue's head goes first */
            if (k > l && !all && t->held <= t->cfg.window)
                return TM_OK; /* a thread may still retire earlier */
            int rc = emit_head(t, best);
            if (rc != TM_OK)
                return rc;
        } while (t->th[best].q.groups);
        if (o == NOKEY)
            return TM_OK;
        /* BEST's queue is empty: the next queue's head if it can precede
         * BEST's next group too, else a new look */
        if (t->lkey[best] < l)
            l = t->lkey[best];
        if (o > l && !all && t->held <= t->cfg.window)
            return TM_OK;
    }
}


void tm_tq_free(tm_timing *t)
{
    for (uint32_t i = 0; t->th && i < t->nthreads; i++) {
        for (chunk *c = t->th[i].q.head, *n; c; c = n) {
            n = c->next;
            free(c);
        }
    }
    for (chunk *c = t->pool, *n; c; c = n) {
        n = c->next;
        free(c);
    }
}
