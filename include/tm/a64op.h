/* tm — the AArch64 (A64) control transfers the trace distinguishes, from an
 * instruction's bytes: the AArch64 counterpart of tm/x86op.h (issue 37).
 * Header-only, no includes and no library calls, as tm/x86op.h: a Valgrind
 * tool is built without libc.
 *
 * Field names and encodings: the Arm Architecture Reference Manual for A-profile
 * (Arm ARM, DDI 0487), C4.1 "A64 instruction set encoding", section "Branches,
 * Exception Generating and System instructions", and the instructions' pages
 * in C6.2.  Every A64 instruction is one 32-bit word, little-endian in memory
 * (instruction fetches are little-endian whatever the data endianness).
 *
 * Not classified (TM_A64_OTHER): FEAT_PAuth_LR's RETAASPPC / RETABSPPC and
 * their register forms, FEAT_CMPBR's CB<cc> / CBB<cc> / CBH<cc> (compare and
 * branch, Armv9.6): the GNU objdump of binutils 2.40 knows none of them and
 * no C library of the cross toolchains contains them. */
#ifndef TM_A64OP_H
#define TM_A64OP_H

enum {
    TM_A64_OTHER = 0, /* no control transfer the trace reports */
    TM_A64_COND,      /* B.cond, BC.cond, CBZ, CBNZ, TBZ, TBNZ: direct, conditional */
    TM_A64_JUMP,      /* B: direct */
    TM_A64_CALL,      /* BL: direct, links X30 */
    TM_A64_ICALL,     /* BLR, BLRAA, BLRAB, BLRAAZ, BLRABZ: indirect, links X30 */
    TM_A64_IJUMP,     /* BR, BRAA, BRAB, BRAAZ, BRABZ: indirect */
    TM_A64_RET,       /* RET, RETAA, RETAB (a return hint to the predictor) */
    TM_A64_SYSCALL,   /* SVC: the supervisor call (Linux: a system call) */
    TM_A64_TRAP       /* always raises a synchronous exception in user space
                       * (EL0) instead of falling through: BRK, HLT, UDF (the
                       * permanently undefined space), and HVC, SMC, ERET,
                       * ERETAA, ERETAB, DRPS, which are UNDEFINED at EL0 */
};

/* X, an N-bit two's complement field (0 < N < 64, X < 2^N), sign-extended:
 * the Arm ARM's SignExtend(). */
static inline long long tm_a64_sext(unsigned long long x, unsigned n)
{
    unsigned long long m = 1ull << (n - 1);
    return (long long)(x ^ m) - (long long)m;
}

/* Bits HI..LO of W (the Arm ARM's W<HI:LO>). */
static inline unsigned tm_a64_bits(unsigned w, unsigned hi, unsigned lo)
{
    return (w >> lo) & ((2u << (hi - lo)) - 1u);
}

/* The byte offsets of the PC-relative branches (offset from the branch's own
 * address), each the field times 4 (imm:'00'), sign-extended:
 *   B, BL               imm26 = W<25:0>
 *   B.cond, BC.cond,
 *   CBZ, CBNZ           imm19 = W<23:5>
 *   TBZ, TBNZ           imm14 = W<18:5> */
static inline long long tm_a64_imm26(unsigned w) { return tm_a64_sext((unsigned long long)tm_a64_bits(w, 25, 0) << 2, 28); }
static inline long long tm_a64_imm19(unsigned w) { return tm_a64_sext((unsigned long long)tm_a64_bits(w, 23, 5) << 2, 21); }
static inline long long tm_a64_imm14(unsigned w) { return tm_a64_sext((unsigned long long)tm_a64_bits(w, 18, 5) << 2, 16); }

/* "Unconditional branch (register)": W<31:25> = 1101011, opc = W<24:21>,
 * op2 = W<20:16> (11111 in every allocated encoding), op3 = W<15:10>,
 * Rn = W<9:5>, op4 = W<4:0>.  op3 000000 with op4 00000 is the plain form (BR
 * Xn, BLR Xn, RET Xn; ERET and DRPS with Rn 11111); op3 00001M (M: key A
 * or B) is the pointer-authenticated form, with op4 11111 for the "zero
 * modifier" ones (BRAAZ, BLRAAZ, RETAA, ERETAA...: the modifier in Rm = op4
 * for BRAA / BLRAA, opc 1000 / 1001).  A TM_A64_* kind, OTHER if W is not
 * one of the branches. */
