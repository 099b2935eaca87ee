/* tm — unit testbench of rtl/tm_ittage.sv against cmodel/ittage.c (C side):
 * stimulus and the bit-exact comparison, as tb_ref.h for the other
 * predictors (uses tb_rand and tb_report from ref_common.c). */
#ifndef TM_TB_REF_ITTAGE_H
#define TM_TB_REF_ITTAGE_H

#include <stdint.h>
#include "tb_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tb_ittage_io {
    /* inputs for one cycle */
    uint8_t rst_n, clear;
    uint8_t valid[TB_MAXP], cond[TB_MAXP], taken[TB_MAXP];
    uint64_t pc[TB_MAXP], target[TB_MAXP];
    /* outputs of the DUT in that cycle (before the clock edge) */
    uint8_t hit[TB_MAXP];
    uint64_t pred[TB_MAXP];
} tb_ittage_io;
typedef struct tb_ittage tb_ittage;
tb_ittage *tb_ittage_new(unsigned base, unsigned tables, unsigned entries, unsigned tag,
                         unsigned lmin, unsigned lmax, unsigned ports, uint64_t seed);
void tb_ittage_stim(tb_ittage *t, tb_ittage_io *io);
/* Runs the reference for the cycle of IO and compares; 0 = match. */
int tb_ittage_check(tb_ittage *t, const tb_ittage_io *io);
int tb_ittage_finish(tb_ittage *t); /* report, free; 1 = failed */

#ifdef __cplusplus
}
#endif
#endif
