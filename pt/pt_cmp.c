/* tm — Intel PT beside the trace module on the same execution, in one pass
 * over a commit stream (tm pt, docs/pt.md): the PT encoder whose packets go
 * to the caller's outputs, and for the comparison PT with other timing
 * options and the trace module with each encoding, without and with time
 * stamps; then the text and JSON reports of the pass (tm/pt.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/model.h"
#include "tm/msg.h"
#include "tm/isa.h"
#include "tm/out.h"
#include "tm/pt.h"
#include "tm/stdcmp.h"
#include "tm/status.h"
#include "tm/sweep.h"
#include "tm/tmc.h"

#define NMODELS (2 * TM_ENCODINGS)
_Static_assert(TM_PT_ROWS == 3 + NMODELS, "tm/pt.h's TM_PT_ROWS: three PT rows, two per encoding");

static const unsigned alt_timing[3] = {0, TM_PT_TSC | TM_PT_MTC, TM_PT_TSC | TM_PT_MTC | TM_PT_CYC};
static const char *const alt_name[3] = {"PT", "PT+mtc", "PT+cyc"};

int tm_pt_timing_parse(const char *v, unsigned *t)
{
    *t = 0;
    if (!strcmp(v, "none"))
        return 0;
    if (!strcmp(v, "all")) {
        *t = TM_PT_TSC | TM_PT_MTC | TM_PT_CYC;
        return 0;
    }
    char buf[64];
    size_t l = strlen(v);
    if (l >= sizeof buf || !l || v[0] == ',' || v[l - 1] == ',' || strstr(v, ",,"))
        return -1;
    strcpy(buf, v);
    char *save = NULL;
    for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        if (!strcmp(s, "tsc"))
            *t |= TM_PT_TSC;
        else if (!strcmp(s, "mtc"))
            *t |= TM_PT_MTC;
        else if (!strcmp(s, "cyc"))
            *t |= TM_PT_CYC;
        else
            return -1;
    }
    return *t ? 0 : -1;
}

void tm_pt_timing_str(unsigned t, char *buf, size_t n)
{
    snprintf(buf, n, "%s%s%s%s", t & TM_PT_TSC ? "tsc," : "", t & TM_PT_MTC ? "mtc," : "",
             t & TM_PT_CYC ? "cyc," : "", t ? "" : "none");
    size_t l = strlen(buf);
    if (l && buf[l - 1] == ',')
        buf[l - 1] = 0;
}

static int null_write(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    (void)arg, (void)tid, (void)p, (void)n;
    return 0;
}

/* What runs beside the PT encoder. */
typedef struct side {
    tm_sweep *sw;                 /* the trace module's configurations, or NULL */
    tm_model_cfg cfg[NMODELS];
    char name[NMODELS][24];       /* ENC or ENC+ts */
    tm_pt_encoder *alt[3];        /* PT without timing, with TSC+MTC, with TSC+MTC+CYC */
    int on;
} side;

