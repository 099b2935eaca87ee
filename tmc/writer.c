/* tm — commit stream writer (docs/spec.md §2).
 *
 * Records are encoded into a buffer that is handed to the zstd compressor
 * whenever it may not hold one more record of the longest kind.  The flush
 * points therefore depend on the records alone, the compression level is
 * fixed and the compressor is single-threaded: the same records always give
 * the same bytes.  One zstd frame is written, with a content checksum so that
 * readers detect corrupted data.
 *
 * Every record is checked against docs/spec.md §2.3 before it is encoded; the
 * first refused record makes the writer fail for good (the stream would not
 * hold what the caller meant to write), and the output then ends without an
 * END record, so that no reader mistakes it for a complete stream. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "tm/isa.h"
#include "tmc_int.h"

#define WBUF_CAP (128u * 1024u)
#define DEFAULT_LEVEL 3

struct tmc_writer {
    FILE *f;
    int own_f;         /* f was opened here (not stdout) */
    char *name;        /* path as shown in messages ("<stdout>" for "-") */
    char *err;
    size_t err_cap;
    int status;        /* first error (sticky), 0 = none */

    ZSTD_CCtx *cc;
    uint8_t *buf;      /* encoded records not yet compressed */
    size_t len;
    uint8_t *out;      /* compressed output */
    size_t out_cap;

    uint64_t offset;   /* decompressed bytes so far (header included) */
    uint64_t nrec;     /* records written */
    int cut;           /* an ENDING was written: only close may follow */
    tmc_check chk;
};

static int fail_at(tmc_writer *w, int code, const char *what)
{
    if (!w->status) {
        tmc_format_error(&w->err, &w->err_cap, w->name, w->offset + w->len, what);
        w->status = code;
    }
    return w->status;
}

static int fail_plain(tmc_writer *w, int code, const char *what)
{
    if (!w->status) {
        tmc_format_plain(&w->err, &w->err_cap, w->name, what);
        w->status = code;
    }
    return w->status;
}

static int failf(tmc_writer *w, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), cold));

static int failf(tmc_writer *w, int code, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail_at(w, code, what);
}

static int write_fail(tmc_writer *w)
{
    char what[320];
    snprintf(what, sizeof what, "write failed: %s", strerror(errno ? errno : EIO));
    return fail_plain(w, TM_ERR_IO, what);
}

/* Compresses buf[0, len) with MODE (ZSTD_e_continue or ZSTD_e_end) and
 * writes what the compressor outputs. */
static int compress(tmc_writer *w, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = { w->buf, w->len, 0 };
    for (;;) {
        ZSTD_outBuffer out = { w->out, w->out_cap, 0 };
        size_t rem = ZSTD_compressStream2(w->cc, &out, &in, mode);
        if (ZSTD_isError(rem)) {
            char what[160];
            snprintf(what, sizeof what, "zstd: %s", ZSTD_getErrorName(rem));
            return fail_plain(w, TM_ERR_ZSTD, what);
        }
        if (out.pos) {
            errno = 0;
            if (fwrite(w->out, 1, out.pos, w->f) != out.pos)
                return write_fail(w);
        }
        if (mode == ZSTD_e_end ? rem == 0 : in.pos == in.size)
            break;
    }
    w->offset += w->len;
    w->len = 0;
    return 0;
}

