/* tm — private inline bit I/O for the encoder files (not a public header).
 *
 * The public tm_bitbuf_* / tm_bitrd_* / tm_chunked_* functions are thin
 * wrappers around these; the message encoder and decoder call them directly
 * so that the inner loop of the model does not pay for a call per field.
 *
 * Writer rule: every put is covered by an earlier tm_bb_reserve of at least
 * as many bits (tm_bb_put does it itself; tm_bb_put_nr and tm_wr_* rely on
 * the caller's), so that the nine bytes from the current byte on exist. */
#ifndef TM_ENCODER_BITIO_H
#define TM_ENCODER_BITIO_H

#include <stdint.h>
#include <string.h>
#include "tm/bits.h"
#include "tm/msg.h"

/* A put of up to 64 bits at bit offset o (0..7) of byte i touches bytes
 * i .. i+8; those nine bytes must be allocated. */
#define TM_BB_SLACK 9u

/* Little-endian 64-bit load/store at any alignment. */
static inline uint64_t tm_load_le64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
#else
    uint64_t x = 0;
    for (unsigned k = 0; k < 8; k++) x |= (uint64_t)p[k] << (8 * k);
    return x;
#endif
}

static inline void tm_store_le64(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &x, 8);
#else
    for (unsigned k = 0; k < 8; k++) p[k] = (uint8_t)(x >> (8 * k));
#endif
}

/* Grows b so that EXTRA more bits can be appended by unchecked puts.
 * Defined in bitbuf.c; TM_OK or TM_ERR_NOMEM. */
int tm_bb_grow(tm_bitbuf *b, uint64_t extra_bits);

static inline int tm_bb_reserve(tm_bitbuf *b, uint64_t extra_bits)
{
    /* Fast check: the common case needs no arithmetic beyond this. */
    uint64_t need = ((b->nbits + extra_bits) >> 3) + TM_BB_SLACK;
    if (extra_bits <= UINT64_MAX - b->nbits && need <= b->cap) return TM_OK;
    return tm_bb_grow(b, extra_bits);
}

/* Appends the low w (0..64) bits of v; space must have been reserved.
 * Only the low (nbits & 7) bits of the current byte are kept; everything
 * written above the new end is 0, so unused high bits stay 0. */
static inline void tm_bb_put_nr(tm_bitbuf *b, uint64_t v, unsigned w)
{
    uint8_t *p = b->data + (b->nbits >> 3);
    unsigned o = (unsigned)(b->nbits & 7);
    v &= tm_mask64(w);
    tm_store_le64(p, ((uint64_t)p[0] & ((1u << o) - 1)) | (v << o));
    if (o + w > 64) p[8] = (uint8_t)(v >> (64 - o)); /* o >= 1 here */
    b->nbits += w;
}

static inline int tm_bb_put(tm_bitbuf *b, uint64_t v, unsigned w)
{
    int rc = tm_bb_reserve(b, w);
    if (rc != TM_OK) return rc;
    tm_bb_put_nr(b, v, w);
    return TM_OK;
}

/* Bits of a chunked field; a, b in 1..64 (checked by the callers). */
static inline unsigned tm_chunked_len(uint64_t v, unsigned a, unsigned b)
{
    unsigned n = tm_nbits64(v);
    if (n <= a) return a + 1;
    return a + 1 + (n - a + b - 1) / b * (b + 1);
}

/* ---- register writer ----
 * For a run of puts (a message, a chunked field): the bits accumulate in a
 * 64-bit register and go to memory one 64-bit word at a time.  Space must
 * have been reserved for every bit written before tm_wr_begin. */
typedef struct tm_wr {
    uint8_t *p;     /* byte where acc is stored: the current word */
    uint64_t acc;   /* bits n-1..0 pending, bits above n are 0 */
    unsigned n;     /* 0..63 */
    uint64_t nbits; /* stream length so far */
} tm_wr;

static inline void tm_wr_begin(tm_wr *w, const tm_bitbuf *b)
{
    w->p = b->data + (b->nbits >> 3);
    w->n = (unsigned)(b->nbits & 7);
    w->acc = (uint64_t)w->p[0] & ((1u << w->n) - 1);
    w->nbits = b->nbits;
}

/* Appends the low width (0..64) bits of v. */
static inline void tm_wr_put(tm_wr *w, uint64_t v, unsigned width)
{
    unsigned t = w->n + width;
    v &= tm_mask64(width);
    w->acc |= v << w->n;
    if (t >= 64) {
        tm_store_le64(w->p, w->acc);
        w->p += 8;
        w->acc = w->n ? v >> (64 - w->n) : 0;
        t -= 64;
    }
    w->n = t;
    w->nbits += width;
}

