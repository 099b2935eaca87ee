/* tm command line: the model options shared by `tm model` and `tm cosim`. */
#ifndef TM_MODELOPTS_H
#define TM_MODELOPTS_H

#include <stdint.h>
#include "tm/model.h"

typedef struct model_opts {
    const char *config, *encoding;
    const char *gshare, *ras, *ibtb, *buffer, *port, *ts_bits;
    const char *chunks[4];        /* bcnt, ta, cc, fah */
    const char *data, *cache, *assoc, *line, *gran;
    const char *tage[5], *ittage[5]; /* N, -tables, -entries, -tag, -hist */
    int timestamps, shared, cfiat, cfiat_shared;
} model_opts;

/* If ARGV[*I] is a model option, consumes it (and its value) and returns 1;
 * returns 0 if it is not one; -1 after printing a usage error. */
int model_opts_parse(const char *sub, model_opts *o, int argc, char **argv, int *i);
/* Builds the configuration for THREADS from the options; 0 on success, -1
 * after printing one line naming the option and what is allowed. */
int model_opts_cfg(const char *sub, const model_opts *o, uint32_t threads, tm_model_cfg *cfg);
/* Help text of the options. */
extern const char model_opts_help[];
#endif
