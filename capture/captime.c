/* tm — capture layer: the timing model's side of the stream (the
 * threads' uids and blocks that DEP events name, DEP and STALL, futex
 * calls, the frontend's machine and counts; capture_int.h). */
#include <stdlib.h>
#include <string.h>
#include "tm/grow.h"
#include "tm/isa.h"
#include "capture_int.h"

/* ------------------------------------------------------------ uids, blocks, waits */

/* Thread uid UID's record (made if new); NULL without memory. */
uthr *tm_capi_uthr_of(tm_cap *c, uint32_t uid)
{
    if (uid >= c->nut) {
        if (tm_grow((void **)&c->ut, &c->capu, (size_t)uid + 1, sizeof *c->ut))
            return NULL;
        memset(c->ut + c->nut, 0, ((size_t)uid + 1 - c->nut) * sizeof *c->ut);
        c->nut = (size_t)uid + 1;
    }
    return &c->ut[uid];
}

/* T's uid: given at its CREATE, or now (a thread nobody created: the
 * program's first).  -1 without memory. */
int64_t tm_capi_thread_uid(tm_cap *c, cthread *t)
{
    if (!t->uid) {
        if (!tm_capi_uthr_of(c, c->next_uid))
            return -1;
        t->uid = ++c->next_uid;
    }
    return (int64_t)t->uid - 1;
}

/* The cycle of block K of thread UID: its own if kept, else the oldest
 * kept (later: a floor that orders no less), or, not done yet, the
 * thread's last. */
static uint64_t block_cycle(const tm_cap *c, uint32_t uid, uint64_t k)
{
    if (uid >= c->nut || !c->ut[uid].k)
        return 0;
    const uthr *u = &c->ut[uid];
    if (k >= u->k)
        k = u->k - 1;
    if (u->k - k > u->cap)
        k = u->k - u->cap;
    return u->ring[k % u->cap];
}

/* SYSCALL: a thread enters or leaves a system call (a futex call with its
 * arguments or result). */
long tm_capi_ev_syscall(tm_cap *c, const uint64_t *w, size_t len)
{
    uint64_t w0 = w[0];
    cthread *t;
    uint32_t tid = (uint32_t)((w0 >> 8) & 0xffffff);
    if (!(t = thread_of(c, tid)))
        return tm_capi_fail(c, c->off, "thread %u out of range", tid), -1;
    unsigned leave = (unsigned)((w0 >> 32) & 1), no = (unsigned)((w0 >> 40) & 0xffff);
    /* rt_sigreturn (x86-64 15; AArch64, RISC-V 139) does not return to
     * its caller: a frontend may not report its leave */
    if (!leave && t->insys && t->sysno != (c->info.isa == TM_ISA_X86_64 ? 15 : 139))
        return tm_capi_fail(c, c->off, "thread %u enters system call %u while in system call %u", tid, no,
                                    t->sysno), -1;
    if (leave && !t->insys)
        return tm_capi_fail(c, c->off, "thread %u leaves system call %u without entering it", tid, no), -1;
    if (leave && no != t->sysno)
        return tm_capi_fail(c, c->off, "thread %u leaves system call %u but entered system call %u", tid, no,
                                    t->sysno), -1;
    t->insys = !leave;
    t->sysno = (uint16_t)no;
    if (!c->tim || t->id < 0 || t->tr != 1)
        return (long)len;
    uint32_t id = (uint32_t)t->id;
    int rc;
    if (!(w0 >> 33 & 1))
        rc = tm_timing_syscall(c->tim, id, (int)leave);
    else if (!leave)
        rc = tm_timing_futex(c->tim, id, (uint32_t)w[2], w[1], w[2] >> 32, w[3], w[4]);
    else
        rc = tm_timing_futex_leave(c->tim, id, (int64_t)w[1]);
    if (rc != TM_OK)
        return tm_capi_fail(c, c->off, "%s", tm_capi_timing_why(rc)), -1;
    return (long)len;
}

/* DEP: the running thread's block follows another thread's block; STALL:
 * its block stalled more. */
long tm_capi_ev_wait(tm_cap *c, const uint64_t *w, size_t len)
{
    cthread *t = thread_of(c, c->cur);
    if (!t)
        return tm_capi_fail(c, c->off, "thread %u out of range", c->cur), -1;
    if ((w[0] & 0xff) == TMCAP_STALL) {
        t->psdata += w[1];
        t->psif += w[2];
        return (long)len;
    }
    unsigned kind = (unsigned)((w[0] >> 8) & 0xff);
    uint32_t uid = (uint32_t)((w[0] >> 16) & 0xffffff);
    if (kind > TMF_DEP_END)
        return tm_capi_fail(c, c->off, "a dependency of unknown kind %u", kind), -1;
    if (uid >= c->next_uid)
        return tm_capi_fail(c, c->off, "a dependency on thread uid %u, but %u threads appeared", uid, c->next_uid), -1;
    static const int wait_of[] = {TM_WAIT_STORE, TM_WAIT_LOAD, TM_WAIT_JOIN};
    uint64_t at = block_cycle(c, uid, w[1]) + 1;
    if (at > t->pfloor) {
        t->pfloor = at;
        t->pkind = wait_of[kind];
    }
    return (long)len;
}

