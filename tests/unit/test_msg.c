/* Unit tests of the trace-message library (include/tm/msg.h, spec §4).
 *
 * Expected bit strings are written in stream order: the first character is
 * the first bit of the stream (§4.1: a field's bit 0 comes first), so the
 * value 6 in a 3-bit field reads "011".  Adjacent string literals separate
 * the fields; the comment next to each names it. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/msg.h"

/* ---------------------------------------------------------------- helpers */

/* splitmix64: a small deterministic generator, state owned by the test. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t mask(unsigned w)
{
    return w >= 64 ? ~0ull : (1ull << w) - 1;
}

/* A value with exactly n significant bits (0 for n = 0): covers every
 * length equally, which uniform 64-bit values would not. */
static uint64_t rnd_len(rng *r, unsigned n)
{
    if (n == 0) return 0;
    return (rnd(r) & mask(n - 1)) | (1ull << (n - 1));
}

static uint64_t rnd_val(rng *r)
{
    return rnd_len(r, (unsigned)(rnd(r) % 65));
}

static int64_t rnd_signed(rng *r)
{
    uint64_t m = rnd_len(r, (unsigned)(rnd(r) % 64)); /* |d| < 2^63 */
    switch (rnd(r) % 16) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    default: return (rnd(r) & 1) ? -(int64_t)m : (int64_t)m;
    }
}

static int bit_at(const uint8_t *data, uint64_t k)
{
    return (data[k >> 3] >> (k & 7)) & 1;
}

/* Bits [from, to) of DATA as '0'/'1' in stream order. */
static void bits_str(const uint8_t *data, uint64_t from, uint64_t to, char *out, size_t n)
{
    cr_assert(to - from < n, "bit string buffer too small");
    for (uint64_t k = from; k < to; k++) *out++ = (char)('0' + bit_at(data, k));
    *out = '\0';
}

/* Appends the bits of S (stream order; other characters are skipped). */
static void put_str(tm_bitbuf *bb, const char *s)
{
    for (; *s; s++)
        if (*s == '0' || *s == '1') cr_assert_eq(tm_bitbuf_put(bb, (uint64_t)(*s - '0'), 1), TM_OK);
}

static void expect_bits(const tm_bitbuf *bb, uint64_t from, const char *exp)
{
    char got[4096];
    bits_str(bb->data, from, bb->nbits, got, sizeof got);
    cr_assert_str_eq(got, exp, "bits\n  got %s\n  exp %s", got, exp);
}

/* The unused high bits of the last byte must be 0. */
static void expect_clean_tail(const tm_bitbuf *bb)
{
    if (bb->nbits & 7) {
        uint8_t last = bb->data[bb->nbits >> 3];
        cr_assert_eq(last >> (bb->nbits & 7), 0, "dirty tail byte %02x at nbits %" PRIu64, last,
                     bb->nbits);
    }
}

static const unsigned default_chunks[][2] = {{3, 2}, {3, 4}, {4, 2}, {8, 8}, {16, 16}};

/* --------------------------------------------------------- bit writer/reader */

Test(msg_bitbuf, init_clear_free)
{
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    cr_assert_eq(bb.nbits, 0);
    cr_assert_eq(tm_bitbuf_put(&bb, 0x2d, 6), TM_OK);
    cr_assert_eq(bb.nbits, 6);
    cr_assert_eq(bb.data[0], 0x2d);
    tm_bitbuf_clear(&bb);
    cr_assert_eq(bb.nbits, 0);
    cr_assert_eq(tm_bitbuf_put(&bb, 1, 1), TM_OK);
    cr_assert_eq(bb.data[0], 0x01, "clear must not leave old bits behind");
    tm_bitbuf_free(&bb);
    cr_assert_null(bb.data);
    cr_assert_eq(bb.nbits, 0);
    tm_bitbuf_free(&bb); /* freeing twice is harmless */
}

Test(msg_bitbuf, lsb_first_packing)
{
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    /* 5 in 3 bits, then a 1: stream "101" "1"; byte 0 = 0b1101. */
    cr_assert_eq(tm_bitbuf_put(&bb, 5, 3), TM_OK);
    cr_assert_eq(tm_bitbuf_put(&bb, 1, 1), TM_OK);
    expect_bits(&bb, 0, "1011");
    cr_assert_eq(bb.data[0], 0x0d);
    /* Only the low W bits are taken. */
    cr_assert_eq(tm_bitbuf_put(&bb, 0xfff0, 6), TM_OK);
    expect_bits(&bb, 0, "1011" "000011");
    cr_assert_eq(bb.data[0], 0x0d);
    cr_assert_eq(bb.data[1], 0x03);
    expect_clean_tail(&bb);
    /* W = 0 appends nothing, W > 64 is refused. */
    cr_assert_eq(tm_bitbuf_put(&bb, ~0ull, 0), TM_OK);
    cr_assert_eq(bb.nbits, 10);
    cr_assert_eq(tm_bitbuf_put(&bb, 1, 65), TM_ERR_ARG);
    cr_assert_eq(bb.nbits, 10);
    expect_clean_tail(&bb);
    tm_bitbuf_free(&bb);
}

/* Every start offset 0..71 and every width 0..64: crosses byte and 64-bit
 * word boundaries, including the 9-byte straddle (offset 7 + 64 bits). */
Test(msg_bitbuf, boundaries)
{
    rng r = {1};
    for (unsigned off = 0; off < 72; off++) {
        for (unsigned w = 0; w <= 64; w++) {
            tm_bitbuf bb;
            tm_bitrd rd;
            uint64_t v = rnd(&r), got;
            tm_bitbuf_init(&bb);
            cr_assert_eq(tm_bitbuf_put(&bb, ~0ull, off > 64 ? 64 : off), TM_OK);
            if (off > 64) cr_assert_eq(tm_bitbuf_put(&bb, ~0ull, off - 64), TM_OK);
            cr_assert_eq(tm_bitbuf_put(&bb, v, w), TM_OK);
            cr_assert_eq(tm_bitbuf_put(&bb, 1, 1), TM_OK); /* a marker after it */
            cr_assert_eq(bb.nbits, off + w + 1);
            expect_clean_tail(&bb);
            for (uint64_t k = 0; k < off; k++) cr_assert_eq(bit_at(bb.data, k), 1);
            for (unsigned k = 0; k < w; k++)
                cr_assert_eq(bit_at(bb.data, off + k), (int)((v >> k) & 1), "off %u w %u bit %u", off,
                             w, k);
            cr_assert_eq(bit_at(bb.data, off + w), 1);
            tm_bitrd_init(&rd, bb.data, bb.nbits);
            rd.pos = off;
            cr_assert_eq(tm_bitrd_get(&rd, w, &got), TM_OK);
            cr_assert_eq(got, v & mask(w), "off %u w %u", off, w);
            cr_assert_eq(rd.pos, off + w);
            tm_bitbuf_free(&bb);
        }
    }
}

/* Random widths and values against a bit-by-bit reference, read back both
 * with the same widths and with different (random) widths. */
Test(msg_bitbuf, random_round_trip)
{
    enum { N = 20000 };
    rng r = {42};
    uint64_t *vals = malloc(N * sizeof *vals);
    unsigned *ws = malloc(N * sizeof *ws);
    tm_bitbuf bb;
    tm_bitrd rd;
    uint64_t total = 0, got;
    uint8_t *ref = calloc(N * 8 + 8, 1);
    cr_assert(ref && vals && ws);
    tm_bitbuf_init(&bb);
    for (int i = 0; i < N; i++) {
        ws[i] = (unsigned)(rnd(&r) % 65);
        vals[i] = rnd(&r);
        for (unsigned k = 0; k < ws[i]; k++, total++)
            if ((vals[i] >> k) & 1) ref[total >> 3] |= (uint8_t)(1u << (total & 7));
        cr_assert_eq(tm_bitbuf_put(&bb, vals[i], ws[i]), TM_OK);
        cr_assert_eq(bb.nbits, total);
        expect_clean_tail(&bb);
    }
    cr_assert_eq(memcmp(bb.data, ref, (size_t)((total + 7) / 8)), 0);
    /* Read from an exact-size copy so that ASan catches any over-read. */
    uint8_t *copy = malloc((size_t)((total + 7) / 8));
    cr_assert_not_null(copy);
    memcpy(copy, bb.data, (size_t)((total + 7) / 8));
    tm_bitrd_init(&rd, copy, total);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(tm_bitrd_get(&rd, ws[i], &got), TM_OK);
        cr_assert_eq(got, vals[i] & mask(ws[i]));
    }
    cr_assert_eq(rd.pos, total);
    tm_bitrd_init(&rd, copy, total);
    while (rd.pos < total) {
        unsigned w = (unsigned)(rnd(&r) % 65);
        uint64_t pos = rd.pos, want = 0;
        if (w > total - pos) w = (unsigned)(total - pos);
        for (unsigned k = 0; k < w; k++) want |= (uint64_t)bit_at(ref, pos + k) << k;
        cr_assert_eq(tm_bitrd_get(&rd, w, &got), TM_OK);
        cr_assert_eq(got, want, "pos %" PRIu64 " w %u", pos, w);
    }
    free(copy);
    free(ref);
    free(vals);
    free(ws);
    tm_bitbuf_free(&bb);
}

Test(msg_bitrd, truncated_and_args)
{
    const uint8_t data[2] = {0xa5, 0x03}; /* 10 bits: 1010010111 */
    tm_bitrd rd;
    uint64_t v = 77;
    tm_bitrd_init(&rd, data, 10);
    cr_assert_eq(tm_bitrd_get(&rd, 11, &v), TM_ERR_TRUNCATED);
    cr_assert_eq(rd.pos, 0);
    cr_assert_eq(v, 77);
    cr_assert_eq(tm_bitrd_get(&rd, 3, &v), TM_OK);
    cr_assert_eq(v, 5);
    cr_assert_eq(tm_bitrd_get(&rd, 8, &v), TM_ERR_TRUNCATED);
    cr_assert_eq(rd.pos, 3);
    cr_assert_eq(tm_bitrd_get(&rd, 65, &v), TM_ERR_ARG);
    cr_assert_eq(rd.pos, 3);
    cr_assert_eq(tm_bitrd_get(&rd, 7, &v), TM_OK);
    cr_assert_eq(v, 0x74); /* bits 3..9 of 0x3a5 */
    cr_assert_eq(tm_bitrd_get(&rd, 0, &v), TM_OK);
    cr_assert_eq(v, 0);
    cr_assert_eq(tm_bitrd_get(&rd, 1, &v), TM_ERR_TRUNCATED);
    cr_assert_eq(rd.pos, 10);
    /* Bits beyond nbits in the last byte are never read. */
    const uint8_t junk[1] = {0xff};
    tm_bitrd_init(&rd, junk, 3);
    cr_assert_eq(tm_bitrd_get(&rd, 3, &v), TM_OK);
    cr_assert_eq(v, 7);
    tm_bitrd_init(&rd, NULL, 0);
    cr_assert_eq(tm_bitrd_get(&rd, 0, &v), TM_OK);
    cr_assert_eq(tm_bitrd_get(&rd, 1, &v), TM_ERR_TRUNCATED);
}

