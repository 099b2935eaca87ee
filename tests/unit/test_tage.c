/* Unit tests of the TAGE-class predictors (docs/spec.md §3.3.1, §3.3.2)
 * against hand-computed sequences. */
#include <criterion/criterion.h>
#include <string.h>
#include "tm/model.h"
#include "tm/pred.h"
#include "tm/tage.h"

static tm_tage *mk_tage(uint32_t b, uint32_t t, uint32_t e, uint32_t w, uint32_t l1, uint32_t l2)
{
    tm_tage_cfg c = {b, t, e, w, l1, l2};
    tm_tage *p = NULL;
    cr_assert_eq(tm_tage_new(&c, &p), TM_OK);
    return p;
}

static tm_ittage *mk_ittage(uint32_t b, uint32_t t, uint32_t e, uint32_t w, uint32_t l1, uint32_t l2)
{
    tm_tage_cfg c = {b, t, e, w, l1, l2};
    tm_ittage *p = NULL;
    cr_assert_eq(tm_ittage_new(&c, &p), TM_OK);
    return p;
}

Test(tage, history_lengths_double_their_steps)
{
    tm_tage_cfg c = {1024, 4, 256, 8, 4, 64};
    /* 4 + 60 * (2^(i-1) - 1) / 7: 4, 4 + 60/7 = 12, 4 + 180/7 = 29, 64 */
    cr_assert_eq(tm_tage_hist_len(&c, 1), 4);
    cr_assert_eq(tm_tage_hist_len(&c, 2), 12);
    cr_assert_eq(tm_tage_hist_len(&c, 3), 29);
    cr_assert_eq(tm_tage_hist_len(&c, 4), 64);
    tm_tage_cfg one = {16, 1, 16, 8, 3, 10};
    cr_assert_eq(tm_tage_hist_len(&one, 1), 10, "one table: the longest history");
}

/* Table 1 of 4 entries (2 index bits) over a history of 3 bits: at pc 0 the
 * index is the folded history.  Outcomes 1, 1, 0 give the window 110 (newest
 * right), folded 11 ^ 01... by the register of spec §3.3.1: 1, 3, 3; then a
 * 1 gives the window 101, folded 0. */
Test(tage, folded_history_register)
{
    tm_tage *p = mk_tage(2, 1, 4, 4, 3, 3);
    tm_tage_lookup l;
    const int out[4] = {1, 1, 0, 1};
    const uint32_t want[4] = {1, 3, 3, 0};
    for (int k = 0; k < 4; k++) {
        tm_tage_update(p, 0x40, out[k]);
        tm_tage_lookup_pc(p, 0, &l);
        cr_assert_eq(l.index[1], want[k], "after outcome %d: index %u", k + 1, l.index[1]);
    }
    tm_tage_free(p);
}

/* Pushes N not-taken outcomes at pc Y (its base entry predicts not-taken,
 * so nothing is allocated): a history of at most N bits is zero again. */
static void zeros(tm_tage *p, int n)
{
    for (int k = 0; k < n; k++) {
        tm_tage_lookup l;
        tm_tage_lookup_pc(p, 0x3, &l);
        cr_assert_eq(l.pred, 0);
        tm_tage_update(p, 0x3, 0);
    }
}

