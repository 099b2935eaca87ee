/* tm — generator: the static program image.
 *
 * The program is a set of functions at fixed addresses.  Each function is a
 * list of segments laid out back to back: a segment is 0..200 plain
 * instructions (x86-like lengths 1..15 bytes) followed by one control transfer
 * with a fixed class, length and (for direct ones) target.  A branch target
 * is a position (segment, instruction index), so loop heads and join points
 * may fall in the middle of a segment, as in real code.  The fall-through of
 * a cond and the return address of a call are the next segment.
 *
 * Functions have levels: a function calls only functions of higher levels,
 * so the call graph is acyclic except for the self-recursive functions, whose
 * depth the executing thread bounds.  Levels, from the leaves up (counts per
 * program drawn from the seed):
 *   4  24..48 leaves: plain code, ifs, loops, switches; no calls
 *   3  2..4 recursive functions (call leaves and themselves), 2..4 exception
 *      handlers (never called; entered by EXC, left by an ijump to the
 *      interrupted pc) and 12..24 ordinary functions calling leaves
 *   2, 1  8..16 and 4..10 ordinary functions, also with icalls
 *   0  1..4 drivers: an endless loop calling functions of any level; a thread
 *      starts in a driver and never returns from it.
 * Functions are generated leaves first so that each knows the estimated cost
 * (instructions per call) of its callees and keeps its own cost in budget.
 *
 * Branch behaviours (enum gen_beh).  With probability `predictability` a
 * branch is learnable: an if is strongly biased (always, never, 1/64 or 63/64
 * taken), periodic in the enclosing loop's iteration or a function of the
 * thread's last 1..3 cond outcomes (which gshare's history holds); a loop has
 * a fixed trip count; an icall is monomorphic, has a hot target (31 times in
 * 32) or picks its target from the previous indirect branch's pc (which the
 * iBTB's path register holds); a switch has a hot case or a path-determined
 * one.  Otherwise ifs are random with a 0.2..0.8 bias, loops run a random trip
 * count and indirect branches pick uniformly. */
#include <stdlib.h>
#include <string.h>
#include "tm/grow.h"
#include "tm/status.h"
#include "tm/tmc.h"
#include "gen_int.h"

#define MAX_PLAIN 200   /* plain instructions per segment (fits gen_mtpl.insn) */
#define LEAF_LEVEL 4

enum { FIX_SEG, FIX_TAB };

typedef struct fixup {
    uint32_t kind;  /* FIX_SEG: seg[where].tgt; FIX_TAB: tab[where].pos */
    uint32_t where;
    uint32_t lab;
} fixup;

typedef struct pb {
    gen_prog *p;
    /* Three streams, so that predictability changes behaviours only: r draws
     * the shape (functions, blocks, lengths, operands), rl one number per
     * branch to decide whether it is learnable (a higher predictability makes
     * a superset of the branches learnable), rb the behaviours' parameters. */
    gen_rng r, rl, rb;
    uint64_t learn;      /* share of learnable branches, 2^32 = all */
    gen_mtpl rmw;        /* the store of a read-modify-write ... */
    int rmw_pend;        /* ... waiting for an instruction without an operand */
    uint32_t recursion;
    int oom;
    uint32_t capseg, capoff, capmem, captable, captab, capfunc;
    /* the function being built */
    uint32_t fid, level, loops, depth;
    gen_pos *lab;
    uint32_t nlab, caplab;
    fixup *fix;
    uint32_t nfix, capfix;
} pb;

/* Grows *PTR (of *CAP elements) to hold NEED elements; sets b->oom on failure. */
static int reserve(pb *b, void **ptr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    if (b->oom)
        return 0;
    size_t c = *cap;
    if (tm_grow_slow(ptr, &c, need, elem) != TM_OK || c > UINT32_MAX) {
        b->oom = 1;
        return 0;
    }
    *cap = (uint32_t)c;
    return 1;
}

#define RESERVE(b, arr, cap, need) reserve((b), (void **)&(arr), &(cap), (need), sizeof *(arr))

/* ---- instruction lengths ---- */

/* Plain x86 instruction lengths, weighted like compiled code (mostly 2..7). */
static const uint8_t plain_len_tab[64] = {
    1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7,
    7, 7, 7, 8, 8, 8, 9, 9, 10, 10, 11, 12, 13, 14, 15, 15,
};

