/* tm — predictor set (docs/spec.md §3.3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/pred.h"

typedef struct ibtb_entry {
    uint64_t target;
    uint8_t valid;
    uint8_t tag;
} ibtb_entry;

struct tm_pred {
    tm_pred_cfg cfg;
    /* gshare */
    uint8_t *ctr;       /* gshare counters, 0..3 */
    uint32_t gmask;     /* gshare - 1 (BHR and index mask) */
    uint32_t bhr;
    /* RAS */
    uint64_t *ras;
    uint32_t ras_top, ras_count;
    /* iBTB: sets x 2 ways, LRU bit per set = way to replace next */
    ibtb_entry *ibtb;   /* [set * 2 + way] */
    uint8_t *lru;
    uint32_t sets;      /* q = ibtb / 2 */
    uint32_t pir_mask;  /* 2^(8 + log2 q) - 1 */
    uint32_t pir;
};

static int is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

static unsigned log2u(uint32_t v)
{
    unsigned k = 0;
    while ((1u << k) < v)
        k++;
    return k;
}

int tm_pred_cfg_check(const tm_pred_cfg *c, char *err, unsigned long errlen)
{
    if (c->gshare != 0 && (!is_pow2(c->gshare) || c->gshare > 4096)) {
        if (err)
            snprintf(err, errlen, "--gshare %u: allowed 0 or a power of two from 1 to 4096", c->gshare);
        return TM_ERR_ARG;
    }
    if (c->ras > 32) {
        if (err)
            snprintf(err, errlen, "--ras %u: allowed 0 to 32", c->ras);
        return TM_ERR_ARG;
    }
    if (c->ibtb != 0 && (!is_pow2(c->ibtb) || c->ibtb < 2 || c->ibtb > 64)) {
        if (err)
            snprintf(err, errlen, "--ibtb %u: allowed 0 or a power of two from 2 to 64", c->ibtb);
        return TM_ERR_ARG;
    }
    return TM_OK;
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
        p->pir_mask = (1u << (8 + log2u(p->sets))) - 1;
    }
    if ((c->gshare && !p->ctr) || (c->ras && !p->ras) || (c->ibtb && (!p->ibtb || !p->lru))) {
        tm_pred_free(p);
        return TM_ERR_NOMEM;
    }
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
}

uint32_t tm_pred_cond_index(const tm_pred *p, uint64_t pc)
{
    return (uint32_t)((p->bhr ^ (pc >> 4)) & p->gmask);
}

int tm_pred_cond_predict(const tm_pred *p, uint64_t pc)
{
    if (!p->ctr)
        return 0; /* no gshare: static not-taken */
    return p->ctr[tm_pred_cond_index(p, pc)] >= 2;
}

void tm_pred_cond_update(tm_pred *p, uint64_t pc, int taken)
{
    if (!p->ctr)
        return;
    uint8_t *c = &p->ctr[tm_pred_cond_index(p, pc)];
    if (taken) {
        if (*c < 3)
            (*c)++;
    } else if (*c > 0) {
        (*c)--;
    }
    p->bhr = ((p->bhr << 1) | (taken ? 1u : 0u)) & p->gmask;
}

void tm_pred_ibtb_slot(const tm_pred *p, uint64_t pc, uint32_t *set, uint32_t *tag)
{
    *tag = (uint32_t)((p->pir ^ (pc >> 10)) & 0xFF);
    *set = p->sets ? (uint32_t)(((p->pir >> 8) ^ (pc >> 4)) & (p->sets - 1)) : 0;
}

int tm_pred_ind_predict(const tm_pred *p, uint64_t pc, uint64_t *target)
{
    if (!p->ibtb)
        return 0;
    uint32_t set, tag;
    tm_pred_ibtb_slot(p, pc, &set, &tag);
    const ibtb_entry *e = &p->ibtb[set * 2];
    for (int w = 0; w < 2; w++)
        if (e[w].valid && e[w].tag == tag) {
            *target = e[w].target;
            return 1;
        }
    return 0;
}

void tm_pred_ind_update(tm_pred *p, uint64_t pc, uint64_t target)
{
    if (!p->ibtb)
        return;
    uint32_t set, tag;
    tm_pred_ibtb_slot(p, pc, &set, &tag);
    ibtb_entry *e = &p->ibtb[set * 2];
    int way = -1;
    for (int w = 0; w < 2; w++)
        if (e[w].valid && e[w].tag == tag)
            way = w;
    if (way < 0) {
        way = p->lru[set]; /* replace the least recently used way */
        e[way].valid = 1;
        e[way].tag = (uint8_t)tag;
    }
    e[way].target = target;
    p->lru[set] = (uint8_t)(way ^ 1);
    p->pir = (uint32_t)(((((uint64_t)p->pir << 2) ^ (pc >> 4)) | 1u) & p->pir_mask);
}

void tm_pred_ras_push(tm_pred *p, uint64_t ret_addr)
{
    if (!p->ras)
        return;
    p->ras_top = (p->ras_top + 1) % p->cfg.ras;
    p->ras[p->ras_top] = ret_addr;
    if (p->ras_count < p->cfg.ras)
        p->ras_count++;
}

int tm_pred_ras_pop(tm_pred *p, uint64_t *target)
{
    if (!p->ras || p->ras_count == 0)
        return 0;
    *target = p->ras[p->ras_top];
    p->ras_top = (p->ras_top + p->cfg.ras - 1) % p->cfg.ras;
    p->ras_count--;
    return 1;
}

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
