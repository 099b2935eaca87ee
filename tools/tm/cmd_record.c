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
#include "report.h"
#include "tm/capture.h"
#include "tm/model.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* The shared-memory transport: slots of SHM_SLOT bytes (64 KB with a size
 * limit). */
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

/* After each piece of the capture: the size limits (-f, or a .tmt limit
 * TRACE_LIMIT in bytes) stop tracing cleanly; the program goes on. */
static void record_check_stop(rec_ctx *x, tm_cap *cap, uint64_t trace_limit, int *stopped, int *cap_failed)
{
    if (!*stopped && (tm_recmode_full(x->mode) || (trace_limit && tm_model_trace(x->m)->nbits / 8 >= trace_limit))) {
        *stopped = 1;
        if (tm_cap_stop(cap) != TM_OK)
            *cap_failed = 1;
    }
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

/* NAME as execvp would find it, into PATH; 0, or -1 if there is no such
 * file. */
static int find_program(const char *name, char *path, size_t n)
{
    if (strchr(name, '/')) {
        snprintf(path, n, "%s", name);
        return access(path, F_OK);
    }
    const char *pathenv = getenv("PATH");
    if (!pathenv)
        pathenv = "/usr/local/bin:/usr/bin:/bin";
    while (*pathenv) {
        const char *e = strchr(pathenv, ':');
        size_t k = e ? (size_t)(e - pathenv) : strlen(pathenv);
        snprintf(path, n, "%.*s/%s", (int)k, k ? pathenv : ".", name);
        struct stat st;
        if (access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            return 0;
        pathenv += k + (e != NULL);
    }
    return -1;
}

/* What FILE is: 0 an x86-64 ELF executable, 1 a #! script (its interpreter
 * in INTERP), or after one line -1 (not an executable at all) or -2 (an ELF
 * file of another class or machine). */
static int program_kind(const char *what, const char *file, char *interp, size_t n)
{
    unsigned char h[256];
    memset(h, 0, sizeof h);
    FILE *f = fopen(file, "rbe");
    size_t got = f ? fread(h, 1, sizeof h - 1, f) : 0;
    if (f)
        fclose(f);
    if (got >= 2 && h[0] == '#' && h[1] == '!') {
        const char *p = (const char *)h + 2;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t k = strcspn(p, " \t\n");
        snprintf(interp, n, "%.*s", (int)k, p);
        return 1;
    }
    if (got < sizeof(Elf64_Ehdr) || memcmp(h, ELFMAG, SELFMAG)) {
        tm_err("record", "%s: not an ELF executable (nor a #! script)", file);
        return -1;
    }
    unsigned machine = (unsigned)h[18] | (unsigned)h[19] << 8;
    if (h[EI_CLASS] != ELFCLASS64 || machine != EM_X86_64) {
        tm_err("record", "%s%s: a %s program; tm record traces x86-64 (64-bit) programs only", what, file,
               h[EI_CLASS] == ELFCLASS32 ? "32-bit" : machine == EM_X86_64 ? "non-64-bit" : "non-x86-64");
        return -2;
    }
    return 0;
}

/* The program PROG: 0 if it can be traced, else after one line 2 (usage:
 * no such program, not a program) or 1 (a program of another kind). */
static int check_program(const char *prog)
{
    char path[PATH_MAX];
    struct stat st;
    if (find_program(prog, path, sizeof path) || stat(path, &st) != 0) {
        tm_err("record", "%s: no such program%s", prog, strchr(prog, '/') ? "" : " on PATH");
        return 2;
    }
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
        tm_err("record", "%s: not an executable file", path);
        return 2;
    }
    char interp[256];
    int k = program_kind("", path, interp, sizeof interp);
    if (k < 0)
        return k == -1 ? 2 : 1;
    if (k == 1 && interp[0] == '/') { /* a script: its interpreter runs under Valgrind */
        char why[PATH_MAX + 32];
        snprintf(why, sizeof why, "%.*s: its interpreter ", PATH_MAX, path);
        if (stat(interp, &st) != 0) {
            tm_err("record", "%s%s: no such file", why, interp);
            return 1;
        }
        if (program_kind(why, interp, interp, sizeof interp) != 0)
            return 1;
    }
    return 0;
}

/* The folder with tmtrace-amd64-linux: $TM_VALGRIND_LIB, else
 * <dir of tm>/../lib/valgrind. */
static int tool_dir(char *out, size_t n)
{
    const char *env = getenv("TM_VALGRIND_LIB");
    if (env && *env) {
        snprintf(out, n, "%s", env);
    } else {
        char self[PATH_MAX];
        ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
        if (k <= 0)
            return -1;
        self[k] = 0;
        char *slash = strrchr(self, '/');
        if (!slash)
            return -1;
        *slash = 0;
        if (snprintf(out, n, "%s/../lib/valgrind", self) >= (int)n)
            return -1;
    }
    char tool[PATH_MAX + 32];
    snprintf(tool, sizeof tool, "%s/tmtrace-amd64-linux", out);
    return access(tool, X_OK) == 0 ? 0 : -1;
}

static const char *signame(int s)
{
    const char *d = strsignal(s);
    return d ? d : "?";
}

/* ---- one recording per BASE at a time ---- */

/* Takes BASE.lock (flock): -1 after one line if another tm record holds it.
 * The lock goes with the process, however it ends; unlock_base removes the
 * file while holding the lock (whoever opened it meanwhile finds it
 * replaced and tries again). */
static int lock_base(const char *base, int *fd_out)
{
    char p[PATH_MAX + 8];
    snprintf(p, sizeof p, "%s.lock", base);
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            tm_err("record", "%s: cannot create the lock: %s", p, strerror(errno));
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            char pid[32] = "";
            ssize_t k = pread(fd, pid, sizeof pid - 1, 0);
            pid[k > 0 ? k : 0] = 0;
            pid[strcspn(pid, "\n")] = 0;
            tm_err("record", "%s: another tm record%s%s%s is writing these outputs (lock %s); refused", base,
                   *pid ? " (pid " : "", pid, *pid ? ")" : "", p);
            close(fd);
            return -1;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(p, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            char pid[32];
            int k = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)k, 0) != k) {
                /* the pid is only informative */
            }
            *fd_out = fd;
            return 0;
        }
        close(fd); /* the file was replaced while we waited: again */
    }
    tm_err("record", "%s.lock: cannot take the lock", base);
    return -1;
}

