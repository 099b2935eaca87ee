/* tm — unit testbenches of the predictor and message-encoder RTL: stimulus
 * and the bit-exact comparison against the C library (tm/pred.h, tm/msg.h).
 * See tb_ref.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/cache.h"

/* ------------------------------------------------------------------ common */

uint64_t tb_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* 1 with probability 1/n */
static int one_in(uint64_t *s, unsigned n)
{
    return tb_rand(s) % n == 0;
}

uint64_t tb_rand_value(uint64_t *s)
{
    unsigned nb = (unsigned)(tb_rand(s) % 65); /* significant bits */
    uint64_t mask = nb == 64 ? ~0ull : (1ull << nb) - 1;
    uint64_t top = nb == 0 ? 0 : 1ull << (nb - 1);
    switch (tb_rand(s) % 8) {
    case 0: return 0;
    case 1: return mask;                 /* all ones of a width */
    case 2: return top;                  /* a single bit */
    case 3: return ~0ull;
    default: return (tb_rand(s) & mask) | top;
    }
}

int tb_report(const char *name, int failed, const char *detail)
{
    printf("%s %s: %s\n", failed ? "FAIL" : "PASS", name, detail);
    fflush(stdout);
    return failed != 0;
}

static tm_pred *pred_new(unsigned gshare, unsigned ras, unsigned ibtb)
{
    tm_pred_cfg c = {.gshare = gshare, .ras = ras, .ibtb = ibtb};
    tm_pred *p = NULL;
    if (tm_pred_new(&c, &p) != TM_OK) {
        fprintf(stderr, "tm_pred_new(gshare %u, ras %u, ibtb %u) failed\n", gshare, ras, ibtb);
        exit(2);
    }
    return p;
}

/* Reset / clear schedule shared by the predictor testbenches. */
static void reset_clear(uint64_t *s, uint64_t cycle, uint8_t *rst_n, uint8_t *clear)
{
    *rst_n = !(cycle < 2 || one_in(s, 40000));
    *clear = one_in(s, 12000);
}

/* ------------------------------------------------------------------ gshare */

#define GS_SITES 48

struct tb_gshare {
    char name[64];
    unsigned entries, ports;
    tm_pred *p;
    uint64_t rng, cycle;
    uint64_t site_pc[GS_SITES];
    uint8_t site_kind[GS_SITES];
    uint32_t site_n[GS_SITES];
    uint64_t ops, pred_taken, chained, clears, resets;
    int failed;
};

tb_gshare *tb_gshare_new(unsigned entries, unsigned ports, uint64_t seed)
{
    tb_gshare *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name, "tm_gshare ENTRIES=%u P=%u", entries, ports);
    t->entries = entries;
    t->ports = ports;
    t->p = pred_new(entries, 0, 0);
    t->rng = seed ^ (0x100000ull * entries + ports);
    for (int i = 0; i < GS_SITES; i++) {
        t->site_pc[i] = tb_rand(&t->rng) & (i < GS_SITES / 2 ? 0xFFFFull : ~0ull);
        t->site_kind[i] = (uint8_t)(tb_rand(&t->rng) % 5);
    }
    return t;
}

void tb_gshare_stim(tb_gshare *t, tb_gshare_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    reset_clear(s, t->cycle, &io->rst_n, &io->clear);
    /* The BHR each port will see, to aim some ports at the counter of an
     * earlier port of the same cycle (the forwarding path). */
    tm_pred_state st;
    uint32_t mask = t->entries ? t->entries - 1 : 0, bhr, idx[TB_MAXP];
    tm_pred_get_state(t->p, &st);
    bhr = io->rst_n ? st.bhr : 0;
    for (unsigned p = 0; p < TB_MAXP; p++) {
        io->valid[p] = tb_rand(s) % 10 < 7;
        if (p > 0 && p < t->ports && io->valid[p - 1] && tb_rand(s) % 4 == 0) {
            unsigned q = (unsigned)(tb_rand(s) % p); /* may be invalid: then no collision */
            io->pc[p] = (tb_rand(s) & ~((uint64_t)mask << 4)) | (uint64_t)((idx[q] ^ bhr) & mask) << 4;
            io->taken[p] = tb_rand(s) & 1;
        } else if (tb_rand(s) % 5 == 0) { /* anywhere */
            io->pc[p] = tb_rand(s);
            io->taken[p] = tb_rand(s) & 1;
        } else { /* a branch site with a behaviour */
            unsigned i = (unsigned)(tb_rand(s) % GS_SITES);
            uint32_t n = t->site_n[i]++;
            io->pc[p] = t->site_pc[i];
            switch (t->site_kind[i]) {
            case 0: io->taken[p] = 1; break;
            case 1: io->taken[p] = 0; break;
            case 2: io->taken[p] = n & 1; break;
            case 3: io->taken[p] = n % 8 != 7; break;
            default: io->taken[p] = tb_rand(s) & 1; break;
            }
        }
        idx[p] = (uint32_t)((bhr ^ (io->pc[p] >> 4)) & mask);
        if (io->valid[p]) bhr = ((bhr << 1) | io->taken[p]) & mask;
    }
    t->cycle++;
}

