/* tm — trace file (.tmt): the port bits plus the configuration that produced
 * them, so that decoding needs no options (docs/spec.md §5). */
#ifndef TM_TMT_H
#define TM_TMT_H

#include <stdint.h>
#include "tm/model.h"
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TMT_VERSION 1u
#define TMT_HEADER_BYTES 64u
#define TMT_TRAILER_BYTES 24u

typedef struct tmt_file {
    tm_model_cfg cfg;   /* resolved configuration */
    uint8_t *data;      /* trace bytes */
    uint64_t bits;
    uint64_t cycles;
    /* Instructions each thread retired in the recording (gaps included),
     * cfg.enc.threads entries, from the trailer; NULL if the file does not
     * say (then a replay has no bound from it). */
    uint64_t *thread_insns;
} tmt_file;

/* Writes PATH ("-" = stdout).  ERR receives one line on failure. */
int tmt_write(const char *path, const tm_model_cfg *cfg, const tm_bitbuf *bits,
              uint64_t cycles, char *err, unsigned long errlen);
/* Reads and validates PATH.  ERR receives "FILE: offset N: what". */
int tmt_read(const char *path, tmt_file *out, char *err, unsigned long errlen);
void tmt_free(tmt_file *f);

#ifdef __cplusplus
}
#endif
#endif
