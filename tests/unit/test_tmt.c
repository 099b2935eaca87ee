/* Unit tests of the trace file (.tmt, docs/spec.md §5): version 2's
 * checksums over the header and the trailer, its per-thread instruction
 * counts and the recording's ending, reserved bytes, and version 1 files. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "tm/tmt.h"

typedef struct tfile {
    char path[64];
} tfile;

static void tfile_make(tfile *f)
{
    strcpy(f->path, "/tmp/tmt-unit.XXXXXX");
    int fd = mkstemp(f->path);
    cr_assert(fd >= 0);
    close(fd);
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp);
    uint8_t *b = malloc(1 << 20);
    *n = fread(b, 1, 1 << 20, fp);
    fclose(fp);
    return b;
}

static void spit(const char *path, const uint8_t *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    cr_assert_not_null(fp);
    cr_assert_eq(fwrite(b, 1, n, fp), n);
    cr_assert_eq(fclose(fp), 0);
}

/* Sets the header's CRC-32 (offset 60) for its bytes 0..59, as a writer
 * would: a reader then judges the fields themselves. */
static void fix_header_crc(uint8_t *b)
{
    uint32_t c = (uint32_t)crc32(0L, b, 60);
    for (int i = 0; i < 4; i++)
        b[60 + i] = (uint8_t)(c >> (8 * i));
}

/* A 3-thread tr_e trace of 13 bits, cycles 77, counts 5, 0, 9. */
static void write_small(const char *path, tmt_ending ending, unsigned sig)
{
    tm_model_cfg c;
    tm_model_cfg_default(&c, 3);
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK, "%s", err);
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    tm_bitbuf_put(&bb, 0x1abc, 13);
    uint64_t insns[3] = {5, 0, 9};
    tmt_trailer tr = {77, insns, ending, sig, TMT_PROG_UNKNOWN, 0};
    cr_assert_eq(tmt_write(path, &c, &bb, &tr, err, sizeof err), TM_OK, "%s", err);
    tm_bitbuf_free(&bb);
}

/* The program's ending (issue 35): written, read back, shown, and a
 * contradictory one refused by the writer and the reader. */
Test(tmt, program_ending_round_trip)
{
    tfile f;
    tfile_make(&f);
    static const struct {
        tmt_prog p;
        unsigned code;
        const char *says;
    } cases[] = {{TMT_PROG_EXITED, 0, "exited with status 0"}, {TMT_PROG_EXITED, 255, "exited with status 255"},
                 {TMT_PROG_KILLED, 11, "was killed by signal 11 (Segmentation fault)"},
                 {TMT_PROG_EXECVED, 0, "execve"}, {TMT_PROG_UNKNOWN, 0, ""}};
    tm_model_cfg c;
    tm_model_cfg_default(&c, 1);
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK, "%s", err);
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    uint64_t insns[1] = {3};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tmt_trailer tr = {5, insns, TMT_COMPLETE, 0, cases[k].p, cases[k].code};
        cr_assert_eq(tmt_write(f.path, &c, &bb, &tr, err, sizeof err), TM_OK, "%s", err);
        tmt_file t;
        cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_OK, "%s", err);
        cr_assert_eq(t.prog, cases[k].p);
        cr_assert_eq(t.prog_code, cases[k].code);
        char why[128];
        tmt_prog_str(t.prog, t.prog_code, why, sizeof why);
        if (cases[k].says[0])
            cr_assert(strstr(why, cases[k].says), "%s", why);
        else
            cr_assert_str_empty(why);
        cr_assert_eq(tmt_prog_from_tmc(tmt_prog_to_tmc(t.prog)), t.prog);
        tmt_free(&t);
    }
    /* refused: a code the ending does not take; a program ending on a cut recording */
    tmt_trailer bad[] = {{0, insns, TMT_COMPLETE, 0, TMT_PROG_KILLED, 0},
                         {0, insns, TMT_COMPLETE, 0, TMT_PROG_KILLED, 128},
                         {0, insns, TMT_COMPLETE, 0, TMT_PROG_EXITED, 256},
                         {0, insns, TMT_COMPLETE, 0, TMT_PROG_EXECVED, 1},
                         {0, insns, TMT_COMPLETE, 0, (tmt_prog)4, 0},
                         {0, insns, TMT_CUT_SHORT, 0, TMT_PROG_EXITED, 0}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        cr_assert_eq(tmt_write(f.path, &c, &bb, &bad[k], err, sizeof err), TM_ERR_ARG, "case %zu", k);
    /* the reader: the bytes of a killed program with the signal zeroed */
    tmt_trailer tr = {5, insns, TMT_COMPLETE, 0, TMT_PROG_KILLED, 9};
    cr_assert_eq(tmt_write(f.path, &c, &bb, &tr, err, sizeof err), TM_OK, "%s", err);
    size_t n;
    uint8_t *b = slurp(f.path, &n);
    size_t e = n - 12; /* ending, signal, program's ending, code, checksum, magic */
    cr_assert_eq(b[e + 2], TMT_PROG_KILLED);
    cr_assert_eq(b[e + 3], 9);
    b[e + 3] = 0;
    uint32_t cc = (uint32_t)crc32(0L, b + n - TMT_TRAILER_BYTES(1), TMT_TRAILER_BYTES(1) - 8);
    for (int i = 0; i < 4; i++)
        b[e + 4 + i] = (uint8_t)(cc >> (8 * i));
    spit(f.path, b, n);
    tmt_file t;
    cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_ERR_FORMAT, "%s", err);
    cr_assert(strstr(err, "program's ending 2, 0"), "%s", err);
    free(b);
    tm_bitbuf_free(&bb);
    unlink(f.path);
}

