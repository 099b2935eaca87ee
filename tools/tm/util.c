/* tm command line: shared helpers. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd.h"
#include "tm/opt.h"

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

int tm_progress_tty(void)
{
    return isatty(2);
}

/* ---- output files ---- */

int tm_out_begin(const char *sub, tm_out *o, const char *path, const char *const *inputs)
{
    char err[2048];
    int rc = tm_out_open(o, path, inputs, err, sizeof err);
    if (rc == TM_ERR_ARG)
        tm_usage(sub, "%s", err);
    else if (rc != TM_OK)
        tm_err(sub, "%s", err);
    return rc == TM_OK ? 0 : rc == TM_ERR_ARG ? -2 : -1;
}

int tm_out_commit(const char *sub, tm_out *o)
{
    char err[2048];
    if (tm_out_close(o, err, sizeof err) == TM_OK)
        return 0;
    tm_err(sub, "%s", err);
    return -1;
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

int tm_cmd_options(const char *sub, int argc, char **argv, const tm_optdef *defs, void *args, const char **pos,
                   int maxpos, void (*usage)(FILE *))
{
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t = {defs, args};
    const tm_optdef *hit;
    const char *v;
    char err[256];
    int r, npos = 0;
    while ((r = tm_opt_next(&p, &t, 1, &hit, &v, err, sizeof err)) > 0) {
        if (r == TM_OPT_HELP)
            return usage(stdout), -1;
        if (r == TM_OPT_OPERAND && npos == maxpos)
            return tm_usage(sub, "too many arguments: %s", v), -2;
        if (r == TM_OPT_OPERAND)
            pos[npos++] = v;
    }
    if (r < 0)
        return tm_usage(sub, "%s", err), -2;
    return npos;
}
