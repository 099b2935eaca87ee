/* Unit tests of the adaptive encoding tr_a (include/tm/msg.h, spec §4.9):
 * the Exp-Golomb code, the accumulators, and whole messages against
 * hand-computed bit strings.  Strings are in stream order (the first
 * character is the first bit; a field's bit 0 comes first). */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tm/msg.h"

static void bits_of(const tm_bitbuf *bb, uint64_t from, char *out, size_t n)
{
    cr_assert(bb->nbits - from < n);
    for (uint64_t k = from; k < bb->nbits; k++) *out++ = (char)('0' + ((bb->data[k >> 3] >> (k & 7)) & 1));
    *out = '\0';
}

static void put_str(tm_bitbuf *bb, const char *s)
{
    for (; *s; s++)
        if (*s == '0' || *s == '1') cr_assert_eq(tm_bitbuf_put(bb, (uint64_t)(*s - '0'), 1), TM_OK);
}

static void expect_eg(uint64_t v, unsigned k, const char *exp)
{
    tm_bitbuf bb;
    char got[200];
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_eg_put(&bb, v, k), TM_OK);
    bits_of(&bb, 0, got, sizeof got);
    cr_assert_str_eq(got, exp, "EG%u(%" PRIu64 "): got %s, expected %s", k, v, got, exp);
    cr_assert_eq(tm_eg_bits(v, k), strlen(exp));
    tm_bitrd r;
    uint64_t back = 0;
    tm_bitrd_init(&r, bb.data, bb.nbits);
    cr_assert_eq(tm_eg_get(&r, k, &back), TM_OK);
    cr_assert_eq(back, v);
    cr_assert_eq(r.pos, bb.nbits);
    tm_bitbuf_free(&bb);
}

Test(tra_eg, hand_codes)
{
    expect_eg(0, 0, "1");
    expect_eg(1, 0, "010");          /* w = 2: one zero, the one, bit 0 of w */
    expect_eg(2, 0, "011");          /* w = 3 */
    expect_eg(5, 2, "01" "100");     /* w = 9 = 1001b, n = 3: 001 least significant first */
    expect_eg(0, 3, "1" "000");      /* the cnt = 0 escape at order 3 */
    expect_eg(8, 2, "01" "001");     /* w = 12 = 1100b */
    expect_eg(20, 2, "001" "0001");  /* w = 24 = 11000b, n = 4 */
    expect_eg(3, 1, "01" "10");      /* w = 5 = 101b, n = 2 */
}

Test(tra_eg, extremes_round_trip)
{
    for (unsigned k = 0; k <= 20; k++) {
        uint64_t vals[] = {0, 1, (UINT64_C(1) << k) - 1, UINT64_C(1) << k, UINT64_C(1) << 40, UINT64_MAX - 1,
                           UINT64_MAX, UINT64_MAX - (UINT64_C(1) << k) + 1, UINT64_MAX - (UINT64_C(1) << k)};
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            tm_bitbuf bb;
            tm_bitbuf_init(&bb);
            cr_assert_eq(tm_eg_put(&bb, vals[i], k), TM_OK);
            cr_assert_eq(bb.nbits, tm_eg_bits(vals[i], k), "k %u v %" PRIu64, k, vals[i]);
            tm_bitrd r;
            uint64_t back = 0;
            tm_bitrd_init(&r, bb.data, bb.nbits);
            cr_assert_eq(tm_eg_get(&r, k, &back), TM_OK, "k %u v %" PRIu64, k, vals[i]);
            cr_assert_eq(back, vals[i]);
            /* every proper prefix is truncated, position unchanged */
            for (uint64_t cut = 0; cut < bb.nbits; cut += 7) {
                tm_bitrd_init(&r, bb.data, cut);
                cr_assert_eq(tm_eg_get(&r, k, &back), TM_ERR_TRUNCATED);
                cr_assert_eq(r.pos, 0);
            }
            tm_bitbuf_free(&bb);
        }
    }
    cr_assert_eq(tm_eg_bits(UINT64_MAX, 0), 129); /* 64 zeros, the one, 64 bits */
}

