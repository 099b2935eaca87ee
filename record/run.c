/* tm record's run as a whole (tm/recrun.h): the checks before the program
 * starts, the outputs, models and capture, the frontend (or --capture's
 * stream), the loop that reads the capture while the program runs (and the
 * signals that end it), the spooled stream fed after the program with
 * --threads auto, and the exit status.
 *
 * The frontend writes the capture stream into shared memory slots and their
 * lengths into a pipe (or, with TM_CAPTURE_PIPE=1, the stream itself into
 * the pipe); this process turns it into commit-stream records (capture/)
 * and hands them to the model (and, with --commit, to a .tmc writer). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "frontend.h"
#include "tm/recrun.h"
#include "tm/transport.h"

/* The shared-memory transport (tm/transport.h): slots of SHM_SLOT bytes
 * (64 KB with a size limit). */
#define SHM_SLOTS 8
#define SHM_SLOT ((size_t)512 << 10)

/* The size limits (-f: the descriptors', or the trace's TRACE_LIMIT bytes). */
typedef struct rec_stop {
    tm_rec_ctx *x;
    uint64_t trace_limit;
    int stopped;
} rec_stop;

/* One run: its description, what was checked and opened before the program
 * starts, and the capture's consumers. */
typedef struct run {
    tm_rec_run *d;
    tm_model_cfg cfg;       /* the first configuration's model */
    const char *base, *prog;
    int autoth, log_fd, cap_fd;
    int isa, dynamic;       /* the program's instruction set (tm/isa.h), and whether it is dynamic */
    char **qprog;           /* --frontend qemu, a #! script: its interpreter's command line */
    int nqprog;
    uint32_t capth;         /* the capture's threads */
    uint8_t magic[8];       /* --capture: the stream's first word */
    char vgpath[PATH_MAX], tdir[PATH_MAX], capname[PATH_MAX + 64], progdesc[PATH_MAX + 64], dbase[PATH_MAX];
    char machine[128];      /* the frontend's machine (tmf_cfg_format) */
    char errm[2048];
    tm_rec_outs O;
    tm_rec_ctx x;
    tm_out spool;           /* --threads auto */
    tm_cap *cap;
    rec_stop rs;
} run;

