/* tm_qemu — the QEMU user-mode frontend of tm (docs/qemu.md): a TCG plugin
 * (API version 1, QEMU 7.2) that records AArch64 and RISC-V (RV64GC) Linux
 * programs as the capture stream (tm/capwire.h) through the frontends'
 * shared emitter (tm/capemit.h, capture/capemit.c).
 *
 *   qemu-aarch64 -L SYSROOT -plugin build/lib/qemu/tm_qemu.so,out=FILE,mem=1 PROG ARGS
 *   arguments: out=FILE | fd=N (the stream), mem=0|1 (memory operands and
 *   their values), store_values=0|1, timing=MACHINE (the timing model's
 *   frontend half times the accesses and fetches on MACHINE, tm/tfront.h's
 *   text), log=FILE (messages; default stderr)
 *
 * Blocks are QEMU's translation blocks.  Guest code runs under one big
 * lock, taken at a block's start (where the previous block's exit is known
 * and emitted) and kept until the thread's next block start (handed on
 * every 64 blocks, given up at a system call), so that a block's memory
 * operands and its exit go out together; a waiter takes the lock over from
 * a holder that made no progress for 200 ms (one parked outside cpu_exec
 * in one of QEMU's exclusive sections, or cut by a fault): one serial
 * order of every thread's events, and no endless wait inside cpu_exec for
 * a thread parked outside it (docs/qemu.md §3). */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "qemu_api.h"
#include "tm/capemit.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = TM_QEMU_PLUGIN_VERSION;

enum { MAX_VCPUS = 1024, NSIG_ = 65, MAX_DEPTH = 16 };
#define STALL_NS 200000000ull /* a holder without progress this long loses the lock */
#define HANDOFF_BLOCKS 64     /* blocks a holder runs before it lets a waiter in */

/* A translation block as translated once (a new id per translation). */
typedef struct blk blk;
typedef struct iref {
    blk *b;
    unsigned idx;
} iref;
struct blk {
    uint64_t id;
    unsigned ni, nx;
    int cls;              /* TMCAP_C_* of the last instruction */
    uint64_t fall, target; /* after the last instruction; its direct target */
    tmcap_word *ia;
    unsigned *il;
    unsigned char *mayfault; /* 1: accesses memory, 2: a trap */
    iref *refs;
    tmcap_exit xs[2];
    int endrel;           /* where the block's end is seen (a held-back load goes out):
                           * 0 the last instruction's exec callback, 1 its (only)
                           * memory callback, 2 not in the block */
    int tramp;            /* QEMU's signal-return trampoline (an anonymous page) */
    int atomic;           /* an instruction of it is atomic (exclusives, LSE, AMO): the turns */
    blk *next_pending;    /* descriptors waiting to be emitted */
};

typedef struct vcpu {
    unsigned fid;         /* the stream's thread id: vcpu_index + 1 */
    int created;
    int hold;             /* it took the big lock (a waiter may have taken it over since) */
    unsigned long long ticket;
    atomic_ullong st;     /* ticket << 2 | S_*: its hold, as waiters see it */
    blk *cur;             /* the block started last, its exit not yet emitted */
    unsigned run;         /* blocks run since it took the lock (HANDOFF_BLOCKS) */
    int last_done;        /* its last instruction whose memory access completed */
    uint64_t expect;      /* where the thread goes after its last emitted exit (0: unknown) */
    /* a load waiting: an atomic read-modify-write reports its store only */
    int pl_valid;
    unsigned pl_idx;
    uint64_t pl_w0, pl_a, pl_v[8];
    /* the system call in progress */
    int64_t sysno;
    tmcap_word sysargs[6];
    uint64_t sigact_handler;
    int sigact_valid, forking;
    uint64_t svc_pc;
    /* signal handlers running; the pc a guessed resume must reach */
    int depth;
    uint64_t guess[MAX_DEPTH];
    int after_sigret;
    pid_t lwp;            /* its host thread (the turns: is it asleep?) */
} vcpu;

static vcpu *vcpus[MAX_VCPUS];
static tmcap_em *em;
static unsigned em_tid;
static int isa, clo_mem = 0, clo_store_values = 1, clo_timed = 0, log_fd = 2;
static tmf_cfg timing_cfg; /* timing=: the machine (clo_timed) */
static atomic_int off;            /* tracing stopped (a fork's child, a failure, the end) */
static uint64_t gbase;            /* host = guest + gbase */
static atomic_int gbase_known;
static int maps_done, tramp_done;
static uint64_t handlers[NSIG_];  /* guest addresses of the handlers (0: none) */
static unsigned exit_status;
static int exit_seen, last_kill_sig;
static __thread int tls_vcpu = -1;

/* the big lock: a ticket lock whose holder a waiter may take over */
static atomic_ullong tk_next, tk_serve;
static atomic_ullong lk_prog;     /* bumped by the holder at each of its callbacks */
static _Atomic(vcpu *) lk_holder; /* the last vCPU that got its turn */
static vcpu exit_v;               /* the atexit callback's hold */
/* descriptors translated but not yet emitted (their own small lock) */
static atomic_flag pend_lock = ATOMIC_FLAG_INIT;
static blk *pend_head, *pend_tail;
static uint64_t next_id = 1;

static void say(const char *msg)
{
    char line[600];
    int n = snprintf(line, sizeof line, "tm_qemu: %s\n", msg);
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    ssize_t w = write(log_fd, line, (size_t)n);
    (void)w;
}

/* ------------------------------------------------------------ platform */

static long p_write(void *c, int fd, const void *p, unsigned long n)
{
    (void)c;
    return (long)write(fd, p, n);
}
static long p_read(void *c, int fd, void *p, unsigned long n)
{
    (void)c;
    return (long)read(fd, p, n);
}
static void p_close(void *c, int fd)
{
    (void)c;
    close(fd);
}
/* The program's memory at guest address A, read safely (a range that is
 * not mapped gives 0). */
