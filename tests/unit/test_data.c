/* tm — unit tests of load-value tracing in the model, the .tmt header and
 * the replay (docs/spec.md §3.8, §4.8, §5, §6 step 7).
 *
 * The model scenarios are commit streams built here record by record; the
 * expected DATA messages (fahCnt, VALUE, which loads are inferred) and the
 * buffer occupancies were worked out by hand from the spec.  The replay
 * tests run generated multithreaded streams with shared data through the
 * model, a .tmt file and tm_verify. */
#include <criterion/criterion.h>
#include <zlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "genstream.h"
#include "tm/decoder.h"
#include "tm/gen.h"
#include "tm/model.h"
#include "tm/tmc.h"
#include "tm/tmt.h"

/* ---------------------------------------------------------------- capture */

#define MAXM 256
typedef struct ev {
    uint64_t cycle;
    uint32_t core;
    tm_msg m;
    unsigned bits;
    int acc;
} ev;

typedef struct cap {
    ev e[MAXM];
    int n;
} cap;

/* The message of the last tm_verify of model_and_verify. */
static char verr[1024];

static void hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits, int accepted)
{
    cap *c = arg;
    cr_assert_lt(c->n, MAXM, "more messages than the test expects");
    ev *e = &c->e[c->n++];
    e->cycle = cycle;
    e->core = core;
    e->m = *m;
    e->bits = bits;
    e->acc = accepted;
}

typedef struct sim {
    tm_model *m;
    tm_model_cfg cfg;
    cap cap;
    uint64_t pc[8];
} sim;

static tm_model_cfg dcfg(uint32_t threads, int mode)
{
    tm_model_cfg c;
    tm_model_cfg_default(&c, threads);
    c.enc.data = (uint8_t)mode;
    return c;
}

static void sim_init(sim *s, tm_model_cfg cfg)
{
    memset(s, 0, sizeof *s);
    char err[256];
    cr_assert_eq(tm_model_cfg_resolve(&cfg, err, sizeof err), TM_OK, "%s", err);
    s->cfg = cfg;
    cr_assert_eq(tm_model_new(&cfg, &s->m, NULL, 0), TM_OK);
    tm_model_set_hook(s->m, hook, &s->cap);
}

static void put(sim *s, const tmc_record *r)
{
    cr_assert_eq(tm_model_put(s->m, r), TM_OK, "%s", tm_model_error(s->m));
}

static void S_start(sim *s, uint64_t c, uint32_t t, uint64_t pc)
{
    tmc_record r = {0};
    r.type = TMC_START; r.tid = t; r.cycle = c; r.pc = pc;
    s->pc[t] = pc;
    put(s, &r);
}

static void S_run(sim *s, uint64_t c, uint32_t t, uint64_t n)
{
    tmc_record r = {0};
    r.type = TMC_RUN; r.tid = t; r.cycle = c; r.pc = s->pc[t]; r.count = n; r.bytes = 4 * n;
    s->pc[t] += 4 * n;
    put(s, &r);
}

/* The value of a SIZE-byte operand at ADDR: a pattern of the address, so
 * that every test sees distinct bytes. */
static void value_of(uint64_t addr, unsigned size, uint8_t *v)
{
    for (unsigned i = 0; i < size; i++)
        v[i] = (uint8_t)(0x5A ^ ((addr + i) * 0x9D) ^ ((addr + i) >> 8));
}

static tmc_record mem_rec(uint64_t c, uint32_t t, int store, uint64_t addr, unsigned size)
{
    tmc_record r = {0};
    r.type = TMC_MEM; r.tid = t; r.cycle = c; r.flags = store ? TMC_MEM_STORE : 0;
    r.size = (uint8_t)size; r.addr = addr;
    value_of(addr, size, r.value);
    return r;
}

/* A group of one plain instruction with a memory operand (no event). */
static void S_load(sim *s, uint64_t c, uint32_t t, uint64_t addr, unsigned size)
{
    S_run(s, c, t, 1);
    tmc_record r = mem_rec(c, t, 0, addr, size);
    put(s, &r);
}

static void S_store(sim *s, uint64_t c, uint32_t t, uint64_t addr, unsigned size)
{
    S_run(s, c, t, 1);
    tmc_record r = mem_rec(c, t, 1, addr, size);
    put(s, &r);
}

static void S_br(sim *s, uint64_t c, uint32_t t, int cls, uint64_t target)
{
    tmc_record r = {0};
    r.type = TMC_BRANCH; r.tid = t; r.cycle = c; r.pc = s->pc[t]; r.len = 2;
    r.bclass = (uint8_t)cls; r.taken = 1; r.target = target;
    s->pc[t] = target;
    put(s, &r);
}

static void S_exit(sim *s, uint64_t c, uint32_t t)
{
    tmc_record r = {0};
    r.type = TMC_EXIT; r.tid = t; r.cycle = c;
    put(s, &r);
}

static void S_finish(sim *s)
{
    cr_assert_eq(tm_model_finish(s->m), TM_OK, "%s", tm_model_error(s->m));
}

/* The DATA messages of core T offered by the model, in order. */
static int data_of(const cap *c, uint32_t t, const ev **out, int max)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        if (c->e[i].m.kind == TM_MSG_DATA && c->e[i].core == t) {
            cr_assert_lt(n, max);
            out[n++] = &c->e[i];
        }
    return n;
}

static void expect_value(const ev *e, uint64_t addr, unsigned size)
{
    uint8_t v[64];
    value_of(addr, size, v);
    cr_assert_eq(e->m.size, size, "DATA of cycle %llu: size %u, expected %u", (unsigned long long)e->cycle,
                 e->m.size, size);
    cr_assert(!memcmp(e->m.value, v, size), "DATA of cycle %llu: VALUE is not the loaded bytes",
              (unsigned long long)e->cycle);
}

/* Sizes for tm_msg_decode_sized: the loads that DATA messages report, in
 * trace order (the test knows them). */
typedef struct sizes {
    const unsigned *v;
    int n, i;
} sizes;

static int size_fn(void *arg, uint32_t ti, uint64_t fah)
{
    (void)ti;
    (void)fah;
    sizes *s = arg;
    cr_assert_lt(s->i, s->n, "more DATA messages in the trace than expected");
    return (int)s->v[s->i++];
}

