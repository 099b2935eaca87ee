/* A recording's outputs (include/tm/record.h): the module map as modules
 * arrive, then, after the run, the trace, statistics, descriptors and
 * commit stream, each written under a temporary name and renamed into
 * place (docs/guide.md, "When things go wrong").  Nothing here prints: the
 * lines go into the caller's buffer or through the recording's
 * diagnostics sink. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "tm/isa.h"
#include "tm/record.h"
#include "tm/report.h"
#include "tm/tmt.h"

/* One line through X's diagnostics sink (none: nothing is said). */
static void say(const tm_rec_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const tm_rec_ctx *x, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    if (!x->diag)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    x->diag(x->diag_arg, line);
}

/* A path in the module map (docs/capture.md §6): one line whatever it holds. */
static void put_map_path(FILE *f, const char *s)
{
    tm_put_escaped(f, s, 1);
}

int tm_rec_on_module(void *arg, const tm_cap_module *m)
{
    tm_rec_ctx *x = arg;
    if (tm_recmode_module(x->mode, m)) { /* -d: the descriptors' disassembly reads the modules */
        snprintf(x->err, sizeof x->err, "%s", tm_recmode_error(x->mode));
        x->failed = 1;
        return 1;
    }
    fprintf(x->mods, "0x%016" PRIx64 " ", m->base);
    if (m->build_id_len)
        for (size_t i = 0; i < m->build_id_len; i++)
            fprintf(x->mods, "%02x", m->build_id[i]);
    else
        fputc('-', x->mods);
    fputc(' ', x->mods);
    put_map_path(x->mods, m->path);
    fputc('\n', x->mods);
    /* the vdso's bytes beside every configuration's module map (tm decode
     * --from-binary reads BASE.vdso beside BASE.tmt), into the temporary
     * tm_rec_conf_begin made: renamed into place with the other outputs at the
     * end (tm_rec_finish), removed with them if the recording is refused */
    for (size_t j = 0; m->bytes && j < x->k; j++) {
        tm_rec_conf *c = &x->conf[j];
        FILE *f = fopen(c->vout.tmp, "wbe");
        if (!f || fwrite(m->bytes, 1, m->len, f) != m->len || fclose(f)) {
            snprintf(x->err, sizeof x->err, "%.400s: %s", c->vout.path, strerror(errno));
            x->failed = 1;
            return 1;
        }
        c->vdso = 1;
    }
    if (x->w) {
        tmc_record r;
        memset(&r, 0, sizeof r);
        r.type = TMC_MODULE;
        r.addr = m->base;
        r.path = m->path;
        r.path_len = strlen(m->path);
        r.build_id = m->build_id;
        r.build_id_len = m->build_id_len;
        if (tmc_writer_put(x->w, &r) != TM_OK) {
            snprintf(x->err, sizeof x->err, "%s", tmc_writer_error(x->w));
            x->failed = 1;
            return 1;
        }
    }
    return 0;
}

/* FROM's bytes into TO (replacing it): 0, or -1 with errno. */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rbe"), *out = in ? fopen(to, "wbe") : NULL;
    char buf[65536];
    size_t got;
    int bad = !in || !out;
    while (!bad && (got = fread(buf, 1, sizeof buf, in)) > 0)
        bad = fwrite(buf, 1, got, out) != got;
    int e = errno;
    bad |= in && ferror(in);
    if (out && fclose(out))
        bad = 1, e = errno;
    if (in)
        fclose(in);
    errno = e ? e : EIO;
    return bad ? -1 : 0;
}

/* Moves an output into place (or with OK 0, removes it); one line for
 * each that fails. */
static void finish_out(const tm_rec_ctx *x, tm_out *o, int ok, int *status)
{
    char err[2048];
    if (!ok) {
        tm_out_abort(o);
        return;
    }
    if (tm_out_close(o, err, sizeof err) != TM_OK) {
        say(x, "%s", err);
        *status = 1;
    }
}

/* BASE.stats: how the program and the recording ended, the capture, the
 * window, then the model's statistics. */
