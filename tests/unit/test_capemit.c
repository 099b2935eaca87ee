/* The frontends' shared emitter (tm/capemit.h): exit classification and the
 * capture wire words, as docs/capture.md §2 defines them. */
#include <criterion/criterion.h>
#include <stdint.h>
#include "tm/capemit.h"

#define A 0x401000ull

static tmcap_exit cls(const unsigned char *b, unsigned len, int jk, int is_const, tmcap_word dst, int final)
{
    return tmcap_classify(3, A, len, b, jk, is_const, dst, final);
}

Test(capemit, conditional_branches)
{
    static const unsigned char jz8[] = {0x74, 0x10};            /* jz +0x10 */
    static const unsigned char jnz32[] = {0x0f, 0x85, 0, 1, 0, 0}; /* jnz +0x100 */
    tmcap_exit x = cls(jz8, 2, TMCAP_JK_BORING, 1, A + 2 + 0x10, 0);
    cr_assert_eq(x.kind, TMCAP_X_COND_T);
    cr_assert_eq(x.target, A + 0x12);
    cr_assert_eq(x.insn, 3);
    cr_assert_eq(x.flags, 0);
    x = cls(jz8, 2, TMCAP_JK_BORING, 1, A + 2, 1); /* falls through: not taken */
    cr_assert_eq(x.kind, TMCAP_X_COND_N);
    cr_assert_eq(x.target, A + 0x12, "the direct target even when not taken");
    x = cls(jnz32, 6, TMCAP_JK_BORING, 1, A + 6 + 0x100, 1);
    cr_assert_eq(x.kind, TMCAP_X_COND_T);
}

Test(capemit, branch_to_the_next_instruction)
{
    /* jz +0 (cc 4, even): the side exit is the "true" way */
    static const unsigned char jz0[] = {0x74, 0x00};
    cr_assert_eq(cls(jz0, 2, TMCAP_JK_BORING, 1, A + 2, 0).kind, TMCAP_X_COND_T);
    cr_assert_eq(cls(jz0, 2, TMCAP_JK_BORING, 1, A + 2, 1).kind, TMCAP_X_COND_N);
    /* jnz +0 (cc 5, odd): the other way round */
    static const unsigned char jnz0[] = {0x75, 0x00};
    cr_assert_eq(cls(jnz0, 2, TMCAP_JK_BORING, 1, A + 2, 0).kind, TMCAP_X_COND_N);
    cr_assert_eq(cls(jnz0, 2, TMCAP_JK_BORING, 1, A + 2, 1).kind, TMCAP_X_COND_T);
    /* loop +0: a side exit is taken, the end not */
    static const unsigned char loop0[] = {0xe2, 0x00};
    cr_assert_eq(cls(loop0, 2, TMCAP_JK_BORING, 1, A + 2, 0).kind, TMCAP_X_COND_T);
    cr_assert_eq(cls(loop0, 2, TMCAP_JK_BORING, 1, A + 2, 1).kind, TMCAP_X_COND_N);
}

Test(capemit, jumps_calls_returns)
{
    static const unsigned char jmp[] = {0xeb, 0x20};
    tmcap_exit x = cls(jmp, 2, TMCAP_JK_BORING, 1, A + 0x22, 1);
    cr_assert_eq(x.kind, TMCAP_X_JUMP);
    cr_assert_eq(x.target, A + 0x22);
    static const unsigned char ijmp[] = {0xff, 0xe0}; /* jmp rax */
    x = cls(ijmp, 2, TMCAP_JK_BORING, 0, 0, 1);
    cr_assert_eq(x.kind, TMCAP_X_IJUMP);
    cr_assert_eq(x.flags, TMCAP_XF_DYN);
    x = cls(ijmp, 2, TMCAP_JK_BORING, 1, A + 0x40, 1); /* the platform knows rax: still indirect */
    cr_assert_eq(x.kind, TMCAP_X_IJUMP);
    static const unsigned char call[] = {0xe8, 0x10, 0, 0, 0};
    cr_assert_eq(cls(call, 5, TMCAP_JK_CALL, 1, A + 0x15, 1).kind, TMCAP_X_CALL);
    static const unsigned char icall[] = {0xff, 0xd0}; /* call rax */
    cr_assert_eq(cls(icall, 2, TMCAP_JK_CALL, 1, A + 0x80, 1).kind, TMCAP_X_ICALL);
    cr_assert_eq(cls(icall, 2, TMCAP_JK_CALL, 0, 0, 1).kind, TMCAP_X_ICALL);
    static const unsigned char ret[] = {0xc3};
    x = cls(ret, 1, TMCAP_JK_RET, 0, 0, 1);
    cr_assert_eq(x.kind, TMCAP_X_RET);
    cr_assert_eq(x.flags, TMCAP_XF_DYN);
}