/* Decodes the whole trace of S into OUT; returns the number of messages. */
static int decode_trace(sim *s, const unsigned *dsz, int ndsz, tm_msg *out, int max)
{
    const tm_bitbuf *bb = tm_model_trace(s->m);
    tm_bitrd rd;
    tm_bitrd_init(&rd, bb->data, bb->nbits);
    sizes sz = {dsz, ndsz, 0};
    int n = 0;
    while (rd.pos < rd.nbits) {
        cr_assert_lt(n, max);
        int rc = tm_msg_decode_sized(&s->cfg.enc, &rd, &out[n], size_fn, &sz);
        cr_assert_eq(rc, TM_OK, "trace bit %llu: %s", (unsigned long long)rd.pos, tm_status_str(rc));
        n++;
    }
    cr_assert_eq(sz.i, ndsz, "the trace holds %d DATA messages, expected %d", sz.i, ndsz);
    return n;
}

/* ------------------------------------------------------- model scenarios */

/* A thread in RUN whose load misses forms DATA(fahCnt 0, VALUE = the loaded
 * bytes); DATA changes neither iCnt (END counts the instructions since
 * SYNC) nor anything else of the control flow. */
Test(data, run_load_miss_forms_data)
{
    sim s;
    sim_init(&s, dcfg(1, TM_DATA_CFIAT));
    S_start(&s, 1, 0, 0x1000);
    S_run(&s, 2, 0, 2);
    S_load(&s, 2, 0, 0x2000, 8);
    S_exit(&s, 3, 0);
    S_finish(&s);
    cr_assert_eq(s.cap.n, 3);
    cr_assert_eq(s.cap.e[0].m.kind, TM_MSG_SYNC);
    const ev *d = &s.cap.e[1];
    cr_assert_eq(d->m.kind, TM_MSG_DATA);
    cr_assert(d->acc);
    cr_assert_eq(d->cycle, 2);
    cr_assert_eq(d->m.fah, 0);
    expect_value(d, 0x2000, 8);
    /* Ti 0 bits + Q + fahCnt 0 in (3,2) chunks (4 bits) + 64 value bits. */
    cr_assert_eq(d->bits, 1 + 4 + 64);
    cr_assert_eq(s.cap.e[2].m.kind, TM_MSG_END);
    cr_assert_eq(s.cap.e[2].m.icnt, 3, "DATA does not reset iCnt: END counts all 3 instructions");
    /* The VALUE is in the trace, byte for byte. */
    tm_msg out[8];
    const unsigned dsz[] = {8};
    int n = decode_trace(&s, dsz, 1, out, 8);
    cr_assert_eq(n, 3);
    cr_assert_eq(out[1].kind, TM_MSG_DATA);
    cr_assert_eq(out[1].fah, 0);
    uint8_t v[8];
    value_of(0x2000, 8, v);
    cr_assert(!memcmp(out[1].value, v, 8));
    const tm_thread_stats *st = tm_model_thread_stats(s.m, 0);
    cr_assert_eq(st->loads, 1);
    cr_assert_eq(st->reports, 1);
    cr_assert_eq(st->messages[TM_MSG_DATA], 1);
    cr_assert_eq(st->data_bits, 69);
    cr_assert_eq(st->bits.q, 3, "every message has the class bit");
    tm_model_free(s.m);
}

/* Inferred loads (every touched granule's flag valid) form no message; the
 * next reported load carries fahCnt = the loads since the last reported
 * one.  A load that covers no granule fully sets no flag and is reported
 * every time. */
Test(data, inferred_loads_count_into_fahcnt)
{
    sim s;
    sim_init(&s, dcfg(1, TM_DATA_CFIAT)); /* tool cache: 32-byte lines, g = 4 */
    S_start(&s, 1, 0, 0x1000);
    S_load(&s, 2, 0, 0x2000, 8);  /* miss: DATA fah 0; granules 0, 1 */
    S_load(&s, 3, 0, 0x2000, 8);  /* inferred */
    S_load(&s, 4, 0, 0x2004, 4);  /* inferred (granule 1) */
    S_load(&s, 5, 0, 0x2003, 1);  /* inferred (touches granule 0 only) */
    S_load(&s, 6, 0, 0x3000, 8);  /* miss: DATA fah 3 */
    S_load(&s, 7, 0, 0x4001, 1);  /* miss: DATA fah 0, sets no flag */
    S_load(&s, 8, 0, 0x4001, 1);  /* hit, flag clear: DATA fah 0 */
    S_load(&s, 9, 0, 0x2006, 4);  /* granules 1 (valid) and 2 (clear): DATA fah 0 */
    S_store(&s, 10, 0, 0x5000, 8); /* a store never forms a message */
    S_load(&s, 11, 0, 0x5000, 8); /* the store set the flags: inferred */
    S_load(&s, 12, 0, 0x2000, 4); /* granule 0 valid: inferred */
    S_load(&s, 13, 0, 0x2010, 16); /* DATA fah 2 */
    S_exit(&s, 14, 0);
    S_finish(&s);
    const ev *d[16];
    int n = data_of(&s.cap, 0, d, 16);
    const uint64_t cyc[] = {2, 6, 7, 8, 9, 13};
    const uint64_t fah[] = {0, 3, 0, 0, 0, 2};
    const uint64_t addr[] = {0x2000, 0x3000, 0x4001, 0x4001, 0x2006, 0x2010};
    const unsigned size[] = {8, 8, 1, 1, 4, 16};
    cr_assert_eq(n, 6, "%d DATA messages, expected 6", n);
    for (int i = 0; i < n; i++) {
        cr_assert(d[i]->acc);
        cr_assert_eq(d[i]->cycle, cyc[i], "DATA %d in cycle %llu, expected %llu", i,
                     (unsigned long long)d[i]->cycle, (unsigned long long)cyc[i]);
        cr_assert_eq(d[i]->m.fah, fah[i], "DATA %d: fahCnt %llu, expected %llu", i,
                     (unsigned long long)d[i]->m.fah, (unsigned long long)fah[i]);
        expect_value(d[i], addr[i], size[i]);
    }
    tm_msg out[32];
    int nm = decode_trace(&s, size, 6, out, 32);
    cr_assert_eq(nm, 8);
    const tm_thread_stats *st = tm_model_thread_stats(s.m, 0);
    cr_assert_eq(st->loads, 11);
    cr_assert_eq(st->stores, 1);
    cr_assert_eq(st->reports, 6);
    const tm_model_stats *ms = tm_model_get_stats(s.m);
    cr_assert_eq(ms->cache.load_refs[TM_SZ_QWORD], 4);
    cr_assert_eq(ms->cache.store_refs[TM_SZ_QWORD], 1);
    tm_model_free(s.m);
}

