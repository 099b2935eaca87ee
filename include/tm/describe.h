/* tm — what `tm config` prints of the manifest (tm/manifest.h): an entry
 * or a resolved configuration in one of the formats of `tm config --format`
 * (opts, threads, stream, tiers, key, vflags, params, sizes, modules, module,
 * json; `tm config --help` says what each holds, derived from
 * tm/rtl_params.h), a tier's names and the list of tiers.  Everything is
 * written to the caller's FILE*; a message goes to the caller's buffer. */
#ifndef TM_DESCRIBE_H
#define TM_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/manifest.h"
#include "tm/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TM_OK if FORMAT is one of the formats; else TM_ERR_ARG with ERR
 * "--format X: allowed opts, threads, ...". */
int tm_describe_format_check(const char *format, char *err, size_t errlen);
/* What FORMAT asks of entry E that E alone gives (THREADS: the thread
 * count, 0 for E's own): 1 after writing it to OUT; 0 when FORMAT asks for
 * E's configuration (tm_mf_entry_cfg, then tm_describe_cfg); TM_ERR_ARG with
 * ERR when FORMAT is not for E's kind, or when E's thread count is taken
 * from the stream ('-') and THREADS is 0. */
int tm_describe_entry(FILE *out, const tm_mf_entry *e, uint32_t threads, const char *format, char *err,
                      size_t errlen);
/* The configuration of the config entry E (its options, tm/modelspec.h) for
 * THREADS: TM_OK; TM_ERR_FORMAT with ERR "FILE:LINE: 'W' is not a model
 * option"; TM_ERR_ARG with ERR about an option or its value. */
int tm_mf_entry_cfg(const tm_mf_entry *e, uint32_t threads, tm_model_cfg *cfg, char *err, size_t errlen);
/* FORMAT (key, vflags, params, sizes, modules or json) of the resolved
 * configuration C to OUT; E: its entry (the json's name, tiers, stream and
 * options), or NULL for a configuration of options alone.  TM_OK;
 * TM_ERR_ARG with ERR when FORMAT needs an entry and E is NULL; TM_ERR_NOMEM
 * with ERR when the RTL parameters do not fit. */
int tm_describe_cfg(FILE *out, const tm_model_cfg *c, const tm_mf_entry *e, const char *format, char *err,
                    size_t errlen);

/* Every tier of M once, in the order of first use, one a line. */
void tm_manifest_list_tiers(FILE *out, const tm_manifest *m);
/* The names of the entries of M in any of TIERS (comma-separated), one a
 * line, in M's order: how many. */
size_t tm_manifest_list_tier(FILE *out, const tm_manifest *m, const char *tiers);

#ifdef __cplusplus
}
#endif
#endif
