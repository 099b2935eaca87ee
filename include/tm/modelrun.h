/* tm — a model run over a commit stream (stats/modelrun.c; tm model's
 * work): the stream fed through a sweep of K configurations in one pass,
 * and each configuration's outputs (trace, statistics, profile) written
 * under temporary names and renamed into place when complete.  Nothing
 * here prints: a failure is a tm_status with one line in the caller's
 * buffer; progress goes to the caller's callback. */
#ifndef TM_MODELRUN_H
#define TM_MODELRUN_H

#include <stddef.h>
#include <stdint.h>
#include "tm/model.h"
#include "tm/out.h"
#include "tm/profile.h"
#include "tm/sweep.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* The commit stream RD (named IN in messages) through the sweep SW, then
 * tm_sweep_finish.  How the recording and its program ended (the stream's
 * ENDING record) into *END.  PROGRESS (may be NULL) is called every 2^20
 * records.  TM_OK; or the reader's error; or a model's error
 * ("IN: offset N: MESSAGE", with K > 1 configurations "IN: offset N:
 * configuration J (-o NAMES[J-1]): MESSAGE"). */
int tm_modelrun_feed(tm_sweep *sw, tmc_reader *rd, const char *in, const char *const *names, tmt_trailer *end,
                     void (*progress)(uint64_t records, void *arg), void *arg, char *err, size_t errlen);

/* One configuration's outputs: the names given (NULL: not wanted) and
 * their temporaries. */
typedef struct tm_model_outs {
    const char *trace, *stats, *profile;   /* -o (.tmt), --stats (JSON), --profile (JSON) */
    tm_out otrace, ostats, oprofile;
} tm_model_outs;

/* The wanted outputs begun (tm_out_open; none of them may be one of
 * INPUTS): TM_OK, TM_ERR_ARG (an output is an input or a directory: a
 * usage error) or TM_ERR_IO; what was begun is aborted on failure. */
int tm_model_outs_begin(tm_model_outs *o, const char *const *inputs, char *err, size_t errlen);
/* The model M's trace (with END's ending and the program's), statistics
 * and profile PROF (NULL if none) written into the temporaries: TM_OK or
 * an error naming the output. */
int tm_model_outs_write(tm_model_outs *o, const tm_model_cfg *cfg, tm_model *m, const tm_profile *prof,
                        const tmt_trailer *end, char *err, size_t errlen);
/* The temporaries renamed into place: TM_OK or TM_ERR_IO. */
int tm_model_outs_commit(tm_model_outs *o, char *err, size_t errlen);
/* The temporaries not renamed removed. */
void tm_model_outs_abort(tm_model_outs *o);

#endif
