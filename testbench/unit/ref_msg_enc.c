/* tm — unit testbench reference (testbench/unit/run.sh): rtl/tm_msg_enc.sv against tm/msg.h's control messages (tm_msg_encode);
 * stimulus and the bit-exact comparison, see tb_ref.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/cache.h"

/* ----------------------------------------------------------------- message */

struct tb_msg {
    char name[128];
    tm_enc_cfg cfg;
    unsigned maxw;
    int examples; /* the configuration of spec §4.7 (§4.9 for tr_a): start with its examples */
    int adaptive; /* tr_a */
    tm_adapt *adapt; /* tr_a: the states, one per thread (the message's is set from the stimulus) */
    /* tr_a: BRANCH messages by form (escape, T bit) and T; orders used */
    uint64_t rng, n, stim, kinds[4], maxlen, form[2][2], kcnt[TM_ADAPT_KMAX + 1], kcc[TM_ADAPT_KMAX + 1];
    tm_bitbuf bb;
    int failed;
};

tb_msg *tb_msg_new(unsigned tiw, unsigned ts, unsigned ca, unsigned cb, unsigned ta, unsigned tb,
                   unsigned ha, unsigned hb, unsigned data, unsigned enc, unsigned maxw, uint64_t seed)
{
    unsigned want;
    tb_msg *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name, "tm_msg_enc ENC=%s TIW=%u TS=%u CA,CB=%u,%u TA,TB=%u,%u HA,HB=%u,%u DATA=%u",
             enc == TM_ENC_TR_A ? "tr_a" : "tr_e", tiw, ts, ca, cb, ta, tb, ha, hb, data);
    /* the fixed encodings differ only in their chunk sizes: tr_e stands for them */
    t->cfg.enc = enc == TM_ENC_TR_A ? TM_ENC_TR_A : TM_ENC_TR_E;
    t->adaptive = enc == TM_ENC_TR_A;
    t->adapt = calloc((size_t)1 << tiw, sizeof *t->adapt);
    if (!t->adapt) exit(2);
    for (unsigned i = 0; i < 1u << tiw; i++) tm_adapt_reset(&t->adapt[i]);
    t->cfg.threads = 1u << tiw;
    t->cfg.timestamps = ts != 0;
    t->cfg.cnt_a = (uint8_t)ca;
    t->cfg.cnt_b = (uint8_t)cb;
    t->cfg.ta_a = (uint8_t)ta;
    t->cfg.ta_b = (uint8_t)tb;
    t->cfg.cc_a = (uint8_t)ha;
    t->cfg.cc_b = (uint8_t)hb;
    t->cfg.data = (uint8_t)data; /* the fah chunks do not matter for control messages */
    t->cfg.fah_a = 3;
    t->cfg.fah_b = 2;
    t->maxw = maxw;
    t->examples = !data && tiw == 2 && ts && ca == 3 && cb == 2 && ta == 3 && tb == 4 && ha == 4 && hb == 2;
    t->rng = seed ^ ((uint64_t)tiw << 40 | (uint64_t)ca << 32 | (uint64_t)ta << 24 | ha) ^
             ((uint64_t)t->adaptive << 48);
    tm_bitbuf_init(&t->bb);
    if (tm_enc_cfg_check(&t->cfg) != TM_OK || tm_ti_bits(t->cfg.threads) != tiw) {
        fprintf(stderr, "%s: invalid configuration\n", t->name);
        exit(2);
    }
    /* with data tracing MSG_MAX is a bundle: the longest DATA + control message */
    want = tm_msg_max_bits(&t->cfg) - tm_msg_data_max_bits(&t->cfg);
    if (want != maxw) {
        fprintf(stderr, "%s: MAXW %u but the longest control message is %u bits\n", t->name, maxw,
                want);
        t->failed = 1;
    }
    if (maxw > TB_MSG_MAXW) {
        fprintf(stderr, "%s: MAXW %u > %u\n", t->name, maxw, TB_MSG_MAXW);
        exit(2);
    }
    return t;
}