static int p_copy(void *c, void *dst, tmcap_word a, unsigned long n)
{
    (void)c;
    struct iovec l = {dst, n}, r = {(void *)(uintptr_t)(a + gbase), n};
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)n;
}
static int p_readable(void *c, tmcap_word a, unsigned long n)
{
    unsigned char b[64];
    return n <= sizeof b && p_copy(c, b, a, n);
}
static tmcap_word p_region(void *c, tmcap_word a, tmcap_word hi, int *readable)
{
    unsigned char ch;
    int r0 = p_copy(c, &ch, a, 1);
    tmcap_word p = (a | 4095) + 1;
    while (p < hi && p_copy(c, &ch, p, 1) == r0)
        p += 4096;
    *readable = r0;
    return p < hi ? p : hi;
}
static void p_message(void *c, const char *msg)
{
    (void)c;
    say(msg);
}
static void *p_alloc(void *c, unsigned long n)
{
    (void)c;
    return calloc(1, n);
}

/* ------------------------------------------------------------ the turns (TMF_SYNC) */

static __thread vcpu *turn_v;   /* this thread's vCPU, in tmcap_em_turn */
static __thread int want_yield; /* it ran ahead (tmf_ahead): the others' turn at its next block */
static void as_thread(vcpu *v);
static int lock_take(vcpu *v);
static void lock_give(vcpu *v);

/* The others' turn.  In tmcap_em_turn (TRIES > 0, at a block's start):
 * the lock to the next waiter, a pause growing with TRIES (the thread
 * waited for may need the processor to come back), the lock again.  Ahead
 * of the others (TRIES 0, while a block's exit is emitted): at the next
 * block's start. */
static void p_yield(void *c, unsigned tries)
{
    (void)c;
    vcpu *v = turn_v;
    if (!tries || !v) {
        want_yield = 1;
        return;
    }
    lock_give(v);
    if (tries > 2) {
        struct timespec ts = {0, tries < 8 ? 0 : tries < 32 ? 20000 : 100000};
        if (ts.tv_nsec)
            nanosleep(&ts, NULL);
        else
            sched_yield();
    }
    if (lock_take(v))
        as_thread(v);
}

/* Whether the thread of stream id TID sleeps in a futex wait on guest word
 * A: the host's /proc/self/task/LWP/syscall ("202 0xHOST ..." on x86-64). */
static int p_asleep(void *c, unsigned tid, tmcap_word a)
{
    (void)c;
    vcpu *v = tid >= 1 && tid <= MAX_VCPUS ? vcpus[tid - 1] : NULL;
    if (!v || !v->lwp)
        return 0;
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)v->lwp);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *end;
    if (strtol(buf, &end, 10) != 202 || *end != ' ')
        return 0;
    return strtoull(end + 1, NULL, 16) == a + gbase;
}

/* ------------------------------------------------------------ the big lock */

/* Stops tracing with one line: the stream ends without END, and tm record
 * says the capture was cut short. */
static void fail_rec(const char *why)
{
    if (atomic_exchange(&off, 1))
        return;
    say(why);
    say("the recording is incomplete; tracing stops");
    tmcap_em_flush(em);
}

/* A vCPU's hold (vcpu.st, low 2 bits; the ticket above them):
 * S_BUSY in a callback under the lock (emitting), S_IDLE holding it outside
 * any callback (running its block's guest code), S_REVOKED taken over by a
 * waiter while S_IDLE (only a waiter's compare-and-swap sets it; only S_BUSY
 * gives the lock on: the two never both advance tk_serve). */
enum { S_FREE = 0, S_BUSY = 1, S_IDLE = 2, S_REVOKED = 3 };

static unsigned long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* V held the lock when it left its last callback and enters another: 1 it
 * still holds it (S_BUSY), 0 a waiter took it over (V holds nothing). */
static int lock_resume(vcpu *v)
{
    unsigned long long e = v->ticket << 2 | S_IDLE;
    if (atomic_compare_exchange_strong(&v->st, &e, v->ticket << 2 | S_BUSY)) {
        atomic_fetch_add_explicit(&lk_prog, 1, memory_order_relaxed);
        return 1;
    }
    v->hold = 0;
    atomic_store(&v->st, S_FREE);
    return 0;
}

/* In a callback: V takes the lock (FIFO), or keeps the one it holds.  0:
 * tracing stopped while it waited (nothing taken; no one needs the lock
 * any more).  A waiter that sees the lock served to the same ticket and no
 * callback of its holder for STALL_NS takes it over if the holder is
 * outside its callbacks (S_IDLE): a holder cannot be waited for from inside
 * cpu_exec when it may be parked outside it (a block cut by a fault, QEMU's
 * exclusive sections: docs/qemu.md §3). */
static int lock_take(vcpu *v)
{
    if (v->hold && lock_resume(v))
        return 1;
    unsigned long long t = atomic_fetch_add(&tk_next, 1), ls = ~0ull, lp = 0, t0 = 0;
    for (unsigned spins = 0;; spins++) {
        unsigned long long s = atomic_load_explicit(&tk_serve, memory_order_acquire);
        if (s == t)
            break;
        if (atomic_load_explicit(&off, memory_order_relaxed))
            return 0;
        if (spins < 64) {
            __builtin_ia32_pause();
            continue;
        }
        sched_yield();
        if (spins & 63)
            continue;
        unsigned long long p = atomic_load_explicit(&lk_prog, memory_order_relaxed), now = now_ns();
        if (s != ls || p != lp) {
            ls = s;
            lp = p;
            t0 = now;
            continue;
        }
        if (now - t0 < STALL_NS)
            continue;
        vcpu *h = atomic_load(&lk_holder);
        unsigned long long e = s << 2 | S_IDLE;
        if (h && atomic_compare_exchange_strong(&h->st, &e, s << 2 | S_REVOKED))
            atomic_store_explicit(&tk_serve, s + 1, memory_order_release);
        t0 = now;
    }
    v->ticket = t;
    atomic_store(&v->st, t << 2 | S_BUSY);
    atomic_store(&lk_holder, v);
    v->hold = 1;
    atomic_fetch_add_explicit(&lk_prog, 1, memory_order_relaxed);
    return 1;
}

/* In a callback (S_BUSY): the lock goes to the next ticket. */
static int lock_wanted(void)
{
    return atomic_load_explicit(&tk_next, memory_order_relaxed) - atomic_load_explicit(&tk_serve, memory_order_relaxed) >
           1;
}

static void lock_give(vcpu *v)
{
    if (!v->hold)
        return;
    v->hold = 0;
    atomic_store(&v->st, S_FREE);
    atomic_store_explicit(&tk_serve, v->ticket + 1, memory_order_release);
}