/* The ISA (header byte 37, issue 37): written by tmt_write_isa, read back
 * into tmt_file.isa; tmt_write writes x86-64 (0); an unknown one is refused
 * by the writer and, with the checksum right, by the reader at offset 37. */
Test(tmt, isa_round_trip)
{
    tfile f;
    tfile_make(&f);
    tm_model_cfg c;
    tm_model_cfg_default(&c, 3);
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK, "%s", err);
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    tm_bitbuf_put(&bb, 0x1abc, 13);
    uint64_t insns[3] = {5, 0, 9};
    tmt_trailer tr = {77, insns, TMT_COMPLETE, 0, TMT_PROG_UNKNOWN, 0};
    for (int isa = 0; isa < 3; isa++) {
        cr_assert_eq(tmt_write_isa(f.path, isa, &c, &bb, &tr, err, sizeof err), TM_OK, "%s", err);
        tmt_file t;
        cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_OK, "%s", err);
        cr_assert_eq(t.isa, isa);
        tmt_free(&t);
        size_t n;
        uint8_t *b = slurp(f.path, &n);
        cr_assert_eq(b[37], isa);
        if (isa == 2) { /* an unknown ISA, the checksum right */
            b[37] = 3;
            fix_header_crc(b);
            spit(f.path, b, n);
            char e2[512] = "";
            cr_assert_eq(tmt_read(f.path, &t, e2, sizeof e2), TM_ERR_FORMAT);
            cr_assert(strstr(e2, "offset 37: unknown instruction set 3"), "%s", e2);
        }
        free(b);
    }
    cr_assert_eq(tmt_write(f.path, &c, &bb, &tr, err, sizeof err), TM_OK, "%s", err);
    tmt_file t;
    cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(t.isa, 0);
    tmt_free(&t);
    cr_assert_eq(tmt_write_isa(f.path, 3, &c, &bb, &tr, err, sizeof err), TM_ERR_ARG);
    cr_assert(strstr(err, "unknown instruction set 3"), "%s", err);
    tm_bitbuf_free(&bb);
    unlink(f.path);
}

