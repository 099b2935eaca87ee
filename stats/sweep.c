/* tm — sweeps (include/tm/sweep.h): one stream, K models. */
#include <stdlib.h>
#include "tm/sweep.h"

struct tm_sweep {
    size_t k;
    size_t failed; /* k: none */
    tm_model **m;
};

int tm_sweep_new(const tm_model_cfg *cfgs, size_t k, tm_sweep **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!k) {
        tm_err_set(err, errlen, "no configurations");
        return TM_ERR_ARG;
    }
    tm_sweep *s = calloc(1, sizeof *s);
    if (!s || !(s->m = calloc(k, sizeof *s->m))) {
        free(s);
        tm_err_set(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    s->k = s->failed = k;
    for (size_t i = 0; i < k; i++) {
        int rc = tm_model_new(&cfgs[i], &s->m[i], err, errlen);
        if (rc != TM_OK) {
            tm_sweep_free(s);
            return rc;
        }
    }
    *out = s;
    return TM_OK;
}

size_t tm_sweep_count(const tm_sweep *s) { return s->k; }

tm_model *tm_sweep_model(tm_sweep *s, size_t i) { return i < s->k ? s->m[i] : NULL; }

size_t tm_sweep_failed(const tm_sweep *s) { return s->failed; }

int tm_sweep_set_isa(tm_sweep *s, int isa)
{
    for (size_t i = 0; i < s->k; i++) {
        int rc = tm_model_set_isa(s->m[i], isa);
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

/* R, else G, else the end, to every model in turn; the first refusal stops. */
static int each(tm_sweep *s, const tmc_record *r, const tmc_group *g)
{
    if (s->failed < s->k)
        return TM_ERR_STATE;
    for (size_t i = 0; i < s->k; i++) {
        int rc = r ? tm_model_put(s->m[i], r) : g ? tm_model_put_group(s->m[i], g) : tm_model_finish(s->m[i]);
        if (rc != TM_OK) {
            s->failed = i;
            return rc;
        }
    }
    return TM_OK;
}

int tm_sweep_put(tm_sweep *s, const tmc_record *r) { return each(s, r, NULL); }

int tm_sweep_put_group(tm_sweep *s, const tmc_group *g) { return each(s, NULL, g); }

int tm_sweep_finish(tm_sweep *s) { return each(s, NULL, NULL); }

void tm_sweep_free(tm_sweep *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->k; i++)
        tm_model_free(s->m[i]);
    free(s->m);
    free(s);
}
