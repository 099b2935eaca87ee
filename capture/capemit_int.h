/* tm — the frontends' emitter (capture/capemit.c, capture/capsys.c): what
 * its two files share.  Freestanding (no libc): the frontends' tools
 * include it. */
#ifndef TM_CAPEMIT_INT_H
#define TM_CAPEMIT_INT_H

#include "tm/capemit.h"

/* x86-64 system call numbers used here */
enum {
    NR_read = 0, NR_stat = 4, NR_fstat = 5, NR_lstat = 6, NR_poll = 7, NR_mmap = 9, NR_mprotect = 10,
    NR_munmap = 11, NR_brk = 12, NR_rt_sigaction = 13, NR_rt_sigprocmask = 14, NR_ioctl = 16, NR_pread64 = 17,
    NR_readv = 19, NR_pipe = 22, NR_select = 23, NR_mremap = 25, NR_madvise = 28, NR_recvfrom = 45,
    NR_recvmsg = 47, NR_getsockname = 51, NR_getpeername = 52, NR_socketpair = 53, NR_getsockopt = 55,
    NR_clone = 56, NR_execve = 59, NR_wait4 = 61, NR_uname = 63, NR_getdents = 78, NR_getcwd = 79,
    NR_readlink = 89, NR_gettimeofday = 96, NR_getrlimit = 97, NR_getrusage = 98, NR_sysinfo = 99,
    NR_times = 100, NR_sigaltstack = 131, NR_statfs = 137, NR_fstatfs = 138, NR_time = 201,
    NR_sched_getaffinity = 204, NR_getdents64 = 217, NR_set_tid_address = 218, NR_clock_gettime = 228,
    NR_clock_getres = 229, NR_epoll_wait = 232, NR_newfstatat = 262, NR_readlinkat = 267, NR_pselect6 = 270,
    NR_epoll_pwait = 281, NR_accept = 43, NR_accept4 = 288, NR_pipe2 = 293, NR_preadv = 295,
    NR_prlimit64 = 302, NR_getrandom = 318, NR_execveat = 322, NR_statx = 332, NR_futex = 202,
    NR_nanosleep = 35, NR_clock_nanosleep = 230, NR_ppoll = 271
};

/* Linux's generic system call numbers (asm-generic/unistd.h), which
 * AArch64 and RISC-V (RV64) use, as their x86-64 counterparts above (the
 * emitter works in x86-64 numbers); NR_none for the ones it has no use for. */
enum { NR_none = 0xffff };

/* System call NO of ISA with ARGS as x86-64's number and arguments (CA: 6
 * words). */
unsigned tmcap_canon(int isa, unsigned no, const tmcap_word *args, tmcap_word *ca);
/* tmcap_syscall_writes with x86-64's numbers and arguments; GENERIC: the
 * structures' sizes of Linux's generic ABI. */
unsigned tmcap_syscall_writes_x86(int generic, unsigned no, const tmcap_word *args, tmcap_word res,
                                  int (*read)(void *ctx, void *dst, tmcap_word a, unsigned long n), void *ctx,
                                  tmcap_word *a, tmcap_word *len, unsigned max);

#endif
