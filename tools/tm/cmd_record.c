/* tm record — run a program under a frontend (the Valgrind tool in
 * vg-frontend/, with --frontend pin the Pin tool in pin-frontend/, with --frontend
 * qemu QEMU user mode with the plugin in qemu-frontend/) and
 * feed the trace module model on the fly (docs/capture.md, docs/guide.md).
 *
 *   tm record [model options] [--commit] [--threads N] -o BASE -- PROG ARGS
 *   tm record [the same options] -o BASE --capture FILE|-
 *
 * With --capture no frontend starts: the capture stream is read from FILE
 * (or standard input) and goes the same way.  Here: the options, turned
 * into the run's description; the run itself is the library's
 * (tm_rec_record, tm/recrun.h), its lines printed as "tm record: LINE".
 * The program's stdin, stdout, stderr and exit status pass through. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "modelopts.h"
#include "report.h"
#include "tm/opt.h"
#include "tm/recrun.h"
#include "tm/timing.h"

/* The timing model's options (tm/timing.h). */
static const char recmode_opts_help[] =
    "  --mode M                      also write the descriptors of the thesis's tool M: mcftrace,\n"
    "                                mlstrace, mcftraptor, mlvcfiat (files BASE.bin or BASE.txt and\n"
    "                                BASE.Statistics; without -o a time-stamped name)\n"
    "  -a                            ASCII descriptors (default binary)\n"
    "  -c C                          pipe the descriptors through C: gzip, bzip2, pigz, pbzip2, zstd\n"
    "  -d                            with -a: each descriptor ends with its instruction's\n"
    "                                disassembly (Intel syntax)\n"
    "  -f N                          stop the descriptors (and the tracing) at N MB\n"
    "  --store                       mlstrace: store descriptors too\n";

