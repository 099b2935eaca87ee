/* tm — commit stream reader (docs/spec.md §2).
 *
 * Design.  The zstd stream is decompressed straight into one large buffer
 * (BUF_CAP bytes plus PAD bytes of slack).  Records are decoded in place by
 * pointer bumping, without bounds checks: before decoding a record the reader
 * makes sure that at least TMC_SMALL_REC_MAX bytes are buffered, unless the
 * decompressed data has ended, in which case the PAD bytes after the data are
 * zero.  Every record but MODULE fits in TMC_SMALL_REC_MAX bytes, so decoding
 * never leaves the allocation; a record that ran past the end of the data is
 * detected afterwards (p > lim) and reported as truncated before any of its
 * (possibly padding-made) fields is judged.  MODULE records, which can be
 * 4 KiB long, take a separate, checked path.
 *
 * Errors of the zstd layer and of the file are not reported when they happen
 * but when the parser needs the data that could not be delivered, so every
 * complete record before the point of failure is still returned and errors
 * come out in stream order. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "tm/isa.h"
#include "tm/tmcrec.h"
#include "tmc_int.h"

#define BUF_CAP (256u * 1024u)
#define PAD 256u

/* Why the decompressed data stopped (or that it has not). */
enum src_state {
    SRC_MORE = 0,   /* more may come */
    SRC_CLEAN,      /* end of file after complete zstd frames */
    SRC_TRUNC,      /* end of file inside a zstd frame */
    SRC_ZSTD,       /* zstd reported an error */
    SRC_IO          /* read error */
};

struct tmc_reader {
    FILE *f;
    int own_f;           /* f was opened here (not stdin) */
    char *name;          /* path as shown in messages ("<stdin>" for "-") */
    char *err;           /* last error message */
    size_t err_cap;
    int status;          /* first error (sticky), 0 = none */
    int done;            /* END delivered: next returns 0 */
    int cut;             /* ENDING delivered: only END may follow */

    ZSTD_DStream *ds;
    uint8_t *in;         /* compressed input */
    size_t in_cap;
    ZSTD_inBuffer zin;
    int src_eof;         /* fread reported end of file */
    int frame_open;      /* input consumed since the last complete frame */
    int raw_magic;       /* the file starts with "TMC\0": not compressed */
    enum src_state src;
    int src_errno;       /* SRC_IO */
    const char *zerr;    /* SRC_ZSTD: ZSTD_getErrorName */
    int zerr_prefix;     /* SRC_ZSTD: the error is "not a zstd frame" */
    uint64_t compressed; /* bytes read from the file */

    uint8_t *buf;        /* decompressed data: [pos, end) not parsed yet */
    size_t pos, end;
    uint64_t base;       /* stream offset of buf[0] */

    uint32_t threads;
    unsigned isa;        /* the header's flags, bits 3..0 (tm/isa.h) */
    uint64_t nrec;       /* records before the current one */
    tmc_check chk;
    char path[TMC_MAX_PATH + 1];          /* MODULE path, NUL-terminated */
    uint8_t build_id[TMC_MAX_BUILD_ID];   /* MODULE build-id */
};

/* ---- errors ---- */

static int fail_at(tmc_reader *r, int code, uint64_t offset, const char *what)
{
    tmc_format_error(&r->err, &r->err_cap, r->name, offset, what);
    r->status = code;
    return code;
}

static int failf(tmc_reader *r, int code, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), cold));

static int failf(tmc_reader *r, int code, uint64_t offset, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fail_at(r, code, offset, what);
}

/* The parser needs bytes that are not there.  If the data stopped because of
 * a zstd or I/O error, that error is the one to report (at the offset the
 * decompressed data reached); otherwise the stream itself is short and
 * CLEAN_WHAT describes where, at offset AT. */
static int fail_stop(tmc_reader *r, uint64_t at, const char *clean_what) __attribute__((cold));

