// tm — unit testbench top: every tested parameter set of tm_msg_enc side by
// side, each with its own message (config c: field values at c * width).
// bits_o of config c is bits_o[OW*c +: OW], zero-extended from MAXW; the
// parameters (and the MAXW each instance computed) are on the cfg_* outputs.
module tb_msg_enc #(
  parameter int unsigned NC = 16,
  parameter int unsigned OW = 512
) (
  input  logic [2*NC-1:0]   kind_i,
  input  logic [10*NC-1:0]  ti_i,
  input  logic [64*NC-1:0]  cnt_i,
  input  logic [NC-1:0]     t_i,
  input  logic [64*NC-1:0]  diff_ta_i,
  input  logic [64*NC-1:0]  icnt_i,
  input  logic [64*NC-1:0]  gap_i,
  input  logic [64*NC-1:0]  addr_i,
  input  logic [2*NC-1:0]   reason_i,
  input  logic [NC-1:0]     lost_i,
  input  logic [NC-1:0]     dropped_i,
  input  logic [64*NC-1:0]  diff_cc_i,
  input  logic [16*NC-1:0]  acnt_i,         // tr_a: the thread's accumulators
  input  logic [16*NC-1:0]  acc_i,
  input  logic [9*NC-1:0]   tf_i,           // tr_a: the thread's TF
  output logic [OW*NC-1:0]  bits_o,
  output logic [16*NC-1:0]  len_o,
  output logic [32*NC-1:0]  cfg_tiw_o,
  output logic [NC-1:0]     cfg_ts_o,
  output logic [32*NC-1:0]  cfg_maxw_o,
  output logic [8*NC-1:0]   cfg_data_o,     // DATA (the class bit Q)
  output logic [8*NC-1:0]   cfg_enc_o,      // ENC (tm_pkg::ENC_*)
  output logic [8*6*NC-1:0] cfg_chunks_o   // CA, CB, TA, TB, HA, HB (8 bits each)
);

  // Configs: tr_e N=1; tr_e N=8 ts; tr_b N=4 ts; chunks 1,1 and 32,32 with
  // N=1024 ts; an odd mix; tr_e N=4 ts (spec §4.7, starts with its examples);
  // with data tracing (the class bit Q): tr_e N=1, tr_e N=8 ts, chunks 1,1
  // with N=1024 ts, tr_b N=4 ts.  tr_a (ENC 3, spec §4.9; random states,
  // TF too: both forms): N=4 ts (starts with the examples of §4.9), N=1, chunks 1,1 with N=1024 ts (longest
  // SYNC), chunks 32,32 with |diffTA| chunks 1,1 and N=8 ts (the longest
  // message is a target misprediction), N=8 ts with data tracing.
  localparam int unsigned TIW [NC] = '{ 0,  3,  2, 10, 10,  1,  2,  0,  3, 10,  2,  2,  0, 10,  3,  3};
  localparam bit          TSV [NC] = '{ 0,  1,  1,  1,  1,  1,  1,  0,  1,  1,  1,  1,  0,  1,  1,  1};
  localparam int unsigned CAV [NC] = '{ 3,  3,  8,  1, 32,  5,  3,  3,  3,  1,  8,  3,  3,  1, 32,  3};
  localparam int unsigned CBV [NC] = '{ 2,  2,  8,  1, 32,  7,  2,  2,  2,  1,  8,  2,  2,  1, 32,  2};
  localparam int unsigned TAV [NC] = '{ 3,  3, 16,  1, 32, 13,  3,  3,  3,  1, 16,  3,  3,  1,  1,  3};
  localparam int unsigned TBV [NC] = '{ 4,  4, 16,  1, 32,  1,  4,  4,  4,  1, 16,  4,  4,  1,  1,  4};
  localparam int unsigned HAV [NC] = '{ 4,  4,  8,  1, 32, 32,  4,  4,  4,  1,  8,  4,  4,  1, 32,  4};
  localparam int unsigned HBV [NC] = '{ 2,  2,  8,  1, 32,  3,  2,  2,  2,  1,  8,  2,  2,  1, 32,  2};
  localparam int unsigned DTV [NC] = '{ 0,  0,  0,  0,  0,  0,  0,  1,  2,  1,  1,  0,  0,  0,  0,  1};
  localparam int unsigned ENV [NC] = '{ 2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  2,  3,  3,  3,  3,  3};

  for (genvar c = 0; c < NC; c++) begin : g_cfg
    localparam int unsigned MAXW =
        tm_pkg::ctrl_max_bits(ENV[c], TIW[c], TSV[c], CAV[c], CBV[c], TAV[c], TBV[c], HAV[c], HBV[c]) +
        ((DTV[c] != 0) ? 1 : 0);
    localparam int unsigned LW = $clog2(MAXW + 1);

    tm_pkg::msg_t         msg;
    logic [MAXW-1:0]      bits;
    logic [LW-1:0]        len;

    always_comb begin
      msg.kind    = tm_pkg::msg_kind_e'(kind_i[2*c +: 2]);
      msg.ti      = ti_i[10*c +: 10];
      msg.cnt     = cnt_i[64*c +: 64];
      msg.t       = t_i[c];
      msg.diff_ta = diff_ta_i[64*c +: 64];
      msg.icnt    = icnt_i[64*c +: 64];
      msg.gap     = gap_i[64*c +: 64];
      msg.addr    = addr_i[64*c +: 64];
      msg.reason  = reason_i[2*c +: 2];
      msg.lost    = lost_i[c];
      msg.dropped = dropped_i[c];
      msg.diff_cc = diff_cc_i[64*c +: 64];
    end

    tm_msg_enc #(
      .TIW (TIW[c]), .TS (TSV[c]), .CA (CAV[c]), .CB (CBV[c]), .TA (TAV[c]), .TB (TBV[c]),
      .HA (HAV[c]), .HB (HBV[c]), .DATA (DTV[c]), .ENC (ENV[c])
    ) u_dut (
      .valid_i (1'b1),
      .msg_i  (msg),
      .acnt_i (acnt_i[16*c +: 16]),
      .acc_i  (acc_i[16*c +: 16]),
      .tf_i   (tf_i[9*c +: 9]),
      .bits_o (bits),
      .len_o  (len)
    );

    assign bits_o[OW*c +: OW]  = OW'(bits);
    assign len_o[16*c +: 16]   = 16'(len);
    assign cfg_tiw_o[32*c +: 32]  = TIW[c];
    assign cfg_ts_o[c]            = TSV[c];
    assign cfg_maxw_o[32*c +: 32] = MAXW;
    assign cfg_data_o[8*c +: 8]   = 8'(DTV[c]);
    assign cfg_enc_o[8*c +: 8]    = 8'(ENV[c]);
    assign cfg_chunks_o[48*c +: 48] = {8'(HBV[c]), 8'(HAV[c]), 8'(TBV[c]), 8'(TAV[c]),
                                       8'(CBV[c]), 8'(CAV[c])};
  end

endmodule
