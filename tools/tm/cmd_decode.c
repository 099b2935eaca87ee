/* tm decode — list the messages of a trace, or replay and verify it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "decode.h"
#include "tm/decodeio.h"
#include "tm/msg.h"
#include "tm/tmt.h"

/* A --verify that failed with RC: the divergence (MISMATCH on stdout, and
 * unless QUIET the files on stderr) or the error.  Returns exit status 1. */
int decode_verify_failed(int rc, const char *err, int quiet, int frombin, const char *tmt, const char *tmc)
{
    if (rc != TM_ERR_MISMATCH) {
        tm_err("decode", "%s", err);
        return 1;
    }
    printf("MISMATCH: %s\n", err);
    if (!quiet)
        fprintf(stderr, "tm decode: replay of %s%s diverges from %s\n", tmt, frombin ? " from the binaries" : "", tmc);
    return 1;
}

void decode_usage(FILE *f)
{
    fprintf(f,
            "usage: tm decode F.tmt [--tmc F.tmc]    list the trace's messages (a trace with load\n"
            "                                        values needs the commit stream for their sizes)\n"
            "       tm decode --verify F.tmc F.tmt   replay the trace and compare it with the commit stream\n"
            "       tm decode --from-binary [OPTIONS] BASE.tmt\n"
            "                                        replay every thread from the program binaries (the module\n"
            "                                        map BASE.modules and the ELF files it names) and print it\n"
            "       tm decode --from-binary --verify BASE.tmc BASE.tmt\n"
            "                                        the same, compared with the commit stream\n"
            "  -q, --quiet   with --verify: print only the verdict line\n"
            "from-binary options:\n"
            "  --insns          the instruction flow, one address per line (the default)\n"
            "  --branches       the branches: pc, class, taken (T) or not (N), next pc\n"
            "  --functions      instructions per function (ELF symbol tables), per thread\n"
            "  --summary        counts only\n"
            "  -s, --symbols    symbol+offset of each address;  -d, --disasm   disassembly (Intel syntax)\n"
            "  -o, --binary F   also write the compact binary form to F (docs/spec.md section 6.1)\n"
            "  --modules F      the module map (default BASE.modules);  --vdso F  (default BASE.vdso if it exists)\n"
            "  --tmc F          the commit stream, for the sizes of load values (traces with --cfiat/--data)\n"
            "  --ignore-build-id  replay files whose GNU build-id differs from the recording's\n"
            "  --max-run N      give up after N instructions without a message (K/M/G suffixes; default\n"
            "                   65536 per cycle of the trace, at most 2^32; a thread never replays more\n"
            "                   instructions than the trace's trailer says it retired)\n"
            "Exit status with --verify: 0 if every thread's execution matches, 1 on the first divergence.\n"
            "Without --verify, --from-binary exits 1 if the trace did not fit the code anywhere (each error is\n"
            "reported with its trace bit offset, and the thread resumes at its next synchronization).\n");
}

static void progress(uint64_t records, void *arg)
{
    time_t *last = arg;
    time_t now = time(NULL);
    if (now - *last >= 5) {
        fprintf(stderr, "tm decode: %" PRIu64 "M records\n", records >> 20);
        *last = now;
    }
}

/* tm decode F.tmt [--tmc F.tmc]: the exit status. */
static int list_messages(const char *path, const tmt_file *tf, const char *tmc)
{
    char err[2048];
    int out_errno, rc = tm_list_messages(stdout, path, tf, tmc, &out_errno, err, sizeof err);
    if (rc == TM_ERR_ARG)
        return tm_usage("decode", "%s", err), 2;
    if (rc == TM_ERR_IO && tm_stdout_failed())
        tm_stdout_errno(out_errno); /* a full disk or a reader gone: tm_finish_stdout says which */
    else if (rc != TM_OK)
        return tm_err("decode", "%s", err), 1;
    return 0;
}

int cmd_decode(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--from-binary"))
            return decode_from_binary(argc, argv);
    struct decode_args {
        int verify, quiet;
        const char *tmc;
    } D = {0, 0, NULL};
    static const tm_optdef decode_opts[] = {
        {"--verify", NULL, TM_OPT_FLAG, offsetof(struct decode_args, verify), 0, NULL},
        {"--quiet", "-q", TM_OPT_FLAG, offsetof(struct decode_args, quiet), 0, NULL},
        {"--tmc", NULL, TM_OPT_VALUE, offsetof(struct decode_args, tmc), 0, "the commit stream F.tmc"}, {NULL, NULL, 0, 0, 0, NULL}};
    const char *files[2], *v;
    int nf = 0, pr;
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t = {decode_opts, &D};
    const tm_optdef *hit;
    char perr[256];
    while ((pr = tm_opt_next(&p, &t, 1, &hit, &v, perr, sizeof perr)) > 0) {
        if (pr == TM_OPT_HELP)
            return decode_usage(stdout), 0;
        if (pr == TM_OPT_OPERAND && nf >= 2)
            return tm_usage("decode", "too many arguments"), 2;
        if (pr == TM_OPT_OPERAND)
            files[nf++] = v;
    }
    if (pr < 0)
        return tm_usage("decode", "%s", perr), 2;
    int verify = D.verify, quiet = D.quiet;
    const char *tmc = D.tmc;
    if ((verify && nf != 2) || (!verify && nf != 1)) {
        tm_usage("decode", verify ? "--verify needs the commit stream and the trace: tm decode --verify F.tmc F.tmt"
                                : "expected one trace file: tm decode F.tmt");
        return 2;
    }
    const char *tmt_path = verify ? files[1] : files[0];
    tmt_file tf;
    char err[1024];
    if (tmt_read(tmt_path, &tf, err, sizeof err) != TM_OK) {
        tm_err("decode", "%s", err);
        return 1;
    }
    int status;
    if (!verify) {
        status = list_messages(tmt_path, &tf, tmc);
    } else {
        tm_verify_result res;
        time_t last = time(NULL);
        int rc = tm_verify(files[0], &tf, &res, progress, &last, err, sizeof err); /* and the file checks */
        if (rc == TM_OK) {
            tm_verify_print_ok(stdout, &tf, &res);
            status = 0;
        } else {
            status = decode_verify_failed(rc, err, quiet, 0, tmt_path, files[0]);
        }
    }
    tmt_free(&tf);
    return status;
}
