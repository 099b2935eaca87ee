// tm — Verilator glue for tb_ras: moves the references' tb_ras_io
// structs (ref_ras.c) in and out of the model's ports, one cycle at a time.
#include "Vtb_ras.h"
#include "tb_ref.h"
#include "vglue.h"

struct H : Clocked<Vtb_ras> {
    static const unsigned NC = 10, PM = 3;
    tb_ras *ref[NC];
    tb_ras_io io[NC];
    H(V *t, uint64_t seed, int, char **) : Clocked(t)
    {
        for (unsigned c = 0; c < NC; c++)
            ref[c] = tb_ras_new(cfg32(top->cfg_entries_o, c), cfg32(top->cfg_p_o, c), seed);
    }
    void in(uint64_t)
    {
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
    }
    void out(uint64_t)
    {
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned p = 0; p < PM; p++) {
                io[c].hit[p] = static_cast<uint8_t>(vget(top->hit_o, c * PM + p, 1));
                io[c].pred[p] = vget(top->pred_o, 64 * (c * PM + p), 64);
            }
            tb_ras_check(ref[c], &io[c]);
        }
    }
    int finish()
    {
        int failed = 0;
        for (unsigned c = 0; c < NC; c++) failed += tb_ras_finish(ref[c]);
        return failed;
    }
};

int main(int argc, char **argv) { return tb_run<H>(argc, argv, "cycles", 300000); }