/* Leaving a callback holding the lock: a waiter may take it over. */
static void lock_leave(vcpu *v)
{
    if (v->hold)
        atomic_store(&v->st, v->ticket << 2 | S_IDLE);
}

/* Tracing stopped: V gives up a lock it holds. */
static void lock_drop(vcpu *v)
{
    if (v->hold && lock_resume(v))
        lock_give(v);
}

/* V lost the lock inside its block (stalled STALL_NS by the host, or in a
 * QEMU slow path): other threads ran meanwhile, the order of their memory
 * accesses and V's is not known: the recording stops rather than be wrong. */
static void revoked_inside(vcpu *v)
{
    if (!lock_take(v))
        return;
    fail_rec("a thread stalled 0.2 s inside a block, and a waiting thread took the serializing lock over: "
             "the order of their memory accesses is not known (docs/qemu.md §3)");
    lock_give(v);
}

/* ------------------------------------------------------------ emitting (under the lock) */

static void drain_blocks(void)
{
    while (atomic_flag_test_and_set_explicit(&pend_lock, memory_order_acquire))
        ;
    blk *b = pend_head;
    pend_head = pend_tail = NULL;
    atomic_flag_clear_explicit(&pend_lock, memory_order_release);
    for (; b; b = b->next_pending)
        tmcap_em_block(em, b->id, b->ia, b->il, b->ni, b->xs, b->nx);
}

static void as_thread(vcpu *v)
{
    drain_blocks();
    if (em_tid != v->fid) {
        tmcap_em_resume(em, v->fid);
        em_tid = v->fid;
    }
}

static void put_mem(uint64_t w0, uint64_t a, const uint64_t *val);

static void put_load(vcpu *v)
{
    if (!v->pl_valid)
        return;
    v->pl_valid = 0;
    put_mem(v->pl_w0, v->pl_a, v->pl_v);
}

static vcpu *vcpu_of(unsigned i)
{
    if (i >= MAX_VCPUS)
        return NULL;
    vcpu *v = vcpus[i];
    if (!v) {
        v = calloc(1, sizeof *v);
        if (!v)
            return NULL;
        v->fid = i + 1;
        v->last_done = -1;
        vcpus[i] = v;
    }
    return v;
}

/* Under the lock: the file mappings QEMU made before the first block (the
 * program, its interpreter), from the host's /proc/self/maps: the readable
 * mappings of files whose ELF machine is the guest's, at guest address =
 * host - gbase (QEMU maps the guest's code pages without PROT_EXEC on the
 * host: every readable segment is reported; the capture keys modules by
 * path and load address).  The program first (the capture's first
 * module), then the dynamic loader ("ld-*"). */
static int elf_machine(const char *path)
{
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = pread(fd, h, sizeof h, 0);
    close(fd);
    if (n != (ssize_t)sizeof h || memcmp(h, "\177ELF", 4))
        return -1;
    return h[18] | h[19] << 8;
}

static void scan_maps(void)
{
    int want = isa == TM_ISA_AARCH64 ? 183 : 243; /* EM_AARCH64, EM_RISCV */
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return;
    static char line[4096 + 256], path[4097], cur[4097];
    for (int pass = 0; pass < 2; pass++) {
        rewind(f);
        /* one MAP per file image: from its mapping of file offset 0 to the
         * end of the file's last mapping after it (the segments' offsets
         * are not their addresses' distances: QEMU aligns them to 64 KB) */
        tmcap_word lo = 0, hi = 0;
        unsigned curl = 0;
        int open_img = 0;
        for (;;) {
            int got = fgets(line, sizeof line, f) != NULL;
            tmcap_maps_line m;
            unsigned pl = 0;
            int ok = 0;
            if (got) {
                size_t n = strcspn(line, "\n");
                ok = tmcap_parse_maps_line(line, (unsigned)n, &m) && m.pathlen && m.path[0] == '/';
                if (ok) {
                    pl = m.pathlen < 4096 ? m.pathlen : 4096;
                    memcpy(path, m.path, pl);
                    path[pl] = 0;
                }
            }
            if (open_img && (!got || (ok && (pl != curl || memcmp(path, cur, pl) || m.off == 0)))) {
                tmcap_em_map(em, lo - gbase, hi - lo, 0, cur, curl);
                open_img = 0;
            }
            if (!got)
                break;
            if (!ok)
                continue;
            if (open_img) {
                hi = m.hi;
                continue;
            }
            const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
            int interp = strncmp(base, "ld-", 3) == 0;
            if (m.off != 0 || interp != pass || m.lo < gbase || elf_machine(path) != want)
                continue;
            open_img = 1;
            lo = m.lo;
            hi = m.hi;
            memcpy(cur, path, pl);
            curl = pl;
        }
    }
    fclose(f);
}

/* ------------------------------------------------------------ classification */

/* Whether the instruction at P (LEN bytes) is atomic or orders memory the
 * way locks use: AArch64's load/store exclusive class (LDXR, STXR, LDAXR,
 * STLXR, LDAR, STLR, CAS, CASP) and LSE atomics (LDADD.., SWP); RISC-V's
 * AMO opcode (LR, SC, AMO*). */
