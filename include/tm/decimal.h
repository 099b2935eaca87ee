/* tm — unsigned decimal numbers as the options write them (common/decimal.c):
 * digits only (no sign, no 0x, no blanks), optionally followed by k/K, m/M
 * or g/G for 10^3, 10^6, 10^9 (instruction counts). */
#ifndef TM_DECIMAL_H
#define TM_DECIMAL_H

#include <stdint.h>
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* S into *OUT (SUFFIXES: k/K, m/M, g/G allowed): TM_OK, or TM_ERR_ARG if S
 * is not such a number or overflows 64 bits. */
int tm_decimal(const char *s, int suffixes, uint64_t *out);

#ifdef __cplusplus
}
#endif
#endif
