/* tm — E-Trace streams as files BASE.T<n>.ete (through std/stdfile.c), the
 * module map's code, and tm etrace's pass: the main encoding, every
 * combination of the extensions and the trace module's rows in one read of
 * the commit stream, then their verification in one more
 * (include/tm/etrace.h).  Nothing here prints except the report functions,
 * to the FILE they are given. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/etrace.h"
#include "tm/image.h"
#include "tm/isa.h"
#include "tm/out.h"
#include "tm/status.h"
#include "tm/stdfile.h"
#include "tm/stdcmp.h"
#include "tm/tmc.h"

struct tm_et_image {
    tm_image *im;
};

int tm_et_image_beside(const char *src, const char *modules, const char *vdso, tm_et_image **out, char *err,
                       size_t errlen)
{
    char dm[PATH_MAX], dv[PATH_MAX];
    *out = NULL;
    int rc = tm_stdfile_beside(src, &modules, &vdso, dm, dv, sizeof dm, "(--modules FILE)", err, errlen);
    if (rc != TM_OK)
        return rc;
    tm_et_image *p = calloc(1, sizeof *p);
    if (!p)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    tm_image_opts o = {modules, vdso, 0, TM_ISA_RV64};
    rc = tm_image_load(&o, &p->im, err, errlen);
    if (rc != TM_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return TM_OK;
}

const uint8_t *tm_et_image_code(void *arg, uint64_t addr, size_t *avail)
{
    return tm_image_code(((tm_et_image *)arg)->im, addr, avail);
}

void tm_et_image_free(tm_et_image *im)
{
    if (!im)
        return;
    tm_image_free(im->im);
    free(im);
}

int tm_et_file_name(char *buf, size_t n, const char *base, uint32_t tid)
{
    return tm_stdfile_name(buf, n, base, tid, "ete");
}

/* ---- in-memory streams ---- */
typedef struct memset_ {
    tm_stdfile_mem *b;
    uint32_t threads;
} memset_;

static int mem_write(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    memset_ *m = arg;
    return tid < m->threads ? tm_stdfile_mem_put(&m->b[tid], p, n) : -1;
}

static void mem_free(memset_ *m)
{
    if (!m->b)
        return;
    for (uint32_t t = 0; t < m->threads; t++)
        free(m->b[t].p);
    free(m->b);
    m->b = NULL;
}

int tm_et_verify_buffers(const tm_et_opts *o, uint32_t threads, const uint8_t *const *p, const size_t *n,
                         const char *const *names, const char *tmc, uint64_t *checked, uint64_t *harts, char *err,
                         size_t errlen)
{
    tm_et_verifier *v = NULL;
    tmc_reader *r = NULL;
    char (*nm)[24] = calloc(threads, sizeof *nm);
    if (!nm)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    int rc = tm_et_verifier_new(o, threads, &v, err, errlen);
    if (rc != TM_OK) {
        free(nm);
        return rc;
    }
    for (uint32_t t = 0; t < threads; t++)
        if (p[t]) {
            snprintf(nm[t], sizeof nm[t], "T%" PRIu32, t);
            tm_et_verifier_set(v, t, p[t], n[t], names ? names[t] : nm[t]);
        }
    if ((rc = tmc_reader_open(tmc, &r, err, errlen)) != TM_OK) {
        tm_et_verifier_free(v);
        free(nm);
        return rc;
    }
    tmc_record rec;
    int k;
    while (rc == TM_OK && (k = tmc_reader_next(r, &rec)) > 0)
        rc = tm_et_verifier_put(v, &rec, err, errlen);
    if (rc == TM_OK && k < 0)
        rc = tm_errf(k, err, errlen, "%s", tmc_reader_error(r));
    if (rc == TM_OK)
        rc = tm_et_verifier_finish(v, err, errlen);
    *checked = tm_et_verifier_checked(v);
    *harts = tm_et_verifier_threads(v);
    tmc_reader_close(r);
    tm_et_verifier_free(v);
    free(nm);
    return rc;
}

/* ---- the pass ---- */

static void variant_name(char *buf, size_t n, const tm_et_opts *o)
{
    int k = snprintf(buf, n, "E-Trace");
    if (o->implicit_return)
        k += snprintf(buf + k, n - (size_t)k, " ir");
    if (o->bp_log2)
        k += snprintf(buf + k, n - (size_t)k, " bp%u", o->bp_log2);
    if (o->jtc_log2)
        snprintf(buf + k, n - (size_t)k, " jtc%u", o->jtc_log2);
}

