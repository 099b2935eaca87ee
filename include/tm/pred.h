/* tm — the mcfTRaptor predictor set: gshare, return address stack, iBTB with
 * path information register (docs/spec.md §3.3).  The model and the decoder
 * both use this code, so the debugger's copy behaves exactly like the
 * hardware's.  Every prediction is split into predict (no side effect) and
 * update (with the actual outcome or target), as a debugger needs it. */
#ifndef TM_PRED_H
#define TM_PRED_H

#include <stddef.h>
#include <stdint.h>
#include "tm/status.h"
#include "tm/tage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_pred_cfg {
    uint32_t gshare; /* 0 or a power of two, 1 .. 4096 */
    uint32_t ras;    /* 0 .. 32 */
    uint32_t ibtb;   /* 0 or a power of two, 2 .. 64 (2 ways x ibtb/2 sets) */
    tm_tage_cfg tage;   /* TAGE-class outcome predictor in place of gshare
                           (tage.base != 0; then gshare = 0), spec §3.3.1 */
    tm_tage_cfg ittage; /* ITTAGE-class target predictor in place of the
                           iBTB (ittage.base != 0; then ibtb = 0), §3.3.2 */
} tm_pred_cfg;

/* State bits of a predictor set per core (spec §3.3.3): tables, history
 * registers, pointers and counters. */
uint64_t tm_pred_cfg_bits(const tm_pred_cfg *c);

typedef struct tm_pred tm_pred;

/* Event counters of a predictor set (not reset by tm_pred_reset). */
typedef struct tm_pred_counts {
    uint64_t ras_wraps;      /* pushes onto a full RAS (oldest entry overwritten) */
    uint64_t ras_underflows; /* pops of an empty RAS (also with no RAS at all) */
    uint64_t ibtb_fills[2];  /* iBTB misses that wrote way 0 / way 1 */
    tm_tage_counts tage, ittage; /* the TAGE-class predictors' (all 0 without) */
} tm_pred_counts;
void tm_pred_get_counts(const tm_pred *p, tm_pred_counts *c);

/* TM_OK or TM_ERR_ARG; ERR (may be NULL) receives "--gshare 300: ..." text. */
int tm_pred_cfg_check(const tm_pred_cfg *c, char *err, size_t errlen);
int tm_pred_new(const tm_pred_cfg *c, tm_pred **out);
void tm_pred_free(tm_pred *p);
/* Every field back to its reset value. */
void tm_pred_reset(tm_pred *p);

/* gshare (or TAGE): 1 = predicted taken. */
int tm_pred_cond_predict(const tm_pred *p, uint64_t pc);
void tm_pred_cond_update(tm_pred *p, uint64_t pc, int taken);
/* gshare index for PC under the current BHR (for traces and tests). */
uint32_t tm_pred_cond_index(const tm_pred *p, uint64_t pc);

/* iBTB (or ITTAGE) for ijump/icall: 1 = *target predicted, 0 = no
 * prediction. */
int tm_pred_ind_predict(const tm_pred *p, uint64_t pc, uint64_t *target);
/* Writes the actual target and advances the PIR. */
void tm_pred_ind_update(tm_pred *p, uint64_t pc, uint64_t target);

/* RAS: push a return address; pop = prediction for a return (1 = *target
 * predicted, 0 = empty stack; the pop is the update). */
void tm_pred_ras_push(tm_pred *p, uint64_t ret_addr);
int tm_pred_ras_pop(tm_pred *p, uint64_t *target);

/* State inspection for tests and traces. */
typedef struct tm_pred_state {
    uint32_t bhr, pir, ras_top, ras_count;
} tm_pred_state;
void tm_pred_get_state(const tm_pred *p, tm_pred_state *s);
/* Counter value (0..3) of gshare entry IDX. */
unsigned tm_pred_gshare_counter(const tm_pred *p, uint32_t idx);
/* iBTB set index and tag for PC under the current PIR. */
void tm_pred_ibtb_slot(const tm_pred *p, uint64_t pc, uint32_t *set, uint32_t *tag);
/* The TAGE-class predictors of the set (NULL when the set has none). */
const tm_tage *tm_pred_tage(const tm_pred *p);
const tm_ittage *tm_pred_ittage(const tm_pred *p);

#ifdef __cplusplus
}
#endif
#endif
