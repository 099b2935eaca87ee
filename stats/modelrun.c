/* tm — a model run over a commit stream: the one pass through the sweep
 * and each configuration's outputs (include/tm/modelrun.h).  Nothing here
 * prints. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/modelrun.h"
#include "tm/msg.h"
#include "tm/report.h"
#include "tm/status.h"
#include "tm/tmcrec.h"

static void outs_abort(tm_model_outs *o);

/* The wanted outputs begun: TM_OK, TM_ERR_ARG (an output is an input or
 * a directory) or TM_ERR_IO; what was begun aborted on failure. */
static int outs_begin(tm_model_outs *o, const char *const *inputs, char *err, size_t errlen)
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
        outs_abort(o);
    return rc;
}

/* The model M's trace, statistics and profile into the temporaries. */
static int outs_write(tm_model_outs *o, const tm_model_cfg *cfg, tm_model *m, const tm_profile *prof,
                        const tmt_trailer *end, char *err, size_t errlen)
{
    if (o->trace) {
        uint64_t *insns = calloc(cfg->enc.threads, sizeof *insns);
        tmt_trailer tr;
        if (!insns)
            return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
        tmt_trailer_of(&tr, m, insns, end->ending, end->signal);
        tr.prog = end->prog;
        tr.prog_code = end->prog_code;
        int rc = tmt_write_isa(o->otrace.tmp, tm_model_isa(m), cfg, tm_model_trace(m), &tr, err, errlen);
        free(insns);
        if (rc != TM_OK)
            return tm_out_name(&o->otrace, err), rc;
    }
    if (o->stats && tm_report_json(o->ostats.tmp, cfg, m, end, NULL))
        return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot write statistics: %s", o->stats, strerror(errno));
    if (o->profile)
        return tm_report_profile(o->oprofile.tmp, o->profile, prof, cfg, err, errlen);
    return TM_OK;
}

/* The temporaries renamed into place. */
static int outs_commit(tm_model_outs *o, char *err, size_t errlen)
{
    tm_out *outs[] = {&o->otrace, &o->ostats, &o->oprofile};
    const char *wanted[] = {o->trace, o->stats, o->profile};
    for (int j = 0; j < 3; j++)
        if (wanted[j] && tm_out_close(outs[j], err, errlen) != TM_OK)
            return TM_ERR_IO;
    return TM_OK;
}

static void outs_abort(tm_model_outs *o)
{
    tm_out_abort(&o->otrace);
    tm_out_abort(&o->ostats);
    tm_out_abort(&o->oprofile);
}

int tm_modelrun_start(tm_modelrun *r, const tm_model_cfg *cfgs, tm_model_outs *outs, size_t k, uint64_t window,
                      const char *const *inputs, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->cfgs = cfgs;
    r->outs = outs;
    for (size_t j = 0; j < k; j++) {
        int rc = outs_begin(&outs[j], inputs, err, errlen);
        if (rc != TM_OK)
            return rc; /* (outs[0 .. j-1] are aborted by tm_modelrun_free) */
        r->k = j + 1;
    }
    char e[600];
    int rc = tm_sweep_new(cfgs, k, &r->sw, e, sizeof e);
    if (rc != TM_OK)
        return tm_errf(rc, err, errlen, "cannot create the model: %s", e);
    if (!(r->prof = calloc(k, sizeof *r->prof)))
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    for (size_t j = 0; j < k; j++) {
        if (!outs[j].profile)
            continue;
        if ((rc = tm_profile_new(window, &r->prof[j])) != TM_OK)
            return tm_errf(rc, err, errlen, "cannot create the profile: %s", tm_status_str(rc));
        tm_profile_attach(r->prof[j], tm_sweep_model(r->sw, j));
    }
    return TM_OK;
}