Test(tra_eg, decode_errors)
{
    tm_bitbuf bb;
    tm_bitrd r;
    uint64_t v;
    /* 65 zeros at order 0: more than 64 bits of value */
    tm_bitbuf_init(&bb);
    for (int i = 0; i < 65; i++) put_str(&bb, "0");
    put_str(&bb, "1");
    for (int i = 0; i < 70; i++) put_str(&bb, "0");
    tm_bitrd_init(&r, bb.data, bb.nbits);
    cr_assert_eq(tm_eg_get(&r, 0, &v), TM_ERR_FORMAT);
    cr_assert_eq(r.pos, 0);
    tm_bitbuf_free(&bb);
    /* order 1, 63 zeros: n = 64, value 2^64 + low - 2; low = 2 would be 2^64 */
    tm_bitbuf_init(&bb);
    for (int i = 0; i < 63; i++) put_str(&bb, "0");
    put_str(&bb, "1");
    put_str(&bb, "01");
    for (int i = 0; i < 62; i++) put_str(&bb, "0");
    tm_bitrd_init(&r, bb.data, bb.nbits);
    cr_assert_eq(tm_eg_get(&r, 1, &v), TM_ERR_FORMAT);
    cr_assert_eq(r.pos, 0);
    /* low = 1 is 2^64 - 1, the largest value */
    tm_bitbuf_clear(&bb);
    for (int i = 0; i < 63; i++) put_str(&bb, "0");
    put_str(&bb, "1");
    put_str(&bb, "1");
    for (int i = 0; i < 63; i++) put_str(&bb, "0");
    tm_bitrd_init(&r, bb.data, bb.nbits);
    cr_assert_eq(tm_eg_get(&r, 1, &v), TM_OK);
    cr_assert_eq(v, UINT64_MAX);
    tm_bitbuf_free(&bb);
}

Test(tra_adapt, accumulator_sequence)
{
    tm_adapt a;
    tm_adapt_reset(&a);
    cr_assert_eq(a.cnt, 32);
    cr_assert_eq(tm_adapt_k(a.cnt), 2);                     /* 32 >> 3 = 4 */
    cr_assert_eq(tm_adapt_next(32, 20), 48);                 /* 32 - 4 + 20 */
    cr_assert_eq(tm_adapt_k(48), 2);
    cr_assert_eq(tm_adapt_next(48, 100), 142);
    cr_assert_eq(tm_adapt_k(142), 4);                        /* 17 */
    cr_assert_eq(tm_adapt_next(142, 100000), 8316);          /* capped at 8191 */
    cr_assert_eq(tm_adapt_k(8316), 10);
    cr_assert_eq(tm_adapt_k(7), 0);
    cr_assert_eq(tm_adapt_k(0), 0);
    /* the fixed point of a run of 2^64 - 1 values: the largest order */
    unsigned acc = 32;
    for (int i = 0; i < 200; i++) acc = tm_adapt_next(acc, UINT64_MAX);
    cr_assert(acc <= UINT16_MAX);
    cr_assert_eq(tm_adapt_k(acc), TM_ADAPT_KMAX);
    /* and of zeros: order 0 */
    for (int i = 0; i < 200; i++) acc = tm_adapt_next(acc, 0);
    cr_assert_eq(tm_adapt_k(acc), 0);
}

Test(tra_adapt, update_rules)
{
    tm_enc_cfg c;
    tm_enc_cfg_default(&c, TM_ENC_TR_A, 2, 1);
    tm_adapt a[2];
    tm_adapt_reset(&a[0]);
    tm_adapt_reset(&a[1]);
    tm_msg m;
    memset(&m, 0, sizeof m);
    m.kind = TM_MSG_BRANCH;
    m.ti = 1;
    m.cnt = 5;
    m.diff_cc = 3;
    tm_adapt_update(&c, a, &m);
    cr_assert_eq(a[1].cnt, 33);
    cr_assert_eq(a[1].cc, 31);
    cr_assert_eq(a[0].cnt, 32); /* the other thread's state is its own */
    m.kind = TM_MSG_EXC;        /* special messages move diffCC's state only */
    m.diff_cc = 11;
    tm_adapt_update(&c, a, &m);
    cr_assert_eq(a[1].cnt, 33);
    cr_assert_eq(a[1].cc, 31 - 3 + 11);
    m.kind = TM_MSG_SYNC; /* a SYNC resets both */
    tm_adapt_update(&c, a, &m);
    cr_assert_eq(a[1].cnt, 32);
    cr_assert_eq(a[1].cc, 32);
    /* fixed encodings: nothing moves */
    tm_enc_cfg e;
    tm_enc_cfg_default(&e, TM_ENC_TR_E, 2, 1);
    m.kind = TM_MSG_BRANCH;
    m.cnt = 1000;
    tm_adapt_update(&e, a, &m);
    cr_assert_eq(a[1].cnt, 32);
}

