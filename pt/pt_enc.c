/* tm — Intel PT encoder: the packets each core's Intel PT would have written
 * for the execution a commit stream describes (tm/pt.h, docs/pt.md).
 *
 * Packets are written with libipt's encoder (pt_enc_next) into a scratch
 * buffer and appended to the core's output.  The choices mirror what
 * libipt's decoders expect:
 *
 *   - TNT bits for conditional branches and compressed returns, flushed
 *     before any other packet (the decoder reads a return as compressed iff
 *     a TNT bit is pending when it reaches it);
 *   - return compression against a 64-entry call stack that behaves as
 *     libipt's (pt_retstack: circular, a direct call to the next instruction
 *     is not pushed, an uncompressed return does not pop), cleared at PSB so
 *     that decoding can start at any PSB;
 *   - IP compression against the last IP, which PSB clears;
 *   - user-only tracing: a system call (any far transfer) ends with TIP.PGD
 *     without IP; the thread's next instruction in user space starts with
 *     MODE.Exec + TIP.PGE; a signal is FUP + TIP.PGD, then MODE.Exec +
 *     TIP.PGE at the handler.  The far transfers inside a run are found by
 *     the run scanner the standards share (tm/runscan.h), with Zydis. */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <inttypes.h>
#include <intel-pt.h>
#include <Zydis/Zydis.h>
#include "tm/pt.h"
#include "tm/runscan.h"
#include "tm/grow.h"
#include "tm/status.h"

#define RETSTACK 64u    /* libipt's pt_retstack_size */
#define OUT_FLUSH 65536u

typedef struct pt_thr {
    int live, enabled;
    uint64_t next_ip;
    uint64_t last_ip;
    int have_ip;
    uint64_t tnt;       /* pending TNT bits, the first branch the most significant */
    unsigned ntnt, tnt_ret; /* pending bits, of which compressed returns */
    uint64_t stack[RETSTACK + 1];
    unsigned top, bottom;
    uint64_t since_psb;
    uint64_t cycle;     /* of the record being encoded */
    uint64_t cyc_last;  /* cycle of the last CYC */
    uint64_t mtc_last;  /* period of the last MTC */
    int cyc_have, mtc_have;
    uint8_t *out;
    size_t nout, outcap;
    uint64_t bytes;
} pt_thr;

struct tm_pt_encoder {
    tm_pt_opts o;
    uint32_t threads;
    pt_thr *t;
    struct pt_encoder *enc;
    uint8_t scratch[64];
    tm_pt_stats st;
    int failed;
    ZydisDecoder zd;
    tm_runscan *scan;   /* the far transfers of each run (o.code) */
    char *err;
    size_t errlen;
};

static const char *const kind_names[TM_PT_NKINDS] = {"tnt8", "tnt64", "tip", "tip_pge", "tip_pgd", "fup",
                                                     "psb", "psbend", "mode_exec", "tsc", "mtc", "cyc"};
static const char *const cause_names[TM_PT_NCAUSES] = {"cond", "ret_compressed", "ret_tip", "indirect", "far",
                                                       "exception", "edge", "sync", "timing"};

const char *tm_pt_kind_name(unsigned k)
{
    return k < TM_PT_NKINDS ? kind_names[k] : "?";
}

const char *tm_pt_cause_name(unsigned c)
{
    return c < TM_PT_NCAUSES ? cause_names[c] : "?";
}

/* Far transfers (libipt's ptic_far_call/_return/_jump) of the instruction
 * INS. */
