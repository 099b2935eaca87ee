/* tm — unit tests of the trace module beside a standard (std/stdcmp.c,
 * tm/stdcmp.h): its rows are the models a separate run gives, lossless,
 * with the presets' storage, and the table and JSON say so. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "genstream.h"
#include "tm/gen.h"
#include "tm/model.h"
#include "tm/pred.h"
#include "tm/stdcmp.h"

/* One model of ENC and PRESET for CORES cores over S, alone: its bits. */
static double alone(const gen_stream_t *s, tm_encoding enc, const char *preset, uint32_t cores)
{
    tm_model_cfg cfg;
    tm_model_cfg_default(&cfg, cores);
    cr_assert_eq(tm_model_preset(&cfg, preset), TM_OK);
    tm_enc_cfg_default(&cfg.enc, enc, cores, 0);
    cfg.buffer_bits = 65536;
    cfg.port_bits = 1024;
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(&cfg, err, sizeof err), TM_OK, "%s", err);
    tm_model *m = NULL;
    cr_assert_eq(tm_model_new(&cfg, &m, err, sizeof err), TM_OK, "%s", err);
    for (size_t j = 0; j < s->n; j++)
        cr_assert_eq(tm_model_put(m, &s->r[j]), TM_OK);
    cr_assert_eq(tm_model_finish(m), TM_OK);
    double bits = (double)tm_model_get_stats(m)->total.bits_total;
    tm_model_free(m);
    return bits;
}

