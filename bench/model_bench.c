/* tm-bench: model throughput on records held in memory, so that the
 * figures are the model's alone (no zstd, no parsing).  Used by make bench.
 * The records are kept compact (memory operand values in a separate pool)
 * and copied into one tmc_record before each tm_model_put, as the reader
 * hands them over: the model sees its input in the host cache, not as a
 * stream through several GB of memory.
 *
 *   tm-bench F.tmc REPS [model options as for tm model ...] -- [options] ...
 *
 * Each option group separated by "--" is one configuration; for each it
 * prints one line: name, best seconds of REPS runs, M instructions/s and M
 * memory operands/s.  A group that starts with --cache-only times the CFiat
 * caches of its configuration alone (private, with invalidation of the
 * other cores' flags, as the model drives them) on the memory operands:
 * a floor for any model with CFiat on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tm/model.h"
#include "tm/tmc.h"
#include "tm/cache.h"
#include "tm/grow.h"
#include "modelopts.h" /* tools/tm: the CLI's model options */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* 40 bytes: the fields of a record's type share slots (the stream of
 * records is read once per run; its size is memory traffic).  The copy
 * into the tmc_record sets every field the model reads for the type (it
 * reads no other). */
typedef struct crec {
    uint64_t cycle;
    uint64_t a;        /* pc (START, RUN, BRANCH, EXC); addr (MEM) */
    uint64_t b;        /* bytes (RUN); target (BRANCH, EXC); MEM: offset of the value in the pool */
    uint64_t w;        /* count (RUN); flags (START, EXIT, MEM) */
    uint16_t tid;
    uint8_t type, bclass, taken, len, size;
} crec;

/* Seconds for the private CFiat caches of geometry CC, one per thread, to
 * take the memory operands of the N records V, with the invalidations of a
 * store in the other caches (as the model drives them); -1 if out of
 * memory. */
