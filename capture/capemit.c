/* tm — the frontends' emitter (include/tm/capemit.h, docs/capture.md §1–4,
 * docs/pin.md): what the Valgrind tool (vg-frontend/) and the Pin tool
 * (pin-frontend/) emit, and when.  Freestanding: no includes but the
 * header, no library calls (the Valgrind tool is linked without libc); the
 * platform's services come through tmcap_platform. */
#include "tm/capemit.h"

#define PIPE_BUF_WORDS (1u << 16)
#define BUF_MARGIN 64u /* room for the largest event a helper writes */
#define MAX_TIDS 1024
#define MAX_WATCH 1024
#define MAX_HOLES 4096

struct tmcap_em {
    tmcap_platform p;
    int out_fd, ack_fd;
    int mem, store_values, sysc;
    int fork_child;       /* this process is a fork of the traced one */
    int ended;            /* END is out: nothing follows it */
    tmcap_word *buf, *shm;
    unsigned pos, buf_words, buf_limit; /* a helper flushes past buf_limit */
    unsigned shm_slots, shm_cur, shm_inflight;
    unsigned cur_tid;
    /* Words the kernel writes on its own (see watch below). */
    tmcap_word clear_tid[MAX_TIDS]; /* per thread: its CLEARTID word */
    tmcap_word pending_clear_tid;   /* of the clone in progress */
    tmcap_word clone_ptid[MAX_TIDS], clone_ctid[MAX_TIDS]; /* per parent, during clone */
    tmcap_word watch_a[MAX_WATCH];
    unsigned watch_v[MAX_WATCH];       /* contents last reported */
    unsigned char watch_end[MAX_WATCH]; /* done once it reads zero (CLEARTID); else once changed */
    unsigned nwatch;
    /* Address ranges that were unmapped (merged, sorted [lo, hi)). */
    tmcap_word hole_lo[MAX_HOLES], hole_hi[MAX_HOLES];
    unsigned nholes;
    tmcap_word brk; /* sys_from_syscalls: the program break (0: not known yet) */
    int isa;        /* TM_ISA_*: the system call numbers' table */
};

static void copy_bytes(void *dst, const void *src, unsigned long n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
}

static void move_words(tmcap_word *dst, const tmcap_word *src, unsigned n)
{
    if (dst < src) {
        for (unsigned i = 0; i < n; i++)
            dst[i] = src[i];
    } else {
        while (n--)
            dst[n] = src[n];
    }
}

/* ------------------------------------------------------------ output */

static void stop_tracing(tmcap_em *em, const char *what)
{
    if (em->p.message)
        em->p.message(em->p.ctx, what);
    em->out_fd = -1;
}

void tmcap_em_flush(tmcap_em *em)
{
    if (em->shm) {
        tmcap_word len = (tmcap_word)em->pos * 8;
        em->pos = 0;
        if (em->out_fd < 0 || !len)
            return;
        if (em->p.write(em->p.ctx, em->out_fd, &len, 8) != 8) {
            stop_tracing(em, "write to tm record failed; tracing stops");
            return;
        }
        em->shm_inflight++;
        em->shm_cur = (em->shm_cur + 1) % em->shm_slots;
        em->buf = em->shm + (unsigned long)em->shm_cur * em->buf_words;
        while (em->shm_inflight >= em->shm_slots && em->out_fd >= 0) { /* wait for a free slot */
            unsigned char acks[64];
            long n = em->p.read(em->p.ctx, em->ack_fd, acks, em->shm_inflight < 64 ? em->shm_inflight : 64);
            if (n <= 0)
                stop_tracing(em, "tm record is gone; tracing stops");
            else
                em->shm_inflight -= (unsigned)n;
        }
        return;
    }
    const char *p = (const char *)em->buf;
    long left = (long)em->pos * 8;
    while (left > 0 && em->out_fd >= 0) {
        long n = em->p.write(em->p.ctx, em->out_fd, p, (unsigned long)left);
        if (n <= 0) {
            stop_tracing(em, "write to tm record failed; tracing stops");
            break;
        }
        p += n;
        left -= n;
    }
    em->pos = 0;
}

static inline void put(tmcap_em *em, tmcap_word w)
{
    em->buf[em->pos++] = w;
}

static inline void room(tmcap_em *em, unsigned words)
{
    if (em->pos + words > em->buf_words)
        tmcap_em_flush(em);
}

