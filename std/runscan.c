/* tm — the run scanner of the trace-standard encoders (tm/runscan.h): an
 * open-addressing hash table of the runs decoded so far, keyed by (pc,
 * count), growing at half full; each entry's wanted instructions are a
 * slice of one array. */
#include <inttypes.h>
#include <stdlib.h>
#include "tm/grow.h"
#include "tm/runscan.h"
#include "tm/status.h"

#define FIRST_SLOTS 4096u /* 2^12 */

typedef struct ent {
    uint64_t pc, count; /* count 0: a free slot (a run has one instruction or more) */
    uint64_t bytes;     /* decoded */
    uint64_t last;
    uint32_t first, n;  /* s->hit[first .. first+n) */
} ent;

struct tm_runscan {
    ent *tab;           /* what a hit reads first, in one line */
    tm_runscan_hit *hit;
    size_t cap, n;      /* slots (a power of 2), runs */
    unsigned shift;     /* 64 - log2(cap) */
    size_t nhit, hitcap;
    tm_runscan_code_fn code;
    void *code_arg;
    tm_runscan_step_fn step;
    void *step_arg;
    const char *unit;
};

int tm_runscan_new(tm_runscan_code_fn code, void *code_arg, tm_runscan_step_fn step, void *step_arg,
                   const char *unit, tm_runscan **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!code || !step)
        return tm_errf(TM_ERR_ARG, err, errlen, "a run scanner needs the code and a decoder");
    tm_runscan *s = calloc(1, sizeof *s);
    if (!s || !(s->tab = calloc(FIRST_SLOTS, sizeof *s->tab))) {
        free(s);
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    }
    s->cap = FIRST_SLOTS;
    s->shift = 64 - 12;
    s->code = code;
    s->code_arg = code_arg;
    s->step = step;
    s->step_arg = step_arg;
    s->unit = unit ? unit : "thread";
    *out = s;
    return TM_OK;
}

void tm_runscan_free(tm_runscan *s)
{
    if (!s)
        return;
    free(s->tab);
    free(s->hit);
    free(s);
}

size_t tm_runscan_runs(const tm_runscan *s)
{
    return s->n;
}

/* The first slot of the run (PC, COUNT) in a table of 2^(64 - SHIFT) slots:
 * the high bits of multiplicative hashes (the low bits of a product depend
 * only on the low bits of its factors: runs whose pcs share them would
 * collide); two independent products, for the latency. */
static inline size_t slot(uint64_t pc, uint64_t count, unsigned shift)
{
    return (size_t)((pc * 0x9E3779B97F4A7C15ull ^ count * 0xC2B2AE3D27D4EB4Full) >> shift);
}

static int wrong_length(const tm_runscan *s, const tmc_record *r, uint64_t bytes, char *err, size_t errlen)
{
    return tm_errf(TM_ERR_MISMATCH, err, errlen,
                   "%s %" PRIu32 ": run at 0x%" PRIx64 ": %" PRIu64 " instructions are %" PRIu64
                   " bytes in the code, %" PRIu64 " in the commit stream (the wrong binary?)",
                   s->unit, r->tid, r->pc, r->count, bytes, r->bytes);
}

static int grow(tm_runscan *s)
{
    size_t nc = 2 * s->cap;
    ent *nt = calloc(nc, sizeof *nt);
    if (!nt)
        return TM_ERR_NOMEM;
    for (size_t i = 0; i < s->cap; i++)
        if (s->tab[i].count) {
            size_t j = slot(s->tab[i].pc, s->tab[i].count, s->shift - 1);
            while (nt[j].count)
                j = (j + 1) & (nc - 1);
            nt[j] = s->tab[i];
        }
    free(s->tab);
    s->tab = nt;
    s->cap = nc;
    s->shift--;
    return TM_OK;
}

/* Decodes the run R into the free slot F. */
static int scan(tm_runscan *s, const tmc_record *r, ent *f, char *err, size_t errlen)
{
    size_t first = s->nhit;
    uint64_t a = r->pc, last = r->pc;
    for (uint64_t k = 0; k < r->count; k++) {
        size_t avail = 0;
        const uint8_t *p = s->code(s->code_arg, a, &avail);
        unsigned len = 0;
        int w = p ? s->step(s->step_arg, p, avail, a, &len) : -1;
        if (w < 0 || !len) {
            s->nhit = first;
            return tm_errf(TM_ERR_FORMAT, err, errlen,
                           "%s %" PRIu32 ": run at 0x%" PRIx64 ": %s 0x%" PRIx64 " (the module map)", s->unit,
                           r->tid, r->pc, p ? "cannot decode the instruction at" : "no code at", a);
        }
        last = a;
        a += len;
        if (w) {
            if (TM_GROW(s->hit, s->hitcap, s->nhit + 1) != TM_OK) {
                s->nhit = first;
                return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
            }
            s->hit[s->nhit++] = (tm_runscan_hit){k, last, a};
        }
    }
    if (a - r->pc != r->bytes) {
        s->nhit = first;
        return wrong_length(s, r, a - r->pc, err, errlen);
    }
    *f = (ent){r->pc, r->count, r->bytes, last, (uint32_t)first, (uint32_t)(s->nhit - first)};
    s->n++;
    return TM_OK;
}

/* A run not seen yet: decoded into a free slot (the table grown first if
 * half full) and its scan into *OUT.  Out of tm_runscan_get's hot path. */
static __attribute__((noinline)) int miss(tm_runscan *s, const tmc_record *r, ent *f, tm_runscan_run *out,
                                          char *err, size_t errlen)
{
    if (2 * (s->n + 1) > s->cap) {
        if (grow(s) != TM_OK)
            return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
        size_t j = slot(r->pc, r->count, s->shift);
        while (s->tab[j].count)
            j = (j + 1) & (s->cap - 1);
        f = &s->tab[j];
    }
    int rc = scan(s, r, f, err, errlen);
    if (rc != TM_OK)
        return rc;
    out->hit = s->hit + f->first;
    out->n = f->n;
    out->last = f->last;
    return TM_OK;
}

int tm_runscan_get(tm_runscan *s, const tmc_record *r, tm_runscan_run *out, char *err, size_t errlen)
{
    size_t mask = s->cap - 1, j = slot(r->pc, r->count, s->shift);
    ent *f = &s->tab[j];
    /* a free slot (count 0) never matches: a run's count is 1 or more */
    if (f->pc != r->pc || f->count != r->count) {
        do {
            if (!f->count)
                return miss(s, r, f, out, err, errlen);
            j = (j + 1) & mask;
            f = &s->tab[j];
        } while (f->pc != r->pc || f->count != r->count);
        /* Found past its first slot: it changes places with the run before
         * it (still inside the same cluster, so both stay reachable), and
         * the runs met most often end up where the search starts. */
        ent *g = &s->tab[(j - 1) & mask], t = *g;
        *g = *f;
        *f = t;
        f = g;
    }
    if (f->bytes != r->bytes)
        return wrong_length(s, r, f->bytes, err, errlen);
    out->hit = s->hit + f->first;
    out->n = f->n;
    out->last = f->last;
    return TM_OK;
}
