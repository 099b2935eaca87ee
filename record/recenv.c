/* tm record's checks before the run (include/tm/record.h): the program,
 * the frontends' launchers and tools, the capture stream, the outputs'
 * lock; and the exit status after it.  Nothing here prints: every message
 * goes into the caller's buffer. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tm/capwire.h"
#include "tm/isa.h"
#include "tm/record.h"

int tm_rec_find_program(const char *name, char *path, size_t n)
{
    if (strchr(name, '/')) {
        snprintf(path, n, "%s", name);
        return access(path, F_OK);
    }
    const char *pathenv = getenv("PATH");
    if (!pathenv)
        pathenv = "/usr/local/bin:/usr/bin:/bin";
    while (*pathenv) {
        const char *e = strchr(pathenv, ':');
        size_t k = e ? (size_t)(e - pathenv) : strlen(pathenv);
        snprintf(path, n, "%.*s/%s", (int)k, k ? pathenv : ".", name);
        struct stat st;
        if (access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            return 0;
        pathenv += k + (e != NULL);
    }
    return -1;
}

/* The ISA of an ELF header H (a 64-bit little-endian file): TM_ISA_*, or
 * -1 for one tm traces with no frontend. */
static int elf_isa(const unsigned char *h)
{
    unsigned machine = (unsigned)h[18] | (unsigned)h[19] << 8;
    if (h[EI_CLASS] != ELFCLASS64 || h[EI_DATA] != ELFDATA2LSB)
        return -1;
    return machine == EM_X86_64 ? TM_ISA_X86_64 : machine == EM_AARCH64 ? TM_ISA_AARCH64
         : machine == EM_RISCV ? TM_ISA_RV64 : -1;
}

/* Whether the ELF file F (header H) has a PT_INTERP: a dynamic program. */
static int elf_dynamic(FILE *f, const unsigned char *h)
{
    Elf64_Ehdr e;
    memcpy(&e, h, sizeof e);
    for (unsigned i = 0; i < e.e_phnum && i < 4096; i++) {
        Elf64_Phdr ph;
        if (fseeko(f, (off_t)(e.e_phoff + (uint64_t)i * e.e_phentsize), SEEK_SET) || fread(&ph, sizeof ph, 1, f) != 1)
            return 0;
        if (ph.p_type == PT_INTERP)
            return 1;
    }
    return 0;
}

/* What FILE is: 0 an ELF executable that FE's frontend runs (*ISA its
 * instruction set, *DYN whether it is dynamic), 1 a #! script (its
 * interpreter in INTERP), or with the message -1 (not an executable at
 * all) or -2 (an ELF file of another class or machine). */
static int program_kind(const char *what, const char *file, const char *fe, int *isa, int *dyn, char *interp,
                        size_t n, char *err, size_t errlen)
{
    unsigned char h[256];
    memset(h, 0, sizeof h);
    FILE *f = fopen(file, "rbe");
    size_t got = f ? fread(h, 1, sizeof h - 1, f) : 0;
    if (got >= 2 && h[0] == '#' && h[1] == '!') {
        const char *p = (const char *)h + 2;
        while (*p == ' ' || *p == '\t')
            p++;
        size_t k = strcspn(p, " \t\n");
        snprintf(interp, n, "%.*s", (int)k, p);
        fclose(f);
        return 1;
    }
    if (got < sizeof(Elf64_Ehdr) || memcmp(h, ELFMAG, SELFMAG)) {
        if (f)
            fclose(f);
        return tm_errf(-1, err, errlen, "%s: not an ELF executable (nor a #! script)", file);
    }
    int qemu = !strcmp(fe, "qemu");
    int k = elf_isa(h);
    *dyn = k >= 0 && elf_dynamic(f, h);
    fclose(f);
    unsigned machine = (unsigned)h[18] | (unsigned)h[19] << 8;
    if (k < 0)
        return tm_errf(-2, err, errlen, "%s%s: a %s program; tm record traces 64-bit x86-64 (--frontend valgrind, pin), "
                    "AArch64 and RISC-V (--frontend qemu) programs only", what, file,
                    h[EI_CLASS] == ELFCLASS32 ? "32-bit" : machine == EM_X86_64 || machine == EM_AARCH64 ||
                    machine == EM_RISCV ? "big-endian" : "non-x86-64, non-AArch64, non-RISC-V");
    if (!qemu && k != TM_ISA_X86_64)
        return tm_errf(-2, err, errlen, "%s%s: a program for %s; --frontend %s traces x86-64 programs: give --frontend qemu",
                    what, file, tm_isa_name(k), fe);
    if (qemu && k == TM_ISA_X86_64)
        return tm_errf(-2, err, errlen, "%s%s: an x86-64 program; --frontend qemu traces AArch64 and RISC-V programs: "
                    "give --frontend valgrind or pin", what, file);
    *isa = k;
    return 0;
}

