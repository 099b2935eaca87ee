/* tm — commit stream rules (docs/spec.md §2.3): diagnostics shared by the
 * reader and the writer, and the names of record types and branch classes. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tmc_int.h"

static const char *const class_names[TMC_NCLASSES] = {
    "cond", "jump", "call", "ijump", "icall", "ret"
};

const char *tmc_bclass_name(unsigned c)
{
    return c < TMC_NCLASSES ? class_names[c] : "?";
}

int tmc_bclass_parse(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < TMC_NCLASSES; i++)
        if (!strcmp(name, class_names[i]))
            return i;
    return -1;
}

const char *tmc_type_name(unsigned type)
{
    static const char *const names[] = {
        "?", "START", "EXIT", "RUN", "BRANCH", "EXC", "MEM", "MODULE", "END", "ENDING"
    };
    return type < sizeof names / sizeof names[0] ? names[type] : "?";
}

/* N zeroed elements of SIZE bytes in whole cache lines of their own: the
 * reader writes a thread's pc at every branch, and on a thread of its own
 * (tmc_ahead, the verifying replay's reader) a neighbour sharing the line
 * costs whoever uses the neighbour a miss each time (tm model, the model's
 * sweep struct, allocated next: 0.57 -> 0.49 s on 100 M instructions). */