static uint8_t branch_len(pb *b, unsigned cls)
{
    static const uint8_t icall_len[4] = {2, 3, 6, 7};
    static const uint8_t ijump_len[4] = {2, 3, 4, 7};
    switch (cls) {
    case TMC_COND: return gen_below(&b->r, 8) < 5 ? 2 : 6;
    case TMC_JUMP: return gen_below(&b->r, 2) ? 2 : 5;
    case TMC_CALL: return 5;
    case TMC_ICALL: return icall_len[gen_below(&b->r, 4)];
    case TMC_IJUMP: return ijump_len[gen_below(&b->r, 4)];
    default: return gen_below(&b->r, 16) ? 1 : 3; /* ret, ret imm16 */
    }
}

/* ---- segments, labels ---- */

/* Makes seg[nseg] the open segment (empty). */
static void seg_open(pb *b)
{
    gen_prog *p = b->p;
    if (!RESERVE(b, p->seg, b->capseg, p->nseg + 1) || !RESERVE(b, p->off, b->capoff, p->noff + 1))
        return;
    gen_seg *s = &p->seg[p->nseg];
    memset(s, 0, sizeof *s);
    s->ioff = p->noff;
    s->mem0 = p->nmem;
    s->func = b->fid;
    p->off[p->noff++] = 0;
}

static gen_seg *cur(pb *b) { return &b->p->seg[b->p->nseg]; }

static uint32_t new_label(pb *b)
{
    if (!RESERVE(b, b->lab, b->caplab, b->nlab + 1))
        return 0;
    b->lab[b->nlab] = (gen_pos){0, 0};
    return b->nlab++;
}

/* The label names the next instruction emitted. */
static void place(pb *b, uint32_t lab)
{
    if (b->oom)
        return;
    b->lab[lab] = (gen_pos){b->p->nseg, cur(b)->nplain};
}

static void add_fix(pb *b, uint32_t kind, uint32_t where, uint32_t lab)
{
    if (!RESERVE(b, b->fix, b->capfix, b->nfix + 1))
        return;
    b->fix[b->nfix++] = (fixup){kind, where, lab};
}

/* Closes the open segment with a control transfer and opens the next one.
 * LAB: direct target label, or -1.  Returns the closed segment's index. */
static uint32_t branch(pb *b, unsigned cls, unsigned beh, int64_t lab, uint32_t arg, uint32_t arg2)
{
    if (b->oom)
        return 0;
    gen_prog *p = b->p;
    uint32_t si = p->nseg;
    gen_seg *s = cur(b);
    s->bclass = (uint8_t)cls;
    s->blen = branch_len(b, cls);
    s->beh = (uint8_t)beh;
    s->arg = arg;
    s->arg2 = arg2;
    s->nmem = p->nmem - s->mem0;
    b->rmw_pend = 0;
    if (lab >= 0)
        add_fix(b, FIX_SEG, si, (uint32_t)lab);
    p->nseg++;
    seg_open(b);
    return si;
}

/* ---- memory operand templates ---- */

static const uint8_t odd_sizes[] = {3, 5, 6, 7, 12, 20, 24, 48, 63};

static uint8_t pick_size(pb *b)
{
    uint32_t r = gen_below(&b->r, 100);
    if (r < 9) return 1;
    if (r < 15) return 2;
    if (r < 43) return 4;
    if (r < 82) return 8;
    if (r < 84) return 10;
    if (r < 90) return 16;
    if (r < 94) return 32;
    if (r < 95) return 64;
    return odd_sizes[gen_below(&b->r, sizeof odd_sizes)];
}

static uint32_t pow2_ceil(uint32_t v)
{
    uint32_t k = 1;
    while (k < v)
        k <<= 1;
    return k;
}

/* Appends a template for the open segment's next plain instruction.  KIND,
 * SIZE and STORE are given; the rest is drawn.  MIS forces a misaligned
 * array address (1..63 bytes past an element boundary). */
