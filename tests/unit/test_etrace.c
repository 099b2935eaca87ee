/* tm — unit tests of RISC-V E-Trace (std/etrace_*.c, tm/etrace.h): packets
 * against bits worked out by hand from the spec's field tables, the
 * sign-based compression and the encapsulation, the predictor, cache and
 * return stack, and encoder -> decoder round trips over a small synthetic
 * RISC-V program in every combination of the extensions. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "tm/etrace.h"
#include "tm/rvop.h"

static const tm_et_cfg NONE = {0, 0, 0}, ALL = {1, 10, 4}, BP = {0, 10, 0}, JTC4 = {0, 0, 4};

static void same(const tm_et_cfg *c, const tm_et_packet *p, const uint8_t *want, size_t n)
{
    uint8_t b[40];
    size_t k = tm_et_pack(c, p, b, sizeof b, NULL);
    cr_assert_eq(k, n, "packet kind %u: %zu bytes, want %zu", p->kind, k, n);
    for (size_t i = 0; want && i < n; i++)
        cr_assert_eq(b[i], want[i], "kind %u byte %zu: 0x%02x, want 0x%02x", p->kind, i, b[i], want[i]);
    tm_et_packet q;
    cr_assert_eq(tm_et_unpack(c, b, k, &q), (int)k);
    cr_assert_eq(q.kind, p->kind);
    cr_assert_eq(q.address, p->address);
    cr_assert_eq(q.branch_map, p->branch_map);
    cr_assert_eq(q.branches, p->branches);
    cr_assert_eq(q.branch_count, p->branch_count);
    cr_assert_eq(q.index, p->index);
    cr_assert_eq(q.updiscon, p->updiscon);
    cr_assert_eq(q.irreport, p->irreport);
    if (p->irreport)
        cr_assert_eq(q.irdepth, p->irdepth);
    cr_assert_eq(q.ioptions, p->ioptions);
}

static tm_et_packet pk(unsigned kind)
{
    tm_et_packet p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    return p;
}

/* Support (format 3 subformat 3): format 11, subformat 11, ienable 1,
 * encoder_mode 0, qual_status 00, ioptions 5 bits, denable 0, dloss 0 =
 * 15 bits, LSB first.  ioptions ir|bp|jtc = 0b01101: bits 8, 10, 11 ->
 * value 0x0D1F; the top bit (14) is 0 and the highest 1 is bit 11, so 13
 * bits are kept (one sign bit): 2 bytes 1F 0D after the header 02.
 * Without options: 0x1F, 6 bits kept: 1 byte. */
Test(etrace_pkt, support)
{
    tm_et_packet p = pk(TM_ET_F3_SUPPORT);
    p.ienable = 1;
    p.ioptions = TM_ET_IOPT_IR | TM_ET_IOPT_BP | TM_ET_IOPT_JTC;
    same(&ALL, &p, (const uint8_t[]){0x02, 0x1F, 0x0D}, 3);
    p.ioptions = 0;
    same(&NONE, &p, (const uint8_t[]){0x01, 0x1F}, 2);
}

/* Format 2: format 10 (bit 0 = 0, bit 1 = 1), address 63 bits, notify,
 * updiscon, irreport, irdepth 6 bits (74 bits).  +8 bytes: the field is
 * 8 >> 1 = 4 (bit 4); the flags copy the bit before them (0): value 0x12,
 * 6 bits kept, 1 byte.  -8 bytes: field -4 (bits 2, 3 = 0, bits 4.. = 1),
 * the flags all 1: 0b11110010 = F2.  +8 with updiscon: notify 0 (= address
 * MSB), updiscon 1, irreport 1 (= updiscon), irdepth all 1: the highest
 * bit that differs from the top is notify (bit 65): 67 bits, 9 bytes,
 * the last bits 64..71 = 0,0,1,1,1,1,1,1 = FC. */