/* Stores the pending bits (the whole word: bits above the end are 0). */
static inline void tm_wr_end(tm_wr *w, tm_bitbuf *b)
{
    tm_store_le64(w->p, w->acc);
    b->nbits = w->nbits;
}

/* Chunked field.  C = 1 iff bits of v above those already written are
 * nonzero.  The usual case (encoding <= 64 bits) is assembled in a register
 * and written with one put; longer ones go out a chunk (+ C) at a time. */
static inline void tm_wr_chunked(tm_wr *wr, uint64_t v, unsigned a, unsigned b)
{
    unsigned len = tm_chunked_len(v, a, b);
    if (len <= 64) {
        /* Every shift below is < 64: a + 1 <= len, and each further chunk
         * needs b + 1 more bits within len. */
        uint64_t enc = v & tm_mask64(a);
        unsigned pos = a;
        v >>= a;
        while (v) {
            enc |= (uint64_t)1 << pos; /* C = 1 */
            enc |= (v & tm_mask64(b)) << (pos + 1);
            pos += b + 1;
            v >>= b;
        }
        tm_wr_put(wr, enc, len); /* the final C = 0 is bit len - 1 */
        return;
    }
    for (unsigned w = a;; w = b) {
        uint64_t chunk = v & tm_mask64(w);
        uint64_t more;
        v = w >= 64 ? 0 : v >> w;
        more = v != 0;
        if (w < 64) {
            tm_wr_put(wr, chunk | (more << w), w + 1);
        } else {
            tm_wr_put(wr, chunk, 64);
            tm_wr_put(wr, more, 1);
        }
        if (!more) return;
    }
}


static inline void tm_wr_signed(tm_wr *wr, int64_t d, unsigned a, unsigned b)
{
    tm_wr_put(wr, d < 0, 1);
    tm_wr_chunked(wr, tm_abs64(d), a, b);
}

/* Exp-Golomb code of order k (0..63) of v (spec §4.9.1). */
static inline void tm_wr_eg(tm_wr *wr, uint64_t v, unsigned k)
{
    uint64_t w = v + (UINT64_C(1) << k); /* the low 64 bits of the 65-bit sum */
    unsigned n = w < v ? 64u : tm_nbits64(w) - 1u;
    unsigned z = n - k;
    if (2u * n - k + 1u <= 64u) {
        tm_wr_put(wr, (UINT64_C(1) << z) | ((w & tm_mask64(n)) << (z + 1u)), 2u * n - k + 1u);
        return;
    }
    tm_wr_put(wr, 0, z);
    tm_wr_put(wr, 1, 1);
    tm_wr_put(wr, w & tm_mask64(n), n);
}

/* ---- reader ---- */

/* Reads w (0..64) bits.  TM_ERR_TRUNCATED (pos unchanged) if fewer remain. */
static inline int tm_rd_get(tm_bitrd *r, unsigned w, uint64_t *v)
{
    uint64_t i, nbytes, x;
    unsigned o;
    if (r->pos > r->nbits || w > r->nbits - r->pos) return TM_ERR_TRUNCATED;
    if (w == 0) { *v = 0; return TM_OK; }
    i = r->pos >> 3;
    o = (unsigned)(r->pos & 7);
    nbytes = (r->nbits + 7) >> 3;
    if (i + 8 <= nbytes) {
        x = tm_load_le64(r->data + i);
    } else {
        /* Near the end: never read past the last byte of the input. */
        x = 0;
        for (uint64_t k = 0; i + k < nbytes; k++) x |= (uint64_t)r->data[i + k] << (8 * k);
    }
    x >>= o;
    /* The field reaches byte i+8, which exists since pos + w <= nbits. */
    if (o + w > 64) x |= (uint64_t)r->data[i + 8] << (64 - o);
    *v = x & tm_mask64(w);
    r->pos += w;
    return TM_OK;
}

/* Chunked field.  Only the canonical encoding is accepted (spec §4.2): a 1 bit
 * that would land above bit 63, or a last chunk of zeros after C = 1 (which a
 * writer never produces: C = 1 means more nonzero bits follow), is
 * TM_ERR_FORMAT — so a corrupted trace is caught as early as possible.  On
 * error the position is wherever the failing read left it; callers restore
 * it. */