/* Encodes M with the states A, compares with EXP, decodes it back and
 * checks the length functions. */
static void worked(const tm_enc_cfg *c, tm_adapt *a, const tm_msg *m, const char *exp)
{
    tm_bitbuf bb;
    char got[600];
    tm_bitbuf_init(&bb);
    tm_field_bits fb;
    memset(&fb, 0, sizeof fb);
    cr_assert_eq(tm_msg_encode_a(c, a, m, &bb, &fb), TM_OK);
    bits_of(&bb, 0, got, sizeof got);
    cr_assert_str_eq(got, exp, "\n  got %s\n  exp %s", got, exp);
    cr_assert_eq(tm_msg_bits_a(c, a, m), bb.nbits);
    cr_assert_eq(fb.ti + fb.cnt + fb.diffta + fb.diffcc + fb.sync + fb.q, bb.nbits);
    if (m->kind == TM_MSG_BRANCH) {
        tm_bitbuf b2;
        tm_bitbuf_init(&b2);
        cr_assert_eq(tm_msg_encode_branch_a(c, a, m->ti, m->cnt, m->t, m->diff_ta, m->diff_cc, &b2, NULL), TM_OK);
        cr_assert_eq(b2.nbits, bb.nbits);
        cr_assert_eq(memcmp(b2.data, bb.data, (bb.nbits + 7) / 8), 0);
        tm_msg_lens l;
        tm_msg_lens_init(&l, c);
        cr_assert_eq(tm_msg_lens_branch_a(&l, &a[m->ti], m->cnt, m->t, m->diff_ta, m->diff_cc), bb.nbits);
        tm_bitbuf_free(&b2);
    }
    tm_bitrd r;
    tm_msg back;
    tm_bitrd_init(&r, bb.data, bb.nbits);
    cr_assert_eq(tm_msg_decode_a(c, a, &r, &back, NULL, NULL), TM_OK);
    cr_assert_eq(r.pos, bb.nbits);
    cr_assert_eq(back.kind, m->kind);
    cr_assert_eq(back.ti, m->ti);
    if (m->kind == TM_MSG_BRANCH) {
        cr_assert_eq(back.cnt, m->cnt);
        cr_assert_eq(back.t, m->t);
        cr_assert_eq(back.diff_ta, m->t ? m->diff_ta : 0);
    }
    cr_assert_eq(back.diff_cc, m->diff_cc);
    tm_bitbuf_free(&bb);
    tm_adapt_update(c, a, m);
}

/* A message of KIND for thread TI with the fields that vary here. */
static tm_msg msg_of(tm_msg_kind kind, uint32_t ti, uint64_t cnt, unsigned t, int64_t diff_ta, uint64_t diff_cc)
{
    tm_msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    m.ti = ti;
    m.cnt = cnt;
    m.t = (uint8_t)t;
    m.diff_ta = diff_ta;
    m.diff_cc = diff_cc;
    return m;
}

Test(tra_worked, messages)
{
    tm_enc_cfg c;
    tm_enc_cfg_default(&c, TM_ENC_TR_A, 4, 1); /* Ti 2 bits, time stamps */
    tm_adapt a[4];
    for (int i = 0; i < 4; i++) tm_adapt_reset(&a[i]);
    /* 1. outcome misprediction, T1 cnt 5 diffCC 3, orders 2/2: no T bit */
    tm_msg m = msg_of(TM_MSG_BRANCH, 1, 5, 0, 0, 3);
    worked(&c, a, &m, "10" "01100" "111");
    /* 2. target misprediction, T2 cnt 8 diffTA -16 diffCC 20: the escape
     *    (EG2(0) = 100, K = 3), cnt, S, |diffTA| in (3,4) chunks, diffCC */
    m = msg_of(TM_MSG_BRANCH, 2, 8, 1, -16, 20);
    worked(&c, a, &m, "01" "100" "11" "01001" "1" "000" "1" "0100" "0" "0010001");
    /* 3. T1 again: A_cnt 33 (order 2), A_cc 31 (order 1): cnt 1, diffCC 3 */
    m = msg_of(TM_MSG_BRANCH, 1, 1, 0, 0, 3);
    worked(&c, a, &m, "10" "110" "0110");
    /* 4. END of T1 (exit, iCnt 6, diffCC 2): A_cnt = 33 - 4 + 1 = 30, so the
     *    escape is at order 1; K = 2, X, L, iCnt in (3,2) chunks, diffCC at
     *    order 1 (A_cc = 31 - 3 + 3 = 31) */
    m = msg_of(TM_MSG_END, 1, 0, 0, 0, 2);
    m.icnt = 6;
    worked(&c, a, &m, "10" "10" "01" "0" "0" "011" "0" "0100");
    /* 5. SYNC start of T3: its states back at reset */
    m = msg_of(TM_MSG_SYNC, 3, 0, 0, 0, 0);
    m.addr = 0x1000;
    worked(&c, a, &m,
           "11" "100" "10" "00" "0000000000001000000000000000000000000000000000000000000000000000" "100");
    cr_assert_eq(a[3].cnt, 32);
    cr_assert_eq(a[3].cc, 32);
}

