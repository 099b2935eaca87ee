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

/* The ranges tm_gen_cfg_check enforces, for the messages about values that
 * are not numbers at all (values that are numbers go through the check). */
#define R_THREADS "1..1024"
#define R_INSNS "1..1000000000000"
#define R_SEED "0..18446744073709551615"
#define R_PRED "0..1"
#define R_EXC "0..0.1"
#define R_REC "0..10000"

/* Progress is shown for streams of at least this many instructions. */
#define PROGRESS_MIN 10000000ULL

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm gen [options] -o OUT.tmc\n"
            "       tm gen --directed NAME [--threads N] [--seed S] -o OUT.tmc\n"
            "  --threads N           threads (" R_THREADS ", default 1)\n"
            "  --insns N             instructions over all threads (" R_INSNS ", default 1M;\n"
            "                        K/M/G suffixes = 10^3/10^6/10^9)\n"
            "  --seed S              seed (default 1); same options and seed, same bytes\n"
            "  --mem                 memory operands (MEM records; loads see earlier stores)\n"
            "  --predictability P    share of branches with learnable behaviour (" R_PRED
            ", default 0.9)\n"
            "  --exc-rate R          exceptions per instruction (" R_EXC ", default 0.0001)\n"
            "  --recursion D         maximum depth of the recursive functions (" R_REC
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

/* Unsigned option VALUE (decimal; K/M/G only for --insns); range errors
 * come from tm_gen_cfg_check. */
static int opt_u64(const char *opt, const char *v, const char *range, uint64_t *out)
{
    if (!strcmp(opt, "--insns") ? tm_parse_count(v, out) : tm_parse_u64(v, out)) {
        tm_usage("gen", "%s %s: not a number; allowed %s", opt, v, range);
        return -1;
    }
    return 0;
}

static int opt_u32(const char *opt, const char *v, const char *range, uint32_t *out)
{
    uint64_t x;
    if (opt_u64(opt, v, range, &x))
        return -1;
    if (x > UINT32_MAX) {
        tm_usage("gen", "%s %s: allowed %s", opt, v, range);
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

static int opt_double(const char *opt, const char *v, const char *range, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (!*v || errno || *end || !isfinite(x)) {
        tm_usage("gen", "%s %s: not a number; allowed %s", opt, v, range);
        return -1;
    }
    *out = x;
    return 0;
}

/* The writer of output O; 0, or 1 after one line. */
static int open_writer(tm_out *o, uint32_t threads, tmc_writer **w)
{
    char m[600];
    int rc = tmc_writer_open(o->tmp, threads, -1, w, m, sizeof m);
    if (rc != TM_OK) {
        tm_err("gen", "%s", tm_out_name(o, m));
        tm_out_abort(o);
        return 1;
    }
    return 0;
}

/* Closes W and moves O into place: 0, or 1 after one line. */
static int close_writer(tm_out *o, tmc_writer *w)
{
    errno = 0;
    int rc = tmc_writer_close(w);
    if (rc != TM_OK) {
        tm_err("gen", "%s: %s%s%s", strcmp(o->path, "-") ? o->path : "standard output", tm_status_str(rc),
               errno ? ": " : "", errno ? strerror(errno) : "");
        tm_out_abort(o);
        return 1;
    }
    return tm_out_commit("gen", o) ? 1 : 0;
}

/* The output OUT as a commit stream of THREADS threads: 0, or the exit
 * status after one line. */
static int begin_output(const char *out, uint32_t threads, tm_out *o, tmc_writer **w)
{
    if (!out) {
        tm_usage("gen", "no output: give -o FILE.tmc ('-' = stdout)");
        return 2;
    }
    int rc = tm_out_begin("gen", o, out, NULL);
    if (rc)
        return rc == -2 ? 2 : 1;
    return open_writer(o, threads, w);
}

/* The generator ended with RC (ERR its message): the output is closed and
 * moved into place, or abandoned.  The exit status. */
static int end_output(int rc, const char *err, tm_out *o, tmc_writer *w)
{
    if (rc != TM_OK) {
        tm_err("gen", "%s", err);
        tmc_writer_abort(w);
        tm_out_abort(o);
        return 1;
    }
    return close_writer(o, w);
}

/* tm gen --directed: writes the stream to OUT. */
static int run_directed(const tm_gen_directed_cfg *dc, const char *out)
{
    char err[512];
    if (tm_gen_directed_check(dc, err, sizeof err) != TM_OK) {
        tm_usage("gen", "%s", err);
        return 2;
    }
    tm_out o;
    tmc_writer *w = NULL;
    int rc = begin_output(out, dc->threads, &o, &w);
    if (rc)
        return rc;
    return end_output(tm_gen_directed_run(dc, w, err, sizeof err), err, &o, w);
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
    if ((G.threads && opt_u32("--threads", G.threads, R_THREADS, &cfg.threads)) ||
        (G.insns && opt_u64("--insns", G.insns, R_INSNS, &cfg.insns)) ||
        (G.seed && opt_u64("--seed", G.seed, R_SEED, &cfg.seed)) ||
        (G.pred && opt_double("--predictability", G.pred, R_PRED, &cfg.predictability)) ||
        (G.exc && opt_double("--exc-rate", G.exc, R_EXC, &cfg.exc_rate)) ||
        (G.rec && opt_u32("--recursion", G.rec, R_REC, &cfg.recursion)))
        return 2;
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
        return run_directed(&dc, out);
    }
    char err[512];
    if (tm_gen_cfg_check(&cfg, err, sizeof err) != TM_OK) {
        tm_usage("gen", "%s", err);
        return 2;
    }
    tm_out o;
    tmc_writer *w = NULL;
    int rc = begin_output(out, cfg.threads, &o, &w);
    if (rc)
        return rc;
    prog_state ps = {tm_progress_tty(), 0};
    int show = cfg.insns >= PROGRESS_MIN;
    rc = tm_gen_run(&cfg, w, show ? on_progress : NULL, &ps, err, sizeof err);
    if (rc != TM_OK && show && ps.tty)
        fputc('\n', stderr);
    return end_output(rc, err, &o, w);
}
