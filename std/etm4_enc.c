/* tm — ARM ETMv4 encoder: the bytes each core's ETMv4 trace unit would
 * have written for the execution an AArch64 commit stream describes
 * (tm/etm4.h, docs/standards.md §3).  Packet layouts: ARM IHI 0064 (ETMv4
 * architecture specification), chapter "Trace packets"; every choice that
 * the decoder has to mirror (address history, return stack) is kept as
 * OpenCSD's ETMv4 decoder keeps it, since that decoder checks the output
 * (std/etm4_dec.c).
 *
 *   - atoms wait in a per-core buffer and are packed (format 6 for runs of
 *     E, 5 and 4 for their patterns, else 3, 2, 1) when another packet must
 *     follow them or the buffer is full;
 *   - an address packet after an indirect branch, an exception, a sync or
 *     trace on is the shortest that the 3-entry address history decodes:
 *     exact match, short (A[8:2] or A[16:2]), long 32, long 64;
 *   - user-only tracing: an SVC in a run is an Exception packet (Call) with
 *     the preferred return address, after which trace is off until the next
 *     EL0 instruction: Trace On, Context (same), address.  A signal (EXC
 *     record) while trace is on is an Exception (IRQ) with the interrupted
 *     instruction's address; the handler starts with Trace On.  The SVCs
 *     inside a run come from the run scanner the standards share
 *     (tm/runscan.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/a64op.h"
#include "tm/etm4.h"
#include "tm/grow.h"
#include "tm/runscan.h"
#include "tm/status.h"

#define OUT_FLUSH 65536u
#define ATOM_MAX 48u   /* atoms buffered before they are packed */
#define RS_DEPTH 16u   /* OpenCSD's TrcAddrReturnStack */
#define EXC_CALL 0x2u  /* exception type: Call (SVC) */
#define EXC_IRQ 0xEu   /* exception type: IRQ (the kernel entry before a signal) */

typedef struct e4_thr {
    int live;
    int on;             /* trace active (EL0) */
    uint64_t next_ip;   /* the next instruction */
    uint64_t hist[3];   /* address history, [0] the most recent */
    unsigned nhist;     /* valid entries */
    uint64_t rs[RS_DEPTH];
    unsigned rs_head, rs_n;
    uint64_t atoms;     /* pending atoms, bit i the i-th oldest (1 = E) */
    unsigned natoms;
    uint64_t since_sync;
    uint64_t cycle;
    uint64_t ts_last;   /* the timestamp the decoder has */
    int ts_fresh;       /* a Trace Info came since the last timestamp (missing bits read as 0) */
    uint64_t cc_last;   /* cycle of the last cycle count */
    uint64_t tail;      /* instructions since the last P0 element */
    uint8_t *out;
    size_t nout, outcap;
    uint64_t bytes;
} e4_thr;

struct tm_etm4_encoder {
    tm_etm4_opts o;
    uint32_t threads;
    e4_thr *t;
    tm_etm4_stats st;
    int failed;
    tm_runscan *scan;   /* the SVCs of each run (o.code) */
    char *err;
    size_t errlen;
};

static const char *const kind_names[TM_ETM4_NKINDS] = {
    "async", "trace_info", "trace_on", "context", "addr_ctxt_l64", "addr_match", "addr_short", "addr_l32",
    "addr_l64", "atom_f1", "atom_f2", "atom_f3", "atom_f4", "atom_f5", "atom_f6", "exception", "timestamp",
    "cycle_count"};

const char *tm_etm4_kind_name(unsigned k)
{
    return k < TM_ETM4_NKINDS ? kind_names[k] : "?";
}

/* tm_runscan's step: every A64 instruction is 4 bytes; the SVCs are wanted. */
static int svc_step(void *arg, const uint8_t *p, size_t avail, uint64_t addr, unsigned *len)
{
    (void)arg;
    if (avail < 4)
        return -1;
    unsigned long long tgt = 0;
    int op = tm_a64_op(p, 4, addr, len, &tgt);
    *len = 4;
    return op == TM_A64_SYSCALL;
}

