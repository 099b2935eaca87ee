/* Unit tests of the synthetic stream generator (gen/, tm/gen.h).
 *
 * Each test generates a stream into a temporary file, reads it back with the
 * tmc reader (which validates every rule of docs/spec.md §2.3) and checks
 * what the generator promises: the exact instruction total, every branch
 * class and exceptions, memory operand sizes and line-crossing operands, load
 * values equal to the latest store (re-simulating memory), at most one MEM
 * record per group (one thread's records of one cycle) with a call's or a
 * ret's return-address operand in the group of its BRANCH, loads of data
 * other threads stored (rings and shared arrays), one instruction per pc
 * (same pc, same class, length and direct target; same run start and count,
 * same bytes), returns to the caller's return address, recursion deeper than
 * a 32-entry RAS, events of all threads in the same cycle, the same control
 * flow with and without --mem, determinism and the configuration checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tm/gen.h"
#include "tm/pred.h"
#include "tm/tmc.h"
#include "../../gen/gen_int.h"  /* the address map of the generated data */

/* ---- temporary files ---- */

typedef struct tfile {
    char path[64];
} tfile;

static void tfile_make(tfile *f)
{
    strcpy(f->path, "/tmp/tm-gen-unit.XXXXXX");
    int fd = mkstemp(f->path);
    cr_assert_geq(fd, 0, "mkstemp failed");
    close(fd);
}

static void tfile_clean(tfile *f) { unlink(f->path); }

