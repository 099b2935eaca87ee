// tm — Verilator glue for tb_ittage: moves tb_ittage_io structs
// (tb_ref_ittage.c) in and out of the model's ports, one cycle at a time.
#include <memory>
#include "Vtb_ittage.h"
#include "tb_ref_ittage.h"
#include "vglue.h"

int main(int argc, char **argv)
{
    const uint64_t cycles = plusarg(argc, argv, "cycles", 300000);
    const uint64_t seed = plusarg(argc, argv, "seed", 1);
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vtb_ittage>(ctx.get());
    const unsigned NC = 12, PM = 3;
    top->eval();
    tb_ittage *ref[NC];
    tb_ittage_io io[NC];
    for (unsigned c = 0; c < NC; c++) {
        auto cfg = [&](const auto &v) { return static_cast<unsigned>(vget(v, 32 * c, 32)); };
        ref[c] = tb_ittage_new(cfg(top->cfg_base_o), cfg(top->cfg_tables_o), cfg(top->cfg_entries_o),
                               cfg(top->cfg_tag_o), cfg(top->cfg_lmin_o), cfg(top->cfg_lmax_o),
                               cfg(top->cfg_p_o), seed);
    }
    for (uint64_t cyc = 0; cyc < cycles; cyc++) {
        top->clk_i = 0;
        for (unsigned c = 0; c < NC; c++) {
            tb_ittage_stim(ref[c], &io[c]);
            vput(top->rst_ni, c, 1, io[c].rst_n);
            vput(top->clear_i, c, 1, io[c].clear);
            for (unsigned p = 0; p < PM; p++) {
                vput(top->valid_i, c * PM + p, 1, io[c].valid[p]);
                vput(top->cond_i, c * PM + p, 1, io[c].cond[p]);
                vput(top->taken_i, c * PM + p, 1, io[c].taken[p]);
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
            tb_ittage_check(ref[c], &io[c]);
        }
        top->clk_i = 1;
        top->eval();
    }
    int failed = 0;
    for (unsigned c = 0; c < NC; c++) failed += tb_ittage_finish(ref[c]);
    top->final();
    return failed ? 1 : 0;
}
