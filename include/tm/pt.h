/* tm — Intel Processor Trace on the same executions (docs/pt.md).
 *
 * The encoder turns a commit stream into the packets each core's Intel PT
 * would have written for that execution, one raw PT buffer per core, with
 * libipt's packet encoder (pt_enc_next).  The decoder side reads those
 * buffers back with libipt's instruction or block decoder over the
 * recording's ELF images (the module map) and, with a commit stream,
 * compares the instruction flow with it instruction by instruction.
 *
 * What is modelled (Intel SDM vol. 3, chapter "Intel Processor Trace";
 * docs/pt.md §1): PSB+ at each thread's start and every psb_period bytes;
 * TNT (short, or long with tnt_long); TIP with last-IP compression;
 * TIP.PGE/TIP.PGD at the tracing window's edges and around system calls
 * and signals (user-only tracing, as `perf record -e intel_pt//u`); FUP for
 * asynchronous events; return compression mirroring the decoder's 64-entry
 * call stack; optional TSC/MTC/CYC from the commit stream's cycles. */
#ifndef TM_PT_H
#define TM_PT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/stdfile.h"
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- encoder ---- */

/* What the bytes are spent on (tm_pt_stats.cause_bits). */
enum {
    TM_PT_C_COND = 0,  /* conditional branches: their share of TNT packets */
    TM_PT_C_RETCOMP,   /* compressed returns: their share of TNT packets */
    TM_PT_C_RET,       /* returns sent as TIP (call stack empty or broken) */
    TM_PT_C_IND,       /* indirect jumps and calls: TIP */
    TM_PT_C_FAR,       /* system calls and other far transfers: TIP.PGD, MODE.Exec + TIP.PGE */
    TM_PT_C_EXC,       /* signals and exceptions: FUP + TIP.PGD, MODE.Exec + TIP.PGE */
    TM_PT_C_EDGE,      /* thread start and end, tracing window: PSB+ at start, TIP.PGE/PGD */
    TM_PT_C_SYNC,      /* periodic PSB+ */
    TM_PT_C_TIMING,    /* TSC, MTC, CYC */
    TM_PT_NCAUSES
};

/* Packet kinds (tm_pt_stats.packets/bytes). */
enum {
    TM_PT_K_TNT8 = 0, TM_PT_K_TNT64, TM_PT_K_TIP, TM_PT_K_TIP_PGE, TM_PT_K_TIP_PGD, TM_PT_K_FUP,
    TM_PT_K_PSB, TM_PT_K_PSBEND, TM_PT_K_MODE_EXEC, TM_PT_K_TSC, TM_PT_K_MTC, TM_PT_K_CYC,
    TM_PT_NKINDS
};

/* Timing packets (tm_pt_opts.timing). */
#define TM_PT_TSC 1u  /* TSC in every PSB+ */
#define TM_PT_MTC 2u  /* MTC when the cycle enters a new 2^mtc_shift period */
#define TM_PT_CYC 4u  /* CYC before every branch packet, cycles since the last CYC */

typedef struct tm_pt_opts {
    uint32_t psb_period;   /* output bytes between PSB+ (0: 4096); 256 .. 2^30 */
    int tnt_long;          /* collect up to 47 branches in a long TNT (else short TNT, 6) */
    int no_retcomp;        /* every return as a TIP */
    unsigned timing;       /* TM_PT_TSC | TM_PT_MTC | TM_PT_CYC */
    unsigned mtc_shift;    /* MTC period 2^mtc_shift cycles (0: 2^8); 0 .. 24 */
    /* The code bytes at ADDR (*AVAIL readable): the encoder decodes the
     * instructions of each run once to find system calls and other far
     * transfers inside it.  NULL: none are looked for (streams without code,
     * tm gen's). */
    const uint8_t *(*code)(void *arg, uint64_t addr, size_t *avail);
    void *code_arg;
    /* Receives the packets of core TID, in order; nonzero stops the encoder
     * with TM_ERR_IO. */
    int (*write)(void *arg, uint32_t tid, const uint8_t *p, size_t n);
    void *write_arg;
} tm_pt_opts;

typedef struct tm_pt_stats {
    uint64_t packets[TM_PT_NKINDS], bytes[TM_PT_NKINDS];
    double cause_bits[TM_PT_NCAUSES];
    uint64_t total_bytes;
    uint64_t instructions;      /* retired, all cores */
    uint64_t cond, rets, rets_compressed, indirect, far, exceptions;
    uint64_t threads;           /* cores that ran */
    uint64_t cycles;            /* last cycle stamp + 1 */
    uint64_t psb;               /* PSB+ sent */
    uint64_t psb_periodic;      /* of them, every psb_period bytes (not at a thread's start) */
    uint64_t mem;               /* memory operands seen (not traced: no PTWRITE) */
} tm_pt_stats;

typedef struct tm_pt_encoder tm_pt_encoder;

/* Names of the kinds and causes ("tnt8", ...; "cond", ...). */
const char *tm_pt_kind_name(unsigned k);
const char *tm_pt_cause_name(unsigned c);

/* A new encoder for a stream of THREADS thread ids.  TM_ERR_ARG (ERR says
 * which option) for options out of range. */
int tm_pt_encoder_new(const tm_pt_opts *o, uint32_t threads, tm_pt_encoder **out, char *err, size_t errlen);
/* One commit-stream record, in the stream's order.  MEM and MODULE records
 * are ignored (Intel PT has no data trace here: no PTWRITE); END and ENDING end
 * every core's trace (tm_pt_encoder_finish does too).  On error the encoder
 * is unusable and ERR names the thread and pc. */
int tm_pt_encoder_put(tm_pt_encoder *e, const tmc_record *r, char *err, size_t errlen);
/* Ends every core's trace still open (FUP + TIP.PGD) and writes what is
 * pending. */
