/* Unit tests of the directed streams (tm gen --directed, gen/directed.c).
 *
 * Every stream is read back with the tmc reader (which checks every rule of
 * docs/spec.md §2.3), checked for a static program (one instruction per pc,
 * no overlapping instructions, plain instructions on one 4-byte grid) and
 * for determinism.  Then each stream shows its property, through the model's
 * public API and its message hook (tm/model.h) or the predictor API
 * (tm/pred.h):
 *   chunks     every chunk count of cnt, |diffTA| (both signs, BRANCH and
 *              EXC) and diffCC for tr_e (3,2)/(3,4)/(4,2) and tr_b/nx_b
 *              (8,8)/(16,16)/(8,8), and every exact boundary value 2^k - 1,
 *              2^k (counts and diffCC up to 2^20, |diffTA| up to 2^48);
 *              no message dropped
 *   ras        call depths over 32, returns that a 32-entry RAS mispredicts
 *              although calls are open, returns without any open call
 *   ibtb       one iBTB set (64 and 16 entries) sees several tags, hits with
 *              the right and the wrong target, replacements of valid entries
 *              in both ways, and a key that keeps hitting between misses
 *   samecycle  cycles in which every core offers a message
 *   overflow   drops with the smallest buffer and a 1-bit port, threads
 *              starting after the first drop
 *   idle, tswrap  the idle stretches and message gaps they promise
 *   all        every phase, and a late thread */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tm/gen.h"
#include "tm/model.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/tmc.h"

#define MAXT TM_GEN_DIR_MAX_THREADS

/* ---- temporary files and generation ---- */

typedef struct tfile {
    char path[64];
} tfile;

static void tfile_make(tfile *f)
{
    strcpy(f->path, "/tmp/tm-gendir-unit.XXXXXX");
    int fd = mkstemp(f->path);
    cr_assert_geq(fd, 0, "mkstemp failed");
    close(fd);
}

static void generate(tm_gen_directed kind, uint32_t threads, uint64_t seed, const char *path)
{
    tm_gen_directed_cfg c;
    tm_gen_directed_default(&c);
    c.kind = kind;
    c.threads = threads;
    c.seed = seed;
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(path, threads, 0, &w, NULL, 0), TM_OK);
    char err[256] = "";
    int rc = tm_gen_directed_run(&c, w, err, sizeof err);
    cr_assert_eq(rc, TM_OK, "%s: %s", tm_gen_directed_name(kind), err);
    cr_assert_eq(tmc_writer_close(w), TM_OK, "%s: %s", tm_gen_directed_name(kind),
                 tmc_writer_error(w));
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len + 1);
    cr_assert_eq(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* ---- reading a stream: a callback per record ---- */

typedef void (*rec_fn)(void *arg, const tmc_record *r);

/* Reads the whole stream (the reader validates it); returns the records. */
static uint64_t scan(const char *path, rec_fn fn, void *arg)
{
    tmc_reader *r = NULL;
    cr_assert_eq(tmc_reader_open(path, &r, NULL, 0), TM_OK, "open %s", path);
    tmc_record rec;
    int rc;
    uint64_t n = 0;
    while ((rc = tmc_reader_next(r, &rec)) == 1) {
        n++;
        if (fn)
            fn(arg, &rec);
    }
    cr_assert_eq(rc, 0, "reader: %s", tmc_reader_error(r));
    tmc_reader_close(r);
    return n;
}

/* ---- static program: one instruction per pc ---- */

static uint64_t hash64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

typedef struct ent {
    uint64_t k1, k2;   /* k1 = key + 1 (0 = empty) */
    uint64_t v1, v2;
} ent;

typedef struct hmap {
    ent *e;
    size_t cap, n;
} hmap;

static ent *hget(hmap *m, uint64_t k1, uint64_t k2, int *fresh)
{
    k1++;
    if ((m->n + 1) * 2 > m->cap) {
        hmap o = *m;
        m->cap = o.cap ? o.cap * 2 : 4096;
        m->e = calloc(m->cap, sizeof *m->e);
        cr_assert_not_null(m->e);
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.e[i].k1) {
                int f;
                ent *d = hget(m, o.e[i].k1 - 1, o.e[i].k2, &f);
                d->v1 = o.e[i].v1;
                d->v2 = o.e[i].v2;
            }
        free(o.e);
    }
    size_t i = hash64(k1 * 31 + k2) & (m->cap - 1);
    while (m->e[i].k1 && (m->e[i].k1 != k1 || m->e[i].k2 != k2))
        i = (i + 1) & (m->cap - 1);
    *fresh = !m->e[i].k1;
    if (*fresh) {
        m->e[i].k1 = k1;
        m->e[i].k2 = k2;
        m->n++;
    }
    return &m->e[i];
}

