/* tm — predictor set internals (docs/spec.md §3.3), shared by pred.c (the
 * public API, used by the decoder) and model.c (which inlines the hot paths).
 * One implementation: the public functions are these, wrapped. */
#ifndef TM_PRED_INT_H
#define TM_PRED_INT_H

#include <stdint.h>
#include "tm/pred.h"
#include "tage_int.h"

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
    tm_pred_counts counts;  /* event counters (statistics and coverage) */
    tm_tage *tage;      /* in place of gshare */
    tm_ittage *ittage;  /* in place of the iBTB */
};

static inline uint32_t pred_cond_index(const tm_pred *p, uint64_t pc)
{
    return (uint32_t)((p->bhr ^ (pc >> 4)) & p->gmask);
}

static inline int pred_cond_predict(const tm_pred *p, uint64_t pc)
{
    if (p->tage)
        return tm_tage_predict_keep(p->tage, pc);
    if (!p->ctr)
        return 0; /* no gshare: static not-taken */
    return p->ctr[pred_cond_index(p, pc)] >= 2;
}

static inline void pred_cond_update(tm_pred *p, uint64_t pc, int taken)
{
    if (p->ittage)
        tm_ittage_push_cond(p->ittage, taken);
    if (p->tage) {
        tm_tage_update(p->tage, pc, taken);
        return;
    }
    if (!p->ctr)
        return;
    uint8_t *c = &p->ctr[pred_cond_index(p, pc)];
    if (taken) {
        if (*c < 3)
            (*c)++;
    } else if (*c > 0) {
        (*c)--;
    }
    p->bhr = ((p->bhr << 1) | (taken ? 1u : 0u)) & p->gmask;
}

/* pred_cond_predict, then pred_cond_update with TAKEN: the prediction. */
static inline int pred_cond_step(tm_pred *p, uint64_t pc, int taken)
{
    if (p->tage)
        return tage_step(p->tage, pc, taken);
    int pred = pred_cond_predict(p, pc);
    pred_cond_update(p, pc, taken);
    return pred;
}

/* The same where the outcome is the prediction, or its opposite if MISS:
 * the outcome. */
static inline int pred_cond_follow(tm_pred *p, uint64_t pc, int miss)
{
    if (p->tage)
        return tage_follow(p->tage, pc, miss);
    int taken = pred_cond_predict(p, pc) ^ (miss != 0);
    pred_cond_update(p, pc, taken);
    return taken;
}

static inline void pred_ibtb_slot(const tm_pred *p, uint64_t pc, uint32_t *set, uint32_t *tag)
{
    *tag = (uint32_t)((p->pir ^ (pc >> 10)) & 0xFF);
    *set = p->sets ? (uint32_t)(((p->pir >> 8) ^ (pc >> 4)) & (p->sets - 1)) : 0;
}

static inline int pred_ind_predict(const tm_pred *p, uint64_t pc, uint64_t *target)
{
    if (p->ittage)
        return tm_ittage_predict_keep(p->ittage, pc, target);
    if (!p->ibtb)
        return 0;
    uint32_t set, tag;
    pred_ibtb_slot(p, pc, &set, &tag);
    const ibtb_entry *e = &p->ibtb[set * 2];
    for (int w = 0; w < 2; w++)
        if (e[w].valid && e[w].tag == tag) {
            *target = e[w].target;
            return 1;
        }
    return 0;
}

static inline void pred_ind_update(tm_pred *p, uint64_t pc, uint64_t target)
{
    if (p->tage)
        tm_tage_push_indirect(p->tage, pc, target);
    if (p->ittage) {
        tm_ittage_update(p->ittage, pc, target);
        return;
    }
    if (!p->ibtb)
        return;
    uint32_t set, tag;
    pred_ibtb_slot(p, pc, &set, &tag);
    ibtb_entry *e = &p->ibtb[set * 2];
    int way = -1;
    for (int w = 0; w < 2; w++)
        if (e[w].valid && e[w].tag == tag)
            way = w;
    if (way < 0) {
        way = p->lru[set]; /* replace the least recently used way */
        p->counts.ibtb_fills[way]++;
        e[way].valid = 1;
        e[way].tag = (uint8_t)tag;
    }
    e[way].target = target;
    p->lru[set] = (uint8_t)(way ^ 1);
    p->pir = (uint32_t)(((((uint64_t)p->pir << 2) ^ (pc >> 4)) | 1u) & p->pir_mask);
}

static inline void pred_ras_push(tm_pred *p, uint64_t ret_addr)
{
    if (!p->ras)
        return;
    p->ras_top = p->ras_top + 1 == p->cfg.ras ? 0 : p->ras_top + 1;
    p->ras[p->ras_top] = ret_addr;
    if (p->ras_count < p->cfg.ras)
        p->ras_count++;
    else
        p->counts.ras_wraps++;
}

static inline int pred_ras_pop(tm_pred *p, uint64_t *target)
{
    if (!p->ras || p->ras_count == 0) {
        p->counts.ras_underflows++;
        return 0;
    }
    *target = p->ras[p->ras_top];
    p->ras_top = p->ras_top == 0 ? p->cfg.ras - 1 : p->ras_top - 1;
    p->ras_count--;
    return 1;
}

#endif
