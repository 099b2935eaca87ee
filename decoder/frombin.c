/* tm — replay from the program binaries (docs/spec.md §6.1).
 *
 * The debugger has the trace, the module map and the ELF files.  It walks
 * each thread's code from its start synchronization with a disassembler
 * (Zydis), and at every branch asks the shared message consumption
 * (replay.c, the same code as tm_verify) for the outcome or target: Fig. 6 of
 * the paper.  Decoded code is cached in blocks (straight-line instructions up
 * to a branch), so each address is disassembled once.
 *
 * Per thread the replay is a generator of events (a run of plain
 * instructions, a branch, an exception, a gap, the end) pulled on demand:
 * the text and binary outputs pull one thread at a time (the trace is split
 * afresh for each thread); the verification pulls in the commit stream's
 * order and compares every event with it. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "tm/image.h"
#include "tm/grow.h"
#include "tm/x86op.h"
#include "tm/a64op.h"
#include "tm/isa.h"
#include "tm/rvop.h"
#include "replay.h"
#include "vsrc.h"

/* ---------------------------------------------------------------- code blocks */

enum { T_BRANCH = 0, T_CONT, T_BAD };
#define BLOCK_MAX 255u

typedef struct fb_block {
    uint64_t pc;
    uint32_t n;          /* plain instructions */
    uint32_t bytes;      /* their bytes */
    uint8_t term;        /* T_*: what follows them */
    uint8_t cls, blen;   /* T_BRANCH: class, length */
    uint64_t dtarget;    /* T_BRANCH: direct target (cond, jump, call) */
    const char *bad;     /* T_BAD: why the next instruction cannot be replayed */
    /* T_BRANCH: the blocks last found after it, not taken ([0]: pc + bytes
     * + blen) and taken ([1]), at SUCC_PC (a memo of code_block; NULL: none) */
    struct fb_block *succ[2];
    uint64_t succ_pc[2];
    uint8_t lens[];      /* n instruction lengths */
} fb_block;

typedef struct fb_code {
    tm_image *im;
    int isa;             /* the trace's instruction set (tm/isa.h): which classifier */
    ZydisDecoder dec;
    fb_block **tab;      /* open addressing by pc */
    size_t cap, used;
    uint64_t blocks;
} fb_code;

static size_t pc_hash(uint64_t pc)
{
    pc *= UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(pc >> 20);
}

static int code_put(fb_code *c, fb_block *b)
{
    if ((c->used + 1) * 2 > c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 4096;
        fb_block **nt = calloc(nc, sizeof *nt);
        if (!nt)
            return TM_ERR_NOMEM;
        for (size_t i = 0; i < c->cap; i++)
            if (c->tab[i]) {
                size_t j = pc_hash(c->tab[i]->pc) & (nc - 1);
                while (nt[j])
                    j = (j + 1) & (nc - 1);
                nt[j] = c->tab[i];
            }
        free(c->tab);
        c->tab = nt;
        c->cap = nc;
    }
    size_t j = pc_hash(b->pc) & (c->cap - 1);
    while (c->tab[j])
        j = (j + 1) & (c->cap - 1);
    c->tab[j] = b;
    c->used++;
    return TM_OK;
}

static const uint8_t vg_preamble[16] = {0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d,
                                        0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33};

/* AArch64 and RISC-V: the instruction at P (AVAIL bytes) classified by
 * tm/a64op.h or tm/rvop.h, as the QEMU frontend classifies it (docs/qemu.md
 * §1): conditional, direct and indirect transfers are branches (RISC-V's
 * JALR that pops then pushes an indirect call, as recorded); SVC / ECALL,
 * the traps and everything else are plain.  Its length, or 0 (*BAD). */
static unsigned classify_other(int isa, uint64_t pc, const uint8_t *p, size_t avail, int *cls, uint64_t *dtarget,
                               const char **bad)
{
    unsigned len = 0;
    unsigned long long target = 0;
    unsigned av = avail > 16 ? 16u : (unsigned)avail;
    if (isa == TM_ISA_AARCH64) {
        static const int a64_cls[] = {[TM_A64_OTHER] = -1,       [TM_A64_COND] = TMC_COND,  [TM_A64_JUMP] = TMC_JUMP,
                                      [TM_A64_CALL] = TMC_CALL,  [TM_A64_ICALL] = TMC_ICALL, [TM_A64_IJUMP] = TMC_IJUMP,
                                      [TM_A64_RET] = TMC_RET,    [TM_A64_SYSCALL] = -1,      [TM_A64_TRAP] = -1};
        *cls = a64_cls[tm_a64_op(p, av, pc, &len, &target)];
    } else {
        static const int rv_cls[] = {[TM_RV_OTHER] = -1,      [TM_RV_COND] = TMC_COND,   [TM_RV_JUMP] = TMC_JUMP,
                                     [TM_RV_CALL] = TMC_CALL, [TM_RV_ICALL] = TMC_ICALL, [TM_RV_IJUMP] = TMC_IJUMP,
                                     [TM_RV_RET] = TMC_RET,   [TM_RV_ICALL_RET] = TMC_ICALL,
                                     [TM_RV_SYSCALL] = -1,    [TM_RV_TRAP] = -1};
        *cls = rv_cls[tm_rv_op(p, av, pc, &len, &target)];
    }
    if (!len) {
        *bad = isa == TM_ISA_AARCH64 ? "an instruction that runs past the end of the code segment"
                                     : "an instruction longer than 32 bits, or one that runs past the end of the "
                                       "code segment";
        return 0;
    }
    if (*cls == TMC_COND || *cls == TMC_JUMP || *cls == TMC_CALL)
        *dtarget = target;
    return len;
}

/* Classifies the instruction at P (AVAIL bytes readable) exactly as the
 * recording does (docs/capture.md §2).  Returns its length (0: cannot be
 * replayed, *BAD says why); *CLS = -1 for a plain instruction. */
static unsigned classify(fb_code *c, uint64_t pc, const uint8_t *p, size_t avail, int *cls, uint64_t *dtarget,
                         const char **bad)
{
    *cls = -1;
    if (c->isa != TM_ISA_X86_64)
        return classify_other(c->isa, pc, p, avail, cls, dtarget, bad);
    /* Valgrind's client request: the magic preamble and the request's xchg
     * are one 19-byte instruction (capture.md §7). */
    if (avail >= 19 && !memcmp(p, vg_preamble, 16) && p[16] == 0x48 && p[17] == 0x87) {
        if (p[18] == 0xdb || p[18] == 0xc9 || p[18] == 0xff)
            return 19;
        if (p[18] == 0xd2) {
            *bad = "a Valgrind call-noredir client request (not replayable)";
            return 0;
        }
    }
    ZydisDecodedInstruction ins;
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&c->dec, NULL, p, avail > 15 ? 15 : avail, &ins))) {
        *bad = avail < 15 ? "an instruction that runs past the end of the code segment, or an invalid one"
                          : "an invalid instruction";
        return 0;
    }
    unsigned len = ins.length;
    if (ins.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT) {
        uint8_t op = ins.opcode;
        if (op == 0xff && (ins.raw.modrm.reg == 3 || ins.raw.modrm.reg == 5)) {
            *bad = "a far call or jump (not expected in user code)";
            return 0;
        } else if (op == 0xca || op == 0xcb || op == 0xcf || op == 0x9a || op == 0xea) {
            *bad = "a far transfer or iret (not expected in user code)";
            return 0;
        }
    }
    /* The class from the bytes and Zydis's length, as the recording takes it
     * from the bytes and VEX's length (tm/x86op.h). */
    static const int cls_of[] = {[TM_X86_OTHER] = -1, [TM_X86_REP] = -1,        [TM_X86_JCC] = TMC_COND,
                                 [TM_X86_LOOP] = TMC_COND, [TM_X86_JMP] = TMC_JUMP,  [TM_X86_CALL] = TMC_CALL,
                                 [TM_X86_ICALL] = TMC_ICALL, [TM_X86_IJMP] = TMC_IJUMP, [TM_X86_RET] = TMC_RET};
    unsigned long long target = 0;
    int cc;
    *cls = cls_of[tm_x86_op(p, len, pc + len, &target, &cc)];
    if (*cls == TMC_COND || *cls == TMC_JUMP || *cls == TMC_CALL)
        *dtarget = target;
    return len;
}

