/* tm — RISC-V E-Trace te_inst and support packets: the field tables of the
 * Efficient Trace for RISC-V spec (v2.0, chapter "Instruction Trace Encoder
 * Output Packets"), sign-based compression and the encapsulation of the
 * Unformatted Trace & Diagnostic Data Packet Encapsulation spec (chapter 2:
 * header byte = length 5 bits, flow 2 bits, extend 1 bit; chapter 3: E-Trace
 * with instruction trace only has no type field; one stream per hart: no
 * srcID).  One source of truth for the encoder and the decoder
 * (include/tm/etrace.h, docs/standards.md §4). */
#include <string.h>
#include "tm/etrace.h"

#define MAXBITS 256u

typedef struct bw {
    uint8_t b[MAXBITS / 8];
    unsigned n;
} bw;

/* V's low W bits, LSB first (fields are transmitted LSB first). */
static void put(bw *w, uint64_t v, unsigned width)
{
    for (unsigned i = 0; i < width && w->n < MAXBITS; i++, w->n++) {
        if ((v >> i) & 1u)
            w->b[w->n >> 3] |= (uint8_t)(1u << (w->n & 7));
        else
            w->b[w->n >> 3] &= (uint8_t)~(1u << (w->n & 7));
    }
}

static unsigned lastbit(const bw *w)
{
    return w->n ? (w->b[(w->n - 1) >> 3] >> ((w->n - 1) & 7)) & 1u : 0;
}

/* branch_map width for BRANCHES 1..31 (spec: 1, 3, 7, 15, 31). */
static unsigned map_width(unsigned branches)
{
    return branches <= 1 ? 1 : branches <= 3 ? 3 : branches <= 7 ? 7 : branches <= 15 ? 15 : 31;
}

static unsigned f0s_width(const tm_et_cfg *c)
{
    return c->bp_log2 && c->jtc_log2 ? 1 : 0;
}

/* notify, updiscon, irreport, irdepth after the address (or irreport and
 * irdepth after the branch map): each logical 1 transmitted as the inverse of
 * the bit before it. */
static void put_flags(bw *w, const tm_et_packet *p, int with_nu)
{
    if (with_nu) {
        put(w, lastbit(w) ^ (p->notify & 1u), 1);
        put(w, lastbit(w) ^ (p->updiscon & 1u), 1);
    }
    unsigned prev = lastbit(w);
    put(w, prev ^ (p->irreport & 1u), 1);
    put(w, p->irreport ? p->irdepth : prev ? ~0ull : 0, TM_ET_IRDEPTH_BITS);
}

size_t tm_et_compressed_bytes(const uint8_t *bits, unsigned nbits)
{
    if (!nbits)
        return 0;
#define BIT(i) ((bits[(i) >> 3] >> ((i) & 7)) & 1u)
    unsigned top = BIT(nbits - 1), n = nbits;
    while (n > 1 && BIT(n - 2) == top)
        n--;
#undef BIT
    return (n + 7) / 8;
}

size_t tm_et_pack(const tm_et_cfg *c, const tm_et_packet *p, uint8_t *out, size_t n, unsigned *bits)
{
    bw w;
    memset(&w, 0, sizeof w);
    switch (p->kind) {
    case TM_ET_F0_BC:
        put(&w, 0, 2);
        put(&w, 0, f0s_width(c));
        put(&w, p->branch_count, 32);
        put(&w, p->branch_fmt, 2);
        if (p->branch_fmt) {
            put(&w, p->address, TM_ET_IADDR_BITS);
            put_flags(&w, p, 1);
        }
        break;
    case TM_ET_F0_JTC:
        put(&w, 0, 2);
        put(&w, 1, f0s_width(c));
        put(&w, p->index, c->jtc_log2);
        put(&w, p->branches, 5);
        if (p->branches)
            put(&w, p->branch_map, map_width(p->branches));
        put_flags(&w, p, 0);
        break;
    case TM_ET_F1_ADDR:
        put(&w, 1, 2);
        put(&w, p->branches, 5);
        put(&w, p->branch_map, map_width(p->branches));
        put(&w, p->address, TM_ET_IADDR_BITS);
        put_flags(&w, p, 1);
        break;
    case TM_ET_F1_FULL:
        put(&w, 1, 2);
        put(&w, 0, 5);
        put(&w, p->branch_map, 31);
        break;
    case TM_ET_F2:
        put(&w, 2, 2);
        put(&w, p->address, TM_ET_IADDR_BITS);
        put_flags(&w, p, 1);
        break;
    case TM_ET_F3_START:
    case TM_ET_F3_TRAP:
        put(&w, 3, 2);
        put(&w, p->kind == TM_ET_F3_START ? 0 : 1, 2);
        put(&w, p->branch, 1);
        put(&w, p->privilege, TM_ET_PRIV_BITS); /* notime_p, nocontext_p: no time, no context */
        if (p->kind == TM_ET_F3_TRAP) {
            put(&w, p->ecause, TM_ET_ECAUSE_BITS);
            put(&w, p->interrupt, 1);
            put(&w, p->thaddr, 1);
        }
        put(&w, p->address, TM_ET_IADDR_BITS);
        if (p->kind == TM_ET_F3_TRAP && !p->interrupt)
            put(&w, p->tval, 64);
        break;
    case TM_ET_F3_SUPPORT:
        put(&w, 3, 2);
        put(&w, 3, 2);
        put(&w, p->ienable, 1);
        put(&w, p->encoder_mode, 1);
        put(&w, p->qual_status, 2);
        put(&w, p->ioptions, TM_ET_IOPTIONS_BITS);
        put(&w, p->denable, 1);
        put(&w, p->dloss, 1); /* doptions: none (no data trace) */
        break;
    default:
        return 0;
    }
    if (bits)
        *bits = w.n;
    size_t len = tm_et_compressed_bytes(w.b, w.n);
    if (len > TM_ET_MAX_PAYLOAD || len + 1 > n)
        return 0;
    /* sign-extend the last byte from the packet's most significant bit */
    unsigned top = lastbit(&w);
    for (unsigned i = w.n; i < len * 8; i++)
        put(&w, top, 1);
    out[0] = (uint8_t)len; /* length, flow 0, extend 0 */
    memcpy(out + 1, w.b, len);
    return len + 1;
}

