/* tm — the frontends' emitter (include/tm/capemit.h, docs/capture.md §1–4,
 * docs/pin.md): what the Valgrind tool (vg-frontend/), the QEMU plugin
 * (qemu-frontend/) and the Pin tool (pin-frontend/) emit, and when, with
 * the timing model's frontend half (timing/tfront.c) timing the accesses.
 * Freestanding: no includes but the headers, no library calls (the
 * Valgrind tool is linked without libc); the platform's services come
 * through tmcap_platform. */
#include "capemit_int.h"

#define PIPE_BUF_WORDS (1u << 16)
#define BUF_MARGIN 64u /* room for the largest event a helper writes */
#define MAX_TIDS 1024
#define MAX_WATCH 1024
#define MAX_HOLES 4096

struct tmcap_em {
    tmcap_platform p;
    int out_fd, ack_fd;
    int mem, store_values, sysc;
    int fork_child;       /* this process is a fork of the traced one */
    int ended;            /* END is out: nothing follows it */
    tmcap_word *buf, *shm;
    unsigned pos, buf_words, buf_limit; /* a helper flushes past buf_limit */
    unsigned shm_slots, shm_cur, shm_inflight;
    unsigned cur_tid;
    /* Words the kernel writes on its own (see watch below). */
    tmcap_word clear_tid[MAX_TIDS]; /* per thread: its CLEARTID word */
    tmcap_word pending_clear_tid;   /* of the clone in progress */
    tmcap_word clone_ptid[MAX_TIDS], clone_ctid[MAX_TIDS]; /* per parent, during clone */
    tmcap_word watch_a[MAX_WATCH];
    unsigned watch_v[MAX_WATCH];       /* contents last reported */
    unsigned char watch_end[MAX_WATCH]; /* done once it reads zero (CLEARTID); else once changed */
    unsigned nwatch;
    /* Address ranges that were unmapped (merged, sorted [lo, hi)). */
    tmcap_word hole_lo[MAX_HOLES], hole_hi[MAX_HOLES];
    unsigned nholes;
    tmcap_word brk; /* sys_from_syscalls: the program break (0: not known yet) */
    int isa;        /* TM_ISA_*: the system call numbers' table */
    tmf *tm;        /* the accesses' timing (NULL: none) */
    unsigned drift; /* its turns of time: how far a thread may run ahead (tmf_ahead) */
    unsigned char has_uid[MAX_TIDS]; /* the thread was numbered (its CREATE, or it ran) */
    unsigned next_uid;
    unsigned char in_futex[MAX_TIDS]; /* the thread is in a futex call */
    /* the futex waits in progress, as the turns see them (tmf_thread_wake):
     * the address, the order they began in (0: not waiting) */
    tmcap_word fw_addr[MAX_TIDS];
    unsigned long long fw_seq[MAX_TIDS], fw_next;
    /* a waiter taken for the one a wake released (the kernel may have
     * released another: tmcap_em_syscall_post puts it right), and the
     * waker's estimate then */
    unsigned char fw_guess[MAX_TIDS];
    tmf_word fw_at[MAX_TIDS];
    /* TMF_SYNC: the thread waited for at an atomic instruction, and how
     * many times in a row (at TURN_TRIES it counts as not running) */
    unsigned turn_for[MAX_TIDS];
    unsigned short turn_tries[MAX_TIDS];
};
#define TURN_TRIES 64u

static void copy_bytes(void *dst, const void *src, unsigned long n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--)
        *d++ = *s++;
}

static void move_words(tmcap_word *dst, const tmcap_word *src, unsigned n)
{
    if (dst < src) {
        for (unsigned i = 0; i < n; i++)
            dst[i] = src[i];
    } else {
        while (n--)
            dst[n] = src[n];
    }
}

/* ------------------------------------------------------------ output */

static void stop_tracing(tmcap_em *em, const char *what)
{
    if (em->p.message)
        em->p.message(em->p.ctx, what);
    em->out_fd = -1;
}

void tmcap_em_flush(tmcap_em *em)
{
    if (em->shm) {
        tmcap_word len = (tmcap_word)em->pos * 8;
        em->pos = 0;
        if (em->out_fd < 0 || !len)
            return;
        if (em->p.write(em->p.ctx, em->out_fd, &len, 8) != 8) {
            stop_tracing(em, "write to tm record failed; tracing stops");
            return;
        }
        em->shm_inflight++;
        em->shm_cur = (em->shm_cur + 1) % em->shm_slots;
        em->buf = em->shm + (unsigned long)em->shm_cur * em->buf_words;
        while (em->shm_inflight >= em->shm_slots && em->out_fd >= 0) { /* wait for a free slot */
            unsigned char acks[64];
            long n = em->p.read(em->p.ctx, em->ack_fd, acks, em->shm_inflight < 64 ? em->shm_inflight : 64);
            if (n <= 0)
                stop_tracing(em, "tm record is gone; tracing stops");
            else
                em->shm_inflight -= (unsigned)n;
        }
        return;
    }
    const char *p = (const char *)em->buf;
    long left = (long)em->pos * 8;
    while (left > 0 && em->out_fd >= 0) {
        long n = em->p.write(em->p.ctx, em->out_fd, p, (unsigned long)left);
        if (n <= 0) {
            stop_tracing(em, "write to tm record failed; tracing stops");
            break;
        }
        p += n;
        left -= n;
    }
    em->pos = 0;
}

