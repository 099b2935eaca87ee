// tm — return address stack of one predictor set (docs/spec.md §3.3).
//
// ENTRIES (0 .. 32, any value) 64-bit entries used circularly, with a `top`
// index and a `count` (0 .. ENTRIES), both reset to 0 (the entries need no
// reset).
//   push(a): top = (top + 1) mod ENTRIES; ent[top] = a;
//            count = min(count + 1, ENTRIES)   (a full stack loses its oldest)
//   pop:     count == 0: no prediction (hit_o = 0), nothing changes;
//            else pred_o = ent[top], top = (top - 1) mod ENTRIES, count -= 1.
// Ports are sequential within a cycle: port p sees the stack as left by the
// ports < p of the same cycle (exactly as if the C model were called in port
// order).  hit_o / pred_o are combinational from the inputs and the
// registered state; the stack updates at the clock edge.  hit_o[p] and
// pred_o[p] are 0 unless port p pops a non-empty stack.  A port must not push
// and pop in the same cycle (if it does, the push wins and the pop is
// ignored).  clear_i makes the next state the reset state (it overrides the
// operations of its own cycle; the predictions of that cycle still come from
// the current state).
//
// ENTRIES = 0: every pop misses, there is no state.
//
// Per-port vectors are flat (port p's address is push_addr_i[64*p +: 64]),
// the same bit layout as a packed [P-1:0][63:0] array: Yosys 0.23 cannot
// parse multi-dimensional packed arrays.
`include "tm_assert.svh"

module tm_ras #(
  parameter int unsigned ENTRIES = 32,  // 0 .. 32
  parameter int unsigned P       = 1    // sequential ports per cycle
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clear_i,
  input  logic [P-1:0]      push_i,
  input  logic [64*P-1:0]   push_addr_i,
  input  logic [P-1:0]      pop_i,
  output logic [P-1:0]      hit_o,
  output logic [64*P-1:0]   pred_o
);

  if (ENTRIES == 0) begin : g_none

    assign hit_o  = '0;
    assign pred_o = '0;

    logic unused_inputs;
    assign unused_inputs = ^{clk_i, rst_ni, clear_i, push_i, push_addr_i, pop_i};

  end else begin : g_stack

    localparam int unsigned TW = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;  // top
    localparam int unsigned CW = $clog2(ENTRIES + 1);                   // count
    localparam logic [TW-1:0] LAST = TW'(ENTRIES - 1);
    localparam logic [CW-1:0] FULL = CW'(ENTRIES);

    // The entries have no reset: a pop reads only entries pushed since the
    // last reset or clear (count says how many there are).
    logic [63:0]           ent_q [ENTRIES];
    logic [TW-1:0]         top_q;
    logic [CW-1:0]         cnt_q;

    logic [TW*(P+1)-1:0]   top_c;  // top port p sees: top_c[TW*p +: TW]; the last: after all ports
    logic [CW*(P+1)-1:0]   cnt_c;  // count port p sees
    logic [TW*P-1:0]       widx;   // the entry a push of port p writes

    always_comb begin
      // Whole-vector defaults first: every element is written before it is read.
      top_c          = '0;
      cnt_c          = '0;
      top_c[0 +: TW] = top_q;
      cnt_c[0 +: CW] = cnt_q;
      widx           = '0;
      hit_o          = '0;
      pred_o         = '0;
      for (int unsigned p = 0; p < P; p++) begin
        widx[TW*p +: TW]      = (top_c[TW*p +: TW] == LAST) ? '0 : top_c[TW*p +: TW] + 1'b1;
        top_c[TW*(p+1) +: TW] = top_c[TW*p +: TW];
        cnt_c[CW*(p+1) +: CW] = cnt_c[CW*p +: CW];
        if (push_i[p]) begin
          top_c[TW*(p+1) +: TW] = widx[TW*p +: TW];
          if (cnt_c[CW*p +: CW] != FULL) cnt_c[CW*(p+1) +: CW] = cnt_c[CW*p +: CW] + 1'b1;
        end else if (pop_i[p] && cnt_c[CW*p +: CW] != '0) begin
          hit_o[p] = 1'b1;
          // The registered entry, then the latest push of an earlier port of
          // this cycle to the same entry.
          pred_o[64*p +: 64] = ent_q[top_c[TW*p +: TW]];
          for (int unsigned q = 0; q < p; q++) begin
            if (push_i[q] && widx[TW*q +: TW] == top_c[TW*p +: TW]) begin
              pred_o[64*p +: 64] = push_addr_i[64*q +: 64];
            end
          end
          top_c[TW*(p+1) +: TW] = (top_c[TW*p +: TW] == '0) ? LAST : top_c[TW*p +: TW] - 1'b1;
          cnt_c[CW*(p+1) +: CW] = cnt_c[CW*p +: CW] - 1'b1;
        end
      end
    end

    // Pushes in port order: a later port's push to the same entry wins.  A
    // clear_i cycle writes nothing.
    always_ff @(posedge clk_i) begin
      for (int unsigned p = 0; p < P; p++) begin
        if (push_i[p] && !clear_i) ent_q[widx[TW*p +: TW]] <= push_addr_i[64*p +: 64];
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        top_q <= '0;
        cnt_q <= '0;
      end else if (clear_i) begin
        top_q <= '0;
        cnt_q <= '0;
      end else begin
        top_q <= top_c[TW*P +: TW];
        cnt_q <= cnt_c[CW*P +: CW];
      end
    end

    // The count stays within the stack, the top on an entry; a hit only on a pop.
    `TM_ASSERT(RasCountInRange, 32'(cnt_q) <= ENTRIES)
    `TM_ASSERT(RasTopInRange, 32'(top_q) < ENTRIES)
    `TM_ASSERT(RasHitOnlyPop, (hit_o & ~pop_i) == '0)

  end

endmodule
