/* tm — a model configuration given by its options (`tm model`, `tm cosim`,
 * `tm record`, `tm config`, the manifest's entries, rtl/configs.txt): the
 * option values as text, by name, resolved into a tm_model_cfg with every
 * message naming the option and what it allows.  The options and their
 * meaning: `tm model --help`. */
#ifndef TM_MODELSPEC_H
#define TM_MODELSPEC_H

#include <stddef.h>
#include <stdint.h>
#include "tm/model.h"
#include "tm/opt.h"
#include "tm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The options as given (NULL, 0: not given). */
typedef struct tm_model_spec {
    const char *config, *encoding;
    const char *gshare, *ras, *ibtb, *buffer, *port, *ts_bits;
    const char *chunks[4];           /* bcnt, ta, cc, fah */
    const char *data, *cache, *assoc, *line, *gran;
    const char *tage[5], *ittage[5]; /* N, -tables, -entries, -tag, -hist */
    int timestamps, shared, cfiat, cfiat_shared;
} tm_model_spec;

/* The entries of an option table (tm/opt.h) of the model options for a
 * struct TYPE with the fields of tm_model_spec (the command line's own). */
#define TM_MODEL_SPEC_V(T, name, f) {name, NULL, TM_OPT_VALUE, offsetof(T, f), 0, NULL}
#define TM_MODEL_SPEC_VK(T, name, f, k) {name, NULL, TM_OPT_VALUE, offsetof(T, f) + (k) * sizeof(char *), 0, NULL}
#define TM_MODEL_SPEC_F(T, name, f) {name, NULL, TM_OPT_FLAG, offsetof(T, f), 0, NULL}
#define TM_MODEL_SPEC_OPTS(T)                                                                                      \
    TM_MODEL_SPEC_V(T, "--config", config), TM_MODEL_SPEC_V(T, "--encoding", encoding),                          \
    TM_MODEL_SPEC_V(T, "--gshare", gshare), TM_MODEL_SPEC_V(T, "--ras", ras), TM_MODEL_SPEC_V(T, "--ibtb", ibtb), \
    TM_MODEL_SPEC_V(T, "--buffer", buffer), TM_MODEL_SPEC_V(T, "--port", port),                                  \
    TM_MODEL_SPEC_V(T, "--ts-bits", ts_bits), TM_MODEL_SPEC_VK(T, "--chunks-bcnt", chunks, 0),                   \
    TM_MODEL_SPEC_VK(T, "--chunks-ta", chunks, 1), TM_MODEL_SPEC_VK(T, "--chunks-cc", chunks, 2),                \
    TM_MODEL_SPEC_VK(T, "--chunks-fah", chunks, 3), TM_MODEL_SPEC_V(T, "--data", data),                          \
    TM_MODEL_SPEC_V(T, "--cache", cache), TM_MODEL_SPEC_V(T, "--assoc", assoc),                                  \
    TM_MODEL_SPEC_V(T, "--line", line), TM_MODEL_SPEC_V(T, "--granularity", gran),                               \
    TM_MODEL_SPEC_VK(T, "--tage", tage, 0), TM_MODEL_SPEC_VK(T, "--tage-tables", tage, 1),                       \
    TM_MODEL_SPEC_VK(T, "--tage-entries", tage, 2), TM_MODEL_SPEC_VK(T, "--tage-tag", tage, 3),                  \
    TM_MODEL_SPEC_VK(T, "--tage-hist", tage, 4), TM_MODEL_SPEC_VK(T, "--ittage", ittage, 0),                     \
    TM_MODEL_SPEC_VK(T, "--ittage-tables", ittage, 1), TM_MODEL_SPEC_VK(T, "--ittage-entries", ittage, 2),       \
    TM_MODEL_SPEC_VK(T, "--ittage-tag", ittage, 3), TM_MODEL_SPEC_VK(T, "--ittage-hist", ittage, 4),             \
    TM_MODEL_SPEC_F(T, "--timestamps", timestamps), TM_MODEL_SPEC_F(T, "--shared", shared),                      \
    TM_MODEL_SPEC_F(T, "--cfiat", cfiat), TM_MODEL_SPEC_F(T, "--cfiat-shared", cfiat_shared)

/* The table of a tm_model_spec (ends with a NULL name). */
extern const tm_optdef tm_model_spec_opts[];

/* S from SRC, a struct that the option table TABLE (TM_MODEL_SPEC_OPTS of
 * its type) stores the model options into: every option of TABLE by name. */
void tm_model_spec_load(tm_model_spec *s, const tm_optdef *table, const void *src);
/* If ARGV[*I] is a model option ("--gshare 12", "--gshare=12", a flag),
 * stores it through TABLE into DST (tm_model_spec_opts into a tm_model_spec,
 * or a TM_MODEL_SPEC_OPTS table of the caller's struct), leaves *I at its
 * last word and returns 1; 0 if it is not one; TM_ERR_ARG with ERR
 * "--port needs a value". */
int tm_model_spec_arg(const tm_optdef *table, void *dst, int argc, char **argv, int *i, char *err, size_t errlen);
/* The configuration of S for THREADS, resolved (tm_model_cfg_resolve):
 * TM_OK, or TM_ERR_ARG with ERR naming the option and what is allowed
 * ("--gshare x: not a number in 0..1048576"). */
int tm_model_spec_cfg(const tm_model_spec *s, uint32_t threads, tm_model_cfg *cfg, char *err, size_t errlen);

/* --demand (tm model, tm record): every configuration gets the widest port
 * the model has and its largest buffer.  A core offers at most one
 * message (a bundle with data tracing) per cycle and the port drains
 * first, so a configuration of N cores whose longest message (bundle) is
 * L bits never drops one when N x L <= TM_DEMAND_PORT_BITS; beyond that it
 * drops only if the messages outrun the port by the whole buffer
 * (TM_DEMAND_BUFFER_BITS, 2^24, the model's maximum), which the run then
 * reports as an error (tm_model_demand_check). */
#define TM_DEMAND_PORT_BITS 1024u
#define TM_DEMAND_BUFFER_BITS 16777216u
/* After a --demand run: TM_OK if M dropped nothing, else TM_ERR_STATE with
 * ERR "--demand: NAME dropped ..." (NAME: the configuration's output). */
int tm_model_demand_check(const tm_model *m, const tm_model_cfg *cfg, const char *name, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
