/* tm record — run a program under the Valgrind frontend (vg-frontend/) and
 * feed the trace module model on the fly (docs/capture.md, docs/guide.md).
 *
 *   tm record [model options] [--commit] [--threads N] -o BASE -- PROG ARGS
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
#include "cmd.h"
#include "modelopts.h"
#include "recmode_opts.h"
#include "tm/recmodes.h"
#include "record.h"
#include "report.h"
#include "tm/capture.h"
#include "tm/transport.h"
#include "tm/model.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* The shared-memory transport (tm/transport.h): slots of SHM_SLOT bytes
 * (64 KB with a size limit). */
#define SHM_SLOTS 8
#define SHM_SLOT ((size_t)512 << 10)

static void usage(FILE *f)
{
    fprintf(f, "usage: tm record [options] -o BASE -- PROG [ARGS...]\n%s%s", model_opts_help, recmode_opts_help);
    fprintf(f,
            "  -o BASE                       outputs: BASE.tmt, BASE.json, BASE.stats, BASE.modules\n"
            "                                (and BASE.tmc with --commit); with --mode, -o may be left out\n"
            "  --commit                      also write the commit stream BASE.tmc\n"
            "  -s N                          skip the first N instructions (all threads)\n"
            "  -l N                          trace N instructions, then stop tracing\n"
            "  -f N                          stop tracing when the trace (or, with --mode, the\n"
            "                                descriptor file) reaches N MB\n"
            "  --no-shared-libs              only the program's own code: tracing starts there; with\n"
            "                                --mode, descriptors only of its instructions\n"
            "  --filter-rtn NAME             likewise for the function NAME\n"
            "  --threads N                   cores of the trace module = most threads the program\n"
            "                                may run (1..1024, default 8)\n"
            "  --valgrind PATH               the valgrind launcher (default: valgrind on PATH)\n"
            "The program runs under Valgrind (tool tmtrace); its stdin, stdout, stderr and exit status\n"
            "pass through.  See docs/guide.md and docs/capture.md.\n");
}

typedef struct rec_ctx {
    tm_model *m;
    tm_recmode *mode;
    tm_cap *cap;
    int filtered;
    tmc_writer *w;
    FILE *mods;
    const char *base;
    char err[512];
    int failed;
} rec_ctx;

/* The model refused what it was given: the run's error; stops the capture. */
static int model_failed(rec_ctx *x)
{
    snprintf(x->err, sizeof x->err, "model: %s", tm_model_error(x->m));
    x->failed = 1;
    return 1;
}

/* on_record when the model is the only consumer (no --commit, no --mode). */
static int on_record_model(void *arg, const tmc_record *r)
{
    rec_ctx *x = arg;
    return tm_model_put(x->m, r) == TM_OK ? 0 : model_failed(x);
}

/* The same for a group the capture layer has whole. */
static int on_group_model(void *arg, const tmc_group *g)
{
    rec_ctx *x = arg;
    return tm_model_put_group(x->m, g) == TM_OK ? 0 : model_failed(x);
}

static int on_record(void *arg, const tmc_record *r)
{
    rec_ctx *x = arg;
    if (on_record_model(arg, r))
        return 1;
    if (x->w && tmc_writer_put(x->w, r) != TM_OK) {
        snprintf(x->err, sizeof x->err, "%s", tmc_writer_error(x->w));
        x->failed = 1;
        return 1;
    }
    if (x->mode && (!x->filtered || ((r->type != TMC_BRANCH && r->type != TMC_MEM) ||
                                     tm_cap_in_filter(x->cap, r->pc))) &&
        tm_recmode_record(x->mode, r) != 0) {
        snprintf(x->err, sizeof x->err, "%s", tm_recmode_error(x->mode));
        x->failed = 1;
        return 1;
    }
    return 0;
}

