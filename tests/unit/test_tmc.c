/* Unit tests of the commit stream library (tmc/): writer -> reader round
 * trips, and every rule of docs/spec.md §2.3 on hand-made streams.
 *
 * Bad streams are built byte by byte (struct raw), compressed with
 * ZSTD_compress and read back; each test asserts the status and that the
 * message names the file and the offset of the record at fault. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>
#include "tm/tmc.h"
#include "tm/tmcrec.h"

/* ---- temporary directory (one per test; Criterion runs each test in its
 * own process) ---- */

typedef struct tdir {
    char dir[64];
    char path[160];
} tdir;

static void tdir_make(tdir *d)
{
    strcpy(d->dir, "/tmp/tmc-unit.XXXXXX");
    cr_assert_not_null(mkdtemp(d->dir), "mkdtemp failed");
}

/* Path of NAME in the directory (valid until the next call). */
static const char *tdir_path(tdir *d, const char *name)
{
    snprintf(d->path, sizeof d->path, "%s/%s", d->dir, name);
    return d->path;
}

static void tdir_clean(tdir *d)
{
    DIR *dp = opendir(d->dir);
    if (!dp)
        return;
    struct dirent *e;
    char p[400];
    while ((e = readdir(dp)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(p, sizeof p, "%s/%s", d->dir, e->d_name);
        unlink(p);
    }
    closedir(dp);
    rmdir(d->dir);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s", path);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 1 << 16, len = 0;
    uint8_t *b = malloc(cap);
    size_t got;
    while ((got = fread(b + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    *n = len;
    return b;
}

/* ---- raw (decompressed) stream builder ---- */

typedef struct raw {
    uint8_t b[16384];
    size_t n;
} raw;

static void u8(raw *r, unsigned v)
{
    cr_assert_lt(r->n, sizeof r->b);
    r->b[r->n++] = (uint8_t)v;
}

static void uv(raw *r, uint64_t v)
{
    while (v >= 0x80) {
        u8(r, (unsigned)(v & 0x7F) | 0x80);
        v >>= 7;
    }
    u8(r, (unsigned)v);
}

static void sv(raw *r, int64_t v)
{
    uint64_t u = (uint64_t)v;
    uv(r, (u << 1) ^ (0 - (u >> 63)));
}

static void le(raw *r, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        u8(r, (unsigned)(v >> (8 * i)) & 0xFF);
}

static void hdr_full(raw *r, uint32_t magic, unsigned version, unsigned hlen, uint32_t threads,
                     uint32_t flags)
{
    r->n = 0;
    le(r, magic, 4);
    le(r, version, 2);
    le(r, hlen, 2);
    le(r, threads, 4);
    le(r, flags, 4);
}

#define MAGIC 0x00434D54u /* "TMC\0" little-endian */
#define MAX_PATH 4096u /* longest MODULE path (docs/spec.md §2.2) */

static void hdr(raw *r, uint32_t threads)
{
    hdr_full(r, MAGIC, 1, 16, threads, 0);
}

static void head(raw *r, unsigned type, uint64_t tid, uint64_t dcycle)
{
    u8(r, type);
    uv(r, tid);
    uv(r, dcycle);
}

static void r_start(raw *r, uint64_t tid, uint64_t dc, unsigned flags, uint64_t pc)
{
    head(r, TMC_START, tid, dc);
    u8(r, flags);
    uv(r, pc);
}

static void r_exit(raw *r, uint64_t tid, uint64_t dc, unsigned flags)
{
    head(r, TMC_EXIT, tid, dc);
    u8(r, flags);
}

static void r_run(raw *r, uint64_t tid, uint64_t dc, uint64_t count, uint64_t bytes)
{
    head(r, TMC_RUN, tid, dc);
    uv(r, count);
    uv(r, bytes);
}

static void r_branch(raw *r, uint64_t tid, uint64_t dc, unsigned info, unsigned len, int64_t dpc,
                     int64_t dtarget)
{
    head(r, TMC_BRANCH, tid, dc);
    u8(r, info);
    u8(r, len);
    sv(r, dpc);
    sv(r, dtarget);
}

static void r_exc(raw *r, uint64_t tid, uint64_t dc, uint64_t handler)
{
    head(r, TMC_EXC, tid, dc);
    uv(r, handler);
}

static void r_mem(raw *r, uint64_t tid, uint64_t dc, unsigned flags, unsigned size, uint64_t addr)
{
    head(r, TMC_MEM, tid, dc);
    u8(r, flags);
    u8(r, size);
    uv(r, addr);
    for (unsigned i = 0; i < size; i++)
        u8(r, 0xA0 + i);
}

static void r_module(raw *r, uint64_t addr, const char *path, size_t plen, size_t blen)
{
    u8(r, TMC_MODULE);
    uv(r, addr);
    uv(r, plen);
    for (size_t i = 0; i < plen; i++)
        u8(r, (unsigned char)path[i % strlen(path)]);
    uv(r, blen);
    for (size_t i = 0; i < blen; i++)
        u8(r, (unsigned)i);
}

static void r_end(raw *r, uint64_t count)
{
    u8(r, TMC_END);
    uv(r, count);
}

/* Compresses BYTES into one zstd frame (no checksum) at PATH. */
static void write_zst(const char *path, const void *bytes, size_t n)
{
    size_t cap = ZSTD_compressBound(n);
    void *z = malloc(cap);
    size_t zn = ZSTD_compress(z, cap, bytes, n, 3);
    cr_assert(!ZSTD_isError(zn), "ZSTD_compress: %s", ZSTD_getErrorName(zn));
    write_file(path, z, zn);
    free(z);
}

/* ---- reading ---- */

/* Reads PATH to the end; returns the final status (0 = clean end) and the
 * number of records delivered (END included) in *nrec; the message is
 * copied to MSG. */
static int read_all(const char *path, uint64_t *nrec, char *msg, size_t msglen)
{
    tmc_reader *r = NULL;
    int rc = tmc_reader_open(path, &r, msg, msglen);
    uint64_t n = 0;
    if (rc == 0) {
        tmc_record rec;
        while ((rc = tmc_reader_next(r, &rec)) == 1)
            n++;
        if (rc < 0) {
            /* Errors are sticky. */
            cr_assert_eq(tmc_reader_next(r, &rec), rc);
        }
    }
    if (r)
        snprintf(msg, msglen, "%s", tmc_reader_error(r));
    tmc_reader_close(r);
    if (nrec)
        *nrec = n;
    return rc;
}

/* Writes RAW compressed, reads it, and asserts status CODE with a message
 * naming the file and "offset AT:" and containing NEEDLE. */
static void expect_bad(const raw *r, int code, uint64_t at, const char *needle)
{
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "bad.tmc");
    write_zst(p, r->b, r->n);
    char msg[1024];
    int rc = read_all(p, NULL, msg, sizeof msg);
    cr_expect_eq(rc, code, "status %d (%s), expected %d; message: %s", rc, tm_status_str(rc),
                 code, msg);
    char off[64];
    snprintf(off, sizeof off, ": offset %" PRIu64 ": ", at);
    cr_expect(strncmp(msg, p, strlen(p)) == 0, "message does not start with the file: %s", msg);
    cr_expect(strstr(msg, off) != NULL, "message lacks '%s': %s", off, msg);
    if (needle)
        cr_expect(strstr(msg, needle) != NULL, "message lacks '%s': %s", needle, msg);
    cr_expect_eq(strchr(msg, '\n'), NULL, "message has a newline: %s", msg);
    tdir_clean(&d);
}

/* ---- writing ---- */

static tmc_record rec_of(tmc_type type, uint32_t tid, uint64_t cycle)
{
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = type;
    r.tid = tid;
    r.cycle = cycle;
    return r;
}

static void put_ok(tmc_writer *w, tmc_record r)
{
    int rc = tmc_writer_put(w, &r);
    cr_assert_eq(rc, 0, "put: %s", tmc_writer_error(w));
}

static tmc_record start_at(uint32_t tid, uint64_t cycle, uint64_t pc)
{
    tmc_record r = rec_of(TMC_START, tid, cycle);
    r.pc = pc;
    return r;
}

static tmc_record run_of(uint32_t tid, uint64_t cycle, uint64_t count, uint64_t bytes)
{
    tmc_record r = rec_of(TMC_RUN, tid, cycle);
    r.count = count;
    r.bytes = bytes;
    return r;
}

static tmc_record branch_of(uint32_t tid, uint64_t cycle, unsigned cls, unsigned taken,
                            unsigned len, uint64_t pc, uint64_t target)
{
    tmc_record r = rec_of(TMC_BRANCH, tid, cycle);
    r.bclass = (uint8_t)cls;
    r.taken = (uint8_t)taken;
    r.len = (uint8_t)len;
    r.pc = pc;
    r.target = target;
    return r;
}

/* The records of the round-trip test, with every field the reader fills. */
static size_t sample_records(tmc_record *out)
{
    size_t n = 0;
    tmc_record r;

    r = rec_of(TMC_MODULE, 0, 0);
    r.addr = 0x400000;
    r.path = "/usr/bin/prog";
    r.path_len = strlen(r.path);
    static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                     11, 12, 13, 14, 15, 16 };
    r.build_id = bid;
    r.build_id_len = sizeof bid;
    out[n++] = r;

    r = rec_of(TMC_MODULE, 0, 0);
    r.addr = UINT64_MAX;
    r.path = "libx.so";
    r.path_len = 7;
    out[n++] = r;

    out[n++] = start_at(0, 0, 0);                       /* cycle 0, pc 0 */
    r = start_at(2, 0, UINT64_MAX - 5);                 /* pc near 2^64 */
    r.flags = TMC_START_TRACE_ON;
    out[n++] = r;

    r = run_of(0, 1, 5, 17);
    r.pc = 0;
    out[n++] = r;
    r = rec_of(TMC_MEM, 0, 1);
    r.size = 4;
    r.addr = 0x7ffd1000;
    memcpy(r.value, "\x2a\x00\x00\x80", 4);
    out[n++] = r;
    out[n++] = branch_of(0, 1, TMC_COND, 1, 2, 17, 0);  /* negative dtarget, taken */

    r = run_of(2, 1, TMC_MAX_RETIRE_PER_CYCLE, UINT64_MAX); /* pc wraps */
    r.pc = UINT64_MAX - 5;
    out[n++] = r;

    out[n++] = branch_of(0, 2, TMC_COND, 0, 6, 0, 0x1000);  /* not taken: pc 6 next */
    out[n++] = branch_of(2, 2, TMC_RET, 1, 1, UINT64_MAX - 6, 0x8000000000000000ull);

    out[n++] = branch_of(0, 3, TMC_JUMP, 1, 5, 6, 0x100);
    out[n++] = branch_of(0, 4, TMC_CALL, 1, 5, 0x100, 0x200);
    out[n++] = branch_of(0, 5, TMC_IJUMP, 1, 3, 0x200, 0x300);
    out[n++] = branch_of(0, 6, TMC_ICALL, 1, 2, 0x300, 0);
    r = rec_of(TMC_MEM, 0, 7);
    r.flags = TMC_MEM_STORE;
    r.size = 64;
    r.addr = UINT64_MAX - 63; /* the last 64 bytes of the address space */
    for (int i = 0; i < 64; i++)
        r.value[i] = (uint8_t)(255 - i);
    out[n++] = r;
    r = rec_of(TMC_MEM, 0, 7);
    r.size = 1;
    r.addr = 0;
    r.value[0] = 0xff;
    out[n++] = r;
    r = rec_of(TMC_EXC, 0, 7);
    r.pc = 0;
    r.target = 0xffffffff80001000ull;
    out[n++] = r;

    r = run_of(0, 1ull << 40, 1, 1);
    r.pc = 0xffffffff80001000ull;
    out[n++] = r;
    r = rec_of(TMC_EXIT, 0, 1ull << 40);
    r.flags = TMC_EXIT_TRACE_OFF;
    out[n++] = r;

    r = rec_of(TMC_MODULE, 0, 0);
    r.addr = 0;
    r.path = "late module";
    r.path_len = 11;
    out[n++] = r;

    out[n++] = start_at(1, UINT64_MAX, 0x8000000000000000ull); /* cycle 2^64-1 */
    out[n++] = rec_of(TMC_EXIT, 2, UINT64_MAX);
    return n;
}

static void write_records(const char *path, uint32_t threads, const tmc_record *recs, size_t n)
{
    tmc_writer *w = NULL;
    char e[600] = "";
    int rc = tmc_writer_open(path, threads, 0, &w, e, sizeof e);
    cr_assert_eq(rc, 0, "open: %s", e);
    for (size_t i = 0; i < n; i++)
        put_ok(w, recs[i]);
    rc = tmc_writer_close(w);
    cr_assert_eq(rc, 0);
}

static void assert_same(const tmc_record *got, const tmc_record *exp, size_t i)
{
    cr_assert_eq(got->type, exp->type, "record %zu: type %d, expected %d", i, got->type,
                 exp->type);
    if (exp->type == TMC_MODULE) {
        cr_assert_eq(got->addr, exp->addr, "record %zu", i);
        cr_assert_eq(got->path_len, exp->path_len, "record %zu", i);
        cr_assert_eq(memcmp(got->path, exp->path, exp->path_len), 0, "record %zu", i);
        cr_assert_eq(got->path[got->path_len], '\0', "path is NUL-terminated");
        cr_assert_eq(got->build_id_len, exp->build_id_len, "record %zu", i);
        if (exp->build_id_len)
            cr_assert_eq(memcmp(got->build_id, exp->build_id, exp->build_id_len), 0);
        return;
    }
    cr_assert_eq(got->tid, exp->tid, "record %zu", i);
    cr_assert_eq(got->cycle, exp->cycle, "record %zu: cycle %" PRIu64 ", expected %" PRIu64, i,
                 got->cycle, exp->cycle);
    cr_assert_eq(got->flags, exp->flags, "record %zu", i);
    switch (exp->type) {
    case TMC_START:
    case TMC_RUN:
    case TMC_BRANCH:
    case TMC_EXC:
        cr_assert_eq(got->pc, exp->pc, "record %zu: pc 0x%" PRIx64 ", expected 0x%" PRIx64, i,
                     got->pc, exp->pc);
        break;
    default:
        break;
    }
    if (exp->type == TMC_RUN) {
        cr_assert_eq(got->count, exp->count, "record %zu", i);
        cr_assert_eq(got->bytes, exp->bytes, "record %zu", i);
    }
    if (exp->type == TMC_BRANCH) {
        cr_assert_eq(got->bclass, exp->bclass, "record %zu", i);
        cr_assert_eq(got->taken, exp->taken, "record %zu", i);
        cr_assert_eq(got->len, exp->len, "record %zu", i);
        cr_assert_eq(got->target, exp->target, "record %zu", i);
    }
    if (exp->type == TMC_EXC)
        cr_assert_eq(got->target, exp->target, "record %zu", i);
    if (exp->type == TMC_MEM) {
        cr_assert_eq(got->size, exp->size, "record %zu", i);
        cr_assert_eq(got->addr, exp->addr, "record %zu", i);
        cr_assert_eq(memcmp(got->value, exp->value, exp->size), 0, "record %zu", i);
    }
}

static void read_expect(const char *path, uint32_t threads, const tmc_record *exp, size_t n)
{
    tmc_reader *r = NULL;
    char e[600] = "";
    int rc = tmc_reader_open(path, &r, e, sizeof e);
    cr_assert_eq(rc, 0, "open: %s", e);
    cr_assert_eq(tmc_reader_threads(r), threads);
    cr_assert_eq(tmc_reader_offset(r), 16);
    tmc_record got;
    for (size_t i = 0; i < n; i++) {
        rc = tmc_reader_next(r, &got);
        cr_assert_eq(rc, 1, "record %zu: %d %s", i, rc, tmc_reader_error(r));
        assert_same(&got, &exp[i], i);
    }
    rc = tmc_reader_next(r, &got);
    cr_assert_eq(rc, 1, "END: %s", tmc_reader_error(r));
    cr_assert_eq(got.type, TMC_END);
    cr_assert_eq(got.count, n);
    cr_assert_eq(tmc_reader_next(r, &got), 0);
    cr_assert_eq(tmc_reader_next(r, &got), 0);
    cr_assert_str_eq(tmc_reader_error(r), "");
    tmc_reader_close(r);
}

Test(tmc, roundtrip_every_record_type)
{
    tdir d;
    tdir_make(&d);
    tmc_record recs[64];
    size_t n = sample_records(recs);
    const char *p = tdir_path(&d, "rt.tmc");
    write_records(p, 3, recs, n);
    read_expect(p, 3, recs, n);
    tdir_clean(&d);
}

Test(tmc, writer_is_deterministic)
{
    tdir d;
    tdir_make(&d);
    tmc_record recs[64];
    size_t n = sample_records(recs);
    char a[200], b[200];
    snprintf(a, sizeof a, "%s", tdir_path(&d, "a.tmc"));
    snprintf(b, sizeof b, "%s", tdir_path(&d, "b.tmc"));
    write_records(a, 3, recs, n);
    write_records(b, 3, recs, n);
    size_t na, nb;
    uint8_t *da = read_file(a, &na), *db = read_file(b, &nb);
    cr_assert_eq(na, nb);
    cr_assert_eq(memcmp(da, db, na), 0);
    free(da);
    free(db);
    tdir_clean(&d);
}

/* The exact bytes of a small stream: header, varint and zigzag coding. */
Test(tmc, writer_bytes)
{
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "bytes.tmc");
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(p, 4, 0, &w, NULL, 0), 0);
    put_ok(w, start_at(1, 12, 0x401000));
    put_ok(w, run_of(1, 13, 5, 17));
    put_ok(w, branch_of(1, 14, TMC_COND, 1, 2, 0x401011, 0x401000));
    cr_assert_eq(tmc_writer_close(w), 0);
    size_t zn;
    uint8_t *z = read_file(p, &zn);
    uint8_t out[256];
    size_t n = ZSTD_decompress(out, sizeof out, z, zn);
    cr_assert(!ZSTD_isError(n), "%s", ZSTD_getErrorName(n));
    static const uint8_t exp[] = {
        'T', 'M', 'C', 0, 1, 0, 16, 0, 4, 0, 0, 0, 0, 0, 0, 0,
        1, 1, 12, 0, 0x80, 0xa0, 0x80, 0x02,    /* START t1 +12 pc 0x401000 */
        3, 1, 1, 5, 17,                          /* RUN t1 +1 5 insns 17 bytes */
        4, 1, 1, 0x08, 2, 0, 0x21,               /* BRANCH cond T len 2 dpc 0 dtarget -17 */
        8, 3                                     /* END 3 records */
    };
    cr_assert_eq(n, sizeof exp, "decompressed %zu bytes", n);
    cr_assert_eq(memcmp(out, exp, n), 0);
    free(z);
    tdir_clean(&d);
}

