/* tm record's timing-model options (tm/timing.h, docs/capture.md §3): each
 * option's value parsed and checked, and the options checked together; the
 * messages go into the caller's buffer, worded as the usage errors of the
 * command line. */
#include <stdio.h>
#include <string.h>
#include "tm/status.h"
#include "tm/parse.h"
#include "tm/timing.h"

/* X with up to 3 decimals, into thousandths: 0, or -1. */
static int parse_milli(const char *s, uint32_t *out)
{
    char ip[16];
    const char *dot = strchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : strlen(s);
    uint64_t v, f = 0;
    if (!n || n >= sizeof ip)
        return -1;
    memcpy(ip, s, n);
    ip[n] = 0;
    if (tm_parse_u64(ip, &v) || v > 1000)
        return -1;
    if (dot) {
        const char *d = dot + 1;
        size_t k = strlen(d);
        if (!k || k > 3 || tm_parse_u64(d, &f))
            return -1;
        while (k++ < 3)
            f *= 10;
    }
    *out = (uint32_t)(v * 1000 + f);
    return 0;
}

/* SIZE[:WAYS[:LAT]]: 0, or -1. */
static int parse_cache(const char *v, tm_timing_cache *c)
{
    char buf[64];
    if (strlen(v) >= sizeof buf)
        return -1;
    strcpy(buf, v);
    char *ways = strchr(buf, ':'), *lat = NULL;
    if (ways) {
        *ways++ = 0;
        if ((lat = strchr(ways, ':')))
            *lat++ = 0;
    }
    uint64_t x;
    if (tm_parse_size(buf, &c->size))
        return -1;
    if (ways) {
        if (tm_parse_u64(ways, &x) || x > 64)
            return -1;
        c->ways = (uint32_t)x;
    }
    if (lat) {
        if (tm_parse_u64(lat, &x) || x > 100000)
            return -1;
        c->lat = (uint32_t)x;
    }
    return 0;
}

void tm_timing_opts_init(tm_timing_opts *o)
{
    memset(o, 0, sizeof *o);
    o->serial = -1; /* not given: tm_timing_opts_check decides */
    tm_timing_defaults(&o->cfg);
}

int tm_timing_opt(tm_timing_opts *o, const char *name, const char *v, char *err, size_t errlen)
{
    uint64_t x;
    if (!strcmp(name, "--timing")) {
        if (strcmp(v, "cores") && strcmp(v, "serial"))
            return tm_errf(TM_ERR_ARG, err, errlen, "--timing %s: allowed cores, serial", v);
        o->serial = !strcmp(v, "serial");
        return TM_OK;
    }
    o->set = 1; /* the others are cores-only */
    if (!strcmp(name, "--cpi")) {
        if (parse_milli(v, &o->cfg.cpi_milli) || !o->cfg.cpi_milli)
            return tm_errf(TM_ERR_ARG, err, errlen, "--cpi %s: allowed a number 0.001..1000 (up to 3 decimals)", v);
    } else if (!strcmp(name, "--no-caches") || !strcmp(name, "--no-icache")) {
        o->no_icache = 1;
        o->no_caches |= !strcmp(name, "--no-caches");
    } else if (!strcmp(name, "--l1i") || !strcmp(name, "--l1") || !strcmp(name, "--l2")) {
        int l = !strcmp(name, "--l1i") ? 0 : !strcmp(name, "--l1") ? 1 : 2;
        o->l1i_given |= l == 0;
        if (parse_cache(v, l == 0 ? &o->cfg.l1i : l == 1 ? &o->cfg.l1 : &o->cfg.l2))
            return tm_errf(TM_ERR_ARG, err, errlen, "%s %s: allowed SIZE[:WAYS[:LATENCY]] (SIZE in bytes with K or M)", name, v);
    } else if (!strcmp(name, "--mem-latency")) {
        if (tm_parse_u64(v, &x) || x > 100000)
            return tm_errf(TM_ERR_ARG, err, errlen, "--mem-latency %s: allowed 0..100000 cycles", v);
        o->cfg.mem_lat = (uint32_t)x;
    } else if (!strcmp(name, "--timing-turn") || !strcmp(name, "--timing-drift")) {
        if (tm_parse_count(v, &x) || x > 100000000)
            return tm_errf(TM_ERR_ARG, err, errlen, "%s %s: allowed 0..100000000 cycles", name, v);
        *(strcmp(name, "--timing-turn") ? &o->cfg.drift : &o->cfg.turn) = (uint32_t)x;
    } else if (!strcmp(name, "--timing-window")) {
        if (tm_parse_count(v, &x) || x < 1 || x > ((uint64_t)1 << 32))
            return tm_errf(TM_ERR_ARG, err, errlen, "--timing-window %s: allowed 1..4294967296 groups", v);
        o->cfg.window = x;
    } else {
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: not a timing option", name);
    }
    return TM_OK;
}

int tm_timing_opts_check(tm_timing_opts *o, int mode, char *err, size_t errlen)
{
    char e[256];
    if (o->serial < 0) /* cores, but the thesis tools' descriptors in the serial order */
        o->serial = mode && !o->set;
    if (o->serial && o->set)
        return tm_errf(TM_ERR_ARG, err, errlen,
                       "--cpi, --l1i, --l1, --l2, --mem-latency, --timing-window, --timing-turn, --timing-drift, "
                       "--no-icache, --no-caches: only with --timing cores");
    if (o->no_icache && o->l1i_given)
        return tm_errf(TM_ERR_ARG, err, errlen, "--l1i: not with --%s (it has no instruction cache)",
                   o->no_caches ? "no-caches" : "no-icache");
    if (o->l1i_given && !o->cfg.l1i.size)
        return tm_errf(TM_ERR_ARG, err, errlen, "--l1i: size 0: allowed a power of two up to 1G (no instruction cache: --no-icache)");
    if (o->no_icache)
        o->cfg.l1i.size = 0;
    if (!o->serial && tm_timing_check(&o->cfg, e, sizeof e) != TM_OK)
        return tm_errf(TM_ERR_ARG, err, errlen, "timing model: %s", e);
    return TM_OK;
}

void tm_timing_frontend(const tm_timing_cfg *cfg, uint32_t cores, int no_caches, int values, tmf_cfg *m)
{
    memset(m, 0, sizeof *m);
    m->line = cfg->line;
    m->l1i = (tmf_cache){cfg->l1i.size, cfg->l1i.ways, cfg->l1i.lat};
    m->l1 = (tmf_cache){cfg->l1.size, cfg->l1.ways, cfg->l1.lat};
    m->l2 = (tmf_cache){tm_timing_l2_size(cfg, cores), cfg->l2.ways, cfg->l2.lat};
    if ((uint64_t)m->l2.ways * m->line > m->l2.size)
        m->l2.ways = m->l2.size / m->line;
    m->mem_lat = cfg->mem_lat;
    m->turn = cfg->turn;
    m->drift = cfg->drift;
    m->flags = TMF_ORDER | TMF_SYNC | (values ? TMF_WAR : 0);
    if (!no_caches)
        m->flags |= TMF_DCACHE | (cfg->l1i.size ? TMF_ICACHE : 0);
}