Test(stdcmp, rows_are_the_models_alone)
{
    gen_stream_t s;
    gen_stream(&s, 4, 40000, 11, 0, 0.001);
    tm_stdcmp *c = NULL;
    char err[256];
    cr_assert_eq(tm_stdcmp_new(4, 4, &c, err, sizeof err), TM_OK, "%s", err);
    for (size_t j = 0; j < s.n; j++)
        cr_assert_eq(tm_stdcmp_put(c, &s.r[j], err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tm_stdcmp_finish(c, err, sizeof err), TM_OK, "%s", err);
    size_t n = tm_stdcmp_nrows(c);
    cr_assert_eq(n, 16);
    tm_std_row rows[16];
    tm_stdcmp_rows(c, rows);
    cr_assert_str_eq(rows[0].name, "nx_b");
    cr_assert_str_eq(rows[1].name, "tr_b-small");
    cr_assert_str_eq(rows[6].name, "tr_e-large");
    cr_assert_str_eq(rows[15].name, "tage-l+tr_a");
    cr_assert_eq(rows[6].bits, alone(&s, TM_ENC_TR_E, "large", 4));
    cr_assert_eq(rows[15].bits, alone(&s, TM_ENC_TR_A, "tage-l", 4));
    cr_assert_eq(rows[0].bits, alone(&s, TM_ENC_NX_B, "large", 4));
    tm_model_cfg large;
    cr_assert_eq(tm_model_preset(&large, "large"), TM_OK);
    cr_assert_eq(rows[6].storage_bits, tm_pred_cfg_bits(&large.pred));
    cr_assert_eq(rows[6].storage_bits, 14980); /* docs/spec.md §3.3.3 */
    cr_assert_eq(rows[0].storage_bits, 0);     /* nx_b predicts nothing */
    for (size_t i = 0; i < n; i++) {
        cr_assert_eq(rows[i].dropped, 0, "%s dropped messages", rows[i].name);
        cr_assert_str_eq(rows[i].kind, "tm");
        cr_assert_gt(rows[i].bits, 0);
    }
    cr_assert_gt(tm_stdcmp_instructions(c), 39000);
    cr_assert_gt(tm_stdcmp_cycles(c), 0);

    /* the table: a line per row, the ratio to the reference, no LOSSY */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tm_std_table(f, rows, n, 0, tm_stdcmp_instructions(c), tm_stdcmp_cycles(c));
    fclose(f);
    cr_assert_not_null(strstr(buf, "tage-l+tr_a"));
    cr_assert_null(strstr(buf, "LOSSY"));
    cr_assert_not_null(strstr(buf, "  1.00x"));
    free(buf);
    f = open_memstream(&buf, &len);
    tm_std_rows_json(f, rows, n, 100, 50);
    fclose(f);
    cr_assert_eq(buf[0], '[');
    cr_assert_not_null(strstr(buf, "{\"name\": \"nx_b\", \"kind\": \"tm\""));
    cr_assert_not_null(strstr(buf, "\"verified\": null"));
    free(buf);
    tm_stdcmp_free(c);
    free(s.r);
}

Test(stdcmp, lossy_row_says_so)
{
    tm_std_row r[2];
    memset(r, 0, sizeof r);
    snprintf(r[0].name, sizeof r[0].name, "standard");
    r[0].bits = 1000;
    r[0].verified = 1;
    snprintf(r[1].name, sizeof r[1].name, "tr_e-large");
    r[1].bits = 500;
    r[1].dropped = 3;
    r[1].verified = -1;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tm_std_table(f, r, 2, 0, 1000, 2000);
    fclose(f);
    cr_assert_not_null(strstr(buf, "LOSSY: 3 messages dropped"), "%s", buf);
    cr_assert_not_null(strstr(buf, "verified"));
    cr_assert_not_null(strstr(buf, "  2.00x"), "%s", buf);
    free(buf);
}

/* The cores that ran: one more than the highest thread id that started,
 * not the header's thread count (the bug this caught: the loop stopped at
 * the first record and every stream counted as its header's threads, so
 * tm pt --compare's and tm std's Ti fields had log2 of that). */
Test(stdcmp, cores_that_ran)
{
    char path[64] = "/tmp/tm-stdcmp-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    tm_gen_cfg g;
    tm_gen_cfg_default(&g);
    g.threads = 3;
    g.insns = 5000;
    char err[256];
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(path, 8, 0, &w, NULL, 0), TM_OK); /* a header of 8 thread ids */
    cr_assert_eq(tm_gen_run(&g, w, NULL, NULL, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tmc_writer_close(w), TM_OK);
    cr_assert_eq(tm_stdcmp_cores(path, 8), 3);
    cr_assert_eq(tm_stdcmp_cores("/nonexistent.tmc", 8), 8); /* unreadable: the header's count */
    unlink(path);
}

/* Some rows only, in the fixed order whatever the list's; a name that is no
 * row's is refused with the list of rows. */
Test(stdcmp, some_rows)
{
    gen_stream_t s;
    gen_stream(&s, 2, 20000, 5, 0, 0.0);
    tm_stdcmp *c = NULL;
    char err[1024];
    cr_assert_eq(tm_stdcmp_new_some(2, 2, "tage-l+tr_a,nx_b,tr_e-large", &c, err, sizeof err), TM_OK, "%s", err);
    for (size_t j = 0; j < s.n; j++)
        cr_assert_eq(tm_stdcmp_put(c, &s.r[j], err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tm_stdcmp_finish(c, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tm_stdcmp_nrows(c), 3);
    tm_std_row rows[3];
    tm_stdcmp_rows(c, rows);
    cr_assert_str_eq(rows[0].name, "nx_b");
    cr_assert_str_eq(rows[1].name, "tr_e-large");
    cr_assert_str_eq(rows[2].name, "tage-l+tr_a");
    cr_assert_eq(rows[1].bits, alone(&s, TM_ENC_TR_E, "large", 2));
    tm_stdcmp_free(c);
    c = NULL;
    cr_assert_eq(tm_stdcmp_new_some(2, 2, "nx_b,tr_e-huge", &c, err, sizeof err), TM_ERR_ARG);
    cr_assert_null(c);
    cr_assert_not_null(strstr(err, "'tr_e-huge' is not a row of the trace module (one of: nx_b, tr_b-small"), "%s", err);
    cr_assert_eq(tm_stdcmp_new_some(2, 2, "", &c, err, sizeof err), TM_ERR_ARG);
    free(s.r);
}