Test(tmc, varint_extremes)
{
    /* 0, 2^63 and 2^64-1 as pc, target, addr, handler, dcycle. */
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, UINT64_MAX);                       /* pc 2^64-1 */
    r_mem(&r, 0, 1, 0, 8, UINT64_MAX - 7);                  /* the last 8 bytes */
    r_branch(&r, 0, 0, 0x08 | TMC_COND, 255, 0, INT64_MIN); /* dtarget -2^63 */
    r_exc(&r, 0, UINT64_MAX - 1, 0x8000000000000000ull);    /* cycle 2^64-1 */
    r_end(&r, 4);
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "v.tmc");
    write_zst(p, r.b, r.n);
    tmc_reader *rd = NULL;
    cr_assert_eq(tmc_reader_open(p, &rd, NULL, 0), 0);
    tmc_record rec;
    cr_assert_eq(tmc_reader_next(rd, &rec), 1);
    cr_assert_eq(rec.pc, UINT64_MAX);
    cr_assert_eq(rec.cycle, 0);
    cr_assert_eq(tmc_reader_next(rd, &rec), 1);
    cr_assert_eq(rec.addr, UINT64_MAX - 7);
    cr_assert_eq(rec.value[0], 0xA0);
    cr_assert_eq(rec.value[7], 0xA7);
    cr_assert_eq(rec.value[8], 0, "value bytes beyond size are 0");
    cr_assert_eq(tmc_reader_next(rd, &rec), 1);
    cr_assert_eq(rec.pc, UINT64_MAX);
    cr_assert_eq(rec.target, 0x7FFFFFFFFFFFFFFFull, "2^64-1 - 2^63");
    cr_assert_eq(rec.len, 255);
    cr_assert_eq(tmc_reader_next(rd, &rec), 1);
    cr_assert_eq(rec.cycle, UINT64_MAX);
    cr_assert_eq(rec.pc, 0x7FFFFFFFFFFFFFFFull);
    cr_assert_eq(rec.target, 0x8000000000000000ull);
    cr_assert_eq(tmc_reader_next(rd, &rec), 1);
    cr_assert_eq(rec.type, TMC_END);
    cr_assert_eq(tmc_reader_next(rd, &rec), 0);
    tmc_reader_close(rd);

    /* Non-minimal encodings (0 as 80 80 ... 00, 10 bytes) are accepted. */
    hdr(&r, 1);
    u8(&r, TMC_START);
    for (int i = 0; i < 9; i++)
        u8(&r, 0x80);
    u8(&r, 0x00);                 /* tid 0 in 10 bytes */
    u8(&r, 0);                    /* dcycle */
    u8(&r, 0);                    /* flags */
    for (int i = 0; i < 9; i++)
        u8(&r, 0xFF);
    u8(&r, 0x01);                 /* pc 2^64-1 in 10 bytes */
    r_end(&r, 1);
    write_zst(p, r.b, r.n);
    char msg[512];
    uint64_t n;
    cr_assert_eq(read_all(p, &n, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(n, 2);
    tdir_clean(&d);
}

Test(tmc, pc_tracking)
{
    /* RUN advances pc, not-taken cond goes to pc + len, EXC goes to the
     * handler, START sets it; each thread keeps its own. */
    raw r;
    hdr(&r, 2);
    r_start(&r, 0, 1, 0, 0x1000);
    r_start(&r, 1, 0, 0, 0x9000);
    r_run(&r, 0, 1, 3, 10);                  /* 0x1000..0x100a */
    r_branch(&r, 0, 0, 0x00, 4, 0, 0x50);    /* cond N at 0x100a -> 0x100e */
    r_run(&r, 1, 0, 1, 4);                   /* 0x9000 -> 0x9004 */
    r_exc(&r, 1, 0, 0xdead0000);
    r_branch(&r, 0, 1, 0x08 | TMC_CALL, 5, 0, -0xe); /* call at 0x100e -> 0x1000 */
    r_run(&r, 1, 0, 2, 2);                   /* at 0xdead0000 */
    r_end(&r, 8);
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "pc.tmc");
    write_zst(p, r.b, r.n);
    tmc_reader *rd = NULL;
    cr_assert_eq(tmc_reader_open(p, &rd, NULL, 0), 0);
    static const uint64_t pcs[] = { 0x1000, 0x9000, 0x1000, 0x100a, 0x9000, 0x9004, 0x100e,
                                    0xdead0000 };
    static const uint64_t cycles[] = { 1, 1, 2, 2, 2, 2, 3, 3 };
    tmc_record rec;
    for (int i = 0; i < 8; i++) {
        cr_assert_eq(tmc_reader_next(rd, &rec), 1, "%s", tmc_reader_error(rd));
        cr_assert_eq(rec.pc, pcs[i], "record %d: pc 0x%" PRIx64, i, rec.pc);
        cr_assert_eq(rec.cycle, cycles[i], "record %d", i);
        if (rec.type == TMC_BRANCH && i == 3)
            cr_assert_eq(rec.target, 0x105a);
        if (rec.type == TMC_BRANCH && i == 6)
            cr_assert_eq(rec.target, 0x1000);
        if (rec.type == TMC_EXC)
            cr_assert_eq(rec.target, 0xdead0000);
    }
    cr_assert_eq(tmc_reader_next(rd, &rec), 1);
    cr_assert_eq(tmc_reader_next(rd, &rec), 0);
    cr_assert_eq(tmc_reader_offset(rd), r.n);
    tmc_reader_close(rd);
    tdir_clean(&d);
}

