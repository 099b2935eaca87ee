// tm — unit testbench top: every tested parameter set of tm_ittage side by
// side, each with its own inputs (config c, port p: bit c*PMAX + p; 64-bit
// values at 64*(c*PMAX + p)).  The parameter sets are readable on the cfg_*
// outputs.
module tb_ittage #(
  parameter int unsigned NC   = 12,
  parameter int unsigned PMAX = 3
) (
  input  logic                   clk_i,
  input  logic [NC-1:0]          rst_ni,
  input  logic [NC-1:0]          clear_i,
  input  logic [NC*PMAX-1:0]     valid_i,
  input  logic [NC*PMAX-1:0]     cond_i,
  input  logic [64*NC*PMAX-1:0]  pc_i,
  input  logic [NC*PMAX-1:0]     taken_i,
  input  logic [64*NC*PMAX-1:0]  target_i,
  output logic [NC*PMAX-1:0]     hit_o,
  output logic [64*NC*PMAX-1:0]  pred_o,
  output logic [32*NC-1:0]       cfg_base_o,
  output logic [32*NC-1:0]       cfg_tables_o,
  output logic [32*NC-1:0]       cfg_entries_o,
  output logic [32*NC-1:0]       cfg_tag_o,
  output logic [32*NC-1:0]       cfg_lmin_o,
  output logic [32*NC-1:0]       cfg_lmax_o,
  output logic [32*NC-1:0]       cfg_p_o
);

  // Six parameter sets (the tage-m and tage-l presets' ITTAGE among them),
  // each with P = 1 and P = 3.
  localparam int unsigned BS [NC] = '{2, 2, 8, 8, 32, 32, 4, 4, 64, 64, 1024, 1024};
  localparam int unsigned TS [NC] = '{1, 1, 2, 2, 3, 3, 8, 8, 4, 4, 2, 2};
  localparam int unsigned ES [NC] = '{2, 2, 8, 8, 16, 16, 2, 2, 32, 32, 256, 256};
  localparam int unsigned WS [NC] = '{4, 4, 6, 6, 8, 8, 16, 16, 10, 10, 16, 16};
  localparam int unsigned L0 [NC] = '{1, 1, 2, 2, 2, 2, 1, 1, 4, 4, 5, 5};
  localparam int unsigned L1 [NC] = '{1, 1, 16, 16, 32, 32, 128, 128, 64, 64, 100, 100};
  localparam int unsigned PP [NC] = '{1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3};

  for (genvar c = 0; c < NC; c++) begin : g_cfg
    localparam int unsigned P = PP[c];
    assign cfg_base_o[32*c +: 32]    = BS[c];
    assign cfg_tables_o[32*c +: 32]  = TS[c];
    assign cfg_entries_o[32*c +: 32] = ES[c];
    assign cfg_tag_o[32*c +: 32]     = WS[c];
    assign cfg_lmin_o[32*c +: 32]    = L0[c];
    assign cfg_lmax_o[32*c +: 32]    = L1[c];
    assign cfg_p_o[32*c +: 32]       = P;

    tm_ittage #(
      .BASE(BS[c]), .TABLES(TS[c]), .ENTRIES(ES[c]), .TAG(WS[c]), .LMIN(L0[c]), .LMAX(L1[c]),
      .P(P)
    ) u_dut (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni[c]),
      .clear_i  (clear_i[c]),
      .valid_i  (valid_i[c*PMAX +: P]),
      .cond_i   (cond_i[c*PMAX +: P]),
      .pc_i     (pc_i[64*c*PMAX +: 64*P]),
      .taken_i  (taken_i[c*PMAX +: P]),
      .target_i (target_i[64*c*PMAX +: 64*P]),
      .hit_o    (hit_o[c*PMAX +: P]),
      .pred_o   (pred_o[64*c*PMAX +: 64*P])
    );
    if (P < PMAX) begin : g_pad
      assign hit_o[c*PMAX+P +: PMAX-P]            = '0;
      assign pred_o[64*(c*PMAX+P) +: 64*(PMAX-P)] = '0;
      logic unused_ports;
      assign unused_ports = ^{valid_i[c*PMAX+P +: PMAX-P], cond_i[c*PMAX+P +: PMAX-P],
                              pc_i[64*(c*PMAX+P) +: 64*(PMAX-P)], taken_i[c*PMAX+P +: PMAX-P],
                              target_i[64*(c*PMAX+P) +: 64*(PMAX-P)]};
    end
  end

endmodule
