/* tm record's options of the thesis tools' descriptor outputs (--mode, -a,
 * -c, -d, -f, --store): parsed here, written by the library (tm/recmodes.h). */
#include <stdint.h>
#include <string.h>
#include "cmd.h"
#include "recmode_opts.h"

const char recmode_opts_help[] =
    "  --mode M                      also write the descriptors of the thesis's tool M: mcftrace,\n"
    "                                mlstrace, mcftraptor, mlvcfiat (files BASE.bin or BASE.txt and\n"
    "                                BASE.Statistics; without -o a time-stamped name)\n"
    "  -a                            ASCII descriptors (default binary)\n"
    "  -c C                          pipe the descriptors through C: gzip, bzip2, pigz, pbzip2, zstd\n"
    "  -d                            with -a: each descriptor ends with its instruction's\n"
    "                                disassembly (Intel syntax)\n"
    "  -f N                          stop the descriptors (and the tracing) at N MB\n"
    "  --store                       mlstrace: store descriptors too\n";

int recmode_opts_parse(tm_recmode_cfg *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = NULL;
    int r;
    if (!strcmp(a, "-a")) {
        c->ascii = 1;
        return 1;
    }
    if (!strcmp(a, "-d")) {
        c->disasm = 1;
        return 1;
    }
    if (!strcmp(a, "--store")) {
        c->store = 1;
        return 1;
    }
    if ((r = tm_opt(argc, argv, i, "--mode", &v)) != 0) {
        if (r < 0 || !tm_recmode_known(v)) {
            tm_usage("record", "--mode %s: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat", r < 0 ? "needs a value" : v);
            return -1;
        }
        c->mode = v;
        return 1;
    }
    if ((r = tm_opt(argc, argv, i, "-c", &v)) != 0) {
        if (r < 0 || !tm_recmode_compressor_known(v)) {
            tm_usage("record", "-c %s: allowed gzip, bzip2, pigz, pbzip2, zstd", r < 0 ? "needs a compressor" : v);
            return -1;
        }
        c->compress = v;
        return 1;
    }
    if ((r = tm_opt(argc, argv, i, "-f", &v)) != 0) {
        uint64_t n = 0;
        int ok = r > 0 && *v;
        for (const char *p = v; ok && *p; p++) {
            if (*p < '0' || *p > '9' || n > (UINT64_MAX >> 20) / 10)
                ok = 0;
            else
                n = n * 10 + (uint64_t)(*p - '0');
        }
        if (!ok || n == 0 || n > (UINT64_MAX >> 20)) {
            tm_usage("record", "-f %s: allowed a whole number of megabytes, at least 1", r < 0 ? "needs a value" : v);
            return -1;
        }
        c->size_limit = n << 20;
        return 1;
    }
    return 0;
}

