/* tm study — the bandwidth study (docs/study.md).  The study's orchestration,
 * tables and figures are Python (study/tm_study.py, standard library plus
 * matplotlib); this subcommand runs it with this tm as the tool it drives:
 * TM_BIN is this executable, the script is ../../study/tm_study.py from it
 * (the build tree: build/bin/tm), or TM_STUDY_SCRIPT.  The interpreter is
 * Debian's /usr/bin/python3 (where make deps installs matplotlib), or
 * TM_PYTHON, or python3 on PATH if there is no /usr/bin/python3. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"

int cmd_study(int argc, char **argv)
{
    char self[PATH_MAX], script[PATH_MAX + 64];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) {
        tm_err("study", "cannot find this executable (/proc/self/exe): %s", strerror(errno));
        return 1;
    }
    self[k] = 0;
    const char *env = getenv("TM_STUDY_SCRIPT");
    if (env && *env) {
        snprintf(script, sizeof script, "%s", env);
    } else {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", self);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = 0;
        snprintf(script, sizeof script, "%s/../../study/tm_study.py", dir);
    }
    if (access(script, R_OK) != 0) {
        tm_err("study", "%s: %s (set TM_STUDY_SCRIPT to study/tm_study.py)", script, strerror(errno));
        return 1;
    }
    if (setenv("TM_BIN", self, 1) != 0) {
        tm_err("study", "setenv: %s", strerror(errno));
        return 1;
    }
    char **av = calloc((size_t)argc + 3, sizeof *av);
    if (!av) {
        tm_err("study", "out of memory");
        return 1;
    }
    const char *py = getenv("TM_PYTHON");
    if (!py || !*py)
        py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    av[0] = (char *)py;
    av[1] = script;
    for (int i = 1; i < argc; i++)
        av[i + 1] = argv[i];
    fflush(NULL);
    execvp(py, av);
    tm_err("study", "%s: %s (make deps installs it)", py, strerror(errno));
    free(av);
    return 1;
}
