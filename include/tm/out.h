/* tm — an output file written under a temporary name (common/out.c).  It
 * is written as .NAME.tmp.XXXXXX in its folder (close-on-exec) and renamed
 * into place by tm_out_close only when it is complete, so that an
 * interrupted run never leaves a half-written file under the final name.
 * "-" (standard output, by the caller's choice) and existing devices or
 * FIFOs are written directly.  Nothing here prints: a failure is a
 * tm_status with one line in the caller's buffer (err, errlen; NULL, 0
 * allowed). */
#ifndef TM_OUT_H
#define TM_OUT_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include "tm/status.h"

typedef struct tm_out {
    char path[PATH_MAX];      /* the final name */
    char tmp[PATH_MAX + 32];  /* the name to write now */
    int direct;               /* tmp is path ("-", a device, a FIFO) */
    int active;               /* a temporary exists */
} tm_out;
/* Prepares PATH: TM_OK; TM_ERR_ARG for an output that is one of the files
 * INPUTS (NULL-terminated; same device and inode) or a directory (a usage
 * error); TM_ERR_IO for one that cannot be created (or an empty or too
 * long name). */
int tm_out_open(tm_out *o, const char *path, const char *const *inputs, char *err, size_t errlen);
/* Renames the finished temporary into place: TM_OK, or TM_ERR_IO. */
int tm_out_close(tm_out *o, char *err, size_t errlen);
/* Removes the temporary (an output that failed). */
void tm_out_abort(tm_out *o);
/* MSG with the temporary's name of O replaced by the final one (in place;
 * returns MSG): for the messages of library writers given O->tmp. */
char *tm_out_name(const tm_out *o, char *msg);
/* Removes the temporaries of every output not yet closed (async-signal-safe:
 * for a signal handler). */
void tm_out_cleanup(void);
/* 1 if two names are the same existing file. */
int tm_same_file(const char *a, const char *b);
/* TEXT on F with control characters as C escapes (\n, \t, \r, \xNN), so
 * that it stays one line; MAP: the module map's form (docs/capture.md §6:
 * also the backslash, \\; only \n and \xNN). */
/* S as a JSON string, quoted and escaped. */
void tm_json_str(FILE *f, const char *s);
void tm_put_escaped(FILE *f, const char *text, int map);

#endif
