/* tm — seeded synthetic commit streams: executing the program (tm/gen.h).
 *
 * Every thread runs the same static program (gen/prog.c) from one of its
 * driver functions, with its own random streams: one for control flow, one
 * for timing and one for memory addresses and values, so --mem adds memory
 * operands to the same paths: each thread's BRANCH and EXC records and the
 * instructions between them are those of the stream without --mem (the
 * cycles are not: --mem splits groups).  Without --mem the memory code draws
 * nothing and changes nothing.  A thread's state is a position in the
 * program, a call stack of frames (return position, recursion depth, loop
 * counters) and its remaining instruction budget.
 *
 * Groups.  A thread retires at most one group per cycle: the plain
 * instructions up to the end of its current segment (one RUN record), then
 * the segment's control transfer (BRANCH).  A group is cut short, without an
 * event, now and then (a long block retiring over two cycles), by an
 * exception (EXC after the instructions before it) and by the end of the
 * budget (EXIT).
 *
 * Memory operands (--mem).  A plain instruction has at most one memory
 * operand (gen/prog.c); a call's store of its return address and a ret's
 * load of it are the operands of those branches.  The data trace takes at
 * most one memory operand per thread per cycle, so a group holds at most one
 * MEM record: when another operand would follow in it (a second memory
 * instruction, or the operand of the segment's call or ret), the group ends
 * right after its first memory instruction (RUN up to and including that
 * instruction, then its MEM) and the thread goes on with the rest of the
 * segment in its next group.  A call or ret thus retires in a group whose
 * only MEM is its own, after the segment's earlier operands were split off;
 * an EXC or EXIT group holds one MEM at most like any other.  A group's
 * addresses and values are computed when it is written, in the stream's
 * global (cycle, tid) order, so loads see every store earlier in the
 * stream (gen/mem.c), another thread's included.
 *
 * Exceptions.  After a random number of instructions (uniform in
 * 1 .. 2 / exc_rate, so exc_rate per instruction on average) the thread takes
 * an EXC to one of the handler functions; it pushes a handler frame holding
 * the interrupted position.  The handler runs a few blocks (it may call
 * leaves) and ends in an ijump (an iret) whose target is the interrupted pc;
 * that resumes the thread in the middle of the segment it left.  Exceptions
 * are masked inside a handler.
 *
 * Timing.  A thread's next group retires n x CPI cycles after its previous
 * one (at least 1; fractions carry over), n being the instructions of that
 * next group and CPI per thread in 0.5 .. 2, drawn again now and then; plus a
 * stall of 5..204 cycles in one group of 32, and an idle stretch of
 * 1000..20999 cycles in one group of 16384 (a thread idles about a tenth of
 * the time).  With --mem the groups a segment is split into share its
 * cycles: each retires n x CPI cycles after the previous one, at least 1,
 * a cycle taken beyond that share being paid back by the segment's later
 * groups (a negative carry, forgiven when a group ends other than at a
 * memory operand); the stalls, idle stretches, CPI changes and two-cycle
 * cuts are drawn only for groups that do not continue a segment after a
 * memory operand, so they come per segment as without --mem.  Lockstep
 * windows (L cycles every P, both drawn from the seed) make every running
 * thread retire a group in each cycle of the window, so all threads retire
 * events (with --mem: most often memory operands) in the same cycles there.
 * Threads are merged in (cycle, tid) order with a heap keyed
 * (cycle << 10 | tid); streams average under 10 cycles per instruction, so
 * even the largest budget stays far below the 2^54 cycles the key holds
 * (checked all the same).
 *
 * Recursion.  A call from outside a recursive function draws its depth,
 * uniform in 0 .. recursion, or the maximum with probability 1/4 and on the
 * thread's first such call; each self-call has one level less and the
 * function stops recursing at 0.  The return addresses are the callers' (the
 * segment after the call), so a RAS predicts every return it still holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/grow.h"
#include "tm/gen.h"
#include "gen_int.h"

#define MAX_INSNS 1000000000000ULL
#define MAX_RECURSION 10000u
#define MAX_EXC_RATE 0.1
#define PROGRESS_STEP (1ULL << 20)

void tm_gen_cfg_default(tm_gen_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->threads = 1;
    c->insns = 1000000;
    c->seed = 1;
    c->mem = 0;
    c->predictability = 0.9;
    c->exc_rate = 1e-4;
    c->recursion = 40;
}

int tm_gen_cfg_check(const tm_gen_cfg *c, char *err, size_t errlen)
{
    char tmp[1];
    if (!err) {
        err = tmp;
        errlen = sizeof tmp;
    }
    if (c->threads < 1 || c->threads > TMC_MAX_THREADS) {
        snprintf(err, errlen, "--threads %u: allowed 1..%u", c->threads, TMC_MAX_THREADS);
        return TM_ERR_ARG;
    }
    if (c->insns < 1 || c->insns > MAX_INSNS) {
        snprintf(err, errlen, "--insns %llu: allowed 1..%llu", (unsigned long long)c->insns, MAX_INSNS);
        return TM_ERR_ARG;
    }
    /* written so that NaN fails too */
    if (!(c->predictability >= 0.0 && c->predictability <= 1.0)) {
        snprintf(err, errlen, "--predictability %g: allowed 0..1", c->predictability);
        return TM_ERR_ARG;
    }
    if (!(c->exc_rate >= 0.0 && c->exc_rate <= MAX_EXC_RATE)) {
        snprintf(err, errlen, "--exc-rate %g: allowed 0..%g", c->exc_rate, MAX_EXC_RATE);
        return TM_ERR_ARG;
    }
    if (c->recursion > MAX_RECURSION) {
        snprintf(err, errlen, "--recursion %u: allowed 0..%u", c->recursion, MAX_RECURSION);
        return TM_ERR_ARG;
    }
    return TM_OK;
}

