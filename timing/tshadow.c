/* tm — the timing model's frontend half, its shadow (tm/tfront.h,
 * docs/capture.md §3): per 64-byte line of the program's memory, the
 * thread and block of its bytes' last stores, so that a load follows the
 * foreign stores it read (byte granularity: false sharing orders nothing);
 * with TMF_WAR, per line the threads that read its bytes since they were
 * stored, so that a store follows the foreign loads of what it overwrites.
 * A line written by one thread is one entry (the writer, the bytes, the
 * block of the last store to each 4-byte granule as a 16-bit distance
 * from the latest: farther ones are counted as the distance 65535, which
 * orders a load no earlier); a line several threads wrote keeps a writer
 * and block per byte.  Freestanding. */
#include "tfront_int.h"

#define REGION_SHIFT 16 /* the shadow's regions: 64 KB of memory, 1024 lines */
#define REGION_LINES (1u << (REGION_SHIFT - LINE_SHIFT))

/* A line's entry: WHO (its writer, E_UIDK(uid, 0) | E_END; E_MIXED: per
 * byte) and the bytes it wrote, or with E_MIXED the index of its per-byte
 * writers (E_UIDK, E_END); KMAX the latest block of its stores, KD per
 * granule the distance of the granule's last store from it. */
typedef struct sline {
    tmf_word who, bytes, kmax;
    unsigned short kd[16];
} sline;

#define NOK(e) ((e) & ((1ull << E_K_SHIFT) - 1)) /* a writer without its block */

/* Granule G of E was last stored in block K. */
static inline void set_gk(sline *e, unsigned g, tmf_word k)
{
    if (k > e->kmax) {
        tmf_word d = k - e->kmax;
        for (unsigned i = 0; i < 16; i++)
            e->kd[i] = (unsigned short)(e->kd[i] + d > 65535 ? 65535 : e->kd[i] + d);
        e->kmax = k;
        e->kd[g] = 0;
    } else {
        e->kd[g] = (unsigned short)(e->kmax - k > 65535 ? 65535 : e->kmax - k);
    }
}

static inline tmf_word gk_of(const sline *e, unsigned g) { return e->kmax - e->kd[g]; }