Test(tmt, trailer_round_trip)
{
    tfile f;
    tfile_make(&f);
    static const struct {
        tmt_ending e;
        unsigned sig;
    } cases[] = {{TMT_COMPLETE, 0}, {TMT_CUT_SHORT, 0}, {TMT_CUT_SIGNAL, 15}, {TMT_CUT_SIGNAL, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_small(f.path, cases[k].e, cases[k].sig);
        size_t n;
        uint8_t *b = slurp(f.path, &n);
        cr_assert_eq(n, 64 + 2 + TMT_TRAILER_BYTES(3), "file size %zu", n);
        free(b);
        tmt_file t;
        char err[256];
        cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_OK, "%s", err);
        cr_assert_eq(t.version, 2);
        cr_assert_eq(t.bits, 13);
        cr_assert_eq(t.cycles, 77);
        cr_assert_eq(t.ending, cases[k].e);
        cr_assert_eq(t.signal, cases[k].sig);
        cr_assert_eq(t.thread_insns[0], 5);
        cr_assert_eq(t.thread_insns[1], 0);
        cr_assert_eq(t.thread_insns[2], 9);
        cr_assert_eq(t.data[0], 0xbc);
        cr_assert_eq(t.data[1], 0x1a);
        char why[128];
        tmt_ending_str(t.ending, t.signal, why, sizeof why);
        if (cases[k].e == TMT_CUT_SIGNAL)
            cr_assert(strstr(why, "signal") && strstr(why, cases[k].sig == 15 ? "15" : "1"), "%s", why);
        else if (cases[k].e == TMT_CUT_SHORT)
            cr_assert(strstr(why, "cut short"), "%s", why);
        else
            cr_assert_str_empty(why);
        tmt_free(&t);
    }
    unlink(f.path);
}

Test(tmt, write_refuses_a_bad_ending)
{
    tfile f;
    tfile_make(&f);
    tm_model_cfg c;
    tm_model_cfg_default(&c, 1);
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK);
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    uint64_t insns[1] = {0};
    tmt_trailer bad[] = {{0, insns, TMT_CUT_SIGNAL, 0, TMT_PROG_UNKNOWN, 0}, {0, insns, TMT_COMPLETE, 9, TMT_PROG_UNKNOWN, 0},
                         {0, insns, (tmt_ending)3, 0, TMT_PROG_UNKNOWN, 0}, {0, insns, TMT_CUT_SIGNAL, 200, TMT_PROG_UNKNOWN, 0}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        cr_assert_eq(tmt_write(f.path, &c, &bb, &bad[k], err, sizeof err), TM_ERR_ARG, "case %zu", k);
    tm_bitbuf_free(&bb);
    unlink(f.path);
}

/* Every single-bit flip in the header or the trailer is refused, and the
 * message names the file and an offset. */
Test(tmt, every_header_and_trailer_bit_is_checked)
{
    tfile f;
    tfile_make(&f);
    write_small(f.path, TMT_CUT_SIGNAL, 15);
    size_t n;
    uint8_t *good = slurp(f.path, &n);
    uint8_t *b = malloc(n);
    size_t tstart = n - TMT_TRAILER_BYTES(3);
    for (size_t off = 0; off < n; off++) {
        if (off >= 64 && off < tstart)
            continue; /* the trace bytes: the replay's to judge */
        for (int bit = 0; bit < 8; bit++) {
            memcpy(b, good, n);
            b[off] ^= (uint8_t)(1u << bit);
            spit(f.path, b, n);
            tmt_file t;
            char err[512] = "";
            int rc = tmt_read(f.path, &t, err, sizeof err);
            cr_assert_neq(rc, TM_OK, "byte %zu bit %d: a damaged file was read", off, bit);
            cr_assert(strstr(err, f.path) && strstr(err, "offset "), "byte %zu bit %d: %s", off, bit, err);
        }
    }
    free(b);
    free(good);
    unlink(f.path);
}

/* With its checksum recomputed, a reserved byte that is not 0, or a bit of
 * the last trace byte beyond the trace, is still refused. */
