/* tm decode --from-binary: replay a trace from the program binaries
 * (tm_frombin, docs/spec.md §6.1) and print or verify it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "decode.h"
#include "tm/decoder.h"
#include "tm/tmt.h"

/* BASE of BASE.tmt (or the path itself) + SUFFIX. */
static void sibling(const char *tmt, const char *suffix, char *out, size_t n)
{
    size_t len = strlen(tmt);
    if (len > 4 && !strcmp(tmt + len - 4, ".tmt"))
        len -= 4;
    snprintf(out, n, "%.*s%s", (int)len, tmt, suffix);
}

static void fb_progress(uint64_t insns, void *arg)
{
    time_t *last = arg;
    time_t now = time(NULL);
    if (now - *last >= 5) {
        fprintf(stderr, "tm decode: %" PRIu64 "M instructions\n", insns / 1000000);
        *last = now;
    }
}

/* The replay's diagnostics sink: its lines on stderr. */
static void fb_diag_stderr(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "tm decode: %s\n", line);
}

int decode_from_binary(int argc, char **argv)
{
    tm_frombin_opts o;
    memset(&o, 0, sizeof o);
    o.format = TM_FB_INSNS;
    struct fb_args {
        int verify, quiet, from_binary;
        const char *modules, *vdso, *bin, *max_run;
    } F = {0, 0, 0, NULL, NULL, NULL, NULL};
    enum { FMT = 1 };
#define FL(name, alias, f) {name, alias, TM_OPT_FLAG, offsetof(struct fb_args, f), 0}
#define FLO(name, alias, f) {name, alias, TM_OPT_FLAG, offsetof(tm_frombin_opts, f), 0}
#define VA(name, alias, f) {name, alias, TM_OPT_VALUE, offsetof(struct fb_args, f), 0}
#define FMT(name, v) {name, NULL, TM_OPT_FLAG, TM_OPT_NOSTORE, FMT + (v)}
    static const tm_optdef fb_opts[] = {
        FL("--verify", NULL, verify), FL("--quiet", "-q", quiet), FL("--from-binary", NULL, from_binary),
        FMT("--insns", TM_FB_INSNS), FMT("--branches", TM_FB_BRANCHES), FMT("--functions", TM_FB_FUNCTIONS),
        FMT("--summary", TM_FB_NONE), VA("--modules", NULL, modules), VA("--vdso", NULL, vdso),
        VA("--binary", "-o", bin), VA("--max-run", NULL, max_run), {NULL, NULL, 0, 0, 0}};
    static const tm_optdef fbo_opts[] = {
        FLO("--symbols", "-s", symbols), FLO("--disasm", "-d", disasm),
        FLO("--ignore-build-id", NULL, ignore_build_id), {"--tmc", NULL, TM_OPT_VALUE, offsetof(tm_frombin_opts, tmc), 0},
        {NULL, NULL, 0, 0, 0}};
#undef FL
#undef FLO
#undef VA
#undef FMT
    const char *files[2], *val;
    int nf = 0, pr;
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t[2] = {{fb_opts, &F}, {fbo_opts, &o}};
    const tm_optdef *hit;
    char perr[256];
    while ((pr = tm_opt_next(&p, t, 2, &hit, &val, perr, sizeof perr)) > 0) {
        if (pr == TM_OPT_HELP)
            return decode_usage(stdout), 0;
        if (pr == TM_OPT_OPERAND && nf >= 2)
            return tm_usage("decode", "too many arguments"), 2;
        if (pr == TM_OPT_OPERAND)
            files[nf++] = val;
        if (pr == TM_OPT_MATCH && hit->id >= FMT)
            o.format = hit->id - FMT;
    }
    if (pr < 0)
        return tm_usage("decode", "%s", perr), 2;
    if (F.max_run && (tm_parse_count(F.max_run, &o.max_run) || !o.max_run))
        return tm_usage("decode", "--max-run %s: expected a positive number of instructions", F.max_run), 2;
    int verify = F.verify, quiet = F.quiet;
    const char *modules = F.modules, *vdso = F.vdso, *bin = F.bin;
    if ((verify && nf != 2) || (!verify && nf != 1)) {
        tm_usage("decode", verify ? "--from-binary --verify needs the commit stream and the trace: "
                                  "tm decode --from-binary --verify BASE.tmc BASE.tmt"
                                : "expected one trace file: tm decode --from-binary BASE.tmt");
        return 2;
    }
    const char *tmt_path = verify ? files[1] : files[0];
    if (verify)
        o.tmc = files[0];
    char mpath[4096], vpath[4096];
    if (!modules) {
        sibling(tmt_path, ".modules", mpath, sizeof mpath);
        modules = mpath;
    }
    if (!vdso) {
        sibling(tmt_path, ".vdso", vpath, sizeof vpath);
        FILE *vf = fopen(vpath, "rb");
        if (vf) {
            fclose(vf);
            vdso = vpath;
        }
    }
    o.modules = modules;
    o.vdso = vdso;
    tmt_file tf;
    char err[1024];
    if (tmt_read(tmt_path, &tf, err, sizeof err) != TM_OK) {
        tm_err("decode", "%s", err);
        return 1;
    }
    FILE *bf = NULL;
    tm_out bo;
    memset(&bo, 0, sizeof bo);
    if (bin) {
        const char *inputs[] = {tmt_path, modules, o.tmc ? o.tmc : tmt_path, vdso ? vdso : tmt_path, NULL};
        int orc = tm_out_begin("decode", &bo, bin, inputs);
        if (orc) {
            tmt_free(&tf);
            return orc == -2 ? 2 : 1;
        }
        bf = fopen(bo.tmp, "wbe");
        if (!bf) {
            tm_err("decode", "%s: cannot create: %s", bin, strerror(errno));
            tm_out_abort(&bo);
            tmt_free(&tf);
            return 1;
        }
    }
    o.verify = verify;
    o.recover = !verify;
    o.out = verify ? NULL : stdout;
    o.bin = bf;
    o.diag = fb_diag_stderr;
    time_t last = time(NULL);
    if (verify || o.format == TM_FB_NONE) {
        o.progress = fb_progress;
        o.arg = &last;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    tm_frombin_result res;
    int rc = tm_frombin(&tf, &o, &res, err, sizeof err);
    if (verify && rc == TM_OK && (rc = tm_verify_file(files[0], &tf, err, sizeof err)) != TM_OK)
        res.v.ok = 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    int status;
    if (bf) {
        int bad = ferror(bf) | fclose(bf);
        if (bad && rc == TM_OK) {
            rc = TM_ERR_IO;
            snprintf(err, sizeof err, "%s: write error: %s", bin, strerror(errno));
        }
        if (rc == TM_OK || rc == TM_ERR_MISMATCH || (rc == TM_ERR_IO && tm_stdout_failed())) {
            if (tm_out_commit("decode", &bo)) { /* said in one line */
                tmt_free(&tf);
                return 1;
            }
        } else {
            tm_out_abort(&bo);
        }
    }
    if (verify) {
        if (rc == TM_OK) {
            printf("OK: %" PRIu64 " instructions replayed from the binaries (%" PRIu64 " reconstructed, %" PRIu64
                   " in %" PRIu64 " overflow gaps), %" PRIu64 " branches, %" PRIu64 " exceptions, %" PRIu64
                   " messages, %" PRIu64 " code blocks disassembled",
                   res.v.instructions, res.v.checked, res.v.gap_instructions, res.v.gaps, res.v.branches,
                   res.v.exceptions, res.v.messages, res.blocks);
            if (tf.cfg.enc.timestamps)
                printf(", %" PRIu64 " time stamps", res.v.cycles_checked);
            if (tf.cfg.enc.data)
                printf("; %" PRIu64 " load values replayed (%" PRIu64 " from DATA messages, %" PRIu64
                       " from the replay's copy)",
                       res.v.loads_reported + res.v.loads_inferred, res.v.loads_reported, res.v.loads_inferred);
            printf("; %.2f M instructions/s", secs > 0 ? (double)res.v.checked / secs / 1e6 : 0.0);
            decode_print_file_check(&tf);
            printf("\n");
            status = 0;
        } else {
            status = decode_verify_failed(rc, err, quiet, 1, tmt_path, files[0]);
        }
    } else {
        fflush(stdout);
        if (rc == TM_ERR_IO && tm_stdout_failed()) {
            tm_stdout_errno(res.out_errno);
            status = 0; /* a full disk or a reader gone: tm_finish_stdout says which */
        } else if (rc != TM_OK) {
            tm_err("decode", "%s", err);
            status = 1;
        } else {
            char why[256] = "", e[112], pe[112];
            if (tf.ending != TMT_COMPLETE)
                snprintf(why, sizeof why, "; the recording was %s", tmt_ending_str(tf.ending, tf.signal, e, sizeof e));
            if (tf.prog != TMT_PROG_UNKNOWN)
                snprintf(why + strlen(why), sizeof why - strlen(why), "; the program %s",
                         tmt_prog_str(tf.prog, tf.prog_code, pe, sizeof pe));
            if (o.format == TM_FB_NONE || !quiet)
                fprintf(o.format == TM_FB_NONE ? stdout : stderr,
                        "%s: %" PRIu64 " threads, %" PRIu64 " instructions replayed from the binaries, %" PRIu64
                        " branches, %" PRIu64 " exceptions, %" PRIu64 " gaps, %" PRIu64 " errors, %" PRIu64
                        " undecodable stretches; %.2f M instructions/s%s\n",
                        tmt_path, res.threads, res.v.checked, res.v.branches, res.v.exceptions, res.v.gaps,
                        res.errors, res.resyncs, secs > 0 ? (double)res.v.checked / secs / 1e6 : 0.0, why);
            status = res.errors || res.resyncs ? 1 : 0;
        }
    }
    tmt_free(&tf);
    return status;
}

