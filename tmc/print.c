/* tm — a commit stream as text (tm/tmcprint.h): the record lines of
 * `tm dump`, the flow view of `tm dump --flow` and the totals of
 * `tm dump --count`, written to the caller's FILE*. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/isa.h"
#include "tm/tmcprint.h"

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

/* A MEM record's value: the little-endian integer of its bytes (they are in
 * memory order) up to 8 bytes, else the bytes in hex. */
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

void tmc_print_record(FILE *out, const tmc_record *r)
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
        put_value(out, r);
        putc('\n', out);
        break;
    default:
        fprintf(out, "type %u\n", (unsigned)r->type);
        break;
    }
}

/* A thread's straight run so far: from PC, N instructions, BYTES bytes. */
typedef struct flow_run {
    uint64_t pc, n, bytes;
} flow_run;

/* The flow view's state: one run per thread. */
typedef struct flow_state {
    flow_run *run;
} flow_state;

static flow_state *flow_new(uint32_t threads)
{
    flow_state *f = calloc(1, sizeof *f);
    if (f && !(f->run = calloc(threads ? threads : 1, sizeof *f->run))) {
        free(f);
        f = NULL;
    }
    return f;
}

static void flow_free(flow_state *f)
{
    if (f)
        free(f->run);
    free(f);
}

/* The run of thread T ends: its line, if it has instructions. */
static void flow_end_run(FILE *out, uint32_t t, flow_run *f)
{
    if (f->n)
        fprintf(out, "T%" PRIu32 " run 0x%" PRIx64 " %" PRIu64 "\n", t, f->pc, f->n);
    f->pc += f->bytes;
    f->n = f->bytes = 0;
}

/* One record of the flow view (its runs: FL). */
static void flow_record(FILE *out, flow_state *fl, const tmc_record *r)
{
    flow_run *f = r->type == TMC_MODULE || r->type == TMC_END || r->type == TMC_ENDING ? NULL : &fl->run[r->tid];
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

int tmc_count_stream(tmc_reader *r, tmc_counts *k)
{
    memset(k, 0, sizeof *k);
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

void tmc_print_counts(FILE *out, const tmc_counts *k, uint32_t threads)
{
    fprintf(out, "records: %" PRIu64 "\n", k->records);
    fprintf(out, "instructions: %" PRIu64 "\n", k->instructions);
    fprintf(out, "branches: %" PRIu64 "\n", k->branches);
    for (int i = 0; i < TMC_NCLASSES; i++)
        fprintf(out, "  %s: %" PRIu64 "\n", tmc_bclass_name((unsigned)i), k->cls[i]);
    fprintf(out, "exceptions: %" PRIu64 "\n", k->exceptions);
    fprintf(out, "loads: %" PRIu64 "\n", k->loads);
    fprintf(out, "stores: %" PRIu64 "\n", k->stores);
    fprintf(out, "modules: %" PRIu64 "\n", k->modules);
    fprintf(out, "threads-started: %" PRIu64 " (of %" PRIu32 ")\n", k->started, threads);
    fprintf(out, "cycles: %" PRIu64 "\n", k->cycles);
    if (k->cut == TMC_CUT_SIGNAL)
        fprintf(out, "cut: by signal %u\n", k->cut_signal);
    else if (k->cut == TMC_CUT_SHORT)
        fprintf(out, "cut: short (the capture ended without its end marker)\n");
    else if (k->cut == TMC_EXITED)
        fprintf(out, "program: exited with status %u\n", k->cut_signal);
    else if (k->cut == TMC_KILLED)
        fprintf(out, "program: killed by signal %u (%s)\n", k->cut_signal, strsignal((int)k->cut_signal));
    else if (k->cut == TMC_EXECVED)
        fprintf(out, "program: replaced itself by execve\n");
}

int tmc_print_stream(FILE *out, tmc_reader *r, int mode)
{
    if (mode == TMC_PRINT_COUNTS) {
        tmc_counts k;
        int rc = tmc_count_stream(r, &k);
        if (rc == 0 && tmc_reader_isa(r) != TM_ISA_X86_64) /* x86-64's counts are as before the other ISAs */
            fprintf(out, "isa: %s\n", tm_isa_name(tmc_reader_isa(r)));
        if (rc == 0)
            tmc_print_counts(out, &k, tmc_reader_threads(r));
        return rc;
    }
    int flow = mode == TMC_PRINT_FLOW, rc;
    fprintf(out, "# tmc v%u threads=%" PRIu32, TMC_VERSION, tmc_reader_threads(r));
    if (tmc_reader_isa(r) != TM_ISA_X86_64)
        fprintf(out, " isa=%s", tm_isa_name(tmc_reader_isa(r)));
    fprintf(out, "%s\n", flow ? " flow" : "");
    flow_state *f = flow ? flow_new(tmc_reader_threads(r)) : NULL;
    if (flow && !f)
        return TM_ERR_NOMEM;
    tmc_record rec;
    while ((rc = tmc_reader_next(r, &rec)) == 1) {
        if (flow)
            flow_record(out, f, &rec);
        else
            tmc_print_record(out, &rec);
        if (ferror(out))
            break;
    }
    flow_free(f);
    return rc;
}
