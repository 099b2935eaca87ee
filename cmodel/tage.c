/* tm — TAGE-class conditional-branch predictor (docs/spec.md §3.3.1),
 * mirrored by rtl/tm_tage.sv.  The configuration checks and the storage
 * accounting of both TAGE-class predictors live here too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "tm/tage.h"
#include "hist_int.h"
#include "ittage_int.h"
#include "tage_int.h"

int tm_tage_cfg_check(const tm_tage_cfg *c, const char *opt, char *err, size_t errlen)
{
    if (c->base == 0)
        return TM_OK;
    const char *what = NULL;
    unsigned v = 0;
    if (!tm_is_pow2(c->base) || c->base < 2 || c->base > 16384)
        what = "base entries", v = c->base;
    else if (c->tables < 1 || c->tables > TM_TAGE_TABLES_MAX)
        what = "tables", v = c->tables;
    else if (!tm_is_pow2(c->entries) || c->entries < 2 || c->entries > 4096)
        what = "entries", v = c->entries;
    else if (c->tag < 4 || c->tag > 16)
        what = "tag bits", v = c->tag;
    else if (c->lmin < 1 || c->lmin > c->lmax || c->lmax > TM_HIST_MAX)
        what = "history", v = c->lmin;
    if (!what)
        return TM_OK;
    if (err) {
        if (!strcmp(what, "history"))
            snprintf(err, errlen, "%s-hist %u:%u: allowed 1 <= min <= max <= %u", opt, c->lmin, c->lmax,
                     TM_HIST_MAX);
        else if (!strcmp(what, "base entries"))
            snprintf(err, errlen, "%s %u: allowed 0 or a power of two from 2 to 16384", opt, v);
        else if (!strcmp(what, "tables"))
            snprintf(err, errlen, "%s-tables %u: allowed 1 to %u", opt, v, TM_TAGE_TABLES_MAX);
        else if (!strcmp(what, "entries"))
            snprintf(err, errlen, "%s-entries %u: allowed a power of two from 2 to 4096", opt, v);
        else
            snprintf(err, errlen, "%s-tag %u: allowed 4 to 16", opt, v);
    }
    return TM_ERR_ARG;
}

unsigned tm_tage_hist_len(const tm_tage_cfg *c, unsigned i)
{
    return hist_len(i, c->tables, c->lmin, c->lmax);
}

/* History, folded registers: common to both predictors. */
static uint64_t hist_bits(const tm_tage_cfg *c)
{
    unsigned e = tm_log2u(c->entries);
    return c->lmax + (uint64_t)c->tables * (e + c->tag + c->tag - 1u);
}

uint64_t tm_tage_bits(const tm_tage_cfg *c)
{
    if (!c->base)
        return 0;
    /* base: 2-bit counters; tagged: valid, 3-bit ctr, tag, 2-bit u; USE_ALT 4 */
    return 2ull * c->base + (uint64_t)c->tables * c->entries * (1u + 3u + c->tag + 2u) + hist_bits(c) + 4u;
}

/* An entry: KEY = valid << 16 | tag (an invalid entry's tag is 0: entries
 * become valid at allocation and stay so until reset), so that a hit is
 * one comparison with TAG | 1 << 16. */
typedef struct tage_ent {
    uint32_t key;
    uint8_t ctr, u;
} tage_ent;

#define KEY_VALID 0x10000u

/* What a lookup decides (tm_tage_lookup without the indices and tags, which
 * the update recomputes only when it allocates). */
typedef struct tage_pick {
    unsigned prov, alt;
    tage_ent *pe, *ae; /* the provider's and alt's entries (NULL: base) */
    uint32_t bidx;     /* base index */
    int pred, provpred, altpred, used_alt;
} tage_pick;

