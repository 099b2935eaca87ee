/* tm — the frontends' emitter, its knowledge of system calls (tm/capemit.h):
 * the generic system call table as x86-64's, what each call writes, and
 * /proc/self/maps lines.  Freestanding: no library calls. */
#include "capemit_int.h"



static unsigned generic_to_x86(unsigned no)
{
    switch (no) {
    case 17: return NR_getcwd;
    case 22: return NR_epoll_pwait;
    case 29: return NR_ioctl;
    case 43: return NR_statfs;
    case 44: return NR_fstatfs;
    case 59: return NR_pipe2;
    case 61: return NR_getdents64;
    case 63: return NR_read;
    case 65: return NR_readv;
    case 67: return NR_pread64;
    case 69: return NR_preadv;
    case 72: return NR_pselect6;
    case 73: return NR_ppoll;
    case 78: return NR_readlinkat;
    case 79: return NR_newfstatat;
    case 80: return NR_fstat;
    case 96: return NR_set_tid_address;
    case 98: return NR_futex;
    case 101: return NR_nanosleep;
    case 113: return NR_clock_gettime;
    case 114: return NR_clock_getres;
    case 115: return NR_clock_nanosleep;
    case 123: return NR_sched_getaffinity;
    case 132: return NR_sigaltstack;
    case 134: return NR_rt_sigaction;
    case 135: return NR_rt_sigprocmask;
    case 153: return NR_times;
    case 160: return NR_uname;
    case 163: return NR_getrlimit;
    case 165: return NR_getrusage;
    case 169: return NR_gettimeofday;
    case 179: return NR_sysinfo;
    case 199: return NR_socketpair;
    case 202: return NR_accept;
    case 204: return NR_getsockname;
    case 205: return NR_getpeername;
    case 207: return NR_recvfrom;
    case 209: return NR_getsockopt;
    case 212: return NR_recvmsg;
    case 214: return NR_brk;
    case 215: return NR_munmap;
    case 216: return NR_mremap;
    case 220: return NR_clone;
    case 221: return NR_execve;
    case 222: return NR_mmap;
    case 226: return NR_mprotect;
    case 233: return NR_madvise;
    case 242: return NR_accept4;
    case 260: return NR_wait4;
    case 261: return NR_prlimit64;
    case 278: return NR_getrandom;
    case 281: return NR_execveat;
    case 291: return NR_statx;
    default: return NR_none;
    }
}

/* System call NO of ISA with ARGS as x86-64's number and arguments (CA:
 * 6 words): the generic clone is clone(flags, sp, ptid, tls, ctid)
 * (CONFIG_CLONE_BACKWARDS), x86-64's clone(flags, sp, ptid, ctid, tls). */
unsigned tmcap_canon(int isa, unsigned no, const tmcap_word *args, tmcap_word *ca)
{
    for (unsigned i = 0; i < 6; i++)
        ca[i] = args[i];
    if (isa == TM_ISA_X86_64)
        return no;
    no = generic_to_x86(no);
    if (no == NR_clone) {
        ca[3] = args[4];
        ca[4] = args[3];
    }
    return no;
}

static unsigned add_range(tmcap_word *a, tmcap_word *len, unsigned n, unsigned max, tmcap_word at, tmcap_word l)
{
    if (at && l && n < max) {
        a[n] = at;
        len[n] = l;
        n++;
    }
    return n;
}

/* An iovec array at IOV (CNT entries): the first TOTAL bytes of its buffers. */
static unsigned add_iov(tmcap_word *a, tmcap_word *len, unsigned n, unsigned max, tmcap_word iov, tmcap_word cnt,
                        tmcap_word total, int (*read)(void *, void *, tmcap_word, unsigned long), void *ctx)
{
    for (tmcap_word i = 0; i < cnt && i < 1024 && total; i++) {
        tmcap_word e[2];
        if (!read(ctx, e, iov + 16 * i, 16))
            break;
        tmcap_word l = e[1] < total ? e[1] : total;
        n = add_range(a, len, n, max, e[0], l);
        total -= l;
    }
    return n;
}

