/* OpenMP (gcc -fopenmp) with N threads (argv[1], default 4): a parallel
 * loop writing a shared array (neighbouring elements by different threads),
 * a reduction, a critical section, atomics, and a second loop reading what
 * the other threads wrote.  The test sets OMP_WAIT_POLICY=passive (threads
 * sleep instead of spinning, which under Valgrind's one-thread-at-a-time
 * scheduling only burns instructions). */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static double a[N];
static uint32_t b[N];

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 4;
    if (nt < 1 || nt > 64) {
        fprintf(stderr, "mt_omp: 1..64 threads\n");
        return 2;
    }
    omp_set_num_threads(nt);
    uint64_t crit = 0, atom = 0;
    double sum = 0;
    int used = 0;
#pragma omp parallel
    {
#pragma omp single
        used = omp_get_num_threads();
#pragma omp for schedule(static, 1)
        for (int i = 0; i < N; i++) {
            a[i] = i * 0.5;
            b[i] = (uint32_t)(i * 3 + omp_get_thread_num() * 0);
#pragma omp atomic
            atom += (uint64_t)i;
        }
#pragma omp critical
        crit += (uint64_t)omp_get_thread_num() + 1;
#pragma omp for reduction(+ : sum) schedule(static, 7)
        for (int i = 0; i < N; i++)
            sum += a[N - 1 - i] + b[(i * 17) % N];
    }
    double want = 0;
    for (int i = 0; i < N; i++)
        want += i * 0.5 + i * 3;
    if (used != nt || sum != want || atom != (uint64_t)N * (N - 1) / 2 ||
        crit != (uint64_t)nt * (nt + 1) / 2) {
        fprintf(stderr, "mt_omp: wrong result (threads %d, sum %f want %f, atomic %llu, critical %llu)\n", used,
                sum, want, (unsigned long long)atom, (unsigned long long)crit);
        return 1;
    }
    printf("mt_omp %d: sum %.1f\n", used, sum);
    return 0;
}
