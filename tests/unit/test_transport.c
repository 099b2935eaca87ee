/* tm — unit tests of the frontend transport (capture/transport.c,
 * include/tm/transport.h): a stream read from a descriptor with no child
 * (tm_transport_open_fd, tm record --capture) gives the capture layer what
 * tm_cap_feed gives it. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tm/capture.h"
#include "tm/capwire.h"
#include "tm/transport.h"

typedef struct count {
    size_t records, runs;
} count_t;

static int on_record(void *arg, const tmc_record *r)
{
    count_t *k = arg;
    k->records++;
    k->runs += r->type == TMC_RUN;
    return 0;
}

/* One block run ROUNDS times, then END (as test_capture.c's). */
static size_t make_stream(uint64_t *w, int rounds)
{
    size_t n = 0;
    w[n++] = TMCAP_MAGIC;
    w[n++] = TMCAP_BLOCK | 2ull << 8 | 1ull << 24;
    w[n++] = 1;
    w[n++] = 0x1000;
    w[n++] = 3;
    w[n++] = 2 | 3ull << 8;
    w[n++] = TMCAP_X_JUMP | 1ull << 8;
    w[n++] = 0x1000;
    for (int i = 0; i < rounds; i++)
        w[n++] = TMCAP_EXEC | 1ull << 16;
    w[n++] = TMCAP_END;
    return n;
}

static tm_cap *new_cap(count_t *k)
{
    tm_cap_cfg cfg = {.threads = 2};
    tm_cap_sink sink = {on_record, NULL, k, NULL, NULL};
    tm_cap *c = NULL;
    cr_assert_eq(tm_cap_new(&cfg, &sink, &c), TM_OK);
    return c;
}

Test(transport, open_fd_reads_a_pipe_to_its_end)
{
    static uint64_t w[4096];
    size_t nw = make_stream(w, 3000);
    count_t a = {0, 0}, b = {0, 0};
    tm_cap *c = new_cap(&a);
    cr_assert_eq(tm_cap_feed(c, w, nw * 8), TM_OK);
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    tm_cap_free(c);

    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) { /* the writer, in pieces that end inside events */
        close(p[0]);
        for (size_t off = 0; off < nw * 8;) {
            size_t k = nw * 8 - off < 1003 ? nw * 8 - off : 1003;
            if (write(p[1], (const uint8_t *)w + off, k) != (ssize_t)k)
                _exit(1);
            off += k;
        }
        _exit(0);
    }
    close(p[1]);
    c = new_cap(&b);
    tm_transport_cfg tc = {8, 1 << 16, 4096, 0, NULL, NULL};
    tm_transport *t = NULL;
    char err[256];
    cr_assert_eq(tm_transport_open_fd(&tc, p[0], &t, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tm_transport_pid(t), -1);
    cr_assert_eq(tm_transport_shm(t), 0);
    while (tm_transport_read(t, c))
        ;
    cr_assert_eq(tm_transport_fd(t), -1); /* closed at its end */
    cr_assert_eq(tm_transport_failed(t), 0, "%s %s", tm_transport_error(t), tm_cap_error(c));
    tm_transport_close(t);
    int ws;
    cr_assert_eq(waitpid(pid, &ws, 0), pid);
    uint64_t off;
    cr_assert_eq(tm_cap_unfinished(c, &off), 0);
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    tm_cap_info in;
    tm_cap_get_info(c, &in);
    cr_assert(in.ended);
    cr_assert_eq(in.bytes, nw * 8);
    tm_cap_free(c);
    cr_assert_eq(b.records, a.records);
    cr_assert_eq(b.runs, a.runs);
}

/* A descriptor that cannot be read: the transport's error, no hang. */
Test(transport, open_fd_read_error)
{
    int fd = open("/dev/null", O_WRONLY);
    cr_assert_geq(fd, 0);
    count_t k = {0, 0};
    tm_cap *c = new_cap(&k);
    tm_transport_cfg tc = {8, 1 << 16, 4096, 0, NULL, NULL};
    tm_transport *t = NULL;
    char err[256];
    cr_assert_eq(tm_transport_open_fd(&tc, fd, &t, err, sizeof err), TM_OK);
    cr_assert_eq(tm_transport_read(t, c), 0);
    cr_assert_eq(tm_transport_failed(t), 1);
    cr_assert(strstr(tm_transport_error(t), "reading the capture stream: Bad file descriptor"), "%s",
              tm_transport_error(t));
    tm_transport_close(t);
    tm_cap_free(c);
}

Test(transport, open_fd_bad_arguments)
{
    tm_transport_cfg tc = {8, 1 << 16, 0, 0, NULL, NULL};
    tm_transport *t = (tm_transport *)1;
    char err[256];
    cr_assert_eq(tm_transport_open_fd(&tc, 0, &t, err, sizeof err), TM_ERR_ARG);
    cr_assert_null(t);
}
