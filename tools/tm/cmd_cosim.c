/* tm cosim — co-simulate the RTL (rtl/) with the C model on a commit stream.
 *
 * The RTL's parameters are compile-time, so this launcher resolves the
 * configuration exactly as `tm model` does, builds a Verilator simulator for
 * that parameter set once (cached under BUILD/cosim/<parameters>/), and runs
 * it.  The simulator (testbench/cosim.c + testbench/glue.cpp) does the
 * lockstep comparison. */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cmd.h"
#include "modelopts.h"
#include "tm/model.h"
#include "tm/tmc.h"

/* snprintf for paths: a path that does not fit is an error, not a silently
 * truncated name. */
static int pfmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pfmt(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r < 0 || (size_t)r >= n ? -1 : 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: tm cosim [model options] [--wave F.fst] [--cov F] IN.tmc\n%s", model_opts_help);
    fprintf(f,
            "  --wave F.fst                  on a mismatch, write an FST waveform of the cycles around it\n"
            "  --cov F                       write the coverage bins of the run to F\n"
            "  -q                            print only the verdict line\n"
            "  --inject-fault CYCLE          (testing the testbench) corrupt the model's first message\n"
            "                                at or after CYCLE (with data tracing: its first DATA\n"
            "                                message), so that the comparison must fail\n"
            "Prints a line beginning with PASS (instructions, messages, bits, cycles) and exits 0, or the\n"
            "first mismatch field by field and exits 1.  The first run of a parameter set builds its\n"
            "simulator with Verilator (tens of seconds to a minute or two); later runs reuse it.\n"
            "Data tracing (--cfiat, --data all) is co-simulated with private caches only (not\n"
            "--cfiat-shared), and with at least as many cache sets as lines a 64-byte operand covers.\n");
}

/* The repository root: the directory above build/ that holds rtl/tm_top.sv. */
static int find_root(char *root, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return -1;
    exe[len] = '\0';
    for (int up = 0; up < 6; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -1;
        *slash = '\0';
        char probe[PATH_MAX + 32];
        pfmt(probe, sizeof probe, "%s/rtl/tm_top.sv", exe);
        if (access(probe, R_OK) == 0) {
            pfmt(root, n, "%s", exe);
            return 0;
        }
    }
    return -1;
}

static int run(char *const argv[], int quiet_stdout)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (quiet_stdout && !freopen("/dev/null", "w", stdout))
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "tm cosim: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static int mkdirs(const char *path)
{
    char tmp[PATH_MAX];
    pfmt(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0777) && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(tmp, 0777) && errno != EEXIST ? -1 : 0;
}

/* 1 if SIM exists and is newer than every source it is built from. */
static int sim_fresh(const char *root, const char *sim)
{
    struct stat st;
    if (stat(sim, &st) != 0)
        return 0;
    static const char *const srcs[] = {"rtl/tm_pkg.sv", "rtl/tm_gshare.sv", "rtl/tm_ras.sv", "rtl/tm_ibtb.sv",
                                       "rtl/tm_msg_enc.sv", "rtl/tm_data_enc.sv", "rtl/tm_dcache.sv",
                                       "rtl/tm_core.sv", "rtl/tm_buffer.sv", "rtl/tm_top.sv",
                                       "testbench/cosim.c", "testbench/glue.cpp", "testbench/glue.h",
                                       "include/tm/cache.h", "build/lib/libtm.a"};
    for (size_t k = 0; k < sizeof srcs / sizeof srcs[0]; k++) {
        char path[PATH_MAX + 64];
        struct stat ss;
        if (pfmt(path, sizeof path, "%s/%s", root, srcs[k]) || stat(path, &ss) != 0)
            return 0;
        if (ss.st_mtim.tv_sec > st.st_mtim.tv_sec ||
            (ss.st_mtim.tv_sec == st.st_mtim.tv_sec && ss.st_mtim.tv_nsec > st.st_mtim.tv_nsec))
            return 0;
    }
    return 1;
}

/* The data tracing parameters of the RTL (tm_top DATA, DC_*, FA, FB): the
 * cache geometry only with CFiat, the fah chunks only with data tracing;
 * otherwise tm_top's defaults. */
