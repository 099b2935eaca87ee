/* tm — unit testbench reference (testbench/unit/run.sh): rtl/tm_data_enc.sv against tm/msg.h's DATA messages;
 * stimulus and the bit-exact comparison, see tb_ref.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/cache.h"

/* ------------------------------------------------------------ DATA message */

struct tb_data {
    char name[96];
    tm_enc_cfg cfg;
    unsigned ti, maxw;
    uint64_t rng, n, sizes[65], maxlen, fah_max;
    tm_bitbuf bb;
    int failed;
};

tb_data *tb_data_new(unsigned ti, unsigned tiw, unsigned fa, unsigned fb, unsigned maxw, uint64_t seed)
{
    tb_data *t = calloc(1, sizeof *t);
    if (!t) exit(2);
    snprintf(t->name, sizeof t->name, "tm_data_enc TIW=%u TI=%u FA,FB=%u,%u", tiw, ti, fa, fb);
    tm_enc_cfg_default(&t->cfg, TM_ENC_TR_E, 1u << tiw, 0);
    t->cfg.data = TM_DATA_CFIAT;
    t->cfg.fah_a = (uint8_t)fa;
    t->cfg.fah_b = (uint8_t)fb;
    t->ti = ti;
    t->maxw = maxw;
    t->rng = seed ^ ((uint64_t)tiw << 40 | (uint64_t)ti << 20 | (uint64_t)fa << 8 | fb);
    tm_bitbuf_init(&t->bb);
    if (tm_enc_cfg_check(&t->cfg) != TM_OK || tm_ti_bits(t->cfg.threads) != tiw || ti >= t->cfg.threads) {
        fprintf(stderr, "%s: invalid configuration\n", t->name);
        exit(2);
    }
    if (tm_msg_data_max_bits(&t->cfg) != maxw) {
        fprintf(stderr, "%s: MAXW %u but tm_msg_data_max_bits %u\n", t->name, maxw,
                tm_msg_data_max_bits(&t->cfg));
        t->failed = 1;
    }
    if (maxw > TB_DATA_MAXW) {
        fprintf(stderr, "%s: MAXW %u > %u\n", t->name, maxw, TB_DATA_MAXW);
        exit(2);
    }
    return t;
}

void tb_data_stim(tb_data *t, tb_data_io *io)
{
    uint64_t *s = &t->rng;
    memset(io, 0, sizeof *io);
    io->fah = tb_rand_value(s);
    io->size = (uint8_t)(tb_rand(s) % 2 ? 1u << (tb_rand(s) % 7) : 1 + tb_rand(s) % 64);
    for (unsigned k = 0; k < 64; k += 8) { /* bytes past size too: the encoder must ignore them */
        uint64_t v = tb_rand(s) % 8 ? tb_rand(s) : tb_rand_value(s);
        for (unsigned j = 0; j < 8; j++) io->value[k + j] = (uint8_t)(v >> (8 * j));
    }
}

int tb_data_check(tb_data *t, const tb_data_io *io)
{
    tm_msg m;
    unsigned len, bad;
    if (t->failed) return 1;
    memset(&m, 0, sizeof m);
    m.kind = TM_MSG_DATA;
    m.ti = t->ti;
    m.fah = io->fah;
    m.size = io->size;
    memcpy(m.value, io->value, io->size);
    tm_bitbuf_clear(&t->bb);
    len = tm_msg_bits(&t->cfg, &m);
    if (tm_msg_encode(&t->cfg, &m, &t->bb, NULL) != TM_OK || t->bb.nbits != len || len == 0) {
        fprintf(stderr, "%s: C encoder rejected the message\n", t->name);
        t->failed = 1;
        return 1;
    }
    t->n++;
    t->sizes[io->size]++;
    if (len > t->maxlen) t->maxlen = len;
    if (io->fah == ~0ull) t->fah_max++;
    bad = io->len != len;
    for (unsigned k = 0; k < TB_DATA_MAXW && !bad; k++) {
        unsigned want = k < len ? (t->bb.data[k / 8] >> (k % 8)) & 1 : 0;
        bad = ((io->bits[k / 8] >> (k % 8)) & 1) != want;
    }
    if (bad) {
        char txt[512];
        tm_msg_format(&m, 0, txt, sizeof txt);
        fprintf(stderr, "%s: message %" PRIu64 " (%s): len_o %u, C %u\n  RTL ", t->name, t->n, txt,
                io->len, len);
        for (unsigned k = 0; k < (io->len > len ? io->len : len) + 4 && k < TB_DATA_MAXW; k++)
            fputc('0' + ((io->bits[k / 8] >> (k % 8)) & 1), stderr);
        fprintf(stderr, "\n  C   ");
        for (unsigned k = 0; k < len; k++) fputc('0' + ((t->bb.data[k / 8] >> (k % 8)) & 1), stderr);
        fputc('\n', stderr);
        t->failed = 1;
        return 1;
    }
    return 0;
}

int tb_data_finish(tb_data *t)
{
    char d[384];
    int f = t->failed;
    unsigned missing = 0;
    for (unsigned k = 1; k <= 64; k++) missing += t->n >= 100000 && !t->sizes[k];
    if (missing || (t->n >= 100000 && (!t->fah_max || t->maxlen != t->maxw))) {
        fprintf(stderr, "%s: %u sizes never tried, fahCnt 2^64-1 %" PRIu64 " times, longest %" PRIu64 "\n",
                t->name, missing, t->fah_max, t->maxlen);
        f = 1;
    }
    snprintf(d, sizeof d,
             "%" PRIu64 " DATA messages compared (sizes 1..64; %" PRIu64 " of 1, %" PRIu64 " of 64 bytes; %"
             PRIu64 " with fahCnt = 2^64-1), longest %" PRIu64 " of MAXW %u bits",
             t->n, t->sizes[1], t->sizes[64], t->fah_max, t->maxlen, t->maxw);
    f = tb_report(t->name, f, d);
    tm_bitbuf_free(&t->bb);
    free(t);
    return f;
}
