/* tm — the commit stream of a verifying replay, read once, and the file
 * checks of docs/spec.md §6.2 made in the same read (decoder/vsrc.h).
 *
 * The replay checks every message; it does not see the buffer and port
 * sizes (they decide where messages were dropped, not how a message reads),
 * the trailer's cycle and instruction counts, or the recording's ending.
 * So the model runs over the commit stream with the header's configuration,
 * and its trace, cycles and per-thread instruction counts must be the
 * file's, bit for bit.
 *
 * Three roles, each on a thread of its own: the reader fills a ring of NB
 * batches of BATCH compact records (vsrc_rec, streamed out with
 * non-temporal stores; the MEM records' values beside them, each its size
 * long); the model takes each batch, runs the records
 * through the model, compares its new whole trace bytes with the file's
 * and drops them; the replay (the caller, vsrc_next) takes the same
 * batches.  A slot is written again once both consumers gave it back.
 * Counters, not locks, per batch: a role that must wait spins briefly,
 * then sleeps on its condition variable until the others have done half a
 * ring (they signal only when it sleeps).  A thread that cannot be started
 * leaves its role to the caller's thread (the reader: a batch whenever the
 * replay needs one; the model: each batch before the replay gets it).
 *
 * Costs on the 551 M-instruction recording of issue 39 (139 M records,
 * 2 cores): reading 2.0 s (the parse), the model 1.7 s, the replay 2.4 s
 * (3.3 s from the binaries).  Handing tmc_records over cost the reader
 * 1.8 s more: its plain stores waited for the lines the consumers had read
 * last; the compact records halve the lines, the streaming stores do not
 * wait for them.
 *
 * Three threads on two processors: shared fairly, the replay (the longest
 * role) gets two thirds of one and sets the pace.  So the reader's and the
 * model's threads run at a lower priority (nice VSRC_NICE), which leaves
 * the replay a processor to itself while they share the other, and the
 * ring is deep (NB = 128 batches, 2 M records, 64 MB), so that they can
 * run ahead of it and not stall it when the scheduler switches.  Measured
 * (--verify / --from-binary --verify): NB 8 at equal priority 4.0 / 4.3 s;
 * NB 128 3.4 / 3.75 s; NB 128 at nice 10 3.2 / 3.5 s; more batches, or
 * nice 19, no better.  Where processors are plenty, neither matters. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tm/isa.h"
#include "tm/model.h"
#include "vsrc.h"

#ifndef VSRC_BATCH
#define VSRC_BATCH 16384
#endif
#ifndef VSRC_NB
#define VSRC_NB 128
#endif
enum { NB = VSRC_NB, BATCH = VSRC_BATCH, SPINS = 200 };

/* A record as it crosses between the threads (tm/tmcrec.h: half a cache
 * line, streamed out; a MEM record's value is in the batch's VAL, in the
 * order of the batch's MEM records; a MODULE record's path and build id
 * stay behind: nobody here reads them). */
typedef vsrc_rec vrec;

typedef struct vbatch {
    vrec *r;
    uint8_t *val; /* the MEM records' values, each its size long (pages
                   * never written are never mapped: BATCH * 64 is the most) */
    size_t n;
    int last; /* the stream ends after these records */
    int rc;   /* then: 0 (clean end) or its error */
} vbatch;

#define NO_DIFF UINT64_MAX

/* The roles: the reader, the model (and the comparison of its bits) and
 * the replay (the caller, through vsrc_next). */
enum { R_READ, R_MODEL, R_REPLAY, ROLES };

