// tm — Verilator glue for tb_ras: moves tb_ras_io structs (tb_ref.c) in and
// out of the model's ports, one cycle at a time.
#include <memory>
#include "Vtb_ras.h"
#include "tb_ref.h"
#include "vglue.h"

int main(int argc, char **argv)
{
    const uint64_t cycles = plusarg(argc, argv, "cycles", 300000);
    const uint64_t seed = plusarg(argc, argv, "seed", 1);
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vtb_ras>(ctx.get());
    const unsigned NC = 10, PM = 3;
    top->eval();
    tb_ras *ref[NC];
    tb_ras_io io[NC];
    for (unsigned c = 0; c < NC; c++)
        ref[c] = tb_ras_new(static_cast<unsigned>(vget(top->cfg_entries_o, 32 * c, 32)),
                            static_cast<unsigned>(vget(top->cfg_p_o, 32 * c, 32)), seed);
    for (uint64_t cyc = 0; cyc < cycles; cyc++) {
        top->clk_i = 0;
        for (unsigned c = 0; c < NC; c++) {
            tb_ras_stim(ref[c], &io[c]);
            vput(top->rst_ni, c, 1, io[c].rst_n);
            vput(top->clear_i, c, 1, io[c].clear);
            for (unsigned p = 0; p < PM; p++) {
                vput(top->push_i, c * PM + p, 1, io[c].push[p]);
                vput(top->pop_i, c * PM + p, 1, io[c].pop[p]);
                vput(top->push_addr_i, 64 * (c * PM + p), 64, io[c].addr[p]);
            }
        }
        top->eval();
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned p = 0; p < PM; p++) {
                io[c].hit[p] = static_cast<uint8_t>(vget(top->hit_o, c * PM + p, 1));
                io[c].pred[p] = vget(top->pred_o, 64 * (c * PM + p), 64);
            }
            tb_ras_check(ref[c], &io[c]);
        }
        top->clk_i = 1;
        top->eval();
    }
    int failed = 0;
    for (unsigned c = 0; c < NC; c++) failed += tb_ras_finish(ref[c]);
    top->final();
    return failed ? 1 : 0;
}