static gen_mtpl *add_mem(pb *b, unsigned kind, unsigned size, int store, int mis)
{
    gen_prog *p = b->p;
    if (!RESERVE(b, p->mem, b->capmem, p->nmem + 1))
        return NULL;
    gen_mtpl *m = &p->mem[p->nmem++];
    memset(m, 0, sizeof *m);
    m->insn = (uint8_t)cur(b)->nplain;
    m->store = (uint8_t)store;
    m->size = (uint8_t)size;
    m->kind = (uint8_t)kind;
    uint32_t vk = gen_below(&b->r, 20);
    m->vkind = vk < 10 ? VK_SMALL : vk < 15 ? VK_PTR : vk < 18 ? VK_DOUBLE : VK_RAND;
    uint32_t align = size >= 8 ? 8 : pow2_ceil(size);
    switch (kind) {
    case MK_STACK:
        /* Locals below the return-address slot at offset 56. */
        m->off = gen_below(&b->r, (GEN_RET_SLOT - size) / align + 1) * align;
        break;
    case MK_PROD:
    case MK_CONS:
        m->ring = (uint8_t)gen_below(&b->r, GEN_NRING);
        break;
    default: {
        m->shared = gen_below(&b->r, 5) < 2;
        uint32_t region = m->shared ? GEN_SHARED_SIZE : GEN_PRIV_SIZE;
        uint32_t len = 1024u << gen_below(&b->r, 5);
        m->mask = len - 1;
        m->base = gen_below(&b->r, region / len) * len;
        m->stride = pow2_ceil(size);
        uint32_t r = gen_below(&b->r, 8);
        if (r == 0)
            m->stride *= 2 + gen_below(&b->r, 3);  /* array of structs */
        else if (r == 1)
            m->stride = 64 + 8 * gen_below(&b->r, 8);  /* one field per line */
        if (mis || gen_below(&b->r, 12) == 0)
            m->off = 1 + gen_below(&b->r, 63);
        if (kind == MK_STREAM)
            m->slot = p->nmslot++;
        if (kind == MK_LOOP)
            m->loop = (uint8_t)(b->loops - 1);
        break;
    }
    }
    return m;
}

/* Draws the memory operand of one plain instruction (about 30% have one).
 * An instruction has at most one operand: `tm gen --mem` writes at most one
 * MEM record per group, and a group ends after a memory instruction.  So a
 * read-modify-write is compiled as load; op; store: the load here, the store
 * of the same operand on the next instruction of the segment without an
 * operand of its own (none if the segment ends first). */
static void maybe_mem(pb *b)
{
    uint32_t r = gen_below(&b->r, 100);
    if (r >= 30) {
        if (b->rmw_pend && RESERVE(b, b->p->mem, b->capmem, b->p->nmem + 1)) {
            gen_mtpl *m = &b->p->mem[b->p->nmem++];
            *m = b->rmw;
            m->insn = (uint8_t)cur(b)->nplain;
            b->rmw_pend = 0;
        }
        return;
    }
    uint32_t k = gen_below(&b->r, 100);
    unsigned kind;
    if (k < 30) kind = MK_STACK;
    else if (k < 50) kind = b->loops ? MK_LOOP : MK_STREAM;
    else if (k < 62) kind = MK_STREAM;
    else if (k < 82) kind = MK_RAND;
    else if (k < 91) kind = MK_PROD;
    else kind = MK_CONS;
    unsigned size = pick_size(b);
    if (kind == MK_STACK && size > 32)
        kind = MK_RAND;
    if ((kind == MK_PROD || kind == MK_CONS) && size > 16)
        size = 16;
    uint32_t op = gen_below(&b->r, 100);
    if (kind == MK_PROD) {
        add_mem(b, kind, size, 1, 0);
    } else if (kind == MK_CONS) {
        add_mem(b, kind, size, 0, 0);
    } else if (op < 10 && (kind == MK_STACK || kind == MK_LOOP)) {
        /* read-modify-write: load now, store later (see above) */
        gen_mtpl *m = add_mem(b, kind, size, 0, 0);
        if (m) {
            b->rmw = *m;
            b->rmw.store = 1;
            b->rmw_pend = 1;
        }
    } else {
        add_mem(b, kind, size, op < 25, 0);  /* about two loads per store */
    }
}