/* TIMING: the frontend times the accesses on this machine. */
long tm_capi_ev_timing(tm_cap *c, const uint64_t *w, size_t len)
{
    tmf_cfg m;
    memset(&m, 0, sizeof m);
    m.flags = (unsigned)((w[0] >> 8) & 0xff);
    m.line = (unsigned)w[1];
    tmf_cache *cs[3] = {&m.l1i, &m.l1, &m.l2};
    for (int i = 0; i < 3; i++)
        *cs[i] = (tmf_cache){(unsigned)(w[2 + i] & 0xffffffffu), (unsigned)((w[2 + i] >> 32) & 0xff),
                             (unsigned)(w[2 + i] >> 40)};
    m.mem_lat = (unsigned)w[5];
    if (c->has_timing || c->nblocks)
        return tm_capi_fail(c, c->off, "a TIMING event after the first block or a second one"), -1;
    if (w[1] > 4096 || w[5] > 100000 || !tmf_cfg_check(&m))
        return tm_capi_fail(c, c->off, "a TIMING event with a machine out of range"), -1;
    c->fm = m;
    c->has_timing = 1;
    return (long)len;
}

/* TSTATS: the frontend's counts. */
long tm_capi_ev_tstats(tm_cap *c, const uint64_t *w, size_t len)
{
    size_t n = (size_t)((w[0] >> 8) & 0xffffff);
    const uint64_t *g = w + 1;
    c->fst = (tmf_stats){g[0], g[1], g[2], g[3], g[4], g[5], {g[6], g[7], g[8]}, g[9], g[10]};
    free(c->fth);
    c->nfth = 0;
    if (!(c->fth = calloc(n ? n : 1, sizeof *c->fth)))
        return tm_capi_fail(c, c->off, "out of memory"), -1;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *p = g + TMCAP_TSTATS_GLOBAL + 5 * i;
        c->fth[i] = (tmf_thread_stats){p[0], p[1], p[2], p[3], p[4]};
        /* the blocks the DEP events count, as this reader counted them */
        if (i < c->nut && c->ut[i].k != p[4])
            return tm_capi_fail(c, c->off, "the frontend counted %llu blocks of thread uid %zu, the stream has %llu",
                                (unsigned long long)p[4], i, (unsigned long long)c->ut[i].k), -1;
    }
    c->nfth = n;
    c->has_tstats = 1;
    return (long)len;
}

void tm_cap_timing_stats(const tm_cap *c, tm_timing_stats *s)
{
    if (c->tim)
        tm_timing_get_stats(c->tim, s);
    else
        memset(s, 0, sizeof *s);
}

void tm_cap_timing_thread(const tm_cap *c, uint32_t tid, uint64_t *cycles, uint64_t *insns)
{
    *cycles = *insns = 0;
    if (c->tim)
        tm_timing_thread(c->tim, tid, cycles, insns);
}

void tm_cap_timing_core(const tm_cap *c, uint32_t tid, tm_timing_core *core)
{
    memset(core, 0, sizeof *core);
    if (c->tim)
        tm_timing_get_core(c->tim, tid, core);
}

int tm_cap_frontend(const tm_cap *c, tmf_cfg *m)
{
    if (c->has_timing)
        *m = c->fm;
    return c->has_timing;
}

int tm_cap_frontend_stats(const tm_cap *c, tmf_stats *s)
{
    if (c->has_tstats)
        *s = c->fst;
    return c->has_tstats;
}

int tm_cap_frontend_core(const tm_cap *c, uint32_t tid, tmf_thread_stats *s)
{
    memset(s, 0, sizeof *s);
    if (!c->has_tstats)
        return 0;
    int found = 0;
    /* the uids whose thread ran on core TID (a reused capture id's thread
     * of the past is gone from c->th: the uid's core is kept with it) */
    for (size_t u = 0; u < c->nut && u < c->nfth; u++) {
        if (c->ut[u].core != (int64_t)tid + 1)
            continue;
        s->ifetch += c->fth[u].ifetch;
        s->data_l1 += c->fth[u].data_l1;
        s->data_l2 += c->fth[u].data_l2;
        s->data_mem += c->fth[u].data_mem;
        found = 1;
    }
    return found;
}
