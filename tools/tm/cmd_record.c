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
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "modelopts.h"
#include "recmodes.h"
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
    fprintf(f, "usage: tm record [options] -o BASE -- PROG [ARGS...]\n%s%s", model_opts_help, rec_mode_help);
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
    rec_mode *mode;
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
        rec_mode_record(x->mode, r) != 0) {
        snprintf(x->err, sizeof x->err, "%s", rec_mode_error(x->mode));
        x->failed = 1;
        return 1;
    }
    return 0;
}

/* After each piece of the capture: the size limits (-f, or a .tmt limit
 * TRACE_LIMIT in bytes) stop tracing cleanly; the program goes on. */
static void record_check_stop(rec_ctx *x, tm_cap *cap, uint64_t trace_limit, int *stopped, int *cap_failed)
{
    if (!*stopped && (rec_mode_full(x->mode) || (trace_limit && tm_model_trace(x->m)->nbits / 8 >= trace_limit))) {
        *stopped = 1;
        if (tm_cap_stop(cap) != TM_OK)
            *cap_failed = 1;
    }
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
    fprintf(x->mods, " %s\n", m->path);
    if (m->bytes) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s.vdso", x->base);
        FILE *f = fopen(p, "wb");
        if (!f || fwrite(m->bytes, 1, m->len, f) != m->len || fclose(f)) {
            snprintf(x->err, sizeof x->err, "%.400s: %s", p, strerror(errno));
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

/* The program PROG as execvp would find it; 0 if it is an ELF executable or
 * a script, else -1 after one line. */
static int check_program(const char *prog)
{
    char path[PATH_MAX];
    const char *found = NULL;
    if (strchr(prog, '/')) {
        found = prog;
    } else {
        const char *pathenv = getenv("PATH");
        if (!pathenv)
            pathenv = "/usr/local/bin:/usr/bin:/bin";
        while (*pathenv && !found) {
            const char *e = strchr(pathenv, ':');
            size_t n = e ? (size_t)(e - pathenv) : strlen(pathenv);
            snprintf(path, sizeof path, "%.*s/%s", (int)n, n ? pathenv : ".", prog);
            if (access(path, X_OK) == 0)
                found = path;
            pathenv += n + (e != NULL);
        }
    }
    struct stat st;
    if (!found || stat(found, &st) != 0) {
        tm_err("record", "%s: no such program%s", prog, strchr(prog, '/') ? "" : " on PATH");
        return -1;
    }
    if (!S_ISREG(st.st_mode) || access(found, X_OK) != 0) {
        tm_err("record", "%s: not an executable file", found);
        return -1;
    }
    unsigned char magic[4] = {0};
    FILE *f = fopen(found, "rb");
    size_t got = f ? fread(magic, 1, 4, f) : 0;
    if (f)
        fclose(f);
    if (!(got == 4 && !memcmp(magic, "\177ELF", 4)) && !(got >= 2 && magic[0] == '#' && magic[1] == '!')) {
        tm_err("record", "%s: not an ELF executable (nor a #! script)", found);
        return -1;
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

int cmd_record(int argc, char **argv)
{
    model_opts o;
    memset(&o, 0, sizeof o);
    const char *base = NULL, *valgrind = "valgrind", *rtn = NULL;
    uint64_t nthreads = 8, skip = 0, length = 0;
    int commit = 0, argi = -1, main_only = 0;
    rec_mode_cfg mc;
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
        if ((mr = rec_mode_parse(&mc, argc, argv, &i)) < 0)
            return 2;
        if (mr > 0)
            continue;
        if ((r = tm_opt(argc, argv, &i, "-s", &v)) != 0 || (r = tm_opt(argc, argv, &i, "-l", &v)) != 0) {
            int is_s = !strcmp(a, "-s") || !strncmp(a, "-s=", 3);
            uint64_t n = 0;
            if (r < 0 || tm_parse_u64(v, &n) || (!is_s && n == 0)) {
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
            if (r < 0) {
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
    if (rec_mode_needs_cfiat(&mc) && !o.cfiat && !o.data)
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
    if (check_program(argv[argi]))
        return 2;
    char tdir[PATH_MAX];
    if (tool_dir(tdir, sizeof tdir)) {
        tm_err("record", "the Valgrind tool tmtrace-amd64-linux is not built (run make; or set TM_VALGRIND_LIB)");
        return 1;
    }

    /* Outputs first: a bad -o fails before the program runs. */
    rec_ctx x;
    memset(&x, 0, sizeof x);
    char errm[512], dbase[PATH_MAX];
    mc.name = base;
    if (rec_mode_open(&mc, &cfg, &x.mode, errm, sizeof errm)) {
        tm_err("record", "%s", errm);
        return 2;
    }
    if (!base) { /* the descriptor file's time-stamped name, without its suffixes */
        snprintf(dbase, sizeof dbase, "%s", rec_mode_path(x.mode));
        char *dot = strstr(dbase, ".txt");
        if (!dot)
            dot = strstr(dbase, ".bin");
        if (dot)
            *dot = 0;
        base = dbase;
    }
    x.base = base;
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s.modules", base);
    if (!(x.mods = fopen(p, "w"))) {
        tm_err("record", "%s: %s", p, strerror(errno));
        return 1;
    }
    int rc;
    if (commit) {
        snprintf(p, sizeof p, "%s.tmc", base);
        if ((rc = tmc_writer_open(p, (uint32_t)nthreads, 0, &x.w)) != TM_OK) {
            tm_err("record", "%s", x.w ? tmc_writer_error(x.w) : p);
            tmc_writer_abort(x.w);
            fclose(x.mods);
            return 1;
        }
    }
    if ((rc = tm_model_new(&cfg, &x.m)) != TM_OK) {
        tm_err("record", "cannot create the model: %s", tm_status_str(rc));
        return 1;
    }
    if (x.mode)
        tm_model_set_hook(x.m, rec_mode_hook, x.mode);
    /* TM_CAPTURE_SLOW=1 (tests): the capture layer's general path only;
     * the output must be the same. */
    const char *slow = getenv("TM_CAPTURE_SLOW");
    tm_cap_cfg cc = {(uint32_t)nthreads, skip, length, main_only, rtn, slow && *slow == '1'};
    int model_only = !x.w && !x.mode;
    tm_cap_sink sink = {model_only ? on_record_model : on_record, on_module, &x, model_only ? on_group_model : NULL};
    tm_cap *cap = NULL;
    if ((rc = tm_cap_new(&cc, &sink, &cap)) != TM_OK) {
        tm_err("record", "cannot create the capture: %s", tm_status_str(rc));
        return 1;
    }
    x.cap = cap;
    x.filtered = main_only || rtn;

    snprintf(p, sizeof p, "%s.valgrind.log", base);
    unlink(p); /* a stale log would be taken for this run's */
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC)) {
        tm_err("record", "pipe: %s", strerror(errno));
        return 1;
    }
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
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        tm_err("record", "fork: %s", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        /* The child: the write end stays open across exec. */
        int wfd = fcntl(pfd[1], F_DUPFD, 3);
        close(pfd[0]);
        close(pfd[1]);
        char shmopt[96];
        if (shm) {
            int m2 = fcntl(mfd, F_DUPFD, 3), a2 = fcntl(afd[0], F_DUPFD, 3);
            snprintf(shmopt, sizeof shmopt, "--tm-shm=%d,%d,%d,%zu", m2, a2, SHM_SLOTS, slot);
        }
        setenv("VALGRIND_LIB", tdir, 1);
        int nargs = argc - argi;
        /* valgrind, 7 options at most (below), the program's arguments, NULL */
        char **av = calloc((size_t)nargs + 9, sizeof *av);
        char fdopt[32];
        snprintf(fdopt, sizeof fdopt, "--tm-fd=%d", wfd);
        /* Valgrind's own messages go to BASE.valgrind.log, so that the
         * program's stderr passes through unchanged ('%' is special in
         * Valgrind's file names: doubled). */
        static char logopt[2 * PATH_MAX + 64];
        size_t lo = (size_t)snprintf(logopt, sizeof logopt, "--log-file=");
        for (const char *q = base; *q && lo + 3 < sizeof logopt - 20; q++) {
            if (*q == '%')
                logopt[lo++] = '%';
            logopt[lo++] = *q;
        }
        snprintf(logopt + lo, sizeof logopt - lo, ".valgrind.log");
        int k = 0;
        av[k++] = (char *)valgrind;
        av[k++] = "--tool=tmtrace";
        av[k++] = "-q";
        av[k++] = logopt;
        av[k++] = fdopt;
        if (shm)
            av[k++] = shmopt;
        av[k++] = cfg.enc.data || rec_mode_needs_mem(&mc) ? "--tm-mem=yes" : "--tm-mem=no";
        if (!commit && !x.mode) /* only the model consumes: it needs no store's value */
            av[k++] = "--tm-store-values=no";
        for (int j = argi; j < argc; j++)
            av[k++] = argv[j];
        av[k] = NULL;
        execvp(valgrind, av);
        fprintf(stderr, "tm record: cannot run %s: %s\n", valgrind, strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    if (shm) {
        close(mfd);
        close(afd[0]);
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);

    /* Pipe transport: the pipe is read straight into the capture's buffer
     * (no copy); after a failure into DRAIN, so that the program runs to
     * its end.  With a size limit 64 KB at a time, so that tracing stops
     * close to it.  Shared memory: each length read from the pipe is the
     * next slot's; its events are handled in place, then the slot goes
     * back to the tool. */
    static uint8_t drain[1 << 16];
    size_t chunk = trace_limit || mc.size_limit ? sizeof drain : (size_t)1 << 20;
    uint64_t tok[64];
    size_t tok_bytes = 0, nslot = 0;
    time_t t0 = time(NULL), last = t0;
    int tty = tm_progress_tty();
    int cap_failed = 0, stopped = 0;
    for (;;) {
        if (shm) {
            ssize_t n = read(pfd[0], (uint8_t *)tok + tok_bytes, sizeof tok - tok_bytes);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
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
            if (n <= 0)
                break;
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
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    int status = 0;
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
        OUT_ERR("%s", x.failed ? x.err : tm_cap_error(cap));
    }
    tm_cap_info info;
    tm_cap_get_info(cap, &info);
    tm_model_finish(x.m);
    char err[512];
    snprintf(p, sizeof p, "%s.tmt", base);
    if (tmt_write(p, &cfg, tm_model_trace(x.m), tm_model_get_stats(x.m)->cycles, err, sizeof err) != TM_OK) {
        OUT_ERR("%s", err);
    }
    snprintf(p, sizeof p, "%s.json", base);
    if (report_json(p, &cfg, x.m)) {
        OUT_ERR("%s: cannot write statistics: %s", p, strerror(errno));
    }
    snprintf(p, sizeof p, "%s.stats", base);
    FILE *sf = fopen(p, "w");
    if (sf) {
        fprintf(sf, "program: %s\n", argv[argi]);
        if (WIFEXITED(ws))
            fprintf(sf, "ended: exit status %d\n", WEXITSTATUS(ws));
        else if (WIFSIGNALED(ws))
            fprintf(sf, "ended: killed by signal %d (%s)\n", WTERMSIG(ws), signame(WTERMSIG(ws)));
        fprintf(sf, "capture: %" PRIu64 " bytes, %" PRIu64 " blocks translated, %" PRIu64 " executed, %" PRIu64
                    " signals, %u threads, %s\n",
                info.bytes, info.blocks, info.execs, info.signals, info.threads,
                info.ended ? "complete" : "cut short (no end marker from the frontend)");
        if (skip || length || main_only || rtn || trace_limit || mc.size_limit)
            fprintf(sf, "window: %" PRIu64 " instructions skipped, %" PRIu64 " traced%s\n", info.skipped,
                    info.instructions, stopped ? " (stopped at the size limit)" : "");
        report_text(sf, &cfg, x.m);
    }
    if (!sf || fclose(sf)) {
        OUT_ERR("%s: %s", p, strerror(errno));
    }
    if (x.mode) {
        rec_mode_set_skipped(x.mode, info.skipped);
        if (rec_mode_close(x.mode, x.m, errm, sizeof errm)) {
            OUT_ERR("%s", errm);
        }
        x.mode = NULL;
    }
    if (x.w) {
        errno = 0;
        rc = tmc_writer_close(x.w); /* frees the writer: its message is gone */
        if (rc != TM_OK && !x.failed) {
            OUT_ERR("%s.tmc: %s%s%s", base, tm_status_str(rc), errno ? ": " : "",
                   errno ? strerror(errno) : "");
        }
        x.w = NULL;
    }
    if (fclose(x.mods)) {
        OUT_ERR("%s.modules: %s", base, strerror(errno));
    }
    tm_model_free(x.m);
    tm_cap_free(cap);
    if (tty)
        fprintf(stderr, "\n");
    if (status)
        return status;
    if (!info.bytes) {
        /* valgrind did not get as far as the tool: say why */
        snprintf(p, sizeof p, "%s.valgrind.log", base);
        FILE *lf = fopen(p, "r");
        char line[512];
        int any = 0;
        while (lf && fgets(line, sizeof line, lf)) {
            fprintf(stderr, "tm record: valgrind: %s", line);
            any = 1;
        }
        if (lf)
            fclose(lf);
        if (!any)
            tm_err("record", "%s produced no trace (it %s %d)", valgrind,
                   WIFEXITED(ws) ? "exited with status" : "was killed by signal",
                   WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
        return WIFEXITED(ws) && WEXITSTATUS(ws) ? WEXITSTATUS(ws) : 1;
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