struct tm_tage {
    tage_head head; /* first: tage_int.h's tage_step and tage_follow call through it */
    tm_tage_cfg cfg;
    uint32_t ebits, bbits;
    uint8_t *base;          /* 2-bit counters */
    tage_ent *t;            /* [(i - 1) * entries + idx] */
    tm_ghist g;
    tm_fold fold[3 * TM_TAGE_TABLES_MAX]; /* per table: index, tag, tag' */
    /* The same folds packed (when they fit, swar = 1), one 64-bit word per
     * kind k (0 index, 1 tag, 2 tag'): table i (0-based) in bits [i S_k,
     * i S_k + W_k) of sw[k], W_0 = ebits, W_1 = W, W_2 = W - 1, strides
     * S_0 = W_0 + 1 and S_1 = S_2 = W + 1 (the tag and tag' fields side by
     * side, so that the T tags are one XOR of the two words), the bits above
     * each field kept 0.  One push then updates the T folds of a kind with a
     * few word operations (sw_push) instead of T per-bit updates; ghist_push's
     * arithmetic per field is unchanged.  A lookup forms all T indices and
     * all T tags in one word each (tm_tage_lookup_pc). */
    int swar;
    uint64_t sw[3];
    uint64_t sw_ones[3];  /* bit 0 of every field */
    uint64_t sw_guard[3]; /* the bit above every field (bit W_k) */
    uint32_t sw_w[3], sw_s[3];
    /* The bits leaving the T histories, gathered a byte of the history at a
     * time: O = OR over j < sw_nby of sw_gat[j][byte sw_by[j] of g] */
    unsigned sw_nby;
    uint8_t sw_by[TM_TAGE_TABLES_MAX];
    uint8_t sw_gat[TM_TAGE_TABLES_MAX][256];
    /* sw_out[k][O]: for the bits O (bit i: the bit leaving table i's
     * history), each at its field's position L_i % W_k in word k */
    uint64_t sw_out[3][1u << TM_TAGE_TABLES_MAX];
    /* With BMI2 (sw_bmi2): the same with PEXT and PDEP, no table in the
     * chain from one push to the next lookup: O = the bits of g.h[0] at
     * sw_xm[0] then those of g.h[1] at sw_xm[1] (the ages L_i - 1, in
     * table order: the ages rise with i, and must differ), sw_out[k][O] =
 * PDEP(O, sw_dm[k])
     * (the positions L_i % W_k + i S_k rise with i too). */
    int sw_bmi2, sw_pext_ok; /* ok: the lengths L_i are distinct */
    int sw_no_bmi2;          /* tm_tage_use_bmi2(p, 0) (tage_int.h) */
    uint64_t sw_xm[2], sw_dm[3];
    unsigned sw_xn0;        /* bits of sw_xm[0] */
    uint32_t use_alt;       /* 4 bits */
    tm_tage_counts counts;
    tage_pick kept;         /* the lookup of *_predict_keep for KEPT_PC */
    uint64_t kept_pc;
    int kept_ok;
};

static int tage_has_bmi2(void);

/* Bit 0 of each of T fields of STRIDE bits (sw_ones: a constant where T and
 * STRIDE are). */
static inline uint64_t field_ones(unsigned t, unsigned stride)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < t; i++)
        v |= 1ull << (i * stride);
    return v;
}
static void select_fns(tm_tage *p);
static void reset_state(tm_tage *p);

int tm_tage_new(const tm_tage_cfg *c, tm_tage **out)
{
    *out = NULL;
    if (!c->base || tm_tage_cfg_check(c, "--tage", NULL, 0) != TM_OK)
        return TM_ERR_ARG;
    tm_tage *p = calloc(1, sizeof *p);
    if (!p)
        return TM_ERR_NOMEM;
    p->cfg = *c;
    p->ebits = tm_log2u(c->entries);
    p->bbits = tm_log2u(c->base);
    p->base = malloc(c->base);
    p->t = malloc((size_t)c->tables * c->entries * sizeof *p->t);
    if (!p->base || !p->t) {
        tm_tage_free(p);
        return TM_ERR_NOMEM;
    }
    tm_tage_reset(p);
    *out = p;
    return TM_OK;
}

void tm_tage_free(tm_tage *p)
{
    if (!p)
        return;
    free(p->base);
    free(p->t);
    free(p);
}

void tm_tage_reset(tm_tage *p)
{
    reset_state(p);
    select_fns(p);
}