typedef struct enc_slot {
    tm_et_encoder *e;
    memset_ m;
    tm_et_verifier *v;
    int failed;
} enc_slot;

static int slot_new(enc_slot *s, const tm_et_opts *o, uint32_t threads, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    s->m.threads = threads;
    if (!(s->m.b = calloc(threads, sizeof *s->m.b)))
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    tm_et_opts eo = *o;
    eo.write = mem_write;
    eo.write_arg = &s->m;
    return tm_et_encoder_new(&eo, threads, &s->e, err, errlen);
}

static void slot_free(enc_slot *s)
{
    tm_et_encoder_free(s->e);
    tm_et_verifier_free(s->v);
    mem_free(&s->m);
}

/* BASE.T<n>.ete of every hart that sent packets (the encoder writes none
 * empty); those of an earlier run's other harts removed. */
static int write_files(const char *base, const memset_ *m, char *err, size_t errlen)
{
    char name[PATH_MAX];
    if (m->threads && tm_et_file_name(name, sizeof name, base, m->threads - 1))
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: name too long", base);
    return tm_stdfile_write_mem(base, "ete", m->threads, m->b, NULL, err, errlen);
}

/* The verifier of S failed with VR, WHY: the main encoding's failure is
 * the pass's (returned), a variant's is kept in its row (TM_OK). */
static int slot_failed(enc_slot *s, int vr, const char *why, const enc_slot *main_s, const enc_slot *var,
                       tm_et_pass_result *res, char *err, size_t errlen)
{
    s->failed = 1;
    if (s == main_s)
        return tm_errf(vr, err, errlen, "%s", why);
    tm_err_set(res->var[s - var].why, sizeof res->var[0].why, why);
    return TM_OK;
}

/* The pass's encoders: the main one, the variants, the trace module. */
typedef struct et_pass {
    enc_slot main_s, var[TM_ET_VARIANTS];
    size_t nvar;
    tm_stdcmp *cmp;
    uint32_t threads;
} et_pass;

/* The encoders of O (the variants with o->variants or o->compare, their
 * options and names into RES). */
static int pass_new(et_pass *P, const tm_et_pass_opts *o, tm_et_pass_result *res, char *err, size_t errlen)
{
    int rc = slot_new(&P->main_s, &o->et, P->threads, err, errlen);
    if (o->variants || o->compare) {
        for (unsigned i = 0; i < TM_ET_VARIANTS && rc == TM_OK; i++) {
            tm_et_variant *vv = &res->var[i];
            vv->o = o->et;
            vv->o.implicit_return = (i >> 2) & 1;
            vv->o.bp_log2 = (i >> 1) & 1 ? o->var_bp_log2 : 0;
            vv->o.jtc_log2 = i & 1 ? o->var_jtc_log2 : 0;
            vv->o.write = NULL;
            vv->verified = -1;
            variant_name(vv->name, sizeof vv->name, &vv->o);
            vv->storage_bits = tm_et_storage_bits(&vv->o);
            rc = slot_new(&P->var[i], &vv->o, P->threads, err, errlen);
            P->nvar++;
        }
    }
    res->nvar = P->nvar;
    if (rc == TM_OK && o->compare)
        rc = tm_stdcmp_new(P->threads, tm_stdcmp_cores(o->tmc, P->threads), &P->cmp, err, errlen);
    return rc;
}

