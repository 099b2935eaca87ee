/* tm — ETMv4 streams decoded by OpenCSD's full ETMv4 decoder over the
 * recording's ELF images, compared with the commit stream instruction by
 * instruction (tm/etm4.h, docs/standards.md §3.3).
 *
 * One OpenCSD decode tree per core (a single-source raw ETMv4 stream, no
 * formatter), memory read through a callback from tm_image (AArch64).  The
 * decoder pushes generic elements; each core's stream is fed a few bytes
 * at a time, only when the comparison needs that core's next instruction,
 * so memory stays bounded whatever the stream's length. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <opencsd/c_api/opencsd_c_api.h>
#include "tm/etm4.h"
#include "tm/grow.h"
#include "tm/image.h"
#include "tm/isa.h"
#include "tm/status.h"
#include "tm/tmc.h"

#define FEED 64u /* bytes fed at a time */

/* LeakSanitizer (the sanitizer builds; the runtime calls this if it is
 * there): OpenCSD 1.3.3's C API never frees the callback objects that
 * ocsd_dt_set_gen_elem_outfn and ocsd_dt_attach_packet_callback allocate
 * (32 bytes a decode tree). */
const char *__lsan_default_suppressions(void);
__attribute__((used)) const char *__lsan_default_suppressions(void)
{
    return "leak:ocsd_dt_set_gen_elem_outfn\nleak:ocsd_dt_attach_packet_callback\n";
}
/* ... without the table of suppressions used at exit (messages stay one line). */
const char *__lsan_default_options(void);
__attribute__((used)) const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}

struct tm_etm4_image {
    tm_image *im;
};

