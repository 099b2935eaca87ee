/* tm — field profiles (include/tm/profile.h): histograms of the chunked
 * fields' bit lengths and a timeline, from a model's message hook. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "tm/bits.h"
#include "tm/profile.h"

#define MAX_CORES 1024u /* tm_enc_cfg's limit */

struct tm_profile {
    uint64_t window;
    tm_profile_counts c;
    uint64_t pcc[MAX_CORES]; /* each core's last accepted control message's cycle */
    uint64_t *tl_bits, *tl_dropped;
    size_t nwin, cap;        /* windows in use, allocated */
    int status;
    char err[160];
};

int tm_profile_new(uint64_t window_cycles, tm_profile **out)
{
    *out = NULL;
    if (window_cycles < 1 || window_cycles > TM_PROFILE_MAX_WINDOW)
        return TM_ERR_ARG;
    tm_profile *p = calloc(1, sizeof *p);
    if (!p)
        return TM_ERR_NOMEM;
    p->window = window_cycles;
    *out = p;
    return TM_OK;
}

void tm_profile_free(tm_profile *p)
{
    if (!p)
        return;
    free(p->tl_bits);
    free(p->tl_dropped);
    free(p);
}

void tm_profile_attach(tm_profile *p, tm_model *m) { tm_model_set_hook(m, tm_profile_hook, p); }

const tm_profile_counts *tm_profile_get(const tm_profile *p) { return &p->c; }

uint64_t tm_profile_window(const tm_profile *p) { return p->window; }

size_t tm_profile_timeline(const tm_profile *p, const uint64_t **bits, const uint64_t **dropped)
{
    if (bits)
        *bits = p->tl_bits;
    if (dropped)
        *dropped = p->tl_dropped;
    return p->nwin;
}

int tm_profile_status(const tm_profile *p) { return p->status; }

const char *tm_profile_error(const tm_profile *p) { return p->status ? p->err : ""; }

/* The first error of the hook is kept. */
static void set_error(tm_profile *p, int status, const char *what)
{
    if (!p->status) {
        p->status = status;
        snprintf(p->err, sizeof p->err, "%s", what);
    }
}

/* *W = the timeline's window of CYCLE, the timeline grown to hold it: 0, or
 * -1 (the profile's error). */
static int window_of(tm_profile *p, uint64_t cycle, size_t *w)
{
    uint64_t k = cycle / p->window;
    if (p->status)
        return -1;
    if (k >= TM_PROFILE_MAX_WINDOWS) {
        char what[160];
        snprintf(what, sizeof what, "the timeline needs more than %zu windows of %" PRIu64 " cycles (cycle %" PRIu64
                 "): give a larger window",
                 TM_PROFILE_MAX_WINDOWS, p->window, cycle);
        set_error(p, TM_ERR_ARG, what);
        return -1;
    }
    if (k >= p->cap) {
        size_t cap = p->cap ? p->cap : 64;
        while (cap <= k)
            cap *= 2;
        if (cap > TM_PROFILE_MAX_WINDOWS)
            cap = TM_PROFILE_MAX_WINDOWS;
        uint64_t *b = realloc(p->tl_bits, cap * sizeof *b);
        if (b)
            p->tl_bits = b;
        uint64_t *d = b ? realloc(p->tl_dropped, cap * sizeof *d) : NULL;
        if (!b || !d) {
            set_error(p, TM_ERR_NOMEM, "out of memory for the timeline");
            return -1;
        }
        p->tl_dropped = d;
        memset(b + p->cap, 0, (cap - p->cap) * sizeof *b);
        memset(d + p->cap, 0, (cap - p->cap) * sizeof *d);
        p->cap = cap;
    }
    if (k >= p->nwin)
        p->nwin = (size_t)k + 1;
    *w = (size_t)k;
    return 0;
}

