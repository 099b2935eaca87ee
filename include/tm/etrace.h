/* tm — RISC-V Efficient Trace (E-Trace v2.0) branch trace on the same
 * executions (docs/standards.md).
 *
 * DRAFT interface (issue 38): the E-Trace helper owns this header and may
 * add to it; the calls below are what tm std and the side-by-side pass use.
 *
 * The encoder turns a RISC-V commit stream into the te_inst (and support)
 * packets each hart's E-Trace encoder would send, in the spec's compressed
 * encapsulation, one stream per hart; the decoder is the spec's decoder
 * algorithm over the recording's ELF images, compared with the commit
 * stream.  Options: the efficiency extensions (implicit return, branch
 * prediction, jump target cache) in every combination. */
#ifndef TM_ETRACE_H
#define TM_ETRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_et_opts {
    int implicit_return;   /* returns to where the call stack says are not reported */
    unsigned bp_log2;      /* branch predictor of 2^bp_log2 entries; 0: off */
    unsigned jtc_log2;     /* jump target cache of 2^jtc_log2 entries; 0: off */
    /* The code bytes at ADDR (*AVAIL readable); NULL: none. */
    const uint8_t *(*code)(void *arg, uint64_t addr, size_t *avail);
    void *code_arg;
    /* Receives hart TID's bytes, in order; nonzero stops the encoder with TM_ERR_IO. */
    int (*write)(void *arg, uint32_t tid, const uint8_t *p, size_t n);
    void *write_arg;
} tm_et_opts;

typedef struct tm_et_stats {
    uint64_t total_bytes;
    uint64_t instructions;
    uint64_t threads;
    uint64_t cycles;
    /* the helper adds per-format counts and bytes */
} tm_et_stats;

/* Predictor and cache state per hart the decoder mirrors, in bits (as
 * docs/spec.md §3.3.3 counts the trace module's). */
uint64_t tm_et_storage_bits(const tm_et_opts *o);

typedef struct tm_et_encoder tm_et_encoder;

int tm_et_encoder_new(const tm_et_opts *o, uint32_t threads, tm_et_encoder **out, char *err, size_t errlen);
int tm_et_encoder_put(tm_et_encoder *e, const tmc_record *r, char *err, size_t errlen);
int tm_et_encoder_finish(tm_et_encoder *e, char *err, size_t errlen);
const tm_et_stats *tm_et_encoder_stats(const tm_et_encoder *e);
uint64_t tm_et_encoder_thread_bytes(const tm_et_encoder *e, uint32_t tid);
void tm_et_encoder_free(tm_et_encoder *e);

#ifdef __cplusplus
}
#endif
#endif
