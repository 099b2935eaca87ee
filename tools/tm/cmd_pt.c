/* tm pt — Intel PT on the same execution: encode a commit stream into one
 * raw PT buffer per core with libipt's encoder, decode them with libipt's
 * decoder and compare with the commit stream, and compare the bits with
 * the trace module's encodings in the same pass (tm/pt.h, docs/pt.md). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "modelopts.h"
#include "tm/model.h"
#include "tm/msg.h"
#include "tm/pt.h"
#include "tm/ptfile.h"
#include "tm/ptopts.h"
#include "tm/sweep.h"
#include "tm/tmc.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm pt [options] IN.tmc -o BASE      encode: BASE.T<n>.pt per core that ran\n"
            "       tm pt --check [options] IN.tmc BASE  decode BASE.T<n>.pt and compare with IN.tmc\n"
            "       tm pt --decode [--block] [options] BASE   decode BASE.T<n>.pt (instructions, speed)\n"
            "\n"
            "The Intel Processor Trace each core would have written for the execution of IN.tmc\n"
            "(user-only tracing, as perf's intel_pt//u), written with libipt's encoder (docs/pt.md).\n"
            "\n"
            "  -o BASE              the outputs BASE.T<n>.pt (one raw PT buffer per core)\n"
            "  --psb-period BYTES   PSB+ every BYTES of a core's output (K, M; 256..1G; default 4K)\n"
            "  --tnt short|long     TNT packets: short (6 branches a byte, the default) or long\n"
            "                       (up to 47 branches in 8 bytes)\n"
            "  --no-retcomp         no return compression: every return is a TIP\n"
            "  --timing LIST        timing packets: tsc, mtc, cyc (comma-separated), all or none\n"
            "                       (default none); cycles are the commit stream's\n"
            "  --mtc-period K       MTC every 2^K cycles (1..24, default 8)\n"
            "  --modules FILE       the recording's module map (default IN.modules, IN without .tmc)\n"
            "  --vdso FILE          the recorded vdso bytes (default IN.vdso if it exists)\n"
            "  --ignore-build-id    use files whose GNU build-id differs from the map's\n"
            "  --no-image           encode without the module map (streams without code, tm gen's):\n"
            "                       system calls inside runs are then not seen\n"
            "  --verify             after writing, decode every BASE.T<n>.pt with libipt over the\n"
            "                       module map's ELF files and compare with IN.tmc, instruction by\n"
            "                       instruction\n"
            "  --compare            in the same pass: PT with all timing packets (or without, with\n"
            "                       --timing), and the trace module (large predictors, a buffer and\n"
            "                       port that drop nothing) with each encoding (nx_b, tr_b, tr_e,\n"
            "                       tr_a: tm config --list-encodings), each without and with time\n"
            "                       stamps (ENC+ts); a table of bits per instruction and cycle\n"
            "  --timing-variants    in the same pass: PT without timing, with TSC+MTC and with\n"
            "                       TSC+MTC+CYC (the PT rows of --compare, without the models)\n"
            "  --stats FILE         statistics as JSON\n"
            "  --block              --decode: libipt's block decoder (default: instruction decoder)\n"
            "  -q, --quiet          no text report on stdout\n"
            "Exit status: 0 ok; 1 a runtime error or, with --verify/--check, a mismatch; 2 usage.\n");
}

static void progress(uint64_t records, void *arg)
{
    time_t *last = arg;
    time_t now = time(NULL);
    if (now - *last >= 5) {
        fprintf(stderr, "tm pt: %" PRIu64 "M records\n", records >> 20);
        *last = now;
    }
}

/* tm pt's options. */
typedef struct pt_args {
    const char *in, *base, *modules, *vdso, *stats;
    const char *psb, *tnt, *timing, *mtc;
    int verify, check, decode, block, quiet, no_image, ignore_id, compare, variants, no_retcomp;
} pt_args;

