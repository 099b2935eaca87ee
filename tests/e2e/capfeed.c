/* capfeed — test harness of tests/e2e/t_record_regress.sh (case 14): feeds a
 * capture stream (the Valgrind tool's output, docs/capture.md §2) through
 * the capture layer into the model, either record by record
 * (tm_model_put) or, where the layer has them, whole groups
 * (tm_cap_sink.group, tm_model_put_group), and prints a digest of the
 * trace and the model's statistics: the two must be the same.
 *
 *   capfeed CAPTURE records|groups|slow PRESET [serial|cores]
 *
 * PRESET: a tm_model_preset name; slow: records, and the capture layer takes
 * none of its fast paths (tm_cap_cfg.slow); cores: the timing model
 * (tm/timing.h) with its defaults between the capture layer and the model,
 * serial (the default) without it.
 * The model traces load values (CFiat) with 8 threads and TR_e.  The
 * capture is fed in pieces of changing sizes, some ending inside an event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/capture.h"
#include "tm/model.h"

static int put_record(void *arg, const tmc_record *r) { return tm_model_put(arg, r) != TM_OK; }
static int put_group(void *arg, const tmc_group *g) { return tm_model_put_group(arg, g) != TM_OK; }

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv)
{
    if ((argc != 4 && argc != 5) || (strcmp(argv[2], "records") && strcmp(argv[2], "groups") && strcmp(argv[2], "slow")) ||
        (argc == 5 && strcmp(argv[4], "serial") && strcmp(argv[4], "cores"))) {
        fprintf(stderr, "usage: capfeed CAPTURE records|groups|slow PRESET [serial|cores]\n");
        return 2;
    }
    int cores = argc == 5 && !strcmp(argv[4], "cores");
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    tm_model_cfg cfg;
    tm_model_cfg_default(&cfg, 8);
    char err[256];
    if (tm_model_preset(&cfg, argv[3]) != TM_OK) {
        fprintf(stderr, "capfeed: unknown preset %s\n", argv[3]);
        return 2;
    }
    cfg.enc.enc = TM_ENC_TR_E;
    cfg.enc.data = TM_DATA_CFIAT;
    tm_model *m = NULL;
    if (tm_model_cfg_resolve(&cfg, err, sizeof err) != TM_OK || tm_model_new(&cfg, &m, err, sizeof err) != TM_OK) {
        fprintf(stderr, "capfeed: model: %s\n", err);
        return 1;
    }
    tm_timing_cfg tc;
    tm_timing_defaults(&tc);
    tm_cap_cfg cc = {.threads = 8, .slow = !strcmp(argv[2], "slow"), .timing = cores ? &tc : NULL};
    tm_cap_sink sink = {put_record, NULL, m, strcmp(argv[2], "groups") ? NULL : put_group, NULL};
    tm_cap *cap = NULL;
    if (tm_cap_new(&cc, &sink, &cap) != TM_OK)
        return 1;
    static uint64_t buf[1 << 16];
    const size_t sizes[] = {1 << 19, 4096, 1000, 65536 + 13, 8};
    size_t k = 0, n;
    while ((n = fread(buf, 1, sizes[k % 5], f)) > 0) {
        k++;
        if (tm_cap_feed(cap, buf, n) != TM_OK) {
            fprintf(stderr, "capfeed: %s%s%s\n", tm_cap_error(cap), *tm_model_error(m) ? ": " : "",
                    tm_model_error(m));
            return 1;
        }
    }
    fclose(f);
    if (tm_cap_finish(cap) != TM_OK || tm_model_finish(m) != TM_OK) {
        fprintf(stderr, "capfeed: at the end: %s %s\n", tm_cap_error(cap), tm_model_error(m));
        return 1;
    }
    const tm_bitbuf *t = tm_model_trace(m);
    const tm_model_stats *st = tm_model_get_stats(m);
    tm_cap_info in;
    tm_cap_get_info(cap, &in);
    printf("capture: %llu instructions, %llu memory operands, %u threads, %llu cycles\n",
           (unsigned long long)in.instructions, (unsigned long long)in.mem, in.threads,
           (unsigned long long)in.cycles);
    printf("trace: %llu bits, digest %016llx\n", (unsigned long long)t->nbits,
           (unsigned long long)fnv(1469598103934665603ull, t->data, (size_t)((t->nbits + 7) / 8)));
    printf("model: %llu cycles, %llu overflow cycles, %llu instructions, %llu loads, %llu reports\n",
           (unsigned long long)st->cycles, (unsigned long long)st->overflow_cycles,
           (unsigned long long)st->total.instructions, (unsigned long long)st->total.loads,
           (unsigned long long)st->total.reports);
    printf("stats digest %016llx\n", (unsigned long long)fnv(1469598103934665603ull, st, sizeof *st));
    if (cores) {
        tm_timing_stats ts;
        tm_cap_timing_stats(cap, &ts);
        printf("timing: %llu groups, %llu cycles, %llu clamped, %llu futex waits, %llu released, delayed %llu %llu %llu %llu\n",
               (unsigned long long)ts.groups, (unsigned long long)ts.cycles, (unsigned long long)ts.clamped,
               (unsigned long long)ts.futex_waits, (unsigned long long)ts.futex_released,
               (unsigned long long)ts.floors[TM_WAIT_FUTEX], (unsigned long long)ts.floors[TM_WAIT_JOIN],
               (unsigned long long)ts.floors[TM_WAIT_STORE], (unsigned long long)ts.floors[TM_WAIT_LOAD]);
    }
    tm_cap_free(cap);
    tm_model_free(m);
    return 0;
}
