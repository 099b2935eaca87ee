/* tm command line: shared helpers. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"

void tm_err(const char *sub, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "tm %s: ", sub);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int tm_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return -1;
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K') { mul = 1000ULL; end++; }
    else if (*end == 'm' || *end == 'M') { mul = 1000000ULL; end++; }
    else if (*end == 'g' || *end == 'G') { mul = 1000000000ULL; end++; }
    if (*end)
        return -1;
    if (mul > 1 && v > UINT64_MAX / mul)
        return -1;
    *out = (uint64_t)(v * mul);
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

int tm_parse_pair(const char *s, unsigned *a, unsigned *b)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(s, &end, 10);
    if (errno || end == s || *end != ',' || x > 1000)
        return -1;
    const char *s2 = end + 1;
    unsigned long y = strtoul(s2, &end, 10);
    if (errno || end == s2 || *end || y > 1000)
        return -1;
    *a = (unsigned)x;
    *b = (unsigned)y;
    return 0;
}

int tm_progress_tty(void)
{
    return isatty(2);
}