static int is_far(const ZydisDecodedInstruction *ins)
{
    switch (ins->mnemonic) {
    case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER: case ZYDIS_MNEMONIC_SYSEXIT:
    case ZYDIS_MNEMONIC_SYSRET: case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1: case ZYDIS_MNEMONIC_INT3:
    case ZYDIS_MNEMONIC_INTO: case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD: case ZYDIS_MNEMONIC_IRETQ:
    case ZYDIS_MNEMONIC_VMCALL: case ZYDIS_MNEMONIC_VMLAUNCH: case ZYDIS_MNEMONIC_VMRESUME:
    case ZYDIS_MNEMONIC_UIRET:
        return 1;
    case ZYDIS_MNEMONIC_CALL: case ZYDIS_MNEMONIC_JMP: case ZYDIS_MNEMONIC_RET:
        return ins->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
    default:
        return 0;
    }
}

/* tm_runscan's step: the length of the instruction at P, and whether it is
 * a far transfer (ARG: the Zydis decoder). */
static int far_step(void *arg, const uint8_t *p, size_t avail, uint64_t addr, unsigned *len)
{
    (void)addr;
    ZydisDecodedInstruction ins;
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(arg, NULL, p, avail > 15 ? 15 : avail, &ins)))
        return -1;
    *len = ins.length;
    return is_far(&ins);
}

