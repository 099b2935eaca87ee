/* tm record's files: cmd_record.c (options, outputs, the run) and
 * record_env.c (what it checks and sets up around the run: the program and
 * the launcher, the tool, one recording per BASE, signals, the child). */
#ifndef TM_TOOLS_RECORD_H
#define TM_TOOLS_RECORD_H

#include <signal.h>
#include <stddef.h>
#include "tm/transport.h"

/* NAME as execvp would find it, into PATH; 0, or -1 if there is no such file. */
int rec_find_program(const char *name, char *path, size_t n);
/* The program PROG can run under Valgrind: 0, or the exit status after one line. */
int rec_check_program(const char *prog);
/* The folder of the Valgrind tool (VALGRIND_LIB) into OUT: 0, or -1. */
int rec_tool_dir(char *out, size_t n);
const char *rec_signame(int s);
/* BASE.lock (flock): 0 with *FD_OUT, or -1 after one line if another tm
 * record holds it.  rec_unlock_base removes it. */
int rec_lock_base(const char *base, int *fd_out);
void rec_unlock_base(const char *base, int fd);

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
    char **prog;           /* the program and its arguments */
    int nprog;
} vg_launch;
/* The transport's child (tm_transport_exec_fn): runs ARG's valgrind. */
void rec_exec_valgrind(void *arg, const tm_transport_child *ch);

#endif