typedef struct ival {
    uint64_t a, b;  /* [a, b) */
    uint64_t len;   /* branch: its length; run: 0 */
} ival;

typedef struct sstat {
    uint32_t threads;
    hmap br, runs;
    uint64_t conflicts;        /* same pc, other class/length/direct target */
    uint64_t insns, exc, branch[TMC_NCLASSES], starts, exits, trace_on, trace_off;
    uint64_t last_cycle;
    uint64_t first_cycle[MAXT], start_cycle[MAXT];
    uint64_t prev_cycle[MAXT];
    uint64_t max_gap[MAXT], gaps_1e4[MAXT];  /* gaps between a thread's groups */
} sstat;

static void st_rec(void *arg, const tmc_record *r)
{
    sstat *s = arg;
    if (r->type < TMC_START || r->type > TMC_MEM)
        return;
    s->last_cycle = r->cycle;
    uint32_t t = r->tid;
    if (r->type == TMC_START) {
        s->starts++;
        s->start_cycle[t] = r->cycle;
        s->prev_cycle[t] = r->cycle;
        s->trace_on += (r->flags & TMC_START_TRACE_ON) != 0;
    } else if (r->cycle != s->prev_cycle[t]) {
        uint64_t gap = r->cycle - s->prev_cycle[t];
        if (gap > s->max_gap[t])
            s->max_gap[t] = gap;
        s->gaps_1e4[t] += gap >= 10000;
        s->prev_cycle[t] = r->cycle;
    }
    int fresh;
    switch (r->type) {
    case TMC_EXIT:
        s->exits++;
        s->trace_off += (r->flags & TMC_EXIT_TRACE_OFF) != 0;
        break;
    case TMC_EXC:
        s->exc++;
        break;
    case TMC_RUN:
        s->insns += r->count;
        hget(&s->runs, r->pc, r->count, &fresh);
        break;
    case TMC_BRANCH: {
        s->insns++;
        s->branch[r->bclass]++;
        int direct = r->bclass == TMC_COND || r->bclass == TMC_JUMP || r->bclass == TMC_CALL;
        ent *e = hget(&s->br, r->pc, 0, &fresh);
        uint64_t v1 = (uint64_t)r->bclass << 8 | r->len, v2 = direct ? r->target : 0;
        if (fresh) {
            e->v1 = v1;
            e->v2 = v2;
        } else if (e->v1 != v1 || e->v2 != v2) {
            s->conflicts++;
        }
        break;
    }
    default:
        break;
    }
}

static int ival_cmp(const void *x, const void *y)
{
    const ival *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : (a->len > b->len) - (a->len < b->len);
}

/* Reads PATH and checks the static program: no instruction overlaps another
 * one (a branch with a branch or with a run's plain instructions), and runs
 * that overlap share their 4-byte instruction grid. */
static void read_static(const char *path, sstat *s)
{
    memset(s, 0, sizeof *s);
    scan(path, st_rec, s);
    cr_assert_eq(s->conflicts, 0, "%s: %lu pcs with two different instructions", path,
                 (unsigned long)s->conflicts);
    size_t n = s->br.n + s->runs.n, k = 0;
    ival *v = malloc((n ? n : 1) * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < s->br.cap; i++)
        if (s->br.e[i].k1)
            v[k++] = (ival){s->br.e[i].k1 - 1, s->br.e[i].k1 - 1 + (s->br.e[i].v1 & 0xFF),
                            s->br.e[i].v1 & 0xFF};
    for (size_t i = 0; i < s->runs.cap; i++)
        if (s->runs.e[i].k1)
            v[k++] = (ival){s->runs.e[i].k1 - 1, s->runs.e[i].k1 - 1 + 4 * s->runs.e[i].k2, 0};
    qsort(v, k, sizeof *v, ival_cmp);
    /* sweep: the current merged run interval and the last branch end */
    uint64_t run_a = 0, run_b = 0, br_end = 0;
    uint64_t bad = 0;
    for (size_t i = 0; i < k; i++) {
        if (v[i].len) {  /* a branch: not inside a run, not over another branch */
            if (v[i].a < run_b || v[i].a < br_end)
                bad++;
            br_end = v[i].b;
        } else {
            if (v[i].a < br_end)
                bad++;
            if (v[i].a < run_b) {
                if ((v[i].a - run_a) % 4)
                    bad++;
                if (v[i].b > run_b)
                    run_b = v[i].b;
            } else {
                run_a = v[i].a;
                run_b = v[i].b;
            }
        }
    }
    free(v);
    cr_assert_eq(bad, 0, "%s: %lu overlapping instructions", path, (unsigned long)bad);
}

