/* tm — unit testbench of rtl/tm_ittage.sv: stimulus and the bit-exact
 * comparison against the C library (tm/tage.h, cmodel/ittage.c).  See
 * tb_ref_ittage.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref_ittage.h"
#include "tm/tage.h"

#define IT_PROG 24  /* longest loop of branch sites */
#define IT_PCS 8    /* indirect-branch pcs of a program */
#define IT_TGTS 4   /* most targets of one pc */

/* 1 with probability 1/n */
static int one_in(uint64_t *s, unsigned n)
{
    return tb_rand(s) % n == 0;
}

/* Reset / clear schedule (as the other predictor testbenches, tb_ref.c). */
static void reset_clear(uint64_t *s, uint64_t cycle, uint8_t *rst_n, uint8_t *clear)
{
    *rst_n = !(cycle < 2 || one_in(s, 40000));
    *clear = one_in(s, 12000);
}

/* A site of the running program: a conditional branch with an outcome
 * pattern, or an indirect branch at one of the program's pcs choosing among
 * that pc's targets. */
typedef struct it_site {
    uint8_t cond;
    uint8_t mode;   /* cond: 0 always, 1 never, 2 period PER pattern, 3 random;
                       indirect: 0 first target, 1 cyclic, 2 by the last
                       outcome, 3 random */
    uint8_t per;    /* cond period */
    uint32_t pat;   /* cond pattern bits */
    uint8_t pcx;    /* indirect: pc of the pool */
    uint64_t visits;
} it_site;

struct tb_ittage {
    char name[128];
    tm_tage_cfg cfg;
    unsigned ports;
    tm_ittage *p;
    uint64_t rng, cycle;
    /* the running program */
    unsigned len, pos, left;
    it_site site[IT_PROG];
    uint64_t pc[IT_PCS];
    uint64_t tgt[IT_PCS][IT_TGTS];
    unsigned ntgt[IT_PCS];
    unsigned last_taken;
    /* coverage */
    uint64_t ind, conds, hits, correct, high, chained, clears, resets;
    int failed;
};

tb_ittage *tb_ittage_new(unsigned base, unsigned tables, unsigned entries, unsigned tag,
                         unsigned lmin, unsigned lmax, unsigned ports, uint64_t seed)
{
    tb_ittage *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name,
             "tm_ittage BASE=%u TABLES=%u ENTRIES=%u TAG=%u LMIN=%u LMAX=%u P=%u", base, tables,
             entries, tag, lmin, lmax, ports);
    t->cfg = (tm_tage_cfg){.base = base, .tables = tables, .entries = entries, .tag = tag,
                           .lmin = lmin, .lmax = lmax};
    t->ports = ports;
    if (ports < 1 || ports > TB_MAXP || tm_ittage_new(&t->cfg, &t->p) != TM_OK) {
        fprintf(stderr, "%s: tm_ittage_new failed\n", t->name);
        exit(2);
    }
    t->rng = seed ^ (0x1717000000ull * base + 0x10000000ull * tables + 0x100000ull * entries +
                     0x1000ull * tag + 0x80ull * lmax + 0x8ull * lmin + ports);
    return t;
}

/* A target: mostly small and 4-aligned-ish, sometimes at or above 2^48. */
static uint64_t rand_target(uint64_t *s)
{
    switch (tb_rand(s) % 40) {
    case 0: return 0xffffffffff600000ull;
    case 1: return tb_rand(s) | (1ull << 48);
    case 2: return (1ull << 48) - 1 - (tb_rand(s) & 0xff);
    case 3: return tb_rand(s) & ((1ull << 48) - 1);
    default: return 0x400000ull + (tb_rand(s) & 0xfff0ull) + (tb_rand(s) & 0xfull);
    }
}

static void it_new_program(tb_ittage *t)
{
    uint64_t *s = &t->rng;
    unsigned npc = 1 + (unsigned)(tb_rand(s) % IT_PCS);
    t->len = 1 + (unsigned)(tb_rand(s) % IT_PROG);
    t->pos = 0;
    t->left = 50 + (unsigned)(tb_rand(s) % 4000);
    for (unsigned i = 0; i < npc; i++) {
        t->pc[i] = one_in(s, 4) ? tb_rand(s) : 0x400000ull + (tb_rand(s) & 0xfffffull);
        /* about half monomorphic */
        t->ntgt[i] = one_in(s, 2) ? 1 : 2 + (unsigned)(tb_rand(s) % (IT_TGTS - 1));
        for (unsigned k = 0; k < IT_TGTS; k++) t->tgt[i][k] = rand_target(s);
    }
    for (unsigned i = 0; i < t->len; i++) {
        it_site *e = &t->site[i];
        memset(e, 0, sizeof *e);
        e->cond = tb_rand(s) % 10 < 4;
        e->mode = (uint8_t)(tb_rand(s) % 4);
        e->per = (uint8_t)(1 + tb_rand(s) % 7);
        e->pat = (uint32_t)tb_rand(s);
        e->pcx = (uint8_t)(tb_rand(s) % npc);
    }
}