static int is_atomic(const unsigned char *p, unsigned len)
{
    if (len < 4)
        return 0;
    unsigned w = (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
    if (isa == TM_ISA_AARCH64)
        return (w & 0x3F000000u) == 0x08000000u || (w & 0x3B200C00u) == 0x38200000u;
    return (w & 0x7f) == 0x2f;
}

/* Whether the instruction at P (LEN bytes) accesses memory (a load or a
 * store of the program; prefetches are not): 0 no, 1 exactly one access
 * (QEMU calls one memory callback for it, unless it faults), 2 maybe more
 * (pairs, atomics, exclusives, SIMD, vector: the big lock is then kept
 * across the block's end, docs/qemu.md §3). */
static int is_mem(const unsigned char *p, unsigned len)
{
    if (isa == TM_ISA_AARCH64) {
        if (len < 4)
            return 0;
        unsigned w = (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
        if ((w & 0x0A000000u) != 0x08000000u) /* op0 x1x0: loads and stores */
            return 0;
        if ((w & 0xFFC00000u) == 0xF9800000u || (w & 0xFF000000u) == 0xD8000000u ||
            (w & 0xFFE00C00u) == 0xF8A00800u || (w & 0xFFE00C00u) == 0xF8800000u)
            return 0; /* PRFM (immediate, literal, register), PRFUM */
        if (w & 0x04000000u) /* SIMD & FP (a 128-bit one is two accesses in QEMU 7.2) */
            return 2;
        unsigned op = (w >> 27) & 7, o2524 = (w >> 24) & 3;
        if (op == 7 && o2524 == 1) /* LDR / STR (unsigned immediate) */
            return 1;
        if (op == 7 && o2524 == 0) /* unscaled, pre/post-indexed, unprivileged; register offset */
            return !(w & 0x00200000u) || ((w >> 10) & 3) == 2 ? 1 : 2;
        if (op == 3 && o2524 == 0) /* LDR (literal) */
            return 1;
        return 2;
    }
    if (len == 2) {
        unsigned c = (unsigned)p[0] | (unsigned)p[1] << 8, q = c & 3, f3 = c >> 13;
        return (q == 0 || q == 2) && f3 != 0 && f3 != 4;
    }
    if (len < 4)
        return 0;
    unsigned op = p[0] & 0x7f, f3 = (p[1] >> 4) & 7;
    if (op == 0x03 || op == 0x23)
        return 1;
    if (op == 0x07 || op == 0x27) /* FLH..FLQ, FSH..FSQ: one; the vector widths: more */
        return f3 >= 1 && f3 <= 4 ? 1 : 2;
    return op == 0x2F ? 2 : 0; /* AMO, LR / SC */
}

/* ------------------------------------------------------------ the shadow
 *
 * The values the stream has given (every load's and store's bytes), 8-byte
 * words in an open-addressed table: a load whose bytes differ from them
 * was preceded by a write the plugin did not see (a signal frame QEMU
 * wrote, DC ZVA, a system call's output the emitter's table does not
 * know...): it is reported first as a write by the system (docs/qemu.md
 * §4).  When the table is three-quarters full it starts over. */
enum { SH_BITS = 21 };
typedef struct shent {
    uint64_t key; /* word address + 1 (0: empty) */
    uint64_t val;
    uint8_t known;
} shent;
static shent *shadow;
static unsigned long sh_used;

static shent *sh_find(uint64_t w, int add)
{
    unsigned long mask = (1ul << SH_BITS) - 1, i = (unsigned long)((w * 0x9E3779B97F4A7C15ull) >> (64 - SH_BITS));
    for (;; i = (i + 1) & mask) {
        shent *e = &shadow[i];
        if (e->key == w + 1)
            return e;
        if (!e->key) {
            if (!add)
                return NULL;
            if (sh_used >= (3ul << SH_BITS) / 4) {
                memset(shadow, 0, sizeof *shadow << SH_BITS);
                sh_used = 0;
                return sh_find(w, 1);
            }
            sh_used++;
            e->key = w + 1;
            e->val = 0;
            e->known = 0;
            return e;
        }
    }
}

/* Whether the bytes V (SIZE at A) differ from what the stream gave; with
 * SET the shadow takes them. */
static int sh_access(uint64_t a, unsigned size, const unsigned char *v, int set)
{
    int differ = 0;
    for (unsigned i = 0; i < size;) {
        uint64_t w = (a + i) >> 3;
        unsigned o = (unsigned)((a + i) & 7), k = 8 - o < size - i ? 8 - o : size - i;
        shent *e = sh_find(w, set);
        if (e) {
            unsigned char cur[8];
            memcpy(cur, &e->val, 8);
            for (unsigned j = 0; j < k; j++) {
                if ((e->known >> (o + j) & 1) && cur[o + j] != v[i + j])
                    differ = 1;
                if (set) {
                    cur[o + j] = v[i + j];
                    e->known |= (uint8_t)(1u << (o + j));
                }
            }
            memcpy(&e->val, cur, 8);
        }
        i += k;
    }
    return differ;
}

/* A memory operand going out: the shadow follows, and a load that differs
 * from it is preceded by a write by the system. */
static void put_mem(uint64_t w0, uint64_t a, const uint64_t *val)
{
    unsigned size = (unsigned)(w0 >> 16) & 0xff;
    if (shadow && sh_access(a, size, (const unsigned char *)val, 1) && !(w0 & TMCAP_MEM_STORE))
        tmcap_em_mem_value(em, tmcap_sys_mem(size), a, val);
    tmcap_em_mem_value(em, w0, a, val);
}

/* ------------------------------------------------------------ callbacks */

/* A callback inside V's block, V holding the lock: 1 it may emit (its hold
 * resumed); 0 nothing to do (tracing stopped: the lock given up; or a
 * waiter took the lock over meanwhile: revoked_inside has said so). */
static int enter_in_block(vcpu *v)
{
    if (atomic_load_explicit(&off, memory_order_relaxed)) {
        lock_drop(v);
        return 0;
    }
    if (!lock_resume(v)) {
        revoked_inside(v);
        return 0;
    }
    return 1;
}

static void mem_put(vcpu *v, const iref *r, qemu_plugin_meminfo_t info, uint64_t vaddr);

static void mem_cb(unsigned vi, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    iref *r = ud;
    vcpu *v = vi < MAX_VCPUS ? vcpus[vi] : NULL;
    if (!v)
        return;
    if (!v->hold) {
        /* V gave the lock up inside its block (not expected: the lock is
         * kept to the next block start): reported under the lock rather
         * than dropped */
        if (v->cur == r->b && r->idx + 1 == r->b->ni && !atomic_load_explicit(&off, memory_order_relaxed) &&
            lock_take(v)) {
            if (!atomic_load_explicit(&off, memory_order_relaxed)) {
                as_thread(v);
                mem_put(v, r, info, vaddr);
                put_load(v);
            }
            lock_give(v);
        }
        return;
    }
    if (!enter_in_block(v))
        return;
    int last = r->idx + 1 == r->b->ni && r->b->endrel == 1;
    if (v->cur == r->b)
        mem_put(v, r, info, vaddr);
    if (last) /* the block's end: a held-back load goes out; the lock stays (tb_end) */
        put_load(v);
    lock_leave(v);
}

/* Under the lock: the memory access of V's instruction R at VADDR. */
static void mem_put(vcpu *v, const iref *r, qemu_plugin_meminfo_t info, uint64_t vaddr)
{
    v->last_done = (int)r->idx;
    if (!clo_mem && !clo_timed)
        return;
    unsigned size = 1u << qemu_plugin_mem_size_shift(info);
    int store = qemu_plugin_mem_is_store(info);
    if (size > 64)
        size = 64;
    if (!clo_mem) { /* timed only (the timing model's frontend half) */
        tmcap_em_access(em, vaddr, size, store);
        return;
    }
    uint64_t val[8] = {0};
    memcpy(val, (const void *)(uintptr_t)(vaddr + gbase), size); /* accessed just now: mapped */
    if (store) {
        if (v->pl_valid && v->pl_a == vaddr && v->pl_idx == r->idx) {
            /* an atomic read-modify-write: QEMU reports its load after the
             * store, when the old value is gone; the store only */
            v->pl_valid = 0;
        } else {
            put_load(v);
        }
        put_mem(tmcap_mem(1, !clo_store_values, size, r->idx), vaddr, val);
        return;
    }
    put_load(v);
    v->pl_valid = 1;
    v->pl_idx = r->idx;
    v->pl_w0 = tmcap_mem(0, 0, size, r->idx);
    v->pl_a = vaddr;
    memcpy(v->pl_v, val, sizeof v->pl_v);
}

static int handler_sig(uint64_t pc, int prefer)
{
    if (prefer > 0 && prefer < NSIG_ && handlers[prefer] == pc)
        return prefer;
    for (int s = 1; s < NSIG_; s++)
        if (handlers[s] && handlers[s] == pc)
            return s;
    return 0;
}

/* Under the lock, at the start of V's block at NEXT: the exit V's previous
 * block took, or the signal that interrupted it. */
static void resolve(vcpu *v, uint64_t next)
{
    blk *p = v->cur;
    put_load(v);
    if (v->after_sigret) { /* the handler returned: where the guessed exit led? */
        v->after_sigret = 0;
        if (v->depth < MAX_DEPTH && v->guess[v->depth] && v->guess[v->depth] != next) {
            fail_rec("a signal interrupted a conditional branch whose outcome was guessed wrong");
            return;
        }
    }
    if (!p) { /* after a system call (its exit is out): a handler? */
        if (v->expect && next != v->expect) {
            int sig = handler_sig(next, 0);
            if (sig) {
                tmcap_em_signal(em, v->fid, sig, v->expect);
                if (v->depth < MAX_DEPTH)
                    v->guess[v->depth] = 0;
                v->depth++;
            }
        }
        v->expect = 0;
        return;
    }
    v->cur = NULL;
    int cut = -1;
    for (unsigned i = (unsigned)(v->last_done + 1); i < p->ni; i++)
        if (p->mayfault[i]) {
            cut = (int)i;
            break;
        }
    int sig = handler_sig(next, 0);
    if (cut >= 0 && sig) {
        /* a synchronous fault at instruction CUT: the ones before it
         * retired (the capture layer runs them: a SIGNAL whose pc is in
         * the block) */
        sig = handler_sig(next, p->mayfault[cut] == 1 ? 11 : 5);
        tmcap_em_signal(em, v->fid, sig, p->ia[cut]);
        if (v->depth < MAX_DEPTH)
            v->guess[v->depth] = 0;
        v->depth++;
        return;
    }
    uint64_t dest = 0;
    unsigned x = 0;
    int guessed = 0, dyn = 0;
    switch (p->cls) {
    case TMCAP_C_COND:
        if (next == p->target) { /* both ways equal: taken */
            x = 0;
        } else if (next == p->fall) {
            x = 1;
        } else if (sig) { /* a signal: the outcome is not known: taken, checked at the return */
            x = 0;
            guessed = 1;
        }
        dest = x == 0 ? p->target : p->fall;
        break;
    case TMCAP_C_JUMP: case TMCAP_C_CALL:
        dest = p->target;
        break;
    case TMCAP_C_IJUMP: case TMCAP_C_ICALL: case TMCAP_C_RET:
        dyn = 1;
        if (sig && p->cls != TMCAP_C_ICALL) {
            fail_rec("a signal arrived right after an indirect branch: where it went is not known");
            return;
        }
        dest = next;
        break;
    default:
        dest = p->fall;
        break;
    }
    if (dyn)
        tmcap_em_exec_dyn(em, tmcap_exec(p->id, x), dest);
    else
        tmcap_em_exec(em, tmcap_exec(p->id, x));
    if (next != dest && sig) {
        tmcap_em_signal(em, v->fid, sig, dest);
        if (v->depth < MAX_DEPTH)
            v->guess[v->depth] = guessed ? dest : 0;
        v->depth++;
    }
}

/* QEMU's signal-return trampoline: QEMU 7.2 gives these guests no vdso and
 * writes its own rt_sigreturn code (AArch64: MOV X8, #139; SVC #0; RISC-V:
 * LI A7, 139; ECALL) on an anonymous page, where a handler returns.  Whether
 * the block of NI instructions at A (host bytes P) is that code on a page
 * mapped from no file. */
static int is_tramp(tmcap_word a, const unsigned char *p, unsigned ni, unsigned len0)
{
    static const unsigned char a64[8] = {0x68, 0x11, 0x80, 0xd2, 0x01, 0x00, 0x00, 0xd4};
    static const unsigned char rv[8] = {0x93, 0x08, 0xb0, 0x08, 0x73, 0x00, 0x00, 0x00};
    if (ni != 2 || len0 != 4 || memcmp(p, isa == TM_ISA_AARCH64 ? a64 : rv, 4))
        return 0;
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return 0;
    char line[4096 + 256];
    int anon = 0;
    uint64_t h = a + gbase;
    while (fgets(line, sizeof line, f)) {
        tmcap_maps_line m;
        if (tmcap_parse_maps_line(line, (unsigned)strcspn(line, "\n"), &m) && m.lo <= h && h < m.hi) {
            anon = m.pathlen == 0;
            break;
        }
    }
    fclose(f);
    return anon;
}

/* Under the lock: the trampoline's page as the recording's vdso (the
 * module map's "[vdso]", BASE.vdso), a minimal ELF image of the guest's
 * machine whose one executable segment is the page: file offset 0 at the
 * page's address - 4096, the page's bytes at offset 4096 (docs/qemu.md §7). */
static void put_tramp(tmcap_word a)
{
    static unsigned char img[8192];
    tmcap_word page = a & ~(tmcap_word)4095;
    memset(img, 0, sizeof img);
    Elf64_Ehdr *e = (Elf64_Ehdr *)img;
    memcpy(e->e_ident, ELFMAG, SELFMAG);
    e->e_ident[EI_CLASS] = ELFCLASS64;
    e->e_ident[EI_DATA] = ELFDATA2LSB;
    e->e_ident[EI_VERSION] = EV_CURRENT;
    e->e_type = ET_DYN;
    e->e_machine = isa == TM_ISA_AARCH64 ? 183 : 243; /* EM_AARCH64, EM_RISCV */
    e->e_version = EV_CURRENT;
    e->e_phoff = sizeof *e;
    e->e_ehsize = sizeof *e;
    e->e_phentsize = sizeof(Elf64_Phdr);
    e->e_phnum = 1;
    Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof *e);
    ph->p_type = PT_LOAD;
    ph->p_flags = PF_R | PF_X;
    ph->p_offset = ph->p_vaddr = ph->p_paddr = 4096;
    ph->p_filesz = ph->p_memsz = 4096;
    ph->p_align = 4096;
    memcpy(img + 4096, (const void *)(uintptr_t)(page + gbase), 4096);
    tmcap_em_vdso_bytes(em, page - 4096, img, sizeof img);
}

static void tb_start(unsigned vi, void *ud)
{
    blk *b = ud;
    vcpu *v = vcpu_of(vi);
    if (!v)
        return;
    if (atomic_load_explicit(&off, memory_order_relaxed)) {
        lock_drop(v);
        return;
    }
    /* a takeover here (the last block cut by a fault, or kept past its end)
     * found the thread between blocks: nothing of it ran unseen */
    if (!lock_take(v))
        return;
    if (atomic_load_explicit(&off, memory_order_relaxed)) {
        lock_give(v);
        return;
    }
    as_thread(v);
    if (!v->created) { /* a vCPU whose init QEMU did not report */
        v->created = 1;
        tmcap_em_thread_create(em, 0, v->fid);
    }
    if (!maps_done) {
        maps_done = 1;
        scan_maps();
    }
    if (b->tramp && !tramp_done) {
        tramp_done = 1;
        put_tramp(b->ia[0]);
    }
    resolve(v, b->ia[0]);
    if (!v->lwp)
        v->lwp = (pid_t)syscall(SYS_gettid);
    if (b->atomic) {
        /* its atomic instructions in time order (TMF_SYNC, docs/capture.md
         * §3), as far as QEMU lets: a thread behind it in time runs first
         * if it waits for the lock (one turn a block: waiting here longer
         * could wait for a thread that waits for this one to leave its
         * block, QEMU's exclusive sections) */
        turn_v = v;
        int go = tmcap_em_turn(em);
        turn_v = NULL;
        if (!go && (!v->hold || atomic_load_explicit(&off, memory_order_relaxed)))
            return;
    }
    /* the previous block is out: let the others run */
    if ((++v->run >= HANDOFF_BLOCKS || want_yield) && lock_wanted()) {
        v->run = 0;
        want_yield = 0;
        lock_give(v);
        if (!lock_take(v))
            return;
        as_thread(v);
    }
    v->cur = b;
    v->last_done = -1;
    if (atomic_load_explicit(&off, memory_order_relaxed))
        lock_give(v);
    else
        lock_leave(v); /* held while the block's guest code runs */
}

/* The exec callback of a block's last instruction when it accesses no
 * memory (QEMU runs it before the instruction: a control transfer, SVC /
 * ECALL, a trap...): the block's memory operands are out, a held-back
 * load follows them (the lock stays to the next block start). */
static void tb_end(unsigned vi, void *ud)
{
    (void)ud;
    vcpu *v = vi < MAX_VCPUS ? vcpus[vi] : NULL;
    if (!v || !v->hold || !enter_in_block(v))
        return;
    put_load(v);
    lock_leave(v); /* kept until the next block start, which emits this block's exit (tb_start) */
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (n == 0 || n > TMCAP_MAX_INSNS)
        return;
    blk *b = calloc(1, sizeof *b);
    if (b) {
        b->ia = calloc(n, sizeof *b->ia);
        b->il = calloc(n, sizeof *b->il);
        b->mayfault = calloc(n, 1);
        b->refs = calloc(n, sizeof *b->refs);
    }
    if (!b || !b->ia || !b->il || !b->mayfault || !b->refs) {
        fail_rec("out of memory");
        return;
    }
    b->ni = (unsigned)n;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
        const unsigned char *bytes = qemu_plugin_insn_data(in);
        unsigned sz = (unsigned)qemu_plugin_insn_size(in), len = 0;
        tmcap_word a = qemu_plugin_insn_vaddr(in), tgt = 0;
        if (!atomic_load(&gbase_known)) {
            gbase = (uint64_t)(uintptr_t)qemu_plugin_insn_haddr(in) - a;
            atomic_store(&gbase_known, 1);
        }
        int cls = tmcap_isa_op(isa, bytes, sz, a, &len, &tgt);
        if (len == 0)
            len = sz;
        b->ia[i] = a;
        b->il[i] = len;
        int mem = is_mem(bytes, sz);
        b->atomic |= is_atomic(bytes, sz);
        b->mayfault[i] = mem ? 1 : cls == TMCAP_C_TRAP ? 2 : 0;
        b->refs[i].b = b;
        b->refs[i].idx = (unsigned)i;
        qemu_plugin_register_vcpu_mem_cb(in, mem_cb, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, &b->refs[i]);
        if (i == 0 && !tramp_done && is_tramp(a, bytes, (unsigned)n, sz))
            b->tramp = 1;
        if (i == n - 1) {
            b->cls = cls;
            b->fall = a + len;
            b->target = tgt;
            b->nx = tmcap_isa_exits((unsigned)i, a, len, cls, tgt, b->xs);
            b->endrel = mem;
            if (mem == 0) /* registered after the memory callback: runs before the instruction */
                qemu_plugin_register_vcpu_insn_exec_cb(in, tb_end, QEMU_PLUGIN_CB_NO_REGS, b);
        }
    }
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_start, QEMU_PLUGIN_CB_NO_REGS, b);
    /* the descriptor goes out with the next block start (this may run while
     * another vCPU holds the big lock, and under QEMU's mmap lock) */
    while (atomic_flag_test_and_set_explicit(&pend_lock, memory_order_acquire))
        ;
    b->id = next_id++;
    if (pend_tail)
        pend_tail->next_pending = b;
    else
        pend_head = b;
    pend_tail = b;
    atomic_flag_clear_explicit(&pend_lock, memory_order_release);
}