/* --data all: every load is reported with fahCnt 0, stores are not. */
Test(data, mode_all_reports_every_load)
{
    sim s;
    sim_init(&s, dcfg(1, TM_DATA_ALL));
    cr_assert_eq(s.cfg.cache.size, 0, "no cache without cfiat");
    S_start(&s, 1, 0, 0x1000);
    S_load(&s, 2, 0, 0x2000, 8);
    S_load(&s, 3, 0, 0x2000, 8);
    S_load(&s, 4, 0, 0x2004, 4);
    S_store(&s, 5, 0, 0x2000, 8);
    S_load(&s, 6, 0, 0x2000, 8);
    S_load(&s, 7, 0, 0x2003, 1);
    S_exit(&s, 8, 0);
    S_finish(&s);
    const ev *d[16];
    int n = data_of(&s.cap, 0, d, 16);
    const uint64_t cyc[] = {2, 3, 4, 6, 7};
    const uint64_t addr[] = {0x2000, 0x2000, 0x2004, 0x2000, 0x2003};
    const unsigned size[] = {8, 8, 4, 8, 1};
    cr_assert_eq(n, 5);
    for (int i = 0; i < n; i++) {
        cr_assert(d[i]->acc);
        cr_assert_eq(d[i]->cycle, cyc[i]);
        cr_assert_eq(d[i]->m.fah, 0);
        expect_value(d[i], addr[i], size[i]);
    }
    tm_model_free(s.m);
}

/* A DATA message and the control message of the same group are one bundle:
 * offered together, the DATA message first, with the same verdict, and in
 * that order in the trace.  An inferred load with a message forms none. */
Test(data, data_and_control_message_are_one_bundle)
{
    sim s;
    sim_init(&s, dcfg(1, TM_DATA_CFIAT));
    S_start(&s, 1, 0, 0x1000);
    S_load(&s, 2, 0, 0x2000, 8);                 /* DATA alone */
    S_run(&s, 3, 0, 1);
    tmc_record r = mem_rec(3, 0, 0, 0x3000, 4);  /* miss */
    put(&s, &r);
    S_br(&s, 3, 0, TMC_RET, 0x1010);             /* empty RAS: BRANCH(T = 1) */
    S_run(&s, 4, 0, 1);
    r = mem_rec(4, 0, 0, 0x3000, 4);             /* inferred */
    put(&s, &r);
    S_br(&s, 4, 0, TMC_RET, 0x1040);             /* BRANCH alone */
    S_exit(&s, 5, 0);
    S_finish(&s);
    cr_assert_eq(s.cap.n, 6);
    const int kinds[] = {TM_MSG_SYNC, TM_MSG_DATA, TM_MSG_DATA, TM_MSG_BRANCH, TM_MSG_BRANCH, TM_MSG_END};
    const uint64_t cyc[] = {1, 2, 3, 3, 4, 5};
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(s.cap.e[i].m.kind, kinds[i], "message %d: kind %d, expected %d", i, s.cap.e[i].m.kind,
                     kinds[i]);
        cr_assert_eq(s.cap.e[i].cycle, cyc[i], "message %d: cycle", i);
        cr_assert(s.cap.e[i].acc);
    }
    cr_assert_eq(s.cap.e[2].m.fah, 0);
    expect_value(&s.cap.e[2], 0x3000, 4);
    cr_assert_eq(s.cap.e[3].m.t, 1);
    cr_assert_eq(s.cap.e[3].m.cnt, 1);
    cr_assert_eq(s.cap.e[3].m.diff_ta, 0x10);
    /* The trace has the same order. */
    tm_msg out[8];
    const unsigned dsz[] = {8, 4};
    int n = decode_trace(&s, dsz, 2, out, 8);
    cr_assert_eq(n, 6);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(out[i].kind, (tm_msg_kind)kinds[i], "trace message %d", i);
    tm_model_free(s.m);
}

/* A bundle that does not fit is dropped whole, although its DATA message
 * alone would fit: the thread becomes LOST (losses, dropped_data).  Loads
 * while LOST count into fahCnt; after the SYNC(OVERFLOW) is accepted the
 * thread's flags are cleared (a load of a granule flagged before the loss is
 * reported again).
 *
 * N = 1, tr_e with cfiat: the longest DATA is 1 + 97 + 512 = 610 bits, the
 * longest control message 268: buffer min = 878; port 1.
 *   c1 SYNC(START) 73 bits                      occ 73
 *   c2..c4 DATA(32 bytes, fah 0) 261 bits each  occ 72+261, 332+261, 592+261 = 853
 *   c5 (port: 852, free 26) a 2-byte load (DATA 21 bits) and a mispredicted
 *      ret (BRANCH 16 bits): 37 > 26, the bundle is dropped.
 *   c6..c8 three loads while LOST; the SYNC(OVERFLOW) (82 bits) fits once
 *      the port has drained to 796 bits, in c61.
 *   c1000 a new load: fahCnt = 1 (dropped) + 3 (while LOST) = 4.
 *   c1001 the load of c2 again: reported (fahCnt 0) although its granules
 *      were flagged before the loss. */
