/* tm testbench — runs the Verilated RTL (rtl/tm_top.sv) in lockstep with the
 * C model on a commit stream and compares, cycle by cycle, every message each
 * core offers (accepted or dropped) and every bit on the trace port.
 *
 * Built per parameter set by `tm cosim` (tools/tm/cmd_cosim.c), which passes
 * the resolved configuration on the command line:
 *   tm-cosim-sim --threads N --encoding E --ts 0|1 --ts-bits B --shared 0|1
 *                --gshare G --ras R --ibtb I --chunks a,b,c,d,e,f --buffer B
 *                --port W [--wave F.fst] [--cov F] [-q] IN.tmc
 * Prints "PASS ..." and exits 0, or the first mismatch and exits 1.
 *
 * The model runs first over the whole stream and records every message it
 * accepts or drops (tm_model_set_hook); then the stream is replayed into the
 * RTL one cycle at a time.  The expected port bits are the model's trace, at
 * the rate spec §3.6 defines: min(W, occupancy) bits per cycle. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glue.h"
#include "tm/model.h"
#include "tm/tmc.h"

typedef struct ev {
    uint64_t cycle;
    uint32_t core;
    unsigned len;
    int accepted;
    tm_msg m;
} ev;

typedef struct evlist {
    ev *v;
    size_t n, cap;
    int oom;
} evlist;

static void hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits, int accepted)
{
    evlist *l = arg;
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 4096;
        ev *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv) {
            l->oom = 1;
            return;
        }
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = (ev){cycle, core, bits, accepted, *m};
}

/* ---------------------------------------------------------------- coverage */
#define MAXCH 40
typedef struct cov {
    /* [field][chunks]: 0 cnt(T=0), 1 cnt(T=1), 2 |diffTA| (branch), 3 iCnt (exc),
     * 4 |diffTA| (exc), 5 diffCC */
    uint64_t chunks[6][MAXCH];
    uint64_t sync[3], end_exit, end_stop, end_lost, exc, drops, resyncs;
    uint64_t pair[64][64];
    tm_pred_counts pred;
} cov;

static unsigned nchunks(uint64_t v, unsigned a, unsigned b)
{
    unsigned bits = tm_chunked_bits(v, a, b);
    return 1 + (bits - (a + 1)) / (b + 1);
}

static uint64_t mag(int64_t d) { return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d; }

static void cov_msg(cov *c, const tm_enc_cfg *e, const tm_msg *m)
{
    unsigned k;
    switch (m->kind) {
    case TM_MSG_BRANCH:
        k = nchunks(m->cnt, e->cnt_a, e->cnt_b);
        c->chunks[m->t ? 1 : 0][k < MAXCH ? k : MAXCH - 1]++;
        if (m->t) {
            k = nchunks(mag(m->diff_ta), e->ta_a, e->ta_b);
            c->chunks[2][k < MAXCH ? k : MAXCH - 1]++;
        }
        break;
    case TM_MSG_EXC:
        c->exc++;
        k = nchunks(m->icnt, e->cnt_a, e->cnt_b);
        c->chunks[3][k < MAXCH ? k : MAXCH - 1]++;
        k = nchunks(mag(m->diff_ta), e->ta_a, e->ta_b);
        c->chunks[4][k < MAXCH ? k : MAXCH - 1]++;
        break;
    case TM_MSG_SYNC:
        c->sync[m->reason < 3 ? m->reason : 2]++;
        if (m->reason == TM_SYNC_OVERFLOW)
            c->resyncs++;
        break;
    case TM_MSG_END:
        if (m->lost)
            c->end_lost++;
        else if (m->reason == TM_END_STOP)
            c->end_stop++;
        else
            c->end_exit++;
        break;
    case TM_MSG_DATA:
        return; /* the RTL has no data path yet (issue 4): the model never offers one here */
    }
    if (e->timestamps) {
        k = nchunks(m->diff_cc, e->cc_a, e->cc_b);
        c->chunks[5][k < MAXCH ? k : MAXCH - 1]++;
    }
}

