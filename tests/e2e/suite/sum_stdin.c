/* A suite-style test program for tm study (tests/e2e/t_study_suite.sh): reads
 * integers from standard input (`./sum_stdin N < numbers`), sums them with N
 * threads, prints the sum and "TEST PASSED" as benchmark suites do. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long vals[100000];
static int nvals, nthreads;
static long part[64];

static void *work(void *arg)
{
    long t = (long)arg, s = 0;
    for (int i = (int)t; i < nvals; i += nthreads)
        s += vals[i] % 7 == 0 ? vals[i] * 3 : vals[i];
    part[t] = s;
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atoi(argv[1]) : 1;
    if (nthreads < 1 || nthreads > 64)
        return 2;
    while (nvals < 100000 && scanf("%ld", &vals[nvals]) == 1)
        nvals++;
    pthread_t th[64];
    for (long t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, work, (void *)t);
    long s = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        s += part[t];
    }
    printf("read %d numbers, sum %ld\nTEST PASSED\n", nvals, s);
    return 0;
}
