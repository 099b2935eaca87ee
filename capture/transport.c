/* tm — the frontend transport of include/tm/transport.h (docs/capture.md §1). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>
#include "tm/transport.h"

struct tm_transport {
    tm_transport_cfg cfg;
    pid_t pid;
    int pfd;                /* read end of the data pipe (-1 once closed) */
    int ack;                /* write end of the acknowledgement pipe (shared memory) */
    const uint8_t *shm;     /* the slots, or NULL: the pipe carries the stream */
    uint64_t tok[64];       /* slot lengths read so far */
    size_t tok_bytes;
    uint64_t nslot;         /* slots handed to the capture */
    int failed;
    char err[256];
    uint8_t drain[1 << 16]; /* input read after a failure */
};

/* The shared-memory channel: the memfd of the slots (*MFD), the
 * acknowledgement pipe (AFD) and the reader's mapping; NULL when it cannot
 * be had (the pipe carries the stream then). */
static const uint8_t *shm_channel(const tm_transport_cfg *c, int *mfd, int afd[2])
{
    *mfd = memfd_create("tm-capture", MFD_CLOEXEC);
    void *p = MAP_FAILED;
    if (*mfd >= 0 && ftruncate(*mfd, (off_t)(c->slots * c->slot)) == 0 && pipe2(afd, O_CLOEXEC) == 0)
        p = mmap(NULL, c->slots * c->slot, PROT_READ, MAP_SHARED, *mfd, 0);
    if (p != MAP_FAILED)
        return p;
    if (*mfd >= 0)
        close(*mfd);
    if (afd[0] >= 0) {
        close(afd[0]);
        close(afd[1]);
    }
    *mfd = afd[0] = afd[1] = -1;
    return NULL;
}

int tm_transport_start(const tm_transport_cfg *cfg, tm_transport_exec_fn exec, void *exec_arg, tm_transport **out,
                       char *err, size_t errlen)
{
    *out = NULL;
    tm_transport *t = calloc(1, sizeof *t);
    if (!t) {
        tm_err_set(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    t->cfg = *cfg;
    t->pfd = t->ack = -1;
    char msg[128];
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC)) {
        snprintf(msg, sizeof msg, "pipe: %s", strerror(errno));
        tm_err_set(err, errlen, msg);
        free(t);
        return TM_ERR_IO;
    }
    fcntl(pfd[0], F_SETPIPE_SZ, 1 << 20);
    int mfd = -1, afd[2] = {-1, -1};
    if (!cfg->pipe_only)
        t->shm = shm_channel(cfg, &mfd, afd);
    fflush(NULL);
    t->pid = fork();
    if (t->pid < 0) {
        snprintf(msg, sizeof msg, "fork: %s", strerror(errno));
        tm_err_set(err, errlen, msg);
        t->pfd = pfd[0];
        close(pfd[1]);
        if (t->shm) {
            close(mfd);
            close(afd[0]);
            t->ack = afd[1];
        }
        tm_transport_close(t);
        return TM_ERR_IO;
    }
    if (t->pid == 0) {
        /* The child: the descriptors the frontend needs stay open across
         * exec (the Valgrind tool moves them out of the program's sight). */
        tm_transport_child ch = {fcntl(pfd[1], F_DUPFD, 3), -1, -1, cfg->slots, cfg->slot};
        if (t->shm) {
            ch.shm_fd = fcntl(mfd, F_DUPFD, 3);
            ch.ack_fd = fcntl(afd[0], F_DUPFD, 3);
        }
        exec(exec_arg, &ch);
        _exit(127);
    }
    close(pfd[1]);
    t->pfd = pfd[0];
    if (t->shm) {
        close(mfd);
        close(afd[0]);
        t->ack = afd[1];
    }
    *out = t;
    return TM_OK;
}

