/* tm — what `tm config` prints (tm/describe.h): a manifest entry or a
 * resolved configuration in one of --format's formats, from the RTL's
 * parameter table (tm/rtl_params.h), and the manifest's tiers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/status.h"
#include "tm/describe.h"
#include "tm/modelspec.h"
#include "tm/out.h"
#include "tm/rtl_params.h"

static const char *param_of(const tm_rtl_param *p, size_t np, const char *name, unsigned *v)
{
    for (size_t i = 0; i < np; i++)
        if (!strcmp(p[i].name, name)) {
            *v = p[i].value;
            return p[i].name;
        }
    *v = 0;
    return NULL;
}

/* One core's modules (tm_core at N = 1 and its private predictors), then
 * the buffer of the configuration's N and, with CFiat, one core's cache. */
static void print_modules(FILE *out, const tm_model_cfg *c, const tm_rtl_param *p, size_t np, int json)
{
    char line[8][256];
    int n = 0;
    unsigned v[12];
    const char *const core[] = {"ENC", "TS", "CA", "CB", "TA", "TB", "HA", "HB"};
    int w = snprintf(line[n], sizeof line[n], "tm_core N=1");
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++) {
        param_of(p, np, core[i], &v[0]);
        w += snprintf(line[n] + w, sizeof line[n] - (size_t)w, ",%s=%u", core[i], v[0]);
    }
    n++;
    int pred = c->enc.enc != TM_ENC_NX_B;
    if (pred && c->pred.gshare)
        snprintf(line[n++], sizeof line[0], "tm_gshare ENTRIES=%u,P=1", c->pred.gshare);
    if (pred && c->pred.tage.base) {
        const tm_tage_cfg *t = &c->pred.tage;
        snprintf(line[n++], sizeof line[0], "tm_tage BASE=%u,TABLES=%u,ENTRIES=%u,TAG=%u,LMIN=%u,LMAX=%u,P=1",
                 t->base, t->tables, t->entries, t->tag, t->lmin, t->lmax);
    }
    if (pred && c->pred.ras)
        snprintf(line[n++], sizeof line[0], "tm_ras ENTRIES=%u,P=1", c->pred.ras);
    if (pred && c->pred.ibtb)
        snprintf(line[n++], sizeof line[0], "tm_ibtb ENTRIES=%u,P=1", c->pred.ibtb);
    if (pred && c->pred.ittage.base) {
        const tm_tage_cfg *t = &c->pred.ittage;
        snprintf(line[n++], sizeof line[0], "tm_ittage BASE=%u,TABLES=%u,ENTRIES=%u,TAG=%u,LMIN=%u,LMAX=%u,P=1",
                 t->base, t->tables, t->entries, t->tag, t->lmin, t->lmax);
    }
    snprintf(line[n++], sizeof line[0], "tm_buffer N=%u,SHARED=%u,BUF_BITS=%u,PORT_BITS=%u,MAXW=%u,RESERVE=%u",
             c->enc.threads, c->shared != 0, c->buffer_bits, c->port_bits, tm_msg_max_bits(&c->enc),
             tm_msg_reserve_bits(&c->enc));
    if (c->enc.data == TM_DATA_CFIAT)
        snprintf(line[n++], sizeof line[0], "tm_dcache SIZE=%u,ASSOC=%u,LINE=%u,GRAN=%u,N=1", c->cache.size,
                 c->cache.assoc, c->cache.line, c->cache.gran);
    for (int i = 0; i < n; i++) {
        if (json) {
            fprintf(out, "%s", i ? ", " : "");
            tm_json_str(out, line[i]);
        } else {
            fprintf(out, "%s\n", line[i]);
        }
    }
}

static void print_sizes(FILE *out, const tm_model_cfg *c, const tm_rtl_param *p, size_t np, int json)
{
    unsigned maxw, reserve, dmaxw, dlmax, lenw;
    param_of(p, np, "MAXW", &maxw);
    param_of(p, np, "RESERVE", &reserve);
    param_of(p, np, "DMAXW", &dmaxw);
    param_of(p, np, "DLMAX", &dlmax);
    param_of(p, np, "LENW", &lenw);
    const char *fmt = json ? "{\"maxw\": %u, \"reserve\": %u, \"dmaxw\": %u, \"dlmax\": %u, \"lenw\": %u, "
                             "\"buffer_bits\": %u, \"port_bits\": %u}"
                           : "maxw %u\nreserve %u\ndmaxw %u\ndlmax %u\nlenw %u\nbuffer_bits %u\nport_bits %u\n";
    fprintf(out, fmt, maxw, reserve, dmaxw, dlmax, lenw, c->buffer_bits, c->port_bits);
}