int tb_gshare_check(tb_gshare *t, const tb_gshare_io *io)
{
    if (t->failed) return 1;
    if (!io->rst_n) {
        tm_pred_reset(t->p);
        t->resets++;
    }
    uint32_t idx[TB_MAXP] = {0};
    for (unsigned p = 0; p < t->ports; p++) {
        int exp = 0;
        if (io->valid[p] && t->entries) {
            /* coverage: an earlier port of this cycle used the same counter */
            idx[p] = tm_pred_cond_index(t->p, io->pc[p]);
            for (unsigned q = 0; q < p; q++)
                if (io->valid[q] && idx[q] == idx[p]) {
                    t->chained++;
                    break;
                }
        }
        if (io->valid[p]) {
            exp = tm_pred_cond_predict(t->p, io->pc[p]);
            tm_pred_cond_update(t->p, io->pc[p], io->taken[p]);
            t->ops++;
            t->pred_taken += exp != 0;
        }
        if (io->pred[p] != exp) {
            fprintf(stderr,
                    "%s: cycle %" PRIu64 " port %u: pred_o %u, C %d (valid %u pc 0x%" PRIx64
                    " taken %u rst_n %u clear %u)\n",
                    t->name, t->cycle - 1, p, io->pred[p], exp, io->valid[p], io->pc[p],
                    io->taken[p], io->rst_n, io->clear);
            t->failed = 1;
            return 1;
        }
    }
    if (!io->rst_n || io->clear) tm_pred_reset(t->p); /* the edge loads the reset state */
    t->clears += io->clear;
    return 0;
}

int tb_gshare_finish(tb_gshare *t)
{
    char d[384];
    int f;
    snprintf(d, sizeof d,
             "%" PRIu64 " cycles, %" PRIu64 " predict+update ops compared (%" PRIu64
             " predicted taken, %" PRIu64 " on a counter an earlier port updated in the same"
             " cycle), %" PRIu64 " clears, %" PRIu64 " resets",
             t->cycle, t->ops, t->pred_taken, t->chained, t->clears, t->resets);
    f = tb_report(t->name, t->failed, d);
    tm_pred_free(t->p);
    free(t);
    return f;
}

/* --------------------------------------------------------------------- RAS */

struct tb_ras {
    char name[64];
    unsigned entries, ports;
    tm_pred *p;
    uint64_t rng, cycle;
    unsigned mode, mode_left;
    uint64_t pushes, pops, hits, chained, clears, resets;
    int failed;
};

tb_ras *tb_ras_new(unsigned entries, unsigned ports, uint64_t seed)
{
    tb_ras *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name, "tm_ras ENTRIES=%u P=%u", entries, ports);
    t->entries = entries;
    t->ports = ports;
    t->p = pred_new(0, entries, 0);
    t->rng = seed ^ (0x200000ull * entries + ports);
    return t;
}

void tb_ras_stim(tb_ras *t, tb_ras_io *io)
{
    /* push / pop probabilities in percent per port, per phase */
    static const unsigned mode_push[] = {50, 30, 15, 60, 10, 45};
    static const unsigned mode_pop[] = {30, 50, 15, 10, 60, 45};
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    if (t->mode_left == 0) {
        t->mode = (unsigned)(tb_rand(s) % 6);
        t->mode_left = 1 + (unsigned)(tb_rand(s) % 200);
    }
    t->mode_left--;
    reset_clear(s, t->cycle, &io->rst_n, &io->clear);
    for (unsigned p = 0; p < TB_MAXP; p++) {
        unsigned r = (unsigned)(tb_rand(s) % 100);
        io->push[p] = r < mode_push[t->mode];
        io->pop[p] = !io->push[p] && r < mode_push[t->mode] + mode_pop[t->mode];
        io->addr[p] = tb_rand(s) % 4 ? tb_rand(s) : tb_rand_value(s);
    }
    t->cycle++;
}

int tb_ras_check(tb_ras *t, const tb_ras_io *io)
{
    uint32_t top[TB_MAXP] = {0};
    if (t->failed) return 1;
    if (!io->rst_n) {
        tm_pred_reset(t->p);
        t->resets++;
    }
    for (unsigned p = 0; p < t->ports; p++) {
        int hit = 0;
        uint64_t pred = 0;
        tm_pred_state st;
        tm_pred_get_state(t->p, &st);
        if (io->push[p]) {
            tm_pred_ras_push(t->p, io->addr[p]);
            t->pushes++;
            tm_pred_get_state(t->p, &st);
            top[p] = st.ras_top; /* the entry this push wrote */
        } else if (io->pop[p]) {
            hit = tm_pred_ras_pop(t->p, &pred);
            if (!hit) pred = 0;
            t->pops++;
            /* coverage: the popped entry was pushed by an earlier port of this cycle */
            for (unsigned q = 0; q < p && hit; q++)
                if (io->push[q] && top[q] == st.ras_top) {
                    t->chained++;
                    break;
                }
            t->hits += hit != 0;
        }
        if (io->hit[p] != hit || io->pred[p] != pred) {
            fprintf(stderr,
                    "%s: cycle %" PRIu64 " port %u: hit_o %u pred_o 0x%" PRIx64 ", C %d 0x%" PRIx64
                    " (push %u pop %u addr 0x%" PRIx64 " rst_n %u clear %u)\n",
                    t->name, t->cycle - 1, p, io->hit[p], io->pred[p], hit, pred, io->push[p],
                    io->pop[p], io->addr[p], io->rst_n, io->clear);
            t->failed = 1;
            return 1;
        }
    }
    if (!io->rst_n || io->clear) tm_pred_reset(t->p);
    t->clears += io->clear;
    return 0;
}

