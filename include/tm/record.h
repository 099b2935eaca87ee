/* tm record's library side (record/): what a recording checks before its
 * program runs (the program, the frontend's launcher and tool, the capture
 * stream's magic), the lock of its outputs, the outputs themselves (the
 * trace, statistics, module map, commit stream: under temporary names until
 * they are complete) and the exit status a finished recording gives.  The
 * library never prints: each call gives its one-line message in the
 * caller's buffer (err, errlen; NULL, 0 allowed) or, after the run, through
 * the recording's diagnostics sink (tm_rec_ctx.diag); the command line
 * (tools/tm/cmd_record.c) prints it as "tm record: MESSAGE". */
#ifndef TM_RECORD_H
#define TM_RECORD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tm/capture.h"
#include "tm/model.h"
#include "tm/out.h"
#include "tm/profile.h"
#include "tm/recmodes.h"
#include "tm/status.h"
#include "tm/sweep.h"
#include "tm/timing.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* NAME as execvp would find it, into PATH: 0, or -1 if there is no such
 * file (a lookup: "not found" is its answer, not a failure). */
int tm_rec_find_program(const char *name, char *path, size_t n);

/* The program PROG can be traced (an x86-64 ELF executable, or a #! script
 * whose interpreter is one): TM_OK; TM_ERR_ARG (no such program, not an
 * executable file: a usage error) or TM_ERR_FORMAT (a program of another
 * kind), with the message. */
int tm_rec_check_program(const char *prog, char *err, size_t errlen);
/* The same for frontend FE ("valgrind", "pin": x86-64 programs; "qemu":
 * AArch64 and RISC-V 64-bit little-endian ones): a program of another ISA
 * is TM_ERR_FORMAT with a line that names the frontend to use.  *ISA (if
 * not NULL) the program's instruction set (TM_ISA_*, tm/isa.h; a script's:
 * its interpreter's), *DYNAMIC (if not NULL) whether it has a dynamic
 * loader (PT_INTERP). */
int tm_rec_check_program_fe(const char *prog, const char *fe, int *isa, int *dynamic, char *err, size_t errlen);

/* PROG (as execvp finds it) is a #! script: 1, with its interpreter in
 * INTERP and the line's optional argument in ARG ("" if none), as the
 * kernel reads them; else 0.  (QEMU's user mode runs no script itself: tm
 * record gives it the interpreter, the argument and the script.) */
int tm_rec_script(const char *prog, char *interp, size_t n, char *arg, size_t an);

/* --frontend qemu: the launcher OPT (--qemu: a path or a name on PATH),
 * else qemu-aarch64 or qemu-riscv64 on PATH for ISA, into PATH; TM_OK, or
 * TM_ERR_ARG with the message (none: a usage error). */
int tm_rec_qemu(const char *opt, int isa, char *path, size_t n, char *err, size_t errlen);
/* The QEMU plugin: $TM_QEMU_PLUGIN, else <dir of tm>/../lib/qemu/tm_qemu.so,
 * into OUT; TM_OK, or TM_ERR_IO (not built) / TM_ERR_ARG (a comma in its
 * path) with the message. */
int tm_rec_qemu_plugin(char *out, size_t n, char *err, size_t errlen);
/* The guest's library prefix QEMU gets as -L for a program of ISA: NULL if
 * QEMU_LD_PREFIX is set (QEMU reads it) or the program is static, else
 * /usr/aarch64-linux-gnu or /usr/riscv64-linux-gnu if that folder exists
 * (NULL if not). */
const char *tm_rec_qemu_prefix(int isa, int dynamic);

/* The valgrind launcher NAME (a path, or a name on PATH) into PATH:
 * TM_OK, or TM_ERR_ARG with the message (no such program). */
int tm_rec_valgrind(const char *name, char *path, size_t n, char *err, size_t errlen);

/* The folder of the Valgrind tool tmtrace-amd64-linux (VALGRIND_LIB):
 * $TM_VALGRIND_LIB, else <dir of tm>/../lib/valgrind, into OUT; TM_OK, or
 * TM_ERR_IO with the message (not built). */
int tm_rec_tool_dir(char *out, size_t n, char *err, size_t errlen);

/* The Pin frontend's launcher: OPT (--pin: the launcher, a name on PATH, or
 * a kit folder holding pin), else $PIN_ROOT/pin, into OUT; TM_OK, or
 * TM_ERR_ARG with the message (no usable kit: a usage error). */
int tm_rec_pin_kit(const char *opt, char *out, size_t n, char *err, size_t errlen);
/* The Pin tool: $TM_PIN_TOOL, else <dir of tm>/../lib/pin/tm_pin.so, into
 * OUT; TM_OK, or TM_ERR_IO with the message (not built). */
int tm_rec_pin_tool(char *out, size_t n, char *err, size_t errlen);

/* The description of signal S (strsignal), "?" if there is none. */
const char *tm_rec_signame(int s);

