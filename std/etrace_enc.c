/* tm — RISC-V E-Trace encoder: the te_inst packets each hart's encoder
 * (branch trace, filtering to U-mode) sends for the execution a commit
 * stream describes (include/tm/etrace.h, docs/standards.md §4).
 *
 * The spec's reference algorithm ("Reference Compressed Branch Trace
 * Algorithm") is applied instruction by instruction; only the
 * instructions that can change the encoder's state are looked at: the
 * first of a run (it may be the first traced one, or the target of an
 * uninferable discontinuity), its last (the last before a trap), its
 * system calls (those two from the run scanner the standards share,
 * tm/runscan.h), and every control transfer.  The 3-stage pipeline's look at
 * the next instruction is a packet kept back (the target of an updiscon)
 * until the next instruction or event says whether a format 3 follows
 * (the updiscon bit).
 *
 *   - first traced instruction (thread start, return from a system call):
 *     format 3 subformat 0 (start); after a signal: format 3 subformat 1
 *     (trap, thaddr 1, interrupt: the handler's first instruction);
 *   - conditional branches: the branch map (format 1 without address when
 *     31 are pending), or with branch prediction the count of correctly
 *     predicted ones (format 0 subformat 0) once 31 in a row were;
 *   - the instruction after an uninferable discontinuity (indirect jumps
 *     and calls; returns unless implicit): its address in format 0/1/2
 *     (differential), or its jump target cache index (format 0 subformat 1);
 *   - leaving U-mode (ecall, a signal, the thread's end): the last
 *     instruction's address (format 0/1/2) unless a packet reported it,
 *     then a support packet with qual_status ended_rep or ended_ntr;
 *   - a thread's start: a support packet announcing the options;
 *   - the resync timer (bytes sent since the last synchronisation): the
 *     last instruction's address (format 0/1/2) if no packet reported it,
 *     then format 3 subformat 0 at the next instruction. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/etrace.h"
#include "tm/runscan.h"
#include "tm/rvop.h"
#include "tm/status.h"

#define OUT_FLUSH 65536u
#define ADDR_MASK ((1ull << TM_ET_IADDR_BITS) - 1)

/* The end of a decoder's walk: an address packet's content. */
typedef struct walkend {
    uint64_t addr;
    unsigned nb;
    uint32_t map;
    uint64_t pbc;
    int bfail;          /* count mode: the branch at addr failed its prediction */
    int irreport;
    unsigned irdepth;
    int target;         /* addr follows an uninferable discontinuity */
} walkend;

typedef struct et_hart {
    int live, tracing;
    unsigned reentry;   /* TM_ET_F3_START or TM_ET_F3_TRAP */
    uint64_t last_addr; /* differential addresses are relative to it */
    unsigned nb;        /* branch map */
    uint32_t map;
    int allok;          /* every branch of the map predicted correctly */
    uint64_t pbc;       /* >= 31: counting correctly predicted branches */
    int pend_ud, pend_irfail;
    unsigned pend_irdepth;
    int have_def;       /* the packet for the target of an updiscon, kept back */
    walkend def;
    int last_rep;       /* the last instruction ends the decoder's walk already */
    uint64_t last_pc;   /* the last instruction retired */
    uint64_t irmask;    /* depths of implicit returns since the walk began */
    uint64_t since_sync; /* bytes sent since the last synchronisation */
    tm_et_pred pr;
    uint8_t *out;
    size_t nout, cap;
    uint64_t bytes;
} et_hart;

struct tm_et_encoder {
    tm_et_opts o;
    tm_et_cfg cfg;
    uint32_t threads;
    et_hart *h;
    tm_et_stats st;
    int failed;
    tm_runscan *scan;   /* each run's last instruction and ecalls (o.code) */
    char *err;
    size_t errlen;
};

/* tm_runscan's step: the length of the instruction at P; ECALLs are wanted. */
static int ecall_step(void *arg, const uint8_t *p, size_t avail, uint64_t addr, unsigned *len)
{
    (void)arg;
    unsigned long long t = 0;
    *len = 0;
    int kind = tm_rv_op(p, avail > 4 ? 4 : (unsigned)avail, addr, len, &t);
    return *len ? kind == TM_RV_SYSCALL : -1;
}

/* The encoder's first error (RC, about hart TID) into the caller's buffer;
 * the encoder is unusable after it. */
