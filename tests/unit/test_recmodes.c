/* tm — unit tests of tm record --mode (recmodes/recmodes.c, its options in
 * recmodes/recmodeopt.c, read from argv as tm record does: recmode_argv.h): the descriptor
 * bytes and ASCII lines of mcfTrace, mlsTrace, mcfTRaptor and mlvCFiat
 * (seeds/000 Figs. 4.2, 4.13, 4.22, 4.36), their statistics files (Figs.
 * 4.3, 4.14, 4.23, 4.38), the -f limit, the compressors, option and open
 * errors, the disassembly column of -d (Figs. 4.2, 4.8, 4.10, 4.13, 4.22,
 * 4.36) from modules given as files and as bytes. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "recmode_argv.h"
#include "tm/recmodes.h"

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dirent.h>
#include <elf.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ helpers */

static char dir[64];
static char pathbuf[256];

static void mkdir_tmp(void)
{
    snprintf(dir, sizeof dir, "/tmp/recmodes.XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm_tmp(void)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(dir);
}

static const char *in_tmp(const char *name)
{
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", dir, name);
    return pathbuf;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap + 1);
    size_t k;
    while ((k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            b = realloc(b, (cap *= 2) + 1);
    }
    fclose(f);
    b[n] = 0;
    *len = n;
    return b;
}

static char *slurp_text(const char *path)
{
    size_t n;
    return (char *)slurp(path, &n);
}

/* The output of a shell command (a decompressor). */
static uint8_t *run_cmd(const char *cmd, size_t *len)
{
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 16, n = 0, k;
    uint8_t *b = malloc(cap);
    while ((k = fread(b + n, 1, cap - n, p)) > 0) {
        n += k;
        if (n == cap)
            b = realloc(b, cap *= 2);
    }
    cr_assert_eq(pclose(p), 0, "%s failed", cmd);
    *len = n;
    return b;
}

static int have_prog(const char *name)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

/* The text after the first line (skips the statistics' time line). */
static const char *after_line1(const char *s)
{
    const char *nl = strchr(s, '\n');
    return nl ? nl + 1 : s;
}

static tm_recmode *open_mode(tm_recmode_cfg *c, const tm_model_cfg *mcfg)
{
    char err[512] = "";
    tm_recmode *m = NULL;
    cr_assert_eq(tm_recmode_open(c, mcfg, &m, err, sizeof err), 0, "open: %s", err);
    cr_assert_not_null(m);
    return m;
}

static void close_mode(tm_recmode *m, const tm_model *model)
{
    char err[512] = "";
    cr_assert_eq(tm_recmode_close(m, model, err, sizeof err), 0, "close: %s", err);
}

/* Commit-stream records. */
static tmc_record rec_start(uint32_t t, uint64_t cyc, uint64_t pc)
{
    tmc_record r = {0};
    r.type = TMC_START; r.tid = t; r.cycle = cyc; r.pc = pc;
    return r;
}

static tmc_record rec_run(uint32_t t, uint64_t cyc, uint64_t pc, uint64_t n, uint64_t bytes)
{
    tmc_record r = {0};
    r.type = TMC_RUN; r.tid = t; r.cycle = cyc; r.pc = pc; r.count = n; r.bytes = bytes;
    return r;
}

static tmc_record rec_br(uint32_t t, uint64_t cyc, int cls, uint64_t pc, unsigned len, uint64_t target, int taken)
{
    tmc_record r = {0};
    r.type = TMC_BRANCH; r.tid = t; r.cycle = cyc; r.pc = pc; r.len = (uint8_t)len;
    r.bclass = (uint8_t)cls; r.target = target; r.taken = (uint8_t)taken;
    return r;
}

static tmc_record rec_exc(uint32_t t, uint64_t cyc, uint64_t pc, uint64_t handler)
{
    tmc_record r = {0};
    r.type = TMC_EXC; r.tid = t; r.cycle = cyc; r.pc = pc; r.target = handler;
    return r;
}

static tmc_record rec_exit(uint32_t t, uint64_t cyc)
{
    tmc_record r = {0};
    r.type = TMC_EXIT; r.tid = t; r.cycle = cyc;
    return r;
}

/* A memory operand; VALUE is given as the number it holds (little-endian
 * in memory), HI for bytes 8.. (filled with HI+k). */
static tmc_record rec_mem(uint32_t t, uint64_t cyc, int store, uint64_t pc, uint64_t addr, unsigned size,
                          uint64_t value)
{
    tmc_record r = {0};
    r.type = TMC_MEM; r.tid = t; r.cycle = cyc; r.pc = pc; r.addr = addr; r.size = (uint8_t)size;
    r.flags = store ? TMC_MEM_STORE : 0;
    for (unsigned k = 0; k < size; k++)
        r.value[k] = k < 8 ? (uint8_t)(value >> (8 * k)) : (uint8_t)(0xa0 + k);
    return r;
}

static void feed(tm_recmode *m, const tmc_record *rs, int n)
{
    for (int i = 0; i < n; i++)
        cr_assert_eq(tm_recmode_record(m, &rs[i]), 0, "record %d: %s", i, tm_recmode_error(m));
}

/* The branches of Figs. 4.8, 4.10 and 4.12 (BranchEnumeration.s and
 * BranchTest.s) as commit-stream records, plus an exception. */
static int thesis_branches(tmc_record *rs)
{
    int n = 0;
    rs[n++] = rec_start(0, 1, 0x4004d0);
    rs[n++] = rec_run(0, 2, 0x4004d0, 1, 3);
    rs[n++] = rec_br(0, 2, TMC_COND, 0x4004d3, 6, 0x40059e, 0);   /* jnbe, not taken */
    rs[n++] = rec_br(0, 3, TMC_COND, 0x4004d9, 6, 0x40059e, 0);   /* jnb, not taken */
    rs[n++] = rec_br(0, 4, TMC_JUMP, 0x40058f, 5, 0x400594, 1);   /* jmp 0x400594 */
    rs[n++] = rec_br(0, 5, TMC_CALL, 0x400599, 5, 0x4003b8, 1);   /* call 0x4003b8 */
    rs[n++] = rec_br(0, 6, TMC_RET, 0x40059f, 1, 0x7f688ca5ce5d, 1); /* ret */
    rs[n++] = rec_br(0, 7, TMC_COND, 0x4004ec, 2, 0x4004f1, 1);   /* jnbe, taken */
    rs[n++] = rec_br(0, 8, TMC_ICALL, 0x400511, 2, 0x4004c4, 1);  /* call rax */
    rs[n++] = rec_run(0, 9, 0x4004c4, 2, 7);
    rs[n++] = rec_exc(0, 9, 0x4004cb, 0x401000);
    rs[n++] = rec_br(1, 10, TMC_IJUMP, 0x500000, 2, 0x500100, 1); /* thread 1: jmp rax */
    return n;
}

/* ------------------------------------------------------------ options */

static int parse1(tm_recmode_cfg *c, int argc, const char **argv, int *i)
{
    return recmode_opts_parse(c, argc, (char **)argv, i);
}

Test(recmodes, parse_options)
{
    tm_recmode_cfg c = {0};
    const char *av[] = {"record", "--mode", "mcfTRaptor", "-a", "-c", "zstd", "-f", "3", "--store",
                        "--mode=mlstrace", "-c=gzip", "-f=1", "-o", "x", "-s", "5"};
    int argc = (int)(sizeof av / sizeof av[0]), i = 1;
    cr_assert_eq(parse1(&c, argc, av, &i), 1);
    cr_assert_eq(i, 2);
    cr_assert_str_eq(c.mode, "mcfTRaptor");
    i = 3;
    cr_assert_eq(parse1(&c, argc, av, &i), 1);
    cr_assert_eq(c.ascii, 1);
    i = 4;
    cr_assert_eq(parse1(&c, argc, av, &i), 1);
    cr_assert_eq(i, 5);
    cr_assert_str_eq(c.compress, "zstd");
    i = 6;
    cr_assert_eq(parse1(&c, argc, av, &i), 1);
    cr_assert_eq(c.size_limit, 3u << 20);
    i = 8;
    cr_assert_eq(parse1(&c, argc, av, &i), 1);
    cr_assert_eq(c.store, 1);
    i = 9;
    cr_assert_eq(parse1(&c, argc, av, &i), 1);
    cr_assert_str_eq(c.mode, "mlstrace");
    cr_assert_eq(i, 9);
    i = 10;
    cr_assert_eq(parse1(&c, argc, av, &i), 1);
    cr_assert_str_eq(c.compress, "gzip");
    i = 11;
    cr_assert_eq(parse1(&c, argc, av, &i), 1);
    cr_assert_eq(c.size_limit, 1u << 20);
    /* -o, -s and -l belong to tm record. */
    i = 12;
    cr_assert_eq(parse1(&c, argc, av, &i), 0);
    cr_assert_eq(i, 12);
    i = 14;
    cr_assert_eq(parse1(&c, argc, av, &i), 0);
    cr_assert_eq(tm_recmode_needs_mem(&c), 1);
    cr_assert_eq(tm_recmode_needs_cfiat(&c), 0);
    c.mode = "MLVCFIAT";
    cr_assert_eq(tm_recmode_needs_cfiat(&c), 1);
    /* -d, a flag */
    const char *dv[] = {"record", "-d", "-d=1"};
    i = 1;
    cr_assert_eq(c.disasm, 0);
    cr_assert_eq(parse1(&c, 3, dv, &i), 1);
    cr_assert_eq(i, 1);
    cr_assert_eq(c.disasm, 1);
    i = 2;
    cr_assert_eq(parse1(&c, 3, dv, &i), 0);
}

static void redirect_err(void) { cr_redirect_stderr(); }

Test(recmodes, parse_errors, .init = redirect_err)
{
    struct { const char *a, *v; } bad[] = {
        {"--mode", "mcftrace2"}, {"-c", "xz"}, {"-f", "0"}, {"-f", "ten"}, {"-f", "-3"},
        {"-f", "1.5"}, {"-f", "99999999999999999999"}, {"-f", "17592186044416"}, {"-f", ""},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        tm_recmode_cfg c = {0};
        const char *av[] = {"record", bad[k].a, bad[k].v};
        int i = 1;
        cr_assert_eq(parse1(&c, 3, av, &i), -1, "%s %s", bad[k].a, bad[k].v);
    }
    /* A missing value. */
    const char *miss[] = {"--mode", "-c", "-f"};
    for (int k = 0; k < 3; k++) {
        tm_recmode_cfg c = {0};
        const char *av[] = {"record", miss[k]};
        int i = 1;
        cr_assert_eq(parse1(&c, 2, av, &i), -1, "%s", miss[k]);
    }
    /* The largest -f. */
    tm_recmode_cfg c = {0};
    const char *av[] = {"record", "-f", "17592186044415"};
    int i = 1;
    cr_assert_eq(parse1(&c, 3, av, &i), 1);
    cr_assert_eq(c.size_limit, UINT64_C(17592186044415) << 20);
    fflush(stderr);
    cr_assert_stderr_eq_str("tm record: --mode mcftrace2: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat (see tm record --help)\n"
                            "tm record: -c xz: allowed gzip, bzip2, pigz, pbzip2, zstd (see tm record --help)\n"
                            "tm record: -f 0: allowed a whole number of megabytes, at least 1 (see tm record --help)\n"
                            "tm record: -f ten: allowed a whole number of megabytes, at least 1 (see tm record --help)\n"
                            "tm record: -f -3: allowed a whole number of megabytes, at least 1 (see tm record --help)\n"
                            "tm record: -f 1.5: allowed a whole number of megabytes, at least 1 (see tm record --help)\n"
                            "tm record: -f 99999999999999999999: allowed a whole number of megabytes, at least 1 (see tm record --help)\n"
                            "tm record: -f 17592186044416: allowed a whole number of megabytes, at least 1 (see tm record --help)\n"
                            "tm record: -f : allowed a whole number of megabytes, at least 1 (see tm record --help)\n"
                            "tm record: --mode needs a value: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat (see tm record --help)\n"
                            "tm record: -c needs a compressor: allowed gzip, bzip2, pigz, pbzip2, zstd (see tm record --help)\n"
                            "tm record: -f needs a value: allowed a whole number of megabytes, at least 1 (see tm record --help)\n");
}

static void model_cfg(tm_model_cfg *cfg, uint32_t threads, int cfiat)
{
    tm_model_cfg_default(cfg, threads);
    if (cfiat)
        cfg->enc.data = TM_DATA_CFIAT;
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(cfg, err, sizeof err), TM_OK, "%s", err);
}