/* ------------------------------------------------------------ system calls */

enum {
    G_exit = 93, G_exit_group = 94, G_kill = 129, G_tkill = 130, G_tgkill = 131, G_rt_sigaction = 134,
    G_rt_sigreturn = 139, G_clone = 220, G_mmap = 222, G_clone3 = 435
};
#define CLONE_VM_ 0x100u
#define CLONE_VFORK_ 0x4000u

static void sys_enter(qemu_plugin_id_t id, unsigned vi, int64_t num, uint64_t a1, uint64_t a2, uint64_t a3,
                      uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
    (void)id, (void)a7, (void)a8;
    tls_vcpu = (int)vi;
    if (atomic_load(&off))
        return;
    vcpu *v = vcpu_of(vi);
    if (!v)
        return;
    if (!lock_take(v))
        return;
    if (atomic_load(&off)) {
        lock_give(v);
        return;
    }
    as_thread(v);
    put_load(v);
    if (v->cur) { /* the block ends at the SVC / ECALL: it falls through */
        blk *p = v->cur;
        v->cur = NULL;
        tmcap_em_exec(em, tmcap_exec(p->id, 0));
        v->expect = p->fall;
        v->svc_pc = p->ia[p->ni - 1];
    }
    tmcap_word args[6] = {a1, a2, a3, a4, a5, a6};
    memcpy(v->sysargs, args, sizeof args);
    v->sysno = num;
    v->sigact_valid = 0;
    v->forking = 0;
    switch (num) {
    case G_rt_sigreturn:
        if (v->depth == 0) {
            fail_rec("rt_sigreturn without a signal the plugin saw");
            lock_give(v);
            return;
        }
        tmcap_em_syscall_pre(em, v->fid, (unsigned)num, args);
        tmcap_em_sigret(em, v->fid);
        v->depth--;
        v->after_sigret = 1;
        v->expect = 0;
        lock_give(v);
        return;
    case G_rt_sigaction:
        if (a2 && a1 < NSIG_ && p_copy(NULL, &v->sigact_handler, a2, 8))
            v->sigact_valid = 1;
        break;
    case G_exit: case G_exit_group:
        exit_status = (unsigned)a1 & 0xff;
        exit_seen = num == G_exit_group ? 2 : 1;
        break;
    case G_kill: case G_tkill:
        last_kill_sig = (int)a2;
        break;
    case G_tgkill:
        last_kill_sig = (int)a3;
        break;
    case G_clone:
        v->forking = !(a1 & CLONE_VM_) || (a1 & CLONE_VFORK_);
        break;
    case G_clone3: {
        uint64_t fl = 0;
        if (p_copy(NULL, &fl, a1, 8))
            v->forking = !(fl & CLONE_VM_) || (fl & CLONE_VFORK_);
        break;
    }
    default:
        break;
    }
    tmcap_em_syscall_pre(em, v->fid, (unsigned)num, args);
    if (v->forking)
        tmcap_em_fork_pre(em);
    lock_give(v);
}

