/* tm command line: one function per subcommand (tools/tm/cmd_*.c). */
#ifndef TM_CMD_H
#define TM_CMD_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/out.h"
#include "tm/parse.h" /* tm_parse_u64 and the other number syntaxes, tm_opt */
#include "tm/sig.h"   /* tm_save_signals, tm_cleanup_on_signal, ... */

/* Each returns the process exit status: 0 success, 1 verification failure
 * or runtime error, 2 usage error (bad option or argument). */
int cmd_dump(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_cosim(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_study(int argc, char **argv);
int cmd_pt(int argc, char **argv);
int cmd_etm4(int argc, char **argv);
int cmd_etrace(int argc, char **argv);
int cmd_std(int argc, char **argv);
int cmd_config(int argc, char **argv);

/* tm --version, tm SUB --version (tools/tm/version.c): the source tree's
 * `git describe --always --dirty` at build time ("unknown" outside a git
 * checkout) and the executable's GNU build-id (hex; 0, or -1 if it has
 * none); tm_print_version prints "tm VERSION (build-id HEX)" and returns 0. */
const char *tm_version(void);
int tm_build_id(char *hex, size_t n);
int tm_print_version(void);

/* Helpers shared by the subcommands (tools/tm/util.c). */
/* Prints "tm SUB: " + formatted text + newline to stderr, with control
 * characters escaped (\n, \xNN) so that the message is one line whatever
 * the file names in it. */
void tm_err(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A usage error (an unknown option, a missing or invalid option value, a
 * wrong number of arguments, options that do not go together): tm_err's
 * line with " (see tm SUB --help)" at its end. */
void tm_usage(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* TEXT and a newline on F, control characters escaped as by tm_err. */
void tm_put_line(FILE *f, const char *text);
/* One option table's command line (tm/opt.h): ARGV's options into ARGS
 * through DEFS, its operands into POS (at most MAXPOS).  The number of
 * operands; -1 after --help (USAGE printed on stdout); -2 after a usage
 * error (one line, "tm SUB: ..."). */
struct tm_optdef;
int tm_cmd_options(const char *sub, int argc, char **argv, const struct tm_optdef *defs, void *args,
                   const char **pos, int maxpos, void (*usage)(FILE *));
/* Progress on stderr for long runs: returns 1 when stderr is a terminal. */
int tm_progress_tty(void);

/* An output file (tm/out.h) as the subcommands open and close it: the
 * line of a failure printed as tm SUB's.  tm_out_begin: 0, or after one
 * line -2 (the output is an input or a directory: a usage error) or -1;
 * tm_out_commit: 0, or -1 after one line. */
int tm_out_begin(const char *sub, tm_out *o, const char *path, const char *const *inputs);
int tm_out_commit(const char *sub, tm_out *o);
/* Flushes standard output: a write error (a full disk) gives one line and
 * status 1; a reader that went away (EPIPE, `| head`) ends quietly with
 * STATUS.  The error is said once: it is cleared, and a later call (main's
 * after a subcommand's own) returns STATUS. */
int tm_finish_stdout(const char *sub, int status);
/* The errno of a failed write to standard output, when the writer knows
 * it (tm_finish_stdout's own flush may have nothing left to write). */
void tm_stdout_errno(int e);
/* 1 once a write to standard output failed (stop producing output). */
int tm_stdout_failed(void);
#endif
