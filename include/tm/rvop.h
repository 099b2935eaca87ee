/* tm — the RISC-V (RV64GC) control transfers the trace distinguishes, from an
 * instruction's bytes: the RISC-V counterpart of tm/x86op.h (issue 37).
 * Header-only, no includes and no library calls, as tm/x86op.h: a Valgrind
 * tool is built without libc.
 *
 * Field names and encodings: The RISC-V Instruction Set Manual, Volume I:
 * Unprivileged ISA (version 20191213): §1.5 (instruction lengths), chapter 2
 * (RV32I: the B-type and J-type immediates, §2.3; JAL, JALR and the
 * branches, §2.5 "Control Transfer Instructions"; ECALL and EBREAK, §2.8),
 * chapter 16 ("C": the CB and CJ formats, §16.2; C.J, C.JR, C.JALR, C.BEQZ,
 * C.BNEZ, §16.4; C.EBREAK and the defined illegal instruction, §16.5) and
 * the instruction listings (RVC's; RV32/64G's).  Volume II (Privileged) for
 * MRET, SRET and the read-only CSRs.
 *
 * Lengths (§1.5): an instruction whose first 16-bit parcel has low bits
 * aa != 11 is 16 bits long (compressed); bbb11 with bbb != 111, 32 bits.  The
 * longer encodings (48 bits and up, none ratified) are not supported: the
 * length is reported as 0 (invalid).
 *
 * Calls and returns: RISC-V has no call or return instruction; JAL and JALR
 * link into any rd, and the manual's return-address-stack hints (§2.5,
 * "Unconditional Jumps", Table 2.1) say which of them a predictor should
 * treat as calls and returns, from rd and rs1, x1 (ra) and x5 (t0) being the
 * "link" registers:
 *     rd       rs1      rs1 == rd   RAS action           kind here
 *     !link    !link    -           none                 IJUMP
 *     !link    link     -           pop                  RET
 *     link     !link    -           push                 ICALL
 *     link     link     0           pop, then push       ICALL_RET
 *     link     link     1           push                 ICALL
 * and JAL pushes if rd is a link register (CALL), else does nothing (JUMP,
 * whatever rd).  C.JR rs1 is JALR x0, 0(rs1) and C.JALR rs1 is JALR x1,
 * 0(rs1) (so C.JALR t0 is a pop then push); C.J is JAL x0.  C.JAL (JAL x1,
 * RV32C only) is C.ADDIW in RV64C: OTHER. */
#ifndef TM_RVOP_H
#define TM_RVOP_H

enum {
    TM_RV_OTHER = 0, /* no control transfer the trace reports */
    TM_RV_COND,      /* BEQ, BNE, BLT, BGE, BLTU, BGEU, C.BEQZ, C.BNEZ: direct, conditional */
    TM_RV_JUMP,      /* JAL with rd not a link register (JAL x0: J), C.J: direct */
    TM_RV_CALL,      /* JAL with rd x1 or x5: direct, pushes */
    TM_RV_ICALL,     /* JALR / C.JALR that push (table above): indirect call */
    TM_RV_IJUMP,     /* JALR / C.JR that neither push nor pop: indirect jump */
    TM_RV_RET,       /* JALR / C.JR that pop: return */
    TM_RV_ICALL_RET, /* JALR / C.JALR that pop, then push (rd and rs1 two
                      * different link registers): a coroutine swap */
    TM_RV_SYSCALL,   /* ECALL (Linux: a system call) */
    TM_RV_TRAP       /* always raises an exception in user mode instead of
                      * falling through: EBREAK, C.EBREAK, the all-zero 16-bit
                      * parcel (defined illegal, §16.5; objdump's c.unimp),
                      * UNIMP (CSRRW x0, cycle, x0: a write to a read-only
                      * CSR, an illegal instruction by the privileged spec;
                      * the assembler's unimp), and MRET, SRET, illegal in
                      * U-mode */
};

