/* tm decode's two files: cmd_decode.c (listing, --verify) and
 * decode_frombin.c (--from-binary). */
#ifndef TM_TOOLS_DECODE_H
#define TM_TOOLS_DECODE_H

#include <stdio.h>
#include "tm/tmt.h"

void decode_usage(FILE *f);
/* A --verify that failed with RC: the divergence (MISMATCH on stdout, and
 * unless QUIET the files on stderr) or the error.  Returns exit status 1. */
int decode_verify_failed(int rc, const char *err, int quiet, int frombin, const char *tmt, const char *tmc);
/* tm decode --from-binary ...: the exit status. */
int decode_from_binary(int argc, char **argv);

#endif