Test(etrace_pkt, format2_and_flags)
{
    tm_et_packet p = pk(TM_ET_F2);
    p.address = 4;
    same(&NONE, &p, (const uint8_t[]){0x01, 0x12}, 2);
    p.address = (uint64_t)-4 & ((1ull << 63) - 1);
    same(&NONE, &p, (const uint8_t[]){0x01, 0xF2}, 2);
    p.address = 4;
    p.updiscon = 1;
    same(&NONE, &p, (const uint8_t[]){0x09, 0x12, 0, 0, 0, 0, 0, 0, 0, 0xFC}, 10);
    /* irreport with depth 3 after updiscon 0: irreport bit 1, irdepth 000011 */
    p.updiscon = 0;
    p.irreport = 1;
    p.irdepth = 3;
    uint8_t b[40];
    size_t k = tm_et_pack(&ALL, &p, b, sizeof b, NULL);
    tm_et_packet q;
    cr_assert_eq(tm_et_unpack(&ALL, b, k, &q), (int)k);
    cr_assert_eq(q.irreport, 1);
    cr_assert_eq(q.irdepth, 3);
}

/* Format 1 without address: 01 (bit 0 = 1), branches 00000, branch_map 31
 * bits (38 bits).  Every branch not taken (map all 1): bits 7.. are 1, the
 * highest bit differing from them is bit 6: 8 bits, one byte 0b10000001.
 * Every branch taken: only bit 0 set: 2 bits kept, one byte 01.
 * Format 1 with address: branches 2 (bit 3), branch_map 3 bits at 7..9
 * (oldest taken 0, then not taken 1: bit 8), address +4 (field 2, bit 11):
 * 0x909, 13 bits kept: 2 bytes 09 09. */
Test(etrace_pkt, format1)
{
    tm_et_packet p = pk(TM_ET_F1_FULL);
    p.branch_map = 0x7FFFFFFF;
    same(&NONE, &p, (const uint8_t[]){0x01, 0x81}, 2);
    p.branch_map = 0;
    same(&NONE, &p, (const uint8_t[]){0x01, 0x01}, 2);
    p = pk(TM_ET_F1_ADDR);
    p.branches = 2;
    p.branch_map = 2;
    p.address = 2;
    same(&NONE, &p, (const uint8_t[]){0x02, 0x09, 0x09}, 3);
}

/* Format 3 subformat 0: 11, 00, branch 1 (bit 4), privilege 2 bits (U:
 * 00), address 63 bits from bit 7 (no time, no context).  0x10000 >> 1 =
 * 0x8000: bit 22.  0x400013, 24 bits kept: 3 bytes 13 00 40. */
Test(etrace_pkt, format3_start)
{
    tm_et_packet p = pk(TM_ET_F3_START);
    p.branch = 1;
    p.address = 0x10000 >> 1;
    same(&NONE, &p, (const uint8_t[]){0x03, 0x13, 0x00, 0x40}, 4);
    /* trap: 11 01, branch, privilege, ecause 6, interrupt 1, thaddr 1, address; no tval for an interrupt */
    p = pk(TM_ET_F3_TRAP);
    p.branch = 1;
    p.interrupt = 1;
    p.thaddr = 1;
    p.address = 0x10000 >> 1;
    uint8_t b[40];
    size_t k = tm_et_pack(&NONE, &p, b, sizeof b, NULL);
    /* bits: 1,1,1,0 | 1 | 00 | 000000 | 1 | 1 | address from bit 15: bit 30 */
    cr_assert_eq(k, 5);
    cr_assert_eq(b[1], 0x17);
    cr_assert_eq(b[2], 0x60);
    cr_assert_eq(b[4], 0x40);
}

/* Format 0: 00, subformat (1 bit only when both extensions are on),
 * then subformat 0: branch_count 32 bits, branch_fmt 2 bits.  Count 5
 * without the subformat bit: 5 << 2 = 0x14 (6 bits); with it: 5 << 3 =
 * 0x28 (7 bits).  Subformat 1 (jump target cache of 2^4 alone): index 4
 * bits (9 = 1001: bits 2, 5), branches 00000, irreport, irdepth: 0x24. */