/* X, an N-bit two's complement field (0 < N < 64, X < 2^N), sign-extended. */
static inline long long tm_rv_sext(unsigned long long x, unsigned n)
{
    unsigned long long m = 1ull << (n - 1);
    return (long long)(x ^ m) - (long long)m;
}

/* Bits HI..LO of I (the manual's inst[HI:LO]). */
static inline unsigned tm_rv_bits(unsigned i, unsigned hi, unsigned lo)
{
    return (i >> lo) & ((2u << (hi - lo)) - 1u);
}

/* x1 (ra) and x5 (t0): the link registers of the RAS hints. */
static inline int tm_rv_link(unsigned r)
{
    return r == 1 || r == 5;
}

/* The B-type immediate (BEQ...BGEU), a 13-bit even offset:
 * inst[31] = imm[12], inst[30:25] = imm[10:5], inst[11:8] = imm[4:1],
 * inst[7] = imm[11]. */
static inline long long tm_rv_imm_b(unsigned i)
{
    unsigned v = tm_rv_bits(i, 31, 31) << 12 | tm_rv_bits(i, 7, 7) << 11 | tm_rv_bits(i, 30, 25) << 5 |
                 tm_rv_bits(i, 11, 8) << 1;
    return tm_rv_sext(v, 13);
}

/* The J-type immediate (JAL), a 21-bit even offset: inst[31] = imm[20],
 * inst[30:21] = imm[10:1], inst[20] = imm[11], inst[19:12] = imm[19:12]. */
static inline long long tm_rv_imm_j(unsigned i)
{
    unsigned v = tm_rv_bits(i, 31, 31) << 20 | tm_rv_bits(i, 19, 12) << 12 | tm_rv_bits(i, 20, 20) << 11 |
                 tm_rv_bits(i, 30, 21) << 1;
    return tm_rv_sext(v, 21);
}

/* The CJ-format jump target (C.J), a 12-bit even offset: inst[12:2] =
 * offset[11|4|9:8|10|6|7|3:1|5]. */
static inline long long tm_rv_imm_cj(unsigned c)
{
    unsigned v = tm_rv_bits(c, 12, 12) << 11 | tm_rv_bits(c, 11, 11) << 4 | tm_rv_bits(c, 10, 9) << 8 |
                 tm_rv_bits(c, 8, 8) << 10 | tm_rv_bits(c, 7, 7) << 6 | tm_rv_bits(c, 6, 6) << 7 |
                 tm_rv_bits(c, 5, 3) << 1 | tm_rv_bits(c, 2, 2) << 5;
    return tm_rv_sext(v, 12);
}

/* The CB-format branch offset (C.BEQZ, C.BNEZ), a 9-bit even offset:
 * inst[12:10] = offset[8|4:3], inst[9:7] = rs1', inst[6:2] =
 * offset[7:6|2:1|5]. */
static inline long long tm_rv_imm_cb(unsigned c)
{
    unsigned v = tm_rv_bits(c, 12, 12) << 8 | tm_rv_bits(c, 11, 10) << 3 | tm_rv_bits(c, 6, 5) << 6 |
                 tm_rv_bits(c, 4, 3) << 1 | tm_rv_bits(c, 2, 2) << 5;
    return tm_rv_sext(v, 9);
}

/* JALR RD, RS1 by the RAS hints (the table above): a TM_RV_* kind. */
static inline int tm_rv_jalr(unsigned rd, unsigned rs1)
{
    if (tm_rv_link(rd))
        return tm_rv_link(rs1) && rs1 != rd ? TM_RV_ICALL_RET : TM_RV_ICALL;
    return tm_rv_link(rs1) ? TM_RV_RET : TM_RV_IJUMP;
}

