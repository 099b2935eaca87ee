/* tm — unit tests of the ETMv4 encoder (std/etm4_enc.c) and its OpenCSD
 * check (std/etm4_dec.c, tm/etm4.h).
 *
 * First each packet the encoder writes, against bytes worked out by hand
 * from the packet layouts of ARM IHI 0064 (ETMv4), "Trace packets" (the
 * comment beside each expected byte says how it is made); then whole
 * streams of directed records (tmc_record structs, no files) over a few
 * hand-assembled A64 instructions, decoded by OpenCSD's full ETMv4 decoder
 * (tm_etm4_verify_records) in every option combination, and a damaged
 * stream that must not pass. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/etm4.h"
#include "tm/status.h"

#define MAXT 4u

/* ---- each core's output ---- */

typedef struct outbuf {
    uint8_t *p[MAXT];
    size_t n[MAXT], cap[MAXT];
} outbuf;

static int collect(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    outbuf *o = arg;
    cr_assert_lt(tid, MAXT);
    if (o->n[tid] + n > o->cap[tid]) {
        size_t c = o->cap[tid] ? o->cap[tid] : 256;
        while (c < o->n[tid] + n)
            c *= 2;
        o->p[tid] = realloc(o->p[tid], c);
        cr_assert_not_null(o->p[tid]);
        o->cap[tid] = c;
    }
    memcpy(o->p[tid] + o->n[tid], p, n);
    o->n[tid] += n;
    return 0;
}

static void outbuf_free(outbuf *o)
{
    for (unsigned i = 0; i < MAXT; i++)
        free(o->p[i]);
    memset(o, 0, sizeof *o);
}

/* ---- code: A64 words at C ---- */

static const uint64_t C = 0x0000005500400000ull;
#define NOP 0xD503201Fu
#define SVC0 0xD4000001u
/* C+0x00 nop; +0x04 b.ne +0x10 (0x54000000 | imm19 3 << 5 | cond NE 1);
 * +0x08, +0x0c nop; +0x10 bl +0x40 (0x94000000 | imm26 0xc); +0x14 svc #0;
 * +0x18 blr x1 (0xD63F0000 | Rn 1 << 5); +0x1c br x2 (0xD61F0000 | 2 << 5);
 * +0x40 nop; +0x44 ret (0xD65F03C0); +0x50 b C (imm26 -0x14: 0x17FFFFEC);
 * +0x80 nop; +0x84 svc #0 (a signal handler's rt_sigreturn); +0x88, +0x8c
 * nop; +0x90 b C (imm26 -0x24: 0x17FFFFDC). */
static uint32_t code_words[64];
static uint8_t code_bytes[256];

static void code_init(void)
{
    for (unsigned i = 0; i < 64; i++)
        code_words[i] = NOP;
    code_words[0x04 / 4] = 0x54000061u;
    code_words[0x10 / 4] = 0x9400000Cu;
    code_words[0x14 / 4] = SVC0;
    code_words[0x18 / 4] = 0xD63F0020u;
    code_words[0x1C / 4] = 0xD61F0040u;
    code_words[0x44 / 4] = 0xD65F03C0u;
    code_words[0x50 / 4] = 0x17FFFFECu;
    code_words[0x84 / 4] = SVC0;
    code_words[0x90 / 4] = 0x17FFFFDCu;
    for (unsigned i = 0; i < 64; i++) /* little-endian instruction words */
        for (unsigned b = 0; b < 4; b++)
            code_bytes[4 * i + b] = (uint8_t)(code_words[i] >> (8 * b));
}

static const uint8_t *code_at(void *arg, uint64_t addr, size_t *avail)
{
    (void)arg;
    if (addr < C || addr - C >= sizeof code_bytes) {
        *avail = 0;
        return NULL;
    }
    *avail = sizeof code_bytes - (size_t)(addr - C);
    return code_bytes + (addr - C);
}

/* ---- records ---- */

typedef struct seq {
    tmc_record *r;
    size_t n, cap, at;
    uint64_t cycle;
    uint64_t insns;
} seq;

static tmc_record *add(seq *s, tmc_type type, uint32_t tid, uint64_t pc)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->r = realloc(s->r, s->cap * sizeof *s->r);
        cr_assert_not_null(s->r);
    }
    tmc_record *r = &s->r[s->n++];
    memset(r, 0, sizeof *r);
    r->type = type;
    r->tid = tid;
    r->cycle = s->cycle;
    s->cycle += 3;
    r->pc = pc;
    return r;
}

