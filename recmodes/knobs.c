/* tm — the thesis tools' knobs as tm record's options (tm/knobs.h).  Only
 * <stdio.h>, <stdlib.h> and <string.h>, no globals, no allocation: the Pin
 * tool compiles this file against PinCRT.  The checks are tm record's
 * (recmodes/recmodeopt.c, config/modelspec.c, cmodel/pred.c
 * tm_pred_cfg_check, cmodel/dcache.c tm_cache_cfg_check), stated in the
 * knobs' names; tests/unit/test_knobs.c holds them against tm record's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/knobs.h"

/* How a knob's value is checked. */
enum {
    V_NONE,   /* a flag */
    V_MODE,   /* a tool */
    V_COMP,   /* a compressor */
    V_MB,     /* -f: whole megabytes, >= 1 */
    V_COUNT,  /* -s: instructions (k/m/g suffix as tm record) */
    V_COUNT1, /* -l: the same, >= 1 */
    V_NAME,   /* a non-empty name */
    V_GSHARE, V_RAS, V_IBTB,
    V_ASSOC, V_GRAN, V_LINE, V_KB
};

/* The tool a knob belongs to, when only one has it. */
enum { FOR_ANY, FOR_MLS, FOR_CFIAT, FOR_MODE };

typedef struct knob {
    const char *name, *opt;
    unsigned char check, tool;
} knob;

static const knob knobs[] = {
    {"-mode", "--mode", V_MODE, FOR_ANY},
    {"-a", "-a", V_NONE, FOR_MODE},
    {"-c", "-c", V_COMP, FOR_MODE},
    {"-d", "-d", V_NONE, FOR_MODE},
    {"-f", "-f", V_MB, FOR_ANY},
    {"-filter_no_shared_libs", "--no-shared-libs", V_NONE, FOR_ANY},
    {"-filter_rtn", "--filter-rtn", V_NAME, FOR_ANY},
    {"-l", "-l", V_COUNT1, FOR_ANY},
    {"-o", "-o", V_NAME, FOR_ANY},
    {"-s", "-s", V_COUNT, FOR_ANY},
    {"-store", "--store", V_NONE, FOR_MLS},
    {"-gshare", "--gshare", V_GSHARE, FOR_ANY},
    {"-RAS", "--ras", V_RAS, FOR_ANY},
    {"-iBTB", "--ibtb", V_IBTB, FOR_ANY},
    {"-TRaptorShare", "--shared", V_NONE, FOR_ANY},
    {"-ca", "--assoc", V_ASSOC, FOR_CFIAT},
    {"-cfg", "--granularity", V_GRAN, FOR_CFIAT},
    {"-cls", "--line", V_LINE, FOR_CFIAT},
    {"-cs", "--cache", V_KB, FOR_CFIAT},
    {"-cshare", "--cfiat-shared", V_NONE, FOR_CFIAT},
};
#define NKNOBS (sizeof knobs / sizeof knobs[0])

static const char *const modes[] = {"mcftrace", "mlstrace", "mcftraptor", "mlvcfiat"};
static const char *const compressors[] = {"gzip", "bzip2", "pigz", "pbzip2", "zstd"};

/* -cs in kilobytes as tm record's --cache: the powers of two tm record
 * accepts (16 bytes to 64M) that are whole kilobytes. */
static const char *const cache_kb[] = {"1K",    "2K",    "4K",    "8K",    "16K",   "32K",
                                       "64K",   "128K",  "256K",  "512K",  "1024K", "2048K",
                                       "4096K", "8192K", "16384K", "32768K", "65536K"};
#define NCACHE_KB (sizeof cache_kb / sizeof cache_kb[0])

static const char help[] =
    "Knobs: the thesis tools' parameters (seeds/000 Tables 4.1, 4.3, 4.5, 4.6); tm\n"
    "record writes the files, as tm record --mode does (docs/guide.md):\n"
    "  -mode M                 the descriptors of tool M: mcftrace, mlstrace,\n"
    "                          mcftraptor, mlvcfiat (NAME.txt or .bin, .Statistics)\n"
    "  -a                      ASCII descriptors (default binary)\n"
    "  -c C                    compress them: gzip, bzip2, pigz, pbzip2, zstd\n"
    "  -d                      with -a: each ends with its instruction's disassembly\n"
    "  -f N                    stop tracing at N MB of descriptors (default no limit)\n"
    "  -filter_no_shared_libs  trace only the program, not its shared libraries\n"
    "  -filter_rtn NAME        trace from the function NAME on\n"
    "  -l N                    trace N instructions, then stop tracing\n"
    "  -o NAME                 the outputs' base name (default Tool.outY_M_D_h.m.s)\n"
    "  -s N                    skip the first N instructions\n"
    "  -store                  mlstrace: store descriptors too\n"
    "  -gshare N               gshare entries: 0 or 2^k up to 4096 (default 4096)\n"
    "  -RAS N                  return address stack entries: 0 to 32 (default 32)\n"
    "  -iBTB N                 iBTB entries, 2-way: 0 or 2^k, 2 to 64 (default 64)\n"
    "  -TRaptorShare           one predictor set for all threads (default private)\n"
    "  -ca N                   mlvcfiat: cache ways, 2^k up to 64 (default 4)\n"
    "  -cfg N                  bytes per first-access flag, 2^k (default 4)\n"
    "  -cls N                  cache line bytes, 2^k from 4 to 4096 (default 32)\n"
    "  -cs KB                  cache kilobytes, 2^k from 1 to 65536 (default 32)\n"
    "  -cshare                 one cache for all threads (default private)\n";

