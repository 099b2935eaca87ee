/* A recording's timing report (include/tm/record.h, docs/capture.md §3):
 * the timing model's lines of BASE.stats and the "machine" object of
 * BASE.json — the machine the cycles come from (the clocks' CPI, the
 * frontend's caches and order), its hit rates, IPC of all cores and per
 * core, and where each core's cycles went. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/record.h"

#define U(x) ((uint64_t)(x)) /* a frontend count (tmf_word) as the formats print it */

/* Core T's breakdown: the clocks' parts, its cycles after its end, and the
 * frontend's split of its data stall (*SPLIT 0: unknown, when the
 * frontend's data stall of the core is not the clocks', e.g. a tracing
 * window). */
typedef struct corebd {
    tm_timing_core c;
    uint64_t ended;
    tmf_thread_stats f;
    int split;
} corebd;

static void core_of(const tm_rec_end *e, uint32_t t, corebd *b)
{
    memset(b, 0, sizeof *b);
    uint64_t last, ins;
    tm_cap_timing_core(e->cap, t, &b->c);
    tm_cap_timing_thread(e->cap, t, &last, &ins);
    b->ended = e->tst.cycles > last ? e->tst.cycles - last : 0;
    if (!last) { /* never ran: all of it "not started" */
        b->c.not_started = e->tst.cycles;
        b->ended = 0;
    }
    b->split = tm_cap_frontend_core(e->cap, t, &b->f) && b->f.data_l1 + b->f.data_l2 + b->f.data_mem == b->c.data;
}

static double rate(uint64_t hits, uint64_t misses) { return hits + misses ? (double)hits / (double)(hits + misses) : 0; }

/* What the frontend gave of the data accesses: their values (E->data 2),
 * their addresses (the data cache or the order used them), or none. */
static const char *data_what(int data, unsigned flags)
{
    return data == 2 ? "values" : flags & (TMF_DCACHE | TMF_ORDER) ? "addresses" : "none";
}

static const char *order_what(unsigned flags)
{
    return !(flags & TMF_ORDER) ? "none"
           : flags & TMF_WAR    ? "loads after the stores they read, stores after the loads of what they overwrite"
                                : "loads after the stores they read";
}

