/* tm — directed commit streams (`tm gen --directed NAME`, tm/gen.h).
 *
 * Each stream is built in two steps.  First every thread gets a script: a
 * list of operations, each one group template (a RUN of plain instructions,
 * then at most one event) repeated a number of times at a fixed cycle step.
 * The builder follows the thread's pc and cycle while it appends, so the
 * scenarios below are written as straight-line code.  Then the scripts are
 * interpreted and merged in (cycle, tid) order into the writer; a two-million
 * iteration loop is one operation, so memory stays small.
 *
 * Conventions.  Plain instructions are 4 bytes.  Every (scenario, thread)
 * has its own code region of 2^34 bytes, REGION(ph, t), and threads never
 * share code, so the stream does what it is meant to do in the shared
 * organization too.  The program is static: a pc always holds the same
 * class, length and direct target.  A never-taken cond's target is pc +
 * 2^33, code that is never executed.
 *
 * Guaranteed mispredictions.  A predictor can only predict a target it has
 * seen: the iBTB stores actual targets of ijump/icall, the RAS return
 * addresses of calls.  So an ijump (or ret) to an address that no indirect
 * branch of any thread has reached before, and that is no return address,
 * is mispredicted with every predictor size, private or shared, and is a
 * message in nx_b too ("forced" below).  Likewise a cond that is not taken
 * is predicted correctly as long as no taken cond has raised a gshare
 * counter to 2, which holds while a stream runs only not-taken conds (every
 * counter starts at 1).  Exceptions are always messages.
 *
 * Pacing.  Unless a stream is meant to overflow, groups that may form a
 * message are spaced so that N threads' messages of about B bits fit a 4-bit
 * port: slot(B) = ceil(N * B / 4) cycles; no message is dropped with the
 * default buffer and port (measured in tests/e2e/t_gen_directed.sh).
 *
 * The streams:
 *
 * chunks — every chunked field at every chunk boundary 2^k - 1 and 2^k, for
 *   any chunk sizes, exactly (private organization, no overflow):
 *   - SL (nx_b cnt): v - 1 plain instructions then a forced ijump, v in
 *     {2^k - 1, 2^k} up to 2^20.  One straight-line region ends in the ijump;
 *     entering it at END - 4 (v - 1) gives SL = v; every entry is a fresh
 *     target of the previous ijump.
 *   - EXC iCnt: the same with an exception instead of the ijump, 0 .. 2^20.
 *   - bCnt (tr_b/tr_e cnt): a sled of not-taken conds (predicted by every
 *     gshare) ending in a forced ijump: c - 1 conds + the ijump = bCnt c, up
 *     to 2^20 (nx_b: SL c).  1 cycle per cond.
 *   - |diffTA|: a walk over fresh landing addresses in a 2^51-byte window per
 *     thread: from landing p a direct jump (no message) goes to an ijump whose
 *     target is p + d, so diffTA = d exactly; or an exception at p with handler
 *     p + d.  d = +-(2^k - 1), +-2^k for k = 0..48, both kinds, and 0 (EXC).
 *   - diffCC: forced ijumps d cycles apart, d in {2^k - 1, 2^k} up to 2^20.
 *   Values up to 2^10 go to every thread; larger ones are split over the
 *   threads (longest first, to the least loaded thread).
 *   - Last, after every thread is done with the above (so shared predictors
 *     see no taken cond before): loops learned by gshare — a cond at a fixed
 *     pc taken k times (k = 2^j - 1 and 2^j + 20, j <= 12) and then not
 *     taken; the exit mispredicts with bCnt close to k.
 * ras — per thread: returns without calls first (empty RAS), recursion of
 *   depth 0..100 through direct calls (depths around 8, 16, 32 and 64:
 *   returns beyond the RAS depth mispredict), a recursion left by an
 *   exception (stale RAS entries) followed by returns without calls, and
 *   recursion through icall (depths 5..64).
 * ibtb — per thread: indirect sites whose (PIR, pc) map to one iBTB set with
 *   distinct tags for every iBTB size of 16, 32 or 64 entries.  Before each
 *   access six ijumps at pcs with (pc >> 4) mod 2^13 = 0 bring the PIR to
 *   0x1555 whatever the history, so the set and tag of a site depend on its
 *   pc alone; the sites are chosen so that these normalizing ijumps never
 *   touch the test set.  Sequences: two sites (both ways hit), three sites in
 *   turn (each access replaces the least recently used way), A D A E (A keeps
 *   hitting, D and E take turns in the other way), a site with five targets
 *   (hits with a wrong target), icall sites with one and three targets.
 * samecycle — bursts of 1..64 consecutive cycles in which every thread
 *   retires one event in the same cycle; the first two cycles of each burst
 *   are forced messages (exception, forced ijump, return without call) for
 *   every thread, later cycles mostly so.  Threads start together and exit
 *   together.  Long enough gaps between bursts let the buffer drain.
 * overflow — every cycle an unpredictable event in every thread (fresh
 *   targets, random conds, exceptions, calls and returns); half of the
 *   threads start later while the others are lost, thread 0 exits early,
 *   threads exit normally, with TRACE_OFF, or not at all (flush), and some
 *   start with TRACE_ON.  Meant for `tm model --buffer min --port 1`.
 * idle — per thread 12 bursts of 40..120 mixed events separated by idle
 *   stretches of 10^(4 + 2k/11) cycles (10^4 .. 10^6), in a different order
 *   per thread.
 * tswrap — per thread, gaps between consecutive messages of 2^16 - 1, 2^16,
 *   2^16 + 1, 2^17 + 3, 3 * 2^16, 2^20 - 1, 2^20, 2^20 + 1, 2^21 + 5 and a
 *   final 2^20 + 7 before the END; thread 0 has messages at cycles
 *   2^16 - 1 .. 2^16 + 1 and 2^20 - 1 .. 2^20 + 1; the last thread starts at
 *   cycle 2^20 + 3 (SYNC with diffCC > 2^20).
 * all — phases chunks, ras, ibtb, idle, tswrap, samecycle, overflow one after
 *   the other; a thread enters a phase's code through an exception.  With 3
 *   threads or more the last thread starts only in the overflow phase. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/grow.h"
#include "tm/gen.h"
#include "gen_int.h"

#define PLEN 4u                          /* bytes of a plain instruction */
#define MAXRUN TMC_MAX_RETIRE_PER_CYCLE  /* plain instructions per group */
#define FAR (1ULL << 33)                 /* never-taken cond target: pc + FAR */
#define SUB(k) ((uint64_t)(k) << 28)     /* sub-areas of a region */
#define CH_RESV 24u                      /* bytes after a call for the return's block */
#define CH_STACK 64u                     /* open calls of a chain */

