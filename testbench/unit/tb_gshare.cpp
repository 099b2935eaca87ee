// tm — Verilator glue for tb_gshare: moves the references' tb_gshare_io
// structs (ref_gshare.c) in and out of the model's ports, one cycle at a time.
#include "Vtb_gshare.h"
#include "tb_ref.h"
#include "vglue.h"

struct H : Clocked<Vtb_gshare> {
    static const unsigned NC = 8, PM = 4;
    tb_gshare *ref[NC];
    tb_gshare_io io[NC];
    H(V *t, uint64_t seed, int, char **) : Clocked(t)
    {
        for (unsigned c = 0; c < NC; c++)
            ref[c] = tb_gshare_new(cfg32(top->cfg_entries_o, c), cfg32(top->cfg_p_o, c), seed);
    }
    void in(uint64_t)
    {
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
    }
    void out(uint64_t)
    {
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned p = 0; p < PM; p++)
                io[c].pred[p] = static_cast<uint8_t>(vget(top->pred_o, c * PM + p, 1));
            tb_gshare_check(ref[c], &io[c]);
        }
    }
    int finish()
    {
        int failed = 0;
        for (unsigned c = 0; c < NC; c++) failed += tb_gshare_finish(ref[c]);
        return failed;
    }
};

int main(int argc, char **argv) { return tb_run<H>(argc, argv, "cycles", 300000); }
