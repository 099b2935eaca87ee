/* tm std — the recording's ISA's own trace standard beside the trace
 * module on the same execution, in one pass: Intel PT (x86-64), ARM ETMv4
 * (AArch64), RISC-V E-Trace (RV64), each variant verified by its decoder
 * (tm/std.h, docs/standards.md). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cmd.h"
#include "tm/opt.h"
#include "tm/std.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm std [options] IN.tmc [-o BASE]\n"
            "\n"
            "The trace standard of IN.tmc's instruction set, written from the same execution in one pass\n"
            "beside the trace module (docs/standards.md):\n"
            "  x86-64   Intel PT (libipt): without timing packets, +TSC/MTC, +TSC/MTC/CYC\n"
            "  AArch64  ARM ETMv4 (checked by OpenCSD): plain, with the return stack, ...\n"
            "  RV64     RISC-V E-Trace: every combination of implicit return, branch prediction and\n"
            "           the jump target cache\n"
            "and the trace module with a buffer and port that drop nothing: nx_b, tr_b, tr_e, tr_a with\n"
            "the presets small, medium, large, and tr_e, tr_a with tage-s, tage-m, tage-l.  A table of\n"
            "bits per instruction and per cycle, the ratio to the standard's first variant, and the\n"
            "predictor and cache state each needs.\n"
            "\n"
            "  -o BASE              the first variant's packets: BASE.T<n>.pt|etm|ete, one per core\n"
            "  --verify             decode every variant over the module map's ELF files and compare\n"
            "                       it with IN.tmc, instruction by instruction\n"
            "  --no-models          the standard's rows only\n"
            "  --models LIST        only these rows of the trace module, comma-separated (nx_b,\n"
            "                       tr_b-small .. tr_a-large, tage-s+tr_e .. tage-l+tr_a; default all)\n"
            "  --modules FILE       the recording's module map (default IN.modules, IN without .tmc)\n"
            "  --vdso FILE          the recorded vdso bytes (default IN.vdso if it exists)\n"
            "  --ignore-build-id    use files whose GNU build-id differs from the map's\n"
            "  --stats FILE         the rows as JSON\n"
            "  -q, --quiet          no table on stdout\n"
            "Exit status: 0 ok; 1 a runtime error or, with --verify, a mismatch; 2 usage.\n");
}

typedef struct std_args {
    const char *in, *base, *modules, *vdso, *stats, *rows;
    int verify, no_models, ignore_id, quiet;
} std_args;

#define V(name, alias, f) {name, alias, TM_OPT_VALUE, offsetof(std_args, f), 0, NULL}
#define F(name, alias, f) {name, alias, TM_OPT_FLAG, offsetof(std_args, f), 0, NULL}
static const tm_optdef std_opts[] = {
    V("-o", NULL, base),           V("--modules", NULL, modules),         V("--vdso", NULL, vdso),
    V("--stats", NULL, stats),     V("--models", NULL, rows),             F("--verify", NULL, verify),           F("--no-models", NULL, no_models),
    F("--ignore-build-id", NULL, ignore_id), F("--quiet", "-q", quiet), {NULL, NULL, 0, 0, 0, NULL}};
#undef V
#undef F

/* 0, 1 (--help printed) or 2 after a usage error. */
static int std_parse(int argc, char **argv, std_args *A)
{
    memset(A, 0, sizeof *A);
    const char *pos[1] = {NULL};
    int npos = tm_cmd_options("std", argc, argv, std_opts, A, pos, 1, usage);
    if (npos < 0)
        return npos == -1 ? 1 : 2;
    if (!npos)
        return tm_usage("std", "needs IN.tmc"), 2;
    A->in = pos[0];
    if (A->rows && A->no_models)
        return tm_usage("std", "--models and --no-models do not go together"), 2;
    return 0;
}

static void progress(uint64_t records, void *arg)
{
    time_t *last = arg;
    time_t now = time(NULL);
    if (now - *last >= 5) {
        fprintf(stderr, "tm std: %" PRIu64 "M records read (the stream, then again for each variant verified)\n",
                records >> 20);
        *last = now;
    }
}

int cmd_std(int argc, char **argv)
{
    std_args A;
    int pr = std_parse(argc, argv, &A);
    if (pr)
        return pr == 1 ? 0 : pr;
    if (strcmp(A.in, "-") && access(A.in, R_OK) != 0)
        return tm_err("std", "%s: %s", A.in, strerror(errno)), 1;
    if (!strcmp(A.in, "-"))
        return tm_usage("std", "IN.tmc must be a file (it is read more than once)"), 2;
    tm_out ost;
    memset(&ost, 0, sizeof ost);
    const char *inputs[] = {A.in, NULL};
    int rc;
    if (A.stats && (rc = tm_out_begin("std", &ost, A.stats, inputs)) != 0)
        return rc == -2 ? 2 : 1;
    time_t last = time(NULL);
    tm_std_opts o = {A.in, A.base, A.modules, A.vdso, A.ignore_id, A.verify, !A.no_models, progress, &last, A.rows};
    tm_std_result res;
    char err[2048];
    int status = 0;
    rc = tm_std_pass(&o, &res, err, sizeof err);
    if (rc != TM_OK && rc != TM_ERR_MISMATCH) {
        if (rc == TM_ERR_ARG)
            tm_usage("std", "%s", err);
        else
            tm_err("std", "%s", err);
        status = rc == TM_ERR_ARG ? 2 : 1;
    } else {
        if (rc == TM_ERR_MISMATCH)
            tm_err("std", "--verify: %s", err), status = 1;
        if (!A.quiet && !status) {
            tm_std_report_text(stdout, &res, A.in);
            if (A.verify)
                printf("verify: ok, %zu variants of %s decoded match %s (%" PRIu64 " instructions each)\n",
                       res.nstd, res.standard, A.in, res.nstd ? res.checked / res.nstd : 0);
        }
        if (A.stats && !status) {
            FILE *f = fopen(ost.tmp, "we");
            if (f)
                tm_std_report_json(f, &res, A.in);
            if (!f || ferror(f) | (fclose(f) != 0))
                tm_err("std", "%s: %s", A.stats, strerror(errno)), status = 1;
            else if (tm_out_commit("std", &ost) != 0)
                status = 1;
        }
    }
    if (ost.active)
        tm_out_abort(&ost);
    tm_std_result_free(&res);
    return tm_finish_stdout("std", status);
}
