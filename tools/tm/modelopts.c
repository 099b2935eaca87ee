/* tm command line: the model options shared by `tm model` and `tm cosim`. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "modelopts.h"
#include "tm/opt.h"

const char model_opts_help[] =
    "  --config small|medium|large|tage-s|tage-m|tage-l   predictor preset (default\n"
    "                                large; tage-*: TAGE + ITTAGE within the state bits\n"
    "                                of small/medium/large, docs/spec.md §3.3.3)\n"
    "  --gshare N --ras N --ibtb N   explicit sizes (gshare 0 or 2^k <= 4096; RAS 0..32;\n"
    "                                iBTB 0 or 2^k in 2..64 entries, 2-way)\n"
    "  --tage N --tage-tables T --tage-entries E --tage-tag W --tage-hist MIN:MAX\n"
    "                                TAGE outcome predictor in place of gshare: N base\n"
    "                                entries (0 or 2^k in 2..16384; 0 = off), T tagged\n"
    "                                tables (1..8) of E entries (2^k in 2..4096), W-bit\n"
    "                                tags (4..16), histories MIN..MAX (1..128)\n"
    "  --ittage N --ittage-tables T --ittage-entries E --ittage-tag W --ittage-hist MIN:MAX\n"
    "                                ITTAGE target predictor in place of the iBTB\n"
    "  --encoding nx_b|tr_b|tr_e|tr_a  message encoding (default tr_e; tr_a: adaptive\n"
    "                                codes per thread, no message-kind bit, spec §4.9)\n"
    "  --timestamps                  add diffCC time stamps to every message\n"
    "  --ts-bits N                   time-stamp counter width, 8..64 (default 64): diffCC\n"
    "                                is taken modulo 2^N\n"
    "  --shared                      one predictor set shared by all threads\n"
    "  --buffer BITS|min             trace buffer size (default max(N*64, longest message);\n"
    "                                min = the longest message of the configuration)\n"
    "  --port BITS                   trace port width per cycle (default 4)\n"
    "  --chunks-bcnt A,B --chunks-ta A,B --chunks-cc A,B   chunk sizes (1..32)\n"
    "load-value tracing (docs/spec.md §3.8; needs MEM records, e.g. tm gen --mem):\n"
    "  --cfiat                       CFiat: report a load value only when the debugger\n"
    "                                cannot know it (same as --data cfiat)\n"
    "  --data none|cfiat|all         all = the baseline: every load value reported\n"
    "  --cache tool|study|SIZE       data cache: tool = 32K 4-way 32-byte lines g 4\n"
    "                                (default), study = 64K 4-way 64-byte lines g 4, or a\n"
    "                                size in bytes (suffix K or M), 2^k in 16..64M\n"
    "  --assoc N --line N --granularity N   ways (2^k <= 64), line bytes (2^k in\n"
    "                                4..4096), bytes per first-access flag (2^k <= line,\n"
    "                                at most 64 flags per line)\n"
    "  --cfiat-shared                one cache for all threads (flags tagged by thread)\n"
    "  --chunks-fah A,B              fahCnt chunk sizes (default 3,2 tr_e/tr_a, 8,8 others)\n";

#define V(name, f) {name, NULL, TM_OPT_VALUE, offsetof(model_opts, f), 0, NULL}
#define VK(name, f, k) {name, NULL, TM_OPT_VALUE, offsetof(model_opts, f) + (k) * sizeof(char *), 0, NULL}
#define F(name, f) {name, NULL, TM_OPT_FLAG, offsetof(model_opts, f), 0, NULL}
const tm_optdef model_opts_table[] = {
    V("--config", config),   V("--encoding", encoding), V("--gshare", gshare),     V("--ras", ras),
    V("--ibtb", ibtb),       V("--buffer", buffer),     V("--port", port),         V("--ts-bits", ts_bits),
    VK("--chunks-bcnt", chunks, 0), VK("--chunks-ta", chunks, 1), VK("--chunks-cc", chunks, 2),
    VK("--chunks-fah", chunks, 3),  V("--data", data),  V("--cache", cache),       V("--assoc", assoc),
    V("--line", line),       V("--granularity", gran),
    VK("--tage", tage, 0),   VK("--tage-tables", tage, 1), VK("--tage-entries", tage, 2),
    VK("--tage-tag", tage, 3), VK("--tage-hist", tage, 4), VK("--ittage", ittage, 0),
    VK("--ittage-tables", ittage, 1), VK("--ittage-entries", ittage, 2), VK("--ittage-tag", ittage, 3),
    VK("--ittage-hist", ittage, 4),
    F("--timestamps", timestamps), F("--shared", shared), F("--cfiat", cfiat), F("--cfiat-shared", cfiat_shared),
    {NULL, NULL, 0, 0, 0, NULL}};
#undef V
#undef VK
#undef F

int model_opts_parse(const char *sub, model_opts *o, int argc, char **argv, int *i)
{
    /* one argument (and its value) against the table */
    tm_opt_parser p = {argc, argv, *i, 0};
    tm_opt_table t = {model_opts_table, o};
    const tm_optdef *hit;
    const char *v;
    char err[256];
    int r = tm_opt_next(&p, &t, 1, &hit, &v, err, sizeof err);
    if (r == TM_OPT_MATCH) {
        *i = p.i - 1;
        return 1;
    }
    if (r < 0 && strncmp(err, "unknown option", 14)) {
        tm_usage(sub, "%s", err);
        return -1;
    }
    return 0;
}

