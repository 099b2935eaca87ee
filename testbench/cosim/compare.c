/* tm — co-simulation testbench: each cycle's offers, port bits and caches against the model's. */
#include "cosim.h"

int mismatch(sim *s, uint64_t cycle, const char *fmt, ...)
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
    if (tm_msg_encode_a(enc, s->adapt, m, &s->dbuf, NULL) != TM_OK) /* tr_a: a DATA message reads no state */
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
 * caches kept with the model's own cache code (cmodel/dcache.c), in the
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
int check_cache_stats(sim *s, const tm_cache_stats *m, const cov *c, uint64_t cycle)
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
int check_cycle(sim *s, tb_rtl *r, uint64_t cycle, const tb_retire *in, cov *c)
{
    unsigned N = s->cfg.enc.threads;
    /* A core's offer is read in full only if it is accepted or dropped or
     * the model has a message for it in this cycle (else neither reports
     * anything: nothing to compare). */
    tb_offer o[64];
    uint64_t offering, reports = tb_rtl_reports(r, &offering);
    if (offering & (offering - 1))
        for (unsigned i = 0; i < N && i < 64; i++)
            if ((offering >> i) & 1)
                for (unsigned j = i + 1; j < N && j < 64; j++)
                    if ((offering >> j) & 1)
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
        int reported = (int)((reports >> k) & 1);
        const ev *e = s->next_ev < s->evs.n ? &s->evs.v[s->next_ev] : NULL;
        int expected = e && e->cycle == cycle && e->core == k;
        if (!reported && !expected)
            continue;
        tb_rtl_offer(r, k, &o[k]);
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
        /* tr_a: the state the message is coded with (spec §4.9), before
         * the bits, so that a wrong state is reported as such */
        tm_adapt *a = &s->adapt[k];
        if (ec && tm_enc_adaptive(&s->cfg.enc) && (o[k].acnt != a->cnt || o[k].acc != a->cc || o[k].tf != a->tf))
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: %s message: adaptive state A_cnt %u, A_cc %u, "
                            "TF %u, the model's %u, %u, %u", cycle, k, kname(ec->m.kind), o[k].acnt, o[k].acc,
                            o[k].tf, (unsigned)a->cnt, (unsigned)a->cc, (unsigned)a->tf);
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
                if (tm_enc_adaptive(&s->cfg.enc)) {
                    tm_adapt before = *a;
                    tm_adapt_update(&s->cfg.enc, s->adapt, &ec->m);
                    cov_adapt(c, &s->cfg.enc, &before, a, &ec->m);
                }
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
