/* BranchEnumeration (thesis seeds/000 §4.1.3, Figs. 4.7-4.10), re-created.
 *
 * Every x86-64 control-transfer instruction the commit stream classifies,
 * executed once or a few times in a known direction, inside one function,
 * test_region, so that `tm record --filter-rtn test_region --mode mcftrace -a`
 * gives a short and exact descriptor list: tests/programs/expected/
 * branchenum.mcftrace.  Every branch, and every instruction a descriptor
 * names as a target, carries a label (b_*, t_*), which the expected file
 * uses as @label (the test resolves it with nm).
 *
 * A jcc that goes the wrong way lands on ud2 (SIGILL), so the program's
 * own flow is checked by its exit status.  No libc: _start switches to a
 * fixed stack, calls test_region, which ends the program with exit_group.
 * Built -nostdlib -static -no-pie (tests/programs/programs.mk). */
        .intel_syntax noprefix

        .text
        .globl  test_region
        .type   test_region, @function
test_region:
/* ---- Part 1: conditional direct branches, none taken (Fig. 4.7) ---- */
        mov     rax, 1
        cmp     rax, 2          /* -1: CF=1 ZF=0 SF=1 OF=0 PF=1 */
b_ja_nt:   ja    t_bad          /* jnbe: taken when CF=0 and ZF=0 */
b_jae_nt:  jae   t_bad          /* jnb: taken when CF=0 */
b_je_nt:   je    t_bad
b_jns_nt:  jns   t_bad
b_jnp_nt:  jnp   t_bad
b_jo_nt:   jo    t_bad
b_jge_nt:  jge   t_bad          /* SF != OF */
b_jg_nt:   jg    t_bad
        mov     rax, 2
        cmp     rax, 1          /* 1: CF=0 ZF=0 SF=0 OF=0 PF=0 */
b_jb_nt:   jb    t_bad
b_jbe_nt:  jbe   t_bad
b_js_nt:   js    t_bad
b_jp_nt:   jp    t_bad
b_jl_nt:   jl    t_bad
b_jle_nt:  jle   t_bad
        cmp     rax, rax        /* ZF=1 */
b_jne_nt:  jne   t_bad
        mov     rax, 0x7fffffffffffffff
        add     rax, 1          /* OF=1 */
b_jno_nt:  jno   t_bad
        /* the near (rel32) form, not taken */
        cmp     rax, rax
b_jne32_nt: jne.d32 t_bad
/* ---- Part 2: the loop family, not taken (Fig. 4.7 lines 15-21) ----
 * The counts come from memory: with `mov rcx, 1` right before it, VEX
 * folds the loop's side exit away (branchfold.S, t_record_regress.sh). */
        mov     rcx, [rip + one]
b_loop_nt:   loop   b_loop_nt   /* rcx 1 -> 0: falls through */
        mov     rcx, [rip + one]
b_loope_nt:  loope  b_loope_nt
        mov     rcx, [rip + one]
b_loopne_nt: loopne b_loopne_nt
        mov     rcx, [rip + one]
b_jrcxz_nt:  jrcxz  t_bad_near
        mov     rcx, [rip + big]  /* ecx = 0 but rcx != 0 */
b_jrcxz_nt2: jrcxz  t_bad_near
b_jecxz_t:   jecxz  t_jecxz     /* ecx = 0: taken (address-size prefix, 3 bytes) */
t_bad_near:
        ud2
t_jecxz:
/* ---- Part 3: conditional direct branches, taken ---- */
        mov     rax, 2
        cmp     rax, 1          /* CF=0 ZF=0 SF=0 OF=0 PF=0 */
b_ja_t:    ja    t_ja
        ud2
t_ja:
        mov     rax, 1
        cmp     rax, 2          /* CF=1 ZF=0 SF=1 OF=0 PF=1 */
b_jb_t:    jb    t_jb
        ud2
t_jb:
b_jp_t:    jp    t_jp
        ud2
t_jp:
b_js_t:    js    t_js
        ud2
t_js:
b_jl_t:    jl    t_jl
        ud2
t_jl:
        mov     rax, 0x7fffffffffffffff
        add     rax, 1          /* OF=1 */
b_jo_t:    jo    t_jo
        ud2
t_jo:
        xor     eax, eax        /* ZF=1 */
b_je_t:    je    t_je
        ud2
t_je:
b_jle_t:   jle   t_jle
        ud2
t_jle:
        /* backward taken: a loop of 3 iterations on jnz */
        mov     edx, 3
t_back:
        dec     edx
b_jnz_back: jnz  t_back         /* T, T, NT */
        /* the near form, taken */
        xor     eax, eax
b_je32_t:  je.d32 t_je32
        ud2
t_je32:
/* ---- Part 4: the loop family, taken (Fig. 4.11 lines 10-12) ---- */
        mov     rcx, [rip + three]
b_loop_t:    loop   b_loop_t    /* T, T, NT */
        mov     rcx, [rip + two]
        xor     eax, eax        /* ZF=1 */
b_loope_t:   loope  t_loope     /* rcx 2 -> 1, ZF=1: taken */
        ud2