/* N bytes from SRC (the tool's memory), or with FROM_PROGRAM the program's
 * memory at address SRC: words, the last one zero-padded. */
static void put_bytes(tmcap_em *em, const void *src, tmcap_word a, unsigned long n, int from_program)
{
    const unsigned char *s = src;
    while (n) {
        tmcap_word w = 0;
        unsigned k = n < 8 ? (unsigned)n : 8;
        if (from_program)
            em->p.copy(em->p.ctx, &w, a, k);
        else
            copy_bytes(&w, s, k);
        room(em, 1);
        put(em, w);
        s += k;
        a += k;
        n -= k;
    }
}

static void switch_to(tmcap_em *em, unsigned tid)
{
    if (tid != em->cur_tid) {
        room(em, 1);
        put(em, tmcap_thread(tid));
        em->cur_tid = tid;
    }
}

tmcap_em *tmcap_em_new(const tmcap_platform *p, const tmcap_em_cfg *cfg)
{
    return tmcap_em_new_isa(p, cfg, TM_ISA_X86_64);
}

tmcap_em *tmcap_em_new_isa(const tmcap_platform *p, const tmcap_em_cfg *cfg, int isa)
{
    tmcap_em *em = p->alloc(p->ctx, sizeof *em);
    if (!em)
        return 0;
    unsigned char *z = (unsigned char *)em;
    for (unsigned long i = 0; i < sizeof *em; i++)
        z[i] = 0;
    em->p = *p;
    em->out_fd = cfg->fd;
    em->ack_fd = -1;
    em->mem = cfg->mem;
    em->store_values = cfg->store_values;
    em->sysc = cfg->sys_from_syscalls;
    em->isa = isa;
    if (cfg->shm) {
        em->shm = cfg->shm;
        em->ack_fd = cfg->ack_fd;
        em->shm_slots = cfg->slots;
        em->buf_words = (unsigned)(cfg->slot_bytes / 8);
        em->buf = em->shm;
    } else {
        em->buf_words = PIPE_BUF_WORDS;
        em->buf = p->alloc(p->ctx, PIPE_BUF_WORDS * sizeof(tmcap_word));
        if (!em->buf)
            return 0;
    }
    em->buf_limit = em->buf_words - BUF_MARGIN;
    put(em, TMCAP_MAGIC);
    if (em->isa != TM_ISA_X86_64)
        put(em, TMCAP_ISA | (tmcap_word)(em->isa & 0xff) << 8);
    return em;
}

int tmcap_em_open(const tmcap_em *em) { return em->out_fd >= 0; }

/* ------------------------------------------------------------ blocks */

void tmcap_em_block(tmcap_em *em, tmcap_word id, const tmcap_word *ia, const unsigned *il, unsigned ni,
                    const tmcap_exit *xs, unsigned nx)
{
    room(em, tmcap_block_words(ni, nx));
    tmcap_block(em->buf + em->pos, id, ia, il, ni, xs, nx);
    em->pos += tmcap_block_words(ni, nx);
}

void tmcap_em_exec(tmcap_em *em, tmcap_word w0)
{
    em->buf[em->pos++] = w0;
    if (em->pos > em->buf_limit)
        tmcap_em_flush(em);
}

void tmcap_em_exec_dyn(tmcap_em *em, tmcap_word w0, tmcap_word target)
{
    em->buf[em->pos] = w0;
    em->buf[em->pos + 1] = target;
    em->pos += 2;
    if (em->pos > em->buf_limit)
        tmcap_em_flush(em);
}

/* ------------------------------------------------------------ watched words
 *
 * Words the kernel writes on its own, at a moment no callback tells: the
 * thread id that clone(CLONE_PARENT_SETTID, CLONE_CHILD_SETTID) stores
 * (Valgrind reports it when the parent's system call returns, which may be
 * after the child ran, and not before the parent's next load), and the
 * zero that CLONE_CHILD_CLEARTID / set_tid_address stores when a thread
 * has ended (after the platform has let the thread go: pthread_join waits
 * on it, and may load the old id after the thread's end).  Such a word is
 * watched from the clone (or the thread's end) until it has changed: when
 * a thread resumes, and before a memory operand on it, its contents are
 * compared with what was last reported, and a change is reported as a
 * write by the system of the running thread (docs/capture.md §4). */

static unsigned read32(tmcap_em *em, tmcap_word a)
{
    unsigned v = 0;
    em->p.copy(em->p.ctx, &v, a, 4);
    return v;
}

