/* tm — tests/e2e/t_isaops.sh's driver: GNU objdump's disassembly (objdump -d;
 * for RISC-V -M no-aliases,numeric) on standard input, every instruction's
 * bytes and address classified by tm/a64op.h or tm/rvop.h, the kind, the
 * length and the direct target compared with what objdump's mnemonic and
 * operands say.  Prints the mismatches (the first 30), then one line:
 *   ISA: N instructions checked (K kinds: n each...), S lines skipped, M mismatches
 * and exits 1 if there was a mismatch or fewer than MIN (argv[2], default 1)
 * instructions were checked.
 *
 *   isaops_check a64|rv [MIN] < disassembly
 *   isaops_check gen-a64|gen-rv > code.bin
 *
 * gen-*: raw code (little-endian) of the encodings worth checking that the
 * library text may lack: every "unconditional branch (register)" and
 * "exception generation" form of A64, every 16-bit RISC-V encoding, every
 * JALR rd / rs1 / funct3, the immediates bit by bit (below), then
 * pseudo-random words (the same every run), to disassemble with objdump -D
 * -b binary and check as the libraries.
 *
 * An instruction line: "  ADDR:\tHEX \tMNEMONIC[\tOPERANDS]", HEX the
 * instruction as one little-endian number (8 digits for A64; 4 or 8 for
 * RISC-V).  Lines whose mnemonic starts with '.' (.word, .inst, .2byte:
 * data or encodings objdump does not know) are skipped, and counted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/a64op.h"
#include "tm/rvop.h"

static const char *const a64_names[] = {"OTHER", "COND", "JUMP", "CALL", "ICALL", "IJUMP", "RET", "SYSCALL", "TRAP"};
static const char *const rv_names[] = {"OTHER", "COND",      "JUMP",    "CALL", "ICALL",
                                       "IJUMP", "RET",       "ICALL_RET", "SYSCALL", "TRAP"};

static int in(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(s, *list))
            return 1;
    return 0;
}

/* The direct target in objdump's operands: the last comma-separated operand
 * before the symbol (" <name+off>") or the comment ("// ..."), in hex. */
static unsigned long long optarget(const char *ops)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", ops);
    buf[strcspn(buf, "</")] = 0; /* the symbol, A64's comment ("// b.hs, b.nlast") */
    char *c = strrchr(buf, ',');
    return strtoull(c ? c + 1 : buf, NULL, 16);
}

/* A64: the kind objdump's mnemonic M says (operands OPS); *DIRECT: it has a target. */
static int a64_expect(const char *m, const char *ops, int *direct)
{
    static const char *const cond[] = {"cbz", "cbnz", "tbz", "tbnz", NULL};
    static const char *const ijump[] = {"br", "braa", "brab", "braaz", "brabz", NULL};
    static const char *const icall[] = {"blr", "blraa", "blrab", "blraaz", "blrabz", NULL};
    static const char *const ret[] = {"ret", "retaa", "retab", NULL};
    static const char *const trap[] = {"brk", "hlt", "udf", "hvc", "smc", "eret", "eretaa", "eretab", "drps", NULL};
    (void)ops;
    *direct = 0;
    if (!strncmp(m, "b.", 2) || !strncmp(m, "bc.", 3) || in(m, cond))
        return *direct = 1, TM_A64_COND;
    if (!strcmp(m, "b"))
        return *direct = 1, TM_A64_JUMP;
    if (!strcmp(m, "bl"))
        return *direct = 1, TM_A64_CALL;
    if (in(m, ijump))
        return TM_A64_IJUMP;
    if (in(m, icall))
        return TM_A64_ICALL;
    if (in(m, ret))
        return TM_A64_RET;
    if (!strcmp(m, "svc"))
        return TM_A64_SYSCALL;
    if (in(m, trap))
        return TM_A64_TRAP;
    return TM_A64_OTHER;
}

/* "xN" (objdump -M numeric) -> N; anything else -> 99. */
static unsigned rvreg(const char *s)
{
    return s[0] == 'x' && s[1] >= '0' && s[1] <= '9' ? (unsigned)strtoul(s + 1, NULL, 10) : 99;
}

static int rv_link(unsigned r) { return r == 1 || r == 5; }

/* The RAS table of the unprivileged spec (§2.5, Table 2.1), written again from the
 * table rather than from tm/rvop.h. */
static int rv_ras(unsigned rd, unsigned rs1)
{
    if (!rv_link(rd) && !rv_link(rs1))
        return TM_RV_IJUMP;
    if (!rv_link(rd))
        return TM_RV_RET;
    if (!rv_link(rs1) || rd == rs1)
        return TM_RV_ICALL;
    return TM_RV_ICALL_RET;
}

