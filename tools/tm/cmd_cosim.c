/* tm cosim — co-simulate the RTL (rtl/) with the C model on a commit stream.
 *
 * The RTL's parameters are compile-time, so this launcher resolves the
 * configuration exactly as `tm model` does, has the library build the
 * simulator of its RTL parameter set when it is missing or out of date
 * (tm/cosim.h: BUILD/cosim/<parameters>/), and runs it with the
 * configuration as a .tmt header on a pipe.  The simulator
 * (testbench/cosim/ + testbench/glue.cpp) does the lockstep comparison. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stddef.h>
#include "cmd.h"
#include "modelopts.h"
#include "tm/opt.h"
#include "tm/model.h"
#include "tm/cosim.h"
#include "tm/manifest.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tm cosim [model options] [--wave F.fst] [--cov F] IN.tmc\n%s", model_opts_help);
    fprintf(f,
            "  --wave F.fst                  on a mismatch, write an FST waveform of the cycles around it\n"
            "  --cov F                       write the coverage bins of the run to F\n"
            "  -q                            print only the verdict line\n"
            "  --inject-fault CYCLE          (testing the testbench) corrupt the model's first message\n"
            "                                at or after CYCLE (with data tracing: its first DATA\n"
            "                                message), so that the comparison must fail\n"
            "Prints a line beginning with PASS (instructions, messages, bits, cycles) and exits 0, or the\n"
            "first mismatch field by field and exits 1.  The first run of a parameter set builds its\n"
            "simulator with Verilator (tens of seconds to a minute or two); later runs reuse it.\n"
            "Data tracing (--cfiat, --data all) is co-simulated with private caches only (not\n"
            "--cfiat-shared), and with at least as many cache sets as lines a 64-byte operand covers.\n");
}

/* The build's progress lines, as tm cosim's. */
static void cosim_note(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "tm cosim: %s\n", line);
}

/* tm cosim's command line. */
typedef struct cosim_args {
    model_opts o;
    const char *in, *wave, *covf, *inject;
    int quiet;
} cosim_args;

static const tm_optdef cosim_opts[] = {
    {"--wave", NULL, TM_OPT_VALUE, offsetof(cosim_args, wave), 0, "a file name"},
    {"--inject-fault", NULL, TM_OPT_VALUE, offsetof(cosim_args, inject), 0, "a cycle"},
    {"--cov", NULL, TM_OPT_VALUE, offsetof(cosim_args, covf), 0, "a file name"},
    {"--quiet", "-q", TM_OPT_FLAG, offsetof(cosim_args, quiet), 0, NULL}, {NULL, NULL, 0, 0, 0, NULL}};

/* The command line into C, checked as far as it can be without reading
 * the input: 0, 1 (--help printed) or 2 after a usage error. */
static int cosim_parse(int argc, char **argv, cosim_args *C)
{
    memset(C, 0, sizeof *C);
    const char *v;
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t[2] = {{model_opts_table, &C->o}, {cosim_opts, C}};
    const tm_optdef *hit;
    char perr[256];
    int pr;
    while ((pr = tm_opt_next(&p, t, 2, &hit, &v, perr, sizeof perr)) > 0) {
        if (pr == TM_OPT_HELP)
            return usage(stdout), 1;
        if (pr == TM_OPT_OPERAND && C->in)
            return tm_usage("cosim", "unexpected argument '%s': one commit stream only", v), 2;
        if (pr == TM_OPT_OPERAND)
            C->in = v;
    }
    if (pr < 0)
        return tm_usage("cosim", "%s", perr), 2;
    if (!C->in)
        return tm_usage("cosim", "no commit stream: give IN.tmc"), 2;
    tm_model_cfg cfg;
    if (model_opts_cfg("cosim", &C->o, 1, &cfg))
        return 2;
    if (!strcmp(C->in, "-"))
        return tm_usage("cosim", "the commit stream must be a file (it is read twice)"), 2;
    /* an output that is the input, or both outputs one file (issue 35) */
    const char *outs[2][2] = {{"--wave", C->wave}, {"--cov", C->covf}};
    for (int j = 0; j < 2; j++)
        if (outs[j][1] && tm_same_file(outs[j][1], C->in))
            return tm_usage("cosim", "%s %s: the output is the input %s (the same file): refused, it would destroy "
                                     "the input", outs[j][0], outs[j][1], C->in), 2;
    if (C->wave && C->covf && (!strcmp(C->wave, C->covf) || tm_same_file(C->wave, C->covf)))
        return tm_usage("cosim", "--wave and --cov name the same file %s", C->covf), 2;
    return 0;
}

int cmd_cosim(int argc, char **argv)
{
    cosim_args C;
    int rc = cosim_parse(argc, argv, &C);
    if (rc)
        return rc == 1 ? 0 : rc;
    tmc_reader *rd = NULL;
    char e[600], msg[2048];
    if (tmc_reader_open(C.in, &rd, e, sizeof e) != TM_OK) {
        tm_err("cosim", "%s", e);
        return 1;
    }
    uint32_t threads = tmc_reader_threads(rd);
    tmc_reader_close(rd);
    tm_model_cfg cfg;
    if (model_opts_cfg("cosim", &C.o, threads, &cfg))
        return 2;
    if (tm_cosim_supported(&cfg, threads, C.in, msg, sizeof msg) != TM_OK)
        return tm_usage("cosim", "%s", msg), 2;
    char root[PATH_MAX], sim[PATH_MAX + 640];
    if (tm_mf_root(root, sizeof root))
        return tm_err("cosim", "cannot find the RTL (rtl/tm_top.sv above the tm executable)"), 1;
    if (tm_cosim_build(root, &cfg, sim, sizeof sim, cosim_note, NULL, msg, sizeof msg) != TM_OK)
        return tm_err("cosim", "%s", msg), 1;
    tm_cosim_run run = {C.in, C.wave, C.covf, C.inject, C.quiet};
    fflush(stdout);
    tm_cosim_exec(sim, &cfg, &run, msg, sizeof msg);
    return tm_err("cosim", "%s", msg), 1;
}