static void run(seq *s, uint32_t tid, uint64_t pc, uint64_t count)
{
    tmc_record *r = add(s, TMC_RUN, tid, pc);
    r->count = count;
    r->bytes = 4 * count;
    s->insns += count;
}

static void br(seq *s, uint32_t tid, uint64_t pc, tmc_bclass c, int taken, uint64_t target)
{
    tmc_record *r = add(s, TMC_BRANCH, tid, pc);
    r->bclass = (uint8_t)c;
    r->taken = (uint8_t)taken;
    r->len = 4;
    r->target = target;
    s->insns++;
}

/* One pass of the loop at C on core TID; TAKEN: the b.ne; SIG: a signal
 * arrives before the nop at C+0x40 (the first call's), handled at C+0x80. */
static void loop_once(seq *s, uint32_t tid, int taken, int sig)
{
    run(s, tid, C, 1);
    br(s, tid, C + 0x04, TMC_COND, taken, C + 0x10);
    if (!taken)
        run(s, tid, C + 0x08, 2);
    br(s, tid, C + 0x10, TMC_CALL, 1, C + 0x40);
    if (sig) {
        tmc_record *e = add(s, TMC_EXC, tid, C + 0x40);
        e->target = C + 0x80;
        run(s, tid, C + 0x80, 2); /* nop; svc (rt_sigreturn): back at C+0x40 */
    }
    run(s, tid, C + 0x40, 1);
    br(s, tid, C + 0x44, TMC_RET, 1, C + 0x14);
    run(s, tid, C + 0x14, 1); /* svc */
    br(s, tid, C + 0x18, TMC_ICALL, 1, C + 0x40);
    run(s, tid, C + 0x40, 1);
    br(s, tid, C + 0x44, TMC_RET, 1, C + 0x1C);
    br(s, tid, C + 0x1C, TMC_IJUMP, 1, C + 0x50);
    br(s, tid, C + 0x50, TMC_JUMP, 1, C);
}

static int seq_next(void *arg, tmc_record *rec, uint64_t *at, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    seq *s = arg;
    if (s->at == s->n)
        return 0;
    *at = s->at;
    *rec = s->r[s->at++];
    return 1;
}

static void encode(tm_etm4_opts o, const seq *s, uint32_t threads, outbuf *out, tm_etm4_stats *st)
{
    memset(out, 0, sizeof *out);
    o.write = collect;
    o.write_arg = out;
    tm_etm4_encoder *e = NULL;
    char err[256] = "";
    cr_assert_eq(tm_etm4_encoder_new(&o, threads, &e, err, sizeof err), TM_OK, "%s", err);
    for (size_t i = 0; i < s->n; i++)
        cr_assert_eq(tm_etm4_encoder_put(e, &s->r[i], err, sizeof err), TM_OK, "record %zu: %s", i, err);
    cr_assert_eq(tm_etm4_encoder_finish(e, err, sizeof err), TM_OK, "%s", err);
    if (st)
        *st = *tm_etm4_encoder_stats(e);
    tm_etm4_encoder_free(e);
}

/* OpenCSD over OUT against S: the status, ERR, RES. */
static int verify(const tm_etm4_opts *o, seq *s, uint32_t threads, const outbuf *out, tm_etm4_decode_result *res,
                  char *err, size_t errlen)
{
    tm_etm4_buffer b[MAXT];
    size_t n = 0;
    for (uint32_t t = 0; t < threads; t++)
        if (out->n[t])
            b[n++] = (tm_etm4_buffer){t, out->p[t], out->n[t], "test"};
    s->at = 0;
    return tm_etm4_verify_records(code_at, NULL, b, n, tm_etm4_configr(o), threads, seq_next, s, "records", res, err,
                                  errlen);
}

static void expect_bytes(const uint8_t *got, size_t ngot, const uint8_t *want, size_t nwant, const char *what)
{
    cr_assert_geq(ngot, nwant, "%s: %zu bytes, want at least %zu", what, ngot, nwant);
    for (size_t i = 0; i < nwant; i++)
        cr_assert_eq(got[i], want[i], "%s: byte %zu is 0x%02x, want 0x%02x", what, i, got[i], want[i]);
}

/* ---- single packets ---- */