#define V(name, alias, f) {name, alias, TM_OPT_VALUE, offsetof(pt_args, f), 0, NULL}
#define F(name, alias, f) {name, alias, TM_OPT_FLAG, offsetof(pt_args, f), 0, NULL}
static const tm_optdef pt_opts[] = {
    V("-o", NULL, base),         V("--psb-period", NULL, psb), V("--tnt", NULL, tnt),
    V("--timing", NULL, timing), V("--mtc-period", NULL, mtc), V("--modules", NULL, modules),
    V("--vdso", NULL, vdso),     V("--stats", NULL, stats),    F("--no-retcomp", NULL, no_retcomp),
    F("--no-image", NULL, no_image), F("--ignore-build-id", NULL, ignore_id), F("--verify", NULL, verify),
    F("--check", NULL, check),   F("--decode", NULL, decode),  F("--block", NULL, block),
    F("--compare", NULL, compare), F("--timing-variants", NULL, variants), F("--quiet", "-q", quiet),
    {NULL, NULL, 0, 0, 0, NULL}};
#undef V
#undef F

/* The command line into A and the encoder's options PO: 0, 1 (--help
 * printed), or 2 after a usage error. */
static int pt_parse(int argc, char **argv, pt_args *A, tm_pt_opts *po)
{
    const char *pos[2] = {NULL, NULL};
    int npos;
    memset(A, 0, sizeof *A);
    if ((npos = tm_cmd_options("pt", argc, argv, pt_opts, A, pos, 2, usage)) < 0)
        return npos == -1 ? 1 : 2;
    char msg[2048];
    if (tm_pt_opts_parse(po, A->psb, A->tnt, A->timing, A->mtc, msg, sizeof msg) != TM_OK)
        return tm_usage("pt", "%s", msg), 2;
    po->no_retcomp = A->no_retcomp;
    if (A->check + A->decode > 1 ||
        ((A->check || A->decode) && (A->verify || A->compare || A->variants || A->base || A->stats)))
        return tm_usage("pt", "--check and --decode take no -o, --verify, --compare, --timing-variants or --stats, "
                              "and not each other"), 2;
    if (A->block && !A->decode)
        return tm_usage("pt", "--block goes with --decode"), 2;
    if (A->decode ? npos != 1 : A->check ? npos != 2 : (npos != 1 || !A->base))
        return tm_usage("pt", A->decode ? "--decode needs BASE" : A->check ? "--check needs IN.tmc and BASE"
                                                                           : "needs IN.tmc and -o BASE"), 2;
    A->in = A->decode ? NULL : pos[0];
    if (A->check)
        A->base = pos[1];
    if (A->decode)
        A->base = pos[0];
    if (A->no_image && (A->verify || A->check || A->decode || A->modules || A->vdso))
        return tm_usage("pt", "--no-image: there is no code to decode with (no --verify, --check, --decode, "
                              "--modules, --vdso)"), 2;
    return 0;
}

/* The module map's image (IM NULL with --no-image): 0, or the exit status
 * after one line. */
static int pt_image(const pt_args *A, tm_pt_image **im)
{
    char err[1024];
    *im = NULL;
    if (A->no_image)
        return 0;
    int rc = tm_pt_image_beside(A->in ? A->in : A->base, A->modules, A->vdso, A->ignore_id, im, err, sizeof err);
    if (rc != TM_OK)
        return tm_err("pt", "%s", err), rc == TM_ERR_ARG ? 2 : 1;
    return 0;
}

/* tm pt --decode BASE, tm pt --check IN.tmc BASE: the exit status. */
static int pt_decode(const pt_args *A, tm_pt_image *im)
{
    char err[1024];
    tm_pt_decode_result dres;
    double s;
    int decoding;
    time_t last = time(NULL);
    if (tm_pt_decode_files(im, A->base, 0, 0, A->check ? A->in : NULL, A->block, progress, &last, &dres, &s,
                           &decoding, err, sizeof err) != TM_OK)
        return tm_err("pt", "%s", err), tm_finish_stdout("pt", 1);
    if (!A->quiet && A->decode)
        printf("decoded %" PRIu64 " instructions on %" PRIu64 " cores with libipt's %s decoder in %.3f s"
               " (%.1f M instructions/s)\n",
               dres.instructions, dres.threads, A->block ? "block" : "instruction", s,
               s > 0 ? (double)dres.instructions / s / 1e6 : 0.0);
    else if (!A->quiet)
        printf("verify: ok, %" PRIu64 " instructions of %" PRIu64 " cores decoded by libipt match %s\n",
               dres.checked, dres.threads, A->in);
    return tm_finish_stdout("pt", 0);
}

