/* tm record's files: cmd_record.c (options, the run) and record_env.c
 * (what it sets up around the run: the lock's and a refusal's line,
 * signals, the child); the library's part is tm/record.h (record/). */
#ifndef TM_TOOLS_RECORD_H
#define TM_TOOLS_RECORD_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include "cmd.h"
#include "tm/capture.h"
#include "tm/model.h"
#include "tm/profile.h"
#include "tm/recmodes.h"
#include "tm/record.h"
#include "tm/sweep.h"
#include "tm/tmc.h"
#include "tm/tmt.h"
#include "tm/transport.h"

/* ---- record_env.c ---- */

/* Before the run: one line, every output and the descriptors removed, the
 * lock released (tm_rec_release); returns 1 (the exit status). */
int rec_abandon(tm_rec_ctx *x, tm_rec_outs *O, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* BASE.lock (tm_rec_lock): 0 with *FD_OUT, or -1 after one line if another
 * tm record holds it.  tm_rec_unlock removes it. */
int rec_lock_base(const char *base, int *fd_out);

/* INT, QUIT, TERM and HUP end the recording: the first one is kept in
 * rec_got_sig, their count in rec_nsigs; they and SIGCHLD write to
 * rec_wake_fd[1] to wake the loop. */
extern volatile sig_atomic_t rec_got_sig, rec_nsigs;
extern int rec_wake_fd[2];
int rec_install_signals(void);
/* Seconds on a monotonic clock. */
double rec_now_s(void);
/* How long the program gets after a signal to tm before tm passes it on
 * (a terminal's or a process group's signal has reached it already), and
 * then before tm kills it. */
#define FORWARD_AFTER 1.0
#define KILL_AFTER 10.0

/* What the child needs to run Valgrind with the tool. */
typedef struct vg_launch {
    char *vgpath;          /* the launcher */
    const char *rec_tool_dir;  /* VALGRIND_LIB */
    int log_fd;            /* BASE.valgrind.log */
    int mem;               /* memory operands */
    int store_values;      /* stores' values (the commit stream and --mode need them) */
    int addr;              /* without MEM: the operands' addresses (ADDR events) */
    int fair;              /* --fair-sched=yes (the timing model) */
    char **prog;           /* the program and its arguments */
    int nprog;
} vg_launch;
/* The transport's child (tm_transport_exec_fn): runs ARG's valgrind. */
void rec_exec_valgrind(void *arg, const tm_transport_child *ch);

/* ---- the Pin frontend (--frontend pin; docs/capture.md §1) ---- */

/* What the child needs to run Pin with the tool. */
typedef struct pin_launch {
    const char *pin;       /* the launcher */
    const char *tool;      /* tm_pin.so */
    const char *log;       /* -tm_log: the tool's messages (BASE.pin.log's temporary) */
    const char *kitlog;    /* Pin's own -logfile */
    int mem;               /* -tm_mem 1: memory operands */
    int store_values;      /* -tm_store_values */
    int addr;              /* -tm_addr 1: without -tm_mem, the operands' addresses */
    char **prog;           /* the program and its arguments */
    int nprog;
} pin_launch;
/* The transport's child: runs ARG's pin (no --fair-sched equivalent: Pin
 * runs the threads as the system schedules them). */
void rec_exec_pin(void *arg, const tm_transport_child *ch);

#endif
