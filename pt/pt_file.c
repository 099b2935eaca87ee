/* tm — Intel PT buffers as files BASE.T<n>.pt: the encoder's outputs, the
 * decoder's inputs, the module map beside the commit stream, tm pt's
 * statistics file (include/tm/ptfile.h).  Nothing here prints. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tm/ptfile.h"
#include "tm/status.h"
#include "tm/tmc.h"

int tm_pt_file_name(char *buf, size_t n, const char *base, uint32_t tid)
{
    return snprintf(buf, n, "%s.T%" PRIu32 ".pt", base, tid) >= (int)n ? -1 : 0;
}

/* The module map and vdso beside SRC (SRC without .tmc). */
static int default_image_paths(const char *src, char *mods, char *vdso, size_t n)
{
    size_t l = strlen(src);
    if (l > 4 && !strcmp(src + l - 4, ".tmc"))
        l -= 4;
    if (l + 9 > n)
        return -1;
    memcpy(mods, src, l);
    strcpy(mods + l, ".modules");
    memcpy(vdso, src, l);
    strcpy(vdso + l, ".vdso");
    return 0;
}

int tm_pt_image_beside(const char *src, const char *modules, const char *vdso, int ignore_build_id,
                       tm_pt_image **im, char *err, size_t errlen)
{
    char dm[PATH_MAX], dv[PATH_MAX];
    *im = NULL;
    if (default_image_paths(src, dm, dv, sizeof dm))
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: name too long", src);
    if (!modules) {
        if (access(dm, R_OK) != 0)
            return tm_errf(TM_ERR_IO, err, errlen, "%s: no module map %s beside it (--modules FILE; --no-image for a "
                                                "stream without code)", src, dm);
        modules = dm;
    }
    if (!vdso && access(dv, R_OK) == 0)
        vdso = dv;
    return tm_pt_image_load(modules, vdso, ignore_build_id, im, err, errlen);
}

/* ---- reading ---- */