static void watch(tmcap_em *em, tmcap_word a, int end)
{
    if (!em->mem || !a || !em->p.readable(em->p.ctx, a, 4))
        return;
    for (unsigned i = 0; i < em->nwatch; i++)
        if (em->watch_a[i] == a) { /* already watched: what it waits for now */
            em->watch_end[i] = (unsigned char)end;
            return;
        }
    if (em->nwatch == MAX_WATCH)
        return;
    em->watch_a[em->nwatch] = a;
    em->watch_v[em->nwatch] = read32(em, a);
    em->watch_end[em->nwatch] = (unsigned char)end;
    em->nwatch++;
}

static void unwatch(tmcap_em *em, unsigned i)
{
    em->nwatch--;
    em->watch_a[i] = em->watch_a[em->nwatch];
    em->watch_v[i] = em->watch_v[em->nwatch];
    em->watch_end[i] = em->watch_end[em->nwatch];
}

/* Stops watching the words at A .. A + LEN - 1 (unmapped, or a clone that
 * failed). */
static void unwatch_range(tmcap_em *em, tmcap_word a, tmcap_word len)
{
    for (unsigned i = 0; i < em->nwatch;) {
        if (em->watch_a[i] >= a && em->watch_a[i] - a < len)
            unwatch(em, i);
        else
            i++;
    }
}

/* Watched word I, whose contents are V: reported by TID (0: the running
 * thread) if it changed (a write by the system of V itself: the kernel may
 * write again while this runs); 1 if it is done. */
static int watch_check_v(tmcap_em *em, unsigned tid, unsigned i, unsigned v)
{
    if (v == em->watch_v[i])
        return 0;
    if (tid)
        switch_to(em, tid);
    room(em, 3);
    em->buf[em->pos] = tmcap_sys_mem(4);
    em->buf[em->pos + 1] = em->watch_a[i];
    em->buf[em->pos + 2] = v;
    em->pos += 3;
    em->watch_v[i] = v;
    return !em->watch_end[i] || v == 0;
}

/* Before a memory operand at A (SIZE bytes) of the running thread, whose
 * bytes are SNAP (NULL: a store sent without its value): a watched word
 * the operand covers is taken from SNAP, so that the word's report and the
 * operand agree. */
static void watch_op(tmcap_em *em, tmcap_word a, unsigned size, const unsigned char *snap)
{
    for (unsigned i = 0; i < em->nwatch;) {
        tmcap_word w = em->watch_a[i];
        int done = 0;
        if (a < w + 4 && w < a + size) {
            unsigned v;
            if (snap && w >= a && w + 4 <= a + size)
                copy_bytes(&v, snap + (w - a), 4);
            else
                v = read32(em, w);
            done = watch_check_v(em, em->cur_tid, i, v);
        }
        if (done)
            unwatch(em, i);
        else
            i++;
    }
}

void tmcap_em_resume(tmcap_em *em, unsigned tid)
{
    switch_to(em, tid);
    for (unsigned i = 0; i < em->nwatch;) {
        if (!em->p.readable(em->p.ctx, em->watch_a[i], 4) || watch_check_v(em, tid, i, read32(em, em->watch_a[i])))
            unwatch(em, i);
        else
            i++;
    }
}

/* ------------------------------------------------------------ memory operands */

void tmcap_em_mem_value(tmcap_em *em, tmcap_word w0, tmcap_word a, const void *value)
{
    unsigned size = (unsigned)(w0 >> 16) & 0xff;
    unsigned nw = 0;
    tmcap_word v[8];
    if (!(w0 & TMCAP_MEM_NOVALUE)) { /* memory is read once: the value reported */
        nw = (size + 7) / 8;
        v[nw - 1] = 0;
        if (value)
            copy_bytes(v, value, size);
        else if (!em->p.copy(em->p.ctx, v, a, size))
            return; /* not readable: the instruction faults, it does not retire */
    }
    if (em->nwatch && !(w0 & (1ull << 9))) {
        /* A word the kernel writes on its own may have changed: reported
         * first, as this operand's bytes have it. */
        watch_op(em, a, size, nw ? (const unsigned char *)v : 0);
    }
    room(em, 2 + nw);
    em->buf[em->pos] = w0;
    em->buf[em->pos + 1] = a;
    for (unsigned q = 0; q < nw; q++)
        em->buf[em->pos + 2 + q] = v[q];
    em->pos += 2 + nw;
    if (em->pos > em->buf_limit)
        tmcap_em_flush(em);
}