static int writer_open(const char *path, uint32_t threads, int level, tmc_writer **out)
{
    *out = NULL;
    if (!path)
        return TM_ERR_ARG;
    tmc_writer *w = calloc(1, sizeof *w);
    if (!w)
        return TM_ERR_NOMEM;
    int is_stdout = !strcmp(path, "-");
    w->name = strdup(is_stdout ? "<stdout>" : path);
    w->err_cap = 256;
    w->err = malloc(w->err_cap);
    if (!w->name || !w->err) {
        free(w->name);
        free(w->err);
        free(w);
        return TM_ERR_NOMEM;
    }
    w->err[0] = '\0';
    *out = w;
    if (threads < 1 || threads > TMC_MAX_THREADS) {
        char what[96];
        snprintf(what, sizeof what, "threads %" PRIu32 " out of range 1..%u",
                 threads, TMC_MAX_THREADS);
        return fail_plain(w, TM_ERR_ARG, what);
    }
    if (level == 0)
        level = DEFAULT_LEVEL;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
        char what[96];
        snprintf(what, sizeof what, "zstd level %d out of range %d..%d",
                 level, ZSTD_minCLevel(), ZSTD_maxCLevel());
        return fail_plain(w, TM_ERR_ARG, what);
    }
    if (tmc_check_init(&w->chk, threads))
        return fail_plain(w, TM_ERR_NOMEM, "out of memory");
    w->buf = malloc(WBUF_CAP);
    w->out_cap = ZSTD_CStreamOutSize();
    w->out = malloc(w->out_cap);
    w->cc = ZSTD_createCCtx();
    if (!w->buf || !w->out || !w->cc)
        return fail_plain(w, TM_ERR_NOMEM, "out of memory");
    size_t e1 = ZSTD_CCtx_setParameter(w->cc, ZSTD_c_compressionLevel, level);
    size_t e2 = ZSTD_CCtx_setParameter(w->cc, ZSTD_c_checksumFlag, 1);
    if (ZSTD_isError(e1) || ZSTD_isError(e2))
        return fail_plain(w, TM_ERR_ZSTD, "zstd: cannot set the compression parameters");
    if (is_stdout) {
        w->f = stdout;
    } else {
        w->f = fopen(path, "wbe");
        if (!w->f) {
            char what[320];
            snprintf(what, sizeof what, "cannot create: %s", strerror(errno));
            return fail_plain(w, TM_ERR_IO, what);
        }
        w->own_f = 1;
    }
    uint8_t *h = w->buf;
    memcpy(h, "TMC", 4);
    h[4] = TMC_VERSION & 0xFF;
    h[5] = 0;
    h[6] = TMC_HEADER_SIZE;
    h[7] = 0;
    for (int i = 0; i < 4; i++)
        h[8 + i] = (uint8_t)(threads >> (8 * i));
    memset(h + 12, 0, 4);
    w->len = TMC_HEADER_SIZE;
    return 0;
}

int tmc_writer_set_isa(tmc_writer *w, int isa)
{
    if (w->status)
        return w->status;
    if (isa < 0 || isa >= TM_ISA_COUNT) {
        char what[96];
        snprintf(what, sizeof what, "unknown instruction set %d (known: 0 x86-64, 1 aarch64, 2 riscv64)", isa);
        return fail_plain(w, TM_ERR_ARG, what);
    }
    if (w->offset || w->nrec || w->len != TMC_HEADER_SIZE)
        return fail_plain(w, TM_ERR_ARG, "the instruction set is set before the first record");
    w->buf[12] = (uint8_t)((w->buf[12] & ~TMC_FLAGS_ISA_MASK) | (unsigned)isa);
    return TM_OK;
}

const char *tmc_writer_error(const tmc_writer *w)
{
    return w->status ? w->err : "";
}

static int check_fail(tmc_writer *w, int code)
{
    return fail_at(w, code == TM_ERR_FORMAT ? TM_ERR_ARG : code, w->chk.what);
}

