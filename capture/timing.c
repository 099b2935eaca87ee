/* tm — the timing model of recorded programs (tm/timing.h, docs/capture.md §3). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "tm/grow.h"
#include "tm/timing.h"

#define MILLI 1000u
#define ORD_BITS 20u /* the line order table: 2^20 entries, hashed */
#define MAX_GROUP 16u /* records of one group */

/* A thread's queue entry, in 64-bit words: the stamped cycle, the record
 * count, then per record a header word (type, size, flags, bclass, taken,
 * len) and its fields: RUN pc, count, bytes; MEM addr, pc, value words;
 * START, EXIT, BRANCH, EXC pc, target, count. */

typedef struct tqueue {
    uint64_t *w;
    size_t head, n, cap; /* words [head, n) */
    uint64_t groups;     /* entries held */
} tqueue;

typedef struct tthread {
    uint64_t acc;       /* clock, 1/1000 cycles */
    uint64_t next;      /* the earliest cycle of its next group */
    uint64_t insns;
    int live;           /* started, not ended */
    int done;
    int in_sys;         /* in a system call */
    uint64_t sys_seq;   /* t->closed when it entered it */
    tqueue q;
} tthread;

typedef struct l1set {
    uint64_t *tag;      /* line address + 1 (0 = empty) */
    uint32_t *ver;      /* the line's version when filled */
    uint32_t *age;
} l1set;

struct tm_timing {
    tm_timing_cfg cfg;
    tm_timing_sink sink;
    uint32_t nthreads;
    uint32_t ntop;        /* threads seen: ids < ntop */
    tthread *th;
    /* the group being collected (serial order) */
    int open;
    uint32_t otid;
    uint64_t ocycle;
    unsigned nrec;        /* its records, in order */
    tmc_record rec[MAX_GROUP];
    /* emission */
    uint64_t last_cycle;  /* of the last group handed on */
    uint32_t last_tid;
    int emitted;
    uint64_t held;
    uint64_t closed;      /* groups closed so far */
    uint32_t last_closer; /* the thread of the last one */
    /* caches */
    uint32_t line_shift, l1_sets, l2_sets;
    uint64_t *l1_tag; uint32_t *l1_ver; uint64_t *l1_age; /* [thread][set][way] */
    uint64_t *l2_tag; uint64_t *l2_age;
    uint64_t tick;
    /* line order: last store cycle, last access cycle, version (hashed lines) */
    uint64_t *ord_store, *ord_access;
    uint32_t *ord_ver;
    tm_timing_stats st;
    int failed;
    tmc_record out[MAX_GROUP]; /* a group being handed on */
};

void tm_timing_defaults(tm_timing_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cpi_milli = MILLI;
    cfg->line = 64;
    cfg->l1 = (tm_timing_cache){8u << 10, 2, 2};
    cfg->l2 = (tm_timing_cache){0, 8, 4};
    cfg->mem_lat = 200;
    cfg->window = (uint64_t)4 << 20;
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
    if (!tm_is_pow2(cfg->line) || cfg->line < 8 || cfg->line > 4096) {
        ERRF(err, errlen, "line %u bytes: allowed a power of two 8..4096", cfg->line);
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
    return rc ? rc : check_cache("l2", &cfg->l2, cfg->line, 1, err, errlen);
}

int tm_timing_new(const tm_timing_cfg *cfg, uint32_t threads, const tm_timing_sink *sink, tm_timing **out)
{
    *out = NULL;
    if (!threads || threads > TMC_MAX_THREADS || tm_timing_check(cfg, NULL, 0) != TM_OK)
        return TM_ERR_ARG;
    tm_timing *t = calloc(1, sizeof *t);
    if (!t)
        return TM_ERR_NOMEM;
    t->cfg = *cfg;
    if (!t->cfg.l2.size) {
        uint64_t s = (uint64_t)threads * (64u << 10);
        while (!tm_is_pow2((uint32_t)s))
            s &= s - 1; /* a power of two: the largest not above cores x 64 KB */
        t->cfg.l2.size = s > (1u << 30) ? 1u << 30 : (uint32_t)s;
    }
    if ((uint64_t)t->cfg.l2.ways * t->cfg.line > t->cfg.l2.size)
        t->cfg.l2.ways = t->cfg.l2.size / t->cfg.line;
    t->sink = *sink;
    t->nthreads = threads;
    while ((1u << t->line_shift) < t->cfg.line)
        t->line_shift++;
    t->st.l2_size = t->cfg.l2.size;
    t->l1_sets = t->cfg.l1.size / t->cfg.line / t->cfg.l1.ways;
    t->l2_sets = t->cfg.l2.size / t->cfg.line / t->cfg.l2.ways;
    t->th = calloc(threads, sizeof *t->th);
    if (!t->th) {
        tm_timing_free(t);
        return TM_ERR_NOMEM;
    }
    *out = t;
    return TM_OK;
}

void tm_timing_free(tm_timing *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; t->th && i < t->nthreads; i++)
        free(t->th[i].q.w);
    free(t->th);
    free(t->l1_tag);
    free(t->l1_ver);
    free(t->l1_age);
    free(t->l2_tag);
    free(t->l2_age);
    free(t->ord_store);
    free(t->ord_access);
    free(t->ord_ver);
    free(t);
}

