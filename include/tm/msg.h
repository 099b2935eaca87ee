/* tm — trace messages: bit writer/reader, chunked fields, and the message
 * encodings nx_b, tr_b, tr_e (docs/spec.md §4).  Used by the model (encode)
 * and by the decoder (decode): one implementation of the bit layout. */
#ifndef TM_MSG_H
#define TM_MSG_H

#include <stddef.h>
#include <stdint.h>
#include "tm/bits.h"
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- bit writer: growable, LSB-first (spec §4.1) ---- */
typedef struct tm_bitbuf {
    uint8_t *data;   /* ceil(nbits/8) valid bytes; unused high bits are 0 */
    uint64_t nbits;
    size_t cap;      /* bytes allocated */
} tm_bitbuf;

void tm_bitbuf_init(tm_bitbuf *b);
void tm_bitbuf_free(tm_bitbuf *b);
void tm_bitbuf_clear(tm_bitbuf *b);
/* Appends the low W bits of V (0 <= W <= 64), bit 0 first. */
int tm_bitbuf_put(tm_bitbuf *b, uint64_t v, unsigned w);
/* Appends NBITS bits of SRC starting at bit 0 of src. */
int tm_bitbuf_append(tm_bitbuf *b, const uint8_t *src, uint64_t nbits);

/* ---- bit reader over a byte array ---- */
typedef struct tm_bitrd {
    const uint8_t *data;
    uint64_t nbits;  /* readable bits */
    uint64_t pos;    /* next bit */
} tm_bitrd;

void tm_bitrd_init(tm_bitrd *r, const uint8_t *data, uint64_t nbits);
/* Reads W bits (0..64) into *v, LSB first.  TM_ERR_TRUNCATED past the end
 * (pos unchanged). */
int tm_bitrd_get(tm_bitrd *r, unsigned w, uint64_t *v);

/* ---- chunked fields (spec §4.2) ---- */
/* Bits needed to encode V with chunk sizes (A, B). */
unsigned tm_chunked_bits(uint64_t v, unsigned a, unsigned b);
int tm_chunked_put(tm_bitbuf *bb, uint64_t v, unsigned a, unsigned b);
/* TM_ERR_TRUNCATED at the end of input, TM_ERR_FORMAT if the value would
 * exceed 64 bits.  On error r->pos is unchanged. */
int tm_chunked_get(tm_bitrd *r, unsigned a, unsigned b, uint64_t *v);
/* Signed difference: sign bit then |d| chunked. */
unsigned tm_signed_bits(int64_t d, unsigned a, unsigned b);
int tm_signed_put(tm_bitbuf *bb, int64_t d, unsigned a, unsigned b);
int tm_signed_get(tm_bitrd *r, unsigned a, unsigned b, int64_t *d);

/* ---- encoding configuration ---- */
typedef enum tm_encoding { TM_ENC_NX_B = 0, TM_ENC_TR_B = 1, TM_ENC_TR_E = 2, TM_ENC_TR_A = 3 } tm_encoding;
#define TM_ENCODINGS 4

/* Load-value tracing (spec §3.8): off, CFiat, or every load (baseline). */
typedef enum tm_data_mode { TM_DATA_NONE = 0, TM_DATA_CFIAT = 1, TM_DATA_ALL = 2 } tm_data_mode;

typedef struct tm_enc_cfg {
    tm_encoding enc;
    uint32_t threads;     /* N: Ti is ceil(log2 N) bits */
    int timestamps;       /* diffCC present */
    uint8_t cnt_a, cnt_b; /* bcnt chunks (i0, i1) */
    uint8_t ta_a, ta_b;   /* |diffTA| chunks (j0, j1) */
    uint8_t cc_a, cc_b;   /* diffCC chunks (h0, h1) */
    uint8_t data;         /* tm_data_mode: with data tracing every message has
                             the class bit Q, and DATA messages exist (§4.8) */
    uint8_t fah_a, fah_b; /* fahCnt chunks (k0, k1) */
} tm_enc_cfg;

/* Fills the default chunk sizes of ENC (spec §4.4, §3.8); data = none. */
void tm_enc_cfg_default(tm_enc_cfg *c, tm_encoding enc, uint32_t threads, int timestamps);
/* TM_OK or TM_ERR_ARG (chunk sizes outside 1..32, threads outside 1..1024,
 * an unknown data mode). */
int tm_enc_cfg_check(const tm_enc_cfg *c);
/* Width of Ti: ceil(log2 threads). */
unsigned tm_ti_bits(uint32_t threads);
const char *tm_encoding_name(tm_encoding e);  /* "nx_b", "tr_b", "tr_e", "tr_a" */
int tm_encoding_parse(const char *s);         /* -1 if unknown */

