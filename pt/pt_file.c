/* tm — Intel PT buffers as files BASE.T<n>.pt: the encoder's outputs, the
 * decoder's inputs, the module map beside the commit stream (all through
 * std/stdfile.c), tm pt's statistics file (include/tm/ptfile.h).  Nothing
 * here prints. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tm/ptfile.h"
#include "tm/status.h"
#include "tm/stdfile.h"
#include "tm/tmc.h"

int tm_pt_file_name(char *buf, size_t n, const char *base, uint32_t tid)
{
    return tm_stdfile_name(buf, n, base, tid, "pt");
}

int tm_pt_image_beside(const char *src, const char *modules, const char *vdso, int ignore_build_id,
                       tm_pt_image **im, char *err, size_t errlen)
{
    char dm[PATH_MAX], dv[PATH_MAX];
    *im = NULL;
    int rc = tm_stdfile_beside(src, &modules, &vdso, dm, dv, sizeof dm,
                               "(--modules FILE; --no-image for a stream without code)", err, errlen);
    return rc != TM_OK ? rc : tm_pt_image_load(modules, vdso, ignore_build_id, im, err, errlen);
}

/* ---- reading ---- */

void tm_pt_files_free(tm_pt_files *f)
{
    tm_stdfile_files_free(f);
}

int tm_pt_files_load(tm_pt_files *f, const char *base, uint32_t threads, int allow_empty, char *err,
                     size_t errlen)
{
    return tm_stdfile_files_load(f, base, "pt", "PT buffer", threads, allow_empty, err, errlen);
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
    return tm_stdfile_outputs_check(base, "pt", threads, in, stats, err, errlen);
}

/* ---- writing ---- */

int tm_pt_encode_files(tm_pt_pass_opts *o, const char *base, uint32_t threads, tm_pt_pass_result *res, char *err,
                       size_t errlen)
{
    tm_stdfile_writer *w = NULL;
    int rc = tm_stdfile_writer_new(base, "pt", threads, NULL, &w, err, errlen);
    if (rc == TM_OK) {
        o->pt.write = tm_stdfile_write;
        o->pt.write_arg = w;
        rc = tm_pt_pass(o, res, err, errlen);
        int failed = tm_stdfile_writer_failed(w, err, errlen);
        if (failed)
            rc = failed;
    }
    if (rc == TM_OK)
        rc = tm_stdfile_writer_finish(w, err, errlen);
    tm_stdfile_writer_free(w);
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
