/* tm — statistics reports of a model run (record/report.c): the text of
 * BASE.stats and --stats, the JSON of BASE.json, the field profile.  They
 * write to the FILE or the path the caller gives ("-": standard output, by
 * the caller's choice); nothing else is printed. */
#ifndef TM_REPORT_H
#define TM_REPORT_H

#include <stdio.h>
#include <stdint.h>
#include "tm/model.h"
#include "tm/profile.h"
#include "tm/tmt.h"

/* The model's statistics as text on F. */
void tm_report_text(FILE *f, const tm_model_cfg *cfg, const tm_model *m);
/* The statistics as JSON to PATH: TM_OK, or TM_ERR_IO with errno set.
 * END: how the recording and its program ended (its ending, signal, prog
 * and prog_code: the "recording" object); MACHINE: the JSON value of
 * "machine" (the timing model the cycles come from, tm record), NULL for
 * null (tm model: the stream's cycles are given). */
int tm_report_json(const char *path, const tm_model_cfg *cfg, const tm_model *m, const tmt_trailer *end,
                   const char *machine);
/* The field profile P of the model of CFG as JSON to PATH: TM_OK, or
 * TM_ERR_IO with one line (naming NAME, the final file name) in ERR. */
int tm_report_profile(const char *path, const char *name, const tm_profile *p, const tm_model_cfg *cfg, char *err,
                      size_t n);
#define TM_REPORT_PROFILE_WINDOW 1000000 /* cycles, the profiles' default window */
/* "tr_e large private" style one-line description of CFG into BUF. */
void tm_report_cfg_line(char *buf, size_t n, const tm_model_cfg *cfg);

#endif