void tb_ittage_stim(tb_ittage *t, tb_ittage_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    if (t->left == 0) it_new_program(t);
    t->left--;
    reset_clear(s, t->cycle, &io->rst_n, &io->clear);
    for (unsigned p = 0; p < TB_MAXP; p++) {
        io->valid[p] = tb_rand(s) % 10 < 7;
        if (tb_rand(s) % 20 == 0) { /* a stray branch */
            io->cond[p] = (uint8_t)(tb_rand(s) & 1);
            io->taken[p] = (uint8_t)(tb_rand(s) & 1);
            io->pc[p] = one_in(s, 2) ? tb_rand(s) : tb_rand(s) & 0xfff;
            io->target[p] = one_in(s, 2) ? tb_rand_value(s) : rand_target(s);
            continue;
        }
        it_site *e = &t->site[t->pos];
        /* junk on the unused inputs: they must not matter */
        io->pc[p] = tb_rand(s);
        io->target[p] = tb_rand(s);
        io->taken[p] = (uint8_t)(tb_rand(s) & 1);
        io->cond[p] = e->cond;
        if (e->cond) {
            unsigned tk;
            switch (e->mode) {
            case 0: tk = 1; break;
            case 1: tk = 0; break;
            case 2: tk = (e->pat >> (e->visits % e->per)) & 1u; break;
            default: tk = (unsigned)(tb_rand(s) & 1); break;
            }
            io->taken[p] = (uint8_t)tk;
            if (io->valid[p] && p < t->ports) t->last_taken = tk;
        } else {
            unsigned n = t->ntgt[e->pcx], k;
            switch (e->mode) {
            case 0: k = 0; break;
            case 1: k = (unsigned)(e->visits % n); break;
            case 2: k = t->last_taken % n; break;
            default: k = (unsigned)(tb_rand(s) % n); break;
            }
            io->pc[p] = t->pc[e->pcx];
            io->target[p] = t->tgt[e->pcx][k];
        }
        if (io->valid[p] && p < t->ports) {
            e->visits++;
            t->pos = (t->pos + 1) % t->len;
        }
    }
    t->cycle++;
}

int tb_ittage_check(tb_ittage *t, const tb_ittage_io *io)
{
    tm_tage_lookup lk[TB_MAXP];
    uint8_t ind[TB_MAXP] = {0};
    if (t->failed) return 1;
    if (!io->rst_n) {
        tm_ittage_reset(t->p);
        t->resets++;
    }
    for (unsigned p = 0; p < t->ports; p++) {
        int hit = 0;
        uint64_t pred = 0;
        if (io->valid[p] && io->cond[p]) {
            tm_ittage_push_cond(t->p, io->taken[p]);
            t->conds++;
        } else if (io->valid[p]) {
            /* coverage: an earlier port of this cycle updated an entry this
             * port reads (same index in the same table) */
            tm_ittage_lookup_pc(t->p, io->pc[p], &lk[p]);
            ind[p] = 1;
            int ch = 0;
            for (unsigned q = 0; q < p && !ch; q++)
                for (unsigned i = 0; ind[q] && i <= t->cfg.tables; i++)
                    if (lk[q].index[i] == lk[p].index[i]) {
                        ch = 1;
                        break;
                    }
            t->chained += (uint64_t)ch;
            hit = tm_ittage_predict(t->p, io->pc[p], &pred);
            if (!hit) pred = 0;
            t->ind++;
            t->hits += hit != 0;
            t->correct += hit && pred == io->target[p];
            t->high += io->target[p] >> 48 != 0;
            tm_ittage_update(t->p, io->pc[p], io->target[p]);
        }
        if (io->hit[p] != hit || io->pred[p] != pred) {
            fprintf(stderr,
                    "%s: cycle %" PRIu64 " port %u: hit_o %u pred_o 0x%" PRIx64 ", C %d 0x%" PRIx64
                    " (valid %u cond %u pc 0x%" PRIx64 " target 0x%" PRIx64 " rst_n %u clear %u)\n",
                    t->name, t->cycle - 1, p, io->hit[p], io->pred[p], hit, pred, io->valid[p],
                    io->cond[p], io->pc[p], io->target[p], io->rst_n, io->clear);
            t->failed = 1;
            return 1;
        }
    }
    if (!io->rst_n || io->clear) tm_ittage_reset(t->p);
    t->clears += io->clear;
    return 0;
}

int tb_ittage_finish(tb_ittage *t)
{
    char d[1024], a[256] = "", h[256] = "";
    size_t na = 0, nh = 0;
    int f;
    tm_tage_counts k;
    tm_ittage_get_counts(t->p, &k);
    for (unsigned i = 0; i <= t->cfg.tables; i++) {
        nh += (size_t)snprintf(h + nh, sizeof h - nh, "%s%" PRIu64, i ? "/" : "", k.hits[i]);
        if (i)
            na += (size_t)snprintf(a + na, sizeof a - na, "%s%" PRIu64, i > 1 ? "/" : "",
                                   k.allocs[i]);
    }
    snprintf(d, sizeof d,
             "%" PRIu64 " cycles, %" PRIu64 " indirect predict+update ops compared (%" PRIu64
             " predicted, %" PRIu64 " right, %" PRIu64 " targets >= 2^48), %" PRIu64
             " cond pushes; provider base/T1..: %s; allocs T1..: %s; %" PRIu64
             " replacements, %" PRIu64 " failed allocs, %" PRIu64 " alt-used; %" PRIu64
             " reading an entry an earlier port updated in the same cycle; %" PRIu64
             " clears, %" PRIu64 " resets",
             t->cycle, t->ind, t->hits, t->correct, t->high, t->conds, h, a, k.replaced,
             k.alloc_fails, k.use_alt, t->chained, t->clears, t->resets);
    f = tb_report(t->name, t->failed, d);
    tm_ittage_free(t->p);
    free(t);
    return f;
}
