/* Unit tests of the run scanner (tm/runscan.h) over a hand-made code buffer
 * of a toy ISA: an instruction's first byte is its length in the low
 * nibble (0: does not decode) and 0x80 when the instruction is wanted.
 * Runs with and without wanted instructions, the cache answering a run
 * again without decoding it, many runs (the table grows, the runs met
 * again are still found), the errors: no code, an instruction that does
 * not decode, the decoded length not the record's (on a miss and on a hit). */
#include <criterion/criterion.h>
#include <string.h>
#include "tm/runscan.h"
#include "tm/status.h"

#define BASE 0x10000ull

static uint8_t code[0x10000];

typedef struct counter {
    unsigned long steps;
} counter;

static const uint8_t *code_at(void *arg, uint64_t addr, size_t *avail)
{
    (void)arg;
    if (addr < BASE || addr >= BASE + sizeof code)
        return NULL;
    *avail = (size_t)(BASE + sizeof code - addr);
    return code + (addr - BASE);
}

static int toy_step(void *arg, const uint8_t *p, size_t avail, uint64_t addr, unsigned *len)
{
    (void)addr;
    ((counter *)arg)->steps++;
    unsigned n = p[0] & 0x0F;
    if (!n || n > avail)
        return -1;
    *len = n;
    return (p[0] & 0x80) != 0;
}

/* Code: at BASE, lengths 1, 2, 3, 4 (the 3 wanted), repeated; at BASE +
 * 0x100 a byte that does not decode; from BASE + 0x200, 4-byte
 * instructions, every 7th wanted. */
static void code_init(void)
{
    memset(code, 0, sizeof code);
    static const uint8_t pat[10] = {0x01, 0x02, 0, 0x83, 0, 0, 0x04, 0, 0, 0};
    for (unsigned i = 0; i + sizeof pat <= 0x100; i += sizeof pat)
        memcpy(code + i, pat, sizeof pat);
    for (unsigned i = 0x200, k = 0; i + 4 <= sizeof code; i += 4, k++)
        code[i] = k % 7 == 6 ? 0x84 : 0x04;
}

static tmc_record run(uint64_t pc, uint64_t count, uint64_t bytes)
{
    tmc_record r;
    memset(&r, 0, sizeof r);
    r.type = TMC_RUN;
    r.tid = 3;
    r.pc = pc;
    r.count = count;
    r.bytes = bytes;
    return r;
}

static tm_runscan *scanner(counter *c)
{
    tm_runscan *s = NULL;
    char err[200] = "";
    cr_assert_eq(tm_runscan_new(code_at, NULL, toy_step, c, "thread", &s, err, sizeof err), TM_OK, "%s", err);
    return s;
}

Test(runscan, runs_and_cache)
{
    code_init();
    counter c = {0};
    tm_runscan *s = scanner(&c);
    char err[200] = "";
    tm_runscan_run x;

    /* 1, 2: nothing wanted; the last instruction at BASE + 1 */
    tmc_record r = run(BASE, 2, 3);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(x.n, 0);
    cr_assert_eq(x.last, BASE + 1);
    cr_assert_eq(c.steps, 2);

    /* 1, 2, 3*, 4, 1, 2, 3*: two wanted, the 3rd and the 7th */
    r = run(BASE, 7, 16);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(x.n, 2);
    cr_assert_eq(x.hit[0].k, 2);
    cr_assert_eq(x.hit[0].at, BASE + 3);
    cr_assert_eq(x.hit[0].next, BASE + 6);
    cr_assert_eq(x.hit[1].k, 6);
    cr_assert_eq(x.hit[1].at, BASE + 13);
    cr_assert_eq(x.hit[1].next, BASE + 16);
    cr_assert_eq(x.last, BASE + 13);
    cr_assert_eq(c.steps, 9);

    /* the same runs again: the same answers, nothing decoded */
    for (int i = 0; i < 3; i++) {
        tm_runscan_run y;
        cr_assert_eq(tm_runscan_get(s, &r, &y, err, sizeof err), TM_OK, "%s", err);
        cr_assert_eq(y.n, 2);
        cr_assert_eq(y.hit[0].k, 2);
        cr_assert_eq(y.hit[1].next, BASE + 16);
        cr_assert_eq(y.last, BASE + 13);
        tmc_record r2 = run(BASE, 2, 3);
        cr_assert_eq(tm_runscan_get(s, &r2, &y, err, sizeof err), TM_OK, "%s", err);
        cr_assert_eq(y.n, 0);
        cr_assert_eq(y.last, BASE + 1);
    }
    cr_assert_eq(c.steps, 9);
    cr_assert_eq(tm_runscan_runs(s), 2);

    /* a run that starts on a wanted instruction and ends on one */
    r = run(BASE + 3, 1, 3);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(x.n, 1);
    cr_assert_eq(x.hit[0].k, 0);
    cr_assert_eq(x.hit[0].at, BASE + 3);
    cr_assert_eq(x.last, BASE + 3);
    tm_runscan_free(s);
}