/* tm_recmode_open refuses C with status ST (TM_ERR_ARG if 0) and the line WANT. */
static void open_fails_st(tm_recmode_cfg *c, const tm_model_cfg *mcfg, int st, const char *want)
{
    char err[512] = "";
    tm_recmode *m = (tm_recmode *)1;
    cr_assert_eq(tm_recmode_open(c, mcfg, &m, err, sizeof err), st ? st : TM_ERR_ARG, "%s", err);
    cr_assert_null(m);
    cr_assert_str_eq(err, want);
}

static void open_fails(tm_recmode_cfg *c, const tm_model_cfg *mcfg, const char *want)
{
    open_fails_st(c, mcfg, 0, want);
}

Test(recmodes, open_errors)
{
    mkdir_tmp();
    tm_model_cfg mc, big;
    model_cfg(&mc, 4, 0);
    model_cfg(&big, 300, 0);
    char name[128];
    snprintf(name, sizeof name, "%s/t", dir);

    tm_recmode_cfg c = {0};
    tm_recmode *m = (tm_recmode *)1;
    char err[256];
    cr_assert_eq(tm_recmode_open(&c, &mc, &m, err, sizeof err), 0); /* no mode: nothing */
    cr_assert_null(m);
    cr_assert_eq(tm_recmode_record(NULL, NULL), 0);
    cr_assert_eq(tm_recmode_full(NULL), 0);
    cr_assert_eq(tm_recmode_close(NULL, NULL, err, sizeof err), 0);
    c.ascii = 1;
    open_fails(&c, &mc, "-a needs --mode (mcftrace, mlstrace, mcftraptor, mlvcfiat)");
    c = (tm_recmode_cfg){.disasm = 1};
    open_fails(&c, &mc, "-d needs --mode (mcftrace, mlstrace, mcftraptor, mlvcfiat)");
    c = (tm_recmode_cfg){.mode = "mcftraptor", .disasm = 1, .name = name};
    open_fails(&c, &mc, "-d: only with -a (the disassembly is a column of the ASCII descriptors; the binary ones "
                        "have none)");
    c = (tm_recmode_cfg){.mode = "mcftrace", .store = 1, .name = name};
    open_fails(&c, &mc, "--store: only with --mode mlstrace");
    c = (tm_recmode_cfg){.mode = "pintool", .name = name};
    open_fails(&c, &mc, "--mode pintool: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat");
    c = (tm_recmode_cfg){.mode = "mcftrace", .compress = "lzip", .name = name};
    open_fails(&c, &mc, "-c lzip: allowed gzip, bzip2, pigz, pbzip2, zstd");
    c = (tm_recmode_cfg){.mode = "mcftraptor", .name = name};
    open_fails(&c, NULL, "--mode mcftraptor: needs the model");
    tm_model_cfg nx = mc;
    nx.enc.enc = TM_ENC_NX_B;
    open_fails(&c, &nx, "--mode mcftraptor: needs a predicting encoding (--encoding tr_b or tr_e), nx_b has no "
                        "predictors");
    c.mode = "mlvcfiat";
    open_fails(&c, &mc, "--mode mlvcfiat: needs CFiat data tracing (--cfiat)");
    c.mode = "mcftrace";
    open_fails(&c, &big, "--threads 300: binary descriptors hold thread ids 0..255 (a 1-byte Thread ID); use -a "
                         "or at most 256 threads");
    c.ascii = 1; /* ASCII holds any thread id */
    m = open_mode(&c, &big);
    close_mode(m, NULL);
    /* An output that cannot be created. */
    c = (tm_recmode_cfg){.mode = "mcftrace", .name = "/nonexistent-dir/x"};
    open_fails_st(&c, &mc, TM_ERR_IO, "/nonexistent-dir/x.bin: No such file or directory");

    /* A missing compressor: one line, no file left behind. */
    char empty[128];
    snprintf(empty, sizeof empty, "%s/nobin", dir);
    cr_assert_eq(mkdir(empty, 0700), 0);
    setenv("PATH", empty, 1);
    snprintf(name, sizeof name, "%s/z", dir);
    c = (tm_recmode_cfg){.mode = "mlstrace", .compress = "pbzip2", .name = name};
    open_fails_st(&c, &mc, TM_ERR_IO,
                  "-c pbzip2: cannot run pbzip2: not found on PATH (install it or choose another -c)");
    struct stat st;
    cr_assert_neq(stat(in_tmp("z.bin.bz2"), &st), 0);
    cr_assert_neq(stat(in_tmp("z.Statistics"), &st), 0);
    rmdir(empty);
    unlink(in_tmp("t.txt"));
    unlink(in_tmp("t.Statistics"));
    rm_tmp();
}

/* ------------------------------------------------------------ mcfTrace */