typedef struct frame {
    gen_pos ret;        /* return (or, for a handler, resume) position */
    uint32_t func;
    uint32_t rec;       /* recursion levels left */
    uint32_t cnt[GEN_MAXNEST];   /* loop iterations done */
    uint32_t trip[GEN_MAXNEST];  /* loop trip count of this entry */
} frame;

enum { T_NEW, T_RUN, T_DONE };

typedef struct thr {
    gen_rng rc, rt, rm;  /* control flow, timing, memory */
    uint64_t cycle;      /* cycle of the next group */
    uint64_t left;       /* instructions still to retire */
    uint64_t exc_cd;     /* instructions before the next exception */
    gen_pos pos;
    frame *fr;
    uint32_t depth;
    size_t cap;
    uint32_t cpi;        /* cycles per instruction, 8.8 fixed point */
    int32_t cacc;        /* fraction of a cycle carried, 8.8 fixed point; with
                            --mem negative while a segment's groups owe cycles */
    uint64_t prev_ind;   /* pc of the last ijump/icall */
    uint32_t *mst;       /* per-operand stream counters */
    uint64_t stack_top, priv;
    uint64_t wbase;      /* start of the lockstep period of the last cycle */
    uint32_t hist;       /* outcomes of the last cond branches, latest in bit 0 */
    uint8_t state, in_handler, rec_called;
    uint8_t cont;        /* --mem: the last group ended at a memory operand */
} thr;

typedef struct gctx {
    const tm_gen_cfg *cfg;
    gen_prog prog;
    gen_mem mem;
    int use_mem;
    thr *thr;
    uint64_t *heap;      /* (cycle << 10) | tid */
    uint32_t nheap;
    tmc_writer *w;
    tmc_record r_run, r_br, r_mem, r_start, r_exit, r_exc;
    uint32_t ring_head[GEN_NRING], ring_tail[GEN_NRING];
    uint64_t exc_span;   /* 0 = no exceptions */
    uint64_t win_period, win_len;
    uint64_t done, total, next_progress, reported;
    void (*progress)(uint64_t, uint64_t, void *);
    void *progress_arg;
    char *err;
    size_t errlen;
} gctx;

static int put(gctx *g, const tmc_record *r)
{
    int rc = tmc_writer_put(g->w, r);
    if (rc < 0)
        snprintf(g->err, g->errlen, "%s", tmc_writer_error(g->w));
    return rc < 0 ? rc : TM_OK;
}

static int nomem(gctx *g)
{
    snprintf(g->err, g->errlen, "out of memory");
    return TM_ERR_NOMEM;
}

/* ---- memory operands ---- */

static uint64_t stack_area(const thr *t, uint32_t frame_index)
{
    return t->stack_top - (uint64_t)GEN_FRAME * (frame_index + 1);
}