typedef struct br {
    const uint8_t *p;
    unsigned nbits, pos;
} br;

static uint64_t get(br *r, unsigned width)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++, r->pos++) {
        unsigned k = r->pos < r->nbits ? r->pos : r->nbits - 1; /* sign extension */
        v |= (uint64_t)((r->p[k >> 3] >> (k & 7)) & 1u) << i;
    }
    return v;
}

static unsigned prevbit(const br *r)
{
    unsigned k = r->pos - 1 < r->nbits ? r->pos - 1 : r->nbits - 1;
    return (r->p[k >> 3] >> (k & 7)) & 1u;
}

static void get_flags(br *r, tm_et_packet *p, int with_nu)
{
    if (with_nu) {
        unsigned prev = prevbit(r);
        p->notify = (unsigned)get(r, 1) ^ prev;
        prev = prevbit(r);
        p->updiscon = (unsigned)get(r, 1) ^ prev;
    }
    unsigned prev = prevbit(r);
    p->irreport = (unsigned)get(r, 1) ^ prev;
    p->irdepth = (unsigned)get(r, TM_ET_IRDEPTH_BITS);
}

int tm_et_unpack(const tm_et_cfg *c, const uint8_t *in, size_t n, tm_et_packet *p)
{
    memset(p, 0, sizeof *p);
    if (n < 1)
        return -1;
    unsigned len = in[0] & 31u;
    if (!len)
        return 0;
    if ((in[0] >> 5) != 0) /* flow 0, extend 0 only */
        return -2;
    if (len + 1 > n)
        return -1;
    br r = {in + 1, len * 8, 0};
    unsigned fmt = (unsigned)get(&r, 2);
    switch (fmt) {
    case 0: {
        unsigned sub;
        if (c->bp_log2 && c->jtc_log2)
            sub = (unsigned)get(&r, 1);
        else if (c->bp_log2)
            sub = 0;
        else if (c->jtc_log2)
            sub = 1;
        else
            return -2;
        if (sub == 0) {
            p->kind = TM_ET_F0_BC;
            p->branch_count = (uint32_t)get(&r, 32);
            p->branch_fmt = (unsigned)get(&r, 2);
            if (p->branch_fmt == 1)
                return -2;
            if (p->branch_fmt) {
                p->address = get(&r, TM_ET_IADDR_BITS);
                get_flags(&r, p, 1);
            }
        } else {
            p->kind = TM_ET_F0_JTC;
            p->index = (uint32_t)get(&r, c->jtc_log2);
            p->branches = (unsigned)get(&r, 5);
            if (p->branches)
                p->branch_map = (uint32_t)get(&r, map_width(p->branches));
            get_flags(&r, p, 0);
        }
        break;
    }
    case 1:
        p->branches = (unsigned)get(&r, 5);
        if (!p->branches) {
            p->kind = TM_ET_F1_FULL;
            p->branch_map = (uint32_t)get(&r, 31);
        } else {
            p->kind = TM_ET_F1_ADDR;
            p->branch_map = (uint32_t)get(&r, map_width(p->branches));
            p->address = get(&r, TM_ET_IADDR_BITS);
            get_flags(&r, p, 1);
        }
        break;
    case 2:
        p->kind = TM_ET_F2;
        p->address = get(&r, TM_ET_IADDR_BITS);
        get_flags(&r, p, 1);
        break;
    default: {
        unsigned sub = (unsigned)get(&r, 2);
        if (sub == 2)
            return -2; /* context: not sent (nocontext_p) */
        if (sub == 3) {
            p->kind = TM_ET_F3_SUPPORT;
            p->ienable = (unsigned)get(&r, 1);
            p->encoder_mode = (unsigned)get(&r, 1);
            p->qual_status = (unsigned)get(&r, 2);
            p->ioptions = (unsigned)get(&r, TM_ET_IOPTIONS_BITS);
            p->denable = (unsigned)get(&r, 1);
            p->dloss = (unsigned)get(&r, 1);
            break;
        }
        p->kind = sub == 0 ? TM_ET_F3_START : TM_ET_F3_TRAP;
        p->branch = (unsigned)get(&r, 1);
        p->privilege = (unsigned)get(&r, TM_ET_PRIV_BITS);
        if (sub == 1) {
            p->ecause = (unsigned)get(&r, TM_ET_ECAUSE_BITS);
            p->interrupt = (unsigned)get(&r, 1);
            p->thaddr = (unsigned)get(&r, 1);
        }
        p->address = get(&r, TM_ET_IADDR_BITS);
        if (sub == 1 && !p->interrupt)
            p->tval = get(&r, 64);
        break;
    }
    }
    return (int)len + 1;
}

static const char *const kind_names[TM_ET_NKINDS] = {"f0_bc", "f0_jtc", "f1_addr", "f1_full",
                                                      "f2", "f3_start", "f3_trap", "f3_support"};

const char *tm_et_kind_name(unsigned k)
{
    return k < TM_ET_NKINDS ? kind_names[k] : "?";
}