const char *tm_knobs_help(void) { return help; }

/* S (may be NULL) in any case equals LOWER (lower-case). */
static int same_nocase(const char *s, const char *lower)
{
    if (!s)
        return 0;
    for (; *s && *lower; s++, lower++) {
        char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;
        if (c != *lower)
            return 0;
    }
    return *s == *lower;
}

/* Decimal digits, then with SUFFIXES an optional k/K, m/M or g/G (10^3,
 * 10^6, 10^9), as tm record's counts: 0, or -1 (not a number, overflow). */
static int parse_num(const char *s, int suffixes, unsigned long long *out)
{
    const unsigned long long max = ~0ULL;
    unsigned long long v = 0, mul = 1;
    if (!s || *s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (suffixes && (*s == 'k' || *s == 'K'))
        mul = 1000ULL, s++;
    else if (suffixes && (*s == 'm' || *s == 'M'))
        mul = 1000000ULL, s++;
    else if (suffixes && (*s == 'g' || *s == 'G'))
        mul = 1000000000ULL, s++;
    if (*s || (mul > 1 && v > max / mul))
        return -1;
    *out = v * mul;
    return 0;
}

static int pow2(unsigned long long v) { return v && !(v & (v - 1)); }

/* One line into ERR (may be NULL or empty), then TM_ERR_ARG. */
#define FAIL(...) return (err && errlen ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0), TM_ERR_ARG

/* The value V of the knob K checked alone (the cache's combination is
 * checked at the end); its number in *NUM.  0, or TM_ERR_ARG with ERR. */
static int check_value(const knob *k, const char *v, unsigned long long *num, char *err, size_t errlen)
{
    size_t i;
    switch (k->check) {
    case V_MODE:
        for (i = 0; i < sizeof modes / sizeof modes[0]; i++)
            if (same_nocase(v, modes[i]))
                return 0;
        FAIL("%s %s: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat", k->name, v);
    case V_COMP:
        for (i = 0; i < sizeof compressors / sizeof compressors[0]; i++)
            if (!strcmp(v, compressors[i]))
                return 0;
        FAIL("%s %s: allowed gzip, bzip2, pigz, pbzip2, zstd", k->name, v);
    case V_MB:
        if (parse_num(v, 0, num) || *num == 0 || *num > (~0ULL >> 20))
            FAIL("%s %s: allowed a whole number of megabytes, at least 1", k->name, v);
        return 0;
    case V_COUNT:
    case V_COUNT1:
        if (parse_num(v, 1, num) || (k->check == V_COUNT1 && *num == 0))
            FAIL("%s %s: allowed a number of instructions%s", k->name, v,
                 k->check == V_COUNT1 ? " (at least 1)" : "");
        return 0;
    case V_NAME:
        if (!*v)
            FAIL("%s: needs a name", k->name);
        return 0;
    default:
        break;
    }
    /* the sizes: plain decimal numbers */
    if (parse_num(v, 0, num))
        *num = ~0ULL; /* not a number: out of every range below */
    switch (k->check) {
    case V_GSHARE:
        if (*num != 0 && (!pow2(*num) || *num > 4096))
            FAIL("%s %s: allowed 0 or a power of two from 1 to 4096 (entries)", k->name, v);
        break;
    case V_RAS:
        if (*num > 32)
            FAIL("%s %s: allowed 0 to 32 (entries)", k->name, v);
        break;
    case V_IBTB:
        if (*num != 0 && (!pow2(*num) || *num < 2 || *num > 64))
            FAIL("%s %s: allowed 0 or a power of two from 2 to 64 (entries, 2-way)", k->name, v);
        break;
    case V_ASSOC:
        if (!pow2(*num) || *num > 64)
            FAIL("%s %s: allowed a power of two from 1 to 64 (ways)", k->name, v);
        break;
    case V_GRAN:
        if (!pow2(*num) || *num > 4096)
            FAIL("%s %s: allowed a power of two up to the line size (bytes per first-access flag)", k->name, v);
        break;
    case V_LINE:
        if (!pow2(*num) || *num < 4 || *num > 4096)
            FAIL("%s %s: allowed a power of two from 4 to 4096 (bytes)", k->name, v);
        break;
    case V_KB:
        for (i = 0; i < NCACHE_KB; i++)
            if (*num == 1ULL << i)
                return 0;
        FAIL("%s %s: allowed a power of two from 1 to 65536 (kilobytes)", k->name, v);
    default:
        break;
    }
    return 0;
}

int tm_knobs_to_record(int knobc, const char *const *knobv, const char **out, int max, char *err, size_t errlen)
{
    int n = 0;
    const char *mode = NULL, *name = NULL;
    const char *first_mode_knob = NULL; /* -a, -c or -d: they need -mode */
    const char *store = NULL, *first_cache = NULL;
    int ascii = 0, disasm = 0;
    /* the cache, tm record's default "tool" cache unless given (-cs in KB) */
    unsigned long long size = 32, assoc = 4, line = 32, gran = 4;
    int have_assoc = 0, have_line = 0, have_gran = 0, have_size = 0;
    if (err && errlen)
        err[0] = '\0';
    if (knobc < 0 || (knobc > 0 && !knobv))
        FAIL("tm_knobs_to_record: no knobs (knobc %d)", knobc);
    for (int i = 0; i < knobc; i++) {
        const char *a = knobv[i];
        if (!a)
            FAIL("tm_knobs_to_record: knob %d is NULL", i);
        const knob *k = NULL;
        for (size_t j = 0; j < NKNOBS && !k; j++)
            if (!strcmp(a, knobs[j].name))
                k = &knobs[j];
        if (!k)
            FAIL("%s: unknown knob (allowed -mode, -a, -c, -d, -f, -filter_no_shared_libs, -filter_rtn, -l, -o, -s, "
                 "-store, -gshare, -RAS, -iBTB, -TRaptorShare, -ca, -cfg, -cls, -cs, -cshare)",
                 a);
        const char *v = NULL;
        unsigned long long num = 0;
        if (k->check != V_NONE) {
            if (i + 1 >= knobc || !knobv[i + 1])
                FAIL("%s: needs a value", a);
            v = knobv[++i];
            if (check_value(k, v, &num, err, errlen))
                return TM_ERR_ARG;
        }
        if (n + (v ? 2 : 1) > max)
            FAIL("%s: no room for tm record's arguments (%d; as many as the knobs suffice)", a, max);
        out[n++] = k->opt;
        if (v) {
            size_t kb = 0;
            while (k->check == V_KB && (1ULL << kb) < num)
                kb++;
            out[n++] = k->check == V_KB ? cache_kb[kb] : v;
        }
        if (k->tool == FOR_MODE && !first_mode_knob)
            first_mode_knob = k->name;
        if (k->tool == FOR_MLS && !store)
            store = k->name;
        if (k->tool == FOR_CFIAT && !first_cache)
            first_cache = k->name;
        switch (k->check) {
        case V_MODE: mode = v; break;
        case V_NAME: if (!strcmp(k->name, "-o")) name = v; break;
        case V_ASSOC: assoc = num; have_assoc = 1; break;
        case V_GRAN: gran = num; have_gran = 1; break;
        case V_LINE: line = num; have_line = 1; break;
        case V_KB: size = num; have_size = 1; break;
        default: break;
        }
        if (!strcmp(k->name, "-a"))
            ascii = 1;
        if (!strcmp(k->name, "-d"))
            disasm = 1;
    }
    /* What tm record checks across its options. */
    if (first_mode_knob && !mode)
        FAIL("%s: needs -mode (mcftrace, mlstrace, mcftraptor, mlvcfiat)", first_mode_knob);
    if (!mode && !name)
        FAIL("no output: give -mode or -o NAME");
    if (disasm && !ascii)
        FAIL("-d: only with -a (the disassembly is a column of the ASCII descriptors)");
    if (store && !same_nocase(mode, "mlstrace"))
        FAIL("%s: only with -mode mlstrace", store);
    if (first_cache && !same_nocase(mode, "mlvcfiat"))
        FAIL("%s: only with -mode mlvcfiat (the cache of mlvCFiat)", first_cache);
    /* the cache as a whole (tm_cache_cfg_check), SIZE in KB */
    size <<= 10;
    if (line > size)
        FAIL("-cls %llu%s: allowed a power of two from 4 to 4096 bytes, at most the cache size (-cs %llu%s)", line,
             have_line ? "" : " (the default)", size >> 10, have_size ? "" : ", the default");
    unsigned long long maxa = size / line < 64 ? size / line : 64;
    if (assoc > maxa)
        FAIL("-ca %llu%s: allowed a power of two from 1 to %llu (cache size / line size, at most 64)", assoc,
             have_assoc ? "" : " (the default)", maxa);
    if (gran > line || line / gran > 64)
        FAIL("-cfg %llu%s: allowed a power of two from %llu to the line size %llu (at most 64 flags per line)", gran,
             have_gran ? "" : " (the default)", line / 64 > 1 ? line / 64 : 1, line);
    return n;
}
