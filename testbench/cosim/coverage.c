/* tm — co-simulation testbench: the coverage bins of a run, written (--cov) and printed. */
#include "cosim.h"

static unsigned nchunks(uint64_t v, unsigned a, unsigned b)
{
    unsigned bits = tm_chunked_bits(v, a, b);
    return 1 + (bits - (a + 1)) / (b + 1);
}

static uint64_t mag(int64_t d) { return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d; }

void cov_msg(cov *c, const tm_enc_cfg *e, const tm_msg *m)
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

/* tr_a: an accepted control message M coded with the thread's state A
 * (before M moves it), and the state AFTER it. */
void cov_adapt(cov *c, const tm_enc_cfg *e, const tm_adapt *a, const tm_adapt *after, const tm_msg *m)
{
    int esc = tm_adapt_escape(a), esc_after = tm_adapt_escape(after);
    c->a_msgs++;
    c->a_cnt_k[tm_adapt_k(a->cnt)]++;
    if (m->kind == TM_MSG_BRANCH) {
        if (esc)
            c->a_escape += m->t;
        else
            c->a_tbit[m->t != 0]++;
        c->a_cnt_cap += m->cnt >= TM_ADAPT_CAP;
    }
    c->a_to_tbit += esc && !esc_after;
    c->a_to_escape += !esc && esc_after;
    c->a_sync_escape += !esc && m->kind == TM_MSG_SYNC;
    if (e->timestamps) {
        c->a_cc_k[tm_adapt_k(a->cc)]++;
        c->a_cc_cap += m->diff_cc >= TM_ADAPT_CAP && m->kind != TM_MSG_SYNC;
    }
    if (m->kind == TM_MSG_SYNC && (a->cnt != TM_ADAPT_INIT || a->cc != TM_ADAPT_INIT || a->tf != 0))
        c->a_sync_reset++;
}

/* Writes the bins as "name count" lines (merged by testbench/regress.sh). */
/* Writes the coverage to PATH through a temporary (PATH.tmp.PID), renamed
 * into place when complete. */
