/* tm — unit tests' helper: a generated commit stream held in memory
 * (tests/unit/genstream.c), for the tests that feed the same records to
 * several models (sweeps, profiles); and a stream file run through a model. */
#ifndef TM_TESTS_GENSTREAM_H
#define TM_TESTS_GENSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include "tm/model.h"
#include "tm/tmc.h"

typedef struct gen_stream_t {
    tmc_record *r;
    size_t n, cap;
} gen_stream_t;

/* tm_gen of THREADS threads, INSNS instructions, SEED, memory operands if
 * MEM, exceptions at EXC_RATE, through a temporary .tmc file into *S (the
 * records' path and build_id cleared: the models need none).  Criterion
 * assertions on failure; free S->r afterwards. */
void gen_stream(gen_stream_t *s, uint32_t threads, uint64_t insns, uint64_t seed, int mem, double exc_rate);

/* Every record of the commit stream at PATH into model M, then
 * tm_model_finish (Criterion assertions on failure). */
void model_file(tm_model *m, const char *path);

/* Models A and B wrote the same trace and the same statistics (the whole
 * module's and each of THREADS threads'): Criterion assertions naming WHAT
 * and each side (AN, BN: e.g. "alone", "in the sweep"). */
void models_equal(const tm_model *a, const tm_model *b, uint32_t threads, const char *what, const char *an,
                  const char *bn);

#endif
