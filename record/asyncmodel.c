/* The model on a second thread (include/tm/record.h, tm_rec_async_*): the
 * capture and the timing model go on in the recording's thread while the
 * model (or the sweep) takes the groups they hand on, in the same order,
 * from a ring of 64-bit words that the recording's thread publishes in
 * batches.  Only when the model (or the sweep) is the only consumer.
 *
 * An entry: a header word (kind, the group's event and MEM, its MEM's size,
 * its thread), then for a group its cycle, pc, count, bytes; with a MEM its
 * flags, address and value words; with an event the event record's fields
 * up to its value (tmc_record: the rest is never an event's).  A record
 * (the general path, no timing model): its fields up to the MODULE's.  A
 * word WRAP: the next entry is at the ring's start. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/record.h"

#define RING_WORDS ((size_t)1 << 18) /* 2 MB */
#define BATCH_WORDS ((size_t)1 << 12) /* published at least every 32 KB */
/* A sleeping thread is woken when the other has a quarter of the ring for
 * it (the consumer: that much to take; the producer: that much room), or
 * when the producer waits for the consumer to take everything: few wakes. */
#define WAKE_WORDS (RING_WORDS / 4)
#define CONS_STEP ((size_t)1 << 13) /* the consumer says what it took every 64 KB */
/* A group's event: its fields up to its value (tmc_record: the rest is
 * never an event's), one by one (ev_put; a copy of the record's bytes
 * would read the fields the timing model has just written one by one in
 * wider loads, which the processor cannot forward from the stores) */
#define EV_WORDS 8u
#define REC_WORDS ((offsetof(tmc_record, path) + 7) / 8)
#define MAX_ENTRY (1 + 4 + 2 + TMC_MAX_OPERAND / 8 + (EV_WORDS > REC_WORDS ? EV_WORDS : REC_WORDS))
enum { K_GROUP = 1, K_RECORD = 2, K_WRAP = 3, H_EV = 1 << 8, H_MEM = 1 << 9 };
/* ev_put keeps every field before the value (addr the last of them), and
 * an entry fits in the room the producer waits for */
_Static_assert(offsetof(tmc_record, addr) + sizeof(uint64_t) == offsetof(tmc_record, value),
               "ev_put and ev_get: a field of tmc_record before value that they do not keep");
_Static_assert(MAX_ENTRY < WAKE_WORDS, "an entry larger than the room the producer waits for");

/* The fields each thread writes often are on cache lines of their own, the
 * flags that change rarely on another: a line written by one thread and
 * read by the other at every group would move between the cores each
 * time (before, the producer's wtotal shared a line with the flags the
 * consumer read for every entry: a third of the producer's time in
 * tm_rec_async_group, pigz -p 4 --cfiat). */
#define LINE 64
struct tm_rec_async {
    tm_rec_ctx *x;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t *ring;
    /* the producer's own */
    _Alignas(LINE) size_t wpub; /* what it published last */
    size_t wtotal;             /* words written (free-running) */
    size_t cseen;              /* cons as it read it last */
    _Alignas(LINE) _Atomic size_t pub;  /* words published (free-running): the producer's */
    _Alignas(LINE) _Atomic size_t cons; /* words consumed (free-running): the consumer's */
    _Alignas(LINE) _Atomic int cons_waits; /* the consumer sleeps for more */
    _Atomic int prod_waits;    /* the producer sleeps for room */
    _Atomic int done;          /* no more entries will come */
    _Atomic int failed;        /* the model refused a group: err says how */
    _Atomic int force;         /* the producer waits for everything to be taken */
    _Alignas(LINE) char err[sizeof ((tm_rec_ctx *)0)->err];
};

/* The model's failure, as without the thread (tm_rec_model_error). */
static void async_failed(tm_rec_async *a)
{
    tm_rec_model_error(a->x, a->err, sizeof a->err);
    atomic_store(&a->failed, 1);
}

