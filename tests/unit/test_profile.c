/* tm — unit tests of field profiles (stats/profile.c, tm/profile.h): the
 * histograms of a real model run give back the model's bits by field
 * exactly, and a lossless run's give the bits of runs with other chunk
 * sizes (and with time stamps) without running them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "genstream.h"
#include "tm/gen.h"
#include "tm/profile.h"


static void cfg_of(tm_model_cfg *c, uint32_t threads, tm_encoding enc, int ts, int lossless)
{
    tm_model_cfg_default(c, threads);
    tm_enc_cfg_default(&c->enc, enc, threads, ts);
    if (lossless) {
        c->port_bits = 1024;
        c->buffer_bits = 65536;
    }
}

static void resolve(tm_model_cfg *c)
{
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(c, err, sizeof err), TM_OK, "%s", err);
}

/* Runs S through a model of C with a profile of WINDOW attached; *M and
 * *P are the caller's to free. */
static void run(const gen_stream_t *s, tm_model_cfg *c, uint64_t window, tm_model **m, tm_profile **p)
{
    resolve(c);
    cr_assert_eq(tm_model_new(c, m, NULL, 0), TM_OK);
    cr_assert_eq(tm_profile_new(window, p), TM_OK);
    tm_profile_attach(*p, *m);
    for (size_t j = 0; j < s->n; j++)
        cr_assert_eq(tm_model_put(*m, &s->r[j]), TM_OK, "%s", tm_model_error(*m));
    cr_assert_eq(tm_model_finish(*m), TM_OK);
}

static void same_bits(const tm_field_bits *want, const tm_field_bits *got, const char *what)
{
    cr_assert_eq(got->ti, want->ti, "%s: ti %llu, the model %llu", what, (unsigned long long)got->ti,
                 (unsigned long long)want->ti);
    cr_assert_eq(got->q, want->q, "%s: q", what);
    cr_assert_eq(got->cnt, want->cnt, "%s: cnt %llu, the model %llu", what, (unsigned long long)got->cnt,
                 (unsigned long long)want->cnt);
    cr_assert_eq(got->diffta, want->diffta, "%s: diffta %llu, the model %llu", what,
                 (unsigned long long)got->diffta, (unsigned long long)want->diffta);
    cr_assert_eq(got->diffcc, want->diffcc, "%s: diffcc %llu, the model %llu", what,
                 (unsigned long long)got->diffcc, (unsigned long long)want->diffcc);
    cr_assert_eq(got->sync, want->sync, "%s: sync %llu, the model %llu", what, (unsigned long long)got->sync,
                 (unsigned long long)want->sync);
    cr_assert_eq(got->fah, want->fah, "%s: fah", what);
    cr_assert_eq(got->value, want->value, "%s: value", what);
}

/* The profile of a run against the run's own statistics. */
static void check_own(const tm_model *m, const tm_model_cfg *c, const tm_profile *p, const char *what)
{
    const tm_model_stats *st = tm_model_get_stats(m);
    const tm_profile_counts *k = tm_profile_get(p);
    tm_field_bits fb;
    tm_profile_field_bits(k, &c->enc, &fb);
    same_bits(&st->total.bits, &fb, what);
    cr_assert_eq(tm_profile_bits_total(&fb), st->total.bits_total, "%s: total", what);
    cr_assert_eq(k->bits, st->bits, "%s: bits", what);
    for (int kind = 0; kind < TM_MSG_KINDS; kind++)
        cr_assert_eq(k->messages[kind], st->total.messages[kind], "%s: messages of kind %d", what, kind);
    cr_assert_eq(k->sync_overflow, st->total.sync_reasons[TM_SYNC_OVERFLOW], "%s: overflow syncs", what);
    cr_assert_eq(k->dropped_messages, st->total.dropped_messages, "%s: dropped", what);
    cr_assert_eq(k->dropped_bits, st->total.dropped_bits, "%s: dropped bits", what);
    /* bCnt's values against its lengths: 1..63 are lengths 1..6, 64 and
     * 65..127 length 7, the rest longer */
    uint64_t by_len[8] = {0}, longer = 0;
    for (unsigned v = 1; v <= 64; v++)
        by_len[tm_nbits64(v)] += k->bcnt_value[v];
    for (unsigned l = 8; l < TM_PROFILE_LENS; l++)
        longer += k->bcnt_len[l];
    for (unsigned l = 0; l <= 6; l++)
        cr_assert_eq(by_len[l], k->bcnt_len[l], "%s: bCnt values of length %u", what, l);
    cr_assert_eq(k->bcnt_value[0], k->bcnt_len[7] - by_len[7] + longer, "%s: bCnt values above 64", what);
    /* the timeline adds up */
    const uint64_t *tb, *td;
    size_t n = tm_profile_timeline(p, &tb, &td);
    uint64_t sb = 0, sd = 0;
    for (size_t w = 0; w < n; w++) {
        sb += tb[w];
        sd += td[w];
    }
    cr_assert_eq(sb, k->bits, "%s: the timeline's bits", what);
    cr_assert_eq(sd, k->dropped_messages, "%s: the timeline's drops", what);
    cr_assert_geq(n * tm_profile_window(p), st->exec_cycles - tm_profile_window(p), "%s: windows", what);
}