/* Writes the bins as "name count" lines (merged by testbench/regress.sh). */
static int cov_write(const char *path, const cov *c, const tm_model_cfg *cfg)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    static const char *const fld[6] = {"branch_cnt", "target_cnt", "target_diffta", "exc_icnt",
                                       "exc_diffta", "diffcc"};
    const char *enc = tm_encoding_name(cfg->enc.enc);
    for (int i = 0; i < 6; i++)
        for (int k = 1; k < MAXCH; k++)
            if (c->chunks[i][k])
                fprintf(f, "%s.%s.chunks%d %" PRIu64 "\n", enc, fld[i], k, c->chunks[i][k]);
    fprintf(f, "sync_start %" PRIu64 "\nsync_overflow %" PRIu64 "\nend_exit %" PRIu64 "\nend_stop %" PRIu64
               "\nend_lost %" PRIu64 "\nexception %" PRIu64 "\ndrop %" PRIu64 "\n",
            c->sync[0], c->sync[2], c->end_exit, c->end_stop, c->end_lost, c->exc, c->drops);
    fprintf(f, "ras_wrap %" PRIu64 "\nras_underflow %" PRIu64 "\nibtb_fill_way0 %" PRIu64
               "\nibtb_fill_way1 %" PRIu64 "\n",
            c->pred.ras_wraps, c->pred.ras_underflows, c->pred.ibtb_fills[0], c->pred.ibtb_fills[1]);
    for (unsigned i = 0; i < cfg->enc.threads && i < 64; i++)
        for (unsigned j = i + 1; j < cfg->enc.threads && j < 64; j++)
            fprintf(f, "conflict.%u.%u %" PRIu64 "\n", i, j, c->pair[i][j]);
    return fclose(f);
}

/* ---------------------------------------------------------------- compare */

typedef struct sim {
    const char *tmc;
    tm_model_cfg cfg;
    evlist evs;
    size_t next_ev;
    const tm_bitbuf *trace;
    uint64_t port_pos;     /* bits of the trace the port has sent */
    uint64_t occ;          /* expected occupancy (spec §3.6) */
    uint64_t model_cycles;
    int quiet;
    char why[2048];
    uint64_t fail_cycle;
} sim;

static int mismatch(sim *s, uint64_t cycle, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int mismatch(sim *s, uint64_t cycle, const char *fmt, ...)
{
    if (!s->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->why, sizeof s->why, fmt, ap);
        va_end(ap);
        s->fail_cycle = cycle;
    }
    return 1;
}

static const char *kname(unsigned k)
{
    static const char *const n[] = {"BRANCH", "EXC", "SYNC", "END", "DATA"};
    return k < 5 ? n[k] : "?";
}

/* Field-by-field comparison of the model's message and the RTL's offer. */
static int compare_msg(sim *s, uint64_t cycle, unsigned core, const ev *e, const tb_offer *o)
{
    char buf[1536];
    int n = 0, bad = 0;
    const tm_msg *m = &e->m;
#define F(name, want, got)                                                                          \
    do {                                                                                            \
        uint64_t w_ = (uint64_t)(want), g_ = (uint64_t)(got);                                       \
        n += snprintf(buf + n, sizeof buf - (size_t)n, "    %-9s expected %-20" PRIu64 " got %-20" PRIu64 \
                      "%s\n", name, w_, g_, w_ == g_ ? "" : "  <--");                               \
        bad |= w_ != g_;                                                                            \
    } while (0)
    F("accepted", e->accepted, o->accept);
    F("length", e->len, o->len);
    F("kind", m->kind, o->kind);
    F("ti", m->ti, o->ti);
    F("cnt", m->cnt, o->cnt);
    F("t", m->t, o->t);
    F("diffTA", (uint64_t)m->diff_ta, o->diff_ta);
    F("iCnt", m->icnt, o->icnt);
    F("gap", m->gap, o->gap);
    F("addr", m->addr, o->addr);
    F("reason", m->reason, o->reason);
    F("lost", m->lost, o->lost);
    F("dropped", m->dropped, o->dropped);
    if (s->cfg.enc.timestamps)
        F("diffCC", m->diff_cc, o->diff_cc);
#undef F
    if (!bad)
        return 0;
    return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: %s message differs (model / RTL):\n%s", cycle, core,
                    kname(m->kind), buf);
}