/* Phase (scenario) numbers: code regions. */
enum { PH_CHUNKS, PH_RAS, PH_IBTB, PH_SAMECYCLE, PH_OVERFLOW, PH_IDLE, PH_TSWRAP };

static uint64_t region(unsigned ph, uint32_t t)
{
    return (1ULL << 44) + ((uint64_t)ph << 45) + ((uint64_t)t << 34);
}

static const char *const names[TM_GEN_DIR_COUNT] = {
    "chunks", "ras", "ibtb", "samecycle", "overflow", "idle", "tswrap", "all"};

/* ---- scripts ---- */

enum { DEV_NONE, DEV_START, DEV_EXIT, DEV_BRANCH, DEV_EXC };

typedef struct dop {
    uint64_t wait;    /* cycles after the thread's previous group (START: absolute cycle) */
    uint64_t reps;    /* groups, >= 1 */
    uint64_t step;    /* cycles between the groups of this operation */
    uint64_t target;  /* BRANCH target (offset from the branch pc if rel), EXC handler, START pc */
    uint32_t nplain;  /* plain instructions before the event */
    uint8_t ev, bclass, blen, taken, rel, flags;
} dop;

typedef struct dthr {
    dop *op;
    size_t nop, cap;
    /* builder */
    uint64_t pc;        /* the thread's pc after the operations so far */
    uint64_t cyc;       /* cycle of the last group so far */
    uint64_t wait;      /* cycles before the next group (0 = 1) */
    uint64_t hi;        /* chain: highest address used */
    uint64_t stk[CH_STACK];
    uint32_t sp;
    uint64_t land;      /* fresh landing addresses (ijump chains) */
    int started;
    gen_rng rng;
    /* interpreter */
    size_t ip;
    uint64_t rep, ipc, icyc;
} dthr;

typedef struct dctx {
    uint32_t n;       /* threads */
    uint32_t np;      /* threads taking part in the current phase: 0 .. np-1 */
    uint64_t seed;
    dthr *t;
    int oom;
    tmc_record rrun, rev;
} dctx;

/* Cycles between message-forming groups so that N threads' messages of
 * BITS bits fit the default 4-bit port. */
static uint64_t slot(const dctx *g, unsigned bits)
{
    uint64_t s = ((uint64_t)g->n * bits + 3) / 4;
    return s ? s : 1;
}

/* The effect of one group of O at *pc; returns the event's pc. */
static uint64_t grp_next(const dop *o, uint64_t *pc)
{
    uint64_t at = *pc + (uint64_t)o->nplain * PLEN;
    switch (o->ev) {
    case DEV_START:
    case DEV_EXC:
        *pc = o->target;
        break;
    case DEV_BRANCH: {
        uint64_t tg = o->rel ? at + o->target : o->target;
        *pc = o->taken ? tg : at + o->blen;
        break;
    }
    default:
        *pc = at;
        break;
    }
    return at;
}

static void b_op(dctx *g, dthr *t, const dop *o)
{
    if (g->oom)
        return;
    if (TM_GROW(t->op, t->cap, t->nop + 1) != TM_OK) {
        g->oom = 1;
        return;
    }
    dop *d = &t->op[t->nop++];
    *d = *o;
    if (o->ev == DEV_START) {
        t->cyc = o->wait;
        t->started = 1;
    } else {
        d->wait = t->wait ? t->wait : 1;
        t->cyc += d->wait;
    }
    t->wait = 0;
    t->cyc += (d->reps - 1) * d->step;
    if (d->reps == 1 || d->ev != DEV_BRANCH || !d->rel || d->taken)
        for (uint64_t i = 0; i < d->reps; i++)
            grp_next(d, &t->pc);
    else /* a sled of not-taken conds */
        t->pc += d->reps * ((uint64_t)d->nplain * PLEN + d->blen);
}

static void b_wait(dthr *t, uint64_t n) { t->wait += n; }

static void b_start(dctx *g, dthr *t, uint64_t cycle, uint64_t pc, unsigned flags)
{
    dop o = {.wait = cycle, .reps = 1, .target = pc, .ev = DEV_START, .flags = (uint8_t)flags};
    b_op(g, t, &o);
}

/* NPLAIN plain instructions (any number: RUN-only groups one cycle apart
 * carry all but the last MAXRUN) then event O (nplain ignored). */
static void b_group(dctx *g, dthr *t, uint64_t nplain, dop o)
{
    while (nplain > MAXRUN) {
        dop r = {.reps = 1, .nplain = MAXRUN, .ev = DEV_NONE};
        b_op(g, t, &r);
        nplain -= MAXRUN;
    }
    o.nplain = (uint32_t)nplain;
    o.reps = o.reps ? o.reps : 1;
    b_op(g, t, &o);
}

static void b_br(dctx *g, dthr *t, uint64_t nplain, unsigned cls, unsigned len, int taken,
                 uint64_t target)
{
    dop o = {.ev = DEV_BRANCH, .bclass = (uint8_t)cls, .blen = (uint8_t)len,
             .taken = (uint8_t)taken, .target = target};
    b_group(g, t, nplain, o);
}

static void b_exc(dctx *g, dthr *t, uint64_t nplain, uint64_t handler)
{
    dop o = {.ev = DEV_EXC, .target = handler};
    b_group(g, t, nplain, o);
}

static void b_exit(dctx *g, dthr *t, unsigned flags)
{
    dop o = {.ev = DEV_EXIT, .flags = (uint8_t)flags};
    b_group(g, t, 0, o);
}

static void b_run(dctx *g, dthr *t, uint64_t nplain)
{
    dop o = {.ev = DEV_NONE};
    if (nplain > MAXRUN) {
        b_group(g, t, nplain - MAXRUN, o);
        nplain = MAXRUN;
    }
    b_group(g, t, nplain, o);
}

/* REPS not-taken conds (length 2, no plain instructions) in consecutive
 * cycles at consecutive addresses. */
static void b_sled(dctx *g, dthr *t, uint64_t reps)
{
    dop o = {.ev = DEV_BRANCH, .bclass = TMC_COND, .blen = 2, .taken = 0, .rel = 1,
             .target = FAR, .reps = reps, .step = 1};
    b_op(g, t, &o);
}

/* REPS iterations, STEP cycles apart, of NPLAIN plain instructions and a
 * taken cond (length 2) back to the loop head (the current pc). */
static void b_loop(dctx *g, dthr *t, uint64_t reps, uint64_t step, uint32_t nplain)
{
    dop o = {.ev = DEV_BRANCH, .bclass = TMC_COND, .blen = 2, .taken = 1, .target = t->pc,
             .reps = reps, .step = step, .nplain = nplain};
    b_op(g, t, &o);
}

/* Leaves whatever code the thread is in: an exception to ADDR. */
static void b_goto(dctx *g, dthr *t, uint64_t addr) { b_exc(g, t, 0, addr); }

