/* tm — unit testbenches of the predictor and message-encoder RTL: stimulus
 * and checking against the C library (C side).  The Verilator glue (C++)
 * only moves these structs in and out of the model's ports.
 *
 * The references are testbench/unit/ref_<module>.c (ref_common.c: the
 * shared parts); the TAGE-class ones have headers of their own
 * (tb_ref_tage.h, tb_ref_ittage.h).
 *
 * Every testbench instantiates several parameter sets ("configs") of one
 * module side by side; each config has its own stimulus stream and its own
 * C reference, and gets its own PASS/FAIL line. */
#ifndef TM_TB_REF_H
#define TM_TB_REF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TB_MAXP 8 /* most sequential ports of any testbench */

/* Small deterministic PRNG (splitmix64). */
uint64_t tb_rand(uint64_t *s);
/* A 64-bit value with a random number (0..64) of significant bits, biased
 * toward the interesting ones: 0, all ones of a width, 2^k, random. */
uint64_t tb_rand_value(uint64_t *s);

/* Common report: prints "PASS name: ..." or "FAIL name: ..."; returns 1 if
 * failed. */
int tb_report(const char *name, int failed, const char *detail);
/* 1 with probability 1/N (the stream S). */
int tb_one_in(uint64_t *s, unsigned n);
/* The reset / clear schedule shared by the predictor testbenches. */
void tb_reset_clear(uint64_t *s, uint64_t cycle, uint8_t *rst_n, uint8_t *clear);
/* A tm_pred of those sizes (exit 2 if the library refuses them). */
struct tm_pred *tb_pred_new(unsigned gshare, unsigned ras, unsigned ibtb);

/* ---- gshare ---- */
typedef struct tb_gshare_io {
    /* inputs for one cycle */
    uint8_t rst_n, clear;
    uint8_t valid[TB_MAXP], taken[TB_MAXP];
    uint64_t pc[TB_MAXP];
    /* outputs of the DUT in that cycle (before the clock edge) */
    uint8_t pred[TB_MAXP];
} tb_gshare_io;
typedef struct tb_gshare tb_gshare;
tb_gshare *tb_gshare_new(unsigned entries, unsigned ports, uint64_t seed);
void tb_gshare_stim(tb_gshare *t, tb_gshare_io *io);
/* Runs the reference for the cycle of IO and compares; 0 = match. */
int tb_gshare_check(tb_gshare *t, const tb_gshare_io *io);
int tb_gshare_finish(tb_gshare *t); /* report, free; 1 = failed */

/* ---- RAS ---- */
typedef struct tb_ras_io {
    uint8_t rst_n, clear;
    uint8_t push[TB_MAXP], pop[TB_MAXP];
    uint64_t addr[TB_MAXP];
    uint8_t hit[TB_MAXP];
    uint64_t pred[TB_MAXP];
} tb_ras_io;
typedef struct tb_ras tb_ras;
tb_ras *tb_ras_new(unsigned entries, unsigned ports, uint64_t seed);
void tb_ras_stim(tb_ras *t, tb_ras_io *io);
int tb_ras_check(tb_ras *t, const tb_ras_io *io);
int tb_ras_finish(tb_ras *t);

/* ---- iBTB ---- */
typedef struct tb_ibtb_io {
    uint8_t rst_n, clear;
    uint8_t valid[TB_MAXP];
    uint64_t pc[TB_MAXP], target[TB_MAXP];
    uint8_t hit[TB_MAXP];
    uint64_t pred[TB_MAXP];
} tb_ibtb_io;
typedef struct tb_ibtb tb_ibtb;
tb_ibtb *tb_ibtb_new(unsigned entries, unsigned ports, uint64_t seed);
void tb_ibtb_stim(tb_ibtb *t, tb_ibtb_io *io);
int tb_ibtb_check(tb_ibtb *t, const tb_ibtb_io *io);
int tb_ibtb_finish(tb_ibtb *t);

