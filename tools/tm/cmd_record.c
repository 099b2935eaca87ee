/* tm record — run a program under a frontend (the Valgrind tool in
 * vg-frontend/, or with --frontend pin the Pin tool in pin-frontend/) and
 * feed the trace module model on the fly (docs/capture.md, docs/guide.md).
 *
 *   tm record [model options] [--commit] [--threads N] -o BASE -- PROG ARGS
 *   tm record [the same options] -o BASE --capture FILE|-
 *
 * With --capture no frontend starts: the capture stream is read from FILE
 * (or standard input) and goes the same way.
 *
 * The tool writes the capture stream into shared memory slots and their
 * lengths into a pipe (or, with TM_CAPTURE_PIPE=1, the stream itself into
 * the pipe); this process turns it into commit-stream records (capture/)
 * and hands them to the model (and, with --commit, to a .tmc writer).  The
 * program's stdin, stdout, stderr and exit status pass through. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "modelopts.h"
#include "recmode_opts.h"
#include "timing_opts.h"
#include "tm/recmodes.h"
#include "record.h"
#include "tm/capture.h"
#include "tm/transport.h"
#include "report.h"
#include "tm/model.h"
#include "tm/profile.h"
#include "tm/sweep.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* The shared-memory transport (tm/transport.h): slots of SHM_SLOT bytes
 * (64 KB with a size limit). */
#define SHM_SLOTS 8
#define SHM_SLOT ((size_t)512 << 10)

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
            "  --frontend valgrind|pin       what runs the program and captures it (default valgrind:\n"
            "                                the tool tmtrace; pin: the Pin tool tm_pin.so, built by\n"
            "                                make pin PIN_ROOT=DIR; TM_PIN_TOOL names another)\n"
            "  --valgrind PATH               the valgrind launcher (default: valgrind on PATH)\n"
            "  --pin PATH                    with --frontend pin: the pin launcher, or a Pin 3.x kit\n"
            "                                folder holding it (default: $PIN_ROOT/pin)\n"
            "  --capture FILE|-              start no frontend: read the capture stream a frontend wrote\n"
            "                                (docs/capture.md) from FILE, or - standard input; no PROG\n"
            "The program runs under the frontend; its stdin, stdout, stderr and exit status pass\n"
            "through (with --capture the exit status is the one the stream's end marker gives).\n"
            "See docs/guide.md and docs/capture.md.\n");
}

/* --threads auto, after the program: the spooled commit stream into the
 * model of N cores, or with --and into the models of every configuration
 * (OPTS[j]: configuration j's options), in one pass (and with COMMIT into
 * BASE.tmc, whose header says N).  0, or 1 after one line with every output
 * removed. */
static int replay_spool(tm_rec_ctx *x, tm_rec_outs *O, tm_out *spool, const model_opts *const *opts, uint32_t n,
                        int commit, tm_model_cfg *cfg, int *status)
{
    char e[600];
    int rc = tmc_writer_close(x->w);
    x->w = NULL;
    if (rc != TM_OK && !*status) {
        tm_err("record", "%s.spool.tmc: %s", x->base, tm_status_str(rc));
        *status = 1;
    }
    static tm_model_cfg cfgs[TM_REC_MAX_CONFS];
    for (size_t j = 0; j < x->k; j++)
        if (model_opts_cfg("record", opts[j], n, &cfgs[j])) {
            tm_out_abort(spool);
            return rec_abandon(x, O, "--threads auto: the model of %u cores cannot be made with these options%s", n,
                               j ? " (a configuration after --and)" : "");
        }
    *cfg = cfgs[0];
    char em[1024];
    if (tm_rec_models_new(x, cfgs, em, sizeof em) != TM_OK) {
        tm_out_abort(spool);
        return rec_abandon(x, O, "%s", em);
    }
    if (commit && (rc = tmc_writer_open(O->o[TM_REC_TMC].tmp, n, 0, &x->w, e, sizeof e)) != TM_OK) {
        tm_out_abort(spool);
        return rec_abandon(x, O, "%s.tmc: %s", x->base, e);
    }
    tmc_reader *r = NULL;
    if (tmc_reader_open(spool->tmp, &r, e, sizeof e) != TM_OK) {
        tm_out_abort(spool);
        return rec_abandon(x, O, "%s.spool.tmc: %s", x->base, e);
    }
    /* What was spooled before a signal that stopped the program is fed
     * whole, as --threads N feeds it while the program runs (the recording
     * is then cut at the signal, as there).  A signal that comes while the
     * spool is fed ends the recording there: the trace up to there
     * (TM_TEST_SIGNAL_IN_REPLAY=1, for the tests: as if one came now). */
    sig_atomic_t nsigs = rec_nsigs;
    const char *tsig = getenv("TM_TEST_SIGNAL_IN_REPLAY");
    if (tsig && *tsig == '1')
        raise(SIGTERM);
    rc = tm_rec_feed(x, r, &rec_nsigs, nsigs);
    if (rc < 0 && !*status) {
        tm_err("record", "%s", x->failed ? x->err : tmc_reader_error(r));
        *status = 1;
    }
    tmc_reader_close(r);
    tm_out_abort(spool);
    return 0;
}

