/* tm — unit testbench of rtl/tm_tage.sv: stimulus and the bit-exact
 * comparison against tm_tage (tm/tage.h, cmodel/tage.c).  See
 * tb_ref_tage.h; tb_rand and tb_report come from tb_ref.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref_tage.h"
#include "tm/tage.h"

#define TG_SITES 32  /* conditional branch sites */
#define TG_ISITES 8  /* indirect branch sites */
#define TG_TGTS 4    /* targets per indirect site */

struct tb_tage {
    char name[96];
    tm_tage_cfg cfg;
    unsigned ports;
    tm_tage *p;
    uint64_t rng, cycle;
    /* stimulus */
    uint64_t site_pc[TG_SITES];
    uint8_t site_kind[TG_SITES];
    uint32_t site_n[TG_SITES];
    uint64_t isite_pc[TG_ISITES], isite_tgt[TG_ISITES][TG_TGTS];
    unsigned pool;      /* sites in use in this phase (1 .. TG_SITES) */
    unsigned phase_left;
    unsigned ind_pct, valid_pct;
    uint64_t outcomes;  /* recent outcomes of the stimulus (bit 0 newest) */
    /* coverage */
    uint64_t ops, inds, pred_taken, mispred, chained, clears, resets;
    int failed;
};

/* 1 with probability 1/n */
static int one_in(uint64_t *s, unsigned n)
{
    return tb_rand(s) % n == 0;
}

tb_tage *tb_tage_new(unsigned base, unsigned tables, unsigned entries, unsigned tag, unsigned lmin,
                     unsigned lmax, unsigned ports, uint64_t seed)
{
    tb_tage *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    tm_tage_cfg c = {.base = base, .tables = tables, .entries = entries, .tag = tag, .lmin = lmin,
                     .lmax = lmax};
    snprintf(t->name, sizeof t->name, "tm_tage BASE=%u TABLES=%u ENTRIES=%u TAG=%u L=%u:%u P=%u", base,
             tables, entries, tag, lmin, lmax, ports);
    t->cfg = c;
    t->ports = ports;
    if (ports > TB_MAXP || tm_tage_new(&c, &t->p) != TM_OK) {
        fprintf(stderr, "%s: tm_tage_new failed\n", t->name);
        exit(2);
    }
    t->rng = seed ^ (0x9E37ull * base + 0x10001ull * tables + 0x1000003ull * entries + 0x7F00ull * tag +
                     0x31ull * lmin + 0x1F3ull * lmax + ports);
    for (int i = 0; i < TG_SITES; i++) {
        t->site_pc[i] = tb_rand(&t->rng) & (i < TG_SITES / 2 ? 0xFFFFull : ~0ull);
        t->site_kind[i] = (uint8_t)(tb_rand(&t->rng) % 8);
    }
    for (int i = 0; i < TG_ISITES; i++) {
        t->isite_pc[i] = tb_rand(&t->rng) & (i < TG_ISITES / 2 ? 0xFFFFull : ~0ull);
        for (int k = 0; k < TG_TGTS; k++) t->isite_tgt[i][k] = tb_rand(&t->rng);
    }
    return t;
}

/* Outcome of conditional site I on its N-th execution. */
static int site_outcome(tb_tage *t, unsigned i, uint32_t n)
{
    uint64_t *s = &t->rng;
    switch (t->site_kind[i]) {
    case 0: return 1;
    case 1: return 0;
    case 2: return n & 1;
    case 3: return n % 8 != 7;                                    /* loop */
    case 4: return tb_rand(s) % 10 != 0;                          /* 90 % taken */
    case 5: return (int)((t->outcomes ^ (t->outcomes >> 1)) & 1); /* correlated */
    case 6: return (int)((t->outcomes >> 5) & 1) ^ (int)(i & 1);  /* longer correlation */
    default: return (int)(tb_rand(s) & 1);
    }
}