void tm_profile_hook(void *arg, uint64_t cycle, uint32_t core, const tm_msg *m, unsigned bits, int accepted)
{
    tm_profile *p = arg;
    tm_profile_counts *c = &p->c;
    size_t w;
    int have_w = window_of(p, cycle, &w) == 0;
    if (!accepted) {
        c->dropped_messages++;
        c->dropped_bits += bits;
        if (have_w)
            p->tl_dropped[w]++;
        return;
    }
    c->bits += bits;
    if (have_w)
        p->tl_bits[w] += bits;
    if ((unsigned)m->kind >= TM_MSG_KINDS)
        return;
    c->messages[m->kind]++;
    if (m->kind == TM_MSG_DATA) {
        c->fah_len[tm_nbits64(m->fah)]++;
        c->value_bytes += m->size;
        return;
    }
    switch (m->kind) {
    case TM_MSG_BRANCH:
        c->bcnt_len[tm_nbits64(m->cnt)]++;
        c->bcnt_value[m->cnt >= 1 && m->cnt <= 64 ? m->cnt : 0]++;
        if (m->t)
            c->diffta_len[tm_nbits64(tm_abs64(m->diff_ta))]++;
        break;
    case TM_MSG_EXC:
        c->exc_diffta_len[tm_nbits64(tm_abs64(m->diff_ta))]++;
        c->icnt_len[tm_nbits64(m->icnt)]++;
        break;
    case TM_MSG_SYNC:
        if (m->reason == TM_SYNC_OVERFLOW) {
            c->sync_overflow++;
            c->icnt_len[tm_nbits64(m->icnt)]++;
            c->icnt_len[tm_nbits64(m->gap)]++;
        }
        break;
    default: /* END */
        c->icnt_len[tm_nbits64(m->icnt)]++;
        if (m->lost) {
            c->end_lost++;
            c->icnt_len[tm_nbits64(m->gap)]++;
        }
        break;
    }
    c->diffcc_len[tm_nbits64(m->diff_cc)]++;
    if (core < MAX_CORES) {
        c->diffcc64_len[tm_nbits64(cycle - p->pcc[core])]++;
        p->pcc[core] = cycle;
    }
}

/* The bits of a chunked field of (A, B) over the histogram H. */
static uint64_t field(const uint64_t *h, unsigned a, unsigned b)
{
    uint64_t n = 0;
    for (unsigned l = 0; l < TM_PROFILE_LENS; l++)
        if (h[l])
            n += h[l] * tm_chunked_bits(l ? UINT64_C(1) << (l - 1) : 0, a, b);
    return n;
}

static uint64_t hsum(const uint64_t *h)
{
    uint64_t n = 0;
    for (unsigned l = 0; l < TM_PROFILE_LENS; l++)
        n += h[l];
    return n;
}

/* The bit layout of docs/spec.md §4.3-§4.8 as msg/msg.c counts it:
 * cnt holds BRANCH's bCnt and T, and the other control messages' cnt = 0
 * escape (i0 + 1 bits); diffta the sign and |diffTA|; sync K, R, X, L, D,
 * iCnt, gap and ADDR. */
void tm_profile_field_bits(const tm_profile_counts *c, const tm_enc_cfg *e, tm_field_bits *fb)
{
    const uint64_t *k = c->messages;
    uint64_t ctl = k[TM_MSG_BRANCH] + k[TM_MSG_EXC] + k[TM_MSG_SYNC] + k[TM_MSG_END];
    uint64_t all = ctl + k[TM_MSG_DATA];
    memset(fb, 0, sizeof *fb);
    fb->ti = (uint64_t)tm_ti_bits(e->threads) * all;
    fb->q = e->data ? all : 0;
    fb->cnt = field(c->bcnt_len, e->cnt_a, e->cnt_b) + k[TM_MSG_BRANCH] +
              (ctl - k[TM_MSG_BRANCH]) * ((uint64_t)e->cnt_a + 1);
    fb->diffta = field(c->diffta_len, e->ta_a, e->ta_b) + field(c->exc_diffta_len, e->ta_a, e->ta_b) +
                 hsum(c->diffta_len) + hsum(c->exc_diffta_len);
    fb->diffcc = e->timestamps ? field(c->diffcc_len, e->cc_a, e->cc_b) : 0;
    fb->sync = 2 * k[TM_MSG_EXC] + 4 * (k[TM_MSG_SYNC] + k[TM_MSG_END]) + 64 * k[TM_MSG_SYNC] + c->sync_overflow +
               c->end_lost + field(c->icnt_len, e->cnt_a, e->cnt_b);
    fb->fah = e->data ? field(c->fah_len, e->fah_a, e->fah_b) : 0;
    fb->value = 8 * c->value_bytes;
}

