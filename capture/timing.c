/* tm — the timing model of recorded programs (tm/timing.h, docs/capture.md §3). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "tm/grow.h"
#include "tm/timing.h"

#define MILLI 1000u
#define ORD_BITS 20u /* the line order table: 2^20 entries, hashed */
#define MAX_GROUP 16u /* records of one group */
/* A record's words in a general entry, at most: a MEM of size 255 */
#define GEN_MAX_WORDS (3u + 32u)

/* A thread's queue: a list of chunks from a pool shared by the threads
 * (memory follows the groups held, not each thread's peak).  An entry, in
 * 64-bit words: the stamped cycle, a header word, then
 *   compact (header bit 63 clear; the group is RUN? MEM? event?): RUN pc,
 *     count | bytes << 32; MEM addr, pc, value words; event pc, target;
 *   general (bit 63 set, record count in the low bits): per record a header
 *     word (type, size, flags, bclass, taken, len) and its fields: RUN pc,
 *     count, bytes; MEM addr, pc, value words; START, EXIT, BRANCH, EXC pc,
 *     target, count;
 * or, for the usual group of a RUN and a branch (or a RUN alone), a short
 * entry: a word of bit 63 set, bit 62 the branch, the cycle's distance from
 * the previous entry's (30 bits), the RUN's count and bytes (16 bits each);
 * the RUN's pc; with the branch, its target (48 bits), class, taken and
 * length (the branch's pc is the RUN's end, its flags 0). */
#define CHUNK_WORDS 8190u
#define GENERAL ((uint64_t)1 << 63)
#define SHORT ((uint64_t)1 << 63)
#define SHORT_BR ((uint64_t)1 << 62)
/* (cycle, thread) as one word, ordered as the pair (threads < 1024) */
#define KEY(c, tid) ((uint64_t)(c) << 10 | (tid))
#define NOKEY UINT64_MAX
#define MAX_CYCLE ((uint64_t)1 << 53)
#define OWN_BITS 11
#define OWNED(key, tid) ((uint64_t)(key) << 10 | (tid))
enum { P_RUN = 1, P_MEM = 2, P_EV = 4 };

typedef struct chunk {
    struct chunk *next;
    uint32_t used;
    uint64_t w[CHUNK_WORDS];
} chunk;

typedef struct tqueue {
    chunk *head, *tail;
    uint32_t rd;         /* next word to read in head */
    uint64_t hc;         /* the head entry's cycle (groups > 0) */
    uint64_t tc;         /* the tail entry's cycle */
    uint64_t groups;     /* entries held */
} tqueue;

typedef struct tthread {
    uint64_t acc;       /* clock, 1/1000 cycles */
    uint64_t next;      /* the earliest cycle of its next group */
    uint64_t insns;
    int live;           /* started, not ended */
    int done;
    int in_sys;         /* in a system call */
    uint64_t sys_seq;   /* t->closed when it entered it */
    uint64_t dlat;      /* tm_timing_access latency for its next group, 1/1000 cycles */
    uint64_t iline;     /* the instruction cache line it fetched last + 1 (0: none) */
    tqueue q;
} tthread;

/* The group being collected: RUN? MEM? event?, or general records. */
typedef struct pend {
    unsigned has;                       /* P_RUN | P_MEM | P_EV */
    uint64_t pc, count, bytes;          /* RUN */
    uint32_t mflags;                    /* MEM */
    uint8_t msize;
    uint64_t maddr, mpc;
    uint64_t mval[TMC_MAX_OPERAND / 8];
    tmc_type etype;                     /* event */
    uint32_t eflags;
    uint8_t ebclass, etaken, elen, esize;
    uint64_t epc, etarget, ecount;
} pend;

/* A line's order (hashed lines): its last store's and last access's cycle
 * + 1 (0: none). */
typedef struct ordent {
    uint64_t store, access;
} ordent;

struct tm_timing {
    tm_timing_cfg cfg;
    tm_timing_sink sink;
    uint32_t nthreads;
    uint32_t ntop;        /* threads seen: ids < ntop */
    tthread *th;
    uint64_t *hkey;       /* per thread: KEY of its queue's head, or NOKEY */
    uint64_t *lkey;       /* per thread without a queue that may still retire: KEY of its next group */
    uint64_t bar;         /* the least key of the threads other than bar_tid ... */
    uint64_t bar_h;       /* ... and the least of their queues' heads ... */
    uint32_t bar_tid;
    int bar_ok;           /* ... while no other thread's keys changed */
    int need;             /* the last group closed may let a queue's head go */
    /* the group being collected (serial order) */
    int open;
    uint32_t otid;
    uint64_t ocycle;
    pend p;               /* its records: RUN? MEM? event? */
    int gen;              /* ... or general: */
    unsigned nrec;        /* its records, in order, ... */
    size_t gn;            /* ... as the general entry's words (after its count word): */
    uint64_t gw[MAX_GROUP * GEN_MAX_WORDS];
    chunk *pool;          /* free chunks */
    /* emission */
    uint64_t last_cycle;  /* of the last group handed on */
    uint32_t last_tid;
    int emitted;
    uint64_t held;
    uint64_t closed;      /* groups closed so far */
    uint32_t last_closer; /* the thread of the last one */
    /* caches */
    uint32_t line_shift, l1_sets, l2_sets, il1_sets;
    uint64_t *l1_tag; uint64_t *l1_age; /* [thread][set][way]; tag: line + 1, 0 empty */
    uint64_t *il1_tag; uint64_t *il1_age; /* the instruction caches, likewise */
    uint64_t *l2_tag; uint64_t *l2_age;
    uint32_t l1_top;      /* threads whose L1 may hold lines: ids < l1_top */
    uint64_t tick;
    /* the last data access of all cores (mem_cost's fast path): its line + 1
     * (0: none), its thread, and whether no other core's L1 holds the line */
    uint64_t dlast_key;
    uint32_t dlast_tid;
    int dlast_excl;
    /* hashed lines (by their low bits): OWNED(line + 1, tid) when no L1
     * but TID's may hold the line (after TID's store), else anything else
     * (a store of TID whose line is so skips the other L1s) */
    uint64_t own[1u << OWN_BITS];
    /* line order: last store cycle, last access cycle (hashed lines) */
    ordent *ord;
    tm_timing_stats st;
    int failed;
    tmc_record out[MAX_GROUP]; /* a general group being handed on (records) */
    tmc_record gev;              /* its event (groups): only the fields a general entry keeps are set */
    tmc_record rrun, rmem, rev;  /* a compact one's records */
    unsigned rmem_nw;            /* value words rmem had */
};

void tm_timing_defaults(tm_timing_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cpi_milli = MILLI;
    cfg->line = 64;
    cfg->l1i = (tm_timing_cache){8u << 10, 2, 0};
    cfg->l1 = (tm_timing_cache){8u << 10, 2, 2};
    cfg->l2 = (tm_timing_cache){0, 8, 4};
    cfg->mem_lat = 200;
    cfg->window = (uint64_t)4 << 20;
}

/* The caller's error buffer (docs/architecture.md), formatted. */
#define ERRF(err, n, ...)                      \
    do {                                       \
        if ((err) && (n))                      \
            snprintf((err), (n), __VA_ARGS__); \
    } while (0)

static int check_cache(const char *name, const tm_timing_cache *c, uint32_t line, int size0, char *err, size_t n)
{
    if (size0 && c->size == 0) {
        if (!c->ways || c->ways > 64 || !tm_is_pow2(c->ways)) {
            ERRF(err, n, "%s: ways %u: allowed a power of two 1..64", name, c->ways);
            return TM_ERR_ARG;
        }
        if (c->lat > 100000) {
            ERRF(err, n, "%s: latency %u: allowed 0..100000", name, c->lat);
            return TM_ERR_ARG;
        }
        return TM_OK;
    }
    if (!tm_is_pow2(c->size) || c->size > (1u << 30)) {
        ERRF(err, n, "%s: size %u bytes: allowed a power of two up to 1G", name, c->size);
        return TM_ERR_ARG;
    }
    if (!tm_is_pow2(c->ways) || c->ways > 64 || (uint64_t)c->ways * line > c->size) {
        ERRF(err, n, "%s: %u ways of %u-byte lines in %u bytes: allowed a power of two 1..64 ways that fit",
                   name, c->ways, line, c->size);
        return TM_ERR_ARG;
    }
    if (c->lat > 100000) {
        ERRF(err, n, "%s: latency %u: allowed 0..100000", name, c->lat);
        return TM_ERR_ARG;
    }
    return TM_OK;
}