/* One recording per BASE at a time: takes BASE.lock (flock) with *FD_OUT;
 * TM_OK, or TM_ERR_STATE (another tm record holds it) or TM_ERR_IO with the
 * message.  The lock goes with the process, however it ends;
 * tm_rec_unlock removes the file (FD -1: nothing to do). */
int tm_rec_lock(const char *base, int *fd_out, char *err, size_t errlen);
void tm_rec_unlock(const char *base, int fd);

/* A capture stream to read (--capture FILE, "-" standard input): opened
 * into *FD and its first 8 bytes, the magic, read into MAGIC and checked
 * (NAME: FILE as the messages say it).  TM_OK; TM_ERR_ARG (standard input
 * is a terminal: a usage error), TM_ERR_IO or TM_ERR_FORMAT, with the
 * message and nothing left open. */
int tm_rec_capture_open(const char *file, const char *name, uint8_t magic[8], int *fd, char *err, size_t errlen);

/* The exit status of a recording that wrote its outputs: the program's, or
 * why there is less than a whole recording, in MSG (empty when there is
 * nothing to say).  LOG: the frontend's log (BASE.valgrind.log,
 * BASE.pin.log), read when nothing was CAPTURED; FRONTEND the launcher;
 * WS the program's wait status.  With CAPTURE (--capture FILE) WS is the
 * END event's status, and a capture cut short says so of FILE.  Never
 * fails: the result is an exit status, not a tm_status. */
int tm_rec_program_status(const char *log, const char *frontend, const char *prog, int ws, int captured,
                          tmt_ending ending, const char *capture, char *msg, size_t msglen);

/* ---- the recording's outputs (record/recout.c) ---- */

/* A configuration of the recording: the first one (its trace and
 * statistics are among the recording's outputs, tm_rec_outs) or one after
 * --and (BASE.tmt, .json, .stats and the module map .modules, a copy of
 * the first one's, of its own, OUT, and a lock), and its
 * field profile (--profile). */
enum { TM_RECX_TMT, TM_RECX_JSON, TM_RECX_STATS, TM_RECX_MODULES, TM_RECX_NOUTS };
typedef struct tm_rec_conf {
    const char *base;     /* -o BASE */
    const char *profile;  /* --profile FILE, or NULL */
    tm_model_cfg cfg;
    tm_model *m;          /* the first: tm_rec_ctx.m; the others the sweep's */
    tm_profile *prof;
    tm_out out[TM_RECX_NOUTS]; /* after --and only */
    tm_out pout;          /* the profile */
    tm_out vout;          /* BASE.vdso: the vdso's bytes (tm_rec_on_module) */
    int vdso;             /* vout holds them (else it is removed at the end) */
    int lock_fd;          /* after --and only (-1: none) */
} tm_rec_conf;
#define TM_REC_MAX_CONFS 256

typedef struct tm_rec_async tm_rec_async;

/* One recording's consumers of the capture. */
typedef struct tm_rec_ctx {
    tm_model *m;          /* the first configuration's model */
    tm_sweep *sw;         /* with --and: every configuration's models (m is the first) */
    tm_rec_conf *conf;    /* the configurations, k of them (at least 1) */
    size_t k;
    tm_recmode *mode;
    tm_cap *cap;
    int filtered;
    tmc_writer *w;
    FILE *mods;
    const char *base;
    char err[512];
    int failed;
    /* tm_rec_finish's lines (an output it could not write or move into
     * place: one line each, no prefix, no newline), or NULL */
    void (*diag)(void *arg, const char *line);
    void *diag_arg;
    tm_rec_async *as;     /* the model on a second thread (tm_rec_async_start), or NULL */
} tm_rec_ctx;

/* The outputs BASE.modules, .tmc (with --commit), the frontend's log
 * (.valgrind.log, .pin.log; none with --capture), .tmt, .json, .stats,
 * under temporary names until tm_rec_finish; with the Pin frontend also the
 * temporary file given to Pin as -logfile (TM_REC_KITLOG, never renamed: its
 * lines are appended to BASE.pin.log). */
enum { TM_REC_MODULES, TM_REC_TMC, TM_REC_LOG, TM_REC_TMT, TM_REC_JSON, TM_REC_STATS, TM_REC_KITLOG, TM_REC_NOUTS };
typedef struct tm_rec_outs {
    tm_out o[TM_REC_NOUTS];
    int lock_fd;  /* BASE.lock */
    const char *log_sfx; /* the frontend log's suffix, or NULL */
} tm_rec_outs;
/* LOG_SFX: the frontend log's suffix (".valgrind.log", ".pin.log") or NULL
 * (no frontend); INPUT: a file the outputs must not be (--capture FILE), or
 * NULL.  TM_OK, or with the message (none is left) TM_ERR_ARG for an output
 * that is the input or a directory (a usage error, tm_out_open) or another
 * status. */
int tm_rec_outs_begin(tm_rec_outs *O, const char *base, int commit, const char *log_sfx, const char *input, char *err,
                      size_t errlen);
