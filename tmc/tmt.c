/* tm — .tmt trace files (docs/spec.md §5): the one reader and writer, beside
 * the commit stream's (reader.c, writer.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "tm/tmc.h"
#include "tm/bits.h"
#include "tm/grow.h"
#include "tm/isa.h"
#include "tm/tmt.h"

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }
static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | get16(p + 2) << 16; }
static uint64_t get64(const uint8_t *p) { return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32; }

/* CRC-32 (zlib's, ISO-HDLC) of the header's and the trailer's bytes. */
static uint32_t crc(const uint8_t *p, size_t n)
{
    return (uint32_t)crc32(0L, p, (uInt)n);
}

/* A TAGE-class predictor's five header bytes (spec §5): log2(base) + 1 (0 =
 * absent), tables | log2(entries) << 4, tag bits, lmin, lmax. */
static void tage_put(uint8_t *h, const tm_tage_cfg *c)
{
    if (!c->base)
        return;
    h[0] = (uint8_t)(tm_log2u(c->base) + 1u);
    h[1] = (uint8_t)(c->tables | tm_log2u(c->entries) << 4);
    h[2] = (uint8_t)c->tag;
    h[3] = (uint8_t)c->lmin;
    h[4] = (uint8_t)c->lmax;
}

static int tage_get(const uint8_t *h, tm_tage_cfg *c)
{
    memset(c, 0, sizeof *c);
    if (!h[0])
        return h[1] || h[2] || h[3] || h[4] ? -1 : 0;
    if (h[0] > 15)
        return -1;
    c->base = 1u << (h[0] - 1u);
    c->tables = h[1] & 15u;
    c->entries = 1u << (h[1] >> 4);
    c->tag = h[2];
    c->lmin = h[3];
    c->lmax = h[4];
    return 0;
}

void tmt_trailer_of(tmt_trailer *t, const tm_model *m, uint64_t *insns, tmt_ending ending, unsigned signal)
{
    const tm_model_stats *st = tm_model_get_stats(m);
    for (uint32_t i = 0; i < st->threads; i++)
        insns[i] = tm_model_thread_stats(m, i)->instructions;
    t->cycles = st->cycles;
    t->thread_insns = insns;
    t->ending = ending;
    t->signal = ending == TMT_CUT_SIGNAL ? signal : 0;
    t->prog = TMT_PROG_UNKNOWN;
    t->prog_code = 0;
}

const char *tmt_prog_str(tmt_prog p, unsigned code, char *buf, size_t n)
{
    if (p == TMT_PROG_EXITED) {
        snprintf(buf, n, "exited with status %u", code);
    } else if (p == TMT_PROG_KILLED) {
        const char *d = strsignal((int)code);
        snprintf(buf, n, "was killed by signal %u (%s)", code, d ? d : "?");
    } else if (p == TMT_PROG_EXECVED) {
        snprintf(buf, n, "replaced itself by execve (untraced from there)");
    } else if (n) {
        buf[0] = 0;
    }
    return buf;
}

int tmt_prog_check(tmt_prog p, unsigned code)
{
    switch (p) {
    case TMT_PROG_UNKNOWN: case TMT_PROG_EXECVED: return code == 0 ? 0 : -1;
    case TMT_PROG_EXITED: return code <= 255 ? 0 : -1;
    case TMT_PROG_KILLED: return code >= 1 && code <= 127 ? 0 : -1;
    default: return -1;
    }
}

unsigned tmt_prog_to_tmc(tmt_prog p)
{
    return p == TMT_PROG_EXITED ? TMC_EXITED : p == TMT_PROG_KILLED ? TMC_KILLED : p == TMT_PROG_EXECVED ? TMC_EXECVED : 0;
}

tmt_prog tmt_prog_from_tmc(unsigned reason)
{
    return reason == TMC_EXITED ? TMT_PROG_EXITED : reason == TMC_KILLED ? TMT_PROG_KILLED
         : reason == TMC_EXECVED ? TMT_PROG_EXECVED : TMT_PROG_UNKNOWN;
}

const char *tmt_ending_str(tmt_ending e, unsigned signal, char *buf, size_t n)
{
    if (e == TMT_CUT_SIGNAL) {
        const char *d = strsignal((int)signal);
        snprintf(buf, n, "cut by signal %u (%s)", signal, d ? d : "?");
    } else if (e == TMT_CUT_SHORT) {
        snprintf(buf, n, "cut short (the capture ended without its end marker)");
    } else if (n) {
        buf[0] = 0;
    }
    return buf;
}

