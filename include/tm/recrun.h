/* tm record's run as a whole (record/run.c, record/frontend.c): given the
 * run's description, filled in from the command line (the configurations,
 * the capture's options, the frontend or --capture's stream), it checks
 * the frontend, the program and the stream, opens the outputs, makes the
 * models and the capture, starts the frontend (or reads the stream), feeds
 * the capture to the models as it arrives, writes the outputs and gives
 * the exit status: 0, the program's, 1 (an error), 2 (a usage error), or
 * 128 + the signal that stopped the recording (docs/guide.md).  Its lines
 * go through the description's sink (SAY, one line each, no prefix and no
 * newline); the library prints nothing. */
#ifndef TM_RECRUN_H
#define TM_RECRUN_H

#include <stddef.h>
#include <stdint.h>
#include "tm/record.h"

/* --model-thread: the model on a thread of its own (record/asyncmodel.c)
 * where it pays (AUTO), always, or never; only where the models are the
 * only consumers. */
enum { TM_REC_MT_AUTO = 0, TM_REC_MT_YES, TM_REC_MT_NO };

typedef struct tm_rec_run {
    const char *base;          /* -o BASE; NULL with --mode: the descriptor file's name */
    tm_rec_conf *conf;         /* the K configurations: base, profile, cfg (j >= 1) filled in */
    size_t k;
    tm_model_cfg cfg;          /* the first configuration's model */
    tm_recmode_cfg mc;         /* --mode's descriptors (size_limit: theirs) */
    uint64_t trace_limit;      /* -f without --mode: the trace's limit in bytes (0: none) */
    uint32_t threads;          /* --threads N; 0: auto (the models fed after the program) */
    uint64_t window;           /* --profile-window */
    uint64_t skip, length;     /* -s, -l */
    int main_only;             /* --no-shared-libs */
    const char *rtn;           /* --filter-rtn */
    int commit;                /* --commit */
    const tm_timing_cfg *timing; /* the timing model; NULL: serial */
    int no_caches;             /* --no-caches */
    const char *capture;       /* --capture FILE ("-": standard input): no frontend */
    int model_thread;          /* --model-thread: TM_REC_MT_* (0: auto) */
    int pin;                   /* --frontend pin */
    int qemu;                  /* --frontend qemu (AArch64, RISC-V programs; docs/qemu.md) */
    const char *qemu_opt;      /* --qemu, or NULL (qemu-aarch64 / qemu-riscv64 on PATH) */
    const char *valgrind;      /* --valgrind (default "valgrind") */
    const char *pin_opt;       /* --pin, or NULL */
    char **prog;               /* the program and its arguments (not with --capture) */
    int nprog;
    int catch_signals;         /* 1: INT, QUIT, TERM, HUP (those not ignored) end the
                                  recording, SIGCHLD wakes its loop: handlers are
                                  installed for the rest of the process */
    /* the caller's part, with ARG: */
    void *arg;
    /* a line to say; USAGE: a usage error */
    void (*say)(void *arg, int usage, const char *line);
    /* --threads auto, after the program: configuration J's model for N
     * cores into *CFG; nonzero after the caller's own lines */
    int (*cfg_at)(void *arg, size_t j, uint32_t n, tm_model_cfg *cfg);
    /* --demand (NULL: none): configuration J's model M dropped nothing, 0;
     * nonzero after the caller's own line */
    int (*demand_check)(void *arg, size_t j, const tm_model *m, const tm_model_cfg *cfg, const char *base);
    /* progress (NULL: none): every 2 s or more while the capture arrives,
     * the instructions so far and the seconds; once after the run with
     * SECONDS -1 (end the line) */
    void (*progress)(void *arg, uint64_t instructions, long seconds);
    /* in the frontend's child before exec (NULL: nothing): e.g. the signal
     * dispositions the process started with put back */
    void (*child_setup)(void *arg);
} tm_rec_run;

/* Runs the recording R describes (R's configurations are used, and its
 * description is not kept): the exit status. */
int tm_rec_record(tm_rec_run *r);

/* Two configurations writing one file: the same BASE, or a profile named
 * like another output.  TM_OK, or TM_ERR_ARG with the message. */
int tm_rec_check_collisions(const tm_rec_conf *conf, size_t k, char *err, size_t errlen);

#endif
