/* N threads (argv[1], default 4) each sum and update their own part of a
 * shared array ROUNDS times (argv[2], default 2000), then add to a counter
 * under a mutex: a load-heavy program for the QEMU frontend's speed
 * (tests/e2e/t_qemu.sh, docs/qemu.md).  Prints the total. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
static unsigned a[16][N];
static unsigned long total;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int rounds = 2000;

static void *work(void *arg)
{
    unsigned t = (unsigned)(unsigned long)arg, *p = a[t];
    unsigned long s = 0;
    for (int r = 0; r < rounds; r++)
        for (unsigned i = 0; i < N; i++) {
            s += p[i];
            p[i] = (unsigned)(s ^ (i * 2654435761u)) >> (r & 7);
        }
    pthread_mutex_lock(&mu);
    total += s;
    pthread_mutex_unlock(&mu);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 2)
        rounds = atoi(argv[2]);
    if (n < 1 || n > 16)
        return 2;
    pthread_t th[16];
    for (int i = 0; i < n; i++)
        pthread_create(&th[i], NULL, work, (void *)(unsigned long)i);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    printf("total %lu\n", total);
    return 0;
}