/* Every taking thread's next group at the same cycle, at least EXTRA cycles
 * after the latest pending group. */
static void barrier(dctx *g, uint64_t extra)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < g->np; i++) {
        dthr *t = &g->t[i];
        uint64_t c = t->cyc + t->wait;
        if (c > m)
            m = c;
    }
    for (uint32_t i = 0; i < g->np; i++)
        g->t[i].wait = m + extra - g->t[i].cyc;
}

/* Starts the thread at PC (alone) or moves it there (a later phase of all). */
static void enter(dctx *g, dthr *t, int alone, uint64_t cycle, uint64_t pc)
{
    if (alone || !t->started) {
        b_start(g, t, cycle, pc, 0);
    } else {
        b_wait(t, slot(g, 160));
        b_goto(g, t, pc);
    }
}

/* ---- chains of fresh code: random events at addresses never used before ---- */

enum { K_EXC, K_IJUMP, K_RETUF, K_CONDT, K_CONDNT, K_JUMP, K_CALL, K_ICALL, K_RET, K_NONE, K_N };

static void ch_init(dthr *t, uint64_t base)
{
    t->hi = base;
    t->sp = 0;
}

static void ch_hi(dthr *t, uint64_t a)
{
    if (a > t->hi)
        t->hi = a;
}

/* A fresh address past everything the chain used: mostly near, sometimes far
 * (diffTA of a few bits to 17 bits). */
static uint64_t ch_fresh(dthr *t)
{
    uint32_t x = gen_below(&t->rng, 10);
    uint64_t gap = x < 7 ? 16 : x < 9 ? 256 : 65536;
    t->hi += gap;
    return t->hi;
}

static unsigned ch_pick(dthr *t, const uint8_t w[K_N])
{
    unsigned tot = 0;
    for (unsigned k = 0; k < K_N; k++)
        tot += w[k];
    uint32_t x = gen_below(&t->rng, tot);
    for (unsigned k = 0; k < K_N; k++) {
        if (x < w[k])
            return k;
        x -= w[k];
    }
    return K_NONE;
}

/* One block of kind KIND at the thread's pc (which must be the chain's
 * latest fresh address): 0..3 plain instructions, then the event.  Every
 * kind is one group except K_RET, which adds the block after the return. */
static void ch_block(dctx *g, dthr *t, unsigned kind)
{
    uint32_t np = gen_below(&t->rng, 4);
    if (kind == K_CALL && t->sp == CH_STACK)
        kind = K_IJUMP;
    if (kind == K_ICALL && t->sp == CH_STACK)
        kind = K_IJUMP;
    if (kind == K_RET && t->sp == 0)
        kind = K_RETUF;
    if (kind == K_NONE && np == 0)
        np = 1;
    uint64_t at = t->pc + (uint64_t)np * PLEN;
    ch_hi(t, at);
    switch (kind) {
    case K_EXC:
        b_exc(g, t, np, ch_fresh(t));
        break;
    case K_IJUMP:
        ch_hi(t, at + 2);
        b_br(g, t, np, TMC_IJUMP, 2, 1, ch_fresh(t));
        break;
    case K_RETUF:
        ch_hi(t, at + 1);
        b_br(g, t, np, TMC_RET, 1, 1, ch_fresh(t));
        break;
    case K_CONDT:
        ch_hi(t, at + 2);
        b_br(g, t, np, TMC_COND, 2, 1, ch_fresh(t));
        break;
    case K_CONDNT:
        ch_hi(t, at + 2);
        b_br(g, t, np, TMC_COND, 2, 0, at + FAR);
        break;
    case K_JUMP:
        ch_hi(t, at + 2);
        b_br(g, t, np, TMC_JUMP, 2, 1, ch_fresh(t));
        break;
    case K_CALL:
    case K_ICALL: {
        unsigned len = kind == K_CALL ? 5 : 3;
        ch_hi(t, at + len + CH_RESV);
        t->stk[t->sp++] = at + len;
        b_br(g, t, np, kind == K_CALL ? TMC_CALL : TMC_ICALL, len, 1, ch_fresh(t));
        break;
    }
    case K_RET: {
        ch_hi(t, at + 1);
        uint64_t ra = t->stk[--t->sp];
        b_br(g, t, np, TMC_RET, 1, 1, ra);
        /* the caller's block after the call: 1..3 plain and a jump onwards */
        b_br(g, t, 1 + gen_below(&t->rng, 3), TMC_JUMP, 2, 1, ch_fresh(t));
        break;
    }
    default:
        b_run(g, t, np);
        break;
    }
}

/* ---- value lists ---- */

typedef struct vlist {
    uint64_t *v;
    size_t n;
} vlist;

/* 2^k - 1 and 2^k for k = 0..maxk, ascending, without duplicates; 0 only
 * when ZERO. */
static size_t boundary_values(unsigned maxk, int zero, uint64_t *out)
{
    size_t n = 0;
    for (unsigned k = 0; k <= maxk; k++) {
        uint64_t a = (1ULL << k) - 1, b = 1ULL << k;
        if ((a || zero) && (n == 0 || out[n - 1] != a))
            out[n++] = a;
        if (n == 0 || out[n - 1] != b)
            out[n++] = b;
    }
    return n;
}

static void shuffle(gen_rng *r, uint64_t *v, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = gen_below(r, (uint32_t)i);
        uint64_t x = v[i - 1];
        v[i - 1] = v[j];
        v[j] = x;
    }
}

/* Values up to SMALL go to every thread; larger ones, longest first, to the
 * least loaded thread (load = sum of values).  Each list is then shuffled
 * with the thread's generator.  OUT[t].v must hold N values. */
static void split_values(dctx *g, const uint64_t *v, size_t n, uint64_t small, vlist *out)
{
    uint64_t load[TM_GEN_DIR_MAX_THREADS] = {0};
    for (uint32_t t = 0; t < g->np; t++)
        out[t].n = 0;
    for (size_t i = n; i-- > 0;) {
        if (v[i] <= small) {
            for (uint32_t t = 0; t < g->np; t++)
                out[t].v[out[t].n++] = v[i];
            continue;
        }
        uint32_t best = 0;
        for (uint32_t t = 1; t < g->np; t++)
            if (load[t] < load[best])
                best = t;
        out[best].v[out[best].n++] = v[i];
        load[best] += v[i];
    }
    for (uint32_t t = 0; t < g->np; t++)
        shuffle(&g->t[t].rng, out[t].v, out[t].n);
}

/* ---- chunks ---- */

#define CK_MAXK 20                  /* counts and diffCC up to 2^20 */
#define CK_TA_MAXK 48               /* |diffTA| up to 2^48 */
#define CK_SMALL (1ULL << 10)       /* values every thread gets */
#define CK_SPAN (1ULL << 20)        /* longest run / sled */
#define CK_FILL 256u                /* most filler hops of a walk */