/* ------------------------------------------------------------ caches */

static int caches_alloc(tm_timing *t)
{
    if (t->ord_ver)
        return TM_OK;
    size_t n1 = (size_t)t->nthreads * t->l1_sets * t->cfg.l1.ways, n2 = (size_t)t->l2_sets * t->cfg.l2.ways;
    size_t no = (size_t)1 << ORD_BITS;
    t->l1_tag = calloc(n1, sizeof *t->l1_tag);
    t->l1_ver = calloc(n1, sizeof *t->l1_ver);
    t->l1_age = calloc(n1, sizeof *t->l1_age);
    t->l2_tag = calloc(n2, sizeof *t->l2_tag);
    t->l2_age = calloc(n2, sizeof *t->l2_age);
    t->ord_store = calloc(no, sizeof *t->ord_store);
    t->ord_access = calloc(no, sizeof *t->ord_access);
    t->ord_ver = calloc(no, sizeof *t->ord_ver);
    if (!t->l1_tag || !t->l1_ver || !t->l1_age || !t->l2_tag || !t->l2_age || !t->ord_store || !t->ord_access ||
        !t->ord_ver) {
        free(t->ord_ver);
        t->ord_ver = NULL;
        return TM_ERR_NOMEM;
    }
    return TM_OK;
}

static size_t ord_slot(uint64_t line)
{
    line *= 0x9e3779b97f4a7c15ull;
    return (size_t)(line >> (64 - ORD_BITS));
}

/* Looks LINE up in a set of WAYS ways (TAG/AGE at BASE): 1 on a hit (its
 * age refreshed), else 0 with the line filled into the least recently used
 * way (*WAY). */
static int set_access(uint64_t *tag, uint64_t *age, size_t base, uint32_t ways, uint64_t key, uint64_t tick,
                      size_t *way)
{
    size_t lru = base;
    for (size_t w = base; w < base + ways; w++) {
        if (tag[w] == key) {
            age[w] = tick;
            *way = w;
            return 1;
        }
        if (age[w] < age[lru])
            lru = w;
    }
    tag[lru] = key;
    age[lru] = tick;
    *way = lru;
    return 0;
}

/* The cycles a memory operand of thread TID at line LINE costs (L1, L2,
 * memory); a store makes the other cores' copies stale. */
static uint32_t mem_cost(tm_timing *t, uint32_t tid, uint64_t line, int store)
{
    size_t o = ord_slot(line);
    uint64_t key = line + 1;
    size_t way;
    t->tick++;
    size_t b1 = ((size_t)tid * t->l1_sets + (size_t)(line & (t->l1_sets - 1))) * t->cfg.l1.ways;
    int hit = set_access(t->l1_tag, t->l1_age, b1, t->cfg.l1.ways, key, t->tick, &way) && t->l1_ver[way] == t->ord_ver[o];
    if (store)
        t->ord_ver[o]++;
    t->l1_ver[way] = t->ord_ver[o];
    if (hit) {
        t->st.l1_hits++;
        return t->cfg.l1.lat;
    }
    t->st.l1_misses++;
    size_t b2 = (size_t)(line & (t->l2_sets - 1)) * t->cfg.l2.ways;
    if (set_access(t->l2_tag, t->l2_age, b2, t->cfg.l2.ways, key, t->tick, &way)) {
        t->st.l2_hits++;
        return t->cfg.l1.lat + t->cfg.l2.lat;
    }
    t->st.l2_misses++;
    return t->cfg.l1.lat + t->cfg.l2.lat + t->cfg.mem_lat;
}

/* ------------------------------------------------------------ queues */

static int q_room(tqueue *q, size_t k)
{
    if (q->head && q->head == q->n)
        q->head = q->n = 0;
    if (q->head && q->n + k > q->cap && q->head >= q->cap / 2) {
        memmove(q->w, q->w + q->head, (q->n - q->head) * sizeof *q->w);
        q->n -= q->head;
        q->head = 0;
    }
    return tm_grow((void **)&q->w, &q->cap, q->n + k, sizeof *q->w);
}

/* Instructions of the open group. */
static uint64_t open_insns(const tm_timing *t)
{
    uint64_t n = 0;
    for (unsigned k = 0; k < t->nrec; k++)
        n += t->rec[k].type == TMC_RUN ? t->rec[k].count : t->rec[k].type == TMC_BRANCH;
    return n;
}

