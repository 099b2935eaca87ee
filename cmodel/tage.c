/* tm — TAGE-class conditional-branch predictor (docs/spec.md §3.3.1),
 * mirrored by rtl/tm_tage.sv.  The configuration checks and the storage
 * accounting of both TAGE-class predictors live here too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "tm/tage.h"
#include "hist_int.h"

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

typedef struct tage_ent {
    uint16_t tag;
    uint8_t valid, ctr, u;
} tage_ent;

struct tm_tage {
    tm_tage_cfg cfg;
    uint32_t ebits, bbits;
    uint8_t *base;          /* 2-bit counters */
    tage_ent *t;            /* [(i - 1) * entries + idx] */
    tm_ghist g;
    tm_fold fold[3 * TM_TAGE_TABLES_MAX]; /* per table: index, tag, tag' */
    /* The same folds packed (when they fit, swar = 1), one 64-bit word per
     * kind k (0 index, 1 tag, 2 tag'), all of width W_k: table i (0-based)
     * in bits [i S_k, i S_k + W_k) of sw[k], S_k = W_k + 1, the bit above
     * each field a guard kept 0.  One push then updates the T folds of a
     * kind with a few word operations (sw_push) instead of T per-bit
     * updates; ghist_push's arithmetic per field is unchanged. */
    int swar;
    uint64_t sw[3];
    uint64_t sw_ones[3];  /* bit 0 of every field */
    uint64_t sw_guard[3]; /* the guard bit of every field */
    uint32_t sw_w[3], sw_s[3], sw_mask[3];
    uint8_t sw_age[TM_TAGE_TABLES_MAX];    /* L_i - 1: age of the bit leaving */
    uint8_t sw_outpos[3][TM_TAGE_TABLES_MAX]; /* i S_k + L_i % W_k */
    uint8_t sw_sh[3][TM_TAGE_TABLES_MAX];     /* i S_k: field i of sw[k] */
    uint32_t use_alt;       /* 4 bits */
    tm_tage_counts counts;
    tm_tage_lookup kept;    /* the lookup of *_predict_keep for KEPT_PC */
    uint64_t kept_pc;
    int kept_ok;
};

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
    const tm_tage_cfg *c = &p->cfg;
    memset(p->base, 1, c->base); /* weakly not-taken */
    memset(p->t, 0, (size_t)c->tables * c->entries * sizeof *p->t);
    p->kept_ok = 0;
    hist_reset(&p->g, p->fold, c->tables, p->ebits, c->tag, c->lmin, c->lmax);
    p->use_alt = 8;
    const uint32_t w[3] = {p->ebits, c->tag, c->tag - 1u};
    p->swar = 1;
    for (unsigned k = 0; k < 3; k++) {
        p->sw[k] = p->sw_ones[k] = p->sw_guard[k] = 0;
        p->sw_w[k] = w[k];
        p->sw_s[k] = w[k] + 1u;
        p->sw_mask[k] = (1u << w[k]) - 1u;
        if (c->tables * (w[k] + 1u) > 64u)
            p->swar = 0;
    }
    if (!p->swar)
        return;
    for (unsigned i = 0; i < c->tables; i++) {
        unsigned len = p->fold[3 * i].len;
        p->sw_age[i] = (uint8_t)(len - 1u);
        for (unsigned k = 0; k < 3; k++) {
            p->sw_sh[k][i] = (uint8_t)(i * p->sw_s[k]);
            p->sw_ones[k] |= 1ull << (i * p->sw_s[k]);
            p->sw_guard[k] |= 1ull << (i * p->sw_s[k] + w[k]);
            p->sw_outpos[k][i] = (uint8_t)(i * p->sw_s[k] + len % w[k]);
        }
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
    unsigned n = p->cfg.tables;
    uint64_t out[3] = {0, 0, 0};
    for (unsigned i = 0; i < n; i++) {
        uint64_t o = ghist_bit(&p->g, p->sw_age[i]);
        out[0] |= o << p->sw_outpos[0][i];
        out[1] |= o << p->sw_outpos[1][i];
        out[2] |= o << p->sw_outpos[2][i];
    }
    uint64_t bm = 0 - (uint64_t)b;
    for (unsigned k = 0; k < 3; k++) {
        uint64_t v = ((p->sw[k] << 1) | (bm & p->sw_ones[k])) ^ out[k];
        uint64_t g = v & p->sw_guard[k];
        p->sw[k] = v ^ g ^ (g >> p->sw_w[k]);
    }
    ghist_push(&p->g, b, p->fold, 0); /* the history only */
}

static void push(tm_tage *p, unsigned b)
{
    if (p->swar)
        sw_push(p, b);
    else
        ghist_push(&p->g, b, p->fold, 3 * p->cfg.tables);
}