Test(msg_bitbuf, append)
{
    rng r = {7};
    for (int iter = 0; iter < 2000; iter++) {
        tm_bitbuf bb;
        unsigned pre = (unsigned)(rnd(&r) % 20);
        uint64_t n = rnd(&r) % 400;
        size_t nbytes = (size_t)((n + 7) / 8);
        uint8_t *src = malloc(nbytes + 1);
        cr_assert_not_null(src);
        for (size_t k = 0; k < nbytes; k++) src[k] = (uint8_t)rnd(&r); /* junk above n included */
        tm_bitbuf_init(&bb);
        cr_assert_eq(tm_bitbuf_put(&bb, rnd(&r), pre), TM_OK);
        cr_assert_eq(tm_bitbuf_append(&bb, src, n), TM_OK);
        cr_assert_eq(bb.nbits, pre + n);
        expect_clean_tail(&bb);
        for (uint64_t k = 0; k < n; k++) cr_assert_eq(bit_at(bb.data, pre + k), bit_at(src, k));
        cr_assert_eq(tm_bitbuf_put(&bb, 3, 2), TM_OK);
        cr_assert_eq(bit_at(bb.data, pre + n), 1);
        cr_assert_eq(bit_at(bb.data, pre + n + 1), 1);
        expect_clean_tail(&bb);
        free(src);
        tm_bitbuf_free(&bb);
    }
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_bitbuf_append(&bb, NULL, 0), TM_OK);
    cr_assert_eq(tm_bitbuf_append(&bb, NULL, 1), TM_ERR_ARG);
    tm_bitbuf_free(&bb);
}

/* ------------------------------------------------------------ chunked fields */

/* Chunks of v under (a, b) per §4.2: 1 + ceil(max(0, nbits(v) - a) / b). */
static unsigned spec_chunks(uint64_t v, unsigned a, unsigned b)
{
    unsigned n = 0;
    while (n < 64 && (v >> n) != 0) n++;
    return n <= a ? 1 : 1 + (n - a + b - 1) / b;
}

static unsigned spec_chunked_bits(uint64_t v, unsigned a, unsigned b)
{
    unsigned k = spec_chunks(v, a, b);
    return a + 1 + (k - 1) * (b + 1);
}

static void chunked_round_trip(uint64_t v, unsigned a, unsigned b)
{
    tm_bitbuf bb;
    tm_bitrd rd;
    uint64_t got = ~v;
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_bitbuf_put(&bb, 1, 1), TM_OK); /* start off byte alignment */
    cr_assert_eq(tm_chunked_put(&bb, v, a, b), TM_OK);
    cr_assert_eq(bb.nbits - 1, tm_chunked_bits(v, a, b), "v %" PRIu64 " (%u,%u)", v, a, b);
    cr_assert_eq(tm_chunked_bits(v, a, b), spec_chunked_bits(v, a, b), "v %" PRIu64 " (%u,%u)", v,
                 a, b);
    expect_clean_tail(&bb);
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    rd.pos = 1;
    cr_assert_eq(tm_chunked_get(&rd, a, b, &got), TM_OK);
    cr_assert_eq(got, v, "v %" PRIu64 " (%u,%u) got %" PRIu64, v, a, b, got);
    cr_assert_eq(rd.pos, bb.nbits);
    tm_bitbuf_free(&bb);
}

/* 0, 1, every 2^k - 1 and 2^k, the 32- and 48-bit extremes and 2^64 - 1 for
 * the default chunk sizes of the three encodings; and the chunk count steps
 * exactly when the value crosses a chunk boundary a + j*b. */
Test(msg_chunked, boundaries_default_sizes)
{
    for (size_t i = 0; i < sizeof default_chunks / sizeof default_chunks[0]; i++) {
        unsigned a = default_chunks[i][0], b = default_chunks[i][1];
        const uint64_t fixed[] = {0, 1, 0xffffffffull, 0x100000000ull, 0xffffffffffffull,
                                  0x1000000000000ull, UINT64_MAX, 1ull << 63};
        for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) chunked_round_trip(fixed[k], a, b);
        for (unsigned k = 1; k <= 64; k++) {
            chunked_round_trip(mask(k), a, b);
            if (k < 64) chunked_round_trip(1ull << k, a, b);
            if (k < 64) chunked_round_trip((1ull << k) + 1, a, b);
        }
        for (unsigned j = 0; a + j * b < 64; j++) {
            unsigned edge = a + j * b; /* bits held by 1 + j chunks */
            cr_assert_eq(tm_chunked_bits(mask(edge), a, b), a + 1 + j * (b + 1));
            cr_assert_eq(tm_chunked_bits(1ull << edge, a, b), a + 1 + (j + 1) * (b + 1));
        }
        cr_assert_eq(tm_chunked_bits(0, a, b), a + 1);
    }
}

Test(msg_chunked, random_round_trip)
{
    rng r = {99};
    for (int i = 0; i < 20000; i++) {
        unsigned a = 1 + (unsigned)(rnd(&r) % 32), b = 1 + (unsigned)(rnd(&r) % 32);
        chunked_round_trip(rnd_val(&r), a, b);
    }
    /* The functions themselves accept chunk sizes up to 64. */
    for (int i = 0; i < 2000; i++) {
        unsigned a = 1 + (unsigned)(rnd(&r) % 64), b = 1 + (unsigned)(rnd(&r) % 64);
        chunked_round_trip(rnd_val(&r), a, b);
    }
    chunked_round_trip(UINT64_MAX, 64, 64);
    chunked_round_trip(UINT64_MAX, 1, 64);
    chunked_round_trip(UINT64_MAX, 1, 1);
}

static void expect_chunked(uint64_t v, unsigned a, unsigned b, const char *exp)
{
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_chunked_put(&bb, v, a, b), TM_OK);
    expect_bits(&bb, 0, exp);
    tm_bitbuf_free(&bb);
}

static void expect_signed(int64_t d, unsigned a, unsigned b, const char *exp)
{
    tm_bitbuf bb;
    tm_bitrd rd;
    int64_t got;
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_signed_put(&bb, d, a, b), TM_OK);
    expect_bits(&bb, 0, exp);
    cr_assert_eq(bb.nbits, tm_signed_bits(d, a, b));
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    cr_assert_eq(tm_signed_get(&rd, a, b, &got), TM_OK);
    cr_assert_eq(got, d);
    tm_bitbuf_free(&bb);
}

/* Hand-computed chunked fields. */
Test(msg_chunked, hand_bits)
{
    /* 0 with (3,2): one chunk "000", C = 0. */
    expect_chunked(0, 3, 2, "000" "0");
    /* 5 = 0b101 with (3,2): chunk "101", C = 0. */
    expect_chunked(5, 3, 2, "101" "0");
    /* 7 = 0b111 with (3,2): fits the first chunk. */
    expect_chunked(7, 3, 2, "111" "0");
    /* 8 = 0b1000 with (3,2): low 3 bits 000, C = 1, next 2 bits of 8 are
     * (8 >> 3) & 3 = 1, written bit 0 first "10", C = 0. */
    expect_chunked(8, 3, 2, "000" "1" "10" "0");
    /* 31 = 0b11111 with (3,2): "111" C=1 "11" C=0. */
    expect_chunked(31, 3, 2, "111" "1" "11" "0");
    /* 32 with (3,2): "000" C=1, bits 3-4 = 0 "00" C=1 (bit 5 set), "10" C=0. */
    expect_chunked(32, 3, 2, "000" "1" "00" "1" "10" "0");
    /* 100 = 0b1100100 with (4,2): low 4 bits 0100 -> "0010", C = 1,
     * (100 >> 4) = 6: low 2 bits 10 -> "01", C = 1, then 1 -> "10", C = 0. */
    expect_chunked(100, 4, 2, "0010" "1" "01" "1" "10" "0");
    /* 2^64 - 1 with (16,16): four chunks of sixteen 1s. */
    expect_chunked(UINT64_MAX, 16, 16,
                   "1111111111111111" "1" "1111111111111111" "1"
                   "1111111111111111" "1" "1111111111111111" "0");
    /* 2^64 - 1 with (3,2): 3 + 30*2 = 63 bits, then the 31st extra chunk
     * holds bit 63 and a 0 above it. */
    {
        char exp[200], *p = exp;
        p += sprintf(p, "1111");
        for (int k = 0; k < 30; k++) p += sprintf(p, "111");
        sprintf(p, "10" "0");
        expect_chunked(UINT64_MAX, 3, 2, exp);
    }
}

/* Hand-computed signed differences, and the 64-bit extremes. */
Test(msg_chunked, signed_hand_and_extremes)
{
    /* -16 with (3,4): S = 1; |d| = 16: low 3 bits "000", C = 1,
     * 16 >> 3 = 2 in 4 bits -> "0100", C = 0. */
    expect_signed(-16, 3, 4, "1" "000" "1" "0100" "0");
    expect_signed(16, 3, 4, "0" "000" "1" "0100" "0");
    expect_signed(0, 3, 4, "0" "000" "0");
    expect_signed(-1, 3, 4, "1" "100" "0");
    /* INT64_MIN: S = 1, |d| = 2^63: only bit 63 set. */
    expect_signed(INT64_MIN, 16, 16,
                  "1" "0000000000000000" "1" "0000000000000000" "1" "0000000000000000" "1"
                  "0000000000000001" "0");
    expect_signed(INT64_MAX, 16, 16,
                  "0" "1111111111111111" "1" "1111111111111111" "1" "1111111111111111" "1"
                  "1111111111111110" "0");
    const int64_t ext[] = {INT64_MIN, INT64_MIN + 1, INT64_MAX, -1, 0, 1, -(1ll << 32), 1ll << 48};
    for (size_t i = 0; i < sizeof default_chunks / sizeof default_chunks[0]; i++)
        for (size_t k = 0; k < sizeof ext / sizeof ext[0]; k++) {
            unsigned a = default_chunks[i][0], b = default_chunks[i][1];
            tm_bitbuf bb;
            tm_bitrd rd;
            int64_t got;
            tm_bitbuf_init(&bb);
            cr_assert_eq(tm_signed_put(&bb, ext[k], a, b), TM_OK);
            cr_assert_eq(bb.nbits, tm_signed_bits(ext[k], a, b));
            tm_bitrd_init(&rd, bb.data, bb.nbits);
            cr_assert_eq(tm_signed_get(&rd, a, b, &got), TM_OK);
            cr_assert_eq(got, ext[k]);
            tm_bitbuf_free(&bb);
        }
    rng r = {5};
    for (int i = 0; i < 10000; i++) {
        unsigned a = 1 + (unsigned)(rnd(&r) % 32), b = 1 + (unsigned)(rnd(&r) % 32);
        int64_t d = rnd_signed(&r), got;
        tm_bitbuf bb;
        tm_bitrd rd;
        tm_bitbuf_init(&bb);
        cr_assert_eq(tm_signed_put(&bb, d, a, b), TM_OK);
        cr_assert_eq(bb.nbits, tm_signed_bits(d, a, b));
        tm_bitrd_init(&rd, bb.data, bb.nbits);
        cr_assert_eq(tm_signed_get(&rd, a, b, &got), TM_OK);
        cr_assert_eq(got, d);
        tm_bitbuf_free(&bb);
    }
}