int tm_timing_check(const tm_timing_cfg *cfg, char *err, size_t errlen)
{
    if (cfg->cpi_milli < 1 || cfg->cpi_milli > 1000000) {
        ERRF(err, errlen, "cpi %u.%03u: allowed 0.001..1000", cfg->cpi_milli / MILLI, cfg->cpi_milli % MILLI);
        return TM_ERR_ARG;
    }
    if (!tm_is_pow2(cfg->line) || cfg->line < 8 || cfg->line > 4096) {
        ERRF(err, errlen, "line %u bytes: allowed a power of two 8..4096", cfg->line);
        return TM_ERR_ARG;
    }
    if (cfg->mem_lat > 100000) {
        ERRF(err, errlen, "memory latency %u: allowed 0..100000", cfg->mem_lat);
        return TM_ERR_ARG;
    }
    if (cfg->window < 1 || cfg->window > ((uint64_t)1 << 32)) {
        ERRF(err, errlen, "window %llu groups: allowed 1..2^32", (unsigned long long)cfg->window);
        return TM_ERR_ARG;
    }
    int rc = check_cache("l1", &cfg->l1, cfg->line, 0, err, errlen);
    if (rc == TM_OK && cfg->l1i.size)
        rc = check_cache("l1i", &cfg->l1i, cfg->line, 0, err, errlen);
    return rc ? rc : check_cache("l2", &cfg->l2, cfg->line, 1, err, errlen);
}

static int icache_alloc(tm_timing *t);

int tm_timing_new(const tm_timing_cfg *cfg, uint32_t threads, const tm_timing_sink *sink, tm_timing **out)
{
    *out = NULL;
    if (!threads || threads > TMC_MAX_THREADS || tm_timing_check(cfg, NULL, 0) != TM_OK)
        return TM_ERR_ARG;
    tm_timing *t = calloc(1, sizeof *t);
    if (!t)
        return TM_ERR_NOMEM;
    t->cfg = *cfg;
    if (!t->cfg.l2.size) {
        uint64_t s = (uint64_t)threads * (64u << 10);
        while (!tm_is_pow2((uint32_t)s))
            s &= s - 1; /* a power of two: the largest not above cores x 64 KB */
        t->cfg.l2.size = s > (1u << 30) ? 1u << 30 : (uint32_t)s;
    }
    if ((uint64_t)t->cfg.l2.ways * t->cfg.line > t->cfg.l2.size)
        t->cfg.l2.ways = t->cfg.l2.size / t->cfg.line;
    t->sink = *sink;
    t->nthreads = threads;
    while ((1u << t->line_shift) < t->cfg.line)
        t->line_shift++;
    t->st.l2_size = t->cfg.l2.size;
    t->l1_sets = t->cfg.l1.size / t->cfg.line / t->cfg.l1.ways;
    t->il1_sets = t->cfg.l1i.size ? t->cfg.l1i.size / t->cfg.line / t->cfg.l1i.ways : 0;
    t->l2_sets = t->cfg.l2.size / t->cfg.line / t->cfg.l2.ways;
    t->rrun.type = TMC_RUN;
    t->rmem.type = TMC_MEM;
    if (t->il1_sets && icache_alloc(t) != TM_OK) {
        tm_timing_free(t);
        return TM_ERR_NOMEM;
    }
    t->th = calloc(threads, sizeof *t->th);
    t->hkey = malloc(threads * sizeof *t->hkey);
    t->lkey = malloc(threads * sizeof *t->lkey);
    if (!t->th || !t->hkey || !t->lkey) {
        tm_timing_free(t);
        return TM_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < threads; i++)
        t->hkey[i] = t->lkey[i] = NOKEY;
    *out = t;
    return TM_OK;
}

void tm_timing_free(tm_timing *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; t->th && i < t->nthreads; i++) {
        for (chunk *c = t->th[i].q.head, *n; c; c = n) {
            n = c->next;
            free(c);
        }
    }
    for (chunk *c = t->pool, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(t->th);
    free(t->hkey);
    free(t->lkey);
    free(t->l1_tag);
    free(t->l1_age);
    free(t->il1_tag);
    free(t->il1_age);
    free(t->l2_tag);
    free(t->l2_age);
    free(t->ord);
    free(t);
}

/* ------------------------------------------------------------ caches */

/* A cache's tags and ages, N entries each, if not allocated yet. */
static int ways_alloc(uint64_t **tag, uint64_t **age, size_t n)
{
    if (*age)
        return TM_OK;
    if (!*tag && !(*tag = calloc(n, sizeof **tag)))
        return TM_ERR_NOMEM;
    return (*age = calloc(n, sizeof **age)) ? TM_OK : TM_ERR_NOMEM;
}

/* The L2 (unified), when the first access or fetch reaches it. */
static int l2_alloc(tm_timing *t)
{
    return ways_alloc(&t->l2_tag, &t->l2_age, (size_t)t->l2_sets * t->cfg.l2.ways);
}

/* The data caches, when the first data access comes. */
static int caches_alloc(tm_timing *t)
{
    if (t->l1_age)
        return TM_OK;
    if (l2_alloc(t) != TM_OK)
        return TM_ERR_NOMEM;
    return ways_alloc(&t->l1_tag, &t->l1_age, (size_t)t->nthreads * t->l1_sets * t->cfg.l1.ways);
}

/* The line order table, when the first MEM record comes. */
static int ord_alloc(tm_timing *t)
{
    if (t->ord)
        return TM_OK;
    if (caches_alloc(t) != TM_OK)
        return TM_ERR_NOMEM;
    return (t->ord = calloc((size_t)1 << ORD_BITS, sizeof *t->ord)) ? TM_OK : TM_ERR_NOMEM;
}

/* The instruction caches, at the first fetch. */
static int icache_alloc(tm_timing *t)
{
    if (t->il1_age)
        return TM_OK;
    if (l2_alloc(t) != TM_OK)
        return TM_ERR_NOMEM;
    return ways_alloc(&t->il1_tag, &t->il1_age, (size_t)t->nthreads * t->il1_sets * t->cfg.l1i.ways);
}

static size_t ord_slot(uint64_t line)
{
    line *= 0x9e3779b97f4a7c15ull;
    return (size_t)(line >> (64 - ORD_BITS));
}

/* Looks LINE up in a set of WAYS ways (TAG/AGE at BASE): 1 on a hit (its
 * age refreshed), else 0 with the line filled into the least recently used
 * way (*WAY). */
static inline __attribute__((always_inline)) int set_access(uint64_t *tag, uint64_t *age, size_t base, uint32_t ways, uint64_t key, uint64_t tick,
                      size_t *way)
{
    size_t lru = base;
    for (size_t w = base; w < base + ways; w++) {
        if (tag[w] == key) {
            age[w] = tick;
            *way = w;
            return 1;
        }
        if (age[w] < age[lru])
            lru = w;
    }
    tag[lru] = key;
    age[lru] = tick;
    *way = lru;
    return 0;
}

/* Before thread TID's L1 looks up KEY (line + 1, in set SET): a store
 * removes the line from the other cores' L1s (unless it is known that none
 * holds it); the line's owner entry after the access.  Another L1 gets a
 * line only through its own access (here, or mem_cost's fast path, which
 * follows its core's own access here): an entry OWNED(key, tid) stays
 * true until then. */
