/* Signals taken in handlers, with and without threads:
 * - raise(SIGUSR1): a handler that stores to a global;
 * - a timer (setitimer, 1 ms) firing SIGALRM while the program computes;
 * - a SIGSEGV (a load from address 16) whose handler siglongjmps back;
 * - a SIGSEGV whose handler fixes the faulting load up (skips its 2 bytes
 *   by moving the saved rip) and returns;
 * - a worker thread sent SIGUSR2 with pthread_kill, handled in the worker
 *   (on an alternate signal stack).
 * Prints what happened; exit status 0 iff everything did. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

static volatile sig_atomic_t usr1, alrm, usr2, segv_jmp, segv_fix;
static sigjmp_buf env;
static volatile int fix_mode;
static volatile uint64_t sink;

static void on_usr1(int s) { (void)s; usr1++; }
static void on_alrm(int s) { (void)s; alrm++; }
static void on_usr2(int s) { (void)s; usr2++; }

static void on_segv(int s, siginfo_t *si, void *uc)
{
    (void)s; (void)si;
    if (fix_mode) {
        ucontext_t *u = uc;
        u->uc_mcontext.gregs[REG_RIP] += 2; /* movl (%rax), %eax */
        segv_fix++;
        return;
    }
    segv_jmp++;
    siglongjmp(env, 1);
}

static void *worker(void *arg)
{
    (void)arg;
    stack_t ss;
    ss.ss_sp = malloc(1 << 16);
    ss.ss_size = 1 << 16;
    ss.ss_flags = 0;
    sigaltstack(&ss, NULL);
    while (!usr2)
        sink++;
    return NULL;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_alrm;
    sigaction(SIGALRM, &sa, NULL);
    sa.sa_handler = on_usr2;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &sa, NULL);
    sa.sa_flags = SA_SIGINFO;
    sa.sa_sigaction = on_segv;
    sigaction(SIGSEGV, &sa, NULL);

    raise(SIGUSR1);
    raise(SIGUSR1);

    struct itimerval it = {{0, 0}, {0, 1000}};
    setitimer(ITIMER_REAL, &it, NULL);
    while (!alrm)
        sink += sink * 3 + 1;

    if (sigsetjmp(env, 1) == 0) {
        volatile int *bad = (volatile int *)16;
        sink += (uint64_t)*bad; /* SIGSEGV: the handler jumps back */
    }

    fix_mode = 1;
    uint32_t v = 7;
    __asm__ volatile("movl (%%rax), %%eax" : "=a"(v) : "a"((uintptr_t)16) : "memory");
    (void)v;

    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    usleep(1000);
    pthread_kill(th, SIGUSR2);
    pthread_join(th, NULL);

    printf("signals: usr1 %d alrm %d segv longjmp %d segv fixed %d usr2 %d\n", (int)usr1, (int)alrm,
           (int)segv_jmp, (int)segv_fix, (int)usr2);
    return usr1 == 2 && alrm == 1 && segv_jmp == 1 && segv_fix == 1 && usr2 == 1 ? 0 : 1;
}
