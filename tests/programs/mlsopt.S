/* Loads tmtrace once recorded wrongly (run by tests/e2e/t_record_regress.sh;
 * expected descriptors in expected/mlsopt.mlstrace):
 * - a load whose value is overwritten in the same superblock before any
 *   use: VEX's optimizer removed it (the tool now instruments unoptimized
 *   IR).  The thesis's Example 1 (Fig. 4.17 lines 16-17, `uint8[i];
 *   sint8[i];`, Fig. 4.18 lines 16-17) is such code;
 * - atomic read-modify-writes (lock add, lock xadd, xchg): one load and one
 *   store each, once recorded as two loads and a store. */
        .intel_syntax noprefix
        .text
        .globl  test_region
        .type   test_region, @function
test_region:
o_st:   mov     byte ptr [rip + a], 1
o_ld1:  movzx   eax, byte ptr [rip + a]         /* dead: eax is overwritten */
o_ld2:  movzx   eax, byte ptr [rip + b]         /* dead */
        mov     eax, 5
o_add:  lock add dword ptr [rip + v], 1
o_xadd: lock xadd dword ptr [rip + v], eax
        mov     ecx, 9
o_xchg: xchg    dword ptr [rip + v], ecx
        mov     eax, 231
        xor     edi, edi
        syscall
        .size   test_region, . - test_region

        .globl  _start
        .type   _start, @function
_start:
        jmp     test_region
        .size   _start, . - _start

        .data
a:      .byte   0
b:      .byte   2
        .balign 4
v:      .long   0
        .section .note.GNU-stack, "", @progbits
