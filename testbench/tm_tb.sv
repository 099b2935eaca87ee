// tm testbench — the co-simulation's Verilator top (testbench/sim.mk): rtl/tm_top.sv
// unchanged, its retire inputs (rv_*_i, mem_*_i) held in a register of
// the testbench that loads at the rising clock edge (or at a rising load_i,
// for the first cycle after reset).  Nothing else differs: every other
// port of tm_top is this module's port of the same name.
//
// Why: Verilator evaluates all the combinational logic that depends on a top
// input at every eval() (its "ico" region, unconditionally), and again
// after a clock edge for the new state.  Driven directly, tm_top's
// combinational logic ran three times a cycle: for the new inputs, again
// at the clock edge (inputs unchanged), and after the edge (new state,
// old inputs: a state no cycle is checked in).  Through this register the
// testbench gives the next cycle's inputs before the edge that starts it
// (testbench/glue.cpp, testbench/cosim/drive.c), the flip-flops of tm_top
// still take the current cycle's values at that edge (nonblocking
// assignments of one edge), and the logic is evaluated once per cycle, for
// the state and inputs of that cycle, before its outputs are compared.
//
// The parameters are tm_top's (-G of params.vc, written by tm cosim from
// include/tm/rtl_params.h, apply to the top); the derived ones below are
// tm_top's own expressions, used here only for the widths of the ports,
// and checked against tm_top's at elaboration (the generate block at the
// end) so that a change in tm_top cannot leave a port of the wrong width.
`include "tm_assert.svh"

module tm_tb
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
  parameter int unsigned TAGE_BASE = 0,
  parameter int unsigned TAGE_TABLES = 1, TAGE_ENTRIES = 2, TAGE_TAG = 4, TAGE_LMIN = 1, TAGE_LMAX = 1,
  parameter int unsigned ITTAGE_BASE = 0,
  parameter int unsigned ITTAGE_TABLES = 1, ITTAGE_ENTRIES = 2, ITTAGE_TAG = 4, ITTAGE_LMIN = 1,
  parameter int unsigned ITTAGE_LMAX = 1,
  parameter int unsigned CA = 3, CB = 2, TA = 3, TB = 4, HA = 4, HB = 2,
  parameter int unsigned DATA      = 0,
  parameter int unsigned DC_SIZE   = 32768,
  parameter int unsigned DC_ASSOC  = 4,
  parameter int unsigned DC_LINE   = 32,
  parameter int unsigned DC_GRAN   = 4,
  parameter int unsigned FA = 3, FB = 2,
  parameter int unsigned BUF_BITS  = 512,
  parameter int unsigned PORT_BITS = 4,
  // tm_top's derived parameters (the same expressions): port widths only
  localparam int unsigned TIW      = ti_bits(N),
  localparam int unsigned CMAXW    = ctrl_max_bits(ENC, TIW, TS, CA, CB, TA, TB, HA, HB) + ((DATA != 0) ? 1 : 0),
  localparam int unsigned DMAXW    = (DATA != 0) ? data_max_bits(TIW, FA, FB) : 1,
  localparam int unsigned MAXW     = CMAXW + ((DATA != 0) ? DMAXW : 0),
  localparam int unsigned LENW     = $clog2(MAXW + 1),
  localparam int unsigned PVW      = $clog2(PORT_BITS + 1),
  localparam int unsigned OCCW     = $clog2(BUF_BITS + 1),
  localparam int unsigned DLMAX    = (DC_LINE + 62) / DC_LINE + 1,
  localparam int unsigned DLNW     = $clog2(DLMAX + 1),
  localparam int unsigned DNI      = (N > 1) ? N - 1 : 1
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  // testbench only: a rising edge loads the input register without a clock
  // edge of tm_top (the first cycle's inputs, after reset)
  input  logic                    load_i,
  // the next cycle's retire groups (tm_top's rv_*_i, mem_*_i one cycle ahead)
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
  input  logic [N-1:0]            mem_valid_i,
  input  logic [N-1:0]            mem_store_i,
  input  logic [N-1:0][63:0]      mem_addr_i,
  input  logic [N-1:0][6:0]       mem_size_i,
  input  logic [N-1:0][511:0]     mem_value_i,
  // the rest: tm_top's, passed through
  output logic [PORT_BITS-1:0]    port_data_o,
  output logic [PVW-1:0]          port_valid_o,
  input  logic [63:0]             idle_skip_i,
  output logic [N-1:0]            obs_offer_o,
  output logic [N-1:0]            obs_resync_o,
  output logic [N-1:0]            obs_accept_o,
  output logic [N-1:0]            obs_drop_o,
  output msg_t                    obs_msg_o [N],
  output logic [N-1:0][LENW-1:0]  obs_len_o,
  output logic [OCCW-1:0]         obs_occ_o,
  output logic [63:0]             obs_cycle_o,
  output logic [N-1:0]            obs_ctrl_o,
  output logic [N-1:0]            obs_data_o,
  output logic [N-1:0][LENW-1:0]  obs_data_len_o,
  output logic [N-1:0][63:0]      obs_data_fah_o,
  output logic [N-1:0][6:0]       obs_data_size_o,
  output logic [N-1:0][DMAXW-1:0] obs_data_bits_o,
  output logic [N-1:0][15:0]      obs_acnt_o,
  output logic [N-1:0][15:0]      obs_acc_o,
  output logic [N-1:0][8:0]       obs_tf_o,
  output logic [N-1:0]            obs_dc_valid_o,
  output logic [N-1:0][DLNW-1:0]  obs_dc_lines_o,
  output logic [N-1:0][DLMAX-1:0] obs_dc_hit_o,
  output logic [N-1:0][DLMAX-1:0] obs_dc_fall_o,
  output logic [N-1:0][DLMAX-1:0] obs_dc_fany_o,
  output logic [N-1:0][DNI*DLNW-1:0] obs_dc_inv_o,
  output logic [N-1:0]            obs_dc_clear_o
);

  // tm_top's retire inputs in this cycle.  No reset: the testbench loads
  // them (load_i) before the first cycle.
  logic [N-1:0]        rv_valid_q, rv_npc_valid_q, rv_taken_q, rv_flag_q, mem_valid_q, mem_store_q;
  logic [N-1:0][15:0]  rv_count_q;
  logic [N-1:0][63:0]  rv_npc_q, rv_pc_q, rv_target_q, mem_addr_q;
  logic [N-1:0][2:0]   rv_event_q, rv_class_q;
  logic [N-1:0][7:0]   rv_len_q;
  logic [N-1:0][6:0]   mem_size_q;
  logic [N-1:0][511:0] mem_value_q;
  always_ff @(posedge clk_i or posedge load_i) begin
    rv_valid_q     <= rv_valid_i;
    rv_count_q     <= rv_count_i;
    rv_npc_valid_q <= rv_npc_valid_i;
    rv_npc_q       <= rv_npc_i;
    rv_event_q     <= rv_event_i;
    rv_class_q     <= rv_class_i;
    rv_taken_q     <= rv_taken_i;
    rv_flag_q      <= rv_flag_i;
    rv_pc_q        <= rv_pc_i;
    rv_len_q       <= rv_len_i;
    rv_target_q    <= rv_target_i;
  end
  // The memory operands only with data tracing (tm_top reads none without:
  // they are 0 then, not 4096 bits copied every cycle for nothing).  An
  // operand's value is loaded only with its mem_valid_i: the testbench
  // changes it only then (testbench/glue.cpp), so the register holds the
  // same value as a load in every cycle would, without the copy.
  if (DATA != 0) begin : g_mem
    always_ff @(posedge clk_i or posedge load_i) begin
      mem_valid_q <= mem_valid_i;
      mem_store_q <= mem_store_i;
      mem_addr_q  <= mem_addr_i;
      mem_size_q  <= mem_size_i;
      for (int unsigned k = 0; k < N; k++)
        if (mem_valid_i[k]) mem_value_q[k] <= mem_value_i[k];
    end
  end else begin : g_no_mem
    assign mem_valid_q = '0;
    assign mem_store_q = '0;
    assign mem_addr_q  = '0;
    assign mem_size_q  = '0;
    assign mem_value_q = '0;
    logic unused_mem;
    assign unused_mem = ^{mem_valid_i, mem_store_i, mem_addr_i, mem_size_i, mem_value_i};
  end

  tm_top #(
    .N (N), .ENC (ENC), .TS (TS), .TS_BITS (TS_BITS), .SHARED (SHARED),
    .GSHARE (GSHARE), .RAS (RAS), .IBTB (IBTB),
    .TAGE_BASE (TAGE_BASE), .TAGE_TABLES (TAGE_TABLES), .TAGE_ENTRIES (TAGE_ENTRIES), .TAGE_TAG (TAGE_TAG),
    .TAGE_LMIN (TAGE_LMIN), .TAGE_LMAX (TAGE_LMAX),
    .ITTAGE_BASE (ITTAGE_BASE), .ITTAGE_TABLES (ITTAGE_TABLES), .ITTAGE_ENTRIES (ITTAGE_ENTRIES),
    .ITTAGE_TAG (ITTAGE_TAG), .ITTAGE_LMIN (ITTAGE_LMIN), .ITTAGE_LMAX (ITTAGE_LMAX),
    .CA (CA), .CB (CB), .TA (TA), .TB (TB), .HA (HA), .HB (HB),
    .DATA (DATA), .DC_SIZE (DC_SIZE), .DC_ASSOC (DC_ASSOC), .DC_LINE (DC_LINE), .DC_GRAN (DC_GRAN),
    .FA (FA), .FB (FB), .BUF_BITS (BUF_BITS), .PORT_BITS (PORT_BITS)
  ) u_dut (
    .clk_i, .rst_ni,
    .rv_valid_i     (rv_valid_q),
    .rv_count_i     (rv_count_q),
    .rv_npc_valid_i (rv_npc_valid_q),
    .rv_npc_i       (rv_npc_q),
    .rv_event_i     (rv_event_q),
    .rv_class_i     (rv_class_q),
    .rv_taken_i     (rv_taken_q),
    .rv_flag_i      (rv_flag_q),
    .rv_pc_i        (rv_pc_q),
    .rv_len_i       (rv_len_q),
    .rv_target_i    (rv_target_q),
    .mem_valid_i    (mem_valid_q),
    .mem_store_i    (mem_store_q),
    .mem_addr_i     (mem_addr_q),
    .mem_size_i     (mem_size_q),
    .mem_value_i    (mem_value_q),
    .port_data_o, .port_valid_o, .idle_skip_i,
    .obs_offer_o, .obs_resync_o, .obs_accept_o, .obs_drop_o, .obs_msg_o, .obs_len_o, .obs_occ_o, .obs_cycle_o,
    .obs_ctrl_o, .obs_data_o, .obs_data_len_o, .obs_data_fah_o, .obs_data_size_o, .obs_data_bits_o,
    .obs_acnt_o, .obs_acc_o, .obs_tf_o,
    .obs_dc_valid_o, .obs_dc_lines_o, .obs_dc_hit_o, .obs_dc_fall_o, .obs_dc_fany_o, .obs_dc_inv_o,
    .obs_dc_clear_o
  );

  // The widths above are tm_top's (checked at the start of the simulation:
  // the connections of different widths would only be warnings).
  initial begin
    if ($bits(u_dut.obs_msg_o) != $bits(obs_msg_o) || $bits(u_dut.obs_len_o) != $bits(obs_len_o) ||
        $bits(u_dut.obs_occ_o) != $bits(obs_occ_o) || $bits(u_dut.port_valid_o) != $bits(port_valid_o) ||
        $bits(u_dut.obs_data_len_o) != $bits(obs_data_len_o) ||
        $bits(u_dut.obs_data_bits_o) != $bits(obs_data_bits_o) ||
        $bits(u_dut.obs_dc_lines_o) != $bits(obs_dc_lines_o) || $bits(u_dut.obs_dc_hit_o) != $bits(obs_dc_hit_o) ||
        $bits(u_dut.obs_dc_inv_o) != $bits(obs_dc_inv_o))
      $fatal(1, "testbench/tm_tb.sv: a port's width differs from tm_top's: update the derived parameters");
  end

endmodule
