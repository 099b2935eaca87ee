/* tm etrace — RISC-V Efficient Trace (E-Trace 2.0) on the same execution:
 * encode a RISC-V commit stream into one te_inst stream per hart, decode it
 * over the recording's code and compare with the commit stream, every
 * combination of the efficiency extensions in one pass, and the trace
 * module's encodings beside them (tm/etrace.h, docs/standards.md §4). */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "tm/etrace.h"
#include "tm/isa.h"
#include "tm/opt.h"
#include "tm/tmc.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm etrace [options] IN.tmc -o BASE       encode: BASE.T<n>.ete per hart that ran\n"
            "       tm etrace --check [options] IN.tmc BASE  decode BASE.T<n>.ete and compare with IN.tmc\n"
            "\n"
            "The RISC-V Efficient Trace (E-Trace 2.0 branch trace, filtering to U-mode) each hart's encoder\n"
            "would send for the execution of IN.tmc (a RISC-V recording), te_inst packets with sign-based\n"
            "compression in the E-Trace encapsulation (docs/standards.md §4).\n"
            "\n"
            "  -o BASE              the outputs BASE.T<n>.ete (one stream per hart)\n"
            "  --implicit-return    returns the return-address stack predicts are not sent\n"
            "  --bp K               branch predictor of 2^K entries (1..20; 0 off, the default)\n"
            "  --jtc K              jump target cache of 2^K entries (1..16; 0 off, the default)\n"
            "  --resync BYTES       a synchronisation (format 3) after BYTES of a hart's output (64..2^30,\n"
            "                       default 4096; 0: never)\n"
            "  --verify             after writing, decode every stream over the module map's code and\n"
            "                       compare with IN.tmc, instruction by instruction\n"
            "  --variants           in the same pass: every combination of implicit return, branch\n"
            "                       prediction and jump target cache (the --bp/--jtc sizes, or 2^10 and\n"
            "                       2^6), each verified in memory; a table of bits per instruction\n"
            "  --compare            --variants beside the trace module's encodings (tm/stdcmp.h)\n"
            "  --modules FILE       the recording's module map (default IN.modules)\n"
            "  --vdso FILE          the recorded vdso bytes (default IN.vdso if it exists)\n"
            "  --stats FILE         statistics as JSON\n"
            "  -q, --quiet          no text report on stdout\n"
            "Exit status: 0 ok; 1 a runtime error or, with --verify/--check, a mismatch; 2 usage\n"
            "(and a commit stream that is not RISC-V).\n");
}

typedef struct et_args {
    const char *in, *base, *modules, *vdso, *stats, *bp, *jtc, *resync;
    int verify, check, quiet, compare, variants, ir;
} et_args;

#define V(name, alias, f) {name, alias, TM_OPT_VALUE, offsetof(et_args, f), 0, NULL}
#define F(name, alias, f) {name, alias, TM_OPT_FLAG, offsetof(et_args, f), 0, NULL}
static const tm_optdef et_optdefs[] = {
    V("-o", NULL, base),           V("--bp", NULL, bp),         V("--jtc", NULL, jtc),
    V("--modules", NULL, modules), V("--vdso", NULL, vdso),     V("--stats", NULL, stats),
    V("--resync", NULL, resync),
    F("--implicit-return", NULL, ir), F("--verify", NULL, verify), F("--check", NULL, check),
    F("--compare", NULL, compare), F("--variants", NULL, variants), F("--quiet", "-q", quiet),
    {NULL, NULL, 0, 0, 0, NULL}};
#undef V
#undef F

static int size_opt(const char *name, const char *v, unsigned max, unsigned *out)
{
    uint64_t k = 0;
    *out = 0;
    if (!v)
        return 0;
    if (tm_parse_u64(v, &k) != 0 || k > max)
        return tm_usage("etrace", "%s %s: not a number 0..%u (2^K entries)", name, v, max), 2;
    *out = (unsigned)k;
    return 0;
}

static int et_parse(int argc, char **argv, et_args *A, tm_et_opts *o)
{
    const char *pos[2] = {NULL, NULL};
    int npos;
    memset(A, 0, sizeof *A);
    memset(o, 0, sizeof *o);
    if ((npos = tm_cmd_options("etrace", argc, argv, et_optdefs, A, pos, 2, usage)) < 0)
        return npos == -1 ? 1 : 2;
    if (size_opt("--bp", A->bp, 20, &o->bp_log2) || size_opt("--jtc", A->jtc, 16, &o->jtc_log2))
        return 2;
    o->implicit_return = A->ir;
    if (A->resync) {
        uint64_t b = 0;
        if (tm_parse_u64(A->resync, &b) != 0 || (b && (b < 64 || b > (1u << 30))))
            return tm_usage("etrace", "--resync %s: not a number of bytes 64..2^30 (or 0: never)", A->resync), 2;
        o->resync = b ? (uint32_t)b : UINT32_MAX;
    }
    if (A->check && (A->verify || A->compare || A->variants || A->base || A->stats))
        return tm_usage("etrace", "--check takes no -o, --verify, --variants, --compare or --stats"), 2;
    if (A->check ? npos != 2 : (npos != 1 || !A->base))
        return tm_usage("etrace", A->check ? "--check needs IN.tmc and BASE" : "needs IN.tmc and -o BASE"), 2;
    A->in = pos[0];
    if (!strcmp(A->in, "-"))
        return tm_usage("etrace", "IN.tmc must be a file: it is read twice (to encode, then to verify) and its "
                                  "module map is beside it"), 2;
    if (A->check)
        A->base = pos[1];
    return 0;
}

