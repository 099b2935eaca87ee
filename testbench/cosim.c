/* tm testbench — runs the Verilated RTL (rtl/tm_top.sv) in lockstep with the
 * C model on a commit stream and compares, cycle by cycle, every message each
 * core offers (accepted or dropped) and every bit on the trace port.
 *
 * Built per parameter set by `tm cosim` (tools/tm/cmd_cosim.c), which passes
 * the resolved configuration on the command line:
 *   tm-cosim-sim --threads N --encoding E --ts 0|1 --ts-bits B --shared 0|1
 *                --gshare G --ras R --ibtb I --chunks a,b,c,d,e,f --buffer B
 *                --port W [--data D --dcache C,A,L,G --fah A,B]
 *                [--wave F.fst] [--cov F] [-q] IN.tmc
 * Prints "PASS ..." and exits 0, or the first mismatch and exits 1.
 *
 * The model runs first over the whole stream and records every message it
 * accepts or drops (tm_model_set_hook); then the stream is replayed into the
 * RTL one cycle at a time.  The expected port bits are the model's trace, at
 * the rate spec §3.6 defines: min(W, occupancy) bits per cycle.
 *
 * Data tracing (--data 1 cfiat, 2 all; spec §3.8): each group's MEM record
 * drives the RTL's mem_*_i inputs; a core's offer is a bundle, which the
 * model's hook reports as its DATA message then its control message (same
 * cycle, core and verdict); both are compared, the DATA message field by
 * field (fahCnt, size, value, length, verdict) and bit for bit. */
#include <inttypes.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tm/cache.h" /* the shadow caches (cfiat) */
#include "tm/grow.h"
#include "glue.h"
#include "tm/model.h"
#include "tm/tmc.h"

typedef struct ev {
    uint64_t cycle;
    uint32_t core;
    unsigned len;
    int accepted;
    tm_msg m;
} ev;

typedef struct evlist {
    ev *v;
    size_t n, cap;
    int oom;
} evlist;

static void hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits, int accepted)
{
    evlist *l = arg;
    if (TM_GROW(l->v, l->cap, l->n + 1) != TM_OK) {
        l->oom = 1;
        return;
    }
    l->v[l->n++] = (ev){cycle, core, bits, accepted, *m};
}

/* ---------------------------------------------------------------- coverage */
#define MAXCH 40
typedef struct cov {
    /* [field][chunks]: 0 cnt(T=0), 1 cnt(T=1), 2 |diffTA| (branch), 3 iCnt (exc),
     * 4 |diffTA| (exc), 5 diffCC */
    uint64_t chunks[6][MAXCH];
    uint64_t sync[3], end_exit, end_stop, end_lost, exc, drops, resyncs;
    uint64_t pair[64][64];
    tm_pred_counts pred;
    /* data tracing */
    uint64_t data_fah[MAXCH];        /* accepted DATA: fahCnt chunks */
    uint64_t data_size[TM_SZ_CLASSES];
    uint64_t data_acc, data_drop, bundle_acc, bundle_drop;
    /* cache (cfiat): per line of an operand */
    uint64_t ld_miss, ld_hit_all, ld_hit_part, ld_hit_none, st_miss, st_hit;
    uint64_t lines2, lines3, inv_before, inv_after, clears;
    uint64_t same_line_before, same_line_after; /* a store of a lower / higher core on a
                                                   line this core accesses, same cycle */
    /* the RTL caches' totals, in the terms of the model's tm_cache_stats */
    uint64_t load_refs, load_hits, load_misses, fa_hits, fa_misses;
    uint64_t store_refs, store_hits, store_misses, multi_line, invalidations, flag_clears;
} cov;

static unsigned nchunks(uint64_t v, unsigned a, unsigned b)
{
    unsigned bits = tm_chunked_bits(v, a, b);
    return 1 + (bits - (a + 1)) / (b + 1);
}

static uint64_t mag(int64_t d) { return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d; }

static void cov_msg(cov *c, const tm_enc_cfg *e, const tm_msg *m)
{
    unsigned k;
    switch (m->kind) {
    case TM_MSG_BRANCH:
        k = nchunks(m->cnt, e->cnt_a, e->cnt_b);
        c->chunks[m->t ? 1 : 0][k < MAXCH ? k : MAXCH - 1]++;
        if (m->t) {
            k = nchunks(mag(m->diff_ta), e->ta_a, e->ta_b);
            c->chunks[2][k < MAXCH ? k : MAXCH - 1]++;
        }
        break;
    case TM_MSG_EXC:
        c->exc++;
        k = nchunks(m->icnt, e->cnt_a, e->cnt_b);
        c->chunks[3][k < MAXCH ? k : MAXCH - 1]++;
        k = nchunks(mag(m->diff_ta), e->ta_a, e->ta_b);
        c->chunks[4][k < MAXCH ? k : MAXCH - 1]++;
        break;
    case TM_MSG_SYNC:
        c->sync[m->reason < 3 ? m->reason : 2]++;
        if (m->reason == TM_SYNC_OVERFLOW)
            c->resyncs++;
        break;
    case TM_MSG_END:
        if (m->lost)
            c->end_lost++;
        else if (m->reason == TM_END_STOP)
            c->end_stop++;
        else
            c->end_exit++;
        break;
    case TM_MSG_DATA:
        k = nchunks(m->fah, e->fah_a, e->fah_b);
        c->data_fah[k < MAXCH ? k : MAXCH - 1]++;
        c->data_size[tm_size_class(m->size)]++;
        return; /* no diffCC */
    }
    if (e->timestamps) {
        k = nchunks(m->diff_cc, e->cc_a, e->cc_b);
        c->chunks[5][k < MAXCH ? k : MAXCH - 1]++;
    }
}

/* Writes the bins as "name count" lines (merged by testbench/regress.sh). */
/* Writes the coverage to PATH through a temporary (PATH.tmp.PID), renamed
 * into place when complete. */
