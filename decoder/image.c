/* tm — the program's memory image from its ELF files (see image.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tm/image.h"
#include "tm/isa.h"
#include "tm/grow.h"
#include "tm/elf.h"
#include "tm/status.h"

typedef struct img_sym {
    uint64_t lo, hi;   /* [lo, hi) as the file's addresses; hi = lo when the size is unknown */
    const char *name;  /* in the file's string table */
} img_sym;

/* One file, mapped once however many entries of the map name it (the same
 * device and inode). */
typedef struct img_file {
    dev_t dev;
    ino_t ino;
    char *path;
    uint8_t *map;
    size_t len;
    int mmapped;
    int parsed;        /* syms and build_id are set */
    char build_id[160];
    img_sym *syms;     /* sorted, one per address */
    size_t nsyms, symcap;
} img_file;

typedef struct img_mod {
    const char *base;  /* basename of the file's path */
    uint64_t load;     /* address of file offset 0 */
    uint64_t bias;     /* run-time address - the file's address */
    size_t file;
} img_mod;

typedef struct img_seg {
    uint64_t lo, hi;
    const uint8_t *bytes; /* at lo */
    size_t mod;
} img_seg;

struct tm_image {
    img_file *files;
    size_t nfiles, filecap;
    img_mod *mods;
    size_t nmods, modcap;
    img_seg *segs;
    size_t nsegs, segcap;
    size_t last;
};

/* Limits of a module map (docs/capture.md §6): lines, distinct files and
 * distinct (file, load address) modules.  A program maps far fewer files; a
 * map beyond them is refused rather than read.  Memory goes with the
 * distinct files: a file named again is mapped and parsed once. */
#define MAX_ENTRIES 65536u
#define MAX_FILES 4096u

static int cmp_seg(const void *a, const void *b)
{
    const img_seg *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_sym(const void *a, const void *b)
{
    const img_sym *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    /* sized symbols first, then by name for determinism */
    if ((x->hi > x->lo) != (y->hi > y->lo))
        return x->hi > x->lo ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Opens PATH: only a regular, non-empty file (a FIFO or a device is
 * refused without blocking); its identity in *ST. */
static int open_file(const char *path, struct stat *st, char *err, size_t n)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_size <= 0) {
        snprintf(err, n, "%s: not a regular, non-empty file", path);
        close(fd);
        return -1;
    }
    return fd;
}

/* Maps the whole of the open file FD. */
static int map_file(int fd, const struct stat *st, img_file *m, char *err, size_t n)
{
    void *p = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, n, "%s: cannot map: %s", m->path, strerror(errno));
        return TM_ERR_IO;
    }
    m->map = p;
    m->len = (size_t)st->st_size;
    m->mmapped = 1;
    return TM_OK;
}

static int in_file(const img_file *m, uint64_t off, uint64_t len)
{
    return off <= m->len && len <= m->len - off;
}

/* One function symbol of the file (tm_elf_functions). */
static int add_sym(void *arg, const char *name, uint64_t value, uint64_t size)
{
    img_file *m = arg;
    if (TM_GROW(m->syms, m->symcap, m->nsyms + 1) != TM_OK)
        return 1;
    m->syms[m->nsyms++] = (img_sym){value, value + size, name};
    return 0;
}

/* The file's function symbols, at the file's addresses, sorted, one per
 * address (aliases: the first after sorting); its build-id as lowercase hex
 * ("" if none). */
static void parse_file(img_file *m, const tm_elf *e)
{
    uint8_t id[64];
    size_t idlen = tm_elf_build_id(e, id), k = 0;
    m->build_id[0] = '\0';
    for (size_t j = 0; j < idlen && k + 3 <= sizeof m->build_id; j++)
        k += (size_t)snprintf(m->build_id + k, sizeof m->build_id - k, "%02x", id[j]);
    if (tm_elf_functions(e, add_sym, m))
        m->nsyms = 0; /* out of memory: no symbols */
    if (m->nsyms)
        qsort(m->syms, m->nsyms, sizeof *m->syms, cmp_sym);
    k = 0;
    for (size_t j = 0; j < m->nsyms; j++)
        if (!k || m->syms[k - 1].lo != m->syms[j].lo)
            m->syms[k++] = m->syms[j];
    m->nsyms = k;
    m->parsed = 1;
}

