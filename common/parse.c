/* tm — the number syntaxes of the command line's option values, and the
 * older option matching (tm/parse.h). */
#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include "tm/parse.h"

/* Decimal digits, then (SUFFIXES) an optional k/K, m/M or g/G for 10^3,
 * 10^6 or 10^9. */
static int parse_dec(const char *s, int suffixes, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    uint64_t mul = 1;
    if (suffixes && (*s == 'k' || *s == 'K'))
        mul = 1000ULL, s++;
    else if (suffixes && (*s == 'm' || *s == 'M'))
        mul = 1000000ULL, s++;
    else if (suffixes && (*s == 'g' || *s == 'G'))
        mul = 1000000000ULL, s++;
    if (*s || (mul > 1 && v > UINT64_MAX / mul))
        return -1;
    *out = v * mul;
    return 0;
}

int tm_parse_u64(const char *s, uint64_t *out)
{
    return parse_dec(s, 0, out);
}

int tm_parse_count(const char *s, uint64_t *out)
{
    return parse_dec(s, 1, out);
}

int tm_parse_size(const char *v, uint32_t *out)
{
    char num[32];
    size_t n = strlen(v);
    uint64_t mul = 1;
    if (n && (v[n - 1] == 'K' || v[n - 1] == 'k'))
        mul = 1024, n--;
    else if (n && (v[n - 1] == 'M' || v[n - 1] == 'm'))
        mul = 1024 * 1024, n--;
    if (n == 0 || n >= sizeof num)
        return -1;
    memcpy(num, v, n);
    num[n] = 0;
    uint64_t x;
    if (tm_parse_u64(num, &x) || x > UINT32_MAX / mul)
        return -1;
    *out = (uint32_t)(x * mul);
    return 0;
}

int tm_parse_pair(const char *s, unsigned *a, unsigned *b)
{
    uint64_t x, y;
    const char *comma = s ? strchr(s, ',') : NULL;
    char first[24];
    if (!comma || (size_t)(comma - s) >= sizeof first)
        return -1;
    memcpy(first, s, (size_t)(comma - s));
    first[comma - s] = 0;
    if (parse_dec(first, 0, &x) || parse_dec(comma + 1, 0, &y) || x > 1000 || y > 1000)
        return -1;
    *a = (unsigned)x;
    *b = (unsigned)y;
    return 0;
}

int tm_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n))
        return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *val = argv[++*i];
    return 1;
}
