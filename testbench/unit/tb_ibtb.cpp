// tm — Verilator glue for tb_ibtb: moves the references' tb_ibtb_io
// structs (ref_ibtb.c) in and out of the model's ports, one cycle at a time.
#include "Vtb_ibtb.h"
#include "tb_ref.h"
#include "vglue.h"

struct H : Clocked<Vtb_ibtb> {
    static const unsigned NC = 8, PM = 8;
    tb_ibtb *ref[NC];
    tb_ibtb_io io[NC];
    H(V *t, uint64_t seed, int, char **) : Clocked(t)
    {
        for (unsigned c = 0; c < NC; c++)
            ref[c] = tb_ibtb_new(cfg32(top->cfg_entries_o, c), cfg32(top->cfg_p_o, c), seed);
    }
    void in(uint64_t)
    {
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
    }
    void out(uint64_t)
    {
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned p = 0; p < PM; p++) {
                io[c].hit[p] = static_cast<uint8_t>(vget(top->hit_o, c * PM + p, 1));
                io[c].pred[p] = vget(top->pred_o, 64 * (c * PM + p), 64);
            }
            tb_ibtb_check(ref[c], &io[c]);
        }
    }
    int finish()
    {
        int failed = 0;
        for (unsigned c = 0; c < NC; c++) failed += tb_ibtb_finish(ref[c]);
        return failed;
    }
};

int main(int argc, char **argv) { return tb_run<H>(argc, argv, "cycles", 300000); }