int tb_ras_finish(tb_ras *t)
{
    char d[384];
    int f;
    tm_pred_counts k;
    tm_pred_get_counts(t->p, &k);
    snprintf(d, sizeof d,
             "%" PRIu64 " cycles, %" PRIu64 " pushes + %" PRIu64 " pops compared (%" PRIu64
             " pop hits, %" PRIu64 " of an entry pushed in the same cycle, %" PRIu64
             " pushes onto a full stack, %" PRIu64 " pops of an empty one), %" PRIu64
             " clears, %" PRIu64 " resets",
             t->cycle, t->pushes, t->pops, t->hits, t->chained, k.ras_wraps, k.ras_underflows,
             t->clears, t->resets);
    f = tb_report(t->name, t->failed, d);
    tm_pred_free(t->p);
    free(t);
    return f;
}

/* -------------------------------------------------------------------- iBTB */

#define IB_PROG 16 /* longest loop of indirect branch sites */

struct tb_ibtb {
    char name[64];
    unsigned entries, ports;
    tm_pred *p;
    uint64_t rng, cycle;
    /* the running "program": a loop of sites, each with up to 3 targets */
    unsigned len, pos, left;
    uint64_t pc[IB_PROG], tgt[IB_PROG][3];
    uint64_t ops, hits, chained, clears, resets;
    int failed;
};

tb_ibtb *tb_ibtb_new(unsigned entries, unsigned ports, uint64_t seed)
{
    tb_ibtb *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name, "tm_ibtb ENTRIES=%u P=%u", entries, ports);
    t->entries = entries;
    t->ports = ports;
    t->p = pred_new(0, 0, entries);
    t->rng = seed ^ (0x300000ull * entries + ports);
    return t;
}

static void ibtb_new_program(tb_ibtb *t)
{
    uint64_t *s = &t->rng;
    t->len = 1 + (unsigned)(tb_rand(s) % IB_PROG);
    t->pos = 0;
    t->left = 50 + (unsigned)(tb_rand(s) % 3000);
    for (unsigned i = 0; i < t->len; i++) {
        t->pc[i] = tb_rand(s) % 3 ? tb_rand(s) & 0x3FFFFull : tb_rand(s);
        for (unsigned k = 0; k < 3; k++) t->tgt[i][k] = tb_rand(s);
    }
}

void tb_ibtb_stim(tb_ibtb *t, tb_ibtb_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    if (t->left == 0) ibtb_new_program(t);
    t->left--;
    reset_clear(s, t->cycle, &io->rst_n, &io->clear);
    for (unsigned p = 0; p < TB_MAXP; p++) {
        io->valid[p] = tb_rand(s) % 10 < 6;
        if (tb_rand(s) % 10 == 0) { /* a stray branch */
            io->pc[p] = tb_rand(s);
            io->target[p] = tb_rand(s);
        } else {
            unsigned r = (unsigned)(tb_rand(s) % 10);
            io->pc[p] = t->pc[t->pos];
            io->target[p] = t->tgt[t->pos][r < 8 ? 0 : r - 7];
            if (io->valid[p] && p < t->ports) t->pos = (t->pos + 1) % t->len;
        }
    }
    t->cycle++;
}

int tb_ibtb_check(tb_ibtb *t, const tb_ibtb_io *io)
{
    uint32_t set[TB_MAXP] = {0};
    if (t->failed) return 1;
    if (!io->rst_n) {
        tm_pred_reset(t->p);
        t->resets++;
    }
    for (unsigned p = 0; p < t->ports; p++) {
        int hit = 0;
        uint64_t pred = 0;
        if (io->valid[p]) {
            /* coverage: an earlier port of this cycle updated the same set */
            if (t->entries) {
                uint32_t tag;
                tm_pred_ibtb_slot(t->p, io->pc[p], &set[p], &tag);
                for (unsigned q = 0; q < p; q++)
                    if (io->valid[q] && set[q] == set[p]) {
                        t->chained++;
                        break;
                    }
            }
            hit = tm_pred_ind_predict(t->p, io->pc[p], &pred);
            if (!hit) pred = 0;
            tm_pred_ind_update(t->p, io->pc[p], io->target[p]);
            t->ops++;
            t->hits += hit != 0;
        }
        if (io->hit[p] != hit || io->pred[p] != pred) {
            fprintf(stderr,
                    "%s: cycle %" PRIu64 " port %u: hit_o %u pred_o 0x%" PRIx64 ", C %d 0x%" PRIx64
                    " (valid %u pc 0x%" PRIx64 " target 0x%" PRIx64 " rst_n %u clear %u)\n",
                    t->name, t->cycle - 1, p, io->hit[p], io->pred[p], hit, pred, io->valid[p],
                    io->pc[p], io->target[p], io->rst_n, io->clear);
            t->failed = 1;
            return 1;
        }
    }
    if (!io->rst_n || io->clear) tm_pred_reset(t->p);
    t->clears += io->clear;
    return 0;
}

