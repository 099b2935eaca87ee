/* tm — Intel PT buffers as files BASE.T<n>.pt, one raw PT buffer per core
 * (pt/pt_file.c; tm pt's outputs and inputs, docs/pt.md).  Nothing here
 * prints: a failure is a tm_status with one line in the caller's buffer. */
#ifndef TM_PTFILE_H
#define TM_PTFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/out.h"
#include "tm/pt.h"

/* BASE.T<TID>.pt into BUF: 0, or -1 if it does not fit. */
int tm_pt_file_name(char *buf, size_t n, const char *base, uint32_t tid);

/* The module map and vdso beside SRC (SRC without .tmc + .modules, .vdso),
 * unless given (MODULES, VDSO: NULL for the default; the default vdso only
 * if it exists), loaded with tm_pt_image_load.  TM_OK; TM_ERR_ARG for a
 * name too long; TM_ERR_IO without a module map ("SRC: no module map
 * ..."); or tm_pt_image_load's error. */
int tm_pt_image_beside(const char *src, const char *modules, const char *vdso, int ignore_build_id,
                       tm_pt_image **im, char *err, size_t errlen);

/* The files BASE.T<n>.pt of thread ids 0 .. THREADS-1 that exist, read
 * whole, in thread order. */
typedef struct tm_pt_files {
    tm_pt_buffer *b;
    size_t n;
} tm_pt_files;
/* TM_OK, or an error naming the file; no file at all is an error
 * ("BASE.T0.pt: no PT buffer BASE.T<n>.pt") unless ALLOW_EMPTY.
 * tm_pt_files_free F in either case. */
int tm_pt_files_load(tm_pt_files *f, const char *base, uint32_t threads, int allow_empty, char *err,
                     size_t errlen);
void tm_pt_files_free(tm_pt_files *f);

/* The encoder's outputs BASE.T<n>.pt, each opened at its core's first
 * packet under a temporary name (tm/out.h). */
typedef struct tm_pt_writer {
    const char *base;
    uint32_t threads;
    tm_out *outs;
    FILE **f;
    int failed;      /* the tm_status of the first failed write (TM_ERR_ARG: an output is a directory) */
    char err[1024];  /* and its message */
} tm_pt_writer;
/* For THREADS thread ids: TM_OK or TM_ERR_NOMEM ("out of memory"). */
int tm_pt_writer_init(tm_pt_writer *w, const char *base, uint32_t threads, char *err, size_t errlen);
/* tm_pt_opts.write (ARG = the writer): 0, or -1 after w->failed is set. */
int tm_pt_writer_write(void *arg, uint32_t tid, const uint8_t *p, size_t n);
/* The outputs closed and renamed into place; the BASE.T<n>.pt of cores that
 * did not run this time (an earlier run's) removed, so that a decoder sees
 * only these: TM_OK or TM_ERR_IO. */
int tm_pt_writer_finish(tm_pt_writer *w, char *err, size_t errlen);
/* Closes and removes what was not finished; frees. */
void tm_pt_writer_free(tm_pt_writer *w);

/* The statistics JSON (tm_pt_report_json's arguments) into the output O,
 * renamed into place: TM_OK or TM_ERR_IO naming NAME. */
int tm_pt_stats_write(tm_out *o, const char *name, const tm_pt_pass_result *res, const tm_pt_opts *po,
                      const char *tmc, int image, const tm_pt_decode_result *verify, int verify_ok, char *err,
                      size_t errlen);

#endif
