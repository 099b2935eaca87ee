/* tm — small bit helpers shared by the model's components (internal). */
#ifndef TM_BITS_INT_H
#define TM_BITS_INT_H

#include <stdint.h>

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
