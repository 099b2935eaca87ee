/* tm — the bit-accurate, cycle-accurate model of the trace module
 * (docs/spec.md §3): per-thread mcfTRaptor (or the Nexus-like baseline),
 * message formation, the shared trace buffer with its arbitration and
 * overflow policy, and the trace port.
 *
 * Feed the records of a commit stream in order with tm_model_put, then call
 * tm_model_finish; the port bits are then in tm_model_trace. */
#ifndef TM_MODEL_H
#define TM_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/status.h"
#include "tm/tmc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CFiat data cache geometry (spec §3.8). */
typedef struct tm_cache_cfg {
    uint32_t size;   /* bytes, 2^k, 16 .. 64 MB */
    uint32_t assoc;  /* 2^k, 1 .. min(64, size / line) */
    uint32_t line;   /* bytes, 2^k, 4 .. 4096 */
    uint32_t gran;   /* bytes per FA flag, 2^k, 1 .. line, line / gran <= 64 */
} tm_cache_cfg;

/* Cache presets "tool" (32 KB, 4-way, 32-byte lines, g 4) and "study"
 * (64 KB, 4-way, 64-byte lines, g 4).  TM_ERR_ARG for an unknown name. */
int tm_cache_preset(tm_cache_cfg *c, const char *name);

typedef struct tm_model_cfg {
    tm_enc_cfg enc;      /* encoding, threads, timestamps, chunk sizes,
                            data tracing mode (enc.data) and fah chunks */
    tm_pred_cfg pred;    /* predictor sizes (ignored by nx_b) */
    int shared;          /* one predictor set for all threads */
    uint32_t buffer_bits;/* 0 = default (spec §3.1) */
    uint32_t port_bits;  /* 0 = default 4 */
    uint32_t ts_bits;    /* time-stamp counter width, 8..64; 0 = default 64 */
    tm_cache_cfg cache;  /* enc.data == cfiat: the data cache (all 0 = "tool") */
    int cfiat_shared;    /* one data cache for all threads, flags with owners */
    int no_invalidate;   /* TEST ONLY: private caches skip the invalidation of
                            other cores' flags, which breaks replay (spec §7) */
} tm_model_cfg;

/* Presets "small", "medium", "large" (spec §3.1): sets cfg->pred.
 * Returns TM_ERR_ARG for an unknown name. */
int tm_model_preset(tm_model_cfg *cfg, const char *name);
/* The name of preset I (0, 1, ...: small, medium, large, tage-s, tage-m,
 * tage-l), NULL past the last one. */
const char *tm_model_preset_name(unsigned i);
/* Fills a complete default configuration: large preset, tr_e, no time
 * stamps, private, default buffer and port. */
void tm_model_cfg_default(tm_model_cfg *cfg, uint32_t threads);
/* Resolves defaults (buffer, port) and checks every range; ERR receives one
 * line naming the option and what is allowed. */
int tm_model_cfg_resolve(tm_model_cfg *cfg, char *err, size_t errlen);

/* Only uint64_t counters, arrays of them and tm_field_bits (also uint64_t):
 * the model sums them as an array of uint64_t (cmodel/model.c add_stats). */
typedef struct tm_thread_stats {
    uint64_t instructions;
    uint64_t branches[TMC_NCLASSES];
    uint64_t taken_cond;
    uint64_t exceptions;
    uint64_t cond_predicted, cond_mispredicted;     /* tr_*: cond looked up */
    uint64_t target_predicted, target_mispredicted; /* tr_*: ijump/icall/ret */
    uint64_t messages[TM_MSG_KINDS]; /* accepted, by tm_msg_kind */
    uint64_t sync_reasons[3];     /* accepted SYNC by reason */
    tm_field_bits bits;           /* accepted bits by field class */
    uint64_t bits_total;
    uint64_t dropped_messages, dropped_bits;
    uint64_t losses;              /* times the thread became LOST */
    uint64_t lost_instructions;   /* instructions in gaps */
    /* data tracing (spec §3.8) */
    uint64_t loads, stores;       /* memory operands, traced and in gaps */
    uint64_t lost_loads, lost_stores; /* of them, in gaps (retired while LOST,
                                     or in the group of a dropped bundle) */
    uint64_t reports;             /* traced loads that needed a DATA message */
    uint64_t data_bits;           /* bits of accepted DATA messages */
    uint64_t dropped_data;        /* DATA messages in dropped bundles */
} tm_thread_stats;

/* Operand size classes of the data statistics (spec §8). */
enum { TM_SZ_BYTE, TM_SZ_WORD, TM_SZ_DWORD, TM_SZ_QWORD, TM_SZ_10, TM_SZ_OWORD, TM_SZ_HWORD,
       TM_SZ_64, TM_SZ_OTHER, TM_SZ_CLASSES };
unsigned tm_size_class(unsigned size);
const char *tm_size_class_name(unsigned cls); /* "byte" .. "other" */
/* The sum of a count per size class (V has TM_SZ_CLASSES entries). */
uint64_t tm_size_class_sum(const uint64_t *v);

/* CFiat cache statistics, summed over the caches (spec §8).  A reference is
 * one operand; it hits when every line it covers hits.  FA hit: a load that
 * hit and whose touched flags were all valid for the thread. */
