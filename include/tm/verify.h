/* tm — replay of a trace against its commit stream (docs/spec.md §6).
 *
 * tm_verify replays a .tmt trace with software copies of the predictors (the
 * model's own predictor code, tm/pred.h) and takes from the commit stream only
 * what an instruction-set simulator knows statically: each instruction's
 * class, length and direct target.  Every outcome, target, exception, count
 * and (with time stamps) cycle it reconstructs is compared with the commit
 * stream; the first divergence is reported.  In the same read of the commit
 * stream it makes tm_verify_file's checks (spec §6.2): a second thread runs
 * the model over the records the replay reads, and a third reads them (a
 * thread that cannot be started: its work is done on the caller's); every
 * thread is joined before tm_verify returns. */
#ifndef TM_VERIFY_H
#define TM_VERIFY_H

#include <stddef.h>
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
    /* data tracing (spec §6 step 7) */
    uint64_t loads;            /* loads retired (in and out of gaps) */
    uint64_t loads_reported;   /* values taken from DATA messages */
    uint64_t loads_inferred;   /* values taken from the replay's copy */
    uint64_t stores;           /* stores applied to the copy */
} tm_verify_result;

/* Returns TM_OK when the replay matched and so did tm_verify_file's checks,
 * TM_ERR_MISMATCH on a divergence, or an input error (the .tmc cannot be
 * read, the trace cannot be parsed); ERR (if not NULL) then receives the
 * first divergence or input error, one paragraph: the replay's first, then
 * the file checks' in tm_verify_file's order.  PROGRESS (may be NULL) is
 * called about every 2^22 records, on the caller's thread. */
int tm_verify(const char *tmc_path, const tmt_file *trace, tm_verify_result *res,
              void (*progress)(uint64_t records, void *arg), void *arg, char *err, size_t errlen);

/* What the replay cannot check (spec §6.2): the model, run over the commit
 * stream with the trace's configuration, must give the trace's bits, its
 * cycle count and per-thread instruction counts, and the commit stream's
 * ENDING record must be the trailer's endings (the recording's and its program's).  TM_OK, TM_ERR_MISMATCH (ERR says
 * which field and, for the bits, the first trace bit that differs), or an
 * input error.  tm_verify makes these checks too: this is them alone, on
 * the caller's thread. */
int tm_verify_file(const char *tmc_path, const tmt_file *trace, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