int tm_rec_check_program_fe(const char *prog, const char *fe, int *isa, int *dynamic, char *err, size_t errlen)
{
    char path[PATH_MAX];
    struct stat st;
    int isa0 = 0, dyn0 = 0;
    if (!isa)
        isa = &isa0;
    if (!dynamic)
        dynamic = &dyn0;
    if (tm_rec_find_program(prog, path, sizeof path) || stat(path, &st) != 0)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: no such program%s", prog, strchr(prog, '/') ? "" : " on PATH");
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return tm_errf(TM_ERR_ARG, err, errlen, "%s: not an executable file", path);
    char interp[256];
    int k = program_kind("", path, fe, isa, dynamic, interp, sizeof interp, err, errlen);
    if (k < 0)
        return k == -1 ? TM_ERR_ARG : TM_ERR_FORMAT;
    if (k == 1 && interp[0] == '/') { /* a script: its interpreter runs under the frontend */
        char why[PATH_MAX + 32];
        snprintf(why, sizeof why, "%.*s: its interpreter ", PATH_MAX, path);
        if (stat(interp, &st) != 0)
            return tm_errf(TM_ERR_FORMAT, err, errlen, "%s%s: no such file", why, interp);
        if (program_kind(why, interp, fe, isa, dynamic, interp, sizeof interp, err, errlen) != 0)
            return TM_ERR_FORMAT;
    } else if (k == 1 && !strcmp(fe, "qemu")) {
        return tm_errf(TM_ERR_FORMAT, err, errlen, "%s: a #! script whose interpreter %s is not a path: --frontend qemu "
                    "needs to know its instruction set", path, interp);
    }
    return TM_OK;
}

int tm_rec_check_program(const char *prog, char *err, size_t errlen)
{
    return tm_rec_check_program_fe(prog, "valgrind", NULL, NULL, err, errlen);
}

int tm_rec_script(const char *prog, char *interp, size_t n, char *arg, size_t an)
{
    char path[PATH_MAX];
    char h[256];
    if (tm_rec_find_program(prog, path, sizeof path))
        return 0;
    FILE *f = fopen(path, "rbe");
    size_t got = f ? fread(h, 1, sizeof h - 1, f) : 0;
    if (f)
        fclose(f);
    h[got] = 0;
    if (got < 2 || h[0] != '#' || h[1] != '!')
        return 0;
    /* as the kernel reads the line: the interpreter, then one optional
     * argument (the rest of the line, trailing blanks removed) */
    char *p = h + 2;
    p[strcspn(p, "\n")] = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t k = strcspn(p, " \t");
    snprintf(interp, n, "%.*s", (int)k, p);
    p += k;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t e = strlen(p);
    while (e && (p[e - 1] == ' ' || p[e - 1] == '\t'))
        e--;
    snprintf(arg, an, "%.*s", (int)e, p);
    return 1;
}

int tm_rec_qemu(const char *opt, int isa, char *path, size_t n, char *err, size_t errlen)
{
    const char *name = opt ? opt : isa == TM_ISA_AARCH64 ? "qemu-aarch64" : "qemu-riscv64";
    struct stat st;
    if (tm_rec_find_program(name, path, n) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
        access(path, X_OK) == 0)
        return TM_OK;
    if (opt)
        return tm_errf(TM_ERR_ARG, err, errlen, "--qemu %s: no such program%s", opt,
                    strchr(opt, '/') ? " (or not an executable file)" : " on PATH");
    return tm_errf(TM_ERR_ARG, err, errlen, "--frontend qemu: %s (for a program for %s) is not on PATH (install qemu-user, "
                "or give --qemu PATH)", name, tm_isa_name(isa));
}

const char *tm_rec_qemu_prefix(int isa, int dynamic)
{
    const char *env = getenv("QEMU_LD_PREFIX");
    if ((env && *env) || !dynamic)
        return NULL; /* QEMU reads it itself; a static program needs none */
    const char *dir = isa == TM_ISA_AARCH64 ? "/usr/aarch64-linux-gnu" : isa == TM_ISA_RV64 ? "/usr/riscv64-linux-gnu"
                                                                                              : NULL;
    struct stat st;
    return dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

/* An executable regular file: 1, else 0. */
static int is_exec_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

int tm_rec_valgrind(const char *name, char *path, size_t n, char *err, size_t errlen)
{
    if (tm_rec_find_program(name, path, n) == 0 && is_exec_file(path))
        return TM_OK;
    return tm_errf(TM_ERR_ARG, err, errlen, "--valgrind %s: no such program%s", name,
                strchr(name, '/') ? " (or not an executable file)" : " on PATH (install valgrind: make deps)");
}

/* <dir of tm>/../lib/SUB into OUT: 0, or -1. */
static int lib_dir(const char *sub, char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0)
        return -1;
    self[k] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    return snprintf(out, n, "%s/../lib/%s", self, sub) >= (int)n ? -1 : 0;
}