typedef struct hop {
    int64_t d;
    int exc;
    int done;
} hop;

static int pos_used(const uint64_t *used, size_t n, uint64_t p)
{
    for (size_t i = 0; i < n; i++)
        if (used[i] == p)
            return 1;
    return 0;
}

/* The diffTA walk of one thread from landing C (the pc), ending with an
 * ijump to NEXT.  Landings are 1-byte direct jumps to the ijump sites at Q. */
static int ck_walk(dctx *g, dthr *t, uint64_t q, uint64_t next)
{
    size_t nh = 0, cap = 4 * 2 * (CK_TA_MAXK + 1) + 1, ucap = 2 * cap + CK_FILL;
    hop *h = calloc(cap, sizeof *h);
    uint64_t *used = calloc(ucap, sizeof *used);
    if (!h || !used) {
        free(h);
        free(used);
        return TM_ERR_NOMEM;
    }
    uint64_t vals[2 * (CK_TA_MAXK + 1)];
    size_t nv = boundary_values(CK_TA_MAXK, 0, vals);
    for (size_t i = 0; i < nv; i++)
        for (int k = 0; k < 4; k++)
            h[nh++] = (hop){(k & 1) ? -(int64_t)vals[i] : (int64_t)vals[i], k >> 1, 0};
    h[nh++] = (hop){0, 1, 0};
    const uint64_t c = t->pc, bound = 1ULL << 49;
    uint64_t pos = c;
    size_t nu = 0, left = nh;
    used[nu++] = pos;
    unsigned fill = 0;
    uint64_t sl = slot(g, 128);
    while (left) {
        hop *pick = NULL;
        for (size_t i = 0; i < nh && !pick; i++) {
            if (h[i].done)
                continue;
            uint64_t np = pos + (uint64_t)h[i].d;
            uint64_t dist = np > c ? np - c : c - np;
            if (dist > bound)
                continue;
            if (h[i].d == 0 ? h[i].exc : !pos_used(used, nu, np))
                pick = &h[i];
        }
        hop f;
        if (!pick) { /* a filler hop to a fresh landing */
            if (fill == CK_FILL) {
                free(h);
                free(used);
                return TM_ERR_STATE;
            }
            f.d = (int64_t)(4099 + 32 * fill) * ((fill & 1) ? -1 : 1);
            f.exc = 0;
            fill++;
            if (pos_used(used, nu, pos + (uint64_t)f.d))
                continue;
            pick = &f;
        } else {
            pick->done = 1;
            left--;
        }
        uint64_t np = pos + (uint64_t)pick->d;
        b_wait(t, sl);
        if (pick->exc) {
            b_exc(g, t, 0, np);
        } else {
            b_br(g, t, 0, TMC_JUMP, 1, 1, q);
            b_br(g, t, 0, TMC_IJUMP, 2, 1, np);
            q += 16;
        }
        if (np != pos)
            used[nu++] = np;
        pos = np;
    }
    b_wait(t, sl);
    b_br(g, t, 0, TMC_JUMP, 1, 1, q);
    b_br(g, t, 0, TMC_IJUMP, 2, 1, next);
    free(h);
    free(used);
    return TM_OK;
}

static int sc_chunks(dctx *g, int alone)
{
    uint64_t vals[2 * (CK_MAXK + 1)], vz[2 * (CK_MAXK + 1)];
    size_t nv = boundary_values(CK_MAXK, 0, vals);
    size_t nz = boundary_values(CK_MAXK, 1, vz);
    size_t per = nz + 2;
    uint64_t *mem = calloc((size_t)g->np * 4 * per, sizeof *mem);
    vlist *sl = calloc((size_t)g->np * 4, sizeof *sl);
    if (!mem || !sl) {
        free(mem);
        free(sl);
        return TM_ERR_NOMEM;
    }
    vlist *ex = sl + g->np, *sled = ex + g->np, *cc = sled + g->np;
    for (uint32_t t = 0; t < g->np; t++) {
        sl[t].v = mem + (4 * t + 0) * per;
        ex[t].v = mem + (4 * t + 1) * per;
        sled[t].v = mem + (4 * t + 2) * per;
        cc[t].v = mem + (4 * t + 3) * per;
    }
    split_values(g, vals, nv, CK_SMALL, sl);
    split_values(g, vz, nz, CK_SMALL, ex);
    split_values(g, vals, nv, CK_SMALL, sled);
    split_values(g, vals, nv, CK_SMALL, cc);

    int rc = TM_OK;
    for (uint32_t i = 0; i < g->np && rc == TM_OK; i++) {
        dthr *t = &g->t[i];
        uint64_t base = region(PH_CHUNKS, i);
        uint64_t sl_end = base + SUB(1) + PLEN * (CK_SPAN + 64);
        uint64_t ex_end = base + SUB(2) + PLEN * (CK_SPAN + 64);
        uint64_t sled_end = base + SUB(3) + 2 * (CK_SPAN + 64);
        uint64_t hopq = base + SUB(4), ccl = base + SUB(5), head = base + SUB(6);
        uint64_t walk = (1ULL << 56) + ((uint64_t)i << 51) + (1ULL << 50);
        uint64_t s64 = slot(g, 64);
        enter(g, t, alone, 1 + 24 * (uint64_t)i, base);
        /* SL */
        b_wait(t, s64);
        b_br(g, t, 0, TMC_IJUMP, 2, 1, sl_end - PLEN * (sl[i].v[0] - 1));
        for (size_t k = 0; k < sl[i].n; k++) {
            uint64_t nx = k + 1 < sl[i].n ? sl_end - PLEN * (sl[i].v[k + 1] - 1)
                                          : ex_end - PLEN * ex[i].v[0];
            b_wait(t, s64);
            b_br(g, t, sl[i].v[k] - 1, TMC_IJUMP, 2, 1, nx);
        }
        /* EXC iCnt */
        for (size_t k = 0; k < ex[i].n; k++) {
            uint64_t nx = k + 1 < ex[i].n ? ex_end - PLEN * ex[i].v[k + 1]
                                          : sled_end - 2 * (sled[i].v[0] - 1);
            b_wait(t, s64);
            b_exc(g, t, ex[i].v[k], nx);
        }
        /* bCnt: sled of not-taken conds, then the forced ijump */
        for (size_t k = 0; k < sled[i].n; k++) {
            uint64_t nx = k + 1 < sled[i].n ? sled_end - 2 * (sled[i].v[k + 1] - 1) : walk;
            b_wait(t, s64);
            if (sled[i].v[k] > 1)
                b_sled(g, t, sled[i].v[k] - 1);
            b_br(g, t, 0, TMC_IJUMP, 2, 1, nx);
        }
        /* |diffTA| */
        rc = ck_walk(g, t, hopq, ccl);
        /* diffCC: forced ijumps at landings 16 bytes apart */
        uint64_t l = ccl;
        for (size_t k = 0; k < cc[i].n && rc == TM_OK; k++) {
            uint64_t d = cc[i].v[k];
            if (d < s64) {
                b_wait(t, s64);
                b_br(g, t, 0, TMC_IJUMP, 2, 1, l + 16);
                l += 16;
            }
            b_wait(t, d);
            b_br(g, t, 0, TMC_IJUMP, 2, 1, l + 16);
            l += 16;
        }
        b_wait(t, s64);
        b_br(g, t, 0, TMC_IJUMP, 2, 1, head);
    }
    /* Loops learned by gshare, once no thread runs the above any more. */
    barrier(g, slot(g, 64));
    for (uint32_t i = 0; i < g->np && rc == TM_OK; i++) {
        dthr *t = &g->t[i];
        uint64_t head = t->pc, step = slot(g, 24);
        b_wait(t, 24 * (uint64_t)i); /* staggered like the starts */
        for (unsigned j = 1; j <= 12; j++)
            for (int v = 0; v < 2; v++) {
                uint64_t k = v ? (1ULL << j) + 20 : (1ULL << j) - 1;
                b_wait(t, step);
                b_loop(g, t, k, step, 3);
                b_wait(t, step);
                b_br(g, t, 3, TMC_COND, 2, 0, head);  /* the exit */
                b_br(g, t, 0, TMC_JUMP, 2, 1, head);  /* back to the head */
            }
        if (alone) {
            b_wait(t, slot(g, 64));
            b_exit(g, t, 0);
        }
    }
    free(mem);
    free(sl);
    return rc;
}

