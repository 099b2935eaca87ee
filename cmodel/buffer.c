/* tm — the shared trace buffer and the trace port (docs/spec.md §3.6);
 * mirrors rtl/tm_buffer.sv.  The acceptance rule (buffer_offer) is inline
 * in model_int.h: every offer of every core goes through it. */
#include <string.h>
#include "model_int.h"

void buffer_init(tm_buffer *b, uint32_t buffer_bits, uint32_t port_bits, uint32_t reserve)
{
    memset(b, 0, sizeof *b);
    b->B = buffer_bits;
    b->W = port_bits;
    b->reserve = reserve;
    tm_bitbuf_init(&b->trace);
}

void buffer_free(tm_buffer *b)
{
    tm_bitbuf_free(&b->trace);
}


void buffer_port_bulk(tm_buffer *b, uint64_t k)
{
    if (!k)
        return;
    if (!b->occ) {
        b->idle += k;
        return;
    }
    uint64_t need = buffer_drain_cycles(b);
    uint64_t busy = need < k ? need : k;
    b->busy += busy;
    b->idle += k - busy;
    if (need <= k)
        b->occ = 0;
    else
        b->occ -= k * (uint64_t)b->W;
}
