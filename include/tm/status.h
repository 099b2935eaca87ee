/* tm — status codes shared by every component library. */
#ifndef TM_STATUS_H
#define TM_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every fallible call returns one of these (0 = success, negative = error).
 * Functions that deliver a record or message return 1 for "got one",
 * 0 for "clean end", and a negative tm_status on error. */
typedef enum tm_status {
    TM_OK = 0,
    TM_ERR_IO = -1,       /* open/read/write failed (errno kept in message) */
    TM_ERR_FORMAT = -2,   /* malformed input: bad magic, unknown record, ... */
    TM_ERR_TRUNCATED = -3,/* input ends in the middle of a record/message */
    TM_ERR_ZSTD = -4,     /* the zstd layer reported an error */
    TM_ERR_NOMEM = -5,
    TM_ERR_ARG = -6,      /* invalid argument / configuration out of range */
    TM_ERR_STATE = -7,    /* call not valid in the object's current state */
    TM_ERR_MISMATCH = -8  /* verification found a divergence */
} tm_status;

/* Short English name of a status ("format error", ...). */
const char *tm_status_str(int status);

/* Copies MSG into the caller's buffer ERR of ERRLEN bytes (truncated, always
 * terminated); nothing if ERR is NULL or ERRLEN 0. */
void tm_err_set(char *err, size_t errlen, const char *msg);
/* The formatted message into ERR (as tm_err_set) and returns RC: the one
 * way a library call says why it fails, `return tm_errf(TM_ERR_ARG, err,
 * errlen, "...", ...)`. */
int tm_errf(int rc, char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif
#endif
