/* tm config — the manifest of named configurations (rtl/configs.txt,
 * include/tm/manifest.h): lists the configurations of a tier and prints what
 * each tool needs of one of them, derived by the library (the model's
 * configuration, include/tm/rtl_params.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "cmd.h"
#include "tm/opt.h"
#include "modelopts.h"
#include "tm/manifest.h"
#include "tm/model.h"
#include "tm/rtl_params.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm config [--manifest F] --list TIER[,TIER...]   the names of a tier's configurations\n"
            "       tm config [--manifest F] --list-tiers | --check\n"
            "       tm config --list-presets | --list-encodings\n"
            "       tm config [--manifest F] NAME [--threads N] [--format FORMAT]\n"
            "       tm config [model options] --threads N [--format FORMAT]\n"
            "The manifest (default: rtl/configs.txt of the repository, or $TM_MANIFEST) lists every named\n"
            "configuration once with its tiers; docs/testing.md describes it.\n"
            "  --list TIERS        names of the entries in any of the tiers, in the manifest's order\n"
            "  --list-tiers        every tier named in the manifest\n"
            "  --check             resolve every configuration (one line per bad entry, exit 1)\n"
            "  --list-presets      the predictor presets of the model (--config)\n"
            "  --list-encodings    the message encodings of the model (--encoding)\n"
            "  --threads N         the thread count (overrides the entry's N; needed when it is '-')\n"
            "  --format FORMAT     what to print of the configuration (default json):\n"
            "      opts      its tm model options, one line\n"
            "      threads   its thread count N (0: taken from the stream)\n"
            "      stream    the commit stream its co-simulation runs on ('-': none)\n"
            "      tiers     its tiers, comma-separated\n"
            "      key       the name of its co-simulation simulator's build folder\n"
            "      vflags    the Verilator -G flags of tm_top (modules: of the module), one per line\n"
            "      params    every RTL parameter with the derived ones, NAME=VALUE, one per line\n"
            "      sizes     the derived sizes: maxw reserve dmaxw dlmax lenw buffer_bits port_bits\n"
            "      modules   one core's RTL modules with their parameters (MODULE P=V,P=V), then the\n"
            "                shared buffer and, with CFiat, the data cache (make gates)\n"
            "      module    (module entries) the RTL module\n"
            "      json      all of the above as one JSON object\n"
            "model options (without a NAME):\n%s",
            model_opts_help);
}

/* The resolved configuration of entry E (or of the options O) for THREADS. */
static int entry_cfg(const tm_mf_entry *e, uint32_t threads, tm_model_cfg *cfg)
{
    model_opts o;
    memset(&o, 0, sizeof o);
    char sub[300];
    snprintf(sub, sizeof sub, "config %s", e->name);
    for (int i = 0; i < e->argc; i++) {
        int r = model_opts_parse(sub, &o, e->argc, e->argv, &i);
        if (r < 0)
            return -1;
        if (r == 0) {
            tm_err(sub, "%s:%u: '%s' is not a model option", e->file, e->line, e->argv[i]);
            return -1;
        }
    }
    return model_opts_cfg(sub, &o, threads, cfg) ? -1 : 0;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

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
static void print_modules(const tm_model_cfg *c, const tm_rtl_param *p, size_t np, int json)
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
            printf("%s", i ? ", " : "");
            json_str(line[i]);
        } else {
            printf("%s\n", line[i]);
        }
    }
}

static void print_sizes(const tm_model_cfg *c, const tm_rtl_param *p, size_t np, int json)
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
    printf(fmt, maxw, reserve, dmaxw, dlmax, lenw, c->buffer_bits, c->port_bits);
}

