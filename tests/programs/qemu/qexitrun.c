/* 4 threads (argv[1], default 4) compute with loads and stores on a shared
 * array and never stop; main calls exit() after a few milliseconds
 * (argv[2], default 5) while they run: QEMU's exit_group then waits for
 * every vCPU to leave cpu_exec (docs/qemu.md §3; tests/e2e/t_qemu_stress.sh).
 * With argv[3] = "segv" main dies by SIGSEGV instead. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 512
static volatile unsigned a[16][N];
static volatile unsigned shared[64];

static void *work(void *arg)
{
    unsigned t = (unsigned)(unsigned long)arg;
    unsigned long s = t;
    for (unsigned r = 0;; r++)
        for (unsigned i = 0; i < N; i++) {
            s += a[t][i] + shared[(i + r) & 63];
            a[t][i] = (unsigned)(s ^ (i * 2654435761u)) >> (r & 7);
            if ((i & 31) == 0)
                shared[(i + t) & 63] = (unsigned)s;
        }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4, ms = argc > 2 ? atoi(argv[2]) : 5;
    int segv = argc > 3 && !strcmp(argv[3], "segv");
    if (n < 1 || n > 16)
        return 2;
    pthread_t th;
    for (int i = 0; i < n; i++)
        pthread_create(&th, NULL, work, (void *)(unsigned long)i);
    struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
    printf("exit\n");
    fflush(stdout);
    if (segv)
        *(volatile int *)(unsigned long)argc = 1; /* SIGSEGV while the threads run */
    exit(0);
}
