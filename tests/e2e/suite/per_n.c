/* A suite-style test program for tm study: its input file depends on the
 * thread count (written per N by the study's setup command from a template:
 * "threads T" and "work W per thread"); it refuses an input made for another
 * N, and each of its N threads does W units of work (so its instructions grow
 * with N). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long work_per_thread;
static unsigned long out[64];

static void *work(void *arg)
{
    long t = (long)arg;
    unsigned long h = 1469598103934665603UL ^ (unsigned long)t;
    for (long i = 0; i < work_per_thread; i++)
        h = (h ^ (unsigned long)(i & 0xff)) * 1099511628211UL;
    out[t] = h;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    long n = atol(argv[1]), t = 0;
    FILE *f = fopen(argv[2], "r");
    if (!f || fscanf(f, "threads %ld work %ld", &t, &work_per_thread) != 2) {
        fprintf(stderr, "%s: not an input file\n", argv[2]);
        return 1;
    }
    fclose(f);
    if (t != n || n < 1 || n > 64) {
        fprintf(stderr, "%s: made for %ld threads, not %ld\n", argv[2], t, n);
        return 1;
    }
    pthread_t th[64];
    for (long i = 0; i < n; i++)
        pthread_create(&th[i], NULL, work, (void *)i);
    unsigned long h = 0;
    for (long i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        h += out[i];
    }
    printf("threads %ld: %lx\nTEST PASSED\n", n, h);
    return 0;
}
