/* tm — tm cosim's work before the simulator runs (include/tm/cosim.h): the
 * RTL's limits, the simulator's build folder under build/cosim/ keyed by
 * the RTL parameters (the table include/tm/rtl_params.h), its build with
 * testbench/sim.mk under a lock, the configuration on a pipe.  Nothing
 * here prints. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdint.h>
#include <unistd.h>
#include "tm/cosim.h"
#include "tm/rtl_params.h"
#include "tm/status.h"
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

int tm_cosim_supported(const tm_model_cfg *cfg, uint32_t threads, const char *in, char *err, size_t errlen)
{
    if (cfg->port_bits > 64)
        return tm_errf(TM_ERR_ARG, err, errlen, "--port %u: co-simulation supports 1..64 bits per cycle",
                    cfg->port_bits);
    if (threads > 64)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: %u threads: co-simulation supports up to 64", in, threads);
    if (cfg->cfiat_shared)
        return tm_errf(TM_ERR_ARG, err, errlen, "--cfiat-shared: the RTL builds private caches only (one per core); "
                                             "co-simulate CFiat without it");
    if (cfg->enc.data == TM_DATA_CFIAT) {
        /* rtl/tm_dcache.sv looks up the lines of an operand in parallel,
         * which needs them in distinct sets. */
        const tm_cache_cfg *cc = &cfg->cache;
        unsigned sets = cc->size / (cc->line * cc->assoc), lmax = (cc->line + 62) / cc->line + 1;
        if (sets < lmax)
            return tm_errf(TM_ERR_ARG, err, errlen, "--assoc %u (with --cache %u --line %u): %u set%s, but the RTL "
                                                 "cache needs at least %u: a 64-byte operand covers up to %u lines "
                                                 "of %u bytes, looked up in distinct sets",
                        cc->assoc, cc->size, cc->line, sets, sets == 1 ? "" : "s", lmax, lmax, cc->line);
    }
    return TM_OK;
}

/* ARGV run in a child (its stdout to /dev/null with QUIET_STDOUT): its
 * exit status, 128 + a signal, or -1. */
static int run(char *const argv[], int quiet_stdout, tm_cosim_note note, void *arg)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (quiet_stdout && !freopen("/dev/null", "w", stdout))
            _exit(127);
        execvp(argv[0], argv);
        char line[512];
        snprintf(line, sizeof line, "cannot run %s: %s", argv[0], strerror(errno));
        note(arg, line);
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

/* The quick check that the simulator in DIR is up to date, without make
 * (about 8 ms of CPU and 19 ms in all, a sixth of a short co-simulation):
 * DIR/sim.deps, written by testbench/sim.mk after each build, lists every
 * file the simulator is made from (and the folders whose wildcards make the
 * list); DIR/sim.stamp holds a hash of their time stamps, sizes and inodes
 * and the simulator's, written by tm cosim after make found the simulator up
 * to date or built it.  The same hash now means nothing changed since:
 * nothing for make to do.  Anything else (a file changed, missing, a list or
 * stamp that cannot be read) is a miss, and make decides as before. */
#define STAMP_MAGIC "tm-cosim-stamp 1"

static void hash_bytes(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 1099511628211ull; /* FNV-1a */
    }
}

static int hash_file(uint64_t *h, const char *path, const struct stat *sim_st)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    /* A file newer than the simulator: make would rebuild it (folders
     * only say whether the list may have changed). */
    if (sim_st && !S_ISDIR(st.st_mode) &&
        (st.st_mtim.tv_sec > sim_st->st_mtim.tv_sec ||
         (st.st_mtim.tv_sec == sim_st->st_mtim.tv_sec && st.st_mtim.tv_nsec > sim_st->st_mtim.tv_nsec)))
        return -1;
    int64_t v[6] = {(int64_t)st.st_dev, (int64_t)st.st_ino, (int64_t)st.st_size, (int64_t)st.st_mtim.tv_sec,
                    (int64_t)st.st_mtim.tv_nsec, (int64_t)st.st_mode};
    hash_bytes(h, path, strlen(path) + 1);
    hash_bytes(h, v, sizeof v);
    return 0;
}

