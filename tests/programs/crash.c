/* Bad endings for tm record: `crash segv` takes an unhandled SIGSEGV,
 * `crash kill` sends itself SIGKILL, `crash exit N` exits with status N;
 * each after some work (a loop with loads and stores) and a line on stdout. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile uint64_t arr[1024];

int main(int argc, char **argv)
{
    for (int r = 0; r < 50; r++)
        for (int i = 0; i < 1024; i++)
            arr[i] += (uint64_t)(i * r) ^ arr[(i * 7) % 1024];
    printf("crash: %s\n", argc > 1 ? argv[1] : "exit");
    fflush(stdout);
    if (argc > 1 && !strcmp(argv[1], "segv")) {
        volatile int *p = (volatile int *)8;
        return *p;
    }
    if (argc > 1 && !strcmp(argv[1], "kill")) {
        kill(getpid(), SIGKILL);
        pause();
    }
    return argc > 2 ? atoi(argv[2]) : 0;
}