static void sstat_free(sstat *s)
{
    free(s->br.e);
    free(s->runs.e);
}

/* ---- running the model ---- */

typedef struct mopts {
    tm_encoding enc;
    int ts, shared;
    const char *preset;
    int min_buffer;
    uint32_t port;
} mopts;

typedef struct mfeed {
    tm_model *m;
} mfeed;

static void feed(void *arg, const tmc_record *r)
{
    mfeed *f = arg;
    int rc = tm_model_put(f->m, r);
    cr_assert_eq(rc, TM_OK, "model: %s", tm_model_error(f->m));
}

/* Runs the model on PATH; fills *ST and PER (per-thread stats, may be NULL). */
static void model_run(const char *path, uint32_t threads, const mopts *o, tm_model_msg_hook hook,
                      void *arg, tm_model_stats *st, tm_thread_stats *per)
{
    tm_model_cfg cfg;
    tm_model_cfg_default(&cfg, threads);
    tm_enc_cfg_default(&cfg.enc, o->enc, threads, o->ts);
    cr_assert_eq(tm_model_preset(&cfg, o->preset ? o->preset : "large"), TM_OK);
    cfg.shared = o->shared;
    if (o->min_buffer)
        cfg.buffer_bits = tm_msg_max_bits(&cfg.enc);
    cfg.port_bits = o->port;
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(&cfg, err, sizeof err), TM_OK, "%s", err);
    mfeed f = {NULL};
    cr_assert_eq(tm_model_new(&cfg, &f.m, NULL, 0), TM_OK);
    if (hook)
        tm_model_set_hook(f.m, hook, arg);
    scan(path, feed, &f);
    cr_assert_eq(tm_model_finish(f.m), TM_OK, "finish: %s", tm_model_error(f.m));
    if (st)
        *st = *tm_model_get_stats(f.m);
    if (per)
        for (uint32_t t = 0; t < threads; t++)
            per[t] = *tm_model_thread_stats(f.m, t);
    tm_model_free(f.m);
}

/* Chunks of V with chunk sizes (A, B) (spec §4.2). */
static unsigned nchunks(uint64_t v, unsigned a, unsigned b)
{
    unsigned bits = tm_chunked_bits(v, a, b);
    return 1 + (bits - a - 1) / (b + 1);
}

/* V = 2^k (*w = 1) or 2^k - 1 (*w = 0, k >= 1; 0 is 2^0 - 1): 1, else 0. */
static int boundary(uint64_t v, unsigned *k, unsigned *w)
{
    if (v && !(v & (v - 1))) {
        *k = (unsigned)__builtin_ctzll(v);
        *w = 1;
        return 1;
    }
    if (!((v + 1) & v)) {
        *k = v == UINT64_MAX ? 64 : (unsigned)__builtin_ctzll(v + 1);
        *w = 0;
        return 1;
    }
    return 0;
}

/* ---- the generic checks ---- */

Test(gen_directed, names_parse_and_check)
{
    for (int k = 0; k < TM_GEN_DIR_COUNT; k++) {
        const char *n = tm_gen_directed_name(k);
        cr_assert_not_null(n);
        cr_assert_eq(tm_gen_directed_parse(n), k);
        cr_assert_not_null(strstr(tm_gen_directed_names(), n));
    }
    cr_assert_null(tm_gen_directed_name(TM_GEN_DIR_COUNT));
    cr_assert_eq(tm_gen_directed_parse("bogus"), -1);
    tm_gen_directed_cfg c;
    tm_gen_directed_default(&c);
    cr_assert_eq(c.threads, 4u);
    char err[200];
    cr_assert_eq(tm_gen_directed_check(&c, err, sizeof err), TM_OK);
    c.threads = 0;
    cr_assert_eq(tm_gen_directed_check(&c, err, sizeof err), TM_ERR_ARG);
    cr_assert_not_null(strstr(err, "--threads 0: allowed 1..64"), "%s", err);
    c.threads = 65;
    cr_assert_eq(tm_gen_directed_check(&c, err, sizeof err), TM_ERR_ARG);
    c.threads = 64;
    c.kind = (tm_gen_directed)TM_GEN_DIR_COUNT;
    cr_assert_eq(tm_gen_directed_check(&c, err, sizeof err), TM_ERR_ARG);
}

