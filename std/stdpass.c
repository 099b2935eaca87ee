/* tm — each ISA's trace standard beside the trace module in one pass
 * (tm/std.h, docs/standards.md).  Every variant's packets are kept in
 * memory per core; the first variant's are written to BASE.T<n>.EXT
 * (tm/stdfile.h). */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "tm/isa.h"
#include "tm/out.h"
#include "tm/pt.h"
#include "tm/status.h"
#include "tm/std.h"
#include "tm/stdfile.h"
#include "tm/tmc.h"
#include "stdvar.h"

/* ---- the variants' packets, per core ---- */

int std_write_cb(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    std_variant *v = arg;
    return tid < v->threads ? tm_stdfile_mem_put(&v->buf[tid], p, n) : -1;
}

static void variant_free(std_variant *v)
{
    if (v->enc && v->ops)
        v->ops->free(v->enc);
    for (uint32_t t = 0; v->buf && t < v->threads; t++)
        free(v->buf[t].p);
    free(v->buf);
    memset(v, 0, sizeof *v);
}

/* ---- the standards ---- */

static const std_ops *standard_of(int isa)
{
    switch (isa) {
    case TM_ISA_X86_64:
        return &std_pt_ops;
    case TM_ISA_AARCH64:
        return &std_etm4_ops;
    case TM_ISA_RV64:
        return &std_etrace_ops;
    default:
        return NULL;
    }
}

/* ---- the files of the first variant ---- */

/* BASE.T<n>.EXT of every core that ran; those of an earlier run's other
 * cores removed (a decoder reads every BASE.T<n>.EXT there is). */
static int write_files(const std_variant *v, const char *base, const char *ext, const char *tmc, char *err,
                       size_t errlen)
{
    char name[PATH_MAX];
    const char *inputs[] = {tmc, NULL};
    if (tm_stdfile_name(name, sizeof name, base, TMC_MAX_THREADS - 1, ext))
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: name too long", base);
    return tm_stdfile_write_mem(base, ext, v->threads, v->buf, inputs, err, errlen);
}

/* ---- the pass ---- */

typedef struct pass {
    const std_ops *ops;
    std_variant *v;
    size_t nv;
    tm_stdcmp *cmp;
    uint64_t records;  /* of the stream (the first read) */
} pass;

static int feed(const tm_std_opts *o, tmc_reader *r, pass *p, int *bad_stream, char *err, size_t errlen)
{
    tmc_record rec;
    int got, rc = TM_OK;
    while ((got = tmc_reader_next(r, &rec)) == 1) {
        if (o->progress && !(++p->records & ((1u << 22) - 1)))
            o->progress(p->records, o->progress_arg);
        for (size_t i = 0; i < p->nv && rc == TM_OK; i++)
            if ((rc = p->ops->put(p->v[i].enc, &rec, err, errlen)) != TM_OK && p->nv > 1) {
                char t[1100];
                snprintf(t, sizeof t, "%s: %.1000s", p->v[i].name, err);
                tm_err_set(err, errlen, t);
            }
        if (rc == TM_OK && p->cmp)
            rc = tm_stdcmp_put(p->cmp, &rec, err, errlen);
        if (rc != TM_OK)
            return rc;
    }
    if (got < 0) {
        *bad_stream = 1;
        return tm_errf(TM_ERR_FORMAT, err, errlen, "%s", tmc_reader_error(r));
    }
    for (size_t i = 0; i < p->nv && rc == TM_OK; i++)
        rc = p->ops->finish(p->v[i].enc, err, errlen);
    if (rc == TM_OK && p->cmp)
        rc = tm_stdcmp_finish(p->cmp, err, errlen);
    return rc;
}