uint32_t tm_etm4_configr(const tm_etm4_opts *o)
{
    return 0x1u | (o->cycle_counts ? TM_ETM4_CONFIGR_CCI : 0) | (o->timestamps ? TM_ETM4_CONFIGR_TS : 0) |
           (o->return_stack ? TM_ETM4_CONFIGR_RS : 0);
}

int tm_etm4_encoder_new(const tm_etm4_opts *o, uint32_t threads, tm_etm4_encoder **out, char *err, size_t errlen)
{
    *out = NULL;
    tm_etm4_opts d = *o;
    if (!d.sync_period)
        d.sync_period = 4096;
    if (d.sync_period < 64 || d.sync_period > (1u << 30))
        return tm_errf(TM_ERR_ARG, err, errlen, "sync period %" PRIu32 " bytes is out of range (64 .. 2^30)",
                       d.sync_period);
    if (!d.write || !threads || threads > TMC_MAX_THREADS)
        return tm_errf(TM_ERR_ARG, err, errlen, "no output, or %" PRIu32 " threads", threads);
    tm_etm4_encoder *e = calloc(1, sizeof *e);
    if (!e || !(e->t = calloc(threads, sizeof *e->t))) {
        free(e);
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    }
    e->o = d;
    e->threads = threads;
    if (d.code) {
        int rc = tm_runscan_new(d.code, d.code_arg, svc_step, NULL, "thread", &e->scan, err, errlen);
        if (rc != TM_OK) {
            tm_etm4_encoder_free(e);
            return rc;
        }
    }
    *out = e;
    return TM_OK;
}

void tm_etm4_encoder_free(tm_etm4_encoder *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->threads; i++)
        free(e->t[i].out);
    free(e->t);
    tm_runscan_free(e->scan);
    free(e);
}

const tm_etm4_stats *tm_etm4_encoder_stats(const tm_etm4_encoder *e)
{
    return &e->st;
}

uint64_t tm_etm4_encoder_thread_bytes(const tm_etm4_encoder *e, uint32_t tid)
{
    return tid < e->threads ? e->t[tid].bytes : 0;
}

static int fail(tm_etm4_encoder *e, int rc, const char *msg)
{
    if (!e->failed) {
        e->failed = rc;
        tm_err_set(e->err, e->errlen, msg);
    }
    return rc;
}

static int flush_out(tm_etm4_encoder *e, uint32_t tid)
{
    e4_thr *t = &e->t[tid];
    if (t->nout && e->o.write(e->o.write_arg, tid, t->out, t->nout))
        return fail(e, TM_ERR_IO, "cannot write the ETMv4 output");
    t->nout = 0;
    return TM_OK;
}

/* Appends packet P (N bytes) of kind KIND to core TID's stream. */
static int put(tm_etm4_encoder *e, uint32_t tid, const uint8_t *p, size_t n, unsigned kind)
{
    if (e->failed)
        return e->failed;
    e4_thr *t = &e->t[tid];
    if (t->nout + n > t->outcap && TM_GROW(t->out, t->outcap, t->nout + n + OUT_FLUSH) != TM_OK)
        return fail(e, TM_ERR_NOMEM, "out of memory");
    memcpy(t->out + t->nout, p, n);
    t->nout += n;
    t->bytes += n;
    t->since_sync += n;
    e->st.packets[kind]++;
    e->st.bytes[kind] += n;
    e->st.total_bytes += n;
    return t->nout >= OUT_FLUSH ? flush_out(e, tid) : TM_OK;
}

/* ---- atoms ---- */

/* The format 4 and 5 patterns as OpenCSD reads them, oldest atom in bit 0
 * (trc_pkt_proc_etmv4i.cpp, iAtom). */
static const uint8_t f4_pat[4] = {0xE, 0x0, 0xA, 0x5};
static const uint8_t f5_hdr[4] = {0xF5, 0xD5, 0xD6, 0xD7};
static const uint8_t f5_pat[4] = {0x1E, 0x00, 0x0A, 0x15};

