/* tm — unit tests of the model on a thread of its own (record/asyncmodel.c,
 * tm record --model-thread): the groups and records handed through the ring
 * give byte for byte the trace and statistics of the same ones fed to the
 * model directly (the ring wrapping many times, the producer waiting for
 * room, syncs between), also through a sweep; a model that refuses a group
 * stops the recording with its line, as without the thread. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "genstream.h"
#include "tm/record.h"
#include "tm/sweep.h"

static void cfg_of(tm_model_cfg *c, uint32_t threads, int enc, int data)
{
    tm_model_cfg_default(c, threads);
    cr_assert_eq(tm_model_preset(c, "large"), TM_OK);
    tm_enc_cfg_default(&c->enc, (tm_encoding)enc, threads, 1);
    if (data)
        c->enc.data = TM_DATA_CFIAT;
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(c, err, sizeof err), TM_OK, "%s", err);
}

/* Record J of S as the capture's sink hands it on: a RUN, a MEM and an
 * event of one thread and cycle in a row as one group (at most one of
 * each, in that order), everything else as a record. */
static size_t hand_on(tm_rec_ctx *x, const gen_stream_t *s, size_t j, int through)
{
    const tmc_record *r = &s->r[j];
    tmc_group g = {r->tid, r->cycle, 0, 0, 0, 0, 0, 0, 0, NULL, NULL};
    size_t k = j;
    if (k < s->n && s->r[k].type == TMC_RUN) {
        g.pc = s->r[k].pc;
        g.count = s->r[k].count;
        g.bytes = s->r[k].bytes;
        k++;
    }
    if (k < s->n && s->r[k].type == TMC_MEM && s->r[k].tid == r->tid && s->r[k].cycle == r->cycle) {
        g.mem = 1;
        g.msize = s->r[k].size;
        g.mflags = s->r[k].flags;
        g.maddr = s->r[k].addr;
        g.mvalue = s->r[k].value;
        k++;
    }
    if (k < s->n && (s->r[k].type == TMC_BRANCH || s->r[k].type == TMC_EXC) && s->r[k].tid == r->tid &&
        s->r[k].cycle == r->cycle) {
        g.ev = &s->r[k];
        k++;
    }
    if (k == j) { /* a record alone */
        if (through)
            cr_assert_eq(tm_rec_async_record(x, r), 0, "%s", x->err);
        else
            cr_assert_eq(x->sw ? tm_sweep_put(x->sw, r) : tm_model_put(x->m, r), TM_OK);
        return j + 1;
    }
    if (through)
        cr_assert_eq(tm_rec_async_group(x, &g), 0, "%s", x->err);
    else
        cr_assert_eq(x->sw ? tm_sweep_put_group(x->sw, &g) : tm_model_put_group(x->m, &g), TM_OK);
    return k;
}

/* The stream fed directly and through the thread (SWEEP: K configurations
 * of a sweep), with a sync every SYNC hand-ons (0: none). */
static void through_thread(uint32_t threads, int mem, int sweep, size_t sync)
{
    gen_stream_t s;
    gen_stream(&s, threads, 400000, 11 + threads, mem, 0.001);
    tm_model_cfg c[3];
    size_t k = sweep ? 3 : 1;
    for (size_t i = 0; i < k; i++)
        cfg_of(&c[i], threads, (int)(i % 3), mem);
    tm_rec_ctx x[2];
    tm_sweep *sw[2] = {NULL, NULL};
    for (int v = 0; v < 2; v++) {
        memset(&x[v], 0, sizeof x[v]);
        x[v].k = k;
        if (sweep) {
            cr_assert_eq(tm_sweep_new(c, k, &sw[v], NULL, 0), TM_OK);
            x[v].sw = sw[v];
            x[v].m = tm_sweep_model(sw[v], 0);
        } else {
            cr_assert_eq(tm_model_new(&c[0], &x[v].m, NULL, 0), TM_OK);
        }
    }
    cr_assert_eq(tm_rec_async_start(&x[1]), TM_OK);
    cr_assert_not_null(x[1].as);
    /* through the thread first: the producer, doing nothing else, fills
     * the ring and waits for room */
    size_t n = 0;
    for (size_t j = 0; j < s.n; n++) {
        j = hand_on(&x[1], &s, j, 1);
        if (sync && n % sync == sync - 1)
            cr_assert_eq(tm_rec_async_sync(&x[1]), 0, "%s", x[1].err);
        else if (n % 1000 == 999)
            tm_rec_async_flush(&x[1]);
    }
    cr_assert_eq(tm_rec_async_stop(&x[1]), 0, "%s", x[1].err);
    cr_assert_null(x[1].as);
    cr_assert_eq(tm_rec_async_stop(&x[1]), 0, "a second stop: nothing");
    for (size_t j = 0; j < s.n;)
        j = hand_on(&x[0], &s, j, 0);
    for (size_t i = 0; i < k; i++) {
        tm_model *a = sweep ? tm_sweep_model(sw[0], i) : x[0].m, *b = sweep ? tm_sweep_model(sw[1], i) : x[1].m;
        cr_assert_eq(tm_model_finish(a), TM_OK);
        cr_assert_eq(tm_model_finish(b), TM_OK);
        char what[64];
        snprintf(what, sizeof what, "configuration %zu", i);
        models_equal(a, b, threads, what, "directly", "through the thread");
    }
    for (int v = 0; v < 2; v++) {
        if (sweep)
            tm_sweep_free(sw[v]);
        else
            tm_model_free(x[v].m);
    }
    free(s.r);
}

Test(asyncmodel, groups_through_the_ring_are_the_models_own) { through_thread(4, 0, 0, 0); }
Test(asyncmodel, with_memory_operands_and_values) { through_thread(3, 1, 0, 0); }
Test(asyncmodel, a_sweep_through_the_ring) { through_thread(2, 1, 1, 0); }
Test(asyncmodel, syncs_between) { through_thread(2, 1, 0, 997); }

/* A group the model refuses (a thread beyond its cores): the hand-on after
 * the thread saw it, or the stop, fails with the model's line. */
Test(asyncmodel, a_refusal_reaches_the_recording)
{
    tm_model_cfg c;
    cfg_of(&c, 2, 2, 0);
    tm_rec_ctx x;
    memset(&x, 0, sizeof x);
    x.k = 1;
    cr_assert_eq(tm_model_new(&c, &x.m, NULL, 0), TM_OK);
    cr_assert_eq(tm_rec_async_start(&x), TM_OK);
    tmc_group g = {0, 10, 0x1000, 3, 12, 0, 0, 0, 0, NULL, NULL};
    cr_assert_eq(tm_rec_async_group(&x, &g), 0);
    g.tid = 7;
    g.cycle = 11;
    cr_assert_eq(tm_rec_async_group(&x, &g), 0, "taken into the ring: the thread has not seen it");
    cr_assert_eq(tm_rec_async_sync(&x), 1, "the sync sees the refusal");
    cr_assert(x.failed);
    cr_assert(strstr(x.err, "model: thread id 7 out of range"), "%s", x.err);
    g.tid = 1;
    g.cycle = 12;
    cr_assert_eq(tm_rec_async_group(&x, &g), 1, "after the refusal: every hand-on fails");
    cr_assert_eq(tm_rec_async_stop(&x), 1);
    cr_assert_null(x.as);
    tm_model_free(x.m);
}
