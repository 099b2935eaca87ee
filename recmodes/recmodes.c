/* tm record --mode: the thesis tools' descriptor outputs (recmodes.h;
 * docs/guide.md "tm record --mode").  Uses only libc and libtm, so that the
 * unit tests can include this file. */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "recmode_dis.h"
#include "tm/recmodes.h"

enum { RM_MCFTRACE, RM_MLSTRACE, RM_MCFTRAPTOR, RM_MLVCFIAT, RM_MODES };

static const char *const mode_names[RM_MODES] = {"mcftrace", "mlstrace", "mcftraptor", "mlvcfiat"};
/* The thesis's tool names: the default file names and the statistics. */
static const char *const tool_names[RM_MODES] = {"mcfTrace", "mlsTrace", "mcfTRaptor", "mlvCFiat"};

typedef struct compressor {
    const char *name, *suffix;
    const char *args[4]; /* after the program name: read stdin, write stdout */
} compressor;

static const compressor compressors[] = {
    {"gzip", ".gz", {"-c", NULL}},
    {"bzip2", ".bz2", {"-c", NULL}},
    {"pigz", ".gz", {"-c", NULL}},
    {"pbzip2", ".bz2", {"-c", NULL}},
    {"zstd", ".zst", {"-q", "-c", NULL}},
};
#define NCOMPRESSORS (sizeof compressors / sizeof compressors[0])


/* Type&Outcome codes of mcfTrace (Fig. 4.2, §4.1.1). */
enum { MCF_UI = 0, MCF_UD = 1, MCF_CDT = 2, MCF_CDNT = 3 };
/* Type byte of mcfTRaptor binary descriptors (Fig. 4.22; our codes). */
enum { TR_OUTCOME = 0, TR_TARGET = 1, TR_EXC = 2 };

#define OUTBUF (1u << 16)
/* An ASCII descriptor without its disassembly (the longest: mlsTrace's of
 * a 64-byte operand), and with it. */
#define LINE_MAX_TEXT 320
#define LINE_MAX_DIS (LINE_MAX_TEXT + 260)

/* -d in the hook modes: per thread, the records that name the instruction
 * of a message (its group's event and load, by cycle), and a descriptor
 * that waits for its record. */
typedef struct rm_thr {
    uint64_t ev_cycle, ev_pc, ld_cycle, ld_pc;
    uint8_t ev_ok, ld_ok;
    uint8_t pend;          /* 0 none, PEND_EV, PEND_LD */
    int ptype;             /* TR_* of a control descriptor, -1 for DATA */
    uint64_t pcycle;
    size_t plen;
    char pline[LINE_MAX_TEXT];
} rm_thr;
enum { PEND_EV = 1, PEND_LD = 2 };

struct tm_recmode {
    int mode, ascii, store;
    uint64_t limit;
    int full, failed;        /* failed: the first error's tm_status (0: none) */
    char err[512];
    char *path, *stats_path;
    char *tmp_path, *stats_tmp; /* written under these, renamed at a successful close */
    int fd, sock;            /* descriptor output; sock: a socket to the compressor */
    pid_t pid;               /* the compressor, 0 = none */
    const char *comp;
    FILE *sf;
    uint8_t *buf;
    size_t len;
    uint64_t bytes, descs;   /* uncompressed descriptor bytes, descriptors written */
    struct timespec t0;
    uint64_t skipped, instructions;
    uint32_t nthreads;       /* distinct thread ids started */
    uint8_t seen[TMC_MAX_THREADS / 8];
    /* mcftrace */
    uint64_t mcf[4];         /* by Type&Outcome */
    uint64_t exceptions;
    /* mlstrace */
    uint64_t loads[TM_SZ_CLASSES], stores[TM_SZ_CLASSES];
    uint64_t sys_writes;
    /* hook modes */
    uint64_t *pta;           /* per thread: previous target address (spec §3.4) */
    uint32_t threads;
    uint64_t dropped, dropped_data, overflow_syncs;
    uint64_t tr_desc[3];     /* mcftraptor descriptors by type */
    /* -d */
    int disasm;
    rm_dis *dis;
    rm_thr *thr;             /* hook modes: m->threads of them */
    uint64_t dis_unknown;    /* descriptors written with "(unknown)" */
};

/* ------------------------------------------------------------ helpers */

/* The first error: its status ST (a negative tm_status) and its line. */
static void fail(tm_recmode *m, int st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(tm_recmode *m, int st, const char *fmt, ...)
{
    if (m->failed)
        return;
    m->failed = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, sizeof m->err, fmt, ap);
    va_end(ap);
}

static int find_mode(const char *s)
{
    for (int k = 0; k < RM_MODES; k++)
        if (!strcasecmp(s, mode_names[k]))
            return k;
    return -1;
}

static const compressor *find_compressor(const char *s)
{
    for (size_t k = 0; k < NCOMPRESSORS; k++)
        if (!strcmp(s, compressors[k].name))
            return &compressors[k];
    return NULL;
}

int tm_recmode_known(const char *mode)
{
    return mode && find_mode(mode) >= 0;
}

int tm_recmode_compressor_known(const char *name)
{
    return name && find_compressor(name) != NULL;
}

