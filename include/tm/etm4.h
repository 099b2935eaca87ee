/* tm — ARM ETMv4 instruction trace on the same executions (docs/standards.md §3).
 *
 * The encoder turns an AArch64 commit stream into the byte stream each
 * core's ETMv4 trace unit would have written for that execution (ARM IHI
 * 0064, ETMv4 architecture specification): one raw ETMv4 stream per core
 * (no CoreSight formatter frames), user-only tracing (EL0, as perf's
 * cs_etm//u).  The decoder side decodes those streams with OpenCSD's full
 * ETMv4 decoder over the recording's ELF images and compares the
 * instructions with the commit stream.
 *
 * What is modelled (docs/standards.md §3.1): A-sync + Trace Info + Address with
 * Context at each core's start and every sync_period bytes; Trace On after
 * trace left the traced region (a system call, a signal); Exception packets
 * (SVC: Call; a signal's kernel entry: IRQ) with the preferred return
 * address; atoms packed into formats 1..6; address packets compressed
 * against the 3-entry address history (exact match, short, long 32/64);
 * optionally the return stack (TRCCONFIGR.RS), timestamps (TS) and cycle
 * counts (CCI).  Branch broadcast off: direct branches are atoms only. */
#ifndef TM_ETM4_H
#define TM_ETM4_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/stdfile.h"
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Packet kinds (tm_etm4_stats.packets/bytes). */
enum {
    TM_ETM4_K_ASYNC = 0,   /* A-sync, 12 bytes */
    TM_ETM4_K_TINFO,       /* Trace Info */
    TM_ETM4_K_TRACE_ON,    /* Trace On */
    TM_ETM4_K_CTXT,        /* Context */
    TM_ETM4_K_ADDR_CTXT,   /* Address with Context, long 64-bit IS0 */
    TM_ETM4_K_ADDR_MATCH,  /* exact match address */
    TM_ETM4_K_ADDR_S,      /* short address IS0 (1 or 2 payload bytes) */
    TM_ETM4_K_ADDR_L32,    /* long address, 32-bit IS0 */
    TM_ETM4_K_ADDR_L64,    /* long address, 64-bit IS0 */
    TM_ETM4_K_ATOM1, TM_ETM4_K_ATOM2, TM_ETM4_K_ATOM3, TM_ETM4_K_ATOM4, TM_ETM4_K_ATOM5, TM_ETM4_K_ATOM6,
    TM_ETM4_K_EXCEPT,      /* Exception (its address packet counts as an address) */
    TM_ETM4_K_TS,          /* Timestamp */
    TM_ETM4_K_CC,          /* Cycle count, format 1 or 3 */
    TM_ETM4_NKINDS
};

/* The TRCCONFIGR the encoder's options mean (the decoder is configured with it). */
#define TM_ETM4_CONFIGR_CCI (1u << 4)
#define TM_ETM4_CONFIGR_RS (1u << 12)
#define TM_ETM4_CONFIGR_TS (1u << 11)
/* The cycle count threshold (TRCCCCTLR) of --cycle-counts. */
#define TM_ETM4_CC_THRESHOLD 4u

typedef struct tm_etm4_opts {
    uint32_t sync_period;  /* bytes of a core's stream between A-sync + trace info (0: 4096); 64 .. 2^30 */
    int return_stack;      /* TRCCONFIGR.RS: returns the return stack predicts carry no address */
    int timestamps;        /* TRCCONFIGR.TS: timestamp packets (from the commit stream's cycles) */
    int cycle_counts;      /* TRCCONFIGR.CCI: cycle counts */
    /* The code bytes at ADDR (*AVAIL readable), as tm_pt_opts.code: the
     * encoder decodes each run once to find its system calls (SVC).  NULL:
     * none are looked for (streams without code). */
    const uint8_t *(*code)(void *arg, uint64_t addr, size_t *avail);
    void *code_arg;
    /* Receives core TID's bytes, in order; nonzero stops the encoder with TM_ERR_IO. */
    int (*write)(void *arg, uint32_t tid, const uint8_t *p, size_t n);
    void *write_arg;
} tm_etm4_opts;