/* The size limits (-f: the descriptors', or the trace's TRACE_LIMIT bytes). */
typedef struct rec_stop {
    tm_rec_ctx *x;
    uint64_t trace_limit;
    int stopped;
} rec_stop;

/* After each piece of the capture (the transport's after_piece): a size
 * limit reached stops tracing cleanly; the program goes on.  Nonzero if the
 * capture failed. */
static int record_check_stop(void *arg, tm_cap *cap)
{
    rec_stop *s = arg;
    if (!s->stopped && (tm_recmode_full(s->x->mode) ||
                        (s->trace_limit && tm_model_trace(s->x->m)->nbits / 8 >= s->trace_limit))) {
        s->stopped = 1;
        return tm_cap_stop(cap) != TM_OK;
    }
    return 0;
}

/* Reads the capture from TP into CAP until the frontend closed the channel
 * and the program ended (*WS its wait status); 1 if it was waited for.  A signal to tm ends the
 * recording: the program is given the signal (after FORWARD_AFTER seconds
 * if it has not ended by then), and killed KILL_AFTER seconds later, or at
 * a second signal (*KILLED). */
static int run_capture(tm_transport *tp, tm_cap *cap, int tty, int *ws, int *killed)
{
    time_t t0 = time(NULL), last = t0;
    pid_t pid = tm_transport_pid(tp);
    int pipe_open = 1, reaped = pid < 0, forwarded = 0; /* no child: --capture */
    *ws = 0;
    *killed = 0;
    double t_sig = 0;
    while (pipe_open || !reaped) {
        if (rec_got_sig && pid < 0)
            break; /* --capture: the recording ends where reading stopped */
        if (rec_got_sig && t_sig == 0)
            t_sig = rec_now_s();
        if (rec_got_sig && !reaped) {
            double waited = rec_now_s() - t_sig;
            if (!forwarded && waited >= FORWARD_AFTER) {
                kill(pid, rec_got_sig);
                forwarded = 1;
            }
            if (!*killed && (waited >= FORWARD_AFTER + KILL_AFTER || rec_nsigs > 1)) {
                kill(pid, SIGKILL);
                *killed = 1;
            }
        }
        if (!reaped) {
            pid_t w = waitpid(pid, ws, WNOHANG);
            if (w == pid)
                reaped = 1;
        }
        struct pollfd pf[2] = {{rec_wake_fd[0], POLLIN, 0}, {tm_transport_fd(tp), POLLIN, 0}};
        int tmo = rec_got_sig && !reaped ? 100 : !pipe_open ? 200 : -1;
        if (reaped && !pipe_open)
            break;
        if (poll(pf, 2, tmo) < 0 && errno != EINTR)
            break;
        if (pf[0].revents & POLLIN) {
            char b[64];
            while (read(rec_wake_fd[0], b, sizeof b) > 0)
                ;
        }
        if (!pipe_open || !(pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if (!tm_transport_read(tp, cap))
            pipe_open = 0;
        if (tty) {
            time_t now = time(NULL);
            if (now - last >= 2) {
                tm_cap_info in;
                tm_cap_get_info(cap, &in);
                fprintf(stderr, "tm record: %" PRIu64 "M instructions, %lds\r", in.instructions / 1000000,
                        (long)(now - t0));
                last = now;
            }
        }
    }
    return reaped;
}

/* --capture FILE (or - for standard input): opened, and its magic read
 * into MAGIC and checked (tm_rec_capture_open; NAME: FILE as the messages
 * say it).  The descriptor, or after one line minus the exit status. */
static int capture_open(const char *file, const char *name, uint8_t magic[8])
{
    char err[2048];
    int fd, rc = tm_rec_capture_open(file, name, magic, &fd, err, sizeof err);
    if (rc == TM_OK)
        return fd;
    tm_err("record", "%s", err);
    return rc == TM_ERR_ARG ? -2 : -1;
}

static void capture_close(int fd)
{
    if (fd > 0)
        close(fd);
}

/* --capture: the stream was refused (MSG): everything the run made is
 * freed and every output removed; 1 (the exit status). */
static int capture_refused(tm_rec_ctx *x, tm_rec_outs *O, tm_out *spool, tm_cap *cap, const char *msg)
{
    if (x->w)
        tmc_writer_close(x->w);
    x->w = NULL;
    if (x->mods)
        fclose(x->mods);
    x->mods = NULL;
    tm_out_abort(spool);
    if (x->sw)
        tm_sweep_free(x->sw);
    else
        tm_model_free(x->m);
    x->sw = NULL;
    x->m = NULL;
    for (size_t j = 0; j < x->k; j++) {
        tm_profile_free(x->conf[j].prof);
        x->conf[j].prof = NULL;
    }
    tm_cap_free(cap);
    return rec_abandon(x, O, "%s", msg);
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
    timing_opts to;
    const char *base, *valgrind, *rtn, *profile, *pwin;
    const char *frontend, *pin, *capture; /* --frontend (NULL: valgrind), --pin, --capture */
    uint64_t nthreads, skip, length;
    int commit, argi, main_only, vg_given, demand;
    rec_more more[TM_REC_MAX_CONFS - 1];
    size_t nmore;
} rec_args;

/* The options of the recording as a whole (the capture, the timing model,
 * the descriptors): not after --and.  Those with id REC_OWN are tm
 * record's own (rec_whole); the others the timing model's and the
 * descriptors' (timing_opts_parse, recmode_opts_parse read them again from
 * their place in ARGV, and check their values). */
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
    W("--commit", TF, REC_OWN, NULL), W("--frontend", TV, REC_OWN, "a value: allowed valgrind or pin"),
    W("--pin", TV, REC_OWN, "a path: the pin launcher or a Pin kit folder"),
    W("--capture", TV, REC_OWN, "a file: a capture stream, or - for standard input"), {NULL, NULL, 0, 0, 0, NULL}};
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
        if (strcmp(v, "valgrind") && strcmp(v, "pin"))
            return tm_usage("record", "--frontend %s: allowed valgrind or pin", v), 2;
        A->frontend = v;
    } else if (!strcmp(name, "--pin")) {
        if (!*v)
            return tm_usage("record", "--pin needs a path: the pin launcher or a Pin kit folder"), 2;
        A->pin = v;
    } else if (!strcmp(name, "--capture")) {
        if (!*v)
            return tm_usage("record", "--capture needs a file: a capture stream, or - for standard input"), 2;
        A->capture = v;
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
    timing_opts_init(&A->to);
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
        int at = p.i;
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
        } else if (hit->id == REC_TIMING && timing_opts_parse(&A->to, argc, argv, &at) < 0) {
            return 2;
        } else if (hit->id == REC_MODES && recmode_opts_parse(&A->mc, argc, argv, &at) < 0) {
            return 2;
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
    return timing_opts_check(&A->to, A->mc.mode != NULL) ? 2 : -1;
}