static int fail(tm_et_encoder *e, int rc, uint32_t tid, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(tm_et_encoder *e, int rc, uint32_t tid, const char *fmt, ...)
{
    if (!e->failed) {
        e->failed = rc;
        char m[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m, sizeof m, fmt, ap);
        va_end(ap);
        tm_errf(rc, e->err, e->errlen, "hart %" PRIu32 ": %s", tid, m);
    }
    return e->failed;
}

int tm_et_encoder_new(const tm_et_opts *o, uint32_t threads, tm_et_encoder **out, char *err, size_t errlen)
{
    *out = NULL;
    if (o->bp_log2 > 20 || o->jtc_log2 > 16)
        return tm_errf(TM_ERR_ARG, err, errlen, "branch predictor 2^%u or jump target cache 2^%u entries out of "
                       "range (2^1 .. 2^20, 2^1 .. 2^16)", o->bp_log2, o->jtc_log2);
    if (!o->write || !threads || threads > TMC_MAX_THREADS)
        return tm_errf(TM_ERR_ARG, err, errlen, "no output, or %" PRIu32 " threads", threads);
    tm_et_encoder *e = calloc(1, sizeof *e);
    if (!e || !(e->h = calloc(threads, sizeof *e->h))) {
        free(e);
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    }
    e->o = *o;
    if (!e->o.resync)
        e->o.resync = 4096;
    e->cfg.ir = o->implicit_return != 0;
    e->cfg.bp_log2 = o->bp_log2;
    e->cfg.jtc_log2 = o->jtc_log2;
    e->threads = threads;
    for (uint32_t i = 0; i < threads; i++)
        if (tm_et_pred_init(&e->h[i].pr, e->cfg.ir, o->bp_log2, o->jtc_log2) != TM_OK) {
            e->threads = i;
            tm_et_encoder_free(e);
            return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
        }
    int rc = o->code ? tm_runscan_new(o->code, o->code_arg, ecall_step, NULL, "hart", &e->scan, err, errlen) : TM_OK;
    if (rc != TM_OK) {
        tm_et_encoder_free(e);
        return rc;
    }
    *out = e;
    return TM_OK;
}

void tm_et_encoder_free(tm_et_encoder *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->threads; i++) {
        free(e->h[i].out);
        tm_et_pred_free(&e->h[i].pr);
    }
    free(e->h);
    tm_runscan_free(e->scan);
    free(e);
}

const tm_et_stats *tm_et_encoder_stats(const tm_et_encoder *e)
{
    return &e->st;
}

uint64_t tm_et_encoder_thread_bytes(const tm_et_encoder *e, uint32_t tid)
{
    return tid < e->threads ? e->h[tid].bytes : 0;
}

static int flush_out(tm_et_encoder *e, uint32_t tid)
{
    et_hart *h = &e->h[tid];
    if (h->nout && e->o.write(e->o.write_arg, tid, h->out, h->nout))
        return fail(e, TM_ERR_IO, tid, "cannot write the E-Trace output");
    h->nout = 0;
    return TM_OK;
}

static int emit(tm_et_encoder *e, uint32_t tid, const tm_et_packet *p)
{
    et_hart *h = &e->h[tid];
    uint8_t b[1 + TM_ET_MAX_PAYLOAD];
    size_t n = tm_et_pack(&e->cfg, p, b, sizeof b, NULL);
    if (!n)
        return fail(e, TM_ERR_STATE, tid, "a packet does not fit the encapsulation (address field 0x%" PRIx64 ")",
                    p->address);
    if (h->nout + n > h->cap) {
        size_t c = h->cap ? h->cap * 2 : OUT_FLUSH + 64;
        uint8_t *q = realloc(h->out, c);
        if (!q)
            return fail(e, TM_ERR_NOMEM, tid, "out of memory");
        h->out = q;
        h->cap = c;
    }
    memcpy(h->out + h->nout, b, n);
    h->nout += n;
    h->bytes += n;
    h->since_sync += n;
    e->st.total_bytes += n;
    e->st.packets[p->kind]++;
    e->st.bytes[p->kind] += n;
    if (h->nout >= OUT_FLUSH)
        return flush_out(e, tid);
    return TM_OK;
}

static void walk_reset(et_hart *h)
{
    h->nb = 0;
    h->map = 0;
    h->allok = 1;
    h->pbc = 0;
    h->irmask = 0;
}

static unsigned ioptions(const tm_et_encoder *e)
{
    return (e->cfg.ir ? TM_ET_IOPT_IR : 0) | (e->cfg.bp_log2 ? TM_ET_IOPT_BP : 0) |
           (e->cfg.jtc_log2 ? TM_ET_IOPT_JTC : 0);
}

