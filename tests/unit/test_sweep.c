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
        const tm_model *m = tm_sweep_model(sw, i);
        const tm_bitbuf *a = tm_model_trace(alone), *b = tm_model_trace(m);
        cr_assert_eq(a->nbits, b->nbits, "config %zu: %llu bits alone, %llu in the sweep", i,
                     (unsigned long long)a->nbits, (unsigned long long)b->nbits);
        cr_assert_eq(memcmp(a->data, b->data, (size_t)((a->nbits + 7) / 8)), 0, "config %zu: traces differ", i);
        cr_assert_eq(memcmp(tm_model_get_stats(alone), tm_model_get_stats(m), sizeof(tm_model_stats)), 0,
                     "config %zu: statistics differ", i);
        for (uint32_t t = 0; t < threads; t++)
            cr_assert_eq(memcmp(tm_model_thread_stats(alone, t), tm_model_thread_stats(m, t), sizeof(tm_thread_stats)),
                         0, "config %zu: thread %u's statistics differ", i, t);
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