int tm_pt_encoder_finish(tm_pt_encoder *e, char *err, size_t errlen);
const tm_pt_stats *tm_pt_encoder_stats(const tm_pt_encoder *e);
/* Bytes written for core TID. */
uint64_t tm_pt_encoder_thread_bytes(const tm_pt_encoder *e, uint32_t tid);
void tm_pt_encoder_free(tm_pt_encoder *e);

/* ---- program image (the recording's module map) ---- */
typedef struct tm_pt_image tm_pt_image;

/* Loads the module map MODULES (BASE.modules) with its ELF files and the vdso
 * bytes VDSO (or NULL), as tm decode --from-binary does. */
int tm_pt_image_load(const char *modules, const char *vdso, int ignore_build_id, tm_pt_image **out, char *err,
                     size_t errlen);
/* tm_pt_opts.code for this image (ARG = the image). */
const uint8_t *tm_pt_image_code(void *arg, uint64_t addr, size_t *avail);
void tm_pt_image_free(tm_pt_image *im);

/* ---- decoder (libipt) ---- */

/* A raw PT buffer: tid, p, n, name (for messages: the file). */
typedef tm_stdfile_buf tm_pt_buffer;

typedef struct tm_pt_decode_result {
    uint64_t instructions; /* instructions decoded (all buffers) */
    uint64_t events;       /* enable, disable, mode, timing events */
    uint64_t checked;      /* verify: instructions compared with the commit stream */
    uint64_t threads;
} tm_pt_decode_result;

/* Decodes every buffer with libipt's instruction decoder (BLOCK: its block
 * decoder) over the image IM, counting instructions.  An error of the
 * decoder names the buffer, the packet offset and libipt's message. */
int tm_pt_decode(const tm_pt_image *im, const tm_pt_buffer *bufs, size_t n, int block, tm_pt_decode_result *res,
                 char *err, size_t errlen);
/* Decodes every buffer with libipt's instruction decoder and compares the
 * flow with the commit stream TMC, instruction by instruction: TM_OK,
 * TM_ERR_MISMATCH (ERR names the core, the instruction, its address and
 * the packet offset), or an input error.  A thread of the commit stream
 * without a buffer is a mismatch; PROGRESS (may be NULL) is called about
 * every 2^22 records. */
int tm_pt_verify(const tm_pt_image *im, const tm_pt_buffer *bufs, size_t n, const char *tmc,
                 tm_pt_decode_result *res, void (*progress)(uint64_t records, void *arg), void *arg, char *err,
                 size_t errlen);

/* ---- one pass: PT beside the trace module (pt/pt_cmp.c) ---- */

/* "tsc,mtc,cyc" (any of them, comma-separated), "all" or "none" into
 * TM_PT_* bits: 0, or -1 if V is none of these. */
int tm_pt_timing_parse(const char *v, unsigned *t);
/* The bits T as tm_pt_timing_parse reads them ("tsc,mtc", "none"). */
void tm_pt_timing_str(unsigned t, char *buf, size_t n);

typedef struct tm_pt_pass_opts {
    const char *tmc;       /* the commit stream */
    tm_pt_opts pt;         /* the encoder's options; its write callback gets the packets */
    int compare;           /* also PT without and with timing, and the trace module (large predictors, a
                              buffer and port that drop nothing) with each encoding without and with time
                              stamps, on the cores that ran */
    int variants;          /* also PT without and with timing (the PT rows of COMPARE) */
    void (*progress)(uint64_t records, void *arg); /* about every 2^22 records, or NULL */
    void *progress_arg;
} tm_pt_pass_opts;

#define TM_PT_ROWS (3 + 2 * 4) /* PT, PT+mtc, PT+cyc; each encoding without and with time stamps */
typedef struct tm_pt_row {
    char name[24];         /* "PT", "PT+mtc", "PT+cyc", "tr_e", "tr_e+ts", ... */
    double bits;
    uint64_t dropped;      /* messages the trace module dropped (its bits are then not the demand) */
    int timed;             /* the row it is compared with: 0 (PT) or 2 (PT+cyc); PT+mtc: itself */
} tm_pt_row;

typedef struct tm_pt_pass_result {
    tm_pt_stats st;        /* the encoder's */
    uint32_t threads;      /* thread ids of the stream */
    uint64_t *thread_bytes; /* bytes written per thread id (threads entries) */
    tm_pt_row rows[TM_PT_ROWS];
    size_t nrows;          /* 0 without compare or variants */
    int models;            /* the rows include the trace module's */
} tm_pt_pass_result;

/* Encodes the commit stream O->tmc with O->pt (and what O->compare and
 * O->variants add) in one pass.  TM_OK, or an error with ERR: the stream's
 * own (the reader's message), or "TMC: what" for an encoding error; a
 * failed write callback gives TM_ERR_IO (the callback said why).  RES is
 * filled on success; tm_pt_pass_result_free it in either case. */
int tm_pt_pass(const tm_pt_pass_opts *o, tm_pt_pass_result *res, char *err, size_t errlen);
void tm_pt_pass_result_free(tm_pt_pass_result *res);
/* The pass's text report (tm pt's standard output) to F, and its JSON
 * (tm pt --stats): TMC the stream's name, IMAGE whether code was read,
 * VERIFY the result of a --verify (NULL: none) and whether it passed. */
void tm_pt_report_text(FILE *f, const tm_pt_pass_result *res, const tm_pt_opts *po);
void tm_pt_report_json(FILE *f, const tm_pt_pass_result *res, const tm_pt_opts *po, const char *tmc, int image,
                       const tm_pt_decode_result *verify, int verify_ok);

#ifdef __cplusplus
}
#endif
#endif