struct vsrc {
    vsrc_view view;       /* first: vsrc_next's fast path (vsrc.h) */
    const char *path;
    const tmt_file *tf;
    tmc_reader *rd;
    vbatch b[NB];
    /* The ring: batches published (the reader) and given back (the model,
     * the replay); a slot is free once every consumer gave it back. */
    _Atomic uint64_t prod, cons[ROLES];
    _Atomic int stop;     /* the replay needs no more batches: read the rest (vsrc_blame) */
    _Atomic int quit;     /* vsrc_close: end now */
    _Atomic int last_out; /* the last batch is published */
    _Atomic int sleeping[ROLES];
    pthread_mutex_t mu;
    pthread_cond_t cv[ROLES];
    int reading, modelling; /* the reader's, the model's thread runs (else: on the caller's) */
    pthread_t th_read, th_model;
    /* the replay */
    _Alignas(64) vbatch *cur; /* the batch VIEW delivers */
    _Alignas(64) tmc_record rrec; /* the reader's (records tmc_reader_crecs leaves) */
    _Alignas(64) tmc_record mrec; /* the model's */
    /* the reader (touched by the others after the last batch only) */
    int ended;         /* the last batch is published (or the rest was drained) */
    int final_rc;      /* the stream's end: 0 or its error */
    char rerr[1024];   /* the stream's error message */
    /* the model (read by the others once it is joined) */
    tm_model *m;       /* NULL without file checks or after the model refused a record */
    int model_rc;      /* the model refused a record (or could not be created): ... */
    char merr[1200];   /* ... its message */
    uint64_t nmodel;   /* records given to the model */
    uint64_t bad_rec;  /* the refused record's index (offset: vsrc_finish) or UINT64_MAX */
    unsigned cut, sig; /* the ENDING record's reason and code */
    uint64_t diff;     /* the first trace bit where model and file differ, or NO_DIFF */
    int model_done;    /* model_end ran */
    int check_file;
    int threads_ok;    /* the stream declares the trace's threads */
};

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* ---------------------------------------------------------------- the ring */

/* Batches published and not yet given back by every consumer. */
static uint64_t in_use(vsrc *s)
{
    uint64_t c = atomic_load(&s->cons[R_REPLAY]);
    if (s->modelling) {
        uint64_t cm = atomic_load(&s->cons[R_MODEL]);
        c = cm < c ? cm : c;
    }
    return atomic_load(&s->prod) - c;
}

static int ends(vsrc *s, int role)
{
    return atomic_load(&s->quit) || (role != R_REPLAY && atomic_load(&s->stop));
}

/* What ROLE waits for: READY to go on, ENOUGH to be woken once it sleeps
 * (half the ring, so that a role faster than the others sleeps once per
 * NB / 2 batches, not once per batch); or its end. */
static int ready(vsrc *s, int role)
{
    if (ends(s, role))
        return 1;
    if (role == R_READ)
        return in_use(s) < NB;
    return atomic_load(&s->prod) > atomic_load(&s->cons[role]);
}

static int enough(vsrc *s, int role)
{
    if (ends(s, role))
        return 1;
    if (role == R_READ)
        return in_use(s) <= NB / 2;
    uint64_t avail = atomic_load(&s->prod) - atomic_load(&s->cons[role]);
    return avail >= NB / 2 || (avail && atomic_load(&s->last_out));
}

/* ROLE waits until it can go on: a short spin, then it sleeps until the
 * others have done enough. */
static void wait_for(vsrc *s, int role)
{
    for (int i = 0; i < SPINS; i++) {
        if (ready(s, role))
            return;
        relax();
    }
    pthread_mutex_lock(&s->mu);
    atomic_store(&s->sleeping[role], 1);
    while (!enough(s, role))
        pthread_cond_wait(&s->cv[role], &s->mu);
    atomic_store(&s->sleeping[role], 0);
    pthread_mutex_unlock(&s->mu);
}

/* After the caller changed what ROLE waits for: wakes it if it sleeps and
 * has enough. */
static void wake(vsrc *s, int role)
{
    if (!atomic_load(&s->sleeping[role]) || !enough(s, role))
        return;
    pthread_mutex_lock(&s->mu);
    pthread_cond_signal(&s->cv[role]);
    pthread_mutex_unlock(&s->mu);
}

/* ---------------------------------------------------------------- the reader */

