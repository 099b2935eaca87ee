// tm — gshare outcome predictor of one predictor set (docs/spec.md §3.3).
//
// ENTRIES 2-bit counters (reset 1 = weakly not-taken) and a BHR of
// log2(ENTRIES) bits (reset 0).  For every port p with valid_i[p]:
//   idx = (BHR ^ (pc >> 4)) & (ENTRIES - 1)
//   pred_o[p] = ctr[idx] >= 2
//   ctr[idx] moves one step toward taken_i[p] (saturating at 0 and 3)
//   BHR = ((BHR << 1) | taken_i[p]) & (ENTRIES - 1)
// Ports are sequential within a cycle: port p sees the BHR and the counters
// as left by the valid ports < p of the same cycle (exactly as if the C model
// were called in port order).  Predictions are combinational from the inputs
// and the registered state; updates take effect at the clock edge.  pred_o[p]
// is 0 when valid_i[p] is 0.  clear_i makes the next state the reset state
// (it overrides the updates of its own cycle; the predictions of that cycle
// still come from the current state).
//
// ENTRIES = 0: pred_o is always 0 and there is no state.
// ENTRIES = 1: one counter, the BHR has 0 bits (kept as a constant-0 bit).
//
// Per-port vectors are flat (port p's pc is pc_i[64*p +: 64]), the same bit
// layout as a packed [P-1:0][63:0] array: Yosys 0.23 cannot parse
// multi-dimensional packed arrays.
module tm_gshare #(
  parameter int unsigned ENTRIES = 4096,  // 0 or a power of two, 1 .. 4096
  parameter int unsigned P       = 1      // sequential ports per cycle
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clear_i,
  input  logic [P-1:0]      valid_i,
  input  logic [64*P-1:0]   pc_i,
  input  logic [P-1:0]      taken_i,
  output logic [P-1:0]      pred_o
);

  if (ENTRIES == 0) begin : g_none

    assign pred_o = '0;

    logic unused_inputs;
    assign unused_inputs = ^{clk_i, rst_ni, clear_i, valid_i, pc_i, taken_i};

  end else begin : g_table

    // Index / BHR width; for ENTRIES = 1 a single bit that MASK keeps at 0.
    localparam int unsigned IW = (ENTRIES > 1) ? $clog2(ENTRIES) : 1;
    localparam logic [IW-1:0] MASK = IW'(ENTRIES - 1);
    localparam logic [2*ENTRIES-1:0] CTR_RESET = {ENTRIES{2'd1}};

    logic [2*ENTRIES-1:0] ctr_d, ctr_q;   // counter i is ctr[2*i +: 2]
    logic [IW-1:0]        bhr_d, bhr_q;

    logic [IW*(P+1)-1:0]  bhr_c;  // BHR port p sees: bhr_c[IW*p +: IW]; the last: after all ports
    logic [IW*P-1:0]      idx;    // counter index of port p
    logic [2*P-1:0]       cur;    // counter value port p sees
    logic [2*P-1:0]       post;   // counter value after port p's update

    always_comb begin
      // Whole-vector defaults first: every element is written before it is read.
      bhr_c          = '0;
      bhr_c[0 +: IW] = bhr_q;
      idx            = '0;
      cur            = '0;
      post           = '0;
      pred_o         = '0;
      for (int unsigned p = 0; p < P; p++) begin
        idx[IW*p +: IW] = (bhr_c[IW*p +: IW] ^ pc_i[64*p+4 +: IW]) & MASK;
        // The registered counter, then the latest update of the same entry by
        // an earlier valid port of this cycle (which includes all earlier ones).
        cur[2*p +: 2] = ctr_q[2*idx[IW*p +: IW] +: 2];
        for (int unsigned q = 0; q < p; q++) begin
          if (valid_i[q] && idx[IW*q +: IW] == idx[IW*p +: IW]) cur[2*p +: 2] = post[2*q +: 2];
        end
        if (taken_i[p]) begin
          post[2*p +: 2] = (cur[2*p +: 2] == 2'd3) ? 2'd3 : cur[2*p +: 2] + 2'd1;
        end else begin
          post[2*p +: 2] = (cur[2*p +: 2] == 2'd0) ? 2'd0 : cur[2*p +: 2] - 2'd1;
        end
        pred_o[p] = valid_i[p] & cur[2*p+1];
        bhr_c[IW*(p+1) +: IW] = valid_i[p]
            ? ((bhr_c[IW*p +: IW] << 1) | IW'(taken_i[p])) & MASK
            : bhr_c[IW*p +: IW];
      end
    end

    always_comb begin
      ctr_d = ctr_q;
      for (int unsigned p = 0; p < P; p++) begin
        // In port order: a later port's value for the same entry wins (it
        // already includes the earlier updates).
        if (valid_i[p]) ctr_d[2*idx[IW*p +: IW] +: 2] = post[2*p +: 2];
      end
      bhr_d = bhr_c[IW*P +: IW];
      if (clear_i) begin
        ctr_d = CTR_RESET;
        bhr_d = '0;
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        ctr_q <= CTR_RESET;
        bhr_q <= '0;
      end else begin
        ctr_q <= ctr_d;
        bhr_q <= bhr_d;
      end
    end

    // Only pc[IW+3:4] indexes the table.
    logic unused_pc;
    assign unused_pc = ^pc_i;

  end

endmodule
