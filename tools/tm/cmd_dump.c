/* tm dump — print or count the records of a commit stream (.tmc).
 *
 *   tm dump FILE       one line per record (FILE may be "-" for stdin)
 *   tm dump --count FILE   totals only; this only parses and counts, and is
 *                          the parse-speed baseline of `make bench`
 *   tm dump --flow FILE    each thread's instruction flow without the cycles
 *                          and the grouping (docs/guide.md "tm dump --flow"):
 *                          two recordings of one execution compare line by
 *                          line per thread, whatever their timing
 *
 * Output may be cut short by the reader of a pipe (`tm dump x.tmc | head`):
 * SIGPIPE is ignored and the resulting EPIPE ends the command quietly with
 * status 0. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include "tm/tmcprint.h"
#include "cmd.h"
#include "tm/opt.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tm dump [--count | --flow] FILE.tmc\n"
            "\n"
            "Prints the records of a commit stream, one per line, after a header line;\n"
            "FILE may be \"-\" for standard input.  The whole stream is validated\n"
            "(docs/spec.md §2.3); the first error is printed and the status is 1.\n"
            "\n"
            "  --count   print only totals: records, instructions, branches per class,\n"
            "            exceptions, loads, stores, modules, threads started, cycles\n"
            "  --flow    each thread's instruction flow, without cycles and groups: lines\n"
            "            T<tid> run PC N (N instructions from PC, straight), T<tid> branch PC\n"
            "            CLASS T|N TARGET, T<tid> load|store PC+K SIZE VALUE @ADDR (an operand\n"
            "            of the run from PC after K of its instructions), T<tid> exc PC HANDLER,\n"
            "            T<tid> start PC [trace-on], T<tid> exit [trace-off]; module ADDR PATH;\n"
            "            cut ...  (grep '^T1 ' gives thread 1's flow)\n"
            "  --help    this text\n");
}

/* Output failed: the errno for tm_finish_stdout, which reports it (a
 * reader that went away ends quietly); no more output. */
static int output_failed(void)
{
    tm_stdout_errno(errno);
    return 0;
}

int cmd_dump(int argc, char **argv)
{
    struct dump_args {
        int count, flow;
    } D = {0, 0};
    static const tm_optdef dump_opts[] = {{"--count", NULL, TM_OPT_FLAG, offsetof(struct dump_args, count), 0, NULL},
                                          {"--flow", NULL, TM_OPT_FLAG, offsetof(struct dump_args, flow), 0, NULL},
                                          {NULL, NULL, 0, 0, 0, NULL}};
    const char *file = NULL, *v;
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t = {dump_opts, &D};
    const tm_optdef *hit;
    char perr[256];
    int pr;
    while ((pr = tm_opt_next(&p, &t, 1, &hit, &v, perr, sizeof perr)) > 0) {
        if (pr == TM_OPT_HELP)
            return usage(stdout), 0;
        if (pr == TM_OPT_OPERAND && file)
            return tm_usage("dump", "more than one FILE ('%s' and '%s'): one commit stream only", file, v), 2;
        if (pr == TM_OPT_OPERAND)
            file = v;
    }
    if (pr < 0)
        return tm_usage("dump", "%s", perr), 2;
    int count = D.count, flow = D.flow;
    if (count && flow) {
        tm_usage("dump", "--count and --flow: one of them");
        return 2;
    }
    if (!file) {
        tm_usage("dump", "missing FILE.tmc: give a commit stream (\"-\" = standard input)");
        return 2;
    }

    signal(SIGPIPE, SIG_IGN);
    tmc_reader *r = NULL;
    char e[600];
    int rc = tmc_reader_open(file, &r, e, sizeof e);
    if (rc) {
        tm_err("dump", "%s", e);
        return 1;
    }

    rc = tmc_print_stream(stdout, r, count ? TMC_PRINT_COUNTS : flow ? TMC_PRINT_FLOW : TMC_PRINT_RECORDS);
    int status = 0;
    if (ferror(stdout) || fflush(stdout)) {
        status = output_failed();
    } else if (rc < 0) {
        tm_err("dump", "%s", rc == TM_ERR_NOMEM ? "out of memory" : tmc_reader_error(r));
        status = 1;
    }
    tmc_reader_close(r);
    return status;
}