static uint64_t mem_addr(gctx *g, thr *t, const gen_mtpl *m)
{
    uint64_t base = m->shared ? GEN_SHARED_BASE : t->priv;
    uint64_t i;
    switch (m->kind) {
    case MK_STACK:
        return stack_area(t, t->depth - 1) + m->off;
    case MK_PROD:
        i = g->ring_head[m->ring]++ % GEN_RING_SLOTS;
        return GEN_RING_BASE + (uint64_t)m->ring * GEN_RING_SLOTS * 16 + i * 16;
    case MK_CONS:
        i = g->ring_tail[m->ring]++ % GEN_RING_SLOTS;
        return GEN_RING_BASE + (uint64_t)m->ring * GEN_RING_SLOTS * 16 + i * 16;
    case MK_LOOP:
        i = t->fr[t->depth - 1].cnt[m->loop];
        break;
    case MK_STREAM:
        i = t->mst[m->slot]++;
        break;
    default:
        i = gen_rng_next(&t->rm) >> 40;
        break;
    }
    return base + m->base + ((i * m->stride) & m->mask) + m->off;
}

/* One MEM record: a store writes fresh bytes, a load reads memory. */
static int mem_op(gctx *g, thr *t, uint32_t tid, uint64_t cycle, uint64_t addr, unsigned size, int store,
                  unsigned vkind)
{
    tmc_record *r = &g->r_mem;
    r->tid = tid;
    r->cycle = cycle;
    r->flags = store ? TMC_MEM_STORE : 0;
    r->size = (uint8_t)size;
    r->addr = addr;
    if (store) {
        for (unsigned k = 0; k < size; k += 8) {
            uint64_t v = gen_rng_next(&t->rm);
            switch (vkind) {
            case VK_SMALL: v &= 0xFF; break;
            case VK_PTR: v = t->priv + (v & (GEN_PRIV_SIZE - 8)); break;
            case VK_DOUBLE: v = (0x3FFULL + (v & 7)) << 52 | (v >> 8 & 0xFF) << 44; break;
            default: break;
            }
            for (unsigned j = 0; j < 8 && k + j < size; j++)
                r->value[k + j] = (uint8_t)(v >> (8 * j));
        }
        if (gen_mem_write(&g->mem, addr, size, r->value))
            return nomem(g);
    } else if (gen_mem_read(&g->mem, addr, size, r->value)) {
        return nomem(g);
    }
    return put(g, r);
}

static int ret_slot_op(gctx *g, thr *t, uint32_t tid, uint64_t cycle, uint32_t caller, int store, uint64_t ra)
{
    uint64_t addr = stack_area(t, caller) + GEN_RET_SLOT;
    if (!store)
        return mem_op(g, t, tid, cycle, addr, 8, 0, VK_RAND);
    tmc_record *r = &g->r_mem;
    r->tid = tid;
    r->cycle = cycle;
    r->flags = TMC_MEM_STORE;
    r->size = 8;
    r->addr = addr;
    for (unsigned j = 0; j < 8; j++)
        r->value[j] = (uint8_t)(ra >> (8 * j));
    if (gen_mem_write(&g->mem, addr, 8, r->value))
        return nomem(g);
    return put(g, r);
}

/* ---- control flow ---- */

static int push(gctx *g, thr *t, uint32_t func, gen_pos ret, uint32_t rec)
{
    if (TM_GROW(t->fr, t->cap, (size_t)t->depth + 1) != TM_OK)
        return nomem(g);
    frame *f = &t->fr[t->depth++];
    memset(f, 0, sizeof *f);
    f->func = func;
    f->ret = ret;
    f->rec = rec;
    return TM_OK;
}

/* Recursion depth for a call of FUNC from frame CALLER. */
static uint32_t rec_depth(gctx *g, thr *t, uint32_t func, const frame *caller)
{
    if (g->prog.func[func].kind != GF_REC)
        return 0;
    if (caller->func == func)
        return caller->rec - 1;
    uint32_t max = g->cfg->recursion;
    if (!t->rec_called || gen_below(&t->rc, 4) == 0) {
        t->rec_called = 1;
        return max;
    }
    return gen_below(&t->rc, max + 1);
}

static uint32_t pick(thr *t, const gen_table *tb)
{
    switch (tb->pick) {
    case GP_PATH:
        return (uint32_t)((gen_mix(t->prev_ind) >> 32) * tb->n >> 32);
    case GP_HOT:
        return gen_below(&t->rc, 32) ? 0 : gen_below(&t->rc, tb->n);
    default:
        return gen_below(&t->rc, tb->n);
    }
}