static double time_caches(const tm_cache_cfg *cc, uint32_t threads, const crec *v, size_t n)
{
    tm_cache *cs[TMC_MAX_THREADS];
    tm_snoop *sn = tm_snoop_new(cc, threads);
    uint32_t made = 0;
    while (made < threads && tm_cache_new(cc, 0, &cs[made]) == TM_OK)
        tm_cache_set_snoop(cs[made++], sn);
    double t = -1;
    if (made == threads) {
        double t0 = now();
        for (size_t j = 0; j < n; j++) {
            const crec *c = &v[j];
            if (c->type != TMC_MEM)
                continue;
            int store = (c->w & TMC_MEM_STORE) != 0;
            tm_cache_access(cs[c->tid], c->tid, c->a, c->size, store);
            if (store)
                tm_cache_invalidate_others(cs, threads, c->tid, c->a, c->size);
        }
        t = now() - t0;
    }
    while (made)
        tm_cache_free(cs[--made]);
    tm_snoop_free(sn);
    return t;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tm-bench F.tmc REPS [options] [-- options ...]\n");
        return 2;
    }
    tmc_reader *rd = NULL;
    char e[600];
    if (tmc_reader_open(argv[1], &rd, e, sizeof e) != TM_OK) {
        fprintf(stderr, "tm-bench: %s\n", e);
        return 1;
    }
    uint32_t threads = tmc_reader_threads(rd);
    size_t n = 0, cap = 1 << 20, pn = 0, pcap = 1 << 20;
    crec *v = malloc(cap * sizeof *v);
    uint8_t *pool = malloc(pcap);
    uint64_t insns = 0, mem = 0;
    int rc;
    tmc_record r;
    while (v && pool && (rc = tmc_reader_next(rd, &r)) == 1) {
        if (r.type == TMC_MODULE || r.type == TMC_END)
            continue;
        /* the pool keeps slack for the fixed-size copies below */
        if (TM_GROW(v, cap, n + 1) != TM_OK || TM_GROW(pool, pcap, pn + 2 * TMC_MAX_OPERAND) != TM_OK) {
            rc = TM_ERR_NOMEM;
            break;
        }
        crec c = {r.cycle, r.type == TMC_MEM ? r.addr : r.pc,
                  r.type == TMC_MEM ? pn : r.type == TMC_RUN ? r.bytes : r.target,
                  r.type == TMC_RUN ? r.count : r.flags, (uint16_t)r.tid,
                  (uint8_t)r.type, r.bclass, r.taken, r.len, r.size};
        if (r.tid > UINT16_MAX) {
            fprintf(stderr, "tm-bench: thread id %u\n", r.tid);
            return 1;
        }
        if (r.type == TMC_MEM) {
            memcpy(pool + pn, r.value, r.size);
            pn += r.size;
        }
        v[n++] = c;
        insns += r.type == TMC_RUN ? r.count : r.type == TMC_BRANCH;
        mem += r.type == TMC_MEM;
    }
    if (!v || !pool || rc < 0) {
        fprintf(stderr, "tm-bench: %s\n", rc == TM_ERR_NOMEM || !v || !pool ? "out of memory" : tmc_reader_error(rd));
        return 1;
    }
    tmc_reader_close(rd);
    int reps = atoi(argv[2]);
    if (reps < 1)
        reps = 1;
    int i = 3;
    do {
        model_opts o;
        memset(&o, 0, sizeof o);
        char name[64];
        int cache_only = i < argc && !strcmp(argv[i], "--cache-only");
        i += cache_only;
        for (; i < argc && strcmp(argv[i], "--"); i++) {
            int k = model_opts_parse("bench", &o, argc, argv, &i);
            if (k <= 0) {
                fprintf(stderr, "tm-bench: bad option %s\n", argv[i]);
                return 2;
            }
        }
        tm_model_cfg cfg;
        if (model_opts_cfg("bench", &o, threads, &cfg))
            return 2;
        snprintf(name, sizeof name, "%s", cache_only ? "cache-only"
                                         : o.cfiat ? (o.cfiat_shared ? "cfiat-shared" : "cfiat")
                                         : o.data ? o.data : "control only");
        if (cache_only && (!o.cfiat || o.cfiat_shared)) {
            fprintf(stderr, "tm-bench: --cache-only: with --cfiat (private caches)\n");
            return 2;
        }
        double best = 0;
        for (int k = 0; cache_only && k < reps; k++) {
            double t = time_caches(&cfg.cache, threads, v, n);
            if (t < 0)
                return 1;
            if (k == 0 || t < best)
                best = t;
        }
        for (int k = 0; !cache_only && k < reps; k++) {
            tm_model *m;
            char me[400];
            if (tm_model_new(&cfg, &m, me, sizeof me) != TM_OK) {
                fprintf(stderr, "model_bench: %s\n", me);
                return 1;
            }
            double t0 = now();
            tmc_record x;
            memset(&x, 0, sizeof x);
            for (size_t j = 0; j < n; j++) {
                const crec *c = &v[j];
                x.type = (tmc_type)c->type;
                x.tid = c->tid;
                x.cycle = c->cycle;
                x.pc = x.addr = c->a;
                x.target = x.bytes = c->b;
                x.count = c->w;
                x.flags = (uint32_t)c->w;
                x.bclass = c->bclass;
                x.taken = c->taken;
                x.len = c->len;
                x.size = c->size;
                /* The model reads only the first SIZE bytes of a value (bytes
                 * past it are junk here, 0 from the reader): one fixed-size
                 * copy, as cheap as a pointer. */
                if (c->type == TMC_MEM) /* 16-byte pieces: not rep movs */
                {
                    const uint8_t *src = pool + c->b;
                    memcpy(x.value, src, 16);
                    memcpy(x.value + 16, src + 16, 16);
                    memcpy(x.value + 32, src + 32, 16);
                    memcpy(x.value + 48, src + 48, 16);
                }
                if (tm_model_put(m, &x) != TM_OK) {
                    fprintf(stderr, "tm-bench: %s\n", tm_model_error(m));
                    return 1;
                }
            }
            tm_model_finish(m);
            double t = now() - t0;
            if (k == 0 || t < best)
                best = t;
            tm_model_free(m);
        }
        printf("%s %.4f %.2f %.2f\n", name, best, insns / best / 1e6, mem / best / 1e6);
        fflush(stdout);
        i++;
    } while (i < argc);
    free(v);
    free(pool);
    return 0;
}