static int make_variants(pass *p, uint32_t threads, const tm_std_opts *o, void *image, char *err, size_t errlen)
{
    p->nv = p->ops->nvariants;
    p->v = calloc(p->nv, sizeof *p->v);
    if (!p->v)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    for (size_t i = 0; i < p->nv; i++) {
        std_variant *v = &p->v[i];
        v->ops = p->ops;
        v->threads = threads;
        v->index = i;
        v->buf = calloc(threads ? threads : 1, sizeof *v->buf);
        if (!v->buf)
            return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
        int rc = p->ops->make(v, image, o, err, errlen);
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}

static void rows_of(pass *p, tm_std_result *res)
{
    for (size_t i = 0; i < p->nv; i++) {
        tm_std_row *w = &res->rows[i];
        memset(w, 0, sizeof *w);
        snprintf(w->name, sizeof w->name, "%s", p->v[i].name);
        snprintf(w->kind, sizeof w->kind, "standard");
        uint64_t bytes = 0;
        for (uint32_t t = 0; t < p->v[i].threads; t++)
            bytes += p->v[i].buf[t].n;
        w->bits = 8.0 * (double)bytes;
        w->storage_bits = p->v[i].storage_bits;
        w->verified = -1;
    }
    if (p->cmp)
        tm_stdcmp_rows(p->cmp, res->rows + p->nv);
}

/* Every variant decoded and compared with the stream. */
/* The progress of the verification reads, counted on from the records of
 * the reads before (one progress count for the whole run). */
typedef struct read_progress {
    const tm_std_opts *o;
    uint64_t before;
} read_progress;

static void progress_on(uint64_t records, void *arg)
{
    const read_progress *w = arg;
    w->o->progress(w->before + records, w->o->progress_arg);
}

static int verify_all(pass *p, void *image, const tm_std_opts *o, tm_std_result *res, char *err, size_t errlen)
{
    read_progress w = {o, 0};
    tm_std_opts vo = *o;
    if (o->progress) {
        vo.progress = progress_on;
        vo.progress_arg = &w;
    }
    for (size_t i = 0; i < p->nv; i++) {
        uint64_t checked = 0;
        char e[1024];
        w.before = (i + 1) * p->records;
        int rc = p->ops->verify(&p->v[i], image, &vo, &checked, e, sizeof e);
        res->rows[i].verified = rc == TM_OK;
        if (rc != TM_OK)
            return tm_errf(rc, err, errlen, "%s: %s", p->v[i].name, e);
        res->checked += checked;
    }
    return TM_OK;
}

static int pass_run(const tm_std_opts *o, tmc_reader *r, pass *p, void *image, tm_std_result *res, char *err,
                    size_t errlen)
{
    uint32_t threads = res->threads;
    int rc = make_variants(p, threads, o, image, err, errlen);
    if (rc == TM_OK && o->models && (rc = tm_stdcmp_new_some(threads, res->cores, o->tm_rows, &p->cmp, err, errlen)) == TM_OK)
        rc = tm_stdcmp_set_isa(p->cmp, res->isa);
    if (rc != TM_OK)
        return rc;
    char e2[1024];
    int bad_stream = 0;
    if ((rc = feed(o, r, p, &bad_stream, e2, sizeof e2)) != TM_OK)
        return tm_errf(rc, err, errlen, bad_stream ? "%s%s" : "%s: %s", bad_stream ? "" : o->tmc, e2);
    res->nstd = p->nv;
    res->nrows = p->nv + (p->cmp ? tm_stdcmp_nrows(p->cmp) : 0);
    res->rows = calloc(res->nrows, sizeof *res->rows);
    if (!res->rows)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    rows_of(p, res);
    const std_stats s = p->ops->stats(&p->v[0]);
    res->instructions = s.instructions;
    res->cycles = s.cycles;
    if (o->base && (rc = write_files(&p->v[0], o->base, p->ops->ext, o->tmc, err, errlen)) != TM_OK)
        return rc;
    return o->verify ? verify_all(p, image, o, res, err, errlen) : TM_OK;
}

int tm_std_pass(const tm_std_opts *o0, tm_std_result *res, char *err, size_t errlen)
{
    char mods[PATH_MAX], vdso[PATH_MAX];
    tm_std_opts oo = *o0;
    const tm_std_opts *o = &oo;
    int rc = tm_stdfile_beside(o->tmc, &oo.modules, &oo.vdso, mods, vdso, sizeof mods,
                               "(--modules FILE): the standards are encoded and decoded from the program's code", err,
                               errlen);
    if (rc != TM_OK)
        return memset(res, 0, sizeof *res), rc;
    memset(res, 0, sizeof *res);
    tmc_reader *r = NULL;
    rc = tmc_reader_open(o->tmc, &r, err, errlen);
    if (rc != TM_OK)
        return rc;
    res->isa = tmc_reader_isa(r);
    res->threads = tmc_reader_threads(r);
    pass p;
    memset(&p, 0, sizeof p);
    p.ops = standard_of(res->isa);
    void *image = NULL;
    if (!p.ops) {
        rc = tm_errf(TM_ERR_ARG, err, errlen, "%s: no trace standard is modelled for %s", o->tmc,
                     tm_isa_name(res->isa));
        goto out;
    }
    res->standard = p.ops->standard;
    res->ext = p.ops->ext;
    res->cores = tm_stdcmp_cores(o->tmc, res->threads);
    if (o->base &&
        (rc = tm_stdfile_outputs_check(o->base, p.ops->ext, res->threads, o->tmc, NULL, err, errlen)) != TM_OK)
        goto out;
    if ((rc = p.ops->image(o, &image, err, errlen)) == TM_OK)
        rc = pass_run(o, r, &p, image, res, err, errlen);
out:
    for (size_t i = 0; i < p.nv; i++)
        variant_free(&p.v[i]);
    free(p.v);
    tm_stdcmp_free(p.cmp);
    if (image)
        p.ops->image_free(image);
    tmc_reader_close(r);
    return rc;
}

void tm_std_result_free(tm_std_result *res)
{
    free(res->rows);
    res->rows = NULL;
    res->nrows = res->nstd = 0;
}

void tm_std_report_text(FILE *f, const tm_std_result *res, const char *tmc)
{
    fprintf(f, "%s: %s, %s of %" PRIu32 " core%s beside the trace module (buffer and port dropping nothing)\n", tmc,
            tm_isa_name(res->isa), res->standard, res->cores, res->cores == 1 ? "" : "s");
    fprintf(f, "instructions %" PRIu64 ", cycles %" PRIu64 "; ratio = bits of %s / bits of the row\n",
            res->instructions, res->cycles, res->nrows ? res->rows[0].name : "-");
    tm_std_table(f, res->rows, res->nrows, 0, res->instructions, res->cycles);
}

void tm_std_report_json(FILE *f, const tm_std_result *res, const char *tmc)
{
    fprintf(f, "{\"input\": ");
    tm_json_str(f, tmc);
    fprintf(f, ", \"isa\": \"%s\", \"standard\": \"%s\", \"cores\": %" PRIu32 ", \"instructions\": %" PRIu64
               ", \"cycles\": %" PRIu64 ", \"checked\": %" PRIu64 ", \"rows\": ",
            tm_isa_name(res->isa), res->standard, res->cores, res->instructions, res->cycles, res->checked);
    tm_std_rows_json(f, res->rows, res->nrows, res->instructions, res->cycles);
    fprintf(f, "}\n");
}
