/* tm — the x86-64 control transfers the trace distinguishes, from an
 * instruction's bytes and its length.  One classification for the recording
 * (the Valgrind tool, which gets the length from VEX and cannot link libc or
 * Zydis) and the replay from the binaries (decoder/frombin.c, which gets the
 * length from Zydis): docs/capture.md §2.  No includes and no library calls:
 * the Valgrind tool is built without libc. */
#ifndef TM_X86OP_H
#define TM_X86OP_H

enum {
    TM_X86_OTHER = 0, /* no control transfer the trace reports */
    TM_X86_REP,       /* a rep-prefixed string instruction (repeats in place) */
    TM_X86_JCC,       /* jcc rel8 / rel32 */
    TM_X86_LOOP,      /* loop, loope, loopne, jrcxz */
    TM_X86_JMP,       /* jmp rel8 / rel32 */
    TM_X86_CALL,      /* call rel32 */
    TM_X86_ICALL,     /* call r/m (ff /2) */
    TM_X86_IJMP,      /* jmp r/m (ff /4) */
    TM_X86_RET        /* ret, ret imm16 */
};

/* The signed little-endian N-byte (1 or 4) immediate at P. */
static inline long long tm_x86_rel(const unsigned char *p, unsigned n)
{
    if (n == 1)
        return (long long)(signed char)p[0];
    unsigned v = (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
    return (long long)(int)v;
}

/* Classifies the LEN-byte instruction P whose next instruction is at FALL
 * (its address + LEN): a TM_X86_* kind.  For JCC, LOOP, JMP and CALL,
 * *TARGET is the direct target; for JCC, *CC the condition code (0..15). */
static inline int tm_x86_op(const unsigned char *p, unsigned len, unsigned long long fall,
                            unsigned long long *target, int *cc)
{
    unsigned i = 0;
    int rep = 0;
    for (; i < len; i++) {
        unsigned char b = p[i];
        if (b == 0xF2 || b == 0xF3)
            rep = 1;
        else if (!(b == 0x66 || b == 0x67 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26 || b == 0x64 ||
                   b == 0x65 || b == 0xF0 || (b >= 0x40 && b <= 0x4F)))
            break;
    }
    if (i >= len)
        return TM_X86_OTHER;
    unsigned char op = p[i];
    if (rep && ((op >= 0xA4 && op <= 0xA7) || (op >= 0xAA && op <= 0xAF) || (op >= 0x6C && op <= 0x6F)))
        return TM_X86_REP;
    if (op >= 0x70 && op <= 0x7F && i + 2 == len) {
        *target = fall + (unsigned long long)tm_x86_rel(p + i + 1, 1);
        *cc = op & 15;
        return TM_X86_JCC;
    }
    if (op >= 0xE0 && op <= 0xE3 && i + 2 == len) {
        *target = fall + (unsigned long long)tm_x86_rel(p + i + 1, 1);
        return TM_X86_LOOP;
    }
    if ((op == 0xEB && i + 2 == len) || (op == 0xE9 && i + 5 == len)) {
        *target = fall + (unsigned long long)tm_x86_rel(p + i + 1, op == 0xEB ? 1 : 4);
        return TM_X86_JMP;
    }
    if (op == 0xE8) {
        if (i + 5 == len)
            *target = fall + (unsigned long long)tm_x86_rel(p + i + 1, 4);
        return TM_X86_CALL;
    }
    if (op == 0xC3 || op == 0xC2)
        return TM_X86_RET;
    if (op == 0xFF && i + 1 < len) {
        unsigned reg = (p[i + 1] >> 3) & 7;
        if (reg == 2)
            return TM_X86_ICALL;
        if (reg == 4)
            return TM_X86_IJMP;
    }
    if (op == 0x0F && i + 6 == len && p[i + 1] >= 0x80 && p[i + 1] <= 0x8F) {
        *target = fall + (unsigned long long)tm_x86_rel(p + i + 2, 4);
        *cc = p[i + 1] & 15;
        return TM_X86_JCC;
    }
    return TM_X86_OTHER;
}

#endif
