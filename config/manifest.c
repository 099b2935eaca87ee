/* tm — the manifest of named configurations (include/tm/manifest.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/manifest.h"
#include "tm/tmc.h"

struct tm_manifest {
    tm_mf_entry *e;
    size_t n, cap;
    char *path;
};

static void seterr(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

static void entry_free(tm_mf_entry *e)
{
    free((char *)e->name);
    free((char *)e->tiers);
    free((char *)e->stream);
    free((char *)e->module);
    for (int i = 0; i < e->argc; i++)
        free(e->argv[i]);
    free(e->argv);
}

void tm_manifest_free(tm_manifest *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        entry_free(&m->e[i]);
    free(m->e);
    free(m->path);
    free(m);
}

size_t tm_manifest_count(const tm_manifest *m) { return m ? m->n : 0; }

const tm_mf_entry *tm_manifest_entry(const tm_manifest *m, size_t i) { return m && i < m->n ? &m->e[i] : NULL; }

const tm_mf_entry *tm_manifest_find(const tm_manifest *m, const char *name)
{
    for (size_t i = 0; m && i < m->n; i++)
        if (!strcmp(m->e[i].name, name))
            return &m->e[i];
    return NULL;
}

int tm_mf_in_tiers(const tm_mf_entry *e, const char *tiers)
{
    const char *q = tiers;
    while (*q) {
        size_t ql = strcspn(q, ",");
        const char *t = e->tiers;
        while (*t) {
            size_t tl = strcspn(t, ",");
            if (tl == ql && ql && !strncmp(t, q, ql))
                return 1;
            t += tl + (t[tl] == ',');
        }
        q += ql + (q[ql] == ',');
    }
    return 0;
}

#define MAXW 128    /* words of a line */
#define MAXG 16     /* brace groups of a line */
#define MAXC 32     /* choices of a group */
#define MAXCOMB 4096 /* entries one line may stand for */

/* One brace group: the word it is in, the text before and after it, and
 * its choices (pointers into a copy of the word). */
typedef struct group {
    int word;
    char *pre, *post;
    char *choice[MAXC];
    int nchoice;
} group;

static int add_entry(tm_manifest *m, tm_mf_entry *e)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        tm_mf_entry *ne = realloc(m->e, cap * sizeof *ne);
        if (!ne)
            return TM_ERR_NOMEM;
        m->e = ne;
        m->cap = cap;
    }
    m->e[m->n++] = *e;
    return TM_OK;
}