/* Many records, with MODULE records of the longest kind, so that records
 * straddle every position of the reader's buffer refills; several frames. */
Test(tmc, large_stream_and_buffer_boundaries)
{
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "big.tmc");
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(p, 2, 1, &w, NULL, 0), 0);
    char path[MAX_PATH + 1];
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = 0;
    put_ok(w, start_at(0, 0, 0x400000));
    put_ok(w, start_at(1, 0, 0x800000));
    uint64_t pc[2] = { 0x400000, 0x800000 };
    uint64_t nrec = 2, insns = 0;
    for (uint64_t c = 1; c <= 200000; c++) {
        for (uint32_t t = 0; t < 2; t++) {
            uint64_t n = 1 + (c * 7 + t) % 300;
            put_ok(w, run_of(t, c, n, n * 3));
            pc[t] += n * 3;
            insns += n;
            put_ok(w, branch_of(t, c, TMC_COND, (c & 1), 2, pc[t], pc[t] - 64));
            pc[t] = (c & 1) ? pc[t] - 64 : pc[t] + 2;
            nrec += 2;
        }
        if (c % 9973 == 0) {
            tmc_record m = rec_of(TMC_MODULE, 0, 0);
            m.path = path;
            m.path_len = MAX_PATH - (c % 13);
            m.addr = c;
            put_ok(w, m);
            nrec++;
        }
    }
    cr_assert_eq(tmc_writer_close(w), 0);

    tmc_reader *r = NULL;
    cr_assert_eq(tmc_reader_open(p, &r, NULL, 0), 0);
    tmc_record rec;
    uint64_t n = 0, got_insns = 0, modules = 0;
    uint64_t rpc[2] = { 0x400000, 0x800000 };
    int rc;
    while ((rc = tmc_reader_next(r, &rec)) == 1) {
        if (rec.type == TMC_RUN) {
            cr_assert_eq(rec.pc, rpc[rec.tid]);
            got_insns += rec.count;
            rpc[rec.tid] += rec.bytes;
        } else if (rec.type == TMC_BRANCH) {
            rpc[rec.tid] = rec.taken ? rec.target : rec.pc + rec.len;
        } else if (rec.type == TMC_MODULE) {
            cr_assert_eq(rec.path_len, MAX_PATH - (rec.addr % 13));
            cr_assert_eq(rec.path[0], 'p');
            modules++;
        }
        if (rec.type != TMC_END)
            n++;
    }
    cr_assert_eq(rc, 0, "%s", tmc_reader_error(r));
    cr_assert_eq(n, nrec);
    cr_assert_eq(got_insns, insns);
    cr_assert_eq(modules, 200000 / 9973);
    tmc_reader_close(r);
    tdir_clean(&d);
}

Test(tmc, several_frames_and_skippable_frame)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 3, 0, 0x10);
    r_run(&r, 0, 1, 2, 8);
    r_end(&r, 2);
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "frames.tmc");
    /* Frame 1: the first 7 bytes; a skippable frame; frame 2: the rest. */
    uint8_t z[1024];
    size_t zn = ZSTD_compress(z, sizeof z, r.b, 7, 1);
    cr_assert(!ZSTD_isError(zn));
    static const uint8_t skip[] = { 0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'a', 'b', 'c' };
    memcpy(z + zn, skip, sizeof skip);
    zn += sizeof skip;
    size_t z2 = ZSTD_compress(z + zn, sizeof z - zn, r.b + 7, r.n - 7, 1);
    cr_assert(!ZSTD_isError(z2));
    write_file(p, z, zn + z2);
    char msg[512];
    uint64_t n;
    cr_assert_eq(read_all(p, &n, msg, sizeof msg), 0, "%s", msg);
    cr_assert_eq(n, 3);
    tdir_clean(&d);
}