static tmf_word hmix(tmf_word k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

/* The entry of LINE (CREATE: its region made); NULL if absent. */
static sline *line_of(tmf *f, tmf_word line, int create)
{
    tmf_word key = (line >> (REGION_SHIFT - LINE_SHIFT)) + 1;
    if (key != f->last_rkey) {
        if (create && f->rn * 2 >= f->rcap) {
            unsigned long cap = f->rcap ? f->rcap * 2 : 1024;
            tmf_word *nk = tmf_get(f, cap * 8);
            void **nv = tmf_get(f, cap * sizeof *nv);
            if (!nk || !nv)
                return 0;
            for (unsigned long i = 0; i < f->rcap; i++) {
                if (!f->rkey[i])
                    continue;
                unsigned long j = hmix(f->rkey[i]) & (cap - 1);
                while (nk[j])
                    j = (j + 1) & (cap - 1);
                nk[j] = f->rkey[i];
                nv[j] = f->rval[i];
            }
            f->rkey = nk;
            f->rval = nv;
            f->rcap = cap;
        }
        if (!f->rcap)
            return 0;
        unsigned long j = hmix(key) & (f->rcap - 1);
        while (f->rkey[j] && f->rkey[j] != key)
            j = (j + 1) & (f->rcap - 1);
        if (!f->rkey[j]) {
            if (!create)
                return 0;
            void *r = tmf_get(f, REGION_LINES * sizeof(sline));
            if (!r)
                return 0;
            f->rkey[j] = key;
            f->rval[j] = r;
            f->rn++;
        }
        f->last_rkey = key;
        f->last_region = f->rval[j];
    }
    return (sline *)f->last_region + (line & (REGION_LINES - 1));
}

/* The per-byte writers of mixed line entry E. */
static inline tmf_word *bytes_of(tmf *f, const sline *e)
{
    return f->mixed[e->bytes >> 10] + (e->bytes & 1023) * 64;
}

/* 64 per-byte writers, zeroed: their index (into f->mixed), or ~0 without
 * memory. */
static tmf_word new_mixed(tmf *f)
{
    tmf_word i = f->nmixed;
    if ((i & 1023) == 0) {
        if ((i >> 10) >= MAX_MIXED_CHUNKS)
            return ~0ull;
        f->mixed[i >> 10] = tmf_get(f, 1024ul * 64 * 8);
        if (!f->mixed[i >> 10])
            return ~0ull;
    }
    f->nmixed++;
    f->st.split++;
    return i;
}

/* A dependency of thread T on writer/reader W (E_WHO form) of KIND, unless
 * T already depends on that thread's block or a later one. */
void tmf_depend(tmf *f, thr *t, unsigned kind, tmf_word w)
{
    unsigned uid = E_UID(w);
    tmf_word k = E_K(w);
    if (uid + 1 == t->uid)
        return;
    unsigned s = uid & (NFILTER - 1);
    if (t->fuid[s] == uid + 1 && t->fk[s] >= k)
        return;
    t->fuid[s] = uid + 1;
    t->fk[s] = k;
    if (w & E_END)
        kind = TMF_DEP_END;
    f->st.deps[kind]++;
    f->dep(f->dctx, kind, uid, k);
    tmf_word e = tmf_est_at(f, uid, k, kind == TMF_DEP_END); /* no earlier than that block */
    if (e > t->est)
        t->est = e;
}

tmf_word tmf_sh_foreign(tmf *f, unsigned uid, tmf_word line)
{
    sline *e = line_of(f, line, 0);
    if (!e || !e->who)
        return 0;
    if (!(e->who & E_MIXED))
        return E_UID(e->who) != uid ? e->bytes : 0;
    const tmf_word *b = bytes_of(f, e);
    tmf_word m = 0;
    for (unsigned i = 0; i < 64; i++)
        if (b[i] && E_UID(b[i]) != uid)
            m |= 1ull << i;
    return m;
}

void tmf_sh_read(tmf *f, thr *t, tmf_word line, tmf_word bytes)
{
    sline *e = line_of(f, line, 0);
    if (!e || !e->who)
        return;
    if (!(e->who & E_MIXED)) {
        tmf_word m = e->bytes & bytes, k = 0;
        if (!m)
            return;
        for (unsigned g = 0; g < 16; g++)
            if ((m >> (4 * g) & 0xf) && gk_of(e, g) > k)
                k = gk_of(e, g);
        tmf_depend(f, t, TMF_DEP_STORE, e->who | k << E_K_SHIFT);
        return;
    }
    const tmf_word *b = bytes_of(f, e);
    tmf_word last = 0;
    for (unsigned i = 0; i < 64; i++)
        if ((bytes >> i & 1) && b[i] && b[i] != last) {
            tmf_depend(f, t, TMF_DEP_STORE, b[i]);
            last = b[i];
        }
}

void tmf_sh_write(tmf *f, tmf_word line, tmf_word bytes, tmf_word who, const tmf_word *gk, tmf_word k)
{
    sline *e = line_of(f, line, 1);
    if (!e || !bytes)
        return;
    who = NOK(who);
    if (!(e->who & E_MIXED)) {
        if (e->who && e->who != who && (e->bytes & ~bytes)) {
            /* two writers keep bytes: a writer per byte */
            tmf_word i = new_mixed(f);
            if (i != ~0ull) {
                tmf_word old = e->who, ob = e->bytes;
                sline was = *e;
                e->who = E_MIXED;
                e->bytes = i;
                tmf_word *b = bytes_of(f, e);
                for (unsigned q = 0; q < 64; q++)
                    b[q] = (ob >> q & 1) ? old | gk_of(&was, q / 4) << E_K_SHIFT : 0;
            } else { /* out of memory: the newer writer for all (orders more) */
                e->who = who;
            }
        } else if (e->who != who) { /* nothing of another writer stays */
            e->who = who;
            e->bytes = 0;
            e->kmax = 0;
            tmf_zero(e->kd, sizeof e->kd);
        }
        if (!(e->who & E_MIXED)) {
            for (unsigned g = 0; g < 16; g++)
                if (bytes >> (4 * g) & 0xf)
                    set_gk(e, g, gk ? gk[g] : k);
            e->bytes |= bytes;
            return;
        }
    }
    tmf_word *b = bytes_of(f, e);
    for (unsigned q = 0; q < 64; q++)
        if (bytes >> q & 1)
            b[q] = who | (gk ? gk[q / 4] : k) << E_K_SHIFT;
}

/* ------------------------------------------------------------ readers (TMF_WAR) */

static rline *readers_of(tmf *f, tmf_word line, int create)
{
    tmf_word key = line + 1;
    if (create && f->rdn * 2 >= f->rdcap) {
        unsigned long cap = f->rdcap ? f->rdcap * 2 : 4096;
        rline *n = tmf_get(f, cap * sizeof *n);
        if (!n)
            return 0;
        for (unsigned long i = 0; i < f->rdcap; i++) {
            if (!f->rd[i].key)
                continue;
            unsigned long j = hmix(f->rd[i].key) & (cap - 1);
            while (n[j].key)
                j = (j + 1) & (cap - 1);
            n[j] = f->rd[i];
        }
        f->rd = n;
        f->rdcap = cap;
    }
    if (!f->rdcap)
        return 0;
    unsigned long j = hmix(key) & (f->rdcap - 1);
    while (f->rd[j].key && f->rd[j].key != key)
        j = (j + 1) & (f->rdcap - 1);
    if (f->rd[j].key || !create)
        return f->rd[j].key ? &f->rd[j] : 0;
    tmf_zero(&f->rd[j], sizeof f->rd[j]);
    f->rd[j].key = key;
    f->rdn++;
    return &f->rd[j];
}

/* Removes the empty entry R (backward-shift deletion). */
static void readers_drop(tmf *f, rline *r)
{
    unsigned long i = (unsigned long)(r - f->rd), m = f->rdcap - 1;
    f->rd[i].key = 0;
    f->rdn--;
    for (unsigned long j = (i + 1) & m; f->rd[j].key; j = (j + 1) & m) {
        unsigned long h = hmix(f->rd[j].key) & m;
        /* the entry at j may move to i if its home is not in (i, j] */
        if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
            f->rd[i] = f->rd[j];
            f->rd[j].key = 0;
            i = j;
        }
    }
}

