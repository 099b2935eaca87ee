/* tm — predictor set (docs/spec.md §3.3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "ittage_int.h"
#include "pred_int.h"
#include "tage_int.h"


int tm_pred_cfg_check(const tm_pred_cfg *c, char *err, size_t errlen)
{
    if (c->gshare != 0 && (!tm_is_pow2(c->gshare) || c->gshare > 4096)) {
        if (err)
            snprintf(err, errlen, "--gshare %u: allowed 0 or a power of two from 1 to 4096", c->gshare);
        return TM_ERR_ARG;
    }
    if (c->ras > 32) {
        if (err)
            snprintf(err, errlen, "--ras %u: allowed 0 to 32", c->ras);
        return TM_ERR_ARG;
    }
    if (c->ibtb != 0 && (!tm_is_pow2(c->ibtb) || c->ibtb < 2 || c->ibtb > 64)) {
        if (err)
            snprintf(err, errlen, "--ibtb %u: allowed 0 or a power of two from 2 to 64", c->ibtb);
        return TM_ERR_ARG;
    }
    if (c->tage.base && c->gshare) {
        if (err)
            snprintf(err, errlen, "--tage %u with --gshare %u: one conditional predictor (--gshare 0 with --tage)",
                     c->tage.base, c->gshare);
        return TM_ERR_ARG;
    }
    if (c->ittage.base && c->ibtb) {
        if (err)
            snprintf(err, errlen, "--ittage %u with --ibtb %u: one indirect predictor (--ibtb 0 with --ittage)",
                     c->ittage.base, c->ibtb);
        return TM_ERR_ARG;
    }
    if (tm_tage_cfg_check(&c->tage, "--tage", err, errlen) != TM_OK ||
        tm_tage_cfg_check(&c->ittage, "--ittage", err, errlen) != TM_OK)
        return TM_ERR_ARG;
    return TM_OK;
}

uint64_t tm_pred_cfg_bits(const tm_pred_cfg *c)
{
    uint64_t b = 0;
    if (c->gshare)
        b += 2ull * c->gshare + tm_log2u(c->gshare); /* counters, BHR */
    if (c->ras)
        b += 64ull * c->ras + tm_log2u(c->ras) + tm_log2u(c->ras + 1u); /* entries, top, count 0..r */
    if (c->ibtb) {
        unsigned q = c->ibtb / 2;
        b += (1u + 8u + 64u) * (uint64_t)c->ibtb + q + 8u + tm_log2u(q); /* entries, LRU, PIR */
    }
    return b + tm_tage_bits(&c->tage) + tm_ittage_bits(&c->ittage);
}

int tm_pred_new(const tm_pred_cfg *c, tm_pred **out)
{
    *out = NULL;
    if (tm_pred_cfg_check(c, NULL, 0) != TM_OK)
        return TM_ERR_ARG;
    tm_pred *p = calloc(1, sizeof *p);
    if (!p)
        return TM_ERR_NOMEM;
    p->cfg = *c;
    if (c->gshare) {
        p->ctr = malloc(c->gshare);
        p->gmask = c->gshare - 1;
    }
    if (c->ras)
        p->ras = calloc(c->ras, sizeof *p->ras);
    if (c->ibtb) {
        p->sets = c->ibtb / 2;
        p->ibtb = calloc(c->ibtb, sizeof *p->ibtb);
        p->lru = calloc(p->sets, 1);
        p->pir_mask = (1u << (8 + tm_log2u(p->sets))) - 1;
    }
    if ((c->tage.base && tm_tage_new(&c->tage, &p->tage) != TM_OK) ||
        (c->ittage.base && tm_ittage_new(&c->ittage, &p->ittage) != TM_OK) ||
        (c->gshare && !p->ctr) || (c->ras && !p->ras) || (c->ibtb && (!p->ibtb || !p->lru))) {
        tm_pred_free(p);
        return TM_ERR_NOMEM;
    }
    if (p->tage)
        tage_pair(p->tage, p->ittage);
    tm_pred_reset(p);
    *out = p;
    return TM_OK;
}

void tm_pred_free(tm_pred *p)
{
    if (!p)
        return;
    free(p->ctr);
    free(p->ras);
    free(p->ibtb);
    free(p->lru);
    tm_tage_free(p->tage);
    tm_ittage_free(p->ittage);
    free(p);
}

void tm_pred_reset(tm_pred *p)
{
    if (p->ctr)
        memset(p->ctr, 1, p->cfg.gshare); /* weakly not-taken */
    p->bhr = 0;
    if (p->ras)
        memset(p->ras, 0, p->cfg.ras * sizeof *p->ras);
    p->ras_top = p->ras_count = 0;
    if (p->ibtb) {
        memset(p->ibtb, 0, p->cfg.ibtb * sizeof *p->ibtb);
        memset(p->lru, 0, p->sets);
    }
    p->pir = 0;
    if (p->tage)
        tm_tage_reset(p->tage);
    if (p->ittage)
        tm_ittage_reset(p->ittage);
}

uint32_t tm_pred_cond_index(const tm_pred *p, uint64_t pc) { return pred_cond_index(p, pc); }

int tm_pred_cond_predict(const tm_pred *p, uint64_t pc) { return pred_cond_predict(p, pc); }

void tm_pred_cond_update(tm_pred *p, uint64_t pc, int taken) { pred_cond_update(p, pc, taken); }

void tm_pred_ibtb_slot(const tm_pred *p, uint64_t pc, uint32_t *set, uint32_t *tag)
{
    pred_ibtb_slot(p, pc, set, tag);
}

int tm_pred_ind_predict(const tm_pred *p, uint64_t pc, uint64_t *target)
{
    return pred_ind_predict(p, pc, target);
}

void tm_pred_ind_update(tm_pred *p, uint64_t pc, uint64_t target) { pred_ind_update(p, pc, target); }

void tm_pred_ras_push(tm_pred *p, uint64_t ret_addr) { pred_ras_push(p, ret_addr); }

int tm_pred_ras_pop(tm_pred *p, uint64_t *target) { return pred_ras_pop(p, target); }

void tm_pred_get_state(const tm_pred *p, tm_pred_state *s)
{
    s->bhr = p->bhr;
    s->pir = p->pir;
    s->ras_top = p->ras_top;
    s->ras_count = p->ras_count;
}

unsigned tm_pred_gshare_counter(const tm_pred *p, uint32_t idx)
{
    if (!p->ctr || idx >= p->cfg.gshare)
        return 0;
    return p->ctr[idx];
}

void tm_pred_get_counts(const tm_pred *p, tm_pred_counts *c)
{
    *c = p->counts;
    if (p->tage)
        tm_tage_get_counts(p->tage, &c->tage);
    if (p->ittage)
        tm_ittage_get_counts(p->ittage, &c->ittage);
}

const tm_tage *tm_pred_tage(const tm_pred *p) { return p->tage; }

const tm_ittage *tm_pred_ittage(const tm_pred *p) { return p->ittage; }
