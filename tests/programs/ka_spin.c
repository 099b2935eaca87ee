/* ka_spin W1 W2: a known answer of the timing model (tests/e2e/
 * t_timing_kat.sh).  Main starts thread B, does W1 units of work (unit():
 * about 1,100 instructions over a 1 KB array of its own), then publishes a
 * flag with an atomic store (release); B spins on the flag with atomic
 * loads (acquire) and the CPU's relax hint (x86-64 pause, AArch64 yield,
 * RISC-V a nop), then does W2 units of work; main joins B.  B's work
 * starts when main's store is seen, so the run takes main's W1 plus B's W2,
 * however long B spun under the instrumenter.  Main checks that B saw the
 * flag and, when W1 == W2, that both computed the same value. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static uint32_t unit(uint32_t *a, uint32_t s)
{
    for (int i = 0; i < 256; i += 2) {
        s = (s ^ a[i]) * 0x9e3779b1u;
        a[i + 1] += s >> 7;
    }
    return s;
}

static long arg(const char *s, long lo, long hi, const char *name)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "ka_spin: %s '%s': expected %ld..%ld\n", name, s, lo, hi);
        exit(2);
    }
    return v;
}

static inline void relax(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#elif defined(__riscv)
    __asm__ volatile("nop");
#endif
}

static atomic_int flag;
static long w1, w2;
static struct {
    uint32_t h;
    int seen;
} __attribute__((aligned(64))) res_b;

static uint32_t work(long units)
{
    uint32_t a[256];
    for (int i = 0; i < 256; i++)
        a[i] = (uint32_t)i;
    uint32_t h = 1;
    for (long w = 0; w < units; w++)
        h = unit(a, h);
    return h;
}

static void *thread_b(void *p)
{
    (void)p;
    while (!atomic_load_explicit(&flag, memory_order_acquire))
        relax();
    res_b.seen = 1;
    res_b.h = work(w2);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ka_spin W1 W2\n");
        return 2;
    }
    w1 = arg(argv[1], 0, 100000000, "W1");
    w2 = arg(argv[2], 0, 100000000, "W2");
    pthread_t b;
    if (pthread_create(&b, NULL, thread_b, NULL)) {
        fprintf(stderr, "ka_spin: pthread_create failed\n");
        return 1;
    }
    uint32_t h = work(w1);
    atomic_store_explicit(&flag, 1, memory_order_release);
    pthread_join(b, NULL);
    if (!res_b.seen || (w1 == w2 && res_b.h != h)) {
        fprintf(stderr, "ka_spin: B saw the flag %d, computed %08x; main %08x\n", res_b.seen, res_b.h, h);
        return 1;
    }
    printf("ka_spin %ld %ld: %08x %08x\n", w1, w2, h, res_b.h);
    return 0;
}