typedef struct tm_etm4_stats {
    uint64_t total_bytes;
    uint64_t instructions;     /* retired, all cores */
    uint64_t threads;          /* cores that ran */
    uint64_t cycles;           /* last cycle stamp + 1 */
    uint64_t packets[TM_ETM4_NKINDS], bytes[TM_ETM4_NKINDS];
    uint64_t atoms;            /* E and N atoms */
    uint64_t branches, cond, indirect;
    uint64_t rets, rets_predicted; /* returns; of them, predicted by the return stack (no address) */
    uint64_t syscalls, exceptions; /* SVC found in runs; signals (EXC records) */
    uint64_t syncs, syncs_periodic;
    uint64_t untraced;         /* instructions after a core's last P0 element (no element shows them) */
} tm_etm4_stats;

typedef struct tm_etm4_encoder tm_etm4_encoder;

/* "async", "trace_info", ... */
const char *tm_etm4_kind_name(unsigned k);

int tm_etm4_encoder_new(const tm_etm4_opts *o, uint32_t threads, tm_etm4_encoder **out, char *err, size_t errlen);
/* One commit-stream record, in the stream's order.  MEM and MODULE records
 * are ignored; END and ENDING end every core's trace. */
int tm_etm4_encoder_put(tm_etm4_encoder *e, const tmc_record *r, char *err, size_t errlen);
int tm_etm4_encoder_finish(tm_etm4_encoder *e, char *err, size_t errlen);
const tm_etm4_stats *tm_etm4_encoder_stats(const tm_etm4_encoder *e);
uint64_t tm_etm4_encoder_thread_bytes(const tm_etm4_encoder *e, uint32_t tid);
void tm_etm4_encoder_free(tm_etm4_encoder *e);

/* TRCCONFIGR for the options O. */
uint32_t tm_etm4_configr(const tm_etm4_opts *o);

/* ---- decoder (OpenCSD) ---- */

/* The recording's program image (the module map and vdso), AArch64. */
typedef struct tm_etm4_image tm_etm4_image;
int tm_etm4_image_load(const char *modules, const char *vdso, int ignore_build_id, tm_etm4_image **out, char *err,
                       size_t errlen);
/* The module map beside SRC (SRC without .tmc, .modules; .vdso if it
 * exists), or MODULES / VDSO when given. */
int tm_etm4_image_beside(const char *src, const char *modules, const char *vdso, int ignore_build_id,
                         tm_etm4_image **out, char *err, size_t errlen);
/* tm_etm4_opts.code for this image (ARG = the image). */
const uint8_t *tm_etm4_image_code(void *arg, uint64_t addr, size_t *avail);
void tm_etm4_image_free(tm_etm4_image *im);

/* A raw ETMv4 stream: tid, p, n, name (for messages: the file). */
typedef tm_stdfile_buf tm_etm4_buffer;

typedef struct tm_etm4_decode_result {
    uint64_t instructions; /* instructions OpenCSD decoded (all buffers) */
    uint64_t elements;     /* generic elements */
    uint64_t checked;      /* instructions compared with the commit stream */
    uint64_t untraced;     /* instructions of the commit stream after a core's last P0 element */
    uint64_t threads;
} tm_etm4_decode_result;

/* Decodes every buffer with OpenCSD's ETMv4 decoder (configured with
 * CONFIGR) over the image IM and compares the instructions with the
 * commit stream TMC: TM_OK, TM_ERR_MISMATCH (ERR names the core, the
 * instruction, its address and the packet offset), TM_ERR_FORMAT (the
 * decoder's error, with the packet offset), or an input error. */
int tm_etm4_verify(const tm_etm4_image *im, const tm_etm4_buffer *bufs, size_t n, uint32_t configr, const char *tmc,
                   tm_etm4_decode_result *res, char *err, size_t errlen);

/* The same over any code and records: CODE as tm_etm4_opts.code; NEXT
 * gives the records of a stream of NTHR thread ids (1, 0 at the end, or an
 * error with ERR) and *AT, the offset messages name; TMC names the stream. */
