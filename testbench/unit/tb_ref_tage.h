/* tm — unit testbench of rtl/tm_tage.sv against the C library's TAGE
 * outcome predictor (tm/tage.h): stimulus and checking (C side).  The
 * Verilator glue (tb_tage.cpp) only moves these structs in and out of the
 * model's ports.  Same scheme as the other unit testbenches (tb_ref.h): one
 * config = one parameter set with its own stimulus stream, C reference and
 * PASS/FAIL line. */
#ifndef TM_TB_REF_TAGE_H
#define TM_TB_REF_TAGE_H

#include <stdint.h>
#include "tb_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_tage_io {
    /* inputs for one cycle */
    uint8_t rst_n, clear;
    uint8_t valid[TB_MAXP], ind[TB_MAXP], taken[TB_MAXP];
    uint64_t pc[TB_MAXP], target[TB_MAXP];
    /* outputs of the DUT in that cycle (before the clock edge) */
    uint8_t pred[TB_MAXP];
} tb_tage_io;
typedef struct tb_tage tb_tage;
tb_tage *tb_tage_new(unsigned base, unsigned tables, unsigned entries, unsigned tag, unsigned lmin,
                     unsigned lmax, unsigned ports, uint64_t seed);
void tb_tage_stim(tb_tage *t, tb_tage_io *io);
/* Runs the reference for the cycle of IO and compares; 0 = match. */
int tb_tage_check(tb_tage *t, const tb_tage_io *io);
int tb_tage_finish(tb_tage *t); /* report, free; 1 = failed */

#ifdef __cplusplus
}
#endif
#endif
