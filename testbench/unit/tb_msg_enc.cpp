// tm — Verilator glue for tb_msg_enc: moves the references' tb_msg_io
// structs (ref_msg_enc.c) in and out of the model's ports, one message at a
// time (a combinational encoder).
#include "Vtb_msg_enc.h"
#include "tb_ref.h"
#include "vglue.h"

struct H : Comb<Vtb_msg_enc> {
    static const unsigned NC = 16, OW = TB_MSG_MAXW;
    tb_msg *ref[NC];
    tb_msg_io io[NC];
    H(V *t, uint64_t seed, int, char **) : Comb(t)
    {
        for (unsigned c = 0; c < NC; c++) {
            auto ch = [&](unsigned k) { return static_cast<unsigned>(vget(top->cfg_chunks_o, 48 * c + 8 * k, 8)); };
            ref[c] = tb_msg_new(cfg32(top->cfg_tiw_o, c), static_cast<unsigned>(vget(top->cfg_ts_o, c, 1)), ch(0),
                                ch(1), ch(2), ch(3), ch(4), ch(5), static_cast<unsigned>(vget(top->cfg_data_o, 8 * c, 8)),
                                static_cast<unsigned>(vget(top->cfg_enc_o, 8 * c, 8)), cfg32(top->cfg_maxw_o, c), seed);
        }
    }
    void in(uint64_t)
    {
        for (unsigned c = 0; c < NC; c++) {
            tb_msg_stim(ref[c], &io[c]);
            vput(top->kind_i, 2 * c, 2, io[c].kind);
            vput(top->ti_i, 10 * c, 10, io[c].ti);
            vput(top->cnt_i, 64 * c, 64, io[c].cnt);
            vput(top->t_i, c, 1, io[c].t);
            vput(top->diff_ta_i, 64 * c, 64, io[c].diff_ta);
            vput(top->icnt_i, 64 * c, 64, io[c].icnt);
            vput(top->gap_i, 64 * c, 64, io[c].gap);
            vput(top->addr_i, 64 * c, 64, io[c].addr);
            vput(top->reason_i, 2 * c, 2, io[c].reason);
            vput(top->lost_i, c, 1, io[c].lost);
            vput(top->dropped_i, c, 1, io[c].dropped);
            vput(top->diff_cc_i, 64 * c, 64, io[c].diff_cc);
            vput(top->acnt_i, 16 * c, 16, io[c].acnt);
            vput(top->acc_i, 16 * c, 16, io[c].acc);
            vput(top->tf_i, 9 * c, 9, io[c].tf);
        }
    }
    void out(uint64_t)
    {
        for (unsigned c = 0; c < NC; c++) {
            for (unsigned k = 0; k < OW / 8; k++)
                io[c].bits[k] = static_cast<uint8_t>(vget(top->bits_o, OW * c + 8 * k, 8));
            io[c].len = static_cast<unsigned>(vget(top->len_o, 16 * c, 16));
            tb_msg_check(ref[c], &io[c]);
        }
    }
    int finish()
    {
        int failed = 0;
        for (unsigned c = 0; c < NC; c++) failed += tb_msg_finish(ref[c]);
        return failed;
    }
};

int main(int argc, char **argv) { return tb_run<H>(argc, argv, "msgs", 300000); }
