// tm — Verilator glue for tb_ibtb: moves tb_ibtb_io structs (tb_ref.c) in and
// out of the model's ports, one cycle at a time.
#include <memory>
#include "Vtb_ibtb.h"
#include "tb_ref.h"
#include "vglue.h"

int main(int argc, char **argv)
{
    const uint64_t cycles = plusarg(argc, argv, "cycles", 300000);
    const uint64_t seed = plusarg(argc, argv, "seed", 1);
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vtb_ibtb>(ctx.get());
    const unsigned NC = 8, PM = 8;
    top->eval();
    tb_ibtb *ref[NC];
    tb_ibtb_io io[NC];
    for (unsigned c = 0; c < NC; c++)
        ref[c] = tb_ibtb_new(static_cast<unsigned>(vget(top->cfg_entries_o, 32 * c, 32)),
                             static_cast<unsigned>(vget(top->cfg_p_o, 32 * c, 32)), seed);
    for (uint64_t cyc = 0; cyc < cycles; cyc++) {
        top->clk_i = 0;
        for (unsigned c = 0; c < NC; c++) {
            tb_ibtb_stim(ref[c], &io[c]);
            vput(top->rst_ni, c, 1, io[c].rst_n);
            vput(top->clear_i, c, 1, io[c].clear);
            for (unsigned p = 0; p < PM; p++) {
                vput(top->valid_i, c * PM + p, 1, io[c].valid[p]);
                vput(top->pc_i, 64 * (c * PM + p), 64, io[c].pc[p]);
                vput(top->target_i, 64 * (c * PM + p), 64, io[c].target[p]);
            }
        }
        top->eval();
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned p = 0; p < PM; p++) {
                io[c].hit[p] = static_cast<uint8_t>(vget(top->hit_o, c * PM + p, 1));
                io[c].pred[p] = vget(top->pred_o, 64 * (c * PM + p), 64);
            }
            tb_ibtb_check(ref[c], &io[c]);
        }
        top->clk_i = 1;
        top->eval();
    }
    int failed = 0;
    for (unsigned c = 0; c < NC; c++) failed += tb_ibtb_finish(ref[c]);
    top->final();
    return failed ? 1 : 0;
}