static int fail_stop(tmc_reader *r, uint64_t at, const char *clean_what)
{
    uint64_t reached = r->base + r->end;
    switch (r->src) {
    case SRC_IO:
        return failf(r, TM_ERR_IO, reached, "read error: %s", strerror(r->src_errno));
    case SRC_ZSTD:
        if (reached == 0 && r->raw_magic)
            return failf(r, TM_ERR_ZSTD, reached,
                         "not zstd-compressed (an uncompressed commit stream? "
                         "a .tmc file is compressed with zstd)");
        if (reached == 0 && r->zerr_prefix)
            return failf(r, TM_ERR_ZSTD, reached, "zstd: %s (not a zstd-compressed .tmc file?)",
                         r->zerr);
        return failf(r, TM_ERR_ZSTD, reached, "zstd: %s", r->zerr);
    case SRC_TRUNC:
        return failf(r, TM_ERR_TRUNCATED, reached,
                     "truncated: the file ends inside a zstd frame");
    default:
        if (r->compressed == 0)
            return fail_at(r, TM_ERR_TRUNCATED, 0, "truncated: empty file");
        return fail_at(r, TM_ERR_TRUNCATED, at, clean_what);
    }
}

/* ---- decompression ---- */

/* One call of ZSTD_decompressStream into buf[end, BUF_CAP), reading more
 * input first if all of it has been consumed. */
static void step(tmc_reader *r)
{
    if (r->zin.pos == r->zin.size && !r->src_eof) {
        size_t n = fread(r->in, 1, r->in_cap, r->f);
        if (n == 0) {
            if (ferror(r->f)) {
                r->src_errno = errno ? errno : EIO;
                r->src = SRC_IO;
                return;
            }
            r->src_eof = 1;
        }
        if (r->compressed == 0 && n >= 4 && !memcmp(r->in, "TMC", 4))
            r->raw_magic = 1;
        r->compressed += n;
        r->zin.src = r->in;
        r->zin.size = n;
        r->zin.pos = 0;
    }
    ZSTD_outBuffer out = { r->buf, BUF_CAP, r->end };
    size_t in_before = r->zin.pos;
    size_t ret = ZSTD_decompressStream(r->ds, &out, &r->zin);
    if (ZSTD_isError(ret)) {
        r->zerr = ZSTD_getErrorName(ret);
        r->zerr_prefix = ZSTD_getErrorCode(ret) == ZSTD_error_prefix_unknown;
        r->src = SRC_ZSTD;
        return;
    }
    int progress = out.pos != r->end || r->zin.pos != in_before;
    r->end = out.pos;
    /* ret == 0: a frame is complete and flushed.  A call that neither reads
     * nor writes says nothing about frames (after a complete frame zstd then
     * asks for the next frame's header). */
    if (ret == 0)
        r->frame_open = 0;
    else if (progress)
        r->frame_open = 1;
    if (!progress && r->src_eof && r->zin.pos == r->zin.size)
        r->src = r->frame_open ? SRC_TRUNC : SRC_CLEAN;
}

/* Moves the unparsed bytes to the front of the buffer and decompresses until
 * the buffer is full or the data stops; then zeroes the padding after it. */
static void fill(tmc_reader *r)
{
    if (r->pos) {
        size_t keep = r->end - r->pos;
        memmove(r->buf, r->buf + r->pos, keep);
        r->base += r->pos;
        r->pos = 0;
        r->end = keep;
    }
    while (r->src == SRC_MORE && r->end < BUF_CAP)
        step(r);
    memset(r->buf + r->end, 0, PAD);
}

/* ---- open / close ---- */