Test(etrace_pkt, format0)
{
    tm_et_packet p = pk(TM_ET_F0_BC);
    p.branch_count = 5;
    same(&BP, &p, (const uint8_t[]){0x01, 0x14}, 2);
    same(&ALL, &p, (const uint8_t[]){0x01, 0x28}, 2);
    p.branch_fmt = 2;
    p.address = 6;
    uint8_t b[40];
    tm_et_packet q;
    size_t k = tm_et_pack(&ALL, &p, b, sizeof b, NULL);
    cr_assert_eq(tm_et_unpack(&ALL, b, k, &q), (int)k);
    cr_assert_eq(q.branch_fmt, 2);
    cr_assert_eq(q.address, 6);
    p = pk(TM_ET_F0_JTC);
    p.index = 9;
    same(&JTC4, &p, (const uint8_t[]){0x01, 0x24}, 2);
    p.branches = 5;
    p.branch_map = 0x15;
    same(&ALL, &p, NULL, 0 + tm_et_pack(&ALL, &p, b, sizeof b, NULL));
}

/* Compression keeps one copy of the sign: 0x00 -> 1 bit, 0x7F (8 bits) ->
 * 8 bits, 0x80 with 9 bits (bit 8 = 0) -> 9 bits = 2 bytes. */
Test(etrace_pkt, compression)
{
    uint8_t z[4] = {0, 0, 0, 0};
    cr_assert_eq(tm_et_compressed_bytes(z, 32), 1);
    uint8_t a[2] = {0x7F, 0};
    cr_assert_eq(tm_et_compressed_bytes(a, 16), 1);
    uint8_t c[2] = {0x80, 0};
    cr_assert_eq(tm_et_compressed_bytes(c, 9), 2);
    uint8_t d[2] = {0xFF, 0xFF};
    cr_assert_eq(tm_et_compressed_bytes(d, 16), 1);
    /* damaged input: a length past the end, an unknown flow */
    tm_et_packet q;
    cr_assert_eq(tm_et_unpack(&NONE, (const uint8_t[]){0x05, 0x12}, 2, &q), -1);
    cr_assert_eq(tm_et_unpack(&NONE, (const uint8_t[]){0x21, 0x12}, 2, &q), -2);
    cr_assert_eq(tm_et_unpack(&NONE, (const uint8_t[]){0x01, 0x00}, 2, &q), -2); /* format 0 with no extension */
    cr_assert_eq(tm_et_unpack(&NONE, (const uint8_t[]){0x00}, 1, &q), 0);        /* null packet */
}

/* The spec's 2-bit states: 01 -> (taken: fail) 11 -> (not taken: fail) 10
 * -> (taken) 11 -> (not taken) 10 -> (not taken) 00. */
Test(etrace_pred, predictor_cache_stack)
{
    tm_et_pred p;
    cr_assert_eq(tm_et_pred_init(&p, 1, 3, 2), TM_OK);
    cr_assert_eq(tm_et_bp_predict(&p, 0x100), 0);
    tm_et_bp_update(&p, 0x100, 1);
    cr_assert_eq(tm_et_bp_predict(&p, 0x100), 1);
    cr_assert_eq(tm_et_bp_predict(&p, 0x100 + 16), 1); /* bits 3:1 alias every 16 bytes */
    cr_assert_eq(tm_et_bp_predict(&p, 0x102), 0);
    tm_et_bp_update(&p, 0x100, 0);
    cr_assert_eq(tm_et_bp_predict(&p, 0x100), 1);
    tm_et_bp_update(&p, 0x100, 1);
    tm_et_bp_update(&p, 0x100, 0);
    cr_assert_eq(tm_et_bp_predict(&p, 0x100), 1);
    tm_et_bp_update(&p, 0x100, 0);
    cr_assert_eq(tm_et_bp_predict(&p, 0x100), 0);
    /* cache: 4 entries, bits 2:1 */
    tm_et_jtc_insert(&p, 0x1000);
    cr_assert(tm_et_jtc_hit(&p, 0x1000));
    cr_assert_eq(tm_et_jtc_index(&p, 0x1000), 0);
    cr_assert_eq(tm_et_jtc_index(&p, 0x1006), 3);
    tm_et_jtc_insert(&p, 0x1008);
    cr_assert(!tm_et_jtc_hit(&p, 0x1000));
    cr_assert_eq(tm_et_jtc_get(&p, 0), 0x1008);
    /* stack: 32 entries, the oldest dropped */
    for (uint64_t i = 0; i < 33; i++)
        tm_et_rs_push(&p, 0x2000 + 4 * i);
    cr_assert_eq(p.rs_n, 32);
    uint64_t ra;
    for (uint64_t i = 32; i >= 1; i--) {
        cr_assert_eq(tm_et_rs_pop(&p, &ra), 0);
        cr_assert_eq(ra, 0x2000 + 4 * i);
    }
    cr_assert_eq(tm_et_rs_pop(&p, &ra), -1);
    tm_et_pred_reset(&p);
    cr_assert(!tm_et_jtc_hit(&p, 0x1008));
    cr_assert_eq(tm_et_bp_predict(&p, 0x100), 0);
    tm_et_opts o = {.implicit_return = 1, .bp_log2 = 3, .jtc_log2 = 2};
    cr_assert_eq(tm_et_storage_bits(&o), 32 * 63 + 6 + 2 * 8 + 64 * 4);
    tm_et_pred_free(&p);
}