static int support(tm_et_encoder *e, uint32_t tid, unsigned qual)
{
    tm_et_packet p;
    memset(&p, 0, sizeof p);
    p.kind = TM_ET_F3_SUPPORT;
    p.ienable = 1;
    p.qual_status = qual;
    p.ioptions = ioptions(e);
    return emit(e, tid, &p);
}

/* The walk's end W as a packet (U: a format 3 follows): format 0
 * subformat 0 in count mode; else the jump target cache's index if the
 * target is there and the packet is not longer; else format 1 or 2. */
static int emit_walkend(tm_et_encoder *e, uint32_t tid, const walkend *w, int u)
{
    et_hart *h = &e->h[tid];
    tm_et_packet p;
    memset(&p, 0, sizeof p);
    p.address = ((w->addr - h->last_addr) >> 1) & ADDR_MASK;
    p.updiscon = (unsigned)u;
    p.irreport = (unsigned)w->irreport;
    p.irdepth = w->irdepth;
    if (w->target)
        e->st.updiscons++;
    if (w->pbc >= 31) {
        if (w->pbc - 31 >= 0xFFFFFFFFull)
            return fail(e, TM_ERR_STATE, tid, "2^32 correctly predicted branches in a row (at 0x%" PRIx64 ")",
                        w->addr);
        p.kind = TM_ET_F0_BC;
        p.branch_count = (uint32_t)(w->pbc - 31);
        p.branch_fmt = w->bfail ? 3 : 2;
    } else {
        p.kind = w->nb ? TM_ET_F1_ADDR : TM_ET_F2;
        p.branches = w->nb;
        p.branch_map = w->map;
    }
    if (w->target && p.kind != TM_ET_F0_BC && tm_et_jtc_hit(&h->pr, w->addr) && !u) {
        tm_et_packet j = p;
        j.kind = TM_ET_F0_JTC;
        j.index = tm_et_jtc_index(&h->pr, w->addr);
        uint8_t b1[40], b2[40];
        if (tm_et_pack(&e->cfg, &j, b1, sizeof b1, NULL) <= tm_et_pack(&e->cfg, &p, b2, sizeof b2, NULL)) {
            p = j;
            e->st.jtc_hits++;
        }
    } else if (w->target) {
        tm_et_jtc_insert(&h->pr, w->addr);
    }
    h->last_addr = w->addr;
    return emit(e, tid, &p);
}

static int flush_def(tm_et_encoder *e, uint32_t tid, int u)
{
    et_hart *h = &e->h[tid];
    if (!h->have_def)
        return TM_OK;
    h->have_def = 0;
    return emit_walkend(e, tid, &h->def, u);
}

/* Tracing stops after the last instruction (the next is not qualified). */
static int stop(tm_et_encoder *e, uint32_t tid, int with_support)
{
    et_hart *h = &e->h[tid];
    if (!h->tracing)
        return TM_OK;
    unsigned qual = TM_ET_QUAL_ENDED_NTR;
    int rc = TM_OK;
    if (h->have_def) {
        rc = flush_def(e, tid, 1);
    } else if (!h->last_rep) {
        walkend w = {h->last_pc, h->nb, h->map, h->pbc, 0, 0, 0, 0};
        if (h->pr.ir && h->pr.rs_n) {
            w.irreport = 1;
            w.irdepth = h->pr.rs_n;
        }
        qual = TM_ET_QUAL_ENDED_REP;
        rc = emit_walkend(e, tid, &w, 0);
    }
    walk_reset(h);
    h->tracing = 0;
    h->pend_ud = 0;
    h->pend_irfail = 0;
    h->last_rep = 0;
    if (rc == TM_OK && with_support)
        rc = support(e, tid, qual);
    return rc;
}

/* A conditional branch that does not end a walk. */
static int branch(tm_et_encoder *e, uint32_t tid, uint64_t pc, int taken)
{
    et_hart *h = &e->h[tid];
    int ok = e->cfg.bp_log2 && tm_et_bp_predict(&h->pr, pc) == taken;
    e->st.predicted += (uint64_t)ok;
    tm_et_bp_update(&h->pr, pc, taken);
    if (h->pbc >= 31) {
        if (ok) {
            h->pbc++;
            return TM_OK;
        }
        tm_et_packet p;
        memset(&p, 0, sizeof p);
        p.kind = TM_ET_F0_BC;
        if (h->pbc - 31 >= 0xFFFFFFFFull)
            return fail(e, TM_ERR_STATE, tid, "2^32 correctly predicted branches in a row (at 0x%" PRIx64 ")", pc);
        p.branch_count = (uint32_t)(h->pbc - 31);
        walk_reset(h);
        h->last_rep = 1;
        return emit(e, tid, &p);
    }
    h->map |= (uint32_t)(!taken) << h->nb;
    h->nb++;
    h->allok &= ok;
    if (h->nb < 31)
        return TM_OK;
    if (e->cfg.bp_log2 && h->allok) {
        uint64_t m = h->irmask;
        walk_reset(h);
        h->irmask = m; /* the walk goes on */
        h->pbc = 31;
        return TM_OK;
    }
    tm_et_packet p;
    memset(&p, 0, sizeof p);
    p.kind = TM_ET_F1_FULL;
    p.branch_map = h->map;
    walk_reset(h);
    h->last_rep = 1;
    return emit(e, tid, &p);
}