/* Every stream, with 1, 3 and 8 threads: valid, static, every thread
 * started, below 50M cycles; same seed same bytes. */
Test(gen_directed, every_stream_valid_static_deterministic, .timeout = 600)
{
    static const uint32_t ns[] = {1, 3, 8};
    tfile a, b;
    tfile_make(&a);
    tfile_make(&b);
    for (int k = 0; k < TM_GEN_DIR_COUNT; k++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
            uint32_t n = ns[j];
            /* the long ones once, with 3 threads */
            if ((k == TM_GEN_DIR_CHUNKS || k == TM_GEN_DIR_ALL) && n != 3)
                continue;
            generate((tm_gen_directed)k, n, 5, a.path);
            sstat s;
            read_static(a.path, &s);
            cr_assert_eq(s.starts, n, "%s n=%u: %lu starts", tm_gen_directed_name(k), n,
                         (unsigned long)s.starts);
            cr_assert_lt(s.last_cycle, 50000000ULL, "%s n=%u: %lu cycles",
                         tm_gen_directed_name(k), n, (unsigned long)s.last_cycle);
            cr_assert_gt(s.insns, 0);
            sstat_free(&s);
            generate((tm_gen_directed)k, n, 5, b.path);
            size_t la, lb;
            uint8_t *x = slurp(a.path, &la), *y = slurp(b.path, &lb);
            cr_assert(la == lb && !memcmp(x, y, la), "%s n=%u: two runs differ",
                      tm_gen_directed_name(k), n);
            free(x);
            free(y);
        }
    /* the seed changes the random ones */
    generate(TM_GEN_DIR_OVERFLOW, 4, 5, a.path);
    generate(TM_GEN_DIR_OVERFLOW, 4, 6, b.path);
    size_t la, lb;
    uint8_t *x = slurp(a.path, &la), *y = slurp(b.path, &lb);
    cr_assert(la != lb || memcmp(x, y, la), "seeds 5 and 6 give the same overflow stream");
    free(x);
    free(y);
    unlink(a.path);
    unlink(b.path);
}

/* ---- chunks ---- */

typedef struct cov {
    unsigned ca, cb, ta, tb, ha, hb;
    uint8_t cnt[70], icnt[70], cc[70];
    uint8_t ta_br[2][70], ta_exc[2][70];             /* [negative][chunks] */
    uint8_t x_cnt[65][2], x_icnt[65][2], x_cc[65][2]; /* exact 2^k - 1, 2^k */
    uint8_t x_ta[2][2][65][2];                       /* [exc][negative][k][w] */
    uint64_t dropped;
} cov;

static void cov_hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits,
                     int accepted)
{
    (void)cycle;
    (void)core;
    (void)bits;
    cov *c = arg;
    unsigned k, w;
    if (!accepted) {
        c->dropped++;
        return;
    }
    c->cc[nchunks(m->diff_cc, c->ha, c->hb)] = 1;
    if (boundary(m->diff_cc, &k, &w))
        c->x_cc[k][w] = 1;
    if (m->kind == TM_MSG_BRANCH) {
        c->cnt[nchunks(m->cnt, c->ca, c->cb)] = 1;
        if (boundary(m->cnt, &k, &w))
            c->x_cnt[k][w] = 1;
    }
    if (m->kind == TM_MSG_EXC) {
        c->icnt[nchunks(m->icnt, c->ca, c->cb)] = 1;
        if (boundary(m->icnt, &k, &w))
            c->x_icnt[k][w] = 1;
    }
    if ((m->kind == TM_MSG_BRANCH && m->t) || m->kind == TM_MSG_EXC) {
        int neg = m->diff_ta < 0, exc = m->kind == TM_MSG_EXC;
        uint64_t mag = neg ? 0 - (uint64_t)m->diff_ta : (uint64_t)m->diff_ta;
        (exc ? c->ta_exc : c->ta_br)[neg][nchunks(mag, c->ta, c->tb)] = 1;
        if (boundary(mag, &k, &w))
            c->x_ta[exc][neg][k][w] = 1;
    }
}