static void write_stats(FILE *sf, const char *prog, int ws, int killed, const tm_cap_info *info, const char *recording,
                        int windowed, int stopped, const tm_model_cfg *cfg, const tm_model *m, const tm_rec_end *e)
{
    fputs("program: ", sf);
    if (e->capture) { /* --capture: no program ran here */
        fputs("unknown (tm record --capture ", sf);
        put_map_path(sf, e->capture);
        fputs(")\n", sf);
    } else {
        put_map_path(sf, prog);
        fputc('\n', sf);
    }
    if (info->isa != TM_ISA_X86_64) /* a program that is not x86-64 (the QEMU frontend) */
        fprintf(sf, "isa: %s\n", tm_isa_name(info->isa));
    if (e->capture && !info->ended)
        fprintf(sf, "ended: unknown (%s)\n", info->execd ? "the program replaced itself; the capture ends there"
                                                         : "the capture stream has no end marker");
    else if (WIFEXITED(ws))
        fprintf(sf, "ended: exit status %d\n", WEXITSTATUS(ws));
    else if (WIFSIGNALED(ws))
        fprintf(sf, "ended: killed by signal %d (%s)%s\n", WTERMSIG(ws), tm_rec_signame(WTERMSIG(ws)),
                killed ? ", by tm record after it did not end on the signal tm record got" : "");
    if (info->execd)
        fprintf(sf, "exec: the program replaced itself (execve); tracing ends there\n");
    fprintf(sf, "recording: %s\n", recording);
    fprintf(sf, "capture: %" PRIu64 " bytes, %" PRIu64 " blocks translated, %" PRIu64 " executed, %" PRIu64
                " signals, %u threads, %s\n",
            info->bytes, info->blocks, info->execs, info->signals, info->threads,
            info->ended || info->execd ? "complete" : "cut short (no end marker from the frontend)");
    if (windowed)
        fprintf(sf, "window: %" PRIu64 " instructions skipped, %" PRIu64 " traced%s\n", info->skipped,
                info->instructions, stopped ? " (stopped at the size limit)" : "");
    tm_rec_timing_stats(sf, e);
    tm_report_text(sf, cfg, m);
}

static const char *const suffixes[TM_REC_NOUTS] = {".modules", ".tmc", NULL, ".tmt", ".json", ".stats", ".pin.log.kit"};

int tm_rec_outs_begin(tm_rec_outs *O, const char *base, int commit, const char *log_sfx, const char *input, char *err,
                      size_t errlen)
{
    char p[PATH_MAX + 16];
    const char *inputs[] = {input, NULL};
    O->log_sfx = log_sfx;
    for (size_t k = 0; k < TM_REC_NOUTS; k++) {
        memset(&O->o[k], 0, sizeof O->o[k]);
        if ((k == TM_REC_TMC && !commit) || (k == TM_REC_LOG && !log_sfx) ||
            (k == TM_REC_KITLOG && (!log_sfx || strcmp(log_sfx, ".pin.log"))))
            continue;
        snprintf(p, sizeof p, "%s%s", base, k == TM_REC_LOG ? log_sfx : suffixes[k]);
        int rc = tm_out_open(&O->o[k], p, inputs, err, errlen);
        if (rc != TM_OK) {
            for (size_t j = 0; j < k; j++)
                tm_out_abort(&O->o[j]);
            return rc;
        }
    }
    return 0;
}

int tm_rec_conf_begin(tm_rec_ctx *x, const char *input, char *err, size_t errlen)
{
    char p[PATH_MAX + 16];
    static const char *const sfx[TM_RECX_NOUTS] = {".tmt", ".json", ".stats", ".modules"};
    const char *inputs[] = {input, NULL};
    int rc = TM_OK;
    for (size_t j = 0; j < x->k; j++) {
        tm_rec_conf *c = &x->conf[j];
        memset(c->out, 0, sizeof c->out);
        memset(&c->pout, 0, sizeof c->pout);
        memset(&c->vout, 0, sizeof c->vout);
        c->vdso = 0;
        c->lock_fd = -1;
    }
    for (size_t j = 0; j < x->k; j++) {
        tm_rec_conf *c = &x->conf[j];
        if (j && (rc = tm_rec_lock(c->base, &c->lock_fd, err, errlen)) != TM_OK)
            goto fail;
        for (size_t q = 0; j && q < TM_RECX_NOUTS; q++) {
            snprintf(p, sizeof p, "%s%s", c->base, sfx[q]);
            if ((rc = tm_out_open(&c->out[q], p, inputs, err, errlen)) != TM_OK)
                goto fail;
        }
        snprintf(p, sizeof p, "%s.vdso", c->base);
        if ((rc = tm_out_open(&c->vout, p, inputs, err, errlen)) != TM_OK)
            goto fail;
        if (c->profile && (rc = tm_out_open(&c->pout, c->profile, inputs, err, errlen)) != TM_OK)
            goto fail;
    }
    return TM_OK;
fail:
    tm_rec_conf_abort(x);
    return rc;
}

void tm_rec_conf_abort(tm_rec_ctx *x)
{
    for (size_t j = 0; j < x->k; j++) {
        tm_rec_conf *c = &x->conf[j];
        for (size_t q = 0; q < TM_RECX_NOUTS; q++)
            tm_out_abort(&c->out[q]);
        tm_out_abort(&c->pout);
        tm_out_abort(&c->vout);
        tm_rec_unlock(c->base, c->lock_fd);
        c->lock_fd = -1;
    }
}

