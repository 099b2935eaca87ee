/* tm model — run the trace module model over a commit stream. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd.h"
#include "report.h"
#include "tm/model.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm model [options] IN.tmc -o OUT.tmt [--stats OUT.json]\n"
            "  --config small|medium|large   predictor preset (default large)\n"
            "  --gshare N --ras N --ibtb N   explicit sizes (gshare 0 or 2^k <= 4096; RAS 0..32;\n"
            "                                iBTB 0 or 2^k in 2..64 entries, 2-way)\n"
            "  --encoding nx_b|tr_b|tr_e     message encoding (default tr_e)\n"
            "  --timestamps                  add diffCC time stamps to every message\n"
            "  --shared                      one predictor set shared by all threads\n"
            "  --buffer BITS|min             trace buffer size (default max(N*64, longest message);\n"
            "                                min = the longest message of the configuration)\n"
            "  --port BITS                   trace port width per cycle (default 4)\n"
            "  --ts-bits N                   time-stamp counter width, 8..64 (default 64): diffCC\n"
            "                                is taken modulo 2^N\n"
            "  --chunks-bcnt A,B --chunks-ta A,B --chunks-cc A,B   chunk sizes (1..32)\n"
            "  -o FILE                       trace output (.tmt; '-' = stdout)\n"
            "  --stats FILE                  statistics as JSON\n"
            "  -q, --quiet                   no text statistics on stdout\n"
            "  --explain                     print the resolved configuration and message limits\n"
            "IN.tmc may be '-' (standard input).  See docs/guide.md.\n");
}

/* Model options shared with other subcommands that run the model. */
typedef struct model_opts {
    const char *config, *encoding;
    const char *gshare, *ras, *ibtb, *buffer, *port, *ts_bits;
    const char *chunks[3];
    int timestamps, shared;
} model_opts;

static int parse_u32_opt(const char *opt, const char *v, uint32_t max, uint32_t *out)
{
    uint64_t x;
    if (tm_parse_u64(v, &x) || x > max) {
        tm_err("model", "%s %s: not a number in 0..%u", opt, v, max);
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

/* Builds the configuration for THREADS from the options; 0 on success. */
static int build_cfg(const model_opts *o, uint32_t threads, tm_model_cfg *cfg)
{
    int enc = TM_ENC_TR_E;
    if (o->encoding && (enc = tm_encoding_parse(o->encoding)) < 0) {
        tm_err("model", "--encoding %s: allowed nx_b, tr_b, tr_e", o->encoding);
        return -1;
    }
    memset(cfg, 0, sizeof *cfg);
    tm_enc_cfg_default(&cfg->enc, (tm_encoding)enc, threads, o->timestamps);
    if (tm_model_preset(cfg, o->config ? o->config : "large") != TM_OK) {
        tm_err("model", "--config %s: allowed small, medium, large", o->config);
        return -1;
    }
    cfg->shared = o->shared;
    if ((o->gshare && parse_u32_opt("--gshare", o->gshare, 1u << 20, &cfg->pred.gshare)) ||
        (o->ras && parse_u32_opt("--ras", o->ras, 1u << 20, &cfg->pred.ras)) ||
        (o->ibtb && parse_u32_opt("--ibtb", o->ibtb, 1u << 20, &cfg->pred.ibtb)) ||
        (o->buffer && strcmp(o->buffer, "min") &&
         parse_u32_opt("--buffer", o->buffer, UINT32_MAX, &cfg->buffer_bits)) ||
        (o->port && parse_u32_opt("--port", o->port, UINT32_MAX, &cfg->port_bits)) ||
        (o->ts_bits && parse_u32_opt("--ts-bits", o->ts_bits, UINT32_MAX, &cfg->ts_bits)))
        return -1;
    if (o->buffer && !strcmp(o->buffer, "min"))
        cfg->buffer_bits = tm_msg_max_bits(&cfg->enc);
    else if (o->buffer && cfg->buffer_bits == 0) {
        tm_err("model", "--buffer 0: the buffer must hold at least the longest message (see --explain)");
        return -1;
    }
    if (o->ts_bits && cfg->ts_bits == 0) {
        tm_err("model", "--ts-bits 0: allowed 8..64");
        return -1;
    }
    if (o->port && cfg->port_bits == 0) {
        tm_err("model", "--port 0: allowed 1..1024 bits per cycle");
        return -1;
    }
    static const char *const names[3] = {"--chunks-bcnt", "--chunks-ta", "--chunks-cc"};
    uint8_t *dst[3][2] = {{&cfg->enc.cnt_a, &cfg->enc.cnt_b}, {&cfg->enc.ta_a, &cfg->enc.ta_b},
                          {&cfg->enc.cc_a, &cfg->enc.cc_b}};
    for (int k = 0; k < 3; k++) {
        if (!o->chunks[k])
            continue;
        unsigned a, b;
        if (tm_parse_pair(o->chunks[k], &a, &b) || a < 1 || a > 32 || b < 1 || b > 32) {
            tm_err("model", "%s %s: expected A,B with each chunk size in 1..32", names[k], o->chunks[k]);
            return -1;
        }
        *dst[k][0] = (uint8_t)a;
        *dst[k][1] = (uint8_t)b;
    }
    char err[256];
    if (tm_model_cfg_resolve(cfg, err, sizeof err) != TM_OK) {
        tm_err("model", "%s", err);
        return -1;
    }
    return 0;
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
#define OPT(name, dst)                                                   \
    if ((r = tm_opt(argc, argv, &i, name, &v)) != 0) {                   \
        if (r < 0) {                                                     \
            tm_err("model", "%s needs a value (see tm model --help)", name); \
            return 2;                                                    \
        }                                                                \
        dst = v;                                                         \
        continue;                                                        \
    }
        OPT("--config", o.config)
        OPT("--encoding", o.encoding)
        OPT("--gshare", o.gshare)
        OPT("--ras", o.ras)
        OPT("--ibtb", o.ibtb)
        OPT("--buffer", o.buffer)
        OPT("--port", o.port)
        OPT("--ts-bits", o.ts_bits)
        OPT("--chunks-bcnt", o.chunks[0])
        OPT("--chunks-ta", o.chunks[1])
        OPT("--chunks-cc", o.chunks[2])
        OPT("--stats", stats)
        OPT("-o", out)
        OPT("--output", out)
#undef OPT
        if (!strcmp(a, "--timestamps")) o.timestamps = 1;
        else if (!strcmp(a, "--shared")) o.shared = 1;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) quiet = 1;
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
    if (build_cfg(&o, 1, &cfg))
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
    if (build_cfg(&o, tmc_reader_threads(rd), &cfg)) {
        tmc_reader_close(rd);
        return 2;
    }
    if (explain) {
        char line[256];
        report_cfg_line(line, sizeof line, &cfg);
        printf("config: %s\nchunks: bcnt (%u,%u), ta (%u,%u), cc (%u,%u)\nlongest message: %u bits; "
               "resynchronization reserve: %u bits\n",
               line, cfg.enc.cnt_a, cfg.enc.cnt_b, cfg.enc.ta_a, cfg.enc.ta_b, cfg.enc.cc_a, cfg.enc.cc_b,
               tm_msg_max_bits(&cfg.enc), tm_msg_reserve_bits(&cfg.enc));
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
