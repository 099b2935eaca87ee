/* tm — unit testbench reference (testbench/unit/run.sh): rtl/tm_ibtb.sv against tm/pred.h's iBTB;
 * stimulus and the bit-exact comparison, see tb_ref.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/cache.h"

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
    t->p = tb_pred_new(0, 0, entries);
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
    tb_reset_clear(s, t->cycle, &io->rst_n, &io->clear);
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
