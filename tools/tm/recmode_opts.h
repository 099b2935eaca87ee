/* tm record's descriptor-output options (tools/tm/recmode_opts.c). */
#ifndef TM_TOOLS_RECMODE_OPTS_H
#define TM_TOOLS_RECMODE_OPTS_H

#include "tm/recmodes.h"

/* The options for tm record's usage text. */
extern const char recmode_opts_help[];

/* Parses the mode option at argv[*i]: -a, -c X, -d, -f N, --store, --mode X
 * ("--mode=X", "-c=X", "-f=N" too).  Returns 1 (consumed; *i advanced past
 * a separate value), 0 (not a mode option), or -1 after printing one line
 * "tm record: ..." to stderr (unknown mode or compressor, -f 0 or not a
 * whole number, a missing value). */
int recmode_opts_parse(tm_recmode_cfg *c, int argc, char **argv, int *i);

#endif
