/* tm decode --from-binary: replay a trace from the program binaries
 * (tm_frombin, docs/spec.md §6.1) and print or verify it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "decode.h"
#include "tm/decodeio.h"
#include "tm/tmt.h"

static void fb_progress(uint64_t insns, void *arg)
{
    time_t *last = arg;
    time_t now = time(NULL);
    if (now - *last >= 5) {
        fprintf(stderr, "tm decode: %" PRIu64 "M instructions\n", insns / 1000000);
        *last = now;
    }
}

/* The replay's diagnostics sink: its lines on stderr. */
static void fb_diag_stderr(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "tm decode: %s\n", line);
}

/* A listing's end (RC, ERR: the replay's): the summary line (on stdout
 * with --summary, else on stderr unless QUIET) and the exit status. */
static int fb_summary(const tmt_file *tf, const tm_frombin_result *res, int rc, const char *err, double secs,
                      const char *tmt_path, int format, int quiet)
{
    fflush(stdout);
    if (rc == TM_ERR_IO && tm_stdout_failed()) {
        tm_stdout_errno(res->out_errno);
        return 0; /* a full disk or a reader gone: tm_finish_stdout says which */
    }
    if (rc != TM_OK)
        return tm_err("decode", "%s", err), 1;
    if (format == TM_FB_NONE || !quiet)
        tm_frombin_print_summary(format == TM_FB_NONE ? stdout : stderr, tmt_path, tf, res, secs);
    return res->errors || res->resyncs ? 1 : 0;
}

/* tm decode --from-binary's command line. */
typedef struct fb_args {
    int verify, quiet, from_binary;
    const char *modules, *vdso, *bin, *max_run;
    const char *files[2];
    int nf;
} fb_args;

enum { FMT = 1 };
#define FL(name, alias, f) {name, alias, TM_OPT_FLAG, offsetof(fb_args, f), 0, NULL}
#define FLO(name, alias, f) {name, alias, TM_OPT_FLAG, offsetof(tm_frombin_opts, f), 0, NULL}
#define VA(name, alias, f) {name, alias, TM_OPT_VALUE, offsetof(fb_args, f), 0, NULL}
#define FMTO(name, v) {name, NULL, TM_OPT_FLAG, TM_OPT_NOSTORE, FMT + (v), NULL}
static const tm_optdef fb_opts[] = {
    FL("--verify", NULL, verify), FL("--quiet", "-q", quiet), FL("--from-binary", NULL, from_binary),
    FMTO("--insns", TM_FB_INSNS), FMTO("--branches", TM_FB_BRANCHES), FMTO("--functions", TM_FB_FUNCTIONS),
    FMTO("--summary", TM_FB_NONE), VA("--modules", NULL, modules), VA("--vdso", NULL, vdso),
    VA("--binary", "-o", bin), VA("--max-run", NULL, max_run), {NULL, NULL, 0, 0, 0, NULL}};
static const tm_optdef fbo_opts[] = {
    FLO("--symbols", "-s", symbols), FLO("--disasm", "-d", disasm), FLO("--ignore-build-id", NULL, ignore_build_id),
    {"--tmc", NULL, TM_OPT_VALUE, offsetof(tm_frombin_opts, tmc), 0, NULL}, {NULL, NULL, 0, 0, 0, NULL}};
#undef FL
#undef FLO
#undef VA
#undef FMTO

/* The command line into F and O: 0, 1 (--help printed) or 2 after a usage
 * error. */
static int fb_parse(int argc, char **argv, fb_args *F, tm_frombin_opts *o)
{
    memset(F, 0, sizeof *F);
    memset(o, 0, sizeof *o);
    o->format = TM_FB_INSNS;
    const char *val;
    int pr;
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t[2] = {{fb_opts, F}, {fbo_opts, o}};
    const tm_optdef *hit;
    char perr[256];
    while ((pr = tm_opt_next(&p, t, 2, &hit, &val, perr, sizeof perr)) > 0) {
        if (pr == TM_OPT_HELP)
            return decode_usage(stdout), 1;
        if (pr == TM_OPT_OPERAND && F->nf >= 2)
            return tm_usage("decode", "too many arguments"), 2;
        if (pr == TM_OPT_OPERAND)
            F->files[F->nf++] = val;
        if (pr == TM_OPT_MATCH && hit->id >= FMT)
            o->format = hit->id - FMT;
    }
    if (pr < 0)
        return tm_usage("decode", "%s", perr), 2;
    if (F->max_run && (tm_parse_count(F->max_run, &o->max_run) || !o->max_run))
        return tm_usage("decode", "--max-run %s: expected a positive number of instructions", F->max_run), 2;
    if ((F->verify && F->nf != 2) || (!F->verify && F->nf != 1))
        return tm_usage("decode", F->verify ? "--from-binary --verify needs the commit stream and the trace: "
                                              "tm decode --from-binary --verify BASE.tmc BASE.tmt"
                                            : "expected one trace file: tm decode --from-binary BASE.tmt"), 2;
    return 0;
}

int decode_from_binary(int argc, char **argv)
{
    tm_frombin_opts o;
    fb_args F;
    int pr = fb_parse(argc, argv, &F, &o);
    if (pr)
        return pr == 1 ? 0 : pr;
    int verify = F.verify, quiet = F.quiet;
    const char *modules = F.modules, *vdso = F.vdso, *bin = F.bin;
    const char **files = F.files;
    const char *tmt_path = verify ? files[1] : files[0];
    if (verify)
        o.tmc = files[0];
    char mpath[4096], vpath[4096];
    tm_frombin_beside(tmt_path, &modules, &vdso, mpath, vpath, sizeof mpath);
    o.modules = modules;
    o.vdso = vdso;
    tmt_file tf;
    char err[2048];
    if (tmt_read(tmt_path, &tf, err, sizeof err) != TM_OK) {
        tm_err("decode", "%s", err);
        return 1;
    }
    o.verify = verify;
    o.recover = !verify;
    o.out = verify ? NULL : stdout;
    o.diag = fb_diag_stderr;
    time_t last = time(NULL);
    if (verify || o.format == TM_FB_NONE) {
        o.progress = fb_progress;
        o.arg = &last;
    }
    const char *inputs[] = {tmt_path, modules, o.tmc ? o.tmc : tmt_path, vdso ? vdso : tmt_path, NULL};
    tm_frombin_result res;
    double secs;
    int rc, status, orc = tm_frombin_run(&tf, &o, bin, inputs, &res, &rc, &secs, err, sizeof err);
    if (orc == TM_ERR_ARG)
        tm_usage("decode", "%s", err), status = 2;
    else if (orc != TM_OK)
        tm_err("decode", "%s", err), status = 1; /* the binary output's error, said in one line */
    else if (verify && rc == TM_OK)
        tm_frombin_print_ok(stdout, &tf, &res, secs), status = 0;
    else if (verify)
        status = decode_verify_failed(rc, err, quiet, 1, tmt_path, files[0]);
    else
        status = fb_summary(&tf, &res, rc, err, secs, tmt_path, o.format, quiet);
    tmt_free(&tf);
    return status;
}