static int cov_write(const char *path, const cov *c, const tm_model_cfg *cfg)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%.4096s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -1;
    static const char *const fld[6] = {"branch_cnt", "target_cnt", "target_diffta", "exc_icnt",
                                       "exc_diffta", "diffcc"};
    const char *enc = tm_encoding_name(cfg->enc.enc);
    for (int i = 0; i < 6; i++)
        for (int k = 1; k < MAXCH; k++)
            if (c->chunks[i][k])
                fprintf(f, "%s.%s.chunks%d %" PRIu64 "\n", enc, fld[i], k, c->chunks[i][k]);
    fprintf(f, "sync_start %" PRIu64 "\nsync_overflow %" PRIu64 "\nend_exit %" PRIu64 "\nend_stop %" PRIu64
               "\nend_lost %" PRIu64 "\nexception %" PRIu64 "\ndrop %" PRIu64 "\n",
            c->sync[0], c->sync[2], c->end_exit, c->end_stop, c->end_lost, c->exc, c->drops);
    fprintf(f, "ras_wrap %" PRIu64 "\nras_underflow %" PRIu64 "\nibtb_fill_way0 %" PRIu64
               "\nibtb_fill_way1 %" PRIu64 "\n",
            c->pred.ras_wraps, c->pred.ras_underflows, c->pred.ibtb_fills[0], c->pred.ibtb_fills[1]);
    for (unsigned i = 0; i < cfg->enc.threads && i < 64; i++)
        for (unsigned j = i + 1; j < cfg->enc.threads && j < 64; j++)
            fprintf(f, "conflict.%u.%u %" PRIu64 "\n", i, j, c->pair[i][j]);
    if (cfg->enc.data) {
        const char *mode = tm_data_mode_name((tm_data_mode)cfg->enc.data);
        for (int k = 1; k < MAXCH; k++)
            if (c->data_fah[k])
                fprintf(f, "%s.data_fah.chunks%d %" PRIu64 "\n", enc, k, c->data_fah[k]);
        for (unsigned k = 0; k < TM_SZ_CLASSES; k++)
            fprintf(f, "data_size.%s %" PRIu64 "\n", tm_size_class_name(k), c->data_size[k]);
        fprintf(f, "data.%s.accepted %" PRIu64 "\ndata.%s.dropped %" PRIu64 "\n", mode, c->data_acc, mode,
                c->data_drop);
        fprintf(f, "data.bundle_accepted %" PRIu64 "\ndata.bundle_dropped %" PRIu64 "\n", c->bundle_acc,
                c->bundle_drop);
    }
    if (cfg->enc.data == TM_DATA_CFIAT)
        fprintf(f,
                "cache.load_line_miss %" PRIu64 "\ncache.load_line_hit_flags_all %" PRIu64
                "\ncache.load_line_hit_flags_part %" PRIu64 "\ncache.load_line_hit_flags_none %" PRIu64
                "\ncache.store_line_miss %" PRIu64 "\ncache.store_line_hit %" PRIu64 "\ncache.lines2 %" PRIu64
                "\ncache.lines3plus %" PRIu64 "\ncache.inv_held_before %" PRIu64 "\ncache.inv_held_after %" PRIu64
                "\ncache.same_line_store_before %" PRIu64 "\ncache.same_line_store_after %" PRIu64
                "\ncache.flag_clear %" PRIu64 "\n",
                c->ld_miss, c->ld_hit_all, c->ld_hit_part, c->ld_hit_none, c->st_miss, c->st_hit, c->lines2,
                c->lines3, c->inv_before, c->inv_after, c->same_line_before, c->same_line_after, c->clears);
    if ((ferror(f) | fclose(f)) || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- compare */

typedef struct sim {
    const char *tmc;
    tm_model_cfg cfg;
    evlist evs;
    size_t next_ev;
    const tm_bitbuf *trace;
    uint64_t port_pos;     /* bits of the trace the port has sent */
    uint64_t occ;          /* expected occupancy (spec §3.6) */
    uint64_t model_cycles;
    uint64_t idle_skipped; /* idle cycles the RTL's counter moved over in one step */
    int quiet;
    char why[4096];
    uint64_t fail_cycle;
    tm_bitbuf dbuf;        /* the model's DATA message, encoded */
    const tm_cache_stats *cache_stats; /* the model's (cfiat) */
    tm_cache *shadow[64];  /* cfiat: the private caches, kept along the RTL run */
} sim;

static int mismatch(sim *s, uint64_t cycle, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int mismatch(sim *s, uint64_t cycle, const char *fmt, ...)
{
    if (!s->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->why, sizeof s->why, fmt, ap);
        va_end(ap);
        s->fail_cycle = cycle;
    }
    return 1;
}

static const char *kname(unsigned k)
{
    static const char *const n[] = {"BRANCH", "EXC", "SYNC", "END", "DATA"};
    return k < 5 ? n[k] : "?";
}

/* One compared field: its name, the model's value and the RTL's. */
typedef struct fld {
    const char *name;
    uint64_t want, got;
} fld;

/* 1 if some field differs.  The table is formatted only then (most
 * messages match, and formatting every one would cost more than the
 * comparison). */
static int fields_differ(const fld *f, int nf)
{
    for (int i = 0; i < nf; i++)
        if (f[i].want != f[i].got)
            return 1;
    return 0;
}

static size_t fields_table(char *buf, size_t size, const fld *f, int nf)
{
    size_t n = 0;
    for (int i = 0; i < nf && n < size; i++) {
        int r = snprintf(buf + n, size - n, "    %-9s expected %-20" PRIu64 " got %-20" PRIu64 "%s\n", f[i].name,
                         f[i].want, f[i].got, f[i].want == f[i].got ? "" : "  <--");
        if (r < 0)
            break;
        n += (size_t)r;
    }
    return n < size ? n : size - 1;
}

/* Field-by-field comparison of the model's message and the RTL's offer. */
static int compare_msg(sim *s, uint64_t cycle, unsigned core, const ev *e, const tb_offer *o)
{
    const tm_msg *m = &e->m;
    fld f[] = {
        {"accepted", (uint64_t)e->accepted, (uint64_t)o->accept},
        {"length", e->len, o->len},
        {"kind", m->kind, o->kind},
        {"ti", m->ti, o->ti},
        {"cnt", m->cnt, o->cnt},
        {"t", m->t, o->t},
        {"diffTA", (uint64_t)m->diff_ta, o->diff_ta},
        {"iCnt", m->icnt, o->icnt},
        {"gap", m->gap, o->gap},
        {"addr", m->addr, o->addr},
        {"reason", m->reason, o->reason},
        {"lost", m->lost, o->lost},
        {"dropped", m->dropped, o->dropped},
        {"diffCC", m->diff_cc, o->diff_cc},
    };
    int nf = (int)(sizeof f / sizeof f[0]) - (s->cfg.enc.timestamps ? 0 : 1);
    if (!fields_differ(f, nf))
        return 0;
    char buf[1536];
    fields_table(buf, sizeof buf, f, nf);
    return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: %s message differs (model / RTL):\n%s", cycle, core,
                    kname(m->kind), buf);
}

