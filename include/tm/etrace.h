/* tm — RISC-V Efficient Trace (E-Trace v2.0) branch trace on the same
 * executions (docs/standards.md).
 *
 * DRAFT interface (issue 38): the E-Trace helper owns this header and may
 * add to it; the calls below are what tm std and the side-by-side pass use.
 *
 * The encoder turns a RISC-V commit stream into the te_inst (and support)
 * packets each hart's E-Trace encoder would send, in the spec's compressed
 * encapsulation, one stream per hart; the decoder is the spec's decoder
 * algorithm over the recording's ELF images, compared with the commit
 * stream.  Options: the efficiency extensions (implicit return, branch
 * prediction, jump target cache) in every combination. */
#ifndef TM_ETRACE_H
#define TM_ETRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_et_opts {
    int implicit_return;   /* returns to where the call stack says are not reported */
    unsigned bp_log2;      /* branch predictor of 2^bp_log2 entries; 0: off */
    unsigned jtc_log2;     /* jump target cache of 2^jtc_log2 entries; 0: off */
    /* The code bytes at ADDR (*AVAIL readable); NULL: none. */
    const uint8_t *(*code)(void *arg, uint64_t addr, size_t *avail);
    void *code_arg;
    /* Receives hart TID's bytes, in order; nonzero stops the encoder with TM_ERR_IO. */
    int (*write)(void *arg, uint32_t tid, const uint8_t *p, size_t n);
    void *write_arg;
    /* Resynchronisation (the spec's resync timer, counted in a hart's output
     * bytes): a format 3 start packet once this many bytes were sent since
     * the last one; 0: 4096; UINT32_MAX: never. */
    uint32_t resync;
} tm_et_opts;

/* Packet kinds (tm_et_stats.packets/bytes): te_inst formats and subformats. */
enum {
    TM_ET_F0_BC = 0, /* format 0 subformat 0: count of correctly predicted branches (with or without address) */
    TM_ET_F0_JTC,    /* format 0 subformat 1: jump target cache index (and branch map) */
    TM_ET_F1_ADDR,   /* format 1: branch map and differential address */
    TM_ET_F1_FULL,   /* format 1: full branch map (31 branches), no address */
    TM_ET_F2,        /* format 2: differential address only */
    TM_ET_F3_START,  /* format 3 subformat 0: synchronisation (start) */
    TM_ET_F3_TRAP,   /* format 3 subformat 1: trap */
    TM_ET_F3_SUPPORT, /* format 3 subformat 3: support (encoder options, end of qualification) */
    TM_ET_NKINDS
};

typedef struct tm_et_stats {
    uint64_t total_bytes;
    uint64_t instructions;
    uint64_t threads;
    uint64_t cycles;
    uint64_t packets[TM_ET_NKINDS], bytes[TM_ET_NKINDS]; /* bytes: encapsulation header included */
    uint64_t branches;        /* conditional branches */
    uint64_t predicted;       /* of them, predicted correctly (branch prediction on) */
    uint64_t updiscons;       /* uninferable discontinuities reported (targets sent) */
    uint64_t implicit_returns; /* returns the return stack predicted (not sent) */
    uint64_t failed_returns;  /* returns reported with irreport (or by a resync when ambiguous) */
    uint64_t jtc_hits;        /* targets sent as a jump target cache index */
    uint64_t syscalls;        /* ecall: end of qualification, start again after it */
    uint64_t exceptions;      /* EXC records: trap packets at the handler */
    uint64_t resyncs;         /* synchronisations by the resync timer */
} tm_et_stats;

/* Name of a packet kind ("f0_bc", ...). */
const char *tm_et_kind_name(unsigned k);

/* ---- packets (std/etrace_pkt.c): the field tables of the spec, one source
 * of truth for the encoder and the decoder ---- */

/* Static parameters of the modelled encoder (docs/standards.md §4). */
#define TM_ET_IADDR_BITS 63u   /* iaddress_width_p 64 - iaddress_lsb_p 1 */
#define TM_ET_PRIV_BITS 2u     /* privilege_width_p */
#define TM_ET_ECAUSE_BITS 6u   /* ecause_width_p */
#define TM_ET_RS_LOG2 5u       /* return_stack_size_p: 32 predicted return addresses */
#define TM_ET_RS_ENTRIES (1u << TM_ET_RS_LOG2)
#define TM_ET_IRDEPTH_BITS (TM_ET_RS_LOG2 + 1u)
#define TM_ET_IOPTIONS_BITS 5u /* implicit return, implicit exception, branch prediction, jtc, full address */
#define TM_ET_IOPT_IR 1u
#define TM_ET_IOPT_BP 4u
#define TM_ET_IOPT_JTC 8u
#define TM_ET_MAX_PAYLOAD 31u  /* bytes (the encapsulation's 5-bit length) */
/* qual_status */
#define TM_ET_QUAL_NO_CHANGE 0u
#define TM_ET_QUAL_ENDED_REP 1u
#define TM_ET_QUAL_TRACE_LOST 2u
#define TM_ET_QUAL_ENDED_NTR 3u

