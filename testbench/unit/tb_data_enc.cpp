// tm — Verilator glue for tb_data_enc: moves the references' tb_data_io
// structs (ref_data_enc.c) in and out of the model's ports, one message at a
// time (a combinational encoder); every 16th message the same inputs without
// valid_i must give no output.
#include <cstdio>
#include "Vtb_data_enc.h"
#include "tb_ref.h"
#include "vglue.h"

struct H : Comb<Vtb_data_enc> {
    static const unsigned NC = 6, OW = TB_DATA_MAXW;
    tb_data *ref[NC];
    tb_data_io io[NC];
    int idle_bad = 0;
    H(V *t, uint64_t seed, int, char **) : Comb(t)
    {
        for (unsigned c = 0; c < NC; c++)
            ref[c] = tb_data_new(cfg32(top->cfg_ti_o, c), cfg32(top->cfg_tiw_o, c),
                                 static_cast<unsigned>(vget(top->cfg_chunks_o, 16 * c, 8)),
                                 static_cast<unsigned>(vget(top->cfg_chunks_o, 16 * c + 8, 8)),
                                 cfg32(top->cfg_maxw_o, c), seed);
    }
    void in(uint64_t)
    {
        for (unsigned c = 0; c < NC; c++) {
            tb_data_stim(ref[c], &io[c]);
            vput(top->valid_i, c, 1, 1);
            vput(top->fah_i, 64 * c, 64, io[c].fah);
            vput(top->size_i, 7 * c, 7, io[c].size);
            for (unsigned k = 0; k < 64; k++) vput(top->value_i, 512 * c + 8 * k, 8, io[c].value[k]);
        }
    }
    void out(uint64_t n)
    {
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned k = 0; k < OW / 8; k++)
                io[c].bits[k] = static_cast<uint8_t>(vget(top->bits_o, OW * c + 8 * k, 8));
            io[c].len = static_cast<unsigned>(vget(top->len_o, 16 * c, 16));
            tb_data_check(ref[c], &io[c]);
        }
        if (n % 16 != 15)
            return;
        top->valid_i = 0; /* the same inputs without valid_i */
        top->eval();
        for (unsigned c = 0; c < NC; c++) {
            uint64_t any = vget(top->len_o, 16 * c, 16);
            for (unsigned k = 0; k < OW; k += 64) any |= vget(top->bits_o, OW * c + k, 64);
            if (any && !idle_bad) {
                std::fprintf(stderr, "config %u: outputs not 0 with valid_i = 0\n", c);
                idle_bad = 1;
            }
        }
    }
    int finish()
    {
        int failed = idle_bad;
        if (idle_bad) std::printf("FAIL tm_data_enc: outputs not 0 with valid_i = 0\n");
        for (unsigned c = 0; c < NC; c++) failed += tb_data_finish(ref[c]);
        return failed;
    }
};

int main(int argc, char **argv) { return tb_run<H>(argc, argv, "msgs", 300000); }
