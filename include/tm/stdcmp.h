/* tm — the trace module beside an ISA's own trace standard, in the same
 * pass over a commit stream (docs/standards.md).
 *
 * A standard's encoder (Intel PT, tm/pt.h; ARM ETMv4, tm/etm4.h; RISC-V
 * E-Trace, tm/etrace.h) is fed the records of a commit stream; the same
 * records go to a tm_stdcmp, which runs the trace module's configurations
 * (tm_sweep) with a buffer and port that drop nothing: every encoding
 * (nx_b, which predicts nothing; tr_b, tr_e, tr_a with the paper's presets
 * small, medium and large), and tr_e and tr_a with the TAGE-class presets
 * tage-s, tage-m and tage-l.
 * Each becomes a tm_std_row beside the standard's own rows, in bits of
 * every message, with its predictor storage (docs/spec.md §3.3.3). */
#ifndef TM_STDCMP_H
#define TM_STDCMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One row of a side-by-side table: a standard with its options, or a
 * trace-module configuration. */
typedef struct tm_std_row {
    char name[48];          /* "ETMv4", "ETMv4+rs", "E-Trace ir bp64 jtc16", "tr_e-large", "tage-l+tr_a" */
    char kind[16];          /* "standard" or "tm" */
    double bits;            /* bits of every packet or message (the demand) */
    uint64_t dropped;       /* messages the trace module dropped (0: lossless; a standard: 0) */
    uint64_t storage_bits;  /* predictor or cache state per core the debugger mirrors (0: none) */
    int verified;           /* 1 replayed exactly, 0 failed, -1 not checked (the trace module's rows: the
                               model's replay is tm decode --verify's, not run here) */
} tm_std_row;

typedef struct tm_stdcmp tm_stdcmp;

/* The trace module's configurations for a stream of THREADS thread ids of
 * which CORES ran (the Ti field has floor(log2 CORES) bits).  TM_OK, or an
 * error with ERR. */
int tm_stdcmp_new(uint32_t threads, uint32_t cores, tm_stdcmp **out, char *err, size_t errlen);
/* The same with only the rows named in SOME, comma-separated ("nx_b,
 * tr_e-large,tage-l+tr_a"; NULL: every row); a name that is no row's is
 * TM_ERR_ARG, ERR naming it and the rows there are. */
int tm_stdcmp_new_some(uint32_t threads, uint32_t cores, const char *some, tm_stdcmp **out, char *err,
                       size_t errlen);
/* The stream's instruction set (tmc_reader_isa), before any record. */
int tm_stdcmp_set_isa(tm_stdcmp *c, int isa);
/* One record, in the stream's order (every type: the model takes what it
 * needs). */
int tm_stdcmp_put(tm_stdcmp *c, const tmc_record *r, char *err, size_t errlen);
int tm_stdcmp_finish(tm_stdcmp *c, char *err, size_t errlen);
/* The rows (tm_stdcmp_nrows of them; those chosen), in a fixed order: "nx_b", then
 * tr_b, tr_e, tr_a with small, medium, large ("ENC-PRESET"), then
 * "tage-X+tr_e" and "tage-X+tr_a" for tage-s, tage-m, tage-l. */
size_t tm_stdcmp_nrows(const tm_stdcmp *c);
void tm_stdcmp_rows(const tm_stdcmp *c, tm_std_row *rows);
/* Instructions retired and cycles (last cycle stamp + 1) of the stream, as
 * the model counted them. */
uint64_t tm_stdcmp_instructions(const tm_stdcmp *c);
uint64_t tm_stdcmp_cycles(const tm_stdcmp *c);
void tm_stdcmp_free(tm_stdcmp *c);

/* The number of cores that ran in TMC (thread ids are given in order of
 * first entry; one more than the highest START), or THREADS if the stream
 * cannot be read. */
uint32_t tm_stdcmp_cores(const char *tmc, uint32_t threads);

/* The table: one line per row with bits per instruction and per cycle and
 * the ratio to row REF (bits of REF / bits of the row), the losses beside a
 * lossy row, the storage and the verdict. */
void tm_std_table(FILE *f, const tm_std_row *rows, size_t n, size_t ref, uint64_t instructions, uint64_t cycles);
/* The rows as a JSON array (no trailing newline). */
void tm_std_rows_json(FILE *f, const tm_std_row *rows, size_t n, uint64_t instructions, uint64_t cycles);

#ifdef __cplusplus
}
#endif
#endif
