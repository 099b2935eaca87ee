/* tm — private parts of the commit stream library: varints and the checker
 * of docs/spec.md §2.3 shared by the reader and the writer.
 *
 * The checker's fast paths are static inline so that the reader's record loop
 * compiles into straight-line code; every failure goes to an out-of-line
 * function that works out which rule was broken and formats the message. */
#ifndef TM_TMC_INT_H
#define TM_TMC_INT_H

#include <stddef.h>
#include <stdint.h>
#include "tm/tmc.h"

#define TMC_HEADER_SIZE 16u
#define TMC_MAX_PATH 4096u
#define TMC_MAX_BUILD_ID 64u
#define TMC_VARINT_MAX 10u
/* Upper bound of the encoded size of any record but MODULE: MEM is the
 * longest, 1 + 10 + 10 + 1 + 1 + 10 + 64 = 97 bytes. */
#define TMC_SMALL_REC_MAX 128u
/* Upper bound of an encoded MODULE record. */
#define TMC_MODULE_REC_MAX (1u + 3u * TMC_VARINT_MAX + TMC_MAX_PATH + TMC_MAX_BUILD_ID)

/* Life cycle of a thread id (rule 4). */
enum { TMC_TS_NEW = 0, TMC_TS_LIVE = 1, TMC_TS_DONE = 2 };

typedef struct tmc_check {
    uint32_t threads;
    uint32_t tid;      /* tid of the last thread record (types 1..6) */
    uint64_t cycle;    /* cycle of the last thread record; 0 before the first */
    uint8_t any;       /* a thread record has been seen */
    uint8_t g_event;   /* event type that ended the current group, 0 = open */
    uint32_t g_runs;   /* sum of RUN counts in the current group */
    uint8_t *state;    /* [threads] TMC_TS_* */
    uint64_t *pc;      /* [threads] address of the thread's next instruction */
    char what[320];    /* description of the last violation */
} tmc_check;

/* Allocates the per-thread arrays; TM_ERR_NOMEM on failure. */
int tmc_check_init(tmc_check *c, uint32_t threads);
void tmc_check_free(tmc_check *c);
/* Formats c->what and returns CODE. */
int tmc_check_fail(tmc_check *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));
/* Diagnoses a record at (TID, CYCLE) that tmc_check_thread refused. */
int tmc_check_order_fail(tmc_check *c, unsigned type, uint64_t tid, uint64_t cycle)
    __attribute__((cold));
/* Diagnoses a bad RUN / BRANCH / flags field (see the callers). */
int tmc_check_run_fail(tmc_check *c, uint64_t count, uint64_t bytes) __attribute__((cold));
int tmc_check_branch_fail(tmc_check *c, unsigned info, unsigned len) __attribute__((cold));
int tmc_check_flags_fail(tmc_check *c, unsigned type, unsigned flags) __attribute__((cold));
int tmc_check_size_fail(tmc_check *c, unsigned size) __attribute__((cold));
/* A memory operand whose last byte would lie above 2^64 - 1. */
int tmc_check_wrap_fail(tmc_check *c, uint64_t addr, unsigned size) __attribute__((cold));
/* "START", "RUN", ... ("?" for anything else). */
const char *tmc_type_name(unsigned type);
/* Formats "NAME: offset N: WHAT" into a buffer it (re)allocates. */
void tmc_format_error(char **buf, size_t *cap, const char *name, uint64_t offset,
                      const char *what);
/* Formats "NAME: WHAT" (errors not tied to an offset, e.g. open failures). */
void tmc_format_plain(char **buf, size_t *cap, const char *name, const char *what);

/* Rules 1-4 for a record of type 1..6 (TYPE) of thread TID at CYCLE:
 * range of tid, (cycle, tid) order, group not yet ended by an event, thread
 * life cycle.  On success the record becomes part of the current group (a new
 * group is begun if (cycle, tid) changed).  The caller then checks the
 * record's own fields and records its effect.  Returns 0 or TM_ERR_FORMAT. */
static inline int tmc_check_thread(tmc_check *c, unsigned type, uint64_t tid, uint64_t cycle)
{
    if (__builtin_expect(tid >= c->threads, 0))
        return tmc_check_order_fail(c, type, tid, cycle);
    if (cycle == c->cycle && c->any) {
        if (tid == c->tid) {
            if (__builtin_expect(c->g_event != 0, 0))
                return tmc_check_order_fail(c, type, tid, cycle);
            goto same_group;
        }
        if (__builtin_expect(tid < c->tid, 0))
            return tmc_check_order_fail(c, type, tid, cycle);
    } else if (__builtin_expect(cycle < c->cycle, 0)) {
        return tmc_check_order_fail(c, type, tid, cycle);
    }
    c->cycle = cycle;
    c->tid = (uint32_t)tid;
    c->any = 1;
    c->g_event = 0;
    c->g_runs = 0;
same_group:
    /* START needs a new thread id, everything else a live thread. */
    if (__builtin_expect(c->state[tid] != (type == TMC_START ? TMC_TS_NEW : TMC_TS_LIVE), 0))
        return tmc_check_order_fail(c, type, tid, cycle);
    return 0;
}

/* RUN of COUNT instructions, BYTES long: count >= 1, bytes >= count, at most
 * TMC_MAX_RETIRE_PER_CYCLE per group.  Advances the thread's pc. */
static inline int tmc_check_run(tmc_check *c, uint32_t tid, uint64_t count, uint64_t bytes)
{
    if (__builtin_expect(count == 0 || bytes < count ||
                         count > TMC_MAX_RETIRE_PER_CYCLE - c->g_runs, 0))
        return tmc_check_run_fail(c, count, bytes);
    c->g_runs += (uint32_t)count;
    c->pc[tid] += bytes;
    return 0;
}

/* BRANCH info byte and length: bits 7..4 clear, class 0..5, taken unless
 * cond, len >= 1. */
static inline int tmc_check_branch(tmc_check *c, unsigned info, unsigned len)
{
    unsigned cls = info & 7u;
    if (__builtin_expect((info & 0xF0u) || cls >= TMC_NCLASSES || len == 0 ||
                         (cls != TMC_COND && !(info & 8u)), 0))
        return tmc_check_branch_fail(c, info, len);
    return 0;
}

/* ---- varints ---- */

/* Decodes an unsigned LEB128 varint at *PP (the caller guarantees that 10
 * bytes can be read).  Sets *BAD to 1 if the varint is longer than 10 bytes
 * or its value does not fit 64 bits; the caller reports that after it has
 * ruled out truncation.  Non-minimal encodings are accepted. */
static inline uint64_t tmc_get_uv(const uint8_t **pp, unsigned *bad)
{
    const uint8_t *p = *pp;
    uint64_t v = p[0];
    if (__builtin_expect(v < 0x80, 1)) {
        *pp = p + 1;
        return v;
    }
    v &= 0x7F;
    for (unsigned i = 1; i < TMC_VARINT_MAX; i++) {
        uint64_t b = p[i];
        v |= (b & 0x7F) << (7 * i);
        if (b < 0x80) {
            /* The 10th byte holds bit 63 only. */
            if (i == TMC_VARINT_MAX - 1 && b > 1)
                *bad = 1;
            *pp = p + i + 1;
            return v;
        }
    }
    *bad = 1;
    *pp = p + TMC_VARINT_MAX;
    return v;
}

/* Encodes V at P; returns the number of bytes (1..10). */
static inline size_t tmc_put_uv(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Zigzag: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ...  Two's complement 64-bit
 * differences are carried as uint64_t. */
static inline uint64_t tmc_zigzag(uint64_t d)
{
    return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t tmc_unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

#endif