static inline void put(tmcap_em *em, tmcap_word w)
{
    em->buf[em->pos++] = w;
}

static inline void room(tmcap_em *em, unsigned words)
{
    if (em->pos + words > em->buf_words)
        tmcap_em_flush(em);
}

/* N bytes from SRC (the tool's memory), or with FROM_PROGRAM the program's
 * memory at address SRC: words, the last one zero-padded. */
static void put_bytes(tmcap_em *em, const void *src, tmcap_word a, unsigned long n, int from_program)
{
    const unsigned char *s = src;
    while (n) {
        tmcap_word w = 0;
        unsigned k = n < 8 ? (unsigned)n : 8;
        if (from_program)
            em->p.copy(em->p.ctx, &w, a, k);
        else
            copy_bytes(&w, s, k);
        room(em, 1);
        put(em, w);
        s += k;
        a += k;
        n -= k;
    }
}

static void switch_to(tmcap_em *em, unsigned tid)
{
    if (tid != em->cur_tid) {
        room(em, 1);
        put(em, tmcap_thread(tid));
        em->cur_tid = tid;
    }
}

/* A dependency of the running thread's block (tm/tfront.h): a DEP event. */
static void on_dep(void *ctx, unsigned kind, unsigned uid, tmf_word k)
{
    tmcap_em *em = ctx;
    room(em, 2);
    put(em, TMCAP_DEP | (tmcap_word)kind << 8 | (tmcap_word)(uid & 0xffffff) << 16);
    put(em, k);
}

tmcap_em *tmcap_em_new(const tmcap_platform *p, const tmcap_em_cfg *cfg)
{
    return tmcap_em_new_isa(p, cfg, TM_ISA_X86_64);
}

tmcap_em *tmcap_em_new_isa(const tmcap_platform *p, const tmcap_em_cfg *cfg, int isa)
{
    tmcap_em *em = p->alloc(p->ctx, sizeof *em);
    if (!em)
        return 0;
    unsigned char *z = (unsigned char *)em;
    for (unsigned long i = 0; i < sizeof *em; i++)
        z[i] = 0;
    em->p = *p;
    em->out_fd = cfg->fd;
    em->ack_fd = -1;
    em->mem = cfg->mem;
    em->store_values = cfg->store_values;
    em->sysc = cfg->sys_from_syscalls;
    em->isa = isa;
    if (cfg->shm) {
        em->shm = cfg->shm;
        em->ack_fd = cfg->ack_fd;
        em->shm_slots = cfg->slots;
        em->buf_words = (unsigned)(cfg->slot_bytes / 8);
        em->buf = em->shm;
    } else {
        em->buf_words = PIPE_BUF_WORDS;
        em->buf = p->alloc(p->ctx, PIPE_BUF_WORDS * sizeof(tmcap_word));
        if (!em->buf)
            return 0;
    }
    em->buf_limit = em->buf_words - BUF_MARGIN;
    put(em, TMCAP_MAGIC);
    if (em->isa != TM_ISA_X86_64)
        put(em, TMCAP_ISA | (tmcap_word)(em->isa & 0xff) << 8);
    if (cfg->timing) {
        const tmf_cfg *m = cfg->timing;
        em->tm = tmf_new(m, p->alloc, p->ctx, on_dep, em);
        if (!em->tm)
            return 0;
        em->drift = m->drift;
        put(em, TMCAP_TIMING | (tmcap_word)(m->flags & 0xff) << 8);
        put(em, m->line);
        const tmf_cache *cs[3] = {&m->l1i, &m->l1, &m->l2};
        for (int i = 0; i < 3; i++)
            put(em, (tmcap_word)cs[i]->size | (tmcap_word)cs[i]->ways << 32 | (tmcap_word)cs[i]->lat << 40);
        put(em, m->mem_lat);
    }
    return em;
}

int tmcap_em_open(const tmcap_em *em) { return em->out_fd >= 0; }

/* ------------------------------------------------------------ blocks */

void tmcap_em_block(tmcap_em *em, tmcap_word id, const tmcap_word *ia, const unsigned *il, unsigned ni,
                    const tmcap_exit *xs, unsigned nx)
{
    room(em, tmcap_block_words(ni, nx));
    tmcap_block(em->buf + em->pos, id, ia, il, ni, xs, nx);
    em->pos += tmcap_block_words(ni, nx);
    if (em->tm && ni && nx <= TMCAP_MAX_EXITS) {
        /* the bytes each exit retires: instructions 0..k (0..k-1 for STAY) */
        tmf_word ends[TMCAP_MAX_EXITS];
        unsigned nret[TMCAP_MAX_EXITS];
        for (unsigned j = 0; j < nx; j++) {
            unsigned k = xs[j].insn < ni ? xs[j].insn : ni - 1, n = xs[j].kind == TMCAP_X_STAY ? k : k + 1;
            ends[j] = n ? ia[n - 1] + il[n - 1] : ia[0];
            nret[j] = n;
        }
        tmf_block(em->tm, id, ia[0], ends, nret, nx);
    }
}

