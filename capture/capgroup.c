/* tm — capture layer: blocks run -> the commit stream's groups (the
 * tracing window, START and EXIT, the memory operands), handed to the
 * timing model or the consumer (capture_int.h). */
#include <stdlib.h>
#include <string.h>
#include "tm/grow.h"
#include "capture_int.h"

/* ------------------------------------------------------------ output */

/* What a failed call of the timing model means. */
const char *tm_capi_timing_why(int rc)
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
        return tm_capi_fail(c, c->off, "%s", tm_capi_timing_why(rc));
    }
    if (c->sink.record && c->sink.record(c->sink.arg, r))
        return tm_capi_fail(c, c->off, "the consumer stopped");
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
    return rc == TM_OK ? TM_OK : tm_capi_fail(c, c->off, "%s", tm_capi_timing_why(rc));
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
    if (m->stall && c->tim)
        tm_timing_stall(c->tim, (uint32_t)t->id, 0, m->stall);
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
    if (m && m->stall && c->tim)
        tm_timing_stall(c->tim, tid, 0, m->stall);
    if (c->sink.group || c->tim) {
        tmc_group g = {tid, c->cycle, pc, n, bytes, m != NULL, m && m->store ? TMC_MEM_STORE : 0,
                       m ? m->size : 0, m ? m->addr : 0, m ? (const uint8_t *)m->v : NULL, br};
        if (c->tim) {
            uint64_t mpc = m && m->insn < b->ninsn ? b->addr + io[m->insn] : 0;
            int rc = whole ? tm_timing_put_whole(c->tim, &g, mpc) : tm_timing_put_group(c->tim, &g, mpc);
            if (rc == TM_OK)
                return TM_OK;
            return tm_capi_fail(c, c->off, "%s", tm_capi_timing_why(rc));
        }
        if ((n || m || br) && c->sink.group(c->sink.arg, &g))
            return tm_capi_fail(c, c->off, "the consumer stopped");
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
int tm_capi_run_block(tm_cap *c, cthread *t, const block *b, uint32_t e, int partial, uint32_t end,
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

cthread *tm_capi_thread_of_slow(tm_cap *c, uint64_t tid)
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

/* The cycle of T's last group, its block's: T's next block begins. */
static int block_done(tm_cap *c, cthread *t)
{
    int64_t uid = tm_capi_thread_uid(c, t);
    if (uid < 0)
        return tm_capi_fail(c, c->off, "out of memory");
    uthr *u = &c->ut[uid];
    uint64_t cy = c->tim && t->id >= 0 ? tm_timing_last(c->tim, (uint32_t)t->id) : t->birth;
    if (u->k >= u->cap && u->cap < RING_MAX) {
        uint64_t cap = u->cap ? u->cap * 2 : 64;
        uint64_t *n = realloc(u->ring, cap * sizeof *n);
        if (!n)
            return tm_capi_fail(c, c->off, "out of memory");
        u->ring = n;
        u->cap = cap;
    }
    u->ring[u->k % u->cap] = cy;
    u->k++;
    return TM_OK;
}

/* T's pending floor (FLOOR) and stall (STALL) to the timing model (T has
 * an id). */
static void give(tm_cap *c, cthread *t, int floor, int stall)
{
    if (!c->tim || t->id < 0)
        return;
    if (stall && (t->psif || t->psdata))
        tm_timing_stall(c->tim, (uint32_t)t->id, t->psif, t->psdata);
    if (floor && t->pfloor)
        tm_timing_floor(c->tim, (uint32_t)t->id, t->pfloor, t->pkind);
    if (stall)
        t->psif = t->psdata = 0;
    if (floor)
        t->pfloor = 0;
}

static void give_pending(tm_cap *c, cthread *t) { give(c, t, 1, 1); }

/* Capture thread T enters the trace at PC: a tmc id and START (TRACE_ON if
 * it ran before). */
static int ensure_started(tm_cap *c, cthread *t, uint64_t pc)
{
    if (t->tr == 1)
        return TM_OK;
    if (t->tr == 2)
        return tm_capi_fail(c, c->off, "a thread traced again after its end");
    if (c->next_id >= c->cfg.threads)
        return tm_capi_fail(c, c->off,
                            "the program runs more than %u threads; give the trace module more cores (--threads)",
                            c->cfg.threads);
    t->id = (int32_t)c->next_id++;
    t->tr = 1;
    int64_t uid = tm_capi_thread_uid(c, t);
    if (uid < 0)
        return tm_capi_fail(c, c->off, "out of memory");
    c->ut[uid].core = t->id + 1;
    if (c->tim) {
        tm_timing_start_at(c->tim, (uint32_t)t->id, t->birth);
        if (t->born)
            tm_timing_unborn(c->tim, t->birth);
        t->born = 0;
        give(c, t, 1, 0); /* START after what the thread's first block follows */
    }
    c->info.threads = c->next_id;
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_START;
    r.pc = pc;
    r.flags = t->ran ? TMC_START_TRACE_ON : 0;
    int rc = emit_event(c, t, &r);
    give(c, t, 0, 1); /* the block's stall: its instructions' */
    return rc;
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
int tm_capi_flush_pending(tm_cap *c, cthread *t)
{
    int rc = TM_OK;
    for (size_t i = 0; i < t->nmem && rc == TM_OK; i++)
        if (t->mem[i].insn == CAP_SYS_INSN)
            rc = emit_mem(c, t, NULL, &t->mem[i]);
    t->nmem = 0;
    return rc;
}

/* T ends: its EXIT; the system's wake of its CLEARTID word at its last
 * clock (pthread_join), its end block (the DEP events may name it). */
int tm_capi_end_thread(tm_cap *c, cthread *t)
{
    if (t->state == T_RUN && t->nmem && tm_capi_flush_pending(c, t) != TM_OK)
        return TM_ERR_FORMAT;
    int traced = t->state == T_RUN && t->tr == 1;
    int was = t->state;
    t->state = T_DONE;
    if (c->tim && t->born) { /* never started: nothing waits for its start */
        tm_timing_unborn(c->tim, t->birth);
        t->born = 0;
    }
    int rc = TM_OK;
    if (traced) {
        t->tr = 2;
        tmc_record r;
        memset(&r, 0, sizeof r);
        r.type = TMC_EXIT;
        /* the wake first: a joiner in its wait holds back what comes after
         * the end from the moment the thread is done */
        if (c->tim && t->ctid)
            tm_timing_exit_wake(c->tim, (uint32_t)t->id, t->ctid);
        rc = emit_event(c, t, &r);
    }
    if (rc == TM_OK && was != T_DONE && t->uid)
        rc = block_done(c, t);
    return rc;
}

/* The pending exception of T goes to TARGET. */
int tm_capi_resolve_exc(tm_cap *c, cthread *t, uint64_t target)
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

/* EXEC (EXECL: L words before the target): the running thread ran block
 * ID and left it through exit E, with stall cycles DATA and IFETCH (the
 * hot path: the usual case is done here without run_block). */
long tm_capi_ev_exec(tm_cap *c, const uint64_t *w, size_t n, size_t len, uint64_t id, uint32_t e, uint64_t data,
                     uint64_t ifetch)
{
    cthread *t;
    int rc = TM_OK;
    if (id == 0 || id >= c->nblocks)
        return tm_capi_fail(c, c->off, "execution of unknown block %llu", (unsigned long long)id), -1;
    const block *b = &c->blocks[id];
    if (e >= b->nexit)
        return tm_capi_fail(c, c->off, "block %llu has no exit %u", (unsigned long long)id, e), -1;
    const xit *x = &c->xits[b->xoff + e];
    if (x->dyn) {
        if (n < len + 1)
            return 0;
        len++;
    }
    const uint64_t dyn = x->dyn ? w[len - 1] : 0;
    if (!(t = thread_of(c, c->cur)))
        return tm_capi_fail(c, c->off, "thread %u out of range", c->cur), -1;
    t->psif += ifetch;
    t->psdata += data;
    if (t->state == T_NONE || t->state == T_NEW) {
        t->state = T_RUN;
        t->expect = b->addr;
    } else if (t->state == T_DONE) {
        return tm_capi_fail(c, c->off, "thread %u runs after its exit", c->cur), -1;
    }
    if (t->exc && b->addr != t->expect)
        rc = tm_capi_resolve_exc(c, t, b->addr);
    t->exc = 0;
    if (rc == TM_OK && b->addr != t->expect)
        return tm_capi_fail(c, c->off, "thread %u: block at 0x%llx, but its next instruction is at 0x%llx", c->cur,
                            (unsigned long long)b->addr, (unsigned long long)t->expect), -1;
    c->info.execs++;
    if (rc != TM_OK)
        return -1;
    if (t->id >= 0)
        give_pending(c, t);
    if (!c->cfg.slow && c->on == 1 && t->tr == 1 && !x->passes && x->kind != TMCAP_X_STAY &&
        (t->nmem == 0 || t->mem[0].insn != CAP_SYS_INSN) &&
        (!c->cfg.length || c->traced + x->nrun + 1 < c->cfg.length)) {
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
            t->expect = x->dyn ? dyn : x->target;
        } else {
            br = &c->rbr;
            br->tid = tid;
            br->cycle = c->cycle;
            br->pc = b->addr + x->boff;
            br->len = x->blen;
            br->bclass = bclass_of[x->kind];
            br->taken = x->kind != TMCAP_X_COND_N;
            br->target = x->dyn ? dyn : x->target;
            t->expect = br->taken ? br->target : br->pc + br->len;
            c->info.instructions++;
            c->traced++;
            c->seen++;
        }
        if (fast_group(c, tid, b, pos, x->nrun, NULL, br, 1) != TM_OK)
            return -1;
        t->ran = 1;
        c->open = 0; /* the group ends (fast_group's WHOLE) */
        return block_done(c, t) == TM_OK ? (long)len : -1;
    }
    rc = tm_capi_run_block(c, t, b, e, 0, 0, dyn);
    if (t->id < 0 || t->tr != 1) /* untraced instructions take no time */
        t->psif = t->psdata = t->pfloor = 0;
    return rc == TM_OK && block_done(c, t) == TM_OK ? (long)len : -1;
}

/* MEM: a memory operand of the running thread (checked against the image). */
long tm_capi_ev_mem(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    cthread *t;
    unsigned size = (w0 >> 16) & 0xff;
    if (size < 1 || size > TMC_MAX_OPERAND)
        return tm_capi_fail(c, c->off, "memory operand of %u bytes", size), -1;
    if (!(t = thread_of(c, c->cur)))
        return tm_capi_fail(c, c->off, "thread %u out of range", c->cur), -1;
    if (tm_grow((void **)&t->mem, &t->capmem, t->nmem + 1, sizeof *t->mem))
        return tm_capi_fail(c, c->off, "out of memory"), -1;
    pmem *m = &t->mem[t->nmem++];
    m->store = (w0 >> 8) & 1;
    m->size = (uint8_t)size;
    m->insn = (uint16_t)(w0 >> 24);
    m->stall = (uint32_t)(w0 >> 40);
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
            return tm_capi_fail(c, c->off, "a load without its value"), -1;
        if (c->cfg.need_values)
            return tm_capi_fail(c, c->off, "a store without its value (captured with --tm-store-values=no); the "
                                           "commit stream and the descriptors need every value"), -1;
        for (unsigned q = 0; q < nw; q++)
            m->v[q] = 0;
    }
    if (tm_capi_img_access(c, c->cur, m, (w0 & TMCAP_MEM_NOVALUE) != 0, c->off))
        return -1;
    if (m->insn == CAP_SYS_INSN) {
        /* a write by the system (between the thread's blocks): a group of
         * its own now, and a block of its own in the DEP events' count
         * (the frontend's timing counts it so: docs/capture.md §3) */
        if (t->state == T_RUN && (c->on == 1 || c->on == 2)) {
            pmem sm = *m;
            t->nmem--;
            if (t->id >= 0) /* the accesses it follows (DEP) are its group's */
                give_pending(c, t);
            if (emit_mem(c, t, NULL, &sm) != TM_OK || close_group(c) != TM_OK)
                return -1;
        }
        if (t->id < 0 || t->tr != 1)
            t->psif = t->psdata = t->pfloor = 0;
        if (c->has_timing && block_done(c, t) != TM_OK)
            return -1;
    }
    return (long)len;
}
