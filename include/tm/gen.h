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
#include "tm/out.h"
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
    int mem;               /* emit memory operands (at most one MEM record per
                              group; the same control flow as without) */
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

/* The ranges tm_gen_cfg_check enforces, as the messages and tm gen's help
 * write them. */
#define TM_GEN_R_THREADS "1..1024"
#define TM_GEN_R_INSNS "1..1000000000000"
#define TM_GEN_R_SEED "0..18446744073709551615"
#define TM_GEN_R_PRED "0..1"
#define TM_GEN_R_EXC "0..0.1"
#define TM_GEN_R_REC "0..10000"
/* The setting NAME ("--threads", "--insns", "--seed", "--predictability",
 * "--exc-rate", "--recursion": tm gen's options) of C from its text V
 * (decimal; --insns also with K/M/G = 10^3/10^6/10^9; --predictability and
 * --exc-rate real numbers): TM_OK, or TM_ERR_ARG with ERR "--insns x: not a
 * number; allowed 1..1000000000000".  Values that are numbers are checked
 * against the ranges by tm_gen_cfg_check. */
int tm_gen_cfg_set(tm_gen_cfg *c, const char *name, const char *v, char *err, size_t errlen);

/* The output of a generator: a commit-stream writer of THREADS threads on
 * the temporary of O (tm_out_open'ed by the caller): TM_OK, or the status
 * with ERR naming O's final name (O's temporary removed). */
int tm_gen_open(tm_out *o, uint32_t threads, tmc_writer **w, char *err, size_t errlen);
/* After the generator's run into W returned RC (its message in ERR): on
 * TM_OK closes W and renames O into place (tm_out_close), else removes
 * both.  TM_OK, or the status with ERR (RC's own message kept). */
int tm_gen_close(tm_out *o, tmc_writer *w, int rc, char *err, size_t errlen);

/* ---- directed streams (`tm gen --directed NAME`) ----
 *
 * Deterministic streams, each aimed at one thing the RTL co-simulation must
 * exercise (docs: gen/directed.c describes every stream and what it covers):
 *   chunks     bCnt, SL, EXC iCnt, |diffTA| and diffCC at every chunk boundary
 *              2^k-1 and 2^k (counts up to 2^20, |diffTA| up to 2^48, both
 *              signs, diffCC up to 2^20 cycles), plus loops learned by gshare
 *   ras        recursion deeper than 32 (RAS wrap), returns without calls
 *   ibtb       iBTB sites in one set with different tags: both ways replaced,
 *              repeated hits, LRU; one target and many targets per site
 *   samecycle  every thread retires a (mostly mispredicted) event in the same
 *              cycle, bursts of 1..64 cycles in a row
 *   overflow   dense unpredictable events for `--buffer min --port 1`, with
 *              thread starts and exits while others are lost
 *   idle       idle stretches of 10^4..10^6 cycles between bursts
 *   tswrap     gaps between a thread's messages of 2^16 +- 1 and 2^20 +- 1
 *              cycles and more
 *   all        every stream above as consecutive phases of one stream
 * Every stream obeys docs/spec.md section 2.3 and keeps the program static
 * (one instruction per pc).  Same kind, threads and seed, same bytes. */
typedef enum tm_gen_directed {
    TM_GEN_DIR_CHUNKS = 0,
    TM_GEN_DIR_RAS,
    TM_GEN_DIR_IBTB,
    TM_GEN_DIR_SAMECYCLE,
    TM_GEN_DIR_OVERFLOW,
    TM_GEN_DIR_IDLE,
    TM_GEN_DIR_TSWRAP,
    TM_GEN_DIR_ALL
} tm_gen_directed;
#define TM_GEN_DIR_COUNT 8
#define TM_GEN_DIR_MAX_THREADS 64u
#define TM_GEN_DIR_DEFAULT_THREADS 4u

typedef struct tm_gen_directed_cfg {
    tm_gen_directed kind;
    uint32_t threads;   /* 1 .. TM_GEN_DIR_MAX_THREADS */
    uint64_t seed;      /* orders, event mixes and idle lengths */
} tm_gen_directed_cfg;

/* kind chunks, 4 threads, seed 1. */
void tm_gen_directed_default(tm_gen_directed_cfg *c);
/* Name of a kind ("chunks", ...; NULL if out of range) and the reverse
 * (-1 if unknown). */
const char *tm_gen_directed_name(int kind);
int tm_gen_directed_parse(const char *name);
/* "chunks, ras, ibtb, samecycle, overflow, idle, tswrap, all" */
const char *tm_gen_directed_names(void);
/* TM_OK, or TM_ERR_ARG with a message naming the option and the allowed range. */
int tm_gen_directed_check(const tm_gen_directed_cfg *c, char *err, size_t errlen);
/* Writes the whole stream to W (not closed). */
int tm_gen_directed_run(const tm_gen_directed_cfg *c, tmc_writer *w, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
