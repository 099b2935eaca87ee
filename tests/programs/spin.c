/* A loop of argv[1] rounds (default 100) of work(): loads and stores of
 * doubles, then printf (libc).  For the tracing window tests of
 * t_record.sh (-s, -l, -f, --no-shared-libs, --filter-rtn work), a run
 * long enough to be killed mid-way, and a trace large enough to fill a
 * disk quota. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double acc[256];

__attribute__((noinline)) void work(int r)
{
    for (int i = 0; i < 256; i++)
        acc[i] = acc[i] * 0.5 + sqrt((double)(i + r)) + (i & 1 ? 1.0 : -1.0);
}

/* Never called: `jmp .`, the code of tests/e2e/t_faults.sh's trace whose
 * replay would never reach its next message (issue 15 case 8). */
__attribute__((noinline, used)) void forever(void)
{
    for (;;)
        __asm__ volatile("");
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 100;
    for (int r = 0; r < rounds; r++)
        work(r);
    double s = 0;
    for (int i = 0; i < 256; i++)
        s += acc[i];
    printf("spin %d: %.6f\n", rounds, s);
    return 0;
}