int tm_transport_open_fd(const tm_transport_cfg *cfg, int fd, tm_transport **out, char *err, size_t errlen)
{
    *out = NULL;
    if (fd < 0 || !cfg->pipe_chunk) {
        tm_err_set(err, errlen, "tm_transport_open_fd: no descriptor or no read size");
        return TM_ERR_ARG;
    }
    tm_transport *t = calloc(1, sizeof *t);
    if (!t) {
        tm_err_set(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    t->cfg = *cfg;
    t->cfg.pipe_only = 1;
    t->pid = -1;
    t->pfd = fd;
    t->ack = -1;
    *out = t;
    return TM_OK;
}

pid_t tm_transport_pid(const tm_transport *t) { return t->pid; }
int tm_transport_fd(const tm_transport *t) { return t->pfd; }
int tm_transport_shm(const tm_transport *t) { return t->shm != NULL; }
int tm_transport_failed(const tm_transport *t) { return t->failed; }
const char *tm_transport_error(const tm_transport *t) { return t->err; }

/* After a piece handed to the capture. */
static void after(tm_transport *t, tm_cap *cap)
{
    if (!t->failed && t->cfg.after_piece && t->cfg.after_piece(t->cfg.arg, cap))
        t->failed = 1;
}

/* A read that failed: 1 to try again (interrupted, nothing there yet), else
 * 0 (the end) after the transport's error. */
static int read_error(tm_transport *t)
{
    if (errno == EINTR || errno == EAGAIN)
        return 1;
    if (!t->failed)
        snprintf(t->err, sizeof t->err, "reading the capture stream: %s", strerror(errno));
    t->failed = 1;
    return 0;
}

/* Shared memory: each length read from the pipe is the next slot's; its
 * events are handled in place, then the slot goes back to the frontend. */
static int read_slots(tm_transport *t, tm_cap *cap)
{
    ssize_t n = read(t->pfd, (uint8_t *)t->tok + t->tok_bytes, sizeof t->tok - t->tok_bytes);
    if (n < 0)
        return read_error(t);
    if (n == 0)
        return 0;
    t->tok_bytes += (size_t)n;
    size_t k = 0;
    for (; (k + 1) * 8 <= t->tok_bytes; k++) {
        const uint8_t *at = t->shm + (t->nslot++ % t->cfg.slots) * t->cfg.slot;
        if (t->tok[k] > t->cfg.slot) {
            if (!t->failed)
                snprintf(t->err, sizeof t->err, "the tool sent a slot of %" PRIu64 " bytes (at most %zu)", t->tok[k],
                         t->cfg.slot);
            t->failed = 1;
        } else if (!t->failed && tm_cap_feed(cap, at, (size_t)t->tok[k]) != TM_OK) {
            t->failed = 1;
        }
        while (write(t->ack, "", 1) < 0 && errno == EINTR)
            ;
        after(t, cap);
    }
    memmove(t->tok, (uint8_t *)t->tok + k * 8, t->tok_bytes - k * 8);
    t->tok_bytes -= k * 8;
    return 1;
}

/* The pipe carries the stream: read straight into the capture's buffer (no
 * copy); after a failure into the drain, so that the program runs to its end. */
static int read_pipe(tm_transport *t, tm_cap *cap)
{
    size_t chunk = t->cfg.pipe_chunk;
    void *room = t->failed ? NULL : tm_cap_input(cap, chunk);
    if (!room)
        t->failed = 1;
    ssize_t n = read(t->pfd, room ? room : t->drain, room ? chunk : sizeof t->drain);
    if (n < 0)
        return read_error(t);
    if (n == 0)
        return 0;
    if (t->failed)
        return 1;
    if (tm_cap_commit(cap, (size_t)n) != TM_OK) {
        t->failed = 1;
        return 1;
    }
    after(t, cap);
    return 1;
}

int tm_transport_read(tm_transport *t, tm_cap *cap)
{
    if (t->pfd < 0)
        return 0;
    int r = t->shm ? read_slots(t, cap) : read_pipe(t, cap);
    if (r == 0) {
        close(t->pfd);
        t->pfd = -1;
    }
    return r;
}

void tm_transport_close(tm_transport *t)
{
    if (!t)
        return;
    if (t->shm)
        munmap((void *)t->shm, t->cfg.slots * t->cfg.slot);
    if (t->ack >= 0)
        close(t->ack);
    if (t->pfd >= 0)
        close(t->pfd);
    free(t);
}
