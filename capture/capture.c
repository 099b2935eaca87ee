/* tm — capture layer (docs/capture.md): capture stream -> commit stream. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/grow.h"
#include "tm/bytemap.h"
#include "tm/capture.h"
#include "tm/elf.h"
#include "tm/isa.h"

typedef struct xit {
    uint8_t kind, dyn;
    uint16_t insn;
    uint8_t passes;     /* a conditional side exit before it is passed through */
    uint8_t blen;       /* length of instruction insn */
    uint32_t nrun;      /* instructions before the branch (or retired, without one) */
    uint32_t boff;      /* offset of instruction insn in the block */
    uint64_t target;
} xit;

typedef struct block {
    uint64_t addr;
    uint32_t ninsn, nexit;
    size_t ioff;   /* into c->ilen / c->ioffs */
    size_t xoff;   /* into c->xits */
} block;

typedef struct pmem {
    uint16_t insn;
    uint8_t store, size;
    uint64_t addr;
    uint64_t v[TMC_MAX_OPERAND / 8]; /* the value's words (ceil(size / 8) of them) */
} pmem;

enum { T_NONE = 0, T_NEW, T_RUN, T_DONE };
#define CAP_SYS_INSN 0xffffu /* a MEM written by the system, not an instruction */

typedef struct cthread {
    uint8_t state;
    int32_t id;          /* tmc thread id, -1 until it runs */
    uint64_t expect;     /* pc of its next instruction */
    uint8_t tr;          /* trace: 0 not started, 1 on, 2 ended */
    uint8_t ran;         /* it retired instructions before its START */
    int exc;             /* an exception is pending: the next block is its target */
    uint64_t birth;      /* timing: its creator's clock when it was created */
    uint32_t handlers;   /* signal handlers entered (SIGNAL) and not yet returned (SIGRET) */
    uint8_t insys;       /* inside a system call (SYSCALL entered, not yet left) */
    uint16_t sysno;      /* the number of the system call it is in */
    pmem *mem;           /* memory operands of the block being run */
    size_t nmem, capmem;
} cthread;

/* The memory image (img_*): 32 MB of the program's memory known (a table
 * of at most 2^20 blocks of 88 bytes, 92 MB), then it starts over. */
#define IMG_MAX_BLOCKS (1u << 19)

struct tm_cap {
    tm_cap_cfg cfg;
    tm_timing_cfg tcfg;
    tm_timing *tim;      /* the timing model, NULL = serial */
    tm_cap_sink sink;
    tm_cap_info info;
    char err[256];
    int failed;
    /* input reassembly */
    uint64_t *w;
    size_t nw, capw;
    uint8_t part[8];
    unsigned npart;
    int have_magic;
    uint64_t off;        /* byte offset of w[0] in the stream */
    uint64_t exec_end;   /* offset just after the last EXECVE event */
    uint64_t end_off;    /* offset of the END event (c->info.ended) */
    /* blocks */
    block *blocks;       /* index = id */
    size_t nblocks, bcap;
    uint32_t *ioffs;     /* per insn: offset from the block's address */
    uint8_t *ilen;
    size_t ni, capi;
    xit *xits;
    size_t nx, capx;
    /* addr -> latest block id (open addressing) */
    uint64_t *hkey, *hval;
    size_t hcap, hn;
    /* threads (capture ids) */
    cthread *th;
    size_t nth;
    uint32_t cur;        /* capture thread running */
    uint32_t next_id;
    /* groups */
    uint64_t cycle;      /* cycle of the open group */
    int open, open_mem;
    uint32_t open_tid;
    /* record templates, one per type (fields of other types stay 0) */
    tmc_record rrun, rbr, rmem, rev;
    unsigned rmem_nw;    /* words of rmem.value that may be nonzero */
    /* the tracing window (docs/capture.md §5) */
    int on;              /* 0 not yet, 1 tracing, 2 stopped */
    uint64_t seen, traced;
    struct { uint64_t lo, hi; } *fr; /* filter ranges [lo, hi) */
    size_t nf, fcap;
    int have_main;
    char *main_path;
    /* modules seen (path + base) */
    struct { char *path; uint64_t base; } *mods;
    size_t nmods, modcap;
    tm_bytemap img;      /* the memory image (img_access) */
};

static int fail(tm_cap *c, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(tm_cap *c, uint64_t off, const char *fmt, ...)
{
    if (c->failed)
        return TM_ERR_FORMAT;
    int n = snprintf(c->err, sizeof c->err, "capture: offset %llu: ", (unsigned long long)off);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + n, sizeof c->err - (size_t)n, fmt, ap);
    va_end(ap);
    c->failed = 1;
    return TM_ERR_FORMAT;
}

int tm_cap_new(const tm_cap_cfg *cfg, const tm_cap_sink *sink, tm_cap **out)
{
    *out = NULL;
    if (!cfg->threads || cfg->threads > TMC_MAX_THREADS)
        return TM_ERR_ARG;
    tm_cap *c = calloc(1, sizeof *c);
    if (!c)
        return TM_ERR_NOMEM;
    c->cfg = *cfg;
    c->sink = *sink;
    tm_bytemap_init(&c->img);
    if (cfg->timing) {
        c->tcfg = *cfg->timing;
        c->cfg.timing = &c->tcfg;
        tm_timing_sink ts = {sink->record, sink->group, sink->arg};
        int rc = tm_timing_new(&c->tcfg, cfg->threads, &ts, &c->tim);
        if (rc != TM_OK) {
            free(c);
            return rc;
        }
    }
    c->rrun.type = TMC_RUN;
    c->rbr.type = TMC_BRANCH;
    c->rmem.type = TMC_MEM;
    c->hcap = 1 << 12;
    c->hkey = calloc(c->hcap, sizeof *c->hkey);
    c->hval = calloc(c->hcap, sizeof *c->hval);
    if (!c->hkey || !c->hval) {
        tm_cap_free(c);
        return TM_ERR_NOMEM;
    }
    *out = c;
    return TM_OK;
}

void tm_cap_free(tm_cap *c)
{
    if (!c)
        return;
    tm_bytemap_free(&c->img);
    free(c->w);
    free(c->blocks);
    free(c->ioffs);
    free(c->ilen);
    free(c->xits);
    free(c->hkey);
    free(c->hval);
    for (size_t i = 0; i < c->nth; i++)
        free(c->th[i].mem);
    free(c->th);
    for (size_t i = 0; i < c->nmods; i++)
        free(c->mods[i].path);
    free(c->mods);
    free(c->fr);
    free(c->main_path);
    tm_timing_free(c->tim);
    free(c);
}

const char *tm_cap_error(const tm_cap *c) { return c->err; }
void tm_cap_get_info(const tm_cap *c, tm_cap_info *info)
{
    *info = c->info;
    info->execd = !c->info.ended && c->exec_end && c->exec_end == c->off && !c->nw && !c->npart;
}

/* ------------------------------------------------------------ hash */

static uint64_t hmix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