static void chunks_check(const char *path, tm_encoding enc, unsigned max_cnt, unsigned max_ta,
                         unsigned max_cc)
{
    cov c;
    memset(&c, 0, sizeof c);
    tm_enc_cfg e;
    tm_enc_cfg_default(&e, enc, 2, 1);
    c.ca = e.cnt_a, c.cb = e.cnt_b, c.ta = e.ta_a, c.tb = e.ta_b, c.ha = e.cc_a, c.hb = e.cc_b;
    mopts o = {.enc = enc, .ts = 1};
    model_run(path, 2, &o, cov_hook, &c, NULL, NULL);
    const char *en = tm_encoding_name(enc);
    cr_assert_eq(c.dropped, 0, "%s: %lu dropped", en, (unsigned long)c.dropped);
    for (unsigned k = 1; k <= max_cnt; k++) {
        cr_assert(c.cnt[k], "%s: no BRANCH cnt of %u chunks", en, k);
        cr_assert(c.icnt[k], "%s: no EXC iCnt of %u chunks", en, k);
    }
    cr_assert(!c.cnt[max_cnt + 1], "%s: cnt beyond %u chunks", en, max_cnt);
    for (unsigned k = 1; k <= max_ta; k++)
        for (int neg = 0; neg < 2; neg++) {
            cr_assert(c.ta_br[neg][k], "%s: no BRANCH %c|diffTA| of %u chunks", en,
                      neg ? '-' : '+', k);
            cr_assert(c.ta_exc[neg][k], "%s: no EXC %c|diffTA| of %u chunks", en,
                      neg ? '-' : '+', k);
        }
    for (unsigned k = 1; k <= max_cc; k++)
        cr_assert(c.cc[k], "%s: no diffCC of %u chunks", en, k);
    /* exact boundary values (as boundary() names them: 1 is 2^0, 0 is 2^0-1) */
    for (unsigned k = 0; k <= 48; k++)
        for (unsigned w = 0; w < 2; w++) {
            uint64_t v = w ? 1ULL << k : (1ULL << k) - 1;
            unsigned kk, ww;
            cr_assert(boundary(v, &kk, &ww));
            if (k <= 20) {
                if (v) {
                    cr_assert(c.x_cnt[kk][ww], "%s: cnt %lu missing", en, (unsigned long)v);
                    cr_assert(c.x_cc[kk][ww], "%s: diffCC %lu missing", en, (unsigned long)v);
                }
                cr_assert(c.x_icnt[kk][ww], "%s: EXC iCnt %lu missing", en, (unsigned long)v);
            }
            for (int exc = 0; exc < 2; exc++)
                for (int neg = 0; neg < 2; neg++)
                    if (v || (exc && !neg))
                        cr_assert(c.x_ta[exc][neg][kk][ww], "%s: %s diffTA %c%lu missing", en,
                                  exc ? "EXC" : "BRANCH", neg ? '-' : '+', (unsigned long)v);
        }
}

Test(gen_directed, chunks_cover_every_chunk_count_and_boundary, .timeout = 600)
{
    tfile f;
    tfile_make(&f);
    generate(TM_GEN_DIR_CHUNKS, 2, 1, f.path);
    /* counts up to 2^20 (21 bits), |diffTA| up to 2^48 (49 bits; larger
     * jumps between the phases reach more), diffCC up to 2^20 */
    chunks_check(f.path, TM_ENC_TR_E, 10, 13, 10); /* (3,2) (3,4) (4,2) */
    chunks_check(f.path, TM_ENC_TR_B, 3, 4, 3);    /* (8,8) (16,16) (8,8) */
    chunks_check(f.path, TM_ENC_NX_B, 3, 4, 3);    /* SL */
    unlink(f.path);
}

/* ---- ras ---- */

typedef struct rasst {
    tm_pred *p[MAXT];
    uint64_t depth[MAXT], max_depth[MAXT];
    uint64_t wrapped_miss[MAXT];  /* ret mispredicted although a call is open */
    uint64_t empty_ret[MAXT];     /* ret with no open call */
    uint64_t miss[MAXT];
} rasst;

