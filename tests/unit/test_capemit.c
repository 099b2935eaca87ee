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
