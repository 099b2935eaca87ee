/* tm-bench: model throughput on records held in memory, so that the
 * figures are the model's alone (no zstd, no parsing).  Used by make bench.
 *
 *   tm-bench F.tmc REPS [model options as for tm model ...] -- [options] ...
 *
 * Each option group separated by "--" is one configuration; for each it
 * prints one line: name, best seconds of REPS runs, M instructions/s and M
 * memory operands/s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tm/model.h"
#include "tm/tmc.h"
#include "../tools/tm/modelopts.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: tm-bench F.tmc REPS [options] [-- options ...]\n");
        return 2;
    }
    tmc_reader *rd = NULL;
    if (tmc_reader_open(argv[1], &rd) != TM_OK) {
        fprintf(stderr, "tm-bench: %s\n", rd ? tmc_reader_error(rd) : argv[1]);
        return 1;
    }
    uint32_t threads = tmc_reader_threads(rd);
    size_t n = 0, cap = 1 << 20;
    tmc_record *v = malloc(cap * sizeof *v);
    uint64_t insns = 0, mem = 0;
    int rc;
    tmc_record r;
    while (v && (rc = tmc_reader_next(rd, &r)) == 1) {
        if (r.type == TMC_MODULE || r.type == TMC_END)
            continue;
        if (n == cap) {
            tmc_record *nv = realloc(v, 2 * cap * sizeof *v);
            if (!nv) {
                free(v);
                v = NULL;
                break;
            }
            v = nv;
            cap *= 2;
        }
        r.path = NULL;
        r.build_id = NULL;
        v[n++] = r;
        insns += r.type == TMC_RUN ? r.count : r.type == TMC_BRANCH;
        mem += r.type == TMC_MEM;
    }
    if (!v || rc < 0) {
        fprintf(stderr, "tm-bench: %s\n", v ? tmc_reader_error(rd) : "out of memory");
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
        snprintf(name, sizeof name, "%s", o.cfiat ? (o.cfiat_shared ? "cfiat-shared" : "cfiat")
                                         : o.data ? o.data : "control only");
        double best = 0;
        for (int k = 0; k < reps; k++) {
            tm_model *m;
            if (tm_model_new(&cfg, &m) != TM_OK)
                return 1;
            double t0 = now();
            for (size_t j = 0; j < n; j++)
                if (tm_model_put(m, &v[j]) != TM_OK) {
                    fprintf(stderr, "tm-bench: %s\n", tm_model_error(m));
                    return 1;
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
    return 0;
}