int tb_ibtb_finish(tb_ibtb *t)
{
    char d[384];
    int f;
    tm_pred_counts k;
    tm_pred_get_counts(t->p, &k);
    snprintf(d, sizeof d,
             "%" PRIu64 " cycles, %" PRIu64 " lookup+update ops compared (%" PRIu64
             " hits, %" PRIu64 " misses filling way 0 / %" PRIu64 " way 1, %" PRIu64
             " on a set an earlier port updated in the same cycle), %" PRIu64 " clears, %" PRIu64
             " resets",
             t->cycle, t->ops, t->hits, k.ibtb_fills[0], k.ibtb_fills[1], t->chained, t->clears,
             t->resets);
    f = tb_report(t->name, t->failed, d);
    tm_pred_free(t->p);
    free(t);
    return f;
}

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

/* ------------------------------------------------------------ CFiat cache */

#define DC_HIST 16

struct tb_dcache {
    char name[96];
    tm_cache_cfg cfg;
    unsigned n, ni, sets, lmax, ls;
    tm_cache *c;
    uint64_t rng, cycle;
    /* the stimulus phase */
    unsigned left, ws_shift, me, p_valid, p_store, p_inv, p_own, conf_set;
    uint64_t base[3], stream;
    uint64_t hist[DC_HIST];
    unsigned hpos;
    /* coverage */
    uint64_t loads, stores, op_lines[TB_DC_LINES + 1], lhits, lmisses, fall, fpart, fnone,
        reports, noreports, wraps, inv_ops[2], inv_held[2], inv_own[2], inv_evicted,
        inv_filled, clears, resets;
    int failed;
};

static tm_cache *dc_new_cache(const tm_cache_cfg *cfg)
{
    tm_cache *c = NULL;
    if (tm_cache_new(cfg, 0, &c) != TM_OK) {
        fprintf(stderr, "tm_cache_new(%u, %u, %u, %u) failed\n", cfg->size, cfg->assoc, cfg->line,
                cfg->gran);
        exit(2);
    }
    return c;
}

static unsigned log2_u(uint64_t x)
{
    unsigned k = 0;
    while ((1ull << k) < x) k++;
    return k;
}

tb_dcache *tb_dcache_new(unsigned size, unsigned assoc, unsigned line, unsigned gran, unsigned n,
                         uint64_t seed)
{
    tb_dcache *t = calloc(1, sizeof *t);
    char err[160];
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name, "tm_dcache SIZE=%u ASSOC=%u LINE=%u GRAN=%u N=%u", size, assoc,
             line, gran, n);
    t->cfg.size = size;
    t->cfg.assoc = assoc;
    t->cfg.line = line;
    t->cfg.gran = gran;
    if (tm_cache_cfg_check(&t->cfg, err, sizeof err) != TM_OK) {
        fprintf(stderr, "%s: %s\n", t->name, err);
        exit(2);
    }
    t->n = n;
    t->ni = n > 1 ? n - 1 : 0;
    t->sets = size / (line * assoc);
    t->lmax = (line + 62) / line + 1;
    t->ls = log2_u(line);
    if (t->ni > TB_DC_PORTS || t->lmax > TB_DC_LINES || t->sets < t->lmax) {
        fprintf(stderr, "%s: outside the testbench's limits\n", t->name);
        exit(2);
    }
    t->c = dc_new_cache(&t->cfg);
    t->rng = seed ^ ((uint64_t)size << 20 ^ (uint64_t)assoc << 12 ^ (uint64_t)line << 4 ^ gran ^
                     (uint64_t)n << 50);
    t->base[0] = tb_rand(&t->rng) & ~0xFFFull;
    t->base[1] = 0x10000;
    t->base[2] = 0x7fff00000000ull + (tb_rand(&t->rng) & 0xFFFFF000ull);
    for (unsigned i = 0; i < DC_HIST; i++) t->hist[i] = t->base[0] + 64 * i;
    return t;
}

static unsigned dc_size(uint64_t *s)
{
    return tb_rand(s) % 10 < 7 ? 1u << (tb_rand(s) % 7) : 1 + (unsigned)(tb_rand(s) % 64);
}

/* An operand address for SIZE bytes: re-accesses, a working set of about
 * the cache's size, conflicts in one set, line crossings, a stream, anywhere,
 * and the top of the address space (some operands wrap past 2^64). */
