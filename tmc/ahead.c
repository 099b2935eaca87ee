/* tm — the commit stream read ahead by a second thread (include/tm/tmc.h,
 * tmc_ahead_*).
 *
 * Design.  A reader thread runs tmc_reader_next into batches of records
 * (RING batches of BATCH records); the caller's thread takes the records one
 * by one from the oldest full batch and hands the batch back when it is
 * done with it.  The two meet only at a batch boundary (a mutex and two
 * condition variables), so the per-record cost is that of tmc_reader_next
 * on the other core.  A MODULE record's path and build id live in the
 * reader's buffer only until its next call: they are copied into the
 * batch's own bytes.  The record's offset in the stream is kept beside it
 * (tmc_ahead_offset), and the reader's status ends the last batch: the
 * caller sees the records and the error in stream order, as from
 * tmc_reader_next.  tmc_ahead_close stops the thread (it may be waiting for
 * a free batch) and joins it on every path. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "tm/tmc.h"

#define BATCH 2048u
#define RING 4u

typedef struct batch {
    tmc_record rec[BATCH];
    uint64_t off[BATCH]; /* tmc_reader_offset after each record */
    uint32_t n;
    int rc;              /* the reader's result after the N records (1: more) */
    uint8_t *bytes;      /* MODULE paths and build ids */
    size_t nbytes, cap;
} batch;

struct tmc_ahead {
    tmc_reader *rd;
    batch *b;            /* [RING] */
    pthread_t th;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t full, empty;
    uint32_t head, tail; /* batches filled: [head, tail) (counters, mod RING) */
    int stop;            /* the caller closes: the thread ends */
    /* the caller's side */
    batch *cur;
    uint32_t pos;
    uint64_t offset;
    int done;            /* the caller has seen the status */
};

/* Copies the N bytes at *P into B's bytes and points *P at the copy: 0, or
 * -1 without memory. */
static int keep(batch *b, const void **p, size_t n)
{
    if (!n || !*p)
        return 0;
    if (b->nbytes + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->nbytes + n)
            cap *= 2;
        uint8_t *q = realloc(b->bytes, cap);
        if (!q)
            return -1;
        /* earlier records' pointers into the old bytes move with them */
        for (uint32_t i = 0; i < b->n; i++) {
            tmc_record *r = &b->rec[i];
            if (r->type == TMC_MODULE) {
                if (r->path)
                    r->path = (const char *)q + ((const uint8_t *)r->path - b->bytes);
                if (r->build_id)
                    r->build_id = q + (r->build_id - b->bytes);
            }
        }
        b->bytes = q;
        b->cap = cap;
    }
    memcpy(b->bytes + b->nbytes, *p, n);
    *p = b->bytes + b->nbytes;
    b->nbytes += n;
    return 0;
}

/* Fills B from the reader: 1 if more may follow, else the reader's end
 * status (0 clean, < 0 error), in B->rc. */
static void fill_batch(tmc_ahead *a, batch *b)
{
    b->n = 0;
    b->nbytes = 0;
    int rc = 1;
    while (b->n < BATCH) {
        tmc_record *r = &b->rec[b->n];
        rc = tmc_reader_next(a->rd, r);
        if (rc != 1)
            break;
        if (r->type == TMC_MODULE) {
            const void *path = r->path, *bid = r->build_id;
            /* the path with its terminating NUL, as the reader gives it */
            if (keep(b, &path, r->path ? r->path_len + 1 : 0) || keep(b, &bid, r->build_id_len)) {
                rc = TM_ERR_NOMEM;
                break;
            }
            r->path = path;
            r->build_id = bid;
        }
        b->off[b->n++] = tmc_reader_offset(a->rd);
    }
    b->rc = rc;
}

static void *reader_main(void *arg)
{
    tmc_ahead *a = arg;
    for (;;) {
        pthread_mutex_lock(&a->mu);
        while (!a->stop && a->tail - a->head == RING)
            pthread_cond_wait(&a->empty, &a->mu);
        int stop = a->stop;
        uint32_t slot = a->tail % RING;
        pthread_mutex_unlock(&a->mu);
        if (stop)
            return NULL;
        batch *b = &a->b[slot];
        fill_batch(a, b);
        pthread_mutex_lock(&a->mu);
        a->tail++;
        pthread_cond_signal(&a->full);
        pthread_mutex_unlock(&a->mu);
        if (b->rc != 1)
            return NULL;
    }
}

int tmc_ahead_open(tmc_reader *rd, tmc_ahead **out)
{
    *out = NULL;
    tmc_ahead *a = calloc(1, sizeof *a);
    if (!a)
        return TM_ERR_NOMEM;
    a->rd = rd;
    a->b = calloc(RING, sizeof *a->b);
    if (!a->b) {
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
    if (!a->started) {
        fill_batch(a, &a->b[0]);
        a->cur = &a->b[0];
        a->pos = 0;
        return 0;
    }
    pthread_mutex_lock(&a->mu);
    if (a->cur) { /* hand the finished batch back */
        a->head++;
        pthread_cond_signal(&a->empty);
    }
    while (a->tail == a->head)
        pthread_cond_wait(&a->full, &a->mu);
    a->cur = &a->b[a->head % RING];
    pthread_mutex_unlock(&a->mu);
    a->pos = 0;
    return 0;
}

int tmc_ahead_next(tmc_ahead *a, const tmc_record **rec)
{
    for (;;) {
        if (a->done)
            return a->cur ? a->cur->rc : 0;
        if (a->cur && a->pos < a->cur->n) {
            a->offset = a->cur->off[a->pos];
            *rec = &a->cur->rec[a->pos++];
            return 1;
        }
        if (a->cur && a->cur->rc != 1) {
            a->done = 1;
            continue;
        }
        next_batch(a);
    }
}

uint64_t tmc_ahead_offset(const tmc_ahead *a) { return a->offset; }

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
    for (uint32_t i = 0; i < RING; i++)
        free(a->b[i].bytes);
    free(a->b);
    free(a);
}
