/* tm etm4 — ARM ETMv4 on the same execution: encode an AArch64 commit
 * stream into one raw ETMv4 stream per core, decode them with OpenCSD and
 * compare with the commit stream, and compare the bits with the trace
 * module's in the same pass (tm/etm4.h, docs/standards.md §3). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "tm/etm4.h"
#include "tm/isa.h"
#include "tm/stdcmp.h"
#include "tm/opt.h"
#include "tm/tmc.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm etm4 [options] IN.tmc -o BASE      encode: BASE.T<n>.etm per core that ran\n"
            "       tm etm4 --check [options] IN.tmc BASE  decode BASE.T<n>.etm with OpenCSD, compare with IN.tmc\n"
            "\n"
            "The ARM ETMv4 instruction trace each core's trace unit would have written for the\n"
            "execution of IN.tmc (an AArch64 recording; user-only tracing, as perf's cs_etm//u):\n"
            "one raw ETMv4 stream per core, no formatter frames (docs/standards.md §3).\n"
            "\n"
            "  -o BASE              the outputs BASE.T<n>.etm\n"
            "  --return-stack       TRCCONFIGR.RS: returns the return stack predicts carry no address\n"
            "  --timestamps         TRCCONFIGR.TS: timestamps (the commit stream's cycles) at each\n"
            "                       sync and trace on\n"
            "  --cycle-counts       TRCCONFIGR.CCI: cycle counts after atom and exception packets\n"
            "                       (threshold 4)\n"
            "  --sync-period BYTES  A-sync + Trace Info every BYTES of a core's stream (K, M; 64..1G;\n"
            "                       default 4K)\n"
            "  --modules FILE       the recording's module map (default IN.modules, IN without .tmc)\n"
            "  --vdso FILE          the recorded vdso bytes (default IN.vdso if it exists)\n"
            "  --ignore-build-id    use files whose GNU build-id differs from the map's\n"
            "  --verify             after writing, decode every BASE.T<n>.etm with OpenCSD over the\n"
            "                       module map's ELF files and compare with IN.tmc, instruction by\n"
            "                       instruction\n"
            "  --compare            in the same pass: ETMv4 plain, +rs, +rs+ts, +rs+ts+cc and the\n"
            "                       trace module's configurations (tm/stdcmp.h); a table of bits\n"
            "  --stats FILE         statistics as JSON\n"
            "  -q, --quiet          no text report on stdout\n"
            "--check takes the options the streams were written with (--return-stack, ...).\n"
            "Exit status: 0 ok; 1 a runtime error or, with --verify/--check, a mismatch; 2 usage\n"
            "(also: a stream that is not AArch64's).\n");
}

typedef struct e4_args {
    const char *in, *base, *modules, *vdso, *stats, *sync;
    int verify, check, quiet, ignore_id, compare, rs, ts, cc;
} e4_args;

#define V(name, alias, f) {name, alias, TM_OPT_VALUE, offsetof(e4_args, f), 0, NULL}
#define F(name, alias, f) {name, alias, TM_OPT_FLAG, offsetof(e4_args, f), 0, NULL}
static const tm_optdef e4_opts[] = {
    V("-o", NULL, base), V("--sync-period", NULL, sync), V("--modules", NULL, modules), V("--vdso", NULL, vdso),
    V("--stats", NULL, stats), F("--return-stack", NULL, rs), F("--timestamps", NULL, ts),
    F("--cycle-counts", NULL, cc), F("--ignore-build-id", NULL, ignore_id), F("--verify", NULL, verify),
    F("--check", NULL, check), F("--compare", NULL, compare), F("--quiet", "-q", quiet),
    {NULL, NULL, 0, 0, 0, NULL}};
#undef V
#undef F

static int e4_parse(int argc, char **argv, e4_args *A, tm_etm4_opts *eo)
{
    const char *pos[2] = {NULL, NULL};
    int npos;
    memset(A, 0, sizeof *A);
    memset(eo, 0, sizeof *eo);
    if ((npos = tm_cmd_options("etm4", argc, argv, e4_opts, A, pos, 2, usage)) < 0)
        return npos == -1 ? 1 : 2;
    eo->sync_period = 4096;
    if (A->sync && (tm_parse_size(A->sync, &eo->sync_period) || eo->sync_period < 64 ||
                    eo->sync_period > (1u << 30)))
        return tm_usage("etm4", "--sync-period %s: allowed 64 .. 1G bytes (K, M)", A->sync), 2;
    eo->return_stack = A->rs;
    eo->timestamps = A->ts;
    eo->cycle_counts = A->cc;
    if (A->check && (A->verify || A->compare || A->base || A->stats))
        return tm_usage("etm4", "--check takes no -o, --verify, --compare or --stats"), 2;
    if (A->check ? npos != 2 : (npos != 1 || !A->base))
        return tm_usage("etm4", A->check ? "--check needs IN.tmc and BASE" : "needs IN.tmc and -o BASE"), 2;
    A->in = pos[0];
    if (A->check)
        A->base = pos[1];
    return 0;
}

static void print_ok(const e4_args *A, const tm_etm4_decode_result *d)
{
    printf("verify: ok, %" PRIu64 " instructions of %" PRIu64 " cores decoded by OpenCSD match %s", d->checked,
           d->threads, A->in);
    if (d->untraced)
        printf(" (%" PRIu64 " more after a core's last P0 element, which no ETMv4 element shows)", d->untraced);
    printf("\n");
}

/* The encoding pass, then --verify: the exit status. */
static int e4_encode(const e4_args *A, tm_etm4_opts *eo, tm_etm4_image *im)
{
    char err[1024];
    tm_out ost;
    memset(&ost, 0, sizeof ost);
    const char *inputs[] = {A->in, NULL};
    int rc, status = 0;
    if (A->stats && (rc = tm_out_begin("etm4", &ost, A->stats, inputs)) != 0)
        return rc == -2 ? 2 : 1;
    eo->code = tm_etm4_image_code;
    eo->code_arg = im;
    tm_etm4_pass_opts po = {A->in, *eo, A->compare};
    tm_etm4_pass_result res;
    tm_etm4_decode_result d;
    memset(&d, 0, sizeof d);
    if ((rc = tm_etm4_encode_files(&po, A->base, &res, err, sizeof err)) != TM_OK) {
        tm_err("etm4", "%s", err);
        status = rc == TM_ERR_ARG ? 2 : 1;
    } else {
        if (A->verify &&
            tm_etm4_verify_files(im, A->base, tm_etm4_configr(eo), A->in, &d, err, sizeof err) != TM_OK) {
            tm_err("etm4", "--verify: %s", err);
            status = 1;
        }
        /* the --compare row of the options written, now checked */
        int row = !eo->timestamps && !eo->cycle_counts ? (eo->return_stack ? 1 : 0)
                  : eo->return_stack && eo->timestamps ? (eo->cycle_counts ? 3 : 2)
                                                       : -1;
        if (A->verify && row >= 0 && (size_t)row < res.nrows)
            res.rows[row].verified = status == 0;
        if (!A->quiet) {
            tm_etm4_report_text(stdout, &res, eo);
            if (A->verify && !status)
                print_ok(A, &d);
        }
        if (A->stats) {
            FILE *f = fopen(ost.tmp, "we");
            if (f) {
                tm_etm4_report_json(f, &res, eo, A->in, A->verify ? &d : NULL, status == 0);
                if (fclose(f) != 0)
                    f = NULL;
            }
            if (!f) {
                tm_err("etm4", "%s: %s", A->stats, strerror(errno));
                status = 1;
            } else if (tm_out_commit("etm4", &ost) != 0) {
                status = 1;
            }
        }
    }
    if (ost.active)
        tm_out_abort(&ost);
    tm_etm4_pass_result_free(&res);
    return status;
}

