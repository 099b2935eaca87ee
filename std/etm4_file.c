/* tm — ETMv4 streams as files BASE.T<n>.etm, the encoding pass over a
 * commit stream (with --compare: ETMv4's variants and the trace module in
 * the same pass), the reports (tm/etm4.h).  Nothing here prints to the
 * terminal: messages go to the caller's ERR. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tm/etm4.h"
#include "tm/isa.h"
#include "tm/out.h"
#include "tm/status.h"
#include "tm/stdcmp.h"
#include "tm/tmc.h"

int tm_etm4_file_name(char *buf, size_t n, const char *base, uint32_t tid)
{
    return snprintf(buf, n, "%s.T%" PRIu32 ".etm", base, tid) >= (int)n ? -1 : 0;
}

int tm_etm4_image_beside(const char *src, const char *modules, const char *vdso, int ignore_build_id,
                         tm_etm4_image **im, char *err, size_t errlen)
{
    char dm[PATH_MAX], dv[PATH_MAX];
    *im = NULL;
    size_t l = strlen(src);
    if (l > 4 && !strcmp(src + l - 4, ".tmc"))
        l -= 4;
    if (l + 9 > sizeof dm)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: name too long", src);
    memcpy(dm, src, l);
    strcpy(dm + l, ".modules");
    memcpy(dv, src, l);
    strcpy(dv + l, ".vdso");
    if (!modules) {
        if (access(dm, R_OK) != 0)
            return tm_errf(TM_ERR_IO, err, errlen, "%s: no module map %s beside it (--modules FILE)", src, dm);
        modules = dm;
    }
    if (!vdso && access(dv, R_OK) == 0)
        vdso = dv;
    return tm_etm4_image_load(modules, vdso, ignore_build_id, im, err, errlen);
}

/* ---- reading ---- */

static int read_all(const char *name, uint8_t **out, size_t *len)
{
    FILE *f = fopen(name, "rbe");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0, k;
    uint8_t *p = malloc(cap);
    while (p && (k = fread(p + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *q = realloc(p, cap *= 2);
            if (!q)
                free(p);
            p = q;
        }
    }
    int bad = !p || ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return -1;
    }
    *out = p;
    *len = n;
    return 0;
}

void tm_etm4_files_free(tm_etm4_files *f)
{
    for (size_t i = 0; f->b && i < f->n; i++) {
        free((void *)f->b[i].name);
        free((void *)f->b[i].p);
    }
    free(f->b);
    memset(f, 0, sizeof *f);
}

int tm_etm4_files_load(tm_etm4_files *f, const char *base, uint32_t threads, int allow_empty, char *err,
                       size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->b = calloc(threads ? threads : 1, sizeof *f->b);
    if (!f->b)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    for (uint32_t t = 0; t < threads; t++) {
        char name[PATH_MAX];
        struct stat st;
        if (tm_etm4_file_name(name, sizeof name, base, t))
            return tm_errf(TM_ERR_ARG, err, errlen, "%s: name too long", base);
        if (stat(name, &st) != 0)
            continue;
        tm_etm4_buffer *b = &f->b[f->n];
        char *copy = strdup(name);
        uint8_t *data = NULL;
        size_t len = 0;
        errno = 0;
        if (!copy || read_all(name, &data, &len)) {
            free(copy);
            return tm_errf(TM_ERR_IO, err, errlen, "%s: %s", name, strerror(errno ? errno : ENOMEM));
        }
        *b = (tm_etm4_buffer){t, data, len, copy};
        f->n++;
    }
    if (!f->n && !allow_empty)
        return tm_errf(TM_ERR_IO, err, errlen, "%s.T0.etm: no ETMv4 stream %s.T<n>.etm", base, base);
    return TM_OK;
}

int tm_etm4_verify_files(const tm_etm4_image *im, const char *base, uint32_t configr, const char *tmc,
                         tm_etm4_decode_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    tmc_reader *r = NULL;
    int rc = tmc_reader_open(tmc, &r, err, errlen);
    if (rc != TM_OK)
        return rc;
    uint32_t threads = tmc_reader_threads(r);
    tmc_reader_close(r);
    tm_etm4_files f;
    rc = tm_etm4_files_load(&f, base, threads, 0, err, errlen);
    if (rc == TM_OK)
        rc = tm_etm4_verify(im, f.b, f.n, configr, tmc, res, err, errlen);
    tm_etm4_files_free(&f);
    return rc;
}

