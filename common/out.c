/* tm — outputs under temporary names, renamed into place when complete
 * (include/tm/out.h).  Nothing here prints. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tm/status.h"
#include "tm/out.h"

void tm_put_escaped(FILE *f, const char *text, int map)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\\' && map)
            fputs("\\\\", f);
        else if (*p == '\t' && !map)
            fputs("\\t", f);
        else if (*p == '\r' && !map)
            fputs("\\r", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

/* The outputs being written: their temporaries are removed if a signal
 * ends the process (tm_cleanup_on_signal).  Room for tm model's and tm
 * record's 256 configurations (-o, --stats, --profile; BASE.tmt, .json,
 * .stats and --profile each) and the recording's own files. */
#define MAX_OUTS 1280
static tm_out *outs[MAX_OUTS];

static void track(tm_out *o, int on)
{
    for (int k = 0; k < MAX_OUTS; k++)
        if (on ? !outs[k] : outs[k] == o) {
            outs[k] = on ? o : NULL;
            return;
        }
}

int tm_same_file(const char *a, const char *b)
{
    struct stat x, y;
    if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-"))
        return 0;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int tm_out_open(tm_out *o, const char *path, const char *const *inputs, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    if (!path || !*path)
        return tm_errf(TM_ERR_IO, err, errlen, "an output file name is empty");
    if (!strcmp(path, "-")) {
        o->direct = 1;
        snprintf(o->path, sizeof o->path, "-");
        snprintf(o->tmp, sizeof o->tmp, "-");
        return TM_OK;
    }
    if (strlen(path) >= sizeof o->path - 32)
        return tm_errf(TM_ERR_IO, err, errlen, "%s: file name too long", path);
    for (const char *const *in = inputs; in && *in; in++)
        if (tm_same_file(path, *in))
            return tm_errf(TM_ERR_ARG, err, errlen,
                        "%s: the output is the input %s (the same file): refused, it would destroy the input", path,
                        *in);
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return tm_errf(TM_ERR_ARG, err, errlen, "%s: is a directory", path);
        if (!S_ISREG(st.st_mode)) {
            /* a device or a FIFO (-o /dev/null): written in place */
            o->direct = 1;
            snprintf(o->tmp, sizeof o->tmp, "%s", path);
            return TM_OK;
        }
        struct stat lst;
        char real[PATH_MAX];
        /* a symbolic link: the file it names is replaced, not the link */
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, real) &&
            strlen(real) < sizeof o->path - 32)
            snprintf(o->path, sizeof o->path, "%s", real);
    }
    const char *slash = strrchr(o->path, '/');
    int dlen = slash ? (int)(slash - o->path + 1) : 0;
    snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmp.XXXXXX", dlen, o->path, o->path + dlen);
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd < 0)
        return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot create: %s", path, strerror(errno));
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        /* keep mkostemp's 0600 */
    }
    close(fd);
    o->active = 1;
    track(o, 1);
    return TM_OK;
}

int tm_out_close(tm_out *o, char *err, size_t errlen)
{
    if (!o->active)
        return TM_OK;
    track(o, 0);
    o->active = 0;
    if (rename(o->tmp, o->path) != 0) {
        int e = errno;
        unlink(o->tmp);
        return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot move the finished output into place: %s", o->path,
                    strerror(e));
    }
    return TM_OK;
}

void tm_out_abort(tm_out *o)
{
    if (!o->active)
        return;
    track(o, 0);
    o->active = 0;
    unlink(o->tmp);
}

char *tm_out_name(const tm_out *o, char *msg)
{
    size_t lt = strlen(o->tmp), lp = strlen(o->path);
    char *at;
    if (o->direct || !lt || !(at = strstr(msg, o->tmp)) || lp > lt)
        return msg;
    memcpy(at, o->path, lp);
    memmove(at + lp, at + lt, strlen(at + lt) + 1);
    return msg;
}

void tm_out_cleanup(void)
{
    for (int k = 0; k < MAX_OUTS; k++)
        if (outs[k] && outs[k]->active)
            unlink(outs[k]->tmp); /* async-signal-safe */
}


void tm_json_str(FILE *f, const char *s)
{
    putc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            putc(ch, f);
    }
    putc('"', f);
}
