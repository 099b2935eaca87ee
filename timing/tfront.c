/* tm — the timing model's frontend half (tm/tfront.h, docs/capture.md §3):
 * the machine's caches, its threads and blocks, and the estimate of each
 * thread's clock that lets the frontend run the threads in turns of time.
 * The order of the accesses is tshadow.c's.  Freestanding: no includes
 * but the headers, no library calls. */
#include "tfront_int.h"

/* ------------------------------------------------------------ memory */


/* N bytes, zeroed, 8-aligned; NULL without memory. */
void *tmf_get(tmf *f, unsigned long n)
{
    n = (n + 7) & ~7ul;
    if (n >= MIB / 4) {
        void *p = f->alloc(f->actx, n);
        if (p)
            tmf_zero(p, n);
        return p;
    }
    if (n > f->bump_left) {
        char *c = f->alloc(f->actx, MIB);
        if (!c)
            return 0;
        f->bump = c;
        f->bump_left = MIB;
    }
    void *p = f->bump;
    f->bump += n;
    f->bump_left -= n;
    tmf_zero(p, n);
    return p;
}

static int is_pow2(unsigned x) { return x && !(x & (x - 1)); }

/* ------------------------------------------------------------ configuration */

static int cache_ok(const tmf_cache *c, unsigned line)
{
    if (!c->size)
        return 1;
    return is_pow2(c->size) && c->size <= (1u << 30) && is_pow2(c->ways) && c->ways <= 64 &&
           (unsigned long)c->ways * line <= c->size && c->lat <= 100000;
}

int tmf_cfg_check(const tmf_cfg *c)
{
    if (c->line != 64 || c->mem_lat > 100000 || c->flags > 31)
        return 0;
    if (!cache_ok(&c->l1i, c->line) || !cache_ok(&c->l1, c->line) || !cache_ok(&c->l2, c->line))
        return 0;
    if ((c->flags & TMF_ICACHE) && (!c->l1i.size || !c->l2.size))
        return 0;
    if ((c->flags & TMF_DCACHE) && (!c->l1.size || !c->l2.size))
        return 0;
    if ((c->flags & TMF_WAR) && !(c->flags & TMF_ORDER))
        return 0;
    return 1;
}

/* A decimal number at *S up to a character of STOP (or the end): 1, or 0. */
static int num(const char **s, unsigned *v, char stop)
{
    const char *p = *s;
    unsigned long x = 0;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9') {
        x = x * 10 + (unsigned)(*p++ - '0');
        if (x > 0xffffffffu)
            return 0;
    }
    if (*p != stop)
        return 0;
    *v = (unsigned)x;
    *s = *p ? p + 1 : p;
    return 1;
}

static int cache_parse(const char **s, tmf_cache *c)
{
    return num(s, &c->size, ':') && num(s, &c->ways, ':') && num(s, &c->lat, '/');
}

int tmf_cfg_parse(const char *s, tmf_cfg *cfg)
{
    tmf_cfg c;
    tmf_zero(&c, sizeof c);
    if (!num(&s, &c.line, '/') || !cache_parse(&s, &c.l1i) || !cache_parse(&s, &c.l1) || !cache_parse(&s, &c.l2) ||
        !num(&s, &c.mem_lat, '/') || !num(&s, &c.flags, '/') || !num(&s, &c.turn, '/') || !num(&s, &c.drift, 0) || *s ||
        !tmf_cfg_check(&c))
        return 0;
    *cfg = c;
    return 1;
}