Test(data, dropped_bundle_lost_loads_and_resync_clear)
{
    tm_model_cfg c = dcfg(1, TM_DATA_CFIAT);
    c.port_bits = 1;
    c.buffer_bits = tm_msg_max_bits(&c.enc);
    cr_assert_eq(c.buffer_bits, 878);
    sim s;
    sim_init(&s, c);
    S_start(&s, 1, 0, 0x1000);
    S_load(&s, 2, 0, 0x2000, 32);
    S_load(&s, 3, 0, 0x3000, 32);
    S_load(&s, 4, 0, 0x4000, 32);
    S_run(&s, 5, 0, 1);
    tmc_record r = mem_rec(5, 0, 0, 0x5000, 2);
    put(&s, &r);
    S_br(&s, 5, 0, TMC_RET, 0x1010);
    S_load(&s, 6, 0, 0x6000, 8);
    S_load(&s, 7, 0, 0x7000, 8);
    S_load(&s, 8, 0, 0x2000, 8);   /* while LOST: goes through the cache */
    S_load(&s, 1000, 0, 0x8000, 8);
    S_load(&s, 1001, 0, 0x2000, 32);
    S_load(&s, 1002, 0, 0x2000, 32); /* flags set again: inferred */
    S_exit(&s, 1003, 0);
    S_finish(&s);

    const tm_model_stats *ms = tm_model_get_stats(s.m);
    /* 853 before the drop; the SYNC(OVERFLOW) of 82 bits is accepted as
     * soon as it fits (occ 796, c61) and fills the buffer exactly. */
    cr_assert_eq(ms->peak_occupancy, 878, "peak %llu", (unsigned long long)ms->peak_occupancy);
    /* The bundle of c5: DATA then BRANCH, both dropped. */
    int k = -1;
    for (int i = 0; i < s.cap.n; i++)
        if (s.cap.e[i].cycle == 5) {
            k = i;
            break;
        }
    cr_assert_geq(k, 0, "nothing offered in cycle 5");
    cr_assert_eq(s.cap.e[k].m.kind, TM_MSG_DATA);
    cr_assert_eq(s.cap.e[k].bits, 21);
    cr_assert_eq(s.cap.e[k].acc, 0);
    cr_assert_eq(s.cap.e[k + 1].m.kind, TM_MSG_BRANCH);
    cr_assert_eq(s.cap.e[k + 1].bits, 16);
    cr_assert_eq(s.cap.e[k + 1].acc, 0);
    cr_assert_eq(s.cap.e[k + 1].cycle, 5);
    /* Resynchronization, then the DATA messages after it. */
    int sync = -1;
    for (int i = k + 2; i < s.cap.n; i++)
        if (s.cap.e[i].m.kind == TM_MSG_SYNC) {
            sync = i;
            break;
        }
    cr_assert_geq(sync, 0, "no SYNC(OVERFLOW)");
    const ev *y = &s.cap.e[sync];
    cr_assert_eq(y->m.reason, TM_SYNC_OVERFLOW);
    cr_assert(y->acc);
    cr_assert_eq(y->cycle, 61, "resynchronized in cycle %llu", (unsigned long long)y->cycle);
    cr_assert_eq(y->bits, 82);
    cr_assert_eq(y->m.dropped, 1);
    cr_assert_eq(y->m.icnt, 3, "tail: the instructions of c2..c4");
    cr_assert_eq(y->m.gap, 2 + 3, "gap: the group of c5 (run + ret) and c6..c8");
    const ev *d[16];
    int n = data_of(&s.cap, 0, d, 16);
    cr_assert_eq(n, 6, "%d DATA messages offered, expected 3 + 1 dropped + 2", n);
    cr_assert_eq(d[3]->acc, 0);
    cr_assert_eq(d[4]->cycle, 1000);
    cr_assert(d[4]->acc);
    cr_assert_eq(d[4]->m.fah, 4, "fahCnt %llu after the loss, expected 1 dropped + 3 while LOST",
                 (unsigned long long)d[4]->m.fah);
    expect_value(d[4], 0x8000, 8);
    cr_assert_eq(d[5]->cycle, 1001, "the flags of the load of c2 were not cleared at the resynchronization");
    cr_assert(d[5]->acc);
    cr_assert_eq(d[5]->m.fah, 0);
    expect_value(d[5], 0x2000, 32);
    const tm_thread_stats *st = tm_model_thread_stats(s.m, 0);
    cr_assert_eq(st->losses, 1);
    cr_assert_eq(st->dropped_data, 1);
    cr_assert_eq(st->dropped_messages, 2);
    cr_assert_eq(st->dropped_bits, 37);
    cr_assert_eq(st->loads, 10);
    /* In the gap (spec §3.5, §8): the dropped group (its load and its 2
     * instructions) and the 3 groups retired while LOST. */
    cr_assert_eq(st->lost_loads, 4, "loads in gaps: %llu, expected 4", (unsigned long long)st->lost_loads);
    cr_assert_eq(st->lost_instructions, y->m.gap, "instructions in gaps: %llu, the SYNC's gap is %llu",
                 (unsigned long long)st->lost_instructions, (unsigned long long)y->m.gap);
    cr_assert_eq(st->messages[TM_MSG_DATA], 5);
    cr_assert_eq(ms->cache.flag_clears, 1);
    tm_model_free(s.m);
}

/* Two cores offer a 64-byte DATA in the same cycle; with the smallest
 * buffer the second does not fit and is dropped; the port (1024 bits)
 * empties the buffer every cycle, so core 1 resynchronizes in the very next
 * cycle, R.  N = 4: DATA of 64 bytes = 2 + 1 + 4 + 512 = 519 bits, buffer
 * min = 882.  Returns R. */
static uint64_t lose_core1(sim *s, uint64_t c)
{
    S_load(s, c, 0, 0x100000, 64);
    S_load(s, c, 1, 0x200000, 64);
    return c + 1;
}

static tm_model_cfg same_cycle_loss_cfg(int cfiat_shared)
{
    tm_model_cfg c = dcfg(4, TM_DATA_CFIAT);
    c.cfiat_shared = cfiat_shared;
    c.port_bits = 1024;
    c.buffer_bits = tm_msg_max_bits(&c.enc);
    return c;
}

static const ev *sync_overflow_of(const cap *c, uint32_t t)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].core == t && c->e[i].m.kind == TM_MSG_SYNC && c->e[i].m.reason == TM_SYNC_OVERFLOW &&
            c->e[i].acc)
            return &c->e[i];
    return NULL;
}

/* Private caches: fahCnt after a loss counts the inferred load, the
 * dropped one and the one retired while LOST (in the resynchronization
 * cycle, before the SYNC); the thread's flags are cleared. */
