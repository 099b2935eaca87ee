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
#include <stdio.h>
#include "tm/model.h"
#include "tm/out.h"
#include "tm/profile.h"
#include "tm/sweep.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* One configuration's outputs: the names given (NULL: not wanted) and
 * their temporaries. */
typedef struct tm_model_outs {
    const char *trace, *stats, *profile;   /* -o (.tmt), --stats (JSON), --profile (JSON) */
    tm_out otrace, ostats, oprofile;
} tm_model_outs;

/* The run: K configurations with their outputs, the sweep that models
 * them in one pass, the profiles, how the recording ended. */
typedef struct tm_modelrun {
    size_t k;
    const tm_model_cfg *cfgs;   /* the caller's K configurations */
    tm_model_outs *outs;        /* and outputs */
    tm_profile **prof;          /* K; NULL where no profile is wanted */
    tm_sweep *sw;
    tmt_trailer end;            /* the stream's ENDING (after the feed) */
} tm_modelrun;

/* Every wanted output begun under a temporary name (none of them may be
 * one of INPUTS), the sweep made, a profile of WINDOW cycles attached
 * where one is wanted: TM_OK; TM_ERR_ARG (an output is an input or a
 * directory: a usage error); or another error ("cannot create the model:
 * ...").  tm_modelrun_free R in either case. */
int tm_modelrun_start(tm_modelrun *r, const tm_model_cfg *cfgs, tm_model_outs *outs, size_t k, uint64_t window,
                      const char *const *inputs, char *err, size_t errlen);
/* The commit stream RD (named IN in messages) through the sweep, then
 * tm_sweep_finish; the stream's ENDING into R->end.  PROGRESS (may be
 * NULL) is called every 2^20 records.  TM_OK; or the reader's error; or a
 * model's error ("IN: offset N: MESSAGE", with K > 1 configurations "IN:
 * offset N: configuration J (-o TRACE): MESSAGE"). */
int tm_modelrun_feed(tm_modelrun *r, tmc_reader *rd, const char *in, void (*progress)(uint64_t records, void *arg),
                     void *arg, char *err, size_t errlen);
/* Each configuration's trace (with how the recording and the program
 * ended), statistics and profile written and renamed into place: TM_OK,
 * or an error naming the output. */
int tm_modelrun_write(tm_modelrun *r, char *err, size_t errlen);
/* Configuration J's model. */
tm_model *tm_modelrun_model(tm_modelrun *r, size_t j);
/* Configuration J's text report on F (tm model's standard output): with
 * several configurations under a line "== TRACE"; how the recording
 * ended, if it was cut. */
void tm_modelrun_report(FILE *f, tm_modelrun *r, size_t j);
/* tm model --explain on F: the configuration CFG's fields, chunk sizes and
 * longest messages. */
void tm_modelrun_explain(FILE *f, const tm_model_cfg *cfg);
/* The outputs not renamed removed; the sweep and profiles freed. */
void tm_modelrun_free(tm_modelrun *r);

#endif
