/* tm — unit tests of the command line's one option parser (common/opt.c,
 * tm/opt.h): flags and values in both spellings, aliases, operands, "--",
 * -h/--help, and the two errors with their wording. */
#include <criterion/criterion.h>
#include <stddef.h>
#include <string.h>
#include "tm/opt.h"

typedef struct args {
    int flag, quiet;
    const char *port, *out;
} args;

enum { SPECIAL = 7 };
static const tm_optdef defs[] = {
    {"--flag", NULL, TM_OPT_FLAG, offsetof(args, flag), 0, NULL},
    {"--quiet", "-q", TM_OPT_FLAG, offsetof(args, quiet), 0, NULL},
    {"--port", NULL, TM_OPT_VALUE, offsetof(args, port), 0, NULL},
    {"-o", "--output", TM_OPT_VALUE, offsetof(args, out), 0, "a file name"},
    {"--and", NULL, TM_OPT_FLAG, TM_OPT_NOSTORE, SPECIAL, NULL},
    {NULL, NULL, 0, 0, 0, NULL}};

/* Parses ARGV (NULL-terminated, argv[0] included) into A; the operands in
 * OPS (up to 4), the results in RES (up to 16); returns the last result. */
static int parse(const char **argv, args *a, const char **ops, int *nops, int *nspecial, char *err, size_t n)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(a, 0, sizeof *a);
    *nops = *nspecial = 0;
    tm_opt_parser p;
    tm_opt_init(&p, argc, (char **)argv);
    tm_opt_table t = {defs, a};
    const tm_optdef *hit;
    const char *v;
    int r;
    while ((r = tm_opt_next(&p, &t, 1, &hit, &v, err, n)) > 0) {
        if (r == TM_OPT_OPERAND && *nops < 4)
            ops[(*nops)++] = v;
        if (r == TM_OPT_MATCH && hit->id == SPECIAL)
            (*nspecial)++;
        if (r == TM_OPT_HELP)
            return r;
    }
    return r;
}

Test(opt, flags_values_aliases_operands)
{
    const char *argv[] = {"tm", "in.tmc", "--flag", "-q", "--port", "8", "--output=x.tmt", "--and", "-", NULL};
    args a;
    const char *ops[4];
    int nops, ns;
    char err[128] = "";
    cr_assert_eq(parse(argv, &a, ops, &nops, &ns, err, sizeof err), TM_OPT_END, "%s", err);
    cr_assert_eq(a.flag, 1);
    cr_assert_eq(a.quiet, 1);
    cr_assert_str_eq(a.port, "8");
    cr_assert_str_eq(a.out, "x.tmt");
    cr_assert_eq(ns, 1, "a NOSTORE entry is the caller's");
    cr_assert_eq(nops, 2);
    cr_assert_str_eq(ops[0], "in.tmc");
    cr_assert_str_eq(ops[1], "-", "'-' is an operand (standard input)");
}

Test(opt, double_dash_ends_the_options)
{
    const char *argv[] = {"tm", "--port=4", "--", "-x.tmc", "--flag", "--", NULL};
    args a;
    const char *ops[4];
    int nops, ns;
    char err[128] = "";
    cr_assert_eq(parse(argv, &a, ops, &nops, &ns, err, sizeof err), TM_OPT_END, "%s", err);
    cr_assert_str_eq(a.port, "4");
    cr_assert_eq(a.flag, 0, "after --, --flag is a file");
    cr_assert_eq(nops, 3);
    cr_assert_str_eq(ops[0], "-x.tmc");
    cr_assert_str_eq(ops[1], "--flag");
    cr_assert_str_eq(ops[2], "--", "a second -- is a file too");
}

Test(opt, help_and_errors)
{
    args a;
    const char *ops[4];
    int nops, ns;
    char err[128] = "";
    const char *h[] = {"tm", "--flag", "-h", NULL};
    cr_assert_eq(parse(h, &a, ops, &nops, &ns, err, sizeof err), TM_OPT_HELP);
    const char *u[] = {"tm", "--bogus", NULL};
    cr_assert_eq(parse(u, &a, ops, &nops, &ns, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "unknown option '--bogus'");
    const char *pre[] = {"tm", "--portx", "3", NULL};
    cr_assert_eq(parse(pre, &a, ops, &nops, &ns, err, sizeof err), TM_ERR_ARG, "a prefix is no match");
    cr_assert_str_eq(err, "unknown option '--portx'");
    const char *fv[] = {"tm", "--flag=1", NULL};
    cr_assert_eq(parse(fv, &a, ops, &nops, &ns, err, sizeof err), TM_ERR_ARG, "a flag takes no value");
    const char *mv[] = {"tm", "--port", NULL};
    cr_assert_eq(parse(mv, &a, ops, &nops, &ns, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "--port needs a value");
    const char *mo[] = {"tm", "--output", NULL};
    cr_assert_eq(parse(mo, &a, ops, &nops, &ns, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "--output needs a file name", "the entry names its value");
    const char *ev[] = {"tm", "--port=", NULL};
    cr_assert_eq(parse(ev, &a, ops, &nops, &ns, err, sizeof err), TM_OPT_END);
    cr_assert_str_eq(a.port, "", "an empty value is the caller's to judge");
}