static const char timing_opts_help[] =
    "  --timing cores|serial         cores (default; serial with --mode): each thread on its own\n"
    "                                core with its own clock, several cores retire in one cycle;\n"
    "                                serial: every group the next cycle of one clock, one thread\n"
    "                                at a time\n"
    "                                (cores: the paper's machine, docs/capture.md section 3)\n"
    "  --cpi X                       base cycles per instruction (default 1; e.g. 1.5)\n"
    "  --l1i SIZE[:WAYS[:LAT]]       private instruction cache per core (default 8K:2:0: a hit\n"
    "                                adds 0 cycles, a miss the L2's and, if it misses, memory's)\n"
    "  --no-icache                   no instruction cache: fetching costs nothing\n"
    "  --l1 SIZE[:WAYS[:LAT]]        private L1 data cache per core (default 8K:2:2)\n"
    "  --l2 SIZE[:WAYS[:LAT]]        shared L2, instructions and data (default cores x 64K, 8 ways,\n"
    "                                4 cycles)\n"
    "  --mem-latency N               cycles of an access that misses both (default 200)\n"
    "  --no-caches                   no caches: every core at IPC 1/CPI, only the waits\n"
    "                                (futex, join, other threads' stores) delay it\n"
    "  --timing-window N             groups held at most for the merge by cycle (default 4194304)\n"
    "  --timing-turn N               a thread at an atomic instruction (a lock's, a condition's)\n"
    "                                waits while a running thread is more than N cycles behind it\n"
    "                                in time (default 2000; Valgrind runs one thread at a time:\n"
    "                                docs/capture.md section 3)\n"
    "  --timing-drift N              the frontend lets the other threads run when one is N cycles\n"
    "                                ahead of them (default 1000000; 0: never)\n";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm record [options] -o BASE [--and [model options] -o BASE2 [--profile P2.json] ...]\n"
            "                 -- PROG [ARGS...]\n"
            "       tm record [options] -o BASE [--and ...] --capture FILE|-\n%s%s%s",
            model_opts_help, recmode_opts_help, timing_opts_help);
    fprintf(f,
            "  -o BASE                       outputs: BASE.tmt, BASE.json, BASE.stats, BASE.modules\n"
            "                                (and BASE.tmc with --commit); with --mode, -o may be left out\n"
            "  --commit                      also write the commit stream BASE.tmc\n"
            "  --demand                      every configuration (those after --and too) gets a port and\n"
            "                                buffer that drop nothing: --port 1024 --buffer 16777216 (not\n"
            "                                with --port or --buffer); a drop still fails the run (exit 1)\n"
            "  --profile FILE                the configuration's field profile as JSON (as tm model\n"
            "                                --profile; not with --mode)\n"
            "  --profile-window CYCLES       the profiles' timeline window (1..2^40, default 1000000)\n"
            "  --and                         another configuration of the trace module fed the same\n"
            "                                run: its model options, -o BASE2 (BASE2.tmt, .json, .stats,\n"
            "                                .modules) and --profile follow; up to 256 (not with --mode, -f; with\n"
            "                                --threads auto every model is fed after the program; the\n"
            "                                other options are the recording's, before the first --and)\n"
            "  -s N                          skip the first N instructions (all threads)\n"
            "  -l N                          trace N instructions, then stop tracing\n"
            "  -f N                          stop tracing when the trace (or, with --mode, the\n"
            "                                descriptor file) reaches N MB\n"
            "  --no-shared-libs              only the program's own code: tracing starts there; with\n"
            "                                --mode, descriptors only of its instructions\n"
            "  --filter-rtn NAME             likewise for the function NAME\n"
            "  --threads N|auto              cores of the trace module = most threads the program\n"
            "                                may run (1..1024, default 8); auto: as many as it ran\n"
            "                                (the model runs after the program; not with --mode, -f)\n"
            "  --frontend valgrind|pin|qemu  what runs the program and captures it (default valgrind:\n"
            "                                the tool tmtrace; pin: the Pin tool tm_pin.so, built by\n"
            "                                make pin PIN_ROOT=DIR; TM_PIN_TOOL names another; qemu:\n"
            "                                AArch64 and RISC-V programs under qemu-aarch64 or\n"
            "                                qemu-riscv64 with the plugin tm_qemu.so, docs/qemu.md;\n"
            "                                TM_QEMU_PLUGIN names another)\n"
            "  --model-thread auto|yes|no    the trace module model on a thread of its own, beside\n"
            "                                the capture and the timing model (when the models are the\n"
            "                                only consumers: not with --commit, --mode, -f, --threads\n"
            "                                auto); auto (default): yes with values captured (--cfiat,\n"
            "                                --data) and --timing cores on 2 processors or more\n"
            "  --valgrind PATH               the valgrind launcher (default: valgrind on PATH)\n"
            "  --pin PATH                    with --frontend pin: the pin launcher, or a Pin 3.x kit\n"
            "                                folder holding it (default: $PIN_ROOT/pin)\n"
            "  --qemu PATH                   with --frontend qemu: the QEMU user-mode launcher (default:\n"
            "                                qemu-aarch64 or qemu-riscv64 on PATH, from the program's\n"
            "                                ELF machine; the guest's libraries: QEMU_LD_PREFIX, else\n"
            "                                /usr/aarch64-linux-gnu or /usr/riscv64-linux-gnu)\n"
            "  --capture FILE|-              start no frontend: read the capture stream a frontend wrote\n"
            "                                (docs/capture.md) from FILE, or - standard input; no PROG\n"
            "The program runs under the frontend; its stdin, stdout, stderr and exit status pass\n"
            "through (with --capture the exit status is the one the stream's end marker gives).\n"
            "See docs/guide.md and docs/capture.md.\n");
}

/* A configuration after --and: its model options, -o and --profile. */
typedef struct rec_more {
    model_opts o;
    const char *base, *profile;
} rec_more;