/* The running thread furthest behind thread ME by more than SLACK cycles
 * (its id + 1; 0: none); on the way, those asleep in their futex waits
 * count as not running until a wake releases them. */
static unsigned behind(tmcap_em *em, unsigned me, tmf_word slack)
{
    for (;;) {
        unsigned who = tmf_behind(em->tm, me, slack), w = who - 1;
        if (!who || w >= MAX_TIDS || !em->in_futex[w] || !(em->fw_seq[w] || em->fw_guess[w]) || !em->p.asleep ||
            !em->p.asleep(em->p.ctx, w, em->fw_addr[w]))
            return who;
        em->fw_guess[w] = 0;
        tmf_thread_idle(em->tm, w);
    }
}

/* Thread ME waits for thread WHO (id + 1) once more: 1 if it has waited
 * TURN_TRIES times in a row for it, which then counts as not running (it
 * is blocked where the emitter cannot see). */
static int waited_in_vain(tmcap_em *em, unsigned me, unsigned who)
{
    if (who != em->turn_for[me]) {
        em->turn_for[me] = who;
        em->turn_tries[me] = 0;
    }
    if (++em->turn_tries[me] < TURN_TRIES)
        return 0;
    tmf_thread_idle(em->tm, who - 1);
    em->turn_tries[me] = 0;
    return 1;
}

/* The EXEC of W0 (tmcap_exec) with its block run's stalls: the short form,
 * or a STALL and an EXECL for what does not fit; the target follows if
 * DYN.  ROOM: a caller's helper path has its room (BUF_MARGIN). */
static inline void exec_word(tmcap_em *em, tmcap_word w0, int dyn, tmcap_word target)
{
    tmcap_word data = 0, ifetch = 0;
    if (em->tm) {
        tmf_exec(em->tm, em->cur_tid, w0 >> 16, (unsigned)(w0 >> 8) & 0xff, &data, &ifetch);
        if (em->p.yield && em->drift && em->cur_tid < MAX_TIDS && tmf_ahead(em->tm, em->cur_tid, em->drift)) {
            /* the others' turn: the serial order follows their time */
            unsigned who = behind(em, em->cur_tid, em->drift);
            if (who && !waited_in_vain(em, em->cur_tid, who))
                em->p.yield(em->p.ctx, 0);
        }
    }
    if (w0 >> 40 == 0 && data < 4096 && ifetch < 4096) {
        em->buf[em->pos++] = w0 | data << 40 | ifetch << 52;
    } else {
        if (data || ifetch) {
            em->buf[em->pos++] = TMCAP_STALL;
            em->buf[em->pos++] = data;
            em->buf[em->pos++] = ifetch;
        }
        if (w0 >> 40 == 0) {
            em->buf[em->pos++] = w0;
        } else {
            em->buf[em->pos++] = TMCAP_EXECL | (w0 & 0xff00);
            em->buf[em->pos++] = w0 >> 16;
        }
    }
    if (dyn)
        em->buf[em->pos++] = target;
    if (em->pos > em->buf_limit)
        tmcap_em_flush(em);
}

int tmcap_em_turn(tmcap_em *em)
{
    unsigned me = em->cur_tid;
    if (!em->tm || !em->p.yield || !(tmf_config(em->tm)->flags & TMF_SYNC) || me >= MAX_TIDS)
        return 1;
    for (;;) {
        unsigned who = behind(em, me, tmf_config(em->tm)->turn);
        if (!who) {
            em->turn_tries[me] = 0;
            return 1;
        }
        if (!waited_in_vain(em, me, who)) {
            em->p.yield(em->p.ctx, em->turn_tries[me]);
            return 0;
        }
    }
}

void tmcap_em_exec(tmcap_em *em, tmcap_word w0)
{
    exec_word(em, w0, 0, 0);
}

void tmcap_em_exec_dyn(tmcap_em *em, tmcap_word w0, tmcap_word target)
{
    exec_word(em, w0, 1, target);
}

/* ------------------------------------------------------------ watched words
 *
 * Words the kernel writes on its own, at a moment no callback tells: the
 * thread id that clone(CLONE_PARENT_SETTID, CLONE_CHILD_SETTID) stores
 * (Valgrind reports it when the parent's system call returns, which may be
 * after the child ran, and not before the parent's next load), and the
 * zero that CLONE_CHILD_CLEARTID / set_tid_address stores when a thread
 * has ended (after the platform has let the thread go: pthread_join waits
 * on it, and may load the old id after the thread's end).  Such a word is
 * watched from the clone (or the thread's end) until it has changed: when
 * a thread resumes, and before a memory operand on it, its contents are
 * compared with what was last reported, and a change is reported as a
 * write by the system of the running thread (docs/capture.md §4). */

