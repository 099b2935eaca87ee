/* tm — encoding configurations and the four trace messages (docs/spec.md
 * §4.3 – §4.6): length, encode, decode, maximum lengths and a text form.
 *
 * Conventions chosen where the header leaves room (see also msg.h):
 *  - a message is valid for encoding iff its kind is known, ti < threads,
 *    and the fields its kind uses are in range (BRANCH: cnt >= 1, t <= 1;
 *    SYNC: reason <= 2, dropped <= 1 for OVERFLOW; END: reason <= 1,
 *    lost <= 1, dropped <= 1 when lost).  Fields the kind does not use are
 *    ignored by encode and set to 0 by decode.  tm_msg_encode returns
 *    TM_ERR_ARG for an invalid message or configuration and appends nothing;
 *    tm_msg_bits returns 0 for them (no valid message is 0 bits long).
 *  - tm_msg_decode returns TM_OK with *m filled, or a negative status with
 *    r->pos back at the message start and *m untouched.  With no bit left at
 *    r->pos it returns TM_ERR_TRUNCATED (callers loop while pos < nbits).
 *    This is msg.h's reading (and its callers'), not status.h's 1/0 rule
 *    for functions that deliver a message. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tm/msg.h"
#include "bitio.h"

/* Upper bound on the length of any valid message under a valid
 * configuration: Ti <= 10 bits (N <= 1024), a chunked field of a value
 * < 2^64 is at most 64 data bits + 64 connect bits, the cnt = 0 escape at
 * most 33 bits.  Longest is SYNC(OVERFLOW): 10 + 33 + 2 + 2 + 1 + 128 + 128
 * + 64 + 128 = 496.  Encoding reserves this much once, then writes every
 * field with unchecked puts. */
#define MSG_BOUND_BITS 512u

/* ---- configuration ---- */

void tm_enc_cfg_default(tm_enc_cfg *c, tm_encoding enc, uint32_t threads, int timestamps)
{
    memset(c, 0, sizeof *c);
    c->enc = enc;
    c->threads = threads;
    c->timestamps = timestamps != 0;
    if (enc == TM_ENC_TR_E || enc == TM_ENC_TR_A) {
        c->cnt_a = 3; c->cnt_b = 2;
        c->ta_a = 3; c->ta_b = 4;
        c->cc_a = 4; c->cc_b = 2;
        c->fah_a = 3; c->fah_b = 2;
    } else {
        c->cnt_a = 8; c->cnt_b = 8;
        c->ta_a = 16; c->ta_b = 16;
        c->cc_a = 8; c->cc_b = 8;
        c->fah_a = 8; c->fah_b = 8;
    }
    c->data = TM_DATA_NONE;
}

static int chunk_ok(unsigned x)
{
    return x >= 1 && x <= 32;
}

int tm_enc_cfg_check(const tm_enc_cfg *c)
{
    if (!c) return TM_ERR_ARG;
    if ((unsigned)c->enc >= TM_ENCODINGS) return TM_ERR_ARG;
    if (c->threads < 1 || c->threads > 1024) return TM_ERR_ARG;
    if (!chunk_ok(c->cnt_a) || !chunk_ok(c->cnt_b) || !chunk_ok(c->ta_a) || !chunk_ok(c->ta_b) ||
        !chunk_ok(c->cc_a) || !chunk_ok(c->cc_b))
        return TM_ERR_ARG;
    if (c->data > TM_DATA_ALL) return TM_ERR_ARG;
    if (c->data && (!chunk_ok(c->fah_a) || !chunk_ok(c->fah_b))) return TM_ERR_ARG;
    return TM_OK;
}

static const char *const data_names[] = {"none", "cfiat", "all"};  /* by tm_data_mode */
static const char *const enc_names[] = {"nx_b", "tr_b", "tr_e", "tr_a"}; /* by tm_encoding */

static const char *name_of(const char *const *names, unsigned n, unsigned v)
{
    return v < n ? names[v] : "?";
}