/* One cycle of the RTL after its inputs are set: compare offers and port. */
static int check_cycle(sim *s, tb_rtl *r, uint64_t cycle, cov *c)
{
    unsigned N = s->cfg.enc.threads;
    tb_offer o[64];
    for (unsigned k = 0; k < N; k++)
        tb_rtl_offer(r, k, &o[k]);
    for (unsigned i = 0; i < N && i < 64; i++)
        for (unsigned j = i + 1; j < N && j < 64; j++)
            if (o[i].offer && o[j].offer)
                c->pair[i][j]++;
    /* Port first: it carries the bits of the buffer at the start of the cycle. */
    uint64_t lo, hi;
    unsigned got = tb_rtl_port(r, &lo, &hi);
    unsigned want = (unsigned)(s->occ < s->cfg.port_bits ? s->occ : s->cfg.port_bits);
    if (got != want)
        return mismatch(s, cycle, "cycle %" PRIu64 ": the port carries %u bits, the model %u (occupancy %" PRIu64 ")",
                        cycle, got, want, s->occ);
    for (unsigned b = 0; b < got; b++) {
        uint64_t pos = s->port_pos + b;
        unsigned wb = (s->trace->data[pos / 8] >> (pos % 8)) & 1u;
        unsigned gb = (unsigned)((lo >> b) & 1u);
        if (wb != gb)
            return mismatch(s, cycle, "cycle %" PRIu64 ": port lane %u (trace bit %" PRIu64 ") is %u, the model's is %u",
                            cycle, b, pos, gb, wb);
    }
    s->port_pos += got;
    s->occ -= got;
    /* Offers, in core order. */
    for (unsigned k = 0; k < N; k++) {
        int reported = o[k].accept || o[k].drop;
        const ev *e = s->next_ev < s->evs.n ? &s->evs.v[s->next_ev] : NULL;
        int expected = e && e->cycle == cycle && e->core == k;
        if (!reported && !expected)
            continue;
        if (reported && !expected)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the RTL %s a %s message (cnt %" PRIu64
                            ", iCnt %" PRIu64 ") the model does not offer",
                            cycle, k, o[k].accept ? "accepts" : "drops", kname(o[k].kind), o[k].cnt, o[k].icnt);
        if (!reported && expected)
            return mismatch(s, cycle, "cycle %" PRIu64 ", core %u: the model %s a %s message (cnt %" PRIu64
                            ", iCnt %" PRIu64 "), the RTL offers %s",
                            cycle, k, e->accepted ? "accepts" : "drops", kname(e->m.kind), e->m.cnt, e->m.icnt,
                            o[k].offer ? "a message that is neither accepted nor dropped" : "nothing");
        if (compare_msg(s, cycle, k, e, &o[k]))
            return 1;
        if (e->accepted) {
            s->occ += e->len;
            cov_msg(c, &s->cfg.enc, &e->m);
        } else {
            c->drops++;
        }
        s->next_ev++;
    }
    return 0;
}

/* ---------------------------------------------------------------- driving */

typedef struct group_state {
    tb_retire in[1024];
    tb_retire prev[1024]; /* what the RTL's inputs hold now */
    int started[1024], exited[1024];
} group_state;

static void clear_inputs(group_state *g, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        memset(&g->in[k], 0, sizeof g->in[k]);
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
        in->event = 1;
        in->flag = (r->flags & TMC_START_TRACE_ON) != 0;
        in->pc = r->pc;
        g->started[r->tid] = 1;
        break;
    case TMC_EXIT:
        in->event = 2;
        in->flag = (r->flags & TMC_EXIT_TRACE_OFF) != 0;
        g->exited[r->tid] = 1;
        break;
    case TMC_BRANCH:
        in->event = 3;
        in->bclass = r->bclass;
        in->taken = r->taken;
        in->pc = r->pc;
        in->len = r->len;
        in->target = r->target;
        break;
    case TMC_EXC:
        in->event = 4;
        in->pc = r->pc;
        in->target = r->target;
        break;
    default:
        break;
    }
}

