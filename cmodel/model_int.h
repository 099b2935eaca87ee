/* tm — the model's internal structure (not a public header).
 *
 * The C model is split as the RTL is (docs/architecture.md):
 *   cmodel/core.c    <-> rtl/tm_core.sv    one core's state machine, group
 *                                          processing, bundle formation
 *   cmodel/buffer.c  <-> rtl/tm_buffer.sv  the shared buffer's acceptance
 *                                          rule, occupancy and trace port
 *   cmodel/model.c   <-> rtl/tm_top.sv     the cycle loop, arbitration order,
 *                                          the caches' and predictors' wiring
 *   cmodel/dcache.c  <-> rtl/tm_dcache.sv  the CFiat data cache
 *   cmodel/pred.c    <-> rtl/tm_gshare.sv, tm_ras.sv, tm_ibtb.sv
 *   msg/msg.c    <-> rtl/tm_msg_enc.sv, msg/data_enc.c <-> tm_data_enc.sv
 * cmodel/config.c resolves the configuration (tm_top's parameters). */
#ifndef TM_CMODEL_MODEL_INT_H
#define TM_CMODEL_MODEL_INT_H

#include <stdint.h>
#include "tm/cache.h"
#include "tm/model.h"
#include "pred_int.h"

/* ---------------------------------------------------------------- tm_buffer */

/* The shared trace buffer and the trace port (spec §3.6): only its
 * occupancy is kept; the accepted bits are the trace. */
typedef struct tm_buffer {
    uint64_t occ;          /* bits held */
    uint32_t B, W;         /* BUF_BITS, PORT_BITS */
    uint32_t reserve;      /* RESERVE: room kept for resynchronizations */
    int wshift;            /* log2 W if W is a power of two, else -1 */
    uint64_t peak;         /* peak occupancy */
    uint64_t busy, idle;   /* port cycles with and without a bit */
    tm_bitbuf trace;       /* every accepted bit, in order */
} tm_buffer;

void buffer_init(tm_buffer *b, uint32_t buffer_bits, uint32_t port_bits, uint32_t reserve);
void buffer_free(tm_buffer *b);
/* One cycle's port transfer (spec §3.6 step 1). */
static inline void buffer_port_cycle(tm_buffer *b)
{
    uint64_t d = b->occ < b->W ? b->occ : b->W;
    b->occ -= d;
    if (d)
        b->busy++;
    else
        b->idle++;
}
/* Cycles the port needs to send N bits (a shift where W is a power of two,
 * as the presets' ports are: it is on the path of each idle stretch of a
 * loss, advance_to). */
static inline uint64_t buffer_cycles_for(const tm_buffer *b, uint64_t n)
{
    return b->wshift >= 0 ? (n + b->W - 1) >> b->wshift : (n + b->W - 1) / b->W;
}
/* Cycles the port needs to empty the buffer. */
static inline uint64_t buffer_drain_cycles(const tm_buffer *b)
{
    return buffer_cycles_for(b, b->occ);
}
/* K cycles in which nothing is offered: only the port drains. */
static inline void buffer_port_bulk(tm_buffer *b, uint64_t k)
{
    if (!k)
        return;
    if (!b->occ) {
        b->idle += k;
        return;
    }
    uint64_t need = buffer_drain_cycles(b);
    uint64_t busy = need < k ? need : k;
    b->busy += busy;
    b->idle += k - busy;
    if (need <= k)
        b->occ = 0;
    else
        b->occ -= k * (uint64_t)b->W;
}
/* The acceptance rule of one offer of LEN bits (spec §3.6 step 2): a
 * resynchronization needs room, any other offer also leaves RESERVE free
 * while some thread is LOST (LOST_COUNT).  Accepted bits are counted in the
 * occupancy; the caller appends them to b->trace. */
static inline int buffer_offer(tm_buffer *b, uint64_t len, int resync, uint32_t lost_count)
{
    uint64_t freeb = b->B - b->occ;
    if (len > freeb || (!resync && lost_count != 0 && freeb - len < b->reserve))
        return 0;
    b->occ += len;
    if (b->occ > b->peak)
        b->peak = b->occ;
    return 1;
}

/* ---------------------------------------------------------------- tm_core */

enum { ST_IDLE = 0, ST_RUN, ST_LOST, ST_DONE };
enum { END_NONE = 0, END_EXIT, END_STOP };

/* What the model keeps of a MEM record (the value only of a load). */
typedef struct memop {
    uint32_t flags;
    uint8_t size;
    uint64_t addr;
    uint8_t value[TMC_MAX_OPERAND];
} memop;

/* One core: the thread pinned to it. */
typedef struct core {
    uint8_t state;
    uint8_t dropped;   /* D bit of the pending resync */
    uint8_t pend_end;  /* END_* while LOST */
    uint64_t icnt, bcnt, gap, tail;
    uint64_t pta, pcc, npc;
    uint64_t lost_cycle;
    /* Cached length of the resynchronization message without diffCC and
     * with a gap of 0, valid for (rs_tail, rs_end): a waiting thread offers
     * every cycle, its gap growing (core.c, rs_len). */
    uint64_t rs_tail;
    unsigned rs_base;
    uint8_t rs_end, rs_valid;
    tm_pred *pred;     /* private organization */
    tm_cache *cache;   /* cfiat, private organization */
    uint64_t fah;      /* loads since the load of the last accepted DATA */
    uint8_t clear_flags; /* SYNC(OVERFLOW) accepted this cycle (spec §3.8) */
    uint8_t empty_tail;  /* LOST: the gap's last group has a memory operand and no
                            instruction; no resynchronization then (spec §3.5) */
    tm_thread_stats st;
} core;