Test(tage, allocation_use_alt_and_second_allocation)
{
    const uint64_t X = 0x1234;
    tm_tage *p = mk_tage(4, 2, 8, 6, 2, 4);
    tm_tage_lookup l;
    tm_tage_entry e;
    /* history 0: base index (X ^ X >> 2) & 3 = 1, table index
     * (X ^ X >> 3) & 7 = 2, tag (X >> 1) & 63 = 26 */
    tm_tage_lookup_pc(p, X, &l);
    cr_assert_eq(l.index[0], 1);
    cr_assert_eq(l.index[1], 2);
    cr_assert_eq(l.tag[1], 26);
    cr_assert_eq(l.provider, 0);
    cr_assert_eq(l.pred, 0, "base counters reset to 1: not taken");
    tm_tage_update(p, X, 1); /* mispredicted: allocate in table 1 */
    cr_assert(tm_tage_get_entry(p, 1, 2, &e));
    cr_assert(e.valid && e.tag == 26 && e.ctr == 4 && e.u == 0, "valid %u tag %u ctr %u u %u", e.valid, e.tag,
              e.ctr, e.u);
    cr_assert(tm_tage_get_entry(p, 0, 1, &e));
    cr_assert_eq(e.ctr, 2, "no provider: the base counter trains");
    zeros(p, 4);
    tm_tage_lookup_pc(p, X, &l);
    cr_assert_eq(l.provider, 1);
    cr_assert_eq(l.alt, 0);
    cr_assert(l.used_alt, "weak new entry and USE_ALT = 8: the alternate predicts");
    cr_assert_eq(l.pred, 1, "base counter 2: taken");
    tm_tage_update(p, X, 1);
    cr_assert(tm_tage_get_entry(p, 1, 2, &e));
    cr_assert_eq(e.ctr, 5);
    cr_assert_eq(e.u, 0, "provider and alternate agreed: u unchanged");
    cr_assert_eq(tm_tage_use_alt_ctr(p), 8, "they agreed: USE_ALT unchanged");
    zeros(p, 4);
    tm_tage_lookup_pc(p, X, &l);
    cr_assert_eq(l.provider, 1);
    cr_assert(!l.used_alt);
    cr_assert_eq(l.pred, 1);
    tm_tage_update(p, X, 0); /* mispredicted: allocate above the provider */
    cr_assert(tm_tage_get_entry(p, 2, 2, &e));
    cr_assert(e.valid && e.tag == 26 && e.ctr == 3 && e.u == 0);
    cr_assert(tm_tage_get_entry(p, 1, 2, &e));
    cr_assert_eq(e.ctr, 4);
    tm_tage_counts c;
    tm_tage_get_counts(p, &c);
    cr_assert_eq(c.allocs[1], 1);
    cr_assert_eq(c.allocs[2], 1);
    cr_assert_eq(c.alloc_fails, 0);
    cr_assert_eq(c.hits[1], 2);
    tm_tage_free(p);
}

/* A misprediction with no free entry above the provider decrements u there. */
Test(tage, failed_allocation_decrements_usefulness)
{
    const uint64_t X = 0x1234;
    tm_tage *p = mk_tage(4, 1, 8, 6, 2, 2);
    tm_tage_lookup l;
    tm_tage_entry e;
    tm_tage_update(p, X, 1); /* allocates T1[2], ctr 4 */
    zeros(p, 2);
    tm_tage_update(p, X, 1); /* alt (base 2) and provider agree: ctr 5 */
    zeros(p, 2);
    /* base 2 -> taken as well; make them disagree: train the base down */
    tm_tage_lookup_pc(p, X, &l);
    cr_assert_eq(l.provider, 1);
    cr_assert_eq(l.pred, 1);
    tm_tage_update(p, X, 0); /* provider 5 -> 4, wrong; only table: no allocation */
    tm_tage_counts c;
    tm_tage_get_counts(p, &c);
    cr_assert_eq(c.alloc_fails, 0, "provider is the last table: nothing to allocate, nothing fails");
    cr_assert(tm_tage_get_entry(p, 1, 2, &e));
    cr_assert_eq(e.ctr, 4);
    tm_tage_free(p);

    /* two tables: T1 useful (u > 0) under a base-provided misprediction */
    p = mk_tage(4, 2, 8, 6, 2, 2);
    tm_tage_update(p, X, 1);      /* T1[2] allocated (tag 26), base 2 */
    zeros(p, 2);
    tm_tage_update(p, X, 0);      /* provider T1 weak, alt base taken: alt wrong, T1 (4 -> taken) wrong too */
    tm_tage_get_entry(p, 1, 2, &e);
    cr_assert_eq(e.ctr, 3);
    tm_tage_get_entry(p, 2, 2, &e);
    cr_assert(e.valid && e.ctr == 3, "allocated above the provider");
    tm_tage_free(p);
}