enum { K_OTHER = 0, K_COND, K_JUMP, K_CALL, K_IJUMP, K_ICALL, K_RET };

/* Instruction PC retires (kind K; a branch's outcome and target, length LEN). */
static int retire(tm_et_encoder *e, uint32_t tid, uint64_t pc, int k, int taken, uint64_t target, unsigned len)
{
    et_hart *h = &e->h[tid];
    int rc = TM_OK;
    if (k == K_COND)
        e->st.branches++;
    if (!h->tracing) {
        tm_et_packet p;
        memset(&p, 0, sizeof p);
        p.kind = h->reentry;
        p.branch = k == K_COND && taken ? 0 : 1;
        p.address = pc >> 1;
        if (p.kind == TM_ET_F3_TRAP) {
            p.thaddr = 1;
            p.interrupt = 1; /* the signal: asynchronous to the user-mode flow */
        }
        tm_et_pred_reset(&h->pr);
        walk_reset(h);
        h->have_def = 0;
        h->pend_ud = 0;
        h->pend_irfail = 0;
        if (k == K_COND) {
            e->st.predicted += (uint64_t)(e->cfg.bp_log2 && tm_et_bp_predict(&h->pr, pc) == taken);
            tm_et_bp_update(&h->pr, pc, taken);
        }
        h->last_addr = pc;
        h->tracing = 1;
        h->last_rep = 1;
        h->since_sync = 0;
        rc = emit(e, tid, &p);
    } else {
        if (h->have_def && (rc = flush_def(e, tid, 0)) != TM_OK)
            return rc;
        if (h->pend_ud) {
            walkend *w = &h->def;
            if (k == K_COND) {
                int ok = e->cfg.bp_log2 && tm_et_bp_predict(&h->pr, pc) == taken;
                e->st.predicted += (uint64_t)ok;
                tm_et_bp_update(&h->pr, pc, taken);
                if (h->pbc >= 31) {
                    h->pbc += (uint64_t)ok;
                    w->bfail = !ok;
                } else {
                    h->map |= (uint32_t)(!taken) << h->nb;
                    h->nb++;
                    w->bfail = 0;
                }
            } else {
                w->bfail = 0;
            }
            w->addr = pc;
            w->nb = h->nb;
            w->map = h->map;
            w->pbc = h->pbc;
            w->irreport = h->pend_irfail;
            w->irdepth = h->pend_irdepth;
            w->target = 1;
            h->have_def = 1;
            walk_reset(h);
            h->pend_ud = 0;
            h->pend_irfail = 0;
            h->last_rep = 1;
        } else {
            h->last_rep = 0;
            if (k == K_COND)
                rc = branch(e, tid, pc, taken);
        }
    }
    h->last_pc = pc;
    switch (k) {
    case K_CALL:
        if (h->pr.ir)
            tm_et_rs_push(&h->pr, pc + len);
        break;
    case K_ICALL:
        if (h->pr.ir)
            tm_et_rs_push(&h->pr, pc + len);
        h->pend_ud = 1;
        break;
    case K_IJUMP:
        h->pend_ud = 1;
        break;
    case K_RET:
        if (h->pr.ir && h->pr.rs_n) {
            unsigned depth = h->pr.rs_n;
            uint64_t ra = 0;
            tm_et_rs_pop(&h->pr, &ra);
            if (ra == target) {
                e->st.implicit_returns++;
                h->irmask |= 1ull << depth;
                break;
            }
            e->st.failed_returns++;
            h->pend_irfail = 1;
            h->pend_irdepth = depth;
        }
        h->pend_ud = 1;
        break;
    default:
        break;
    }
    return rc;
}

/* Before the first instruction of a record: the resync timer ends the walk
 * at the last instruction (whose address is known there) and the next
 * instruction gets a start packet. */