Test(etm4, atom_formats)
{
    uint8_t b;
    unsigned kind;
    /* Format 1, 1111011E: E -> 0xF7, N -> 0xF6. */
    cr_assert_eq(tm_etm4_atom_packet(1, 1, &b, &kind), 1);
    cr_assert_eq(b, 0xF7);
    cr_assert_eq(kind, TM_ETM4_K_ATOM1);
    cr_assert_eq(tm_etm4_atom_packet(0, 1, &b, &kind), 1);
    cr_assert_eq(b, 0xF6);
    /* Format 2, 110110EE (bit 0 the oldest): E then N = 0b01 -> 0xD9. */
    cr_assert_eq(tm_etm4_atom_packet(0x1, 2, &b, &kind), 2);
    cr_assert_eq(b, 0xD9);
    cr_assert_eq(kind, TM_ETM4_K_ATOM2);
    /* Format 3, 11111EEE: E, N, E = 0b101 -> 0xFD. */
    cr_assert_eq(tm_etm4_atom_packet(0x5, 3, &b, &kind), 3);
    cr_assert_eq(b, 0xFD);
    cr_assert_eq(kind, TM_ETM4_K_ATOM3);
    /* Format 4, 110111pp: N, E, E, E (0b1110) is pattern 0 -> 0xDC;
     * E, N, E, N (0b0101) pattern 3 -> 0xDF. */
    cr_assert_eq(tm_etm4_atom_packet(0xE, 4, &b, &kind), 4);
    cr_assert_eq(b, 0xDC);
    cr_assert_eq(kind, TM_ETM4_K_ATOM4);
    cr_assert_eq(tm_etm4_atom_packet(0x5, 4, &b, &kind), 4);
    cr_assert_eq(b, 0xDF);
    /* Format 5: N, E, E, E, E (0b11110) -> 0xF5 (ABC 101: bit 5 A = 1, bits
     * 1..0 = 01); N x5 -> 0xD5 (001); N, E, N, E, N (0b01010) -> 0xD6 (010);
     * E, N, E, N, E (0b10101) -> 0xD7 (011). */
    cr_assert_eq(tm_etm4_atom_packet(0x1E, 5, &b, &kind), 5);
    cr_assert_eq(b, 0xF5);
    cr_assert_eq(kind, TM_ETM4_K_ATOM5);
    cr_assert_eq(tm_etm4_atom_packet(0x00, 5, &b, &kind), 5);
    cr_assert_eq(b, 0xD5);
    cr_assert_eq(tm_etm4_atom_packet(0x0A, 5, &b, &kind), 5);
    cr_assert_eq(b, 0xD6);
    cr_assert_eq(tm_etm4_atom_packet(0x15, 5, &b, &kind), 5);
    cr_assert_eq(b, 0xD7);
    /* Format 6, 11A0PPPP: PPPP + 3 E's then one atom, E if A = 0: E, E, E,
     * N (0b0111) -> 0xC0 | A 0x20 | 0 = 0xE0; 24 E's -> 20 + 3 E's and an E:
     * 0xC0 | 20 = 0xD4; 10 E's that end the buffer -> 9 + E: 0xC0 | 6. */
    cr_assert_eq(tm_etm4_atom_packet(0x7, 4, &b, &kind), 4);
    cr_assert_eq(b, 0xE0);
    cr_assert_eq(kind, TM_ETM4_K_ATOM6);
    cr_assert_eq(tm_etm4_atom_packet(0xFFFFFF, 24, &b, &kind), 24);
    cr_assert_eq(b, 0xD4);
    cr_assert_eq(tm_etm4_atom_packet(0x3FF, 10, &b, &kind), 10);
    cr_assert_eq(b, 0xC6);
    /* 30 E's: the first packet takes 24 (format 6 holds at most 24). */
    cr_assert_eq(tm_etm4_atom_packet(0x3FFFFFFF, 30, &b, &kind), 24);
}