static void draw_exc(gctx *g, thr *t)
{
    t->exc_cd = g->exc_span ? 1 + gen_rng_next(&t->rc) % g->exc_span : UINT64_MAX;
}

/* Executes the control transfer of segment SI (the thread is at it): writes
 * the call/ret stack operands (with --mem) and the BRANCH record, moves the
 * thread to the next position. */
static int do_branch(gctx *g, thr *t, uint32_t tid, uint64_t cycle, uint32_t si)
{
    const gen_prog *p = &g->prog;
    const gen_seg *s = &p->seg[si];
    frame *f = &t->fr[t->depth - 1];
    uint64_t pc = s->pc + p->off[s->ioff + s->nplain];
    gen_pos next = {si + 1, 0};
    uint64_t target = s->tpc;
    int taken = 1, rc;
    switch (s->beh) {
    case GB_IF_BIAS:
        taken = (gen_rng_next(&t->rc) >> 48) < s->arg;
        break;
    case GB_IF_PATTERN:
        taken = (s->arg >> (f->cnt[s->slot] % s->arg2)) & 1;
        break;
    case GB_IF_HIST:
        taken = (s->arg >> (t->hist & ((1u << s->arg2) - 1))) & 1;
        break;
    case GB_LOOP:
    case GB_LOOP_RAND: {
        uint32_t k = s->arg;
        uint32_t n = ++f->cnt[k];
        if (n == 1)
            f->trip[k] = s->beh == GB_LOOP ? s->arg2 : 1 + gen_below(&t->rc, s->arg2);
        taken = n < f->trip[k];
        if (!taken)
            f->cnt[k] = 0;
        break;
    }
    case GB_REC_BASE:
        taken = f->rec == 0;
        break;
    case GB_JUMP:
        next = s->tgt;
        break;
    case GB_CALL:
    case GB_ICALL: {
        uint32_t callee = s->arg;
        if (s->beh == GB_ICALL) {
            const gen_table *tb = &p->table[s->arg];
            const gen_tent *e = &p->tab[tb->first + pick(t, tb)];
            callee = e->func;
            target = e->pc;
        }
        next = (gen_pos){p->func[callee].seg0, 0};
        if (g->use_mem && (rc = ret_slot_op(g, t, tid, cycle, t->depth - 1, 1, pc + s->blen)))
            return rc;
        if ((rc = push(g, t, callee, (gen_pos){si + 1, 0}, rec_depth(g, t, callee, f))))
            return rc;
        break;
    }
    case GB_SWITCH: {
        const gen_table *tb = &p->table[s->arg];
        const gen_tent *e = &p->tab[tb->first + pick(t, tb)];
        next = e->pos;
        target = e->pc;
        break;
    }
    case GB_RET:
        next = f->ret;
        target = gen_pos_pc(p, next);
        if (g->use_mem && (rc = ret_slot_op(g, t, tid, cycle, t->depth - 2, 0, 0)))
            return rc;
        t->depth--;
        break;
    default: /* GB_RESUME */
        next = f->ret;
        target = gen_pos_pc(p, next);
        t->depth--;
        t->in_handler = 0;
        draw_exc(g, t);
        break;
    }
    if (s->bclass == TMC_IJUMP || s->bclass == TMC_ICALL)
        t->prev_ind = pc;
    if (s->bclass == TMC_COND) {
        t->hist = t->hist << 1 | (uint32_t)taken;
        if (taken)
            next = s->tgt;
    }
    t->pos = next;
    tmc_record *r = &g->r_br;
    r->tid = tid;
    r->cycle = cycle;
    r->pc = pc;
    r->target = target;
    r->bclass = s->bclass;
    r->taken = (uint8_t)taken;
    r->len = s->blen;
    return put(g, r);
}

/* With --mem: does the control transfer of S carry a memory operand of its
 * own (the return-address store of a call, the load of a ret)? */
static int branch_has_mem(const gctx *g, const gen_seg *s)
{
    return g->use_mem && (s->beh == GB_CALL || s->beh == GB_ICALL || s->beh == GB_RET);
}