Test(data, fahcnt_after_loss_and_cleared_flags)
{
    sim s;
    sim_init(&s, same_cycle_loss_cfg(0));
    cr_assert_eq(s.cfg.buffer_bits, 882);
    for (uint32_t t = 0; t < 2; t++)
        S_start(&s, 1, t, 0x1000 * (t + 1));
    S_load(&s, 2, 1, 0x8000, 8);            /* DATA fah 0 */
    S_load(&s, 3, 1, 0x8000, 8);            /* inferred */
    uint64_t R = lose_core1(&s, 4);         /* c4: core 1's DATA dropped */
    S_load(&s, R, 1, 0x9000, 8);            /* while LOST (before its SYNC) */
    S_load(&s, R + 1, 1, 0x8000, 8);        /* flags cleared: DATA fah 3 */
    S_load(&s, R + 2, 1, 0x9000, 8);        /* loaded while LOST, cleared: DATA fah 0 */
    S_load(&s, R + 3, 1, 0x9000, 8);        /* inferred */
    S_exit(&s, R + 4, 0);
    S_exit(&s, R + 4, 1);
    S_finish(&s);
    const ev *y = sync_overflow_of(&s.cap, 1);
    cr_assert_not_null(y);
    cr_assert_eq(y->cycle, R);
    cr_assert_null(sync_overflow_of(&s.cap, 0), "core 0 lost nothing");
    const ev *d[16];
    int n = data_of(&s.cap, 1, d, 16);
    cr_assert_eq(n, 4);
    cr_assert(d[0]->acc && d[0]->cycle == 2 && d[0]->m.fah == 0);
    cr_assert(!d[1]->acc && d[1]->cycle == 4);
    cr_assert(d[2]->acc);
    cr_assert_eq(d[2]->cycle, R + 1);
    cr_assert_eq(d[2]->m.fah, 3, "fahCnt %llu: expected inferred + dropped + while LOST = 3",
                 (unsigned long long)d[2]->m.fah);
    expect_value(d[2], 0x8000, 8);
    cr_assert(d[3]->acc);
    cr_assert_eq(d[3]->cycle, R + 2);
    cr_assert_eq(d[3]->m.fah, 0);
    const tm_thread_stats *st = tm_model_thread_stats(s.m, 1);
    cr_assert_eq(st->losses, 1);
    cr_assert_eq(st->dropped_data, 1);
    cr_assert_eq(st->lost_loads, 2, "loads in gaps: the dropped one and the one retired while LOST");
    cr_assert_eq(st->lost_instructions, y->m.gap);
    cr_assert_eq(y->m.gap, 2);
    cr_assert_eq(tm_model_thread_stats(s.m, 0)->losses, 0);
    tm_model_free(s.m);
}

/* Shared cache: when core 1's SYNC(OVERFLOW) is accepted in cycle R, all
 * flags are cleared at the end of R, after the higher cores' slots: core
 * 2's load of a flagged granule in R is still inferred, its load in R + 1 is
 * reported. */
Test(data, shared_cache_cleared_at_end_of_resync_cycle)
{
    sim s;
    sim_init(&s, same_cycle_loss_cfg(1));
    for (uint32_t t = 0; t < 3; t++)
        S_start(&s, 1, t, 0x1000 * (t + 1));
    S_load(&s, 2, 2, 0xA000, 8);            /* DATA */
    S_load(&s, 3, 2, 0xA000, 8);            /* inferred */
    uint64_t R = lose_core1(&s, 4);
    S_load(&s, R, 2, 0xA000, 8);            /* same cycle as the SYNC, later core: inferred */
    S_load(&s, R + 1, 2, 0xA000, 8);        /* cleared at the end of R: DATA fah 2 */
    for (uint32_t t = 0; t < 3; t++)
        S_exit(&s, R + 2, t);
    S_finish(&s);
    const ev *y = sync_overflow_of(&s.cap, 1);
    cr_assert_not_null(y);
    cr_assert_eq(y->cycle, R);
    const ev *d[16];
    int n = data_of(&s.cap, 2, d, 16);
    cr_assert_eq(n, 2, "core 2 offered %d DATA messages, expected 2", n);
    cr_assert_eq(d[0]->cycle, 2);
    cr_assert_eq(d[1]->cycle, R + 1, "core 2's second DATA in cycle %llu, expected R + 1 = %llu",
                 (unsigned long long)d[1]->cycle, (unsigned long long)(R + 1));
    cr_assert(d[1]->acc);
    cr_assert_eq(d[1]->m.fah, 2);
    cr_assert_eq(tm_model_get_stats(s.m)->cache.flag_clears, 1);
    tm_model_free(s.m);
}

/* Private caches: a store of core 0 clears the flags of every line it
 * covers in core 1's cache, seen by core 1's load in the same cycle (core 0
 * acts first); a store of core 1 is not seen by core 0's load of that cycle,
 * only by its next one.  NO_INVALIDATE = 1 (test only) skips it. */
static void invalidation_scenario(sim *s, int no_invalidate)
{
    tm_model_cfg c = dcfg(2, TM_DATA_CFIAT);
    c.no_invalidate = no_invalidate;
    sim_init(s, c);
    S_start(s, 1, 0, 0x1000);
    S_start(s, 1, 1, 0x2000);
    S_load(s, 2, 0, 0x9000, 8);   /* core 0: DATA */
    S_load(s, 2, 1, 0x8000, 8);   /* core 1: DATA */
    S_load(s, 3, 0, 0x9000, 8);   /* inferred */
    S_load(s, 3, 1, 0x8008, 8);   /* DATA fah 0 (granules 2, 3) */
    S_load(s, 4, 1, 0x8000, 16);  /* inferred */
    S_store(s, 5, 0, 0x8000, 4);  /* core 0 writes granule 0 of the line */
    S_load(s, 5, 1, 0x8008, 8);   /* the whole line's flags are gone: DATA fah 1 */
    S_load(s, 6, 0, 0x9000, 8);   /* same cycle as core 1's store below: inferred */
    S_store(s, 6, 1, 0x9010, 8);
    S_load(s, 7, 0, 0x9000, 8);   /* now invalidated: DATA fah 2 */
    S_exit(s, 8, 0);
    S_exit(s, 8, 1);
    S_finish(s);
}

Test(data, private_invalidation_by_other_core_store)
{
    sim s;
    invalidation_scenario(&s, 0);
    const ev *d[16];
    int n = data_of(&s.cap, 1, d, 16);
    cr_assert_eq(n, 3, "core 1: %d DATA messages, expected 3", n);
    cr_assert_eq(d[2]->cycle, 5, "core 0's store did not invalidate core 1's line in the same cycle");
    cr_assert_eq(d[2]->m.fah, 1);
    expect_value(d[2], 0x8008, 8);
    n = data_of(&s.cap, 0, d, 16);
    cr_assert_eq(n, 2, "core 0: %d DATA messages, expected 2", n);
    cr_assert_eq(d[0]->cycle, 2);
    cr_assert_eq(d[1]->cycle, 7, "core 0's load in cycle 6 comes before core 1's store");
    cr_assert_eq(d[1]->m.fah, 2);
    cr_assert_eq(tm_model_get_stats(s.m)->cache.invalidations, 2);
    tm_model_free(s.m);
}

