/* tm — each ISA's own trace standard beside the trace module, on the same
 * execution, in one pass (tm std, docs/standards.md).
 *
 * The commit stream's instruction set chooses the standard: Intel PT for
 * x86-64 (tm/pt.h), ARM ETMv4 for AArch64 (tm/etm4.h), RISC-V E-Trace for
 * RV64 (tm/etrace.h).  One pass over the stream feeds every variant of the
 * standard (its options: PT's timing packets, ETMv4's return stack and
 * timing, E-Trace's efficiency extensions in every combination) and the
 * trace module's configurations (tm/stdcmp.h); each variant's packets are
 * kept per core and, with verify, decoded over the recording's ELF images
 * and compared with the commit stream, instruction by instruction.  The
 * first variant's packets are also written to BASE.T<n>.EXT. */
#ifndef TM_STD_H
#define TM_STD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/stdcmp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_std_opts {
    const char *tmc;        /* the commit stream */
    const char *base;       /* the first variant's files BASE.T<n>.EXT, or NULL */
    const char *modules;    /* the module map (NULL: beside TMC, TMC without .tmc + .modules) */
    const char *vdso;       /* the vdso bytes (NULL: beside TMC if there) */
    int ignore_build_id;
    int verify;             /* decode every variant and compare it with TMC */
    int models;             /* the trace module's rows (tm_stdcmp) */
    void (*progress)(uint64_t records, void *arg); /* about every 2^22 records, or NULL */
    void *progress_arg;
    const char *tm_rows;    /* with models: the trace module's rows, comma-separated (tm_stdcmp_new_some);
                               NULL: every row */
} tm_std_opts;

typedef struct tm_std_result {
    int isa;                /* TM_ISA_* of the stream */
    const char *standard;   /* "Intel PT", "ARM ETMv4", "RISC-V E-Trace" */
    const char *ext;        /* the files' extension: "pt", "etm", "ete" */
    uint32_t threads;       /* thread ids of the stream */
    uint32_t cores;         /* cores that ran */
    uint64_t instructions;  /* retired, all cores */
    uint64_t cycles;        /* last cycle stamp + 1 */
    uint64_t checked;       /* verify: instructions compared, summed over the variants */
    tm_std_row *rows;       /* the standard's variants (nstd), then the trace module's */
    size_t nrows, nstd;
} tm_std_result;

/* The pass.  TM_OK; TM_ERR_MISMATCH when a variant's decoding differs from
 * the stream (ERR names the variant, the core, the instruction and the
 * packet offset; RES is filled); or an error with ERR (the stream's own,
 * an image's, an output's).  tm_std_result_free RES in either case. */
int tm_std_pass(const tm_std_opts *o, tm_std_result *res, char *err, size_t errlen);
void tm_std_result_free(tm_std_result *res);
/* The result as text (the table of tm_std_table, ratios to the first row)
 * and as JSON. */
void tm_std_report_text(FILE *f, const tm_std_result *res, const char *tmc);
void tm_std_report_json(FILE *f, const tm_std_result *res, const char *tmc);

#ifdef __cplusplus
}
#endif
#endif
