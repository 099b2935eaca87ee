// tm — unit testbench top: every tested parameter set of tm_ras side by side,
// each with its own inputs (config c, port p: bit c*PMAX + p; 64-bit values
// at 64*(c*PMAX + p)).  The parameter sets are readable on the cfg_* outputs.
module tb_ras #(
  parameter int unsigned NC   = 10,
  parameter int unsigned PMAX = 3
) (
  input  logic                   clk_i,
  input  logic [NC-1:0]          rst_ni,
  input  logic [NC-1:0]          clear_i,
  input  logic [NC*PMAX-1:0]     push_i,
  input  logic [64*NC*PMAX-1:0]  push_addr_i,
  input  logic [NC*PMAX-1:0]     pop_i,
  output logic [NC*PMAX-1:0]     hit_o,
  output logic [64*NC*PMAX-1:0]  pred_o,
  output logic [32*NC-1:0]       cfg_entries_o,
  output logic [32*NC-1:0]       cfg_p_o
);

  localparam int unsigned ENT [NC] = '{0, 0, 1, 1, 7, 7, 8, 8, 32, 32};
  localparam int unsigned PP  [NC] = '{1, 3, 1, 3, 1, 3, 1, 3, 1, 3};

  for (genvar c = 0; c < NC; c++) begin : g_cfg
    localparam int unsigned P = PP[c];
    assign cfg_entries_o[32*c +: 32] = ENT[c];
    assign cfg_p_o[32*c +: 32]       = P;

    tm_ras #(.ENTRIES(ENT[c]), .P(P)) u_dut (
      .clk_i       (clk_i),
      .rst_ni      (rst_ni[c]),
      .clear_i     (clear_i[c]),
      .push_i      (push_i[c*PMAX +: P]),
      .push_addr_i (push_addr_i[64*c*PMAX +: 64*P]),
      .pop_i       (pop_i[c*PMAX +: P]),
      .hit_o       (hit_o[c*PMAX +: P]),
      .pred_o      (pred_o[64*c*PMAX +: 64*P])
    );
    if (P < PMAX) begin : g_pad
      assign hit_o[c*PMAX+P +: PMAX-P]                = '0;
      assign pred_o[64*(c*PMAX+P) +: 64*(PMAX-P)]     = '0;
      logic unused_ports;
      assign unused_ports = ^{push_i[c*PMAX+P +: PMAX-P],
                              push_addr_i[64*(c*PMAX+P) +: 64*(PMAX-P)],
                              pop_i[c*PMAX+P +: PMAX-P]};
    end
  end

endmodule