/* Decodes the bit string S with (a, b); returns the status and checks that
 * the position moved to the end on success and stayed put on error. */
static int chunked_from_str(const char *s, unsigned a, unsigned b, uint64_t *v)
{
    tm_bitbuf bb;
    tm_bitrd rd;
    int rc;
    tm_bitbuf_init(&bb);
    put_str(&bb, "11"); /* a prefix, so that errors must restore pos = 2 */
    put_str(&bb, s);
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    rd.pos = 2;
    rc = tm_chunked_get(&rd, a, b, v);
    cr_assert_eq(rd.pos, rc == TM_OK ? bb.nbits : 2, "pos %" PRIu64 " rc %d", rd.pos, rc);
    tm_bitbuf_free(&bb);
    return rc;
}

static int signed_from_str(const char *s, unsigned a, unsigned b, int64_t *d)
{
    tm_bitbuf bb;
    tm_bitrd rd;
    int rc;
    tm_bitbuf_init(&bb);
    put_str(&bb, s);
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    rc = tm_signed_get(&rd, a, b, d);
    cr_assert_eq(rd.pos, rc == TM_OK ? bb.nbits : 0);
    tm_bitbuf_free(&bb);
    return rc;
}

Test(msg_chunked, decode_errors)
{
    char s[600], *p;
    uint64_t v;
    int64_t d;

    /* (3,2): 31 chunks hold bits 0..62; the 32nd holds bits 63 and 64. */
    p = s + sprintf(s, "111" "1");
    for (int k = 0; k < 30; k++) p += sprintf(p, "11" "1");
    strcpy(p, "10" "0"); /* bit 63 only: 2^64 - 1 */
    cr_assert_eq(chunked_from_str(s, 3, 2, &v), TM_OK);
    cr_assert_eq(v, UINT64_MAX);
    strcpy(p, "11" "0"); /* bits 63 and 64 */
    cr_assert_eq(chunked_from_str(s, 3, 2, &v), TM_ERR_FORMAT);
    strcpy(p, "01" "0"); /* bit 64 only */
    cr_assert_eq(chunked_from_str(s, 3, 2, &v), TM_ERR_FORMAT);

    /* (3,4): the 16th extra chunk holds bits 63..66. */
    p = s + sprintf(s, "000" "1");
    for (int k = 0; k < 15; k++) p += sprintf(p, "0000" "1");
    strcpy(p, "1000" "0");
    cr_assert_eq(chunked_from_str(s, 3, 4, &v), TM_OK);
    cr_assert_eq(v, 1ull << 63);
    strcpy(p, "0001" "0");
    cr_assert_eq(chunked_from_str(s, 3, 4, &v), TM_ERR_FORMAT);

    /* (8,8): eight chunks of zeros reach shift 64; a ninth nonzero chunk
     * would be bits 64..71. */
    p = s;
    for (int k = 0; k < 8; k++) p += sprintf(p, "00000000" "1");
    strcpy(p, "10000000" "0");
    cr_assert_eq(chunked_from_str(s, 8, 8, &v), TM_ERR_FORMAT);
    /* Many more zero chunks, then a 1 far above bit 63 (shift >= 64 many
     * times over: no shift by >= 64 may happen). */
    p = s;
    for (int k = 0; k < 40; k++) p += sprintf(p, "00000000" "1");
    strcpy(p, "00000001" "0");
    cr_assert_eq(chunked_from_str(s, 8, 8, &v), TM_ERR_FORMAT);
    /* A last chunk of zeros after C = 1 is not canonical (a writer sets C = 1
     * only when nonzero bits follow): rejected, past bit 63 or not. */
    strcpy(p, "00000000" "0");
    cr_assert_eq(chunked_from_str(s, 8, 8, &v), TM_ERR_FORMAT);
    cr_assert_eq(chunked_from_str("101" "1" "00" "0", 3, 2, &v), TM_ERR_FORMAT);
    cr_assert_eq(chunked_from_str("101" "1" "00" "1" "10" "0", 3, 2, &v), TM_OK, "inner zero chunks are fine");
    cr_assert_eq(v, 5 + (1u << 5));
    /* (32,32): the third chunk starts at bit 64. */
    p = s + sprintf(s, "%032d" "1" "%032d" "1", 0, 0);
    sprintf(p, "1%031d" "0", 0);
    cr_assert_eq(chunked_from_str(s, 32, 32, &v), TM_ERR_FORMAT);

    /* Truncated at every bit of a value. */
    {
        tm_bitbuf bb;
        tm_bitbuf_init(&bb);
        cr_assert_eq(tm_chunked_put(&bb, 0x123456789ull, 3, 2), TM_OK);
        for (uint64_t n = 0; n < bb.nbits; n++) {
            tm_bitrd rd;
            tm_bitrd_init(&rd, bb.data, n);
            cr_assert_eq(tm_chunked_get(&rd, 3, 2, &v), TM_ERR_TRUNCATED);
            cr_assert_eq(rd.pos, 0);
        }
        tm_bitbuf_free(&bb);
    }

    /* Signed: S = 0 with |d| = 2^63 does not fit; S = 1 with 2^63 is
     * INT64_MIN; S = 1 with 2^63 + 1 does not fit. */
    cr_assert_eq(signed_from_str("0" "0000000000000000" "1" "0000000000000000" "1"
                                 "0000000000000000" "1" "0000000000000001" "0", 16, 16, &d),
                 TM_ERR_FORMAT);
    cr_assert_eq(signed_from_str("1" "0000000000000000" "1" "0000000000000000" "1"
                                 "0000000000000000" "1" "0000000000000001" "0", 16, 16, &d),
                 TM_OK);
    cr_assert_eq(d, INT64_MIN);
    cr_assert_eq(signed_from_str("1" "1000000000000000" "1" "0000000000000000" "1"
                                 "0000000000000000" "1" "0000000000000001" "0", 16, 16, &d),
                 TM_ERR_FORMAT);
    /* "Negative zero" (S = 1, |d| = 0) is never written: rejected. */
    cr_assert_eq(signed_from_str("1" "000" "0", 3, 4, &d), TM_ERR_FORMAT);
    cr_assert_eq(signed_from_str("0" "000" "0", 3, 4, &d), TM_OK);
    cr_assert_eq(d, 0);
    cr_assert_eq(signed_from_str("1", 3, 4, &d), TM_ERR_TRUNCATED);
}

Test(msg_chunked, bad_chunk_sizes)
{
    tm_bitbuf bb;
    tm_bitrd rd;
    uint64_t v;
    int64_t d;
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_chunked_bits(5, 0, 2), 0);
    cr_assert_eq(tm_chunked_bits(5, 3, 65), 0);
    cr_assert_eq(tm_signed_bits(5, 0, 2), 0);
    cr_assert_eq(tm_chunked_put(&bb, 5, 0, 2), TM_ERR_ARG);
    cr_assert_eq(tm_chunked_put(&bb, 5, 3, 0), TM_ERR_ARG);
    cr_assert_eq(tm_signed_put(&bb, 5, 65, 1), TM_ERR_ARG);
    cr_assert_eq(bb.nbits, 0);
    put_str(&bb, "0000");
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    cr_assert_eq(tm_chunked_get(&rd, 0, 1, &v), TM_ERR_ARG);
    cr_assert_eq(tm_signed_get(&rd, 1, 0, &d), TM_ERR_ARG);
    cr_assert_eq(rd.pos, 0);
    tm_bitbuf_free(&bb);
}

/* ---------------------------------------------------------------- config */

Test(msg_cfg, defaults_and_check)
{
    tm_enc_cfg c;
    tm_enc_cfg_default(&c, TM_ENC_TR_E, 4, 1);
    cr_assert_eq(c.enc, TM_ENC_TR_E);
    cr_assert_eq(c.threads, 4);
    cr_assert_eq(c.timestamps, 1);
    cr_assert(c.cnt_a == 3 && c.cnt_b == 2 && c.ta_a == 3 && c.ta_b == 4 && c.cc_a == 4 && c.cc_b == 2);
    cr_assert_eq(tm_enc_cfg_check(&c), TM_OK);
    const tm_encoding wide[] = {TM_ENC_NX_B, TM_ENC_TR_B};
    for (int i = 0; i < 2; i++) {
        tm_enc_cfg_default(&c, wide[i], 1, 0);
        cr_assert_eq(c.enc, wide[i]);
        cr_assert_eq(c.timestamps, 0);
        cr_assert(c.cnt_a == 8 && c.cnt_b == 8 && c.ta_a == 16 && c.ta_b == 16 && c.cc_a == 8 &&
                  c.cc_b == 8);
        cr_assert_eq(tm_enc_cfg_check(&c), TM_OK);
    }
    tm_enc_cfg_default(&c, TM_ENC_TR_B, 1024, 7);
    cr_assert_eq(c.timestamps, 1);
    cr_assert_eq(tm_enc_cfg_check(&c), TM_OK);
    c.threads = 1025;
    cr_assert_eq(tm_enc_cfg_check(&c), TM_ERR_ARG);
    c.threads = 0;
    cr_assert_eq(tm_enc_cfg_check(&c), TM_ERR_ARG);
    c.threads = 1;
    cr_assert_eq(tm_enc_cfg_check(&c), TM_OK);
    c.enc = TM_ENC_TR_A;
    cr_assert_eq(tm_enc_cfg_check(&c), TM_OK);
    c.enc = (tm_encoding)TM_ENCODINGS;
    cr_assert_eq(tm_enc_cfg_check(&c), TM_ERR_ARG);
    cr_assert_eq(tm_enc_cfg_check(NULL), TM_ERR_ARG);
    /* Each chunk size: 1 and 32 are fine, 0 and 33 are not. */
    for (int f = 0; f < 6; f++) {
        const uint8_t probe[] = {0, 1, 32, 33};
        for (int k = 0; k < 4; k++) {
            tm_enc_cfg_default(&c, TM_ENC_TR_E, 2, 0);
            uint8_t *field[] = {&c.cnt_a, &c.cnt_b, &c.ta_a, &c.ta_b, &c.cc_a, &c.cc_b};
            *field[f] = probe[k];
            cr_assert_eq(tm_enc_cfg_check(&c), probe[k] >= 1 && probe[k] <= 32 ? TM_OK : TM_ERR_ARG,
                         "field %d value %u", f, probe[k]);
        }
    }
}

