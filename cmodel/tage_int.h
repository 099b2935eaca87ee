/* tm — what cmodel/tage.c shows its tests beyond tm/tage.h. */
#ifndef TM_TAGE_INT_H
#define TM_TAGE_INT_H

#include "tm/tage.h"

/* The start of struct tm_tage: its predict_update variants, chosen for
 * its shape and the processor at reset (tage.c's select_fns), which
 * tm_tage_predict_update and tm_tage_follow call; inline here so that the
 * predictor set (pred.c) calls the variant without a call between. */
typedef struct tage_head {
    int (*step)(tm_tage *p, uint64_t pc, int taken); /* tm_tage_predict_update */
    int (*follow)(tm_tage *p, uint64_t pc, int miss); /* tm_tage_follow */
    tm_ittage *co; /* the set's ITTAGE (tage_pair), whose history takes each outcome too */
} tage_head;

/* From now on P's predict_update and follow push each conditional
 * branch's outcome into IT's history too (tm_ittage_push_cond), as the
 * predictor set needs when it has both (NULL: not). */
void tage_pair(tm_tage *p, tm_ittage *it);

static inline int tage_step(tm_tage *p, uint64_t pc, int taken)
{
    return ((tage_head *)(void *)p)->step(p, pc, taken);
}

static inline int tage_follow(tm_tage *p, uint64_t pc, int miss)
{
    return ((tage_head *)(void *)p)->follow(p, pc, miss);
}

/* Whether P's history pushes use PEXT and PDEP (ON, the default: where the
 * processor has BMI2 and no two tables have one history length) or the
 * byte tables (the same words, as on a processor without), from now on
 * (resets included): what is used now.  The words do not change with it
 * (tests/unit/test_tage.c runs both side by side). */
int tm_tage_use_bmi2(tm_tage *p, int on);

#endif
