/* tm — replay of a trace from the program binaries (docs/spec.md §6.1). */
#ifndef TM_FROMBIN_H
#define TM_FROMBIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/tmt.h"
#include "tm/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- replay from the program binaries (docs/spec.md §6.1) ----
 * The debugger's view: the trace, the recording's module map (BASE.modules:
 * "0xLOAD BUILD-ID PATH" per line) with the ELF files it names, and the vdso
 * bytes if any.  Each thread's code is walked with a disassembler (Zydis)
 * from its start synchronization; the messages are consumed as tm_verify
 * does (the same code).  Private predictors only (a --shared trace lacks the
 * order of the threads' predictor updates). */
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
    /* The library never prints: everything it says goes to the caller's
     * sinks below.  OUT and BIN are streams the caller opened (tm decode
     * gives stdout or its own files); the listing is formatted into OUT. */
    FILE *out;               /* the listing, text (NULL: none); flushed before each diagnostic line */
    FILE *bin;               /* compact binary output (NULL: none) */
    /* The outputs' diagnostics, one line per call (no prefix, no newline):
     * "T1: trace bit 77: ...; resuming at the thread's next synchronization",
     * "T1: 3 more errors like the one at trace bit 77" (at the thread's
     * end), "trace bit 90: ...; resuming at the next synchronization
     * message".  NULL: none (they are still counted).  tm decode prints
     * them on stderr as "tm decode: LINE". */
    void (*diag)(void *diag_arg, const char *line);
    void *diag_arg;
    int quiet;               /* outputs: no diagnostic lines (the errors are still counted) */
    void (*progress)(uint64_t instructions, void *arg);
    void *arg;               /* PROGRESS's */
} tm_frombin_opts;

typedef struct tm_frombin_result {
    tm_verify_result v;      /* counts */
    uint64_t threads;        /* threads replayed (outputs) */
    uint64_t errors;         /* replay errors recovered from (outputs) */
    uint64_t resyncs;        /* undecodable stretches of the trace skipped (outputs) */
    uint64_t blocks;         /* code blocks disassembled */
    int out_errno;           /* the text output failed (TM_ERR_IO): its errno */
} tm_frombin_result;

/* TM_OK when the replay (and with VERIFY the comparison, and in the same
 * read of the commit stream tm_verify_file's checks, on threads as
 * tm_verify's) succeeded without errors; TM_ERR_MISMATCH on a divergence; TM_ERR_ARG for a trace this
 * replay cannot handle (--shared, load values without the commit stream);
 * else an input error.  With RECOVER the outputs go on after errors and the
 * result is TM_OK with res->errors / res->resyncs counting them (v.ok = 0).
 * ERR (if not NULL) receives the first divergence or error. */
int tm_frombin(const tmt_file *trace, const tm_frombin_opts *o, tm_frombin_result *res, char *err, size_t errlen);

/* The class of the x86-64 instruction at P (AVAIL readable bytes) at
 * address PC, exactly as the recording classifies it (docs/capture.md §2):
 * returns its length, 0 if it cannot be replayed (*BAD says why); *CLS is a
 * tmc_bclass or -1 for a plain instruction; *DTARGET the direct target of
 * cond, jump and call.  The classification is
 * tm/x86op.h's, the length Zydis's. */
unsigned tm_classify(const uint8_t *p, size_t avail, uint64_t pc, int *cls, uint64_t *dtarget, const char **bad);

#ifdef __cplusplus
}
#endif
#endif