typedef struct data_params {
    unsigned data, size, assoc, line, gran, fa, fb, dmaxw;
} data_params;

static data_params data_params_of(const tm_model_cfg *c)
{
    data_params d = {0, 32768, 4, 32, 4, 3, 2, 1};
    d.data = c->enc.data;
    if (c->enc.data) {
        d.fa = c->enc.fah_a;
        d.fb = c->enc.fah_b;
        d.dmaxw = tm_msg_data_max_bits(&c->enc);
    }
    if (c->enc.data == TM_DATA_CFIAT) {
        d.size = c->cache.size;
        d.assoc = c->cache.assoc;
        d.line = c->cache.line;
        d.gran = c->cache.gran;
    }
    return d;
}

/* Builds the simulator for CFG into DIR (unless an up-to-date one is there). */
static int build_sim(const char *root, const char *dir, const tm_model_cfg *c, const char *sim)
{
    if (sim_fresh(root, sim))
        return 0;
    char lib[PATH_MAX + 64], cobj[PATH_MAX + 64];
    pfmt(lib, sizeof lib, "%s/build/lib/libtm.a", root);
    if (access(lib, R_OK) != 0) {
        tm_err("cosim", "%s is missing: run make first", lib);
        return -1;
    }
    if (mkdirs(dir)) {
        tm_err("cosim", "%s: cannot create: %s", dir, strerror(errno));
        return -1;
    }
    fprintf(stderr, "tm cosim: building the simulator for this parameter set in %s\n", dir);
    /* The C testbench, compiled as C. */
    pfmt(cobj, sizeof cobj, "%s/cosim.o", dir);
    char inc[PATH_MAX + 16], tbinc[PATH_MAX + 32], cminc[PATH_MAX + 32], csrc[PATH_MAX + 32];
    pfmt(inc, sizeof inc, "-I%s/include", root);
    pfmt(cminc, sizeof cminc, "-I%s/cmodel", root); /* cache.h: the testbench's shadow caches */
    pfmt(tbinc, sizeof tbinc, "-I%s/testbench", root);
    pfmt(csrc, sizeof csrc, "%s/testbench/cosim.c", root);
    char *cc_argv[] = {"cc", "-std=c11", "-O2", "-g", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=200809L",
                       inc, tbinc, cminc, "-c", csrc, "-o", cobj, NULL};
    if (run(cc_argv, 0) != 0) {
        tm_err("cosim", "compiling %s failed", csrc);
        return -1;
    }
    unsigned maxw = tm_msg_max_bits(&c->enc), lenw = 0;
    while ((1u << lenw) < maxw + 1)
        lenw++;
    data_params d = data_params_of(c);
    char defs[1024];
    pfmt(defs, sizeof defs,
             "-O2 -DTM_N=%u -DTM_ENC=%u -DTM_TS=%u -DTM_TS_BITS=%u -DTM_SHARED=%u -DTM_GSHARE=%u -DTM_RAS=%u "
             "-DTM_IBTB=%u -DTM_CA=%u -DTM_CB=%u -DTM_TA=%u -DTM_TB=%u -DTM_HA=%u -DTM_HB=%u -DTM_BUF_BITS=%u "
             "-DTM_PORT_BITS=%u -DTM_LENW=%u -DTM_DATA=%u -DTM_DC_SIZE=%u -DTM_DC_ASSOC=%u -DTM_DC_LINE=%u "
             "-DTM_DC_GRAN=%u -DTM_FA=%u -DTM_FB=%u -DTM_DMAXW=%u %s %s",
             c->enc.threads, (unsigned)c->enc.enc, (unsigned)c->enc.timestamps, c->ts_bits, (unsigned)c->shared,
             c->pred.gshare, c->pred.ras, c->pred.ibtb, c->enc.cnt_a, c->enc.cnt_b, c->enc.ta_a, c->enc.ta_b,
             c->enc.cc_a, c->enc.cc_b, c->buffer_bits, c->port_bits, lenw, d.data, d.size, d.assoc, d.line,
             d.gran, d.fa, d.fb, d.dmaxw, inc, tbinc);
    char ldflags[PATH_MAX * 2 + 64];
    pfmt(ldflags, sizeof ldflags, "%s %s -lzstd -lz -lm", cobj, lib);
    char g[24][64];
    pfmt(g[0], 64, "-GN=%u", c->enc.threads);
    pfmt(g[1], 64, "-GENC=%u", (unsigned)c->enc.enc);
    pfmt(g[2], 64, "-GTS=1'b%u", (unsigned)c->enc.timestamps);
    pfmt(g[3], 64, "-GTS_BITS=%u", c->ts_bits);
    pfmt(g[4], 64, "-GSHARED=1'b%u", (unsigned)c->shared);
    pfmt(g[5], 64, "-GGSHARE=%u", c->pred.gshare);
    pfmt(g[6], 64, "-GRAS=%u", c->pred.ras);
    pfmt(g[7], 64, "-GIBTB=%u", c->pred.ibtb);
    pfmt(g[8], 64, "-GCA=%u", c->enc.cnt_a);
    pfmt(g[9], 64, "-GCB=%u", c->enc.cnt_b);
    pfmt(g[10], 64, "-GTA=%u", c->enc.ta_a);
    pfmt(g[11], 64, "-GTB=%u", c->enc.ta_b);
    pfmt(g[12], 64, "-GHA=%u", c->enc.cc_a);
    pfmt(g[13], 64, "-GHB=%u", c->enc.cc_b);
    pfmt(g[14], 64, "-GBUF_BITS=%u", c->buffer_bits);
    pfmt(g[15], 64, "-GPORT_BITS=%u", c->port_bits);
    pfmt(g[16], 64, "-GDATA=%u", d.data);
    pfmt(g[17], 64, "-GDC_SIZE=%u", d.size);
    pfmt(g[18], 64, "-GDC_ASSOC=%u", d.assoc);
    pfmt(g[19], 64, "-GDC_LINE=%u", d.line);
    pfmt(g[20], 64, "-GDC_GRAN=%u", d.gran);
    pfmt(g[21], 64, "-GFA=%u", d.fa);
    pfmt(g[22], 64, "-GFB=%u", d.fb);
    char mdir[PATH_MAX + 16], exe[PATH_MAX + 32];
    pfmt(mdir, sizeof mdir, "%s/obj", dir);
    pfmt(exe, sizeof exe, "%s", sim);
    enum { NFILES = 10 };
    char rtl[NFILES][PATH_MAX + 32];
    static const char *const files[NFILES] = {"rtl/tm_pkg.sv", "rtl/tm_gshare.sv", "rtl/tm_ras.sv",
                                              "rtl/tm_ibtb.sv", "rtl/tm_msg_enc.sv", "rtl/tm_data_enc.sv",
                                              "rtl/tm_dcache.sv", "rtl/tm_core.sv", "rtl/tm_buffer.sv",
                                              "rtl/tm_top.sv"};
    for (int k = 0; k < NFILES; k++)
        pfmt(rtl[k], sizeof rtl[k], "%s/%s", root, files[k]);
    char glue[PATH_MAX + 32];
    pfmt(glue, sizeof glue, "%s/testbench/glue.cpp", root);
    char *vargv[64];
    int n = 0;
    vargv[n++] = "verilator";
    vargv[n++] = "--cc";
    vargv[n++] = "--exe";
    vargv[n++] = "--build";
    vargv[n++] = "-j";
    vargv[n++] = "2";
    vargv[n++] = "--trace-fst";
    vargv[n++] = "--assert"; /* the RTL's assertions (tm_top's idle_skip_i) */
    vargv[n++] = "--x-initial";
    vargv[n++] = "unique";
    vargv[n++] = "-MAKEFLAGS";       /* the model code at -O2, not Verilator's default -Os */
    vargv[n++] = "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2";
    vargv[n++] = "-Wno-fatal";
    vargv[n++] = "-Wno-lint";
    vargv[n++] = "-Wno-style";
    vargv[n++] = "--top-module";
    vargv[n++] = "tm_top";
    vargv[n++] = "-Mdir";
    vargv[n++] = mdir;
    vargv[n++] = "-CFLAGS";
    vargv[n++] = defs;
    vargv[n++] = "-LDFLAGS";
    vargv[n++] = ldflags;
    vargv[n++] = "-o";
    vargv[n++] = exe;
    for (int k = 0; k < 23; k++)
        vargv[n++] = g[k];
    for (int k = 0; k < NFILES; k++)
        vargv[n++] = rtl[k];
    vargv[n++] = glue;
    vargv[n] = NULL;
    /* libtm.a and cosim.o are not dependencies of Verilator's makefile: with
       only them changed it would not relink (the simulator would keep the old
       library, and stay older than its sources, so every run rebuilt it). */
    if (unlink(sim) != 0 && errno != ENOENT) {
        tm_err("cosim", "%s: cannot replace: %s", sim, strerror(errno));
        return -1;
    }
    if (run(vargv, 1) != 0) {
        tm_err("cosim", "building the simulator with Verilator failed (see the messages above)");
        return -1;
    }
    return 0;
}

