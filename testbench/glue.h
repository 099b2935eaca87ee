/* tm testbench — C interface to the Verilated RTL (testbench/glue.cpp is the
 * only C++: it wraps Verilator's generated class).
 *
 * The inputs set (tb_rtl_set) are those of the next cycle: the testbench's
 * top testbench/tm_tb.sv holds tm_top's retire inputs in a register, loaded
 * at the clock edge that starts the cycle (tb_rtl_clock, tb_rtl_clock_skip)
 * or, for the first cycle, by tb_rtl_load.  After either the logic is
 * settled for the new cycle: its outputs can be read. */
#ifndef TB_GLUE_H
#define TB_GLUE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One core's retire group for one cycle (rtl/tm_top.sv rv_*_i). */
typedef struct tb_retire {
    int valid;
    uint32_t count;
    int npc_valid;
    uint64_t npc;
    unsigned event;     /* tm_pkg::ev_e (TM_PKG_EV_*, tm_pkg.h) */
    unsigned bclass;    /* tm_pkg::br_class_e (= tmc_bclass) */
    int taken, flag;
    uint64_t pc, target;
    unsigned len;
    /* the memory operand (rtl/tm_top.sv mem_*_i; data tracing only); the
     * fields from mem_store on are read only with mem_valid */
    int mem_valid;
    int mem_store;
    unsigned mem_size;  /* 1..64 */
    uint64_t mem_addr;
    uint8_t mem_value[64]; /* memory order */
} tb_retire;

/* One core's observed offer (rtl/tm_top.sv obs_*_o): a bundle of a DATA
 * message (data) and a control message (ctrl), accepted or dropped whole. */
typedef struct tb_offer {
    int offer, resync, accept, drop;
    int ctrl;           /* the control message below is part of the offer */
    unsigned len;       /* its length */
    unsigned kind, ti, t, reason, lost, dropped;
    uint64_t cnt, diff_ta, icnt, gap, addr, diff_cc;
    int data;           /* a DATA message is part of the offer */
    unsigned dlen, dsize;
    uint64_t dfah;
    uint8_t dbits[128]; /* its bits, bit k of the message = bit k%8 of byte k/8 */
    unsigned acnt, acc, tf; /* tr_a: the core's accumulators A_cnt, A_cc, TF at the start of the cycle */
} tb_offer;

/* One core's cache in this cycle (rtl/tm_top.sv obs_dc_*_o; cfiat only). */
typedef struct tb_dcache {
    int valid;          /* the own access */
    unsigned lines;     /* lines it covers */
    uint32_t hit, fall, fany; /* per line i (bit i): hit; all / some touched flags set */
    unsigned inv[63];   /* invalidation port j: lines it found held */
    int clear;          /* flags cleared at the end of the cycle */
} tb_dcache;

typedef struct tb_rtl tb_rtl;

tb_rtl *tb_rtl_new(void);
void tb_rtl_free(tb_rtl *r);
/* Asserts and releases reset; the next cycle is cycle 0 (its inputs: set
 * them, then tb_rtl_load). */
void tb_rtl_reset(tb_rtl *r);
/* CORE's retire group of the next cycle (the one the next tb_rtl_clock or
 * tb_rtl_load starts); unchanged until set again. */
void tb_rtl_set(tb_rtl *r, unsigned core, const tb_retire *in);
/* The inputs set become the current cycle's without a clock edge (the
 * first cycle after reset); the logic is settled. */
void tb_rtl_load(tb_rtl *r);
void tb_rtl_offer(tb_rtl *r, unsigned core, tb_offer *o);
/* The cores (bit k: core k) whose offer is accepted or dropped in this
 * cycle; *OFFER the cores that offer (obs_offer_o).  N <= 64. */
uint64_t tb_rtl_reports(tb_rtl *r, uint64_t *offer);
/* The cache observation of CORE (all 0 without CFiat). */
void tb_rtl_dcache(tb_rtl *r, unsigned core, tb_dcache *d);
/* Port lanes of this cycle: returns the number of valid lanes, *data the bits. */
unsigned tb_rtl_port(tb_rtl *r, uint64_t *data_lo, uint64_t *data_hi);
uint64_t tb_rtl_cycle(tb_rtl *r);
uint32_t tb_rtl_occupancy(tb_rtl *r);
/* Rising clock edge: ends the current cycle and starts the next one, with
 * the inputs set; the logic is settled. */
void tb_rtl_clock(tb_rtl *r);
/* The same, and the RTL's cycle counter moves EXTRA cycles further
 * (tm_top idle_skip_i): only while the module is idle. */
void tb_rtl_clock_skip(tb_rtl *r, uint64_t extra);
/* FST waveform: open (returns 0 on success), and close. */
int tb_rtl_wave_open(tb_rtl *r, const char *path);
void tb_rtl_wave_close(tb_rtl *r);

#ifdef __cplusplus
}
#endif
#endif
