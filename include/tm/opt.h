/* tm — the one option parser of the command line (tools/tm): every
 * subcommand describes its options in tables and reads its arguments with
 * tm_opt_next, so that all of them take "--name VALUE" and "--name=VALUE",
 * flags, "-h"/"--help" and "--" (every later argument is an operand) the
 * same way and word their errors the same way.  It prints nothing: a bad
 * argument gives TM_ERR_ARG with one line in the caller's buffer, which the
 * command line prints in its usage style ("tm SUB: ... (see tm SUB --help)"). */
#ifndef TM_OPT_H
#define TM_OPT_H

#include <stddef.h>
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tm_opt_kind {
    TM_OPT_FLAG = 0,  /* no value; stored as an int set to 1 */
    TM_OPT_VALUE = 1  /* one value ("--name V" or "--name=V"); stored as a const char * */
} tm_opt_kind;

/* The offset of an entry that the caller handles itself (nothing stored). */
#define TM_OPT_NOSTORE ((size_t)-1)

typedef struct tm_optdef {
    const char *name;   /* "--port"; NULL ends a table */
    const char *alias;  /* a second spelling ("-o", "-q"), or NULL */
    tm_opt_kind kind;
    size_t off;         /* where the value goes in the table's struct, or TM_OPT_NOSTORE */
    int id;             /* the caller's (for entries it handles itself) */
    const char *value;  /* what the value is, for "--x needs VALUE" (NULL: "a value") */
} tm_optdef;

/* A table and the struct its offsets point into. */
typedef struct tm_opt_table {
    const tm_optdef *opts;
    void *dst;
} tm_opt_table;

typedef struct tm_opt_parser {
    int argc;
    char **argv;
    int i;              /* the next argument */
    int operands_only;  /* after "--" */
} tm_opt_parser;

/* tm_opt_next's results. */
enum {
    TM_OPT_END = 0,     /* no argument left */
    TM_OPT_OPERAND = 1, /* *VAL: an operand (not an option, "-", or anything after "--") */
    TM_OPT_MATCH = 2,   /* *HIT: the entry (its value stored, unless TM_OPT_NOSTORE), *VAL its value */
    TM_OPT_HELP = 3     /* -h or --help */
};

void tm_opt_init(tm_opt_parser *p, int argc, char **argv);
/* The next argument against the NT tables in order (the first match wins).
 * Returns one of the results above, or TM_ERR_ARG with ERR: "unknown option
 * '-x'" or "--port needs a value". */
int tm_opt_next(tm_opt_parser *p, const tm_opt_table *t, size_t nt, const tm_optdef **hit, const char **val, char *err,
                size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