static unsigned bit_of(const uint8_t *b, unsigned k) { return (b[k / 8] >> (k % 8)) & 1u; }

/* The model's DATA message against the RTL's: the verdict, the length, the
 * fields (Ti, Q and VALUE read from the RTL's bits) and every bit. */
static int compare_data(sim *s, uint64_t cycle, unsigned core, const ev *e, const tb_offer *o)
{
    const tm_msg *m = &e->m;
    const tm_enc_cfg *enc = &s->cfg.enc;
    tm_bitbuf_clear(&s->dbuf);
    if (tm_msg_encode(enc, m, &s->dbuf, NULL) != TM_OK)
        return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: cannot encode the model's DATA message", cycle, core);
    unsigned tiw = tm_ti_bits(enc->threads), n = 0;
    uint64_t ti = 0;
    for (unsigned b = 0; b < tiw; b++)
        ti |= (uint64_t)bit_of(o->dbits, b) << b;
    unsigned q = bit_of(o->dbits, tiw);
    /* The RTL's VALUE: 8 x size bits after its own fahCnt field. */
    unsigned voff = tiw + 1 + tm_chunked_bits(o->dfah, enc->fah_a, enc->fah_b);
    int vbad = -1;
    for (unsigned i = 0; i < m->size && vbad < 0; i++) {
        unsigned v = 0;
        for (unsigned b = 0; b < 8; b++)
            if (voff + 8 * i + b < 8 * sizeof o->dbits)
                v |= bit_of(o->dbits, voff + 8 * i + b) << b;
        if (v != m->value[i])
            vbad = (int)i;
    }
    /* The first differing bit: whole bytes first (the model's buffer holds
     * the message from bit 0; both are 0 past the length). */
    int bbad = -1;
    unsigned nbits = e->len < 8 * sizeof o->dbits ? e->len : 8 * sizeof o->dbits;
    unsigned b0 = 0;
    while (b0 + 8 <= nbits && o->dbits[b0 / 8] == s->dbuf.data[b0 / 8])
        b0 += 8;
    for (unsigned b = b0; b < nbits && bbad < 0; b++)
        if (bit_of(o->dbits, b) != bit_of(s->dbuf.data, b))
            bbad = (int)b;
    fld f[] = {
        {"accepted", (uint64_t)e->accepted, (uint64_t)o->accept},
        {"length", e->len, o->dlen},
        {"ti", m->ti, ti},
        {"Q", 1, q},
        {"fahCnt", m->fah, o->dfah},
        {"size", m->size, o->dsize},
    };
    int nf = (int)(sizeof f / sizeof f[0]);
    if (!fields_differ(f, nf) && vbad < 0 && bbad < 0)
        return 0;
    char buf[1536];
    n = (unsigned)fields_table(buf, sizeof buf, f, nf);
    if (vbad >= 0) {
        unsigned v = 0;
        for (unsigned b = 0; b < 8; b++)
            v |= bit_of(o->dbits, voff + 8 * (unsigned)vbad + b) << b;
        snprintf(buf + n, sizeof buf - n, "    value     byte %d: expected 0x%02x got 0x%02x  <--\n", vbad,
                 m->value[vbad], v);
    } else if (bbad >= 0 && !fields_differ(f, nf)) {
        snprintf(buf + n, sizeof buf - n, "    bits      bit %d of the message: expected %u got %u  <--\n", bbad,
                 bit_of(s->dbuf.data, (unsigned)bbad), bit_of(o->dbits, (unsigned)bbad));
    }
    return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: DATA message differs (model / RTL):\n%s", cycle, core, buf);
}

/* The caches of one cycle (cfiat), after the offers matched: every core's
 * cache access and every invalidation port against a shadow of the private
 * caches kept with the model's own cache code (cmodel/cache.c), in the
 * model's order (cores in index order: own access, then the store's
 * invalidation of every other cache; flag clears at the end of the cycle,
 * for the cores whose SYNC(OVERFLOW) the model accepted: CLEAR).  Then the
 * coverage: the RTL's per-line results, and same-cycle stores of other cores
 * on the lines a core accesses (from the inputs). */