/* Parses one logical line (its words W[0..NW)) at LINE. */
static int parse_line(tm_manifest *m, char **w, int nw, unsigned line, char *err, size_t errlen)
{
    const char *path = m->path;
    if (nw < 3) {
        seterr(err, errlen, "%s:%u: expected 'config NAME TIERS N STREAM OPTION...' or "
                            "'module NAME TIERS MODULE PARAM=VALUE...'", path, line);
        return TM_ERR_FORMAT;
    }
    tm_mf_kind kind;
    if (!strcmp(w[0], "config"))
        kind = TM_MF_CONFIG;
    else if (!strcmp(w[0], "module"))
        kind = TM_MF_MODULE;
    else {
        seterr(err, errlen, "%s:%u: '%s': a line begins with config or module", path, line, w[0]);
        return TM_ERR_FORMAT;
    }
    int fixed = kind == TM_MF_CONFIG ? 5 : 4; /* words before the options/parameters */
    if (nw < fixed) {
        seterr(err, errlen, "%s:%u: %s %s: expected %s", path, line, w[0], w[1],
               kind == TM_MF_CONFIG ? "NAME TIERS N STREAM OPTION..." : "NAME TIERS MODULE PARAM=VALUE...");
        return TM_ERR_FORMAT;
    }
    for (const char *p = w[1]; *p; p++)
        if (!(*p == '-' || *p == '_' || *p == '.' || *p == '+' || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) {
            seterr(err, errlen, "%s:%u: name '%s': letters, digits and - _ . + only", path, line, w[1]);
            return TM_ERR_FORMAT;
        }
    if (strchr(w[2], '{') || w[2][0] == ',' || strstr(w[2], ",,")) {
        seterr(err, errlen, "%s:%u: %s: tiers '%s': a comma-separated list of names", path, line, w[1], w[2]);
        return TM_ERR_FORMAT;
    }
    /* the brace groups of the words after TIERS */
    group g[MAXG];
    int ng = 0, rc = TM_OK;
    char *copies[MAXW] = {0};
    for (int i = 3; i < nw && rc == TM_OK; i++) {
        char *o = strchr(w[i], '{');
        if (!o)
            continue;
        char *c = strchr(o, '}');
        char *o2 = strchr(o + 1, '{');
        if (!c || (o2 && o2 < c) || strchr(c + 1, '{') || strchr(c + 1, '}')) {
            seterr(err, errlen, "%s:%u: '%s': one group {a,b,...} per word, closed, not nested", path, line, w[i]);
            rc = TM_ERR_FORMAT;
            break;
        }
        if (ng == MAXG) {
            seterr(err, errlen, "%s:%u: more than %d groups {...} on a line", path, line, MAXG);
            rc = TM_ERR_FORMAT;
            break;
        }
        copies[i] = strdup(w[i]);
        if (!copies[i]) {
            rc = TM_ERR_NOMEM;
            break;
        }
        char *co = copies[i] + (o - w[i]), *cc = copies[i] + (c - w[i]);
        *co = '\0';
        *cc = '\0';
        group *gr = &g[ng++];
        gr->word = i;
        gr->pre = copies[i];
        gr->post = cc + 1;
        gr->nchoice = 0;
        char *s = co + 1;
        for (;;) {
            if (gr->nchoice == MAXC) {
                seterr(err, errlen, "%s:%u: '%s': more than %d choices", path, line, w[i], MAXC);
                rc = TM_ERR_FORMAT;
                break;
            }
            char *comma = strchr(s, ',');
            gr->choice[gr->nchoice++] = s;
            if (!comma)
                break;
            *comma = '\0';
            s = comma + 1;
        }
    }
    long total = 1;
    for (int k = 0; k < ng && rc == TM_OK; k++) {
        total *= g[k].nchoice;
        if (total > MAXCOMB) {
            seterr(err, errlen, "%s:%u: %s stands for more than %d entries", path, line, w[1], MAXCOMB);
            rc = TM_ERR_FORMAT;
        }
    }
    int idx[MAXG] = {0};
    for (long comb = 0; comb < total && rc == TM_OK; comb++) {
        /* idx: the choice of each group, the last one varying fastest */
        long r = comb;
        for (int k = ng - 1; k >= 0; k--) {
            idx[k] = (int)(r % g[k].nchoice);
            r /= g[k].nchoice;
        }
        char name[512];
        size_t nl = (size_t)snprintf(name, sizeof name, "%s", w[1]);
        tm_mf_entry e;
        memset(&e, 0, sizeof e);
        e.kind = kind;
        e.file = m->path;
        e.line = line;
        char *words[MAXW];
        int nwords = 0;
        for (int i = 3; i < nw && rc == TM_OK; i++) {
            int gk = -1;
            for (int k = 0; k < ng; k++)
                if (g[k].word == i)
                    gk = k;
            char *word;
            if (gk < 0) {
                word = strdup(w[i]);
            } else {
                const char *ch = g[gk].choice[idx[gk]];
                size_t a = strlen(g[gk].pre), b = strlen(ch), c = strlen(g[gk].post);
                word = malloc(a + b + c + 1);
                if (word) {
                    memcpy(word, g[gk].pre, a);
                    memcpy(word + a, ch, b);
                    memcpy(word + a + b, g[gk].post, c + 1);
                }
                if (*ch) {
                    const char *sfx = ch;
                    while (*sfx == '-')
                        sfx++;
                    int nfield = kind == TM_MF_CONFIG && i == 3;
                    int w_ = snprintf(name + nl, nl < sizeof name ? sizeof name - nl : 0, "-%s%s",
                                      nfield ? "n" : "", sfx);
                    nl += w_ > 0 ? (size_t)w_ : 0;
                }
            }
            if (!word) {
                rc = TM_ERR_NOMEM;
                break;
            }
            if (!*word && i >= fixed) { /* an empty option word is dropped */
                free(word);
                continue;
            }
            words[nwords++] = word;
        }
        if (rc == TM_OK && nl >= sizeof name) {
            seterr(err, errlen, "%s:%u: a name of %s is too long", path, line, w[1]);
            rc = TM_ERR_FORMAT;
        }
        if (rc == TM_OK && tm_manifest_find(m, name)) {
            const tm_mf_entry *o = tm_manifest_find(m, name);
            seterr(err, errlen, "%s:%u: name '%s' is already used on line %u", path, line, name, o->line);
            rc = TM_ERR_FORMAT;
        }
        if (rc == TM_OK) {
            int nf = fixed - 3; /* words of the fixed fields after TIERS */
            for (int k = 0; k < nf && rc == TM_OK; k++)
                if (!*words[k]) {
                    seterr(err, errlen, "%s:%u: %s: an empty field", path, line, name);
                    rc = TM_ERR_FORMAT;
                }
            if (rc == TM_OK && kind == TM_MF_CONFIG) {
                const char *nv = words[0];
                if (!strcmp(nv, "-"))
                    e.threads = 0;
                else {
                    char *end;
                    errno = 0;
                    unsigned long t = strtoul(nv, &end, 10);
                    if (*end || nv[0] < '0' || nv[0] > '9' || errno || t < 1 || t > TMC_MAX_THREADS) {
                        seterr(err, errlen, "%s:%u: %s: N '%s': a thread count 1..%u or '-'", path, line, name, nv,
                               TMC_MAX_THREADS);
                        rc = TM_ERR_FORMAT;
                    }
                    e.threads = (uint32_t)t;
                }
                e.stream = words[1];
                words[1] = NULL;
            } else if (rc == TM_OK) {
                e.module = words[0];
                words[0] = NULL;
                for (int k = 1; k < nwords && rc == TM_OK; k++) {
                    const char *eq = strchr(words[k], '=');
                    if (!eq || eq == words[k] || !eq[1]) {
                        seterr(err, errlen, "%s:%u: %s: '%s': a parameter is NAME=VALUE", path, line, name,
                               words[k]);
                        rc = TM_ERR_FORMAT;
                    }
                }
            }
        }
        if (rc == TM_OK) {
            e.name = strdup(name);
            e.tiers = strdup(w[2]);
            int first = kind == TM_MF_CONFIG ? 2 : 1;
            e.argc = nwords - first;
            e.argv = calloc((size_t)e.argc + 1, sizeof *e.argv);
            if (!e.name || !e.tiers || !e.argv)
                rc = TM_ERR_NOMEM;
            for (int k = first; k < nwords && rc == TM_OK; k++) {
                e.argv[k - first] = words[k];
                words[k] = NULL;
            }
        }
        for (int k = 0; k < nwords; k++)
            free(words[k]);
        if (rc == TM_OK)
            rc = add_entry(m, &e);
        if (rc != TM_OK)
            entry_free(&e);
    }
    for (int i = 0; i < MAXW; i++)
        free(copies[i]);
    if (rc == TM_ERR_NOMEM)
        seterr(err, errlen, "%s:%u: out of memory", path, line);
    return rc;
}

int tm_manifest_load(const char *path, tm_manifest **out, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "re");
    if (!f) {
        seterr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return TM_ERR_IO;
    }
    tm_manifest *m = calloc(1, sizeof *m);
    if (!m || !(m->path = strdup(path))) {
        free(m);
        fclose(f);
        seterr(err, errlen, "%s: out of memory", path);
        return TM_ERR_NOMEM;
    }
    char *buf = NULL, *text = NULL;
    size_t cap = 0, tlen = 0, tcap = 0;
    ssize_t len;
    unsigned lineno = 0, start = 0;
    int rc = TM_OK;
    for (;;) {
        len = getline(&buf, &cap, f);
        if (len < 0)
            break;
        lineno++;
        if (memchr(buf, '\0', (size_t)len)) {
            seterr(err, errlen, "%s:%u: a NUL byte: not a text file", path, lineno);
            rc = TM_ERR_FORMAT;
            break;
        }
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        char *hash = strchr(buf, '#');
        if (hash) {
            *hash = '\0';
            len = hash - buf;
        }
        int cont = len > 0 && buf[len - 1] == '\\';
        if (cont)
            buf[--len] = ' ';
        if (!tlen)
            start = lineno;
        if (tlen + (size_t)len + 2 > tcap) {
            size_t nc = (tlen + (size_t)len + 2) * 2;
            char *nt = realloc(text, nc);
            if (!nt) {
                rc = TM_ERR_NOMEM;
                seterr(err, errlen, "%s:%u: out of memory", path, lineno);
                break;
            }
            text = nt;
            tcap = nc;
        }
        memcpy(text + tlen, buf, (size_t)len);
        tlen += (size_t)len;
        text[tlen++] = ' ';
        text[tlen] = '\0';
        if (cont)
            continue;
        char *w[MAXW];
        int nw = 0;
        char *save = NULL;
        for (char *tok = strtok_r(text, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (nw == MAXW) {
                seterr(err, errlen, "%s:%u: more than %d words", path, start, MAXW);
                rc = TM_ERR_FORMAT;
                break;
            }
            w[nw++] = tok;
        }
        if (rc == TM_OK && nw)
            rc = parse_line(m, w, nw, start, err, errlen);
        tlen = 0;
        if (rc != TM_OK)
            break;
    }
    if (rc == TM_OK && ferror(f)) {
        seterr(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        rc = TM_ERR_IO;
    }
    if (rc == TM_OK && tlen) {
        seterr(err, errlen, "%s:%u: the last line ends in a backslash", path, lineno);
        rc = TM_ERR_FORMAT;
    }
    free(buf);
    free(text);
    fclose(f);
    if (rc != TM_OK) {
        tm_manifest_free(m);
        return rc;
    }
    *out = m;
    return TM_OK;
}
