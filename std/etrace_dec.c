/* tm — RISC-V E-Trace decoder: the spec's decoder algorithm ("Decoder"
 * chapter: follow the program from the last reported address, taking
 * conditional branches from the branch map or the predictor, direct jumps
 * and implicit returns from the code, and the reported address at an
 * uninferable discontinuity or where the walk ends), over the recording's
 * code, compared with the commit stream instruction by instruction
 * (include/tm/etrace.h, docs/standards.md §4).
 *
 * Every loop is bounded by the stream: each step consumes a packet or
 * decodes one instruction the commit stream asks for. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/etrace.h"
#include "tm/rvop.h"
#include "tm/status.h"

typedef struct dh {
    const uint8_t *p;
    size_t n, off;
    const char *name;
    int have, live;
    tm_et_pred pr;
    uint64_t last_addr;
    int synced;
    uint64_t pc;
    int pc_known;
    /* the packet being followed */
    int active, has_addr, stopmode, at_target, jtc;
    tm_et_packet pk;
    size_t pk_off;
    uint64_t A;
    int cmode;
    uint32_t map;
    unsigned nbits, used;
    uint64_t npred;
    int fail_pending;
    uint64_t count;
} dh;

struct tm_et_verifier {
    tm_et_opts o;
    tm_et_cfg cfg;
    uint32_t threads;
    dh *h;
    uint64_t checked, nthreads;
    char msg[512];
};

int tm_et_verifier_new(const tm_et_opts *o, uint32_t threads, tm_et_verifier **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!threads || threads > TMC_MAX_THREADS || o->bp_log2 > 20 || o->jtc_log2 > 16)
        return tm_errf(TM_ERR_ARG, err, errlen, "%" PRIu32 " threads, or options out of range", threads);
    tm_et_verifier *v = calloc(1, sizeof *v);
    if (!v || !(v->h = calloc(threads, sizeof *v->h))) {
        free(v);
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    }
    v->o = *o;
    v->cfg.ir = o->implicit_return != 0;
    v->cfg.bp_log2 = o->bp_log2;
    v->cfg.jtc_log2 = o->jtc_log2;
    v->threads = threads;
    for (uint32_t i = 0; i < threads; i++)
        if (tm_et_pred_init(&v->h[i].pr, v->cfg.ir, o->bp_log2, o->jtc_log2) != TM_OK) {
            v->threads = i;
            tm_et_verifier_free(v);
            return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
        }
    *out = v;
    return TM_OK;
}

void tm_et_verifier_free(tm_et_verifier *v)
{
    if (!v)
        return;
    for (uint32_t i = 0; i < v->threads; i++)
        tm_et_pred_free(&v->h[i].pr);
    free(v->h);
    free(v);
}

void tm_et_verifier_set(tm_et_verifier *v, uint32_t tid, const uint8_t *p, size_t n, const char *name)
{
    if (tid >= v->threads)
        return;
    v->h[tid].p = p;
    v->h[tid].n = n;
    v->h[tid].name = name ? name : "stream";
    v->h[tid].have = 1;
}

uint64_t tm_et_verifier_checked(const tm_et_verifier *v)
{
    return v->checked;
}

uint64_t tm_et_verifier_threads(const tm_et_verifier *v)
{
    return v->nthreads;
}