/* With --mem, a group holds at most one memory operand.  For a thread at
 * plain instruction IDX of segment S that would retire the rest of the
 * segment in one group, returns the length of the group that must end right
 * after the first memory instruction at or after IDX (the instructions up to
 * and including it), or 0 when the rest of the segment fits in one group:
 * no memory instruction, or exactly one and a control transfer without an
 * operand of its own.  *FIRST is set to the first memory operand at or after
 * IDX (or the segment's end of operands). */
static uint32_t mem_cut(const gctx *g, const gen_seg *s, uint32_t idx, const gen_mtpl **first)
{
    const gen_mtpl *m = g->prog.mem + s->mem0, *end = m + s->nmem;
    while (m < end && m->insn < idx)
        m++;
    *first = m;
    if (!g->use_mem || m == end)
        return 0;
    if (m + 1 < end || branch_has_mem(g, s))
        return (uint32_t)m->insn - idx + 1;
    return 0;
}

/* The cycle of the thread's next group (see the timing notes at the top).
 * CONT: the group just written ended at a memory operand (--mem) and the
 * next one continues the same segment: only the CPI model applies, the
 * stalls, idle stretches and CPI changes are drawn once per segment. */
static void schedule(gctx *g, thr *t, uint64_t c, int cont)
{
    const gen_seg *s = &g->prog.seg[t->pos.seg];
    const gen_mtpl *m;
    uint64_t n = mem_cut(g, s, t->pos.idx, &m);
    if (n == 0)
        n = (uint64_t)(s->nplain - t->pos.idx) + 1;
    /* A group retires at least one cycle after the previous one.  Without
     * --mem a group shorter than a cycle just takes one.  With --mem the
     * cycle it takes beyond its share is owed (a negative carry) and paid
     * back by the later groups of the same segment, so the split groups of
     * a segment share its cycles; what is still owed at the segment's end
     * is forgiven. */
    int64_t carry = t->cacc < 0 && !cont ? 0 : t->cacc;
    int64_t acc = (int64_t)n * t->cpi + carry;
    uint64_t d;
    if (g->use_mem && acc < 256) {
        d = 1;
        t->cacc = (int32_t)(acc - 256);
    } else {
        d = (uint64_t)acc >> 8;
        t->cacc = (int32_t)(acc & 255);
    }
    int idle = 0;
    if (!cont) {
        uint64_t r = gen_rng_next(&t->rt);
        if ((r & 0x3FFF) == 0) {
            d += 1000 + (r >> 32) % 20000;
            idle = 1;
        } else if ((r & 0x1F) == 0) {
            d += 5 + (r >> 32) % 200;
        }
        if (((r >> 14) & 0x1FFF) == 0)
            t->cpi = 128 + (uint32_t)((r >> 40) % 385);
    }
    if (d == 0)
        d = 1;
    uint64_t nc = c + d;
    if (!idle) {
        /* wbase = the start of the window period holding c (a division only
         * when c has moved into another period) */
        uint64_t P = g->win_period;
        if (c - t->wbase >= P)
            t->wbase = c / P * P;
        uint64_t w = t->wbase;
        if (w && c + 1 < w + g->win_len)
            nc = c + 1;
        else if (nc > w + P)
            nc = w + P;
    }
    t->cycle = nc;
}

static void progress(gctx *g, uint64_t n)
{
    g->done += n;
    if (g->progress && g->done >= g->next_progress) {
        g->progress(g->done, g->total, g->progress_arg);
        g->reported = g->done;
        g->next_progress = (g->done / PROGRESS_STEP + 1) * PROGRESS_STEP;
    }
}

enum { EV_BRANCH, EV_EXC, EV_EXIT, EV_NONE };