static int read_header(tmc_reader *r)
{
    fill(r);
    if (r->end < TMC_HEADER_SIZE) {
        char what[96];
        snprintf(what, sizeof what, "truncated: header incomplete (%zu of %u bytes)",
                 r->end, TMC_HEADER_SIZE);
        return fail_stop(r, 0, what);
    }
    const uint8_t *h = r->buf;
    if (memcmp(h, "TMC", 4))
        return failf(r, TM_ERR_FORMAT, 0,
                     "bad magic %02x %02x %02x %02x (expected 54 4d 43 00, \"TMC\\0\"): "
                     "not a commit stream", h[0], h[1], h[2], h[3]);
    unsigned version = h[4] | (unsigned)h[5] << 8;
    unsigned hlen = h[6] | (unsigned)h[7] << 8;
    uint32_t threads = h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
    uint32_t flags = h[12] | (uint32_t)h[13] << 8 | (uint32_t)h[14] << 16 | (uint32_t)h[15] << 24;
    if (version != TMC_VERSION)
        return failf(r, TM_ERR_FORMAT, 4, "unsupported version %u (this reader reads version %u)",
                     version, TMC_VERSION);
    if (hlen != TMC_HEADER_SIZE)
        return failf(r, TM_ERR_FORMAT, 6, "header length %u (version 1 headers are %u bytes)",
                     hlen, TMC_HEADER_SIZE);
    if (threads < 1 || threads > TMC_MAX_THREADS)
        return failf(r, TM_ERR_FORMAT, 8, "threads %" PRIu32 " out of range 1..%u",
                     threads, TMC_MAX_THREADS);
    /* bits 3..0: the instruction set (tm/isa.h); the others reserved */
    if (flags & ~(uint32_t)TMC_FLAGS_ISA_MASK)
        return failf(r, TM_ERR_FORMAT, 12, "header flags 0x%" PRIx32 ": bits 31..4 are reserved, must be 0",
                     flags);
    if ((flags & TMC_FLAGS_ISA_MASK) >= TM_ISA_COUNT)
        return failf(r, TM_ERR_FORMAT, 12, "header flags 0x%" PRIx32 ": unknown instruction set %" PRIu32
                     " (known: 0 x86-64, 1 aarch64, 2 riscv64)", flags, flags & TMC_FLAGS_ISA_MASK);
    r->isa = flags & TMC_FLAGS_ISA_MASK;
    if (tmc_check_init(&r->chk, threads))
        return fail_at(r, TM_ERR_NOMEM, 0, "out of memory");
    r->threads = threads;
    r->pos = TMC_HEADER_SIZE;
    return 0;
}

static int reader_open(const char *path, tmc_reader **out)
{
    *out = NULL;
    if (!path)
        return TM_ERR_ARG;
    /* Whole cache lines of its own: a reader on a thread of its own
     * (tmc_ahead) writes its fields for every record, and a neighbour in
     * the same line would be another thread's cache miss each time. */
    size_t size = (sizeof(tmc_reader) + 63u) & ~(size_t)63u;
    tmc_reader *r = aligned_alloc(64, size);
    if (!r)
        return TM_ERR_NOMEM;
    memset(r, 0, size);
    int is_stdin = !strcmp(path, "-");
    r->name = strdup(is_stdin ? "<stdin>" : path);
    r->err_cap = 256;
    r->err = malloc(r->err_cap);
    if (!r->name || !r->err) {
        tmc_reader_close(r);
        return TM_ERR_NOMEM;
    }
    r->err[0] = '\0';
    *out = r;
    if (is_stdin) {
        r->f = stdin;
    } else {
        r->f = fopen(path, "rbe");
        if (!r->f) {
            char what[320];
            snprintf(what, sizeof what, "cannot open: %s", strerror(errno));
            tmc_format_plain(&r->err, &r->err_cap, r->name, what);
            return r->status = TM_ERR_IO;
        }
        r->own_f = 1;
    }
    r->in_cap = ZSTD_DStreamInSize();
    r->in = malloc(r->in_cap);
    r->buf = malloc(BUF_CAP + PAD);
    r->ds = ZSTD_createDStream();
    if (!r->in || !r->buf || !r->ds)
        return fail_at(r, TM_ERR_NOMEM, 0, "out of memory");
    size_t zr = ZSTD_initDStream(r->ds);
    if (ZSTD_isError(zr))
        return failf(r, TM_ERR_ZSTD, 0, "zstd: %s", ZSTD_getErrorName(zr));
    r->zin.src = r->in;
    return read_header(r);
}

uint32_t tmc_reader_threads(const tmc_reader *r)
{
    return r->threads;
}

int tmc_reader_isa(const tmc_reader *r)
{
    return (int)r->isa;
}

const char *tmc_reader_error(const tmc_reader *r)
{
    return r->status ? r->err : "";
}

uint64_t tmc_reader_offset(const tmc_reader *r)
{
    return r->base + r->pos;
}

void tmc_reader_close(tmc_reader *r)
{
    if (!r)
        return;
    if (r->own_f && r->f)
        fclose(r->f);
    ZSTD_freeDStream(r->ds);
    tmc_check_free(&r->chk);
    free(r->in);
    free(r->buf);
    free(r->name);
    free(r->err);
    free(r);
}

/* ---- records ---- */

