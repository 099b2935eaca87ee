/* tm — unit tests of the capture layer's input (capture/, docs/capture.md):
 * the stream read straight into the layer's buffer (tm_cap_input /
 * tm_cap_commit, as tm record reads the pipe) gives the records that
 * tm_cap_feed gives, whatever the chunking; a stream cut inside an event
 * waits for the rest. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tm/capture.h"
#include "tm/capwire.h"

/* A stream: one block at 0x1000 of two instructions (3 and 2 bytes) left
 * through a direct jump back to itself, run ROUNDS times by thread 0, each
 * time after a 4-byte load and an 8-byte store by instruction 0; then END. */
static size_t make_stream_nv(uint64_t *w, int rounds, int novalue)
{
    size_t n = 0;
    w[n++] = TMCAP_MAGIC;
    w[n++] = TMCAP_BLOCK | 2ull << 8 | 1ull << 24;
    w[n++] = 1;          /* id */
    w[n++] = 0x1000;     /* address of instruction 0 */
    w[n++] = 3 | 0ull << 8;
    w[n++] = 2 | 3ull << 8;
    w[n++] = TMCAP_X_JUMP | 1ull << 8; /* exit 0: instruction 1, a jump */
    w[n++] = 0x1000;
    for (int i = 0; i < rounds; i++) {
        w[n++] = TMCAP_MEM | 0ull << 8 | 4ull << 16 | 0ull << 24;
        w[n++] = 0x2000 + 4u * (unsigned)i;
        w[n++] = 0x11223344u + (unsigned)i;
        w[n++] = TMCAP_MEM | 1ull << 8 | (novalue ? TMCAP_MEM_NOVALUE : 0) | 8ull << 16 | 0ull << 24;
        w[n++] = 0x3000 + 8u * (unsigned)i;
        if (!novalue)
            w[n++] = 0x0102030405060708ull * (unsigned)(i + 1);
        w[n++] = TMCAP_EXEC | 0ull << 8 | 1ull << 16;
    }
    w[n++] = TMCAP_END;
    return n;
}

static size_t make_stream(uint64_t *w, int rounds) { return make_stream_nv(w, rounds, 0); }

typedef struct log {
    tmc_record r[4096];
    size_t n;
} log_t;

static int on_record(void *arg, const tmc_record *r)
{
    log_t *l = arg;
    cr_assert_lt(l->n, sizeof l->r / sizeof l->r[0]);
    l->r[l->n++] = *r;
    return 0;
}

static tm_cap *new_cap(log_t *l)
{
    tm_cap_cfg cfg = {.threads = 4};
    tm_cap_sink sink = {on_record, NULL, l, NULL, NULL};
    tm_cap *c = NULL;
    cr_assert_eq(tm_cap_new(&cfg, &sink, &c), TM_OK);
    return c;
}

static void same_records(const log_t *a, const log_t *b, const char *what)
{
    cr_assert_eq(a->n, b->n, "%s: %zu records, tm_cap_feed gave %zu", what, b->n, a->n);
    for (size_t i = 0; i < a->n; i++) {
        const tmc_record *x = &a->r[i], *y = &b->r[i];
        cr_assert(x->type == y->type && x->tid == y->tid && x->cycle == y->cycle && x->pc == y->pc &&
                      x->count == y->count && x->bytes == y->bytes && x->target == y->target &&
                      x->flags == y->flags && x->size == y->size && x->addr == y->addr &&
                      !memcmp(x->value, y->value, sizeof x->value),
                  "%s: record %zu differs", what, i);
    }
}

