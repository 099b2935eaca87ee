/* BranchTest (thesis seeds/000 §4.1.3, Figs. 4.11-4.12), re-created: main
 * of Fig. 4.11 is test_region; puts and test are functions of their own,
 * so `tm record --filter-rtn test_region --mode mcftrace` lists the
 * branches of test_region only (its call of puts, not puts's return).
 * Expected descriptors: expected/branchtest.mcftrace.
 *
 * One change: Fig. 4.11 line 21 loads the indirect call's target as an
 * immediate (mov rax, OFFSET FLAT:test); here it comes from memory.  With
 * the immediate, VEX knows the target at translation time and the call is
 * recorded as a direct call (branchfold.S, t_record_regress.sh). */
        .intel_syntax noprefix
        .text
        .globl  test_region
        .type   test_region, @function
test_region:
        push    rbp
        mov     rbp, rsp
Label1:
        mov     rax, 2
        cmp     rax, 1
b_jnbe: jnbe    Label2
        test    rax, rax
Label2:
        cmp     rax, 2
b_jz:   jz      Label3          /* taken, to the next instruction */
Label3:
        mov     rcx, 5
Label4:
        loop    Label4          /* taken 4 times, then not taken */

        /* setup puts */
        lea     rdi, [rip + LC0]
        /* unconditional direct branch - call */
b_call_puts:
        call    puts

        /* unconditional indirect branch - call */
        mov     rax, [rip + p_test]
b_call_rax:
        call    rax
        leave
b_ret:  ret
        .size   test_region, . - test_region

/* puts(s): write(1, s, 11) */
        .type   puts, @function
puts:
        mov     rsi, rdi
        mov     eax, 1
        mov     edi, 1
        mov     edx, 11
        syscall
        ret
        .size   puts, . - puts

        .type   test, @function
test:
        mov     eax, 7
        ret
        .size   test, . - test

        .globl  _start
        .type   _start, @function
_start:
        lea     rsp, [rip + stack_top]
        call    test_region
t_after_main:
        mov     edi, eax        /* exit status: test's 7 */
        mov     eax, 231
        syscall
        .size   _start, . - _start

        .data
        .balign 8
p_test: .quad   test
LC0:    .ascii  "BranchTest\n"

        .bss
        .balign 64
stack:  .space  4096
stack_top:
        .section .note.GNU-stack, "", @progbits
