/* tm — the number syntaxes of the command line's option values, and the
 * older option matching (common/parse.c).  Each number parser returns 0,
 * or -1 if the text is not such a number (or it overflows); nothing is
 * printed. */
#ifndef TM_PARSE_H
#define TM_PARSE_H

#include <stdint.h>

/* Parses an unsigned decimal integer (digits only: no sign, no 0x, no
 * blanks). */
int tm_parse_u64(const char *s, uint64_t *out);
/* The same with an optional suffix k/K, m/M, g/G = 10^3, 10^6, 10^9: for
 * the options whose help says so (instruction counts). */
int tm_parse_count(const char *s, uint64_t *out);
/* A size in bytes, decimal, with K or M (KiB, MiB), at most 2^32 - 1. */
int tm_parse_size(const char *v, uint32_t *out);
/* "A,B" chunk sizes (decimal, each at most 1000). */
int tm_parse_pair(const char *s, unsigned *a, unsigned *b);

/* The older option matching, for "--name VALUE" and "--name=VALUE" (the
 * option parser proper is tm/opt.h): if ARGV[*I] is option NAME, stores
 * its value in *VAL (advancing *I past a separate value) and returns 1;
 * returns -1 if the value is missing; 0 if not this option. */
int tm_opt(int argc, char **argv, int *i, const char *name, const char **val);

#endif
