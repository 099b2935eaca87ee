/* tm — a map of known bytes: 64-byte blocks of an address space, each with
 * the bytes it holds and which of them are known, in an open-addressing
 * table whose live entries belong to its generation (emptying the map is
 * generation + 1).  The replay's copy of what a thread loaded or stored
 * (decoder/replay.c, spec §6 step 7) and the capture layer's memory image
 * (capture/capture.c, docs/capture.md §2) are each one. */
#ifndef TM_BYTEMAP_H
#define TM_BYTEMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tm_byteblk {
    uint64_t key;      /* address >> 6 */
    uint32_t gen;      /* the entry is live iff gen == the map's */
    uint64_t known;    /* bit i: byte i is known */
    uint8_t b[64];
} tm_byteblk;

typedef struct tm_bytemap {
    tm_byteblk *v;
    size_t cap, live;  /* live: entries of generation gen */
    uint32_t gen;
} tm_bytemap;

/* An empty map (no allocation until the first block). */
void tm_bytemap_init(tm_bytemap *m);
void tm_bytemap_free(tm_bytemap *m);
/* Forgets every byte (the table is kept). */
void tm_bytemap_clear(tm_bytemap *m);
/* The block of KEY; NULL if it is not in the map (CREATE: out of memory;
 * a new block knows no byte). */
tm_byteblk *tm_bytemap_block(tm_bytemap *m, uint64_t key, int create);
/* The N bytes VAL at ADDR become known: TM_OK or TM_ERR_NOMEM. */
int tm_bytemap_put(tm_bytemap *m, uint64_t addr, const uint8_t *val, unsigned n);
/* The N bytes at ADDR into VAL: -1 if every one is known, else the index
 * of the first unknown one. */
int tm_bytemap_get(tm_bytemap *m, uint64_t addr, uint8_t *val, unsigned n);

#ifdef __cplusplus
}
#endif
#endif
