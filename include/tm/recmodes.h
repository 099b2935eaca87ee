/* tm record --mode: the descriptor outputs of the thesis's four Pin tools
 * (seeds/000 ch. 4; docs/guide.md "tm record --mode: the thesis tools'
 * descriptor outputs" gives every byte and line).
 *
 *   mcftrace    one descriptor per control-transfer instruction (Figs. 4.2-4.3)
 *   mlstrace    one per load, and per store with --store (Figs. 4.13-4.14)
 *   mcftraptor  one per accepted BRANCH / EXC message of the model (Fig. 4.22)
 *   mlvcfiat    one per accepted DATA message of the model (Figs. 4.36, 4.38)
 *
 * Each mode writes a descriptor file (binary, or ASCII with -a; optionally
 * piped through a compressor) and, at close, a statistics file in the
 * thesis's format followed by lines starting "tm: " with what the thesis's
 * statistics do not show.
 *
 * With -a -d each ASCII descriptor ends with the disassembly of its
 * instruction, as the thesis's -d does (Figs. 4.2, 4.8, 4.13, 4.22, 4.36):
 * the branch (mcftrace), the load or store (mlstrace), the mispredicted
 * branch or the excepting instruction (mcftraptor), the load (mlvcfiat).
 *
 * Use from tm record (its options: tm_recmode_opt below):
 *   tm_recmode_cfg c = {0};                       the options fill c
 *   tm_recmode_open(&c, &model_cfg, &m, err, n)   m is NULL when no --mode was given
 *   if (m) tm_model_set_hook(model, tm_recmode_hook, m);
 *   per module of the capture (before the records that run in it):
 *               tm_recmode_module(m, mod) (where -d finds the code)
 *   per record: tm_recmode_record(m, r) (and tm_model_put); stop tracing when
 *               tm_recmode_full(m) (stop feeding the model too, or its
 *               statistics cover more than the descriptors)
 *   tm_recmode_set_skipped(m, n) any time before close
 *   after tm_model_finish: tm_recmode_close(m, model, err, n), then no more
 *               hook calls (tm_model_free, or set the hook to NULL)
 * Every function accepts m == NULL and then does nothing.
 *
 * Errors as everywhere in libtm (docs/architecture.md): the fallible calls
 * return TM_OK or a negative tm_status (TM_ERR_ARG: an option or a value
 * the descriptors cannot hold; TM_ERR_NOMEM; TM_ERR_IO: a file, the
 * compressor); the words are one line, in the caller's buffer (open,
 * close) or kept in the handle (tm_recmode_error). */
#ifndef TM_RECMODES_H
#define TM_RECMODES_H

#include <stddef.h>
#include <stdint.h>
#include "tm/capture.h"
#include "tm/model.h"
#include "tm/msg.h"
#include "tm/status.h"
#include "tm/tmc.h"

typedef struct tm_recmode tm_recmode;

typedef struct tm_recmode_cfg {
    const char *mode;      /* "mcftrace" | "mlstrace" | "mcftraptor" | "mlvcfiat" (any case); NULL = none */
    int ascii;             /* -a: ASCII descriptors (default binary) */
    const char *compress;  /* -c: NULL or "gzip" "bzip2" "pigz" "pbzip2" "zstd" */
    const char *name;      /* base name (tm record's -o BASE); NULL = the thesis's
                              time-stamped default "<Tool>.outY_M_D_h.m.s" */
    int store;             /* --store: mlstrace also writes store descriptors */
    uint64_t size_limit;   /* -f N: N MB (N x 2^20 bytes) of uncompressed
                              descriptors; 0 = no limit */
    int disasm;            /* -d: each ASCII descriptor ends with its
                              instruction's disassembly (needs -a) */
} tm_recmode_cfg;

/* 1 if MODE names one of the four modes (any case); 1 if NAME is one of the
 * compressors. */
int tm_recmode_known(const char *mode);
int tm_recmode_compressor_known(const char *name);
/* tm record's option NAME (--mode, -a, -c, -d, -f, --store; V unused
 * for the flags) with its value V into C (recmodes/recmodeopt.c): TM_OK,
 * or TM_ERR_ARG with the message (an unknown mode or compressor, -f 0 or
 * not a whole number of megabytes; V NULL: the value is missing). */