int tm_etm4_image_load(const char *modules, const char *vdso, int ignore_build_id, tm_etm4_image **out, char *err,
                       size_t errlen)
{
    *out = NULL;
    tm_etm4_image *p = calloc(1, sizeof *p);
    if (!p)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    tm_image_opts o = {modules, vdso, ignore_build_id, TM_ISA_AARCH64};
    int rc = tm_image_load(&o, &p->im, err, errlen);
    if (rc != TM_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return TM_OK;
}

const uint8_t *tm_etm4_image_code(void *arg, uint64_t addr, size_t *avail)
{
    tm_etm4_image *p = arg;
    return tm_image_code(p->im, addr, avail);
}

void tm_etm4_image_free(tm_etm4_image *p)
{
    if (!p)
        return;
    tm_image_free(p->im);
    free(p);
}

typedef struct codesrc {
    tm_etm4_code_fn code;
    void *arg;
} codesrc;

/* OpenCSD's memory accessor: up to REQ bytes of code at ADDR. */
static uint32_t mem_cb(const void *ctx, const ocsd_vaddr_t addr, const ocsd_mem_space_acc_t space, const uint32_t req,
                       uint8_t *buf)
{
    (void)space;
    size_t avail = 0;
    const codesrc *c = ctx;
    const uint8_t *p = c->code(c->arg, addr, &avail);
    if (!p)
        return 0;
    uint32_t n = avail < req ? (uint32_t)avail : req;
    memcpy(buf, p, n);
    return n;
}

typedef struct range {
    uint64_t st;        /* first instruction */
    uint64_t n;         /* instructions */
    uint64_t index;     /* packet offset */
    int last_type;      /* ocsd_instr_type of the last */
    int last_sub;
    int exec;           /* the last was executed (atom E) */
} range;

typedef struct dthr {
    const tm_etm4_buffer *b;
    dcd_tree_handle_t tree;
    dcd_tree_handle_t pkts; /* OpenCSD's packet processor alone: the packets' kinds, before the decoder sees them */
    size_t pos;
    int done;
    unsigned nosync;    /* NO_SYNC elements */
    range *q;           /* pending ranges, from qh */
    size_t qh, qn, qcap;
    range cur;          /* the range being read */
    uint64_t k;         /* instructions of cur read */
    uint64_t n;         /* instructions decoded */
    uint64_t elements;
    int bad;            /* the callback's error: TM_ERR_* */
    char msg[200];
    int seen, ended;
    unsigned stalls;    /* calls in a row that took no byte */
} dthr;

/* The packets the encoder writes (and the decoder's A-sync); any other kind
 * (speculation, data, events, a bad or reserved header) is refused before
 * the decoder sees it: OpenCSD 1.3.3 can crash on a Mispredict packet that
 * has no atom before it (mispredictAtom), which damage can make. */
static int known_packet(ocsd_etmv4_i_pkt_type k)
{
    switch (k) {
    case ETM4_PKT_I_ASYNC: case ETM4_PKT_I_TRACE_INFO: case ETM4_PKT_I_TIMESTAMP: case ETM4_PKT_I_TRACE_ON:
    case ETM4_PKT_I_EXCEPT: case ETM4_PKT_I_CCNT_F1: case ETM4_PKT_I_CCNT_F2: case ETM4_PKT_I_CCNT_F3:
    case ETM4_PKT_I_CTXT: case ETM4_PKT_I_ADDR_CTXT_L_64IS0: case ETM4_PKT_I_ADDR_CTXT_L_64IS1:
    case ETM4_PKT_I_ADDR_CTXT_L_32IS0: case ETM4_PKT_I_ADDR_CTXT_L_32IS1: case ETM4_PKT_I_ADDR_MATCH:
    case ETM4_PKT_I_ADDR_S_IS0: case ETM4_PKT_I_ADDR_S_IS1: case ETM4_PKT_I_ADDR_L_32IS0: case ETM4_PKT_I_ADDR_L_32IS1:
    case ETM4_PKT_I_ADDR_L_64IS0: case ETM4_PKT_I_ADDR_L_64IS1: case ETM4_PKT_I_ATOM_F1: case ETM4_PKT_I_ATOM_F2:
    case ETM4_PKT_I_ATOM_F3: case ETM4_PKT_I_ATOM_F4: case ETM4_PKT_I_ATOM_F5: case ETM4_PKT_I_ATOM_F6:
    case ETM4_PKT_I_NOTSYNC: case ETM4_PKT_I_INCOMPLETE_EOT:
        return 1;
    default:
        return 0;
    }
}

static const char *refused_name(ocsd_etmv4_i_pkt_type k)
{
    switch (k) {
    case ETM4_PKT_I_COMMIT: return "Commit";
    case ETM4_PKT_I_CANCEL_F1: case ETM4_PKT_I_CANCEL_F1_MISPRED: case ETM4_PKT_I_CANCEL_F2:
    case ETM4_PKT_I_CANCEL_F3: return "Cancel";
    case ETM4_PKT_I_MISPREDICT: return "Mispredict";
    case ETM4_PKT_I_EXCEPT_RTN: return "Exception Return";
    case ETM4_PKT_I_EVENT: return "Event";
    case ETM4_PKT_I_Q: return "Q";
    case ETM4_PKT_I_DISCARD: return "Discard";
    case ETM4_PKT_I_OVERFLOW: return "Overflow";
    case ETM4_PKT_I_BAD_SEQUENCE: return "a bad byte sequence";
    case ETM4_PKT_I_RESERVED: case ETM4_PKT_I_RESERVED_CFG: return "a reserved header";
    default: return k >= ETM4_PKT_I_BAD_SEQUENCE ? "a bad packet" : "data or conditional trace, or another";
    }
}

static ocsd_datapath_resp_t pkt_cb(const void *ctx, const ocsd_datapath_op_t op, const ocsd_trc_index_t idx,
                                   const void *pkt)
{
    dthr *t = (dthr *)(uintptr_t)ctx;
    if (op != OCSD_OP_DATA || !pkt)
        return OCSD_RESP_CONT;
    ocsd_etmv4_i_pkt_type k = ((const ocsd_etmv4_i_pkt *)pkt)->type;
    if (known_packet(k))
        return OCSD_RESP_CONT;
    if (!t->bad) {
        t->bad = TM_ERR_FORMAT;
        snprintf(t->msg, sizeof t->msg, "OpenCSD reads a packet tm etm4 never writes (%s) at packet offset 0x%"
                 PRIx64, refused_name(k), (uint64_t)idx);
    }
    return OCSD_RESP_FATAL_INVALID_DATA;
}

static ocsd_datapath_resp_t elem_cb(const void *ctx, const ocsd_trc_index_t idx, const uint8_t chan,
                                    const ocsd_generic_trace_elem *el)
{
    (void)chan;
    dthr *t = (dthr *)(uintptr_t)ctx;
    t->elements++;
    switch (el->elem_type) {
    case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
        if (el->isa != ocsd_isa_aarch64 && !t->bad) {
            t->bad = TM_ERR_MISMATCH;
            snprintf(t->msg, sizeof t->msg, "OpenCSD decodes instructions at 0x%" PRIx64 " as not A64, packet "
                     "offset 0x%" PRIx64, (uint64_t)el->st_addr, (uint64_t)idx);
            return OCSD_RESP_FATAL_INVALID_DATA;
        }
        if (t->qh + t->qn >= t->qcap) {
            if (t->qh) {
                memmove(t->q, t->q + t->qh, t->qn * sizeof *t->q);
                t->qh = 0;
            }
            if (t->qn + 1 > t->qcap && TM_GROW(t->q, t->qcap, t->qn + 1) != TM_OK) {
                t->bad = TM_ERR_NOMEM;
                snprintf(t->msg, sizeof t->msg, "out of memory");
                return OCSD_RESP_FATAL_SYS_ERR;
            }
        }
        t->q[t->qh + t->qn++] = (range){el->st_addr, el->num_instr_range, idx, (int)el->last_i_type,
                                        (int)el->last_i_subtype, (int)el->last_instr_exec};
        break;
    case OCSD_GEN_TRC_ELEM_NO_SYNC:
        /* the first is the stream's start; another: a bad packet made the
         * decoder drop everything up to the next A-sync */
        if (t->nosync++ && !t->bad) {
            t->bad = TM_ERR_FORMAT;
            snprintf(t->msg, sizeof t->msg, "OpenCSD finds a bad packet at packet offset 0x%" PRIx64
                     " and loses synchronization", (uint64_t)idx);
            return OCSD_RESP_FATAL_INVALID_DATA;
        }
        break;
    case OCSD_GEN_TRC_ELEM_ADDR_NACC:
        if (!t->bad) {
            t->bad = TM_ERR_MISMATCH;
            snprintf(t->msg, sizeof t->msg, "OpenCSD reaches 0x%" PRIx64 ", not code of the module map, packet "
                     "offset 0x%" PRIx64, (uint64_t)el->st_addr, (uint64_t)idx);
        }
        return OCSD_RESP_FATAL_INVALID_DATA;
    default:
        break;
    }
    return OCSD_RESP_CONT;
}

static void dthr_close(dthr *t)
{
    if (t->tree)
        ocsd_destroy_dcd_tree(t->tree);
    if (t->pkts)
        ocsd_destroy_dcd_tree(t->pkts);
    t->tree = t->pkts = NULL;
    free(t->q);
    t->q = NULL;
}

static int dthr_open(dthr *t, const tm_etm4_buffer *b, const codesrc *im, uint32_t configr, char *err,
                     size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->b = b;
    t->tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
    if (!t->tree)
        return tm_errf(TM_ERR_NOMEM, err, errlen, "%s: OpenCSD cannot make a decode tree", b->name);
    /* A Cortex-A ETMv4.0 with: TRCIDR0 = 0x28000EA1 (COMMOPT 1, 64-bit
     * timestamps, return stack, cycle counting, branch broadcast),
     * TRCIDR2 = 0x10000488 (64-bit addresses, 32-bit context ID, 20-bit
     * cycle counter), TRCIDR8 = 0 (no speculation). */
    ocsd_etmv4_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.reg_idr0 = 0x28000EA1;
    cfg.reg_idr1 = 0x4100F403;
    cfg.reg_idr2 = 0x10000488;
    cfg.reg_configr = configr;
    cfg.reg_traceidr = 0x10;
    cfg.arch_ver = ARCH_V8;
    cfg.core_prof = profile_CortexA;
    unsigned char csid = 0;
    ocsd_err_t e = ocsd_dt_create_decoder(t->tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_FULL_DECODER, &cfg,
                                          &csid);
    if (!e)
        e = ocsd_dt_set_gen_elem_outfn(t->tree, elem_cb, t);
    unsigned char csid2 = 0;
    if (!e && !(t->pkts = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0)))
        e = OCSD_ERR_MEM;
    if (!e)
        e = ocsd_dt_create_decoder(t->pkts, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_PACKET_PROC, &cfg, &csid2);
    if (!e)
        e = ocsd_dt_attach_packet_callback(t->pkts, csid2, OCSD_C_API_CB_PKT_SINK, pkt_cb, t);
    if (!e)
        e = ocsd_dt_add_callback_mem_acc(t->tree, 0, ~(ocsd_vaddr_t)0, OCSD_MEM_SPACE_ANY, mem_cb, (const void *)im);
    if (e) {
        char m[128];
        ocsd_err_str(e, m, sizeof m);
        dthr_close(t);
        return tm_errf(TM_ERR_STATE, err, errlen, "%s: OpenCSD cannot make an ETMv4 decoder: %s", b->name, m);
    }
    return TM_OK;
}