Test(etm4, address_packets)
{
    uint8_t p[12];
    unsigned kind;
    const uint64_t h[3] = {0x5500123400ull, 0x5500200000ull, 0x7F0000001000ull};
    /* Exact match 100100QQ with QQ the history entry: h[1] -> 0x91. */
    cr_assert_eq(tm_etm4_addr_packet(h[1], h, 3, p, &kind), 1);
    cr_assert_eq(p[0], 0x91);
    cr_assert_eq(kind, TM_ETM4_K_ADDR_MATCH);
    /* An entry not valid is not matched: h[2] with 2 valid entries is a
     * long 64-bit address. */
    cr_assert_eq(tm_etm4_addr_packet(h[2], h, 2, p, &kind), 9);
    /* Short IS0, one payload byte: 0x55001234F8 shares A[63:9] with h[0]
     * (both in the 512-byte block 0x3400..0x35ff); A[8:2] = 0x34F8 >> 2 &
     * 0x7F = 0x3E; bit 7 = 0 (no second byte). */
    const uint8_t s1[] = {0x95, 0x3E};
    cr_assert_eq(tm_etm4_addr_packet(0x55001234F8ull, h, 3, p, &kind), 2);
    expect_bytes(p, 2, s1, 2, "short 1");
    cr_assert_eq(kind, TM_ETM4_K_ADDR_S);
    /* Short IS0, two bytes: 0x5500127004 shares A[63:17]; byte 1 = 0x80 |
     * (0x127004 >> 2 & 0x7F = 0x01) = 0x81; byte 2 = A[16:9] = 0x127004 >> 9
     * & 0xFF = 0x938 & 0xFF = 0x38. */
    const uint8_t s2[] = {0x95, 0x81, 0x38};
    cr_assert_eq(tm_etm4_addr_packet(0x5500127004ull, h, 3, p, &kind), 3);
    expect_bytes(p, 3, s2, 3, "short 2");
    /* Long 32-bit IS0 (A[63:32] = 0x55 as h[0]'s): 0x9A, A[8:2] = 0x678 >> 2
     * & 0x7F = 0x1E, A[15:9] = 0x5678 >> 9 & 0x7F = 0x2B, A[23:16] = 0x34,
     * A[31:24] = 0x12. */
    const uint8_t l32[] = {0x9A, 0x1E, 0x2B, 0x34, 0x12};
    cr_assert_eq(tm_etm4_addr_packet(0x5512345678ull, h, 3, p, &kind), 5);
    expect_bytes(p, 5, l32, 5, "long 32");
    cr_assert_eq(kind, TM_ETM4_K_ADDR_L32);
    /* Long 64-bit IS0: the same, then A[39:32] = 0x00, A[47:40] = 0x7F,
     * A[55:48] = A[63:56] = 0. */
    const uint8_t l64[] = {0x9D, 0x1E, 0x2B, 0x34, 0x12, 0x00, 0x7F, 0x00, 0x00};
    cr_assert_eq(tm_etm4_addr_packet(0x7F0012345678ull, h, 3, p, &kind), 9);
    expect_bytes(p, 9, l64, 9, "long 64");
    cr_assert_eq(kind, TM_ETM4_K_ADDR_L64);
    /* No history: long 64. */
    cr_assert_eq(tm_etm4_addr_packet(0x55001234F8ull, h, 0, p, &kind), 9);
    /* Address with Context: 0x85, the 64-bit address as above, then the
     * info byte 0x30 = SF (bit 4, AArch64) | NS (bit 5), EL0. */
    const uint8_t ac[] = {0x85, 0x1E, 0x2B, 0x34, 0x12, 0x00, 0x7F, 0x00, 0x00, 0x30};
    cr_assert_eq(tm_etm4_addr_ctxt_packet(0x7F0012345678ull, p), 10);
    expect_bytes(p, 10, ac, 10, "address with context");
}

Test(etm4, timestamp_packets)
{
    uint8_t p[10];
    /* After Trace Info the decoder has 0: 300 = 0b10_0101100 needs two
     * 7-bit groups: 0x80 | 0x2C, then 0x02. */
    const uint8_t t1[] = {0x02, 0xAC, 0x02};
    cr_assert_eq(tm_etm4_ts_packet(300, 12345, 1, p), 3);
    expect_bytes(p, 3, t1, 3, "ts 300");
    /* 305 after 300: only the low 7 bits change (305 >> 7 = 300 >> 7 = 2):
     * 305 & 0x7F = 0x31. */
    const uint8_t t2[] = {0x02, 0x31};
    cr_assert_eq(tm_etm4_ts_packet(305, 300, 0, p), 2);
    expect_bytes(p, 2, t2, 2, "ts 305");
    /* A value of 50 bits from 0: 8 groups (7 or more replace all 64 bits). */
    cr_assert_eq(tm_etm4_ts_packet(1ull << 49, 0, 1, p), 1 + 8);
}