/* ---- round trips over a synthetic program ---- */

#define BASE 0x10000u
static uint8_t code[0x200];

static const uint8_t *code_at(void *arg, uint64_t a, size_t *avail)
{
    (void)arg;
    if (a < BASE || a >= BASE + sizeof code)
        return NULL;
    *avail = BASE + sizeof code - a;
    return code + (a - BASE);
}

static void put32(uint64_t a, uint32_t i)
{
    memcpy(code + (a - BASE), &i, 4);
}

static void put16(uint64_t a, uint16_t i)
{
    memcpy(code + (a - BASE), &i, 2);
}

static uint32_t enc_b(int off, unsigned rs1, unsigned rs2, unsigned f3)
{
    uint32_t u = (uint32_t)off;
    return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3F) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
           ((u >> 1) & 0xF) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}

static uint32_t enc_j(int off, unsigned rd)
{
    uint32_t u = (uint32_t)off;
    return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3FF) << 21 | ((u >> 11) & 1) << 20 | ((u >> 12) & 0xFF) << 12 |
           rd << 7 | 0x6F;
}

static uint32_t enc_jalr(unsigned rd, unsigned rs1)
{
    return rs1 << 15 | rd << 7 | 0x67;
}

/* 0x10000 nop; 0x10004 c.nop; 0x10006 beq a0,a1,+10; 0x1000a jal ra,f;
 * 0x1000e beq a2,a3,+8; 0x10012 ecall; 0x10016 jalr x0,a0;
 * f 0x10040: nop; bne a0,a1,-4 (a loop); nop; ret.  handler 0x10080: nop; jalr x0,a0.
 * 0x100c0: jal t0, g (0x100d0); 0x100c4 jalr x0,a0;  g: c.nop; jalr x0,t0 */
static void program(void)
{
    memset(code, 0, sizeof code);
    put32(0x10000, 0x13);
    put16(0x10004, 0x0001);
    put32(0x10006, enc_b(8, 10, 11, 0));
    put32(0x1000a, enc_j(0x10040 - 0x1000a, 1));
    put32(0x1000e, enc_b(8, 12, 13, 0));
    put32(0x10012, 0x73);
    put32(0x10016, enc_jalr(0, 10));
    put32(0x10040, 0x13);
    put32(0x10044, enc_b(-4, 10, 11, 1));
    put32(0x10048, 0x13);
    put32(0x1004c, enc_jalr(0, 1));
    put32(0x10080, 0x13);
    put32(0x10084, enc_jalr(0, 10));
    put32(0x100c0, enc_j(0x100d0 - 0x100c0, 5));
    put32(0x100c4, enc_jalr(0, 10));
    put16(0x100d0, 0x0001);
    put32(0x100d2, enc_jalr(0, 5));
}