/* tm record's command line. */
typedef struct rec_args {
    model_opts o;
    tm_recmode_cfg mc;
    tm_timing_opts to;
    const char *base, *valgrind, *rtn, *profile, *pwin;
    const char *frontend, *pin, *capture; /* --frontend (NULL: valgrind), --pin, --capture */
    const char *qemu;                     /* --qemu */
    uint64_t nthreads, skip, length;
    int commit, argi, main_only, vg_given, demand;
    int model_thread; /* --model-thread: TM_REC_MT_* */
    rec_more more[TM_REC_MAX_CONFS - 1];
    size_t nmore;
} rec_args;

/* The options of the recording as a whole (the capture, the timing model,
 * the descriptors): not after --and.  Those with id REC_OWN are tm
 * record's own (rec_whole); the others the timing model's and the
 * descriptors' (tm_timing_opt and tm_recmode_opt check the value). */
enum { REC_AND = 1, REC_DEMAND, REC_OWN, REC_TIMING, REC_MODES };
#define W(name, kind, id, hint) {name, NULL, kind, TM_OPT_NOSTORE, id, hint}
#define TV TM_OPT_VALUE
#define TF TM_OPT_FLAG
static const tm_optdef rec_whole_opts[] = {
    W("--timing", TV, REC_TIMING, "a value: allowed cores, serial"),
    W("--cpi", TV, REC_TIMING, "a value: allowed a number 0.001..1000 (up to 3 decimals)"),
    W("--l1i", TV, REC_TIMING, "a value: allowed SIZE[:WAYS[:LATENCY]] (SIZE in bytes with K or M)"),
    W("--l1", TV, REC_TIMING, "a value: allowed SIZE[:WAYS[:LATENCY]] (SIZE in bytes with K or M)"),
    W("--l2", TV, REC_TIMING, "a value: allowed SIZE[:WAYS[:LATENCY]] (SIZE in bytes with K or M)"),
    W("--mem-latency", TV, REC_TIMING, "a value: allowed 0..100000 cycles"),
    W("--timing-window", TV, REC_TIMING, "a value: allowed 1..4294967296 groups"),
    W("--timing-turn", TV, REC_TIMING, "a value: allowed 0..100000000 cycles"),
    W("--timing-drift", TV, REC_TIMING, "a value: allowed 0..100000000 cycles"),
    W("--no-icache", TF, REC_TIMING, NULL), W("--no-caches", TF, REC_TIMING, NULL),
    W("--mode", TV, REC_MODES, "a value: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat"),
    W("-a", TF, REC_MODES, NULL),
    W("-c", TV, REC_MODES, "a compressor: allowed gzip, bzip2, pigz, pbzip2, zstd"),
    W("--store", TF, REC_MODES, NULL), W("-d", TF, REC_MODES, NULL),
    W("-f", TV, REC_MODES, "a value: allowed a whole number of megabytes, at least 1"),
    W("-s", TV, REC_OWN, "a value: allowed a number of instructions"),
    W("-l", TV, REC_OWN, "a value: allowed a number of instructions (at least 1)"),
    W("--no-shared-libs", TF, REC_OWN, NULL), W("--filter-rtn", TV, REC_OWN, "a function name"),
    W("--threads", TV, REC_OWN, "a value: allowed 1..1024 or auto"), W("--valgrind", TV, REC_OWN, "a path"),
    W("--commit", TF, REC_OWN, NULL), W("--frontend", TV, REC_OWN, "a value: allowed valgrind, pin or qemu"),
    W("--qemu", TV, REC_OWN, "a path: the qemu-aarch64 or qemu-riscv64 launcher"),
    W("--pin", TV, REC_OWN, "a path: the pin launcher or a Pin kit folder"),
    W("--capture", TV, REC_OWN, "a file: a capture stream, or - for standard input"),
    W("--model-thread", TV, REC_OWN, "a value: allowed auto, yes, no"), {NULL, NULL, 0, 0, 0, NULL}};
