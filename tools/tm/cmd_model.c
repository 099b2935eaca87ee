/* tm model — run the trace module model over a commit stream. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "modelopts.h"
#include "report.h"
#include "tm/model.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: tm model [options] IN.tmc -o OUT.tmt [--stats OUT.json]\n%s", model_opts_help);
    fprintf(f,
            "  -o FILE                       trace output (.tmt; '-' = stdout)\n"
            "  --stats FILE                  statistics as JSON\n"
            "  -q, --quiet                   no text statistics on stdout\n"
            "  --explain                     print the resolved configuration and message limits\n"
            "IN.tmc may be '-' (standard input).  See docs/guide.md.\n");
}

int cmd_model(int argc, char **argv)
{
    model_opts o;
    memset(&o, 0, sizeof o);
    const char *in = NULL, *out = NULL, *stats = NULL;
    int quiet = 0, explain = 0;
    int opts = 1; /* "--" ends the options */
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        const char *a = argv[i];
        if (!opts || !strcmp(a, "-") || a[0] != '-') {
            if (in) {
                tm_err("model", "unexpected argument '%s': one input file only", a);
                return 2;
            }
            in = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            opts = 0;
            continue;
        }
        int mr = model_opts_parse("model", &o, argc, argv, &i);
        if (mr < 0)
            return 2;
        if (mr > 0)
            continue;
#define OPT(name, dst)                                                       \
    if ((r = tm_opt(argc, argv, &i, name, &v)) != 0) {                       \
        if (r < 0) {                                                         \
            tm_err("model", "%s needs a value (see tm model --help)", name); \
            return 2;                                                        \
        }                                                                    \
        dst = v;                                                             \
        continue;                                                            \
    }
        OPT("--stats", stats)
        OPT("-o", out)
        OPT("--output", out)