static inline void clear_record(tmc_record *rec, unsigned type)
{
    rec->type = (tmc_type)type;
    rec->tid = 0;
    rec->cycle = 0;
    rec->flags = 0;
    rec->pc = 0;
    rec->target = 0;
    rec->count = 0;
    rec->bytes = 0;
    rec->bclass = 0;
    rec->taken = 0;
    rec->len = 0;
    rec->size = 0;
    rec->addr = 0;
    rec->path = NULL;
    rec->path_len = 0;
    rec->build_id = NULL;
    rec->build_id_len = 0;
}

static int check_fail(tmc_reader *r, int code, uint64_t offset) __attribute__((cold));

static int check_fail(tmc_reader *r, int code, uint64_t offset)
{
    return fail_at(r, code, offset, r->chk.what);
}

static int varint_fail(tmc_reader *r, uint64_t offset, unsigned type) __attribute__((cold));

static int varint_fail(tmc_reader *r, uint64_t offset, unsigned type)
{
    return failf(r, TM_ERR_FORMAT, offset,
                 "malformed varint in %s record (longer than 10 bytes or above 2^64-1)",
                 tmc_type_name(type));
}

/* MODULE: load address, path (1..4096 bytes), build-id (0..64 bytes).  Not
 * on the hot path, so decoded with explicit bounds checks. */
/* The next varint of the MODULE record at AT into *V: 0, or the error. */
static int module_uv(tmc_reader *r, uint64_t at, const uint8_t **p, const uint8_t *lim, uint64_t *v)
{
    unsigned bad = 0;
    *v = tmc_get_uv(p, &bad);
    if (*p > lim)
        return fail_stop(r, at, "truncated: MODULE record incomplete at end of stream");
    return bad ? varint_fail(r, at, TMC_MODULE) : 0;
}

/* The MODULE record's next field: a length (MIN..MAX) then that many bytes,
 * copied to DST; *LEN the length.  0, or the error. */
static int module_bytes(tmc_reader *r, uint64_t at, const uint8_t **p, const uint8_t *lim, const char *what,
                        uint64_t min, uint64_t max, uint8_t *dst, uint64_t *len)
{
    int rc = module_uv(r, at, p, lim, len);
    if (rc)
        return rc;
    if (*len < min || *len > max)
        return failf(r, TM_ERR_FORMAT, at, "MODULE %s length %" PRIu64 "; allowed %" PRIu64 "..%" PRIu64, what,
                     *len, min, max);
    if ((uint64_t)(lim - *p) < *len)
        return fail_stop(r, at, "truncated: MODULE record incomplete at end of stream");
    memcpy(dst, *p, *len);
    *p += *len;
    return 0;
}

static __attribute__((noinline, cold)) int read_module(tmc_reader *r, tmc_record *rec)
{
    if (r->end - r->pos < TMC_MODULE_REC_MAX && r->src == SRC_MORE)
        fill(r);
    const uint64_t at = r->base + r->pos;
    const uint8_t *p = r->buf + r->pos + 1;
    const uint8_t *lim = r->buf + r->end;
    /* Each varint starts at or before lim, and PAD >= 10 zero bytes follow
     * the data when it has stopped, so they can be decoded unchecked. */
    uint64_t addr, plen, blen;
    int rc;
    if ((rc = module_uv(r, at, &p, lim, &addr)) ||
        (rc = module_bytes(r, at, &p, lim, "path", 1, TMC_MAX_PATH, (uint8_t *)r->path, &plen)) ||
        (rc = module_bytes(r, at, &p, lim, "build-id", 0, TMC_MAX_BUILD_ID, r->build_id, &blen)))
        return rc;
    r->path[plen] = '\0';

    clear_record(rec, TMC_MODULE);
    rec->addr = addr;
    rec->path = r->path;
    rec->path_len = (size_t)plen;
    rec->build_id = blen ? r->build_id : NULL;
    rec->build_id_len = (size_t)blen;
    r->pos = (size_t)(p - r->buf);
    r->nrec++;
    return 1;
}