/* Each configuration's outputs (after --and: that configuration's). */
static const tm_optdef rec_conf_opts[] = {
    {"-o", "--output", TV, offsetof(rec_more, base), 0, "a value: the base name of the outputs"},
    {"--profile", NULL, TV, offsetof(rec_more, profile), 0, "a file name"}, {NULL, NULL, 0, 0, 0, NULL}};
/* Anywhere: --and, --demand (every configuration's), --profile-window. */
static const tm_optdef rec_run_opts[] = {
    W("--and", TF, REC_AND, NULL), W("--demand", TF, REC_DEMAND, NULL),
    {"--profile-window", NULL, TV, offsetof(rec_args, pwin), 0, "a number of cycles"}, {NULL, NULL, 0, 0, 0, NULL}};
#undef W
#undef TV
#undef TF

/* tm record's own whole-recording option NAME with value V: 0, or 2 after
 * the usage line. */
static int rec_whole(rec_args *A, const char *name, const char *v)
{
    uint64_t n = 0;
    if (!strcmp(name, "-s") || !strcmp(name, "-l")) {
        int is_s = name[1] == 's';
        if (tm_parse_count(v, &n) || (!is_s && n == 0))
            return tm_usage("record", "%s %s: allowed a number of instructions%s", name, v, is_s ? "" : " (at least 1)"),
                   2;
        *(is_s ? &A->skip : &A->length) = n;
    } else if (!strcmp(name, "--filter-rtn")) {
        if (!*v)
            return tm_usage("record", "--filter-rtn needs a function name"), 2;
        A->rtn = v;
    } else if (!strcmp(name, "--no-shared-libs")) {
        A->main_only = 1;
    } else if (!strcmp(name, "--threads")) {
        if (!strcmp(v, "auto"))
            A->nthreads = 0;
        else if (tm_parse_u64(v, &A->nthreads) || A->nthreads < 1 || A->nthreads > TMC_MAX_THREADS)
            return tm_usage("record", "--threads %s: allowed 1..%u or auto", v, TMC_MAX_THREADS), 2;
    } else if (!strcmp(name, "--valgrind")) {
        if (!*v)
            return tm_usage("record", "--valgrind needs a path"), 2;
        A->valgrind = v;
        A->vg_given = 1;
    } else if (!strcmp(name, "--frontend")) {
        if (strcmp(v, "valgrind") && strcmp(v, "pin") && strcmp(v, "qemu"))
            return tm_usage("record", "--frontend %s: allowed valgrind, pin or qemu", v), 2;
        A->frontend = v;
    } else if (!strcmp(name, "--qemu")) {
        if (!*v)
            return tm_usage("record", "--qemu needs a path: the qemu-aarch64 or qemu-riscv64 launcher"), 2;
        A->qemu = v;
    } else if (!strcmp(name, "--pin")) {
        if (!*v)
            return tm_usage("record", "--pin needs a path: the pin launcher or a Pin kit folder"), 2;
        A->pin = v;
    } else if (!strcmp(name, "--capture")) {
        if (!*v)
            return tm_usage("record", "--capture needs a file: a capture stream, or - for standard input"), 2;
        A->capture = v;
    } else if (!strcmp(name, "--model-thread")) {
        if (!strcmp(v, "auto"))
            A->model_thread = TM_REC_MT_AUTO;
        else if (!strcmp(v, "yes"))
            A->model_thread = TM_REC_MT_YES;
        else if (!strcmp(v, "no"))
            A->model_thread = TM_REC_MT_NO;
        else
            return tm_usage("record", "--model-thread %s: allowed auto, yes, no", v), 2;
    } else {
        A->commit = 1; /* --commit */
    }
    return 0;
}

/* Parses the options into *A: -1 to go on, else the exit status (after one
 * line, or the usage text). */