static uint64_t rand_diff(uint64_t *s)
{
    switch (tb_rand(s) % 8) {
    case 0: return 0x8000000000000000ull; /* INT64_MIN */
    case 1: return 0x7FFFFFFFFFFFFFFFull; /* INT64_MAX */
    case 2: return ~0ull;                 /* -1 */
    case 3:
    case 4: return (uint64_t)0 - (tb_rand_value(s) >> (tb_rand(s) & 1)); /* negative */
    default: return tb_rand_value(s) >> (tb_rand(s) & 1);
    }
}

/* The worked examples of spec §4.7 (tr_e, N = 4, time stamps). */
static void msg_example(unsigned k, tb_msg_io *io)
{
    switch (k) {
    case 0: io->kind = TM_MSG_BRANCH; io->ti = 1; io->cnt = 5; io->diff_cc = 3; break;
    case 1:
        io->kind = TM_MSG_BRANCH; io->ti = 2; io->cnt = 8; io->t = 1;
        io->diff_ta = (uint64_t)-16; io->diff_cc = 20;
        break;
    case 2: io->kind = TM_MSG_EXC; io->ti = 3; io->icnt = 12; io->diff_ta = 100; break;
    case 3: io->kind = TM_MSG_SYNC; io->reason = TM_SYNC_START; io->addr = 0x401000; io->diff_cc = 7; break;
    case 4:
        io->kind = TM_MSG_SYNC; io->ti = 1; io->reason = TM_SYNC_OVERFLOW; io->dropped = 1;
        io->icnt = 3; io->gap = 40; io->addr = 0x1000; io->diff_cc = 9;
        break;
    case 5: io->kind = TM_MSG_END; io->ti = 2; io->reason = TM_END_EXIT; io->icnt = 6; io->diff_cc = 2; break;
    default:
        io->kind = TM_MSG_END; io->ti = 3; io->reason = TM_END_STOP; io->lost = 1; io->gap = 17;
        io->diff_cc = 100;
        break;
    }
}

/* The examples of spec §4.9 (tr_a, N = 4, time stamps; asserted by
 * tests/unit/test_tra.c): A_cnt, A_cc 32 and TF 0 unless said. */
#define TB_EXAMPLES_A 4
static void msg_example_a(unsigned k, tb_msg_io *io)
{
    io->acnt = io->acc = TM_ADAPT_INIT;
    io->tf = 0;
    switch (k) {
    case 0: io->kind = TM_MSG_BRANCH; io->ti = 1; io->cnt = 5; io->diff_cc = 3; break;
    case 1:
    case 3: /* example 4: example 2's message at TF = 64, the T-bit form */
        io->kind = TM_MSG_BRANCH; io->ti = 2; io->cnt = 8; io->t = 1;
        io->diff_ta = (uint64_t)-16; io->diff_cc = 20;
        io->tf = k == 3 ? 64 : 0;
        break;
    default: io->kind = TM_MSG_BRANCH; io->ti = 1; io->cnt = 1; io->diff_cc = 3; io->acnt = 33; io->acc = 31; break;
    }
}

/* A random TF (0 .. 256), half the time at the form boundary of A_cnt's
 * order K: the smallest TF of the T-bit form, TF x (K + 3) >= 256, or one
 * below it. */
static uint16_t rand_tf(uint64_t *s, unsigned k)
{
    unsigned b = (256u + k + 2u) / (k + 3u);
    switch (tb_rand(s) % 8) {
    case 0: return 0;
    case 1: return 256;
    case 2: case 3: return (uint16_t)b;
    case 4: case 5: return (uint16_t)(b - 1u);
    default: return (uint16_t)(tb_rand(s) % 257u);
    }
}

/* A random accumulator (0 .. 65528, the largest an accumulator reaches),
 * biased toward the reset value and the boundaries of the orders. */