static uint64_t dc_addr(tb_dcache *t, unsigned size)
{
    uint64_t *s = &t->rng;
    uint64_t line = t->cfg.line, b = t->base[tb_rand(s) % 3];
    uint64_t ws = ((uint64_t)t->cfg.size << t->ws_shift) >> 2; /* SIZE/4 .. 4 SIZE */
    unsigned r = (unsigned)(tb_rand(s) % 100);
    if (r < 30) { /* a recent address, maybe shifted a little */
        uint64_t a = t->hist[tb_rand(s) % DC_HIST];
        return tb_rand(s) % 2 ? a : a + (tb_rand(s) % 17) - 8;
    }
    if (r < 50) return b + tb_rand(s) % ws;
    if (r < 65) /* ASSOC + 2 lines of one set */
        return b + (uint64_t)t->conf_set * line +
               (tb_rand(s) % (t->cfg.assoc + 2)) * line * t->sets + tb_rand(s) % line;
    if (r < 78) { /* ends in the next line */
        uint64_t a = (b + tb_rand(s) % ws) & ~(line - 1);
        return a - 1 - (size > 1 ? tb_rand(s) % (size - 1) : 0);
    }
    if (r < 92) {
        t->stream += tb_rand(s) % 4 ? size : (uint64_t)0 - 2 * size;
        return t->stream;
    }
    if (r < 98) return tb_rand(s);
    return (uint64_t)0 - 1 - tb_rand(s) % 100;
}

static void dc_phase(tb_dcache *t)
{
    uint64_t *s = &t->rng;
    t->left = 1 + (unsigned)(tb_rand(s) % 4000);
    t->ws_shift = (unsigned)(tb_rand(s) % 5);
    t->me = (unsigned)(tb_rand(s) % (t->ni + 1)); /* this core's index: ports < me come before */
    t->p_valid = 30 + (unsigned)(tb_rand(s) % 71);
    t->p_store = 10 + (unsigned)(tb_rand(s) % 60);
    t->p_inv = (unsigned)(tb_rand(s) % 60);
    t->p_own = (unsigned)(tb_rand(s) % 60);
    t->conf_set = (unsigned)(tb_rand(s) % t->sets);
    t->stream = t->base[tb_rand(s) % 3] + tb_rand(s) % ((uint64_t)t->cfg.size * 2);
}

void tb_dcache_stim(tb_dcache *t, tb_dcache_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    if (t->left == 0) dc_phase(t);
    t->left--;
    io->rst_n = !(t->cycle < 2 || one_in(s, 100000));
    io->clear = one_in(s, 3000);
    io->valid = tb_rand(s) % 100 < t->p_valid;
    io->store = tb_rand(s) % 100 < t->p_store;
    io->size = (uint8_t)dc_size(s);
    io->addr = dc_addr(t, io->size);
    t->hist[t->hpos++ % DC_HIST] = io->addr;
    for (unsigned j = 0; j < TB_DC_PORTS; j++) {
        io->inv_valid[j] = tb_rand(s) % 100 < t->p_inv;
        io->inv_before[j] = j < t->me;
        io->inv_size[j] = (uint8_t)dc_size(s);
        if (tb_rand(s) % 100 < t->p_own) { /* meets the own operand's lines */
            uint64_t a = io->addr + tb_rand(s) % io->size;
            io->inv_addr[j] = tb_rand(s) % 2 ? a : (a & ~((uint64_t)t->cfg.line - 1)) + tb_rand(s) % t->cfg.line;
        } else {
            io->inv_addr[j] = dc_addr(t, io->inv_size[j]);
        }
        if (j < t->ni && io->inv_valid[j] && tb_rand(s) % 4 == 0)
            t->hist[t->hpos++ % DC_HIST] = io->inv_addr[j];
    }
    t->cycle++;
}

/* Lines of an operand: the first, and how many (0 if it wraps past 2^64). */
static unsigned dc_lines(const tb_dcache *t, uint64_t addr, unsigned size, uint64_t *l0)
{
    uint64_t e = addr + size - 1;
    *l0 = addr >> t->ls;
    return e < addr ? 0 : (unsigned)((e >> t->ls) - *l0 + 1);
}

/* The granules of line LINE (number) that bytes [a, e] touch (cache.c's masks). */
static uint64_t dc_touch(const tb_dcache *t, uint64_t line, uint64_t a, uint64_t e)
{
    uint64_t lb = line << t->ls, L = t->cfg.line;
    unsigned g = log2_u(t->cfg.gran);
    unsigned lo = (unsigned)((a > lb ? a : lb) - lb) >> g;
    unsigned hi = (unsigned)((e < lb + L - 1 ? e : lb + L - 1) - lb) >> g;
    uint64_t top = hi >= 63 ? ~0ull : (1ull << (hi + 1)) - 1;
    return top & ~((1ull << lo) - 1);
}

