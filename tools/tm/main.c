/* tm — the command line: `tm SUBCOMMAND [options]` (git/perf style). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cmd.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} cmds[] = {
    {"gen", cmd_gen, "generate a synthetic commit stream (.tmc)"},
    {"dump", cmd_dump, "print or count the records of a commit stream"},
    {"model", cmd_model, "run the trace module model: .tmc -> .tmt + statistics"},
    {"decode", cmd_decode, "replay a trace (.tmt); --verify against the .tmc"},
    {"cosim", cmd_cosim, "co-simulate the RTL with the model on a commit stream"},
    {"record", cmd_record, "run a program under Valgrind and trace it: -> .tmt (+ .tmc)"},
    {"pt", cmd_pt, "Intel PT on the same execution (libipt): encode, verify, compare the bits"},
    {"etm4", cmd_etm4, "ARM ETMv4 on the same AArch64 execution (OpenCSD): encode, verify, compare the bits"},
    {"etrace", cmd_etrace, "RISC-V E-Trace on the same execution: encode, verify, the extensions' bits"},
    {"std", cmd_std, "the ISA's trace standard (PT, ETMv4, E-Trace) beside the trace module, verified"},
    {"config", cmd_config, "the manifest of named configurations: tiers, options, RTL parameters"},
    {"study", cmd_study, "a bandwidth study: programs x thread counts x configurations -> report"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: tm SUBCOMMAND [options] [files]\n\nsubcommands:\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].help);
    fprintf(f, "\n`tm SUBCOMMAND --help` describes each one; docs/guide.md has examples.\n"
               "`tm --version` (or `tm SUBCOMMAND --version`) prints the version and build-id.\n");
}

/* WHY and the subcommands, from cmds[], in one line on stderr. */
static int bad_subcommand(const char *why, const char *name)
{
    fputs("tm: ", stderr);
    fputs(why, stderr);
    if (name) {
        fputs(" '", stderr);
        tm_put_escaped(stderr, name, 0);
        fputc('\'', stderr);
    }
    fputs(" (one of:", stderr);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(stderr, "%s %s", i ? "," : "", cmds[i].name);
    fputs("; see tm --help)\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return bad_subcommand("no subcommand", NULL);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    /* A closed standard output (a pager that quit) is a write error, not a
     * signal (tm_finish_stdout); an interrupted run removes its temporaries. */
    tm_save_signals();
    signal(SIGPIPE, SIG_IGN);
    tm_cleanup_on_signal();
    if (!strcmp(argv[1], "--version"))
        return tm_finish_stdout("", tm_print_version());
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (strcmp(argv[1], cmds[i].name))
            continue;
        /* tm SUB --version: SUB's first argument (tm study's too, before
         * its script runs) */
        if (argc >= 3 && !strcmp(argv[2], "--version"))
            return tm_finish_stdout(cmds[i].name, tm_print_version());
        return tm_finish_stdout(cmds[i].name, cmds[i].fn(argc - 1, argv + 1));
    }
    return bad_subcommand("unknown subcommand", argv[1]);
}