int tmt_write(const char *path, const tm_model_cfg *cfg, const tm_bitbuf *bits, const tmt_trailer *tr,
              char *err, size_t errlen)
{
    return tmt_write_isa(path, TM_ISA_X86_64, cfg, bits, tr, err, errlen);
}

int tmt_write_isa(const char *path, int isa, const tm_model_cfg *cfg, const tm_bitbuf *bits, const tmt_trailer *tr,
                  char *err, size_t errlen)
{
    uint32_t nth = cfg->enc.threads;
    if (tr->ending > TMT_CUT_SIGNAL || (tr->ending == TMT_CUT_SIGNAL) != (tr->signal != 0) || tr->signal > 127 ||
        tmt_prog_check(tr->prog, tr->prog_code) || (tr->prog != TMT_PROG_UNKNOWN && tr->ending != TMT_COMPLETE)) {
        snprintf(err, errlen, "%s: invalid ending %u / signal %u / program's ending %u, %u", path,
                 (unsigned)tr->ending, tr->signal, (unsigned)tr->prog, tr->prog_code);
        return TM_ERR_ARG;
    }
    if (isa < 0 || isa >= TM_ISA_COUNT) {
        snprintf(err, errlen, "%s: unknown instruction set %d", path, isa);
        return TM_ERR_ARG;
    }
    uint8_t h[TMT_HEADER_BYTES];
    size_t tlen = TMT_TRAILER_BYTES(nth);
    uint8_t *t = calloc(1, tlen);
    if (!t) {
        snprintf(err, errlen, "%s: out of memory", path);
        return TM_ERR_NOMEM;
    }
    memset(h, 0, sizeof h);
    memcpy(h, "TMT\0", 4);
    put16(h + 4, TMT_VERSION);
    put16(h + 6, TMT_HEADER_BYTES);
    put32(h + 8, nth);
    h[12] = (uint8_t)cfg->enc.enc;
    h[13] = (uint8_t)((cfg->enc.timestamps ? 1 : 0) | (cfg->shared ? 2 : 0));
    put16(h + 14, cfg->pred.gshare);
    h[16] = (uint8_t)cfg->pred.ras;
    h[17] = (uint8_t)cfg->pred.ibtb;
    h[18] = cfg->enc.cnt_a; h[19] = cfg->enc.cnt_b;
    h[20] = cfg->enc.ta_a; h[21] = cfg->enc.ta_b;
    h[22] = cfg->enc.cc_a; h[23] = cfg->enc.cc_b;
    put32(h + 24, cfg->buffer_bits);
    put32(h + 28, cfg->port_bits);
    h[32] = (uint8_t)(cfg->ts_bits == 64 ? 0 : cfg->ts_bits);
    h[33] = cfg->enc.data;
    h[34] = (uint8_t)(cfg->cfiat_shared ? 1 : 0);
    h[35] = cfg->enc.fah_a;
    h[36] = cfg->enc.fah_b;
    h[37] = (uint8_t)isa;
    if (cfg->enc.data == TM_DATA_CFIAT) {
        put32(h + 40, cfg->cache.size);
        put16(h + 44, cfg->cache.assoc);
        put16(h + 46, cfg->cache.line);
        put16(h + 48, cfg->cache.gran);
    }
    tage_put(h + 50, &cfg->pred.tage);
    tage_put(h + 55, &cfg->pred.ittage);
    put32(h + 60, crc(h, 60));
    put64(t, bits->nbits);
    put64(t + 8, tr->cycles);
    for (uint32_t i = 0; i < nth; i++)
        put64(t + 16 + 8 * (size_t)i, tr->thread_insns ? tr->thread_insns[i] : 0);
    uint8_t *e = t + 16 + 8 * (size_t)nth;
    e[0] = (uint8_t)tr->ending;
    e[1] = (uint8_t)tr->signal;
    e[2] = (uint8_t)tr->prog;
    e[3] = (uint8_t)tr->prog_code;
    put32(e + 4, crc(t, tlen - 8));
    memcpy(e + 8, "TMTE", 4);

    int is_stdout = !strcmp(path, "-");
    FILE *f = is_stdout ? stdout : fopen(path, "wbe");
    if (!f) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        free(t);
        return TM_ERR_IO;
    }
    size_t nbytes = (size_t)((bits->nbits + 7) / 8);
    int ok = fwrite(h, 1, sizeof h, f) == sizeof h &&
             (nbytes == 0 || fwrite(bits->data, 1, nbytes, f) == nbytes) &&
             fwrite(t, 1, tlen, f) == tlen;
    free(t);
    if (is_stdout)
        ok = fflush(f) == 0 && ok;
    else
        ok = fclose(f) == 0 && ok;
    if (!ok) {
        snprintf(err, errlen, "%s: write failed: %s", is_stdout ? "standard output" : path, strerror(errno));
        return TM_ERR_IO;
    }
    return TM_OK;
}