/* One core: START at C+0x80, a run of 4 (nop, svc, nop, nop), EXIT. */
Test(etm4, start_svc_trace_on_exit)
{
    code_init();
    seq s = {0};
    add(&s, TMC_START, 0, C + 0x80);
    run(&s, 0, C + 0x80, 4);
    add(&s, TMC_EXIT, 0, 0);
    outbuf out;
    tm_etm4_opts o = {0};
    o.code = code_at;
    tm_etm4_stats st;
    encode(o, &s, 1, &out, &st);
    /* C + 0x80 = 0x5500400080: A[8:2] = 0x080 >> 2 = 0x20, A[15:9] = 0,
     * A[23:16] = 0x40, A[31:24] = 0x00, A[39:32] = 0x55.  The SVC's
     * preferred return address C+0x88 shares A[63:9]: short, 0x88 >> 2 =
     * 0x22.  Back in EL0 at C+0x88: Trace On, Context "same" (0x80), and
     * C+0x88 is the history's entry 0: exact match 0x90. */
    const uint8_t want[] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, /* A-sync */
        0x01, 0x00,                            /* Trace Info, no sections */
        0x04,                                  /* Trace On */
        0x85, 0x20, 0x00, 0x40, 0x00, 0x55, 0x00, 0x00, 0x00, 0x30, /* Address with Context */
        0x06, 0x05,                            /* Exception: E0 = 1, type Call (2) << 1 */
        0x95, 0x22,                            /* its address C+0x88, short */
        0x04, 0x80, 0x90,                      /* Trace On, Context, exact match [0] */
    };
    cr_assert_eq(out.n[0], sizeof want, "%zu bytes", out.n[0]);
    expect_bytes(out.p[0], out.n[0], want, sizeof want, "stream");
    cr_assert_eq(st.syscalls, 1);
    cr_assert_eq(st.untraced, 2); /* the two nops after the svc: no P0 element shows them */
    cr_assert_eq(st.packets[TM_ETM4_K_TRACE_ON], 2);
    outbuf_free(&out);
    free(s.r);
}

Test(etm4, atoms_and_addresses_in_order)
{
    code_init();
    seq s = {0};
    add(&s, TMC_START, 0, C);
    loop_once(&s, 0, 1, 0);
    add(&s, TMC_EXIT, 0, 0);
    outbuf out;
    tm_etm4_opts o = {0};
    o.code = code_at;
    encode(o, &s, 1, &out, NULL);
    /* After the 25 bytes of sync (A-sync 12, Trace Info 2, Trace On 1,
     * Address with Context 10): b.ne E, bl E, ret E -> format 3 0xFF, then
     * the return's address C+0x14 (short: 0x14 >> 2 = 0x05); the svc:
     * Exception 06 05 + C+0x18 (short 0x06); Trace On, Context, exact match
     * [0]; blr E (F1 0xF7) + C+0x40 (short 0x10); ret E (0xF7) + C+0x1c
     * (short 0x07); br E (0xF7) + C+0x50 (short 0x14); b E (0xF7). */
    const uint8_t want[] = {0xFF, 0x95, 0x05, 0x06, 0x05, 0x95, 0x06, 0x04, 0x80, 0x90, 0xF7, 0x95, 0x10,
                            0xF7, 0x95, 0x07, 0xF7, 0x95, 0x14, 0xF7};
    cr_assert_eq(out.n[0], 25 + sizeof want, "%zu bytes", out.n[0]);
    expect_bytes(out.p[0] + 25, out.n[0] - 25, want, sizeof want, "stream");
    outbuf_free(&out);
    free(s.r);
}

