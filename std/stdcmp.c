/* tm — the trace module beside a trace standard in one pass
 * (tm/stdcmp.h, docs/standards.md §5). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tm/model.h"
#include "tm/msg.h"
#include "tm/out.h"
#include "tm/pred.h"
#include "tm/stdcmp.h"
#include "tm/status.h"
#include "tm/sweep.h"

/* The paper's presets with every encoding, then the TAGE-class presets with
 * the two predicting encodings that use them best. */
static const char *const paper_presets[] = {"small", "medium", "large"};
static const char *const tage_presets[] = {"tage-s", "tage-m", "tage-l"};
static const tm_encoding tage_encs[] = {TM_ENC_TR_E, TM_ENC_TR_A};
#define NPAPER (1 + 3 * 3) /* nx_b predicts nothing: one row */
#define NTAGE (3 * 2)
#define NROWS (NPAPER + NTAGE)

struct tm_stdcmp {
    tm_sweep *sw;
    size_t n;                /* the rows chosen, in the fixed order */
    tm_model_cfg cfg[NROWS];
    char name[NROWS][48];
};

/* Configuration I: its encoding, preset and row name. */
static void cfg_of(size_t i, tm_encoding *enc, const char **preset, char *name, size_t n)
{
    if (i == 0) {
        *enc = TM_ENC_NX_B;
        *preset = "large";
        snprintf(name, n, "%s", tm_encoding_name(*enc));
    } else if (i < NPAPER) {
        *enc = (tm_encoding)(1 + (i - 1) / 3);
        *preset = paper_presets[(i - 1) % 3];
        snprintf(name, n, "%s-%s", tm_encoding_name(*enc), *preset);
    } else {
        size_t j = i - NPAPER;
        *enc = tage_encs[j % 2];
        *preset = tage_presets[j / 2];
        snprintf(name, n, "%s+%s", *preset, tm_encoding_name(*enc));
    }
}

/* Whether row NAME is in the comma-separated list SOME (NULL: every row). */
static int chosen(const char *some, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = some; p && *p;) {
        const char *q = strchr(p, ',');
        size_t k = q ? (size_t)(q - p) : strlen(p);
        if (k == l && !strncmp(p, name, l))
            return 1;
        p = q ? q + 1 : p + k;
    }
    return !some;
}

/* Every name of SOME is a row's: TM_OK, or TM_ERR_ARG naming the first
 * that is not and the rows there are. */
static int check_names(const char *some, char *err, size_t errlen)
{
    char all[NROWS * 16] = "", nm[48];
    for (size_t i = 0; i < NROWS; i++) {
        tm_encoding enc;
        const char *preset;
        cfg_of(i, &enc, &preset, nm, sizeof nm);
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", nm);
    }
    for (const char *p = some; *p;) {
        const char *q = strchr(p, ',');
        size_t k = q ? (size_t)(q - p) : strlen(p);
        int found = 0;
        for (size_t i = 0; i < NROWS && !found; i++) {
            tm_encoding enc;
            const char *preset;
            cfg_of(i, &enc, &preset, nm, sizeof nm);
            found = strlen(nm) == k && !strncmp(p, nm, k);
        }
        if (!found)
            return tm_errf(TM_ERR_ARG, err, errlen, "'%.*s' is not a row of the trace module (one of: %s)", (int)k, p,
                           all);
        p = q ? q + 1 : p + k;
    }
    return TM_OK;
}

int tm_stdcmp_new(uint32_t threads, uint32_t cores, tm_stdcmp **out, char *err, size_t errlen)
{
    return tm_stdcmp_new_some(threads, cores, NULL, out, err, errlen);
}

int tm_stdcmp_new_some(uint32_t threads, uint32_t cores, const char *some, tm_stdcmp **out, char *err, size_t errlen)
{
    *out = NULL;
    if (some && check_names(some, err, errlen) != TM_OK)
        return TM_ERR_ARG;
    tm_stdcmp *c = calloc(1, sizeof *c);
    if (!c)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    (void)threads;
    for (size_t i = 0; i < NROWS; i++) {
        tm_encoding enc;
        const char *preset;
        char nm[48];
        cfg_of(i, &enc, &preset, nm, sizeof nm);
        if (!chosen(some, nm))
            continue;
        snprintf(c->name[c->n], sizeof c->name[c->n], "%s", nm);
        tm_model_cfg *cfg = &c->cfg[c->n++];
        /* the Ti field has floor(log2 N) bits for the N cores that ran */
        tm_enc_cfg_default(&cfg->enc, enc, cores ? cores : 1, 0);
        if (tm_model_preset(cfg, preset) != TM_OK) {
            free(c);
            return tm_errf(TM_ERR_ARG, err, errlen, "no preset '%s'", preset);
        }
        /* a buffer and port that drop nothing: the demand */
        cfg->buffer_bits = 65536;
        cfg->port_bits = 1024;
        int rc = tm_model_cfg_resolve(cfg, err, errlen);
        if (rc != TM_OK) {
            free(c);
            return rc;
        }
    }
    if (!c->n) {
        free(c);
        return tm_errf(TM_ERR_ARG, err, errlen, "no row of the trace module chosen");
    }
    char e[512];
    int rc = tm_sweep_new(c->cfg, c->n, &c->sw, e, sizeof e);
    if (rc != TM_OK) {
        free(c);
        return tm_errf(rc, err, errlen, "cannot make the trace module's models: %s", e);
    }
    *out = c;
    return TM_OK;
}

