/* tm — unit tests of the Intel PT encoder (pt/pt_enc.c, tm/pt.h).
 *
 * Small directed commit streams (tmc_record structs built here, no files)
 * go through tm_pt_encoder_new/put/finish; a write callback collects each
 * core's bytes in memory and libipt's packet decoder (pt_pkt_next) reads
 * them back, and every test asserts the exact packet sequence: types, IP
 * compressions, payloads and the last IP they decode to (tracked here as
 * libipt does: PSB clears it).  The round trips at the end run libipt's
 * instruction decoder over hand-assembled code (an in-memory image, a read
 * callback) and check that it yields exactly the instructions the records
 * describe. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>
#include "tm/pt.h"

#define MAXT 4u

/* ---- each core's output ---- */

typedef struct outbuf {
    uint8_t *p[MAXT];
    size_t n[MAXT], cap[MAXT];
    unsigned calls;
    int fail; /* nonzero: the callback refuses */
} outbuf;

static int collect(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    outbuf *o = arg;
    if (o->fail)
        return 1;
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
    o->calls++;
    return 0;
}

static void outbuf_free(outbuf *o)
{
    for (unsigned i = 0; i < MAXT; i++)
        free(o->p[i]);
    memset(o, 0, sizeof *o);
}

/* ---- code: a few regions of hand-assembled bytes ---- */

typedef struct region {
    uint64_t base;
    const uint8_t *b;
    size_t n;
} region;

typedef struct codemap {
    region r[4];
    size_t n;
} codemap;

static const uint8_t *code_at(void *arg, uint64_t addr, size_t *avail)
{
    const codemap *m = arg;
    for (size_t i = 0; i < m->n; i++)
        if (addr >= m->r[i].base && addr - m->r[i].base < m->r[i].n) {
            *avail = m->r[i].n - (size_t)(addr - m->r[i].base);
            return m->r[i].b + (addr - m->r[i].base);
        }
    *avail = 0;
    return NULL;
}

/* libipt's read_memory_callback_t over the same code. */
static int read_mem(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip, void *ctx)
{
    (void)asid;
    size_t avail;
    const uint8_t *p = code_at(ctx, ip, &avail);
    if (!p)
        return -pte_nomap;
    if (size > avail)
        size = avail;
    memcpy(buf, p, size);
    return (int)size;
}

/* ---- commit-stream records ---- */

typedef struct seq {
    tmc_record *r;
    size_t n, cap;
    uint64_t cycle;  /* of the next record (then incremented) */
    uint64_t *ips;   /* the instructions the records describe (round trips) */
    size_t nips, ipcap;
} seq;

static void seq_free(seq *s)
{
    free(s->r);
    free(s->ips);
    memset(s, 0, sizeof *s);
}

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
    r->cycle = s->cycle++;
    r->pc = pc;
    return r;
}

static void insn(seq *s, uint64_t ip)
{
    if (s->nips == s->ipcap) {
        s->ipcap = s->ipcap ? 2 * s->ipcap : 64;
        s->ips = realloc(s->ips, s->ipcap * sizeof *s->ips);
        cr_assert_not_null(s->ips);
    }
    s->ips[s->nips++] = ip;
}

static void start(seq *s, uint32_t tid, uint64_t pc)
{
    add(s, TMC_START, tid, pc);
}

static void texit(seq *s, uint32_t tid)
{
    add(s, TMC_EXIT, tid, 0);
}

static void run(seq *s, uint32_t tid, uint64_t pc, uint64_t count, uint64_t bytes)
{
    tmc_record *r = add(s, TMC_RUN, tid, pc);
    r->count = count;
    r->bytes = bytes;
}

/* A run of N instructions of lengths LENS (their addresses go to s->ips). */
static void runl(seq *s, uint32_t tid, uint64_t pc, size_t n, const unsigned *lens)
{
    uint64_t b = 0;
    for (size_t i = 0; i < n; i++) {
        insn(s, pc + b);
        b += lens[i];
    }
    run(s, tid, pc, n, b);
}

static void br(seq *s, uint32_t tid, uint64_t pc, unsigned len, tmc_bclass c, int taken, uint64_t target)
{
    tmc_record *r = add(s, TMC_BRANCH, tid, pc);
    r->len = (uint8_t)len;
    r->bclass = (uint8_t)c;
    r->taken = (uint8_t)taken;
    r->target = target;
    insn(s, pc);
}

static void exc(seq *s, uint32_t tid, uint64_t pc, uint64_t handler)
{
    tmc_record *r = add(s, TMC_EXC, tid, pc);
    r->target = handler;
}

/* ---- encoding ---- */

/* Encodes S for THREADS cores with options O; every call must succeed. */
static void encode(tm_pt_opts o, const seq *s, uint32_t threads, outbuf *out, tm_pt_stats *st)
{
    o.write = collect;
    o.write_arg = out;
    tm_pt_encoder *e = NULL;
    char err[256] = "";
    cr_assert_eq(tm_pt_encoder_new(&o, threads, &e, err, sizeof err), TM_OK, "%s", err);
    for (size_t i = 0; i < s->n; i++)
        cr_assert_eq(tm_pt_encoder_put(e, &s->r[i], err, sizeof err), TM_OK, "record %zu: %s", i, err);
    cr_assert_eq(tm_pt_encoder_finish(e, err, sizeof err), TM_OK, "%s", err);
    if (st)
        *st = *tm_pt_encoder_stats(e);
    for (uint32_t t = 0; t < threads && t < MAXT; t++)
        cr_assert_eq(tm_pt_encoder_thread_bytes(e, t), out->n[t], "thread %u", t);
    tm_pt_encoder_free(e);
}

/* Encodes S expecting an error: the status of the first call that fails
 * (put or finish), its message in ERR, the record in *AT. */
static int encode_fail(tm_pt_opts o, const seq *s, uint32_t threads, outbuf *out, char *err, size_t errlen,
                       size_t *at)
{
    o.write = collect;
    o.write_arg = out;
    tm_pt_encoder *e = NULL;
    err[0] = 0;
    cr_assert_eq(tm_pt_encoder_new(&o, threads, &e, err, errlen), TM_OK, "%s", err);
    int rc = TM_OK;
    size_t i;
    for (i = 0; i < s->n && !rc; i++)
        rc = tm_pt_encoder_put(e, &s->r[i], err, errlen);
    if (!rc)
        rc = tm_pt_encoder_finish(e, err, errlen);
    else
        i--;
    if (at)
        *at = i;
    if (rc) {
        /* the error is sticky */
        char err2[256];
        cr_assert_eq(tm_pt_encoder_finish(e, err2, sizeof err2), rc);
        cr_assert_eq(tm_pt_encoder_put(e, &s->r[0], err2, sizeof err2), rc);
    }
    tm_pt_encoder_free(e);
    return rc;
}

/* ---- packets ---- */

typedef struct pk {
    struct pt_packet p;
    uint64_t off;
} pk;

typedef struct pkts {
    pk *v;
    size_t n, cap;
    size_t i;         /* the cursor */
    uint64_t last_ip; /* libipt's last IP at the cursor */
} pkts;

static void parse(const uint8_t *b, size_t n, pkts *k)
{
    memset(k, 0, sizeof *k);
    cr_assert_not_null(b, "no output");
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)(uintptr_t)b;
    cfg.end = (uint8_t *)(uintptr_t)b + n;
    struct pt_packet_decoder *d = pt_pkt_alloc_decoder(&cfg);
    cr_assert_not_null(d);
    int s = pt_pkt_sync_forward(d);
    cr_assert_geq(s, 0, "no PSB: %s", pt_errstr(pt_errcode(s)));
    uint64_t off = 1;
    cr_assert_geq(pt_pkt_get_sync_offset(d, &off), 0);
    cr_assert_eq(off, 0, "the buffer does not start with PSB (first at %" PRIu64 ")", off);
    for (;;) {
        cr_assert_geq(pt_pkt_get_offset(d, &off), 0);
        struct pt_packet p;
        s = pt_pkt_next(d, &p, sizeof p);
        if (s == -pte_eos)
            break;
        cr_assert_geq(s, 0, "offset %" PRIu64 ": %s", off, pt_errstr(pt_errcode(s)));
        if (k->n == k->cap) {
            k->cap = k->cap ? 2 * k->cap : 64;
            k->v = realloc(k->v, k->cap * sizeof *k->v);
            cr_assert_not_null(k->v);
        }
        k->v[k->n].p = p;
        k->v[k->n].off = off;
        k->n++;
    }
    cr_assert_eq(off, n, "packets end at %" PRIu64 " of %zu bytes", off, n);
    pt_pkt_free_decoder(d);
}

static void pkts_free(pkts *k)
{
    free(k->v);
    memset(k, 0, sizeof *k);
}

static const char *ptype(enum pt_packet_type t)
{
    switch (t) {
    case ppt_tnt_8: return "tnt8";
    case ppt_tnt_64: return "tnt64";
    case ppt_tip: return "tip";
    case ppt_tip_pge: return "tip.pge";
    case ppt_tip_pgd: return "tip.pgd";
    case ppt_fup: return "fup";
    case ppt_psb: return "psb";
    case ppt_psbend: return "psbend";
    case ppt_mode: return "mode";
    case ppt_tsc: return "tsc";
    case ppt_mtc: return "mtc";
    case ppt_cyc: return "cyc";
    case ppt_pad: return "pad";
    default: return "other";
    }
}

/* The packets, one a line, on stderr (when an expectation fails). */
static void dump(const pkts *k)
{
    fprintf(stderr, "---- %zu packets (cursor at %zu) ----\n", k->n, k->i);
    for (size_t i = 0; i < k->n; i++) {
        const struct pt_packet *p = &k->v[i].p;
        fprintf(stderr, "%c%4zu @%-5" PRIu64 " %-8s", i == k->i ? '>' : ' ', i, k->v[i].off, ptype(p->type));
        switch (p->type) {
        case ppt_tnt_8: case ppt_tnt_64:
            fprintf(stderr, " bits %u payload 0x%" PRIx64, p->payload.tnt.bit_size, p->payload.tnt.payload);
            break;
        case ppt_tip: case ppt_tip_pge: case ppt_tip_pgd: case ppt_fup:
            fprintf(stderr, " ipc %d ip 0x%" PRIx64, (int)p->payload.ip.ipc, p->payload.ip.ip);
            break;
        case ppt_tsc: fprintf(stderr, " %" PRIu64, p->payload.tsc.tsc); break;
        case ppt_cyc: fprintf(stderr, " %" PRIu64, p->payload.cyc.value); break;
        case ppt_mtc: fprintf(stderr, " %u", p->payload.mtc.ctc); break;
        default: break;
        }
        fprintf(stderr, "\n");
    }
}

/* The packet at the cursor, of type T (LINE: the caller's, for messages). */
static const struct pt_packet *next_of(pkts *k, enum pt_packet_type t, int line)
{
    if (k->i >= k->n || k->v[k->i].p.type != t) {
        dump(k);
        cr_assert_fail("line %d: packet %zu: expected %s, got %s", line, k->i, ptype(t),
                       k->i < k->n ? ptype(k->v[k->i].p.type) : "the end");
    }
    const struct pt_packet *p = &k->v[k->i++].p;
    if (t == ppt_psb)
        k->last_ip = 0;
    return p;
}