Test(etm4, return_stack_drops_predicted_returns)
{
    code_init();
    seq s = {0};
    add(&s, TMC_START, 0, C);
    loop_once(&s, 0, 1, 0);
    add(&s, TMC_EXIT, 0, 0);
    outbuf out;
    tm_etm4_opts o = {0};
    o.code = code_at;
    o.return_stack = 1;
    tm_etm4_stats st;
    encode(o, &s, 1, &out, &st);
    /* bl pushes C+0x14, the ret to it is predicted: b.ne, bl, ret in one
     * format 3 (0xFF) and no address; the svc's exception; Trace On
     * (which empties OpenCSD's return stack); blr pushes C+0x1c, target
     * C+0x40 is not the top: its address; the ret to C+0x1c is predicted;
     * br and b: atoms E, E, E, with br's address after its atom. */
    const uint8_t want[] = {0xFF, 0x06, 0x05, 0x95, 0x06, 0x04, 0x80, 0x90, 0xF7, 0x95, 0x10,
                            0xDA + 1, 0x95, 0x14, 0xF7};
    /* 0xDB: format 2, ret E and br E (0b11); then br's address C+0x50. */
    cr_assert_eq(st.rets, 2);
    cr_assert_eq(st.rets_predicted, 2);
    cr_assert_eq(out.n[0], 25 + sizeof want, "%zu bytes", out.n[0]);
    expect_bytes(out.p[0] + 25, out.n[0] - 25, want, sizeof want, "stream");
    outbuf_free(&out);
    free(s.r);
}

/* ---- round trips through OpenCSD ---- */

static void build_mixed(seq *s, unsigned iters)
{
    add(s, TMC_START, 0, C);
    add(s, TMC_START, 1, C);
    for (unsigned i = 0; i < iters; i++) {
        loop_once(s, 0, (i * 7 + 3) % 5 < 2, i % 17 == 5);
        loop_once(s, 1, i % 3 != 0, 0);
        if (i % 11 == 7) { /* a signal at C: nop, svc, then two nops after it in the same run, b C */
            tmc_record *e = add(s, TMC_EXC, 0, C);
            e->target = C + 0x80;
            run(s, 0, C + 0x80, 4);
            br(s, 0, C + 0x90, TMC_JUMP, 1, C);
        }
    }
    run(s, 0, C, 1); /* ends after its last P0 element: not shown */
    add(s, TMC_EXIT, 0, 0);
    add(s, TMC_EXIT, 1, 0);
}

Test(etm4, opencsd_round_trip_every_option)
{
    code_init();
    seq s = {0};
    build_mixed(&s, 300);
    for (unsigned m = 0; m < 16; m++) {
        tm_etm4_opts o = {0};
        o.code = code_at;
        o.return_stack = m & 1;
        o.timestamps = (m >> 1) & 1;
        o.cycle_counts = (m >> 2) & 1;
        o.sync_period = m & 8 ? 64 : 0;
        outbuf out;
        tm_etm4_stats st;
        encode(o, &s, 2, &out, &st);
        tm_etm4_decode_result res;
        char err[512] = "";
        int rc = verify(&o, &s, 2, &out, &res, err, sizeof err);
        cr_assert_eq(rc, TM_OK, "options %u: %s", m, err);
        cr_assert_eq(res.checked + res.untraced, s.insns, "options %u: %" PRIu64 " + %" PRIu64 " of %" PRIu64, m,
                     res.checked, res.untraced, s.insns);
        cr_assert_eq(res.untraced, 1);
        cr_assert_eq(res.threads, 2);
        if (m & 8)
            cr_assert_gt(st.syncs_periodic, 10, "options %u", m);
        outbuf_free(&out);
    }
    free(s.r);
}

Test(etm4, opencsd_catches_a_changed_atom)
{
    code_init();
    seq s = {0};
    build_mixed(&s, 50);
    tm_etm4_opts o = {0};
    o.code = code_at;
    outbuf out;
    encode(o, &s, 2, &out, NULL);
    /* Turn the first format 3 atom packet after the sync into its
     * opposite outcomes (bits 2..0 inverted). */
    size_t i = 25;
    while (i < out.n[0] && (out.p[0][i] & 0xF8) != 0xF8)
        i++;
    cr_assert_lt(i, out.n[0]);
    out.p[0][i] ^= 0x07;
    tm_etm4_decode_result res;
    char err[512] = "";
    int rc = verify(&o, &s, 2, &out, &res, err, sizeof err);
    cr_assert_neq(rc, TM_OK);
    cr_assert(strstr(err, "core 0"), "%s", err);
    outbuf_free(&out);
    free(s.r);
}

