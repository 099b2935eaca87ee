/* tm — the run scanner shared by the trace-standard encoders (Intel PT,
 * ARM ETMv4, RISC-V E-Trace): inside a commit stream's RUN record (PC,
 * COUNT straight-line instructions, BYTES), the instructions an encoder
 * must report because they leave user mode (system calls, other far
 * transfers).
 *
 * Each distinct run (PC, COUNT) is decoded once, instruction by instruction,
 * over the recording's code (the CODE callback) by the encoder's ISA step
 * (the STEP callback), and the positions found are kept: later records of
 * the same run cost one hash lookup.  The decoded length must be the
 * record's BYTES, on every lookup. */
#ifndef TM_RUNSCAN_H
#define TM_RUNSCAN_H

#include <stddef.h>
#include <stdint.h>
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The code bytes at ADDR (*AVAIL readable), NULL if none: the encoders'
 * code callback (tm_pt_opts.code and the others). */
typedef const uint8_t *(*tm_runscan_code_fn)(void *arg, uint64_t addr, size_t *avail);

/* Decodes the instruction at ADDR, whose bytes are P (AVAIL readable): its
 * length in *LEN; returns 1 if it is one the encoder wants, 0 if not, and
 * a negative number if it cannot be decoded. */
typedef int (*tm_runscan_step_fn)(void *arg, const uint8_t *p, size_t avail, uint64_t addr, unsigned *len);

/* A wanted instruction: the K-th (from 0) of the run, at AT, NEXT the
 * address after it. */
typedef struct tm_runscan_hit {
    uint64_t k, at, next;
} tm_runscan_hit;

/* A run's scan: its N wanted instructions in order (HIT, valid until the
 * next tm_runscan_get) and the address of its last instruction. */
typedef struct tm_runscan_run {
    const tm_runscan_hit *hit;
    uint32_t n;
    uint64_t last;
} tm_runscan_run;

typedef struct tm_runscan tm_runscan;

/* A new scanner over CODE (called with CODE_ARG) with the ISA's STEP
 * (called with STEP_ARG); UNIT names a record's tid in messages ("thread",
 * "hart").  TM_ERR_ARG without CODE or STEP, TM_ERR_NOMEM. */
int tm_runscan_new(tm_runscan_code_fn code, void *code_arg, tm_runscan_step_fn step, void *step_arg,
                   const char *unit, tm_runscan **out, char *err, size_t errlen);
void tm_runscan_free(tm_runscan *s);

/* The scan of the RUN record R into *OUT.  Errors, ERR naming the unit and
 * the run's pc: TM_ERR_FORMAT, no code at an instruction's address ("no
 * code at 0x...") or one that does not decode ("cannot decode the
 * instruction at 0x..."); TM_ERR_MISMATCH, the decoded length is not R's
 * bytes ("... (the wrong binary?)"); TM_ERR_NOMEM.  A run that failed is
 * not kept. */
int tm_runscan_get(tm_runscan *s, const tmc_record *r, tm_runscan_run *out, char *err, size_t errlen);

/* Distinct runs decoded so far. */
size_t tm_runscan_runs(const tm_runscan *s);

#ifdef __cplusplus
}
#endif
#endif