/* The lines [L0, L1] that memory operand M touches. */
static void op_lines(const tm_timing *t, const tmc_record *m, uint64_t *l0, uint64_t *l1)
{
    *l0 = m->addr >> t->line_shift;
    *l1 = (m->addr + (m->size ? m->size - 1u : 0u)) >> t->line_shift;
}

/* The open group of thread OTID, stamped: into its queue. */
static int close_group(tm_timing *t)
{
    if (!t->open)
        return TM_OK;
    t->open = 0;
    uint32_t tid = t->otid;
    tthread *th = &t->th[tid];
    uint64_t n = open_insns(t);
    uint64_t acc = th->acc + n * t->cfg.cpi_milli;
    uint64_t floor = th->next;
    size_t words = 2;
    for (unsigned k = 0; k < t->nrec; k++) {
        const tmc_record *m = &t->rec[k];
        words += 4 + (m->type == TMC_MEM ? (m->size + 7u) / 8u : 0);
        if (m->type != TMC_MEM)
            continue;
        if (caches_alloc(t) != TM_OK)
            return TM_ERR_NOMEM;
        int store = (m->flags & TMC_MEM_STORE) != 0;
        uint64_t l0, l1;
        op_lines(t, m, &l0, &l1);
        if (m->pc) /* an instruction's operand (not a write by the system) */
            acc += (uint64_t)mem_cost(t, tid, l0, store) * MILLI;
        for (uint64_t l = l0; l <= l1; l++) {
            size_t o = ord_slot(l);
            /* after the line's last store; a store also after its last access */
            uint64_t need = store && t->ord_access[o] > t->ord_store[o] ? t->ord_access[o] : t->ord_store[o];
            if (need > floor && need > acc / MILLI) {
                floor = need;
                t->st.ordered++;
            }
        }
    }
    uint64_t c = acc / MILLI > floor ? acc / MILLI : floor;
    /* never before what was handed on */
    if (t->emitted && (c < t->last_cycle || (c == t->last_cycle && tid < t->last_tid))) {
        c = t->last_cycle + (tid < t->last_tid);
        t->st.clamped++;
    }
    if (acc < c * MILLI)
        acc = c * MILLI;
    th->acc = acc;
    th->next = c + 1;
    th->insns += n;
    t->closed++;
    t->last_closer = tid;
    tqueue *q = &th->q;
    if (q_room(q, words))
        return TM_ERR_NOMEM;
    uint64_t *w = q->w + q->n;
    *w++ = c;
    *w++ = t->nrec;
    for (unsigned k = 0; k < t->nrec; k++) {
        const tmc_record *r = &t->rec[k];
        *w++ = (uint64_t)r->type | (uint64_t)r->size << 8 | (uint64_t)(r->flags & 0xffff) << 16 |
               (uint64_t)r->bclass << 32 | (uint64_t)(r->taken & 1) << 40 | (uint64_t)r->len << 48;
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
            uint64_t l0, l1;
            op_lines(t, r, &l0, &l1);
            for (uint64_t l = l0; l <= l1; l++) {
                size_t o = ord_slot(l);
                if (t->ord_access[o] < c + 1)
                    t->ord_access[o] = c + 1; /* the cycle after: 0 = never */
                if ((r->flags & TMC_MEM_STORE) && t->ord_store[o] < c + 1)
                    t->ord_store[o] = c + 1;
            }
        } else {
            *w++ = r->pc;
            *w++ = r->target;
            *w++ = r->count;
            if (r->type == TMC_EXIT)
                th->done = 1;
        }
    }
    q->n = (size_t)(w - q->w);
    q->groups++;
    t->held++;
    if (t->held > t->st.held_max)
        t->st.held_max = t->held;
    return TM_OK;
}

/* Hands on the head group of thread TID: one call of the sink's group if
 * it has one and the group is RUN?, MEM?, event? in that order, else its
 * records. */
static int emit_head(tm_timing *t, uint32_t tid)
{
    tqueue *q = &t->th[tid].q;
    const uint64_t *w = q->w + q->head;
    uint64_t c = *w++;
    unsigned nrec = (unsigned)*w++;
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
    q->head = (size_t)(w - q->w);
    q->groups--;
    t->held--;
    t->last_cycle = c;
    t->last_tid = tid;
    t->emitted = 1;
    t->st.groups++;
    if (c + 1 > t->st.cycles)
        t->st.cycles = c + 1;
    /* the group whole: RUN?, MEM?, event? */
    unsigned k = 0;
    const tmc_record *run = NULL, *mem = NULL, *ev = NULL;
    if (k < nrec && rs[k].type == TMC_RUN)
        run = &rs[k++];
    if (k < nrec && rs[k].type == TMC_MEM)
        mem = &rs[k++];
    if (k < nrec && rs[k].type != TMC_RUN && rs[k].type != TMC_MEM)
        ev = &rs[k++];
    int stop = 0;
    if (t->sink.group && k == nrec) {
        tmc_group g = {tid, c, run ? run->pc : 0, run ? run->count : 0, run ? run->bytes : 0, mem != NULL,
                       mem ? mem->flags : 0, mem ? mem->size : 0, mem ? mem->addr : 0, mem ? mem->value : NULL, ev};
        stop = t->sink.group(t->sink.arg, &g);
    } else {
        for (k = 0; k < nrec && !stop; k++)
            stop = t->sink.record(t->sink.arg, &rs[k]);
    }
    if (stop) {
        t->failed = 1;
        return TM_ERR_IO;
    }
    return TM_OK;
}