void tb_tage_stim(tb_tage *t, tb_tage_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    io->rst_n = !(t->cycle < 2 || one_in(s, 25000));
    io->clear = one_in(s, 7000);
    if (t->phase_left == 0) {
        /* A phase: how many sites compete for the entries, how many ports
         * are busy, how many indirect events. */
        unsigned r = (unsigned)(tb_rand(s) % 4);
        t->pool = r == 0 ? 1 + (unsigned)(tb_rand(s) % 3) : r == 1 ? TG_SITES : 2 + (unsigned)(tb_rand(s) % 12);
        t->valid_pct = 40 + (unsigned)(tb_rand(s) % 61);
        t->ind_pct = (unsigned)(tb_rand(s) % 4) * 10;
        t->phase_left = 500 + (unsigned)(tb_rand(s) % 5000);
    }
    t->phase_left--;
    for (unsigned p = 0; p < TB_MAXP; p++) {
        io->valid[p] = tb_rand(s) % 100 < t->valid_pct;
        if (tb_rand(s) % 100 < t->ind_pct) {
            io->ind[p] = 1;
            if (one_in(s, 8)) {
                io->pc[p] = tb_rand(s);
                io->target[p] = tb_rand(s);
            } else {
                unsigned i = (unsigned)(tb_rand(s) % TG_ISITES);
                io->pc[p] = t->isite_pc[i];
                io->target[p] = t->isite_tgt[i][tb_rand(s) % TG_TGTS];
            }
            io->taken[p] = tb_rand(s) & 1; /* ignored by the DUT */
        } else if (one_in(s, 16)) { /* anywhere */
            io->pc[p] = tb_rand(s);
            io->taken[p] = tb_rand(s) & 1;
            io->target[p] = tb_rand(s); /* ignored */
        } else {
            unsigned i = (unsigned)(tb_rand(s) % t->pool);
            io->pc[p] = t->site_pc[i];
            io->taken[p] = (uint8_t)site_outcome(t, i, t->site_n[i]++);
            io->target[p] = tb_rand(s); /* ignored */
        }
        if (io->valid[p] && !io->ind[p] && p < t->ports) t->outcomes = (t->outcomes << 1) | io->taken[p];
    }
    t->cycle++;
}

int tb_tage_check(tb_tage *t, const tb_tage_io *io)
{
    if (t->failed) return 1;
    if (!io->rst_n) {
        tm_tage_reset(t->p);
        t->resets++;
    }
    tm_tage_lookup lk[TB_MAXP];
    for (unsigned p = 0; p < t->ports; p++) {
        int exp = 0;
        if (io->valid[p] && io->ind[p]) {
            tm_tage_push_indirect(t->p, io->pc[p], io->target[p]);
            t->inds++;
        } else if (io->valid[p]) {
            tm_tage_lookup_pc(t->p, io->pc[p], &lk[p]);
            exp = tm_tage_predict(t->p, io->pc[p]);
            if (exp != lk[p].pred) {
                fprintf(stderr, "%s: tm_tage_predict %d != tm_tage_lookup_pc %d\n", t->name, exp,
                        lk[p].pred);
                t->failed = 1;
                return 1;
            }
            /* coverage: an earlier port of this cycle used the same entry */
            int same = 0;
            for (unsigned q = 0; q < p && !same; q++) {
                if (!io->valid[q] || io->ind[q]) continue;
                for (unsigned i = 0; i <= t->cfg.tables; i++)
                    if (lk[q].index[i] == lk[p].index[i]) same = 1;
            }
            t->chained += (unsigned)same;
            tm_tage_update(t->p, io->pc[p], io->taken[p]);
            t->ops++;
            t->pred_taken += exp != 0;
            t->mispred += exp != io->taken[p];
        }
        if (io->pred[p] != exp) {
            fprintf(stderr,
                    "%s: cycle %" PRIu64 " port %u: pred_o %u, C %d (valid %u ind %u pc 0x%" PRIx64
                    " taken %u target 0x%" PRIx64 " rst_n %u clear %u)\n",
                    t->name, t->cycle - 1, p, io->pred[p], exp, io->valid[p], io->ind[p], io->pc[p],
                    io->taken[p], io->target[p], io->rst_n, io->clear);
            t->failed = 1;
            return 1;
        }
    }
    if (!io->rst_n || io->clear) tm_tage_reset(t->p); /* the edge loads the reset state */
    t->clears += io->clear;
    return 0;
}

int tb_tage_finish(tb_tage *t)
{
    char d[1024], hits[160] = "", allocs[160] = "";
    int f;
    size_t n1 = 0, n2 = 0;
    tm_tage_counts c;
    tm_tage_get_counts(t->p, &c);
    for (unsigned i = 0; i <= t->cfg.tables; i++) {
        n1 += (size_t)snprintf(hits + n1, sizeof hits - n1, "%s%" PRIu64, i ? "/" : "", c.hits[i]);
        if (i) n2 += (size_t)snprintf(allocs + n2, sizeof allocs - n2, "%s%" PRIu64, i > 1 ? "/" : "", c.allocs[i]);
    }
    snprintf(d, sizeof d,
             "%" PRIu64 " cycles, %" PRIu64 " predict+update ops compared (%" PRIu64 " predicted taken, %" PRIu64
             " mispredicted, %" PRIu64 " on an entry an earlier port used in the same cycle), %" PRIu64
             " indirect pushes; provider base/T1..: %s; allocs T1..: %s (%" PRIu64 " replacing a valid entry), %" PRIu64
             " failed allocations, %" PRIu64 " use-alt predictions; %" PRIu64 " clears, %" PRIu64 " resets",
             t->cycle, t->ops, t->pred_taken, t->mispred, t->chained, t->inds, hits, allocs, c.replaced,
             c.alloc_fails, c.use_alt, t->clears, t->resets);
    f = tb_report(t->name, t->failed, d);
    tm_tage_free(t->p);
    free(t);
    return f;
}