/* A socket address the kernel wrote at ADDR, its length at LENP. */
static unsigned add_sockaddr(tmcap_word *a, tmcap_word *len, unsigned n, unsigned max, tmcap_word addr,
                             tmcap_word lenp, int (*read)(void *, void *, tmcap_word, unsigned long), void *ctx)
{
    unsigned l = 0;
    if (!addr || !lenp || !read(ctx, &l, lenp, 4))
        return n;
    n = add_range(a, len, n, max, lenp, 4);
    return add_range(a, len, n, max, addr, l > 128 ? 128 : l);
}

/* SYSCALL_WRITES with x86-64's numbers and arguments; GENERIC: the
 * structures' sizes of Linux's generic ABI (struct stat 128 bytes, struct
 * epoll_event 16). */
unsigned tmcap_syscall_writes_x86(int generic, unsigned no, const tmcap_word *args, tmcap_word res,
                               int (*read)(void *ctx, void *dst, tmcap_word a, unsigned long n), void *ctx,
                               tmcap_word *a, tmcap_word *len, unsigned max)
{
    unsigned n = 0;
    tmcap_word stat_size = generic ? 128 : 144, epoll_size = generic ? 16 : 12;
    long long r = (long long)res;
    switch (no) {
    case NR_read: case NR_pread64: case NR_getrandom:
        return r > 0 ? add_range(a, len, n, max, args[1], res) : 0;
    case NR_recvfrom:
        n = r > 0 ? add_range(a, len, n, max, args[1], res) : 0;
        return add_sockaddr(a, len, n, max, args[4], args[5], read, ctx);
    case NR_readv: case NR_preadv:
        return r > 0 ? add_iov(a, len, n, max, args[1], args[2], res, read, ctx) : 0;
    case NR_recvmsg: { /* struct msghdr: name, namelen, iov, iovlen, control, controllen, flags */
        tmcap_word h[7];
        if (!read(ctx, h, args[1], 56))
            return 0;
        if (r > 0)
            n = add_iov(a, len, n, max, h[2], h[3], res, read, ctx);
        n = add_range(a, len, n, max, h[0], h[1] & 0xffffffffu);
        n = add_range(a, len, n, max, h[4], h[5]);
        return add_range(a, len, n, max, args[1], 56); /* the lengths and flags it updates */
    }
    case NR_accept: case NR_accept4: case NR_getsockname: case NR_getpeername:
        return add_sockaddr(a, len, n, max, args[1], args[2], read, ctx);
    case NR_getsockopt: {
        unsigned l = 0;
        if (!args[4] || !read(ctx, &l, args[4], 4))
            return 0;
        n = add_range(a, len, n, max, args[4], 4);
        return add_range(a, len, n, max, args[3], l);
    }
    case NR_stat: case NR_fstat: case NR_lstat:
        return add_range(a, len, n, max, args[1], stat_size);
    case NR_newfstatat:
        return add_range(a, len, n, max, args[2], stat_size);
    case NR_statx:
        return add_range(a, len, n, max, args[4], 256);
    case NR_statfs: case NR_fstatfs:
        return add_range(a, len, n, max, args[1], 120);
    case NR_getdents: case NR_getdents64:
        return r > 0 ? add_range(a, len, n, max, args[1], res) : 0;
    case NR_getcwd:
        return r > 0 ? add_range(a, len, n, max, args[0], res) : 0;
    case NR_readlink:
        return r > 0 ? add_range(a, len, n, max, args[1], res) : 0;
    case NR_readlinkat:
        return r > 0 ? add_range(a, len, n, max, args[2], res) : 0;
    case NR_clock_gettime: case NR_clock_getres:
        return add_range(a, len, n, max, args[1], 16);
    case NR_gettimeofday:
        n = add_range(a, len, n, max, args[0], 16);
        return add_range(a, len, n, max, args[1], 8);
    case NR_time:
        return add_range(a, len, n, max, args[0], 8);
    case NR_uname:
        return add_range(a, len, n, max, args[0], 390);
    case NR_pipe: case NR_pipe2:
        return add_range(a, len, n, max, args[0], 8);
    case NR_socketpair:
        return add_range(a, len, n, max, args[3], 8);
    case NR_wait4:
        n = add_range(a, len, n, max, args[1], 4);
        return add_range(a, len, n, max, args[3], 144);
    case NR_getrusage:
        return add_range(a, len, n, max, args[1], 144);
    case NR_sysinfo:
        return add_range(a, len, n, max, args[0], 112);
    case NR_times:
        return add_range(a, len, n, max, args[0], 32);
    case NR_rt_sigaction:
        return add_range(a, len, n, max, args[2], 32);
    case NR_rt_sigprocmask:
        return add_range(a, len, n, max, args[2], args[3] <= 128 ? args[3] : 8);
    case NR_sigaltstack:
        return add_range(a, len, n, max, args[1], 24);
    case NR_getrlimit:
        return add_range(a, len, n, max, args[1], 16);
    case NR_prlimit64:
        return add_range(a, len, n, max, args[3], 16);
    case NR_sched_getaffinity:
        return r > 0 ? add_range(a, len, n, max, args[2], res) : 0;
    case NR_poll:
        return add_range(a, len, n, max, args[0], args[1] <= 65536 ? args[1] * 8 : 0);
    case NR_select: case NR_pselect6: {
        tmcap_word fs = args[0] <= 65536 ? (args[0] + 63) / 64 * 8 : 0;
        for (unsigned k = 1; k <= 3; k++)
            n = add_range(a, len, n, max, args[k], fs);
        return no == NR_select ? add_range(a, len, n, max, args[4], 16) : n;
    }
    case NR_epoll_wait: case NR_epoll_pwait:
        return r > 0 ? add_range(a, len, n, max, args[1], res * epoll_size) : 0;
    case NR_ioctl:
        switch (args[1]) {
        case 0x5401: /* TCGETS */
            return add_range(a, len, n, max, args[2], 36);
        case 0x5413: /* TIOCGWINSZ */
            return add_range(a, len, n, max, args[2], 8);
        case 0x541B: /* FIONREAD */
            return add_range(a, len, n, max, args[2], 4);
        default:
            return 0;
        }
    default:
        return 0;
    }
}