static int add_seg(tm_image *im, uint64_t lo, uint64_t hi, const uint8_t *bytes, size_t mod)
{
    if (TM_GROW(im->segs, im->segcap, im->nsegs + 1) != TM_OK)
        return TM_ERR_NOMEM;
    im->segs[im->nsegs++] = (img_seg){lo, hi, bytes, mod};
    return TM_OK;
}

/* Module IDX (its file mapped): checks the build-id, places the executable
 * segments. */
static int load_module(tm_image *im, size_t idx, const char *want_id, int ignore_id, int isa, const char *where,
                       char *err, size_t n)
{
    img_mod *md = &im->mods[idx];
    img_file *m = &im->files[md->file];
    tm_elf e;
    if (tm_elf_from_bytes(&e, m->map, m->len) != TM_OK) {
        snprintf(err, n, "%s: %s is not an ELF file for %s", where, m->path, tm_isa_name(isa));
        return TM_ERR_FORMAT;
    }
    if (tm_elf_isa(&e) != isa) { /* the module map of another program, or a file replaced */
        snprintf(err, n, "%s: %s is an ELF file for %s, but the trace's program is for %s", where, m->path,
                 tm_isa_name(tm_elf_isa(&e)), tm_isa_name(isa));
        return TM_ERR_FORMAT;
    }
    if (!m->parsed)
        parse_file(m, &e);
    const char *id = m->build_id;
    if (want_id && strcmp(want_id, "-") && strcasecmp(want_id, id) && !ignore_id) {
        snprintf(err, n, "%s: %s has GNU build-id %s, but the recording ran build-id %s: the wrong binary "
                         "(--ignore-build-id replays it anyway)",
                 where, m->path, id[0] ? id : "(none)", want_id);
        return TM_ERR_MISMATCH;
    }
    /* bias: the recording names where file offset 0 went */
    uint64_t vaddr0 = 0;
    if (!tm_elf_vaddr0(&e, &vaddr0)) {
        snprintf(err, n, "%s: %s has no loadable segment", where, m->path);
        return TM_ERR_FORMAT;
    }
    md->bias = md->load - vaddr0;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m->map;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(m->map + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || !ph[i].p_filesz)
            continue;
        if (!in_file(m, ph[i].p_offset, ph[i].p_filesz)) {
            snprintf(err, n, "%s: %s: a segment lies beyond the end of the file", where, m->path);
            return TM_ERR_FORMAT;
        }
        uint64_t lo = ph[i].p_vaddr + md->bias;
        if (add_seg(im, lo, lo + ph[i].p_filesz, m->map + ph[i].p_offset, idx) != TM_OK) {
            snprintf(err, n, "out of memory");
            return TM_ERR_NOMEM;
        }
    }
    return TM_OK;
}

/* Undoes the module map's escapes in place (docs/capture.md §6: \\, \n,
 * \xNN); -1 for a bad escape. */
static int unescape(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        p++;
        if (*p == '\\')
            *o++ = '\\';
        else if (*p == 'n')
            *o++ = '\n';
        else if (*p == 'x' && p[1] && p[2] && strchr("0123456789abcdefABCDEF", p[1]) &&
                 strchr("0123456789abcdefABCDEF", p[2])) {
            char h[3] = {p[1], p[2], 0};
            unsigned v = (unsigned)strtoul(h, NULL, 16);
            if (!v)
                return -1;
            *o++ = (char)v;
            p += 2;
        } else {
            return -1;
        }
    }
    *o = 0;
    return 0;
}

/* The file of PATH, mapped once: its index in im->files, or -1 (ERR set). */
static long file_of(tm_image *im, const char *path, char *err, size_t n, int *rc)
{
    struct stat st;
    int fd = open_file(path, &st, err, n);
    if (fd < 0) {
        *rc = TM_ERR_IO;
        return -1;
    }
    for (size_t i = 0; i < im->nfiles; i++)
        if (im->files[i].dev == st.st_dev && im->files[i].ino == st.st_ino) {
            close(fd);
            return (long)i;
        }
    if (im->nfiles >= MAX_FILES) {
        close(fd);
        snprintf(err, n, "more than %u distinct files: not a module map of a recording", MAX_FILES);
        *rc = TM_ERR_FORMAT;
        return -1;
    }
    if (TM_GROW(im->files, im->filecap, im->nfiles + 1) != TM_OK) {
        close(fd);
        snprintf(err, n, "out of memory");
        *rc = TM_ERR_NOMEM;
        return -1;
    }
    img_file *f = &im->files[im->nfiles];
    memset(f, 0, sizeof *f);
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    if (!(f->path = strdup(path))) {
        close(fd);
        snprintf(err, n, "out of memory");
        *rc = TM_ERR_NOMEM;
        return -1;
    }
    im->nfiles++;
    if ((*rc = map_file(fd, &st, f, err, n)) != TM_OK)
        return -1;
    return (long)(im->nfiles - 1);
}

