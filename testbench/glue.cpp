// tm testbench — the thin C++ glue around Verilator's generated model of
// rtl/tm_top.sv, under the testbench's top testbench/tm_tb.sv (its retire
// inputs through a register: tb_rtl_set gives the next cycle's).  Everything else of the testbench is C (testbench/cosim/: main.c, drive.c, compare.c, coverage.c).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include "Vtm_tb.h"
#include "verilated.h"
#include "verilated_fst_c.h"
#include "glue.h"
#include "params.h" // this simulator's parameter set (TM_RTL_*), written by tm cosim
#include "tm_pkg.h" // rtl/tm_pkg.sv's codes and msg_t's layout (TM_PKG_*), made by testbench/sim.mk

// Data tracing widths (rtl/tm_top.sv): the longest DATA message (1 without
// data tracing), lines of one operand, their count, invalidation ports.
static const unsigned kDmaxw = TM_RTL_DMAXW;
static const unsigned kDlmax = TM_RTL_DLMAX; // include/tm/rtl_params.h, as tm_top derives it
static constexpr unsigned clog2(unsigned v) { return v <= 1 ? 0 : 1 + clog2((v + 1) / 2); }
static const unsigned kDlnw = clog2(kDlmax + 1);
static const unsigned kDni = TM_RTL_N > 1 ? TM_RTL_N - 1 : 1;
static_assert(kDmaxw <= 8 * sizeof(((tb_offer *)0)->dbits), "tb_offer.dbits holds a DATA message");
static_assert(kDlmax <= 32, "tb_dcache line masks hold every line of an operand");

struct tb_rtl {
    VerilatedContext *ctx;
    Vtm_tb *top;
    VerilatedFstC *fst;
    std::string fst_path, fst_tmp; // written under fst_tmp, renamed at close
    uint64_t time;
};

// Bit access to Verilator's packed values: plain integers for <= 64 bits,
// VlWide (32-bit words, word 0 = least significant) above.  W <= 64.
template <typename T> static void put(T &dst, unsigned lo, unsigned w, uint64_t v)
{
    if constexpr (sizeof(T) <= 8) {
        uint64_t mask = (w >= 64 ? ~0ull : ((1ull << w) - 1)) << lo;
        dst = (T)(((uint64_t)dst & ~mask) | ((v << lo) & mask));
    } else {
        if (w == 64 && lo % 32 == 0) { // a core's 64-bit field (pc, npc, target)
            dst[lo / 32] = (uint32_t)v;
            dst[lo / 32 + 1] = (uint32_t)(v >> 32);
            return;
        }
        unsigned done = 0;
        while (done < w) {
            unsigned b = lo + done, word = b / 32, off = b % 32;
            unsigned take = 32 - off < w - done ? 32 - off : w - done;
            uint32_t m = (take >= 32 ? 0xFFFFFFFFu : ((1u << take) - 1)) << off;
            uint32_t bits = (uint32_t)(v >> done) << off;
            dst[word] = (dst[word] & ~m) | (bits & m);
            done += take;
        }
    }
}

template <typename T> static uint64_t get(const T &src, unsigned lo, unsigned w)
{
    if constexpr (sizeof(T) <= 8) {
        uint64_t v = (uint64_t)src >> lo;
        return w >= 64 ? v : v & ((1ull << w) - 1);
    } else {
        uint64_t v = 0;
        unsigned done = 0;
        while (done < w) {
            unsigned b = lo + done, word = b / 32, off = b % 32;
            unsigned take = 32 - off < w - done ? 32 - off : w - done;
            uint64_t bits = (src[word] >> off) & (take >= 32 ? 0xFFFFFFFFu : ((1u << take) - 1));
            v |= bits << done;
            done += take;
        }
        return v;
    }
}