static void sys_ret(qemu_plugin_id_t id, unsigned vi, int64_t num, int64_t ret)
{
    (void)id;
    tls_vcpu = (int)vi;
    vcpu *v = vi < MAX_VCPUS ? vcpus[vi] : NULL;
    if (!v || num == G_rt_sigreturn)
        return;
    if (v->forking && ret == 0) { /* the child of a fork: it runs untraced */
        atomic_store(&off, 1);
        tmcap_em_fork_child(em);
        return;
    }
    if (atomic_load(&off) || !lock_take(v))
        return;
    if (atomic_load(&off)) {
        lock_give(v);
        return;
    }
    as_thread(v);
    int err = ret < 0 && ret > -4096;
    tmcap_em_syscall_post(em, v->fid, (unsigned)num, v->sysargs, err ? (uint64_t)-ret : (uint64_t)ret, err);
    if (num == G_rt_sigaction && !err && v->sigact_valid) {
        uint64_t h = v->sigact_handler;
        handlers[v->sysargs[0]] = h > 1 ? h : 0; /* SIG_DFL 0, SIG_IGN 1 */
    }
    if (ret == -512 || ret == -513 || ret == -514 || ret == -516) /* restarted: the SVC runs again */
        v->expect = v->svc_pc;
    if (num == G_mmap && !err && (v->sysargs[2] & 4) && (int64_t)v->sysargs[4] >= 0) { /* PROT_EXEC, a file */
        char lk[64], path[4097];
        snprintf(lk, sizeof lk, "/proc/self/fd/%d", (int)v->sysargs[4]);
        ssize_t pl = readlink(lk, path, sizeof path - 1);
        if (pl > 0)
            tmcap_em_map(em, (uint64_t)ret, v->sysargs[1], v->sysargs[5], path, (unsigned)pl);
    }
    lock_give(v);
}