/* Writes thread TID's group of its current cycle. */
static int step(gctx *g, uint32_t tid)
{
    const gen_prog *p = &g->prog;
    thr *t = &g->thr[tid];
    uint64_t c = t->cycle;
    int rc;
    if (t->state == T_NEW) {
        g->r_start.tid = tid;
        g->r_start.cycle = c;
        g->r_start.pc = gen_pos_pc(p, t->pos);
        t->state = T_RUN;
        schedule(g, t, c, 0);
        return put(g, &g->r_start);
    }
    if (t->left == 0) {
        g->r_exit.tid = tid;
        g->r_exit.cycle = c;
        t->state = T_DONE;
        return put(g, &g->r_exit);
    }
    uint32_t si = t->pos.seg, idx = t->pos.idx;
    const gen_seg *s = &p->seg[si];
    uint32_t take = s->nplain - idx;
    int ev = EV_BRANCH;
    if (t->left <= take) {
        take = (uint32_t)t->left;
        ev = EV_EXIT;
    }
    if (!t->in_handler && t->exc_cd <= take) {
        take = (uint32_t)t->exc_cd;
        ev = EV_EXC;
    } else if (ev == EV_BRANCH && !t->cont && take >= 2 && (gen_rng_next(&t->rt) >> 60) == 0) {
        take = 1 + gen_below(&t->rt, take - 1);  /* the block retires over two cycles */
        ev = EV_NONE;
    }
    /* With --mem: at most one MEM record per group, so the group ends right
     * after its first memory instruction if another operand would follow in
     * it (a second memory instruction, or the branch's own operand). */
    const gen_mtpl *m = NULL, *mend = p->mem + s->mem0 + s->nmem;
    int cont = 0;
    if (g->use_mem) {
        uint32_t cut = mem_cut(g, s, idx, &m);
        if (ev != EV_BRANCH)
            cut = m < mend && m->insn < idx + take && m + 1 < mend && m[1].insn < idx + take
                      ? (uint32_t)m->insn - idx + 1
                      : 0;
        if (cut) {
            take = cut;
            ev = EV_NONE;
            cont = 1;
        }
    }
    const uint16_t *off = p->off + s->ioff;
    if (take) {
        tmc_record *r = &g->r_run;
        r->tid = tid;
        r->cycle = c;
        r->pc = s->pc + off[idx];
        r->count = take;
        r->bytes = off[idx + take] - off[idx];
        if ((rc = put(g, r)))
            return rc;
        for (; m && m < mend && m->insn < idx + take; m++)  /* one at most */
            if ((rc = mem_op(g, t, tid, c, mem_addr(g, t, m), m->size, m->store, m->vkind)))
                return rc;
        t->left -= take;
        if (!t->in_handler)
            t->exc_cd -= take;
        t->pos.idx += take;
    }
    uint64_t n = take;
    switch (ev) {
    case EV_BRANCH:
        if ((rc = do_branch(g, t, tid, c, si)))
            return rc;
        t->left--;
        if (!t->in_handler)
            t->exc_cd--;
        n++;
        break;
    case EV_EXC: {
        uint32_t h = p->handler[gen_below(&t->rc, p->nhandler)];
        gen_pos entry = {p->func[h].seg0, 0};
        tmc_record *r = &g->r_exc;
        r->tid = tid;
        r->cycle = c;
        r->pc = gen_pos_pc(p, t->pos);
        r->target = gen_pos_pc(p, entry);
        if ((rc = push(g, t, h, t->pos, 0)))
            return rc;
        t->pos = entry;
        t->in_handler = 1;
        if ((rc = put(g, r)))
            return rc;
        break;
    }
    case EV_EXIT:
        g->r_exit.tid = tid;
        g->r_exit.cycle = c;
        t->state = T_DONE;
        progress(g, n);
        return put(g, &g->r_exit);
    default:
        break;
    }
    progress(g, n);
    t->cont = (uint8_t)cont;
    schedule(g, t, c, cont);
    return TM_OK;
}

/* ---- the (cycle, tid) heap ---- */

static void sift_down(uint64_t *h, uint32_t n, uint32_t i)
{
    uint64_t k = h[i];
    for (;;) {
        uint32_t l = 2 * i + 1;
        if (l >= n)
            break;
        if (l + 1 < n && h[l + 1] < h[l])
            l++;
        if (h[l] >= k)
            break;
        h[i] = h[l];
        i = l;
    }
    h[i] = k;
}

static void heap_init(uint64_t *h, uint32_t n)
{
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(h, n, i);
}