void tm_rec_release(tm_rec_ctx *x, tm_rec_outs *O)
{
    for (size_t k = 0; k < TM_REC_NOUTS; k++)
        tm_out_abort(&O->o[k]);
    tm_rec_conf_abort(x);
    tm_recmode_abort(x->mode);
    x->mode = NULL;
    tm_rec_unlock(x->base, O->lock_fd);
}

/* After the capture, one line for the first output error only (a full disk
 * fails every later write too); WFAIL: an output failed. */
#define OUT_ERR(...)                           \
    do {                                       \
        if (!status)                           \
            say(x, __VA_ARGS__);               \
        status = 1;                            \
        wfail = 1;                             \
    } while (0)

/* A cache's JSON object, or null. */
/* How the program of a complete recording ended: it replaced itself
 * (execve), or its wait status (the frontend's END event's with --capture);
 * TMT_PROG_UNKNOWN for a cut recording or a capture without an end marker. */
static void prog_ending(const tm_rec_end *e, tmt_trailer *t)
{
    t->prog = TMT_PROG_UNKNOWN;
    t->prog_code = 0;
    if (e->ending != TMT_COMPLETE)
        return;
    if (e->info->execd)
        t->prog = TMT_PROG_EXECVED;
    else if (e->capture && !e->info->ended)
        return;
    else if (WIFSIGNALED(e->ws))
        t->prog = TMT_PROG_KILLED, t->prog_code = (unsigned)WTERMSIG(e->ws);
    else if (WIFEXITED(e->ws))
        t->prog = TMT_PROG_EXITED, t->prog_code = (unsigned)WEXITSTATUS(e->ws);
}

/* A configuration's trace, JSON and text statistics into the temporaries
 * of OT, OJ and OS (BASE: their final names without the suffix); *STATUS
 * and *WFAIL as OUT_ERR sets them. */
static void model_outs(const tm_rec_ctx *x, const tm_rec_end *e, const tm_model_cfg *cfg, const tm_model *m,
                       const char *base, tm_out *ot, tm_out *oj, tm_out *os, int *pstatus, int *pwfail)
{
    int status = *pstatus, wfail = *pwfail;
    char why[160], errm[512];
    tmt_ending_str(e->ending, (unsigned)e->sig, why, sizeof why);
    uint64_t *insns = calloc(cfg->enc.threads, sizeof *insns);
    tmt_trailer tr;
    if (!insns) {
        OUT_ERR("out of memory");
    } else {
        tmt_trailer_of(&tr, m, insns, e->ending, (unsigned)e->sig);
        prog_ending(e, &tr);
        if (tmt_write_isa(ot->tmp, tm_model_isa(m), cfg, tm_model_trace(m), &tr, errm, sizeof errm) != TM_OK)
            OUT_ERR("%s", tm_out_name(ot, errm));
        free(insns);
    }
    char *machine = tm_rec_machine_json(e, m);
    if (!machine) {
        OUT_ERR("out of memory");
    } else {
        tmt_trailer end = {0, NULL, e->ending, e->ending == TMT_CUT_SIGNAL ? (unsigned)e->sig : 0, TMT_PROG_UNKNOWN, 0};
        prog_ending(e, &end);
        if (tm_report_json(oj->tmp, cfg, m, &end, machine))
            OUT_ERR("%s.json: cannot write statistics: %s", base, strerror(errno));
    }
    free(machine);
    FILE *sf = fopen(os->tmp, "we");
    if (sf)
        write_stats(sf, e->prog, e->ws, e->killed, e->info, e->ending == TMT_COMPLETE ? "complete" : why,
                    e->windowed, e->stopped, cfg, m, e);
    if (!sf || ferror(sf) | fclose(sf)) {
        OUT_ERR("%s.stats: %s", base, strerror(errno));
    }
    *pstatus = status;
    *pwfail = wfail;
}