static void ras_rec(void *arg, const tmc_record *r)
{
    rasst *s = arg;
    if (r->type != TMC_BRANCH)
        return;
    uint32_t t = r->tid;
    if (r->bclass == TMC_CALL || r->bclass == TMC_ICALL) {
        tm_pred_ras_push(s->p[t], r->pc + r->len);
        if (++s->depth[t] > s->max_depth[t])
            s->max_depth[t] = s->depth[t];
    } else if (r->bclass == TMC_RET) {
        uint64_t tg = 0;
        int ok = tm_pred_ras_pop(s->p[t], &tg) && tg == r->target;
        s->miss[t] += !ok;
        if (s->depth[t]) {
            s->wrapped_miss[t] += !ok;
            s->depth[t]--;
        } else {
            s->empty_ret[t]++;
        }
    }
}

Test(gen_directed, ras_overflows_and_underflows_a_32_entry_ras)
{
    const uint32_t n = 3;
    tfile f;
    tfile_make(&f);
    generate(TM_GEN_DIR_RAS, n, 1, f.path);
    rasst s;
    memset(&s, 0, sizeof s);
    tm_pred_cfg pc = {.ras = 32};
    for (uint32_t t = 0; t < n; t++)
        cr_assert_eq(tm_pred_new(&pc, &s.p[t]), TM_OK);
    scan(f.path, ras_rec, &s);
    tm_thread_stats per[3];
    mopts o = {.enc = TM_ENC_TR_E};
    model_run(f.path, n, &o, NULL, NULL, NULL, per);
    for (uint32_t t = 0; t < n; t++) {
        cr_assert_geq(s.max_depth[t], 64, "T%u: call depth %lu", t, (unsigned long)s.max_depth[t]);
        /* returns beyond depth 32 (the oldest entries were overwritten) */
        cr_assert_geq(s.wrapped_miss[t], 100, "T%u: %lu returns beyond the RAS", t,
                      (unsigned long)s.wrapped_miss[t]);
        cr_assert_geq(s.empty_ret[t], 10, "T%u: %lu returns without calls", t,
                      (unsigned long)s.empty_ret[t]);
        /* the model mispredicts at least those (ijump/icall misses add) */
        cr_assert_geq(per[t].target_mispredicted, s.miss[t]);
        cr_assert_gt(per[t].target_predicted, 0);
        tm_pred_free(s.p[t]);
    }
    unlink(f.path);
}

/* ---- ibtb ---- */

typedef struct ibset {
    uint32_t tags[64];
    unsigned ntags;
    uint64_t acc, hit_ok, hit_wrong, miss, repl[2];
    uint64_t keep;         /* hit of X, miss of another tag, hit of X again */
    uint32_t last_hit, last_kind;  /* last_kind: 0 none, 1 hit, 2 miss after a hit */
    uint8_t valid[2];
} ibset;

typedef struct ibst {
    tm_pred *p;
    ibset set[32];
} ibst;

static void ib_rec(void *arg, const tmc_record *r)
{
    ibst *s = arg;
    if (r->type != TMC_BRANCH || (r->bclass != TMC_IJUMP && r->bclass != TMC_ICALL))
        return;
    uint32_t set, tag;
    tm_pred_ibtb_slot(s->p, r->pc, &set, &tag);
    ibset *b = &s->set[set];
    b->acc++;
    unsigned i;
    for (i = 0; i < b->ntags && b->tags[i] != tag; i++)
        ;
    if (i == b->ntags && b->ntags < 64)
        b->tags[b->ntags++] = tag;
    uint64_t pt = 0;
    int hit = tm_pred_ind_predict(s->p, r->pc, &pt);
    tm_pred_counts c0, c1;
    tm_pred_get_counts(s->p, &c0);
    tm_pred_ind_update(s->p, r->pc, r->target);
    tm_pred_get_counts(s->p, &c1);
    if (hit) {
        if (pt == r->target)
            b->hit_ok++;
        else
            b->hit_wrong++;
        if (b->last_kind == 2 && b->last_hit == tag)
            b->keep++;
        b->last_hit = tag;
        b->last_kind = 1;
    } else {
        b->miss++;
        for (int w = 0; w < 2; w++)
            if (c1.ibtb_fills[w] != c0.ibtb_fills[w]) {
                if (b->valid[w])
                    b->repl[w]++;
                b->valid[w] = 1;
            }
        if (b->last_kind == 1)
            b->last_kind = 2;
    }
}