static void expect_mode(pkts *k, int line)
{
    const struct pt_packet *p = next_of(k, ppt_mode, line);
    cr_assert_eq(p->payload.mode.leaf, pt_mol_exec, "line %d: MODE leaf", line);
    cr_assert_eq(pt_get_exec_mode(&p->payload.mode.bits.exec), ptem_64bit, "line %d: MODE.Exec not 64-bit", line);
    cr_assert_eq(p->size, 2, "line %d", line);
}

/* An IP packet of type T with compression IPC that decodes (against the last
 * IP) to IP. */
static void expect_ip(pkts *k, enum pt_packet_type t, enum pt_ip_compression ipc, uint64_t ip, int line)
{
    size_t at = k->i;
    const struct pt_packet *p = next_of(k, t, line);
    if (p->payload.ip.ipc != ipc) {
        k->i = at;
        dump(k);
        cr_assert_fail("line %d: packet %zu (%s): ipc %d, expected %d", line, at, ptype(t), (int)p->payload.ip.ipc,
                       (int)ipc);
    }
    uint64_t pl = p->payload.ip.ip, got = k->last_ip, mask = 0;
    unsigned size = 1;
    switch (ipc) {
    case pt_ipc_suppressed: mask = 0; size = 1; break;
    case pt_ipc_update_16: mask = 0xffffull; size = 3; got = (got & ~mask) | pl; break;
    case pt_ipc_update_32: mask = 0xffffffffull; size = 5; got = (got & ~mask) | pl; break;
    case pt_ipc_update_48: mask = 0xffffffffffffull; size = 7; got = (got & ~mask) | pl; break;
    case pt_ipc_sext_48:
        mask = 0xffffffffffffull;
        size = 7;
        got = (uint64_t)((int64_t)(pl << 16) >> 16);
        break;
    case pt_ipc_full: mask = ~0ull; size = 9; got = pl; break;
    }
    cr_assert_eq(p->size, size, "line %d: packet %zu: %u bytes, expected %u", line, at, p->size, size);
    cr_assert_eq(pl & ~mask, 0, "line %d: packet %zu: payload 0x%" PRIx64 " wider than its ipc", line, at, pl);
    if (ipc == pt_ipc_suppressed)
        return;
    cr_assert_eq(pl, ip & mask, "line %d: packet %zu: payload 0x%" PRIx64 ", expected 0x%" PRIx64, line, at, pl,
                 ip & mask);
    if (got != ip) {
        k->i = at;
        dump(k);
        cr_assert_fail("line %d: packet %zu decodes to 0x%" PRIx64 ", expected 0x%" PRIx64, line, at, got, ip);
    }
    k->last_ip = got;
}

static void expect_tnt(pkts *k, enum pt_packet_type t, unsigned bits, uint64_t payload, int line)
{
    size_t at = k->i;
    const struct pt_packet *p = next_of(k, t, line);
    if (p->payload.tnt.bit_size != bits || p->payload.tnt.payload != payload) {
        k->i = at;
        dump(k);
        cr_assert_fail("line %d: packet %zu: TNT of %u bits 0x%" PRIx64 ", expected %u bits 0x%" PRIx64, line, at,
                       p->payload.tnt.bit_size, p->payload.tnt.payload, bits, payload);
    }
}

static void expect_cyc(pkts *k, uint64_t v, int line)
{
    size_t at = k->i;
    const struct pt_packet *p = next_of(k, ppt_cyc, line);
    if (p->payload.cyc.value != v) {
        k->i = at;
        dump(k);
        cr_assert_fail("line %d: packet %zu: CYC %" PRIu64 ", expected %" PRIu64, line, at, p->payload.cyc.value, v);
    }
}

static void expect_end(pkts *k, int line)
{
    if (k->i != k->n) {
        dump(k);
        cr_assert_fail("line %d: %zu packets left after packet %zu", line, k->n - k->i, k->i);
    }
}

#define PSB(k) next_of((k), ppt_psb, __LINE__)
#define PSBEND(k) next_of((k), ppt_psbend, __LINE__)
#define MODE(k) expect_mode((k), __LINE__)
#define TIP(k, ipc, ip) expect_ip((k), ppt_tip, (ipc), (ip), __LINE__)
#define PGE(k, ipc, ip) expect_ip((k), ppt_tip_pge, (ipc), (ip), __LINE__)
#define PGD(k) expect_ip((k), ppt_tip_pgd, pt_ipc_suppressed, 0, __LINE__)
#define FUP(k, ipc, ip) expect_ip((k), ppt_fup, (ipc), (ip), __LINE__)
#define TNT8(k, bits, pl) expect_tnt((k), ppt_tnt_8, (bits), (pl), __LINE__)
#define TNT64(k, bits, pl) expect_tnt((k), ppt_tnt_64, (bits), (pl), __LINE__)
#define CYC(k, v) expect_cyc((k), (v), __LINE__)
#define END(k) expect_end((k), __LINE__)

/* A thread's first packets: PSB, PSBEND, MODE.Exec, TIP.PGE at PC (the
 * first IP after PSB: sext_48). */
#define START_PACKETS(k, pc)                        \
    do {                                            \
        PSB(k);                                     \
        PSBEND(k);                                  \
        MODE(k);                                    \
        PGE((k), pt_ipc_sext_48, (pc));             \
    } while (0)

/* Thread 0's packets of S with options O (st: the statistics, or NULL). */
static void encode_parse(tm_pt_opts o, const seq *s, pkts *k, tm_pt_stats *st)
{
    outbuf out = {0};
    encode(o, s, 1, &out, st);
    parse(out.p[0], out.n[0], k);
    outbuf_free(&out);
}

static size_t count_type(const pkts *k, enum pt_packet_type t)
{
    size_t c = 0;
    for (size_t i = 0; i < k->n; i++)
        c += k->v[i].p.type == t;
    return c;
}

static const uint64_t A = 0x00007f1234560000ull; /* a canonical user address */

/* ==== 1. thread start and end ==== */

Test(pt, thread_start_and_exit)
{
    seq s = {0};
    start(&s, 0, A);
    run(&s, 0, A, 3, 7);
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, A);
    FUP(&k, pt_ipc_update_16, A + 7); /* the next instruction */
    PGD(&k);
    END(&k);
    cr_assert_eq(k.v[0].p.size, 16);
    cr_assert_eq(st.instructions, 3);
    cr_assert_eq(st.threads, 1);
    cr_assert_eq(st.psb, 1);
    cr_assert_eq(st.cycles, 3);
    pkts_free(&k);
    seq_free(&s);
}

Test(pt, start_then_exit_at_once)
{
    seq s = {0};
    start(&s, 0, A);
    texit(&s, 0);
    pkts k;
    encode_parse((tm_pt_opts){0}, &s, &k, NULL);
    START_PACKETS(&k, A);
    FUP(&k, pt_ipc_update_16, A);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    seq_free(&s);
}

/* finish ends a thread still running; END and CUT do too. */
Test(pt, finish_and_end_close_open_threads)
{
    for (int end = 0; end < 3; end++) {
        seq s = {0};
        start(&s, 0, A);
        br(&s, 0, A, 2, TMC_COND, 1, A + 0x40);
        if (end)
            add(&s, end == 1 ? TMC_END : TMC_ENDING, 0, 0);
        pkts k;
        encode_parse((tm_pt_opts){0}, &s, &k, NULL);
        START_PACKETS(&k, A);
        TNT8(&k, 1, 1);
        FUP(&k, pt_ipc_update_16, A + 0x40);
        PGD(&k);
        END(&k);
        pkts_free(&k);
        seq_free(&s);
    }
}

/* Each core has its own buffer, last IP and call stack; a thread that
 * starts again gets a new PSB+. */
Test(pt, threads_are_independent)
{
    const uint64_t B = 0x0000555500000000ull;
    seq s = {0};
    start(&s, 0, A);
    start(&s, 1, B);
    br(&s, 0, A, 5, TMC_CALL, 1, A + 0x100);
    br(&s, 1, B, 2, TMC_IJUMP, 1, A + 0x10); /* thread 0's region: thread 1's last IP is B */
    br(&s, 0, A + 0x100, 1, TMC_RET, 1, A + 5);
    br(&s, 1, A + 0x10, 1, TMC_RET, 1, A + 5); /* thread 1 made no call: TIP */
    texit(&s, 1);
    start(&s, 1, B + 0x20);
    texit(&s, 1);
    texit(&s, 0);
    outbuf out = {0};
    tm_pt_stats st;
    encode((tm_pt_opts){0}, &s, 2, &out, &st);
    cr_assert_eq(st.threads, 2);
    cr_assert_eq(st.psb, 3);
    cr_assert_eq(st.rets_compressed, 1);
    pkts k;
    parse(out.p[0], out.n[0], &k);
    START_PACKETS(&k, A);
    TNT8(&k, 1, 1);
    FUP(&k, pt_ipc_update_16, A + 5);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    parse(out.p[1], out.n[1], &k);
    START_PACKETS(&k, B);
    TIP(&k, pt_ipc_sext_48, A + 0x10);
    TIP(&k, pt_ipc_update_16, A + 5);
    FUP(&k, pt_ipc_update_16, A + 5);
    PGD(&k);
    START_PACKETS(&k, B + 0x20);
    FUP(&k, pt_ipc_update_16, B + 0x20);
    PGD(&k);
    END(&k);
    cr_assert_eq(count_type(&k, ppt_psb), 2);
    pkts_free(&k);
    outbuf_free(&out);
    seq_free(&s);
}

/* More than 64 KiB for a core: written in several calls, in order. */
Test(pt, large_output_written_in_order)
{
    const unsigned n = 30000;
    seq s = {0};
    start(&s, 0, A);
    uint64_t pc = A;
    for (unsigned i = 0; i < n; i++) {
        uint64_t t = A + ((uint64_t)(i & 1) << 20) + 4 * (i % 1000);
        br(&s, 0, pc, 2, TMC_IJUMP, 1, t);
        pc = t;
    }
    texit(&s, 0);
    outbuf out = {0};
    tm_pt_stats st;
    encode((tm_pt_opts){0}, &s, 1, &out, &st);
    cr_assert_gt(out.n[0], 2 * 65536);
    cr_assert_geq(out.calls, 3);
    cr_assert_eq(st.total_bytes, out.n[0]);
    pkts k;
    parse(out.p[0], out.n[0], &k);
    cr_assert_eq(count_type(&k, ppt_tip), n);
    cr_assert_eq(count_type(&k, ppt_psb), st.psb);
    cr_assert_gt(st.psb, 30);
    /* every TIP decodes to its jump's target */
    size_t j = 0;
    for (size_t i = 0; i < k.n; i++)
        if (k.v[i].p.type == ppt_tip || k.v[i].p.type == ppt_fup || k.v[i].p.type == ppt_tip_pge) {
            k.i = i;
            enum pt_packet_type ty = k.v[i].p.type;
            uint64_t want = ty == ppt_tip_pge ? A : ty == ppt_fup && k.v[i - 1].p.type != ppt_mode ? pc
                          : ty == ppt_fup ? s.r[j + 1].pc : s.r[j + 1].target;
            expect_ip(&k, ty, k.v[i].p.payload.ip.ipc, want, __LINE__);
            if (ty == ppt_tip)
                j++;
        } else if (k.v[i].p.type == ppt_psb) {
            k.last_ip = 0;
        }
    cr_assert_eq(j, n);
    pkts_free(&k);
    outbuf_free(&out);
    seq_free(&s);
}

