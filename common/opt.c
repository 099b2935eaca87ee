/* tm — the command line's one option parser (tm/opt.h). */
#include <stdio.h>
#include <string.h>
#include "tm/opt.h"

void tm_opt_init(tm_opt_parser *p, int argc, char **argv)
{
    p->argc = argc;
    p->argv = argv;
    p->i = 1;
    p->operands_only = 0;
}

/* 1 if A spells NAME, alone (*EQ NULL) or as NAME=VALUE (*EQ the value). */
static int spells(const char *a, const char *name, const char **eq)
{
    size_t n = strlen(name);
    if (strncmp(a, name, n) || (a[n] && a[n] != '='))
        return 0;
    *eq = a[n] ? a + n + 1 : NULL;
    return 1;
}

int tm_opt_next(tm_opt_parser *p, const tm_opt_table *t, size_t nt, const tm_optdef **hit, const char **val, char *err,
                size_t errlen)
{
    *hit = NULL;
    *val = NULL;
    if (p->i >= p->argc)
        return TM_OPT_END;
    const char *a = p->argv[p->i++];
    if (!p->operands_only && !strcmp(a, "--")) {
        p->operands_only = 1;
        return tm_opt_next(p, t, nt, hit, val, err, errlen);
    }
    if (p->operands_only || a[0] != '-' || !a[1]) {
        *val = a;
        return TM_OPT_OPERAND;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help"))
        return TM_OPT_HELP;
    for (size_t k = 0; k < nt; k++)
        for (const tm_optdef *o = t[k].opts; o->name; o++) {
            const char *eq = NULL;
            const char *spelled = spells(a, o->name, &eq) ? o->name : o->alias && spells(a, o->alias, &eq) ? o->alias
                                                                                                          : NULL;
            if (!spelled)
                continue;
            if (o->kind == TM_OPT_FLAG) {
                if (eq)
                    continue; /* "--flag=x" is no flag: unknown */
                if (o->off != TM_OPT_NOSTORE)
                    *(int *)((char *)t[k].dst + o->off) = 1;
            } else {
                if (!eq) {
                    if (p->i >= p->argc) {
                        snprintf(err, errlen, "%s needs %s", a, o->value ? o->value : "a value");
                        return TM_ERR_ARG;
                    }
                    eq = p->argv[p->i++];
                }
                if (o->off != TM_OPT_NOSTORE)
                    *(const char **)((char *)t[k].dst + o->off) = eq;
                *val = eq;
            }
            *hit = o;
            return TM_OPT_MATCH;
        }
    snprintf(err, errlen, "unknown option '%s'", a);
    return TM_ERR_ARG;
}