static void generate(const tm_gen_cfg *c, const char *path)
{
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(path, c->threads, 0, &w, NULL, 0), TM_OK);
    char err[256] = "";
    int rc = tm_gen_run(c, w, NULL, NULL, err, sizeof err);
    cr_assert_eq(rc, TM_OK, "tm_gen_run: %s", err);
    cr_assert_eq(tmc_writer_close(w), TM_OK);
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len + 1);
    cr_assert_eq(fread(b, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return b;
}

static uint64_t hash64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* ---- static program consistency: key -> value maps ---- */

typedef struct kv {
    uint64_t k1, k2;   /* k1 != 0 when used */
    uint64_t v1, v2;
} kv;

typedef struct kvmap {
    kv *e;
    size_t cap, n;
} kvmap;

/* Returns the entry of (k1, k2); *fresh = 1 if it was just created. */
static kv *kv_get(kvmap *m, uint64_t k1, uint64_t k2, int *fresh)
{
    if ((m->n + 1) * 2 > m->cap) {
        kvmap o = *m;
        m->cap = o.cap ? o.cap * 2 : 4096;
        m->e = calloc(m->cap, sizeof *m->e);
        m->n = 0;
        for (size_t i = 0; i < o.cap; i++)
            if (o.e[i].k1) {
                int f;
                *kv_get(m, o.e[i].k1, o.e[i].k2, &f) = o.e[i];
            }
        free(o.e);
    }
    size_t i = hash64(k1 * 31 + k2) & (m->cap - 1);
    while (m->e[i].k1 && (m->e[i].k1 != k1 || m->e[i].k2 != k2))
        i = (i + 1) & (m->cap - 1);
    *fresh = !m->e[i].k1;
    if (*fresh) {
        m->e[i].k1 = k1;
        m->e[i].k2 = k2;
        m->n++;
    }
    return &m->e[i];
}

/* ---- memory re-simulation: pages of known bytes ---- */

typedef struct mpage {
    uint64_t key;          /* page number + 1 */
    uint8_t val[4096];
    uint8_t known[4096];   /* 0 unknown, 1 seen by a load, 2 + tid stored */
    uint16_t writer[4096];
} mpage;

typedef struct mmap_ {
    mpage **p;
    size_t cap, n;
} mmap_;

static mpage *page(mmap_ *m, uint64_t addr)
{
    uint64_t key = (addr >> 12) + 1;
    if ((m->n + 1) * 2 > m->cap) {
        mmap_ o = *m;
        m->cap = o.cap ? o.cap * 2 : 1024;
        m->p = calloc(m->cap, sizeof *m->p);
        for (size_t i = 0; i < o.cap; i++)
            if (o.p[i]) {
                size_t j = hash64(o.p[i]->key) & (m->cap - 1);
                while (m->p[j])
                    j = (j + 1) & (m->cap - 1);
                m->p[j] = o.p[i];
            }
        free(o.p);
    }
    size_t i = hash64(key) & (m->cap - 1);
    while (m->p[i] && m->p[i]->key != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->p[i]) {
        m->p[i] = calloc(1, sizeof(mpage));
        m->p[i]->key = key;
        m->n++;
    }
    return m->p[i];
}

/* ---- reading a stream back ---- */

typedef struct frame_ {
    uint64_t ra, target;
    uint32_t run;          /* nested calls of the same target ending here */
} frame_;

typedef struct tstate {
    frame_ *st;
    size_t n, cap;
    uint64_t insns;
    /* the thread's current group (its records of cycle gcycle) */
    int ingroup;
    uint64_t gcycle;
    uint32_t gmem;         /* MEM records in it */
    tmc_record lastmem;    /* the last of them */
} tstate;

typedef struct stats {
    uint32_t threads;
    uint64_t records, insns, branch[TMC_NCLASSES], exc, starts, exits;
    uint64_t size[65], line_cross, loads, stores;
    uint64_t size_ld[65], size_st[65], line_cross_ld, line_cross_st;
    uint64_t load_bytes_checked, load_mismatch, cross_thread_loads;
    uint64_t cross_ring, cross_shared;      /* cross-thread loads by region */
    uint64_t groups, mem_groups, multi_mem_groups, max_group_mem;
    uint64_t exc_mem_groups, exit_mem_groups; /* EXC / EXIT groups with a MEM */
    uint64_t ra_groups, ra_bad;  /* call/icall/ret groups; those whose only
                                    MEM is not the return-address operand */
    uint64_t static_conflicts, run_conflicts;
    uint32_t max_rec;
    uint64_t ret_mismatch;
    uint64_t all_event_cycles, multi_event_cycles;
    uint64_t all_group_cycles, all_mem_cycles;  /* every thread retired a group,
                                                   one with a MEM */
    uint64_t cond_mispredict, cond_total;  /* gshare 4096 per thread */
    tstate *t;
} stats;

/* A BRANCH record: the static conflicts, the predictor, the return
 * addresses and the call stack. */
static void on_branch(stats *s, tstate *t, const tmc_record *rec, kvmap *br, tm_pred *pred)
{
    int fresh;
    s->insns++;
    t->insns++;
    s->branch[rec->bclass]++;
    int direct = rec->bclass == TMC_COND || rec->bclass == TMC_JUMP || rec->bclass == TMC_CALL;
    kv *e = kv_get(br, rec->pc, 1, &fresh);
    uint64_t v1 = (uint64_t)rec->bclass << 8 | rec->len, v2 = direct ? rec->target : 0;
    if (fresh) {
        e->v1 = v1;
        e->v2 = v2;
    } else if (e->v1 != v1 || e->v2 != v2) {
        s->static_conflicts++;
    }
    if (rec->bclass == TMC_COND) {
        s->cond_total++;
        s->cond_mispredict += tm_pred_cond_predict(pred, rec->pc) != rec->taken;
        tm_pred_cond_update(pred, rec->pc, rec->taken);
    }
    if (t->gmem && (rec->bclass == TMC_CALL || rec->bclass == TMC_ICALL || rec->bclass == TMC_RET)) {
        /* the group's MEM must be the branch's own: the store of the
         * return address, or the ret's load of it */
        const tmc_record *m = &t->lastmem;
        int store = rec->bclass != TMC_RET;
        uint64_t ra = store ? rec->pc + rec->len : rec->target, v = 0;
        for (unsigned k = 0; k < 8; k++)
            v |= (uint64_t)m->value[k] << (8 * k);
        s->ra_groups++;
        if (t->gmem != 1 || m->size != 8 || !(m->flags & TMC_MEM_STORE) != !store || v != ra)
            s->ra_bad++;
    }
    if (rec->bclass == TMC_CALL || rec->bclass == TMC_ICALL) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 64;
            t->st = realloc(t->st, t->cap * sizeof *t->st);
        }
        uint32_t run = t->n && t->st[t->n - 1].target == rec->target ? t->st[t->n - 1].run + 1 : 1;
        t->st[t->n++] = (frame_){rec->pc + rec->len, rec->target, run};
        if (run > s->max_rec)
            s->max_rec = run;
    } else if (rec->bclass == TMC_RET) {
        if (!t->n || t->st[t->n - 1].ra != rec->target)
            s->ret_mismatch++;
        if (t->n)
            t->n--;
    }
}

/* A MEM record: the group's operands, sizes, line crossings and the
 * values against memory as the stream gave it. */
