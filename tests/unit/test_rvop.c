/* Unit tests of tm/rvop.h (issue 37): the RISC-V (RV64GC) control transfers
 * from hand-encoded instructions (each checked against GNU objdump -M
 * no-aliases when written; the comment says what it disassembles to), every
 * kind, every row of the spec's return-address-stack hint table, forward and
 * backward offsets, the B-type, J-type, CB and CJ immediates' extremes, the
 * lengths (16, 32 bits; the longer encodings refused), the little-endian
 * byte order.  tests/e2e/t_isaops.sh checks the header against objdump on
 * whole libraries and every 16-bit encoding. */
#include <criterion/criterion.h>
#include "tm/rvop.h"

#define NOTSET 0x5a5a5a5a5a5a5a5aull

/* The N-byte (2 or 4) instruction I, little-endian at PC: checks the kind,
 * the length N and the target (NOTSET: none, *target left alone). */
static void one(unsigned i, unsigned n, unsigned long long pc, int kind, unsigned long long target)
{
    unsigned char b[4] = {(unsigned char)i, (unsigned char)(i >> 8), (unsigned char)(i >> 16),
                          (unsigned char)(i >> 24)};
    unsigned len = 99;
    unsigned long long t = NOTSET;
    int k = tm_rv_op(b, n, pc, &len, &t);
    cr_assert_eq(k, kind, "%0*x at %llx: kind %d, expected %d", (int)n * 2, i, pc, k, kind);
    cr_assert_eq(len, n, "%0*x: length %u", (int)n * 2, i, len);
    cr_assert_eq(t, target, "%0*x at %llx: target %llx, expected %llx", (int)n * 2, i, pc, t, target);
}

Test(rvop, branches)
{
    one(0x00B50463, 4, 0x1000, TM_RV_COND, 0x1008);           /* beq a0,a1,.+8 */
    one(0xFE051EE3, 4, 0x1004, TM_RV_COND, 0x1000);           /* bne a0,zero,.-4 */
    one(0x00B54463, 4, 0x1018, TM_RV_COND, 0x1020);           /* blt */
    one(0x00B55463, 4, 0x101C, TM_RV_COND, 0x1024);           /* bge */
    one(0x00B56463, 4, 0x1010, TM_RV_COND, 0x1018);           /* bltu */
    one(0x00B57463, 4, 0x1014, TM_RV_COND, 0x101C);           /* bgeu */
    /* B-type: imm[12|10:5] = inst[31:25], imm[4:1|11] = inst[11:7] */
    one(0x7E000FE3, 4, 0x1008, TM_RV_COND, 0x1008 + 4094);    /* the largest: imm 0xffe */
    one(0x80000063, 4, 0x100C, TM_RV_COND, 0x100C - 4096);    /* the smallest: imm[12] alone */
    one(0x00000063 | 1u << 7, 4, 0x1000, TM_RV_COND, 0x1800); /* inst[7] = imm[11] */
    one(0x00000063 | 1u << 8, 4, 0x1000, TM_RV_COND, 0x1002); /* inst[8] = imm[1] */
    one(0x00000063 | 1u << 25, 4, 0x1000, TM_RV_COND, 0x1020); /* inst[25] = imm[5] */
    /* C.BEQZ / C.BNEZ: offset[8|4:3] = inst[12:10], offset[7:6|2:1|5] = inst[6:2] */
    one(0xC799, 2, 0x26992, TM_RV_COND, 0x269A0);             /* c.beqz a5,.+14 */
    one(0xE781, 2, 0x268FA, TM_RV_COND, 0x26902);             /* c.bnez a5,.+8 */
    one(0xFAFD, 2, 0x1080, TM_RV_COND, 0x1076);               /* c.bnez a3,.-10 */
    one(0xD001, 2, 0x1082, TM_RV_COND, 0x1082 - 256);         /* c.beqz s0: the smallest */
    one(0xEC7D, 2, 0x1084, TM_RV_COND, 0x1084 + 254);         /* c.bnez s0: the largest */
    one(0xC001 | 1u << 2, 2, 0x1000, TM_RV_COND, 0x1020);     /* inst[2] = offset[5] */
    one(0xC001 | 1u << 5, 2, 0x1000, TM_RV_COND, 0x1040);     /* inst[5] = offset[6] */
    one(0xC001 | 1u << 10, 2, 0x1000, TM_RV_COND, 0x1008);    /* inst[10] = offset[3] */
}