/* ENDING: reason (1 byte), code (1 byte); only END may follow it. */
static __attribute__((noinline, cold)) int read_cut(tmc_reader *r, tmc_record *rec)
{
    const uint64_t at = r->base + r->pos;
    const uint8_t *p = r->buf + r->pos + 1;
    if (p + 2 > r->buf + r->end)
        return fail_stop(r, at, "truncated: ENDING record incomplete at end of stream");
    unsigned reason = p[0], sig = p[1];
    if (reason < TMC_CUT_SHORT || reason > TMC_EXECVED)
        return failf(r, TM_ERR_FORMAT, at,
                     "ENDING reason %u; allowed 1 (cut short), 2 (cut by a signal), 3 (exited), 4 (killed), 5 (execve)",
                     reason);
    if (tmc_ending_check(reason, sig))
        return failf(r, TM_ERR_FORMAT, at, "ENDING code %u with reason %u (reasons 1 and 5 take 0, 2 and 4 a signal "
                     "1..127, 3 an exit status)", sig, reason);
    clear_record(rec, TMC_ENDING);
    rec->flags = reason;
    rec->count = sig;
    r->pos += 3;
    r->nrec++;
    r->cut = 1;
    return 1;
}

/* END: the record count must match, and nothing may follow: the rest of the
 * input is drained to make sure it decompresses to nothing. */
static __attribute__((noinline, cold)) int read_end(tmc_reader *r, tmc_record *rec)
{
    const uint64_t at = r->base + r->pos;
    const uint8_t *p = r->buf + r->pos + 1;
    const uint8_t *lim = r->buf + r->end;
    unsigned bad = 0;
    uint64_t count = tmc_get_uv(&p, &bad);
    if (p > lim)
        return fail_stop(r, at, "truncated: END record incomplete at end of stream");
    if (bad)
        return varint_fail(r, at, TMC_END);
    if (count != r->nrec)
        return failf(r, TM_ERR_FORMAT, at,
                     "END record count %" PRIu64 " does not match the %" PRIu64
                     " record%s before it", count, r->nrec, r->nrec == 1 ? "" : "s");
    r->pos = (size_t)(p - r->buf);
    while (r->pos == r->end && r->src == SRC_MORE)
        fill(r);
    if (r->pos < r->end)
        return failf(r, TM_ERR_FORMAT, r->base + r->pos,
                     "data after the END record (%zu+ bytes; nothing may follow END)",
                     r->end - r->pos);
    if (r->src != SRC_CLEAN)
        return fail_stop(r, r->base + r->pos, "");
    clear_record(rec, TMC_END);
    rec->count = count;
    r->done = 1;
    return 1;
}

/* What every record of types 1..6 goes through once its fields are decoded
 * (P: just past them): truncation, varints, cycle arithmetic and rules 1-4.
 * On success the checker's cycle is the record's, and the common fields of
 * REC are set (the others zeroed).  Inlined into each case of the switch
 * below, so that each record type is one straight path. */
static inline __attribute__((always_inline))
int thread_record(tmc_reader *r, tmc_record *rec, unsigned type, uint64_t tid, uint64_t dcycle,
                  const uint8_t *p, unsigned bad)
{
    const uint64_t at = r->base + r->pos;
    if (__builtin_expect(p > r->buf + r->end, 0))
        return fail_stop(r, at, "truncated: record incomplete at end of stream");
    if (__builtin_expect(bad, 0))
        return varint_fail(r, at, type);
    tmc_check *c = &r->chk;
    uint64_t cy = c->cycle + dcycle;
    if (__builtin_expect(cy < c->cycle, 0))
        return failf(r, TM_ERR_FORMAT, at,
                     "cycle goes backwards: cycle %" PRIu64 " + dcycle %" PRIu64
                     " overflows 64 bits", c->cycle, dcycle);
    int rc = tmc_check_thread(c, type, tid, cy);
    if (__builtin_expect(rc != 0, 0))
        return check_fail(r, rc, at);
    clear_record(rec, type);
    rec->tid = (uint32_t)tid;
    rec->cycle = cy;
    return 0;
}

/* Decoding a record of types 1..6 never reads more than TMC_SMALL_REC_MAX
 * bytes, which are buffered (or zero padding: see the top of the file); one
 * switch on the type does decoding, checks and delivery.  MODULE, CUT and
 * END (a few per stream) are read out of line (noinline, cold): inlined
 * here they cost the per-record path registers (~1.4 instructions per
 * record under callgrind). */
/* HOT (a constant): records of types 1..6 only; anything else (a state, a
 * type or the end of the data that tmc_reader_next handles out of line) is
 * left unread: COLD.  Then REC need not live in memory (tmc_reader_crecs). */
enum { COLD = 2 };

