/* tm — commit stream (.tmc) reader and writer.
 *
 * The commit stream is what the cores retire, in one global order sorted by
 * (cycle, thread).  Format: docs/spec.md §2.  The file is one zstd stream; the
 * reader accepts a path or "-" for standard input and never needs to seek.
 *
 * The reader validates the stream's semantics as it goes (thread ids in range,
 * (cycle, thread) order, thread life cycle, one event per thread per cycle,
 * PC continuity, operand sizes) so that every consumer sees only well-formed
 * streams; each error is reported once as "FILE: offset N: what".
 */
#ifndef TM_TMC_H
#define TM_TMC_H

#include <stddef.h>
#include <stdint.h>
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TMC_VERSION 1u
#define TMC_MAX_THREADS 1024u
#define TMC_MAX_RETIRE_PER_CYCLE 65535u /* plain instructions per thread per cycle */
#define TMC_MAX_OPERAND 64u
/* The header's flags (offset 12): bits 3..0 the instruction set (tm/isa.h),
 * bits 31..4 reserved (0). */
#define TMC_FLAGS_ISA_MASK 0xFu

typedef enum tmc_type {
    TMC_START = 1,  /* thread starts (or tracing starts) at pc */
    TMC_EXIT = 2,   /* thread exits (or tracing stops) */
    TMC_RUN = 3,    /* count non-branch instructions, bytes long in total */
    TMC_BRANCH = 4, /* one control-transfer instruction */
    TMC_EXC = 5,    /* exception / signal delivery: control goes to handler */
    TMC_MEM = 6,    /* one memory operand of an instruction of this group */
    TMC_MODULE = 7, /* module map entry (not tied to a thread or cycle) */
    TMC_END = 8,    /* end of stream; carries the record count */
    TMC_ENDING = 9  /* how the recording and its program ended (only END may follow) */
} tmc_type;

/* ENDING reasons (in .flags; .count holds the code named).  A recording
 * that was cut says so (1, 2); one that ran to its end says how its
 * program ended (3..5).  A stream without ENDING does not say (tm
 * before issue 35, or a generated stream). */
#define TMC_CUT_SHORT 1u  /* the capture ended without its end marker; code 0 */
#define TMC_CUT_SIGNAL 2u /* the recorder was stopped by a signal; code: the signal 1..127 */
#define TMC_EXITED 3u     /* the program exited; code: its exit status 0..255 */
#define TMC_KILLED 4u     /* the program was killed by a signal; code: the signal 1..127 */
#define TMC_EXECVED 5u    /* the program replaced itself (execve), untraced from there; code 0 */
/* 0 if CODE is allowed with REASON (1..5), else -1. */
static inline int tmc_ending_check(unsigned reason, uint64_t code)
{
    switch (reason) {
    case TMC_CUT_SHORT: case TMC_EXECVED: return code == 0 ? 0 : -1;
    case TMC_CUT_SIGNAL: case TMC_KILLED: return code >= 1 && code <= 127 ? 0 : -1;
    case TMC_EXITED: return code <= 255 ? 0 : -1;
    default: return -1;
    }
}

/* Branch classes (docs/spec.md §2.2). */
typedef enum tmc_bclass {
    TMC_COND = 0,     /* conditional direct; outcome in .taken */
    TMC_JUMP = 1,     /* unconditional direct jump */
    TMC_CALL = 2,     /* direct call */
    TMC_IJUMP = 3,    /* indirect jump */
    TMC_ICALL = 4,    /* indirect call */
    TMC_RET = 5       /* return */
} tmc_bclass;
#define TMC_NCLASSES 6

/* START flag: tracing begins in the middle of a running thread. */
#define TMC_START_TRACE_ON 1u
/* EXIT flag: tracing of the thread stops; the thread itself goes on. */
#define TMC_EXIT_TRACE_OFF 1u
/* MEM flag: the operand is a store (otherwise a load). */
#define TMC_MEM_STORE 1u

typedef struct tmc_record {
    tmc_type type;
    uint32_t tid;      /* START..MEM */
    uint64_t cycle;    /* START..MEM: absolute cycle stamp */
    uint32_t flags;    /* START, EXIT, MEM flags above; ENDING: the reason */
    /* START: pc = first instruction.  RUN: pc = address of the first
     * instruction of the run.  BRANCH: pc of the branch.  EXC: pc = address
     * of the next instruction that would have retired. */
    uint64_t pc;
    uint64_t target;   /* BRANCH: taken target (COND: the direct target even if
                          not taken).  EXC: handler address. */
    uint64_t count;    /* RUN: instructions (>= 1).  END: records before END.
                          ENDING: the reason's code. */
    uint64_t bytes;    /* RUN: total length in bytes (>= count). */
    uint8_t bclass;    /* BRANCH: tmc_bclass */
    uint8_t taken;     /* BRANCH: 1 if control went to target */
    uint8_t len;       /* BRANCH: instruction length in bytes, 1..255 */
    uint8_t size;      /* MEM: operand size 1..64 */
    uint64_t addr;     /* MEM: operand address.  MODULE: load address. */
    uint8_t value[TMC_MAX_OPERAND]; /* MEM: bytes in memory order */
    /* MODULE: valid until the next call of tmc_reader_next. */
    const char *path;
    size_t path_len;
    const uint8_t *build_id;
    size_t build_id_len;
} tmc_record;

