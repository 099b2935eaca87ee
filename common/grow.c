/* tm — the growable-array helper of include/tm/grow.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
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

int tm_ring_grow(void **p, size_t *cap, size_t *head, size_t len, size_t elt)
{
    size_t n = *cap ? *cap : 32;
    if (n > SIZE_MAX / 2 / (elt ? elt : 1))
        return TM_ERR_NOMEM;
    n *= 2;
    unsigned char *q = malloc(n * elt);
    if (!q)
        return TM_ERR_NOMEM;
    const unsigned char *old = *p;
    size_t first = len < *cap - *head ? len : *cap - *head; /* elements before the wrap */
    if (len) {
        memcpy(q, old + *head * elt, first * elt);
        memcpy(q + first * elt, old, (len - first) * elt);
    }
    free(*p);
    *p = q;
    *cap = n;
    *head = 0;
    return TM_OK;
}
