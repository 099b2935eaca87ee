/* tm command line: statistics reports (text and JSON) of a model run. */
#ifndef TM_REPORT_H
#define TM_REPORT_H

#include <stdio.h>
#include <stdint.h>
#include "tm/model.h"
#include "tm/profile.h"
#include "tm/tmt.h"

void report_text(FILE *f, const tm_model_cfg *cfg, const tm_model *m);
/* Returns 0 on success, -1 with errno set on a write error.  END: how the
 * recording and its program ended (its ending, signal, prog and prog_code:
 * the "recording" object); MACHINE: the JSON value of "machine" (the
 * timing model the cycles come from, tm record), NULL for null (tm model:
 * the stream's cycles are given). */
int report_json(const char *path, const tm_model_cfg *cfg, const tm_model *m, const tmt_trailer *end,
                const char *machine);
/* --profile: the field profile P of the model of CFG as JSON to PATH ("-" =
 * stdout); 0, or -1 with one line (naming NAME, the final file name) in ERR. */
int report_profile(const char *path, const char *name, const tm_profile *p, const tm_model_cfg *cfg, char *err,
                   size_t n);
/* --profile-window V: 0 with *OUT, or -1 after one line of SUB. */
int report_profile_window(const char *sub, const char *v, uint64_t *out);
#define REPORT_PROFILE_WINDOW 1000000 /* cycles, the default */
/* "tr_e large private" style one-line description. */
void report_cfg_line(char *buf, size_t n, const tm_model_cfg *cfg);
#endif
