/* tm — the instruction sets whose programs tm traces (issue 37), one number
 * per ISA as the capture stream (tm/capwire.h, the ISA event), the commit
 * stream's header (docs/spec.md §2.1) and the trace file's header (§5) carry
 * it.  0 is x86-64, which every file written before the other ISAs is.
 * No includes and no library calls: the frontends' tools include it. */
#ifndef TM_ISA_H
#define TM_ISA_H

enum {
    TM_ISA_X86_64 = 0,  /* x86-64 (Valgrind, Pin, Intel PT) */
    TM_ISA_AARCH64 = 1, /* AArch64, A64 instructions (QEMU): tm/a64op.h */
    TM_ISA_RV64 = 2,    /* RISC-V RV64GC (QEMU): tm/rvop.h */
    TM_ISA_COUNT
};

/* The ISA's name as the command line and the files' listings say it
 * ("x86-64", "aarch64", "riscv64"), "?" for a number that is none. */
static inline const char *tm_isa_name(int isa)
{
    return isa == TM_ISA_X86_64 ? "x86-64" : isa == TM_ISA_AARCH64 ? "aarch64" : isa == TM_ISA_RV64 ? "riscv64" : "?";
}

#endif
