/* evict.s (thesis seeds/000 §4.4.3, Figs. 4.42-4.43), re-created: main of
 * Fig. 4.42 is test_region.  Recorded with `tm record --cfiat --cache 32
 * --assoc 2 --line 16 --granularity 4 --filter-rtn test_region --mode
 * mlvcfiat -a`: one set of two 16-byte lines.  _start gives it a stack of
 * its own (64-byte aligned) and a known rbp, so the two load values are
 * known: expected/evict.mlvcfiat.
 *
 * With T = stack_top: the call (untraced) stores the return address at
 * T-8; push rbp stores at T-16 (miss: line T-16); the loop stores i at
 * T-64+4i, i = 0..8: misses at i = 0 (line T-64), 4 (line T-48, evicts line
 * T-16) and 8 (line T-32, evicts line T-64), hits otherwise; leave loads
 * T-16 (miss: reported, fahCnt 0); ret loads T-8 (a hit, but the leave set
 * only the flags of T-16..T-9: reported, fahCnt 0). */
        .intel_syntax noprefix
        .text
        .globl  test_region
        .type   test_region, @function
test_region:
        push    rbp
        mov     rbp, rsp
        mov     ecx, 0
        jmp     .L2
.L3:
        mov     eax, ecx
        cdqe
        mov     DWORD PTR [rbp-48+rax*4], eax
        add     ecx, 1
.L2:
        cmp     ecx, 8
        jle     .L3
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
        mov     eax, 231
        xor     edi, edi
        syscall
        .size   _start, . - _start

        .bss
        .balign 64
stack:  .space  4096
stack_top:
        .section .note.GNU-stack, "", @progbits