/* The recording's diagnostics sink (tm_rec_finish's lines): "tm record: LINE". */
static void rec_diag(void *arg, const char *line)
{
    (void)arg;
    tm_err("record", "%s", line);
}

/* One run of tm record: its options, what was checked and opened before
 * the program starts, and the capture's consumers. */
typedef struct rec_run {
    rec_args *A;
    model_opts o;           /* the first configuration's model options */
    tm_recmode_cfg mc;
    tm_model_cfg cfg;       /* the first configuration's model */
    const char *base, *capture, *prog;
    int pin, autoth, addr, log_fd, cap_fd, tty;
    uint32_t capth;         /* the capture's threads */
    uint64_t trace_limit;   /* -f without --mode: the trace's limit */
    uint64_t window;        /* --profile-window */
    size_t k;               /* configurations */
    tm_rec_conf *conf;
    uint8_t magic[8];       /* --capture: the stream's first word */
    char vgpath[PATH_MAX], tdir[PATH_MAX], capname[PATH_MAX + 64], progdesc[PATH_MAX + 64], dbase[PATH_MAX];
    char errm[2048];
    tm_rec_outs O;
    tm_rec_ctx x;
    tm_out spool;           /* --threads auto */
    tm_cap *cap;
    rec_stop rs;
} rec_run;

/* The frontend, the program and -o as the options give them: -1 to go on,
 * or 2 after the usage line. */