/* ---- adaptive coding (tr_a, spec §4.9) ----
 * Each thread has three accumulators: CNT for the cnt field, CC for diffCC,
 * TF for the share of target mispredictions among its BRANCH messages.  A
 * field of value v is written as an Exp-Golomb code of order
 * k = tm_adapt_k(accumulator).  While target mispredictions are rare
 * (tm_adapt_escape), a BRANCH message carries no T bit and a target
 * misprediction is the cnt = 0 escape with K = 3; else the T bit follows
 * cnt as in tr_e.  After a message of the thread is accepted into the
 * buffer, tm_adapt_update folds its values in; a SYNC message resets the
 * three.  The encoder and the debugger run this same code. */
typedef struct tm_adapt {
    uint16_t cnt, cc, tf;
} tm_adapt;
#define TM_ADAPT_INIT 32u    /* reset value of both accumulators */
#define TM_ADAPT_SHIFT 3u    /* A <- A - (A >> 3) + min(v, TM_ADAPT_CAP) */
#define TM_ADAPT_CAP 8191u
#define TM_ADAPT_KMAX 12u    /* the largest order an accumulator can reach */
#define TM_ADAPT_TF_SHIFT 4u /* TF <- TF - (TF >> 4) + (target ? 16 : 0): at most 256 */
#define TM_ADAPT_TF_ONE 16u

static inline int tm_enc_adaptive(const tm_enc_cfg *c)
{
    return c->enc == TM_ENC_TR_A;
}
static inline unsigned tm_adapt_k(unsigned acc)
{
    unsigned m = acc >> TM_ADAPT_SHIFT;
    return m ? tm_nbits64(m) - 1u : 0u;
}
static inline unsigned tm_adapt_next(unsigned acc, uint64_t v)
{
    return acc - (acc >> TM_ADAPT_SHIFT) + (unsigned)(v < TM_ADAPT_CAP ? v : TM_ADAPT_CAP);
}
static inline void tm_adapt_reset(tm_adapt *a)
{
    a->cnt = a->cc = (uint16_t)TM_ADAPT_INIT;
    a->tf = 0;
}
/* The escape form of the message kind (no T bit) while the expected cost of
 * the escapes, share x (k + 3) bits, is below the 1 bit of a T bit:
 * TF x (k(A_cnt) + 3) < 256. */
static inline int tm_adapt_escape(const tm_adapt *a)
{
    return (unsigned)a->tf * (tm_adapt_k(a->cnt) + 3u) < 256u;
}
/* Bits of V as an Exp-Golomb code of order K (0..63): with w = v + 2^k
 * (65 bits) and n = floor(log2 w), n - k zeros, a one, then the low n bits
 * of w, least significant first: 2n - k + 1 bits. */
static inline unsigned tm_eg_bits(uint64_t v, unsigned k)
{
    uint64_t w = v + (UINT64_C(1) << k);
    unsigned n = w < v ? 64u : tm_nbits64(w) - 1u;
    return 2u * n - k + 1u;
}
int tm_eg_put(tm_bitbuf *bb, uint64_t v, unsigned k);
/* TM_ERR_TRUNCATED at the end of input, TM_ERR_FORMAT for a code of a
 * value above 2^64 - 1; r->pos unchanged on error. */
int tm_eg_get(tm_bitrd *r, unsigned k, uint64_t *v);

/* ---- messages (spec §4.3) ---- */
typedef enum tm_msg_kind {
    TM_MSG_BRANCH = 0, TM_MSG_EXC = 1, TM_MSG_SYNC = 2, TM_MSG_END = 3,
    TM_MSG_DATA = 4      /* only with data tracing (spec §4.8) */
} tm_msg_kind;

#define TM_MSG_KINDS 5
#define TM_DATA_MAX_SIZE 64  /* bytes of a memory operand */

enum { TM_SYNC_START = 0, TM_SYNC_TRACE_ON = 1, TM_SYNC_OVERFLOW = 2 };
enum { TM_END_EXIT = 0, TM_END_STOP = 1 };

/* tr_a: folds an accepted message of KIND (not DATA) into one thread's
 * state S (§4.9): a SYNC resets it; a BRANCH moves the cnt accumulator by
 * CNT and the target frequency by T; with TIMESTAMPS every message moves
 * the cc accumulator by DIFF_CC.  The one definition of the update: the
 * model's hot path (cmodel/core.c) and tm_adapt_update (the debugger's)
 * call it. */