extern "C" {

tb_rtl *tb_rtl_new(void)
{
    tb_rtl *r = new tb_rtl;
    r->ctx = new VerilatedContext;
    r->ctx->traceEverOn(true);
    // Every register starts random (built with --x-initial unique): state the
    // reset does not cover shows up as a mismatch instead of a lucky zero.
    r->ctx->randReset(2);
    r->top = new Vtm_tb(r->ctx);
    r->fst = nullptr;
    r->time = 0;
    return r;
}

void tb_rtl_free(tb_rtl *r)
{
    if (!r)
        return;
    tb_rtl_wave_close(r);
    r->top->final();
    delete r->top;
    delete r->ctx;
    delete r;
}

static void dump(tb_rtl *r)
{
    if (r->fst)
        r->fst->dump(r->time);
    r->time++;
}

void tb_rtl_reset(tb_rtl *r)
{
    // Signals start at 0 in Verilator: raise rst_ni first so that lowering it
    // is a real negative edge and the asynchronous reset takes effect.
    // load_i starts random (--x-initial unique): 0 here, so that
    // tb_rtl_load's rising edge is one.
    r->top->clk_i = 0;
    r->top->load_i = 0;
    r->top->rst_ni = 1;
    r->top->eval();
    dump(r);
    r->top->rst_ni = 0;
    r->top->eval();
    dump(r);
    r->top->rst_ni = 1;
    r->top->eval();
    dump(r);
}

void tb_rtl_set(tb_rtl *r, unsigned k, const tb_retire *in)
{
    Vtm_tb *t = r->top;
    put(t->rv_valid_i, k, 1, in->valid ? 1 : 0);
    put(t->rv_count_i, 16 * k, 16, in->count);
    put(t->rv_npc_valid_i, k, 1, in->npc_valid ? 1 : 0);
    put(t->rv_npc_i, 64 * k, 64, in->npc);
    put(t->rv_event_i, 3 * k, 3, in->event);
    put(t->rv_class_i, 3 * k, 3, in->bclass);
    put(t->rv_taken_i, k, 1, in->taken ? 1 : 0);
    put(t->rv_flag_i, k, 1, in->flag ? 1 : 0);
    put(t->rv_pc_i, 64 * k, 64, in->pc);
    put(t->rv_len_i, 8 * k, 8, in->len);
    put(t->rv_target_i, 64 * k, 64, in->target);
#if TM_RTL_DATA
    put(t->mem_valid_i, k, 1, in->mem_valid ? 1 : 0);
    // The operand's fields matter only with mem_valid: leave them as they
    // are otherwise (fewer input changes to evaluate; testbench/tm_tb.sv
    // loads the value only with mem_valid, which is the same then).
    if (in->mem_valid) {
        put(t->mem_store_i, k, 1, in->mem_store ? 1 : 0);
        put(t->mem_addr_i, 64 * k, 64, in->mem_addr);
        put(t->mem_size_i, 7 * k, 7, in->mem_size);
        for (unsigned w = 0; w < 8; w++) {
            uint64_t v = 0;
            for (unsigned b = 0; b < 8; b++)
                v |= (uint64_t)in->mem_value[8 * w + b] << (8 * b);
            put(t->mem_value_i, 512 * k + 64 * w, 64, v);
        }
    }
#endif
}

// A rising load_i: the input register takes the inputs set, tm_top's
// flip-flops do not move (the first cycle's inputs, after reset).  Its
// falling edge triggers nothing (the eval only records it).
void tb_rtl_load(tb_rtl *r)
{
    r->top->load_i = 1;
    r->top->eval();
    dump(r);
    r->top->load_i = 0;
    r->top->eval();
}

void tb_rtl_offer(tb_rtl *r, unsigned k, tb_offer *o)
{
    Vtm_tb *t = r->top;
    o->offer = (int)get(t->obs_offer_o, k, 1);
    o->resync = (int)get(t->obs_resync_o, k, 1);
    o->accept = (int)get(t->obs_accept_o, k, 1);
    o->drop = (int)get(t->obs_drop_o, k, 1);
    o->dlen = o->dsize = 0;
    o->dfah = 0;
    o->acnt = (unsigned)get(t->obs_acnt_o, 16 * k, 16);
    o->acc = (unsigned)get(t->obs_acc_o, 16 * k, 16);
    o->tf = (unsigned)get(t->obs_tf_o, 9 * k, 9);
    if (!o->accept && !o->drop) {
        o->ctrl = o->data = 0;
        o->len = 0;
        o->kind = o->ti = o->t = o->reason = o->lost = o->dropped = 0;
        o->cnt = o->diff_ta = o->icnt = o->gap = o->addr = o->diff_cc = 0;
        return;
    }
    o->ctrl = (int)get(t->obs_ctrl_o, k, 1);
    o->data = (int)get(t->obs_data_o, k, 1);
    if (o->data) {
        o->dlen = (unsigned)get(t->obs_data_len_o, TM_RTL_LENW * k, TM_RTL_LENW);
        o->dfah = get(t->obs_data_fah_o, 64 * k, 64);
        o->dsize = (unsigned)get(t->obs_data_size_o, 7 * k, 7);
        memset(o->dbits, 0, sizeof o->dbits);
        for (unsigned b = 0; b < kDmaxw; b += 8) {
            unsigned w = kDmaxw - b < 8 ? kDmaxw - b : 8;
            o->dbits[b / 8] = (uint8_t)get(t->obs_data_bits_o, kDmaxw * k + b, w);
        }
    }
    unsigned lw = TM_RTL_LENW;
    o->len = (unsigned)get(t->obs_len_o, lw * k, lw);
// A field F of core k's tm_pkg::msg_t (obs_msg_o: one element a core).
#define MSG_FIELD(F) get(t->obs_msg_o[k], TM_PKG_MSG_T_##F##_LSB, TM_PKG_MSG_T_##F##_W)
    o->diff_cc = MSG_FIELD(DIFF_CC);
    o->dropped = (unsigned)MSG_FIELD(DROPPED);
    o->lost = (unsigned)MSG_FIELD(LOST);
    o->reason = (unsigned)MSG_FIELD(REASON);
    o->addr = MSG_FIELD(ADDR);
    o->gap = MSG_FIELD(GAP);
    o->icnt = MSG_FIELD(ICNT);
    o->diff_ta = MSG_FIELD(DIFF_TA);
    o->t = (unsigned)MSG_FIELD(T);
    o->cnt = MSG_FIELD(CNT);
    o->ti = (unsigned)MSG_FIELD(TI);
    o->kind = (unsigned)MSG_FIELD(KIND);
#undef MSG_FIELD
}

uint64_t tb_rtl_reports(tb_rtl *r, uint64_t *offer)
{
    Vtm_tb *t = r->top;
    static_assert(TM_RTL_N <= 64, "co-simulation supports up to 64 cores");
    *offer = get(t->obs_offer_o, 0, TM_RTL_N);
    return get(t->obs_accept_o, 0, TM_RTL_N) | get(t->obs_drop_o, 0, TM_RTL_N);
}

unsigned tb_rtl_port(tb_rtl *r, uint64_t *lo, uint64_t *hi)
{
    Vtm_tb *t = r->top;
    static_assert(TM_RTL_PORT_BITS <= 64, "co-simulation supports ports of up to 64 bits");
    *lo = get(t->port_data_o, 0, TM_RTL_PORT_BITS);
    *hi = 0;
    return (unsigned)t->port_valid_o;
}

void tb_rtl_dcache(tb_rtl *r, unsigned k, tb_dcache *d)
{
    Vtm_tb *t = r->top;
    d->valid = (int)get(t->obs_dc_valid_o, k, 1);
    d->clear = (int)get(t->obs_dc_clear_o, k, 1);
    d->lines = (unsigned)get(t->obs_dc_lines_o, kDlnw * k, kDlnw);
    d->hit = (uint32_t)get(t->obs_dc_hit_o, kDlmax * k, kDlmax);
    d->fall = (uint32_t)get(t->obs_dc_fall_o, kDlmax * k, kDlmax);
    d->fany = (uint32_t)get(t->obs_dc_fany_o, kDlmax * k, kDlmax);
    for (unsigned j = 0; j < kDni && j < 63; j++)
        d->inv[j] = (unsigned)get(t->obs_dc_inv_o, kDni * kDlnw * k + kDlnw * j, kDlnw);
}

uint64_t tb_rtl_cycle(tb_rtl *r) { return r->top->obs_cycle_o; }
uint32_t tb_rtl_occupancy(tb_rtl *r) { return (uint32_t)r->top->obs_occ_o; }

void tb_rtl_clock(tb_rtl *r)
{
    tb_rtl_clock_skip(r, 0);
}

void tb_rtl_clock_skip(tb_rtl *r, uint64_t extra)
{
    r->top->idle_skip_i = extra;
    dump(r);
    r->top->clk_i = 1;
    r->top->eval();
    dump(r);
    // The edge settles the logic for the new state and the inputs set for
    // the cycle it starts (the register of testbench/tm_tb.sv).  The falling
    // edge triggers nothing, but Verilator must see it (else the next rising
    // edge is none): no logic depends on a top input directly (no "ico"
    // region), so this eval only compares the clock with its last value.
    r->top->clk_i = 0;
    r->top->idle_skip_i = 0;
    r->top->eval();
}

int tb_rtl_wave_open(tb_rtl *r, const char *path)
{
    tb_rtl_wave_close(r);
    r->fst = new VerilatedFstC;
    r->top->trace(r->fst, 99);
    r->fst_path = path;
    r->fst_tmp = r->fst_path + ".tmp." + std::to_string(getpid());
    r->fst->open(r->fst_tmp.c_str());
    return r->fst->isOpen() ? 0 : -1;
}

void tb_rtl_wave_close(tb_rtl *r)
{
    if (r->fst) {
        r->fst->close();
        delete r->fst;
        r->fst = nullptr;
        if (std::rename(r->fst_tmp.c_str(), r->fst_path.c_str()) != 0)
            std::remove(r->fst_tmp.c_str());
    }
}

} // extern "C"
