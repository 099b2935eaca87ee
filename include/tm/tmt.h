/* tm — trace file (.tmt): the port bits plus the configuration that produced
 * them, so that decoding needs no options (docs/spec.md §5). */
#ifndef TM_TMT_H
#define TM_TMT_H

#include <stddef.h>
#include <stdint.h>
#include "tm/model.h"
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TMT_VERSION 2u
#define TMT_HEADER_BYTES 64u
/* The trailer of version 2 is TMT_TRAILER_BYTES(N) long for N threads. */
#define TMT_TRAILER_BYTES(n) (28u + 8u * (n))

/* How the recording behind a trace ended (docs/spec.md §5). */
typedef enum tmt_ending {
    TMT_COMPLETE = 0,  /* ran to its end (the program may still have crashed) */
    TMT_CUT_SHORT = 1, /* the capture ended without its end marker */
    TMT_CUT_SIGNAL = 2 /* the recorder was stopped by a signal */
} tmt_ending;

/* How the program behind a complete recording ended (the trailer's bytes
 * 2 and 3 after the counts, docs/spec.md §5; the commit stream's ENDING
 * record, reasons 3..5). */
typedef enum tmt_prog {
    TMT_PROG_UNKNOWN = 0, /* not recorded (a cut recording, a generated stream, tm before issue 35) */
    TMT_PROG_EXITED = 1,  /* code: the exit status 0..255 */
    TMT_PROG_KILLED = 2,  /* code: the signal 1..127 that killed it */
    TMT_PROG_EXECVED = 3  /* it replaced itself (execve) and ran on untraced; code 0 */
} tmt_prog;

typedef struct tmt_file {
    tm_model_cfg cfg;   /* resolved configuration */
    uint8_t *data;      /* trace bytes */
    uint64_t bits;
    uint64_t cycles;
    /* Instructions each thread retired in the recording (gaps included),
     * cfg.enc.threads entries, from the trailer; NULL if the file does not
     * say (version 1: then a replay has no bound from it). */
    uint64_t *thread_insns;
    unsigned version;   /* of the file read */
    tmt_ending ending;
    unsigned signal;    /* TMT_CUT_SIGNAL: the signal number */
    tmt_prog prog;      /* how the program ended (TMT_COMPLETE only) */
    unsigned prog_code; /* its exit status or signal */
    int isa;            /* the recorded program's instruction set (TM_ISA_*, tm/isa.h):
                           the header's byte 37; 0 (x86-64) in version 1 */
} tmt_file;

/* What the trailer records besides the bit count. */
typedef struct tmt_trailer {
    uint64_t cycles;                /* the model's cycle count (spec §3.7) */
    const uint64_t *thread_insns;   /* cfg->enc.threads counts */
    tmt_ending ending;
    unsigned signal;                /* 1..127 with TMT_CUT_SIGNAL, else 0 */
    tmt_prog prog;                  /* with TMT_COMPLETE only; else TMT_PROG_UNKNOWN */
    unsigned prog_code;             /* as tmt_file's */
} tmt_trailer;

/* Writes PATH ("-" = stdout) for a program of instruction set ISA
 * (TM_ISA_*, tm/isa.h: the header's byte 37; a model's is tm_model_isa).
 * ERR receives one line on failure. */
int tmt_write_isa(const char *path, int isa, const tm_model_cfg *cfg, const tm_bitbuf *bits, const tmt_trailer *t,
                  char *err, size_t errlen);
/* The same for an x86-64 program (ISA 0). */
int tmt_write(const char *path, const tm_model_cfg *cfg, const tm_bitbuf *bits, const tmt_trailer *t,
              char *err, size_t errlen);
/* The trailer of a model's run: its cycles and per-thread instructions
 * (INSNS: room for the model's threads, filled here), ending ENDING; the
 * program's ending is left unknown (set t->prog and t->prog_code after). */
void tmt_trailer_of(tmt_trailer *t, const tm_model *m, uint64_t *insns, tmt_ending ending, unsigned signal);
/* Reads and validates PATH.  ERR receives "FILE: offset N: what". */
int tmt_read(const char *path, tmt_file *out, char *err, size_t errlen);
void tmt_free(tmt_file *f);
/* "cut short (...)" / "cut by signal 15 (Terminated)" / "" (complete). */
const char *tmt_ending_str(tmt_ending e, unsigned signal, char *buf, size_t n);
/* "exited with status 0" / "killed by signal 11 (Segmentation fault)" /
 * "replaced itself by execve" / "" (unknown). */
const char *tmt_prog_str(tmt_prog p, unsigned code, char *buf, size_t n);
/* 0 if CODE is allowed with P, else -1. */
int tmt_prog_check(tmt_prog p, unsigned code);
/* The commit stream's ENDING reason for P (TMC_EXITED..TMC_EXECVED), and
 * back (TMT_PROG_UNKNOWN for a cut). */
unsigned tmt_prog_to_tmc(tmt_prog p);
tmt_prog tmt_prog_from_tmc(unsigned reason);

#ifdef __cplusplus
}
#endif
#endif