static void *line_calloc(size_t n, size_t size)
{
    size_t bytes = (n * size + 63u) & ~(size_t)63u;
    void *p = aligned_alloc(64, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

int tmc_check_init(tmc_check *c, uint32_t threads)
{
    memset(c, 0, sizeof *c);
    c->threads = threads;
    c->state = line_calloc(threads ? threads : 1, sizeof *c->state);
    c->pc = line_calloc(threads ? threads : 1, sizeof *c->pc);
    if (!c->state || !c->pc) {
        tmc_check_free(c);
        return TM_ERR_NOMEM;
    }
    return 0;
}

void tmc_check_free(tmc_check *c)
{
    free(c->state);
    free(c->pc);
    c->state = NULL;
    c->pc = NULL;
}

int tmc_check_fail(tmc_check *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->what, sizeof c->what, fmt, ap);
    va_end(ap);
    return code;
}

/* Re-runs the tests of tmc_check_thread in order to name the rule broken. */
int tmc_check_order_fail(tmc_check *c, unsigned type, uint64_t tid, uint64_t cycle)
{
    const char *tn = tmc_type_name(type);
    if (tid >= c->threads)
        return tmc_check_fail(c, TM_ERR_FORMAT,
                              "thread id %" PRIu64 " out of range (stream declares %" PRIu32
                              " thread%s)", tid, c->threads, c->threads == 1 ? "" : "s");
    if (c->any) {
        if (cycle < c->cycle)
            return tmc_check_fail(c, TM_ERR_FORMAT,
                                  "cycle goes backwards: %s at cycle %" PRIu64
                                  " after cycle %" PRIu64, tn, cycle, c->cycle);
        if (cycle == c->cycle && tid < c->tid)
            return tmc_check_fail(c, TM_ERR_FORMAT,
                                  "thread id decreases within cycle %" PRIu64 ": %s of thread %"
                                  PRIu64 " after thread %" PRIu32, cycle, tn, tid, c->tid);
        if (cycle == c->cycle && tid == c->tid && c->g_event) {
            if (type == TMC_RUN || type == TMC_MEM)
                return tmc_check_fail(c, TM_ERR_FORMAT,
                                      "%s after the group's event (%s) in cycle %" PRIu64
                                      ", thread %" PRIu64 "; an event must end its group",
                                      tn, tmc_type_name(c->g_event), cycle, tid);
            return tmc_check_fail(c, TM_ERR_FORMAT,
                                  "second event in the group of cycle %" PRIu64 ", thread %"
                                  PRIu64 ": %s after %s", cycle, tid, tn,
                                  tmc_type_name(c->g_event));
        }
    }
    switch (c->state[tid]) {
    case TMC_TS_NEW:
        return tmc_check_fail(c, TM_ERR_FORMAT,
                              "thread %" PRIu64 ": %s at cycle %" PRIu64
                              " before the thread's START (START must be its first record)",
                              tid, tn, cycle);
    case TMC_TS_LIVE:
        return tmc_check_fail(c, TM_ERR_FORMAT,
                              "thread %" PRIu64 ": second START at cycle %" PRIu64
                              " (a thread id is started at most once)", tid, cycle);
    default:
        return tmc_check_fail(c, TM_ERR_FORMAT,
                              "thread %" PRIu64 ": %s at cycle %" PRIu64
                              " after the thread's EXIT", tid, tn, cycle);
    }
}

int tmc_check_run_fail(tmc_check *c, uint64_t count, uint64_t bytes)
{
    if (count == 0)
        return tmc_check_fail(c, TM_ERR_FORMAT, "RUN count 0 at cycle %" PRIu64
                              ", thread %" PRIu32 "; allowed >= 1", c->cycle, c->tid);
    if (bytes < count)
        return tmc_check_fail(c, TM_ERR_FORMAT,
                              "RUN of %" PRIu64 " instructions is only %" PRIu64
                              " bytes long at cycle %" PRIu64 ", thread %" PRIu32
                              "; bytes must be >= count", count, bytes, c->cycle, c->tid);
    return tmc_check_fail(c, TM_ERR_FORMAT,
                          "RUN counts in the group of cycle %" PRIu64 ", thread %" PRIu32
                          " exceed %u (%" PRIu32 " before a RUN of %" PRIu64 ")",
                          c->cycle, c->tid, TMC_MAX_RETIRE_PER_CYCLE, c->g_runs, count);
}

int tmc_check_branch_fail(tmc_check *c, unsigned info, unsigned len)
{
    unsigned cls = info & 7u;
    if (info & 0xF0u)
        return tmc_check_fail(c, TM_ERR_FORMAT,
                              "BRANCH info 0x%02x at cycle %" PRIu64 ", thread %" PRIu32
                              ": reserved bits 7..4 must be 0", info, c->cycle, c->tid);
    if (cls >= TMC_NCLASSES)
        return tmc_check_fail(c, TM_ERR_FORMAT,
                              "bad branch class %u at cycle %" PRIu64 ", thread %" PRIu32
                              "; allowed 0..5", cls, c->cycle, c->tid);
    if (len == 0)
        return tmc_check_fail(c, TM_ERR_FORMAT,
                              "branch length 0 at cycle %" PRIu64 ", thread %" PRIu32
                              "; allowed 1..255", c->cycle, c->tid);
    return tmc_check_fail(c, TM_ERR_FORMAT,
                          "%s branch not taken at cycle %" PRIu64 ", thread %" PRIu32
                          "; only cond branches may be not taken",
                          tmc_bclass_name(cls), c->cycle, c->tid);
}

int tmc_check_flags_fail(tmc_check *c, unsigned type, unsigned flags)
{
    return tmc_check_fail(c, TM_ERR_FORMAT,
                          "%s flags 0x%02x at cycle %" PRIu64 ", thread %" PRIu32
                          ": only bit 0 is defined", tmc_type_name(type), flags,
                          c->cycle, c->tid);
}

int tmc_check_size_fail(tmc_check *c, unsigned size)
{
    return tmc_check_fail(c, TM_ERR_FORMAT,
                          "operand size %u at cycle %" PRIu64 ", thread %" PRIu32
                          "; allowed 1..%u", size, c->cycle, c->tid, TMC_MAX_OPERAND);
}

int tmc_check_wrap_fail(tmc_check *c, uint64_t addr, unsigned size)
{
    return tmc_check_fail(c, TM_ERR_FORMAT,
                          "operand of %u bytes at 0x%" PRIx64 " (cycle %" PRIu64 ", thread %" PRIu32
                          ") runs past the top of the 64-bit address space",
                          size, addr, c->cycle, c->tid);
}

static void format_into(char **buf, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void format_into(char **buf, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*buf, *cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n < *cap)
        return;
    char *bigger = realloc(*buf, (size_t)n + 1);
    if (!bigger)
        return; /* keep the truncated message */
    *buf = bigger;
    *cap = (size_t)n + 1;
    va_start(ap, fmt);
    vsnprintf(*buf, *cap, fmt, ap);
    va_end(ap);
}

void tmc_format_error(char **buf, size_t *cap, const char *name, uint64_t offset,
                      const char *what)
{
    format_into(buf, cap, "%s: offset %" PRIu64 ": %s", name, offset, what);
}

void tmc_format_plain(char **buf, size_t *cap, const char *name, const char *what)
{
    format_into(buf, cap, "%s: %s", name, what);
}
