/* Unit tests of tm/a64op.h (issue 37): the AArch64 control transfers from
 * hand-encoded words (each checked against GNU objdump when written; the
 * comment says what it disassembles to), every kind, forward and backward
 * offsets, the immediates' extremes, the encodings next to the branches that
 * are not branches, the length, the little-endian byte order.
 * tests/e2e/t_isaops.sh checks the header against objdump on whole
 * libraries. */
#include <criterion/criterion.h>
#include "tm/a64op.h"

#define NOTSET 0x5a5a5a5a5a5a5a5aull

/* W, its 4 bytes little-endian at PC: checks the kind, the length 4 and the
 * target (NOTSET: none, *target left alone). */
static void one(unsigned w, unsigned long long pc, int kind, unsigned long long target)
{
    unsigned char b[4] = {(unsigned char)w, (unsigned char)(w >> 8), (unsigned char)(w >> 16),
                          (unsigned char)(w >> 24)};
    unsigned len = 99;
    unsigned long long t = NOTSET;
    int k = tm_a64_op(b, 4, pc, &len, &t);
    cr_assert_eq(k, kind, "%08x at %llx: kind %d, expected %d", w, pc, k, kind);
    cr_assert_eq(len, 4, "%08x: length %u", w, len);
    cr_assert_eq(t, target, "%08x at %llx: target %llx, expected %llx", w, pc, t, target);
}

Test(a64op, b_and_bl)
{
    one(0x14000002, 0x1000, TM_A64_JUMP, 0x1008);              /* b .+8 */
    one(0x17FFFFFF, 0x1004, TM_A64_JUMP, 0x1000);              /* b .-4 */
    one(0x14000000, 0x1000, TM_A64_JUMP, 0x1000);              /* b . */
    one(0x15FFFFFF, 0x1008, TM_A64_JUMP, 0x1008 + 0x7FFFFFC);  /* imm26 0x1ffffff: +128 MiB - 4 */
    one(0x16000000, 0x1000, TM_A64_JUMP, 0x1000 - 0x8000000ull); /* imm26 0x2000000: -128 MiB */
    one(0x94000001, 0x1010, TM_A64_CALL, 0x1014);              /* bl .+4 */
    one(0x96000000, 0x1014, TM_A64_CALL, 0x1014 - 0x8000000ull); /* bl -128 MiB */
    one(0x97FFFFFF, 0x400000, TM_A64_CALL, 0x3FFFFC);          /* bl .-4 */
    /* below address 0: the target wraps as the 64-bit PC does */
    one(0x17FFFFFF, 0, TM_A64_JUMP, 0xFFFFFFFFFFFFFFFCull);
}

Test(a64op, conditional)
{
    one(0x54000040, 0x1018, TM_A64_COND, 0x1020);              /* b.eq .+8 */
    one(0x54FFFFE1, 0x101C, TM_A64_COND, 0x1018);              /* b.ne .-4 */
    one(0x547FFFE0, 0x1020, TM_A64_COND, 0x1020 + 0xFFFFC);    /* imm19 0x3ffff: +1 MiB - 4 */
    one(0x54800000, 0x1024, TM_A64_COND, 0x1024 - 0x100000ull); /* imm19 0x40000: -1 MiB */
    one(0x5400000E, 0x1098, TM_A64_COND, 0x1098);              /* b.al . */
    one(0x5400000F, 0x109C, TM_A64_COND, 0x109C);              /* b.nv . (also always) */
    one(0x54000050, 0x1028, TM_A64_COND, 0x1030);              /* bc.eq .+8 (FEAT_HBC) */
    one(0xB4000040, 0x102C, TM_A64_COND, 0x1034);              /* cbz x0, .+8 */
    one(0x35FFFFC1, 0x1030, TM_A64_COND, 0x1028);              /* cbnz w1, .-8 */
    one(0xB47FFFE0, 0x2000, TM_A64_COND, 0x2000 + 0xFFFFC);    /* cbz x0, +1 MiB - 4 */
    one(0x34800000, 0x200000, TM_A64_COND, 0x100000);          /* cbz w0, -1 MiB */
    one(0x36000020, 0x1034, TM_A64_COND, 0x1038);              /* tbz w0, #0, .+4 */
    one(0xB7FFFFE3, 0x1038, TM_A64_COND, 0x1034);              /* tbnz x3, #63, .-4 */
    one(0x3603FFE0, 0x1038, TM_A64_COND, 0x1038 + 0x7FFC);     /* tbz w0, #0: imm14 0x1fff, +32 KiB - 4 */
    one(0x36040000, 0x9040, TM_A64_COND, 0x1040);              /* tbz w0, #0: imm14 0x2000, -32 KiB */
    one(0x363FFFE0, 0x103C, TM_A64_COND, 0x1038);              /* tbz w0, #7, .-4 (b40 = W<23:19>) */
    one(0x36400000, 0x100C, TM_A64_COND, 0x100C);              /* tbz w0, #8, . */
}

