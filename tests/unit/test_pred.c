/* Unit tests of the predictor set (docs/spec.md §3.3). */
#include <criterion/criterion.h>
#include "tm/pred.h"

static tm_pred *mk(uint32_t g, uint32_t r, uint32_t i)
{
    tm_pred_cfg c = {.gshare = g, .ras = r, .ibtb = i};
    tm_pred *p = NULL;
    cr_assert_eq(tm_pred_new(&c, &p), TM_OK);
    return p;
}

Test(pred, two_bit_counter_saturates)
{
    tm_pred *p = mk(1, 0, 0); /* one counter, BHR of 0 bits: index always 0 */
    cr_assert_eq(tm_pred_gshare_counter(p, 0), 1, "reset state is weakly not-taken");
    cr_assert_eq(tm_pred_cond_predict(p, 0x1000), 0);
    tm_pred_cond_update(p, 0x1000, 1);
    cr_assert_eq(tm_pred_gshare_counter(p, 0), 2);
    cr_assert_eq(tm_pred_cond_predict(p, 0x1000), 1);
    tm_pred_cond_update(p, 0x1000, 1);
    tm_pred_cond_update(p, 0x1000, 1);
    cr_assert_eq(tm_pred_gshare_counter(p, 0), 3, "saturates at 3");
    for (int i = 0; i < 5; i++)
        tm_pred_cond_update(p, 0x1000, 0);
    cr_assert_eq(tm_pred_gshare_counter(p, 0), 0, "saturates at 0");
    cr_assert_eq(tm_pred_cond_predict(p, 0x1000), 0);
    tm_pred_free(p);
}

/* Thesis Fig. 4.31: a 256-entry gshare, the loop branch at 0x40048e. The
 * indices 119, 55, 183, 183, 183 of the 7th..11th executions and 183, 181 of
 * the two branches after the loop follow from the formula of spec §3.3. */
Test(pred, gshare_index_and_bhr_thesis_fig_4_31)
{
    tm_pred *p = mk(256, 0, 0);
    const uint32_t idx[11] = {0x48, 0x49, 0x4b, 0x4f, 0x47, 0x57, 119, 55, 183, 183, 183};
    for (int k = 0; k < 11; k++) {
        cr_assert_eq(tm_pred_cond_index(p, 0x40048e), idx[k], "execution %d", k + 1);
        tm_pred_cond_update(p, 0x40048e, k < 10);
    }
    tm_pred_state s;
    tm_pred_get_state(p, &s);
    cr_assert_eq(s.bhr, 0xFE);
    cr_assert_eq(tm_pred_gshare_counter(p, 183), 2, "T,T then NT: 1->2->3->2");
    cr_assert_eq(tm_pred_cond_index(p, 0x400490), 183);
    cr_assert_eq(tm_pred_cond_predict(p, 0x400490), 1, "counter 2 predicts taken (mispredicted)");
    tm_pred_cond_update(p, 0x400490, 0);
    cr_assert_eq(tm_pred_cond_index(p, 0x400492), 181);
    cr_assert_eq(tm_pred_cond_predict(p, 0x400492), 0, "fresh entry, weakly not-taken: correct");
    tm_pred_free(p);
}

Test(pred, gshare_absent_is_static_not_taken)
{
    tm_pred *p = mk(0, 0, 0);
    for (int i = 0; i < 4; i++) {
        cr_assert_eq(tm_pred_cond_predict(p, 0x10 * (uint64_t)i), 0);
        tm_pred_cond_update(p, 0x10 * (uint64_t)i, 1);
    }
    tm_pred_free(p);
}

Test(pred, ras_push_pop_overflow_underflow)
{
    tm_pred *p = mk(0, 8, 0);
    uint64_t t = 0;
    cr_assert_eq(tm_pred_ras_pop(p, &t), 0, "empty stack: no prediction");
    for (uint64_t i = 1; i <= 12; i++) /* 12 pushes on 8 entries: 1..4 overwritten */
        tm_pred_ras_push(p, 0x1000 + i);
    tm_pred_state s;
    tm_pred_get_state(p, &s);
    cr_assert_eq(s.ras_count, 8);
    for (uint64_t i = 12; i >= 5; i--) {
        cr_assert_eq(tm_pred_ras_pop(p, &t), 1);
        cr_assert_eq(t, 0x1000 + i);
    }
    cr_assert_eq(tm_pred_ras_pop(p, &t), 0, "the overwritten entries are gone");
    tm_pred_ras_push(p, 0x77);
    cr_assert_eq(tm_pred_ras_pop(p, &t), 1);
    cr_assert_eq(t, 0x77);
    tm_pred_free(p);
}

Test(pred, ras_absent_never_predicts)
{
    tm_pred *p = mk(0, 0, 0);
    uint64_t t;
    tm_pred_ras_push(p, 5);
    cr_assert_eq(tm_pred_ras_pop(p, &t), 0);
    tm_pred_free(p);
}

/* Thesis Fig. 4.34/4.35: icall at 0x40049c, 64-entry iBTB (q = 32).  PIR,
 * set and tag follow spec §3.3; the first lookup is a compulsory miss with
 * set 9, as in the thesis. */