static inline void tm_adapt_fold(tm_adapt *s, tm_msg_kind kind, uint64_t cnt, unsigned t, uint64_t diff_cc,
                                 int timestamps)
{
    if (kind == TM_MSG_SYNC) {
        tm_adapt_reset(s);
        return;
    }
    if (kind == TM_MSG_BRANCH) {
        s->cnt = (uint16_t)tm_adapt_next(s->cnt, cnt);
        s->tf = (uint16_t)(s->tf - (s->tf >> TM_ADAPT_TF_SHIFT) + (t ? TM_ADAPT_TF_ONE : 0));
    }
    if (timestamps)
        s->cc = (uint16_t)tm_adapt_next(s->cc, diff_cc);
}

typedef struct tm_msg {
    tm_msg_kind kind;
    uint32_t ti;
    uint64_t cnt;      /* BRANCH: bCnt or SL (>= 1) */
    uint8_t t;         /* BRANCH: 1 = target follows */
    int64_t diff_ta;   /* BRANCH with t, EXC */
    uint64_t icnt;     /* EXC; SYNC(OVERFLOW); END */
    uint64_t gap;      /* SYNC(OVERFLOW); END with lost */
    uint64_t addr;     /* SYNC */
    uint8_t reason;    /* SYNC: TM_SYNC_*; END: TM_END_* (the X bit) */
    uint8_t lost;      /* END: L bit */
    uint8_t dropped;   /* SYNC(OVERFLOW), END with lost: D bit */
    uint64_t diff_cc;  /* when timestamps (not in DATA) */
    uint64_t fah;      /* DATA: fahCnt */
    uint8_t size;      /* DATA: operand size in bytes, 1..64 (not encoded) */
    uint8_t value[TM_DATA_MAX_SIZE]; /* DATA: the loaded bytes, memory order */
} tm_msg;

/* Bits per field class (spec §4.5). */
typedef struct tm_field_bits {
    uint64_t ti, cnt, diffta, diffcc, sync;
    uint64_t q;            /* class bits (data tracing on), every message */
    uint64_t fah, value;   /* DATA fields */
} tm_field_bits;

/* Length in bits of M under C, without writing it. */
unsigned tm_msg_bits(const tm_enc_cfg *c, const tm_msg *m);
/* Appends M to BB.  If FB is not NULL, adds the bits of each field class. */
int tm_msg_encode(const tm_enc_cfg *c, const tm_msg *m, tm_bitbuf *bb, tm_field_bits *fb);
/* tm_msg_encode of a DATA message (TI, FAH, the SIZE bytes of VALUE) and of
 * a BRANCH message (TI, CNT, T, DIFF_TA if T, DIFF_CC with time stamps)
 * without a tm_msg: the same bits and the same FB accounting.  For the
 * model's inner loop; TM_ERR_ARG (nothing appended) if the message or the
 * fields of C it needs are invalid (C's encoding is not checked).  VALUE is read a 64-bit word at a time: the bytes up to the next
 * multiple of 8 past SIZE must be readable (a TM_DATA_MAX_SIZE array is). */
int tm_msg_encode_data(const tm_enc_cfg *c, uint32_t ti, uint64_t fah, const uint8_t *value,
                       unsigned size, tm_bitbuf *bb, tm_field_bits *fb);
int tm_msg_encode_branch(const tm_enc_cfg *c, uint32_t ti, uint64_t cnt, unsigned t, int64_t diff_ta,
                         uint64_t diff_cc, tm_bitbuf *bb, tm_field_bits *fb);
/* Reads one message: TM_OK when *m was filled (callers loop while
 * r->pos < r->nbits; with no bit left the result is TM_ERR_TRUNCATED).
 * TM_ERR_TRUNCATED if the input ends inside it,
 * TM_ERR_FORMAT for an invalid K or R, a Ti >= threads, or an oversized
 * chunked field.  On error r->pos is left at the start of the message.
 * A DATA message cannot be read without its operand size: tm_msg_decode
 * returns TM_ERR_ARG for one (use tm_msg_decode_sized). */
int tm_msg_decode(const tm_enc_cfg *c, tm_bitrd *r, tm_msg *m);

/* The operand size (1..64 bytes) of the load a DATA message of thread TI
 * reports, FAH loads after the thread's previous reported one (spec §4.8);
 * or a negative status, which the decode returns. */
typedef int (*tm_msg_size_fn)(void *arg, uint32_t ti, uint64_t fah);
/* tm_msg_decode that reads DATA messages, asking SIZE for their length.
 * A SIZE result outside 1..64 gives TM_ERR_FORMAT. */