Test(etm4, missing_core_and_bad_options)
{
    code_init();
    seq s = {0};
    build_mixed(&s, 5);
    tm_etm4_opts o = {0};
    o.code = code_at;
    outbuf out;
    encode(o, &s, 2, &out, NULL);
    out.n[1] = 0; /* core 1's stream gone */
    tm_etm4_decode_result res;
    char err[512] = "";
    cr_assert_eq(verify(&o, &s, 2, &out, &res, err, sizeof err), TM_ERR_MISMATCH);
    cr_assert(strstr(err, "no ETMv4 stream for core 1"), "%s", err);
    outbuf_free(&out);
    o.sync_period = 10;
    o.write = collect;
    tm_etm4_encoder *e = NULL;
    cr_assert_eq(tm_etm4_encoder_new(&o, 2, &e, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "sync period"), "%s", err);
    free(s.r);
}

/* Timestamps and cycle counts: records every 3 cycles from 0 (seq.cycle). */
Test(etm4, timestamps_and_cycle_counts)
{
    code_init();
    seq s = {0};
    add(&s, TMC_START, 0, C + 0x80);               /* cycle 0 */
    run(&s, 0, C + 0x80, 4);                       /* cycle 3: nop, svc, nop, nop */
    br(&s, 0, C + 0x90, TMC_JUMP, 1, C);           /* cycle 6 */
    add(&s, TMC_EXIT, 0, 0);                       /* cycle 9 */
    outbuf out;
    tm_etm4_opts o = {0};
    o.code = code_at;
    o.timestamps = 1;
    o.cycle_counts = 1;
    encode(o, &s, 1, &out, NULL);
    const uint8_t want[] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80,
        0x01, 0x09, 0x01, 0x04, /* Trace Info: PLCTL INFO (bit 0) + CYCT (bit 3); INFO cc_enabled; CYCT 4 */
        0x04,                   /* Trace On */
        0x02, 0x00,             /* Timestamp 0: one 7-bit group */
        0x85, 0x20, 0x00, 0x40, 0x00, 0x55, 0x00, 0x00, 0x00, 0x30,
        0x06, 0x05, 0x95, 0x22, /* the svc at cycle 3; 3 cycles < the threshold 4: no cycle count */
        0x04, 0x02, 0x03,       /* Trace On, Timestamp 3 (the low group changed) */
        0x80, 0x90,             /* Context same, exact match [0] */
        0xF7,                   /* b: E, packed at EXIT (cycle 9) */
        0x0E, 0x05,             /* Cycle Count format 1: 9 cycles since the count at 0, minus 4 */
    };
    cr_assert_eq(out.n[0], sizeof want, "%zu bytes", out.n[0]);
    expect_bytes(out.p[0], out.n[0], want, sizeof want, "stream");
    outbuf_free(&out);
    free(s.r);
}

/* A periodic sync waits for a P0 element: with a 64-byte period it comes
 * right after an atom packet or an address, never after a run alone. */