/* Reads the next batch into its slot and publishes it. */
static void produce(vsrc *s)
{
    vbatch *b = &s->b[atomic_load(&s->prod) % NB];
    size_t n = 0, nv = 0;
    int rc = 1;
    tmc_record *t = &s->rrec;
    for (;;) {
        size_t kv;
        n += tmc_reader_crecs(s->rd, b->r + n, BATCH - n, b->val + nv, &kv, NULL);
        nv += kv;
        if (n == BATCH || (rc = tmc_reader_next(s->rd, t)) != 1)
            break;
        /* a record of another type (MODULE, END, ENDING) */
        if (t->type == TMC_MEM) {
            memcpy(b->val + nv, t->value, t->size);
            nv += t->size;
        }
        tmc_crec_pack(&b->r[n++], t);
        if (n == BATCH)
            break;
    }
    b->n = n;
    b->last = rc != 1;
    b->rc = rc < 0 ? rc : 0;
    if (b->last) {
        s->final_rc = b->rc;
        if (rc < 0)
            snprintf(s->rerr, sizeof s->rerr, "%s", tmc_reader_error(s->rd));
        s->ended = 1;
    }
    tmc_crec_fence(); /* the streaming stores before the batch is published */
    atomic_fetch_add(&s->prod, 1);
    if (b->last)
        atomic_store(&s->last_out, 1); /* after the batch: it wakes a consumer */
    wake(s, R_MODEL);
    wake(s, R_REPLAY);
}

/* Reads the rest of the stream (not published) for its verdict. */
static void drain(vsrc *s)
{
    if (s->ended)
        return;
    tmc_record r;
    int rc;
    while ((rc = tmc_reader_next(s->rd, &r)) == 1)
        ;
    s->final_rc = rc;
    if (rc < 0)
        snprintf(s->rerr, sizeof s->rerr, "%s", tmc_reader_error(s->rd));
    s->ended = 1;
}

#ifndef VSRC_NICE
#define VSRC_NICE 10
#endif
/* The reader's and the model's threads run at nice VSRC_NICE (a thread's
 * own; the caller's is untouched): see the top of the file. */
static void yield_to_replay(void)
{
#ifdef SYS_gettid
    if (VSRC_NICE)
        (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), VSRC_NICE);
#endif
}

static void *reader(void *arg)
{
    vsrc *s = arg;
    yield_to_replay();
    while (!s->ended) {
        wait_for(s, R_READ);
        if (ends(s, R_READ))
            break;
        produce(s);
    }
    if (!atomic_load(&s->quit) && atomic_load(&s->stop))
        drain(s);
    return NULL;
}

/* ---------------------------------------------------------------- the model */

/* The model's new whole trace bytes against the file's; compared bytes (and
 * after a difference, every byte) are dropped.  Bytes the file does not
 * hold whole stay for model_end. */
static void compare_some(vsrc *s)
{
    const tm_bitbuf *bb = tm_model_trace(s->m);
    uint64_t have = bb->nbits >> 3;
    if (!have)
        return;
    if (s->diff == NO_DIFF) {
        uint64_t done = tm_model_trace_dropped(s->m), fbytes = s->tf->bits >> 3;
        uint64_t can = fbytes - done < have ? fbytes - done : have;
        const uint8_t *a = bb->data, *b = can ? s->tf->data + done : NULL;
        if (can && memcmp(a, b, (size_t)can)) {
            uint64_t i = 0;
            while (a[i] == b[i])
                i++;
            s->diff = (done + i) * 8 + (uint64_t)__builtin_ctz((unsigned)(a[i] ^ b[i]));
        } else {
            have = can;
        }
    }
    tm_model_trace_drop(s->m, have);
}

/* Batch B through the model, then its bits compared. */
static void model_batch(vsrc *s, const vbatch *b)
{
    tm_model *m = s->m;
    if (!m)
        return;
    tmc_record *r = &s->mrec;
    size_t nv = 0;
    for (size_t i = 0; i < b->n; i++) {
        tmc_crec_unpack(r, &b->r[i]);
        if (__builtin_expect(r->type == TMC_MEM, 0)) {
            memcpy(r->value, b->val + nv, r->size);
            memset(r->value + r->size, 0, sizeof r->value - r->size);
            nv += r->size;
        }
        if (__builtin_expect(r->type == TMC_ENDING, 0)) {
            s->cut = r->flags;
            s->sig = (unsigned)r->count;
        }
        int rc = tm_model_put(m, r);
        if (__builtin_expect(rc != TM_OK, 0)) {
            /* Its offset in the stream is found by vsrc_finish. */
            snprintf(s->merr, sizeof s->merr, "%s", tm_model_error(m));
            s->model_rc = rc;
            s->bad_rec = s->nmodel + i;
            tm_model_free(m);
            s->m = NULL;
            return;
        }
    }
    s->nmodel += b->n;
    compare_some(s);
}

