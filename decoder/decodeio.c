/* tm — tm decode's listings, verdict lines and from-binary files
 * (include/tm/decodeio.h).  Lines go to the caller's FILE; nothing else
 * is printed. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tm/decodeio.h"
#include "tm/isa.h"
#include "tm/msg.h"
#include "tm/out.h"
#include "tm/status.h"

/* The listing's last lines: the count, how the recording and the program
 * ended. */
static void list_end(FILE *out, const tmt_file *tf, uint64_t n)
{
    fprintf(out, "# %" PRIu64 " messages\n", n);
    char why[128];
    if (tf->ending != TMT_COMPLETE)
        fprintf(out, "# recording %s\n", tmt_ending_str(tf->ending, tf->signal, why, sizeof why));
    if (tf->prog != TMT_PROG_UNKNOWN)
        fprintf(out, "# the program %s\n", tmt_prog_str(tf->prog, tf->prog_code, why, sizeof why));
}

/* tm_list_messages with the load sizes LS (NULL: none). */
static int list_messages(FILE *out, const char *path, const tmt_file *tf, tm_load_sizes *ls, int *out_errno,
                         char *err, size_t errlen)
{
    tm_bitrd rd;
    tm_bitrd_init(&rd, tf->data, tf->bits);
    char line[512];
    uint64_t n = 0;
    *out_errno = 0;
    fprintf(out, "# %s: %s, %u threads, %s%s, %" PRIu64 " bits, %" PRIu64 " cycles", path,
            tm_encoding_name(tf->cfg.enc.enc), tf->cfg.enc.threads, tf->cfg.enc.timestamps ? "time-stamped, " : "",
            tf->cfg.shared ? "shared" : "private", tf->bits, tf->cycles);
    if (tf->isa != TM_ISA_X86_64) /* x86-64's listings are as before the other ISAs */
        fprintf(out, ", isa %s", tm_isa_name(tf->isa));
    fputc('\n', out);
    tm_adapt *ad = calloc(tf->cfg.enc.threads, sizeof *ad); /* tr_a's code states */
    if (!ad)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    for (uint32_t i = 0; i < tf->cfg.enc.threads; i++)
        tm_adapt_reset(&ad[i]);
    int status = TM_OK;
    while (rd.pos < rd.nbits) {
        uint64_t pos = rd.pos;
        tm_msg m;
        int rc = tm_msg_decode_a(&tf->cfg.enc, ad, &rd, &m, ls ? tm_load_sizes_fn : NULL, ls);
        if (rc != TM_OK) {
            fflush(out);
            status = tm_errf(rc, err, errlen, "%s: trace bit %" PRIu64 ": %s", path, pos,
                          ls && tm_load_sizes_error(ls)[0] ? tm_load_sizes_error(ls)
                          : rc == TM_ERR_TRUNCATED       ? "the trace ends inside a message"
                                                         : "invalid message");
            break;
        }
        tm_adapt_update(&tf->cfg.enc, ad, &m);
        if (m.kind == TM_MSG_DATA)
            tm_load_sizes_split(ls);
        tm_msg_format(&m, tf->cfg.enc.timestamps, line, sizeof line);
        if (fprintf(out, "%10" PRIu64 "  %s\n", pos, line) < 0) {
            *out_errno = errno;
            status = TM_ERR_IO; /* a full disk or a reader gone: the caller says which */
            break;
        }
        n++;
    }
    free(ad);
    if (status == TM_OK && ls && tm_load_sizes_finish(ls) != TM_OK)
        return tm_errf(TM_ERR_FORMAT, err, errlen, "%s", tm_load_sizes_error(ls));
    if (status == TM_OK && !ferror(out))
        list_end(out, tf, n);
    return status;
}

int tm_list_messages(FILE *out, const char *path, const tmt_file *tf, const char *tmc, int *out_errno, char *err,
                     size_t errlen)
{
    tm_load_sizes *ls = NULL;
    *out_errno = 0;
    if (tf->cfg.enc.data && !tmc)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: the trace has load values (data tracing %s), whose lengths are the "
                    "loads' sizes: give the commit stream with --tmc F.tmc",
                    path, tm_data_mode_name((tm_data_mode)tf->cfg.enc.data));
    if (tf->cfg.enc.data) {
        char e[600];
        int rc = tm_load_sizes_open(tmc, tf->cfg.enc.threads, &ls, e, sizeof e);
        if (rc != TM_OK) /* a file that cannot serve: a runtime error, not the command line's (TM_ERR_ARG) */
            return tm_errf(rc == TM_ERR_ARG ? TM_ERR_IO : rc, err, errlen, "%s", e);
    }
    int rc = list_messages(out, path, tf, ls, out_errno, err, errlen);
    tm_load_sizes_close(ls);
    return rc;
}

void tm_verify_print_file_check(FILE *f, const tmt_file *tf)
{
    fprintf(f, "; the header's configuration reproduces the trace (%" PRIu64 " bits, %" PRIu64 " cycles%s)",
            tf->bits, tf->cycles, tf->thread_insns ? ", instructions per thread" : "");
    char why[128];
    if (tf->ending != TMT_COMPLETE)
        fprintf(f, "; the recording was %s", tmt_ending_str(tf->ending, tf->signal, why, sizeof why));
    if (tf->prog != TMT_PROG_UNKNOWN && (tf->prog != TMT_PROG_EXITED || tf->prog_code))
        fprintf(f, "; the program %s", tmt_prog_str(tf->prog, tf->prog_code, why, sizeof why));
}