static void on_mem(stats *s, tstate *t, const tmc_record *rec, mmap_ *mem, uint32_t *mems_in_cycle)
{
    int st = (rec->flags & TMC_MEM_STORE) != 0;
    if (++t->gmem == 1) {
        s->mem_groups++;
        (*mems_in_cycle)++;
    }
    else if (t->gmem == 2)
        s->multi_mem_groups++;
    if (t->gmem > s->max_group_mem)
        s->max_group_mem = t->gmem;
    t->lastmem = *rec;
    s->size[rec->size]++;
    (st ? s->size_st : s->size_ld)[rec->size]++;
    if ((rec->addr & 63) + rec->size > 64) {
        s->line_cross++;
        *(st ? &s->line_cross_st : &s->line_cross_ld) += 1;
    }
    if (st)
        s->stores++;
    else
        s->loads++;
    int other = 0;
    for (unsigned k = 0; k < rec->size; k++) {
        uint64_t a = rec->addr + k;
        mpage *pg = page(mem, a);
        unsigned o = (unsigned)(a & 4095);
        if (rec->flags & TMC_MEM_STORE) {
            pg->val[o] = rec->value[k];
            pg->known[o] = 2;
            pg->writer[o] = (uint16_t)rec->tid;
        } else if (pg->known[o]) {
            s->load_bytes_checked++;
            if (pg->val[o] != rec->value[k])
                s->load_mismatch++;
            if (pg->known[o] == 2 && pg->writer[o] != rec->tid)
                other = 1;
        } else {
            pg->val[o] = rec->value[k];
            pg->known[o] = 1;
        }
    }
    s->cross_thread_loads += other;
    if (other && rec->addr >= GEN_RING_BASE && rec->addr < GEN_RING_BASE + GEN_NRING * GEN_RING_SLOTS * 16)
        s->cross_ring++;
    if (other && rec->addr >= GEN_SHARED_BASE && rec->addr < GEN_SHARED_BASE + GEN_SHARED_SIZE + 64)
        s->cross_shared++;
}

static void read_stream(const char *path, stats *s)
{
    memset(s, 0, sizeof *s);
    tmc_reader *r = NULL;
    cr_assert_eq(tmc_reader_open(path, &r, NULL, 0), TM_OK, "open %s", path);
    s->threads = tmc_reader_threads(r);
    s->t = calloc(s->threads, sizeof *s->t);
    tm_pred **pred = calloc(s->threads, sizeof *pred);
    tm_pred_cfg pc = {.gshare = 4096, .ras = 32, .ibtb = 64};
    for (uint32_t i = 0; i < s->threads; i++)
        cr_assert_eq(tm_pred_new(&pc, &pred[i]), TM_OK);
    kvmap br = {0}, runs = {0};
    mmap_ mem = {0};
    uint64_t cyc = UINT64_MAX;
    uint32_t events_in_cycle = 0, groups_in_cycle = 0, mems_in_cycle = 0;
    tmc_record rec;
    int rc;
    while ((rc = tmc_reader_next(r, &rec)) == 1) {
        s->records++;
        if (rec.type >= TMC_START && rec.type <= TMC_MEM) {
            if (rec.cycle != cyc) {
                if (events_in_cycle == s->threads && s->threads > 1)
                    s->all_event_cycles++;
                if (events_in_cycle >= 2)
                    s->multi_event_cycles++;
                if (groups_in_cycle == s->threads && s->threads > 1)
                    s->all_group_cycles++;
                if (mems_in_cycle == s->threads && s->threads > 1)
                    s->all_mem_cycles++;
                cyc = rec.cycle;
                events_in_cycle = groups_in_cycle = mems_in_cycle = 0;
            }
            if (rec.type != TMC_RUN && rec.type != TMC_MEM)
                events_in_cycle++;
        }
        tstate *t = rec.type <= TMC_MEM ? &s->t[rec.tid] : NULL;
        if (t && (!t->ingroup || t->gcycle != rec.cycle)) {
            t->ingroup = 1;
            t->gcycle = rec.cycle;
            t->gmem = 0;
            s->groups++;
            groups_in_cycle++;
        }
        int fresh;
        switch (rec.type) {
        case TMC_START: s->starts++; break;
        case TMC_EXIT:
            s->exits++;
            s->exit_mem_groups += t->gmem > 0;
            break;
        case TMC_EXC:
            s->exc++;
            s->exc_mem_groups += t->gmem > 0;
            break;
        case TMC_RUN: {
            s->insns += rec.count;
            t->insns += rec.count;
            kv *e = kv_get(&runs, rec.pc, rec.count, &fresh);
            if (fresh)
                e->v1 = rec.bytes;
            else if (e->v1 != rec.bytes)
                s->run_conflicts++;
            break;
        }
        case TMC_BRANCH:
            on_branch(s, t, &rec, &br, pred[rec.tid]);
            break;
        case TMC_MEM:
            on_mem(s, t, &rec, &mem, &mems_in_cycle);
            break;
        default:
            break;
        }
    }
    cr_assert_eq(rc, 0, "read %s: %s", path, tmc_reader_error(r));
    tmc_reader_close(r);
    for (uint32_t i = 0; i < s->threads; i++)
        tm_pred_free(pred[i]);
    free(pred);
    free(br.e);
    free(runs.e);
    for (size_t i = 0; i < mem.cap; i++)
        free(mem.p[i]);
    free(mem.p);
}

