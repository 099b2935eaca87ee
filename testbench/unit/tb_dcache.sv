// tm — unit testbench top: every tested geometry of tm_dcache side by side,
// each with its own inputs and outputs at fixed strides (config c: 1-bit
// inputs at bit c, addresses at 64*c; invalidation port j at NP*c + j; line
// i at LP*c + i; ways, line counts at 8 bits each).  Ports and lines a
// config does not have read as 0.  The parameter sets are readable on the
// cfg_* outputs so that the C++/C side needs no copy of this list.
module tb_dcache #(
  parameter int unsigned NC = 10,
  parameter int unsigned LP = 17,  // most lines of an operand (4-byte lines)
  parameter int unsigned NP = 7    // most invalidation ports (N = 8)
) (
  input  logic                   clk_i,
  input  logic [NC-1:0]          rst_ni,
  input  logic [NC-1:0]          clear_i,
  input  logic [NC-1:0]          valid_i,
  input  logic [NC-1:0]          store_i,
  input  logic [64*NC-1:0]       addr_i,
  input  logic [7*NC-1:0]        size_i,
  input  logic [NP*NC-1:0]       inv_valid_i,
  input  logic [NP*NC-1:0]       inv_before_i,
  input  logic [64*NP*NC-1:0]    inv_addr_i,
  input  logic [7*NP*NC-1:0]     inv_size_i,
  output logic [8*NC-1:0]        lines_o,
  output logic [NC-1:0]          all_hit_o,
  output logic [NC-1:0]          flags_hit_o,
  output logic [NC-1:0]          report_o,
  output logic [LP*NC-1:0]       line_hit_o,
  output logic [8*LP*NC-1:0]     line_way_o,
  output logic [LP*NC-1:0]       line_fall_o,
  output logic [LP*NC-1:0]       line_fany_o,
  output logic [8*NP*NC-1:0]     inv_lines_o,
  output logic [32*NC-1:0]       cfg_size_o,
  output logic [32*NC-1:0]       cfg_assoc_o,
  output logic [32*NC-1:0]       cfg_line_o,
  output logic [32*NC-1:0]       cfg_gran_o,
  output logic [32*NC-1:0]       cfg_n_o
);

  // tool (32 KB, 4-way, 32 B, g 4) and study (64 KB, 4-way, 64 B, g 4) with
  // 4 cores; 1 KB 2-way 16 B with 8 cores; direct mapped 512 B, one flag
  // per line; 16 ways; 64 ways of 64 one-byte flags; two 4 KB lines with
  // 64 flags; 4-byte lines (17 lines per operand); 8-byte lines and N = 1;
  // tool with N = 1.
  localparam int unsigned SZ [NC] = '{32768, 65536, 1024, 512, 4096, 8192, 16384, 128, 256, 32768};
  localparam int unsigned AS [NC] = '{    4,     4,    2,   1,   16,   64,     2,   1,   2,     4};
  localparam int unsigned LN [NC] = '{   32,    64,   16,  16,   16,   64,  4096,   4,   8,    32};
  localparam int unsigned GR [NC] = '{    4,     4,    4,  16,    1,    1,    64,   1,   2,     4};
  localparam int unsigned NN [NC] = '{    4,     4,    8,   3,    2,    2,     2,   2,   1,     1};

  for (genvar c = 0; c < NC; c++) begin : g_cfg
    localparam int unsigned LMAX = (LN[c] + 62) / LN[c] + 1;
    localparam int unsigned NI   = (NN[c] > 1) ? NN[c] - 1 : 1;
    localparam int unsigned LNW  = $clog2(LMAX + 1);
    localparam int unsigned WW   = (AS[c] > 1) ? $clog2(AS[c]) : 1;

    logic [LNW-1:0]      lines;
    logic [LMAX-1:0]     hit, fall, fany;
    logic [WW*LMAX-1:0]  way;
    logic [LNW*NI-1:0]   ilines;

    tm_dcache #(
      .SIZE (SZ[c]), .ASSOC (AS[c]), .LINE (LN[c]), .GRAN (GR[c]), .N (NN[c])
    ) u_dut (
      .clk_i        (clk_i),
      .rst_ni       (rst_ni[c]),
      .clear_i      (clear_i[c]),
      .valid_i      (valid_i[c]),
      .store_i      (store_i[c]),
      .addr_i       (addr_i[64*c +: 64]),
      .size_i       (size_i[7*c +: 7]),
      .inv_valid_i  (inv_valid_i[NP*c +: NI]),
      .inv_before_i (inv_before_i[NP*c +: NI]),
      .inv_addr_i   (inv_addr_i[64*NP*c +: 64*NI]),
      .inv_size_i   (inv_size_i[7*NP*c +: 7*NI]),
      .lines_o      (lines),
      .all_hit_o    (all_hit_o[c]),
      .flags_hit_o  (flags_hit_o[c]),
      .report_o     (report_o[c]),
      .line_hit_o   (hit),
      .line_way_o   (way),
      .line_fall_o  (fall),
      .line_fany_o  (fany),
      .inv_lines_o  (ilines)
    );

    assign lines_o[8*c +: 8] = 8'(lines);
    for (genvar i = 0; i < LP; i++) begin : g_line
      if (i < LMAX) begin : g_used
        assign line_hit_o[LP*c+i]          = hit[i];
        assign line_fall_o[LP*c+i]         = fall[i];
        assign line_fany_o[LP*c+i]         = fany[i];
        assign line_way_o[8*(LP*c+i) +: 8] = 8'(way[WW*i +: WW]);
      end else begin : g_pad
        assign line_hit_o[LP*c+i]          = 1'b0;
        assign line_fall_o[LP*c+i]         = 1'b0;
        assign line_fany_o[LP*c+i]         = 1'b0;
        assign line_way_o[8*(LP*c+i) +: 8] = '0;
      end
    end
    for (genvar j = 0; j < NP; j++) begin : g_port
      if (j < NI) begin : g_used
        assign inv_lines_o[8*(NP*c+j) +: 8] = 8'(ilines[LNW*j +: LNW]);
      end else begin : g_pad
        assign inv_lines_o[8*(NP*c+j) +: 8] = '0;
      end
    end
    if (NI < NP) begin : g_unused
      logic unused_ports;
      assign unused_ports = ^{inv_valid_i[NP*c+NI +: NP-NI], inv_before_i[NP*c+NI +: NP-NI],
                              inv_addr_i[64*(NP*c+NI) +: 64*(NP-NI)],
                              inv_size_i[7*(NP*c+NI) +: 7*(NP-NI)]};
    end

    assign cfg_size_o[32*c +: 32]  = SZ[c];
    assign cfg_assoc_o[32*c +: 32] = AS[c];
    assign cfg_line_o[32*c +: 32]  = LN[c];
    assign cfg_gran_o[32*c +: 32]  = GR[c];
    assign cfg_n_o[32*c +: 32]     = NN[c];
  end

endmodule