static int dcache_cycle(sim *s, tb_rtl *r, uint64_t cycle, const tb_retire *in, const int *clear, cov *c)
{
    unsigned N = s->cfg.enc.threads, L = s->cfg.cache.line;
    tb_dcache d[64];
    unsigned want_inv[64][63];
    memset(want_inv, 0, sizeof want_inv);
    for (unsigned k = 0; k < N; k++)
        tb_rtl_dcache(r, k, &d[k]);
    for (unsigned k = 0; k < N; k++) {
        int op = in[k].valid && in[k].mem_valid;
        if (!d[k].valid != !op)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the group %s a memory operand, the RTL's cache %s",
                            cycle, k, op ? "has" : "has no", d[k].valid ? "accesses one" : "accesses none");
        if (!op)
            continue;
        tm_cache_res w = in[k].mem_store
                             ? tm_cache_store(s->shadow[k], k, in[k].mem_addr, in[k].mem_size)
                             : tm_cache_load(s->shadow[k], k, in[k].mem_addr, in[k].mem_size);
        uint32_t all = d[k].lines >= 32 ? UINT32_MAX : (UINT32_C(1) << d[k].lines) - 1;
        unsigned all_hit = (d[k].hit & all) == all;
        unsigned flags_hit = in[k].mem_store || (d[k].hit & ~d[k].fall & all) == 0;
        unsigned report = !in[k].mem_store && !(all_hit && flags_hit);
        if (d[k].lines != w.lines || all_hit != w.all_hit || flags_hit != w.flags_hit || report != w.report)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the cache's %s of %u bytes at 0x%" PRIx64
                            " differs (model / RTL):\n    lines     expected %u got %u\n    all hit   expected %u got "
                            "%u\n    flags hit expected %u got %u\n    report    expected %u got %u\n",
                            cycle, k, in[k].mem_store ? "store" : "load", in[k].mem_size, in[k].mem_addr, w.lines,
                            d[k].lines, w.all_hit, all_hit, w.flags_hit, flags_hit, w.report, report);
        if (in[k].mem_store)
            for (unsigned j = 0; j < N; j++)
                if (j != k)
                    want_inv[j][k < j ? k : k - 1] =
                        tm_cache_invalidate(s->shadow[j], in[k].mem_addr, in[k].mem_size);
    }
    for (unsigned k = 0; k < N; k++) {
        for (unsigned j = 0; j + 1 < N; j++)
            if (d[k].inv[j] != want_inv[k][j])
                return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the store of core %u finds %u line(s) held in "
                                "this core's cache in the model, %u in the RTL",
                                cycle, k, j < k ? j : j + 1, want_inv[k][j], d[k].inv[j]);
        if (!d[k].clear != !clear[k])
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the model %s the cache's flags after its "
                            "SYNC(OVERFLOW), the RTL %s",
                            cycle, k, clear[k] ? "clears" : "does not clear", d[k].clear ? "does" : "does not");
        if (clear[k])
            tm_cache_clear_flags(s->shadow[k]);
    }

    for (unsigned k = 0; k < N; k++) {
        c->clears += d[k].clear != 0;
        c->flag_clears += d[k].clear != 0;
        for (unsigned j = 0; j + 1 < N; j++)
            if (d[k].inv[j]) {
                c->invalidations += d[k].inv[j];
                *((j < k ? j : j + 1) < k ? &c->inv_before : &c->inv_after) += 1;
            }
        if (!d[k].valid)
            continue;
        c->lines2 += d[k].lines == 2;
        c->lines3 += d[k].lines >= 3;
        c->multi_line += d[k].lines > 1;
        uint32_t all = d[k].lines >= 32 ? UINT32_MAX : (UINT32_C(1) << d[k].lines) - 1;
        int all_hit = (d[k].hit & all) == all;
        if (in[k].mem_store) {
            c->store_refs++;
            *(all_hit ? &c->store_hits : &c->store_misses) += 1;
        } else {
            c->load_refs++;
            if (!all_hit)
                c->load_misses++;
            else {
                c->load_hits++;
                *((d[k].fall & all) == all ? &c->fa_hits : &c->fa_misses) += 1;
            }
        }
        for (unsigned i = 0; i < d[k].lines && i < 32; i++) {
            int hit = (d[k].hit >> i) & 1, fall = (d[k].fall >> i) & 1, fany = (d[k].fany >> i) & 1;
            if (in[k].mem_store)
                *(hit ? &c->st_hit : &c->st_miss) += 1;
            else if (!hit)
                c->ld_miss++;
            else
                *(fall ? &c->ld_hit_all : fany ? &c->ld_hit_part : &c->ld_hit_none) += 1;
        }
        uint64_t a0 = in[k].mem_addr / L, a1 = (in[k].mem_addr + in[k].mem_size - 1) / L;
        for (unsigned j = 0; j < N; j++) {
            if (j == k || !in[j].valid || !in[j].mem_valid || !in[j].mem_store)
                continue;
            uint64_t b0 = in[j].mem_addr / L, b1 = (in[j].mem_addr + in[j].mem_size - 1) / L;
            if (b0 <= a1 && a0 <= b1)
                *(j < k ? &c->same_line_before : &c->same_line_after) += 1;
        }
    }
    return 0;
}

/* At the end of a run: the RTL caches' totals against the model's cache
 * statistics.  They cover every operand, also those whose result forms no
 * message (stores, loads of LOST threads, loads with data all). */
static int check_cache_stats(sim *s, const tm_cache_stats *m, const cov *c, uint64_t cycle)
{
    uint64_t w[11] = {0}, g[11] = {c->load_refs, c->load_hits, c->load_misses, c->fa_hits, c->fa_misses,
                                   c->store_refs, c->store_hits, c->store_misses, c->multi_line,
                                   c->invalidations, c->flag_clears};
    static const char *const names[11] = {"load refs", "load hits", "load misses", "FA hits", "FA misses",
                                          "store refs", "store hits", "store misses", "multi-line operands",
                                          "invalidated lines", "flag clears"};
    for (unsigned k = 0; k < TM_SZ_CLASSES; k++) {
        w[0] += m->load_refs[k];
        w[1] += m->load_hits[k];
        w[2] += m->load_misses[k];
        w[3] += m->fa_hits[k];
        w[4] += m->fa_misses[k];
        w[5] += m->store_refs[k];
        w[6] += m->store_hits[k];
        w[7] += m->store_misses[k];
    }
    w[8] = m->multi_line;
    w[9] = m->invalidations;
    w[10] = m->flag_clears;
    for (int k = 0; k < 11; k++)
        if (w[k] != g[k])
            return mismatch(s, cycle, "at the end of the run: the RTL caches count %" PRIu64 " %s, the model %" PRIu64,
                            g[k], names[k], w[k]);
    return 0;
}