Test(tage, config_checks_name_the_option)
{
    char err[160];
    tm_tage_cfg c = {1000, 4, 256, 8, 4, 64};
    cr_assert_eq(tm_tage_cfg_check(&c, "--tage", err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "--tage 1000: allowed 0 or a power of two from 2 to 16384");
    c.base = 1024;
    c.tables = 9;
    cr_assert_eq(tm_tage_cfg_check(&c, "--ittage", err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "--ittage-tables 9: allowed 1 to 8");
    c.tables = 4;
    c.lmin = 70;
    cr_assert_eq(tm_tage_cfg_check(&c, "--tage", err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "--tage-hist 70:64: allowed 1 <= min <= max <= 128");
    c.lmin = 4;
    c.tag = 3;
    cr_assert_eq(tm_tage_cfg_check(&c, "--tage", err, sizeof err), TM_ERR_ARG);
    c.tag = 8;
    c.entries = 48;
    cr_assert_eq(tm_tage_cfg_check(&c, "--tage", err, sizeof err), TM_ERR_ARG);
    c.entries = 256;
    cr_assert_eq(tm_tage_cfg_check(&c, "--tage", err, sizeof err), TM_OK);
}

/* X = 0x2000 and targets 0x4000, 0x5000: ((T >> 4) ^ X) & 3 = 0, so every
 * update pushes two zero bits and the history stays 0. */
Test(ittage, base_allocation_alternate_and_replacement)
{
    const uint64_t X = 0x2000, T1 = 0x4000, T2 = 0x5000;
    tm_ittage *p = mk_ittage(4, 2, 8, 6, 2, 4);
    uint64_t t = 0;
    tm_tage_lookup l;
    tm_tage_entry e;
    cr_assert_eq(tm_ittage_predict(p, X, &t), 0, "nothing learned: no prediction");
    tm_ittage_update(p, X, T1);
    tm_ittage_lookup_pc(p, X, &l);
    /* base index (X ^ X >> 2) & 3 = 0; table index (X ^ X >> 3) & 7 = 0; tag (X >> 1) & 63 = 0 */
    cr_assert_eq(l.index[0], 0);
    cr_assert_eq(l.index[1], 0);
    cr_assert_eq(l.tag[1], 0);
    cr_assert(tm_ittage_get_entry(p, 0, 0, &e));
    cr_assert(e.valid && e.target == T1, "no provider: the base learns the target");
    cr_assert(tm_ittage_get_entry(p, 1, 0, &e));
    cr_assert(e.valid && e.target == T1 && e.ctr == 0 && e.u == 0, "mispredicted: allocated in table 1");
    cr_assert_eq(l.provider, 1);
    cr_assert(l.used_alt, "confidence 0: the alternate (base) gives the target");
    cr_assert(tm_ittage_predict(p, X, &t) && t == T1);
    tm_ittage_update(p, X, T1);
    tm_ittage_get_entry(p, 1, 0, &e);
    cr_assert_eq(e.ctr, 1);
    cr_assert(tm_ittage_predict(p, X, &t) && t == T1);
    tm_ittage_update(p, X, T2); /* wrong: confidence 1 -> 0, allocate table 2 */
    tm_ittage_get_entry(p, 1, 0, &e);
    cr_assert(e.ctr == 0 && e.target == T1);
    tm_ittage_get_entry(p, 2, 0, &e);
    cr_assert(e.valid && e.target == T2 && e.ctr == 0);
    tm_ittage_lookup_pc(p, X, &l);
    cr_assert_eq(l.provider, 2);
    cr_assert_eq(l.alt, 1);
    cr_assert(l.used_alt && l.target == T1, "new entry defers to table 1");
    tm_ittage_update(p, X, T2); /* wrong again: table 2's entry has confidence 0, target T2 right: ctr 1 */
    tm_ittage_get_entry(p, 2, 0, &e);
    cr_assert_eq(e.ctr, 1);
    cr_assert_eq(e.u, 1, "provider right where the alternate was wrong: useful");
    tm_ittage_get_entry(p, 1, 0, &e);
    cr_assert_eq(e.target, T1, "table 1 is not the provider: unchanged");
    cr_assert(tm_ittage_predict(p, X, &t) && t == T2);
    tm_tage_counts c;
    tm_ittage_get_counts(p, &c);
    cr_assert_eq(c.allocs[1], 1);
    cr_assert_eq(c.allocs[2], 1);
    cr_assert_eq(c.alloc_fails, 0, "the last misprediction came from table 2, the last: no allocation tried");
    tm_ittage_free(p);
}

Test(ittage, targets_beyond_48_bits_are_never_predicted)
{
    const uint64_t X = 0x2000, K = 0xffffffffff600000ull;
    tm_ittage *p = mk_ittage(4, 1, 8, 6, 2, 2);
    uint64_t t;
    for (int k = 0; k < 8; k++) {
        int hit = tm_ittage_predict(p, X, &t);
        cr_assert(!hit || t != K, "a 48-bit entry cannot hold 0x%llx", (unsigned long long)K);
        tm_ittage_update(p, X, K);
    }
    tm_ittage_free(p);
}

Test(tage, pred_set_state_bits_and_presets)
{
    tm_model_cfg c;
    uint64_t classic[3];
    const char *cn[3] = {"small", "medium", "large"}, *tn[3] = {"tage-s", "tage-m", "tage-l"};
    for (int k = 0; k < 3; k++) {
        memset(&c, 0, sizeof c);
        cr_assert_eq(tm_model_preset(&c, cn[k]), TM_OK);
        classic[k] = tm_pred_cfg_bits(&c.pred);
        memset(&c, 0, sizeof c);
        cr_assert_eq(tm_model_preset(&c, tn[k]), TM_OK);
        cr_assert(c.pred.tage.base && !c.pred.gshare && !c.pred.ibtb);
        cr_assert_eq(tm_pred_cfg_check(&c.pred, NULL, 0), TM_OK);
        cr_assert_leq(tm_pred_cfg_bits(&c.pred), classic[k], "%s within %s's %llu bits", tn[k], cn[k],
                      (unsigned long long)classic[k]);
    }
    /* 512 * 2 + 9 (BHR) + 8 * 64 + 3 (top) + 4 (count) */
    cr_assert_eq(classic[0], 1552);
    /* large: 4096 * 2 + 12, 32 * 64 + 5 + 6, 64 * 73 + 32 (LRU) + 13 (PIR) */
    cr_assert_eq(classic[2], 14980);
    /* the table of docs/spec.md §3.3.3 */
    const uint64_t want[6] = {1552, 4278, 14980, 1523, 4239, 13582};
    for (int k = 0; k < 6; k++) {
        memset(&c, 0, sizeof c);
        cr_assert_eq(tm_model_preset(&c, k < 3 ? cn[k] : tn[k - 3]), TM_OK);
        cr_assert_eq(tm_pred_cfg_bits(&c.pred), want[k], "%s: %llu bits", k < 3 ? cn[k] : tn[k - 3],
                     (unsigned long long)tm_pred_cfg_bits(&c.pred));
    }
    tm_tage_cfg t = {128, 2, 32, 5, 3, 12};
    /* 128 * 2 + 2 * 32 * 11 + 12 + 2 * (5 + 5 + 4) + 4 */
    cr_assert_eq(tm_tage_bits(&t), 1004);
    tm_tage_cfg i = {8, 2, 8, 6, 2, 16};
    /* 8 * 49 + 2 * 8 * 58 + 16 + 2 * (3 + 6 + 5) */
    cr_assert_eq(tm_ittage_bits(&i), 1364);
    tm_pred_cfg both = {.gshare = 4096, .tage = {512, 4, 64, 8, 4, 32}};
    char err[160];
    cr_assert_eq(tm_pred_cfg_check(&both, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "--tage 512 with --gshare 4096: one conditional predictor (--gshare 0 with --tage)");
}

/* The folded registers as the lookups use them (the packed words of
 * cmodel/tage.c when the T folds of a kind fit in 64 bits, the per-table
 * registers otherwise) against the folds computed directly from the
 * history (fold_of: spec §3.3.1's definition), after every step of a long
 * random sequence of outcomes and indirect branches, for the presets and
 * for configurations too wide to pack, the packed words pushed with PEXT
 * and PDEP (where the processor has BMI2) in one instance and with the
 * byte tables in the other.  Also: predict_keep and the update that
 * follows it decide as a fresh lookup does, and tm_tage_predict_update and
 * tm_tage_follow as the two calls do, in each variant (tage.c's
 * select_fns: the presets' shapes compiled as constants with BMI2, the
 * general one with BMI2, the one without). */
#include "../../cmodel/hist_int.h"
#include "../../cmodel/tage_int.h"

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void check_slots(const tm_tage_cfg *c, const tm_tage *p, const tm_ghist *g, uint64_t pc, int step)
{
    tm_tage_lookup l;
    tm_tage_lookup_pc(p, pc, &l);
    unsigned eb = 0, prov = 0, alt = 0;
    while ((1u << eb) < c->entries)
        eb++;
    for (unsigned i = 1; i <= c->tables; i++) {
        tm_tage_entry e;
        tm_tage_get_entry(p, i, l.index[i], &e);
        if (e.valid && e.tag == l.tag[i]) {
            alt = prov;
            prov = i;
        }
        unsigned len = tm_tage_hist_len(c, i);
        uint32_t index, tag;
        hist_slot_v(fold_of(g, len, eb), fold_of(g, len, c->tag), fold_of(g, len, c->tag - 1u), pc, eb, c->tag, &index,
                    &tag);
        cr_assert_eq(l.index[i], index, "config %u/%u/%u/%u/%u:%u, step %d, table %u: index %u, the direct fold %u",
                     c->base, c->tables, c->entries, c->tag, c->lmin, c->lmax, step, i, l.index[i], index);
        cr_assert_eq(l.tag[i], tag, "config %u/%u/%u/%u/%u:%u, step %d, table %u: tag %u, the direct fold %u",
                     c->base, c->tables, c->entries, c->tag, c->lmin, c->lmax, step, i, l.tag[i], tag);
    }
    cr_assert(l.provider == prov && l.alt == alt, "step %d: provider %u alt %u, the entries say %u and %u", step,
              l.provider, l.alt, prov, alt);
}

Test(tage, packed_folds_equal_the_direct_folds)
{
    const tm_tage_cfg cfgs[] = {
        {128, 2, 32, 5, 3, 12},   /* tage-s */
        {256, 3, 32, 7, 3, 24},   /* tage-m */
        {512, 6, 64, 9, 3, 60},   /* tage-l: packed */
        {512, 7, 256, 8, 2, 64},  /* 7 x 9 bits: packed, to the last bit */
        {512, 6, 64, 9, 3, 100},  /* packed, the longest histories past 64 bits */
        {1024, 8, 128, 9, 4, 128},/* 8 x 10 bits: per-table registers */
        {64, 8, 4096, 16, 1, 128},/* the widest */
        {16, 1, 2, 4, 1, 1},      /* the narrowest */
    };
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
        const tm_tage_cfg *c = &cfgs[k];
        tm_tage *p = NULL, *q = NULL, *u = NULL, *f = NULL, *u0 = NULL, *f0 = NULL;
        cr_assert_eq(tm_tage_new(c, &p), TM_OK);
        cr_assert_eq(tm_tage_new(c, &q), TM_OK);
        cr_assert_eq(tm_tage_new(c, &u), TM_OK); /* tm_tage_predict_update */
        cr_assert_eq(tm_tage_new(c, &f), TM_OK); /* tm_tage_follow */
        cr_assert_eq(tm_tage_new(c, &u0), TM_OK); /* the same two without BMI2 */
        cr_assert_eq(tm_tage_new(c, &f0), TM_OK);
        cr_assert_eq(tm_tage_use_bmi2(u0, 0), 0);
        cr_assert_eq(tm_tage_use_bmi2(f0, 0), 0);
        if (!tm_tage_use_bmi2(p, 1))
            cr_log_info("config %zu: both instances push with the byte tables (no BMI2 here, or two tables of one "
                        "history length)", k);
        cr_assert_eq(tm_tage_use_bmi2(q, 0), 0);
        tm_ghist g = {{0, 0}, c->lmax};
        for (int step = 0; step < 4000; step++) {
            uint64_t r = rnd(&s), pc = 0x400000 + (r & 0xffc), tgt = 0x500000 + ((r >> 12) & 0xfff0);
            if ((r >> 40) % 8 == 0) {
                tm_tage_push_indirect(p, pc, tgt);
                tm_tage_push_indirect(q, pc, tgt);
                tm_tage_push_indirect(u, pc, tgt);
                tm_tage_push_indirect(f, pc, tgt);
                tm_tage_push_indirect(u0, pc, tgt);
                tm_tage_push_indirect(f0, pc, tgt);
                unsigned h = (unsigned)(((tgt >> 4) ^ pc) & 3u);
                ghist_push(&g, h >> 1, NULL, 0);
                ghist_push(&g, h & 1u, NULL, 0);
            } else {
                /* a loop-like outcome half of the time, random otherwise */
                int taken = (r >> 44) & 1 ? (int)((step % 7) != 0) : (int)((r >> 45) & 1);
                tm_tage_lookup want;
                tm_tage_lookup_pc(q, pc, &want);
                cr_assert_eq(tm_tage_predict_keep(p, pc), want.pred, "config %zu step %d: predict_keep", k, step);
                tm_tage_update(p, pc, taken);
                tm_tage_update(q, pc, taken); /* no kept lookup */
                cr_assert_eq(tm_tage_predict_update(u, pc, taken), want.pred, "config %zu step %d: predict_update", k,
                             step);
                cr_assert_eq(tm_tage_follow(f, pc, want.pred != taken), taken, "config %zu step %d: follow", k, step);
                cr_assert_eq(tm_tage_predict_update(u0, pc, taken), want.pred,
                             "config %zu step %d: predict_update without BMI2", k, step);
                cr_assert_eq(tm_tage_follow(f0, pc, want.pred != taken), taken, "config %zu step %d: follow without BMI2",
                             k, step);
                ghist_push(&g, (unsigned)taken, NULL, 0);
            }
            check_slots(c, p, &g, 0x400000 + ((r >> 20) & 0xffc), step);
            check_slots(c, q, &g, 0x400000 + ((r >> 20) & 0xffc), step);
        }
        /* the instances (with and without the kept lookups, in one call
         * with the outcome or with the miss) agree */
        const tm_tage *others[] = {q, u, f, u0, f0};
        for (int o = 0; o < 5; o++)
            for (unsigned t = 0; t <= c->tables; t++)
                for (uint32_t i = 0; i < (t ? c->entries : c->base); i++) {
                    tm_tage_entry a, b;
                    tm_tage_get_entry(p, t, i, &a);
                    tm_tage_get_entry(others[o], t, i, &b);
                    cr_assert(a.valid == b.valid && a.tag == b.tag && a.ctr == b.ctr && a.u == b.u,
                              "config %zu: instance %d: table %u entry %u differs", k, o, t, i);
                }
        cr_assert_eq(tm_tage_use_alt_ctr(u), tm_tage_use_alt_ctr(p));
        cr_assert_eq(tm_tage_use_alt_ctr(f), tm_tage_use_alt_ctr(p));
        cr_assert_eq(tm_tage_use_alt_ctr(u0), tm_tage_use_alt_ctr(p));
        cr_assert_eq(tm_tage_use_alt_ctr(f0), tm_tage_use_alt_ctr(p));
        tm_tage_free(u0);
        tm_tage_free(f0);
        tm_tage_free(p);
        tm_tage_free(q);
        tm_tage_free(u);
        tm_tage_free(f);
    }
}
