/* tm model — run the trace module model over a commit stream. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "modelopts.h"
#include "report.h"
#include "tm/model.h"
#include "tm/modelrun.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* The options of the whole run. */
typedef struct run_flags {
    int quiet, explain, demand;
    const char *pwin;
} run_flags;

#define MAX_SEGS 256

static void usage(FILE *f)
{
    fprintf(f, "usage: tm model [options] IN.tmc -o OUT.tmt [--stats OUT.json] [--profile P.json]\n"
               "                [--and [options] -o OUT2.tmt ...]\n%s",
            model_opts_help);
    fprintf(f,
            "  -o FILE                       trace output (.tmt; '-' = stdout)\n"
            "  --stats FILE                  statistics as JSON\n"
            "  --profile FILE                field profile as JSON: histograms of the fields' bit\n"
            "                                lengths, bCnt values, a timeline of bits and drops\n"
            "  --profile-window CYCLES       the timeline's window (1..2^40, default 1000000; for\n"
            "                                every --profile)\n"
            "  --and                         another configuration over the same stream, in the same pass\n"
            "                                (its own options, -o, --stats and --profile follow; up to 256)\n"
            "  -q, --quiet                   no text statistics on stdout\n"
            "  --explain                     print the resolved configuration and message limits\n"
            "  --demand                      every configuration (those after --and too) gets a port and\n"
            "                                buffer that drop nothing: --port 1024 --buffer 16777216 (not\n"
            "                                with --port or --buffer); a drop still fails the run (exit 1)\n"
            "IN.tmc may be '-' (standard input).  See docs/guide.md.\n");
}

/* The whole run: its configurations (K of them), the input and the flags. */
typedef struct mrun {
    model_opts o[MAX_SEGS];
    tm_model_outs outs[MAX_SEGS]; /* -o, --stats, --profile */
    tm_model_cfg cfg[MAX_SEGS];
    size_t k;
    const char *in;
    run_flags G;
    uint64_t window;   /* --profile-window */
    tm_modelrun run;
} mrun;

enum { AND = 1 };
static const tm_optdef seg_opts[] = {
    {"--stats", NULL, TM_OPT_VALUE, offsetof(tm_model_outs, stats), 0, NULL},
    {"--profile", NULL, TM_OPT_VALUE, offsetof(tm_model_outs, profile), 0, NULL},
    {"-o", "--output", TM_OPT_VALUE, offsetof(tm_model_outs, trace), 0, NULL},
    {"--and", NULL, TM_OPT_FLAG, TM_OPT_NOSTORE, AND, NULL}, {NULL, NULL, 0, 0, 0, NULL}};
static const tm_optdef run_opts[] = {
    {"--quiet", "-q", TM_OPT_FLAG, offsetof(run_flags, quiet), 0, NULL},
    {"--explain", NULL, TM_OPT_FLAG, offsetof(run_flags, explain), 0, NULL},
    {"--demand", NULL, TM_OPT_FLAG, offsetof(run_flags, demand), 0, NULL},
    {"--profile-window", NULL, TM_OPT_VALUE, offsetof(run_flags, pwin), 0, NULL}, {NULL, NULL, 0, 0, 0, NULL}};

/* The command line into R: 0, 1 (--help printed), or 2 after a usage error. */
static int model_parse(int argc, char **argv, mrun *R)
{
    R->k = 1;
    memset(&R->o[0], 0, sizeof R->o[0]);
    memset(&R->outs[0], 0, sizeof R->outs[0]);
    R->in = NULL;
    memset(&R->G, 0, sizeof R->G);
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    const tm_optdef *hit;
    const char *v;
    char perr[256];
    int pr;
    for (;;) {
        tm_opt_table t[3] = {{model_opts_table, &R->o[R->k - 1]}, {seg_opts, &R->outs[R->k - 1]}, {run_opts, &R->G}};
        if ((pr = tm_opt_next(&p, t, 3, &hit, &v, perr, sizeof perr)) <= 0)
            break;
        if (pr == TM_OPT_HELP)
            return usage(stdout), 1;
        if (pr == TM_OPT_OPERAND && R->in)
            return tm_usage("model", "unexpected argument '%s': one input file only", v), 2;
        if (pr == TM_OPT_OPERAND)
            R->in = v;
        if (pr == TM_OPT_MATCH && hit->id == AND) {
            if (R->k == MAX_SEGS)
                return tm_usage("model", "--and: at most %d configurations in one pass", MAX_SEGS), 2;
            memset(&R->o[R->k], 0, sizeof R->o[0]);
            memset(&R->outs[R->k++], 0, sizeof R->outs[0]);
        }
    }
    if (pr < 0)
        return tm_usage("model", "%s", perr), 2;
    if (!R->in)
        return tm_usage("model", "no input commit stream: give IN.tmc"), 2;
    if (R->G.explain && R->k > 1)
        return tm_usage("model", "--explain: one configuration only (not with --and)"), 2;
    return 0;
}

/* Configuration J's outputs: one given (unless --explain), no two naming
 * one file, none written by an earlier configuration.  0, or 2 after the
 * usage line. */
