/* Replay from binaries: the instruction classes must be the recording's
 * (docs/capture.md §2), and bad set-ups are refused cleanly. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <string.h>
#include "tm/image.h" /* the module-map loader */
#include "tm/decoder.h"
#include "tm/tmc.h"

static int cls_of(const uint8_t *p, size_t n, uint64_t pc, unsigned *len, uint64_t *dt)
{
    int cls;
    const char *bad;
    *len = tm_classify(p, n, pc, &cls, dt, &bad);
    return *len ? cls : -2;
}

#define CHECK(bytes, want_cls, want_len) do {                                      \
        static const uint8_t b_[] = bytes;                                         \
        unsigned l_; uint64_t dt_;                                                 \
        int c_ = cls_of(b_, sizeof b_, 0x1000, &l_, &dt_);                         \
        cr_expect_eq(c_, (want_cls), "%s: class %d, want %d", #bytes, c_, (want_cls)); \
        if ((want_cls) != -2) cr_expect_eq(l_, (unsigned)(want_len), "%s: len %u", #bytes, l_); \
    } while (0)
#define B(...) {__VA_ARGS__}

Test(frombin, classes_as_the_recording)
{
    CHECK(B(0x74, 0x05), TMC_COND, 2);                   /* je rel8 */
    CHECK(B(0x0f, 0x85, 0, 1, 0, 0), TMC_COND, 6);       /* jne rel32 */
    CHECK(B(0xe2, 0xfe), TMC_COND, 2);                   /* loop */
    CHECK(B(0xe3, 0x00), TMC_COND, 2);                   /* jrcxz */
    CHECK(B(0xeb, 0xfe), TMC_JUMP, 2);                   /* jmp rel8 */
    CHECK(B(0xe9, 0, 0, 0, 0), TMC_JUMP, 5);
    CHECK(B(0xe8, 0, 0, 0, 0), TMC_CALL, 5);             /* call to the next instruction */
    CHECK(B(0xff, 0xe0), TMC_IJUMP, 2);                  /* jmp rax */
    CHECK(B(0x3e, 0xff, 0xe0), TMC_IJUMP, 3);            /* notrack jmp rax */
    CHECK(B(0xff, 0x15, 0, 0, 0, 0), TMC_ICALL, 6);      /* call [rip] */
    CHECK(B(0x41, 0xff, 0xd3), TMC_ICALL, 3);            /* call r11 */
    CHECK(B(0xc3), TMC_RET, 1);
    CHECK(B(0xf3, 0xc3), TMC_RET, 2);                    /* rep ret */
    CHECK(B(0xc2, 0x08, 0x00), TMC_RET, 3);
    CHECK(B(0xf3, 0xa4), -1, 2);                         /* rep movsb: not a branch */
    CHECK(B(0xf3, 0x48, 0xab), -1, 3);                   /* rep stosq */
    CHECK(B(0x0f, 0x05), -1, 2);                         /* syscall */
    CHECK(B(0xcd, 0x80), -1, 2);                         /* int 0x80 */
    CHECK(B(0x0f, 0xa2), -1, 2);                         /* cpuid */
    CHECK(B(0xf3, 0x0f, 0x1e, 0xfa), -1, 4);             /* endbr64 */
    CHECK(B(0xff, 0x1c, 0x24), -2, 0);                   /* far call: refused */
    CHECK(B(0xcb), -2, 0);                               /* retf */
    CHECK(B(0x0f, 0xff), -2, 0);                         /* invalid (ud0 without modrm) */
    /* Valgrind's client request: preamble + xchg rbx,rbx = one instruction */
    CHECK(B(0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d, 0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33,
            0x48, 0x87, 0xdb), -1, 19);
}

Test(frombin, direct_targets)
{
    static const uint8_t jb[] = {0x72, 0xfe};            /* jb . */
    static const uint8_t call[] = {0xe8, 0x10, 0, 0, 0};
    static const uint8_t jne[] = {0x0f, 0x85, 0xf0, 0xff, 0xff, 0xff};
    unsigned len;
    uint64_t dt;
    cr_expect_eq(cls_of(jb, 2, 0x4000, &len, &dt), TMC_COND);
    cr_expect_eq(dt, 0x4000);
    cr_expect_eq(cls_of(call, 5, 0x4000, &len, &dt), TMC_CALL);
    cr_expect_eq(dt, 0x4015);
    cr_expect_eq(cls_of(jne, 6, 0x4000, &len, &dt), TMC_COND);
    cr_expect_eq(dt, 0x4006 - 0x10);
    /* cut off by the end of the segment */
    cr_expect_eq(cls_of(call, 3, 0x4000, &len, &dt), -2);
}

Test(frombin, refuses_shared_and_missing_map)
{
    tmt_file tf;
    memset(&tf, 0, sizeof tf);
    tm_model_cfg_default(&tf.cfg, 2);
    char err[200];
    cr_assert_eq(tm_model_cfg_resolve(&tf.cfg, err, sizeof err), TM_OK);
    static uint8_t bits[8];
    tf.data = bits;
    tf.bits = 0;
    tm_frombin_opts o;
    memset(&o, 0, sizeof o);
    o.modules = "/nonexistent/x.modules";
    tm_frombin_result res;
    char e[1024];
    cr_expect_neq(tm_frombin(&tf, &o, &res, e, sizeof e), TM_OK);
    cr_expect(strstr(e, "/nonexistent/x.modules") != NULL, "%s", e);
    tf.cfg.shared = 1;
    cr_expect_eq(tm_frombin(&tf, &o, &res, e, sizeof e), TM_ERR_ARG);
    cr_expect(strstr(e, "--shared") != NULL, "%s", e);
}

/* ---- the module map (issue 15 cases 6, 11) ---- */

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_map(const char *path, const char *line, unsigned times)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    for (unsigned i = 0; i < times; i++)
        fputs(line, f);
    cr_assert_eq(fclose(f), 0);
}

