/* tm — unit tests' helper: a generated commit stream in memory (genstream.h). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "genstream.h"
#include "tm/gen.h"
#include "tm/model.h"

void gen_stream(gen_stream_t *s, uint32_t threads, uint64_t insns, uint64_t seed, int mem, double exc_rate)
{
    char path[64] = "/tmp/tm-genstream-XXXXXX"; /* mkstemp fills in the X's */
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    tm_gen_cfg g;
    tm_gen_cfg_default(&g);
    g.threads = threads;
    g.insns = insns;
    g.seed = seed;
    g.mem = mem;
    g.exc_rate = exc_rate;
    char err[256];
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(path, threads, 0, &w, NULL, 0), TM_OK);
    cr_assert_eq(tm_gen_run(&g, w, NULL, NULL, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tmc_writer_close(w), TM_OK);
    tmc_reader *rd = NULL;
    cr_assert_eq(tmc_reader_open(path, &rd, NULL, 0), TM_OK);
    memset(s, 0, sizeof *s);
    tmc_record r;
    int rc;
    while ((rc = tmc_reader_next(rd, &r)) == 1) {
        if (s->n == s->cap) {
            s->cap = s->cap ? 2 * s->cap : 4096;
            s->r = realloc(s->r, s->cap * sizeof *s->r);
            cr_assert_not_null(s->r);
        }
        r.path = NULL; /* valid only until the next record */
        r.build_id = NULL;
        s->r[s->n++] = r;
    }
    cr_assert_eq(rc, 0);
    tmc_reader_close(rd);
    unlink(path);
}

void model_file(tm_model *m, const char *path)
{
    tmc_reader *rd = NULL;
    cr_assert_eq(tmc_reader_open(path, &rd, NULL, 0), TM_OK);
    tmc_record r;
    int rc;
    while ((rc = tmc_reader_next(rd, &r)) == 1)
        cr_assert_eq(tm_model_put(m, &r), TM_OK, "%s", tm_model_error(m));
    cr_assert_eq(rc, 0, "%s", tmc_reader_error(rd));
    tmc_reader_close(rd);
    cr_assert_eq(tm_model_finish(m), TM_OK);
}

void models_equal(const tm_model *a, const tm_model *b, uint32_t threads, const char *what, const char *an,
                  const char *bn)
{
    const tm_bitbuf *ta = tm_model_trace(a), *tb = tm_model_trace(b);
    cr_assert_eq(ta->nbits, tb->nbits, "%s: %llu bits %s, %llu %s", what, (unsigned long long)ta->nbits, an,
                 (unsigned long long)tb->nbits, bn);
    cr_assert_eq(memcmp(ta->data, tb->data, (size_t)((ta->nbits + 7) / 8)), 0, "%s: traces differ (%s, %s)", what,
                 an, bn);
    cr_assert_eq(memcmp(tm_model_get_stats(a), tm_model_get_stats(b), sizeof(tm_model_stats)), 0,
                 "%s: statistics differ (%s, %s)", what, an, bn);
    for (uint32_t t = 0; t < threads; t++)
        cr_assert_eq(memcmp(tm_model_thread_stats(a, t), tm_model_thread_stats(b, t), sizeof(tm_thread_stats)), 0,
                     "%s: thread %u's statistics differ (%s, %s)", what, t, an, bn);
}