/* ==== 2. IP compression ==== */

Test(pt, ip_compression)
{
    static const struct {
        uint64_t ip;
        enum pt_ip_compression ipc;
    } t[] = {
        {0x00007f123456abcdull, pt_ipc_update_16}, /* low 16 bits differ */
        {0x00007f12ab000010ull, pt_ipc_update_32}, /* low 32 */
        {0x0000555500001000ull, pt_ipc_sext_48},   /* canonical, above bit 32 */
        {0xffffffffff600000ull, pt_ipc_sext_48},   /* canonical, kernel half */
        {0xffffffffff600400ull, pt_ipc_update_16},
        {0x0001000000002000ull, pt_ipc_full},      /* not canonical, bits 48.. differ */
        {0x0001000200003000ull, pt_ipc_update_48}, /* not canonical, bits 48.. equal */
        {0x0001000200004000ull, pt_ipc_update_16},
        {0x0001000212345678ull, pt_ipc_update_32},
        {0x8000000000000000ull, pt_ipc_full},
        {0x00007f0000000000ull, pt_ipc_sext_48},
        {0x00007f0000000000ull, pt_ipc_update_16}, /* the same IP */
    };
    size_t n = sizeof t / sizeof t[0];
    seq s = {0};
    start(&s, 0, A);
    uint64_t pc = A;
    for (size_t i = 0; i < n; i++) {
        br(&s, 0, pc, 2, TMC_IJUMP, 1, t[i].ip);
        pc = t[i].ip;
    }
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, A);
    for (size_t i = 0; i < n; i++)
        TIP(&k, t[i].ipc, t[i].ip);
    FUP(&k, pt_ipc_update_16, pc);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.indirect, n);
    cr_assert_eq(st.instructions, n);
    pkts_free(&k);
    seq_free(&s);
}

/* A thread starting at a non-canonical address: full IP after PSB. */
Test(pt, start_not_canonical)
{
    const uint64_t X = 0x0001000000001000ull;
    seq s = {0};
    start(&s, 0, X);
    texit(&s, 0);
    pkts k;
    encode_parse((tm_pt_opts){0}, &s, &k, NULL);
    PSB(&k);
    PSBEND(&k);
    MODE(&k);
    PGE(&k, pt_ipc_full, X);
    FUP(&k, pt_ipc_update_16, X);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    seq_free(&s);
}

/* ==== 3. TNT ==== */

/* N conditional branches at A + 2i, taken as PAT(i); returns the TNT bits
 * (first branch most significant) and the next IP. */
static uint64_t conds(seq *s, size_t n, int (*pat)(size_t), uint64_t *next)
{
    uint64_t bits = 0, pc = A;
    for (size_t i = 0; i < n; i++) {
        int tk = pat(i);
        br(s, 0, pc, 2, TMC_COND, tk, pc + 0x20);
        bits = (bits << 1) | (uint64_t)tk;
        pc = tk ? pc + 0x20 : pc + 2;
    }
    *next = pc;
    return bits;
}

static int pat_a(size_t i)
{
    static const int p[] = {1, 0, 1, 1, 0, 0, 1};
    return p[i % 7];
}

static int pat_b(size_t i)
{
    return (i * 7 + i / 3) % 3 == 0;
}

Test(pt, tnt_short_six)
{
    seq s = {0};
    start(&s, 0, A);
    uint64_t next;
    uint64_t bits = conds(&s, 6, pat_a, &next);
    cr_assert_eq(bits, 0x2c); /* 101100: the first branch is the high bit */
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, A);
    TNT8(&k, 6, 0x2c);
    FUP(&k, pt_ipc_update_16, next);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.cond, 6);
    cr_assert_eq(st.packets[TM_PT_K_TNT8], 1);
    cr_assert_eq(st.bytes[TM_PT_K_TNT8], 1);
    pkts_free(&k);
    seq_free(&s);
}

Test(pt, tnt_seven_then_tip)
{
    seq s = {0};
    start(&s, 0, A);
    uint64_t next;
    conds(&s, 7, pat_a, &next);
    br(&s, 0, next, 2, TMC_IJUMP, 1, A + 0x1234);
    texit(&s, 0);
    pkts k;
    encode_parse((tm_pt_opts){0}, &s, &k, NULL);
    START_PACKETS(&k, A);
    TNT8(&k, 6, 0x2c);
    TNT8(&k, 1, 1); /* the seventh, pending, flushed before the TIP */
    TIP(&k, pt_ipc_update_16, A + 0x1234);
    FUP(&k, pt_ipc_update_16, A + 0x1234);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    seq_free(&s);
}

/* Thirteen not-taken branches: two full short TNTs and one bit. */
Test(pt, tnt_not_taken_bits)
{
    seq s = {0};
    start(&s, 0, A);
    for (int i = 0; i < 13; i++)
        br(&s, 0, A + 2 * (uint64_t)i, 2, TMC_COND, 0, A + 0x100);
    texit(&s, 0);
    pkts k;
    encode_parse((tm_pt_opts){0}, &s, &k, NULL);
    START_PACKETS(&k, A);
    TNT8(&k, 6, 0);
    TNT8(&k, 6, 0);
    TNT8(&k, 1, 0);
    FUP(&k, pt_ipc_update_16, A + 26);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    seq_free(&s);
}

Test(pt, tnt_long)
{
    tm_pt_opts o = {0};
    o.tnt_long = 1;
    seq s = {0};
    start(&s, 0, A);
    uint64_t next;
    uint64_t bits = conds(&s, 47, pat_b, &next);
    br(&s, 0, next, 2, TMC_COND, 1, next + 0x10);
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    START_PACKETS(&k, A);
    TNT64(&k, 47, bits);
    cr_assert_eq(k.v[k.i - 1].p.size, 8);
    TNT8(&k, 1, 1); /* the 48th: a TNT of one bit is a short TNT */
    FUP(&k, pt_ipc_update_16, next + 0x10);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.packets[TM_PT_K_TNT64], 1);
    cr_assert_eq(st.bytes[TM_PT_K_TNT64], 8);
    cr_assert_eq(st.packets[TM_PT_K_TNT8], 1);
    pkts_free(&k);
    seq_free(&s);

    /* 7 .. 46 bits pending before a TIP: one long TNT; 6: a short one */
    for (size_t n = 6; n <= 8; n++) {
        seq s2 = {0};
        start(&s2, 0, A);
        bits = conds(&s2, n, pat_b, &next);
        br(&s2, 0, next, 2, TMC_IJUMP, 1, A + 0x5000);
        texit(&s2, 0);
        encode_parse(o, &s2, &k, NULL);
        START_PACKETS(&k, A);
        if (n <= 6)
            TNT8(&k, (unsigned)n, bits);
        else
            TNT64(&k, (unsigned)n, bits);
        TIP(&k, pt_ipc_update_16, A + 0x5000);
        FUP(&k, pt_ipc_update_16, A + 0x5000);
        PGD(&k);
        END(&k);
        pkts_free(&k);
        seq_free(&s2);
    }
}

/* ==== 4. return compression ==== */

Test(pt, ret_compressed)
{
    const uint64_t F = A + 0x800;
    seq s = {0};
    start(&s, 0, A);
    br(&s, 0, A, 5, TMC_CALL, 1, F);
    run(&s, 0, F, 2, 4);
    br(&s, 0, F + 4, 1, TMC_RET, 1, A + 5);
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, A);
    TNT8(&k, 1, 1);
    FUP(&k, pt_ipc_update_16, A + 5);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.rets, 1);
    cr_assert_eq(st.rets_compressed, 1);
    cr_assert_eq(st.cond, 0);
    cr_assert_eq(st.instructions, 4);
    cr_assert_eq(st.cause_bits[TM_PT_C_RETCOMP], 8.0);
    cr_assert_eq(st.cause_bits[TM_PT_C_COND], 0.0);
    pkts_free(&k);
    seq_free(&s);
}

/* Conditional branches and compressed returns share a TNT packet, in
 * order. */
Test(pt, ret_compressed_mixed_with_cond)
{
    const uint64_t F = A + 0x800;
    seq s = {0};
    start(&s, 0, A);
    br(&s, 0, A, 2, TMC_COND, 0, A + 0x40);         /* 0 */
    br(&s, 0, A + 2, 5, TMC_CALL, 1, F);            /* push A+7 */
    br(&s, 0, F, 2, TMC_COND, 1, F + 0x10);         /* 1 */
    br(&s, 0, F + 0x10, 1, TMC_RET, 1, A + 7);      /* 1 */
    br(&s, 0, A + 7, 2, TMC_COND, 0, A + 0x40);     /* 0 */
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, A);
    TNT8(&k, 4, 0x6);
    FUP(&k, pt_ipc_update_16, A + 9);
    PGD(&k);
    END(&k);
    /* the TNT byte: 3/4 conditional branches, 1/4 the return */
    cr_assert_eq(st.cause_bits[TM_PT_C_RETCOMP], 2.0);
    cr_assert_eq(st.cause_bits[TM_PT_C_COND], 6.0);
    pkts_free(&k);
    seq_free(&s);
}

/* A return elsewhere (the stack broken: longjmp, a changed return address)
 * is a TIP and does not pop: a later return matching the call is still
 * compressed. */
Test(pt, ret_broken_stack_does_not_pop)
{
    const uint64_t F = A + 0x800, G = A + 0x900, H = A + 0xa00;
    seq s = {0};
    start(&s, 0, A);
    br(&s, 0, A, 5, TMC_CALL, 1, F);        /* push A+5 */
    br(&s, 0, F, 5, TMC_CALL, 1, G);        /* push F+5 */
    br(&s, 0, G, 1, TMC_RET, 1, H);         /* not F+5: TIP, no pop */
    br(&s, 0, H, 1, TMC_RET, 1, F + 5);     /* compressed */
    br(&s, 0, F + 5, 1, TMC_RET, 1, A + 5); /* compressed */
    br(&s, 0, A + 5, 1, TMC_RET, 1, A + 0x77); /* stack empty: TIP */
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, A);
    TIP(&k, pt_ipc_update_16, H);
    TNT8(&k, 2, 3);
    TIP(&k, pt_ipc_update_16, A + 0x77);
    FUP(&k, pt_ipc_update_16, A + 0x77);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.rets, 4);
    cr_assert_eq(st.rets_compressed, 2);
    cr_assert_eq(st.cause_bits[TM_PT_C_RET], 2 * 3 * 8.0);
    pkts_free(&k);
    seq_free(&s);
}

/* A direct call to the next instruction (position-independent code reading
 * its IP) is not pushed; an indirect call is, whatever its target. */