void tm_rec_timing_stats(FILE *sf, const tm_rec_end *e)
{
    const tm_timing_cfg *tc = e->timing;
    const tm_timing_stats *s = &e->tst;
    const tm_cap_info *info = e->info;
    if (!tc) {
        fprintf(sf, "timing: serial (every group the next cycle of one clock)%s\n",
                e->info->untimed ? "; the capture has no machine (TIMING): its frontend timed nothing" : "");
        return;
    }
    tmf_cfg m;
    tmf_stats fs;
    int fm = tm_cap_frontend(e->cap, &m), hs = tm_cap_frontend_stats(e->cap, &fs);
    fprintf(sf, "timing: cores, CPI %u.%03u; ", tc->cpi_milli / 1000, tc->cpi_milli % 1000);
    if (!fm) {
        fputs("the frontend timed no access (no caches, no order: IPC 1/CPI)\n", sf);
    } else {
        if (m.flags & TMF_ICACHE)
            fprintf(sf, "L1I %u B %u-way %u cycles, ", m.l1i.size, m.l1i.ways, m.l1i.lat);
        else
            fputs("no L1I, ", sf);
        if (m.flags & TMF_DCACHE)
            fprintf(sf, "L1 %u B %u-way %u cycles, ", m.l1.size, m.l1.ways, m.l1.lat);
        else
            fputs("no L1 data, ", sf);
        if (m.flags & (TMF_ICACHE | TMF_DCACHE))
            fprintf(sf, "L2 %u B %u-way %u cycles, memory %u cycles, %u-byte lines", m.l2.size, m.l2.ways, m.l2.lat,
                    m.mem_lat, m.line);
        else
            fputs("no caches (IPC 1/CPI)", sf);
        fprintf(sf, "; order: %s; data addresses: %s\n", order_what(m.flags), data_what(e->data, m.flags));
    }
    fprintf(sf, "timing: %" PRIu64 " cycles, IPC %.3f", s->cycles,
            s->cycles ? (double)info->instructions / (double)s->cycles : 0.0);
    if (hs)
        fprintf(sf, "; L1I hits %.2f%% of %" PRIu64 " line fetches, L1 hits %.2f%% of %" PRIu64
                    ", L2 hits %.2f%% of %" PRIu64,
                100 * rate(fs.il1_hits, fs.il1_misses), U(fs.il1_hits + fs.il1_misses), 100 * rate(fs.l1_hits, fs.l1_misses),
                U(fs.l1_hits + fs.l1_misses), 100 * rate(fs.l2_hits, fs.l2_misses), U(fs.l2_hits + fs.l2_misses));
    fprintf(sf, "; %" PRIu64 " groups held at most, %" PRIu64 " clamped\n", s->held_max, s->clamped);
    fprintf(sf, "timing waits: %" PRIu64 " futex waits (%" PRIu64 " released by a wake seen, %" PRIu64
                " without one), %" PRIu64 " wakes; groups delayed: futex %" PRIu64 ", join %" PRIu64 ", store %" PRIu64
                ", load %" PRIu64,
            s->futex_waits, s->futex_released, s->futex_unmatched, s->futex_wakes, s->floors[TM_WAIT_FUTEX],
            s->floors[TM_WAIT_JOIN], s->floors[TM_WAIT_STORE], s->floors[TM_WAIT_LOAD]);
    if (hs)
        fprintf(sf, "; dependencies: store %" PRIu64 ", load %" PRIu64 ", end %" PRIu64, U(fs.deps[TMF_DEP_STORE]),
                U(fs.deps[TMF_DEP_LOAD]), U(fs.deps[TMF_DEP_END]));
    fputc('\n', sf);
    /* each core's instructions over the module's cycles: they add up to
     * the module's IPC */
    fputs("timing per core:", sf);
    for (uint32_t t = 0; t < info->threads; t++) {
        uint64_t last, ins;
        tm_cap_timing_thread(e->cap, t, &last, &ins);
        fprintf(sf, "%s T%u %" PRIu64 " instructions IPC %.3f", t ? "," : "", t, ins,
                s->cycles ? (double)ins / (double)s->cycles : 0.0);
    }
    fputc('\n', sf);
    fputs("cycles per core (they add up to the cycles):\n", sf);
    for (uint32_t t = 0; t < info->threads; t++) {
        corebd b;
        core_of(e, t, &b);
        fprintf(sf, "  T%u busy %" PRIu64 " ifetch %" PRIu64 " data %" PRIu64, t, b.c.busy, b.c.ifetch, b.c.data);
        if (b.split)
            fprintf(sf, " (L1 %" PRIu64 ", L2 %" PRIu64 ", memory %" PRIu64 ")", U(b.f.data_l1), U(b.f.data_l2), U(b.f.data_mem));
        fprintf(sf,
                " futex %" PRIu64 " join %" PRIu64 " store %" PRIu64 " load %" PRIu64 " not-started %" PRIu64
                " ended %" PRIu64 " clamped %" PRIu64 "\n",
                b.c.wait[TM_WAIT_FUTEX], b.c.wait[TM_WAIT_JOIN], b.c.wait[TM_WAIT_STORE], b.c.wait[TM_WAIT_LOAD],
                b.c.not_started, b.ended, b.c.clamped);
    }
}

static void json_cache(FILE *f, const char *name, int on, const tmf_cache *c)
{
    if (on)
        fprintf(f, "\"%s\": {\"size\": %u, \"ways\": %u, \"latency\": %u}, ", name, c->size, c->ways, c->lat);
    else
        fprintf(f, "\"%s\": null, ", name);
}

/* A hit rate: HITS of HITS + MISSES, null if the cache is off (ON 0) or
 * was never used. */
static void json_rate(FILE *f, const char *name, int on, uint64_t hits, uint64_t misses)
{
    if (on && hits + misses)
        fprintf(f, "\"%s\": %.6f, ", name, (double)hits / (double)(hits + misses));
    else
        fprintf(f, "\"%s\": null, ", name);
}