/* The T-bit form: a thread whose target mispredictions are frequent. */
Test(tra_worked, t_bit_form)
{
    tm_enc_cfg c;
    tm_enc_cfg_default(&c, TM_ENC_TR_A, 4, 1);
    tm_adapt a[4];
    for (int i = 0; i < 4; i++) tm_adapt_reset(&a[i]);
    /* TF after target mispredictions from reset: 16, 31 (16 - 1 + 16), 46, 60, 73 */
    const unsigned tf[] = {16, 31, 46, 60, 73};
    tm_adapt s;
    tm_adapt_reset(&s);
    cr_assert(tm_adapt_escape(&s));
    for (int i = 0; i < 5; i++) {
        tm_msg m = msg_of(TM_MSG_BRANCH, 0, 40, 1, 4, 1);
        tm_adapt_update(&c, &s, &m);
        cr_assert_eq(s.tf, tf[i]);
    }
    /* with A_cnt 32 (order 2) the escape costs 5 bits: TF 51 x 5 < 256 <= 52 x 5 */
    s.cnt = 32;
    s.tf = 51;
    cr_assert(tm_adapt_escape(&s));
    s.tf = 52;
    cr_assert(!tm_adapt_escape(&s));
    /* an outcome misprediction each moves TF down: 64 -> 60 */
    s.tf = 64;
    tm_msg o = msg_of(TM_MSG_BRANCH, 0, 5, 0, 0, 3);
    tm_adapt_update(&c, &s, &o);
    cr_assert_eq(s.tf, 60);
    /* T1 at TF 64, orders 2/2: cnt 5 then the T bit 0, diffCC 3 */
    a[1].tf = 64;
    tm_msg m = msg_of(TM_MSG_BRANCH, 1, 5, 0, 0, 3);
    worked(&c, a, &m, "10" "01100" "0" "111");
    cr_assert_eq(a[1].tf, 60);
    /* T2 at TF 64: a target misprediction without the escape: cnt 8, T 1,
     * S, |diffTA| 16, diffCC 20 */
    a[2].tf = 64;
    m = msg_of(TM_MSG_BRANCH, 2, 8, 1, -16, 20);
    worked(&c, a, &m, "01" "01001" "1" "1" "000" "1" "0100" "0" "0010001");
    cr_assert_eq(a[2].tf, 76);
    /* in the T-bit form K = 3 is invalid */
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    put_str(&bb, "01" "100" "11" "01001" "1" "0000" "1");
    tm_bitrd r;
    tm_bitrd_init(&r, bb.data, bb.nbits);
    tm_msg back;
    cr_assert_eq(tm_msg_decode_a(&c, a, &r, &back, NULL, NULL), TM_ERR_FORMAT);
    cr_assert_eq(r.pos, 0);
    tm_bitbuf_free(&bb);
    /* a SYNC resets TF */
    m = msg_of(TM_MSG_SYNC, 2, 0, 0, 0, 0);
    tm_adapt_update(&c, a, &m);
    cr_assert_eq(a[2].tf, 0);
}