Test(capemit, faults_system_calls_rep)
{
    static const unsigned char ud2[] = {0x0f, 0x0b};
    cr_assert_eq(cls(ud2, 2, TMCAP_JK_SIG, 1, A, 1).kind, TMCAP_X_STAY, "the faulting instruction does not retire");
    static const unsigned char int3[] = {0xcc};
    cr_assert_eq(cls(int3, 1, TMCAP_JK_SIG, 1, A + 1, 1).kind, TMCAP_X_FALL, "int3 retires");
    static const unsigned char sys[] = {0x0f, 0x05};
    cr_assert_eq(cls(sys, 2, TMCAP_JK_OTHER, 1, A + 2, 1).kind, TMCAP_X_FALL);
    cr_assert_eq(cls(sys, 2, TMCAP_JK_OTHER, 1, A, 1).kind, TMCAP_X_STAY, "a restarted system call");
    static const unsigned char movsb[] = {0xf3, 0xa4}; /* rep movsb */
    cr_assert_eq(cls(movsb, 2, TMCAP_JK_BORING, 1, A, 0).kind, TMCAP_X_STAY);
    cr_assert_eq(cls(movsb, 2, TMCAP_JK_BORING, 1, A + 2, 1).kind, TMCAP_X_FALL);
    static const unsigned char nop[] = {0x90};
    cr_assert_eq(cls(nop, 1, TMCAP_JK_BORING, 1, A + 1, 1).kind, TMCAP_X_FALL);
    cr_assert_eq(cls(nop, 1, TMCAP_JK_BORING, 1, A + 0x99, 1).kind, TMCAP_X_JUMP,
                 "a constant destination past the instruction");
}

Test(capemit, block_descriptor)
{
    tmcap_word ia[3] = {A, A + 4, A + 7};
    unsigned il[3] = {4, 3, 2};
    tmcap_exit xs[2] = {{1, TMCAP_X_COND_T, 0, A + 0x40}, {2, TMCAP_X_IJUMP, TMCAP_XF_DYN, 0}};
    tmcap_word w[16];
    cr_assert_eq(tmcap_block_words(3, 2), 10);
    tmcap_block(w, 77, ia, il, 3, xs, 2);
    cr_assert_eq(w[0], TMCAP_BLOCK | 3ull << 8 | 2ull << 24);
    cr_assert_eq(w[1], 77);
    cr_assert_eq(w[2], A);
    cr_assert_eq(w[3], 4);
    cr_assert_eq(w[4], 3 | 4ull << 8);
    cr_assert_eq(w[5], 2 | 7ull << 8);
    cr_assert_eq(w[6], TMCAP_X_COND_T | 1ull << 8);
    cr_assert_eq(w[7], A + 0x40);
    cr_assert_eq(w[8], TMCAP_X_IJUMP | 2ull << 8 | (tmcap_word)TMCAP_XF_DYN << 24);
    cr_assert_eq(w[9], 0);
}

Test(capemit, event_words)
{
    cr_assert_eq(tmcap_exec(5, 2), TMCAP_EXEC | 2ull << 8 | 5ull << 16);
    cr_assert_eq(tmcap_mem(1, 1, 8, 3), TMCAP_MEM | TMCAP_MEM_STORE | TMCAP_MEM_NOVALUE | 8ull << 16 | 3ull << 24);
    cr_assert_eq(tmcap_mem(0, 0, 64, 0), TMCAP_MEM | 64ull << 16);
    cr_assert_eq(tmcap_sys_mem(4), TMCAP_MEM | 1ull << 8 | 1ull << 9 | 4ull << 16 | 0xffffull << 24);
    cr_assert_eq(tmcap_thread(9), TMCAP_THREAD | 9ull << 8);
    cr_assert_eq(tmcap_create(2, 1), TMCAP_CREATE | 2ull << 8 | 1ull << 32);
    cr_assert_eq(tmcap_exit_thread(2), TMCAP_EXIT | 2ull << 8);
    cr_assert_eq(tmcap_signal(1, 11), TMCAP_SIGNAL | 1ull << 8 | 11ull << 32);
    cr_assert_eq(tmcap_sigret(1), TMCAP_SIGRET | 1ull << 8);
    cr_assert_eq(tmcap_syscall(3, 0x1ffff, 1), TMCAP_SYSCALL | 3ull << 8 | 1ull << 32 | 0xffffull << 40);
    cr_assert_eq(tmcap_map(12), TMCAP_MAP | 12ull << 8);
    cr_assert_eq(tmcap_vdso(8192), TMCAP_VDSO | 8192ull << 8);
    cr_assert_eq(tmcap_end(3, 0), TMCAP_END | 3ull << 8);
    cr_assert_eq(tmcap_end(9, 1), TMCAP_END | 9ull << 8 | 1ull << 16);
    cr_assert_eq(tmcap_execve(4), TMCAP_EXECVE | 4ull << 8);
}

/* ---- the emitter (tmcap_em_*), with a platform that collects the stream ---- */

#include <string.h>

static unsigned char arena[4u << 20];
static size_t arena_used;
static tmcap_word out[1u << 16];
static size_t nout;