unsigned tmcap_syscall_writes(unsigned no, const tmcap_word *args, tmcap_word res,
                              int (*read)(void *ctx, void *dst, tmcap_word a, unsigned long n), void *ctx,
                              tmcap_word *a, tmcap_word *len, unsigned max)
{
    return tmcap_syscall_writes_x86(0, no, args, res, read, ctx, a, len, max);
}

unsigned tmcap_syscall_writes_isa(int isa, unsigned no, const tmcap_word *args, tmcap_word res,
                                  int (*read)(void *ctx, void *dst, tmcap_word a, unsigned long n), void *ctx,
                                  tmcap_word *a, tmcap_word *len, unsigned max)
{
    tmcap_word ca[6];
    unsigned cno = tmcap_canon(isa, no, args, ca);
    return tmcap_syscall_writes_x86(isa != TM_ISA_X86_64, cno, ca, res, read, ctx, a, len, max);
}

/* ------------------------------------------------------------ /proc/self/maps */

static int hexval(const char *s, unsigned n, unsigned *i, tmcap_word *v)
{
    unsigned k = *i;
    tmcap_word x = 0;
    for (; k < n; k++) {
        char c = s[k];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
        if (d == 16)
            break;
        x = x << 4 | d;
    }
    if (k == *i)
        return 0;
    *i = k;
    *v = x;
    return 1;
}

static void skip_field(const char *s, unsigned n, unsigned *i)
{
    while (*i < n && s[*i] != ' ')
        (*i)++;
    while (*i < n && s[*i] == ' ')
        (*i)++;
}

int tmcap_parse_maps_line(const char *s, unsigned n, tmcap_maps_line *m)
{
    unsigned i = 0;
    if (!hexval(s, n, &i, &m->lo) || i >= n || s[i++] != '-' || !hexval(s, n, &i, &m->hi) || i >= n ||
        s[i++] != ' ' || m->hi <= m->lo || i + 4 > n)
        return 0;
    m->perms = (s[i] == 'r' ? 1u : 0) | (s[i + 1] == 'w' ? 2u : 0) | (s[i + 2] == 'x' ? 4u : 0);
    i += 4;
    if (i >= n || s[i++] != ' ' || !hexval(s, n, &i, &m->off))
        return 0;
    while (i < n && s[i] == ' ')
        i++;
    skip_field(s, n, &i); /* device */
    skip_field(s, n, &i); /* inode */
    m->path = s + i;
    m->pathlen = n - i;
    return 1;
}
