/* tm — the debugger side (docs/spec.md §6), one header for the three APIs:
 *   tm/verify.h     replay a trace against its commit stream (tm_verify,
 *                   tm_verify_file)
 *   tm/loadsizes.h  the operand sizes of reported loads (tm_load_sizes_*)
 *   tm/frombin.h    replay a trace from the program binaries (tm_frombin)
 * The message layer they share is tm/msg.h, the trace file tm/tmt.h. */
#ifndef TM_DECODER_H
#define TM_DECODER_H

#include "tm/frombin.h"
#include "tm/loadsizes.h"
#include "tm/verify.h"

#endif
