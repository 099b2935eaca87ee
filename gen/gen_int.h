/* tm — synthetic stream generator: private declarations shared by the gen/ sources.
 *
 * gen/prog.c builds a static program image from the seed (functions made of
 * segments: straight-line plain instructions ending in one control transfer),
 * gen/mem.c is the sparse memory that makes load values consistent with the
 * stores before them, and gen/gen.c executes the program with N threads and
 * writes the commit stream. */
#ifndef TM_GEN_INT_H
#define TM_GEN_INT_H

#include <stddef.h>
#include <stdint.h>

/* ---- pseudo-random numbers: splitmix64 seeds xoshiro256** streams ---- */

static inline uint64_t gen_splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A 64-bit mixing function (the splitmix64 finalizer) for hashing. */
static inline uint64_t gen_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

typedef struct gen_rng {
    uint64_t s[4];
} gen_rng;

static inline void gen_rng_seed(gen_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = gen_splitmix(&x);
}

static inline uint64_t gen_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t gen_rng_next(gen_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = gen_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = gen_rotl(s[3], 45);
    return out;
}

/* Uniform in 0 .. n-1 (n >= 1; multiply-shift, bias below 2^-32). */
static inline uint32_t gen_below(gen_rng *r, uint32_t n)
{
    return (uint32_t)(((gen_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in lo .. hi inclusive. */
static inline uint32_t gen_range(gen_rng *r, uint32_t lo, uint32_t hi)
{
    return lo + gen_below(r, hi - lo + 1);
}

/* True with probability p / 2^32 (p may be 2^32 = always). */
static inline int gen_chance(gen_rng *r, uint64_t p)
{
    return (gen_rng_next(r) >> 32) < p;
}

/* ---- the static program ---- */

#define GEN_MAXNEST 3  /* loop nesting per function = loop counter slots per frame */

/* Behaviour of a segment's control transfer. */
enum gen_beh {
    GB_IF_BIAS,    /* cond: taken with probability arg / 2^32 */
    GB_IF_PATTERN, /* cond: taken = bit (i mod arg2) of arg, i = iteration of loop slot */
    GB_IF_HIST,    /* cond: taken = bit h of arg, h = the thread's last arg2 cond outcomes */
    GB_LOOP,       /* cond back edge: loop slot arg, fixed trip count arg2 */
    GB_LOOP_RAND,  /* cond back edge: loop slot arg, trip count 1..arg2 per entry */
    GB_REC_BASE,   /* cond: taken (to the base case) when the frame's depth is 0 */
    GB_JUMP,       /* jump: direct */
    GB_CALL,       /* call: direct to function arg */
    GB_ICALL,      /* icall: through function table arg */
    GB_SWITCH,     /* ijump: through case table arg */
    GB_RET,        /* ret: to the caller's return address */
    GB_RESUME      /* ijump: end of an exception handler, back to the interrupted pc */
};

/* Target selection of an indirect branch's table. */
enum gen_pick {
    GP_PATH,   /* a function of the thread's previous indirect branch pc, which
                  the iBTB's path register holds: learnable */
    GP_HOT,    /* entry 0 31 times in 32, else uniform */
    GP_RAND    /* uniform */
};

/* Memory operand address patterns. */
enum gen_mkind {
    MK_STACK,    /* in the current frame's 64-byte stack area */
    MK_LOOP,     /* array[i * stride], i = the innermost loop's counter */
    MK_STREAM,   /* array[k++ * stride], k a per-thread counter of the operand */
    MK_RAND,     /* array[random * stride] */
    MK_PROD,     /* store to the next slot of a shared ring buffer */
    MK_CONS      /* load from the oldest slot of a shared ring buffer */
};

/* Kinds of stored values (compressible like real data, mostly). */
enum gen_vkind {
    VK_SMALL,   /* each 8 bytes: a small integer 0..255 */
    VK_PTR,     /* each 8 bytes: an address in the thread's private data */
    VK_DOUBLE,  /* each 8 bytes: a double with a short mantissa */
    VK_RAND     /* random bytes */
};

typedef struct gen_pos {
    uint32_t seg, idx;   /* instruction idx (0 .. nplain) of segment seg */
} gen_pos;

typedef struct gen_mtpl {
    uint8_t insn;    /* index of the plain instruction in its segment */
    uint8_t store;
    uint8_t size;    /* 1 .. 64 */
    uint8_t kind;    /* gen_mkind */
    uint8_t shared;  /* MK_LOOP/STREAM/RAND: shared array (else private) */
    uint8_t loop;    /* MK_LOOP: loop slot */
    uint8_t ring;    /* MK_PROD/CONS: ring number */
    uint8_t vkind;   /* stores: gen_vkind */
    uint32_t off;    /* MK_STACK: offset in the area; arrays: misalignment */
    uint32_t stride;
    uint32_t base;   /* array offset in its region */
    uint32_t mask;   /* array length - 1 (a power of two) */
    uint32_t slot;   /* MK_STREAM: per-thread counter */
} gen_mtpl;

typedef struct gen_seg {
    uint64_t pc;      /* address of instruction 0 */
    uint64_t tpc;     /* direct target address (cond, jump, call) */
    uint32_t ioff;    /* prog.off[ioff + i] = byte offset of instruction i, i <= nplain */
    uint32_t mem0;    /* memory operands: prog.mem[mem0 .. mem0 + nmem), by insn,
                         at most one per instruction */
    uint32_t nmem;
    gen_pos tgt;      /* direct target */
    uint32_t arg, arg2;
    uint32_t slot;    /* GB_IF_PATTERN: loop slot */
    uint32_t func;
    uint16_t nplain;
    uint8_t bclass;   /* tmc_bclass */
    uint8_t blen;
    uint8_t beh;      /* gen_beh */
} gen_seg;

typedef struct gen_table {
    uint32_t first, n;  /* prog.tab[first .. first + n) */
    uint32_t pick;      /* gen_pick */
} gen_table;

typedef struct gen_tent {
    gen_pos pos;
    uint64_t pc;
    uint32_t func;      /* icall tables: the callee */
} gen_tent;

enum gen_fkind { GF_NORMAL, GF_REC, GF_HANDLER, GF_DRIVER };

typedef struct gen_func {
    uint32_t seg0, nseg;  /* segments seg0 .. seg0 + nseg - 1, laid out in order */
    uint32_t level;       /* calls go only to higher levels (no cycles but self-recursion) */
    uint32_t kind;        /* gen_fkind */
    uint64_t cost;        /* estimated instructions per call */
} gen_func;

typedef struct gen_prog {
    gen_seg *seg;
    uint32_t nseg;
    uint16_t *off;
    uint32_t noff;
    gen_mtpl *mem;
    uint32_t nmem;
    gen_table *table;
    uint32_t ntable;
    gen_tent *tab;
    uint32_t ntab;
    gen_func *func;
    uint32_t nfunc;
    uint32_t *driver;     /* thread t starts in function driver[t % ndriver] */
    uint32_t ndriver;
    uint32_t *handler;    /* exception handlers */
    uint32_t nhandler;
    uint32_t nmslot;      /* per-thread uint32 stream counters */
} gen_prog;

/* Builds the program for SEED.  PREDICTABILITY (0..1) is the share of
 * branches with learnable behaviour; RECURSION bounds recursive depth (only
 * used for cost estimates here).  Returns 0 or TM_ERR_NOMEM. */
int gen_prog_build(gen_prog *p, uint64_t seed, double predictability, uint32_t recursion);
void gen_prog_free(gen_prog *p);

static inline uint64_t gen_pos_pc(const gen_prog *p, gen_pos q)
{
    const gen_seg *s = &p->seg[q.seg];
    return s->pc + p->off[s->ioff + q.idx];
}

/* ---- address map of the data ---- */
#define GEN_SHARED_BASE 0x08000000ULL  /* shared arrays, GEN_SHARED_SIZE bytes */
#define GEN_SHARED_SIZE 0x40000u
#define GEN_RING_BASE 0x0C000000ULL    /* rings, GEN_RING_SLOTS x 16 bytes each */
#define GEN_RING_SLOTS 256u
#define GEN_NRING 4u                   /* rings */
#define GEN_PRIV_BASE 0x10000000ULL    /* thread t: + t * GEN_PRIV_STRIDE */
#define GEN_PRIV_STRIDE 0x100000ULL
#define GEN_PRIV_SIZE 0x10000u
#define GEN_STACK_TOP 0x7FFF00000000ULL /* thread t: - t * GEN_STACK_STRIDE */
#define GEN_STACK_STRIDE 0x1000000ULL
#define GEN_FRAME 64u                  /* stack bytes per frame */
#define GEN_RET_SLOT 56u               /* return address offset in the caller's area */

/* ---- sparse memory: 4 KiB pages in an open-addressing hash table ---- */
typedef struct gen_mem {
    uint64_t *key;     /* page number + 1 (0 = empty) */
    uint8_t **page;
    size_t cap, n;     /* cap: power of two */
    uint64_t seed;     /* initial contents pattern */
    uint64_t last_key; /* one-entry cache */
    uint8_t *last_page;
} gen_mem;

int gen_mem_init(gen_mem *m, uint64_t seed);
void gen_mem_free(gen_mem *m);
/* Copy SIZE bytes at ADDR out of / into memory.  Untouched memory reads as a
 * deterministic pattern of the address.  Return 0 or TM_ERR_NOMEM. */
int gen_mem_read(gen_mem *m, uint64_t addr, unsigned size, uint8_t *out);
int gen_mem_write(gen_mem *m, uint64_t addr, unsigned size, const uint8_t *in);

#endif