static int hput(tm_cap *c, uint64_t key, uint64_t val)
{
    if (2 * (c->hn + 1) > c->hcap) {
        size_t ncap = c->hcap * 2;
        uint64_t *nk = calloc(ncap, sizeof *nk), *nv = calloc(ncap, sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return -1;
        }
        for (size_t i = 0; i < c->hcap; i++)
            if (c->hval[i]) {
                size_t j = hmix(c->hkey[i]) & (ncap - 1);
                while (nv[j])
                    j = (j + 1) & (ncap - 1);
                nk[j] = c->hkey[i];
                nv[j] = c->hval[i];
            }
        free(c->hkey);
        free(c->hval);
        c->hkey = nk;
        c->hval = nv;
        c->hcap = ncap;
    }
    size_t j = hmix(key) & (c->hcap - 1);
    while (c->hval[j] && c->hkey[j] != key)
        j = (j + 1) & (c->hcap - 1);
    if (!c->hval[j])
        c->hn++;
    c->hkey[j] = key;
    c->hval[j] = val;
    return 0;
}

static uint64_t hget(const tm_cap *c, uint64_t key)
{
    size_t j = hmix(key) & (c->hcap - 1);
    while (c->hval[j]) {
        if (c->hkey[j] == key)
            return c->hval[j];
        j = (j + 1) & (c->hcap - 1);
    }
    return 0;
}

/* ------------------------------------------------------------ output */

/* What a failed call of the timing model means. */
static const char *timing_why(int rc)
{
    return rc == TM_ERR_NOMEM ? "timing model: out of memory"
           : rc == TM_ERR_ARG ? "timing model: a cycle beyond 2^53 or a thread id beyond the cores"
                              : "the consumer stopped";
}

static int emit(tm_cap *c, const tmc_record *r)
{
    if (c->tim) {
        int rc = tm_timing_put(c->tim, r);
        if (rc == TM_OK)
            return TM_OK;
        return fail(c, c->off, "%s", timing_why(rc));
    }
    if (c->sink.record && c->sink.record(c->sink.arg, r))
        return fail(c, c->off, "the consumer stopped");
    return TM_OK;
}

/* Opens a group of thread TID (a new cycle) unless one is open. */
static void group(tm_cap *c, uint32_t tid)
{
    if (!c->open || c->open_tid != tid) {
        c->cycle = c->info.cycles++;
        c->open = 1;
        c->open_mem = 0;
        c->open_tid = tid;
    }
}

/* The open group ends (the timing model stamps it now). */
static int close_group(tm_cap *c)
{
    c->open = 0;
    int rc = c->tim ? tm_timing_end(c->tim) : TM_OK;
    return rc == TM_OK ? TM_OK : fail(c, c->off, "%s", timing_why(rc));
}

static int ensure_started(tm_cap *c, cthread *t, uint64_t pc);
static int stop_all(tm_cap *c);

static uint64_t iaddr(const tm_cap *c, const block *b, uint32_t i)
{
    return b->addr + c->ioffs[b->ioff + i];
}

static int in_filter(const tm_cap *c, uint64_t pc)
{
    if (!c->cfg.main_only && !c->cfg.rtn)
        return 1;
    for (size_t i = 0; i < c->nf; i++)
        if (pc >= c->fr[i].lo && pc < c->fr[i].hi)
            return 1;
    return 0;
}

int tm_cap_in_filter(const tm_cap *c, uint64_t pc) { return in_filter(c, pc); }

/* Before tracing starts: how many of the N instructions of B from I0 are
 * still outside the window (skip, then the filter).  Turns tracing on at
 * the first one inside. */
static uint32_t outside(tm_cap *c, const block *b, uint32_t i0, uint32_t n)
{
    uint32_t k = 0;
    if (c->seen < c->cfg.skip) {
        uint64_t left = c->cfg.skip - c->seen;
        k = left < n ? (uint32_t)left : n;
        c->seen += k;
        c->info.skipped += k;
    }
    while (k < n && !in_filter(c, iaddr(c, b, i0 + k))) {
        k++;
        c->seen++;
        c->info.skipped++;
    }
    if (k < n)
        c->on = 1;
    return k;
}

static int emit_run(tm_cap *c, cthread *t, const block *b, uint32_t i0, uint32_t i1)
{
    int rc;
    uint32_t end = i1;
    while (i0 < i1) {
        if (c->on == 2) {
            c->seen += i1 - i0;
            break;
        }
        if (c->on == 0) {
            uint32_t k = outside(c, b, i0, i1 - i0);
            if (k)
                t->ran = 1;
            i0 += k;
            if (i0 == i1)
                break;
        }
        if ((rc = ensure_started(c, t, iaddr(c, b, i0))) != TM_OK)
            return rc;
        uint32_t n = i1 - i0;
        if (c->cfg.length && c->cfg.length - c->traced < n)
            n = (uint32_t)(c->cfg.length - c->traced);
        group(c, (uint32_t)t->id);
        tmc_record *r = &c->rrun;
        r->tid = (uint32_t)t->id;
        r->cycle = c->cycle;
        r->pc = iaddr(c, b, i0);
        r->count = n;
        r->bytes = c->ioffs[b->ioff + i0 + n - 1] + c->ilen[b->ioff + i0 + n - 1] - c->ioffs[b->ioff + i0];
        c->info.instructions += n;
        c->traced += n;
        c->seen += n;
        if ((rc = emit(c, r)) != TM_OK)
            return rc;
        i0 += n;
        if (c->cfg.length && c->traced >= c->cfg.length && (rc = stop_all(c)) != TM_OK)
            return rc;
    }
    if (end) {
        t->expect = iaddr(c, b, end - 1) + c->ilen[b->ioff + end - 1];
        t->ran = 1;
    }
    return TM_OK;
}

/* The value of M into the MEM record R (c->rmem): its words, then zeros
 * where the last value had words, so that R's value is zero past the
 * operand, as a reader gives it. */
static inline void put_value(tm_cap *c, tmc_record *r, const pmem *m)
{
    unsigned nw = (m->size + 7u) / 8u;
    for (unsigned q = 0; q < nw; q++)
        memcpy(r->value + 8 * q, &m->v[q], 8);
    for (unsigned q = nw; q < c->rmem_nw; q++)
        memset(r->value + 8 * q, 0, 8);
    c->rmem_nw = nw;
}

static int emit_mem(tm_cap *c, cthread *t, const block *b, const pmem *m)
{
    if (c->on != 1)
        return TM_OK;
    int rc = ensure_started(c, t, t->expect);
    if (rc != TM_OK)
        return rc;
    if (c->open && c->open_mem && (rc = close_group(c)) != TM_OK)
        return rc;
    group(c, (uint32_t)t->id);
    c->open_mem = 1;
    tmc_record *r = &c->rmem;
    r->tid = (uint32_t)t->id;
    r->cycle = c->cycle;
    r->flags = m->store ? TMC_MEM_STORE : 0;
    r->size = m->size;
    r->addr = m->addr;
    /* not part of the commit stream: the instruction's address, for the
     * descriptor outputs of tm record --mode (0: a write by the system) */
    r->pc = b && m->insn < b->ninsn ? b->addr + c->ioffs[b->ioff + m->insn] : 0;
    put_value(c, r, m);
    c->info.mem++;
    return emit(c, r);
}