static uint16_t rand_acc(uint64_t *s)
{
    unsigned k = (unsigned)(tb_rand(s) % (TM_ADAPT_KMAX + 1));
    switch (tb_rand(s) % 6) {
    case 0: return (uint16_t)TM_ADAPT_INIT;
    case 1: return (uint16_t)((8u << k) - 1u);                  /* just below order k (k >= 1) */
    case 2: return (uint16_t)(8u << k);                         /* the first of order k */
    case 3: return (uint16_t)(tb_rand(s) % 8u);                 /* A >> 3 = 0: order 0 */
    case 4: return (uint16_t)(65528u - tb_rand(s) % 8u * (tb_rand(s) & 1 ? 1u : 1000u));
    default: return (uint16_t)(tb_rand(s) % 65529u);
    }
}

/* A value for a field coded in order K: around its code-length steps. */
static uint64_t rand_eg_value(uint64_t *s, unsigned k)
{
    if (tb_rand(s) & 1) return tb_rand_value(s);
    unsigned n = k + (unsigned)(tb_rand(s) % (65 - k)); /* n = floor(log2(v + 2^k)) */
    uint64_t base = n == 64 ? 0 : (1ull << n);           /* w = 2^n: v = 2^n - 2^k */
    base -= 1ull << k;
    return base - (tb_rand(s) % 3 == 0) + (tb_rand(s) % 3 == 0); /* the step, one below, one above */
}

void tb_msg_stim(tb_msg *t, tb_msg_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    if (t->examples && !t->adaptive && t->stim < 7) {
        msg_example((unsigned)t->stim++, io);
        return;
    }
    if (t->examples && t->adaptive && t->stim < TB_EXAMPLES_A) {
        msg_example_a((unsigned)t->stim++, io);
        return;
    }
    t->stim++;
    /* Every field random (a kind ignores the fields it does not carry), then
     * the constraints of a valid message. */
    io->kind = (uint8_t)(tb_rand(s) % 4);
    io->ti = (uint32_t)(tb_rand(s) & (t->cfg.threads - 1));
    io->cnt = tb_rand_value(s);
    io->t = tb_rand(s) & 1;
    io->diff_ta = rand_diff(s);
    io->icnt = tb_rand_value(s);
    io->gap = tb_rand_value(s);
    io->addr = tb_rand(s) % 4 ? tb_rand(s) : tb_rand_value(s);
    io->reason = (uint8_t)(tb_rand(s) % 3);
    io->lost = tb_rand(s) & 1;
    io->dropped = tb_rand(s) & 1;
    io->diff_cc = tb_rand_value(s);
    io->acnt = io->acc = (uint16_t)TM_ADAPT_INIT;
    if (t->adaptive) {
        io->acnt = rand_acc(s);
        io->acc = rand_acc(s);
        io->tf = rand_tf(s, tm_adapt_k(io->acnt));
        if (tb_rand(s) & 1) io->cnt = rand_eg_value(s, tm_adapt_k(io->acnt));
        if (tb_rand(s) & 1) io->diff_cc = rand_eg_value(s, tm_adapt_k(io->acc));
    }
    if (io->kind == TM_MSG_BRANCH && io->cnt == 0) io->cnt = 1 + (tb_rand(s) & 1) * ~1ull;
    if (io->kind == TM_MSG_END) io->reason &= 1;
}

