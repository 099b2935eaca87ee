/* tm — tm pt's encoder option values as text (include/tm/ptopts.h).
 * Nothing here prints. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tm/parse.h"
#include "tm/ptopts.h"
#include "tm/status.h"

int tm_pt_opts_parse(tm_pt_opts *po, const char *psb, const char *tnt, const char *timing, const char *mtc,
                     char *err, size_t errlen)
{
    memset(po, 0, sizeof *po);
    po->psb_period = 4096;
    po->mtc_shift = 8;
    uint32_t b;
    uint64_t k;
    if (psb && (tm_parse_size(psb, &b) || b < 256 || b > (1u << 30)))
        return tm_errf(TM_ERR_ARG, err, errlen, "--psb-period %s: allowed 256 .. 1G bytes (K, M)", psb);
    if (psb)
        po->psb_period = b;
    if (tnt && strcmp(tnt, "short") && strcmp(tnt, "long"))
        return tm_errf(TM_ERR_ARG, err, errlen, "--tnt %s: allowed short, long", tnt);
    po->tnt_long = tnt && !strcmp(tnt, "long");
    if (timing && tm_pt_timing_parse(timing, &po->timing))
        return tm_errf(TM_ERR_ARG, err, errlen, "--timing %s: allowed a list of tsc, mtc, cyc; all; none", timing);
    if (mtc && (tm_parse_u64(mtc, &k) || k < 1 || k > 24))
        return tm_errf(TM_ERR_ARG, err, errlen, "--mtc-period %s: allowed 1..24 (MTC every 2^K cycles)", mtc);
    if (mtc)
        po->mtc_shift = (unsigned)k;
    return TM_OK;
}