Test(pt, call_to_next_not_pushed)
{
    const uint64_t F = A + 0x800;
    seq s = {0};
    start(&s, 0, A);
    br(&s, 0, A, 5, TMC_CALL, 1, F);         /* push A+5 */
    br(&s, 0, F, 5, TMC_CALL, 1, F + 5);     /* to the next instruction: not pushed */
    br(&s, 0, F + 5, 1, TMC_RET, 1, A + 5);  /* compressed (A+5 on top) */
    br(&s, 0, A + 5, 2, TMC_ICALL, 1, A + 7); /* indirect, to the next instruction: pushed */
    br(&s, 0, A + 7, 1, TMC_RET, 1, A + 7);  /* compressed */
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, A);
    TNT8(&k, 1, 1);
    TIP(&k, pt_ipc_update_16, A + 7);
    TNT8(&k, 1, 1);
    FUP(&k, pt_ipc_update_16, A + 7);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.rets_compressed, 2);
    cr_assert_eq(st.indirect, 1);
    pkts_free(&k);
    seq_free(&s);
}

/* A call to the next instruction followed by a return to it: the call was
 * not pushed, so the return is a TIP. */
Test(pt, ret_after_call_to_next_is_tip)
{
    seq s = {0};
    start(&s, 0, A);
    br(&s, 0, A, 5, TMC_CALL, 1, A + 5);
    br(&s, 0, A + 5, 1, TMC_RET, 1, A + 5);
    texit(&s, 0);
    pkts k;
    encode_parse((tm_pt_opts){0}, &s, &k, NULL);
    START_PACKETS(&k, A);
    TIP(&k, pt_ipc_update_16, A + 5);
    FUP(&k, pt_ipc_update_16, A + 5);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    seq_free(&s);
}

/* 70 nested calls, 70 returns: the 64-entry circular stack keeps the
 * innermost 64 (compressed); the outer 6 are TIPs. */
Test(pt, deep_stack)
{
    const unsigned N = 70;
    const uint64_t P = 0x0000000000401000ull;
    seq s = {0};
    start(&s, 0, P);
    for (unsigned i = 0; i < N; i++)
        br(&s, 0, P + 0x10 * i, 5, TMC_CALL, 1, P + 0x10 * (i + 1));
    uint64_t pc = P + 0x10 * N;
    for (unsigned i = N; i-- > 0;) {
        br(&s, 0, pc, 1, TMC_RET, 1, P + 0x10 * i + 5);
        pc = P + 0x10 * i + 5;
    }
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, P);
    for (int i = 0; i < 10; i++)
        TNT8(&k, 6, 0x3f);
    TNT8(&k, 4, 0xf);
    for (unsigned i = N - 64; i-- > 0;)
        TIP(&k, pt_ipc_update_16, P + 0x10 * i + 5);
    FUP(&k, pt_ipc_update_16, P + 5);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.rets, N);
    cr_assert_eq(st.rets_compressed, 64);
    pkts_free(&k);
    seq_free(&s);

    /* with tnt_long: one long TNT of 47 and one of 17 */
    tm_pt_opts o = {0};
    o.tnt_long = 1;
    s = (seq){0};
    start(&s, 0, P);
    for (unsigned i = 0; i < N; i++)
        br(&s, 0, P + 0x10 * i, 5, TMC_CALL, 1, P + 0x10 * (i + 1));
    pc = P + 0x10 * N;
    for (unsigned i = N; i-- > 0;) {
        br(&s, 0, pc, 1, TMC_RET, 1, P + 0x10 * i + 5);
        pc = P + 0x10 * i + 5;
    }
    texit(&s, 0);
    encode_parse(o, &s, &k, &st);
    START_PACKETS(&k, P);
    TNT64(&k, 47, (1ull << 47) - 1);
    TNT64(&k, 17, (1ull << 17) - 1);
    for (unsigned i = N - 64; i-- > 0;)
        TIP(&k, pt_ipc_update_16, P + 0x10 * i + 5);
    FUP(&k, pt_ipc_update_16, P + 5);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    seq_free(&s);
}

/* Exactly 64 calls deep: every return compressed; 65: the outermost is a
 * TIP. */
Test(pt, stack_capacity_is_64)
{
    const uint64_t P = 0x0000000000401000ull;
    for (unsigned N = 64; N <= 65; N++) {
        seq s = {0};
        start(&s, 0, P);
        for (unsigned i = 0; i < N; i++)
            br(&s, 0, P + 0x10 * i, 5, TMC_CALL, 1, P + 0x10 * (i + 1));
        uint64_t pc = P + 0x10 * N;
        for (unsigned i = N; i-- > 0;) {
            br(&s, 0, pc, 1, TMC_RET, 1, P + 0x10 * i + 5);
            pc = P + 0x10 * i + 5;
        }
        texit(&s, 0);
        pkts k;
        tm_pt_stats st;
        encode_parse((tm_pt_opts){0}, &s, &k, &st);
        cr_assert_eq(st.rets_compressed, 64, "N = %u", N);
        cr_assert_eq(count_type(&k, ppt_tip), N - 64, "N = %u", N);
        pkts_free(&k);
        seq_free(&s);
    }
}

Test(pt, no_retcomp)
{
    tm_pt_opts o = {0};
    o.no_retcomp = 1;
    const uint64_t F = A + 0x800;
    seq s = {0};
    start(&s, 0, A);
    br(&s, 0, A, 5, TMC_CALL, 1, F);
    br(&s, 0, F, 5, TMC_CALL, 1, F + 0x100);
    br(&s, 0, F + 0x100, 1, TMC_RET, 1, F + 5);
    br(&s, 0, F + 5, 1, TMC_RET, 1, A + 5);
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    START_PACKETS(&k, A);
    TIP(&k, pt_ipc_update_16, F + 5);
    TIP(&k, pt_ipc_update_16, A + 5);
    FUP(&k, pt_ipc_update_16, A + 5);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.rets, 2);
    cr_assert_eq(st.rets_compressed, 0);
    pkts_free(&k);
    seq_free(&s);
}

/* ==== 5. PSB period ==== */

/* START at A, a call to F, (COND: a conditional branch, its 1-byte TNT
 * flushed by the first TIP), N indirect jumps in F (3-byte TIPs), then a
 * return to A+5. */
static void psb_seq(seq *s, unsigned n, int cond, uint64_t *ret_pc)
{
    const uint64_t F = A + 0x1000;
    start(s, 0, A);
    br(s, 0, A, 5, TMC_CALL, 1, F);
    uint64_t pc = F;
    if (cond) {
        br(s, 0, pc, 2, TMC_COND, 0, pc + 0x40);
        pc += 2;
    }
    for (unsigned i = 0; i < n; i++) {
        br(s, 0, pc, 2, TMC_IJUMP, 1, pc + 4);
        pc += 4;
    }
    br(s, 0, pc, 1, TMC_RET, 1, A + 5);
    *ret_pc = pc;
    texit(s, 0);
}

Test(pt, psb_period)
{
    /* After PSB+ (16 + 2) the thread's MODE.Exec (2) and TIP.PGE (7) count:
     * 9 + 3 * 82 = 255 < 256 at the 83rd jump, 258 at the return. */
    const unsigned n = 83;
    tm_pt_opts o = {0};
    o.psb_period = 256;
    seq s = {0};
    uint64_t rpc;
    psb_seq(&s, n, 0, &rpc);
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    START_PACKETS(&k, A);
    uint64_t pc = A + 0x1000;
    for (unsigned i = 0; i < n; i++) {
        pc += 4;
        TIP(&k, pt_ipc_update_16, pc);
    }
    size_t psb2 = k.i;
    PSB(&k);
    MODE(&k);
    FUP(&k, pt_ipc_sext_48, rpc); /* the next instruction: the return */
    PSBEND(&k);
    TIP(&k, pt_ipc_update_16, A + 5); /* the stack was cleared at PSB */
    FUP(&k, pt_ipc_update_16, A + 5);
    PGD(&k);
    END(&k);
    uint64_t first_end = k.v[1].off + k.v[1].p.size; /* after the first PSBEND */
    cr_assert_eq(first_end, 18);
    cr_assert_geq(k.v[psb2].off - first_end, 256);
    cr_assert_eq(k.v[psb2].off, 18 + 9 + 3 * n);
    cr_assert_eq(st.psb, 2);
    cr_assert_eq(st.rets_compressed, 0);
    cr_assert_gt(st.packets[TM_PT_K_PSB], 1);
    cr_assert_gt(st.cause_bits[TM_PT_C_SYNC], 0.0);
    pkts_free(&k);
    seq_free(&s);

    /* one jump fewer (255 bytes): no second PSB, the return compressed */
    s = (seq){0};
    psb_seq(&s, n - 1, 0, &rpc);
    encode_parse(o, &s, &k, &st);
    cr_assert_eq(count_type(&k, ppt_psb), 1);
    cr_assert_eq(st.rets_compressed, 1);
    cr_assert_eq(count_type(&k, ppt_tnt_8), 1);
    pkts_free(&k);
    seq_free(&s);

    /* the default period (4096): no second PSB, the return compressed */
    s = (seq){0};
    psb_seq(&s, n, 0, &rpc);
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    cr_assert_eq(count_type(&k, ppt_psb), 1);
    cr_assert_eq(st.rets_compressed, 1);
    pkts_free(&k);
    seq_free(&s);

    /* exactly 256 bytes (9 + 1 + 3 * 82) after PSBEND: PSB+ */
    s = (seq){0};
    psb_seq(&s, 82, 1, &rpc);
    encode_parse(o, &s, &k, &st);
    cr_assert_eq(count_type(&k, ppt_psb), 2);
    for (size_t i = 1; i < k.n; i++)
        if (k.v[i].p.type == ppt_psb)
            cr_assert_eq(k.v[i].off, 18 + 256);
    cr_assert_eq(st.rets_compressed, 0);
    pkts_free(&k);
    seq_free(&s);
}

/* Many PSB+ over a long stream: each one >= period bytes after the
 * previous PSBEND, and less than that plus one record's packets. */
Test(pt, psb_period_repeats)
{
    tm_pt_opts o = {0};
    o.psb_period = 300;
    seq s = {0};
    start(&s, 0, A);
    uint64_t pc = A;
    for (unsigned i = 0; i < 2000; i++) {
        if (i % 3 == 0) {
            br(&s, 0, pc, 2, TMC_IJUMP, 1, pc + 0x10000 * (i % 5) + 8);
            pc = pc + 0x10000 * (i % 5) + 8;
        } else {
            br(&s, 0, pc, 2, TMC_COND, (int)(i & 1), pc + 0x20);
            pc = (i & 1) ? pc + 0x20 : pc + 2;
        }
    }
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    size_t npsb = 0;
    uint64_t last_end = 0;
    for (size_t i = 0; i < k.n; i++) {
        if (k.v[i].p.type == ppt_psb) {
            if (npsb) {
                uint64_t gap = k.v[i].off - last_end;
                cr_assert_geq(gap, 300, "PSB %zu: %" PRIu64 " bytes after the previous PSBEND", npsb, gap);
                cr_assert_lt(gap, 300 + 10, "PSB %zu: %" PRIu64 " bytes after the previous PSBEND", npsb, gap);
                /* PSB+: MODE.Exec, FUP (sext_48), PSBEND */
                cr_assert_eq(k.v[i + 1].p.type, ppt_mode);
                cr_assert_eq(k.v[i + 2].p.type, ppt_fup);
                cr_assert_eq(k.v[i + 2].p.payload.ip.ipc, pt_ipc_sext_48);
                cr_assert_eq(k.v[i + 3].p.type, ppt_psbend);
            }
            npsb++;
        }
        if (k.v[i].p.type == ppt_psbend)
            last_end = k.v[i].off + k.v[i].p.size;
    }
    cr_assert_geq(npsb, 5);
    cr_assert_eq(npsb, st.psb);
    pkts_free(&k);
    seq_free(&s);
}