/* ---- ras ---- */

/* N returns without calls from the pc (a fresh landing area), each to a
 * fresh address, the last to FINAL. */
static void ras_unmatched(dctx *g, dthr *t, unsigned n, uint64_t final, uint64_t sl)
{
    for (unsigned k = 0; k < n; k++) {
        uint64_t nx = k + 1 < n ? (t->land += 16) : final;
        b_wait(t, sl);
        b_br(g, t, 1, TMC_RET, 1, 1, nx);
    }
}

/* Recursion of depth D of function F (direct self-calls) from the driver at
 * DRV (the pc); back at DRV afterwards.  With ESCAPE, the deepest frame is
 * left by an exception to ESCAPE instead of returning. */
static void ras_rec_f(dctx *g, dthr *t, uint64_t drv, uint64_t f, unsigned d, uint64_t escape,
                      uint64_t sl)
{
    b_wait(t, sl);
    b_br(g, t, 2, TMC_CALL, 5, 1, f);                  /* drv+8, returns to drv+13 */
    for (unsigned k = 0; k < d; k++) {
        b_wait(t, sl);
        b_br(g, t, 3, TMC_COND, 2, 0, f + 40);         /* f+12: not the base case */
        b_wait(t, sl);
        b_br(g, t, 0, TMC_CALL, 5, 1, f);              /* f+14, returns to f+19 */
    }
    if (escape) {
        b_wait(t, sl);
        b_goto(g, t, escape);
        return;
    }
    b_wait(t, sl);
    b_br(g, t, 3, TMC_COND, 2, 1, f + 40);             /* base case */
    b_wait(t, sl);
    b_br(g, t, 1, TMC_RET, 1, 1, d ? f + 19 : drv + 13); /* f+44 */
    for (unsigned k = 0; k < d; k++) {
        b_wait(t, sl);
        b_br(g, t, 2, TMC_RET, 1, 1, k + 1 < d ? f + 19 : drv + 13); /* f+27 */
    }
    b_wait(t, sl);
    b_br(g, t, 1, TMC_JUMP, 2, 1, drv);                /* drv+17 */
}

/* The same through icall: G calls itself indirectly. */
static void ras_rec_g(dctx *g, dthr *t, uint64_t drv, uint64_t gf, unsigned d, uint64_t sl)
{
    b_wait(t, sl);
    b_br(g, t, 1, TMC_CALL, 5, 1, gf);                 /* drv+4, returns to drv+9 */
    for (unsigned k = 0; k < d; k++) {
        b_wait(t, sl);
        b_br(g, t, 2, TMC_COND, 2, 0, gf + 40);        /* g+8 */
        b_wait(t, sl);
        b_br(g, t, 0, TMC_ICALL, 3, 1, gf);            /* g+10, returns to g+13 */
    }
    b_wait(t, sl);
    b_br(g, t, 2, TMC_COND, 2, 1, gf + 40);
    b_wait(t, sl);
    b_br(g, t, 2, TMC_RET, 1, 1, d ? gf + 13 : drv + 9); /* g+48 */
    for (unsigned k = 0; k < d; k++) {
        b_wait(t, sl);
        b_br(g, t, 1, TMC_RET, 1, 1, k + 1 < d ? gf + 13 : drv + 9); /* g+17 */
    }
    b_wait(t, sl);
    b_br(g, t, 1, TMC_JUMP, 2, 1, drv);                /* drv+13 */
}

static int sc_ras(dctx *g, int alone)
{
    static const uint64_t depths[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 30, 31, 32,
                                      33, 34, 40, 47, 48, 63, 64, 65, 100};
    static const unsigned gdepths[] = {5, 33, 40, 64};
    const size_t nd = sizeof depths / sizeof depths[0];
    for (uint32_t i = 0; i < g->np; i++) {
        dthr *t = &g->t[i];
        uint64_t base = region(PH_RAS, i);
        uint64_t drv = base, drv2 = base + 0x100, f = base + 0x1000, gf = base + 0x2000;
        uint64_t sl = slot(g, 48);
        uint64_t order[sizeof depths / sizeof depths[0]];
        memcpy(order, depths, sizeof order);
        shuffle(&t->rng, order, nd);
        t->land = base + 0x10000;
        enter(g, t, alone, 1 + 24 * (uint64_t)i, t->land);
        ras_unmatched(g, t, 6, drv, sl);              /* empty RAS */
        for (size_t k = 0; k < nd; k++)
            ras_rec_f(g, t, drv, f, (unsigned)order[k], 0, sl);
        /* the whole RAS popped: more returns without calls */
        b_wait(t, sl);
        b_goto(g, t, t->land += 16);
        ras_unmatched(g, t, 4, drv, sl);
        /* a recursion left by an exception: stale entries, then returns
         * that match none of them */
        ras_rec_f(g, t, drv, f, 20, t->land += 16, sl);
        ras_unmatched(g, t, 3, drv, sl);
        ras_rec_f(g, t, drv, f, 40, 0, sl);
        /* recursion through icall */
        b_wait(t, sl);
        b_goto(g, t, drv2);
        for (size_t k = 0; k < sizeof gdepths / sizeof gdepths[0]; k++)
            ras_rec_g(g, t, drv2, gf, gdepths[k], sl);
        if (alone) {
            b_wait(t, sl);
            b_exit(g, t, 0);
        }
    }
    return TM_OK;
}