/* One cycle of the RTL after its inputs are set (IN): compare offers and port. */
static int check_cycle(sim *s, tb_rtl *r, uint64_t cycle, const tb_retire *in, cov *c)
{
    unsigned N = s->cfg.enc.threads;
    tb_offer o[64];
    for (unsigned k = 0; k < N; k++)
        tb_rtl_offer(r, k, &o[k]);

    for (unsigned i = 0; i < N && i < 64; i++)
        for (unsigned j = i + 1; j < N && j < 64; j++)
            if (o[i].offer && o[j].offer)
                c->pair[i][j]++;
    /* Port first: it carries the bits of the buffer at the start of the cycle. */
    uint64_t lo, hi;
    unsigned got = tb_rtl_port(r, &lo, &hi);
    unsigned want = (unsigned)(s->occ < s->cfg.port_bits ? s->occ : s->cfg.port_bits);
    if (got != want)
        return mismatch(s, cycle, "cycle %" PRIu64 ": the port carries %u bits, the model %u (occupancy %" PRIu64 ")",
                        cycle, got, want, s->occ);
    for (unsigned b = 0; b < got; b++) {
        uint64_t pos = s->port_pos + b;
        unsigned wb = (s->trace->data[pos / 8] >> (pos % 8)) & 1u;
        unsigned gb = (unsigned)((lo >> b) & 1u);
        if (wb != gb)
            return mismatch(s, cycle, "cycle %" PRIu64 ": port lane %u (trace bit %" PRIu64 ") is %u, the model's is %u",
                            cycle, b, pos, gb, wb);
    }
    s->port_pos += got;
    s->occ -= got;
    /* Offers, in core order: the model reports a bundle as its DATA message
     * then its control message. */
    int clear[64], any_clear = 0;
    for (unsigned k = 0; k < N; k++) {
        clear[k] = 0;
        int reported = o[k].accept || o[k].drop;
        const ev *e = s->next_ev < s->evs.n ? &s->evs.v[s->next_ev] : NULL;
        int expected = e && e->cycle == cycle && e->core == k;
        if (!reported && !expected)
            continue;
        if (reported && !expected && !o[k].ctrl)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the RTL %s a DATA message (fahCnt %" PRIu64
                            ", %u bytes) the model does not offer",
                            cycle, k, o[k].accept ? "accepts" : "drops", o[k].dfah, o[k].dsize);
        if (reported && !expected)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the RTL %s a %s%s message (cnt %" PRIu64
                            ", iCnt %" PRIu64 ") the model does not offer",
                            cycle, k, o[k].accept ? "accepts" : "drops", o[k].data ? "DATA + " : "",
                            kname(o[k].kind), o[k].cnt, o[k].icnt);
        if (!reported && expected && e->m.kind == TM_MSG_DATA)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the model %s a DATA message (fahCnt %" PRIu64
                            ", %u bytes), the RTL offers %s",
                            cycle, k, e->accepted ? "accepts" : "drops", e->m.fah, (unsigned)e->m.size,
                            o[k].offer ? "a message that is neither accepted nor dropped" : "nothing");
        if (!reported && expected)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the model %s a %s message (cnt %" PRIu64
                            ", iCnt %" PRIu64 "), the RTL offers %s",
                            cycle, k, e->accepted ? "accepts" : "drops", kname(e->m.kind), e->m.cnt, e->m.icnt,
                            o[k].offer ? "a message that is neither accepted nor dropped" : "nothing");
        const ev *ed = NULL, *ec = NULL;
        if (e->m.kind == TM_MSG_DATA) {
            ed = e;
            const ev *e2 = s->next_ev + 1 < s->evs.n ? &s->evs.v[s->next_ev + 1] : NULL;
            if (e2 && e2->cycle == cycle && e2->core == k && e2->m.kind != TM_MSG_DATA)
                ec = e2;
        } else {
            ec = e;
        }
        if (!ed != !o[k].data)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the model's bundle %s a DATA message (%s), the "
                            "RTL's %s (%s)",
                            cycle, k, ed ? "has" : "has no", e->accepted ? "accepted" : "dropped",
                            o[k].data ? "has one" : "has none", o[k].accept ? "accepted" : "dropped");
        if (!ec != !o[k].ctrl)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the model's bundle %s a control message%s%s, "
                            "the RTL's %s%s%s",
                            cycle, k, ec ? "has" : "has no", ec ? " " : "", ec ? kname(ec->m.kind) : "",
                            o[k].ctrl ? "has a " : "has none", o[k].ctrl ? kname(o[k].kind) : "",
                            o[k].ctrl ? " message" : "");
        if (ed && compare_data(s, cycle, k, ed, &o[k]))
            return 1;
        if (ec && compare_msg(s, cycle, k, ec, &o[k]))
            return 1;
        if (ed) {
            if (ed->accepted) {
                s->occ += ed->len;
                cov_msg(c, &s->cfg.enc, &ed->m);
                c->data_acc++;
            } else {
                c->data_drop++;
            }
            s->next_ev++;
        }
        if (ec) {
            if (ec->accepted) {
                s->occ += ec->len;
                cov_msg(c, &s->cfg.enc, &ec->m);
            }
            s->next_ev++;
        }
        if (!e->accepted)
            c->drops++;
        if (ed && ec)
            *(e->accepted ? &c->bundle_acc : &c->bundle_drop) += 1;
        clear[k] = ec && ec->accepted && ec->m.kind == TM_MSG_SYNC && ec->m.reason == TM_SYNC_OVERFLOW;
        any_clear |= clear[k];
    }
    if (s->cfg.enc.data == TM_DATA_CFIAT) {
        int any = any_clear;
        for (unsigned k = 0; k < N && !any; k++)
            any = in[k].valid && in[k].mem_valid;
        if (any)
            return dcache_cycle(s, r, cycle, in, clear, c);
    }
    return 0;
}

/* ---------------------------------------------------------------- driving */

typedef struct group_state {
    tb_retire in[1024];
    tb_retire prev[1024]; /* what the RTL's inputs hold now */
    int started[1024], exited[1024];
} group_state;

/* The fields of tb_retire up to mem_valid: the rest (the memory operand)
 * matters only with mem_valid. */
#define RETIRE_HEAD offsetof(tb_retire, mem_store)

/* The next cycle's inputs start empty; the memory operand's fields other
 * than mem_valid keep their values (the RTL ignores them without it, and
 * unchanged inputs need not be set again). */
static void clear_inputs(group_state *g, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        memset(&g->in[k], 0, RETIRE_HEAD);
}

/* The inputs of a core changed since they were last set. */
static int inputs_changed(const tb_retire *in, const tb_retire *prev)
{
    return memcmp(in, prev, in->mem_valid ? sizeof *in : RETIRE_HEAD) != 0;
}

static void add_record(group_state *g, const tmc_record *r)
{
    tb_retire *in = &g->in[r->tid];
    in->valid = 1;
    switch (r->type) {
    case TMC_RUN:
        in->count += (uint32_t)r->count;
        in->npc_valid = 1;
        in->npc = r->pc + r->bytes;
        break;
    case TMC_START:
        in->event = 1;
        in->flag = (r->flags & TMC_START_TRACE_ON) != 0;
        in->pc = r->pc;
        g->started[r->tid] = 1;
        break;
    case TMC_EXIT:
        in->event = 2;
        in->flag = (r->flags & TMC_EXIT_TRACE_OFF) != 0;
        g->exited[r->tid] = 1;
        break;
    case TMC_BRANCH:
        in->event = 3;
        in->bclass = r->bclass;
        in->taken = r->taken;
        in->pc = r->pc;
        in->len = r->len;
        in->target = r->target;
        break;
    case TMC_EXC:
        in->event = 4;
        in->pc = r->pc;
        in->target = r->target;
        break;
    case TMC_MEM:
        in->mem_valid = 1;
        in->mem_store = (r->flags & TMC_MEM_STORE) != 0;
        in->mem_size = r->size;
        in->mem_addr = r->addr;
        memset(in->mem_value, 0, sizeof in->mem_value);
        memcpy(in->mem_value, r->value, r->size <= 64 ? r->size : 64);
        break;
    default:
        break;
    }
}

