/* tm — inside tm std's pass (std/stdpass.c): a standard's variants and
 * what the pass asks of each standard.  Internal to libtm. */
#ifndef TM_STD_STDVAR_H
#define TM_STD_STDVAR_H

#include <stddef.h>
#include <stdint.h>
#include "tm/etm4.h"
#include "tm/etrace.h"
#include "tm/pt.h"
#include "tm/std.h"
#include "tm/stdfile.h"
#include "tm/tmc.h"

/* A core's packets. */
typedef tm_stdfile_mem std_buf;

typedef struct std_ops std_ops;

/* One variant of a standard (its options) in the pass. */
typedef struct std_variant {
    const std_ops *ops;
    size_t index;          /* 0 .. nvariants-1 */
    char name[48];         /* the row's name */
    uint64_t storage_bits; /* predictor or cache state per core the decoder mirrors */
    void *enc;             /* the standard's encoder */
    uint32_t threads;
    std_buf *buf;          /* per thread id */
    union {                /* the standard's options for this variant */
        tm_pt_opts pt;
        tm_etm4_opts etm4;
        tm_et_opts et;
    } o;
} std_variant;

typedef struct std_stats {
    uint64_t instructions, cycles;
} std_stats;

struct std_ops {
    const char *standard;  /* "Intel PT" */
    const char *ext;       /* "pt" */
    size_t nvariants;
    /* The code image of the recording: o->modules, o->vdso (NULL: none). */
    int (*image)(const tm_std_opts *o, void **image, char *err, size_t errlen);
    void (*image_free)(void *image);
    /* Variant V->index: its name, storage, options and encoder (writing
     * through std_write_cb with V as its argument). */
    int (*make)(std_variant *v, void *image, const tm_std_opts *o, char *err, size_t errlen);
    int (*put)(void *enc, const tmc_record *r, char *err, size_t errlen);
    int (*finish)(void *enc, char *err, size_t errlen);
    std_stats (*stats)(const std_variant *v);
    void (*free)(void *enc);
    /* V's packets decoded over IMAGE and compared with o->tmc: TM_OK with
     * *CHECKED instructions, or TM_ERR_MISMATCH / an error with ERR. */
    int (*verify)(const std_variant *v, void *image, const tm_std_opts *o, uint64_t *checked, char *err,
                  size_t errlen);
};

/* The write callback of every variant's encoder (ARG = the variant). */
int std_write_cb(void *arg, uint32_t tid, const uint8_t *p, size_t n);

extern const std_ops std_pt_ops;
extern const std_ops std_etm4_ops;
extern const std_ops std_etrace_ops;

#endif