/* The first read: every record to every encoder (R is closed here). */
static int pass_encode(et_pass *P, tmc_reader *r, tm_et_pass_result *res, char *err, size_t errlen)
{
    tmc_record rec;
    int k = 0, rc = TM_OK;
    while (rc == TM_OK && (k = tmc_reader_next(r, &rec)) > 0) {
        rc = tm_et_encoder_put(P->main_s.e, &rec, err, errlen);
        for (size_t i = 0; i < P->nvar && rc == TM_OK; i++)
            rc = tm_et_encoder_put(P->var[i].e, &rec, err, errlen);
        if (rc == TM_OK && P->cmp)
            rc = tm_stdcmp_put(P->cmp, &rec, err, errlen);
    }
    if (rc == TM_OK && k < 0)
        rc = tm_errf(k, err, errlen, "%s", tmc_reader_error(r));
    tmc_reader_close(r);
    if (rc == TM_OK)
        rc = tm_et_encoder_finish(P->main_s.e, err, errlen);
    for (size_t i = 0; i < P->nvar && rc == TM_OK; i++)
        rc = tm_et_encoder_finish(P->var[i].e, err, errlen);
    if (rc == TM_OK && P->cmp)
        rc = tm_stdcmp_finish(P->cmp, err, errlen);
    if (rc == TM_OK) {
        res->st = *tm_et_encoder_stats(P->main_s.e);
        for (size_t i = 0; i < P->nvar; i++)
            res->var[i].st = *tm_et_encoder_stats(P->var[i].e);
    }
    return rc;
}

/* The second read: the main encoding (with o->verify) and every variant
 * decoded, each verifier fed each record. */
static int pass_verify(et_pass *P, const tm_et_pass_opts *o, tm_et_pass_result *res, char *err, size_t errlen)
{
    enc_slot *all[TM_ET_VARIANTS + 1];
    const tm_et_opts *opt[TM_ET_VARIANTS + 1];
    size_t na = 0;
    int rc = TM_OK, k = 0;
    if (o->verify) {
        all[na] = &P->main_s;
        opt[na++] = &o->et;
    }
    for (size_t i = 0; i < P->nvar; i++) {
        all[na] = &P->var[i];
        opt[na++] = &res->var[i].o;
    }
    for (size_t i = 0; i < na && rc == TM_OK; i++) {
        rc = tm_et_verifier_new(opt[i], P->threads, &all[i]->v, err, errlen);
        for (uint32_t t = 0; t < P->threads && rc == TM_OK; t++)
            if (all[i]->m.b[t].n)
                tm_et_verifier_set(all[i]->v, t, all[i]->m.b[t].p, all[i]->m.b[t].n, "its stream");
    }
    tmc_reader *r = NULL;
    if (rc == TM_OK)
        rc = tmc_reader_open(o->tmc, &r, err, errlen);
    char why[256];
    tmc_record rec;
    while (rc == TM_OK && (k = tmc_reader_next(r, &rec)) > 0)
        for (size_t i = 0; i < na; i++) {
            if (all[i]->failed)
                continue;
            int vr = tm_et_verifier_put(all[i]->v, &rec, why, sizeof why);
            if (vr != TM_OK && (vr = slot_failed(all[i], vr, why, &P->main_s, P->var, res, err, errlen)) != TM_OK)
                rc = vr;
        }
    if (rc == TM_OK && k < 0)
        rc = tm_errf(k, err, errlen, "%s", tmc_reader_error(r));
    for (size_t i = 0; i < na && rc == TM_OK; i++) {
        if (!all[i]->failed) {
            int vr = tm_et_verifier_finish(all[i]->v, why, sizeof why);
            if (vr != TM_OK && (vr = slot_failed(all[i], vr, why, &P->main_s, P->var, res, err, errlen)) != TM_OK)
                rc = vr;
        }
        if (all[i] == &P->main_s) {
            res->verified = tm_et_verifier_checked(P->main_s.v);
            res->vthreads = tm_et_verifier_threads(P->main_s.v);
        } else {
            res->var[all[i] - P->var].verified = !all[i]->failed;
        }
    }
    tmc_reader_close(r);
    return rc;
}

/* --compare: the variants' rows, then the trace module's. */
static int pass_rows(et_pass *P, tm_et_pass_result *res, char *err, size_t errlen)
{
    size_t nm = tm_stdcmp_nrows(P->cmp);
    tm_std_row *rows = calloc(P->nvar + nm, sizeof *rows);
    if (!rows)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    for (size_t i = 0; i < P->nvar; i++) {
        snprintf(rows[i].name, sizeof rows[i].name, "%s", res->var[i].name);
        snprintf(rows[i].kind, sizeof rows[i].kind, "standard");
        rows[i].bits = (double)res->var[i].st.total_bytes * 8;
        rows[i].storage_bits = res->var[i].storage_bits;
        rows[i].verified = res->var[i].verified;
    }
    tm_stdcmp_rows(P->cmp, rows + P->nvar);
    res->rows = rows;
    res->nrows = P->nvar + nm;
    return TM_OK;
}

