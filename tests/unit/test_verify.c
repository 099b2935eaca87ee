/* tm — unit tests of the verifying replay's file checks (docs/spec.md §6.2),
 * made in the same read of the commit stream as the replay (tm_verify,
 * decoder/vsrc.c), and of tm_model_trace_drop, which lets the model's bits
 * be compared as they come.
 *
 * A generated two-thread stream runs through the model; its trace is
 * written and read back, then altered in memory: a header whose buffer and
 * port are not the recording's (the replay, which does not see them,
 * passes; the model's bits differ), a trailer whose cycle or instruction
 * count is wrong.  tm_verify (two threads) and tm_verify_file (the caller's
 * thread) must reject each with its message. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "genstream.h"
#include "tm/decoder.h"
#include "tm/gen.h"
#include "tm/model.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

typedef struct vfix {
    char tmc[64], tmt[64];
    tm_model_cfg cfg;
} vfix;

static void tmp_path(char *p, size_t n, const char *tag)
{
    snprintf(p, n, "/tmp/tm-verify-%s.XXXXXX", tag);
    int fd = mkstemp(p);
    cr_assert_geq(fd, 0, "mkstemp failed");
    close(fd);
}

/* A generated stream (THREADS threads, INSNS instructions; 0: the directed
 * stream "overflow", whose messages overflow the default buffer) and the
 * trace the model makes of it with the default configuration. */
static void make_fixture(vfix *f, uint32_t threads, uint64_t insns)
{
    tmp_path(f->tmc, sizeof f->tmc, "tmc");
    tmp_path(f->tmt, sizeof f->tmt, "tmt");
    char err[512];
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(f->tmc, threads, 0, &w, NULL, 0), TM_OK);
    if (insns) {
        tm_gen_cfg g;
        tm_gen_cfg_default(&g);
        g.threads = threads;
        g.insns = insns;
        g.seed = 39;
        cr_assert_eq(tm_gen_run(&g, w, NULL, NULL, err, sizeof err), TM_OK, "%s", err);
    } else {
        tm_gen_directed_cfg g;
        tm_gen_directed_default(&g);
        g.kind = TM_GEN_DIR_OVERFLOW;
        g.threads = threads;
        g.seed = 39;
        cr_assert_eq(tm_gen_directed_run(&g, w, err, sizeof err), TM_OK, "%s", err);
    }
    cr_assert_eq(tmc_writer_close(w), TM_OK);

    tm_model_cfg_default(&f->cfg, threads);
    cr_assert_eq(tm_model_cfg_resolve(&f->cfg, err, sizeof err), TM_OK, "%s", err);
    tm_model *m = NULL;
    cr_assert_eq(tm_model_new(&f->cfg, &m, NULL, 0), TM_OK);
    model_file(m, f->tmc);
    uint64_t tinsns[TMC_MAX_THREADS];
    tmt_trailer tr;
    tmt_trailer_of(&tr, m, tinsns, TMT_COMPLETE, 0);
    cr_assert_eq(tmt_write(f->tmt, &f->cfg, tm_model_trace(m), &tr, err, sizeof err), TM_OK, "%s", err);
    tm_model_free(m);
}

static void drop_fixture(vfix *f)
{
    unlink(f->tmc);
    unlink(f->tmt);
}

/* tm_verify's and tm_verify_file's verdicts on TF: both RC, and both
 * messages contain WANT (NULL: both OK).  The replay's counts in *RES. */
static void expect(const vfix *f, const tmt_file *tf, int rc, const char *want, tm_verify_result *res)
{
    char err[2048];
    tm_verify_result own;
    if (!res)
        res = &own;
    int got = tm_verify(f->tmc, tf, res, NULL, NULL, err, sizeof err);
    cr_assert_eq(got, rc, "tm_verify returned %s (%s), expected %s", tm_status_str(got), err, tm_status_str(rc));
    cr_assert_eq(res->ok, rc == TM_OK);
    if (want)
        cr_assert(strstr(err, want), "tm_verify: \"%s\" does not say \"%s\"", err, want);
    got = tm_verify_file(f->tmc, tf, err, sizeof err);
    cr_assert_eq(got, rc, "tm_verify_file returned %s (%s), expected %s", tm_status_str(got), err,
                 tm_status_str(rc));
    if (want)
        cr_assert(strstr(err, want), "tm_verify_file: \"%s\" does not say \"%s\"", err, want);
}

Test(verify, unaltered_trace_passes, .timeout = 120)
{
    vfix f;
    make_fixture(&f, 2, 300000);
    tmt_file tf;
    char err[512];
    cr_assert_eq(tmt_read(f.tmt, &tf, err, sizeof err), TM_OK, "%s", err);
    tm_verify_result res;
    expect(&f, &tf, TM_OK, NULL, &res);
    cr_assert_eq(res.instructions, 300000);
    tmt_free(&tf);
    drop_fixture(&f);
}

/* The header's buffer and port are not the recording's: the replay (which
 * does not depend on them) passes, the model's bits differ. */