int tm_rec_tool_dir(char *out, size_t n, char *err, size_t errlen)
{
    const char *env = getenv("TM_VALGRIND_LIB");
    char tool[PATH_MAX + 32];
    int found;
    if (env && *env)
        snprintf(out, n, "%s", env);
    else if (lib_dir("valgrind", out, n))
        out = NULL;
    if (out)
        snprintf(tool, sizeof tool, "%s/tmtrace-amd64-linux", out);
    found = out && access(tool, X_OK) == 0;
    if (found)
        return TM_OK;
    return tm_errf(TM_ERR_IO, err, errlen,
                "the Valgrind tool tmtrace-amd64-linux is not built (run make; or set TM_VALGRIND_LIB)");
}

int tm_rec_pin_kit(const char *opt, char *out, size_t n, char *err, size_t errlen)
{
    static const char how[] = "give --pin PATH or set PIN_ROOT to a Pin 3.x kit folder";
    struct stat st;
    if (opt) {
        if (stat(opt, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (snprintf(out, n, "%s/pin", opt) < (int)n && is_exec_file(out))
                return TM_OK;
            return tm_errf(TM_ERR_ARG, err, errlen, "--pin %s: a folder without the pin launcher (%s/pin); give a Pin "
                                                 "3.x kit folder or its pin", opt, opt);
        }
        if (tm_rec_find_program(opt, out, n) == 0 && is_exec_file(out))
            return TM_OK;
        return tm_errf(TM_ERR_ARG, err, errlen, "--pin %s: no such program%s; give a Pin 3.x kit folder or its pin", opt,
                    strchr(opt, '/') ? " (or not an executable file)" : " on PATH");
    }
    const char *root = getenv("PIN_ROOT");
    if (!root || !*root)
        return tm_errf(TM_ERR_ARG, err, errlen, "--frontend pin: no Pin kit (%s)", how);
    if (snprintf(out, n, "%s/pin", root) < (int)n && is_exec_file(out))
        return TM_OK;
    return tm_errf(TM_ERR_ARG, err, errlen, "--frontend pin: PIN_ROOT=%s has no pin launcher (%s/pin); %s", root, root,
                how);
}

int tm_rec_qemu_plugin(char *out, size_t n, char *err, size_t errlen)
{
    const char *env = getenv("TM_QEMU_PLUGIN");
    if (env && *env)
        snprintf(out, n, "%s", env);
    else if (lib_dir("qemu/tm_qemu.so", out, n))
        snprintf(out, n, "build/lib/qemu/tm_qemu.so");
    if (strchr(out, ','))
        return tm_errf(TM_ERR_ARG, err, errlen, "the QEMU plugin's path %s has a comma (QEMU's -plugin splits there)",
                    out);
    if (access(out, R_OK) == 0)
        return TM_OK;
    return tm_errf(TM_ERR_IO, err, errlen, "the QEMU plugin %s is not built (run make; or set TM_QEMU_PLUGIN)", out);
}

int tm_rec_pin_tool(char *out, size_t n, char *err, size_t errlen)
{
    const char *env = getenv("TM_PIN_TOOL");
    if (env && *env)
        snprintf(out, n, "%s", env);
    else if (lib_dir("pin/tm_pin.so", out, n))
        snprintf(out, n, "build/lib/pin/tm_pin.so");
    if (access(out, R_OK) == 0)
        return TM_OK;
    return tm_errf(TM_ERR_IO, err, errlen,
                "the Pin tool %s is not built (run make pin PIN_ROOT=DIR; or set TM_PIN_TOOL)", out);
}

const char *tm_rec_signame(int s)
{
    const char *d = strsignal(s);
    return d ? d : "?";
}

/* rec_unlock removes the file while holding the lock: whoever opened it
 * meanwhile finds it replaced and tries again. */
int tm_rec_lock(const char *base, int *fd_out, char *err, size_t errlen)
{
    char p[PATH_MAX + 8];
    snprintf(p, sizeof p, "%s.lock", base);
    for (int tries = 0; tries < 100; tries++) {
        int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0)
            return tm_errf(TM_ERR_IO, err, errlen, "%s: cannot create the lock: %s", p, strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            char pid[32] = "";
            ssize_t k = pread(fd, pid, sizeof pid - 1, 0);
            pid[k > 0 ? k : 0] = 0;
            pid[strcspn(pid, "\n")] = 0;
            close(fd);
            return tm_errf(TM_ERR_STATE, err, errlen,
                        "%s: another tm record%s%s%s is writing these outputs (lock %s); refused", base,
                        *pid ? " (pid " : "", pid, *pid ? ")" : "", p);
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(p, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
            char pid[32];
            int k = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
            if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)k, 0) != k) {
                /* the pid is only informative */
            }
            *fd_out = fd;
            return TM_OK;
        }
        close(fd); /* the file was replaced while we waited: again */
    }
    return tm_errf(TM_ERR_STATE, err, errlen, "%s.lock: cannot take the lock", base);
}