int cmd_cosim(int argc, char **argv)
{
    model_opts o;
    memset(&o, 0, sizeof o);
    const char *in = NULL, *wave = NULL, *covf = NULL, *inject = NULL;
    int quiet = 0, opts = 1;
    for (int i = 1; i < argc; i++) {
        if (!opts || argv[i][0] != '-' || !strcmp(argv[i], "-")) {
            if (in) {
                tm_err("cosim", "unexpected argument '%s': one commit stream only", argv[i]);
                return 2;
            }
            in = argv[i];
            continue;
        }
        if (!strcmp(argv[i], "--")) {
            opts = 0;
            continue;
        }
        int mr = model_opts_parse("cosim", &o, argc, argv, &i);
        if (mr < 0)
            return 2;
        if (mr > 0)
            continue;
        const char *a = argv[i], *v = NULL;
        int r;
        if ((r = tm_opt(argc, argv, &i, "--wave", &v)) != 0) {
            if (r < 0) {
                tm_err("cosim", "--wave needs a file name");
                return 2;
            }
            wave = v;
        } else if ((r = tm_opt(argc, argv, &i, "--inject-fault", &v)) != 0) {
            if (r < 0) {
                tm_err("cosim", "--inject-fault needs a cycle");
                return 2;
            }
            inject = v;
        } else if ((r = tm_opt(argc, argv, &i, "--cov", &v)) != 0) {
            if (r < 0) {
                tm_err("cosim", "--cov needs a file name");
                return 2;
            }
            covf = v;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else {
            tm_err("cosim", "unknown option '%s' (see tm cosim --help)", a);
            return 2;
        }
    }
    if (!in) {
        tm_err("cosim", "no commit stream (usage: tm cosim [model options] IN.tmc)");
        return 2;
    }
    tm_model_cfg cfg;
    if (model_opts_cfg("cosim", &o, 1, &cfg))
        return 2;
    if (!strcmp(in, "-")) {
        tm_err("cosim", "the commit stream must be a file (it is read twice)");
        return 2;
    }
    tmc_reader *rd = NULL;
    char e[600];
    if (tmc_reader_open(in, &rd, e, sizeof e) != TM_OK) {
        tm_err("cosim", "%s", e);
        return 1;
    }
    uint32_t threads = tmc_reader_threads(rd);
    tmc_reader_close(rd);
    if (model_opts_cfg("cosim", &o, threads, &cfg))
        return 2;
    if (cfg.port_bits > 64) {
        tm_err("cosim", "--port %u: co-simulation supports 1..64 bits per cycle", cfg.port_bits);
        return 2;
    }
    if (threads > 64) {
        tm_err("cosim", "%s: %u threads: co-simulation supports up to 64", in, threads);
        return 2;
    }
    if (cfg.cfiat_shared) {
        tm_err("cosim", "--cfiat-shared: the RTL builds private caches only (one per core); co-simulate "
                        "CFiat without it");
        return 2;
    }
    if (cfg.enc.data == TM_DATA_CFIAT) {
        /* rtl/tm_dcache.sv looks up the lines of an operand in parallel,
         * which needs them in distinct sets. */
        const tm_cache_cfg *cc = &cfg.cache;
        unsigned sets = cc->size / (cc->line * cc->assoc), lmax = (cc->line + 62) / cc->line + 1;
        if (sets < lmax) {
            tm_err("cosim", "--assoc %u (with --cache %u --line %u): %u set%s, but the RTL cache needs at least "
                            "%u: a 64-byte operand covers up to %u lines of %u bytes, looked up in distinct sets",
                   cc->assoc, cc->size, cc->line, sets, sets == 1 ? "" : "s", lmax, lmax, cc->line);
            return 2;
        }
    }
    char root[PATH_MAX];
    if (find_root(root, sizeof root)) {
        tm_err("cosim", "cannot find the RTL (rtl/tm_top.sv above the tm executable)");
        return 1;
    }
    char key[256], dkey[128] = "", dir[PATH_MAX + 300], sim[PATH_MAX + 340];
    data_params d = data_params_of(&cfg);
    if (d.data)
        pfmt(dkey, sizeof dkey, "-d%u-k%u.%u.%u.%u-f%u.%u", d.data, d.size, d.assoc, d.line, d.gran, d.fa, d.fb);
    pfmt(key, sizeof key, "n%u-e%u-t%u-w%u-s%u-g%u-r%u-i%u-c%u.%u.%u.%u.%u.%u-b%u-p%u%s", threads,
             (unsigned)cfg.enc.enc, (unsigned)cfg.enc.timestamps, cfg.ts_bits, (unsigned)cfg.shared, cfg.pred.gshare,
             cfg.pred.ras, cfg.pred.ibtb, cfg.enc.cnt_a, cfg.enc.cnt_b, cfg.enc.ta_a, cfg.enc.ta_b, cfg.enc.cc_a,
             cfg.enc.cc_b, cfg.buffer_bits, cfg.port_bits, dkey);
    pfmt(dir, sizeof dir, "%s/build/cosim/%s", root, key);
    pfmt(sim, sizeof sim, "%s/tm-cosim-sim", dir);
    if (build_sim(root, dir, &cfg, sim))
        return 1;
    char a[16][48];
    pfmt(a[0], 48, "%u", threads);
    pfmt(a[1], 48, "%u", (unsigned)cfg.enc.enc);
    pfmt(a[2], 48, "%u", (unsigned)cfg.enc.timestamps);
    pfmt(a[3], 48, "%u", cfg.ts_bits);
    pfmt(a[4], 48, "%u", (unsigned)cfg.shared);
    pfmt(a[5], 48, "%u", cfg.pred.gshare);
    pfmt(a[6], 48, "%u", cfg.pred.ras);
    pfmt(a[7], 48, "%u", cfg.pred.ibtb);
    pfmt(a[8], 48, "%u,%u,%u,%u,%u,%u", cfg.enc.cnt_a, cfg.enc.cnt_b, cfg.enc.ta_a, cfg.enc.ta_b, cfg.enc.cc_a,
             cfg.enc.cc_b);
    pfmt(a[9], 48, "%u", cfg.buffer_bits);
    pfmt(a[10], 48, "%u", cfg.port_bits);
    pfmt(a[11], 48, "%u", d.data);
    pfmt(a[12], 48, "%u,%u,%u,%u", d.size, d.assoc, d.line, d.gran);
    pfmt(a[13], 48, "%u,%u", d.fa, d.fb);
    char *sargv[48];
    int n = 0;
    sargv[n++] = sim;
    static const char *const names[14] = {"--threads", "--encoding", "--ts", "--ts-bits", "--shared", "--gshare",
                                          "--ras", "--ibtb", "--chunks", "--buffer", "--port", "--data",
                                          "--dcache", "--fah"};
    for (int k = 0; k < 14; k++) {
        sargv[n++] = (char *)names[k];
        sargv[n++] = a[k];
    }
    if (wave) {
        sargv[n++] = "--wave";
        sargv[n++] = (char *)wave;
    }
    if (covf) {
        sargv[n++] = "--cov";
        sargv[n++] = (char *)covf;
    }
    if (inject) {
        sargv[n++] = "--inject-fault";
        sargv[n++] = (char *)inject;
    }
    if (quiet)
        sargv[n++] = "-q";
    sargv[n++] = (char *)in;
    sargv[n] = NULL;
    fflush(stdout);
    execv(sim, sargv);
    tm_err("cosim", "cannot run %s: %s", sim, strerror(errno));
    return 1;
}