static int load_map(const char *path, char *err, size_t n)
{
    tm_image_opts o = {path, NULL, 1, 0};
    tm_image *im = NULL;
    int rc = tm_image_load(&o, &im, err, n);
    tm_image_free(im);
    return rc;
}

/* A file named on many lines is loaded once: the load stays fast and small
 * (the test runs under ASan: 4000 copies of this binary's symbols would not
 * be). */
Test(frombin, module_map_names_a_file_many_times)
{
    char dir[] = "/tmp/tm-map.XXXXXX", p[64], err[600];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/m", dir);
    write_map(p, "0x0000000000400000 - /proc/self/exe\n", 4000);
    cr_assert_eq(load_map(p, err, sizeof err), TM_OK, "%s", err);
    /* the same, through an escaped path */
    write_map(p, "0x0000000000400000 - \\x2fproc/self/\\x65xe\n", 2);
    cr_assert_eq(load_map(p, err, sizeof err), TM_OK, "%s", err);
    write_map(p, "0x0000000000400000 - /proc/self/\\qexe\n", 1);
    cr_assert_eq(load_map(p, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, ":1: a bad escape"), "%s", err);
    /* more lines than any recording's map */
    write_map(p, "0x0000000000400000 - /proc/self/exe\n", 65537);
    cr_assert_eq(load_map(p, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, ":65537: more than 65536 entries"), "%s", err);
    unlink(p);
    rmdir(dir);
}

/* A FIFO or a device in the map is refused without being opened for long
 * (a FIFO's open would wait for a writer for ever). */
Test(frombin, module_map_refuses_fifos_and_devices, .timeout = 10)
{
    char dir[] = "/tmp/tm-map.XXXXXX", p[64], fifo[64], line[160], err[600];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/m", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    snprintf(line, sizeof line, "0x0000000000400000 - %s\n", fifo);
    write_map(p, line, 1);
    cr_assert_eq(load_map(p, err, sizeof err), TM_ERR_IO);
    cr_assert(strstr(err, "fifo: not a regular, non-empty file"), "%s", err);
    write_map(p, "0x0000000000400000 - /dev/zero\n", 1);
    cr_assert_eq(load_map(p, err, sizeof err), TM_ERR_IO);
    cr_assert(strstr(err, "/dev/zero: not a regular"), "%s", err);
    /* the map itself a FIFO */
    cr_assert_eq(load_map(fifo, err, sizeof err), TM_ERR_IO);
    unlink(fifo);
    unlink(p);
    rmdir(dir);
}

/* ---- the library never prints (issue 36): the replay's diagnostics go to
 * the caller's sink, none to stderr ---- */

typedef struct diag_lines {
    unsigned n;
    char first[512];
} diag_lines;

static void collect(void *arg, const char *line)
{
    diag_lines *d = arg;
    if (!d->n++)
        snprintf(d->first, sizeof d->first, "%s", line);
    cr_expect(!strchr(line, '\n'), "a diagnostic line holds no newline: %s", line);
}

/* A trace of garbage bits over this test's own binary: the replay's
 * outputs go on after its errors and say each one through o.diag. */
Test(frombin, diagnostics_through_the_callback, .init = cr_redirect_stderr)
{
    char dir[] = "/tmp/tm-diag.XXXXXX", p[64], err[1024];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/m", dir);
    write_map(p, "0x0000000000400000 - /proc/self/exe\n", 1);
    tmt_file tf;
    memset(&tf, 0, sizeof tf);
    tm_model_cfg_default(&tf.cfg, 2);
    cr_assert_eq(tm_model_cfg_resolve(&tf.cfg, err, sizeof err), TM_OK);
    static uint8_t bits[4096];
    uint32_t x = 12345;
    for (size_t i = 0; i < sizeof bits; i++) {
        x = x * 1103515245u + 12345u;
        bits[i] = (uint8_t)(x >> 16);
    }
    tf.data = bits;
    tf.bits = sizeof bits * 8;
    FILE *out = tmpfile();
    cr_assert_not_null(out);
    tm_frombin_opts o;
    memset(&o, 0, sizeof o);
    o.modules = p;
    o.ignore_build_id = 1;
    o.recover = 1;
    o.format = TM_FB_INSNS;
    o.out = out;
    diag_lines d = {0, ""};
    o.diag = collect;
    o.diag_arg = &d;
    tm_frombin_result res;
    int rc = tm_frombin(&tf, &o, &res, err, sizeof err);
    cr_expect_eq(rc, TM_OK, "%s", err);
    cr_expect(d.n > 0, "no diagnostic line (errors %llu, resyncs %llu)", (unsigned long long)res.errors,
              (unsigned long long)res.resyncs);
    cr_expect(!strncmp(d.first, "T", 1) || !strncmp(d.first, "trace bit ", 10), "%s", d.first);
    /* quiet: none at all, the errors still counted */
    diag_lines q = {0, ""};
    o.diag_arg = &q;
    o.quiet = 1;
    tm_frombin_result rq;
    cr_expect_eq(tm_frombin(&tf, &o, &rq, err, sizeof err), TM_OK, "%s", err);
    cr_expect_eq(q.n, 0);
    cr_expect_eq(rq.errors, res.errors);
    /* without a sink: nothing said, nothing printed */
    o.quiet = 0;
    o.diag = NULL;
    cr_expect_eq(tm_frombin(&tf, &o, &rq, err, sizeof err), TM_OK, "%s", err);
    fclose(out);
    unlink(p);
    rmdir(dir);
    fflush(stderr);
    cr_expect_stderr_eq_str("");
}