typedef const uint8_t *(*tm_etm4_code_fn)(void *arg, uint64_t addr, size_t *avail);
typedef int (*tm_etm4_next_fn)(void *arg, tmc_record *rec, uint64_t *at, char *err, size_t errlen);
int tm_etm4_verify_records(tm_etm4_code_fn code, void *code_arg, const tm_etm4_buffer *bufs, size_t n,
                           uint32_t configr, uint32_t nthr, tm_etm4_next_fn next, void *next_arg, const char *tmc,
                           tm_etm4_decode_result *res, char *err, size_t errlen);

/* ---- single packets (std/etm4_enc.c; for the unit tests) ---- */
/* One atom packet for the oldest of the N pending atoms A (bit 0 the
 * oldest, 1 = E): its byte in *B, its kind, and the atoms it carries. */
unsigned tm_etm4_atom_packet(uint64_t a, unsigned n, uint8_t *b, unsigned *kind);
/* The timestamp packet of TS when the decoder has PREV (FRESH: just after
 * a Trace Info): its bytes in P (up to 10), the length. */
size_t tm_etm4_ts_packet(uint64_t ts, uint64_t prev, int fresh, uint8_t *p);
/* The shortest address packet for A against the address history H (NH
 * valid entries, H[0] the most recent): its bytes in P (up to 9). */
size_t tm_etm4_addr_packet(uint64_t a, const uint64_t *h, unsigned nh, uint8_t *p, unsigned *kind);
/* Address with Context (long 64-bit IS0, EL0, AArch64, Non-secure): 10 bytes. */
size_t tm_etm4_addr_ctxt_packet(uint64_t a, uint8_t *p);

/* ---- files BASE.T<n>.etm (tm/stdfile.h with "etm") ---- */
int tm_etm4_file_name(char *buf, size_t n, const char *base, uint32_t tid);
typedef tm_stdfile_files tm_etm4_files;
/* Loads BASE.T<n>.etm for n < THREADS (those that exist); none is an error
 * unless ALLOW_EMPTY. */
int tm_etm4_files_load(tm_etm4_files *f, const char *base, uint32_t threads, int allow_empty, char *err,
                       size_t errlen);
void tm_etm4_files_free(tm_etm4_files *f);
/* An output BASE.T<n>.etm that is IN or STATS: TM_ERR_ARG. */
int tm_etm4_outputs_check(const char *base, uint32_t threads, const char *in, const char *stats, char *err,
                          size_t errlen);
/* Loads BASE.T<n>.etm and verifies them against TMC (threads from TMC). */
int tm_etm4_verify_files(const tm_etm4_image *im, const char *base, uint32_t configr, const char *tmc,
                         tm_etm4_decode_result *res, char *err, size_t errlen);

/* ---- one pass over a commit stream ---- */

#define TM_ETM4_VARIANTS 4 /* ETMv4, ETMv4+rs, ETMv4+rs+ts, ETMv4+rs+ts+cc */
typedef struct tm_etm4_pass_opts {
    const char *tmc;
    tm_etm4_opts etm;      /* the written stream's options; its write callback gets the bytes */
    int compare;           /* also the variants and the trace module's rows (tm/stdcmp.h) */
} tm_etm4_pass_opts;

typedef struct tm_std_row tm_std_row;
typedef struct tm_etm4_pass_result {
    tm_etm4_stats st;      /* the written stream's encoder */
    uint32_t threads;
    uint64_t *thread_bytes;
    tm_std_row *rows;      /* compare: the variants, then the trace module's */
    size_t nrows;
} tm_etm4_pass_result;

/* Encodes O->tmc (an AArch64 stream; else TM_ERR_ARG) into BASE.T<n>.etm. */
int tm_etm4_encode_files(const tm_etm4_pass_opts *o, const char *base, tm_etm4_pass_result *res, char *err,
                         size_t errlen);
void tm_etm4_pass_result_free(tm_etm4_pass_result *res);
/* The text report (tm etm4's standard output) and its JSON. */
void tm_etm4_report_text(FILE *f, const tm_etm4_pass_result *res, const tm_etm4_opts *o);
void tm_etm4_report_json(FILE *f, const tm_etm4_pass_result *res, const tm_etm4_opts *o, const char *tmc,
                         const tm_etm4_decode_result *verify, int verify_ok);

#ifdef __cplusplus
}
#endif
#endif