void tmt_free(tmt_file *f)
{
    free(f->data);
    f->data = NULL;
    free(f->thread_insns);
    f->thread_insns = NULL;
}

/* The whole of F into *BUF (*LEN bytes): TM_OK, or an error with ERR. */
static int slurp(FILE *f, const char *name, uint8_t **pbuf, size_t *plen, char *err, size_t errlen)
{
    size_t cap = 0, len = 0;
    uint8_t *buf = NULL;
    for (;;) {
        if (TM_GROW(buf, cap, len + (1u << 16)) != TM_OK) {
            free(buf);
            snprintf(err, errlen, "%s: out of memory", name);
            return TM_ERR_NOMEM;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    *pbuf = buf;
    *plen = len;
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error", name);
        return TM_ERR_IO;
    }
    return TM_OK;
}

/* The header of BUF (LEN bytes): magic, version, length, checksum, reserved
 * bytes, thread count.  TM_OK with *VERSION and *NTH, or an error. */
static int check_header(const uint8_t *buf, size_t len, const char *name, unsigned *pversion, uint32_t *pnth,
                        char *err, size_t errlen)
{
    int rc = TM_ERR_FORMAT;
    if (len < 8 || memcmp(buf, "TMT\0", 4)) {
        snprintf(err, errlen, "%s: offset 0: not a tm trace file (bad magic; expected \"TMT\\0\")", name);
        return rc;
    }
    unsigned version = get16(buf + 4);
    if (version != 1 && version != TMT_VERSION) {
        snprintf(err, errlen, "%s: offset 4: unsupported version %u (this tm reads versions 1 and %u)",
                 name, version, TMT_VERSION);
        return rc;
    }
    if (len < TMT_HEADER_BYTES) {
        snprintf(err, errlen, "%s: offset %zu: truncated inside the header (file is %zu bytes)", name, len, len);
        rc = TM_ERR_TRUNCATED;
        return rc;
    }
    if (get16(buf + 6) != TMT_HEADER_BYTES) {
        snprintf(err, errlen, "%s: offset 6: header length %u (expected %u)", name, get16(buf + 6),
                 TMT_HEADER_BYTES);
        return rc;
    }
    if (version >= 2 && get32(buf + 60) != crc(buf, 60)) {
        snprintf(err, errlen, "%s: offset 60: header checksum 0x%08x, the header's bytes give 0x%08x "
                              "(the header is damaged)", name, get32(buf + 60), crc(buf, 60));
        return rc;
    }
    /* version 2: byte 37 the instruction set (tm/isa.h) */
    if (version >= 2 && buf[37] >= TM_ISA_COUNT) {
        snprintf(err, errlen, "%s: offset 37: unknown instruction set %u (known: 0 x86-64, 1 aarch64, 2 riscv64)",
                 name, buf[37]);
        return rc;
    }
    for (size_t k = version >= 2 ? 38 : 37; k < (version >= 2 ? 60u : 64u); k++)
        if ((k < 40 || k >= (version >= 2 ? 60u : 50u)) && buf[k]) {
            snprintf(err, errlen, "%s: offset %zu: reserved byte is 0x%02x (must be 0)", name, k, buf[k]);
            return rc;
        }
    uint32_t nth = get32(buf + 8);
    if (nth < 1 || nth > TMC_MAX_THREADS) {
        snprintf(err, errlen, "%s: offset 8: %u threads (allowed 1..%u)", name, nth, TMC_MAX_THREADS);
        return rc;
    }
    *pversion = version;
    *pnth = nth;
    return TM_OK;
}

/* The trailer of BUF (LEN bytes; VERSION, NTH threads): magic, checksum,
 * endings, bit count, the last byte's unused bits.  TM_OK with *T (the
 * trailer), *E (its endings) and *BITS, or an error. */
static int check_trailer(const uint8_t *buf, size_t len, const char *name, unsigned version, uint32_t nth,
                         const uint8_t **pt, const uint8_t **pe, uint64_t *pbits, char *err, size_t errlen)
{
    int rc = TM_ERR_FORMAT;
    size_t tlen = version >= 2 ? TMT_TRAILER_BYTES(nth) : 24u;
    if (len < TMT_HEADER_BYTES + tlen) {
        snprintf(err, errlen, "%s: offset %zu: truncated (file is %zu bytes, at least %zu needed)",
                 name, len, len, TMT_HEADER_BYTES + tlen);
        rc = TM_ERR_TRUNCATED;
        return rc;
    }
    const uint8_t *t = buf + len - tlen;
    if (memcmp(t + tlen - (version >= 2 ? 4 : 8), "TMTE", 4)) {
        snprintf(err, errlen, "%s: offset %zu: trailer missing (file truncated or corrupt)", name, len - tlen);
        rc = TM_ERR_TRUNCATED;
        return rc;
    }
    const uint8_t *e = t + 16 + 8 * (size_t)nth; /* version 2: ending, signal, program ending and code, checksum */
    if (version >= 2) {
        if (get32(e + 4) != crc(t, tlen - 8)) {
            snprintf(err, errlen, "%s: offset %zu: trailer checksum 0x%08x, the trailer's bytes give 0x%08x "
                                  "(the trailer is damaged)", name, (size_t)(e + 4 - buf), get32(e + 4),
                     crc(t, tlen - 8));
            return rc;
        }
        if (e[0] > TMT_CUT_SIGNAL || (e[0] == TMT_CUT_SIGNAL) != (e[1] != 0) || e[1] > 127 ||
            tmt_prog_check((tmt_prog)e[2], e[3]) || (e[2] && e[0] != TMT_COMPLETE)) {
            snprintf(err, errlen, "%s: offset %zu: invalid ending %u, signal %u, program's ending %u, %u", name,
                     (size_t)(e - buf), e[0], e[1], e[2], e[3]);
            return rc;
        }
    } else if (get32(t + 20)) {
        snprintf(err, errlen, "%s: offset %zu: reserved trailer bytes are not 0", name, len - 4);
        return rc;
    }
    uint64_t bits = get64(t);
    uint64_t nbytes = len - TMT_HEADER_BYTES - tlen;
    if ((bits + 7) / 8 != nbytes) {
        snprintf(err, errlen, "%s: offset %zu: trailer says %llu bits but the file holds %llu bytes of trace",
                 name, len - tlen, (unsigned long long)bits, (unsigned long long)nbytes);
        rc = TM_ERR_TRUNCATED;
        return rc;
    }
    if (bits % 8 && buf[TMT_HEADER_BYTES + nbytes - 1] >> (bits % 8)) {
        snprintf(err, errlen, "%s: offset %llu: unused high bits of the last trace byte are not 0", name,
                 (unsigned long long)(TMT_HEADER_BYTES + nbytes - 1));
        return rc;
    }
    *pt = t;
    *pe = e;
    *pbits = bits;
    return TM_OK;
}

/* The configuration in the header BUF (VERSION) into C, resolved: TM_OK, or
 * an error naming the byte. */
static int header_cfg(const uint8_t *buf, unsigned version, const char *name, tm_model_cfg *c, char *err,
                      size_t errlen)
{
    int rc = TM_ERR_FORMAT;
    memset(c, 0, sizeof *c);
    c->enc.threads = get32(buf + 8);
    if (buf[12] >= TM_ENCODINGS) {
        snprintf(err, errlen, "%s: offset 12: unknown encoding %u", name, buf[12]);
        return rc;
    }
    c->enc.enc = (tm_encoding)buf[12];
    if (buf[13] & ~3u) {
        snprintf(err, errlen, "%s: offset 13: unknown flags 0x%02x", name, buf[13]);
        return rc;
    }
    c->enc.timestamps = buf[13] & 1;
    c->shared = (buf[13] >> 1) & 1;
    c->pred.gshare = get16(buf + 14);
    c->pred.ras = buf[16];
    c->pred.ibtb = buf[17];
    if (version >= 2 && tage_get(buf + 50, &c->pred.tage)) {
        snprintf(err, errlen, "%s: offset 50: invalid TAGE parameters", name);
        return rc;
    }
    if (version >= 2 && tage_get(buf + 55, &c->pred.ittage)) {
        snprintf(err, errlen, "%s: offset 55: invalid ITTAGE parameters", name);
        return rc;
    }
    c->enc.cnt_a = buf[18]; c->enc.cnt_b = buf[19];
    c->enc.ta_a = buf[20]; c->enc.ta_b = buf[21];
    c->enc.cc_a = buf[22]; c->enc.cc_b = buf[23];
    c->buffer_bits = get32(buf + 24);
    c->port_bits = get32(buf + 28);
    c->ts_bits = buf[32];
    if (buf[33] > TM_DATA_ALL) {
        snprintf(err, errlen, "%s: offset 33: unknown data tracing mode %u (allowed 0 none, 1 cfiat, 2 all)",
                 name, buf[33]);
        return rc;
    }
    c->enc.data = buf[33];
    if (buf[34] & ~1u) {
        snprintf(err, errlen, "%s: offset 34: unknown data flags 0x%02x", name, buf[34]);
        return rc;
    }
    c->cfiat_shared = buf[34] & 1;
    c->enc.fah_a = buf[35];
    c->enc.fah_b = buf[36];
    c->cache.size = get32(buf + 40);
    c->cache.assoc = get16(buf + 44);
    c->cache.line = get16(buf + 46);
    c->cache.gran = get16(buf + 48);
    if (c->enc.data != TM_DATA_CFIAT && c->cfiat_shared) {
        snprintf(err, errlen, "%s: offset 34: cfiat_shared set without CFiat data tracing", name);
        return rc;
    }
    if (c->enc.data != TM_DATA_CFIAT && (c->cache.size || c->cache.assoc || c->cache.line || c->cache.gran)) {
        snprintf(err, errlen, "%s: offset 40: cache geometry set without CFiat data tracing", name);
        return rc;
    }
    if (c->enc.data == TM_DATA_CFIAT && !c->cache.size) {
        snprintf(err, errlen, "%s: offset 40: CFiat trace without a cache size", name);
        return rc;
    }
    if (!c->enc.data && (c->enc.fah_a || c->enc.fah_b)) {
        snprintf(err, errlen, "%s: offset 35: fah chunk sizes set without data tracing", name);
        return rc;
    }
    char why[200];
    if (c->buffer_bits == 0 || c->port_bits == 0 || tm_model_cfg_resolve(c, why, sizeof why) != TM_OK) {
        snprintf(err, errlen, "%s: offset 8: invalid configuration in header: %s", name,
                 c->buffer_bits && c->port_bits ? why : "buffer or port width is 0");
        return rc;
    }
    return TM_OK;
}

int tmt_read(const char *path, tmt_file *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int is_stdin = !strcmp(path, "-");
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "rbe");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", name, strerror(errno));
        return TM_ERR_IO;
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = slurp(f, name, &buf, &len, err, errlen);
    if (!is_stdin)
        fclose(f);
    unsigned version = 0;
    uint32_t nth = 0;
    const uint8_t *t = NULL, *e = NULL;
    uint64_t bits = 0;
    if (rc != TM_OK || (rc = check_header(buf, len, name, &version, &nth, err, errlen)) != TM_OK ||
        (rc = check_trailer(buf, len, name, version, nth, &t, &e, &bits, err, errlen)) != TM_OK ||
        (rc = header_cfg(buf, version, name, &out->cfg, err, errlen)) != TM_OK)
        goto fail;
    size_t tlen = version >= 2 ? TMT_TRAILER_BYTES(nth) : 24u;
    uint64_t nbytes = len - TMT_HEADER_BYTES - tlen;
    out->bits = bits;
    out->cycles = get64(t + 8);
    out->version = version;
    out->isa = version >= 2 ? buf[37] : TM_ISA_X86_64;
    if (version >= 2) {
        out->ending = (tmt_ending)e[0];
        out->signal = e[1];
        out->prog = (tmt_prog)e[2];
        out->prog_code = e[3];
        out->thread_insns = malloc(8 * (size_t)nth);
        if (!out->thread_insns) {
            snprintf(err, errlen, "%s: out of memory", name);
            rc = TM_ERR_NOMEM;
            goto fail;
        }
        for (uint32_t i = 0; i < nth; i++)
            out->thread_insns[i] = get64(t + 16 + 8 * (size_t)i);
    }
    out->data = malloc(nbytes ? nbytes : 1);
    if (!out->data) {
        snprintf(err, errlen, "%s: out of memory", name);
        rc = TM_ERR_NOMEM;
        goto fail;
    }
    memcpy(out->data, buf + TMT_HEADER_BYTES, nbytes);
    free(buf);
    return TM_OK;
fail:
    free(buf);
    tmt_free(out);
    return rc;
}