/* ------------------------------------------------------------ threads, end */

static void vcpu_init(qemu_plugin_id_t id, unsigned vi)
{
    (void)id;
    if (atomic_load(&off))
        return;
    vcpu *v = vcpu_of(vi);
    if (!v)
        return;
    /* runs in the creating thread (its clone), not the new one */
    vcpu *parent = tls_vcpu >= 0 && tls_vcpu < MAX_VCPUS ? vcpus[tls_vcpu] : NULL;
    vcpu *me = parent ? parent : v;
    int held = me->hold;
    if (!lock_take(me))
        return;
    drain_blocks();
    v->created = 1;
    v->cur = NULL;
    v->last_done = -1;
    v->expect = 0;
    v->depth = 0;
    v->pl_valid = 0;
    tmcap_em_thread_create(em, parent ? parent->fid : 0, v->fid);
    if (held)
        lock_leave(me);
    else
        lock_give(me);
}

static void vcpu_exit(qemu_plugin_id_t id, unsigned vi)
{
    (void)id;
    vcpu *v = vi < MAX_VCPUS ? vcpus[vi] : NULL;
    if (!v || atomic_load(&off) || !lock_take(v))
        return;
    if (!atomic_load(&off)) {
        as_thread(v);
        put_load(v);
        tmcap_em_thread_exit(em, v->fid);
    }
    v->created = 0;
    v->cur = NULL;
    lock_give(v);
}

