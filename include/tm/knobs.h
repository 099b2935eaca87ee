/* tm — the thesis tools' knobs (seeds/000 Tables 4.1, 4.3, 4.5, 4.6) as
 * tm record's options: what the Pin tool (pin -t tm_pin.so -mode mcftrace
 * -a -gshare 1024 -- prog) passes to the `tm record --capture -` it starts,
 * so that its descriptor files are exactly those of tm record --mode
 * (docs/guide.md "The Pin tool's knobs").
 *
 * Self-contained C (only <stdio.h>, <stdlib.h>, <string.h> and the enum of
 * tm/status.h; no globals, no allocation): the Pin tool compiles recmodes/knobs.c against Pin's PinCRT,
 * and libtm has it for the unit tests. */
#ifndef TM_KNOBS_H
#define TM_KNOBS_H

#include <stddef.h>
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Translates the knobs KNOBV[0..KNOBC-1] as the Pin tool passes them: a
 * flag knob as its bare name ("-a", "-d", "-store", "-TRaptorShare",
 * "-cshare", "-filter_no_shared_libs"), a valued knob as its name then its
 * value ("-gshare", "1024").  Writes tm record's arguments to OUT (at most
 * MAX; MAX >= KNOBC always suffices): pointers to string literals or to the
 * values in KNOBV (which must outlive OUT).  Returns how many were written,
 * or TM_ERR_ARG with one line in ERR (ERRLEN bytes, may be 0) naming the knob: an
 * unknown knob, a missing value, a value tm record would refuse (the same
 * checks: predictor and cache sizes, the cache's combination, counts), a
 * knob of another tool (-store without -mode mlstrace, the cache knobs
 * without -mode mlvcfiat), -a/-c/-d without -mode, -d without -a, neither
 * -mode nor -o.
 *
 *   -mode M                 --mode M   (mcftrace mlstrace mcftraptor mlvcfiat)
 *   -a -c C -d -f N         -a -c C -d -f N
 *   -filter_no_shared_libs  --no-shared-libs
 *   -filter_rtn NAME        --filter-rtn NAME
 *   -l N -o NAME -s N       -l N -o NAME -s N
 *   -store                  --store
 *   -gshare N -RAS N -iBTB N  --gshare N --ras N --ibtb N
 *   -TRaptorShare           --shared
 *   -ca N -cfg N -cls N     --assoc N --granularity N --line N
 *   -cs KB                  --cache KBK  (the thesis counts kilobytes)
 *   -cshare                 --cfiat-shared */
int tm_knobs_to_record(int knobc, const char *const *knobv, const char **out, int max, char *err, size_t errlen);

/* The knobs' usage lines (for the Pin tool's -h), ending with a newline. */
const char *tm_knobs_help(void);

#ifdef __cplusplus
}
#endif
#endif
