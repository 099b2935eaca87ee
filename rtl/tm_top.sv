// tm — the trace module: N cores, their predictors (private per core or one
// shared set accessed in core order), the shared trace buffer and the port
// (docs/spec.md §3).  Parameters mirror tm_model_cfg; the presets are
// GSHARE/RAS/IBTB = 512/8/0 (small), 1024/16/16 (medium), 4096/32/64 (large).
// TAGE_BASE != 0: a TAGE outcome predictor (tm_tage, spec §3.3.1) of
// TAGE_BASE base counters, TAGE_TABLES tables of TAGE_ENTRIES entries with
// TAGE_TAG-bit tags on histories TAGE_LMIN .. TAGE_LMAX in place of gshare
// (GSHARE is then 0); it also takes the ijump/icall history events.
// ITTAGE_BASE != 0: an ITTAGE target predictor (tm_ittage, spec §3.3.2)
// with the ITTAGE_* sizes in place of the iBTB (IBTB is then 0); it also
// takes the conditional outcomes as history.
//
// Data tracing (spec §3.8, docs/rtl-data.md): DATA = 0 none, 1 cfiat, 2 all.
// Each core's memory operand (mem_*_i) goes through that core's private
// CFiat cache (tm_dcache, DATA == 1 only; geometry DC_SIZE, DC_ASSOC,
// DC_LINE, DC_GRAN); a store of core j reaches every other core k's cache on
// an invalidation port, before k's own access if j < k, after it if j > k
// (the cores act in index order); a core's flags are cleared at the end of
// a cycle in which its SYNC(OVERFLOW) is accepted.  Each core offers one
// bundle (DATA message, then control message) to the buffer; MAXW is then
// the longest bundle and RESERVE the longest control message.  The shared
// cache organization (cfiat_shared) is not built.
`include "tm_assert.svh"

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
  parameter int unsigned TAGE_BASE = 0,       // 0: gshare
  parameter int unsigned TAGE_TABLES = 1, TAGE_ENTRIES = 2, TAGE_TAG = 4, TAGE_LMIN = 1, TAGE_LMAX = 1,
  parameter int unsigned ITTAGE_BASE = 0,     // 0: iBTB
  parameter int unsigned ITTAGE_TABLES = 1, ITTAGE_ENTRIES = 2, ITTAGE_TAG = 4, ITTAGE_LMIN = 1,
  parameter int unsigned ITTAGE_LMAX = 1,
  parameter int unsigned CA = 3, CB = 2, TA = 3, TB = 4, HA = 4, HB = 2,
  parameter int unsigned DATA      = 0,       // data tracing: 0 none, 1 cfiat, 2 all
  parameter int unsigned DC_SIZE   = 32768,   // cache bytes (DATA == 1)
  parameter int unsigned DC_ASSOC  = 4,       // ways
  parameter int unsigned DC_LINE   = 32,      // line bytes
  parameter int unsigned DC_GRAN   = 4,       // bytes per first-access flag
  parameter int unsigned FA = 3, FB = 2,      // fahCnt chunks (DATA != 0)
  parameter int unsigned TIW       = ti_bits(N),
  parameter int unsigned CMAXW     = ctrl_max_bits(ENC, TIW, TS, CA, CB, TA, TB, HA, HB) + ((DATA != 0) ? 1 : 0),
  // Room kept for resynchronizations: the longest SYNC(OVERFLOW) or
  // END(lost) (tr_a: over the adaptive states, spec §4.9), with Q.
  parameter int unsigned RESERVE   = reserve_bits(ENC, TIW, TS, CA, CB, HA, HB) + ((DATA != 0) ? 1 : 0),
  parameter int unsigned DMAXW     = (DATA != 0) ? data_max_bits(TIW, FA, FB) : 1,
  parameter int unsigned MAXW      = CMAXW + ((DATA != 0) ? DMAXW : 0),
  parameter int unsigned BUF_BITS  = 512,
  parameter int unsigned PORT_BITS = 4,
  parameter int unsigned LENW      = $clog2(MAXW + 1),
  parameter int unsigned PVW       = $clog2(PORT_BITS + 1),
  parameter int unsigned OCCW      = $clog2(BUF_BITS + 1),
  // Cache observation widths (tm_dcache): lines of one operand, a count of
  // them, invalidation ports.
  parameter int unsigned DLMAX     = (DC_LINE + 62) / DC_LINE + 1,
  parameter int unsigned DLNW      = $clog2(DLMAX + 1),
  parameter int unsigned DNI       = (N > 1) ? N - 1 : 1
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
  // the group's memory operand (DATA != 0): byte k of the value (address
  // addr + k) in bits 8k+7..8k; size 1..64 bytes
  input  logic [N-1:0]            mem_valid_i,
  input  logic [N-1:0]            mem_store_i,
  input  logic [N-1:0][63:0]      mem_addr_i,
  input  logic [N-1:0][6:0]       mem_size_i,
  input  logic [N-1:0][511:0]     mem_value_i,
  // trace port
  output logic [PORT_BITS-1:0]    port_data_o,
  output logic [PVW-1:0]          port_valid_o
`ifdef TM_OBS
  // The testbench's ports (co-simulation and coverage), only when TM_OBS is
  // defined (like Ibex's RVFI): testbench/sim.mk defines it, a synthesis
  // build does not, and has none of them (they are internal signals then).
  ,
  // Testbench only (tie to 0): at this clock edge the cycle counter moves
  // on by 1 + idle_skip_i, as if the module had stayed idle for idle_skip_i
  // more cycles.  Only while it is idle: no group retires, no core offers,
  // the buffer is empty (then such cycles change nothing but the counter).
  input  logic [63:0]             idle_skip_i,
  // observation
  output logic [N-1:0]            obs_offer_o,
  output logic [N-1:0]            obs_resync_o,
  output logic [N-1:0]            obs_accept_o,
  output logic [N-1:0]            obs_drop_o,
  // one message a core, unpacked: each core's is a variable of its own in
  // a simulator (no packing of all N into one wide vector every cycle)
  output msg_t                    obs_msg_o [N],
  output logic [N-1:0][LENW-1:0]  obs_len_o,       // the control message's length
  output logic [OCCW-1:0]         obs_occ_o,
  output logic [63:0]             obs_cycle_o,
  // the parts of each core's offer (bundle) and its DATA message
  output logic [N-1:0]            obs_ctrl_o,      // the offer holds a control message (obs_msg_o)
  output logic [N-1:0]            obs_data_o,      // the offer holds a DATA message
  output logic [N-1:0][LENW-1:0]  obs_data_len_o,
  output logic [N-1:0][63:0]      obs_data_fah_o,
  output logic [N-1:0][6:0]       obs_data_size_o,
  output logic [N-1:0][DMAXW-1:0] obs_data_bits_o,
  // tr_a (spec §4.9): each core's accumulators A_cnt, A_cc and TF at the
  // start of the cycle (32, 32, 0 with the other encodings)
  output logic [N-1:0][15:0]      obs_acnt_o,
  output logic [N-1:0][15:0]      obs_acc_o,
  output logic [N-1:0][8:0]       obs_tf_o,
  // each core's cache (DATA == 1; else 0): the own access and its results
  // per line, the lines each invalidation port found held, the flag clear
  output logic [N-1:0]            obs_dc_valid_o,
  output logic [N-1:0][DLNW-1:0]  obs_dc_lines_o,
  output logic [N-1:0][DLMAX-1:0] obs_dc_hit_o,
  output logic [N-1:0][DLMAX-1:0] obs_dc_fall_o,
  output logic [N-1:0][DLMAX-1:0] obs_dc_fany_o,
  output logic [N-1:0][DNI*DLNW-1:0] obs_dc_inv_o,
  output logic [N-1:0]            obs_dc_clear_o
