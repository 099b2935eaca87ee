/* tm — ITTAGE-class indirect-branch target predictor (docs/spec.md §3.3.2),
 * mirrored by rtl/tm_ittage.sv. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "tm/tage.h"
#include "ittage_int.h"

#define TGT_BITS 48u
#define TGT_MASK ((1ull << TGT_BITS) - 1u)

uint64_t tm_ittage_bits(const tm_tage_cfg *c)
{
    if (!c->base)
        return 0;
    unsigned e = tm_log2u(c->entries);
    /* base: valid, target; tagged: valid, tag, target, 2-bit ctr, u */
    return (1ull + TGT_BITS) * c->base + (uint64_t)c->tables * c->entries * (1u + c->tag + TGT_BITS + 2u + 1u) +
           c->lmax + (uint64_t)c->tables * (e + c->tag + c->tag - 1u);
}

typedef struct it_ent {
    uint64_t target;
    uint16_t tag;
    uint8_t valid, ctr, u;
} it_ent;

struct tm_ittage {
    /* first (ittage_int.h): the history G and KEPT_OK.  No folded registers
     * kept: a lookup folds the history directly (fold_of), which equals the
     * registers of spec §3.3.1 (and of rtl/tm_hist.sv) bit for bit; a push
     * is then one shift of G. */
    ittage_head h;
    tm_tage_cfg cfg;
    uint32_t ebits, bbits;
    it_ent *base;  /* valid, target */
    it_ent *t;     /* [(i - 1) * entries + idx] */
    uint8_t len[TM_TAGE_TABLES_MAX + 1]; /* history length of table i */
    tm_tage_counts counts;
    tm_tage_lookup kept;    /* the lookup of *_predict_keep for KEPT_PC (if h.kept_ok) */
    uint64_t kept_pc;
};
_Static_assert(offsetof(struct tm_ittage, h) == 0, "ittage_push_cond: the head first");

int tm_ittage_new(const tm_tage_cfg *c, tm_ittage **out)
{
    *out = NULL;
    if (!c->base || tm_tage_cfg_check(c, "--ittage", NULL, 0) != TM_OK)
        return TM_ERR_ARG;
    tm_ittage *p = calloc(1, sizeof *p);
    if (!p)
        return TM_ERR_NOMEM;
    p->cfg = *c;
    p->ebits = tm_log2u(c->entries);
    p->bbits = tm_log2u(c->base);
    p->base = malloc(c->base * sizeof *p->base);
    p->t = malloc((size_t)c->tables * c->entries * sizeof *p->t);
    if (!p->base || !p->t) {
        tm_ittage_free(p);
        return TM_ERR_NOMEM;
    }
    tm_ittage_reset(p);
    *out = p;
    return TM_OK;
}

void tm_ittage_free(tm_ittage *p)
{
    if (!p)
        return;
    free(p->base);
    free(p->t);
    free(p);
}

void tm_ittage_reset(tm_ittage *p)
{
    const tm_tage_cfg *c = &p->cfg;
    memset(p->base, 0, c->base * sizeof *p->base);
    memset(p->t, 0, (size_t)c->tables * c->entries * sizeof *p->t);
    p->h.kept_ok = 0;
    p->h.g.h[0] = p->h.g.h[1] = 0;
    p->h.g.len = c->lmax;
    for (unsigned i = 1; i <= c->tables; i++)
        p->len[i] = (uint8_t)hist_len(i, c->tables, c->lmin, c->lmax);
}

void tm_ittage_lookup_pc(const tm_ittage *p, uint64_t pc, tm_tage_lookup *l)
{
    const tm_tage_cfg *c = &p->cfg;
    memset(l, 0, sizeof *l);
    l->index[0] = (uint32_t)((pc ^ (pc >> p->bbits)) & (c->base - 1u));
    for (unsigned i = 1; i <= c->tables; i++) {
        unsigned len = p->len[i];
        uint32_t f0 = fold_of(&p->h.g, len, p->ebits), f1 = fold_of(&p->h.g, len, c->tag),
                 f2 = fold_of(&p->h.g, len, c->tag - 1u);
        hist_slot_v(f0, f1, f2, pc, p->ebits, c->tag, &l->index[i], &l->tag[i]);
        const it_ent *e = &p->t[(size_t)(i - 1) * c->entries + l->index[i]];
        if (e->valid && e->tag == l->tag[i]) {
            l->alt = l->provider;
            l->provider = i;
        }
    }
    const it_ent *b = &p->base[l->index[0]];
    if (l->provider && l->alt) {
        l->havealt = 1;
        l->alttarget = p->t[(size_t)(l->alt - 1) * c->entries + l->index[l->alt]].target;
    } else if (l->provider && b->valid) {
        l->havealt = 1;
        l->alttarget = b->target;
    }
    if (!l->provider) {
        l->pred = b->valid;
        l->target = l->provtarget = b->valid ? b->target : 0;
        return;
    }
    const it_ent *pe = &p->t[(size_t)(l->provider - 1) * c->entries + l->index[l->provider]];
    l->provtarget = pe->target;
    l->used_alt = pe->ctr == 0 && l->havealt;
    l->pred = 1;
    l->target = l->used_alt ? l->alttarget : pe->target;
}

