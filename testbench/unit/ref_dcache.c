/* tm — unit testbench reference (testbench/unit/run.sh): rtl/tm_dcache.sv against tm/cache.h's CFiat cache;
 * stimulus and the bit-exact comparison, see tb_ref.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/cache.h"

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
    io->rst_n = !(t->cycle < 2 || tb_one_in(s, 100000));
    io->clear = tb_one_in(s, 3000);
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