/* The group a core retires in a cycle (spec §3.4): N plain instructions
 * (NPC after them if HAS_NPC), a memory operand if MEM, then an event. */
typedef struct group {
    uint64_t n;
    uint64_t npc;
    int has_npc;
    int mem;
    memop mrec;
} group;

/* CFiat counts of one operand size class ([0] loads, [1] stores; misses
 * and first-access misses follow from them). */
typedef struct cls_count {
    uint64_t refs[2], hits[2], fa_hits;
} cls_count;

/* ---------------------------------------------------------------- tm_top */

struct tm_model {
    tm_model_cfg cfg;
    int isa;               /* the program's instruction set (tm/isa.h): recorded, not used */
    const tm_enc_cfg *enc;
    tm_enc_cfg enc_nots;   /* the same encoding without time stamps */
    tm_msg_lens lens;      /* the encoder's message lengths of this configuration */
    uint32_t n;
    core *th;
    tm_adapt *adapt;         /* tr_a: each core's adaptive coding state (spec §4.9) */
    int adaptive;
    tm_pred *shared_pred;
    tm_cache *shared_cache;  /* cfiat_shared */
    tm_cache **pcache;       /* cfiat, private: each core's cache */
    tm_snoop *snoop;         /* their snoop filter, or NULL */
    cls_count cls[TM_SZ_CLASSES]; /* cfiat counts per operand size class */
    int data;                /* tm_data_mode */
    int any_clear;           /* some core's clear_flags is set */
    tm_buffer buf;
    uint64_t trace_dropped; /* bytes of buf.trace dropped (tm_model_trace_drop) */
    uint32_t msgmax;
    uint32_t resync_min;   /* no SYNC(OVERFLOW)/END(lost) is shorter */
    uint64_t ts_mask;      /* diffCC is taken modulo 2^ts_bits */

    /* cycle bookkeeping */
    uint64_t next_cycle;   /* first cycle not yet begun */
    uint64_t cur;          /* cycle in progress (valid if in_cycle) */
    int in_cycle;
    uint32_t next_core;    /* arbitration slot reached in cycle `cur` */
    int shared_drop;       /* a shared-organization drop happened in `cur` */
    int cycle_drop;        /* some message dropped in `cur` */
    uint32_t lost_count;   /* cores in ST_LOST */
    /* No LOST core's resynchronization is shorter than RS_FLOOR bits before
     * cycle RS_UNTIL (where a diffCC wraps), if RS_FLOOR_OK: taken in one
     * cycle, it holds after it (while LOST a core's gap and diffCC only
     * grow, and a field's length with them) until a core becomes LOST,
     * resynchronizes or gets its pending END (rs_floor_drop).  Then most
     * cycles of a loss, the buffer short of room, cost one comparison
     * (lost_resyncs, core_resync). */
    uint64_t rs_floor, rs_until;
    int rs_floor_ok;
    uint32_t live_count;   /* cores in ST_RUN or ST_LOST */
    uint64_t last_cycle;
    int any_record, finished;

    /* group being assembled */
    int grp;
    uint32_t g_tid;
    group g;

    tm_model_stats stats;
    tm_model_msg_hook hook;
    void *hook_arg;
    char err[256];
};

/* core.c */
/* Core T's group G and its event EV in T's slot; G is emptied (also on an
 * error) so that it is the top's last step for the group. */
int core_group(tm_model *m, uint32_t t, group *g, const tmc_record *ev);
void core_resync(tm_model *m, uint32_t t);
/* The shortest resynchronization LOST core T can offer in a cycle in which
 * its thread retires nothing (UINT64_MAX: it offers none then). */
uint64_t core_resync_floor(tm_model *m, uint32_t t);
/* The length of LOST core T's resynchronization if offered in cycle C
 * (whether or not it may offer it then: right after a group of operands
 * alone it may not); *UNTIL: the first cycle after C in which its diffCC
 * has wrapped (UINT64_MAX: never). */
uint64_t core_resync_len_at(tm_model *m, uint32_t t, uint64_t c, uint64_t *until);
/* Forgets the floor (struct tm_model, rs_floor). */
static inline void rs_floor_drop(tm_model *m) { m->rs_floor_ok = 0; }
/* 0 if no LOST core can resynchronize in the rest of the current cycle:
 * the buffer lacks room for the shortest resynchronization there is, or
 * for the floor while it holds, or the shared predictor dropped (the first
 * tests of lost_resyncs and core_resync, inline so that most cycles of a
 * loss cost no call). */
static inline int rs_may_fit(const tm_model *m)
{
    uint64_t freeb = m->buf.B - m->buf.occ;
    return !(freeb < m->resync_min || m->shared_drop || (m->rs_floor_ok && m->cur < m->rs_until && freeb < m->rs_floor));
}
void core_flush(tm_model *m, uint32_t t);

#endif
