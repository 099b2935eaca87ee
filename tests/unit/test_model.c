/* Scenario tests of the trace module model (docs/spec.md §3), mirroring the
 * thesis's traptortest (seeds/000 Figs. 4.30-4.35).  Each scenario is a commit
 * stream built here; the expected messages were worked out by hand from the
 * spec's formulas (the per-step predictor values are in test_pred.c). */
#include <criterion/criterion.h>
#include <string.h>
#include "tm/model.h"

#define MAXM 512
typedef struct cap {
    tm_msg m[MAXM];
    unsigned bits[MAXM];
    int acc[MAXM];
    uint64_t cyc[MAXM];
    int n;
} cap;

static void hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits, int accepted)
{
    (void)core;
    cap *c = arg;
    if (c->n < MAXM) {
        c->m[c->n] = *m;
        c->bits[c->n] = bits;
        c->acc[c->n] = accepted;
        c->cyc[c->n] = cycle;
        c->n++;
    }
}

typedef struct sim {
    tm_model *m;
    cap cap;
    uint64_t cycle;
    uint64_t pc[8];
} sim;

static void sim_init(sim *s, tm_model_cfg *cfg)
{
    memset(s, 0, sizeof *s);
    char err[200];
    cr_assert_eq(tm_model_cfg_resolve(cfg, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tm_model_new(cfg, &s->m, NULL, 0), TM_OK);
    tm_model_set_hook(s->m, hook, &s->cap);
}

static void put(sim *s, tmc_record *r)
{
    cr_assert_eq(tm_model_put(s->m, r), TM_OK, "%s", tm_model_error(s->m));
}

static void start(sim *s, uint32_t t, uint64_t pc)
{
    tmc_record r = {0};
    r.type = TMC_START; r.tid = t; r.cycle = ++s->cycle; r.pc = pc;
    s->pc[t] = pc;
    put(s, &r);
}

/* A group: N plain instructions of BYTES bytes, then a branch. */
static void run(sim *s, uint32_t t, uint64_t n, uint64_t bytes)
{
    tmc_record r = {0};
    r.type = TMC_RUN; r.tid = t; r.cycle = s->cycle + 1; r.pc = s->pc[t]; r.count = n; r.bytes = bytes;
    s->pc[t] += bytes;
    put(s, &r);
}

static void br(sim *s, uint32_t t, int cls, unsigned len, uint64_t target, int taken)
{
    tmc_record r = {0};
    r.type = TMC_BRANCH; r.tid = t; r.cycle = ++s->cycle; r.pc = s->pc[t]; r.len = (uint8_t)len;
    r.bclass = (uint8_t)cls; r.taken = (uint8_t)taken; r.target = target;
    s->pc[t] = taken ? target : s->pc[t] + len;
    put(s, &r);
}

static void exc(sim *s, uint32_t t, uint64_t handler)
{
    tmc_record r = {0};
    r.type = TMC_EXC; r.tid = t; r.cycle = ++s->cycle; r.pc = s->pc[t]; r.target = handler;
    s->pc[t] = handler;
    put(s, &r);
}

static void exit_(sim *s, uint32_t t)
{
    tmc_record r = {0};
    r.type = TMC_EXIT; r.tid = t; r.cycle = ++s->cycle;
    put(s, &r);
}

static tm_model_cfg cfg_of(tm_encoding enc, uint32_t g, uint32_t ras, uint32_t ibtb)
{
    tm_model_cfg c;
    tm_model_cfg_default(&c, 1);
    tm_enc_cfg_default(&c.enc, enc, 1, 0);
    c.pred.gshare = g; c.pred.ras = ras; c.pred.ibtb = ibtb;
    return c;
}

/* Expected message shorthands. */
typedef struct exp_msg {
    int kind;
    uint64_t cnt;
    int t;
    int64_t diff_ta;
    uint64_t icnt;
    uint64_t addr;
} exp_msg;
#define SYNC_START(a) {TM_MSG_SYNC, 0, 0, 0, 0, (a)}
#define BR_OUT(c) {TM_MSG_BRANCH, (c), 0, 0, 0, 0}
#define BR_TGT(c, d) {TM_MSG_BRANCH, (c), 1, (d), 0, 0}
#define EXC(i, d) {TM_MSG_EXC, 0, 0, (d), (i), 0}
#define END_EXIT(i) {TM_MSG_END, 0, 0, 0, (i), 0}

static void expect(const cap *c, const exp_msg *e, int n)
{
    cr_assert_eq(c->n, n, "expected %d messages, the model offered %d", n, c->n);
    for (int i = 0; i < n; i++) {
        const tm_msg *m = &c->m[i];
        cr_assert(c->acc[i], "message %d accepted", i);
        cr_assert_eq(m->kind, e[i].kind, "message %d kind", i);
        switch (m->kind) {
        case TM_MSG_BRANCH:
            cr_assert_eq(m->cnt, e[i].cnt, "message %d cnt", i);
            cr_assert_eq(m->t, e[i].t, "message %d T", i);
            if (m->t)
                cr_assert_eq(m->diff_ta, e[i].diff_ta, "message %d diffTA", i);
            break;
        case TM_MSG_EXC:
            cr_assert_eq(m->icnt, e[i].icnt, "message %d iCnt", i);
            cr_assert_eq(m->diff_ta, e[i].diff_ta, "message %d diffTA", i);
            break;
        case TM_MSG_SYNC:
            cr_assert_eq(m->addr, e[i].addr, "message %d addr", i);
            break;
        case TM_MSG_END:
            cr_assert_eq(m->icnt, e[i].icnt, "message %d iCnt", i);
            break;
        case TM_MSG_DATA:
            cr_assert_eq(m->fah, e[i].cnt, "message %d fahCnt", i);
            break;
        }
    }
}

/* Thesis Fig. 4.30: a loop whose branch is learned only after the BHR has
 * warmed up.  256-entry gshare; jbe at 0x40048e taken 10 times, then not
 * taken; then jbe at 0x400490 and 0x400492, not taken.  Indices (test_pred):
 * executions 1..9 use fresh entries (counter 1, predicts not taken) and
 * mispredict; the 10th hits entry 183 (counter 2) and is right; the 11th
 * (not taken) finds 3 and mispredicts with bCnt 2; 0x400490 maps to 183
 * (counter 2, mispredicts, bCnt 1); 0x400492 maps to 181 (right). */
Test(model, traptortest_gshare_loop)
{
    tm_model_cfg c = cfg_of(TM_ENC_TR_E, 256, 8, 0);
    sim s;
    sim_init(&s, &c);
    start(&s, 0, 0x400470);
    run(&s, 0, 1, 7);                          /* mov */
    br(&s, 0, TMC_JUMP, 2, 0x400488, 1);       /* jmp .L2 */
    for (int k = 0; k < 11; k++) {
        if (k)
            run(&s, 0, 3, 15);                 /* .L3 body at 0x400479 */
        run(&s, 0, 1, 6);                      /* cmp at 0x400488 */
        br(&s, 0, TMC_COND, 2, 0x400479, k < 10);
    }
    br(&s, 0, TMC_COND, 2, 0x400479, 0);       /* 0x400490 */
    br(&s, 0, TMC_COND, 2, 0x400479, 0);       /* 0x400492 */
    exit_(&s, 0);
    cr_assert_eq(tm_model_finish(s.m), TM_OK);
    const exp_msg e[] = {SYNC_START(0x400470),
                         BR_OUT(1), BR_OUT(1), BR_OUT(1), BR_OUT(1), BR_OUT(1), BR_OUT(1), BR_OUT(1),
                         BR_OUT(1), BR_OUT(1), /* executions 1..9 */
                         BR_OUT(2),            /* 11th execution, after the correct 10th */
                         BR_OUT(1),            /* 0x400490 */
                         END_EXIT(1)};         /* 0x400492 retired after the last message */
    expect(&s.cap, e, (int)(sizeof e / sizeof e[0]));
    const tm_model_stats *st = tm_model_get_stats(s.m);
    cr_assert_eq(st->total.cond_predicted, 13);
    cr_assert_eq(st->total.cond_mispredicted, 11);
    cr_assert_eq(st->total.instructions, 1 + 1 + 10 * 3 + 11 + 11 + 2);
    tm_model_free(s.m);
}

/* Thesis Fig. 4.32: main calls funct(5), which recurses five times; seven
 * returns, the last (main's, to the loader) on an empty RAS.  Large preset.
 * je at 0x40048e: not taken five times (counter 1 -> predicted not taken, then
 * 0), taken the sixth time -> the first message, bCnt 6.  The six returns of
 * funct are predicted; main's return mispredicts: bCnt 7 (6 returns + it),
 * target 0x7fd2349a7cdd reported against PTA = the start address. */
Test(model, traptortest_ras_recursion)
{
    tm_model_cfg c = cfg_of(TM_ENC_TR_E, 4096, 32, 64);
    sim s;
    sim_init(&s, &c);
    start(&s, 0, 0x4004a0);
    run(&s, 0, 3, 8);                           /* push, mov, mov edi,5 */
    br(&s, 0, TMC_CALL, 5, 0x400480, 1);        /* call funct at 0x4004a8 */
    for (int d = 5; d >= 0; d--) {
        run(&s, 0, 5, 14);                      /* funct prologue + cmp, to 0x40048e */
        br(&s, 0, TMC_COND, 2, 0x40049f, d == 0);
        if (d) {
            run(&s, 0, 3, 9);                   /* sub, mov, mov to 0x400499 */
            br(&s, 0, TMC_CALL, 5, 0x400480, 1);
        }
    }
    /* innermost: .L5 nop, leave, ret */
    s.pc[0] = 0x40049f;
    run(&s, 0, 2, 2);
    br(&s, 0, TMC_RET, 1, 0x40049e, 1);
    for (int d = 1; d <= 5; d++) {              /* jmp .L4; leave; ret */
        br(&s, 0, TMC_JUMP, 2, 0x4004a0, 1);
        run(&s, 0, 1, 1);
        br(&s, 0, TMC_RET, 1, d < 5 ? 0x40049e : 0x4004ad, 1);
    }
    run(&s, 0, 1, 1);                           /* leave in main */
    br(&s, 0, TMC_RET, 1, 0x7fd2349a7cdd, 1);   /* to the loader: empty RAS */
    exit_(&s, 0);
    cr_assert_eq(tm_model_finish(s.m), TM_OK);
    const exp_msg e[] = {SYNC_START(0x4004a0), BR_OUT(6),
                         BR_TGT(7, (int64_t)(0x7fd2349a7cddULL - 0x4004a0ULL)), END_EXIT(0)};
    expect(&s.cap, e, (int)(sizeof e / sizeof e[0]));
    const tm_model_stats *st = tm_model_get_stats(s.m);
    cr_assert_eq(st->total.target_predicted, 7);
    cr_assert_eq(st->total.target_mispredicted, 1);
    tm_model_free(s.m);
}

/* Thesis Fig. 4.34: an indirect call in a loop (10 iterations) with
 * compulsory iBTB misses.  Large preset.  Per test_pred, the icall at
 * 0x40049c misses in iterations 1..8 (the PIR still changes) and hits in 9
 * and 10.  The loop branch jle at 0x4004a6 sees a new gshare entry every time
 * (the BHR shifts in ones), so its ten taken executions mispredict and the
 * final not-taken one is right.  The returns of fpoint1 are predicted by the
 * RAS; main's return (never pushed) mispredicts.
 * bCnt counts cond, icall and ret: it. 1: jle 1, icall 1 (diffTA 0x400474 -
 * 0x40047a = -6); it. 2..8: ret + jle = 2, icall 1 (diffTA 0); it. 9: jle 2;
 * it. 10: icall, ret, jle = 3; end: icall, ret, jle, ret = 4. */
Test(model, traptortest_ibtb_icall_loop)
{
    tm_model_cfg c = cfg_of(TM_ENC_TR_E, 4096, 32, 64);
    sim s;
    sim_init(&s, &c);
    start(&s, 0, 0x40047a);
    run(&s, 0, 5, 23);                          /* main prologue, to 0x400491 */
    br(&s, 0, TMC_JUMP, 2, 0x4004a2, 1);        /* jmp .L4 */
    for (int i = 0; i <= 10; i++) {
        run(&s, 0, 1, 4);                       /* cmp at 0x4004a2 */
        br(&s, 0, TMC_COND, 2, 0x400493, i < 10);
        if (i == 10)
            break;
        run(&s, 0, 2, 9);                       /* mov rdx; mov eax */
        br(&s, 0, TMC_ICALL, 2, 0x400474, 1);   /* call rdx at 0x40049c */
        run(&s, 0, 3, 5);                       /* fpoint1: push, mov, leave */
        br(&s, 0, TMC_RET, 1, 0x40049e, 1);
        run(&s, 0, 1, 4);                       /* add */
    }
    run(&s, 0, 1, 1);                           /* leave */
    br(&s, 0, TMC_RET, 1, 0x7f0000001234, 1);
    exit_(&s, 0);
    cr_assert_eq(tm_model_finish(s.m), TM_OK);
    exp_msg e[64];
    int n = 0;
    e[n++] = (exp_msg)SYNC_START(0x40047a);
    e[n++] = (exp_msg)BR_OUT(1);
    e[n++] = (exp_msg)BR_TGT(1, -6);
    for (int it = 2; it <= 8; it++) {
        e[n++] = (exp_msg)BR_OUT(2);
        e[n++] = (exp_msg)BR_TGT(1, 0);
    }
    e[n++] = (exp_msg)BR_OUT(2);
    e[n++] = (exp_msg)BR_OUT(3);
    e[n++] = (exp_msg)BR_TGT(4, (int64_t)(0x7f0000001234ULL - 0x400474ULL));
    e[n++] = (exp_msg)END_EXIT(0);
    expect(&s.cap, e, n);
    tm_model_free(s.m);
}

/* An exception: EXC carries the instructions since the last message and the
 * handler as a difference to PTA; PTA becomes the handler. */
Test(model, exception_message)
{
    tm_model_cfg c = cfg_of(TM_ENC_TR_E, 4096, 32, 64);
    sim s;
    sim_init(&s, &c);
    start(&s, 0, 0x1000);
    run(&s, 0, 7, 20);
    exc(&s, 0, 0x800);
    run(&s, 0, 2, 4);
    exc(&s, 0, 0x1014);                         /* return to the interrupted pc */
    exit_(&s, 0);
    cr_assert_eq(tm_model_finish(s.m), TM_OK);
    const exp_msg e[] = {SYNC_START(0x1000), EXC(7, 0x800 - 0x1000), EXC(2, 0x1014 - 0x800), END_EXIT(0)};
    expect(&s.cap, e, 4);
    tm_model_free(s.m);
}

/* Nexus-like baseline: a message per taken conditional (SL = instructions
 * since the last message, the branch included) and per indirect branch. */
Test(model, nx_b_stream_lengths)
{
    tm_model_cfg c = cfg_of(TM_ENC_NX_B, 4096, 32, 64);
    sim s;
    sim_init(&s, &c);
    start(&s, 0, 0x2000);
    run(&s, 0, 4, 10);
    br(&s, 0, TMC_COND, 2, 0x3000, 0);          /* not taken: no message */
    run(&s, 0, 1, 3);
    br(&s, 0, TMC_COND, 2, 0x3000, 1);          /* SL = 4 + 1 + 1 + 1 = 7 */
    br(&s, 0, TMC_CALL, 5, 0x4000, 1);          /* direct: inferable */
    run(&s, 0, 2, 2);
    br(&s, 0, TMC_RET, 1, 0x3005, 1);           /* SL = 1 + 2 + 1 = 4, target */
    exit_(&s, 0);
    cr_assert_eq(tm_model_finish(s.m), TM_OK);
    const exp_msg e[] = {SYNC_START(0x2000), BR_OUT(7), BR_TGT(4, 0x3005 - 0x2000), END_EXIT(0)};
    expect(&s.cap, e, 4);
    tm_model_free(s.m);
}

/* Port timing (spec §3.6): a message accepted in cycle c leaves from c + 1,
 * W bits per cycle, oldest first. */
Test(model, port_timing)
{
    tm_model_cfg c = cfg_of(TM_ENC_TR_E, 4096, 32, 64);
    c.port_bits = 4;
    sim s;
    sim_init(&s, &c);
    start(&s, 0, 0x1000);   /* cycle 1: SYNC, 4 (cnt) + 2 + 2 + 64 = 72 bits */
    exit_(&s, 0);           /* cycle 2: END, 4 + 2 + 1 + 1 + 4 = 12 bits */
    cr_assert_eq(tm_model_finish(s.m), TM_OK);
    cr_assert_eq(s.cap.bits[0], 72);
    cr_assert_eq(s.cap.bits[1], 12);
    const tm_model_stats *st = tm_model_get_stats(s.m);
    cr_assert_eq(st->exec_cycles, 3);
    cr_assert_eq(st->peak_occupancy, 72 - 4 + 12);
    /* cycles 0, 1 idle; cycle 2 sends 4; 80 bits remain after cycle 2: 20 more. */
    cr_assert_eq(st->cycles, 3 + 20);
    cr_assert_eq(st->idle_cycles, 2);
    cr_assert_eq(st->busy_cycles, 21);
    cr_assert_eq(tm_model_trace(s.m)->nbits, 84);
    tm_model_free(s.m);
}

/* Overflow (spec §3.5): with the smallest buffer and a 1-bit port, a stream
 * of mispredictions overflows; the lost thread resynchronizes with a
 * SYNC(OVERFLOW) whose tail + gap account for every instruction. */
Test(model, overflow_and_resync)
{
    tm_model_cfg c = cfg_of(TM_ENC_TR_E, 0, 0, 0); /* gshare 0: every taken cond reported */
    c.port_bits = 1;
    c.buffer_bits = tm_msg_max_bits(&c.enc);
    sim s;
    sim_init(&s, &c);
    start(&s, 0, 0x1000);
    for (int i = 0; i < 400; i++) {
        run(&s, 0, 2, 8);
        br(&s, 0, TMC_COND, 2, 0x1000, 1);
        s.pc[0] = 0x1000;
    }
    exit_(&s, 0);
    cr_assert_eq(tm_model_finish(s.m), TM_OK);
    const tm_model_stats *st = tm_model_get_stats(s.m);
    cr_assert(st->total.dropped_messages > 0, "the buffer overflowed");
    cr_assert(st->total.sync_reasons[TM_SYNC_OVERFLOW] > 0, "and resynchronized");
    cr_assert(st->peak_occupancy <= c.buffer_bits);
    /* Every instruction is accounted for by accepted messages: counts since the
     * previous message (cnt x 3 instructions per branch message here), tails and gaps. */
    uint64_t acc = 0;
    int saw_overflow_sync = 0;
    for (int i = 0; i < s.cap.n; i++) {
        const tm_msg *m = &s.cap.m[i];
        if (!s.cap.acc[i])
            continue;
        if (m->kind == TM_MSG_BRANCH)
            acc += 3 * m->cnt;
        else if (m->kind == TM_MSG_SYNC && m->reason == TM_SYNC_OVERFLOW) {
            cr_assert_eq(m->dropped, 1);
            acc += m->icnt + m->gap;
            saw_overflow_sync = 1;
        } else if (m->kind == TM_MSG_END)
            acc += m->icnt + (m->lost ? m->gap : 0);
    }
    cr_assert(saw_overflow_sync || s.cap.n >= MAXM);
    if (s.cap.n < MAXM)
        cr_assert_eq(acc, 1200, "tails, gaps and counts cover all 1200 instructions");
    tm_model_free(s.m);
}