/* One atom packet for the oldest of the N atoms A (bit 0 oldest): its
 * header byte in *B, and the atoms it takes. */
unsigned tm_etm4_atom_packet(uint64_t a, unsigned n, uint8_t *b, unsigned *kind)
{
    unsigned run = 0;
    while (run < n && run < 64 && ((a >> run) & 1))
        run++;
    /* Format 6: 11x0xxxx, 3 + (b & 0x1f) E's (3..23) then one atom: E if
     * b bit 5 is 0, N if 1.  b & 0x1f <= 0x14. */
    if (run >= 4 || (run == 3 && n > 3)) {
        unsigned es, last_n;
        if (run >= 24) {
            es = 23;
            last_n = 0;
        } else if (run < n) {
            es = run; /* the run then the N after it */
            last_n = 1;
        } else {
            es = run - 1;
            last_n = 0;
        }
        if (es >= 3) {
            *b = (uint8_t)(0xC0 | (last_n ? 0x20 : 0) | (es - 3));
            *kind = TM_ETM4_K_ATOM6;
            return es + 1;
        }
    }
    /* Format 5: four 5-atom patterns. */
    if (n >= 5)
        for (unsigned i = 0; i < 4; i++)
            if ((a & 0x1F) == f5_pat[i]) {
                *b = f5_hdr[i];
                *kind = TM_ETM4_K_ATOM5;
                return 5;
            }
    /* Format 4: 110111pp, four 4-atom patterns. */
    if (n >= 4)
        for (unsigned i = 0; i < 4; i++)
            if ((a & 0xF) == f4_pat[i]) {
                *b = (uint8_t)(0xDC | i);
                *kind = TM_ETM4_K_ATOM4;
                return 4;
            }
    if (n >= 3) { /* Format 3: 11111EEE */
        *b = (uint8_t)(0xF8 | (a & 7));
        *kind = TM_ETM4_K_ATOM3;
        return 3;
    }
    if (n == 2) { /* Format 2: 110110EE */
        *b = (uint8_t)(0xD8 | (a & 3));
        *kind = TM_ETM4_K_ATOM2;
        return 2;
    }
    *b = (uint8_t)(0xF6 | (a & 1)); /* Format 1: 1111011E */
    *kind = TM_ETM4_K_ATOM1;
    return 1;
}

static int put_cc(tm_etm4_encoder *e, uint32_t tid);

/* Packs the pending atoms (all, or ALL = 0: while more than 24 wait). */
static int flush_atoms(tm_etm4_encoder *e, uint32_t tid, int all)
{
    e4_thr *t = &e->t[tid];
    int rc = TM_OK;
    while (!rc && t->natoms && (all || t->natoms > 24)) {
        uint8_t b;
        unsigned kind;
        unsigned k = tm_etm4_atom_packet(t->atoms, t->natoms, &b, &kind);
        t->atoms = k < 64 ? t->atoms >> k : 0;
        t->natoms -= k;
        rc = put(e, tid, &b, 1, kind);
        if (!rc)
            rc = put_cc(e, tid);
    }
    return rc;
}

static int add_atom(tm_etm4_encoder *e, uint32_t tid, int taken)
{
    e4_thr *t = &e->t[tid];
    t->atoms |= (uint64_t)(taken ? 1 : 0) << t->natoms;
    t->natoms++;
    t->tail = 0;
    e->st.atoms++;
    return t->natoms >= ATOM_MAX ? flush_atoms(e, tid, 0) : TM_OK;
}

/* ---- timing ---- */

/* Cycle count (TRCCONFIGR.CCI, TRCIDR0.COMMOPT 1: no commit field): the
 * cycles since the last count, when at least the threshold.  Format 3
 * (0001CCcc: threshold + cc, 0..3) when it fits, else format 1 (00001110,
 * then count - threshold in 7-bit groups, up to 3 bytes, 20 bits). */
