/* tm — unit tests of the thesis tools' knobs as tm record's options
 * (recmodes/knobs.c, tm/knobs.h): every knob, flags and values, -cs in
 * kilobytes, unknown knobs, missing values, the checks against tm record's
 * own (its option parsers: tm_recmode_opt, over argv as in recmode_argv.h, and util.c, the
 * library's tm_pred_cfg_check and tm_cache_cfg_check), the usage lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"
#include "recmode_argv.h"
#include "tm/cache.h"
#include "tm/knobs.h"
#include "tm/pred.h"
#include "tm/model.h"
#include "tm/recmodes.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>

#define MAXOUT 64

/* The knobs (a NULL-terminated list) translated: the arguments joined by
 * spaces into JOINED, or the error; returns tm_knobs_to_record's result. */
static int xlate(char *joined, size_t n, char *err, size_t errlen, const char *const *knobv)
{
    int knobc = 0;
    while (knobv[knobc])
        knobc++;
    const char *out[MAXOUT];
    int r = tm_knobs_to_record(knobc, knobv, out, MAXOUT, err, errlen);
    joined[0] = '\0';
    for (int i = 0; i < r; i++) {
        cr_assert_not_null(out[i]);
        size_t k = strlen(joined);
        snprintf(joined + k, n - k, "%s%s", i ? " " : "", out[i]);
    }
    return r;
}

