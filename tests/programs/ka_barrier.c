/* ka_barrier N R W: a known answer of the timing model (tests/e2e/
 * t_timing_kat.sh).  Main creates N worker threads (1..64) and joins them;
 * each does R rounds of W units of work (unit(): about 1,100 instructions
 * of integer arithmetic over a 1 KB array of its own stack, which stays in
 * an 8 KB L1) followed by pthread_barrier_wait on a barrier of N.  The
 * threads' work is equal and independent between barriers, so N cores take
 * the time of one thread plus the barriers, not N times it.  Every worker
 * computes the same value; main checks that they agree and that each round
 * had exactly one PTHREAD_BARRIER_SERIAL_THREAD, and prints the value. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 64

/* One unit of work: 128 steps of about 9 instructions over a[0..255]. */
__attribute__((noinline)) static uint32_t unit(uint32_t *a, uint32_t s)
{
    for (int i = 0; i < 256; i += 2) {
        s = (s ^ a[i]) * 0x9e3779b1u;
        a[i + 1] += s >> 7;
    }
    return s;
}

static long arg(const char *s, long lo, long hi, const char *name)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "ka_barrier: %s '%s': expected %ld..%ld\n", name, s, lo, hi);
        exit(2);
    }
    return v;
}

static int rounds, units;
static pthread_barrier_t barrier;
static struct {
    uint32_t s;
    unsigned serial;
} __attribute__((aligned(64))) res[MAXT];

static void *worker(void *p)
{
    int t = (int)(intptr_t)p;
    uint32_t a[256];
    for (int i = 0; i < 256; i++)
        a[i] = (uint32_t)i;
    uint32_t s = 1;
    for (int r = 0; r < rounds; r++) {
        for (int w = 0; w < units; w++)
            s = unit(a, s);
        s += (uint32_t)r;
        if (pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
            res[t].serial++;
    }
    res[t].s = s;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: ka_barrier N R W\n");
        return 2;
    }
    int n = (int)arg(argv[1], 1, MAXT, "N");
    rounds = (int)arg(argv[2], 0, 1000000, "R");
    units = (int)arg(argv[3], 0, 1000000, "W");
    pthread_t th[MAXT];
    pthread_barrier_init(&barrier, NULL, (unsigned)n);
    for (int t = 0; t < n; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t)) {
            fprintf(stderr, "ka_barrier: pthread_create failed\n");
            return 1;
        }
    unsigned serial = 0;
    for (int t = 0; t < n; t++) {
        pthread_join(th[t], NULL);
        serial += res[t].serial;
    }
    for (int t = 1; t < n; t++)
        if (res[t].s != res[0].s) {
            fprintf(stderr, "ka_barrier: worker %d computed %08x, worker 0 %08x\n", t, res[t].s, res[0].s);
            return 1;
        }
    if (serial != (unsigned)rounds) {
        fprintf(stderr, "ka_barrier: %u serial threads in %d rounds\n", serial, rounds);
        return 1;
    }
    printf("ka_barrier %d %d %d: %08x\n", n, rounds, units, res[0].s);
    return 0;
}