`endif
);

`ifndef TM_OBS
  // Without TM_OBS the observation outputs are internal signals (the
  // assignments below are the same), read by nothing; no idle skip.
  logic [63:0]             idle_skip_i;
  logic [N-1:0]            obs_offer_o, obs_resync_o, obs_accept_o, obs_drop_o, obs_ctrl_o, obs_data_o;
  msg_t [N-1:0]            obs_msg_o;        // packed here (unpacked as a port)
  logic [N-1:0][LENW-1:0]  obs_len_o, obs_data_len_o;
  logic [OCCW-1:0]         obs_occ_o;
  logic [63:0]             obs_cycle_o;
  logic [N-1:0][63:0]      obs_data_fah_o;
  logic [N-1:0][6:0]       obs_data_size_o;
  logic [N-1:0][DMAXW-1:0] obs_data_bits_o;
  logic [N-1:0][15:0]      obs_acnt_o, obs_acc_o;
  logic [N-1:0][8:0]       obs_tf_o;
  logic [N-1:0]            obs_dc_valid_o, obs_dc_clear_o;
  logic [N-1:0][DLNW-1:0]  obs_dc_lines_o;
  logic [N-1:0][DLMAX-1:0] obs_dc_hit_o, obs_dc_fall_o, obs_dc_fany_o;
  logic [N-1:0][DNI*DLNW-1:0] obs_dc_inv_o;
  assign idle_skip_i = '0;
  logic unused_obs;
  assign unused_obs = ^{obs_offer_o, obs_resync_o, obs_accept_o, obs_drop_o, obs_ctrl_o, obs_data_o,
                        obs_msg_o, obs_len_o, obs_data_len_o, obs_occ_o, obs_cycle_o, obs_data_fah_o,
                        obs_data_size_o, obs_data_bits_o, obs_acnt_o, obs_acc_o, obs_tf_o, obs_dc_valid_o,
                        obs_dc_clear_o, obs_dc_lines_o, obs_dc_hit_o, obs_dc_fall_o, obs_dc_fany_o,
                        obs_dc_inv_o};
