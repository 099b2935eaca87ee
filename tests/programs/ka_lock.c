/* ka_lock N M: a known answer of the timing model (tests/e2e/
 * t_timing_kat.sh).  N threads (1..64) created by main, then joined; each
 * does M iterations of: pthread_mutex_lock; counter += 1 and a pass over
 * 40 shared words (shared[j] += j + 1: about 200 instructions that read and
 * write the shared data); pthread_mutex_unlock; then about 15 instructions
 * of private work.  The lock serializes the critical sections, which are
 * nearly all of the work: N threads take about N times one thread's time.
 * Main checks counter == N * M and shared[j] == N * M * (j + 1). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 64
#define WORDS 40

static long arg(const char *s, long lo, long hi, const char *name)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "ka_lock: %s '%s': expected %ld..%ld\n", name, s, lo, hi);
        exit(2);
    }
    return v;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t counter;
static uint32_t shared[WORDS];
static long iters;
static struct {
    uint32_t x;
} __attribute__((aligned(64))) res[MAXT];

static void *worker(void *p)
{
    int t = (int)(intptr_t)p;
    uint32_t x = (uint32_t)t + 1;
    for (long m = 0; m < iters; m++) {
        pthread_mutex_lock(&lock);
        counter += 1;
        for (int j = 0; j < WORDS; j++)
            shared[j] += (uint32_t)j + 1;
        pthread_mutex_unlock(&lock);
        x = x * 1103515245u + 12345u;
        x ^= x >> 16;
        x = x * 69069u + (uint32_t)m;
    }
    res[t].x = x;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ka_lock N M\n");
        return 2;
    }
    int n = (int)arg(argv[1], 1, MAXT, "N");
    iters = arg(argv[2], 0, 100000000, "M");
    pthread_t th[MAXT];
    for (int t = 0; t < n; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t)) {
            fprintf(stderr, "ka_lock: pthread_create failed\n");
            return 1;
        }
    uint32_t sum = 0;
    for (int t = 0; t < n; t++) {
        pthread_join(th[t], NULL);
        sum += res[t].x;
    }
    uint64_t want = (uint64_t)n * (uint64_t)iters;
    if (counter != want) {
        fprintf(stderr, "ka_lock: counter %llu, not %llu\n", (unsigned long long)counter, (unsigned long long)want);
        return 1;
    }
    for (int j = 0; j < WORDS; j++)
        if (shared[j] != (uint32_t)(want * (uint64_t)(j + 1))) {
            fprintf(stderr, "ka_lock: shared[%d] = %u, not %u\n", j, shared[j], (uint32_t)(want * (uint64_t)(j + 1)));
            return 1;
        }
    printf("ka_lock %d %ld: counter %llu, private %08x\n", n, iters, (unsigned long long)counter, sum);
    return 0;
}
