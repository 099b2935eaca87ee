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
    tm_pred_cfg c = {gshare, ras, ibtb};
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
    int examples; /* the configuration of spec §4.7: start with its examples */
    uint64_t rng, n, stim, kinds[4], maxlen;
    tm_bitbuf bb;
    int failed;
};

tb_msg *tb_msg_new(unsigned tiw, unsigned ts, unsigned ca, unsigned cb, unsigned ta, unsigned tb,
                   unsigned ha, unsigned hb, unsigned data, unsigned maxw, uint64_t seed)
{
    unsigned want;
    tb_msg *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name, "tm_msg_enc TIW=%u TS=%u CA,CB=%u,%u TA,TB=%u,%u HA,HB=%u,%u DATA=%u",
             tiw, ts, ca, cb, ta, tb, ha, hb, data);
    t->cfg.enc = TM_ENC_TR_E; /* the encoding only selects default chunk sizes */
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
    t->rng = seed ^ ((uint64_t)tiw << 40 | (uint64_t)ca << 32 | (uint64_t)ta << 24 | ha);
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

void tb_msg_stim(tb_msg *t, tb_msg_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    if (t->examples && t->stim < 7) {
        msg_example((unsigned)t->stim++, io);
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
    len = tm_msg_bits(&t->cfg, &m);
    if (tm_msg_encode(&t->cfg, &m, &t->bb, NULL) != TM_OK || t->bb.nbits != len || len == 0) {
        fprintf(stderr, "%s: C encoder rejected the message\n", t->name);
        t->failed = 1;
        return 1;
    }
    t->n++;
    t->kinds[io->kind]++;
    if (len > t->maxlen) t->maxlen = len;
    n = io->len != len;
    for (unsigned k = 0; k < TB_MSG_MAXW && !n; k++) {
        unsigned want = k < len ? (t->bb.data[k / 8] >> (k % 8)) & 1 : 0;
        n = ((io->bits[k / 8] >> (k % 8)) & 1) != want;
    }
    if (n) {
        char txt[512];
        tm_msg_format(&m, t->cfg.timestamps, txt, sizeof txt);
        fprintf(stderr, "%s: message %" PRIu64 " (%s): len_o %u, C %u\n  RTL ", t->name, t->n, txt,
                io->len, len);
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
    char d[384];
    int f;
    snprintf(d, sizeof d,
             "%" PRIu64 " messages compared (BRANCH %" PRIu64 ", EXC %" PRIu64 ", SYNC %" PRIu64
             ", END %" PRIu64 "%s), longest %" PRIu64 " of MAXW %u bits",
             t->n, t->kinds[0], t->kinds[1], t->kinds[2], t->kinds[3],
             t->examples ? "; the first 7 are the examples of spec 4.7" : "", t->maxlen, t->maxw);
    f = tb_report(t->name, t->failed, d);
    tm_bitbuf_free(&t->bb);
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