#undef OPT
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) quiet = 1;
        else if (!strcmp(a, "--explain")) explain = 1;
        else if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        else {
            tm_err("model", "unknown option '%s' (see tm model --help)", a);
            return 2;
        }
    }
    if (!in) {
        tm_err("model", "no input commit stream (usage: tm model [options] IN.tmc -o OUT.tmt)");
        return 2;
    }
    /* Check the options before reading anything: a bad option is a usage error
     * whatever the input. */
    tm_model_cfg cfg;
    if (model_opts_cfg("model", &o, 1, &cfg))
        return 2;
    if (!out && !explain) {
        tm_err("model", "no output: give -o OUT.tmt");
        return 2;
    }
    if (out && stats && strcmp(out, "-") && !strcmp(out, stats)) {
        tm_err("model", "-o and --stats name the same file %s", out);
        return 2;
    }
    if (out && stats && !strcmp(out, "-") && !strcmp(stats, "-")) {
        tm_err("model", "-o - and --stats -: only one of them can be standard output");
        return 2;
    }

    tmc_reader *rd = NULL;
    char e[600];
    int rc = tmc_reader_open(in, &rd, e, sizeof e);
    if (rc != TM_OK) {
        tm_err("model", "%s", e);
        return 1;
    }
    if (model_opts_cfg("model", &o, tmc_reader_threads(rd), &cfg)) {
        tmc_reader_close(rd);
        return 2;
    }
    if (explain) {
        char line[384];
        report_cfg_line(line, sizeof line, &cfg);
        printf("config: %s\nchunks: bcnt (%u,%u), ta (%u,%u), cc (%u,%u)", line, cfg.enc.cnt_a, cfg.enc.cnt_b,
               cfg.enc.ta_a, cfg.enc.ta_b, cfg.enc.cc_a, cfg.enc.cc_b);
        if (cfg.enc.data)
            printf(", fah (%u,%u)", cfg.enc.fah_a, cfg.enc.fah_b);
        printf("\nlongest message: %u bits%s; resynchronization reserve: %u bits\n", tm_msg_max_bits(&cfg.enc),
               cfg.enc.data ? " (a bundle: DATA + control)" : "", tm_msg_reserve_bits(&cfg.enc));
        if (cfg.enc.data)
            printf("longest DATA message: %u bits (64-byte value)\n", tm_msg_data_max_bits(&cfg.enc));
        if (!out) {
            tmc_reader_close(rd);
            return 0;
        }
    }
    const char *inputs[] = {in, NULL};
    tm_out oto, ost;
    memset(&oto, 0, sizeof oto);
    memset(&ost, 0, sizeof ost);
    int orc = out ? tm_out_begin("model", &oto, out, inputs) : 0;
    if (!orc && stats)
        orc = tm_out_begin("model", &ost, stats, inputs);
    if (orc) {
        tm_out_abort(&oto);
        tmc_reader_close(rd);
        return orc == -2 ? 2 : 1;
    }
    tm_model *m = NULL;
    if ((rc = tm_model_new(&cfg, &m)) != TM_OK) {
        tm_err("model", "cannot create the model: %s", tm_status_str(rc));
        tm_out_abort(&oto);
        tm_out_abort(&ost);
        tmc_reader_close(rd);
        return 1;
    }
    tmc_record r;
    uint64_t nrec = 0;
    time_t t0 = time(NULL), last = t0;
    int status = 0;
    tmt_ending ending = TMT_COMPLETE;
    unsigned sig = 0;
    while ((rc = tmc_reader_next(rd, &r)) == 1) {
        if (r.type == TMC_CUT) { /* a recording that was cut: the trace says so */
            ending = r.flags == TMC_CUT_SIGNAL ? TMT_CUT_SIGNAL : TMT_CUT_SHORT;
            sig = (unsigned)r.count;
        }
        if ((rc = tm_model_put(m, &r)) != TM_OK) {
            tm_err("model", "%s: offset %" PRIu64 ": %s", in, tmc_reader_offset(rd), tm_model_error(m));
            status = 1;
            goto out;
        }
        if ((++nrec & 0xFFFFF) == 0) {
            time_t now = time(NULL);
            if (now - last >= 5) {
                fprintf(stderr, "tm model: %" PRIu64 "M records, %lds\n", nrec >> 20, (long)(now - t0));
                last = now;
            }
        }
    }
    if (rc < 0) {
        tm_err("model", "%s", tmc_reader_error(rd));
        status = 1;
        goto out;
    }
    tm_model_finish(m);
    char err[512];
    if (out) {
        uint64_t *insns = calloc(cfg.enc.threads, sizeof *insns);
        tmt_trailer tr;
        if (!insns) {
            tm_err("model", "out of memory");
            status = 1;
            goto out;
        }
        tmt_trailer_of(&tr, m, insns, ending, sig);
        rc = tmt_write(oto.tmp, &cfg, tm_model_trace(m), &tr, err, sizeof err);
        free(insns);
        if (rc != TM_OK) {
            tm_err("model", "%s", tm_out_name(&oto, err));
            status = 1;
            goto out;
        }
    }
    if (stats && report_json(ost.tmp, &cfg, m, ending, sig)) {
        tm_err("model", "%s: cannot write statistics: %s", stats, strerror(errno));
        status = 1;
        goto out;
    }
    if ((out && tm_out_commit("model", &oto)) || (stats && tm_out_commit("model", &ost))) {
        status = 1;
        goto out;
    }
    if (!quiet) {
        FILE *f = out && !strcmp(out, "-") ? stderr : stdout;
        report_text(f, &cfg, m);
        if (ending != TMT_COMPLETE) {
            char why[128];
            fprintf(f, "recording: %s\n", tmt_ending_str(ending, sig, why, sizeof why));
        }
    }
out:
    tm_out_abort(&oto);
    tm_out_abort(&ost);
    tm_model_free(m);
    tmc_reader_close(rd);
    return status;
}