/* ==== 6. exceptions ==== */

Test(pt, exception)
{
    const uint64_t P = A + 0x44, H = A + 0x20000;
    seq s = {0};
    start(&s, 0, A);
    br(&s, 0, A, 2, TMC_COND, 1, A + 0x40);
    br(&s, 0, A + 0x40, 2, TMC_COND, 0, A + 0x80);
    exc(&s, 0, P, H);
    run(&s, 0, H, 2, 3);
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, A);
    TNT8(&k, 2, 2); /* pending TNT flushed first */
    FUP(&k, pt_ipc_update_16, P);
    PGD(&k);
    MODE(&k);
    PGE(&k, pt_ipc_update_32, H);
    FUP(&k, pt_ipc_update_16, H + 3);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.exceptions, 1);
    cr_assert_gt(st.cause_bits[TM_PT_C_EXC], 0.0);
    pkts_free(&k);
    seq_free(&s);
}

/* ==== 7. far transfers (system calls) ==== */

static const uint64_t C = 0x0000555555554000ull;

/* 90 90 0F 05 90 | 0F 05 0F 05 90 | 06 (invalid in 64-bit mode) */
static const uint8_t far_code[] = {0x90, 0x90, 0x0f, 0x05, 0x90, 0x0f, 0x05, 0x0f, 0x05, 0x90, 0x06};

/* nops at C + 0x3000 (a signal handler) */
static const uint8_t nops[16] = {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
                                 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90};

static codemap far_map(void)
{
    codemap m = {{{C, far_code, sizeof far_code}, {C + 0x3000, nops, sizeof nops}}, 2};
    return m;
}

Test(pt, syscall_in_run)
{
    codemap m = far_map();
    tm_pt_opts o = {0};
    o.code = code_at;
    o.code_arg = &m;
    seq s = {0};
    start(&s, 0, C);
    run(&s, 0, C, 4, 5); /* nop nop syscall nop */
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    START_PACKETS(&k, C);
    PGD(&k);
    MODE(&k);
    PGE(&k, pt_ipc_update_16, C + 4);
    FUP(&k, pt_ipc_update_16, C + 5);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.far, 1);
    cr_assert_eq(st.instructions, 4);
    cr_assert_gt(st.cause_bits[TM_PT_C_FAR], 0.0);
    pkts_free(&k);
    seq_free(&s);

    /* the same run again (decoded once): the same packets */
    s = (seq){0};
    start(&s, 0, C);
    run(&s, 0, C, 4, 5);
    br(&s, 0, C + 5, 2, TMC_JUMP, 1, C);
    run(&s, 0, C, 4, 5);
    texit(&s, 0);
    encode_parse(o, &s, &k, &st);
    START_PACKETS(&k, C);
    for (int i = 0; i < 2; i++) {
        PGD(&k);
        MODE(&k);
        PGE(&k, pt_ipc_update_16, C + 4);
    }
    FUP(&k, pt_ipc_update_16, C + 5);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.far, 2);
    pkts_free(&k);
    seq_free(&s);
}

/* Without opts.code, nothing is looked for in runs. */
Test(pt, syscall_without_code)
{
    seq s = {0};
    start(&s, 0, C);
    run(&s, 0, C, 4, 5);
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse((tm_pt_opts){0}, &s, &k, &st);
    START_PACKETS(&k, C);
    FUP(&k, pt_ipc_update_16, C + 5);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.far, 0);
    pkts_free(&k);
    seq_free(&s);
}

/* A run ending with the system call leaves tracing off: the next record
 * turns it on at its pc; an exception while off is MODE.Exec + TIP.PGE
 * only; EXIT while off writes nothing more. */
Test(pt, syscall_at_end_of_run)
{
    codemap m = far_map();
    tm_pt_opts o = {0};
    o.code = code_at;
    o.code_arg = &m;
    const uint64_t H = C + 0x3000;
    seq s = {0};
    start(&s, 0, C);
    run(&s, 0, C, 3, 4);      /* nop nop syscall */
    run(&s, 0, C + 4, 1, 1);  /* nop */
    run(&s, 0, C + 5, 1, 2);  /* syscall */
    exc(&s, 0, C + 7, H);     /* a signal while in the kernel */
    run(&s, 0, H, 1, 1);
    br(&s, 0, H + 1, 5, TMC_JUMP, 1, C);
    run(&s, 0, C, 3, 4);      /* nop nop syscall */
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    START_PACKETS(&k, C);
    PGD(&k);
    MODE(&k);
    PGE(&k, pt_ipc_update_16, C + 4);
    PGD(&k);
    MODE(&k);
    PGE(&k, pt_ipc_update_16, H);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.far, 3);
    cr_assert_eq(st.exceptions, 1);
    pkts_free(&k);
    seq_free(&s);
}

/* Two system calls back to back: TIP.PGD, MODE.Exec + TIP.PGE after each. */
Test(pt, two_syscalls_in_run)
{
    codemap m = far_map();
    tm_pt_opts o = {0};
    o.code = code_at;
    o.code_arg = &m;
    seq s = {0};
    start(&s, 0, C + 5);
    run(&s, 0, C + 5, 3, 5); /* syscall syscall nop */
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    START_PACKETS(&k, C + 5);
    PGD(&k);
    MODE(&k);
    PGE(&k, pt_ipc_update_16, C + 7);
    PGD(&k);
    MODE(&k);
    PGE(&k, pt_ipc_update_16, C + 9);
    FUP(&k, pt_ipc_update_16, C + 10);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.far, 2);
    pkts_free(&k);
    seq_free(&s);
}

Test(pt, run_code_errors)
{
    codemap m = far_map();
    tm_pt_opts o = {0};
    o.code = code_at;
    o.code_arg = &m;
    outbuf out = {0};
    char err[256];
    size_t at;

    /* byte count disagrees with the code */
    seq s = {0};
    start(&s, 0, C);
    run(&s, 0, C, 4, 6);
    texit(&s, 0);
    cr_assert_eq(encode_fail(o, &s, 1, &out, err, sizeof err, &at), TM_ERR_MISMATCH, "%s", err);
    cr_assert_eq(at, 1);
    cr_assert_not_null(strstr(err, "thread 0"), "%s", err);
    cr_assert_not_null(strstr(err, "0x555555554000"), "%s", err);
    seq_free(&s);
    outbuf_free(&out);

    /* the same run again with another byte count: checked on a cache hit too */
    s = (seq){0};
    start(&s, 0, C);
    run(&s, 0, C, 4, 5);
    run(&s, 0, C, 4, 9);
    cr_assert_eq(encode_fail(o, &s, 1, &out, err, sizeof err, &at), TM_ERR_MISMATCH, "%s", err);
    cr_assert_eq(at, 2);
    cr_assert_not_null(strstr(err, "9 in the commit stream"), "%s", err);
    seq_free(&s);
    outbuf_free(&out);

    /* no code at the address */
    s = (seq){0};
    start(&s, 0, C);
    run(&s, 0, C + 0x1000, 1, 1);
    cr_assert_eq(encode_fail(o, &s, 1, &out, err, sizeof err, &at), TM_ERR_FORMAT, "%s", err);
    cr_assert_eq(at, 1);
    cr_assert_not_null(strstr(err, "no code"), "%s", err);
    seq_free(&s);
    outbuf_free(&out);

    /* the run goes past the end of the code */
    s = (seq){0};
    start(&s, 0, C);
    run(&s, 0, C + 0x3000 + 15, 2, 2); /* nop, then nothing */
    cr_assert_neq(encode_fail(o, &s, 1, &out, err, sizeof err, &at), TM_OK);
    cr_assert_eq(at, 1);
    seq_free(&s);
    outbuf_free(&out);

    /* an instruction that does not decode */
    s = (seq){0};
    start(&s, 0, C);
    run(&s, 0, C + 10, 1, 1);
    cr_assert_eq(encode_fail(o, &s, 1, &out, err, sizeof err, &at), TM_ERR_FORMAT, "%s", err);
    cr_assert_eq(at, 1);
    cr_assert_not_null(strstr(err, "cannot decode"), "%s", err);
    seq_free(&s);
    outbuf_free(&out);
}

/* ==== 8. timing ==== */

Test(pt, timing_tsc_cyc)
{
    tm_pt_opts o = {0};
    o.timing = TM_PT_TSC | TM_PT_CYC;
    seq s = {0};
    s.cycle = 100;
    start(&s, 0, A);                                   /* 100 */
    s.cycle = 103;
    br(&s, 0, A, 2, TMC_COND, 1, A + 0x10);            /* 103: CYC 3, a TNT starts */
    br(&s, 0, A + 0x10, 2, TMC_COND, 0, A + 0x20);     /* 104 */
    s.cycle = 110;
    br(&s, 0, A + 0x12, 2, TMC_COND, 1, A + 0x30);     /* 110 */
    s.cycle = 120;
    br(&s, 0, A + 0x30, 2, TMC_IJUMP, 1, A + 0x100);   /* 120: TNT, CYC 17, TIP */
    br(&s, 0, A + 0x100, 2, TMC_IJUMP, 1, A + 0x200);  /* 121: CYC 1, TIP */
    s.cycle = 130;
    uint64_t pc = A + 0x200;
    for (int i = 0; i < 7; i++, pc += 2)               /* 130 .. 136 */
        br(&s, 0, pc, 2, TMC_COND, 0, pc + 0x40);
    s.cycle = 200;
    texit(&s, 0);                                      /* 200 */
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    PSB(&k);
    const struct pt_packet *tsc = next_of(&k, ppt_tsc, __LINE__);
    cr_assert_eq(tsc->payload.tsc.tsc, 100);
    PSBEND(&k);
    MODE(&k);
    PGE(&k, pt_ipc_sext_48, A);
    CYC(&k, 3);
    TNT8(&k, 3, 5);
    CYC(&k, 17);
    TIP(&k, pt_ipc_update_16, A + 0x100);
    CYC(&k, 1);
    TIP(&k, pt_ipc_update_16, A + 0x200);
    CYC(&k, 9);
    TNT8(&k, 6, 0);
    CYC(&k, 6);
    TNT8(&k, 1, 0);
    CYC(&k, 64);
    FUP(&k, pt_ipc_update_16, pc);
    PGD(&k);
    END(&k);
    cr_assert_eq(st.packets[TM_PT_K_TSC], 1);
    cr_assert_eq(st.packets[TM_PT_K_CYC], 6);
    cr_assert_eq(st.cycles, 201);
    pkts_free(&k);
    seq_free(&s);
}

