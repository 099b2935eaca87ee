/* tm — tm decode's listings, verdict lines and files (decoder/decodeio.c):
 * the message listing of a trace, the OK lines of a replay against the
 * commit stream and of one from the binaries, and a from-binary replay
 * with its files (the module map beside the trace, the compact binary
 * output under a temporary name).  The lines go to the FILE the caller
 * gives; a failure is a tm_status with one line in the caller's buffer. */
#ifndef TM_DECODEIO_H
#define TM_DECODEIO_H

#include <stddef.h>
#include <stdio.h>
#include "tm/decoder.h"
#include "tm/tmt.h"

/* The messages of the trace TF (named PATH in the lines) on OUT: a header
 * line, one line a message ("%10 bit offset  message"), then the count
 * and how the recording and its program ended.  A trace with load values
 * needs the commit stream TMC for the loads' sizes.  TM_OK; TM_ERR_ARG
 * (a usage error) for such a trace without TMC; TM_ERR_IO when a write to
 * OUT failed (*OUT_ERRNO its errno, no message: the caller says it); or an
 * error with "PATH: trace bit N: ..." (OUT flushed first) or the load
 * sizes' own. */
int tm_list_messages(FILE *out, const char *path, const tmt_file *tf, const char *tmc, int *out_errno, char *err,
                     size_t errlen);

/* The end of a verdict line on F: the file's own fields checked
 * (tm_verify_file), and how the recording ended. */
void tm_verify_print_file_check(FILE *f, const tmt_file *tf);
/* tm decode --verify's OK line (with its newline). */
void tm_verify_print_ok(FILE *f, const tmt_file *tf, const tm_verify_result *res);
/* tm decode --from-binary --verify's OK line; SECS the replay's time. */
void tm_frombin_print_ok(FILE *f, const tmt_file *tf, const tm_frombin_result *res, double secs);
/* A from-binary listing's summary line: the trace PATH's threads,
 * instructions, errors, speed and how the recording ended. */
void tm_frombin_print_summary(FILE *f, const char *path, const tmt_file *tf, const tm_frombin_result *res,
                              double secs);

/* The files beside the trace TMT (BASE.tmt, or BASE itself) where
 * *MODULES or *VDSO is NULL: BASE.modules, and BASE.vdso if it exists
 * (else *VDSO stays NULL); MBUF and VBUF (N bytes each) hold the names. */
void tm_frombin_beside(const char *tmt, const char **modules, const char **vdso, char *mbuf, char *vbuf, size_t n);

/* A from-binary replay of TF with O (and, with O->verify, tm_verify_file
 * of O->tmc), the compact binary output BIN (NULL: none; none of INPUTS)
 * written beside it under a temporary name, renamed into place when the
 * replay ended well, with a mismatch, or with a failed text output.
 * Returns TM_OK once the replay ran, its own outcome in *RC (with ERR) and
 * its time in *SECS; or the binary output's error (TM_ERR_ARG: it is an
 * input or a directory, a usage error; TM_ERR_IO). */
int tm_frombin_run(const tmt_file *tf, tm_frombin_opts *o, const char *bin, const char *const *inputs,
                   tm_frombin_result *res, int *rc, double *secs, char *err, size_t errlen);

#endif
