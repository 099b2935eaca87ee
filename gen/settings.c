/* tm — `tm gen`'s settings by name and its output (tm/gen.h): an option's
 * value into a tm_gen_cfg with the message the command line prints, and the
 * commit-stream writer on an output written under a temporary name. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/parse.h"
#include "tm/gen.h"

int tm_gen_cfg_set(tm_gen_cfg *c, const char *name, const char *v, char *err, size_t errlen)
{
    static const struct {
        const char *name, *range;
    } s[] = {{"--threads", TM_GEN_R_THREADS},  {"--insns", TM_GEN_R_INSNS},   {"--seed", TM_GEN_R_SEED},
             {"--predictability", TM_GEN_R_PRED}, {"--exc-rate", TM_GEN_R_EXC}, {"--recursion", TM_GEN_R_REC}};
    size_t k = 0;
    while (k < sizeof s / sizeof s[0] && strcmp(name, s[k].name))
        k++;
    if (k == sizeof s / sizeof s[0]) {
        snprintf(err, errlen, "%s: not a setting of tm gen", name);
        return TM_ERR_ARG;
    }
    uint64_t x = 0;
    double d = 0;
    char *end = NULL;
    errno = 0;
    if (k == 3 || k == 4)
        d = strtod(v, &end);
    if (k == 3 || k == 4 ? !*v || errno || *end || !isfinite(d) : (k == 1 ? tm_parse_count(v, &x) : tm_parse_u64(v, &x))) {
        snprintf(err, errlen, "%s %s: not a number; allowed %s", name, v, s[k].range);
        return TM_ERR_ARG;
    }
    if ((k == 0 || k == 5) && x > UINT32_MAX) {
        snprintf(err, errlen, "%s %s: allowed %s", name, v, s[k].range);
        return TM_ERR_ARG;
    }
    if (k == 0)
        c->threads = (uint32_t)x;
    else if (k == 1)
        c->insns = x;
    else if (k == 2)
        c->seed = x;
    else if (k == 3)
        c->predictability = d;
    else if (k == 4)
        c->exc_rate = d;
    else
        c->recursion = (uint32_t)x;
    return TM_OK;
}

int tm_gen_open(tm_out *o, uint32_t threads, tmc_writer **w, char *err, size_t errlen)
{
    char m[600];
    int rc = tmc_writer_open(o->tmp, threads, -1, w, m, sizeof m);
    if (rc != TM_OK) {
        snprintf(err, errlen, "%s", tm_out_name(o, m));
        tm_out_abort(o);
    }
    return rc;
}

int tm_gen_close(tm_out *o, tmc_writer *w, int rc, char *err, size_t errlen)
{
    if (rc != TM_OK) {
        tmc_writer_abort(w);
        tm_out_abort(o);
        return rc;
    }
    errno = 0;
    rc = tmc_writer_close(w);
    if (rc != TM_OK) {
        snprintf(err, errlen, "%s: %s%s%s", strcmp(o->path, "-") ? o->path : "standard output", tm_status_str(rc),
                 errno ? ": " : "", errno ? strerror(errno) : "");
        tm_out_abort(o);
        return rc;
    }
    return tm_out_close(o, err, errlen);
}