static int put_cc(tm_etm4_encoder *e, uint32_t tid)
{
    e4_thr *t = &e->t[tid];
    if (!e->o.cycle_counts || t->cycle - t->cc_last < TM_ETM4_CC_THRESHOLD)
        return TM_OK;
    uint64_t d = t->cycle - t->cc_last - TM_ETM4_CC_THRESHOLD;
    t->cc_last = t->cycle;
    uint8_t p[4];
    if (d <= 3) {
        p[0] = (uint8_t)(0x10 | d);
        return put(e, tid, p, 1, TM_ETM4_K_CC);
    }
    if (d > 0xFFFFF)
        d = 0xFFFFF;
    size_t n = 1;
    p[0] = 0x0E;
    do {
        p[n] = (uint8_t)(d & 0x7F);
        d >>= 7;
        if (d)
            p[n] |= 0x80;
        n++;
    } while (d);
    return put(e, tid, p, n, TM_ETM4_K_CC);
}

/* Timestamp 00000010 + the low bits of the cycle that changed, 7 a byte
 * (bit 7: more follow); after Trace Info the bits not sent are 0, and 7 or
 * more bytes replace all 64 bits (the 9th byte ends the field). */
size_t tm_etm4_ts_packet(uint64_t ts, uint64_t prev, int fresh, uint8_t *p)
{
    unsigned nb = 0;
    if (fresh)
        prev = 0;
    for (unsigned k = 1; k <= 6 && !nb; k++)
        if ((ts >> (7 * k)) == (prev >> (7 * k)))
            nb = k;
    for (unsigned k = 7; k <= 9 && !nb; k++)
        if (k == 9 || (ts >> (7 * k)) == 0)
            nb = k;
    p[0] = 0x02;
    for (unsigned i = 0; i < nb; i++)
        p[1 + i] = (uint8_t)(((ts >> (7 * i)) & 0x7F) | (i + 1 < nb ? 0x80 : 0));
    return 1 + nb;
}

static int put_ts(tm_etm4_encoder *e, uint32_t tid)
{
    e4_thr *t = &e->t[tid];
    if (!e->o.timestamps)
        return TM_OK;
    uint8_t p[10];
    size_t n = tm_etm4_ts_packet(t->cycle, t->ts_last, t->ts_fresh, p);
    t->ts_last = t->cycle;
    t->ts_fresh = 0;
    return put(e, tid, p, n, TM_ETM4_K_TS);
}

/* ---- addresses ---- */

static void hist_push(e4_thr *t, uint64_t a)
{
    t->hist[2] = t->hist[1];
    t->hist[1] = t->hist[0];
    t->hist[0] = a;
    if (t->nhist < 3)
        t->nhist++;
}

/* The shortest address packet for A (IS0: A64, 4-byte aligned) against the
 * history H (NH valid entries, H[0] the most recent): its bytes in P. */
size_t tm_etm4_addr_packet(uint64_t a, const uint64_t *h, unsigned nh, uint8_t *p, unsigned *kind)
{
    for (unsigned i = 0; i < nh; i++)
        if (h[i] == a) { /* Exact match: 100100QQ, QQ the history entry */
            p[0] = (uint8_t)(0x90 | i);
            *kind = TM_ETM4_K_ADDR_MATCH;
            return 1;
        }
    /* Short IS0: 10010101, A[8:2] (bit 7: A[16:9] follows), A[16:9]; the
     * bits above from H[0]. */
    if (nh && (a >> 9) == (h[0] >> 9)) {
        p[0] = 0x95;
        p[1] = (uint8_t)((a >> 2) & 0x7F);
        *kind = TM_ETM4_K_ADDR_S;
        return 2;
    }
    if (nh && (a >> 17) == (h[0] >> 17)) {
        p[0] = 0x95;
        p[1] = (uint8_t)(0x80 | ((a >> 2) & 0x7F));
        p[2] = (uint8_t)(a >> 9);
        *kind = TM_ETM4_K_ADDR_S;
        return 3;
    }
    /* Long IS0: 10011010 (32-bit) / 10011101 (64-bit): A[8:2], A[15:9],
     * then A[23:16], A[31:24] (, A[39:32] .. A[63:56]). */
    int l32 = nh && (a >> 32) == (h[0] >> 32);
    p[0] = l32 ? 0x9A : 0x9D;
    p[1] = (uint8_t)((a >> 2) & 0x7F);
    p[2] = (uint8_t)((a >> 9) & 0x7F);
    size_t nb = l32 ? 4 : 8;
    for (size_t i = 2; i < nb; i++)
        p[1 + i] = (uint8_t)(a >> (8 * i));
    *kind = l32 ? TM_ETM4_K_ADDR_L32 : TM_ETM4_K_ADDR_L64;
    return 1 + nb;
}

