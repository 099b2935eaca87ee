/* tm cosim — co-simulate the RTL (rtl/) with the C model on a commit stream.
 *
 * The RTL's parameters are compile-time, so this launcher resolves the
 * configuration exactly as `tm model` does, derives the RTL parameter set
 * from it (the table include/tm/rtl_params.h: the build directory's name
 * BUILD/cosim/<parameters>/ and the files params.vc and params.h in it), has
 * the make rule testbench/sim.mk build the simulator of that set when it is
 * missing or out of date, and runs it with the configuration as a .tmt
 * header on a pipe.  The simulator (testbench/cosim/ + testbench/glue.cpp)
 * does the lockstep comparison. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stddef.h>
#include "cmd.h"
#include "modelopts.h"
#include "tm/opt.h"
#include "tm/model.h"
#include "tm/rtl_params.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

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

/* Writes TEXT to PATH unless PATH already holds exactly TEXT (its time
 * stamp then stays, and make does not rebuild what depends on it). */
static int write_if_changed(const char *path, const char *text)
{
    size_t n = strlen(text);
    FILE *f = fopen(path, "rbe");
    if (f) {
        char *old = malloc(n + 1);
        size_t got = old ? fread(old, 1, n + 1, f) : 0;
        int same = old && got == n && !memcmp(old, text, n);
        free(old);
        fclose(f);
        if (same)
            return 0;
    }
    char tmp[PATH_MAX + 32];
    if (pfmt(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()))
        return -1;
    f = fopen(tmp, "wbe");
    if (!f)
        return -1;
    int ok = fwrite(text, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path)) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Builds the simulator in DIR with the make rule testbench/sim.mk unless it
 * is there and up to date; the caller holds DIR/.lock. */
static int build_sim_locked(const char *root, const char *dir)
{
    char lib[PATH_MAX + 64], mk[PATH_MAX + 64], rootv[PATH_MAX + 16], outv[PATH_MAX + 400], libv[PATH_MAX + 80];
    pfmt(lib, sizeof lib, "%s/build/lib/libtm.a", root);
    if (access(lib, R_OK) != 0) {
        tm_err("cosim", "%s is missing: run make first", lib);
        return -1;
    }
    pfmt(mk, sizeof mk, "%s/testbench/sim.mk", root);
    pfmt(rootv, sizeof rootv, "ROOT=%s", root);
    pfmt(outv, sizeof outv, "OUT=%s", dir);
    pfmt(libv, sizeof libv, "LIBTM=%s", lib);
    char *q_argv[] = {"make", "-q", "-s", "-f", mk, rootv, outv, libv, NULL};
    if (run(q_argv, 1) == 0)
        return 0;
    fprintf(stderr, "tm cosim: building the simulator for this parameter set in %s\n", dir);
    char *argv[] = {"make", "-s", "-f", mk, rootv, outv, libv, NULL};
    if (run(argv, 1) != 0) {
        tm_err("cosim", "building the simulator with Verilator failed (see the messages above)");
        return -1;
    }
    return 0;
}

/* Builds the simulator of the parameter set in DIR with the make rule
 * testbench/sim.mk, unless it is there and up to date.  Two tm cosim of the
 * same parameter set at once (parallel tests, a user's two shells) take
 * turns on DIR/.lock: the second waits for the first one's build and then
 * finds the simulator up to date. */
static int build_sim(const char *root, const char *dir)
{
    char lk[PATH_MAX + 640];
    pfmt(lk, sizeof lk, "%s/.lock", dir);
    int fd = open(lk, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        tm_err("cosim", "%s: cannot open: %s", lk, strerror(errno));
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            tm_err("cosim", "%s: cannot lock: %s", lk, strerror(errno));
            close(fd);
            return -1;
        }
    }
    int r = build_sim_locked(root, dir);
    close(fd); /* releases the lock */
    return r;
}

/* tm cosim's command line. */
typedef struct cosim_args {
    model_opts o;
    const char *in, *wave, *covf, *inject;
    int quiet;
} cosim_args;