static int resync(tm_et_encoder *e, uint32_t tid)
{
    et_hart *h = &e->h[tid];
    if (!h->tracing || h->since_sync < e->o.resync)
        return TM_OK;
    int rc = stop(e, tid, 0);
    h->reentry = TM_ET_F3_START;
    e->st.resyncs++;
    return rc;
}

/* The run R: its last instruction and its system calls, from the code
 * (the run scanner's cache) or, without it, from its length. */
static int scan_run(tm_et_encoder *e, uint32_t tid, const tmc_record *r, tm_runscan_run *s)
{
    if (e->scan) {
        int rc = tm_runscan_get(e->scan, r, s, e->err, e->errlen);
        if (rc != TM_OK)
            e->failed = rc; /* the first error: e->failed was 0 */
        return rc;
    }
    s->hit = NULL;
    s->n = 0;
    if (r->count == 1)
        s->last = r->pc;
    else if (r->bytes == 4 * r->count || r->bytes == 2 * r->count)
        s->last = r->pc + r->bytes - r->bytes / r->count;
    else
        return fail(e, TM_ERR_ARG, tid, "a run at 0x%" PRIx64 " of instructions of different lengths needs the code",
                    r->pc);
    return TM_OK;
}

int tm_et_encoder_put(tm_et_encoder *e, const tmc_record *r, char *err, size_t errlen)
{
    if (e->failed)
        return e->failed;
    e->err = err;
    e->errlen = errlen;
    if (r->type == TMC_END || r->type == TMC_ENDING)
        return tm_et_encoder_finish(e, err, errlen);
    if (r->type == TMC_MODULE || r->type == TMC_MEM)
        return TM_OK;
    if (r->tid >= e->threads)
        return fail(e, TM_ERR_FORMAT, r->tid, "thread id out of range");
    if (r->cycle + 1 > e->st.cycles)
        e->st.cycles = r->cycle + 1;
    uint32_t tid = r->tid;
    et_hart *h = &e->h[tid];
    int rc = TM_OK;
    switch (r->type) {
    case TMC_START:
        if (!h->live) {
            h->live = 1;
            e->st.threads++;
        }
        h->tracing = 0;
        h->reentry = TM_ET_F3_START;
        rc = support(e, tid, TM_ET_QUAL_NO_CHANGE);
        break;
    case TMC_EXIT:
        rc = stop(e, tid, 1);
        break;
    case TMC_EXC:
        e->st.exceptions++;
        rc = stop(e, tid, 1);
        h->reentry = TM_ET_F3_TRAP;
        break;
    case TMC_BRANCH: {
        static const int km[TMC_NCLASSES] = {K_COND, K_JUMP, K_CALL, K_IJUMP, K_ICALL, K_RET};
        e->st.instructions++;
        if (r->bclass >= TMC_NCLASSES)
            return fail(e, TM_ERR_FORMAT, tid, "branch class out of range at 0x%" PRIx64, r->pc);
        if ((rc = resync(e, tid)) == TM_OK)
            rc = retire(e, tid, r->pc, km[r->bclass], r->taken, r->target, r->len);
        break;
    }
    case TMC_RUN: {
        e->st.instructions += r->count;
        tm_runscan_run s;
        if (scan_run(e, tid, r, &s) != TM_OK)
            return e->failed;
        uint64_t seg = r->pc, end = r->pc + r->bytes;
        rc = resync(e, tid);
        for (uint32_t i = 0; i < s.n && rc == TM_OK; i++) {
            uint64_t x = s.hit[i].at;
            if ((rc = retire(e, tid, seg, K_OTHER, 0, 0, 0)) != TM_OK)
                break;
            if (x != seg && (rc = retire(e, tid, x, K_OTHER, 0, 0, 0)) != TM_OK)
                break;
            e->st.syscalls++;
            rc = stop(e, tid, 1);
            h->reentry = TM_ET_F3_START;
            seg = s.hit[i].next;
        }
        if (rc == TM_OK && seg < end) {
            rc = retire(e, tid, seg, K_OTHER, 0, 0, 0);
            if (rc == TM_OK && s.last != seg)
                rc = retire(e, tid, s.last, K_OTHER, 0, 0, 0);
        }
        break;
    }
    default:
        break;
    }
    return rc;
}

int tm_et_encoder_finish(tm_et_encoder *e, char *err, size_t errlen)
{
    if (e->failed)
        return e->failed;
    e->err = err;
    e->errlen = errlen;
    for (uint32_t t = 0; t < e->threads; t++) {
        int rc = stop(e, t, 1);
        if (rc == TM_OK)
            rc = flush_out(e, t);
        if (rc != TM_OK)
            return rc;
    }
    return TM_OK;
}
