/* N pthreads workers (argv[1], default 4) and main share data: each worker
 * writes its own elements of arrays interleaved with the other workers'
 * (the same cache lines), adds to a counter under a mutex and to another
 * with atomics, waits at a barrier, then reads everything the others wrote.
 * Main checks the sums and prints them.  For tm record --threads N+1 and
 * tm decode --verify, with and without --cfiat (stores of one core
 * invalidate the lines in the other cores' caches).
 *
 * Main does not pthread_join the workers by default: the exit of a thread
 * clears its tid in memory (CLONE_CHILD_CLEARTID), a write tm record does
 * not trace yet, so a join that read the tid before is replayed wrong under
 * --cfiat.  The workers report through a second barrier and wait in
 * pause() until the program exits.  `mt_pthread N join` joins them
 * (t_record_regress.sh). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define K 64
#define MAXT 64

static int nthreads;
static volatile uint32_t shared[K * MAXT];   /* element i*N + t belongs to worker t */
static volatile uint64_t wide[K * MAXT];
static uint64_t locked_sum;
static uint64_t atomic_sum;
static uint64_t seen[MAXT];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier, done;
static int join;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < K; i++) {
        shared[i * nthreads + t] = (uint32_t)(t * 1000 + i);
        wide[i * nthreads + t] = (uint64_t)t << 32 | (uint64_t)i;
        __atomic_fetch_add(&atomic_sum, (uint64_t)i, __ATOMIC_RELAXED);
        if (i % 8 == 0) {
            pthread_mutex_lock(&lock);
            locked_sum += (uint64_t)t + 1;
            pthread_mutex_unlock(&lock);
        }
    }
    pthread_barrier_wait(&barrier);
    uint64_t s = 0;
    for (int i = 0; i < K * nthreads; i++)
        s += shared[i] + (wide[i] & 0xffff);
    seen[t] = s;
    if (!join) {
        pthread_barrier_wait(&done);
        for (;;)
            pause();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atoi(argv[1]) : 4;
    if (nthreads < 1 || nthreads > MAXT) {
        fprintf(stderr, "mt_pthread: 1..%d threads\n", MAXT);
        return 2;
    }
    pthread_t th[MAXT];
    join = argc > 2 && !strcmp(argv[2], "join");
    pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
    pthread_barrier_init(&done, NULL, (unsigned)nthreads + 1);
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t)) {
            perror("pthread_create");
            return 1;
        }
    if (join)
        for (int t = 0; t < nthreads; t++)
            pthread_join(th[t], NULL);
    else
        pthread_barrier_wait(&done);
    uint64_t want = 0;
    for (int t = 0; t < nthreads; t++)
        for (int i = 0; i < K; i++)
            want += (uint64_t)(t * 1000 + i) + (uint64_t)i;
    for (int t = 0; t < nthreads; t++)
        if (seen[t] != want) {
            fprintf(stderr, "mt_pthread: worker %d saw %llu, not %llu\n", t, (unsigned long long)seen[t],
                    (unsigned long long)want);
            return 1;
        }
    printf("mt_pthread %d: sum %llu locked %llu atomic %llu\n", nthreads, (unsigned long long)want,
           (unsigned long long)locked_sum, (unsigned long long)atomic_sum);
    return 0;
}