/* One line through the caller's sink (USAGE: a usage error). */
static void say(const run *R, int usage, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(const run *R, int usage, const char *fmt, ...)
{
    char m[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    R->d->say(R->d->arg, usage, m);
}

/* tm_rec_finish's lines. */
static void diag(void *arg, const char *line)
{
    say(arg, 0, "%s", line);
}

/* Before the run: one line, every output and the descriptors removed, the
 * lock released; 1 (the exit status). */
static int abandon(run *R, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int abandon(run *R, const char *fmt, ...)
{
    va_list ap;
    char msg[1024];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tm_rec_async_stop(&R->x);
    say(R, 0, "%s", msg);
    tm_rec_release(&R->x, &R->O);
    return 1;
}

static void capture_close(int fd)
{
    if (fd > 0)
        close(fd);
}

/* --threads auto, after the program: the spooled commit stream into the
 * model of N cores, or with --and into the models of every configuration,
 * in one pass (and with --commit into BASE.tmc, whose header says N).  0,
 * or 1 after one line with every output removed. */
static int replay_spool(run *R, uint32_t n, int *status)
{
    tm_rec_ctx *x = &R->x;
    tm_out *spool = &R->spool;
    char e[600];
    int rc = tmc_writer_close(x->w);
    x->w = NULL;
    if (rc != TM_OK && !*status) {
        say(R, 0, "%s.spool.tmc: %s", x->base, tm_status_str(rc));
        *status = 1;
    }
    static tm_model_cfg cfgs[TM_REC_MAX_CONFS];
    for (size_t j = 0; j < x->k; j++)
        if (R->d->cfg_at(R->d->arg, j, n, &cfgs[j])) {
            tm_out_abort(spool);
            return abandon(R, "--threads auto: the model of %u cores cannot be made with these options%s", n,
                           j ? " (a configuration after --and)" : "");
        }
    R->cfg = cfgs[0];
    char em[1024];
    if (tm_rec_models_new(x, cfgs, em, sizeof em) != TM_OK) {
        tm_out_abort(spool);
        return abandon(R, "%s", em);
    }
    if (R->d->commit && (rc = tmc_writer_open(R->O.o[TM_REC_TMC].tmp, n, 0, &x->w, e, sizeof e)) != TM_OK) {
        tm_out_abort(spool);
        return abandon(R, "%s.tmc: %s", x->base, e);
    }
    tmc_reader *r = NULL;
    if (tmc_reader_open(spool->tmp, &r, e, sizeof e) != TM_OK) {
        tm_out_abort(spool);
        return abandon(R, "%s.spool.tmc: %s", x->base, e);
    }
    /* the program's instruction set, as the spool's header says */
    int isa = tmc_reader_isa(r);
    if ((x->sw ? tm_sweep_set_isa(x->sw, isa) : tm_model_set_isa(x->m, isa)) != TM_OK ||
        (x->w && tmc_writer_set_isa(x->w, isa) != TM_OK)) {
        tmc_reader_close(r);
        tm_out_abort(spool);
        return abandon(R, "%s.tmc: cannot record the instruction set %d", x->base, isa);
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
        say(R, 0, "%s", x->failed ? x->err : tmc_reader_error(r));
        *status = 1;
    }
    tmc_reader_close(r);
    tm_out_abort(spool);
    return 0;
}

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

/* A signal to tm while the program runs: the program is given the signal
 * (after FORWARD_AFTER seconds if it has not ended by then), and killed
 * KILL_AFTER seconds later, or at a second signal (*KILLED). */
static void pass_signal(pid_t pid, double *t_sig, int *forwarded, int *killed)
{
    double waited = rec_now_s() - *t_sig;
    if (!*forwarded && waited >= FORWARD_AFTER) {
        kill(pid, rec_got_sig);
        *forwarded = 1;
    }
    if (!*killed && (waited >= FORWARD_AFTER + KILL_AFTER || rec_nsigs > 1)) {
        kill(pid, SIGKILL);
        *killed = 1;
    }
}

/* Reads the capture from TP into the capture until the frontend closed the
 * channel and the program ended (*WS its wait status); 1 if it was waited
 * for.  A signal to tm ends the recording (pass_signal). */
static int run_capture(run *R, tm_transport *tp, int *ws, int *killed)
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
        if (rec_got_sig && !reaped)
            pass_signal(pid, &t_sig, &forwarded, killed);
        if (!reaped && waitpid(pid, ws, WNOHANG) == pid)
            reaped = 1;
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
        if (!tm_transport_read(tp, R->cap))
            pipe_open = 0;
        tm_rec_async_flush(&R->x); /* the piece's groups to the model's thread */
        time_t now = time(NULL);
        if (R->d->progress && now - last >= 2) {
            tm_cap_info in;
            tm_cap_get_info(R->cap, &in);
            R->d->progress(R->d->arg, in.instructions, (long)(now - t0));
            last = now;
        }
    }
    return reaped;
}

/* --capture: the stream was refused (MSG): everything the run made is
 * freed and every output removed; 1 (the exit status). */
static int capture_refused(run *R, const char *msg)
{
    tm_rec_ctx *x = &R->x;
    tm_rec_async_stop(x);
    if (x->w)
        tmc_writer_close(x->w);
    x->w = NULL;
    if (x->mods)
        fclose(x->mods);
    x->mods = NULL;
    tm_out_abort(&R->spool);
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
    tm_cap_free(R->cap);
    return abandon(R, "%s", msg);
}

/* Everything that can be checked is, before the program starts: the
 * frontend's launcher, the program, the frontend's tool; or with --capture
 * the stream's magic (tm_rec_capture_open).  -1, or the exit status after
 * one line. */
static int check_env(run *R)
{
    const tm_rec_run *d = R->d;
    int rc;
    R->prog = d->capture ? R->progdesc : d->prog[0];
    if (d->capture) {
        snprintf(R->capname, sizeof R->capname, "%s", strcmp(d->capture, "-") ? d->capture : "standard input");
        snprintf(R->progdesc, sizeof R->progdesc, "the program captured in %.*s", PATH_MAX, R->capname);
        rc = tm_rec_capture_open(d->capture, R->capname, R->magic, &R->cap_fd, R->errm, sizeof R->errm);
        if (rc != TM_OK)
            return say(R, 0, "%s", R->errm), rc == TM_ERR_ARG ? 2 : 1;
        return -1;
    }
    const char *fe = d->qemu ? "qemu" : d->pin ? "pin" : "valgrind";
    if (d->qemu) { /* the launcher follows from the program's machine */
        R->errm[0] = 0;
        if ((rc = tm_rec_check_program_fe(d->prog[0], fe, &R->isa, &R->dynamic, R->errm, sizeof R->errm)) != TM_OK) {
            if (*R->errm)
                say(R, 0, "%s", R->errm);
            return rc == TM_ERR_ARG ? 2 : 1;
        }
        if (tm_rec_qemu(d->qemu_opt, R->isa, R->vgpath, sizeof R->vgpath, R->errm, sizeof R->errm))
            return say(R, 0, "%s", R->errm), 2;
        if ((rc = tm_rec_qemu_plugin(R->tdir, sizeof R->tdir, R->errm, sizeof R->errm)) != TM_OK)
            return say(R, 0, "%s", R->errm), rc == TM_ERR_ARG ? 2 : 1;
        /* a #! script: QEMU runs its interpreter, as the kernel would
         * (INTERP [ARG] SCRIPT ARGS) */
        static char interp[PATH_MAX], iarg[256];
        if (tm_rec_script(d->prog[0], interp, sizeof interp, iarg, sizeof iarg)) {
            R->qprog = calloc((size_t)d->nprog + 3, sizeof *R->qprog);
            if (!R->qprog)
                return say(R, 0, "out of memory"), 1;
            int k = 0;
            R->qprog[k++] = interp;
            if (*iarg)
                R->qprog[k++] = iarg;
            for (int j = 0; j < d->nprog; j++)
                R->qprog[k++] = d->prog[j];
            R->nqprog = k;
        }
        return -1;
    }
    if (d->pin ? tm_rec_pin_kit(d->pin_opt, R->vgpath, sizeof R->vgpath, R->errm, sizeof R->errm)
               : tm_rec_valgrind(d->valgrind, R->vgpath, sizeof R->vgpath, R->errm, sizeof R->errm))
        return say(R, 0, "%s", R->errm), 2;
    R->errm[0] = 0;
    if ((rc = tm_rec_check_program_fe(d->prog[0], fe, &R->isa, &R->dynamic, R->errm, sizeof R->errm)) != TM_OK) {
        if (*R->errm)
            say(R, 0, "%s", R->errm);
        return rc == TM_ERR_ARG ? 2 : 1;
    }
    if (d->pin ? tm_rec_pin_tool(R->tdir, sizeof R->tdir, R->errm, sizeof R->errm)
               : tm_rec_tool_dir(R->tdir, sizeof R->tdir, R->errm, sizeof R->errm))
        return say(R, 0, "%s", R->errm), 1;
    return -1;
}

/* Before the outputs, or when they could not be opened: the descriptors'
 * files removed (ABORT_MODE), the lock released, the capture closed;
 * STATUS. */
static int not_opened(run *R, int abort_mode, int status)
{
    if (abort_mode)
        tm_recmode_abort(R->x.mode); /* nothing ran: its files go too */
    tm_rec_unlock(R->base, R->O.lock_fd);
    capture_close(R->cap_fd);
    return status;
}

/* One recording per BASE at a time (a second one is refused), then the
 * outputs, as temporaries renamed into place at the end: a bad -o fails
 * before the program runs, and an interrupted run leaves no half-written
 * file under a final name.  -1, or the exit status after one line. */
static int open_outputs(run *R)
{
    tm_rec_outs *O = &R->O;
    tm_rec_ctx *x = &R->x;
    tm_rec_run *d = R->d;
    O->lock_fd = -1;
    if (R->base && tm_rec_lock(R->base, &O->lock_fd, R->errm, sizeof R->errm) != TM_OK)
        return say(R, 0, "%s", R->errm), capture_close(R->cap_fd), 1;
    d->mc.name = R->base;
    if (tm_recmode_open(&d->mc, &R->cfg, &x->mode, R->errm, sizeof R->errm))
        return say(R, 0, "%s", R->errm), not_opened(R, 0, 2);
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
    d->conf[0].base = R->base;
    const char *log_sfx = d->capture ? NULL : d->pin ? ".pin.log" : d->qemu ? ".qemu.log" : ".valgrind.log";
    /* an output that is the capture it reads, or a directory: a usage
     * error (2), as tm model's -o IN */
    const char *input = d->capture && R->cap_fd ? d->capture : NULL;
    int orc = tm_rec_outs_begin(O, R->base, d->commit, log_sfx, input, R->errm, sizeof R->errm);
    if (orc == TM_OK && (orc = tm_rec_conf_begin(x, input, R->errm, sizeof R->errm)) != TM_OK)
        for (size_t q = 0; q < TM_REC_NOUTS; q++)
            tm_out_abort(&O->o[q]);
    if (orc != TM_OK)
        return say(R, orc == TM_ERR_ARG, "%s", R->errm), not_opened(R, 1, orc == TM_ERR_ARG ? 2 : 1);
    /* the transport owns the capture's descriptor once it runs; until then
     * an early return leaves it to the process's end */
    if (!(x->mods = fopen(O->o[TM_REC_MODULES].tmp, "we")))
        return abandon(R, "%s.modules: %s", R->base, strerror(errno));
    R->log_fd = -1;
    if (!d->capture && !d->pin && !d->qemu &&
        (R->log_fd = open(O->o[TM_REC_LOG].tmp, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
        return abandon(R, "%s.valgrind.log: %s", R->base, strerror(errno));
    return -1;
}

/* The consumers of the capture: with --threads auto the spool, else the
 * commit stream's writer and every configuration's model; the profiles;
 * the descriptors' hook.  -1, or 1 after one line. */
static int make_models(run *R)
{
    tm_rec_ctx *x = &R->x;
    const tm_rec_run *d = R->d;
    char e[600];
    int rc;
    if (R->autoth) {
        char sp[PATH_MAX + 16];
        snprintf(sp, sizeof sp, "%s.spool.tmc", R->base);
        if ((rc = tm_out_open(&R->spool, sp, NULL, R->errm, sizeof R->errm)) != TM_OK) {
            say(R, rc == TM_ERR_ARG, "%s", R->errm);
            return abandon(R, "%s: cannot create the spool", sp);
        }
        if ((rc = tmc_writer_open(R->spool.tmp, R->capth, 0, &x->w, e, sizeof e)) != TM_OK) {
            tm_out_abort(&R->spool);
            return abandon(R, "%s.spool.tmc: %s", R->base, e);
        }
    } else {
        if (d->commit && (rc = tmc_writer_open(R->O.o[TM_REC_TMC].tmp, R->capth, 0, &x->w, e, sizeof e)) != TM_OK)
            return abandon(R, "%s.tmc: %s", R->base, e);
        static tm_model_cfg cfgs[TM_REC_MAX_CONFS];
        cfgs[0] = R->cfg;
        for (size_t j = 1; j < d->k; j++)
            cfgs[j] = d->conf[j].cfg;
        if (tm_rec_models_new(x, cfgs, R->errm, sizeof R->errm) != TM_OK)
            return abandon(R, "%s", R->errm);
        /* the program's ISA as its ELF says (with --capture the stream's ISA
         * event says it, through the sink, before any record) */
        if ((x->sw ? tm_sweep_set_isa(x->sw, R->isa) : tm_model_set_isa(x->m, R->isa)) != TM_OK)
            return abandon(R, "unknown instruction set %d", R->isa);
    }
    if (x->w && tmc_writer_set_isa(x->w, R->isa) != TM_OK)
        return abandon(R, "%s", tmc_writer_error(x->w));
    if (tm_rec_profiles_new(x, d->window, R->errm, sizeof R->errm) != TM_OK)
        return abandon(R, "%s", R->errm);
    if (x->mode)
        tm_model_set_hook(x->m, tm_recmode_hook, x->mode);
    return -1;
}

/* The capture layer and its sink: -1, or 1 after one line. */
static int make_capture(run *R)
{
    tm_rec_ctx *x = &R->x;
    const tm_rec_run *d = R->d;
    /* TM_CAPTURE_SLOW=1 (tests): the capture layer's general path only;
     * the output must be the same. */
    const char *slow = getenv("TM_CAPTURE_SLOW");
    tm_cap_cfg cc = {R->capth, d->skip, d->length, d->main_only, d->rtn, slow && *slow == '1', d->timing,
                     d->commit || x->mode /* a store's value is needed but by the model alone */};
    int rc;
    tm_cap_sink sink;
    tm_rec_sink(x, R->autoth, &sink);
    if ((rc = tm_cap_new(&cc, &sink, &R->cap)) != TM_OK)
        return abandon(R, "cannot create the capture: %s", tm_status_str(rc));
    x->cap = R->cap;
    x->filtered = d->main_only || d->rtn;
    if (d->capture && tm_cap_feed(R->cap, R->magic, sizeof R->magic) != TM_OK)
        return abandon(R, "%s: %s", R->capname, tm_cap_error(R->cap));
    return -1;
}

/* Whether the memory operands' values are captured: any configuration's
 * data tracing (--cfiat, --data), or --mode's. */
static int values_captured(const run *R)
{
    const tm_rec_run *d = R->d;
    int mem = R->cfg.enc.data || tm_recmode_needs_mem(&d->mc);
    for (size_t j = 1; j < d->k; j++)
        mem |= d->conf[j].cfg.enc.data != 0;
    return mem;
}

/* The frontend and its channel (docs/capture.md §1): SHM_SLOTS slots, 64 KB
 * with a size limit so that tracing stops close to it; with
 * TM_CAPTURE_PIPE=1 (or without memfd_create) the stream goes through the
 * pipe, 64 KB or 1 MB at a time.  -1 with *TP, or 1 after one line. */
static int start_transport(run *R, tm_transport **tp)
{
    tm_rec_ctx *x = &R->x;
    const tm_rec_run *d = R->d;
    char e[600];
    if (rec_wake_pipe())
        return abandon(R, "pipe: %s", strerror(errno));
    if (d->catch_signals)
        rec_catch_signals();
    const char *force_pipe = getenv("TM_CAPTURE_PIPE");
    /* QEMU's plugin writes the stream itself (pipe mode, docs/qemu.md) */
    if (d->qemu)
        force_pipe = "1";
    int limited = d->trace_limit || d->mc.size_limit;
    R->rs = (rec_stop){x, d->trace_limit, 0};
    tm_transport_cfg tc = {SHM_SLOTS, limited ? (size_t)64 << 10 : SHM_SLOT,
                           limited ? (size_t)64 << 10 : (size_t)1 << 20, force_pipe && *force_pipe == '1',
                           record_check_stop, &R->rs};
    int mem = values_captured(R);
    int values = d->commit || x->mode != NULL;
    /* the machine the frontend times the accesses on (docs/capture.md §3) */
    const char *timing = NULL;
    if (d->timing) {
        tmf_cfg m;
        tm_timing_frontend(d->timing, R->autoth ? 8 : R->capth, d->no_caches, mem, &m);
        if (!tmf_cfg_format(&m, R->machine, sizeof R->machine))
            return abandon(R, "the timing model's machine does not fit the frontend's option");
        timing = R->machine;
    }
    rec_child c = {d->arg, d->say, d->child_setup};
    vg_launch vl = {c, R->vgpath, R->tdir, R->log_fd, mem, values, timing, d->timing != NULL, d->prog, d->nprog};
    /* Pin's files by absolute names: the tool may open its log after the
     * program changed its folder */
    static char pin_log[2][PATH_MAX + 64];
    for (int q = 0; d->pin && q < 2; q++) {
        const char *t = R->O.o[q ? TM_REC_KITLOG : TM_REC_LOG].tmp;
        char cwd[PATH_MAX];
        if (t[0] == '/' || !getcwd(cwd, sizeof cwd))
            snprintf(pin_log[q], sizeof pin_log[q], "%s", t);
        else
            snprintf(pin_log[q], sizeof pin_log[q], "%s/%s", cwd, t);
    }
    pin_launch pl = {c, R->vgpath, R->tdir, pin_log[0], pin_log[1], mem, values, timing, d->prog, d->nprog};
    /* QEMU's plugin log, by its absolute name too */
    static char qemu_log[2 * PATH_MAX + 96];
    if (d->qemu) {
        const char *t = R->O.o[TM_REC_LOG].tmp;
        char cwd[PATH_MAX];
        if (t[0] == '/' || !getcwd(cwd, sizeof cwd))
            snprintf(qemu_log, sizeof qemu_log, "%s", t);
        else
            snprintf(qemu_log, sizeof qemu_log, "%s/%s", cwd, t);
        if (strchr(qemu_log, ','))
            return abandon(R, "%s.qemu.log: its path has a comma (QEMU's -plugin splits there): give -o elsewhere",
                           R->base);
    }
    qemu_launch ql = {c, R->vgpath, R->tdir, tm_rec_qemu_prefix(R->isa, R->dynamic), qemu_log, mem, values, timing,
                      R->qprog ? R->qprog : d->prog, R->qprog ? R->nqprog : d->nprog};
    tm_transport_exec_fn fn = d->qemu ? rec_exec_qemu : d->pin ? rec_exec_pin : rec_exec_valgrind;
    void *fa = d->qemu ? (void *)&ql : d->pin ? (void *)&pl : (void *)&vl;
    if (d->capture ? tm_transport_open_fd(&tc, R->cap_fd, tp, e, sizeof e) != TM_OK
                   : tm_transport_start(&tc, fn, fa, tp, e, sizeof e) != TM_OK)
        return abandon(R, "%s", e);
    if (R->log_fd >= 0)
        close(R->log_fd);
    return -1;
}

/* --capture, after reading: a capture stream that is not one, or ends
 * inside an event, or whose reading failed gives one line naming it and no
 * outputs (1); else -1, with *WS the program's end as the frontend's END
 * event says (docs/capture.md §1). */
static int capture_ended(run *R, int cap_failed, int consumer_failed, int *ws)
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
        return capture_refused(R, m);
    }
    tm_cap_info info0;
    tm_cap_get_info(R->cap, &info0);
    *ws = !info0.ended ? 0 : info0.signaled ? (info0.status & 0x7f) : (info0.status & 0xff) << 8;
    return -1;
}

/* After the outputs: --demand's check, everything freed, and the exit
 * status (the signal tm got, the outputs', or the program's). */
static int record_done(run *R, int status, const tm_rec_end *end)
{
    tm_rec_ctx *x = &R->x;
    const tm_rec_run *d = R->d;
    /* --demand: a configuration that dropped a message fails the run (its
     * outputs are written and say so) */
    for (size_t j = 0; d->demand_check && j < d->k; j++)
        if (d->demand_check(d->arg, j, j ? d->conf[j].m : x->m, j ? &d->conf[j].cfg : &R->cfg, d->conf[j].base) &&
            !status)
            status = 1;
    if (x->sw)
        tm_sweep_free(x->sw);
    else
        tm_model_free(x->m);
    for (size_t j = 0; j < d->k; j++)
        tm_profile_free(d->conf[j].prof);
    tm_cap_free(R->cap);
    if (d->progress)
        d->progress(d->arg, 0, -1);
    if (end->sig) {
        say(R, 0, "stopped by signal %d (%s)%s; the recording up to there is written (%s.tmt, .stats)", end->sig,
            tm_rec_signame(end->sig), end->killed ? "; the program did not end on it and was killed" : "", R->base);
        return 128 + end->sig;
    }
    if (status)
        return status;
    R->errm[0] = 0;
    status = tm_rec_program_status(R->O.o[TM_REC_LOG].path[0] ? R->O.o[TM_REC_LOG].path : NULL, R->vgpath, R->prog,
                                   end->ws, end->info->bytes != 0, end->ending, d->capture ? R->capname : NULL,
                                   R->errm, sizeof R->errm);
    if (*R->errm)
        say(R, 0, "%s", R->errm);
    return status;
}

/* The capture as it arrives, then the outputs: the exit status. */
static int record_run(run *R, tm_transport *tp)
{
    tm_rec_ctx *x = &R->x;
    const tm_rec_run *d = R->d;
    pid_t pid = tm_transport_pid(tp);
    int ws = 0, killed = 0, status = 0, rc;
    int reaped = run_capture(R, tp, &ws, &killed);
    /* the model's thread took what the capture handed on: a model that
     * failed fails the capture, as without the thread */
    int model_failed = tm_rec_async_sync(x);
    int cap_failed = tm_transport_failed(tp) || model_failed, consumer_failed = x->failed;
    if (cap_failed && *tm_transport_error(tp) && !x->failed) {
        snprintf(x->err, sizeof x->err, "%s", tm_transport_error(tp));
        x->failed = 1;
    }
    tm_transport_close(tp);
    while (pid > 0 && !reaped && waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (d->capture && (rc = capture_ended(R, cap_failed, consumer_failed, &ws)) >= 0)
        return rc;
    if (!cap_failed && tm_cap_finish(R->cap) != TM_OK)
        cap_failed = 1;
    if (tm_rec_async_stop(x)) /* the thread joined: the models are read after here */
        cap_failed = 1;
    if (cap_failed) {
        say(R, 0, "%s", x->failed ? tm_out_name(&R->O.o[TM_REC_TMC], x->err) : tm_cap_error(R->cap));
        status = 1;
    }
    tm_cap_info info;
    tm_cap_get_info(R->cap, &info);
    if (R->autoth && replay_spool(R, info.threads ? info.threads : 1, &status))
        return 1;
    /* How the recording ended: cut by the signal tm got, cut short (the
     * channel closed before the program's end, or the capture failed), or
     * complete. */
    int sig = rec_got_sig;
    tm_rec_end end = {R->prog, ws, killed, &info,
                      sig ? TMT_CUT_SIGNAL
                      : (!info.ended && !info.execd && info.bytes) || cap_failed ? TMT_CUT_SHORT
                                                                                 : TMT_COMPLETE,
                      sig, d->skip || d->length || d->main_only || d->rtn || d->trace_limit || d->mc.size_limit,
                      R->rs.stopped, status, info.untimed ? NULL : d->timing, {0}, R->cap, d->capture ? R->capname : NULL,
                      /* the memory operands' values captured */
                      info.mem ? 2 : 0};
    tm_cap_timing_stats(R->cap, &end.tst);
    status = tm_rec_finish(x, &R->O, &R->cfg, &end);
    return record_done(R, status, &end);
}

/* --model-thread: whether the model (or the sweep) runs on a thread of its
 * own, fed through a ring (record/asyncmodel.c).  Only where it is the
 * only consumer and nothing reads its trace while the program runs (not
 * with --commit, --mode, --threads auto, -f); started after the
 * frontend's process (no fork with a second thread).  auto: where it was
 * measured to pay on 2 processors (docs/capture.md §3, issue 39): values
 * captured and the cores timing model, the recording's thread busy with
 * the capture layer and the timing model (pigz -p 4, --cfiat: 9.6 ->
 * 7.6-7.9 s); without them the groups crossing between the cores cost about
 * what the model's work does while Valgrind's process needs a core. */
static int model_thread(const run *R)
{
    const tm_rec_run *d = R->d;
    if (d->model_thread == TM_REC_MT_NO || R->autoth || R->x.w || R->x.mode || d->trace_limit || d->mc.size_limit)
        return 0;
    if (d->model_thread == TM_REC_MT_YES)
        return 1;
    return values_captured(R) && d->timing && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
}

int tm_rec_record(tm_rec_run *d)
{
    static run R;
    tm_transport *tp = NULL;
    int rc;
    memset(&R, 0, sizeof R);
    R.d = d;
    R.cfg = d->cfg;
    R.base = d->base;
    R.autoth = d->threads == 0;
    R.capth = R.autoth ? TMC_MAX_THREADS : d->threads;
    R.cap_fd = -1;
    R.log_fd = -1;
    R.x.conf = d->conf;
    R.x.k = d->k;
    R.x.diag = diag;
    R.x.diag_arg = &R;
    if ((rc = check_env(&R)) >= 0 || (rc = open_outputs(&R)) >= 0 || (rc = make_models(&R)) >= 0 ||
        (rc = make_capture(&R)) >= 0 || (rc = start_transport(&R, &tp)) >= 0)
        return rc;
    if (model_thread(&R))
        tm_rec_async_start(&R.x); /* without a thread (no memory): the sink feeds the model */
    rc = record_run(&R, tp);
    tm_rec_async_stop(&R.x); /* stopped already: record_run joins it before reading the models */
    return rc;
}

int tm_rec_check_collisions(const tm_rec_conf *conf, size_t k, char *err, size_t errlen)
{
    /* every configuration's (the first 6), then the recording's own */
    static const char *const sfx[] = {".tmt", ".json",      ".stats",   ".lock",        ".modules",     ".vdso",
                                      ".tmc", ".spool.tmc", ".pin.log", ".pin.log.kit", ".valgrind.log",
                                      ".qemu.log"};
    for (size_t j = 1; j < k; j++)
        for (size_t q = 0; q < j; q++)
            if (conf[q].base && !strcmp(conf[q].base, conf[j].base))
                return snprintf(err, errlen, "configurations %zu and %zu both write %s.tmt, .json, .stats", q + 1,
                                j + 1, conf[j].base), TM_ERR_ARG;
    for (size_t j = 0; j < k; j++) {
        const char *pj = conf[j].profile;
        for (size_t q = 0; pj && q < k; q++) {
            if (q < j && conf[q].profile && !strcmp(pj, conf[q].profile))
                return snprintf(err, errlen, "configurations %zu and %zu both write %s", q + 1, j + 1, pj), TM_ERR_ARG;
            size_t nb = conf[q].base ? strlen(conf[q].base) : 0;
            for (size_t f = 0; nb && f < (q ? 6u : sizeof sfx / sizeof sfx[0]); f++)
                if (!strncmp(pj, conf[q].base, nb) && !strcmp(pj + nb, sfx[f]))
                    return snprintf(err, errlen, "--profile %s: the recording writes that file (-o %s)", pj,
                                    conf[q].base), TM_ERR_ARG;
        }
    }
    return TM_OK;
}