/* The hash of DIR's simulator and of the files of DIR/sim.deps into *H; -1
 * if one is missing or newer than the simulator, or the list unreadable. */
static int sim_hash(const char *dir, uint64_t *h)
{
    char path[PATH_MAX + 64], line[PATH_MAX + 2];
    struct stat sim_st;
    *h = 14695981039346656037ull;
    pfmt(path, sizeof path, "%s/tm-cosim-sim", dir);
    if (stat(path, &sim_st) != 0 || hash_file(h, path, NULL))
        return -1;
    pfmt(path, sizeof path, "%s/sim.deps", dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    int rc = 0, n = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            rc = -1; /* cut (a path too long) or the list's end cut */
            break;
        }
        line[len - 1] = '\0';
        if (line[0] != '\0') {
            rc = hash_file(h, line, &sim_st);
            n++;
        }
    }
    if (ferror(f) || n == 0)
        rc = -1;
    fclose(f);
    return rc;
}

static int stamp_matches(const char *dir)
{
    char path[PATH_MAX + 64], want[64], got[64] = "";
    uint64_t h;
    if (sim_hash(dir, &h))
        return 0;
    pfmt(path, sizeof path, "%s/sim.stamp", dir);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    snprintf(want, sizeof want, STAMP_MAGIC " %016llx\n", (unsigned long long)h);
    return strcmp(got, want) == 0;
}

/* After make found the simulator up to date or built it: the stamp of what
 * it is made from now (none, and the old one removed, if that cannot be
 * had: the next check is make's). */
static void stamp_write(const char *dir)
{
    char path[PATH_MAX + 64], text[64];
    uint64_t h;
    pfmt(path, sizeof path, "%s/sim.stamp", dir);
    if (sim_hash(dir, &h)) {
        unlink(path);
        return;
    }
    snprintf(text, sizeof text, STAMP_MAGIC " %016llx\n", (unsigned long long)h);
    if (write_if_changed(path, text))
        unlink(path);
}

/* Builds the simulator in DIR with the make rule testbench/sim.mk unless it
 * is there and up to date; the caller holds DIR/.lock. */
static int build_sim_locked(const char *root, const char *dir, tm_cosim_note note, void *arg, char *err,
                            size_t errlen)
{
    char lib[PATH_MAX + 64], mk[PATH_MAX + 64], rootv[PATH_MAX + 16], outv[PATH_MAX + 400], libv[PATH_MAX + 80];
    pfmt(lib, sizeof lib, "%s/build/lib/libtm.a", root);
    if (access(lib, R_OK) != 0)
        return tm_errf(TM_ERR_IO, err, errlen, "%s is missing: run make first", lib);
    pfmt(mk, sizeof mk, "%s/testbench/sim.mk", root);
    pfmt(rootv, sizeof rootv, "ROOT=%s", root);
    pfmt(outv, sizeof outv, "OUT=%s", dir);
    pfmt(libv, sizeof libv, "LIBTM=%s", lib);
    if (stamp_matches(dir))
        return TM_OK;
    char *q_argv[] = {"make", "-q", "-s", "-f", mk, rootv, outv, libv, NULL};
    if (run(q_argv, 1, note, arg) == 0) {
        stamp_write(dir);
        return TM_OK;
    }
    char line[PATH_MAX + 700];
    snprintf(line, sizeof line, "building the simulator for this parameter set in %s", dir);
    note(arg, line);
    char *argv[] = {"make", "-s", "-f", mk, rootv, outv, libv, NULL};
    if (run(argv, 1, note, arg) != 0)
        return tm_errf(TM_ERR_IO, err, errlen, "building the simulator with Verilator failed (see the messages above)");
    stamp_write(dir);
    return TM_OK;
}

/* build_sim_locked under DIR/.lock: a second build of the same parameter
 * set (parallel tests, a user's two shells) waits for the first one's and
 * then finds the simulator up to date. */