/* The stream ended: the model's end and its last bits. */
static void model_end(vsrc *s)
{
    if (!s->m || s->model_done)
        return;
    s->model_done = 1;
    int rc = tm_model_finish(s->m);
    if (rc != TM_OK) {
        snprintf(s->merr, sizeof s->merr, "%s", tm_model_error(s->m));
        s->model_rc = rc;
        return;
    }
    if (s->diff != NO_DIFF)
        return;
    const tm_bitbuf *bb = tm_model_trace(s->m);
    uint64_t done = tm_model_trace_dropped(s->m), start = done * 8;
    uint64_t total = start + bb->nbits, n = total < s->tf->bits ? total : s->tf->bits;
    if (n <= start)
        return;
    const uint8_t *a = bb->data, *b = s->tf->data + done;
    for (uint64_t k = 0; k < n - start; k++)
        if (((a[k / 8] ^ b[k / 8]) >> (k % 8)) & 1) {
            s->diff = start + k;
            return;
        }
}

static void *modeller(void *arg)
{
    vsrc *s = arg;
    yield_to_replay();
    for (;;) {
        wait_for(s, R_MODEL);
        if (ends(s, R_MODEL))
            return NULL;
        const vbatch *b = &s->b[atomic_load(&s->cons[R_MODEL]) % NB];
        model_batch(s, b);
        int last = b->last;
        atomic_fetch_add(&s->cons[R_MODEL], 1);
        wake(s, R_READ);
        if (last)
            break;
    }
    model_end(s);
    return NULL;
}

/* ---------------------------------------------------------------- the replay */

int vsrc_open(const char *tmc_path, const tmt_file *tf, int check_file, int threaded, vsrc **out, char *err,
              size_t errlen)
{
    *out = NULL;
    vsrc *s = aligned_alloc(64, sizeof *s); /* a multiple of 64 (_Alignas) */
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return TM_ERR_NOMEM;
    }
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    for (int i = 0; i < ROLES; i++)
        pthread_cond_init(&s->cv[i], NULL);
    s->path = tmc_path;
    s->tf = tf;
    s->diff = NO_DIFF;
    s->bad_rec = UINT64_MAX;
    s->check_file = check_file;
    int rc = tmc_reader_open(tmc_path, &s->rd, err, errlen);
    if (rc != TM_OK) {
        vsrc_close(s);
        return rc;
    }
    for (int i = 0; i < NB; i++)
        if (!(s->b[i].r = aligned_alloc(64, BATCH * sizeof *s->b[i].r)) || /* whole lines */
            !(s->b[i].val = aligned_alloc(64, (size_t)BATCH * TMC_MAX_OPERAND))) {
            vsrc_close(s);
            snprintf(err, errlen, "out of memory");
            return TM_ERR_NOMEM;
        }
    s->threads_ok = tmc_reader_threads(s->rd) == tf->cfg.enc.threads;
    if (check_file && s->threads_ok) {
        char me[400];
        if ((rc = tm_model_new(&tf->cfg, &s->m, me, sizeof me)) != TM_OK) {
            snprintf(s->merr, sizeof s->merr, "cannot create the model: %s", me);
            s->model_rc = rc;
            s->m = NULL;
        }
    }
    /* A thread that cannot be started: its work is done on this one. */
    if (threaded && s->m)
        s->modelling = pthread_create(&s->th_model, NULL, modeller, s) == 0;
    if (threaded)
        s->reading = pthread_create(&s->th_read, NULL, reader, s) == 0;
    *out = s;
    return TM_OK;
}

