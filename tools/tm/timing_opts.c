/* tm record's timing-model options (docs/capture.md §3). */
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "timing_opts.h"

const char timing_opts_help[] =
    "  --timing cores|serial         cores (default; serial with --mode): each thread on its own\n"
    "                                core with its own clock, several cores retire in one cycle;\n"
    "                                serial: every group the next cycle of one clock, one thread\n"
    "                                at a time\n"
    "                                (cores: the paper's machine, docs/capture.md section 3)\n"
    "  --cpi X                       base cycles per instruction (default 1; e.g. 1.5)\n"
    "  --l1i SIZE[:WAYS[:LAT]]       private instruction cache per core (default 8K:2:0: a hit\n"
    "                                adds 0 cycles, a miss the L2's and, if it misses, memory's)\n"
    "  --no-icache                   no instruction cache: fetching costs nothing\n"
    "  --l1 SIZE[:WAYS[:LAT]]        private L1 data cache per core (default 8K:2:2)\n"
    "  --l2 SIZE[:WAYS[:LAT]]        shared L2, instructions and data (default cores x 64K, 8 ways,\n"
    "                                4 cycles)\n"
    "  --mem-latency N               cycles of an access that misses both (default 200)\n"
    "  --no-caches                   no instruction cache, and without --cfiat/--data no data\n"
    "                                addresses captured: every core at IPC 1/CPI (the model of\n"
    "                                before issue 34); the data caches still serve the memory\n"
    "                                operands a data-tracing recording captures\n"
    "  --timing-window N             groups held at most for the merge by cycle (default 4194304)\n";

void timing_opts_init(timing_opts *o)
{
    memset(o, 0, sizeof *o);
    o->serial = -1; /* not given: timing_opts_check decides */
    tm_timing_defaults(&o->cfg);
}

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

int timing_opts_parse(timing_opts *o, int argc, char **argv, int *i)
{
    const char *v = NULL;
    int r;
    uint64_t x;
    if ((r = tm_opt(argc, argv, i, "--timing", &v)) != 0) {
        if (r < 0 || (strcmp(v, "cores") && strcmp(v, "serial"))) {
            tm_usage("record", "--timing %s: allowed cores, serial", r < 0 ? "needs a value" : v);
            return -1;
        }
        o->serial = !strcmp(v, "serial");
        return 1;
    }
    if ((r = tm_opt(argc, argv, i, "--cpi", &v)) != 0) {
        if (r < 0 || parse_milli(v, &o->cfg.cpi_milli) || !o->cfg.cpi_milli) {
            tm_usage("record", "--cpi %s: allowed a number 0.001..1000 (up to 3 decimals)", r < 0 ? "needs a value" : v);
            return -1;
        }
        o->set = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "--no-caches") || !strcmp(argv[*i], "--no-icache")) {
        o->no_icache = 1;
        o->no_caches |= !strcmp(argv[*i], "--no-caches");
        o->set = 1;
        return 1;
    }
    for (int l = 0; l <= 2; l++) {
        const char *name = l == 0 ? "--l1i" : l == 1 ? "--l1" : "--l2";
        if ((r = tm_opt(argc, argv, i, name, &v)) == 0)
            continue;
        o->l1i_given |= l == 0;
        if (r < 0 || parse_cache(v, l == 0 ? &o->cfg.l1i : l == 1 ? &o->cfg.l1 : &o->cfg.l2)) {
            tm_usage("record", "%s %s: allowed SIZE[:WAYS[:LATENCY]] (SIZE in bytes with K or M)", name,
                   r < 0 ? "needs a value" : v);
            return -1;
        }
        o->set = 1;
        return 1;
    }
    if ((r = tm_opt(argc, argv, i, "--mem-latency", &v)) != 0) {
        if (r < 0 || tm_parse_u64(v, &x) || x > 100000) {
            tm_usage("record", "--mem-latency %s: allowed 0..100000 cycles", r < 0 ? "needs a value" : v);
            return -1;
        }
        o->cfg.mem_lat = (uint32_t)x;
        o->set = 1;
        return 1;
    }
    if ((r = tm_opt(argc, argv, i, "--timing-window", &v)) != 0) {
        if (r < 0 || tm_parse_count(v, &x) || x < 1 || x > ((uint64_t)1 << 32)) {
            tm_usage("record", "--timing-window %s: allowed 1..4294967296 groups", r < 0 ? "needs a value" : v);
            return -1;
        }
        o->cfg.window = x;
        o->set = 1;
        return 1;
    }
    return 0;
}

int timing_opts_check(timing_opts *o, int mode)
{
    char err[256];
    if (o->serial < 0) /* cores, but the thesis tools' descriptors in the serial order */
        o->serial = mode && !o->set;
    if (o->serial && o->set) {
        tm_usage("record", "--cpi, --l1i, --l1, --l2, --mem-latency, --timing-window, --no-icache, --no-caches: only "
                           "with --timing cores");
        return 2;
    }
    if (o->no_icache && o->l1i_given) {
        tm_usage("record", "--l1i: not with --%s (it has no instruction cache)", o->no_caches ? "no-caches" : "no-icache");
        return 2;
    }
    if (o->l1i_given && !o->cfg.l1i.size) {
        tm_usage("record", "--l1i: size 0: allowed a power of two up to 1G (no instruction cache: --no-icache)");
        return 2;
    }
    if (o->no_icache)
        o->cfg.l1i.size = 0;
    if (!o->serial && tm_timing_check(&o->cfg, err, sizeof err) != TM_OK) {
        tm_usage("record", "timing model: %s", err);
        return 2;
    }
    return 0;
}
