/* tm — a sweep: one commit stream fed to K trace-module models in one pass
 * (docs/guide.md, "Sweeps").  Reading and parsing a stream (or recording
 * it) is the expensive part of a bandwidth study; a sweep does it once for
 * every configuration.  Model i sees exactly what tm_model_put /
 * tm_model_put_group would have given it alone, so its trace and
 * statistics are those of a separate run (the unit tests check it byte for
 * byte).
 *
 * Calls return a tm_status; the first model that refuses a record stops
 * the sweep (tm_sweep_failed names it, tm_model_error says why). */
#ifndef TM_SWEEP_H
#define TM_SWEEP_H

#include <stddef.h>
#include "tm/model.h"
#include "tm/status.h"
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_sweep tm_sweep;

/* K models (K >= 1) of the resolved configurations CFGS.  TM_OK,
 * TM_ERR_ARG (K = 0) or a tm_model_new failure, with its message in ERR. */
int tm_sweep_new(const tm_model_cfg *cfgs, size_t k, tm_sweep **out, char *err, size_t errlen);
size_t tm_sweep_count(const tm_sweep *s);
/* Model I (its trace, statistics, hook); owned by the sweep. */
tm_model *tm_sweep_model(tm_sweep *s, size_t i);
/* Every model's instruction set (tm_model_set_isa), before any record. */
int tm_sweep_set_isa(tm_sweep *s, int isa);
/* Record R, or group G, to every model in turn. */
int tm_sweep_put(tm_sweep *s, const tmc_record *r);
int tm_sweep_put_group(tm_sweep *s, const tmc_group *g);
/* The end of the stream, for every model. */
int tm_sweep_finish(tm_sweep *s);
/* The model that refused (its index), or tm_sweep_count if none did. */
size_t tm_sweep_failed(const tm_sweep *s);
void tm_sweep_free(tm_sweep *s);

#ifdef __cplusplus
}
#endif
#endif
