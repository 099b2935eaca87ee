/* tm — the manifest of named configurations (rtl/configs.txt, docs/testing.md):
 * every configuration that a test tier, the RTL lint, the co-simulation
 * regressions, make gates or a study iterates, listed once, with the tiers
 * it belongs to.
 *
 * The file is text, one entry a line (a line ending in a backslash goes on
 * on the next one; '#' starts a comment):
 *
 *   config NAME TIERS N STREAM OPTION...
 *       a trace-module configuration given by its `tm model` options, for N
 *       threads ('-': the thread count of the stream it runs on), STREAM
 *       the commit stream a co-simulation runs it on ('-': none named);
 *   module NAME TIERS MODULE PARAM=VALUE...
 *       one RTL module alone with its parameters (the unit lint, make gates).
 *
 * TIERS is a comma-separated list of tier names.  A word of N, STREAM, the
 * options or the parameters may hold groups {a,b,...}: the line stands for
 * every combination of one choice per group (the first group varies
 * slowest), each named NAME-c1-c2... from the choices without their leading
 * dashes ("n" before a choice of N; an empty choice adds nothing and drops a
 * word that it leaves empty).  Names are unique. */
#ifndef TM_MANIFEST_H
#define TM_MANIFEST_H

#include <stddef.h>
#include <stdint.h>
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tm_mf_kind { TM_MF_CONFIG = 0, TM_MF_MODULE = 1 } tm_mf_kind;

typedef struct tm_mf_entry {
    const char *name;
    tm_mf_kind kind;
    const char *tiers;   /* "lint,cosim-quick" */
    uint32_t threads;    /* config: N; 0 for '-' */
    const char *stream;  /* config: the stream kind, or "-" */
    const char *module;  /* module: the RTL module */
    int argc;            /* config: the options; module: PARAM=VALUE words */
    char **argv;
    const char *file;    /* where it was written */
    unsigned line;
} tm_mf_entry;

typedef struct tm_manifest tm_manifest;

/* Reads and expands PATH.  On error ERR gets one line "PATH:LINE: what"
 * and the status is TM_ERR_IO or TM_ERR_FORMAT. */
int tm_manifest_load(const char *path, tm_manifest **out, char *err, size_t errlen);
void tm_manifest_free(tm_manifest *m);
size_t tm_manifest_count(const tm_manifest *m);
/* The entries in the order of the file (expanded lines in place). */
const tm_mf_entry *tm_manifest_entry(const tm_manifest *m, size_t i);
/* The entry named NAME, or NULL. */
const tm_mf_entry *tm_manifest_find(const tm_manifest *m, const char *name);
/* 1 if the entry belongs to one of TIERS (comma-separated). */
int tm_mf_in_tiers(const tm_mf_entry *e, const char *tiers);
/* The source tree of this executable, where the manifest (rtl/configs.txt)
 * and the RTL are: the nearest of the 6 folders above the executable
 * (/proc/self/exe) that holds rtl/tm_top.sv, into ROOT.  TM_OK, or
 * TM_ERR_IO if there is none (or it does not fit in N bytes). */
int tm_mf_root(char *root, size_t n);

#ifdef __cplusplus
}
#endif
#endif
