// tm — shared trace buffer, arbitration and trace port (docs/spec.md §3.6).
//
// The buffer is a FIFO of BUF_BITS bits held as a vector, bit 0 the oldest.
// Per-core vectors are flat (core k's field at [W*k +: W]), the layout of a
// packed [N-1:0][W-1:0] array: Yosys 0.23 cannot read multi-dimensional ports.
// Cycle c: the port carries min(PORT_BITS, occ) of the oldest bits (visible
// during cycle c, from the registers); then the cores' offers are decided in
// core order against the space left after that transfer, and the accepted
// messages are appended; the new contents are registered at the clock edge.
`include "tm_assert.svh"

module tm_buffer #(
  parameter int unsigned N         = 1,
  parameter bit          SHARED    = 1'b0,
  parameter int unsigned BUF_BITS  = 512,
  parameter int unsigned PORT_BITS = 4,
  parameter int unsigned MAXW      = 64,    // longest message
  parameter int unsigned RESERVE   = MAXW,  // room kept for resynchronizations
  parameter int unsigned LENW      = $clog2(MAXW + 1),
  parameter int unsigned OCCW      = $clog2(BUF_BITS + 1),
  parameter int unsigned PVW       = $clog2(PORT_BITS + 1)
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  input  logic [N-1:0]               offer_i,
  input  logic [N-1:0]               resync_i,
  input  logic [N*LENW-1:0]          len_i,        // core k: len_i[LENW*k +: LENW]
  input  logic [N*MAXW-1:0]          bits_i,       // core k: bits_i[MAXW*k +: MAXW]
  input  logic [N-1:0]               lost_q_i,     // threads LOST at the start of the cycle
  output logic [N-1:0]               accept_o,
  output logic [N-1:0]               drop_o,       // a non-resync offer that was not accepted
  output logic [N-1:0]               suppressed_o, // shared: a lower core dropped this cycle
  output logic                       shared_drop_o,// shared: some core dropped this cycle
  output logic [PORT_BITS-1:0]       port_data_o,  // lane 0 = oldest bit
  output logic [PVW-1:0]             port_valid_o, // number of valid lanes
  output logic [OCCW-1:0]            occ_o
);

  logic [BUF_BITS-1:0] fifo_q, fifo_d;
  logic [OCCW-1:0]     occ_q, occ_d;
  logic [OCCW-1:0]     drain;

  assign drain        = (occ_q < OCCW'(PORT_BITS)) ? occ_q : OCCW'(PORT_BITS);
  assign port_valid_o = PVW'(drain);
  assign port_data_o  = fifo_q[PORT_BITS-1:0] & ~({PORT_BITS{1'b1}} << drain);
  assign occ_o        = occ_q;

  // Widths wide enough for every intermediate sum.
  localparam int unsigned SW = OCCW + LENW + 1;
  localparam int unsigned CW = $clog2(N + 1) + 1;

  always_comb begin
    logic [SW-1:0] occ;
    logic [SW-1:0] freeb;
    logic [CW-1:0] lostcnt;
    logic          sdrop;
    logic          ok;
    fifo_d       = fifo_q >> drain;
    occ          = SW'(occ_q) - SW'(drain);
    lostcnt      = '0;
    for (int k = 0; k < N; k++) lostcnt += CW'(lost_q_i[k]);
    sdrop        = 1'b0;
    accept_o     = '0;
    drop_o       = '0;
    suppressed_o = '0;
    for (int k = 0; k < N; k++) begin
      suppressed_o[k] = SHARED && sdrop;
      freeb = SW'(BUF_BITS) - occ;
      ok    = 1'b0;
      if (offer_i[k]) begin
        if (resync_i[k]) begin
          ok = SW'(len_i[LENW*k +: LENW]) <= freeb;
        end else begin
          ok = SW'(len_i[LENW*k +: LENW]) <= freeb &&
               (lostcnt == '0 || freeb - SW'(len_i[LENW*k +: LENW]) >= SW'(RESERVE));
        end
      end
      accept_o[k] = offer_i[k] && ok;
      drop_o[k]   = offer_i[k] && !ok && !resync_i[k];
      if (accept_o[k]) begin
        fifo_d = fifo_d | (BUF_BITS'(bits_i[MAXW*k +: MAXW]) << occ);
        occ    = occ + SW'(len_i[LENW*k +: LENW]);
        if (resync_i[k]) lostcnt = lostcnt - CW'(1);
      end
      if (drop_o[k]) begin
        lostcnt = lostcnt + CW'(1);
        if (SHARED) sdrop = 1'b1;
      end
    end
    shared_drop_o = sdrop;
    occ_d         = OCCW'(occ);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fifo_q <= '0;
      occ_q  <= '0;
    end else begin
      fifo_q <= fifo_d;
      occ_q  <= occ_d;
    end
  end

  // Shared only: a core is suppressed exactly when a lower core dropped.
  `TM_ASSERT(BufferSuppressed, suppressed_o == (SHARED ? N'(drop_o << 1) | N'(suppressed_o << 1) : '0) &&
                               shared_drop_o == (SHARED && drop_o != '0))

`ifndef SYNTHESIS
  // Invariants, checked in simulation (tm cosim builds with --assert; an
  // assertion that fails stops the simulator).  What they need is recomputed
  // here from the ports, independently of the arbitration loop above, in
  // core order: the occupancy before core k's offer is decided (after the
  // port's transfer and the lower cores' accepted messages), and whether
  // some thread is LOST at that point (LOST at the start of the cycle and
  // not resynchronized by its own offer, if that came first, or dropped by
  // a lower core).  A core with neither an offer nor a verdict is skipped:
  // the checks cost the simulation little on the cycles without messages.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      // nothing to check in reset
    end else begin : chk
      logic [SW-1:0] at;
      logic [SW-1:0] len;
      logic [N-1:0]  lost;
      // The buffer never holds more than BUF_BITS bits; no bit is set at or
      // above the occupancy (messages are ORed in at the occupancy); the
      // port sends min(PORT_BITS, occupancy) bits.
      assert (occ_q <= OCCW'(BUF_BITS))
        else $error("tm_buffer: over-full: occupancy %0d of %0d bits", occ_q, BUF_BITS);
      assert ((fifo_q >> occ_q) == '0)
        else $error("tm_buffer: FIFO bits set at or above the occupancy %0d", occ_q);
      assert (port_valid_o == PVW'(drain) && drain <= OCCW'(PORT_BITS) && drain <= occ_q)
        else $error("tm_buffer: port sends %0d bits with occupancy %0d", port_valid_o, occ_q);
      at   = SW'(occ_q) - SW'(drain);
      lost = lost_q_i;
      for (int k = 0; k < N; k++) begin
        if (offer_i[k] || accept_o[k] || drop_o[k]) begin
          len = SW'(len_i[LENW*k +: LENW]);
          // One verdict per offer: accepted, dropped, or (a resync only)
          // left waiting; none without an offer.
          assert (offer_i[k] && $onehot({accept_o[k], drop_o[k], resync_i[k] && !accept_o[k]}))
            else $error("tm_buffer: core %0d: offer %b resync %b got accept %b drop %b", k, offer_i[k],
                        resync_i[k], accept_o[k], drop_o[k]);
          // An offered message has no bit at or above its length.
          assert (len <= SW'(MAXW) && (bits_i[MAXW*k +: MAXW] >> len_i[LENW*k +: LENW]) == '0)
            else $error("tm_buffer: core %0d: offered message bits beyond its length %0d", k, len);
          if (accept_o[k]) begin
            // No accepted message overfills the buffer.
            assert (at + len <= SW'(BUF_BITS))
              else $error("tm_buffer: core %0d: over-full: %0d + %0d of %0d bits", k, at, len, BUF_BITS);
            // The reserve rule (spec 3.6): while some thread is LOST, a
            // non-resync message is accepted only if it leaves RESERVE bits free.
            assert (resync_i[k] || lost == '0 || at + len + SW'(RESERVE) <= SW'(BUF_BITS))
              else $error("tm_buffer: core %0d: reserve rule broken (%0d + %0d of %0d bits)", k, at, len,
                          BUF_BITS);
            at = at + len;
            if (resync_i[k]) lost[k] = 1'b0;
          end
          if (drop_o[k]) lost[k] = 1'b1;
        end
      end
    end
  end
`endif

endmodule
