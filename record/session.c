/* A recording's session (include/tm/record.h): the capture's consumers
 * (the model, or with --and the sweep of every configuration's; the commit
 * stream's writer; the descriptors), the models and profiles, and the
 * spooled stream fed after the program (--threads auto).  Nothing here
 * prints. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tm/record.h"

void tm_rec_model_error(const tm_rec_ctx *x, char *err, size_t n)
{
    size_t f = x->sw ? tm_sweep_failed(x->sw) : 0;
    if (x->sw && f < x->k)
        snprintf(err, n, "model (configuration %zu, -o %.300s): %s", f + 1, x->conf[f].base,
                 tm_model_error(x->conf[f].m));
    else
        snprintf(err, n, "model: %s", tm_model_error(x->m));
}

/* The model refused what it was given: the run's error; stops the capture. */
static int model_failed(tm_rec_ctx *x)
{
    tm_rec_model_error(x, x->err, sizeof x->err);
    x->failed = 1;
    return 1;
}

/* on_record when the model is the only consumer (no --commit, no --mode):
 * through the model's thread while it runs (tm_rec_async_start). */
static int on_record_model(void *arg, const tmc_record *r)
{
    tm_rec_ctx *x = arg;
    if (x->as)
        return tm_rec_async_record(x, r);
    return tm_model_put(x->m, r) == TM_OK ? 0 : model_failed(x);
}

/* The same for a group the capture layer has whole. */
static int on_group_model(void *arg, const tmc_group *g)
{
    tm_rec_ctx *x = arg;
    if (x->as)
        return tm_rec_async_group(x, g);
    return tm_model_put_group(x->m, g) == TM_OK ? 0 : model_failed(x);
}

/* The same for every configuration (--and): the sweep. */
static int on_record_sweep(void *arg, const tmc_record *r)
{
    tm_rec_ctx *x = arg;
    if (x->as)
        return tm_rec_async_record(x, r);
    return tm_sweep_put(x->sw, r) == TM_OK ? 0 : model_failed(x);
}

static int on_group_sweep(void *arg, const tmc_group *g)
{
    tm_rec_ctx *x = arg;
    if (x->as)
        return tm_rec_async_group(x, g);
    return tm_sweep_put_group(x->sw, g) == TM_OK ? 0 : model_failed(x);
}

/* Every consumer: the model(s), the writer, the descriptors. */
static int on_record(void *arg, const tmc_record *r)
{
    tm_rec_ctx *x = arg;
    if (x->sw ? on_record_sweep(arg, r) : on_record_model(arg, r))
        return 1;
    if (x->w && tmc_writer_put(x->w, r) != TM_OK) {
        snprintf(x->err, sizeof x->err, "%s", tmc_writer_error(x->w));
        x->failed = 1;
        return 1;
    }
    if (x->mode && (!x->filtered || ((r->type != TMC_BRANCH && r->type != TMC_MEM) ||
                                     tm_cap_in_filter(x->cap, r->pc))) &&
        tm_recmode_record(x->mode, r) != 0) {
        snprintf(x->err, sizeof x->err, "%s", tm_recmode_error(x->mode));
        x->failed = 1;
        return 1;
    }
    return 0;
}

/* --threads auto: every record into the spool. */
static int on_record_spool(void *arg, const tmc_record *r)
{
    tm_rec_ctx *x = arg;
    if (tmc_writer_put(x->w, r) != TM_OK) {
        snprintf(x->err, sizeof x->err, "%s", tmc_writer_error(x->w));
        x->failed = 1;
        return 1;
    }
    return 0;
}

/* The capture's ISA event, before any record: the commit stream's header
 * (or the spool's) and the models say it. */
static int on_isa(void *arg, int isa)
{
    tm_rec_ctx *x = arg;
    if (tm_rec_async_sync(x)) /* the model is set while its thread waits */
        return 1;
    if (x->w && tmc_writer_set_isa(x->w, isa) != TM_OK) {
        snprintf(x->err, sizeof x->err, "%s", tmc_writer_error(x->w));
        x->failed = 1;
        return 1;
    }
    if (x->sw ? tm_sweep_set_isa(x->sw, isa) != TM_OK : x->m && tm_model_set_isa(x->m, isa) != TM_OK) {
        snprintf(x->err, sizeof x->err, "model: unknown instruction set %d", isa);
        x->failed = 1;
        return 1;
    }
    return 0;
}

void tm_rec_sink(tm_rec_ctx *x, int spool, tm_cap_sink *sink)
{
    int model_only = !x->w && !x->mode;
    memset(sink, 0, sizeof *sink);
    sink->record = spool        ? on_record_spool
                   : model_only ? (x->sw ? on_record_sweep : on_record_model)
                                : on_record;
    sink->module = tm_rec_on_module;
    sink->arg = x;
    sink->group = model_only ? (x->sw ? on_group_sweep : on_group_model) : NULL;
    sink->isa = on_isa;
}

int tm_rec_models_new(tm_rec_ctx *x, const tm_model_cfg *cfgs, char *err, size_t errlen)
{
    char e[600];
    int rc;
    if (x->k > 1) { /* every configuration in one sweep */
        if ((rc = tm_sweep_new(cfgs, x->k, &x->sw, e, sizeof e)) != TM_OK) {
            snprintf(err, errlen, "cannot create the models: %s", e);
            return rc;
        }
        x->m = tm_sweep_model(x->sw, 0);
    } else if ((rc = tm_model_new(&cfgs[0], &x->m, e, sizeof e)) != TM_OK) {
        snprintf(err, errlen, "cannot create the model: %s", e);
        return rc;
    }
    for (size_t j = 0; j < x->k; j++) {
        x->conf[j].m = j ? tm_sweep_model(x->sw, j) : x->m;
        x->conf[j].cfg = cfgs[j];
        if (x->conf[j].prof)
            tm_profile_attach(x->conf[j].prof, x->conf[j].m);
    }
    return TM_OK;
}

int tm_rec_profiles_new(tm_rec_ctx *x, uint64_t window, char *err, size_t errlen)
{
    int rc;
    for (size_t j = 0; j < x->k; j++) {
        if (!x->conf[j].profile)
            continue;
        if ((rc = tm_profile_new(window, &x->conf[j].prof)) != TM_OK) {
            snprintf(err, errlen, "cannot create the profile: %s", tm_status_str(rc));
            return rc;
        }
        if (x->conf[j].m) /* --threads auto: when the model is made (tm_rec_models_new) */
            tm_profile_attach(x->conf[j].prof, x->conf[j].m);
    }
    return TM_OK;
}

int tm_rec_feed(tm_rec_ctx *x, tmc_reader *r, const volatile sig_atomic_t *nsigs, sig_atomic_t at)
{
    tmc_record rec;
    int rc = 0;
    while (*nsigs == at && (rc = tmc_reader_next(r, &rec)) == 1 && rec.type != TMC_END) {
        if (rec.type != TMC_MODULE && (rc = x->sw ? tm_sweep_put(x->sw, &rec) : tm_model_put(x->m, &rec)) != TM_OK)
            return model_failed(x), rc;
        if (x->w && (rc = tmc_writer_put(x->w, &rec)) != TM_OK) {
            snprintf(x->err, sizeof x->err, "%s", tmc_writer_error(x->w));
            x->failed = 1;
            return rc;
        }
    }
    return rc < 0 ? rc : TM_OK;
}