static inline __attribute__((always_inline)) void l1_share(tm_timing *t, uint32_t tid, uint64_t key, size_t set,
                                                           int store, uint32_t ways)
{
    uint64_t *o = &t->own[(key - 1) & ((1u << OWN_BITS) - 1)], mine = OWNED(key, tid);
    if (store) {
        if (*o == mine)
            return; /* no other L1 holds it */
        for (uint32_t j = 0; j < t->l1_top; j++) {
            if (j == tid)
                continue;
            size_t b = ((size_t)j * t->l1_sets + set) * ways;
            for (size_t w = b; w < b + ways; w++)
                if (t->l1_tag[w] == key) {
                    t->l1_tag[w] = 0;
                    t->l1_age[w] = 0; /* filled first */
                }
        }
        *o = mine;
    } else if ((*o >> 10) == key && *o != mine) {
        *o = 0; /* TID's L1 holds it too */
    }
}

/* The cycles beyond the L1 of an access to LINE that missed it: the L2's,
 * and memory's if it misses too. */
static uint32_t l2_cost(tm_timing *t, uint64_t line)
{
    size_t way, b2 = (size_t)(line & (t->l2_sets - 1)) * t->cfg.l2.ways;
    if (set_access(t->l2_tag, t->l2_age, b2, t->cfg.l2.ways, line + 1, t->tick, &way)) {
        t->st.l2_hits++;
        return t->cfg.l2.lat;
    }
    t->st.l2_misses++;
    return t->cfg.l2.lat + t->cfg.mem_lat;
}

/* The cycles a memory operand of thread TID at line LINE costs (L1, L2,
 * memory); a store makes the other cores' copies stale: they are removed
 * from their L1s (their next access misses). */
static uint32_t mem_cost(tm_timing *t, uint32_t tid, uint64_t line, int store)
{
    uint64_t key = line + 1;
    if (key == t->dlast_key && tid == t->dlast_tid && (!store || t->dlast_excl)) {
        /* The core's previous access was the last of all cores, to this
         * line: an L1 hit on its set's most recent line (no store of
         * another core removed it since).  Its age is left as it is and
         * no tick is taken: it stays the most recent of its set, and the
         * LRU choices depend only on the ages' order.  A store: another
         * core's copy went at the store that made the line exclusive, and
         * no other core accessed the line since. */
        t->st.l1_hits++;
        return t->cfg.l1.lat;
    }
    t->dlast_key = key;
    t->dlast_tid = tid;
    t->dlast_excl = store;
    size_t way, set = (size_t)(line & (t->l1_sets - 1));
    uint32_t ways = t->cfg.l1.ways;
    t->tick++;
    if (tid >= t->l1_top)
        t->l1_top = tid + 1;
    l1_share(t, tid, key, set, store, ways);
    size_t b1 = ((size_t)tid * t->l1_sets + set) * ways;
    if (set_access(t->l1_tag, t->l1_age, b1, ways, key, t->tick, &way)) {
        t->st.l1_hits++;
        return t->cfg.l1.lat;
    }
    t->st.l1_misses++;
    return t->cfg.l1.lat + l2_cost(t, line);
}

/* The cycles thread TID's core spends fetching the instructions at [LO, HI)
 * beyond the base CPI: per line it enters (a line is fetched once while the
 * core's instructions stay in it), the instruction cache's hit latency, and
 * on a miss the L2's (and memory's) latency. */
static uint64_t fetch_cost(tm_timing *t, uint32_t tid, uint64_t lo, uint64_t hi)
{
    tthread *th = &t->th[tid];
    uint64_t l = lo >> t->line_shift, l1 = (hi - 1) >> t->line_shift, c = 0;
    for (; l <= l1; l++) {
        if (l + 1 == th->iline)
            continue; /* still in the line it fetched last: no new fetch */
        th->iline = l + 1;
        c += t->cfg.l1i.lat;
        size_t way, b = ((size_t)tid * t->il1_sets + (size_t)(l & (t->il1_sets - 1))) * t->cfg.l1i.ways;
        t->tick++;
        if (set_access(t->il1_tag, t->il1_age, b, t->cfg.l1i.ways, l + 1, t->tick, &way)) {
            t->st.il1_hits++;
            continue;
        }
        t->st.il1_misses++;
        c += l2_cost(t, l);
    }
    return c;
}

/* The fetch cost (1/1000 cycles) of a group of thread TID: its RUN of
 * RBYTES bytes at RPC (RBYTES 0: none) and its branch of BLEN bytes at BPC
 * (BLEN 0: none); 0 without an instruction cache. */
static uint64_t fetch_group(tm_timing *t, uint32_t tid, uint64_t rpc, uint64_t rbytes, uint64_t bpc, uint64_t blen)
{
    if (!t->il1_sets)
        return 0;
    uint64_t c = 0;
    if (rbytes)
        c += fetch_cost(t, tid, rpc, rpc + rbytes);
    if (blen)
        c += fetch_cost(t, tid, bpc, bpc + blen);
    return c * MILLI;
}

int tm_timing_access(tm_timing *t, uint32_t tid, uint64_t addr, uint32_t size, int store)
{
    if (t->failed)
        return TM_ERR_IO;
    if (tid >= t->nthreads || !size)
        return TM_ERR_ARG;
    if (caches_alloc(t) != TM_OK)
        return TM_ERR_NOMEM;
    (void)size; /* its first line is charged, as a MEM record's */
    t->st.accesses++;
    t->th[tid].dlat += (uint64_t)mem_cost(t, tid, addr >> t->line_shift, store) * MILLI;
    return TM_OK;
}

int tm_timing_access_words(tm_timing *t, uint32_t tid, const uint64_t *w, size_t n)
{
    if (t->failed)
        return TM_ERR_IO;
    if (tid >= t->nthreads)
        return TM_ERR_ARG;
    if (caches_alloc(t) != TM_OK)
        return TM_ERR_NOMEM;
    if (!n)
        return TM_OK;
    /* mem_cost, inline, with the caches' parameters in registers */
    const uint32_t shift = t->line_shift, ways = t->cfg.l1.ways;
    const size_t sets = t->l1_sets, tbase = (size_t)tid * sets;
    uint64_t *tag = t->l1_tag, *age = t->l1_age;
    uint64_t lkey = t->dlast_key, l2lat = 0, hits = 0, misses = 0;
    int lexcl = t->dlast_excl, mine = t->dlast_tid == tid;
    if (tid >= t->l1_top)
        t->l1_top = tid + 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = ((w[i] >> 16) >> shift) + 1;
        int store = (int)((w[i] >> 8) & 1);
        if (key == lkey && mine && (!store || lexcl)) {
            hits++; /* mem_cost's fast path */
            continue;
        }
        mine = 1;
        lkey = key;
        lexcl = store;
        size_t way, set = (size_t)((key - 1) & (sets - 1));
        uint64_t tick = ++t->tick;
        l1_share(t, tid, key, set, store, ways);
        if (set_access(tag, age, (tbase + set) * ways, ways, key, tick, &way)) {
            hits++;
            continue;
        }
        misses++;
        l2lat += l2_cost(t, key - 1);
    }
    t->dlast_key = lkey;
    t->dlast_tid = tid;
    t->dlast_excl = lexcl;
    t->st.l1_hits += hits;
    t->st.l1_misses += misses;
    t->st.accesses += n;
    t->th[tid].dlat += ((uint64_t)n * t->cfg.l1.lat + l2lat) * MILLI;
    return TM_OK;
}

/* ------------------------------------------------------------ queues */

/* Thread I's keys after a change of its queue or state. */
static void rekey(tm_timing *t, uint32_t i)
{
    const tthread *th = &t->th[i];
    if (i != t->bar_tid)
        t->bar_ok = 0;
    if (th->q.groups) {
        t->hkey[i] = KEY(th->q.hc, i);
        t->lkey[i] = NOKEY;
    } else {
        t->hkey[i] = NOKEY;
        t->lkey[i] = th->live && !th->done && !th->in_sys ? KEY(th->next, i) : NOKEY;
    }
}

/* Room for K words at the tail of Q: a pointer to them, NULL without
 * memory.  q_push makes them an entry. */
static uint64_t *q_room(tm_timing *t, tqueue *q, size_t k)
{
    chunk *c = q->tail;
    if (c && c->used + k <= CHUNK_WORDS)
        return c->w + c->used;
    if (c && q->groups == 0) { /* empty: start over in its chunk */
        c->used = 0;
        q->rd = 0;
        return c->w;
    }
    chunk *n = t->pool;
    if (n)
        t->pool = n->next;
    else if (!(n = malloc(sizeof *n)))
        return NULL;
    n->next = NULL;
    n->used = 0;
    if (c)
        c->next = n;
    else {
        q->head = n;
        q->rd = 0;
    }
    q->tail = n;
    return n->w;
}