static int check_run(const rec_args *A, int argc, char **argv, int pin)
{
    if (A->capture) {
        /* no frontend: the capture stream is the program's run */
        const char *fe = A->frontend ? "--frontend" : A->pin ? "--pin" : A->vg_given ? "--valgrind" : NULL;
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
        if (pin && A->vg_given)
            return tm_usage("record", "--valgrind: an option of the Valgrind frontend, not with --frontend pin"), 2;
    }
    if ((!A->base && !A->mc.mode) || (A->base && !*A->base))
        return tm_usage("record", "no output: give -o BASE"), 2;
    return -1;
}

/* The configurations (--and) and the profiles as the options give them:
 * -1 to go on, or 2 after the usage line. */
static int check_profiles(rec_run *R)
{
    const rec_args *A = R->A;
    int profiles = A->profile != NULL;
    for (size_t j = 0; j < A->nmore; j++)
        profiles += A->more[j].profile != NULL;
    R->window = REPORT_PROFILE_WINDOW;
    if (A->pwin && report_profile_window("record", A->pwin, &R->window))
        return 2;
    if (A->pwin && !profiles)
        return tm_usage("record", "--profile-window: only with --profile"), 2;
    if (A->profile && R->mc.mode)
        return tm_usage("record", "--profile: not with --mode (both would observe the model's messages through its "
                                  "one hook)"), 2;
    if (R->k > 1 && R->mc.mode)
        return tm_usage("record", "--and: not with --mode (its descriptors come from one configuration's messages)"),
               2;
    if (R->k > 1 && R->mc.size_limit)
        return tm_usage("record", "--and: not with -f (the size limit is one configuration's trace's)"), 2;
    return -1;
}

/* Two configurations writing one file: the same BASE, or a profile named
 * like another output.  -1, or 2 after the usage line. */
static int check_collisions(const tm_rec_conf *conf, size_t k)
{
    /* every configuration's (the first 6), then the recording's own */
    static const char *const sfx[] = {".tmt", ".json",      ".stats",   ".lock",        ".modules",     ".vdso",
                                      ".tmc", ".spool.tmc", ".pin.log", ".pin.log.kit", ".valgrind.log"};
    for (size_t j = 1; j < k; j++)
        for (size_t q = 0; q < j; q++)
            if (conf[q].base && !strcmp(conf[q].base, conf[j].base))
                return tm_usage("record", "configurations %zu and %zu both write %s.tmt, .json, .stats", q + 1, j + 1,
                                conf[j].base), 2;
    for (size_t j = 0; j < k; j++) {
        const char *pj = conf[j].profile;
        for (size_t q = 0; pj && q < k; q++) {
            if (q < j && conf[q].profile && !strcmp(pj, conf[q].profile))
                return tm_usage("record", "configurations %zu and %zu both write %s", q + 1, j + 1, pj), 2;
            size_t nb = conf[q].base ? strlen(conf[q].base) : 0;
            for (size_t f = 0; nb && f < (q ? 6u : sizeof sfx / sizeof sfx[0]); f++)
                if (!strncmp(pj, conf[q].base, nb) && !strcmp(pj + nb, sfx[f]))
                    return tm_usage("record", "--profile %s: the recording writes that file (-o %s)", pj,
                                    conf[q].base), 2;
        }
    }
    return -1;
}