/* ---- message encoder ---- */
#define TB_MSG_MAXW 512 /* width of the wrapper's bits output per config */
typedef struct tb_msg_io {
    /* the message (tm_pkg::msg_t fields) */
    uint8_t kind, t, reason, lost, dropped;
    uint32_t ti;
    uint64_t cnt, diff_ta, icnt, gap, addr, diff_cc;
    /* tr_a: the thread's accumulators A_cnt, A_cc, TF (spec §4.9) */
    uint16_t acnt, acc, tf;
    /* outputs of the DUT */
    uint8_t bits[TB_MSG_MAXW / 8]; /* bit k in bits[k/8] >> (k%8) */
    unsigned len;
} tb_msg_io;
typedef struct tb_msg tb_msg;
/* DATA: the data tracing mode (0 none; else every message has the class
 * bit Q).  ENC: the encoding (tm_encoding; the fixed ones differ only in
 * their chunks, given here; TM_ENC_TR_A: the adaptive codes, checked
 * against tm_msg_encode_a / tm_msg_bits_a with random states: A_cnt, A_cc
 * and TF, so both forms of the message kind).  MAXW: the
 * module's MAXW parameter (checked against tm_msg_max_bits, less the DATA
 * message's tm_msg_data_max_bits). */
tb_msg *tb_msg_new(unsigned tiw, unsigned ts, unsigned ca, unsigned cb, unsigned ta, unsigned tb,
                   unsigned ha, unsigned hb, unsigned data, unsigned enc, unsigned maxw, uint64_t seed);
void tb_msg_stim(tb_msg *t, tb_msg_io *io);
int tb_msg_check(tb_msg *t, const tb_msg_io *io);
int tb_msg_finish(tb_msg *t);

/* ---- CFiat data cache (rtl/tm_dcache.sv against cmodel/cache.c) ---- */
#define TB_DC_LINES 17 /* most lines of an operand: 4-byte lines */
#define TB_DC_PORTS 7  /* most invalidation ports: N = 8 */
typedef struct tb_dcache_io {
    /* inputs for one cycle */
    uint8_t rst_n, clear, valid, store, size;
    uint64_t addr;
    uint8_t inv_valid[TB_DC_PORTS], inv_before[TB_DC_PORTS], inv_size[TB_DC_PORTS];
    uint64_t inv_addr[TB_DC_PORTS];
    /* outputs of the DUT in that cycle (before the clock edge) */
    uint8_t lines, all_hit, flags_hit, report;
    uint8_t line_hit[TB_DC_LINES], line_way[TB_DC_LINES], line_fall[TB_DC_LINES],
        line_fany[TB_DC_LINES];
    uint8_t inv_lines[TB_DC_PORTS];
} tb_dcache_io;
typedef struct tb_dcache tb_dcache;
/* A private cache of one of N cores (N - 1 invalidation ports). */
tb_dcache *tb_dcache_new(unsigned size, unsigned assoc, unsigned line, unsigned gran, unsigned n,
                         uint64_t seed);
void tb_dcache_stim(tb_dcache *t, tb_dcache_io *io);
int tb_dcache_check(tb_dcache *t, const tb_dcache_io *io);
int tb_dcache_finish(tb_dcache *t); /* report, free; 1 = failed */
void tb_dcache_free(tb_dcache *t);  /* free without a report */

/* ---- DATA message encoder (rtl/tm_data_enc.sv against tm_msg_encode) ---- */
#define TB_DATA_MAXW 704 /* width of the wrapper's bits output per config */
typedef struct tb_data_io {
    uint64_t fah;
    uint8_t size;      /* 1..64 */
    uint8_t value[64]; /* byte k at value_i[8k +: 8]; bytes >= size are junk */
    uint8_t bits[TB_DATA_MAXW / 8];
    unsigned len;
} tb_data_io;
typedef struct tb_data tb_data;
/* TI: the core index (a parameter of the module); MAXW: its MAXW
 * (checked against tm_msg_data_max_bits). */
tb_data *tb_data_new(unsigned ti, unsigned tiw, unsigned fa, unsigned fb, unsigned maxw,
                     uint64_t seed);
void tb_data_stim(tb_data *t, tb_data_io *io);
int tb_data_check(tb_data *t, const tb_data_io *io);
int tb_data_finish(tb_data *t);

#ifdef __cplusplus
}
#endif
#endif