static int build_sim(const char *root, const char *dir, tm_cosim_note note, void *arg, char *err, size_t errlen)
{
    char lk[PATH_MAX + 640];
    pfmt(lk, sizeof lk, "%s/.lock", dir);
    int fd = open(lk, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
        return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot open: %s", lk, strerror(errno));
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int rc = tm_errf(TM_ERR_IO, err, errlen, "%s: cannot lock: %s", lk, strerror(errno));
            close(fd);
            return rc;
        }
    }
    int rc = build_sim_locked(root, dir, note, arg, err, errlen);
    close(fd); /* releases the lock */
    return rc;
}

int tm_cosim_build(const char *root, const tm_model_cfg *cfg, char *sim, size_t simlen, tm_cosim_note note,
                   void *arg, char *err, size_t errlen)
{
    char key[512], vc[2048], hdr[2048], dir[PATH_MAX + 600], path[PATH_MAX + 640];
    if (tm_rtl_params_text(cfg, key, sizeof key, vc, sizeof vc, hdr, sizeof hdr) != TM_OK)
        return tm_errf(TM_ERR_ARG, err, errlen, "the RTL parameters of this configuration do not fit their buffers");
    pfmt(dir, sizeof dir, "%s/build/cosim/%s", root, key);
    if (mkdirs(dir))
        return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot create: %s", dir, strerror(errno));
    pfmt(path, sizeof path, "%s/params.vc", dir);
    int werr = write_if_changed(path, vc);
    if (!werr) {
        pfmt(path, sizeof path, "%s/params.h", dir);
        werr = write_if_changed(path, hdr);
    }
    if (werr)
        return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot write: %s", path, strerror(errno));
    pfmt(sim, simlen, "%s/tm-cosim-sim", dir);
    return build_sim(root, dir, note, arg, err, errlen);
}

/* CFG written as a .tmt header into a pipe whose reading end stays open
 * for the simulator to inherit; its name /dev/fd/N into PATH. */
static int config_pipe(const tm_model_cfg *cfg, char *path, size_t n, char *err, size_t errlen)
{
    int fds[2];
    if (pipe(fds))
        return tm_errf(TM_ERR_IO, err, errlen, "cannot create a pipe: %s", strerror(errno));
    char wpath[32], e[256];
    pfmt(wpath, sizeof wpath, "/dev/fd/%d", fds[1]);
    tm_bitbuf nobits;
    memset(&nobits, 0, sizeof nobits);
    uint64_t zeros[64] = {0};
    tmt_trailer tr = {0, zeros, TMT_COMPLETE, 0, TMT_PROG_UNKNOWN, 0};
    if (tmt_write(wpath, cfg, &nobits, &tr, e, sizeof e) != TM_OK)
        return tm_errf(TM_ERR_IO, err, errlen, "passing the configuration to the simulator: %s", e);
    close(fds[1]);
    pfmt(path, n, "/dev/fd/%d", fds[0]);
    return TM_OK;
}

int tm_cosim_exec(const char *sim, const tm_model_cfg *cfg, const tm_cosim_run *r, char *err, size_t errlen)
{
    char cfgpath[32];
    int rc = config_pipe(cfg, cfgpath, sizeof cfgpath, err, errlen);
    if (rc != TM_OK)
        return rc;
    char *sargv[16];
    int n = 0;
    sargv[n++] = (char *)sim;
    sargv[n++] = "--config";
    sargv[n++] = cfgpath;
    const char *pass[3][2] = {{"--wave", r->wave}, {"--cov", r->cov}, {"--inject-fault", r->inject}};
    for (int j = 0; j < 3; j++)
        if (pass[j][1]) {
            sargv[n++] = (char *)pass[j][0];
            sargv[n++] = (char *)pass[j][1];
        }
    if (r->quiet)
        sargv[n++] = "-q";
    sargv[n++] = "--"; /* IN may begin with '-' (tm cosim -- -x.tmc) */
    sargv[n++] = (char *)r->in;
    sargv[n] = NULL;
    execv(sim, sargv);
    return tm_errf(TM_ERR_IO, err, errlen, "cannot run %s: %s", sim, strerror(errno));
}