/* ---- ibtb ---- */

#define IB_PIR 0x1555u       /* the PIR after the normalizing ijumps (13 bits) */
#define IB_NSITES 10

/* Site pcs relative to the region, all in one set (returned; the set for
 * 8, 16 and 32 sets is its low 3, 4, 5 bits) with distinct tags, such that
 * the six normalizing ijumps after a site never use that set (with 8 sets
 * or more).  Sets whose low 3 bits are 5 are skipped: the normalizing
 * ijumps use them once the PIR is 0x1555.  Returns the set, or -1. */
static int ib_sites(uint64_t *off, unsigned max)
{
    for (uint32_t set = 0; set < 32; set++) {
        if ((set & 7) == ((IB_PIR >> 8) & 7))
            continue;
        unsigned n = 0;
        for (uint64_t m = 0; m < 256 && n < max; m++) {
            uint64_t s = SUB(2) + m * 1024 + ((uint64_t)((set ^ (IB_PIR >> 8)) & 31) << 4);
            uint32_t p = (uint32_t)((((uint64_t)IB_PIR << 2) ^ (s >> 4)) | 1) & 0x1FFF;
            int ok = 1;
            for (int k = 0; k < 6; k++) {
                if (((p >> 8) & 7) == (set & 7))
                    ok = 0;
                p = ((p << 2) | 1) & 0x1FFF;
            }
            if (ok)
                off[n++] = s;
        }
        if (n == max)
            return (int)set;
    }
    return -1;
}

typedef struct ibsite {
    uint64_t pc;
    int icall;
    unsigned ntgt;  /* targets (cycled through) */
    unsigned next;
    uint64_t tgt0;  /* targets: tgt0 + 64 j */
} ibsite;

/* One access: the six normalizing ijumps from NORM (the pc), the site, the
 * target's code and back to NORM. */
static void ib_access(dctx *g, dthr *t, uint64_t norm, ibsite *s, uint64_t sl)
{
    for (int k = 1; k <= 6; k++) {
        b_wait(t, sl);
        b_br(g, t, 0, TMC_IJUMP, 2, 1, k < 6 ? norm + ((uint64_t)k << 17) : s->pc);
    }
    uint64_t tg = s->tgt0 + 64 * (uint64_t)s->next;
    s->next = (s->next + 1) % s->ntgt;
    b_wait(t, sl);
    if (s->icall) {
        b_br(g, t, 0, TMC_ICALL, 3, 1, tg);
        b_wait(t, sl);
        b_br(g, t, 2, TMC_RET, 1, 1, s->pc + 3);
        b_wait(t, sl);
        b_br(g, t, 1, TMC_JUMP, 2, 1, norm);
    } else {
        b_br(g, t, 0, TMC_IJUMP, 2, 1, tg);
        b_wait(t, sl);
        b_br(g, t, 2, TMC_JUMP, 2, 1, norm);
    }
}

static int sc_ibtb(dctx *g, int alone)
{
    uint64_t off[IB_NSITES];
    if (ib_sites(off, IB_NSITES) < 0)
        return TM_ERR_STATE; /* cannot happen: set 0 has enough */
    enum { A, B, C, D, E, M, P, Q, R, Z };
    for (uint32_t i = 0; i < g->np; i++) {
        dthr *t = &g->t[i];
        /* the normalizing ijumps are at norm + k 2^17, k = 0..5: their
         * pc >> 4 is 0 mod 2^13 */
        uint64_t base = region(PH_IBTB, i), norm = base + SUB(1) + (1ULL << 17);
        ibsite s[IB_NSITES];
        for (int k = 0; k < IB_NSITES; k++)
            s[k] = (ibsite){base + off[k], k >= P && k <= R, 1, 0,
                            base + SUB(3) + (uint64_t)k * 4096};
        s[M].ntgt = 5;
        s[R].ntgt = 3;
        uint64_t sl = slot(g, 96);
        enter(g, t, alone, 1 + 24 * (uint64_t)i, norm);
        for (int r = 0; r < 12; r++) {     /* two keys: both ways hit */
            ib_access(g, t, norm, &s[A], sl);
            ib_access(g, t, norm, &s[B], sl);
        }
        for (int r = 0; r < 10; r++)       /* three keys in turn: LRU replacement */
            for (int k = A; k <= C; k++)
                ib_access(g, t, norm, &s[k], sl);
        for (int r = 0; r < 8; r++) {      /* A stays, D and E share the other way */
            ib_access(g, t, norm, &s[A], sl);
            ib_access(g, t, norm, &s[D], sl);
            ib_access(g, t, norm, &s[A], sl);
            ib_access(g, t, norm, &s[E], sl);
        }
        for (int r = 0; r < 15; r++) {     /* five targets at one site */
            ib_access(g, t, norm, &s[M], sl);
            ib_access(g, t, norm, &s[A], sl);
        }
        for (int r = 0; r < 8; r++) {      /* icall sites */
            ib_access(g, t, norm, &s[P], sl);
            ib_access(g, t, norm, &s[Q], sl);
        }
        for (int r = 0; r < 9; r++)
            ib_access(g, t, norm, &s[R], sl);
        for (int r = 0; r < 5; r++) {
            ib_access(g, t, norm, &s[P], sl);
            ib_access(g, t, norm, &s[R], sl);
            ib_access(g, t, norm, &s[Q], sl);
        }
        for (int r = 0; r < 10; r++)       /* one key, one target: hits */
            ib_access(g, t, norm, &s[Z], sl);
        if (alone) {
            b_wait(t, sl);
            b_exit(g, t, 0);
        }
    }
    return TM_OK;
}

/* ---- samecycle ---- */

static int sc_samecycle(dctx *g, int alone, unsigned bursts)
{
    static const unsigned lens[] = {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64};
    static const uint8_t forced[K_N] = {[K_EXC] = 5, [K_IJUMP] = 4, [K_RETUF] = 2};
    static const uint8_t mix[K_N] = {[K_EXC] = 30, [K_IJUMP] = 25, [K_RETUF] = 10, [K_CONDT] = 15,
                                     [K_CONDNT] = 5, [K_JUMP] = 5, [K_NONE] = 5};
    for (uint32_t i = 0; i < g->np; i++) {
        dthr *t = &g->t[i];
        uint64_t base = region(PH_SAMECYCLE, i) + SUB(1);
        ch_init(t, base);
        enter(g, t, alone, 1, base);  /* alone: every SYNC(START) in cycle 1 */
    }
    uint64_t gap = 64 * (uint64_t)g->n + 64;
    for (unsigned b = 0; b < bursts; b++) {
        barrier(g, gap);
        unsigned len = lens[b % (sizeof lens / sizeof lens[0])];
        for (unsigned c = 0; c < len; c++)
            for (uint32_t i = 0; i < g->np; i++)
                ch_block(g, &g->t[i], ch_pick(&g->t[i], c < 2 ? forced : mix));
    }
    if (alone) {
        barrier(g, gap);
        for (uint32_t i = 0; i < g->np; i++)
            b_exit(g, &g->t[i], 0);
    }
    return TM_OK;
}

