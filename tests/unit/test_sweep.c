/* tm — unit tests of sweeps (stats/sweep.c, tm/sweep.h): K models fed in one
 * pass give byte for byte the traces and statistics of K separate runs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "genstream.h"
#include "tm/gen.h"
#include "tm/sweep.h"
#include "tm/tmcrec.h"


/* The configurations of the sweep: presets, encodings, time stamps,
 * shared predictors, a port that overflows, data tracing (with MEM). */
static size_t configs(tm_model_cfg *c, uint32_t threads, int mem)
{
    static const char *presets[] = {"small", "medium", "large"};
    size_t k = 0;
    for (int p = 0; p < 3; p++)
        for (int e = 0; e < 3; e++) {
            tm_model_cfg *x = &c[k++];
            tm_model_cfg_default(x, threads);
            cr_assert_eq(tm_model_preset(x, presets[p]), TM_OK);
            tm_enc_cfg_default(&x->enc, (tm_encoding)e, threads, p == 1);
            x->shared = p == 2 && e == 1;
            x->port_bits = e == 0 ? 2 : 0; /* nx_b through a 2-bit port: drops */
            if (mem && e == 2)
                x->enc.data = p == 0 ? TM_DATA_ALL : TM_DATA_CFIAT;
        }
    char err[256];
    for (size_t i = 0; i < k; i++)
        cr_assert_eq(tm_model_cfg_resolve(&c[i], err, sizeof err), TM_OK, "config %zu: %s", i, err);
    return k;
}

/* The records of S as compact records, in runs of 1 to 5000 records, into
 * M (tm_model_put_crecs; the MEM values beside them, each its size long;
 * the other types through tm_model_put, as tm_modelrun_feed does), then
 * tm_model_finish. */
static void put_as_crecs(tm_model *m, const gen_stream_t *s)
{
    tmc_crec *v = malloc(s->n * sizeof *v);
    uint8_t *vals = malloc(s->n * TMC_MAX_OPERAND + 1);
    cr_assert(v && vals);
    size_t nv = 0;
    for (size_t j = 0; j < s->n; j++) {
        tmc_crec_pack(&v[j], &s->r[j]);
        if (s->r[j].type == TMC_MEM) {
            memcpy(vals + nv, s->r[j].value, s->r[j].size);
            nv += s->r[j].size;
        }
    }
    tmc_crec_fence();
    size_t j = 0, jv = 0, run = 1;
    while (j < s->n) {
        size_t n = run < s->n - j ? run : s->n - j, done = 0, vdone = 0;
        cr_assert_eq(tm_model_put_crecs(m, v + j, n, vals + jv, &done, &vdone), TM_OK, "record %zu: %s",
                     j + done, tm_model_error(m));
        j += done;
        jv += vdone;
        if (done < n) { /* a record of another type (MODULE, END, ENDING): tm_model_put's */
            cr_assert(s->r[j].type > TMC_MEM, "record %zu of type %d: taken", j, (int)s->r[j].type);
            cr_assert_eq(tm_model_put(m, &s->r[j]), TM_OK);
            j++;
        }
        run = run * 7 % 5000 + 1;
    }
    cr_assert_eq(jv, nv, "the values taken");
    cr_assert_eq(tm_model_finish(m), TM_OK);
    free(v);
    free(vals);
}

static void same_as_alone(uint32_t threads, int mem, int groups)
{
    gen_stream_t s;
    gen_stream(&s, threads, 60000, 7 + threads, mem, 0.001);
    tm_model_cfg c[16];
    size_t k = configs(c, threads, mem);
    tm_sweep *sw = NULL;
    cr_assert_eq(tm_sweep_new(c, k, &sw, NULL, 0), TM_OK);
    cr_assert_eq(tm_sweep_count(sw), k);
    for (size_t j = 0; j < s.n; j++) {
        const tmc_record *r = &s.r[j];
        /* a RUN record as a group of its own: tm_sweep_put_group */
        if (groups && r->type == TMC_RUN) {
            tmc_group g = {r->tid, r->cycle, r->pc, r->count, r->bytes, 0, 0, 0, 0, NULL, NULL};
            cr_assert_eq(tm_sweep_put_group(sw, &g), TM_OK);
        } else {
            cr_assert_eq(tm_sweep_put(sw, r), TM_OK, "record %zu: model %zu: %s", j, tm_sweep_failed(sw),
                         tm_model_error(tm_sweep_model(sw, tm_sweep_failed(sw))));
        }
    }
    cr_assert_eq(tm_sweep_finish(sw), TM_OK);
    cr_assert_eq(tm_sweep_failed(sw), k);
    int dropped = 0;
    for (size_t i = 0; i < k; i++) {
        tm_model *alone = NULL;
        cr_assert_eq(tm_model_new(&c[i], &alone, NULL, 0), TM_OK);
        for (size_t j = 0; j < s.n; j++)
            cr_assert_eq(tm_model_put(alone, &s.r[j]), TM_OK, "%s", tm_model_error(alone));
        cr_assert_eq(tm_model_finish(alone), TM_OK);
        /* and the model fed compact records in runs: the same too */
        tm_model *cm = NULL;
        cr_assert_eq(tm_model_new(&c[i], &cm, NULL, 0), TM_OK);
        put_as_crecs(cm, &s);
        const tm_bitbuf *ct = tm_model_trace(cm), *at = tm_model_trace(alone);
        cr_assert(ct->nbits == at->nbits && memcmp(ct->data, at->data, (size_t)((at->nbits + 7) / 8)) == 0,
                  "config %zu: the trace of tm_model_put_crecs differs", i);
        cr_assert_eq(memcmp(tm_model_get_stats(alone), tm_model_get_stats(cm), sizeof(tm_model_stats)), 0,
                     "config %zu: the statistics of tm_model_put_crecs differ", i);
        tm_model_free(cm);
        const tm_model *m = tm_sweep_model(sw, i);
        char what[32];
        snprintf(what, sizeof what, "config %zu", i);
        models_equal(alone, m, threads, what, "alone", "in the sweep");
        dropped += tm_model_get_stats(m)->total.dropped_messages != 0;
        tm_model_free(alone);
    }
    cr_assert_gt(dropped, 0, "a configuration was to drop messages");
    cr_assert_null(tm_sweep_model(sw, k));
    tm_sweep_free(sw);
    free(s.r);
}