int tmc_writer_put(tmc_writer *w, const tmc_record *rec)
{
    if (w->status)
        return w->status;
    if (WBUF_CAP - w->len < TMC_MODULE_REC_MAX && compress(w, ZSTD_e_continue))
        return w->status;
    tmc_check *c = &w->chk;
    uint8_t *const p0 = w->buf + w->len;
    uint8_t *p = p0;
    unsigned type = rec->type;

    if (w->cut)
        return failf(w, TM_ERR_ARG, "%s record after ENDING (only END may follow ENDING)", tmc_type_name(type));
    if (type == TMC_ENDING) {
        if (tmc_ending_check(rec->flags, rec->count))
            return failf(w, TM_ERR_ARG, "ENDING reason %u, code %" PRIu64 "; allowed reason 1 or 5 with code 0, "
                         "2 or 4 with a signal 1..127, 3 with an exit status 0..255", rec->flags, rec->count);
        *p++ = TMC_ENDING;
        *p++ = (uint8_t)rec->flags;
        *p++ = (uint8_t)rec->count;
        w->len += (size_t)(p - p0);
        w->nrec++;
        w->cut = 1;
        return 0;
    }
    if (type == TMC_MODULE) {
        if (rec->path_len < 1 || rec->path_len > TMC_MAX_PATH)
            return failf(w, TM_ERR_ARG, "MODULE path length %zu; allowed 1..%u",
                         rec->path_len, TMC_MAX_PATH);
        if (rec->build_id_len > TMC_MAX_BUILD_ID)
            return failf(w, TM_ERR_ARG, "MODULE build-id length %zu; allowed 0..%u",
                         rec->build_id_len, TMC_MAX_BUILD_ID);
        if (!rec->path || (rec->build_id_len && !rec->build_id))
            return failf(w, TM_ERR_ARG, "MODULE record without %s bytes",
                         rec->path ? "build-id" : "path");
        *p++ = TMC_MODULE;
        p += tmc_put_uv(p, rec->addr);
        p += tmc_put_uv(p, rec->path_len);
        memcpy(p, rec->path, rec->path_len);
        p += rec->path_len;
        p += tmc_put_uv(p, rec->build_id_len);
        if (rec->build_id_len)
            memcpy(p, rec->build_id, rec->build_id_len);
        p += rec->build_id_len;
        w->len += (size_t)(p - p0);
        w->nrec++;
        return 0;
    }
    if (type == TMC_END)
        return failf(w, TM_ERR_ARG, "END records are written by tmc_writer_close");
    if (type < TMC_START || type > TMC_MEM)
        return failf(w, TM_ERR_ARG, "unknown record type %u", type);

    /* dcycle is relative to the last thread record (MODULE has no cycle). */
    const uint64_t prev_cycle = c->cycle;
    const uint32_t t = rec->tid;
    int rc = tmc_check_thread(c, type, t, rec->cycle);
    if (rc)
        return check_fail(w, rc);
    *p++ = (uint8_t)type;
    p += tmc_put_uv(p, t);
    p += tmc_put_uv(p, rec->cycle - prev_cycle);
    switch (type) {
    case TMC_START:
        if (rec->flags & ~TMC_START_TRACE_ON)
            return check_fail(w, tmc_check_flags_fail(c, type, rec->flags));
        *p++ = (uint8_t)rec->flags;
        p += tmc_put_uv(p, rec->pc);
        c->state[t] = TMC_TS_LIVE;
        c->g_event = TMC_START;
        c->pc[t] = rec->pc;
        break;
    case TMC_EXIT:
        if (rec->flags & ~TMC_EXIT_TRACE_OFF)
            return check_fail(w, tmc_check_flags_fail(c, type, rec->flags));
        *p++ = (uint8_t)rec->flags;
        c->state[t] = TMC_TS_DONE;
        c->g_event = TMC_EXIT;
        break;
    case TMC_RUN:
        /* rec->pc is not stored: a RUN starts at the thread's current pc. */
        rc = tmc_check_run(c, t, rec->count, rec->bytes);
        if (rc)
            return check_fail(w, rc);
        p += tmc_put_uv(p, rec->count);
        p += tmc_put_uv(p, rec->bytes);
        break;
    case TMC_BRANCH: {
        if (rec->bclass >= TMC_NCLASSES || rec->taken > 1)
            return failf(w, TM_ERR_ARG, "bad BRANCH at cycle %" PRIu64 ", thread %" PRIu32
                         ": class %u (allowed 0..5), taken %u (allowed 0, 1)",
                         rec->cycle, t, rec->bclass, rec->taken);
        unsigned info = rec->bclass | (unsigned)rec->taken << 3;
        rc = tmc_check_branch(c, info, rec->len);
        if (rc)
            return check_fail(w, rc);
        uint64_t pc = c->pc[t];
        if (rec->pc != pc)
            return failf(w, TM_ERR_ARG,
                         "pc discontinuity in thread %" PRIu32 " at cycle %" PRIu64
                         ": branch at 0x%" PRIx64 ", expected 0x%" PRIx64
                         " (the thread's current pc)", t, rec->cycle, rec->pc, pc);
        *p++ = (uint8_t)info;
        *p++ = rec->len;
        *p++ = 0; /* dpc (zigzag 0) */
        p += tmc_put_uv(p, tmc_zigzag(rec->target - pc));
        c->pc[t] = rec->taken ? rec->target : pc + rec->len;
        c->g_event = TMC_BRANCH;
        break;
    }
    case TMC_EXC:
        /* rec->pc is not stored: the exception is taken at the current pc. */
        p += tmc_put_uv(p, rec->target);
        c->pc[t] = rec->target;
        c->g_event = TMC_EXC;
        break;
    default: /* TMC_MEM */
        if (rec->size < 1 || rec->size > TMC_MAX_OPERAND)
            return check_fail(w, tmc_check_size_fail(c, rec->size));
        if (rec->flags & ~TMC_MEM_STORE)
            return check_fail(w, tmc_check_flags_fail(c, type, rec->flags));
        if (rec->addr > UINT64_MAX - (rec->size - 1u))
            return check_fail(w, tmc_check_wrap_fail(c, rec->addr, rec->size));
        *p++ = (uint8_t)rec->flags;
        *p++ = rec->size;
        p += tmc_put_uv(p, rec->addr);
        memcpy(p, rec->value, rec->size);
        p += rec->size;
        break;
    }
    w->len += (size_t)(p - p0);
    w->nrec++;
    return 0;
}