/* Every configuration's base, profile and model: -1, or 2 after one line. */
static int make_confs(rec_run *R)
{
    static tm_rec_conf conf[TM_REC_MAX_CONFS];
    const rec_args *A = R->A;
    uint64_t nthreads = A->nthreads;
    R->conf = conf;
    memset(conf, 0, R->k * sizeof conf[0]);
    for (size_t j = 0; j < R->k; j++) {
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
    if (check_collisions(conf, R->k) >= 0)
        return 2;
    if (tm_recmode_needs_cfiat(&R->mc) && !R->o.cfiat && !R->o.data)
        R->o.cfiat = 1; /* mlvcfiat is CFiat's descriptors */
    /* --threads auto: the module gets as many cores as the program ran
     * threads; the commit stream is spooled and the model runs after the
     * program (it needs the Ti width from the start). */
    R->autoth = nthreads == 0;
    if (R->autoth && (R->mc.mode || R->mc.size_limit))
        return tm_usage("record", "--threads auto: not with --mode or -f (they need the model while the program "
                                  "runs)"), 2;
    R->capth = R->autoth ? TMC_MAX_THREADS : (uint32_t)nthreads;
    if (R->autoth && !A->to.serial && !A->to.cfg.l2.size)
        R->A->to.cfg.l2.size = 8u * (64u << 10); /* the cores are not known yet: 8 cores' L2 */
    if (model_opts_cfg("record", &R->o, R->autoth ? 1 : (uint32_t)nthreads, &R->cfg))
        return 2;
    /* -f: the descriptor file's limit with --mode, else the trace's. */
    if (!R->mc.mode) {
        R->trace_limit = R->mc.size_limit;
        R->mc.size_limit = 0;
    }
    return -1;
}

/* Everything that can be checked is, before the program starts: the
 * frontend's launcher, the program, the frontend's tool; or with --capture
 * the stream's magic.  -1, or the exit status after one line. */
static int check_env(rec_run *R, char **argv)
{
    const char *capture = R->capture;
    int rc;
    R->prog = capture ? R->progdesc : argv[R->A->argi];
    if (capture) {
        snprintf(R->capname, sizeof R->capname, "%s", strcmp(capture, "-") ? capture : "standard input");
        snprintf(R->progdesc, sizeof R->progdesc, "the program captured in %.*s", PATH_MAX, R->capname);
        if ((R->cap_fd = capture_open(capture, R->capname, R->magic)) < 0)
            return -R->cap_fd;
        return -1;
    }
    if (R->pin ? tm_rec_pin_kit(R->A->pin, R->vgpath, sizeof R->vgpath, R->errm, sizeof R->errm)
               : tm_rec_valgrind(R->A->valgrind, R->vgpath, sizeof R->vgpath, R->errm, sizeof R->errm))
        return tm_err("record", "%s", R->errm), 2;
    R->errm[0] = 0;
    if ((rc = tm_rec_check_program(argv[R->A->argi], R->errm, sizeof R->errm)) != TM_OK) {
        if (*R->errm)
            tm_err("record", "%s", R->errm);
        return rc == TM_ERR_ARG ? 2 : 1;
    }
    if (R->pin ? tm_rec_pin_tool(R->tdir, sizeof R->tdir, R->errm, sizeof R->errm)
               : tm_rec_tool_dir(R->tdir, sizeof R->tdir, R->errm, sizeof R->errm))
        return tm_err("record", "%s", R->errm), 1;
    return -1;
}

/* One recording per BASE at a time (a second one is refused), then the
 * outputs, as temporaries renamed into place at the end: a bad -o fails
 * before the program runs, and an interrupted run leaves no half-written
 * file under a final name.  -1, or the exit status after one line. */
static int open_outputs(rec_run *R)
{
    tm_rec_outs *O = &R->O;
    tm_rec_ctx *x = &R->x;
    O->lock_fd = -1;
    if (R->base && rec_lock_base(R->base, &O->lock_fd))
        return capture_close(R->cap_fd), 1;
    x->conf = R->conf;
    x->k = R->k;
    x->diag = rec_diag;
    R->mc.name = R->base;
    if (tm_recmode_open(&R->mc, &R->cfg, &x->mode, R->errm, sizeof R->errm)) {
        tm_err("record", "%s", R->errm);
        tm_rec_unlock(R->base, O->lock_fd);
        return capture_close(R->cap_fd), 2;
    }
    if (!R->base) { /* the descriptor file's time-stamped name, without its suffixes */
        snprintf(R->dbase, sizeof R->dbase, "%s", tm_recmode_path(x->mode));
        char *dot = strstr(R->dbase, ".txt");
        if (!dot)
            dot = strstr(R->dbase, ".bin");
        if (dot)
            *dot = 0;
        R->base = R->dbase;
    }
    x->base = R->base;
    R->conf[0].base = R->base;
    const char *log_sfx = R->capture ? NULL : R->pin ? ".pin.log" : ".valgrind.log";
    /* an output that is the capture it reads, or a directory: a usage
     * error (2), as tm model's -o IN */
    const char *input = R->capture && R->cap_fd ? R->capture : NULL;
    int orc = tm_rec_outs_begin(O, R->base, R->A->commit, log_sfx, input, R->errm, sizeof R->errm);
    if (orc == TM_OK && (orc = tm_rec_conf_begin(x, input, R->errm, sizeof R->errm)) != TM_OK)
        for (size_t q = 0; q < TM_REC_NOUTS; q++)
            tm_out_abort(&O->o[q]);
    if (orc != TM_OK) {
        if (orc == TM_ERR_ARG)
            tm_usage("record", "%s", R->errm);
        else
            tm_err("record", "%s", R->errm);
        tm_recmode_abort(x->mode); /* nothing ran: its files go too */
        tm_rec_unlock(R->base, O->lock_fd);
        return capture_close(R->cap_fd), orc == TM_ERR_ARG ? 2 : 1;
    }
    /* the transport owns the capture's descriptor once it runs; until then
     * an early return leaves it to the process's end */
    if (!(x->mods = fopen(O->o[TM_REC_MODULES].tmp, "we")))
        return rec_abandon(x, O, "%s.modules: %s", R->base, strerror(errno));
    R->log_fd = -1;
    if (!R->capture && !R->pin && (R->log_fd = open(O->o[TM_REC_LOG].tmp, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
        return rec_abandon(x, O, "%s.valgrind.log: %s", R->base, strerror(errno));
    return -1;
}

/* The consumers of the capture: with --threads auto the spool, else the
 * commit stream's writer and every configuration's model; the profiles;
 * the descriptors' hook.  -1, or 1 after one line. */
static int make_models(rec_run *R)
{
    tm_rec_ctx *x = &R->x;
    tm_rec_outs *O = &R->O;
    tm_rec_conf *conf = R->conf;
    char e[600];
    int rc;
    if (R->autoth) {
        char sp[PATH_MAX + 16];
        snprintf(sp, sizeof sp, "%s.spool.tmc", R->base);
        if (tm_out_begin("record", &R->spool, sp, NULL))
            return rec_abandon(x, O, "%s: cannot create the spool", sp);
        if ((rc = tmc_writer_open(R->spool.tmp, R->capth, 0, &x->w, e, sizeof e)) != TM_OK) {
            tm_out_abort(&R->spool);
            return rec_abandon(x, O, "%s.spool.tmc: %s", R->base, e);
        }
    } else {
        if (R->A->commit && (rc = tmc_writer_open(O->o[TM_REC_TMC].tmp, R->capth, 0, &x->w, e, sizeof e)) != TM_OK)
            return rec_abandon(x, O, "%s.tmc: %s", R->base, e);
        static tm_model_cfg cfgs[TM_REC_MAX_CONFS];
        cfgs[0] = R->cfg;
        for (size_t j = 1; j < R->k; j++)
            cfgs[j] = conf[j].cfg;
        if (tm_rec_models_new(x, cfgs, R->errm, sizeof R->errm) != TM_OK)
            return rec_abandon(x, O, "%s", R->errm);
    }
    if (tm_rec_profiles_new(x, R->window, R->errm, sizeof R->errm) != TM_OK)
        return rec_abandon(x, O, "%s", R->errm);
    if (x->mode)
        tm_model_set_hook(x->m, tm_recmode_hook, x->mode);
    return -1;
}

/* The capture layer and its sink: -1, or 1 after one line. */
static int make_capture(rec_run *R)
{
    tm_rec_ctx *x = &R->x;
    const rec_args *A = R->A;
    /* TM_CAPTURE_SLOW=1 (tests): the capture layer's general path only;
     * the output must be the same. */
    const char *slow = getenv("TM_CAPTURE_SLOW");
    tm_cap_cfg cc = {R->capth, A->skip, A->length, A->main_only, A->rtn, slow && *slow == '1',
                     A->to.serial ? NULL : &A->to.cfg,
                     A->commit || x->mode, /* a store's value is needed but by the model alone */
                     A->to.no_caches};
    int rc;
    tm_cap_sink sink;
    tm_rec_sink(x, R->autoth, &sink);
    if ((rc = tm_cap_new(&cc, &sink, &R->cap)) != TM_OK)
        return rec_abandon(x, &R->O, "cannot create the capture: %s", tm_status_str(rc));
    x->cap = R->cap;
    x->filtered = A->main_only || A->rtn;
    if (R->capture && tm_cap_feed(R->cap, R->magic, sizeof R->magic) != TM_OK)
        return rec_abandon(x, &R->O, "%s: %s", R->capname, tm_cap_error(R->cap));
    return -1;
}

/* The frontend and its channel (docs/capture.md §1): SHM_SLOTS slots, 64 KB
 * with a size limit so that tracing stops close to it; with
 * TM_CAPTURE_PIPE=1 (or without memfd_create) the stream goes through the
 * pipe, 64 KB or 1 MB at a time.  -1 with *TP, or 1 after one line. */
static int start_transport(rec_run *R, int argc, char **argv, tm_transport **tp)
{
    tm_rec_ctx *x = &R->x;
    const rec_args *A = R->A;
    char e[600];
    if (rec_install_signals())
        return rec_abandon(x, &R->O, "pipe: %s", strerror(errno));
    const char *force_pipe = getenv("TM_CAPTURE_PIPE");
    int limited = R->trace_limit || R->mc.size_limit;
    R->rs = (rec_stop){x, R->trace_limit, 0};
    tm_transport_cfg tc = {SHM_SLOTS, limited ? (size_t)64 << 10 : SHM_SLOT,
                           limited ? (size_t)64 << 10 : (size_t)1 << 20, force_pipe && *force_pipe == '1',
                           record_check_stop, &R->rs};
    int mem = R->cfg.enc.data || tm_recmode_needs_mem(&R->mc); /* any configuration's data tracing */
    for (size_t j = 1; j < R->k; j++)
        mem |= R->conf[j].cfg.enc.data != 0;
    char **pargv = R->capture ? NULL : argv + A->argi; /* the program and its arguments */
    int npargv = R->capture ? 0 : argc - A->argi, values = A->commit || x->mode != NULL;
    /* the timing model's data caches: without memory operands, their
     * addresses (docs/capture.md §3) */
    R->addr = !mem && !A->to.serial && !A->to.no_caches;
    vg_launch vl = {R->vgpath, R->tdir, R->log_fd, mem, values, R->addr, !A->to.serial, pargv, npargv};
    /* Pin's files by absolute names: the tool may open its log after the
     * program changed its folder */
    static char pin_log[2][PATH_MAX + 64];
    for (int q = 0; R->pin && q < 2; q++) {
        const char *t = R->O.o[q ? TM_REC_KITLOG : TM_REC_LOG].tmp;
        char cwd[PATH_MAX];
        if (t[0] == '/' || !getcwd(cwd, sizeof cwd))
            snprintf(pin_log[q], sizeof pin_log[q], "%s", t);
        else
            snprintf(pin_log[q], sizeof pin_log[q], "%s/%s", cwd, t);
    }
    pin_launch pl = {R->vgpath, R->tdir, pin_log[0], pin_log[1], mem, values, R->addr, pargv, npargv};
    if (R->capture ? tm_transport_open_fd(&tc, R->cap_fd, tp, e, sizeof e) != TM_OK
                   : tm_transport_start(&tc, R->pin ? rec_exec_pin : rec_exec_valgrind,
                                        R->pin ? (void *)&pl : (void *)&vl, tp, e, sizeof e) != TM_OK)
        return rec_abandon(x, &R->O, "%s", e);
    if (R->log_fd >= 0)
        close(R->log_fd);
    return -1;
}

/* --capture, after reading: a capture stream that is not one, or ends
 * inside an event, or whose reading failed gives one line naming it and no
 * outputs (1); else -1, with *WS the program's end as the frontend's END
 * event says (docs/capture.md §1). */
static int capture_ended(rec_run *R, int cap_failed, int consumer_failed, int *ws)
{
    tm_rec_ctx *x = &R->x;
    uint64_t off, left = rec_got_sig ? 0 : tm_cap_unfinished(R->cap, &off);
    if ((cap_failed && !consumer_failed) || left) {
        char m[800];
        if (!cap_failed)
            snprintf(m, sizeof m, "%.300s: capture: offset %" PRIu64 ": the stream ends inside an event (%" PRIu64
                                  " bytes of it): a truncated capture",
                     R->capname, off, left);
        else
            snprintf(m, sizeof m, "%.250s: %s", R->capname, x->failed ? x->err : tm_cap_error(R->cap));
        return capture_refused(x, &R->O, &R->spool, R->cap, m);
    }
    tm_cap_info info0;
    tm_cap_get_info(R->cap, &info0);
    *ws = !info0.ended ? 0 : info0.signaled ? (info0.status & 0x7f) : (info0.status & 0xff) << 8;
    return -1;
}

/* After the outputs: --demand's check, everything freed, and the exit
 * status (the signal tm got, the outputs', or the program's). */
static int record_done(rec_run *R, int status, const tm_rec_end *end)
{
    tm_rec_ctx *x = &R->x;
    tm_rec_conf *conf = R->conf;
    /* --demand: a configuration that dropped a message fails the run (its
     * outputs are written and say so) */
    for (size_t j = 0; R->A->demand && j < R->k; j++)
        if (model_opts_demand_check("record", j ? conf[j].m : x->m, j ? &conf[j].cfg : &R->cfg, conf[j].base) &&
            !status)
            status = 1;
    if (x->sw)
        tm_sweep_free(x->sw);
    else
        tm_model_free(x->m);
    for (size_t j = 0; j < R->k; j++)
        tm_profile_free(conf[j].prof);
    tm_cap_free(R->cap);
    if (R->tty)
        fprintf(stderr, "\n");
    if (end->sig) {
        tm_err("record", "stopped by signal %d (%s)%s; the recording up to there is written (%s.tmt, .stats)",
               end->sig, tm_rec_signame(end->sig),
               end->killed ? "; the program did not end on it and was killed" : "", R->base);
        return 128 + end->sig;
    }
    if (status)
        return status;
    R->errm[0] = 0;
    status = tm_rec_program_status(R->O.o[TM_REC_LOG].path[0] ? R->O.o[TM_REC_LOG].path : NULL, R->vgpath, R->prog,
                                   end->ws, end->info->bytes != 0, end->ending, R->capture ? R->capname : NULL,
                                   R->errm, sizeof R->errm);
    if (*R->errm)
        tm_err("record", "%s", R->errm);
    return status;
}

/* The capture as it arrives, then the outputs: the exit status. */
static int record_run(rec_run *R, tm_transport *tp)
{
    tm_rec_ctx *x = &R->x;
    const rec_args *A = R->A;
    pid_t pid = tm_transport_pid(tp);
    int tty = tm_progress_tty(), ws = 0, killed = 0, status = 0, rc;
    int reaped = run_capture(tp, R->cap, tty, &ws, &killed);
    R->tty = tty;
    int cap_failed = tm_transport_failed(tp), consumer_failed = x->failed;
    if (cap_failed && *tm_transport_error(tp) && !x->failed) {
        snprintf(x->err, sizeof x->err, "%s", tm_transport_error(tp));
        x->failed = 1;
    }
    tm_transport_close(tp);
    while (pid > 0 && !reaped && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (R->capture && (rc = capture_ended(R, cap_failed, consumer_failed, &ws)) >= 0)
        return rc;
    if (!cap_failed && tm_cap_finish(R->cap) != TM_OK)
        cap_failed = 1;
    if (cap_failed) {
        tm_err("record", "%s", x->failed ? tm_out_name(&R->O.o[TM_REC_TMC], x->err) : tm_cap_error(R->cap));
        status = 1;
    }
    tm_cap_info info;
    tm_cap_get_info(R->cap, &info);
    static const model_opts *optv[TM_REC_MAX_CONFS];
    optv[0] = &R->o;
    for (size_t j = 1; j < R->k; j++)
        optv[j] = &A->more[j - 1].o;
    if (R->autoth && replay_spool(x, &R->O, &R->spool, optv, info.threads ? info.threads : 1, A->commit, &R->cfg,
                                  &status))
        return 1;
    /* How the recording ended: cut by the signal tm got, cut short (the
     * channel closed before the program's end, or the capture failed), or
     * complete. */
    int sig = rec_got_sig;
    tm_rec_end end = {R->prog, ws, killed, &info,
                   sig ? TMT_CUT_SIGNAL
                   : (!info.ended && !info.execd && info.bytes) || cap_failed ? TMT_CUT_SHORT
                                                                              : TMT_COMPLETE,
                   sig, A->skip || A->length || A->main_only || A->rtn || R->trace_limit || R->mc.size_limit,
                   R->rs.stopped, status, A->to.serial ? NULL : &A->to.cfg, {0}, R->cap,
                   R->capture ? R->capname : NULL,
                   /* what the data caches saw: the operands' values, their addresses, nothing */
                   info.mem ? 2 : (R->addr && !R->capture) || (info.addrs && !A->to.no_caches && !A->to.serial) ? 1 : 0};
    tm_cap_timing_stats(R->cap, &end.tst);
    status = tm_rec_finish(x, &R->O, &R->cfg, &end);
    return record_done(R, status, &end);
}

int cmd_record(int argc, char **argv)
{
    static rec_args A;
    static rec_run R;
    int rc = parse_args(argc, argv, &A);
    if (rc >= 0)
        return rc;
    memset(&R, 0, sizeof R);
    R.A = &A;
    R.o = A.o;
    R.mc = A.mc;
    R.base = A.base;
    R.capture = A.capture;
    R.pin = A.frontend && !strcmp(A.frontend, "pin");
    R.k = 1 + A.nmore;
    R.cap_fd = -1;
    R.log_fd = -1;
    tm_transport *tp = NULL;
    if ((rc = check_run(&A, argc, argv, R.pin)) >= 0 || (rc = check_profiles(&R)) >= 0 ||
        (rc = make_confs(&R)) >= 0 || (rc = check_env(&R, argv)) >= 0 || (rc = open_outputs(&R)) >= 0 ||
        (rc = make_models(&R)) >= 0 || (rc = make_capture(&R)) >= 0 || (rc = start_transport(&R, argc, argv, &tp)) >= 0)
        return rc;
    return record_run(&R, tp);
}
