// tm — Verilator glue for tb_data_enc: moves tb_data_io structs (tb_ref.c)
// in and out of the model's ports, one message per config per evaluation;
// every 16th evaluation is one with valid_i = 0 (all outputs must be 0).
#include <cstdio>
#include <memory>
#include "Vtb_data_enc.h"
#include "tb_ref.h"
#include "vglue.h"

int main(int argc, char **argv)
{
    const uint64_t msgs = plusarg(argc, argv, "msgs", 300000);
    const uint64_t seed = plusarg(argc, argv, "seed", 1);
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vtb_data_enc>(ctx.get());
    const unsigned NC = 6, OW = TB_DATA_MAXW;
    top->eval();
    tb_data *ref[NC];
    tb_data_io io[NC];
    int idle_bad = 0;
    for (unsigned c = 0; c < NC; c++) {
        auto cfg = [&](auto &v) { return static_cast<unsigned>(vget(v, 32 * c, 32)); };
        ref[c] = tb_data_new(cfg(top->cfg_ti_o), cfg(top->cfg_tiw_o),
                             static_cast<unsigned>(vget(top->cfg_chunks_o, 16 * c, 8)),
                             static_cast<unsigned>(vget(top->cfg_chunks_o, 16 * c + 8, 8)),
                             cfg(top->cfg_maxw_o), seed);
    }
    for (uint64_t n = 0; n < msgs; n++) {
        for (unsigned c = 0; c < NC; c++) {
            tb_data_stim(ref[c], &io[c]);
            vput(top->valid_i, c, 1, 1);
            vput(top->fah_i, 64 * c, 64, io[c].fah);
            vput(top->size_i, 7 * c, 7, io[c].size);
            for (unsigned k = 0; k < 64; k++) vput(top->value_i, 512 * c + 8 * k, 8, io[c].value[k]);
        }
        top->eval();
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned k = 0; k < OW / 8; k++)
                io[c].bits[k] = static_cast<uint8_t>(vget(top->bits_o, OW * c + 8 * k, 8));
            io[c].len = static_cast<unsigned>(vget(top->len_o, 16 * c, 16));
            tb_data_check(ref[c], &io[c]);
        }
        if (n % 16 == 15) { /* the same inputs without valid_i */
            top->valid_i = 0;
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
    }
    int failed = idle_bad;
    if (idle_bad) std::printf("FAIL tm_data_enc: outputs not 0 with valid_i = 0\n");
    for (unsigned c = 0; c < NC; c++) failed += tb_data_finish(ref[c]);
    top->final();
    return failed ? 1 : 0;
}
