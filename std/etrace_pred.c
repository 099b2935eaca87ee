/* tm — the E-Trace efficiency extensions' state, run by the encoder and the
 * decoder alike (one source of truth): the branch predictor (spec §"Branch
 * prediction mode": 2^bpred_size_p 2-bit entries indexed by address bits
 * bpred_size_p:1, initialised to 01 at every synchronisation), the jump
 * target cache (§"Jump target cache mode": 2^cache_size_p direct-mapped
 * entries indexed by bits cache_size_p:1, invalidated at every
 * synchronisation) and the implicit return stack (§"Implicit return mode":
 * a stack of predicted return addresses, emptied at every synchronisation). */
#include <stdlib.h>
#include <string.h>
#include "tm/etrace.h"

int tm_et_pred_init(tm_et_pred *p, int ir, unsigned bp_log2, unsigned jtc_log2)
{
    memset(p, 0, sizeof *p);
    p->ir = ir;
    p->bp_log2 = bp_log2;
    p->jtc_log2 = jtc_log2;
    if (bp_log2 && !(p->bp = malloc((size_t)1 << bp_log2)))
        return TM_ERR_NOMEM;
    if (jtc_log2 && !(p->jtc = malloc(sizeof *p->jtc << jtc_log2))) {
        free(p->bp);
        p->bp = NULL;
        return TM_ERR_NOMEM;
    }
    tm_et_pred_reset(p);
    return TM_OK;
}

void tm_et_pred_free(tm_et_pred *p)
{
    free(p->bp);
    free(p->jtc);
    p->bp = NULL;
    p->jtc = NULL;
}

void tm_et_pred_reset(tm_et_pred *p)
{
    if (p->bp)
        memset(p->bp, 1, (size_t)1 << p->bp_log2);
    if (p->jtc)
        memset(p->jtc, 0, sizeof *p->jtc << p->jtc_log2);
    p->rs_top = p->rs_n = 0;
}

int tm_et_bp_predict(const tm_et_pred *p, uint64_t pc)
{
    return p->bp ? p->bp[(pc >> 1) & ((1u << p->bp_log2) - 1)] >> 1 : 0;
}

/* 00 -> 01 on a failure; 01 -> 00 on a success, else 11; 11 -> 10 on a
 * failure; 10 -> 11 on a success, else 00.  The LSB is the last outcome,
 * the MSB the prediction. */
void tm_et_bp_update(tm_et_pred *p, uint64_t pc, int taken)
{
    if (!p->bp)
        return;
    uint8_t *s = &p->bp[(pc >> 1) & ((1u << p->bp_log2) - 1)];
    unsigned pred = *s >> 1, ok = pred == (unsigned)(taken != 0);
    switch (*s) {
    case 0: *s = ok ? 0 : 1; break;
    case 1: *s = ok ? 0 : 3; break;
    case 3: *s = ok ? 3 : 2; break;
    default: *s = ok ? 3 : 0; break;
    }
}

unsigned tm_et_jtc_index(const tm_et_pred *p, uint64_t addr)
{
    return p->jtc ? (unsigned)((addr >> 1) & ((1u << p->jtc_log2) - 1)) : 0;
}

int tm_et_jtc_hit(const tm_et_pred *p, uint64_t addr)
{
    return p->jtc && addr && p->jtc[tm_et_jtc_index(p, addr)] == addr;
}

void tm_et_jtc_insert(tm_et_pred *p, uint64_t addr)
{
    if (p->jtc)
        p->jtc[tm_et_jtc_index(p, addr)] = addr;
}

uint64_t tm_et_jtc_get(const tm_et_pred *p, unsigned index)
{
    return p->jtc && index < (1u << p->jtc_log2) ? p->jtc[index] : 0;
}

void tm_et_rs_push(tm_et_pred *p, uint64_t ret)
{
    p->rs[p->rs_top] = ret;
    p->rs_top = (p->rs_top + 1) % TM_ET_RS_ENTRIES;
    if (p->rs_n < TM_ET_RS_ENTRIES)
        p->rs_n++;
}

int tm_et_rs_pop(tm_et_pred *p, uint64_t *ret)
{
    if (!p->rs_n)
        return -1;
    p->rs_top = (p->rs_top + TM_ET_RS_ENTRIES - 1) % TM_ET_RS_ENTRIES;
    p->rs_n--;
    *ret = p->rs[p->rs_top];
    return 0;
}

uint64_t tm_et_storage_bits(const tm_et_opts *o)
{
    uint64_t b = 0;
    if (o->implicit_return)
        b += (uint64_t)TM_ET_RS_ENTRIES * TM_ET_IADDR_BITS + TM_ET_IRDEPTH_BITS;
    if (o->bp_log2)
        b += 2ull << o->bp_log2;
    if (o->jtc_log2)
        b += (uint64_t)(TM_ET_IADDR_BITS + 1) << o->jtc_log2; /* address and a valid bit */
    return b;
}