int tm_msg_decode_sized(const tm_enc_cfg *c, tm_bitrd *r, tm_msg *m, tm_msg_size_fn size, void *arg);

/* The same for every encoding, with the adaptive state A of the message's
 * thread (A is the state of thread m->ti: indexed by Ti, so an array of
 * c->threads states; NULL is allowed only for the fixed encodings, which
 * ignore it).  The functions above are these with A = NULL: for tr_a they
 * return 0 / TM_ERR_ARG.  Nothing updates A: after a message is accepted
 * (encoder) or read whole (debugger) call tm_adapt_update. */
unsigned tm_msg_bits_a(const tm_enc_cfg *c, const tm_adapt *a, const tm_msg *m);
int tm_msg_encode_a(const tm_enc_cfg *c, const tm_adapt *a, const tm_msg *m, tm_bitbuf *bb, tm_field_bits *fb);
int tm_msg_encode_branch_a(const tm_enc_cfg *c, const tm_adapt *a, uint32_t ti, uint64_t cnt, unsigned t,
                           int64_t diff_ta, uint64_t diff_cc, tm_bitbuf *bb, tm_field_bits *fb);
/* tm_msg_decode_sized with the threads' states A (tr_a: not updated). */
int tm_msg_decode_a(const tm_enc_cfg *c, const tm_adapt *a, tm_bitrd *r, tm_msg *m, tm_msg_size_fn size,
                    void *arg);
/* Folds accepted message M into its thread's state A[m->ti] (nothing for
 * the fixed encodings and for DATA messages). */
void tm_adapt_update(const tm_enc_cfg *c, tm_adapt *a, const tm_msg *m);

/* The lengths of tm_msg_bits for the hot path (the model's offers): a
 * table per chunked field, indexed by the significant bits of the value,
 * built once per configuration from the encoder's own chunk rule.  The
 * inline functions give exactly tm_msg_bits of a DATA and of a BRANCH
 * message (tests/unit/test_msg.c checks every index). */
typedef struct tm_msg_lens {
    unsigned tiq;        /* Ti + Q */
    int timestamps;
    uint8_t cnt[65], ta[65], cc[65], fah[65];
} tm_msg_lens;
void tm_msg_lens_init(tm_msg_lens *l, const tm_enc_cfg *c);
static inline unsigned tm_msg_lens_data(const tm_msg_lens *l, uint64_t fah, unsigned size)
{
    return l->tiq + l->fah[tm_nbits64(fah)] + 8u * size;
}
/* tm_msg_bits_a of a tr_a BRANCH message of a thread in state A. */
static inline unsigned tm_msg_lens_branch_a(const tm_msg_lens *l, const tm_adapt *a, uint64_t cnt, unsigned t,
                                            int64_t diff_ta, uint64_t diff_cc)
{
    unsigned k = tm_adapt_k(a->cnt);
    unsigned n = l->tiq + tm_eg_bits(cnt, k);
    if (!tm_adapt_escape(a))
        n += 1u; /* the T bit */
    else if (t)
        n += k + 3u; /* the escape: cnt = 0, K = 3 */
    if (t) /* S, |diffTA| */
        n += 1u + l->ta[tm_nbits64(tm_abs64(diff_ta))];
    if (l->timestamps)
        n += tm_eg_bits(diff_cc, tm_adapt_k(a->cc));
    return n;
}
static inline unsigned tm_msg_lens_branch(const tm_msg_lens *l, uint64_t cnt, unsigned t, int64_t diff_ta,
                                          uint64_t diff_cc)
{
    unsigned n = l->tiq + l->cnt[tm_nbits64(cnt)] + 1u;
    if (t)
        n += 1u + l->ta[tm_nbits64(tm_abs64(diff_ta))];
    if (l->timestamps)
        n += l->cc[tm_nbits64(diff_cc)];
    return n;
}

/* MSG_MAX and RESERVE of spec §4.6 and §4.8: with data tracing MSG_MAX is
 * the longest bundle (DATA + control message). */
unsigned tm_msg_max_bits(const tm_enc_cfg *c);
unsigned tm_msg_reserve_bits(const tm_enc_cfg *c);
/* The longest DATA message (0 without data tracing). */
unsigned tm_msg_data_max_bits(const tm_enc_cfg *c);
const char *tm_data_mode_name(tm_data_mode d);  /* "none", "cfiat", "all" */
int tm_data_mode_parse(const char *s);          /* -1 if unknown */

/* One-line text form of a message ("T1 BRANCH cnt=3 T=1 diffTA=-16 ..."). */
int tm_msg_format(const tm_msg *m, int timestamps, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