/* Appends N plain instructions, each maybe with memory operands. */
static uint64_t plain(pb *b, uint32_t n)
{
    gen_prog *p = b->p;
    uint32_t done = 0;
    for (; done < n && !b->oom && cur(b)->nplain < MAX_PLAIN; done++) {
        if (!RESERVE(b, p->off, b->capoff, p->noff + 1))
            break;
        maybe_mem(b);
        uint8_t len = plain_len_tab[gen_below(&b->r, 64)];
        p->off[p->noff] = (uint16_t)(p->off[p->noff - 1] + len);
        p->noff++;
        cur(b)->nplain++;
    }
    return done;
}

/* A typical basic-block length: mostly 1..6, sometimes up to 39. */
static uint32_t plain_count(pb *b)
{
    uint32_t x = gen_below(&b->r, 16);
    if (x < 11)
        return 1 + gen_below(&b->r, 6);
    if (x < 15)
        return 4 + gen_below(&b->r, 10);
    return 10 + gen_below(&b->r, 30);
}

/* ---- functions ---- */

static void func_begin(pb *b, unsigned kind, unsigned level)
{
    gen_prog *p = b->p;
    if (!RESERVE(b, p->func, b->capfunc, p->nfunc + 1))
        return;
    b->fid = p->nfunc++;
    gen_func *f = &p->func[b->fid];
    memset(f, 0, sizeof *f);
    f->seg0 = p->nseg;
    f->kind = kind;
    f->level = level;
    cur(b)->func = b->fid;
    b->level = level;
    b->loops = 0;
    b->depth = 0;
    b->rmw_pend = 0;
    b->nlab = 0;
    b->nfix = 0;
}

static void func_end(pb *b, uint64_t cost)
{
    if (b->oom)
        return;
    gen_prog *p = b->p;
    for (uint32_t i = 0; i < b->nfix; i++) {
        const fixup *x = &b->fix[i];
        if (x->kind == FIX_SEG)
            p->seg[x->where].tgt = b->lab[x->lab];
        else
            p->tab[x->where].pos = b->lab[x->lab];
    }
    gen_func *f = &p->func[b->fid];
    f->nseg = p->nseg - f->seg0;
    f->cost = cost ? cost : 1;
}

/* ---- branch behaviours ---- */

static int learnable(pb *b) { return gen_chance(&b->rl, b->learn); }

/* A cond of an if: with probability `learn` learnable (strongly biased; a
 * periodic pattern of the enclosing loop's iteration, as `if (i % 3 == 0)`;
 * a function of the last 1..3 cond outcomes, which gshare's history holds),
 * else random with a 0.2 .. 0.8 bias. */
static void if_behaviour(pb *b, unsigned *beh, uint32_t *arg, uint32_t *arg2, uint32_t *slot)
{
    *arg2 = 0;
    *slot = 0;
    if (learnable(b)) {
        uint32_t r = gen_below(&b->rb, 8);
        if (r < 4) {
            static const uint32_t bias[4] = {0, 65536, 1024, 65536 - 1024};
            *beh = GB_IF_BIAS;
            *arg = bias[gen_below(&b->rb, 4)];
        } else if (r < 6 && b->loops) {
            uint32_t period = 2 + gen_below(&b->rb, 4);
            uint32_t pat;
            do
                pat = gen_below(&b->rb, 1u << period);
            while (pat == 0 || pat == (1u << period) - 1);
            *beh = GB_IF_PATTERN;
            *arg = pat;
            *arg2 = period;
            *slot = b->loops - 1;
        } else {
            uint32_t k = 1 + gen_below(&b->rb, 3);
            uint32_t tab;
            do
                tab = gen_below(&b->rb, 1u << (1u << k));
            while (tab == 0 || tab == (1u << (1u << k)) - 1);
            *beh = GB_IF_HIST;
            *arg = tab;
            *arg2 = k;
        }
    } else {
        *beh = GB_IF_BIAS;
        *arg = 13107 + gen_below(&b->rb, 39322);  /* 0.2 .. 0.8 */
    }
}

static uint32_t new_table(pb *b, uint32_t n, uint32_t pick)
{
    gen_prog *p = b->p;
    if (!RESERVE(b, p->table, b->captable, p->ntable + 1) || !RESERVE(b, p->tab, b->captab, p->ntab + n))
        return 0;
    gen_table *t = &p->table[p->ntable];
    t->first = p->ntab;
    t->n = n;
    t->pick = pick;
    memset(&p->tab[p->ntab], 0, n * sizeof *p->tab);
    p->ntab += n;
    return p->ntable++;
}