static int parse_name(const char *const *names, unsigned n, const char *s)
{
    for (unsigned i = 0; s && i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return (int)i;
    return -1;
}

const char *tm_data_mode_name(tm_data_mode d) { return name_of(data_names, 3, (unsigned)d); }
int tm_data_mode_parse(const char *s) { return parse_name(data_names, 3, s); }
const char *tm_encoding_name(tm_encoding e) { return name_of(enc_names, TM_ENCODINGS, (unsigned)e); }
int tm_encoding_parse(const char *s) { return parse_name(enc_names, TM_ENCODINGS, s); }

unsigned tm_ti_bits(uint32_t threads)
{
    return threads <= 1 ? 0 : tm_nbits64((uint64_t)threads - 1);
}

/* ---- messages ---- */

static int msg_check(const tm_enc_cfg *c, const tm_msg *m)
{
    if (m->ti >= c->threads) return TM_ERR_ARG;
    switch (m->kind) {
    case TM_MSG_BRANCH:
        return m->cnt >= 1 && m->t <= 1 ? TM_OK : TM_ERR_ARG;
    case TM_MSG_EXC:
        return TM_OK;
    case TM_MSG_SYNC:
        if (m->reason > TM_SYNC_OVERFLOW) return TM_ERR_ARG;
        return m->reason != TM_SYNC_OVERFLOW || m->dropped <= 1 ? TM_OK : TM_ERR_ARG;
    case TM_MSG_END:
        if (m->reason > TM_END_STOP || m->lost > 1) return TM_ERR_ARG;
        return !m->lost || m->dropped <= 1 ? TM_OK : TM_ERR_ARG;
    case TM_MSG_DATA:
        return c->data && m->size >= 1 && m->size <= TM_DATA_MAX_SIZE ? TM_OK : TM_ERR_ARG;
    }
    return TM_ERR_ARG;
}

static inline int cfg_ok(const tm_enc_cfg *c)
{
    return (unsigned)c->enc < TM_ENCODINGS &&
           c->threads >= 1 && c->threads <= 1024 && chunk_ok(c->cnt_a) && chunk_ok(c->cnt_b) &&
           chunk_ok(c->ta_a) && chunk_ok(c->ta_b) && chunk_ok(c->cc_a) && chunk_ok(c->cc_b) &&
           c->data <= TM_DATA_ALL && (!c->data || (chunk_ok(c->fah_a) && chunk_ok(c->fah_b)));
}

/* A is needed (and only read) for the adaptive encodings. */
static inline int valid(const tm_enc_cfg *c, const tm_adapt *a, const tm_msg *m)
{
    return c && m && cfg_ok(c) && msg_check(c, m) == TM_OK && (a || !tm_enc_adaptive(c));
}

/* ---- adaptive coding (spec §4.9) ---- */

int tm_eg_put(tm_bitbuf *bb, uint64_t v, unsigned k)
{
    tm_wr w;
    int rc;
    if (!bb || k > 63) return TM_ERR_ARG;
    if ((rc = tm_bb_reserve(bb, 130)) != TM_OK) return rc;
    tm_wr_begin(&w, bb);
    tm_wr_eg(&w, v, k);
    tm_wr_end(&w, bb);
    return TM_OK;
}

int tm_eg_get(tm_bitrd *r, unsigned k, uint64_t *v)
{
    uint64_t start;
    int rc;
    if (!r || !v || k > 63) return TM_ERR_ARG;
    start = r->pos;
    rc = tm_rd_eg(r, k, v);
    if (rc != TM_OK) r->pos = start;
    return rc;
}

void tm_adapt_update(const tm_enc_cfg *c, tm_adapt *a, const tm_msg *m)
{
    if (!c || !a || !m || !tm_enc_adaptive(c) || m->kind == TM_MSG_DATA || m->ti >= c->threads) return;
    tm_adapt_fold(&a[m->ti], m->kind, m->cnt, m->t, m->diff_cc, c->timestamps);
}

unsigned tm_msg_bits(const tm_enc_cfg *c, const tm_msg *m)
{
    return tm_msg_bits_a(c, NULL, m);
}

unsigned tm_msg_bits_a(const tm_enc_cfg *c, const tm_adapt *a, const tm_msg *m)
{
    unsigned n;
    if (!valid(c, a, m)) return 0;
    const int ad = tm_enc_adaptive(c);
    const tm_adapt *s = ad ? &a[m->ti] : NULL;
    n = tm_ti_bits(c->threads);
    if (c->data) n += 1; /* Q */
    if (m->kind == TM_MSG_DATA)
        return n + tm_chunked_len(m->fah, c->fah_a, c->fah_b) + 8u * m->size;
    if (m->kind == TM_MSG_BRANCH) {
        if (ad) /* T bit, or for a target misprediction the escape cnt = 0, K = 3 */
            n += tm_eg_bits(m->cnt, tm_adapt_k(s->cnt)) +
                 (!tm_adapt_escape(s) ? 1 : m->t ? tm_adapt_k(s->cnt) + 1 + 2 : 0);
        else
            n += tm_chunked_len(m->cnt, c->cnt_a, c->cnt_b) + 1;
        if (m->t) n += 1 + tm_chunked_len(tm_abs64(m->diff_ta), c->ta_a, c->ta_b);
    } else {
        n += (ad ? tm_adapt_k(s->cnt) : c->cnt_a) + 1 + 2; /* cnt = 0, K */
        switch (m->kind) {
        case TM_MSG_EXC:
            n += tm_chunked_len(m->icnt, c->cnt_a, c->cnt_b);
            n += 1 + tm_chunked_len(tm_abs64(m->diff_ta), c->ta_a, c->ta_b);
            break;
        case TM_MSG_SYNC:
            n += 2; /* R */
            if (m->reason == TM_SYNC_OVERFLOW)
                n += 1 + tm_chunked_len(m->icnt, c->cnt_a, c->cnt_b) +
                     tm_chunked_len(m->gap, c->cnt_a, c->cnt_b);
            n += 64; /* ADDR */
            break;
        default: /* TM_MSG_END */
            n += 2 + tm_chunked_len(m->icnt, c->cnt_a, c->cnt_b); /* X, L, iCnt */
            if (m->lost) n += 1 + tm_chunked_len(m->gap, c->cnt_a, c->cnt_b);
            break;
        }
    }
    if (c->timestamps)
        n += ad ? tm_eg_bits(m->diff_cc, tm_adapt_k(s->cc)) : tm_chunked_len(m->diff_cc, c->cc_a, c->cc_b);
    return n;
}

void tm_msg_lens_init(tm_msg_lens *l, const tm_enc_cfg *c)
{
    l->tiq = tm_ti_bits(c->threads) + (c->data ? 1u : 0u);
    l->timestamps = c->timestamps;
    for (unsigned k = 0; k <= 64; k++) {
        uint64_t v = k ? UINT64_C(1) << (k - 1) : 0; /* any value of k significant bits */
        l->cnt[k] = (uint8_t)tm_chunked_len(v, c->cnt_a, c->cnt_b);
        l->ta[k] = (uint8_t)tm_chunked_len(v, c->ta_a, c->ta_b);
        l->cc[k] = (uint8_t)tm_chunked_len(v, c->cc_a, c->cc_b);
        l->fah[k] = c->data ? (uint8_t)tm_chunked_len(v, c->fah_a, c->fah_b) : 0;
    }
}

int tm_msg_encode_branch(const tm_enc_cfg *c, uint32_t ti, uint64_t cnt, unsigned t, int64_t diff_ta,
                         uint64_t diff_cc, tm_bitbuf *bb, tm_field_bits *fb)
{
    return tm_msg_encode_branch_a(c, NULL, ti, cnt, t, diff_ta, diff_cc, bb, fb);
}

int tm_msg_encode_branch_a(const tm_enc_cfg *c, const tm_adapt *a, uint32_t ti, uint64_t cnt, unsigned t,
                           int64_t diff_ta, uint64_t diff_cc, tm_bitbuf *bb, tm_field_bits *fb)
{
    tm_wr w;
    int rc;
    if (c && tm_enc_adaptive(c) && !a) return TM_ERR_ARG;
    if (!bb || !c || ti >= c->threads || c->threads > 1024 || cnt < 1 || t > 1 || !chunk_ok(c->cnt_a) ||
        !chunk_ok(c->cnt_b) || (t && (!chunk_ok(c->ta_a) || !chunk_ok(c->ta_b))) ||
        (c->timestamps && (!chunk_ok(c->cc_a) || !chunk_ok(c->cc_b))))
        return TM_ERR_ARG;
    if ((rc = tm_bb_reserve(bb, MSG_BOUND_BITS)) != TM_OK)
        return rc;
    unsigned tb = tm_ti_bits(c->threads);
    unsigned q = c->data ? 1 : 0;
    const tm_adapt *s = tm_enc_adaptive(c) ? &a[ti] : NULL;
    unsigned lcnt;
    tm_wr_begin(&w, bb);
    tm_wr_put(&w, ti, tb + q); /* Ti, Q = 0 */
    if (s) {
        unsigned k = tm_adapt_k(s->cnt);
        int esc = tm_adapt_escape(s);
        lcnt = tm_eg_bits(cnt, k);
        if (esc && t) { /* a target misprediction: the escape cnt = 0 with K = 3 (§4.9) */
            tm_wr_eg(&w, 0, k);
            tm_wr_put(&w, 3, 2);
            lcnt += k + 3;
        }
        tm_wr_eg(&w, cnt, k);
        if (!esc) {
            tm_wr_put(&w, t, 1);
            lcnt += 1;
        }
    } else {
        lcnt = tm_chunked_len(cnt, c->cnt_a, c->cnt_b) + 1;
        tm_wr_chunked(&w, cnt, c->cnt_a, c->cnt_b);
        tm_wr_put(&w, t, 1);
    }
    unsigned lta = 0, lcc = 0;
    if (t) {
        lta = 1 + tm_chunked_len(tm_abs64(diff_ta), c->ta_a, c->ta_b);
        tm_wr_signed(&w, diff_ta, c->ta_a, c->ta_b);
    }
    if (c->timestamps && s) {
        unsigned k = tm_adapt_k(s->cc);
        lcc = tm_eg_bits(diff_cc, k);
        tm_wr_eg(&w, diff_cc, k);
    } else if (c->timestamps) {
        lcc = tm_chunked_len(diff_cc, c->cc_a, c->cc_b);
        tm_wr_chunked(&w, diff_cc, c->cc_a, c->cc_b);
    }
    tm_wr_end(&w, bb);
    if (fb) {
        fb->ti += tb;
        fb->q += q;
        fb->cnt += lcnt;
        fb->diffta += lta;
        fb->diffcc += lcc;
    }
    return TM_OK;
}

/* Bits written since *mark; moves the mark to the current end. */
static inline uint64_t take(const tm_wr *w, uint64_t *mark)
{
    uint64_t d = w->nbits - *mark;
    *mark = w->nbits;
    return d;
}

int tm_msg_encode(const tm_enc_cfg *c, const tm_msg *m, tm_bitbuf *bb, tm_field_bits *fb)
{
    return tm_msg_encode_a(c, NULL, m, bb, fb);
}

int tm_msg_encode_a(const tm_enc_cfg *c, const tm_adapt *a, const tm_msg *m, tm_bitbuf *bb, tm_field_bits *fb)
{
    tm_field_bits acc;
    unsigned ca, cb;
    uint64_t mark;
    tm_wr w;
    int rc;
    if (!bb || !valid(c, a, m)) return TM_ERR_ARG;
    const tm_adapt *s = tm_enc_adaptive(c) ? &a[m->ti] : NULL;
    if (m->kind == TM_MSG_DATA) /* msg/data_enc.c */
        return tm_msg_encode_data(c, m->ti, m->fah, m->value, m->size, bb, fb);
    memset(&acc, 0, sizeof acc);
    if ((rc = tm_bb_reserve(bb, MSG_BOUND_BITS)) != TM_OK)
        return rc;
    ca = c->cnt_a;
    cb = c->cnt_b;
    tm_wr_begin(&w, bb);
    mark = w.nbits;

    tm_wr_put(&w, m->ti, tm_ti_bits(c->threads));
    acc.ti = take(&w, &mark);
    if (c->data) {
        tm_wr_put(&w, 0, 1); /* Q = 0: a control message */
        acc.q = take(&w, &mark);
    }
    if (m->kind == TM_MSG_BRANCH) {
        if (s) {
            unsigned k = tm_adapt_k(s->cnt);
            int esc = tm_adapt_escape(s);
            if (esc && m->t) { /* a target misprediction: the escape cnt = 0 with K = 3 (§4.9) */
                tm_wr_eg(&w, 0, k);
                tm_wr_put(&w, 3, 2);
            }
            tm_wr_eg(&w, m->cnt, k);
            if (!esc)
                tm_wr_put(&w, m->t, 1);
        } else {
            tm_wr_chunked(&w, m->cnt, ca, cb);
            tm_wr_put(&w, m->t, 1);
        }
        acc.cnt = take(&w, &mark);
        if (m->t) {
            tm_wr_signed(&w, m->diff_ta, c->ta_a, c->ta_b);
            acc.diffta = take(&w, &mark);
        }
    } else {
        if (s)
            tm_wr_eg(&w, 0, tm_adapt_k(s->cnt)); /* cnt = 0: a one, k zeros */
        else
            tm_wr_put(&w, 0, ca + 1u); /* cnt = 0: one zero chunk, C = 0 */
        acc.cnt = take(&w, &mark);
        switch (m->kind) {
        case TM_MSG_EXC:
            tm_wr_put(&w, 0, 2);
            tm_wr_chunked(&w, m->icnt, ca, cb);
            acc.sync = take(&w, &mark);
            tm_wr_signed(&w, m->diff_ta, c->ta_a, c->ta_b);
            acc.diffta = take(&w, &mark);
            break;
        case TM_MSG_SYNC:
            tm_wr_put(&w, 1 | (uint64_t)m->reason << 2, 4); /* K = 1, R */
            if (m->reason == TM_SYNC_OVERFLOW) {
                tm_wr_put(&w, m->dropped, 1);
                tm_wr_chunked(&w, m->icnt, ca, cb);
                tm_wr_chunked(&w, m->gap, ca, cb);
            }
            tm_wr_put(&w, m->addr, 64);
            acc.sync = take(&w, &mark);
            break;
        default: /* TM_MSG_END */
            tm_wr_put(&w, 2 | (uint64_t)m->reason << 2 | (uint64_t)m->lost << 3, 4); /* K, X, L */
            tm_wr_chunked(&w, m->icnt, ca, cb);
            if (m->lost) {
                tm_wr_put(&w, m->dropped, 1);
                tm_wr_chunked(&w, m->gap, ca, cb);
            }
            acc.sync = take(&w, &mark);
            break;
        }
    }
    if (c->timestamps && m->kind != TM_MSG_DATA) {
        if (s)
            tm_wr_eg(&w, m->diff_cc, tm_adapt_k(s->cc));
        else
            tm_wr_chunked(&w, m->diff_cc, c->cc_a, c->cc_b);
        acc.diffcc = take(&w, &mark);
    }
    tm_wr_end(&w, bb);
    if (fb) {
        fb->ti += acc.ti;
        fb->cnt += acc.cnt;
        fb->diffta += acc.diffta;
        fb->diffcc += acc.diffcc;
        fb->sync += acc.sync;
        fb->q += acc.q;
        fb->fah += acc.fah;
        fb->value += acc.value;
    }
    return TM_OK;
}

#define TRY(expr)                              \
    do {                                       \
        int rc_ = (expr);                      \
        if (rc_ != TM_OK) return rc_;          \
    } while (0)

/* Reads the fields after Ti and cnt = 0. */
static int decode_special(const tm_enc_cfg *c, tm_bitrd *r, tm_msg *m)
{
    unsigned ca = c->cnt_a, cb = c->cnt_b;
    uint64_t k, x;
    TRY(tm_rd_get(r, 2, &k));
    switch (k) {
    case 0:
        m->kind = TM_MSG_EXC;
        TRY(tm_rd_chunked(r, ca, cb, &m->icnt));
        TRY(tm_rd_signed(r, c->ta_a, c->ta_b, &m->diff_ta));
        return TM_OK;
    case 1:
        m->kind = TM_MSG_SYNC;
        TRY(tm_rd_get(r, 2, &x));
        if (x > TM_SYNC_OVERFLOW) return TM_ERR_FORMAT;
        m->reason = (uint8_t)x;
        if (x == TM_SYNC_OVERFLOW) {
            TRY(tm_rd_get(r, 1, &x));
            m->dropped = (uint8_t)x;
            TRY(tm_rd_chunked(r, ca, cb, &m->icnt));
            TRY(tm_rd_chunked(r, ca, cb, &m->gap));
        }
        TRY(tm_rd_get(r, 64, &m->addr));
        return TM_OK;
    case 2:
        m->kind = TM_MSG_END;
        TRY(tm_rd_get(r, 1, &x));
        m->reason = (uint8_t)x;
        TRY(tm_rd_get(r, 1, &x));
        m->lost = (uint8_t)x;
        TRY(tm_rd_chunked(r, ca, cb, &m->icnt));
        if (m->lost) {
            TRY(tm_rd_get(r, 1, &x));
            m->dropped = (uint8_t)x;
            TRY(tm_rd_chunked(r, ca, cb, &m->gap));
        }
        return TM_OK;
    default: /* K = 3 is reserved */
        return TM_ERR_FORMAT;
    }
}

static int decode_body(const tm_enc_cfg *c, const tm_adapt *a, tm_bitrd *r, tm_msg *m, tm_msg_size_fn size,
                       void *arg)
{
    uint64_t x;
    TRY(tm_rd_get(r, tm_ti_bits(c->threads), &x));
    if (x >= c->threads) return TM_ERR_FORMAT;
    m->ti = (uint32_t)x;
    if (c->data) {
        TRY(tm_rd_get(r, 1, &x));
        if (x) {
            int n;
            m->kind = TM_MSG_DATA;
            TRY(tm_rd_chunked(r, c->fah_a, c->fah_b, &m->fah));
            if (!size) return TM_ERR_ARG;
            n = size(arg, m->ti, m->fah);
            if (n < 0) return n;
            if (n < 1 || n > TM_DATA_MAX_SIZE) return TM_ERR_FORMAT;
            m->size = (uint8_t)n;
            for (int k = 0; k < n; k += 8) {
                int nb = n - k < 8 ? n - k : 8;
                TRY(tm_rd_get(r, 8u * (unsigned)nb, &x));
                for (int j = 0; j < nb; j++)
                    m->value[k + j] = (uint8_t)(x >> (8 * j));
            }
            return TM_OK;
        }
    }
    if (tm_enc_adaptive(c)) {
        const tm_adapt *s = &a[m->ti];
        unsigned k = tm_adapt_k(s->cnt);
        int esc = tm_adapt_escape(s);
        TRY(tm_rd_eg(r, k, &m->cnt));
        if (m->cnt != 0) {
            m->kind = TM_MSG_BRANCH; /* escape form: an outcome misprediction */
            if (!esc) {
                TRY(tm_rd_get(r, 1, &x));
                m->t = (uint8_t)x;
                if (m->t) TRY(tm_rd_signed(r, c->ta_a, c->ta_b, &m->diff_ta));
            }
        } else {
            uint64_t pos = r->pos;
            TRY(tm_rd_get(r, 2, &x));
            if (x == 3 && !esc) return TM_ERR_FORMAT; /* K = 3 only in the escape form */
            if (x == 3) { /* K = 3: a target misprediction */
                m->kind = TM_MSG_BRANCH;
                m->t = 1;
                TRY(tm_rd_eg(r, k, &m->cnt));
                if (m->cnt == 0) return TM_ERR_FORMAT;
                TRY(tm_rd_signed(r, c->ta_a, c->ta_b, &m->diff_ta));
            } else {
                r->pos = pos;
                TRY(decode_special(c, r, m));
            }
        }
        if (c->timestamps) TRY(tm_rd_eg(r, tm_adapt_k(s->cc), &m->diff_cc));
        return TM_OK;
    }
    TRY(tm_rd_chunked(r, c->cnt_a, c->cnt_b, &m->cnt));
    if (m->cnt != 0) {
        m->kind = TM_MSG_BRANCH;
        TRY(tm_rd_get(r, 1, &x));
        m->t = (uint8_t)x;
        if (m->t) TRY(tm_rd_signed(r, c->ta_a, c->ta_b, &m->diff_ta));
    } else {
        TRY(decode_special(c, r, m));
    }
    if (c->timestamps) TRY(tm_rd_chunked(r, c->cc_a, c->cc_b, &m->diff_cc));
    return TM_OK;
}

int tm_msg_decode(const tm_enc_cfg *c, tm_bitrd *r, tm_msg *m)
{
    return tm_msg_decode_sized(c, r, m, NULL, NULL);
}

int tm_msg_decode_sized(const tm_enc_cfg *c, tm_bitrd *r, tm_msg *m, tm_msg_size_fn size, void *arg)
{
    return tm_msg_decode_a(c, NULL, r, m, size, arg);
}

int tm_msg_decode_a(const tm_enc_cfg *c, const tm_adapt *a, tm_bitrd *r, tm_msg *m, tm_msg_size_fn size,
                    void *arg)
{
    static const tm_msg zero;
    tm_msg save;
    uint64_t start;
    int rc;
    if (!r || !m || tm_enc_cfg_check(c) != TM_OK || r->pos > r->nbits) return TM_ERR_ARG;
    if (tm_enc_adaptive(c) && !a) return TM_ERR_ARG;
    start = r->pos;
    /* Decoded in place (every field not read 0), *M restored on error:
     * whole-struct copies of a message just written field by field (a
     * memset, then narrower stores, then wide loads) stall the processor. */
    save = *m;
    *m = zero;
    rc = decode_body(c, a, r, m, size, arg);
    if (rc != TM_OK) {
        *m = save;
        r->pos = start;
        return rc;
    }
    return TM_OK;
}

/* ---- maximum lengths (§4.6) ---- */

/* The longest message of KIND: every chunked field at 2^64 - 1, |diffTA| at
 * 2^63, SYNC with R = OVERFLOW and END with L = 1 (their longest forms). */
static unsigned longest(const tm_enc_cfg *c, tm_msg_kind kind)
{
    /* tr_a: the state that makes the message longest: order 0 for cnt (the
     * longest code of 2^64 - 1) in a BRANCH, the largest order for the
     * cnt = 0 escape of the others, order 0 for diffCC. */
    /* (a target misprediction at the longest cnt is 129 - k + k + 3 = 132
     * bits in the escape form, TF = 0, and 130 - k with a T bit) */
    const tm_adapt worst = {kind == TM_MSG_BRANCH ? 0 : UINT16_MAX, 0, 0};
    tm_msg m;
    memset(&m, 0, sizeof m);
    m.kind = kind;
    m.ti = c->threads - 1;
    m.cnt = UINT64_MAX;
    m.t = 1;
    m.diff_ta = INT64_MIN;
    m.icnt = UINT64_MAX;
    m.gap = UINT64_MAX;
    m.addr = UINT64_MAX;
    m.reason = kind == TM_MSG_SYNC ? TM_SYNC_OVERFLOW : TM_END_STOP;
    m.lost = 1;
    m.dropped = 1;
    m.diff_cc = UINT64_MAX;
    m.fah = UINT64_MAX;
    m.size = TM_DATA_MAX_SIZE;
    if (!tm_enc_adaptive(c)) return tm_msg_bits(c, &m);
    m.ti = 0; /* tm_msg_bits_a reads a[m.ti] only; Ti's width is the same */
    return tm_msg_bits_a(c, &worst, &m);
}

unsigned tm_msg_data_max_bits(const tm_enc_cfg *c)
{
    if (tm_enc_cfg_check(c) != TM_OK || !c->data) return 0;
    return longest(c, TM_MSG_DATA);
}

unsigned tm_msg_max_bits(const tm_enc_cfg *c)
{
    unsigned best = 0;
    if (tm_enc_cfg_check(c) != TM_OK) return 0;
    for (int k = TM_MSG_BRANCH; k <= TM_MSG_END; k++) {
        unsigned n = longest(c, (tm_msg_kind)k);
        if (n > best) best = n;
    }
    return best + tm_msg_data_max_bits(c);
}

unsigned tm_msg_reserve_bits(const tm_enc_cfg *c)
{
    unsigned s, e;
    if (tm_enc_cfg_check(c) != TM_OK) return 0;
    s = longest(c, TM_MSG_SYNC);
    e = longest(c, TM_MSG_END);
    return s > e ? s : e;
}

/* ---- text form ---- */

#if defined(__GNUC__) || defined(__clang__)
#define TM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TM_PRINTF(f, a)
#endif

/* Appends to buf[*len..n) like snprintf; *len counts the full length, so
 * the output was truncated iff *len >= n at the end. */
static void add(char *buf, size_t n, size_t *len, const char *fmt, ...) TM_PRINTF(4, 5);

static void add(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int k;
    va_start(ap, fmt);
    k = vsnprintf(*len < n ? buf + *len : NULL, *len < n ? n - *len : 0, fmt, ap);
    va_end(ap);
    if (k > 0) *len += (size_t)k;
}

int tm_msg_format(const tm_msg *m, int timestamps, char *buf, size_t n)
{
    static const char *const sync_names[] = {"start", "trace_on", "overflow"};
    size_t len = 0;
    int ok = 1;
    if (!m || !buf || n == 0) return TM_ERR_ARG;
    buf[0] = '\0';
    add(buf, n, &len, "T%" PRIu32 " ", m->ti);
    switch (m->kind) {
    case TM_MSG_BRANCH:
        add(buf, n, &len, "BRANCH cnt=%" PRIu64 " T=%u", m->cnt, (unsigned)m->t);
        if (m->t) add(buf, n, &len, " diffTA=%" PRId64, m->diff_ta);
        break;
    case TM_MSG_EXC:
        add(buf, n, &len, "EXC iCnt=%" PRIu64 " diffTA=%" PRId64, m->icnt, m->diff_ta);
        break;
    case TM_MSG_SYNC:
        if (m->reason <= TM_SYNC_OVERFLOW) {
            add(buf, n, &len, "SYNC %s", sync_names[m->reason]);
        } else {
            add(buf, n, &len, "SYNC R=%u", (unsigned)m->reason);
            ok = 0;
        }
        if (m->reason == TM_SYNC_OVERFLOW)
            add(buf, n, &len, " D=%u iCnt=%" PRIu64 " gap=%" PRIu64, (unsigned)m->dropped, m->icnt,
                m->gap);
        add(buf, n, &len, " addr=0x%" PRIx64, m->addr);
        break;
    case TM_MSG_END:
        add(buf, n, &len, "END %s L=%u iCnt=%" PRIu64,
            m->reason == TM_END_EXIT ? "exit" : m->reason == TM_END_STOP ? "stop" : "X?",
            (unsigned)m->lost, m->icnt);
        if (m->reason > TM_END_STOP) ok = 0;
        if (m->lost) add(buf, n, &len, " D=%u gap=%" PRIu64, (unsigned)m->dropped, m->gap);
        break;
    case TM_MSG_DATA:
        add(buf, n, &len, "DATA fah=%" PRIu64 " size=%u value=0x", m->fah, (unsigned)m->size);
        if (m->size < 1 || m->size > TM_DATA_MAX_SIZE) {
            ok = 0;
            break;
        }
        for (unsigned k = m->size; k-- > 0;)  /* most significant byte first */
            add(buf, n, &len, "%02x", (unsigned)m->value[k]);
        break;
    default:
        add(buf, n, &len, "kind=%d?", (int)m->kind);
        ok = 0;
        break;
    }
    if (timestamps && m->kind != TM_MSG_DATA) add(buf, n, &len, " diffCC=%" PRIu64, m->diff_cc);
    return ok && len < n ? TM_OK : TM_ERR_ARG;
}