/* Releases everything; the file is closed (stdout is flushed only). */
static int release(tmc_writer *w)
{
    int rc = w->status;
    if (w->f) {
        errno = 0;
        if (fflush(w->f) || ferror(w->f))
            rc = rc ? rc : write_fail(w);
        if (w->own_f && fclose(w->f))
            rc = rc ? rc : write_fail(w);
    }
    ZSTD_freeCCtx(w->cc);
    tmc_check_free(&w->chk);
    free(w->buf);
    free(w->out);
    free(w->name);
    free(w->err);
    free(w);
    return rc;
}

int tmc_writer_close(tmc_writer *w)
{
    if (!w)
        return TM_ERR_ARG;
    if (!w->status) {
        uint8_t *p = w->buf + w->len;
        *p++ = TMC_END;
        p += tmc_put_uv(p, w->nrec);
        w->len = (size_t)(p - w->buf);
        compress(w, ZSTD_e_end);
    } else if (w->cc && w->f) {
        /* End the zstd frame so that the records before the error can be
         * read (and the missing END reported). */
        compress(w, ZSTD_e_end);
    }
    return release(w);
}

void tmc_writer_abort(tmc_writer *w)
{
    if (!w)
        return;
    if (w->cc && w->f && w->buf)
        compress(w, ZSTD_e_end);
    release(w);
}

int tmc_writer_open(const char *path, uint32_t threads, int level, tmc_writer **out, char *err, size_t errlen)
{
    tmc_writer *w = NULL;
    int rc = writer_open(path, threads, level, &w);
    if (rc != TM_OK) {
        tm_err_set(err, errlen, w && w->err[0] ? w->err : tm_status_str(rc));
        tmc_writer_abort(w);
        w = NULL;
    }
    *out = w;
    return rc;
}
