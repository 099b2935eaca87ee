/* tm — the one growable-array helper of the library: an array (pointer +
 * capacity in elements) whose capacity at least doubles when it must grow,
 * so that appends cost O(1) amortized. */
#ifndef TM_GROW_H
#define TM_GROW_H

#include <stddef.h>
#include "tm/status.h"

/* Makes room for NEED elements of ELT bytes in *P (capacity *CAP): TM_OK,
 * or TM_ERR_NOMEM with *P and *CAP unchanged (the array still valid).  A new
 * array starts at 64 elements. */
int tm_grow_slow(void **p, size_t *cap, size_t need, size_t elt);
static inline int tm_grow(void **p, size_t *cap, size_t need, size_t elt)
{
    return need <= *cap ? TM_OK : tm_grow_slow(p, cap, need, elt);
}
/* tm_grow of the array ARR (any element type) with its capacity CAP. */
#define TM_GROW(arr, cap, need) tm_grow((void **)&(arr), &(cap), (need), sizeof *(arr))

/* A full ring buffer *P of *CAP elements of ELT bytes whose LEN elements
 * start at *HEAD: doubles it (64 when empty), the elements in order from
 * index 0 (*HEAD = 0).  TM_OK or TM_ERR_NOMEM (unchanged). */
int tm_ring_grow(void **p, size_t *cap, size_t *head, size_t len, size_t elt);
#define TM_RING_GROW(arr, cap, head, len) tm_ring_grow((void **)&(arr), &(cap), &(head), (len), sizeof *(arr))

#endif