/* Standard input that is a pipe: the reader must not seek. */
Test(tmc, read_stdin_pipe)
{
    tdir d;
    tdir_make(&d);
    tmc_record recs[64];
    size_t n = sample_records(recs);
    const char *p = tdir_path(&d, "pipe.tmc");
    write_records(p, 3, recs, n);
    size_t zn;
    uint8_t *z = read_file(p, &zn);
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(fd[0]);
        /* Small writes, so that the reader sees short reads. */
        for (size_t i = 0; i < zn; i += 7)
            if (write(fd[1], z + i, zn - i < 7 ? zn - i : 7) < 0)
                _exit(1);
        _exit(0);
    }
    close(fd[1]);
    cr_assert_neq(dup2(fd[0], 0), -1);
    close(fd[0]);
    clearerr(stdin);
    tmc_reader *r = NULL;
    char e[600] = "";
    cr_assert_eq(tmc_reader_open("-", &r, e, sizeof e), 0, "%s", e);
    tmc_record rec;
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(tmc_reader_next(r, &rec), 1, "%s", tmc_reader_error(r));
        assert_same(&rec, &recs[i], i);
    }
    cr_assert_eq(tmc_reader_next(r, &rec), 1);
    cr_assert_eq(tmc_reader_next(r, &rec), 0);
    tmc_reader_close(r);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    free(z);
    tdir_clean(&d);
}

/* A named pipe given as a path. */
Test(tmc, read_fifo_path)
{
    tdir d;
    tdir_make(&d);
    tmc_record recs[64];
    size_t n = sample_records(recs);
    char file[200], fifo[200];
    snprintf(file, sizeof file, "%s", tdir_path(&d, "f.tmc"));
    snprintf(fifo, sizeof fifo, "%s", tdir_path(&d, "fifo"));
    write_records(file, 3, recs, n);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        size_t zn;
        uint8_t *z = read_file(file, &zn);
        int fd = open(fifo, O_WRONLY);
        if (fd < 0 || write(fd, z, zn) != (ssize_t)zn)
            _exit(1);
        close(fd);
        _exit(0);
    }
    read_expect(fifo, 3, recs, n);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    tdir_clean(&d);
}

/* Writer on standard output ("-"). */
Test(tmc, write_stdout)
{
    tdir d;
    tdir_make(&d);
    tmc_record recs[64];
    size_t n = sample_records(recs);
    char p[200];
    snprintf(p, sizeof p, "%s", tdir_path(&d, "out.tmc"));
    fflush(stdout);
    int saved = dup(1);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0 && saved >= 0);
    cr_assert_neq(dup2(fd, 1), -1);
    close(fd);
    write_records("-", 3, recs, n);
    fflush(stdout);
    cr_assert_neq(dup2(saved, 1), -1);
    close(saved);
    read_expect(p, 3, recs, n);
    tdir_clean(&d);
}

/* ---- container and header errors ---- */

Test(tmc, missing_file)
{
    tmc_reader *r = NULL;
    char e[600] = "";
    int rc = tmc_reader_open("/nonexistent/dir/x.tmc", &r, e, sizeof e);
    cr_assert_eq(rc, TM_ERR_IO);
    cr_assert_null(r); /* a failed open leaves no handle (docs/architecture.md) */
    cr_assert(strstr(e, "/nonexistent/dir/x.tmc: ") == e, "%s", e);
    cr_assert(strstr(e, "No such file"), "%s", e);
}

Test(tmc, empty_file)
{
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "empty.tmc");
    write_file(p, "", 0);
    char msg[512];
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), TM_ERR_TRUNCATED, "%s", msg);
    cr_assert(strstr(msg, ": offset 0: ") && strstr(msg, "empty"), "%s", msg);
    cr_assert(strncmp(msg, p, strlen(p)) == 0, "%s", msg);
    tdir_clean(&d);
}

Test(tmc, not_zstd)
{
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "text.tmc");
    write_file(p, "hello, world\n", 13);
    char msg[512];
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), TM_ERR_ZSTD, "%s", msg);
    cr_assert(strstr(msg, ": offset 0: zstd: "), "%s", msg);
    cr_assert(strncmp(msg, p, strlen(p)) == 0, "%s", msg);

    /* An uncompressed stream gets a hint. */
    raw r;
    hdr(&r, 1);
    r_end(&r, 0);
    write_file(p, r.b, r.n);
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), TM_ERR_ZSTD, "%s", msg);
    cr_assert(strstr(msg, "not zstd-compressed"), "%s", msg);
    tdir_clean(&d);
}

Test(tmc, truncated_zstd)
{
    tdir d;
    tdir_make(&d);
    tmc_record recs[64];
    size_t n = sample_records(recs);
    const char *p = tdir_path(&d, "t.tmc");
    write_records(p, 3, recs, n);
    size_t zn;
    uint8_t *z = read_file(p, &zn);
    /* Every cut of the compressed file is an error, never a crash. */
    for (size_t cut = 0; cut < zn; cut++) {
        write_file(p, z, cut);
        char msg[512];
        int rc = read_all(p, NULL, msg, sizeof msg);
        cr_assert(rc == TM_ERR_TRUNCATED || rc == TM_ERR_ZSTD, "cut %zu: %d %s", cut, rc, msg);
        cr_assert(strncmp(msg, p, strlen(p)) == 0 && strstr(msg, ": offset "), "%s", msg);
    }
    write_file(p, z, zn - 1);
    char msg[512];
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), TM_ERR_TRUNCATED, "%s", msg);
    cr_assert(strstr(msg, "truncated"), "%s", msg);
    free(z);
    tdir_clean(&d);
}

/* Size of a zstd frame header (RFC 8878 §3.1.1.1). */
static size_t frame_header_size(const uint8_t *z)
{
    static const size_t did[4] = { 0, 1, 2, 4 }, fcs[4] = { 0, 2, 4, 8 };
    unsigned fhd = z[4];
    unsigned single = (fhd >> 5) & 1;
    size_t n = 4 + 1 + (single ? 0 : 1) + did[fhd & 3] + fcs[fhd >> 6];
    if (single && (fhd >> 6) == 0)
        n += 1;
    return n;
}

Test(tmc, corrupted_zstd)
{
    tdir d;
    tdir_make(&d);
    tmc_record recs[64];
    size_t n = sample_records(recs);
    const char *p = tdir_path(&d, "c.tmc");
    write_records(p, 3, recs, n);
    size_t zn;
    uint8_t *z = read_file(p, &zn);
    /* A wrong checksum (the last 4 bytes of the frame). */
    z[zn - 1] ^= 0x55;
    write_file(p, z, zn);
    char msg[512];
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), TM_ERR_ZSTD, "%s", msg);
    cr_assert(strstr(msg, "zstd: "), "%s", msg);
    cr_assert(strncmp(msg, p, strlen(p)) == 0 && strstr(msg, ": offset "), "%s", msg);
    z[zn - 1] ^= 0x55;
    /* Any single flipped byte after the frame header (where a flip may only
     * ask for a bigger window): an error, the checksum catching what the
     * format does not; never a crash. */
    size_t fh = frame_header_size(z);
    for (size_t i = fh; i < zn; i++) {
        z[i] ^= 0x21;
        write_file(p, z, zn);
        int rc = read_all(p, NULL, msg, sizeof msg);
        cr_assert(rc < 0, "flipped byte %zu was not detected", i);
        z[i] ^= 0x21;
    }
    free(z);
    tdir_clean(&d);
}

Test(tmc, garbage_after_stream)
{
    tdir d;
    tdir_make(&d);
    tmc_record recs[64];
    size_t n = sample_records(recs);
    const char *p = tdir_path(&d, "g.tmc");
    write_records(p, 3, recs, n);
    FILE *f = fopen(p, "ab");
    fputs("junk", f);
    fclose(f);
    char msg[512];
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), TM_ERR_ZSTD, "%s", msg);
    tdir_clean(&d);
}

Test(tmc, bad_magic)
{
    raw r;
    hdr_full(&r, 0x00434D55u, 1, 16, 1, 0);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 0, "bad magic");
}

Test(tmc, bad_version)
{
    raw r;
    hdr_full(&r, MAGIC, 2, 16, 1, 0);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 4, "version 2");
}

Test(tmc, bad_header_length)
{
    raw r;
    hdr_full(&r, MAGIC, 1, 24, 1, 0);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 6, "header length 24");
}

/* The header's flags (docs/spec.md §2.1): bits 3..0 the ISA (tm/isa.h),
 * 0..2 read back by tmc_reader_isa; an unknown ISA and any other bit are
 * refused at offset 12. */