int tm_recmode_needs_mem(const tm_recmode_cfg *c)
{
    int k = c && c->mode ? find_mode(c->mode) : -1;
    return k == RM_MLSTRACE || k == RM_MLVCFIAT;
}

int tm_recmode_needs_cfiat(const tm_recmode_cfg *c)
{
    return c && c->mode && find_mode(c->mode) == RM_MLVCFIAT;
}

/* ------------------------------------------------------------ output */

static int write_all(tm_recmode *m, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t k = m->sock ? send(m->fd, p, n, MSG_NOSIGNAL) : write(m->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (m->sock)
                fail(m, TM_ERR_IO, "%s: the compressor %s stopped reading: %s", m->path, m->comp,
                     k < 0 ? strerror(errno) : "no progress");
            else
                fail(m, TM_ERR_IO, "%s: %s", m->path, k < 0 ? strerror(errno) : "no progress");
            return m->failed;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int flush_buf(tm_recmode *m)
{
    if (!m->len || m->failed)
        return m->failed;
    int r = write_all(m, m->buf, m->len);
    m->len = 0;
    return r;
}

/* Appends one descriptor of N bytes: 1 written, 0 not (the limit, an
 * earlier error). */
static int emit(tm_recmode *m, const void *d, size_t n)
{
    if (m->full || m->failed)
        return 0;
    if (m->limit && m->bytes + n > m->limit) {
        m->full = 1;
        return 0;
    }
    if (m->len + n > OUTBUF && flush_buf(m))
        return 0;
    memcpy(m->buf + m->len, d, n);
    m->len += n;
    m->bytes += n;
    m->descs++;
    return 1;
}

/* Appends the ASCII descriptor LINE (N bytes, no newline): with -d, a
 * space and the disassembly of the instruction at PC (HAVE_PC: PC is
 * known; else "(unknown)"), then the newline.  1 written, 0 not. */
static int emit_line(tm_recmode *m, const char *line, size_t n, int have_pc, uint64_t pc)
{
    char buf[LINE_MAX_DIS];
    if (n > LINE_MAX_TEXT)
        n = LINE_MAX_TEXT;
    memcpy(buf, line, n);
    const char *t = NULL;
    if (m->disasm) {
        t = have_pc ? rm_dis_text(m->dis, pc) : NULL;
        n += (size_t)snprintf(buf + n, sizeof buf - n - 1, " %s", t ? t : "(unknown)");
        if (n > sizeof buf - 2)
            n = sizeof buf - 2;
    }
    buf[n++] = '\n';
    int ok = emit(m, buf, n);
    if (ok && m->disasm && !t)
        m->dis_unknown++;
    return ok;
}

static uint8_t *put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        *p++ = (uint8_t)(v >> (8 * k));
    return p;
}

/* The operand value most significant byte first (memory order reversed). */
static uint8_t *put_be_value(uint8_t *p, const uint8_t *value, unsigned size)
{
    for (unsigned k = size; k-- > 0;)
        *p++ = value[k];
    return p;
}

static int hex_value(char *s, const uint8_t *value, unsigned size)
{
    static const char hx[] = "0123456789abcdef";
    char *p = s;
    *p++ = '0';
    *p++ = 'x';
    for (unsigned k = size; k-- > 0;) {
        *p++ = hx[value[k] >> 4];
        *p++ = hx[value[k] & 15];
    }
    *p = 0;
    return (int)(p - s);
}

static int tid_ok(tm_recmode *m, uint32_t tid)
{
    if (!m->ascii && tid > 255) {
        fail(m, TM_ERR_ARG,
             "%s: thread id %u does not fit the 1-byte Thread ID of a binary descriptor (0..255); use -a", m->path,
             tid);
        return 0;
    }
    return 1;
}

static int u32_ok(tm_recmode *m, uint64_t v, const char *field)
{
    if (!m->ascii && v > UINT32_MAX) {
        fail(m, TM_ERR_ARG, "%s: %s %" PRIu64 " does not fit the 4-byte field of a binary descriptor; use -a", m->path,
             field, v);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------ mcfTrace */

static void mcftrace_branch(tm_recmode *m, const tmc_record *r)
{
    unsigned code;
    switch (r->bclass) {
    case TMC_COND: code = r->taken ? MCF_CDT : MCF_CDNT; break;
    case TMC_JUMP:
    case TMC_CALL: code = MCF_UD; break;
    default: code = MCF_UI; break;
    }
    if (!tid_ok(m, r->tid))
        return;
    int ok;
    if (m->ascii) {
        static const char *const to[4] = {"U, I, T", "U, D, T", "C, D, T", "C, D, NT"};
        char line[96];
        int n = snprintf(line, sizeof line, "%" PRIu32 ", 0x%016" PRIx64 ", 0x%016" PRIx64 ", %s", r->tid, r->pc,
                         r->target, to[code]);
        ok = emit_line(m, line, (size_t)n, 1, r->pc);
    } else {
        uint8_t d[18], *p = d;
        *p++ = (uint8_t)r->tid;
        p = put_le(p, r->pc, 8);
        p = put_le(p, r->target, 8);
        *p++ = (uint8_t)code;
        ok = emit(m, d, sizeof d);
    }
    if (ok)
        m->mcf[code]++;
}

/* ------------------------------------------------------------ mlsTrace */

static void mlstrace_mem(tm_recmode *m, const tmc_record *r)
{
    int store = (r->flags & TMC_MEM_STORE) != 0;
    if (store && !r->pc) {
        m->sys_writes++;
        return;
    }
    if (store && !m->store)
        return;
    if (!tid_ok(m, r->tid))
        return;
    int ok;
    unsigned size = r->size;
    if (m->ascii) {
        char line[LINE_MAX_TEXT];
        int n = snprintf(line, sizeof line, "%" PRIu32 ", %s0x%016" PRIx64 ", 0x%016" PRIx64 ", %u, ", r->tid,
                         m->store ? (store ? "S, " : "L, ") : "", r->pc, r->addr, size);
        n += hex_value(line + n, r->value, size);
        ok = emit_line(m, line, (size_t)n, 1, r->pc);
    } else {
        uint8_t d[2 + 8 + 8 + 1 + TMC_MAX_OPERAND], *p = d;
        *p++ = (uint8_t)r->tid;
        if (m->store)
            *p++ = (uint8_t)store;
        p = put_le(p, r->pc, 8);
        p = put_le(p, r->addr, 8);
        *p++ = (uint8_t)size;
        p = put_be_value(p, r->value, size);
        ok = emit(m, d, (size_t)(p - d));
    }
    if (ok)
        (store ? m->stores : m->loads)[tm_size_class(size)]++;
}

/* ------------------------------------------------------------ -d, hook modes */

/* Writes thread T's waiting descriptor: with its instruction at PC if
 * HAVE_PC, else with "(unknown)". */
static void pend_write(tm_recmode *m, rm_thr *h, int have_pc, uint64_t pc)
{
    if (!h->pend)
        return;
    h->pend = 0;
    if (emit_line(m, h->pline, h->plen, have_pc, pc) && h->ptype >= 0)
        m->tr_desc[h->ptype]++;
}

/* The descriptor LINE (N bytes, no newline) of a message of thread T in
 * CYCLE (LOAD: a DATA message, whose instruction is the group's load; else
 * the group's event): written now, or, with -d, when the record of its
 * instruction is known.  TYPE: the mcfTRaptor descriptor type to count, or
 * -1. */
static void hook_line(tm_recmode *m, uint32_t t, uint64_t cycle, int load, int type, const char *line, size_t n)
{
    if (!m->disasm) {
        if (emit_line(m, line, n, 0, 0) && type >= 0)
            m->tr_desc[type]++;
        return;
    }
    rm_thr *h = &m->thr[t];
    pend_write(m, h, 0, 0); /* an earlier one whose record never came */
    int have = load ? h->ld_ok && h->ld_cycle == cycle : h->ev_ok && h->ev_cycle == cycle;
    if (have) {
        if (emit_line(m, line, n, 1, load ? h->ld_pc : h->ev_pc) && type >= 0)
            m->tr_desc[type]++;
        return;
    }
    h->pend = load ? PEND_LD : PEND_EV;
    h->ptype = type;
    h->pcycle = cycle;
    h->plen = n < sizeof h->pline ? n : sizeof h->pline;
    memcpy(h->pline, line, h->plen);
}

/* A record of a thread for the hook modes' -d: remembers the group's event
 * and load, completes the descriptor that waited for it. */
static void hook_record(tm_recmode *m, const tmc_record *r)
{
    if (r->tid >= m->threads || r->type < TMC_START || r->type > TMC_MEM)
        return;
    rm_thr *h = &m->thr[r->tid];
    if (h->pend && r->cycle > h->pcycle)
        pend_write(m, h, 0, 0); /* its cycle is over */
    if (r->type == TMC_BRANCH || r->type == TMC_EXC) {
        h->ev_cycle = r->cycle;
        h->ev_pc = r->pc;
        h->ev_ok = 1;
        if (h->pend == PEND_EV && h->pcycle == r->cycle)
            pend_write(m, h, 1, r->pc);
    } else if (r->type == TMC_MEM && !(r->flags & TMC_MEM_STORE)) {
        h->ld_cycle = r->cycle;
        h->ld_pc = r->pc;
        h->ld_ok = 1;
        if (h->pend == PEND_LD && h->pcycle == r->cycle)
            pend_write(m, h, 1, r->pc);
    }
}

/* ------------------------------------------------------------ records */

int tm_recmode_module(tm_recmode *m, const tm_cap_module *mod)
{
    if (!m || !m->dis || m->failed)
        return m ? m->failed : TM_OK;
    if (rm_dis_module(m->dis, mod)) {
        fail(m, TM_ERR_NOMEM, "%s: out of memory (the code of %s for -d)", m->path, mod->path ? mod->path : "a module");
        return m->failed;
    }
    return TM_OK;
}

int tm_recmode_record(tm_recmode *m, const tmc_record *r)
{
    if (!m)
        return TM_OK;
    if (m->failed)
        return m->failed;
    if (m->full)
        return TM_OK;
    if (m->thr)
        hook_record(m, r);
    switch (r->type) {
    case TMC_START:
        if (r->tid < TMC_MAX_THREADS && !(m->seen[r->tid / 8] & (1u << (r->tid % 8)))) {
            m->seen[r->tid / 8] |= (uint8_t)(1u << (r->tid % 8));
            m->nthreads++;
        }
        break;
    case TMC_RUN:
        m->instructions += r->count;
        break;
    case TMC_BRANCH:
        if (m->mode == RM_MCFTRACE)
            mcftrace_branch(m, r);
        if (!m->full)
            m->instructions++;
        break;
    case TMC_EXC:
        m->exceptions++;
        break;
    case TMC_MEM:
        if (m->mode == RM_MLSTRACE)
            mlstrace_mem(m, r);
        break;
    default:
        break;
    }
    return m->failed;
}

/* ------------------------------------------------------------ the hook */

static void traptor_msg(tm_recmode *m, uint64_t cycle, const tm_msg *msg)
{
    uint32_t t = msg->ti;
    uint64_t target = 0;
    if (msg->kind == TM_MSG_SYNC) {
        m->pta[t] = msg->addr;
        m->overflow_syncs += msg->reason == TM_SYNC_OVERFLOW;
        return;
    }
    if ((msg->kind == TM_MSG_BRANCH && msg->t) || msg->kind == TM_MSG_EXC) {
        m->pta[t] += (uint64_t)msg->diff_ta;
        target = m->pta[t];
    }
    if (m->mode != RM_MCFTRAPTOR || (msg->kind != TM_MSG_BRANCH && msg->kind != TM_MSG_EXC))
        return;
    if (!tid_ok(m, t))
        return;
    int type = msg->kind == TM_MSG_EXC ? TR_EXC : msg->t ? TR_TARGET : TR_OUTCOME;
    if (!u32_ok(m, type == TR_EXC ? msg->icnt : msg->cnt, type == TR_EXC ? "iCnt" : "bCnt"))
        return;
    if (m->ascii) {
        char line[96];
        int n;
        if (type == TR_OUTCOME)
            n = snprintf(line, sizeof line, "%" PRIu32 ", %" PRIu64, t, msg->cnt);
        else if (type == TR_TARGET)
            n = snprintf(line, sizeof line, "%" PRIu32 ", %" PRIu64 ", T, 0x%016" PRIx64, t, msg->cnt, target);
        else
            n = snprintf(line, sizeof line, "%" PRIu32 ", 0, %" PRIu64 ", 0x%016" PRIx64, t, msg->icnt, target);
        hook_line(m, t, cycle, 0, type, line, (size_t)n);
    } else {
        uint8_t d[18], *p = d;
        *p++ = (uint8_t)t;
        if (type == TR_EXC) {
            p = put_le(p, 0, 4);
            p = put_le(p, msg->icnt, 4);
            p = put_le(p, target, 8);
        } else {
            p = put_le(p, msg->cnt, 4);
            if (type == TR_TARGET) {
                *p++ = 1; /* Taken */
                p = put_le(p, target, 8);
            }
        }
        *p++ = (uint8_t)type;
        if (emit(m, d, (size_t)(p - d)))
            m->tr_desc[type]++;
    }
}

static void cfiat_data(tm_recmode *m, uint64_t cycle, const tm_msg *msg)
{
    if (!tid_ok(m, msg->ti) || !u32_ok(m, msg->fah, "fahCnt"))
        return;
    unsigned size = msg->size;
    if (size < 1 || size > TM_DATA_MAX_SIZE) {
        fail(m, TM_ERR_ARG, "%s: a DATA message of thread %u has operand size %u", m->path, msg->ti, size);
        return;
    }
    if (m->ascii) {
        char line[LINE_MAX_TEXT];
        int n = snprintf(line, sizeof line, "%" PRIu32 ", %" PRIu64 ", ", msg->ti, msg->fah);
        n += hex_value(line + n, msg->value, size);
        hook_line(m, msg->ti, cycle, 1, -1, line, (size_t)n);
    } else {
        uint8_t d[1 + 4 + 1 + TM_DATA_MAX_SIZE], *p = d;
        *p++ = (uint8_t)msg->ti;
        p = put_le(p, msg->fah, 4);
        *p++ = (uint8_t)size;
        p = put_be_value(p, msg->value, size);
        emit(m, d, (size_t)(p - d));
    }
}

void tm_recmode_hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *msg, unsigned bits, int accepted)
{
    (void)core;
    (void)bits;
    tm_recmode *m = arg;
    if (!m || (m->mode != RM_MCFTRAPTOR && m->mode != RM_MLVCFIAT) || m->failed)
        return;
    if (!accepted) {
        m->dropped++;
        m->dropped_data += msg->kind == TM_MSG_DATA;
        return;
    }
    if (msg->ti >= m->threads) {
        fail(m, TM_ERR_ARG, "%s: a message of thread %u, the model has %u threads", m->path, msg->ti, m->threads);
        return;
    }
    if (msg->kind == TM_MSG_DATA) {
        if (m->mode == RM_MLVCFIAT)
            cfiat_data(m, cycle, msg);
    } else {
        traptor_msg(m, cycle, msg);
    }
}

int tm_recmode_full(const tm_recmode *m) { return m ? m->full : 0; }

void tm_recmode_set_skipped(tm_recmode *m, uint64_t n)
{
    if (m)
        m->skipped = n;
}

const char *tm_recmode_path(const tm_recmode *m) { return m ? m->path : ""; }
const char *tm_recmode_stats_path(const tm_recmode *m) { return m ? m->stats_path : ""; }
const char *tm_recmode_error(const tm_recmode *m) { return m ? m->err : ""; }

/* ------------------------------------------------------------ open */

/* Closes every descriptor from 3 up except KEEP (the child of a fork). */
static void close_from3_except(int keep)
{
#ifdef SYS_close_range
    if ((keep <= 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) == 0) &&
        syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
        return;
#endif
    for (int fd = 3; fd < 4096; fd++)
        if (fd != keep)
            close(fd);
}

/* Starts the compressor C reading a socket (our end in m->fd) and writing
 * OUTFD.  An exec failure comes back through a close-on-exec pipe. */
static int start_compressor(tm_recmode *m, const compressor *c, int outfd, char *err, size_t errlen)
{
    int sv[2], ep[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
        snprintf(err, errlen, "-c %s: socketpair: %s", c->name, strerror(errno));
        return TM_ERR_IO;
    }
    if (pipe(ep) || fcntl(ep[0], F_SETFD, FD_CLOEXEC) || fcntl(ep[1], F_SETFD, FD_CLOEXEC)) {
        snprintf(err, errlen, "-c %s: pipe: %s", c->name, strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return TM_ERR_IO;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "-c %s: fork: %s", c->name, strerror(errno));
        close(sv[0]);
        close(sv[1]);
        close(ep[0]);
        close(ep[1]);
        return TM_ERR_IO;
    }
    if (pid == 0) {
        int e = 0;
        signal(SIGPIPE, SIG_DFL);
        if (dup2(sv[1], 0) < 0 || dup2(outfd, 1) < 0) {
            e = errno;
        } else {
            close_from3_except(ep[1]);
            char *argv[6];
            int k = 0;
            argv[k++] = (char *)c->name;
            for (int j = 0; c->args[j]; j++)
                argv[k++] = (char *)c->args[j];
            argv[k] = NULL;
            execvp(c->name, argv);
            e = errno;
        }
        ssize_t w = write(ep[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(sv[1]);
    close(ep[1]);
    int e = 0;
    ssize_t n;
    while ((n = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(ep[0]);
    if (n > 0) {
        close(sv[0]);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        snprintf(err, errlen, "-c %s: cannot run %s: %s", c->name, c->name,
                 e == ENOENT ? "not found on PATH (install it or choose another -c)" : strerror(e));
        return TM_ERR_IO;
    }
    m->fd = sv[0];
    m->sock = 1;
    m->pid = pid;
    m->comp = c->name;
    return TM_OK;
}

static char *cat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb);
        memcpy(s + la + lb, c, lc + 1);
    }
    return s;
}

/* "DIR/.NAME.tmp.XXXXXX" for PATH "DIR/NAME" (mkostemp's template). */
static char *tmp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    int d = slash ? (int)(slash - path + 1) : 0;
    size_t n = strlen(path) + 16;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%.*s.%s.tmp.XXXXXX", d, path, path + d);
    return t;
}

static void free_mode(tm_recmode *m)
{
    free(m->path);
    free(m->stats_path);
    free(m->tmp_path);
    free(m->stats_tmp);
    free(m->buf);
    free(m->pta);
    rm_dis_free(m->dis);
    free(m->thr);
    free(m);
}

int tm_recmode_open(const tm_recmode_cfg *c, const tm_model_cfg *mcfg, tm_recmode **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!c->mode) {
        if (c->ascii || c->compress || c->size_limit || c->store || c->disasm) {
            snprintf(err, errlen, "%s needs --mode (mcftrace, mlstrace, mcftraptor, mlvcfiat)",
                     c->ascii ? "-a" : c->compress ? "-c" : c->size_limit ? "-f" : c->store ? "--store" : "-d");
            return TM_ERR_ARG;
        }
        return TM_OK;
    }
    int mode = find_mode(c->mode);
    if (mode < 0) {
        snprintf(err, errlen, "--mode %s: allowed mcftrace, mlstrace, mcftraptor, mlvcfiat", c->mode);
        return TM_ERR_ARG;
    }
    const compressor *comp = NULL;
    if (c->compress && !(comp = find_compressor(c->compress))) {
        snprintf(err, errlen, "-c %s: allowed gzip, bzip2, pigz, pbzip2, zstd", c->compress);
        return TM_ERR_ARG;
    }
    if (c->store && mode != RM_MLSTRACE) {
        snprintf(err, errlen, "--store: only with --mode mlstrace");
        return TM_ERR_ARG;
    }
    if (c->disasm && !c->ascii) {
        snprintf(err, errlen, "-d: only with -a (the disassembly is a column of the ASCII descriptors; the binary "
                              "ones have none)");
        return TM_ERR_ARG;
    }
    if (mode == RM_MCFTRAPTOR || mode == RM_MLVCFIAT) {
        if (!mcfg) {
            snprintf(err, errlen, "--mode %s: needs the model", mode_names[mode]);
            return TM_ERR_ARG;
        }
        if (mode == RM_MCFTRAPTOR && mcfg->enc.enc == TM_ENC_NX_B) {
            snprintf(err, errlen, "--mode mcftraptor: needs a predicting encoding (--encoding tr_b or tr_e), "
                                  "nx_b has no predictors");
            return TM_ERR_ARG;
        }
        if (mode == RM_MLVCFIAT && mcfg->enc.data != TM_DATA_CFIAT) {
            snprintf(err, errlen, "--mode mlvcfiat: needs CFiat data tracing (--cfiat)");
            return TM_ERR_ARG;
        }
    }
    if (mcfg && !c->ascii && mcfg->enc.threads > 256) {
        snprintf(err, errlen, "--threads %u: binary descriptors hold thread ids 0..255 (a 1-byte Thread ID); "
                              "use -a or at most 256 threads", mcfg->enc.threads);
        return TM_ERR_ARG;
    }

    tm_recmode *m = calloc(1, sizeof *m);
    if (!m || !(m->buf = malloc(OUTBUF))) {
        free(m);
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    m->mode = mode;
    m->ascii = c->ascii != 0;
    m->store = c->store != 0;
    m->limit = c->size_limit;
    m->fd = -1;
    clock_gettime(CLOCK_MONOTONIC, &m->t0);
    if (mcfg) {
        m->threads = mcfg->enc.threads;
        if (!(m->pta = calloc(m->threads ? m->threads : 1, sizeof *m->pta))) {
            free_mode(m);
            snprintf(err, errlen, "out of memory");
            return TM_ERR_NOMEM;
        }
    }
    m->disasm = c->disasm != 0;
    if (m->disasm && (!(m->dis = rm_dis_new()) ||
                      ((mode == RM_MCFTRAPTOR || mode == RM_MLVCFIAT) &&
                       !(m->thr = calloc(m->threads ? m->threads : 1, sizeof *m->thr))))) {
        free_mode(m);
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }

    char base[128];
    const char *name = c->name;
    if (!name) {
        time_t now = time(NULL);
        struct tm tmv;
        localtime_r(&now, &tmv);
        snprintf(base, sizeof base, "%s.out%d_%d_%d_%d.%d.%d", tool_names[mode], tmv.tm_year + 1900,
                 tmv.tm_mon + 1, tmv.tm_mday, tmv.tm_hour, tmv.tm_min, tmv.tm_sec);
        name = base;
    }
    m->path = cat3(name, m->ascii ? ".txt" : ".bin", comp ? comp->suffix : "");
    m->stats_path = cat3(name, ".Statistics", "");
    if (!m->path || !m->stats_path || !(m->tmp_path = tmp_name(m->path)) || !(m->stats_tmp = tmp_name(m->stats_path))) {
        free_mode(m);
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    int fd = mkostemp(m->tmp_path, O_CLOEXEC), sfd = -1;
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", m->path, strerror(errno));
        free_mode(m);
        return TM_ERR_IO;
    }
    if ((sfd = mkostemp(m->stats_tmp, O_CLOEXEC)) < 0 || !(m->sf = fdopen(sfd, "w"))) {
        snprintf(err, errlen, "%s: %s", m->stats_path, strerror(errno));
        if (sfd >= 0) {
            close(sfd);
            unlink(m->stats_tmp);
        }
        close(fd);
        unlink(m->tmp_path);
        free_mode(m);
        return TM_ERR_IO;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) || fchmod(sfd, 0666 & ~mask)) {
        /* keep mkostemp's 0600 */
    }
    if (comp) {
        int r = start_compressor(m, comp, fd, err, errlen);
        close(fd);
        if (r) {
            fclose(m->sf);
            unlink(m->tmp_path);
            unlink(m->stats_tmp);
            free_mode(m);
            return r;
        }
    } else {
        m->fd = fd;
    }
    *out = m;
    return TM_OK;
}

/* ------------------------------------------------------------ close */

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

/* Table 4.4's classes in the thesis's order; the 64-byte class (beyond the
 * thesis) is counted with "other". */
static const unsigned thesis_classes[8] = {TM_SZ_BYTE, TM_SZ_WORD,  TM_SZ_DWORD, TM_SZ_QWORD,
                                           TM_SZ_10,   TM_SZ_OWORD, TM_SZ_HWORD, TM_SZ_OTHER};

static uint64_t class_count(const uint64_t *v, unsigned k)
{
    return thesis_classes[k] == TM_SZ_OTHER ? v[TM_SZ_OTHER] + v[TM_SZ_64] : v[thesis_classes[k]];
}

static void mls_block(FILE *f, const char *title, const uint64_t *v)
{
    static const char *const names[8] = {"Byte Operands",  "Word Operands",     "Doubleword Operands",
                                         "Quadword Operands", "Extended Precision Operands",
                                         "Octaword Operands", "Hexaword Operands", "Operands of other size"};
    uint64_t tot = tm_size_class_sum(v);
    fprintf(f, "Total %s Operands: %" PRIu64 "\n", title, tot);
    for (unsigned k = 0; k < 8; k++)
        fprintf(f, "\t%" PRIu64 " ( %%%.2f ) %s\n", class_count(v, k), pct(class_count(v, k), tot), names[k]);
}

/* "hits:misses(rate%)" with the rate truncated to a whole percent (Fig. 4.38). */
static void cfiat_line(FILE *f, const char *name, uint64_t h, uint64_t mi)
{
    uint64_t rate = h + mi ? (uint64_t)((h * 100.0L) / (long double)(h + mi)) : 0;
    fprintf(f, "\t%s %" PRIu64 ":%" PRIu64 "(%" PRIu64 "%%)\n", name, h, mi, rate);
}

static void cfiat_block(FILE *f, const char *title, const uint64_t *h, const uint64_t *mi)
{
    static const char *const names[8] = {"Byte Operands",  "Word Operands",     "Doubleword Operands",
                                         "Quadword Operands", "Extended Precision Operands",
                                         "Octaword Operands", "Hexaword Operands", "Other Sized Operands"};
    fprintf(f, "-- %s References Hits: Misses (Hit Rate)\n", title);
    cfiat_line(f, "Total", tm_size_class_sum(h), tm_size_class_sum(mi));
    for (unsigned k = 0; k < 8; k++)
        cfiat_line(f, names[k], class_count(h, k), class_count(mi, k));
}

static void write_stats(tm_recmode *m, const tm_model *model, double ms)
{
    FILE *f = m->sf;
    const char *tool = tool_names[m->mode];
    tm_model_stats zero;
    memset(&zero, 0, sizeof zero);
    const tm_model_stats *st = model ? tm_model_get_stats(model) : &zero;
    const tm_thread_stats *T = &st->total;
    switch (m->mode) {
    case RM_MCFTRACE: {
        uint64_t rec = m->mcf[0] + m->mcf[1] + m->mcf[2] + m->mcf[3];
        fprintf(f, "%s: Traced %" PRIu64 " instructions\n", tool, m->instructions);
        fprintf(f, "%s: Skipped %" PRIu64 " instructions\n", tool, m->skipped);
        fprintf(f, "%s: Recorded %" PRIu64 " control transfer instructions.\n", tool, rec);
        static const unsigned order[4] = {MCF_UD, MCF_CDT, MCF_CDNT, MCF_UI};
        static const char *const names[4] = {"Unconditional Direct", "Conditional Direct Taken",
                                             "Conditional Direct Not Taken", "Unconditional Indirect"};
        for (int k = 0; k < 4; k++)
            fprintf(f, "\t%" PRIu64 " ( %%%.2f ) %s\n", m->mcf[order[k]], pct(m->mcf[order[k]], rec), names[k]);
        break;
    }
    case RM_MLSTRACE:
        fprintf(f, "Instrumentation Time: %.2f ms\n", ms);
        fprintf(f, "Number of Threads: %" PRIu32 "\n", m->nthreads);
        fprintf(f, "Traced %" PRIu64 " instructions\n", m->instructions);
        fprintf(f, "Skipped %" PRIu64 " instructions\n", m->skipped);
        mls_block(f, "Load", m->loads);
        if (m->store)
            mls_block(f, "Store", m->stores);
        break;
    case RM_MCFTRAPTOR: {
        uint64_t cond = T->cond_predicted, ind = T->target_predicted;
        uint64_t cmis = T->cond_mispredicted, tmis = T->target_mispredicted;
        fprintf(f, "%s: Instrumentation Time %.2f ms\n", tool, ms);
        fprintf(f, "%s: Skipped %" PRIu64 " instructions\n", tool, m->skipped);
        fprintf(f, "%s: Recorded %" PRIu64 " direct conditional branches, indirect unconditional branches, "
                   "and exceptions\n",
                tool, cond + ind + T->exceptions);
        fprintf(f, "%" PRIu64 " conditional direct branches\n", cond);
        fprintf(f, "\t%" PRIu64 " ( %%%.2f ) outcomes predicted\n", cond - cmis, pct(cond - cmis, cond));
        fprintf(f, "\t%" PRIu64 " ( %%%.2f ) outcomes mispredicted\n", cmis, pct(cmis, cond));
        fprintf(f, "%" PRIu64 " unconditional indirect branches\n", ind);
        fprintf(f, "\t%" PRIu64 " ( %%%.2f ) targets predicted\n", ind - tmis, pct(ind - tmis, ind));
        fprintf(f, "\t%" PRIu64 " ( %%%.2f ) targets mispredicted\n", tmis, pct(tmis, ind));
        fprintf(f, "%" PRIu64 " exceptions\n", T->exceptions);
        break;
    }
    case RM_MLVCFIAT: {
        const tm_cache_stats *cs = &st->cache;
        uint64_t h[TM_SZ_CLASSES], mi[TM_SZ_CLASSES];
        for (unsigned k = 0; k < TM_SZ_CLASSES; k++) {
            h[k] = cs->load_hits[k] + cs->store_hits[k];
            mi[k] = cs->load_misses[k] + cs->store_misses[k];
        }
        fprintf(f, "Instrumentation Time (ms): %f\n", ms);
        fprintf(f, "Instructions Traced: %" PRIu64 "\n", m->instructions);
        fprintf(f, "Skipped Instructions: %" PRIu64 "\n", m->skipped);
        fprintf(f, "\n");
        cfiat_block(f, "Cache", h, mi);
        cfiat_block(f, "First Access Flag", cs->fa_hits, cs->fa_misses);
        break;
    }
    default:
        break;
    }

    /* What the thesis's statistics do not show. */
    fprintf(f, "tm: %" PRIu64 " descriptors, %" PRIu64 " bytes (%s%s%s) in %s\n", m->descs, m->bytes,
            m->ascii ? "ASCII" : "binary", m->comp ? ", before " : "", m->comp ? m->comp : "", m->path);
    if (m->limit)
        fprintf(f, "tm: size limit %" PRIu64 " bytes %s\n", m->limit,
                m->full ? "reached: the descriptors and statistics stop there" : "not reached");
    switch (m->mode) {
    case RM_MCFTRACE:
        fprintf(f, "tm: %" PRIu64 " exceptions (mcfTrace has no exception descriptor)\n", m->exceptions);
        break;
    case RM_MLSTRACE:
        fprintf(f, "tm: %" PRIu64 " writes by the system (no instruction; not traced)\n", m->sys_writes);
        if (m->loads[TM_SZ_64] || m->stores[TM_SZ_64])
            fprintf(f, "tm: of the other size, %" PRIu64 " loads and %" PRIu64 " stores of 64 bytes\n",
                    m->loads[TM_SZ_64], m->stores[TM_SZ_64]);
        break;
    case RM_MCFTRAPTOR:
        fprintf(f, "tm: descriptors: %" PRIu64 " mispredicted outcomes, %" PRIu64 " mispredicted targets, %" PRIu64
                   " exceptions\n",
                m->tr_desc[TR_OUTCOME], m->tr_desc[TR_TARGET], m->tr_desc[TR_EXC]);
        break;
    case RM_MLVCFIAT: {
        uint64_t h64 = st->cache.load_hits[TM_SZ_64] + st->cache.store_hits[TM_SZ_64];
        uint64_t m64 = st->cache.load_misses[TM_SZ_64] + st->cache.store_misses[TM_SZ_64];
        if (h64 || m64 || st->cache.fa_hits[TM_SZ_64] || st->cache.fa_misses[TM_SZ_64])
            fprintf(f, "tm: of the other size, 64-byte operands: cache %" PRIu64 ":%" PRIu64 ", first access %" PRIu64
                       ":%" PRIu64 "\n",
                    h64, m64, st->cache.fa_hits[TM_SZ_64], st->cache.fa_misses[TM_SZ_64]);
        break;
    }
    default:
        break;
    }
    if (m->disasm)
        fprintf(f, "tm: -d: %" PRIu64 " descriptors with the disassembly \"(unknown)\" (code in no module file tm "
                   "could read, or no record named the instruction)\n",
                m->dis_unknown);
    if (m->mode == RM_MCFTRAPTOR || m->mode == RM_MLVCFIAT)
        fprintf(f, "tm: %" PRIu64 " messages dropped by the trace buffer (%" PRIu64 " DATA), %" PRIu64
                   " overflow resynchronizations: %s\n",
                m->dropped, m->dropped_data, m->overflow_syncs,
                m->dropped ? "their descriptors are missing (enlarge --buffer or --port)" : "none missing");
}

void tm_recmode_abort(tm_recmode *m)
{
    if (!m)
        return;
    if (m->fd >= 0)
        close(m->fd);
    if (m->pid > 0) {
        int ws;
        while (waitpid(m->pid, &ws, 0) < 0 && errno == EINTR)
            ;
    }
    fclose(m->sf);
    unlink(m->tmp_path);
    unlink(m->stats_tmp);
    free_mode(m);
}

int tm_recmode_close(tm_recmode *m, const tm_model *model, char *err, size_t errlen)
{
    if (!m)
        return TM_OK;
    for (uint32_t t = 0; m->thr && t < m->threads; t++)
        pend_write(m, &m->thr[t], 0, 0); /* their records never came */
    flush_buf(m);
    if (m->fd >= 0) {
        if (close(m->fd) && !m->sock)
            fail(m, TM_ERR_IO, "%s: %s", m->path, strerror(errno));
        m->fd = -1;
    }
    if (m->pid > 0) {
        int ws = 0;
        while (waitpid(m->pid, &ws, 0) < 0 && errno == EINTR)
            ;
        if (WIFEXITED(ws) && WEXITSTATUS(ws))
            fail(m, TM_ERR_IO, "%s: %s exited with status %d", m->path, m->comp, WEXITSTATUS(ws));
        else if (WIFSIGNALED(ws))
            fail(m, TM_ERR_IO, "%s: %s was killed by signal %d", m->path, m->comp, WTERMSIG(ws));
    }
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - m->t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - m->t0.tv_nsec) / 1e6;
    write_stats(m, model, ms);
    if (ferror(m->sf) | fclose(m->sf))
        fail(m, TM_ERR_IO, "%s: cannot write", m->stats_path);
    if (!m->failed && rename(m->tmp_path, m->path))
        fail(m, TM_ERR_IO, "%s: cannot move the finished file into place: %s", m->path, strerror(errno));
    if (!m->failed && rename(m->stats_tmp, m->stats_path))
        fail(m, TM_ERR_IO, "%s: cannot move the finished file into place: %s", m->stats_path, strerror(errno));
    int r = m->failed;
    if (r) {
        unlink(m->tmp_path);
        unlink(m->stats_tmp);
        snprintf(err, errlen, "%s", m->err);
    }
    free_mode(m);
    return r;
}
