/* tm — TAGE-class mirrored predictors (docs/spec.md §3.3.1, §3.3.2): a
 * conditional-branch outcome predictor (tm_tage) and an indirect-branch
 * target predictor (tm_ittage), each a base table plus tagged tables indexed
 * with geometric global-history lengths.  Everything, allocation included, is
 * deterministic: the decoder runs this code and follows the hardware's copy
 * bit for bit.  Split into predict (no side effect) and update. */
#ifndef TM_TAGE_H
#define TM_TAGE_H

#include <stddef.h>
#include <stdint.h>
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TM_TAGE_TABLES_MAX 8

/* base = 0: the predictor is absent. */
typedef struct tm_tage_cfg {
    uint32_t base;    /* base table entries: 0 or 2^k, 2 .. 16384 */
    uint32_t tables;  /* tagged tables T: 1 .. 8 */
    uint32_t entries; /* entries per tagged table: 2^k, 2 .. 4096 */
    uint32_t tag;     /* tag bits: 4 .. 16 */
    uint32_t lmin, lmax; /* history lengths of tables 1 and T: 1 <= lmin <= lmax <= 128 */
} tm_tage_cfg;

/* TM_OK or TM_ERR_ARG; ERR (may be NULL) gets "OPT ...: allowed ..." where OPT
 * names the option ("--tage" or "--ittage"). */
int tm_tage_cfg_check(const tm_tage_cfg *c, const char *opt, char *err, size_t errlen);
/* History length of tagged table I (1 .. tables). */
unsigned tm_tage_hist_len(const tm_tage_cfg *c, unsigned i);
/* State bits of one predictor (tables, history and folded registers,
 * counters), as counted in docs/spec.md §3.3.3; 0 for an absent one. */
uint64_t tm_tage_bits(const tm_tage_cfg *c);
uint64_t tm_ittage_bits(const tm_tage_cfg *c);

/* Event counters (statistics and coverage; not reset by *_reset). */
typedef struct tm_tage_counts {
    uint64_t hits[TM_TAGE_TABLES_MAX + 1]; /* lookups by provider (0 = base) */
    uint64_t allocs[TM_TAGE_TABLES_MAX + 1]; /* entries allocated, by table */
    uint64_t replaced;   /* of them, over a valid entry (u = 0) */
    uint64_t alloc_fails;/* mispredictions where no table could allocate */
    uint64_t use_alt;    /* predictions taken from the alternate */
} tm_tage_counts;

/* What a lookup finds (for tests, traces and the update). */
typedef struct tm_tage_lookup {
    unsigned provider;  /* table of the longest matching entry, 0 = base */
    unsigned alt;       /* next matching table below it, 0 = base */
    uint32_t index[TM_TAGE_TABLES_MAX + 1]; /* [0] base index */
    uint32_t tag[TM_TAGE_TABLES_MAX + 1];
    int pred;           /* tm_tage: 1 = taken; tm_ittage: 1 = *target valid */
    int provpred, altpred;
    int used_alt;
    uint64_t target, provtarget, alttarget; /* tm_ittage */
    int havealt;        /* tm_ittage: the alternate gives a target */
} tm_tage_lookup;

typedef struct tm_tage_entry {
    unsigned valid, tag, ctr, u;
    uint64_t target; /* tm_ittage */
} tm_tage_entry;

/* --- Conditional outcomes --- */
typedef struct tm_tage tm_tage;
int tm_tage_new(const tm_tage_cfg *c, tm_tage **out);
void tm_tage_free(tm_tage *p);
void tm_tage_reset(tm_tage *p);
void tm_tage_lookup_pc(const tm_tage *p, uint64_t pc, tm_tage_lookup *l);
int tm_tage_predict(const tm_tage *p, uint64_t pc);  /* 1 = taken */
/* The same, keeping the lookup for an update of PC that follows (the state
 * is unchanged: only the work is saved). */
int tm_tage_predict_keep(tm_tage *p, uint64_t pc);
/* Trains the tables with the outcome and shifts it into the history. */
void tm_tage_update(tm_tage *p, uint64_t pc, int taken);
/* tm_tage_predict, then tm_tage_update with TAKEN, in one lookup: the
 * prediction (the model: the outcome is known). */
int tm_tage_predict_update(tm_tage *p, uint64_t pc, int taken);
/* The same where the outcome is the prediction, or its opposite if MISS
 * (a replay: the trace says where the predictor missed): the outcome. */
int tm_tage_follow(tm_tage *p, uint64_t pc, int miss);
/* Shifts the history bits of an indirect branch (spec §3.3.1). */
void tm_tage_push_indirect(tm_tage *p, uint64_t pc, uint64_t target);
/* Entry IDX of table T (0 = base: only ctr); 0 if out of range. */
int tm_tage_get_entry(const tm_tage *p, unsigned t, uint32_t idx, tm_tage_entry *e);
unsigned tm_tage_use_alt_ctr(const tm_tage *p);
void tm_tage_get_counts(const tm_tage *p, tm_tage_counts *c);

/* --- Indirect targets --- */
typedef struct tm_ittage tm_ittage;
int tm_ittage_new(const tm_tage_cfg *c, tm_ittage **out);
void tm_ittage_free(tm_ittage *p);
void tm_ittage_reset(tm_ittage *p);
void tm_ittage_lookup_pc(const tm_ittage *p, uint64_t pc, tm_tage_lookup *l);
/* 1 = *target predicted, 0 = no prediction. */
int tm_ittage_predict(const tm_ittage *p, uint64_t pc, uint64_t *target);
int tm_ittage_predict_keep(tm_ittage *p, uint64_t pc, uint64_t *target);
/* Trains with the actual target and shifts the history bits. */
void tm_ittage_update(tm_ittage *p, uint64_t pc, uint64_t target);
/* Shifts the outcome of a conditional branch into the history. */
void tm_ittage_push_cond(tm_ittage *p, int taken);
int tm_ittage_get_entry(const tm_ittage *p, unsigned t, uint32_t idx, tm_tage_entry *e);
void tm_ittage_get_counts(const tm_ittage *p, tm_tage_counts *c);

#ifdef __cplusplus
}
#endif
#endif
