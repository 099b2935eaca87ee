/* tm — Intel PT in tm std's pass (std/stdpass.c): without timing packets,
 * with TSC+MTC, and with TSC+MTC+CYC, as tm pt --timing-variants; checked
 * by libipt's decoder (pt/pt_dec.c). */
#include <stdlib.h>
#include <string.h>
#include "tm/pt.h"
#include "tm/status.h"
#include "stdvar.h"

static const unsigned timing[3] = {0, TM_PT_TSC | TM_PT_MTC, TM_PT_TSC | TM_PT_MTC | TM_PT_CYC};
static const char *const names[3] = {"PT", "PT+mtc", "PT+cyc"};

static int pt_image(const tm_std_opts *o, void **image, char *err, size_t errlen)
{
    tm_pt_image *im = NULL; /* o->modules and o->vdso are resolved (std/stdpass.c) */
    int rc = tm_pt_image_load(o->modules, o->vdso, o->ignore_build_id, &im, err, errlen);
    *image = im;
    return rc;
}

static void pt_image_free(void *image)
{
    tm_pt_image_free(image);
}

static int pt_make(std_variant *v, void *image, const tm_std_opts *o, char *err, size_t errlen)
{
    (void)o;
    tm_pt_opts *po = &v->o.pt;
    memset(po, 0, sizeof *po);
    po->timing = timing[v->index];
    po->code = tm_pt_image_code;
    po->code_arg = image;
    po->write = std_write_cb;
    po->write_arg = v;
    snprintf(v->name, sizeof v->name, "%s", names[v->index]);
    v->storage_bits = 64 * 64; /* the decoder's 64-entry call stack of return compression */
    tm_pt_encoder *e = NULL;
    int rc = tm_pt_encoder_new(po, v->threads, &e, err, errlen);
    v->enc = e;
    return rc;
}

static int pt_put(void *enc, const tmc_record *r, char *err, size_t errlen)
{
    return tm_pt_encoder_put(enc, r, err, errlen);
}

static int pt_finish(void *enc, char *err, size_t errlen)
{
    return tm_pt_encoder_finish(enc, err, errlen);
}

static std_stats pt_stats(const std_variant *v)
{
    const tm_pt_stats *s = tm_pt_encoder_stats(v->enc);
    return (std_stats){s->instructions, s->cycles};
}

static void pt_free(void *enc)
{
    tm_pt_encoder_free(enc);
}

static int pt_verify(const std_variant *v, void *image, const tm_std_opts *o, uint64_t *checked, char *err,
                     size_t errlen)
{
    tm_pt_buffer *b = calloc(v->threads ? v->threads : 1, sizeof *b);
    if (!b)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    size_t n = 0;
    for (uint32_t t = 0; t < v->threads; t++)
        if (v->buf[t].used)
            b[n++] = (tm_pt_buffer){t, v->buf[t].p, v->buf[t].n, v->name};
    tm_pt_decode_result res;
    int rc = tm_pt_verify(image, b, n, o->tmc, &res, o->progress, o->progress_arg, err, errlen);
    free(b);
    *checked = res.checked;
    return rc;
}

const std_ops std_pt_ops = {"Intel PT", "pt", 3, pt_image, pt_image_free, pt_make, pt_put, pt_finish, pt_stats,
                            pt_free, pt_verify};
