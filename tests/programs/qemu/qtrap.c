/* Traps for the QEMU frontend (tests/e2e/t_qemu_record.sh): three
 * __builtin_trap()s (AArch64 BRK: SIGTRAP; RISC-V EBREAK or UNIMP: SIGTRAP
 * or SIGILL), each caught by a handler that siglongjmps back.  The trapping
 * instruction does not retire: the commit stream has an exception at it,
 * which the replay from the binaries reconstructs.  Prints "traps 3". */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

static sigjmp_buf env;
static volatile sig_atomic_t n;

static void on_trap(int s)
{
    (void)s;
    n++;
    siglongjmp(env, 1);
}

int main(void)
{
    signal(SIGTRAP, on_trap);
    signal(SIGILL, on_trap);
    for (volatile int i = 0; i < 3; i++)
        if (!sigsetjmp(env, 1))
            __builtin_trap();
    printf("traps %d\n", (int)n);
    return n == 3 ? 0 : 1;
}