unsigned tm_classify(const uint8_t *p, size_t avail, uint64_t pc, int *cls, uint64_t *dtarget, const char **bad)
{
    fb_code c;
    memset(&c, 0, sizeof c);
    ZydisDecoderInit(&c.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    *dtarget = 0;
    *bad = NULL;
    return classify(&c, pc, p, avail, cls, dtarget, bad);
}

/* The block starting at PC (decoded on first use).  NULL: out of memory. */
static fb_block *code_block(fb_code *c, uint64_t pc)
{
    if (c->cap) {
        size_t j = pc_hash(pc) & (c->cap - 1);
        for (fb_block *b; (b = c->tab[j]) != NULL; j = (j + 1) & (c->cap - 1))
            if (b->pc == pc)
                return b;
    }
    uint8_t lens[BLOCK_MAX];
    uint32_t n = 0, bytes = 0;
    uint8_t term = T_CONT, cls = 0, blen = 0;
    uint64_t dtarget = 0;
    const char *bad = NULL;
    for (;;) {
        if (n == BLOCK_MAX) {
            term = T_CONT;
            break;
        }
        uint64_t a = pc + bytes;
        size_t avail = 0;
        const uint8_t *p = tm_image_code(c->im, a, &avail);
        if (!p) {
            term = T_BAD;
            bad = "an address in no executable segment of the program's modules";
            break;
        }
        int k;
        uint64_t dt = 0;
        unsigned len = classify(c, a, p, avail, &k, &dt, &bad);
        if (!len) {
            term = T_BAD;
            break;
        }
        if (k >= 0) {
            term = T_BRANCH;
            cls = (uint8_t)k;
            blen = (uint8_t)len;
            dtarget = dt;
            break;
        }
        lens[n++] = (uint8_t)len;
        bytes += len;
    }
    fb_block *b = malloc(sizeof *b + n);
    if (!b)
        return NULL;
    b->pc = pc;
    b->n = n;
    b->bytes = bytes;
    b->term = term;
    b->cls = cls;
    b->blen = blen;
    b->dtarget = dtarget;
    b->bad = bad;
    b->succ[0] = b->succ[1] = NULL;
    b->succ_pc[0] = b->succ_pc[1] = 0;
    memcpy(b->lens, lens, n);
    if (code_put(c, b) != TM_OK) {
        free(b);
        return NULL;
    }
    c->blocks++;
    return b;
}

static void code_free(fb_code *c)
{
    for (size_t i = 0; i < c->cap; i++)
        free(c->tab[i]);
    free(c->tab);
    c->tab = NULL;
    c->cap = c->used = 0;
}

/* ---------------------------------------------------------------- the generator */

enum { EV_START = 1, EV_RUN, EV_BRANCH, EV_EXC, EV_GAP, EV_END, EV_ERROR };

typedef struct fb_event {
    int kind;
    uint64_t pc;          /* START: address; RUN: first instruction; BRANCH: its pc; EXC: the
                             interrupted (next) instruction; GAP: where the tail ended; END: next pc */
    uint64_t count;       /* RUN: instructions; GAP: instructions and exceptions skipped */
    uint64_t bytes;       /* RUN */
    const uint8_t *lens;  /* RUN: count lengths */
    uint8_t cls, taken, len;
    uint8_t reason;       /* START: TM_SYNC_*; END: TM_END_* */
    uint8_t lost;         /* END: after a loss */
    uint8_t resumes;      /* GAP: a SYNC follows (target = its address) */
    uint64_t target;      /* BRANCH: target (cond: direct target); EXC: handler; GAP: resume address */
    int has_cycle;
    uint64_t cycle;       /* time stamps: the cycle of the message's event */
    uint64_t pos;         /* trace bit of the message consumed (BRANCH with a message, EXC, START,
                             END, GAP) or of the error */
    char error[1024];     /* ERROR */
    int repeat;           /* ERROR: like an earlier error of the thread (not said to the diagnostics sink again) */
} fb_event;

typedef struct fb_gen {
    uint64_t pc;
    fb_block *blk;        /* block at blk_pc, idx instructions into it */
    uint32_t idx;
    uint64_t ilimit;      /* the trailer's instructions of the thread (UINT64_MAX: not known) */
    fb_block *from;       /* blk NULL after a branch: the branch's block, whose succ[from_k] */
    int from_k;           /* may be the block at pc */
    int pending_end;      /* GAP emitted for an END(lost): the END follows */
    int seek;             /* after an error: skip to the thread's next SYNC */
    int erred;            /* an error happened: err_pos, err_msgs say where */
    uint64_t err_pos;     /* the reader's bit position at the last error */
    uint64_t err_msgs;    /* messages consumed at the last error */
} fb_gen;

typedef struct fb {
    rp_state v;
    fb_code code;
    fb_gen *g;
    int recover;
    uint64_t errors;
    uint64_t run_limit;   /* instructions without a message before the replay gives up */
    const uint64_t *insns;/* the trailer's instructions per thread (NULL: not known): a thread
                             never replays more */
    uint64_t *bad_hwm;    /* outputs: undecodable bits reported up to here */
    uint64_t *bad_count;
    int quiet;            /* no diagnostic lines */
    const tm_frombin_opts *o; /* outputs: the caller's diagnostics sink (o->diag) */
    tm_verify_result *res;
} fb;

/* An error of thread T at PC: TM_ERR_MISMATCH with the text in f->v.err. */
static int gen_fail(fb *f, uint32_t t, uint64_t pc, const char *what)
{
    rp_thread *d = &f->v.th[t];
    return rp_fail(&f->v, TM_ERR_MISMATCH,
                   "thread %u, instruction %" PRIu64 " (pc 0x%" PRIx64 "): %s (pending message: %s at trace bit %" PRIu64
                   ")",
                   t, d->index, pc, what, d->have ? rp_kind_name(&d->m) : "none", d->have ? d->m_pos : 0);
}

static uint64_t cc_of(rp_state *v, rp_thread *d)
{
    (void)v;
    return d->pcc;
}

/* Emits a run of up to MAX plain instructions from the current block;
 * 0 if the block has none left at the current position. */
static inline int gen_run(fb *f, uint32_t t, uint64_t max, fb_event *ev)
{
    fb_gen *g = &f->g[t];
    rp_thread *d = &f->v.th[t];
    fb_block *b = g->blk;
    uint64_t avail = b->n - g->idx;
    if (!avail || !max)
        return 0;
    uint64_t k = avail < max ? avail : max;
    uint64_t bytes = 0;
    if (k == b->n) {
        bytes = b->bytes;
    } else {
        for (uint64_t i = 0; i < k; i++)
            bytes += b->lens[g->idx + i];
    }
    ev->kind = EV_RUN;
    ev->pc = g->pc;
    ev->count = k;
    ev->bytes = bytes;
    ev->lens = b->lens + g->idx;
    g->idx += (uint32_t)k;
    g->pc += bytes;
    d->icnt += k;
    d->index += k;
    f->res->instructions += k;
    f->res->checked += k;
    return 1;
}

/* The block at g->pc after a branch or a block that ends without one
 * (g->from): the successor memo of g->from, else code_block, which the memo
 * then holds.  NULL: out of memory. */
static fb_block *gen_next_block(fb *f, fb_gen *g)
{
    fb_block *from = g->from;
    g->from = NULL;
    g->idx = 0;
    if (from && from->succ[g->from_k] && from->succ_pc[g->from_k] == g->pc) {
        g->blk = from->succ[g->from_k];
        return g->blk;
    }
    g->blk = code_block(&f->code, g->pc);
    if (from && g->blk) {
        from->succ[g->from_k] = g->blk;
        from->succ_pc[g->from_k] = g->pc;
    }
    return g->blk;
}

/* Makes g->blk the block at the thread's pc (a block boundary, or the middle
 * of the current block). */
static inline int gen_block(fb *f, uint32_t t)
{
    fb_gen *g = &f->g[t];
    if (g->blk && g->idx < g->blk->n)
        return TM_OK;
    if (g->blk && g->idx == g->blk->n && g->blk->term != T_CONT)
        return TM_OK; /* at the block's terminator */
    if (!gen_next_block(f, g))
        return rp_fail(&f->v, TM_ERR_NOMEM, "out of memory");
    return TM_OK;
}

/* The terminator of the current block (all its plain instructions done):
 * a branch (IN_TAIL: of a loss's tail), or an error. */
static inline int gen_branch(fb *f, uint32_t t, int in_tail, fb_event *ev)
{
    fb_gen *g = &f->g[t];
    rp_thread *d = &f->v.th[t];
    fb_block *b = g->blk;
    char why[300];
    if (b->term == T_BAD) {
        snprintf(why, sizeof why, "the replay reaches %s", b->bad);
        return gen_fail(f, t, g->pc, why);
    }
    int taken, is_msg;
    uint64_t target;
    int rc = rp_branch_inline(&f->v, t, b->cls, g->pc, b->blen, b->dtarget, in_tail, &taken, &target, &is_msg, why,
                              sizeof why);
    if (rc != TM_OK)
        return gen_fail(f, t, g->pc, why);
    ev->kind = EV_BRANCH;
    ev->pc = g->pc;
    ev->cls = b->cls;
    ev->len = b->blen;
    ev->taken = (uint8_t)taken;
    ev->target = target;
    ev->has_cycle = 0;
    ev->pos = 0;
    if (is_msg) {
        ev->pos = d->m_pos;
        rp_check_cc(&f->v, t, 0, 0, 0);
        ev->has_cycle = f->v.ts;
        ev->cycle = cc_of(&f->v, d);
        rp_branch_done(&f->v, t, b->cls, target);
    }
    d->index++;
    f->res->instructions++;
    f->res->checked++;
    f->res->branches++;
    g->pc = taken ? target : g->pc + b->blen;
    g->blk = NULL;
    g->from = b;
    g->from_k = taken;
    return TM_OK;
}

/* What the trace can justify (spec §6.1): a thread replays no more
 * instructions than the trailer says it retired, nor more than RUN_LIMIT
 * between two messages. */
static int run_bounds(fb *f, uint32_t t)
{
    rp_thread *d = &f->v.th[t];
    char why[300];
    if (f->insns && d->index > f->insns[t]) {
        snprintf(why, sizeof why, "the replay passes the %" PRIu64 " instructions the trace's trailer says the thread "
                 "retired, without reaching its next message (the trace does not fit the code)", f->insns[t]);
        return gen_fail(f, t, f->g[t].pc, why);
    }
    if (d->icnt > f->run_limit) {
        snprintf(why, sizeof why, "the replay runs %" PRIu64 " instructions without reaching the thread's next message "
                 "(the trace does not fit the code; see --max-run)", f->run_limit);
        return gen_fail(f, t, f->g[t].pc, why);
    }
    return TM_OK;
}

/* A SYNC (start, trace-on or after a gap) puts the thread at its address. */
static void gen_sync(fb *f, uint32_t t, fb_event *ev, int kind)
{
    fb_gen *g = &f->g[t];
    rp_thread *d = &f->v.th[t];
    rp_check_cc(&f->v, t, 0, 0, 0);
    ev->kind = kind;
    ev->has_cycle = f->v.ts;
    ev->cycle = d->pcc;
    ev->pos = d->m_pos;
    ev->reason = d->m.reason;
    if (kind == EV_START)
        ev->pc = d->m.addr;
    else
        ev->target = d->m.addr;
    d->pta = d->m.addr;
    g->pc = d->m.addr;
    g->blk = NULL;
    g->from = NULL;
    rp_consume(d);
    d->mode = D_ACTIVE;
}

/* The branch that ends block B (the thread's current one, all its plain
 * instructions done) in gen_step_raw's most common case (tr_*: an active
 * thread whose pending message is a BRANCH, for this or a later branch):
 * gen_branch's steps (rp_branch not in a tail, rp_check_cc, rp_branch_done)
 * with the same effects.  1 = *EV filled; 0 = a message that contradicts the
 * code or the predictors, found before anything changed: gen_branch reports
 * it. */
static inline __attribute__((always_inline)) int gen_fast_branch(fb *f, uint32_t t, fb_block *b, fb_event *ev)
{
    rp_thread *d = &f->v.th[t];
    fb_gen *g = &f->g[t];
    tm_verify_result *res = f->res;
    unsigned cls = b->cls;
    uint64_t pc = g->pc;
    tm_pred *p = rp_pred_of(&f->v, t);
    int taken = 1, is_msg = 0;
    uint64_t target = b->dtarget;
    switch (cls) {
    case TMC_COND: {
        is_msg = d->bcnt + 1 == d->m.cnt;
        if (is_msg && d->m.t)
            return 0;
        taken = pred_cond_follow(p, pc, is_msg);
        d->bcnt++;
        break;
    }
    case TMC_JUMP:
        break;
    case TMC_CALL:
        pred_ras_push(p, pc + b->blen);
        break;
    default: {
        /* ijump, icall, ret: every contradiction is found before the
         * predictors change (a RAS pop), so that the general path can
         * report it */
        is_msg = d->bcnt + 1 == d->m.cnt;
        uint64_t pt = 0;
        int hit;
        if (cls == TMC_RET) {
            hit = p->ras && p->ras_count;
            if (hit)
                pt = p->ras[p->ras_top];
        } else {
            hit = pred_ind_predict(p, pc, &pt);
        }
        if (is_msg) {
            if (!d->m.t)
                return 0;
            target = d->pta + (uint64_t)d->m.diff_ta;
            if (hit && pt == target)
                return 0;
        } else {
            if (!hit)
                return 0;
            target = pt;
        }
        if (cls == TMC_RET) {
            pred_ras_pop(p, &pt);
        } else {
            pred_ind_update(p, pc, target);
            if (cls == TMC_ICALL)
                pred_ras_push(p, pc + b->blen);
        }
        d->bcnt++;
        break;
    }
    }
    d->icnt++;
    ev->kind = EV_BRANCH;
    ev->pc = pc;
    ev->cls = (uint8_t)cls;
    ev->len = b->blen;
    ev->taken = (uint8_t)taken;
    ev->target = target;
    if (is_msg) {
        /* rp_check_cc, rp_branch_done */
        ev->pos = d->m_pos;
        rp_check_cc(&f->v, t, 0, 0, 0);
        ev->has_cycle = f->v.ts;
        ev->cycle = d->pcc;
        if (d->m.t)
            d->pta = target;
        rp_consume(d);
    }
    d->index++;
    res->instructions++;
    res->checked++;
    res->branches++;
    uint64_t npc = taken ? target : pc + b->blen;
    g->pc = npc;
    /* the next block, if the memo has it (nothing is decoded here) */
    fb_block *nb = b->succ[taken];
    if (nb && b->succ_pc[taken] == npc) {
        g->blk = nb;
        g->idx = 0;
        g->from = NULL;
    } else {
        g->blk = NULL;
        g->from = b;
        g->from_k = taken;
    }
    return 1;
}

/* gen_step_raw's most common case, fused (see gen_fast_branch): the steps
 * of run_bounds, gen_block, gen_run and gen_branch for it, with the same
 * effects.  1 = *EV filled, < 0 = error, 0 = the general path decides, from
 * the same state (a bound passed, a block without a branch at its end, an
 * instruction that cannot be replayed, a message that contradicts the code
 * or the predictors: the general path reports it).  With EV2, a run that
 * ends at a branch comes with that branch in *EV2 (*TWO = 1) when the next
 * step would take this path to it without an error: the same step, done
 * now. */
static inline __attribute__((always_inline)) int gen_active_branch(fb *f, uint32_t t, fb_event *ev, fb_event *ev2,
                                                                  int *two)
{
    rp_thread *d = &f->v.th[t];
    fb_gen *g = &f->g[t];
    ev->has_cycle = 0;
    ev->pos = 0;
    if (d->index > g->ilimit || d->icnt > f->run_limit)
        return 0; /* run_bounds says why */
    fb_block *b = g->blk;
    if (!b && !(b = gen_next_block(f, g)))
        return rp_fail(&f->v, TM_ERR_NOMEM, "out of memory");
    uint32_t idx = g->idx;
    if (idx < b->n) {
        /* gen_run: the rest of the block's plain instructions */
        tm_verify_result *res = f->res;
        uint32_t k = b->n - idx;
        uint64_t bytes = 0;
        if (idx == 0)
            bytes = b->bytes;
        else
            for (uint32_t i = idx; i < b->n; i++)
                bytes += b->lens[i];
        ev->kind = EV_RUN;
        ev->pc = g->pc;
        ev->count = k;
        ev->bytes = bytes;
        ev->lens = b->lens + idx;
        g->idx = b->n;
        g->pc += bytes;
        d->icnt += k;
        d->index += k;
        res->instructions += k;
        res->checked += k;
        if (ev2 && b->term == T_BRANCH && d->index <= g->ilimit && d->icnt <= f->run_limit) {
            ev2->has_cycle = 0;
            ev2->pos = 0;
            *two = gen_fast_branch(f, t, b, ev2);
        }
        return 1;
    }
    if (b->term != T_BRANCH)
        return 0;
    if (gen_fast_branch(f, t, b, ev))
        return 1;
    int rc = gen_branch(f, t, 0, ev);
    return rc == TM_OK ? 1 : rc;
}

static __attribute__((noinline)) int gen_step_slow(fb *f, uint32_t t, fb_event *ev);

/* One step of thread T: 1 = *EV filled, 0 = the thread has ended (or never
 * started), < 0 = error (text in f->v.err). */
static inline __attribute__((always_inline)) int gen_step_raw2(fb *f, uint32_t t, fb_event *ev, fb_event *ev2,
                                                              int *two)
{
    rp_thread *d = &f->v.th[t];
    if (d->mode == D_ACTIVE && !f->v.nx) {
        int rc;
        if (!d->have && (rc = rp_fetch(&f->v, t)) != TM_OK)
            return rc; /* as gen_step_slow's first step would */
        if (d->m.kind == TM_MSG_BRANCH && (rc = gen_active_branch(f, t, ev, ev2, two)) != 0)
            return rc;
    }
    return gen_step_slow(f, t, ev);
}

static inline __attribute__((always_inline)) int gen_step_raw(fb *f, uint32_t t, fb_event *ev)
{
    return gen_step_raw2(f, t, ev, NULL, NULL);
}

enum { AGAIN = 2 }; /* gen_wait..gen_gap: the mode changed, step again */

/* D_WAIT: the thread's first message (or, after an error, its next
 * synchronization).  As gen_step_slow, or AGAIN. */
static int gen_wait(fb *f, uint32_t t, fb_event *ev)
{
    rp_state *v = &f->v;
    rp_thread *d = &v->th[t];
    fb_gen *g = &f->g[t];
    int rc;
    rc = rp_fetch_opt(v, t);
    if (rc <= 0) {
        if (rc == 0)
            d->mode = D_DONE;
        return rc;
    }
    if (g->seek) {
        /* after an error: the thread's next synchronization */
        if (d->m.kind == TM_MSG_SYNC) {
            g->seek = 0;
            if (!v->shared)
                tm_pred_reset(d->pred);
            d->icnt = d->bcnt = 0;
            gen_sync(f, t, ev, EV_START);
            ev->reason = TM_SYNC_OVERFLOW; /* resumed after an error */
            return 1;
        }
        if (d->m.kind == TM_MSG_END) {
            rp_consume(d);
            d->mode = D_DONE;
            return 0;
        }
        rp_consume(d);
        return AGAIN;
    }
    if (rp_is_lost(&d->m)) {
        if (d->m.icnt != 0)
            return gen_fail(f, t, 0, "the first message of the thread claims earlier instructions");
        rp_enter_lost_if(v, d);
        g->pc = 0;
        return AGAIN;
    }
    if (d->m.kind != TM_MSG_SYNC || d->m.reason == TM_SYNC_OVERFLOW)
        return gen_fail(f, t, 0, "the thread's first message is not its start synchronization");
    if (!v->shared)
        tm_pred_reset(d->pred);
    gen_sync(f, t, ev, EV_START);
    return 1;
}

/* The run of up to MAX instructions from the thread's pc in its current
 * block: 1 (*EV the run), AGAIN (the block ends without a branch: the one
 * that continues it is next), 0 (at the block's branch: the caller's), or
 * an error. */
static int gen_run_block(fb *f, uint32_t t, uint64_t max, fb_event *ev)
{
    fb_gen *g = &f->g[t];
    int rc;
    if ((rc = run_bounds(f, t)) != TM_OK || (rc = gen_block(f, t)) != TM_OK)
        return rc;
    if (gen_run(f, t, max, ev))
        return 1;
    if (g->blk->term == T_CONT) {
        g->from = g->blk; /* its succ[0]: the block that continues it */
        g->from_k = 0;
        g->blk = NULL;
        return AGAIN;
    }
    return 0;
}

/* D_ACTIVE: the run up to the pending message, then its branch,
 * exception or end.  As gen_step_slow, or AGAIN. */
static int gen_active(fb *f, uint32_t t, fb_event *ev)
{
    rp_state *v = &f->v;
    rp_thread *d = &v->th[t];
    fb_gen *g = &f->g[t];
    int rc;
    if ((rc = rp_fetch(v, t)) != TM_OK)
        return rc;
    if (rp_is_lost(&d->m)) {
        rp_enter_lost_if(v, d);
        return AGAIN;
    }
    uint64_t rem = UINT64_MAX;
    if (d->m.kind == TM_MSG_EXC || d->m.kind == TM_MSG_END) {
        rem = d->m.icnt - d->icnt; /* never negative: the replay stops at it */
        if (rem == 0) {
            ev->pc = g->pc;
            ev->pos = d->m_pos;
            rp_check_cc(v, t, 0, 0, 0);
            ev->has_cycle = v->ts;
            ev->cycle = d->pcc;
            if (d->m.kind == TM_MSG_EXC) {
                uint64_t h = d->pta + (uint64_t)d->m.diff_ta;
                ev->kind = EV_EXC;
                ev->target = h;
                d->pta = h;
                g->pc = h;
                g->blk = NULL;
                g->from = NULL;
                f->res->exceptions++;
                rp_consume(d);
            } else {
                ev->kind = EV_END;
                ev->reason = d->m.reason;
                ev->lost = 0;
                rp_consume(d);
                d->mode = D_DONE;
            }
            return 1;
        }
    } else if (d->m.kind == TM_MSG_SYNC) {
        return gen_fail(f, t, g->pc, "a synchronization message of a thread that is running (no loss)");
    } else if (v->nx && d->m.kind == TM_MSG_BRANCH) {
        if (d->m.cnt <= d->icnt)
            return gen_fail(f, t, g->pc, "the message's stream length ends before the current instruction");
        rem = d->m.cnt - d->icnt - 1; /* plain instructions before the branch */
    }
    if ((rc = gen_run_block(f, t, rem, ev)) != 0)
        return rc;
    if (v->nx && d->m.kind == TM_MSG_BRANCH && rem == 0 && g->blk->n != g->idx)
        return gen_fail(f, t, g->pc, "the message's stream length ends at a non-branch instruction");
    if ((rc = gen_branch(f, t, 0, ev)) != TM_OK)
        return rc;
    return 1;
}

/* D_TAIL: the instructions before a loss (an overflow's tail).  As
 * gen_step_slow, or AGAIN. */
static int gen_tail(fb *f, uint32_t t, fb_event *ev)
{
    rp_thread *d = &f->v.th[t];
    int rc;
    if ((rc = gen_run_block(f, t, d->tail_left, ev)) != 0) {
        if (rc == 1 && !(d->tail_left -= ev->count))
            d->mode = D_GAP;
        return rc;
    }
    if ((rc = gen_branch(f, t, 1, ev)) != TM_OK)
        return rc;
    if (!--d->tail_left)
        d->mode = D_GAP;
    return 1;
}

/* D_GAP: the loss itself, then the end or the resynchronization.  As
 * gen_step_slow. */
static int gen_gap(fb *f, uint32_t t, fb_event *ev)
{
    rp_state *v = &f->v;
    rp_thread *d = &v->th[t];
    fb_gen *g = &f->g[t];
    if (g->pending_end) {
        g->pending_end = 0;
        ev->kind = EV_END;
        ev->pc = 0;
        ev->reason = d->m.reason;
        ev->lost = 1;
        ev->pos = d->m_pos;
        rp_check_cc(v, t, 0, 0, 0);
        ev->has_cycle = v->ts;
        ev->cycle = d->pcc;
        rp_consume(d);
        d->mode = D_DONE;
        return 1;
    }
    rp_gap_begin(v, d);
    ev->kind = EV_GAP;
    ev->pc = g->pc;
    ev->count = d->gap_left;
    ev->pos = d->m_pos;
    ev->resumes = d->m.kind == TM_MSG_SYNC;
    ev->target = 0;
    if (ev->resumes) {
        uint64_t cnt = ev->count, at = ev->pc;
        gen_sync(f, t, ev, EV_GAP);
        ev->count = cnt;
        ev->pc = at;
        d->gap_started = 0;
    } else {
        g->pending_end = 1;
    }
    return 1;
}

/* gen_step_raw, every case. */
static __attribute__((noinline)) int gen_step_slow(fb *f, uint32_t t, fb_event *ev)
{
    rp_thread *d = &f->v.th[t];
    for (;;) {
        ev->has_cycle = 0;
        ev->pos = 0;
        int rc;
        switch (d->mode) {
        case D_DONE:
            return 0;
        case D_WAIT:
            rc = gen_wait(f, t, ev);
            break;
        case D_ACTIVE:
            rc = gen_active(f, t, ev);
            break;
        case D_TAIL:
            rc = gen_tail(f, t, ev);
            break;
        case D_GAP:
            rc = gen_gap(f, t, ev);
            break;
        default:
            return gen_fail(f, t, f->g[t].pc, "internal: unknown replay mode");
        }
        if (rc != AGAIN)
            return rc;
    }
}

/* gen_step_raw with recovery (outputs): an error becomes an EV_ERROR event,
 * and the thread resumes at its next synchronization message.  EV2, *TWO:
 * as gen_active_branch (a second event follows *EV). */
static inline __attribute__((always_inline)) int gen_step(fb *f, uint32_t t, fb_event *ev, fb_event *ev2, int *two)
{
    int rc = gen_step_raw2(f, t, ev, ev2, two);
    if (rc >= 0 || !f->recover || rc == TM_ERR_NOMEM)
        return rc;
    rp_thread *d = &f->v.th[t];
    fb_gen *g = &f->g[t];
    ev->kind = EV_ERROR;
    ev->pc = g->pc;
    ev->pos = d->have ? d->m_pos : f->v.rd.pos;
    snprintf(ev->error, sizeof ev->error, "%s", f->v.err);
    f->v.err[0] = '\0';
    f->errors++;
    /* Every recovery must move on (a message consumed, the reader further
     * on); one that would not ends the thread, so that the decode ends. */
    int stuck = g->erred && !d->have && g->err_pos == f->v.rd.pos && g->err_msgs == f->res->messages;
    g->erred = 1;
    g->err_pos = f->v.rd.pos;
    g->err_msgs = f->res->messages;
    if (stuck) {
        d->mode = D_DONE;
        return 1;
    }
    /* skip to the thread's next synchronization */
    if (d->have)
        rp_consume(d);
    d->mode = D_WAIT;
    d->icnt = d->bcnt = 0;
    f->g[t].seek = 1;
    f->g[t].blk = NULL;
    f->g[t].from = NULL;
    f->g[t].pending_end = 0;
    return 1;
}

/* ---------------------------------------------------------------- set-up */

static int sync_plausible(void *arg, const tm_msg *m)
{
    fb *f = arg;
    size_t avail;
    return tm_image_code(f->code.im, m->addr, &avail) != NULL;
}

static int fb_open(fb *f, const tmt_file *tf, tm_image *im, const char *tmc, int only, int recover,
                   tm_verify_result *res, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->res = res;
    f->recover = recover;
    f->code.im = im;
    f->code.isa = tf->isa;
    ZydisDecoderInit(&f->code.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    int rc = rp_init(&f->v, tf, res, err, errlen, tmc);
    if (rc != TM_OK)
        return rc;
    f->v.only = only;
    f->v.recover = recover;
    f->v.sync_ok = sync_plausible;
    f->v.cb_arg = f;
    f->g = calloc(f->v.n, sizeof *f->g);
    if (!f->g)
        return rp_fail(&f->v, TM_ERR_NOMEM, "out of memory");
    return TM_OK;
}

/* After f->insns is set: the threads' bounds for gen_active_branch. */
static void fb_limits(fb *f)
{
    for (uint32_t t = 0; f->g && t < f->v.n; t++)
        f->g[t].ilimit = f->insns ? f->insns[t] : UINT64_MAX;
}

static void fb_close(fb *f, int keep_code)
{
    rp_free(&f->v);
    free(f->g);
    f->g = NULL;
    if (!keep_code)
        code_free(&f->code);
}

/* ---------------------------------------------------------------- outputs */

/* One diagnostic line (FMT, without a newline) to the caller's sink O->diag;
 * none without one.  The library never writes to stderr itself. */
static __attribute__((format(printf, 2, 3))) void fb_diag(const tm_frombin_opts *o, const char *fmt, ...)
{
    if (!o->diag)
        return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof buf) {
        o->diag(o->diag_arg, buf);
        return;
    }
    char *big = malloc((size_t)n + 1); /* a longer line: whole, as it would have been printed */
    if (!big) {
        o->diag(o->diag_arg, buf);
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->diag(o->diag_arg, big);
    free(big);
}

typedef struct fn_count {
    const char *sym, *mod;
    uint64_t lo;
    uint64_t n;
} fn_count;

typedef struct out_state {
    const tm_frombin_opts *o;
    const tmt_file *tf;
    tm_image *im;
    ZydisFormatter fmt;
    ZydisDecoder dec;
    /* --functions */
    fn_count *fc;
    size_t nfc, capfc;
    uint64_t sym_lo, sym_hi;
    size_t sym_idx;
    int sym_valid;
    /* binary output */
    uint8_t buf[1 << 16];
    size_t blen;
    int werr;
    /* the thread's distinct errors: each said once to the diagnostics
     * sink, with a count of its repeats at the thread's end */
    struct err_kind {
        char key[160];    /* the text with its numbers left out */
        uint64_t n, pos;  /* occurrences; trace bit of the first */
    } kinds[32];
    unsigned nkinds;
} out_state;

/* 1 if EV's error is like an earlier one of the thread (the same words,
 * whatever the numbers); counts it. */
static int error_seen(out_state *s, const fb_event *ev)
{
    char key[160];
    size_t k = 0;
    for (const char *p = ev->error; *p && k + 1 < sizeof key;) {
        if (*p >= '0' && *p <= '9') { /* a number, decimal or 0x hex: one '#' */
            while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || *p == 'x')
                p++;
            key[k++] = '#';
        } else {
            key[k++] = *p++;
        }
    }
    key[k] = 0;
    for (unsigned i = 0; i < s->nkinds; i++)
        if (!strcmp(s->kinds[i].key, key)) {
            s->kinds[i].n++;
            return 1;
        }
    if (s->nkinds < sizeof s->kinds / sizeof s->kinds[0]) {
        struct err_kind *e = &s->kinds[s->nkinds++];
        snprintf(e->key, sizeof e->key, "%s", key);
        e->n = 1;
        e->pos = ev->pos;
        return 0;
    }
    return 1; /* more distinct errors than kept: counted by the summary's errors */
}

static void bin_flush(out_state *s)
{
    if (s->blen && fwrite(s->buf, 1, s->blen, s->o->bin) != s->blen)
        s->werr = 1;
    s->blen = 0;
}

static void bin_uv(out_state *s, uint64_t x)
{
    if (s->blen + 10 > sizeof s->buf)
        bin_flush(s);
    while (x >= 0x80) {
        s->buf[s->blen++] = (uint8_t)(x | 0x80);
        x >>= 7;
    }
    s->buf[s->blen++] = (uint8_t)x;
}

static void bin_event(out_state *s, uint32_t t, const fb_event *ev)
{
    /* docs/spec.md §6.1: type byte, tid, fields (LEB128) */
    switch (ev->kind) {
    case EV_START: bin_uv(s, 1); bin_uv(s, t); bin_uv(s, ev->pc); bin_uv(s, ev->reason); break;
    case EV_RUN: bin_uv(s, 2); bin_uv(s, t); bin_uv(s, ev->count); bin_uv(s, ev->bytes); break;
    case EV_BRANCH:
        bin_uv(s, 3); bin_uv(s, t); bin_uv(s, (uint64_t)ev->cls | (uint64_t)ev->taken << 3);
        bin_uv(s, ev->len); bin_uv(s, ev->target);
        break;
    case EV_EXC: bin_uv(s, 4); bin_uv(s, t); bin_uv(s, ev->target); break;
    case EV_GAP: bin_uv(s, 5); bin_uv(s, t); bin_uv(s, ev->count); bin_uv(s, ev->resumes ? ev->target : 0); break;
    case EV_END: bin_uv(s, 6); bin_uv(s, t); bin_uv(s, (uint64_t)ev->reason | (uint64_t)ev->lost << 1); break;
    case EV_ERROR: bin_uv(s, 7); bin_uv(s, t); bin_uv(s, ev->pos); break;
    default: break;
    }
}

static void sym_text(out_state *s, uint64_t pc, char *buf, size_t n)
{
    const char *mod;
    uint64_t off;
    const char *sym = tm_image_symbol(s->im, pc, &mod, &off, NULL, NULL);
    if (sym)
        snprintf(buf, n, "%s+0x%" PRIx64, sym, off);
    else if (mod)
        snprintf(buf, n, "%s+0x%" PRIx64, mod, off);
    else
        snprintf(buf, n, "?");
}

static void print_insn(out_state *s, uint32_t t, uint64_t pc)
{
    FILE *o = s->o->out;
    fprintf(o, "T%u 0x%016" PRIx64, t, pc);
    if (s->o->symbols) {
        char sb[300];
        sym_text(s, pc, sb, sizeof sb);
        fprintf(o, " %-40s", sb);
    }
    if (s->o->disasm) {
        size_t avail;
        const uint8_t *p = tm_image_code(s->im, pc, &avail);
        ZydisDecodedInstruction ins;
        ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
        char txt[256] = "(bad)";
        if (s->tf->isa != TM_ISA_X86_64) { /* no disassembler here: the instruction's word */
            unsigned len = !p ? 0 : s->tf->isa == TM_ISA_RV64 && avail >= 2 && (p[0] & 3) != 3 ? 2 : 4;
            if (len == 4 && avail >= 4)
                snprintf(txt, sizeof txt, "%s 0x%08x", s->tf->isa == TM_ISA_AARCH64 ? ".inst" : ".insn",
                         (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24);
            else if (len == 2)
                snprintf(txt, sizeof txt, ".insn 0x%04x", (unsigned)p[0] | (unsigned)p[1] << 8);
        } else if (p && ZYAN_SUCCESS(ZydisDecoderDecodeFull(&s->dec, p, avail > 15 ? 15 : avail, &ins, ops))) {
            if (avail >= 19 && !memcmp(p, vg_preamble, 16))
                snprintf(txt, sizeof txt, "(valgrind client request)");
            else
                ZydisFormatterFormatInstruction(&s->fmt, &ins, ops, ins.operand_count_visible, txt, sizeof txt, pc,
                                                NULL);
        }
        fprintf(o, "  %s", txt);
    }
    fputc('\n', o);
}

static void count_fn(out_state *s, uint64_t pc, uint64_t n)
{
    if (!s->sym_valid || pc < s->sym_lo || pc >= s->sym_hi) {
        const char *mod;
        uint64_t off, lo, hi;
        const char *sym = tm_image_symbol(s->im, pc, &mod, &off, &lo, &hi);
        /* unnamed code: the region between symbols, by its offset in the module */
        uint64_t key = sym ? lo : lo - (pc - off);
        size_t i;
        for (i = 0; i < s->nfc; i++)
            if (s->fc[i].sym == sym && s->fc[i].mod == mod && s->fc[i].lo == key)
                break;
        if (i == s->nfc) {
            if (TM_GROW(s->fc, s->capfc, s->nfc + 1) != TM_OK)
                return;
            s->fc[s->nfc++] = (fn_count){sym, mod, key, 0};
        }
        s->sym_idx = i;
        s->sym_lo = lo;
        s->sym_hi = hi;
        s->sym_valid = 1;
    }
    s->fc[s->sym_idx].n += n;
}

static int cmp_fc(const void *a, const void *b)
{
    const fn_count *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static const char *cls_name(unsigned c)
{
    return tmc_bclass_name(c);
}

static void text_event(out_state *s, uint32_t t, const fb_event *ev)
{
    FILE *o = s->o->out;
    const tm_frombin_opts *op = s->o;
    char sb[300], tb[300];
    switch (ev->kind) {
    case EV_START:
        fprintf(o, "# T%u %s at 0x%" PRIx64, t,
                ev->reason == TM_SYNC_START ? "start" : ev->reason == TM_SYNC_TRACE_ON ? "trace on" : "resume",
                ev->pc);
        if (ev->has_cycle)
            fprintf(o, " (cycle %" PRIu64 ")", ev->cycle);
        fprintf(o, " [trace bit %" PRIu64 "]\n", ev->pos);
        break;
    case EV_RUN:
        if (op->format == TM_FB_FUNCTIONS) {
            uint64_t pc = ev->pc;
            for (uint64_t i = 0; i < ev->count; i++) {
                if (!s->sym_valid || pc < s->sym_lo || pc >= s->sym_hi || i + 1 == ev->count)
                    count_fn(s, pc, 1);
                else
                    s->fc[s->sym_idx].n++;
                pc += ev->lens[i];
            }
        } else if (op->format == TM_FB_INSNS) {
            uint64_t pc = ev->pc;
            for (uint64_t i = 0; i < ev->count; i++) {
                print_insn(s, t, pc);
                pc += ev->lens[i];
            }
        }
        break;
    case EV_BRANCH:
        if (op->format == TM_FB_FUNCTIONS) {
            count_fn(s, ev->pc, 1);
        } else if (op->format == TM_FB_INSNS) {
            print_insn(s, t, ev->pc);
        } else if (op->format == TM_FB_BRANCHES) {
            fprintf(o, "T%u 0x%016" PRIx64 " %-5s %s -> 0x%016" PRIx64, t, ev->pc, cls_name(ev->cls),
                    ev->taken ? "T" : "N", ev->taken ? ev->target : ev->pc + ev->len);
            if (op->symbols) {
                sym_text(s, ev->pc, sb, sizeof sb);
                sym_text(s, ev->taken ? ev->target : ev->pc + ev->len, tb, sizeof tb);
                fprintf(o, "  %s -> %s", sb, tb);
            }
            if (ev->pos)
                fprintf(o, "  [message at bit %" PRIu64 "]", ev->pos);
            fputc('\n', o);
        }
        break;
    case EV_EXC:
        if (op->format != TM_FB_FUNCTIONS) {
            fprintf(o, "# T%u exception before 0x%" PRIx64 " -> handler 0x%" PRIx64, t, ev->pc, ev->target);
            if (op->symbols) {
                sym_text(s, ev->target, tb, sizeof tb);
                fprintf(o, " %s", tb);
            }
            if (ev->has_cycle)
                fprintf(o, " (cycle %" PRIu64 ")", ev->cycle);
            fprintf(o, " [trace bit %" PRIu64 "]\n", ev->pos);
        }
        break;
    case EV_GAP:
        fprintf(o, "# T%u overflow: %" PRIu64 " instructions and exceptions after 0x%" PRIx64 " not traced", t,
                ev->count, ev->pc);
        if (ev->resumes)
            fprintf(o, "; resumes at 0x%" PRIx64, ev->target);
        fprintf(o, " [trace bit %" PRIu64 "]\n", ev->pos);
        break;
    case EV_END:
        fprintf(o, "# T%u %s%s", t, ev->reason == TM_END_EXIT ? "exit" : "trace stop", ev->lost ? " (after a loss)" : "");
        if (ev->reason != TM_END_EXIT && s->tf->ending != TMT_COMPLETE) {
            char why[128];
            fprintf(o, " (the recording was %s)", tmt_ending_str(s->tf->ending, s->tf->signal, why, sizeof why));
        }
        if (ev->has_cycle)
            fprintf(o, " (cycle %" PRIu64 ")", ev->cycle);
        fprintf(o, " [trace bit %" PRIu64 "]\n", ev->pos);
        break;
    case EV_ERROR:
        fflush(o);
        if (!ev->repeat && !s->o->quiet)
            fb_diag(s->o, "T%u: trace bit %" PRIu64 ": %s; resuming at the thread's next synchronization", t, ev->pos,
                    ev->error);
        fprintf(o, "# T%u error at trace bit %" PRIu64 ": %s\n", t, ev->pos, ev->error);
        break;
    default:
        break;
    }
}

/* Event E of thread T to the outputs (BIN: binary, TEXT: text); an error
 * also to the diagnostics sink (unless QUIET or said before). */
static __attribute__((noinline)) void out_event(out_state *s, uint32_t t, fb_event *e, int bin, int text, int quiet)
{
    if (e->kind == EV_ERROR)
        e->repeat = error_seen(s, e);
    if (bin)
        bin_event(s, t, e);
    if (text)
        text_event(s, t, e);
    else if (e->kind == EV_ERROR && !quiet && !e->repeat)
        fb_diag(s->o, "T%u: trace bit %" PRIu64 ": %s; resuming at the thread's next synchronization", t, e->pos,
                e->error);
}

/* The outputs' part of one event E of thread T (EMIT: BIN or TEXT): the
 * event, the progress (every 2^16 instructions, as it looks at the clock;
 * NEXT_PROGRESS UINT64_MAX without it; the count less SUB), and every 1024
 * events (*NEV) a look at the text output.  1 = it failed. */
static inline __attribute__((always_inline)) int out_one(out_state *s, uint32_t t, fb_event *e, int emit, int bin,
                                                         int text, int quiet, tm_frombin_result *res, uint64_t sub,
                                                         uint64_t *next_progress,
                                                         void (*progress)(uint64_t, void *), void *arg, uint64_t *nev,
                                                         FILE *out)
{
    if (emit || e->kind == EV_ERROR)
        out_event(s, t, e, bin, text, quiet);
    if (e->kind == EV_RUN && res->v.instructions - sub >= *next_progress) {
        uint64_t n = res->v.instructions - sub;
        *next_progress = n + (1u << 16);
        progress(n, arg);
    }
    if (!(++*nev & 1023) && out && ferror(out)) {
        res->out_errno = errno; /* the failed write's, as no call since succeeded or failed otherwise */
        return 1;
    }
    return 0;
}

static void on_bad_bits(void *arg, uint64_t pos, const char *what)
{
    fb *f = arg;
    if (f->quiet || pos < *f->bad_hwm)
        return; /* reported by an earlier thread's pass */
    *f->bad_hwm = pos + 1;
    (*f->bad_count)++;
    fb_diag(f->o, "trace bit %" PRIu64 ": %s%s", pos, what,
            f->v.data ? "" : "; resuming at the next synchronization message");
}

/* Instructions between two messages before the replay gives up: --max-run,
 * else what the trace can justify: no thread retires more than 65535
 * instructions and an event per cycle, and the trailer counts the cycles;
 * at most 2^32.  (With the trailer's per-thread counts, those bound a
 * thread's whole replay too: f->insns.) */
static uint64_t run_limit(const tmt_file *tf, const tm_frombin_opts *o)
{
    if (o->max_run)
        return o->max_run;
    uint64_t lim = UINT64_C(1) << 32;
    if (tf->cycles < lim / (TMC_MAX_RETIRE_PER_CYCLE + 1))
        lim = (tf->cycles + 1) * (TMC_MAX_RETIRE_PER_CYCLE + 1);
    return lim;
}

static int run_outputs(const tmt_file *tf, tm_image *im, const tm_frombin_opts *o, tm_frombin_result *res,
                       char *err, size_t errlen)
{
    out_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    s->o = o;
    s->tf = tf;
    s->im = im;
    ZydisFormatterInit(&s->fmt, ZYDIS_FORMATTER_STYLE_INTEL);
    ZydisDecoderInit(&s->dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    int rc = TM_OK;
    res->out_errno = 0;
    uint64_t bad_hwm = 0, bad_count = 0;
    fb_code code;
    memset(&code, 0, sizeof code);
    /* Each thread's pass splits the trace afresh; the first pass indexes
     * where every thread's messages are, so that later passes decode just
     * their own (without data tracing: see rp_index). */
    rp_index idx;
    int have_idx = !tf->cfg.enc.data && rp_index_init(&idx, tf->cfg.enc.threads) == TM_OK;
    if (o->bin) {
        static const uint8_t hdr[8] = {'T', 'M', 'F', 'B', 1, 0, 0, 0};
        memcpy(s->buf, hdr, 8);
        s->blen = 8;
        bin_uv(s, tf->cfg.enc.threads);
    }
    if (o->out && o->format != TM_FB_NONE) {
        /* and how the recording, or its program, ended (the trailer) */
        char why[128];
        fprintf(o->out, "# from binaries: %s, %u threads, %" PRIu64 " bits", tm_encoding_name(tf->cfg.enc.enc),
                tf->cfg.enc.threads, tf->bits);
        if (tf->isa != TM_ISA_X86_64)
            fprintf(o->out, "; isa %s", tm_isa_name(tf->isa));
        if (tf->ending != TMT_COMPLETE)
            fprintf(o->out, "; the recording was %s", tmt_ending_str(tf->ending, tf->signal, why, sizeof why));
        if (tf->prog != TMT_PROG_UNKNOWN)
            fprintf(o->out, "; the program %s", tmt_prog_str(tf->prog, tf->prog_code, why, sizeof why));
        fputc('\n', o->out);
    }
    for (uint32_t t = 0; t < tf->cfg.enc.threads && rc == TM_OK; t++) {
        fb f;
        rc = fb_open(&f, tf, im, o->tmc, (int)t, o->recover, &res->v, err, errlen);
        if (code.cap)
            f.code.tab = code.tab, f.code.cap = code.cap, f.code.used = code.used, f.code.blocks = code.blocks;
        f.run_limit = run_limit(tf, o);
        f.insns = o->max_run ? NULL : tf->thread_insns;
        fb_limits(&f);
        f.bad_hwm = &bad_hwm;
        f.bad_count = &bad_count;
        f.quiet = o->quiet;
        f.o = o;
        if (rc == TM_OK) {
            f.v.drop_data = 1;
            f.v.on_bad = on_bad_bits;
            if (have_idx)
                f.v.idx = &idx;
        }
        fb_event ev, ev2;
        int started = 0;
        s->nfc = 0;
        s->sym_valid = 0;
        uint64_t n0 = res->v.instructions;
        s->nkinds = 0;
        uint64_t nev = 0;
        /* the options, in locals (the loop's stores cannot change them) */
        FILE *const out = o->out;
        const int bin = o->bin != NULL, text = out && o->format != TM_FB_NONE, quiet = o->quiet;
        const int emit = bin || text;
        void (*const progress)(uint64_t, void *) = o->progress;
        uint64_t next_progress = progress ? res->v.instructions + (1u << 16) : UINT64_MAX;
        while (rc == TM_OK) {
            /* a run that ends at a branch may come with it (EV2): each
             * event is output in turn, as if pulled one by one */
            int two = 0;
            int k = gen_step(&f, t, &ev, &ev2, &two);
            if (k < 0) {
                rc = k;
                break;
            }
            if (k == 0)
                break;
            started = 1;
            /* EV, then EV2 if TWO: each as if pulled one by one (the
             * progress count of a run as its pull would leave it) */
            if (out_one(s, t, &ev, emit, bin, text, quiet, res, (uint64_t)two, &next_progress, progress, o->arg,
                        &nev, out) ||
                (two && out_one(s, t, &ev2, emit, bin, text, quiet, res, 0, &next_progress, progress, o->arg, &nev,
                                out)))
                break; /* the output failed: no use going on */
        }
        for (unsigned k = 0; k < s->nkinds && !o->quiet; k++)
            if (s->kinds[k].n > 1)
                fb_diag(o, "T%u: %" PRIu64 " more errors like the one at trace bit %" PRIu64, t, s->kinds[k].n - 1,
                        s->kinds[k].pos);
        if (started)
            res->threads++;
        if (started && o->out && o->format == TM_FB_FUNCTIONS) {
            qsort(s->fc, s->nfc, sizeof *s->fc, cmp_fc);
            uint64_t tot = res->v.instructions - n0;
            fprintf(o->out, "# T%u: %" PRIu64 " instructions in %zu functions\n", t, tot, s->nfc);
            for (size_t i = 0; i < s->nfc; i++) {
                char name[300];
                if (s->fc[i].sym)
                    snprintf(name, sizeof name, "%s (%s)", s->fc[i].sym, s->fc[i].mod ? s->fc[i].mod : "?");
                else
                    snprintf(name, sizeof name, "%s+0x%" PRIx64 " (no symbol)", s->fc[i].mod ? s->fc[i].mod : "?",
                             s->fc[i].lo);
                fprintf(o->out, "T%u %14" PRIu64 " %6.2f%%  %s\n", t, s->fc[i].n, tot ? 100.0 * s->fc[i].n / tot : 0.0,
                        name);
            }
        }
        res->errors += f.errors;
        /* the commit stream of the load sizes: read to its end once, so
         * that a damaged or overlong one is found */
        if (rc == TM_OK && t == 0 && f.v.ls && tm_load_sizes_finish(f.v.ls) != TM_OK) {
            snprintf(err, errlen, "%s", tm_load_sizes_error(f.v.ls));
            rc = TM_ERR_FORMAT;
        }
        code = f.code;
        fb_close(&f, 1);
        if (o->out && ferror(o->out))
            break;
    }
    res->blocks = code.blocks;
    res->resyncs = bad_count;
    code_free(&code);
    if (have_idx)
        rp_index_free(&idx);
    errno = 0;
    if (o->out && rc == TM_OK && (fflush(o->out) || ferror(o->out))) {
        if (errno || !res->out_errno)
            res->out_errno = errno;
        snprintf(err, errlen, "the text output: %s",
                 res->out_errno ? strerror(res->out_errno) : "write error");
        rc = TM_ERR_IO;
    }
    if (o->bin) {
        bin_flush(s);
        if (s->werr && rc == TM_OK) {
            snprintf(err, errlen, "cannot write the binary output");
            rc = TM_ERR_IO;
        }
    }
    free(s->fc);
    free(s);
    if (rc == TM_OK && (res->errors || res->resyncs))
        res->v.ok = 0;
    return rc;
}

/* ---------------------------------------------------------------- verification */

#define CTX 6

/* Addresses matched, kept for a divergence's message (ctx_get): one pc (a
 * branch's: LENS NULL, N 1), or the last N <= CTX instructions of a run
 * from PC (their lengths at LENS, in the code blocks, which live as long as
 * the replay).  A run is one entry, not one per instruction. */
typedef struct ctx_seg {
    uint64_t pc;
    const uint8_t *lens;
    unsigned n;
} ctx_seg;

typedef struct cmp_thread {
    fb_event ev;        /* current event */
    int valid;          /* ev holds something not yet matched */
    uint64_t left;      /* RUN: instructions left; GAP: records left */
    uint64_t cur_pc;    /* RUN: next instruction's address */
    const uint8_t *lens;
    ctx_seg ctx[CTX];   /* the last addresses matched (ctx_get) */
    unsigned nctx;      /* entries pushed */
    uint64_t g_cycle;   /* group of the last counted record */
    int g_valid, g_gap;
    int empty_gap;      /* an empty overflow gap was passed (a start that was dropped) */
} cmp_thread;

typedef struct cmp {
    fb f;
    cmp_thread *c;
    uint64_t last_cycle;
} cmp;

static void ctx_push(cmp_thread *c, uint64_t pc)
{
    c->ctx[c->nctx % CTX] = (ctx_seg){pc, NULL, 1};
    c->nctx++;
}

/* The last N (1..CTX) of K instructions of a run, from PC with lengths LENS. */
static void ctx_run(cmp_thread *c, uint64_t pc, const uint8_t *lens, unsigned n)
{
    c->ctx[c->nctx % CTX] = (ctx_seg){pc, lens, n};
    c->nctx++;
}

/* The last CTX (or fewer) addresses matched, oldest first, into OUT: how
 * many. */
static unsigned ctx_get(const cmp_thread *c, uint64_t out[CTX])
{
    uint64_t rev[CTX]; /* newest first */
    unsigned got = 0;
    for (unsigned e = 0; e < CTX && e < c->nctx && got < CTX; e++) {
        const ctx_seg *g = &c->ctx[(c->nctx - 1 - e) % CTX];
        uint64_t a[CTX];
        a[0] = g->pc;
        for (unsigned i = 1; i < g->n; i++)
            a[i] = a[i - 1] + g->lens[i - 1];
        for (unsigned i = g->n; i-- > 0 && got < CTX;)
            rev[got++] = a[i];
    }
    for (unsigned i = 0; i < got; i++)
        out[i] = rev[got - 1 - i];
    return got;
}

static const char *ev_name(int k)
{
    static const char *const n[] = {"?", "start", "plain instructions", "a branch", "an exception", "a gap",
                                    "the end of the thread", "an error"};
    return k >= 0 && k <= EV_ERROR ? n[k] : "?";
}

static int diverge(cmp *c, uint32_t t, const tmc_record *r, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int diverge(cmp *c, uint32_t t, const tmc_record *r, const char *fmt, ...)
{
    char what[600], ctx[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    cmp_thread *ct = &c->c[t];
    size_t k = 0;
    ctx[0] = '\0';
    uint64_t last[CTX];
    unsigned nlast = ctx_get(ct, last);
    for (unsigned i = 0; i < nlast && k + 24 < sizeof ctx; i++)
        k += (size_t)snprintf(ctx + k, sizeof ctx - k, " 0x%" PRIx64, last[i]);
    rp_thread *d = &c->f.v.th[t];
    return rp_fail(&c->f.v, TM_ERR_MISMATCH,
                   "thread %u, instruction %" PRIu64 " (commit stream: %s at pc 0x%" PRIx64 ", cycle %" PRIu64
                   "): %s; last instructions matched:%s (replay's pending message: %s at trace bit %" PRIu64 ")",
                   t, d->index, r->type == TMC_RUN ? "run" : r->type == TMC_BRANCH ? "branch"
                                                     : r->type == TMC_EXC  ? "exception"
                                                     : r->type == TMC_EXIT ? "exit"
                                                     : r->type == TMC_START ? "start" : "record",
                   r->pc, r->cycle, what, ctx[0] ? ctx : " (none)", d->have ? rp_kind_name(&d->m) : "none",
                   d->have ? d->m_pos : 0);
}

/* Thread T's current event (pulling the next one when the last is used up);
 * 0 = the replay has no more events for T. */
static int cur(cmp *c, uint32_t t, fb_event **out)
{
    cmp_thread *ct = &c->c[t];
    for (;;) {
        if (ct->valid && !((ct->ev.kind == EV_RUN || ct->ev.kind == EV_GAP) && ct->left == 0)) {
            *out = &ct->ev;
            return 1;
        }
        int rc = gen_step_raw(&c->f, t, &ct->ev);
        if (rc <= 0) {
            ct->valid = 0;
            if (rc < 0 && ct->nctx) {
                /* an error of the code walk: the context, as diverge gives it */
                char *e = c->f.v.err;
                size_t n = c->f.v.errlen, k = strlen(e);
                k += (size_t)snprintf(e + k, n - k, "; last instructions matched:");
                uint64_t last[CTX];
                unsigned nlast = ctx_get(ct, last);
                for (unsigned i = 0; i < nlast && k + 24 < n; i++)
                    k += (size_t)snprintf(e + k, n - k, " 0x%" PRIx64, last[i]);
            }
            return rc;
        }
        ct->valid = 1;
        if (ct->ev.kind == EV_RUN) {
            ct->left = ct->ev.count;
            ct->cur_pc = ct->ev.pc;
            ct->lens = ct->ev.lens;
        } else if (ct->ev.kind == EV_GAP) {
            ct->left = ct->ev.count;
            if (ct->left == 0) {
                /* an empty gap: nothing of the commit stream to skip */
                ct->valid = 0;
                ct->empty_gap = 1;
                continue;
            }
        }
    }
}

static int check_cycle(cmp *c, uint32_t t, const tmc_record *r, const fb_event *e)
{
    if (!e->has_cycle)
        return TM_OK;
    uint64_t m = c->f.v.ts_mask;
    if ((e->cycle & m) != (r->cycle & m))
        return diverge(c, t, r, "the message at trace bit %" PRIu64 " is stamped cycle %" PRIu64
                                ", the event retired in cycle %" PRIu64,
                       e->pos, e->cycle & m, r->cycle & m);
    c->f.res->cycles_checked++;
    return TM_OK;
}

/* A RUN record against the replay's runs (or the gap it falls in). */
static int cmp_run(cmp *c, const tmc_record *r)
{
    uint32_t t = r->tid;
    cmp_thread *ct = &c->c[t];
    fb_event *e;
    int rc;
    uint64_t need = r->count, p = r->pc;
    while (need) {
        if ((rc = cur(c, t, &e)) < 0)
            return rc;
        if (rc == 0)
            return diverge(c, t, r, "the replay of the thread has ended");
        if (e->kind == EV_GAP) {
            if (need != r->count)
                return diverge(c, t, r, "an overflow gap begins inside a run");
            if (r->count > ct->left)
                return diverge(c, t, r, "the gap ends inside a run of instructions");
            ct->left -= r->count;
            ct->g_gap = 1;
            c->f.v.th[t].rec_gap = 1;
            return TM_OK;
        }
        if (e->kind != EV_RUN)
            return diverge(c, t, r, "the replay from the binaries has %s at 0x%" PRIx64
                                    " where the commit stream retires a plain instruction at 0x%" PRIx64,
                           ev_name(e->kind), e->pc, p);
        if (ct->cur_pc != p)
            return diverge(c, t, r, "the replay from the binaries is at 0x%" PRIx64 ", the commit stream at 0x%" PRIx64,
                           ct->cur_pc, p);
        uint64_t k = need < ct->left ? need : ct->left, m = k > CTX ? k - CTX : 0, tail = 0;
        for (uint64_t i = m; i < k; i++)
            tail += ct->lens[i];
        uint64_t end;
        if (k == ct->left && ct->lens == ct->ev.lens) { /* the whole event: its bytes are known */
            end = p + ct->ev.bytes;
        } else {
            end = p + tail;
            for (uint64_t i = 0; i < m; i++)
                end += ct->lens[i];
        }
        ctx_run(ct, end - tail, ct->lens + m, (unsigned)(k - m));
        p = end;
        ct->lens += k;
        ct->left -= k;
        ct->cur_pc = p;
        need -= k;
    }
    ct->g_gap = 0;
    if (p != r->pc + r->bytes)
        return diverge(c, t, r, "the replay's %" PRIu64 " instructions from 0x%" PRIx64 " end at 0x%" PRIx64
                                ", the commit stream's %" PRIu64 " bytes at 0x%" PRIx64 " (instruction lengths differ)",
                       r->count, r->pc, p, r->bytes, r->pc + r->bytes);
    return TM_OK;
}

/* A BRANCH or EXC record against the replay's branch or exception. */
static int cmp_branch(cmp *c, const tmc_record *r)
{
    uint32_t t = r->tid;
    cmp_thread *ct = &c->c[t];
    fb_event *e;
    int rc;
    if ((rc = cur(c, t, &e)) < 0)
        return rc;
    if (rc == 0)
        return diverge(c, t, r, "the replay of the thread has ended");
    if (e->kind == EV_GAP) {
        ct->left--;
        ct->g_gap = 1;
        return TM_OK;
    }
    ct->g_gap = 0;
    if (r->type == TMC_BRANCH) {
        if (e->kind != EV_BRANCH)
            return diverge(c, t, r, "the replay from the binaries has %s at 0x%" PRIx64, ev_name(e->kind), e->pc);
        if (e->pc != r->pc)
            return diverge(c, t, r, "the replay's branch is at 0x%" PRIx64, e->pc);
        if (e->cls != r->bclass || e->len != r->len)
            return diverge(c, t, r, "the binary has a %s of %u bytes there, the commit stream a %s of %u bytes",
                           cls_name(e->cls), e->len, cls_name(r->bclass), r->len);
        if (r->bclass == TMC_COND && e->taken != r->taken)
            return diverge(c, t, r, "reconstructed outcome %s, the commit stream says %s",
                           e->taken ? "taken" : "not taken", r->taken ? "taken" : "not taken");
        if (e->target != r->target)
            return diverge(c, t, r, "reconstructed target 0x%" PRIx64 ", the commit stream says 0x%" PRIx64,
                           e->target, r->target);
        ctx_push(ct, r->pc);
    } else {
        if (e->kind != EV_EXC)
            return diverge(c, t, r, "the replay from the binaries has %s at 0x%" PRIx64 " where an exception is taken",
                           ev_name(e->kind), e->pc);
        if (e->pc != r->pc || e->target != r->target)
            return diverge(c, t, r, "the replay has an exception before 0x%" PRIx64 " to 0x%" PRIx64
                                    ", the commit stream before 0x%" PRIx64 " to 0x%" PRIx64,
                           e->pc, e->target, r->pc, r->target);
    }
    if ((rc = check_cycle(c, t, r, e)) != TM_OK)
        return rc;
    ct->valid = 0;
    return TM_OK;
}

static int cmp_record(cmp *c, const tmc_record *r)
{
    uint32_t t = r->tid;
    cmp_thread *ct = &c->c[t];
    fb_event *e;
    int rc;
    if (r->type == TMC_RUN || r->type == TMC_BRANCH || r->type == TMC_EXC) {
        if (!ct->g_valid || ct->g_cycle != r->cycle) {
            ct->g_valid = 1;
            ct->g_cycle = r->cycle;
        }
    }
    switch (r->type) {
    case TMC_START:
        if ((rc = cur(c, t, &e)) < 0)
            return rc;
        if (rc == 0)
            return diverge(c, t, r, "the thread starts, but the trace has no message for it");
        ct->g_gap = 0;
        if (e->kind == EV_GAP || ct->empty_gap) {
            /* started lost: its first records are in the gap, or (its start
             * dropped, the gap empty) they follow the resynchronization */
            ct->empty_gap = 0;
            return TM_OK;
        }
        if (e->kind != EV_START)
            return diverge(c, t, r, "the replay has %s", ev_name(e->kind));
        if (e->pc != r->pc)
            return diverge(c, t, r, "the trace starts the thread at 0x%" PRIx64, e->pc);
        if ((e->reason == TM_SYNC_TRACE_ON) != ((r->flags & TMC_START_TRACE_ON) != 0))
            return diverge(c, t, r, "the trace's start synchronization says %s", e->reason ? "trace on" : "start");
        if ((rc = check_cycle(c, t, r, e)) != TM_OK)
            return rc;
        ct->valid = 0;
        return TM_OK;
    case TMC_RUN:
        return cmp_run(c, r);
    case TMC_BRANCH:
    case TMC_EXC:
        return cmp_branch(c, r);
    case TMC_EXIT: {
        if ((rc = cur(c, t, &e)) < 0)
            return rc;
        if (rc == 0)
            return diverge(c, t, r, "the replay of the thread has ended");
        if (e->kind == EV_GAP)
            return diverge(c, t, r, "the thread exits inside a gap the trace says is longer");
        int want = (r->flags & TMC_EXIT_TRACE_OFF) ? TM_END_STOP : TM_END_EXIT;
        if (e->kind != EV_END)
            return diverge(c, t, r, "the thread ends, the replay from the binaries has %s at 0x%" PRIx64,
                           ev_name(e->kind), e->pc);
        if (e->reason != want)
            return diverge(c, t, r, "the trace says the thread %s", e->reason == TM_END_EXIT ? "exited" : "stopped");
        if (!e->lost && (rc = check_cycle(c, t, r, e)) != TM_OK)
            return rc;
        ct->valid = 0;
        return TM_OK;
    }
    case TMC_MEM: {
        if (!c->f.v.data)
            return TM_OK;
        rp_thread *d = &c->f.v.th[t];
        int in_gap;
        if (ct->g_valid && ct->g_cycle == r->cycle) {
            in_gap = ct->g_gap;
        } else {
            /* the operand opens its group: the group is in the gap iff the
             * replay's next event is a gap with records left */
            if ((rc = cur(c, t, &e)) < 0)
                return rc;
            in_gap = rc == 1 && e->kind == EV_GAP && ct->left > 0;
        }
        (void)d;
        return rp_mem(&c->f.v, r, in_gap, c->f.g[t].pc);
    }
    default:
        return TM_OK;
    }
}

static int cmp_finish(cmp *c, uint32_t t)
{
    cmp_thread *ct = &c->c[t];
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_END;
    r.tid = t;
    r.cycle = c->last_cycle + 1;
    for (;;) {
        fb_event *e;
        int rc = cur(c, t, &e);
        if (rc <= 0)
            return rc;
        if (e->kind == EV_GAP)
            return diverge(c, t, &r, "the commit stream ends %" PRIu64 " instructions before the trace's gap does",
                           ct->left);
        if (e->kind != EV_END || e->reason != TM_END_STOP)
            return diverge(c, t, &r, "the commit stream ends, but the replay from the binaries has %s at 0x%" PRIx64,
                           ev_name(e->kind), e->pc);
        if (!e->lost && (rc = check_cycle(c, t, &r, e)) != TM_OK)
            return rc;
        ct->valid = 0;
    }
}

static int run_verify(const tmt_file *tf, tm_image *im, const tm_frombin_opts *o, tm_frombin_result *res,
                      char *err, size_t errlen)
{
    cmp c;
    memset(&c, 0, sizeof c);
    vsrc *rd = NULL;
    int rc = fb_open(&c.f, tf, im, o->tmc, -1, 0, &res->v, err, errlen);
    if (rc != TM_OK)
        goto out;
    c.f.run_limit = run_limit(tf, o);
    c.f.insns = o->max_run ? NULL : tf->thread_insns;
    fb_limits(&c.f);
    c.c = calloc(c.f.v.n, sizeof *c.c);
    if (!c.c) {
        rc = rp_fail(&c.f.v, TM_ERR_NOMEM, "out of memory");
        goto out;
    }
    char e[600];
    /* One read of the commit stream: the replay here, the file checks
     * (spec §6.2) on a second thread over the same records. */
    rc = vsrc_open(o->tmc, tf, 1, 1, &rd, e, sizeof e);
    if (rc != TM_OK) {
        rp_fail(&c.f.v, rc, "%s", e);
        goto out;
    }
    if (vsrc_threads(rd) != c.f.v.n) {
        rc = rp_fail(&c.f.v, TM_ERR_MISMATCH, "the commit stream declares %u threads but the trace was made for %u",
                     vsrc_threads(rd), c.f.v.n);
        goto out;
    }
    const tmc_record *rp;
    uint64_t nrec = 0;
    uint64_t insns = 0;
    while ((rc = vsrc_next(rd, &rp)) == 1) {
        const tmc_record *r = rp;
        if (r->type == TMC_MODULE || r->type == TMC_END || r->type == TMC_ENDING)
            continue;
        c.last_cycle = r->cycle;
        if (r->type == TMC_RUN)
            insns += r->count;
        else if (r->type == TMC_BRANCH)
            insns++;
        if ((rc = cmp_record(&c, r)) != TM_OK)
            goto out;
        if (o->progress && (++nrec & ((1u << 22) - 1)) == 0)
            o->progress(res->v.instructions, o->arg);
    }
    if (rc < 0) {
        rp_fail(&c.f.v, rc, "%s", vsrc_error(rd));
        goto out;
    }
    for (uint32_t t = 0; t < c.f.v.n; t++)
        if ((rc = cmp_finish(&c, t)) != TM_OK)
            goto out;
    for (uint32_t t = 0; t < c.f.v.n; t++) {
        rp_thread *d = &c.f.v.th[t];
        if (d->dq.len) {
            rc = rp_fail(&c.f.v, TM_ERR_MISMATCH,
                         "thread %u: the DATA message at trace bit %" PRIu64 " reports a load after the thread's last", t,
                         d->dq.v[d->dq.head].pos);
            goto out;
        }
        if (d->q.len || d->have) {
            rc = rp_fail(&c.f.v, TM_ERR_MISMATCH, "thread %u: the trace holds messages beyond the end of the commit stream",
                         t);
            goto out;
        }
    }
    if (c.f.v.rd.pos < c.f.v.rd.nbits) {
        rc = rp_fail(&c.f.v, TM_ERR_MISMATCH, "trace bit %" PRIu64 ": %" PRIu64 " bits after the end of every thread",
                     c.f.v.rd.pos, c.f.v.rd.nbits - c.f.v.rd.pos);
        goto out;
    }
    /* every instruction of the commit stream was matched (gaps: skipped) */
    res->v.instructions = insns;
    /* The replay matched: what it cannot see (spec §6.2). */
    rc = vsrc_finish(rd, c.f.v.err, c.f.v.errlen);
out:
    rc = rd ? vsrc_blame(rd, rc, c.f.v.err, c.f.v.errlen) : rc;
    res->blocks = c.f.code.blocks;
    free(c.c);
    fb_close(&c.f, 0);
    vsrc_close(rd);
    return rc;
}

/* ---------------------------------------------------------------- entry */

int tm_frombin(const tmt_file *tf, const tm_frombin_opts *o, tm_frombin_result *res, char *err, size_t errlen)
{
    char own[1024];
    err = rp_errbuf(err, &errlen, own, sizeof own);
    memset(res, 0, sizeof *res);
    res->v.ok = 1;
    if (tf->cfg.shared) {
        snprintf(err, errlen,
                 "the trace was made with --shared (one predictor set for all threads): replaying it needs the order "
                 "in which the threads' branches updated the shared predictors, which the trace does not carry; "
                 "from-binary replay supports the private organization only (tm decode --verify replays --shared "
                 "with the commit stream's order)");
        res->v.ok = 0;
        return TM_ERR_ARG;
    }
    if (tf->cfg.enc.data && !o->tmc) {
        snprintf(err, errlen,
                 "the trace has load values (data tracing %s), whose message lengths are the loads' operand sizes, "
                 "which only an instruction-set simulator knows: give the commit stream with --tmc F.tmc",
                 tm_data_mode_name((tm_data_mode)tf->cfg.enc.data));
        res->v.ok = 0;
        return TM_ERR_ARG;
    }
    tm_image_opts io = {o->modules, o->vdso, o->ignore_build_id, tf->isa};
    tm_image *im = NULL;
    int rc = tm_image_load(&io, &im, err, errlen);
    if (rc != TM_OK) {
        res->v.ok = 0;
        return rc;
    }
    rc = o->verify ? run_verify(tf, im, o, res, err, errlen) : run_outputs(tf, im, o, res, err, errlen);
    tm_image_free(im);
    if (rc != TM_OK)
        res->v.ok = 0;
    return rc;
}