static void unlock_base(const char *base, int fd)
{
    char p[PATH_MAX + 8];
    if (fd < 0)
        return;
    snprintf(p, sizeof p, "%s.lock", base);
    unlink(p);
    close(fd);
}

/* ---- signals ---- */

/* INT, QUIT, TERM and HUP end the recording (docs/guide.md "When things go
 * wrong"): the first one is kept; SIGCHLD wakes the loop. */
static volatile sig_atomic_t got_sig, nsigs;
static int wake_fd[2] = {-1, -1};
static const int stop_sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    int e = errno;
    if (sig != SIGCHLD) {
        if (!got_sig)
            got_sig = sig;
        nsigs++;
    }
    if (wake_fd[1] >= 0 && write(wake_fd[1], "", 1) < 0) {
        /* full: the loop wakes anyway */
    }
    errno = e;
}

static int install_signals(void)
{
    if (pipe2(wake_fd, O_CLOEXEC | O_NONBLOCK))
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof stop_sigs / sizeof stop_sigs[0]; k++)
        if (!tm_sig_was_ignored(stop_sigs[k])) /* nohup: HUP stays ignored */
            sigaction(stop_sigs[k], &sa, NULL);
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    return 0;
}

/* Seconds on a monotonic clock. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* How long the program gets after a signal to tm before tm passes it on
 * (a terminal's or a process group's signal has reached it already), and
 * then before tm kills it. */
#define FORWARD_AFTER 1.0
#define KILL_AFTER 10.0

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