int tm_etm4_outputs_check(const char *base, uint32_t threads, const char *in, const char *stats, char *err,
                          size_t errlen)
{
    for (uint32_t t = 0; t < threads; t++) {
        char name[PATH_MAX];
        const char *clash = NULL;
        if (!tm_etm4_file_name(name, sizeof name, base, t))
            clash = tm_same_file(name, in) ? in
                    : stats && (!strcmp(name, stats) || tm_same_file(name, stats)) ? stats : NULL;
        if (clash)
            return tm_errf(TM_ERR_ARG, err, errlen, "%s: the output of core %" PRIu32 " is the %s %s (the same "
                           "file): refused, it would destroy it", name, t, clash == in ? "input" : "statistics file",
                           clash);
    }
    return TM_OK;
}

/* ---- writing ---- */

typedef struct e4_writer {
    const char *base;
    uint32_t threads;
    tm_out *outs;
    FILE **f;
    int failed;
    char err[1024];
} e4_writer;

static int writer_write(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    e4_writer *w = arg;
    if (!w->f[tid]) {
        char name[PATH_MAX];
        if (tm_etm4_file_name(name, sizeof name, w->base, tid)) {
            w->failed = tm_errf(TM_ERR_IO, w->err, sizeof w->err, "%s: name too long", w->base);
            return -1;
        }
        int rc = tm_out_open(&w->outs[tid], name, NULL, w->err, sizeof w->err);
        if (rc == TM_OK && !(w->f[tid] = fopen(w->outs[tid].tmp, "wbe"))) {
            rc = tm_errf(TM_ERR_IO, w->err, sizeof w->err, "%s: %s", name, strerror(errno));
            tm_out_abort(&w->outs[tid]);
        }
        if (rc != TM_OK) {
            w->failed = rc;
            return -1;
        }
    }
    if (fwrite(p, 1, n, w->f[tid]) != n) {
        w->failed = tm_errf(TM_ERR_IO, w->err, sizeof w->err, "%s: %s", w->outs[tid].path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The outputs closed and renamed into place; earlier BASE.T<n>.etm of
 * cores that did not run now removed. */
static int writer_finish(e4_writer *w, char *err, size_t errlen)
{
    for (uint32_t t = 0; t < w->threads; t++) {
        if (!w->f[t])
            continue;
        int bad = fflush(w->f[t]) != 0 || ferror(w->f[t]);
        int e = errno;
        if (fclose(w->f[t]) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        w->f[t] = NULL;
        if (bad)
            return tm_errf(TM_ERR_IO, err, errlen, "%s: %s", w->outs[t].path, strerror(e));
    }
    for (uint32_t t = 0; t < w->threads; t++)
        if (w->outs[t].active && tm_out_close(&w->outs[t], err, errlen) != TM_OK)
            return TM_ERR_IO;
    for (uint32_t t = 0; t < TMC_MAX_THREADS; t++) {
        char name[PATH_MAX];
        struct stat sb;
        if ((t < w->threads && w->outs[t].path[0]) || tm_etm4_file_name(name, sizeof name, w->base, t) ||
            stat(name, &sb) != 0)
            continue;
        if (S_ISREG(sb.st_mode) && unlink(name) != 0)
            return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot remove this earlier output: %s", name, strerror(errno));
    }
    return TM_OK;
}

static void writer_free(e4_writer *w)
{
    for (uint32_t t = 0; w->f && t < w->threads; t++)
        if (w->f[t])
            fclose(w->f[t]);
    for (uint32_t t = 0; w->outs && t < w->threads; t++)
        if (w->outs[t].active)
            tm_out_abort(&w->outs[t]);
    free(w->outs);
    free(w->f);
}

/* The variants' write callback: the bytes are only counted (the encoder
 * counts them). */
static int discard_write(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    (void)arg, (void)tid, (void)p, (void)n;
    return 0;
}

static const char *const variant_names[TM_ETM4_VARIANTS] = {"ETMv4", "ETMv4+rs", "ETMv4+rs+ts", "ETMv4+rs+ts+cc"};

void tm_etm4_pass_result_free(tm_etm4_pass_result *res)
{
    free(res->thread_bytes);
    free(res->rows);
    memset(res, 0, sizeof *res);
}

int tm_etm4_encode_files(const tm_etm4_pass_opts *o, const char *base, tm_etm4_pass_result *res, char *err,
                         size_t errlen)
{
    memset(res, 0, sizeof *res);
    tmc_reader *r = NULL;
    int rc = tmc_reader_open(o->tmc, &r, err, errlen);
    if (rc != TM_OK)
        return rc;
    if (tmc_reader_isa(r) != TM_ISA_AARCH64) {
        rc = tm_errf(TM_ERR_ARG, err, errlen, "%s: the commit stream is of a program for %s: ETMv4 here traces "
                     "AArch64 programs", o->tmc, tm_isa_name(tmc_reader_isa(r)));
        tmc_reader_close(r);
        return rc;
    }
    uint32_t threads = tmc_reader_threads(r);
    e4_writer w;
    memset(&w, 0, sizeof w);
    w.base = base;
    w.threads = threads;
    w.outs = calloc(threads, sizeof *w.outs);
    w.f = calloc(threads, sizeof *w.f);
    tm_etm4_encoder *enc = NULL, *var[TM_ETM4_VARIANTS] = {NULL};
    tm_stdcmp *cmp = NULL;
    res->threads = threads;
    res->thread_bytes = calloc(threads, sizeof *res->thread_bytes);
    if (!w.outs || !w.f || !res->thread_bytes) {
        rc = tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
        goto out;
    }
    tm_etm4_opts eo = o->etm;
    eo.write = writer_write;
    eo.write_arg = &w;
    if ((rc = tm_etm4_encoder_new(&eo, threads, &enc, err, errlen)) != TM_OK)
        goto out;
    if (o->compare) {
        for (int i = 0; i < TM_ETM4_VARIANTS && rc == TM_OK; i++) {
            tm_etm4_opts vo = o->etm;
            vo.return_stack = i >= 1;
            vo.timestamps = i >= 2;
            vo.cycle_counts = i >= 3;
            vo.write = discard_write;
            rc = tm_etm4_encoder_new(&vo, threads, &var[i], err, errlen);
        }
        if (rc == TM_OK)
            rc = tm_stdcmp_new(threads, tm_stdcmp_cores(o->tmc, threads), &cmp, err, errlen);
        if (rc == TM_OK)
            rc = tm_stdcmp_set_isa(cmp, TM_ISA_AARCH64);
        if (rc != TM_OK)
            goto out;
    }
    tmc_record rec;
    int got;
    while ((got = tmc_reader_next(r, &rec)) == 1) {
        rc = tm_etm4_encoder_put(enc, &rec, err, errlen);
        for (int i = 0; i < TM_ETM4_VARIANTS && rc == TM_OK && var[i]; i++)
            rc = tm_etm4_encoder_put(var[i], &rec, err, errlen);
        if (rc == TM_OK && cmp)
            rc = tm_stdcmp_put(cmp, &rec, err, errlen);
        if (rc != TM_OK)
            break;
    }
    if (rc == TM_OK && got < 0)
        rc = tm_errf(got, err, errlen, "%s", tmc_reader_error(r));
    if (rc == TM_OK)
        rc = tm_etm4_encoder_finish(enc, err, errlen);
    for (int i = 0; i < TM_ETM4_VARIANTS && rc == TM_OK && var[i]; i++)
        rc = tm_etm4_encoder_finish(var[i], err, errlen);
    if (rc == TM_OK && cmp)
        rc = tm_stdcmp_finish(cmp, err, errlen);
    if (w.failed && (rc == TM_OK || rc == TM_ERR_IO)) {
        rc = w.failed;
        tm_err_set(err, errlen, w.err);
    }
    if (rc != TM_OK)
        goto out;
    res->st = *tm_etm4_encoder_stats(enc);
    for (uint32_t t = 0; t < threads; t++)
        res->thread_bytes[t] = tm_etm4_encoder_thread_bytes(enc, t);
    if (cmp) {
        size_t nm = tm_stdcmp_nrows(cmp);
        res->rows = calloc(TM_ETM4_VARIANTS + nm, sizeof *res->rows);
        if (!res->rows) {
            rc = tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
            goto out;
        }
        for (int i = 0; i < TM_ETM4_VARIANTS; i++) {
            tm_std_row *row = &res->rows[i];
            snprintf(row->name, sizeof row->name, "%s", variant_names[i]);
            snprintf(row->kind, sizeof row->kind, "standard");
            row->bits = 8.0 * (double)tm_etm4_encoder_stats(var[i])->total_bytes;
            row->storage_bits = i >= 1 ? 16 * 64 : 0; /* the decoder's 16-entry return stack */
            row->verified = -1;
        }
        tm_stdcmp_rows(cmp, res->rows + TM_ETM4_VARIANTS);
        res->nrows = TM_ETM4_VARIANTS + nm;
    }
    rc = writer_finish(&w, err, errlen);
out:
    writer_free(&w);
    tm_etm4_encoder_free(enc);
    for (int i = 0; i < TM_ETM4_VARIANTS; i++)
        tm_etm4_encoder_free(var[i]);
    tm_stdcmp_free(cmp);
    tmc_reader_close(r);
    return rc;
}

/* ---- reports ---- */

static void opts_str(const tm_etm4_opts *o, char *b, size_t n)
{
    snprintf(b, n, "%s%s%s%s", o->return_stack ? "+rs" : "", o->timestamps ? "+ts" : "",
             o->cycle_counts ? "+cc" : "", o->return_stack || o->timestamps || o->cycle_counts ? "" : " (plain)");
}

void tm_etm4_report_text(FILE *f, const tm_etm4_pass_result *res, const tm_etm4_opts *o)
{
    const tm_etm4_stats *s = &res->st;
    char os[64];
    opts_str(o, os, sizeof os);
    double bits = 8.0 * (double)s->total_bytes;
    fprintf(f, "ETMv4%s: %" PRIu64 " cores, %" PRIu64 " instructions, %" PRIu64 " cycles, sync every %" PRIu32
            " bytes\n", os, s->threads, s->instructions, s->cycles, o->sync_period ? o->sync_period : 4096);
    fprintf(f, "  %" PRIu64 " bytes: %.4f bits/instruction, %.4f bits/cycle\n", s->total_bytes,
            s->instructions ? bits / (double)s->instructions : 0.0, s->cycles ? bits / (double)s->cycles : 0.0);
    fprintf(f, "  %-14s %12s %14s %8s\n", "packet", "count", "bytes", "share");
    for (unsigned k = 0; k < TM_ETM4_NKINDS; k++)
        if (s->packets[k])
            fprintf(f, "  %-14s %12" PRIu64 " %14" PRIu64 " %7.2f%%\n", tm_etm4_kind_name(k), s->packets[k],
                    s->bytes[k], s->total_bytes ? 100.0 * (double)s->bytes[k] / (double)s->total_bytes : 0.0);
    fprintf(f, "  branches %" PRIu64 " (conditional %" PRIu64 ", indirect %" PRIu64 ", returns %" PRIu64
            " of which %" PRIu64 " predicted by the return stack), atoms %" PRIu64 "\n", s->branches, s->cond,
            s->indirect, s->rets, s->rets_predicted, s->atoms);
    fprintf(f, "  system calls %" PRIu64 ", signals %" PRIu64 ", syncs %" PRIu64 " (%" PRIu64 " periodic), "
            "instructions after a core's last P0 element %" PRIu64 "\n", s->syscalls, s->exceptions, s->syncs,
            s->syncs_periodic, s->untraced);
    if (res->nrows) {
        fprintf(f, "\n");
        tm_std_table(f, res->rows, res->nrows, 0, s->instructions, s->cycles);
    }
}

void tm_etm4_report_json(FILE *f, const tm_etm4_pass_result *res, const tm_etm4_opts *o, const char *tmc,
                         const tm_etm4_decode_result *verify, int verify_ok)
{
    const tm_etm4_stats *s = &res->st;
    fprintf(f, "{\"tmc\": ");
    tm_json_str(f, tmc);
    fprintf(f, ", \"standard\": \"ARM ETMv4\", \"return_stack\": %d, \"timestamps\": %d, \"cycle_counts\": %d, "
            "\"sync_period\": %" PRIu32 ", \"cores\": %" PRIu64 ", \"instructions\": %" PRIu64 ", \"cycles\": %"
            PRIu64 ", \"bytes\": %" PRIu64 ", \"bits_per_instruction\": %.6f, \"bits_per_cycle\": %.6f",
            o->return_stack != 0, o->timestamps != 0, o->cycle_counts != 0, o->sync_period ? o->sync_period : 4096,
            s->threads, s->instructions, s->cycles, s->total_bytes,
            s->instructions ? 8.0 * (double)s->total_bytes / (double)s->instructions : 0.0,
            s->cycles ? 8.0 * (double)s->total_bytes / (double)s->cycles : 0.0);
    fprintf(f, ", \"packets\": {");
    for (unsigned k = 0; k < TM_ETM4_NKINDS; k++)
        fprintf(f, "%s\"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", k ? ", " : "",
                tm_etm4_kind_name(k), s->packets[k], s->bytes[k]);
    fprintf(f, "}, \"branches\": %" PRIu64 ", \"conditional\": %" PRIu64 ", \"indirect\": %" PRIu64 ", \"returns\": %"
            PRIu64 ", \"returns_predicted\": %" PRIu64 ", \"atoms\": %" PRIu64 ", \"syscalls\": %" PRIu64
            ", \"signals\": %" PRIu64 ", \"syncs\": %" PRIu64 ", \"untraced\": %" PRIu64, s->branches, s->cond,
            s->indirect, s->rets, s->rets_predicted, s->atoms, s->syscalls, s->exceptions, s->syncs, s->untraced);
    fprintf(f, ", \"thread_bytes\": [");
    for (uint32_t t = 0; t < res->threads; t++)
        fprintf(f, "%s%" PRIu64, t ? ", " : "", res->thread_bytes[t]);
    fprintf(f, "]");
    if (verify)
        fprintf(f, ", \"verify\": {\"ok\": %s, \"checked\": %" PRIu64 ", \"cores\": %" PRIu64 "}",
                verify_ok ? "true" : "false", verify->checked, verify->threads);
    if (res->nrows) {
        fprintf(f, ", \"rows\": ");
        tm_std_rows_json(f, res->rows, res->nrows, s->instructions, s->cycles);
    }
    fprintf(f, "}\n");
}