/* The same cycle: no CYC; TSC in every PSB+ with that record's cycle. */
Test(pt, timing_tsc_in_periodic_psb)
{
    tm_pt_opts o = {0};
    o.timing = TM_PT_TSC | TM_PT_CYC;
    o.psb_period = 256;
    seq s = {0};
    s.cycle = 1000;
    start(&s, 0, A);
    uint64_t pc = A;
    for (unsigned i = 0; i < 200; i++) {
        s.cycle = 1000 + 10 * (i / 2); /* two records a cycle */
        br(&s, 0, pc, 2, TMC_IJUMP, 1, pc + 8);
        pc += 8;
    }
    s.cycle = 1000 + 10 * 99; /* the last jump's cycle: no CYC before the end */
    texit(&s, 0);
    pkts k;
    tm_pt_stats st;
    encode_parse(o, &s, &k, &st);
    cr_assert_geq(st.psb, 2);
    size_t ntsc = 0, ncyc = 0;
    uint64_t cyc_sum = 0;
    for (size_t i = 0; i < k.n; i++) {
        const struct pt_packet *p = &k.v[i].p;
        if (p->type == ppt_tsc) {
            cr_assert_eq(k.v[i - 1].p.type, ppt_psb);
            ntsc++;
            /* the FUP of this PSB+ is the next record's pc: its cycle */
            cr_assert_eq(k.v[i + 1].p.type, ntsc == 1 ? ppt_psbend : ppt_mode);
            if (ntsc > 1) {
                uint64_t ip = k.v[i + 2].p.payload.ip.ip;
                uint64_t j = (ip - A) / 8; /* the jump at A + 8j */
                cr_assert_eq(p->payload.tsc.tsc, 1000 + 10 * (j / 2), "TSC at %zu", i);
            }
        }
        if (p->type == ppt_cyc) {
            ncyc++;
            cr_assert_neq(p->payload.cyc.value, 0);
            cyc_sum += p->payload.cyc.value;
            cr_assert_eq(k.v[i + 1].p.type, ppt_tip, "packet %zu: a CYC not before a TIP", i);
        }
    }
    cr_assert_eq(ntsc, st.psb);
    cr_assert_eq(ncyc, 99); /* one per new cycle: 99 steps of 10 */
    cr_assert_eq(cyc_sum, 990);
    pkts_free(&k);
    seq_free(&s);
}

Test(pt, timing_mtc)
{
    tm_pt_opts o = {0};
    o.timing = TM_PT_MTC;
    o.mtc_shift = 4;
    seq s = {0};
    s.cycle = 100; /* period 6 */
    start(&s, 0, A);
    s.cycle = 103;
    br(&s, 0, A, 2, TMC_IJUMP, 1, A + 0x10);   /* period 6: no MTC */
    s.cycle = 120;
    br(&s, 0, A + 0x10, 2, TMC_COND, 1, A + 0x20); /* period 7: MTC before the TNT */
    br(&s, 0, A + 0x20, 2, TMC_COND, 1, A + 0x30);
    s.cycle = 0x1000 + 5; /* period 0x100: ctc 0 */
    br(&s, 0, A + 0x30, 2, TMC_IJUMP, 1, A + 0x40);
    texit(&s, 0);
    pkts k;
    encode_parse(o, &s, &k, NULL);
    PSB(&k);
    PSBEND(&k);
    const struct pt_packet *p = next_of(&k, ppt_mtc, __LINE__);
    cr_assert_eq(p->payload.mtc.ctc, 6);
    MODE(&k);
    PGE(&k, pt_ipc_sext_48, A);
    TIP(&k, pt_ipc_update_16, A + 0x10);
    p = next_of(&k, ppt_mtc, __LINE__);
    cr_assert_eq(p->payload.mtc.ctc, 7);
    TNT8(&k, 2, 3);
    p = next_of(&k, ppt_mtc, __LINE__);
    cr_assert_eq(p->payload.mtc.ctc, 0);
    TIP(&k, pt_ipc_update_16, A + 0x40);
    FUP(&k, pt_ipc_update_16, A + 0x40);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    seq_free(&s);
}

/* ==== 9. options, errors, statistics ==== */

static int new_rc(tm_pt_opts o, uint32_t threads, char *err, size_t errlen)
{
    outbuf out = {0};
    if (!o.write) {
        o.write = collect;
        o.write_arg = &out;
    }
    static char sentinel;
    tm_pt_encoder *e = (tm_pt_encoder *)(void *)&sentinel; /* set to NULL on failure */
    err[0] = 0;
    int rc = tm_pt_encoder_new(&o, threads, &e, err, errlen);
    if (rc)
        cr_assert_null(e);
    else
        cr_assert_not_null(e);
    tm_pt_encoder_free(rc ? NULL : e);
    return rc;
}

static int null_write(void *arg, uint32_t tid, const uint8_t *p, size_t n)
{
    (void)arg, (void)tid, (void)p, (void)n;
    return 0;
}

Test(pt, option_errors)
{
    char err[256];
    tm_pt_opts o = {0};
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_OK);

    o.psb_period = 100;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_ERR_ARG);
    cr_assert_not_null(strstr(err, "PSB period 100"), "%s", err);
    o.psb_period = 255;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_ERR_ARG);
    o.psb_period = 256;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_OK, "%s", err);
    o.psb_period = 1u << 30;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_OK, "%s", err);
    o.psb_period = (1u << 30) + 1;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_ERR_ARG);
    o.psb_period = 0;

    o.mtc_shift = 30;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_ERR_ARG);
    cr_assert_not_null(strstr(err, "MTC"), "%s", err);
    o.mtc_shift = 25;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_ERR_ARG);
    o.mtc_shift = 24;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_OK, "%s", err);
    o.mtc_shift = 0;

    o.timing = 8;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_ERR_ARG);
    cr_assert_not_null(strstr(err, "timing"), "%s", err);
    o.timing = TM_PT_TSC | TM_PT_MTC | TM_PT_CYC;
    cr_assert_eq(new_rc(o, 1, err, sizeof err), TM_OK, "%s", err);
    o.timing = 0;

    cr_assert_eq(new_rc(o, 0, err, sizeof err), TM_ERR_ARG);
    cr_assert_eq(new_rc(o, TMC_MAX_THREADS + 1, err, sizeof err), TM_ERR_ARG);
    o.write = null_write;
    cr_assert_eq(new_rc(o, TMC_MAX_THREADS, err, sizeof err), TM_OK, "%s", err);
    /* no write callback */
    tm_pt_encoder *e = NULL;
    o.write = NULL;
    cr_assert_eq(tm_pt_encoder_new(&o, 1, &e, err, sizeof err), TM_ERR_ARG);
    cr_assert_null(e);
    cr_assert_neq(err[0], 0);
}

Test(pt, record_errors)
{
    outbuf out = {0};
    char err[256];
    size_t at;
    /* a thread running before its START */
    seq s = {0};
    br(&s, 0, A, 2, TMC_COND, 1, A + 8);
    cr_assert_eq(encode_fail((tm_pt_opts){0}, &s, 1, &out, err, sizeof err, &at), TM_ERR_FORMAT);
    cr_assert_eq(at, 0);
    cr_assert_not_null(strstr(err, "thread 0"), "%s", err);
    seq_free(&s);
    /* a thread id out of range */
    s = (seq){0};
    start(&s, 0, A);
    start(&s, 2, A);
    cr_assert_eq(encode_fail((tm_pt_opts){0}, &s, 2, &out, err, sizeof err, &at), TM_ERR_FORMAT);
    cr_assert_eq(at, 1);
    cr_assert_not_null(strstr(err, "thread 2"), "%s", err);
    seq_free(&s);
    outbuf_free(&out);
    /* the output refuses: TM_ERR_IO, when the thread's bytes are written */
    s = (seq){0};
    start(&s, 0, A);
    texit(&s, 0);
    out.fail = 1;
    cr_assert_eq(encode_fail((tm_pt_opts){0}, &s, 1, &out, err, sizeof err, &at), TM_ERR_IO);
    cr_assert_eq(at, 1);
    seq_free(&s);
    outbuf_free(&out);
    /* MEM and MODULE records are ignored */
    s = (seq){0};
    start(&s, 0, A);
    add(&s, TMC_MEM, 0, 0)->size = 8;
    add(&s, TMC_MODULE, 0, 0);
    texit(&s, 0);
    pkts k;
    encode_parse((tm_pt_opts){0}, &s, &k, NULL);
    START_PACKETS(&k, A);
    FUP(&k, pt_ipc_update_16, A);
    PGD(&k);
    END(&k);
    pkts_free(&k);
    seq_free(&s);
}

static unsigned kind_of(enum pt_packet_type t)
{
    switch (t) {
    case ppt_tnt_8: return TM_PT_K_TNT8;
    case ppt_tnt_64: return TM_PT_K_TNT64;
    case ppt_tip: return TM_PT_K_TIP;
    case ppt_tip_pge: return TM_PT_K_TIP_PGE;
    case ppt_tip_pgd: return TM_PT_K_TIP_PGD;
    case ppt_fup: return TM_PT_K_FUP;
    case ppt_psb: return TM_PT_K_PSB;
    case ppt_psbend: return TM_PT_K_PSBEND;
    case ppt_mode: return TM_PT_K_MODE_EXEC;
    case ppt_tsc: return TM_PT_K_TSC;
    case ppt_mtc: return TM_PT_K_MTC;
    case ppt_cyc: return TM_PT_K_CYC;
    default: return TM_PT_NKINDS;
    }
}