Test(tmc, header_isa)
{
    for (uint32_t isa = 0; isa < 3; isa++) {
        raw r;
        hdr_full(&r, MAGIC, 1, 16, 1, isa);
        r_end(&r, 0);
        tdir d;
        tdir_make(&d);
        const char *p = tdir_path(&d, "isa.tmc");
        write_zst(p, r.b, r.n);
        tmc_reader *rd = NULL;
        char msg[256];
        cr_assert_eq(tmc_reader_open(p, &rd, msg, sizeof msg), TM_OK, "%s", msg);
        cr_assert_eq(tmc_reader_isa(rd), (int)isa);
        tmc_reader_close(rd);
        tdir_clean(&d);
    }
    raw r;
    hdr_full(&r, MAGIC, 1, 16, 1, 3);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 12, "unknown instruction set 3");
    hdr_full(&r, MAGIC, 1, 16, 1, 15);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 12, "unknown instruction set 15");
    hdr_full(&r, MAGIC, 1, 16, 1, 0x10);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 12, "bits 31..4 are reserved");
    hdr_full(&r, MAGIC, 1, 16, 1, 0x80000001u);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 12, "bits 31..4 are reserved");
}

/* tmc_writer_set_isa: the header says it; only before the first record;
 * an unknown ISA refused. */
Test(tmc, writer_isa)
{
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "w.tmc");
    tmc_writer *w = NULL;
    char e[600] = "";
    cr_assert_eq(tmc_writer_open(p, 2, 0, &w, e, sizeof e), TM_OK, "%s", e);
    cr_assert_eq(tmc_writer_set_isa(w, 1), TM_OK);
    cr_assert_eq(tmc_writer_set_isa(w, 2), TM_OK); /* again, still before any record */
    put_ok(w, start_at(0, 1, 0x1000));
    cr_assert_eq(tmc_writer_close(w), TM_OK);
    tmc_reader *rd = NULL;
    cr_assert_eq(tmc_reader_open(p, &rd, e, sizeof e), TM_OK, "%s", e);
    cr_assert_eq(tmc_reader_isa(rd), 2);
    tmc_record rec;
    cr_assert_eq(tmc_reader_next(rd, &rec), 1);
    cr_assert_eq(rec.type, TMC_START);
    tmc_reader_close(rd);
    /* after a record: refused, sticky */
    cr_assert_eq(tmc_writer_open(p, 2, 0, &w, e, sizeof e), TM_OK, "%s", e);
    put_ok(w, start_at(0, 1, 0x1000));
    cr_assert_eq(tmc_writer_set_isa(w, 1), TM_ERR_ARG);
    cr_assert(strstr(tmc_writer_error(w), "before the first record"), "%s", tmc_writer_error(w));
    cr_assert_eq(tmc_writer_close(w), TM_ERR_ARG);
    /* unknown */
    cr_assert_eq(tmc_writer_open(p, 2, 0, &w, e, sizeof e), TM_OK, "%s", e);
    cr_assert_eq(tmc_writer_set_isa(w, 3), TM_ERR_ARG);
    cr_assert(strstr(tmc_writer_error(w), "unknown instruction set 3"), "%s", tmc_writer_error(w));
    tmc_writer_abort(w);
    /* not set: x86-64 */
    cr_assert_eq(tmc_writer_open(p, 1, 0, &w, e, sizeof e), TM_OK, "%s", e);
    cr_assert_eq(tmc_writer_close(w), TM_OK);
    cr_assert_eq(tmc_reader_open(p, &rd, e, sizeof e), TM_OK, "%s", e);
    cr_assert_eq(tmc_reader_isa(rd), 0);
    tmc_reader_close(rd);
    tdir_clean(&d);
}

Test(tmc, bad_threads)
{
    raw r;
    hdr_full(&r, MAGIC, 1, 16, 0, 0);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 8, "threads 0 out of range 1..1024");
    hdr_full(&r, MAGIC, 1, 16, 1025, 0);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 8, "threads 1025");
    hdr_full(&r, MAGIC, 1, 16, 1024, 0);
    r_end(&r, 0);
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "ok.tmc");
    write_zst(p, r.b, r.n);
    char msg[256];
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), 0, "%s", msg);
    tdir_clean(&d);
}

Test(tmc, bad_header_flags)
{
    raw r;
    hdr_full(&r, MAGIC, 1, 16, 1, 0x100);
    r_end(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 12, "flags");
}

Test(tmc, short_header)
{
    raw r;
    hdr(&r, 1);
    r.n = 10;
    expect_bad(&r, TM_ERR_TRUNCATED, 0, "header incomplete (10 of 16");
}

/* ---- record errors ---- */

Test(tmc, unknown_record_type)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    u8(&r, 10);
    r_end(&r, 1);
    expect_bad(&r, TM_ERR_FORMAT, at, "unknown record type 10");
    hdr(&r, 1);
    u8(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 16, "unknown record type 0");
}

Test(tmc, thread_out_of_range)
{
    raw r;
    hdr(&r, 4);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    r_start(&r, 9, 0, 0, 0);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "thread id 9 out of range (stream declares 4 threads)");
    hdr(&r, 1);
    r_start(&r, UINT64_MAX, 0, 0, 0);
    expect_bad(&r, TM_ERR_FORMAT, 16, "out of range (stream declares 1 thread)");
}

Test(tmc, cycle_backwards)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, UINT64_MAX - 1, 0, 0);
    size_t at = r.n;
    r_run(&r, 0, 2, 1, 1);     /* 2^64 - 1 + 2 wraps */
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "cycle goes backwards");
}

Test(tmc, tid_decreases_within_cycle)
{
    raw r;
    hdr(&r, 2);
    r_start(&r, 1, 5, 0, 0);
    size_t at = r.n;
    r_start(&r, 0, 0, 0, 0);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "thread id decreases within cycle 5");
    /* ... but a lower tid in a later cycle is fine. */
    hdr(&r, 2);
    r_start(&r, 1, 5, 0, 0);
    r_start(&r, 0, 1, 0, 0);
    r_end(&r, 2);
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "ok.tmc");
    write_zst(p, r.b, r.n);
    char msg[256];
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), 0, "%s", msg);
    tdir_clean(&d);
}

Test(tmc, run_after_event)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    r_run(&r, 0, 1, 1, 1);
    r_exc(&r, 0, 0, 0x100);
    size_t at = r.n;
    r_run(&r, 0, 0, 1, 1);
    r_end(&r, 4);
    expect_bad(&r, TM_ERR_FORMAT, at, "RUN after the group's event (EXC)");

    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    at = r.n;
    r_mem(&r, 0, 0, 0, 4, 0x10);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "MEM after the group's event (START)");
}

Test(tmc, second_event_in_group)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    r_branch(&r, 0, 1, 0x08 | TMC_JUMP, 2, 0, 0x40);
    size_t at = r.n;
    r_branch(&r, 0, 0, 0x08 | TMC_JUMP, 2, 0, 0x40);
    r_end(&r, 3);
    expect_bad(&r, TM_ERR_FORMAT, at, "second event in the group of cycle 1, thread 0");
}

Test(tmc, run_sum_limit)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    r_run(&r, 0, 1, 65535, 65535);
    r_run(&r, 0, 1, 65535, 65535); /* next cycle: new group */
    size_t at = r.n;
    r_run(&r, 0, 0, 1, 1);
    r_end(&r, 4);
    expect_bad(&r, TM_ERR_FORMAT, at, "exceed 65535");
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    at = r.n;
    r_run(&r, 0, 1, 65536, 65536);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "exceed 65535");
}

Test(tmc, record_before_start)
{
    raw r;
    hdr(&r, 2);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    r_run(&r, 1, 0, 1, 1);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "thread 1: RUN at cycle 0 before the thread's START");
    hdr(&r, 1);
    r_exit(&r, 0, 0, 0);
    expect_bad(&r, TM_ERR_FORMAT, 16, "before the thread's START");
}

Test(tmc, record_after_exit)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    r_exit(&r, 0, 1, 0);
    size_t at = r.n;
    r_run(&r, 0, 1, 1, 1);
    r_end(&r, 3);
    expect_bad(&r, TM_ERR_FORMAT, at, "RUN at cycle 2 after the thread's EXIT");
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    r_exit(&r, 0, 1, TMC_EXIT_TRACE_OFF);
    at = r.n;
    r_start(&r, 0, 1, 0, 0);
    r_end(&r, 3);
    expect_bad(&r, TM_ERR_FORMAT, at, "START at cycle 2 after the thread's EXIT");
}

Test(tmc, second_start)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    r_start(&r, 0, 1, TMC_START_TRACE_ON, 0);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "second START");
}

Test(tmc, pc_discontinuity)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0x1000);
    r_run(&r, 0, 1, 2, 6);
    size_t at = r.n;
    r_branch(&r, 0, 0, 0x08 | TMC_JUMP, 2, 4, 0);
    r_end(&r, 3);
    expect_bad(&r, TM_ERR_FORMAT, at, "branch at 0x100a (dpc 4), expected 0x1006");
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0x1000);
    at = r.n;
    r_branch(&r, 0, 1, 0x08 | TMC_JUMP, 2, -1, 0);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "pc discontinuity");
}