static inline int tm_a64_branch_reg(unsigned w)
{
    unsigned opc = tm_a64_bits(w, 24, 21), op3 = tm_a64_bits(w, 15, 10);
    unsigned rn = tm_a64_bits(w, 9, 5), op4 = tm_a64_bits(w, 4, 0);
    int plain = op3 == 0 && op4 == 0;
    int pac = op3 == 2 || op3 == 3;
    if (tm_a64_bits(w, 20, 16) != 31)
        return TM_A64_OTHER;
    switch (opc) {
    case 0: /* BR; BRAAZ, BRABZ */
        return plain || (pac && op4 == 31) ? TM_A64_IJUMP : TM_A64_OTHER;
    case 1: /* BLR; BLRAAZ, BLRABZ */
        return plain || (pac && op4 == 31) ? TM_A64_ICALL : TM_A64_OTHER;
    case 2: /* RET {Xn}; RETAA, RETAB (Rn and op4 11111) */
        return plain || (pac && rn == 31 && op4 == 31) ? TM_A64_RET : TM_A64_OTHER;
    case 4: /* ERET; ERETAA, ERETAB */
        return rn == 31 && (plain || (pac && op4 == 31)) ? TM_A64_TRAP : TM_A64_OTHER;
    case 5: /* DRPS */
        return rn == 31 && plain ? TM_A64_TRAP : TM_A64_OTHER;
    case 8: /* BRAA, BRAB Xn, Xm|SP */
        return pac ? TM_A64_IJUMP : TM_A64_OTHER;
    case 9: /* BLRAA, BLRAB Xn, Xm|SP */
        return pac ? TM_A64_ICALL : TM_A64_OTHER;
    default:
        return TM_A64_OTHER;
    }
}

/* "Exception generation": W<31:24> = 11010100, opc = W<23:21>, imm16 =
 * W<20:5>, op2 = W<4:2> (000), LL = W<1:0>.  opc 000: SVC (LL 01), HVC (10),
 * SMC (11); opc 001 LL 00: BRK; opc 010 LL 00: HLT.  (opc 101, DCPS1..3, is
 * Debug state only, and opc 011 LL 00, FEAT_TME's TCANCEL, ends a
 * transaction: OTHER.)  A TM_A64_* kind. */
static inline int tm_a64_exception(unsigned w)
{
    unsigned opc = tm_a64_bits(w, 23, 21), op2 = tm_a64_bits(w, 4, 2), ll = tm_a64_bits(w, 1, 0);
    if (op2 != 0)
        return TM_A64_OTHER;
    if (opc == 0)
        return ll == 1 ? TM_A64_SYSCALL : ll ? TM_A64_TRAP : TM_A64_OTHER;
    if ((opc == 1 || opc == 2) && ll == 0)
        return TM_A64_TRAP;
    return TM_A64_OTHER;
}

/* Classifies the instruction at P (AVAIL bytes readable there), whose address
 * is PC: a TM_A64_* kind.  *LEN: its length, 4, or 0 if AVAIL < 4 (then the
 * kind is OTHER).  For COND, JUMP and CALL, *TARGET is the direct target
 * (PC + the offset); otherwise *TARGET is left as it was. */
static inline int tm_a64_op(const unsigned char *p, unsigned avail, unsigned long long pc, unsigned *len,
                            unsigned long long *target)
{
    if (avail < 4) {
        *len = 0;
        return TM_A64_OTHER;
    }
    *len = 4;
    unsigned w = (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
    /* B / BL: op = W<31>, W<30:26> = 00101 */
    if ((w & 0x7C000000u) == 0x14000000u) {
        *target = pc + (unsigned long long)tm_a64_imm26(w);
        return w >> 31 ? TM_A64_CALL : TM_A64_JUMP;
    }
    /* B.cond (o0 = W<4> = 0) and BC.cond (FEAT_HBC, o0 = 1): W<31:24> =
     * 01010100, cond = W<3:0> (1110 and 1111 included: both "always") */
    if ((w & 0xFF000000u) == 0x54000000u) {
        *target = pc + (unsigned long long)tm_a64_imm19(w);
        return TM_A64_COND;
    }
    /* CBZ / CBNZ: sf = W<31>, W<30:25> = 011010, op = W<24>, Rt = W<4:0> */
    if ((w & 0x7E000000u) == 0x34000000u) {
        *target = pc + (unsigned long long)tm_a64_imm19(w);
        return TM_A64_COND;
    }
    /* TBZ / TBNZ: b5 = W<31>, W<30:25> = 011011, op = W<24>, b40 = W<23:19> */
    if ((w & 0x7E000000u) == 0x36000000u) {
        *target = pc + (unsigned long long)tm_a64_imm14(w);
        return TM_A64_COND;
    }
    if ((w & 0xFE000000u) == 0xD6000000u)
        return tm_a64_branch_reg(w);
    if ((w & 0xFF000000u) == 0xD4000000u)
        return tm_a64_exception(w);
    /* UDF #imm16: W<31:16> all zero (the "Reserved" group's op0 0000 with
     * op1 000000000: permanently undefined) */
    if ((w & 0xFFFF0000u) == 0)
        return TM_A64_TRAP;
    return TM_A64_OTHER;
}

#endif
