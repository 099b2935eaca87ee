/* tm — co-simulation testbench: the RTL driven by the commit stream, cycle by cycle. */
#include "cosim.h"

/* ---------------------------------------------------------------- driving */

typedef struct group_state {
    tb_retire in[1024];
    tb_retire prev[1024]; /* what the RTL's inputs hold now */
    int started[1024], exited[1024];
} group_state;

/* The fields of tb_retire up to mem_valid: the rest (the memory operand)
 * matters only with mem_valid. */
#define RETIRE_HEAD offsetof(tb_retire, mem_store)

/* The next cycle's inputs start empty; the memory operand's fields other
 * than mem_valid keep their values (the RTL ignores them without it, and
 * unchanged inputs need not be set again). */
static void clear_inputs(group_state *g, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        if (g->in[k].valid) /* else the head is all 0 already */
            memset(&g->in[k], 0, RETIRE_HEAD);
}

/* The inputs of a core changed since they were last set.  A group that is
 * not valid has a head of zeros (clear_inputs; add_record sets valid), and
 * mem_valid is in the head: two such groups are the same. */
static int inputs_changed(const tb_retire *in, const tb_retire *prev)
{
    if (!in->valid && !prev->valid)
        return 0;
    return memcmp(in, prev, in->mem_valid ? sizeof *in : RETIRE_HEAD) != 0;
}

static void add_record(group_state *g, const tmc_record *r)
{
    tb_retire *in = &g->in[r->tid];
    in->valid = 1;
    switch (r->type) {
    case TMC_RUN:
        in->count += (uint32_t)r->count;
        in->npc_valid = 1;
        in->npc = r->pc + r->bytes;
        break;
    case TMC_START:
        in->event = TM_PKG_EV_START;
        in->flag = (r->flags & TMC_START_TRACE_ON) != 0;
        in->pc = r->pc;
        g->started[r->tid] = 1;
        break;
    case TMC_EXIT:
        in->event = TM_PKG_EV_EXIT;
        in->flag = (r->flags & TMC_EXIT_TRACE_OFF) != 0;
        g->exited[r->tid] = 1;
        break;
    case TMC_BRANCH:
        in->event = TM_PKG_EV_BRANCH;
        in->bclass = r->bclass;
        in->taken = r->taken;
        in->pc = r->pc;
        in->len = r->len;
        in->target = r->target;
        break;
    case TMC_EXC:
        in->event = TM_PKG_EV_EXC;
        in->pc = r->pc;
        in->target = r->target;
        break;
    case TMC_MEM:
        in->mem_valid = 1;
        in->mem_store = (r->flags & TMC_MEM_STORE) != 0;
        in->mem_size = r->size;
        in->mem_addr = r->addr;
        memset(in->mem_value, 0, sizeof in->mem_value);
        memcpy(in->mem_value, r->value, r->size <= 64 ? r->size : 64);
        break;
    default:
        break;
    }
}

/* The inputs of cycle CYCLE into g->in from the records of that cycle (REC
 * the next unread one, *HAVE whether there is one), set in the RTL for the
 * cores whose inputs changed (all if FIRST): the RTL takes them at the next
 * clock edge or load.  0, or 2 after a read error (reported). */
static int next_inputs(sim *s, tb_rtl *r, group_state *g, tmc_reader *rd, tmc_record *rec, int *have, int *more,
                       int *any, uint64_t *last_cycle, uint64_t cycle, int first)
{
    unsigned N = s->cfg.enc.threads;
    clear_inputs(g, N);
    /* Without data tracing MEM records are not part of the retire
     * interface (the model ignores them as well). */
    int skip_mem = !s->cfg.enc.data;
    while (*have && (rec->type == TMC_MODULE || rec->type == TMC_END || rec->type == TMC_ENDING ||
                     (skip_mem && rec->type == TMC_MEM)))
        *have = (*more = tmc_reader_next(rd, rec)) == 1;
    while (*have && rec->cycle == cycle) {
        add_record(g, rec);
        *any = 1;
        *last_cycle = rec->cycle;
        do
            *have = (*more = tmc_reader_next(rd, rec)) == 1;
        while (*have && (rec->type == TMC_MODULE || rec->type == TMC_END || rec->type == TMC_ENDING ||
                         (skip_mem && rec->type == TMC_MEM)));
    }
    if (*more < 0) {
        fprintf(stderr, "tm cosim: %s\n", tmc_reader_error(rd));
        return 2;
    }
    /* End-of-stream flush (spec §3.7): cycle L + 1 stops every live thread. */
    if (!*have && *any && cycle == *last_cycle + 1)
        for (unsigned k = 0; k < N; k++)
            if (g->started[k] && !g->exited[k]) {
                g->in[k].valid = 1;
                g->in[k].event = TM_PKG_EV_EXIT;
                g->in[k].flag = 1;
            }
    for (unsigned k = 0; k < N; k++)
        if (first || inputs_changed(&g->in[k], &g->prev[k])) {
            tb_rtl_set(r, k, &g->in[k]);
            g->prev[k] = g->in[k];
        }
    return 0;
}

