// tm — unit testbench top: every tested parameter set of tm_tage side by
// side, each with its own inputs (config c, port p: bit c*PMAX + p; 64-bit
// values at 64*(c*PMAX + p)).  The parameter sets are readable on the cfg_*
// outputs so that the C++/C side needs no copy of this list.
module tb_tage #(
  parameter int unsigned NS   = 8,       // parameter sets, each with P = 1 and P = PMAX
  parameter int unsigned NC   = 2 * NS,  // configs
  parameter int unsigned PMAX = 3
) (
  input  logic                   clk_i,
  input  logic [NC-1:0]          rst_ni,
  input  logic [NC-1:0]          clear_i,
  input  logic [NC*PMAX-1:0]     valid_i,
  input  logic [NC*PMAX-1:0]     ind_i,
  input  logic [64*NC*PMAX-1:0]  pc_i,
  input  logic [NC*PMAX-1:0]     taken_i,
  input  logic [64*NC*PMAX-1:0]  target_i,
  output logic [NC*PMAX-1:0]     pred_o,
  output logic [32*NC-1:0]       cfg_base_o,
  output logic [32*NC-1:0]       cfg_tables_o,
  output logic [32*NC-1:0]       cfg_entries_o,
  output logic [32*NC-1:0]       cfg_tag_o,
  output logic [32*NC-1:0]       cfg_lmin_o,
  output logic [32*NC-1:0]       cfg_lmax_o,
  output logic [32*NC-1:0]       cfg_p_o
);

  //                                    smallest                              tage-m               max T, LMAX  LMAX 65  largest
  localparam int unsigned BASE [NS] = '{2,  16, 128, 256, 512, 64,  1024, 16384};
  localparam int unsigned TABS [NS] = '{1,  2,  2,   3,   6,   8,   4,    2};
  localparam int unsigned ENT  [NS] = '{2,  8,  32,  32,  64,  2,   256,  4096};
  localparam int unsigned TAGB [NS] = '{4,  5,  5,   7,   9,   4,   12,   16};
  localparam int unsigned LMIN [NS] = '{1,  2,  3,   3,   3,   1,   8,    5};
  localparam int unsigned LMAX [NS] = '{1,  6,  12,  24,  60,  128, 65,   64};

  for (genvar c = 0; c < NC; c++) begin : g_cfg
    localparam int unsigned S = c / 2;
    localparam int unsigned P = (c % 2 == 0) ? 1 : PMAX;
    assign cfg_base_o[32*c +: 32]    = BASE[S];
    assign cfg_tables_o[32*c +: 32]  = TABS[S];
    assign cfg_entries_o[32*c +: 32] = ENT[S];
    assign cfg_tag_o[32*c +: 32]     = TAGB[S];
    assign cfg_lmin_o[32*c +: 32]    = LMIN[S];
    assign cfg_lmax_o[32*c +: 32]    = LMAX[S];
    assign cfg_p_o[32*c +: 32]       = P;

    tm_tage #(
      .BASE    (BASE[S]),
      .TABLES  (TABS[S]),
      .ENTRIES (ENT[S]),
      .TAG     (TAGB[S]),
      .LMIN    (LMIN[S]),
      .LMAX    (LMAX[S]),
      .P       (P)
    ) u_dut (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni[c]),
      .clear_i  (clear_i[c]),
      .valid_i  (valid_i[c*PMAX +: P]),
      .ind_i    (ind_i[c*PMAX +: P]),
      .pc_i     (pc_i[64*c*PMAX +: 64*P]),
      .taken_i  (taken_i[c*PMAX +: P]),
      .target_i (target_i[64*c*PMAX +: 64*P]),
      .pred_o   (pred_o[c*PMAX +: P])
    );
    if (P < PMAX) begin : g_pad
      assign pred_o[c*PMAX+P +: PMAX-P] = '0;
      logic unused_ports;
      assign unused_ports = ^{valid_i[c*PMAX+P +: PMAX-P], ind_i[c*PMAX+P +: PMAX-P],
                              pc_i[64*(c*PMAX+P) +: 64*(PMAX-P)], taken_i[c*PMAX+P +: PMAX-P],
                              target_i[64*(c*PMAX+P) +: 64*(PMAX-P)]};
    end
  end

endmodule