static int emit_event(tm_cap *c, cthread *t, tmc_record *r)
{
    group(c, (uint32_t)t->id);
    r->tid = (uint32_t)t->id;
    r->cycle = c->cycle;
    int rc = emit(c, r);
    int rc2 = close_group(c);
    return rc != TM_OK ? rc : rc2;
}

static const uint8_t bclass_of[TMCAP_X_KINDS] = {
    [TMCAP_X_COND_T] = TMC_COND, [TMCAP_X_COND_N] = TMC_COND, [TMCAP_X_JUMP] = TMC_JUMP,
    [TMCAP_X_CALL] = TMC_CALL,   [TMCAP_X_IJUMP] = TMC_IJUMP, [TMCAP_X_ICALL] = TMC_ICALL,
    [TMCAP_X_RET] = TMC_RET};

static int emit_branch(tm_cap *c, cthread *t, const block *b, uint32_t k, int kind, uint64_t target)
{
    tmc_record r = c->rbr;
    r.pc = iaddr(c, b, k);
    r.len = c->ilen[b->ioff + k];
    r.bclass = bclass_of[kind];
    r.taken = kind != TMCAP_X_COND_N;
    r.target = target;
    uint64_t next = r.taken ? target : r.pc + r.len;
    if ((c->on == 0 && outside(c, b, k, 1)) || c->on == 2) {
        c->seen += c->on == 2;
        t->expect = next;
        t->ran = 1;
        return TM_OK;
    }
    int rc = ensure_started(c, t, r.pc);
    t->ran = 1;
    if (rc != TM_OK)
        return rc;
    c->info.instructions++;
    c->traced++;
    c->seen++;
    t->expect = next;
    if ((rc = emit_event(c, t, &r)) != TM_OK)
        return rc;
    if (c->cfg.length && c->traced >= c->cfg.length)
        return stop_all(c);
    return TM_OK;
}

/* The fast path's output for one group of thread TID (docs/capture.md §3):
 * the run of instructions POS .. END - 1 of B (if any), memory operand M
 * (if not NULL), branch BR (if not NULL): one call of the sink's group, or
 * their records.  WHOLE: the group ends with them (the timing model stamps
 * it at once). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline)) /* two call sites, each with M or BR constant NULL */
#endif
static inline int fast_group(tm_cap *c, uint32_t tid, const block *b, uint32_t pos, uint32_t end, const pmem *m,
                             const tmc_record *br, int whole)
{
    const uint32_t *io = c->ioffs + b->ioff;
    uint32_t n = end > pos ? end - pos : 0;
    uint64_t pc = n ? b->addr + io[pos] : 0;
    uint64_t bytes = n ? io[end - 1] + c->ilen[b->ioff + end - 1] - io[pos] : 0;
    if (m)
        c->info.mem++;
    if (c->sink.group || c->tim) {
        tmc_group g = {tid, c->cycle, pc, n, bytes, m != NULL, m && m->store ? TMC_MEM_STORE : 0,
                       m ? m->size : 0, m ? m->addr : 0, m ? (const uint8_t *)m->v : NULL, br};
        if (c->tim) {
            uint64_t mpc = m && m->insn < b->ninsn ? b->addr + io[m->insn] : 0;
            int rc = whole ? tm_timing_put_whole(c->tim, &g, mpc) : tm_timing_put_group(c->tim, &g, mpc);
            if (rc == TM_OK)
                return TM_OK;
            return fail(c, c->off, "%s", timing_why(rc));
        }
        if ((n || m || br) && c->sink.group(c->sink.arg, &g))
            return fail(c, c->off, "the consumer stopped");
        return TM_OK;
    }
    int rc;
    if (n) {
        tmc_record *r = &c->rrun;
        r->tid = tid;
        r->cycle = c->cycle;
        r->pc = pc;
        r->count = n;
        r->bytes = bytes;
        if ((rc = emit(c, r)) != TM_OK)
            return rc;
    }
    if (m) {
        tmc_record *r = &c->rmem;
        r->tid = tid;
        r->cycle = c->cycle;
        r->flags = m->store ? TMC_MEM_STORE : 0;
        r->size = m->size;
        r->addr = m->addr;
        r->pc = m->insn < b->ninsn ? b->addr + io[m->insn] : 0;
        put_value(c, r, m);
        if ((rc = emit(c, r)) != TM_OK)
            return rc;
    }
    return br ? emit(c, br) : TM_OK;
}

/* Thread T ran block B up to instruction END (exclusive) and left it through
 * exit E (NULL: a partial run cut by a signal); its pending memory operands
 * belong to this run.  Emits the groups (docs/capture.md §3). */
static int run_block(tm_cap *c, cthread *t, const block *b, uint32_t e, int partial, uint32_t end,
                     uint64_t dyn)
{
    const xit *xs = c->xits + b->xoff;
    const xit *x = partial ? NULL : &xs[e];
    int kind = x ? x->kind : TMCAP_X_STAY;
    uint32_t k = x ? x->insn : end;
    uint32_t nret = kind == TMCAP_X_STAY ? k : k + 1; /* instructions retired */
    int final_branch = kind >= TMCAP_X_COND_T;
    uint32_t pos = 0; /* next instruction not yet in a RUN */
    size_t mi = 0;
    int rc;
    /* Writes by the system (a system call's output, a signal frame) came
     * before the block: groups of their own. */
    for (; mi < t->nmem && t->mem[mi].insn == CAP_SYS_INSN; mi++) {
        if ((rc = emit_mem(c, t, b, &t->mem[mi])) != TM_OK)
            return rc;
    }
    /* Conditional branches passed through (side exits before E at earlier
     * instructions) are not taken; then the end. */
    uint32_t nside = partial ? b->nexit - 1 : e;
    for (uint32_t s = 0; s <= nside; s++) {
        int is_end = s == nside;
        uint32_t at; /* instruction of the point: a passed branch, or the end */
        if (!is_end) {
            if (xs[s].kind != TMCAP_X_COND_T || xs[s].insn >= k)
                continue;
            at = xs[s].insn;
        } else {
            at = final_branch ? k : nret;
        }
        /* The memory operands of the instructions up to AT: each ends the
         * group of its instruction; a branch's operand joins its group. */
        for (; mi < t->nmem && (is_end || t->mem[mi].insn <= at); mi++) {
            const pmem *m = &t->mem[mi];
            uint32_t upto = (uint32_t)m->insn + 1 < at ? (uint32_t)m->insn + 1 : at;
            if (upto > nret)
                upto = nret;
            if (m->insn == CAP_SYS_INSN)
                upto = pos;
            if (c->open && c->open_mem && (rc = close_group(c)) != TM_OK)
                return rc;
            if ((rc = emit_run(c, t, b, pos, upto)) != TM_OK)
                return rc;
            if (upto > pos)
                pos = upto;
            if ((rc = emit_mem(c, t, b, m)) != TM_OK)
                return rc;
        }
        if ((rc = emit_run(c, t, b, pos, at)) != TM_OK)
            return rc;
        if (at > pos)
            pos = at;
        if (!is_end) {
            if ((rc = emit_branch(c, t, b, at, TMCAP_X_COND_N, xs[s].target)) != TM_OK)
                return rc;
            pos = at + 1;
        }
    }
    t->nmem = 0;
    if (final_branch) {
        uint64_t target = x->dyn ? dyn : x->target;
        if ((rc = emit_branch(c, t, b, k, kind, target)) != TM_OK)
            return rc;
    } else {
        if ((rc = close_group(c)) != TM_OK)
            return rc;
        if (kind == TMCAP_X_STAY)
            t->expect = b->addr + c->ioffs[b->ioff + k];
        else
            t->expect = x->dyn ? dyn : x->target;
    }
    return TM_OK;
}

