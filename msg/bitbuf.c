/* tm — bit writer, bit reader and chunked fields (docs/spec.md §4.1, §4.2).
 *
 * Bits are packed least significant first: stream bit k is bit (k mod 8) of
 * byte k / 8.  The writer keeps TM_BB_SLACK spare bytes after the last used
 * byte so that a put of up to 64 bits is one unaligned 64-bit store (plus one
 * byte when the field straddles nine bytes), and runs of puts (messages,
 * chunked fields) go through a 64-bit register; see bitio.h. */
#include <stdlib.h>
#include <string.h>
#include "tm/msg.h"
#include "bitio.h"

void tm_bitbuf_init(tm_bitbuf *b)
{
    b->data = NULL;
    b->nbits = 0;
    b->cap = 0;
}

void tm_bitbuf_free(tm_bitbuf *b)
{
    free(b->data);
    tm_bitbuf_init(b);
}

void tm_bitbuf_clear(tm_bitbuf *b)
{
    /* The bytes stay allocated; puts never depend on their old contents
     * beyond the low bits of the current byte. */
    b->nbits = 0;
}

int tm_bb_grow(tm_bitbuf *b, uint64_t extra_bits)
{
    uint64_t need, ncap;
    uint8_t *p;
    if (extra_bits > UINT64_MAX - b->nbits) return TM_ERR_NOMEM;
    need = ((b->nbits + extra_bits) >> 3) + TM_BB_SLACK;
    if (need <= b->cap) return TM_OK;
    ncap = b->cap < 64 ? 64 : b->cap;
    while (ncap < need) {
        if (ncap > UINT64_MAX / 2) { ncap = need; break; }
        ncap *= 2;
    }
    if (ncap > SIZE_MAX) return TM_ERR_NOMEM;
    p = realloc(b->data, (size_t)ncap);
    if (!p) return TM_ERR_NOMEM;
    /* Zeroed so that no byte of the buffer is ever read uninitialized. */
    memset(p + b->cap, 0, (size_t)ncap - b->cap);
    b->data = p;
    b->cap = (size_t)ncap;
    return TM_OK;
}

int tm_bitbuf_put(tm_bitbuf *b, uint64_t v, unsigned w)
{
    if (w > 64) return TM_ERR_ARG;
    return tm_bb_put(b, v, w);
}

/* SRC must not point into B's own data (growing B may move it). */
int tm_bitbuf_append(tm_bitbuf *b, const uint8_t *src, uint64_t nbits)
{
    uint64_t k, nfull;
    unsigned rest;
    int rc;
    if (nbits == 0) return TM_OK;
    if (!src) return TM_ERR_ARG;
    if ((rc = tm_bb_reserve(b, nbits)) != TM_OK) return rc;
    nfull = nbits >> 3;
    rest = (unsigned)(nbits & 7);
    if ((b->nbits & 7) == 0) {
        /* Byte-aligned destination: copy whole bytes, then the tail bits. */
        memcpy(b->data + (b->nbits >> 3), src, (size_t)nfull);
        b->nbits += nfull << 3;
        if (rest) tm_bb_put_nr(b, src[nfull], rest);
        return TM_OK;
    }
    /* Unaligned: 64 bits at a time, then the remaining 0..7 bytes + bits. */
    tm_wr w;
    tm_wr_begin(&w, b);
    for (k = 0; k + 8 <= nfull; k += 8) tm_wr_put(&w, tm_load_le64(src + k), 64);
    for (; k < nfull; k++) tm_wr_put(&w, src[k], 8);
    if (rest) tm_wr_put(&w, src[nfull], rest);
    tm_wr_end(&w, b);
    return TM_OK;
}

void tm_bitrd_init(tm_bitrd *r, const uint8_t *data, uint64_t nbits)
{
    r->data = data;
    r->nbits = nbits;
    r->pos = 0;
}

int tm_bitrd_get(tm_bitrd *r, unsigned w, uint64_t *v)
{
    if (w > 64) return TM_ERR_ARG;
    return tm_rd_get(r, w, v);
}

/* ---- chunked fields: chunk sizes must be 1..64 (TM_ERR_ARG otherwise) ---- */

static int chunks_ok(unsigned a, unsigned b)
{
    return a >= 1 && a <= 64 && b >= 1 && b <= 64;
}

unsigned tm_chunked_bits(uint64_t v, unsigned a, unsigned b)
{
    return chunks_ok(a, b) ? tm_chunked_len(v, a, b) : 0;
}

/* A chunked field of magnitude MAG, after a sign bit NEG if SIGNED. */
static int field_put(tm_bitbuf *bb, int is_signed, int neg, uint64_t mag, unsigned a, unsigned b)
{
    tm_wr w;
    int rc;
    if (!chunks_ok(a, b)) return TM_ERR_ARG;
    if ((rc = tm_bb_reserve(bb, (is_signed ? 1u : 0u) + tm_chunked_len(mag, a, b))) != TM_OK) return rc;
    tm_wr_begin(&w, bb);
    if (is_signed) tm_wr_put(&w, (uint64_t)neg, 1);
    tm_wr_chunked(&w, mag, a, b);
    tm_wr_end(&w, bb);
    return TM_OK;
}

/* Reads a chunked field into *U, or a signed one into *D if D is not NULL;
 * r->pos unchanged on error. */
static int field_get(tm_bitrd *r, unsigned a, unsigned b, uint64_t *u, int64_t *d)
{
    uint64_t start = r->pos;
    if (!chunks_ok(a, b)) return TM_ERR_ARG;
    int rc = d ? tm_rd_signed(r, a, b, d) : tm_rd_chunked(r, a, b, u);
    if (rc != TM_OK) r->pos = start;
    return rc;
}

int tm_chunked_put(tm_bitbuf *bb, uint64_t v, unsigned a, unsigned b)
{
    return field_put(bb, 0, 0, v, a, b);
}

int tm_chunked_get(tm_bitrd *r, unsigned a, unsigned b, uint64_t *v)
{
    return field_get(r, a, b, v, NULL);
}

unsigned tm_signed_bits(int64_t d, unsigned a, unsigned b)
{
    return chunks_ok(a, b) ? 1 + tm_chunked_len(tm_abs64(d), a, b) : 0;
}

int tm_signed_put(tm_bitbuf *bb, int64_t d, unsigned a, unsigned b)
{
    return field_put(bb, 1, d < 0, tm_abs64(d), a, b);
}

int tm_signed_get(tm_bitrd *r, unsigned a, unsigned b, int64_t *d)
{
    return field_get(r, a, b, NULL, d);
}