static void q_push(tm_timing *t, uint32_t tid, size_t k, uint64_t cycle)
{
    tqueue *q = &t->th[tid].q;
    q->tail->used += (uint32_t)k;
    q->tc = cycle;
    if (q->groups++ == 0) {
        q->hc = cycle;
        rekey(t, tid);
    }
    t->held++;
    if (t->held > t->st.held_max)
        t->st.held_max = t->held;
}

/* The head entry of Q is read up to END: the next one (or none). */
static void q_pop(tm_timing *t, uint32_t tid, const uint64_t *end)
{
    tqueue *q = &t->th[tid].q;
    q->rd = (uint32_t)(end - q->head->w);
    if (q->rd == q->head->used && q->head != q->tail) {
        chunk *c = q->head;
        q->head = c->next;
        q->rd = 0;
        c->next = t->pool;
        t->pool = c;
    }
    t->held--;
    if (--q->groups) {
        uint64_t w = q->head->w[q->rd];
        q->hc = w & SHORT ? q->hc + (w >> 32 & 0x3fffffff) : w;
    }
    rekey(t, tid);
}

/* ------------------------------------------------------------ the open group */

static int is_event(tmc_type ty) { return ty == TMC_START || ty == TMC_EXIT || ty == TMC_BRANCH || ty == TMC_EXC; }

/* A general entry's header word of a record (its type, size, flags,
 * bclass, taken and len as the entry keeps them). */
static inline uint64_t gen_hdr(tmc_type type, uint8_t size, uint32_t flags, uint8_t bclass, uint8_t taken,
                               uint8_t len)
{
    return (uint64_t)type | (uint64_t)size << 8 | (uint64_t)(flags & 0xffff) << 16 | (uint64_t)bclass << 32 |
           (uint64_t)(taken & 1) << 40 | (uint64_t)len << 48;
}

/* Record R after the open general group's words: as the general entry
 * keeps it (RUN pc, count, bytes; MEM addr, pc, value words; an event pc,
 * target, count). */
static void gen_put(tm_timing *t, const tmc_record *r)
{
    uint64_t *w = t->gw + t->gn;
    *w++ = gen_hdr(r->type, r->size, r->flags, r->bclass, r->taken, r->len);
    if (r->type == TMC_RUN) {
        *w++ = r->pc;
        *w++ = r->count;
        *w++ = r->bytes;
    } else if (r->type == TMC_MEM) {
        unsigned nw = (r->size + 7u) / 8u;
        *w++ = r->addr;
        *w++ = r->pc;
        memcpy(w, r->value, 8 * nw);
        w += nw;
    } else {
        *w++ = r->pc;
        *w++ = r->target;
        *w++ = r->count;
    }
    t->gn = (size_t)(w - t->gw);
    t->nrec++;
}

/* A RUN of the open general group: its words. */
static void gen_run(tm_timing *t, uint64_t pc, uint64_t count, uint64_t bytes)
{
    uint64_t *w = t->gw + t->gn;
    w[0] = TMC_RUN;
    w[1] = pc;
    w[2] = count;
    w[3] = bytes;
    t->gn += 4;
    t->nrec++;
}

/* A MEM of the open general group (its value MSIZE bytes at VAL, the rest
 * of its last word 0): its words. */
static void gen_mem(tm_timing *t, uint32_t flags, uint8_t size, uint64_t addr, uint64_t pc, const void *val)
{
    uint64_t *w = t->gw + t->gn;
    unsigned nw = (size + 7u) / 8u;
    w[0] = gen_hdr(TMC_MEM, size, flags, 0, 0, 0);
    w[1] = addr;
    w[2] = pc;
    if (nw) {
        w[2 + nw] = 0;
        memcpy(w + 3, val, size);
    }
    t->gn += 3 + nw;
    t->nrec++;
}

/* The open group becomes general: its records as the entry's words. */
static void pend_general(tm_timing *t)
{
    if (t->gen)
        return;
    const pend *p = &t->p;
    t->gen = 1;
    t->nrec = 0;
    t->gn = 0;
    if (p->has & P_RUN)
        gen_run(t, p->pc, p->count, p->bytes);
    if (p->has & P_MEM)
        gen_mem(t, p->mflags, p->msize, p->maddr, p->mpc, p->mval);
    if (p->has & P_EV) {
        uint64_t *w = t->gw + t->gn;
        w[0] = gen_hdr(p->etype, p->esize, p->eflags, p->ebclass, p->etaken, p->elen);
        w[1] = p->epc;
        w[2] = p->etarget;
        w[3] = p->ecount;
        t->gn += 4;
        t->nrec++;
    }
}

/* The records of the open general group's words: each one's type (*TYPE)
 * and words (the return), from the header word at W. */
static inline size_t gen_len(const uint64_t *w, tmc_type *type)
{
    *type = (tmc_type)(w[0] & 0xff);
    return *type == TMC_MEM ? 3u + ((uint8_t)(w[0] >> 8) + 7u) / 8u : 4u;
}

static void pend_ev(pend *p, const tmc_record *r)
{
    p->has |= P_EV;
    p->etype = r->type;
    p->eflags = r->flags;
    p->esize = r->size;
    p->ebclass = r->bclass;
    p->etaken = r->taken;
    p->elen = r->len;
    p->epc = r->pc;
    p->etarget = r->target;
    p->ecount = r->count;
}

/* Whether the open group fits the compact entry (what the general one
 * would keep of it, the compact one keeps). */
static int pend_compact(const tm_timing *t)
{
    const pend *p = &t->p;
    if (t->gen)
        return 0;
    if ((p->has & P_RUN) && (p->count >> 32 || p->bytes >> 32))
        return 0;
    if ((p->has & P_MEM) && (p->mflags & 0xffff) > 0xff)
        return 0;
    if ((p->has & P_EV) && ((p->eflags & 0xffff) > 0xff || p->esize || p->ecount))
        return 0;
    return 1;
}

/* Instructions of the open group. */
static uint64_t open_insns(const tm_timing *t)
{
    uint64_t n = 0;
    if (t->gen) {
        tmc_type ty;
        for (size_t i = 0, len; i < t->gn; i += len) {
            len = gen_len(t->gw + i, &ty);
            n += ty == TMC_RUN ? t->gw[i + 2] : ty == TMC_BRANCH;
        }
        return n;
    }
    if (t->p.has & P_RUN)
        n += t->p.count;
    if ((t->p.has & P_EV) && t->p.etype == TMC_BRANCH)
        n++;
    return n;
}

/* The lines [L0, L1] that a SIZE-byte operand at ADDR touches. */
static void op_lines(const tm_timing *t, uint64_t addr, uint8_t size, uint64_t *l0, uint64_t *l1)
{
    *l0 = addr >> t->line_shift;
    *l1 = (addr + (size ? size - 1u : 0u)) >> t->line_shift;
}

/* A memory operand of the group thread TID closes: its cost into *ACC
 * (an instruction's operand, PC not 0), its lines' order into *FLOOR. */
static void mem_time(tm_timing *t, uint32_t tid, uint64_t addr, uint8_t size, uint32_t flags, uint64_t pc,
                     uint64_t *acc, uint64_t *floor)
{
    int store = (flags & TMC_MEM_STORE) != 0;
    uint64_t l0, l1;
    op_lines(t, addr, size, &l0, &l1);
    if (pc) /* an instruction's operand (not a write by the system) */
        *acc += (uint64_t)mem_cost(t, tid, l0, store) * MILLI;
    for (uint64_t l = l0; l <= l1; l++) {
        size_t o = ord_slot(l);
        /* after the line's last store; a store also after its last access */
        const ordent *e = &t->ord[o];
        uint64_t need = store && e->access > e->store ? e->access : e->store;
        if (need > *floor && need > *acc / MILLI) {
            *floor = need;
            t->st.ordered++;
        }
    }
}

