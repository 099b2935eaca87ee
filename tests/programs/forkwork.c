/* Forks children that run while the parent runs (tests/e2e/
 * t_record_regress.sh case 13).  Under tm record only the parent is
 * traced; a forked child's tool must not write into the shared memory
 * slots the parent's stream goes through (docs/capture.md §1, §7).
 *
 *   forkwork [CHILDREN [ROUNDS]]   (defaults 3 and 20000)
 *
 * Each child and the parent update an array ROUNDS times; the parent
 * waits for the children and prints its own checksum and theirs (exit
 * statuses), the same in every run. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned acc[512];

static unsigned work(unsigned seed, int rounds)
{
    unsigned h = seed;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < 64; i++) {
            unsigned k = (h + (unsigned)i * 7u) & 511u;
            acc[k] = acc[k] * 33u + h;
            h = h * 2654435761u + acc[k];
        }
    return h;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3, rounds = argc > 2 ? atoi(argv[2]) : 20000;
    if (n < 0 || n > 64 || rounds < 0) {
        fprintf(stderr, "usage: forkwork [CHILDREN (0..64) [ROUNDS]]\n");
        return 2;
    }
    pid_t pid[64];
    for (int c = 0; c < n; c++) {
        fflush(stdout);
        pid[c] = fork();
        if (pid[c] < 0) {
            perror("fork");
            return 1;
        }
        if (pid[c] == 0)
            _exit((int)(work(100u + (unsigned)c, rounds) & 0x7f));
    }
    unsigned mine = work(1, rounds);
    printf("parent %08x\n", mine);
    for (int c = 0; c < n; c++) {
        int st = 0;
        if (waitpid(pid[c], &st, 0) != pid[c] || !WIFEXITED(st)) {
            fprintf(stderr, "forkwork: child %d did not exit normally\n", c);
            return 1;
        }
        printf("child %d %02x\n", c, WEXITSTATUS(st));
    }
    return 0;
}