static void stats_free(stats *s)
{
    for (uint32_t i = 0; i < s->threads; i++)
        free(s->t[i].st);
    free(s->t);
}

static tm_gen_cfg cfg_of(uint32_t threads, uint64_t insns, uint64_t seed, int mem)
{
    tm_gen_cfg c;
    tm_gen_cfg_default(&c);
    c.threads = threads;
    c.insns = insns;
    c.seed = seed;
    c.mem = mem;
    return c;
}

/* The checks every stream must pass. */
static void check_common(const tm_gen_cfg *c, const stats *s)
{
    cr_assert_eq(s->insns, c->insns, "instructions %llu, expected %llu", (unsigned long long)s->insns,
                 (unsigned long long)c->insns);
    for (uint32_t i = 0; i < c->threads; i++) {
        uint64_t share = c->insns / c->threads + (i < c->insns % c->threads);
        cr_assert_eq(s->t[i].insns, share, "thread %u: %llu instructions, expected %llu", i,
                     (unsigned long long)s->t[i].insns, (unsigned long long)share);
    }
    cr_assert_eq(s->starts, c->threads);
    cr_assert_eq(s->exits, c->threads);
    cr_assert_eq(s->static_conflicts, 0, "%llu branches differ from an earlier one at the same pc",
                 (unsigned long long)s->static_conflicts);
    cr_assert_eq(s->run_conflicts, 0, "%llu runs differ in bytes from an earlier one",
                 (unsigned long long)s->run_conflicts);
    cr_assert_eq(s->ret_mismatch, 0, "%llu returns not to the caller's return address",
                 (unsigned long long)s->ret_mismatch);
    cr_assert_eq(s->load_mismatch, 0, "%llu loaded bytes differ from memory",
                 (unsigned long long)s->load_mismatch);
    /* the data trace takes one memory operand per thread per cycle */
    cr_assert_eq(s->multi_mem_groups, 0, "%llu groups with more than one MEM record (up to %llu)",
                 (unsigned long long)s->multi_mem_groups, (unsigned long long)s->max_group_mem);
    cr_assert_eq(s->ra_bad, 0, "%llu of %llu call/ret groups with a MEM other than the return address",
                 (unsigned long long)s->ra_bad, (unsigned long long)s->ra_groups);
    if (c->mem) {
        uint64_t calls = s->branch[TMC_CALL] + s->branch[TMC_ICALL] + s->branch[TMC_RET];
        cr_assert_eq(s->ra_groups, calls, "%llu call/ret groups with their operand, %llu calls and rets",
                     (unsigned long long)s->ra_groups, (unsigned long long)calls);
    } else {
        cr_assert_eq(s->loads + s->stores, 0, "MEM records without --mem");
    }
}

Test(gen, full_stream_with_memory)
{
    tfile f;
    tfile_make(&f);
    tm_gen_cfg c = cfg_of(4, 1000000, 7, 1);
    generate(&c, f.path);
    stats s;
    read_stream(f.path, &s);
    check_common(&c, &s);
    for (unsigned k = 0; k < TMC_NCLASSES; k++)
        cr_assert_gt(s.branch[k], 0, "no %s branch", tmc_bclass_name(k));
    cr_assert_gt(s.exc, 0, "no exception");
    /* sizes: the usual ones, x87 10 bytes, vectors, odd ones */
    static const unsigned want[] = {1, 2, 4, 8, 10, 16, 32, 64};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_assert_gt(s.size_ld[want[i]], 0, "no load of %u bytes", want[i]);
        cr_assert_gt(s.size_st[want[i]], 0, "no store of %u bytes", want[i]);
    }
    uint64_t odd = 0;
    for (unsigned z = 1; z <= 64; z++)
        if (z & (z - 1) && z != 10)
            odd += s.size[z];
    cr_assert_gt(odd, 0, "no operand of an odd size");
    cr_assert_eq(s.size[0], 0);
    cr_assert_gt(s.line_cross, 0, "no line-crossing operand");
    cr_assert_gt(s.loads, 0);
    cr_assert_gt(s.stores, 0);
    cr_assert_gt(s.load_bytes_checked, s.loads, "loads were hardly checked");
    cr_assert_gt(s.cross_thread_loads, 0, "no thread read what another wrote");
    cr_assert_gt(s.cross_ring, 0, "no load from a ring of what another thread stored");
    cr_assert_gt(s.cross_shared, 0, "no load from a shared array of what another thread stored");
    cr_assert_gt(s.max_rec, 32, "recursion only %u deep", s.max_rec);
    cr_assert_gt(s.all_event_cycles, 0, "no cycle where every thread retired an event");
    stats_free(&s);
    tfile_clean(&f);
}

