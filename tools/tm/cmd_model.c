/* tm model — run the trace module model over a commit stream. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "modelopts.h"
#include "report.h"
#include "tm/model.h"
#include "tm/modelrun.h"
#include "tm/profile.h"
#include "tm/sweep.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* The options of the whole run. */
typedef struct run_flags {
    int quiet, explain, demand;
    const char *pwin;
} run_flags;

/* One configuration of the run: its options, outputs and model. */
typedef struct mseg {
    model_opts o;
    tm_model_outs outs; /* -o, --stats, --profile */
    tm_model_cfg cfg;
    tm_profile *prof;
} mseg;

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

/* The configuration's text report (with several, under a line naming it). */
static void report(FILE *f, const mseg *g, tm_model *m, size_t k, const tmt_trailer *end)
{
    if (k > 1)
        fprintf(f, "== %s\n", g->outs.trace);
    tm_report_text(f, &g->cfg, m);
    /* (how the program ended: in the trace and the statistics, not here,
     * so that this report is the end of tm record's BASE.stats) */
    char why[128];
    if (end->ending != TMT_COMPLETE)
        fprintf(f, "recording: %s\n", tmt_ending_str(end->ending, end->signal, why, sizeof why));
}

static void abort_outs(mseg *g, size_t k)
{
    for (size_t j = 0; j < k; j++)
        tm_model_outs_abort(&g[j].outs);
}

/* The whole run: its configurations (K of them), the input and the flags. */
typedef struct mrun {
    mseg seg[MAX_SEGS];
    size_t k;
    const char *in;
    run_flags G;
    uint64_t window;   /* --profile-window */
    tmt_trailer end;   /* how the recording and its program ended (the stream's ENDING) */
} mrun;