typedef struct recs {
    tmc_record *r;
    size_t n, cap;
} recs;

static void add(recs *s, const tmc_record *r)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->r = realloc(s->r, s->cap * sizeof *s->r);
        cr_assert(s->r);
    }
    s->r[s->n++] = *r;
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* STEPS instructions of hart TID from the program, outcomes from SEED. */
static void simulate(recs *s, uint32_t tid, uint64_t seed, unsigned steps)
{
    static const uint64_t ijt[] = {0x10000, 0x10004, 0x10006, 0x10040, 0x100c0};
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.tid = tid;
    r.type = TMC_START;
    r.pc = BASE;
    uint64_t cyc = 1, pc = BASE, x = seed;
    r.cycle = cyc++;
    add(s, &r);
    uint64_t run_pc = 0, run_n = 0, run_b = 0, ras[64];
    unsigned nras = 0;
    for (unsigned i = 0; i < steps; i++) {
        size_t avail;
        const uint8_t *c = code_at(NULL, pc, &avail);
        cr_assert(c);
        unsigned len;
        unsigned long long t = 0;
        int k = tm_rv_op(c, 4, pc, &len, &t);
        if (k == TM_RV_OTHER || k == TM_RV_SYSCALL) {
            if (!run_n)
                run_pc = pc;
            run_n++;
            run_b += len;
            pc += len;
            if (rnd(&x) % 499 == 0) { /* a signal before the next instruction */
                memset(&r, 0, sizeof r);
                r.tid = tid;
                r.cycle = cyc++;
                r.type = TMC_RUN;
                r.pc = run_pc;
                r.count = run_n;
                r.bytes = run_b;
                add(s, &r);
                run_n = run_b = 0;
                r.type = TMC_EXC;
                r.cycle = cyc++;
                r.pc = pc;
                r.target = 0x10080;
                add(s, &r);
                pc = 0x10080;
            }
            continue;
        }
        memset(&r, 0, sizeof r);
        r.tid = tid;
        if (run_n) {
            r.type = TMC_RUN;
            r.cycle = cyc++;
            r.pc = run_pc;
            r.count = run_n;
            r.bytes = run_b;
            add(s, &r);
            run_n = run_b = 0;
        }
        r.type = TMC_BRANCH;
        r.cycle = cyc++;
        r.pc = pc;
        r.len = (uint8_t)len;
        r.taken = 1;
        switch (k) {
        case TM_RV_COND:
            r.bclass = TMC_COND;
            r.target = t;
            r.taken = pc == 0x10044 ? rnd(&x) % 50 != 0 : pc == 0x1000e ? rnd(&x) % 20 != 0 : rnd(&x) % 3 != 0;
            pc = r.taken ? t : pc + len;
            break;
        case TM_RV_CALL:
            r.bclass = TMC_CALL;
            r.target = t;
            if (nras < 64)
                ras[nras++] = pc + len;
            pc = t;
            break;
        case TM_RV_RET:
            r.bclass = TMC_RET;
            r.target = nras && rnd(&x) % 10 ? ras[--nras] : ijt[rnd(&x) % 5];
            pc = r.target;
            break;
        default:
            r.bclass = TMC_IJUMP;
            r.target = ijt[rnd(&x) % 5];
            pc = r.target;
            break;
        }
        add(s, &r);
    }
    memset(&r, 0, sizeof r);
    r.tid = tid;
    if (run_n) {
        r.type = TMC_RUN;
        r.cycle = cyc++;
        r.pc = run_pc;
        r.count = run_n;
        r.bytes = run_b;
        add(s, &r);
    }
    r.type = TMC_EXIT;
    r.cycle = cyc++;
    add(s, &r);
}

typedef struct out2 {
    uint8_t *p[2];
    size_t n[2];
} out2;

static int wr(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    out2 *o = arg;
    o->p[tid] = realloc(o->p[tid], o->n[tid] + n);
    memcpy(o->p[tid] + o->n[tid], p, n);
    o->n[tid] += n;
    return 0;
}