int tm_ittage_predict(const tm_ittage *p, uint64_t pc, uint64_t *target)
{
    tm_tage_lookup l;
    tm_ittage_lookup_pc(p, pc, &l);
    if (l.pred)
        *target = l.target;
    return l.pred;
}

int tm_ittage_predict_keep(tm_ittage *p, uint64_t pc, uint64_t *target)
{
    tm_ittage_lookup_pc(p, pc, &p->kept);
    p->kept_pc = pc;
    p->h.kept_ok = 1;
    if (p->kept.pred)
        *target = p->kept.target;
    return p->kept.pred;
}

static void push(tm_ittage *p, unsigned b) { ittage_push_cond(p, b); }

void tm_ittage_update(tm_ittage *p, uint64_t pc, uint64_t target)
{
    const tm_tage_cfg *c = &p->cfg;
    tm_tage_lookup l;
    if (p->h.kept_ok && p->kept_pc == pc)
        l = p->kept;
    else
        tm_ittage_lookup_pc(p, pc, &l);
    p->h.kept_ok = 0;
    p->counts.hits[l.provider]++;
    p->counts.use_alt += (unsigned)l.used_alt;
    uint64_t st = target & TGT_MASK; /* what an entry can hold */
    int correct = l.pred && l.target == target;
    if (l.provider) {
        it_ent *pe = &p->t[(size_t)(l.provider - 1) * c->entries + l.index[l.provider]];
        if (!l.havealt || l.provtarget != l.alttarget)
            pe->u = l.provtarget == target;
        if (pe->target == target) {
            if (pe->ctr < 3)
                pe->ctr++;
        } else if (pe->ctr > 0) {
            pe->ctr--;
        } else {
            pe->target = st;
        }
    } else {
        p->base[l.index[0]].valid = 1;
        p->base[l.index[0]].target = st;
    }
    if (!correct && l.provider < c->tables) {
        unsigned j;
        for (j = l.provider + 1; j <= c->tables; j++) {
            it_ent *e = &p->t[(size_t)(j - 1) * c->entries + l.index[j]];
            if (!e->valid || e->u == 0) {
                p->counts.allocs[j]++;
                p->counts.replaced += e->valid;
                e->valid = 1;
                e->tag = (uint16_t)l.tag[j];
                e->target = st;
                e->ctr = 0;
                e->u = 0;
                break;
            }
        }
        if (j > c->tables) {
            p->counts.alloc_fails++;
            for (j = l.provider + 1; j <= c->tables; j++)
                p->t[(size_t)(j - 1) * c->entries + l.index[j]].u = 0;
        }
    }
    unsigned h = (unsigned)(((target >> 4) ^ pc) & 3u);
    push(p, h >> 1);
    push(p, h & 1u);
}

void tm_ittage_push_cond(tm_ittage *p, int taken) { push(p, taken ? 1u : 0u); }

int tm_ittage_get_entry(const tm_ittage *p, unsigned t, uint32_t idx, tm_tage_entry *e)
{
    memset(e, 0, sizeof *e);
    const it_ent *x;
    if (t == 0) {
        if (idx >= p->cfg.base)
            return 0;
        x = &p->base[idx];
    } else {
        if (t > p->cfg.tables || idx >= p->cfg.entries)
            return 0;
        x = &p->t[(size_t)(t - 1) * p->cfg.entries + idx];
    }
    e->valid = x->valid;
    e->tag = x->tag;
    e->ctr = x->ctr;
    e->u = x->u;
    e->target = x->target;
    return 1;
}

void tm_ittage_get_counts(const tm_ittage *p, tm_tage_counts *c) { *c = p->counts; }
