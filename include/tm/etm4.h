/* tm — ARM ETMv4 instruction trace on the same executions (docs/standards.md).
 *
 * DRAFT interface (issue 38): the ETMv4 helper owns this header and may add
 * to it; the calls below are what tm std and the side-by-side pass use.
 *
 * The encoder turns an AArch64 commit stream into the byte stream each
 * core's ETMv4 trace unit would have written for that execution (ARM IHI
 * 0064, ETMv4 architecture specification): one raw ETMv4 stream per core
 * (no CoreSight formatter frames), user-only tracing.  The decoder side
 * decodes those streams with OpenCSD's full ETMv4 decoder over the
 * recording's ELF images and compares the instructions with the commit
 * stream. */
#ifndef TM_ETM4_H
#define TM_ETM4_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_etm4_opts {
    uint32_t sync_period;  /* bytes of a core's stream between A-sync + trace info (0: 4096) */
    int return_stack;      /* TRCCONFIGR.RS: returns the return stack predicts carry no address */
    int timestamps;        /* TRCCONFIGR.TS: timestamp packets (from the commit stream's cycles) */
    int cycle_counts;      /* TRCCONFIGR.CCI: cycle counts */
    /* The code bytes at ADDR (*AVAIL readable), as tm_pt_opts.code; NULL: none. */
    const uint8_t *(*code)(void *arg, uint64_t addr, size_t *avail);
    void *code_arg;
    /* Receives core TID's bytes, in order; nonzero stops the encoder with TM_ERR_IO. */
    int (*write)(void *arg, uint32_t tid, const uint8_t *p, size_t n);
    void *write_arg;
} tm_etm4_opts;

typedef struct tm_etm4_stats {
    uint64_t total_bytes;
    uint64_t instructions;     /* retired, all cores */
    uint64_t threads;          /* cores that ran */
    uint64_t cycles;           /* last cycle stamp + 1 */
    /* the helper adds per-packet-kind counts and bytes */
} tm_etm4_stats;

typedef struct tm_etm4_encoder tm_etm4_encoder;

int tm_etm4_encoder_new(const tm_etm4_opts *o, uint32_t threads, tm_etm4_encoder **out, char *err, size_t errlen);
int tm_etm4_encoder_put(tm_etm4_encoder *e, const tmc_record *r, char *err, size_t errlen);
int tm_etm4_encoder_finish(tm_etm4_encoder *e, char *err, size_t errlen);
const tm_etm4_stats *tm_etm4_encoder_stats(const tm_etm4_encoder *e);
uint64_t tm_etm4_encoder_thread_bytes(const tm_etm4_encoder *e, uint32_t tid);
void tm_etm4_encoder_free(tm_etm4_encoder *e);

#ifdef __cplusplus
}
#endif
#endif
