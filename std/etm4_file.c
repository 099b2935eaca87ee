/* tm — ETMv4 streams as files BASE.T<n>.etm (through std/stdfile.c), the
 * encoding pass over a commit stream (with --compare: ETMv4's variants and
 * the trace module in the same pass), the reports (tm/etm4.h).  Nothing
 * here prints to the terminal: messages go to the caller's ERR. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/etm4.h"
#include "tm/isa.h"
#include "tm/out.h"
#include "tm/status.h"
#include "tm/stdfile.h"
#include "tm/stdcmp.h"
#include "tm/tmc.h"

int tm_etm4_file_name(char *buf, size_t n, const char *base, uint32_t tid)
{
    return tm_stdfile_name(buf, n, base, tid, "etm");
}

int tm_etm4_image_beside(const char *src, const char *modules, const char *vdso, int ignore_build_id,
                         tm_etm4_image **im, char *err, size_t errlen)
{
    char dm[PATH_MAX], dv[PATH_MAX];
    *im = NULL;
    int rc = tm_stdfile_beside(src, &modules, &vdso, dm, dv, sizeof dm, "(--modules FILE)", err, errlen);
    return rc != TM_OK ? rc : tm_etm4_image_load(modules, vdso, ignore_build_id, im, err, errlen);
}

/* ---- reading ---- */

void tm_etm4_files_free(tm_etm4_files *f)
{
    tm_stdfile_files_free(f);
}

int tm_etm4_files_load(tm_etm4_files *f, const char *base, uint32_t threads, int allow_empty, char *err,
                       size_t errlen)
{
    return tm_stdfile_files_load(f, base, "etm", "ETMv4 stream", threads, allow_empty, err, errlen);
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
    return tm_stdfile_outputs_check(base, "etm", threads, in, stats, err, errlen);
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

/* The encoders of one pass: the written stream's, --compare's variants and
 * the trace module. */
typedef struct etm_pass {
    tm_etm4_encoder *enc, *var[TM_ETM4_VARIANTS];
    tm_stdcmp *cmp;
} etm_pass;

/* --compare: the variants (writing nowhere) and the trace module. */
static int compare_new(etm_pass *P, const tm_etm4_pass_opts *o, uint32_t threads, char *err, size_t errlen)
{
    int rc = TM_OK;
    for (int i = 0; i < TM_ETM4_VARIANTS && rc == TM_OK; i++) {
        tm_etm4_opts vo = o->etm;
        vo.return_stack = i >= 1;
        vo.timestamps = i >= 2;
        vo.cycle_counts = i >= 3;
        vo.write = discard_write;
        rc = tm_etm4_encoder_new(&vo, threads, &P->var[i], err, errlen);
    }
    if (rc == TM_OK)
        rc = tm_stdcmp_new(threads, tm_stdcmp_cores(o->tmc, threads), &P->cmp, err, errlen);
    if (rc == TM_OK)
        rc = tm_stdcmp_set_isa(P->cmp, TM_ISA_AARCH64);
    return rc;
}

/* Every record of R to every encoder, then their ends. */
static int pass_feed(etm_pass *P, tmc_reader *r, char *err, size_t errlen)
{
    tmc_record rec;
    int got, rc = TM_OK;
    while ((got = tmc_reader_next(r, &rec)) == 1) {
        rc = tm_etm4_encoder_put(P->enc, &rec, err, errlen);
        for (int i = 0; i < TM_ETM4_VARIANTS && rc == TM_OK && P->var[i]; i++)
            rc = tm_etm4_encoder_put(P->var[i], &rec, err, errlen);
        if (rc == TM_OK && P->cmp)
            rc = tm_stdcmp_put(P->cmp, &rec, err, errlen);
        if (rc != TM_OK)
            return rc;
    }
    if (got < 0)
        return tm_errf(got, err, errlen, "%s", tmc_reader_error(r));
    rc = tm_etm4_encoder_finish(P->enc, err, errlen);
    for (int i = 0; i < TM_ETM4_VARIANTS && rc == TM_OK && P->var[i]; i++)
        rc = tm_etm4_encoder_finish(P->var[i], err, errlen);
    if (rc == TM_OK && P->cmp)
        rc = tm_stdcmp_finish(P->cmp, err, errlen);
    return rc;
}

/* --compare's rows: the variants, then the trace module's. */
static int compare_rows(const etm_pass *P, tm_etm4_pass_result *res, char *err, size_t errlen)
{
    size_t nm = tm_stdcmp_nrows(P->cmp);
    res->rows = calloc(TM_ETM4_VARIANTS + nm, sizeof *res->rows);
    if (!res->rows)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    for (int i = 0; i < TM_ETM4_VARIANTS; i++) {
        tm_std_row *row = &res->rows[i];
        snprintf(row->name, sizeof row->name, "%s", variant_names[i]);
        snprintf(row->kind, sizeof row->kind, "standard");
        row->bits = 8.0 * (double)tm_etm4_encoder_stats(P->var[i])->total_bytes;
        row->storage_bits = i >= 1 ? 16 * 64 : 0; /* the decoder's 16-entry return stack */
        row->verified = -1;
    }
    tm_stdcmp_rows(P->cmp, res->rows + TM_ETM4_VARIANTS);
    res->nrows = TM_ETM4_VARIANTS + nm;
    return TM_OK;
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
    tm_stdfile_writer *w = NULL;
    etm_pass P;
    memset(&P, 0, sizeof P);
    res->threads = threads;
    res->thread_bytes = calloc(threads, sizeof *res->thread_bytes);
    if ((rc = tm_stdfile_writer_new(base, "etm", threads, NULL, &w, err, errlen)) != TM_OK)
        goto out;
    if (!res->thread_bytes) {
        rc = tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
        goto out;
    }
    tm_etm4_opts eo = o->etm;
    eo.write = tm_stdfile_write;
    eo.write_arg = w;
    if ((rc = tm_etm4_encoder_new(&eo, threads, &P.enc, err, errlen)) != TM_OK ||
        (o->compare && (rc = compare_new(&P, o, threads, err, errlen)) != TM_OK))
        goto out;
    rc = pass_feed(&P, r, err, errlen);
    if (rc == TM_OK || rc == TM_ERR_IO) {
        int failed = tm_stdfile_writer_failed(w, err, errlen);
        if (failed)
            rc = failed;
    }
    if (rc != TM_OK)
        goto out;
    res->st = *tm_etm4_encoder_stats(P.enc);
    for (uint32_t t = 0; t < threads; t++)
        res->thread_bytes[t] = tm_etm4_encoder_thread_bytes(P.enc, t);
    if (P.cmp && (rc = compare_rows(&P, res, err, errlen)) != TM_OK)
        goto out;
    rc = tm_stdfile_writer_finish(w, err, errlen);
out:
    tm_stdfile_writer_free(w);
    tm_etm4_encoder_free(P.enc);
    for (int i = 0; i < TM_ETM4_VARIANTS; i++)
        tm_etm4_encoder_free(P.var[i]);
    tm_stdcmp_free(P.cmp);
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
