/* tm — Intel PT buffers decoded by libipt over the recording's ELF images,
 * and compared with the commit stream (tm/pt.h, docs/pt.md §3).
 *
 * The image is the module map's, loaded as the replay from the binaries
 * loads it (decoder/image.c: build-ids checked, the vdso's recorded bytes);
 * libipt reads the code from the files itself: every executable segment is
 * added to a section cache (pt_iscache_add_file) and to one pt_image that
 * every core's decoder shares. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>
#include "tm/image.h"
#include "tm/isa.h"
#include "tm/pt.h"
#include "tm/status.h"
#include "tm/tmc.h"

struct tm_pt_image {
    tm_image *im;
    struct pt_image_section_cache *isc;
    struct pt_image *pim;
};

typedef struct add_ctx {
    tm_pt_image *p;
    char *err;
    size_t errlen;
} add_ctx;

static int add_seg(void *arg, const char *path, uint64_t offset, uint64_t size, uint64_t vaddr)
{
    add_ctx *c = arg;
    int isid = pt_iscache_add_file(c->p->isc, path, offset, size, vaddr);
    int rc = isid < 0 ? isid : pt_image_add_cached(c->p->pim, c->p->isc, isid, NULL);
    if (rc < 0) {
        snprintf(c->err, c->errlen, "%s: libipt cannot add the code at 0x%" PRIx64 ": %s", path, vaddr,
                 pt_errstr(pt_errcode(rc)));
        return 1;
    }
    return 0;
}

int tm_pt_image_load(const char *modules, const char *vdso, int ignore_build_id, tm_pt_image **out, char *err,
                     size_t errlen)
{
    *out = NULL;
    tm_pt_image *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    tm_image_opts o = {modules, vdso, ignore_build_id, 0}; /* Intel PT: x86-64 */
    int rc = tm_image_load(&o, &p->im, err, errlen);
    if (rc != TM_OK) {
        free(p);
        return rc;
    }
    p->isc = pt_iscache_alloc("tm");
    p->pim = pt_image_alloc("tm");
    if (!p->isc || !p->pim) {
        tm_pt_image_free(p);
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    add_ctx c = {p, err, errlen};
    if (tm_image_segments(p->im, add_seg, &c)) {
        tm_pt_image_free(p);
        return TM_ERR_IO;
    }
    *out = p;
    return TM_OK;
}

const uint8_t *tm_pt_image_code(void *arg, uint64_t addr, size_t *avail)
{
    tm_pt_image *p = arg;
    return tm_image_code(p->im, addr, avail);
}

void tm_pt_image_free(tm_pt_image *p)
{
    if (!p)
        return;
    if (p->pim)
        pt_image_free(p->pim);
    if (p->isc)
        pt_iscache_free(p->isc);
    tm_image_free(p->im);
    free(p);
}

/* ---- one core's decoder ---- */

typedef struct dthr {
    const tm_pt_buffer *b;
    struct pt_insn_decoder *d;
    struct pt_block_decoder *bd;
    int status, synced, done;
    uint64_t n;          /* instructions decoded */
    uint64_t expect;     /* verify: the address of the next instruction */
    int have_expect;
    int seen;            /* verify: the commit stream has this thread */
} dthr;

static uint64_t dec_offset(const dthr *t)
{
    uint64_t off = 0;
    if (t->d)
        pt_insn_get_offset(t->d, &off);
    else if (t->bd)
        pt_blk_get_offset(t->bd, &off);
    return off;
}

static int dec_error(const dthr *t, int s, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: core %" PRIu32 ": %s after %" PRIu64 " instructions, packet offset 0x%" PRIx64
                          ": libipt: %s",
             t->b->name, t->b->tid, what, t->n, dec_offset(t), pt_errstr(pt_errcode(s)));
    return TM_ERR_FORMAT;
}