/* The 16-bit instruction C (RV64C): a TM_RV_* kind; *TARGET as tm_rv_op. */
static inline int tm_rv_op16(unsigned c, unsigned long long pc, unsigned long long *target)
{
    unsigned quadrant = tm_rv_bits(c, 1, 0), funct3 = tm_rv_bits(c, 15, 13);
    if (c == 0)
        return TM_RV_TRAP; /* the defined illegal instruction */
    if (quadrant == 1 && funct3 == 5) { /* C.J: JAL x0 */
        *target = pc + (unsigned long long)tm_rv_imm_cj(c);
        return TM_RV_JUMP;
    }
    if (quadrant == 1 && (funct3 == 6 || funct3 == 7)) { /* C.BEQZ, C.BNEZ */
        *target = pc + (unsigned long long)tm_rv_imm_cb(c);
        return TM_RV_COND;
    }
    /* quadrant 2, funct3 100 (CR format): funct4's last bit inst[12],
     * rd/rs1 = inst[11:7], rs2 = inst[6:2].  inst[12] 0: C.JR (rs2 0, rs1
     * not 0; rs1 0 is reserved) or C.MV; 1: C.EBREAK (rs1 and rs2 0),
     * C.JALR (rs2 0) or C.ADD. */
    if (quadrant == 2 && funct3 == 4 && tm_rv_bits(c, 6, 2) == 0) {
        unsigned rs1 = tm_rv_bits(c, 11, 7);
        if (rs1 == 0)
            return tm_rv_bits(c, 12, 12) ? TM_RV_TRAP : TM_RV_OTHER;
        return tm_rv_jalr(tm_rv_bits(c, 12, 12) ? 1 : 0, rs1);
    }
    return TM_RV_OTHER;
}

/* The 32-bit instruction I: a TM_RV_* kind; *TARGET as tm_rv_op. */
static inline int tm_rv_op32(unsigned i, unsigned long long pc, unsigned long long *target)
{
    unsigned opcode = tm_rv_bits(i, 6, 0), rd = tm_rv_bits(i, 11, 7), funct3 = tm_rv_bits(i, 14, 12);
    unsigned rs1 = tm_rv_bits(i, 19, 15);
    switch (opcode) {
    case 0x63: /* BRANCH; funct3 010 and 011 are reserved */
        if (funct3 == 2 || funct3 == 3)
            return TM_RV_OTHER;
        *target = pc + (unsigned long long)tm_rv_imm_b(i);
        return TM_RV_COND;
    case 0x6F: /* JAL */
        *target = pc + (unsigned long long)tm_rv_imm_j(i);
        return tm_rv_link(rd) ? TM_RV_CALL : TM_RV_JUMP;
    case 0x67: /* JALR (funct3 000; the others are reserved) */
        return funct3 == 0 ? tm_rv_jalr(rd, rs1) : TM_RV_OTHER;
    case 0x73: /* SYSTEM: funct12 = inst[31:20], rs1, funct3 PRIV (000), rd all 0 */
        if (i == 0x00000073u)
            return TM_RV_SYSCALL; /* ECALL */
        if (i == 0x00100073u || i == 0x10200073u || i == 0x30200073u || i == 0xC0001073u)
            return TM_RV_TRAP; /* EBREAK, SRET, MRET, UNIMP */
        return TM_RV_OTHER;
    default:
        return TM_RV_OTHER;
    }
}

/* Classifies the instruction at P (AVAIL bytes readable there, little-endian
 * 16-bit parcels), whose address is PC: a TM_RV_* kind.  *LEN: its length, 2
 * or 4; 0 if it is longer (48 bits and up: not supported) or AVAIL is too
 * short for it, and then the kind is OTHER.  For COND, JUMP and CALL,
 * *TARGET is the direct target (PC + the offset); otherwise *TARGET is left
 * as it was. */
static inline int tm_rv_op(const unsigned char *p, unsigned avail, unsigned long long pc, unsigned *len,
                           unsigned long long *target)
{
    *len = 0;
    if (avail < 2)
        return TM_RV_OTHER;
    unsigned c = (unsigned)p[0] | (unsigned)p[1] << 8;
    if ((c & 3) != 3) {
        *len = 2;
        return tm_rv_op16(c, pc, target);
    }
    if ((c & 0x1C) == 0x1C || avail < 4)
        return TM_RV_OTHER;
    *len = 4;
    return tm_rv_op32(c | (unsigned)p[2] << 16 | (unsigned)p[3] << 24, pc, target);
}

#endif