Test(sweep, one_pass_is_k_separate_runs) { same_as_alone(4, 0, 0); }
Test(sweep, one_pass_with_groups) { same_as_alone(3, 0, 1); }
Test(sweep, one_pass_with_data_tracing) { same_as_alone(2, 1, 0); }

Test(sweep, the_first_refusal_stops_it)
{
    tm_model_cfg c[2];
    for (int i = 0; i < 2; i++) {
        tm_model_cfg_default(&c[i], 2);
        char err[128];
        cr_assert_eq(tm_model_cfg_resolve(&c[i], err, sizeof err), TM_OK);
    }
    tm_sweep *sw = NULL;
    cr_assert_eq(tm_sweep_new(c, 0, &sw, NULL, 0), TM_ERR_ARG);
    cr_assert_null(sw);
    /* a configuration the model refuses: its reason reaches the caller */
    tm_model_cfg bad[2] = {c[0], c[1]};
    bad[1].enc.threads = 0;
    char why[200] = "";
    cr_assert_eq(tm_sweep_new(bad, 2, &sw, why, sizeof why), TM_ERR_ARG);
    cr_assert_null(sw);
    cr_assert(strstr(why, "threads 0"), "%s", why);
    cr_assert_eq(tm_sweep_new(c, 2, &sw, NULL, 0), TM_OK);
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_RUN; /* a RUN of a thread beyond the module's 2 cores */
    r.tid = 7;
    r.pc = 0x1000;
    r.count = 1;
    r.bytes = 4;
    cr_assert_neq(tm_sweep_put(sw, &r), TM_OK);
    cr_assert_eq(tm_sweep_failed(sw), 0);
    cr_assert_eq(tm_sweep_put(sw, &r), TM_ERR_STATE);
    tm_sweep_free(sw);
}

/* tm_model_put_crecs stops where tm_model_put would fail (the same status,
 * the same message, *done the failing record's index) and before a record
 * of another type than START..MEM (the caller's: tm_modelrun_feed). */
Test(sweep, crecs_stop_where_put_fails)
{
    gen_stream_t s;
    gen_stream(&s, 2, 20000, 3, 1, 0.001);
    tm_model_cfg c;
    tm_model_cfg_default(&c, 2);
    c.enc.data = TM_DATA_ALL;
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK, "%s", err);
    size_t bad = s.n / 2;
    while (s.r[bad].type != TMC_RUN)
        bad++;
    s.r[bad].cycle = 0; /* out of (cycle, thread) order */
    tm_model *a = NULL, *b = NULL;
    cr_assert_eq(tm_model_new(&c, &a, NULL, 0), TM_OK);
    cr_assert_eq(tm_model_new(&c, &b, NULL, 0), TM_OK);
    size_t j = 0;
    int rc = TM_OK;
    while (j < s.n && (rc = tm_model_put(a, &s.r[j])) == TM_OK)
        j++;
    cr_assert_eq(j, bad, "tm_model_put fails at the record made bad");
    tmc_crec *v = malloc(s.n * sizeof *v);
    uint8_t *vals = malloc(s.n * TMC_MAX_OPERAND);
    size_t nv = 0, nv_bad = 0;
    for (size_t k = 0; k < s.n; k++) {
        tmc_crec_pack(&v[k], &s.r[k]);
        if (k == bad)
            nv_bad = nv;
        if (s.r[k].type == TMC_MEM) {
            memcpy(vals + nv, s.r[k].value, s.r[k].size);
            nv += s.r[k].size;
        }
    }
    tmc_crec_fence();
    /* a MODULE record first, then the run up to the bad one */
    tmc_crec mod = v[0];
    mod.type = TMC_MODULE;
    size_t done = 99, vdone = 99;
    cr_assert_eq(tm_model_put_crecs(b, &mod, 1, vals, &done, &vdone), TM_OK);
    cr_assert(done == 0 && vdone == 0, "stops before a MODULE record");
    cr_assert_eq(tm_model_put_crecs(b, v, s.n, vals, &done, &vdone), rc);
    cr_assert_eq(done, bad);
    cr_assert_eq(vdone, nv_bad, "the value bytes of the records before it");
    cr_assert_str_eq(tm_model_error(b), tm_model_error(a));
    /* after tm_model_finish: refused as tm_model_put refuses */
    tm_model *f = NULL;
    cr_assert_eq(tm_model_new(&c, &f, NULL, 0), TM_OK);
    cr_assert_eq(tm_model_finish(f), TM_OK);
    cr_assert_eq(tm_model_put_crecs(f, v, 1, vals, &done, &vdone), TM_ERR_STATE);
    cr_assert_eq(done, 0);
    cr_assert_str_eq(tm_model_error(f), "record after tm_model_finish");
    cr_assert_eq(tm_model_put(f, &s.r[0]), TM_ERR_STATE);
    tm_model_free(f);
    tm_model_free(a);
    tm_model_free(b);
    free(v);
    free(vals);
    free(s.r);
}