/* ---- overflow ---- */

/* LATE0: the first thread that starts late (threads LATE0 .. n-1). */
static int sc_overflow(dctx *g, int alone, uint32_t late0)
{
    static const uint8_t mix[K_N] = {[K_EXC] = 20, [K_IJUMP] = 20, [K_CONDT] = 15, [K_CONDNT] = 10,
                                     [K_RETUF] = 10, [K_CALL] = 8, [K_ICALL] = 4, [K_RET] = 8,
                                     [K_JUMP] = 5};
    uint64_t t0 = 0;
    if (!alone) {
        barrier(g, slot(g, 160));
        t0 = g->t[0].cyc + g->t[0].wait;
    }
    for (uint32_t i = 0; i < g->n; i++) {
        dthr *t = &g->t[i];
        int late = i >= late0;
        if (!alone && i >= g->np && !late)
            continue;
        uint64_t base = region(PH_OVERFLOW, i) + SUB(1);
        ch_init(t, base);
        if (late || alone) {
            uint64_t c = late ? t0 + 300 + 200 * (uint64_t)(i - late0) : 1 + i;
            b_start(g, t, c, base, (i % 4 == 1) ? TMC_START_TRACE_ON : 0);
        } else {
            b_wait(t, 1);
            b_goto(g, t, base);
        }
        unsigned groups = late ? 1500 : (i == 0 && g->n > 1) ? 1000 : 3000;
        for (unsigned k = 0; k < groups; k++) {
            if (k && k % 150 == 0)
                b_wait(t, 30 + gen_below(&t->rng, 271));
            ch_block(g, t, ch_pick(t, mix));
        }
        if (g->n == 1 || i % 3 == 0)
            b_exit(g, t, 0);
        else if (i % 3 == 1)
            b_exit(g, t, TMC_EXIT_TRACE_OFF);
        /* i % 3 == 2: no EXIT, the end-of-stream flush ends it */
    }
    return TM_OK;
}

/* ---- idle ---- */

static int sc_idle(dctx *g, int alone)
{
    static const uint8_t mix[K_N] = {[K_EXC] = 8, [K_IJUMP] = 10, [K_CONDT] = 15, [K_CONDNT] = 25,
                                     [K_CALL] = 10, [K_RET] = 10, [K_JUMP] = 10, [K_NONE] = 12};
    uint64_t idle[12];
    for (unsigned k = 0; k < 12; k++) {
        /* 10^(4 + 2k/11), exactly 10^4 and 10^6 at the ends */
        double x = 1e4;
        for (unsigned j = 0; j < 2 * k; j++)
            x *= 1.2328467394420659; /* 10^(1/11) */
        idle[k] = k == 0 ? 10000 : k == 11 ? 1000000 : (uint64_t)(x + 0.5);
    }
    for (uint32_t i = 0; i < g->np; i++) {
        dthr *t = &g->t[i];
        uint64_t base = region(PH_IDLE, i) + SUB(1);
        uint64_t order[12];
        memcpy(order, idle, sizeof order);
        shuffle(&t->rng, order, 12);
        ch_init(t, base);
        enter(g, t, alone, 1 + 24 * (uint64_t)i, base);
        uint64_t sp = slot(g, 16);
        for (unsigned k = 0; k < 12; k++) {
            unsigned n = 40 + gen_below(&t->rng, 81);
            for (unsigned j = 0; j < n; j++) {
                b_wait(t, sp * (1 + gen_below(&t->rng, 3)));
                ch_block(g, t, ch_pick(t, mix));
            }
            b_wait(t, order[k]);
        }
        if (alone)
            b_exit(g, t, 0);
    }
    return TM_OK;
}

/* ---- tswrap ---- */

static void ts_msg(dctx *g, dthr *t, unsigned k)
{
    static const unsigned kinds[3] = {K_IJUMP, K_EXC, K_RETUF};
    ch_block(g, t, kinds[k % 3]);
}

static int sc_tswrap(dctx *g, int alone)
{
    static const uint64_t gaps[] = {(1ULL << 16) - 1, 1ULL << 16, (1ULL << 16) + 1,
                                    (1ULL << 17) + 3, 3ULL << 16, (1ULL << 20) - 1,
                                    1ULL << 20, (1ULL << 20) + 1, (1ULL << 21) + 5};
    const size_t ng = sizeof gaps / sizeof gaps[0];
    uint64_t sl = slot(g, 48);
    for (uint32_t i = 0; i < g->np; i++) {
        dthr *t = &g->t[i];
        uint64_t base = region(PH_TSWRAP, i) + SUB(1);
        uint64_t order[sizeof gaps / sizeof gaps[0]];
        memcpy(order, gaps, sizeof order);
        shuffle(&t->rng, order, ng);
        ch_init(t, base);
        int late = alone && g->n > 1 && i == g->n - 1;
        enter(g, t, alone, late ? (1ULL << 20) + 3 : 1 + 24 * (uint64_t)i, base);
        unsigned m = 0;
        if (alone && i == 0) {
            static const uint64_t at[] = {(1ULL << 16) - 1, 1ULL << 16, (1ULL << 16) + 1,
                                          (1ULL << 20) - 1, 1ULL << 20, (1ULL << 20) + 1};
            for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
                b_wait(t, at[k] - t->cyc);
                ts_msg(g, t, m++);
            }
        }
        for (size_t k = 0; k < ng; k++) {
            b_wait(t, order[k]);
            ts_msg(g, t, m++);
            for (unsigned j = 0; j < 3; j++) { /* a few short gaps in between */
                b_wait(t, sl * (1 + j));
                ts_msg(g, t, m++);
            }
        }
        b_wait(t, (1ULL << 20) + 7);
        if (alone)
            b_exit(g, t, 0);
        else
            ts_msg(g, t, m++);
    }
    return TM_OK;
}

/* ---- running the scripts ---- */

static int put(tmc_writer *w, const tmc_record *r, char *err, size_t errlen)
{
    int rc = tmc_writer_put(w, r);
    if (rc < 0)
        snprintf(err, errlen, "%s", tmc_writer_error(w));
    return rc < 0 ? rc : TM_OK;
}

