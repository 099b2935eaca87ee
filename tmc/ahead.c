/* tm — the commit stream read ahead by a second thread (include/tm/tmc.h,
 * tmc_ahead_*).
 *
 * Design.  A reader thread reads batches of records (RING batches of BATCH
 * records) as compact records (tm/tmcrec.h: half a cache line, streamed
 * out: handing whole tmc_records over costs the reader more than the
 * parse), with tmc_reader_crecs (tmc_reader_next for the few records it
 * leaves); the caller's thread unpacks them one by one from
 * the oldest full batch into a record of its own and hands the batch back
 * when it is done with it.  The two meet only at a batch boundary (a mutex
 * and two condition variables), so the per-record cost is that of
 * tmc_reader_next on the other core.  A MEM record's value travels in the
 * batch's values (its size bytes); a MODULE record's path and build id, which live in the
 * reader's buffer only until its next call, are copied into the batch's
 * own bytes.  The record's offset in the stream is kept beside it
 * (tmc_ahead_offset), and the reader's status ends the last batch: the
 * caller sees the records and the error in stream order, as from
 * tmc_reader_next.  tmc_ahead_close stops the thread (it may be waiting for
 * a free batch) and joins it on every path. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tm/tmc.h"
#include "tm/tmcrec.h"

#define BATCH 4096u
#define RING 8u

/* A MODULE record's path and build id, in the batch's bytes. */
typedef struct module_ref {
    size_t path, path_len, bid, bid_len;
    int has_path, has_bid;
} module_ref;

typedef struct batch {
    _Alignas(64) tmc_crec rec[BATCH];
    uint32_t off[BATCH];  /* tmc_reader_offset after each record - OFF0 */
    uint64_t off0;
    uint8_t *val;         /* the MEM records' values, in order, each its size long */
    uint32_t n;
    int rc;               /* the reader's result after the N records (1: more) */
    module_ref *mod;      /* the MODULE records', in order */
    uint32_t nmod, capmod;
    uint8_t *bytes;       /* their paths and build ids */
    size_t nbytes, cap;
} batch;

/* The reader's fields and the caller's each in cache lines of their own
 * (and the whole in lines of its own: tmc_ahead_open), so that neither
 * thread's writes cost the other a miss. */
struct tmc_ahead {
    tmc_reader *rd;
    batch *b;             /* [RING] */
    pthread_t th;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t full, empty;
    uint32_t head, tail;  /* batches filled: [head, tail) (counters, mod RING) */
    int stop;             /* the caller closes: the thread ends */
    int rwait, cwait;     /* the reader, the caller sleeps (under MU): signal it */
    _Alignas(64) tmc_record rrec; /* the reader's */
    /* the caller's side */
    _Alignas(64) batch *cur;
    uint32_t pos, nval, nmod;
    uint64_t offset;      /* of the last record of the batches handed back */
    int done;             /* the caller has seen the status */
    tmc_record rec;       /* the record delivered */
};

/* Copies the N bytes at P into B's bytes: their offset there in *AT; 0,
 * or -1 without memory. */
static int keep(batch *b, const void *p, size_t n, size_t *at)
{
    if (b->nbytes + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->nbytes + n)
            cap *= 2;
        uint8_t *q = realloc(b->bytes, cap);
        if (!q)
            return -1;
        b->bytes = q;
        b->cap = cap;
    }
    memcpy(b->bytes + b->nbytes, p, n);
    *at = b->nbytes;
    b->nbytes += n;
    return 0;
}