static int parse_args(int argc, char **argv, rec_args *A)
{
    memset(A, 0, sizeof *A);
    A->valgrind = "valgrind";
    A->nthreads = 8;
    tm_timing_opts_init(&A->to);
    A->argi = -1;
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    const tm_optdef *hit;
    const char *v;
    char perr[256];
    int pr;
    for (;;) {
        /* after --and: that configuration's options */
        rec_more *g = A->nmore ? &A->more[A->nmore - 1] : NULL;
        rec_more first = {A->o, A->base, A->profile};
        tm_opt_table t[4] = {{model_opts_table, g ? &g->o : &first.o}, {rec_conf_opts, g ? g : &first},
                             {rec_run_opts, A}, {rec_whole_opts, A}};
        pr = tm_opt_next(&p, t, 4, &hit, &v, perr, sizeof perr);
        if (!g) { /* the first configuration's fields live in A */
            A->o = first.o;
            A->base = first.base;
            A->profile = first.profile;
        }
        if (pr <= 0)
            break;
        if (pr == TM_OPT_HELP)
            return usage(stdout), 0;
        if (pr == TM_OPT_OPERAND) { /* the program: the rest are its arguments */
            A->argi = p.i - 1;
            break;
        }
        if (!strcmp(hit->name, "--profile") && !*v)
            return tm_usage("record", "--profile needs a file name"), 2;
        if (hit->id == REC_AND) {
            if (A->nmore + 1 == TM_REC_MAX_CONFS)
                return tm_usage("record", "--and: at most %d configurations in one recording", TM_REC_MAX_CONFS), 2;
            memset(&A->more[A->nmore++], 0, sizeof A->more[0]);
        } else if (hit->id == REC_DEMAND) {
            A->demand = 1;
        } else if (hit->id >= REC_OWN && g) {
            if (!strcmp(hit->name, "--mode"))
                return tm_usage("record", "--and: not with --mode (its descriptors come from one configuration's "
                                          "messages)"), 2;
            return tm_usage("record", "%s after --and: an option of the whole recording (capture, timing, commit "
                                      "stream); give it before the first --and", hit->name), 2;
        } else if (hit->id == REC_OWN && rec_whole(A, hit->name, v)) {
            return 2;
        } else if (hit->id == REC_TIMING && tm_timing_opt(&A->to, hit->name, v, perr, sizeof perr)) {
            return tm_usage("record", "%s", perr), 2;
        } else if (hit->id == REC_MODES && tm_recmode_opt(&A->mc, hit->name, v, perr, sizeof perr)) {
            return tm_usage("record", "%s", perr), 2;
        }
    }
    if (pr < 0)
        return tm_usage("record", "%s", perr), 2;
    if (p.operands_only && A->argi < 0)
        A->argi = argc; /* "--" and nothing after it */
    /* --demand: every configuration's port and buffer */
    for (size_t j = 0; A->demand && j <= A->nmore; j++) {
        char which[64] = "";
        if (A->nmore)
            snprintf(which, sizeof which, "configuration %zu: ", j + 1);
        if (model_opts_demand("record", j ? &A->more[j - 1].o : &A->o, which))
            return 2;
    }
    if (tm_timing_opts_check(&A->to, A->mc.mode != NULL, perr, sizeof perr))
        return tm_usage("record", "%s", perr), 2;
    return -1;
}

/* The frontend, the program and -o as the options give them: -1 to go on,
 * or 2 after the usage line. */
