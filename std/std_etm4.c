/* tm — ARM ETMv4 in tm std's pass (std/stdpass.c): plain, with the return
 * stack, with timestamps and with cycle counts, as tm etm4 --compare's rows;
 * checked by OpenCSD's ETMv4 decoder (std/etm4_dec.c, docs/standards.md §3). */
#include <stdlib.h>
#include <string.h>
#include "tm/etm4.h"
#include "tm/status.h"
#include "stdvar.h"

static const char *const names[TM_ETM4_VARIANTS] = {"ETMv4", "ETMv4+rs", "ETMv4+rs+ts", "ETMv4+rs+ts+cc"};

static int e4_image(const tm_std_opts *o, void **image, char *err, size_t errlen)
{
    tm_etm4_image *im = NULL; /* o->modules and o->vdso are resolved (std/stdpass.c) */
    int rc = tm_etm4_image_load(o->modules, o->vdso, o->ignore_build_id, &im, err, errlen);
    *image = im;
    return rc;
}

static void e4_image_free(void *image)
{
    tm_etm4_image_free(image);
}

static int e4_make(std_variant *v, void *image, const tm_std_opts *o, char *err, size_t errlen)
{
    (void)o;
    tm_etm4_opts *eo = &v->o.etm4;
    memset(eo, 0, sizeof *eo);
    eo->return_stack = v->index >= 1;
    eo->timestamps = v->index >= 2;
    eo->cycle_counts = v->index >= 3;
    eo->code = tm_etm4_image_code;
    eo->code_arg = image;
    eo->write = std_write_cb;
    eo->write_arg = v;
    snprintf(v->name, sizeof v->name, "%s", names[v->index]);
    v->storage_bits = eo->return_stack ? 16 * 64 : 0; /* the decoder's 16-entry return stack */
    tm_etm4_encoder *e = NULL;
    int rc = tm_etm4_encoder_new(eo, v->threads, &e, err, errlen);
    v->enc = e;
    return rc;
}

static int e4_put(void *enc, const tmc_record *r, char *err, size_t errlen)
{
    return tm_etm4_encoder_put(enc, r, err, errlen);
}

static int e4_finish(void *enc, char *err, size_t errlen)
{
    return tm_etm4_encoder_finish(enc, err, errlen);
}

static std_stats e4_stats(const std_variant *v)
{
    const tm_etm4_stats *s = tm_etm4_encoder_stats(v->enc);
    return (std_stats){s->instructions, s->cycles};
}

static void e4_free(void *enc)
{
    tm_etm4_encoder_free(enc);
}

static int e4_verify(const std_variant *v, void *image, const tm_std_opts *o, uint64_t *checked, char *err,
                     size_t errlen)
{
    tm_etm4_buffer *b = calloc(v->threads ? v->threads : 1, sizeof *b);
    if (!b)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    size_t n = 0;
    for (uint32_t t = 0; t < v->threads; t++)
        if (v->buf[t].used)
            b[n++] = (tm_etm4_buffer){t, v->buf[t].p, v->buf[t].n, v->name};
    tm_etm4_decode_result res;
    int rc = tm_etm4_verify(image, b, n, tm_etm4_configr(&v->o.etm4), o->tmc, &res, err, errlen);
    free(b);
    *checked = res.checked;
    return rc;
}

const std_ops std_etm4_ops = {"ARM ETMv4", "etm", TM_ETM4_VARIANTS, e4_image, e4_image_free, e4_make, e4_put,
                              e4_finish, e4_stats, e4_free, e4_verify};