/* The end (QEMU 7.2 calls it after its exclusive section: the other vCPUs
 * may run again; under the lock, nothing after END): exit_group's
 * status, or, without one, a death by a signal: the one a block was cut by
 * (SIGSEGV for an access, SIGTRAP or SIGILL for a trap), else the last one
 * the program sent itself (abort), else SIGKILL (docs/qemu.md §8). */
static void at_exit_locked(void);

static void at_exit(qemu_plugin_id_t id, void *ud)
{
    (void)id, (void)ud;
    /* QEMU 7.2 runs it after its exclusive section: the other threads may
     * run blocks again (their callbacks stay): under the lock (a holder
     * parked outside cpu_exec is taken over), and nothing after END */
    if (atomic_load(&off) || !em || !lock_take(&exit_v))
        return;
    at_exit_locked();
    atomic_store(&off, 1);
    tmcap_em_flush(em);
    lock_give(&exit_v);
}

static void at_exit_locked(void)
{
    for (unsigned i = 0; i < MAX_VCPUS; i++) {
        vcpu *v = vcpus[i];
        if (v && v->pl_valid) {
            as_thread(v);
            put_load(v);
        }
    }
    if (exit_seen) {
        tmcap_em_end(em, exit_status, 0);
        return;
    }
    int sig = last_kill_sig ? last_kill_sig : 9;
    for (unsigned i = 0; i < MAX_VCPUS; i++) {
        vcpu *v = vcpus[i];
        if (!v || !v->cur)
            continue;
        for (unsigned k = (unsigned)(v->last_done + 1); k < v->cur->ni; k++)
            if (v->cur->mayfault[k]) {
                sig = v->cur->mayfault[k] == 1 ? 11 : 5;
                break;
            }
    }
    tmcap_em_end(em, (unsigned)sig, 1);
}

/* ------------------------------------------------------------ install */

/* FD moved to the top of the descriptor table: the program shares QEMU's
 * descriptors, and its own then number as they would without the plugin. */
static int high_fd(int fd)
{
    struct rlimit rl;
    int top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= 65536
                  ? (int)rl.rlim_cur - 1
                  : 1023;
    for (int t = top; t > fd && t > top - 64; t--)
        if (fcntl(t, F_GETFD) < 0 && dup3(fd, t, O_CLOEXEC) == t) {
            close(fd);
            return t;
        }
    return fd;
}

static int arg_val(const char *arg, const char *key, const char **val)
{
    size_t k = strlen(key);
    if (strncmp(arg, key, k) || arg[k] != '=')
        return 0;
    *val = arg + k + 1;
    return 1;
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    if (info->version.min > TM_QEMU_PLUGIN_VERSION || info->version.cur < TM_QEMU_PLUGIN_VERSION) {
        fprintf(stderr, "tm_qemu: QEMU offers plugin API versions %d..%d, this plugin needs version %d\n",
                info->version.min, info->version.cur, TM_QEMU_PLUGIN_VERSION);
        return -1;
    }
    if (info->system_emulation) {
        fprintf(stderr, "tm_qemu: user mode only (qemu-aarch64, qemu-riscv64)\n");
        return -1;
    }
    if (!strcmp(info->target_name, "aarch64")) {
        isa = TM_ISA_AARCH64;
    } else if (!strcmp(info->target_name, "riscv64")) {
        isa = TM_ISA_RV64;
    } else {
        fprintf(stderr, "tm_qemu: target %s is not supported (aarch64, riscv64)\n", info->target_name);
        return -1;
    }
    int fd = -1;
    const char *out = NULL, *logf = NULL;
    for (int i = 0; i < argc; i++) {
        const char *v;
        if (arg_val(argv[i], "out", &v)) {
            out = v;
        } else if (arg_val(argv[i], "fd", &v)) {
            fd = atoi(v);
        } else if (arg_val(argv[i], "mem", &v)) {
            clo_mem = atoi(v) != 0;
        } else if (arg_val(argv[i], "store_values", &v)) {
            clo_store_values = atoi(v) != 0;
        } else if (arg_val(argv[i], "timing", &v)) {
            if (!tmf_cfg_parse(v, &timing_cfg)) {
                fprintf(stderr,
                        "tm_qemu: timing=%s: expected LINE/L1I/L1/L2/MEM/FLAGS/TURN/DRIFT, each cache "
                        "SIZE:WAYS:LAT, in range\n",
                        v);
                return -1;
            }
            clo_timed = 1;
        } else if (arg_val(argv[i], "log", &v)) {
            logf = v;
        } else {
            fprintf(stderr, "tm_qemu: unknown argument %s (out=FILE, fd=N, mem=0|1, store_values=0|1, timing=MACHINE, log=FILE)\n",
                    argv[i]);
            return -1;
        }
    }
    if (logf) {
        log_fd = open(logf, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (log_fd < 0) {
            fprintf(stderr, "tm_qemu: log=%s: cannot open it\n", logf);
            return -1;
        }
        log_fd = high_fd(log_fd);
    }
    if (out) {
        fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            fprintf(stderr, "tm_qemu: out=%s: cannot create it\n", out);
            return -1;
        }
        fd = high_fd(fd);
    }
    if (fd < 0) {
        fprintf(stderr, "tm_qemu: give out=FILE or fd=N\n");
        return -1;
    }
    /* not for a program the guest execs (QEMU runs it in this process) */
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    tmcap_em_cfg C;
    memset(&C, 0, sizeof C);
    C.fd = fd;
    C.ack_fd = -1;
    C.mem = clo_mem;
    C.store_values = clo_store_values;
    C.sys_from_syscalls = 1;
    C.timing = clo_timed ? &timing_cfg : NULL;
    if (clo_mem && !(shadow = calloc(1ul << SH_BITS, sizeof *shadow))) {
        fprintf(stderr, "tm_qemu: out of memory\n");
        return -1;
    }
    tmcap_platform P = {NULL, p_write, p_read, p_close, p_copy, p_readable, p_region, p_message, p_alloc, p_yield, p_asleep};
    em = tmcap_em_new_isa(&P, &C, isa);
    if (!em) {
        fprintf(stderr, "tm_qemu: out of memory\n");
        return -1;
    }
    qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
    qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_vcpu_syscall_cb(id, sys_enter);
    qemu_plugin_register_vcpu_syscall_ret_cb(id, sys_ret);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