int tm_stdcmp_set_isa(tm_stdcmp *c, int isa)
{
    return tm_sweep_set_isa(c->sw, isa);
}

static int model_error(tm_stdcmp *c, int rc, char *err, size_t errlen)
{
    size_t i = tm_sweep_failed(c->sw);
    if (i >= c->n)
        return tm_errf(rc, err, errlen, "the trace module's model failed");
    return tm_errf(rc, err, errlen, "the trace module (%s): %s", c->name[i],
                   tm_model_error(tm_sweep_model(c->sw, i)));
}

int tm_stdcmp_put(tm_stdcmp *c, const tmc_record *r, char *err, size_t errlen)
{
    int rc = tm_sweep_put(c->sw, r);
    return rc == TM_OK ? TM_OK : model_error(c, rc, err, errlen);
}

int tm_stdcmp_finish(tm_stdcmp *c, char *err, size_t errlen)
{
    int rc = tm_sweep_finish(c->sw);
    return rc == TM_OK ? TM_OK : model_error(c, rc, err, errlen);
}

size_t tm_stdcmp_nrows(const tm_stdcmp *c)
{
    return c->n;
}

void tm_stdcmp_rows(const tm_stdcmp *c, tm_std_row *rows)
{
    for (size_t i = 0; i < c->n; i++) {
        const tm_model_stats *ms = tm_model_get_stats(tm_sweep_model(c->sw, i));
        tm_std_row *w = &rows[i];
        memset(w, 0, sizeof *w);
        snprintf(w->name, sizeof w->name, "%s", c->name[i]);
        snprintf(w->kind, sizeof w->kind, "tm");
        w->bits = (double)ms->total.bits_total;
        w->dropped = ms->total.dropped_messages;
        w->storage_bits = c->cfg[i].enc.enc == TM_ENC_NX_B ? 0 : tm_pred_cfg_bits(&c->cfg[i].pred);
        w->verified = -1;
    }
}

uint64_t tm_stdcmp_instructions(const tm_stdcmp *c)
{
    return tm_model_get_stats(tm_sweep_model(c->sw, 0))->total.instructions;
}

uint64_t tm_stdcmp_cycles(const tm_stdcmp *c)
{
    return tm_model_get_stats(tm_sweep_model(c->sw, 0))->exec_cycles;
}

void tm_stdcmp_free(tm_stdcmp *c)
{
    if (!c)
        return;
    tm_sweep_free(c->sw);
    free(c);
}

uint32_t tm_stdcmp_cores(const char *tmc, uint32_t threads)
{
    tmc_reader *r = NULL;
    tmc_record rr;
    uint32_t top = 0;
    char err[256];
    int g = tmc_reader_open(tmc, &r, err, sizeof err);
    /* (the loop once tested g == TM_OK, which the first record's 1 ended:
     * every stream counted as THREADS cores) */
    if (g == TM_OK)
        while ((g = tmc_reader_next(r, &rr)) == 1)
            if (rr.type == TMC_START && rr.tid + 1 > top)
                top = rr.tid + 1;
    tmc_reader_close(r);
    return top && g == 0 ? top : threads;
}

static double per(double bits, uint64_t n)
{
    return n ? bits / (double)n : 0.0;
}

void tm_std_table(FILE *f, const tm_std_row *rows, size_t n, size_t ref, uint64_t instructions, uint64_t cycles)
{
    fprintf(f, "%-28s %9s %9s %8s %12s  %s\n", "trace", "bits/ins", "bits/cyc", "ratio", "state bits", "");
    for (size_t i = 0; i < n; i++) {
        const tm_std_row *w = &rows[i];
        char extra[96] = "";
        if (w->dropped)
            snprintf(extra, sizeof extra, "LOSSY: %" PRIu64 " messages dropped", w->dropped);
        else if (w->verified == 1)
            snprintf(extra, sizeof extra, "verified");
        else if (w->verified == 0)
            snprintf(extra, sizeof extra, "VERIFY FAILED");
        double ratio = ref < n && w->bits > 0 ? rows[ref].bits / w->bits : 0.0;
        fprintf(f, "%-28s %9.4f %9.4f %7.2fx %12" PRIu64 "  %s\n", w->name, per(w->bits, instructions),
                per(w->bits, cycles), ratio, w->storage_bits, extra);
    }
}

void tm_std_rows_json(FILE *f, const tm_std_row *rows, size_t n, uint64_t instructions, uint64_t cycles)
{
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        const tm_std_row *w = &rows[i];
        fprintf(f, "%s{\"name\": ", i ? ", " : "");
        tm_json_str(f, w->name);
        fprintf(f, ", \"kind\": ");
        tm_json_str(f, w->kind);
        fprintf(f,
                ", \"bits\": %.0f, \"bpi\": %.6f, \"bpc\": %.6f, \"dropped\": %" PRIu64
                ", \"storage_bits\": %" PRIu64 ", \"verified\": %s}",
                w->bits, per(w->bits, instructions), per(w->bits, cycles), w->dropped, w->storage_bits,
                w->verified == 1 ? "true" : w->verified == 0 ? "false" : "null");
    }
    fputc(']', f);
}