static void reset_state(tm_tage *p)
{
    const tm_tage_cfg *c = &p->cfg;
    memset(p->base, 1, c->base); /* weakly not-taken */
    memset(p->t, 0, (size_t)c->tables * c->entries * sizeof *p->t);
    p->kept_ok = 0;
    hist_reset(&p->g, p->fold, c->tables, p->ebits, c->tag, c->lmin, c->lmax);
    p->use_alt = 8;
    const uint32_t w[3] = {p->ebits, c->tag, c->tag - 1u};
    const uint32_t st[3] = {p->ebits + 1u, c->tag + 1u, c->tag + 1u};
    p->swar = 1;
    for (unsigned k = 0; k < 3; k++) {
        p->sw[k] = p->sw_ones[k] = p->sw_guard[k] = p->sw_dm[k] = 0;
        p->sw_w[k] = w[k];
        p->sw_s[k] = st[k];
        if (c->tables * st[k] > 64u)
            p->swar = 0;
    }
    if (!p->swar)
        return;
    uint8_t outpos[3][TM_TAGE_TABLES_MAX];
    p->sw_nby = 0;
    memset(p->sw_gat, 0, sizeof p->sw_gat);
    for (unsigned i = 0; i < c->tables; i++) {
        unsigned len = p->fold[3 * i].len, age = len - 1u, j = 0;
        while (j < p->sw_nby && p->sw_by[j] != age / 8u)
            j++;
        if (j == p->sw_nby)
            p->sw_by[p->sw_nby++] = (uint8_t)(age / 8u);
        for (unsigned v = 0; v < 256; v++)
            p->sw_gat[j][v] |= (uint8_t)(((v >> (age % 8u)) & 1u) << i);
        for (unsigned k = 0; k < 3; k++) {
            p->sw_ones[k] |= 1ull << (i * st[k]);
            p->sw_guard[k] |= 1ull << (i * st[k] + w[k]);
            outpos[k][i] = (uint8_t)(i * st[k] + len % w[k]);
        }
    }
    p->sw_xm[0] = p->sw_xm[1] = 0;
    int distinct = 1; /* two tables of one length would need one history bit twice in O */
    for (unsigned i = 0; i < c->tables; i++) {
        unsigned age = p->fold[3 * i].len - 1u;
        if (p->sw_xm[age >> 6] >> (age & 63u) & 1u)
            distinct = 0;
        p->sw_xm[age >> 6] |= 1ull << (age & 63u);
        for (unsigned k = 0; k < 3; k++)
            p->sw_dm[k] |= 1ull << outpos[k][i];
    }
    p->sw_xn0 = (unsigned)__builtin_popcountll(p->sw_xm[0]);
    p->sw_pext_ok = distinct;
    p->sw_bmi2 = distinct && !p->sw_no_bmi2 && tage_has_bmi2();
    for (unsigned o = 0; o < (1u << c->tables); o++)
        for (unsigned k = 0; k < 3; k++) {
            uint64_t v = 0;
            for (unsigned i = 0; i < c->tables; i++)
                v |= (uint64_t)((o >> i) & 1u) << outpos[k][i];
            p->sw_out[k][o] = v;
        }
}

/* ghist_push on the packed folds: per field exactly ghist_push's
 * v = ((v << 1) | b) ^ (o << out); v = (v ^ (v >> W)) & mask, done for all
 * fields of a word at once: the shift moves each field's top bit into its
 * guard (and the zero guard below into bit 0 of the next field), b goes
 * into every bit 0, o_i into bit out_i of field i, and the guard bit G
 * (bit W of the field) is cleared and XORed into bit 0 (G >> W). */
static void sw_push(tm_tage *p, unsigned b)
{
    unsigned o = 0;
    for (unsigned j = 0; j < p->sw_nby; j++) {
        unsigned by = p->sw_by[j];
        o |= p->sw_gat[j][(p->g.h[by >> 3] >> ((by & 7u) * 8u)) & 0xffu];
    }
    uint64_t bm = 0 - (uint64_t)b;
    for (unsigned k = 0; k < 3; k++) {
        uint64_t v = ((p->sw[k] << 1) | (bm & p->sw_ones[k])) ^ p->sw_out[k][o];
        uint64_t g = v & p->sw_guard[k];
        p->sw[k] = v ^ g ^ (g >> p->sw_w[k]);
    }
    ghist_push(&p->g, b, p->fold, 0); /* the history only */
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
static int tage_has_bmi2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2");
}

