/* tm record's options of the thesis tools' descriptor outputs (--mode, -a,
 * -c, -d, -f, --store) into a tm_recmode_cfg (tm/recmodes.h): each value
 * checked, the message in the caller's buffer. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tm/recmodes.h"

int tm_recmode_opt(tm_recmode_cfg *c, const char *name, const char *v, char *err, size_t errlen)
{
    if (!strcmp(name, "-a")) {
        c->ascii = 1;
    } else if (!strcmp(name, "-d")) {
        c->disasm = 1;
    } else if (!strcmp(name, "--store")) {
        c->store = 1;
    } else if (!strcmp(name, "--mode")) {
        if (!v || !tm_recmode_known(v))
            return snprintf(err, errlen, "--mode %s: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat",
                            v ? v : "needs a value"), TM_ERR_ARG;
        c->mode = v;
    } else if (!strcmp(name, "-c")) {
        if (!v || !tm_recmode_compressor_known(v))
            return snprintf(err, errlen, "-c %s: allowed gzip, bzip2, pigz, pbzip2, zstd", v ? v : "needs a compressor"),
                   TM_ERR_ARG;
        c->compress = v;
    } else if (!strcmp(name, "-f")) {
        uint64_t n = 0;
        int ok = v && *v;
        for (const char *p = v; ok && *p; p++) {
            if (*p < '0' || *p > '9' || n > (UINT64_MAX >> 20) / 10)
                ok = 0;
            else
                n = n * 10 + (uint64_t)(*p - '0');
        }
        if (!ok || n == 0 || n > (UINT64_MAX >> 20))
            return snprintf(err, errlen, "-f %s: allowed a whole number of megabytes, at least 1",
                            v ? v : "needs a value"), TM_ERR_ARG;
        c->size_limit = n << 20;
    } else {
        return snprintf(err, errlen, "%s: not an option of the descriptors", name), TM_ERR_ARG;
    }
    return TM_OK;
}
