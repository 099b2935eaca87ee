/* tm — the parameters of the RTL (rtl/tm_top.sv) for a model configuration:
 * the one table from which tm cosim derives the Verilator -G flags, the C
 * macros the testbench is compiled with (-D, through params.h) and the name of
 * the simulator's build directory, and against which the simulator checks
 * the configuration it is given (docs/rtl.md, "tm cosim").
 *
 * TM_RTL_PARAMS(X) expands X(NAME, KIND, VALUE) once per row:
 *   NAME   tm_top's parameter;
 *   KIND   TM_RTL_INT (int unsigned: -GNAME=V), TM_RTL_BIT (bit: -GNAME=1'bV)
 *          or TM_RTL_DERIVED (computed by tm_top from the others: never
 *          overridden, given to the testbench only, not part of the key);
 *   VALUE  an unsigned expression of `c`, the resolved `const tm_model_cfg *`
 *          (tm_model_cfg_resolve) in scope where the table is expanded.
 * Values a configuration does not use (the cache geometry without CFiat, the
 * fahCnt chunks without data tracing) are tm_top's defaults, so that they
 * do not split parameter sets. */
#ifndef TM_RTL_PARAMS_H
#define TM_RTL_PARAMS_H

#include "tm/model.h"
#include "tm/msg.h"

#define TM_RTL_INT 0
#define TM_RTL_BIT 1
#define TM_RTL_DERIVED 2

/* ceil(log2(v)), 0 for v <= 1 ($clog2). */
static inline unsigned tm_rtl_clog2(unsigned v)
{
    unsigned w = 0;
    while (w < 32 && (1ull << w) < v)
        w++;
    return w;
}

#define TM_RTL_CFIAT(c) ((c)->enc.data == TM_DATA_CFIAT)