static int side_new(side *c, uint32_t threads, const tm_pt_opts *po, int models, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->on = 1;
    for (int i = 0; i < NMODELS && models; i++) {
        /* large predictors, a buffer and port that drop nothing */
        tm_model_cfg *cfg = &c->cfg[i];
        tm_enc_cfg_default(&cfg->enc, (tm_encoding)(i / 2), threads, i & 1);
        snprintf(c->name[i], sizeof c->name[i], "%s%s", tm_encoding_name((tm_encoding)(i / 2)), i & 1 ? "+ts" : "");
        if (tm_model_preset(cfg, "large") != TM_OK)
            return snprintf(err, errlen, "--compare: no preset 'large'"), TM_ERR_ARG;
        cfg->buffer_bits = 65536;
        cfg->port_bits = 1024;
        int rc = tm_model_cfg_resolve(cfg, err, errlen);
        if (rc != TM_OK)
            return rc;
    }
    char e[512];
    int rs;
    if (models && (rs = tm_sweep_new(c->cfg, NMODELS, &c->sw, e, sizeof e)) != TM_OK)
        return snprintf(err, errlen, "--compare: cannot make the models: %s", e), rs;
    for (int i = 0; i < 3; i++) {
        tm_pt_opts ao = *po;
        ao.timing = alt_timing[i];
        ao.write = null_write;
        int rc = tm_pt_encoder_new(&ao, threads, &c->alt[i], err, errlen);
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

static void side_free(side *c)
{
    tm_sweep_free(c->sw);
    for (int i = 0; i < 3; i++)
        tm_pt_encoder_free(c->alt[i]);
}

/* Every record of R to the encoder E and to what runs beside it; *BAD_STREAM
 * when the error is the stream's (the reader's message names the file). */
static int feed(const tm_pt_pass_opts *o, tmc_reader *r, tm_pt_encoder *e, side *c, int *bad_stream, char *err,
                size_t errlen)
{
    tmc_record rec;
    int got, rc = TM_OK;
    uint64_t records = 0;
    while ((got = tmc_reader_next(r, &rec)) == 1) {
        if (o->progress && !(++records & ((1u << 22) - 1)))
            o->progress(records, o->progress_arg);
        rc = tm_pt_encoder_put(e, &rec, err, errlen);
        for (int a = 0; a < 3 && rc == TM_OK && c->on; a++)
            rc = tm_pt_encoder_put(c->alt[a], &rec, err, errlen);
        if (rc == TM_OK && c->sw && (rc = tm_sweep_put(c->sw, &rec)) != TM_OK)
            snprintf(err, errlen, "the model: %s", tm_model_error(tm_sweep_model(c->sw, tm_sweep_failed(c->sw))));
        if (rc != TM_OK)
            return rc;
    }
    if (got < 0) {
        snprintf(err, errlen, "%s", tmc_reader_error(r));
        *bad_stream = 1;
        return TM_ERR_FORMAT;
    }
    rc = tm_pt_encoder_finish(e, err, errlen);
    for (int a = 0; a < 3 && rc == TM_OK && c->on; a++)
        rc = tm_pt_encoder_finish(c->alt[a], err, errlen);
    if (rc == TM_OK && c->sw && (rc = tm_sweep_finish(c->sw)) != TM_OK)
        snprintf(err, errlen, "the model: %s", tm_model_error(tm_sweep_model(c->sw, tm_sweep_failed(c->sw))));
    return rc;
}

/* The comparison's rows: the PT variants, then the trace module's
 * configurations (+ts against PT+cyc). */
static void rows_of(const side *c, tm_pt_pass_result *res)
{
    res->nrows = 0;
    if (c->on)
        for (int a = 0; a < 3; a++) {
            tm_pt_row *w = &res->rows[res->nrows++];
            snprintf(w->name, sizeof w->name, "%s", alt_name[a]);
            w->bits = 8.0 * (double)tm_pt_encoder_stats(c->alt[a])->total_bytes;
            w->dropped = 0;
            w->timed = a;
        }
    if (c->sw)
        for (int i = 0; i < NMODELS; i++) {
            const tm_model_stats *ms = tm_model_get_stats(tm_sweep_model(c->sw, (size_t)i));
            tm_pt_row *w = &res->rows[res->nrows++];
            snprintf(w->name, sizeof w->name, "%s", c->name[i]);
            w->bits = (double)ms->total.bits_total;
            w->dropped = ms->total.dropped_messages;
            w->timed = i & 1 ? 2 : 0;
        }
}

int tm_pt_pass(const tm_pt_pass_opts *o, tm_pt_pass_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    tmc_reader *r = NULL;
    int rc = tmc_reader_open(o->tmc, &r, err, errlen);
    if (rc != TM_OK)
        return rc;
    if (tmc_reader_isa(r) != TM_ISA_X86_64) { /* Intel PT traces x86-64 code */
        snprintf(err, errlen, "%s: the commit stream is of a program for %s: Intel PT is x86-64's", o->tmc,
                 tm_isa_name(tmc_reader_isa(r)));
        tmc_reader_close(r);
        return TM_ERR_ARG;
    }
    uint32_t threads = tmc_reader_threads(r);
    tm_pt_encoder *e = NULL;
    side c;
    memset(&c, 0, sizeof c);
    res->threads = threads;
    res->models = o->compare;
    res->thread_bytes = calloc(threads, sizeof *res->thread_bytes);
    if (!res->thread_bytes) {
        snprintf(err, errlen, "out of memory");
        rc = TM_ERR_NOMEM;
        goto out;
    }
    if ((rc = tm_pt_encoder_new(&o->pt, threads, &e, err, errlen)) != TM_OK)
        goto out;
    if ((o->compare || o->variants) &&
        (rc = side_new(&c, o->compare ? tm_stdcmp_cores(o->tmc, threads) : threads, &o->pt, o->compare, err,
                       errlen)) != TM_OK)
        goto out;
    char e2[1024];
    int bad_stream = 0;
    if ((rc = feed(o, r, e, &c, &bad_stream, e2, sizeof e2)) != TM_OK) {
        /* an encoding error is named by the stream (the reader's names it already) */
        snprintf(err, errlen, bad_stream ? "%s%s" : "%s: %s", bad_stream ? "" : o->tmc, e2);
        goto out;
    }
    res->st = *tm_pt_encoder_stats(e);
    for (uint32_t t = 0; t < threads; t++)
        res->thread_bytes[t] = tm_pt_encoder_thread_bytes(e, t);
    rows_of(&c, res);
out:
    side_free(&c);
    tm_pt_encoder_free(e);
    tmc_reader_close(r);
    return rc;
}

void tm_pt_pass_result_free(tm_pt_pass_result *res)
{
    free(res->thread_bytes);
    res->thread_bytes = NULL;
}

void tm_pt_report_text(FILE *f, const tm_pt_pass_result *res, const tm_pt_opts *po)
{
    const tm_pt_stats *st = &res->st;
    double insns = (double)st->instructions, cyc = (double)st->cycles;
    double bits = 8.0 * (double)st->total_bytes;
    char tstr[32];
    tm_pt_timing_str(po->timing, tstr, sizeof tstr);
    fprintf(f, "PT: %" PRIu64 " instructions on %" PRIu64 " cores, %" PRIu64 " cycles: %" PRIu64
               " bytes = %.4f bits/instruction, %.4f bits/cycle\n",
            st->instructions, st->threads, st->cycles, st->total_bytes, insns ? bits / insns : 0.0,
            cyc ? bits / cyc : 0.0);
    fprintf(f, "options: PSB every %" PRIu32 " bytes, %s TNT, return compression %s, timing %s\n", po->psb_period,
            po->tnt_long ? "long" : "short", po->no_retcomp ? "off" : "on", tstr);
    if (st->mem)
        fprintf(f, "note: the stream's %" PRIu64 " memory operands are not traced (Intel PT traces control flow; "
                   "no PTWRITE)\n", st->mem);
    fprintf(f, "%-10s %10s %12s\n", "packet", "count", "bytes");
    for (unsigned k = 0; k < TM_PT_NKINDS; k++)
        if (st->packets[k])
            fprintf(f, "%-10s %10" PRIu64 " %12" PRIu64 "\n", tm_pt_kind_name(k), st->packets[k], st->bytes[k]);
    uint64_t events[TM_PT_NCAUSES] = {st->cond, st->rets_compressed, st->rets - st->rets_compressed,
                                      st->indirect, st->far, st->exceptions, 0, st->psb_periodic, 0};
    fprintf(f, "%-15s %12s %8s %10s %10s\n", "spent on", "bits", "share", "events", "bits/event");
    for (unsigned c = 0; c < TM_PT_NCAUSES; c++) {
        if (st->cause_bits[c] == 0 && !events[c])
            continue;
        fprintf(f, "%-15s %12.0f %7.1f%% %10" PRIu64, tm_pt_cause_name(c), st->cause_bits[c],
                bits ? 100.0 * st->cause_bits[c] / bits : 0.0, events[c]);
        if (events[c])
            fprintf(f, " %10.2f\n", st->cause_bits[c] / (double)events[c]);
        else
            fprintf(f, " %10s\n", "-");
    }
    if (!res->nrows)
        return;
    if (res->models)
        fprintf(f, "same execution, in one pass (the trace module: large predictors, a buffer and port that "
                   "drop nothing; PT / this: against PT, for +ts against PT+cyc):\n");
    else
        fprintf(f, "PT with and without timing packets, in one pass:\n");
    fprintf(f, "%-10s %14s %12s %12s %10s\n", "format", "bits", "bits/instr", "bits/cycle", "PT / this");
    for (size_t i = 0; i < res->nrows; i++) {
        const tm_pt_row *w = &res->rows[i];
        double ref = res->rows[w->timed].bits;
        fprintf(f, "%-10s %14.0f %12.4f %12.4f %9.2fx", w->name, w->bits, insns ? w->bits / insns : 0.0,
                cyc ? w->bits / cyc : 0.0, w->bits ? ref / w->bits : 0.0);
        if (w->dropped)
            fprintf(f, "  (%" PRIu64 " messages dropped: not the demand)", w->dropped);
        fputc('\n', f);
    }
}

/* The counts and options of the pass. */
static void json_counts(FILE *f, const tm_pt_pass_result *res, const tm_pt_opts *po, int image)
{
    const tm_pt_stats *st = &res->st;
    double insns = (double)st->instructions, cyc = (double)st->cycles, bits = 8.0 * (double)st->total_bytes;
    char tstr[32];
    tm_pt_timing_str(po->timing, tstr, sizeof tstr);
    fprintf(f, ",\n  \"threads\": %" PRIu64 ",\n  \"instructions\": %" PRIu64 ",\n  \"cycles\": %" PRIu64
               ",\n  \"bytes\": %" PRIu64 ",\n  \"bits\": %" PRIu64 ",\n  \"bpi\": %.6f,\n  \"bpc\": %.6f,\n",
            st->threads, st->instructions, st->cycles, st->total_bytes, 8 * st->total_bytes,
            insns ? bits / insns : 0.0, cyc ? bits / cyc : 0.0);
    fprintf(f, "  \"options\": {\"psb_period\": %" PRIu32 ", \"tnt\": \"%s\", \"retcomp\": %s, \"timing\": \"%s\", "
               "\"mtc_period_log2\": %u, \"image\": %s},\n",
            po->psb_period, po->tnt_long ? "long" : "short", po->no_retcomp ? "false" : "true", tstr, po->mtc_shift,
            image ? "true" : "false");
    fprintf(f, "  \"packets\": {");
    for (unsigned k = 0; k < TM_PT_NKINDS; k++)
        fprintf(f, "%s\"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", k ? ", " : "", tm_pt_kind_name(k),
                st->packets[k], st->bytes[k]);
    fprintf(f, "},\n  \"spent_bits\": {");
    for (unsigned c = 0; c < TM_PT_NCAUSES; c++)
        fprintf(f, "%s\"%s\": %.1f", c ? ", " : "", tm_pt_cause_name(c), st->cause_bits[c]);
    fprintf(f, "},\n  \"events\": {\"cond\": %" PRIu64 ", \"ret\": %" PRIu64 ", \"ret_compressed\": %" PRIu64
               ", \"indirect\": %" PRIu64 ", \"far\": %" PRIu64 ", \"exceptions\": %" PRIu64 ", \"psb\": %" PRIu64
               ", \"memory_operands_not_traced\": %" PRIu64 "},\n",
            st->cond, st->rets, st->rets_compressed, st->indirect, st->far, st->exceptions, st->psb, st->mem);
}

void tm_pt_report_json(FILE *f, const tm_pt_pass_result *res, const tm_pt_opts *po, const char *tmc, int image,
                       const tm_pt_decode_result *verify, int verify_ok)
{
    const tm_pt_stats *st = &res->st;
    double insns = (double)st->instructions, cyc = (double)st->cycles;
    fprintf(f, "{\n  \"tmc\": ");
    tm_json_str(f, tmc);
    json_counts(f, res, po, image);
    fprintf(f, "  \"per_core_bytes\": [");
    for (uint32_t t = 0, k = 0; t < res->threads; t++)
        if (res->thread_bytes[t])
            fprintf(f, "%s{\"core\": %" PRIu32 ", \"bytes\": %" PRIu64 "}", k++ ? ", " : "", t, res->thread_bytes[t]);
    fprintf(f, "],\n  \"compare\": [");
    for (size_t i = 0; i < res->nrows; i++) {
        const tm_pt_row *w = &res->rows[i];
        fprintf(f, "%s\n    {\"format\": \"%s\", \"bits\": %.0f, \"bpi\": %.6f, \"bpc\": %.6f, \"dropped_messages\": %" PRIu64
                   ", \"timed\": %s, \"pt_over_this\": %.6f}",
                i ? "," : "", w->name, w->bits, insns ? w->bits / insns : 0.0, cyc ? w->bits / cyc : 0.0, w->dropped,
                w->timed ? "true" : "false", w->bits ? res->rows[w->timed].bits / w->bits : 0.0);
    }
    fprintf(f, "%s],\n  \"verify\": ", res->nrows ? "\n  " : "");
    if (verify)
        fprintf(f, "{\"ok\": %s, \"checked\": %" PRIu64 ", \"cores\": %" PRIu64 "}\n}\n", verify_ok ? "true" : "false",
                verify->checked, verify->threads);
    else
        fprintf(f, "null\n}\n");
}