/* 1 if FORMAT is one of --format's; else one line and 0. */
static int format_known(const char *format)
{
    static const char *const formats[] = {"opts",   "threads", "stream",  "tiers", "key", "vflags",
                                          "params", "sizes",   "modules", "module", "json"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (!strcmp(format, formats[i]))
            return 1;
    tm_err("config", "--format %s: allowed opts, threads, stream, tiers, key, vflags, params, sizes, modules, "
                     "module, json",
           format);
    return 0;
}

/* What FORMAT asks of the resolved configuration C: key, vflags, params,
 * sizes, modules, or (json) all of them with the manifest entry E's fields. */
static int print_cfg(const tm_model_cfg *c, const tm_mf_entry *e, const char *format)
{
    size_t np = tm_rtl_param_count();
    tm_rtl_param *p = calloc(np, sizeof *p);
    char key[512], vc[4096];
    if (!p || tm_rtl_params_text(c, key, sizeof key, vc, sizeof vc, NULL, 0) != TM_OK) {
        free(p);
        tm_err("config", "%s: the RTL parameters do not fit their buffers", e ? e->name : "the options");
        return 1;
    }
    tm_rtl_params(c, p);
    if (!strcmp(format, "key")) {
        printf("%s\n", key);
    } else if (!strcmp(format, "vflags")) {
        fputs(strchr(vc, '\n') + 1, stdout); /* after the comment line */
    } else if (!strcmp(format, "params")) {
        for (size_t i = 0; i < np; i++)
            printf("%s=%u\n", p[i].name, p[i].value);
    } else if (!strcmp(format, "sizes")) {
        print_sizes(c, p, np, 0);
    } else if (!strcmp(format, "modules")) {
        print_modules(c, p, np, 0);
    } else { /* json */
        printf("{\"name\": ");
        json_str(e ? e->name : "");
        printf(", \"kind\": \"config\", \"tiers\": ");
        json_str(e ? e->tiers : "");
        printf(", \"threads\": %u, \"stream\": ", c->enc.threads);
        json_str(e ? e->stream : "-");
        printf(", \"options\": [");
        for (int i = 0; e && i < e->argc; i++) {
            printf("%s", i ? ", " : "");
            json_str(e->argv[i]);
        }
        printf("], \"encoding\": ");
        json_str(tm_encoding_name(c->enc.enc));
        printf(", \"key\": ");
        json_str(key);
        printf(", \"params\": {");
        for (size_t i = 0; i < np; i++)
            printf("%s\"%s\": %u", i ? ", " : "", p[i].name, p[i].value);
        printf("}, \"sizes\": ");
        print_sizes(c, p, np, 1);
        printf(", \"modules\": [");
        print_modules(c, p, np, 1);
        printf("]}\n");
    }
    free(p);
    return 0;
}

static int print_entry(const tm_mf_entry *e, uint32_t threads, const char *format)
{
    if (!format_known(format))
        return 2;
    int json = !strcmp(format, "json");
    if (!strcmp(format, "tiers")) {
        printf("%s\n", e->tiers);
        return 0;
    }
    if (e->kind == TM_MF_MODULE) {
        if (!strcmp(format, "module")) {
            printf("%s\n", e->module);
        } else if (!strcmp(format, "params") || !strcmp(format, "vflags")) {
            for (int i = 0; i < e->argc; i++)
                printf("%s%s\n", !strcmp(format, "vflags") ? "-G" : "", e->argv[i]);
        } else if (json) {
            printf("{\"name\": ");
            json_str(e->name);
            printf(", \"kind\": \"module\", \"tiers\": ");
            json_str(e->tiers);
            printf(", \"module\": ");
            json_str(e->module);
            printf(", \"params\": {");
            for (int i = 0; i < e->argc; i++) {
                const char *eq = strchr(e->argv[i], '=');
                printf("%s\"%.*s\": ", i ? ", " : "", (int)(eq - e->argv[i]), e->argv[i]);
                json_str(eq + 1);
            }
            printf("}}\n");
        } else {
            tm_usage("config", "%s is a module entry: --format %s is for configurations (use module, params, "
                             "vflags, tiers or json)",
                   e->name, format);
            return 2;
        }
        return 0;
    }
    if (!strcmp(format, "module")) {
        tm_usage("config", "%s is a configuration: --format module is for module entries", e->name);
        return 2;
    }
    if (!strcmp(format, "opts") || !strcmp(format, "threads") || !strcmp(format, "stream")) {
        if (!strcmp(format, "threads"))
            printf("%u\n", threads ? threads : e->threads);
        else if (!strcmp(format, "stream"))
            printf("%s\n", e->stream);
        else
            for (int i = 0; i < e->argc; i++)
                printf("%s%s", e->argv[i], i + 1 < e->argc ? " " : "\n");
        return 0;
    }
    uint32_t n = threads ? threads : e->threads;
    if (!n) {
        tm_usage("config", "%s: its thread count is taken from the stream (N '-'): give --threads N", e->name);
        return 2;
    }
    tm_model_cfg cfg;
    if (entry_cfg(e, n, &cfg))
        return 1;
    return print_cfg(&cfg, e, format);
}

/* tm config's command line. */
typedef struct config_args {
    const char *manifest, *list, *format, *name, *threads;
    int list_tiers, list_presets, list_encodings, check, nopts;
    model_opts o;
} config_args;

static const tm_optdef config_opts[] = {
    {"--manifest", NULL, TM_OPT_VALUE, offsetof(config_args, manifest), 0, "a file name"},
    {"--list", NULL, TM_OPT_VALUE, offsetof(config_args, list), 0, "a tier name (tm config --list-tiers lists them)"},
    {"--format", NULL, TM_OPT_VALUE, offsetof(config_args, format), 0,
     "one of opts, threads, stream, tiers, key, vflags, params, sizes, modules, module, json"},
    {"--threads", NULL, TM_OPT_VALUE, offsetof(config_args, threads), 0, "a number"},
    {"--list-tiers", NULL, TM_OPT_FLAG, offsetof(config_args, list_tiers), 0, NULL},
    {"--list-presets", NULL, TM_OPT_FLAG, offsetof(config_args, list_presets), 0, NULL},
    {"--list-encodings", NULL, TM_OPT_FLAG, offsetof(config_args, list_encodings), 0, NULL},
    {"--check", NULL, TM_OPT_FLAG, offsetof(config_args, check), 0, NULL}, {NULL, NULL, 0, 0, 0, NULL}};

/* The command line into C: 0, 1 (--help printed) or 2 after a usage error. */
static int config_parse(int argc, char **argv, config_args *C)
{
    memset(C, 0, sizeof *C);
    C->manifest = getenv("TM_MANIFEST");
    C->format = "json";
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t[2] = {{config_opts, C}, {model_opts_table, &C->o}};
    const tm_optdef *hit;
    const char *v;
    char perr[256];
    int pr;
    while ((pr = tm_opt_next(&p, t, 2, &hit, &v, perr, sizeof perr)) > 0) {
        if (pr == TM_OPT_HELP)
            return usage(stdout), 1;
        if (pr == TM_OPT_OPERAND && C->name)
            return tm_usage("config", "unexpected argument '%s': one configuration name only", v), 2;
        if (pr == TM_OPT_OPERAND)
            C->name = v;
        if (pr == TM_OPT_MATCH && (hit < config_opts || hit >= config_opts + sizeof config_opts / sizeof *hit))
            C->nopts++; /* a model option */
    }
    if (pr < 0)
        return tm_usage("config", "%s", perr), 2;
    if (C->list && !*C->list)
        return tm_usage("config", "--list needs a tier name (tm config --list-tiers lists them)"), 2;
    return 0;
}

/* A configuration of model options alone (--threads N): the exit status. */
static int config_of_options(const config_args *C, uint32_t threads)
{
    if (C->name || C->list || C->list_tiers || C->check)
        return tm_usage("config", "model options describe a configuration of their own: not with a NAME, --list or "
                                  "--check"), 2;
    if (!threads)
        return tm_usage("config", "--threads N: the thread count of the configuration"), 2;
    tm_model_cfg cfg;
    if (model_opts_cfg("config", &C->o, threads, &cfg))
        return 2;
    if (!format_known(C->format))
        return 2;
    if (!strcmp(C->format, "opts") || !strcmp(C->format, "stream") || !strcmp(C->format, "tiers") ||
        !strcmp(C->format, "threads") || !strcmp(C->format, "module"))
        return tm_usage("config", "--format %s: with model options, allowed key, vflags, params, sizes, modules, "
                                  "json", C->format), 2;
    return tm_finish_stdout("config", print_cfg(&cfg, NULL, C->format));
}

/* --list-tiers: every tier of M once, in the order of first use. */
static void list_tiers(const tm_manifest *m)
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
                printf("%s\n", tier);
            t += l + (t[l] == ',');
        }
    }
}