Test(msg_cfg, ti_bits)
{
    const uint32_t n[] = {1, 2, 3, 4, 5, 8, 9, 16, 17, 1000, 1023, 1024};
    const unsigned w[] = {0, 1, 2, 2, 3, 3, 4, 4, 5, 10, 10, 10};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
        cr_assert_eq(tm_ti_bits(n[i]), w[i], "threads %u", n[i]);
    cr_assert_eq(tm_ti_bits(0), 0);
}

Test(msg_cfg, names)
{
    for (int e = 0; e < TM_ENCODINGS; e++) cr_assert_eq(tm_encoding_parse(tm_encoding_name((tm_encoding)e)), e);
    cr_assert_str_eq(tm_encoding_name(TM_ENC_TR_A), "tr_a");
    cr_assert_str_eq(tm_encoding_name(TM_ENC_NX_B), "nx_b");
    cr_assert_str_eq(tm_encoding_name(TM_ENC_TR_B), "tr_b");
    cr_assert_str_eq(tm_encoding_name(TM_ENC_TR_E), "tr_e");
    cr_assert_str_eq(tm_encoding_name((tm_encoding)9), "?");
    cr_assert_eq(tm_encoding_parse("tr_x"), -1);
    cr_assert_eq(tm_encoding_parse("TR_E"), -1);
    cr_assert_eq(tm_encoding_parse("ttr_e"), -1);
    cr_assert_eq(tm_encoding_parse(""), -1);
    cr_assert_eq(tm_encoding_parse(NULL), -1);
}

/* -------------------------------------------------------------- messages */

static void expect_msg_eq(const tm_msg *a, const tm_msg *b)
{
    cr_assert_eq(a->kind, b->kind);
    cr_assert_eq(a->ti, b->ti);
    cr_assert_eq(a->cnt, b->cnt);
    cr_assert_eq(a->t, b->t);
    cr_assert_eq(a->diff_ta, b->diff_ta);
    cr_assert_eq(a->icnt, b->icnt);
    cr_assert_eq(a->gap, b->gap);
    cr_assert_eq(a->addr, b->addr);
    cr_assert_eq(a->reason, b->reason);
    cr_assert_eq(a->lost, b->lost);
    cr_assert_eq(a->dropped, b->dropped);
    cr_assert_eq(a->diff_cc, b->diff_cc);
}

/* A random valid message of KIND with only the fields its layout carries
 * (the others 0, as the decoder leaves them). */
static tm_msg rnd_msg(rng *r, const tm_enc_cfg *c, tm_msg_kind kind)
{
    tm_msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    m.ti = (uint32_t)(rnd(r) % c->threads);
    switch (kind) {
    case TM_MSG_BRANCH:
        do m.cnt = rnd_val(r); while (m.cnt == 0);
        m.t = (uint8_t)(rnd(r) & 1);
        if (m.t) m.diff_ta = rnd_signed(r);
        break;
    case TM_MSG_EXC:
        m.icnt = rnd_val(r);
        m.diff_ta = rnd_signed(r);
        break;
    case TM_MSG_SYNC:
        m.reason = (uint8_t)(rnd(r) % 3);
        if (m.reason == TM_SYNC_OVERFLOW) {
            m.dropped = (uint8_t)(rnd(r) & 1);
            m.icnt = rnd_val(r);
            m.gap = rnd_val(r);
        }
        m.addr = rnd(r);
        break;
    case TM_MSG_END:
        m.reason = (uint8_t)(rnd(r) & 1);
        m.lost = (uint8_t)(rnd(r) & 1);
        m.icnt = rnd_val(r);
        if (m.lost) {
            m.dropped = (uint8_t)(rnd(r) & 1);
            m.gap = rnd_val(r);
        }
        break;
    case TM_MSG_DATA:
        m.fah = rnd_val(r);
        m.size = (uint8_t)(1 + rnd(r) % TM_DATA_MAX_SIZE);
        for (unsigned k = 0; k < m.size; k++)
            m.value[k] = (uint8_t)rnd(r);
        return m;
    }
    if (c->timestamps) m.diff_cc = rnd_val(r);
    return m;
}

/* Every kind x encoding x timestamps x thread count: a stream of messages
 * (each kind's variants and extremes, then random ones) is encoded; each
 * message's length must equal tm_msg_bits and stay <= MSG_MAX; the field
 * classes must add up; decoding gives the messages back, then (no bits
 * left) TM_ERR_TRUNCATED. */
Test(msg_msg, round_trip_matrix)
{
    const uint32_t threads[] = {1, 2, 3, 4, 8, 1000};
    rng r = {2024};
    enum { PER_KIND = 300 };
    tm_msg *msgs = malloc((4 * PER_KIND + 64) * sizeof *msgs);
    cr_assert_not_null(msgs);
    for (int e = 0; e < 3; e++)
        for (int ts = 0; ts <= 1; ts++)
            for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
                tm_enc_cfg c;
                tm_bitbuf bb;
                tm_bitrd rd;
                tm_field_bits fb = {0};
                size_t n = 0;
                unsigned maxb, resb;
                tm_enc_cfg_default(&c, (tm_encoding)e, threads[ti], ts);
                maxb = tm_msg_max_bits(&c);
                resb = tm_msg_reserve_bits(&c);
                for (int k = 0; k < 4; k++) {
                    /* Fixed variants with the extremes. */
                    tm_msg m;
                    memset(&m, 0, sizeof m);
                    m.kind = (tm_msg_kind)k;
                    m.ti = threads[ti] - 1;
                    m.diff_cc = ts ? UINT64_MAX : 0;
                    if (k == TM_MSG_BRANCH) {
                        m.cnt = 1;
                        msgs[n++] = m;
                        m.cnt = UINT64_MAX;
                        m.t = 1;
                        m.diff_ta = INT64_MIN;
                        msgs[n++] = m;
                        m.diff_ta = INT64_MAX;
                        msgs[n++] = m;
                    } else if (k == TM_MSG_EXC) {
                        msgs[n++] = m;
                        m.icnt = UINT64_MAX;
                        m.diff_ta = INT64_MIN;
                        msgs[n++] = m;
                    } else if (k == TM_MSG_SYNC) {
                        for (uint8_t rs = 0; rs < 3; rs++) {
                            m.reason = rs;
                            m.addr = rs == 1 ? UINT64_MAX : 0;
                            if (rs == TM_SYNC_OVERFLOW) {
                                m.dropped = 1;
                                m.icnt = UINT64_MAX;
                                m.gap = UINT64_MAX;
                            }
                            msgs[n++] = m;
                        }
                    } else {
                        for (uint8_t x = 0; x < 2; x++)
                            for (uint8_t l = 0; l < 2; l++) {
                                m.reason = x;
                                m.lost = l;
                                m.icnt = x ? UINT64_MAX : 0;
                                m.dropped = l ? x : 0;
                                m.gap = l ? UINT64_MAX : 0;
                                msgs[n++] = m;
                            }
                    }
                    for (int i = 0; i < PER_KIND; i++) msgs[n++] = rnd_msg(&r, &c, (tm_msg_kind)k);
                }
                /* Shuffle so that every kind follows every other kind. */
                for (size_t i = n - 1; i > 0; i--) {
                    size_t j = (size_t)(rnd(&r) % (i + 1));
                    tm_msg t = msgs[i];
                    msgs[i] = msgs[j];
                    msgs[j] = t;
                }
                tm_bitbuf_init(&bb);
                for (size_t i = 0; i < n; i++) {
                    uint64_t before = bb.nbits;
                    unsigned len = tm_msg_bits(&c, &msgs[i]);
                    cr_assert_eq(tm_msg_encode(&c, &msgs[i], &bb, &fb), TM_OK);
                    cr_assert_eq(bb.nbits - before, len, "enc %d ts %d N %u kind %d", e, ts,
                                 threads[ti], msgs[i].kind);
                    cr_assert_leq(len, maxb);
                    if ((msgs[i].kind == TM_MSG_SYNC && msgs[i].reason == TM_SYNC_OVERFLOW) ||
                        (msgs[i].kind == TM_MSG_END && msgs[i].lost))
                        cr_assert_leq(len, resb);
                    expect_clean_tail(&bb);
                }
                cr_assert_eq(fb.ti + fb.cnt + fb.diffta + fb.diffcc + fb.sync, bb.nbits);
                cr_assert_eq(fb.ti, (uint64_t)n * tm_ti_bits(threads[ti]));
                if (!ts) cr_assert_eq(fb.diffcc, 0);
                tm_bitrd_init(&rd, bb.data, bb.nbits);
                for (size_t i = 0; i < n; i++) {
                    tm_msg got;
                    cr_assert_eq(tm_msg_decode(&c, &rd, &got), TM_OK, "message %zu", i);
                    expect_msg_eq(&got, &msgs[i]);
                }
                tm_msg got;
                cr_assert_eq(tm_msg_decode(&c, &rd, &got), TM_ERR_TRUNCATED, "no bits left");
                cr_assert_eq(rd.pos, bb.nbits);
                tm_bitbuf_free(&bb);
            }
    free(msgs);
}

