/* tm — unit testbench reference (testbench/unit/run.sh): rtl/tm_gshare.sv against tm/pred.h's gshare;
 * stimulus and the bit-exact comparison, see tb_ref.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/cache.h"

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
    t->p = tb_pred_new(entries, 0, 0);
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
    tb_reset_clear(s, t->cycle, &io->rst_n, &io->clear);
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