Test(rvop, direct_jumps_and_calls)
{
    one(0x0100006F, 4, 0x1024, TM_RV_JUMP, 0x1034);           /* jal zero,.+16 */
    one(0xFFDFF0EF, 4, 0x1028, TM_RV_CALL, 0x1024);           /* jal ra,.-4 */
    one(0x010002EF, 4, 0x102C, TM_RV_CALL, 0x103C);           /* jal t0,.+16: x5 links too */
    one(0x0100036F, 4, 0x1030, TM_RV_JUMP, 0x1040);           /* jal t1,.+16: no push */
    /* J-type: imm[20|10:1|11|19:12] = inst[31:12] */
    one(0x7FFFF06F, 4, 0x1034, TM_RV_JUMP, 0x1034 + 0xFFFFE); /* the largest */
    one(0x8000006F, 4, 0x1038, TM_RV_JUMP, 0x1038 - 0x100000ull); /* the smallest */
    one(0x0000006F | 1u << 20, 4, 0x1000, TM_RV_JUMP, 0x1800); /* inst[20] = imm[11] */
    one(0x0000006F | 1u << 12, 4, 0x1000, TM_RV_JUMP, 0x2000); /* inst[12] = imm[12] */
    one(0x0000006F | 1u << 21, 4, 0x1000, TM_RV_JUMP, 0x1002); /* inst[21] = imm[1] */
    /* C.J: offset[11|4|9:8|10|6|7|3:1|5] = inst[12:2] */
    one(0xA021, 2, 0x1074, TM_RV_JUMP, 0x107C);               /* c.j .+8 */
    one(0xBFFD, 2, 0x1076, TM_RV_JUMP, 0x1074);               /* c.j .-2 */
    one(0xAFFD, 2, 0x1078, TM_RV_JUMP, 0x1078 + 2046);        /* the largest */
    one(0xB001, 2, 0x107A, TM_RV_JUMP, 0x107A - 2048);        /* the smallest */
    one(0xA001 | 1u << 11, 2, 0x1000, TM_RV_JUMP, 0x1010);    /* inst[11] = offset[4] */
    one(0xA001 | 1u << 8, 2, 0x1000, TM_RV_JUMP, 0x1400);     /* inst[8] = offset[10] */
    one(0xA001 | 1u << 7, 2, 0x1000, TM_RV_JUMP, 0x1040);     /* inst[7] = offset[6] */
    one(0xA001 | 1u << 6, 2, 0x1000, TM_RV_JUMP, 0x1080);     /* inst[6] = offset[7] */
    /* below address 0: the target wraps as the 64-bit PC does */
    one(0xBFFD, 2, 0, TM_RV_JUMP, 0xFFFFFFFFFFFFFFFEull);
}

/* Every row of the RAS hint table (unprivileged spec §2.5, Table 2.1), JALR and the
 * compressed forms. */
Test(rvop, ras_hints)
{
    one(0x00078067, 4, 0, TM_RV_IJUMP, NOTSET);     /* jalr zero,0(a5): neither links */
    one(0x000E0367, 4, 0, TM_RV_IJUMP, NOTSET);     /* jalr t1,0(t3): t1 is no link register */
    one(0x00008067, 4, 0, TM_RV_RET, NOTSET);       /* jalr zero,0(ra): pop */
    one(0x00028067, 4, 0, TM_RV_RET, NOTSET);       /* jalr zero,0(t0): pop */
    one(0x000081E7, 4, 0, TM_RV_RET, NOTSET);       /* jalr gp,0(ra): rd no link, rs1 link: pop */
    one(0x000780E7, 4, 0, TM_RV_ICALL, NOTSET);     /* jalr ra,0(a5): push */
    one(0x000782E7, 4, 0, TM_RV_ICALL, NOTSET);     /* jalr t0,0(a5): push */
    one(0x000080E7, 4, 0, TM_RV_ICALL, NOTSET);     /* jalr ra,0(ra): rd == rs1: push */
    one(0x000282E7, 4, 0, TM_RV_ICALL, NOTSET);     /* jalr t0,0(t0): rd == rs1: push */
    one(0x000082E7, 4, 0, TM_RV_ICALL_RET, NOTSET); /* jalr t0,0(ra): pop, then push */
    one(0x000280E7, 4, 0, TM_RV_ICALL_RET, NOTSET); /* jalr ra,0(t0): pop, then push */
    one(0xFFF78067, 4, 0, TM_RV_IJUMP, NOTSET);     /* jalr zero,-1(a5): the offset does not matter */
    one(0x8082, 2, 0, TM_RV_RET, NOTSET);           /* c.jr ra */
    one(0x8282, 2, 0, TM_RV_RET, NOTSET);           /* c.jr t0 */
    one(0x8782, 2, 0, TM_RV_IJUMP, NOTSET);         /* c.jr a5 */
    one(0x9782, 2, 0, TM_RV_ICALL, NOTSET);         /* c.jalr a5 */
    one(0x9082, 2, 0, TM_RV_ICALL, NOTSET);         /* c.jalr ra: rd == rs1 */
    one(0x9282, 2, 0, TM_RV_ICALL_RET, NOTSET);     /* c.jalr t0: rd ra, rs1 t0 */
}

