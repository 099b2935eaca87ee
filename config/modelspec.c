/* tm — a model configuration from its options by name (tm/modelspec.h):
 * the numbers, presets, predictor sizes, data tracing and chunk sizes that
 * the options give, checked with one message each, then resolved. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "tm/status.h"
#include "tm/parse.h"
#include "tm/modelspec.h"
#include "tm/msg.h"

const tm_optdef tm_model_spec_opts[] = {TM_MODEL_SPEC_OPTS(tm_model_spec), {NULL, NULL, 0, 0, 0, NULL}};

void tm_model_spec_load(tm_model_spec *s, const tm_optdef *table, const void *src)
{
    memset(s, 0, sizeof *s);
    for (; table->name; table++)
        for (const tm_optdef *d = tm_model_spec_opts; d->name; d++)
            if (!strcmp(d->name, table->name))
                memcpy((char *)s + d->off, (const char *)src + table->off,
                       d->kind == TM_OPT_FLAG ? sizeof(int) : sizeof(const char *));
}

int tm_model_spec_arg(const tm_optdef *table, void *dst, int argc, char **argv, int *i, char *err, size_t errlen)
{
    /* one argument (and its value) against the table */
    tm_opt_parser p = {argc, argv, *i, 0};
    tm_opt_table t = {table, dst};
    const tm_optdef *hit;
    const char *v;
    char e[256];
    int r = tm_opt_next(&p, &t, 1, &hit, &v, e, sizeof e);
    if (r == TM_OPT_MATCH) {
        *i = p.i - 1;
        return 1;
    }
    if (r < 0 && strncmp(e, "unknown option", 14))
        return tm_errf(TM_ERR_ARG, err, errlen, "%s", e);
    return 0;
}

/* Decimal digits only, up to MAX: 0, or -1. */
static int dec(const char *v, uint64_t max, uint64_t *out)
{
    uint64_t x;
    if (tm_parse_u64(v, &x) != 0 || x > max)
        return -1;
    *out = x;
    return 0;
}

static int u32_opt(const char *opt, const char *v, uint32_t max, uint32_t *out, char *err, size_t errlen)
{
    uint64_t x;
    if (dec(v, max, &x))
        return tm_errf(TM_ERR_ARG, err, errlen, "%s %s: not a number in 0..%u", opt, v, max);
    *out = (uint32_t)x;
    return TM_OK;
}

/* "A,B", each a chunk size in 1..32: 0, or -1. */
static int chunk_pair(const char *s, uint8_t *a, uint8_t *b)
{
    uint64_t x, y;
    const char *comma = strchr(s, ',');
    char first[24];
    if (!comma || (size_t)(comma - s) >= sizeof first)
        return -1;
    memcpy(first, s, (size_t)(comma - s));
    first[comma - s] = 0;
    if (dec(first, 32, &x) || dec(comma + 1, 32, &y) || x < 1 || y < 1)
        return -1;
    *a = (uint8_t)x;
    *b = (uint8_t)y;
    return 0;
}

/* The sizing options of a TAGE-class predictor (OPT "--tage" or "--ittage",
 * values V[5]: N, -tables, -entries, -tag, -hist) over C.  Giving N turns
 * the predictor on (N > 0) or off; unset sizes of a predictor turned on
 * take the defaults DEF.  *CLASSIC (the gshare or iBTB size) becomes 0 when
 * the predictor is on, unless CLASSIC_SET (then the check names both). */
