/* tm — the CFiat data cache with first-access flags (docs/spec.md §3.8).
 *
 * Public (the model, the testbench's shadow caches, tests and the bench use
 * it); cmodel/dcache.c, mirroring rtl/tm_dcache.sv.  One tm_cache is one
 * cache: private (one per core) or shared by all threads.  It holds tags, valid bits, true-LRU order and per-line FA flags (with the
 * thread that set each flag when shared), no data. */
#ifndef TM_CACHE_H
#define TM_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "tm/model.h"
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tm_cache_cfg, tm_size_class and the TM_SZ_* classes are in tm/model.h. */

/* Result of one operand. */
typedef struct tm_cache_res {
    uint8_t lines;     /* lines the operand covers (1 .. 5) */
    uint8_t all_hit;   /* every line hit */
    uint8_t flags_hit; /* load: every touched flag valid for the thread (in lines that hit) */
    uint8_t report;    /* load: needs a report (some line missed or some flag did not hit) */
} tm_cache_res;

typedef struct tm_cache tm_cache;

/* Checks CFG; ERR gets one line naming the parameter and the allowed range. */
int tm_cache_cfg_check(const tm_cache_cfg *cfg, char *err, size_t errlen);
/* SHARED: flags record the thread that set them (spec §3.8). */
int tm_cache_new(const tm_cache_cfg *cfg, int shared, tm_cache **out);
void tm_cache_free(tm_cache *c);
/* Load of SIZE (1..64) bytes at ADDR by thread TID. */
tm_cache_res tm_cache_load(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size);
/* Store (write-allocate). */
tm_cache_res tm_cache_store(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size);
/* tm_cache_store if STORE, else tm_cache_load. */
tm_cache_res tm_cache_access(tm_cache *c, uint32_t tid, uint64_t addr, unsigned size, int store);
/* Another core stored SIZE bytes at ADDR: clears every flag of each line it
 * covers that this cache holds.  Returns the number of lines invalidated. */
unsigned tm_cache_invalidate(tm_cache *c, uint64_t addr, unsigned size);
/* tm_cache_invalidate of each of the N caches CS but CS[SELF] (private
 * caches of one configuration: a store of core SELF); the sum. */
unsigned tm_cache_invalidate_others(tm_cache *const *cs, uint32_t n, uint32_t self, uint64_t addr,
                                    unsigned size);
/* A snoop filter for the private caches of one configuration: for each set
 * and each of 64 hashes of a tag, how many of the caches' lines have it.  A
 * store's probe of the other caches is skipped when no other cache can hold
 * the line (the results are those of the probes).  NULL from tm_snoop_new
 * when the geometry makes it too big (more than 64K sets) or N * ways does
 * not fit its counters: the probes are then made. */
typedef struct tm_snoop tm_snoop;
tm_snoop *tm_snoop_new(const tm_cache_cfg *cfg, uint32_t n);
void tm_snoop_free(tm_snoop *s);
/* C's fills and evictions count in S (before C's first access). */
void tm_cache_set_snoop(tm_cache *c, tm_snoop *s);

/* Clears every FA flag (a resynchronization, spec §3.8). */
void tm_cache_clear_flags(tm_cache *c);

/* Introspection for tests and co-simulation: way of ADDR's line or -1; the
 * flags of that line (bit k = granule k). */
int tm_cache_way_of(const tm_cache *c, uint64_t addr);
uint64_t tm_cache_flags_of(const tm_cache *c, uint64_t addr);
/* The way the last miss of the last operand filled, per line (in address
 * order), and how many lines that operand covered; for tests. */
unsigned tm_cache_last_ways(const tm_cache *c, int ways[5], int hits[5]);

#ifdef __cplusplus
}
#endif
#endif
