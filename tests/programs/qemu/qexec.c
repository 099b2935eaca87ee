/* execve for the QEMU frontend (tests/e2e/t_qemu.sh): a failed execve
 * (no such file: tracing goes on), then some work, then execve of
 * ARGV[1] with ARGV[2..] (under qemu-user the new image runs untraced: a
 * guest binary through binfmt_misc if the host has it registered, or a host
 * one such as /bin/true).  Prints a line before each. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static char *const none[] = {"nope", NULL};
    volatile unsigned long s = 0;
    printf("exec of a missing file: %d\n", execv("/nonexistent/prog", none) == -1);
    fflush(stdout);
    for (unsigned i = 0; i < 10000; i++)
        s += i * 7;
    printf("sum %lu\n", (unsigned long)s);
    fflush(stdout);
    if (argc > 1)
        execv(argv[1], argv + 1);
    return 1;
}