Test(rvop, system_and_traps)
{
    one(0x00000073, 4, 0, TM_RV_SYSCALL, NOTSET); /* ecall */
    one(0x00100073, 4, 0, TM_RV_TRAP, NOTSET);    /* ebreak */
    one(0x30200073, 4, 0, TM_RV_TRAP, NOTSET);    /* mret */
    one(0x10200073, 4, 0, TM_RV_TRAP, NOTSET);    /* sret */
    one(0x9002, 2, 0, TM_RV_TRAP, NOTSET);        /* c.ebreak */
    one(0x0000, 2, 0, TM_RV_TRAP, NOTSET);        /* the defined illegal instruction */
    one(0x10500073, 4, 0, TM_RV_OTHER, NOTSET);   /* wfi */
    one(0xC0001073, 4, 0, TM_RV_TRAP, NOTSET);    /* unimp: csrrw zero,cycle,zero */
    one(0xC0002073, 4, 0, TM_RV_OTHER, NOTSET);   /* csrrs zero,cycle,zero (rdcycle zero: no write) */
}

/* Encodings next to the control transfers' that are not control transfers. */
Test(rvop, others)
{
    one(0x00002063, 4, 0, TM_RV_OTHER, NOTSET); /* BRANCH funct3 010: reserved */
    one(0x00079067, 4, 0, TM_RV_OTHER, NOTSET); /* JALR funct3 001: reserved */
    one(0x00000013, 4, 0, TM_RV_OTHER, NOTSET); /* addi zero,zero,0 (nop) */
    one(0x00000017, 4, 0, TM_RV_OTHER, NOTSET); /* auipc zero,0 */
    one(0x0001, 2, 0, TM_RV_OTHER, NOTSET);     /* c.nop */
    one(0x852E, 2, 0, TM_RV_OTHER, NOTSET);     /* c.mv a0,a1 (C.JR's neighbour, rs2 not 0) */
    one(0x952E, 2, 0, TM_RV_OTHER, NOTSET);     /* c.add a0,a1 (C.JALR's neighbour) */
    one(0x8002, 2, 0, TM_RV_OTHER, NOTSET);     /* C.JR x0: reserved */
    one(0x2785, 2, 0, TM_RV_OTHER, NOTSET);     /* c.addiw a5,1: RV32's C.JAL encoding */
    one(0x8001, 2, 0, TM_RV_OTHER, NOTSET);     /* c.srli (quadrant 1, funct3 100) */
    one(0xC782, 2, 0, TM_RV_OTHER, NOTSET);     /* c.swsp (quadrant 2, funct3 110) */
}

Test(rvop, lengths_and_bytes)
{
    unsigned len = 99;
    unsigned long long t = NOTSET;
    /* jal ra,.-4 little-endian; followed by anything */
    unsigned char jal[6] = {0xEF, 0xF0, 0xDF, 0xFF, 0x99, 0x99};
    cr_assert_eq(tm_rv_op(jal, 6, 0x1000, &len, &t), TM_RV_CALL);
    cr_assert_eq(len, 4);
    cr_assert_eq(t, 0xFFC);
    /* c.j .+8 with more bytes after it */
    unsigned char cj[4] = {0x21, 0xA0, 0xEF, 0xF0};
    cr_assert_eq(tm_rv_op(cj, 4, 0x1000, &len, &t), TM_RV_JUMP);
    cr_assert_eq(len, 2);
    cr_assert_eq(t, 0x1008);
    /* too few bytes: length 0, OTHER, no target */
    for (unsigned avail = 0; avail < 4; avail++) {
        len = 99;
        t = NOTSET;
        cr_assert_eq(tm_rv_op(jal, avail, 0x1000, &len, &t), TM_RV_OTHER);
        cr_assert_eq(len, 0, "jal in %u bytes: length %u", avail, len);
        cr_assert_eq(t, NOTSET);
    }
    len = 99;
    cr_assert_eq(tm_rv_op(cj, 1, 0x1000, &len, &t), TM_RV_OTHER);
    cr_assert_eq(len, 0);
    /* the longer encodings (§1.5): 48 bits (xx011111), 64 bits (x0111111),
     * 80 bits and up (x1111111): not supported, length 0 */
    static const unsigned char longer[3][8] = {{0x1F, 0, 0, 0, 0, 0, 0, 0}, {0x3F, 0, 0, 0, 0, 0, 0, 0},
                                               {0x7F, 0, 0, 0, 0, 0, 0, 0}};
    for (int k = 0; k < 3; k++) {
        len = 99;
        t = NOTSET;
        cr_assert_eq(tm_rv_op(longer[k], 8, 0x1000, &len, &t), TM_RV_OTHER);
        cr_assert_eq(len, 0, "%02x: length %u", longer[k][0], len);
        cr_assert_eq(t, NOTSET);
    }
    /* bbb11 with bbb != 111: 32 bits */
    unsigned char lui[4] = {0x37, 0x05, 0x00, 0x00}; /* lui a0,0x0 */
    cr_assert_eq(tm_rv_op(lui, 4, 0, &len, &t), TM_RV_OTHER);
    cr_assert_eq(len, 4);
}