static void ibtb_check(const char *path, uint32_t entries)
{
    ibst s;
    memset(&s, 0, sizeof s);
    tm_pred_cfg pc = {.ibtb = entries};
    cr_assert_eq(tm_pred_new(&pc, &s.p), TM_OK);
    scan(path, ib_rec, &s);
    /* the test set: the one with the most tags */
    const ibset *b = &s.set[0];
    for (unsigned i = 1; i < entries / 2; i++)
        if (s.set[i].ntags > b->ntags)
            b = &s.set[i];
    cr_assert_geq(b->ntags, 9, "iBTB %u: %u tags in one set", entries, b->ntags);
    cr_assert_geq(b->hit_ok, 50, "iBTB %u: %lu hits", entries, (unsigned long)b->hit_ok);
    cr_assert_geq(b->hit_wrong, 10, "iBTB %u: %lu wrong-target hits", entries,
                  (unsigned long)b->hit_wrong);
    cr_assert_geq(b->repl[0], 10, "iBTB %u: way 0 replaced %lu times", entries,
                  (unsigned long)b->repl[0]);
    cr_assert_geq(b->repl[1], 10, "iBTB %u: way 1 replaced %lu times", entries,
                  (unsigned long)b->repl[1]);
    cr_assert_geq(b->keep, 5, "iBTB %u: LRU kept a hitting key %lu times", entries,
                  (unsigned long)b->keep);
    tm_pred_free(s.p);
}

Test(gen_directed, ibtb_conflicts_replacement_and_lru_in_one_set)
{
    tfile f;
    tfile_make(&f);
    generate(TM_GEN_DIR_IBTB, 1, 1, f.path);
    ibtb_check(f.path, 64);
    ibtb_check(f.path, 32);
    ibtb_check(f.path, 16);
    unlink(f.path);
}

/* ---- samecycle ---- */

typedef struct sc {
    uint32_t n;
    uint64_t cycle, mask;
    uint64_t all_cycles, max_run, run;
} sc;

static void sc_close(sc *s)
{
    uint64_t full = s->n == 64 ? ~0ULL : (1ULL << s->n) - 1;
    if (s->mask == full)
        s->all_cycles++;
}

static void sc_hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits,
                    int accepted)
{
    (void)m;
    (void)bits;
    (void)accepted;
    sc *s = arg;
    if (cycle != s->cycle) {
        sc_close(s);
        s->cycle = cycle;
        s->mask = 0;
    }
    s->mask |= 1ULL << core;
}

Test(gen_directed, samecycle_every_core_offers_in_one_cycle)
{
    static const uint32_t ns[] = {2, 4, 8};
    tfile f;
    tfile_make(&f);
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        generate(TM_GEN_DIR_SAMECYCLE, ns[i], 1, f.path);
        for (int enc = 0; enc < 3; enc++) {
            sc s = {.n = ns[i], .cycle = UINT64_MAX};
            mopts o = {.enc = (tm_encoding)enc, .ts = 1};
            model_run(f.path, ns[i], &o, sc_hook, &s, NULL, NULL);
            sc_close(&s);
            cr_assert_geq(s.all_cycles, 200, "N=%u %s: %lu cycles with every core offering",
                          ns[i], tm_encoding_name((tm_encoding)enc), (unsigned long)s.all_cycles);
        }
    }
    unlink(f.path);
}

/* ---- overflow ---- */

typedef struct ov {
    uint64_t dropped, accepted, sync_overflow, end_lost, first_drop, last_drop;
} ov;

static void ov_hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits,
                    int accepted)
{
    (void)core;
    (void)bits;
    ov *s = arg;
    if (!accepted) {
        if (!s->dropped)
            s->first_drop = cycle;
        s->last_drop = cycle;
        s->dropped++;
        return;
    }
    s->accepted++;
    s->sync_overflow += m->kind == TM_MSG_SYNC && m->reason == TM_SYNC_OVERFLOW;
    s->end_lost += m->kind == TM_MSG_END && m->lost;
}