/* The operand, stamped C: its lines' last access (and store). */
static void mem_stamp(tm_timing *t, uint64_t addr, uint8_t size, uint32_t flags, uint64_t c)
{
    uint64_t l0, l1;
    op_lines(t, addr, size, &l0, &l1);
    for (uint64_t l = l0; l <= l1; l++) {
        size_t o = ord_slot(l);
        ordent *e = &t->ord[o];
        if (e->access < c + 1)
            e->access = c + 1; /* the cycle after: 0 = never */
        if ((flags & TMC_MEM_STORE) && e->store < c + 1)
            e->store = c + 1;
    }
}

static void handed_on(tm_timing *t, uint32_t tid, uint64_t c);
static int emit_pend(tm_timing *t, uint32_t tid, uint64_t c, const pend *p, const uint64_t *mval);
static int stopped(tm_timing *t);

/* The least key of the threads other than TID (their queues' heads and the
 * next groups of those without a queue). */
static uint64_t bar_of(tm_timing *t, uint32_t tid)
{
    if (t->bar_ok && t->bar_tid == tid)
        return t->bar;
    uint64_t h = NOKEY, l = NOKEY;
    for (uint32_t i = 0; i < t->ntop; i++) {
        if (i == tid)
            continue;
        if (t->hkey[i] < h)
            h = t->hkey[i];
        if (t->lkey[i] < l)
            l = t->lkey[i];
    }
    uint64_t b = h < l ? h : l;
    t->bar = b;
    t->bar_h = h;
    t->bar_tid = tid;
    t->bar_ok = 1;
    return b;
}

/* Whether, after thread TID's group was handed on at once (DIRECT, its
 * keys updated) or queued behind another thread's key, a queue's head may
 * go now: the least key of the other threads is a queue's head (not the
 * next group of a thread without a queue), and, DIRECT, it precedes TID's
 * next group. */
static int may_go(tm_timing *t, uint32_t tid, int direct)
{
    uint64_t b = bar_of(t, tid);
    return b != NOKEY && b == t->bar_h && (!direct || b < t->lkey[tid]);
}

/* Thread TID's group of N instructions, whose clock ends at ACC (1/1000
 * cycles) and which comes no earlier than cycle FLOOR, gets its cycle *C:
 * never before what was handed on (else it is clamped); the thread's clock
 * moves on.  TM_OK, or TM_ERR_ARG beyond MAX_CYCLE. */
static inline int stamp(tm_timing *t, uint32_t tid, uint64_t n, uint64_t acc, uint64_t floor, uint64_t *cp)
{
    tthread *th = &t->th[tid];
    acc += th->dlat; /* the accesses given since its last group */
    th->dlat = 0;
    uint64_t c = acc / MILLI > floor ? acc / MILLI : floor;
    if (t->emitted && (c < t->last_cycle || (c == t->last_cycle && tid < t->last_tid))) {
        c = t->last_cycle + (tid < t->last_tid);
        t->st.clamped++;
    }
    if (c >= MAX_CYCLE)
        return TM_ERR_ARG;
    if (acc < c * MILLI)
        acc = c * MILLI;
    th->acc = acc;
    th->next = c + 1;
    th->insns += n;
    t->closed++;
    t->last_closer = tid;
    *cp = c;
    return TM_OK;
}

/* A compact entry's header word: what the group has (P_*) and the narrow
 * fields of its MEM and event. */
static uint64_t compact_hdr(unsigned has, tmc_type etype, uint8_t bclass, uint8_t taken, uint8_t len, uint8_t msize,
                            uint32_t mflags, uint32_t eflags)
{
    return (uint64_t)has | (uint64_t)(has & P_EV ? etype : 0) << 3 | (uint64_t)bclass << 8 |
           (uint64_t)(taken & 1) << 16 | (uint64_t)len << 17 | (uint64_t)(msize & 0x7f) << 25 |
           (uint64_t)(mflags & 0xff) << 32 | (uint64_t)(eflags & 0xff) << 40;
}

/* Thread TID's group of cycle C goes out at once (its queue empty, before
 * every other thread's key), as drain() would hand on its entry: counted as
 * if it had been queued. */
static void at_once(tm_timing *t, uint32_t tid, uint64_t c)
{
    if (t->held + 1 > t->st.held_max)
        t->st.held_max = t->held + 1;
    handed_on(t, tid, c);
}

/* After at_once's group went: thread TID's keys (rekey() of an empty queue;
 * the bar stays: its own), and whether a queue's head may go now. */
static int at_once_keys(tm_timing *t, uint32_t tid)
{
    const tthread *th = &t->th[tid];
    t->hkey[tid] = NOKEY;
    t->lkey[tid] = th->live && !th->done && !th->in_sys ? KEY(th->next, tid) : NOKEY;
    return may_go(t, tid, 1);
}

/* The open group of thread OTID, stamped: into its queue, or, a compact
 * one that drain() would hand on first (its thread's queue empty, before
 * every other thread's key), handed on at once: the same entry, read by
 * the same code, without the trip through the queue. */
static int close_group(tm_timing *t)
{
    t->need = 0;
    if (!t->open)
        return TM_OK;
    t->open = 0;
    uint32_t tid = t->otid;
    tthread *th = &t->th[tid];
    const pend *p = &t->p;
    uint64_t n = open_insns(t);
    uint64_t acc = th->acc + n * t->cfg.cpi_milli;
    uint64_t floor = th->next;
    int compact = pend_compact(t);
    size_t words = 2;
    if (compact) {
        words += (p->has & P_RUN ? 2 : 0) + (p->has & P_EV ? 2 : 0);
        int br = (p->has & P_EV) && p->etype == TMC_BRANCH;
        acc += fetch_group(t, tid, p->pc, p->has & P_RUN ? p->bytes : 0, p->epc, br ? p->elen : 0);
        if (p->has & P_MEM) {
            words += 2 + (p->msize + 7u) / 8u;
            if (ord_alloc(t) != TM_OK)
                return TM_ERR_NOMEM;
            mem_time(t, tid, p->maddr, p->msize, p->mflags, p->mpc, &acc, &floor);
        }
    } else {
        tmc_type ty;
        words += t->gn;
        for (size_t i = 0, len; i < t->gn; i += len) {
            len = gen_len(t->gw + i, &ty);
            const uint64_t *m = t->gw + i;
            if (ty == TMC_RUN)
                acc += fetch_group(t, tid, m[1], m[3], m[1], 0);
            else if (ty == TMC_BRANCH)
                acc += fetch_group(t, tid, m[1], 0, m[1], (uint8_t)(m[0] >> 48));
            if (ty != TMC_MEM)
                continue;
            words++; /* room as for a record of 4 words and its value */
            if (ord_alloc(t) != TM_OK)
                return TM_ERR_NOMEM;
            mem_time(t, tid, m[1], (uint8_t)(m[0] >> 8), (uint32_t)(m[0] >> 16) & 0xffff, m[2], &acc, &floor);
        }
    }
    uint64_t c;
    if (stamp(t, tid, n, acc, floor, &c) != TM_OK)
        return TM_ERR_ARG;
    tqueue *q = &th->q;
    if (compact && q->groups == 0 && KEY(c, tid) < bar_of(t, tid)) {
        /* handed on at once, as drain() would hand on its entry */
        if (p->has & P_MEM)
            mem_stamp(t, p->maddr, p->msize, p->mflags, c);
        if ((p->has & P_EV) && p->etype == TMC_EXIT)
            th->done = 1;
        at_once(t, tid, c);
        if (emit_pend(t, tid, c, p, p->mval))
            return stopped(t);
        t->need = at_once_keys(t, tid);
        return TM_OK;
    }
    int was_empty = q->groups == 0;
    uint64_t *w0 = q_room(t, q, words), *w = w0;
    if (!w)
        return TM_ERR_NOMEM;
    *w++ = c;
    if (compact) {
        *w++ = compact_hdr(p->has, p->etype, p->ebclass, p->etaken, p->elen, p->msize, p->mflags, p->eflags);
        if (p->has & P_RUN) {
            *w++ = p->pc;
            *w++ = p->count | p->bytes << 32;
        }
        if (p->has & P_MEM) {
            unsigned nw = (p->msize + 7u) / 8u;
            *w++ = p->maddr;
            *w++ = p->mpc;
            memcpy(w, p->mval, 8 * nw);
            w += nw;
            mem_stamp(t, p->maddr, p->msize, p->mflags, c);
        }
        if (p->has & P_EV) {
            *w++ = p->epc;
            *w++ = p->etarget;
            if (p->etype == TMC_EXIT)
                th->done = 1;
        }
    } else {
        *w++ = GENERAL | t->nrec;
        memcpy(w, t->gw, 8 * t->gn);
        w += t->gn;
        tmc_type ty;
        for (size_t i = 0, len; i < t->gn; i += len) {
            len = gen_len(t->gw + i, &ty);
            const uint64_t *m = t->gw + i;
            if (ty == TMC_MEM)
                mem_stamp(t, m[1], (uint8_t)(m[0] >> 8), (uint32_t)(m[0] >> 16) & 0xffff, c);
            else if (ty == TMC_EXIT)
                th->done = 1;
        }
    }
    q_push(t, tid, (size_t)(w - w0), c);
    /* into an empty queue: its head may go (a general entry), or another
     * thread's that waited for this thread's next group */
    t->need = was_empty && (!compact || may_go(t, tid, 0));
    return TM_OK;
}