static int dthr_open(dthr *t, const tm_pt_buffer *b, const tm_pt_image *im, int block, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->b = b;
    struct pt_config cfg;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)(uintptr_t)b->p;
    cfg.end = (uint8_t *)(uintptr_t)b->p + b->n;
    /* MTC and CYC as the encoder writes them: the core clock is the crystal
     * clock (ratio 1). */
    cfg.mtc_freq = 0;
    cfg.nom_freq = 1;
    cfg.cpuid_0x15_eax = 1;
    cfg.cpuid_0x15_ebx = 1;
    int rc;
    if (block) {
        t->bd = pt_blk_alloc_decoder(&cfg);
        rc = t->bd ? pt_blk_set_image(t->bd, im->pim) : -pte_nomem;
    } else {
        t->d = pt_insn_alloc_decoder(&cfg);
        rc = t->d ? pt_insn_set_image(t->d, im->pim) : -pte_nomem;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s: libipt cannot make a decoder: %s", b->name, pt_errstr(pt_errcode(rc)));
        return TM_ERR_NOMEM;
    }
    return TM_OK;
}

static void dthr_close(dthr *t)
{
    if (t->d)
        pt_insn_free_decoder(t->d);
    if (t->bd)
        pt_blk_free_decoder(t->bd);
    t->d = NULL;
    t->bd = NULL;
}

/* The next instruction of the core: 1, 0 at the end of its trace, or an
 * error (ERR set). */
static int next_insn(dthr *t, struct pt_insn *insn, uint64_t *events, char *err, size_t errlen)
{
    if (t->done)
        return 0;
    if (!t->synced) {
        int s = pt_insn_sync_forward(t->d);
        if (s == -pte_eos) {
            t->done = 1;
            return 0;
        }
        if (s < 0)
            return dec_error(t, s, "no synchronization (PSB)", err, errlen);
        t->status = s;
        t->synced = 1;
    }
    for (;;) {
        while (t->status & pts_event_pending) {
            struct pt_event ev;
            int s = pt_insn_event(t->d, &ev, sizeof ev);
            if (s < 0)
                return dec_error(t, s, "cannot decode an event", err, errlen);
            t->status = s;
            (*events)++;
        }
        int s = pt_insn_next(t->d, insn, sizeof *insn);
        if (s == -pte_eos) {
            t->done = 1;
            return 0;
        }
        if (s < 0)
            return dec_error(t, s, "cannot decode the next instruction", err, errlen);
        t->status = s;
        t->n++;
        return 1;
    }
}

/* Decodes all of a core's buffer with the block decoder. */
static int blk_all(dthr *t, uint64_t *events, char *err, size_t errlen)
{
    int s = pt_blk_sync_forward(t->bd);
    if (s == -pte_eos)
        return TM_OK;
    if (s < 0)
        return dec_error(t, s, "no synchronization (PSB)", err, errlen);
    for (;;) {
        while (s & pts_event_pending) {
            struct pt_event ev;
            s = pt_blk_event(t->bd, &ev, sizeof ev);
            if (s < 0)
                return dec_error(t, s, "cannot decode an event", err, errlen);
            (*events)++;
        }
        struct pt_block blk;
        s = pt_blk_next(t->bd, &blk, sizeof blk);
        t->n += blk.ninsn;
        if (s == -pte_eos)
            return TM_OK;
        if (s < 0)
            return dec_error(t, s, "cannot decode the next block", err, errlen);
    }
}

int tm_pt_decode(const tm_pt_image *im, const tm_pt_buffer *bufs, size_t n, int block, tm_pt_decode_result *res,
                 char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    for (size_t i = 0; i < n; i++) {
        dthr t;
        int rc = dthr_open(&t, &bufs[i], im, block, err, errlen);
        if (rc)
            return rc;
        if (block) {
            rc = blk_all(&t, &res->events, err, errlen);
        } else {
            struct pt_insn insn;
            while ((rc = next_insn(&t, &insn, &res->events, err, errlen)) == 1)
                ;
        }
        res->instructions += t.n;
        res->threads++;
        dthr_close(&t);
        if (rc < 0)
            return rc;
    }
    return TM_OK;
}