uint64_t tm_profile_bits_total(const tm_field_bits *fb)
{
    return fb->ti + fb->q + fb->cnt + fb->diffta + fb->diffcc + fb->sync + fb->fah + fb->value;
}

static void put_array(FILE *f, const char *name, const uint64_t *v, size_t n, const char *after)
{
    fprintf(f, "  \"%s\": [", name);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRIu64, i ? ", " : "", v[i]);
    fprintf(f, "]%s\n", after);
}

int tm_profile_write_json(const tm_profile *p, const tm_model_cfg *cfg, FILE *f)
{
    if (p->status)
        return p->status;
    const tm_profile_counts *c = &p->c;
    const tm_enc_cfg *e = &cfg->enc;
    tm_field_bits fb;
    tm_profile_field_bits(c, e, &fb);
    fprintf(f, "{\n  \"window_cycles\": %" PRIu64 ",\n", p->window);
    fprintf(f, "  \"config\": {\"encoding\": \"%s\", \"timestamps\": %s, \"ts_bits\": %u, \"threads\": %u, "
               "\"data\": \"%s\", \"chunks\": {\"bcnt\": [%u, %u], \"ta\": [%u, %u], \"cc\": [%u, %u], "
               "\"fah\": [%u, %u]}},\n",
            tm_encoding_name(e->enc), e->timestamps ? "true" : "false", cfg->ts_bits ? cfg->ts_bits : 64,
            e->threads, tm_data_mode_name((tm_data_mode)e->data), e->cnt_a, e->cnt_b, e->ta_a, e->ta_b, e->cc_a,
            e->cc_b, e->fah_a, e->fah_b);
    fprintf(f, "  \"messages\": {\"branch\": %" PRIu64 ", \"exception\": %" PRIu64 ", \"sync\": %" PRIu64
               ", \"sync_overflow\": %" PRIu64 ", \"end\": %" PRIu64 ", \"end_lost\": %" PRIu64
               ", \"data\": %" PRIu64 "},\n",
            c->messages[TM_MSG_BRANCH], c->messages[TM_MSG_EXC], c->messages[TM_MSG_SYNC], c->sync_overflow,
            c->messages[TM_MSG_END], c->end_lost, c->messages[TM_MSG_DATA]);
    fprintf(f, "  \"bits\": %" PRIu64 ",\n", c->bits);
    fprintf(f, "  \"bits_by_field\": {\"ti\": %" PRIu64 ", \"q\": %" PRIu64 ", \"cnt\": %" PRIu64
               ", \"diffta\": %" PRIu64 ", \"diffcc\": %" PRIu64 ", \"sync\": %" PRIu64 ", \"fah\": %" PRIu64
               ", \"value\": %" PRIu64 "},\n",
            fb.ti, fb.q, fb.cnt, fb.diffta, fb.diffcc, fb.sync, fb.fah, fb.value);
    fprintf(f, "  \"value_bytes\": %" PRIu64 ",\n  \"dropped_messages\": %" PRIu64 ",\n  \"dropped_bits\": %" PRIu64
               ",\n",
            c->value_bytes, c->dropped_messages, c->dropped_bits);
    put_array(f, "bcnt_len", c->bcnt_len, TM_PROFILE_LENS, ",");
    put_array(f, "bcnt_value", c->bcnt_value, TM_PROFILE_LENS, ",");
    put_array(f, "diffta_len", c->diffta_len, TM_PROFILE_LENS, ",");
    put_array(f, "exc_diffta_len", c->exc_diffta_len, TM_PROFILE_LENS, ",");
    put_array(f, "icnt_len", c->icnt_len, TM_PROFILE_LENS, ",");
    put_array(f, "diffcc_len", c->diffcc_len, TM_PROFILE_LENS, ",");
    put_array(f, "diffcc64_len", c->diffcc64_len, TM_PROFILE_LENS, ",");
    put_array(f, "fah_len", c->fah_len, TM_PROFILE_LENS, ",");
    fprintf(f, "  \"timeline\": {\n  ");
    put_array(f, "bits", p->tl_bits, p->nwin, ",");
    fprintf(f, "  ");
    put_array(f, "dropped", p->tl_dropped, p->nwin, "");
    fprintf(f, "  }\n}\n");
    return ferror(f) ? TM_ERR_IO : TM_OK;
}