static inline __attribute__((always_inline)) int next_record(tmc_reader *r, tmc_record *rec, int hot)
{
    if (__builtin_expect(r->status != 0, 0))
        return hot ? COLD : r->status;
    if (__builtin_expect(r->done, 0))
        return hot ? COLD : 0;
    if (r->end - r->pos < TMC_SMALL_REC_MAX && r->src == SRC_MORE)
        fill(r);
    if (__builtin_expect(r->pos == r->end, 0))
        return hot ? COLD : fail_stop(r, r->base + r->pos, "truncated: no END record");

    const uint8_t *p = r->buf + r->pos;
    tmc_check *const c = &r->chk;
    const unsigned type = *p++;
    unsigned bad = 0;
    int rc;
    if (hot && (__builtin_expect(r->cut, 0) || type - 1u >= TMC_MEM))
        return COLD;
    if (__builtin_expect(r->cut, 0) && type != TMC_END)
        return failf(r, TM_ERR_FORMAT, r->base + r->pos, "%s record after ENDING (only END may follow ENDING)",
                     tmc_type_name(type));
    switch (type) {
    case TMC_RUN: {
        uint64_t tid = tmc_get_uv(&p, &bad);
        uint64_t dcycle = tmc_get_uv(&p, &bad);
        uint64_t count = tmc_get_uv(&p, &bad);
        uint64_t bytes = tmc_get_uv(&p, &bad);
        if ((rc = thread_record(r, rec, type, tid, dcycle, p, bad)) != 0)
            return rc;
        uint32_t t = (uint32_t)tid;
        rec->pc = c->pc[t];
        if (__builtin_expect((rc = tmc_check_run(c, t, count, bytes)) != 0, 0))
            return check_fail(r, rc, r->base + r->pos);
        rec->count = count;
        rec->bytes = bytes;
        break;
    }
    case TMC_BRANCH: {
        uint64_t tid = tmc_get_uv(&p, &bad);
        uint64_t dcycle = tmc_get_uv(&p, &bad);
        unsigned info = p[0], len = p[1];
        p += 2;
        uint64_t dpc = tmc_get_uv(&p, &bad);
        uint64_t dtarget = tmc_get_uv(&p, &bad);
        if ((rc = thread_record(r, rec, type, tid, dcycle, p, bad)) != 0)
            return rc;
        if (__builtin_expect((rc = tmc_check_branch(c, info, len)) != 0, 0))
            return check_fail(r, rc, r->base + r->pos);
        uint32_t t = (uint32_t)tid;
        uint64_t pc = c->pc[t];
        if (__builtin_expect(dpc != 0, 0))
            return failf(r, TM_ERR_FORMAT, r->base + r->pos,
                         "pc discontinuity in thread %" PRIu32 " at cycle %" PRIu64
                         ": branch at 0x%" PRIx64 " (dpc %" PRId64 "), expected 0x%" PRIx64
                         " (the thread's current pc)", t, c->cycle, pc + tmc_unzigzag(dpc),
                         (int64_t)tmc_unzigzag(dpc), pc);
        uint64_t target = pc + tmc_unzigzag(dtarget);
        unsigned taken = (info >> 3) & 1u;
        c->pc[t] = taken ? target : pc + len;
        c->g_event = TMC_BRANCH;
        rec->pc = pc;
        rec->target = target;
        rec->bclass = (uint8_t)(info & 7u);
        rec->taken = (uint8_t)taken;
        rec->len = (uint8_t)len;
        break;
    }
    case TMC_MEM: {
        uint64_t tid = tmc_get_uv(&p, &bad);
        uint64_t dcycle = tmc_get_uv(&p, &bad);
        unsigned flags = p[0], size = p[1];
        p += 2;
        uint64_t addr = tmc_get_uv(&p, &bad);
        /* A bad size is reported below, once truncation is ruled out. */
        int size_ok = size - 1u < TMC_MAX_OPERAND;
        if (size_ok) {
            memcpy(rec->value, p, size);
            memset(rec->value + size, 0, TMC_MAX_OPERAND - size);
            p += size;
        }
        if ((rc = thread_record(r, rec, type, tid, dcycle, p, bad)) != 0)
            return rc;
        if (__builtin_expect(!size_ok, 0))
            return check_fail(r, tmc_check_size_fail(c, size), r->base + r->pos);
        if (__builtin_expect(flags & ~TMC_MEM_STORE, 0))
            return check_fail(r, tmc_check_flags_fail(c, type, flags), r->base + r->pos);
        if (__builtin_expect(addr > UINT64_MAX - (size - 1u), 0))
            return check_fail(r, tmc_check_wrap_fail(c, addr, size), r->base + r->pos);
        rec->flags = flags;
        rec->size = (uint8_t)size;
        rec->addr = addr;
        break;
    }
    case TMC_START: {
        uint64_t tid = tmc_get_uv(&p, &bad);
        uint64_t dcycle = tmc_get_uv(&p, &bad);
        unsigned flags = *p++;
        uint64_t pc = tmc_get_uv(&p, &bad);
        if ((rc = thread_record(r, rec, type, tid, dcycle, p, bad)) != 0)
            return rc;
        if (__builtin_expect(flags & ~TMC_START_TRACE_ON, 0))
            return check_fail(r, tmc_check_flags_fail(c, type, flags), r->base + r->pos);
        uint32_t t = (uint32_t)tid;
        c->state[t] = TMC_TS_LIVE;
        c->g_event = TMC_START;
        c->pc[t] = pc;
        rec->flags = flags;
        rec->pc = pc;
        break;
    }
    case TMC_EXIT: {
        uint64_t tid = tmc_get_uv(&p, &bad);
        uint64_t dcycle = tmc_get_uv(&p, &bad);
        unsigned flags = *p++;
        if ((rc = thread_record(r, rec, type, tid, dcycle, p, bad)) != 0)
            return rc;
        if (__builtin_expect(flags & ~TMC_EXIT_TRACE_OFF, 0))
            return check_fail(r, tmc_check_flags_fail(c, type, flags), r->base + r->pos);
        c->state[tid] = TMC_TS_DONE;
        c->g_event = TMC_EXIT;
        rec->flags = flags;
        break;
    }
    case TMC_EXC: {
        uint64_t tid = tmc_get_uv(&p, &bad);
        uint64_t dcycle = tmc_get_uv(&p, &bad);
        uint64_t handler = tmc_get_uv(&p, &bad);
        if ((rc = thread_record(r, rec, type, tid, dcycle, p, bad)) != 0)
            return rc;
        rec->pc = c->pc[tid];
        rec->target = handler;
        c->pc[tid] = handler;
        c->g_event = TMC_EXC;
        break;
    }
    case TMC_MODULE:
        if (hot)
            return COLD;
        return read_module(r, rec);
    case TMC_END:
        if (hot)
            return COLD;
        return read_end(r, rec);
    case TMC_ENDING:
        if (hot)
            return COLD;
        return read_cut(r, rec);
    default:
        if (hot)
            return COLD;
        return failf(r, TM_ERR_FORMAT, r->base + r->pos, "unknown record type %u", type);
    }
    r->pos = (size_t)(p - r->buf);
    r->nrec++;
    return 1;
}