Test(tmc, bad_branch_fields)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    r_branch(&r, 0, 1, 0x08 | 6, 2, 0, 0);
    expect_bad(&r, TM_ERR_FORMAT, at, "bad branch class 6");
    r.n = at;
    r_branch(&r, 0, 1, 0x08 | 7, 2, 0, 0);
    expect_bad(&r, TM_ERR_FORMAT, at, "bad branch class 7");
    r.n = at;
    r_branch(&r, 0, 1, 0x18, 2, 0, 0);
    expect_bad(&r, TM_ERR_FORMAT, at, "reserved bits");
    r.n = at;
    r_branch(&r, 0, 1, 0x88, 2, 0, 0);
    expect_bad(&r, TM_ERR_FORMAT, at, "reserved bits");
    for (unsigned cls = TMC_JUMP; cls <= TMC_RET; cls++) {
        r.n = at;
        r_branch(&r, 0, 1, cls, 2, 0, 0);
        r_end(&r, 2);
        expect_bad(&r, TM_ERR_FORMAT, at, "not taken");
    }
    r.n = at;
    r_branch(&r, 0, 1, 0x08, 0, 0, 0);
    expect_bad(&r, TM_ERR_FORMAT, at, "branch length 0");
}

Test(tmc, bad_mem)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    r_mem(&r, 0, 1, 0, 0, 0x10);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "operand size 0 at cycle 1, thread 0; allowed 1..64");
    r.n = at;
    head(&r, TMC_MEM, 0, 1);
    u8(&r, 0);
    u8(&r, 65);
    uv(&r, 0x10);
    for (int i = 0; i < 65; i++)
        u8(&r, 0);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "operand size 65");
    r.n = at;
    r_mem(&r, 0, 1, 2, 4, 0x10);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "MEM flags 0x02");
    /* An operand past the top of the address space (the cache model and the
     * RTL would see no line at all). */
    r.n = at;
    r_mem(&r, 0, 1, 0, 8, UINT64_MAX - 6);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "runs past the top of the 64-bit address space");
    r.n = at;
    r_mem(&r, 0, 1, 0, 8, UINT64_MAX - 7); /* the last 8 bytes: fine */
    r_end(&r, 2);
    {
        tdir d;
        tdir_make(&d);
        const char *p = tdir_path(&d, "top.tmc");
        write_zst(p, r.b, r.n);
        char msg[1024];
        uint64_t n = 0;
        cr_expect_eq(read_all(p, &n, msg, sizeof msg), 0, "%s", msg);
        cr_expect_eq(n, 3);
        tdir_clean(&d);
    }
}

Test(tmc, bad_flags)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0x80, 0);
    r_end(&r, 1);
    expect_bad(&r, TM_ERR_FORMAT, 16, "START flags 0x80");
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    r_exit(&r, 0, 1, 3);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "EXIT flags 0x03");
}

Test(tmc, bad_run)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    r_run(&r, 0, 1, 0, 0);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "RUN count 0");
    r.n = at;
    r_run(&r, 0, 1, 4, 3);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "bytes must be >= count");
}

Test(tmc, bad_varints)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    u8(&r, TMC_RUN);
    u8(&r, 0);
    for (int i = 0; i < 10; i++)
        u8(&r, 0x81);             /* 11-byte dcycle */
    u8(&r, 0x00);
    u8(&r, 1);
    u8(&r, 1);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "malformed varint in RUN");
    r.n = at;
    u8(&r, TMC_EXC);
    u8(&r, 0);
    u8(&r, 1);
    for (int i = 0; i < 9; i++)
        u8(&r, 0xFF);
    u8(&r, 0x02);                 /* bit 64 set: overflow */
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "malformed varint in EXC");
    hdr(&r, 1);
    r_end(&r, 0);
    r.n--;
    for (int i = 0; i < 10; i++)
        u8(&r, 0x80);
    u8(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, 16, "malformed varint in END");
}

Test(tmc, bad_module)
{
    raw r;
    hdr(&r, 1);
    r_module(&r, 0, "x", 0, 0);
    r_end(&r, 1);
    expect_bad(&r, TM_ERR_FORMAT, 16, "MODULE path length 0");
    hdr(&r, 1);
    r_module(&r, 0, "x", 4097, 0);
    r_end(&r, 1);
    expect_bad(&r, TM_ERR_FORMAT, 16, "MODULE path length 4097");
    hdr(&r, 1);
    r_module(&r, 0, "x", 4096, 65);
    r_end(&r, 1);
    expect_bad(&r, TM_ERR_FORMAT, 16, "MODULE build-id length 65");
    hdr(&r, 1);
    r_module(&r, 0, "x", 4096, 64);
    r.n -= 3;
    expect_bad(&r, TM_ERR_TRUNCATED, 16, "truncated: MODULE record incomplete");
    hdr(&r, 1);
    r_module(&r, 0, "abc", 3, 0);
    r.n -= 2;
    expect_bad(&r, TM_ERR_TRUNCATED, 16, "truncated");
}

Test(tmc, truncated_record)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    r_mem(&r, 0, 1, 0, 64, 0x10);
    r.n -= 1;
    expect_bad(&r, TM_ERR_TRUNCATED, at, "truncated: record incomplete");
    /* Cut inside a varint and right after the type byte. */
    r.n = at;
    r_run(&r, 0, 1, 300, 300);
    r.n -= 1;
    expect_bad(&r, TM_ERR_TRUNCATED, at, "truncated: record incomplete");
    r.n = at + 1;
    expect_bad(&r, TM_ERR_TRUNCATED, at, "truncated");
    r.n = at;
    u8(&r, TMC_END);
    expect_bad(&r, TM_ERR_TRUNCATED, at, "END record incomplete");
}

Test(tmc, missing_end)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    expect_bad(&r, TM_ERR_TRUNCATED, at, "truncated: no END record");
    hdr(&r, 1);
    expect_bad(&r, TM_ERR_TRUNCATED, 16, "truncated: no END record");
}

Test(tmc, end_count_mismatch)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    r_module(&r, 1, "m", 1, 0);
    size_t at = r.n;
    r_end(&r, 1);
    expect_bad(&r, TM_ERR_FORMAT, at, "END record count 1 does not match the 2 records");
}

Test(tmc, data_after_end)
{
    raw r;
    hdr(&r, 1);
    r_end(&r, 0);
    size_t at = r.n;
    u8(&r, 0);
    expect_bad(&r, TM_ERR_FORMAT, at, "data after the END record");
    hdr(&r, 1);
    r_end(&r, 0);
    r_end(&r, 1);
    expect_bad(&r, TM_ERR_FORMAT, at, "data after the END record");
}

/* Data after END in a second frame is found too. */
Test(tmc, data_after_end_next_frame)
{
    raw r;
    hdr(&r, 1);
    r_end(&r, 0);
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "two.tmc");
    uint8_t z[512];
    size_t z1 = ZSTD_compress(z, sizeof z, r.b, r.n, 1);
    size_t z2 = ZSTD_compress(z + z1, sizeof z - z1, "x", 1, 1);
    cr_assert(!ZSTD_isError(z1) && !ZSTD_isError(z2));
    write_file(p, z, z1 + z2);
    char msg[256];
    cr_assert_eq(read_all(p, NULL, msg, sizeof msg), TM_ERR_FORMAT, "%s", msg);
    cr_assert(strstr(msg, ": offset 18: data after the END record"), "%s", msg);
    tdir_clean(&d);
}

/* Random streams: every byte string is either accepted or refused with a
 * message, never a crash (the sanitizers watch). */
Test(tmc, random_bytes_never_crash)
{
    tdir d;
    tdir_make(&d);
    const char *p = tdir_path(&d, "rnd.tmc");
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int iter = 0; iter < 300; iter++) {
        raw r;
        hdr(&r, 1 + iter % 4);
        size_t n = 1 + (size_t)(iter * 37) % 400;
        for (size_t i = 0; i < n; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            /* Mostly small values so that records are often well-formed. */
            u8(&r, (s & 0x300) ? (unsigned)(s & 0x07) : (unsigned)(s >> 56));
        }
        write_zst(p, r.b, r.n);
        char msg[1024];
        int rc = read_all(p, NULL, msg, sizeof msg);
        if (rc < 0)
            cr_assert(strncmp(msg, p, strlen(p)) == 0 && strstr(msg, ": offset "), "%s", msg);
    }
    tdir_clean(&d);
}

/* ---- writer refusals ---- */

/* Opens a writer for 2 threads with both started at cycle 0 (pc 0x1000 and
 * 0x2000) and the group of thread 1 at cycle 0 ended. */
static tmc_writer *writer2(tdir *d)
{
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(tdir_path(d, "w.tmc"), 2, 0, &w, NULL, 0), 0);
    put_ok(w, start_at(0, 0, 0x1000));
    put_ok(w, start_at(1, 0, 0x2000));
    return w;
}

static void refused(tmc_writer *w, tmc_record r, const char *needle)
{
    int rc = tmc_writer_put(w, &r);
    cr_assert_eq(rc, TM_ERR_ARG, "put returned %d: %s", rc, tmc_writer_error(w));
    const char *m = tmc_writer_error(w);
    cr_assert(strstr(m, "w.tmc: offset "), "%s", m);
    cr_assert(strstr(m, needle), "'%s' not in: %s", needle, m);
    /* Sticky: later records are refused, close reports the error. */
    tmc_record ok = run_of(0, 100, 1, 1);
    cr_assert_eq(tmc_writer_put(w, &ok), TM_ERR_ARG);
    cr_assert_eq(tmc_writer_close(w), TM_ERR_ARG);
}