int tb_dcache_check(tb_dcache *t, const tb_dcache_io *io)
{
    char why[160] = "";
    uint8_t inv_lines[TB_DC_PORTS] = {0};
    int inv_pre[TB_DC_PORTS][TB_DC_LINES];
    tm_cache_res r = {0, 0, 0, 0};
    uint8_t hit[TB_DC_LINES] = {0}, way[TB_DC_LINES] = {0}, fall[TB_DC_LINES] = {0},
            fany[TB_DC_LINES] = {0};
    uint64_t l0 = 0;
    unsigned nl = 0;
    if (t->failed) return 1;
    if (!io->rst_n) {
        tm_cache_free(t->c);
        t->c = dc_new_cache(&t->cfg);
        t->resets++;
    }
    /* 1. the stores of lower cores */
    for (unsigned j = 0; j < t->ni; j++)
        if (io->inv_valid[j] && io->inv_before[j]) {
            inv_lines[j] = (uint8_t)tm_cache_invalidate(t->c, io->inv_addr[j], io->inv_size[j]);
            t->inv_ops[0]++;
            t->inv_held[0] += inv_lines[j];
        }
    /* for coverage: the ways of the higher cores' lines before the own access */
    for (unsigned j = 0; j < t->ni; j++) {
        uint64_t il0;
        unsigned inl = dc_lines(t, io->inv_addr[j], io->inv_size[j], &il0);
        for (unsigned k = 0; k < inl && k < TB_DC_LINES; k++)
            inv_pre[j][k] = tm_cache_way_of(t->c, (il0 + k) << t->ls);
    }
    /* 2. the own access */
    if (io->valid) {
        uint64_t pre_flags[TB_DC_LINES] = {0};
        int pre_way[TB_DC_LINES], ways[5], hits[5];
        uint64_t e = io->addr + io->size - 1;
        unsigned nw;
        nl = dc_lines(t, io->addr, io->size, &l0);
        for (unsigned i = 0; i < nl; i++) { /* distinct sets: no line affects another's */
            pre_way[i] = tm_cache_way_of(t->c, (l0 + i) << t->ls);
            pre_flags[i] = tm_cache_flags_of(t->c, (l0 + i) << t->ls);
        }
        r = io->store ? tm_cache_store(t->c, 0, io->addr, io->size)
                      : tm_cache_load(t->c, 0, io->addr, io->size);
        nw = tm_cache_last_ways(t->c, ways, hits);
        if (r.lines != nl || nw != nl) {
            snprintf(why, sizeof why, "C: %u lines, last_ways %u, expected %u", r.lines, nw, nl);
            goto bad;
        }
        for (unsigned i = 0; i < nl; i++) {
            uint64_t touch = dc_touch(t, l0 + i, io->addr, e);
            int post = tm_cache_way_of(t->c, (l0 + i) << t->ls);
            hit[i] = pre_way[i] >= 0;
            way[i] = (uint8_t)post;
            if (post < 0 || (hit[i] && post != pre_way[i]) ||
                (i < 5 && (ways[i] != post || hits[i] != hit[i]))) {
                snprintf(why, sizeof why, "C: line %u: way before %d, after %d, last_ways %d/%d", i,
                         pre_way[i], post, i < 5 ? ways[i] : -1, i < 5 ? hits[i] : -1);
                goto bad;
            }
            fall[i] = hit[i] && (pre_flags[i] & touch) == touch;
            fany[i] = hit[i] && (pre_flags[i] & touch) != 0;
            t->lhits += hit[i];
            t->lmisses += !hit[i];
            t->fall += fall[i];
            t->fpart += fany[i] && !fall[i];
            t->fnone += hit[i] && !fany[i];
        }
        if (io->store) t->stores++;
        else {
            t->loads++;
            t->reports += r.report;
            t->noreports += !r.report;
        }
        t->op_lines[nl]++;
        t->wraps += nl == 0;
    }
    /* 3. the stores of higher cores */
    for (unsigned j = 0; j < t->ni; j++)
        if (io->inv_valid[j] && !io->inv_before[j]) {
            uint64_t il0;
            unsigned inl = dc_lines(t, io->inv_addr[j], io->inv_size[j], &il0);
            for (unsigned k = 0; k < inl; k++) {
                int post = tm_cache_way_of(t->c, (il0 + k) << t->ls);
                t->inv_evicted += inv_pre[j][k] >= 0 && post < 0;
                t->inv_filled += inv_pre[j][k] < 0 && post >= 0;
            }
            inv_lines[j] = (uint8_t)tm_cache_invalidate(t->c, io->inv_addr[j], io->inv_size[j]);
            t->inv_ops[1]++;
            t->inv_held[1] += inv_lines[j];
        }
    /* coverage: a store of another core on a line of the own operand */
    for (unsigned j = 0; j < t->ni; j++)
        if (io->inv_valid[j] && io->valid) {
            uint64_t il0;
            unsigned inl = dc_lines(t, io->inv_addr[j], io->inv_size[j], &il0);
            int meet = 0;
            for (unsigned k = 0; k < inl; k++) meet |= il0 + k >= l0 && il0 + k < l0 + nl;
            t->inv_own[io->inv_before[j] ? 0 : 1] += meet;
        }
    /* compare */
    if (io->lines != (io->valid ? nl : 0) || io->all_hit != (io->valid ? r.all_hit : 0) ||
        io->flags_hit != (io->valid ? r.flags_hit : 0) || io->report != (io->valid ? r.report : 0)) {
        snprintf(why, sizeof why, "lines/all_hit/flags_hit/report: RTL %u/%u/%u/%u, C %u/%u/%u/%u",
                 io->lines, io->all_hit, io->flags_hit, io->report, io->valid ? nl : 0,
                 io->valid ? r.all_hit : 0, io->valid ? r.flags_hit : 0, io->valid ? r.report : 0);
        goto bad;
    }
    for (unsigned i = 0; i < TB_DC_LINES; i++)
        if (io->line_hit[i] != hit[i] || io->line_way[i] != way[i] || io->line_fall[i] != fall[i] ||
            io->line_fany[i] != fany[i]) {
            snprintf(why, sizeof why, "line %u hit/way/fall/fany: RTL %u/%u/%u/%u, C %u/%u/%u/%u", i,
                     io->line_hit[i], io->line_way[i], io->line_fall[i], io->line_fany[i], hit[i],
                     way[i], fall[i], fany[i]);
            goto bad;
        }
    for (unsigned j = 0; j < TB_DC_PORTS; j++)
        if (io->inv_lines[j] != inv_lines[j]) {
            snprintf(why, sizeof why, "invalidation port %u: RTL %u lines held, C %u", j,
                     io->inv_lines[j], inv_lines[j]);
            goto bad;
        }
    if (io->clear) {
        tm_cache_clear_flags(t->c);
        t->clears++;
    }
    if (!io->rst_n) { /* the edge loads the reset state */
        tm_cache_free(t->c);
        t->c = dc_new_cache(&t->cfg);
    }
    return 0;
bad:
    fprintf(stderr, "%s: cycle %" PRIu64 ": %s\n  inputs: rst_n %u clear %u valid %u store %u addr 0x%" PRIx64
            " size %u\n", t->name, t->cycle - 1, why, io->rst_n, io->clear, io->valid, io->store,
            io->addr, io->size);
    for (unsigned j = 0; j < t->ni; j++)
        if (io->inv_valid[j])
            fprintf(stderr, "  invalidation %u (%s): addr 0x%" PRIx64 " size %u\n", j,
                    io->inv_before[j] ? "before" : "after", io->inv_addr[j], io->inv_size[j]);
    t->failed = 1;
    return 1;
}