static int check_run(const rec_args *A, int argc, char **argv, int pin)
{
    if (A->capture) {
        /* no frontend: the capture stream is the program's run */
        const char *fe = A->frontend ? "--frontend" : A->pin ? "--pin" : A->vg_given ? "--valgrind"
                       : A->qemu ? "--qemu" : NULL;
        if (fe)
            return tm_usage("record", "%s: not with --capture (no frontend is started: the capture stream is read "
                                      "from %s)", fe, A->capture), 2;
        if (A->argi >= 0 && A->argi < argc)
            return tm_usage("record", "--capture %s: no program to run ('%s'): the capture stream is the program's "
                                      "run", A->capture, argv[A->argi]), 2;
    } else {
        if (A->argi < 0 || A->argi >= argc)
            return tm_usage("record", "no program to run: give -- PROG [ARGS...] after the options, or --capture "
                                      "FILE"), 2;
        if (A->pin && !pin)
            return tm_usage("record", "--pin %s: only with --frontend pin", A->pin), 2;
        int qemu = A->frontend && !strcmp(A->frontend, "qemu");
        if (pin && A->vg_given)
            return tm_usage("record", "--valgrind: an option of the Valgrind frontend, not with --frontend pin"), 2;
        if (qemu && A->vg_given)
            return tm_usage("record", "--valgrind: an option of the Valgrind frontend, not with --frontend qemu"), 2;
        if (A->qemu && !qemu)
            return tm_usage("record", "--qemu %s: only with --frontend qemu", A->qemu), 2;
    }
    if ((!A->base && !A->mc.mode) || (A->base && !*A->base))
        return tm_usage("record", "no output: give -o BASE"), 2;
    return -1;
}

/* The configurations (--and) and the profiles as the options give them:
 * -1 to go on, or 2 after the usage line. */
static int check_profiles(const rec_args *A, tm_rec_run *D)
{
    int profiles = A->profile != NULL;
    for (size_t j = 0; j < A->nmore; j++)
        profiles += A->more[j].profile != NULL;
    D->window = REPORT_PROFILE_WINDOW;
    if (A->pwin && report_profile_window("record", A->pwin, &D->window))
        return 2;
    if (A->pwin && !profiles)
        return tm_usage("record", "--profile-window: only with --profile"), 2;
    if (A->profile && A->mc.mode)
        return tm_usage("record", "--profile: not with --mode (both would observe the model's messages through its "
                                  "one hook)"), 2;
    if (D->k > 1 && A->mc.mode)
        return tm_usage("record", "--and: not with --mode (its descriptors come from one configuration's messages)"),
               2;
    if (D->k > 1 && A->mc.size_limit)
        return tm_usage("record", "--and: not with -f (the size limit is one configuration's trace's)"), 2;
    return -1;
}

/* Every configuration's base, profile and model into D (and the first
 * one's options, A->o, as the run uses them): -1, or 2 after one line. */
static int make_confs(rec_args *A, tm_rec_run *D)
{
    static tm_rec_conf conf[TM_REC_MAX_CONFS];
    uint64_t nthreads = A->nthreads;
    char e[2048];
    D->conf = conf;
    memset(conf, 0, D->k * sizeof conf[0]);
    for (size_t j = 0; j < D->k; j++) {
        conf[j].base = j ? A->more[j - 1].base : A->base;
        conf[j].profile = j ? A->more[j - 1].profile : A->profile;
        conf[j].lock_fd = -1;
        if (j && (!conf[j].base || !*conf[j].base))
            return tm_usage("record", "configuration %zu (after --and number %zu): no output: give -o BASE", j + 1,
                            j), 2;
        if (j && model_opts_cfg("record", &A->more[j - 1].o, nthreads ? (uint32_t)nthreads : 1, &conf[j].cfg))
            return 2;
        if (conf[j].profile && !strcmp(conf[j].profile, "-"))
            return tm_usage("record", "--profile -: give a file (standard output is the program's)"), 2;
    }
    if (tm_rec_check_collisions(conf, D->k, e, sizeof e) != TM_OK)
        return tm_usage("record", "%s", e), 2;
    if (tm_recmode_needs_cfiat(&A->mc) && !A->o.cfiat && !A->o.data)
        A->o.cfiat = 1; /* mlvcfiat is CFiat's descriptors */
    /* --threads auto: the module gets as many cores as the program ran
     * threads; the commit stream is spooled and the model runs after the
     * program (it needs the Ti width from the start). */
    int autoth = nthreads == 0;
    if (autoth && (A->mc.mode || A->mc.size_limit))
        return tm_usage("record", "--threads auto: not with --mode or -f (they need the model while the program "
                                  "runs)"), 2;
    D->threads = (uint32_t)nthreads;
    if (autoth && !A->to.serial && !A->to.cfg.l2.size)
        A->to.cfg.l2.size = 8u * (64u << 10); /* the cores are not known yet: 8 cores' L2 */
    if (model_opts_cfg("record", &A->o, autoth ? 1 : (uint32_t)nthreads, &D->cfg))
        return 2;
    /* -f: the descriptor file's limit with --mode, else the trace's. */
    D->mc = A->mc;
    if (!D->mc.mode) {
        D->trace_limit = D->mc.size_limit;
        D->mc.size_limit = 0;
    }
    return -1;
}