void tmcap_em_mem(tmcap_em *em, tmcap_word w0, tmcap_word a)
{
    tmcap_em_mem_value(em, w0, a, 0);
}

void tmcap_em_addr(tmcap_em *em, tmcap_word w)
{
    em->buf[em->pos++] = w;
    if (em->pos > em->buf_limit)
        tmcap_em_flush(em);
}

/* ------------------------------------------------------------ threads, signals */

void tmcap_em_thread_create(tmcap_em *em, unsigned parent, unsigned child)
{
    if (child < MAX_TIDS) {
        em->clear_tid[child] = em->pending_clear_tid;
        em->pending_clear_tid = 0;
    }
    room(em, 1);
    put(em, tmcap_create(child, parent));
}

void tmcap_em_thread_exit(tmcap_em *em, unsigned tid)
{
    if (tid < MAX_TIDS && em->clear_tid[tid]) {
        watch(em, em->clear_tid[tid], 1); /* the kernel zeroes it after this */
        em->clear_tid[tid] = 0;
    }
    room(em, 1);
    put(em, tmcap_exit_thread(tid));
}

void tmcap_em_signal(tmcap_em *em, unsigned tid, int sig, tmcap_word pc)
{
    switch_to(em, tid);
    room(em, 2);
    put(em, tmcap_signal(tid, sig));
    put(em, pc);
}

void tmcap_em_sigret(tmcap_em *em, unsigned tid)
{
    switch_to(em, tid);
    room(em, 1);
    put(em, tmcap_sigret(tid));
}

/* ------------------------------------------------------------ mappings */

void tmcap_em_map(tmcap_em *em, tmcap_word a, tmcap_word len, tmcap_word off, const char *path, unsigned pathlen)
{
    if (pathlen == 0 || pathlen > TMCAP_MAX_PATH || len == 0)
        return;
    room(em, 4 + (pathlen + 7) / 8);
    put(em, tmcap_map(pathlen));
    put(em, a);
    put(em, len);
    put(em, off);
    put_bytes(em, path, 0, pathlen, 0);
}

void tmcap_em_vdso_bytes(tmcap_em *em, tmcap_word a, const void *bytes, tmcap_word len)
{
    if (len == 0 || len > TMCAP_MAX_VDSO)
        return;
    room(em, 2);
    put(em, tmcap_vdso((unsigned)len));
    put(em, a);
    put_bytes(em, bytes, a, len, 0);
}

void tmcap_em_vdso(tmcap_em *em, tmcap_word a, tmcap_word len)
{
    if (len == 0 || len > TMCAP_MAX_VDSO)
        return;
    room(em, 2);
    put(em, tmcap_vdso((unsigned)len));
    put(em, a);
    put_bytes(em, 0, a, len, 1);
}

/* ------------------------------------------------------------ system writes
 *
 * Memory the program's instructions did not write but whose contents
 * changed — a system call's output, a signal frame, a mapping placed where
 * an earlier one was unmapped, madvise(DONTNEED) — is reported as stores of
 * the running thread with no instruction (insn 0xffff, the SYS bit), in
 * parts of at most 64 bytes, so that the trace module's caches and the
 * debugger's copy of memory see it (docs/capture.md §4). */

void tmcap_em_sys_write(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len)
{
    if (!em->mem || len == 0)
        return;
    if (tid)
        switch_to(em, tid);
    while (len) {
        unsigned s = len > 64 ? 64 : (unsigned)len;
        room(em, 2 + 8);
        tmcap_em_mem(em, tmcap_sys_mem(s), a);
        a += s;
        len -= s;
    }
}

void tmcap_em_post_mem_write(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len)
{
    if (tid < MAX_TIDS && len == 4 &&
        ((em->clone_ptid[tid] && a == em->clone_ptid[tid]) || (em->clone_ctid[tid] && a == em->clone_ctid[tid])))
        return; /* watched (tmcap_em_syscall_pre) */
    tmcap_em_sys_write(em, tid, a, len);
}