static int put_addr(tm_etm4_encoder *e, uint32_t tid, uint64_t a)
{
    e4_thr *t = &e->t[tid];
    uint8_t p[12];
    unsigned kind;
    size_t n = tm_etm4_addr_packet(a, t->hist, t->nhist, p, &kind);
    hist_push(t, a);
    return put(e, tid, p, n, kind);
}

/* Address with Context, long 64-bit IS0: 10000101, the address as the long
 * address packet, then the context info byte: EL[1:0] = 0 (EL0), SF (bit 4)
 * = 1 (AArch64), NS (bit 5) = 1 (Non-secure), V = C = 0 (no VMID, no
 * context ID). */
size_t tm_etm4_addr_ctxt_packet(uint64_t a, uint8_t *p)
{
    p[0] = 0x85;
    p[1] = (uint8_t)((a >> 2) & 0x7F);
    p[2] = (uint8_t)((a >> 9) & 0x7F);
    for (unsigned i = 2; i < 8; i++)
        p[1 + i] = (uint8_t)(a >> (8 * i));
    p[9] = 0x30;
    return 10;
}

/* ---- sync, trace on, exceptions ---- */

/* A-sync (11 x 0x00, 0x80), Trace Info, [Trace On], [Timestamp], Address
 * with Context at the next instruction.  The decoder may start here: the
 * address history and the return stack start empty. */
static int put_sync(tm_etm4_encoder *e, uint32_t tid, int trace_on, int periodic)
{
    e4_thr *t = &e->t[tid];
    int rc = flush_atoms(e, tid, 1);
    if (rc)
        return rc;
    static const uint8_t async[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80};
    t->since_sync = 0;
    rc = put(e, tid, async, sizeof async, TM_ETM4_K_ASYNC);
    /* Trace Info: 00000001, PLCTL (bit 0: INFO section, bit 3: CYCT
     * section); INFO bit 0 = cycle counting on; CYCT = the threshold. */
    uint8_t ti[4] = {0x01, 0x00, 0, 0};
    size_t nti = 2;
    if (e->o.cycle_counts) {
        ti[1] = 0x09;
        ti[2] = 0x01;
        ti[3] = TM_ETM4_CC_THRESHOLD;
        nti = 4;
        t->cc_last = t->cycle;
    }
    if (!rc)
        rc = put(e, tid, ti, nti, TM_ETM4_K_TINFO);
    t->ts_fresh = 1;
    t->nhist = 0;
    t->rs_n = 0;
    static const uint8_t on = 0x04;
    if (!rc && trace_on)
        rc = put(e, tid, &on, 1, TM_ETM4_K_TRACE_ON);
    if (!rc)
        rc = put_ts(e, tid);
    uint8_t p[10];
    size_t n = tm_etm4_addr_ctxt_packet(t->next_ip, p);
    hist_push(t, t->next_ip);
    if (!rc)
        rc = put(e, tid, p, n, TM_ETM4_K_ADDR_CTXT);
    e->st.syncs++;
    if (periodic)
        e->st.syncs_periodic++;
    return rc;
}

