/* Unit tests of the manifest of named configurations (include/tm/manifest.h)
 * and of the RTL parameter rows (include/tm/rtl_params.h): expansion of the
 * groups and the names it makes, tiers, continuation lines, and one error
 * line naming the file and line for each kind of malformed input. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tm/manifest.h"
#include "tm/model.h"
#include "tm/rtl_params.h"

static char path[64];

static void write_n(const char *text, size_t n)
{
    snprintf(path, sizeof path, "/tmp/tm-test-manifest.%ld", (long)getpid());
    FILE *f = fopen(path, "w");
    cr_assert(f);
    cr_assert_eq(fwrite(text, 1, n, f), n);
    fclose(f);
}

static void write_manifest(const char *text) { write_n(text, strlen(text)); }

static tm_manifest *load_ok(const char *text)
{
    tm_manifest *m = NULL;
    char err[256] = "";
    write_manifest(text);
    int rc = tm_manifest_load(path, &m, err, sizeof err);
    unlink(path);
    cr_assert_eq(rc, TM_OK, "load failed: %s", err);
    return m;
}

static void load_bad(const char *text, const char *want)
{
    tm_manifest *m = NULL;
    char err[256] = "";
    write_manifest(text);
    int rc = tm_manifest_load(path, &m, err, sizeof err);
    unlink(path);
    cr_assert_eq(rc, TM_ERR_FORMAT, "accepted: %s", text);
    cr_assert_null(m);
    cr_assert(strstr(err, path), "error does not name the file: %s", err);
    cr_assert(strstr(err, want), "error '%s' lacks '%s'", err, want);
    cr_assert_null(strchr(err, '\n'));
}

Test(manifest, plain_entries)
{
    tm_manifest *m = load_ok("# comment\n"
                             "config a   t1,t2  4 rand  --config large --encoding tr_e   # trailing\n"
                             "\n"
                             "module b   t2     tm_ras ENTRIES=8 P=1\n"
                             "config c   t3     - real  --config tage-l \\\n"
                             "    --encoding tr_a --timestamps\n");
    cr_assert_eq(tm_manifest_count(m), 3);
    const tm_mf_entry *a = tm_manifest_entry(m, 0), *b = tm_manifest_entry(m, 1), *c = tm_manifest_entry(m, 2);
    cr_assert_str_eq(a->name, "a");
    cr_assert_eq(a->kind, TM_MF_CONFIG);
    cr_assert_eq(a->threads, 4);
    cr_assert_str_eq(a->stream, "rand");
    cr_assert_eq(a->argc, 4);
    cr_assert_str_eq(a->argv[3], "tr_e");
    cr_assert_null(a->argv[4]);
    cr_assert_eq(a->line, 2);
    cr_assert_eq(b->kind, TM_MF_MODULE);
    cr_assert_str_eq(b->module, "tm_ras");
    cr_assert_eq(b->argc, 2);
    cr_assert_str_eq(b->argv[0], "ENTRIES=8");
    cr_assert_eq(c->threads, 0);
    cr_assert_eq(c->argc, 5);
    cr_assert_str_eq(c->argv[4], "--timestamps");
    cr_assert_eq(c->line, 5);
    cr_assert(tm_mf_in_tiers(a, "t2"));
    cr_assert(tm_mf_in_tiers(a, "x,t1"));
    cr_assert(!tm_mf_in_tiers(a, "t"));
    cr_assert(!tm_mf_in_tiers(a, "t12"));
    cr_assert(tm_mf_in_tiers(b, "t2"));
    cr_assert(!tm_mf_in_tiers(c, "t1,t2"));
    cr_assert_eq(tm_manifest_find(m, "c"), c);
    cr_assert_null(tm_manifest_find(m, "d"));
    tm_manifest_free(m);
}

Test(manifest, groups_expand_in_order_with_names)
{
    tm_manifest *m = load_ok("config s t {1,8} {rand,ras} --config {small,large} {,--timestamps}\n"
                             "module g t tm_gshare ENTRIES={0,256} P=1\n");
    cr_assert_eq(tm_manifest_count(m), 2 * 2 * 2 * 2 + 2);
    /* the first group varies slowest; N's choices are named nK */
    const char *want[] = {"s-n1-rand-small", "s-n1-rand-small-timestamps", "s-n1-rand-large",
                          "s-n1-rand-large-timestamps", "s-n1-ras-small"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_str_eq(tm_manifest_entry(m, i)->name, want[i]);
    const tm_mf_entry *e = tm_manifest_find(m, "s-n8-ras-large-timestamps");
    cr_assert(e);
    cr_assert_eq(e->threads, 8);
    cr_assert_str_eq(e->stream, "ras");
    cr_assert_eq(e->argc, 3);
    cr_assert_str_eq(e->argv[1], "large");
    cr_assert_str_eq(e->argv[2], "--timestamps");
    /* an empty choice drops its word */
    e = tm_manifest_find(m, "s-n8-ras-large");
    cr_assert_eq(e->argc, 2);
    e = tm_manifest_find(m, "g-256");
    cr_assert(e);
    cr_assert_str_eq(e->argv[0], "ENTRIES=256");
    tm_manifest_free(m);
}