/* --check: every configuration of M resolves; the exit status. */
static int check_manifest(const tm_manifest *m)
{
    size_t n = tm_manifest_count(m), bad = 0, cfgs = 0;
    for (size_t i = 0; i < n; i++) {
        const tm_mf_entry *e = tm_manifest_entry(m, i);
        if (e->kind != TM_MF_CONFIG)
            continue;
        tm_model_cfg cfg;
        cfgs++;
        if (entry_cfg(e, e->threads ? e->threads : 1, &cfg))
            bad++;
    }
    printf("config: %zu entries, %zu configurations, %zu bad\n", n, cfgs, bad);
    return bad ? 1 : 0;
}

/* --list TIER: the names of its entries; the exit status. */
static int list_tier(const tm_manifest *m, const char *list, const char *manifest)
{
    size_t hits = 0, n = tm_manifest_count(m);
    for (size_t i = 0; i < n; i++)
        if (tm_mf_in_tiers(tm_manifest_entry(m, i), list)) {
            printf("%s\n", tm_manifest_entry(m, i)->name);
            hits++;
        }
    if (!hits) {
        tm_err("config", "--list %s: no entry of %s is in that tier (tm config --list-tiers lists them)", list,
               manifest);
        return 1;
    }
    return 0;
}

int cmd_config(int argc, char **argv)
{
    config_args C;
    int pr = config_parse(argc, argv, &C);
    if (pr)
        return pr == 1 ? 0 : pr;
    uint32_t threads = 0;
    if (C.threads) {
        uint64_t t;
        if (tm_parse_u64(C.threads, &t) || t < 1 || t > TMC_MAX_THREADS)
            return tm_usage("config", "--threads %s: allowed 1..%u", C.threads, TMC_MAX_THREADS), 2;
        threads = (uint32_t)t;
    }
    if (C.list_presets || C.list_encodings) {
        if (C.list_presets)
            for (unsigned i = 0; tm_model_preset_name(i); i++)
                printf("%s\n", tm_model_preset_name(i));
        if (C.list_encodings)
            for (unsigned i = 0; i < TM_ENCODINGS; i++)
                printf("%s\n", tm_encoding_name((tm_encoding)i));
        return tm_finish_stdout("config", 0);
    }
    if (C.nopts || (!C.name && !C.list && !C.list_tiers && !C.check && C.threads))
        return config_of_options(&C, threads);
    if (!C.name && !C.list && !C.list_tiers && !C.check)
        return tm_usage("config", "nothing to print: give a NAME, --list TIER, --list-tiers, --check, "
                                  "--list-presets, --list-encodings, or model options with --threads N"), 2;
    char path[4200];
    const char *manifest = C.manifest;
    if (!manifest) {
        char root[4096];
        if (tm_find_root(root, sizeof root)) {
            tm_err("config", "cannot find the repository (rtl/configs.txt above the tm executable): give "
                             "--manifest F");
            return 1;
        }
        snprintf(path, sizeof path, "%s/rtl/configs.txt", root);
        manifest = path;
    }
    tm_manifest *m = NULL;
    char err[600];
    if (tm_manifest_load(manifest, &m, err, sizeof err) != TM_OK) {
        tm_err("config", "%s", err);
        return 1;
    }
    int status = 0;
    if (C.list_tiers) {
        list_tiers(m);
    } else if (C.list) {
        status = list_tier(m, C.list, manifest);
    } else if (C.check) {
        status = check_manifest(m);
    } else {
        const tm_mf_entry *e = tm_manifest_find(m, C.name);
        if (!e) {
            tm_err("config", "%s: no configuration of that name in %s (tm config --list TIER lists them)", C.name,
                   manifest);
            status = 2;
        } else {
            status = print_entry(e, threads, C.format);
        }
    }
    tm_manifest_free(m);
    return tm_finish_stdout("config", status);
}