static void add_hole(tmcap_em *em, tmcap_word a, tmcap_word len)
{
    if (!em->mem || !len)
        return;
    tmcap_word lo = a, hi = a + len;
    tmcap_word *hl = em->hole_lo, *hh = em->hole_hi;
    unsigned i = 0, j;
    while (i < em->nholes && hh[i] < lo)
        i++;
    for (j = i; j < em->nholes && hl[j] <= hi; j++) {
        if (hl[j] < lo)
            lo = hl[j];
        if (hh[j] > hi)
            hi = hh[j];
    }
    /* [i, j) merge into one */
    if (j == i) {
        if (em->nholes == MAX_HOLES) { /* forget the smallest-address one */
            move_words(hl, hl + 1, em->nholes - 1);
            move_words(hh, hh + 1, em->nholes - 1);
            em->nholes--;
            if (i)
                i--;
        }
        move_words(hl + i + 1, hl + i, em->nholes - i);
        move_words(hh + i + 1, hh + i, em->nholes - i);
        em->nholes++;
    } else if (j > i + 1) {
        move_words(hl + i + 1, hl + j, em->nholes - j);
        move_words(hh + i + 1, hh + j, em->nholes - j);
        em->nholes -= j - i - 1;
    }
    hl[i] = lo;
    hh[i] = hi;
}

void tmcap_em_new_contents(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len)
{
    if (!em->mem || !len)
        return;
    tmcap_word e = a + len;
    for (unsigned i = 0; i < em->nholes; i++) {
        tmcap_word lo = em->hole_lo[i] > a ? em->hole_lo[i] : a, hi = em->hole_hi[i] < e ? em->hole_hi[i] : e;
        if (lo >= hi)
            continue;
        /* only what the program can read now (the rest is reported when
         * an mprotect makes it readable) */
        for (tmcap_word p = lo; p < hi;) {
            int rd = 0;
            tmcap_word se = em->p.region(em->p.ctx, p, hi, &rd);
            if (se <= p)
                break;
            if (se > hi)
                se = hi;
            if (rd)
                tmcap_em_sys_write(em, tid, p, se - p);
            p = se;
        }
    }
}

void tmcap_em_unmapped(tmcap_em *em, tmcap_word a, tmcap_word len)
{
    add_hole(em, a, len);
    unwatch_range(em, a, len);
}

void tmcap_em_remapped(tmcap_em *em, tmcap_word from, tmcap_word to, tmcap_word len)
{
    /* the contents move: stores at the new place, a hole at the old */
    if (from != to) {
        add_hole(em, from, len);
        tmcap_em_sys_write(em, em->cur_tid, to, len);
    }
}

/* ------------------------------------------------------------ system calls */

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
    NR_prlimit64 = 302, NR_getrandom = 318, NR_execveat = 322, NR_statx = 332
};

/* Linux's generic system call numbers (asm-generic/unistd.h), which
 * AArch64 and RISC-V (RV64) use, as their x86-64 counterparts above (the
 * emitter works in x86-64 numbers); NR_none for the ones it has no use for. */
enum { NR_none = 0xffff };
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
    case 78: return NR_readlinkat;
    case 79: return NR_newfstatat;
    case 80: return NR_fstat;
    case 96: return NR_set_tid_address;
    case 113: return NR_clock_gettime;
    case 114: return NR_clock_getres;
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
static unsigned canon(int isa, unsigned no, const tmcap_word *args, tmcap_word *ca)
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
static unsigned syscall_writes(int generic, unsigned no, const tmcap_word *args, tmcap_word res,
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
    return syscall_writes(0, no, args, res, read, ctx, a, len, max);
}

unsigned tmcap_syscall_writes_isa(int isa, unsigned no, const tmcap_word *args, tmcap_word res,
                                  int (*read)(void *ctx, void *dst, tmcap_word a, unsigned long n), void *ctx,
                                  tmcap_word *a, tmcap_word *len, unsigned max)
{
    tmcap_word ca[6];
    unsigned cno = canon(isa, no, args, ca);
    return syscall_writes(isa != TM_ISA_X86_64, cno, ca, res, read, ctx, a, len, max);
}