static int parse_u32_opt(const char *sub, const char *opt, const char *v, uint32_t max, uint32_t *out)
{
    uint64_t x;
    if (tm_parse_u64(v, &x) || x > max) {
        tm_usage(sub, "%s %s: not a number in 0..%u", opt, v, max);
        return -1;
    }
    *out = (uint32_t)x;
    return 0;
}

/* The sizing options of a TAGE-class predictor (OPT "--tage" or "--ittage",
 * values V[5]: N, -tables, -entries, -tag, -hist) over C.  Giving N turns
 * the predictor on (N > 0) or off; unset sizes of a predictor turned on
 * take the defaults DEF.  *CLASSIC (the gshare or iBTB size) becomes 0 when
 * the predictor is on, unless CLASSIC_SET (then the check names both). */
static int tage_opts(const char *sub, const char *opt, const char *const *v, const tm_tage_cfg *def,
                     tm_tage_cfg *c, uint32_t *classic, int classic_set)
{
    static const char *const sfx[5] = {"", "-tables", "-entries", "-tag", "-hist"};
    char name[32];
    if (v[0]) {
        uint32_t n;
        if (parse_u32_opt(sub, opt, v[0], 1u << 20, &n))
            return -1;
        if (n && !c->base) {
            *c = *def;
        }
        c->base = n;
        if (!n)
            memset(c, 0, sizeof *c);
    }
    for (int k = 1; k < 5; k++) {
        if (!v[k])
            continue;
        snprintf(name, sizeof name, "%s%s", opt, sfx[k]);
        if (!c->base) {
            tm_usage(sub, "%s: only with %s N (a TAGE-class predictor turned on, or --config tage-*)", name, opt);
            return -1;
        }
        if (k == 4) {
            unsigned a, b;
            char tail;
            if (sscanf(v[k], "%u:%u%c", &a, &b, &tail) != 2) {
                tm_usage(sub, "%s %s: expected MIN:MAX (history lengths, 1 <= MIN <= MAX <= 128)", name, v[k]);
                return -1;
            }
            c->lmin = a;
            c->lmax = b;
        } else {
            uint32_t *f = k == 1 ? &c->tables : k == 2 ? &c->entries : &c->tag;
            if (parse_u32_opt(sub, name, v[k], 1u << 20, f))
                return -1;
        }
    }
    if (c->base && !classic_set)
        *classic = 0;
    return 0;
}