/* KNOBS translate to WANT (tm record's arguments joined by spaces). */
#define OK(want, ...)                                                                                  \
    do {                                                                                               \
        const char *kv_[] = {__VA_ARGS__, NULL};                                                       \
        char j_[1024], e_[256] = "";                                                                   \
        int r_ = xlate(j_, sizeof j_, e_, sizeof e_, kv_);                                             \
        cr_assert_geq(r_, 0, "%s: %s", #__VA_ARGS__, e_);                                              \
        cr_assert_str_eq(j_, want, "%s", #__VA_ARGS__);                                                \
        cr_assert_str_eq(e_, "");                                                                      \
    } while (0)

/* KNOBS are refused with the one line WANT. */
#define BAD(want, ...)                                                                                 \
    do {                                                                                               \
        const char *kv_[] = {__VA_ARGS__, NULL};                                                       \
        char j_[1024], e_[512] = "";                                                                   \
        int r_ = xlate(j_, sizeof j_, e_, sizeof e_, kv_);                                             \
        cr_assert_eq(r_, TM_ERR_ARG, "%s: accepted as '%s'", #__VA_ARGS__, j_);                             \
        cr_assert_str_eq(e_, want, "%s", #__VA_ARGS__);                                                \
        cr_assert_null(strchr(e_, '\n'));                                                              \
    } while (0)

Test(knobs, every_knob)
{
    OK("--mode mcftrace -a", "-mode", "mcftrace", "-a");
    OK("--mode mcftrace -a -d -c gzip -f 50 -s 3000000 -l 1000000 -o trace",
       "-mode", "mcftrace", "-a", "-d", "-c", "gzip", "-f", "50", "-s", "3000000", "-l", "1000000", "-o", "trace");
    OK("--mode mcftrace --no-shared-libs --filter-rtn main", "-mode", "mcftrace", "-filter_no_shared_libs",
       "-filter_rtn", "main");
    OK("--mode mlstrace --store -a", "-mode", "mlstrace", "-store", "-a");
    /* Fig. 4.23's command line */
    OK("--mode mcftraptor -a -d --gshare 4096 --ras 32 --ibtb 64", "-mode", "mcftraptor", "-a", "-d", "-gshare",
       "4096", "-RAS", "32", "-iBTB", "64");
    OK("--mode mcftraptor --shared --gshare 0 --ras 0 --ibtb 0", "-mode", "mcftraptor", "-TRaptorShare", "-gshare",
       "0", "-RAS", "0", "-iBTB", "0");
    /* Fig. 4.38: a 64 KB cache, 32-byte lines, 4 ways */
    OK("--mode mlvcfiat -a -d --cache 64K --line 32 --assoc 4", "-mode", "mlvcfiat", "-a", "-d", "-cs", "64", "-cls",
       "32", "-ca", "4");
    OK("--mode mlvcfiat --cfiat-shared --granularity 8 --cache 1K --line 16 --assoc 2", "-mode", "mlvcfiat",
       "-cshare", "-cfg", "8", "-cs", "1", "-cls", "16", "-ca", "2");
    /* the thesis's test cache (Figs. 4.42-4.45): 32 bytes are not whole kilobytes */
    BAD("-cs 0: allowed a power of two from 1 to 65536 (kilobytes)", "-mode", "mlvcfiat", "-cs", "0");
    /* any case for the tool, as tm record */
    OK("--mode MLVCFiat --cache 32K", "-mode", "MLVCFiat", "-cs", "32");
    OK("--mode mlsTrace --store", "-mode", "mlsTrace", "-store");
    /* no -mode: a plain recording (-o needed); the predictors are the model's */
    OK("-o base --gshare 512 --ras 8 --ibtb 0 -f 3", "-o", "base", "-gshare", "512", "-RAS", "8", "-iBTB", "0", "-f",
       "3");
    /* the predictors with another tool: they configure BASE.tmt's trace module */
    OK("--mode mcftrace --gshare 1024", "-mode", "mcftrace", "-gshare", "1024");
    /* counts with tm record's suffixes */
    OK("--mode mcftrace -s 3M -l 2k", "-mode", "mcftrace", "-s", "3M", "-l", "2k");
    OK("--mode mcftrace -s 0", "-mode", "mcftrace", "-s", "0");
    /* every compressor */
    const char *comps[] = {"gzip", "bzip2", "pigz", "pbzip2", "zstd"};
    for (int k = 0; k < 5; k++) {
        char want[64];
        snprintf(want, sizeof want, "--mode mcftrace -c %s", comps[k]);
        OK(want, "-mode", "mcftrace", "-c", comps[k]);
    }
    /* none at all is valid input (and nothing to do without an output) */
    const char *none[] = {NULL};
    const char *out[1];
    char err[128];
    cr_assert_eq(tm_knobs_to_record(0, none, out, 0, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "no output: give -mode or -o NAME");
}

Test(knobs, values_point_into_knobv)
{
    const char *kv[] = {"-mode", "mcftraptor", "-o", "my trace", "-filter_rtn", "work", "-cs", "128"};
    const char *out[MAXOUT];
    char err[256];
    kv[6] = "-gshare"; /* -cs is mlvcfiat's */
    int n = tm_knobs_to_record(8, kv, out, MAXOUT, err, sizeof err);
    cr_assert_eq(n, 8, "%s", err);
    cr_assert_eq(out[1], kv[1]);
    cr_assert_eq(out[3], kv[3]);
    cr_assert_eq(out[5], kv[5]);
    cr_assert_eq(out[7], kv[7]);
    /* exactly as many outputs as knobs is enough; one fewer is not */
    cr_assert_eq(tm_knobs_to_record(8, kv, out, 8, err, sizeof err), 8);
    cr_assert_eq(tm_knobs_to_record(8, kv, out, 7, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "-gshare: no room for tm record's arguments (7; as many as the knobs suffice)");
    const char *fl[] = {"-mode", "mcftrace", "-a", "-d"};
    cr_assert_eq(tm_knobs_to_record(4, fl, out, 3, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "-d: no room for tm record's arguments (3; as many as the knobs suffice)");
}

Test(knobs, cache_kilobytes)
{
    /* -cs counts kilobytes (Table 4.6); tm record's --cache bytes: KB K */
    for (unsigned kb = 1; kb <= 65536; kb *= 2) {
        char v[16], want[64];
        snprintf(v, sizeof v, "%u", kb);
        snprintf(want, sizeof want, "--mode mlvcfiat --cache %uK", kb);
        OK(want, "-mode", "mlvcfiat", "-cs", v);
        /* and tm record reads it as KB x 1024 bytes */
        uint32_t bytes = 0;
        cr_assert_eq(tm_parse_size(want + strlen("--mode mlvcfiat --cache "), &bytes), 0);
        cr_assert_eq(bytes, kb * 1024u);
    }
    const char *bad[] = {"3", "131072", "-1", "32K", "0x20", "", "1.5", "99999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char want[128];
        snprintf(want, sizeof want, "-cs %s: allowed a power of two from 1 to 65536 (kilobytes)", bad[k]);
        BAD(want, "-mode", "mlvcfiat", "-cs", bad[k]);
    }
}

Test(knobs, unknown_and_missing)
{
    const char *unk = ": unknown knob (allowed -mode, -a, -c, -d, -f, -filter_no_shared_libs, -filter_rtn, -l, -o, "
                      "-s, -store, -gshare, -RAS, -iBTB, -TRaptorShare, -ca, -cfg, -cls, -cs, -cshare)";
    const char *names[] = {"-x", "-ras", "--mode", "-A", "mcftrace", "-ibtb", "-h", "", "-trap", "-gshare=1024"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char want[512];
        snprintf(want, sizeof want, "%s%s", names[k], unk);
        BAD(want, "-mode", "mcftrace", names[k]);
    }
    /* every valued knob at the end, without its value */
    const char *valued[] = {"-mode", "-c", "-f", "-filter_rtn", "-l", "-o", "-s",
                            "-gshare", "-RAS", "-iBTB", "-ca", "-cfg", "-cls", "-cs"};
    for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
        char want[128];
        snprintf(want, sizeof want, "%s: needs a value", valued[k]);
        BAD(want, "-mode", "mlvcfiat", valued[k]);
    }
    /* a NULL knob or value */
    const char *kv[] = {"-mode", NULL};
    const char *out[4];
    char err[128];
    cr_assert_eq(tm_knobs_to_record(2, kv, out, 4, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "-mode: needs a value");
    const char *kn[] = {"-a", NULL};
    cr_assert_eq(tm_knobs_to_record(2, kn, out, 4, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "tm_knobs_to_record: knob 1 is NULL");
    cr_assert_eq(tm_knobs_to_record(-1, kn, out, 4, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, "tm_knobs_to_record: no knobs (knobc -1)");
    /* ERR may be NULL or empty */
    cr_assert_eq(tm_knobs_to_record(1, (const char *const[]){"-zz"}, out, 4, NULL, 0), TM_ERR_ARG);
    char one[1] = {'x'};
    cr_assert_eq(tm_knobs_to_record(1, (const char *const[]){"-zz"}, out, 4, one, 1), TM_ERR_ARG);
    cr_assert_eq(one[0], '\0');
    /* a long message is cut, still one line */
    char small[16];
    cr_assert_eq(tm_knobs_to_record(1, (const char *const[]){"-zz"}, out, 4, small, sizeof small), TM_ERR_ARG);
    cr_assert_str_eq(small, "-zz: unknown kn");
}

Test(knobs, bad_values)
{
    BAD("-mode pintool: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat", "-mode", "pintool");
    BAD("-c xz: allowed gzip, bzip2, pigz, pbzip2, zstd", "-mode", "mcftrace", "-c", "xz");
    BAD("-c GZIP: allowed gzip, bzip2, pigz, pbzip2, zstd", "-mode", "mcftrace", "-c", "GZIP");
    const char *mb[] = {"0", "ten", "-3", "1.5", "", "17592186044416", "99999999999999999999", "5M"};
    for (size_t k = 0; k < sizeof mb / sizeof mb[0]; k++) {
        char want[128];
        snprintf(want, sizeof want, "-f %s: allowed a whole number of megabytes, at least 1", mb[k]);
        BAD(want, "-mode", "mcftrace", "-f", mb[k]);
    }
    OK("--mode mcftrace -f 17592186044415", "-mode", "mcftrace", "-f", "17592186044415");
    BAD("-l 0: allowed a number of instructions (at least 1)", "-mode", "mcftrace", "-l", "0");
    BAD("-l x: allowed a number of instructions (at least 1)", "-mode", "mcftrace", "-l", "x");
    BAD("-s -1: allowed a number of instructions", "-mode", "mcftrace", "-s", "-1");
    BAD("-s 5T: allowed a number of instructions", "-mode", "mcftrace", "-s", "5T");
    BAD("-o: needs a name", "-mode", "mcftrace", "-o", "");
    BAD("-filter_rtn: needs a name", "-mode", "mcftrace", "-filter_rtn", "");
    BAD("-gshare 1000: allowed 0 or a power of two from 1 to 4096 (entries)", "-mode", "mcftraptor", "-gshare",
        "1000");
    BAD("-gshare 8192: allowed 0 or a power of two from 1 to 4096 (entries)", "-mode", "mcftraptor", "-gshare",
        "8192");
    BAD("-gshare big: allowed 0 or a power of two from 1 to 4096 (entries)", "-mode", "mcftraptor", "-gshare", "big");
    BAD("-RAS 33: allowed 0 to 32 (entries)", "-mode", "mcftraptor", "-RAS", "33");
    BAD("-RAS -1: allowed 0 to 32 (entries)", "-mode", "mcftraptor", "-RAS", "-1");
    BAD("-iBTB 1: allowed 0 or a power of two from 2 to 64 (entries, 2-way)", "-mode", "mcftraptor", "-iBTB", "1");
    BAD("-iBTB 128: allowed 0 or a power of two from 2 to 64 (entries, 2-way)", "-mode", "mcftraptor", "-iBTB",
        "128");
    BAD("-ca 3: allowed a power of two from 1 to 64 (ways)", "-mode", "mlvcfiat", "-ca", "3");
    BAD("-ca 0: allowed a power of two from 1 to 64 (ways)", "-mode", "mlvcfiat", "-ca", "0");
    BAD("-cls 2: allowed a power of two from 4 to 4096 (bytes)", "-mode", "mlvcfiat", "-cls", "2");
    BAD("-cls 8192: allowed a power of two from 4 to 4096 (bytes)", "-mode", "mlvcfiat", "-cls", "8192");
    BAD("-cfg 3: allowed a power of two up to the line size (bytes per first-access flag)", "-mode", "mlvcfiat",
        "-cfg", "3");
}

Test(knobs, across_knobs)
{
    BAD("-a: needs -mode (mcftrace, mlstrace, mcftraptor, mlvcfiat)", "-o", "x", "-a");
    BAD("-c: needs -mode (mcftrace, mlstrace, mcftraptor, mlvcfiat)", "-o", "x", "-c", "gzip");
    BAD("-d: needs -mode (mcftrace, mlstrace, mcftraptor, mlvcfiat)", "-o", "x", "-d");
    BAD("no output: give -mode or -o NAME", "-gshare", "1024");
    BAD("-d: only with -a (the disassembly is a column of the ASCII descriptors)", "-mode", "mcftrace", "-d");
    BAD("-store: only with -mode mlstrace", "-mode", "mcftrace", "-store");
    BAD("-store: only with -mode mlstrace", "-o", "x", "-store");
    const char *cache[] = {"-ca", "-cfg", "-cls", "-cs"};
    for (int k = 0; k < 4; k++) {
        char want[128];
        snprintf(want, sizeof want, "%s: only with -mode mlvcfiat (the cache of mlvCFiat)", cache[k]);
        BAD(want, "-mode", "mcftraptor", cache[k], "4");
    }
    BAD("-cshare: only with -mode mlvcfiat (the cache of mlvCFiat)", "-o", "x", "-cshare");
    /* the cache as a whole, defaults named */
    BAD("-cls 2048: allowed a power of two from 4 to 4096 bytes, at most the cache size (-cs 1)", "-mode",
        "mlvcfiat", "-cs", "1", "-cls", "2048");
    BAD("-ca 64: allowed a power of two from 1 to 32 (cache size / line size, at most 64)", "-mode", "mlvcfiat",
        "-cs", "1", "-ca", "64");
    BAD("-ca 4 (the default): allowed a power of two from 1 to 2 (cache size / line size, at most 64)", "-mode",
        "mlvcfiat", "-cs", "1", "-cls", "512");
    BAD("-cfg 4 (the default): allowed a power of two from 8 to the line size 512 (at most 64 flags per line)",
        "-mode", "mlvcfiat", "-cls", "512", "-ca", "2");
    BAD("-cfg 64: allowed a power of two from 1 to the line size 32 (at most 64 flags per line)", "-mode",
        "mlvcfiat", "-cfg", "64");
}

/* ---------------------------------------------------- against tm record */

/* Translates KNOBV (KNOBC) into OUT: the count, or TM_ERR_ARG. */
static int tr(int knobc, const char **knobv, const char **out)
{
    char err[512];
    return tm_knobs_to_record(knobc, knobv, out, MAXOUT, err, sizeof err);
}

/* The predictor sizes: accepted exactly when tm record's model accepts
 * them (cmodel/pred.c). */
Test(knobs, predictors_as_tm_record)
{
    static const char *const names[3] = {"-gshare", "-RAS", "-iBTB"};
    static const char *const opts[3] = {"--gshare", "--ras", "--ibtb"};
    for (int which = 0; which < 3; which++)
        for (unsigned v = 0; v <= 5000; v++) {
            char val[16];
            snprintf(val, sizeof val, "%u", v);
            const char *kv[] = {"-mode", "mcftraptor", names[which], val};
            const char *out[MAXOUT];
            int n = tr(4, kv, out);
            tm_pred_cfg c = {.gshare = 4096, .ras = 32, .ibtb = 64};
            uint32_t *f = which == 0 ? &c.gshare : which == 1 ? &c.ras : &c.ibtb;
            *f = v;
            int tm_ok = tm_pred_cfg_check(&c, NULL, 0) == TM_OK;
            cr_assert_eq(n >= 0, tm_ok, "%s %u: knobs %d, tm record %d", names[which], v, n, tm_ok);
            if (n >= 0) {
                cr_assert_eq(n, 4);
                cr_assert_str_eq(out[2], opts[which]);
                cr_assert_str_eq(out[3], val);
            }
        }
}

/* The cache (size in KB, line, ways, flag granularity): accepted exactly
 * when tm record's model accepts the translated options (tm_parse_size of
 * --cache, cmodel/dcache.c); unset knobs are tm record's "tool" cache. */
Test(knobs, cache_as_tm_record)
{
    static const char *const kb[] = {NULL, "1", "2", "4", "16", "32", "64", "1024", "65536"};
    static const char *const line[] = {NULL, "4", "8", "16", "32", "64", "128", "512", "2048", "4096"};
    static const char *const assoc[] = {NULL, "1", "2", "4", "8", "32", "64"};
    static const char *const gran[] = {NULL, "1", "2", "4", "8", "16", "64", "128", "1024", "4096"};
    unsigned ok = 0, refused = 0;
    for (size_t a = 0; a < sizeof kb / sizeof kb[0]; a++)
        for (size_t b = 0; b < sizeof line / sizeof line[0]; b++)
            for (size_t c = 0; c < sizeof assoc / sizeof assoc[0]; c++)
                for (size_t d = 0; d < sizeof gran / sizeof gran[0]; d++) {
                    const char *kv[12] = {"-mode", "mlvcfiat"};
                    int k = 2;
                    if (kb[a]) kv[k++] = "-cs", kv[k++] = kb[a];
                    if (line[b]) kv[k++] = "-cls", kv[k++] = line[b];
                    if (assoc[c]) kv[k++] = "-ca", kv[k++] = assoc[c];
                    if (gran[d]) kv[k++] = "-cfg", kv[k++] = gran[d];
                    const char *out[MAXOUT];
                    int n = tr(k, kv, out);
                    tm_cache_cfg cc;
                    cr_assert_eq(tm_cache_preset(&cc, "tool"), TM_OK);
                    if (kb[a]) cc.size = (uint32_t)atoi(kb[a]) * 1024u;
                    if (line[b]) cc.line = (uint32_t)atoi(line[b]);
                    if (assoc[c]) cc.assoc = (uint32_t)atoi(assoc[c]);
                    if (gran[d]) cc.gran = (uint32_t)atoi(gran[d]);
                    int tm_ok = tm_cache_cfg_check(&cc, NULL, 0) == TM_OK;
                    cr_assert_eq(n >= 0, tm_ok, "-cs %s -cls %s -ca %s -cfg %s: knobs %d, tm record %d",
                                 kb[a] ? kb[a] : "-", line[b] ? line[b] : "-", assoc[c] ? assoc[c] : "-",
                                 gran[d] ? gran[d] : "-", n, tm_ok);
                    if (n < 0) {
                        refused++;
                        continue;
                    }
                    ok++;
                    /* the options give tm record's model the same cache */
                    tm_cache_cfg got;
                    tm_cache_preset(&got, "tool");
                    for (int i = 2; i + 1 < n; i += 2) {
                        if (!strcmp(out[i], "--cache"))
                            cr_assert_eq(tm_parse_size(out[i + 1], &got.size), 0);
                        else if (!strcmp(out[i], "--line"))
                            got.line = (uint32_t)atoi(out[i + 1]);
                        else if (!strcmp(out[i], "--assoc"))
                            got.assoc = (uint32_t)atoi(out[i + 1]);
                        else if (!strcmp(out[i], "--granularity"))
                            got.gran = (uint32_t)atoi(out[i + 1]);
                        else
                            cr_assert_fail("unexpected %s", out[i]);
                    }
                    cr_assert_eq(memcmp(&got, &cc, sizeof got), 0);
                }
    cr_assert_gt(ok, 100);
    cr_assert_gt(refused, 100);
}

/* -s, -l, -f: the numbers tm record takes (tm_parse_count, recmode_opts_parse). */
Test(knobs, counts_as_tm_record, .init = cr_redirect_stderr)
{
    static const char *const vals[] = {"0", "1", "42", "3k", "3K", "2m", "7G", "1g", "18446744073709551615",
                                       "18446744073709551616", "18446744073709552k", "17592186044415",
                                       "17592186044416", "", "-1", "+1", "1.5", "0x10", " 1", "1 ", "k", "3kk",
                                       "5T"};
    for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++) {
        const char *out[MAXOUT];
        uint64_t x = 0;
        /* -s */
        const char *s[] = {"-mode", "mcftrace", "-s", vals[k]};
        cr_assert_eq(tr(4, s, out) >= 0, tm_parse_count(vals[k], &x) == 0, "-s %s", vals[k]);
        /* -l: at least 1 */
        const char *l[] = {"-mode", "mcftrace", "-l", vals[k]};
        cr_assert_eq(tr(4, l, out) >= 0, tm_parse_count(vals[k], &x) == 0 && x > 0, "-l %s", vals[k]);
        /* -f: tm record's own parser */
        const char *f[] = {"-mode", "mcftrace", "-f", vals[k]};
        tm_recmode_cfg c = {0};
        const char *av[] = {"record", "-f", vals[k]};
        int i = 1;
        cr_assert_eq(tr(4, f, out) >= 0, recmode_opts_parse(&c, 3, (char **)av, &i) == 1, "-f %s", vals[k]);
    }
}

/* tm record's options the translation may give besides those of
 * recmode_opts_parse (each in `tm record --help`; tests/e2e/t_record_disasm.sh
 * checks that too). */
static const char *const record_opts[] = {"--no-shared-libs", "--filter-rtn", "-l", "-o", "-s", "--gshare",
                                          "--ras", "--ibtb", "--shared", "--assoc", "--granularity", "--line",
                                          "--cache", "--cfiat-shared"};

/* Every translation tm record's parsers take: the mode options by
 * recmode_opts_parse (and tm_recmode_open then opens the files), the
 * others are tm record's (with a value when it takes one). */
Test(knobs, parsed_by_tm_record)
{
    const char *sets[][24] = {
        {"-mode", "mcftrace", "-a", "-d", "-c", "gzip", "-f", "5", "-s", "10", "-l", "20", "-o", "@",
         "-filter_no_shared_libs", NULL},
        {"-mode", "mlstrace", "-store", "-a", "-filter_rtn", "main", "-o", "@", NULL},
        {"-mode", "mcftraptor", "-a", "-d", "-gshare", "1024", "-RAS", "16", "-iBTB", "16", "-TRaptorShare", "-o",
         "@", NULL},
        {"-mode", "mlvcfiat", "-cs", "64", "-ca", "2", "-cls", "64", "-cfg", "8", "-cshare", "-o", "@", NULL},
        {"-mode", "mcftrace", "-c", "zstd", "-o", "@", NULL},
    };
    char dir[] = "/tmp/knobs.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char base[64];
    snprintf(base, sizeof base, "%s/k", dir);
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        int knobc = 0;
        while (sets[s][knobc]) {
            if (!strcmp(sets[s][knobc], "@"))
                sets[s][knobc] = base;
            knobc++;
        }
        const char *out[MAXOUT];
        char err[256];
        int n = tm_knobs_to_record(knobc, sets[s], out, MAXOUT, err, sizeof err);
        cr_assert_geq(n, 0, "set %zu: %s", s, err);
        char *argv[MAXOUT + 1];
        argv[0] = "record";
        for (int i = 0; i < n; i++)
            argv[i + 1] = (char *)out[i];
        tm_recmode_cfg c = {0};
        const char *name = NULL;
        for (int i = 1; i <= n; i++) {
            int r = recmode_opts_parse(&c, n + 1, argv, &i);
            cr_assert_neq(r, -1, "set %zu: %s refused", s, argv[i]);
            if (r == 1)
                continue;
            size_t k = 0;
            while (k < sizeof record_opts / sizeof record_opts[0] && strcmp(argv[i], record_opts[k]))
                k++;
            cr_assert_lt(k, sizeof record_opts / sizeof record_opts[0], "set %zu: %s is no tm record option", s,
                         argv[i]);
            int flag = !strcmp(argv[i], "--no-shared-libs") || !strcmp(argv[i], "--shared") ||
                       !strcmp(argv[i], "--cfiat-shared");
            if (!strcmp(argv[i], "-o"))
                name = argv[i + 1];
            if (!flag) {
                cr_assert_lt(i + 1, n + 1, "set %zu: %s without its value", s, argv[i]);
                i++;
            }
        }
        cr_assert_not_null(c.mode);
        cr_assert_str_eq(name, base);
        c.name = name;
        tm_model_cfg mc;
        tm_model_cfg_default(&mc, 2);
        if (tm_recmode_needs_cfiat(&c))
            mc.enc.data = TM_DATA_CFIAT;
        cr_assert_eq(tm_model_cfg_resolve(&mc, err, sizeof err), TM_OK, "%s", err);
        tm_recmode *m = NULL;
        cr_assert_eq(tm_recmode_open(&c, &mc, &m, err, sizeof err), 0, "set %zu: %s", s, err);
        cr_assert_eq(tm_recmode_close(m, NULL, err, sizeof err), 0, "set %zu: %s", s, err);
        char cmd[160];
        snprintf(cmd, sizeof cmd, "rm -f %s/k.* %s/.k.*", dir, dir);
        cr_assert_eq(system(cmd), 0);
    }
    cr_assert_eq(rmdir(dir), 0);
}

Test(knobs, help)
{
    const char *h = tm_knobs_help();
    cr_assert_not_null(h);
    cr_assert_eq(h[strlen(h) - 1], '\n');
    /* every knob has its line */
    static const char *const all[] = {"-mode M", "-a ", "-c C", "-d ", "-f N", "-filter_no_shared_libs ",
                                      "-filter_rtn NAME", "-l N", "-o NAME", "-s N", "-store ", "-gshare N",
                                      "-RAS N", "-iBTB N", "-TRaptorShare ", "-ca N", "-cfg N", "-cls N",
                                      "-cs KB", "-cshare "};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        char line[64];
        snprintf(line, sizeof line, "\n  %s", all[k]);
        cr_assert_not_null(strstr(h, line), "no line for %s", all[k]);
    }
    /* 80 columns at most */
    for (const char *p = h; *p;) {
        const char *nl = strchr(p, '\n');
        cr_assert_leq(nl - p, 80, "%.*s", (int)(nl - p), p);
        p = nl + 1;
    }
}
