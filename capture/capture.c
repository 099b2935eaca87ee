/* tm — capture layer (docs/capture.md): capture stream -> commit stream.
 * This file reads the stream: the input calls, each event's length and
 * handler, blocks, threads' creation and signals (capture_int.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/grow.h"
#include "tm/isa.h"
#include "capture_int.h"

int tm_capi_fail(tm_cap *c, uint64_t off, const char *fmt, ...)
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
    for (size_t i = 0; i < c->nut; i++)
        free(c->ut[i].ring);
    free(c->ut);
    free(c->fth);
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
    case TMCAP_EXECL:
        return 2; /* likewise */
    case TMCAP_SIGNAL: case TMCAP_CREATE: case TMCAP_DEP: case TMCAP_CTID:
        return 2;
    case TMCAP_STALL:
        return 3;
    case TMCAP_TIMING:
        return 6;
    case TMCAP_SYSCALL:
        return !(w0 >> 33 & 1) ? 1 : (w0 >> 32 & 1) ? 2 : 5;
    case TMCAP_TSTATS:
        return 1 + TMCAP_TSTATS_GLOBAL + 5 * (size_t)((w0 >> 8) & 0xffffff);
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

/* Handles the event at W (LEN words); returns words used, or 0 if more are
 * needed, or -1 on error. */