/* A byte count with an optional K or M suffix (KiB, MiB). */
/* The data tracing options (spec §3.8). */
static int data_cfg(const char *sub, const model_opts *o, tm_model_cfg *cfg)
{
    int mode = TM_DATA_NONE;
    if (o->data && (mode = tm_data_mode_parse(o->data)) < 0) {
        tm_usage(sub, "--data %s: allowed none, cfiat, all", o->data);
        return -1;
    }
    if (o->cfiat) {
        if (o->data && mode != TM_DATA_CFIAT) {
            tm_usage(sub, "--cfiat contradicts --data %s", o->data);
            return -1;
        }
        mode = TM_DATA_CFIAT;
    }
    cfg->enc.data = (uint8_t)mode;
    const char *cache_opt = o->cfiat_shared ? "--cfiat-shared" : o->cache ? "--cache" : o->assoc ? "--assoc"
                            : o->line ? "--line" : o->gran ? "--granularity" : NULL;
    if (cache_opt && mode != TM_DATA_CFIAT) {
        tm_usage(sub, "%s: only with CFiat data tracing (add --cfiat)", cache_opt);
        return -1;
    }
    if (o->chunks[3] && mode == TM_DATA_NONE) {
        tm_usage(sub, "--chunks-fah: only with data tracing (--cfiat or --data)");
        return -1;
    }
    if (mode != TM_DATA_CFIAT)
        return 0;
    cfg->cfiat_shared = o->cfiat_shared;
    tm_cache_preset(&cfg->cache, "tool");
    if (o->cache && tm_cache_preset(&cfg->cache, o->cache) != TM_OK && tm_parse_size(o->cache, &cfg->cache.size)) {
        tm_usage(sub, "--cache %s: allowed tool, study, or a size in bytes (suffix K or M), a power of two "
                    "from 16 to 64M",
               o->cache);
        return -1;
    }
    if ((o->assoc && parse_u32_opt(sub, "--assoc", o->assoc, 1u << 16, &cfg->cache.assoc)) ||
        (o->line && parse_u32_opt(sub, "--line", o->line, 1u << 16, &cfg->cache.line)) ||
        (o->gran && parse_u32_opt(sub, "--granularity", o->gran, 1u << 16, &cfg->cache.gran)))
        return -1;
    return 0;
}