#define TM_RTL_PARAMS(X)                                                                       \
    X(N, TM_RTL_INT, c->enc.threads)                                                           \
    X(ENC, TM_RTL_INT, (unsigned)c->enc.enc)                                                   \
    X(TS, TM_RTL_BIT, (unsigned)(c->enc.timestamps != 0))                                      \
    X(TS_BITS, TM_RTL_INT, c->ts_bits)                                                         \
    X(SHARED, TM_RTL_BIT, (unsigned)(c->shared != 0))                                          \
    X(GSHARE, TM_RTL_INT, c->pred.gshare)                                                      \
    X(RAS, TM_RTL_INT, c->pred.ras)                                                            \
    X(IBTB, TM_RTL_INT, c->pred.ibtb)                                                          \
    /* TAGE (spec §3.3.1): tm_top's defaults when absent */                                    \
    X(TAGE_BASE, TM_RTL_INT, c->pred.tage.base)                                                \
    X(TAGE_TABLES, TM_RTL_INT, c->pred.tage.base ? c->pred.tage.tables : 1u)                   \
    X(TAGE_ENTRIES, TM_RTL_INT, c->pred.tage.base ? c->pred.tage.entries : 2u)                 \
    X(TAGE_TAG, TM_RTL_INT, c->pred.tage.base ? c->pred.tage.tag : 4u)                         \
    X(TAGE_LMIN, TM_RTL_INT, c->pred.tage.base ? c->pred.tage.lmin : 1u)                       \
    X(TAGE_LMAX, TM_RTL_INT, c->pred.tage.base ? c->pred.tage.lmax : 1u)                       \
    /* ITTAGE (spec §3.3.2), likewise */                                                       \
    X(ITTAGE_BASE, TM_RTL_INT, c->pred.ittage.base)                                            \
    X(ITTAGE_TABLES, TM_RTL_INT, c->pred.ittage.base ? c->pred.ittage.tables : 1u)             \
    X(ITTAGE_ENTRIES, TM_RTL_INT, c->pred.ittage.base ? c->pred.ittage.entries : 2u)           \
    X(ITTAGE_TAG, TM_RTL_INT, c->pred.ittage.base ? c->pred.ittage.tag : 4u)                   \
    X(ITTAGE_LMIN, TM_RTL_INT, c->pred.ittage.base ? c->pred.ittage.lmin : 1u)                 \
    X(ITTAGE_LMAX, TM_RTL_INT, c->pred.ittage.base ? c->pred.ittage.lmax : 1u)                 \
    X(CA, TM_RTL_INT, (unsigned)c->enc.cnt_a)                                                  \
    X(CB, TM_RTL_INT, (unsigned)c->enc.cnt_b)                                                  \
    X(TA, TM_RTL_INT, (unsigned)c->enc.ta_a)                                                   \
    X(TB, TM_RTL_INT, (unsigned)c->enc.ta_b)                                                   \
    X(HA, TM_RTL_INT, (unsigned)c->enc.cc_a)                                                   \
    X(HB, TM_RTL_INT, (unsigned)c->enc.cc_b)                                                   \
    X(BUF_BITS, TM_RTL_INT, c->buffer_bits)                                                    \
    X(PORT_BITS, TM_RTL_INT, c->port_bits)                                                     \
    X(DATA, TM_RTL_INT, (unsigned)c->enc.data)                                                 \
    X(DC_SIZE, TM_RTL_INT, TM_RTL_CFIAT(c) ? c->cache.size : 32768u)                           \
    X(DC_ASSOC, TM_RTL_INT, TM_RTL_CFIAT(c) ? c->cache.assoc : 4u)                             \
    X(DC_LINE, TM_RTL_INT, TM_RTL_CFIAT(c) ? c->cache.line : 32u)                              \
    X(DC_GRAN, TM_RTL_INT, TM_RTL_CFIAT(c) ? c->cache.gran : 4u)                               \
    X(FA, TM_RTL_INT, c->enc.data ? (unsigned)c->enc.fah_a : 3u)                               \
    X(FB, TM_RTL_INT, c->enc.data ? (unsigned)c->enc.fah_b : 2u)                               \
    /* the longest DATA message (tm_top: 1 without data tracing) */                            \
    X(DMAXW, TM_RTL_DERIVED, c->enc.data ? tm_msg_data_max_bits(&c->enc) : 1u)                 \
    /* a message length: $clog2(MAXW + 1), MAXW the longest bundle */                          \
    X(LENW, TM_RTL_DERIVED, tm_rtl_clog2(tm_msg_max_bits(&c->enc) + 1))                        \
    /* MSG_MAX (the longest bundle) and RESERVE of spec §4.6, §4.8 */                          \
    X(MAXW, TM_RTL_DERIVED, tm_msg_max_bits(&c->enc))                                          \
    X(RESERVE, TM_RTL_DERIVED, tm_msg_reserve_bits(&c->enc))                                   \
    /* the cache lines a 64-byte operand covers at most (tm_top's DLMAX) */                    \
    X(DLMAX, TM_RTL_DERIVED,                                                                   \
      ((TM_RTL_CFIAT(c) ? c->cache.line : 32u) + 62u) / (TM_RTL_CFIAT(c) ? c->cache.line : 32u) + 1u)

#ifdef __cplusplus
extern "C" {
#endif

/* One row of the table for a configuration. */
typedef struct tm_rtl_param {
    const char *name; /* tm_top's parameter, "N", "ENC", ... */
    int kind;         /* TM_RTL_INT, TM_RTL_BIT or TM_RTL_DERIVED */
    unsigned value;
} tm_rtl_param;

/* The number of rows of the table. */
size_t tm_rtl_param_count(void);
/* Fills OUT[0 .. tm_rtl_param_count()) with the rows for the resolved
 * configuration C (tm_model_cfg_resolve). */
void tm_rtl_params(const tm_model_cfg *c, tm_rtl_param *out);
/* The parameter set of C as text: KEY, the name of its simulator's build
 * directory (lower-case names and values of the tm_top parameters,
 * "n4-enc2-ts0-..."; the TAGE_* and ITTAGE_* rows only as "-tageB.T.E.W.L.L"
 * / "-ittage..." when present, so that the name stays below the file
 * system's 255 bytes); VC, the -G flags, one per line (a Verilator -f file,
 * after a comment line); H, every row as a C macro TM_RTL_<NAME> (after a
 * comment line).  Any of the three may be NULL.  TM_OK, or TM_ERR_ARG when
 * a buffer is too small. */
int tm_rtl_params_text(const tm_model_cfg *c, char *key, size_t nkey, char *vc, size_t nvc, char *h, size_t nh);

#ifdef __cplusplus
}
#endif
#endif