/* Average taken-path cost helper: expected cost of table targets. */
static uint64_t avg_cost(const uint64_t *c, uint32_t n)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += c[i];
    return n ? s / n : 0;
}

/* Functions callable from the current level with cost <= BUDGET. */
static uint32_t callees(pb *b, uint64_t budget, uint32_t *out, uint32_t max)
{
    const gen_prog *p = b->p;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nfunc && n < max; i++) {
        const gen_func *f = &p->func[i];
        if (f->level > b->level && (f->kind == GF_NORMAL || f->kind == GF_REC) && f->cost <= budget &&
            i != b->fid)
            out[n++] = i;
    }
    return n;
}

/* Prefer the next level down (most calls go one level deeper). */
static uint32_t pick_callee(pb *b, const uint32_t *cand, uint32_t n)
{
    const gen_prog *p = b->p;
    if (gen_below(&b->r, 2)) {
        uint32_t near[256], k = 0;
        for (uint32_t i = 0; i < n && k < 256; i++)
            if (p->func[cand[i]].level == b->level + 1)
                near[k++] = cand[i];
        if (k)
            return near[gen_below(&b->r, k)];
    }
    return cand[gen_below(&b->r, n)];
}

static uint64_t stmt_list(pb *b, uint64_t budget, unsigned nmin, unsigned nmax);

static uint64_t stmt_if(pb *b, uint64_t budget)
{
    unsigned beh;
    uint32_t arg, arg2, slot;
    if_behaviour(b, &beh, &arg, &arg2, &slot);
    uint32_t l_else = new_label(b), l_join = new_label(b);
    uint32_t si = branch(b, TMC_COND, beh, l_else, arg, arg2);
    if (!b->oom)
        b->p->seg[si].slot = slot;
    b->depth++;
    uint64_t c_then = stmt_list(b, budget / 2, 1, 2);
    uint64_t cost;
    if (gen_below(&b->r, 2)) {
        branch(b, TMC_JUMP, GB_JUMP, l_join, 0, 0);
        place(b, l_else);
        uint64_t c_else = stmt_list(b, budget / 2, 1, 2);
        place(b, l_join);
        cost = 1 + (c_then + 1 + c_else) / 2;
    } else {
        place(b, l_else);
        cost = 1 + c_then / 2;
    }
    b->depth--;
    return cost;
}

static uint64_t stmt_loop(pb *b, uint64_t budget)
{
    uint32_t slot = b->loops++;
    uint32_t head = new_label(b);
    place(b, head);
    b->depth++;
    uint64_t c = stmt_list(b, budget / 4 > 8 ? budget / 4 : 8, 1, 3) + 1;
    b->depth--;
    b->loops--;
    uint64_t tmax = budget / c;
    if (tmax > 400)
        tmax = 400;
    if (tmax < 2)
        tmax = 2;
    /* T iterations on average: a fixed trip count T (short ones are learnable
     * exactly by gshare) or, for unlearnable loops, uniform in 1 .. 2T - 1. */
    uint32_t trip;
    if (gen_below(&b->r, 5) < 3)
        trip = gen_range(&b->r, 1, tmax < 12 ? (uint32_t)tmax : 12);
    else
        trip = gen_range(&b->r, 2, (uint32_t)tmax);
    if (learnable(b))
        branch(b, TMC_COND, GB_LOOP, head, slot, trip);
    else
        branch(b, TMC_COND, GB_LOOP_RAND, head, slot, 2 * trip - 1);
    return (uint64_t)trip * c;
}

static uint64_t stmt_call(pb *b, uint64_t budget)
{
    uint32_t cand[1024];
    uint32_t n = callees(b, budget, cand, 1024);
    if (!n)
        return plain(b, plain_count(b));
    uint32_t f = pick_callee(b, cand, n);
    uint32_t si = branch(b, TMC_CALL, GB_CALL, -1, f, 0);
    if (!b->oom)
        b->p->seg[si].tgt = (gen_pos){b->p->func[f].seg0, 0};
    return 1 + b->p->func[f].cost;
}