/* ---- verification against the commit stream ---- */

static const char *iclass_name(enum pt_insn_class c)
{
    switch (c) {
    case ptic_other: return "a plain instruction";
    case ptic_call: return "a call";
    case ptic_return: return "a return";
    case ptic_jump: return "a jump";
    case ptic_cond_jump: return "a conditional branch";
    case ptic_far_call: return "a far call";
    case ptic_far_return: return "a far return";
    case ptic_far_jump: return "a far jump";
    case ptic_ptwrite: return "a ptwrite";
    default: return "an undecodable instruction";
    }
}

static int class_ok(const struct pt_insn *insn, int bclass)
{
    switch (bclass) {
    case -1:
        return insn->iclass == ptic_other || insn->iclass == ptic_far_call || insn->iclass == ptic_far_return ||
               insn->iclass == ptic_far_jump || insn->iclass == ptic_ptwrite;
    case TMC_COND: return insn->iclass == ptic_cond_jump;
    case TMC_JUMP: case TMC_IJUMP: return insn->iclass == ptic_jump;
    case TMC_CALL: case TMC_ICALL: return insn->iclass == ptic_call;
    case TMC_RET: return insn->iclass == ptic_return;
    default: return 0;
    }
}

/* One instruction of thread T that the commit stream says is at PC (with
 * class BCLASS, -1 plain, and length LEN, 0 unknown). */
static int check_one(dthr *t, uint64_t pc, int bclass, unsigned len, uint64_t at, tm_pt_decode_result *res,
                     char *err, size_t errlen)
{
    struct pt_insn insn;
    int rc = next_insn(t, &insn, &res->events, err, errlen);
    if (rc < 0)
        return rc;
    const char *pfx = t->b->name;
    if (rc == 0) {
        snprintf(err, errlen,
                 "%s: core %" PRIu32 ": the PT trace ends after %" PRIu64 " instructions (packet offset 0x%" PRIx64
                 "); the commit stream goes on at 0x%" PRIx64 " (offset %" PRIu64 ")",
                 pfx, t->b->tid, t->n, dec_offset(t), pc, at);
        return TM_ERR_MISMATCH;
    }
    if (insn.ip != pc || (len && insn.size != len) || !class_ok(&insn, bclass)) {
        snprintf(err, errlen,
                 "%s: core %" PRIu32 ": instruction %" PRIu64 ": PT decodes %s at 0x%" PRIx64 " (%u bytes), the "
                 "commit stream has %s%s at 0x%" PRIx64 " (offset %" PRIu64 "); packet offset 0x%" PRIx64,
                 pfx, t->b->tid, t->n, iclass_name(insn.iclass), insn.ip, insn.size,
                 bclass < 0 ? "a plain instruction" : "a ", bclass < 0 ? "" : tmc_bclass_name((unsigned)bclass),
                 pc, at, dec_offset(t));
        return TM_ERR_MISMATCH;
    }
    res->checked++;
    t->expect = insn.ip + insn.size;
    return TM_OK;
}