/* NAME read whole into *OUT, *LEN: 0, or -1 with errno. */
static int read_file(const char *name, uint8_t **out, size_t *len)
{
    FILE *f = fopen(name, "rbe");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    size_t k;
    while (p && (k = fread(p + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) {
            uint8_t *q = realloc(p, cap *= 2);
            if (!q) {
                free(p);
                p = NULL;
            }
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

void tm_pt_files_free(tm_pt_files *f)
{
    for (size_t i = 0; f->b && i < f->n; i++) {
        free((void *)f->b[i].name);
        free((void *)f->b[i].p);
    }
    free(f->b);
    memset(f, 0, sizeof *f);
}

int tm_pt_files_load(tm_pt_files *f, const char *base, uint32_t threads, int allow_empty, char *err,
                     size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->b = calloc(threads ? threads : 1, sizeof *f->b);
    if (!f->b)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    for (uint32_t t = 0; t < threads; t++) {
        char name[PATH_MAX];
        if (tm_pt_file_name(name, sizeof name, base, t))
            return tm_errf(TM_ERR_ARG, err, errlen, "%s: name too long", base);
        struct stat st;
        if (stat(name, &st) != 0)
            continue;
        tm_pt_buffer *b = &f->b[f->n];
        char *copy = strdup(name);
        uint8_t *data = NULL;
        errno = 0;
        if (!copy || read_file(name, &data, &b->n)) {
            free(copy);
            return tm_errf(TM_ERR_IO, err, errlen, "%s: %s", name, strerror(errno ? errno : ENOMEM));
        }
        *b = (tm_pt_buffer){t, data, b->n, copy};
        f->n++;
    }
    if (!f->n && !allow_empty)
        return tm_errf(TM_ERR_IO, err, errlen, "%s.T0.pt: no PT buffer %s.T<n>.pt", base, base);
    return TM_OK;
}

int tm_pt_decode_files(const tm_pt_image *im, const char *base, uint32_t threads, int allow_empty, const char *tmc,
                       int block, void (*progress)(uint64_t records, void *arg), void *arg,
                       tm_pt_decode_result *res, double *secs, int *decoding, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    *secs = 0;
    *decoding = 0;
    if (!threads && tmc) {
        tmc_reader *r = NULL;
        int rc = tmc_reader_open(tmc, &r, err, errlen);
        if (rc != TM_OK)
            return rc;
        threads = tmc_reader_threads(r);
        tmc_reader_close(r);
    } else if (!threads) {
        threads = TMC_MAX_THREADS;
    }
    tm_pt_files b;
    int rc = tm_pt_files_load(&b, base, threads, allow_empty, err, errlen);
    if (rc == TM_OK) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        rc = tmc ? tm_pt_verify(im, b.b, b.n, tmc, res, progress, arg, err, errlen)
                 : tm_pt_decode(im, b.b, b.n, block, res, err, errlen);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        *secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        *decoding = rc != TM_OK;
    }
    tm_pt_files_free(&b);
    return rc;
}

int tm_pt_outputs_check(const char *base, uint32_t threads, const char *in, const char *stats, char *err,
                        size_t errlen)
{
    for (uint32_t t = 0; t < threads; t++) {
        char name[PATH_MAX];
        const char *clash = NULL;
        if (!tm_pt_file_name(name, sizeof name, base, t))
            clash = tm_same_file(name, in)                                          ? in
                    : stats && (!strcmp(name, stats) || tm_same_file(name, stats)) ? stats
                                                                                    : NULL;
        if (clash)
            return tm_errf(TM_ERR_ARG, err, errlen, "%s: the output of core %" PRIu32 " is the %s %s (the same file): "
                        "refused, it would destroy it", name, t, clash == in ? "input" : "statistics file", clash);
    }
    return TM_OK;
}

/* ---- writing ---- */

/* The encoder's outputs, each opened at its core's first packet. */
typedef struct pt_writer {
    const char *base;
    uint32_t threads;
    tm_out *outs;
    FILE **f;
    int failed;      /* the tm_status of the first failed write (TM_ERR_ARG: an output is a directory) */
    char err[1024];  /* and its message */
} pt_writer;

/* For THREADS thread ids: TM_OK, or TM_ERR_NOMEM. */
static int pt_writer_init(pt_writer *w, const char *base, uint32_t threads, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->base = base;
    w->threads = threads;
    w->outs = calloc(threads ? threads : 1, sizeof *w->outs);
    w->f = calloc(threads ? threads : 1, sizeof *w->f);
    if (!w->outs || !w->f)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    return TM_OK;
}

/* tm_pt_opts.write: 0, or -1 after w->failed is set. */
static int pt_writer_write(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    pt_writer *w = arg;
    if (!w->f[tid]) {
        char name[PATH_MAX];
        if (tm_pt_file_name(name, sizeof name, w->base, tid)) {
            w->err[0] = '\0'; /* no message (tm pt never gave one here) */
            w->failed = TM_ERR_IO;
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

/* The outputs closed and renamed into place; the earlier ones removed. */
static int pt_writer_finish(pt_writer *w, char *err, size_t errlen)
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
        if ((t < w->threads && w->outs[t].path[0]) || tm_pt_file_name(name, sizeof name, w->base, t) ||
            stat(name, &sb) != 0)
            continue;
        if (S_ISREG(sb.st_mode) && unlink(name) != 0)
            return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot remove this earlier output: %s", name, strerror(errno));
    }
    return TM_OK;
}

/* Closes and removes what was not finished; frees. */
static void pt_writer_free(pt_writer *w)
{
    for (uint32_t t = 0; w->f && t < w->threads; t++)
        if (w->f[t])
            fclose(w->f[t]);
    for (uint32_t t = 0; w->outs && t < w->threads; t++)
        if (w->outs[t].active)
            tm_out_abort(&w->outs[t]);
    free(w->outs);
    free(w->f);
    w->outs = NULL;
    w->f = NULL;
}

int tm_pt_encode_files(tm_pt_pass_opts *o, const char *base, uint32_t threads, tm_pt_pass_result *res, char *err,
                       size_t errlen)
{
    pt_writer w;
    int rc = pt_writer_init(&w, base, threads, err, errlen);
    if (rc == TM_OK) {
        o->pt.write = pt_writer_write;
        o->pt.write_arg = &w;
        rc = tm_pt_pass(o, res, err, errlen);
        if (w.failed) {
            rc = w.failed;
            tm_err_set(err, errlen, w.err);
        }
    }
    if (rc == TM_OK)
        rc = pt_writer_finish(&w, err, errlen);
    pt_writer_free(&w);
    return rc;
}

int tm_pt_stats_write(tm_out *o, const char *name, const tm_pt_pass_result *res, const tm_pt_opts *po,
                      const char *tmc, int image, const tm_pt_decode_result *verify, int verify_ok, char *err,
                      size_t errlen)
{
    FILE *f = fopen(o->tmp, "we");
    if (!f)
        return tm_errf(TM_ERR_IO, err, errlen, "%s: %s", name, strerror(errno));
    tm_pt_report_json(f, res, po, tmc, image, verify, verify_ok);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return tm_errf(TM_ERR_IO, err, errlen, "%s: %s", name, strerror(errno));
    return tm_out_close(o, err, errlen);
}
