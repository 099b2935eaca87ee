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
}

void tm_tage_lookup_pc(const tm_tage *p, uint64_t pc, tm_tage_lookup *l)
{
    const tm_tage_cfg *c = &p->cfg;
    l->index[0] = (uint32_t)((pc ^ (pc >> p->bbits)) & (c->base - 1u));
    l->tag[0] = 0;
    l->provider = l->alt = 0;
    for (unsigned i = 1; i <= c->tables; i++) {
        hist_slot(p->fold, i, pc, p->ebits, c->tag, &l->index[i], &l->tag[i]);
        const tage_ent *e = &p->t[(size_t)(i - 1) * c->entries + l->index[i]];
        if (e->valid && e->tag == l->tag[i]) {
            l->alt = l->provider;
            l->provider = i;
        }
    }
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
    tm_tage_lookup l;
    if (p->kept_ok && p->kept_pc == pc)
        l = p->kept;
    else
        tm_tage_lookup_pc(p, pc, &l);
    p->kept_ok = 0;
    unsigned t = taken ? 1u : 0u;
    p->counts.hits[l.provider]++;
    p->counts.use_alt += (unsigned)l.used_alt;
    tage_ent *pe = l.provider ? &p->t[(size_t)(l.provider - 1) * c->entries + l.index[l.provider]] : NULL;
    if (pe && (pe->ctr == 3 || pe->ctr == 4) && pe->u == 0 && l.provpred != l.altpred) {
        if (l.altpred == (int)t) {
            if (p->use_alt < 15)
                p->use_alt++;
        } else if (p->use_alt > 0) {
            p->use_alt--;
        }
    }
    if (l.pred != (int)t && l.provider < c->tables) {
        unsigned j;
        for (j = l.provider + 1; j <= c->tables; j++) {
            tage_ent *e = &p->t[(size_t)(j - 1) * c->entries + l.index[j]];
            if (!e->valid || e->u == 0) {
                p->counts.allocs[j]++;
                p->counts.replaced += e->valid;
                e->valid = 1;
                e->tag = (uint16_t)l.tag[j];
                e->ctr = t ? 4 : 3;
                e->u = 0;
                break;
            }
        }
        if (j > c->tables) {
            p->counts.alloc_fails++;
            for (j = l.provider + 1; j <= c->tables; j++) {
                tage_ent *e = &p->t[(size_t)(j - 1) * c->entries + l.index[j]];
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
        if (l.provpred != l.altpred) {
            if (l.provpred == (int)t) {
                if (pe->u < 3)
                    pe->u++;
            } else if (pe->u > 0) {
                pe->u--;
            }
        }
    } else {
        uint8_t *b = &p->base[l.index[0]];
        if (t) {
            if (*b < 3)
                (*b)++;
        } else if (*b > 0) {
            (*b)--;
        }
    }
    ghist_push(&p->g, t, p->fold, 3 * c->tables);
}

void tm_tage_push_indirect(tm_tage *p, uint64_t pc, uint64_t target)
{
    p->kept_ok = 0;
    unsigned h = (unsigned)(((target >> 4) ^ pc) & 3u);
    ghist_push(&p->g, h >> 1, p->fold, 3 * p->cfg.tables);
    ghist_push(&p->g, h & 1u, p->fold, 3 * p->cfg.tables);
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