/* The formats of tm config --format. */
int tm_describe_format_check(const char *format, char *err, size_t errlen)
{
    static const char *const formats[] = {"opts",   "threads", "stream",  "tiers", "key", "vflags",
                                          "params", "sizes",   "modules", "module", "json"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (!strcmp(format, formats[i]))
            return TM_OK;
    return tm_errf(TM_ERR_ARG, err, errlen, "--format %s: allowed opts, threads, stream, tiers, key, vflags, params, sizes, "
                                "modules, module, json", format);
}

/* What FORMAT asks of the resolved configuration C: key, vflags, params,
 * sizes, modules, or (json) all of them with the manifest entry E's fields. */
int tm_describe_cfg(FILE *out, const tm_model_cfg *c, const tm_mf_entry *e, const char *format, char *err,
                    size_t errlen)
{
    if (!e && (!strcmp(format, "opts") || !strcmp(format, "stream") || !strcmp(format, "tiers") ||
               !strcmp(format, "threads") || !strcmp(format, "module")))
        return tm_errf(TM_ERR_ARG, err, errlen, "--format %s: with model options, allowed key, vflags, params, sizes, modules, "
                                    "json", format);
    size_t np = tm_rtl_param_count();
    tm_rtl_param *p = calloc(np, sizeof *p);
    char key[512], vc[4096];
    if (!p || tm_rtl_params_text(c, key, sizeof key, vc, sizeof vc, NULL, 0) != TM_OK) {
        free(p);
        snprintf(err, errlen, "%s: the RTL parameters do not fit their buffers", e ? e->name : "the options");
        return TM_ERR_NOMEM;
    }
    tm_rtl_params(c, p);
    if (!strcmp(format, "key")) {
        fprintf(out, "%s\n", key);
    } else if (!strcmp(format, "vflags")) {
        fputs(strchr(vc, '\n') + 1, out); /* after the comment line */
    } else if (!strcmp(format, "params")) {
        for (size_t i = 0; i < np; i++)
            fprintf(out, "%s=%u\n", p[i].name, p[i].value);
    } else if (!strcmp(format, "sizes")) {
        print_sizes(out, c, p, np, 0);
    } else if (!strcmp(format, "modules")) {
        print_modules(out, c, p, np, 0);
    } else { /* json */
        fprintf(out, "{\"name\": ");
        tm_json_str(out, e ? e->name : "");
        fprintf(out, ", \"kind\": \"config\", \"tiers\": ");
        tm_json_str(out, e ? e->tiers : "");
        fprintf(out, ", \"threads\": %u, \"stream\": ", c->enc.threads);
        tm_json_str(out, e ? e->stream : "-");
        fprintf(out, ", \"options\": [");
        for (int i = 0; e && i < e->argc; i++) {
            fprintf(out, "%s", i ? ", " : "");
            tm_json_str(out, e->argv[i]);
        }
        fprintf(out, "], \"encoding\": ");
        tm_json_str(out, tm_encoding_name(c->enc.enc));
        fprintf(out, ", \"key\": ");
        tm_json_str(out, key);
        fprintf(out, ", \"params\": {");
        for (size_t i = 0; i < np; i++)
            fprintf(out, "%s\"%s\": %u", i ? ", " : "", p[i].name, p[i].value);
        fprintf(out, "}, \"sizes\": ");
        print_sizes(out, c, p, np, 1);
        fprintf(out, ", \"modules\": [");
        print_modules(out, c, p, np, 1);
        fprintf(out, "]}\n");
    }
    free(p);
    return TM_OK;
}

int tm_describe_entry(FILE *out, const tm_mf_entry *e, uint32_t threads, const char *format, char *err,
                      size_t errlen)
{
    int json = !strcmp(format, "json");
    if (!strcmp(format, "tiers")) {
        fprintf(out, "%s\n", e->tiers);
        return 1;
    }
    if (e->kind == TM_MF_MODULE) {
        if (!strcmp(format, "module")) {
            fprintf(out, "%s\n", e->module);
        } else if (!strcmp(format, "params") || !strcmp(format, "vflags")) {
            for (int i = 0; i < e->argc; i++)
                fprintf(out, "%s%s\n", !strcmp(format, "vflags") ? "-G" : "", e->argv[i]);
        } else if (json) {
            fprintf(out, "{\"name\": ");
            tm_json_str(out, e->name);
            fprintf(out, ", \"kind\": \"module\", \"tiers\": ");
            tm_json_str(out, e->tiers);
            fprintf(out, ", \"module\": ");
            tm_json_str(out, e->module);
            fprintf(out, ", \"params\": {");
            for (int i = 0; i < e->argc; i++) {
                const char *eq = strchr(e->argv[i], '=');
                fprintf(out, "%s\"%.*s\": ", i ? ", " : "", (int)(eq - e->argv[i]), e->argv[i]);
                tm_json_str(out, eq + 1);
            }
            fprintf(out, "}}\n");
        } else {
            return tm_errf(TM_ERR_ARG, err, errlen, "%s is a module entry: --format %s is for configurations (use module, "
                                        "params, vflags, tiers or json)", e->name, format);
        }
        return 1;
    }
    if (!strcmp(format, "module")) {
        return tm_errf(TM_ERR_ARG, err, errlen, "%s is a configuration: --format module is for module entries", e->name);
    }
    if (!strcmp(format, "opts") || !strcmp(format, "threads") || !strcmp(format, "stream")) {
        if (!strcmp(format, "threads"))
            fprintf(out, "%u\n", threads ? threads : e->threads);
        else if (!strcmp(format, "stream"))
            fprintf(out, "%s\n", e->stream);
        else
            for (int i = 0; i < e->argc; i++)
                fprintf(out, "%s%s", e->argv[i], i + 1 < e->argc ? " " : "\n");
        return 1;
    }
    if (!threads && !e->threads)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: its thread count is taken from the stream (N '-'): give --threads N",
                       e->name);
    return 0;
}