void tb_dcache_free(tb_dcache *t)
{
    tm_cache_free(t->c);
    free(t);
}

int tb_dcache_finish(tb_dcache *t)
{
    char d[1024], lines[160] = "";
    size_t k = 0;
    int f = t->failed;
    for (unsigned i = 0; i <= t->lmax; i++)
        k += (size_t)snprintf(lines + k, sizeof lines - k, "%s%" PRIu64, i ? "/" : "", t->op_lines[i]);
    snprintf(d, sizeof d,
             "%" PRIu64 " cycles, %" PRIu64 " accesses compared (%" PRIu64 " loads: %" PRIu64
             " reported, %" PRIu64 " not; %" PRIu64 " stores; operands of 0/1/..%u lines: %s), line hits/misses %"
             PRIu64 "/%" PRIu64 ", touched flags on a hit all/some/none set %" PRIu64 "/%" PRIu64 "/%" PRIu64
             ", invalidations before/after %" PRIu64 "/%" PRIu64 " (lines held %" PRIu64 "/%" PRIu64
             ", on the own operand's lines %" PRIu64 "/%" PRIu64 ", of a line the own access evicted %"
             PRIu64 " / filled %" PRIu64 "), %" PRIu64 " clears, %" PRIu64 " resets",
             t->cycle, t->loads + t->stores, t->loads, t->reports, t->noreports, t->stores, t->lmax, lines,
             t->lhits, t->lmisses, t->fall, t->fpart, t->fnone, t->inv_ops[0], t->inv_ops[1],
             t->inv_held[0], t->inv_held[1], t->inv_own[0], t->inv_own[1], t->inv_evicted,
             t->inv_filled, t->clears, t->resets);
    /* A run that never reached a case proves nothing about it. */
    if (!f && t->cycle >= 100000) {
        int gap = !t->reports || !t->noreports || !t->stores || !t->lhits || !t->lmisses || !t->fall ||
                  !t->fnone || !t->wraps || !t->clears || !t->op_lines[t->lmax];
        if (t->cfg.line / t->cfg.gran > 1 && !t->fpart) gap = 1;
        if (t->ni && (!t->inv_held[0] || !t->inv_held[1] || !t->inv_own[0] || !t->inv_own[1] ||
                      !t->inv_evicted || !t->inv_filled))
            gap = 1;
        if (gap) {
            fprintf(stderr, "%s: a coverage bin is empty (see the counts)\n", t->name);
            f = 1;
        }
    }
    f = tb_report(t->name, f, d);
    tm_cache_free(t->c);
    free(t);
    return f;
}

/* ------------------------------------------------------------ DATA message */

struct tb_data {
    char name[96];
    tm_enc_cfg cfg;
    unsigned ti, maxw;
    uint64_t rng, n, sizes[65], maxlen, fah_max;
    tm_bitbuf bb;
    int failed;
};