Test(pt, stats)
{
    codemap m = far_map();
    tm_pt_opts o = {0};
    o.code = code_at;
    o.code_arg = &m;
    o.tnt_long = 1;
    o.timing = TM_PT_TSC | TM_PT_MTC | TM_PT_CYC;
    o.mtc_shift = 3;
    const uint64_t F = C + 0x800;
    seq s = {0};
    uint64_t insns = 0, conds_n = 0;
    s.cycle = 7;
    start(&s, 0, C);
    for (unsigned it = 0; it < 12; it++) {
        s.cycle += it % 3;
        run(&s, 0, C, 4, 5); /* with a syscall */
        insns += 4;
        br(&s, 0, C + 5, 5, TMC_CALL, 1, F);
        br(&s, 0, F, 2, TMC_ICALL, 1, F + 0x40);
        for (unsigned j = 0; j < 50; j++)
            br(&s, 0, F + 0x40, 2, TMC_COND, (int)(j % 3 == 0), F + 0x40);
        conds_n += 50;
        br(&s, 0, F + 0x42, 1, TMC_RET, 1, F + 2);     /* compressed */
        br(&s, 0, F + 2, 1, TMC_RET, 1, C + 10);       /* compressed */
        br(&s, 0, C + 10, 1, TMC_RET, 1, C + 0x9000);  /* TIP */
        br(&s, 0, C + 0x9000, 2, TMC_IJUMP, 1, C);
        br(&s, 0, C, 2, TMC_JUMP, 1, C);
        exc(&s, 0, C, C + 0x5000);
        br(&s, 0, C + 0x5000, 2, TMC_IJUMP, 1, C);
        insns += 58;
    }
    texit(&s, 0);
    start(&s, 1, C);
    run(&s, 1, C, 4, 5);
    insns += 4;
    texit(&s, 1);
    outbuf out = {0};
    tm_pt_stats st;
    encode(o, &s, 2, &out, &st);
    cr_assert_eq(st.instructions, insns);
    cr_assert_eq(st.cond, conds_n);
    cr_assert_eq(st.rets, 36);
    cr_assert_eq(st.rets_compressed, 24);
    cr_assert_eq(st.indirect, 36);
    cr_assert_eq(st.far, 13);
    cr_assert_eq(st.exceptions, 12);
    cr_assert_eq(st.threads, 2);
    cr_assert_eq(st.cycles, s.r[s.n - 1].cycle + 1);
    cr_assert_eq(st.total_bytes, out.n[0] + out.n[1]);

    uint64_t pk_n[TM_PT_NKINDS + 1] = {0}, pk_b[TM_PT_NKINDS + 1] = {0};
    size_t npsb = 0;
    for (uint32_t t = 0; t < 2; t++) {
        pkts k;
        parse(out.p[t], out.n[t], &k);
        for (size_t i = 0; i < k.n; i++) {
            unsigned kd = kind_of(k.v[i].p.type);
            pk_n[kd]++;
            pk_b[kd] += k.v[i].p.size;
            npsb += k.v[i].p.type == ppt_psb;
        }
        pkts_free(&k);
    }
    cr_assert_eq(pk_n[TM_PT_NKINDS], 0, "packets of other kinds");
    uint64_t sum = 0;
    double bits = 0;
    for (unsigned kd = 0; kd < TM_PT_NKINDS; kd++) {
        cr_assert_eq(st.packets[kd], pk_n[kd], "%s: %" PRIu64 " packets, parsed %" PRIu64, tm_pt_kind_name(kd),
                     st.packets[kd], pk_n[kd]);
        cr_assert_eq(st.bytes[kd], pk_b[kd], "%s", tm_pt_kind_name(kd));
        cr_assert_gt(st.packets[kd], 0, "no %s packet in the test", tm_pt_kind_name(kd));
        sum += st.bytes[kd];
    }
    for (unsigned c = 0; c < TM_PT_NCAUSES; c++) {
        cr_assert_geq(st.cause_bits[c], 0.0);
        bits += st.cause_bits[c];
    }
    cr_assert_eq(sum, st.total_bytes);
    cr_assert_float_eq(bits, 8.0 * (double)st.total_bytes, 1e-6);
    cr_assert_eq(npsb, st.psb);
    cr_assert_eq(st.packets[TM_PT_K_PSB], st.psb);
    cr_assert_eq(st.psb, 2);
    cr_assert_gt(st.cause_bits[TM_PT_C_COND], 0.0);
    cr_assert_gt(st.cause_bits[TM_PT_C_RETCOMP], 0.0);
    cr_assert_gt(st.cause_bits[TM_PT_C_TIMING], 0.0);

    cr_assert_str_eq(tm_pt_kind_name(TM_PT_K_TNT8), "tnt8");
    cr_assert_str_eq(tm_pt_kind_name(TM_PT_K_CYC), "cyc");
    cr_assert_str_eq(tm_pt_kind_name(TM_PT_NKINDS), "?");
    cr_assert_str_eq(tm_pt_cause_name(TM_PT_C_COND), "cond");
    cr_assert_str_eq(tm_pt_cause_name(TM_PT_NCAUSES), "?");
    outbuf_free(&out);
    seq_free(&s);
}

/* ==== round trips through libipt's instruction decoder ==== */

typedef struct evcount {
    unsigned enabled, disabled, async_disabled, exec_mode, other;
} evcount;

/* Encodes S (thread 0) over the code M and decodes it with pt_insn_next:
 * it must yield exactly s->ips. */
static void roundtrip(tm_pt_opts o, const seq *s, codemap *m, evcount *ev, tm_pt_stats *st)
{
    o.code = code_at;
    o.code_arg = m;
    outbuf out = {0};
    encode(o, s, 1, &out, st);
    struct pt_image *img = pt_image_alloc("tm-unit");
    cr_assert_not_null(img);
    cr_assert_geq(pt_image_set_callback(img, read_mem, m), 0);
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = out.p[0];
    cfg.end = out.p[0] + out.n[0];
    cfg.mtc_freq = 0;
    cfg.nom_freq = 1;
    cfg.cpuid_0x15_eax = 1;
    cfg.cpuid_0x15_ebx = 1;
    struct pt_insn_decoder *d = pt_insn_alloc_decoder(&cfg);
    cr_assert_not_null(d);
    cr_assert_geq(pt_insn_set_image(d, img), 0);
    int status = pt_insn_sync_forward(d);
    cr_assert_geq(status, 0, "sync: %s", pt_errstr(pt_errcode(status)));
    memset(ev, 0, sizeof *ev);
    size_t n = 0;
    for (;;) {
        while (status & pts_event_pending) {
            struct pt_event e;
            status = pt_insn_event(d, &e, sizeof e);
            cr_assert_geq(status, 0, "event after instruction %zu: %s", n, pt_errstr(pt_errcode(status)));
            switch (e.type) {
            case ptev_enabled: ev->enabled++; break;
            case ptev_disabled: ev->disabled++; break;
            case ptev_async_disabled: ev->async_disabled++; break;
            case ptev_exec_mode: ev->exec_mode++; break;
            default: ev->other++; break;
            }
        }
        struct pt_insn in;
        status = pt_insn_next(d, &in, sizeof in);
        if (status == -pte_eos)
            break;
        uint64_t off = 0;
        pt_insn_get_offset(d, &off);
        cr_assert_geq(status, 0, "instruction %zu (expected 0x%" PRIx64 "), trace offset %" PRIu64 ": %s", n,
                      n < s->nips ? s->ips[n] : 0, off, pt_errstr(pt_errcode(status)));
        cr_assert_lt(n, s->nips, "more instructions than the records describe: 0x%" PRIx64, in.ip);
        cr_assert_eq(in.ip, s->ips[n], "instruction %zu: 0x%" PRIx64 ", expected 0x%" PRIx64, n, in.ip, s->ips[n]);
        cr_assert_eq(in.mode, ptem_64bit);
        n++;
    }
    cr_assert_eq(n, s->nips, "%zu instructions decoded of %zu", n, s->nips);
    pt_insn_free_decoder(d);
    pt_image_free(img);
    outbuf_free(&out);
}

/* A loop calling a function, an indirect jump, a system call in a run, a
 * signal, an indirect call and its return.
 *
 *   400000 B9 03 00 00 00   mov ecx, 3
 *   400005 E8 16 00 00 00   call 400020
 *   40000a FF C9            dec ecx
 *   40000c 75 F7            jnz 400005
 *   40000e FF E0            jmp rax           (-> 400030)
 *   400020 90 C3            nop; ret
 *   400030 0F 05 90 90 90   syscall; nop; nop; nop   (signal at 400034)
 *   400040 90 FF D3 90      nop; call rbx (-> 400050); nop
 *   400050 90 C3            nop; ret
 */
static uint8_t loop_code[0x60];

static codemap loop_program(seq *s)
{
    memset(loop_code, 0x90, sizeof loop_code);
    static const uint8_t head[] = {0xB9, 3, 0, 0, 0, 0xE8, 0x16, 0, 0, 0, 0xFF, 0xC9, 0x75, 0xF7, 0xFF, 0xE0};
    memcpy(loop_code, head, sizeof head);
    loop_code[0x21] = 0xC3;
    loop_code[0x30] = 0x0F;
    loop_code[0x31] = 0x05;
    loop_code[0x41] = 0xFF;
    loop_code[0x42] = 0xD3;
    loop_code[0x51] = 0xC3;
    codemap m = {{{0x400000, loop_code, sizeof loop_code}}, 1};
    static const unsigned l5[] = {5}, l1[] = {1}, l2[] = {2}, sys[] = {2, 1, 1};
    start(s, 0, 0x400000);
    runl(s, 0, 0x400000, 1, l5);
    for (int i = 0; i < 3; i++) {
        br(s, 0, 0x400005, 5, TMC_CALL, 1, 0x400020);
        runl(s, 0, 0x400020, 1, l1);
        br(s, 0, 0x400021, 1, TMC_RET, 1, 0x40000a);
        runl(s, 0, 0x40000a, 1, l2);
        br(s, 0, 0x40000c, 2, TMC_COND, i < 2, 0x400005);
    }
    br(s, 0, 0x40000e, 2, TMC_IJUMP, 1, 0x400030);
    runl(s, 0, 0x400030, 3, sys);
    exc(s, 0, 0x400034, 0x400040);
    runl(s, 0, 0x400040, 1, l1);
    br(s, 0, 0x400041, 2, TMC_ICALL, 1, 0x400050);
    runl(s, 0, 0x400050, 1, l1);
    br(s, 0, 0x400051, 1, TMC_RET, 1, 0x400043);
    runl(s, 0, 0x400043, 1, l1);
    texit(s, 0);
    return m;
}

Test(pt, roundtrip_loop)
{
    static const struct {
        int tnt_long, no_retcomp;
        unsigned timing;
    } v[] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, TM_PT_TSC | TM_PT_MTC | TM_PT_CYC}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        seq s = {0};
        codemap m = loop_program(&s);
        tm_pt_opts o = {0};
        o.tnt_long = v[i].tnt_long;
        o.no_retcomp = v[i].no_retcomp;
        o.timing = v[i].timing;
        evcount ev;
        tm_pt_stats st;
        roundtrip(o, &s, &m, &ev, &st);
        cr_assert_eq(s.nips, 25);
        cr_assert_eq(st.instructions, 25);
        cr_assert_eq(st.far, 1);
        cr_assert_eq(st.rets_compressed, v[i].no_retcomp ? 0u : 4u, "variant %zu", i);
        /* start, after the system call, at the handler */
        cr_assert_eq(ev.enabled, 3, "variant %zu", i);
        cr_assert_eq(ev.disabled, 1, "variant %zu", i);            /* the system call */
        cr_assert_eq(ev.async_disabled, 2, "variant %zu", i);      /* the signal, the end */
        seq_free(&s);
    }
}

/* Recursion 70 deep, ITER times (the 64-entry stacks must agree):
 *
 *   400000 B9 46 00 00 00   mov ecx, 70
 *   400005 E8 F6 0F 00 00   call 401000
 *   40000a FF E0            jmp rax     (-> 400000, the last time 400010)
 *   400010 90               nop
 *   401000 FF C9            f: dec ecx
 *   401002 74 05            jz 401009
 *   401004 E8 F7 FF FF FF   call f
 *   401009 C3               ret
 */
static uint8_t rec_main[0x20], rec_f[0x10];

static codemap recursion_program(seq *s, unsigned iter, unsigned depth)
{
    memset(rec_main, 0x90, sizeof rec_main);
    static const uint8_t mh[] = {0xB9, 0, 0, 0, 0, 0xE8, 0xF6, 0x0F, 0, 0, 0xFF, 0xE0};
    memcpy(rec_main, mh, sizeof mh);
    rec_main[1] = (uint8_t)depth;
    memset(rec_f, 0x90, sizeof rec_f);
    static const uint8_t fh[] = {0xFF, 0xC9, 0x74, 0x05, 0xE8, 0xF7, 0xFF, 0xFF, 0xFF, 0xC3};
    memcpy(rec_f, fh, sizeof fh);
    codemap m = {{{0x400000, rec_main, sizeof rec_main}, {0x401000, rec_f, sizeof rec_f}}, 2};
    static const unsigned l5[] = {5}, l2[] = {2}, l1[] = {1};
    start(s, 0, 0x400000);
    for (unsigned it = 0; it < iter; it++) {
        s->cycle += it; /* some variety in the cycle deltas */
        runl(s, 0, 0x400000, 1, l5);
        br(s, 0, 0x400005, 5, TMC_CALL, 1, 0x401000);
        for (unsigned d = 1; d <= depth; d++) {
            runl(s, 0, 0x401000, 1, l2);
            br(s, 0, 0x401002, 2, TMC_COND, d == depth, 0x401009);
            if (d < depth)
                br(s, 0, 0x401004, 5, TMC_CALL, 1, 0x401000);
        }
        for (unsigned d = depth; d >= 1; d--)
            br(s, 0, 0x401009, 1, TMC_RET, 1, d > 1 ? 0x401009 : 0x40000a);
        br(s, 0, 0x40000a, 2, TMC_IJUMP, 1, it + 1 < iter ? 0x400000 : 0x400010);
    }
    runl(s, 0, 0x400010, 1, l1);
    texit(s, 0);
    return m;
}

