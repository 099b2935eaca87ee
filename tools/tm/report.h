/* tm command line: statistics reports (text and JSON) of a model run. */
#ifndef TM_REPORT_H
#define TM_REPORT_H

#include <stdio.h>
#include "tm/model.h"
#include "tm/tmt.h"

void report_text(FILE *f, const tm_model_cfg *cfg, const tm_model *m);
/* Returns 0 on success, -1 with errno set on a write error.  ENDING and
 * SIGNAL: how the recording ended (the "recording" object). */
int report_json(const char *path, const tm_model_cfg *cfg, const tm_model *m, tmt_ending ending, unsigned signal);
/* "tr_e large private" style one-line description. */
void report_cfg_line(char *buf, size_t n, const tm_model_cfg *cfg);
#endif