void tmcap_em_syscall_pre(tmcap_em *em, unsigned tid, unsigned no, const tmcap_word *args_isa)
{
    tmcap_word args[6];
    unsigned sno = no; /* the ISA's number: the stream's */
    no = canon(em->isa, no, args_isa, args);
    room(em, 1);
    put(em, tmcap_syscall(tid, sno, 0));
    if ((no == NR_execve || no == NR_execveat) && !em->fork_child && em->out_fd >= 0) {
        /* if it succeeds the new image runs natively and the channel
         * (close-on-exec) closes: say so first. */
        room(em, 1);
        put(em, tmcap_execve(tid));
        tmcap_em_flush(em);
    }
    if (no == NR_clone && tid < MAX_TIDS) { /* clone(flags, sp, ptid, ctid, tls) */
        if (args[0] & 0x00200000) /* CLONE_CHILD_CLEARTID */
            em->pending_clear_tid = args[3];
        em->clone_ptid[tid] = (args[0] & 0x00100000) ? args[2] : 0; /* CLONE_PARENT_SETTID */
        em->clone_ctid[tid] = (args[0] & 0x01000000) ? args[3] : 0; /* CLONE_CHILD_SETTID */
        watch(em, em->clone_ptid[tid], 0);
        watch(em, em->clone_ctid[tid], 0);
    } else if (no == NR_set_tid_address && tid < MAX_TIDS) {
        em->clear_tid[tid] = args[0];
    }
}

/* The address space's changes a platform without memory events (Pin)
 * learns from the system calls. */
static void sysc_post(tmcap_em *em, unsigned tid, unsigned no, const tmcap_word *args, tmcap_word res)
{
    tmcap_word ra[16], rl[16];
    unsigned n = syscall_writes(em->isa != TM_ISA_X86_64, no, args, res, em->p.copy, em->p.ctx, ra, rl, 16);
    for (unsigned i = 0; i < n; i++)
        tmcap_em_sys_write(em, tid, ra[i], rl[i]);
    switch (no) {
    case NR_mmap:
        tmcap_em_new_contents(em, tid, res, args[1]);
        break;
    case NR_munmap:
        tmcap_em_unmapped(em, args[0], args[1]);
        break;
    case NR_mremap:
        tmcap_em_remapped(em, args[0], res, args[1] < args[2] ? args[1] : args[2]);
        break;
    case NR_mprotect:
        if (args[2] & 1) /* PROT_READ */
            tmcap_em_new_contents(em, tid, args[0], args[1]);
        break;
    case NR_brk:
        if (em->brk && res > em->brk)
            tmcap_em_new_contents(em, tid, em->brk, res - em->brk);
        else if (em->brk && res < em->brk)
            tmcap_em_unmapped(em, res, em->brk - res);
        em->brk = res;
        break;
    default:
        break;
    }
}

void tmcap_em_syscall_post(tmcap_em *em, unsigned tid, unsigned no, const tmcap_word *args_isa, tmcap_word res,
                           int err)
{
    tmcap_word args[6];
    unsigned sno = no;
    no = canon(em->isa, no, args_isa, args);
    room(em, 1);
    put(em, tmcap_syscall(tid, sno, 1));
    if (no == NR_clone && tid < MAX_TIDS) {
        if (err) { /* no thread: nothing will be written */
            unwatch_range(em, em->clone_ptid[tid], 1);
            unwatch_range(em, em->clone_ctid[tid], 1);
        }
        em->clone_ptid[tid] = em->clone_ctid[tid] = 0;
    }
    if (em->sysc && !err)
        sysc_post(em, tid, no, args, res);
    /* madvise(MADV_DONTNEED = 4, MADV_REMOVE = 9): the range reads zero */
    if (no == NR_madvise && !err && (args[2] == 4 || args[2] == 9)) {
        add_hole(em, args[0], args[1]);
        tmcap_em_new_contents(em, tid, args[0], args[1]);
    }
}

/* ------------------------------------------------------------ fork, end */

void tmcap_em_fork_pre(tmcap_em *em)
{
    tmcap_em_flush(em);
}

void tmcap_em_fork_child(tmcap_em *em)
{
    if (em->out_fd >= 0)
        em->p.close(em->p.ctx, em->out_fd);
    em->out_fd = -1;
    if (em->shm) {
        /* The slots are shared with the parent: this process writes its
         * (discarded) stream into a private buffer instead. */
        em->p.close(em->p.ctx, em->ack_fd);
        em->ack_fd = -1;
        em->shm = 0;
        em->buf_words = PIPE_BUF_WORDS;
        em->buf_limit = em->buf_words - BUF_MARGIN;
        em->buf = em->p.alloc(em->p.ctx, PIPE_BUF_WORDS * sizeof(tmcap_word));
    }
    em->pos = 0;
    em->fork_child = 1;
}

void tmcap_em_end(tmcap_em *em, unsigned status, unsigned how)
{
    if (em->fork_child || em->ended)
        return;
    em->ended = 1;
    room(em, 1);
    put(em, tmcap_end(status, how));
    tmcap_em_flush(em);
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
