// tm — the trace module: N cores, their predictors (private per core or one
// shared set accessed in core order), the shared trace buffer and the port
// (docs/spec.md §3).  Parameters mirror tm_model_cfg; the presets are
// GSHARE/RAS/IBTB = 512/8/0 (small), 1024/16/16 (medium), 4096/32/64 (large).
module tm_top
  import tm_pkg::*;
#(
  parameter int unsigned N         = 4,
  parameter int unsigned ENC       = ENC_TR_E,
  parameter bit          TS        = 1'b0,
  parameter int unsigned TS_BITS   = 64,
  parameter bit          SHARED    = 1'b0,
  parameter int unsigned GSHARE    = 4096,
  parameter int unsigned RAS       = 32,
  parameter int unsigned IBTB      = 64,
  parameter int unsigned CA = 3, CB = 2, TA = 3, TB = 4, HA = 4, HB = 2,
  parameter int unsigned TIW       = ti_bits(N),
  parameter int unsigned MAXW      = msg_max_bits(TIW, TS, CA, CB, HA, HB),
  parameter int unsigned BUF_BITS  = 512,
  parameter int unsigned PORT_BITS = 4,
  parameter int unsigned LENW      = $clog2(MAXW + 1),
  parameter int unsigned PVW       = $clog2(PORT_BITS + 1),
  parameter int unsigned OCCW      = $clog2(BUF_BITS + 1)
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // retire interface, one group per core per cycle
  input  logic [N-1:0]            rv_valid_i,
  input  logic [N-1:0][15:0]      rv_count_i,
  input  logic [N-1:0]            rv_npc_valid_i,
  input  logic [N-1:0][63:0]      rv_npc_i,
  input  logic [N-1:0][2:0]       rv_event_i,
  input  logic [N-1:0][2:0]       rv_class_i,
  input  logic [N-1:0]            rv_taken_i,
  input  logic [N-1:0]            rv_flag_i,
  input  logic [N-1:0][63:0]      rv_pc_i,
  input  logic [N-1:0][7:0]       rv_len_i,
  input  logic [N-1:0][63:0]      rv_target_i,
  // trace port
  output logic [PORT_BITS-1:0]    port_data_o,
  output logic [PVW-1:0]          port_valid_o,
  // observation (co-simulation and coverage)
  output logic [N-1:0]            obs_offer_o,
  output logic [N-1:0]            obs_resync_o,
  output logic [N-1:0]            obs_accept_o,
  output logic [N-1:0]            obs_drop_o,
  output msg_t [N-1:0]            obs_msg_o,
  output logic [N-1:0][LENW-1:0]  obs_len_o,
  output logic [OCCW-1:0]         obs_occ_o,
  output logic [63:0]             obs_cycle_o
);

  logic [63:0] cycle_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cycle_q <= '0;
    else         cycle_q <= cycle_q + 64'd1;
  end
  assign obs_cycle_o = cycle_q;

  // core <-> predictor request and answer vectors
  logic [N-1:0]       pr_cond, pr_ind, pr_push, pr_pop, pr_taken, pr_clear;
  logic [N-1:0][63:0] pr_pc, pr_target, pr_push_addr;
  logic [N-1:0]       cond_pred, ind_hit, ras_hit;
  logic [N-1:0][63:0] ind_pred, ras_pred;
  // core <-> buffer.  Bit k of offer/accept/drop/suppressed depends only on
  // bits below k (arbitration in core order), which Verilator's scheduler sees
  // as a loop through the whole vector: a false loop, not a combinational one.
  /* verilator lint_off UNOPTFLAT */
  logic [N-1:0]            offer, accept, drop, suppressed;
  /* verilator lint_on UNOPTFLAT */
  logic [N-1:0]            resync, lost_q;
  logic [N-1:0][MAXW-1:0]  bits;
  logic [N-1:0][LENW-1:0]  len;
  msg_t [N-1:0]            msgs;
  logic                    shared_drop;

  for (genvar k = 0; k < N; k++) begin : g_core
    tm_core #(
      .N (N), .CORE (k), .ENC (ENC), .TS (TS), .TS_BITS (TS_BITS),
      .CA (CA), .CB (CB), .TA (TA), .TB (TB), .HA (HA), .HB (HB), .TIW (TIW), .MAXW (MAXW),
      .LENW (LENW)
    ) u_core (
      .clk_i, .rst_ni,
      .cycle_i        (cycle_q),
      .rv_valid_i     (rv_valid_i[k]),
      .rv_count_i     (rv_count_i[k]),
      .rv_npc_valid_i (rv_npc_valid_i[k]),
      .rv_npc_i       (rv_npc_i[k]),
      .rv_event_i     (ev_e'(rv_event_i[k])),
      .rv_class_i     (br_class_e'(rv_class_i[k])),
      .rv_taken_i     (rv_taken_i[k]),
      .rv_flag_i      (rv_flag_i[k]),
      .rv_pc_i        (rv_pc_i[k]),
      .rv_len_i       (rv_len_i[k]),
      .rv_target_i    (rv_target_i[k]),
      .pr_cond_o      (pr_cond[k]),
      .pr_ind_o       (pr_ind[k]),
      .pr_push_o      (pr_push[k]),
      .pr_pop_o       (pr_pop[k]),
      .pr_pc_o        (pr_pc[k]),
      .pr_taken_o     (pr_taken[k]),
      .pr_target_o    (pr_target[k]),
      .pr_push_addr_o (pr_push_addr[k]),
      .pr_cond_pred_i (cond_pred[k]),
      .pr_ind_hit_i   (ind_hit[k]),
      .pr_ind_pred_i  (ind_pred[k]),
      .pr_ras_hit_i   (ras_hit[k]),
      .pr_ras_pred_i  (ras_pred[k]),
      .pr_clear_o     (pr_clear[k]),
      .offer_o        (offer[k]),
      .offer_resync_o (resync[k]),
      .offer_msg_o    (msgs[k]),
      .offer_bits_o   (bits[k]),
      .offer_len_o    (len[k]),
      .lost_q_o       (lost_q[k]),
      .accept_i       (accept[k]),
      .drop_i         (drop[k]),
      .suppressed_i   (suppressed[k]),
      .shared_drop_i  (shared_drop)
    );
  end

  // Predictors: nx_b uses none.
  localparam int unsigned G = (ENC == ENC_NX_B) ? 0 : GSHARE;
  localparam int unsigned R = (ENC == ENC_NX_B) ? 0 : RAS;
  localparam int unsigned I = (ENC == ENC_NX_B) ? 0 : IBTB;

  if (SHARED) begin : g_shared
    // One set, ports in core order; any drop resets it (spec §3.5).
    tm_gshare #(.ENTRIES (G), .P (N)) u_gshare (
      .clk_i, .rst_ni, .clear_i (shared_drop), .valid_i (pr_cond), .pc_i (pr_pc),
      .taken_i (pr_taken), .pred_o (cond_pred));
    tm_ras #(.ENTRIES (R), .P (N)) u_ras (
      .clk_i, .rst_ni, .clear_i (shared_drop), .push_i (pr_push), .push_addr_i (pr_push_addr),
      .pop_i (pr_pop), .hit_o (ras_hit), .pred_o (ras_pred));
    tm_ibtb #(.ENTRIES (I), .P (N)) u_ibtb (
      .clk_i, .rst_ni, .clear_i (shared_drop), .valid_i (pr_ind), .pc_i (pr_pc),
      .target_i (pr_target), .hit_o (ind_hit), .pred_o (ind_pred));
    logic unused_clear;
    assign unused_clear = ^pr_clear;
  end else begin : g_private
    for (genvar k = 0; k < N; k++) begin : g_pred
      tm_gshare #(.ENTRIES (G), .P (1)) u_gshare (
        .clk_i, .rst_ni, .clear_i (pr_clear[k]), .valid_i (pr_cond[k]), .pc_i (pr_pc[k]),
        .taken_i (pr_taken[k]), .pred_o (cond_pred[k]));
      tm_ras #(.ENTRIES (R), .P (1)) u_ras (
        .clk_i, .rst_ni, .clear_i (pr_clear[k]), .push_i (pr_push[k]),
        .push_addr_i (pr_push_addr[k]), .pop_i (pr_pop[k]), .hit_o (ras_hit[k]),
        .pred_o (ras_pred[k]));
      tm_ibtb #(.ENTRIES (I), .P (1)) u_ibtb (
        .clk_i, .rst_ni, .clear_i (pr_clear[k]), .valid_i (pr_ind[k]), .pc_i (pr_pc[k]),
        .target_i (pr_target[k]), .hit_o (ind_hit[k]), .pred_o (ind_pred[k]));
    end
  end

  tm_buffer #(
    .N (N), .SHARED (SHARED), .BUF_BITS (BUF_BITS), .PORT_BITS (PORT_BITS), .MAXW (MAXW),
    .RESERVE (MAXW), .LENW (LENW), .OCCW (OCCW), .PVW (PVW)
  ) u_buffer (
    .clk_i, .rst_ni,
    .offer_i       (offer),
    .resync_i      (resync),
    .len_i         (len),
    .bits_i        (bits),
    .lost_q_i      (lost_q),
    .accept_o      (accept),
    .drop_o        (drop),
    .suppressed_o  (suppressed),
    .shared_drop_o (shared_drop),
    .port_data_o,
    .port_valid_o,
    .occ_o         (obs_occ_o)
  );

  assign obs_offer_o  = offer;
  assign obs_resync_o = resync;
  assign obs_accept_o = accept;
  assign obs_drop_o   = drop;
  assign obs_msg_o    = msgs;
  assign obs_len_o    = len;

endmodule