static void wake(tm_rec_async *a)
{
    pthread_mutex_lock(&a->mu);
    pthread_cond_broadcast(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

/* Event E as EV_WORDS words at W, and back (into E, whose other fields
 * stay as they are). */
static inline void ev_put(uint64_t *w, const tmc_record *e)
{
    w[0] = (uint64_t)e->type | (uint64_t)e->bclass << 8 | (uint64_t)e->taken << 16 | (uint64_t)e->len << 24 |
           (uint64_t)e->flags << 32;
    w[1] = (uint64_t)e->size | (uint64_t)e->tid << 32;
    w[2] = e->cycle;
    w[3] = e->pc;
    w[4] = e->target;
    w[5] = e->count;
    w[6] = e->bytes;
    w[7] = e->addr;
}

static inline void ev_get(tmc_record *e, const uint64_t *w)
{
    e->type = (tmc_type)(w[0] & 0xff);
    e->bclass = (uint8_t)(w[0] >> 8);
    e->taken = (uint8_t)(w[0] >> 16);
    e->len = (uint8_t)(w[0] >> 24);
    e->flags = (uint32_t)(w[0] >> 32);
    e->size = (uint8_t)w[1];
    e->tid = (uint32_t)(w[1] >> 32);
    e->cycle = w[2];
    e->pc = w[3];
    e->target = w[4];
    e->count = w[5];
    e->bytes = w[6];
    e->addr = w[7];
}

/* The length in words of the entry at W. */
static size_t entry_len(const uint64_t *w)
{
    uint64_t h = w[0];
    if ((h & 0xff) == K_RECORD)
        return 1 + REC_WORDS;
    size_t n = 5;
    if (h & H_MEM)
        n = 7 + (((h >> 16) & 0xff) + 7u) / 8u;
    return n + (h & H_EV ? EV_WORDS : 0);
}

/* The entry at W: into the model (EV: room for its event); 0, or 1 if the
 * model refused it. */
static int consume(tm_rec_async *a, const uint64_t *w, tmc_record *ev)
{
    tm_rec_ctx *x = a->x;
    uint64_t h = w[0];
    int rc;
    if ((h & 0xff) == K_RECORD) {
        tmc_record r;
        memcpy(&r, w + 1, offsetof(tmc_record, path));
        r.path = NULL;
        r.path_len = 0;
        r.build_id = NULL;
        r.build_id_len = 0;
        rc = x->sw ? tm_sweep_put(x->sw, &r) : tm_model_put(x->m, &r);
    } else {
        tmc_group g = {(uint32_t)(h >> 32), w[1], w[2], w[3], w[4], 0, 0, 0, 0, NULL, NULL};
        size_t n = 5;
        if (h & H_MEM) {
            g.mem = 1;
            g.msize = (uint8_t)(h >> 16);
            g.mflags = (uint32_t)w[5];
            g.maddr = w[6];
            g.mvalue = (const uint8_t *)(w + 7);
            n = 7 + (g.msize + 7u) / 8u;
        }
        if (h & H_EV) {
            ev_get(ev, w + n);
            g.ev = ev;
        }
        rc = x->sw ? tm_sweep_put_group(x->sw, &g) : tm_model_put_group(x->m, &g);
    }
    if (rc != TM_OK) {
        async_failed(a);
        return 1;
    }
    return 0;
}

/* Whether the consumer, having taken everything up to C, goes on: a
 * quarter of the ring to take, or anything when the producer waits for it
 * (or ended); or the end. */
static int ready(tm_rec_async *a, size_t c)
{
    size_t b = atomic_load(&a->pub) - c;
    int end = atomic_load(&a->done);
    return b >= WAKE_WORDS || (b && (end || atomic_load(&a->force))) || (!b && end);
}

static void *consumer(void *arg)
{
    tm_rec_async *a = arg;
    /* the event's fields past its value stay 0, as the producers' are */
    tmc_record *ev = calloc(1, sizeof *ev);
    size_t c = atomic_load(&a->cons);
    int failed = 0; /* the consumer's own copy of a->failed, which only it sets */
    if (!ev) {
        snprintf(a->err, sizeof a->err, "model: out of memory");
        atomic_store(&a->failed, 1);
        failed = 1;
    }
    for (;;) {
        if (!ready(a, c)) {
            pthread_mutex_lock(&a->mu);
            atomic_store(&a->cons_waits, 1);
            while (!ready(a, c))
                pthread_cond_wait(&a->cv, &a->mu);
            atomic_store(&a->cons_waits, 0);
            pthread_mutex_unlock(&a->mu);
        }
        size_t p = atomic_load_explicit(&a->pub, memory_order_acquire);
        if (p == c) {
            if (atomic_load(&a->done))
                break;
            continue;
        }
        size_t said = c;
        while (c != p) {
            const uint64_t *w = a->ring + (c & (RING_WORDS - 1));
            if ((w[0] & 0xff) == K_WRAP) {
                c += RING_WORDS - (c & (RING_WORDS - 1));
                continue;
            }
            if (!failed)
                failed = consume(a, w, ev); /* after a failure: skipped */
            c += entry_len(w);
            if (c - said >= CONS_STEP) {
                said = c;
                atomic_store_explicit(&a->cons, c, memory_order_seq_cst);
                if (atomic_load(&a->prod_waits) && RING_WORDS - (p - c) >= WAKE_WORDS)
                    wake(a);
            }
        }
        atomic_store_explicit(&a->cons, c, memory_order_seq_cst);
        if (atomic_load(&a->prod_waits))
            wake(a);
    }
    free(ev);
    return NULL;
}

/* What was written, published; the consumer woken if it sleeps and has a
 * quarter of the ring to take (or the producer waits for it: FORCE). */
static void publish(tm_rec_async *a, int force)
{
    if (a->wpub != a->wtotal) {
        a->wpub = a->wtotal;
        atomic_store_explicit(&a->pub, a->wtotal, memory_order_seq_cst);
    }
    if (atomic_load(&a->cons_waits) && (force || a->wtotal - atomic_load(&a->cons) >= WAKE_WORDS))
        wake(a);
}

/* Room for an entry of N words (N <= MAX_ENTRY): a pointer to it. */
static uint64_t *room(tm_rec_async *a, size_t n)
{
    size_t off = a->wtotal & (RING_WORDS - 1);
    size_t need = n + (off + n > RING_WORDS ? RING_WORDS - off : 0);
    if (a->wtotal + need - a->cseen > RING_WORDS &&
        a->wtotal + need - (a->cseen = atomic_load_explicit(&a->cons, memory_order_acquire)) > RING_WORDS) {
        /* full: the consumer has the whole ring to take; wait until a
         * quarter of it is free again */
        pthread_mutex_lock(&a->mu);
        atomic_store(&a->prod_waits, 1);
        pthread_mutex_unlock(&a->mu);
        publish(a, 1);
        pthread_mutex_lock(&a->mu);
        while (a->wtotal + need - atomic_load(&a->cons) > RING_WORDS - WAKE_WORDS)
            pthread_cond_wait(&a->cv, &a->mu);
        atomic_store(&a->prod_waits, 0);
        pthread_mutex_unlock(&a->mu);
        a->cseen = atomic_load(&a->cons);
    }
    if (off + n > RING_WORDS) {
        a->ring[off] = K_WRAP;
        a->wtotal += RING_WORDS - off;
        off = 0;
    }
    return a->ring + off;
}

static void written(tm_rec_async *a, size_t n)
{
    a->wtotal += n;
    if (a->wtotal - a->wpub >= BATCH_WORDS)
        publish(a, 0);
}

/* The consumer failed: its line into X (the producer's side). */
static int async_stop_sink(tm_rec_async *a)
{
    tm_rec_ctx *x = a->x;
    snprintf(x->err, sizeof x->err, "%s", a->err);
    x->failed = 1;
    return 1;
}

int tm_rec_async_group(tm_rec_ctx *x, const tmc_group *g)
{
    tm_rec_async *a = x->as;
    if (atomic_load_explicit(&a->failed, memory_order_acquire))
        return async_stop_sink(a);
    size_t nv = g->mem ? (g->msize + 7u) / 8u : 0;
    size_t n = 5 + (g->mem ? 2 + nv : 0) + (g->ev ? EV_WORDS : 0);
    uint64_t *w = room(a, n);
    w[0] = K_GROUP | (g->ev ? H_EV : 0) | (g->mem ? H_MEM : 0) | (uint64_t)g->msize << 16 | (uint64_t)g->tid << 32;
    w[1] = g->cycle;
    w[2] = g->pc;
    w[3] = g->count;
    w[4] = g->bytes;
    size_t k = 5;
    if (g->mem) {
        w[5] = g->mflags;
        w[6] = g->maddr;
        if (nv)
            w[6 + nv] = 0;
        memcpy(w + 7, g->mvalue, g->msize);
        k = 7 + nv;
    }
    if (g->ev)
        ev_put(w + k, g->ev);
    written(a, n);
    return 0;
}

int tm_rec_async_record(tm_rec_ctx *x, const tmc_record *r)
{
    tm_rec_async *a = x->as;
    if (atomic_load_explicit(&a->failed, memory_order_acquire))
        return async_stop_sink(a);
    uint64_t *w = room(a, 1 + REC_WORDS);
    w[0] = K_RECORD;
    memcpy(w + 1, r, offsetof(tmc_record, path));
    written(a, 1 + REC_WORDS);
    return 0;
}

void tm_rec_async_flush(tm_rec_ctx *x)
{
    if (x->as)
        publish(x->as, 0);
}

int tm_rec_async_sync(tm_rec_ctx *x)
{
    tm_rec_async *a = x->as;
    if (!a)
        return 0;
    pthread_mutex_lock(&a->mu);
    atomic_store(&a->prod_waits, 1);
    atomic_store(&a->force, 1);
    pthread_mutex_unlock(&a->mu);
    publish(a, 1);
    pthread_mutex_lock(&a->mu);
    while (atomic_load(&a->cons) != a->wtotal)
        pthread_cond_wait(&a->cv, &a->mu);
    atomic_store(&a->prod_waits, 0);
    atomic_store(&a->force, 0);
    pthread_mutex_unlock(&a->mu);
    a->cseen = a->wtotal;
    return atomic_load(&a->failed) ? async_stop_sink(a) : 0;
}

int tm_rec_async_start(tm_rec_ctx *x)
{
    size_t asz = (sizeof(tm_rec_async) + LINE - 1) / LINE * LINE;
    tm_rec_async *a = aligned_alloc(LINE, asz);
    if (!a)
        return TM_ERR_NOMEM;
    memset(a, 0, asz);
    a->x = x;
    if (!(a->ring = malloc(RING_WORDS * sizeof *a->ring))) {
        free(a);
        return TM_ERR_NOMEM;
    }
    if (pthread_mutex_init(&a->mu, NULL)) {
        free(a->ring);
        free(a);
        return TM_ERR_NOMEM;
    }
    if (pthread_cond_init(&a->cv, NULL)) {
        pthread_mutex_destroy(&a->mu);
        free(a->ring);
        free(a);
        return TM_ERR_NOMEM;
    }
    /* the signals go to the recording's thread (the thread blocks them) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int prc = pthread_create(&a->th, NULL, consumer, a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (prc) {
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
        free(a->ring);
        free(a);
        return TM_ERR_NOMEM;
    }
    x->as = a;
    return TM_OK;
}

int tm_rec_async_stop(tm_rec_ctx *x)
{
    tm_rec_async *a = x->as;
    if (!a)
        return 0;
    publish(a, 0);
    atomic_store(&a->done, 1);
    wake(a);
    pthread_join(a->th, NULL);
    x->as = NULL;
    int failed = atomic_load(&a->failed);
    if (failed && !x->failed)
        async_stop_sink(a);
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    free(a->ring);
    free(a);
    return failed;
}