static const tm_optdef cosim_opts[] = {
    {"--wave", NULL, TM_OPT_VALUE, offsetof(cosim_args, wave), 0, "a file name"},
    {"--inject-fault", NULL, TM_OPT_VALUE, offsetof(cosim_args, inject), 0, "a cycle"},
    {"--cov", NULL, TM_OPT_VALUE, offsetof(cosim_args, covf), 0, "a file name"},
    {"--quiet", "-q", TM_OPT_FLAG, offsetof(cosim_args, quiet), 0, NULL}, {NULL, NULL, 0, 0, 0, NULL}};

/* The command line into C, checked as far as it can be without reading
 * the input: 0, 1 (--help printed) or 2 after a usage error. */
static int cosim_parse(int argc, char **argv, cosim_args *C)
{
    memset(C, 0, sizeof *C);
    const char *v;
    tm_opt_parser p;
    tm_opt_init(&p, argc, argv);
    tm_opt_table t[2] = {{model_opts_table, &C->o}, {cosim_opts, C}};
    const tm_optdef *hit;
    char perr[256];
    int pr;
    while ((pr = tm_opt_next(&p, t, 2, &hit, &v, perr, sizeof perr)) > 0) {
        if (pr == TM_OPT_HELP)
            return usage(stdout), 1;
        if (pr == TM_OPT_OPERAND && C->in)
            return tm_usage("cosim", "unexpected argument '%s': one commit stream only", v), 2;
        if (pr == TM_OPT_OPERAND)
            C->in = v;
    }
    if (pr < 0)
        return tm_usage("cosim", "%s", perr), 2;
    if (!C->in)
        return tm_usage("cosim", "no commit stream: give IN.tmc"), 2;
    tm_model_cfg cfg;
    if (model_opts_cfg("cosim", &C->o, 1, &cfg))
        return 2;
    if (!strcmp(C->in, "-"))
        return tm_usage("cosim", "the commit stream must be a file (it is read twice)"), 2;
    /* an output that is the input, or both outputs one file (issue 35) */
    const char *outs[2][2] = {{"--wave", C->wave}, {"--cov", C->covf}};
    for (int j = 0; j < 2; j++)
        if (outs[j][1] && tm_same_file(outs[j][1], C->in))
            return tm_usage("cosim", "%s %s: the output is the input %s (the same file): refused, it would destroy "
                                     "the input", outs[j][0], outs[j][1], C->in), 2;
    if (C->wave && C->covf && (!strcmp(C->wave, C->covf) || tm_same_file(C->wave, C->covf)))
        return tm_usage("cosim", "--wave and --cov name the same file %s", C->covf), 2;
    return 0;
}

/* What the RTL can co-simulate of CFG (THREADS cores): 0, or 2 after the
 * usage line. */
static int cosim_supported(const cosim_args *C, const tm_model_cfg *cfg, uint32_t threads)
{
    if (cfg->port_bits > 64)
        return tm_usage("cosim", "--port %u: co-simulation supports 1..64 bits per cycle", cfg->port_bits), 2;
    if (threads > 64)
        return tm_usage("cosim", "%s: %u threads: co-simulation supports up to 64", C->in, threads), 2;
    if (cfg->cfiat_shared)
        return tm_usage("cosim", "--cfiat-shared: the RTL builds private caches only (one per core); co-simulate "
                                 "CFiat without it"), 2;
    if (cfg->enc.data == TM_DATA_CFIAT) {
        /* rtl/tm_dcache.sv looks up the lines of an operand in parallel,
         * which needs them in distinct sets. */
        const tm_cache_cfg *cc = &cfg->cache;
        unsigned sets = cc->size / (cc->line * cc->assoc), lmax = (cc->line + 62) / cc->line + 1;
        if (sets < lmax)
            return tm_usage("cosim", "--assoc %u (with --cache %u --line %u): %u set%s, but the RTL cache needs at "
                                     "least %u: a 64-byte operand covers up to %u lines of %u bytes, looked up in "
                                     "distinct sets",
                            cc->assoc, cc->size, cc->line, sets, sets == 1 ? "" : "s", lmax, lmax, cc->line), 2;
    }
    return 0;
}

/* The simulator of CFG, built if needed (its folder under build/cosim/,
 * keyed by the RTL parameters), into SIM: 0, or 1 after one line. */