static int setup(gctx *g)
{
    const tm_gen_cfg *c = g->cfg;
    uint32_t n = c->threads;
    gen_rng rs;
    gen_rng_seed(&rs, c->seed ^ 0x74696D696E67ULL);
    g->win_period = 20000 + gen_below(&rs, 40000);
    g->win_len = 16 + gen_below(&rs, 49);
    double span = c->exc_rate > 0 ? 2.0 / c->exc_rate : 0;
    g->exc_span = span >= 1.0 && span < 1e18 ? (uint64_t)span : 0;
    g->r_run.type = TMC_RUN;
    g->r_br.type = TMC_BRANCH;
    g->r_mem.type = TMC_MEM;
    g->r_start.type = TMC_START;
    g->r_exit.type = TMC_EXIT;
    g->r_exc.type = TMC_EXC;

    g->thr = calloc(n, sizeof *g->thr);
    g->heap = calloc(n, sizeof *g->heap);
    if (!g->thr || !g->heap)
        return nomem(g);
    for (uint32_t i = 0; i < n; i++) {
        thr *t = &g->thr[i];
        uint64_t ts = gen_mix(c->seed + 0x9E3779B97F4A7C15ULL * (i + 1));
        gen_rng_seed(&t->rc, ts ^ 0x636F6E74726F6CULL);
        gen_rng_seed(&t->rt, ts ^ 0x74696D65ULL);
        gen_rng_seed(&t->rm, ts ^ 0x6D656D6FULL);
        t->left = c->insns / n + (i < c->insns % n);
        t->cap = 64;
        t->fr = malloc(t->cap * sizeof *t->fr);
        t->mst = calloc(g->prog.nmslot ? g->prog.nmslot : 1, sizeof *t->mst);
        if (!t->fr || !t->mst)
            return nomem(g);
        uint32_t drv = g->prog.driver[i % g->prog.ndriver];
        t->pos = (gen_pos){g->prog.func[drv].seg0, 0};
        int rc = push(g, t, drv, t->pos, 0);
        if (rc)
            return rc;
        t->cpi = 128 + gen_below(&t->rt, 385);
        t->stack_top = GEN_STACK_TOP - (uint64_t)i * GEN_STACK_STRIDE;
        t->priv = GEN_PRIV_BASE + (uint64_t)i * GEN_PRIV_STRIDE;
        draw_exc(g, t);
        /* thread 0 and about a quarter of the others start at cycle 0 */
        t->cycle = (i == 0 || gen_below(&rs, 4) == 0) ? 0 : 1 + gen_below(&rs, 20000);
        g->heap[i] = (t->cycle << 10) | i;
    }
    g->nheap = n;
    heap_init(g->heap, n);
    return TM_OK;
}

static void teardown(gctx *g)
{
    if (g->thr)
        for (uint32_t i = 0; i < g->cfg->threads; i++) {
            free(g->thr[i].fr);
            free(g->thr[i].mst);
        }
    free(g->thr);
    free(g->heap);
    if (g->use_mem)
        gen_mem_free(&g->mem);
    gen_prog_free(&g->prog);
}

int tm_gen_run(const tm_gen_cfg *c, tmc_writer *w,
               void (*progress_cb)(uint64_t done, uint64_t total, void *arg), void *arg,
               char *err, size_t errlen)
{
    char tmp[1];
    if (!err) {
        err = tmp;
        errlen = sizeof tmp;
    }
    int rc = tm_gen_cfg_check(c, err, errlen);
    if (rc)
        return rc;
    gctx g;
    memset(&g, 0, sizeof g);
    g.cfg = c;
    g.w = w;
    g.err = err;
    g.errlen = errlen;
    g.progress = progress_cb;
    g.progress_arg = arg;
    g.total = c->insns;
    g.next_progress = PROGRESS_STEP;
    if (gen_prog_build(&g.prog, c->seed, c->predictability, c->recursion))
        return nomem(&g);
    if (c->mem) {
        if (gen_mem_init(&g.mem, c->seed)) {
            gen_prog_free(&g.prog);
            return nomem(&g);
        }
        g.use_mem = 1;
    }
    rc = setup(&g);
    /* Each step writes the group of the earliest (cycle, tid) and moves that
     * thread to its next group, always at a later cycle. */
    while (!rc && g.nheap) {
        uint32_t tid = (uint32_t)(g.heap[0] & 1023);
        rc = step(&g, tid);
        const thr *t = &g.thr[tid];
        if (!rc && t->cycle >> 54) {
            snprintf(err, errlen, "cycle count beyond 2^54");
            rc = TM_ERR_ARG;
        }
        if (t->state == T_DONE)
            g.heap[0] = g.heap[--g.nheap];
        else
            g.heap[0] = (t->cycle << 10) | tid;
        if (g.nheap)
            sift_down(g.heap, g.nheap, 0);
    }
    if (!rc && progress_cb && g.done != g.reported)
        progress_cb(g.done, g.total, arg);  /* the final count */
    teardown(&g);
    return rc;
}
