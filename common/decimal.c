/* tm — unsigned decimal numbers of the options (tm/decimal.h). */
#include "tm/decimal.h"

int tm_decimal(const char *s, int suffixes, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return TM_ERR_ARG;
    uint64_t v = 0, mul = 1;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return TM_ERR_ARG;
        v = v * 10 + d;
    }
    if (suffixes && (*s == 'k' || *s == 'K'))
        mul = 1000ULL, s++;
    else if (suffixes && (*s == 'm' || *s == 'M'))
        mul = 1000000ULL, s++;
    else if (suffixes && (*s == 'g' || *s == 'G'))
        mul = 1000000000ULL, s++;
    if (*s || (mul > 1 && v > UINT64_MAX / mul))
        return TM_ERR_ARG;
    *out = v * mul;
    return TM_OK;
}
