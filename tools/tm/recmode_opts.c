/* tm record's options of the thesis tools' descriptor outputs (--mode, -a,
 * -c, -d, -f, --store): found in argv here, their values checked and
 * written by the library (tm_recmode_opt, tm/recmodes.h). */
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
    static const char *const flags[] = {"-a", "-d", "--store"}, *const valued[] = {"--mode", "-c", "-f"};
    const char *name = NULL, *v = NULL;
    char err[512];
    for (size_t k = 0; !name && k < 3; k++)
        if (!strcmp(argv[*i], flags[k]))
            name = flags[k];
    for (size_t k = 0; !name && k < 3; k++) {
        int r = tm_opt(argc, argv, i, valued[k], &v);
        if (r)
            name = valued[k];
        if (r < 0)
            v = NULL; /* the value is missing */
    }
    if (!name)
        return 0;
    if (tm_recmode_opt(c, name, v, err, sizeof err) != TM_OK)
        return tm_usage("record", "%s", err), -1;
    return 1;
}
