/* tm record's frontends as children (Valgrind with the tool tmtrace, Pin
 * with tm_pin.so, QEMU with tm_qemu.so; docs/capture.md §1, docs/qemu.md) and the signals that end a recording
 * (record/frontend.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "frontend.h"

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

int rec_wake_pipe(void)
{
    return pipe2(rec_wake_fd, O_CLOEXEC | O_NONBLOCK) ? -1 : 0;
}

void rec_catch_signals(void)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof stop_sigs / sizeof stop_sigs[0]; k++)
        if (sigaction(stop_sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN) /* nohup: HUP stays ignored */
            sigaction(stop_sigs[k], &sa, NULL);
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
}

double rec_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- the children ---- */

/* In the child: the caller's setup (the program's signals as tm found
 * them), SIGCHLD's default. */
static void child_begin(const rec_child *c)
{
    if (c->setup)
        c->setup(c->arg);
    signal(SIGCHLD, SIG_DFL);
}

/* In the child, exec failed: its line. */
static void child_failed(const rec_child *c, const char *launcher)
{
    char m[4200];
    snprintf(m, sizeof m, "cannot run %s: %s", launcher, strerror(errno));
    c->say(c->arg, 0, m);
}

/* The transport's child: valgrind --tool=tmtrace with the channel's
 * descriptors (the tool moves them out of the program's sight). */
void rec_exec_valgrind(void *arg, const tm_transport_child *ch)
{
    const vg_launch *l = arg;
    child_begin(&l->c);
    int lfd = fcntl(l->log_fd, F_DUPFD, 3);
    char shmopt[96], fdopt[32], logopt[32], logclose[32], timopt[160];
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
    if (l->timing) { /* the machine the tool times the accesses on */
        snprintf(timopt, sizeof timopt, "--tm-timing=%s", l->timing);
        av[k++] = timopt;
    }
    if (!l->store_values) /* only the model consumes: it needs no store's value */
        av[k++] = "--tm-store-values=no";
    if (l->fair) /* threads take turns: none runs far ahead (docs/capture.md §3) */
        av[k++] = "--fair-sched=yes";
    for (int j = 0; j < l->nprog; j++)
        av[k++] = l->prog[j];
    av[k] = NULL;
    execv(l->vgpath, av);
    child_failed(&l->c, l->vgpath);
}

/* The transport's child:
 *   pin -logfile KITLOG -t TOOL -tm_fd N [-tm_shm FD,ACK,SLOTS,BYTES]
 *       -tm_mem 0|1 -tm_store_values 0|1 -tm_log LOG -- PROG ARGS
 * (the tool's knobs, docs/capture.md §1). */
void rec_exec_pin(void *arg, const tm_transport_child *ch)
{
    const pin_launch *l = arg;
    child_begin(&l->c);
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
    if (l->timing) {
        av[k++] = "-tm_timing";
        av[k++] = (char *)l->timing;
    }
    av[k++] = "-tm_log";
    av[k++] = (char *)l->log;
    av[k++] = "--";
    for (int j = 0; j < l->nprog; j++)
        av[k++] = l->prog[j];
    av[k] = NULL;
    execv(l->pin, av);
    child_failed(&l->c, l->pin);
}

/* FD moved to the top of the descriptor table (the program under QEMU
 * shares it: its own descriptors then number as without the plugin). */
static int high_fd(int fd)
{
    struct rlimit rl;
    int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= 65536
                  ? (int)rl.rlim_cur - 1
                  : 1023;
    for (int t = top; t > fd && t > top - 64; t--)
        if (fcntl(t, F_GETFD) < 0 && dup2(fd, t) == t) {
            close(fd);
            return t;
        }
    return fd;
}

void rec_exec_qemu(void *arg, const tm_transport_child *ch)
{
    const qemu_launch *l = arg;
    child_begin(&l->c);
    int fd = high_fd(ch->data_fd);
    size_t pn = strlen(l->plugin) + strlen(l->log) + 256;
    char *plug = malloc(pn);
    /* qemu, 4 words at most (below), the program's arguments, NULL */
    char **av = calloc((size_t)l->nprog + 8, sizeof *av);
    if (!av || !plug)
        return;
    snprintf(plug, pn, "%s,fd=%d,mem=%d,store_values=%d%s%s,log=%s", l->plugin, fd, l->mem ? 1 : 0,
             l->store_values ? 1 : 0, l->timing ? ",timing=" : "", l->timing ? l->timing : "", l->log);
    int k = 0;
    av[k++] = (char *)l->qemu;
    if (l->prefix) {
        av[k++] = "-L";
        av[k++] = (char *)l->prefix;
    }
    av[k++] = "-plugin";
    av[k++] = plug;
    for (int j = 0; j < l->nprog; j++)
        av[k++] = l->prog[j];
    av[k] = NULL;
    execv(l->qemu, av);
    child_failed(&l->c, l->qemu);
}
