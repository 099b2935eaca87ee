/* tm record's files: cmd_record.c (options, the run), record_out.c (the
 * outputs and the exit status) and record_env.c (what it checks and sets up
 * around the run: the program and the launcher, the tool, one recording per
 * BASE, signals, the child). */
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

/* A configuration of the recording: the first one (its trace and
 * statistics are among the recording's outputs, rec_outs) or one after
 * --and (BASE.tmt, .json, .stats and the module map .modules, a copy of
 * the first one's, of its own, OUT, and a lock), and its
 * field profile (--profile). */
enum { RECX_TMT, RECX_JSON, RECX_STATS, RECX_MODULES, RECX_NOUTS };
typedef struct rec_conf {
    const char *base;     /* -o BASE */
    const char *profile;  /* --profile FILE, or NULL */
    tm_model_cfg cfg;
    tm_model *m;          /* the first: rec_ctx.m; the others the sweep's */
    tm_profile *prof;
    tm_out out[RECX_NOUTS]; /* after --and only */
    tm_out pout;          /* the profile */
    tm_out vout;          /* BASE.vdso: the vdso's bytes (rec_on_module) */
    int vdso;             /* vout holds them (else it is removed at the end) */
    int lock_fd;          /* after --and only (-1: none) */
} rec_conf;
#define REC_MAX_CONFS 256

/* One recording's consumers of the capture. */
typedef struct rec_ctx {
    tm_model *m;          /* the first configuration's model */
    tm_sweep *sw;         /* with --and: every configuration's models (m is the first) */
    rec_conf *conf;       /* the configurations, k of them (at least 1) */
    size_t k;
    tm_recmode *mode;
    tm_cap *cap;
    int filtered;
    tmc_writer *w;
    FILE *mods;
    const char *base;
    char err[512];
    int failed;
} rec_ctx;

/* ---- record_out.c ---- */

/* The outputs BASE.modules, .tmc (with --commit), the frontend's log
 * (.valgrind.log, .pin.log; none with --capture), .tmt, .json, .stats,
 * under temporary names until rec_finish; with the Pin frontend also the
 * temporary file given to Pin as -logfile (REC_KITLOG, never renamed: its
 * lines are appended to BASE.pin.log). */
enum { REC_MODULES, REC_TMC, REC_LOG, REC_TMT, REC_JSON, REC_STATS, REC_KITLOG, REC_NOUTS };
typedef struct rec_outs {
    tm_out o[REC_NOUTS];
    int lock_fd;  /* BASE.lock */
    const char *log_sfx; /* the frontend log's suffix, or NULL */
} rec_outs;
/* LOG_SFX: the frontend log's suffix (".valgrind.log", ".pin.log") or NULL
 * (no frontend); INPUT: a file the outputs must not be (--capture FILE), or
 * NULL.  0, or after one line (none is left) -1, or -2 for an output that
 * is the input or a directory (a usage error, tm_out_begin). */
int rec_outs_begin(rec_outs *O, const char *base, int commit, const char *log_sfx, const char *input);
/* The outputs of the configurations after --and, every --profile and every
 * configuration's BASE.vdso, and the locks of the others' BASEs; INPUT as
 * rec_outs_begin's.  0, or after one line (none is left) -1, or -2 for an
 * output that is the input (a usage error). */
int rec_conf_begin(rec_ctx *x, const char *input);
/* Removes every output of the configurations (their temporaries) and
 * releases their locks. */
void rec_conf_abort(rec_ctx *x);
/* Before the run: one line, every output and the descriptors removed, the
 * lock released; returns 1 (the exit status). */
int rec_abandon(rec_ctx *x, rec_outs *O, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The capture sink's module callback: a line of BASE.modules (and the
 * vdso's bytes in BASE.vdso, a MODULE record in the commit stream). */
int rec_on_module(void *arg, const tm_cap_module *m);

/* How the run ended. */
typedef struct rec_end {
    const char *prog;
    int ws, killed;             /* the program's wait status; killed by tm */
    const tm_cap_info *info;
    tmt_ending ending;
    int sig;                    /* the signal tm got (TMT_CUT_SIGNAL) */
    int windowed, stopped;      /* a tracing window; stopped at a size limit */
    int status;                 /* 1: an error was reported already */
    const tm_timing_cfg *timing; /* the timing model (NULL: serial) */
    tm_timing_stats tst;        /* and its statistics */
    const tm_cap *cap;          /* the capture (the timing model's cores) */
    const char *capture;        /* --capture FILE: no program ran here (WS is the END event's, if any) */
    int data;                   /* the memory operands captured: 2 with values, 1 addresses only, 0 none */
} rec_end;
/* After the run: the trace, statistics, descriptors and commit stream
 * written and every output renamed into place, the lock released; 0, or 1
 * (after one line for the first error, unless E->status says one was). */
int rec_finish(rec_ctx *x, rec_outs *O, const tm_model_cfg *cfg, const rec_end *e);
/* ---- record_env.c ---- */

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
