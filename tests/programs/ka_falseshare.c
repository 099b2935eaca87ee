/* ka_falseshare N M: a known answer of the timing model (tests/e2e/
 * t_timing_kat.sh).  N threads (1..16) created by main; thread i does M
 * iterations of incrementing its own int slot[i] of one 64-byte-aligned
 * array (neighbouring words of one cache line: false sharing), a volatile
 * load and store each, plus a few instructions of private work.  No thread
 * reads a byte another stored, so nothing orders them: N threads take the
 * time of one, and no core waits for another's store.
 *
 * Nor does the C library order them, by the program's design: glibc's
 * pthread_create and a thread's exit update its thread count
 * (__nptl_nthreads), and pthread_join reads what the thread and other
 * joiners stored; a thread that ended before main created the next
 * (Valgrind runs a new thread first, up to a whole time slice), or exits
 * in an order other than their clocks', would read each other's stores.
 * So each thread first reads a byte from a pipe that main writes once it
 * has created them all, and at the end writes its slot's value to another
 * pipe and waits in pause() until main exits; main checks the N values it
 * reads from that pipe (== M) and returns.  A pipe is a system call, which
 * orders nothing in the timing model: main reads no byte a thread stored,
 * no thread ends, and the run's cycles are those of the last thread's
 * work.  (Built with -z now, as all ka_* programs: no thread resolves a
 * lazy binding that another then reads.) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXT 16

static long arg(const char *s, long lo, long hi, const char *name)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "ka_falseshare: %s '%s': expected %ld..%ld\n", name, s, lo, hi);
        exit(2);
    }
    return v;
}

static volatile int slot[MAXT] __attribute__((aligned(64)));
static long iters;
static int gate[2], done[2];

struct report {
    int t, slot;
    uint32_t x;
};

static void *worker(void *p)
{
    int t = (int)(intptr_t)p;
    char c;
    if (read(gate[0], &c, 1) != 1)
        return p;
    uint32_t x = 1;
    for (long m = 0; m < iters; m++) {
        slot[t] = slot[t] + 1;
        x = x * 1103515245u + 12345u;
        x ^= x >> 11;
    }
    struct report r = {t, slot[t], x};
    if (write(done[1], &r, sizeof r) != (ssize_t)sizeof r)
        return p;
    for (;;)
        pause();
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ka_falseshare N M\n");
        return 2;
    }
    int n = (int)arg(argv[1], 1, MAXT, "N");
    iters = arg(argv[2], 0, 1000000000, "M");
    if (pipe(gate) || pipe(done)) {
        fprintf(stderr, "ka_falseshare: pipe failed\n");
        return 1;
    }
    pthread_t th;
    for (int t = 0; t < n; t++)
        if (pthread_create(&th, NULL, worker, (void *)(intptr_t)t)) {
            fprintf(stderr, "ka_falseshare: pthread_create failed\n");
            return 1;
        }
    for (int t = 0; t < n; t++)
        if (write(gate[1], "", 1) != 1) {
            fprintf(stderr, "ka_falseshare: writing the gate failed\n");
            return 1;
        }
    uint32_t sum = 0;
    int seen = 0;
    for (int k = 0; k < n; k++) {
        struct report r;
        if (read(done[0], &r, sizeof r) != (ssize_t)sizeof r || r.t < 0 || r.t >= n || (seen & 1 << r.t)) {
            fprintf(stderr, "ka_falseshare: a thread's report is missing or wrong\n");
            return 1;
        }
        if (r.slot != iters) {
            fprintf(stderr, "ka_falseshare: slot[%d] = %d, not %ld\n", r.t, r.slot, iters);
            return 1;
        }
        seen |= 1 << r.t;
        sum += r.x;
    }
    printf("ka_falseshare %d %ld: %08x\n", n, iters, sum);
    return 0;
}