Test(gen_directed, overflow_drops_with_the_smallest_buffer_and_a_1_bit_port)
{
    static const uint32_t ns[] = {1, 4, 7};
    tfile f;
    tfile_make(&f);
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        uint32_t n = ns[i];
        generate(TM_GEN_DIR_OVERFLOW, n, 1, f.path);
        sstat st;
        read_static(f.path, &st);
        for (int enc = 0; enc < 3; enc++) {
            ov s;
            memset(&s, 0, sizeof s);
            mopts o = {.enc = (tm_encoding)enc, .ts = enc == 1, .min_buffer = 1, .port = 1};
            model_run(f.path, n, &o, ov_hook, &s, NULL, NULL);
            cr_assert_gt(s.dropped, 20, "N=%u: %lu dropped", n, (unsigned long)s.dropped);
            cr_assert_gt(s.sync_overflow, 5);
            if (n > 1) {
                /* the late threads start while others are lost */
                for (uint32_t t = (n + 1) / 2; t < n; t++) {
                    cr_assert_gt(st.start_cycle[t], s.first_drop, "T%u starts at %lu", t,
                                 (unsigned long)st.start_cycle[t]);
                    cr_assert_lt(st.start_cycle[t], s.last_drop);
                }
                cr_assert_gt(s.end_lost, 0, "N=%u: no END of a lost thread", n);
            }
        }
        if (n >= 4) {
            cr_assert_gt(st.trace_on, 0);
            cr_assert_gt(st.trace_off, 0);
            cr_assert_lt(st.exits, n, "some thread ends by the flush");
        }
        sstat_free(&st);
    }
    unlink(f.path);
}

/* ---- idle and tswrap ---- */

Test(gen_directed, idle_stretches_of_1e4_to_1e6_cycles)
{
    const uint32_t n = 4;
    tfile f;
    tfile_make(&f);
    generate(TM_GEN_DIR_IDLE, n, 1, f.path);
    sstat s;
    read_static(f.path, &s);
    for (uint32_t t = 0; t < n; t++) {
        cr_assert_eq(s.gaps_1e4[t], 12, "T%u: %lu idle stretches", t, (unsigned long)s.gaps_1e4[t]);
        cr_assert_geq(s.max_gap[t], 1000000);
        cr_assert_lt(s.max_gap[t], 1000100);
    }
    sstat_free(&s);
    unlink(f.path);
}

typedef struct tsw {
    uint64_t seen[MAXT][8];  /* diffCC 2^16-1, 2^16, 2^16+1, 2^20-1, 2^20, 2^20+1, >2^21, 0 */
    uint64_t dropped;
} tsw;

static void ts_hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits,
                    int accepted)
{
    (void)cycle;
    (void)bits;
    tsw *s = arg;
    if (!accepted) {
        s->dropped++;
        return;
    }
    static const uint64_t want[6] = {65535, 65536, 65537, 1048575, 1048576, 1048577};
    for (int i = 0; i < 6; i++)
        s->seen[core][i] += m->diff_cc == want[i];
    s->seen[core][6] += m->diff_cc > (1ULL << 21);
}

Test(gen_directed, tswrap_gaps_over_2_16_and_2_20)
{
    const uint32_t n = 3;
    tfile f;
    tfile_make(&f);
    generate(TM_GEN_DIR_TSWRAP, n, 1, f.path);
    tsw s;
    memset(&s, 0, sizeof s);
    mopts o = {.enc = TM_ENC_TR_E, .ts = 1};
    model_run(f.path, n, &o, ts_hook, &s, NULL, NULL);
    cr_assert_eq(s.dropped, 0);
    for (uint32_t t = 0; t < n; t++)
        for (int i = 0; i < 7; i++)
            cr_assert_gt(s.seen[t][i], 0, "T%u: diffCC kind %d missing", t, i);
    unlink(f.path);
}

/* ---- all ---- */

Test(gen_directed, all_mixes_every_phase, .timeout = 600)
{
    const uint32_t n = 4;
    tfile f;
    tfile_make(&f);
    generate(TM_GEN_DIR_ALL, n, 1, f.path);
    sstat s;
    read_static(f.path, &s);
    for (int c = 0; c < TMC_NCLASSES; c++)
        cr_assert_gt(s.branch[c], 0, "no %s", tmc_bclass_name((unsigned)c));
    cr_assert_gt(s.exc, 0);
    cr_assert_gt(s.branch[TMC_COND], 1000000, "the sled");
    /* the last thread starts in the overflow phase, long after the others */
    cr_assert_gt(s.start_cycle[n - 1], s.start_cycle[0] + 5000000);
    cr_assert_lt(s.last_cycle, 50000000ULL);
    sstat_free(&s);
    ov o;
    memset(&o, 0, sizeof o);
    mopts m = {.enc = TM_ENC_TR_E, .min_buffer = 1, .port = 1};
    model_run(f.path, n, &m, ov_hook, &o, NULL, NULL);
    cr_assert_gt(o.dropped, 0);
    unlink(f.path);
}