void tmf_sh_reader_add(tmf *f, thr *t, tmf_word line, tmf_word bytes)
{
    rline *r = readers_of(f, line, 1);
    if (!r)
        return;
    tmf_word me = E_UIDK(t->uid - 1, t->k);
    int freeslot = -1;
    for (int i = 0; i < NREADERS; i++) {
        if (r->who[i] && E_UID(r->who[i]) + 1 == t->uid) {
            r->who[i] = me;
            r->bytes[i] |= bytes;
            return;
        }
        if (!r->who[i] && freeslot < 0)
            freeslot = i;
    }
    if (freeslot < 0) {
        if (!r->over)
            f->st.readers_overflow++;
        r->over = 1;
        return;
    }
    r->who[freeslot] = me;
    r->bytes[freeslot] = bytes;
}

void tmf_sh_reader_store(tmf *f, thr *t, tmf_word line, tmf_word bytes)
{
    rline *r = readers_of(f, line, 0);
    if (!r)
        return;
    int left = 0;
    for (int i = 0; i < NREADERS; i++) {
        if (!r->who[i])
            continue;
        if ((r->bytes[i] & bytes) && E_UID(r->who[i]) + 1 != t->uid)
            tmf_depend(f, t, TMF_DEP_LOAD, r->who[i]);
        r->bytes[i] &= ~bytes;
        if (!r->bytes[i])
            r->who[i] = 0;
        left |= r->who[i] != 0;
    }
    if (r->over) {
        /* readers not kept: every other numbered thread's block in progress */
        for (unsigned j = 0; j < f->nnum; j++) {
            thr *u = f->th[f->num[j]];
            if (u != t)
                tmf_depend(f, t, TMF_DEP_LOAD, E_UIDK(u->uid - 1, u->k));
        }
        r->over = 0;
    }
    if (!left)
        readers_drop(f, r);
}