/* The widths a decoder needs to read packets (from the options). */
typedef struct tm_et_cfg {
    int ir;
    unsigned bp_log2, jtc_log2;
} tm_et_cfg;

/* One packet's fields.  notify, updiscon and irreport are logical (1: the
 * bit differs from the one before it in the packet); the packer derives the
 * transmitted bits. */
typedef struct tm_et_packet {
    unsigned kind;           /* TM_ET_* */
    uint64_t address;        /* the address field: differential or full, already >> iaddress_lsb_p */
    uint32_t branch_map;     /* bit 0 the oldest branch; 1 = not taken */
    unsigned branches;       /* F1_ADDR, F0_JTC: 0..31 */
    uint32_t branch_count;   /* F0_BC: correctly predicted - 31 */
    unsigned branch_fmt;     /* F0_BC: 0 no address, 2 address, 3 address of a failed branch */
    uint32_t index;          /* F0_JTC */
    unsigned notify, updiscon, irreport, irdepth;
    unsigned branch;         /* F3: 0 = the instruction is a taken branch */
    unsigned privilege, ecause, interrupt, thaddr;
    uint64_t tval;
    unsigned ienable, encoder_mode, qual_status, ioptions, denable, dloss; /* support */
} tm_et_packet;

/* Packs P, compresses it (sign-based: redundant top bits removed, then
 * sign-extended to a byte) and encapsulates it (header byte: length,
 * flow 0, extend 0; no srcID, no type, no timestamp) into OUT: the bytes
 * written (2 .. 1 + TM_ET_MAX_PAYLOAD), 0 if it does not fit. *BITS (may be
 * NULL): the uncompressed payload's bits. */
size_t tm_et_pack(const tm_et_cfg *c, const tm_et_packet *p, uint8_t *out, size_t n, unsigned *bits);
/* Reads one encapsulated packet at IN (N bytes): its length in bytes (> 0),
 * 0 at a null packet (one byte: skipped by the caller), or -1 if the header's
 * length runs past N, -2 if the payload is not a packet of a known format. */
int tm_et_unpack(const tm_et_cfg *c, const uint8_t *in, size_t n, tm_et_packet *p);
/* The number of bytes of the payload of NBITS bits BITS (LSB first) after
 * sign compression. */
size_t tm_et_compressed_bytes(const uint8_t *bits, unsigned nbits);

/* ---- predictor, jump target cache, return stack (std/etrace_pred.c): the
 * encoder and the decoder run the same code ---- */
typedef struct tm_et_pred {
    unsigned bp_log2, jtc_log2;
    int ir;
    uint8_t *bp;             /* 2-bit states: 00, 01 not taken; 11, 10 taken (MSB: the prediction) */
    uint64_t *jtc;           /* addresses; 0 = invalid */
    uint64_t rs[TM_ET_RS_ENTRIES]; /* return stack: circular, the oldest dropped when full */
    unsigned rs_top, rs_n;
} tm_et_pred;

int tm_et_pred_init(tm_et_pred *p, int ir, unsigned bp_log2, unsigned jtc_log2);
void tm_et_pred_free(tm_et_pred *p);
/* At every synchronisation packet: predictor entries 01, cache invalid, stack empty. */
void tm_et_pred_reset(tm_et_pred *p);
/* The predicted outcome of the branch at PC (1 taken), then the entry updated with TAKEN. */
int tm_et_bp_predict(const tm_et_pred *p, uint64_t pc);
void tm_et_bp_update(tm_et_pred *p, uint64_t pc, int taken);
unsigned tm_et_jtc_index(const tm_et_pred *p, uint64_t addr);
int tm_et_jtc_hit(const tm_et_pred *p, uint64_t addr);
void tm_et_jtc_insert(tm_et_pred *p, uint64_t addr);
uint64_t tm_et_jtc_get(const tm_et_pred *p, unsigned index);
void tm_et_rs_push(tm_et_pred *p, uint64_t ret);
/* Pops into *RET: 0, or -1 if the stack is empty. */
int tm_et_rs_pop(tm_et_pred *p, uint64_t *ret);
static inline uint64_t tm_et_rs_top(const tm_et_pred *p)
{
    return p->rs[(p->rs_top + TM_ET_RS_ENTRIES - 1) % TM_ET_RS_ENTRIES];
}

/* Predictor and cache state per hart the decoder mirrors, in bits (as
 * docs/spec.md §3.3.3 counts the trace module's). */
uint64_t tm_et_storage_bits(const tm_et_opts *o);

typedef struct tm_et_encoder tm_et_encoder;

int tm_et_encoder_new(const tm_et_opts *o, uint32_t threads, tm_et_encoder **out, char *err, size_t errlen);
int tm_et_encoder_put(tm_et_encoder *e, const tmc_record *r, char *err, size_t errlen);
int tm_et_encoder_finish(tm_et_encoder *e, char *err, size_t errlen);
const tm_et_stats *tm_et_encoder_stats(const tm_et_encoder *e);
uint64_t tm_et_encoder_thread_bytes(const tm_et_encoder *e, uint32_t tid);
void tm_et_encoder_free(tm_et_encoder *e);

