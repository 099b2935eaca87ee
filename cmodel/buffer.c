/* tm — the shared trace buffer and the trace port (docs/spec.md §3.6);
 * mirrors rtl/tm_buffer.sv.  The acceptance rule (buffer_offer) and the
 * port (buffer_port_cycle, buffer_port_bulk) are inline in model_int.h:
 * every offer of every core and every cycle goes through them. */
#include <string.h>
#include "model_int.h"

void buffer_init(tm_buffer *b, uint32_t buffer_bits, uint32_t port_bits, uint32_t reserve)
{
    memset(b, 0, sizeof *b);
    b->B = buffer_bits;
    b->W = port_bits;
    b->reserve = reserve;
    b->wshift = -1;
    for (int k = 0; k < 32; k++)
        if (port_bits == 1u << k)
            b->wshift = k;
    tm_bitbuf_init(&b->trace);
}

void buffer_free(tm_buffer *b)
{
    tm_bitbuf_free(&b->trace);
}