/* Encodes S with O, decodes and compares: the verifier's status (ERR). */
static int round_trip(const recs *s, tm_et_opts o, out2 *out, tm_et_stats *st, int damage, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    o.code = code_at;
    o.write = wr;
    o.write_arg = out;
    tm_et_encoder *e;
    cr_assert_eq(tm_et_encoder_new(&o, 2, &e, err, n), TM_OK);
    for (size_t i = 0; i < s->n; i++)
        cr_assert_eq(tm_et_encoder_put(e, &s->r[i], err, n), TM_OK, "%s", err);
    cr_assert_eq(tm_et_encoder_finish(e, err, n), TM_OK, "%s", err);
    *st = *tm_et_encoder_stats(e);
    tm_et_encoder_free(e);
    if (damage == 1)
        memset(out->p[0] + out->n[0] / 2, 0x5A, 8);
    if (damage == 2)
        out->n[0] /= 2;
    tm_et_verifier *v;
    cr_assert_eq(tm_et_verifier_new(&o, 2, &v, err, n), TM_OK);
    for (uint32_t t = 0; t < 2; t++)
        if (out->p[t] && !(damage == 3 && t == 1))
            tm_et_verifier_set(v, t, out->p[t], out->n[t], "synthetic");
    int rc = TM_OK;
    for (size_t i = 0; i < s->n && rc == TM_OK; i++)
        rc = tm_et_verifier_put(v, &s->r[i], err, n);
    if (rc == TM_OK)
        rc = tm_et_verifier_finish(v, err, n);
    cr_assert_eq(tm_et_verifier_checked(v) <= st->instructions, 1);
    tm_et_verifier_free(v);
    return rc;
}

Test(etrace_enc, round_trip_every_combination)
{
    program();
    recs s = {NULL, 0, 0};
    simulate(&s, 0, 0x1234567, 20000);
    simulate(&s, 1, 0x7654321, 5000);
    for (unsigned i = 0; i < 16; i++) { /* the extensions, each with the resync timer at 4096 and 64 bytes */
        tm_et_opts o;
        memset(&o, 0, sizeof o);
        o.implicit_return = i & 1;
        o.bp_log2 = i & 2 ? 6 : 0;
        o.jtc_log2 = i & 4 ? 3 : 0;
        o.resync = i & 8 ? 64 : 0;
        out2 out;
        tm_et_stats st;
        char err[512] = "";
        int rc = round_trip(&s, o, &out, &st, 0, err, sizeof err);
        cr_assert_eq(rc, TM_OK, "ir %d bp %u jtc %u: %s", o.implicit_return, o.bp_log2, o.jtc_log2, err);
        cr_assert_gt(st.packets[TM_ET_F3_START], 0);
        cr_assert_gt(st.packets[TM_ET_F3_TRAP], 0);
        cr_assert_gt(st.syscalls, 0);
        if (o.resync)
            cr_assert_gt(st.resyncs, 0, "%llu bytes, %llu start packets", (unsigned long long)st.total_bytes,
                         (unsigned long long)st.packets[TM_ET_F3_START]);
        if (o.implicit_return) {
            cr_assert_gt(st.implicit_returns, 0);
            cr_assert_gt(st.failed_returns, 0);
        }
        if (o.bp_log2)
            cr_assert_gt(st.packets[TM_ET_F0_BC], 0);
        if (o.jtc_log2)
            cr_assert_gt(st.packets[TM_ET_F0_JTC], 0);
        free(out.p[0]);
        free(out.p[1]);
    }
    free(s.r);
}

Test(etrace_enc, damage_is_caught)
{
    program();
    recs s = {NULL, 0, 0};
    simulate(&s, 0, 0x99, 20000);
    simulate(&s, 1, 0x77, 2000);
    for (int damage = 1; damage <= 3; damage++)
        for (unsigned i = 0; i < 8; i += 7) {
            tm_et_opts o;
            memset(&o, 0, sizeof o);
            o.implicit_return = i & 1;
            o.bp_log2 = i & 2 ? 6 : 0;
            o.jtc_log2 = i & 4 ? 3 : 0;
            out2 out;
            tm_et_stats st;
            char err[512] = "";
            int rc = round_trip(&s, o, &out, &st, damage, err, sizeof err);
            cr_assert_neq(rc, TM_OK, "damage %d not caught", damage);
            cr_assert(strstr(err, "hart "), "%s", err);
            cr_assert_null(strchr(err, '\n'));
            free(out.p[0]);
            free(out.p[1]);
        }
    free(s.r);
}