Test(recmodes, mcftrace_ascii)
{
    mkdir_tmp();
    char name[128];
    snprintf(name, sizeof name, "%s/mcf", dir);
    tm_recmode_cfg c = {.mode = "mcftrace", .ascii = 1, .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    cr_assert_str_eq(tm_recmode_path(m), in_tmp("mcf.txt"));
    cr_assert_str_eq(tm_recmode_stats_path(m), in_tmp("mcf.Statistics"));
    tmc_record rs[32];
    int n = thesis_branches(rs);
    feed(m, rs, n);
    tm_recmode_set_skipped(m, 3000000);
    close_mode(m, NULL);
    char *txt = slurp_text(in_tmp("mcf.txt"));
    /* Figs. 4.8, 4.10, 4.12 without the disassembly. */
    cr_assert_str_eq(txt, "0, 0x00000000004004d3, 0x000000000040059e, C, D, NT\n"
                          "0, 0x00000000004004d9, 0x000000000040059e, C, D, NT\n"
                          "0, 0x000000000040058f, 0x0000000000400594, U, D, T\n"
                          "0, 0x0000000000400599, 0x00000000004003b8, U, D, T\n"
                          "0, 0x000000000040059f, 0x00007f688ca5ce5d, U, I, T\n"
                          "0, 0x00000000004004ec, 0x00000000004004f1, C, D, T\n"
                          "0, 0x0000000000400511, 0x00000000004004c4, U, I, T\n"
                          "1, 0x0000000000500000, 0x0000000000500100, U, I, T\n");
    char *st = slurp_text(in_tmp("mcf.Statistics"));
    char want[1024];
    snprintf(want, sizeof want,
             "mcfTrace: Traced 11 instructions\n"
             "mcfTrace: Skipped 3000000 instructions\n"
             "mcfTrace: Recorded 8 control transfer instructions.\n"
             "\t2 ( %%25.00 ) Unconditional Direct\n"
             "\t1 ( %%12.50 ) Conditional Direct Taken\n"
             "\t2 ( %%25.00 ) Conditional Direct Not Taken\n"
             "\t3 ( %%37.50 ) Unconditional Indirect\n"
             "tm: 8 descriptors, %zu bytes (ASCII) in %s\n"
             "tm: 1 exceptions (mcfTrace has no exception descriptor)\n",
             strlen(txt), in_tmp("mcf.txt"));
    cr_assert_str_eq(st, want);
    free(txt);
    free(st);
    rm_tmp();
}

Test(recmodes, mcftrace_binary)
{
    mkdir_tmp();
    char name[128];
    snprintf(name, sizeof name, "%s/mcf", dir);
    tm_recmode_cfg c = {.mode = "mcftrace", .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    cr_assert_str_eq(tm_recmode_path(m), in_tmp("mcf.bin"));
    tmc_record rs[32];
    int n = thesis_branches(rs);
    feed(m, rs, n);
    close_mode(m, NULL);
    size_t len;
    uint8_t *b = slurp(in_tmp("mcf.bin"), &len);
    cr_assert_eq(len, 8 * 18);
    /* The first: thread 0, 0x4004d3, 0x40059e, conditional not taken (3). */
    static const uint8_t d0[18] = {0x00, 0xd3, 0x04, 0x40, 0, 0, 0, 0, 0, 0x9e, 0x05, 0x40, 0, 0, 0, 0, 0, 0x03};
    cr_assert_arr_eq(b, d0, 18);
    /* The ret: unconditional indirect (0), a 6-byte target. */
    static const uint8_t d4[18] = {0x00, 0x9f, 0x05, 0x40, 0, 0, 0, 0, 0, 0x5d, 0xce, 0xa5, 0x8c, 0x68, 0x7f, 0, 0, 0x00};
    cr_assert_arr_eq(b + 4 * 18, d4, 18);
    /* Type&Outcome of all eight; thread ids. */
    static const uint8_t to[8] = {3, 3, 1, 1, 0, 2, 0, 0};
    for (int k = 0; k < 8; k++) {
        cr_assert_eq(b[k * 18 + 17], to[k], "descriptor %d", k);
        cr_assert_eq(b[k * 18], k == 7, "descriptor %d", k);
    }
    free(b);
    rm_tmp();
}

Test(recmodes, binary_thread_id_range)
{
    mkdir_tmp();
    char name[128];
    snprintf(name, sizeof name, "%s/b", dir);
    tm_recmode_cfg c = {.mode = "mcftrace", .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    tmc_record r = rec_br(256, 1, TMC_JUMP, 0x1000, 2, 0x2000, 1);
    cr_assert_eq(tm_recmode_record(m, &r), TM_ERR_ARG);
    char want[256];
    snprintf(want, sizeof want,
             "%s: thread id 256 does not fit the 1-byte Thread ID of a binary descriptor (0..255); use -a",
             in_tmp("b.bin"));
    cr_assert_str_eq(tm_recmode_error(m), want);
    r.tid = 0;
    cr_assert_eq(tm_recmode_record(m, &r), TM_ERR_ARG); /* sticky */
    char err[512];
    cr_assert_eq(tm_recmode_close(m, NULL, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, want);
    rm_tmp();
}

/* ------------------------------------------------------------ mlsTrace */

/* Fig. 4.14 lines 21-22, Fig. 4.18 lines 4 and 7, a 10-byte x87 and a
 * 32-byte AVX operand (Figs. 4.20-4.21), a 64-byte one, a system write, and
 * a 3-byte (other) load. */
static int mls_records(tmc_record *rs)
{
    int n = 0;
    rs[n++] = rec_start(0, 1, 0x3f83201150);
    rs[n++] = rec_run(0, 2, 0x3f83201150, 3, 12);
    rs[n++] = rec_mem(0, 2, 0, 0x3f83201156, 0x3f8341fb80, 8, 0x3f83201130);
    rs[n++] = rec_run(0, 3, 0x3f8320115c, 1, 4);
    rs[n++] = rec_mem(0, 3, 1, 0x3f8320115d, 0x3f8341fd48, 8, 0x00059d5cfe8a2ad6);
    rs[n++] = rec_run(0, 4, 0x3f83201160, 1, 4);
    rs[n++] = rec_mem(0, 4, 1, 0x40056a, 0x7fff19df619c, 4, 0);
    rs[n++] = rec_run(0, 5, 0x3f83201164, 1, 4);
    rs[n++] = rec_mem(0, 5, 1, 0x400587, 0x7fff19df6181, 1, 0x01);
    rs[n++] = rec_run(0, 6, 0x3f83201168, 1, 4);
    rs[n++] = rec_mem(0, 6, 1, 0x40074d, 0x7fff1a03b990, 10, 0x8000000000000000); /* 1.0L: hi bytes below */
    rs[n - 1].value[8] = 0xff;
    rs[n - 1].value[9] = 0x3f;
    rs[n++] = rec_run(0, 7, 0x3f8320116c, 1, 4);
    rs[n++] = rec_mem(0, 7, 0, 0x4009b3, 0x7fff30833de0, 32, 0x0706050403020100);
    rs[n++] = rec_mem(1, 7, 1, 0, 0x600000, 4, 0xdeadbeef); /* a system write (read(2)): never traced */
    rs[n++] = rec_run(0, 8, 0x3f83201170, 1, 4);
    rs[n++] = rec_mem(0, 8, 0, 0x3f83201170, 0x10000, 64, 0x1122334455667788);
    rs[n++] = rec_run(0, 9, 0x3f83201174, 1, 4);
    rs[n++] = rec_mem(0, 9, 0, 0x3f83201174, 0x10040, 3, 0xabcdef);
    rs[n++] = rec_exit(0, 10);
    return n;
}

Test(recmodes, mlstrace_ascii_store)
{
    mkdir_tmp();
    char name[128];
    snprintf(name, sizeof name, "%s/mls", dir);
    tm_recmode_cfg c = {.mode = "mlstrace", .ascii = 1, .store = 1, .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    tmc_record rs[32];
    int n = mls_records(rs);
    feed(m, rs, n);
    close_mode(m, NULL);
    char *txt = slurp_text(in_tmp("mls.txt"));
    cr_assert_str_eq(
        txt,
        "0, L, 0x0000003f83201156, 0x0000003f8341fb80, 8, 0x0000003f83201130\n"
        "0, S, 0x0000003f8320115d, 0x0000003f8341fd48, 8, 0x00059d5cfe8a2ad6\n"
        "0, S, 0x000000000040056a, 0x00007fff19df619c, 4, 0x00000000\n"
        "0, S, 0x0000000000400587, 0x00007fff19df6181, 1, 0x01\n"
        "0, S, 0x000000000040074d, 0x00007fff1a03b990, 10, 0x3fff8000000000000000\n"
        "0, L, 0x00000000004009b3, 0x00007fff30833de0, 32, "
        "0xbfbebdbcbbbab9b8b7b6b5b4b3b2b1b0afaeadacabaaa9a8" "0706050403020100\n"
        "0, L, 0x0000003f83201170, 0x0000000000010000, 64, "
        "0xdfdedddcdbdad9d8d7d6d5d4d3d2d1d0cfcecdcccbcac9c8c7c6c5c4c3c2c1c0"
        "bfbebdbcbbbab9b8b7b6b5b4b3b2b1b0afaeadacabaaa9a81122334455667788\n"
        "0, L, 0x0000003f83201174, 0x0000000000010040, 3, 0xabcdef\n");
    char *st = slurp_text(in_tmp("mls.Statistics"));
    double ms = -1;
    char unit[4] = "";
    cr_assert_eq(sscanf(st, "Instrumentation Time: %lf %3[ms]\n", &ms, unit), 2, "%s", st);
    cr_assert_str_eq(unit, "ms");
    cr_assert_geq(ms, 0.0);
    char want[2048];
    snprintf(want, sizeof want,
             "Number of Threads: 1\n"
             "Traced 10 instructions\n"
             "Skipped 0 instructions\n"
             "Total Load Operands: 4\n"
             "\t0 ( %%0.00 ) Byte Operands\n"
             "\t0 ( %%0.00 ) Word Operands\n"
             "\t0 ( %%0.00 ) Doubleword Operands\n"
             "\t1 ( %%25.00 ) Quadword Operands\n"
             "\t0 ( %%0.00 ) Extended Precision Operands\n"
             "\t0 ( %%0.00 ) Octaword Operands\n"
             "\t1 ( %%25.00 ) Hexaword Operands\n"
             "\t2 ( %%50.00 ) Operands of other size\n"
             "Total Store Operands: 4\n"
             "\t1 ( %%25.00 ) Byte Operands\n"
             "\t0 ( %%0.00 ) Word Operands\n"
             "\t1 ( %%25.00 ) Doubleword Operands\n"
             "\t1 ( %%25.00 ) Quadword Operands\n"
             "\t1 ( %%25.00 ) Extended Precision Operands\n"
             "\t0 ( %%0.00 ) Octaword Operands\n"
             "\t0 ( %%0.00 ) Hexaword Operands\n"
             "\t0 ( %%0.00 ) Operands of other size\n"
             "tm: 8 descriptors, %zu bytes (ASCII) in %s\n"
             "tm: 1 writes by the system (no instruction; not traced)\n"
             "tm: of the other size, 1 loads and 0 stores of 64 bytes\n",
             strlen(txt), in_tmp("mls.txt"));
    cr_assert_str_eq(after_line1(st), want);
    free(txt);
    free(st);
    rm_tmp();
}

Test(recmodes, mlstrace_binary)
{
    mkdir_tmp();
    char name[128];
    tmc_record rs[32];
    int n = mls_records(rs);
    size_t len;
    /* Loads only: no Load/Store byte. */
    snprintf(name, sizeof name, "%s/l", dir);
    tm_recmode_cfg c = {.mode = "mlstrace", .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    feed(m, rs, n);
    close_mode(m, NULL);
    uint8_t *b = slurp(in_tmp("l.bin"), &len);
    cr_assert_eq(len, (size_t)(4 * 18 + 8 + 32 + 64 + 3));
    static const uint8_t d0[26] = {0x00,                                           /* thread */
                                   0x56, 0x11, 0x20, 0x83, 0x3f, 0, 0, 0,          /* instruction */
                                   0x80, 0xfb, 0x41, 0x83, 0x3f, 0, 0, 0,          /* operand */
                                   8,                                              /* size */
                                   0x00, 0x00, 0x00, 0x3f, 0x83, 0x20, 0x11, 0x30}; /* value, big-endian */
    cr_assert_arr_eq(b, d0, sizeof d0);
    /* The last: a 3-byte load at 0x10040. */
    static const uint8_t dl[21] = {0x00, 0x74, 0x11, 0x20, 0x83, 0x3f, 0, 0, 0, 0x40, 0x00, 0x01, 0, 0, 0, 0, 0,
                                   3, 0xab, 0xcd, 0xef};
    cr_assert_arr_eq(b + len - 21, dl, sizeof dl);
    free(b);
    /* With --store: a Load/Store byte (0 load, 1 store) after the thread. */
    snprintf(name, sizeof name, "%s/s", dir);
    c = (tm_recmode_cfg){.mode = "mlstrace", .store = 1, .name = name};
    m = open_mode(&c, NULL);
    feed(m, rs, n);
    close_mode(m, NULL);
    b = slurp(in_tmp("s.bin"), &len);
    cr_assert_eq(len, (size_t)(8 * 19 + 8 + 8 + 4 + 1 + 10 + 32 + 64 + 3));
    cr_assert_eq(b[0], 0);
    cr_assert_eq(b[1], 0); /* load */
    cr_assert_arr_eq(b + 2, d0 + 1, sizeof d0 - 1);
    static const uint8_t d1[27] = {0x00, 0x01, 0x5d, 0x11, 0x20, 0x83, 0x3f, 0, 0, 0, 0x48, 0xfd, 0x41, 0x83, 0x3f,
                                   0,    0,    0,    8,    0x00, 0x05, 0x9d, 0x5c, 0xfe, 0x8a, 0x2a, 0xd6};
    cr_assert_arr_eq(b + 27, d1, sizeof d1);
    /* The 10-byte store: value 3f ff 80 00 .. 00. */
    size_t off = 27 + 27 + 23 + 20;
    static const uint8_t d4[29] = {0x00, 0x01, 0x4d, 0x07, 0x40, 0, 0, 0, 0, 0, 0x90, 0xb9, 0x03, 0x1a, 0xff,
                                   0x7f, 0,    0,    10,   0x3f, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0};
    cr_assert_arr_eq(b + off, d4, sizeof d4);
    free(b);
    rm_tmp();
}

/* ------------------------------------------------------------ mcfTRaptor */

static tm_msg msg_sync(uint32_t t, uint64_t addr)
{
    tm_msg m = {0};
    m.kind = TM_MSG_SYNC; m.ti = t; m.addr = addr; m.reason = TM_SYNC_START;
    return m;
}

static tm_msg msg_branch(uint32_t t, uint64_t cnt, int tbit, int64_t diff)
{
    tm_msg m = {0};
    m.kind = TM_MSG_BRANCH; m.ti = t; m.cnt = cnt; m.t = (uint8_t)tbit; m.diff_ta = diff;
    return m;
}

static tm_msg msg_exc(uint32_t t, uint64_t icnt, int64_t diff)
{
    tm_msg m = {0};
    m.kind = TM_MSG_EXC; m.ti = t; m.icnt = icnt; m.diff_ta = diff;
    return m;
}

static tm_msg msg_data(uint32_t t, uint64_t fah, unsigned size, uint64_t value)
{
    tm_msg m = {0};
    m.kind = TM_MSG_DATA; m.ti = t; m.fah = fah; m.size = (uint8_t)size;
    for (unsigned k = 0; k < size; k++)
        m.value[k] = k < 8 ? (uint8_t)(value >> (8 * k)) : (uint8_t)(0xa0 + k);
    return m;
}

/* Fig. 4.22's three examples and Fig. 4.33's RAS misprediction, as the
 * model offers them: targets as differences from the thread's previous
 * target (PTA), which SYNC sets. */
static void traptor_msgs(tm_recmode *m)
{
    tm_msg ms[] = {
        msg_sync(0, 0x7f428fe30000),
        msg_sync(1, 0x3f83e00000),
        msg_branch(0, 1, 0, 0),                               /* 0, 1 */
        msg_branch(1, 1, 1, 0x7780),                          /* 1, 1, T, 0x0000003f83e07780 */
        msg_exc(0, 78, (int64_t)(0x400500 - 0x7f428fe30000)), /* 0, 0, 78, 0x400500 */
        msg_branch(0, 8, 1, (int64_t)(0x7fd2349a7cdd - 0x400500)), /* 0, 8, T, 0x00007fd2349a7cdd */
        msg_branch(1, 3, 1, -0x80),                           /* 1, 3, T, 0x0000003f83e07700 */
    };
    for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
        tm_recmode_hook(m, k, ms[k].ti, &ms[k], 10, 1);
    /* Dropped messages give no descriptor. */
    tm_msg d = msg_branch(0, 2, 0, 0);
    tm_recmode_hook(m, 99, 0, &d, 10, 0);
    /* END, and DATA in mcftraptor mode, give none either. */
    tm_msg e = {0};
    e.kind = TM_MSG_END; e.ti = 1;
    tm_recmode_hook(m, 100, 1, &e, 10, 1);
    tm_msg da = msg_data(0, 1, 4, 5);
    tm_recmode_hook(m, 101, 0, &da, 10, 1);
}

Test(recmodes, mcftraptor_hook_ascii)
{
    mkdir_tmp();
    tm_model_cfg mc;
    model_cfg(&mc, 2, 0);
    char name[128];
    snprintf(name, sizeof name, "%s/tr", dir);
    tm_recmode_cfg c = {.mode = "mcftraptor", .ascii = 1, .name = name};
    tm_recmode *m = open_mode(&c, &mc);
    traptor_msgs(m);
    close_mode(m, NULL);
    char *txt = slurp_text(in_tmp("tr.txt"));
    cr_assert_str_eq(txt, "0, 1\n"
                          "1, 1, T, 0x0000003f83e07780\n"
                          "0, 0, 78, 0x0000000000400500\n"
                          "0, 8, T, 0x00007fd2349a7cdd\n"
                          "1, 3, T, 0x0000003f83e07700\n");
    char *st = slurp_text(in_tmp("tr.Statistics"));
    char want[1024];
    snprintf(want, sizeof want,
             "mcfTRaptor: Skipped 0 instructions\n"
             "mcfTRaptor: Recorded 0 direct conditional branches, indirect unconditional branches, and exceptions\n"
             "0 conditional direct branches\n"
             "\t0 ( %%0.00 ) outcomes predicted\n"
             "\t0 ( %%0.00 ) outcomes mispredicted\n"
             "0 unconditional indirect branches\n"
             "\t0 ( %%0.00 ) targets predicted\n"
             "\t0 ( %%0.00 ) targets mispredicted\n"
             "0 exceptions\n"
             "tm: 5 descriptors, %zu bytes (ASCII) in %s\n"
             "tm: descriptors: 1 mispredicted outcomes, 3 mispredicted targets, 1 exceptions\n"
             "tm: 1 messages dropped by the trace buffer (0 DATA), 0 overflow resynchronizations: their "
             "descriptors are missing (enlarge --buffer or --port)\n",
             strlen(txt), in_tmp("tr.txt"));
    cr_assert_eq(strncmp(st, "mcfTRaptor: Instrumentation Time ", 33), 0);
    cr_assert_str_eq(after_line1(st), want);
    free(txt);
    free(st);
    rm_tmp();
}

Test(recmodes, mcftraptor_hook_binary)
{
    mkdir_tmp();
    tm_model_cfg mc;
    model_cfg(&mc, 2, 0);
    char name[128];
    snprintf(name, sizeof name, "%s/tr", dir);
    tm_recmode_cfg c = {.mode = "mcftraptor", .name = name};
    tm_recmode *m = open_mode(&c, &mc);
    traptor_msgs(m);
    close_mode(m, NULL);
    size_t len;
    uint8_t *b = slurp(in_tmp("tr.bin"), &len);
    static const uint8_t want[] = {
        /* outcome: thread, bCnt (4), Type 0 */
        0x00, 0x01, 0, 0, 0, 0x00,
        /* target: thread, bCnt (4), Taken 1, target (8), Type 1 */
        0x01, 0x01, 0, 0, 0, 0x01, 0x80, 0x77, 0xe0, 0x83, 0x3f, 0, 0, 0, 0x01,
        /* exception: thread, 0 (4), iCnt (4), target (8), Type 2 */
        0x00, 0, 0, 0, 0, 78, 0, 0, 0, 0x00, 0x05, 0x40, 0, 0, 0, 0, 0, 0x02,
        0x00, 0x08, 0, 0, 0, 0x01, 0xdd, 0x7c, 0x9a, 0x34, 0xd2, 0x7f, 0, 0, 0x01,
        0x01, 0x03, 0, 0, 0, 0x01, 0x00, 0x77, 0xe0, 0x83, 0x3f, 0, 0, 0, 0x01,
    };
    cr_assert_eq(len, sizeof want);
    cr_assert_arr_eq(b, want, sizeof want);
    free(b);
    rm_tmp();
}

Test(recmodes, binary_count_range)
{
    mkdir_tmp();
    tm_model_cfg mc;
    model_cfg(&mc, 2, 0);
    char name[128];
    snprintf(name, sizeof name, "%s/tr", dir);
    tm_recmode_cfg c = {.mode = "mcftraptor", .name = name};
    tm_recmode *m = open_mode(&c, &mc);
    tm_msg s = msg_sync(0, 0x1000), b = msg_branch(0, UINT64_C(1) << 32, 0, 0);
    tm_recmode_hook(m, 1, 0, &s, 10, 1);
    tm_recmode_hook(m, 2, 0, &b, 10, 1);
    tmc_record r = rec_run(0, 3, 0x1000, 1, 4);
    cr_assert_eq(tm_recmode_record(m, &r), TM_ERR_ARG);
    char want[256], err[512];
    snprintf(want, sizeof want, "%s: bCnt 4294967296 does not fit the 4-byte field of a binary descriptor; use -a",
             in_tmp("tr.bin"));
    cr_assert_eq(tm_recmode_close(m, NULL, err, sizeof err), TM_ERR_ARG);
    cr_assert_str_eq(err, want);
    /* ASCII has no such limit. */
    c.ascii = 1;
    m = open_mode(&c, &mc);
    tm_recmode_hook(m, 1, 0, &s, 10, 1);
    tm_recmode_hook(m, 2, 0, &b, 10, 1);
    close_mode(m, NULL);
    char *txt = slurp_text(in_tmp("tr.txt"));
    cr_assert_str_eq(txt, "0, 4294967296\n");
    free(txt);
    rm_tmp();
}

/* The model itself: a stream whose messages are known (spec §3.3-3.4). */
typedef struct feeder {
    tm_model *model;
    tm_recmode *m;
} feeder;

static void both(feeder *f, const tmc_record *r)
{
    cr_assert_eq(tm_recmode_record(f->m, r), 0, "%s", tm_recmode_error(f->m));
    cr_assert_eq(tm_model_put(f->model, r), TM_OK, "%s", tm_model_error(f->model));
}

Test(recmodes, mcftraptor_model)
{
    mkdir_tmp();
    tm_model_cfg mc;
    model_cfg(&mc, 2, 0);
    feeder f;
    cr_assert_eq(tm_model_new(&mc, &f.model, NULL, 0), TM_OK);
    char name[128];
    snprintf(name, sizeof name, "%s/trm", dir);
    tm_recmode_cfg c = {.mode = "mcftraptor", .ascii = 1, .name = name};
    f.m = open_mode(&c, &mc);
    tm_model_set_hook(f.model, tm_recmode_hook, f.m);
    tmc_record rs[] = {
        rec_start(0, 1, 0x1000),
        rec_run(0, 2, 0x1000, 2, 8),
        rec_br(0, 2, TMC_COND, 0x1008, 2, 0x1000, 1),  /* gshare weakly not taken: outcome mispredicted, bCnt 1 */
        rec_br(0, 3, TMC_ICALL, 0x1000, 3, 0x3000, 1), /* empty iBTB: target mispredicted, bCnt 1 */
        rec_br(0, 4, TMC_RET, 0x3000, 1, 0x1003, 1),   /* the RAS predicts 0x1003 */
        rec_br(0, 5, TMC_RET, 0x1003, 1, 0x5000, 1),   /* empty RAS: mispredicted, bCnt 2 */
        rec_run(0, 6, 0x5000, 1, 4),
        rec_exc(0, 6, 0x5004, 0x7000),                 /* iCnt 1 */
        rec_run(0, 7, 0x7000, 3, 12),
        rec_exit(0, 8),
    };
    for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++)
        both(&f, &rs[k]);
    cr_assert_eq(tm_model_finish(f.model), TM_OK);
    close_mode(f.m, f.model);
    char *txt = slurp_text(in_tmp("trm.txt"));
    cr_assert_str_eq(txt, "0, 1\n"
                          "0, 1, T, 0x0000000000003000\n"
                          "0, 2, T, 0x0000000000005000\n"
                          "0, 0, 1, 0x0000000000007000\n");
    char *st = slurp_text(in_tmp("trm.Statistics"));
    char want[1024];
    snprintf(want, sizeof want,
             "mcfTRaptor: Skipped 0 instructions\n"
             "mcfTRaptor: Recorded 5 direct conditional branches, indirect unconditional branches, and exceptions\n"
             "1 conditional direct branches\n"
             "\t0 ( %%0.00 ) outcomes predicted\n"
             "\t1 ( %%100.00 ) outcomes mispredicted\n"
             "3 unconditional indirect branches\n"
             "\t1 ( %%33.33 ) targets predicted\n"
             "\t2 ( %%66.67 ) targets mispredicted\n"
             "1 exceptions\n"
             "tm: 4 descriptors, %zu bytes (ASCII) in %s\n"
             "tm: descriptors: 1 mispredicted outcomes, 2 mispredicted targets, 1 exceptions\n"
             "tm: 0 messages dropped by the trace buffer (0 DATA), 0 overflow resynchronizations: none missing\n",
             strlen(txt), in_tmp("trm.txt"));
    cr_assert_str_eq(after_line1(st), want);
    free(txt);
    free(st);
    tm_model_free(f.model);
    rm_tmp();
}

/* ------------------------------------------------------------ mlvCFiat */

Test(recmodes, mlvcfiat_hook)
{
    mkdir_tmp();
    tm_model_cfg mc;
    model_cfg(&mc, 2, 1);
    char name[128];
    tm_msg ms[] = {
        msg_sync(0, 0x1000),
        msg_data(0, 2, 4, 4),                        /* Fig. 4.36: 0, 2, 0x00000004 */
        msg_branch(0, 1, 0, 0),                      /* control messages: no descriptor */
        msg_data(1, 0, 8, 0x0000003f83201130),       /* Fig. 4.38 line 39 */
        msg_data(1, 7, 16, 0x0807060504030201),
    };
    for (int ascii = 0; ascii < 2; ascii++) {
        snprintf(name, sizeof name, "%s/cf%d", dir, ascii);
        tm_recmode_cfg c = {.mode = "mlvcfiat", .ascii = ascii, .name = name};
        tm_recmode *m = open_mode(&c, &mc);
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
            tm_recmode_hook(m, k, ms[k].ti, &ms[k], 10, 1);
        tm_msg d = msg_data(0, 1, 2, 0xffff);
        tm_recmode_hook(m, 9, 0, &d, 10, 0); /* dropped */
        close_mode(m, NULL);
    }
    char *txt = slurp_text(in_tmp("cf1.txt"));
    cr_assert_str_eq(txt, "0, 2, 0x00000004\n"
                          "1, 0, 0x0000003f83201130\n"
                          "1, 7, 0xafaeadacabaaa9a80807060504030201\n");
    size_t len;
    uint8_t *b = slurp(in_tmp("cf0.bin"), &len);
    static const uint8_t want[] = {
        /* thread, fahCnt (4), size, value big-endian */
        0x00, 0x02, 0, 0, 0, 4, 0x00, 0x00, 0x00, 0x04,
        0x01, 0x00, 0, 0, 0, 8, 0x00, 0x00, 0x00, 0x3f, 0x83, 0x20, 0x11, 0x30,
        0x01, 0x07, 0, 0, 0, 16, 0xaf, 0xae, 0xad, 0xac, 0xab, 0xaa, 0xa9, 0xa8,
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
    };
    cr_assert_eq(len, sizeof want);
    cr_assert_arr_eq(b, want, sizeof want);
    char *st = slurp_text(in_tmp("cf0.Statistics"));
    cr_assert(strstr(st, "tm: 1 messages dropped by the trace buffer (1 DATA), 0 overflow resynchronizations: "
                         "their descriptors are missing (enlarge --buffer or --port)\n"), "%s", st);
    free(txt);
    free(b);
    free(st);
    rm_tmp();
}

Test(recmodes, mlvcfiat_model)
{
    mkdir_tmp();
    tm_model_cfg mc;
    model_cfg(&mc, 1, 1); /* the "tool" cache: 32 KB, 4-way, 32-byte lines, g 4 */
    feeder f;
    cr_assert_eq(tm_model_new(&mc, &f.model, NULL, 0), TM_OK);
    char name[128];
    snprintf(name, sizeof name, "%s/cfm", dir);
    tm_recmode_cfg c = {.mode = "mlvcfiat", .ascii = 1, .name = name};
    f.m = open_mode(&c, &mc);
    tm_recmode_set_skipped(f.m, 42);
    tm_model_set_hook(f.model, tm_recmode_hook, f.m);
    tmc_record rs[] = {
        rec_start(0, 1, 0x1000),
        rec_run(0, 2, 0x1000, 1, 4), rec_mem(0, 2, 0, 0x1000, 0x8000, 4, 4),      /* miss: 0, 0, 0x00000004 */
        rec_run(0, 3, 0x1004, 1, 4), rec_mem(0, 3, 0, 0x1004, 0x8000, 4, 4),      /* FA hit */
        rec_run(0, 4, 0x1008, 1, 4), rec_mem(0, 4, 0, 0x1008, 0x8000, 4, 4),      /* FA hit */
        rec_run(0, 5, 0x100c, 1, 4), rec_mem(0, 5, 0, 0x100c, 0x8004, 4, 0x1234), /* FA miss: 0, 2, 0x00001234 */
        rec_run(0, 6, 0x1010, 1, 4), rec_mem(0, 6, 1, 0x1010, 0x8008, 8, 9),      /* store hit */
        rec_run(0, 7, 0x1014, 1, 4), rec_mem(0, 7, 0, 0x1014, 0x8008, 8, 9),      /* FA hit (the store set the flags) */
        rec_run(0, 8, 0x1018, 1, 4), rec_mem(0, 8, 0, 0x1018, 0x9001, 1, 0x7f),   /* miss (byte) */
        rec_exit(0, 9),
    };
    for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++)
        both(&f, &rs[k]);
    cr_assert_eq(tm_model_finish(f.model), TM_OK);
    close_mode(f.m, f.model);
    char *txt = slurp_text(in_tmp("cfm.txt"));
    cr_assert_str_eq(txt, "0, 0, 0x00000004\n"
                          "0, 2, 0x00001234\n"
                          "0, 1, 0x7f\n");
    char *st = slurp_text(in_tmp("cfm.Statistics"));
    double ms = -1;
    cr_assert_eq(sscanf(st, "Instrumentation Time (ms): %lf\n", &ms), 1);
    char want[2048];
    snprintf(want, sizeof want,
             "Instructions Traced: 7\n"
             "Skipped Instructions: 42\n"
             "\n"
             "-- Cache References Hits: Misses (Hit Rate)\n"
             "\tTotal 5:2(71%%)\n"
             "\tByte Operands 0:1(0%%)\n"
             "\tWord Operands 0:0(0%%)\n"
             "\tDoubleword Operands 3:1(75%%)\n"
             "\tQuadword Operands 2:0(100%%)\n"
             "\tExtended Precision Operands 0:0(0%%)\n"
             "\tOctaword Operands 0:0(0%%)\n"
             "\tHexaword Operands 0:0(0%%)\n"
             "\tOther Sized Operands 0:0(0%%)\n"
             "-- First Access Flag References Hits: Misses (Hit Rate)\n"
             "\tTotal 3:1(75%%)\n"
             "\tByte Operands 0:0(0%%)\n"
             "\tWord Operands 0:0(0%%)\n"
             "\tDoubleword Operands 2:1(66%%)\n"
             "\tQuadword Operands 1:0(100%%)\n"
             "\tExtended Precision Operands 0:0(0%%)\n"
             "\tOctaword Operands 0:0(0%%)\n"
             "\tHexaword Operands 0:0(0%%)\n"
             "\tOther Sized Operands 0:0(0%%)\n"
             "tm: 3 descriptors, %zu bytes (ASCII) in %s\n"
             "tm: 0 messages dropped by the trace buffer (0 DATA), 0 overflow resynchronizations: none missing\n",
             strlen(txt), in_tmp("cfm.txt"));
    cr_assert_str_eq(after_line1(st), want);
    free(txt);
    free(st);
    tm_model_free(f.model);
    rm_tmp();
}

/* ------------------------------------------------------------ -f, -c, names */

Test(recmodes, size_limit)
{
    mkdir_tmp();
    char name[128];
    snprintf(name, sizeof name, "%s/lim", dir);
    /* 40 bytes hold two 18-byte descriptors; the third stops the output. */
    tm_recmode_cfg c = {.mode = "mcftrace", .name = name, .size_limit = 40};
    tm_recmode *m = open_mode(&c, NULL);
    tmc_record rs[32];
    int n = thesis_branches(rs);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(tm_recmode_record(m, &rs[i]), 0);
        cr_assert_eq(tm_recmode_full(m), i >= 4, "record %d", i); /* rs[4] is the third branch */
    }
    close_mode(m, NULL);
    size_t len;
    uint8_t *b = slurp(in_tmp("lim.bin"), &len);
    cr_assert_eq(len, 36);
    free(b);
    char *st = slurp_text(in_tmp("lim.Statistics"));
    char want[1024];
    snprintf(want, sizeof want,
             "mcfTrace: Traced 3 instructions\n"
             "mcfTrace: Skipped 0 instructions\n"
             "mcfTrace: Recorded 2 control transfer instructions.\n"
             "\t0 ( %%0.00 ) Unconditional Direct\n"
             "\t0 ( %%0.00 ) Conditional Direct Taken\n"
             "\t2 ( %%100.00 ) Conditional Direct Not Taken\n"
             "\t0 ( %%0.00 ) Unconditional Indirect\n"
             "tm: 2 descriptors, 36 bytes (binary) in %s\n"
             "tm: size limit 40 bytes reached: the descriptors and statistics stop there\n"
             "tm: 0 exceptions (mcfTrace has no exception descriptor)\n",
             in_tmp("lim.bin"));
    cr_assert_str_eq(st, want);
    free(st);
    /* Exactly at the limit: full only when a descriptor does not fit. */
    c.size_limit = 36;
    m = open_mode(&c, NULL);
    feed(m, rs, 4);
    cr_assert_eq(tm_recmode_full(m), 0);
    feed(m, rs + 4, 1);
    cr_assert_eq(tm_recmode_full(m), 1);
    close_mode(m, NULL);
    rm_tmp();
}

/* The same descriptors through each compressor, decompressed again. */
static void round_trip(const char *comp, const char *suffix, const char *decomp)
{
    cr_assert(have_prog(comp), "%s is not installed (make deps installs it)", comp);
    char name[128];
    tmc_record rs[32];
    int n = mls_records(rs);
    snprintf(name, sizeof name, "%s/plain", dir);
    tm_recmode_cfg c = {.mode = "mlstrace", .store = 1, .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    for (int rep = 0; rep < 2000; rep++) /* several buffers' worth */
        feed(m, rs, n);
    close_mode(m, NULL);
    snprintf(name, sizeof name, "%s/z%s", dir, comp);
    c.name = name;
    c.compress = comp;
    m = open_mode(&c, NULL);
    char want_path[256];
    snprintf(want_path, sizeof want_path, "%s.bin%s", name, suffix);
    cr_assert_str_eq(tm_recmode_path(m), want_path);
    for (int rep = 0; rep < 2000; rep++)
        feed(m, rs, n);
    close_mode(m, NULL);
    size_t l1, l2;
    uint8_t *plain = slurp(in_tmp("plain.bin"), &l1);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s '%s'", decomp, want_path);
    uint8_t *back = run_cmd(cmd, &l2);
    cr_assert_eq(l1, l2, "%s: %zu bytes, expected %zu", comp, l2, l1);
    cr_assert_eq(memcmp(plain, back, l1), 0, "%s: the bytes differ", comp);
    /* The statistics name the compressed file. */
    snprintf(name, sizeof name, "z%s.Statistics", comp);
    char *st = slurp_text(in_tmp(name));
    char line[512];
    snprintf(line, sizeof line, "tm: %d descriptors, %zu bytes (binary, before %s) in %s\n", 2000 * 8, l1, comp,
             want_path);
    cr_assert(strstr(st, line), "%s", st);
    free(st);
    free(plain);
    free(back);
}

Test(recmodes, compressors)
{
    mkdir_tmp();
    round_trip("gzip", ".gz", "gzip -dc");
    round_trip("pigz", ".gz", "gzip -dc");
    round_trip("bzip2", ".bz2", "bzip2 -dc");
    round_trip("pbzip2", ".bz2", "bzip2 -dc");
    round_trip("zstd", ".zst", "zstd -dcq");
    rm_tmp();
}

Test(recmodes, compressor_failure)
{
    /* A "compressor" that exits at once with status 3: the descriptors
     * cannot be written, and close reports it. */
    mkdir_tmp();
    char bin[128], prog[160], name[128];
    snprintf(bin, sizeof bin, "%s/bin", dir);
    cr_assert_eq(mkdir(bin, 0700), 0);
    snprintf(prog, sizeof prog, "%s/gzip", bin);
    FILE *f = fopen(prog, "w");
    fputs("#!/bin/sh\nexit 3\n", f);
    fclose(f);
    chmod(prog, 0755);
    setenv("PATH", bin, 1);
    snprintf(name, sizeof name, "%s/bad", dir);
    tm_recmode_cfg c = {.mode = "mcftrace", .compress = "gzip", .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    tmc_record rs[32];
    int n = thesis_branches(rs), failed = 0;
    for (int rep = 0; rep < 20000 && !failed; rep++)
        for (int i = 0; i < n && !failed; i++)
            failed = tm_recmode_record(m, &rs[i]) != 0;
    char err[512] = "";
    cr_assert_eq(tm_recmode_close(m, NULL, err, sizeof err), TM_ERR_IO);
    char want[256];
    snprintf(want, sizeof want, "%s/bad.bin.gz: ", dir);
    cr_assert_eq(strncmp(err, want, strlen(want)), 0, "%s", err);
    cr_assert(strstr(err, "gzip"), "%s", err);
    unlink(prog);
    rmdir(bin);
    rm_tmp();
}

Test(recmodes, default_names)
{
    mkdir_tmp();
    cr_assert_eq(chdir(dir), 0);
    static const char *const modes[4] = {"mcftrace", "mlstrace", "mcftraptor", "mlvcfiat"};
    static const char *const tools[4] = {"mcfTrace", "mlsTrace", "mcfTRaptor", "mlvCFiat"};
    tm_model_cfg mc;
    model_cfg(&mc, 2, 1);
    for (int k = 0; k < 4; k++) {
        tm_recmode_cfg c = {.mode = modes[k], .ascii = k & 1, .compress = k == 2 ? "gzip" : NULL};
        time_t before = time(NULL);
        tm_recmode *m = open_mode(&c, &mc);
        char tool[16], ext[16] = "";
        int y, mo, d, h, mi, s, used = 0;
        const char *p = tm_recmode_path(m);
        /* <Tool>.outY_M_D_h.m.s.txt|.bin, no zero padding (Fig. 4.3). */
        cr_assert_eq(sscanf(p, "%15[A-Za-z].out%d_%d_%d_%d.%d.%d%n", tool, &y, &mo, &d, &h, &mi, &s, &used), 7, "%s",
                     p);
        snprintf(ext, sizeof ext, "%s", p + used);
        cr_assert_str_eq(tool, tools[k]);
        cr_assert_str_eq(ext, k == 2 ? ".bin.gz" : (k & 1) ? ".txt" : ".bin");
        struct tm tv;
        localtime_r(&before, &tv);
        cr_assert_eq(y, tv.tm_year + 1900);
        cr_assert(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h < 24 && mi >= 0 && mi < 60 && s >= 0 &&
                  s < 61);
        char stname[128];
        snprintf(stname, sizeof stname, "%.*s.Statistics", (int)(strlen(p) - strlen(ext)), p);
        cr_assert_str_eq(tm_recmode_stats_path(m), stname);
        char num[16];
        snprintf(num, sizeof num, "_%d.", h);
        cr_assert(strstr(p, num), "%s", p); /* the hour without padding */
        close_mode(m, NULL);
    }
    rm_tmp();
}

/* ------------------------------------------------------------ -d */

/* An x86-64 ELF image (ET_EXEC, one executable PT_LOAD from file offset 0
 * at VADDR) whose bytes at VADDR + OFF are CODE (N bytes, OFF >= 0x100),
 * the rest int3; into *LEN bytes (malloc). */
static uint8_t *make_elf(uint64_t vaddr, size_t off, const uint8_t *code, size_t n, size_t *len)
{
    size_t total = off + n;
    uint8_t *b = malloc(total);
    cr_assert(off >= 0x100 && b);
    memset(b, 0xcc, total);
    Elf64_Ehdr eh;
    memset(&eh, 0, sizeof eh);
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    Elf64_Phdr ph;
    memset(&ph, 0, sizeof ph);
    ph.p_type = PT_LOAD;
    ph.p_flags = PF_R | PF_X;
    ph.p_offset = 0;
    ph.p_vaddr = ph.p_paddr = vaddr;
    ph.p_filesz = ph.p_memsz = total;
    ph.p_align = 0x1000;
    memcpy(b, &eh, sizeof eh);
    memcpy(b + sizeof eh, &ph, sizeof ph);
    memcpy(b + off, code, n);
    *len = total;
    return b;
}

/* The image as the file NAME in the test folder; its path. */
static const char *write_elf(const char *name, const uint8_t *b, size_t len)
{
    const char *p = in_tmp(name);
    FILE *f = fopen(p, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(b, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    return p;
}

static void add_module(tm_recmode *m, uint64_t base, const char *path, const uint8_t *bytes, size_t len)
{
    tm_cap_module mod = {base, path, NULL, 0, bytes, len};
    cr_assert_eq(tm_recmode_module(m, &mod), 0, "%s", tm_recmode_error(m));
}

/* The branches of thesis_branches() at 0x4003b8..0x4005a0: BranchEnumeration
 * and BranchTest (Figs. 4.8, 4.10, 4.12). */
static uint8_t *thesis_code(size_t *len)
{
    uint8_t code[0x200];
    memset(code, 0x90, sizeof code);
    static const struct {
        uint64_t at;
        uint8_t n, b[6];
    } ins[] = {
        {0x4004d3, 6, {0x0f, 0x87, 0xc5, 0x00, 0x00, 0x00}}, /* jnbe 0x40059e */
        {0x4004d9, 6, {0x0f, 0x83, 0xbf, 0x00, 0x00, 0x00}}, /* jnb 0x40059e */
        {0x40058f, 2, {0xeb, 0x03}},                         /* jmp 0x400594 */
        {0x400599, 5, {0xe8, 0x1a, 0xfe, 0xff, 0xff}},       /* call 0x4003b8 */
        {0x40059f, 1, {0xc3}},                               /* ret */
        {0x4004ec, 2, {0x77, 0x03}},                         /* jnbe 0x4004f1 */
        {0x400511, 2, {0xff, 0xd0}},                         /* call rax */
    };
    for (size_t k = 0; k < sizeof ins / sizeof ins[0]; k++)
        memcpy(code + (ins[k].at - 0x400400), ins[k].b, ins[k].n);
    return make_elf(0x400000, 0x400, code, sizeof code, len);
}

Test(recmodes, mcftrace_disasm)
{
    mkdir_tmp();
    size_t len;
    uint8_t *img = thesis_code(&len);
    const char *path = write_elf("prog", img, len);
    char name[128];
    snprintf(name, sizeof name, "%s/mcf", dir);
    tm_recmode_cfg c = {.mode = "mcftrace", .ascii = 1, .disasm = 1, .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    add_module(m, 0x400000, path, NULL, 0);
    tmc_record rs[32];
    int n = thesis_branches(rs);
    feed(m, rs, n);
    close_mode(m, NULL);
    char *txt = slurp_text(in_tmp("mcf.txt"));
    /* Figs. 4.8, 4.10 with the disassembly; thread 1's jump is in no module */
    cr_assert_str_eq(txt, "0, 0x00000000004004d3, 0x000000000040059e, C, D, NT jnbe 0x40059e\n"
                          "0, 0x00000000004004d9, 0x000000000040059e, C, D, NT jnb 0x40059e\n"
                          "0, 0x000000000040058f, 0x0000000000400594, U, D, T jmp 0x400594\n"
                          "0, 0x0000000000400599, 0x00000000004003b8, U, D, T call 0x4003b8\n"
                          "0, 0x000000000040059f, 0x00007f688ca5ce5d, U, I, T ret\n"
                          "0, 0x00000000004004ec, 0x00000000004004f1, C, D, T jnbe 0x4004f1\n"
                          "0, 0x0000000000400511, 0x00000000004004c4, U, I, T call rax\n"
                          "1, 0x0000000000500000, 0x0000000000500100, U, I, T (unknown)\n");
    char *st = slurp_text(in_tmp("mcf.Statistics"));
    cr_assert(strstr(st, "tm: -d: 1 descriptors with the disassembly \"(unknown)\" (code in no module file tm could "
                         "read, or no record named the instruction)\n"),
              "%s", st);
    free(txt);
    free(st);
    /* Without -d no column and no -d line. */
    c.disasm = 0;
    m = open_mode(&c, NULL);
    add_module(m, 0x400000, path, NULL, 0);
    feed(m, rs, n);
    close_mode(m, NULL);
    txt = slurp_text(in_tmp("mcf.txt"));
    cr_assert(strstr(txt, "C, D, NT\n0, "), "%s", txt);
    st = slurp_text(in_tmp("mcf.Statistics"));
    cr_assert_null(strstr(st, "tm: -d:"));
    free(txt);
    free(st);
    free(img);
    rm_tmp();
}

/* Where the bytes come from: a position-independent file loaded elsewhere,
 * the vdso's bytes, a module replaced at the same place, a file that is
 * not the one that ran (another build-id), one that cannot be read. */
Test(recmodes, disasm_modules)
{
    mkdir_tmp();
    static const uint8_t a[] = {0x48, 0x8b, 0x02, 0xff, 0xd0, 0xf7, 0x75, 0xdc, 0x48, 0x8b, 0x05, 0x10, 0, 0, 0,
                                0x0f, 0x0b, 0x62};
    static const uint8_t b[] = {0x74, 0x05, 0xc3, 0xc3, 0x90, 0xc3};
    size_t la, lb;
    uint8_t *ia = make_elf(0, 0x100, a, sizeof a, &la);   /* file addresses from 0, like a PIE */
    uint8_t *ib = make_elf(0, 0x100, b, sizeof b, &lb);
    const char *pa = write_elf("a.so", ia, la);
    char pa_copy[256];
    snprintf(pa_copy, sizeof pa_copy, "%s", pa);
    char name[128];
    snprintf(name, sizeof name, "%s/d", dir);
    tm_recmode_cfg c = {.mode = "mcftrace", .ascii = 1, .disasm = 1, .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    add_module(m, 0x7f0000000000, pa_copy, NULL, 0);  /* a.so at 0x7f0000000000 */
    add_module(m, 0x7fff0000, "[vdso]", ib, lb);      /* b as the vdso's bytes */
    add_module(m, 0x600000, in_tmp("missing.so"), NULL, 0);
    uint8_t id[3] = {1, 2, 3};
    tm_cap_module other = {0x500000, pa_copy, id, 3, NULL, 0}; /* a.so has no build-id */
    cr_assert_eq(tm_recmode_module(m, &other), 0);
    cr_assert_eq(tm_recmode_module(m, NULL), 0);
    cr_assert_eq(tm_recmode_module(NULL, &other), 0);
    uint64_t A = 0x7f0000000100, B = 0x7fff0100;
    tmc_record rs[] = {
        rec_br(0, 1, TMC_IJUMP, A, 3, 0x1, 1),       /* mov rax, qword ptr [rdx] (any bytes: the record's pc) */
        rec_br(0, 2, TMC_ICALL, A + 3, 2, 0x1, 1),   /* call rax */
        rec_br(0, 3, TMC_JUMP, A + 5, 3, 0x1, 1),    /* div dword ptr [rbp-0x24] */
        rec_br(0, 4, TMC_JUMP, A + 8, 7, 0x1, 1),    /* mov rax, qword ptr [rip+0x10] */
        rec_br(0, 5, TMC_JUMP, A + 15, 2, 0x1, 1),   /* ud2 */
        rec_br(0, 6, TMC_JUMP, A + 17, 1, 0x1, 1),   /* 0x62 at the segment's end: no instruction */
        rec_br(0, 7, TMC_COND, B, 2, B + 7, 1),      /* jz (the vdso) */
        rec_br(0, 8, TMC_RET, B + 2, 1, 0x1, 1),     /* ret */
        rec_br(0, 9, TMC_JUMP, 0x600100, 2, 0x1, 1), /* missing.so: unknown */
        rec_br(0, 10, TMC_JUMP, 0x500100, 2, 0x1, 1), /* the wrong build-id: unknown */
        rec_br(0, 11, TMC_JUMP, A - 0x200, 2, 0x1, 1), /* before a.so's segment: unknown */
        rec_br(0, 12, TMC_ICALL, A + 3, 2, 0x1, 1),  /* call rax again (cached) */
    };
    feed(m, rs, 12);
    /* b.so replaces a.so at its address: the newer module's bytes */
    const char *pb = write_elf("b.so", ib, lb);
    add_module(m, 0x7f0000000000, pb, NULL, 0);
    tmc_record again[] = {rec_br(0, 13, TMC_COND, A, 2, A + 7, 0), rec_br(0, 14, TMC_JUMP, A + 3, 1, 0x1, 1),
                          rec_br(0, 15, TMC_JUMP, A + 5, 3, 0x1, 1)};
    feed(m, again, 3);
    close_mode(m, NULL);
    char *txt = slurp_text(in_tmp("d.txt"));
    const char *want[] = {"U, I, T mov rax, qword ptr [rdx]", "U, I, T call rax", "U, D, T div dword ptr [rbp-0x24]",
                          "U, D, T mov rax, qword ptr [rip+0x10]", "U, D, T ud2", "U, D, T (bad)",
                          "C, D, T jz 0x7fff0107", "U, I, T ret", "U, D, T (unknown)", "U, D, T (unknown)",
                          "U, D, T (unknown)", "U, I, T call rax", "C, D, NT jz 0x7f0000000107",
                          "U, D, T ret", "U, D, T ret"};
    char *p = txt;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        char *nl = strchr(p, '\n');
        cr_assert_not_null(nl, "line %zu missing", k);
        *nl = 0;
        size_t lw = strlen(want[k]), lp = strlen(p);
        cr_assert(lp >= lw && !strcmp(p + lp - lw, want[k]), "line %zu: '%s', wanted '...%s'", k, p, want[k]);
        p = nl + 1;
    }
    cr_assert_str_eq(p, "");
    char *st = slurp_text(in_tmp("d.Statistics"));
    cr_assert(strstr(st, "tm: -d: 3 descriptors with the disassembly \"(unknown)\""), "%s", st);
    free(txt);
    free(st);
    free(ia);
    free(ib);
    rm_tmp();
}

Test(recmodes, mlstrace_disasm)
{
    mkdir_tmp();
    static const uint8_t code[] = {0x48, 0x8b, 0x02, 0x48, 0x89, 0x7d, 0xf8};
    size_t len;
    uint8_t *img = make_elf(0x400000, 0x100, code, sizeof code, &len);
    char name[128];
    snprintf(name, sizeof name, "%s/mls", dir);
    tm_recmode_cfg c = {.mode = "mlstrace", .ascii = 1, .store = 1, .disasm = 1, .name = name};
    tm_recmode *m = open_mode(&c, NULL);
    add_module(m, 0x400000, write_elf("p", img, len), NULL, 0);
    tmc_record rs[] = {
        rec_start(0, 1, 0x400100),
        rec_run(0, 2, 0x400100, 1, 3), rec_mem(0, 2, 0, 0x400100, 0x3f84001130, 8, 0x64320011),
        rec_run(0, 3, 0x400103, 1, 4), rec_mem(0, 3, 1, 0x400103, 0x7ffc0000, 8, 7),
        rec_mem(0, 4, 1, 0, 0x600000, 4, 1), /* a system write: no descriptor */
        rec_exit(0, 5),
    };
    feed(m, rs, (int)(sizeof rs / sizeof rs[0]));
    close_mode(m, NULL);
    char *txt = slurp_text(in_tmp("mls.txt"));
    /* Fig. 4.13's example */
    cr_assert_str_eq(txt, "0, L, 0x0000000000400100, 0x0000003f84001130, 8, 0x0000000064320011 mov rax, qword ptr "
                          "[rdx]\n"
                          "0, S, 0x0000000000400103, 0x000000007ffc0000, 8, 0x0000000000000007 mov qword ptr "
                          "[rbp-0x8], rdi\n");
    free(txt);
    free(img);
    rm_tmp();
}

/* The code of the mcftraptor_model and mlvcfiat_model streams. */
static uint8_t *model_code(size_t *len)
{
    static uint8_t code[0x4100];
    memset(code, 0x90, sizeof code);
    code[0x000] = 0xff, code[0x001] = 0xd0;                      /* 0x1000 call rax */
    code[0x003] = 0xc3;                                          /* 0x1003 ret */
    code[0x008] = 0x75, code[0x009] = 0xf6;                      /* 0x1008 jnz 0x1000 */
    code[0x00c] = 0x8b, code[0x00d] = 0x02;                      /* 0x100c mov eax, dword ptr [rdx] */
    code[0x018] = 0x8a, code[0x019] = 0x01;                      /* 0x1018 mov al, byte ptr [rcx] */
    code[0x2000] = 0xc3;                                         /* 0x3000 ret */
    code[0x4004] = 0xf7, code[0x4005] = 0x75, code[0x4006] = 0xdc; /* 0x5004 div dword ptr [rbp-0x24] */
    /* 0x1000 is also mlvcfiat's load: */
    return make_elf(0x1000 - 0x100, 0x100, code, sizeof code, len);
}

/* Feeds R to the model and the descriptors: the model first (as tm
 * record does: the hook comes before the record), or after. */
static void both_order(feeder *f, const tmc_record *r, int model_first)
{
    if (model_first)
        cr_assert_eq(tm_model_put(f->model, r), TM_OK, "%s", tm_model_error(f->model));
    cr_assert_eq(tm_recmode_record(f->m, r), 0, "%s", tm_recmode_error(f->m));
    if (!model_first)
        cr_assert_eq(tm_model_put(f->model, r), TM_OK, "%s", tm_model_error(f->model));
}

Test(recmodes, mcftraptor_disasm)
{
    mkdir_tmp();
    size_t len;
    uint8_t *img = model_code(&len);
    const char *path = write_elf("prog", img, len);
    char pbuf[256];
    snprintf(pbuf, sizeof pbuf, "%s", path);
    for (int model_first = 0; model_first < 2; model_first++) {
        tm_model_cfg mc;
        model_cfg(&mc, 2, 0);
        feeder f;
        cr_assert_eq(tm_model_new(&mc, &f.model, NULL, 0), TM_OK);
        char name[128];
        snprintf(name, sizeof name, "%s/trd", dir);
        tm_recmode_cfg c = {.mode = "mcftraptor", .ascii = 1, .disasm = 1, .name = name};
        f.m = open_mode(&c, &mc);
        add_module(f.m, 0x1000 - 0x100, pbuf, NULL, 0);
        tm_model_set_hook(f.model, tm_recmode_hook, f.m);
        tmc_record rs[] = {
            rec_start(0, 1, 0x1000),
            rec_run(0, 2, 0x1000, 2, 8),
            rec_br(0, 2, TMC_COND, 0x1008, 2, 0x1000, 1),
            rec_br(0, 3, TMC_ICALL, 0x1000, 2, 0x3000, 1),
            rec_br(0, 4, TMC_RET, 0x3000, 1, 0x1002, 1),
            rec_br(0, 5, TMC_RET, 0x1003, 1, 0x5000, 1),
            rec_run(0, 6, 0x5000, 1, 4),
            rec_exc(0, 6, 0x5004, 0x7000),
            rec_run(0, 7, 0x7000, 3, 12),
            rec_exit(0, 8),
        };
        for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++)
            both_order(&f, &rs[k], model_first);
        cr_assert_eq(tm_model_finish(f.model), TM_OK);
        close_mode(f.m, f.model);
        char *txt = slurp_text(in_tmp("trd.txt"));
        /* Fig. 4.22: "0, 1 jz ...", "1, 1, T, 0x... call rax", "0, 0, 78, div dword ptr [rbp-36]" */
        cr_assert_str_eq(txt,
                         "0, 1 jnz 0x1000\n"
                         "0, 1, T, 0x0000000000003000 call rax\n"
                         "0, 2, T, 0x0000000000005000 ret\n"
                         "0, 0, 1, 0x0000000000007000 div dword ptr [rbp-0x24]\n",
                         "model first: %d", model_first);
        char *st = slurp_text(in_tmp("trd.Statistics"));
        cr_assert(strstr(st, "tm: descriptors: 1 mispredicted outcomes, 2 mispredicted targets, 1 exceptions\n"
                             "tm: -d: 0 descriptors"),
                  "%s", st);
        free(txt);
        free(st);
        tm_model_free(f.model);
    }
    free(img);
    rm_tmp();
}

Test(recmodes, mlvcfiat_disasm)
{
    mkdir_tmp();
    size_t len;
    uint8_t *img = model_code(&len);
    img[0x100] = 0x44, img[0x101] = 0x8b, img[0x102] = 0x00; /* 0x1000 mov r8d, dword ptr [rax] (Fig. 4.36) */
    const char *path = write_elf("prog", img, len);
    char pbuf[256];
    snprintf(pbuf, sizeof pbuf, "%s", path);
    for (int model_first = 0; model_first < 2; model_first++) {
        tm_model_cfg mc;
        model_cfg(&mc, 1, 1);
        feeder f;
        cr_assert_eq(tm_model_new(&mc, &f.model, NULL, 0), TM_OK);
        char name[128];
        snprintf(name, sizeof name, "%s/cfd", dir);
        tm_recmode_cfg c = {.mode = "mlvcfiat", .ascii = 1, .disasm = 1, .name = name};
        f.m = open_mode(&c, &mc);
        add_module(f.m, 0x1000 - 0x100, pbuf, NULL, 0);
        tm_model_set_hook(f.model, tm_recmode_hook, f.m);
        tmc_record rs[] = {
            rec_start(0, 1, 0x1000),
            rec_run(0, 2, 0x1000, 1, 4), rec_mem(0, 2, 0, 0x1000, 0x8000, 4, 4),      /* miss */
            rec_run(0, 3, 0x1004, 1, 4), rec_mem(0, 3, 0, 0x1004, 0x8000, 4, 4),      /* FA hit */
            rec_run(0, 5, 0x100c, 1, 4), rec_mem(0, 5, 0, 0x100c, 0x8004, 4, 0x1234), /* FA miss */
            rec_run(0, 6, 0x1010, 1, 4), rec_mem(0, 6, 1, 0x1010, 0x8008, 8, 9),      /* store */
            rec_run(0, 8, 0x1018, 1, 4), rec_mem(0, 8, 0, 0x1018, 0x9001, 1, 0x7f),   /* miss (byte) */
            rec_br(0, 8, TMC_JUMP, 0x101a, 2, 0x1000, 1),                              /* the group's event */
            rec_exit(0, 9),
        };
        for (size_t k = 0; k < sizeof rs / sizeof rs[0]; k++)
            both_order(&f, &rs[k], model_first);
        cr_assert_eq(tm_model_finish(f.model), TM_OK);
        close_mode(f.m, f.model);
        char *txt = slurp_text(in_tmp("cfd.txt"));
        cr_assert_str_eq(txt,
                         "0, 0, 0x00000004 mov r8d, dword ptr [rax]\n"
                         "0, 1, 0x00001234 mov eax, dword ptr [rdx]\n"
                         "0, 0, 0x7f mov al, byte ptr [rcx]\n",
                         "model first: %d", model_first);
        free(txt);
        tm_model_free(f.model);
    }
    free(img);
    rm_tmp();
}

/* A message whose record never comes: "(unknown)" once a later record of
 * its thread shows its cycle is over, or at close; descriptors keep their
 * order per thread; the -f limit holds. */
Test(recmodes, disasm_hook_unmatched)
{
    mkdir_tmp();
    tm_model_cfg mc;
    model_cfg(&mc, 2, 0);
    char name[128];
    snprintf(name, sizeof name, "%s/u", dir);
    tm_recmode_cfg c = {.mode = "mcftraptor", .ascii = 1, .disasm = 1, .name = name};
    tm_recmode *m = open_mode(&c, &mc);
    static const uint8_t code[] = {0x74, 0x00, 0xc3};
    size_t len;
    uint8_t *img = make_elf(0x2000 - 0x100, 0x100, code, sizeof code, &len);
    add_module(m, 0x2000 - 0x100, "[vdso]", img, len);
    tm_msg s0 = msg_sync(0, 0x2000), s1 = msg_sync(1, 0x2000);
    tm_recmode_hook(m, 1, 0, &s0, 10, 1);
    tm_recmode_hook(m, 1, 1, &s1, 10, 1);
    tm_msg b = msg_branch(0, 1, 0, 0);
    /* cycle 5: its record is filtered away; the record of cycle 6 ends it */
    tm_recmode_hook(m, 5, 0, &b, 10, 1);
    tmc_record r6 = rec_br(0, 6, TMC_COND, 0x2000, 2, 0x2002, 1);
    cr_assert_eq(tm_recmode_record(m, &r6), 0);
    /* thread 1 at cycle 6: the record came first */
    tmc_record r1 = rec_br(1, 6, TMC_RET, 0x2002, 1, 0x9000, 1);
    cr_assert_eq(tm_recmode_record(m, &r1), 0);
    tm_msg t1 = msg_branch(1, 3, 1, 0x7000);
    tm_recmode_hook(m, 6, 1, &t1, 10, 1);
    /* thread 0 at cycle 7, then at 8 before 7's record: 7 is written unknown */
    tm_recmode_hook(m, 7, 0, &b, 10, 1);
    tm_recmode_hook(m, 8, 0, &b, 10, 1);
    tmc_record r8 = rec_br(0, 8, TMC_COND, 0x2000, 2, 0x2002, 0);
    cr_assert_eq(tm_recmode_record(m, &r8), 0);
    /* a last one whose record never comes: at close */
    tm_recmode_hook(m, 9, 1, &b, 10, 1);
    close_mode(m, NULL);
    char *txt = slurp_text(in_tmp("u.txt"));
    cr_assert_str_eq(txt, "0, 1 (unknown)\n"
                          "1, 3, T, 0x0000000000009000 ret\n"
                          "0, 1 (unknown)\n"
                          "0, 1 jz 0x2002\n"
                          "0, 1 (unknown)\n");
    char *st = slurp_text(in_tmp("u.Statistics"));
    cr_assert(strstr(st, "tm: descriptors: 4 mispredicted outcomes, 1 mispredicted targets, 0 exceptions\n"
                         "tm: -d: 3 descriptors with"),
              "%s", st);
    free(txt);
    free(st);
    /* -f: a waiting descriptor that no longer fits is not written */
    c.size_limit = 20;
    m = open_mode(&c, &mc);
    add_module(m, 0x2000 - 0x100, "[vdso]", img, len);
    tm_recmode_hook(m, 1, 0, &s0, 10, 1);
    tm_recmode_hook(m, 5, 0, &b, 10, 1);
    cr_assert_eq(tm_recmode_record(m, &r6), 0); /* "0, 1 (unknown)\n": 15 bytes */
    tm_recmode_hook(m, 8, 0, &b, 10, 1);
    cr_assert_eq(tm_recmode_record(m, &r8), 0); /* "0, 1 jz 0x2002\n": 15 more, over 20 */
    cr_assert_eq(tm_recmode_full(m), 1);
    close_mode(m, NULL);
    txt = slurp_text(in_tmp("u.txt"));
    cr_assert_str_eq(txt, "0, 1 (unknown)\n");
    free(txt);
    free(img);
    rm_tmp();
}
