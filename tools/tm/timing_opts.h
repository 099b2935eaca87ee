/* tm record's timing-model options (tools/tm/timing_opts.c, tm/timing.h). */
#ifndef TM_TOOLS_TIMING_OPTS_H
#define TM_TOOLS_TIMING_OPTS_H

#include "tm/timing.h"

extern const char timing_opts_help[];

typedef struct timing_opts {
    int serial;           /* --timing serial (-1 until timing_opts_check: not given) */
    tm_timing_cfg cfg;    /* --timing cores with --cpi, --l1, --l2, --mem-latency, --timing-window */
    int set;              /* a cores-only option was given */
    int no_caches;        /* --no-caches: no instruction cache, no data addresses captured */
    int no_icache;        /* --no-icache (or --no-caches) */
    int l1i_given;        /* --l1i */
} timing_opts;

void timing_opts_init(timing_opts *o);
/* Parses the timing option at argv[*i]: 1 (consumed), 0 (not one), or -1
 * after one line "tm record: ...". */
int timing_opts_parse(timing_opts *o, int argc, char **argv, int *i);
/* After parsing: decides the model if --timing was not given (cores; serial
 * with MODE, tm record --mode, unless a cores option was given); 0, or 2
 * after one line (a cores option with serial, or out of range). */
int timing_opts_check(timing_opts *o, int mode);

#endif