/* Runs the RTL over the stream.  WAVE_FROM..WAVE_TO: cycles to dump (if WAVE). */
int run_rtl(sim *s, const char *wave, uint64_t wave_from, uint64_t wave_to, cov *c, uint64_t *cycles_out)
{
    unsigned N = s->cfg.enc.threads;
    tmc_reader *rd = NULL;
    char e[600];
    if (tmc_reader_open(s->tmc, &rd, e, sizeof e) != TM_OK) {
        fprintf(stderr, "tm cosim: %s\n", e);
        return 2;
    }
    tb_rtl *r = tb_rtl_new();
    tb_rtl_reset(r);
    group_state *g = calloc(1, sizeof *g);
    if (!g) {
        fprintf(stderr, "tm cosim: out of memory\n");
        tb_rtl_free(r);
        tmc_reader_close(rd);
        return 2;
    }
    memset(s->shadow, 0, sizeof s->shadow);
    if (s->cfg.enc.data == TM_DATA_CFIAT)
        for (unsigned k = 0; k < N; k++)
            if (tm_cache_new(&s->cfg.cache, 0, &s->shadow[k]) != TM_OK) {
                fprintf(stderr, "tm cosim: cannot create the shadow caches\n");
                for (unsigned j = 0; j < k; j++) /* the rest are NULL */
                    tm_cache_free(s->shadow[j]);
                free(g);
                tb_rtl_free(r);
                tmc_reader_close(rd);
                return 2;
            }
    for (unsigned k = 0; k < sizeof s->adapt / sizeof s->adapt[0]; k++)
        tm_adapt_reset(&s->adapt[k]);
    s->next_ev = 0;
    s->port_pos = 0;
    s->occ = 0;
    s->idle_skipped = 0;
    s->why[0] = 0;
    int waving = 0, rc = 0, more;
    tmc_record rec;
    uint64_t cycle = 0, last_cycle = 0;
    int have = 0, any = 0;
    if ((more = tmc_reader_next(rd, &rec)) == 1)
        have = 1;
    /* The inputs of the first cycle, loaded without a clock edge; from then
     * on each cycle's inputs are set before the clock edge that starts it
     * (glue.h: the testbench's top holds them in a register). */
    if (next_inputs(s, r, g, rd, &rec, &have, &more, &any, &last_cycle, cycle, 1) != 0)
        rc = 2;
    else
        tb_rtl_load(r);
    while (rc == 0) {
        if (wave && !waving && cycle >= wave_from) {
            if (tb_rtl_wave_open(r, wave) != 0) {
                fprintf(stderr, "tm cosim: %s: cannot write the waveform\n", wave);
                rc = 2;
                break;
            }
            waving = 1;
        }
        if (waving && cycle > wave_to) {
            tb_rtl_wave_close(r);
            waving = 0;
            wave = NULL;
        }
        if (tb_rtl_cycle(r) != cycle) {
            rc = mismatch(s, cycle, "the RTL's cycle counter reads %" PRIu64 " in cycle %" PRIu64, tb_rtl_cycle(r),
                          cycle);
            break;
        }
        if (check_cycle(s, r, cycle, g->in, c)) {
            rc = 1;
            tb_rtl_clock(r);
            break;
        }
        /* An idle stretch up to the next record: nothing retires, nothing
         * is offered (the model's next offer comes with that record or
         * later), the buffer is empty -- the RTL would only count cycles,
         * so its counter moves on in one step (as the model's bulk idle
         * cycles, spec §3.6), to the cycle before the record, which is
         * simulated and checked as usual (still idle, the right cycle). */
        uint64_t skip = 0;
        if (have && rec.cycle > cycle + 2 && !waving && tb_rtl_occupancy(r) == 0 && s->occ == 0 &&
            (s->next_ev == s->evs.n || s->evs.v[s->next_ev].cycle >= rec.cycle)) {
            int quiet = 1;
            for (unsigned k = 0; k < N && quiet; k++)
                quiet = !g->in[k].valid;
            if (quiet)
                skip = rec.cycle - cycle - 2;
        }
        /* The next cycle's inputs, set before the edge that starts it; the
         * end is judged on the records after this cycle's, as before. */
        uint64_t next = cycle + 1 + skip;
        int records_left = have;
        if (next_inputs(s, r, g, rd, &rec, &have, &more, &any, &last_cycle, next, 0) != 0) {
            rc = 2;
            break;
        }
        tb_rtl_clock_skip(r, skip);
        cycle = next;
        s->idle_skipped += skip;
        if (!records_left && cycle >= s->model_cycles && s->next_ev == s->evs.n)
            break;
        if (!records_left && cycle > s->model_cycles + 16) {
            rc = mismatch(s, cycle, "the RTL still has messages to send after the model's last cycle %" PRIu64,
                          s->model_cycles);
            break;
        }
    }
    if (rc == 0) {
        if (s->next_ev != s->evs.n)
            rc = mismatch(s, cycle, "the model offers %zu more messages than the RTL", s->evs.n - s->next_ev);
        else if (s->port_pos != s->trace->nbits)
            rc = mismatch(s, cycle, "the port sent %" PRIu64 " bits, the model's trace has %" PRIu64, s->port_pos,
                          s->trace->nbits);
        else if (tb_rtl_occupancy(r) != 0)
            rc = mismatch(s, cycle, "the RTL buffer still holds %u bits at the end", tb_rtl_occupancy(r));
        else if (s->cfg.enc.data == TM_DATA_CFIAT)
            rc = check_cache_stats(s, s->cache_stats, c, cycle);
    }
    *cycles_out = cycle;
    free(g);
    tb_rtl_free(r);
    tmc_reader_close(rd);
    return rc;
}
