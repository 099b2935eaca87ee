/* Branches whose outcome or target VEX knows when it translates the block
 * (the thesis's own patterns: Fig. 4.7 lines 15-21, `mov rcx, 1` then
 * `loop`; Fig. 4.11 lines 21-22, `mov rax, OFFSET FLAT:test` then
 * `call rax`).  VEX's optimizer folds the loop's side exit away or turns the
 * indirect transfer into a constant one, and tmtrace once recorded a plain
 * instruction, a not-taken loop, a direct call or a direct jump.  Run by
 * tests/e2e/t_record_regress.sh: expected
 * descriptors in expected/branchfold.mcftrace. */
        .intel_syntax noprefix
        .text
        .globl  test_region
        .type   test_region, @function
test_region:
        /* Fig. 4.7 lines 15-21: not taken */
        mov     rcx, 1
loop1:  loop    loop1
        mov     rcx, 1
loop2:  loope   loop2
        mov     rcx, 1
loop3:  loopne  loop3
        mov     rcx, 1
b_jrcxz: jrcxz  t_bad
        /* a loop to the next instruction, taken (rcx 2 -> 1) */
        mov     rcx, 2
b_loop_next: loop t_next
t_next:
        /* Fig. 4.11 lines 21-22 */
        mov     rax, OFFSET FLAT:test
b_call_rax: call rax
        /* an indirect jump whose target is known */
        lea     rax, [rip + t_ij]
b_jmp_rax: jmp  rax
        ud2
t_ij:
        /* an indirect jump to the next instruction */
        lea     rax, [rip + t_ij2]
b_jmp_rax_next: jmp rax
t_ij2:
        mov     eax, 231
        xor     edi, edi
        syscall
t_bad:  ud2
        .size   test_region, . - test_region

        .type   test, @function
test:   ret
        .size   test, . - test

        .globl  _start
        .type   _start, @function
_start:
        lea     rsp, [rip + stack_top]
        call    test_region
        ud2
        .size   _start, . - _start

        .bss
        .balign 64
stack:  .space  4096
stack_top:
        .section .note.GNU-stack, "", @progbits