/* sw_push with PEXT and PDEP (sw_bmi2): the same words; the shape T, EB, TG
 * as pick_s (constants or 0: P's). */
__attribute__((target("bmi2"))) static inline void sw_push_bmi2_s(tm_tage *p, unsigned b, unsigned T, unsigned EB, unsigned TG)
{
    uint64_t o = _pext_u64(p->g.h[0], p->sw_xm[0]) | _pext_u64(p->g.h[1], p->sw_xm[1]) << p->sw_xn0;
    uint64_t bm = 0 - (uint64_t)b;
    const unsigned w[3] = {EB, TG, TG - 1u}, st[3] = {EB + 1u, TG + 1u, TG + 1u};
#pragma GCC unroll 3
    for (unsigned k = 0; k < 3; k++) {
        uint64_t ones = T ? field_ones(T, st[k]) : p->sw_ones[k];
        uint64_t v = ((p->sw[k] << 1) | (bm & ones)) ^ _pdep_u64(o, p->sw_dm[k]);
        uint64_t g = v & (T ? ones << w[k] : p->sw_guard[k]);
        p->sw[k] = v ^ g ^ (g >> (EB ? w[k] : p->sw_w[k]));
    }
    ghist_push(&p->g, b, p->fold, 0);
}
__attribute__((target("bmi2"))) static inline void sw_push_bmi2(tm_tage *p, unsigned b)
{
    sw_push_bmi2_s(p, b, 0, 0, 0);
}
#else
static int tage_has_bmi2(void) { return 0; }
static void sw_push_bmi2(tm_tage *p, unsigned b) { sw_push(p, b); }
#endif

int tm_tage_use_bmi2(tm_tage *p, int on)
{
    p->sw_no_bmi2 = !on;
    p->sw_bmi2 = on && p->swar && p->sw_pext_ok && tage_has_bmi2();
    select_fns(p);
    return p->sw_bmi2;
}

static void push(tm_tage *p, unsigned b)
{
    if (p->swar && p->sw_bmi2)
        sw_push_bmi2(p, b);
    else if (p->swar)
        sw_push(p, b);
    else
        ghist_push(&p->g, b, p->fold, 3 * p->cfg.tables);
}

/* Index and tag of tables 1..T for PC (INDEX[i], TAG[i]; [0] untouched). */
static void slots(const tm_tage *p, uint64_t pc, uint32_t *index, uint32_t *tag)
{
    const tm_tage_cfg *c = &p->cfg;
    if (!p->swar) {
        for (unsigned i = 1; i <= c->tables; i++)
            hist_slot(p->fold, i, pc, p->ebits, c->tag, &index[i], &tag[i]);
        return;
    }
    /* hist_slot_v for all tables at once: the fields of IW are the indices,
     * those of TW the tags (no carries: the fields are only XORed) */
    const uint32_t emask = (1u << p->ebits) - 1u, wmask = (1u << c->tag) - 1u;
    uint64_t iw = p->sw[0] ^ (((pc ^ (pc >> p->ebits)) & emask) * p->sw_ones[0]);
    uint64_t tw = p->sw[1] ^ (p->sw[2] << 1) ^ (((pc >> 1) & wmask) * p->sw_ones[1]);
    for (unsigned i = 1; i <= c->tables; i++, iw >>= p->sw_s[0], tw >>= p->sw_s[1]) {
        index[i] = (uint32_t)iw & emask;
        tag[i] = (uint32_t)tw & wmask;
    }
}

/* The lookup of PC; T tables of 2^EB entries with TG-bit tags where those
 * are not 0 (constants, in the variants of predict_update_s), else P's. */
