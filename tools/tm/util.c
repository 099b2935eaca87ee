/* tm command line: shared helpers. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"

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

static void put_escaped(FILE *f, const char *text)
{
    tm_put_escaped(f, text, 0);
}

/* "tm SUB: MESSAGE" on one line of stderr; USAGE: with "(see tm SUB --help)". */
static void verr(const char *sub, int usage, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "tm%s%s: ", *sub ? " " : "", sub);
    put_escaped(stderr, msg);
    if (usage)
        fprintf(stderr, " (see tm %s%s--help)", sub, *sub ? " " : "");
    fputc('\n', stderr);
}

void tm_err(const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(sub, 0, fmt, ap);
    va_end(ap);
}

void tm_usage(const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(sub, 1, fmt, ap);
    va_end(ap);
}

void tm_put_line(FILE *f, const char *text)
{
    put_escaped(f, text);
    fputc('\n', f);
}

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

int tm_progress_tty(void)
{
    return isatty(2);
}

/* ---- output files ---- */

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

int tm_out_begin(const char *sub, tm_out *o, const char *path, const char *const *inputs)
{
    memset(o, 0, sizeof *o);
    if (!path || !*path) {
        tm_err(sub, "an output file name is empty");
        return -1;
    }
    if (!strcmp(path, "-")) {
        o->direct = 1;
        snprintf(o->path, sizeof o->path, "-");
        snprintf(o->tmp, sizeof o->tmp, "-");
        return 0;
    }
    if (strlen(path) >= sizeof o->path - 32) {
        tm_err(sub, "%s: file name too long", path);
        return -1;
    }
    for (const char *const *in = inputs; in && *in; in++)
        if (tm_same_file(path, *in)) {
            tm_usage(sub, "%s: the output is the input %s (the same file): refused, it would destroy the input",
                     path, *in);
            return -2;
        }
    snprintf(o->path, sizeof o->path, "%s", path);
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            tm_usage(sub, "%s: is a directory", path);
            return -2;
        }
        if (!S_ISREG(st.st_mode)) {
            /* a device or a FIFO (-o /dev/null): written in place */
            o->direct = 1;
            snprintf(o->tmp, sizeof o->tmp, "%s", path);
            return 0;
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
    if (fd < 0) {
        tm_err(sub, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        /* keep mkostemp's 0600 */
    }
    close(fd);
    o->active = 1;
    track(o, 1);
    return 0;
}

int tm_out_commit(const char *sub, tm_out *o)
{
    if (!o->active)
        return 0;
    track(o, 0);
    o->active = 0;
    if (rename(o->tmp, o->path) != 0) {
        int e = errno;
        unlink(o->tmp);
        tm_err(sub, "%s: cannot move the finished output into place: %s", o->path, strerror(e));
        return -1;
    }
    return 0;
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

/* The dispositions tm started with (tm_save_signals). */
static const int saved_sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSAVED (sizeof saved_sigs / sizeof saved_sigs[0])
static struct sigaction saved[NSAVED];
static int have_saved;

void tm_save_signals(void)
{
    for (size_t k = 0; k < NSAVED; k++)
        sigaction(saved_sigs[k], NULL, &saved[k]);
    have_saved = 1;
}

int tm_sig_was_ignored(int sig)
{
    for (size_t k = 0; have_saved && k < NSAVED; k++)
        if (saved_sigs[k] == sig)
            return saved[k].sa_handler == SIG_IGN;
    return 0;
}

void tm_restore_child_signals(void)
{
    for (size_t k = 0; have_saved && k < NSAVED; k++)
        sigaction(saved_sigs[k], &saved[k], NULL);
}

static void on_fatal_signal(int sig)
{
    tm_out_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

void tm_cleanup_on_signal(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal ignored when tm started (nohup) stays ignored */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[k], &sa, NULL);
    }
}

/* Standard output is a pipe whose reader has gone. */
static int stdout_reader_gone(void)
{
    struct stat st;
    if (fstat(1, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return 0;
    struct pollfd p = {1, 0, 0};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

static int stdout_errno;

void tm_stdout_errno(int e)
{
    stdout_errno = e;
}

int tm_stdout_failed(void)
{
    return ferror(stdout) != 0;
}

int tm_finish_stdout(const char *sub, int status)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = errno;
    if (!bad && !ferror(stdout))
        return status;
    if (!e)
        e = stdout_errno;
    /* said once: a second call (a subcommand's own, then main's) finds the
     * error cleared */
    clearerr(stdout);
    stdout_errno = 0;
    if (e == EPIPE || stdout_reader_gone())
        return status; /* the reader (a pager, head) went away: a quiet end */
    tm_err(sub, "standard output: %s", e ? strerror(e) : "write error");
    return status ? status : 1;
}

/* The repository root: the directory above build/ that holds rtl/tm_top.sv. */
int tm_find_root(char *root, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return -1;
    exe[len] = '\0';
    for (int up = 0; up < 6; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -1;
        *slash = '\0';
        char probe[PATH_MAX + 32];
        snprintf(probe, sizeof probe, "%s/rtl/tm_top.sv", exe);
        if (access(probe, R_OK) == 0) {
            if ((size_t)snprintf(root, n, "%s", exe) >= n)
                return -1;
            return 0;
        }
    }
    return -1;
}

