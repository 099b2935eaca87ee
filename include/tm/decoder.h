/* tm — debugger-side replay of a trace (docs/spec.md §6).
 *
 * tm_verify replays a .tmt trace with software copies of the predictors (the
 * model's own predictor code, tm/pred.h) and takes from the commit stream only
 * what an instruction-set simulator knows statically: each instruction's
 * class, length and direct target.  Every outcome, target, exception, count
 * and (with time stamps) cycle it reconstructs is compared with the commit
 * stream; the first divergence is reported. */
#ifndef TM_DECODER_H
#define TM_DECODER_H

#include <stdint.h>
#include "tm/tmt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_verify_result {
    int ok;                    /* 1 iff everything matched */
    uint64_t instructions;     /* instructions replayed (in and out of gaps) */
    uint64_t checked;          /* instructions reconstructed and compared */
    uint64_t branches;         /* control transfers reconstructed */
    uint64_t exceptions;
    uint64_t messages;         /* messages consumed */
    uint64_t gaps;             /* overflow gaps crossed */
    uint64_t gap_instructions; /* instructions inside gaps (not reconstructed) */
    uint64_t cycles_checked;   /* time stamps compared */
    char error[1024];          /* first divergence or input error, one paragraph */
} tm_verify_result;

/* Returns TM_OK when the replay matched, TM_ERR_MISMATCH on a divergence, or
 * an input error (the .tmc cannot be read, the trace cannot be parsed).
 * PROGRESS (may be NULL) is called about every 2^22 records. */
int tm_verify(const char *tmc_path, const tmt_file *trace, tm_verify_result *res,
              void (*progress)(uint64_t records, void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif
