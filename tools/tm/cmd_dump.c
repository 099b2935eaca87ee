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
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/tmc.h"
#include <stddef.h>
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

/* Bytes of a MODULE path, with backslash, blanks and anything not printable
 * ASCII escaped as \xNN so that a line stays one line. */
static void put_path(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch > ' ' && ch < 0x7F && ch != '\\')
            putc(ch, out);
        else
            fprintf(out, "\\x%02x", ch);
    }
}

static void put_hex(FILE *out, const uint8_t *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        putc(digits[b[i] >> 4], out);
        putc(digits[b[i] & 15], out);
    }
}

static void print_record(FILE *out, const tmc_record *r)
{
    if (r->type == TMC_MODULE) {
        fprintf(out, "MODULE addr=0x%" PRIx64 " path=", r->addr);
        put_path(out, r->path, r->path_len);
        fputs(" build-id=", out);
        if (r->build_id_len)
            put_hex(out, r->build_id, r->build_id_len);
        else
            fputs("none", out);
        putc('\n', out);
        return;
    }
    if (r->type == TMC_END) {
        fprintf(out, "END count=%" PRIu64 "\n", r->count);
        return;
    }
    if (r->type == TMC_ENDING) {
        if (r->flags == TMC_CUT_SIGNAL)
            fprintf(out, "CUT signal=%" PRIu64 "\n", r->count);
        else if (r->flags == TMC_CUT_SHORT)
            fprintf(out, "CUT short\n");
        else if (r->flags == TMC_EXITED)
            fprintf(out, "ENDED exit status=%" PRIu64 "\n", r->count);
        else if (r->flags == TMC_KILLED)
            fprintf(out, "ENDED killed signal=%" PRIu64 "\n", r->count);
        else
            fprintf(out, "ENDED execve\n");
        return;
    }
    fprintf(out, "c=%" PRIu64 " t=%" PRIu32 " ", r->cycle, r->tid);
    switch (r->type) {
    case TMC_START:
        fprintf(out, "START%s pc=0x%" PRIx64 "\n",
                r->flags & TMC_START_TRACE_ON ? " trace-on" : "", r->pc);
        break;
    case TMC_EXIT:
        fprintf(out, "EXIT%s\n", r->flags & TMC_EXIT_TRACE_OFF ? " trace-off" : "");
        break;
    case TMC_RUN:
        fprintf(out, "RUN n=%" PRIu64 " bytes=%" PRIu64 " pc=0x%" PRIx64 "\n",
                r->count, r->bytes, r->pc);
        break;
    case TMC_BRANCH:
        fprintf(out, "BRANCH %s %c pc=0x%" PRIx64 " len=%u target=0x%" PRIx64 "\n",
                tmc_bclass_name(r->bclass), r->taken ? 'T' : 'N', r->pc, r->len, r->target);
        break;
    case TMC_EXC:
        fprintf(out, "EXC pc=0x%" PRIx64 " handler=0x%" PRIx64 "\n", r->pc, r->target);
        break;
    case TMC_MEM:
        fprintf(out, "MEM %s size=%u addr=0x%" PRIx64 " value=",
                r->flags & TMC_MEM_STORE ? "store" : "load", r->size, r->addr);
        if (r->size <= 8) {
            /* Value bytes are in memory order: print the little-endian
             * integer they make. */
            uint64_t v = 0;
            for (unsigned i = 0; i < r->size; i++)
                v |= (uint64_t)r->value[i] << (8 * i);
            fprintf(out, "0x%0*" PRIx64 "\n", 2 * r->size, v);
        } else {
            put_hex(out, r->value, r->size);
            putc('\n', out);
        }
        break;
    default:
        fprintf(out, "type %u\n", (unsigned)r->type);
        break;
    }
}

/* ---- --flow ---- */

/* A thread's straight run so far: from PC, N instructions, BYTES bytes. */
typedef struct flow_run {
    uint64_t pc, n, bytes;
} flow_run;

static void put_value(FILE *out, const tmc_record *r)
{
    if (r->size <= 8) {
        uint64_t v = 0;
        for (unsigned i = 0; i < r->size; i++)
            v |= (uint64_t)r->value[i] << (8 * i);
        fprintf(out, "0x%0*" PRIx64, 2 * r->size, v);
    } else {
        put_hex(out, r->value, r->size);
    }
}

/* The run of thread T ends: its line, if it has instructions. */
static void flow_end_run(FILE *out, uint32_t t, flow_run *f)
{
    if (f->n)
        fprintf(out, "T%" PRIu32 " run 0x%" PRIx64 " %" PRIu64 "\n", t, f->pc, f->n);
    f->pc += f->bytes;
    f->n = f->bytes = 0;
}

/* One record of the flow view; F: the threads' runs. */
static void flow_record(FILE *out, const tmc_record *r, flow_run *fr)
{
    flow_run *f = r->type == TMC_MODULE || r->type == TMC_END || r->type == TMC_ENDING ? NULL : &fr[r->tid];
    uint32_t t = r->tid;
    switch (r->type) {
    case TMC_MODULE:
        fprintf(out, "module 0x%" PRIx64 " ", r->addr);
        put_path(out, r->path, r->path_len);
        putc('\n', out);
        break;
    case TMC_ENDING:
        if (r->flags == TMC_CUT_SIGNAL)
            fprintf(out, "cut signal=%" PRIu64 "\n", r->count);
        else if (r->flags == TMC_CUT_SHORT)
            fprintf(out, "cut short\n");
        else if (r->flags == TMC_EXITED)
            fprintf(out, "program exited with status %" PRIu64 "\n", r->count);
        else if (r->flags == TMC_KILLED)
            fprintf(out, "program killed by signal %" PRIu64 " (%s)\n", r->count, strsignal((int)r->count));
        else
            fprintf(out, "program replaced itself by execve\n");
        break;
    case TMC_START:
        fprintf(out, "T%" PRIu32 " start 0x%" PRIx64 "%s\n", t, r->pc, r->flags & TMC_START_TRACE_ON ? " trace-on" : "");
        f->pc = r->pc;
        f->n = f->bytes = 0;
        break;
    case TMC_RUN:
        if (f->n && r->pc != f->pc + f->bytes) /* not where the run ends: another run */
            flow_end_run(out, t, f);
        if (!f->n)
            f->pc = r->pc;
        f->n += r->count;
        f->bytes += r->bytes;
        break;
    case TMC_MEM:
        fprintf(out, "T%" PRIu32 " %s 0x%" PRIx64 "+%" PRIu64 " %u ", t, r->flags & TMC_MEM_STORE ? "store" : "load",
                f->pc, f->n, r->size);
        put_value(out, r);
        fprintf(out, " @0x%" PRIx64 "\n", r->addr);
        break;
    case TMC_BRANCH:
        flow_end_run(out, t, f);
        fprintf(out, "T%" PRIu32 " branch 0x%" PRIx64 " %s %c 0x%" PRIx64 "\n", t, r->pc, tmc_bclass_name(r->bclass),
                r->taken ? 'T' : 'N', r->target);
        f->pc = r->taken ? r->target : r->pc + r->len;
        break;
    case TMC_EXC:
        flow_end_run(out, t, f);
        fprintf(out, "T%" PRIu32 " exc 0x%" PRIx64 " 0x%" PRIx64 "\n", t, r->pc, r->target);
        f->pc = r->target;
        break;
    case TMC_EXIT:
        flow_end_run(out, t, f);
        fprintf(out, "T%" PRIu32 " exit%s\n", t, r->flags & TMC_EXIT_TRACE_OFF ? " trace-off" : "");
        break;
    default:
        break;
    }
}

typedef struct counts {
    uint64_t records, instructions, branches, cls[TMC_NCLASSES];
    uint64_t exceptions, loads, stores, modules, started, cycles;
    unsigned cut, cut_signal; /* the ENDING record's reason and code */
} counts;

/* Parses the whole stream, counting; nothing else (bench baseline). */
static int count_stream(tmc_reader *r, counts *k)
{
    tmc_record rec;
    int rc;
    while ((rc = tmc_reader_next(r, &rec)) == 1) {
        switch (rec.type) {
        case TMC_START: k->started++; break;
        case TMC_RUN: k->instructions += rec.count; break;
        case TMC_BRANCH: k->cls[rec.bclass]++; break;
        case TMC_EXC: k->exceptions++; break;
        case TMC_MEM:
            if (rec.flags & TMC_MEM_STORE)
                k->stores++;
            else
                k->loads++;
            break;
        case TMC_MODULE: k->modules++; break;
        case TMC_END: k->records = rec.count; continue;
        case TMC_ENDING: k->cut = rec.flags; k->cut_signal = (unsigned)rec.count; continue;
        default: break;
        }
        k->cycles = rec.type == TMC_MODULE ? k->cycles : rec.cycle;
    }
    for (int i = 0; i < TMC_NCLASSES; i++)
        k->branches += k->cls[i];
    k->instructions += k->branches;
    return rc;
}

/* Output failed: the errno for tm_finish_stdout, which reports it (a
 * reader that went away ends quietly); no more output. */
static int output_failed(void)
{
    tm_stdout_errno(errno);
    return 0;
}

/* --count: the stream R's counts (R closed here); the exit status. */
static int dump_counts(tmc_reader *r)
{
    counts k;
    memset(&k, 0, sizeof k);
    int status = 0;
    if (count_stream(r, &k) < 0) {
        tm_err("dump", "%s", tmc_reader_error(r));
        tmc_reader_close(r);
        return 1;
    }
    printf("records: %" PRIu64 "\n", k.records);
    printf("instructions: %" PRIu64 "\n", k.instructions);
    printf("branches: %" PRIu64 "\n", k.branches);
    for (int i = 0; i < TMC_NCLASSES; i++)
        printf("  %s: %" PRIu64 "\n", tmc_bclass_name((unsigned)i), k.cls[i]);
    printf("exceptions: %" PRIu64 "\n", k.exceptions);
    printf("loads: %" PRIu64 "\n", k.loads);
    printf("stores: %" PRIu64 "\n", k.stores);
    printf("modules: %" PRIu64 "\n", k.modules);
    printf("threads-started: %" PRIu64 " (of %" PRIu32 ")\n", k.started, tmc_reader_threads(r));
    printf("cycles: %" PRIu64 "\n", k.cycles);
    if (k.cut == TMC_CUT_SIGNAL)
        printf("cut: by signal %u\n", k.cut_signal);
    else if (k.cut == TMC_CUT_SHORT)
        printf("cut: short (the capture ended without its end marker)\n");
    else if (k.cut == TMC_EXITED)
        printf("program: exited with status %u\n", k.cut_signal);
    else if (k.cut == TMC_KILLED)
        printf("program: killed by signal %u (%s)\n", k.cut_signal, strsignal((int)k.cut_signal));
    else if (k.cut == TMC_EXECVED)
        printf("program: replaced itself by execve\n");
    if (fflush(stdout) || ferror(stdout))
        status = output_failed();
    tmc_reader_close(r);
    return status;
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

    if (count)
        return dump_counts(r);
    int status = 0;
    printf("# tmc v%u threads=%" PRIu32 "%s\n", TMC_VERSION, tmc_reader_threads(r), flow ? " flow" : "");
    tmc_record rec;
    flow_run *fr = flow ? calloc(tmc_reader_threads(r) ? tmc_reader_threads(r) : 1, sizeof *fr) : NULL;
    if (flow && !fr) {
        tm_err("dump", "out of memory");
        tmc_reader_close(r);
        return 1;
    }
    while ((rc = tmc_reader_next(r, &rec)) == 1) {
        if (flow)
            flow_record(stdout, &rec, fr);
        else
            print_record(stdout, &rec);
        if (ferror(stdout)) {
            tm_stdout_errno(errno);
            break;
        }
    }
    if (ferror(stdout) || fflush(stdout)) {
        status = output_failed();
    } else if (rc < 0) {
        tm_err("dump", "%s", tmc_reader_error(r));
        status = 1;
    }
    free(fr);
    tmc_reader_close(r);
    return status;
}
