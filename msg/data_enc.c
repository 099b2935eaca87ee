/* tm — the DATA message encoder (docs/spec.md §4.8); mirrors
 * rtl/tm_data_enc.sv.  The control messages are msg/msg.c's. */
#include <stdint.h>
#include "bitio.h"

/* A DATA message: Ti (10) + Q + fahCnt (128) + VALUE (512) = 651. */
#define DATA_BOUND_BITS 704u

/* The SIZE (1..64) bytes of VALUE, byte 0 first, a 64-bit word at a time:
 * the bytes up to the next multiple of 8 past SIZE must be readable (they
 * are not written). */
static inline void wr_value(tm_wr *w, const uint8_t *value, unsigned size)
{
    for (unsigned k = 0; k < size; k += 8)
        tm_wr_put(w, tm_load_le64(value + k), size - k < 8 ? 8 * (size - k) : 64);
}

int tm_msg_encode_data(const tm_enc_cfg *c, uint32_t ti, uint64_t fah, const uint8_t *value,
                       unsigned size, tm_bitbuf *bb, tm_field_bits *fb)
{
    tm_wr w;
    int rc;
    if (!bb || !value || !c || !c->data || ti >= c->threads || c->threads > 1024 || size < 1 ||
        size > TM_DATA_MAX_SIZE || c->fah_a < 1 || c->fah_a > 32 || c->fah_b < 1 || c->fah_b > 32)
        return TM_ERR_ARG;
    if ((rc = tm_bb_reserve(bb, DATA_BOUND_BITS)) != TM_OK)
        return rc;
    unsigned tb = tm_ti_bits(c->threads);
    unsigned fb_fah = tm_chunked_len(fah, c->fah_a, c->fah_b);
    tm_wr_begin(&w, bb);
    tm_wr_put(&w, ti | (uint64_t)1 << tb, tb + 1); /* Ti, Q = 1 */
    tm_wr_chunked(&w, fah, c->fah_a, c->fah_b);
    wr_value(&w, value, size);
    tm_wr_end(&w, bb);
    if (fb) {
        fb->ti += tb;
        fb->q += 1;
        fb->fah += fb_fah;
        fb->value += 8u * size;
    }
    return TM_OK;
}

