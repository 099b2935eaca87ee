/* tm — unit testbench reference (testbench/unit/run.sh): common: the random stream, the report line, the predictors' shared stimulus;
 * stimulus and the bit-exact comparison, see tb_ref.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tb_ref.h"
#include "tm/msg.h"
#include "tm/pred.h"
#include "tm/cache.h"

/* ------------------------------------------------------------------ common */

uint64_t tb_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* 1 with probability 1/n */
int tb_one_in(uint64_t *s, unsigned n)
{
    return tb_rand(s) % n == 0;
}

uint64_t tb_rand_value(uint64_t *s)
{
    unsigned nb = (unsigned)(tb_rand(s) % 65); /* significant bits */
    uint64_t mask = nb == 64 ? ~0ull : (1ull << nb) - 1;
    uint64_t top = nb == 0 ? 0 : 1ull << (nb - 1);
    switch (tb_rand(s) % 8) {
    case 0: return 0;
    case 1: return mask;                 /* all ones of a width */
    case 2: return top;                  /* a single bit */
    case 3: return ~0ull;
    default: return (tb_rand(s) & mask) | top;
    }
}

int tb_report(const char *name, int failed, const char *detail)
{
    printf("%s %s: %s\n", failed ? "FAIL" : "PASS", name, detail);
    fflush(stdout);
    return failed != 0;
}

tm_pred *tb_pred_new(unsigned gshare, unsigned ras, unsigned ibtb)
{
    tm_pred_cfg c = {.gshare = gshare, .ras = ras, .ibtb = ibtb};
    tm_pred *p = NULL;
    if (tm_pred_new(&c, &p) != TM_OK) {
        fprintf(stderr, "tm_pred_new(gshare %u, ras %u, ibtb %u) failed\n", gshare, ras, ibtb);
        exit(2);
    }
    return p;
}

/* Reset / clear schedule shared by the predictor testbenches. */
void tb_reset_clear(uint64_t *s, uint64_t cycle, uint8_t *rst_n, uint8_t *clear)
{
    *rst_n = !(cycle < 2 || tb_one_in(s, 40000));
    *clear = tb_one_in(s, 12000);
}