static uint64_t stmt_icall(pb *b, uint64_t budget)
{
    uint32_t cand[1024];
    uint32_t n = callees(b, budget, cand, 1024);
    if (!n)
        return plain(b, plain_count(b));
    /* K callees; a monomorphic call site uses only the first.  The cost is
     * the average over all K whatever the behaviour, so that predictability
     * changes behaviours only, never the shape of the program. */
    uint32_t k = gen_range(&b->r, 2, 8), pick = GP_RAND, used = k;
    if (learnable(b)) {
        uint32_t r = gen_below(&b->rb, 10);
        pick = r < 8 ? GP_HOT : GP_PATH;
        if (r < 5)
            used = 1;  /* monomorphic */
    }
    uint32_t t = new_table(b, k, pick);
    if (b->oom)
        return 0;
    uint64_t c[8];
    gen_table *tb = &b->p->table[t];
    tb->n = used;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t f = pick_callee(b, cand, n);
        gen_tent *e = &b->p->tab[tb->first + i];
        e->pos = (gen_pos){b->p->func[f].seg0, 0};
        e->func = f;
        c[i] = b->p->func[f].cost;
    }
    branch(b, TMC_ICALL, GB_ICALL, -1, t, 0);
    return 1 + avg_cost(c, k);
}

static uint64_t stmt_switch(pb *b, uint64_t budget)
{
    uint32_t k = gen_range(&b->r, 3, 12), pick = GP_RAND;
    if (learnable(b))
        pick = gen_below(&b->rb, 10) < 7 ? GP_HOT : GP_PATH;
    uint32_t t = new_table(b, k, pick);
    uint32_t join = new_label(b);
    branch(b, TMC_IJUMP, GB_SWITCH, -1, t, 0);
    if (b->oom)
        return 0;
    uint32_t first = b->p->table[t].first;
    uint64_t c[12];
    b->depth++;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t l = new_label(b);
        place(b, l);
        add_fix(b, FIX_TAB, first + i, l);
        c[i] = stmt_list(b, budget / k, 1, 2);
        if (i + 1 < k)
            branch(b, TMC_JUMP, GB_JUMP, join, 0, 0);  /* break */
    }
    b->depth--;
    place(b, join);
    return 2 + avg_cost(c, k);
}

/* A list of NMIN..NMAX statements after a few plain instructions (so the list
 * is never empty and a label before it names a real instruction). */
static uint64_t stmt_list(pb *b, uint64_t budget, unsigned nmin, unsigned nmax)
{
    uint64_t cost = plain(b, plain_count(b));
    unsigned n = gen_range(&b->r, nmin, nmax);
    for (unsigned i = 0; i < n && !b->oom; i++) {
        uint64_t left = budget > cost ? budget - cost : 1;
        uint64_t sb = left / (n - i);
        int can_call = b->level < LEAF_LEVEL;
        uint32_t w_if = b->depth < 4 ? 10 : 0;
        uint32_t w_loop = b->loops < GEN_MAXNEST && sb >= 16 ? 6 : 0;
        uint32_t w_call = can_call ? 8 : 0;
        uint32_t w_icall = can_call && b->level <= 2 ? 1 : 0;
        uint32_t w_sw = b->depth < 3 && sb >= 24 ? 1 : 0;
        uint32_t w_plain = 4;
        uint32_t r = gen_below(&b->r, w_if + w_loop + w_call + w_icall + w_sw + w_plain);
        if (r < w_if)
            cost += stmt_if(b, sb);
        else if ((r -= w_if) < w_loop)
            cost += stmt_loop(b, sb);
        else if ((r -= w_loop) < w_call)
            cost += stmt_call(b, sb);
        else if ((r -= w_call) < w_icall)
            cost += stmt_icall(b, sb);
        else if ((r -= w_icall) < w_sw)
            cost += stmt_switch(b, sb);
        else
            cost += plain(b, plain_count(b));
        cost += plain(b, gen_below(&b->r, 3));
    }
    return cost;
}

static void build_normal(pb *b, unsigned level, uint64_t budget)
{
    func_begin(b, GF_NORMAL, level);
    uint64_t c = stmt_list(b, budget, 1, level == LEAF_LEVEL ? 3 : 5);
    c += plain(b, gen_below(&b->r, 3));
    branch(b, TMC_RET, GB_RET, -1, 0, 0);
    func_end(b, c + 1);
}

/*   entry: plain; cond (depth == 0) -> base
 *          body (may call leaves); call self; plain; [if]; ret
 *   base:  plain; [if]; ret                                            */