int tm_image_load(const tm_image_opts *o, tm_image **out, char *err, size_t n)
{
    *out = NULL;
    struct stat st;
    int fd = open_file(o->modules, &st, err, n);
    if (fd < 0) {
        size_t k = strlen(err);
        snprintf(err + k, n - k, " (the module map that tm record writes next to the trace)");
        return TM_ERR_IO;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        snprintf(err, n, "%s: %s", o->modules, strerror(errno));
        return TM_ERR_IO;
    }
    if (o->vdso) {
        struct stat vs;
        int vfd = open_file(o->vdso, &vs, err, n);
        if (vfd < 0) {
            fclose(f);
            size_t k = strlen(err);
            snprintf(err + k, n - k, " (--vdso: the vdso's bytes that tm record writes as BASE.vdso)");
            return TM_ERR_IO;
        }
        close(vfd);
    }
    tm_image *im = calloc(1, sizeof *im);
    if (!im) {
        fclose(f);
        snprintf(err, n, "out of memory");
        return TM_ERR_NOMEM;
    }
    char line[4 * 4096 + 64];
    unsigned lineno = 0;
    int rc = TM_OK;
    while (rc == TM_OK && fgets(line, sizeof line, f)) {
        lineno++;
        char where[600];
        snprintf(where, sizeof where, "%.500s:%u", o->modules, lineno);
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            snprintf(err, n, "%s: line longer than %zu bytes: not a module map", where, sizeof line - 2);
            rc = TM_ERR_FORMAT;
            break;
        }
        if (lineno > MAX_ENTRIES) {
            snprintf(err, n, "%s: more than %u entries: not a module map of a recording", where, MAX_ENTRIES);
            rc = TM_ERR_FORMAT;
            break;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (!len || line[0] == '#')
            continue;
        char *sp1 = strchr(line, ' ');
        char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
        char *end;
        errno = 0;
        unsigned long long load = strtoull(line, &end, 16);
        if (!sp2 || end != sp1 || errno || !sp2[1]) {
            snprintf(err, n, "%s: expected \"0xADDRESS BUILD-ID PATH\"", where);
            rc = TM_ERR_FORMAT;
            break;
        }
        *sp1 = *sp2 = '\0';
        char *id = sp1 + 1, *path = sp2 + 1;
        if (unescape(path)) {
            snprintf(err, n, "%s: a bad escape in the path (allowed \\\\, \\n, \\xNN)", where);
            rc = TM_ERR_FORMAT;
            break;
        }
        int vdso = !strcmp(path, "[vdso]");
        if (vdso && !o->vdso)
            continue; /* nothing recorded, nothing ran there */
        char why[600];
        long fi = file_of(im, vdso ? o->vdso : path, why, sizeof why, &rc);
        if (fi < 0) {
            snprintf(err, n, "%s: %s", where, why);
            break;
        }
        int dup = 0;
        for (size_t i = 0; i < im->nmods && !dup; i++)
            dup = im->mods[i].file == (size_t)fi && im->mods[i].load == load;
        if (dup)
            continue; /* the same file at the same place: nothing new */
        if (im->nmods >= MAX_FILES) {
            snprintf(err, n, "%s: more than %u modules at distinct places: not a module map of a recording", where,
                     MAX_FILES);
            rc = TM_ERR_FORMAT;
            break;
        }
        if (TM_GROW(im->mods, im->modcap, im->nmods + 1) != TM_OK) {
            snprintf(err, n, "out of memory");
            rc = TM_ERR_NOMEM;
            break;
        }
        img_mod *m = &im->mods[im->nmods++];
        memset(m, 0, sizeof *m);
        m->file = (size_t)fi;
        const char *fp = im->files[fi].path;
        const char *slash = strrchr(fp, '/');
        m->base = vdso ? "[vdso]" : slash ? slash + 1 : fp;
        m->load = load;
        rc = load_module(im, im->nmods - 1, vdso ? NULL : id, o->ignore_build_id, o->isa, where, err, n);
    }
    if (rc == TM_OK && ferror(f)) {
        snprintf(err, n, "%s: read error", o->modules);
        rc = TM_ERR_IO;
    }
    fclose(f);
    if (rc == TM_OK && !im->nsegs) {
        snprintf(err, n, "%s: no module with executable code", o->modules);
        rc = TM_ERR_FORMAT;
    }
    if (rc != TM_OK) {
        tm_image_free(im);
        return rc;
    }
    qsort(im->segs, im->nsegs, sizeof *im->segs, cmp_seg);
    *out = im;
    return TM_OK;
}