int tm_recmode_opt(tm_recmode_cfg *c, const char *name, const char *v, char *err, size_t errlen);

/* What tm record must provide: MEM records (mlstrace, mlvcfiat: run the
 * frontend with memory operands); the model with CFiat data tracing
 * (mlvcfiat: --cfiat).  mcftraptor needs a predicting encoding (tr_b or
 * tr_e; tm_recmode_open refuses nx_b). */
int tm_recmode_needs_mem(const tm_recmode_cfg *c);
int tm_recmode_needs_cfiat(const tm_recmode_cfg *c);

/* Checks C, creates the descriptor file (NAME.txt with -a, else NAME.bin,
 * plus .gz/.bz2/.zst when compressed) and the statistics file
 * (NAME.Statistics), starts the compressor.  MCFG is the model's resolved
 * configuration (may be NULL for mcftrace and mlstrace; it gives the
 * threads).  With no mode and no mode option: *out = NULL and TM_OK.  On
 * error: TM_ERR_ARG (the options), TM_ERR_NOMEM or TM_ERR_IO (a file, the
 * compressor) with one line in ERR, *out NULL, nothing left behind. */
int tm_recmode_open(const tm_recmode_cfg *c, const tm_model_cfg *mcfg, tm_recmode **out, char *err, size_t errlen);
/* Abandons M: its files are removed (they are written under temporary
 * names and renamed into place only by a successful tm_recmode_close). */
void tm_recmode_abort(tm_recmode *m);

/* A module of the program as the capture reports it (tm/capture.h: the
 * address of file offset 0 and the file, or the vdso's bytes): with -d the
 * instructions' bytes come from its executable segments (the file stays
 * mapped until close; a module at the same addresses as an earlier one
 * replaces it there).  A file that cannot be read, or whose GNU build-id is
 * not the module's, gives no bytes: its instructions' disassembly is
 * "(unknown)" (counted on a "tm:" line of the statistics).  Without -d:
 * nothing.  TM_OK, or TM_ERR_NOMEM (tm_recmode_error), or an earlier
 * error's status. */
int tm_recmode_module(tm_recmode *m, const tm_cap_module *mod);

/* Every commit-stream record, in order (MEM records carry in r->pc the
 * address of their instruction; 0 = a write by the system, never traced).
 * TM_OK, or the status of the first error: TM_ERR_IO (write failure, the
 * compressor gone), TM_ERR_ARG (a thread id above 255 in a binary file, a
 * count above 2^32-1 in a 4-byte binary field, a message the hook cannot
 * take), TM_ERR_NOMEM; tm_recmode_error() tells; errors are sticky. */
int tm_recmode_record(tm_recmode *m, const tmc_record *r);

/* The model's message hook: tm_model_set_hook(model, tm_recmode_hook, m).
 * Only accepted messages give descriptors; dropped ones are counted.  With
 * -d a message's instruction is the record of its thread and cycle (the
 * group's branch or exception for BRANCH and EXC, its load for DATA): the
 * hook may come before or after tm_recmode_record of that record; a
 * descriptor waits for it until a later record of the thread (then its
 * disassembly is "(unknown)"). */
void tm_recmode_hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *msg, unsigned bits, int accepted);

/* 1 once the -f limit stopped the descriptors (the descriptor that would
 * have passed it is not written; nothing after it is written or counted). */
int tm_recmode_full(const tm_recmode *m);

/* Instructions tm record skipped before tracing (-s): the statistics'
 * "Skipped N instructions". */
void tm_recmode_set_skipped(tm_recmode *m, uint64_t n);

/* The descriptor and statistics file names (valid until close). */
const char *tm_recmode_path(const tm_recmode *m);
const char *tm_recmode_stats_path(const tm_recmode *m);
/* The first error ("" if none). */
const char *tm_recmode_error(const tm_recmode *m);

/* Flushes the descriptors, waits for the compressor, writes the statistics
 * file (MODEL gives the prediction and cache statistics of mcftraptor and
 * mlvcfiat; may be NULL for mcftrace and mlstrace) and frees M.  TM_OK, or
 * the first error's status with its line in ERR (M is freed either way). */
int tm_recmode_close(tm_recmode *m, const tm_model *model, char *err, size_t errlen);

#endif