static unsigned put_num(char *b, unsigned at, unsigned n, unsigned v, char after)
{
    char d[12];
    unsigned k = 0;
    do {
        d[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k && at < n)
        b[at++] = d[--k];
    if (after && at < n)
        b[at++] = after;
    return at;
}

unsigned tmf_cfg_format(const tmf_cfg *c, char *b, unsigned n)
{
    unsigned at = put_num(b, 0, n, c->line, '/');
    const tmf_cache *cs[3] = {&c->l1i, &c->l1, &c->l2};
    for (unsigned i = 0; i < 3; i++) {
        at = put_num(b, at, n, cs[i]->size, ':');
        at = put_num(b, at, n, cs[i]->ways, ':');
        at = put_num(b, at, n, cs[i]->lat, '/');
    }
    at = put_num(b, at, n, c->mem_lat, '/');
    at = put_num(b, at, n, c->flags, '/');
    at = put_num(b, at, n, c->turn, '/');
    at = put_num(b, at, n, c->drift, 0);
    if (at >= n)
        return 0;
    b[at] = 0;
    return at;
}

/* ------------------------------------------------------------ threads */

tmf *tmf_new(const tmf_cfg *cfg, tmf_alloc_fn alloc, void *actx, tmf_dep_fn dep, void *dctx)
{
    if (!tmf_cfg_check(cfg))
        return 0;
    tmf *f = alloc(actx, sizeof *f);
    if (!f)
        return 0;
    tmf_zero(f, sizeof *f);
    f->cfg = *cfg;
    f->alloc = alloc;
    f->actx = actx;
    f->dep = dep;
    f->dctx = dctx;
    f->cur_tid = TMF_MAX_TIDS;
    /* the L1D also keeps the bytes other threads wrote and this core's
     * stores the shadow has not seen: the order needs it when the data
     * caches cost nothing */
    if (!cfg->l1.size)
        f->cfg.l1 = (tmf_cache){8192, 2, 0};
    f->l1_sets = f->cfg.l1.size / 64 / f->cfg.l1.ways;
    f->il1_sets = cfg->l1i.size ? cfg->l1i.size / 64 / cfg->l1i.ways : 0;
    f->l2_sets = cfg->l2.size ? cfg->l2.size / 64 / cfg->l2.ways : 0;
    if (f->l2_sets) {
        unsigned long n = (unsigned long)f->l2_sets * cfg->l2.ways;
        f->l2tag = tmf_get(f, n * 8);
        f->l2age = tmf_get(f, n * 8);
        if (!f->l2tag || !f->l2age)
            return 0;
    }
    return f;
}

const tmf_cfg *tmf_config(const tmf *f) { return &f->cfg; }

static tmf_thread_stats *ustats(tmf *f, unsigned uid)
{
    if (uid >= f->ust_cap) {
        unsigned cap = f->ust_cap ? f->ust_cap : 64;
        while (cap <= uid)
            cap *= 2;
        tmf_thread_stats *n = tmf_get(f, (unsigned long)cap * sizeof *n);
        thr **nt = tmf_get(f, (unsigned long)cap * sizeof *nt);
        tmf_word *ne = tmf_get(f, (unsigned long)cap * sizeof *ne);
        if (!n || !nt || !ne)
            return 0;
        for (unsigned i = 0; i < f->ust_cap; i++) {
            n[i] = f->ust[i];
            nt[i] = f->uth[i];
            ne[i] = f->uend[i];
        }
        f->ust = n;
        f->uth = nt;
        f->uend = ne;
        f->ust_cap = cap;
    }
    return &f->ust[uid];
}

/* TID out of the list L of N. */
static void unlist(unsigned *l, unsigned *n, unsigned tid)
{
    for (unsigned i = 0; i < *n; i++)
        if (l[i] == tid) {
            l[i] = l[--*n];
            break;
        }
}

/* The least estimate of the running threads other than T (T's own if none). */
static tmf_word running_min(const tmf *f, const thr *t)
{
    tmf_word m = ~0ull;
    for (unsigned j = 0; j < f->nnum; j++) {
        const thr *u = f->th[f->num[j]];
        if (u != t && u->running && u->est < m)
            m = u->est;
    }
    return m == ~0ull ? (t ? t->est : 0) : m;
}

static void flush_all(tmf *f, thr *t);

/* Thread TID's state (NULL beyond the ids, for a thread not numbered, or
 * without memory); FRESH: a new thread numbered UID, created by PARENT (its
 * estimate starts at the parent's). */
static thr *thread(tmf *f, unsigned tid, int fresh, unsigned uid, unsigned parent)
{
    if (tid >= TMF_MAX_TIDS)
        return 0;
    thr *t = f->th[tid];
    if (!fresh)
        return t && t->uid ? t : 0;
    unsigned long nd = (unsigned long)f->l1_sets * f->cfg.l1.ways, ni = (unsigned long)f->il1_sets * f->cfg.l1i.ways;
    if (!t) {
        t = tmf_get(f, sizeof *t);
        if (!t)
            return 0;
        t->dtag = tmf_get(f, nd * 8);
        t->dage = tmf_get(f, nd * 8);
        t->dmask = tmf_get(f, nd * 8);
        t->dirty = tmf_get(f, nd * 8);
        t->dk = tmf_get(f, nd * 8);
        t->gk = tmf_get(f, nd * 16 * 8);
        if (ni) {
            t->itag = tmf_get(f, ni * 8);
            t->iage = tmf_get(f, ni * 8);
        }
        if (!t->dtag || !t->dage || !t->dmask || !t->dirty || !t->dk || !t->gk || (ni && (!t->itag || !t->iage)))
            return 0;
        f->th[tid] = t;
    } else {
        /* a new thread on a reused id: its core starts empty */
        if (t->uid) { /* it never ended (tmf_thread_end): its stores out, its count kept */
            flush_all(f, t);
            f->ust[t->uid - 1].blocks = t->k;
            f->uend[t->uid - 1] = t->est;
        }
        tmf_zero(t->hk, sizeof t->hk);
        tmf_zero(t->dtag, nd * 8);
        tmf_zero(t->dmask, nd * 8);
        tmf_zero(t->dirty, nd * 8);
        if (ni)
            tmf_zero(t->itag, ni * 8);
        t->k = t->data = t->ifetch = t->iline = t->mru = 0;
        tmf_zero(t->fuid, sizeof t->fuid);
        if (t->live)
            unlist(f->live, &f->nlive, tid);
        t->live = 0;
    }
    t->uid = 0;
    if (uid >= (1u << E_UID_BITS) - 2 || !ustats(f, uid))
        return 0;
    t->uid = uid + 1;
    if (uid >= f->next_uid)
        f->next_uid = uid + 1;
    const thr *p = parent < TMF_MAX_TIDS && parent != tid ? f->th[parent] : 0;
    t->est = p && p->uid ? p->est : running_min(f, t);
    t->running = 1;
    t->since = 0;
    f->uth[uid] = t;
    unlist(f->num, &f->nnum, tid);
    f->num[f->nnum++] = tid;
    return t;
}

void tmf_thread_new(tmf *f, unsigned tid, unsigned uid, unsigned parent)
{
    thread(f, tid, 1, uid, parent);
    f->cur_tid = TMF_MAX_TIDS; /* its old state may be cached */
}

unsigned tmf_threads(const tmf *f) { return f->next_uid; }

void tmf_get_thread(const tmf *f, unsigned uid, tmf_thread_stats *s)
{
    if (uid < f->next_uid && uid < f->ust_cap)
        *s = f->ust[uid];
    else
        tmf_zero(s, sizeof *s);
    for (unsigned j = 0; j < f->nnum; j++) /* a thread not ended: its count so far */
        if (f->th[f->num[j]]->uid == uid + 1)
            s->blocks = f->th[f->num[j]]->k;
}

void tmf_get_stats(const tmf *f, tmf_stats *s) { *s = f->st; }

/* The running thread TID's state, cached. */
static inline thr *current(tmf *f, unsigned tid)
{
    if (tid != f->cur_tid) {
        f->cur = thread(f, tid, 0, 0, 0);
        f->cur_tid = f->cur ? tid : TMF_MAX_TIDS;
    }
    return f->cur;
}

/* ------------------------------------------------------------ caches */

/* Looks KEY up in the WAYS ways at BASE: 1 on a hit (its age refreshed,
 * *WAY), else 0 with *WAY the least recently used way (not yet filled). */
static inline int set_find(const tmf_word *tag, const tmf_word *age, unsigned long base, unsigned ways, tmf_word key,
                           unsigned long *way)
{
    unsigned long lru = base;
    for (unsigned long w = base; w < base + ways; w++) {
        if (tag[w] == key) {
            *way = w;
            return 1;
        }
        if (age[w] < age[lru])
            lru = w;
    }
    *way = lru;
    return 0;
}

static inline int set_access(tmf_word *tag, tmf_word *age, unsigned long base, unsigned ways, tmf_word key,
                             tmf_word tick, unsigned long *way)
{
    int hit = set_find(tag, age, base, ways, key, way);
    tag[*way] = key;
    age[*way] = tick;
    return hit;
}

/* The L2's and memory's cycles for LINE, which missed its L1. */
static unsigned l2_cost(tmf *f, tmf_word line, int *mem)
{
    unsigned long way, b = (unsigned long)(line & (f->l2_sets - 1)) * f->cfg.l2.ways;
    if (set_access(f->l2tag, f->l2age, b, f->cfg.l2.ways, line + 1, ++f->tick, &way)) {
        f->st.l2_hits++;
        *mem = 0;
        return f->cfg.l2.lat;
    }
    f->st.l2_misses++;
    *mem = 1;
    return f->cfg.l2.lat + f->cfg.mem_lat;
}

/* T's L1D entry W: the stores the shadow does not have yet go there. */
static inline void flush(tmf *f, thr *t, unsigned long w)
{
    if (t->dirty[w]) {
        tmf_sh_write(f, t->dtag[w] - 1, t->dirty[w], E_UIDK(t->uid - 1, 0), t->gk + w * 16, 0);
        t->dirty[w] = 0;
    }
}

static void flush_all(tmf *f, thr *t)
{
    unsigned long nd = (unsigned long)f->l1_sets * f->cfg.l1.ways;
    for (unsigned long w = 0; w < nd; w++)
        if (t->dtag[w])
            flush(f, t, w);
}

/* Another core than T's accesses LINE (KEY, set SET), a STORE or a load:
 * the other cores' stores to it go to the shadow; a store takes their
 * copies, a load shares them.  Returns whether another core held it. */
static int snoop(tmf *f, const thr *t, tmf_word key, unsigned long set, int store)
{
    unsigned ways = f->cfg.l1.ways;
    int held = 0;
    for (unsigned i = 0; i < f->nlive; i++) {
        thr *u = f->th[f->live[i]];
        if (u == t)
            continue;
        for (unsigned long w = set * ways; w < set * ways + ways; w++) {
            if (u->dtag[w] != key)
                continue;
            held = 1;
            flush(f, u, w);
            if (store) {
                u->dtag[w] = 0;
                u->dage[w] = 0;
                if (u->mru == key)
                    u->mru = 0;
            } else {
                u->dk[w] &= ~L1_EXCL;
            }
        }
    }
    return held;
}

unsigned tmf_access(tmf *f, unsigned tid, tmf_word a, unsigned size, int store, int sys)
{
    thr *t = current(f, tid);
    if (!t || !size)
        return 0;
    unsigned flags = f->cfg.flags;
    tmf_word line = a >> LINE_SHIFT, key = line + 1;
    unsigned off = (unsigned)(a & 63), n0 = off + size > 64 ? 64 - off : size; /* the bytes in the first line */
    tmf_word bits = (n0 >= 64 ? ~0ull : (1ull << n0) - 1) << off;
    unsigned long way;
    int hit;
    if (key == t->mru) { /* the line this core accessed last: a hit on its set's most recent way */
        way = t->mru_way;
        hit = 1;
    } else {
        unsigned long set = (unsigned long)(line & (f->l1_sets - 1));
        if (!t->live) {
            t->live = 1;
            f->live[f->nlive++] = tid;
        }
        hit = set_find(t->dtag, t->dage, set * f->cfg.l1.ways, f->cfg.l1.ways, key, &way);
        if (!hit) {
            flush(f, t, way); /* the victim's stores */
            int held = snoop(f, t, key, set, store);
            t->dtag[way] = key;
            t->dirty[way] = 0;
            t->dk[way] = held ? 0 : L1_EXCL;
            t->dmask[way] = flags & TMF_ORDER ? tmf_sh_foreign(f, t->uid - 1, line) : 0;
        }
        t->dage[way] = ++f->tick;
        t->mru = key;
        t->mru_way = way;
    }
    unsigned cost = 0;
    if ((flags & TMF_DCACHE) && !sys) {
        int mem = 0;
        cost = f->cfg.l1.lat;
        tmf_thread_stats *us = &f->ust[t->uid - 1];
        us->data_l1 += f->cfg.l1.lat;
        if (hit) {
            f->st.l1_hits++;
        } else {
            f->st.l1_misses++;
            cost += l2_cost(f, line, &mem);
            us->data_l2 += f->cfg.l2.lat;
            if (mem)
                us->data_mem += f->cfg.mem_lat;
        }
        t->data += cost;
    }
    if (!(flags & TMF_ORDER))
        return cost;
    if (!store) {
        if (t->dmask[way] & bits) { /* bytes another thread wrote: the stores they follow */
            tmf_sh_read(f, t, line, t->dmask[way] & bits);
            t->dmask[way] &= ~bits;
        }
        if (n0 < size) { /* the second line, outside the L1's book: the others' stores to it first */
            snoop(f, t, line + 2, (unsigned long)((line + 1) & (f->l1_sets - 1)), 0);
            tmf_sh_read(f, t, line + 1, (1ull << (size - n0)) - 1);
        }
        if (flags & TMF_WAR) {
            tmf_sh_reader_add(f, t, line, bits);
            if (n0 < size)
                tmf_sh_reader_add(f, t, line + 1, (1ull << (size - n0)) - 1);
        }
        return cost;
    }
    if ((flags & TMF_WAR) && (t->dmask[way] & bits)) /* with values: after the foreign stores it overwrites too */
        tmf_sh_read(f, t, line, t->dmask[way] & bits);
    if (!(t->dk[way] & L1_EXCL)) { /* the others' copies go */
        snoop(f, t, key, (unsigned long)(line & (f->l1_sets - 1)), 1);
        t->dk[way] |= L1_EXCL;
    }
    t->dirty[way] |= bits;
    for (unsigned g = off >> 2, ge = (off + n0 - 1) >> 2; g <= ge; g++)
        t->gk[way * 16 + g] = t->k;
    t->dmask[way] &= ~bits;
    if (flags & TMF_WAR) {
        tmf_sh_reader_store(f, t, line, bits);
        if (n0 < size)
            tmf_sh_reader_store(f, t, line + 1, (1ull << (size - n0)) - 1);
    }
    if (n0 < size) { /* the second line: not timed, ordered */
        tmf_word l2 = line + 1, b2 = (1ull << (size - n0)) - 1;
        unsigned long set2 = (unsigned long)(l2 & (f->l1_sets - 1)), w2;
        snoop(f, t, l2 + 1, set2, 1);
        if (flags & TMF_WAR)
            tmf_sh_read(f, t, l2, b2);
        if (set_find(t->dtag, t->dage, set2 * f->cfg.l1.ways, f->cfg.l1.ways, l2 + 1, &w2)) {
            t->dirty[w2] |= b2;
            t->dk[w2] = L1_EXCL;
            for (unsigned g = 0; g <= (size - n0 - 1) >> 2; g++)
                t->gk[w2 * 16 + g] = t->k;
            t->dmask[w2] &= ~b2;
        } else {
            tmf_sh_write(f, l2, b2, E_UIDK(t->uid - 1, 0), 0, t->k);
        }
    }
    if (sys) /* a write by the system: a block of its own (docs/capture.md §3) */
        t->k++;
    return cost;
}

tmf_word tmf_take_data(tmf *f, unsigned tid)
{
    thr *t = current(f, tid);
    if (!t)
        return 0;
    tmf_word d = t->data;
    t->data = 0;
    return d;
}

void tmf_thread_end(tmf *f, unsigned tid, tmf_word ctid)
{
    thr *t = thread(f, tid, 0, 0, 0);
    if (!t)
        return;
    flush_all(f, t);
    if (ctid && (f->cfg.flags & TMF_ORDER)) {
        /* the system's zero at the thread's end: a store of its end block */
        tmf_word line = ctid >> LINE_SHIFT;
        snoop(f, t, line + 1, (unsigned long)(line & (f->l1_sets - 1)), 1);
        tmf_word b = 0xfull << (ctid & 63);
        tmf_sh_write(f, line, b, E_UIDK(t->uid - 1, 0) | E_END, 0, t->k);
    }
    t->k++;
    f->ust[t->uid - 1].blocks = t->k;
    f->uend[t->uid - 1] = t->est;
    if (t->live)
        unlist(f->live, &f->nlive, tid);
    t->live = 0;
    t->running = 0;
    t->mru = 0;
    tmf_zero(t->dtag, (unsigned long)f->l1_sets * f->cfg.l1.ways * 8);
    unlist(f->num, &f->nnum, tid);
}

/* ------------------------------------------------------------ blocks */

void tmf_block(tmf *f, tmf_word id, tmf_word lo, const tmf_word *ends, const unsigned *nret, unsigned nx)
{
    if (id >= (tmf_word)BLOCK_TOP * BLOCK_LEAF)
        return;
    tmf_word **leaf = f->blocks[id / BLOCK_LEAF];
    if (!leaf) {
        leaf = tmf_get(f, BLOCK_LEAF * sizeof *leaf);
        if (!leaf)
            return;
        f->blocks[id / BLOCK_LEAF] = leaf;
    }
    /* [0] the first line, [1] the exits, then per exit the last line + 1
     * (0: nothing) and the instructions retired */
    tmf_word *b = tmf_get(f, (2ul + 2ul * nx) * 8);
    if (!b)
        return;
    b[0] = lo >> LINE_SHIFT;
    b[1] = nx;
    for (unsigned j = 0; j < nx; j++) {
        b[2 + 2 * j] = ends[j] > lo ? ((ends[j] - 1) >> LINE_SHIFT) + 1 : 0;
        b[3 + 2 * j] = nret[j];
    }
    leaf[id % BLOCK_LEAF] = b;
}

void tmf_exec(tmf *f, unsigned tid, tmf_word id, unsigned x, tmf_word *data, tmf_word *ifetch)
{
    thr *t = thread(f, tid, 0, 0, 0);
    *data = *ifetch = 0;
    if (!t)
        return;
    t->running = 1; /* (tmf_thread_idle) */
    tmf_word **leaf = id < (tmf_word)BLOCK_TOP * BLOCK_LEAF ? f->blocks[id / BLOCK_LEAF] : 0;
    const tmf_word *b = leaf ? leaf[id % BLOCK_LEAF] : 0;
    if (b && x < b[1])
        t->est += b[3 + 2 * x];
    if (f->il1_sets && (f->cfg.flags & TMF_ICACHE)) {
        if (b && x < b[1] && b[2 + 2 * x]) {
            tmf_word l = b[0], hi = b[2 + 2 * x] - 1, c = 0;
            unsigned ways = f->cfg.l1i.ways;
            for (; l <= hi; l++) {
                if (l + 1 == t->iline)
                    continue; /* still in the line fetched last */
                t->iline = l + 1;
                c += f->cfg.l1i.lat;
                unsigned long way, base = (unsigned long)(l & (f->il1_sets - 1)) * ways;
                if (set_access(t->itag, t->iage, base, ways, l + 1, ++f->tick, &way)) {
                    f->st.il1_hits++;
                    continue;
                }
                f->st.il1_misses++;
                int mem;
                c += l2_cost(f, l, &mem);
            }
            t->ifetch += c;
            f->ust[t->uid - 1].ifetch += c;
        }
    }
    *data = t->data;
    *ifetch = t->ifetch;
    t->est += t->data + t->ifetch;
    t->data = t->ifetch = 0;
    t->k++;
    if (!(t->k & ((1u << HIST_SHIFT) - 1))) { /* the estimate at the start of block k */
        tmf_word s = t->k >> HIST_SHIFT;
        t->hk[s % NHIST] = s + 1;
        t->hest[s % NHIST] = t->est;
    }
}

tmf_word tmf_est_at(const tmf *f, unsigned uid, tmf_word k, int end)
{
    if (uid >= f->ust_cap)
        return 0;
    const thr *u = f->uth[uid];
    if (!u || u->uid != uid + 1) /* ended (its state gone to another thread): its end */
        return end ? f->uend[uid] : 0;
    if (end || k >= u->k)
        return u->est;
    tmf_word s = k >> HIST_SHIFT;
    return u->hk[s % NHIST] == s + 1 ? u->hest[s % NHIST] : 0; /* older than kept: nothing known */
}

int tmf_ahead(tmf *f, unsigned tid, tmf_word by)
{
    thr *t = thread(f, tid, 0, 0, 0);
    if (!t || ++t->since < 32)
        return 0;
    t->since = 0;
    return t->est > running_min(f, t) + by;
}

void tmf_thread_sys(tmf *f, unsigned tid, int in)
{
    thr *t = thread(f, tid, 0, 0, 0);
    if (!t)
        return;
    /* back from a call: at its own clock (a call orders nothing), or a
     * futex wait at its wake's (tmf_thread_wake) */
    t->running = !in;
}

unsigned tmf_behind(tmf *f, unsigned tid, tmf_word slack)
{
    thr *t = thread(f, tid, 0, 0, 0);
    if (!t)
        return 0;
    unsigned who = 0;
    tmf_word m = t->est > slack ? t->est - slack : 0;
    for (unsigned j = 0; j < f->nnum; j++) {
        const thr *u = f->th[f->num[j]];
        if (u != t && u->running && u->est < m) {
            m = u->est;
            who = f->num[j] + 1;
        }
    }
    return who;
}

void tmf_thread_idle(tmf *f, unsigned tid)
{
    thr *t = thread(f, tid, 0, 0, 0);
    if (t)
        t->running = 0;
}

tmf_word tmf_estimate(tmf *f, unsigned tid)
{
    const thr *t = thread(f, tid, 0, 0, 0);
    return t ? t->est : 0;
}

void tmf_thread_wake(tmf *f, unsigned tid, tmf_word at)
{
    thr *t = thread(f, tid, 0, 0, 0);
    if (!t)
        return;
    t->running = 1; /* it runs again, though the frontend may not have run it yet */
    if (at > t->est)
        t->est = at;
}