/* Runs the RTL over the stream.  WAVE_FROM..WAVE_TO: cycles to dump (if WAVE). */
static int run_rtl(sim *s, const char *wave, uint64_t wave_from, uint64_t wave_to, cov *c, uint64_t *cycles_out)
{
    unsigned N = s->cfg.enc.threads;
    tmc_reader *rd = NULL;
    char e[600];
    if (tmc_reader_open(s->tmc, &rd, e, sizeof e) != TM_OK) {
        fprintf(stderr, "tm cosim: %s\n", e);
        return 2;
    }
    tb_rtl *r = tb_rtl_new();
    tb_rtl_reset(r);
    group_state *g = calloc(1, sizeof *g);
    if (!g) {
        fprintf(stderr, "tm cosim: out of memory\n");
        tb_rtl_free(r);
        tmc_reader_close(rd);
        return 2;
    }
    memset(s->shadow, 0, sizeof s->shadow);
    if (s->cfg.enc.data == TM_DATA_CFIAT)
        for (unsigned k = 0; k < N; k++)
            if (tm_cache_new(&s->cfg.cache, 0, &s->shadow[k]) != TM_OK) {
                fprintf(stderr, "tm cosim: cannot create the shadow caches\n");
                for (unsigned j = 0; j < k; j++)
                    tm_cache_free(s->shadow[j]);
                free(g);
                for (unsigned k = 0; k < N; k++)
        tm_cache_free(s->shadow[k]);
    tb_rtl_free(r);
                tmc_reader_close(rd);
                return 2;
            }
    s->next_ev = 0;
    s->port_pos = 0;
    s->occ = 0;
    s->idle_skipped = 0;
    s->why[0] = 0;
    int waving = 0, rc = 0, more;
    tmc_record rec;
    uint64_t cycle = 0, last_cycle = 0;
    int have = 0, any = 0;
    if ((more = tmc_reader_next(rd, &rec)) == 1)
        have = 1;
    for (;;) {
        if (wave && !waving && cycle >= wave_from) {
            if (tb_rtl_wave_open(r, wave) != 0) {
                fprintf(stderr, "tm cosim: %s: cannot write the waveform\n", wave);
                rc = 2;
                break;
            }
            waving = 1;
        }
        if (waving && cycle > wave_to) {
            tb_rtl_wave_close(r);
            waving = 0;
            wave = NULL;
        }
        clear_inputs(g, N);
        /* Without data tracing MEM records are not part of the retire
         * interface (the model ignores them as well). */
        int skip_mem = !s->cfg.enc.data;
        while (have && (rec.type == TMC_MODULE || rec.type == TMC_END || rec.type == TMC_CUT ||
                        (skip_mem && rec.type == TMC_MEM))) {
            have = (more = tmc_reader_next(rd, &rec)) == 1;
        }
        while (have && rec.cycle == cycle) {
            add_record(g, &rec);
            any = 1;
            last_cycle = rec.cycle;
            do
                have = (more = tmc_reader_next(rd, &rec)) == 1;
            while (have && (rec.type == TMC_MODULE || rec.type == TMC_END || rec.type == TMC_CUT ||
                            (skip_mem && rec.type == TMC_MEM)));
        }
        if (more < 0) {
            fprintf(stderr, "tm cosim: %s\n", tmc_reader_error(rd));
            rc = 2;
            break;
        }
        /* End-of-stream flush (spec §3.7): cycle L + 1 stops every live thread. */
        if (!have && any && cycle == last_cycle + 1)
            for (unsigned k = 0; k < N; k++)
                if (g->started[k] && !g->exited[k]) {
                    g->in[k].valid = 1;
                    g->in[k].event = 2;
                    g->in[k].flag = 1;
                }
        for (unsigned k = 0; k < N; k++)
            if (cycle == 0 || inputs_changed(&g->in[k], &g->prev[k])) {
                tb_rtl_set(r, k, &g->in[k]);
                g->prev[k] = g->in[k];
            }
        tb_rtl_eval(r);
        if (tb_rtl_cycle(r) != cycle) {
            rc = mismatch(s, cycle, "the RTL's cycle counter reads %" PRIu64 " in cycle %" PRIu64, tb_rtl_cycle(r),
                          cycle);
            break;
        }
        if (check_cycle(s, r, cycle, g->in, c)) {
            rc = 1;
            tb_rtl_clock(r);
            break;
        }
        /* An idle stretch up to the next record: nothing retires, nothing
         * is offered (the model's next offer comes with that record or
         * later), the buffer is empty -- the RTL would only count cycles,
         * so its counter moves on in one step (as the model's bulk idle
         * cycles, spec §3.6), to the cycle before the record, which is
         * simulated and checked as usual (still idle, the right cycle). */
        uint64_t skip = 0;
        if (have && rec.cycle > cycle + 2 && !waving && tb_rtl_occupancy(r) == 0 && s->occ == 0 &&
            (s->next_ev == s->evs.n || s->evs.v[s->next_ev].cycle >= rec.cycle)) {
            int quiet = 1;
            for (unsigned k = 0; k < N && quiet; k++)
                quiet = !g->in[k].valid;
            if (quiet)
                skip = rec.cycle - cycle - 2;
        }
        tb_rtl_clock_skip(r, skip);
        cycle += 1 + skip;
        s->idle_skipped += skip;
        if (!have && cycle >= s->model_cycles && s->next_ev == s->evs.n)
            break;
        if (!have && cycle > s->model_cycles + 16) {
            rc = mismatch(s, cycle, "the RTL still has messages to send after the model's last cycle %" PRIu64,
                          s->model_cycles);
            break;
        }
    }
    if (rc == 0) {
        if (s->next_ev != s->evs.n)
            rc = mismatch(s, cycle, "the model offers %zu more messages than the RTL", s->evs.n - s->next_ev);
        else if (s->port_pos != s->trace->nbits)
            rc = mismatch(s, cycle, "the port sent %" PRIu64 " bits, the model's trace has %" PRIu64, s->port_pos,
                          s->trace->nbits);
        else if (tb_rtl_occupancy(r) != 0)
            rc = mismatch(s, cycle, "the RTL buffer still holds %u bits at the end", tb_rtl_occupancy(r));
        else if (s->cfg.enc.data == TM_DATA_CFIAT)
            rc = check_cache_stats(s, s->cache_stats, c, cycle);
    }
    *cycles_out = cycle;
    free(g);
    tb_rtl_free(r);
    tmc_reader_close(rd);
    return rc;
}