static unsigned read32(tmcap_em *em, tmcap_word a)
{
    unsigned v = 0;
    em->p.copy(em->p.ctx, &v, a, 4);
    return v;
}

static void watch(tmcap_em *em, tmcap_word a, int end)
{
    if (!em->mem || !a || !em->p.readable(em->p.ctx, a, 4))
        return;
    for (unsigned i = 0; i < em->nwatch; i++)
        if (em->watch_a[i] == a) { /* already watched: what it waits for now */
            em->watch_end[i] = (unsigned char)end;
            return;
        }
    if (em->nwatch == MAX_WATCH)
        return;
    em->watch_a[em->nwatch] = a;
    em->watch_v[em->nwatch] = read32(em, a);
    em->watch_end[em->nwatch] = (unsigned char)end;
    em->nwatch++;
}

static void unwatch(tmcap_em *em, unsigned i)
{
    em->nwatch--;
    em->watch_a[i] = em->watch_a[em->nwatch];
    em->watch_v[i] = em->watch_v[em->nwatch];
    em->watch_end[i] = em->watch_end[em->nwatch];
}

/* Stops watching the words at A .. A + LEN - 1 (unmapped, or a clone that
 * failed). */
static void unwatch_range(tmcap_em *em, tmcap_word a, tmcap_word len)
{
    for (unsigned i = 0; i < em->nwatch;) {
        if (em->watch_a[i] >= a && em->watch_a[i] - a < len)
            unwatch(em, i);
        else
            i++;
    }
}

/* Watched word I, whose contents are V: reported by TID (0: the running
 * thread) if it changed (a write by the system of V itself: the kernel may
 * write again while this runs); 1 if it is done. */
static int watch_check_v(tmcap_em *em, unsigned tid, unsigned i, unsigned v)
{
    if (v == em->watch_v[i])
        return 0;
    if (tid)
        switch_to(em, tid);
    if (em->tm) /* a write by the system: ordered, and a block of its own (as every sys MEM) */
        tmf_access(em->tm, em->cur_tid, em->watch_a[i], 4, 1, 1);
    room(em, 3);
    em->buf[em->pos] = tmcap_sys_mem(4);
    em->buf[em->pos + 1] = em->watch_a[i];
    em->buf[em->pos + 2] = v;
    em->pos += 3;
    em->watch_v[i] = v;
    return !em->watch_end[i] || v == 0;
}

/* Before a memory operand at A (SIZE bytes) of the running thread, whose
 * bytes are SNAP (NULL: a store sent without its value): a watched word
 * the operand covers is taken from SNAP, so that the word's report and the
 * operand agree. */
static void watch_op(tmcap_em *em, tmcap_word a, unsigned size, const unsigned char *snap)
{
    for (unsigned i = 0; i < em->nwatch;) {
        tmcap_word w = em->watch_a[i];
        int done = 0;
        if (a < w + 4 && w < a + size) {
            unsigned v;
            if (snap && w >= a && w + 4 <= a + size)
                copy_bytes(&v, snap + (w - a), 4);
            else
                v = read32(em, w);
            done = watch_check_v(em, em->cur_tid, i, v);
        }
        if (done)
            unwatch(em, i);
        else
            i++;
    }
}

/* Thread TID, created by PARENT (0: none), is numbered: the next uid
 * (tm/capwire.h's CREATE). */
static unsigned give_uid(tmcap_em *em, unsigned tid, unsigned parent)
{
    unsigned uid = em->next_uid++;
    if (tid < MAX_TIDS)
        em->has_uid[tid] = 1;
    if (em->tm)
        tmf_thread_new(em->tm, tid, uid, parent ? parent : TMF_MAX_TIDS);
    return uid;
}

void tmcap_em_resume(tmcap_em *em, unsigned tid)
{
    if (tid < MAX_TIDS && !em->has_uid[tid])
        give_uid(em, tid, 0); /* a thread nobody created: the program's first */
    switch_to(em, tid);
    for (unsigned i = 0; i < em->nwatch;) {
        if (!em->p.readable(em->p.ctx, em->watch_a[i], 4) || watch_check_v(em, tid, i, read32(em, em->watch_a[i])))
            unwatch(em, i);
        else
            i++;
    }
}

/* ------------------------------------------------------------ memory operands */

