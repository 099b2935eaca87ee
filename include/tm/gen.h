/* tm — seeded synthetic commit streams (`tm gen`).
 *
 * A generated stream is the execution of a random but static program (the same
 * pc always holds the same instruction) by N threads interleaved in time, with
 * loops, nested calls, deep recursion, indirect calls and switch-like indirect
 * jumps, exceptions and, optionally, memory operands.  Same configuration and
 * seed, same bytes. */
#ifndef TM_GEN_H
#define TM_GEN_H

#include <stdint.h>
#include "tm/status.h"
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_gen_cfg {
    uint32_t threads;      /* 1 .. TMC_MAX_THREADS */
    uint64_t insns;        /* total instructions over all threads (approximate
                              upper bound is exact: the stream stops at insns) */
    uint64_t seed;
    int mem;               /* emit memory operands */
    double predictability; /* 0 .. 1: share of branches with learnable behavior */
    double exc_rate;       /* exceptions per instruction (0 = none) */
    uint32_t recursion;    /* maximum recursion depth of the recursive functions */
} tm_gen_cfg;

void tm_gen_cfg_default(tm_gen_cfg *c);
/* TM_OK, or TM_ERR_ARG with a message naming the option and the allowed range. */
int tm_gen_cfg_check(const tm_gen_cfg *c, char *err, size_t errlen);
/* Writes the whole stream to W (not closed).  Progress callback may be NULL;
 * it is called about every 2^20 instructions with the instructions so far. */
int tm_gen_run(const tm_gen_cfg *c, tmc_writer *w,
               void (*progress)(uint64_t done, uint64_t total, void *arg), void *arg,
               char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