/* MODULE record R into B's module references: 0, or -1 without memory. */
static int keep_module(batch *b, const tmc_record *r)
{
    if (b->nmod == b->capmod) {
        uint32_t cap = b->capmod ? 2 * b->capmod : 16;
        module_ref *m = realloc(b->mod, cap * sizeof *m);
        if (!m)
            return -1;
        b->mod = m;
        b->capmod = cap;
    }
    module_ref *m = &b->mod[b->nmod];
    memset(m, 0, sizeof *m);
    /* the path with its terminating NUL, as the reader gives it */
    if (r->path && keep(b, r->path, r->path_len + 1, &m->path))
        return -1;
    if (r->build_id && r->build_id_len && keep(b, r->build_id, r->build_id_len, &m->bid))
        return -1;
    m->has_path = r->path != NULL;
    m->has_bid = r->build_id != NULL && r->build_id_len;
    m->path_len = r->path_len;
    m->bid_len = r->build_id_len;
    b->nmod++;
    return 0;
}

/* Fills B from the reader: 1 if more may follow, else the reader's end
 * status (0 clean, < 0 error), in B->rc. */
static void fill_batch(tmc_ahead *a, batch *b)
{
    uint32_t n = 0;
    size_t nv = 0;
    b->nbytes = 0;
    b->nmod = 0;
    b->off0 = tmc_reader_offset(a->rd);
    tmc_record *r = &a->rrec;
    int rc = 1;
    for (;;) {
        /* the common records straight into the batch ... */
        uint32_t delta = (uint32_t)(tmc_reader_offset(a->rd) - b->off0);
        size_t kv;
        uint32_t k = (uint32_t)tmc_reader_crecs(a->rd, b->rec + n, BATCH - n, (uint8_t *)b->val + nv, &kv, b->off + n);
        for (uint32_t i = n; i < n + k; i++)
            b->off[i] += delta;
        n += k;
        nv += kv;
        if (n == BATCH || (rc = tmc_reader_next(a->rd, r)) != 1)
            break;
        /* ... the others (MODULE, END, ENDING) through a record */
        if (__builtin_expect(r->type == TMC_MEM, 0)) {
            memcpy((uint8_t *)b->val + nv, r->value, r->size);
            nv += r->size;
        } else if (__builtin_expect(r->type == TMC_MODULE, 0) && keep_module(b, r)) {
            rc = TM_ERR_NOMEM;
            break;
        }
        tmc_crec_pack(&b->rec[n], r);
        b->off[n++] = (uint32_t)(tmc_reader_offset(a->rd) - b->off0);
        if (n == BATCH)
            break;
    }
    tmc_crec_fence(); /* the streaming stores before the batch is published */
    b->n = n;
    b->rc = rc;
}

static void *reader_main(void *arg)
{
    tmc_ahead *a = arg;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        if (!a->stop && a->tail - a->head == RING) {
            /* full: sleep until half the ring is free (a wake-up per RING /
             * 2 batches, not one per batch) */
            a->rwait = 1;
            while (!a->stop && a->tail - a->head > RING / 2)
                pthread_cond_wait(&a->empty, &a->mu);
            a->rwait = 0;
        }
        int stop = a->stop;
        uint32_t slot = a->tail % RING;
        pthread_mutex_unlock(&a->mu);
        if (stop)
            return NULL;
        batch *b = &a->b[slot];
        fill_batch(a, b);
        pthread_mutex_lock(&a->mu);
        a->tail++;
        if (a->cwait)
            pthread_cond_signal(&a->full);
        pthread_mutex_unlock(&a->mu);
        if (b->rc != 1)
            return NULL;
    }
}

int tmc_ahead_open(tmc_reader *rd, tmc_ahead **out)
{
    *out = NULL;
    tmc_ahead *a = aligned_alloc(64, sizeof *a); /* a multiple of 64: _Alignas */
    if (!a)
        return TM_ERR_NOMEM;
    memset(a, 0, sizeof *a);
    a->rd = rd;
    a->b = aligned_alloc(64, RING * sizeof *a->b);
    if (!a->b) {
        free(a);
        return TM_ERR_NOMEM;
    }
    memset(a->b, 0, RING * sizeof *a->b);
    for (uint32_t i = 0; i < RING; i++)
        if (!(a->b[i].val = malloc((size_t)BATCH * TMC_MAX_OPERAND))) {
            for (uint32_t j = 0; j < i; j++)
                free(a->b[j].val);
            free(a->b);
            free(a);
            return TM_ERR_NOMEM;
        }
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->full, NULL);
    pthread_cond_init(&a->empty, NULL);
    a->started = pthread_create(&a->th, NULL, reader_main, a) == 0;
    *out = a;
    return TM_OK;
}