Test(pred, ibtb_pir_tag_index_thesis_fig_4_35)
{
    tm_pred *p = mk(0, 0, 64);
    const uint32_t pir[10] = {0x0, 0x49, 0x16d, 0x5fd, 0x17bd, 0x1ebd, 0x1abd, 0xabd, 0xabd, 0xabd};
    const uint32_t set[10] = {9, 9, 8, 12, 30, 23, 19, 3, 3, 3};
    const uint32_t tag[10] = {0x01, 0x48, 0x6c, 0xfc, 0xbc, 0xbc, 0xbc, 0xbc, 0xbc, 0xbc};
    for (int k = 0; k < 10; k++) {
        tm_pred_state s;
        tm_pred_get_state(p, &s);
        cr_assert_eq(s.pir, pir[k], "iteration %d", k + 1);
        uint32_t st, tg;
        tm_pred_ibtb_slot(p, 0x40049c, &st, &tg);
        cr_assert_eq(st, set[k], "iteration %d", k + 1);
        cr_assert_eq(tg, tag[k], "iteration %d", k + 1);
        uint64_t t = 0;
        int hit = tm_pred_ind_predict(p, 0x40049c, &t);
        cr_assert_eq(hit, k >= 8, "iteration %d", k + 1);
        if (hit)
            cr_assert_eq(t, 0x400474);
        tm_pred_ind_update(p, 0x40049c, 0x400474);
    }
    tm_pred_free(p);
}

/* Two ways per set, LRU replacement, one prediction per lookup.  With one set
 * (e = 2) the tag is (PIR ^ (pc >> 10)) & 0xFF, so a branch with a chosen tag
 * is made by picking pc = (tag ^ PIR) << 10 under the current PIR. */
static uint64_t pc_for_tag(const tm_pred *p, uint32_t tag)
{
    tm_pred_state s;
    tm_pred_get_state(p, &s);
    return (uint64_t)((tag ^ s.pir) & 0xFF) << 10;
}

Test(pred, ibtb_lru_replacement)
{
    tm_pred *p = mk(0, 0, 2);
    uint64_t t, pc;
    pc = pc_for_tag(p, 0x11);
    cr_assert_eq(tm_pred_ind_predict(p, pc, &t), 0, "compulsory miss");
    tm_pred_ind_update(p, pc, 0xA000);                /* A -> way 0 */
    pc = pc_for_tag(p, 0x22);
    cr_assert_eq(tm_pred_ind_predict(p, pc, &t), 0);
    tm_pred_ind_update(p, pc, 0xB000);                /* B -> way 1 */
    pc = pc_for_tag(p, 0x11);
    cr_assert_eq(tm_pred_ind_predict(p, pc, &t), 1);
    cr_assert_eq(t, 0xA000);
    tm_pred_ind_update(p, pc, 0xA000);                /* A used: B is LRU */
    pc = pc_for_tag(p, 0x33);
    cr_assert_eq(tm_pred_ind_predict(p, pc, &t), 0);
    tm_pred_ind_update(p, pc, 0xC000);                /* C replaces B */
    pc = pc_for_tag(p, 0x22);
    cr_assert_eq(tm_pred_ind_predict(p, pc, &t), 0, "B was evicted");
    pc = pc_for_tag(p, 0x11);
    cr_assert_eq(tm_pred_ind_predict(p, pc, &t), 1, "A survived");
    cr_assert_eq(t, 0xA000);
    pc = pc_for_tag(p, 0x33);
    cr_assert_eq(tm_pred_ind_predict(p, pc, &t), 1);
    cr_assert_eq(t, 0xC000);
    /* A hit with a different target updates the entry in place. */
    tm_pred_ind_update(p, pc, 0xC800);
    pc = pc_for_tag(p, 0x33);
    cr_assert_eq(tm_pred_ind_predict(p, pc, &t), 1);
    cr_assert_eq(t, 0xC800);
    tm_pred_free(p);
}

Test(pred, ibtb_absent_never_predicts)
{
    tm_pred *p = mk(0, 0, 0);
    uint64_t t;
    tm_pred_ind_update(p, 0x1000, 0x2000);
    cr_assert_eq(tm_pred_ind_predict(p, 0x1000, &t), 0);
    tm_pred_free(p);
}

Test(pred, config_ranges)
{
    char err[128];
    tm_pred_cfg ok = {.gshare = 4096, .ras = 32, .ibtb = 64};
    cr_assert_eq(tm_pred_cfg_check(&ok, err, sizeof err), TM_OK);
    tm_pred_cfg bad1 = {.gshare = 300, .ras = 8, .ibtb = 0};
    cr_assert_eq(tm_pred_cfg_check(&bad1, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "--gshare 300") != NULL);
    tm_pred_cfg bad2 = {.gshare = 512, .ras = 33, .ibtb = 0};
    cr_assert_eq(tm_pred_cfg_check(&bad2, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "--ras 33") != NULL);
    tm_pred_cfg bad3 = {.gshare = 512, .ras = 8, .ibtb = 48};
    cr_assert_eq(tm_pred_cfg_check(&bad3, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "--ibtb 48") != NULL);
    tm_pred_cfg bad4 = {.gshare = 8192, .ras = 8, .ibtb = 0};
    cr_assert_eq(tm_pred_cfg_check(&bad4, err, sizeof err), TM_ERR_ARG);
}
