/* Unit tests' reader of tm record's descriptor options in an argv (-a, -c X,
 * -d, -f N, --store, --mode X; "--mode=X", "-c=X", "-f=N" too), as tm
 * record's option table finds them (tools/tm/cmd_record.c), each value
 * checked and stored by the library's tm_recmode_opt (tm/recmodes.h).
 * Returns 1 (consumed; *I advanced past a separate value), 0 (not such an
 * option), or -1 after printing tm record's usage line to stderr. */
#ifndef TM_TESTS_RECMODE_ARGV_H
#define TM_TESTS_RECMODE_ARGV_H

#include <string.h>
#include "cmd.h"
#include "tm/recmodes.h"

static inline int recmode_opts_parse(tm_recmode_cfg *c, int argc, char **argv, int *i)
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

#endif
