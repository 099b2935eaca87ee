/* tm — the model's configuration (docs/spec.md §3.1): presets, defaults and
 * the checks of every range; the resolved configuration is tm_top's
 * parameter set (rtl/tm_top.sv). */
#include <stdio.h>
#include <string.h>
#include "model_int.h"

static const char *const preset_names[] = {"small", "medium", "large", "tage-s", "tage-m", "tage-l"};

const char *tm_model_preset_name(unsigned i)
{
    return i < sizeof preset_names / sizeof preset_names[0] ? preset_names[i] : NULL;
}

int tm_model_preset(tm_model_cfg *cfg, const char *name)
{
    /* tage-*: within the state bits of small / medium / large (spec §3.3.3) */
    static const struct {
        const char *name;
        uint32_t ras;
        tm_tage_cfg tage, ittage;
    } tp[] = {
        {"tage-s", 8, {128, 2, 32, 5, 3, 12}, {0, 0, 0, 0, 0, 0}},
        {"tage-m", 16, {256, 3, 32, 7, 3, 24}, {8, 2, 8, 6, 2, 16}},
        {"tage-l", 32, {512, 6, 64, 9, 3, 60}, {32, 3, 16, 8, 2, 32}},
    };
    for (size_t k = 0; k < sizeof tp / sizeof tp[0]; k++)
        if (!strcmp(name, tp[k].name)) {
            memset(&cfg->pred, 0, sizeof cfg->pred);
            cfg->pred.ras = tp[k].ras;
            cfg->pred.tage = tp[k].tage;
            cfg->pred.ittage = tp[k].ittage;
            return TM_OK;
        }
    memset(&cfg->pred, 0, sizeof cfg->pred);
    if (!strcmp(name, "small")) {
        cfg->pred.gshare = 512; cfg->pred.ras = 8; cfg->pred.ibtb = 0;
    } else if (!strcmp(name, "medium")) {
        cfg->pred.gshare = 1024; cfg->pred.ras = 16; cfg->pred.ibtb = 16;
    } else if (!strcmp(name, "large")) {
        cfg->pred.gshare = 4096; cfg->pred.ras = 32; cfg->pred.ibtb = 64;
    } else {
        return TM_ERR_ARG;
    }
    return TM_OK;
}

void tm_model_cfg_default(tm_model_cfg *cfg, uint32_t threads)
{
    memset(cfg, 0, sizeof *cfg);
    tm_enc_cfg_default(&cfg->enc, TM_ENC_TR_E, threads, 0);
    tm_model_preset(cfg, "large");
}

int tm_model_cfg_resolve(tm_model_cfg *cfg, char *err, size_t errlen)
{
    if (cfg->enc.threads < 1 || cfg->enc.threads > TMC_MAX_THREADS) {
        snprintf(err, errlen, "threads %u: allowed 1..%u", cfg->enc.threads, TMC_MAX_THREADS);
        return TM_ERR_ARG;
    }
    if (cfg->enc.data > TM_DATA_ALL) {
        snprintf(err, errlen, "data tracing mode %u: allowed none, cfiat, all", cfg->enc.data);
        return TM_ERR_ARG;
    }
    if (tm_enc_cfg_check(&cfg->enc) != TM_OK) {
        if (cfg->enc.data)
            snprintf(err, errlen, "chunk sizes (%u,%u)/(%u,%u)/(%u,%u), fah (%u,%u): each must be 1..32",
                     cfg->enc.cnt_a, cfg->enc.cnt_b, cfg->enc.ta_a, cfg->enc.ta_b, cfg->enc.cc_a,
                     cfg->enc.cc_b, cfg->enc.fah_a, cfg->enc.fah_b);
        else
            snprintf(err, errlen, "chunk sizes (%u,%u)/(%u,%u)/(%u,%u): each must be 1..32",
                     cfg->enc.cnt_a, cfg->enc.cnt_b, cfg->enc.ta_a, cfg->enc.ta_b,
                     cfg->enc.cc_a, cfg->enc.cc_b);
        return TM_ERR_ARG;
    }
    if (tm_pred_cfg_check(&cfg->pred, err, errlen) != TM_OK)
        return TM_ERR_ARG;
    if (cfg->enc.data == TM_DATA_CFIAT) {
        if (!cfg->cache.size && !cfg->cache.assoc && !cfg->cache.line && !cfg->cache.gran)
            tm_cache_preset(&cfg->cache, "tool");
        if (tm_cache_cfg_check(&cfg->cache, err, errlen) != TM_OK)
            return TM_ERR_ARG;
    } else {
        if (cfg->cfiat_shared) {
            snprintf(err, errlen, "--cfiat-shared: only with CFiat data tracing (--cfiat)");
            return TM_ERR_ARG;
        }
        memset(&cfg->cache, 0, sizeof cfg->cache);
    }
    if (!cfg->enc.data)
        cfg->enc.fah_a = cfg->enc.fah_b = 0;
    unsigned msgmax = tm_msg_max_bits(&cfg->enc);
    if (cfg->port_bits == 0)
        cfg->port_bits = cfg->enc.data ? 32 : 4; /* load values need a wider port */
    if (cfg->ts_bits == 0)
        cfg->ts_bits = 64;
    if (cfg->ts_bits < 8 || cfg->ts_bits > 64) {
        snprintf(err, errlen, "--ts-bits %u: allowed 8..64", cfg->ts_bits);
        return TM_ERR_ARG;
    }
    if (cfg->port_bits > 1024) {
        snprintf(err, errlen, "--port %u: allowed 1..1024 bits per cycle", cfg->port_bits);
        return TM_ERR_ARG;
    }
    if (cfg->buffer_bits == 0) {
        uint32_t b = cfg->enc.threads * (cfg->enc.data ? 1024u : 64u);
        uint32_t m = (msgmax * (cfg->enc.data ? 2u : 1u) + 63u) / 64u * 64u;
        cfg->buffer_bits = b > m ? b : m;
    }
    if (cfg->buffer_bits < msgmax || cfg->buffer_bits > (1u << 24)) {
        snprintf(err, errlen,
                 "--buffer %u: allowed %u..%u bits (the minimum is the longest message of "
                 "this encoding, see docs/spec.md §4.6)",
                 cfg->buffer_bits, msgmax, 1u << 24);
        return TM_ERR_ARG;
    }
    return TM_OK;
}