static void build_recursive(pb *b)
{
    func_begin(b, GF_REC, 3);
    uint32_t self = b->fid;
    plain(b, plain_count(b));
    uint32_t base = new_label(b);
    branch(b, TMC_COND, GB_REC_BASE, base, 0, 0);
    uint64_t c = 1 + stmt_list(b, 60, 0, 2);
    uint32_t si = branch(b, TMC_CALL, GB_CALL, -1, self, 0);
    if (!b->oom)
        b->p->seg[si].tgt = (gen_pos){b->p->func[self].seg0, 0};
    c += 1 + plain(b, plain_count(b));
    if (gen_below(&b->r, 2))
        c += stmt_if(b, 20);
    branch(b, TMC_RET, GB_RET, -1, 0, 0);
    place(b, base);
    uint64_t cb = plain(b, plain_count(b));
    if (gen_below(&b->r, 2))
        cb += stmt_if(b, 20);
    branch(b, TMC_RET, GB_RET, -1, 0, 0);
    /* depth is uniform in 0..recursion (or the maximum): about half of it */
    uint64_t depth = b->recursion / 2 + 1;
    func_end(b, depth * (c + 1) + cb + 1);
}

static void build_handler(pb *b)
{
    func_begin(b, GF_HANDLER, 3);
    stmt_list(b, 80, 1, 3);
    plain(b, 1 + gen_below(&b->r, 3));
    branch(b, TMC_IJUMP, GB_RESUME, -1, 0, 0);
    func_end(b, 1);
}

/* A driver: an endless loop.  Its head holds one memory operand of each
 * interesting kind (sizes 10, 16, 32, 64, odd sizes, line-crossing, ring
 * traffic) and it calls a recursive function directly, then a random list of
 * statements, an icall and a switch, so every branch class and operand kind
 * shows up in any stream of reasonable length. */
static void build_driver(pb *b, uint32_t rec)
{
    func_begin(b, GF_DRIVER, 0);
    uint32_t head = new_label(b);
    place(b, head);
    plain(b, 2);
    b->rmw_pend = 0;  /* the next instructions have operands of their own */
    static const uint8_t forced[][4] = {
        /* kind, size, store, misaligned */
        {MK_STREAM, 10, 1, 0}, {MK_RAND, 10, 0, 0}, {MK_STREAM, 16, 1, 0}, {MK_RAND, 16, 0, 1},
        {MK_STREAM, 32, 0, 0}, {MK_RAND, 32, 1, 1}, {MK_STREAM, 64, 1, 0}, {MK_RAND, 64, 0, 1},
        {MK_STREAM, 3, 1, 1},  {MK_RAND, 7, 0, 1},  {MK_RAND, 12, 1, 1},  {MK_PROD, 8, 1, 0},
        {MK_CONS, 8, 0, 0},    {MK_STACK, 8, 1, 0}, {MK_STACK, 8, 0, 0},
    };
    for (size_t i = 0; i < sizeof forced / sizeof forced[0] && !b->oom; i++) {
        /* the operand belongs to the plain instruction appended next */
        add_mem(b, forced[i][0], forced[i][1], forced[i][2], forced[i][3]);
        gen_prog *p = b->p;
        if (RESERVE(b, p->off, b->capoff, p->noff + 1)) {
            p->off[p->noff] = (uint16_t)(p->off[p->noff - 1] + plain_len_tab[gen_below(&b->r, 64)]);
            p->noff++;
            cur(b)->nplain++;
        }
    }
    if (rec != UINT32_MAX) {
        uint32_t si = branch(b, TMC_CALL, GB_CALL, -1, rec, 0);
        if (!b->oom)
            b->p->seg[si].tgt = (gen_pos){b->p->func[rec].seg0, 0};
    }
    stmt_list(b, 60000, 3, 6);
    stmt_icall(b, 30000);
    plain(b, plain_count(b));
    stmt_switch(b, 2000);
    plain(b, 1 + gen_below(&b->r, 4));
    branch(b, TMC_JUMP, GB_JUMP, head, 0, 0);
    func_end(b, 1);
}

/* Addresses: functions in random order from 0x400000, 16-byte aligned with
 * a little padding between them; then the direct targets and tables. */
