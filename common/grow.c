/* tm — the growable-array helper of include/tm/grow.h. */
#include <stdint.h>
#include <stdlib.h>
#include "tm/grow.h"

int tm_grow_slow(void **p, size_t *cap, size_t need, size_t elt)
{
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2 / (elt ? elt : 1))
            return TM_ERR_NOMEM;
        n *= 2;
    }
    void *q = realloc(*p, n * elt);
    if (!q)
        return TM_ERR_NOMEM;
    *p = q;
    *cap = n;
    return TM_OK;
}