int cmd_record(int argc, char **argv)
{
    model_opts o;
    memset(&o, 0, sizeof o);
    const char *base = NULL, *valgrind = "valgrind", *rtn = NULL;
    uint64_t nthreads = 8, skip = 0, length = 0;
    int commit = 0, argi = -1, main_only = 0;
    tm_recmode_cfg mc;
    memset(&mc, 0, sizeof mc);
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            argi = i + 1;
            break;
        }
        int mr = model_opts_parse("record", &o, argc, argv, &i);
        if (mr < 0)
            return 2;
        if (mr > 0)
            continue;
        if ((mr = recmode_opts_parse(&mc, argc, argv, &i)) < 0)
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
                skip = n;
            else
                length = n;
            continue;
        }
        if ((r = tm_opt(argc, argv, &i, "--filter-rtn", &v)) != 0) {
            if (r < 0 || !*v) {
                tm_err("record", "--filter-rtn needs a function name");
                return 2;
            }
            rtn = v;
            continue;
        }
        if (!strcmp(a, "--no-shared-libs")) {
            main_only = 1;
            continue;
        }
        if ((r = tm_opt(argc, argv, &i, "-o", &v)) != 0 || (r = tm_opt(argc, argv, &i, "--output", &v)) != 0) {
            if (r < 0) {
                tm_err("record", "-o needs a value: the base name of the outputs");
                return 2;
            }
            base = v;
            continue;
        }
        if ((r = tm_opt(argc, argv, &i, "--threads", &v)) != 0) {
            if (r < 0 || tm_parse_u64(v, &nthreads) || nthreads < 1 || nthreads > TMC_MAX_THREADS) {
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
            valgrind = v;
            continue;
        }
        if (!strcmp(a, "--commit")) {
            commit = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (a[0] == '-') {
            tm_err("record", "unknown option '%s' (see tm record --help)", a);
            return 2;
        } else {
            argi = i;
            break;
        }
    }
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
    if (find_program(valgrind, vgpath, sizeof vgpath) || stat(vgpath, &vst) != 0 || !S_ISREG(vst.st_mode) ||
        access(vgpath, X_OK) != 0) {
        tm_err("record", "--valgrind %s: no such program%s", valgrind,
               strchr(valgrind, '/') ? " (or not an executable file)" : " on PATH (install valgrind: make deps)");
        return 2;
    }
    int pk = check_program(argv[argi]);
    if (pk)
        return pk;
    char tdir[PATH_MAX];
    if (tool_dir(tdir, sizeof tdir)) {
        tm_err("record", "the Valgrind tool tmtrace-amd64-linux is not built (run make; or set TM_VALGRIND_LIB)");
        return 1;
    }

    /* One recording per BASE at a time (a second one is refused), then the
     * outputs, as temporaries renamed into place at the end: a bad -o fails
     * before the program runs, and an interrupted run leaves no
     * half-written file under a final name. */
    int lock_fd = -1;
    if (base && lock_base(base, &lock_fd))
        return 1;
    rec_ctx x;
    memset(&x, 0, sizeof x);
    char errm[512], dbase[PATH_MAX];
    mc.name = base;
    if (tm_recmode_open(&mc, &cfg, &x.mode, errm, sizeof errm)) {
        tm_err("record", "%s", errm);
        unlock_base(base, lock_fd);
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
            unlock_base(base, lock_fd);
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
        unlock_base(base, lock_fd);                     \
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

    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC))
        ABANDON("pipe: %s", strerror(errno));
    fcntl(pfd[0], F_SETPIPE_SZ, 1 << 20);
    /* The shared-memory transport (docs/capture.md §1): SHM_SLOTS slots,
     * 64 KB with a size limit so that tracing stops close to it.  Without
     * memfd_create (or with TM_CAPTURE_PIPE=1): the stream goes through the
     * pipe. */
    const char *force_pipe = getenv("TM_CAPTURE_PIPE");
    size_t slot = trace_limit || mc.size_limit ? (size_t)64 << 10 : (size_t)SHM_SLOT;
    int mfd = -1, afd[2] = {-1, -1};
    const uint8_t *shm = NULL;
    if (!(force_pipe && *force_pipe == '1')) {
        mfd = memfd_create("tm-capture", MFD_CLOEXEC);
        void *p0 = MAP_FAILED;
        if (mfd >= 0 && ftruncate(mfd, (off_t)(SHM_SLOTS * slot)) == 0 && pipe2(afd, O_CLOEXEC) == 0)
            p0 = mmap(NULL, SHM_SLOTS * slot, PROT_READ, MAP_SHARED, mfd, 0);
        if (p0 == MAP_FAILED) {
            if (mfd >= 0)
                close(mfd);
            if (afd[0] >= 0) {
                close(afd[0]);
                close(afd[1]);
            }
            mfd = afd[0] = afd[1] = -1;
        } else {
            shm = p0;
        }
    }
    if (install_signals())
        ABANDON("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        ABANDON("fork: %s", strerror(errno));
    if (pid == 0) {
        /* The child: the program's signals as tm found them; the descriptors
         * Valgrind and the tool need stay open across exec (the tool moves
         * them out of the program's sight, docs/capture.md §1). */
        tm_restore_child_signals();
        signal(SIGCHLD, SIG_DFL);
        int wfd = fcntl(pfd[1], F_DUPFD, 3);
        int lfd = fcntl(log_fd, F_DUPFD, 3);
        char shmopt[96];
        if (shm) {
            int m2 = fcntl(mfd, F_DUPFD, 3), a2 = fcntl(afd[0], F_DUPFD, 3);
            snprintf(shmopt, sizeof shmopt, "--tm-shm=%d,%d,%d,%zu", m2, a2, SHM_SLOTS, slot);
        }
        setenv("VALGRIND_LIB", tdir, 1);
        int nargs = argc - argi;
        /* valgrind, 9 options at most (below), the program's arguments, NULL */
        char **av = calloc((size_t)nargs + 11, sizeof *av);
        char fdopt[32], logopt[32], logclose[32];
        snprintf(fdopt, sizeof fdopt, "--tm-fd=%d", wfd);
        /* Valgrind's own messages go to BASE.valgrind.log, so that the
         * program's stderr passes through unchanged; the tool closes the
         * descriptor Valgrind leaves open in the program's range. */
        snprintf(logopt, sizeof logopt, "--log-fd=%d", lfd);
        snprintf(logclose, sizeof logclose, "--tm-log-fd=%d", lfd);
        int k = 0;
        av[k++] = vgpath;
        av[k++] = "--tool=tmtrace";
        av[k++] = "-q";
        av[k++] = logopt;
        av[k++] = fdopt;
        av[k++] = logclose;
        if (shm)
            av[k++] = shmopt;
        av[k++] = cfg.enc.data || tm_recmode_needs_mem(&mc) ? "--tm-mem=yes" : "--tm-mem=no";
        if (!commit && !x.mode) /* only the model consumes: it needs no store's value */
            av[k++] = "--tm-store-values=no";
        for (int j = argi; j < argc; j++)
            av[k++] = argv[j];
        av[k] = NULL;
        execv(vgpath, av);
        fprintf(stderr, "tm record: cannot run %s: %s\n", vgpath, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    close(log_fd);
    if (shm) {
        close(mfd);
        close(afd[0]);
    }

    /* Pipe transport: the pipe is read straight into the capture's buffer
     * (no copy); after a failure into DRAIN, so that the program runs to
     * its end.  With a size limit 64 KB at a time, so that tracing stops
     * close to it.  Shared memory: each length read from the pipe is the
     * next slot's; its events are handled in place, then the slot goes
     * back to the tool.  A signal to tm ends the recording: the program is
     * given the signal (after FORWARD_AFTER seconds if it has not ended by
     * then), and killed KILL_AFTER seconds later, or at a second signal. */
    static uint8_t drain[1 << 16];
    size_t chunk = trace_limit || mc.size_limit ? sizeof drain : (size_t)1 << 20;
    uint64_t tok[64];
    size_t tok_bytes = 0, nslot = 0;
    time_t t0 = time(NULL), last = t0;
    int tty = tm_progress_tty();
    int cap_failed = 0, stopped = 0, pipe_open = 1, reaped = 0, ws = 0, forwarded = 0, killed = 0;
    double t_sig = 0;
    while (pipe_open || !reaped) {
        if (got_sig && t_sig == 0)
            t_sig = now_s();
        if (got_sig && !reaped) {
            double waited = now_s() - t_sig;
            if (!forwarded && waited >= FORWARD_AFTER) {
                kill(pid, got_sig);
                forwarded = 1;
            }
            if (!killed && (waited >= FORWARD_AFTER + KILL_AFTER || nsigs > 1)) {
                kill(pid, SIGKILL);
                killed = 1;
            }
        }
        if (!reaped) {
            pid_t w = waitpid(pid, &ws, WNOHANG);
            if (w == pid)
                reaped = 1;
        }
        struct pollfd pf[2] = {{wake_fd[0], POLLIN, 0}, {pipe_open ? pfd[0] : -1, POLLIN, 0}};
        int tmo = got_sig && !reaped ? 100 : !pipe_open ? 200 : -1;
        if (reaped && !pipe_open)
            break;
        if (poll(pf, 2, tmo) < 0 && errno != EINTR)
            break;
        if (pf[0].revents & POLLIN) {
            char b[64];
            while (read(wake_fd[0], b, sizeof b) > 0)
                ;
        }
        if (!pipe_open || !(pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if (shm) {
            ssize_t n = read(pfd[0], (uint8_t *)tok + tok_bytes, sizeof tok - tok_bytes);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                pipe_open = 0;
                continue;
            }
            tok_bytes += (size_t)n;
            size_t k = 0;
            for (; (k + 1) * 8 <= tok_bytes; k++) {
                const uint8_t *at = shm + (nslot++ % SHM_SLOTS) * slot;
                if (tok[k] > slot) {
                    if (!cap_failed && !x.failed) {
                        snprintf(x.err, sizeof x.err, "the tool sent a slot of %" PRIu64 " bytes (at most %zu)",
                                 tok[k], slot);
                        x.failed = 1;
                    }
                    cap_failed = 1;
                } else if (!cap_failed && tm_cap_feed(cap, at, (size_t)tok[k]) != TM_OK) {
                    cap_failed = 1;
                }
                while (write(afd[1], "", 1) < 0 && errno == EINTR)
                    ;
                if (!cap_failed)
                    record_check_stop(&x, cap, trace_limit, &stopped, &cap_failed);
            }
            memmove(tok, (uint8_t *)tok + k * 8, tok_bytes - k * 8);
            tok_bytes -= k * 8;
        } else {
            void *room = cap_failed ? NULL : tm_cap_input(cap, chunk);
            if (!room)
                cap_failed = 1;
            size_t want = room ? chunk : sizeof drain;
            ssize_t n = read(pfd[0], room ? room : drain, want);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                pipe_open = 0;
                continue;
            }
            if (cap_failed)
                continue;
            if (tm_cap_commit(cap, (size_t)n) != TM_OK) {
                cap_failed = 1;
                continue;
            }
            record_check_stop(&x, cap, trace_limit, &stopped, &cap_failed);
        }
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
    if (shm) {
        close(afd[1]);
        munmap((void *)shm, SHM_SLOTS * slot);
    }
    close(pfd[0]);
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
    int sig = got_sig;
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
    FILE *sf = fopen(out_stats.tmp, "we");
    if (sf) {
        fputs("program: ", sf);
        put_map_path(sf, argv[argi]);
        fputc('\n', sf);
        if (WIFEXITED(ws))
            fprintf(sf, "ended: exit status %d\n", WEXITSTATUS(ws));
        else if (WIFSIGNALED(ws))
            fprintf(sf, "ended: killed by signal %d (%s)%s\n", WTERMSIG(ws), signame(WTERMSIG(ws)),
                    killed ? ", by tm record after it did not end on the signal tm record got" : "");
        if (info.execd)
            fprintf(sf, "exec: the program replaced itself (execve); tracing ends there\n");
        fprintf(sf, "recording: %s\n", ending == TMT_COMPLETE ? "complete" : why);
        fprintf(sf, "capture: %" PRIu64 " bytes, %" PRIu64 " blocks translated, %" PRIu64 " executed, %" PRIu64
                    " signals, %u threads, %s\n",
                info.bytes, info.blocks, info.execs, info.signals, info.threads,
                info.ended || info.execd ? "complete" : "cut short (no end marker from the frontend)");
        if (skip || length || main_only || rtn || trace_limit || mc.size_limit)
            fprintf(sf, "window: %" PRIu64 " instructions skipped, %" PRIu64 " traced%s\n", info.skipped,
                    info.instructions, stopped ? " (stopped at the size limit)" : "");
        report_text(sf, &cfg, x.m);
    }
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
    unlock_base(base, lock_fd);
    tm_model_free(x.m);
    tm_cap_free(cap);
    if (tty)
        fprintf(stderr, "\n");
    if (sig) {
        tm_err("record", "stopped by signal %d (%s)%s; the recording up to there is written (%s.tmt, .stats)", sig,
               signame(sig), killed ? "; the program did not end on it and was killed" : "", base);
        return 128 + sig;
    }
    if (status)
        return status;
    if (!info.bytes) {
        /* valgrind did not get as far as the tool: say why, in one line */
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
                   argv[argi], WTERMSIG(ws), signame(WTERMSIG(ws)));
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
        tm_err("record", "%s was killed by signal %d (%s); the trace up to there is written", argv[argi],
               WTERMSIG(ws), signame(WTERMSIG(ws)));
        return 128 + WTERMSIG(ws);
    }
    return 1;
}
