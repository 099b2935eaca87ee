/* tm — a commit-stream record as it crosses between threads (tmc_ahead,
 * the verifying replay's reader): half a cache line.
 *
 * A tmc_record is 176 bytes, most of them a MEM record's value, and a
 * reader filling tmc_records writes three of their lines; every line the
 * reader writes is one its consumer read last, which costs (on the 139 M
 * records of issue 39's bench recording, 1.8 s of the reader's time).  So
 * the record travels as a tmc_crec, written with streaming stores where the
 * machine has them (the line goes out without being read first; fence with
 * tmc_crec_fence before publishing), and the consumer unpacks it into a
 * tmc_record of its own.
 *
 * X is the record's one wide field besides pc and cycle: RUN bytes, BRANCH
 * / EXC target, MEM / MODULE addr, END / ENDING count; Y a RUN's count (at
 * most 65535, spec §2.2) or a BRANCH's len | bclass << 8 | taken << 11 or a
 * MEM's size; INFO the flags (START, EXIT, MEM; ENDING's reason).  A MEM
 * record's value and a MODULE record's path and build id travel apart
 * (their owner's business). */
#ifndef TM_TMCREC_H
#define TM_TMCREC_H

#include <stdint.h>
#include "tm/tmc.h"
#if defined(__x86_64__) && defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#include <emmintrin.h>
#define TMC_CREC_STREAM 1
#else
#define TMC_CREC_STREAM 0
#endif

typedef struct tmc_crec {
    uint64_t cycle, pc, x;
    uint32_t y;
    uint16_t tid; /* < TMC_MAX_THREADS */
    uint8_t type, info;
} tmc_crec;
_Static_assert(sizeof(tmc_crec) == 32, "two records per cache line");

/* R (as tmc_reader_next filled it: the fields its type does not have are
 * 0) into V.  Without branches: the types alternate unpredictably.  Meant
 * to be inlined where R lives in registers (tmc_reader_crecs); an
 * optimize attribute here (say against SLP-merged loads, which a reader's
 * fresh stores would not forward) would keep it out of line, and R in
 * memory. */
static inline void tmc_crec_pack(tmc_crec *v, const tmc_record *r)
{
    unsigned t = r->type;
    uint64_t x = r->bytes | r->target | r->addr | (t >= TMC_END ? r->count : 0);
    uint32_t y = (t == TMC_RUN ? (uint32_t)r->count : 0) | r->len | (uint32_t)r->bclass << 8 |
                 (uint32_t)r->taken << 11 | r->size;
#if TMC_CREC_STREAM
    /* the last word: y, tid, type, info (little-endian, as tmc_crec lays them) */
    uint64_t w = (uint64_t)y | (uint64_t)(uint16_t)r->tid << 32 | (uint64_t)(uint8_t)t << 48 |
                 (uint64_t)(uint8_t)r->flags << 56;
    long long *q = (long long *)v;
    _mm_stream_si64(q, (long long)r->cycle);
    _mm_stream_si64(q + 1, (long long)r->pc);
    _mm_stream_si64(q + 2, (long long)x);
    _mm_stream_si64(q + 3, (long long)w);
#else
    v->cycle = r->cycle;
    v->pc = r->pc;
    v->x = x;
    v->y = y;
    v->tid = (uint16_t)r->tid;
    v->type = (uint8_t)t;
    v->info = (uint8_t)r->flags;
#endif
}

/* The streaming stores of tmc_crec_pack (and of tmc_crec_stream64) before
 * whatever publishes them. */
static inline void tmc_crec_fence(void)
{
#if TMC_CREC_STREAM
    _mm_sfence();
#endif
}

/* A 64-bit word stored as tmc_crec_pack stores (for what travels beside the
 * records). */
static inline void tmc_crec_stream64(uint64_t *p, uint64_t v)
{
#if TMC_CREC_STREAM
    _mm_stream_si64((long long *)p, (long long)v);
#else
    *p = v;
#endif
}

/* V into R, every field but a MEM's value and a MODULE's path and build id
 * as tmc_reader_next sets them.  Without branches. */
static inline void tmc_crec_unpack(tmc_record *r, const tmc_crec *v)
{
    unsigned t = v->type;
    uint64_t x = v->x;
    uint32_t y = v->y;
    int br = t == TMC_BRANCH;
    r->type = (tmc_type)t;
    r->tid = v->tid;
    r->cycle = v->cycle;
    r->flags = v->info;
    r->pc = v->pc;
    r->target = br || t == TMC_EXC ? x : 0;
    r->count = t == TMC_RUN ? y : t >= TMC_END ? x : 0;
    r->bytes = t == TMC_RUN ? x : 0;
    r->bclass = (uint8_t)(br ? (y >> 8) & 7 : 0);
    r->taken = (uint8_t)(br ? (y >> 11) & 1 : 0);
    r->len = (uint8_t)(br ? y & 0xff : 0);
    r->size = (uint8_t)(t == TMC_MEM ? y & 0xff : 0);
    r->addr = t == TMC_MEM || t == TMC_MODULE ? x : 0;
}

/* Up to MAX records of R, as tmc_reader_next reads them, into OUT as
 * compact records, with tmc_crec_pack's streaming stores (tmc_crec_fence
 * before they are published): how many.  Records of types 1..6 (START ..
 * MEM) only: fewer than MAX means that what comes next is for
 * tmc_reader_next to give (a MODULE, END or ENDING record, the end, an
 * error).  Each MEM record's value is appended to VALS, its size bytes
 * (room for MAX * TMC_MAX_OPERAND), *NVALS bytes in all; with ENDS,
 * ENDS[i] is tmc_reader_offset after record i less the offset before the
 * first.  Cheaper than tmc_reader_next and tmc_crec_pack: the records do
 * not pass through memory on the way (tmc/reader.c). */
size_t tmc_reader_crecs(tmc_reader *r, tmc_crec *out, size_t max, uint8_t *vals, size_t *nvals, uint32_t *ends);

/* tmc_ahead's records (tm/tmc.h) as they travel, for a consumer that takes
 * them in runs (tm_model_put_crecs): *RECS points to the next records of
 * the current batch (the next batch's once this one is used up), *VALS to
 * their MEM values, in order, each its size long; how many, 0 at the end
 * (tmc_ahead_next then gives the status).  Valid until the next call of
 * tmc_ahead_next or tmc_ahead_crecs.  The caller takes K of them, all of
 * types START..MEM, whose values are VBYTES long, with tmc_ahead_advance;
 * the others (MODULE, END, ENDING) with tmc_ahead_next, which may be mixed
 * with these calls.  tmc_ahead_offset is then that of the K-th. */
size_t tmc_ahead_crecs(tmc_ahead *a, const tmc_crec **recs, const uint8_t **vals);
void tmc_ahead_advance(tmc_ahead *a, size_t k, size_t vbytes);

#endif