/* ------------------------------------------------------------ threads */

static cthread *thread_of_slow(tm_cap *c, uint64_t tid)
{
    if (tid >= 1u << 20)
        return NULL;
    if (tid >= c->nth) {
        size_t n = c->nth ? c->nth : 16;
        while (n <= tid)
            n *= 2;
        cthread *p = realloc(c->th, n * sizeof *p);
        if (!p)
            return NULL;
        memset(p + c->nth, 0, (n - c->nth) * sizeof *p);
        for (size_t i = c->nth; i < n; i++)
            p[i].id = -1;
        c->th = p;
        c->nth = n;
    }
    return &c->th[tid];
}

static inline cthread *thread_of(tm_cap *c, uint64_t tid)
{
    return tid < c->nth ? &c->th[tid] : thread_of_slow(c, tid);
}

/* Capture thread T enters the trace at PC: a tmc id and START (TRACE_ON if
 * it ran before). */
static int ensure_started(tm_cap *c, cthread *t, uint64_t pc)
{
    if (t->tr == 1)
        return TM_OK;
    if (t->tr == 2)
        return fail(c, c->off, "a thread traced again after its end");
    if (c->next_id >= c->cfg.threads)
        return fail(c, c->off,
                    "the program runs more than %u threads; give the trace module more cores (--threads)",
                    c->cfg.threads);
    t->id = (int32_t)c->next_id++;
    t->tr = 1;
    if (c->tim)
        tm_timing_start_at(c->tim, (uint32_t)t->id, t->birth);
    c->info.threads = c->next_id;
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_START;
    r.pc = pc;
    r.flags = t->ran ? TMC_START_TRACE_ON : 0;
    return emit_event(c, t, &r);
}

/* Tracing stops: every traced thread ends with EXIT(TRACE_OFF). */
static int stop_all(tm_cap *c)
{
    if (c->on == 2)
        return TM_OK;
    c->on = 2;
    for (size_t i = 0; i < c->nth; i++) {
        cthread *t = &c->th[i];
        if (t->tr == 1) {
            tmc_record r;
            memset(&r, 0, sizeof r);
            r.type = TMC_EXIT;
            r.flags = TMC_EXIT_TRACE_OFF;
            int rc = emit_event(c, t, &r);
            t->tr = 2;
            if (rc != TM_OK)
                return rc;
        }
    }
    return TM_OK;
}

int tm_cap_stop(tm_cap *c)
{
    if (c->failed)
        return TM_ERR_FORMAT;
    return stop_all(c) == TM_OK ? TM_OK : TM_ERR_FORMAT;
}

/* Pending memory operands with no block to run: writes by the system
 * become groups of their own; others cannot be placed and are dropped. */
static int flush_pending(tm_cap *c, cthread *t)
{
    int rc = TM_OK;
    for (size_t i = 0; i < t->nmem && rc == TM_OK; i++)
        if (t->mem[i].insn == CAP_SYS_INSN)
            rc = emit_mem(c, t, NULL, &t->mem[i]);
    t->nmem = 0;
    return rc;
}

static int end_thread(tm_cap *c, cthread *t)
{
    if (t->state == T_RUN && t->nmem && flush_pending(c, t) != TM_OK)
        return TM_ERR_FORMAT;
    int traced = t->state == T_RUN && t->tr == 1;
    t->state = T_DONE;
    if (!traced)
        return TM_OK;
    t->tr = 2;
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_EXIT;
    return emit_event(c, t, &r);
}

/* The pending exception of T goes to TARGET. */
static int resolve_exc(tm_cap *c, cthread *t, uint64_t target)
{
    t->exc = 0;
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_EXC;
    r.pc = t->expect;
    r.target = target;
    t->expect = target;
    if (c->on != 1)
        return TM_OK;
    int rc = ensure_started(c, t, r.pc);
    return rc == TM_OK ? emit_event(c, t, &r) : rc;
}

/* ------------------------------------------------------------ memory image */

/* A frontend gives every load's value and every store's (docs/capture.md
 * §2); memory changes only by the stores it reports (a system call's
 * output, a signal frame: writes by the system).  A load whose bytes differ
 * from what the last load or store of them gave contradicts the capture
 * itself -- a damaged stream, or a write the frontend did not see -- and the
 * trace module, which sends no DATA message for a value the debugger knows,
 * would give a trace that replays wrong: refused.  Bounded: at
 * IMG_MAX_BLOCKS blocks the image starts over (fewer checks, never a false
 * one). */

/* The block of KEY in the image (CREATE: made, the image started over
 * when it is full); NULL if absent (CREATE: out of memory). */
static tm_byteblk *img_find(tm_cap *c, uint64_t key, int create)
{
    if (create && c->img.live >= IMG_MAX_BLOCKS && (c->img.live + 1) * 2 > c->img.cap)
        tm_bytemap_clear(&c->img);
    return tm_bytemap_block(&c->img, key, create);
}

/* The operand M of thread TID at stream offset OFF: a load is checked
 * against the image, then its bytes (a store's too) become known; a store
 * without its value makes them unknown.  0, or -1 after fail(). */
static int img_access(tm_cap *c, uint32_t tid, const pmem *m, int novalue, uint64_t off)
{
    const uint8_t *v = (const uint8_t *)m->v;
    for (unsigned i = 0; i < m->size;) {
        uint64_t a = m->addr + i;
        unsigned o = (unsigned)(a & 63), n = 64 - o < m->size - i ? 64 - o : m->size - i;
        uint64_t bits = n == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << n) - 1) << o;
        tm_byteblk *b = img_find(c, a >> 6, !novalue);
        if (novalue) {
            if (b)
                b->known &= ~bits;
            i += n;
            continue;
        }
        if (!b)
            return fail(c, off, "out of memory"), -1;
        if (!m->store && (b->known & bits)) {
            for (unsigned j = 0; j < n; j++)
                if ((b->known >> (o + j) & 1) && b->b[o + j] != v[i + j])
                    return fail(c, off,
                                "thread %u loads 0x%02x at 0x%llx, but the capture's last load or store of that "
                                "byte gave 0x%02x, with no write in between (a damaged capture, or a write the "
                                "frontend did not see)",
                                tid, v[i + j], (unsigned long long)(a + j), b->b[o + j]), -1;
        }
        memcpy(b->b + o, v + i, n);
        b->known |= bits;
        i += n;
    }
    return 0;
}

