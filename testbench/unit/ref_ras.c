/* tm — unit testbench reference (testbench/unit/run.sh): rtl/tm_ras.sv against tm/pred.h's RAS;
 * stimulus and the bit-exact comparison, see tb_ref.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/cache.h"

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
    t->p = tb_pred_new(0, entries, 0);
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
    tb_reset_clear(s, t->cycle, &io->rst_n, &io->clear);
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
