/* tm record: what it checks and sets up around the run (tools/tm/record.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "record.h"

/* NAME as execvp would find it, into PATH; 0, or -1 if there is no such
 * file. */
int rec_find_program(const char *name, char *path, size_t n)
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
int rec_check_program(const char *prog)
{
    char path[PATH_MAX];
    struct stat st;
    if (rec_find_program(prog, path, sizeof path) || stat(path, &st) != 0) {
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

/* <dir of tm>/../lib/SUB into OUT: 0, or -1. */
static int lib_dir(const char *sub, char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0)
        return -1;
    self[k] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    return snprintf(out, n, "%s/../lib/%s", self, sub) >= (int)n ? -1 : 0;
}

/* The folder with tmtrace-amd64-linux: $TM_VALGRIND_LIB, else
 * <dir of tm>/../lib/valgrind. */
int rec_tool_dir(char *out, size_t n)
{
    const char *env = getenv("TM_VALGRIND_LIB");
    if (env && *env)
        snprintf(out, n, "%s", env);
    else if (lib_dir("valgrind", out, n))
        return -1;
    char tool[PATH_MAX + 32];
    snprintf(tool, sizeof tool, "%s/tmtrace-amd64-linux", out);
    return access(tool, X_OK) == 0 ? 0 : -1;
}

const char *rec_signame(int s)
{
    const char *d = strsignal(s);
    return d ? d : "?";
}

/* ---- one recording per BASE at a time ---- */

/* Takes BASE.lock (flock): -1 after one line if another tm record holds it.
 * The lock goes with the process, however it ends; rec_unlock_base removes the
 * file while holding the lock (whoever opened it meanwhile finds it
 * replaced and tries again). */
int rec_lock_base(const char *base, int *fd_out)
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

void rec_unlock_base(const char *base, int fd)
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
volatile sig_atomic_t rec_got_sig, rec_nsigs;
int rec_wake_fd[2] = {-1, -1};
static const int stop_sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    int e = errno;
    if (sig != SIGCHLD) {
        if (!rec_got_sig)
            rec_got_sig = sig;
        rec_nsigs++;
    }
    if (rec_wake_fd[1] >= 0 && write(rec_wake_fd[1], "", 1) < 0) {
        /* full: the loop wakes anyway */
    }
    errno = e;
}

int rec_install_signals(void)
{
    if (pipe2(rec_wake_fd, O_CLOEXEC | O_NONBLOCK))
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
double rec_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}



/* The transport's child: the program's signals as tm found them, then
 * valgrind --tool=tmtrace with the channel's descriptors (the tool moves
 * them out of the program's sight, docs/capture.md §1). */
void rec_exec_valgrind(void *arg, const tm_transport_child *ch)
{
    const vg_launch *l = arg;
    tm_restore_child_signals();
    signal(SIGCHLD, SIG_DFL);
    int lfd = fcntl(l->log_fd, F_DUPFD, 3);
    char shmopt[96], fdopt[32], logopt[32], logclose[32];
    if (ch->shm_fd >= 0)
        snprintf(shmopt, sizeof shmopt, "--tm-shm=%d,%d,%u,%zu", ch->shm_fd, ch->ack_fd, ch->slots, ch->slot);
    setenv("VALGRIND_LIB", l->rec_tool_dir, 1);
    /* valgrind, 9 options at most (below), the program's arguments, NULL */
    char **av = calloc((size_t)l->nprog + 14, sizeof *av);
    if (!av)
        return;
    snprintf(fdopt, sizeof fdopt, "--tm-fd=%d", ch->data_fd);
    /* Valgrind's own messages go to BASE.valgrind.log, so that the program's
     * stderr passes through unchanged; the tool closes the descriptor
     * Valgrind leaves open in the program's range. */
    snprintf(logopt, sizeof logopt, "--log-fd=%d", lfd);
    snprintf(logclose, sizeof logclose, "--tm-log-fd=%d", lfd);
    int k = 0;
    av[k++] = l->vgpath;
    av[k++] = "--tool=tmtrace";
    av[k++] = "-q";
    av[k++] = logopt;
    av[k++] = fdopt;
    av[k++] = logclose;
    if (ch->shm_fd >= 0)
        av[k++] = shmopt;
    av[k++] = l->mem ? "--tm-mem=yes" : "--tm-mem=no";
    if (!l->mem && l->addr) /* the data caches' addresses, without values */
        av[k++] = "--tm-addr=yes";
    if (!l->store_values) /* only the model consumes: it needs no store's value */
        av[k++] = "--tm-store-values=no";
    if (l->fair) /* threads take turns: none runs far ahead (docs/capture.md §3) */
        av[k++] = "--fair-sched=yes";
    for (int j = 0; j < l->nprog; j++)
        av[k++] = l->prog[j];
    av[k] = NULL;
    execv(l->vgpath, av);
    fprintf(stderr, "tm record: cannot run %s: %s\n", l->vgpath, strerror(errno));
}