/* Under its own configuration: tr_e, tr_b, nx_b, with and without time
 * stamps, with drops, with data tracing. */
Test(profile, gives_the_models_bits_by_field)
{
    gen_stream_t s;
    gen_stream(&s, 4, 80000, 5, 0, 0.002);
    for (int enc = 0; enc < 3; enc++)
        for (int v = 0; v < 3; v++) {
            tm_model_cfg c;
            cfg_of(&c, 4, (tm_encoding)enc, v == 1, 0);
            if (v == 2) {
                c.port_bits = 1; /* drops */
                c.enc.timestamps = 1;
                c.ts_bits = 12;
            }
            tm_model *m;
            tm_profile *p;
            run(&s, &c, 1000, &m, &p);
            char what[64];
            snprintf(what, sizeof what, "%s variant %d", tm_encoding_name((tm_encoding)enc), v);
            check_own(m, &c, p, what);
            if (v == 2)
                cr_assert_gt(tm_profile_get(p)->dropped_messages, 0, "%s: a 1-bit port was to drop", what);
            tm_profile_free(p);
            tm_model_free(m);
        }
    free(s.r);
}

Test(profile, gives_the_models_bits_with_data_tracing)
{
    gen_stream_t s;
    gen_stream(&s, 2, 40000, 9, 1, 0.002);
    for (int mode = TM_DATA_CFIAT; mode <= TM_DATA_ALL; mode++) {
        tm_model_cfg c;
        cfg_of(&c, 2, TM_ENC_TR_E, mode == TM_DATA_ALL, 0);
        c.enc.data = (uint8_t)mode;
        tm_model *m;
        tm_profile *p;
        run(&s, &c, 5000, &m, &p);
        check_own(m, &c, p, tm_data_mode_name((tm_data_mode)mode));
        cr_assert_gt(tm_profile_get(p)->messages[TM_MSG_DATA], 0);
        tm_profile_free(p);
        tm_model_free(m);
    }
    free(s.r);
}

/* One lossless run's profile gives the bits of runs with other chunk sizes,
 * of tr_b (tr_e's messages, fixed chunks) and of the time-stamped variant. */
Test(profile, one_lossless_run_gives_other_chunk_sizes)
{
    gen_stream_t s;
    gen_stream(&s, 3, 80000, 11, 1, 0.002);
    for (int data = 0; data < 2; data++) {
        tm_model_cfg c;
        cfg_of(&c, 3, TM_ENC_TR_E, 0, 1);
        c.enc.data = data ? TM_DATA_CFIAT : TM_DATA_NONE;
        tm_model *m;
        tm_profile *p;
        run(&s, &c, 100000, &m, &p);
        cr_assert_eq(tm_model_get_stats(m)->total.dropped_messages, 0);
        static const uint8_t sizes[][8] = {
            {3, 2, 3, 4, 4, 2, 3, 2}, {1, 1, 1, 1, 1, 1, 1, 1}, {4, 2, 2, 5, 3, 3, 2, 4},
            {8, 8, 16, 16, 8, 8, 8, 8}, {32, 32, 32, 32, 32, 32, 32, 32}, {2, 6, 7, 3, 5, 1, 1, 6},
        };
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int ts = 0; ts < 2; ts++)
                for (int enc = TM_ENC_TR_B; enc <= TM_ENC_TR_E; enc++) {
                    tm_model_cfg o = c;
                    const uint8_t *z = sizes[i];
                    o.enc.enc = (tm_encoding)enc;
                    o.enc.timestamps = ts;
                    o.enc.cnt_a = z[0], o.enc.cnt_b = z[1], o.enc.ta_a = z[2], o.enc.ta_b = z[3];
                    o.enc.cc_a = z[4], o.enc.cc_b = z[5], o.enc.fah_a = z[6], o.enc.fah_b = z[7];
                    tm_model *m2;
                    tm_profile *p2;
                    run(&s, &o, 100000, &m2, &p2);
                    const tm_model_stats *st = tm_model_get_stats(m2);
                    cr_assert_eq(st->total.dropped_messages, 0);
                    tm_profile_counts k = *tm_profile_get(p);
                    /* the time stamps a 64-bit counter gives, from a run without */
                    memcpy(k.diffcc_len, k.diffcc64_len, sizeof k.diffcc_len);
                    tm_field_bits fb;
                    tm_profile_field_bits(&k, &o.enc, &fb);
                    char what[96];
                    snprintf(what, sizeof what, "data %d, %s, sizes %zu, time stamps %d", data,
                             tm_encoding_name((tm_encoding)enc), i, ts);
                    same_bits(&st->total.bits, &fb, what);
                    cr_assert_eq(tm_profile_bits_total(&fb), st->bits, "%s: total", what);
                    /* the second run's own histograms are the first's */
                    const tm_profile_counts *k2 = tm_profile_get(p2);
                    cr_assert_eq(memcmp(k2->bcnt_len, k.bcnt_len, sizeof k.bcnt_len), 0, "%s", what);
                    cr_assert_eq(memcmp(k2->bcnt_value, k.bcnt_value, sizeof k.bcnt_value), 0, "%s", what);
                    cr_assert_eq(memcmp(k2->diffta_len, k.diffta_len, sizeof k.diffta_len), 0, "%s", what);
                    cr_assert_eq(memcmp(k2->diffcc64_len, k.diffcc64_len, sizeof k.diffcc64_len), 0, "%s", what);
                    if (ts)
                        cr_assert_eq(memcmp(k2->diffcc_len, k.diffcc64_len, sizeof k.diffcc_len), 0, "%s", what);
                    tm_profile_free(p2);
                    tm_model_free(m2);
                }
        tm_profile_free(p);
        tm_model_free(m);
    }
    free(s.r);
}

