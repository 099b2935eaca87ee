/* multiblock.s (thesis seeds/000 §4.4.3, Figs. 4.44-4.45), re-created:
 * main of Fig. 4.44 is test_region, recorded as evict.S is (a 32-byte,
 * 2-way cache of 16-byte lines): 32-byte AVX operands span two lines.
 * Changes: the four quadwords are distinct (not 0), so the descriptor shows
 * the byte order; the first 32-byte load (Fig. 4.44 line 25) goes to ymm3,
 * not ymm1: a load whose register is overwritten in the same superblock
 * without a use is dropped by VEX and not traced (mlsopt.S).
 *
 * T = stack_top (64-byte aligned); after push rbp / and rsp, -32, rsp =
 * T-32.  Stores: T-16 (push; miss), T-40 (miss, line T-48), T-48 (hit),
 * T-56 (miss, line T-64, evicts T-16), T-64 (hit).  The four 8-byte loads
 * hit with their flags set: fahCnt 4.  The 32-byte store at T-96 misses in
 * both lines (T-96 evicts T-48, T-80 evicts T-64); the 32-byte load hits:
 * fahCnt 5.  The store at T-128 evicts line T-96; the second 32-byte load
 * misses in both lines: reported with fahCnt 5.  leave (T-16: miss) and ret
 * (T-8: flags not set) are reported with fahCnt 0
 * (expected/multiblock.mlvcfiat). */
        .intel_syntax noprefix
        .text
        .globl  test_region
        .type   test_region, @function
test_region:
        push    rbp
        mov     rbp, rsp
        and     rsp, -32

        movabs  rax, 0x0102030405060708
        mov     QWORD PTR [rsp-8], rax
        movabs  rax, 0x1112131415161718
        mov     QWORD PTR [rsp-16], rax
        movabs  rax, 0x2122232425262728
        mov     QWORD PTR [rsp-24], rax
        movabs  rax, 0x3132333435363738
        mov     QWORD PTR [rsp-32], rax

        vmovsd  xmm0, QWORD PTR [rsp-8]
        vmovsd  xmm1, QWORD PTR [rsp-16]
        vunpcklpd xmm1, xmm1, xmm0
        vmovsd  xmm0, QWORD PTR [rsp-24]
        vmovsd  xmm2, QWORD PTR [rsp-32]
        vunpcklpd xmm0, xmm2, xmm0
        vinsertf128 ymm0, ymm0, xmm1, 0x1

        vmovapd YMMWORD PTR [rsp-64], ymm0
        vmovapd ymm3, YMMWORD PTR [rsp-64]

        mov     QWORD PTR [rsp-96], 1

        vmovapd ymm1, YMMWORD PTR [rsp-64]

        leave
        ret
        .size   test_region, . - test_region

        .globl  _start
        .type   _start, @function
_start:
        lea     rsp, [rip + stack_top]
        movabs  rbp, 0x1122334455667788
        call    test_region
t_ret:
        vzeroupper
        mov     eax, 231
        xor     edi, edi
        syscall
        .size   _start, . - _start

        .bss
        .balign 64
stack:  .space  4096
stack_top:
        .section .note.GNU-stack, "", @progbits
