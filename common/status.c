/* tm — names of status codes, and the caller's message buffer. */
#include <stdarg.h>
#include <stdio.h>
#include "tm/status.h"

const char *tm_status_str(int status)
{
    switch (status) {
    case TM_OK: return "ok";
    case TM_ERR_IO: return "I/O error";
    case TM_ERR_FORMAT: return "format error";
    case TM_ERR_TRUNCATED: return "truncated input";
    case TM_ERR_ZSTD: return "zstd error";
    case TM_ERR_NOMEM: return "out of memory";
    case TM_ERR_ARG: return "invalid argument";
    case TM_ERR_STATE: return "invalid state";
    case TM_ERR_MISMATCH: return "mismatch";
    default: return "unknown error";
    }
}

void tm_err_set(char *err, size_t errlen, const char *msg)
{
    if (err && errlen)
        snprintf(err, errlen, "%s", msg);
}

int tm_errf(int rc, char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}