/* The outputs of the configurations after --and, every --profile and every
 * configuration's BASE.vdso, and the locks of the others' BASEs (tm_rec_lock);
 * INPUT and the result as tm_rec_outs_begin's. */
int tm_rec_conf_begin(tm_rec_ctx *x, const char *input, char *err, size_t errlen);
/* Removes every output of the configurations (their temporaries) and
 * releases their locks. */
void tm_rec_conf_abort(tm_rec_ctx *x);
/* Before the run: every output and the descriptors removed, the lock
 * released (what a recording refused before its program ran leaves). */
void tm_rec_release(tm_rec_ctx *x, tm_rec_outs *O);
/* The capture sink's module callback: a line of BASE.modules (and the
 * vdso's bytes in BASE.vdso, a MODULE record in the commit stream). */
int tm_rec_on_module(void *arg, const tm_cap_module *m);

/* How the run ended. */
typedef struct tm_rec_end {
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
    int data;                   /* 2: the memory operands' values captured, else 0 */
} tm_rec_end;
/* After the run: the trace, statistics, descriptors and commit stream
 * written and every output renamed into place, the lock released; 0, or 1
 * (after a line through X->diag for the first error, unless E->status says
 * one was said; and one for each output that could not be moved into
 * place). */
int tm_rec_finish(tm_rec_ctx *x, tm_rec_outs *O, const tm_model_cfg *cfg, const tm_rec_end *e);
/* The timing model's lines of BASE.stats (record/rectiming.c). */
void tm_rec_timing_stats(FILE *sf, const tm_rec_end *e);
/* The "machine" object of BASE.json: a string to free, NULL without memory. */
char *tm_rec_machine_json(const tm_rec_end *e, const tm_model *m);

/* ---- the recording's session (record/session.c) ---- */

/* The capture's sink into X's consumers: with SPOOL (--threads auto) every
 * record into the writer X->w only; else the model (or with --and the
 * sweep), the commit stream's writer X->w if any, the descriptors X->mode
 * if any (whole groups when the model is the only consumer); the modules
 * through tm_rec_on_module.  A consumer's failure stops the capture with
 * its line in X->err (X->failed). */
void tm_rec_sink(tm_rec_ctx *x, int spool, tm_cap_sink *sink);
/* The models of X's K configurations, CFGS[j] configuration j's (one
 * sweep with --and): into X->m, X->sw and each X->conf[j].m and .cfg, the
 * profiles made already attached.  TM_OK, or the status with the message. */
int tm_rec_models_new(tm_rec_ctx *x, const tm_model_cfg *cfgs, char *err, size_t errlen);
/* Every --profile's profile of WINDOW cycles, attached to its model if it
 * is made already.  TM_OK, or the status with the message. */
int tm_rec_profiles_new(tm_rec_ctx *x, uint64_t window, char *err, size_t errlen);
/* The spooled commit stream R into the models (and X->w) until its end, or
 * until *NSIGS is no longer AT (a signal to the process ends the recording
 * there).  TM_OK at its end or at the signal; the status of a consumer
 * that failed (its line in X->err, X->failed) or of the reader
 * (tmc_reader_error). */
int tm_rec_feed(tm_rec_ctx *x, tmc_reader *r, const volatile sig_atomic_t *nsigs, sig_atomic_t at);

/* The line of a model that refused what it was given (with --and: the
 * configuration that did), into ERR (N bytes): "model: ..." or "model
 * (configuration J, -o BASE): ...". */
void tm_rec_model_error(const tm_rec_ctx *x, char *err, size_t n);

/* ---- the model on a second thread (record/asyncmodel.c) ---- */

/* When the model (or the sweep) is X's only consumer: a thread that feeds
 * it what tm_rec_sink's sink hands on, in order, through a ring published
 * in batches; X->as.  TM_OK, or TM_ERR_NOMEM (no thread: the sink feeds
 * the model itself).  Whoever starts it stops it (tm_rec_async_stop) on
 * every path before X's models are read or freed. */
int tm_rec_async_start(tm_rec_ctx *x);
/* A group, a record into the ring (the sink's): 0, or 1 if the model
 * failed (its line in X->err, X->failed), as tm_rec_sink's. */
int tm_rec_async_group(tm_rec_ctx *x, const tmc_group *g);
int tm_rec_async_record(tm_rec_ctx *x, const tmc_record *r);
/* What was handed on so far, published to the thread (no wait). */
void tm_rec_async_flush(tm_rec_ctx *x);
/* Waits until the thread took everything handed on: 0, or 1 if the model
 * failed (as above).  Without a thread: 0. */
int tm_rec_async_sync(tm_rec_ctx *x);
/* Everything handed on into the model, the thread joined, X->as NULL: 0,
 * or 1 if the model failed (its line in X->err, X->failed, unless X
 * failed already).  Without a thread: 0. */
int tm_rec_async_stop(tm_rec_ctx *x);

#endif