/* Random chunk sizes (1..32) too, not just the defaults. */
Test(msg_msg, round_trip_random_cfg)
{
    rng r = {77};
    for (int iter = 0; iter < 300; iter++) {
        tm_enc_cfg c;
        tm_bitbuf bb;
        tm_bitrd rd;
        tm_msg ms[40];
        tm_enc_cfg_default(&c, (tm_encoding)(rnd(&r) % 3), 1 + (uint32_t)(rnd(&r) % 1024),
                           (int)(rnd(&r) & 1));
        c.cnt_a = (uint8_t)(1 + rnd(&r) % 32);
        c.cnt_b = (uint8_t)(1 + rnd(&r) % 32);
        c.ta_a = (uint8_t)(1 + rnd(&r) % 32);
        c.ta_b = (uint8_t)(1 + rnd(&r) % 32);
        c.cc_a = (uint8_t)(1 + rnd(&r) % 32);
        c.cc_b = (uint8_t)(1 + rnd(&r) % 32);
        tm_bitbuf_init(&bb);
        for (int i = 0; i < 40; i++) {
            uint64_t before = bb.nbits;
            ms[i] = rnd_msg(&r, &c, (tm_msg_kind)(rnd(&r) % 4));
            cr_assert_eq(tm_msg_encode(&c, &ms[i], &bb, NULL), TM_OK);
            cr_assert_eq(bb.nbits - before, tm_msg_bits(&c, &ms[i]));
            cr_assert_leq(bb.nbits - before, tm_msg_max_bits(&c));
        }
        tm_bitrd_init(&rd, bb.data, bb.nbits);
        for (int i = 0; i < 40; i++) {
            tm_msg got;
            cr_assert_eq(tm_msg_decode(&c, &rd, &got), TM_OK);
            expect_msg_eq(&got, &ms[i]);
        }
        tm_bitbuf_free(&bb);
    }
}

/* A resynchronization's length as the model computes it while a core is
 * LOST (cmodel/core.c, rs_len): the message with a gap of 0, plus the
 * chunked length of the gap from tm_msg_lens, less that of 0.  For SYNC
 * (OVERFLOW) and END (lost), every encoding, with and without time stamps
 * and data tracing, random chunk sizes, gaps across the chunk boundaries;
 * tr_a with a random adaptive state. */
Test(msg_msg, resync_length_is_linear_in_the_gap)
{
    rng r = {4242};
    for (int iter = 0; iter < 400; iter++) {
        tm_enc_cfg c;
        tm_enc_cfg_default(&c, (tm_encoding)(iter % TM_ENCODINGS), 1 + (uint32_t)(rnd(&r) % 64), (int)(rnd(&r) & 1));
        if (iter % 3 == 0) {
            c.cnt_a = (uint8_t)(1 + rnd(&r) % 32);
            c.cnt_b = (uint8_t)(1 + rnd(&r) % 32);
        }
        c.data = (uint8_t)(rnd(&r) % 3);
        tm_msg_lens L;
        tm_msg_lens_init(&L, &c);
        tm_adapt a[64];
        for (unsigned t = 0; t < c.threads; t++) {
            tm_adapt_reset(&a[t]);
            for (unsigned k = rnd(&r) % 20; k--;) {
                tm_msg m = {0};
                m.kind = TM_MSG_BRANCH;
                m.ti = t;
                m.cnt = 1 + rnd(&r) % 300;
                m.t = (unsigned)(rnd(&r) & 1);
                m.diff_cc = rnd(&r) % 5000;
                tm_adapt_update(&c, a, &m);
            }
        }
        for (int k = 0; k < 20; k++) {
            tm_msg m = {0};
            m.ti = (uint32_t)(rnd(&r) % c.threads);
            m.icnt = rnd(&r) >> (rnd(&r) % 64);
            m.dropped = (unsigned)(rnd(&r) & 1);
            m.diff_cc = rnd(&r) % 100000;
            if (k & 1) {
                m.kind = TM_MSG_SYNC;
                m.reason = TM_SYNC_OVERFLOW;
                m.addr = rnd(&r);
            } else {
                m.kind = TM_MSG_END;
                m.reason = (rnd(&r) & 1) ? TM_END_STOP : TM_END_EXIT;
                m.lost = 1;
            }
            tm_msg z = m;
            z.gap = 0;
            unsigned base = tm_msg_bits_a(&c, a, &z);
            cr_assert_gt(base, 0u);
            for (unsigned b = 0; b <= 64; b++) {
                /* b significant bits: the top one, the others random */
                uint64_t top = b ? UINT64_C(1) << (b - 1) : 0, g = top | (rnd(&r) & (top ? top - 1 : 0));
                m.gap = g;
                cr_assert_eq(tm_msg_bits_a(&c, a, &m), base - L.cnt[0] + L.cnt[tm_nbits64(g)],
                             "encoding %d, %s, gap %" PRIu64, (int)c.enc, m.kind == TM_MSG_SYNC ? "SYNC" : "END", g);
            }
        }
    }
}

/* ---- worked examples: tr_e, N = 4 (Ti is 2 bits), time stamps on.
 * Chunk sizes: bcnt (3,2), ta (3,4), cc (4,2).  Each test encodes one
 * message, compares the exact bit string, decodes it back, and checks the
 * field classes (§4.5). */

static void worked(const tm_msg *m, const char *exp, tm_field_bits want)
{
    tm_enc_cfg c;
    tm_bitbuf bb;
    tm_bitrd rd;
    tm_msg got;
    tm_field_bits fb = {0};
    tm_enc_cfg_default(&c, TM_ENC_TR_E, 4, 1);
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_msg_encode(&c, m, &bb, &fb), TM_OK);
    expect_bits(&bb, 0, exp);
    cr_assert_eq(tm_msg_bits(&c, m), strlen(exp));
    cr_assert_eq(fb.ti, want.ti);
    cr_assert_eq(fb.cnt, want.cnt);
    cr_assert_eq(fb.diffta, want.diffta);
    cr_assert_eq(fb.diffcc, want.diffcc);
    cr_assert_eq(fb.sync, want.sync);
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    cr_assert_eq(tm_msg_decode(&c, &rd, &got), TM_OK);
    expect_msg_eq(&got, m);
    cr_assert_eq(rd.pos, bb.nbits);
    tm_bitbuf_free(&bb);
}

/* Example 1 — BRANCH, T = 0: T1, cnt = 5, diffCC = 3.  12 bits. */
Test(msg_worked, branch_t0)
{
    tm_msg m = {.kind = TM_MSG_BRANCH, .ti = 1, .cnt = 5, .t = 0, .diff_cc = 3};
    worked(&m,
           "10"         /* Ti = 1 (2 bits)                      */
           "101" "0"    /* cnt = 5: chunk 101, C = 0            */
           "0"          /* T = 0                                */
           "1100" "0",  /* diffCC = 3: chunk 0011 -> "1100", C=0 */
           (tm_field_bits){.ti = 2, .cnt = 5, .diffcc = 5});
}

/* Example 2 — BRANCH, T = 1: T2, cnt = 8, diffTA = -16, diffCC = 20.  28 bits. */
Test(msg_worked, branch_t1)
{
    tm_msg m = {.kind = TM_MSG_BRANCH, .ti = 2, .cnt = 8, .t = 1, .diff_ta = -16, .diff_cc = 20};
    worked(&m,
           "01"                /* Ti = 2                                        */
           "000" "1" "10" "0"  /* cnt = 8: 000, C=1, 8>>3 = 1 -> "10", C=0      */
           "1"                 /* T = 1                                         */
           "1"                 /* S = 1 (negative)                              */
           "000" "1" "0100" "0"/* |diffTA| = 16: 000, C=1, 16>>3 = 2 -> "0100", C=0 */
           "0010" "1" "10" "0",/* diffCC = 20: 20&15 = 4 -> "0010", C=1, 20>>4 = 1 -> "10", C=0 */
           (tm_field_bits){.ti = 2, .cnt = 8, .diffta = 10, .diffcc = 8});
}

/* Example 3 — EXC: T3, iCnt = 12, diffTA = +100, diffCC = 0.  30 bits. */
Test(msg_worked, exc)
{
    tm_msg m = {.kind = TM_MSG_EXC, .ti = 3, .icnt = 12, .diff_ta = 100, .diff_cc = 0};
    worked(&m,
           "11"                  /* Ti = 3                                          */
           "000" "0"             /* cnt = 0                                         */
           "00"                  /* K = 0 (exception)                               */
           "001" "1" "10" "0"    /* iCnt = 12: 12&7 = 4 -> "001", C=1, 1 -> "10", C=0 */
           "0"                   /* S = 0                                           */
           "001" "1" "0011" "0"  /* |diffTA| = 100: 4 -> "001", C=1, 12 -> "0011", C=0 */
           "0000" "0",           /* diffCC = 0                                      */
           (tm_field_bits){.ti = 2, .cnt = 4, .sync = 9, .diffta = 10, .diffcc = 5});
}

/* Example 4 — SYNC, thread start: T0, ADDR = 0x401000, diffCC = 7.  79 bits. */
Test(msg_worked, sync_start)
{
    tm_msg m = {.kind = TM_MSG_SYNC, .ti = 0, .reason = TM_SYNC_START, .addr = 0x401000,
                .diff_cc = 7};
    worked(&m,
           "00"        /* Ti = 0                                   */
           "000" "0"   /* cnt = 0                                  */
           "10"        /* K = 1 (sync)                             */
           "00"        /* R = 0 (thread start)                     */
           "00000000"  /* ADDR bits 0..7                           */
           "00001000"  /* ADDR bits 8..15  (bit 12)                */
           "00000010"  /* ADDR bits 16..23 (bit 22)                */
           "00000000" "00000000" "00000000" "00000000" "00000000" /* ADDR bits 24..63 */
           "1110" "0", /* diffCC = 7                               */
           (tm_field_bits){.ti = 2, .cnt = 4, .sync = 68, .diffcc = 5});
}

/* Example 5 — SYNC, overflow: T1, D = 1, iCnt = 3, gap = 40, ADDR = 0x1000,
 * diffCC = 9.  94 bits. */
Test(msg_worked, sync_overflow)
{
    tm_msg m = {.kind = TM_MSG_SYNC, .ti = 1, .reason = TM_SYNC_OVERFLOW, .dropped = 1, .icnt = 3,
                .gap = 40, .addr = 0x1000, .diff_cc = 9};
    worked(&m,
           "10"                        /* Ti = 1                                  */
           "000" "0"                   /* cnt = 0                                 */
           "10"                        /* K = 1 (sync)                            */
           "01"                        /* R = 2 (overflow)                        */
           "1"                         /* D = 1                                   */
           "110" "0"                   /* iCnt = 3                                */
           "000" "1" "10" "1" "10" "0" /* gap = 40 = 0b101000: 000, C=1, 01 -> "10", C=1, 1 -> "10", C=0 */
           "00000000" "00001000"       /* ADDR bits 0..15 (bit 12)                */
           "00000000" "00000000" "00000000" "00000000" "00000000" "00000000" /* bits 16..63 */
           "1001" "0",                 /* diffCC = 9                              */
           (tm_field_bits){.ti = 2, .cnt = 4, .sync = 83, .diffcc = 5});
}