void tm_verify_print_ok(FILE *f, const tmt_file *tf, const tm_verify_result *res)
{
    fprintf(f, "OK: %" PRIu64 " instructions replayed (%" PRIu64 " reconstructed, %" PRIu64 " in %" PRIu64
               " overflow gaps), %" PRIu64 " branches, %" PRIu64 " exceptions, %" PRIu64 " messages",
            res->instructions, res->checked, res->gap_instructions, res->gaps, res->branches, res->exceptions,
            res->messages);
    if (tf->cfg.enc.timestamps)
        fprintf(f, ", %" PRIu64 " time stamps", res->cycles_checked);
    if (tf->cfg.enc.data)
        fprintf(f, "; %" PRIu64 " load values replayed (%" PRIu64 " from DATA messages, %" PRIu64
                   " from the replay's copy), %" PRIu64 " loads in gaps",
                res->loads_reported + res->loads_inferred, res->loads_reported, res->loads_inferred,
                res->loads - res->loads_reported - res->loads_inferred);
    tm_verify_print_file_check(f, tf);
    fprintf(f, "\n");
}

void tm_frombin_print_ok(FILE *f, const tmt_file *tf, const tm_frombin_result *res, double secs)
{
    fprintf(f, "OK: %" PRIu64 " instructions replayed from the binaries (%" PRIu64 " reconstructed, %" PRIu64
               " in %" PRIu64 " overflow gaps), %" PRIu64 " branches, %" PRIu64 " exceptions, %" PRIu64
               " messages, %" PRIu64 " code blocks disassembled",
            res->v.instructions, res->v.checked, res->v.gap_instructions, res->v.gaps, res->v.branches,
            res->v.exceptions, res->v.messages, res->blocks);
    if (tf->cfg.enc.timestamps)
        fprintf(f, ", %" PRIu64 " time stamps", res->v.cycles_checked);
    if (tf->cfg.enc.data)
        fprintf(f, "; %" PRIu64 " load values replayed (%" PRIu64 " from DATA messages, %" PRIu64
                   " from the replay's copy)",
                res->v.loads_reported + res->v.loads_inferred, res->v.loads_reported, res->v.loads_inferred);
    fprintf(f, "; %.2f M instructions/s", secs > 0 ? (double)res->v.checked / secs / 1e6 : 0.0);
    tm_verify_print_file_check(f, tf);
    fprintf(f, "\n");
}

void tm_frombin_print_summary(FILE *f, const char *path, const tmt_file *tf, const tm_frombin_result *res,
                              double secs)
{
    char why[256] = "", e[112], pe[112];
    if (tf->ending != TMT_COMPLETE)
        snprintf(why, sizeof why, "; the recording was %s", tmt_ending_str(tf->ending, tf->signal, e, sizeof e));
    if (tf->prog != TMT_PROG_UNKNOWN)
        snprintf(why + strlen(why), sizeof why - strlen(why), "; the program %s",
                 tmt_prog_str(tf->prog, tf->prog_code, pe, sizeof pe));
    fprintf(f,
            "%s: %" PRIu64 " threads, %" PRIu64 " instructions replayed from the binaries, %" PRIu64
            " branches, %" PRIu64 " exceptions, %" PRIu64 " gaps, %" PRIu64 " errors, %" PRIu64
            " undecodable stretches; %.2f M instructions/s%s\n",
            path, res->threads, res->v.checked, res->v.branches, res->v.exceptions, res->v.gaps, res->errors,
            res->resyncs, secs > 0 ? (double)res->v.checked / secs / 1e6 : 0.0, why);
}

/* BASE of BASE.tmt (or the path itself) + SUFFIX. */
static void sibling(const char *tmt, const char *suffix, char *out, size_t n)
{
    size_t len = strlen(tmt);
    if (len > 4 && !strcmp(tmt + len - 4, ".tmt"))
        len -= 4;
    snprintf(out, n, "%.*s%s", (int)len, tmt, suffix);
}

void tm_frombin_beside(const char *tmt, const char **modules, const char **vdso, char *mbuf, char *vbuf, size_t n)
{
    if (!*modules) {
        sibling(tmt, ".modules", mbuf, n);
        *modules = mbuf;
    }
    if (!*vdso) {
        sibling(tmt, ".vdso", vbuf, n);
        FILE *vf = fopen(vbuf, "rb");
        if (vf) {
            fclose(vf);
            *vdso = vbuf;
        }
    }
}

int tm_frombin_run(const tmt_file *tf, tm_frombin_opts *o, const char *bin, const char *const *inputs,
                   tm_frombin_result *res, int *rc, double *secs, char *err, size_t errlen)
{
    tm_out bo;
    memset(&bo, 0, sizeof bo);
    o->bin = NULL;
    if (bin) {
        int orc = tm_out_open(&bo, bin, inputs, err, errlen);
        if (orc != TM_OK)
            return orc;
        if (!(o->bin = fopen(bo.tmp, "wbe"))) {
            orc = tm_errf(TM_ERR_IO, err, errlen, "%s: cannot create: %s", bin, strerror(errno));
            tm_out_abort(&bo);
            return orc;
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    *rc = tm_frombin(tf, o, res, err, errlen); /* with O->verify, the file checks too */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (!o->bin)
        return TM_OK;
    int bad = ferror(o->bin) | fclose(o->bin);
    o->bin = NULL;
    if (bad && *rc == TM_OK)
        *rc = tm_errf(TM_ERR_IO, err, errlen, "%s: write error: %s", bin, strerror(errno));
    if (*rc == TM_OK || *rc == TM_ERR_MISMATCH || (*rc == TM_ERR_IO && o->out && ferror(o->out)))
        return tm_out_close(&bo, err, errlen);
    tm_out_abort(&bo);
    return TM_OK;
}
