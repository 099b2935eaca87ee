/* tm command line: one function per subcommand (tools/tm/cmd_*.c). */
#ifndef TM_CMD_H
#define TM_CMD_H

#include <stdint.h>

/* Each returns the process exit status: 0 success, 1 verification failure
 * or runtime error, 2 usage error (bad option or argument). */
int cmd_dump(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_cosim(int argc, char **argv);
int cmd_record(int argc, char **argv);

/* Helpers shared by the subcommands (tools/tm/util.c). */
/* Prints "tm SUB: " + formatted text + newline to stderr. */
void tm_err(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses an unsigned decimal (or 0x hex) integer with optional K/M/G suffix
 * (powers of 1024 for K/M/G when SUFFIX_BINARY, else 1000).  Returns 0 on
 * success, -1 if S is not a number or overflows. */
int tm_parse_u64(const char *s, uint64_t *out);
/* Option matching for "--name VALUE" and "--name=VALUE": if ARGV[*I] is
 * option NAME, stores its value in *VAL (advancing *I past a separate value)
 * and returns 1; returns -1 if the value is missing; 0 if not this option. */
int tm_opt(int argc, char **argv, int *i, const char *name, const char **val);
/* Parses "A,B" chunk sizes. Returns 0 on success. */
int tm_parse_pair(const char *s, unsigned *a, unsigned *b);
/* Progress on stderr for long runs: returns 1 when stderr is a terminal. */
int tm_progress_tty(void);
#endif
