/* Signals for the QEMU frontend (tests/e2e/t_qemu.sh), portable C (AArch64,
 * RISC-V):
 * - raise(SIGUSR1): a handler that stores to a global;
 * - a SIGSEGV (a load from address 16) whose handler siglongjmps back,
 *   three times;
 * - a worker thread waiting in sigsuspend is sent SIGUSR2 with
 *   pthread_kill; its handler stores to a global.
 * Prints what happened; exit status 0 iff everything did. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t usr1, usr2, segv, ready;
static sigjmp_buf env;
static volatile uint64_t sink;

static void on_usr1(int s) { (void)s; usr1++; }
static void on_usr2(int s) { (void)s; usr2++; }
static void on_segv(int s) { (void)s; segv++; siglongjmp(env, 1); }

static void *worker(void *arg)
{
    (void)arg;
    sigset_t none;
    sigemptyset(&none);
    ready = 1;
    while (!usr2)
        sigsuspend(&none);
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_usr2;
    sigaction(SIGUSR2, &sa, NULL);
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    for (int i = 0; i < 5; i++)
        raise(SIGUSR1);
    for (volatile int i = 0; i < 3; i++) {
        if (!sigsetjmp(env, 1)) {
            volatile uint64_t *bad = (volatile uint64_t *)(uintptr_t)16;
            sink += *bad;
        }
    }
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &block, NULL); /* the worker inherits it: delivered in sigsuspend */
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    while (!ready)
        sched_yield();
    pthread_kill(t, SIGUSR2);
    pthread_join(t, NULL);
    printf("usr1 %d segv %d usr2 %d\n", (int)usr1, (int)segv, (int)usr2);
    return usr1 == 5 && segv == 3 && usr2 == 1 ? 0 : 1;
}