/* Trace starts again at IP (back in EL0): Trace On, Context (same as
 * before: 10000000), the address; a full sync instead when one is due. */
static int trace_on(tm_etm4_encoder *e, uint32_t tid, uint64_t ip)
{
    e4_thr *t = &e->t[tid];
    t->next_ip = ip;
    t->on = 1;
    t->tail = 0;
    if (t->since_sync >= e->o.sync_period)
        return put_sync(e, tid, 1, 1);
    static const uint8_t on = 0x04, ctxt = 0x80;
    int rc = put(e, tid, &on, 1, TM_ETM4_K_TRACE_ON);
    t->rs_n = 0; /* OpenCSD flushes its return stack at Trace On */
    if (!rc)
        rc = put_ts(e, tid);
    if (!rc)
        rc = put(e, tid, &ctxt, 1, TM_ETM4_K_CTXT);
    return rc ? rc : put_addr(e, tid, ip);
}

/* Exception TYPE whose preferred return address is RET: the pending atoms,
 * 00000110, the info byte (E0 = 1, TYPE[4:0] in bits 5..1, E1 = 0, no
 * second byte), the address.  Trace is off after it (EL1 is not traced). */
static int put_exception(tm_etm4_encoder *e, uint32_t tid, unsigned type, uint64_t ret)
{
    e4_thr *t = &e->t[tid];
    int rc = flush_atoms(e, tid, 1);
    uint8_t p[2] = {0x06, (uint8_t)(((type & 0x1F) << 1) | 1)};
    if (!rc)
        rc = put(e, tid, p, 2, TM_ETM4_K_EXCEPT);
    if (!rc)
        rc = put_addr(e, tid, ret);
    if (!rc)
        rc = put_cc(e, tid);
    t->on = 0;
    t->tail = 0;
    return rc;
}

/* ---- records ---- */

static int end_thread(tm_etm4_encoder *e, uint32_t tid)
{
    e4_thr *t = &e->t[tid];
    int rc = flush_atoms(e, tid, 1);
    if (t->live && t->on)
        e->st.untraced += t->tail;
    t->tail = 0;
    t->live = 0;
    t->on = 0;
    if (!rc)
        rc = flush_out(e, tid);
    return rc;
}

static int rs_top_is(const e4_thr *t, uint64_t a)
{
    return t->rs_n && t->rs[t->rs_head] == a;
}

static void rs_push(e4_thr *t, uint64_t a)
{
    t->rs_head = (t->rs_head + 1) % RS_DEPTH;
    t->rs[t->rs_head] = a;
    if (t->rs_n < RS_DEPTH)
        t->rs_n++;
}

static void rs_pop(e4_thr *t)
{
    t->rs_head = (t->rs_head + RS_DEPTH - 1) % RS_DEPTH;
    t->rs_n--;
}