`endif

  logic [63:0] cycle_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) cycle_q <= '0;
    else         cycle_q <= cycle_q + 64'd1 + idle_skip_i;
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
  logic [N-1:0][LENW-1:0]  len, clen, dlen;
  logic                    shared_drop;
  logic [N-1:0]            ctrl, data;
  logic [N-1:0][63:0]      fah;
  logic [N-1:0][DMAXW-1:0] dbits;
  // core <-> cache
  logic [N-1:0]            dc_valid, dc_report, dc_clear;

  for (genvar k = 0; k < N; k++) begin : g_core
    tm_core #(
      .N (N), .CORE (k), .ENC (ENC), .TS (TS), .TS_BITS (TS_BITS),
      .CA (CA), .CB (CB), .TA (TA), .TB (TB), .HA (HA), .HB (HB), .DATA (DATA), .FA (FA), .FB (FB),
      .TIW (TIW), .CMAXW (CMAXW), .DMAXW (DMAXW), .MAXW (MAXW), .LENW (LENW)
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
      .mem_valid_i    (mem_valid_i[k]),
      .mem_store_i    (mem_store_i[k]),
      .mem_size_i     (mem_size_i[k]),
      .mem_value_i    (mem_value_i[k]),
      .dc_valid_o     (dc_valid[k]),
      .dc_report_i    (dc_report[k]),
      .dc_clear_o     (dc_clear[k]),
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
      .offer_msg_o    (obs_msg_o[k]),
      .offer_bits_o   (bits[k]),
      .offer_len_o    (len[k]),
      .lost_q_o       (lost_q[k]),
      .offer_ctrl_o   (ctrl[k]),
      .offer_clen_o   (clen[k]),
      .offer_data_o   (data[k]),
      .offer_dlen_o   (dlen[k]),
      .offer_fah_o    (fah[k]),
      .offer_dbits_o  (dbits[k]),
      .adapt_cnt_o    (obs_acnt_o[k]),
      .adapt_cc_o     (obs_acc_o[k]),
      .adapt_tf_o     (obs_tf_o[k]),
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
  localparam int unsigned TG = (ENC == ENC_NX_B) ? 0 : TAGE_BASE;
  localparam int unsigned IT = (ENC == ENC_NX_B) ? 0 : ITTAGE_BASE;

  if (SHARED) begin : g_shared
    // One set, ports in core order; any drop resets it (spec §3.5).
    if (TG != 0) begin : g_tage
      tm_tage #(.BASE (TG), .TABLES (TAGE_TABLES), .ENTRIES (TAGE_ENTRIES), .TAG (TAGE_TAG),
                .LMIN (TAGE_LMIN), .LMAX (TAGE_LMAX), .P (N)) u_tage (
        .clk_i, .rst_ni, .clear_i (shared_drop), .valid_i (pr_cond | pr_ind), .ind_i (pr_ind),
        .pc_i (pr_pc), .taken_i (pr_taken), .target_i (pr_target), .pred_o (cond_pred));
    end else begin : g_gshare
      tm_gshare #(.ENTRIES (G), .P (N)) u_gshare (
        .clk_i, .rst_ni, .clear_i (shared_drop), .valid_i (pr_cond), .pc_i (pr_pc),
        .taken_i (pr_taken), .pred_o (cond_pred));
    end
    tm_ras #(.ENTRIES (R), .P (N)) u_ras (
      .clk_i, .rst_ni, .clear_i (shared_drop), .push_i (pr_push), .push_addr_i (pr_push_addr),
      .pop_i (pr_pop), .hit_o (ras_hit), .pred_o (ras_pred));
    if (IT != 0) begin : g_ittage
      tm_ittage #(.BASE (IT), .TABLES (ITTAGE_TABLES), .ENTRIES (ITTAGE_ENTRIES), .TAG (ITTAGE_TAG),
                  .LMIN (ITTAGE_LMIN), .LMAX (ITTAGE_LMAX), .P (N)) u_ittage (
        .clk_i, .rst_ni, .clear_i (shared_drop), .valid_i (pr_cond | pr_ind), .cond_i (pr_cond),
        .pc_i (pr_pc), .taken_i (pr_taken), .target_i (pr_target), .hit_o (ind_hit), .pred_o (ind_pred));
    end else begin : g_ibtb
      tm_ibtb #(.ENTRIES (I), .P (N)) u_ibtb (
        .clk_i, .rst_ni, .clear_i (shared_drop), .valid_i (pr_ind), .pc_i (pr_pc),
        .target_i (pr_target), .hit_o (ind_hit), .pred_o (ind_pred));
    end
    logic unused_clear;
    assign unused_clear = ^pr_clear;
  end else begin : g_private
    for (genvar k = 0; k < N; k++) begin : g_pred
      if (TG != 0) begin : g_tage
        tm_tage #(.BASE (TG), .TABLES (TAGE_TABLES), .ENTRIES (TAGE_ENTRIES), .TAG (TAGE_TAG),
                  .LMIN (TAGE_LMIN), .LMAX (TAGE_LMAX), .P (1)) u_tage (
          .clk_i, .rst_ni, .clear_i (pr_clear[k]), .valid_i (pr_cond[k] | pr_ind[k]), .ind_i (pr_ind[k]),
          .pc_i (pr_pc[k]), .taken_i (pr_taken[k]), .target_i (pr_target[k]), .pred_o (cond_pred[k]));
      end else begin : g_gshare
        tm_gshare #(.ENTRIES (G), .P (1)) u_gshare (
          .clk_i, .rst_ni, .clear_i (pr_clear[k]), .valid_i (pr_cond[k]), .pc_i (pr_pc[k]),
          .taken_i (pr_taken[k]), .pred_o (cond_pred[k]));
      end
      tm_ras #(.ENTRIES (R), .P (1)) u_ras (
        .clk_i, .rst_ni, .clear_i (pr_clear[k]), .push_i (pr_push[k]),
        .push_addr_i (pr_push_addr[k]), .pop_i (pr_pop[k]), .hit_o (ras_hit[k]),
        .pred_o (ras_pred[k]));
      if (IT != 0) begin : g_ittage
        tm_ittage #(.BASE (IT), .TABLES (ITTAGE_TABLES), .ENTRIES (ITTAGE_ENTRIES), .TAG (ITTAGE_TAG),
                    .LMIN (ITTAGE_LMIN), .LMAX (ITTAGE_LMAX), .P (1)) u_ittage (
          .clk_i, .rst_ni, .clear_i (pr_clear[k]), .valid_i (pr_cond[k] | pr_ind[k]), .cond_i (pr_cond[k]),
          .pc_i (pr_pc[k]), .taken_i (pr_taken[k]), .target_i (pr_target[k]), .hit_o (ind_hit[k]),
          .pred_o (ind_pred[k]));
      end else begin : g_ibtb
        tm_ibtb #(.ENTRIES (I), .P (1)) u_ibtb (
          .clk_i, .rst_ni, .clear_i (pr_clear[k]), .valid_i (pr_ind[k]), .pc_i (pr_pc[k]),
          .target_i (pr_target[k]), .hit_o (ind_hit[k]), .pred_o (ind_pred[k]));
      end
    end
  end

  // Data caches: one private cache per core (DATA == 1).  Core k's
  // invalidation port j carries the store of core o = j (j < k) or j + 1
  // (j >= k), before k's own access iff o < k.
  if (DATA == 1) begin : g_dcache
    for (genvar k = 0; k < N; k++) begin : g_core
      logic [DNI-1:0]      inv_valid, inv_before;
      logic [64*DNI-1:0]   inv_addr;
      logic [7*DNI-1:0]    inv_size;
      logic [DLNW-1:0]     lines;
      logic [DLMAX-1:0]    lhit, lfall, lfany;
      logic [DNI*DLNW-1:0] ilines;
      logic                all_hit, flags_hit;
      logic [DLMAX*((DC_ASSOC > 1) ? $clog2(DC_ASSOC) : 1)-1:0] lway;
      if (N > 1) begin : g_inv
        for (genvar j = 0; j < DNI; j++) begin : g_port
          localparam int unsigned O = (j < k) ? j : j + 1;  // the other core
          assign inv_valid[j]         = dc_valid[O] && mem_store_i[O];
          assign inv_before[j]        = O < k;
          assign inv_addr[64*j +: 64] = mem_addr_i[O];
          assign inv_size[7*j +: 7]   = mem_size_i[O];
        end
      end else begin : g_no_inv
        assign inv_valid  = '0;
        assign inv_before = '0;
        assign inv_addr   = '0;
        assign inv_size   = '0;
      end
      tm_dcache #(
        .SIZE (DC_SIZE), .ASSOC (DC_ASSOC), .LINE (DC_LINE), .GRAN (DC_GRAN), .N (N)
      ) u_dcache (
        .clk_i, .rst_ni,
        .clear_i      (dc_clear[k]),
        .valid_i      (dc_valid[k]),
        .store_i      (mem_store_i[k]),
        .addr_i       (mem_addr_i[k]),
        .size_i       (mem_size_i[k]),
        .inv_valid_i  (inv_valid),
        .inv_before_i (inv_before),
        .inv_addr_i   (inv_addr),
        .inv_size_i   (inv_size),
        .lines_o      (lines),
        .all_hit_o    (all_hit),
        .flags_hit_o  (flags_hit),
        .report_o     (dc_report[k]),
        .line_hit_o   (lhit),
        .line_way_o   (lway),
        .line_fall_o  (lfall),
        .line_fany_o  (lfany),
        .inv_lines_o  (ilines)
      );
      assign obs_dc_valid_o[k] = dc_valid[k];
      assign obs_dc_lines_o[k] = lines;
      assign obs_dc_hit_o[k]   = lhit;
      assign obs_dc_fall_o[k]  = lfall;
      assign obs_dc_fany_o[k]  = lfany;
      assign obs_dc_inv_o[k]   = ilines;
      assign obs_dc_clear_o[k] = dc_clear[k];
      // The summary bits repeat the per-line ones; the ways are internal.
      logic unused_dc;
      assign unused_dc = ^{all_hit, flags_hit, lway};
    end
  end else begin : g_no_dcache
    assign dc_report      = '0;
    assign obs_dc_valid_o = '0;
    assign obs_dc_lines_o = '0;
    assign obs_dc_hit_o   = '0;
    assign obs_dc_fall_o  = '0;
    assign obs_dc_fany_o  = '0;
    assign obs_dc_inv_o   = '0;
    assign obs_dc_clear_o = '0;
    logic unused_dc;
    assign unused_dc = ^{dc_valid, dc_clear, mem_addr_i};
  end

  tm_buffer #(
    .N (N), .SHARED (SHARED), .BUF_BITS (BUF_BITS), .PORT_BITS (PORT_BITS), .MAXW (MAXW),
    .RESERVE (RESERVE), .LENW (LENW), .OCCW (OCCW), .PVW (PVW)
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
  assign obs_len_o    = clen;
  assign obs_ctrl_o      = ctrl;
  assign obs_data_o      = data;
  assign obs_data_len_o  = dlen;
  assign obs_data_fah_o  = fah;
  assign obs_data_size_o = mem_size_i;
  assign obs_data_bits_o = dbits;

  // A core offers nothing in a cycle in which a lower core's drop
  // suppresses it (shared buffer); without sharing no core is suppressed
  // and no drop is shared.  The trace port's outputs are known (a
  // four-state simulator's check).
  `TM_ASSERT(TopSuppressedSilent, (offer & suppressed) == '0)
  `TM_ASSERT(TopPrivateNoSuppress, SHARED || (suppressed == '0 && !shared_drop))
  `TM_ASSERT_KNOWN(TopPortKnown, {port_valid_o, port_data_o})

`ifdef TM_OBS
`ifndef SYNTHESIS
  // idle_skip_i only while nothing happens (see the port's comment)
  always_ff @(posedge clk_i) begin
    if (rst_ni && idle_skip_i != 64'd0) begin
      assert (rv_valid_i == '0 && offer == '0 && obs_occ_o == '0)
        else $error("tm_top: idle_skip_i while the module is not idle");
    end
  end
`endif
`endif

endmodule
