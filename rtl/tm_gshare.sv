// tm — gshare outcome predictor of one predictor set (docs/spec.md §3.3).
//
// ENTRIES 2-bit counters (reset 1 = weakly not-taken) and a BHR of
// log2(ENTRIES) bits (reset 0).  The counters are kept in rows of up to 32
// with a valid bit per row (a flash clear clears the row valid bits).  For every port p with valid_i[p]:
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
`include "tm_assert.svh"

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
    // The counters are stored in rows of EPR counters (RW bits) with one
    // valid bit per row: a row that is not valid reads as all counters at
    // the reset value 1, so clear_i (and reset) only clear the ROWS valid
    // bits; the first update of a row writes the whole row.
    localparam int unsigned EPR  = (ENTRIES >= 32) ? 32 : ENTRIES;
    localparam int unsigned ROWS = ENTRIES / EPR;
    localparam int unsigned RW   = 2 * EPR;
    localparam int unsigned EW   = (EPR > 1) ? $clog2(EPR) : 1;    // entry in row
    localparam int unsigned RIW  = (ROWS > 1) ? $clog2(ROWS) : 1;  // row index
    localparam logic [RW-1:0] ROW_RESET = {EPR{2'd1}};

    logic [RW-1:0]        row_q [ROWS];  // no reset: rvld_q says which rows hold data
    logic [ROWS-1:0]      rvld_q;
    logic [IW-1:0]        bhr_q;

    logic [IW*(P+1)-1:0]  bhr_c;    // BHR port p sees: bhr_c[IW*p +: IW]; the last: after all ports
    logic [IW*P-1:0]      idx;      // counter index of port p
    logic [RIW*P-1:0]     ridx;     // its row
    logic [EW*P-1:0]      eidx;     // its place in the row
    logic [RW*P-1:0]      row_cur;  // the row as port p sees it
    logic [RW*P-1:0]      row_nxt;  // the row after port p's update
    logic [2*P-1:0]       cur;      // counter value port p sees
    logic [2*P-1:0]       post;     // counter value after port p's update

    always_comb begin
      // Whole-vector defaults first: every element is written before it is read.
      bhr_c          = '0;
      bhr_c[0 +: IW] = bhr_q;
      idx            = '0;
      ridx           = '0;
      eidx           = '0;
      row_cur        = '0;
      row_nxt        = '0;
      cur            = '0;
      post           = '0;
      pred_o         = '0;
      for (int unsigned p = 0; p < P; p++) begin
        idx[IW*p +: IW]   = (bhr_c[IW*p +: IW] ^ pc_i[64*p+4 +: IW]) & MASK;
        ridx[RIW*p +: RIW] = (ROWS > 1) ? RIW'(idx[IW*p +: IW] >> $clog2(EPR)) : '0;
        eidx[EW*p +: EW]   = (EPR > 1) ? EW'(idx[IW*p +: IW]) : '0;
        // The registered row, then the row as left by the latest earlier
        // valid port of this cycle that used the same row.
        row_cur[RW*p +: RW] = rvld_q[ridx[RIW*p +: RIW]] ? row_q[ridx[RIW*p +: RIW]] : ROW_RESET;
        for (int unsigned q = 0; q < p; q++) begin
          if (valid_i[q] && ridx[RIW*q +: RIW] == ridx[RIW*p +: RIW]) row_cur[RW*p +: RW] = row_nxt[RW*q +: RW];
        end
        cur[2*p +: 2] = row_cur[RW*p + 2*eidx[EW*p +: EW] +: 2];
        if (taken_i[p]) begin
          post[2*p +: 2] = (cur[2*p +: 2] == 2'd3) ? 2'd3 : cur[2*p +: 2] + 2'd1;
        end else begin
          post[2*p +: 2] = (cur[2*p +: 2] == 2'd0) ? 2'd0 : cur[2*p +: 2] - 2'd1;
        end
        row_nxt[RW*p +: RW] = row_cur[RW*p +: RW];
        row_nxt[RW*p + 2*eidx[EW*p +: EW] +: 2] = post[2*p +: 2];
        pred_o[p] = valid_i[p] & cur[2*p+1];
        bhr_c[IW*(p+1) +: IW] = valid_i[p]
            ? ((bhr_c[IW*p +: IW] << 1) | IW'(taken_i[p])) & MASK
            : bhr_c[IW*p +: IW];
      end
    end

    // The rows: in port order, a later port's row wins (it already includes
    // the earlier updates).  A clear_i cycle writes nothing.
    always_ff @(posedge clk_i) begin
      for (int unsigned p = 0; p < P; p++) begin
        if (valid_i[p] && !clear_i) row_q[ridx[RIW*p +: RIW]] <= row_nxt[RW*p +: RW];
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rvld_q <= '0;
        bhr_q  <= '0;
      end else if (clear_i) begin
        rvld_q <= '0;
        bhr_q  <= '0;
      end else begin
        for (int unsigned p = 0; p < P; p++) begin
          if (valid_i[p]) rvld_q[ridx[RIW*p +: RIW]] <= 1'b1;
        end
        bhr_q <= bhr_c[IW*P +: IW];
      end
    end

    // Only pc[IW+3:4] indexes the table.
    logic unused_pc;
    assign unused_pc = ^pc_i;

    // A prediction only for a valid port; the BHR has no bit above its index width.
    `TM_ASSERT(GsharePredOnlyValid, (pred_o & ~valid_i) == '0)
    `TM_ASSERT(GshareBhrInRange, (bhr_q & ~MASK) == '0)

  end

endmodule