void tmcap_em_mem_value(tmcap_em *em, tmcap_word w0, tmcap_word a, const void *value)
{
    unsigned size = (unsigned)(w0 >> 16) & 0xff;
    unsigned nw = 0;
    tmcap_word v[8];
    if (!(w0 & TMCAP_MEM_NOVALUE)) { /* memory is read once: the value reported */
        nw = (size + 7) / 8;
        v[nw - 1] = 0;
        if (value)
            copy_bytes(v, value, size);
        else if (!em->p.copy(em->p.ctx, v, a, size))
            return; /* not readable: the instruction faults, it does not retire */
    }
    if (em->nwatch && !(w0 & (1ull << 9))) {
        /* A word the kernel writes on its own may have changed: reported
         * first, as this operand's bytes have it. */
        watch_op(em, a, size, nw ? (const unsigned char *)v : 0);
    }
    if (em->tm) { /* its cost goes with it (its group's), the block's EXEC has the rest */
        unsigned cost = tmf_access(em->tm, em->cur_tid, a, size, (w0 & TMCAP_MEM_STORE) != 0, (w0 & (1ull << 9)) != 0);
        tmf_take_data(em->tm, em->cur_tid);
        w0 |= (tmcap_word)(cost < (1u << 24) ? cost : (1u << 24) - 1) << 40;
    }
    room(em, 2 + nw);
    em->buf[em->pos] = w0;
    em->buf[em->pos + 1] = a;
    for (unsigned q = 0; q < nw; q++)
        em->buf[em->pos + 2 + q] = v[q];
    em->pos += 2 + nw;
    if (em->pos > em->buf_limit)
        tmcap_em_flush(em);
}

void tmcap_em_mem(tmcap_em *em, tmcap_word w0, tmcap_word a)
{
    tmcap_em_mem_value(em, w0, a, 0);
}

void tmcap_em_access(tmcap_em *em, tmcap_word a, unsigned size, int store)
{
    if (em->tm)
        tmf_access(em->tm, em->cur_tid, a, size, store, 0);
    if (em->pos > em->buf_limit) /* dependencies may have been written */
        tmcap_em_flush(em);
}

/* ------------------------------------------------------------ threads, signals */

/* Thread TID's CLEARTID word is A (0: none): a CTID event. */
static void set_clear_tid(tmcap_em *em, unsigned tid, tmcap_word a)
{
    if (tid >= MAX_TIDS)
        return;
    em->clear_tid[tid] = a;
    if (a) {
        room(em, 2);
        put(em, TMCAP_CTID | (tmcap_word)tid << 8);
        put(em, a);
    }
}

void tmcap_em_thread_create(tmcap_em *em, unsigned parent, unsigned child)
{
    unsigned uid = give_uid(em, child, parent);
    room(em, 2);
    put(em, tmcap_create(child, parent));
    put(em, uid);
    if (child < MAX_TIDS) {
        set_clear_tid(em, child, em->pending_clear_tid);
        em->pending_clear_tid = 0;
    }
}

/* Thread WAKER's wake released up to N threads waiting on futex word A
 * (the longest waiting first, as the kernel does); with TO, up to N2 more
 * waiting on A move to word TO (a requeue).  For the turns of time. */
static void futex_woke(tmcap_em *em, unsigned waker, tmcap_word a, unsigned long long n, tmcap_word to,
                       unsigned long long n2)
{
    if (to == a)
        n2 = 0;
    while (n || n2) {
        unsigned best = MAX_TIDS;
        for (unsigned i = 0; i < MAX_TIDS; i++)
            if (em->fw_seq[i] && em->fw_addr[i] == a && (best == MAX_TIDS || em->fw_seq[i] < em->fw_seq[best]))
                best = i;
        if (best == MAX_TIDS)
            return;
        if (n) {
            n--;
            em->fw_seq[best] = 0;
            em->fw_guess[best] = 1;
            em->fw_at[best] = tmf_estimate(em->tm, waker);
            tmf_thread_wake(em->tm, best, em->fw_at[best]);
        } else {
            n2--;
            em->fw_addr[best] = to;
            em->fw_seq[best] = ++em->fw_next; /* behind the waiters there */
        }
    }
}

void tmcap_em_thread_exit(tmcap_em *em, unsigned tid)
{
    tmcap_word ctid = tid < MAX_TIDS ? em->clear_tid[tid] : 0;
    if (ctid) {
        watch(em, ctid, 1); /* the kernel zeroes it after this */
        em->clear_tid[tid] = 0;
    }
    if (em->tm) {
        if (ctid) /* the kernel's wake of a joiner */
            futex_woke(em, tid, ctid, 1, 0, 0);
        tmf_thread_end(em->tm, tid, ctid);
    }
    if (tid < MAX_TIDS)
        em->fw_seq[tid] = em->fw_guess[tid] = 0;
    room(em, 1);
    put(em, tmcap_exit_thread(tid));
}

void tmcap_em_signal(tmcap_em *em, unsigned tid, int sig, tmcap_word pc)
{
    if (tid < MAX_TIDS) /* a signal ends the system call it interrupts */
        em->in_futex[tid] = 0, em->fw_seq[tid] = em->fw_guess[tid] = 0;
    switch_to(em, tid);
    room(em, 2);
    put(em, tmcap_signal(tid, sig));
    put(em, pc);
}

void tmcap_em_sigret(tmcap_em *em, unsigned tid)
{
    switch_to(em, tid);
    room(em, 1);
    put(em, tmcap_sigret(tid));
}

/* ------------------------------------------------------------ mappings */

