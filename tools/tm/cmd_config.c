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
#include "tm/describe.h"
#include "tm/manifest.h"
#include "tm/model.h"

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

/* The resolved configuration of entry E for THREADS: 0, or -1 after one
 * line (as tm config NAME's). */
static int entry_cfg(const tm_mf_entry *e, uint32_t threads, tm_model_cfg *cfg)
{
    char sub[300], err[1024];
    snprintf(sub, sizeof sub, "config %s", e->name);
    int rc = tm_mf_entry_cfg(e, threads, cfg, err, sizeof err);
    if (rc == TM_ERR_FORMAT)
        tm_err(sub, "%s", err);
    else if (rc)
        tm_usage(sub, "%s", err);
    return rc ? -1 : 0;
}

/* FORMAT of the resolved configuration C (E: its entry, or NULL): the exit
 * status. */
static int print_cfg(const tm_model_cfg *c, const tm_mf_entry *e, const char *format)
{
    char err[1024];
    int rc = tm_describe_cfg(stdout, c, e, format, err, sizeof err);
    if (rc == TM_ERR_ARG)
        return tm_usage("config", "%s", err), 2;
    if (rc)
        return tm_err("config", "%s", err), 1;
    return 0;
}

/* tm config NAME: FORMAT of entry E; the exit status. */
static int print_entry(const tm_mf_entry *e, uint32_t threads, const char *format)
{
    char err[1024];
    if (tm_describe_format_check(format, err, sizeof err))
        return tm_err("config", "%s", err), 2;
    int rc = tm_describe_entry(stdout, e, threads, format, err, sizeof err);
    if (rc < 0)
        return tm_usage("config", "%s", err), 2;
    if (rc == 1)
        return 0;
    tm_model_cfg cfg;
    if (entry_cfg(e, threads ? threads : e->threads, &cfg))
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
    char err[1024];
    if (model_opts_cfg("config", &C->o, threads, &cfg))
        return 2;
    if (tm_describe_format_check(C->format, err, sizeof err))
        return tm_err("config", "%s", err), 2;
    return tm_finish_stdout("config", print_cfg(&cfg, NULL, C->format));
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
        if (tm_mf_root(root, sizeof root)) {
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
        tm_manifest_list_tiers(stdout, m);
    } else if (C.list) {
        if (!tm_manifest_list_tier(stdout, m, C.list)) {
            tm_err("config", "--list %s: no entry of %s is in that tier (tm config --list-tiers lists them)", C.list,
                   manifest);
            status = 1;
        }
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