Test(tmt, reserved_bytes_and_unused_bits_must_be_zero)
{
    tfile f;
    tfile_make(&f);
    write_small(f.path, TMT_COMPLETE, 0);
    size_t n;
    uint8_t *good = slurp(f.path, &n);
    uint8_t *b = malloc(n);
    static const int reserved[] = {38, 39};
    for (size_t k = 0; k < sizeof reserved / sizeof reserved[0]; k++) {
        memcpy(b, good, n);
        b[reserved[k]] = 0x40;
        fix_header_crc(b);
        spit(f.path, b, n);
        tmt_file t;
        char err[512] = "";
        cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_ERR_FORMAT, "byte %d", reserved[k]);
        char want[32];
        snprintf(want, sizeof want, "offset %d", reserved[k]);
        cr_assert(strstr(err, want) && strstr(err, "reserved"), "%s", err);
    }
    /* bytes 50..59: the TAGE-class predictors' parameters (absent: all 0) */
    static const struct {
        int off;
        uint8_t v;
        const char *what;
    } tp[] = {{50, 0x40, "offset 50: invalid TAGE"}, {52, 8, "offset 50: invalid TAGE"},
              {55, 0x10, "offset 55: invalid ITTAGE"}, {59, 1, "offset 55: invalid ITTAGE"},
              {50, 3, "one conditional predictor"}};
    for (size_t k = 0; k < sizeof tp / sizeof tp[0]; k++) {
        memcpy(b, good, n);
        b[tp[k].off] = tp[k].v;
        fix_header_crc(b);
        spit(f.path, b, n);
        tmt_file t;
        char err[512] = "";
        cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_ERR_FORMAT, "byte %d", tp[k].off);
        cr_assert(strstr(err, tp[k].what), "%s", err);
    }
    memcpy(b, good, n);
    b[65] |= 0x80; /* bit 15 of a 13-bit trace */
    spit(f.path, b, n);
    tmt_file t;
    char err[512] = "";
    cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "offset 65") && strstr(err, "unused"), "%s", err);
    free(b);
    free(good);
    unlink(f.path);
}

/* A version 1 file (24-byte trailer, no checksums) is still read, without
 * instruction counts. */
Test(tmt, version_1_is_read)
{
    tfile f;
    tfile_make(&f);
    write_small(f.path, TMT_COMPLETE, 0);
    size_t n;
    uint8_t *v2 = slurp(f.path, &n);
    uint8_t v1[64 + 2 + 24];
    memcpy(v1, v2, 66);
    v1[4] = 1;
    memset(v1 + 60, 0, 4);
    memset(v1 + 66, 0, 24);
    v1[66] = 13;      /* bits */
    v1[66 + 8] = 77;  /* cycles */
    memcpy(v1 + 66 + 16, "TMTE", 4);
    spit(f.path, v1, sizeof v1);
    tmt_file t;
    char err[256];
    cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(t.version, 1);
    cr_assert_eq(t.bits, 13);
    cr_assert_eq(t.cycles, 77);
    cr_assert_null(t.thread_insns);
    cr_assert_eq(t.ending, TMT_COMPLETE);
    tmt_free(&t);
    v1[66 + 21] = 1; /* a reserved trailer byte */
    spit(f.path, v1, sizeof v1);
    cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "reserved"), "%s", err);
    free(v2);
    unlink(f.path);
}

/* A header naming more threads than the file can hold is refused before
 * the trailer's length is computed from it. */
Test(tmt, absurd_thread_count)
{
    tfile f;
    tfile_make(&f);
    write_small(f.path, TMT_COMPLETE, 0);
    size_t n;
    uint8_t *b = slurp(f.path, &n);
    b[10] = 0x10; /* 3 + 2^20 threads */
    fix_header_crc(b);
    spit(f.path, b, n);
    tmt_file t;
    char err[256];
    cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "offset 8") && strstr(err, "threads"), "%s", err);
    free(b);
    unlink(f.path);
}

Test(tmt, tage_parameters_round_trip)
{
    tfile f;
    tfile_make(&f);
    const char *presets[3] = {"tage-s", "tage-m", "tage-l"};
    for (int k = 0; k < 3; k++) {
        tm_model_cfg c;
        tm_model_cfg_default(&c, 2);
        cr_assert_eq(tm_model_preset(&c, presets[k]), TM_OK);
        c.pred.tage.lmin = 7; /* not the preset's: the header carries it */
        char err[256];
        cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK, "%s", err);
        tm_bitbuf bb;
        tm_bitbuf_init(&bb);
        tm_bitbuf_put(&bb, 5, 3);
        uint64_t insns[2] = {1, 2};
        tmt_trailer tr = {9, insns, TMT_COMPLETE, 0, TMT_PROG_UNKNOWN, 0};
        cr_assert_eq(tmt_write(f.path, &c, &bb, &tr, err, sizeof err), TM_OK, "%s", err);
        tm_bitbuf_free(&bb);
        tmt_file t;
        cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_OK, "%s", err);
        cr_assert(!memcmp(&t.cfg.pred, &c.pred, sizeof c.pred), "%s: predictor configuration differs", presets[k]);
        tmt_free(&t);
    }
}