int tm_rec_finish(tm_rec_ctx *x, tm_rec_outs *O, const tm_model_cfg *cfg, const tm_rec_end *e)
{
    const char *base = x->base;
    int status = e->status, wfail = 0, rc;
    char errm[512];
    tmt_trailer pe;
    prog_ending(e, &pe);
    if (x->w && (e->ending != TMT_COMPLETE || pe.prog != TMT_PROG_UNKNOWN) && !x->failed) {
        /* the commit stream says how the recording, or its program, ended */
        tmc_record cr;
        memset(&cr, 0, sizeof cr);
        cr.type = TMC_ENDING;
        if (e->ending != TMT_COMPLETE) {
            cr.flags = e->ending == TMT_CUT_SIGNAL ? TMC_CUT_SIGNAL : TMC_CUT_SHORT;
            cr.count = e->ending == TMT_CUT_SIGNAL ? (uint64_t)e->sig : 0;
        } else {
            cr.flags = tmt_prog_to_tmc(pe.prog);
            cr.count = pe.prog_code;
        }
        if (tmc_writer_put(x->w, &cr) != TM_OK)
            OUT_ERR("%s", tmc_writer_error(x->w));
    }
    tm_model_finish(x->m);
    for (size_t j = 1; j < x->k; j++)
        tm_model_finish(x->conf[j].m);
    model_outs(x, e, cfg, x->m, base, &O->o[TM_REC_TMT], &O->o[TM_REC_JSON], &O->o[TM_REC_STATS], &status, &wfail);
    /* the configurations after --and, then every profile */
    for (size_t j = 1; j < x->k; j++) {
        tm_rec_conf *c = &x->conf[j];
        model_outs(x, e, &c->cfg, c->m, c->base, &c->out[TM_RECX_TMT], &c->out[TM_RECX_JSON], &c->out[TM_RECX_STATS],
                   &status, &wfail);
    }
    for (size_t j = 0; j < x->k; j++) {
        tm_rec_conf *c = &x->conf[j];
        if (c->profile && tm_report_profile(c->pout.tmp, c->profile, c->prof, j ? &c->cfg : cfg, errm, sizeof errm))
            OUT_ERR("%s", errm);
    }
    if (x->mode) {
        tm_recmode_set_skipped(x->mode, e->info->skipped);
        if (tm_recmode_close(x->mode, x->m, errm, sizeof errm)) {
            OUT_ERR("%s", errm);
        }
        x->mode = NULL;
    }
    int tmc_ok = 1;
    if (x->w) {
        errno = 0;
        rc = tmc_writer_close(x->w); /* frees the writer: its message is gone */
        if (rc != TM_OK) {
            tmc_ok = 0;
            if (!x->failed)
                OUT_ERR("%s.tmc: %s%s%s", base, tm_status_str(rc), errno ? ": " : "", errno ? strerror(errno) : "");
            else if (!status)
                tm_out_name(&O->o[TM_REC_TMC], x->err);
        }
        x->w = NULL;
    }
    if (ferror(x->mods) | fclose(x->mods)) {
        OUT_ERR("%s.modules: %s", base, strerror(errno));
    }
    x->mods = NULL;
    /* every configuration after --and gets the module map too, so that tm
     * decode --from-binary finds it beside the configuration's trace */
    for (size_t j = 1; j < x->k && !wfail; j++) {
        tm_rec_conf *c = &x->conf[j];
        if (copy_file(O->o[TM_REC_MODULES].tmp, c->out[TM_RECX_MODULES].tmp))
            OUT_ERR("%s.modules: %s", c->base, strerror(errno));
    }
    /* Pin's own log (-logfile), if it wrote one, after the tool's lines in
     * BASE.pin.log. */
    if (O->o[TM_REC_KITLOG].active) {
        FILE *in = fopen(O->o[TM_REC_KITLOG].tmp, "re"), *out = in ? fopen(O->o[TM_REC_LOG].tmp, "ae") : NULL;
        char buf[4096];
        size_t got;
        while (out && (got = fread(buf, 1, sizeof buf, in)) > 0)
            if (fwrite(buf, 1, got, out) != got)
                break;
        if (out && (ferror(out) | fclose(out)))
            OUT_ERR("%s%s: %s", base, O->log_sfx, strerror(errno));
        if (in)
            fclose(in);
        tm_out_abort(&O->o[TM_REC_KITLOG]);
    }
    /* Every output is complete (a .tmc the writer refused is still the
     * stream up to the refusal): into place.  With several configurations
     * an output that failed removes every one (as tm model --and does). */
    int st_before = status, all = !(wfail && x->k > 1);
    for (size_t k = 0; k < TM_REC_NOUTS; k++)
        finish_out(x, &O->o[k], all && (k != TM_REC_TMC || tmc_ok || st_before), &status);
    for (size_t j = 0; j < x->k; j++) {
        tm_rec_conf *c = &x->conf[j];
        for (size_t q = 0; j && q < TM_RECX_NOUTS; q++)
            finish_out(x, &c->out[q], all, &status);
        if (c->profile)
            finish_out(x, &c->pout, all, &status);
        finish_out(x, &c->vout, all && c->vdso, &status); /* none captured: none written */
    }
    tm_rec_conf_abort(x); /* the locks */
    tm_rec_unlock(base, O->lock_fd);
    return status;
}
