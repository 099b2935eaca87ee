/* tm — the RTL parameter set of a model configuration (include/tm/rtl_params.h):
 * the table's rows, and their text forms for tm cosim's simulator builds and
 * tm config. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "tm/rtl_params.h"

size_t tm_rtl_param_count(void)
{
    size_t n = 0;
#define COUNT(NAME, KIND, VALUE) n++;
    TM_RTL_PARAMS(COUNT)
#undef COUNT
    return n;
}

void tm_rtl_params(const tm_model_cfg *c, tm_rtl_param *out)
{
    size_t i = 0;
#define ROW(NAME, KIND, VALUE)                                                                     \
    out[i].name = #NAME;                                                                           \
    out[i].kind = KIND;                                                                            \
    out[i].value = (unsigned)(VALUE);                                                              \
    i++;
    TM_RTL_PARAMS(ROW)
#undef ROW
}

/* Appends like snprintf at *POS of BUF (N bytes; BUF may be NULL: nothing
 * is written); sets *BAD when it does not fit. */
static void append(char *buf, size_t n, size_t *pos, int *bad, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void append(char *buf, size_t n, size_t *pos, int *bad, const char *fmt, ...)
{
    if (!buf)
        return;
    va_list ap;
    va_start(ap, fmt);
    size_t room = *pos < n ? n - *pos : 0;
    int w = vsnprintf(buf + (*pos < n ? *pos : 0), room, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= room)
        *bad = 1;
    else
        *pos += (size_t)w;
}

int tm_rtl_params_text(const tm_model_cfg *c, char *key, size_t nkey, char *vc, size_t nvc, char *h, size_t nh)
{
    size_t np = tm_rtl_param_count(), k = 0, v = 0, d = 0;
    tm_rtl_param p[64];
    int bad = 0;
    if (np > sizeof p / sizeof p[0])
        return TM_ERR_ARG;
    tm_rtl_params(c, p);
    if (key && nkey)
        key[0] = '\0';
    append(vc, nvc, &v, &bad, "// tm_top's parameters of this simulator: written by tm cosim from "
                              "include/tm/rtl_params.h\n");
    append(h, nh, &d, &bad, "/* The RTL parameter set of this simulator: written by tm cosim from "
                            "include/tm/rtl_params.h. */\n");
    for (size_t i = 0; i < np; i++) {
        append(h, nh, &d, &bad, "#define TM_RTL_%s %u\n", p[i].name, p[i].value);
        if (p[i].kind == TM_RTL_DERIVED)
            continue;
        char lc[32];
        size_t j = 0;
        for (; p[i].name[j] && j < sizeof lc - 1; j++)
            lc[j] = (char)tolower((unsigned char)p[i].name[j]);
        lc[j] = '\0';
        if (strncmp(lc, "tage_", 5) && strncmp(lc, "ittage_", 7))
            append(key, nkey, &k, &bad, "%s%s%u", k ? "-" : "", lc, p[i].value);
        append(vc, nvc, &v, &bad, p[i].kind == TM_RTL_BIT ? "-G%s=1'b%u\n" : "-G%s=%u\n", p[i].name, p[i].value);
    }
    const tm_tage_cfg *tg[2] = {&c->pred.tage, &c->pred.ittage};
    for (int i = 0; i < 2; i++)
        if (tg[i]->base)
            append(key, nkey, &k, &bad, "-%s%u.%u.%u.%u.%u.%u", i ? "ittage" : "tage", tg[i]->base, tg[i]->tables,
                   tg[i]->entries, tg[i]->tag, tg[i]->lmin, tg[i]->lmax);
    return bad ? TM_ERR_ARG : TM_OK;
}
