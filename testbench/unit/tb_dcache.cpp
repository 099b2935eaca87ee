// tm — Verilator glue for tb_dcache: moves the references' tb_dcache_io
// structs (ref_dcache.c) in and out of the model's ports, one cycle at a
// time, and measures the caches' simulation speed ("speed:").  +only=C
// drives and checks config C alone (the others idle, no lines).
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include "Vtb_dcache.h"
#include "tb_ref.h"
#include "vglue.h"

struct H : Clocked<Vtb_dcache> {
    static const unsigned NC = 10, LP = TB_DC_LINES, NP = TB_DC_PORTS;
    tb_dcache *ref[NC];
    tb_dcache_io io[NC];
    uint64_t only, accesses = 0, steps = 0;
    std::chrono::duration<double> t_eval{0};
    H(V *t, uint64_t seed, int argc, char **argv) : Clocked(t), only(plusarg(argc, argv, "only", ~0ull))
    {
        for (unsigned c = 0; c < NC; c++)
            ref[c] = tb_dcache_new(cfg32(top->cfg_size_o, c), cfg32(top->cfg_assoc_o, c), cfg32(top->cfg_line_o, c),
                                   cfg32(top->cfg_gran_o, c), cfg32(top->cfg_n_o, c), seed);
    }
    bool on(unsigned c) const { return only == ~0ull || c == only; }
    void eval() // timed: the speed line
    {
        auto t0 = std::chrono::steady_clock::now();
        top->eval();
        t_eval += std::chrono::steady_clock::now() - t0;
    }
    void clock(int level)
    {
        top->clk_i = static_cast<uint8_t>(level);
        if (level)
            eval();
    }
    void idle(unsigned c)
    {
        io[c] = tb_dcache_io{};
        io[c].rst_n = 1;
        vput(top->rst_ni, c, 1, 1);
        vput(top->valid_i, c, 1, 0);
        vput(top->clear_i, c, 1, 0);
        for (unsigned j = 0; j < NP; j++) vput(top->inv_valid_i, NP * c + j, 1, 0);
    }
    void in(uint64_t)
    {
        steps++;
        for (unsigned c = 0; c < NC; c++) {
            if (!on(c)) {
                idle(c);
                continue;
            }
            tb_dcache_stim(ref[c], &io[c]);
            vput(top->rst_ni, c, 1, io[c].rst_n);
            vput(top->clear_i, c, 1, io[c].clear);
            vput(top->valid_i, c, 1, io[c].valid);
            vput(top->store_i, c, 1, io[c].store);
            vput(top->addr_i, 64 * c, 64, io[c].addr);
            vput(top->size_i, 7 * c, 7, io[c].size);
            for (unsigned j = 0; j < NP; j++) {
                vput(top->inv_valid_i, NP * c + j, 1, io[c].inv_valid[j]);
                vput(top->inv_before_i, NP * c + j, 1, io[c].inv_before[j]);
                vput(top->inv_addr_i, 64 * (NP * c + j), 64, io[c].inv_addr[j]);
                vput(top->inv_size_i, 7 * (NP * c + j), 7, io[c].inv_size[j]);
            }
            accesses += io[c].valid;
        }
    }
    void out(uint64_t)
    {
        for (unsigned c = 0; c < NC; c++) {
            tb_dcache_io &o = io[c];
            o.lines = static_cast<uint8_t>(vget(top->lines_o, 8 * c, 8));
            o.all_hit = static_cast<uint8_t>(vget(top->all_hit_o, c, 1));
            o.flags_hit = static_cast<uint8_t>(vget(top->flags_hit_o, c, 1));
            o.report = static_cast<uint8_t>(vget(top->report_o, c, 1));
            for (unsigned i = 0; i < LP; i++) {
                o.line_hit[i] = static_cast<uint8_t>(vget(top->line_hit_o, LP * c + i, 1));
                o.line_fall[i] = static_cast<uint8_t>(vget(top->line_fall_o, LP * c + i, 1));
                o.line_fany[i] = static_cast<uint8_t>(vget(top->line_fany_o, LP * c + i, 1));
                o.line_way[i] = static_cast<uint8_t>(vget(top->line_way_o, 8 * (LP * c + i), 8));
            }
            for (unsigned j = 0; j < NP; j++)
                o.inv_lines[j] = static_cast<uint8_t>(vget(top->inv_lines_o, 8 * (NP * c + j), 8));
            if (on(c)) tb_dcache_check(ref[c], &o);
        }
    }
    int finish()
    {
        int failed = 0;
        for (unsigned c = 0; c < NC; c++) {
            if (on(c)) failed += tb_dcache_finish(ref[c]);
            else tb_dcache_free(ref[c]);
        }
        std::printf("speed: %" PRIu64 " accesses of %u cache(s) in %.2f s of model evaluation (%.0f ns per"
                    " cycle): %.2fM accesses/s\n",
                    accesses, only == ~0ull ? NC : 1, t_eval.count(), steps ? t_eval.count() * 1e9 / steps : 0.0,
                    t_eval.count() > 0 ? accesses / t_eval.count() / 1e6 : 0.0);
        return failed;
    }
};

int main(int argc, char **argv) { return tb_run<H>(argc, argv, "cycles", 300000); }