/* A group (docs/spec.md §2.3) handed on whole: what the records RUN (if
 * count > 0), MEM (if mem) and EV (if not NULL: START, EXIT, BRANCH or EXC;
 * its tid and cycle are those of the group) of thread TID in CYCLE say, in
 * that order.  For producers that have the group whole (the capture
 * layer): one call instead of two or three records. */
typedef struct tmc_group {
    uint32_t tid;
    uint64_t cycle;
    uint64_t pc, count, bytes;  /* the RUN's fields */
    int mem;
    uint32_t mflags;            /* the MEM's flags, size, addr and value */
    uint8_t msize;
    uint64_t maddr;
    const uint8_t *mvalue;      /* msize bytes */
    const tmc_record *ev;
} tmc_group;

/* ---- reader ---- */
typedef struct tmc_reader tmc_reader;

/* Opens PATH ("-" = stdin) and reads its header.  On success *out is a new
 * reader; on failure *out is NULL and ERR (if not NULL) receives the
 * message (docs/architecture.md, errors). */
int tmc_reader_open(const char *path, tmc_reader **out, char *err, size_t errlen);
/* Threads declared by the header (thread ids are 0 .. threads-1). */
uint32_t tmc_reader_threads(const tmc_reader *r);
/* The instruction set of the recorded program (TM_ISA_*, tm/isa.h): the
 * header's flags, bits 3..0 (docs/spec.md §2.1); 0 (x86-64) for every
 * stream written before issue 37. */
int tmc_reader_isa(const tmc_reader *r);
/* 1 = *rec filled, 0 = clean end, <0 = tm_status (the message is then in
 * tmc_reader_error(); errors are sticky).  The END record itself is delivered
 * (type TMC_END, count) once the whole stream has been verified (count,
 * nothing after END, zstd checksum); after it, 0 forever.  Every complete
 * record before an error is delivered first. */
int tmc_reader_next(tmc_reader *r, tmc_record *rec);
/* "FILE: offset N: what" of the last error ("" if none).  N is the offset
 * in the decompressed stream of the record that failed. */
const char *tmc_reader_error(const tmc_reader *r);
/* Decompressed bytes consumed so far. */
uint64_t tmc_reader_offset(const tmc_reader *r);
void tmc_reader_close(tmc_reader *r);

/* ---- the same, read ahead by a second thread (tmc/ahead.c) ----
 * A thread runs tmc_reader_next on R in batches of records while the
 * caller takes them: for a consumer as costly per record as the parse (the
 * model), the two overlap on two cores.  The records, their order, the
 * status and R's error message are exactly tmc_reader_next's.  R stays
 * owned by the caller, who must not use it until tmc_ahead_close (then
 * tmc_reader_error is R's message); if no thread can be started the
 * batches are read on the caller's thread. */
typedef struct tmc_ahead tmc_ahead;
int tmc_ahead_open(tmc_reader *r, tmc_ahead **out);
/* As tmc_reader_next, but *REC points to the record (valid until the next
 * call; a MODULE record's path and build id too). */
int tmc_ahead_next(tmc_ahead *a, const tmc_record **rec);
/* tmc_reader_offset as of the last record returned. */
uint64_t tmc_ahead_offset(const tmc_ahead *a);
/* Stops the thread, joins it and frees A (NULL: nothing). */
void tmc_ahead_close(tmc_ahead *a);

/* ---- writer ---- */
typedef struct tmc_writer tmc_writer;

/* Creates PATH ("-" = stdout) for a stream with THREADS thread ids.
 * LEVEL is the zstd level (0 = default 3).  Output is deterministic.  On
 * failure *out is NULL and ERR (if not NULL) receives the message. */
int tmc_writer_open(const char *path, uint32_t threads, int level, tmc_writer **out, char *err, size_t errlen);
/* The stream's instruction set (TM_ISA_*, tm/isa.h; the header's flags,
 * bits 3..0), x86-64 (0) unless set: before the first record only (then,
 * or an unknown ISA: TM_ERR_ARG, sticky as tmc_writer_put's refusals). */
int tmc_writer_set_isa(tmc_writer *w, int isa);/* Appends one record (END is written by tmc_writer_close).  The writer checks
 * the same rules as the reader and refuses a record that breaks them with
 * TM_ERR_ARG; the refusal is sticky (later calls and close return it, and
 * close then ends the zstd frame without END so the records before the error
 * stay readable). */
int tmc_writer_put(tmc_writer *w, const tmc_record *rec);
const char *tmc_writer_error(const tmc_writer *w);
/* Writes END, flushes and closes; returns the first error, if any. */
int tmc_writer_close(tmc_writer *w);
/* Abandons the output without an END record (for error paths). */
void tmc_writer_abort(tmc_writer *w);

/* Name of a branch class ("cond", "jump", "call", "ijump", "icall", "ret"). */
const char *tmc_bclass_name(unsigned c);
/* Parses a class name; returns -1 if unknown. */
int tmc_bclass_parse(const char *name);

#ifdef __cplusplus
}
#endif
#endif
