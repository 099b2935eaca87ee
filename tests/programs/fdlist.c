/* What a traced program sees of its descriptors (tests/e2e/t_faults.sh,
 * issue 15 case 3): one line per open descriptor below its descriptor
 * limit, "FD TARGET" (the /proc/self/fd link); then a line with how many
 * descriptors at or above the limit (Valgrind's own, when traced) exist
 * and how many of those the program could write (a write of 0 bytes
 * succeeds; Valgrind refuses its own with EBADF).
 * Run natively and under tm record, the first part must be the same and
 * no descriptor at or above the limit may be usable.
 * With argument "close": first closes every descriptor from 3 up (as a
 * daemon or a careful shell does), then runs a loop, then lists. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "close")) {
        /* close_range(3, ~0U, 0), then a close() of every number as well */
        syscall(SYS_close_range, 3u, ~0u, 0u);
        for (int fd = 3; fd < 65536; fd++)
            close(fd);
        for (unsigned long i = 0; i < 200000; i++)
            sink += i * i;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl))
        return 2;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 2;
    int self = dirfd(d);
    long above = 0, usable = 0;
    struct dirent *e;
    int fds[4096], n = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        long fd = strtol(e->d_name, NULL, 10);
        if (fd == self)
            continue;
        if ((rlim_t)fd >= rl.rlim_cur) {
            above++;
            if (write((int)fd, "", 0) == 0)
                usable++;
        } else if (n < 4096) {
            fds[n++] = (int)fd;
        }
    }
    closedir(d);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (fds[j] < fds[i]) {
                int t = fds[i];
                fds[i] = fds[j];
                fds[j] = t;
            }
    for (int i = 0; i < n; i++) {
        char p[64], t[PATH_MAX];
        snprintf(p, sizeof p, "/proc/self/fd/%d", fds[i]);
        ssize_t k = readlink(p, t, sizeof t - 1);
        t[k > 0 ? k : 0] = 0;
        printf("%d %s\n", fds[i], t);
    }
    printf("above the limit: %ld, usable: %ld\n", above, usable);
    return 0;
}