Test(data, private_no_invalidate_reports_nothing)
{
    sim s;
    invalidation_scenario(&s, 1);
    const ev *d[16];
    cr_assert_eq(data_of(&s.cap, 1, d, 16), 2, "without invalidation core 1's load in cycle 5 is inferred");
    cr_assert_eq(data_of(&s.cap, 0, d, 16), 1, "without invalidation core 0's load in cycle 7 is inferred");
    cr_assert_eq(tm_model_get_stats(s.m)->cache.invalidations, 0);
    tm_model_free(s.m);
}

/* Two MEM records in one (cycle, thread) group: an error naming the cycle
 * and the thread with data tracing on, accepted (and ignored) without. */
static int two_operands(int mode, char *err, size_t errlen)
{
    tm_model_cfg c = dcfg(2, mode);
    char e[256];
    cr_assert_eq(tm_model_cfg_resolve(&c, e, sizeof e), TM_OK, "%s", e);
    tm_model *m = NULL;
    cr_assert_eq(tm_model_new(&c, &m, NULL, 0), TM_OK);
    tmc_record r = {0};
    int rc = TM_OK;
    for (uint32_t t = 0; t < 2; t++) {
        r.type = TMC_START; r.tid = t; r.cycle = 3; r.pc = 0x1000;
        cr_assert_eq(tm_model_put(m, &r), TM_OK, "%s", tm_model_error(m));
    }
    memset(&r, 0, sizeof r);
    r.type = TMC_RUN; r.tid = 1; r.cycle = 5; r.pc = 0x1000; r.count = 2; r.bytes = 8;
    cr_assert_eq(tm_model_put(m, &r), TM_OK);
    tmc_record a = mem_rec(5, 1, 0, 0x4000, 8), b = mem_rec(5, 1, 1, 0x4010, 4);
    cr_assert_eq(tm_model_put(m, &a), TM_OK, "%s", tm_model_error(m));
    rc = tm_model_put(m, &b);
    snprintf(err, errlen, "%s", tm_model_error(m));
    if (rc == TM_OK) {
        memset(&r, 0, sizeof r);
        r.type = TMC_EXIT; r.tid = 1; r.cycle = 5;
        cr_assert_eq(tm_model_put(m, &r), TM_OK);
        cr_assert_eq(tm_model_finish(m), TM_OK);
    }
    tm_model_free(m);
    return rc;
}

Test(data, two_operands_in_one_group)
{
    char err[256];
    for (int mode = TM_DATA_CFIAT; mode <= TM_DATA_ALL; mode++) {
        cr_assert_eq(two_operands(mode, err, sizeof err), TM_ERR_ARG, "mode %d", mode);
        cr_assert(strstr(err, "cycle 5"), "the error names the cycle: %s", err);
        cr_assert(strstr(err, "thread 1"), "the error names the thread: %s", err);
        cr_assert(strstr(err, "two memory operands"), "%s", err);
    }
    cr_assert_eq(two_operands(TM_DATA_NONE, err, sizeof err), TM_OK, "%s", err);
}

/* ---------------------------------------------------- configuration errors */

static void expect_resolve_error(tm_model_cfg c, const char *text)
{
    char err[256] = "";
    cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_ERR_ARG, "accepted; expected '%s'", text);
    cr_assert(strstr(err, text), "error '%s' lacks '%s'", err, text);
    tm_model *m = NULL;
    cr_assert_neq(tm_model_new(&c, &m, NULL, 0), TM_OK);
    cr_assert_null(m);
    /* the model's constructor gives the caller the same reason */
    char merr[256] = "";
    cr_assert_eq(tm_model_new(&c, &m, merr, sizeof merr), TM_ERR_ARG);
    cr_assert_null(m);
    cr_assert_str_eq(merr, err);
}