static int tage_opts(const char *opt, const char *const *v, const tm_tage_cfg *def, tm_tage_cfg *c,
                     uint32_t *classic, int classic_set, char *err, size_t errlen)
{
    static const char *const sfx[5] = {"", "-tables", "-entries", "-tag", "-hist"};
    char name[32];
    if (v[0]) {
        uint32_t n = 0;
        if (u32_opt(opt, v[0], 1u << 20, &n, err, errlen))
            return TM_ERR_ARG;
        if (n && !c->base)
            *c = *def;
        c->base = n;
        if (!n)
            memset(c, 0, sizeof *c);
    }
    for (int k = 1; k < 5; k++) {
        if (!v[k])
            continue;
        snprintf(name, sizeof name, "%s%s", opt, sfx[k]);
        if (!c->base)
            return tm_errf(TM_ERR_ARG, err, errlen, "%s: only with %s N (a TAGE-class predictor turned on, or --config tage-*)",
                           name, opt);
        if (k == 4) {
            unsigned a, b;
            char tail;
            if (sscanf(v[k], "%u:%u%c", &a, &b, &tail) != 2)
                return tm_errf(TM_ERR_ARG, err, errlen, "%s %s: expected MIN:MAX (history lengths, 1 <= MIN <= MAX <= 128)",
                               name, v[k]);
            c->lmin = a;
            c->lmax = b;
        } else {
            uint32_t *f = k == 1 ? &c->tables : k == 2 ? &c->entries : &c->tag;
            if (u32_opt(name, v[k], 1u << 20, f, err, errlen))
                return TM_ERR_ARG;
        }
    }
    if (c->base && !classic_set)
        *classic = 0;
    return TM_OK;
}

/* The data tracing options (spec §3.8). */
static int data_cfg(const tm_model_spec *o, tm_model_cfg *cfg, char *err, size_t errlen)
{
    int mode = TM_DATA_NONE;
    if (o->data && (mode = tm_data_mode_parse(o->data)) < 0)
        return tm_errf(TM_ERR_ARG, err, errlen, "--data %s: allowed none, cfiat, all", o->data);
    if (o->cfiat) {
        if (o->data && mode != TM_DATA_CFIAT)
            return tm_errf(TM_ERR_ARG, err, errlen, "--cfiat contradicts --data %s", o->data);
        mode = TM_DATA_CFIAT;
    }
    cfg->enc.data = (uint8_t)mode;
    const char *cache_opt = o->cfiat_shared ? "--cfiat-shared" : o->cache ? "--cache" : o->assoc ? "--assoc"
                            : o->line ? "--line" : o->gran ? "--granularity" : NULL;
    if (cache_opt && mode != TM_DATA_CFIAT)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: only with CFiat data tracing (add --cfiat)", cache_opt);
    if (o->chunks[3] && mode == TM_DATA_NONE)
        return tm_errf(TM_ERR_ARG, err, errlen, "--chunks-fah: only with data tracing (--cfiat or --data)");
    if (mode != TM_DATA_CFIAT)
        return TM_OK;
    cfg->cfiat_shared = o->cfiat_shared;
    tm_cache_preset(&cfg->cache, "tool");
    if (o->cache && tm_cache_preset(&cfg->cache, o->cache) != TM_OK && tm_parse_size(o->cache, &cfg->cache.size))
        return tm_errf(TM_ERR_ARG, err, errlen, "--cache %s: allowed tool, study, or a size in bytes (suffix K or M), a power "
                                    "of two from 16 to 64M", o->cache);
    if ((o->assoc && u32_opt("--assoc", o->assoc, 1u << 16, &cfg->cache.assoc, err, errlen)) ||
        (o->line && u32_opt("--line", o->line, 1u << 16, &cfg->cache.line, err, errlen)) ||
        (o->gran && u32_opt("--granularity", o->gran, 1u << 16, &cfg->cache.gran, err, errlen)))
        return TM_ERR_ARG;
    return TM_OK;
}