/* The downstream sink stopped. */
static int stopped(tm_timing *t)
{
    t->failed = 1;
    return TM_ERR_IO;
}

/* A general entry at W (after its cycle C) of thread TID: its records to
 * the sink, as one group if they are RUN?, MEM?, event? in that order.
 * Returns the end of the entry, NULL if the sink stopped. */
static const uint64_t *emit_general(tm_timing *t, uint32_t tid, uint64_t c, const uint64_t *w)
{
    unsigned nrec = (unsigned)(*w++ & 0xff);
    if (t->sink.group) {
        /* as calls of the sink's group, each of a RUN?, a MEM?, an event?
         * in that order (the capture layer's serial cycles give the model
         * such groups one after another in one cycle too: a memory
         * operand's group, then the rest of the run and the branch); the
         * MEM's value read in the entry, the event in gev, whose fields
         * the entry does not keep stay 0 */
        tmc_record *e = &t->gev;
        for (unsigned k = 0; k < nrec;) {
            tmc_group g = {tid, c, 0, 0, 0, 0, 0, 0, 0, NULL, NULL};
            tmc_type ty = (tmc_type)(w[0] & 0xff);
            if (ty == TMC_RUN) {
                g.pc = w[1];
                g.count = w[2];
                g.bytes = w[3];
                w += 4;
                if (++k < nrec)
                    ty = (tmc_type)(w[0] & 0xff);
            }
            if (k < nrec && ty == TMC_MEM) {
                g.mem = 1;
                g.msize = (uint8_t)(w[0] >> 8);
                g.mflags = (uint32_t)(w[0] >> 16) & 0xffff;
                g.maddr = w[1];
                g.mvalue = (const uint8_t *)(w + 3);
                w += 3 + (g.msize + 7u) / 8u;
                if (++k < nrec)
                    ty = (tmc_type)(w[0] & 0xff);
            }
            if (k < nrec && ty != TMC_RUN && ty != TMC_MEM) {
                uint64_t h = w[0];
                e->type = ty;
                e->size = (uint8_t)(h >> 8);
                e->flags = (uint32_t)(h >> 16) & 0xffff;
                e->bclass = (uint8_t)(h >> 32);
                e->taken = (uint8_t)(h >> 40) & 1;
                e->len = (uint8_t)(h >> 48);
                e->tid = tid;
                e->cycle = c;
                e->pc = w[1];
                e->target = w[2];
                e->count = w[3];
                w += 4;
                k++;
                g.ev = e;
            }
            if (t->sink.group(t->sink.arg, &g))
                return NULL;
        }
        return w;
    }
    tmc_record *rs = t->out;
    for (unsigned k = 0; k < nrec; k++) {
        tmc_record *r = &rs[k];
        uint64_t h = *w++;
        memset(r, 0, sizeof *r);
        r->type = (tmc_type)(h & 0xff);
        r->size = (uint8_t)(h >> 8);
        r->flags = (uint32_t)(h >> 16) & 0xffff;
        r->bclass = (uint8_t)(h >> 32);
        r->taken = (uint8_t)(h >> 40) & 1;
        r->len = (uint8_t)(h >> 48);
        r->tid = tid;
        r->cycle = c;
        if (r->type == TMC_RUN) {
            r->pc = w[0];
            r->count = w[1];
            r->bytes = w[2];
            w += 3;
        } else if (r->type == TMC_MEM) {
            unsigned nw = (r->size + 7u) / 8u;
            r->addr = w[0];
            r->pc = w[1];
            memcpy(r->value, w + 2, 8 * nw);
            w += 2 + nw;
        } else {
            r->pc = w[0];
            r->target = w[1];
            r->count = w[2];
            w += 3;
        }
    }
    for (unsigned k = 0; k < nrec; k++)
        if (t->sink.record(t->sink.arg, &rs[k]))
            return NULL;
    return w;
}

/* Thread TID's group of cycle C goes out. */
static void handed_on(tm_timing *t, uint32_t tid, uint64_t c)
{
    t->last_cycle = c;
    t->last_tid = tid;
    t->emitted = 1;
    t->st.groups++;
    if (c + 1 > t->st.cycles)
        t->st.cycles = c + 1;
}

/* Hands on group G of thread TID, stamped (G's tid, cycle and event as they
 * go out; MPC: its MEM's .pc): one call of the sink's group if it has one,
 * else its records.  Returns nonzero if the sink stopped. */
static int emit_g(tm_timing *t, const tmc_group *g, uint64_t mpc)
{
    if (t->sink.group)
        return t->sink.group(t->sink.arg, g);
    if (g->count) {
        tmc_record *r = &t->rrun;
        r->tid = g->tid;
        r->cycle = g->cycle;
        r->pc = g->pc;
        r->count = g->count;
        r->bytes = g->bytes;
        if (t->sink.record(t->sink.arg, r))
            return 1;
    }
    if (g->mem) {
        tmc_record *r = &t->rmem;
        unsigned nw = (g->msize + 7u) / 8u;
        r->tid = g->tid;
        r->cycle = g->cycle;
        r->flags = g->mflags;
        r->size = g->msize;
        r->addr = g->maddr;
        r->pc = mpc;
        memcpy(r->value, g->mvalue, 8 * nw);
        if (nw < t->rmem_nw)
            memset(r->value + 8 * nw, 0, 8 * (t->rmem_nw - nw));
        t->rmem_nw = nw;
        if (t->sink.record(t->sink.arg, r))
            return 1;
    }
    return g->ev ? t->sink.record(t->sink.arg, g->ev) : 0;
}

/* The event of a compact entry as it goes out (the entry's fields' widths). */
static const tmc_record *out_ev(tm_timing *t, uint32_t tid, uint64_t c, tmc_type type, uint32_t flags,
                                uint8_t bclass, uint8_t taken, uint8_t len, uint64_t pc, uint64_t target)
{
    tmc_record *e = &t->rev;
    e->type = (tmc_type)(type & 0x1f);
    e->tid = tid;
    e->cycle = c;
    e->flags = flags & 0xff;
    e->bclass = bclass;
    e->taken = taken & 1;
    e->len = len;
    e->pc = pc;
    e->target = target;
    return e;
}

/* Hands on thread TID's compact group of cycle C, P (RUN? MEM? event?, with
 * the MEM's value words at MVAL), as its entry keeps it (the masks are the
 * entry's fields' widths).  Returns nonzero if the sink stopped. */
static int emit_pend(tm_timing *t, uint32_t tid, uint64_t c, const pend *p, const uint64_t *mval)
{
    unsigned has = p->has;
    tmc_group g = {tid, c, 0, 0, 0, 0, 0, 0, 0, NULL, NULL};
    if (has & P_RUN) {
        g.pc = p->pc;
        g.count = (uint32_t)p->count;
        g.bytes = p->bytes & 0xffffffffu;
    }
    if (has & P_MEM) {
        g.mem = 1;
        g.msize = p->msize & 0x7f;
        g.mflags = p->mflags & 0xff;
        g.maddr = p->maddr;
        g.mvalue = (const uint8_t *)mval;
    }
    if (has & P_EV)
        g.ev = out_ev(t, tid, c, p->etype, p->eflags, p->ebclass, p->etaken, p->elen, p->epc, p->etarget);
    return emit_g(t, &g, p->mpc);
}

