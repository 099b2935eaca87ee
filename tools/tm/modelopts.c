/* tm command line: the model options shared by `tm model`, `tm cosim`,
 * `tm record` and `tm config`, read into a model_opts and resolved by the
 * library (tm/modelspec.h), whose messages are printed as usage errors. */
#include <stdio.h>
#include <string.h>
#include "cmd.h"
#include "modelopts.h"

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

const tm_optdef model_opts_table[] = {TM_MODEL_SPEC_OPTS(model_opts), {NULL, NULL, 0, 0, 0, NULL}};

int model_opts_parse(const char *sub, model_opts *o, int argc, char **argv, int *i)
{
    char err[256];
    int r = tm_model_spec_arg(model_opts_table, o, argc, argv, i, err, sizeof err);
    if (r < 0)
        tm_usage(sub, "%s", err);
    return r < 0 ? -1 : r;
}

int model_opts_cfg(const char *sub, const model_opts *o, uint32_t threads, tm_model_cfg *cfg)
{
    tm_model_spec s;
    char err[1024];
    tm_model_spec_load(&s, model_opts_table, o);
    if (tm_model_spec_cfg(&s, threads, cfg, err, sizeof err) != TM_OK) {
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
    char err[8192];
    if (tm_model_demand_check(m, cfg, name, err, sizeof err) == TM_OK)
        return 0;
    tm_err(sub, "%s", err);
    return -1;
}