t_loope:
        mov     rcx, [rip + two]
        cmp     rax, 1          /* ZF=0 */
b_loopne_t:  loopne t_loopne
        ud2
t_loopne:
        mov     rcx, [rip + zero]
b_jrcxz_t:   jrcxz  t_jrcxz
        ud2
t_jrcxz:
/* ---- Part 5: a branch whose target is the next instruction ---- */
        xor     eax, eax        /* ZF=1 */
b_je_next_t:  je     t_je_next  /* even condition code, taken */
t_je_next:
b_jne_next_nt: jne   t_jne_next /* odd condition code, not taken */
t_jne_next:
        cmp     rax, 1          /* ZF=0 */
b_je_next_nt: je     t_je_next2
t_je_next2:
b_jne_next_t: jne    t_jne_next2
t_jne_next2:
b_jne32_next_t:
        .byte   0x0f, 0x85, 0, 0, 0, 0   /* jne rel32 0, taken */
t_jne32_next:
        mov     rcx, [rip + two]
b_loop_next_t:  loop  t_loop_next  /* rcx 2 -> 1: taken */
t_loop_next:
b_loop_next_nt: loop  t_loop_next2 /* rcx 1 -> 0: not taken */
t_loop_next2:
b_jrcxz_next_t: jrcxz t_jrcxz_next /* rcx = 0: taken */
t_jrcxz_next:
b_jmp_next:     jmp   t_jmp_next   /* eb 00 */
t_jmp_next:
b_call_next:    call  t_call_next  /* pushes its own fall-through */
t_call_next:
        pop     rax
/* ---- Part 6: unconditional direct (Figs. 4.9, 4.10) ---- */
b_jmp:     jmp   t_label1       /* short */
        ud2
t_label1:
b_jmp32:   jmp.d32 t_label2     /* near */
        ud2
t_label2:
b_call:    call  print          /* direct call ("call puts") */
t_after_call:
/* ---- Part 7: unconditional indirect ----
 * Register targets come from memory: a target VEX can compute at
 * translation time (lea/mov then jmp rax) is taken for a direct jump
 * (branchfold.S). */
        mov     rax, [rip + p_ijmp_reg]
b_ijmp_reg:  jmp   rax
        ud2
t_ijmp_reg:
b_ijmp_mem:  jmp   qword ptr [rip + jt_mem]
        ud2
t_ijmp_mem:
        mov     edx, 1          /* a switch: case 1 of a jump table */
        lea     rsi, [rip + jtab]
b_ijmp_tab:  jmp   qword ptr [rsi + rdx*8]
        ud2
t_case0: ud2
t_case1:
        mov     rax, [rip + ct_mem]
b_icall_reg: call  rax
t_after_icall_reg:
b_icall_mem: call  qword ptr [rip + ct_mem]
t_after_icall_mem:
        push    0x1234          /* an argument that ret 8 removes */
b_call_ret8: call leaf_ret8
t_after_ret8:
/* ---- Part 8: rep-prefixed string instructions are not branches ---- */
        lea     rsi, [rip + msg]
        lea     rdi, [rip + scratch]
        mov     ecx, 5
        rep movsb               /* 5 iterations */
        lea     rdi, [rip + scratch]
        xor     ecx, ecx
        rep stosb               /* rcx = 0: no iteration */
        lea     rdi, [rip + scratch]
        mov     ecx, 4
        xor     eax, eax
        rep stosq               /* 4 iterations */
        lea     rsi, [rip + msg]
        lea     rdi, [rip + msg2]
        mov     ecx, 8
        repe cmpsb              /* stops at the first difference (3rd byte) */
        lea     rdi, [rip + msg]
        mov     ecx, 16
        mov     al, 'E'
        repne scasb             /* finds 'E' */
        lea     rsi, [rip + msg]
        mov     ecx, 3
        rep lodsb
b_after_rep: jmp  t_exit        /* the first descriptor after them */
        ud2
t_exit:
        mov     eax, 231        /* exit_group(0) */
        xor     edi, edi
        syscall
        ud2

/* write(1, msg, 18): the program's output ("call puts" in the thesis) */
print:
        mov     eax, 1
        mov     edi, 1
        lea     rsi, [rip + msg]
        mov     edx, 18
        syscall
b_print_ret: ret

leaf:
b_leaf_ret: ret

leaf_ret8:
b_ret8:    ret   8
t_bad:
        ud2
        .size   test_region, . - test_region

        .globl  _start
        .type   _start, @function
_start:
        lea     rsp, [rip + stack_top]
        call    test_region
        ud2
        .size   _start, . - _start

        .data
        .balign 8
zero:    .quad  0
one:     .quad  1
two:     .quad  2
three:   .quad  3
big:     .quad  0x100000000
p_ijmp_reg: .quad t_ijmp_reg
jt_mem:  .quad  t_ijmp_mem
ct_mem:  .quad  leaf
jtab:    .quad  t_case0, t_case1
msg:     .ascii "BranchEnumeration\n"
msg2:    .ascii "BrXnch.........."
scratch: .space 64

        .bss
        .balign 64
stack:   .space 4096
stack_top:
        .section .note.GNU-stack, "", @progbits
