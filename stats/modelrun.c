/* tm — a model run over a commit stream: the one pass through the sweep
 * and each configuration's outputs (include/tm/modelrun.h).  Nothing here
 * prints. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/modelrun.h"
#include "tm/report.h"
#include "tm/status.h"

/* The one-line message into ERR; returns RC. */
static int errf(int rc, char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int errf(int rc, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int tm_modelrun_feed(tm_sweep *sw, tmc_reader *rd, const char *in, const char *const *names, tmt_trailer *end,
                     void (*progress)(uint64_t records, void *arg), void *arg, char *err, size_t errlen)
{
    tmc_record r;
    uint64_t nrec = 0;
    int rc;
    *end = (tmt_trailer){0, NULL, TMT_COMPLETE, 0, TMT_PROG_UNKNOWN, 0};
    while ((rc = tmc_reader_next(rd, &r)) == 1) {
        if (r.type == TMC_ENDING && (r.flags == TMC_CUT_SIGNAL || r.flags == TMC_CUT_SHORT)) {
            end->ending = r.flags == TMC_CUT_SIGNAL ? TMT_CUT_SIGNAL : TMT_CUT_SHORT;
            end->signal = (unsigned)r.count;
        } else if (r.type == TMC_ENDING) {
            end->prog = tmt_prog_from_tmc(r.flags);
            end->prog_code = (unsigned)r.count;
        }
        if ((rc = tm_sweep_put(sw, &r)) != TM_OK) {
            size_t f = tm_sweep_failed(sw);
            if (tm_sweep_count(sw) > 1)
                return errf(rc, err, errlen, "%s: offset %" PRIu64 ": configuration %zu (-o %s): %s", in,
                            tmc_reader_offset(rd), f + 1, names[f], tm_model_error(tm_sweep_model(sw, f)));
            return errf(rc, err, errlen, "%s: offset %" PRIu64 ": %s", in, tmc_reader_offset(rd),
                        tm_model_error(tm_sweep_model(sw, f)));
        }
        if ((++nrec & 0xFFFFF) == 0 && progress)
            progress(nrec, arg);
    }
    if (rc < 0)
        return errf(rc, err, errlen, "%s", tmc_reader_error(rd));
    tm_sweep_finish(sw);
    return TM_OK;
}

int tm_model_outs_begin(tm_model_outs *o, const char *const *inputs, char *err, size_t errlen)
{
    memset(&o->otrace, 0, sizeof o->otrace);
    memset(&o->ostats, 0, sizeof o->ostats);
    memset(&o->oprofile, 0, sizeof o->oprofile);
    int rc = o->trace ? tm_out_open(&o->otrace, o->trace, inputs, err, errlen) : TM_OK;
    if (rc == TM_OK && o->stats)
        rc = tm_out_open(&o->ostats, o->stats, inputs, err, errlen);
    if (rc == TM_OK && o->profile)
        rc = tm_out_open(&o->oprofile, o->profile, inputs, err, errlen);
    if (rc != TM_OK)
        tm_model_outs_abort(o);
    return rc;
}

int tm_model_outs_write(tm_model_outs *o, const tm_model_cfg *cfg, tm_model *m, const tm_profile *prof,
                        const tmt_trailer *end, char *err, size_t errlen)
{
    if (o->trace) {
        uint64_t *insns = calloc(cfg->enc.threads, sizeof *insns);
        tmt_trailer tr;
        if (!insns)
            return errf(TM_ERR_NOMEM, err, errlen, "out of memory");
        tmt_trailer_of(&tr, m, insns, end->ending, end->signal);
        tr.prog = end->prog;
        tr.prog_code = end->prog_code;
        int rc = tmt_write(o->otrace.tmp, cfg, tm_model_trace(m), &tr, err, errlen);
        free(insns);
        if (rc != TM_OK)
            return tm_out_name(&o->otrace, err), rc;
    }
    if (o->stats && tm_report_json(o->ostats.tmp, cfg, m, end, NULL))
        return errf(TM_ERR_IO, err, errlen, "%s: cannot write statistics: %s", o->stats, strerror(errno));
    if (o->profile)
        return tm_report_profile(o->oprofile.tmp, o->profile, prof, cfg, err, errlen);
    return TM_OK;
}

int tm_model_outs_commit(tm_model_outs *o, char *err, size_t errlen)
{
    tm_out *outs[] = {&o->otrace, &o->ostats, &o->oprofile};
    const char *wanted[] = {o->trace, o->stats, o->profile};
    for (int j = 0; j < 3; j++)
        if (wanted[j] && tm_out_close(outs[j], err, errlen) != TM_OK)
            return TM_ERR_IO;
    return TM_OK;
}

void tm_model_outs_abort(tm_model_outs *o)
{
    tm_out_abort(&o->otrace);
    tm_out_abort(&o->ostats);
    tm_out_abort(&o->oprofile);
}
