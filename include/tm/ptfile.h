/* tm — Intel PT buffers as files BASE.T<n>.pt, one raw PT buffer per core
 * (pt/pt_file.c over std/stdfile.c; tm pt's outputs and inputs,
 * docs/pt.md).  Nothing here prints: a failure is a tm_status with one
 * line in the caller's buffer. */
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
typedef tm_stdfile_files tm_pt_files;
/* TM_OK, or an error naming the file; no file at all is an error
 * ("BASE.T0.pt: no PT buffer BASE.T<n>.pt") unless ALLOW_EMPTY.
 * tm_pt_files_free F in either case. */
int tm_pt_files_load(tm_pt_files *f, const char *base, uint32_t threads, int allow_empty, char *err,
                     size_t errlen);
void tm_pt_files_free(tm_pt_files *f);

/* The files BASE.T<n>.pt decoded with libipt over the image IM: with TMC
 * NULL counted (tm_pt_decode; BLOCK: the block decoder), else compared
 * with the commit stream TMC (tm_pt_verify, with PROGRESS and ARG).
 * THREADS: the thread ids looked for (0: TMC's, or TMC_MAX_THREADS
 * without TMC); ALLOW_EMPTY: no file at all is no error.  *SECS: the
 * decoder's time.  TM_OK, or an error with *DECODING 1 if it is the
 * decoder's (0: reading the files or TMC's header). */
int tm_pt_decode_files(const tm_pt_image *im, const char *base, uint32_t threads, int allow_empty, const char *tmc,
                       int block, void (*progress)(uint64_t records, void *arg), void *arg,
                       tm_pt_decode_result *res, double *secs, int *decoding, char *err, size_t errlen);

/* No output BASE.T<n>.pt of the THREADS cores may be the input IN or the
 * statistics file STATS (NULL: none; issue 35): TM_OK, or TM_ERR_ARG (a
 * usage error) naming the core and the file. */
int tm_pt_outputs_check(const char *base, uint32_t threads, const char *in, const char *stats, char *err,
                        size_t errlen);

/* The pass O (tm_pt_pass; its write callback is set here) with the
 * packets of each core that ran in BASE.T<n>.pt (THREADS: the stream's
 * thread ids), each written under a temporary name (tm/out.h) from its
 * core's first packet and renamed into place at the end; the
 * BASE.T<n>.pt of cores that did not run this time (an earlier run's)
 * removed, so that a decoder sees only these.  RES as tm_pt_pass's
 * (tm_pt_pass_result_free it in either case).  TM_OK; TM_ERR_ARG (an
 * output is a directory: a usage error); or an error ("BASE: name too
 * long" among them). */
int tm_pt_encode_files(tm_pt_pass_opts *o, const char *base, uint32_t threads, tm_pt_pass_result *res, char *err,
                       size_t errlen);

/* The statistics JSON (tm_pt_report_json's arguments) into the output O,
 * renamed into place: TM_OK or TM_ERR_IO naming NAME. */
int tm_pt_stats_write(tm_out *o, const char *name, const tm_pt_pass_result *res, const tm_pt_opts *po,
                      const char *tmc, int image, const tm_pt_decode_result *verify, int verify_ok, char *err,
                      size_t errlen);

#endif