/* A damaged stream: the message, TM_ERR_FORMAT. */
static int bad(tm_et_verifier *v, uint32_t tid, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bad(tm_et_verifier *v, uint32_t tid, size_t off, const char *fmt, ...)
{
    dh *d = &v->h[tid];
    char w[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w, sizeof w, fmt, ap);
    va_end(ap);
    snprintf(v->msg, sizeof v->msg, "hart %" PRIu32 ": %s: byte offset %zu: %s (after %" PRIu64 " instructions)",
             tid, d->name, off, w, d->count);
    return TM_ERR_FORMAT;
}

static int classify(tm_et_verifier *v, uint64_t pc, unsigned *len, uint64_t *target)
{
    size_t avail = 0;
    const uint8_t *c = v->o.code ? v->o.code(v->o.code_arg, pc, &avail) : NULL;
    unsigned long long t = 0;
    *len = 0;
    if (!c)
        return -1;
    int k = tm_rv_op(c, avail > 4 ? 4 : (unsigned)avail, pc, len, &t);
    *target = t;
    return *len ? k : -1;
}

static int budget_empty(const dh *d)
{
    return d->cmode ? d->npred == 0 && !d->fail_pending : d->used >= d->nbits;
}

/* Is the packet after the one at the current offset a format 3 (or the end)? */
static int next_is_f3(const tm_et_verifier *v, const dh *d)
{
    size_t off = d->off;
    for (int i = 0; i < 64 && off < d->n; i++) {
        tm_et_packet p;
        int r = tm_et_unpack(&v->cfg, d->p + off, d->n - off, &p);
        if (r == 0) {
            off++;
            continue;
        }
        return r > 0 && p.kind >= TM_ET_F3_START;
    }
    return off >= d->n;
}

/* The control flow after instruction PC of kind K: d->pc, or d->pc_known 0. */
static void flow(dh *d, uint64_t pc, int k, unsigned len, uint64_t target, int taken)
{
    uint64_t ra;
    d->pc_known = 1;
    switch (k) {
    case TM_RV_COND:
        d->pc = taken ? target : pc + len;
        break;
    case TM_RV_JUMP:
        d->pc = target;
        break;
    case TM_RV_CALL:
        if (d->pr.ir)
            tm_et_rs_push(&d->pr, pc + len);
        d->pc = target;
        break;
    case TM_RV_ICALL:
    case TM_RV_ICALL_RET: /* the commit stream's icall: a push */
        if (d->pr.ir)
            tm_et_rs_push(&d->pr, pc + len);
        d->pc_known = 0;
        break;
    case TM_RV_IJUMP:
        d->pc_known = 0;
        break;
    case TM_RV_RET:
        if (d->pr.ir && d->pr.rs_n) {
            unsigned depth = d->pr.rs_n;
            tm_et_rs_pop(&d->pr, &ra);
            if (d->active && !d->stopmode && d->pk.irreport && depth == d->pk.irdepth) {
                d->pk.irreport = 0; /* the return that failed: its target is the packet's */
                d->pc_known = 0;
            } else {
                d->pc = ra;
            }
        } else {
            d->pc_known = 0;
        }
        break;
    default:
        d->pc = pc + len;
        break;
    }
}

/* The next instruction of hart TID into *OUT (*LEN its length): 1, 0 at
 * the stream's end, or an error. */
static int dnext(tm_et_verifier *v, uint32_t tid, uint64_t *out, unsigned *olen)
{
    dh *d = &v->h[tid];
    for (;;) {
        if (!d->active) {
            while (d->off < d->n && d->p[d->off] == 0)
                d->off++; /* null packets */
            if (d->off >= d->n)
                return 0;
            size_t off = d->off;
            int r = tm_et_unpack(&v->cfg, d->p + off, d->n - off, &d->pk);
            if (r == -1)
                return bad(v, tid, off, "the packet runs past the end of the stream");
            if (r < 0)
                return bad(v, tid, off, "not a te_inst packet of this encoder (byte 0x%02x)", d->p[off]);
            d->off += (size_t)r;
            d->pk_off = off;
            tm_et_packet *p = &d->pk;
            if (p->kind == TM_ET_F3_SUPPORT) {
                unsigned want = (v->cfg.ir ? TM_ET_IOPT_IR : 0) | (v->cfg.bp_log2 ? TM_ET_IOPT_BP : 0) |
                                (v->cfg.jtc_log2 ? TM_ET_IOPT_JTC : 0);
                if (p->ioptions != want || !p->ienable || p->encoder_mode)
                    return bad(v, tid, off, "the support packet announces options 0x%x (not these)", p->ioptions);
                if (p->qual_status == TM_ET_QUAL_ENDED_REP || p->qual_status == TM_ET_QUAL_ENDED_NTR)
                    d->synced = 0;
                continue;
            }
            if (p->kind == TM_ET_F3_START || p->kind == TM_ET_F3_TRAP) {
                uint64_t a = p->address << 1, target;
                unsigned len;
                tm_et_pred_reset(&d->pr);
                d->last_addr = a;
                d->synced = 1;
                int k = classify(v, a, &len, &target);
                if (k < 0)
                    return bad(v, tid, off, "no code at the synchronisation address 0x%" PRIx64, a);
                int taken = k == TM_RV_COND && !p->branch;
                if (k == TM_RV_COND)
                    tm_et_bp_update(&d->pr, a, taken);
                flow(d, a, k, len, target, taken);
                d->count++;
                *out = a;
                *olen = len;
                return 1;
            }
            if (!d->synced)
                return bad(v, tid, off, "a te_inst packet before synchronisation");
            d->cmode = 0;
            d->nbits = d->used = 0;
            d->map = p->branch_map;
            d->npred = 0;
            d->fail_pending = 0;
            d->has_addr = 1;
            d->jtc = 0;
            switch (p->kind) {
            case TM_ET_F1_FULL:
                d->nbits = 31;
                d->has_addr = 0;
                break;
            case TM_ET_F1_ADDR:
            case TM_ET_F0_JTC:
                d->nbits = p->branches;
                break;
            case TM_ET_F0_BC:
                d->cmode = 1;
                d->npred = (uint64_t)p->branch_count + 31;
                d->fail_pending = p->branch_fmt == 0 || p->branch_fmt == 3;
                d->has_addr = p->branch_fmt != 0;
                break;
            default:
                break;
            }
            if (p->kind == TM_ET_F0_JTC) {
                d->A = tm_et_jtc_get(&d->pr, p->index);
                if (!d->A)
                    return bad(v, tid, off, "jump target cache entry %" PRIu32 " is empty", p->index);
                d->jtc = 1;
                d->last_addr = d->A;
            } else if (d->has_addr) {
                d->A = d->last_addr + ((uint64_t)tm_rv_sext(p->address, TM_ET_IADDR_BITS) << 1);
                d->last_addr = d->A;
            }
            d->stopmode = d->has_addr && !d->jtc && !p->updiscon && next_is_f3(v, d);
            d->at_target = 0;
            d->active = 1;
            if (!d->pc_known && !d->has_addr)
                return bad(v, tid, off, "an uninferable jump and a packet without address");
            continue;
        }
        if (!d->pc_known) {
            d->pc = d->A;
            d->pc_known = 1;
            d->at_target = 1;
            if (!d->jtc)
                tm_et_jtc_insert(&d->pr, d->A);
        }
        uint64_t pc = d->pc, target;
        unsigned len;
        int k = classify(v, pc, &len, &target);
        if (k < 0)
            return bad(v, tid, d->pk_off, "no code at 0x%" PRIx64, pc);
        int taken = 0;
        if (k == TM_RV_COND) {
            if (d->cmode) {
                int pred = tm_et_bp_predict(&d->pr, pc);
                if (d->npred) {
                    d->npred--;
                    taken = pred;
                } else if (d->fail_pending) {
                    d->fail_pending = 0;
                    taken = !pred;
                } else {
                    return bad(v, tid, d->pk_off, "no branch outcome left for the branch at 0x%" PRIx64, pc);
                }
            } else {
                if (d->used >= d->nbits)
                    return bad(v, tid, d->pk_off, "no branch outcome left for the branch at 0x%" PRIx64, pc);
                taken = !((d->map >> d->used) & 1u);
                d->used++;
            }
            tm_et_bp_update(&d->pr, pc, taken);
        }
        flow(d, pc, k, len, target, taken);
        d->count++;
        if (d->at_target) {
            if (!budget_empty(d))
                return bad(v, tid, d->pk_off, "branch outcomes left at the reported address 0x%" PRIx64, pc);
            d->active = 0;
        } else if (!d->has_addr) {
            if (budget_empty(d))
                d->active = 0;
        } else if (d->stopmode && pc == d->A && budget_empty(d) &&
                   (!d->pr.ir || d->pr.rs_n == (d->pk.irreport ? d->pk.irdepth : 0))) {
            d->active = 0;
        }
        *out = pc;
        *olen = len;
        return 1;
    }
}

static int mismatch(tm_et_verifier *v, uint32_t tid, uint64_t want, uint64_t got, int end)
{
    dh *d = &v->h[tid];
    if (end)
        snprintf(v->msg, sizeof v->msg,
                 "hart %" PRIu32 ": instruction %" PRIu64 " at 0x%" PRIx64 ": %s ends (byte offset %zu) before it",
                 tid, d->count + 1, want, d->name, d->off);
    else
        snprintf(v->msg, sizeof v->msg,
                 "hart %" PRIu32 ": instruction %" PRIu64 " at 0x%" PRIx64 ": the E-Trace decodes 0x%" PRIx64
                 " (%s, packet at byte offset %zu)",
                 tid, d->count, want, got, d->name, d->pk_off);
    return TM_ERR_MISMATCH;
}

static int expect(tm_et_verifier *v, uint32_t tid, uint64_t pc, unsigned *len)
{
    uint64_t got = 0;
    int r = dnext(v, tid, &got, len);
    if (r < 0)
        return r;
    if (r == 0)
        return mismatch(v, tid, pc, 0, 1);
    if (got != pc)
        return mismatch(v, tid, pc, got, 0);
    v->checked++;
    return TM_OK;
}

int tm_et_verifier_put(tm_et_verifier *v, const tmc_record *r, char *err, size_t errlen)
{
    if (r->type == TMC_MODULE || r->type == TMC_MEM || r->type == TMC_END || r->type == TMC_ENDING ||
        r->tid >= v->threads)
        return TM_OK;
    uint32_t tid = r->tid;
    dh *d = &v->h[tid];
    int rc = TM_OK;
    unsigned len = 0;
    v->msg[0] = 0;
    switch (r->type) {
    case TMC_START:
        if (!d->have) {
            snprintf(v->msg, sizeof v->msg, "hart %" PRIu32 ": no E-Trace stream for it", tid);
            rc = TM_ERR_MISMATCH;
        } else if (!d->live) {
            d->live = 1;
            v->nthreads++;
        }
        break;
    case TMC_BRANCH:
        rc = expect(v, tid, r->pc, &len);
        break;
    case TMC_RUN: {
        uint64_t a = r->pc;
        for (uint64_t i = 0; i < r->count && rc == TM_OK; i++) {
            rc = expect(v, tid, a, &len);
            a += len;
        }
        if (rc == TM_OK && a != r->pc + r->bytes) {
            snprintf(v->msg, sizeof v->msg, "hart %" PRIu32 ": the run at 0x%" PRIx64 " is not %" PRIu64
                     " bytes in the code", tid, r->pc, r->bytes);
            rc = TM_ERR_MISMATCH;
        }
        break;
    }
    default:
        break;
    }
    if (rc != TM_OK)
        tm_err_set(err, errlen, v->msg);
    return rc;
}

int tm_et_verifier_finish(tm_et_verifier *v, char *err, size_t errlen)
{
    for (uint32_t t = 0; t < v->threads; t++) {
        dh *d = &v->h[t];
        if (!d->have)
            continue;
        uint64_t got;
        unsigned len;
        int r = dnext(v, t, &got, &len);
        if (r < 0)
            return tm_errf(r, err, errlen, "%s", v->msg);
        if (r > 0)
            return tm_errf(TM_ERR_MISMATCH, err, errlen,
                           "hart %" PRIu32 ": %s has more instructions than the commit stream (0x%" PRIx64
                           ", packet at byte offset %zu)", t, d->name, got, d->pk_off);
    }
    return TM_OK;
}
