/* traptortest.s (thesis seeds/000 §4.3.3, Figs. 4.30-4.35), re-created:
 * the three predictor tests, each a function recorded on its own with
 * `tm record --filter-rtn NAME --mode mcftraptor -a` (the model starts at
 * the function's first instruction with reset predictors; the function's
 * own last return, to _start, has no RAS entry):
 *   traptortest 1   gshare_test: Fig. 4.30, a loop of 10 taken jbe, the
 *                   exit (not taken) and two more not-taken jbe
 *   traptortest 2   ras_test: Fig. 4.32, funct(5) recursing to funct(0)
 *   traptortest 3   ibtb_test: Fig. 4.34, ten indirect calls of fpoint1
 *   traptortest 4   ras_test with funct(10): 12 calls deep, more than the
 *                   8-entry RAS the test uses (circular: the oldest are lost)
 * Expected descriptors (--gshare 256 --ras 8 --ibtb 16):
 * expected/traptortest{1,2,3,4}.mcftraptor, derived in their comments. */
        .intel_syntax noprefix
        .text

/* ---- Fig. 4.30: gshare ---- */
        .globl  gshare_test
        .type   gshare_test, @function
gshare_test:
        push    rbp
        mov     rbp, rsp
        mov     DWORD PTR [rbp-4], 0
        jmp     .L2
.L3:
        mov     eax, DWORD PTR [rbp-4]
        mov     DWORD PTR [rbp-8], eax
        add     DWORD PTR [rbp-4], 1
.L2:
        cmp     DWORD PTR [rbp-4], 9
g_jbe1: jbe     .L3
g_jbe2: jbe     .L3
g_jbe3: jbe     .L3
        pop     rbp
        ret
        .size   gshare_test, . - gshare_test

/* ---- Fig. 4.32: the return-address stack ---- */
        .globl  ras_test
        .type   ras_test, @function
ras_test:                       /* main of Fig. 4.32; edi = depth */
        push    rbp
        mov     rbp, rsp
        call    funct
t_main_after:
        leave
        ret
funct:
        push    rbp
        mov     rbp, rsp
        sub     rsp, 16
        mov     DWORD PTR [rbp-4], edi
        cmp     DWORD PTR [rbp-4], 0
r_je:   je      .L5
        sub     DWORD PTR [rbp-4], 1
        mov     eax, DWORD PTR [rbp-4]
        mov     edi, eax
        call    funct
t_funct_after:
        jmp     .L4
.L5:
        nop
.L4:
        leave
        ret
        .size   ras_test, . - ras_test

/* ---- Fig. 4.34: the indirect-target buffer ---- */
        .globl  ibtb_test
        .type   ibtb_test, @function
ibtb_test:
        push    rbp
        mov     rbp, rsp
        sub     rsp, 16
        mov     rax, [rip + p_fpoint1]
        mov     QWORD PTR [rbp-16], rax
        mov     DWORD PTR [rbp-4], 0
        jmp     .L4i
.L5i:
        mov     rdx, QWORD PTR [rbp-16]
        mov     eax, 0
i_call: call    rdx
        add     DWORD PTR [rbp-4], 1
.L4i:
        cmp     DWORD PTR [rbp-4], 9
i_jle:  jle     .L5i
        leave
        ret
fpoint1:
        push    rbp
        mov     rbp, rsp
        leave
        ret
        .size   ibtb_test, . - ibtb_test

        .globl  _start
        .type   _start, @function
_start:
        mov     rsi, [rsp + 16]         /* argv[1] */
        lea     rsp, [rip + stack_top]
        movzx   eax, byte ptr [rsi]
        cmp     eax, '1'
        je      1f
        cmp     eax, '2'
        je      2f
        cmp     eax, '3'
        je      3f
        mov     edi, 10
        call    ras_test
t_ret4: jmp     9f
1:      call    gshare_test
t_ret1: jmp     9f
2:      mov     edi, 5
        call    ras_test
t_ret2: jmp     9f
3:      call    ibtb_test
t_ret3:
9:      mov     eax, 231
        xor     edi, edi
        syscall
        .size   _start, . - _start

        .data
        .balign 8
p_fpoint1: .quad fpoint1
        .bss
        .balign 64
stack:  .space  8192
stack_top:
        .section .note.GNU-stack, "", @progbits
