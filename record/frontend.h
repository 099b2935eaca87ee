/* record/'s own: the frontends' children and the recording's signals
 * (record/frontend.c), for record/run.c. */
#ifndef TM_RECORD_FRONTEND_H
#define TM_RECORD_FRONTEND_H

#include <signal.h>
#include "tm/transport.h"

/* What the child says and does before exec: the caller's (tm_rec_run). */
typedef struct rec_child {
    void *arg;
    void (*say)(void *arg, int usage, const char *line);
    void (*setup)(void *arg);
} rec_child;

/* What the child needs to run Valgrind with the tool. */
typedef struct vg_launch {
    rec_child c;
    char *vgpath;          /* the launcher */
    const char *rec_tool_dir;  /* VALGRIND_LIB */
    int log_fd;            /* BASE.valgrind.log */
    int mem;               /* memory operands */
    int store_values;      /* stores' values (the commit stream and --mode need them) */
    const char *timing;    /* --tm-timing=: the machine the frontend times the accesses on (tm/tfront.h), or NULL */
    int fair;              /* --fair-sched=yes (the timing model) */
    char **prog;           /* the program and its arguments */
    int nprog;
} vg_launch;
/* The transport's child (tm_transport_exec_fn): runs ARG's valgrind. */
void rec_exec_valgrind(void *arg, const tm_transport_child *ch);

/* What the child needs to run Pin with the tool (--frontend pin;
 * docs/capture.md §1). */
typedef struct pin_launch {
    rec_child c;
    const char *pin;       /* the launcher */
    const char *tool;      /* tm_pin.so */
    const char *log;       /* -tm_log: the tool's messages (BASE.pin.log's temporary) */
    const char *kitlog;    /* Pin's own -logfile */
    int mem;               /* -tm_mem 1: memory operands */
    int store_values;      /* -tm_store_values */
    const char *timing;    /* -tm_timing: the machine the accesses are timed on, or NULL */
    char **prog;           /* the program and its arguments */
    int nprog;
} pin_launch;
/* The transport's child: runs ARG's pin (no --fair-sched equivalent: Pin
 * runs the threads as the system schedules them). */
void rec_exec_pin(void *arg, const tm_transport_child *ch);

/* What the child needs to run QEMU with the plugin (--frontend qemu;
 * docs/qemu.md). */
typedef struct qemu_launch {
    rec_child c;
    const char *qemu;      /* the launcher (qemu-aarch64, qemu-riscv64) */
    const char *plugin;    /* tm_qemu.so (no comma in its path) */
    const char *prefix;    /* -L: the guest's library prefix, or NULL */
    const char *log;       /* log=: the plugin's messages (BASE.qemu.log's temporary, absolute) */
    int mem;               /* mem=1: memory operands */
    int store_values;      /* store_values= */
    const char *timing;    /* timing=: the machine the accesses are timed on, or NULL */
    char **prog;           /* the program and its arguments */
    int nprog;
} qemu_launch;
/* The transport's child (pipe mode: the stream through the data
 * descriptor, moved out of the program's way):
 *   qemu [-L PREFIX] -plugin PLUGIN,fd=N,mem=0|1,store_values=0|1[,timing=M],log=LOG PROG ARGS */
void rec_exec_qemu(void *arg, const tm_transport_child *ch);

/* INT, QUIT, TERM and HUP end the recording: the first one is kept in
 * rec_got_sig, their count in rec_nsigs; they and SIGCHLD write to
 * rec_wake_fd[1] to wake the loop.  rec_wake_pipe makes the pipe (0, or -1
 * with errno); rec_catch_signals installs the handlers (a signal ignored,
 * nohup, stays ignored). */
extern volatile sig_atomic_t rec_got_sig, rec_nsigs;
extern int rec_wake_fd[2];
int rec_wake_pipe(void);
void rec_catch_signals(void);
/* Seconds on a monotonic clock. */
double rec_now_s(void);
/* How long the program gets after a signal to tm before tm passes it on
 * (a terminal's or a process group's signal has reached it already), and
 * then before tm kills it. */
#define FORWARD_AFTER 1.0
#define KILL_AFTER 10.0

#endif
