/* tm gen — write a seeded synthetic commit stream (tm/gen.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "tm/gen.h"
#include "tm/tmc.h"

/* Progress is shown for streams of at least this many instructions. */
#define PROGRESS_MIN 10000000ULL

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm gen [options] -o OUT.tmc\n"
            "       tm gen --directed NAME [--threads N] [--seed S] -o OUT.tmc\n"
            "  --threads N           threads (" TM_GEN_R_THREADS ", default 1)\n"
            "  --insns N             instructions over all threads (" TM_GEN_R_INSNS ", default 1M;\n"
            "                        K/M/G suffixes = 10^3/10^6/10^9)\n"
            "  --seed S              seed (default 1); same options and seed, same bytes\n"
            "  --mem                 memory operands (MEM records; loads see earlier stores)\n"
            "  --predictability P    share of branches with learnable behaviour (" TM_GEN_R_PRED
            ", default 0.9)\n"
            "  --exc-rate R          exceptions per instruction (" TM_GEN_R_EXC ", default 0.0001)\n"
            "  --recursion D         maximum depth of the recursive functions (" TM_GEN_R_REC
            ", default 40)\n"
            "  -o FILE               output commit stream ('-' = stdout)\n"
            "  --directed NAME       a deterministic stream aimed at one thing the RTL must\n"
            "                        exercise: chunks (every chunk boundary of bCnt, SL, iCnt,\n"
            "                        diffTA, diffCC), ras (RAS overflow/underflow), ibtb (set\n"
            "                        conflicts, LRU), samecycle (all cores offer a message in\n"
            "                        the same cycle), overflow (for --buffer min --port 1),\n"
            "                        idle (10^4..10^6-cycle gaps), tswrap (message gaps over\n"
            "                        2^16 and 2^20 cycles), all (every one, as phases).\n"
            "                        Takes only --threads (1..64, default 4), --seed, -o.\n"
            "Progress goes to stderr for streams of 10M instructions or more.\n");
}

typedef struct prog_state {
    int tty;
    int last;      /* last percentage (tty) or tenth (lines) shown */
} prog_state;

static void on_progress(uint64_t done, uint64_t total, void *arg)
{
    prog_state *ps = arg;
    int pct = (int)(done * 100 / total);
    if (ps->tty) {
        if (pct != ps->last) {
            fprintf(stderr, "\rtm gen: %d%%", pct);
            if (done >= total)
                fputc('\n', stderr);
            ps->last = pct;
        }
    } else if (pct / 10 > ps->last) {
        fprintf(stderr, "tm gen: %d%% (%" PRIu64 " instructions)\n", pct / 10 * 10, done);
        ps->last = pct / 10;
    }
}

/* The stream of CFG, or of the directed DC, to OUT: the exit status. */
static int run(const tm_gen_cfg *cfg, const tm_gen_directed_cfg *dc, const char *out)
{
    if (!out) {
        tm_usage("gen", "no output: give -o FILE.tmc ('-' = stdout)");
        return 2;
    }
    tm_out o;
    tmc_writer *w = NULL;
    char err[4400];
    int rc = tm_out_begin("gen", &o, out, NULL);
    if (rc)
        return rc == -2 ? 2 : 1;
    if (tm_gen_open(&o, dc ? dc->threads : cfg->threads, &w, err, sizeof err))
        return tm_err("gen", "%s", err), 1;
    prog_state ps = {tm_progress_tty(), 0};
    int show = !dc && cfg->insns >= PROGRESS_MIN;
    rc = dc ? tm_gen_directed_run(dc, w, err, sizeof err)
            : tm_gen_run(cfg, w, show ? on_progress : NULL, &ps, err, sizeof err);
    if (rc != TM_OK && show && ps.tty)
        fputc('\n', stderr);
    if (tm_gen_close(&o, w, rc, err, sizeof err))
        return tm_err("gen", "%s", err), 1;
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    tm_gen_cfg cfg;
    tm_gen_cfg_default(&cfg);
    struct gen_args {
        const char *threads, *directed, *insns, *seed, *pred, *exc, *rec, *out;
        int mem;
    } G;
    memset(&G, 0, sizeof G);
#define V(name, alias, f) {name, alias, TM_OPT_VALUE, offsetof(struct gen_args, f), 0, NULL}
    static const tm_optdef gen_opts[] = {
        V("--threads", NULL, threads), V("--directed", NULL, directed), V("--insns", NULL, insns),
        V("--seed", NULL, seed),       V("--predictability", NULL, pred), V("--exc-rate", NULL, exc),
        V("--recursion", NULL, rec),   V("-o", "--output", out),
        {"--mem", NULL, TM_OPT_FLAG, offsetof(struct gen_args, mem), 0, NULL}, {NULL, NULL, 0, 0, 0, NULL}};
#undef V
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t = {gen_opts, &G};
    const tm_optdef *hit;
    const char *v;
    char perr[256];
    int pr;
    while ((pr = tm_opt_next(&p, &t, 1, &hit, &v, perr, sizeof perr)) > 0) {
        if (pr == TM_OPT_HELP)
            return usage(stdout), 0;
        if (pr == TM_OPT_OPERAND) /* tm gen takes no argument but its options */
            return tm_usage("gen", "unexpected argument '%s' (the output is given with -o)", v), 2;
    }
    if (pr < 0)
        return tm_usage("gen", "%s", perr), 2;
    const char *const names[] = {"--threads", "--insns", "--seed", "--predictability", "--exc-rate", "--recursion"};
    const char *const vals[] = {G.threads, G.insns, G.seed, G.pred, G.exc, G.rec};
    char err[4400];
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (vals[k] && tm_gen_cfg_set(&cfg, names[k], vals[k], err, sizeof err))
            return tm_usage("gen", "%s", err), 2;
    cfg.mem = G.mem;
    const char *out = G.out, *directed = G.directed;
    const char *random_only = G.mem ? "--mem" : G.rec ? "--recursion" : G.exc ? "--exc-rate"
                              : G.pred ? "--predictability" : G.insns ? "--insns" : NULL;
    int threads_given = G.threads != NULL;
    if (directed) {
        int kind = tm_gen_directed_parse(directed);
        if (kind < 0) {
            tm_usage("gen", "--directed %s: unknown stream; allowed %s", directed,
                   tm_gen_directed_names());
            return 2;
        }
        if (random_only) {
            tm_usage("gen", "%s cannot be used with --directed (it takes --threads, --seed, -o)",
                   random_only);
            return 2;
        }
        tm_gen_directed_cfg dc;
        tm_gen_directed_default(&dc);
        dc.kind = (tm_gen_directed)kind;
        dc.seed = cfg.seed;
        if (threads_given)
            dc.threads = cfg.threads;
        if (tm_gen_directed_check(&dc, err, sizeof err) != TM_OK)
            return tm_usage("gen", "%s", err), 2;
        return run(NULL, &dc, out);
    }
    if (tm_gen_cfg_check(&cfg, err, sizeof err) != TM_OK)
        return tm_usage("gen", "%s", err), 2;
    return run(&cfg, NULL, out);
}