/* ------------------------------------------------------------ events */

static int add_range(tm_cap *c, uint64_t lo, uint64_t hi)
{
    if (TM_GROW(c->fr, c->fcap, c->nf + 1) != TM_OK)
        return -1;
    c->fr[c->nf].lo = lo;
    c->fr[c->nf++].hi = hi;
    return 0;
}

/* --filter-rtn: the address range of the function named by the
 * configuration in the ELF file E whose file offset 0 is at BASE. */
typedef struct rtn_find {
    const char *name;
    uint64_t value, size;
} rtn_find;

static int rtn_match(void *arg, const char *name, uint64_t value, uint64_t size)
{
    rtn_find *f = arg;
    if (strcmp(name, f->name))
        return 0;
    f->value = value;
    f->size = size;
    return 1;
}

static int filter_rtn(tm_cap *c, const tm_elf *e, uint64_t base)
{
    rtn_find f = {c->cfg.rtn, 0, 0};
    uint64_t vaddr0 = 0;
    if (!tm_elf_functions(e, rtn_match, &f) || !tm_elf_vaddr0(e, &vaddr0))
        return TM_OK;
    uint64_t lo = base - vaddr0 + f.value;
    return add_range(c, lo, lo + (f.size ? f.size : 1)) ? TM_ERR_NOMEM : TM_OK;
}

/* Whether the module (BASE, PATH) is new: then it is added to those seen
 * (1), else 0; -1 out of memory. */
static int new_module(tm_cap *c, uint64_t base, const char *path)
{
    for (size_t i = 0; i < c->nmods; i++)
        if (c->mods[i].base == base && !strcmp(c->mods[i].path, path))
            return 0;
    char *p = strdup(path);
    if (!p || TM_GROW(c->mods, c->modcap, c->nmods + 1) != TM_OK) {
        free(p);
        return -1;
    }
    c->mods[c->nmods].path = p;
    c->mods[c->nmods++].base = base;
    return 1;
}

static int module(tm_cap *c, uint64_t base, const char *path)
{
    int k = new_module(c, base, path);
    if (k <= 0)
        return k ? TM_ERR_NOMEM : TM_OK;
    uint8_t id[64];
    size_t idlen = 0;
    tm_elf e;
    if (tm_elf_map(&e, path, NULL, 0) == TM_OK) {
        idlen = tm_elf_build_id(&e, id);
        int rc = c->cfg.rtn ? filter_rtn(c, &e, base) : TM_OK;
        tm_elf_unmap(&e);
        if (rc != TM_OK)
            return rc;
    }
    tm_cap_module m = {base, path, id, idlen, NULL, 0};
    if (c->sink.module && c->sink.module(c->sink.arg, &m))
        return fail(c, c->off, "the consumer stopped");
    return TM_OK;
}

/* Length in words of a MEM event. */
static inline size_t mem_len(uint64_t w0)
{
    return 2 + ((w0 & TMCAP_MEM_NOVALUE) ? 0 : (((w0 >> 16) & 0xff) + 7) / 8);
}

/* Length in words of the event at W (N words available), 0 if incomplete. */
static size_t event_len(const uint64_t *w, size_t n)
{
    uint64_t w0 = w[0];
    switch (w0 & 0xff) {
    case TMCAP_BLOCK: {
        uint64_t ni = (w0 >> 8) & 0xffff, nx = (w0 >> 24) & 0xff;
        return 3 + ni + 2 * nx;
    }
    case TMCAP_EXEC:
        return 1; /* + target for DYN exits: decided with the block */
    case TMCAP_SIGNAL:
        return 2;
    case TMCAP_MEM:
        return mem_len(w0);
    case TMCAP_MAP:
        return 4 + (((w0 >> 8) & 0xffff) + 7) / 8;
    case TMCAP_VDSO:
        return 2 + (((w0 >> 8) & 0xffffffff) + 7) / 8;
    default:
        (void)n;
        return 1;
    }
}

static int addr_run(tm_cap *c, const uint64_t *w, size_t n);

/* Handles the event at W (LEN words); returns words used, or 0 if more are
 * needed, or -1 on error. */
/* BLOCK: a block descriptor (its instructions and exits). */
static long ev_block(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    uint32_t ni = (w0 >> 8) & 0xffff, nx = (w0 >> 24) & 0xff;
    uint64_t id = w[1];
    if (ni == 0 || ni > TMCAP_MAX_INSNS || nx == 0)
        return fail(c, c->off, "block with %u instructions and %u exits", ni, nx), -1;
    if (id != c->nblocks + (c->nblocks == 0))
        return fail(c, c->off, "block id %llu out of sequence", (unsigned long long)id), -1;
    size_t capi = c->capi;
    if (tm_grow((void **)&c->blocks, &c->bcap, id + 1, sizeof *c->blocks) ||
        tm_grow((void **)&c->ioffs, &c->capi, c->ni + ni, sizeof *c->ioffs) ||
        tm_grow((void **)&c->ilen, &capi, c->ni + ni, sizeof *c->ilen) ||
        tm_grow((void **)&c->xits, &c->capx, c->nx + nx, sizeof *c->xits))
        return fail(c, c->off, "out of memory"), -1;
    block *b = &c->blocks[id];
    b->addr = w[2];
    b->ninsn = ni;
    b->nexit = nx;
    b->ioff = c->ni;
    b->xoff = c->nx;
    uint64_t at = 0;
    for (uint32_t i = 0; i < ni; i++) {
        uint64_t v = w[3 + i];
        uint32_t l = v & 0xff;
        uint64_t o = v >> 8;
        if (l == 0 || o != at)
            return fail(c, c->off, "block %llu: instruction %u at +%llu, %u bytes: not straight-line code",
                        (unsigned long long)id, i, (unsigned long long)o, l), -1;
        c->ioffs[c->ni + i] = (uint32_t)o;
        c->ilen[c->ni + i] = (uint8_t)l;
        at = o + l;
    }
    for (uint32_t j = 0; j < nx; j++) {
        uint64_t d = w[3 + ni + 2 * j];
        xit *x = &c->xits[c->nx + j];
        x->kind = d & 0xff;
        x->insn = (d >> 8) & 0xffff;
        x->dyn = ((d >> 24) & TMCAP_XF_DYN) != 0;
        x->target = w[4 + ni + 2 * j];
        if (x->kind >= TMCAP_X_KINDS || x->insn >= ni)
            return fail(c, c->off, "block %llu: exit %u: kind %u at instruction %u", (unsigned long long)id, j,
                        x->kind, x->insn), -1;
        /* for the fast path of EXEC */
        x->passes = 0;
        for (uint32_t q = 0; q < j; q++)
            x->passes |= c->xits[c->nx + q].kind == TMCAP_X_COND_T && c->xits[c->nx + q].insn < x->insn;
        x->nrun = x->kind == TMCAP_X_FALL ? x->insn + 1u : x->insn;
        x->boff = c->ioffs[c->ni + x->insn];
        x->blen = c->ilen[c->ni + x->insn];
    }
    c->ni += ni;
    c->nx += nx;
    c->nblocks = id + 1;
    c->info.blocks++;
    if (hput(c, b->addr, id))
        return fail(c, c->off, "out of memory"), -1;
    return (long)len;
}