static int dec_error(dthr *t, char *err, size_t errlen)
{
    if (t->bad)
        return tm_errf(t->bad, err, errlen, "%s: core %" PRIu32 ": after %" PRIu64 " instructions: %s", t->b->name,
                       t->b->tid, t->n, t->msg);
    ocsd_trc_index_t idx = 0;
    uint8_t chan = 0;
    char m[256] = "";
    ocsd_get_last_err(&idx, &chan, m, sizeof m);
    size_t l = strlen(m);
    while (l && (m[l - 1] == '\n' || m[l - 1] == '\r'))
        m[--l] = '\0';
    return tm_errf(TM_ERR_FORMAT, err, errlen, "%s: core %" PRIu32 ": OpenCSD fails after %" PRIu64
                   " instructions, near packet offset 0x%" PRIx64 ": %s", t->b->name, t->b->tid, t->n,
                   (uint64_t)(t->pos), m[0] ? m : "decode error");
}

/* Feeds the stream until a range is pending or the stream ended: TM_OK or
 * an error. */
static int feed(dthr *t, char *err, size_t errlen)
{
    while (!t->qn && !t->done) {
        ocsd_datapath_resp_t r;
        if (t->pos < t->b->n) {
            uint32_t len = (uint32_t)(t->b->n - t->pos < FEED ? t->b->n - t->pos : FEED), used = 0, seen = 0;
            /* the packets' kinds first: the decoder gets only bytes whose packets passed */
            r = ocsd_dt_process_data(t->pkts, OCSD_OP_DATA, (ocsd_trc_index_t)t->pos, len, t->b->p + t->pos, &seen);
            if (OCSD_DATA_RESP_IS_FATAL(r) || t->bad)
                return dec_error(t, err, errlen);
            if (seen < len) /* never seen: the sink never asks to wait */
                return tm_errf(TM_ERR_FORMAT, err, errlen, "%s: core %" PRIu32 ": OpenCSD's packet processor "
                               "stops at packet offset 0x%zx", t->b->name, t->b->tid, t->pos + seen);
            r = ocsd_dt_process_data(t->tree, OCSD_OP_DATA, (ocsd_trc_index_t)t->pos, len, t->b->p + t->pos, &used);
            if (!used && !OCSD_DATA_RESP_IS_FATAL(r)) {
                r = ocsd_dt_process_data(t->tree, OCSD_OP_FLUSH, 0, 0, NULL, NULL);
                if (++t->stalls > 4) /* never seen: the callbacks never ask to wait */
                    return tm_errf(TM_ERR_FORMAT, err, errlen, "%s: core %" PRIu32 ": OpenCSD takes no more bytes at "
                                   "packet offset 0x%zx", t->b->name, t->b->tid, t->pos);
            } else {
                t->stalls = 0;
            }
            t->pos += used;
        } else {
            r = ocsd_dt_process_data(t->tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
            t->done = 1;
        }
        if (OCSD_DATA_RESP_IS_FATAL(r) || t->bad)
            return dec_error(t, err, errlen);
    }
    return TM_OK;
}

/* The core's next instruction: 1 (*PC; *LAST: the last of its range, with
 * the range), 0 at the end of the trace, or an error. */
static int next_insn(dthr *t, uint64_t *pc, const range **last, char *err, size_t errlen)
{
    if (t->k == t->cur.n) {
        int rc = feed(t, err, errlen);
        if (rc)
            return rc;
        if (!t->qn)
            return 0;
        t->cur = t->q[t->qh];
        t->qh++;
        t->qn--;
        if (!t->qn)
            t->qh = 0;
        t->k = 0;
        if (!t->cur.n)
            return next_insn(t, pc, last, err, errlen);
    }
    *pc = t->cur.st + 4 * t->k;
    t->k++;
    t->n++;
    *last = t->k == t->cur.n ? &t->cur : NULL;
    return 1;
}

static const char *type_name(const range *l)
{
    if (!l || l->last_type == OCSD_INSTR_OTHER)
        return "a plain instruction";
    if (l->last_type == OCSD_INSTR_BR)
        return l->exec ? "a taken direct branch" : "a not-taken direct branch";
    if (l->last_type == OCSD_INSTR_BR_INDIRECT)
        return l->last_sub == OCSD_S_INSTR_V8_RET ? "a return" : "an indirect branch";
    return "another instruction";
}

/* One instruction the commit stream has at PC: plain (BCLASS -1) or a
 * branch of that class, TAKEN. */
static int check_one(dthr *t, uint64_t pc, int bclass, int taken, uint64_t at, tm_etm4_decode_result *res, char *err,
                     size_t errlen)
{
    uint64_t dpc = 0;
    const range *l = NULL;
    int rc = next_insn(t, &dpc, &l, err, errlen);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        if (bclass < 0) { /* after the core's last P0 element: nothing shows it */
            t->ended = 1;
            res->untraced++;
            return TM_OK;
        }
        return tm_errf(TM_ERR_MISMATCH, err, errlen, "%s: core %" PRIu32 ": the ETMv4 trace ends after %" PRIu64
                       " instructions (packet offset 0x%" PRIx64 "); the commit stream goes on with a %s at 0x%"
                       PRIx64 " (offset %" PRIu64 ")", t->b->name, t->b->tid, t->n, (uint64_t)t->pos,
                       tmc_bclass_name((unsigned)bclass), pc, at);
    }
    if (t->ended)
        return tm_errf(TM_ERR_MISMATCH, err, errlen, "%s: core %" PRIu32 ": instructions decoded after the trace's end",
                       t->b->name, t->b->tid);
    int dbr = l && l->last_type != OCSD_INSTR_OTHER;
    int ok = dpc == pc && dbr == (bclass >= 0);
    if (ok && bclass >= 0) {
        int ind = bclass == TMC_IJUMP || bclass == TMC_ICALL || bclass == TMC_RET;
        ok = l->last_type == (ind ? OCSD_INSTR_BR_INDIRECT : OCSD_INSTR_BR) &&
             l->exec == (bclass == TMC_COND ? taken : 1);
    }
    if (!ok)
        return tm_errf(TM_ERR_MISMATCH, err, errlen, "%s: core %" PRIu32 ": instruction %" PRIu64 ": OpenCSD decodes "
                       "%s at 0x%" PRIx64 ", the commit stream has %s%s%s at 0x%" PRIx64 " (offset %" PRIu64
                       "); packet offset 0x%" PRIx64, t->b->name, t->b->tid, t->n, type_name(l), dpc,
                       bclass < 0 ? "a plain instruction" : bclass == TMC_COND ? (taken ? "a taken " : "a not-taken ")
                                                                              : "a ",
                       bclass < 0 ? "" : tmc_bclass_name((unsigned)bclass), bclass < 0 ? "" : " branch", pc, at,
                       (uint64_t)(l ? l->index : t->cur.index));
    res->checked++;
    return TM_OK;
}