Test(capture, input_commit_equals_feed_in_any_chunking)
{
    static uint64_t w[1024];
    size_t nw = make_stream(w, 40);
    static log_t ref, got;
    memset(&ref, 0, sizeof ref);
    tm_cap *c = new_cap(&ref);
    cr_assert_eq(tm_cap_feed(c, w, nw * 8), TM_OK, "%s", tm_cap_error(c));
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    tm_cap_free(c);
    /* START, then per round: RUN + MEM (load), MEM (store) in a group of
     * its own, RUN + BRANCH; then EXIT at the end */
    cr_assert_gt(ref.n, 40 * 3, "the stream gives records (%zu)", ref.n);
    size_t mems = 0;
    for (size_t i = 0; i < ref.n; i++)
        mems += ref.r[i].type == TMC_MEM;
    cr_assert_eq(mems, 80);

    const size_t chunks[] = {1, 3, 7, 8, 9, 13, 64, 1000, nw * 8};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        memset(&got, 0, sizeof got);
        c = new_cap(&got);
        const uint8_t *p = (const uint8_t *)w;
        size_t left = nw * 8, step = chunks[k];
        while (left) {
            size_t ask = step + 5; /* room for more than arrives, as read() may give less */
            uint8_t *room = tm_cap_input(c, ask);
            cr_assert_not_null(room);
            size_t n = left < step ? left : step;
            memcpy(room, p, n);
            cr_assert_eq(tm_cap_commit(c, n), TM_OK, "chunks of %zu: %s", step, tm_cap_error(c));
            p += n;
            left -= n;
        }
        cr_assert_eq(tm_cap_finish(c), TM_OK);
        tm_cap_info in;
        tm_cap_get_info(c, &in);
        cr_assert_eq(in.bytes, nw * 8);
        cr_assert(in.ended);
        tm_cap_free(c);
        char what[64];
        snprintf(what, sizeof what, "chunks of %zu bytes", step);
        same_records(&ref, &got, what);
    }
}

/* tm_cap_feed handles whole events where they are (tm record's shared
 * memory slots) and copies only an unfinished last one: the same records
 * whatever the chunking, a chunk that ends at an event's end or inside
 * one, word-aligned or not. */
Test(capture, feed_in_place_any_chunking)
{
    static uint64_t w[1024], ref_w[1024];
    size_t nw = make_stream(w, 40);
    memcpy(ref_w, w, sizeof w);
    static log_t ref, got;
    memset(&ref, 0, sizeof ref);
    tm_cap *c = new_cap(&ref);
    /* the reference: byte by byte, through the copying path */
    for (size_t i = 0; i < nw * 8; i++)
        cr_assert_eq(tm_cap_feed(c, (const uint8_t *)ref_w + i, 1), TM_OK, "%s", tm_cap_error(c));
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    tm_cap_free(c);
    /* nothing at all, before anything and between chunks: no change */
    memset(&got, 0, sizeof got);
    c = new_cap(&got);
    cr_assert_eq(tm_cap_feed(c, w, 0), TM_OK, "an empty first chunk: %s", tm_cap_error(c));
    cr_assert_eq(tm_cap_feed(c, w, nw * 8), TM_OK, "%s", tm_cap_error(c));
    cr_assert_eq(tm_cap_feed(c, w, 0), TM_OK, "an empty last chunk: %s", tm_cap_error(c));
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    tm_cap_free(c);
    same_records(&ref, &got, "feed with empty chunks");
    static uint8_t unaligned[1024 * 8 + 1];
    memcpy(unaligned + 1, w, nw * 8);
    /* chunks in words: 1 (every event boundary and inside), 2, 3 (MEM
     * events are 2 or 3 words), 11, the whole stream; then odd byte counts */
    const size_t chunks[] = {8, 16, 24, 88, nw * 8, 12, 20, 1000};
    for (int al = 0; al < 2; al++) {
        const uint8_t *src = al ? unaligned + 1 : (const uint8_t *)w;
        for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
            memset(&got, 0, sizeof got);
            c = new_cap(&got);
            size_t left = nw * 8, step = chunks[k];
            for (const uint8_t *p = src; left;) {
                size_t n = left < step ? left : step;
                cr_assert_eq(tm_cap_feed(c, p, n), TM_OK, "chunks of %zu: %s", step, tm_cap_error(c));
                p += n;
                left -= n;
            }
            cr_assert_eq(tm_cap_finish(c), TM_OK);
            tm_cap_info in;
            tm_cap_get_info(c, &in);
            cr_assert_eq(in.bytes, nw * 8, "chunks of %zu: %llu bytes counted", step, (unsigned long long)in.bytes);
            cr_assert(in.ended);
            tm_cap_free(c);
            char what[64];
            snprintf(what, sizeof what, "feed, chunks of %zu bytes%s", step, al ? ", unaligned" : "");
            same_records(&ref, &got, what);
        }
    }
    cr_assert_eq(memcmp(w, ref_w, sizeof w), 0, "tm_cap_feed wrote into its input");
}

/* A stream cut inside an event: nothing of that event is handed on until
 * its last byte arrives; a commit of 0 bytes changes nothing. */
