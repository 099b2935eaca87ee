/* tm — the standards' trace files BASE.T<n>.EXT, one raw stream per core:
 * the names, the per-core writer, the loader, the outputs-vs-inputs check
 * and the module map beside the stream (include/tm/stdfile.h).  Nothing
 * here prints. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tm/out.h"
#include "tm/status.h"
#include "tm/stdfile.h"
#include "tm/tmc.h"

int tm_stdfile_name(char *buf, size_t n, const char *base, uint32_t tid, const char *ext)
{
    return snprintf(buf, n, "%s.T%" PRIu32 ".%s", base, tid, ext) >= (int)n ? -1 : 0;
}

int tm_stdfile_mem_put(tm_stdfile_mem *b, const uint8_t *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q)
            return -1;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
    b->used = 1;
    return 0;
}

int tm_stdfile_beside(const char *src, const char **modules, const char **vdso, char *mods, char *vdso_buf,
                      size_t n, const char *hint, char *err, size_t errlen)
{
    size_t l = strlen(src);
    if (l > 4 && !strcmp(src + l - 4, ".tmc"))
        l -= 4;
    if (l + 9 > n)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: name too long", src);
    memcpy(mods, src, l);
    strcpy(mods + l, ".modules");
    memcpy(vdso_buf, src, l);
    strcpy(vdso_buf + l, ".vdso");
    if (!*modules) {
        if (access(mods, R_OK) != 0)
            return tm_errf(TM_ERR_IO, err, errlen, "%s: no module map %s beside it %s", src, mods, hint);
        *modules = mods;
    }
    if (!*vdso && access(vdso_buf, R_OK) == 0)
        *vdso = vdso_buf;
    return TM_OK;
}

/* ---- reading ---- */

/* NAME read whole into *OUT, *LEN: 0, or -1 with errno. */
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

void tm_stdfile_files_free(tm_stdfile_files *f)
{
    for (size_t i = 0; f->b && i < f->n; i++) {
        free((void *)f->b[i].name);
        free((void *)f->b[i].p);
    }
    free(f->b);
    memset(f, 0, sizeof *f);
}

int tm_stdfile_files_load(tm_stdfile_files *f, const char *base, const char *ext, const char *what, uint32_t threads,
                          int allow_empty, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    f->b = calloc(threads ? threads : 1, sizeof *f->b);
    if (!f->b)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    for (uint32_t t = 0; t < threads; t++) {
        char name[PATH_MAX];
        struct stat st;
        if (tm_stdfile_name(name, sizeof name, base, t, ext))
            return tm_errf(TM_ERR_ARG, err, errlen, "%s: name too long", base);
        if (stat(name, &st) != 0)
            continue;
        char *copy = strdup(name);
        uint8_t *data = NULL;
        size_t len = 0;
        errno = 0;
        if (!copy || read_all(name, &data, &len)) {
            free(copy);
            return tm_errf(TM_ERR_IO, err, errlen, "%s: %s", name, strerror(errno ? errno : ENOMEM));
        }
        f->b[f->n++] = (tm_stdfile_buf){t, data, len, copy};
    }
    if (!f->n && !allow_empty)
        return tm_errf(TM_ERR_IO, err, errlen, "%s.T0.%s: no %s %s.T<n>.%s", base, ext, what, base, ext);
    return TM_OK;
}

int tm_stdfile_outputs_check(const char *base, const char *ext, uint32_t threads, const char *in, const char *stats,
                             char *err, size_t errlen)
{
    for (uint32_t t = 0; t < threads; t++) {
        char name[PATH_MAX];
        const char *clash = NULL;
        if (!tm_stdfile_name(name, sizeof name, base, t, ext))
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

struct tm_stdfile_writer {
    const char *base, *ext;
    const char *const *inputs;
    uint32_t threads;
    tm_out *outs;
    FILE **f;
    int failed;      /* the tm_status of the first failed write */
    char err[1024];  /* and its message */
};

int tm_stdfile_writer_new(const char *base, const char *ext, uint32_t threads, const char *const *inputs,
                          tm_stdfile_writer **out, char *err, size_t errlen)
{
    tm_stdfile_writer *w = calloc(1, sizeof *w);
    *out = w;
    if (w) {
        *w = (tm_stdfile_writer){.base = base, .ext = ext, .inputs = inputs, .threads = threads};
        w->outs = calloc(threads ? threads : 1, sizeof *w->outs);
        w->f = calloc(threads ? threads : 1, sizeof *w->f);
    }
    if (!w || !w->outs || !w->f)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    return TM_OK;
}

int tm_stdfile_write(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    tm_stdfile_writer *w = arg;
    if (tid >= w->threads) {
        w->failed = tm_errf(TM_ERR_ARG, w->err, sizeof w->err, "%s: core %" PRIu32 " of %" PRIu32, w->base, tid,
                            w->threads);
        return -1;
    }
    if (!w->f[tid]) {
        char name[PATH_MAX];
        if (tm_stdfile_name(name, sizeof name, w->base, tid, w->ext)) {
            w->failed = tm_errf(TM_ERR_IO, w->err, sizeof w->err, "%s: name too long", w->base);
            return -1;
        }
        int rc = tm_out_open(&w->outs[tid], name, w->inputs, w->err, sizeof w->err);
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

int tm_stdfile_writer_failed(const tm_stdfile_writer *w, char *err, size_t errlen)
{
    if (w->failed)
        tm_err_set(err, errlen, w->err);
    return w->failed;
}

int tm_stdfile_writer_finish(tm_stdfile_writer *w, char *err, size_t errlen)
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
        if ((t < w->threads && w->outs[t].path[0]) || tm_stdfile_name(name, sizeof name, w->base, t, w->ext) ||
            stat(name, &sb) != 0)
            continue;
        if (S_ISREG(sb.st_mode) && unlink(name) != 0)
            return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot remove this earlier output: %s", name, strerror(errno));
    }
    return TM_OK;
}

int tm_stdfile_write_mem(const char *base, const char *ext, uint32_t threads, const tm_stdfile_mem *b,
                         const char *const *inputs, char *err, size_t errlen)
{
    tm_stdfile_writer *w = NULL;
    int rc = tm_stdfile_writer_new(base, ext, threads, inputs, &w, err, errlen);
    for (uint32_t t = 0; t < threads && rc == TM_OK; t++)
        if (b[t].used && tm_stdfile_write(w, t, b[t].p, b[t].n))
            rc = tm_stdfile_writer_failed(w, err, errlen);
    if (rc == TM_OK)
        rc = tm_stdfile_writer_finish(w, err, errlen);
    tm_stdfile_writer_free(w);
    return rc;
}

void tm_stdfile_writer_free(tm_stdfile_writer *w)
{
    if (!w)
        return;
    for (uint32_t t = 0; w->f && t < w->threads; t++)
        if (w->f[t])
            fclose(w->f[t]);
    for (uint32_t t = 0; w->outs && t < w->threads; t++)
        if (w->outs[t].active)
            tm_out_abort(&w->outs[t]);
    free(w->outs);
    free(w->f);
    free(w);
}
