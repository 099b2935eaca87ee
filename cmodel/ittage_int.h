/* tm — what cmodel/ittage.c shows the predictor set (pred_int.h) beyond
 * tm/tage.h: the start of struct tm_ittage, which a conditional branch
 * changes (its history: tm_ittage_push_cond, inline on the path of every
 * conditional branch, where a call cost 5 % of a tage-l replay: in the
 * predictor set, and in tage.c's predict_update for the set's TAGE, which
 * pushes the outcome into its ITTAGE's history too, tage_pair). */
#ifndef TM_ITTAGE_INT_H
#define TM_ITTAGE_INT_H

#include "hist_int.h"
#include "tm/tage.h"

typedef struct ittage_head {
    tm_ghist g;  /* the global history (no folded registers: struct tm_ittage) */
    int kept_ok; /* a *_predict_keep lookup is kept (the history unchanged since) */
} ittage_head;

/* tm_ittage_push_cond: a conditional branch's outcome B into P's history
 * (struct tm_ittage begins with its ittage_head). */
static inline void ittage_push_cond(tm_ittage *p, unsigned b)
{
    ittage_head *h = (ittage_head *)(void *)p;
    h->kept_ok = 0;
    ghist_push(&h->g, b, NULL, 0);
}

#endif