int tm_et_pass(const tm_et_pass_opts *o, tm_et_pass_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    tmc_reader *r = NULL;
    int rc = tmc_reader_open(o->tmc, &r, err, errlen);
    if (rc != TM_OK)
        return rc;
    if (tmc_reader_isa(r) != TM_ISA_RV64) {
        int isa = tmc_reader_isa(r);
        tmc_reader_close(r);
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: the commit stream is of a program for %s: E-Trace is RISC-V's",
                       o->tmc, tm_isa_name(isa));
    }
    et_pass P;
    memset(&P, 0, sizeof P);
    P.threads = res->threads = tmc_reader_threads(r);
    rc = pass_new(&P, o, res, err, errlen);
    if (rc == TM_OK)
        rc = pass_encode(&P, r, res, err, errlen);
    else
        tmc_reader_close(r);
    if (rc == TM_OK && o->base)
        rc = write_files(o->base, &P.main_s.m, err, errlen);
    if (rc == TM_OK && (o->verify || P.nvar))
        rc = pass_verify(&P, o, res, err, errlen);
    if (rc == TM_OK && P.cmp)
        rc = pass_rows(&P, res, err, errlen);
    tm_stdcmp_free(P.cmp);
    slot_free(&P.main_s);
    for (size_t i = 0; i < P.nvar; i++)
        slot_free(&P.var[i]);
    return rc;
}

void tm_et_pass_result_free(tm_et_pass_result *r)
{
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}

int tm_et_check(const char *tmc, const char *base, const tm_et_opts *o, uint64_t *checked, uint64_t *threads,
                char *err, size_t errlen)
{
    *checked = *threads = 0;
    tmc_reader *r = NULL;
    int rc = tmc_reader_open(tmc, &r, err, errlen);
    if (rc != TM_OK)
        return rc;
    int isa = tmc_reader_isa(r);
    uint32_t nt = tmc_reader_threads(r);
    tmc_reader_close(r);
    if (isa != TM_ISA_RV64)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: the commit stream is of a program for %s: E-Trace is RISC-V's",
                       tmc, tm_isa_name(isa));
    tm_stdfile_files f;
    const uint8_t **p = calloc(nt ? nt : 1, sizeof *p);
    size_t *n = calloc(nt ? nt : 1, sizeof *n);
    const char **names = calloc(nt ? nt : 1, sizeof *names);
    if (!p || !n || !names)
        rc = tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    else
        rc = tm_stdfile_files_load(&f, base, "ete", "E-Trace stream", nt, 1, err, errlen);
    for (size_t i = 0; rc == TM_OK && i < f.n; i++) {
        p[f.b[i].tid] = f.b[i].p;
        n[f.b[i].tid] = f.b[i].n;
        names[f.b[i].tid] = f.b[i].name;
    }
    if (rc == TM_OK)
        rc = tm_et_verify_buffers(o, nt, p, n, names, tmc, checked, threads, err, errlen);
    if (p && n && names)
        tm_stdfile_files_free(&f);
    free(names);
    free(p);
    free(n);
    return rc;
}

/* ---- reports ---- */

static double per(uint64_t bits, uint64_t n)
{
    return n ? (double)bits / (double)n : 0.0;
}

static void opts_str(char *buf, size_t n, const tm_et_opts *o)
{
    char bp[32], jtc[32];
    snprintf(bp, sizeof bp, o->bp_log2 ? "2^%u entries" : "off", o->bp_log2);
    snprintf(jtc, sizeof jtc, o->jtc_log2 ? "2^%u entries" : "off", o->jtc_log2);
    snprintf(buf, n, "implicit return %s, branch prediction %s, jump target cache %s",
             o->implicit_return ? "on" : "off", bp, jtc);
}