enum { AND = 1 };
static const tm_optdef seg_opts[] = {
    {"--stats", NULL, TM_OPT_VALUE, offsetof(mseg, outs.stats), 0, NULL},
    {"--profile", NULL, TM_OPT_VALUE, offsetof(mseg, outs.profile), 0, NULL},
    {"-o", "--output", TM_OPT_VALUE, offsetof(mseg, outs.trace), 0, NULL},
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
    memset(&R->seg[0], 0, sizeof R->seg[0]);
    R->in = NULL;
    memset(&R->G, 0, sizeof R->G);
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    const tm_optdef *hit;
    const char *v;
    char perr[256];
    int pr;
    for (;;) {
        mseg *g = &R->seg[R->k - 1];
        tm_opt_table t[3] = {{model_opts_table, &g->o}, {seg_opts, g}, {run_opts, &R->G}};
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
            memset(&R->seg[R->k++], 0, sizeof R->seg[0]);
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
    const mseg *g = &R->seg[j];
    size_t k = R->k;
    if (!g->outs.trace && !R->G.explain) {
        if (k > 1)
            tm_usage("model", "configuration %zu (after --and number %zu): no output: give -o OUT.tmt", j + 1, j);
        else
            tm_err("model", "no output: give -o OUT.tmt");
        return 2;
    }
    const char *mine[] = {g->outs.trace, g->outs.stats, g->outs.profile};
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
        const tm_model_outs *o = &R->seg[q].outs;
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
        profiles += R->seg[j].outs.profile != NULL;
    if (R->G.pwin && report_profile_window("model", R->G.pwin, &R->window))
        return 2;
    if (R->G.pwin && !profiles)
        return tm_usage("model", "--profile-window: only with --profile"), 2;
    for (size_t j = 0; j < R->k; j++) {
        mseg *g = &R->seg[j];
        char which[64] = "";
        if (R->k > 1)
            snprintf(which, sizeof which, "configuration %zu: ", j + 1);
        if ((R->G.demand && model_opts_demand("model", &g->o, which)) || model_opts_cfg("model", &g->o, 1, &g->cfg) ||
            model_check_outs(R, j))
            return 2;
    }
    return 0;
}

/* --explain: the configuration's fields and its longest messages. */
static void model_explain(const tm_model_cfg *cfg)
{
    char line[384];
    tm_report_cfg_line(line, sizeof line, cfg);
    printf("config: %s\nchunks: bcnt (%u,%u), ta (%u,%u), cc (%u,%u)", line, cfg->enc.cnt_a, cfg->enc.cnt_b,
           cfg->enc.ta_a, cfg->enc.ta_b, cfg->enc.cc_a, cfg->enc.cc_b);
    if (cfg->enc.data)
        printf(", fah (%u,%u)", cfg->enc.fah_a, cfg->enc.fah_b);
    printf("\nlongest message: %u bits%s; resynchronization reserve: %u bits\n", tm_msg_max_bits(&cfg->enc),
           cfg->enc.data ? " (a bundle: DATA + control)" : "", tm_msg_reserve_bits(&cfg->enc));
    if (cfg->enc.data)
        printf("longest DATA message: %u bits (64-byte value)\n", tm_msg_data_max_bits(&cfg->enc));
}

/* Every configuration's outputs begun under temporary names: 0, or the
 * exit status (2: an output is the input). */
static int model_begin_outs(mrun *R)
{
    const char *inputs[] = {R->in, NULL};
    char err[2048];
    for (size_t j = 0; j < R->k; j++) {
        int rc = tm_model_outs_begin(&R->seg[j].outs, inputs, err, sizeof err);
        if (rc == TM_OK)
            continue;
        if (rc == TM_ERR_ARG)
            tm_usage("model", "%s", err);
        else
            tm_err("model", "%s", err);
        abort_outs(R->seg, j);
        return rc == TM_ERR_ARG ? 2 : 1;
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

/* The stream RD through the sweep SW (one pass, every configuration); its
 * ENDING record into R->end.  0, or 1 after one line. */
static int model_feed(mrun *R, tmc_reader *rd, tm_sweep *sw)
{
    static const char *names[MAX_SEGS];
    char err[2048];
    for (size_t j = 0; j < R->k; j++)
        names[j] = R->seg[j].outs.trace;
    time_t t[2] = {time(NULL), time(NULL)};
    if (tm_modelrun_feed(sw, rd, R->in, names, &R->end, model_progress, t, err, sizeof err) != TM_OK)
        return tm_err("model", "%s", err), 1;
    return 0;
}

/* After the pass: the outputs written and renamed into place, --demand's
 * check, the reports.  The exit status. */
static int model_finish(mrun *R, tm_sweep *sw)
{
    size_t k = R->k;
    char err[2048];
    for (size_t j = 0; j < k; j++)
        if (tm_model_outs_write(&R->seg[j].outs, &R->seg[j].cfg, tm_sweep_model(sw, j), R->seg[j].prof, &R->end,
                                err, sizeof err) != TM_OK)
            return tm_err("model", "%s", err), 1;
    for (size_t j = 0; j < k; j++)
        if (tm_model_outs_commit(&R->seg[j].outs, err, sizeof err) != TM_OK)
            return tm_err("model", "%s", err), 1;
    /* --demand: a configuration that dropped a message fails the run (its
     * outputs are written and say so) */
    int status = 0;
    for (size_t j = 0; R->G.demand && j < k; j++)
        if (model_opts_demand_check("model", tm_sweep_model(sw, j), &R->seg[j].cfg,
                                    R->seg[j].outs.trace ? R->seg[j].outs.trace : "the run"))
            status = 1;
    if (!R->G.quiet) {
        int to_err = 0; /* a trace on stdout: the reports on stderr */
        for (size_t j = 0; j < k; j++)
            to_err |= R->seg[j].outs.trace && !strcmp(R->seg[j].outs.trace, "-");
        for (size_t j = 0; j < k; j++)
            report(to_err ? stderr : stdout, &R->seg[j], tm_sweep_model(sw, j), k, &R->end);
    }
    return status;
}

/* The configurations for the stream's thread count, their outputs begun and
 * the sweep made (with the profiles attached): 0, or the exit status. */
static int model_setup(mrun *R, tmc_reader *rd, tm_sweep **sw)
{
    static tm_model_cfg cfgs[MAX_SEGS];
    char e[600];
    for (size_t j = 0; j < R->k; j++) {
        if (model_opts_cfg("model", &R->seg[j].o, tmc_reader_threads(rd), &R->seg[j].cfg))
            return 2;
        cfgs[j] = R->seg[j].cfg;
    }
    if (R->G.explain) {
        model_explain(&R->seg[0].cfg);
        if (!R->seg[0].outs.trace)
            return -1; /* done: exit 0 */
    }
    int rc = model_begin_outs(R);
    if (rc)
        return rc;
    if (tm_sweep_new(cfgs, R->k, sw, e, sizeof e) != TM_OK) {
        tm_err("model", "cannot create the model: %s", e);
        abort_outs(R->seg, R->k);
        return 1;
    }
    for (size_t j = 0; j < R->k; j++) {
        if (!R->seg[j].outs.profile)
            continue;
        if ((rc = tm_profile_new(R->window, &R->seg[j].prof)) != TM_OK)
            return tm_err("model", "cannot create the profile: %s", tm_status_str(rc)), 1;
        tm_profile_attach(R->seg[j].prof, tm_sweep_model(*sw, j));
    }
    return 0;
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
    tm_sweep *sw = NULL;
    int status = model_setup(&R, rd, &sw);
    if (status == -1) {
        tmc_reader_close(rd);
        return 0;
    }
    if (!status && !(status = model_feed(&R, rd, sw)))
        status = model_finish(&R, sw);
    abort_outs(R.seg, R.k);
    for (size_t j = 0; j < R.k; j++) {
        tm_profile_free(R.seg[j].prof);
        R.seg[j].prof = NULL;
    }
    tm_sweep_free(sw);
    tmc_reader_close(rd);
    return status;
}