/* The default --mem run of docs/guide.md (tm gen --threads 4 --insns 2000000
 * --seed 11 --mem): one MEM record per group at most, loads equal to memory
 * replayed from the stores in stream order, loads and stores of every usual
 * size, line-crossing loads and stores, loads of what other threads stored
 * through rings and shared arrays, and a share of memory instructions like
 * real x86-64 code (about 30%, two loads per store). */
Test(gen, memory_one_operand_per_group)
{
    tfile f;
    tfile_make(&f);
    tm_gen_cfg c = cfg_of(4, 2000000, 11, 1);
    generate(&c, f.path);
    stats s;
    read_stream(f.path, &s);
    check_common(&c, &s);  /* one MEM per group, loads, return addresses */
    cr_assert_eq(s.max_group_mem, 1);
    cr_assert_gt(s.load_bytes_checked, 2 * s.loads, "loads were hardly checked");
    static const unsigned want[] = {1, 2, 4, 8, 10, 16, 32, 64};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_assert_gt(s.size_ld[want[i]], 0, "no load of %u bytes", want[i]);
        cr_assert_gt(s.size_st[want[i]], 0, "no store of %u bytes", want[i]);
    }
    cr_assert_gt(s.line_cross_ld, 0, "no line-crossing load");
    cr_assert_gt(s.line_cross_st, 0, "no line-crossing store");
    cr_assert_gt(s.cross_ring, 1000, "%llu loads from rings of other threads' data",
                 (unsigned long long)s.cross_ring);
    cr_assert_gt(s.cross_shared, 1000, "%llu loads from shared arrays of other threads' data",
                 (unsigned long long)s.cross_shared);
    /* every instruction has one operand at most, so MEM records count the
     * memory instructions */
    double share = (double)(s.loads + s.stores) / (double)s.insns;
    double ratio = (double)s.loads / (double)s.stores;
    cr_assert(share >= 0.25 && share <= 0.35, "%.1f%% of instructions with a memory operand", share * 100);
    cr_assert(ratio >= 1.6 && ratio <= 2.6, "%.2f loads per store", ratio);
    /* groups were split, not dropped: the control flow is that of the
     * stream without --mem (memory_does_not_change_control_flow) */
    cr_assert_gt(s.mem_groups, s.groups / 2);
    stats_free(&s);
    tfile_clean(&f);
}

/* Exceptions and the end of the budget cut groups short next to memory
 * operands: an EXC group may hold one MEM, never two. */
Test(gen, memory_with_exceptions)
{
    tfile f;
    tfile_make(&f);
    tm_gen_cfg c = cfg_of(4, 400000, 17, 1);
    c.exc_rate = 0.01;
    generate(&c, f.path);
    stats s;
    read_stream(f.path, &s);
    check_common(&c, &s);
    cr_assert_gt(s.exc, 1000, "%llu exceptions", (unsigned long long)s.exc);
    cr_assert_gt(s.exc_mem_groups, 0, "no EXC group with a memory operand");
    stats_free(&s);
    /* budgets ending anywhere: some groups of EXIT hold a MEM */
    uint64_t exit_mem = 0;
    for (uint64_t n = 30; n < 1000; n += 37) {
        tm_gen_cfg d = cfg_of(8, n, n, 1);
        d.exc_rate = 0.05;
        generate(&d, f.path);
        read_stream(f.path, &s);
        check_common(&d, &s);
        exit_mem += s.exit_mem_groups;
        stats_free(&s);
    }
    cr_assert_gt(exit_mem, 0, "no EXIT group with a memory operand");
    tfile_clean(&f);
}

Test(gen, deterministic)
{
    tfile a, b;
    tfile_make(&a);
    tfile_make(&b);
    tm_gen_cfg c = cfg_of(3, 300000, 42, 1);
    generate(&c, a.path);
    generate(&c, b.path);
    size_t na, nb;
    uint8_t *da = slurp(a.path, &na), *db = slurp(b.path, &nb);
    cr_assert_eq(na, nb);
    cr_assert(memcmp(da, db, na) == 0, "same configuration, different bytes");
    free(da);
    free(db);
    tfile_clean(&a);
    tfile_clean(&b);
}

