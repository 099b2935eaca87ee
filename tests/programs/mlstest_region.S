/* mlsTest's test region (mlstest.c): loads and stores of every operand size
 * the commit stream carries from x86-64 under Valgrind 3.19 (which has no
 * AVX-512): 1, 2, 4, 8, 10 (x87 tbyte), 16 (SSE) and 32 bytes (AVX), and
 * the implicit ones of read-modify-write, push/pop, cmpxchg, call/ret and
 * rep movsb.  No loaded value is dead (see below), and xchg and other
 * atomic read-modify-writes but cmpxchg are left to mlsopt.S (their load
 * is recorded twice; t_record_regress.sh).  Every memory instruction has a label (m_*), every datum a
 * symbol, and the stack is a buffer of its own, so that the descriptors of
 * `tm record --filter-rtn test_region --mode mlstrace --store -a` are exact
 * (expected/mlstest.mlstrace).  Ends the program with exit_group(0). */
        .intel_syntax noprefix
        .text
        .globl  test_region
        .type   test_region, @function
test_region:
        lea     rsp, [rip + mls_stack_top]
m_st1:  mov     byte ptr [rip + v1], 0x11
m_st2:  mov     word ptr [rip + v2], 0x2233
m_st4:  mov     dword ptr [rip + v4], 0x44556677
        movabs  rax, 0x0123456789abcdef
m_st8:  mov     qword ptr [rip + v8], rax
        /* Each load into a register of its own: VEX drops a load whose
         * value is overwritten in the same superblock before any use, and
         * tmtrace does not see it (mlsopt.S, t_record_regress.sh). */
m_ld1:  movzx   r8d, byte ptr [rip + v1]
m_ld2:  movzx   r9d, word ptr [rip + v2]
m_ld4:  mov     r10d, dword ptr [rip + v4]
m_ld8:  mov     rbx, qword ptr [rip + v8]
m_ld10: fld     tbyte ptr [rip + c10]           /* 2.5 */
m_st10: fstp    tbyte ptr [rip + v10]
m_fild: fild    dword ptr [rip + v4]            /* 4 bytes, as Fig. 4.20 line 5 */
m_fistp: fistp  dword ptr [rip + v4b]
m_ld16: movdqu  xmm0, xmmword ptr [rip + c16]
m_st16: movdqu  xmmword ptr [rip + v16], xmm0
m_ld32: vmovdqu ymm0, ymmword ptr [rip + c32]
m_st32: vmovdqu ymmword ptr [rip + v32], ymm0
m_rmw:  add     dword ptr [rip + v4], 1         /* load, then store */
m_push: push    rbx
m_pop:  pop     rdx
        mov     eax, 0x44556678
        mov     ecx, 0x99
m_cas:  lock cmpxchg dword ptr [rip + v4], ecx  /* load, then store (succeeds) */
m_call: call    leafm                           /* store of the return address */
m_call_ret:
        lea     rsi, [rip + c16]
        lea     rdi, [rip + vrep]
        mov     ecx, 2
m_rep:  rep movsb                               /* 2 x (load 1, store 1) */
        vzeroupper
        mov     eax, 231
        xor     edi, edi
        syscall
leafm:
m_ret:  ret                                     /* load of the return address */
        .size   test_region, . - test_region

        .data
        .balign 64
c32:    .byte   0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f
        .byte   0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f
v32:    .space  32
c16:    .byte   0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f
v16:    .space  16
c10:    .byte   0, 0, 0, 0, 0, 0, 0, 0xa0, 0x00, 0x40  /* 2.5: sign/exponent 0x4000, mantissa 0xa000000000000000 */
        .balign 16
v10:    .space  16
v8:     .quad   0
v4:     .long   0
v4b:    .long   0
v2:     .word   0
v1:     .byte   0
vrep:   .space  7

        .bss
        .balign 64
mls_stack:
        .space  1024
mls_stack_top:
        .section .note.GNU-stack, "", @progbits
