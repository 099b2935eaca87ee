/* tm — tm pt's encoder option values as text (pt/pt_opts.c): the forms
 * the command line takes, checked against the encoder's ranges
 * (tm/pt.h).  Nothing here prints. */
#ifndef TM_PTOPTS_H
#define TM_PTOPTS_H

#include <stddef.h>
#include "tm/pt.h"

/* PO reset to the defaults (PSB+ every 4096 bytes, short TNT, no timing,
 * MTC every 2^8 cycles), then the values given (NULL: the default):
 * PSB bytes between PSB+ (decimal with K or M, 256 .. 1G), TNT "short" or
 * "long", TIMING as tm_pt_timing_parse reads it, MTC the MTC period's
 * exponent (1 .. 24).  TM_OK, or TM_ERR_ARG naming the option and what it
 * allows. */
int tm_pt_opts_parse(tm_pt_opts *po, const char *psb, const char *tnt, const char *timing, const char *mtc,
                     char *err, size_t errlen);

#endif