int tb_msg_check(tb_msg *t, const tb_msg_io *io)
{
    tm_msg m;
    unsigned len, n;
    if (t->failed) return 1;
    memset(&m, 0, sizeof m);
    m.kind = (tm_msg_kind)io->kind;
    m.ti = io->ti;
    m.cnt = io->cnt;
    m.t = io->t;
    m.diff_ta = (int64_t)io->diff_ta;
    m.icnt = io->icnt;
    m.gap = io->gap;
    m.addr = io->addr;
    m.reason = io->reason;
    m.lost = io->lost;
    m.dropped = io->dropped;
    m.diff_cc = io->diff_cc;
    tm_bitbuf_clear(&t->bb);
    /* the message's thread in the stimulus' state (the fixed encodings ignore it) */
    t->adapt[m.ti].cnt = io->acnt;
    t->adapt[m.ti].cc = io->acc;
    t->adapt[m.ti].tf = io->tf;
    len = tm_msg_bits_a(&t->cfg, t->adapt, &m);
    if (tm_msg_encode_a(&t->cfg, t->adapt, &m, &t->bb, NULL) != TM_OK || t->bb.nbits != len || len == 0) {
        fprintf(stderr, "%s: C encoder rejected the message\n", t->name);
        t->failed = 1;
        return 1;
    }
    t->n++;
    t->kinds[io->kind]++;
    if (t->adaptive) {
        t->kcnt[tm_adapt_k(io->acnt)]++;
        t->kcc[tm_adapt_k(io->acc)]++;
        if (io->kind == TM_MSG_BRANCH) t->form[!tm_adapt_escape(&t->adapt[m.ti])][io->t != 0]++;
    }
    if (len > t->maxlen) t->maxlen = len;
    n = io->len != len;
    for (unsigned k = 0; k < TB_MSG_MAXW && !n; k++) {
        unsigned want = k < len ? (t->bb.data[k / 8] >> (k % 8)) & 1 : 0;
        n = ((io->bits[k / 8] >> (k % 8)) & 1) != want;
    }
    if (n) {
        char txt[512];
        tm_msg_format(&m, t->cfg.timestamps, txt, sizeof txt);
        fprintf(stderr, "%s: message %" PRIu64 " (%s; A_cnt %u, A_cc %u, TF %u): len_o %u, C %u\n  RTL ", t->name,
                t->n, txt, (unsigned)io->acnt, (unsigned)io->acc, (unsigned)io->tf, io->len, len);
        for (unsigned k = 0; k < (io->len > len ? io->len : len) + 4 && k < TB_MSG_MAXW; k++)
            fputc('0' + ((io->bits[k / 8] >> (k % 8)) & 1), stderr);
        fprintf(stderr, "\n  C   ");
        for (unsigned k = 0; k < len; k++) fputc('0' + ((t->bb.data[k / 8] >> (k % 8)) & 1), stderr);
        fputc('\n', stderr);
        t->failed = 1;
        return 1;
    }
    return 0;
}

int tb_msg_finish(tb_msg *t)
{
    char d[640];
    int f;
    int r = snprintf(d, sizeof d,
             "%" PRIu64 " messages compared (BRANCH %" PRIu64 ", EXC %" PRIu64 ", SYNC %" PRIu64
             ", END %" PRIu64 "%s), longest %" PRIu64 " of MAXW %u bits",
             t->n, t->kinds[0], t->kinds[1], t->kinds[2], t->kinds[3],
             !t->examples ? "" : t->adaptive ? "; the first 4 are the examples of spec 4.9"
                                             : "; the first 7 are the examples of spec 4.7",
             t->maxlen, t->maxw);
    size_t n = r > 0 ? (size_t)r : 0;
    if (t->adaptive) {
        /* every order must have been used, for cnt and (with time stamps) diffCC */
        unsigned hit_cnt = 0, hit_cc = 0;
        for (unsigned k = 0; k <= TM_ADAPT_KMAX; k++) {
            hit_cnt += t->kcnt[k] != 0;
            hit_cc += t->kcc[k] != 0;
        }
        if (n < sizeof d)
            snprintf(d + n, sizeof d - n,
                     "; BRANCH escape form outcome %" PRIu64 " / target escapes %" PRIu64 ", T-bit form T=0 %"
                     PRIu64 " / T=1 %" PRIu64 "; orders 0..12 used: cnt %u, diffCC %u",
                     t->form[0][0], t->form[0][1], t->form[1][0], t->form[1][1], hit_cnt,
                     t->cfg.timestamps ? hit_cc : 0);
        if (!t->failed && t->n && (hit_cnt != TM_ADAPT_KMAX + 1 || (t->cfg.timestamps && hit_cc != TM_ADAPT_KMAX + 1))) {
            fprintf(stderr, "%s: not every order was used\n", t->name);
            t->failed = 1;
        }
        if (!t->failed && t->n >= 1000 && (!t->form[0][0] || !t->form[0][1] || !t->form[1][0] || !t->form[1][1])) {
            fprintf(stderr, "%s: a form of BRANCH messages was not used\n", t->name);
            t->failed = 1;
        }
    }
    f = tb_report(t->name, t->failed, d);
    tm_bitbuf_free(&t->bb);
    free(t->adapt);
    free(t);
    return f;
}