int tmc_reader_next(tmc_reader *r, tmc_record *rec)
{
    return next_record(r, rec, 0);
}

/* The records of types 1..6 are decoded into a record of this function's
 * own, which the compiler keeps in registers, and packed from there: no
 * tmc_record is written and read back.  (Every path of next_record that
 * returns 1 sets each field tmc_crec_pack reads, by clear_record; GCC
 * cannot see it through the switch.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
size_t tmc_reader_crecs(tmc_reader *r, tmc_crec *out, size_t max, uint8_t *vals, size_t *nvals, uint32_t *ends)
{
    size_t k = 0, nv = 0;
    uint64_t off0 = r->base + r->pos;
    while (k < max) {
        tmc_record rec;
        if (next_record(r, &rec, 1) != 1)
            break; /* (COLD: the caller's tmc_reader_next) */
        if (__builtin_expect(rec.type == TMC_MEM, 0)) {
            memcpy(vals + nv, rec.value, rec.size);
            nv += rec.size;
        }
        tmc_crec_pack(&out[k], &rec);
        if (ends)
            ends[k] = (uint32_t)(r->base + r->pos - off0);
        k++;
    }
    *nvals = nv;
    return k;
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

int tmc_reader_open(const char *path, tmc_reader **out, char *err, size_t errlen)
{
    tmc_reader *r = NULL;
    int rc = reader_open(path, &r);
    if (rc != TM_OK) {
        tm_err_set(err, errlen, r && r->err[0] ? r->err : tm_status_str(rc));
        tmc_reader_close(r);
        r = NULL;
    }
    *out = r;
    return rc;
}