static inline __attribute__((always_inline)) void pick_s(const tm_tage *p, uint64_t pc, tage_pick *k, unsigned T,
                                                         unsigned EB, unsigned TG)
{
    const tm_tage_cfg *c = &p->cfg;
    const unsigned tables = T ? T : c->tables, ebits = EB ? EB : p->ebits, tagw = TG ? TG : c->tag;
    const unsigned entries = EB ? 1u << EB : c->entries;
    unsigned prov = 0, alt = 0; /* in registers, stored once at the end */
    tage_ent *te = p->t, *pe = NULL, *ae = NULL;
    /* a match moves the provider to alt (written as conditional moves, which
     * the compiler turns into a branch: measured faster than masks, most
     * lookups going the same way) */
#define TAGE_HIT(I, INDEX, TAG)                                                                                      \
    do {                                                                                                             \
        tage_ent *e_ = &te[INDEX];                                                                                   \
        unsigned hit_ = e_->key == ((TAG) | KEY_VALID);                                                              \
        alt = hit_ ? prov : alt;                                                                                     \
        ae = hit_ ? pe : ae;                                                                                         \
        prov = hit_ ? (I) : prov;                                                                                    \
        pe = hit_ ? e_ : pe;                                                                                         \
    } while (0)
    if (T || p->swar) { /* (a constant shape T, EB, TG only where packed: select_fns) */
        const uint32_t emask = (1u << ebits) - 1u, wmask = (1u << tagw) - 1u;
        uint64_t ones0 = T ? field_ones(T, EB + 1u) : p->sw_ones[0], ones1 = T ? field_ones(T, TG + 1u) : p->sw_ones[1];
        uint64_t iw = p->sw[0] ^ (((pc ^ (pc >> ebits)) & emask) * ones0);
        uint64_t tw = p->sw[1] ^ (p->sw[2] << 1) ^ (((pc >> 1) & wmask) * ones1);
        unsigned si = EB ? EB + 1u : p->sw_s[0], stg = TG ? TG + 1u : p->sw_s[1];
#pragma GCC unroll 8
        for (unsigned i = 1; i <= tables; i++, te += entries, iw >>= si, tw >>= stg)
            TAGE_HIT(i, (uint32_t)iw & emask, (uint32_t)tw & wmask);
    } else {
        for (unsigned i = 1; i <= c->tables; i++, te += c->entries) {
            uint32_t index, tag;
            hist_slot(p->fold, i, pc, p->ebits, c->tag, &index, &tag);
            TAGE_HIT(i, index, tag);
        }
    }
#undef TAGE_HIT
    k->prov = prov;
    k->alt = alt;
    k->pe = pe;
    k->ae = ae;
    k->bidx = (uint32_t)((pc ^ (pc >> p->bbits)) & (c->base - 1u));
    int basepred = p->base[k->bidx] >= 2;
    if (!pe) {
        k->provpred = k->altpred = k->pred = basepred;
        k->used_alt = 0;
        return;
    }
    k->provpred = pe->ctr >= 4;
    k->altpred = ae ? ae->ctr >= 4 : basepred;
    k->used_alt = (pe->ctr == 3 || pe->ctr == 4) && pe->u == 0 && p->use_alt >= 8;
    k->pred = k->used_alt ? k->altpred : k->provpred;
}

static inline __attribute__((always_inline)) void pick(const tm_tage *p, uint64_t pc, tage_pick *k)
{
    pick_s(p, pc, k, 0, 0, 0);
}

void tm_tage_lookup_pc(const tm_tage *p, uint64_t pc, tm_tage_lookup *l)
{
    tage_pick k;
    pick(p, pc, &k);
    l->index[0] = k.bidx;
    l->tag[0] = 0;
    slots(p, pc, l->index, l->tag);
    l->provider = k.prov;
    l->alt = k.alt;
    l->pred = k.pred;
    l->provpred = k.provpred;
    l->altpred = k.altpred;
    l->used_alt = k.used_alt;
}

int tm_tage_predict(const tm_tage *p, uint64_t pc)
{
    tage_pick k;
    pick(p, pc, &k);
    return k.pred;
}

int tm_tage_predict_keep(tm_tage *p, uint64_t pc)
{
    pick(p, pc, &p->kept);
    p->kept_pc = pc;
    p->kept_ok = 1;
    return p->kept.pred;
}

/* The allocation after a misprediction by PROV's table (cold: out of
 * line, so that the common path keeps a small frame). */