uint32_t vsrc_threads(const vsrc *s) { return tmc_reader_threads(s->rd); }

/* The replay's next batch, or NULL after the last one. */
static vbatch *next_batch(vsrc *s)
{
    if (s->cur) {
        if (s->cur->last)
            return NULL;
        atomic_fetch_add(&s->cons[R_REPLAY], 1);
        wake(s, R_READ);
        s->cur = NULL;
    }
    if (s->reading) {
        wait_for(s, R_REPLAY);
    } else {
        wait_for(s, R_READ); /* the model's thread, if any, may be behind */
        produce(s);
    }
    vbatch *b = &s->b[atomic_load(&s->cons[R_REPLAY]) % NB];
    if (!s->modelling)
        model_batch(s, b);
    s->cur = b;
    s->view.at = b->r;
    s->view.end = b->r + b->n;
    s->view.val = b->val;
    return b;
}

int vsrc_next_batch(vsrc *s, const tmc_record **r)
{
    for (;;) {
        if (s->cur && s->cur->last)
            return s->cur->rc;
        next_batch(s);
        if (s->view.at < s->view.end)
            return vsrc_next(s, r);
    }
}

const char *vsrc_error(const vsrc *s)
{
    return s->cur && s->cur->last ? s->rerr : "";
}

/* Joins the threads (after what they wait for was set: the last batch,
 * STOP or QUIT).  The reader first: it reads MODELLING. */
static void join(vsrc *s)
{
    if (s->reading) {
        pthread_mutex_lock(&s->mu);
        pthread_cond_signal(&s->cv[R_READ]);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->th_read, NULL);
        s->reading = 0;
    }
    if (s->modelling) {
        pthread_mutex_lock(&s->mu);
        pthread_cond_signal(&s->cv[R_MODEL]);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->th_model, NULL);
        s->modelling = 0;
    }
}

int vsrc_blame(vsrc *s, int rc, char *err, size_t errlen)
{
    if (rc != TM_ERR_MISMATCH)
        return rc;
    atomic_store(&s->stop, 1);
    join(s);
    drain(s);
    if (s->final_rc >= 0)
        return rc;
    snprintf(err, errlen, "%s (the commit stream is damaged; the replay's divergence before that point is not the "
             "trace's)", s->rerr);
    return s->final_rc;
}

/* The stream's offset after its record K (the model refused it), read
 * again; 0 if it cannot be. */
static uint64_t offset_of(const char *path, uint64_t k)
{
    tmc_reader *rd = NULL;
    tmc_record r;
    uint64_t off = 0;
    if (tmc_reader_open(path, &rd, NULL, 0) != TM_OK)
        return 0;
    for (uint64_t i = 0; i <= k && tmc_reader_next(rd, &r) == 1; i++)
        off = tmc_reader_offset(rd);
    tmc_reader_close(rd);
    return off;
}