/* Hands on the group of thread TID whose entry is at W.  Returns the end
 * of the entry, NULL if the sink stopped. */
static const uint64_t *emit_entry(tm_timing *t, uint32_t tid, const uint64_t *w)
{
    uint64_t c = t->th[tid].q.hc;
    handed_on(t, tid, c);
    if (*w & SHORT) { /* RUN, branch? */
        uint64_t h = w[0];
        tmc_group g = {tid, c, w[1], h >> 16 & 0xffff, h & 0xffff, 0, 0, 0, 0, NULL, NULL};
        if (!(h & SHORT_BR))
            return emit_g(t, &g, 0) ? NULL : w + 2;
        uint64_t x = w[2];
        g.ev = out_ev(t, tid, c, TMC_BRANCH, 0, (uint8_t)(x >> 48 & 7), (uint8_t)(x >> 51 & 1),
                      (uint8_t)(x >> 52 & 15), g.pc + g.bytes, x & 0xffffffffffffull);
        return emit_g(t, &g, 0) ? NULL : w + 3;
    }
    w++;
    uint64_t h = *w++;
    if (h & GENERAL)
        return emit_general(t, tid, c, w - 1);
    tmc_group g = {tid, c, 0, 0, 0, 0, 0, 0, 0, NULL, NULL};
    uint64_t mpc = 0;
    if (h & P_RUN) {
        g.pc = w[0];
        g.count = (uint32_t)w[1];
        g.bytes = w[1] >> 32;
        w += 2;
    }
    if (h & P_MEM) {
        g.mem = 1;
        g.msize = (uint8_t)(h >> 25) & 0x7f;
        g.mflags = (uint32_t)(h >> 32) & 0xff;
        g.maddr = w[0];
        mpc = w[1];
        g.mvalue = (const uint8_t *)(w + 2);
        w += 2 + (g.msize + 7u) / 8u;
    }
    if (h & P_EV) {
        g.ev = out_ev(t, tid, c, (tmc_type)((h >> 3) & 0x1f), (uint32_t)(h >> 40), (uint8_t)(h >> 8),
                      (uint8_t)(h >> 16), (uint8_t)(h >> 17), w[0], w[1]);
        w += 2;
    }
    return emit_g(t, &g, mpc) ? NULL : w;
}

/* Hands on the head group of thread TID. */
static int emit_head(tm_timing *t, uint32_t tid)
{
    tqueue *q = &t->th[tid].q;
    const uint64_t *w = q->head->w + q->rd;
#if defined(__GNUC__) || defined(__clang__)
    /* the queue was written long ago: out of the cache; a few entries ahead */
    if (q->rd + 72 < CHUNK_WORDS)
        __builtin_prefetch(w + 64);
#endif
    const uint64_t *end = emit_entry(t, tid, w);
    if (!end)
        return stopped(t);
    q_pop(t, tid, end);
    return TM_OK;
}

/* Hands on every group no thread can still precede; beyond the window the
 * oldest too; with ALL, everything.  The head of the earliest queue goes
 * first (ties: the lower thread), while it comes before every other
 * queue's head and before the next group of every thread without one. */
static int drain(tm_timing *t, int all)
{
    if (!t->held)
        return TM_OK; /* nothing queued */
    for (;;) {
        uint64_t b = NOKEY, o = NOKEY; /* the earliest queue head, the next one */
        uint64_t l = NOKEY;            /* the earliest next group of a thread without a queue */
        for (uint32_t i = 0; i < t->ntop; i++) {
            uint64_t h = t->hkey[i];
            if (h < b) {
                o = b;
                b = h;
            } else if (h < o) {
                o = h;
            }
            if (t->lkey[i] < l)
                l = t->lkey[i];
        }
        if (b == NOKEY)
            return TM_OK;
        uint32_t best = (uint32_t)(b & 1023);
        do {
            uint64_t k = t->hkey[best];
            if (k > o)
                break; /* another queue's head goes first */
            if (k > l && !all && t->held <= t->cfg.window)
                return TM_OK; /* a thread may still retire earlier */
            int rc = emit_head(t, best);
            if (rc != TM_OK)
                return rc;
        } while (t->th[best].q.groups);
        if (o == NOKEY)
            return TM_OK;
        /* BEST's queue is empty: the next queue's head if it can precede
         * BEST's next group too, else a new look */
        if (t->lkey[best] < l)
            l = t->lkey[best];
        if (o > l && !all && t->held <= t->cfg.window)
            return TM_OK;
    }
}

/* ------------------------------------------------------------ input */

/* A record of thread TID in CYCLE comes: the open group is closed if it is
 * another's, and one opened. */
static int open_for(tm_timing *t, uint32_t tid, uint64_t cycle)
{
    if (t->open && (tid != t->otid || cycle != t->ocycle)) {
        int rc = close_group(t);
        if (rc == TM_OK && t->held && (t->need || t->held > t->cfg.window))
            rc = drain(t, 0);
        if (rc != TM_OK)
            return rc;
    }
    if (!t->open) {
        t->open = 1;
        t->otid = tid;
        t->ocycle = cycle;
        t->p.has = 0;
        t->gen = 0;
        t->nrec = 0;
        t->gn = 0;
        if (!t->th[tid].live) {
            t->th[tid].live = 1;
            rekey(t, tid);
        }
        if (tid >= t->ntop)
            t->ntop = tid + 1;
    }
    return TM_OK;
}

int tm_timing_put(tm_timing *t, const tmc_record *r)
{
    if (t->failed)
        return TM_ERR_IO;
    if (r->tid >= t->nthreads)
        return TM_ERR_ARG;
    int rc = open_for(t, r->tid, r->cycle);
    if (rc != TM_OK)
        return rc;
    if (r->type != TMC_RUN && r->type != TMC_MEM && !is_event(r->type))
        return TM_ERR_ARG;
    pend *p = &t->p;
    if (!t->gen) {
        if (r->type == TMC_RUN && !p->has) {
            p->has = P_RUN;
            p->pc = r->pc;
            p->count = r->count;
            p->bytes = r->bytes;
            if (!(r->flags & 0xffff) && !r->size && !r->bclass && !(r->taken & 1) && !r->len)
                return TM_OK;
            p->has = 0; /* fields the compact entry leaves out: general */
        } else if (r->type == TMC_MEM && !(p->has & (P_MEM | P_EV))) {
            p->has |= P_MEM;
            p->mflags = r->flags;
            p->msize = r->size;
            p->maddr = r->addr;
            p->mpc = r->pc;
            memcpy(p->mval, r->value, sizeof p->mval);
            if (!r->bclass && !(r->taken & 1) && !r->len)
                return TM_OK;
            p->has &= ~(unsigned)P_MEM;
        } else if (is_event(r->type) && !(p->has & P_EV)) {
            pend_ev(p, r);
            return TM_OK;
        }
        pend_general(t);
    }
    if (t->nrec == MAX_GROUP)
        return TM_ERR_ARG;
    gen_put(t, r);
    return TM_OK;
}