/* Example 6 — END, thread exit: T2, X = 0, L = 0, iCnt = 6, diffCC = 2.  19 bits. */
Test(msg_worked, end_exit)
{
    tm_msg m = {.kind = TM_MSG_END, .ti = 2, .reason = TM_END_EXIT, .lost = 0, .icnt = 6,
                .diff_cc = 2};
    worked(&m,
           "01"        /* Ti = 2            */
           "000" "0"   /* cnt = 0           */
           "01"        /* K = 2 (end)       */
           "0"         /* X = 0 (exit)      */
           "0"         /* L = 0             */
           "011" "0"   /* iCnt = 6 = 0b110  */
           "0100" "0", /* diffCC = 2        */
           (tm_field_bits){.ti = 2, .cnt = 4, .sync = 8, .diffcc = 5});
}

/* Example 7 — END, lost: T3, X = 1 (stop), L = 1, iCnt = 0, D = 0, gap = 17,
 * diffCC = 100.  33 bits. */
Test(msg_worked, end_lost)
{
    tm_msg m = {.kind = TM_MSG_END, .ti = 3, .reason = TM_END_STOP, .lost = 1, .icnt = 0,
                .dropped = 0, .gap = 17, .diff_cc = 100};
    worked(&m,
           "11"                         /* Ti = 3                                      */
           "000" "0"                    /* cnt = 0                                     */
           "01"                         /* K = 2 (end)                                 */
           "1"                          /* X = 1 (trace stop)                          */
           "1"                          /* L = 1                                       */
           "000" "0"                    /* iCnt = 0                                    */
           "0"                          /* D = 0                                       */
           "100" "1" "01" "0"           /* gap = 17 = 0b10001: 1 -> "100", C=1, 2 -> "01", C=0 */
           "0010" "1" "01" "1" "10" "0", /* diffCC = 100: 4 -> "0010", C=1, 2 -> "01", C=1, 1 -> "10", C=0 */
           (tm_field_bits){.ti = 2, .cnt = 4, .sync = 16, .diffcc = 11});
}

/* N = 1: no Ti bits at all; nx_b defaults, no time stamps. */
Test(msg_worked, nx_b_single_thread)
{
    tm_enc_cfg c;
    tm_bitbuf bb;
    tm_msg m = {.kind = TM_MSG_BRANCH, .ti = 0, .cnt = 300, .t = 1, .diff_ta = -2};
    tm_enc_cfg_default(&c, TM_ENC_NX_B, 1, 0);
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_msg_encode(&c, &m, &bb, NULL), TM_OK);
    expect_bits(&bb, 0,
                "00110100" "1" "10000000" "0"            /* cnt = 300 = 0x12c: 0x2c, C=1, 0x01, C=0 */
                "1"                                      /* T = 1 */
                "1" "0100000000000000" "0");             /* S = 1, |diffTA| = 2 */
    tm_bitbuf_free(&bb);
}

/* --------------------------------------------------- invalid messages */

Test(msg_msg, encode_rejects)
{
    tm_enc_cfg c;
    tm_bitbuf bb;
    tm_enc_cfg_default(&c, TM_ENC_TR_E, 3, 1);
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_bitbuf_put(&bb, 5, 3), TM_OK);
    tm_msg bad[] = {
        {.kind = TM_MSG_BRANCH, .cnt = 0},             /* cnt = 0 is the escape */
        {.kind = TM_MSG_BRANCH, .cnt = 1, .t = 2},
        {.kind = TM_MSG_BRANCH, .cnt = 1, .ti = 3},    /* ti >= threads */
        {.kind = TM_MSG_SYNC, .reason = 3},
        {.kind = TM_MSG_SYNC, .reason = TM_SYNC_OVERFLOW, .dropped = 2},
        {.kind = TM_MSG_END, .reason = 2},
        {.kind = TM_MSG_END, .lost = 2},
        {.kind = TM_MSG_END, .lost = 1, .dropped = 2},
        {.kind = (tm_msg_kind)4},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(tm_msg_encode(&c, &bad[i], &bb, NULL), TM_ERR_ARG, "case %zu", i);
        cr_assert_eq(tm_msg_bits(&c, &bad[i]), 0, "case %zu", i);
        cr_assert_eq(bb.nbits, 3, "nothing appended");
    }
    /* Fields the kind does not carry are ignored. */
    tm_msg ok = {.kind = TM_MSG_SYNC, .reason = TM_SYNC_START, .dropped = 9, .lost = 9, .t = 9};
    cr_assert_eq(tm_msg_encode(&c, &ok, &bb, NULL), TM_OK);
    /* An invalid configuration. */
    c.cnt_a = 0;
    tm_msg br = {.kind = TM_MSG_BRANCH, .cnt = 1};
    cr_assert_eq(tm_msg_encode(&c, &br, &bb, NULL), TM_ERR_ARG);
    cr_assert_eq(tm_msg_bits(&c, &br), 0);
    cr_assert_eq(tm_msg_max_bits(&c), 0);
    cr_assert_eq(tm_msg_reserve_bits(&c), 0);
    tm_bitbuf_free(&bb);
}

/* Every message, cut at every bit (including before its first bit), must be
 * TM_ERR_TRUNCATED with the position left at the message start (which is
 * not bit 0 here). */
Test(msg_msg, truncated_everywhere)
{
    rng r = {3};
    const uint32_t threads[] = {1, 3, 8};
    for (int e = 0; e < 3; e++)
        for (int ts = 0; ts <= 1; ts++)
            for (size_t ti = 0; ti < 3; ti++)
                for (int k = 0; k < 4; k++)
                    for (int rep = 0; rep < 3; rep++) {
                        tm_enc_cfg c;
                        tm_bitbuf bb;
                        tm_msg m, first, got;
                        uint64_t start, end;
                        tm_enc_cfg_default(&c, (tm_encoding)e, threads[ti], ts);
                        first = rnd_msg(&r, &c, (tm_msg_kind)(rnd(&r) % 4));
                        m = rnd_msg(&r, &c, (tm_msg_kind)k);
                        tm_bitbuf_init(&bb);
                        cr_assert_eq(tm_msg_encode(&c, &first, &bb, NULL), TM_OK);
                        start = bb.nbits;
                        cr_assert_eq(tm_msg_encode(&c, &m, &bb, NULL), TM_OK);
                        end = bb.nbits;
                        for (uint64_t n = start; n <= end; n++) {
                            tm_bitrd rd;
                            tm_bitrd_init(&rd, bb.data, n);
                            rd.pos = start;
                            int rc = tm_msg_decode(&c, &rd, &got);
                            if (n < end) {
                                cr_assert_eq(rc, TM_ERR_TRUNCATED, "cut at %" PRIu64 " of %" PRIu64,
                                             n - start, end - start);
                                cr_assert_eq(rd.pos, start);
                            } else {
                                cr_assert_eq(rc, TM_OK);
                                expect_msg_eq(&got, &m);
                            }
                        }
                        tm_bitbuf_free(&bb);
                    }
}

/* Decodes the bit string S (after a 5-bit prefix that the reader skips) and
 * returns the status; on error the position must be back at 5. */
static int decode_str(const tm_enc_cfg *c, const char *s, tm_msg *m)
{
    tm_bitbuf bb;
    tm_bitrd rd;
    int rc;
    tm_bitbuf_init(&bb);
    put_str(&bb, "10110");
    put_str(&bb, s);
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    rd.pos = 5;
    rc = tm_msg_decode(c, &rd, m);
    if (rc != TM_OK) cr_assert_eq(rd.pos, 5, "pos after error %d", rc);
    else cr_assert_eq(rd.pos, bb.nbits, "a message uses every bit given here");
    tm_bitbuf_free(&bb);
    return rc;
}

Test(msg_msg, decode_errors)
{
    tm_enc_cfg c;
    tm_msg m;
    char s[1200], *p;
    tm_enc_cfg_default(&c, TM_ENC_TR_E, 4, 0);

    /* A valid END for reference, then the same with K = 3. */
    cr_assert_eq(decode_str(&c, "01" "0000" "01" "0" "0" "0000", &m), TM_OK);
    cr_assert_eq(m.kind, TM_MSG_END);
    cr_assert_eq(decode_str(&c, "01" "0000" "11" "0" "0" "0000", &m), TM_ERR_FORMAT);
    /* SYNC with R = 3. */
    cr_assert_eq(decode_str(&c, "01" "0000" "10" "11" "0000000000000000000000000000000000000000"
                                "000000000000000000000000",
                            &m),
                 TM_ERR_FORMAT);
    /* A well-formed SYNC(trace on) for contrast. */
    cr_assert_eq(decode_str(&c, "01" "0000" "10" "10" "1000000000000000000000000000000000000000"
                                "000000000000000000000000",
                            &m),
                 TM_OK);
    cr_assert_eq(m.reason, TM_SYNC_TRACE_ON);
    cr_assert_eq(m.addr, 1);

    /* Ti >= threads: N = 3 (Ti is 2 bits), Ti = 3. */
    c.threads = 3;
    cr_assert_eq(decode_str(&c, "11" "1000" "0", &m), TM_ERR_FORMAT);
    cr_assert_eq(decode_str(&c, "01" "1000" "0", &m), TM_OK);
    cr_assert_eq(m.ti, 2);
    /* N = 1000: Ti is 10 bits, 1000..1023 are invalid. */
    c.threads = 1000;
    cr_assert_eq(decode_str(&c, "0001011111" "1000" "0", &m), TM_ERR_FORMAT); /* 1000 */
    cr_assert_eq(decode_str(&c, "1111111111" "1000" "0", &m), TM_ERR_FORMAT); /* 1023 */
    cr_assert_eq(decode_str(&c, "1110011111" "1000" "0", &m), TM_OK);             /* 999 */
    cr_assert_eq(m.ti, 999);
    c.threads = 4;

    /* Oversized cnt: (3,2) chunks, the last one with bit 64 set. */
    p = s + sprintf(s, "00" "111" "1");
    for (int k = 0; k < 30; k++) p += sprintf(p, "11" "1");
    strcpy(p, "11" "0" "0");
    cr_assert_eq(decode_str(&c, s, &m), TM_ERR_FORMAT);
    strcpy(p, "10" "0" "0"); /* bit 63 only: cnt = 2^64 - 1, T = 0 */
    cr_assert_eq(decode_str(&c, s, &m), TM_OK);
    cr_assert_eq(m.cnt, UINT64_MAX);

    /* Oversized diffTA: S = 0 with |diffTA| = 2^63 in a BRANCH. */
    p = s + sprintf(s, "00" "100" "0" "1" "0" "000" "1");
    for (int k = 0; k < 15; k++) p += sprintf(p, "0000" "1");
    strcpy(p, "1000" "0");
    cr_assert_eq(decode_str(&c, s, &m), TM_ERR_FORMAT);
    s[7] = '1'; /* S = 1: INT64_MIN is fine */
    cr_assert_eq(decode_str(&c, s, &m), TM_OK);
    cr_assert_eq(m.diff_ta, INT64_MIN);

    /* Oversized diffCC ((4,2) chunks) in an END with time stamps. */
    c.timestamps = 1;
    p = s + sprintf(s, "00" "0000" "01" "0" "0" "0000" "1111" "1");
    for (int k = 0; k < 29; k++) p += sprintf(p, "11" "1");
    strcpy(p, "11" "0"); /* bits 62, 63: fine */
    cr_assert_eq(decode_str(&c, s, &m), TM_OK);
    cr_assert_eq(m.diff_cc, UINT64_MAX);
    strcpy(p, "11" "1" "01" "0"); /* a chunk with bit 65 */
    cr_assert_eq(decode_str(&c, s, &m), TM_ERR_FORMAT);

    /* Invalid arguments. */
    tm_bitrd rd;
    tm_bitrd_init(&rd, NULL, 0);
    c.cc_b = 0;
    cr_assert_eq(tm_msg_decode(&c, &rd, &m), TM_ERR_ARG);
}