/* The encoding, the preset and the predictors' sizes of O into CFG. */
static int base_cfg(const tm_model_spec *o, uint32_t threads, tm_model_cfg *cfg, char *err, size_t errlen)
{
    char names[128] = "";
    int enc = TM_ENC_TR_E;
    if (o->encoding && (enc = tm_encoding_parse(o->encoding)) < 0) {
        for (unsigned k = 0; k < TM_ENCODINGS; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                     tm_encoding_name((tm_encoding)k));
        return tm_errf(TM_ERR_ARG, err, errlen, "--encoding %s: allowed %s", o->encoding, names);
    }
    memset(cfg, 0, sizeof *cfg);
    tm_enc_cfg_default(&cfg->enc, (tm_encoding)enc, threads, o->timestamps);
    if (tm_model_preset(cfg, o->config ? o->config : "large") != TM_OK) {
        for (unsigned k = 0; tm_model_preset_name(k); k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                     tm_model_preset_name(k));
        return tm_errf(TM_ERR_ARG, err, errlen, "--config %s: allowed %s", o->config, names);
    }
    cfg->shared = o->shared;
    if ((o->gshare && u32_opt("--gshare", o->gshare, 1u << 20, &cfg->pred.gshare, err, errlen)) ||
        (o->ras && u32_opt("--ras", o->ras, 1u << 20, &cfg->pred.ras, err, errlen)) ||
        (o->ibtb && u32_opt("--ibtb", o->ibtb, 1u << 20, &cfg->pred.ibtb, err, errlen)) ||
        (o->buffer && strcmp(o->buffer, "min") &&
         u32_opt("--buffer", o->buffer, UINT32_MAX, &cfg->buffer_bits, err, errlen)) ||
        (o->port && u32_opt("--port", o->port, UINT32_MAX, &cfg->port_bits, err, errlen)) ||
        (o->ts_bits && u32_opt("--ts-bits", o->ts_bits, UINT32_MAX, &cfg->ts_bits, err, errlen)))
        return TM_ERR_ARG;
    static const tm_tage_cfg tage_def = {1024, 4, 256, 8, 4, 64}, ittage_def = {32, 3, 16, 8, 2, 32};
    if (tage_opts("--tage", o->tage, &tage_def, &cfg->pred.tage, &cfg->pred.gshare, o->gshare != NULL, err,
                  errlen) ||
        tage_opts("--ittage", o->ittage, &ittage_def, &cfg->pred.ittage, &cfg->pred.ibtb, o->ibtb != NULL, err,
                  errlen))
        return TM_ERR_ARG;
    return TM_OK;
}

int tm_model_spec_cfg(const tm_model_spec *o, uint32_t threads, tm_model_cfg *cfg, char *err, size_t errlen)
{
    if (base_cfg(o, threads, cfg, err, errlen) || data_cfg(o, cfg, err, errlen))
        return TM_ERR_ARG;
    if (o->buffer && strcmp(o->buffer, "min") && cfg->buffer_bits == 0)
        return tm_errf(TM_ERR_ARG, err, errlen, "--buffer 0: the buffer must hold at least the longest message (see --explain)");
    if (o->ts_bits && cfg->ts_bits == 0)
        return tm_errf(TM_ERR_ARG, err, errlen, "--ts-bits 0: allowed 8..64");
    if (o->port && cfg->port_bits == 0)
        return tm_errf(TM_ERR_ARG, err, errlen, "--port 0: allowed 1..1024 bits per cycle");
    static const char *const names[4] = {"--chunks-bcnt", "--chunks-ta", "--chunks-cc", "--chunks-fah"};
    uint8_t *dst[4][2] = {{&cfg->enc.cnt_a, &cfg->enc.cnt_b}, {&cfg->enc.ta_a, &cfg->enc.ta_b},
                          {&cfg->enc.cc_a, &cfg->enc.cc_b}, {&cfg->enc.fah_a, &cfg->enc.fah_b}};
    for (int k = 0; k < 4; k++)
        if (o->chunks[k] && chunk_pair(o->chunks[k], dst[k][0], dst[k][1]))
            return tm_errf(TM_ERR_ARG, err, errlen, "%s %s: expected A,B with each chunk size in 1..32", names[k], o->chunks[k]);
    if (o->buffer && !strcmp(o->buffer, "min") && tm_enc_cfg_check(&cfg->enc) == TM_OK)
        cfg->buffer_bits = tm_msg_max_bits(&cfg->enc);
    char e[256]; /* the resolver's message, at most one line of 255 bytes */
    if (tm_model_cfg_resolve(cfg, e, sizeof e) != TM_OK)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s", e);
    return TM_OK;
}

int tm_model_demand_check(const tm_model *m, const tm_model_cfg *cfg, const char *name, char *err, size_t errlen)
{
    const tm_thread_stats *T = &tm_model_get_stats(m)->total;
    if (!T->dropped_messages && !T->lost_instructions)
        return TM_OK;
    snprintf(err, errlen,
             "--demand: %s dropped %" PRIu64 " messages (%" PRIu64 " instructions in gaps): the messages of its "
             "%u cores outran the %u-bit port by more than the %u-bit buffer; its bits are not the demand "
             "(its statistics say \"lossless\": false)",
             name, T->dropped_messages, T->lost_instructions, cfg->enc.threads, cfg->port_bits, cfg->buffer_bits);
    return TM_ERR_STATE;
}