/* Runs the RTL over the stream.  WAVE_FROM..WAVE_TO: cycles to dump (if WAVE). */
static int run_rtl(sim *s, const char *wave, uint64_t wave_from, uint64_t wave_to, cov *c, uint64_t *cycles_out)
{
    unsigned N = s->cfg.enc.threads;
    tmc_reader *rd = NULL;
    if (tmc_reader_open(s->tmc, &rd) != TM_OK) {
        fprintf(stderr, "tm cosim: %s\n", rd ? tmc_reader_error(rd) : s->tmc);
        tmc_reader_close(rd);
        return 2;
    }
    tb_rtl *r = tb_rtl_new();
    tb_rtl_reset(r);
    group_state *g = calloc(1, sizeof *g);
    s->next_ev = 0;
    s->port_pos = 0;
    s->occ = 0;
    s->why[0] = 0;
    int waving = 0, rc = 0, more;
    tmc_record rec;
    uint64_t cycle = 0, last_cycle = 0;
    int have = 0, any = 0;
    if ((more = tmc_reader_next(rd, &rec)) == 1)
        have = 1;
    for (;;) {
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
        clear_inputs(g, N);
        while (have && (rec.type == TMC_MODULE || rec.type == TMC_END || rec.type == TMC_MEM)) {
            have = (more = tmc_reader_next(rd, &rec)) == 1;
        }
        while (have && rec.cycle == cycle) {
            add_record(g, &rec);
            any = 1;
            last_cycle = rec.cycle;
            do
                have = (more = tmc_reader_next(rd, &rec)) == 1;
            while (have && (rec.type == TMC_MODULE || rec.type == TMC_END || rec.type == TMC_MEM));
        }
        if (more < 0) {
            fprintf(stderr, "tm cosim: %s\n", tmc_reader_error(rd));
            rc = 2;
            break;
        }
        /* End-of-stream flush (spec §3.7): cycle L + 1 stops every live thread. */
        if (!have && any && cycle == last_cycle + 1)
            for (unsigned k = 0; k < N; k++)
                if (g->started[k] && !g->exited[k]) {
                    g->in[k].valid = 1;
                    g->in[k].event = 2;
                    g->in[k].flag = 1;
                }
        for (unsigned k = 0; k < N; k++)
            if (cycle == 0 || memcmp(&g->in[k], &g->prev[k], sizeof g->in[k])) {
                tb_rtl_set(r, k, &g->in[k]);
                g->prev[k] = g->in[k];
            }
        tb_rtl_eval(r);
        if (tb_rtl_cycle(r) != cycle) {
            rc = mismatch(s, cycle, "the RTL's cycle counter reads %" PRIu64 " in cycle %" PRIu64, tb_rtl_cycle(r),
                          cycle);
            break;
        }
        if (check_cycle(s, r, cycle, c)) {
            rc = 1;
            tb_rtl_clock(r);
            break;
        }
        tb_rtl_clock(r);
        cycle++;
        if (!have && cycle >= s->model_cycles && s->next_ev == s->evs.n)
            break;
        if (!have && cycle > s->model_cycles + 16) {
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
    }
    *cycles_out = cycle;
    free(g);
    tb_rtl_free(r);
    tmc_reader_close(rd);
    return rc;
}

/* ---------------------------------------------------------------- main */

static int usage_err(const char *msg, const char *arg)
{
    fprintf(stderr, "tm cosim: %s%s\n", msg, arg ? arg : "");
    return 2;
}

int main(int argc, char **argv)
{
    tb_params p;
    tb_rtl_params(&p);
    sim s;
    memset(&s, 0, sizeof s);
    tm_model_cfg *cfg = &s.cfg;
    memset(cfg, 0, sizeof *cfg);
    const char *wave = NULL, *covf = NULL;
    long long inject = -1; /* test only: corrupt the model's expectation from this cycle on */
    unsigned threads = 0, enc = 0, ts = 0, tsb = 64, shared = 0, ch[6] = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define U(name, dst)                                    \
    if (!strcmp(a, name)) {                             \
        if (!v)                                         \
            return usage_err("missing value for ", a);  \
        dst = (unsigned)strtoul(v, NULL, 10);           \
        i++;                                            \
        continue;                                       \
    }
        U("--threads", threads)
        U("--encoding", enc)
        U("--ts", ts)
        U("--ts-bits", tsb)
        U("--shared", shared)
        U("--gshare", cfg->pred.gshare)
        U("--ras", cfg->pred.ras)
        U("--ibtb", cfg->pred.ibtb)
        U("--buffer", cfg->buffer_bits)
        U("--port", cfg->port_bits)
#undef U
        if (!strcmp(a, "--chunks") && v) {
            if (sscanf(v, "%u,%u,%u,%u,%u,%u", &ch[0], &ch[1], &ch[2], &ch[3], &ch[4], &ch[5]) != 6)
                return usage_err("--chunks needs a,b,c,d,e,f: ", v);
            i++;
        } else if (!strcmp(a, "--wave") && v) {
            wave = v;
            i++;
        } else if (!strcmp(a, "--inject-fault") && v) {
            inject = strtoll(v, NULL, 10);
            i++;
        } else if (!strcmp(a, "--cov") && v) {
            covf = v;
            i++;
        } else if (!strcmp(a, "-q")) {
            s.quiet = 1;
        } else if (a[0] == '-') {
            return usage_err("unknown option ", a);
        } else {
            s.tmc = a;
        }
    }
    if (!s.tmc)
        return usage_err("no commit stream", NULL);
    tm_enc_cfg_default(&cfg->enc, (tm_encoding)enc, threads, (int)ts);
    cfg->enc.cnt_a = (uint8_t)ch[0]; cfg->enc.cnt_b = (uint8_t)ch[1];
    cfg->enc.ta_a = (uint8_t)ch[2]; cfg->enc.ta_b = (uint8_t)ch[3];
    cfg->enc.cc_a = (uint8_t)ch[4]; cfg->enc.cc_b = (uint8_t)ch[5];
    cfg->shared = (int)shared;
    cfg->ts_bits = tsb;
    char err[256];
    if (tm_model_cfg_resolve(cfg, err, sizeof err) != TM_OK)
        return usage_err(err, NULL);
    /* The simulator was built for one parameter set: refuse any other. */
    unsigned want[16] = {threads, enc, ts, tsb, shared, cfg->pred.gshare, cfg->pred.ras, cfg->pred.ibtb,
                         ch[0], ch[1], ch[2], ch[3], ch[4], ch[5], cfg->buffer_bits, cfg->port_bits};
    unsigned have[16] = {p.n, p.enc, p.ts, p.ts_bits, p.shared, p.gshare, p.ras, p.ibtb,
                         p.ca, p.cb, p.ta, p.tb, p.ha, p.hb, p.buf_bits, p.port_bits};
    if (memcmp(want, have, sizeof want))
        return usage_err("the configuration differs from the parameters this simulator was built with", NULL);

    /* Pass 1: the model. */
    tm_model *m = NULL;
    if (tm_model_new(cfg, &m) != TM_OK)
        return usage_err("cannot create the model", NULL);
    tm_model_set_hook(m, hook, &s.evs);
    tmc_reader *rd = NULL;
    if (tmc_reader_open(s.tmc, &rd) != TM_OK) {
        fprintf(stderr, "tm cosim: %s\n", rd ? tmc_reader_error(rd) : s.tmc);
        tmc_reader_close(rd);
        tm_model_free(m);
        return 1;
    }
    if (tmc_reader_threads(rd) != threads) {
        fprintf(stderr, "tm cosim: %s declares %u threads, the simulator was built for %u\n", s.tmc,
                tmc_reader_threads(rd), threads);
        return 2;
    }
    tmc_record rec;
    int more;
    uint64_t insns = 0;
    while ((more = tmc_reader_next(rd, &rec)) == 1) {
        if (rec.type == TMC_RUN)
            insns += rec.count;
        else if (rec.type == TMC_BRANCH)
            insns++;
        if (tm_model_put(m, &rec) != TM_OK) {
            fprintf(stderr, "tm cosim: %s: %s\n", s.tmc, tm_model_error(m));
            return 1;
        }
    }
    if (more < 0) {
        fprintf(stderr, "tm cosim: %s\n", tmc_reader_error(rd));
        return 1;
    }
    tmc_reader_close(rd);
    tm_model_finish(m);
    if (s.evs.oom) {
        fprintf(stderr, "tm cosim: out of memory\n");
        return 1;
    }
    s.trace = tm_model_trace(m);
    s.model_cycles = tm_model_get_stats(m)->cycles;
    if (inject >= 0) {
        /* Proves that the comparison can fail: the first accepted message at
         * or after the cycle gets a different count, as a broken RTL would. */
        for (size_t i = 0; i < s.evs.n; i++)
            if (s.evs.v[i].cycle >= (uint64_t)inject && s.evs.v[i].accepted) {
                s.evs.v[i].m.cnt ^= 1;
                s.evs.v[i].m.icnt ^= 1;
                break;
            }
    }

    /* Pass 2: the RTL, cycle by cycle. */
    cov c;
    memset(&c, 0, sizeof c);
    uint64_t cycles = 0;
    int rc = run_rtl(&s, NULL, 0, 0, &c, &cycles);
    if (rc == 1) {
        printf("MISMATCH: %s", s.why);
        if (s.why[strlen(s.why) - 1] != '\n')
            printf("\n");
        if (wave) {
            uint64_t from = s.fail_cycle > 200 ? s.fail_cycle - 200 : 0;
            sim s2 = s;
            cov c2;
            memset(&c2, 0, sizeof c2);
            uint64_t cy2;
            s2.why[0] = 0;
            run_rtl(&s2, wave, from, s.fail_cycle + 2, &c2, &cy2);
            printf("waveform of cycles %" PRIu64 "..%" PRIu64 " written to %s\n", from, s.fail_cycle + 2, wave);
        }
    } else if (rc == 0) {
        size_t accepted = 0;
        for (size_t i = 0; i < s.evs.n; i++)
            accepted += s.evs.v[i].accepted;
        printf("PASS: %" PRIu64 " instructions, %zu messages (%zu dropped), %" PRIu64 " bits, %" PRIu64
               " cycles compared\n",
               insns, accepted, s.evs.n - accepted, s.trace->nbits, cycles);
        tm_model_pred_counts(m, &c.pred);
        if (covf && cov_write(covf, &c, cfg) != 0) {
            fprintf(stderr, "tm cosim: %s: cannot write coverage\n", covf);
            rc = 1;
        }
        if (!s.quiet) {
            unsigned bins = 0, hit = 0;
            for (int i = 0; i < 6; i++)
                for (int k = 1; k < MAXCH; k++)
                    if (c.chunks[i][k])
                        hit++;
            bins = hit;
            printf("coverage: %u field x chunk-count bins hit; sync start %" PRIu64 ", overflow %" PRIu64
                   "; end exit %" PRIu64 ", stop %" PRIu64 ", lost %" PRIu64 "; drops %" PRIu64
                   "; RAS wraps %" PRIu64 ", iBTB fills way0 %" PRIu64 " way1 %" PRIu64 "\n",
                   bins, c.sync[0], c.sync[2], c.end_exit, c.end_stop, c.end_lost, c.drops, c.pred.ras_wraps,
                   c.pred.ibtb_fills[0], c.pred.ibtb_fills[1]);
        }
    }
    free(s.evs.v);
    tm_model_free(m);
    return rc;
}