/* The records before the refusal are readable; END is missing. */
static void output_lacks_end(tdir *d, uint64_t records)
{
    char msg[512];
    uint64_t n;
    cr_assert_eq(read_all(tdir_path(d, "w.tmc"), &n, msg, sizeof msg), TM_ERR_TRUNCATED, "%s",
                 msg);
    cr_assert(strstr(msg, "no END record"), "%s", msg);
    cr_assert_eq(n, records);
}

Test(tmc, writer_refuses_bad_thread_order)
{
    tdir d;
    tdir_make(&d);
    refused(writer2(&d), start_at(0, 5, 0), "second START");
    output_lacks_end(&d, 2);
    refused(writer2(&d), run_of(2, 5, 1, 1), "thread id 2 out of range (stream declares 2 threads)");
    refused(writer2(&d), run_of(1, 0, 1, 1), "RUN after the group's event (START)");
    tmc_writer *w = writer2(&d);
    put_ok(w, run_of(1, 3, 1, 1));
    refused(w, run_of(0, 3, 1, 1), "thread id decreases within cycle 3");
    w = writer2(&d);
    put_ok(w, run_of(1, 3, 1, 1));
    refused(w, run_of(1, 2, 1, 1), "cycle goes backwards");
    w = writer2(&d);
    put_ok(w, rec_of(TMC_EXIT, 0, 1));
    refused(w, run_of(0, 2, 1, 1), "after the thread's EXIT");
    w = writer2(&d);
    put_ok(w, rec_of(TMC_EXC, 0, 1));
    refused(w, rec_of(TMC_EXIT, 0, 1), "second event");
    tdir_clean(&d);

    tdir_make(&d);
    cr_assert_eq(tmc_writer_open(tdir_path(&d, "w.tmc"), 2, 0, &w, NULL, 0), 0);
    refused(w, run_of(0, 0, 1, 1), "before the thread's START");
    tdir_clean(&d);
}

Test(tmc, writer_refuses_bad_fields)
{
    tdir d;
    tdir_make(&d);
    refused(writer2(&d), run_of(0, 1, 0, 0), "RUN count 0");
    refused(writer2(&d), run_of(0, 1, 3, 2), "bytes must be >= count");
    tmc_writer *w = writer2(&d);
    put_ok(w, run_of(0, 1, 65000, 65000));
    refused(w, run_of(0, 1, 536, 536), "exceed 65535");
    refused(writer2(&d), branch_of(0, 1, TMC_JUMP, 1, 2, 0x1004, 0), "pc discontinuity");
    refused(writer2(&d), branch_of(0, 1, 6, 1, 2, 0x1000, 0), "class 6");
    refused(writer2(&d), branch_of(0, 1, TMC_RET, 0, 2, 0x1000, 0), "not taken");
    refused(writer2(&d), branch_of(0, 1, TMC_COND, 2, 2, 0x1000, 0), "taken 2");
    refused(writer2(&d), branch_of(0, 1, TMC_COND, 1, 0, 0x1000, 0), "branch length 0");
    tmc_record m = rec_of(TMC_MEM, 0, 1);
    refused(writer2(&d), m, "operand size 0");
    m.size = 65;
    refused(writer2(&d), m, "operand size 65");
    m.size = 1;
    m.flags = 4;
    refused(writer2(&d), m, "MEM flags 0x04");
    m.flags = 0;
    m.size = 2;
    m.addr = UINT64_MAX;
    refused(writer2(&d), m, "past the top of the 64-bit address space");
    tmc_record s = start_at(0, 0, 0);
    s.flags = 2;
    w = NULL;
    cr_assert_eq(tmc_writer_open(tdir_path(&d, "w.tmc"), 2, 0, &w, NULL, 0), 0);
    refused(w, s, "START flags 0x02");
    tmc_record e = rec_of(TMC_EXIT, 0, 1);
    e.flags = 2;
    refused(writer2(&d), e, "EXIT flags 0x02");
    refused(writer2(&d), rec_of(TMC_END, 0, 1), "END records are written by tmc_writer_close");
    refused(writer2(&d), rec_of((tmc_type)0, 0, 1), "unknown record type 0");
    refused(writer2(&d), rec_of((tmc_type)10, 0, 1), "unknown record type 10");
    tmc_record mod = rec_of(TMC_MODULE, 0, 0);
    mod.path = "";
    refused(writer2(&d), mod, "MODULE path length 0");
    mod.path = "x";
    mod.path_len = 4097;
    refused(writer2(&d), mod, "MODULE path length 4097");
    mod.path_len = 1;
    mod.build_id_len = 65;
    refused(writer2(&d), mod, "build-id length 65");
    mod.build_id_len = 1;
    refused(writer2(&d), mod, "without build-id");
    tdir_clean(&d);
}

Test(tmc, writer_open_errors)
{
    tmc_writer *w = NULL;
    char e[600] = "";
    cr_assert_eq(tmc_writer_open("/nonexistent/dir/x.tmc", 1, 0, &w, e, sizeof e), TM_ERR_IO);
    cr_assert_null(w); /* a failed open leaves no handle */
    cr_assert(strstr(e, "/nonexistent/dir/x.tmc: cannot create: "), "%s", e);
    cr_assert_eq(tmc_writer_open("/tmp/never-created.tmc", 0, 0, &w, e, sizeof e), TM_ERR_ARG);
    cr_assert(strstr(e, "threads 0 out of range"), "%s", e);
    cr_assert_eq(tmc_writer_open("/tmp/never-created.tmc", 1025, 0, &w, e, sizeof e), TM_ERR_ARG);
    cr_assert_null(w);
    cr_assert_eq(tmc_writer_open("/tmp/never-created.tmc", 1, 1000, &w, e, sizeof e), TM_ERR_ARG);
    cr_assert(strstr(e, "zstd level 1000"), "%s", e);
    cr_assert_eq(access("/tmp/never-created.tmc", F_OK), -1);
}

Test(tmc, writer_abort_leaves_readable_prefix)
{
    tdir d;
    tdir_make(&d);
    tmc_writer *w = writer2(&d);
    put_ok(w, run_of(0, 1, 1, 1));
    tmc_writer_abort(w);
    output_lacks_end(&d, 3);
    tdir_clean(&d);
}

Test(tmc, bclass_names)
{
    static const char *const names[] = { "cond", "jump", "call", "ijump", "icall", "ret" };
    for (int i = 0; i < TMC_NCLASSES; i++) {
        cr_assert_str_eq(tmc_bclass_name((unsigned)i), names[i]);
        cr_assert_eq(tmc_bclass_parse(names[i]), i);
    }
    cr_assert_str_eq(tmc_bclass_name(6), "?");
    cr_assert_eq(tmc_bclass_parse("jmp"), -1);
    cr_assert_eq(tmc_bclass_parse(""), -1);
    cr_assert_eq(tmc_bclass_parse(NULL), -1);
}

/* ---- ENDING: how a recording and its program ended (spec §2.2) ---- */

static tmc_record cut_of(unsigned reason, unsigned sig)
{
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_ENDING;
    r.flags = reason;
    r.count = sig;
    return r;
}

Test(tmc, ending_round_trip)
{
    static const unsigned reason[] = {TMC_CUT_SHORT, TMC_CUT_SIGNAL, TMC_EXITED, TMC_EXITED, TMC_KILLED, TMC_EXECVED};
    static const unsigned code[] = {0, 15, 0, 255, 11, 0};
    for (int k = 0; k < 6; k++) {
        tdir d;
        tdir_make(&d);
        tmc_writer *w = writer2(&d);
        put_ok(w, run_of(0, 1, 1, 1));
        put_ok(w, cut_of(reason[k], code[k]));
        cr_assert_eq(tmc_writer_close(w), 0);
        tmc_reader *r = NULL;
        cr_assert_eq(tmc_reader_open(tdir_path(&d, "w.tmc"), &r, NULL, 0), 0);
        tmc_record rec;
        int rc, cuts = 0;
        while ((rc = tmc_reader_next(r, &rec)) == 1)
            if (rec.type == TMC_ENDING) {
                cuts++;
                cr_assert_eq(rec.flags, reason[k]);
                cr_assert_eq(rec.count, code[k]);
            }
        cr_assert_eq(rc, 0, "%s", tmc_reader_error(r));
        cr_assert_eq(cuts, 1);
        tmc_reader_close(r);
        tdir_clean(&d);
    }
}

Test(tmc, writer_refuses_bad_ending)
{
    tdir d;
    tdir_make(&d);
    refused(writer2(&d), cut_of(0, 0), "ENDING reason 0");
    refused(writer2(&d), cut_of(6, 0), "ENDING reason 6");
    refused(writer2(&d), cut_of(TMC_CUT_SIGNAL, 0), "ENDING reason 2, code 0");
    refused(writer2(&d), cut_of(TMC_CUT_SHORT, 9), "ENDING reason 1, code 9");
    refused(writer2(&d), cut_of(TMC_KILLED, 128), "ENDING reason 4, code 128");
    refused(writer2(&d), cut_of(TMC_EXITED, 256), "ENDING reason 3, code 256");
    refused(writer2(&d), cut_of(TMC_EXECVED, 1), "ENDING reason 5, code 1");
    tmc_writer *w = writer2(&d);
    put_ok(w, cut_of(TMC_EXITED, 0));
    refused(w, run_of(0, 1, 1, 1), "RUN record after ENDING");
    tdir_clean(&d);
}