char *tm_rec_machine_json(const tm_rec_end *e, const tm_model *m)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NULL;
    const tm_timing_cfg *tc = e->timing;
    const tm_timing_stats *s = &e->tst;
    const tm_cap_info *info = e->info;
    tmf_cfg fm;
    tmf_stats fs;
    memset(&fm, 0, sizeof fm);
    memset(&fs, 0, sizeof fs);
    int hm = tc && tm_cap_frontend(e->cap, &fm), hs = tc && tm_cap_frontend_stats(e->cap, &fs);
    int ic = hm && (fm.flags & TMF_ICACHE), dc = hm && (fm.flags & TMF_DCACHE);
    uint64_t cycles = tc ? s->cycles : info->cycles;
    fprintf(f, "{\"timing\": \"%s\", \"untimed_capture\": %s, ", tc ? "cores" : "serial",
            info->untimed ? "true" : "false");
    if (tc)
        fprintf(f, "\"cpi\": %u.%03u, \"line\": %u, ", tc->cpi_milli / 1000, tc->cpi_milli % 1000, hm ? fm.line : tc->line);
    else
        fputs("\"cpi\": null, \"line\": null, ", f);
    json_cache(f, "icache", ic, &fm.l1i);
    json_cache(f, "l1", dc, &fm.l1);
    json_cache(f, "l2", ic || dc, &fm.l2);
    if (ic || dc)
        fprintf(f, "\"memory_latency\": %u, ", fm.mem_lat);
    else
        fputs("\"memory_latency\": null, ", f);
    fprintf(f, "\"data_addresses\": \"%s\", ", data_what(e->data, hm ? fm.flags : 0));
    fprintf(f, "\"order\": %s, ", !hm || !(fm.flags & TMF_ORDER) ? "null" : fm.flags & TMF_WAR ? "\"store+load\"" : "\"store\"");
    fprintf(f, "\"cycles\": %" PRIu64 ", ", cycles);
    fprintf(f, "\"ipc\": %.6f, \"ipc_per_core\": [", cycles ? (double)info->instructions / (double)cycles : 0.0);
    for (uint32_t t = 0; t < info->threads; t++) {
        uint64_t last, ins;
        if (tc)
            tm_cap_timing_thread(e->cap, t, &last, &ins);
        else
            ins = tm_model_thread_stats(m, t) ? tm_model_thread_stats(m, t)->instructions : 0;
        fprintf(f, "%s%.6f", t ? ", " : "", cycles ? (double)ins / (double)cycles : 0.0);
    }
    fputs("], ", f);
    json_rate(f, "icache_hit_rate", ic && hs, fs.il1_hits, fs.il1_misses);
    json_rate(f, "l1_hit_rate", dc && hs, fs.l1_hits, fs.l1_misses);
    json_rate(f, "l2_hit_rate", (ic || dc) && hs, fs.l2_hits, fs.l2_misses);
    if (!tc) {
        fputs("\"cores\": null, \"waits\": null}", f);
    } else {
        fputs("\"cores\": [", f);
        for (uint32_t t = 0; t < info->threads; t++) {
            corebd b;
            uint64_t last, ins;
            core_of(e, t, &b);
            tm_cap_timing_thread(e->cap, t, &last, &ins);
            fprintf(f,
                    "%s{\"core\": %u, \"instructions\": %" PRIu64 ", \"ipc\": %.6f, \"cycles\": {\"busy\": %" PRIu64
                    ", \"ifetch\": %" PRIu64 ", \"data\": %" PRIu64 ", ",
                    t ? ", " : "", t, ins, cycles ? (double)ins / (double)cycles : 0.0, b.c.busy, b.c.ifetch, b.c.data);
            if (b.split)
                fprintf(f, "\"data_l1\": %" PRIu64 ", \"data_l2\": %" PRIu64 ", \"data_memory\": %" PRIu64 ", ",
                        U(b.f.data_l1), U(b.f.data_l2), U(b.f.data_mem));
            else
                fputs("\"data_l1\": null, \"data_l2\": null, \"data_memory\": null, ", f);
            fprintf(f,
                    "\"futex\": %" PRIu64 ", \"join\": %" PRIu64 ", \"store\": %" PRIu64 ", \"load\": %" PRIu64
                    ", \"not_started\": %" PRIu64 ", \"ended\": %" PRIu64 ", \"clamped\": %" PRIu64 "}}",
                    b.c.wait[TM_WAIT_FUTEX], b.c.wait[TM_WAIT_JOIN], b.c.wait[TM_WAIT_STORE], b.c.wait[TM_WAIT_LOAD],
                    b.c.not_started, b.ended, b.c.clamped);
        }
        fprintf(f,
                "], \"waits\": {\"futex_waits\": %" PRIu64 ", \"futex_released\": %" PRIu64 ", \"futex_unmatched\": %" PRIu64
                ", \"futex_wakes\": %" PRIu64 ", \"clamped\": %" PRIu64 ", \"held_max\": %" PRIu64,
                s->futex_waits, s->futex_released, s->futex_unmatched, s->futex_wakes, s->clamped, s->held_max);
        if (hs)
            fprintf(f, ", \"dependencies\": {\"store\": %" PRIu64 ", \"load\": %" PRIu64 ", \"end\": %" PRIu64 "}",
                    U(fs.deps[TMF_DEP_STORE]), U(fs.deps[TMF_DEP_LOAD]), U(fs.deps[TMF_DEP_END]));
        else
            fputs(", \"dependencies\": null", f);
        fputs("}}", f);
    }
    if (ferror(f) | fclose(f)) {
        free(buf);
        return NULL;
    }
    return buf;
}