int cov_write(const char *path, const cov *c, const tm_model_cfg *cfg)
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
    /* the TAGE-class predictors (spec §3.3.1-2): lookups by provider table,
     * allocations by table, replacements of a valid entry, mispredictions
     * with no allocation (usefulness decayed or cleared), alternate-given
     * predictions */
    const tm_tage_cfg *tg[2] = {&cfg->pred.tage, &cfg->pred.ittage};
    const tm_tage_counts *tc[2] = {&c->pred.tage, &c->pred.ittage};
    for (int i = 0; i < 2; i++) {
        if (!tg[i]->base)
            continue;
        const char *nm = i ? "ittage" : "tage";
        for (unsigned k = 0; k <= tg[i]->tables; k++)
            fprintf(f, "%s.provider%u %" PRIu64 "\n", nm, k, tc[i]->hits[k]);
        for (unsigned k = 1; k <= tg[i]->tables; k++)
            fprintf(f, "%s.alloc%u %" PRIu64 "\n", nm, k, tc[i]->allocs[k]);
        fprintf(f, "%s.replace %" PRIu64 "\n%s.alloc_fail %" PRIu64 "\n%s.use_alt %" PRIu64 "\n", nm,
                tc[i]->replaced, nm, tc[i]->alloc_fails, nm, tc[i]->use_alt);
    }
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
    if (tm_enc_adaptive(&cfg->enc)) {
        fprintf(f, "tr_a.messages %" PRIu64 "\ntr_a.target_escape %" PRIu64 "\ntr_a.cnt_capped %" PRIu64
                   "\ntr_a.sync_reset %" PRIu64 "\n",
                c->a_msgs, c->a_escape, c->a_cnt_cap, c->a_sync_reset);
        fprintf(f, "tr_a.tbit_outcome %" PRIu64 "\ntr_a.tbit_target %" PRIu64 "\ntr_a.to_tbit %" PRIu64
                   "\ntr_a.to_escape %" PRIu64 "\ntr_a.sync_to_escape %" PRIu64 "\n",
                c->a_tbit[0], c->a_tbit[1], c->a_to_tbit, c->a_to_escape, c->a_sync_escape);
        for (unsigned k = 0; k <= TM_ADAPT_KMAX; k++)
            fprintf(f, "tr_a.cnt.k%u %" PRIu64 "\n", k, c->a_cnt_k[k]);
        if (cfg->enc.timestamps) {
            fprintf(f, "tr_a.ts_messages %" PRIu64 "\ntr_a.diffcc_capped %" PRIu64 "\n", c->a_msgs, c->a_cc_cap);
            for (unsigned k = 0; k <= TM_ADAPT_KMAX; k++)
                fprintf(f, "tr_a.diffcc.k%u %" PRIu64 "\n", k, c->a_cc_k[k]);
        }
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

/* The coverage lines of a passed run (C: its bins) for CFG. */
void print_coverage(const cov *c, const tm_model_cfg *cfg)
{
    unsigned bins = 0, hit = 0;
    for (int i = 0; i < 6; i++)
        for (int k = 1; k < MAXCH; k++)
            if (c->chunks[i][k])
                hit++;
    bins = hit;
    printf("coverage: %u field x chunk-count bins hit; sync start %" PRIu64 ", overflow %" PRIu64
           "; end exit %" PRIu64 ", stop %" PRIu64 ", lost %" PRIu64 "; drops %" PRIu64
           "; RAS wraps %" PRIu64 ", iBTB fills way0 %" PRIu64 " way1 %" PRIu64 "\n",
           bins, c->sync[0], c->sync[2], c->end_exit, c->end_stop, c->end_lost, c->drops, c->pred.ras_wraps,
           c->pred.ibtb_fills[0], c->pred.ibtb_fills[1]);
    const tm_tage_cfg *tg[2] = {&cfg->pred.tage, &cfg->pred.ittage};
    const tm_tage_counts *tc[2] = {&c->pred.tage, &c->pred.ittage};
    for (int i = 0; i < 2; i++) {
        if (!tg[i]->base)
            continue;
        char prov[160] = "", al[160] = "";
        size_t a = 0, b = 0;
        for (unsigned k = 0; k <= tg[i]->tables && a < sizeof prov; k++)
            a += (size_t)snprintf(prov + a, sizeof prov - a, "%s%" PRIu64, k ? "/" : "", tc[i]->hits[k]);
        for (unsigned k = 1; k <= tg[i]->tables && b < sizeof al; k++)
            b += (size_t)snprintf(al + b, sizeof al - b, "%s%" PRIu64, k > 1 ? "/" : "", tc[i]->allocs[k]);
        printf("%s coverage: lookups by provider (base/tables) %s; allocations by table %s, %" PRIu64
               " over a valid entry; mispredictions without allocation %" PRIu64
               "; alternate-given predictions %" PRIu64 "\n",
               i ? "ITTAGE" : "TAGE", prov, al, tc[i]->replaced, tc[i]->alloc_fails, tc[i]->use_alt);
    }
    if (tm_enc_adaptive(&cfg->enc)) {
        char ks[2][160];
        for (int i = 0; i < 2; i++) {
            size_t a = 0;
            const uint64_t *v = i ? c->a_cc_k : c->a_cnt_k;
            for (unsigned k = 0; k <= TM_ADAPT_KMAX && a < sizeof ks[i]; k++)
                a += (size_t)snprintf(ks[i] + a, sizeof ks[i] - a, "%s%" PRIu64, k ? "/" : "", v[k]);
        }
        printf("tr_a coverage: cnt codes by order 0..12 %s", ks[0]);
        if (cfg->enc.timestamps)
            printf("; diffCC codes by order 0..12 %s", ks[1]);
        printf("; target escapes %" PRIu64 "; T-bit form outcome %" PRIu64 ", target %" PRIu64
               "; form switches to the T bit %" PRIu64 ", to the escape %" PRIu64 " (%" PRIu64
               " by a SYNC); capped bCnt %" PRIu64,
               c->a_escape, c->a_tbit[0], c->a_tbit[1], c->a_to_tbit, c->a_to_escape, c->a_sync_escape,
               c->a_cnt_cap);
        if (cfg->enc.timestamps)
            printf(", diffCC %" PRIu64, c->a_cc_cap);
        printf("; SYNC resets of a moved state %" PRIu64 "\n", c->a_sync_reset);
    }
    if (cfg->enc.data)
        printf("data coverage: DATA accepted %" PRIu64 ", dropped %" PRIu64 "; bundles with a control "
               "message accepted %" PRIu64 ", dropped %" PRIu64 "\n",
               c->data_acc, c->data_drop, c->bundle_acc, c->bundle_drop);
    if (cfg->enc.data == TM_DATA_CFIAT)
        printf("cache coverage (lines): load miss %" PRIu64 ", hit with touched flags all %" PRIu64
               " / part %" PRIu64 " / none %" PRIu64 " set; store miss %" PRIu64 ", hit %" PRIu64
               "; operands on 2 lines %" PRIu64 ", 3+ %" PRIu64 "; invalidations of held lines before "
               "%" PRIu64 ", after %" PRIu64 "; same-line stores before %" PRIu64 ", after %" PRIu64
               "; flag clears %" PRIu64 "\n",
               c->ld_miss, c->ld_hit_all, c->ld_hit_part, c->ld_hit_none, c->st_miss, c->st_hit, c->lines2,
               c->lines3, c->inv_before, c->inv_after, c->same_line_before, c->same_line_after, c->clears);
}
