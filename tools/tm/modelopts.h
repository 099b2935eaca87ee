/* tm command line: the model options shared by `tm model`, `tm cosim`,
 * `tm record` and `tm config` (the library's tm/modelspec.h resolves them). */
#ifndef TM_MODELOPTS_H
#define TM_MODELOPTS_H

#include <stdint.h>
#include "tm/model.h"
#include "tm/modelspec.h"
#include "tm/opt.h"

/* The options as given (the library's tm_model_spec). */
typedef tm_model_spec model_opts;

/* The model options as a table of tm/opt.h (into a model_opts). */
extern const tm_optdef model_opts_table[];
/* If ARGV[*I] is a model option, consumes it (and its value) and returns 1;
 * returns 0 if it is not one; -1 after printing a usage error. */
int model_opts_parse(const char *sub, model_opts *o, int argc, char **argv, int *i);
/* Builds the configuration for THREADS from the options; 0 on success, -1
 * after printing one line naming the option and what is allowed. */
int model_opts_cfg(const char *sub, const model_opts *o, uint32_t threads, tm_model_cfg *cfg);
/* Help text of the options. */
extern const char model_opts_help[];

/* --demand (tm model, tm record; TM_DEMAND_PORT_BITS, TM_DEMAND_BUFFER_BITS
 * of tm/modelspec.h): sets O's port and buffer; -1 after a usage error if
 * the configuration gives --port or --buffer itself (WHICH: "" for a run of
 * one configuration, else "configuration K: "). */
int model_opts_demand(const char *sub, model_opts *o, const char *which);
/* After a --demand run: 0 if M dropped nothing, else -1 after one line
 * (NAME: the configuration's output, as the line names it). */
int model_opts_demand_check(const char *sub, const tm_model *m, const tm_model_cfg *cfg, const char *name);
#endif