Test(pt, roundtrip_deep_recursion)
{
    seq s = {0};
    codemap m = recursion_program(&s, 3, 70);
    evcount ev;
    tm_pt_stats st;
    roundtrip((tm_pt_opts){0}, &s, &m, &ev, &st);
    cr_assert_eq(st.rets, 3 * 70);
    cr_assert_eq(st.rets_compressed, 3 * 64);
    cr_assert_eq(ev.enabled, 1);
    cr_assert_eq(ev.async_disabled, 1);
    seq_free(&s);
}

/* The same with PSB+ every 256 bytes (the encoder's stack cleared at each,
 * the decoder's not), long TNT and timing packets, at several depths. */
Test(pt, roundtrip_psb_tnt_long_timing)
{
    static const unsigned depths[] = {3, 40, 64, 65, 100};
    for (size_t i = 0; i < sizeof depths / sizeof depths[0]; i++)
        for (int variant = 0; variant < 3; variant++) {
            seq s = {0};
            codemap m = recursion_program(&s, depths[i] < 10 ? 120 : 2000 / depths[i], depths[i]);
            tm_pt_opts o = {0};
            o.psb_period = 256;
            o.tnt_long = variant != 1;
            o.no_retcomp = variant == 2;
            o.timing = variant ? TM_PT_TSC | TM_PT_MTC | TM_PT_CYC : 0;
            evcount ev;
            tm_pt_stats st;
            roundtrip(o, &s, &m, &ev, &st);
            cr_assert_geq(st.psb, 2, "depth %u variant %d", depths[i], variant);
            seq_free(&s);
        }
}

/* ---- random walks: code written as the walk goes, checked by libipt ----
 *
 * The walk writes its instructions into fresh 256-byte regions of four
 * segments (two canonical user ranges, the kernel half, a non-canonical
 * range) and the records that describe their execution: runs of nops and
 * system calls, jcc/jmp/call rel32 to a fresh region, call to the next
 * instruction, jmp rax / call rbx to any segment, returns to the caller
 * (or, now and then, elsewhere: the stack broken), signals to a handler.
 * The stack grows past 64 at times. */

#define NSEG 4
#define SEG_BYTES (1u << 19)
#define REGION 256u

typedef struct walker {
    seq *s;
    codemap m;
    uint8_t *mem[NSEG];
    size_t next_region[NSEG];
    uint64_t pc, region_end;
    uint64_t ret[8192], ret_end[8192];
    size_t sp, maxsp;
    uint64_t rng;
    uint64_t run_pc, run_count, run_bytes;
} walker;

static const uint64_t seg_base[NSEG] = {0x0000000000400000ull, 0x00007f5500000000ull, 0xffffffff81000000ull,
                                        0x0001234500000000ull};

static unsigned rnd(walker *w, unsigned n)
{
    w->rng = w->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((w->rng >> 33) % n);
}

static uint64_t fresh(walker *w, unsigned seg)
{
    cr_assert_lt(w->next_region[seg], SEG_BYTES / REGION, "segment %u full", seg);
    return seg_base[seg] + REGION * w->next_region[seg]++;
}

static void put_bytes(walker *w, const uint8_t *b, size_t n)
{
    for (unsigned i = 0; i < NSEG; i++)
        if (w->pc >= seg_base[i] && w->pc - seg_base[i] + n <= SEG_BYTES) {
            memcpy(w->mem[i] + (w->pc - seg_base[i]), b, n);
            return;
        }
    cr_assert_fail("0x%" PRIx64 " is in no segment", w->pc);
}

static unsigned seg_of(uint64_t a)
{
    for (unsigned i = 0; i < NSEG; i++)
        if (a >= seg_base[i] && a - seg_base[i] < SEG_BYTES)
            return i;
    cr_assert_fail("0x%" PRIx64 " is in no segment", a);
    return 0;
}

static void goto_region(walker *w, uint64_t a)
{
    w->pc = a;
    w->region_end = a + REGION;
}

static void flush_run(walker *w)
{
    if (w->run_count)
        run(w->s, 0, w->run_pc, w->run_count, w->run_bytes);
    w->run_count = w->run_bytes = 0;
}

/* A non-branch instruction B of N bytes, part of the current run. */
static void plain(walker *w, const uint8_t *b, size_t n)
{
    if (!w->run_count)
        w->run_pc = w->pc;
    put_bytes(w, b, n);
    insn(w->s, w->pc);
    w->run_count++;
    w->run_bytes += n;
    w->pc += n;
}

/* A branch with opcode OP (OPN bytes) and, if REL, a rel32 to TARGET. */
static void branch(walker *w, const uint8_t *op, size_t opn, int rel, tmc_bclass c, int taken, uint64_t target)
{
    flush_run(w);
    uint8_t b[8];
    memcpy(b, op, opn);
    size_t n = opn;
    if (rel) {
        int64_t d = (int64_t)(target - (w->pc + opn + 4));
        cr_assert(d >= INT32_MIN && d <= INT32_MAX);
        uint32_t u = (uint32_t)(int32_t)d;
        for (int i = 0; i < 4; i++)
            b[n++] = (uint8_t)(u >> (8 * i));
    }
    put_bytes(w, b, n);
    w->s->cycle += rnd(w, 3);
    br(w->s, 0, w->pc, (unsigned)n, c, taken, target);
    w->pc += n;
}

static codemap walk(walker *w, seq *s, uint64_t seed, unsigned steps)
{
    memset(w, 0, sizeof *w);
    w->s = s;
    w->rng = seed;
    for (unsigned i = 0; i < NSEG; i++) {
        w->mem[i] = malloc(SEG_BYTES);
        cr_assert_not_null(w->mem[i]);
        memset(w->mem[i], 0x90, SEG_BYTES);
        w->m.r[i] = (region){seg_base[i], w->mem[i], SEG_BYTES};
    }
    w->m.n = NSEG;
    static const uint8_t NOP[] = {0x90}, SYSCALL[] = {0x0f, 0x05}, JCC[] = {0x0f, 0x84}, JMP[] = {0xe9},
                         CALL[] = {0xe8}, JMPRAX[] = {0xff, 0xe0}, CALLRBX[] = {0xff, 0xd3}, RET[] = {0xc3};
    goto_region(w, fresh(w, 0));
    start(s, 0, w->pc);
    for (unsigned step = 0; step < steps; step++) {
        unsigned seg = seg_of(w->pc);
        if (w->region_end - w->pc < 16) {
            uint64_t t = fresh(w, seg);
            branch(w, JMP, 1, 1, TMC_JUMP, 1, t);
            goto_region(w, t);
            continue;
        }
        unsigned r = rnd(w, 100);
        if (r < 40) {
            plain(w, NOP, 1);
        } else if (r < 43) {
            plain(w, SYSCALL, 2);
        } else if (r < 58) {
            uint64_t t = fresh(w, seg);
            int taken = (int)rnd(w, 2);
            branch(w, JCC, 2, 1, TMC_COND, taken, t);
            if (taken)
                goto_region(w, t);
        } else if (r < 61) {
            uint64_t t = fresh(w, seg);
            branch(w, JMP, 1, 1, TMC_JUMP, 1, t);
            goto_region(w, t);
        } else if (r < 72 || r == 97) {
            /* a call: the caller's region goes on at the return */
            uint64_t t = fresh(w, seg);
            branch(w, CALL, 1, 1, TMC_CALL, 1, t);
            cr_assert_lt(w->sp, sizeof w->ret / sizeof w->ret[0]);
            w->ret[w->sp] = w->pc;
            w->ret_end[w->sp++] = w->region_end;
            if (w->sp > w->maxsp)
                w->maxsp = w->sp;
            goto_region(w, t);
        } else if (r < 74) {
            branch(w, CALL, 1, 1, TMC_CALL, 1, w->pc + 5); /* to the next instruction */
        } else if (r < 78) {
            uint64_t t = fresh(w, rnd(w, NSEG));
            branch(w, JMPRAX, 2, 0, TMC_IJUMP, 1, t);
            goto_region(w, t);
        } else if (r < 82) {
            uint64_t t = fresh(w, rnd(w, NSEG));
            branch(w, CALLRBX, 2, 0, TMC_ICALL, 1, t);
            w->ret[w->sp] = w->pc;
            w->ret_end[w->sp++] = w->region_end;
            if (w->sp > w->maxsp)
                w->maxsp = w->sp;
            goto_region(w, t);
        } else if (r < 95) {
            if (w->sp && rnd(w, 12)) {
                w->sp--;
                branch(w, RET, 1, 0, TMC_RET, 1, w->ret[w->sp]);
                w->pc = w->ret[w->sp];
                w->region_end = w->ret_end[w->sp];
            } else {
                uint64_t t = fresh(w, rnd(w, NSEG)); /* longjmp */
                branch(w, RET, 1, 0, TMC_RET, 1, t);
                goto_region(w, t);
            }
        } else if (r < 97) {
            flush_run(w);
            uint64_t h = fresh(w, rnd(w, NSEG));
            w->s->cycle += rnd(w, 3);
            exc(s, 0, w->pc, h);
            goto_region(w, h);
        } else {
            plain(w, NOP, 1);
        }
    }
    flush_run(w);
    texit(s, 0);
    return w->m;
}

static void walker_free(walker *w)
{
    for (unsigned i = 0; i < NSEG; i++)
        free(w->mem[i]);
}

Test(pt, roundtrip_random_walks)
{
    static const struct {
        uint32_t psb_period;
        int tnt_long, no_retcomp;
        unsigned timing;
    } v[] = {
        {0, 0, 0, 0},
        {256, 1, 0, 0},
        {256, 0, 0, TM_PT_TSC | TM_PT_CYC},
        {300, 1, 1, TM_PT_TSC | TM_PT_MTC | TM_PT_CYC},
    };
    static walker w;
    size_t deep = 0;
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
            seq s = {0};
            codemap m = walk(&w, &s, seed, 3000);
            deep += w.maxsp > 64;
            tm_pt_opts o = {0};
            o.psb_period = v[i].psb_period;
            o.tnt_long = v[i].tnt_long;
            o.no_retcomp = v[i].no_retcomp;
            o.timing = v[i].timing;
            evcount ev;
            tm_pt_stats st;
            roundtrip(o, &s, &m, &ev, &st);
            cr_assert_eq(st.instructions, s.nips);
            cr_assert_gt(st.far, 0);
            cr_assert_gt(st.exceptions, 0);
            walker_free(&w);
            seq_free(&s);
        }
    cr_assert_gt(deep, 0, "no walk went deeper than 64 calls");
}