int tm_pt_verify(const tm_pt_image *im, const tm_pt_buffer *bufs, size_t n, const char *tmc,
                 tm_pt_decode_result *res, void (*progress)(uint64_t, void *), void *arg, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    tmc_reader *r = NULL;
    int rc = tmc_reader_open(tmc, &r, err, errlen);
    if (rc != TM_OK)
        return rc;
    if (tmc_reader_isa(r) != TM_ISA_X86_64) { /* Intel PT traces x86-64 code */
        snprintf(err, errlen, "%s: the commit stream is of a program for %s: Intel PT is x86-64's", tmc,
                 tm_isa_name(tmc_reader_isa(r)));
        tmc_reader_close(r);
        return TM_ERR_ARG;
    }
    uint32_t nthr = tmc_reader_threads(r);
    dthr *ts = calloc(nthr, sizeof *ts);
    int *have = calloc(nthr, sizeof *have);
    if (!ts || !have) {
        free(ts);
        free(have);
        tmc_reader_close(r);
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    for (size_t i = 0; i < n && rc == TM_OK; i++) {
        if (bufs[i].tid >= nthr) {
            snprintf(err, errlen, "%s: core %" PRIu32 " is not a thread of %s (%" PRIu32 " threads)", bufs[i].name,
                     bufs[i].tid, tmc, nthr);
            rc = TM_ERR_MISMATCH;
            break;
        }
        rc = dthr_open(&ts[bufs[i].tid], &bufs[i], im, 0, err, errlen);
        have[bufs[i].tid] = 1;
    }
    tmc_record rec;
    uint64_t records = 0;
    int got;
    while (rc == TM_OK && (got = tmc_reader_next(r, &rec)) == 1) {
        uint64_t at = tmc_reader_offset(r);
        if (progress && !(++records & ((1u << 22) - 1)))
            progress(records, arg);
        if (rec.type == TMC_MODULE || rec.type == TMC_MEM)
            continue;
        if (rec.type == TMC_END || rec.type == TMC_ENDING)
            break;
        if (!have[rec.tid]) {
            snprintf(err, errlen, "%s: thread %" PRIu32 " ran, but there is no PT buffer for core %" PRIu32, tmc,
                     rec.tid, rec.tid);
            rc = TM_ERR_MISMATCH;
            break;
        }
        dthr *t = &ts[rec.tid];
        if (!t->seen) {
            t->seen = 1;
            res->threads++;
        }
        switch (rec.type) {
        case TMC_START:
        case TMC_EXC:
            t->expect = rec.type == TMC_START ? rec.pc : rec.target;
            break;
        case TMC_RUN: {
            uint64_t pc = rec.pc;
            for (uint64_t k = 0; k < rec.count && rc == TM_OK; k++) {
                rc = check_one(t, pc, -1, 0, at, res, err, errlen);
                pc = t->expect;
            }
            if (rc == TM_OK && pc != rec.pc + rec.bytes) {
                snprintf(err, errlen,
                         "%s: core %" PRIu32 ": instruction %" PRIu64 ": the run at 0x%" PRIx64 " ends at 0x%" PRIx64
                         " in PT, at 0x%" PRIx64 " in the commit stream (offset %" PRIu64 ")",
                         t->b->name, t->b->tid, t->n, rec.pc, pc, rec.pc + rec.bytes, at);
                rc = TM_ERR_MISMATCH;
            }
            break;
        }
        case TMC_BRANCH:
            rc = check_one(t, rec.pc, rec.bclass, rec.len, at, res, err, errlen);
            t->expect = rec.taken ? rec.target : rec.pc + rec.len;
            break;
        default:
            break;
        }
    }
    if (rc == TM_OK && got < 0) {
        snprintf(err, errlen, "%s", tmc_reader_error(r));
        rc = got;
    }
    /* Nothing may follow the commit stream's last instruction of a core. */
    for (uint32_t i = 0; i < nthr && rc == TM_OK; i++) {
        if (!have[i])
            continue;
        dthr *t = &ts[i];
        struct pt_insn insn;
        int s = next_insn(t, &insn, &res->events, err, errlen);
        if (s < 0) {
            rc = s;
        } else if (s == 1) {
            snprintf(err, errlen,
                     "%s: core %" PRIu32 ": PT decodes instruction %" PRIu64 " at 0x%" PRIx64
                     " after the commit stream's last (packet offset 0x%" PRIx64 ")",
                     t->b->name, i, t->n, insn.ip, dec_offset(t));
            rc = TM_ERR_MISMATCH;
        }
    }
    for (uint32_t i = 0; i < nthr; i++) {
        res->instructions += ts[i].n;
        dthr_close(&ts[i]);
    }
    free(ts);
    free(have);
    tmc_reader_close(r);
    return rc;
}