static inline int tm_rd_chunked(tm_bitrd *r, unsigned a, unsigned b, uint64_t *out)
{
    /* Fast path: the whole field within one 64-bit load (at least 57 bits
     * from pos on, all before the end), chunks of up to 56 bits: the same
     * checks as below apply, of which only the non-canonical last chunk can
     * fail (no 1 bit can land above bit 63). */
    uint64_t pos = r->pos, i = pos >> 3;
    if (pos <= r->nbits && i + 8 <= (r->nbits + 7) >> 3 && a <= 56 && b <= 56) {
        unsigned o = (unsigned)(pos & 7);
        uint64_t x = tm_load_le64(r->data + i) >> o;
        uint64_t lim = r->nbits - pos < 64 - o ? r->nbits - pos : 64 - o;
        if (a + 1 <= lim) {
            uint64_t val = x & tm_mask64(a);
            unsigned used = a + 1, sh = a;
            if (!((x >> a) & 1)) {
                r->pos = pos + used;
                *out = val;
                return TM_OK;
            }
            while (used + b + 1 <= lim) { /* so used + b <= 63 */
                uint64_t c = (x >> used) & tm_mask64(b);
                unsigned m = (unsigned)((x >> (used + b)) & 1);
                val |= c << sh;
                sh += b;
                used += b + 1;
                if (!m) {
                    if (c == 0) return TM_ERR_FORMAT; /* non-canonical */
                    r->pos = pos + used;
                    *out = val;
                    return TM_OK;
                }
            }
        }
    }
    uint64_t v = 0, chunk, more;
    unsigned w = a, shift = 0; /* shift saturates at 64 */
    int rc, first = 1;
    for (;;) {
        if ((rc = tm_rd_get(r, w, &chunk)) != TM_OK) return rc;
        if (chunk != 0) {
            if (shift >= 64) return TM_ERR_FORMAT;
            /* shift >= 1 whenever w + shift > 64, since w <= 64 */
            if (w + shift > 64 && (chunk >> (64 - shift)) != 0) return TM_ERR_FORMAT;
            v |= chunk << shift;
        }
        shift = shift + w >= 64 ? 64 : shift + w;
        if ((rc = tm_rd_get(r, 1, &more)) != TM_OK) return rc;
        if (!more) {
            if (chunk == 0 && !first) return TM_ERR_FORMAT; /* non-canonical */
            break;
        }
        w = b;
        first = 0;
    }
    *out = v;
    return TM_OK;
}

/* Signed difference: S then |d|.  A magnitude that does not fit (> 2^63 - 1
 * with S = 0, > 2^63 with S = 1) is TM_ERR_FORMAT, and so is S = 1 with
 * magnitude 0 ("negative zero", which a writer never produces). */
static inline int tm_rd_signed(tm_bitrd *r, unsigned a, unsigned b, int64_t *out)
{
    uint64_t s, mag;
    int rc;
    if ((rc = tm_rd_get(r, 1, &s)) != TM_OK) return rc;
    if ((rc = tm_rd_chunked(r, a, b, &mag)) != TM_OK) return rc;
    if (!s) {
        if (mag > (uint64_t)INT64_MAX) return TM_ERR_FORMAT;
        *out = (int64_t)mag;
    } else {
        if (mag == 0 || mag > (uint64_t)1 << 63) return TM_ERR_FORMAT;
        *out = mag == (uint64_t)1 << 63 ? INT64_MIN : -(int64_t)mag;
    }
    return TM_OK;
}

/* Exp-Golomb code of order k (0..63).  TM_ERR_TRUNCATED / TM_ERR_FORMAT (a
 * value above 2^64 - 1); on error the position is wherever the failing read
 * left it (callers restore it). */
static inline int tm_rd_eg(tm_bitrd *r, unsigned k, uint64_t *out)
{
    unsigned z = 0;
    uint64_t low;
    int rc;
    /* the zeros: a 64-bit window at a time where the input allows */
    if (r->pos > r->nbits) return TM_ERR_TRUNCATED;
    for (;;) {
        uint64_t left = r->nbits - r->pos;
        unsigned w = left < 57 ? (unsigned)left : 57u;
        uint64_t x;
        if (w == 0) return TM_ERR_TRUNCATED;
        if ((rc = tm_rd_get(r, w, &x)) != TM_OK) return rc;
        if (x) {
            unsigned tz = (unsigned)__builtin_ctzll(x);
            r->pos -= w - tz - 1u; /* just after the one */
            z += tz;
            break;
        }
        z += w;
        if (z > 64u - k) return TM_ERR_FORMAT;
    }
    if (z > 64u - k) return TM_ERR_FORMAT;
    unsigned n = z + k;
    if ((rc = tm_rd_get(r, n, &low)) != TM_OK) return rc;
    if (n == 64) {
        if (k < 64 && low >= (UINT64_C(1) << k)) return TM_ERR_FORMAT;
        *out = low - (UINT64_C(1) << k);
    } else {
        *out = (UINT64_C(1) << n) + low - (UINT64_C(1) << k);
    }
    return TM_OK;
}

#endif
