/* A suite-style test program for tm study: opens its parameters by a path
 * relative to its working directory (params/iters), as suite programs open
 * their inputs, and runs that many iterations split over N threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long iters, nthreads;
static unsigned long acc[64];

static void *work(void *arg)
{
    long t = (long)arg;
    unsigned long x = (unsigned long)t + 1;
    for (long i = t; i < iters; i += nthreads)
        x = x * 6364136223846793005UL + (x >> 7 & 1 ? 1442695040888963407UL : (unsigned long)i);
    acc[t] = x;
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atol(argv[1]) : 1;
    FILE *f = fopen("params/iters", "r");
    if (!f) {
        perror("params/iters");
        return 1;
    }
    if (fscanf(f, "%ld", &iters) != 1 || nthreads < 1 || nthreads > 64)
        return 2;
    fclose(f);
    pthread_t th[64];
    for (long t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, work, (void *)t);
    unsigned long x = 0;
    for (long t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        x ^= acc[t];
    }
    printf("%ld iterations: %lx\nTEST PASSED\n", iters, x);
    return 0;
}