Test(verify, altered_buffer_and_port_rejected, .timeout = 120)
{
    vfix f;
    make_fixture(&f, 2, 0);
    tmt_file tf;
    char err[512];
    cr_assert_eq(tmt_read(f.tmt, &tf, err, sizeof err), TM_OK, "%s", err);
    tm_verify_result res;
    expect(&f, &tf, TM_OK, NULL, &res);
    cr_assert_gt(res.gaps, 0, "the recording has no overflow gap");
    /* The smallest buffer the configuration allows, a 1-bit port: other
     * messages are dropped than the recording's. */
    tm_model_cfg c = tf.cfg;
    c.port_bits = 1;
    for (c.buffer_bits = 8; c.buffer_bits < (1u << 24); c.buffer_bits *= 2) {
        tm_model_cfg t = c;
        if (tm_model_cfg_resolve(&t, err, sizeof err) == TM_OK)
            break;
    }
    cr_assert_lt(c.port_bits, tf.cfg.port_bits, "the recording's port is already the narrowest");
    tf.cfg.buffer_bits = c.buffer_bits;
    tf.cfg.port_bits = 1;
    expect(&f, &tf, TM_ERR_MISMATCH, "the trace is not what its header's configuration makes of the commit stream",
           NULL);
    /* The replay's divergence comes first when the trace is damaged too. */
    tf.data[(tf.bits / 2) / 8] ^= 0x10;
    char e2[2048];
    int rc = tm_verify(f.tmc, &tf, &res, NULL, NULL, e2, sizeof e2);
    cr_assert_neq(rc, TM_OK);
    cr_assert(!strstr(e2, "header's configuration"), "the replay's divergence is not reported first: %s", e2);
    tmt_free(&tf);
    drop_fixture(&f);
}

Test(verify, altered_trailer_rejected, .timeout = 120)
{
    vfix f;
    make_fixture(&f, 2, 300000);
    tmt_file tf;
    char err[512];
    cr_assert_eq(tmt_read(f.tmt, &tf, err, sizeof err), TM_OK, "%s", err);
    tf.cycles++;
    expect(&f, &tf, TM_ERR_MISMATCH, "the trailer says", NULL);
    cr_assert_eq(tm_verify_file(f.tmc, &tf, err, sizeof err), TM_ERR_MISMATCH);
    cr_assert(strstr(err, " cycles, the model's run of the commit stream "), "%s", err);
    tf.cycles--;
    cr_assert(tf.thread_insns, "the trailer has per-thread counts");
    tf.thread_insns[1]++;
    expect(&f, &tf, TM_ERR_MISMATCH, "the trailer says thread 1 retired", NULL);
    tf.thread_insns[1]--;
    expect(&f, &tf, TM_OK, NULL, NULL);
    tmt_free(&tf);
    drop_fixture(&f);
}

/* The model's bits, dropped as they come (tm_model_trace_drop), are the
 * bits it makes whole; its statistics count every bit. */
Test(verify, model_trace_drop_keeps_the_bits, .timeout = 120)
{
    vfix f;
    make_fixture(&f, 2, 100000);
    tmt_file tf;
    char err[512];
    cr_assert_eq(tmt_read(f.tmt, &tf, err, sizeof err), TM_OK, "%s", err);
    tm_model *m = NULL;
    cr_assert_eq(tm_model_new(&f.cfg, &m, NULL, 0), TM_OK);
    tmc_reader *rd = NULL;
    cr_assert_eq(tmc_reader_open(f.tmc, &rd, NULL, 0), TM_OK);
    uint8_t *got = calloc(tf.bits / 8 + 16, 1);
    cr_assert(got);
    tmc_record r;
    uint64_t n = 0;
    while (tmc_reader_next(rd, &r) == 1) {
        cr_assert_eq(tm_model_put(m, &r), TM_OK, "%s", tm_model_error(m));
        if (++n % 97 == 0) { /* drop some of the whole bytes, now and then */
            const tm_bitbuf *bb = tm_model_trace(m);
            uint64_t whole = bb->nbits / 8, k = whole - whole / 3, at = tm_model_trace_dropped(m);
            cr_assert_leq(at + k, tf.bits / 8 + 8);
            memcpy(got + at, bb->data, k);
            tm_model_trace_drop(m, k);
            cr_assert_eq(tm_model_trace_dropped(m), at + k);
        }
    }
    tmc_reader_close(rd);
    cr_assert_eq(tm_model_finish(m), TM_OK);
    const tm_bitbuf *bb = tm_model_trace(m);
    uint64_t at = tm_model_trace_dropped(m);
    cr_assert_gt(at, 0, "nothing was dropped");
    cr_assert_eq(at * 8 + bb->nbits, tf.bits);
    cr_assert_eq(tm_model_get_stats(m)->bits, tf.bits);
    memcpy(got + at, bb->data, (bb->nbits + 7) / 8);
    cr_assert_eq(memcmp(got, tf.data, (tf.bits + 7) / 8), 0, "the bits differ");
    free(got);
    tm_model_free(m);
    tmt_free(&tf);
    drop_fixture(&f);
}