static __attribute__((noinline, cold)) void allocate(tm_tage *p, uint64_t pc, unsigned prov, unsigned t)
{
    const tm_tage_cfg *c = &p->cfg;
    const unsigned tables = c->tables, entries = c->entries;
    /* the history is unchanged since the lookup: the same slots */
    uint32_t index[TM_TAGE_TABLES_MAX + 1], tag[TM_TAGE_TABLES_MAX + 1];
    slots(p, pc, index, tag);
    unsigned j;
    for (j = prov + 1; j <= tables; j++) {
        tage_ent *e = &p->t[(size_t)(j - 1) * entries + index[j]];
        if (!e->key || e->u == 0) {
            p->counts.allocs[j]++;
            p->counts.replaced += e->key != 0;
            e->key = tag[j] | KEY_VALID;
            e->ctr = t ? 4 : 3;
            e->u = 0;
            break;
        }
    }
    if (j > tables) {
        p->counts.alloc_fails++;
        for (j = prov + 1; j <= tables; j++) {
            tage_ent *e = &p->t[(size_t)(j - 1) * entries + index[j]];
            if (e->u)
                e->u--;
        }
    }
}

/* The update of PC with outcome T after lookup LP (the history unchanged
 * since the lookup), but the history's push (update_with pushes T); T
 * tables if T is not 0 (a constant: predict_update_s). */
static inline __attribute__((always_inline)) void update_tables_s(tm_tage *p, uint64_t pc, const tage_pick *lp,
                                                                  unsigned t, unsigned T)
{
    const tm_tage_cfg *c = &p->cfg;
    const unsigned tables = T ? T : c->tables;
    p->counts.hits[lp->prov]++;
    p->counts.use_alt += (unsigned)lp->used_alt;
    tage_ent *pe = lp->pe;
    if (pe && (pe->ctr == 3 || pe->ctr == 4) && pe->u == 0 && lp->provpred != lp->altpred) {
        if (lp->altpred == (int)t) {
            if (p->use_alt < 15)
                p->use_alt++;
        } else if (p->use_alt > 0) {
            p->use_alt--;
        }
    }
    if (lp->pred != (int)t && lp->prov < tables)
        allocate(p, pc, lp->prov, t);
    if (pe) {
        if (t) {
            if (pe->ctr < 7)
                pe->ctr++;
        } else if (pe->ctr > 0) {
            pe->ctr--;
        }
        if (lp->provpred != lp->altpred) {
            if (lp->provpred == (int)t) {
                if (pe->u < 3)
                    pe->u++;
            } else if (pe->u > 0) {
                pe->u--;
            }
        }
    } else {
        uint8_t *b = &p->base[lp->bidx];
        if (t) {
            if (*b < 3)
                (*b)++;
        } else if (*b > 0) {
            (*b)--;
        }
    }
}

static inline __attribute__((always_inline)) void update_tables(tm_tage *p, uint64_t pc, const tage_pick *lp,
                                                                unsigned t)
{
    update_tables_s(p, pc, lp, t, 0);
}

static void update_with(tm_tage *p, uint64_t pc, const tage_pick *lp, unsigned t)
{
    update_tables(p, pc, lp, t);
    push(p, t);
}

/* tm_tage_predict_update (FOLLOW 0: X is the outcome; the prediction) and
 * tm_tage_follow (FOLLOW 1: X says the predictor missed; the outcome): one
 * lookup, the update, the push (sw_push_bmi2 if BMI2); the shape T, EB, TG
 * as pick_s. */
static inline __attribute__((always_inline)) int predict_update_s(tm_tage *p, uint64_t pc, int x, int follow,
                                                                  int bmi2, unsigned T, unsigned EB, unsigned TG)
{
    tage_pick k;
    pick_s(p, pc, &k, T, EB, TG);
    p->kept_ok = 0;
    unsigned t = follow ? (unsigned)(k.pred ^ (x != 0)) : (x ? 1u : 0u);
    update_tables_s(p, pc, &k, t, T);
    if (bmi2)
        sw_push_bmi2_s(p, t, T, EB, TG);
    else
        push(p, t);
    if (p->head.co)
        ittage_push_cond(p->head.co, t);
    return follow ? (int)t : k.pred;
}

/* The variants of predict_update that tage_head points to (select_fns):
 * without BMI2 (or the folds not packed) the general one; with BMI2 the
 * lookup, the update and the push in one function compiled for BMI2
 * (sw_push_bmi2 cannot be inlined into a caller that is not), without a
 * call between them, and for the presets' shapes (tables, index bits, tag
 * bits) one compiled with them as constants: the loops over the tables
 * unrolled, no shape read from P (with the call through tage_head, a tage-l
 * replay 1.69 -> 1.51 s, best of 5). */