Test(gen, seeds_differ)
{
    tfile a, b;
    tfile_make(&a);
    tfile_make(&b);
    tm_gen_cfg c = cfg_of(2, 100000, 1, 0);
    generate(&c, a.path);
    c.seed = 2;
    generate(&c, b.path);
    size_t na, nb;
    uint8_t *da = slurp(a.path, &na), *db = slurp(b.path, &nb);
    cr_assert(na != nb || memcmp(da, db, na) != 0, "seeds 1 and 2 gave the same stream");
    free(da);
    free(db);
    tfile_clean(&a);
    tfile_clean(&b);
}

Test(gen, one_thread)
{
    tfile f;
    tfile_make(&f);
    tm_gen_cfg c = cfg_of(1, 500000, 3, 1);
    generate(&c, f.path);
    stats s;
    read_stream(f.path, &s);
    check_common(&c, &s);
    cr_assert_gt(s.branch[TMC_COND], 0);
    stats_free(&s);
    tfile_clean(&f);
}

/* Lockstep windows: every thread retires a group in each cycle of a window.
 * Without --mem every group ends in an event, so all 8 threads retire events
 * in the same cycles; with --mem most groups end at a memory operand
 * instead, so all 8 retire a group, and one with a MEM, in the same cycles. */
Test(gen, eight_threads)
{
    tfile f;
    tfile_make(&f);
    for (int mem = 0; mem <= 1; mem++) {
        tm_gen_cfg c = cfg_of(8, 2000000, 11, mem);
        generate(&c, f.path);
        stats s;
        read_stream(f.path, &s);
        check_common(&c, &s);
        cr_assert_gt(s.all_group_cycles, 0, "no cycle where all 8 threads retired a group");
        cr_assert_gt(s.multi_event_cycles, 100);
        if (mem)
            cr_assert_gt(s.all_mem_cycles, 0, "no cycle where all 8 threads retired a memory operand");
        else
            cr_assert_gt(s.all_event_cycles, 0, "no cycle where all 8 threads retired an event");
        stats_free(&s);
    }
    tfile_clean(&f);
}

/* Fewer instructions than threads: some threads start and exit at once. */
Test(gen, tiny_budgets)
{
    tfile f;
    tfile_make(&f);
    for (uint64_t n = 1; n <= 20; n += 19) {
        tm_gen_cfg c = cfg_of(8, n, 5, 1);
        generate(&c, f.path);
        stats s;
        read_stream(f.path, &s);
        check_common(&c, &s);
        stats_free(&s);
    }
    tfile_clean(&f);
}

Test(gen, no_exceptions_no_recursion)
{
    tfile f;
    tfile_make(&f);
    tm_gen_cfg c = cfg_of(2, 300000, 9, 0);
    c.exc_rate = 0;
    c.recursion = 0;
    generate(&c, f.path);
    stats s;
    read_stream(f.path, &s);
    check_common(&c, &s);
    cr_assert_eq(s.exc, 0);
    cr_assert_eq(s.max_rec, 1, "a function called itself with --recursion 0");
    stats_free(&s);
    tfile_clean(&f);
}

Test(gen, deep_recursion_and_exception_rate)
{
    tfile f;
    tfile_make(&f);
    tm_gen_cfg c = cfg_of(1, 400000, 4, 0);
    c.recursion = 500;
    c.exc_rate = 0.001;
    generate(&c, f.path);
    stats s;
    read_stream(f.path, &s);
    check_common(&c, &s);
    cr_assert_gt(s.max_rec, 400, "recursion only %u deep", s.max_rec);
    /* about 400 exceptions expected; the handlers mask further ones */
    cr_assert(s.exc > 150 && s.exc < 800, "%llu exceptions", (unsigned long long)s.exc);
    stats_free(&s);
    tfile_clean(&f);
}

/* Predictability changes how conds behave: a gshare learns a stream of
 * predictability 1 far better than one of predictability 0. */
Test(gen, predictability_steers_gshare)
{
    tfile f;
    tfile_make(&f);
    double rate[2];
    for (int i = 0; i < 2; i++) {
        tm_gen_cfg c = cfg_of(1, 1000000, 21, 0);
        c.predictability = i ? 1.0 : 0.0;
        generate(&c, f.path);
        stats s;
        read_stream(f.path, &s);
        check_common(&c, &s);
        rate[i] = (double)s.cond_mispredict / (double)s.cond_total;
        stats_free(&s);
    }
    cr_assert_lt(rate[1], 0.12, "predictability 1: %.1f%% of conds mispredicted", rate[1] * 100);
    cr_assert_gt(rate[0], 0.25, "predictability 0: only %.1f%% of conds mispredicted", rate[0] * 100);
    tfile_clean(&f);
}

