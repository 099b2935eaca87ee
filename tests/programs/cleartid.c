/* cleartid: threads made with clone(CLONE_PARENT_SETTID |
 * CLONE_CHILD_CLEARTID) on one word, one after another; each ends at once,
 * and the parent waits for it by loading the word in a loop (no system
 * call) until the kernel has zeroed it.  The kernel writes the word twice
 * per thread, at moments no Valgrind callback tells: the id during clone
 * (the parent may load it before the child first runs) and the zero after
 * the thread has ended (the parent may load the old id after the tool saw
 * the end).  tests/e2e/t_record_regress.sh case 11.
 *
 *   cleartid [N]   N threads (default 20) */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static int child(void *arg)
{
    (void)arg;
    return 0; /* glibc's clone wrapper ends the thread (exit, not exit_group) */
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    size_t ssz = 64 * 1024;
    char *stack = mmap(NULL, ssz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED)
        return 1;
    static volatile pid_t word; /* the child's id, then 0 when it has ended */
    for (int i = 0; i < n; i++) {
        int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                    CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
        if (clone(child, stack + ssz, flags, NULL, (pid_t *)&word, NULL, (pid_t *)&word) < 0)
            return 1;
        while (word != 0)
            ;
    }
    printf("%d threads joined\n", n);
    return 0;
}
