/* tm — a field profile of one model's run (docs/guide.md, "Field
 * profiles"): what a bandwidth study needs to plot and to recompute the
 * trace's size for other chunk sizes without running the model again.
 *
 * A tm_profile observes the messages of one model through its message hook
 * (tm_model_set_hook) and keeps, for the ACCEPTED messages, histograms by
 * bit length (index L = 0..64 is the number of significant bits of the
 * value, tm_nbits64: 0 for 0, else 64 - clz) of each chunked field, the
 * exact values of bCnt, the messages by kind, and a timeline: the bits of
 * the accepted messages and the number of dropped messages per window of W
 * cycles (by the cycle in which the message was offered, i.e. the demand
 * entering the buffer, not what the port sent in it).
 *
 * The key property: a chunked field's length depends only on the value's
 * bit length (tm_chunked_bits of any value of L bits is the same), so
 *     sum over L of count[L] * tm_chunked_bits(v_L, A, B)   (v_L: any value
 *     of L bits, e.g. 0 for L = 0, 2^(L-1) otherwise; + 1 sign bit per
 *     message for |diffTA|)
 * is the field's bits under chunk sizes (A, B).  tm_profile_field_bits
 * does it for every field class: under the configuration the profile was
 * taken with it gives exactly the model's tm_thread_stats.bits (the unit
 * tests check it), and under other chunk sizes exactly what a run with
 * them gives as long as no message is dropped in either run (the messages
 * themselves do not depend on the chunk sizes; they do on losses).  So one
 * lossless run gives the bits per instruction of every (i0,i1), (j0,j1),
 * (h0,h1), (k0,k1).
 *
 * Calls return a tm_status; the hook cannot fail, so an allocation failure
 * or a timeline longer than TM_PROFILE_MAX_WINDOWS windows is kept and
 * returned by tm_profile_write_json (tm_profile_status, tm_profile_error). */
#ifndef TM_PROFILE_H
#define TM_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/model.h"
#include "tm/msg.h"
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TM_PROFILE_LENS 65                    /* bit lengths 0..64 */
#define TM_PROFILE_MAX_WINDOW (UINT64_C(1) << 40)
#define TM_PROFILE_MAX_WINDOWS ((size_t)1 << 22)

/* The histograms and counts, of accepted messages only (dropped ones are in
 * dropped_*).  "Control" messages: BRANCH, EXC, SYNC, END. */
typedef struct tm_profile_counts {
    uint64_t messages[TM_MSG_KINDS]; /* by tm_msg_kind */
    uint64_t sync_overflow;          /* SYNC with reason OVERFLOW */
    uint64_t end_lost;               /* END with L = 1 */
    uint64_t bits;                   /* every accepted bit */
    uint64_t value_bytes;            /* DATA: the values' bytes */
    uint64_t dropped_messages, dropped_bits;
    /* by bit length: */
    uint64_t bcnt_len[TM_PROFILE_LENS];       /* bCnt of BRANCH (i0,i1) */
    uint64_t diffta_len[TM_PROFILE_LENS];     /* |diffTA| of BRANCH with T = 1 (j0,j1) */
    uint64_t exc_diffta_len[TM_PROFILE_LENS]; /* |diffTA| of EXC (j0,j1) */
    uint64_t icnt_len[TM_PROFILE_LENS];       /* the other fields chunked with (i0,i1): iCnt of
                                                 EXC, END and SYNC(OVERFLOW), gap of
                                                 SYNC(OVERFLOW) and of END with L */
    uint64_t diffcc_len[TM_PROFILE_LENS];     /* diffCC as every control message carries it
                                                 (h0,h1; 0 without time stamps) */
    uint64_t diffcc64_len[TM_PROFILE_LENS];   /* the cycles since the core's previous
                                                 accepted control message: diffCC with a
                                                 64-bit counter, also without time stamps */
    uint64_t fah_len[TM_PROFILE_LENS];        /* fahCnt of DATA (k0,k1) */
    /* bCnt by value: [v] for v = 1..64, [0] for every value > 64 */
    uint64_t bcnt_value[TM_PROFILE_LENS];
} tm_profile_counts;

typedef struct tm_profile tm_profile;

/* A profile with a timeline of WINDOW_CYCLES cycles per window
 * (1..TM_PROFILE_MAX_WINDOW).  TM_OK, TM_ERR_ARG or TM_ERR_NOMEM. */
int tm_profile_new(uint64_t window_cycles, tm_profile **out);
void tm_profile_free(tm_profile *p);
/* Sets M's message hook to the profile (M's previous hook is replaced). */
void tm_profile_attach(tm_profile *p, tm_model *m);
/* The hook itself (a tm_model_msg_hook, ARG the profile): for a caller
 * that observes the messages for something else too. */
void tm_profile_hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits, int accepted);

const tm_profile_counts *tm_profile_get(const tm_profile *p);
uint64_t tm_profile_window(const tm_profile *p);
/* The timeline: the number of windows (the last one holding a message, +1),
 * and (if not NULL) its arrays of accepted bits and dropped messages. */
size_t tm_profile_timeline(const tm_profile *p, const uint64_t **bits, const uint64_t **dropped);
/* TM_OK, or what went wrong in the hook (TM_ERR_NOMEM; TM_ERR_ARG: a
 * timeline of more than TM_PROFILE_MAX_WINDOWS windows), with its text. */
int tm_profile_status(const tm_profile *p);
const char *tm_profile_error(const tm_profile *p);

/* The bits of each field class (tm_field_bits, as the model counts them)
 * of the messages of C under the encoding ENC (its threads, data mode,
 * time stamps and chunk sizes).  diffcc comes from diffcc_len (copy
 * diffcc64_len there to get a time-stamped configuration's from a run
 * without time stamps).  The total is the sum of the fields. */
void tm_profile_field_bits(const tm_profile_counts *c, const tm_enc_cfg *enc, tm_field_bits *fb);
uint64_t tm_profile_bits_total(const tm_field_bits *fb);

/* The profile as JSON (docs/guide.md, "Field profiles"), CFG being the
 * configuration of the model it observed:
 *   {"window_cycles": W,
 *    "config": {"encoding", "timestamps", "ts_bits", "threads", "data",
 *               "chunks": {"bcnt": [i0, i1], "ta", "cc", "fah"}},
 *    "messages": {"branch", "exception", "sync", "sync_overflow", "end",
 *                 "end_lost", "data"},
 *    "bits": N, "bits_by_field": {"ti", "q", "cnt", "diffta", "diffcc",
 *    "sync", "fah", "value"} (tm_profile_field_bits under CFG),
 *    "value_bytes": N, "dropped_messages": N, "dropped_bits": N,
 *    "bcnt_len": [65 counts], "bcnt_value": [65 counts: [v] for 1..64, [0]
 *    for > 64], "diffta_len": [65], "exc_diffta_len": [65], "icnt_len":
 *    [65], "diffcc_len": [65], "diffcc64_len": [65], "fah_len": [65],
 *    "timeline": {"bits": [per window], "dropped": [per window]}}
 * TM_OK; the profile's own error (tm_profile_status); TM_ERR_IO if a write
 * to F failed (F is not closed). */
int tm_profile_write_json(const tm_profile *p, const tm_model_cfg *cfg, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