Test(a64op, indirect)
{
    one(0xD61F0220, 0x1044, TM_A64_IJUMP, NOTSET); /* br x17 */
    one(0xD61F083F, 0, TM_A64_IJUMP, NOTSET);      /* braaz x1 */
    one(0xD61F0C3F, 0, TM_A64_IJUMP, NOTSET);      /* brabz x1 */
    one(0xD71F0822, 0, TM_A64_IJUMP, NOTSET);      /* braa x1, x2 */
    one(0xD71F0C22, 0, TM_A64_IJUMP, NOTSET);      /* brab x1, x2 */
    one(0xD63F0100, 0, TM_A64_ICALL, NOTSET);      /* blr x8 */
    one(0xD63F083F, 0, TM_A64_ICALL, NOTSET);      /* blraaz x1 */
    one(0xD63F0C7F, 0, TM_A64_ICALL, NOTSET);      /* blrabz x3 */
    one(0xD73F0822, 0, TM_A64_ICALL, NOTSET);      /* blraa x1, x2 */
    one(0xD73F0C22, 0, TM_A64_ICALL, NOTSET);      /* blrab x1, x2 */
    one(0xD65F03C0, 0, TM_A64_RET, NOTSET);        /* ret */
    one(0xD65F0020, 0, TM_A64_RET, NOTSET);        /* ret x1 */
    one(0xD65F0BFF, 0, TM_A64_RET, NOTSET);        /* retaa */
    one(0xD65F0FFF, 0, TM_A64_RET, NOTSET);        /* retab */
}

Test(a64op, exceptions)
{
    one(0xD4000001, 0, TM_A64_SYSCALL, NOTSET); /* svc #0 */
    one(0xD4001FE1, 0, TM_A64_SYSCALL, NOTSET); /* svc #0xff */
    one(0xD4000002, 0, TM_A64_TRAP, NOTSET);    /* hvc #0 */
    one(0xD4000003, 0, TM_A64_TRAP, NOTSET);    /* smc #0 */
    one(0xD4207D00, 0, TM_A64_TRAP, NOTSET);    /* brk #0x3e8 */
    one(0xD4400000, 0, TM_A64_TRAP, NOTSET);    /* hlt #0 */
    one(0x00000000, 0, TM_A64_TRAP, NOTSET);    /* udf #0 */
    one(0x0000FFFF, 0, TM_A64_TRAP, NOTSET);    /* udf #0xffff */
    one(0xD69F03E0, 0, TM_A64_TRAP, NOTSET);    /* eret */
    one(0xD69F0BFF, 0, TM_A64_TRAP, NOTSET);    /* eretaa */
    one(0xD6BF03E0, 0, TM_A64_TRAP, NOTSET);    /* drps */
}

/* Encodings next to the branches' that are not branches. */
Test(a64op, others)
{
    one(0xD503201F, 0, TM_A64_OTHER, NOTSET); /* nop */
    one(0xA9BF7BFD, 0, TM_A64_OTHER, NOTSET); /* stp x29, x30, [sp, #-16]! */
    one(0x90000BD0, 0, TM_A64_OTHER, NOTSET); /* adrp x16, ... (PC-relative, not a branch) */
    one(0xD61F0221, 0, TM_A64_OTHER, NOTSET); /* br with op4 1: unallocated */
    one(0xD65F0BDF, 0, TM_A64_OTHER, NOTSET); /* retaa with Rn 30: unallocated */
    one(0xD61E0220, 0, TM_A64_OTHER, NOTSET); /* br with op2 11110: unallocated */
    one(0xD4000000, 0, TM_A64_OTHER, NOTSET); /* exception generation opc 0 LL 00: unallocated */
    one(0xD4200001, 0, TM_A64_OTHER, NOTSET); /* brk with LL 01: unallocated */
    one(0xD4A00001, 0, TM_A64_OTHER, NOTSET); /* dcps1: Debug state only */
    one(0x00010000, 0, TM_A64_OTHER, NOTSET); /* not udf (W<31:16> not 0) */
    one(0x74000040, 0, TM_A64_OTHER, NOTSET); /* B.cond's neighbour (W<29> set) */
}

Test(a64op, length_and_bytes)
{
    unsigned char b[4] = {0x02, 0x00, 0x00, 0x14}; /* b .+8, little-endian */
    unsigned len = 99;
    unsigned long long t = NOTSET;
    cr_assert_eq(tm_a64_op(b, 4, 0x100, &len, &t), TM_A64_JUMP);
    cr_assert_eq(len, 4);
    cr_assert_eq(t, 0x108);
    cr_assert_eq(tm_a64_op(b, 8, 0x100, &len, &t), TM_A64_JUMP, "more bytes available: the same");
    cr_assert_eq(len, 4);
    t = NOTSET;
    for (unsigned avail = 0; avail < 4; avail++) {
        len = 99;
        cr_assert_eq(tm_a64_op(b, avail, 0x100, &len, &t), TM_A64_OTHER);
        cr_assert_eq(len, 0, "%u bytes: length %u", avail, len);
        cr_assert_eq(t, NOTSET);
    }
}
