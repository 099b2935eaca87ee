/* tm — small bit helpers shared by every component (one copy of each). */
#ifndef TM_BITS_H
#define TM_BITS_H

#include <stdint.h>

/* All-ones in the low W bits (W <= 64). */
static inline uint64_t tm_mask64(unsigned w)
{
    return w >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

/* Number of significant bits of V: 0 for 0, else index of the top 1 plus 1. */
static inline unsigned tm_nbits64(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return v ? 64u - (unsigned)__builtin_clzll(v) : 0u;
#else
    unsigned n = 0;
    while (v) { n++; v >>= 1; }
    return n;
#endif
}

/* |d| as an unsigned magnitude (2^63 for INT64_MIN), without signed overflow. */
static inline uint64_t tm_abs64(int64_t d)
{
    return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
}

static inline int tm_is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* ceil(log2 v) for v >= 1 (exact for powers of two). */
static inline unsigned tm_log2u(uint32_t v)
{
    unsigned k = 0;
    while ((1u << k) < v)
        k++;
    return k;
}

#endif