int vsrc_finish(vsrc *s, char *err, size_t errlen)
{
    const tmt_file *tf = s->tf;
    if (!s->cur || !s->cur->last) { /* the caller stopped early: not a verdict */
        atomic_store(&s->quit, 1);
        join(s);
        snprintf(err, errlen, "%s: the commit stream was not read to its end", s->path);
        return TM_ERR_STATE;
    }
    join(s);
    if (s->final_rc < 0) {
        snprintf(err, errlen, "%s", s->rerr);
        return s->final_rc;
    }
    if (!s->check_file)
        return TM_OK;
    if (!s->threads_ok) {
        snprintf(err, errlen, "the trace's header says %u threads, the commit stream %s declares %u",
                 tf->cfg.enc.threads, s->path, tmc_reader_threads(s->rd));
        return TM_ERR_MISMATCH;
    }
    if (tmc_reader_isa(s->rd) != tf->isa) {
        snprintf(err, errlen, "the trace's header says the program is %s (offset 37), the commit stream %s says %s",
                 tm_isa_name(tf->isa), s->path, tm_isa_name(tmc_reader_isa(s->rd)));
        return TM_ERR_MISMATCH;
    }
    model_end(s);
    if (s->model_rc != TM_OK && s->bad_rec != UINT64_MAX) {
        snprintf(err, errlen, "%s: offset %" PRIu64 ": %s", s->path, offset_of(s->path, s->bad_rec), s->merr);
        return s->model_rc;
    }
    if (s->model_rc != TM_OK || !s->m) {
        snprintf(err, errlen, "%s", s->merr);
        return s->model_rc != TM_OK ? s->model_rc : TM_ERR_STATE;
    }
    const tm_model_stats *st = tm_model_get_stats(s->m);
    uint64_t total = st->bits, n = total < tf->bits ? total : tf->bits;
    uint64_t at = s->diff != NO_DIFF ? s->diff : n;
    if (at < n || total != tf->bits) {
        snprintf(err, errlen,
                 "the trace is not what its header's configuration makes of the commit stream: %s at trace bit "
                 "%" PRIu64 " (the model gives %" PRIu64 " bits, the file holds %" PRIu64 "); the header (buffer %u "
                 "bits, port %u bits/cycle, ...) or the trace is damaged",
                 at < n ? "they differ" : "one ends", at, total, tf->bits, tf->cfg.buffer_bits, tf->cfg.port_bits);
        return TM_ERR_MISMATCH;
    }
    if (st->cycles != tf->cycles) {
        snprintf(err, errlen, "the trailer says %" PRIu64 " cycles, the model's run of the commit stream %" PRIu64,
                 tf->cycles, st->cycles);
        return TM_ERR_MISMATCH;
    }
    for (uint32_t t = 0; tf->thread_insns && t < tf->cfg.enc.threads; t++)
        if (tf->thread_insns[t] != tm_model_thread_stats(s->m, t)->instructions) {
            snprintf(err, errlen,
                     "the trailer says thread %u retired %" PRIu64 " instructions, the commit stream %" PRIu64, t,
                     tf->thread_insns[t], tm_model_thread_stats(s->m, t)->instructions);
            return TM_ERR_MISMATCH;
        }
    unsigned cut = s->cut, sig = s->sig;
    tmt_ending want = cut == TMC_CUT_SIGNAL ? TMT_CUT_SIGNAL : cut == TMC_CUT_SHORT ? TMT_CUT_SHORT : TMT_COMPLETE;
    if (tf->version >= 2 && (tf->ending != want || tf->signal != (want == TMT_CUT_SIGNAL ? sig : 0))) {
        char a[128], b[128];
        snprintf(err, errlen, "the trailer says the recording ended %s, the commit stream %s",
                 tf->ending == TMT_COMPLETE ? "complete" : tmt_ending_str(tf->ending, tf->signal, a, sizeof a),
                 want == TMT_COMPLETE ? "complete" : tmt_ending_str(want, sig, b, sizeof b));
        return TM_ERR_MISMATCH;
    }
    tmt_prog wp = tmt_prog_from_tmc(cut);
    unsigned wcode = wp == TMT_PROG_UNKNOWN ? 0 : sig;
    if (tf->version >= 2 && (tf->prog != wp || tf->prog_code != wcode)) {
        char a[128], b[128];
        snprintf(err, errlen, "the trailer says the program %s, the commit stream %s%s",
                 tf->prog == TMT_PROG_UNKNOWN ? "ended in a way not recorded" : tmt_prog_str(tf->prog, tf->prog_code, a, sizeof a),
                 wp == TMT_PROG_UNKNOWN ? "does not say how it ended" : "that it ",
                 wp == TMT_PROG_UNKNOWN ? "" : tmt_prog_str(wp, wcode, b, sizeof b));
        return TM_ERR_MISMATCH;
    }
    return TM_OK;
}

void vsrc_close(vsrc *s)
{
    if (!s)
        return;
    atomic_store(&s->quit, 1);
    join(s);
    pthread_mutex_destroy(&s->mu);
    for (int i = 0; i < ROLES; i++)
        pthread_cond_destroy(&s->cv[i]);
    for (int i = 0; i < NB; i++)
        free(s->b[i].r), free(s->b[i].val);
    tm_model_free(s->m);
    tmc_reader_close(s->rd);
    free(s);
}