/* Thousands of distinct runs: the table grows (twice at least) and every
 * run, asked again in another order, gives its own answer. */
Test(runscan, many_runs)
{
    code_init();
    counter c = {0};
    tm_runscan *s = scanner(&c);
    char err[200] = "";
    const unsigned n = 10000;
    for (int pass = 0; pass < 3; pass++)
        for (unsigned i = 0; i < n; i++) {
            unsigned q = pass == 1 ? n - 1 - i : (i * 7919u) % n;
            uint64_t pc = BASE + 0x200 + 4 * (q % 1000), count = 1 + q / 1000 * 13;
            tmc_record r = run(pc, count, 4 * count);
            tm_runscan_run x;
            cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_OK, "%s", err);
            uint64_t k0 = (pc - BASE - 0x200) / 4, want = 0;
            for (uint64_t k = 0; k < count; k++)
                if ((k0 + k) % 7 == 6) {
                    cr_assert_lt(want, x.n);
                    cr_assert_eq(x.hit[want].k, k);
                    cr_assert_eq(x.hit[want].next, pc + 4 * k + 4);
                    want++;
                }
            cr_assert_eq(x.n, want, "run %u: %u wanted, %lu expected", q, x.n, (unsigned long)want);
            cr_assert_eq(x.last, pc + 4 * count - 4);
        }
    cr_assert_eq(tm_runscan_runs(s), n);
    tm_runscan_free(s);
}

Test(runscan, errors)
{
    code_init();
    counter c = {0};
    tm_runscan *s = scanner(&c);
    char err[300] = "";
    tm_runscan_run x;

    /* the code says 16 bytes, the record 15: refused, and not kept */
    tmc_record r = run(BASE, 7, 15);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_ERR_MISMATCH);
    cr_assert(strstr(err, "the wrong binary"), "%s", err);
    cr_assert(strstr(err, "thread 3: run at 0x10000: 7 instructions are 16 bytes in the code, 15 in the commit "
                          "stream"), "%s", err);
    cr_assert_eq(tm_runscan_runs(s), 0);

    /* known with 16 bytes, then met with 17: refused on the hit too */
    r = run(BASE, 7, 16);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_OK, "%s", err);
    r.bytes = 17;
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_ERR_MISMATCH);
    cr_assert(strstr(err, "16 bytes in the code, 17 in the commit stream (the wrong binary?)"), "%s", err);

    /* no code at the run's 2nd instruction: the run goes past the buffer */
    r = run(BASE + sizeof code - 4, 2, 8);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "no code at 0x20000"), "%s", err);
    cr_assert(strstr(err, "thread 3: run at 0x1fffc"), "%s", err);

    /* no code at all */
    r = run(0x400, 1, 1);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "no code at 0x400"), "%s", err);

    /* an instruction that does not decode */
    r = run(BASE + 0x100, 1, 1);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "cannot decode the instruction at 0x10100"), "%s", err);
    cr_assert_eq(tm_runscan_runs(s), 1);

    /* the good run is still there, and the failed ones are not kept */
    unsigned long steps = c.steps;
    r = run(BASE, 7, 16);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_OK, "%s", err);
    cr_assert_eq(x.n, 2);
    cr_assert_eq(c.steps, steps);
    tm_runscan_free(s);

    /* another unit's name; a scanner needs the code and the step */
    s = NULL;
    cr_assert_eq(tm_runscan_new(code_at, NULL, toy_step, &c, "hart", &s, err, sizeof err), TM_OK, "%s", err);
    r = run(0x400, 1, 1);
    cr_assert_eq(tm_runscan_get(s, &r, &x, err, sizeof err), TM_ERR_FORMAT);
    cr_assert(strstr(err, "hart 3: run at 0x400"), "%s", err);
    tm_runscan_free(s);
    tm_runscan_free(NULL);
    s = (tm_runscan *)&c;
    cr_assert_eq(tm_runscan_new(NULL, NULL, toy_step, NULL, NULL, &s, err, sizeof err), TM_ERR_ARG);
    cr_assert_null(s);
    cr_assert_eq(tm_runscan_new(code_at, NULL, NULL, NULL, NULL, &s, err, sizeof err), TM_ERR_ARG);
}
