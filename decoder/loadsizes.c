/* tm — operand sizes of each thread's loads, read ahead from the commit
 * stream, so that DATA messages can be split off the trace (spec §4.8). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "tm/grow.h"
#include "tm/decoder.h"
#include "tm/tmc.h"

typedef struct sizeq {
    uint8_t *v;
    size_t head, len, cap; /* ring buffer of sizes */
    uint64_t base;         /* load index of v[head] */
    uint64_t seen;         /* loads of the thread read so far */
    uint64_t cursor;       /* load after the last split DATA message */
} sizeq;

struct tm_load_sizes {
    tmc_reader *rd;
    uint32_t n;
    sizeq *q;
    int ended;
    uint32_t last_ti;
    uint64_t last_index;
    char err[512];
};

static int load_sizes_open(const char *tmc_path, uint32_t threads, tm_load_sizes **out)
{
    *out = NULL;
    tm_load_sizes *ls = calloc(1, sizeof *ls);
    if (!ls)
        return TM_ERR_NOMEM;
    *out = ls;
    if (!strcmp(tmc_path, "-")) {
        snprintf(ls->err, sizeof ls->err,
                 "replaying load values reads the commit stream twice (once ahead, for the operand "
                 "sizes of DATA messages): give a file, not standard input");
        return TM_ERR_ARG;
    }
    struct stat st;
    if (stat(tmc_path, &st) == 0 && !S_ISREG(st.st_mode)) {
        snprintf(ls->err, sizeof ls->err,
                 "%s: not a regular file: replaying load values reads the commit stream twice (once ahead, for "
                 "the operand sizes of DATA messages): give a file, not a pipe, FIFO or device",
                 tmc_path);
        return TM_ERR_ARG;
    }
    int rc = tmc_reader_open(tmc_path, &ls->rd, ls->err, sizeof ls->err);
    if (rc != TM_OK) {
        return rc;
    }
    ls->n = threads;
    ls->q = calloc(threads, sizeof *ls->q);
    if (!ls->q) {
        snprintf(ls->err, sizeof ls->err, "out of memory");
        return TM_ERR_NOMEM;
    }
    return TM_OK;
}

int tm_load_sizes_open(const char *tmc_path, uint32_t threads, tm_load_sizes **out, char *err, size_t errlen)
{
    tm_load_sizes *ls = NULL;
    int rc = load_sizes_open(tmc_path, threads, &ls);
    if (rc != TM_OK) {
        tm_err_set(err, errlen, ls ? ls->err : tm_status_str(rc));
        tm_load_sizes_close(ls);
        ls = NULL;
    }
    *out = ls;
    return rc;
}

void tm_load_sizes_close(tm_load_sizes *ls)
{
    if (!ls)
        return;
    if (ls->q)
        for (uint32_t i = 0; i < ls->n; i++)
            free(ls->q[i].v);
    free(ls->q);
    tmc_reader_close(ls->rd);
    free(ls);
}

const char *tm_load_sizes_error(const tm_load_sizes *ls) { return ls->err; }

int tm_load_sizes_finish(tm_load_sizes *ls)
{
    tmc_record r;
    int rc = 0;
    while (!ls->ended && (rc = tmc_reader_next(ls->rd, &r)) == 1)
        ;
    ls->ended = 1;
    if (rc < 0) {
        snprintf(ls->err, sizeof ls->err, "%s", tmc_reader_error(ls->rd));
        return rc;
    }
    return TM_OK;
}

static int push(sizeq *q, uint8_t size)
{
    if (q->len == q->cap && TM_RING_GROW(q->v, q->cap, q->head, q->len) != TM_OK)
        return TM_ERR_NOMEM;
    q->v[(q->head + q->len) % q->cap] = size;
    q->len++;
    q->seen++;
    return TM_OK;
}

int tm_load_sizes_fn(void *arg, uint32_t ti, uint64_t fah)
{
    tm_load_sizes *ls = arg;
    if (ti >= ls->n)
        return TM_ERR_FORMAT;
    sizeq *q = &ls->q[ti];
    uint64_t k = q->cursor + fah;
    if (k < q->cursor) { /* wrapped: no such load */
        snprintf(ls->err, sizeof ls->err, "a DATA message of thread %u reports load %llu + %llu, beyond any stream",
                 ti, (unsigned long long)q->cursor, (unsigned long long)fah);
        return TM_ERR_FORMAT;
    }
    while (q->seen <= k) {
        tmc_record r;
        int rc = ls->ended ? 0 : tmc_reader_next(ls->rd, &r);
        if (rc < 0) {
            snprintf(ls->err, sizeof ls->err, "%s", tmc_reader_error(ls->rd));
            return rc;
        }
        if (rc == 0) {
            ls->ended = 1;
            snprintf(ls->err, sizeof ls->err,
                     "a DATA message of thread %u reports its load number %llu (fahCnt %llu), but the thread "
                     "has only %llu loads in the commit stream",
                     ti, (unsigned long long)k, (unsigned long long)fah, (unsigned long long)q->seen);
            return TM_ERR_FORMAT;
        }
        if (r.type == TMC_MEM && !(r.flags & TMC_MEM_STORE) && r.tid < ls->n) {
            if (push(&ls->q[r.tid], r.size) != TM_OK) {
                snprintf(ls->err, sizeof ls->err, "out of memory");
                return TM_ERR_NOMEM;
            }
        }
    }
    ls->last_ti = ti;
    ls->last_index = k;
    return q->v[(q->head + (k - q->base)) % q->cap];
}

uint64_t tm_load_sizes_split(tm_load_sizes *ls)
{
    sizeq *q = &ls->q[ls->last_ti];
    uint64_t k = ls->last_index;
    uint64_t drop = k + 1 - q->base;
    q->head = (q->head + drop) % q->cap;
    q->len -= drop;
    q->base = k + 1;
    q->cursor = k + 1;
    return k;
}