static long f_write(void *ctx, int fd, const void *p, unsigned long n)
{
    (void)ctx; (void)fd;
    cr_assert(n % 8 == 0 && nout + n / 8 <= sizeof out / 8);
    memcpy(out + nout, p, n);
    nout += n / 8;
    return (long)n;
}
static long f_read(void *ctx, int fd, void *p, unsigned long n) { (void)ctx; (void)fd; (void)p; (void)n; return 1; }
static void f_close(void *ctx, int fd) { (void)ctx; (void)fd; }
static int f_copy(void *ctx, void *dst, tmcap_word a, unsigned long n)
{
    (void)ctx;
    memcpy(dst, (const void *)(uintptr_t)a, n);
    return 1;
}
static int f_readable(void *ctx, tmcap_word a, unsigned long n) { (void)ctx; (void)a; (void)n; return 1; }
static tmcap_word f_region(void *ctx, tmcap_word a, tmcap_word hi, int *readable)
{
    (void)ctx; (void)a;
    *readable = 1;
    return hi;
}
static void f_message(void *ctx, const char *m) { (void)ctx; (void)m; }
static void *f_alloc(void *ctx, unsigned long n)
{
    (void)ctx;
    n = (n + 15) & ~15ul;
    if (arena_used + n > sizeof arena)
        return NULL;
    arena_used += n;
    return arena + arena_used - n;
}

static tmcap_em *new_em(int mem, int sysc)
{
    static const tmcap_platform P = {NULL, f_write, f_read, f_close, f_copy,
                                     f_readable, f_region, f_message, f_alloc, NULL, NULL};
    tmcap_em_cfg c = {1, mem, 1, NULL, -1, 0, 0, sysc, NULL};
    arena_used = 0;
    nout = 0;
    tmcap_em *em = tmcap_em_new(&P, &c);
    cr_assert_not_null(em);
    return em;
}

