/* tm — the manifest of named configurations (include/tm/manifest.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
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
/* A line's parse: its words, kind and brace groups. */
typedef struct line_ctx {
    tm_manifest *m;
    char **w;
    int nw;
    unsigned line;
    tm_mf_kind kind;
    int fixed;               /* words before the options/parameters */
    group g[MAXG];
    int ng;
    char *copies[MAXW];      /* the group words, split at their braces */
    char *err;
    size_t errlen;
} line_ctx;

/* The words NAME and TIERS of L, and its kind: TM_OK, or an error. */
static int line_head(line_ctx *L)
{
    char **w = L->w;
    int nw = L->nw;
    unsigned line = L->line;
    char *err = L->err;
    size_t errlen = L->errlen;
    const char *path = L->m->path;
    if (nw < 3) {
        seterr(err, errlen, "%s:%u: expected 'config NAME TIERS N STREAM OPTION...' or "
                            "'module NAME TIERS MODULE PARAM=VALUE...'", path, line);
        return TM_ERR_FORMAT;
    }
    if (!strcmp(w[0], "config"))
        L->kind = TM_MF_CONFIG;
    else if (!strcmp(w[0], "module"))
        L->kind = TM_MF_MODULE;
    else {
        seterr(err, errlen, "%s:%u: '%s': a line begins with config or module", path, line, w[0]);
        return TM_ERR_FORMAT;
    }
    L->fixed = L->kind == TM_MF_CONFIG ? 5 : 4;
    if (nw < L->fixed) {
        seterr(err, errlen, "%s:%u: %s %s: expected %s", path, line, w[0], w[1],
               L->kind == TM_MF_CONFIG ? "NAME TIERS N STREAM OPTION..." : "NAME TIERS MODULE PARAM=VALUE...");
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
    return TM_OK;
}

/* The brace groups {a,b,...} of the words after TIERS into L->g: TM_OK, or
 * an error. */
static int line_groups(line_ctx *L)
{
    char **w = L->w;
    unsigned line = L->line;
    const char *path = L->m->path;
    char *err = L->err;
    size_t errlen = L->errlen;
    for (int i = 3; i < L->nw; i++) {
        char *o = strchr(w[i], '{');
        if (!o)
            continue;
        char *c = strchr(o, '}');
        char *o2 = strchr(o + 1, '{');
        if (!c || (o2 && o2 < c) || strchr(c + 1, '{') || strchr(c + 1, '}'))
            return seterr(err, errlen, "%s:%u: '%s': one group {a,b,...} per word, closed, not nested", path, line,
                          w[i]), TM_ERR_FORMAT;
        if (L->ng == MAXG)
            return seterr(err, errlen, "%s:%u: more than %d groups {...} on a line", path, line, MAXG), TM_ERR_FORMAT;
        if (!(L->copies[i] = strdup(w[i])))
            return TM_ERR_NOMEM;
        char *co = L->copies[i] + (o - w[i]), *cc = L->copies[i] + (c - w[i]);
        *co = '\0';
        *cc = '\0';
        group *gr = &L->g[L->ng++];
        gr->word = i;
        gr->pre = L->copies[i];
        gr->post = cc + 1;
        gr->nchoice = 0;
        char *s = co + 1;
        for (;;) {
            if (gr->nchoice == MAXC)
                return seterr(err, errlen, "%s:%u: '%s': more than %d choices", path, line, w[i], MAXC),
                       TM_ERR_FORMAT;
            char *comma = strchr(s, ',');
            gr->choice[gr->nchoice++] = s;
            if (!comma)
                break;
            *comma = '\0';
            s = comma + 1;
        }
    }
    return TM_OK;
}

/* The words after TIERS of the combination IDX (each group's choice) into
 * WORDS (*NWORDS; an empty option word dropped) and its NAME (*NL bytes,
 * may exceed the buffer: the caller checks): TM_OK or TM_ERR_NOMEM. */
static int line_words(const line_ctx *L, const int *idx, char **words, int *nwords, char *name, size_t *pnl)
{
    size_t nl = *pnl;
    for (int i = 3; i < L->nw; i++) {
        int gk = -1;
        for (int k = 0; k < L->ng; k++)
            if (L->g[k].word == i)
                gk = k;
        char *word;
        if (gk < 0) {
            word = strdup(L->w[i]);
        } else {
            const group *g = &L->g[gk];
            const char *ch = g->choice[idx[gk]];
            size_t a = strlen(g->pre), b = strlen(ch), c = strlen(g->post);
            word = malloc(a + b + c + 1);
            if (word) {
                memcpy(word, g->pre, a);
                memcpy(word + a, ch, b);
                memcpy(word + a + b, g->post, c + 1);
            }
            if (*ch) {
                const char *sfx = ch;
                while (*sfx == '-')
                    sfx++;
                int nfield = L->kind == TM_MF_CONFIG && i == 3;
                int w_ = snprintf(name + nl, nl < 512 ? 512 - nl : 0, "-%s%s", nfield ? "n" : "", sfx);
                nl += w_ > 0 ? (size_t)w_ : 0;
            }
        }
        if (!word) {
            *pnl = nl;
            return TM_ERR_NOMEM;
        }
        if (!*word && i >= L->fixed) { /* an empty option word is dropped */
            free(word);
            continue;
        }
        words[(*nwords)++] = word;
    }
    *pnl = nl;
    return TM_OK;
}

/* The fixed fields of entry E (NAME) from WORDS: N and STREAM of a config,
 * MODULE and its NAME=VALUE parameters of a module.  TM_OK, or an error. */
static int line_fields(const line_ctx *L, const char *name, char **words, int nwords, tm_mf_entry *e)
{
    const char *path = L->m->path;
    unsigned line = L->line;
    for (int k = 0; k < L->fixed - 3; k++)
        if (!*words[k])
            return seterr(L->err, L->errlen, "%s:%u: %s: an empty field", path, line, name), TM_ERR_FORMAT;
    if (L->kind == TM_MF_CONFIG) {
        const char *nv = words[0];
        if (!strcmp(nv, "-")) {
            e->threads = 0;
        } else {
            char *end;
            errno = 0;
            unsigned long t = strtoul(nv, &end, 10);
            if (*end || nv[0] < '0' || nv[0] > '9' || errno || t < 1 || t > TMC_MAX_THREADS)
                return seterr(L->err, L->errlen, "%s:%u: %s: N '%s': a thread count 1..%u or '-'", path, line, name,
                              nv, TMC_MAX_THREADS), TM_ERR_FORMAT;
            e->threads = (uint32_t)t;
        }
        e->stream = words[1];
        words[1] = NULL;
        return TM_OK;
    }
    e->module = words[0];
    words[0] = NULL;
    for (int k = 1; k < nwords; k++) {
        const char *eq = strchr(words[k], '=');
        if (!eq || eq == words[k] || !eq[1])
            return seterr(L->err, L->errlen, "%s:%u: %s: '%s': a parameter is NAME=VALUE", path, line, name,
                          words[k]), TM_ERR_FORMAT;
    }
    return TM_OK;
}

/* The entry of combination IDX of L added to the manifest: TM_OK, or an
 * error. */
static int line_entry(line_ctx *L, const int *idx)
{
    char name[512];
    size_t nl = (size_t)snprintf(name, sizeof name, "%s", L->w[1]);
    tm_mf_entry e;
    memset(&e, 0, sizeof e);
    e.kind = L->kind;
    e.file = L->m->path;
    e.line = L->line;
    char *words[MAXW];
    int nwords = 0;
    int rc = line_words(L, idx, words, &nwords, name, &nl);
    if (rc == TM_OK && nl >= sizeof name) {
        seterr(L->err, L->errlen, "%s:%u: a name of %s is too long", L->m->path, L->line, L->w[1]);
        rc = TM_ERR_FORMAT;
    }
    if (rc == TM_OK && tm_manifest_find(L->m, name)) {
        const tm_mf_entry *o = tm_manifest_find(L->m, name);
        seterr(L->err, L->errlen, "%s:%u: name '%s' is already used on line %u", L->m->path, L->line, name, o->line);
        rc = TM_ERR_FORMAT;
    }
    if (rc == TM_OK)
        rc = line_fields(L, name, words, nwords, &e);
    if (rc == TM_OK) {
        e.name = strdup(name);
        e.tiers = strdup(L->w[2]);
        int first = L->kind == TM_MF_CONFIG ? 2 : 1;
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
        rc = add_entry(L->m, &e);
    if (rc != TM_OK)
        entry_free(&e);
    return rc;
}

static int parse_line(tm_manifest *m, char **w, int nw, unsigned line, char *err, size_t errlen)
{
    line_ctx *L = calloc(1, sizeof *L);
    if (!L)
        return seterr(err, errlen, "%s:%u: out of memory", m->path, line), TM_ERR_NOMEM;
    L->m = m;
    L->w = w;
    L->nw = nw;
    L->line = line;
    L->err = err;
    L->errlen = errlen;
    int rc = line_head(L);
    if (rc == TM_OK)
        rc = line_groups(L);
    long total = 1;
    for (int k = 0; k < L->ng && rc == TM_OK; k++) {
        total *= L->g[k].nchoice;
        if (total > MAXCOMB) {
            seterr(err, errlen, "%s:%u: %s stands for more than %d entries", m->path, line, w[1], MAXCOMB);
            rc = TM_ERR_FORMAT;
        }
    }
    int idx[MAXG] = {0};
    for (long comb = 0; comb < total && rc == TM_OK; comb++) {
        /* idx: the choice of each group, the last one varying fastest */
        long r = comb;
        for (int k = L->ng - 1; k >= 0; k--) {
            idx[k] = (int)(r % L->g[k].nchoice);
            r /= L->g[k].nchoice;
        }
        rc = line_entry(L, idx);
    }
    for (int i = 0; i < MAXW; i++)
        free(L->copies[i]);
    free(L);
    if (rc == TM_ERR_NOMEM)
        seterr(err, errlen, "%s:%u: out of memory", m->path, line);
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

int tm_mf_root(char *root, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return TM_ERR_IO;
    exe[len] = '\0';
    for (int up = 0; up < 6; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return TM_ERR_IO;
        *slash = '\0';
        char probe[PATH_MAX + 32];
        snprintf(probe, sizeof probe, "%s/rtl/tm_top.sv", exe);
        if (access(probe, R_OK) == 0)
            return (size_t)snprintf(root, n, "%s", exe) >= n ? TM_ERR_IO : TM_OK;
    }
    return TM_ERR_IO;
}