void tmcap_em_map(tmcap_em *em, tmcap_word a, tmcap_word len, tmcap_word off, const char *path, unsigned pathlen)
{
    if (pathlen == 0 || pathlen > TMCAP_MAX_PATH || len == 0)
        return;
    room(em, 4 + (pathlen + 7) / 8);
    put(em, tmcap_map(pathlen));
    put(em, a);
    put(em, len);
    put(em, off);
    put_bytes(em, path, 0, pathlen, 0);
}

void tmcap_em_vdso_bytes(tmcap_em *em, tmcap_word a, const void *bytes, tmcap_word len)
{
    if (len == 0 || len > TMCAP_MAX_VDSO)
        return;
    room(em, 2);
    put(em, tmcap_vdso((unsigned)len));
    put(em, a);
    put_bytes(em, bytes, a, len, 0);
}

void tmcap_em_vdso(tmcap_em *em, tmcap_word a, tmcap_word len)
{
    if (len == 0 || len > TMCAP_MAX_VDSO)
        return;
    room(em, 2);
    put(em, tmcap_vdso((unsigned)len));
    put(em, a);
    put_bytes(em, 0, a, len, 1);
}

/* ------------------------------------------------------------ system writes
 *
 * Memory the program's instructions did not write but whose contents
 * changed — a system call's output, a signal frame, a mapping placed where
 * an earlier one was unmapped, madvise(DONTNEED) — is reported as stores of
 * the running thread with no instruction (insn 0xffff, the SYS bit), in
 * parts of at most 64 bytes, so that the trace module's caches and the
 * debugger's copy of memory see it (docs/capture.md §4). */

void tmcap_em_sys_write(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len)
{
    if (!em->mem || len == 0)
        return;
    if (tid)
        switch_to(em, tid);
    while (len) {
        unsigned s = len > 64 ? 64 : (unsigned)len;
        room(em, 2 + 8);
        tmcap_em_mem(em, tmcap_sys_mem(s), a);
        a += s;
        len -= s;
    }
}

void tmcap_em_post_mem_write(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len)
{
    if (tid < MAX_TIDS && len == 4 &&
        ((em->clone_ptid[tid] && a == em->clone_ptid[tid]) || (em->clone_ctid[tid] && a == em->clone_ctid[tid])))
        return; /* watched (tmcap_em_syscall_pre) */
    tmcap_em_sys_write(em, tid, a, len);
}

static void add_hole(tmcap_em *em, tmcap_word a, tmcap_word len)
{
    if (!em->mem || !len)
        return;
    tmcap_word lo = a, hi = a + len;
    tmcap_word *hl = em->hole_lo, *hh = em->hole_hi;
    unsigned i = 0, j;
    while (i < em->nholes && hh[i] < lo)
        i++;
    for (j = i; j < em->nholes && hl[j] <= hi; j++) {
        if (hl[j] < lo)
            lo = hl[j];
        if (hh[j] > hi)
            hi = hh[j];
    }
    /* [i, j) merge into one */
    if (j == i) {
        if (em->nholes == MAX_HOLES) { /* forget the smallest-address one */
            move_words(hl, hl + 1, em->nholes - 1);
            move_words(hh, hh + 1, em->nholes - 1);
            em->nholes--;
            if (i)
                i--;
        }
        move_words(hl + i + 1, hl + i, em->nholes - i);
        move_words(hh + i + 1, hh + i, em->nholes - i);
        em->nholes++;
    } else if (j > i + 1) {
        move_words(hl + i + 1, hl + j, em->nholes - j);
        move_words(hh + i + 1, hh + j, em->nholes - j);
        em->nholes -= j - i - 1;
    }
    hl[i] = lo;
    hh[i] = hi;
}

void tmcap_em_new_contents(tmcap_em *em, unsigned tid, tmcap_word a, tmcap_word len)
{
    if (!em->mem || !len)
        return;
    tmcap_word e = a + len;
    for (unsigned i = 0; i < em->nholes; i++) {
        tmcap_word lo = em->hole_lo[i] > a ? em->hole_lo[i] : a, hi = em->hole_hi[i] < e ? em->hole_hi[i] : e;
        if (lo >= hi)
            continue;
        /* only what the program can read now (the rest is reported when
         * an mprotect makes it readable) */
        for (tmcap_word p = lo; p < hi;) {
            int rd = 0;
            tmcap_word se = em->p.region(em->p.ctx, p, hi, &rd);
            if (se <= p)
                break;
            if (se > hi)
                se = hi;
            if (rd)
                tmcap_em_sys_write(em, tid, p, se - p);
            p = se;
        }
    }
}

void tmcap_em_unmapped(tmcap_em *em, tmcap_word a, tmcap_word len)
{
    add_hole(em, a, len);
    unwatch_range(em, a, len);
}

void tmcap_em_remapped(tmcap_em *em, tmcap_word from, tmcap_word to, tmcap_word len)
{
    /* the contents move: stores at the new place, a hole at the old */
    if (from != to) {
        add_hole(em, from, len);
        tmcap_em_sys_write(em, em->cur_tid, to, len);
    }
}

/* ------------------------------------------------------------ system calls */