Test(capemit, emitter_stream)
{
    tmcap_em *em = new_em(1, 0);
    tmcap_word ia[2] = {A, A + 3};
    unsigned il[2] = {3, 2};
    tmcap_exit xs[1] = {{1, TMCAP_X_RET, TMCAP_XF_DYN, 0}};
    tmcap_em_thread_create(em, 0, 1);
    tmcap_em_resume(em, 1);
    tmcap_em_block(em, 9, ia, il, 2, xs, 1);
    unsigned long long v = 0x1122334455667788ull;
    tmcap_em_mem(em, tmcap_mem(0, 0, 8, 1), (uintptr_t)&v);
    unsigned char ten[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    tmcap_em_mem_value(em, tmcap_mem(1, 0, 10, 1), 0x5000, ten);
    tmcap_em_exec_dyn(em, tmcap_exec(9, 0), A + 0x100);
    tmcap_em_end(em, 3, 0);
    size_t p = 0;
    cr_assert_eq(out[p++], TMCAP_MAGIC);
    cr_assert_eq(out[p++], tmcap_create(1, 0));
    cr_assert_eq(out[p++], 0, "its uid: the first thread's");
    cr_assert_eq(out[p++], tmcap_thread(1), "the thread the events are of");
    cr_assert_eq(out[p], TMCAP_BLOCK | 2ull << 8 | 1ull << 24);
    p += tmcap_block_words(2, 1);
    cr_assert_eq(out[p++], tmcap_mem(0, 0, 8, 1));
    cr_assert_eq(out[p++], (uintptr_t)&v);
    cr_assert_eq(out[p++], v, "a load's value read from memory");
    cr_assert_eq(out[p++], tmcap_mem(1, 0, 10, 1));
    cr_assert_eq(out[p++], 0x5000);
    cr_assert_eq(out[p++], 0x0807060504030201ull);
    cr_assert_eq(out[p++], 0x0a09ull, "the last word zero-padded");
    cr_assert_eq(out[p++], tmcap_exec(9, 0));
    cr_assert_eq(out[p++], A + 0x100);
    cr_assert_eq(out[p++], tmcap_end(3, 0));
    cr_assert_eq(p, nout);
}

Test(capemit, emitter_clone_words_are_watched)
{
    tmcap_em *em = new_em(1, 0);
    static unsigned ptid = 0;
    tmcap_word args[6] = {0x00100000 | 0x00200000, 0, (uintptr_t)&ptid, 0, 0, 0}; /* PARENT_SETTID */
    tmcap_em_resume(em, 1);
    tmcap_em_syscall_pre(em, 1, 56, args);
    tmcap_em_thread_create(em, 1, 2);
    ptid = 1234; /* the kernel writes the child's id, no callback says when */
    tmcap_em_post_mem_write(em, 1, (uintptr_t)&ptid, 4); /* left to the watch */
    tmcap_em_syscall_post(em, 1, 56, args, 1234, 0);
    tmcap_em_resume(em, 2); /* the child runs: the change is reported as its system write */
    tmcap_em_flush(em);
    size_t p = 1;
    cr_assert_eq(out[p++], tmcap_thread(1));
    cr_assert_eq(out[p++], tmcap_syscall(1, 56, 0));
    cr_assert_eq(out[p++], tmcap_create(2, 1));
    cr_assert_eq(out[p++], 1, "its uid: the second thread's");
    cr_assert_eq(out[p++], tmcap_syscall(1, 56, 1));
    cr_assert_eq(out[p++], tmcap_thread(2));
    cr_assert_eq(out[p++], tmcap_sys_mem(4));
    cr_assert_eq(out[p++], (uintptr_t)&ptid);
    cr_assert_eq(out[p++], 1234);
    cr_assert_eq(p, nout);
    /* reported once: the watch is done */
    nout = 0;
    tmcap_em_resume(em, 1);
    tmcap_em_resume(em, 2);
    tmcap_em_flush(em);
    cr_assert_eq(nout, 2);
}

Test(capemit, emitter_execve_and_fork_child)
{
    tmcap_em *em = new_em(0, 0);
    tmcap_word args[6] = {0};
    tmcap_em_syscall_pre(em, 1, 59, args);
    cr_assert_eq(nout, 3, "execve: the stream so far is out (magic, SYSCALL, EXECVE)");
    cr_assert_eq(out[2], tmcap_execve(1));
    tmcap_em_fork_child(em);
    tmcap_em_syscall_pre(em, 1, 59, args);
    tmcap_em_end(em, 0, 0);
    cr_assert_eq(nout, 3, "a forked child emits nothing");
}

Test(capemit, emitter_system_calls_without_memory_events)
{
    /* Pin: a read's output, brk's growth over an unmapped range */
    tmcap_em *em = new_em(1, 1);
    static unsigned char buf[100];
    memset(buf, 7, sizeof buf);
    tmcap_word args[6] = {3, (uintptr_t)buf, 100, 0, 0, 0};
    tmcap_em_resume(em, 1);
    tmcap_em_syscall_pre(em, 1, 0, args);
    tmcap_em_syscall_post(em, 1, 0, args, 70, 0);
    tmcap_em_flush(em);
    size_t p = 2;
    cr_assert_eq(out[p++], tmcap_syscall(1, 0, 0));
    cr_assert_eq(out[p++], tmcap_syscall(1, 0, 1));
    cr_assert_eq(out[p], tmcap_sys_mem(64), "70 bytes read: 64 + 6");
    cr_assert_eq(out[p + 1], (uintptr_t)buf);
    p += 2 + 8;
    cr_assert_eq(out[p], tmcap_sys_mem(6));
    cr_assert_eq(out[p + 1], (uintptr_t)buf + 64);
    p += 2 + 1;
    cr_assert_eq(p, nout);
    /* a failed read writes nothing */
    nout = 0;
    tmcap_em_syscall_post(em, 1, 0, args, 11, 1);
    tmcap_em_flush(em);
    cr_assert_eq(nout, 1);
    /* brk: the first answer is the break; shrinking unmaps, growing again
     * gives new contents there */
    static unsigned char heap[256];
    tmcap_word b0 = (uintptr_t)heap;
    tmcap_word z[6] = {0};
    nout = 0;
    tmcap_em_syscall_post(em, 1, 12, z, b0 + 256, 0);
    tmcap_em_syscall_post(em, 1, 12, z, b0 + 128, 0);
    tmcap_em_syscall_post(em, 1, 12, z, b0 + 192, 0);
    tmcap_em_flush(em);
    cr_assert_eq(nout, 3 + 2 + 8, "three system calls, then 64 new bytes");
    cr_assert_eq(out[3], tmcap_sys_mem(64));
    cr_assert_eq(out[4], b0 + 128);
}

Test(capemit, syscall_writes_table)
{
    tmcap_word a[4], l[4];
    tmcap_word rd[6] = {0, 0x1000, 50, 0, 0, 0};
    cr_assert_eq(tmcap_syscall_writes(0, rd, 20, f_copy, NULL, a, l, 4), 1);
    cr_assert_eq(a[0], 0x1000);
    cr_assert_eq(l[0], 20, "read: what it returned, not what was asked");
    cr_assert_eq(tmcap_syscall_writes(0, rd, 0, f_copy, NULL, a, l, 4), 0, "end of file");
    tmcap_word st[6] = {0, 0x2000, 0, 0, 0, 0};
    cr_assert_eq(tmcap_syscall_writes(5, st, 0, f_copy, NULL, a, l, 4), 1);
    cr_assert_eq(l[0], 144, "fstat: struct stat");
    /* readv: the iovecs in memory */
    static tmcap_word iov[4] = {0x3000, 10, 0x4000, 100};
    tmcap_word rv[6] = {0, (uintptr_t)iov, 2, 0, 0, 0};
    cr_assert_eq(tmcap_syscall_writes(19, rv, 30, f_copy, NULL, a, l, 4), 2);
    cr_assert_eq(a[1], 0x4000);
    cr_assert_eq(l[1], 20);
    tmcap_word un[6] = {0x5000, 0, 0, 0, 0, 0};
    cr_assert_eq(tmcap_syscall_writes(39, un, 0, f_copy, NULL, a, l, 4), 0, "getpid writes nothing");
}

Test(capemit, maps_lines)
{
    tmcap_maps_line m;
    const char *s = "7f3a1c000000-7f3a1c021000 r-xp 00002000 08:01 131 /usr/lib/x86_64-linux-gnu/libc.so.6";
    cr_assert(tmcap_parse_maps_line(s, (unsigned)strlen(s), &m));
    cr_assert_eq(m.lo, 0x7f3a1c000000ull);
    cr_assert_eq(m.hi, 0x7f3a1c021000ull);
    cr_assert_eq(m.perms, 5);
    cr_assert_eq(m.off, 0x2000);
    cr_assert_eq(m.pathlen, strlen("/usr/lib/x86_64-linux-gnu/libc.so.6"));
    cr_assert(!memcmp(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", m.pathlen));
    const char *v = "7ffd5e9f0000-7ffd5e9f2000 r-xp 00000000 00:00 0                          [vdso]";
    cr_assert(tmcap_parse_maps_line(v, (unsigned)strlen(v), &m));
    cr_assert_eq(m.pathlen, 6);
    const char *anon = "7f0000000000-7f0000001000 rw-p 00000000 00:00 0";
    cr_assert(tmcap_parse_maps_line(anon, (unsigned)strlen(anon), &m));
    cr_assert_eq(m.pathlen, 0);
    cr_assert_eq(m.perms, 3);
    cr_assert(!tmcap_parse_maps_line("garbage", 7, &m));
    cr_assert(!tmcap_parse_maps_line("2000-1000 r-xp 0 0 0", 20, &m), "an empty range");
}

Test(capemit, last_exits_one_instruction_at_a_time)
{
    tmcap_exit xs[2];
    static const unsigned char jz8[] = {0x74, 0x10};
    cr_assert_eq(tmcap_last_exits(4, A, 2, jz8, TMCAP_JK_BORING, 1, A + 0x12, xs), 2);
    cr_assert_eq(xs[0].kind, TMCAP_X_COND_T);
    cr_assert_eq(xs[1].kind, TMCAP_X_COND_N);
    cr_assert_eq(xs[0].target, A + 0x12);
    cr_assert_eq(xs[1].target, A + 0x12);
    cr_assert_eq(xs[1].insn, 4);
    static const unsigned char jnz0[] = {0x75, 0x00}; /* both ways to the next instruction */
    cr_assert_eq(tmcap_last_exits(0, A, 2, jnz0, TMCAP_JK_BORING, 1, A + 2, xs), 2);
    cr_assert_eq(xs[0].kind, TMCAP_X_COND_T, "taken is taken, whatever the condition code");
    static const unsigned char movsb[] = {0xf3, 0xa4};
    cr_assert_eq(tmcap_last_exits(1, A, 2, movsb, TMCAP_JK_BORING, 1, A + 2, xs), 2);
    cr_assert_eq(xs[0].kind, TMCAP_X_STAY);
    cr_assert_eq(xs[0].target, A);
    cr_assert_eq(xs[1].kind, TMCAP_X_FALL);
    cr_assert_eq(xs[1].target, A + 2);
    static const unsigned char ret[] = {0xc3};
    cr_assert_eq(tmcap_last_exits(0, A, 1, ret, TMCAP_JK_RET, 0, 0, xs), 1);
    cr_assert_eq(xs[0].kind, TMCAP_X_RET);
    cr_assert_eq(xs[0].flags, TMCAP_XF_DYN);
    static const unsigned char sys[] = {0x0f, 0x05};
    cr_assert_eq(tmcap_last_exits(0, A, 2, sys, TMCAP_JK_OTHER, 1, A + 2, xs), 1);
    cr_assert_eq(xs[0].kind, TMCAP_X_FALL);
    static const unsigned char call[] = {0xe8, 0x10, 0, 0, 0};
    cr_assert_eq(tmcap_last_exits(0, A, 5, call, TMCAP_JK_CALL, 1, A + 0x15, xs), 1);
    cr_assert_eq(xs[0].kind, TMCAP_X_CALL);
    cr_assert_eq(xs[0].target, A + 0x15);
    static const unsigned char nop[] = {0x90};
    cr_assert_eq(tmcap_last_exits(0, A, 1, nop, TMCAP_JK_BORING, 1, A + 1, xs), 1);
    cr_assert_eq(xs[0].kind, TMCAP_X_FALL);
}

Test(capemit, rep_conditions)
{
    static const unsigned char movsb[] = {0xf3, 0xa4}, repe_cmpsb[] = {0xf3, 0xa6}, repne_scasb[] = {0xf2, 0xae},
                               repe_scasq[] = {0xf3, 0x48, 0xaf}, stosd[] = {0x66, 0xf3, 0xab};
    cr_assert_eq(tmcap_rep_cond(movsb, 2), 0);
    cr_assert_eq(tmcap_rep_cond(repe_cmpsb, 2), 1);
    cr_assert_eq(tmcap_rep_cond(repne_scasb, 2), 2);
    cr_assert_eq(tmcap_rep_cond(repe_scasq, 3), 1);
    cr_assert_eq(tmcap_rep_cond(stosd, 3), 0);
}

/* ---- a Pin-shaped stream gives the records a Valgrind-shaped one gives ----
 *
 * One execution, emitted twice through the emitter: as the Valgrind tool
 * emits it (VEX's blocks: a rep instruction's block loops on itself, its
 * first exit the zero count) and as the Pin tool does (tm_pin.cpp: BBLs,
 * exits at the last instruction from tmcap_last_exits, each iteration
 * STAY, a zero count after an iteration FALL from a block of the rep
 * instruction alone).  The capture layer must make the same records.
 * Block ids count from 1 in the order of their descriptors, as both tools
 * give them (the capture refuses others). */

#include "tm/capture.h"

typedef struct rlog {
    tmc_record r[512];
    size_t n;
} rlog;

static int rlog_on(void *arg, const tmc_record *r)
{
    rlog *l = arg;
    cr_assert_lt(l->n, 512);
    l->r[l->n++] = *r;
    return 0;
}

static void capture_of(rlog *l)
{
    tm_cap_cfg cfg = {.threads = 2};
    tm_cap_sink sink = {rlog_on, NULL, l, NULL, NULL};
    tm_cap *c = NULL;
    memset(l, 0, sizeof *l);
    cr_assert_eq(tm_cap_new(&cfg, &sink, &c), TM_OK);
    cr_assert_eq(tm_cap_feed(c, out, nout * 8), TM_OK, "%s", tm_cap_error(c));
    cr_assert_eq(tm_cap_finish(c), TM_OK, "%s", tm_cap_error(c));
    tm_cap_free(c);
}

/* Code: I0 at C0 `mov rax, [rsi]` (3 bytes, a load); I1 `rep movsb` (2)
 * run with a count of 2 (each iteration a 1-byte load and store); I2
 * `repe cmpsb` (2) that stops at its first iteration (a mismatch, count
 * left 3); I3 `rep stosb` (2) with a zero count; I4 `ret`. */
#define C0 0x401000ull
static const unsigned char movsb[] = {0xf3, 0xa4}, cmpsb[] = {0xf3, 0xa6},
                           stosb[] = {0xf3, 0xaa}, retb[] = {0xc3};
static unsigned char src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8];

static void mem_ld(tmcap_em *em, unsigned insn, const void *p, unsigned size)
{
    tmcap_em_mem(em, tmcap_mem(0, 0, size, insn), (uintptr_t)p);
}
static void mem_st(tmcap_em *em, unsigned insn, const void *p, unsigned size)
{
    tmcap_em_mem(em, tmcap_mem(1, 0, size, insn), (uintptr_t)p);
}

static void vg_shaped(void)
{
    tmcap_em *em = new_em(1, 0);
    tmcap_em_thread_create(em, 0, 1);
    tmcap_em_resume(em, 1);
    /* B1 = [I0, I1]: exit 0 = the zero count (side), exit 1 = loop (end) */
    tmcap_word ia[2] = {C0, C0 + 3};
    unsigned il[2] = {3, 2};
    tmcap_exit x[2] = {tmcap_classify(1, C0 + 3, 2, movsb, TMCAP_JK_BORING, 1, C0 + 5, 0),
                       tmcap_classify(1, C0 + 3, 2, movsb, TMCAP_JK_BORING, 1, C0 + 3, 1)};
    tmcap_em_block(em, 1, ia, il, 2, x, 2);
    mem_ld(em, 0, src, 8);
    mem_ld(em, 1, src, 1);
    mem_st(em, 1, dst, 1);
    tmcap_em_exec(em, tmcap_exec(1, 1));
    /* B2 = [I1] */
    tmcap_exit y[2] = {tmcap_classify(0, C0 + 3, 2, movsb, TMCAP_JK_BORING, 1, C0 + 5, 0),
                       tmcap_classify(0, C0 + 3, 2, movsb, TMCAP_JK_BORING, 1, C0 + 3, 1)};
    tmcap_em_block(em, 2, ia + 1, il + 1, 1, y, 2);
    mem_ld(em, 0, src + 1, 1);
    mem_st(em, 0, dst + 1, 1);
    tmcap_em_exec(em, tmcap_exec(2, 1));
    tmcap_em_exec(em, tmcap_exec(2, 0)); /* count zero: done */
    /* B3 = [I2]: exit 0 zero count (side), exit 1 condition holds: again
     * (side), exit 2 done (end) */
    tmcap_word ib = C0 + 5;
    unsigned lb = 2;
    tmcap_exit z[3] = {tmcap_classify(0, C0 + 5, 2, cmpsb, TMCAP_JK_BORING, 1, C0 + 7, 0),
                       tmcap_classify(0, C0 + 5, 2, cmpsb, TMCAP_JK_BORING, 1, C0 + 5, 0),
                       tmcap_classify(0, C0 + 5, 2, cmpsb, TMCAP_JK_BORING, 1, C0 + 7, 1)};
    tmcap_em_block(em, 3, &ib, &lb, 1, z, 3);
    mem_ld(em, 0, src, 1);
    mem_ld(em, 0, dst, 1);
    tmcap_em_exec(em, tmcap_exec(3, 2));
    /* B4 = [I3] (zero count: the side exit at once), B5 = [I4] */
    tmcap_word ic = C0 + 7;
    tmcap_exit s[2] = {tmcap_classify(0, C0 + 7, 2, stosb, TMCAP_JK_BORING, 1, C0 + 9, 0),
                       tmcap_classify(0, C0 + 7, 2, stosb, TMCAP_JK_BORING, 1, C0 + 7, 1)};
    tmcap_em_block(em, 4, &ic, &lb, 1, s, 2);
    tmcap_em_exec(em, tmcap_exec(4, 0));
    tmcap_word id = C0 + 9;
    unsigned ld = 1;
    tmcap_exit r = tmcap_classify(0, C0 + 9, 1, retb, TMCAP_JK_RET, 0, 0, 1);
    tmcap_em_block(em, 5, &id, &ld, 1, &r, 1);
    mem_ld(em, 0, src, 8);
    tmcap_em_exec_dyn(em, tmcap_exec(5, 0), C0);
    tmcap_em_thread_exit(em, 1);
    tmcap_em_end(em, 0, 0);
}

/* The Pin tool's calls for the same execution (tm_pin.cpp: block,
 * a_rep_before, a_rep_after, a_exit_dyn). */
static void pin_shaped(void)
{
    tmcap_em *em = new_em(1, 1);
    tmcap_em_thread_create(em, 0, 1);
    tmcap_em_resume(em, 1);
    tmcap_exit x[2];
    /* BBL [I0, I1] and its solo block [I1] */
    tmcap_word ia[2] = {C0, C0 + 3};
    unsigned il[2] = {3, 2};
    cr_assert_eq(tmcap_last_exits(1, C0 + 3, 2, movsb, TMCAP_JK_BORING, 1, C0 + 5, x), 2);
    tmcap_em_block(em, 1, ia, il, 2, x, 2);
    tmcap_exit sx[2] = {x[0], x[1]};
    sx[0].insn = sx[1].insn = 0;
    tmcap_em_block(em, 2, ia + 1, il + 1, 1, sx, 2);
    cr_assert_eq(tmcap_rep_cond(movsb, 2), 0);
    mem_ld(em, 0, src, 8);
    mem_ld(em, 1, src, 1);
    mem_st(em, 1, dst, 1);
    tmcap_em_exec(em, tmcap_exec(1, 0)); /* iteration 1: again (count 1) */
    /* Pin: iterations after the first are a one-instruction BBL */
    cr_assert_eq(tmcap_last_exits(0, C0 + 3, 2, movsb, TMCAP_JK_BORING, 1, C0 + 5, x), 2);
    tmcap_em_block(em, 3, ia + 1, il + 1, 1, x, 2);
    mem_ld(em, 0, src + 1, 1);
    mem_st(em, 0, dst + 1, 1);
    tmcap_em_exec(em, tmcap_exec(3, 0)); /* iteration 2: STAY ... */
    tmcap_em_exec(em, tmcap_exec(3, 1)); /* ... and the count is zero: FALL (its own solo block) */
    /* BBL [I2]: a mismatch at the first iteration: FALL */
    tmcap_word ib = C0 + 5;
    unsigned lb = 2;
    cr_assert_eq(tmcap_last_exits(0, C0 + 5, 2, cmpsb, TMCAP_JK_BORING, 1, C0 + 7, x), 2);
    cr_assert_eq(tmcap_rep_cond(cmpsb, 2), 1);
    tmcap_em_block(em, 4, &ib, &lb, 1, x, 2);
    mem_ld(em, 0, src, 1);
    mem_ld(em, 0, dst, 1);
    tmcap_em_exec(em, tmcap_exec(4, 1));
    /* BBL [I3]: zero count (IARG_EXECUTING false): FALL */
    tmcap_word ic = C0 + 7;
    cr_assert_eq(tmcap_last_exits(0, C0 + 7, 2, stosb, TMCAP_JK_BORING, 1, C0 + 9, x), 2);
    tmcap_em_block(em, 5, &ic, &lb, 1, x, 2);
    tmcap_em_exec(em, tmcap_exec(5, 1));
    /* BBL [I4] */
    tmcap_word id = C0 + 9;
    unsigned ld = 1;
    cr_assert_eq(tmcap_last_exits(0, C0 + 9, 1, retb, TMCAP_JK_RET, 0, 0, x), 1);
    tmcap_em_block(em, 6, &id, &ld, 1, x, 1);
    mem_ld(em, 0, src, 8);
    tmcap_em_exec_dyn(em, tmcap_exec(6, 0), C0);
    tmcap_em_thread_exit(em, 1);
    tmcap_em_end(em, 0, 0);
}

Test(capemit, pin_shaped_stream_gives_valgrinds_records)
{
    static rlog vg, pin;
    vg_shaped();
    capture_of(&vg);
    pin_shaped();
    capture_of(&pin);
    cr_assert_gt(vg.n, 8, "records: %zu", vg.n);
    size_t runs = 0, mems = 0;
    for (size_t i = 0; i < vg.n; i++) {
        runs += vg.r[i].type == TMC_RUN ? vg.r[i].count : 0;
        mems += vg.r[i].type == TMC_MEM;
    }
    cr_assert_eq(mems, 8);
    cr_assert_eq(pin.n, vg.n, "Pin-shaped: %zu records, Valgrind-shaped %zu", pin.n, vg.n);
    for (size_t i = 0; i < vg.n; i++) {
        const tmc_record *a = &vg.r[i], *b = &pin.r[i];
        cr_assert(a->type == b->type && a->tid == b->tid && a->cycle == b->cycle && a->pc == b->pc &&
                      a->count == b->count && a->bytes == b->bytes && a->target == b->target &&
                      a->bclass == b->bclass && a->taken == b->taken && a->size == b->size && a->addr == b->addr &&
                      !memcmp(a->value, b->value, a->size),
                  "record %zu differs: type %d/%d pc %llx/%llx count %llu/%llu", i, a->type, b->type,
                  (unsigned long long)a->pc, (unsigned long long)b->pc, (unsigned long long)a->count,
                  (unsigned long long)b->count);
    }
}

/* The turns of time at atomic instructions (TMF_SYNC): the platform's
 * yield when a running thread is behind, none once it sleeps in its futex
 * wait (the platform says so) or a wake released it at the waker's time. */
static unsigned yields, last_tries;
static int sleeping; /* what f_asleep answers */
static tmcap_word slept_on;
static void f_yield(void *ctx, unsigned tries)
{
    (void)ctx;
    yields++;
    last_tries = tries;
}
static int f_asleep(void *ctx, unsigned tid, tmcap_word a)
{
    (void)ctx;
    (void)tid;
    slept_on = a;
    return sleeping;
}

Test(capemit, turns_at_atomic_instructions)
{
    static const tmcap_platform P = {NULL, f_write, f_read, f_close, f_copy, f_readable,
                                     f_region, f_message, f_alloc, f_yield, f_asleep};
    tmf_cfg m;
    cr_assert(tmf_cfg_parse("64/0:0:0/0:0:0/0:0:0/0/20/0/0", &m)); /* ORDER | SYNC, nothing costs */
    tmcap_em_cfg c = {1, 0, 0, NULL, -1, 0, 0, 0, &m};
    arena_used = 0;
    nout = 0;
    yields = 0;
    sleeping = 0;
    tmcap_em *em = tmcap_em_new(&P, &c);
    cr_assert_not_null(em);
    tmcap_word ia[1] = {A};
    unsigned il[1] = {2};
    tmcap_exit xs[1] = {{0, TMCAP_X_COND_T, 0, A}};
    tmcap_em_thread_create(em, 0, 1);
    tmcap_em_thread_create(em, 1, 2);
    tmcap_em_resume(em, 1);
    tmcap_em_block(em, 1, ia, il, 1, xs, 1);
    for (int j = 0; j < 10; j++)
        tmcap_em_exec(em, tmcap_exec(1, 0)); /* T1 at 10, T2 at 0 */
    cr_assert_eq(tmcap_em_turn(em), 0, "T2 is behind T1");
    cr_assert_eq(yields, 1);
    cr_assert_eq(last_tries, 1);
    cr_assert_eq(tmcap_em_turn(em), 0);
    cr_assert_eq(last_tries, 2, "the second try in a row");
    /* T2 enters a futex wait on 0x7000; awake (it may return EAGAIN): waited for */
    tmcap_word wait[6] = {0x7000, 0 /* FUTEX_WAIT */, 1, 0, 0, 0};
    tmcap_em_resume(em, 2);
    tmcap_em_syscall_pre(em, 2, 202, wait);
    tmcap_em_resume(em, 1);
    cr_assert_eq(tmcap_em_turn(em), 0);
    cr_assert_eq(slept_on, 0x7000);
    /* asleep in the kernel: T1 goes on */
    sleeping = 1;
    unsigned y = yields;
    cr_assert_eq(tmcap_em_turn(em), 1);
    cr_assert_eq(yields, y);
    for (int j = 0; j < 10; j++)
        tmcap_em_exec(em, tmcap_exec(1, 0)); /* T1 at 20 */
    /* T1 wakes one waiter of 0x7000: T2 runs again from T1's 20 */
    tmcap_word wake[6] = {0x7000, 1 /* FUTEX_WAKE */, 1, 0, 0, 0};
    tmcap_em_syscall_pre(em, 1, 202, wake);
    tmcap_em_syscall_post(em, 1, 202, wake, 1, 0);
    cr_assert_eq(tmcap_em_turn(em), 1, "T2 at T1's time: not behind");
    tmcap_em_exec(em, tmcap_exec(1, 0)); /* T1 at 21 */
    sleeping = 0;
    cr_assert_eq(tmcap_em_turn(em), 0, "T2 (released, at 20) is behind");
    tmcap_em_resume(em, 2);
    tmcap_em_syscall_post(em, 2, 202, wait, 0, 0);
    cr_assert_eq(tmcap_em_turn(em), 1, "T2 itself is not behind anyone");
}