/* ---- decoder (std/etrace_dec.c): the spec's decoder algorithm over the
 * code, compared with the commit stream as it is read ---- */
typedef struct tm_et_verifier tm_et_verifier;

/* A verifier for a stream of THREADS thread ids, with the options O (its
 * extensions and O->code; write is not used). */
int tm_et_verifier_new(const tm_et_opts *o, uint32_t threads, tm_et_verifier **out, char *err, size_t errlen);
/* Hart TID's E-Trace bytes (kept by the caller until the verifier is freed);
 * NAME for messages.  A hart of the commit stream without bytes is a mismatch. */
void tm_et_verifier_set(tm_et_verifier *v, uint32_t tid, const uint8_t *p, size_t n, const char *name);
/* One commit-stream record: TM_OK, TM_ERR_MISMATCH (ERR names the hart,
 * the instruction count and address and the packet's byte offset) or
 * TM_ERR_FORMAT (a damaged stream). */
int tm_et_verifier_put(tm_et_verifier *v, const tmc_record *r, char *err, size_t errlen);
/* Every hart's stream must end where its commit stream does. */
int tm_et_verifier_finish(tm_et_verifier *v, char *err, size_t errlen);
uint64_t tm_et_verifier_checked(const tm_et_verifier *v);
uint64_t tm_et_verifier_threads(const tm_et_verifier *v);
void tm_et_verifier_free(tm_et_verifier *v);

/* Hart t's bytes P[t] (N[t]; P[t] NULL: no stream; NAMES[t] for messages,
 * NAMES NULL: "T<t>") of THREADS harts decoded
 * with O and compared with the commit stream TMC in one read of it: TM_OK
 * with *CHECKED instructions of *HARTS harts, or TM_ERR_MISMATCH / an
 * error with ERR. */
int tm_et_verify_buffers(const tm_et_opts *o, uint32_t threads, const uint8_t *const *p, const size_t *n,
                         const char *const *names, const char *tmc, uint64_t *checked, uint64_t *harts, char *err,
                         size_t errlen);

/* ---- files and the pass (std/etrace_file.c) ---- */
typedef struct tm_et_image tm_et_image;
/* The module map MODULES (NULL: SRC without .tmc + .modules) and the vdso
 * (NULL: beside SRC if there), RISC-V. */
int tm_et_image_beside(const char *src, const char *modules, const char *vdso, tm_et_image **out, char *err,
                       size_t errlen);
/* tm_et_opts.code for this image (ARG = the image). */
const uint8_t *tm_et_image_code(void *arg, uint64_t addr, size_t *avail);
void tm_et_image_free(tm_et_image *im);

/* BASE.T<tid>.ete into BUF (tm/stdfile.h): 0, or -1 if it does not fit. */
int tm_et_file_name(char *buf, size_t n, const char *base, uint32_t tid);

#define TM_ET_VARIANTS 8
typedef struct tm_et_variant {
    char name[48];         /* "E-Trace", "E-Trace ir bp10 jtc6", ... */
    tm_et_opts o;
    tm_et_stats st;
    uint64_t storage_bits;
    int verified;          /* 1 ok, 0 failed, -1 not checked */
    char why[256];         /* the failure */
} tm_et_variant;

typedef struct tm_et_pass_opts {
    const char *tmc;
    tm_et_opts et;         /* the main encoding (written to files with BASE) */
    const char *base;      /* BASE, or NULL: nothing written */
    int verify;            /* decode the main encoding and compare */
    int variants;          /* every combination of the extensions, each verified in memory */
    unsigned var_bp_log2, var_jtc_log2; /* the sizes of the variants' predictor and cache */
    int compare;           /* the trace module's rows beside them (tm/stdcmp.h) */
} tm_et_pass_opts;

typedef struct tm_et_pass_result {
    tm_et_stats st;
    uint32_t threads;
    uint64_t verified;     /* instructions checked by --verify */
    uint64_t vthreads;
    tm_et_variant var[TM_ET_VARIANTS];
    size_t nvar;
    void *rows;            /* tm_std_row[nrows] with compare */
    size_t nrows;
} tm_et_pass_result;

/* The encoding pass: TM_OK; TM_ERR_ARG for a stream that is not RISC-V (ERR
 * says so); TM_ERR_MISMATCH when --verify fails; others with ERR. */
int tm_et_pass(const tm_et_pass_opts *o, tm_et_pass_result *res, char *err, size_t errlen);
/* tm etrace --check: BASE.T<n>.ete decoded and compared with TMC. */
int tm_et_check(const char *tmc, const char *base, const tm_et_opts *o, uint64_t *checked, uint64_t *threads,
                char *err, size_t errlen);
void tm_et_pass_result_free(tm_et_pass_result *r);
void tm_et_report_text(FILE *f, const tm_et_pass_result *r, const tm_et_opts *o);
void tm_et_report_json(FILE *f, const tm_et_pass_result *r, const tm_et_opts *o, const char *tmc);

#ifdef __cplusplus
}
#endif
#endif
