/* tm — what tm cosim does before it hands over to the simulator
 * (cosim/cosim.c): whether the RTL can co-simulate a configuration, the
 * simulator of its RTL parameter set built when it is missing or out of
 * date, and the configuration passed to it on a pipe.  Nothing here
 * prints: a failure is a tm_status with one line in the caller's buffer;
 * the build's progress goes to the caller's NOTE callback. */
#ifndef TM_COSIM_H
#define TM_COSIM_H

#include <stddef.h>
#include <stdint.h>
#include "tm/model.h"

/* What the RTL can co-simulate of CFG (THREADS cores, the stream IN):
 * TM_OK, or TM_ERR_ARG with the reason (a usage error). */
int tm_cosim_supported(const tm_model_cfg *cfg, uint32_t threads, const char *in, char *err, size_t errlen);

/* One line of the build's progress ("building the simulator ... in DIR",
 * or in the child that runs make, "cannot run make: ..."). */
typedef void (*tm_cosim_note)(void *arg, const char *line);

/* The simulator of CFG under the repository ROOT (the folder with rtl/ and
 * testbench/): its folder ROOT/build/cosim/<RTL parameters>/ made, with
 * params.vc and params.h (rewritten only when they change), and the make
 * rule testbench/sim.mk run in a child process when the simulator is
 * missing or out of date.  Two builds of one parameter set take turns on
 * the folder's .lock: the second finds the first's simulator up to date.
 * The simulator's path into SIM: TM_OK, or TM_ERR_IO (a failed build:
 * make's own messages went to stderr). */
int tm_cosim_build(const char *root, const tm_model_cfg *cfg, char *sim, size_t simlen, tm_cosim_note note,
                   void *arg, char *err, size_t errlen);

/* What the simulator is asked for besides the commit stream IN (NULL:
 * not wanted). */
typedef struct tm_cosim_run {
    const char *in;        /* the commit stream (may begin with '-') */
    const char *wave;      /* --wave F.fst: a waveform around a mismatch */
    const char *cov;       /* --cov F: the coverage bins */
    const char *inject;    /* --inject-fault CYCLE (testing the testbench) */
    int quiet;             /* -q: the verdict line only */
} tm_cosim_run;

/* Replaces this process by the simulator SIM over R->in, with CFG as a
 * .tmt header (no trace bits) on a pipe that it reads with the library's
 * tmt reader.  Returns only on failure: TM_ERR_IO with the reason (the
 * caller flushes its own streams first). */
int tm_cosim_exec(const char *sim, const tm_model_cfg *cfg, const tm_cosim_run *r, char *err, size_t errlen);

#endif