void tm_et_report_text(FILE *f, const tm_et_pass_result *r, const tm_et_opts *o)
{
    const tm_et_stats *s = &r->st;
    char ob[160];
    opts_str(ob, sizeof ob, o);
    fprintf(f, "E-Trace (RISC-V Efficient Trace 2.0, branch trace, U-mode): %s\n", ob);
    fprintf(f, "%" PRIu64 " instructions on %" PRIu64 " harts, %" PRIu64 " cycles\n", s->instructions, s->threads,
            s->cycles);
    fprintf(f, "%-12s %12s %12s %10s\n", "packet", "count", "bytes", "bits/insn");
    for (unsigned k = 0; k < TM_ET_NKINDS; k++)
        fprintf(f, "%-12s %12" PRIu64 " %12" PRIu64 " %10.4f\n", tm_et_kind_name(k), s->packets[k], s->bytes[k],
                per(s->bytes[k] * 8, s->instructions));
    fprintf(f, "total: %" PRIu64 " bytes, %.4f bits per instruction, %.4f bits per cycle\n", s->total_bytes,
            per(s->total_bytes * 8, s->instructions), per(s->total_bytes * 8, s->cycles));
    fprintf(f, "storage: %" PRIu64 " bits of return stack, branch predictor and jump target cache per hart\n",
            tm_et_storage_bits(o));
    fprintf(f, "events: %" PRIu64 " branches (%" PRIu64 " predicted), %" PRIu64 " uninferable targets sent (%"
               PRIu64 " as cache index), %" PRIu64 " implicit returns, %" PRIu64 " failed returns, %" PRIu64
               " system calls, %" PRIu64 " signals, %" PRIu64 " resynchronisations\n",
            s->branches, s->predicted, s->updiscons, s->jtc_hits, s->implicit_returns, s->failed_returns,
            s->syscalls, s->exceptions, s->resyncs);
    if (r->nvar && !r->nrows) {
        fprintf(f, "%-28s %12s %10s %12s  %s\n", "variant", "bytes", "bits/insn", "storage", "verify");
        for (size_t i = 0; i < r->nvar; i++) {
            const tm_et_variant *v = &r->var[i];
            fprintf(f, "%-28s %12" PRIu64 " %10.4f %12" PRIu64 "  %s\n", v->name, v->st.total_bytes,
                    per(v->st.total_bytes * 8, v->st.instructions), v->storage_bits,
                    v->verified == 1 ? "ok" : v->verified == 0 ? "FAILED" : "-");
            if (v->verified == 0)
                fprintf(f, "  %s\n", v->why);
        }
    }
    if (r->nrows)
        tm_std_table(f, (const tm_std_row *)r->rows, r->nrows, 0, s->instructions, s->cycles);
}

void tm_et_report_json(FILE *f, const tm_et_pass_result *r, const tm_et_opts *o, const char *tmc)
{
    const tm_et_stats *s = &r->st;
    fprintf(f, "{\"tmc\": ");
    tm_json_str(f, tmc);
    fprintf(f, ", \"implicit_return\": %d, \"bp_log2\": %u, \"jtc_log2\": %u, \"storage_bits\": %" PRIu64
               ", \"instructions\": %" PRIu64 ", \"harts\": %" PRIu64 ", \"cycles\": %" PRIu64
               ", \"bytes\": %" PRIu64 ", \"bits_per_instruction\": %.6f, \"packets\": {",
            o->implicit_return != 0, o->bp_log2, o->jtc_log2, tm_et_storage_bits(o), s->instructions, s->threads,
            s->cycles, s->total_bytes, per(s->total_bytes * 8, s->instructions));
    for (unsigned k = 0; k < TM_ET_NKINDS; k++)
        fprintf(f, "%s\"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 "}", k ? ", " : "",
                tm_et_kind_name(k), s->packets[k], s->bytes[k]);
    fprintf(f, "}, \"verified\": %" PRIu64 ", \"variants\": [", r->verified);
    for (size_t i = 0; i < r->nvar; i++) {
        const tm_et_variant *v = &r->var[i];
        fprintf(f, "%s{\"name\": \"%s\", \"bytes\": %" PRIu64 ", \"bits_per_instruction\": %.6f, "
                   "\"storage_bits\": %" PRIu64 ", \"verified\": %d}",
                i ? ", " : "", v->name, v->st.total_bytes, per(v->st.total_bytes * 8, v->st.instructions),
                v->storage_bits, v->verified);
    }
    fprintf(f, "]");
    if (r->nrows) {
        fprintf(f, ", \"rows\": ");
        tm_std_rows_json(f, (const tm_std_row *)r->rows, r->nrows, s->instructions, s->cycles);
    }
    fprintf(f, "}\n");
}