/* EXEC: the running thread ran a block and left it through an exit (the
 * hot path: the usual case is done here without run_block). */
static inline __attribute__((always_inline)) long ev_exec(tm_cap *c, const uint64_t *w, size_t n, size_t len)
{
    uint64_t w0 = w[0];
    cthread *t;
    int rc = TM_OK;
    uint64_t id = w0 >> 16;
    uint32_t e = (w0 >> 8) & 0xff;
    if (id == 0 || id >= c->nblocks)
        return fail(c, c->off, "execution of unknown block %llu", (unsigned long long)id), -1;
    const block *b = &c->blocks[id];
    if (e >= b->nexit)
        return fail(c, c->off, "block %llu has no exit %u", (unsigned long long)id, e), -1;
    const xit *x = &c->xits[b->xoff + e];
    if (x->dyn) {
        if (n < 2)
            return 0;
        len = 2;
    }
    if (!(t = thread_of(c, c->cur)))
        return fail(c, c->off, "thread %u out of range", c->cur), -1;
    if (t->state == T_NONE || t->state == T_NEW) {
        t->state = T_RUN;
        t->expect = b->addr;
    } else if (t->state == T_DONE) {
        return fail(c, c->off, "thread %u runs after its exit", c->cur), -1;
    }
    if (t->exc && b->addr != t->expect)
        rc = resolve_exc(c, t, b->addr);
    t->exc = 0;
    if (rc == TM_OK && b->addr != t->expect)
        return fail(c, c->off, "thread %u: block at 0x%llx, but its next instruction is at 0x%llx", c->cur,
                    (unsigned long long)b->addr, (unsigned long long)t->expect), -1;
    c->info.execs++;
    if (rc != TM_OK)
        return -1;
    if (!c->cfg.slow && c->on == 1 && t->tr == 1 && !x->passes && x->kind != TMCAP_X_STAY &&
        (t->nmem == 0 || t->mem[0].insn != CAP_SYS_INSN) && (!c->cfg.length || c->traced + x->nrun + 1 < c->cfg.length)) {
        /* The usual case, as run_block would do it: a block left through
         * its exit with no side branch passed.  Each memory operand
         * ends its instruction's group (the branch's own joins the
         * branch's group); then the rest of the run and the branch. */
        uint32_t tid = (uint32_t)t->id, pos = 0;
        for (size_t mi = 0; mi < t->nmem; mi++) {
            const pmem *m = &t->mem[mi];
            uint32_t upto = m->insn < x->nrun ? m->insn + 1u : x->nrun;
            if (m->insn == CAP_SYS_INSN)
                upto = pos;
            if (c->open && c->open_mem && close_group(c) != TM_OK)
                return -1;
            group(c, tid);
            c->open_mem = 1;
            if (fast_group(c, tid, b, pos, upto, m, NULL, 0) != TM_OK)
                return -1;
            if (upto > pos)
                pos = upto;
        }
        t->nmem = 0;
        group(c, tid);
        /* the rest of the run, then the branch (none after a FALL) */
        c->info.instructions += x->nrun;
        c->traced += x->nrun;
        c->seen += x->nrun;
        tmc_record *br = NULL;
        if (x->kind == TMCAP_X_FALL) {
            t->expect = x->dyn ? w[1] : x->target;
        } else {
            br = &c->rbr;
            br->tid = tid;
            br->cycle = c->cycle;
            br->pc = b->addr + x->boff;
            br->len = x->blen;
            br->bclass = bclass_of[x->kind];
            br->taken = x->kind != TMCAP_X_COND_N;
            br->target = x->dyn ? w[1] : x->target;
            t->expect = br->taken ? br->target : br->pc + br->len;
            c->info.instructions++;
            c->traced++;
            c->seen++;
        }
        if (fast_group(c, tid, b, pos, x->nrun, NULL, br, 1) != TM_OK)
            return -1;
        t->ran = 1;
        c->open = 0; /* the group ends (fast_group's WHOLE) */
        return (long)len;
    }
    rc = run_block(c, t, b, e, 0, 0, x->dyn ? w[1] : 0);
    return rc == TM_OK ? (long)len : -1;
}

/* CREATE: a thread exists (a reused capture id is a new thread). */
static long ev_create(tm_cap *c, const uint64_t *w)
{
    uint64_t w0 = w[0];
    cthread *t;
    uint32_t tid = (uint32_t)((w0 >> 8) & 0xffffff);
    if (!(t = thread_of(c, tid)))
        return fail(c, c->off, "thread %u out of range", tid), -1;
    /* A capture id is reused after its thread ended: a new thread. */
    free(t->mem);
    memset(t, 0, sizeof *t);
    t->id = -1;
    t->state = T_NEW;
    if (c->tim) { /* it starts no earlier than its creator's clock */
        uint64_t parent = w0 >> 32;
        if (parent < c->nth && c->th[parent].id >= 0)
            t->birth = tm_timing_clock(c->tim, (uint32_t)c->th[parent].id);
    }
    return 1;
}

/* SIGNAL: a handler starts; a block cut short by it retires up to the pc. */
static long ev_signal(tm_cap *c, const uint64_t *w)
{
    uint64_t w0 = w[0];
    cthread *t;
    int rc = TM_OK;
    uint32_t tid = (uint32_t)((w0 >> 8) & 0xffffff);
    uint64_t pc = w[1];
    if (!(t = thread_of(c, tid)))
        return fail(c, c->off, "thread %u out of range", tid), -1;
    c->info.signals++;
    t->handlers++;
    /* A signal interrupts the system call the thread is in: it returns
     * (its leave came first) or is restarted (entered again) later. */
    t->insys = 0;
    if (t->state != T_RUN)
        return 2; /* not yet running: its first block is the handler */
    if (t->exc) /* a handler that had not run yet is interrupted at once */
        rc = resolve_exc(c, t, pc);
    if (rc == TM_OK && (pc != t->expect || t->nmem)) {
        /* A block cut short by a synchronous signal: the instructions
         * before PC retired. */
        uint64_t id = hget(c, t->expect);
        const block *b = id ? &c->blocks[id] : NULL;
        uint32_t end = 0;
        if (b) {
            for (end = 0; end < b->ninsn && b->addr + c->ioffs[b->ioff + end] != pc; end++)
                ;
        }
        if (b && end < b->ninsn)
            rc = run_block(c, t, b, 0, 1, end, 0);
        else /* the interrupted point is not in that block (a restarted
                system call): nothing retired */
            rc = flush_pending(c, t);
    }
    t->exc = 1;
    return rc == TM_OK ? 2 : -1;
}