/* The hook by hand: windows, values, the timeline's limit. */
Test(profile, hook_by_hand)
{
    tm_profile *p = NULL;
    cr_assert_eq(tm_profile_new(0, &p), TM_ERR_ARG);
    cr_assert_null(p);
    cr_assert_eq(tm_profile_new(TM_PROFILE_MAX_WINDOW + 1, &p), TM_ERR_ARG);
    cr_assert_eq(tm_profile_new(TM_PROFILE_MAX_WINDOW, &p), TM_OK);
    tm_profile_free(p);
    cr_assert_eq(tm_profile_new(10, &p), TM_OK);
    tm_msg m;
    memset(&m, 0, sizeof m);
    m.kind = TM_MSG_BRANCH;
    m.cnt = 64;
    m.t = 1;
    m.diff_ta = -5;
    m.diff_cc = 7;
    tm_profile_hook(p, 3, 0, &m, 20, 1);
    m.cnt = 65;
    m.t = 0;
    tm_profile_hook(p, 25, 0, &m, 11, 1);
    tm_profile_hook(p, 27, 1, &m, 11, 0); /* dropped */
    m.kind = TM_MSG_EXC;
    m.icnt = 0;
    m.diff_ta = INT64_MIN;
    tm_profile_hook(p, 49, 0, &m, 50, 1);
    const tm_profile_counts *k = tm_profile_get(p);
    cr_assert_eq(k->bcnt_value[64], 1);
    cr_assert_eq(k->bcnt_value[0], 1);
    cr_assert_eq(k->bcnt_len[7], 2);
    cr_assert_eq(k->diffta_len[3], 1);
    cr_assert_eq(k->exc_diffta_len[64], 1);
    cr_assert_eq(k->icnt_len[0], 1);
    cr_assert_eq(k->diffcc_len[3], 3);
    /* core 0's messages at 3, 25, 49: 3, 22, 24 cycles since the previous */
    cr_assert_eq(k->diffcc64_len[2], 1);
    cr_assert_eq(k->diffcc64_len[5], 2);
    const uint64_t *tb, *td;
    cr_assert_eq(tm_profile_timeline(p, &tb, &td), 5);
    cr_assert_eq(tb[0], 20);
    cr_assert_eq(tb[1], 0);
    cr_assert_eq(tb[2], 11);
    cr_assert_eq(td[2], 1);
    cr_assert_eq(tb[4], 50);
    cr_assert_eq(k->dropped_messages, 1);
    cr_assert_eq(k->dropped_bits, 11);
    cr_assert_eq(tm_profile_status(p), TM_OK);
    /* JSON */
    tm_model_cfg c;
    cfg_of(&c, 2, TM_ENC_TR_E, 1, 0);
    resolve(&c);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(tm_profile_write_json(p, &c, f), TM_OK);
    fclose(f);
    cr_assert_not_null(strstr(buf, "\"window_cycles\": 10,"), "%s", buf);
    cr_assert_not_null(strstr(buf, "\"bits\": [20, 0, 11, 0, 50],"), "%s", buf);
    cr_assert_not_null(strstr(buf, "\"dropped\": [0, 0, 1, 0, 0]"), "%s", buf);
    cr_assert_not_null(strstr(buf, "\"chunks\": {\"bcnt\": [3, 2], \"ta\": [3, 4], \"cc\": [4, 2]"), "%s", buf);
    free(buf);
    /* a timeline beyond TM_PROFILE_MAX_WINDOWS windows: the error is kept */
    tm_profile_hook(p, 10 * (uint64_t)TM_PROFILE_MAX_WINDOWS, 0, &m, 50, 1);
    cr_assert_eq(tm_profile_status(p), TM_ERR_ARG);
    cr_assert_not_null(strstr(tm_profile_error(p), "give a larger window"), "%s", tm_profile_error(p));
    f = open_memstream(&buf, &len);
    cr_assert_eq(tm_profile_write_json(p, &c, f), TM_ERR_ARG);
    fclose(f);
    free(buf);
    tm_profile_free(p);
}