static int cosim_sim(const tm_model_cfg *cfg, char *sim, size_t simlen)
{
    char root[PATH_MAX];
    if (tm_find_root(root, sizeof root))
        return tm_err("cosim", "cannot find the RTL (rtl/tm_top.sv above the tm executable)"), 1;
    char key[512], vc[2048], hdr[2048], dir[PATH_MAX + 600], path[PATH_MAX + 640];
    if (tm_rtl_params_text(cfg, key, sizeof key, vc, sizeof vc, hdr, sizeof hdr) != TM_OK)
        return tm_err("cosim", "the RTL parameters of this configuration do not fit their buffers"), 1;
    pfmt(dir, sizeof dir, "%s/build/cosim/%s", root, key);
    if (mkdirs(dir))
        return tm_err("cosim", "%s: cannot create: %s", dir, strerror(errno)), 1;
    pfmt(path, sizeof path, "%s/params.vc", dir);
    int werr = write_if_changed(path, vc);
    if (!werr) {
        pfmt(path, sizeof path, "%s/params.h", dir);
        werr = write_if_changed(path, hdr);
    }
    if (werr)
        return tm_err("cosim", "%s: cannot write: %s", path, strerror(errno)), 1;
    pfmt(sim, simlen, "%s/tm-cosim-sim", dir);
    return build_sim(root, dir) ? 1 : 0;
}

/* Runs the simulator SIM over C->in (exec: returns only on failure, 1).
 * The resolved configuration reaches it as a .tmt header (no trace bits)
 * on a pipe, read with the library's tmt reader. */
static int cosim_exec(const cosim_args *C, const tm_model_cfg *cfg, char *sim)
{
    int fds[2];
    if (pipe(fds))
        return tm_err("cosim", "cannot create a pipe: %s", strerror(errno)), 1;
    char cfgpath[32], err[256];
    pfmt(cfgpath, sizeof cfgpath, "/dev/fd/%d", fds[1]);
    tm_bitbuf nobits;
    memset(&nobits, 0, sizeof nobits);
    uint64_t zeros[64] = {0};
    tmt_trailer tr = {0, zeros, TMT_COMPLETE, 0, TMT_PROG_UNKNOWN, 0};
    if (tmt_write(cfgpath, cfg, &nobits, &tr, err, sizeof err) != TM_OK)
        return tm_err("cosim", "passing the configuration to the simulator: %s", err), 1;
    close(fds[1]);
    pfmt(cfgpath, sizeof cfgpath, "/dev/fd/%d", fds[0]);
    char *sargv[16];
    int n = 0;
    sargv[n++] = sim;
    sargv[n++] = "--config";
    sargv[n++] = cfgpath;
    const char *pass[3][2] = {{"--wave", C->wave}, {"--cov", C->covf}, {"--inject-fault", C->inject}};
    for (int j = 0; j < 3; j++)
        if (pass[j][1]) {
            sargv[n++] = (char *)pass[j][0];
            sargv[n++] = (char *)pass[j][1];
        }
    if (C->quiet)
        sargv[n++] = "-q";
    sargv[n++] = "--"; /* IN may begin with '-' (tm cosim -- -x.tmc) */
    sargv[n++] = (char *)C->in;
    sargv[n] = NULL;
    fflush(stdout);
    execv(sim, sargv);
    tm_err("cosim", "cannot run %s: %s", sim, strerror(errno));
    return 1;
}

int cmd_cosim(int argc, char **argv)
{
    cosim_args C;
    int rc = cosim_parse(argc, argv, &C);
    if (rc)
        return rc == 1 ? 0 : rc;
    tmc_reader *rd = NULL;
    char e[600];
    if (tmc_reader_open(C.in, &rd, e, sizeof e) != TM_OK) {
        tm_err("cosim", "%s", e);
        return 1;
    }
    uint32_t threads = tmc_reader_threads(rd);
    tmc_reader_close(rd);
    tm_model_cfg cfg;
    if (model_opts_cfg("cosim", &C.o, threads, &cfg) || cosim_supported(&C, &cfg, threads))
        return 2;
    char sim[PATH_MAX + 640];
    if (cosim_sim(&cfg, sim, sizeof sim))
        return 1;
    return cosim_exec(&C, &cfg, sim);
}