/* Whether futex op OP waits (its result is not a count of waiters woken). */
static int is_futex_wait(tmcap_word op)
{
    op &= 127;
    /* WAIT, LOCK_PI, TRYLOCK_PI, WAIT_BITSET, WAIT_REQUEUE_PI, LOCK_PI2 */
    return op == 0 || op == 6 || op == 8 || op == 9 || op == 11 || op == 13;
}

/* Whether system call NO (x86-64's numbers) is one that waits for another
 * thread or for time: the thread does not run meanwhile (the turns of
 * time, tmf_thread_sys); the others return at once, or soon.  A futex
 * wait counts as running until a wake released it or the platform says
 * it sleeps (tmcap_em_turn): it may not sleep at all (EAGAIN). */
static int sleeps(unsigned no)
{
    switch (no) {
    case NR_wait4: case NR_poll: case NR_select: case NR_pselect6: case NR_ppoll: case NR_epoll_wait:
    case NR_epoll_pwait: case NR_accept: case NR_accept4: case NR_nanosleep: case NR_clock_nanosleep:
        return 1;
    default:
        return 0;
    }
}

void tmcap_em_syscall_pre(tmcap_em *em, unsigned tid, unsigned no, const tmcap_word *args_isa)
{
    tmcap_word args[6];
    unsigned sno = no; /* the ISA's number: the stream's */
    no = tmcap_canon(em->isa, no, args_isa, args);
    if (em->tm && sleeps(no))
        tmf_thread_sys(em->tm, tid, 1);
    if (no == NR_futex && tid < MAX_TIDS) {
        /* with its address, op, count, second address and count: the
         * timing model pairs waits and wakes (docs/capture.md §3) */
        em->in_futex[tid] = 1;
        em->fw_seq[tid] = em->fw_guess[tid] = 0;
        if (em->tm && is_futex_wait(args[1])) {
            em->fw_addr[tid] = args[0];
            em->fw_seq[tid] = ++em->fw_next;
        }
        room(em, 5);
        put(em, tmcap_syscall(tid, sno, 0) | 1ull << 33);
        put(em, args[0]);
        put(em, (args[1] & 0xffffffffu) | args[2] << 32);
        put(em, args[4]);
        put(em, args[3]);
        return;
    }
    room(em, 1);
    put(em, tmcap_syscall(tid, sno, 0));
    if ((no == NR_execve || no == NR_execveat) && !em->fork_child && em->out_fd >= 0) {
        /* if it succeeds the new image runs natively and the channel
         * (close-on-exec) closes: say so first. */
        room(em, 1);
        put(em, tmcap_execve(tid));
        tmcap_em_flush(em);
    }
    if (no == NR_clone && tid < MAX_TIDS) { /* clone(flags, sp, ptid, ctid, tls) */
        if (args[0] & 0x00200000) /* CLONE_CHILD_CLEARTID */
            em->pending_clear_tid = args[3];
        em->clone_ptid[tid] = (args[0] & 0x00100000) ? args[2] : 0; /* CLONE_PARENT_SETTID */
        em->clone_ctid[tid] = (args[0] & 0x01000000) ? args[3] : 0; /* CLONE_CHILD_SETTID */
        watch(em, em->clone_ptid[tid], 0);
        watch(em, em->clone_ctid[tid], 0);
    } else if (no == NR_set_tid_address && tid < MAX_TIDS) {
        set_clear_tid(em, tid, args[0]);
    }
}

/* The address space's changes a platform without memory events (Pin)
 * learns from the system calls. */
static void sysc_post(tmcap_em *em, unsigned tid, unsigned no, const tmcap_word *args, tmcap_word res)
{
    tmcap_word ra[16], rl[16];
    unsigned n = tmcap_syscall_writes_x86(em->isa != TM_ISA_X86_64, no, args, res, em->p.copy, em->p.ctx, ra, rl, 16);
    for (unsigned i = 0; i < n; i++)
        tmcap_em_sys_write(em, tid, ra[i], rl[i]);
    switch (no) {
    case NR_mmap:
        tmcap_em_new_contents(em, tid, res, args[1]);
        break;
    case NR_munmap:
        tmcap_em_unmapped(em, args[0], args[1]);
        break;
    case NR_mremap:
        tmcap_em_remapped(em, args[0], res, args[1] < args[2] ? args[1] : args[2]);
        break;
    case NR_mprotect:
        if (args[2] & 1) /* PROT_READ */
            tmcap_em_new_contents(em, tid, args[0], args[1]);
        break;
    case NR_brk:
        if (em->brk && res > em->brk)
            tmcap_em_new_contents(em, tid, em->brk, res - em->brk);
        else if (em->brk && res < em->brk)
            tmcap_em_unmapped(em, res, em->brk - res);
        em->brk = res;
        break;
    default:
        break;
    }
}