Test(data, cfg_resolve_cache_geometry)
{
    tm_model_cfg c = dcfg(2, TM_DATA_CFIAT);
    char err[256];
    tm_model_cfg ok = c;
    cr_assert_eq(tm_model_cfg_resolve(&ok, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(ok.cache.size, 32768, "the default cache is the tool preset");
    cr_assert_eq(ok.cache.assoc, 4);
    cr_assert_eq(ok.cache.line, 32);
    cr_assert_eq(ok.cache.gran, 4);
    cr_assert_eq(ok.port_bits, 32, "data tracing: default port 32 bits");
    cr_assert_geq(ok.buffer_bits, 2 * tm_msg_max_bits(&ok.enc));

    tm_model_cfg b = ok;
    b.cache.size = 1000;
    expect_resolve_error(b, "--cache 1000");
    b = ok;
    b.cache.size = 128u << 20;
    expect_resolve_error(b, "--cache 134217728");
    b = ok;
    b.cache.line = 8;
    b.cache.gran = 16;
    expect_resolve_error(b, "--granularity 16");
    b = ok;
    b.cache.line = 3;
    expect_resolve_error(b, "--line 3");
    b = ok;
    b.cache.assoc = 128;
    expect_resolve_error(b, "--assoc 128");
    b = ok;
    b.cache.size = 256;
    b.cache.line = 64;
    b.cache.assoc = 8; /* 4 lines only */
    expect_resolve_error(b, "--assoc 8");
    b = ok;
    b.cache.line = 4096;
    b.cache.gran = 32; /* 128 flags per line */
    expect_resolve_error(b, "--granularity 32");
    b = ok;
    b.cache.gran = 0;
    expect_resolve_error(b, "--granularity 0");
    b = ok;
    b.cache.line = 4096;
    b.cache.gran = 64; /* exactly 64 flags: allowed */
    cr_assert_eq(tm_model_cfg_resolve(&b, err, sizeof err), TM_OK, "%s", err);

    b = dcfg(2, TM_DATA_ALL);
    b.cfiat_shared = 1;
    expect_resolve_error(b, "--cfiat-shared");
    b = dcfg(2, TM_DATA_NONE);
    b.cfiat_shared = 1;
    expect_resolve_error(b, "--cfiat-shared");
    b = dcfg(2, 3);
    expect_resolve_error(b, "data tracing mode 3");
    b = dcfg(2, TM_DATA_CFIAT);
    b.enc.fah_a = 0;
    expect_resolve_error(b, "fah");
}

/* ----------------------------------------------------- .tmt header fields */

typedef struct tmpfile_ {
    char path[64];
} tmpfile_;

static void tmp_make(tmpfile_ *f, const char *tag)
{
    snprintf(f->path, sizeof f->path, "/tmp/tm-data-%s.XXXXXX", tag);
    int fd = mkstemp(f->path);
    cr_assert_geq(fd, 0, "mkstemp failed");
    close(fd);
}

static void write_tmt(const char *path, const tm_model_cfg *c)
{
    tm_bitbuf bb;
    tm_bitbuf_init(&bb);
    tm_bitbuf_put(&bb, 0x2d, 7);
    char err[256];
    uint64_t insns[TMC_MAX_THREADS];
    for (uint32_t t = 0; t < c->enc.threads; t++)
        insns[t] = 1000 + t;
    tmt_trailer tr = {99, insns, TMT_COMPLETE, 0, TMT_PROG_UNKNOWN, 0};
    cr_assert_eq(tmt_write(path, c, &bb, &tr, err, sizeof err), TM_OK, "%s", err);
    tm_bitbuf_free(&bb);
}

Test(data, tmt_header_round_trip)
{
    tmpfile_ f;
    tmp_make(&f, "hdr");
    char err[256];
    for (int k = 0; k < 4; k++) {
        tm_model_cfg c = dcfg(3, k == 0 ? TM_DATA_NONE : k == 1 ? TM_DATA_ALL : TM_DATA_CFIAT);
        if (k >= 2) {
            c.cache = (tm_cache_cfg){.size = 1u << 20, .assoc = 8, .line = 128, .gran = 2};
            c.cfiat_shared = k == 3;
        }
        if (k)
            c.enc.fah_a = (uint8_t)(4 + k), c.enc.fah_b = (uint8_t)(9 + k);
        cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK, "%s", err);
        write_tmt(f.path, &c);
        tmt_file t;
        cr_assert_eq(tmt_read(f.path, &t, err, sizeof err), TM_OK, "%s", err);
        cr_assert_eq(t.cfg.enc.data, c.enc.data, "case %d: data mode", k);
        cr_assert_eq(t.cfg.enc.fah_a, c.enc.fah_a, "case %d", k);
        cr_assert_eq(t.cfg.enc.fah_b, c.enc.fah_b, "case %d", k);
        cr_assert_eq(t.cfg.cache.size, c.cache.size, "case %d", k);
        cr_assert_eq(t.cfg.cache.assoc, c.cache.assoc, "case %d", k);
        cr_assert_eq(t.cfg.cache.line, c.cache.line, "case %d", k);
        cr_assert_eq(t.cfg.cache.gran, c.cache.gran, "case %d", k);
        cr_assert_eq(t.cfg.cfiat_shared, c.cfiat_shared, "case %d", k);
        cr_assert_eq(t.cfg.buffer_bits, c.buffer_bits, "case %d", k);
        cr_assert_eq(t.cfg.port_bits, c.port_bits, "case %d", k);
        cr_assert_eq(t.bits, 7);
        cr_assert_eq(t.cycles, 99);
        cr_assert_eq(t.version, TMT_VERSION);
        cr_assert_eq(t.ending, TMT_COMPLETE);
        cr_assert_not_null(t.thread_insns);
        for (uint32_t th = 0; th < c.enc.threads; th++)
            cr_assert_eq(t.thread_insns[th], 1000 + th);
        tmt_free(&t);
    }
    unlink(f.path);
}

/* Rewrites byte OFF of PATH (and, if OFF2 >= 0, byte OFF2), then the
 * header's checksum as a writer would (so that the reader judges the
 * fields), and reads it. */
static int patched_read(const char *path, int off, uint8_t v, int off2, uint8_t v2, char *err, size_t errlen)
{
    FILE *fp = fopen(path, "r+b");
    cr_assert_not_null(fp);
    cr_assert_eq(fseek(fp, off, SEEK_SET), 0);
    cr_assert_eq(fputc(v, fp), v);
    if (off2 >= 0) {
        cr_assert_eq(fseek(fp, off2, SEEK_SET), 0);
        cr_assert_eq(fputc(v2, fp), v2);
    }
    uint8_t h[64];
    cr_assert_eq(fseek(fp, 0, SEEK_SET), 0);
    cr_assert_eq(fread(h, 1, 64, fp), 64);
    uint32_t c = (uint32_t)crc32(0L, h, 60);
    for (int k = 0; k < 4; k++)
        h[60 + k] = (uint8_t)(c >> (8 * k));
    cr_assert_eq(fseek(fp, 60, SEEK_SET), 0);
    cr_assert_eq(fwrite(h + 60, 1, 4, fp), 4);
    cr_assert_eq(fclose(fp), 0);
    tmt_file t;
    int rc = tmt_read(path, &t, err, errlen);
    if (rc == TM_OK)
        tmt_free(&t);
    return rc;
}

Test(data, tmt_read_refuses_bad_data_fields)
{
    tmpfile_ f;
    tmp_make(&f, "bad");
    char err[512];
    tm_model_cfg cf = dcfg(2, TM_DATA_CFIAT), al = dcfg(2, TM_DATA_ALL), no = dcfg(2, TM_DATA_NONE);
    cr_assert_eq(tm_model_cfg_resolve(&cf, err, sizeof err), TM_OK);
    cr_assert_eq(tm_model_cfg_resolve(&al, err, sizeof err), TM_OK);
    cr_assert_eq(tm_model_cfg_resolve(&no, err, sizeof err), TM_OK);

    /* An unknown data tracing mode. */
    write_tmt(f.path, &cf);
    cr_assert_eq(patched_read(f.path, 33, 3, -1, 0, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, f.path) && strstr(err, "offset 33"), "%s", err);
    cr_assert(strstr(err, "data tracing mode 3"), "%s", err);
    /* The shared-cache flag, unknown flags. */
    write_tmt(f.path, &al);
    cr_assert_eq(patched_read(f.path, 34, 1, -1, 0, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, f.path) && strstr(err, "offset 34"), "%s", err);
    write_tmt(f.path, &cf);
    cr_assert_eq(patched_read(f.path, 34, 2, -1, 0, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "offset 34"), "%s", err);
    /* A cache size without cfiat (all, none). */
    write_tmt(f.path, &al);
    cr_assert_eq(patched_read(f.path, 41, 0x80, -1, 0, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, f.path) && strstr(err, "offset ") && strstr(err, "without CFiat"), "%s", err);
    write_tmt(f.path, &no);
    cr_assert_eq(patched_read(f.path, 46, 32, -1, 0, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "offset ") && strstr(err, "without CFiat"), "%s", err);
    /* fah chunks without data tracing. */
    write_tmt(f.path, &no);
    cr_assert_eq(patched_read(f.path, 35, 3, 36, 2, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "offset 35"), "%s", err);
    /* cfiat without a cache, and with a bad geometry. */
    write_tmt(f.path, &cf);
    cr_assert_eq(patched_read(f.path, 41, 0, -1, 0, err, sizeof err), TM_ERR_FORMAT); /* 32768 -> 0 */
    cr_assert(strstr(err, "offset 40"), "%s", err);
    write_tmt(f.path, &cf);
    cr_assert_eq(patched_read(f.path, 40, 0x10, -1, 0, err, sizeof err), TM_ERR_FORMAT); /* 32784 */
    cr_assert(strstr(err, "offset 8") && strstr(err, "--cache 32784"), "%s", err);
    write_tmt(f.path, &cf);
    cr_assert_eq(patched_read(f.path, 48, 64, -1, 0, err, sizeof err), TM_ERR_FORMAT); /* g 64 > line 32 */
    cr_assert(strstr(err, "--granularity 64"), "%s", err);
    /* The unmodified files read back. */
    write_tmt(f.path, &cf);
    cr_assert_eq(patched_read(f.path, 37, 0, -1, 0, err, sizeof err), TM_OK, "%s", err);
    unlink(f.path);
}

/* ------------------------------------------------ replay (tm_verify) */

/* Generates a stream with memory operands, runs the model (cfiat, private
 * caches, NO_INVALIDATE as given), writes and reads the .tmt and replays
 * it.  Returns tm_verify's status; RES holds its result. */
static int model_and_verify(uint32_t threads, uint64_t insns, uint64_t seed, int data, int no_invalidate,
                            int cfiat_shared, tm_verify_result *res)
{
    tmpfile_ tmc, tmt;
    tmp_make(&tmc, "tmc");
    tmp_make(&tmt, "tmt");
    tm_gen_cfg g;
    tm_gen_cfg_default(&g);
    g.threads = threads;
    g.insns = insns;
    g.seed = seed;
    g.mem = 1;
    char err[512];
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(tmc.path, threads, 0, &w, NULL, 0), TM_OK);
    cr_assert_eq(tm_gen_run(&g, w, NULL, NULL, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tmc_writer_close(w), TM_OK);

    tm_model_cfg c = dcfg(threads, data);
    c.no_invalidate = no_invalidate;
    c.cfiat_shared = cfiat_shared;
    cr_assert_eq(tm_model_cfg_resolve(&c, err, sizeof err), TM_OK, "%s", err);
    tm_model *m = NULL;
    cr_assert_eq(tm_model_new(&c, &m, NULL, 0), TM_OK);
    model_file(m, tmc.path);
    const tm_model_stats *st = tm_model_get_stats(m);
    cr_assert_gt(st->total.loads, 1000, "the stream has loads");
    cr_assert_gt(st->total.stores, 1000, "and stores");
    uint64_t tinsns[TMC_MAX_THREADS];
    tmt_trailer tr;
    tmt_trailer_of(&tr, m, tinsns, TMT_COMPLETE, 0);
    cr_assert_eq(tmt_write(tmt.path, &c, tm_model_trace(m), &tr, err, sizeof err), TM_OK, "%s", err);
    tm_model_free(m);

    tmt_file tf;
    cr_assert_eq(tmt_read(tmt.path, &tf, err, sizeof err), TM_OK, "%s", err);
    int rc = tm_verify(tmc.path, &tf, res, NULL, NULL, verr, sizeof verr);
    tmt_free(&tf);
    unlink(tmc.path);
    unlink(tmt.path);
    return rc;
}

/* Without invalidation the private caches keep flags of lines another core
 * wrote: the replay infers stale values and tm_verify must catch it. */
static void replay_needs_invalidation(uint32_t threads)
{
    tm_verify_result res;
    int rc = model_and_verify(threads, 200000, 70 + threads, TM_DATA_CFIAT, 1, 0, &res);
    cr_assert_eq(rc, TM_ERR_MISMATCH, "N = %u without invalidation: tm_verify returned %s (%s)", threads,
                 tm_status_str(rc), verr);
    cr_assert_eq(res.ok, 0);
    cr_assert(strstr(verr, "load ") && strstr(verr, "replayed value"),
              "N = %u: the mismatch is not about a load value: %s", threads, verr);
    cr_assert(strstr(verr, "no DATA message"), "N = %u: an inferred value is stale: %s", threads, verr);
    rc = model_and_verify(threads, 200000, 70 + threads, TM_DATA_CFIAT, 0, 0, &res);
    cr_assert_eq(rc, TM_OK, "N = %u with invalidation: %s", threads, verr);
    cr_assert_gt(res.loads_reported, 0);
    cr_assert_gt(res.loads_inferred, 0);
    cr_assert(res.loads_reported + res.loads_inferred <= res.loads);
}

Test(data, replay_fails_without_invalidation_2, .timeout = 120)
{
    replay_needs_invalidation(2);
}

Test(data, replay_fails_without_invalidation_4, .timeout = 120)
{
    replay_needs_invalidation(4);
}

Test(data, replay_fails_without_invalidation_8, .timeout = 120)
{
    replay_needs_invalidation(8);
}

/* The shared cache and --data all replay too; with all, no load is inferred. */
Test(data, replay_shared_cache_and_all, .timeout = 120)
{
    tm_verify_result res;
    int rc = model_and_verify(4, 150000, 5, TM_DATA_CFIAT, 0, 1, &res);
    cr_assert_eq(rc, TM_OK, "cfiat shared: %s", verr);
    cr_assert_gt(res.loads_inferred, 0);
    rc = model_and_verify(4, 150000, 5, TM_DATA_ALL, 0, 0, &res);
    cr_assert_eq(rc, TM_OK, "all: %s", verr);
    cr_assert_eq(res.loads_inferred, 0);
    cr_assert_gt(res.loads_reported, 0);
}