/* The packets of a short hart by hand (no extensions), over the program:
 *   START 0x10000; RUN 0x10000 (nop, c.nop); beq 0x10006 taken; beq
 *   0x1000e taken (to 0x10016); jalr x0,a0 at 0x10016 to 0x10040; RUN
 *   0x10040 (nop); bne 0x10044 not taken; RUN 0x10048 (nop); EXIT.
 * 1. support, no options, qual no_change: 01 1F (see etrace_pkt.support);
 * 2. format 3 start at 0x10000, branch 1: 03 13 00 40 (etrace_pkt.format3_start);
 * 3. the jump's target 0x10040 with the two taken branches: format 1,
 *    branches 2 (bit 3), map 000 (bits 7..9), address (0x10040 - 0x10000)
 *    >> 1 = 0x20 from bit 10: bit 15; 0x8009, 17 bits kept: 03 09 80 00;
 * 4. the exit after 0x10048: format 1, branches 1 (bit 2), map 1 bit (bit
 *    7: not taken), address (0x10048 - 0x10040) >> 1 = 4 from bit 8: bit 10;
 *    0x485: 02 85 04;
 * 5. support, qual_status ended_rep (01: bit 6): 0x5F: 01 5F. */
Test(etrace_enc, packets_by_hand)
{
    program();
    static const tmc_record in[] = {
        {.type = TMC_START, .pc = 0x10000, .cycle = 1},
        {.type = TMC_RUN, .pc = 0x10000, .count = 2, .bytes = 6, .cycle = 2},
        {.type = TMC_BRANCH, .pc = 0x10006, .target = 0x1000e, .bclass = TMC_COND, .taken = 1, .len = 4, .cycle = 3},
        {.type = TMC_BRANCH, .pc = 0x1000e, .target = 0x10016, .bclass = TMC_COND, .taken = 1, .len = 4, .cycle = 4},
        {.type = TMC_BRANCH, .pc = 0x10016, .target = 0x10040, .bclass = TMC_IJUMP, .taken = 1, .len = 4, .cycle = 5},
        {.type = TMC_RUN, .pc = 0x10040, .count = 1, .bytes = 4, .cycle = 6},
        {.type = TMC_BRANCH, .pc = 0x10044, .target = 0x10040, .bclass = TMC_COND, .taken = 0, .len = 4, .cycle = 7},
        {.type = TMC_RUN, .pc = 0x10048, .count = 1, .bytes = 4, .cycle = 8},
        {.type = TMC_EXIT, .cycle = 9},
    };
    static const uint8_t want[] = {0x01, 0x1F, 0x03, 0x13, 0x00, 0x40, 0x03, 0x09, 0x80,
                                   0x00, 0x02, 0x85, 0x04, 0x01, 0x5F};
    recs s = {NULL, 0, 0};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
        add(&s, &in[i]);
    tm_et_opts o;
    memset(&o, 0, sizeof o);
    out2 out;
    tm_et_stats st;
    char err[512] = "";
    cr_assert_eq(round_trip(&s, o, &out, &st, 0, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(out.n[0], sizeof want);
    for (size_t i = 0; i < sizeof want; i++)
        cr_assert_eq(out.p[0][i], want[i], "byte %zu: 0x%02x, want 0x%02x", i, out.p[0][i], want[i]);
    cr_assert_eq(st.instructions, 8);
    cr_assert_eq(st.packets[TM_ET_F1_ADDR], 2);
    cr_assert_eq(st.packets[TM_ET_F3_SUPPORT], 2);
    free(out.p[0]);
    free(s.r);
}
