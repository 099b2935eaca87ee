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
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        const char *a = argv[i];
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
        else if (a[0] == '-' && a[1] != '\0') {
            tm_err("model", "unknown option '%s' (see tm model --help)", a);
            return 2;
        } else if (!in) in = a;
        else {
            tm_err("model", "unexpected argument '%s': one input file only", a);
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

    tmc_reader *rd = NULL;
    int rc = tmc_reader_open(in, &rd);
    if (rc != TM_OK) {
        tm_err("model", "%s", rd ? tmc_reader_error(rd) : in);
        tmc_reader_close(rd);
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
    tm_model *m = NULL;
    if ((rc = tm_model_new(&cfg, &m)) != TM_OK) {
        tm_err("model", "cannot create the model: %s", tm_status_str(rc));
        tmc_reader_close(rd);
        return 1;
    }
    tmc_record r;
    uint64_t nrec = 0;
    time_t t0 = time(NULL), last = t0;
    int status = 0;
    while ((rc = tmc_reader_next(rd, &r)) == 1) {
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
    if (out && tmt_write(out, &cfg, tm_model_trace(m), tm_model_get_stats(m)->cycles, err, sizeof err) != TM_OK) {
        tm_err("model", "%s", err);
        status = 1;
        goto out;
    }
    if (stats && report_json(stats, &cfg, m)) {
        tm_err("model", "%s: cannot write statistics: %s", stats, strerror(errno));
        status = 1;
        goto out;
    }
    if (!quiet)
        report_text(out && !strcmp(out, "-") ? stderr : stdout, &cfg, m);
out:
    tm_model_free(m);
    tmc_reader_close(rd);
    return status;
}