/* Hands on every group no thread can still precede; beyond the window the
 * oldest too; with ALL, everything. */
static int drain(tm_timing *t, int all)
{
    for (;;) {
        uint32_t best = UINT32_MAX;
        uint64_t bc = 0;
        uint64_t lim = UINT64_MAX; /* the earliest cycle a thread without a queue may still retire in */
        uint32_t limtid = UINT32_MAX;
        for (uint32_t i = 0; i < t->ntop; i++) {
            tthread *th = &t->th[i];
            if (th->q.groups) {
                uint64_t c = th->q.w[th->q.head];
                if (best == UINT32_MAX || c < bc) {
                    best = i;
                    bc = c;
                }
            } else if (th->live && !th->done && !th->in_sys && th->next < lim) {
                lim = th->next;
                limtid = i;
            }
        }
        if (best == UINT32_MAX)
            return TM_OK;
        int safe = bc < lim || (bc == lim && best < limtid);
        if (!safe && !all && t->held <= t->cfg.window)
            return TM_OK;
        int rc = emit_head(t, best);
        if (rc != TM_OK)
            return rc;
    }
}

/* ------------------------------------------------------------ input */

int tm_timing_put(tm_timing *t, const tmc_record *r)
{
    if (t->failed)
        return TM_ERR_IO;
    if (r->tid >= t->nthreads)
        return TM_ERR_ARG;
    if (t->open && (r->tid != t->otid || r->cycle != t->ocycle)) {
        int was_empty = t->th[t->otid].q.groups == 0;
        int rc = close_group(t);
        if (rc == TM_OK && (was_empty || t->held > t->cfg.window))
            rc = drain(t, 0);
        if (rc != TM_OK)
            return rc;
    }
    switch (r->type) {
    case TMC_RUN:
    case TMC_MEM:
    case TMC_START:
    case TMC_EXIT:
    case TMC_BRANCH:
    case TMC_EXC:
        break;
    default:
        return TM_ERR_ARG;
    }
    if (!t->open) {
        t->open = 1;
        t->otid = r->tid;
        t->ocycle = r->cycle;
        t->nrec = 0;
        t->th[r->tid].live = 1;
        if (r->tid >= t->ntop)
            t->ntop = r->tid + 1;
    }
    if (t->nrec == MAX_GROUP)
        return TM_ERR_ARG;
    t->rec[t->nrec++] = *r;
    return TM_OK;
}

uint64_t tm_timing_clock(const tm_timing *t, uint32_t tid)
{
    if (tid >= t->nthreads)
        return 0;
    uint64_t acc = t->th[tid].acc;
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
}

int tm_timing_syscall(tm_timing *t, uint32_t tid, int leave)
{
    if (t->failed)
        return TM_ERR_IO;
    if (tid >= t->nthreads)
        return TM_ERR_ARG;
    tthread *th = &t->th[tid];
    int rc = TM_OK;
    if (!leave) {
        if (t->open && t->otid == tid) {
            int was_empty = th->q.groups == 0;
            rc = close_group(t);
            if (rc == TM_OK && was_empty)
                rc = drain(t, 0);
        }
        th->in_sys = 1;
        th->sys_seq = t->closed;
        return rc == TM_OK ? drain(t, 0) : rc;
    }
    if (th->in_sys && t->closed > th->sys_seq && t->last_closer != tid) {
        t->st.blocked++;
        tm_timing_start_at(t, tid, t->th[t->last_closer].next);
    }
    th->in_sys = 0;
    return TM_OK;
}

int tm_timing_finish(tm_timing *t)
{
    if (t->failed)
        return TM_ERR_IO;
    int rc = close_group(t);
    return rc != TM_OK ? rc : drain(t, 1);
}

void tm_timing_get_stats(const tm_timing *t, tm_timing_stats *s) { *s = t->st; }

void tm_timing_thread(const tm_timing *t, uint32_t tid, uint64_t *cycles, uint64_t *insns)
{
    *cycles = tid < t->nthreads ? t->th[tid].next : 0;
    *insns = tid < t->nthreads ? t->th[tid].insns : 0;
}