/* The size limits (-f: the descriptors', or the trace's TRACE_LIMIT bytes). */
typedef struct rec_stop {
    rec_ctx *x;
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

/* A path in the module map (docs/capture.md §6): one line whatever it holds. */
static void put_map_path(FILE *f, const char *s)
{
    tm_put_escaped(f, s, 1);
}

static int on_module(void *arg, const tm_cap_module *m)
{
    rec_ctx *x = arg;
    fprintf(x->mods, "0x%016" PRIx64 " ", m->base);
    if (m->build_id_len)
        for (size_t i = 0; i < m->build_id_len; i++)
            fprintf(x->mods, "%02x", m->build_id[i]);
    else
        fputc('-', x->mods);
    fputc(' ', x->mods);
    put_map_path(x->mods, m->path);
    fputc('\n', x->mods);
    if (m->bytes) {
        char p[PATH_MAX];
        tm_out vo;
        snprintf(p, sizeof p, "%s.vdso", x->base);
        if (tm_out_begin("record", &vo, p, NULL)) {
            snprintf(x->err, sizeof x->err, "%.400s: cannot create", p);
            x->failed = 1;
            return 1;
        }
        FILE *f = fopen(vo.tmp, "wbe");
        if (!f || fwrite(m->bytes, 1, m->len, f) != m->len || fclose(f) || tm_out_commit("record", &vo)) {
            snprintf(x->err, sizeof x->err, "%.400s: %s", p, strerror(errno));
            tm_out_abort(&vo);
            x->failed = 1;
            return 1;
        }
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

/* ---- outputs ---- */

/* Commits (or with FAILED, removes) an output; one line for the first
 * error. */
static void finish_out(tm_out *o, int ok, int *status)
{
    if (!ok) {
        tm_out_abort(o);
        return;
    }
    if (tm_out_commit("record", o))
        *status = 1;
}

/* BASE.stats: how the program and the recording ended, the capture, the
 * window, then the model's statistics. */
static void write_stats(FILE *sf, const char *prog, int ws, int killed, const tm_cap_info *info, const char *recording,
                        int windowed, int stopped, const tm_model_cfg *cfg, const tm_model *m)
{
    fputs("program: ", sf);
    put_map_path(sf, prog);
    fputc('\n', sf);
    if (WIFEXITED(ws))
        fprintf(sf, "ended: exit status %d\n", WEXITSTATUS(ws));
    else if (WIFSIGNALED(ws))
        fprintf(sf, "ended: killed by signal %d (%s)%s\n", WTERMSIG(ws), rec_signame(WTERMSIG(ws)),
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
    report_text(sf, cfg, m);
}

/* The exit status of a recording that wrote its outputs: the program's, or
 * after one line why there is less than a whole recording (valgrind did not
 * reach the tool: nothing CAPTURED; the capture was cut short; the program
 * was killed). */
static int program_status(const char *base, const char *vgpath, const char *prog, int ws, int captured,
                          tmt_ending ending)
{
    if (!captured) {
        /* valgrind did not get as far as the tool: say why, in one line */
        char p[PATH_MAX + 16];
        snprintf(p, sizeof p, "%s.valgrind.log", base);
        FILE *lf = fopen(p, "re");
        char line[512] = "";
        while (lf && fgets(line, sizeof line, lf)) {
            line[strcspn(line, "\n")] = 0;
            if (*line)
                break;
        }
        if (lf)
            fclose(lf);
        if (*line)
            tm_err("record", "valgrind: %s (%s)", line, p);
        else
            tm_err("record", "%s produced no trace (it %s %d)", vgpath,
                   WIFEXITED(ws) ? "exited with status" : "was killed by signal",
                   WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
        return WIFEXITED(ws) && WEXITSTATUS(ws) ? WEXITSTATUS(ws) : 1;
    }
    if (ending == TMT_CUT_SHORT) {
        if (WIFSIGNALED(ws)) {
            tm_err("record", "the capture was cut short: %s was killed by signal %d (%s) before the frontend's end "
                             "marker; the recording up to there is written and says so",
                   prog, WTERMSIG(ws), rec_signame(WTERMSIG(ws)));
            return 128 + WTERMSIG(ws);
        }
        tm_err("record", "the capture was cut short: the frontend's channel closed before the program's end "
                         "(exit status %d); the recording up to there is written and says so",
               WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        return 1;
    }
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    if (WIFSIGNALED(ws)) {
        tm_err("record", "%s was killed by signal %d (%s); the trace up to there is written", prog,
               WTERMSIG(ws), rec_signame(WTERMSIG(ws)));
        return 128 + WTERMSIG(ws);
    }
    return 1;
}

/* Reads the capture from TP into CAP until the frontend closed the channel
 * and the program ended (*WS its wait status); 1 if it was waited for.  A signal to tm ends the
 * recording: the program is given the signal (after FORWARD_AFTER seconds
 * if it has not ended by then), and killed KILL_AFTER seconds later, or at
 * a second signal (*KILLED). */
static int run_capture(tm_transport *tp, tm_cap *cap, int tty, int *ws, int *killed)
{
    time_t t0 = time(NULL), last = t0;
    int pipe_open = 1, reaped = 0, forwarded = 0;
    pid_t pid = tm_transport_pid(tp);
    *ws = 0;
    *killed = 0;
    double t_sig = 0;
    while (pipe_open || !reaped) {
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

/* tm record's command line. */
typedef struct rec_args {
    model_opts o;
    tm_recmode_cfg mc;
    const char *base, *valgrind, *rtn;
    uint64_t nthreads, skip, length;
    int commit, argi, main_only;
} rec_args;

/* Parses the options into *A: -1 to go on, else the exit status (after one
 * line, or the usage text). */
static int parse_args(int argc, char **argv, rec_args *A)
{
    memset(A, 0, sizeof *A);
    A->valgrind = "valgrind";
    A->nthreads = 8;
    A->argi = -1;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            A->argi = i + 1;
            break;
        }
        int mr = model_opts_parse("record", &A->o, argc, argv, &i);
        if (mr < 0)
            return 2;
        if (mr > 0)
            continue;
        if ((mr = recmode_opts_parse(&A->mc, argc, argv, &i)) < 0)
            return 2;
        if (mr > 0)
            continue;
        if ((r = tm_opt(argc, argv, &i, "-s", &v)) != 0 || (r = tm_opt(argc, argv, &i, "-l", &v)) != 0) {
            int is_s = !strcmp(a, "-s") || !strncmp(a, "-s=", 3);
            uint64_t n = 0;
            if (r < 0 || tm_parse_count(v, &n) || (!is_s && n == 0)) {
                tm_err("record", "%s %s: allowed a number of instructions%s", is_s ? "-s" : "-l", r < 0 ? "" : v,
                       is_s ? "" : " (at least 1)");
                return 2;
            }
            if (is_s)
                A->skip = n;
            else
                A->length = n;
            continue;
        }
        if ((r = tm_opt(argc, argv, &i, "--filter-rtn", &v)) != 0) {
            if (r < 0 || !*v) {
                tm_err("record", "--filter-rtn needs a function name");
                return 2;
            }
            A->rtn = v;
            continue;
        }
        if (!strcmp(a, "--no-shared-libs")) {
            A->main_only = 1;
            continue;
        }
        if ((r = tm_opt(argc, argv, &i, "-o", &v)) != 0 || (r = tm_opt(argc, argv, &i, "--output", &v)) != 0) {
            if (r < 0) {
                tm_err("record", "-o needs a value: the base name of the outputs");
                return 2;
            }
            A->base = v;
            continue;
        }
        if ((r = tm_opt(argc, argv, &i, "--threads", &v)) != 0) {
            if (r < 0 || tm_parse_u64(v, &A->nthreads) || A->nthreads < 1 || A->nthreads > TMC_MAX_THREADS) {
                tm_err("record", "--threads %s: allowed 1..%u", r < 0 ? "" : v, TMC_MAX_THREADS);
                return 2;
            }
            continue;
        }
        if ((r = tm_opt(argc, argv, &i, "--valgrind", &v)) != 0) {
            if (r < 0 || !*v) {
                tm_err("record", "--valgrind needs a path");
                return 2;
            }
            A->valgrind = v;
            continue;
        }
        if (!strcmp(a, "--commit")) {
            A->commit = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-') {
            tm_err("record", "unknown option '%s' (see tm record --help)", a);
            return 2;
        } else {
            A->argi = i;
            break;
        }
    }
    return -1;
}

int cmd_record(int argc, char **argv)
{
    rec_args A;
    int pr = parse_args(argc, argv, &A);
    if (pr >= 0)
        return pr;
    model_opts o = A.o;
    tm_recmode_cfg mc = A.mc;
    const char *base = A.base, *valgrind = A.valgrind, *rtn = A.rtn;
    uint64_t nthreads = A.nthreads, skip = A.skip, length = A.length;
    int commit = A.commit, argi = A.argi, main_only = A.main_only;
    if (argi < 0 || argi >= argc) {
        tm_err("record", "no program to run (usage: tm record [options] -o BASE -- PROG [ARGS...])");
        return 2;
    }
    if ((!base && !mc.mode) || (base && !*base)) {
        tm_err("record", "no output: give -o BASE");
        return 2;
    }
    if (tm_recmode_needs_cfiat(&mc) && !o.cfiat && !o.data)
        o.cfiat = 1; /* mlvcfiat is CFiat's descriptors */
    tm_model_cfg cfg;
    if (model_opts_cfg("record", &o, (uint32_t)nthreads, &cfg))
        return 2;
    /* -f: the descriptor file's limit with --mode, else the trace's. */
    uint64_t trace_limit = 0;
    if (!mc.mode) {
        trace_limit = mc.size_limit;
        mc.size_limit = 0;
    }
    /* Everything that can be checked is, before the program starts. */
    char vgpath[PATH_MAX];
    struct stat vst;
    if (rec_find_program(valgrind, vgpath, sizeof vgpath) || stat(vgpath, &vst) != 0 || !S_ISREG(vst.st_mode) ||
        access(vgpath, X_OK) != 0) {
        tm_err("record", "--valgrind %s: no such program%s", valgrind,
               strchr(valgrind, '/') ? " (or not an executable file)" : " on PATH (install valgrind: make deps)");
        return 2;
    }
    int pk = rec_check_program(argv[argi]);
    if (pk)
        return pk;
    char tdir[PATH_MAX];
    if (rec_tool_dir(tdir, sizeof tdir)) {
        tm_err("record", "the Valgrind tool tmtrace-amd64-linux is not built (run make; or set TM_VALGRIND_LIB)");
        return 1;
    }

    /* One recording per BASE at a time (a second one is refused), then the
     * outputs, as temporaries renamed into place at the end: a bad -o fails
     * before the program runs, and an interrupted run leaves no
     * half-written file under a final name. */
    int lock_fd = -1;
    if (base && rec_lock_base(base, &lock_fd))
        return 1;
    rec_ctx x;
    memset(&x, 0, sizeof x);
    char errm[512], dbase[PATH_MAX];
    mc.name = base;
    if (tm_recmode_open(&mc, &cfg, &x.mode, errm, sizeof errm)) {
        tm_err("record", "%s", errm);
        rec_unlock_base(base, lock_fd);
        return 2;
    }
    if (!base) { /* the descriptor file's time-stamped name, without its suffixes */
        snprintf(dbase, sizeof dbase, "%s", tm_recmode_path(x.mode));
        char *dot = strstr(dbase, ".txt");
        if (!dot)
            dot = strstr(dbase, ".bin");
        if (dot)
            *dot = 0;
        base = dbase;
    }
    x.base = base;
    char p[PATH_MAX + 16];
    tm_out out_mods, out_tmc, out_log, out_tmt, out_json, out_stats;
    memset(&out_tmc, 0, sizeof out_tmc);
    tm_out *all_outs[] = {&out_mods, &out_tmc, &out_log, &out_tmt, &out_json, &out_stats};
    const size_t nouts = sizeof all_outs / sizeof all_outs[0];
    static const char *const suffixes[] = {".modules", ".tmc", ".valgrind.log", ".tmt", ".json", ".stats"};
    for (size_t k = 0; k < nouts; k++) {
        memset(all_outs[k], 0, sizeof *all_outs[k]);
        if (k == 1 && !commit)
            continue;
        snprintf(p, sizeof p, "%s%s", base, suffixes[k]);
        if (tm_out_begin("record", all_outs[k], p, NULL)) {
            for (size_t j = 0; j < k; j++)
                tm_out_abort(all_outs[j]);
            tm_recmode_abort(x.mode); /* nothing ran: its files go too */
            rec_unlock_base(base, lock_fd);
            return 1;
        }
    }
    int status = 0, rc;
#define ABANDON(...)                                    \
    do {                                                \
        tm_err("record", __VA_ARGS__);                  \
        for (size_t j_ = 0; j_ < nouts; j_++)           \
            tm_out_abort(all_outs[j_]);                 \
        tm_recmode_abort(x.mode);                         \
        rec_unlock_base(base, lock_fd);                     \
        return 1;                                       \
    } while (0)
    if (!(x.mods = fopen(out_mods.tmp, "we")))
        ABANDON("%s.modules: %s", base, strerror(errno));
    int log_fd = open(out_log.tmp, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (log_fd < 0)
        ABANDON("%s.valgrind.log: %s", base, strerror(errno));
    char e[600];
    if (commit && (rc = tmc_writer_open(out_tmc.tmp, (uint32_t)nthreads, 0, &x.w, e, sizeof e)) != TM_OK) {
        ABANDON("%s.tmc: %s", base, e);
    }
    if ((rc = tm_model_new(&cfg, &x.m)) != TM_OK)
        ABANDON("cannot create the model: %s", tm_status_str(rc));
    if (x.mode)
        tm_model_set_hook(x.m, tm_recmode_hook, x.mode);
    /* TM_CAPTURE_SLOW=1 (tests): the capture layer's general path only;
     * the output must be the same. */
    const char *slow = getenv("TM_CAPTURE_SLOW");
    tm_cap_cfg cc = {(uint32_t)nthreads, skip, length, main_only, rtn, slow && *slow == '1'};
    int model_only = !x.w && !x.mode;
    tm_cap_sink sink = {model_only ? on_record_model : on_record, on_module, &x, model_only ? on_group_model : NULL};
    tm_cap *cap = NULL;
    if ((rc = tm_cap_new(&cc, &sink, &cap)) != TM_OK)
        ABANDON("cannot create the capture: %s", tm_status_str(rc));
    x.cap = cap;
    x.filtered = main_only || rtn;

    /* The frontend and its channel (docs/capture.md §1): SHM_SLOTS slots,
     * 64 KB with a size limit so that tracing stops close to it; with
     * TM_CAPTURE_PIPE=1 (or without memfd_create) the stream goes through
     * the pipe, 64 KB or 1 MB at a time. */
    if (rec_install_signals())
        ABANDON("pipe: %s", strerror(errno));
    const char *force_pipe = getenv("TM_CAPTURE_PIPE");
    int limited = trace_limit || mc.size_limit;
    rec_stop rs = {&x, trace_limit, 0};
    tm_transport_cfg tc = {SHM_SLOTS, limited ? (size_t)64 << 10 : SHM_SLOT, limited ? (size_t)64 << 10 : (size_t)1 << 20,
                           force_pipe && *force_pipe == '1', record_check_stop, &rs};
    vg_launch vl = {vgpath, tdir, log_fd, cfg.enc.data || tm_recmode_needs_mem(&mc), commit || x.mode != NULL,
                    argv + argi, argc - argi};
    tm_transport *tp = NULL;
    if (tm_transport_start(&tc, rec_exec_valgrind, &vl, &tp, e, sizeof e) != TM_OK)
        ABANDON("%s", e);
    pid_t pid = tm_transport_pid(tp);
    close(log_fd);

    /* The capture as it arrives.  A signal to tm ends the recording: the
     * program is given the signal (after FORWARD_AFTER seconds if it has
     * not ended by then), and killed KILL_AFTER seconds later, or at a
     * second signal. */
    int tty = tm_progress_tty(), ws = 0, killed = 0;
    int reaped = run_capture(tp, cap, tty, &ws, &killed);
    int cap_failed = tm_transport_failed(tp);
    if (cap_failed && *tm_transport_error(tp) && !x.failed) {
        snprintf(x.err, sizeof x.err, "%s", tm_transport_error(tp));
        x.failed = 1;
    }
    tm_transport_close(tp);
    while (!reaped && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    /* After the capture, one line for the first output error only (a full
     * disk fails every later write too). */
#define OUT_ERR(...)                                  \
    do {                                              \
        if (!status)                                  \
            tm_err("record", __VA_ARGS__);            \
        status = 1;                                   \
    } while (0)
    if (!cap_failed && tm_cap_finish(cap) != TM_OK)
        cap_failed = 1;
    if (cap_failed) {
        OUT_ERR("%s", x.failed ? tm_out_name(&out_tmc, x.err) : tm_cap_error(cap));
    }
    tm_cap_info info;
    tm_cap_get_info(cap, &info);
    /* How the recording ended: cut by the signal tm got, cut short (the
     * channel closed before the program's end, or the capture failed), or
     * complete. */
    int sig = rec_got_sig;
    tmt_ending ending = sig ? TMT_CUT_SIGNAL
                        : (!info.ended && !info.execd && info.bytes) || cap_failed ? TMT_CUT_SHORT
                                                                                   : TMT_COMPLETE;
    char why[160];
    tmt_ending_str(ending, (unsigned)sig, why, sizeof why);
    if (x.w && ending != TMT_COMPLETE && !x.failed) {
        tmc_record cr;
        memset(&cr, 0, sizeof cr);
        cr.type = TMC_CUT;
        cr.flags = ending == TMT_CUT_SIGNAL ? TMC_CUT_SIGNAL : TMC_CUT_SHORT;
        cr.count = ending == TMT_CUT_SIGNAL ? (uint64_t)sig : 0;
        if (tmc_writer_put(x.w, &cr) != TM_OK)
            OUT_ERR("%s", tmc_writer_error(x.w));
    }
    tm_model_finish(x.m);
    char err[512];
    uint64_t *insns = calloc(cfg.enc.threads, sizeof *insns);
    tmt_trailer tr;
    if (!insns) {
        OUT_ERR("out of memory");
    } else {
        tmt_trailer_of(&tr, x.m, insns, ending, (unsigned)sig);
        if (tmt_write(out_tmt.tmp, &cfg, tm_model_trace(x.m), &tr, err, sizeof err) != TM_OK)
            OUT_ERR("%s", tm_out_name(&out_tmt, err));
        free(insns);
    }
    if (report_json(out_json.tmp, &cfg, x.m, ending, (unsigned)sig)) {
        OUT_ERR("%s.json: cannot write statistics: %s", base, strerror(errno));
    }
    int windowed = skip || length || main_only || rtn || trace_limit || mc.size_limit;
    FILE *sf = fopen(out_stats.tmp, "we");
    if (sf)
        write_stats(sf, argv[argi], ws, killed, &info, ending == TMT_COMPLETE ? "complete" : why,
                    windowed, rs.stopped, &cfg, x.m);
    if (!sf || ferror(sf) | fclose(sf)) {
        OUT_ERR("%s.stats: %s", base, strerror(errno));
    }
    if (x.mode) {
        tm_recmode_set_skipped(x.mode, info.skipped);
        if (tm_recmode_close(x.mode, x.m, errm, sizeof errm)) {
            OUT_ERR("%s", errm);
        }
        x.mode = NULL;
    }
    int tmc_ok = 1;
    if (x.w) {
        errno = 0;
        rc = tmc_writer_close(x.w); /* frees the writer: its message is gone */
        if (rc != TM_OK) {
            tmc_ok = 0;
            if (!x.failed)
                OUT_ERR("%s.tmc: %s%s%s", base, tm_status_str(rc), errno ? ": " : "", errno ? strerror(errno) : "");
            else if (!status)
                tm_out_name(&out_tmc, x.err);
        }
        x.w = NULL;
    }
    if (ferror(x.mods) | fclose(x.mods)) {
        OUT_ERR("%s.modules: %s", base, strerror(errno));
    }
    /* Every output is complete (a .tmc the writer refused is still the
     * stream up to the refusal): into place. */
    int st_before = status;
    for (size_t k = 0; k < nouts; k++)
        finish_out(all_outs[k], k != 1 || tmc_ok || st_before, &status);
    rec_unlock_base(base, lock_fd);
    tm_model_free(x.m);
    tm_cap_free(cap);
    if (tty)
        fprintf(stderr, "\n");
    if (sig) {
        tm_err("record", "stopped by signal %d (%s)%s; the recording up to there is written (%s.tmt, .stats)", sig,
               rec_signame(sig), killed ? "; the program did not end on it and was killed" : "", base);
        return 128 + sig;
    }
    if (status)
        return status;
    return program_status(base, vgpath, argv[argi], ws, info.bytes != 0, ending);
}