/* --verify: the outputs just written decoded and compared with IN.tmc; 0,
 * or 1 after one line. */
static int pt_verify(const pt_args *A, const tm_pt_image *im, uint32_t threads, tm_pt_decode_result *dres,
                     time_t *last)
{
    char err[1024];
    double s;
    int decoding;
    if (tm_pt_decode_files(im, A->base, threads, 1, A->in, 0, progress, last, dres, &s, &decoding, err,
                           sizeof err) != TM_OK)
        return tm_err("pt", "%s%s", decoding ? "--verify: " : "", err), 1;
    return 0;
}

/* The encoding pass over A->in into BASE.T<n>.pt (and the statistics):
 * the exit status. */
static int pt_encode(const pt_args *A, tm_pt_opts *po, const tm_pt_image *im, uint32_t threads)
{
    char err[1024];
    tm_pt_decode_result dres;
    memset(&dres, 0, sizeof dres);
    tm_out ost;
    memset(&ost, 0, sizeof ost);
    const char *inputs[] = {A->in, NULL};
    tm_pt_pass_result res;
    memset(&res, 0, sizeof res);
    time_t last = time(NULL);
    int rc, status = 0;
    if (A->stats && (rc = tm_out_begin("pt", &ost, A->stats, inputs)) != 0)
        return rc == -2 ? 2 : 1; /* the output is the input: a usage error */
    if (im) {
        po->code = tm_pt_image_code;
        po->code_arg = (void *)im;
    }
    tm_pt_pass_opts pass = {A->in, *po, A->compare, A->variants, progress, &last};
    if ((rc = tm_pt_encode_files(&pass, A->base, threads, &res, err, sizeof err)) != TM_OK) {
        if (rc == TM_ERR_ARG)
            tm_usage("pt", "%s", err);
        else if (err[0])
            tm_err("pt", "%s", err);
        status = 1;
    } else {
        if (A->verify && pt_verify(A, im, threads, &dres, &last))
            status = 1;
        if (!A->quiet) {
            tm_pt_report_text(stdout, &res, po);
            if (A->verify && status == 0)
                printf("verify: ok, %" PRIu64 " instructions of %" PRIu64 " cores decoded by libipt match %s\n",
                       dres.checked, dres.threads, A->in);
        }
        if (A->stats && tm_pt_stats_write(&ost, A->stats, &res, po, A->in, im != NULL, A->verify ? &dres : NULL,
                                          status == 0, err, sizeof err) != TM_OK) {
            tm_err("pt", "%s", err);
            status = 1;
        }
    }
    if (ost.active)
        tm_out_abort(&ost);
    tm_pt_pass_result_free(&res);
    return status;
}

int cmd_pt(int argc, char **argv)
{
    pt_args A;
    tm_pt_opts po;
    int pr = pt_parse(argc, argv, &A, &po);
    if (pr)
        return pr == 1 ? 0 : pr;
    if (A.in && strcmp(A.in, "-") && access(A.in, R_OK) != 0) {
        tm_err("pt", "%s: %s", A.in, strerror(errno));
        return 1;
    }
    tm_pt_image *im = NULL;
    if ((pr = pt_image(&A, &im)) != 0)
        return pr;
    if (A.decode || A.check) {
        pr = pt_decode(&A, im);
        tm_pt_image_free(im);
        return pr;
    }
    char err[1024];
    tmc_reader *r = NULL;
    if (tmc_reader_open(A.in, &r, err, sizeof err) != TM_OK) {
        tm_err("pt", "%s", err);
        tm_pt_image_free(im);
        return 1;
    }
    uint32_t threads = tmc_reader_threads(r);
    tmc_reader_close(r);
    char msg[2048];
    if (tm_pt_outputs_check(A.base, threads, A.in, A.stats, msg, sizeof msg) != TM_OK) {
        tm_usage("pt", "%s", msg);
        tm_pt_image_free(im);
        return 2;
    }
    int status = pt_encode(&A, &po, im, threads);
    tm_pt_image_free(im);
    return tm_finish_stdout("pt", status);
}