static int emit(dctx *g, tmc_writer *w, uint32_t tid, dthr *t, char *err, size_t errlen)
{
    const dop *o = &t->op[t->ip];
    uint64_t cyc = t->icyc;
    int rc = TM_OK;
    if (o->nplain) {
        tmc_record *r = &g->rrun;
        r->tid = tid;
        r->cycle = cyc;
        r->pc = t->ipc;
        r->count = o->nplain;
        r->bytes = (uint64_t)o->nplain * PLEN;
        rc = put(w, r, err, errlen);
    }
    uint64_t pc = t->ipc;
    uint64_t at = grp_next(o, &pc);
    if (!rc && o->ev != DEV_NONE) {
        tmc_record *r = &g->rev;
        r->tid = tid;
        r->cycle = cyc;
        r->flags = o->flags;
        r->pc = at;
        switch (o->ev) {
        case DEV_START:
            r->type = TMC_START;
            r->pc = o->target;
            break;
        case DEV_EXIT:
            r->type = TMC_EXIT;
            break;
        case DEV_EXC:
            r->type = TMC_EXC;
            r->target = o->target;
            break;
        default:
            r->type = TMC_BRANCH;
            r->target = o->rel ? at + o->target : o->target;
            r->bclass = o->bclass;
            r->taken = o->taken;
            r->len = o->blen;
            r->flags = 0;
            break;
        }
        rc = put(w, r, err, errlen);
    }
    t->ipc = pc;
    if (++t->rep < o->reps) {
        t->icyc += o->step;
    } else {
        t->rep = 0;
        if (++t->ip < t->nop)
            t->icyc += t->op[t->ip].wait;
    }
    return rc;
}

static int run_scripts(dctx *g, tmc_writer *w, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < g->n; i++) {
        dthr *t = &g->t[i];
        t->ip = 0;
        t->rep = 0;
        t->ipc = 0;
        t->icyc = t->nop ? t->op[0].wait : 0;
        if (t->nop && t->op[0].ev != DEV_START) {
            snprintf(err, errlen, "thread %u: script does not begin with START", i);
            return TM_ERR_STATE;
        }
    }
    for (;;) {
        uint32_t best = g->n;
        for (uint32_t i = 0; i < g->n; i++) {
            const dthr *t = &g->t[i];
            if (t->ip < t->nop && (best == g->n || t->icyc < g->t[best].icyc))
                best = i;
        }
        if (best == g->n)
            return TM_OK;
        int rc = emit(g, w, best, &g->t[best], err, errlen);
        if (rc)
            return rc;
    }
}

/* ---- public API ---- */

void tm_gen_directed_default(tm_gen_directed_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->kind = TM_GEN_DIR_CHUNKS;
    c->threads = TM_GEN_DIR_DEFAULT_THREADS;
    c->seed = 1;
}

const char *tm_gen_directed_name(int kind)
{
    return kind >= 0 && kind < TM_GEN_DIR_COUNT ? names[kind] : NULL;
}

int tm_gen_directed_parse(const char *name)
{
    for (int k = 0; k < TM_GEN_DIR_COUNT; k++)
        if (name && !strcmp(name, names[k]))
            return k;
    return -1;
}

const char *tm_gen_directed_names(void)
{
    return "chunks, ras, ibtb, samecycle, overflow, idle, tswrap, all";
}

int tm_gen_directed_check(const tm_gen_directed_cfg *c, char *err, size_t errlen)
{
    char tmp[1];
    if (!err) {
        err = tmp;
        errlen = sizeof tmp;
    }
    if ((int)c->kind < 0 || (int)c->kind >= TM_GEN_DIR_COUNT) {
        snprintf(err, errlen, "--directed: unknown stream %d; allowed %s", (int)c->kind,
                 tm_gen_directed_names());
        return TM_ERR_ARG;
    }
    if (c->threads < 1 || c->threads > TM_GEN_DIR_MAX_THREADS) {
        snprintf(err, errlen, "--threads %u: allowed 1..%u with --directed", c->threads,
                 TM_GEN_DIR_MAX_THREADS);
        return TM_ERR_ARG;
    }
    return TM_OK;
}

static int build(dctx *g, tm_gen_directed kind)
{
    int rc = TM_OK;
    g->np = g->n;
    switch (kind) {
    case TM_GEN_DIR_CHUNKS:
        return sc_chunks(g, 1);
    case TM_GEN_DIR_RAS:
        return sc_ras(g, 1);
    case TM_GEN_DIR_IBTB:
        return sc_ibtb(g, 1);
    case TM_GEN_DIR_SAMECYCLE:
        return sc_samecycle(g, 1, 120);
    case TM_GEN_DIR_OVERFLOW:
        return sc_overflow(g, 1, (g->n + 1) / 2);
    case TM_GEN_DIR_IDLE:
        return sc_idle(g, 1);
    case TM_GEN_DIR_TSWRAP:
        return sc_tswrap(g, 1);
    default:
        break;
    }
    /* all: the phases one after the other; the last of 3+ threads starts
     * in the overflow phase */
    g->np = g->n >= 3 ? g->n - 1 : g->n;
    /* the phases, each after a barrier past the previous one's end */
    static int (*const phase[])(dctx *, int) = {sc_chunks, sc_ras, sc_ibtb, sc_idle, sc_tswrap};
    rc = TM_OK;
    for (size_t k = 0; k < sizeof phase / sizeof phase[0] && !rc; k++) {
        if (k)
            barrier(g, slot(g, 160));
        rc = phase[k](g, 0);
    }
    if (!rc) {
        barrier(g, slot(g, 160));
        rc = sc_samecycle(g, 0, 40);
    }
    if (!rc)
        rc = sc_overflow(g, 0, g->np);
    return rc;
}

int tm_gen_directed_run(const tm_gen_directed_cfg *c, tmc_writer *w, char *err, size_t errlen)
{
    char tmp[1];
    if (!err) {
        err = tmp;
        errlen = sizeof tmp;
    }
    int rc = tm_gen_directed_check(c, err, errlen);
    if (rc)
        return rc;
    dctx g;
    memset(&g, 0, sizeof g);
    g.n = c->threads;
    g.seed = c->seed;
    g.rrun.type = TMC_RUN;
    g.t = calloc(g.n, sizeof *g.t);
    if (!g.t) {
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < g.n; i++)
        gen_rng_seed(&g.t[i].rng, gen_mix(c->seed ^ (0x6469726563746564ULL + (uint64_t)c->kind))
                                       + 0x9E3779B97F4A7C15ULL * (i + 1));
    rc = build(&g, c->kind);
    if (!rc && g.oom)
        rc = TM_ERR_NOMEM;
    if (rc == TM_ERR_NOMEM)
        snprintf(err, errlen, "out of memory");
    else if (rc)
        snprintf(err, errlen, "internal error building the %s stream", names[c->kind]);
    if (!rc)
        rc = run_scripts(&g, w, err, errlen);
    for (uint32_t i = 0; i < g.n; i++)
        free(g.t[i].op);
    free(g.t);
    return rc;
}