void tm_rec_unlock(const char *base, int fd)
{
    char p[PATH_MAX + 8];
    if (fd < 0)
        return;
    snprintf(p, sizeof p, "%s.lock", base);
    unlink(p);
    close(fd);
}

int tm_rec_capture_open(const char *file, const char *name, uint8_t magic[8], int *fdp, char *err, size_t errlen)
{
    int fd = 0, rc = TM_ERR_FORMAT;
    *fdp = -1;
    if (!strcmp(file, "-")) {
        if (isatty(0))
            return tm_errf(TM_ERR_ARG, err, errlen, "--capture -: standard input is a terminal; give it a capture "
                                                 "stream (a file or a pipe)");
    } else if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0) {
        return tm_errf(TM_ERR_IO, err, errlen, "--capture %s: %s", file, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return tm_errf(TM_ERR_IO, err, errlen, "--capture %s: is a directory", file);
    }
    size_t got = 0;
    ssize_t n = 0;
    while (got < 8 && ((n = read(fd, magic + got, 8 - got)) > 0 || (n < 0 && errno == EINTR)))
        got += n > 0 ? (size_t)n : 0;
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--)
        w = w << 8 | magic[i];
    if (n < 0)
        rc = tm_errf(TM_ERR_IO, err, errlen, "%s: %s", name, strerror(errno));
    else if (got == 0)
        tm_errf(rc, err, errlen, "%s: empty: not a tm capture stream", name);
    else if (got < 8)
        tm_errf(rc, err, errlen, "%s: capture: offset 0: not a tm capture stream (%zu bytes, shorter than its magic)",
             name, got);
    else if (w == TMCAP_MAGIC1)
        tm_errf(rc, err, errlen, "%s: capture: offset 0: a capture stream of an older frontend (TM TCAP1): record it "
                "again", name);
    else if (w != TMCAP_MAGIC)
        tm_errf(rc, err, errlen, "%s: capture: offset 0: not a tm capture stream (bad magic)", name);
    else
        return *fdp = fd, TM_OK;
    if (fd)
        close(fd);
    return rc;
}

/* Nothing was captured: the frontend did not get as far as its tool; the
 * first line of its LOG says why, else its wait status WS. */
static int not_captured(const char *log, const char *frontend, int ws, char *msg, size_t msglen)
{
    FILE *lf = log ? fopen(log, "re") : NULL;
    char line[512] = "";
    while (lf && fgets(line, sizeof line, lf)) {
        line[strcspn(line, "\n")] = 0;
        if (*line)
            break;
    }
    if (lf)
        fclose(lf);
    const char *fe = strrchr(frontend, '/') ? strrchr(frontend, '/') + 1 : frontend;
    if (*line)
        tm_errf(0, msg, msglen, "%s: %s (%s)", fe, line, log);
    else
        tm_errf(0, msg, msglen, "%s produced no trace (it %s %d)", frontend,
             WIFEXITED(ws) ? "exited with status" : "was killed by signal", WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws));
    return WIFEXITED(ws) && WEXITSTATUS(ws) ? WEXITSTATUS(ws) : 1;
}

int tm_rec_program_status(const char *log, const char *frontend, const char *prog, int ws, int captured,
                          tmt_ending ending, const char *capture, char *msg, size_t msglen)
{
    tm_errf(0, msg, msglen, "%s", "");
    if (!captured)
        return not_captured(log, frontend, ws, msg, msglen);
    if (ending == TMT_CUT_SHORT && capture)
        return tm_errf(1, msg, msglen, "the capture was cut short: %s ends without the frontend's end marker; the "
                                    "recording up to there is written and says so", capture);
    if (ending == TMT_CUT_SHORT && WIFSIGNALED(ws))
        return tm_errf(128 + WTERMSIG(ws), msg, msglen, "the capture was cut short: %s was killed by signal %d (%s) "
                    "before the frontend's end marker; the recording up to there is written and says so",
                    prog, WTERMSIG(ws), tm_rec_signame(WTERMSIG(ws)));
    if (ending == TMT_CUT_SHORT)
        return tm_errf(1, msg, msglen, "the capture was cut short: the frontend's channel closed before the program's "
                    "end (exit status %d); the recording up to there is written and says so",
                    WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    if (WIFSIGNALED(ws))
        return tm_errf(128 + WTERMSIG(ws), msg, msglen, "%s was killed by signal %d (%s); the trace up to there is "
                    "written", prog, WTERMSIG(ws), tm_rec_signame(WTERMSIG(ws)));
    return 1;
}