/* ---- control flow of a stream, per thread ---- */

#define FLOW_THREADS 8

typedef struct flow {
    uint64_t digest[FLOW_THREADS];  /* START pc; each BRANCH and EXC with the
                                       instructions since the previous event */
    uint64_t events[FLOW_THREADS];
    uint64_t run[FLOW_THREADS];     /* instructions since the last event */
    uint64_t all;                   /* every field of every record, in order */
    uint64_t records, mems;
} flow;

static uint64_t mix2(uint64_t h, uint64_t v) { return hash64(h ^ hash64(v + 0x9E3779B97F4A7C15ULL)); }

static void read_flow(const char *path, flow *f)
{
    memset(f, 0, sizeof *f);
    tmc_reader *r = NULL;
    cr_assert_eq(tmc_reader_open(path, &r, NULL, 0), TM_OK, "open %s", path);
    cr_assert_leq(tmc_reader_threads(r), FLOW_THREADS);
    tmc_record x;
    int rc;
    while ((rc = tmc_reader_next(r, &x)) == 1) {
        f->records++;
        uint64_t a = f->all;
        a = mix2(a, x.type);
        a = mix2(a, x.tid);
        a = mix2(a, x.cycle);
        a = mix2(a, x.flags);
        a = mix2(a, x.pc);
        a = mix2(a, x.target);
        a = mix2(a, x.count);
        a = mix2(a, x.bytes);
        a = mix2(a, (uint64_t)x.bclass << 16 | (uint64_t)x.taken << 8 | x.len);
        f->all = a;
        if (x.type > TMC_MEM)
            continue;
        uint32_t t = x.tid;
        uint64_t *d = &f->digest[t];
        switch (x.type) {
        case TMC_RUN:
            f->run[t] += x.count;
            continue;
        case TMC_MEM:
            f->mems++;
            continue;
        case TMC_START:
            *d = mix2(mix2(*d, 1), x.pc);
            break;
        case TMC_BRANCH:
            *d = mix2(mix2(mix2(mix2(*d, 4), f->run[t]), x.pc), x.target);
            *d = mix2(*d, (uint64_t)x.bclass << 8 | x.taken);
            break;
        case TMC_EXC:
            *d = mix2(mix2(mix2(mix2(*d, 5), f->run[t]), x.pc), x.target);
            break;
        default: /* EXIT */
            *d = mix2(mix2(*d, 2), f->run[t]);
            break;
        }
        f->run[t] = 0;
        f->events[t]++;
    }
    cr_assert_eq(rc, 0, "read %s: %s", path, tmc_reader_error(r));
    tmc_reader_close(r);
}

/* --mem adds MEM records to the same paths: the BRANCH and EXC records of
 * each thread and the instructions between them are the same as without
 * --mem (the cycles differ: groups are split at memory operands).  And the
 * stream without --mem is the one the generator wrote before MEM records
 * were limited to one per group: its every record is pinned by a digest
 * (change it only when the generator is meant to change without --mem). */
Test(gen, memory_does_not_change_control_flow)
{
    tfile a, b;
    tfile_make(&a);
    tfile_make(&b);
    static const struct {
        uint32_t threads;
        uint64_t insns, seed;
        double exc;
        uint64_t all;  /* digest of the stream without --mem */
    } k[] = {
        {3, 200000, 8, 1e-4, 0x6fcdee257b3526b9ULL},
        {4, 300000, 7, 1e-3, 0xbf228251a0882762ULL},
        {8, 100000, 2, 1e-2, 0x360e0242ec0b2cf6ULL},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        tm_gen_cfg c = cfg_of(k[i].threads, k[i].insns, k[i].seed, 0);
        c.exc_rate = k[i].exc;
        generate(&c, a.path);
        c.mem = 1;
        generate(&c, b.path);
        flow fa, fb;
        read_flow(a.path, &fa);
        read_flow(b.path, &fb);
        cr_assert_eq(fa.mems, 0);
        cr_assert_gt(fb.mems, k[i].insns / 5, "case %zu: %llu MEM records", i, (unsigned long long)fb.mems);
        cr_assert_gt(fb.records, fa.records);
        for (uint32_t t = 0; t < k[i].threads; t++) {
            cr_assert_gt(fa.events[t], 100);
            cr_assert_eq(fa.events[t], fb.events[t], "case %zu thread %u: %llu events, with --mem %llu", i, t,
                         (unsigned long long)fa.events[t], (unsigned long long)fb.events[t]);
            cr_assert_eq(fa.digest[t], fb.digest[t], "case %zu thread %u: control flow differs with --mem", i, t);
        }
        cr_assert_eq(fa.all, k[i].all, "case %zu: the stream without --mem changed (digest %#llx)", i,
                     (unsigned long long)fa.all);
    }
    tfile_clean(&a);
    tfile_clean(&b);
}