int tm_etm4_encoder_put(tm_etm4_encoder *e, const tmc_record *r, char *err, size_t errlen)
{
    e->err = err;
    e->errlen = errlen;
    if (e->failed)
        return e->failed;
    if (r->type == TMC_MODULE || r->type == TMC_MEM)
        return TM_OK;
    if (r->type == TMC_END || r->type == TMC_ENDING)
        return tm_etm4_encoder_finish(e, err, errlen);
    char m[160];
    if (r->tid >= e->threads) {
        snprintf(m, sizeof m, "thread %" PRIu32 " is out of range", r->tid);
        return fail(e, TM_ERR_FORMAT, m);
    }
    uint32_t tid = r->tid;
    e4_thr *t = &e->t[tid];
    t->cycle = r->cycle;
    if (r->cycle + 1 > e->st.cycles)
        e->st.cycles = r->cycle + 1;
    int rc = TM_OK;
    if (r->type == TMC_START) {
        if (!t->bytes)
            e->st.threads++;
        t->live = 1;
        t->on = 1;
        t->tail = 0;
        t->natoms = 0;
        t->atoms = 0;
        t->next_ip = r->pc;
        t->cc_last = r->cycle;
        return put_sync(e, tid, 1, 0);
    }
    if (r->type == TMC_EXIT)
        return end_thread(e, tid);
    if (!t->live) {
        snprintf(m, sizeof m, "thread %" PRIu32 " runs before its START", tid);
        return fail(e, TM_ERR_FORMAT, m);
    }
    /* A periodic sync goes where the decoder knows the next instruction:
     * right after a P0 element or an address (its address packet says
     * where the trace goes on; instructions before it would be lost). */
    if (t->on && !t->tail && t->since_sync >= e->o.sync_period) {
        t->next_ip = r->pc;
        if ((rc = put_sync(e, tid, 0, 1)) != TM_OK)
            return rc;
    }
    if (r->type == TMC_EXC) {
        e->st.exceptions++;
        if (t->on)
            rc = put_exception(e, tid, EXC_IRQ, r->pc);
        t->next_ip = r->target;
        return rc;
    }
    if (!t->on && (rc = trace_on(e, tid, r->pc)) != TM_OK)
        return rc;
    if (r->type == TMC_RUN) {
        e->st.instructions += r->count;
        t->tail += r->count;
        t->next_ip = r->pc + r->bytes;
        if (!e->o.code)
            return TM_OK;
        if (r->bytes != 4 * r->count) {
            snprintf(m, sizeof m, "thread %" PRIu32 ": run at 0x%" PRIx64 ": %" PRIu64 " instructions in %" PRIu64
                     " bytes: not A64 code", r->tid, r->pc, r->count, r->bytes);
            return fail(e, TM_ERR_FORMAT, m);
        }
        tm_runscan_run f;
        if ((rc = tm_runscan_get(e->scan, r, &f, e->err, e->errlen)) != TM_OK)
            return e->failed = rc; /* the first error: e->failed was 0 */
        for (uint32_t i = 0; i < f.n && !rc; i++) {
            uint64_t k = f.hit[i].k, next = f.hit[i].next;
            e->st.syscalls++;
            rc = put_exception(e, tid, EXC_CALL, next);
            if (!rc && k + 1 < r->count)
                rc = trace_on(e, tid, next);
            t->tail = r->count - (k + 1); /* the instructions after the svc wait for a P0 element */
        }
        t->next_ip = r->pc + r->bytes;
        return rc;
    }
    if (r->type != TMC_BRANCH)
        return TM_OK;
    e->st.instructions++;
    e->st.branches++;
    uint64_t fall = r->pc + r->len;
    t->next_ip = r->taken ? r->target : fall;
    int rs = e->o.return_stack;
    switch (r->bclass) {
    case TMC_COND:
        e->st.cond++;
        return add_atom(e, tid, r->taken);
    case TMC_JUMP:
        return add_atom(e, tid, 1);
    case TMC_CALL:
        if (rs)
            rs_push(t, fall);
        return add_atom(e, tid, 1);
    case TMC_ICALL: case TMC_IJUMP: case TMC_RET:
        if (r->bclass == TMC_RET)
            e->st.rets++;
        else
            e->st.indirect++;
        if (rs && r->bclass == TMC_ICALL)
            rs_push(t, fall);
        rc = add_atom(e, tid, 1);
        /* OpenCSD pops its return stack for a taken indirect branch that no
         * address packet follows. */
        if (!rc && rs && rs_top_is(t, r->target)) {
            rs_pop(t);
            if (r->bclass == TMC_RET)
                e->st.rets_predicted++;
            return TM_OK;
        }
        if (!rc)
            rc = flush_atoms(e, tid, 1);
        return rc ? rc : put_addr(e, tid, r->target);
    default:
        return TM_OK;
    }
}

int tm_etm4_encoder_finish(tm_etm4_encoder *e, char *err, size_t errlen)
{
    e->err = err;
    e->errlen = errlen;
    int rc = e->failed;
    for (uint32_t i = 0; i < e->threads && !rc; i++)
        rc = end_thread(e, i);
    return rc;
}
