/* tm — the frontend transport (docs/capture.md §1): the channel between a
 * frontend process (the Valgrind tool; any frontend that writes the capture
 * stream of tm/capwire.h) and the capture layer (tm/capture.h).
 *
 * The frontend writes the capture stream into shared-memory slots and each
 * slot's length into a pipe; the reader handles a slot in place and hands it
 * back with one byte on an acknowledgement pipe.  Without memfd_create (or
 * when asked) the stream itself goes through the pipe.  The reading side:
 *
 *   tm_transport_start(&cfg, exec_fn, arg, &t, err, n)   forks; the child
 *        calls exec_fn with the channel's descriptors (to put on the
 *        frontend's command line) and execs the frontend
 *   loop: poll tm_transport_fd(t) (with the caller's own descriptors);
 *        when readable, tm_transport_read(t, cap) feeds what arrived to the
 *        capture (records then reach the capture's sink); 0 once the
 *        frontend closed the channel
 *   tm_transport_pid(t): the child, for the caller to wait for and signal
 *   tm_transport_close(t)
 *
 * tm_transport_open_fd reads a stream that is already there (a file, or a
 * pipe from a frontend tm did not start) the same way, with no child.
 *
 * Errors follow docs/architecture.md: statuses, the handle's message. */
#ifndef TM_TRANSPORT_H
#define TM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "tm/capture.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the frontend gets (in the child, before exec): it writes lengths (or,
 * without shared memory, the stream) to DATA_FD; with shared memory
 * (SHM_FD >= 0) the slots are SLOTS x SLOT bytes of SHM_FD, and it waits for
 * one byte on ACK_FD before reusing a slot.  The descriptors are >= 3 and
 * stay open across exec. */
typedef struct tm_transport_child {
    int data_fd;
    int shm_fd, ack_fd;
    unsigned slots;
    size_t slot;
} tm_transport_child;

/* Runs in the child after fork: builds the frontend's command line from CH
 * and execs it; returns only if the exec failed (the child then exits 127). */
typedef void (*tm_transport_exec_fn)(void *arg, const tm_transport_child *ch);

typedef struct tm_transport_cfg {
    unsigned slots;      /* shared-memory slots (e.g. 8) */
    size_t slot;         /* bytes per slot */
    size_t pipe_chunk;   /* bytes per read of the pipe transport */
    int pipe_only;       /* 1: the stream through the pipe, no shared memory */
    /* Called after each piece handed to the capture (a slot, or a read of the
     * pipe): e.g. to stop tracing at a size limit; nonzero if the capture
     * failed then.  May be NULL. */
    int (*after_piece)(void *arg, tm_cap *cap);
    void *arg;
} tm_transport_cfg;

typedef struct tm_transport tm_transport;

/* Creates the channel and starts the frontend.  On failure *out is NULL and
 * ERR receives the message (docs/architecture.md). */
int tm_transport_start(const tm_transport_cfg *cfg, tm_transport_exec_fn exec, void *exec_arg, tm_transport **out,
                       char *err, size_t errlen);
/* A channel with no frontend process: reads the capture stream from FD
 * (a file, or a pipe whose writer is not tm's child: `tm record --capture`),
 * through the pipe path (cfg->pipe_only is implied; slots and slot are not
 * used).  The transport owns FD: tm_transport_read closes it at its end,
 * tm_transport_close if still open.  tm_transport_pid is then -1.  On
 * failure *out is NULL, FD is left open and ERR receives the message. */
int tm_transport_open_fd(const tm_transport_cfg *cfg, int fd, tm_transport **out, char *err, size_t errlen);
/* The frontend process (-1 for tm_transport_open_fd). */
pid_t tm_transport_pid(const tm_transport *t);
/* The descriptor to poll for input (-1 once the channel is closed). */
int tm_transport_fd(const tm_transport *t);
/* Reads what is there and hands it to CAP: 1 (go on), 0 (the frontend closed
 * the channel).  After a failure (the capture refused its input, or the
 * frontend sent a slot longer than a slot) the rest is read and dropped, so
 * that the program runs to its end: tm_transport_failed says so. */
int tm_transport_read(tm_transport *t, tm_cap *cap);
/* 1 if the capture failed (tm_cap_error says why) or the frontend broke the
 * protocol (tm_transport_error says why, else ""). */
int tm_transport_failed(const tm_transport *t);
const char *tm_transport_error(const tm_transport *t);
/* Whether the shared-memory slots are in use (else the pipe carries the stream). */
int tm_transport_shm(const tm_transport *t);
/* Closes the channel (not the child: the caller waits for it). */
void tm_transport_close(tm_transport *t);

#ifdef __cplusplus
}
#endif
#endif