/* RISC-V (-M no-aliases,numeric): the kind M OPS says; *DIRECT as a64_expect. */
static int rv_expect(const char *m, const char *ops, int *direct)
{
    static const char *const cond[] = {"beq", "bne", "blt", "bge", "bltu", "bgeu", "c.beqz", "c.bnez", NULL};
    static const char *const trap[] = {"ebreak", "c.ebreak", "c.unimp", "unimp", "mret", "sret", NULL};
    *direct = 0;
    if (in(m, cond))
        return *direct = 1, TM_RV_COND;
    if (!strcmp(m, "c.j"))
        return *direct = 1, TM_RV_JUMP;
    if (!strcmp(m, "jal")) { /* jal xRD,TARGET */
        *direct = 1;
        return rv_link(rvreg(ops)) ? TM_RV_CALL : TM_RV_JUMP;
    }
    if (!strcmp(m, "jalr")) { /* jalr xRD,OFF(xRS1) */
        const char *p = strchr(ops, '(');
        return rv_ras(rvreg(ops), p ? rvreg(p + 1) : 99);
    }
    if (!strcmp(m, "c.jr"))
        return rv_ras(0, rvreg(ops));
    if (!strcmp(m, "c.jalr"))
        return rv_ras(1, rvreg(ops));
    if (!strcmp(m, "ecall"))
        return TM_RV_SYSCALL;
    if (in(m, trap))
        return TM_RV_TRAP;
    return TM_RV_OTHER;
}


/* ---- gen-a64 / gen-rv: the encodings the random and library text may
 * miss, written to standard output as raw little-endian code for objdump -b
 * binary ---- */

static void put(unsigned v, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        putchar((int)(v >> 8 * k & 0xFF));
}

/* Each single bit of the FIELD (a mask) set alone, then none and all: the
 * scrambled immediates' bit orders and their sign. */
static void sweep(unsigned base, unsigned field, unsigned n)
{
    for (unsigned bit = 1; bit; bit <<= 1)
        if (field & bit)
            put(base | bit, n);
    put(base, n);
    put(base | field, n);
}

/* N pseudo-random 32-bit words (xorshift32, a fixed seed: the same every run). */
static void put_random(unsigned long n)
{
    unsigned x = 2463534242u;
    for (unsigned long k = 0; k < n; k++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        put(x, 4);
    }
}

/* A64: every "unconditional branch (register)" opc / op2 / op3 with five Rn
 * and op4 values each; every "exception generation" opc / op2 / LL; the
 * PC-relative branches' immediates bit by bit, every condition. */
static void gen_a64(void)
{
    static const unsigned r[] = {0, 1, 17, 30, 31};
    for (unsigned hi = 0; hi < 1u << 15; hi++) /* opc:op2:op3 = W<24:10> */
        for (unsigned i = 0; i < 5; i++)
            for (unsigned j = 0; j < 5; j++)
                put(0xD6000000u | hi << 10 | r[i] << 5 | r[j], 4);
    for (unsigned opc = 0; opc < 8; opc++)
        for (unsigned low = 0; low < 32; low++) /* op2:LL */
            sweep(0xD4000000u | opc << 21 | low, 0xFFFFu << 5, 4);
    sweep(0x14000000u, 0x03FFFFFFu, 4); /* B */
    sweep(0x94000000u, 0x03FFFFFFu, 4); /* BL */
    for (unsigned c = 0; c < 32; c++)   /* B.cond, BC.cond: o0:cond */
        sweep(0x54000000u | c, 0x00FFFFE0u, 4);
    for (unsigned sfop = 0; sfop < 4; sfop++) { /* CBZ, CBNZ; TBZ, TBNZ */
        sweep(0x34000000u | (sfop >> 1) << 31 | (sfop & 1) << 24 | 7, 0x00FFFFE0u, 4);
        sweep(0x36000000u | (sfop >> 1) << 31 | (sfop & 1) << 24 | 5u << 19 | 31, 0x0007FFE0u, 4);
    }
    sweep(0, 0xFFFFu, 4); /* UDF */
    sweep(0x00010000u, 0xFFFFu, 4);
    put_random(1ul << 20);
}

/* RISC-V: every 16-bit encoding; JALR with every funct3, rd and rs1; JAL with
 * every rd; the B-type and J-type immediates bit by bit, every funct3;
 * SYSTEM's ECALL, EBREAK, MRET, SRET, WFI and neighbours. */