/* MEM: a memory operand of the running thread (checked against the image). */
static long ev_mem(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    cthread *t;
    unsigned size = (w0 >> 16) & 0xff;
    if (size < 1 || size > TMC_MAX_OPERAND)
        return fail(c, c->off, "memory operand of %u bytes", size), -1;
    if (!(t = thread_of(c, c->cur)))
        return fail(c, c->off, "thread %u out of range", c->cur), -1;
    if (tm_grow((void **)&t->mem, &t->capmem, t->nmem + 1, sizeof *t->mem))
        return fail(c, c->off, "out of memory"), -1;
    pmem *m = &t->mem[t->nmem++];
    m->store = (w0 >> 8) & 1;
    m->size = (uint8_t)size;
    m->insn = (uint16_t)(w0 >> 24);
    m->addr = w[1];
    /* Word by word (a variable-length memcpy is a slow `rep movs`);
     * the frontend zero-pads the last word.  Without a value (a store
     * whose value nobody needs): zeros. */
    unsigned nw = (size + 7) / 8;
    if (!(w0 & TMCAP_MEM_NOVALUE)) {
        m->v[0] = w[2];
        for (unsigned q = 1; q < nw; q++)
            m->v[q] = w[2 + q];
    } else {
        if (!m->store)
            return fail(c, c->off, "a load without its value"), -1;
        if (c->cfg.need_values)
            return fail(c, c->off, "a store without its value (captured with --tm-store-values=no); the "
                                   "commit stream and the descriptors need every value"), -1;
        for (unsigned q = 0; q < nw; q++)
            m->v[q] = 0;
    }
    if (img_access(c, c->cur, m, (w0 & TMCAP_MEM_NOVALUE) != 0, c->off))
        return -1;
    return (long)len;
}

/* MAP: an executable file mapping. */
static long ev_map(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    size_t pl = (w0 >> 8) & 0xffff;
    if (pl == 0 || pl > TMCAP_MAX_PATH)
        return fail(c, c->off, "mapping path of %zu bytes", pl), -1;
    char path[TMCAP_MAX_PATH + 1];
    memcpy(path, &w[4], pl);
    path[pl] = 0;
    if (w[3] > w[1])
        return fail(c, c->off, "mapping at 0x%llx with file offset 0x%llx", (unsigned long long)w[1],
                    (unsigned long long)w[3]), -1;
    if (c->cfg.main_only) { /* the first file mapped is the program */
        if (!c->have_main) {
            c->have_main = 1;
            if (!(c->main_path = strdup(path)))
                return fail(c, c->off, "out of memory"), -1;
        }
        if (!strcmp(path, c->main_path) && add_range(c, w[1], w[1] + w[2]))
            return fail(c, c->off, "out of memory"), -1;
    }
    return module(c, w[1] - w[3], path) == TM_OK ? (long)len : -1;
}

/* VDSO: the vdso's bytes. */
static long ev_vdso(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    size_t vl = (w0 >> 8) & 0xffffffff;
    if (vl == 0 || vl > TMCAP_MAX_VDSO)
        return fail(c, c->off, "vdso of %zu bytes", vl), -1;
    int k = new_module(c, w[1], "[vdso]");
    if (k < 0)
        return fail(c, c->off, "out of memory"), -1;
    if (k == 0)
        return (long)len;
    tm_cap_module m = {w[1], "[vdso]", NULL, 0, (const uint8_t *)&w[2], vl};
    if (c->sink.module && c->sink.module(c->sink.arg, &m))
        return fail(c, c->off, "the consumer stopped"), -1;
    return (long)len;
}

/* SYSCALL: a thread enters or leaves a system call. */
static long ev_syscall(tm_cap *c, const uint64_t *w)
{
    uint64_t w0 = w[0];
    cthread *t;
    uint32_t tid = (uint32_t)((w0 >> 8) & 0xffffff);
    if (!(t = thread_of(c, tid)))
        return fail(c, c->off, "thread %u out of range", tid), -1;
    unsigned leave = (unsigned)((w0 >> 32) & 1), no = (unsigned)((w0 >> 40) & 0xffff);
    /* rt_sigreturn (x86-64 15; AArch64, RISC-V 139) does not return to
     * its caller: a frontend may not report its leave */
    if (!leave && t->insys && t->sysno != (c->info.isa == TM_ISA_X86_64 ? 15 : 139))
        return fail(c, c->off, "thread %u enters system call %u while in system call %u", tid, no, t->sysno), -1;
    if (leave && !t->insys)
        return fail(c, c->off, "thread %u leaves system call %u without entering it", tid, no), -1;
    if (leave && no != t->sysno)
        return fail(c, c->off, "thread %u leaves system call %u but entered system call %u", tid, no, t->sysno), -1;
    t->insys = !leave;
    t->sysno = (uint16_t)no;
    if (c->tim && t->id >= 0 && tm_timing_syscall(c->tim, (uint32_t)t->id, (int)((w0 >> 32) & 1)) != TM_OK)
        return fail(c, c->off, "the consumer stopped"), -1;
    return 1;
}

static long event(tm_cap *c, const uint64_t *w, size_t n)
{
    uint64_t w0 = w[0];
    unsigned type = w0 & 0xff;
    /* the two most frequent types without the table's indirect jump */
    size_t len = type == TMCAP_EXEC || type == TMCAP_ADDR ? 1
                 : type == TMCAP_MEM                      ? mem_len(w0)
                                                          : event_len(w, n);
    if (len > n)
        return 0;
    cthread *t;
    switch (type) {
    case TMCAP_BLOCK:
        return ev_block(c, w, len);
    case TMCAP_EXEC:
        return ev_exec(c, w, n, len);
    case TMCAP_THREAD:
        c->cur = (uint32_t)(w0 >> 8);
        if (!thread_of(c, c->cur))
            return fail(c, c->off, "thread %u out of range", c->cur), -1;
        return 1;
    case TMCAP_CREATE:
        return ev_create(c, w);
    case TMCAP_EXIT: {
        uint32_t tid = (uint32_t)(w0 >> 8);
        if (!(t = thread_of(c, tid)))
            return fail(c, c->off, "thread %u out of range", tid), -1;
        return end_thread(c, t) == TM_OK ? 1 : -1;
    }
    case TMCAP_SIGNAL:
        return ev_signal(c, w);
    case TMCAP_SIGRET: {
        uint32_t tid = (uint32_t)(w0 >> 8);
        if (!(t = thread_of(c, tid)))
            return fail(c, c->off, "thread %u out of range", tid), -1;
        if (!t->handlers)
            return fail(c, c->off, "thread %u returns from a signal handler (SIGRET) but no SIGNAL started one", tid),
                   -1;
        t->handlers--;
        if (t->state == T_RUN)
            t->exc = 1;
        return 1;
    }
    case TMCAP_MEM:
        return ev_mem(c, w, len);
    case TMCAP_ADDR:
        /* an address only: its latency to the thread's next group, if the
         * thread is traced (a thread's accesses before its first traced
         * instruction are not charged); parse_words takes runs of them */
        if (addr_run(c, w, 1) < 0)
            return -1;
        return 1;
    case TMCAP_MAP:
        return ev_map(c, w, len);
    case TMCAP_VDSO:
        return ev_vdso(c, w, len);
    case TMCAP_EXECVE:
        c->exec_end = c->off + 8; /* complete if the stream ends here */
        return 1;
    case TMCAP_SYSCALL:
        return ev_syscall(c, w);
    case TMCAP_ISA: {
        /* only as the first event after the magic */
        unsigned isa = (unsigned)((w0 >> 8) & 0xff);
        if (c->off != 8)
            return fail(c, c->off, "an ISA event that is not the stream's first event"), -1;
        if (isa >= TM_ISA_COUNT)
            return fail(c, c->off, "unknown instruction set %u in the ISA event", isa), -1;
        c->info.isa = (int)isa;
        if (c->sink.isa && c->sink.isa(c->sink.arg, (int)isa))
            return fail(c, c->off, "the consumer refused the instruction set %s", tm_isa_name((int)isa)), -1;
        return 1;
    }
    case TMCAP_END:
        c->info.ended = 1;
        c->end_off = c->off;
        c->info.status = (int)((w0 >> 8) & 0xff);
        c->info.signaled = ((w0 >> 16) & 0xff) == 1;
        return 1;
    default:
        return fail(c, c->off, "unknown event type %u", type), -1;
    }
}