Test(etm4, periodic_sync_after_p0_element)
{
    code_init();
    seq s = {0};
    add(&s, TMC_START, 0, C);
    for (int i = 0; i < 40; i++)
        loop_once(&s, 0, i & 1, 0);
    add(&s, TMC_EXIT, 0, 0);
    outbuf out;
    tm_etm4_opts o = {0};
    o.code = code_at;
    o.sync_period = 64;
    tm_etm4_stats st;
    encode(o, &s, 1, &out, &st);
    cr_assert_gt(st.syncs_periodic, 3);
    /* Every A-sync after the first is followed by Trace Info, maybe Trace
     * On, and an Address with Context; OpenCSD, which restarts its
     * instruction walk at each, must still see every instruction. */
    size_t syncs = 0;
    for (size_t i = 12; i + 26 <= out.n[0]; i++) {
        if (memcmp(out.p[0] + i, "\0\0\0\0\0\0\0\0\0\0\0\x80", 12) || out.p[0][i + 12] != 0x01)
            continue;
        const uint8_t *a = out.p[0] + i + 14;
        if (a[0] == 0x04) /* a sync due when trace comes back on: Trace On first */
            a++;
        cr_assert_eq(a[0], 0x85);
        uint64_t addr = ((uint64_t)(a[1] & 0x7F) << 2) | ((uint64_t)(a[2] & 0x7F) << 9) | ((uint64_t)a[3] << 16);
        cr_assert_eq(addr & 3, 0);
        syncs++;
    }
    cr_assert_eq(syncs, st.syncs_periodic);
    tm_etm4_decode_result res;
    char err[512] = "";
    cr_assert_eq(verify(&o, &s, 1, &out, &res, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(res.checked, s.insns);
    outbuf_free(&out);
    free(s.r);
}

/* A signal while trace is on: Exception (IRQ) at the interrupted
 * instruction; Trace On at the handler; the handler's svc. */
Test(etm4, signal_exception_bytes)
{
    code_init();
    seq s = {0};
    add(&s, TMC_START, 0, C);
    run(&s, 0, C, 1);
    tmc_record *e = add(&s, TMC_EXC, 0, C + 0x04); /* before the b.ne */
    e->target = C + 0x80;
    run(&s, 0, C + 0x80, 2); /* nop, svc */
    add(&s, TMC_EXIT, 0, 0);
    outbuf out;
    tm_etm4_opts o = {0};
    o.code = code_at;
    tm_etm4_stats st;
    encode(o, &s, 1, &out, &st);
    /* Exception 0x06, info 0x1D = IRQ (0xE) << 1 | E0; C+4 against C:
     * short, (0x04 >> 2) = 0x01.  Trace On, Context same, C+0x80 (history
     * C+4, C: short, 0x80 >> 2 = 0x20).  The svc: Exception Call + C+0x88
     * (short 0x22); it ends the run: trace stays off. */
    const uint8_t want[] = {0x06, 0x1D, 0x95, 0x01, 0x04, 0x80, 0x95, 0x20, 0x06, 0x05, 0x95, 0x22};
    cr_assert_eq(out.n[0], 25 + sizeof want, "%zu bytes", out.n[0]);
    expect_bytes(out.p[0] + 25, out.n[0] - 25, want, sizeof want, "stream");
    cr_assert_eq(st.exceptions, 1);
    cr_assert_eq(st.syscalls, 1);
    cr_assert_eq(st.untraced, 0);
    tm_etm4_decode_result res;
    char err[512] = "";
    cr_assert_eq(verify(&o, &s, 1, &out, &res, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(res.checked, s.insns);
    outbuf_free(&out);
    free(s.r);
}

/* Cycle count format 3: 6 cycles since the last count, threshold 4:
 * 0001 CC cc with cc = 6 - 4 = 2 (the commit bits CC are 0: COMMOPT 1). */
Test(etm4, cycle_count_format3)
{
    code_init();
    seq s = {0};
    add(&s, TMC_START, 0, C);                  /* cycle 0 */
    run(&s, 0, C, 1);                          /* cycle 3 */
    br(&s, 0, C + 0x04, TMC_COND, 1, C + 0x10); /* cycle 6 */
    s.cycle = 6;
    add(&s, TMC_EXIT, 0, 0);                   /* cycle 6: the atom packed, then the count */
    outbuf out;
    tm_etm4_opts o = {0};
    o.code = code_at;
    o.cycle_counts = 1;
    encode(o, &s, 1, &out, NULL);
    const uint8_t want[] = {0xF7, 0x12};
    cr_assert_eq(out.n[0], 27 + sizeof want, "%zu bytes", out.n[0]); /* the sync: Trace Info is 4 bytes */
    expect_bytes(out.p[0] + 27, out.n[0] - 27, want, sizeof want, "stream");
    outbuf_free(&out);
    free(s.r);
}

/* A packet the encoder never writes (here a Mispredict, 0x30, in place of
 * the first atom packet) is refused before OpenCSD's decoder sees it:
 * OpenCSD 1.3.3 crashes on some of them.  And a reserved header (0x08)
 * makes OpenCSD's packet processor report a bad packet: refused too. */
Test(etm4, refused_packets)
{
    code_init();
    seq s = {0};
    build_mixed(&s, 20);
    tm_etm4_opts o = {0};
    o.code = code_at;
    const uint8_t bad[2] = {0x30, 0x08};
    const char *what[2] = {"(Mispredict) at packet offset 0x19", "(a reserved header) at packet offset 0x19"};
    for (int k = 0; k < 2; k++) {
        outbuf out;
        encode(o, &s, 2, &out, NULL);
        cr_assert_eq(out.p[0][25] & 0xC0, 0xC0, "an atom packet after the 25 bytes of sync");
        out.p[0][25] = bad[k];
        tm_etm4_decode_result res;
        char err[512] = "";
        cr_assert_eq(verify(&o, &s, 2, &out, &res, err, sizeof err), TM_ERR_FORMAT, "%s", err);
        cr_assert(strstr(err, what[k]), "%s", err);
        outbuf_free(&out);
    }
    free(s.r);
}
