/* ka_pipe S K W: a known answer of the timing model (tests/e2e/
 * t_timing_kat.sh).  A pipeline of S threads (1..16) created by main, then
 * joined: stage 0 produces K items (0..K-1); a stage s > 0 takes each item
 * from its input queue; every stage does W units of work per item (unit():
 * about 1,100 instructions over a 1 KB array of its own) and adds 1 to the
 * item, then passes it on (the next stage's queue: capacity 4, a mutex and
 * two condition variables, not-empty and not-full); the last stage consumes
 * the items and sums them.  S = 1: one thread produces and consumes K
 * items with W units each.  With equal work per stage the pipeline takes
 * the per-item work times K + S - 1 items, not S times K.  Main checks the
 * sum (K(K-1)/2 + K S) and that every stage's work computed the same value. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXS 16
#define CAP 4

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
        fprintf(stderr, "ka_pipe: %s '%s': expected %ld..%ld\n", name, s, lo, hi);
        exit(2);
    }
    return v;
}

struct queue {
    pthread_mutex_t m;
    pthread_cond_t not_empty, not_full;
    uint32_t buf[CAP];
    unsigned head, count;
} __attribute__((aligned(64)));

static struct queue q[MAXS]; /* q[s]: the input of stage s > 0 */
static int stages, items, units;
static struct {
    uint32_t h;
    uint64_t sum;
} __attribute__((aligned(64))) res[MAXS];

static void put(struct queue *qu, uint32_t v)
{
    pthread_mutex_lock(&qu->m);
    while (qu->count == CAP)
        pthread_cond_wait(&qu->not_full, &qu->m);
    qu->buf[(qu->head + qu->count) % CAP] = v;
    qu->count++;
    pthread_cond_signal(&qu->not_empty);
    pthread_mutex_unlock(&qu->m);
}

static uint32_t get(struct queue *qu)
{
    pthread_mutex_lock(&qu->m);
    while (qu->count == 0)
        pthread_cond_wait(&qu->not_empty, &qu->m);
    uint32_t v = qu->buf[qu->head];
    qu->head = (qu->head + 1) % CAP;
    qu->count--;
    pthread_cond_signal(&qu->not_full);
    pthread_mutex_unlock(&qu->m);
    return v;
}

static void *stage(void *p)
{
    int s = (int)(intptr_t)p;
    uint32_t a[256];
    for (int i = 0; i < 256; i++)
        a[i] = (uint32_t)i;
    uint32_t h = 1;
    uint64_t sum = 0;
    for (int k = 0; k < items; k++) {
        uint32_t item = s == 0 ? (uint32_t)k : get(&q[s]);
        for (int w = 0; w < units; w++)
            h = unit(a, h);
        item += 1;
        if (s == stages - 1)
            sum += item;
        else
            put(&q[s + 1], item);
    }
    res[s].h = h;
    res[s].sum = sum;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: ka_pipe S K W\n");
        return 2;
    }
    stages = (int)arg(argv[1], 1, MAXS, "S");
    items = (int)arg(argv[2], 0, 10000000, "K");
    units = (int)arg(argv[3], 0, 1000000, "W");
    for (int s = 0; s < stages; s++) {
        pthread_mutex_init(&q[s].m, NULL);
        pthread_cond_init(&q[s].not_empty, NULL);
        pthread_cond_init(&q[s].not_full, NULL);
    }
    pthread_t th[MAXS];
    for (int s = 0; s < stages; s++)
        if (pthread_create(&th[s], NULL, stage, (void *)(intptr_t)s)) {
            fprintf(stderr, "ka_pipe: pthread_create failed\n");
            return 1;
        }
    for (int s = 0; s < stages; s++)
        pthread_join(th[s], NULL);
    uint64_t want = (uint64_t)items * (uint64_t)(items - 1) / 2 + (uint64_t)items * (uint64_t)stages;
    if (res[stages - 1].sum != want) {
        fprintf(stderr, "ka_pipe: the last stage summed %llu, not %llu\n", (unsigned long long)res[stages - 1].sum,
                (unsigned long long)want);
        return 1;
    }
    for (int s = 1; s < stages; s++)
        if (res[s].h != res[0].h) {
            fprintf(stderr, "ka_pipe: stage %d computed %08x, stage 0 %08x\n", s, res[s].h, res[0].h);
            return 1;
        }
    printf("ka_pipe %d %d %d: sum %llu, %08x\n", stages, items, units, (unsigned long long)want, res[0].h);
    return 0;
}
