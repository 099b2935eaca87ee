// tm — unit testbench top: every tested parameter set of tm_gshare side by
// side, each with its own inputs (config c, port p: bit c*PMAX + p; 64-bit
// values at 64*(c*PMAX + p)).  The parameter sets are readable on the cfg_*
// outputs so that the C++/C side needs no copy of this list.
module tb_gshare #(
  parameter int unsigned NC   = 8,
  parameter int unsigned PMAX = 4
) (
  input  logic                   clk_i,
  input  logic [NC-1:0]          rst_ni,
  input  logic [NC-1:0]          clear_i,
  input  logic [NC*PMAX-1:0]     valid_i,
  input  logic [64*NC*PMAX-1:0]  pc_i,
  input  logic [NC*PMAX-1:0]     taken_i,
  output logic [NC*PMAX-1:0]     pred_o,
  output logic [32*NC-1:0]       cfg_entries_o,
  output logic [32*NC-1:0]       cfg_p_o
);

  localparam int unsigned ENT [NC] = '{0, 0, 1, 1, 256, 256, 4096, 4096};
  localparam int unsigned PP  [NC] = '{1, 4, 1, 4, 1, 4, 1, 4};

  for (genvar c = 0; c < NC; c++) begin : g_cfg
    localparam int unsigned P = PP[c];
    assign cfg_entries_o[32*c +: 32] = ENT[c];
    assign cfg_p_o[32*c +: 32]       = P;

    tm_gshare #(.ENTRIES(ENT[c]), .P(P)) u_dut (
      .clk_i   (clk_i),
      .rst_ni  (rst_ni[c]),
      .clear_i (clear_i[c]),
      .valid_i (valid_i[c*PMAX +: P]),
      .pc_i    (pc_i[64*c*PMAX +: 64*P]),
      .taken_i (taken_i[c*PMAX +: P]),
      .pred_o  (pred_o[c*PMAX +: P])
    );
    if (P < PMAX) begin : g_pad
      assign pred_o[c*PMAX+P +: PMAX-P] = '0;
      logic unused_ports;
      assign unused_ports = ^{valid_i[c*PMAX+P +: PMAX-P], pc_i[64*(c*PMAX+P) +: 64*(PMAX-P)],
                              taken_i[c*PMAX+P +: PMAX-P]};
    end
  end

endmodule