#define TAGE_VARIANT(NAME, ATTR, BMI2, T, EB, TG)                                                                    \
    ATTR static int NAME##_step(tm_tage *p, uint64_t pc, int taken)                                              \
    {                                                                                                                \
        return predict_update_s(p, pc, taken, 0, BMI2, T, EB, TG);                                                   \
    }                                                                                                                \
    ATTR static int NAME##_follow(tm_tage *p, uint64_t pc, int miss)                                             \
    {                                                                                                                \
        return predict_update_s(p, pc, miss, 1, BMI2, T, EB, TG);                                                    \
    }
TAGE_VARIANT(pu_any, , 0, 0, 0, 0)
#if defined(__x86_64__) && defined(__GNUC__)
#define TAGE_BMI2_ATTR __attribute__((target("bmi2")))
TAGE_VARIANT(pu_bmi2, TAGE_BMI2_ATTR, 1, 0, 0, 0)
/* The presets' shapes (cmodel/config.c's tage-s, tage-m, tage-l): name,
 * tables, index bits, tag bits. */
#define TAGE_SHAPES(X) X(s, 2, 5, 5) X(m, 3, 5, 7) X(l, 6, 6, 9)
#define TAGE_SHAPE_VARIANT(N, T, EB, TG) TAGE_VARIANT(pu_bmi2_##N, TAGE_BMI2_ATTR, 1, T, EB, TG)
TAGE_SHAPES(TAGE_SHAPE_VARIANT)
#endif

static void select_fns(tm_tage *p)
{
    p->head.step = pu_any_step;
    p->head.follow = pu_any_follow;
#if defined(__x86_64__) && defined(__GNUC__)
    if (!p->sw_bmi2)
        return;
    p->head.step = pu_bmi2_step;
    p->head.follow = pu_bmi2_follow;
#define TAGE_SHAPE_SELECT(N, T, EB, TG)                                                                              \
    if (p->cfg.tables == (T) && p->ebits == (EB) && p->cfg.tag == (TG)) {                                            \
        p->head.step = pu_bmi2_##N##_step;                                                                           \
        p->head.follow = pu_bmi2_##N##_follow;                                                                       \
    }
    TAGE_SHAPES(TAGE_SHAPE_SELECT)
#endif
}

void tm_tage_update(tm_tage *p, uint64_t pc, int taken)
{
    tage_pick lk;
    const tage_pick *lp = &lk; /* read only: no copy of the kept one */
    if (p->kept_ok && p->kept_pc == pc)
        lp = &p->kept;
    else
        pick(p, pc, &lk);
    p->kept_ok = 0;
    update_with(p, pc, lp, taken ? 1u : 0u);
}

void tage_pair(tm_tage *p, tm_ittage *it) { p->head.co = it; }

int tm_tage_predict_update(tm_tage *p, uint64_t pc, int taken) { return tage_step(p, pc, taken); }

int tm_tage_follow(tm_tage *p, uint64_t pc, int miss) { return tage_follow(p, pc, miss); }

void tm_tage_push_indirect(tm_tage *p, uint64_t pc, uint64_t target)
{
    p->kept_ok = 0;
    unsigned h = (unsigned)(((target >> 4) ^ pc) & 3u);
    push(p, h >> 1);
    push(p, h & 1u);
}

int tm_tage_get_entry(const tm_tage *p, unsigned t, uint32_t idx, tm_tage_entry *e)
{
    memset(e, 0, sizeof *e);
    if (t == 0) {
        if (idx >= p->cfg.base)
            return 0;
        e->ctr = p->base[idx];
        e->valid = 1;
        return 1;
    }
    if (t > p->cfg.tables || idx >= p->cfg.entries)
        return 0;
    const tage_ent *x = &p->t[(size_t)(t - 1) * p->cfg.entries + idx];
    e->valid = x->key >> 16;
    e->tag = x->key & 0xffffu;
    e->ctr = x->ctr;
    e->u = x->u;
    return 1;
}

unsigned tm_tage_use_alt_ctr(const tm_tage *p) { return p->use_alt; }

void tm_tage_get_counts(const tm_tage *p, tm_tage_counts *c) { *c = p->counts; }