int model_opts_cfg(const char *sub, const model_opts *o, uint32_t threads, tm_model_cfg *cfg)
{
    int enc = TM_ENC_TR_E;
    if (o->encoding && (enc = tm_encoding_parse(o->encoding)) < 0) {
        char names[128] = "";
        for (unsigned k = 0; k < TM_ENCODINGS; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                     tm_encoding_name((tm_encoding)k));
        tm_usage(sub, "--encoding %s: allowed %s", o->encoding, names);
        return -1;
    }
    memset(cfg, 0, sizeof *cfg);
    tm_enc_cfg_default(&cfg->enc, (tm_encoding)enc, threads, o->timestamps);
    if (tm_model_preset(cfg, o->config ? o->config : "large") != TM_OK) {
        char names[128] = "";
        for (unsigned k = 0; tm_model_preset_name(k); k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                     tm_model_preset_name(k));
        tm_usage(sub, "--config %s: allowed %s", o->config, names);
        return -1;
    }
    cfg->shared = o->shared;
    if ((o->gshare && parse_u32_opt(sub, "--gshare", o->gshare, 1u << 20, &cfg->pred.gshare)) ||
        (o->ras && parse_u32_opt(sub, "--ras", o->ras, 1u << 20, &cfg->pred.ras)) ||
        (o->ibtb && parse_u32_opt(sub, "--ibtb", o->ibtb, 1u << 20, &cfg->pred.ibtb)) ||
        (o->buffer && strcmp(o->buffer, "min") &&
         parse_u32_opt(sub, "--buffer", o->buffer, UINT32_MAX, &cfg->buffer_bits)) ||
        (o->port && parse_u32_opt(sub, "--port", o->port, UINT32_MAX, &cfg->port_bits)) ||
        (o->ts_bits && parse_u32_opt(sub, "--ts-bits", o->ts_bits, UINT32_MAX, &cfg->ts_bits)))
        return -1;
    static const tm_tage_cfg tage_def = {1024, 4, 256, 8, 4, 64}, ittage_def = {32, 3, 16, 8, 2, 32};
    if (tage_opts(sub, "--tage", o->tage, &tage_def, &cfg->pred.tage, &cfg->pred.gshare, o->gshare != NULL) ||
        tage_opts(sub, "--ittage", o->ittage, &ittage_def, &cfg->pred.ittage, &cfg->pred.ibtb, o->ibtb != NULL))
        return -1;
    if (data_cfg(sub, o, cfg))
        return -1;
    if (o->buffer && strcmp(o->buffer, "min") && cfg->buffer_bits == 0) {
        tm_usage(sub, "--buffer 0: the buffer must hold at least the longest message (see --explain)");
        return -1;
    }
    if (o->ts_bits && cfg->ts_bits == 0) {
        tm_usage(sub, "--ts-bits 0: allowed 8..64");
        return -1;
    }
    if (o->port && cfg->port_bits == 0) {
        tm_usage(sub, "--port 0: allowed 1..1024 bits per cycle");
        return -1;
    }
    static const char *const names[4] = {"--chunks-bcnt", "--chunks-ta", "--chunks-cc", "--chunks-fah"};
    uint8_t *dst[4][2] = {{&cfg->enc.cnt_a, &cfg->enc.cnt_b}, {&cfg->enc.ta_a, &cfg->enc.ta_b},
                          {&cfg->enc.cc_a, &cfg->enc.cc_b}, {&cfg->enc.fah_a, &cfg->enc.fah_b}};
    for (int k = 0; k < 4; k++) {
        if (!o->chunks[k])
            continue;
        unsigned a, b;
        if (tm_parse_pair(o->chunks[k], &a, &b) || a < 1 || a > 32 || b < 1 || b > 32) {
            tm_usage(sub, "%s %s: expected A,B with each chunk size in 1..32", names[k], o->chunks[k]);
            return -1;
        }
        *dst[k][0] = (uint8_t)a;
        *dst[k][1] = (uint8_t)b;
    }
    if (o->buffer && !strcmp(o->buffer, "min")) {
        if (tm_enc_cfg_check(&cfg->enc) == TM_OK)
            cfg->buffer_bits = tm_msg_max_bits(&cfg->enc);
    }
    char err[256];
    if (tm_model_cfg_resolve(cfg, err, sizeof err) != TM_OK) {
        tm_usage(sub, "%s", err);
        return -1;
    }
    return 0;
}


int model_opts_demand(const char *sub, model_opts *o, const char *which)
{
    static char port[16], buffer[16];
    if (o->port || o->buffer) {
        tm_usage(sub, "%s%s and --demand: --demand sets the port (%u bits) and the buffer (%u bits) of every "
                      "configuration; give one or the other",
                 which, o->port ? "--port" : "--buffer", TM_DEMAND_PORT_BITS, TM_DEMAND_BUFFER_BITS);
        return -1;
    }
    snprintf(port, sizeof port, "%u", TM_DEMAND_PORT_BITS);
    snprintf(buffer, sizeof buffer, "%u", TM_DEMAND_BUFFER_BITS);
    o->port = port;
    o->buffer = buffer;
    return 0;
}

int model_opts_demand_check(const char *sub, const tm_model *m, const tm_model_cfg *cfg, const char *name)
{
    const tm_thread_stats *T = &tm_model_get_stats(m)->total;
    if (!T->dropped_messages && !T->lost_instructions)
        return 0;
    tm_err(sub, "--demand: %s dropped %" PRIu64 " messages (%" PRIu64 " instructions in gaps): the messages of its "
                "%u cores outran the %u-bit port by more than the %u-bit buffer; its bits are not the demand "
                "(its statistics say \"lossless\": false)",
           name, T->dropped_messages, T->lost_instructions, cfg->enc.threads, cfg->port_bits, cfg->buffer_bits);
    return -1;
}