typedef struct prog_rec {
    uint64_t calls, last, total;
    int monotone;
} prog_rec;

static void on_progress(uint64_t done, uint64_t total, void *arg)
{
    prog_rec *p = arg;
    if (done < p->last)
        p->monotone = 0;
    p->last = done;
    p->total = total;
    p->calls++;
}

Test(gen, progress_callback)
{
    tfile f;
    tfile_make(&f);
    tm_gen_cfg c = cfg_of(2, 5000000, 1, 0);
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(f.path, c.threads, 0, &w, NULL, 0), TM_OK);
    prog_rec p = {0, 0, 0, 1};
    char err[256];
    cr_assert_eq(tm_gen_run(&c, w, on_progress, &p, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(tmc_writer_close(w), TM_OK);
    cr_assert(p.monotone);
    cr_assert_eq(p.total, c.insns);
    cr_assert_eq(p.last, c.insns, "last progress %llu", (unsigned long long)p.last);
    /* about every 2^20 instructions */
    cr_assert(p.calls >= 4 && p.calls <= 6, "%llu progress calls", (unsigned long long)p.calls);
    tfile_clean(&f);
}

static void expect_bad(const tm_gen_cfg *c, const char *opt)
{
    char err[256] = "";
    cr_assert_eq(tm_gen_cfg_check(c, err, sizeof err), TM_ERR_ARG, "%s accepted", opt);
    cr_assert_not_null(strstr(err, opt), "message '%s' does not name %s", err, opt);
    cr_assert_not_null(strstr(err, "allowed"), "message '%s' gives no range", err);
    cr_assert_eq(tm_gen_cfg_check(c, NULL, 0), TM_ERR_ARG);
    /* tm_gen_run refuses it too */
    tfile f;
    tfile_make(&f);
    tmc_writer *w = NULL;
    cr_assert_eq(tmc_writer_open(f.path, 1, 0, &w, NULL, 0), TM_OK);
    cr_assert_eq(tm_gen_run(c, w, NULL, NULL, err, sizeof err), TM_ERR_ARG);
    tmc_writer_abort(w);
    tfile_clean(&f);
}

Test(gen, cfg_check)
{
    tm_gen_cfg c;
    tm_gen_cfg_default(&c);
    cr_assert_eq(tm_gen_cfg_check(&c, NULL, 0), TM_OK);
    cr_assert_eq(c.threads, 1);
    cr_assert_eq(c.insns, 1000000);
    cr_assert_eq(c.seed, 1);
    cr_assert_eq(c.mem, 0);

    tm_gen_cfg b = c;
    b.threads = 0;
    expect_bad(&b, "--threads");
    b.threads = TMC_MAX_THREADS + 1;
    expect_bad(&b, "--threads");
    b = c;
    b.insns = 0;
    expect_bad(&b, "--insns");
    b.insns = 1000000000001ULL;
    expect_bad(&b, "--insns");
    b = c;
    b.predictability = -0.01;
    expect_bad(&b, "--predictability");
    b.predictability = 1.01;
    expect_bad(&b, "--predictability");
    b.predictability = NAN;
    expect_bad(&b, "--predictability");
    b = c;
    b.exc_rate = -1e-9;
    expect_bad(&b, "--exc-rate");
    b.exc_rate = 0.2;
    expect_bad(&b, "--exc-rate");
    b = c;
    b.recursion = 10001;
    expect_bad(&b, "--recursion");

    /* the limits themselves are fine */
    b = c;
    b.threads = TMC_MAX_THREADS;
    b.insns = 1000000000000ULL;
    b.predictability = 1;
    b.exc_rate = 0.1;
    b.recursion = 10000;
    cr_assert_eq(tm_gen_cfg_check(&b, NULL, 0), TM_OK);
    b.predictability = 0;
    b.exc_rate = 0;
    b.recursion = 0;
    b.insns = 1;
    b.threads = 1;
    cr_assert_eq(tm_gen_cfg_check(&b, NULL, 0), TM_OK);
}

/* The maximum thread count works (a short stream). */
Test(gen, max_threads)
{
    tfile f;
    tfile_make(&f);
    tm_gen_cfg c = cfg_of(TMC_MAX_THREADS, 200000, 13, 1);
    generate(&c, f.path);
    stats s;
    read_stream(f.path, &s);
    check_common(&c, &s);
    stats_free(&s);
    tfile_clean(&f);
}