/* Handles the whole events of the NW words at W; returns how many words
 * they took (the rest is an event's beginning), or -1 on error. */
/* N ADDR events at W, as event() takes them one by one: 0, or -1 on error
 * (c->off the failing event's). */
static int addr_run(tm_cap *c, const uint64_t *w, size_t n)
{
    c->info.addrs += n;
    if (!c->tim || c->cfg.ignore_addresses || c->on != 1)
        return 0;
    cthread *t = thread_of(c, c->cur);
    if (!t)
        return fail(c, c->off, "thread %u out of range", c->cur), -1;
    if (t->tr != 1)
        return 0;
    int rc = tm_timing_access_words(c->tim, (uint32_t)t->id, w, n);
    if (rc != TM_OK)
        return fail(c, c->off, "%s", timing_why(rc)), -1;
    return 0;
}

static long parse_words(tm_cap *c, const uint64_t *w, size_t nw)
{
    size_t i = 0;
    if (!c->have_magic && nw) {
        if (w[0] != TMCAP_MAGIC)
            return fail(c, 0, "not a tm capture stream (bad magic)"), -1;
        c->have_magic = 1;
        i = 1;
        c->off = 8;
    }
    while (i < nw) {
        if (c->info.ended)
            return fail(c, c->off, "an event after the end marker (END at offset %llu)",
                        (unsigned long long)c->end_off), -1;
        if ((w[i] & 0xff) == TMCAP_ADDR) { /* a run of ADDR events at once */
            size_t j = i + 1;
            while (j < nw && (w[j] & 0xff) == TMCAP_ADDR)
                j++;
            if (addr_run(c, w + i, j - i) < 0)
                return -1;
            c->off += (uint64_t)(j - i) * 8;
            i = j;
            continue;
        }
        long used = event(c, w + i, nw - i);
        if (used < 0)
            return -1;
        if (used == 0)
            break;
        i += (size_t)used;
        c->off += (uint64_t)used * 8;
    }
    return (long)i;
}

/* Handles the whole events in c->w; keeps the rest for the next bytes. */
static int parse(tm_cap *c)
{
    long i = parse_words(c, c->w, c->nw);
    if (i < 0)
        return TM_ERR_FORMAT;
    memmove(c->w, c->w + i, (c->nw - (size_t)i) * sizeof *c->w);
    c->nw -= (size_t)i;
    return TM_OK;
}

void *tm_cap_input(tm_cap *c, size_t n)
{
    if (c->failed)
        return NULL;
    /* after the words held, the partial word's bytes, then N bytes */
    if (tm_grow((void **)&c->w, &c->capw, c->nw + (c->npart + n + 7) / 8, sizeof *c->w)) {
        fail(c, c->off, "out of memory");
        return NULL;
    }
    uint8_t *at = (uint8_t *)(c->w + c->nw);
    memcpy(at, c->part, c->npart);
    return at + c->npart;
}

int tm_cap_commit(tm_cap *c, size_t n)
{
    if (c->failed)
        return TM_ERR_FORMAT;
    c->info.bytes += n;
    size_t total = c->npart + n;
    uint8_t *at = (uint8_t *)(c->w + c->nw);
    c->nw += total / 8;
    c->npart = (unsigned)(total % 8);
    memcpy(c->part, at + total / 8 * 8, c->npart);
    return parse(c);
}

int tm_cap_feed(tm_cap *c, const void *data, size_t n)
{
    if (!n) /* nothing (tm_cap_input would have no room to give yet) */
        return c->failed ? TM_ERR_FORMAT : TM_OK;
    if (!c->failed && !c->nw && !c->npart && !((uintptr_t)data & 7) && n >= 8) {
        /* Nothing held back and whole words: the events are handled where
         * they are, only an unfinished last one is copied. */
        long i = parse_words(c, data, n / 8);
        if (i < 0)
            return TM_ERR_FORMAT;
        c->info.bytes += (uint64_t)i * 8;
        data = (const uint64_t *)data + i;
        n -= (size_t)i * 8;
        if (!n)
            return TM_OK;
    }
    void *room = tm_cap_input(c, n);
    if (!room)
        return TM_ERR_FORMAT;
    if (n)
        memcpy(room, data, n);
    return tm_cap_commit(c, n);
}

int tm_cap_finish(tm_cap *c)
{
    if (c->failed)
        return TM_ERR_FORMAT;
    /* Threads still running end (the program ended, or its capture was cut). */
    for (size_t i = 0; i < c->nth; i++)
        if (c->th[i].state == T_RUN && end_thread(c, &c->th[i]) != TM_OK)
            return TM_ERR_FORMAT;
    if (c->tim) {
        int rc = tm_timing_finish(c->tim);
        if (rc != TM_OK)
            return fail(c, c->off, "%s", timing_why(rc));
        tm_timing_stats ts;
        tm_timing_get_stats(c->tim, &ts);
        c->info.cycles = ts.cycles;
    }
    return TM_OK;
}

uint64_t tm_cap_unfinished(const tm_cap *c, uint64_t *off)
{
    *off = c->have_magic ? c->off : 0;
    return (uint64_t)c->nw * 8 + c->npart;
}

void tm_cap_timing_stats(const tm_cap *c, tm_timing_stats *s)
{
    if (c->tim)
        tm_timing_get_stats(c->tim, s);
    else
        memset(s, 0, sizeof *s);
}

void tm_cap_timing_thread(const tm_cap *c, uint32_t tid, uint64_t *cycles, uint64_t *insns)
{
    *cycles = *insns = 0;
    if (c->tim)
        tm_timing_thread(c->tim, tid, cycles, insns);
}
