/* tm — a commit stream as text (`tm dump`): one line per record, each
 * thread's instruction flow without cycles and groups (`tm dump --flow`,
 * docs/guide.md), and the stream's totals (`tm dump --count`).  Every line
 * goes to the caller's FILE*; nothing here reports errors (the caller checks
 * ferror on its stream). */
#ifndef TM_TMCPRINT_H
#define TM_TMCPRINT_H

#include <stdint.h>
#include <stdio.h>
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One line for R ("c=CYCLE t=TID RUN n=..", "MODULE addr=..", "END count=..").
 * A MODULE path's backslash, blanks and bytes that are not printable ASCII
 * are written \xNN, so that a line stays one line. */
void tmc_print_record(FILE *out, const tmc_record *r);

/* What tmc_print_stream writes of a stream. */
enum {
    TMC_PRINT_RECORDS = 0, /* a header line "# tmc vV threads=N", then tmc_print_record's lines */
    TMC_PRINT_FLOW = 1,    /* the header with " flow", then each thread's instruction flow without the
                            * cycles and the grouping: T<tid> run PC N (N instructions from PC,
                            * straight), T<tid> branch PC CLASS T|N TARGET, T<tid> load|store PC+K SIZE
                            * VALUE @ADDR, T<tid> exc PC HANDLER, T<tid> start PC [trace-on], T<tid>
                            * exit [trace-off]; module ADDR PATH; cut ... and program ... lines */
    TMC_PRINT_COUNTS = 2   /* only the totals (tmc_count_stream, tmc_print_counts) */
};
/* The rest of R to OUT as MODE asks, up to its end or the first write error
 * on OUT (ferror(OUT), errno as the write left it): the last result of
 * tmc_reader_next (0 at the end; a negative status, tmc_reader_error's
 * message, at a bad record), or TM_ERR_NOMEM. */
int tmc_print_stream(FILE *out, tmc_reader *r, int mode);

/* The totals of a stream. */
typedef struct tmc_counts {
    uint64_t records, instructions, branches, cls[TMC_NCLASSES];
    uint64_t exceptions, loads, stores, modules, started, cycles;
    unsigned cut, cut_signal; /* the ENDING record's reason and code */
} tmc_counts;
/* K zeroed, then reads the whole of R, counting, nothing else (the parse-speed baseline of
 * `make bench`): tmc_reader_next's last result (0 at the clean end, or a
 * negative status with tmc_reader_error). */
int tmc_count_stream(tmc_reader *r, tmc_counts *k);
/* The totals K of a stream of THREADS threads, one per line ("records: N",
 * "instructions: N", ...). */
void tmc_print_counts(FILE *out, const tmc_counts *k, uint32_t threads);

#ifdef __cplusplus
}
#endif
#endif