Test(tmc, reader_refuses_bad_ending)
{
    raw r;
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    size_t at = r.n;
    u8(&r, TMC_ENDING);
    u8(&r, 6);
    u8(&r, 0);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "ENDING reason 6");
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    u8(&r, TMC_ENDING);
    u8(&r, TMC_CUT_SIGNAL);
    u8(&r, 0);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "ENDING code 0 with reason 2");
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    u8(&r, TMC_ENDING);
    u8(&r, TMC_KILLED);
    u8(&r, 200);
    r_end(&r, 2);
    expect_bad(&r, TM_ERR_FORMAT, at, "ENDING code 200 with reason 4");
    /* only END may follow */
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    u8(&r, TMC_ENDING);
    u8(&r, TMC_EXITED);
    u8(&r, 3);
    size_t at2 = r.n;
    r_run(&r, 0, 1, 1, 1);
    r_end(&r, 3);
    expect_bad(&r, TM_ERR_FORMAT, at2, "RUN record after ENDING");
    /* an ending record at the very end of the data */
    hdr(&r, 1);
    r_start(&r, 0, 0, 0, 0);
    u8(&r, TMC_ENDING);
    u8(&r, TMC_CUT_SHORT);
    expect_bad(&r, TM_ERR_TRUNCATED, at, "ENDING record incomplete");
}

/* tmc_ahead (the reader on a second thread) against the reader itself: the
 * same records (more than the batches in flight, MODULE paths among them),
 * the same offsets, and on a cut stream the same records before the same
 * error; closing it early joins a thread that waits for room. */
static void ahead_stream(const char *p, uint64_t cycles)
{
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(p, 2, 1, &w, NULL, 0), 0);
    put_ok(w, start_at(0, 0, 0x400000));
    put_ok(w, start_at(1, 0, 0x800000));
    uint64_t pc[2] = {0x400000, 0x800000};
    for (uint64_t c = 1; c <= cycles; c++) {
        for (uint32_t t = 0; t < 2; t++) {
            uint64_t n = 1 + (c * 7 + t) % 300;
            put_ok(w, run_of(t, c, n, n * 3));
            pc[t] += n * 3;
            if ((c + t) % 5 == 0) { /* a load: its value travels beside the record */
                tmc_record m = rec_of(TMC_MEM, t, c);
                m.size = (uint8_t)(1 + c % TMC_MAX_OPERAND);
                m.addr = 0x7ff000 + c * 8;
                for (unsigned k = 0; k < m.size; k++)
                    m.value[k] = (uint8_t)(c * 31 + k);
                put_ok(w, m);
            }
            put_ok(w, branch_of(t, c, TMC_COND, (c & 1), 2, pc[t], pc[t] - 64));
            pc[t] = (c & 1) ? pc[t] - 64 : pc[t] + 2;
        }
        if (c % 997 == 0) {
            char path[64];
            snprintf(path, sizeof path, "/lib/module-%" PRIu64 ".so", c);
            tmc_record m = rec_of(TMC_MODULE, 0, 0);
            m.path = path;
            m.path_len = strlen(path);
            m.addr = c;
            put_ok(w, m);
        }
    }
    cr_assert_eq(tmc_writer_close(w), 0);
}

/* Two readers of P: *R alone, *Q under *A (tmc_ahead). */
static void ahead_pair(const char *p, tmc_reader **r, tmc_reader **q, tmc_ahead **a)
{
    char e[600] = "";
    *r = *q = NULL;
    *a = NULL;
    cr_assert_eq(tmc_reader_open(p, r, e, sizeof e), 0, "%s", e);
    cr_assert_eq(tmc_reader_open(p, q, e, sizeof e), 0, "%s", e);
    cr_assert_eq(tmc_ahead_open(*q, a), TM_OK);
}

static void ahead_compare(const char *p, int want_err)
{
    tmc_reader *r, *q;
    tmc_ahead *a;
    ahead_pair(p, &r, &q, &a);
    tmc_record exp;
    const tmc_record *got;
    int rc, rc2;
    size_t i = 0;
    while ((rc = tmc_reader_next(r, &exp)) == 1) {
        rc2 = tmc_ahead_next(a, &got);
        cr_assert_eq(rc2, 1, "record %zu: the reader gives one, tmc_ahead %d", i, rc2);
        assert_same(got, &exp, i);
        cr_assert_eq(tmc_ahead_offset(a), tmc_reader_offset(r), "record %zu: offset", i);
        i++;
    }
    cr_assert(want_err ? rc < 0 : rc == 0, "the reader ends with %d (%s)", rc, tmc_reader_error(r));
    cr_assert_eq(tmc_ahead_next(a, &got), rc, "tmc_ahead ends as the reader does");
    cr_assert_eq(tmc_ahead_next(a, &got), rc, "and stays so");
    tmc_ahead_close(a);
    cr_assert_str_eq(tmc_reader_error(q), tmc_reader_error(r));
    cr_assert_gt(i, 8 * 4096, "more records than the batches in flight (tmc/ahead.c: RING x BATCH)");
    tmc_reader_close(r);
    tmc_reader_close(q);
}

/* The same, taken as compact records in runs (tmc_ahead_crecs,
 * tmc_ahead_advance: of 1 to 900 records, up to the first of another type
 * than START..MEM) mixed with tmc_ahead_next for the others: the same
 * records, values and offsets. */
static void ahead_compare_crecs(const char *p, int want_err)
{
    tmc_reader *r, *q;
    tmc_ahead *a;
    ahead_pair(p, &r, &q, &a);
    tmc_record exp, got;
    const tmc_record *nx;
    size_t i = 0, want = 1, spans = 0;
    int rc = 1;
    for (;;) {
        const tmc_crec *v;
        const uint8_t *vals;
        size_t n = tmc_ahead_crecs(a, &v, &vals), k = 0, vb = 0;
        while (k < n && k < want && v[k].type >= TMC_START && v[k].type <= TMC_MEM) {
            cr_assert_eq((rc = tmc_reader_next(r, &exp)), 1, "record %zu: tmc_ahead has one more", i);
            tmc_crec_unpack(&got, &v[k]);
            if (got.type == TMC_MEM) {
                memcpy(got.value, vals + vb, got.size);
                memset(got.value + got.size, 0, TMC_MAX_OPERAND - got.size);
                vb += got.size;
                cr_assert_eq(memcmp(got.value, exp.value, sizeof got.value), 0, "record %zu: value", i);
            }
            assert_same(&got, &exp, i);
            k++;
            i++;
        }
        if (k) {
            tmc_ahead_advance(a, k, vb);
            cr_assert_eq(tmc_ahead_offset(a), tmc_reader_offset(r), "record %zu: offset", i - 1);
            spans++;
            want = want * 13 % 900 + 1;
            continue;
        }
        /* the next record is another type's, or the end */
        rc = tmc_reader_next(r, &exp);
        int rc2 = tmc_ahead_next(a, &nx);
        cr_assert_eq(rc2, rc, "record %zu: tmc_ahead_next %d, the reader %d", i, rc2, rc);
        if (rc != 1)
            break;
        assert_same(nx, &exp, i);
        cr_assert_eq(tmc_ahead_offset(a), tmc_reader_offset(r), "record %zu: offset", i);
        i++;
    }
    cr_assert(want_err ? rc < 0 : rc == 0, "the reader ends with %d (%s)", rc, tmc_reader_error(r));
    cr_assert_eq(tmc_ahead_crecs(a, NULL, NULL), 0, "no more compact records at the end");
    cr_assert_eq(tmc_ahead_next(a, &nx), rc, "tmc_ahead ends as the reader does");
    tmc_ahead_close(a);
    cr_assert_str_eq(tmc_reader_error(q), tmc_reader_error(r));
    cr_assert_gt(spans, 100);
    tmc_reader_close(r);
    tmc_reader_close(q);
}

Test(tmc, ahead_is_the_reader_on_another_thread)
{
    tdir d;
    tdir_make(&d);
    char p[sizeof d.path];
    snprintf(p, sizeof p, "%s", tdir_path(&d, "a.tmc"));
    ahead_stream(p, 100000);
    ahead_compare(p, 0);
    ahead_compare_crecs(p, 0);
    /* cut: the same records, then the same error */
    size_t n;
    uint8_t *bytes = read_file(p, &n);
    const char *cut = tdir_path(&d, "cut.tmc");
    write_file(cut, bytes, n * 2 / 3);
    free(bytes);
    ahead_compare(cut, 1);
    ahead_compare_crecs(cut, 1);
    /* closed after a few records: the thread is stopped and joined */
    tmc_reader *q = NULL;
    cr_assert_eq(tmc_reader_open(p, &q, NULL, 0), 0);
    tmc_ahead *a = NULL;
    cr_assert_eq(tmc_ahead_open(q, &a), TM_OK);
    const tmc_record *got;
    for (int k = 0; k < 10; k++)
        cr_assert_eq(tmc_ahead_next(a, &got), 1);
    tmc_ahead_close(a);
    tmc_ahead_close(NULL);
    tmc_reader_close(q);
    tdir_clean(&d);
}
