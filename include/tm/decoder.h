/* tm — debugger-side replay of a trace (docs/spec.md §6).
 *
 * tm_verify replays a .tmt trace with software copies of the predictors (the
 * model's own predictor code, tm/pred.h) and takes from the commit stream only
 * what an instruction-set simulator knows statically: each instruction's
 * class, length and direct target.  Every outcome, target, exception, count
 * and (with time stamps) cycle it reconstructs is compared with the commit
 * stream; the first divergence is reported. */
#ifndef TM_DECODER_H
#define TM_DECODER_H

#include <stddef.h>
#include <stdint.h>
#include "tm/tmt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_verify_result {
    int ok;                    /* 1 iff everything matched */
    uint64_t instructions;     /* instructions replayed (in and out of gaps) */
    uint64_t checked;          /* instructions reconstructed and compared */
    uint64_t branches;         /* control transfers reconstructed */
    uint64_t exceptions;
    uint64_t messages;         /* messages consumed */
    uint64_t gaps;             /* overflow gaps crossed */
    uint64_t gap_instructions; /* instructions inside gaps (not reconstructed) */
    uint64_t cycles_checked;   /* time stamps compared */
    /* data tracing (spec §6 step 7) */
    uint64_t loads;            /* loads retired (in and out of gaps) */
    uint64_t loads_reported;   /* values taken from DATA messages */
    uint64_t loads_inferred;   /* values taken from the replay's copy */
    uint64_t stores;           /* stores applied to the copy */
} tm_verify_result;

/* Returns TM_OK when the replay matched, TM_ERR_MISMATCH on a divergence, or
 * an input error (the .tmc cannot be read, the trace cannot be parsed); ERR
 * (if not NULL) then receives the first divergence or input error, one
 * paragraph.  PROGRESS (may be NULL) is called about every 2^22 records. */
int tm_verify(const char *tmc_path, const tmt_file *trace, tm_verify_result *res,
              void (*progress)(uint64_t records, void *arg), void *arg, char *err, size_t errlen);

/* What the replay cannot check (spec §6.2): the model, run over the commit
 * stream with the trace's configuration, must give the trace's bits, its
 * cycle count and per-thread instruction counts, and the commit stream's
 * CUT record must be the trailer's ending.  TM_OK, TM_ERR_MISMATCH (ERR says
 * which field and, for the bits, the first trace bit that differs), or an
 * input error. */
int tm_verify_file(const char *tmc_path, const tmt_file *trace, char *err, size_t errlen);

/* Operand sizes of each thread's loads, read ahead from a second pass over
 * the commit stream: a DATA message's length depends on the size of the load
 * it reports (spec §4.8), which is what an instruction-set simulator gives a
 * debugger.  Needs a file (not "-"). */
typedef struct tm_load_sizes tm_load_sizes;
/* On failure *OUT is NULL and ERR (if not NULL) receives the message. */
int tm_load_sizes_open(const char *tmc_path, uint32_t threads, tm_load_sizes **out, char *err, size_t errlen);
/* A tm_msg_size_fn (pass the tm_load_sizes as ARG to tm_msg_decode_sized). */
int tm_load_sizes_fn(void *arg, uint32_t ti, uint64_t fah);
/* After tm_msg_decode_sized returned a DATA message: that thread's later
 * DATA messages count from the load after it.  Returns the index (among the
 * thread's loads, from 0) of the load the message reports. */
uint64_t tm_load_sizes_split(tm_load_sizes *ls);
const char *tm_load_sizes_error(const tm_load_sizes *ls);
/* Reads the rest of the commit stream: a damaged or overlong one (data
 * after END) is an error (the message in tm_load_sizes_error). */
int tm_load_sizes_finish(tm_load_sizes *ls);
void tm_load_sizes_close(tm_load_sizes *ls);

/* ---- replay from the program binaries (docs/spec.md §6.1) ----
 * The debugger's view: the trace, the recording's module map (BASE.modules:
 * "0xLOAD BUILD-ID PATH" per line) with the ELF files it names, and the vdso
 * bytes if any.  Each thread's code is walked with a disassembler (Zydis)
 * from its start synchronization; the messages are consumed as tm_verify
 * does (the same code).  Private predictors only (a --shared trace lacks the
 * order of the threads' predictor updates). */
#include <stdio.h>

enum { TM_FB_NONE = 0, TM_FB_INSNS, TM_FB_BRANCHES, TM_FB_FUNCTIONS };

typedef struct tm_frombin_opts {
    const char *modules;     /* the module map */
    const char *vdso;        /* BASE.vdso or NULL */
    int ignore_build_id;     /* replay files whose GNU build-id differs from the map's */
    const char *tmc;         /* commit stream: compared with (verify), or the load sizes (data tracing) */
    int verify;              /* compare every thread's replay with the commit stream */
    int recover;             /* outputs: after an error, go on at the thread's next synchronization */
    uint64_t max_run;        /* instructions between two messages before the replay gives up (0: 2^32) */
    int format;              /* TM_FB_*: text output per thread */
    int symbols, disasm;     /* TM_FB_INSNS / BRANCHES: symbol+offset; disassembly */
    FILE *out;               /* text output (NULL: none) */
    FILE *bin;               /* compact binary output (NULL: none) */
    int quiet;               /* outputs: no error lines on stderr (they are still counted) */
    void (*progress)(uint64_t instructions, void *arg);
    void *arg;
} tm_frombin_opts;

typedef struct tm_frombin_result {
    tm_verify_result v;      /* counts */
    uint64_t threads;        /* threads replayed (outputs) */
    uint64_t errors;         /* replay errors recovered from (outputs) */
    uint64_t resyncs;        /* undecodable stretches of the trace skipped (outputs) */
    uint64_t blocks;         /* code blocks disassembled */
    int out_errno;           /* the text output failed (TM_ERR_IO): its errno */
} tm_frombin_result;

/* TM_OK when the replay (and with VERIFY the comparison) succeeded without
 * errors; TM_ERR_MISMATCH on a divergence; TM_ERR_ARG for a trace this
 * replay cannot handle (--shared, load values without the commit stream);
 * else an input error.  With RECOVER the outputs go on after errors and the
 * result is TM_OK with res->errors / res->resyncs counting them (v.ok = 0).
 * ERR (if not NULL) receives the first divergence or error. */
int tm_frombin(const tmt_file *trace, const tm_frombin_opts *o, tm_frombin_result *res, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