static void gen_rv(void)
{
    for (unsigned c = 0; c < 0x10000u; c++)
        if ((c & 3) != 3)
            put(c, 2);
    for (unsigned f3 = 0; f3 < 8; f3++)
        for (unsigned rd = 0; rd < 32; rd++)
            for (unsigned rs1 = 0; rs1 < 32; rs1++) {
                put(0x67u | rd << 7 | f3 << 12 | rs1 << 15, 4);
                put(0x67u | rd << 7 | f3 << 12 | rs1 << 15 | 0xFFFu << 20, 4);
            }
    for (unsigned rd = 0; rd < 32; rd++)
        sweep(0x6Fu | rd << 7, 0xFFFFF000u, 4);
    for (unsigned f3 = 0; f3 < 8; f3++)
        sweep(0x63u | f3 << 12 | 10u << 15 | 11u << 20, 0xFE000F80u, 4);
    static const unsigned sys[] = {0x00000073u, 0x00100073u, 0x10200073u, 0x30200073u, 0x10500073u,
                                   0x00200073u, 0x00000873u, 0x00008073u, 0x00101073u, 0xC0001073u, 0xC0002073u};
    for (unsigned k = 0; k < sizeof sys / sizeof sys[0]; k++)
        put(sys[k], 4);
    put_random(1ul << 19);
    for (unsigned k = 0; k < 16; k++)
        put(0x0001, 2); /* c.nop: the last random instruction complete */
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "gen-a64"))
        return gen_a64(), 0;
    if (argc == 2 && !strcmp(argv[1], "gen-rv"))
        return gen_rv(), 0;
    if (argc < 2 || (strcmp(argv[1], "a64") && strcmp(argv[1], "rv"))) {
        fprintf(stderr, "usage: isaops_check a64|rv [MIN] < objdump-disassembly\n"
                        "       isaops_check gen-a64|gen-rv > code.bin\n");
        return 2;
    }
    int a64 = !strcmp(argv[1], "a64");
    unsigned long min = argc > 2 ? strtoul(argv[2], NULL, 10) : 1;
    const char *const *names = a64 ? a64_names : rv_names;
    unsigned long checked = 0, unknown = 0, skipped = 0, bad = 0, by_kind[16] = {0};
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        /* "  ADDR:\tHEX \tMNEMONIC\tOPERANDS" */
        char *f[4] = {0};
        int nf = 0;
        for (char *s = line, *tab; nf < 4 && s; s = tab ? tab + 1 : NULL) {
            tab = strchr(s, '\t');
            if (tab)
                *tab = 0;
            f[nf++] = s;
        }
        if (nf < 3)
            continue;
        char *end;
        unsigned long long pc = strtoull(f[0], &end, 16);
        if (end == f[0] || strcmp(end, ":"))
            continue;
        /* the encoding: HEX tokens, each a little-endian number */
        char tok[2][32] = {{0}};
        int ntok = sscanf(f[1], " %31[0-9a-f] %31[0-9a-f]", tok[0], tok[1]);
        size_t tl = ntok >= 1 ? strlen(tok[0]) : 0;
        const char *m = f[2], *ops = f[3] ? f[3] : "";
        unsigned nbytes; /* the length objdump says; 0: longer than 4 */
        int want, direct = 0;
        if (ntok < 1 || (tl != 4 && tl != 8) || (a64 && tl != 8)) {
            skipped++;
            continue;
        }
        if (m[0] == '.') {
            /* an encoding objdump does not know: OTHER for us (A64 ".inst";
             * RISC-V ".2byte" / ".4byte", ".8byte" / ".byte" the longer
             * encodings, of length 0 for us) */
            if (a64 ? strcmp(m, ".inst") : strcmp(m, ".2byte") && strcmp(m, ".4byte") && strcmp(m, ".8byte") &&
                                               strcmp(m, ".byte")) {
                skipped++;
                continue;
            }
            nbytes = !strcmp(m, ".8byte") || !strcmp(m, ".byte") ? 0 : (unsigned)tl / 2;
            if (!a64 && (strtoul(tok[0], NULL, 16) & 0x1F) == 0x1F)
                nbytes = 0; /* xxx11111: 48 bits or more (objdump: ".2byte" for the >= 192-bit ones) */
            want = 0;
            unknown++;
        } else {
            if (ntok != 1) {
                skipped++;
                continue;
            }
            nbytes = (unsigned)tl / 2;
            want = a64 ? a64_expect(m, ops, &direct) : rv_expect(m, ops, &direct);
            by_kind[want & 15]++;
            checked++;
        }
        unsigned long v = strtoul(tok[0], NULL, 16);
        unsigned char b[8] = {0};
        for (unsigned k = 0; k < 4; k++)
            b[k] = (unsigned char)(v >> 8 * k);
        unsigned avail = tl == 4 && ntok == 2 ? 8 : nbytes ? nbytes : 8; /* long encodings: as if 8 were there */
        unsigned len = 99;
        unsigned long long target = ~0ull;
        int got = a64 ? tm_a64_op(b, avail, pc, &len, &target) : tm_rv_op(b, avail, pc, &len, &target);
        unsigned long long want_target = direct ? optarget(ops) : ~0ull;
        if (got != want || len != nbytes || target != want_target) {
            if (++bad <= 30)
                printf("MISMATCH %s %llx: %s\t%s\t%s: got %s len %u target %llx, objdump says %s len %u target %llx\n",
                       argv[1], pc, tok[0], m, ops, names[got], len, target, names[want], nbytes, want_target);
        }
    }
    printf("%s: %lu instructions checked (", argv[1], checked);
    for (unsigned k = 0; k < (a64 ? 9u : 10u); k++)
        printf("%s%s %lu", k ? ", " : "", names[k], by_kind[k]);
    printf("), %lu unknown to objdump (OTHER), %lu lines skipped, %lu mismatches\n", unknown, skipped, bad);
    return bad || checked < min ? 1 : 0;
}