int tm_pt_encoder_new(const tm_pt_opts *o, uint32_t threads, tm_pt_encoder **out, char *err, size_t errlen)
{
    *out = NULL;
    tm_pt_opts d = *o;
    if (!d.psb_period)
        d.psb_period = 4096;
    if (!d.mtc_shift)
        d.mtc_shift = 8;
    if (d.psb_period < 256 || d.psb_period > (1u << 30)) {
        snprintf(err, errlen, "PSB period %" PRIu32 " bytes is out of range (256 .. 2^30)", d.psb_period);
        return TM_ERR_ARG;
    }
    if (d.mtc_shift > 24) {
        snprintf(err, errlen, "MTC period 2^%u cycles is out of range (2^1 .. 2^24)", d.mtc_shift);
        return TM_ERR_ARG;
    }
    if (d.timing & ~(TM_PT_TSC | TM_PT_MTC | TM_PT_CYC)) {
        snprintf(err, errlen, "unknown timing packets 0x%x", d.timing);
        return TM_ERR_ARG;
    }
    if (!d.write || !threads || threads > TMC_MAX_THREADS) {
        snprintf(err, errlen, "no output, or %" PRIu32 " threads", threads);
        return TM_ERR_ARG;
    }
    tm_pt_encoder *e = calloc(1, sizeof *e);
    if (!e || !(e->t = calloc(threads, sizeof *e->t))) {
        free(e);
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    e->o = d;
    e->threads = threads;
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = e->scratch;
    cfg.end = e->scratch + sizeof e->scratch;
    e->enc = pt_alloc_encoder(&cfg);
    if (!e->enc) {
        free(e->t);
        free(e);
        snprintf(err, errlen, "libipt: cannot allocate an encoder");
        return TM_ERR_NOMEM;
    }
    ZydisDecoderInit(&e->zd, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    if (d.code) {
        int rc = tm_runscan_new(d.code, d.code_arg, far_step, &e->zd, "thread", &e->scan, err, errlen);
        if (rc != TM_OK) {
            tm_pt_encoder_free(e);
            return rc;
        }
    }
    *out = e;
    return TM_OK;
}

void tm_pt_encoder_free(tm_pt_encoder *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->threads; i++)
        free(e->t[i].out);
    free(e->t);
    tm_runscan_free(e->scan);
    if (e->enc)
        pt_free_encoder(e->enc);
    free(e);
}

const tm_pt_stats *tm_pt_encoder_stats(const tm_pt_encoder *e)
{
    return &e->st;
}

uint64_t tm_pt_encoder_thread_bytes(const tm_pt_encoder *e, uint32_t tid)
{
    return tid < e->threads ? e->t[tid].bytes : 0;
}

static int fail(tm_pt_encoder *e, int rc, const char *msg)
{
    if (!e->failed) {
        e->failed = rc;
        if (e->err)
            snprintf(e->err, e->errlen, "%s", msg);
    }
    return rc;
}

static int flush_out(tm_pt_encoder *e, uint32_t tid)
{
    pt_thr *t = &e->t[tid];
    if (t->nout && e->o.write(e->o.write_arg, tid, t->out, t->nout))
        return fail(e, TM_ERR_IO, "cannot write the PT output");
    t->nout = 0;
    return TM_OK;
}

/* Encodes packet P of kind KIND for thread TID; its bits count for CAUSE
 * (TNT packets: split between conditional branches and returns by the
 * caller). */
static int put(tm_pt_encoder *e, uint32_t tid, const struct pt_packet *p, unsigned kind, int cause)
{
    if (e->failed)
        return e->failed;
    pt_thr *t = &e->t[tid];
    pt_enc_sync_set(e->enc, 0);
    int n = pt_enc_next(e->enc, p);
    if (n <= 0) {
        char m[128];
        snprintf(m, sizeof m, "libipt's encoder: %s", pt_errstr(pt_errcode(n)));
        return fail(e, TM_ERR_STATE, m);
    }
    if (t->nout + (size_t)n > t->outcap && TM_GROW(t->out, t->outcap, t->nout + (size_t)n + OUT_FLUSH) != TM_OK)
        return fail(e, TM_ERR_NOMEM, "out of memory");
    memcpy(t->out + t->nout, e->scratch, (size_t)n);
    t->nout += (size_t)n;
    t->bytes += (uint64_t)n;
    t->since_psb += (uint64_t)n;
    e->st.packets[kind]++;
    e->st.bytes[kind] += (uint64_t)n;
    e->st.total_bytes += (uint64_t)n;
    if (cause >= 0)
        e->st.cause_bits[cause] += 8.0 * n;
    if (t->nout >= OUT_FLUSH)
        return flush_out(e, tid);
    return TM_OK;
}

static int put_timing(tm_pt_encoder *e, uint32_t tid)
{
    pt_thr *t = &e->t[tid];
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    if (e->o.timing & TM_PT_MTC) {
        uint64_t per = t->cycle >> e->o.mtc_shift;
        if (!t->mtc_have || per != t->mtc_last) {
            t->mtc_have = 1;
            t->mtc_last = per;
            p.type = ppt_mtc;
            p.payload.mtc.ctc = (uint8_t)per;
            int rc = put(e, tid, &p, TM_PT_K_MTC, TM_PT_C_TIMING);
            if (rc)
                return rc;
        }
    }
    if (e->o.timing & TM_PT_CYC) {
        if (!t->cyc_have || t->cycle != t->cyc_last) {
            uint64_t d = t->cyc_have ? t->cycle - t->cyc_last : 0;
            t->cyc_have = 1;
            t->cyc_last = t->cycle;
            if (d) {
                p.type = ppt_cyc;
                p.payload.cyc.value = d;
                return put(e, tid, &p, TM_PT_K_CYC, TM_PT_C_TIMING);
            }
        }
    }
    return TM_OK;
}

static int flush_tnt(tm_pt_encoder *e, uint32_t tid)
{
    pt_thr *t = &e->t[tid];
    if (!t->ntnt)
        return TM_OK;
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    unsigned kind = t->ntnt <= 6 ? TM_PT_K_TNT8 : TM_PT_K_TNT64;
    p.type = kind == TM_PT_K_TNT8 ? ppt_tnt_8 : ppt_tnt_64;
    p.payload.tnt.bit_size = (uint8_t)t->ntnt;
    p.payload.tnt.payload = t->tnt;
    uint64_t before = e->st.bytes[kind];
    int rc = put(e, tid, &p, kind, -1);
    if (rc)
        return rc;
    double bits = 8.0 * (double)(e->st.bytes[kind] - before);
    e->st.cause_bits[TM_PT_C_RETCOMP] += bits * t->tnt_ret / t->ntnt;
    e->st.cause_bits[TM_PT_C_COND] += bits * (t->ntnt - t->tnt_ret) / t->ntnt;
    t->ntnt = t->tnt_ret = 0;
    t->tnt = 0;
    return TM_OK;
}

static int add_tnt(tm_pt_encoder *e, uint32_t tid, int taken, int ret)
{
    pt_thr *t = &e->t[tid];
    if (!t->ntnt && (e->o.timing & (TM_PT_CYC | TM_PT_MTC))) {
        /* A TNT packet's timing is its first branch's (SDM "Cycle-Accurate
         * Mode": the CYC goes before the packet, in the cycle it starts). */
        int rc = put_timing(e, tid);
        if (rc)
            return rc;
    }
    t->tnt = (t->tnt << 1) | (taken ? 1u : 0u);
    t->ntnt++;
    if (ret)
        t->tnt_ret++;
    if (t->ntnt == (e->o.tnt_long ? 47u : 6u))
        return flush_tnt(e, tid);
    return TM_OK;
}

/* The IP compression libipt's last-IP tracking decodes to IP with the
 * fewest bytes. */
static enum pt_ip_compression ipc_for(const pt_thr *t, uint64_t ip)
{
    uint64_t sx = (uint64_t)((int64_t)(ip << 16) >> 16);
    if (t->have_ip) {
        if ((ip >> 16) == (t->last_ip >> 16))
            return pt_ipc_update_16;
        if ((ip >> 32) == (t->last_ip >> 32))
            return pt_ipc_update_32;
        if (sx == ip)
            return pt_ipc_sext_48;
        if ((ip >> 48) == (t->last_ip >> 48))
            return pt_ipc_update_48;
        return pt_ipc_full;
    }
    return sx == ip ? pt_ipc_sext_48 : pt_ipc_full;
}

/* An IP packet (TIP, TIP.PGE, TIP.PGD or FUP) with IP, or without one
 * (SUPPRESS), as it is. */
static int ip_packet(tm_pt_encoder *e, uint32_t tid, enum pt_packet_type type, unsigned kind, uint64_t ip,
                     int suppress, int cause)
{
    pt_thr *t = &e->t[tid];
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = type;
    if (suppress) {
        p.payload.ip.ipc = pt_ipc_suppressed;
    } else {
        p.payload.ip.ipc = ipc_for(t, ip);
        p.payload.ip.ip = ip;
        t->last_ip = ip;
        t->have_ip = 1;
    }
    return put(e, tid, &p, kind, cause);
}

/* What goes before a packet that is not TNT: the pending TNT bits, then
 * the timing packets. */
static int before(tm_pt_encoder *e, uint32_t tid)
{
    int rc = flush_tnt(e, tid);
    if (!rc && (e->o.timing & (TM_PT_CYC | TM_PT_MTC)))
        rc = put_timing(e, tid);
    return rc;
}

static int put_ip(tm_pt_encoder *e, uint32_t tid, enum pt_packet_type type, unsigned kind, uint64_t ip, int suppress,
                  int cause)
{
    int rc = before(e, tid);
    return rc ? rc : ip_packet(e, tid, type, kind, ip, suppress, cause);
}

static int put_mode_exec(tm_pt_encoder *e, uint32_t tid, int cause)
{
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = ppt_mode;
    p.payload.mode.leaf = pt_mol_exec;
    p.payload.mode.bits.exec = pt_set_exec_mode(ptem_64bit);
    return put(e, tid, &p, TM_PT_K_MODE_EXEC, cause);
}

/* PSB+: PSB, TSC, MODE.Exec, FUP (tracing enabled: the next instruction),
 * PSBEND.  Clears the last IP and the call stack. */
static int put_psb(tm_pt_encoder *e, uint32_t tid, int cause)
{
    pt_thr *t = &e->t[tid];
    int rc = flush_tnt(e, tid);
    if (rc)
        return rc;
    struct pt_packet p;
    memset(&p, 0, sizeof p);
    p.type = ppt_psb;
    t->since_psb = 0;
    rc = put(e, tid, &p, TM_PT_K_PSB, cause);
    t->have_ip = 0;
    t->last_ip = 0;
    t->top = t->bottom = 0;
    e->st.psb++;
    if (cause == TM_PT_C_SYNC)
        e->st.psb_periodic++;
    if (!rc && (e->o.timing & TM_PT_TSC)) {
        p.type = ppt_tsc;
        p.payload.tsc.tsc = t->cycle;
        rc = put(e, tid, &p, TM_PT_K_TSC, TM_PT_C_TIMING);
    }
    if (!rc && t->enabled) {
        rc = put_mode_exec(e, tid, cause);
        if (!rc)
            rc = ip_packet(e, tid, ppt_fup, TM_PT_K_FUP, t->next_ip, 0, cause);
    }
    if (!rc) {
        memset(&p, 0, sizeof p);
        p.type = ppt_psbend;
        rc = put(e, tid, &p, TM_PT_K_PSBEND, cause);
    }
    t->since_psb = 0;
    return rc;
}

/* Tracing (re)starts at IP: MODE.Exec, TIP.PGE. */
static int enable(tm_pt_encoder *e, uint32_t tid, uint64_t ip, int cause)
{
    pt_thr *t = &e->t[tid];
    int rc = before(e, tid);
    if (!rc)
        rc = put_mode_exec(e, tid, cause);
    if (!rc)
        rc = ip_packet(e, tid, ppt_tip_pge, TM_PT_K_TIP_PGE, ip, 0, cause);
    t->enabled = 1;
    t->next_ip = ip;
    return rc;
}

/* Tracing stops after a far transfer (TIP.PGD without IP) or, ASYNC, before
 * the instruction at the thread's next IP (FUP + TIP.PGD). */
static int disable(tm_pt_encoder *e, uint32_t tid, int async, int cause)
{
    pt_thr *t = &e->t[tid];
    int rc = before(e, tid);
    if (!rc && async)
        rc = ip_packet(e, tid, ppt_fup, TM_PT_K_FUP, t->next_ip, 0, cause);
    if (!rc)
        rc = ip_packet(e, tid, ppt_tip_pgd, TM_PT_K_TIP_PGD, 0, 1, cause);
    t->enabled = 0;
    return rc;
}

static void push(pt_thr *t, uint64_t ip)
{
    t->stack[t->top] = ip;
    t->top = t->top == RETSTACK ? 0 : t->top + 1;
    if (t->top == t->bottom)
        t->bottom = t->bottom == RETSTACK ? 0 : t->bottom + 1;
}

static int end_thread(tm_pt_encoder *e, uint32_t tid)
{
    pt_thr *t = &e->t[tid];
    int rc = TM_OK;
    if (t->live && t->enabled)
        rc = disable(e, tid, 1, TM_PT_C_EDGE);
    if (!rc)
        rc = flush_tnt(e, tid);
    t->live = 0;
    t->enabled = 0;
    if (!rc)
        rc = flush_out(e, tid);
    return rc;
}

int tm_pt_encoder_put(tm_pt_encoder *e, const tmc_record *r, char *err, size_t errlen)
{
    e->err = err;
    e->errlen = errlen;
    if (e->failed)
        return e->failed;
    if (r->type == TMC_MEM)
        e->st.mem++;
    if (r->type == TMC_MODULE || r->type == TMC_MEM)
        return TM_OK;
    if (r->type == TMC_END || r->type == TMC_ENDING)
        return tm_pt_encoder_finish(e, err, errlen);
    if (r->tid >= e->threads) {
        char m[80];
        snprintf(m, sizeof m, "thread %" PRIu32 " is out of range", r->tid);
        return fail(e, TM_ERR_FORMAT, m);
    }
    uint32_t tid = r->tid;
    pt_thr *t = &e->t[tid];
    t->cycle = r->cycle;
    if (r->cycle + 1 > e->st.cycles)
        e->st.cycles = r->cycle + 1;
    int rc = TM_OK;
    switch (r->type) {
    case TMC_START:
        if (!t->bytes)
            e->st.threads++;
        t->live = 1;
        t->enabled = 0;
        rc = put_psb(e, tid, TM_PT_C_EDGE);
        if (!rc)
            rc = enable(e, tid, r->pc, TM_PT_C_EDGE);
        return rc;
    case TMC_EXIT:
        return end_thread(e, tid);
    default:
        break;
    }
    if (!t->live) {
        char m[80];
        snprintf(m, sizeof m, "thread %" PRIu32 " runs before its START", tid);
        return fail(e, TM_ERR_FORMAT, m);
    }
    /* The record's first instruction (EXC: the one interrupted). */
    uint64_t pc = r->pc;
    if (t->enabled && t->since_psb >= e->o.psb_period) {
        t->next_ip = pc;
        rc = put_psb(e, tid, TM_PT_C_SYNC);
        if (rc)
            return rc;
    }
    if (r->type == TMC_EXC) {
        e->st.exceptions++;
        if (t->enabled) {
            t->next_ip = pc;
            rc = disable(e, tid, 1, TM_PT_C_EXC);
        }
        if (!rc)
            rc = enable(e, tid, r->target, TM_PT_C_EXC);
        return rc;
    }
    if (!t->enabled) {
        rc = enable(e, tid, pc, TM_PT_C_FAR);
        if (rc)
            return rc;
    }
    if (r->type == TMC_RUN) {
        e->st.instructions += r->count;
        t->next_ip = r->pc + r->bytes;
        if (!e->o.code)
            return TM_OK;
        tm_runscan_run f;
        if ((rc = tm_runscan_get(e->scan, r, &f, e->err, e->errlen)) != TM_OK)
            return e->failed = rc; /* the first error: e->failed was 0 */
        for (uint32_t i = 0; i < f.n && !rc; i++) {
            const tm_runscan_hit *x = &f.hit[i];
            e->st.far++;
            rc = disable(e, tid, 0, TM_PT_C_FAR);
            if (!rc && x->k + 1 < r->count)
                rc = enable(e, tid, x->next, TM_PT_C_FAR);
        }
        t->next_ip = r->pc + r->bytes;
        return rc;
    }
    if (r->type != TMC_BRANCH)
        return TM_OK;
    e->st.instructions++;
    uint64_t fall = r->pc + r->len;
    t->next_ip = r->taken ? r->target : fall;
    switch (r->bclass) {
    case TMC_COND:
        e->st.cond++;
        return add_tnt(e, tid, r->taken, 0);
    case TMC_JUMP:
        return TM_OK;
    case TMC_CALL:
        if (r->target != fall)
            push(t, fall);
        return TM_OK;
    case TMC_ICALL:
        push(t, fall);
        e->st.indirect++;
        return put_ip(e, tid, ppt_tip, TM_PT_K_TIP, r->target, 0, TM_PT_C_IND);
    case TMC_IJUMP:
        e->st.indirect++;
        return put_ip(e, tid, ppt_tip, TM_PT_K_TIP, r->target, 0, TM_PT_C_IND);
    case TMC_RET:
        e->st.rets++;
        if (!e->o.no_retcomp && t->top != t->bottom) {
            unsigned top = t->top ? t->top - 1 : RETSTACK;
            if (t->stack[top] == r->target) {
                t->top = top;
                e->st.rets_compressed++;
                return add_tnt(e, tid, 1, 1);
            }
        }
        return put_ip(e, tid, ppt_tip, TM_PT_K_TIP, r->target, 0, TM_PT_C_RET);
    default:
        return TM_OK;
    }
}

int tm_pt_encoder_finish(tm_pt_encoder *e, char *err, size_t errlen)
{
    e->err = err;
    e->errlen = errlen;
    int rc = e->failed;
    for (uint32_t i = 0; i < e->threads && !rc; i++)
        rc = end_thread(e, i);
    return rc;
}