Test(tra_worked, needs_state_and_bounds)
{
    tm_enc_cfg c;
    tm_enc_cfg_default(&c, TM_ENC_TR_A, 1, 0);
    cr_assert_eq(tm_enc_cfg_check(&c), TM_OK);
    cr_assert_str_eq(tm_encoding_name(TM_ENC_TR_A), "tr_a");
    cr_assert_eq(tm_encoding_parse("tr_a"), TM_ENC_TR_A);
    tm_msg m;
    memset(&m, 0, sizeof m);
    m.kind = TM_MSG_BRANCH;
    m.cnt = 3;
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    /* without states the adaptive encoding cannot be written or read */
    cr_assert_eq(tm_msg_encode(&c, &m, &bb, NULL), TM_ERR_ARG);
    cr_assert_eq(tm_msg_bits(&c, &m), 0);
    cr_assert_eq(tm_msg_encode_branch(&c, 0, 3, 0, 0, 0, &bb, NULL), TM_ERR_ARG);
    cr_assert_eq(bb.nbits, 0);
    tm_bitrd r;
    tm_bitrd_init(&r, (const uint8_t *)"\xff", 8);
    cr_assert_eq(tm_msg_decode(&c, &r, &m), TM_ERR_ARG);
    /* MSG_MAX, N = 1 without time stamps: SYNC(OVERFLOW) with the escape at
     * order 12: 13 + K 2 + R 2 + D 1 + iCnt 97 + gap 97 + ADDR 64 */
    cr_assert_eq(tm_msg_max_bits(&c), 276);
    cr_assert_eq(tm_msg_reserve_bits(&c), 276);
    /* a target message with cnt = 0 after the escape is invalid */
    tm_adapt a = {0, 0, 0}; /* order 0, escape form */
    tm_bitbuf_clear(&bb);
    put_str(&bb, "1" "11" "1" "0" "0000");
    tm_bitrd_init(&r, bb.data, bb.nbits);
    cr_assert_eq(tm_msg_decode_a(&c, &a, &r, &m, NULL, NULL), TM_ERR_FORMAT);
    cr_assert_eq(r.pos, 0);
    tm_bitbuf_free(&bb);
}

/* Random messages of every kind with random states: encode, length, decode. */
Test(tra_worked, random_round_trip)
{
    uint64_t s = 12345;
    for (int it = 0; it < 20000; it++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t x = s ^ (s >> 29);
        tm_enc_cfg c;
        tm_enc_cfg_default(&c, TM_ENC_TR_A, 1 + (uint32_t)(x % 9), (x >> 4) & 1);
        tm_adapt a[9];
        for (int i = 0; i < 9; i++) {
            a[i].cnt = (uint16_t)((x >> (i + 5)) * 2654435761u);
            a[i].cc = (uint16_t)((x >> (i + 7)) * 40503u);
            a[i].tf = (uint16_t)((x >> (i + 9)) % 257u);
        }
        tm_msg m;
        memset(&m, 0, sizeof m);
        m.ti = (uint32_t)((x >> 10) % c.threads);
        m.kind = (tm_msg_kind)((x >> 14) % 4);
        uint64_t big = (x >> 16) & 1 ? x * 0x9E3779B97F4A7C15ull : (x >> 20) & 0xFF;
        m.cnt = big ? big : 1;
        m.t = (uint8_t)((x >> 17) & 1);
        m.diff_ta = (int64_t)(x * 31);
        m.icnt = big >> 3;
        m.gap = big >> 5;
        m.addr = x;
        m.reason = (uint8_t)(m.kind == TM_MSG_SYNC ? (x >> 18) % 3 : (x >> 18) % 2);
        m.lost = (uint8_t)((x >> 19) & 1);
        m.dropped = (uint8_t)((x >> 21) & 1);
        m.diff_cc = c.timestamps ? big >> 1 : 0;
        tm_bitbuf bb;
        tm_bitbuf_init(&bb);
        cr_assert_eq(tm_msg_encode_a(&c, a, &m, &bb, NULL), TM_OK);
        cr_assert_eq(tm_msg_bits_a(&c, a, &m), bb.nbits);
        cr_assert(bb.nbits <= tm_msg_max_bits(&c));
        tm_bitrd r;
        tm_msg back;
        tm_bitrd_init(&r, bb.data, bb.nbits);
        cr_assert_eq(tm_msg_decode_a(&c, a, &r, &back, NULL, NULL), TM_OK, "iteration %d", it);
        cr_assert_eq(r.pos, bb.nbits);
        cr_assert_eq(back.kind, m.kind);
        if (m.kind == TM_MSG_BRANCH) {
            cr_assert_eq(back.cnt, m.cnt);
            cr_assert_eq(back.t, m.t);
        }
        cr_assert_eq(back.diff_cc, m.diff_cc);
        tm_bitbuf_free(&bb);
    }
}