Test(manifest, bad_input_one_line_with_file_and_line)
{
    load_bad("configs a t 1 - --config large\n", ":1: 'configs'");
    load_bad("\nconfig a t\n", ":2: config a: expected");
    load_bad("config a\n", ":1: expected");
    load_bad("config a t 1\n", ":1: config a: expected NAME TIERS N STREAM");
    load_bad("config a t 0 - --config large\n", "N '0'");
    load_bad("config a t 1025 - --config large\n", "N '1025'");
    load_bad("config a t x - --config large\n", "N 'x'");
    load_bad("config a/b t 1 -\n", "name 'a/b'");
    load_bad("config a t,,u 1 -\n", "tiers 't,,u'");
    load_bad("config a t 1 - --config {small,large\n", "closed");
    load_bad("config a t 1 - --config {small,{large}}\n", "nested");
    load_bad("config a t 1 - {a,b}{c,d}\n", "one group");
    load_bad("config a t 1 -\nconfig a t 2 -\n", ":2: name 'a' is already used on line 1");
    load_bad("config a t {1,2} -\nconfig a-n2 t 2 -\n", "already used");
    load_bad("module m t tm_ras ENTRIES\n", "NAME=VALUE");
    load_bad("module m t tm_ras =8\n", "NAME=VALUE");
    load_bad("config a t 1 - \\\n", "backslash");
}

Test(manifest, nul_byte)
{
    static const char text[] = "config a t 1 - x\0y\n";
    tm_manifest *m = NULL;
    char err[256] = "";
    write_n(text, sizeof text - 1);
    cr_assert_eq(tm_manifest_load(path, &m, err, sizeof err), TM_ERR_FORMAT);
    unlink(path);
    cr_assert(strstr(err, ":1: a NUL byte"), "%s", err);
}

Test(manifest, missing_file)
{
    tm_manifest *m = NULL;
    char err[256];
    cr_assert_eq(tm_manifest_load("/nonexistent/configs.txt", &m, err, sizeof err), TM_ERR_IO);
    cr_assert(strstr(err, "/nonexistent/configs.txt: cannot open"));
}

Test(rtl_params, rows_and_text)
{
    tm_model_cfg c;
    char err[200];
    tm_model_cfg_default(&c, 4);
    cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK, "%s", err);
    size_t n = tm_rtl_param_count();
    tm_rtl_param *p = calloc(n, sizeof *p);
    tm_rtl_params(&c, p);
    unsigned got = 0;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(p[i].name, "N")) {
            cr_assert_eq(p[i].value, 4);
            got |= 1;
        }
        if (!strcmp(p[i].name, "MAXW")) {
            cr_assert_eq(p[i].value, tm_msg_max_bits(&c.enc));
            got |= 2;
        }
        if (!strcmp(p[i].name, "RESERVE")) {
            cr_assert_eq(p[i].value, tm_msg_reserve_bits(&c.enc));
            got |= 4;
        }
        if (!strcmp(p[i].name, "DLMAX")) { /* 32-byte lines: an operand covers up to 3 */
            cr_assert_eq(p[i].value, 3);
            got |= 8;
        }
    }
    cr_assert_eq(got, 15);
    free(p);
    char key[512], vc[4096], h[4096];
    cr_assert_eq(tm_rtl_params_text(&c, key, sizeof key, vc, sizeof vc, h, sizeof h), TM_OK);
    cr_assert(!strncmp(key, "n4-enc2-ts0-", 12), "%s", key);
    cr_assert(strstr(vc, "\n-GTS=1'b0\n"));
    cr_assert_null(strstr(vc, "-GMAXW")); /* derived rows are not overridden */
    cr_assert(strstr(h, "#define TM_RTL_MAXW "));
    /* a buffer too small is an error, not a truncated name */
    cr_assert_eq(tm_rtl_params_text(&c, key, 10, NULL, 0, NULL, 0), TM_ERR_ARG);
}

Test(model, preset_names)
{
    tm_model_cfg c;
    unsigned i = 0;
    for (; tm_model_preset_name(i); i++)
        cr_assert_eq(tm_model_preset(&c, tm_model_preset_name(i)), TM_OK);
    cr_assert_eq(i, 6);
    cr_assert_eq(tm_model_preset(&c, "huge"), TM_ERR_ARG);
}