/* ------------------------------------------------------ maximum lengths */

/* Independent re-derivation of §4.6 from the layout table. */
static unsigned spec_max(const tm_enc_cfg *c, int reserve_only)
{
    unsigned tw = tm_ti_bits(c->threads);
    unsigned cnt = spec_chunked_bits(UINT64_MAX, c->cnt_a, c->cnt_b);
    unsigned cnt0 = c->cnt_a + 1u;
    unsigned ta = 1 + spec_chunked_bits(1ull << 63, c->ta_a, c->ta_b);
    unsigned cc = c->timestamps ? spec_chunked_bits(UINT64_MAX, c->cc_a, c->cc_b) : 0;
    unsigned branch = tw + cnt + 1 + ta + cc;
    unsigned exc = tw + cnt0 + 2 + cnt + ta + cc;
    unsigned sync = tw + cnt0 + 2 + 2 + 1 + cnt + cnt + 64 + cc;
    unsigned end = tw + cnt0 + 2 + 1 + 1 + cnt + 1 + cnt + cc;
    unsigned m = sync > end ? sync : end;
    if (reserve_only) return m;
    if (branch > m) m = branch;
    if (exc > m) m = exc;
    return m;
}

Test(msg_max, values)
{
    tm_enc_cfg c;
    /* tr_e, N = 8, time stamps: Ti 3, cnt(2^64-1) 97, cnt=0 4, |diffTA| 84,
     * diffCC 95.  SYNC(overflow) = 3+4+2+2+1+97+97+64+95 = 365 is the
     * longest; END(lost) = 301, EXC = 286, BRANCH = 281. */
    tm_enc_cfg_default(&c, TM_ENC_TR_E, 8, 1);
    cr_assert_eq(tm_msg_max_bits(&c), 365);
    cr_assert_eq(tm_msg_reserve_bits(&c), 365);
    /* nx_b, N = 1, no time stamps: cnt(2^64-1) 72, cnt=0 9, |diffTA| 68.
     * SYNC(overflow) = 9+2+2+1+72+72+64 = 222; END(lost) = 158, EXC = 152,
     * BRANCH = 142. */
    tm_enc_cfg_default(&c, TM_ENC_NX_B, 1, 0);
    cr_assert_eq(tm_msg_max_bits(&c), 222);
    cr_assert_eq(tm_msg_reserve_bits(&c), 222);
    /* Against the re-derivation for many configurations. */
    rng r = {11};
    for (int i = 0; i < 5000; i++) {
        tm_enc_cfg_default(&c, (tm_encoding)(rnd(&r) % 3), 1 + (uint32_t)(rnd(&r) % 1024),
                           (int)(rnd(&r) & 1));
        if (i >= 6) {
            c.cnt_a = (uint8_t)(1 + rnd(&r) % 32);
            c.cnt_b = (uint8_t)(1 + rnd(&r) % 32);
            c.ta_a = (uint8_t)(1 + rnd(&r) % 32);
            c.ta_b = (uint8_t)(1 + rnd(&r) % 32);
            c.cc_a = (uint8_t)(1 + rnd(&r) % 32);
            c.cc_b = (uint8_t)(1 + rnd(&r) % 32);
        }
        cr_assert_eq(tm_msg_max_bits(&c), spec_max(&c, 0));
        cr_assert_eq(tm_msg_reserve_bits(&c), spec_max(&c, 1));
        cr_assert_eq(tm_msg_reserve_bits(&c), tm_msg_max_bits(&c));
    }
    /* With chunk sizes 1..32, SYNC(overflow) is always the longest message:
     * SYNC - EXC = |cnt| + 67 - |S diffTA| >= 66 + 67 - 129 > 0 and
     * SYNC - BRANCH is larger still, so MSG_MAX = RESERVE.  The closest
     * case: cnt (32,32) = 66 bits, ta (1,1) = 1 + 128 bits. */
    tm_enc_cfg_default(&c, TM_ENC_TR_B, 2, 0);
    c.cnt_a = c.cnt_b = 32;
    c.ta_a = c.ta_b = 1;
    cr_assert_eq(tm_msg_max_bits(&c), 1 + 33 + 2 + 2 + 1 + 66 + 66 + 64); /* SYNC: 235 */
    cr_assert_eq(tm_msg_reserve_bits(&c), 235);
    {
        /* EXC is 4 bits shorter: 1 + 33 + 2 + 66 + 129 = 231. */
        tm_msg m = {.kind = TM_MSG_EXC, .ti = 1, .icnt = UINT64_MAX, .diff_ta = INT64_MIN};
        cr_assert_eq(tm_msg_bits(&c, &m), 231);
    }
}

/* -------------------------------------------------------------- format */

static void expect_format(const tm_msg *m, int ts, const char *exp)
{
    char buf[256];
    cr_assert_eq(tm_msg_format(m, ts, buf, sizeof buf), TM_OK);
    cr_assert_str_eq(buf, exp);
}

Test(msg_format, lines)
{
    tm_msg b = {.kind = TM_MSG_BRANCH, .ti = 1, .cnt = 3, .t = 1, .diff_ta = -16, .diff_cc = 20};
    expect_format(&b, 1, "T1 BRANCH cnt=3 T=1 diffTA=-16 diffCC=20");
    expect_format(&b, 0, "T1 BRANCH cnt=3 T=1 diffTA=-16");
    b.t = 0;
    expect_format(&b, 0, "T1 BRANCH cnt=3 T=0");
    tm_msg e = {.kind = TM_MSG_EXC, .ti = 3, .icnt = 12, .diff_ta = 100};
    expect_format(&e, 0, "T3 EXC iCnt=12 diffTA=100");
    tm_msg s = {.kind = TM_MSG_SYNC, .ti = 0, .reason = TM_SYNC_START, .addr = 0x401000, .diff_cc = 7};
    expect_format(&s, 1, "T0 SYNC start addr=0x401000 diffCC=7");
    s.reason = TM_SYNC_TRACE_ON;
    expect_format(&s, 0, "T0 SYNC trace_on addr=0x401000");
    tm_msg o = {.kind = TM_MSG_SYNC, .ti = 1, .reason = TM_SYNC_OVERFLOW, .dropped = 1, .icnt = 3,
                .gap = 40, .addr = 0x1000};
    expect_format(&o, 0, "T1 SYNC overflow D=1 iCnt=3 gap=40 addr=0x1000");
    tm_msg x = {.kind = TM_MSG_END, .ti = 2, .reason = TM_END_EXIT, .icnt = 6};
    expect_format(&x, 0, "T2 END exit L=0 iCnt=6");
    tm_msg l = {.kind = TM_MSG_END, .ti = 3, .reason = TM_END_STOP, .lost = 1, .gap = 17,
                .diff_cc = 100};
    expect_format(&l, 1, "T3 END stop L=1 iCnt=0 D=0 gap=17 diffCC=100");

    /* Too small a buffer: truncated, NUL-terminated, TM_ERR_ARG. */
    char small[8];
    cr_assert_eq(tm_msg_format(&l, 1, small, sizeof small), TM_ERR_ARG);
    cr_assert_str_eq(small, "T3 END ");
    cr_assert_eq(tm_msg_format(&l, 1, small, 0), TM_ERR_ARG);
    tm_msg bad = {.kind = (tm_msg_kind)7};
    char buf[64];
    cr_assert_eq(tm_msg_format(&bad, 0, buf, sizeof buf), TM_ERR_ARG);
}

/* ---- data tracing (spec §4.8): the class bit Q and DATA messages ---- */

static int size_of(void *arg, uint32_t ti, uint64_t fah)
{
    (void)ti;
    (void)fah;
    return *(const int *)arg;
}

/* tr_e, N = 4, time stamps on, CFiat: fah chunks (3,2). */
static void data_cfg(tm_enc_cfg *c)
{
    tm_enc_cfg_default(c, TM_ENC_TR_E, 4, 1);
    c->data = TM_DATA_CFIAT;
}

/* Example — DATA: T2, fahCnt = 9, a 2-byte load of 0x1234.  26 bits; no
 * diffCC although time stamps are on. */