static void layout(pb *b)
{
    gen_prog *p = b->p;
    uint32_t *order = malloc((size_t)p->nfunc * sizeof *order);
    if (!order) {
        b->oom = 1;
        return;
    }
    for (uint32_t i = 0; i < p->nfunc; i++)
        order[i] = i;
    for (uint32_t i = p->nfunc; i > 1; i--) {
        uint32_t j = gen_below(&b->r, i);
        uint32_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    uint64_t a = 0x400000;
    for (uint32_t k = 0; k < p->nfunc; k++) {
        const gen_func *f = &p->func[order[k]];
        a = (a + 15) & ~(uint64_t)15;
        a += 16 * gen_below(&b->r, 3);
        for (uint32_t s = f->seg0; s < f->seg0 + f->nseg; s++) {
            gen_seg *g = &p->seg[s];
            g->pc = a;
            a += p->off[g->ioff + g->nplain] + g->blen;
        }
    }
    free(order);
    for (uint32_t s = 0; s < p->nseg; s++) {
        gen_seg *g = &p->seg[s];
        if (g->bclass == TMC_COND || g->bclass == TMC_JUMP || g->bclass == TMC_CALL)
            g->tpc = gen_pos_pc(p, g->tgt);
    }
    for (uint32_t i = 0; i < p->ntab; i++)
        p->tab[i].pc = gen_pos_pc(p, p->tab[i].pos);
}

int gen_prog_build(gen_prog *p, uint64_t seed, double predictability, uint32_t recursion)
{
    memset(p, 0, sizeof *p);
    pb b;
    memset(&b, 0, sizeof b);
    b.p = p;
    gen_rng_seed(&b.r, seed ^ 0x70726F6772616DULL);
    gen_rng_seed(&b.rl, seed ^ 0x6C6561726EULL);
    gen_rng_seed(&b.rb, seed ^ 0x6265686176ULL);
    b.learn = (uint64_t)(predictability * 4294967296.0);
    b.recursion = recursion;
    seg_open(&b);

    uint32_t nleaf = gen_range(&b.r, 24, 48);
    uint32_t nrec = gen_range(&b.r, 2, 4);
    uint32_t nhand = gen_range(&b.r, 2, 4);
    uint32_t n3 = gen_range(&b.r, 12, 24);
    uint32_t n2 = gen_range(&b.r, 8, 16);
    uint32_t n1 = gen_range(&b.r, 4, 10);
    uint32_t ndrv = gen_range(&b.r, 1, 4);

    for (uint32_t i = 0; i < nleaf && !b.oom; i++)
        build_normal(&b, LEAF_LEVEL, 8 + gen_below(&b.r, 200));
    uint32_t rec0 = p->nfunc;
    for (uint32_t i = 0; i < nrec && !b.oom; i++)
        build_recursive(&b);
    if (!b.oom)
        p->handler = malloc(nhand * sizeof *p->handler);
    if (!p->handler)
        b.oom = 1;
    for (uint32_t i = 0; i < nhand && !b.oom; i++) {
        p->handler[p->nhandler++] = p->nfunc;
        build_handler(&b);
    }
    for (uint32_t i = 0; i < n3 && !b.oom; i++)
        build_normal(&b, 3, 100 + gen_below(&b.r, 600));
    for (uint32_t i = 0; i < n2 && !b.oom; i++)
        build_normal(&b, 2, 500 + gen_below(&b.r, 3000));
    for (uint32_t i = 0; i < n1 && !b.oom; i++)
        build_normal(&b, 1, 2000 + gen_below(&b.r, 15000));
    if (!b.oom)
        p->driver = malloc(ndrv * sizeof *p->driver);
    if (!p->driver)
        b.oom = 1;
    for (uint32_t i = 0; i < ndrv && !b.oom; i++) {
        p->driver[p->ndriver++] = p->nfunc;
        build_driver(&b, rec0 + i % nrec);
    }
    if (!b.oom)
        layout(&b);
    free(b.lab);
    free(b.fix);
    if (b.oom) {
        gen_prog_free(p);
        return TM_ERR_NOMEM;
    }
    return TM_OK;
}

void gen_prog_free(gen_prog *p)
{
    free(p->seg);
    free(p->off);
    free(p->mem);
    free(p->table);
    free(p->tab);
    free(p->func);
    free(p->driver);
    free(p->handler);
    memset(p, 0, sizeof *p);
}