int tm_mf_entry_cfg(const tm_mf_entry *e, uint32_t threads, tm_model_cfg *cfg, char *err, size_t errlen)
{
    tm_model_spec s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < e->argc; i++) {
        int r = tm_model_spec_arg(tm_model_spec_opts, &s, e->argc, e->argv, &i, err, errlen);
        if (r < 0)
            return r;
        if (r == 0) {
            snprintf(err, errlen, "%s:%u: '%s' is not a model option", e->file, e->line, e->argv[i]);
            return TM_ERR_FORMAT;
        }
    }
    return tm_model_spec_cfg(&s, threads, cfg, err, errlen);
}

void tm_manifest_list_tiers(FILE *out, const tm_manifest *m)
{
    size_t n = tm_manifest_count(m);
    for (size_t i = 0; i < n; i++) {
        const char *t = tm_manifest_entry(m, i)->tiers;
        while (*t) {
            size_t l = strcspn(t, ",");
            char tier[128];
            snprintf(tier, sizeof tier, "%.*s", (int)(l < 127 ? l : 127), t);
            int seen = 0;
            for (size_t j = 0; j < i && !seen; j++)
                seen = tm_mf_in_tiers(tm_manifest_entry(m, j), tier);
            const char *u = tm_manifest_entry(m, i)->tiers;
            for (; u < t && !seen; u += strcspn(u, ",") + 1)
                seen = strcspn(u, ",") == l && !strncmp(u, t, l);
            if (!seen)
                fprintf(out, "%s\n", tier);
            t += l + (t[l] == ',');
        }
    }
}

size_t tm_manifest_list_tier(FILE *out, const tm_manifest *m, const char *tiers)
{
    size_t hits = 0, n = tm_manifest_count(m);
    for (size_t i = 0; i < n; i++)
        if (tm_mf_in_tiers(tm_manifest_entry(m, i), tiers)) {
            fprintf(out, "%s\n", tm_manifest_entry(m, i)->name);
            hits++;
        }
    return hits;
}