/* The run's lines: "tm record: LINE", a usage error's with its hint. */
static void rec_say(void *arg, int usage, const char *line)
{
    (void)arg;
    if (usage)
        tm_usage("record", "%s", line);
    else
        tm_err("record", "%s", line);
}

/* --threads auto: configuration J's model of N cores. */
static int rec_cfg_at(void *arg, size_t j, uint32_t n, tm_model_cfg *cfg)
{
    const rec_args *A = arg;
    return model_opts_cfg("record", j ? &A->more[j - 1].o : &A->o, n, cfg);
}

/* --demand: the configuration's model dropped nothing. */
static int rec_demand_check(void *arg, size_t j, const tm_model *m, const tm_model_cfg *cfg, const char *base)
{
    (void)arg;
    (void)j;
    return model_opts_demand_check("record", m, cfg, base);
}

/* On a terminal, every 2 s: the instructions so far (the run's end ends the line). */
static void rec_progress(void *arg, uint64_t instructions, long seconds)
{
    (void)arg;
    if (seconds < 0)
        fprintf(stderr, "\n");
    else
        fprintf(stderr, "tm record: %" PRIu64 "M instructions, %lds\r", instructions / 1000000, seconds);
}

/* In the frontend's child: the program gets the signals tm got. */
static void rec_child_setup(void *arg)
{
    (void)arg;
    tm_restore_child_signals();
}

int cmd_record(int argc, char **argv)
{
    static rec_args A;
    static tm_rec_run D;
    int rc = parse_args(argc, argv, &A);
    if (rc >= 0)
        return rc;
    memset(&D, 0, sizeof D);
    D.pin = A.frontend && !strcmp(A.frontend, "pin");
    D.qemu = A.frontend && !strcmp(A.frontend, "qemu");
    D.qemu_opt = A.qemu;
    D.k = 1 + A.nmore;
    if ((rc = check_run(&A, argc, argv, D.pin)) >= 0 || (rc = check_profiles(&A, &D)) >= 0 ||
        (rc = make_confs(&A, &D)) >= 0)
        return rc;
    D.base = A.base;
    D.skip = A.skip;
    D.length = A.length;
    D.main_only = A.main_only;
    D.rtn = A.rtn;
    D.commit = A.commit;
    D.timing = A.to.serial ? NULL : &A.to.cfg;
    D.no_caches = A.to.no_caches;
    D.capture = A.capture;
    D.model_thread = A.model_thread;
    D.valgrind = A.valgrind;
    D.pin_opt = A.pin;
    D.prog = A.capture ? NULL : argv + A.argi;
    D.nprog = A.capture ? 0 : argc - A.argi;
    D.catch_signals = 1;
    D.arg = &A;
    D.say = rec_say;
    D.cfg_at = rec_cfg_at;
    D.demand_check = A.demand ? rec_demand_check : NULL;
    D.progress = tm_progress_tty() ? rec_progress : NULL;
    D.child_setup = rec_child_setup;
    return tm_rec_record(&D);
}
