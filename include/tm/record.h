/* tm record's library side (record/): what a recording checks before its
 * program runs (the program, the frontend's launcher and tool, the capture
 * stream's magic), the lock of its outputs, and the exit status a finished
 * recording gives.  The library never prints: each call gives its one-line
 * message in the caller's buffer (err, errlen; NULL, 0 allowed), and the
 * command line (tools/tm/cmd_record.c) prints it as "tm record: MESSAGE". */
#ifndef TM_RECORD_H
#define TM_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include "tm/status.h"
#include "tm/tmt.h"

/* NAME as execvp would find it, into PATH: 0, or -1 if there is no such
 * file (a lookup: "not found" is its answer, not a failure). */
int tm_rec_find_program(const char *name, char *path, size_t n);

/* The program PROG can be traced (an x86-64 ELF executable, or a #! script
 * whose interpreter is one): TM_OK; TM_ERR_ARG (no such program, not an
 * executable file: a usage error) or TM_ERR_FORMAT (a program of another
 * kind), with the message. */
int tm_rec_check_program(const char *prog, char *err, size_t errlen);

/* The valgrind launcher NAME (a path, or a name on PATH) into PATH:
 * TM_OK, or TM_ERR_ARG with the message (no such program). */
int tm_rec_valgrind(const char *name, char *path, size_t n, char *err, size_t errlen);

/* The folder of the Valgrind tool tmtrace-amd64-linux (VALGRIND_LIB):
 * $TM_VALGRIND_LIB, else <dir of tm>/../lib/valgrind, into OUT; TM_OK, or
 * TM_ERR_IO with the message (not built). */
int tm_rec_tool_dir(char *out, size_t n, char *err, size_t errlen);

/* The Pin frontend's launcher: OPT (--pin: the launcher, a name on PATH, or
 * a kit folder holding pin), else $PIN_ROOT/pin, into OUT; TM_OK, or
 * TM_ERR_ARG with the message (no usable kit: a usage error). */
int tm_rec_pin_kit(const char *opt, char *out, size_t n, char *err, size_t errlen);
/* The Pin tool: $TM_PIN_TOOL, else <dir of tm>/../lib/pin/tm_pin.so, into
 * OUT; TM_OK, or TM_ERR_IO with the message (not built). */
int tm_rec_pin_tool(char *out, size_t n, char *err, size_t errlen);

/* The description of signal S (strsignal), "?" if there is none. */
const char *tm_rec_signame(int s);

/* One recording per BASE at a time: takes BASE.lock (flock) with *FD_OUT;
 * TM_OK, or TM_ERR_STATE (another tm record holds it) or TM_ERR_IO with the
 * message.  The lock goes with the process, however it ends;
 * tm_rec_unlock removes the file (FD -1: nothing to do). */
int tm_rec_lock(const char *base, int *fd_out, char *err, size_t errlen);
void tm_rec_unlock(const char *base, int fd);

/* A capture stream to read (--capture FILE, "-" standard input): opened
 * into *FD and its first 8 bytes, the magic, read into MAGIC and checked
 * (NAME: FILE as the messages say it).  TM_OK; TM_ERR_ARG (standard input
 * is a terminal: a usage error), TM_ERR_IO or TM_ERR_FORMAT, with the
 * message and nothing left open. */
int tm_rec_capture_open(const char *file, const char *name, uint8_t magic[8], int *fd, char *err, size_t errlen);

/* The exit status of a recording that wrote its outputs: the program's, or
 * why there is less than a whole recording, in MSG (empty when there is
 * nothing to say).  LOG: the frontend's log (BASE.valgrind.log,
 * BASE.pin.log), read when nothing was CAPTURED; FRONTEND the launcher;
 * WS the program's wait status.  With CAPTURE (--capture FILE) WS is the
 * END event's status, and a capture cut short says so of FILE.  Never
 * fails: the result is an exit status, not a tm_status. */
int tm_rec_program_status(const char *log, const char *frontend, const char *prog, int ws, int captured,
                          tmt_ending ending, const char *capture, char *msg, size_t msglen);

#endif