void tm_tage_lookup_pc(const tm_tage *p, uint64_t pc, tm_tage_lookup *l)
{
    const tm_tage_cfg *c = &p->cfg;
    l->index[0] = (uint32_t)((pc ^ (pc >> p->bbits)) & (c->base - 1u));
    l->tag[0] = 0;
    unsigned prov = 0, alt = 0; /* in registers, stored once at the end */
    const tage_ent *te = p->t;
    for (unsigned i = 1; i <= c->tables; i++, te += c->entries) {
        uint32_t index, tag;
        if (p->swar) {
            unsigned j = i - 1u;
            hist_slot_v((uint32_t)(p->sw[0] >> p->sw_sh[0][j]) & p->sw_mask[0],
                        (uint32_t)(p->sw[1] >> p->sw_sh[1][j]) & p->sw_mask[1],
                        (uint32_t)(p->sw[2] >> p->sw_sh[2][j]) & p->sw_mask[2], pc, p->ebits, c->tag, &index, &tag);
        } else {
            hist_slot(p->fold, i, pc, p->ebits, c->tag, &index, &tag);
        }
        l->index[i] = index;
        l->tag[i] = tag;
        const tage_ent *e = &te[index];
        /* a match moves the provider to alt: branch-free (conditional moves),
         * the outcome being data-dependent and so ill-predicted */
        unsigned hit = e->valid & (e->tag == tag);
        alt = hit ? prov : alt;
        prov = hit ? i : prov;
    }
    l->provider = prov;
    l->alt = alt;
    int basepred = p->base[l->index[0]] >= 2;
    if (!l->provider) {
        l->provpred = l->altpred = l->pred = basepred;
        l->used_alt = 0;
        return;
    }
    const tage_ent *pe = &p->t[(size_t)(l->provider - 1) * c->entries + l->index[l->provider]];
    l->provpred = pe->ctr >= 4;
    l->altpred = l->alt ? p->t[(size_t)(l->alt - 1) * c->entries + l->index[l->alt]].ctr >= 4 : basepred;
    l->used_alt = (pe->ctr == 3 || pe->ctr == 4) && pe->u == 0 && p->use_alt >= 8;
    l->pred = l->used_alt ? l->altpred : l->provpred;
}

int tm_tage_predict(const tm_tage *p, uint64_t pc)
{
    tm_tage_lookup l;
    tm_tage_lookup_pc(p, pc, &l);
    return l.pred;
}

int tm_tage_predict_keep(tm_tage *p, uint64_t pc)
{
    tm_tage_lookup_pc(p, pc, &p->kept);
    p->kept_pc = pc;
    p->kept_ok = 1;
    return p->kept.pred;
}

void tm_tage_update(tm_tage *p, uint64_t pc, int taken)
{
    const tm_tage_cfg *c = &p->cfg;
    tm_tage_lookup lk;
    const tm_tage_lookup *lp = &lk; /* read only: no copy of the kept one */
    if (p->kept_ok && p->kept_pc == pc)
        lp = &p->kept;
    else
        tm_tage_lookup_pc(p, pc, &lk);
    p->kept_ok = 0;
    unsigned t = taken ? 1u : 0u;
    p->counts.hits[lp->provider]++;
    p->counts.use_alt += (unsigned)lp->used_alt;
    tage_ent *pe = lp->provider ? &p->t[(size_t)(lp->provider - 1) * c->entries + lp->index[lp->provider]] : NULL;
    if (pe && (pe->ctr == 3 || pe->ctr == 4) && pe->u == 0 && lp->provpred != lp->altpred) {
        if (lp->altpred == (int)t) {
            if (p->use_alt < 15)
                p->use_alt++;
        } else if (p->use_alt > 0) {
            p->use_alt--;
        }
    }
    if (lp->pred != (int)t && lp->provider < c->tables) {
        unsigned j;
        for (j = lp->provider + 1; j <= c->tables; j++) {
            tage_ent *e = &p->t[(size_t)(j - 1) * c->entries + lp->index[j]];
            if (!e->valid || e->u == 0) {
                p->counts.allocs[j]++;
                p->counts.replaced += e->valid;
                e->valid = 1;
                e->tag = (uint16_t)lp->tag[j];
                e->ctr = t ? 4 : 3;
                e->u = 0;
                break;
            }
        }
        if (j > c->tables) {
            p->counts.alloc_fails++;
            for (j = lp->provider + 1; j <= c->tables; j++) {
                tage_ent *e = &p->t[(size_t)(j - 1) * c->entries + lp->index[j]];
                if (e->u)
                    e->u--;
            }
        }
    }
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
        uint8_t *b = &p->base[lp->index[0]];
        if (t) {
            if (*b < 3)
                (*b)++;
        } else if (*b > 0) {
            (*b)--;
        }
    }
    push(p, t);
}

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
    e->valid = x->valid;
    e->tag = x->tag;
    e->ctr = x->ctr;
    e->u = x->u;
    return 1;
}

unsigned tm_tage_use_alt_ctr(const tm_tage *p) { return p->use_alt; }

void tm_tage_get_counts(const tm_tage *p, tm_tage_counts *c) { *c = p->counts; }