/* ---- the Pin frontend ---- */

/* An executable regular file: 1, else 0. */
static int is_exec_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* The pin launcher: --pin OPT (the launcher, a name on PATH, or a kit folder
 * with pin in it), else $PIN_ROOT/pin. */
int rec_pin_kit(const char *opt, char *out, size_t n)
{
    static const char how[] = "give --pin PATH or set PIN_ROOT to a Pin 3.x kit folder";
    struct stat st;
    if (opt) {
        if (stat(opt, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (snprintf(out, n, "%s/pin", opt) < (int)n && is_exec_file(out))
                return 0;
            tm_err("record", "--pin %s: a folder without the pin launcher (%s/pin); give a Pin 3.x kit folder or "
                             "its pin", opt, opt);
            return 2;
        }
        if (rec_find_program(opt, out, n) == 0 && is_exec_file(out))
            return 0;
        tm_err("record", "--pin %s: no such program%s; give a Pin 3.x kit folder or its pin", opt,
               strchr(opt, '/') ? " (or not an executable file)" : " on PATH");
        return 2;
    }
    const char *root = getenv("PIN_ROOT");
    if (!root || !*root) {
        tm_err("record", "--frontend pin: no Pin kit (%s)", how);
        return 2;
    }
    if (snprintf(out, n, "%s/pin", root) < (int)n && is_exec_file(out))
        return 0;
    tm_err("record", "--frontend pin: PIN_ROOT=%s has no pin launcher (%s/pin); %s", root, root, how);
    return 2;
}

/* The Pin tool: $TM_PIN_TOOL, else <dir of tm>/../lib/pin/tm_pin.so. */
int rec_pin_tool(char *out, size_t n)
{
    const char *env = getenv("TM_PIN_TOOL");
    if (env && *env)
        snprintf(out, n, "%s", env);
    else if (lib_dir("pin/tm_pin.so", out, n))
        snprintf(out, n, "build/lib/pin/tm_pin.so");
    if (access(out, R_OK) == 0)
        return 0;
    tm_err("record", "the Pin tool %s is not built (run make pin PIN_ROOT=DIR; or set TM_PIN_TOOL)", out);
    return 1;
}

/* The transport's child: the program's signals as tm found them, then
 *   pin -logfile KITLOG -t TOOL -tm_fd N [-tm_shm FD,ACK,SLOTS,BYTES]
 *       -tm_mem 0|1 -tm_store_values 0|1 -tm_log LOG -- PROG ARGS
 * (the tool's knobs, docs/capture.md §1). */
void rec_exec_pin(void *arg, const tm_transport_child *ch)
{
    const pin_launch *l = arg;
    tm_restore_child_signals();
    signal(SIGCHLD, SIG_DFL);
    char shmopt[96], fdopt[32];
    snprintf(fdopt, sizeof fdopt, "%d", ch->data_fd);
    if (ch->shm_fd >= 0)
        snprintf(shmopt, sizeof shmopt, "%d,%d,%u,%zu", ch->shm_fd, ch->ack_fd, ch->slots, ch->slot);
    /* pin, 16 words at most (below), the program's arguments, NULL */
    char **av = calloc((size_t)l->nprog + 24, sizeof *av);
    if (!av)
        return;
    int k = 0;
    av[k++] = (char *)l->pin;
    av[k++] = "-logfile";
    av[k++] = (char *)l->kitlog;
    av[k++] = "-t";
    av[k++] = (char *)l->tool;
    av[k++] = "-tm_fd";
    av[k++] = fdopt;
    if (ch->shm_fd >= 0) {
        av[k++] = "-tm_shm";
        av[k++] = shmopt;
    }
    av[k++] = "-tm_mem";
    av[k++] = l->mem ? "1" : "0";
    av[k++] = "-tm_store_values";
    av[k++] = l->store_values ? "1" : "0";
    if (!l->mem && l->addr) {
        av[k++] = "-tm_addr";
        av[k++] = "1";
    }
    av[k++] = "-tm_log";
    av[k++] = (char *)l->log;
    av[k++] = "--";
    for (int j = 0; j < l->nprog; j++)
        av[k++] = l->prog[j];
    av[k] = NULL;
    execv(l->pin, av);
    fprintf(stderr, "tm record: cannot run %s: %s\n", l->pin, strerror(errno));
}