Test(msg_data, worked_data)
{
    tm_enc_cfg c;
    tm_bitbuf bb;
    tm_bitrd rd;
    tm_msg m, got;
    tm_field_bits fb;
    memset(&fb, 0, sizeof fb);
    memset(&m, 0, sizeof m);
    data_cfg(&c);
    m.kind = TM_MSG_DATA;
    m.ti = 2;
    m.fah = 9;
    m.size = 2;
    m.value[0] = 0x34;
    m.value[1] = 0x12;
    m.diff_cc = 77; /* ignored: DATA carries no time stamp */
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_msg_encode(&c, &m, &bb, &fb), TM_OK);
    expect_bits(&bb, 0,
                "01"                 /* Ti = 2                                 */
                "1"                  /* Q = 1: data                            */
                "100" "1" "10" "0"   /* fahCnt = 9: 001 -> "100", C=1, 1, C=0  */
                "00101100"           /* byte 0 = 0x34, LSB first               */
                "01001000");         /* byte 1 = 0x12                          */
    cr_assert_eq(tm_msg_bits(&c, &m), 26);
    cr_assert_eq(fb.ti, 2);
    cr_assert_eq(fb.q, 1);
    cr_assert_eq(fb.fah, 7);
    cr_assert_eq(fb.value, 16);
    cr_assert_eq(fb.diffcc, 0);
    int two = 2;
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    cr_assert_eq(tm_msg_decode_sized(&c, &rd, &got, size_of, &two), TM_OK);
    cr_assert_eq(got.kind, TM_MSG_DATA);
    cr_assert_eq(got.ti, 2);
    cr_assert_eq(got.fah, 9);
    cr_assert_eq(got.size, 2);
    cr_assert_eq(got.value[0], 0x34);
    cr_assert_eq(got.value[1], 0x12);
    cr_assert_eq(rd.pos, 26);
    /* Without a size callback a DATA message cannot be read. */
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    cr_assert_eq(tm_msg_decode(&c, &rd, &got), TM_ERR_ARG);
    cr_assert_eq(rd.pos, 0);
    /* A size outside 1..64 is a format error; a negative status is passed on. */
    int zero = 0, big = 65, neg = TM_ERR_MISMATCH;
    cr_assert_eq(tm_msg_decode_sized(&c, &rd, &got, size_of, &zero), TM_ERR_FORMAT);
    cr_assert_eq(tm_msg_decode_sized(&c, &rd, &got, size_of, &big), TM_ERR_FORMAT);
    cr_assert_eq(tm_msg_decode_sized(&c, &rd, &got, size_of, &neg), TM_ERR_MISMATCH);
    cr_assert_eq(rd.pos, 0);
    /* Cut anywhere: truncated, position unchanged. */
    for (uint64_t cut = 1; cut < 26; cut++) {
        tm_bitrd_init(&rd, bb.data, cut);
        cr_assert_eq(tm_msg_decode_sized(&c, &rd, &got, size_of, &two), TM_ERR_TRUNCATED, "cut %llu",
                     (unsigned long long)cut);
        cr_assert_eq(rd.pos, 0);
    }
    tm_bitbuf_free(&bb);
}

/* With data tracing a control message gets Q = 0 after Ti (example 1 of
 * §4.7 becomes 13 bits). */
Test(msg_data, control_message_class_bit)
{
    tm_enc_cfg c;
    tm_bitbuf bb;
    tm_bitrd rd;
    tm_msg got;
    tm_field_bits fb;
    memset(&fb, 0, sizeof fb);
    data_cfg(&c);
    tm_msg m = {.kind = TM_MSG_BRANCH, .ti = 1, .cnt = 5, .t = 0, .diff_cc = 3};
    tm_bitbuf_init(&bb);
    cr_assert_eq(tm_msg_encode(&c, &m, &bb, &fb), TM_OK);
    expect_bits(&bb, 0, "10" "0" "101" "0" "0" "1100" "0");
    cr_assert_eq(fb.q, 1);
    cr_assert_eq(fb.cnt, 5);
    tm_bitrd_init(&rd, bb.data, bb.nbits);
    cr_assert_eq(tm_msg_decode(&c, &rd, &got), TM_OK); /* control: no size needed */
    expect_msg_eq(&got, &m);
    tm_bitbuf_free(&bb);
    /* A DATA message is invalid without data tracing, and with size 0 or 65. */
    tm_enc_cfg off;
    tm_enc_cfg_default(&off, TM_ENC_TR_E, 4, 1);
    tm_msg d;
    memset(&d, 0, sizeof d);
    d.kind = TM_MSG_DATA;
    d.size = 8;
    cr_assert_eq(tm_msg_bits(&off, &d), 0);
    cr_assert_gt(tm_msg_bits(&c, &d), 0);
    d.size = 0;
    cr_assert_eq(tm_msg_bits(&c, &d), 0);
    d.size = 65;
    cr_assert_eq(tm_msg_bits(&c, &d), 0);
    /* Bad data configurations. */
    c.data = 3;
    cr_assert_eq(tm_enc_cfg_check(&c), TM_ERR_ARG);
    c.data = TM_DATA_ALL;
    c.fah_a = 0;
    cr_assert_eq(tm_enc_cfg_check(&c), TM_ERR_ARG);
    c.fah_a = 33;
    cr_assert_eq(tm_enc_cfg_check(&c), TM_ERR_ARG);
    cr_assert_eq(tm_data_mode_parse("cfiat"), TM_DATA_CFIAT);
    cr_assert_eq(tm_data_mode_parse("all"), TM_DATA_ALL);
    cr_assert_eq(tm_data_mode_parse("none"), TM_DATA_NONE);
    cr_assert_eq(tm_data_mode_parse("CFiat"), -1);
    cr_assert_str_eq(tm_data_mode_name(TM_DATA_CFIAT), "cfiat");
}

/* MSG_MAX with data tracing is the longest bundle: tr_e, N = 1: the longest
 * control message 267 + Q = 268; DATA = Q + fahCnt (3,2) at 2^64-1 (97) +
 * 512 = 610; bundle 878.  RESERVE = 268. */
Test(msg_data, max_lengths)
{
    tm_enc_cfg c;
    tm_enc_cfg_default(&c, TM_ENC_TR_E, 1, 0);
    cr_assert_eq(tm_msg_max_bits(&c), 267);
    cr_assert_eq(tm_msg_data_max_bits(&c), 0);
    c.data = TM_DATA_CFIAT;
    cr_assert_eq(tm_msg_data_max_bits(&c), 610);
    cr_assert_eq(tm_msg_max_bits(&c), 878);
    cr_assert_eq(tm_msg_reserve_bits(&c), 268);
}

/* Random DATA and control messages, every size, random data configurations:
 * a stream of them decodes back exactly. */
Test(msg_data, random_stream_round_trip)
{
    rng r = {12345};
    for (int round = 0; round < 200; round++) {
        tm_enc_cfg c;
        tm_enc_cfg_default(&c, (tm_encoding)(rnd(&r) % 3), 1 + (uint32_t)(rnd(&r) % 1024), (int)(rnd(&r) & 1));
        c.data = (uint8_t)(1 + rnd(&r) % 2);
        c.fah_a = (uint8_t)(1 + rnd(&r) % 32);
        c.fah_b = (uint8_t)(1 + rnd(&r) % 32);
        tm_bitbuf bb;
        tm_bitbuf_init(&bb);
        enum { K = 40 };
        tm_msg ms[K];
        int sizes[K];
        for (int i = 0; i < K; i++) {
            if (rnd(&r) % 2) {
                memset(&ms[i], 0, sizeof ms[i]);
                ms[i].kind = TM_MSG_DATA;
                ms[i].ti = (uint32_t)(rnd(&r) % c.threads);
                ms[i].fah = rnd_val(&r);
                ms[i].size = (uint8_t)(1 + rnd(&r) % 64);
                for (int k = 0; k < ms[i].size; k++)
                    ms[i].value[k] = (uint8_t)rnd(&r);
            } else {
                ms[i] = rnd_msg(&r, &c, (tm_msg_kind)(rnd(&r) % 4));
            }
            sizes[i] = ms[i].size;
            cr_assert_eq(tm_msg_encode(&c, &ms[i], &bb, NULL), TM_OK);
        }
        tm_bitrd rd;
        tm_bitrd_init(&rd, bb.data, bb.nbits);
        for (int i = 0; i < K; i++) {
            tm_msg got;
            cr_assert_eq(tm_msg_decode_sized(&c, &rd, &got, size_of, &sizes[i]), TM_OK, "round %d msg %d", round, i);
            cr_assert_eq(got.kind, ms[i].kind);
            if (got.kind == TM_MSG_DATA) {
                cr_assert_eq(got.ti, ms[i].ti);
                cr_assert_eq(got.fah, ms[i].fah);
                cr_assert_eq(got.size, ms[i].size);
                cr_assert(!memcmp(got.value, ms[i].value, got.size));
            } else {
                expect_msg_eq(&got, &ms[i]);
            }
        }
        cr_assert_eq(rd.pos, bb.nbits);
        tm_bitbuf_free(&bb);
    }
}

/* The model's lengths (tm_msg_lens) are tm_msg_bits of the same DATA and
 * BRANCH messages, for every encoding, chunk sizes, thread count and every
 * significant-bit count of each field. */
Test(msg_lens, equal_tm_msg_bits)
{
    rng g = {7};
    for (int iter = 0; iter < 60; iter++) {
        tm_enc_cfg c;
        tm_enc_cfg_default(&c, (tm_encoding)(iter % 3), 1u + (uint32_t)(rnd(&g) % 1024), iter & 1);
        c.data = (uint8_t)(iter % 5 == 0 ? TM_DATA_NONE : (iter % 2 ? TM_DATA_CFIAT : TM_DATA_ALL));
        if (iter >= 6) {
            c.cnt_a = (uint8_t)(1 + rnd(&g) % 32); c.cnt_b = (uint8_t)(1 + rnd(&g) % 32);
            c.ta_a = (uint8_t)(1 + rnd(&g) % 32); c.ta_b = (uint8_t)(1 + rnd(&g) % 32);
            c.cc_a = (uint8_t)(1 + rnd(&g) % 32); c.cc_b = (uint8_t)(1 + rnd(&g) % 32);
        }
        if (c.data) {
            c.fah_a = (uint8_t)(1 + rnd(&g) % 32);
            c.fah_b = (uint8_t)(1 + rnd(&g) % 32);
        }
        cr_assert_eq(tm_enc_cfg_check(&c), TM_OK);
        tm_msg_lens l;
        tm_msg_lens_init(&l, &c);
        for (unsigned k = 0; k <= 64; k++) {
            /* the smallest and the largest value of k significant bits */
            uint64_t vs[2] = {k ? UINT64_C(1) << (k - 1) : 0, mask(k)};
            for (int e = 0; e < 2; e++) {
                uint64_t v = vs[e];
                tm_msg m;
                memset(&m, 0, sizeof m);
                m.kind = TM_MSG_BRANCH;
                m.cnt = v ? v : 1;
                m.diff_cc = c.timestamps ? v : 0;
                for (unsigned t = 0; t < 2; t++) {
                    m.t = (uint8_t)t;
                    m.diff_ta = t ? (e ? -(int64_t)(v >> 1) : (int64_t)(v >> 1)) : 0;
                    cr_assert_eq(tm_msg_lens_branch(&l, m.cnt, t, m.diff_ta, m.diff_cc), tm_msg_bits(&c, &m),
                                 "iter %d k %u t %u", iter, k, t);
                }
                if (c.data) {
                    memset(&m, 0, sizeof m);
                    m.kind = TM_MSG_DATA;
                    m.fah = v;
                    m.size = (uint8_t)(1 + (k % 64));
                    cr_assert_eq(tm_msg_lens_data(&l, m.fah, m.size), tm_msg_bits(&c, &m), "iter %d k %u", iter, k);
                }
            }
        }
    }
}