int tm_timing_put_group(tm_timing *t, const tmc_group *g, uint64_t mpc)
{
    if (t->failed)
        return TM_ERR_IO;
    if (g->tid >= t->nthreads || (g->ev && !is_event(g->ev->type)) || (g->mem && g->msize > TMC_MAX_OPERAND))
        return TM_ERR_ARG;
    if (!g->count && !g->mem && !g->ev)
        return TM_OK;
    int rc = open_for(t, g->tid, g->cycle);
    if (rc != TM_OK)
        return rc;
    pend *p = &t->p;
    if (t->gen) { /* joins a general group: its words */
        if (g->count) {
            if (t->nrec == MAX_GROUP)
                return TM_ERR_ARG;
            gen_run(t, g->pc, g->count, g->bytes);
        }
        if (g->mem) {
            if (t->nrec == MAX_GROUP)
                return TM_ERR_ARG;
            gen_mem(t, g->mflags, g->msize, g->maddr, mpc, g->mvalue);
        }
        return g->ev ? tm_timing_put(t, g->ev) : TM_OK;
    }
    if (p->has) { /* joins records: as records */
        tmc_record r;
        memset(&r, 0, sizeof r);
        r.tid = g->tid;
        r.cycle = g->cycle;
        if (g->count) {
            r.type = TMC_RUN;
            r.pc = g->pc;
            r.count = g->count;
            r.bytes = g->bytes;
            if ((rc = tm_timing_put(t, &r)) != TM_OK)
                return rc;
        }
        if (g->mem) {
            memset(&r, 0, sizeof r);
            r.tid = g->tid;
            r.cycle = g->cycle;
            r.type = TMC_MEM;
            r.flags = g->mflags;
            r.size = g->msize;
            r.addr = g->maddr;
            r.pc = mpc;
            memcpy(r.value, g->mvalue, g->msize);
            if ((rc = tm_timing_put(t, &r)) != TM_OK)
                return rc;
        }
        return g->ev ? tm_timing_put(t, g->ev) : TM_OK;
    }
    if (g->count) {
        p->has = P_RUN;
        p->pc = g->pc;
        p->count = g->count;
        p->bytes = g->bytes;
    }
    if (g->mem) {
        p->has |= P_MEM;
        p->mflags = g->mflags;
        p->msize = g->msize;
        p->maddr = g->maddr;
        p->mpc = mpc;
        memcpy(p->mval, g->mvalue, g->msize);
        if (g->msize < sizeof p->mval)
            memset((uint8_t *)p->mval + g->msize, 0, sizeof p->mval - g->msize);
    }
    if (g->ev)
        pend_ev(p, g->ev);
    return TM_OK;
}

int tm_timing_end(tm_timing *t)
{
    if (t->failed)
        return TM_ERR_IO;
    int rc = close_group(t);
    if (rc == TM_OK && t->held && (t->need || t->held > t->cfg.window))
        rc = drain(t, 0);
    return rc;
}

/* Whether G, whole, takes the short way of tm_timing_put_whole: no MEM, and
 * what the compact entry keeps of its RUN and event is all of them. */
static int whole_short(const tm_timing *t, const tmc_group *g)
{
    const tmc_record *e = g->ev;
    return !t->open && !g->mem && g->tid < t->nthreads && (g->count | g->bytes) >> 32 == 0 &&
           (!e || (is_event(e->type) && (e->flags & 0xffff) <= 0xff && !e->size && !e->count)) && (g->count || e);
}

int tm_timing_put_whole(tm_timing *t, const tmc_group *g, uint64_t mpc)
{
    if (t->failed)
        return TM_ERR_IO;
    if (!whole_short(t, g)) {
        int rc = tm_timing_put_group(t, g, mpc);
        return rc == TM_OK ? tm_timing_end(t) : rc;
    }
    /* what open_for, tm_timing_put_group and close_group do with it, in
     * short: a group of a RUN? and an event?, stamped, then handed on at
     * once or queued */
    uint32_t tid = g->tid;
    tthread *th = &t->th[tid];
    const tmc_record *e = g->ev;
    if (!th->live) {
        th->live = 1;
        rekey(t, tid);
    }
    if (tid >= t->ntop)
        t->ntop = tid + 1;
    int br = e && e->type == TMC_BRANCH;
    uint64_t n = g->count + br, c;
    uint64_t fetch = fetch_group(t, tid, g->pc, g->count ? g->bytes : 0, br ? e->pc : 0, br ? e->len : 0);
    if (stamp(t, tid, n, th->acc + n * t->cfg.cpi_milli + fetch, th->next, &c) != TM_OK)
        return TM_ERR_ARG;
    if (e && e->type == TMC_EXIT)
        th->done = 1;
    tqueue *q = &th->q;
    int need;
    if (q->groups == 0 && KEY(c, tid) < bar_of(t, tid)) {
        at_once(t, tid, c);
        tmc_group o = *g;
        o.cycle = c;
        if (e)
            o.ev = out_ev(t, tid, c, e->type, e->flags, e->bclass, e->taken, e->len, e->pc, e->target);
        if (emit_g(t, &o, 0))
            return stopped(t);
        need = at_once_keys(t, tid);
    } else {
        int was_empty = q->groups == 0;
        uint64_t d = c - q->tc;
        size_t k;
        uint64_t *w;
        if (g->count && g->count < 0x10000 && g->bytes < 0x10000 && d < 0x40000000 &&
            (!e || (e->type == TMC_BRANCH && !e->flags && e->pc == g->pc + g->bytes && e->target >> 48 == 0 &&
                    e->bclass < 8 && e->len < 16))) { /* the short entry */
            k = e ? 3 : 2;
            if (!(w = q_room(t, q, k)))
                return TM_ERR_NOMEM;
            w[0] = SHORT | (e ? SHORT_BR : 0) | d << 32 | g->count << 16 | g->bytes;
            w[1] = g->pc;
            if (e)
                w[2] = e->target | (uint64_t)e->bclass << 48 | (uint64_t)(e->taken & 1) << 51 | (uint64_t)e->len << 52;
        } else { /* the compact one */
            if (!(w = q_room(t, q, e ? 6 : 4)))
                return TM_ERR_NOMEM;
            unsigned has = (g->count ? P_RUN : 0) | (e ? P_EV : 0);
            w[0] = c;
            w[1] = e ? compact_hdr(has, e->type, e->bclass, e->taken, e->len, 0, 0, e->flags) : has;
            k = 2;
            if (g->count) {
                w[2] = g->pc;
                w[3] = g->count | g->bytes << 32;
                k = 4;
            }
            if (e) {
                w[k++] = e->pc;
                w[k++] = e->target;
            }
        }
        q_push(t, tid, k, c);
        need = was_empty && may_go(t, tid, 0);
    }
    return t->held && (need || t->held > t->cfg.window) ? drain(t, 0) : TM_OK;
}

uint64_t tm_timing_clock(const tm_timing *t, uint32_t tid)
{
    if (tid >= t->nthreads)
        return 0;
    uint64_t acc = t->th[tid].acc + t->th[tid].dlat;
    if (t->open && t->otid == tid)
        acc += open_insns(t) * t->cfg.cpi_milli;
    return acc / MILLI;
}

void tm_timing_start_at(tm_timing *t, uint32_t tid, uint64_t at)
{
    if (tid >= t->nthreads)
        return;
    tthread *th = &t->th[tid];
    if (th->acc < at * MILLI)
        th->acc = at * MILLI;
}

int tm_timing_syscall(tm_timing *t, uint32_t tid, int leave)
{
    if (t->failed)
        return TM_ERR_IO;
    if (tid >= t->nthreads)
        return TM_ERR_ARG;
    tthread *th = &t->th[tid];
    int rc = TM_OK;
    if (!leave) {
        if (t->open && t->otid == tid) {
            rc = close_group(t);
            if (rc == TM_OK && t->need)
                rc = drain(t, 0);
        }
        th->in_sys = 1;
        th->sys_seq = t->closed;
        rekey(t, tid);
        return rc == TM_OK ? drain(t, 0) : rc;
    }
    if (th->in_sys && t->closed > th->sys_seq && t->last_closer != tid) {
        t->st.blocked++;
        tm_timing_start_at(t, tid, t->th[t->last_closer].next);
    }
    th->in_sys = 0;
    rekey(t, tid);
    return TM_OK;
}

int tm_timing_finish(tm_timing *t)
{
    if (t->failed)
        return TM_ERR_IO;
    int rc = close_group(t);
    return rc != TM_OK ? rc : drain(t, 1);
}

void tm_timing_get_stats(const tm_timing *t, tm_timing_stats *s) { *s = t->st; }

void tm_timing_thread(const tm_timing *t, uint32_t tid, uint64_t *cycles, uint64_t *insns)
{
    *cycles = tid < t->nthreads ? t->th[tid].next : 0;
    *insns = tid < t->nthreads ? t->th[tid].insns : 0;
}
