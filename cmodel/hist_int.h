/* tm — global history and folded history registers of the TAGE-class
 * predictors (docs/spec.md §3.3.1), shared by tage.c and ittage.c; the RTL
 * twin is rtl/tm_hist.sv, one instance in each of tm_tage.sv and
 * tm_ittage.sv (each predictor keeps its own registers, as here). */
#ifndef TM_HIST_INT_H
#define TM_HIST_INT_H

#include <stdint.h>

#define TM_HIST_MAX 128u /* longest history, bits */
#define TM_TAGE_MAX_TABLES 8u

/* The history: bit 0 of h[0] is the newest, bit i of age i; the predictor
 * uses the newest LEN (<= 128) bits, older ones are don't-cares. */
typedef struct tm_ghist {
    uint64_t h[2];
    uint32_t len;
} tm_ghist;

/* A folded history register: the newest LEN bits of the history folded to
 * WIDTH bits (spec §3.3.1), kept up to date one bit at a time. */
typedef struct tm_fold {
    uint32_t v;
    uint32_t mask;           /* 2^width - 1 */
    uint8_t len, width, out; /* out = len % width */
} tm_fold;

static inline void fold_init(tm_fold *f, unsigned len, unsigned width)
{
    f->v = 0;
    f->mask = (1u << width) - 1u;
    f->len = (uint8_t)len;
    f->width = (uint8_t)width;
    f->out = (uint8_t)(len % width);
}

static inline unsigned ghist_bit(const tm_ghist *g, unsigned i)
{
    return (unsigned)(g->h[i >> 6] >> (i & 63)) & 1u;
}

/* Shifts bit B into G and every fold of F[0..N): N is a multiple of 3, each
 * table's three folds of the same length together (hist_reset's layout), so
 * the bit leaving a table's history is read once for the three. */
static inline void ghist_push(tm_ghist *g, unsigned b, tm_fold *f, unsigned n)
{
    for (unsigned k = 0; k < n; k += 3) {
        uint32_t o = ghist_bit(g, f[k].len - 1u);
        for (unsigned j = k; j < k + 3; j++) {
            uint32_t v = ((f[j].v << 1) | b) ^ (o << f[j].out);
            f[j].v = (v ^ (v >> f[j].width)) & f[j].mask;
        }
    }
    /* no masking to LEN: every reader takes only the bits it needs (ages
     * below its length: ghist_bit, fold_of, tage.c's gather) */
    g->h[1] = (g->h[1] << 1) | (g->h[0] >> 63);
    g->h[0] = (g->h[0] << 1) | b;
}

/* The fold of the newest LEN (1..128) bits of G to WIDTH (1..16) bits,
 * computed directly from G: the value that ghist_push keeps up to date one bit
 * at a time.  Proof that they are equal: from reset (history and fold 0) each
 * push maps the fold to rotl_W(fold, 1) ^ b ^ (o << (LEN % W)), where o is
 * the bit of age LEN - 1 that leaves the window (the XOR at LEN % W commutes
 * with the wrap of bit W to bit 0, both being XORs), so by induction the fold
 * is XOR over ages j < LEN of h_j << (j % W): the history cut into W-bit
 * chunks, XORed.  Here the chunks are summed K at a time (K * W <= 64 bits, K
 * * W a multiple of W, so every bit keeps its position mod W), then the K
 * chunks of the sum are halved into one.  Used where the history is read far
 * less often than it is pushed (ITTAGE: one lookup per indirect branch, one
 * push per conditional branch). */
static inline uint32_t fold_of(const tm_ghist *g, unsigned len, unsigned width)
{
    uint64_t lo = g->h[0], hi = g->h[1];
    if (len < 64) {
        lo &= (1ull << len) - 1u;
        hi = 0;
    } else if (len < 128) {
        hi &= len == 64 ? 0 : (1ull << (len - 64)) - 1u;
    }
    unsigned k = 64u / width, need = (len + width - 1u) / width;
    if (k > need)
        k = need;
    unsigned kw = k * width; /* <= 64 */
    uint64_t acc = 0;
    for (unsigned pos = 0; pos < len; pos += kw) {
        if (kw == 64) {
            acc ^= lo;
            lo = hi;
            hi = 0;
        } else {
            acc ^= lo & ((1ull << kw) - 1u);
            lo = (lo >> kw) | (hi << (64u - kw));
            hi >>= kw;
        }
    }
    while (k > 1) { /* ACC: K chunks of WIDTH bits */
        unsigned h = (k + 1u) / 2u, hw = h * width; /* hw < kw <= 64 */
        acc = (acc & ((1ull << hw) - 1u)) ^ (acc >> hw);
        k = h;
    }
    return (uint32_t)acc;
}

/* History length of tagged table I (1..T) of T, from LMIN to LMAX
 * (spec §3.3.1): LMIN + (LMAX - LMIN) * (2^(I-1) - 1) / (2^(T-1) - 1). */
static inline unsigned hist_len(unsigned i, unsigned t, unsigned lmin, unsigned lmax)
{
    if (t <= 1)
        return lmax;
    return lmin + (unsigned)((uint64_t)(lmax - lmin) * ((1u << (i - 1)) - 1u) / ((1u << (t - 1)) - 1u));
}

/* The history of a TAGE-class predictor back to reset: G empty with LMAX
 * bits, and per tagged table i three folds of its L_i bits (FOLD[3(i-1)]:
 * index, EBITS wide; then the two tag folds, W and W - 1 wide). */
static inline void hist_reset(tm_ghist *g, tm_fold *fold, unsigned tables, unsigned ebits, unsigned w,
                              unsigned lmin, unsigned lmax)
{
    g->h[0] = g->h[1] = 0;
    g->len = lmax;
    for (unsigned i = 1; i <= tables; i++) {
        unsigned l = hist_len(i, tables, lmin, lmax);
        fold_init(&fold[3 * (i - 1)], l, ebits);
        fold_init(&fold[3 * (i - 1) + 1], l, w);
        fold_init(&fold[3 * (i - 1) + 2], l, w - 1u);
    }
}

/* Index and tag of a tagged table for PC from its three folds F0 (index),
 * F1, F2 (tag) (spec §3.3.1): the base index is (pc ^ (pc >> b)) & (B - 1),
 * this is the tables' rule. */
static inline void hist_slot_v(uint32_t f0, uint32_t f1, uint32_t f2, uint64_t pc, unsigned ebits, unsigned w,
                               uint32_t *index, uint32_t *tag)
{
    *index = (uint32_t)((pc ^ (pc >> ebits) ^ f0) & ((1u << ebits) - 1u));
    *tag = (uint32_t)(((pc >> 1) ^ f1 ^ ((uint64_t)f2 << 1)) & ((1u << w) - 1u));
}

/* The same with the folds of table I kept in FOLD (hist_reset's layout). */
static inline void hist_slot(const tm_fold *fold, unsigned i, uint64_t pc, unsigned ebits, unsigned w,
                             uint32_t *index, uint32_t *tag)
{
    const tm_fold *f = &fold[3 * (i - 1)];
    hist_slot_v(f[0].v, f[1].v, f[2].v, pc, ebits, w, index, tag);
}

#endif
