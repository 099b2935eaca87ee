/* tm — RISC-V E-Trace in tm std's pass (std/stdpass.c): every combination
 * of the efficiency extensions (implicit return, branch prediction, jump
 * target cache) with the predictor and cache of about the state of the
 * large preset, and the three together at about medium's and small's; each
 * decoded by the spec's decoder algorithm (std/etrace_dec.c) and compared
 * with the commit stream (docs/standards.md §4). */
#include <stdlib.h>
#include <string.h>
#include "tm/etrace.h"
#include "tm/status.h"
#include "stdvar.h"

/* {implicit return, log2 predictor entries, log2 cache entries}: the eight
 * combinations at bp 2^11 and jtc 2^7 (all three: 14,310 state bits, large
 * 14,980), then all three at bp 2^9, jtc 2^5 (5,094; medium 4,278) and
 * prediction and cache alone at bp 2^8, jtc 2^4 (1,536; small 1,552). */
static const unsigned variant[][3] = {{0, 0, 0},  {0, 0, 7},  {0, 11, 0}, {0, 11, 7}, {1, 0, 0},
                                      {1, 0, 7},  {1, 11, 0}, {1, 11, 7}, {1, 9, 5},  {0, 8, 4}};
#define NVARIANTS (sizeof variant / sizeof variant[0])

static int et_image(const tm_std_opts *o, void **image, char *err, size_t errlen)
{
    tm_et_image *im = NULL; /* o->modules and o->vdso are resolved (std/stdpass.c) */
    int rc = tm_et_image_beside(o->tmc, o->modules, o->vdso, &im, err, errlen);
    *image = im;
    return rc;
}

static void et_image_free(void *image)
{
    tm_et_image_free(image);
}

static void et_name(char *buf, size_t n, const tm_et_opts *o)
{
    int k = snprintf(buf, n, "E-Trace");
    if (o->implicit_return && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " ir");
    if (o->bp_log2 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " bp%u", o->bp_log2);
    if (o->jtc_log2 && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " jtc%u", o->jtc_log2);
}

static int et_make(std_variant *v, void *image, const tm_std_opts *o, char *err, size_t errlen)
{
    (void)o;
    tm_et_opts *eo = &v->o.et;
    memset(eo, 0, sizeof *eo);
    eo->implicit_return = (int)variant[v->index][0];
    eo->bp_log2 = variant[v->index][1];
    eo->jtc_log2 = variant[v->index][2];
    eo->code = tm_et_image_code;
    eo->code_arg = image;
    eo->write = std_write_cb;
    eo->write_arg = v;
    et_name(v->name, sizeof v->name, eo);
    v->storage_bits = tm_et_storage_bits(eo);
    tm_et_encoder *e = NULL;
    int rc = tm_et_encoder_new(eo, v->threads, &e, err, errlen);
    v->enc = e;
    return rc;
}

static int et_put(void *enc, const tmc_record *r, char *err, size_t errlen)
{
    return tm_et_encoder_put(enc, r, err, errlen);
}

static int et_finish(void *enc, char *err, size_t errlen)
{
    return tm_et_encoder_finish(enc, err, errlen);
}

static std_stats et_stats(const std_variant *v)
{
    const tm_et_stats *s = tm_et_encoder_stats(v->enc);
    return (std_stats){s->instructions, s->cycles};
}

static void et_free(void *enc)
{
    tm_et_encoder_free(enc);
}

static int et_verify(const std_variant *v, void *image, const tm_std_opts *o, uint64_t *checked, char *err,
                     size_t errlen)
{
    (void)image; /* v->o.et.code reads it */
    uint32_t n = v->threads ? v->threads : 1;
    const uint8_t **p = calloc(n, sizeof *p);
    size_t *len = calloc(n, sizeof *len);
    const char **names = calloc(n, sizeof *names);
    if (!p || !len || !names) {
        free(p);
        free(len);
        free(names);
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    }
    for (uint32_t t = 0; t < v->threads; t++)
        if (v->buf[t].used) {
            p[t] = v->buf[t].p;
            len[t] = v->buf[t].n;
            names[t] = v->name;
        }
    uint64_t harts = 0;
    int rc = tm_et_verify_buffers(&v->o.et, v->threads, p, len, names, o->tmc, checked, &harts, err, errlen);
    free(p);
    free(len);
    free(names);
    return rc;
}

const std_ops std_etrace_ops = {"RISC-V E-Trace", "ete", NVARIANTS, et_image, et_image_free, et_make, et_put,
                                et_finish, et_stats, et_free, et_verify};