/* Without a thread (it could not be started) the batches are filled here. */
static int next_batch(tmc_ahead *a)
{
    if (a->cur && a->pos) /* (the batch is about to be given back or refilled) */
        a->offset = a->cur->off0 + a->cur->off[a->pos - 1];
    if (!a->started) {
        fill_batch(a, &a->b[0]);
        a->cur = &a->b[0];
        a->pos = a->nval = a->nmod = 0;
        return 0;
    }
    pthread_mutex_lock(&a->mu);
    if (a->cur) { /* hand the finished batch back */
        a->head++;
        if (a->rwait && a->tail - a->head <= RING / 2)
            pthread_cond_signal(&a->empty);
    }
    a->cwait = 1;
    while (a->tail == a->head)
        pthread_cond_wait(&a->full, &a->mu);
    a->cwait = 0;
    a->cur = &a->b[a->head % RING];
    pthread_mutex_unlock(&a->mu);
    a->pos = a->nval = a->nmod = 0;
    return 0;
}

int tmc_ahead_next(tmc_ahead *a, const tmc_record **rec)
{
    for (;;) {
        if (a->done)
            return a->cur ? a->cur->rc : 0;
        batch *b = a->cur;
        if (b && a->pos < b->n) {
            tmc_record *r = &a->rec;
            tmc_crec_unpack(r, &b->rec[a->pos]);
            a->pos++;
            if (__builtin_expect(r->type == TMC_MEM, 0)) {
                memcpy(r->value, b->val + a->nval, r->size);
                memset(r->value + r->size, 0, TMC_MAX_OPERAND - r->size);
                a->nval += r->size;
            } else if (__builtin_expect(r->type == TMC_MODULE, 0)) {
                const module_ref *m = &b->mod[a->nmod++];
                r->path = m->has_path ? (const char *)b->bytes + m->path : NULL;
                r->path_len = m->path_len;
                r->build_id = m->has_bid ? b->bytes + m->bid : NULL;
                r->build_id_len = m->bid_len;
            }
            *rec = r;
            return 1;
        }
        if (b && b->rc != 1) {
            a->done = 1;
            continue;
        }
        next_batch(a);
    }
}

size_t tmc_ahead_crecs(tmc_ahead *a, const tmc_crec **recs, const uint8_t **vals)
{
    for (;;) {
        batch *b = a->cur;
        if (a->done)
            return 0;
        if (b && a->pos < b->n) {
            *recs = &b->rec[a->pos];
            *vals = b->val + a->nval;
            return b->n - a->pos;
        }
        if (b && b->rc != 1)
            return 0; /* the status: tmc_ahead_next's */
        next_batch(a);
    }
}

void tmc_ahead_advance(tmc_ahead *a, size_t k, size_t vbytes)
{
    a->pos += (uint32_t)k;
    a->nval += (uint32_t)vbytes;
}

/* The current batch's records are the caller's until the next batch: the
 * offset is read from it, not kept per record. */
uint64_t tmc_ahead_offset(const tmc_ahead *a)
{
    return a->cur && a->pos ? a->cur->off0 + a->cur->off[a->pos - 1] : a->offset;
}

void tmc_ahead_close(tmc_ahead *a)
{
    if (!a)
        return;
    if (a->started) {
        pthread_mutex_lock(&a->mu);
        a->stop = 1;
        pthread_cond_signal(&a->empty);
        pthread_mutex_unlock(&a->mu);
        pthread_join(a->th, NULL);
    }
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->full);
    pthread_cond_destroy(&a->empty);
    for (uint32_t i = 0; i < RING; i++) {
        free(a->b[i].bytes);
        free(a->b[i].mod);
        free(a->b[i].val);
    }
    free(a->b);
    free(a);
}