int tm_etm4_verify_records(tm_etm4_code_fn code, void *code_arg, const tm_etm4_buffer *bufs, size_t n,
                           uint32_t configr, uint32_t nthr, tm_etm4_next_fn next, void *next_arg, const char *tmc,
                           tm_etm4_decode_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    int rc = TM_OK;
    codesrc cs = {code, code_arg};
    const codesrc *im = &cs;
    ocsd_def_errlog_init(OCSD_ERR_SEV_ERROR, 0); /* errors kept for ocsd_get_last_err, never printed */
    dthr *ts = calloc(nthr ? nthr : 1, sizeof *ts);
    int *have = calloc(nthr ? nthr : 1, sizeof *have);
    if (!ts || !have) {
        free(ts);
        free(have);
        return tm_errf(TM_ERR_NOMEM, err, errlen, "out of memory");
    }
    for (size_t i = 0; i < n && rc == TM_OK; i++) {
        if (bufs[i].tid >= nthr || have[bufs[i].tid]) {
            rc = tm_errf(TM_ERR_MISMATCH, err, errlen, "%s: core %" PRIu32 " is not a thread of %s (%" PRIu32
                         " threads)", bufs[i].name, bufs[i].tid, tmc, nthr);
            break;
        }
        rc = dthr_open(&ts[bufs[i].tid], &bufs[i], im, configr, err, errlen);
        if (rc == TM_OK)
            have[bufs[i].tid] = 1;
    }
    tmc_record rec;
    int got = 0;
    uint64_t at = 0;
    while (rc == TM_OK && (got = next(next_arg, &rec, &at, err, errlen)) == 1) {
        if (rec.type == TMC_MODULE || rec.type == TMC_MEM)
            continue;
        if (rec.type == TMC_END || rec.type == TMC_ENDING)
            break;
        if (rec.tid >= nthr || !have[rec.tid]) {
            rc = tm_errf(TM_ERR_MISMATCH, err, errlen, "%s: thread %" PRIu32 " ran, but there is no ETMv4 stream for "
                         "core %" PRIu32, tmc, rec.tid, rec.tid);
            break;
        }
        dthr *t = &ts[rec.tid];
        if (!t->seen) {
            t->seen = 1;
            res->threads++;
        }
        if (rec.type == TMC_RUN) {
            for (uint64_t k = 0; k < rec.count && rc == TM_OK; k++)
                rc = check_one(t, rec.pc + 4 * k, -1, 0, at, res, err, errlen);
        } else if (rec.type == TMC_BRANCH) {
            rc = check_one(t, rec.pc, rec.bclass, rec.taken, at, res, err, errlen);
        }
    }
    if (rc == TM_OK && got < 0)
        rc = got;
    /* Nothing may follow the commit stream's last instruction of a core. */
    for (uint32_t i = 0; i < nthr && rc == TM_OK; i++) {
        if (!have[i])
            continue;
        uint64_t pc;
        const range *l;
        int s = next_insn(&ts[i], &pc, &l, err, errlen);
        if (s < 0)
            rc = s;
        else if (s == 1)
            rc = tm_errf(TM_ERR_MISMATCH, err, errlen, "%s: core %" PRIu32 ": OpenCSD decodes instruction %" PRIu64
                         " at 0x%" PRIx64 " after the commit stream's last (packet offset 0x%" PRIx64 ")",
                         ts[i].b->name, i, ts[i].n, pc, (uint64_t)(l ? l->index : ts[i].cur.index));
    }
    for (uint32_t i = 0; i < nthr; i++) {
        res->instructions += ts[i].n;
        res->elements += ts[i].elements;
        dthr_close(&ts[i]);
    }
    free(ts);
    free(have);
    return rc;
}

static int reader_next(void *arg, tmc_record *rec, uint64_t *at, char *err, size_t errlen)
{
    tmc_reader *r = arg;
    int got = tmc_reader_next(r, rec);
    *at = tmc_reader_offset(r);
    if (got < 0)
        return tm_errf(got, err, errlen, "%s", tmc_reader_error(r));
    return got;
}

int tm_etm4_verify(const tm_etm4_image *im, const tm_etm4_buffer *bufs, size_t n, uint32_t configr, const char *tmc,
                   tm_etm4_decode_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    tmc_reader *r = NULL;
    int rc = tmc_reader_open(tmc, &r, err, errlen);
    if (rc != TM_OK)
        return rc;
    if (tmc_reader_isa(r) != TM_ISA_AARCH64)
        rc = tm_errf(TM_ERR_ARG, err, errlen, "%s: the commit stream is of a program for %s: ETMv4 here is AArch64's",
                     tmc, tm_isa_name(tmc_reader_isa(r)));
    else
        rc = tm_etm4_verify_records(tm_etm4_image_code, (void *)im, bufs, n, configr, tmc_reader_threads(r),
                                    reader_next, r, tmc, res, err, errlen);
    tmc_reader_close(r);
    return rc;
}