/* ---------------------------------------------------------------- main */

static int usage_err(const char *msg, const char *arg)
{
    fprintf(stderr, "tm cosim: %s%s\n", msg, arg ? arg : "");
    return 2;
}

int main(int argc, char **argv)
{
    tb_params p;
    tb_rtl_params(&p);
    sim s;
    memset(&s, 0, sizeof s);
    tm_model_cfg *cfg = &s.cfg;
    memset(cfg, 0, sizeof *cfg);
    const char *wave = NULL, *covf = NULL;
    long long inject = -1; /* test only: corrupt the model's expectation from this cycle on */
    unsigned threads = 0, enc = 0, ts = 0, tsb = 64, shared = 0, ch[6] = {0};
    unsigned data = 0, dc[4] = {0}, fah[2] = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define U(name, dst)                                    \
    if (!strcmp(a, name)) {                             \
        if (!v)                                         \
            return usage_err("missing value for ", a);  \
        dst = (unsigned)strtoul(v, NULL, 10);           \
        i++;                                            \
        continue;                                       \
    }
        U("--threads", threads)
        U("--encoding", enc)
        U("--ts", ts)
        U("--ts-bits", tsb)
        U("--shared", shared)
        U("--gshare", cfg->pred.gshare)
        U("--ras", cfg->pred.ras)
        U("--ibtb", cfg->pred.ibtb)
        U("--buffer", cfg->buffer_bits)
        U("--port", cfg->port_bits)
        U("--data", data)
#undef U
        if (!strcmp(a, "--chunks") && v) {
            if (sscanf(v, "%u,%u,%u,%u,%u,%u", &ch[0], &ch[1], &ch[2], &ch[3], &ch[4], &ch[5]) != 6)
                return usage_err("--chunks needs a,b,c,d,e,f: ", v);
            i++;
        } else if (!strcmp(a, "--dcache") && v) {
            if (sscanf(v, "%u,%u,%u,%u", &dc[0], &dc[1], &dc[2], &dc[3]) != 4)
                return usage_err("--dcache needs size,assoc,line,granularity: ", v);
            i++;
        } else if (!strcmp(a, "--fah") && v) {
            if (sscanf(v, "%u,%u", &fah[0], &fah[1]) != 2)
                return usage_err("--fah needs a,b: ", v);
            i++;
        } else if (!strcmp(a, "--wave") && v) {
            wave = v;
            i++;
        } else if (!strcmp(a, "--inject-fault") && v) {
            inject = strtoll(v, NULL, 10);
            i++;
        } else if (!strcmp(a, "--cov") && v) {
            covf = v;
            i++;
        } else if (!strcmp(a, "-q")) {
            s.quiet = 1;
        } else if (a[0] == '-') {
            return usage_err("unknown option ", a);
        } else {
            s.tmc = a;
        }
    }
    if (!s.tmc)
        return usage_err("no commit stream", NULL);
    tm_enc_cfg_default(&cfg->enc, (tm_encoding)enc, threads, (int)ts);
    cfg->enc.cnt_a = (uint8_t)ch[0]; cfg->enc.cnt_b = (uint8_t)ch[1];
    cfg->enc.ta_a = (uint8_t)ch[2]; cfg->enc.ta_b = (uint8_t)ch[3];
    cfg->enc.cc_a = (uint8_t)ch[4]; cfg->enc.cc_b = (uint8_t)ch[5];
    cfg->shared = (int)shared;
    cfg->ts_bits = tsb;
    cfg->enc.data = (uint8_t)data;
    if (data) {
        cfg->enc.fah_a = (uint8_t)fah[0];
        cfg->enc.fah_b = (uint8_t)fah[1];
    }
    if (data == TM_DATA_CFIAT) {
        cfg->cache.size = dc[0];
        cfg->cache.assoc = dc[1];
        cfg->cache.line = dc[2];
        cfg->cache.gran = dc[3];
    }
    char err[256];
    if (tm_model_cfg_resolve(cfg, err, sizeof err) != TM_OK)
        return usage_err(err, NULL);
    /* The simulator was built for one parameter set: refuse any other.  The
     * cache geometry counts only with CFiat, the fah chunks with data. */
    unsigned want[23] = {threads, enc, ts, tsb, shared, cfg->pred.gshare, cfg->pred.ras, cfg->pred.ibtb,
                         ch[0], ch[1], ch[2], ch[3], ch[4], ch[5], cfg->buffer_bits, cfg->port_bits,
                         data, dc[0], dc[1], dc[2], dc[3], fah[0], fah[1]};
    unsigned have[23] = {p.n, p.enc, p.ts, p.ts_bits, p.shared, p.gshare, p.ras, p.ibtb,
                         p.ca, p.cb, p.ta, p.tb, p.ha, p.hb, p.buf_bits, p.port_bits,
                         p.data, p.dc_size, p.dc_assoc, p.dc_line, p.dc_gran, p.fa, p.fb};
    if (data != TM_DATA_CFIAT)
        for (int k = 17; k < 21; k++)
            want[k] = have[k] = 0;
    if (!data)
        want[21] = want[22] = have[21] = have[22] = 0;
    if (memcmp(want, have, sizeof want))
        return usage_err("the configuration differs from the parameters this simulator was built with", NULL);

    /* Pass 1: the model. */
    tm_model *m = NULL;
    if (tm_model_new(cfg, &m) != TM_OK)
        return usage_err("cannot create the model", NULL);
    tm_model_set_hook(m, hook, &s.evs);
    tmc_reader *rd = NULL;
    char e[600];
    if (tmc_reader_open(s.tmc, &rd, e, sizeof e) != TM_OK) {
        fprintf(stderr, "tm cosim: %s\n", e);
        tm_model_free(m);
        return 1;
    }
    if (tmc_reader_threads(rd) != threads) {
        fprintf(stderr, "tm cosim: %s declares %u threads, the simulator was built for %u\n", s.tmc,
                tmc_reader_threads(rd), threads);
        return 2;
    }
    tmc_record rec;
    int more;
    uint64_t insns = 0;
    while ((more = tmc_reader_next(rd, &rec)) == 1) {
        if (rec.type == TMC_RUN)
            insns += rec.count;
        else if (rec.type == TMC_BRANCH)
            insns++;
        if (tm_model_put(m, &rec) != TM_OK) {
            fprintf(stderr, "tm cosim: %s: %s\n", s.tmc, tm_model_error(m));
            return 1;
        }
    }
    if (more < 0) {
        fprintf(stderr, "tm cosim: %s\n", tmc_reader_error(rd));
        return 1;
    }
    tmc_reader_close(rd);
    tm_model_finish(m);
    if (s.evs.oom) {
        fprintf(stderr, "tm cosim: out of memory\n");
        return 1;
    }
    s.trace = tm_model_trace(m);
    s.model_cycles = tm_model_get_stats(m)->cycles;
    s.cache_stats = &tm_model_get_stats(m)->cache;
    if (inject >= 0) {
        /* Proves that the comparison can fail: the first accepted message at
         * or after the cycle gets a different count, as a broken RTL would;
         * with data tracing, the first accepted DATA message its fahCnt. */
        for (size_t i = 0; i < s.evs.n; i++)
            if (s.evs.v[i].cycle >= (uint64_t)inject && s.evs.v[i].accepted &&
                (!cfg->enc.data || s.evs.v[i].m.kind == TM_MSG_DATA)) {
                if (s.evs.v[i].m.kind == TM_MSG_DATA) {
                    s.evs.v[i].m.fah ^= 1;
                } else {
                    s.evs.v[i].m.cnt ^= 1;
                    s.evs.v[i].m.icnt ^= 1;
                }
                break;
            }
    }

    /* Pass 2: the RTL, cycle by cycle. */
    cov c;
    memset(&c, 0, sizeof c);
    uint64_t cycles = 0;
    int rc = run_rtl(&s, NULL, 0, 0, &c, &cycles);
    if (rc == 1) {
        printf("MISMATCH: %s", s.why);
        if (s.why[strlen(s.why) - 1] != '\n')
            printf("\n");
        if (wave) {
            uint64_t from = s.fail_cycle > 200 ? s.fail_cycle - 200 : 0;
            sim s2 = s;
            cov c2;
            memset(&c2, 0, sizeof c2);
            uint64_t cy2;
            s2.why[0] = 0;
            run_rtl(&s2, wave, from, s.fail_cycle + 2, &c2, &cy2);
            s.dbuf = s2.dbuf; /* the rerun may have grown the shared buffer */
            printf("waveform of cycles %" PRIu64 "..%" PRIu64 " written to %s\n", from, s.fail_cycle + 2, wave);
        }
    } else if (rc == 0) {
        size_t accepted = 0, data_n = 0, data_acc = 0;
        for (size_t i = 0; i < s.evs.n; i++) {
            accepted += s.evs.v[i].accepted;
            if (s.evs.v[i].m.kind == TM_MSG_DATA) {
                data_n++;
                data_acc += s.evs.v[i].accepted;
            }
        }
        printf("PASS: %" PRIu64 " instructions, %zu messages (%zu dropped), %" PRIu64 " bits, %" PRIu64
               " cycles compared",
               insns, accepted, s.evs.n - accepted, s.trace->nbits, cycles);
        if (cfg->enc.data)
            printf("; of the messages %zu DATA (%zu dropped)", data_acc, data_n - data_acc);
        if (s.idle_skipped)
            printf("; %" PRIu64 " of them idle, passed in one step each stretch", s.idle_skipped);
        printf("\n");
        tm_model_pred_counts(m, &c.pred);
        if (covf && cov_write(covf, &c, cfg) != 0) {
            fprintf(stderr, "tm cosim: %s: cannot write coverage\n", covf);
            rc = 1;
        }
        if (!s.quiet) {
            unsigned bins = 0, hit = 0;
            for (int i = 0; i < 6; i++)
                for (int k = 1; k < MAXCH; k++)
                    if (c.chunks[i][k])
                        hit++;
            bins = hit;
            printf("coverage: %u field x chunk-count bins hit; sync start %" PRIu64 ", overflow %" PRIu64
                   "; end exit %" PRIu64 ", stop %" PRIu64 ", lost %" PRIu64 "; drops %" PRIu64
                   "; RAS wraps %" PRIu64 ", iBTB fills way0 %" PRIu64 " way1 %" PRIu64 "\n",
                   bins, c.sync[0], c.sync[2], c.end_exit, c.end_stop, c.end_lost, c.drops, c.pred.ras_wraps,
                   c.pred.ibtb_fills[0], c.pred.ibtb_fills[1]);
            if (cfg->enc.data)
                printf("data coverage: DATA accepted %" PRIu64 ", dropped %" PRIu64 "; bundles with a control "
                       "message accepted %" PRIu64 ", dropped %" PRIu64 "\n",
                       c.data_acc, c.data_drop, c.bundle_acc, c.bundle_drop);
            if (cfg->enc.data == TM_DATA_CFIAT)
                printf("cache coverage (lines): load miss %" PRIu64 ", hit with touched flags all %" PRIu64
                       " / part %" PRIu64 " / none %" PRIu64 " set; store miss %" PRIu64 ", hit %" PRIu64
                       "; operands on 2 lines %" PRIu64 ", 3+ %" PRIu64 "; invalidations of held lines before "
                       "%" PRIu64 ", after %" PRIu64 "; same-line stores before %" PRIu64 ", after %" PRIu64
                       "; flag clears %" PRIu64 "\n",
                       c.ld_miss, c.ld_hit_all, c.ld_hit_part, c.ld_hit_none, c.st_miss, c.st_hit, c.lines2,
                       c.lines3, c.inv_before, c.inv_after, c.same_line_before, c.same_line_after, c.clears);
        }
    }
    free(s.evs.v);
    tm_bitbuf_free(&s.dbuf);
    tm_model_free(m);
    return rc;
}