void tm_image_free(tm_image *im)
{
    if (!im)
        return;
    for (size_t i = 0; i < im->nfiles; i++) {
        if (im->files[i].mmapped)
            munmap(im->files[i].map, im->files[i].len);
        free(im->files[i].path);
        free(im->files[i].syms);
    }
    free(im->files);
    free(im->mods);
    free(im->segs);
    free(im);
}

/* The segment holding ADDR, or -1. */
/* The number of the N elements of V (STRIDE bytes each, sorted by a first
 * member `uint64_t lo`) whose lo is <= A. */
static size_t count_lo_le(const void *v, size_t n, size_t stride, uint64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint64_t x;
        memcpy(&x, (const char *)v + mid * stride, sizeof x);
        if (x <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

_Static_assert(offsetof(img_seg, lo) == 0 && offsetof(img_sym, lo) == 0, "count_lo_le reads lo first");

static long find_seg(tm_image *im, uint64_t addr)
{
    const img_seg *s = &im->segs[im->last];
    if (addr >= s->lo && addr < s->hi)
        return (long)im->last;
    size_t lo = count_lo_le(im->segs, im->nsegs, sizeof *im->segs, addr);
    /* segments may overlap (a module listed twice): look back a little */
    for (size_t k = lo; k > 0 && lo - k < 8; k--) {
        s = &im->segs[k - 1];
        if (addr >= s->lo && addr < s->hi) {
            im->last = k - 1;
            return (long)(k - 1);
        }
    }
    return -1;
}

const uint8_t *tm_image_code(tm_image *im, uint64_t addr, size_t *avail)
{
    long i = find_seg(im, addr);
    if (i < 0)
        return NULL;
    const img_seg *s = &im->segs[i];
    *avail = (size_t)(s->hi - addr);
    return s->bytes + (addr - s->lo);
}

const char *tm_image_symbol(tm_image *im, uint64_t addr, const char **module, uint64_t *off, uint64_t *lo_out,
                            uint64_t *hi_out)
{
    long i = find_seg(im, addr);
    *module = NULL;
    *off = addr;
    if (lo_out)
        *lo_out = addr;
    if (hi_out)
        *hi_out = addr + 1;
    if (i < 0)
        return NULL;
    const img_seg *sg = &im->segs[i];
    img_mod *md = &im->mods[sg->mod];
    img_file *m = &im->files[md->file];
    *module = md->base;
    *off = addr - md->load;
    /* greatest symbol start <= addr (symbols at the file's addresses) */
    uint64_t a = addr - md->bias;
    size_t lo = count_lo_le(m->syms, m->nsyms, sizeof *m->syms, a);
    uint64_t next = lo < m->nsyms ? m->syms[lo].lo + md->bias : sg->hi;
    if (next > sg->hi)
        next = sg->hi;
    if (lo > 0) {
        const img_sym *s = &m->syms[lo - 1];
        uint64_t slo = s->lo + md->bias, shi = s->hi + md->bias;
        if (addr < shi || s->hi == s->lo) {
            *off = addr - slo;
            if (lo_out)
                *lo_out = slo > sg->lo ? slo : sg->lo;
            if (hi_out)
                *hi_out = shi > slo && shi < next ? shi : next;
            return s->name;
        }
        if (lo_out)
            *lo_out = shi > sg->lo ? shi : sg->lo;
    } else if (lo_out) {
        *lo_out = sg->lo;
    }
    if (hi_out)
        *hi_out = next;
    return NULL;
}

int tm_image_segments(const tm_image *im, int (*fn)(void *arg, const char *path, uint64_t offset, uint64_t size,
                                                    uint64_t vaddr),
                      void *arg)
{
    for (size_t i = 0; i < im->nsegs; i++) {
        const img_seg *s = &im->segs[i];
        const img_file *f = &im->files[im->mods[s->mod].file];
        int rc = fn(arg, f->path, (uint64_t)(s->bytes - f->map), s->hi - s->lo, s->lo);
        if (rc)
            return rc;
    }
    return 0;
}