int tm_modelrun_feed(tm_modelrun *r, tmc_reader *rd, const char *in, void (*progress)(uint64_t records, void *arg),
                     void *arg, char *err, size_t errlen)
{
    tm_sweep *sw = r->sw;
    tmt_trailer *end = &r->end;
    const tmc_record *rec;
    uint64_t nrec = 0;
    int rc;
    *end = (tmt_trailer){0, NULL, TMT_COMPLETE, 0, TMT_PROG_UNKNOWN, 0};
    if ((rc = tm_sweep_set_isa(sw, tmc_reader_isa(rd))) != TM_OK)
        return tm_errf(rc, err, errlen, "%s: the models cannot take the commit stream's instruction set", in);
    /* the parse on the other core (tmc_ahead): the models take as long */
    tmc_ahead *ah;
    if ((rc = tmc_ahead_open(rd, &ah)) != TM_OK)
        return tm_errf(rc, err, errlen, "%s: %s", in, tm_status_str(rc));
    /* One model (no sweep): each record straight to it.  tm_sweep_put is a
     * call level more per record (a frame of three saved registers), which
     * cost the model's thread 5-7 % (tm model, 100 M generated
     * instructions: tr_e 0.44 -> 0.42 s, nx_b 0.56 -> 0.52 s). */
    tm_model *one = tm_sweep_count(sw) == 1 ? tm_sweep_model(sw, 0) : NULL;
    uint64_t nextp = 0x100000;
    for (;;) {
        if (one) {
            /* the records of types START..MEM in runs, as they travel
             * (tm_model_put_crecs: no tmc_record for each) */
            const tmc_crec *cv;
            const uint8_t *vals;
            size_t n, k, vb;
            while ((n = tmc_ahead_crecs(ah, &cv, &vals)) != 0) {
                rc = tm_model_put_crecs(one, cv, n, vals, &k, &vb);
                tmc_ahead_advance(ah, rc == TM_OK ? k : k + 1, vb); /* (the offset of the failing record) */
                nrec += k;
                if (rc != TM_OK) {
                    uint64_t off = tmc_ahead_offset(ah);
                    tmc_ahead_close(ah);
                    return tm_errf(rc, err, errlen, "%s: offset %" PRIu64 ": %s", in, off, tm_model_error(one));
                }
                if (nrec >= nextp && progress) {
                    progress(nrec, arg);
                    nextp = (nrec | 0xFFFFF) + 1;
                }
                if (k < n)
                    break; /* a MODULE, END or ENDING: below */
            }
        }
        if ((rc = tmc_ahead_next(ah, &rec)) != 1)
            break;
        if (rec->type == TMC_ENDING && (rec->flags == TMC_CUT_SIGNAL || rec->flags == TMC_CUT_SHORT)) {
            end->ending = rec->flags == TMC_CUT_SIGNAL ? TMT_CUT_SIGNAL : TMT_CUT_SHORT;
            end->signal = (unsigned)rec->count;
        } else if (rec->type == TMC_ENDING) {
            end->prog = tmt_prog_from_tmc(rec->flags);
            end->prog_code = (unsigned)rec->count;
        }
        if ((rc = (one ? tm_model_put(one, rec) : tm_sweep_put(sw, rec))) != TM_OK) {
            size_t f = one ? 0 : tm_sweep_failed(sw);
            uint64_t off = tmc_ahead_offset(ah);
            tmc_ahead_close(ah);
            if (tm_sweep_count(sw) > 1)
                return tm_errf(rc, err, errlen, "%s: offset %" PRIu64 ": configuration %zu (-o %s): %s", in, off,
                               f + 1, r->outs[f].trace, tm_model_error(tm_sweep_model(sw, f)));
            return tm_errf(rc, err, errlen, "%s: offset %" PRIu64 ": %s", in, off,
                           tm_model_error(tm_sweep_model(sw, f)));
        }
        if (++nrec >= nextp && progress) {
            progress(nrec, arg);
            nextp = (nrec | 0xFFFFF) + 1;
        }
    }
    tmc_ahead_close(ah);
    if (rc < 0)
        return tm_errf(rc, err, errlen, "%s", tmc_reader_error(rd));
    tm_sweep_finish(sw);
    return TM_OK;
}

int tm_modelrun_write(tm_modelrun *r, char *err, size_t errlen)
{
    for (size_t j = 0; j < r->k; j++) {
        int rc = outs_write(&r->outs[j], &r->cfgs[j], tm_sweep_model(r->sw, j), r->prof[j], &r->end, err,
                                     errlen);
        if (rc != TM_OK)
            return rc;
    }
    for (size_t j = 0; j < r->k; j++)
        if (outs_commit(&r->outs[j], err, errlen) != TM_OK)
            return TM_ERR_IO;
    return TM_OK;
}

tm_model *tm_modelrun_model(tm_modelrun *r, size_t j)
{
    return tm_sweep_model(r->sw, j);
}

void tm_modelrun_report(FILE *f, tm_modelrun *r, size_t j)
{
    if (r->k > 1)
        fprintf(f, "== %s\n", r->outs[j].trace);
    tm_report_text(f, &r->cfgs[j], tm_sweep_model(r->sw, j));
    /* (how the program ended: in the trace and the statistics, not here,
     * so that this report is the end of tm record's BASE.stats) */
    char why[128];
    if (r->end.ending != TMT_COMPLETE)
        fprintf(f, "recording: %s\n", tmt_ending_str(r->end.ending, r->end.signal, why, sizeof why));
}

void tm_modelrun_explain(FILE *f, const tm_model_cfg *cfg)
{
    char line[384];
    tm_report_cfg_line(line, sizeof line, cfg);
    fprintf(f, "config: %s\nchunks: bcnt (%u,%u), ta (%u,%u), cc (%u,%u)", line, cfg->enc.cnt_a, cfg->enc.cnt_b,
            cfg->enc.ta_a, cfg->enc.ta_b, cfg->enc.cc_a, cfg->enc.cc_b);
    if (cfg->enc.data)
        fprintf(f, ", fah (%u,%u)", cfg->enc.fah_a, cfg->enc.fah_b);
    fprintf(f, "\nlongest message: %u bits%s; resynchronization reserve: %u bits\n", tm_msg_max_bits(&cfg->enc),
            cfg->enc.data ? " (a bundle: DATA + control)" : "", tm_msg_reserve_bits(&cfg->enc));
    if (cfg->enc.data)
        fprintf(f, "longest DATA message: %u bits (64-byte value)\n", tm_msg_data_max_bits(&cfg->enc));
}

void tm_modelrun_free(tm_modelrun *r)
{
    for (size_t j = 0; j < r->k; j++) {
        outs_abort(&r->outs[j]);
        if (r->prof)
            tm_profile_free(r->prof[j]);
    }
    free(r->prof);
    tm_sweep_free(r->sw);
    memset(r, 0, sizeof *r);
}