void tmcap_em_syscall_post(tmcap_em *em, unsigned tid, unsigned no, const tmcap_word *args_isa, tmcap_word res,
                           int err)
{
    tmcap_word args[6];
    unsigned sno = no;
    no = tmcap_canon(em->isa, no, args_isa, args);
    if (em->tm)
        tmf_thread_sys(em->tm, tid, 0);
    if (tid < MAX_TIDS && em->in_futex[tid]) {
        em->in_futex[tid] = 0;
        if (em->tm && em->fw_seq[tid] && !err && res == 0) {
            /* released by a wake that was taken for another waiter's: that
             * one still waits */
            for (unsigned i = 0; i < MAX_TIDS; i++)
                if (em->fw_guess[i] && em->fw_addr[i] == em->fw_addr[tid]) {
                    em->fw_guess[i] = 0;
                    em->fw_seq[i] = em->fw_seq[tid];
                    tmf_thread_sys(em->tm, i, 1);
                    tmf_thread_wake(em->tm, tid, em->fw_at[i]);
                    break;
                }
        }
        em->fw_seq[tid] = 0;
        em->fw_guess[tid] = 0;
        if (em->tm && !err && !is_futex_wait(args[1])) {
            /* VAL waiters released: those the kernel woke (RES), and those
             * that had not gone to sleep yet, which find the word changed
             * (EAGAIN) -- the waiters the emitter saw enter, the longest
             * waiting first */
            unsigned op = (unsigned)(args[1] & 127);
            unsigned long long val = args[2] & 0xffffffffu, val2 = args[3] & 0xffffffffu;
            if (op == 3 || op == 4) { /* REQUEUE, CMP_REQUEUE: VAL woken, up to VAL2 moved */
                futex_woke(em, tid, args[0], val, args[4], val2);
            } else if (op == 5) { /* WAKE_OP: VAL on the first word, VAL2 on the second */
                futex_woke(em, tid, args[0], val, 0, 0);
                futex_woke(em, tid, args[4], val2, 0, 0);
            } else {
                futex_woke(em, tid, args[0], val, 0, 0);
            }
        }
        room(em, 2);
        put(em, tmcap_syscall(tid, sno, 1) | 1ull << 33);
        put(em, err ? (tmcap_word)0 - res : res);
        return;
    }
    room(em, 1);
    put(em, tmcap_syscall(tid, sno, 1));
    if (no == NR_clone && tid < MAX_TIDS) {
        if (err) { /* no thread: nothing will be written */
            unwatch_range(em, em->clone_ptid[tid], 1);
            unwatch_range(em, em->clone_ctid[tid], 1);
        }
        em->clone_ptid[tid] = em->clone_ctid[tid] = 0;
    }
    if (em->sysc && !err)
        sysc_post(em, tid, no, args, res);
    /* madvise(MADV_DONTNEED = 4, MADV_REMOVE = 9): the range reads zero */
    if (no == NR_madvise && !err && (args[2] == 4 || args[2] == 9)) {
        add_hole(em, args[0], args[1]);
        tmcap_em_new_contents(em, tid, args[0], args[1]);
    }
}

/* ------------------------------------------------------------ fork, end */

void tmcap_em_fork_pre(tmcap_em *em)
{
    tmcap_em_flush(em);
}

void tmcap_em_fork_child(tmcap_em *em)
{
    if (em->out_fd >= 0)
        em->p.close(em->p.ctx, em->out_fd);
    em->out_fd = -1;
    if (em->shm) {
        /* The slots are shared with the parent: this process writes its
         * (discarded) stream into a private buffer instead. */
        em->p.close(em->p.ctx, em->ack_fd);
        em->ack_fd = -1;
        em->shm = 0;
        em->buf_words = PIPE_BUF_WORDS;
        em->buf_limit = em->buf_words - BUF_MARGIN;
        em->buf = em->p.alloc(em->p.ctx, PIPE_BUF_WORDS * sizeof(tmcap_word));
    }
    em->pos = 0;
    em->fork_child = 1;
}

void tmcap_em_end(tmcap_em *em, unsigned status, unsigned how)
{
    if (em->fork_child || em->ended)
        return;
    em->ended = 1;
    if (em->tm) { /* the frontend's counts (TSTATS) */
        tmf_stats st;
        tmf_get_stats(em->tm, &st);
        unsigned n = tmf_threads(em->tm);
        tmcap_word g[TMCAP_TSTATS_GLOBAL] = {st.il1_hits, st.il1_misses, st.l1_hits, st.l1_misses, st.l2_hits,
                                             st.l2_misses, st.deps[0], st.deps[1], st.deps[2], st.split,
                                             st.readers_overflow};
        room(em, 1);
        put(em, TMCAP_TSTATS | (tmcap_word)(n & 0xffffff) << 8);
        for (unsigned i = 0; i < TMCAP_TSTATS_GLOBAL; i++) {
            room(em, 1);
            put(em, g[i]);
        }
        for (unsigned u = 0; u < (n & 0xffffff); u++) {
            tmf_thread_stats ts;
            tmf_get_thread(em->tm, u, &ts);
            room(em, 5);
            put(em, ts.ifetch);
            put(em, ts.data_l1);
            put(em, ts.data_l2);
            put(em, ts.data_mem);
            put(em, ts.blocks);
        }
    }
    room(em, 1);
    put(em, tmcap_end(status, how));
    tmcap_em_flush(em);
}

