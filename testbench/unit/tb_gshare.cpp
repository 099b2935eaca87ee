// tm — Verilator glue for tb_gshare: moves tb_gshare_io structs (tb_ref.c)
// in and out of the model's ports, one cycle at a time.
#include <memory>
#include "Vtb_gshare.h"
#include "tb_ref.h"
#include "vglue.h"

int main(int argc, char **argv)
{
    const uint64_t cycles = plusarg(argc, argv, "cycles", 300000);
    const uint64_t seed = plusarg(argc, argv, "seed", 1);
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vtb_gshare>(ctx.get());
    const unsigned NC = 8, PM = 4;
    top->eval();
    tb_gshare *ref[NC];
    tb_gshare_io io[NC];
    unsigned ports[NC];
    for (unsigned c = 0; c < NC; c++) {
        ports[c] = static_cast<unsigned>(vget(top->cfg_p_o, 32 * c, 32));
        ref[c] = tb_gshare_new(static_cast<unsigned>(vget(top->cfg_entries_o, 32 * c, 32)), ports[c], seed);
    }
    for (uint64_t cyc = 0; cyc < cycles; cyc++) {
        top->clk_i = 0;
        for (unsigned c = 0; c < NC; c++) {
            tb_gshare_stim(ref[c], &io[c]);
            vput(top->rst_ni, c, 1, io[c].rst_n);
            vput(top->clear_i, c, 1, io[c].clear);
            for (unsigned p = 0; p < PM; p++) {
                vput(top->valid_i, c * PM + p, 1, io[c].valid[p]);
                vput(top->taken_i, c * PM + p, 1, io[c].taken[p]);
                vput(top->pc_i, 64 * (c * PM + p), 64, io[c].pc[p]);
            }
        }
        top->eval();
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned p = 0; p < PM; p++)
                io[c].pred[p] = static_cast<uint8_t>(vget(top->pred_o, c * PM + p, 1));
            tb_gshare_check(ref[c], &io[c]);
        }
        top->clk_i = 1;
        top->eval();
    }
    int failed = 0;
    for (unsigned c = 0; c < NC; c++) failed += tb_gshare_finish(ref[c]);
    top->final();
    return failed ? 1 : 0;
}