tb_data *tb_data_new(unsigned ti, unsigned tiw, unsigned fa, unsigned fb, unsigned maxw, uint64_t seed)
{
    tb_data *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name, "tm_data_enc TIW=%u TI=%u FA,FB=%u,%u", tiw, ti, fa, fb);
    tm_enc_cfg_default(&t->cfg, TM_ENC_TR_E, 1u << tiw, 0);
    t->cfg.data = TM_DATA_CFIAT;
    t->cfg.fah_a = (uint8_t)fa;
    t->cfg.fah_b = (uint8_t)fb;
    t->ti = ti;
    t->maxw = maxw;
    t->rng = seed ^ ((uint64_t)tiw << 40 | (uint64_t)ti << 20 | (uint64_t)fa << 8 | fb);
    tm_bitbuf_init(&t->bb);
    if (tm_enc_cfg_check(&t->cfg) != TM_OK || tm_ti_bits(t->cfg.threads) != tiw || ti >= t->cfg.threads) {
        fprintf(stderr, "%s: invalid configuration\n", t->name);
        exit(2);
    }
    if (tm_msg_data_max_bits(&t->cfg) != maxw) {
        fprintf(stderr, "%s: MAXW %u but tm_msg_data_max_bits %u\n", t->name, maxw,
                tm_msg_data_max_bits(&t->cfg));
        t->failed = 1;
    }
    if (maxw > TB_DATA_MAXW) {
        fprintf(stderr, "%s: MAXW %u > %u\n", t->name, maxw, TB_DATA_MAXW);
        exit(2);
    }
    return t;
}

void tb_data_stim(tb_data *t, tb_data_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    io->fah = tb_rand_value(s);
    io->size = (uint8_t)(tb_rand(s) % 2 ? 1u << (tb_rand(s) % 7) : 1 + tb_rand(s) % 64);
    for (unsigned k = 0; k < 64; k += 8) { /* bytes past size too: the encoder must ignore them */
        uint64_t v = tb_rand(s) % 8 ? tb_rand(s) : tb_rand_value(s);
        for (unsigned j = 0; j < 8; j++) io->value[k + j] = (uint8_t)(v >> (8 * j));
    }
}

int tb_data_check(tb_data *t, const tb_data_io *io)
{
    tm_msg m;
    unsigned len, bad;
    if (t->failed) return 1;
    memset(&m, 0, sizeof m);
    m.kind = TM_MSG_DATA;
    m.ti = t->ti;
    m.fah = io->fah;
    m.size = io->size;
    memcpy(m.value, io->value, io->size);
    tm_bitbuf_clear(&t->bb);
    len = tm_msg_bits(&t->cfg, &m);
    if (tm_msg_encode(&t->cfg, &m, &t->bb, NULL) != TM_OK || t->bb.nbits != len || len == 0) {
        fprintf(stderr, "%s: C encoder rejected the message\n", t->name);
        t->failed = 1;
        return 1;
    }
    t->n++;
    t->sizes[io->size]++;
    if (len > t->maxlen) t->maxlen = len;
    if (io->fah == ~0ull) t->fah_max++;
    bad = io->len != len;
    for (unsigned k = 0; k < TB_DATA_MAXW && !bad; k++) {
        unsigned want = k < len ? (t->bb.data[k / 8] >> (k % 8)) & 1 : 0;
        bad = ((io->bits[k / 8] >> (k % 8)) & 1) != want;
    }
    if (bad) {
        char txt[512];
        tm_msg_format(&m, 0, txt, sizeof txt);
        fprintf(stderr, "%s: message %" PRIu64 " (%s): len_o %u, C %u\n  RTL ", t->name, t->n, txt,
                io->len, len);
        for (unsigned k = 0; k < (io->len > len ? io->len : len) + 4 && k < TB_DATA_MAXW; k++)
            fputc('0' + ((io->bits[k / 8] >> (k % 8)) & 1), stderr);
        fprintf(stderr, "\n  C   ");
        for (unsigned k = 0; k < len; k++) fputc('0' + ((t->bb.data[k / 8] >> (k % 8)) & 1), stderr);
        fputc('\n', stderr);
        t->failed = 1;
        return 1;
    }
    return 0;
}

int tb_data_finish(tb_data *t)
{
    char d[384];
    int f = t->failed;
    unsigned missing = 0;
    for (unsigned k = 1; k <= 64; k++) missing += t->n >= 100000 && !t->sizes[k];
    if (missing || (t->n >= 100000 && (!t->fah_max || t->maxlen != t->maxw))) {
        fprintf(stderr, "%s: %u sizes never tried, fahCnt 2^64-1 %" PRIu64 " times, longest %" PRIu64 "\n",
                t->name, missing, t->fah_max, t->maxlen);
        f = 1;
    }
    snprintf(d, sizeof d,
             "%" PRIu64 " DATA messages compared (sizes 1..64; %" PRIu64 " of 1, %" PRIu64 " of 64 bytes; %"
             PRIu64 " with fahCnt = 2^64-1), longest %" PRIu64 " of MAXW %u bits",
             t->n, t->sizes[1], t->sizes[64], t->fah_max, t->maxlen, t->maxw);
    f = tb_report(t->name, f, d);
    tm_bitbuf_free(&t->bb);
    free(t);
    return f;
}