/* tm etrace --check IN.tmc BASE: the exit status. */
static int et_check(const et_args *A, const tm_et_opts *o)
{
    char err[1024];
    uint64_t checked, harts;
    int rc = tm_et_check(A->in, A->base, o, &checked, &harts, err, sizeof err);
    if (rc != TM_OK) {
        tm_err("etrace", "%s", err);
        return rc == TM_ERR_ARG ? 2 : 1;
    }
    if (!A->quiet)
        printf("verify: ok, %" PRIu64 " instructions of %" PRIu64 " harts decoded match %s\n", checked, harts, A->in);
    return 0;
}

/* The statistics of RES into the output OST (renamed into place): 0, or 1
 * after one line. */
static int et_stats(const et_args *A, tm_out *ost, const tm_et_pass_result *res, const tm_et_opts *o)
{
    FILE *f = fopen(ost->tmp, "we");
    if (f)
        tm_et_report_json(f, res, o, A->in);
    if (!f || ferror(f) | (fclose(f) != 0))
        return tm_err("etrace", "%s: %s", A->stats, strerror(errno)), 1;
    return tm_out_commit("etrace", ost) != 0;
}

/* The encoding pass (with --verify, --variants, --compare): the exit status. */
static int et_encode(const et_args *A, const tm_et_opts *o)
{
    char err[1024];
    tm_out ost;
    memset(&ost, 0, sizeof ost);
    const char *inputs[] = {A->in, NULL};
    int rc, status = 0;
    if (A->stats && (rc = tm_out_begin("etrace", &ost, A->stats, inputs)) != 0)
        return rc == -2 ? 2 : 1;
    tm_et_pass_opts po;
    memset(&po, 0, sizeof po);
    po.tmc = A->in;
    po.et = *o;
    po.base = A->base;
    po.verify = A->verify;
    po.variants = A->variants || A->compare;
    po.compare = A->compare;
    po.var_bp_log2 = o->bp_log2 ? o->bp_log2 : 10;
    po.var_jtc_log2 = o->jtc_log2 ? o->jtc_log2 : 6;
    tm_et_pass_result res;
    rc = tm_et_pass(&po, &res, err, sizeof err);
    if (rc != TM_OK) {
        tm_err("etrace", "%s%s", rc == TM_ERR_MISMATCH ? "--verify: " : "", err);
        status = rc == TM_ERR_ARG ? 2 : 1;
    } else {
        for (size_t i = 0; i < res.nvar; i++)
            if (res.var[i].verified == 0) {
                tm_err("etrace", "--variants: %s: %s", res.var[i].name, res.var[i].why);
                status = 1;
            }
        if (!A->quiet) {
            tm_et_report_text(stdout, &res, o);
            if (A->verify)
                printf("verify: ok, %" PRIu64 " instructions of %" PRIu64 " harts decoded match %s\n",
                       res.verified, res.vthreads, A->in);
        }
        if (A->stats && et_stats(A, &ost, &res, o))
            status = 1;
    }
    if (ost.active)
        tm_out_abort(&ost);
    tm_et_pass_result_free(&res);
    return status;
}

int cmd_etrace(int argc, char **argv)
{
    et_args A;
    tm_et_opts o;
    int pr = et_parse(argc, argv, &A, &o);
    if (pr)
        return pr == 1 ? 0 : pr;
    if (access(A.in, R_OK) != 0) {
        tm_err("etrace", "%s: %s", A.in, strerror(errno));
        return 1;
    }
    char err[1024];
    /* refuse a stream that is not RISC-V before looking for its code */
    tmc_reader *r = NULL;
    if (tmc_reader_open(A.in, &r, err, sizeof err) != TM_OK) {
        tm_err("etrace", "%s", err);
        return 1;
    }
    int isa = tmc_reader_isa(r);
    tmc_reader_close(r);
    if (isa != TM_ISA_RV64) {
        tm_err("etrace", "%s: the commit stream is not of a RISC-V program: E-Trace is RISC-V's", A.in);
        return 2;
    }
    tm_et_image *im = NULL;
    int rc = tm_et_image_beside(A.in, A.modules, A.vdso, &im, err, sizeof err);
    if (rc != TM_OK) {
        tm_err("etrace", "%s", err);
        return rc == TM_ERR_ARG ? 2 : 1;
    }
    o.code = tm_et_image_code;
    o.code_arg = im;
    int status = A.check ? et_check(&A, &o) : et_encode(&A, &o);
    tm_et_image_free(im);
    return tm_finish_stdout("etrace", status);
}