Test(capture, input_waits_for_the_whole_event)
{
    static uint64_t w[1024];
    size_t nw = make_stream(w, 2);
    static log_t got;
    memset(&got, 0, sizeof got);
    tm_cap *c = new_cap(&got);
    /* up to the first MEM's value word, less one byte */
    size_t cut = (8 + 2) * 8 + 7;
    uint8_t *room = tm_cap_input(c, cut);
    memcpy(room, w, cut);
    cr_assert_eq(tm_cap_commit(c, cut), TM_OK);
    cr_assert_eq(got.n, 0);
    room = tm_cap_input(c, 16);
    cr_assert_eq(tm_cap_commit(c, 0), TM_OK);
    cr_assert_eq(got.n, 0);
    room = tm_cap_input(c, nw * 8 - cut);
    memcpy(room, (const uint8_t *)w + cut, nw * 8 - cut);
    cr_assert_eq(tm_cap_commit(c, nw * 8 - cut), TM_OK, "%s", tm_cap_error(c));
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    cr_assert_gt(got.n, 4);
    tm_cap_free(c);
}

/* Bad input through the direct path fails as through tm_cap_feed: one
 * message naming the offset; later calls fail at once. */
Test(capture, input_bad_magic)
{
    static log_t got;
    tm_cap *c = new_cap(&got);
    uint64_t bad = 0x1234;
    uint8_t *room = tm_cap_input(c, 8);
    memcpy(room, &bad, 8);
    cr_assert_eq(tm_cap_commit(c, 8), TM_ERR_FORMAT);
    cr_assert(strstr(tm_cap_error(c), "bad magic"), "%s", tm_cap_error(c));
    cr_assert_null(tm_cap_input(c, 8));
    cr_assert_eq(tm_cap_commit(c, 0), TM_ERR_FORMAT);
    tm_cap_free(c);
}

/* Stores without their values (TMCAP_MEM_NOVALUE: tm record when only the
 * model consumes) give the same records with zero store values; a load
 * without its value is an error. */
Test(capture, stores_without_values)
{
    static uint64_t w[1024], wn[1024];
    size_t nw = make_stream(w, 10), nn = make_stream_nv(wn, 10, 1);
    cr_assert_eq(nn, nw - 10);
    static log_t a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    tm_cap *c = new_cap(&a);
    cr_assert_eq(tm_cap_feed(c, w, nw * 8), TM_OK);
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    tm_cap_free(c);
    c = new_cap(&b);
    cr_assert_eq(tm_cap_feed(c, wn, nn * 8), TM_OK, "%s", tm_cap_error(c));
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    tm_cap_free(c);
    for (size_t i = 0; i < a.n; i++)
        if (a.r[i].type == TMC_MEM && (a.r[i].flags & TMC_MEM_STORE))
            memset(a.r[i].value, 0, sizeof a.r[i].value);
    same_records(&a, &b, "stores without values");

    /* the load of the first round marked as without its value */
    wn[8] |= TMCAP_MEM_NOVALUE;
    c = new_cap(&b);
    cr_assert_eq(tm_cap_feed(c, wn, nn * 8), TM_ERR_FORMAT);
    cr_assert(strstr(tm_cap_error(c), "a load without its value"), "%s", tm_cap_error(c));
    tm_cap_free(c);
}

/* tm_cap_unfinished: the bytes of an event the stream ends inside, and its
 * offset (tm record --capture refuses such a file); 0 at an event's end. */
Test(capture, unfinished_event)
{
    static uint64_t w[1024];
    size_t nw = make_stream(w, 2);
    static log_t got;
    memset(&got, 0, sizeof got);
    tm_cap *c = new_cap(&got);
    uint64_t off = 99;
    cr_assert_eq(tm_cap_unfinished(c, &off), 0);
    cr_assert_eq(off, 0);
    cr_assert_eq(tm_cap_feed(c, w, 3), TM_OK); /* inside the magic */
    cr_assert_eq(tm_cap_unfinished(c, &off), 3);
    cr_assert_eq(off, 0);
    /* the magic, the block (7 words), then 2 words of the first MEM (of 3) */
    cr_assert_eq(tm_cap_feed(c, (const uint8_t *)w + 3, 10 * 8 - 3), TM_OK);
    cr_assert_eq(tm_cap_unfinished(c, &off), 16);
    cr_assert_eq(off, 64);
    cr_assert_eq(tm_cap_feed(c, w + 10, (nw - 10) * 8), TM_OK, "%s", tm_cap_error(c));
    cr_assert_eq(tm_cap_unfinished(c, &off), 0);
    cr_assert_eq(tm_cap_finish(c), TM_OK);
    tm_cap_info in;
    tm_cap_get_info(c, &in);
    cr_assert(in.ended && in.status == 0 && !in.signaled);
    tm_cap_free(c);
}