typedef struct tm_cache_stats {
    uint64_t load_refs[TM_SZ_CLASSES], load_hits[TM_SZ_CLASSES], load_misses[TM_SZ_CLASSES];
    uint64_t store_refs[TM_SZ_CLASSES], store_hits[TM_SZ_CLASSES], store_misses[TM_SZ_CLASSES];
    uint64_t fa_hits[TM_SZ_CLASSES], fa_misses[TM_SZ_CLASSES];
    uint64_t multi_line;          /* operands covering more than one line */
    uint64_t invalidations;       /* lines of other caches a store reached */
    uint64_t flag_clears;         /* caches whose flags a resynchronization cleared */
} tm_cache_stats;

typedef struct tm_model_stats {
    uint32_t threads;
    tm_thread_stats total;
    uint64_t exec_cycles;    /* last record cycle + 1 */
    uint64_t cycles;         /* until the port sent the last bit */
    uint64_t bits;           /* trace bits (accepted) */
    uint64_t peak_occupancy; /* bits */
    uint64_t overflow_cycles;/* cycles with at least one dropped message */
    uint64_t idle_cycles;    /* port cycles with no bit */
    uint64_t busy_cycles;    /* port cycles with >= 1 bit */
    uint32_t buffer_bits, port_bits, msg_max_bits, reserve_bits;
    tm_cache_stats cache;    /* cfiat only */
} tm_model_stats;

/* Observer of the messages (for co-simulation and tests): called for every
 * accepted message and every dropped one, with CYCLE, CORE, the message, its
 * length and whether it was accepted.  With data tracing a bundle (spec
 * §3.8) is reported as its DATA message then its control message, with the
 * same ACCEPTED.  A lost thread's resynchronization
 * offer that does not fit yet is not reported (it is offered again). */
typedef void (*tm_model_msg_hook)(void *arg, uint64_t cycle, uint32_t core,
                                  const tm_msg *m, unsigned bits, int accepted);

typedef struct tm_model tm_model;

/* CFG must have been resolved (tm_model_cfg_resolve; it is checked again).
 * TM_OK, or TM_ERR_ARG with tm_model_cfg_resolve's message in ERR (why the
 * configuration is invalid), or TM_ERR_NOMEM ("out of memory"); *OUT is
 * NULL on failure. */
int tm_model_new(const tm_model_cfg *cfg, tm_model **out, char *err, size_t errlen);
void tm_model_free(tm_model *m);
void tm_model_set_hook(tm_model *m, tm_model_msg_hook hook, void *arg);
/* The instruction set of the program whose commit stream the model runs
 * (TM_ISA_*, tm/isa.h; x86-64 unless set): the trace module does not
 * depend on it, its trace file records it (tmt_trailer_of, docs/spec.md §5)
 * and its statistics name it.  TM_ERR_ARG for an unknown ISA. */
int tm_model_set_isa(tm_model *m, int isa);
int tm_model_isa(const tm_model *m);
/* Feeds one record; records must come in commit-stream order (the tmc
 * reader guarantees it).  MODULE and END records are ignored. */
int tm_model_put(tm_model *m, const tmc_record *r);
/* The records of group G (tm/tmc.h) at once: the same checks, the same
 * result as putting them one by one. */
int tm_model_put_group(tm_model *m, const tmc_group *g);
/* The compact records (tm/tmcrec.h) V[0..N-1] as tm_model_put of each in
 * turn, the same checks, the same result, and cheaper per record (no
 * tmc_record for a RUN or MEM of the group being assembled).  VALS holds
 * the MEM records' values in order, each its size long.  It stops before
 * the first record whose type is not START..MEM (for tm_model_put) or at
 * the first error: *DONE is the number of records put, *VDONE that of the
 * value bytes they took; the error is that of record *DONE. */
struct tmc_crec;
int tm_model_put_crecs(tm_model *m, const struct tmc_crec *v, size_t n, const uint8_t *vals, size_t *done,
                       size_t *vdone);
/* End of stream: flush (spec §3.7) and drain the port. */
int tm_model_finish(tm_model *m);
/* The port bits, in order (valid after finish; grows during the run). */
const tm_bitbuf *tm_model_trace(const tm_model *m);
/* For a caller that consumes the trace as the model makes it (tm_verify
 * compares it with a file's): drops the first NBYTES bytes of
 * tm_model_trace's buffer (at most its whole bytes), so that the trace is
 * never held whole.  tm_model_trace then starts at the trace's bit
 * 8 * tm_model_trace_dropped (the bytes dropped so far); the statistics
 * still count every bit. */
void tm_model_trace_drop(tm_model *m, uint64_t nbytes);
uint64_t tm_model_trace_dropped(const tm_model *m);
/* The statistics as of this call (the pointer stays valid; the per-class
 * cache counts in it are brought up to date by each call). */
const tm_model_stats *tm_model_get_stats(const tm_model *m);
/* Per-thread statistics (T < threads). */
const tm_thread_stats *tm_model_thread_stats(const tm_model *m, uint32_t t);
/* Predictor event counters summed over every predictor set. */
void tm_model_pred_counts(const tm_model *m, tm_pred_counts *c);
/* Last error text (e.g. a record that breaks the model's preconditions). */
const char *tm_model_error(const tm_model *m);

#ifdef __cplusplus
}
#endif
#endif