int cmd_etm4(int argc, char **argv)
{
    e4_args A;
    tm_etm4_opts eo;
    int pr = e4_parse(argc, argv, &A, &eo);
    if (pr)
        return pr == 1 ? 0 : pr;
    if (strcmp(A.in, "-") && access(A.in, R_OK) != 0) {
        tm_err("etm4", "%s: %s", A.in, strerror(errno));
        return 1;
    }
    char err[1024];
    tmc_reader *r = NULL;
    if (tmc_reader_open(A.in, &r, err, sizeof err) != TM_OK) {
        tm_err("etm4", "%s", err);
        return 1;
    }
    uint32_t threads = tmc_reader_threads(r);
    int isa = tmc_reader_isa(r);
    tmc_reader_close(r);
    if (isa != TM_ISA_AARCH64) {
        tm_err("etm4", "%s: the commit stream is of a program for %s: ETMv4 here traces AArch64 programs", A.in,
               tm_isa_name(isa));
        return 2;
    }
    if (!A.check && tm_etm4_outputs_check(A.base, threads, A.in, A.stats, err, sizeof err) != TM_OK) {
        tm_usage("etm4", "%s", err);
        return 2;
    }
    tm_etm4_image *im = NULL;
    int rc = tm_etm4_image_beside(A.in, A.modules, A.vdso, A.ignore_id, &im, err, sizeof err);
    if (rc != TM_OK) {
        tm_err("etm4", "%s", err);
        return rc == TM_ERR_ARG ? 2 : 1;
    }
    int status;
    if (A.check) {
        tm_etm4_decode_result d;
        if (tm_etm4_verify_files(im, A.base, tm_etm4_configr(&eo), A.in, &d, err, sizeof err) != TM_OK) {
            tm_err("etm4", "%s", err);
            status = 1;
        } else {
            if (!A.quiet)
                print_ok(&A, &d);
            status = 0;
        }
    } else {
        status = e4_encode(&A, &eo, im);
    }
    tm_etm4_image_free(im);
    return tm_finish_stdout("etm4", status);
}