/* END: how 0 an exit status, how 1 the signal that killed the program. */
Test(capture, end_status_and_signal)
{
    static uint64_t w[1024];
    size_t nw = make_stream(w, 1);
    static log_t got;
    for (int how = 0; how < 2; how++) {
        memset(&got, 0, sizeof got);
        w[nw - 1] = TMCAP_END | 11ull << 8 | (uint64_t)how << 16;
        tm_cap *c = new_cap(&got);
        cr_assert_eq(tm_cap_feed(c, w, nw * 8), TM_OK);
        cr_assert_eq(tm_cap_finish(c), TM_OK);
        tm_cap_info in;
        tm_cap_get_info(c, &in);
        cr_assert(in.ended && in.status == 11 && in.signaled == how, "how %d: %d %d", how, in.status, in.signaled);
        tm_cap_free(c);
    }
}

/* need_values: a store without its value is an error (a commit stream, the
 * descriptors need it), at the store's offset. */
Test(capture, need_values_refuses_stores_without_values)
{
    static uint64_t wn[1024];
    size_t nn = make_stream_nv(wn, 3, 1);
    static log_t got;
    memset(&got, 0, sizeof got);
    tm_cap_cfg cfg = {.threads = 4, .need_values = 1};
    tm_cap_sink sink = {on_record, NULL, &got, NULL, NULL};
    tm_cap *c = NULL;
    cr_assert_eq(tm_cap_new(&cfg, &sink, &c), TM_OK);
    cr_assert_eq(tm_cap_feed(c, wn, nn * 8), TM_ERR_FORMAT);
    cr_assert(strstr(tm_cap_error(c), "offset 88: a store without its value"), "%s", tm_cap_error(c));
    tm_cap_free(c);
}

/* The ISA event (issue 37) reaches the sink's isa callback before any
 * record, and tm_cap_info says it; a consumer that refuses it stops the
 * capture with one line naming the offset. */
static int isa_seen = -1, isa_records_before = -1;
static int on_isa(void *arg, int isa)
{
    log_t *l = arg;
    isa_seen = isa;
    isa_records_before = (int)l->n;
    return isa == 2; /* RISC-V refused */
}

Test(capture, isa_event_to_the_sink)
{
    for (int isa = 1; isa <= 2; isa++) {
        static uint64_t w[1024];
        w[0] = TMCAP_MAGIC;
        w[1] = TMCAP_ISA | (uint64_t)isa << 8;
        size_t n = 2 + make_stream(w + 2, 2) - 1; /* the stream's own magic dropped */
        memmove(w + 2, w + 3, (n - 2) * sizeof w[0]);
        static log_t l;
        l.n = 0;
        isa_seen = isa_records_before = -1;
        tm_cap_cfg cfg = {.threads = 4};
        tm_cap_sink sink = {on_record, NULL, &l, NULL, on_isa};
        tm_cap *c = NULL;
        cr_assert_eq(tm_cap_new(&cfg, &sink, &c), TM_OK);
        int rc = tm_cap_feed(c, w, n * sizeof w[0]);
        cr_assert_eq(isa_seen, isa);
        cr_assert_eq(isa_records_before, 0);
        if (isa == 1) {
            cr_assert_eq(rc, TM_OK, "%s", tm_cap_error(c));
            cr_assert_eq(tm_cap_finish(c), TM_OK);
            tm_cap_info in;
            tm_cap_get_info(c, &in);
            cr_assert_eq(in.isa, 1);
            cr_assert_gt(l.n, 0);
        } else {
            cr_assert_neq(rc, TM_OK);
            cr_assert(strstr(tm_cap_error(c), "offset 8") && strstr(tm_cap_error(c), "riscv64"), "%s",
                      tm_cap_error(c));
        }
        tm_cap_free(c);
    }
}