/* BLOCK: a block descriptor (its instructions and exits). */
static long ev_block(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    uint32_t ni = (w0 >> 8) & 0xffff, nx = (w0 >> 24) & 0xff;
    uint64_t id = w[1];
    if (ni == 0 || ni > TMCAP_MAX_INSNS || nx == 0)
        return tm_capi_fail(c, c->off, "block with %u instructions and %u exits", ni, nx), -1;
    if (id != c->nblocks + (c->nblocks == 0))
        return tm_capi_fail(c, c->off, "block id %llu out of sequence", (unsigned long long)id), -1;
    if (c->nblocks == 0 && c->tim && !c->has_timing) {
        /* no TIMING before the first block: the frontend timed nothing
         * and sent no dependency, so the cores' clocks would lose the
         * order of loads after the stores they read: serial */
        tm_timing_free(c->tim);
        c->tim = NULL;
        c->info.untimed = 1;
    }
    size_t capi = c->capi;
    if (tm_grow((void **)&c->blocks, &c->bcap, id + 1, sizeof *c->blocks) ||
        tm_grow((void **)&c->ioffs, &c->capi, c->ni + ni, sizeof *c->ioffs) ||
        tm_grow((void **)&c->ilen, &capi, c->ni + ni, sizeof *c->ilen) ||
        tm_grow((void **)&c->xits, &c->capx, c->nx + nx, sizeof *c->xits))
        return tm_capi_fail(c, c->off, "out of memory"), -1;
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
            return tm_capi_fail(c, c->off, "block %llu: instruction %u at +%llu, %u bytes: not straight-line code",
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
            return tm_capi_fail(c, c->off, "block %llu: exit %u: kind %u at instruction %u", (unsigned long long)id, j,
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
        return tm_capi_fail(c, c->off, "out of memory"), -1;
    return (long)len;
}

/* CREATE: a thread exists (a reused capture id is a new thread), with
 * the next uid. */
static long ev_create(tm_cap *c, const uint64_t *w)
{
    uint64_t w0 = w[0];
    cthread *t;
    uint32_t tid = (uint32_t)((w0 >> 8) & 0xffffff);
    if (!(t = thread_of(c, tid)))
        return tm_capi_fail(c, c->off, "thread %u out of range", tid), -1;
    if (w[1] != c->next_uid)
        return tm_capi_fail(c, c->off, "thread %u created with uid %llu, but %u threads appeared before it", tid,
                            (unsigned long long)w[1], c->next_uid), -1;
    if (c->tim && t->born)
        tm_timing_unborn(c->tim, t->birth);
    /* A capture id is reused after its thread ended: a new thread. */
    free(t->mem);
    memset(t, 0, sizeof *t);
    t->id = -1;
    t->state = T_NEW;
    if (!tm_capi_uthr_of(c, c->next_uid))
        return tm_capi_fail(c, c->off, "out of memory"), -1;
    t->uid = ++c->next_uid;
    if (c->tim) { /* it starts no earlier than its creator's clock */
        uint64_t parent = w0 >> 32;
        if (parent < c->nth && c->th[parent].id >= 0)
            t->birth = tm_timing_clock(c->tim, (uint32_t)c->th[parent].id);
        if (tm_timing_born(c->tim, t->birth) != TM_OK)
            return tm_capi_fail(c, c->off, "out of memory"), -1;
        t->born = 1;
    }
    return 2;
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
        return tm_capi_fail(c, c->off, "thread %u out of range", tid), -1;
    c->info.signals++;
    t->handlers++;
    /* A signal interrupts the system call the thread is in: it returns
     * (its leave came first) or is restarted (entered again) later; a
     * futex wait resumes at the thread's own clock. */
    if (t->insys && c->tim && t->id >= 0 && t->tr == 1 &&
        tm_timing_futex_leave(c->tim, (uint32_t)t->id, -4) != TM_OK)
        return tm_capi_fail(c, c->off, "the consumer stopped"), -1;
    t->insys = 0;
    if (t->state != T_RUN)
        return 2; /* not yet running: its first block is the handler */
    if (t->exc) /* a handler that had not run yet is interrupted at once */
        rc = tm_capi_resolve_exc(c, t, pc);
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
            rc = tm_capi_run_block(c, t, b, 0, 1, end, 0);
        else /* the interrupted point is not in that block (a restarted
                system call): nothing retired */
            rc = tm_capi_flush_pending(c, t);
    }
    t->exc = 1;
    return rc == TM_OK ? 2 : -1;
}

static long event(tm_cap *c, const uint64_t *w, size_t n)
{
    uint64_t w0 = w[0];
    unsigned type = w0 & 0xff;
    /* the two most frequent types without the table's indirect jump */
    size_t len = type == TMCAP_EXEC ? 1 : type == TMCAP_MEM ? mem_len(w0) : event_len(w, n);
    if (len > n)
        return 0;
    cthread *t;
    switch (type) {
    case TMCAP_BLOCK:
        return ev_block(c, w, len);
    case TMCAP_EXEC:
        return tm_capi_ev_exec(c, w, n, len, (w0 >> 16) & TMCAP_EXEC_MAX_ID, (w0 >> 8) & 0xff, (w0 >> 40) & 0xfff,
                                       w0 >> 52);
    case TMCAP_EXECL:
        return tm_capi_ev_exec(c, w, n, len, w[1], (w0 >> 8) & 0xff, 0, 0);
    case TMCAP_THREAD:
        c->cur = (uint32_t)(w0 >> 8);
        if (!thread_of(c, c->cur))
            return tm_capi_fail(c, c->off, "thread %u out of range", c->cur), -1;
        return 1;
    case TMCAP_CREATE:
        return ev_create(c, w);
    case TMCAP_EXIT: {
        uint32_t tid = (uint32_t)(w0 >> 8);
        if (!(t = thread_of(c, tid)))
            return tm_capi_fail(c, c->off, "thread %u out of range", tid), -1;
        return tm_capi_end_thread(c, t) == TM_OK ? 1 : -1;
    }
    case TMCAP_SIGNAL:
        return ev_signal(c, w);
    case TMCAP_SIGRET: {
        uint32_t tid = (uint32_t)(w0 >> 8);
        if (!(t = thread_of(c, tid)))
            return tm_capi_fail(c, c->off, "thread %u out of range", tid), -1;
        if (!t->handlers)
            return tm_capi_fail(c, c->off,
                                "thread %u returns from a signal handler (SIGRET) but no SIGNAL started one", tid),
                   -1;
        t->handlers--;
        if (t->state == T_RUN)
            t->exc = 1;
        return 1;
    }
    case TMCAP_MEM:
        return tm_capi_ev_mem(c, w, len);
    case TMCAP_DEP: case TMCAP_STALL:
        return tm_capi_ev_wait(c, w, len);
    case TMCAP_CTID: {
        uint32_t tid = (uint32_t)((w0 >> 8) & 0xffffff);
        if (!(t = thread_of(c, tid)))
            return tm_capi_fail(c, c->off, "thread %u out of range", tid), -1;
        t->ctid = w[1];
        return 2;
    }
    case TMCAP_TIMING:
        return tm_capi_ev_timing(c, w, len);
    case TMCAP_TSTATS:
        return tm_capi_ev_tstats(c, w, len);
    case TMCAP_MAP:
        return tm_capi_ev_map(c, w, len);
    case TMCAP_VDSO:
        return tm_capi_ev_vdso(c, w, len);
    case TMCAP_EXECVE:
        c->exec_end = c->off + 8; /* complete if the stream ends here */
        return 1;
    case TMCAP_SYSCALL:
        return tm_capi_ev_syscall(c, w, len);
    case TMCAP_ISA: {
        /* only as the first event after the magic */
        unsigned isa = (unsigned)((w0 >> 8) & 0xff);
        if (c->off != 8)
            return tm_capi_fail(c, c->off, "an ISA event that is not the stream's first event"), -1;
        if (isa >= TM_ISA_COUNT)
            return tm_capi_fail(c, c->off, "unknown instruction set %u in the ISA event", isa), -1;
        c->info.isa = (int)isa;
        if (c->sink.isa && c->sink.isa(c->sink.arg, (int)isa))
            return tm_capi_fail(c, c->off, "the consumer refused the instruction set %s", tm_isa_name((int)isa)), -1;
        return 1;
    }
    case TMCAP_END:
        c->info.ended = 1;
        c->end_off = c->off;
        c->info.status = (int)((w0 >> 8) & 0xff);
        c->info.signaled = ((w0 >> 16) & 0xff) == 1;
        return 1;
    default:
        return tm_capi_fail(c, c->off, "unknown event type %u", type), -1;
    }
}

/* Handles the whole events of the NW words at W; returns how many words
 * they took (the rest is an event's beginning), or -1 on error. */
static long parse_words(tm_cap *c, const uint64_t *w, size_t nw)
{
    size_t i = 0;
    if (!c->have_magic && nw) {
        if (w[0] == TMCAP_MAGIC1)
            return tm_capi_fail(c, 0, "a capture stream of an older frontend (TM TCAP1): record it again"), -1;
        if (w[0] != TMCAP_MAGIC)
            return tm_capi_fail(c, 0, "not a tm capture stream (bad magic)"), -1;
        c->have_magic = 1;
        i = 1;
        c->off = 8;
    }
    while (i < nw) {
        if (c->info.ended)
            return tm_capi_fail(c, c->off, "an event after the end marker (END at offset %llu)",
                                (unsigned long long)c->end_off), -1;
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
        tm_capi_fail(c, c->off, "out of memory");
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
        if (c->th[i].state == T_RUN && tm_capi_end_thread(c, &c->th[i]) != TM_OK)
            return TM_ERR_FORMAT;
    if (c->tim) {
        int rc = tm_timing_finish(c->tim);
        if (rc != TM_OK)
            return tm_capi_fail(c, c->off, "%s", tm_capi_timing_why(rc));
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