static int model_check_outs(const mrun *R, size_t j)
{
    const tm_model_outs *g = &R->outs[j];
    size_t k = R->k;
    if (!g->trace && !R->G.explain) {
        if (k > 1)
            tm_usage("model", "configuration %zu (after --and number %zu): no output: give -o OUT.tmt", j + 1, j);
        else
            tm_err("model", "no output: give -o OUT.tmt");
        return 2;
    }
    const char *mine[] = {g->trace, g->stats, g->profile};
    static const char *const opt[] = {"-o", "--stats", "--profile"};
    for (int x = 0; x < 3; x++)
        for (int y = x + 1; y < 3; y++)
            if (mine[x] && mine[y] && !strcmp(mine[x], mine[y])) {
                if (strcmp(mine[x], "-"))
                    tm_usage("model", "%s and %s name the same file %s", opt[x], opt[y], mine[x]);
                else
                    tm_err("model", "%s - and %s -: only one of them can be standard output", opt[x], opt[y]);
                return 2;
            }
    for (size_t q = 0; q < j && k > 1; q++) {
        const tm_model_outs *o = &R->outs[q];
        const char *theirs[] = {o->trace, o->stats, o->profile};
        for (int x = 0; x < 3; x++)
            for (int y = 0; y < 3; y++)
                if (mine[x] && theirs[y] && !strcmp(mine[x], theirs[y]))
                    return tm_usage("model", "configurations %zu and %zu both write %s", q + 1, j + 1, mine[x]), 2;
    }
    return 0;
}

/* The options checked before anything is read (a bad option is a usage
 * error whatever the input): 0, or 2. */
static int model_check(mrun *R)
{
    R->window = REPORT_PROFILE_WINDOW;
    int profiles = 0;
    for (size_t j = 0; j < R->k; j++)
        profiles += R->outs[j].profile != NULL;
    if (R->G.pwin && report_profile_window("model", R->G.pwin, &R->window))
        return 2;
    if (R->G.pwin && !profiles)
        return tm_usage("model", "--profile-window: only with --profile"), 2;
    for (size_t j = 0; j < R->k; j++) {
        char which[64] = "";
        if (R->k > 1)
            snprintf(which, sizeof which, "configuration %zu: ", j + 1);
        if ((R->G.demand && model_opts_demand("model", &R->o[j], which)) || model_opts_cfg("model", &R->o[j], 1, &R->cfg[j]) ||
            model_check_outs(R, j))
            return 2;
    }
    return 0;
}

/* Every 2^20 records: a line every 5 s or more. */
static void model_progress(uint64_t nrec, void *arg)
{
    time_t *t = arg, now = time(NULL); /* t[0]: the start, t[1]: the last line */
    if (now - t[1] >= 5) {
        fprintf(stderr, "tm model: %" PRIu64 "M records, %lds\n", nrec >> 20, (long)(now - t[0]));
        t[1] = now;
    }
}

/* The configurations for the stream's thread count, the run started, the
 * stream fed, the outputs written: 0, -1 (--explain alone: done), or the
 * exit status after one line. */
static int model_pass(mrun *R, tmc_reader *rd)
{
    for (size_t j = 0; j < R->k; j++)
        if (model_opts_cfg("model", &R->o[j], tmc_reader_threads(rd), &R->cfg[j]))
            return 2;
    if (R->G.explain) {
        tm_modelrun_explain(stdout, &R->cfg[0]);
        if (!R->outs[0].trace)
            return -1; /* done: exit 0 */
    }
    const char *inputs[] = {R->in, NULL};
    char err[2048];
    time_t t[2] = {time(NULL), time(NULL)};
    int rc = tm_modelrun_start(&R->run, R->cfg, R->outs, R->k, R->window, inputs, err, sizeof err);
    if (rc == TM_ERR_ARG)
        return tm_usage("model", "%s", err), 2;
    if (rc != TM_OK || (rc = tm_modelrun_feed(&R->run, rd, R->in, model_progress, t, err, sizeof err)) != TM_OK ||
        (rc = tm_modelrun_write(&R->run, err, sizeof err)) != TM_OK)
        return tm_err("model", "%s", err), 1;
    return 0;
}

/* After the pass: --demand's check, the reports.  The exit status. */
static int model_finish(mrun *R)
{
    size_t k = R->k;
    /* --demand: a configuration that dropped a message fails the run (its
     * outputs are written and say so) */
    int status = 0;
    for (size_t j = 0; R->G.demand && j < k; j++)
        if (model_opts_demand_check("model", tm_modelrun_model(&R->run, j), &R->cfg[j],
                                    R->outs[j].trace ? R->outs[j].trace : "the run"))
            status = 1;
    if (!R->G.quiet) {
        int to_err = 0; /* a trace on stdout: the reports on stderr */
        for (size_t j = 0; j < k; j++)
            to_err |= R->outs[j].trace && !strcmp(R->outs[j].trace, "-");
        for (size_t j = 0; j < k; j++)
            tm_modelrun_report(to_err ? stderr : stdout, &R->run, j);
    }
    return status;
}

int cmd_model(int argc, char **argv)
{
    static mrun R;
    int rc = model_parse(argc, argv, &R);
    if (rc)
        return rc == 1 ? 0 : rc;
    if (model_check(&R))
        return 2;
    tmc_reader *rd = NULL;
    char e[600];
    if (tmc_reader_open(R.in, &rd, e, sizeof e) != TM_OK) {
        tm_err("model", "%s", e);
        return 1;
    }
    int status = model_pass(&R, rd);
    if (status == 0)
        status = model_finish(&R);
    tm_modelrun_free(&R.run);
    tmc_reader_close(rd);
    return status == -1 ? 0 : status;
}
