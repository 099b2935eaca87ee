// tm — unit testbench top: every tested parameter set of tm_data_enc side
// by side, each with its own message (config c: fahCnt at 64*c, size at
// 7*c, value at 512*c).  bits_o of config c is bits_o[OW*c +: OW],
// zero-extended from MAXW; the parameters (and the MAXW each instance
// computed) are on the cfg_* outputs.
module tb_data_enc #(
  parameter int unsigned NC = 6,
  parameter int unsigned OW = 704
) (
  input  logic [NC-1:0]      valid_i,
  input  logic [64*NC-1:0]   fah_i,
  input  logic [7*NC-1:0]    size_i,
  input  logic [512*NC-1:0]  value_i,
  output logic [OW*NC-1:0]   bits_o,
  output logic [16*NC-1:0]   len_o,
  output logic [32*NC-1:0]   cfg_tiw_o,
  output logic [32*NC-1:0]   cfg_ti_o,
  output logic [32*NC-1:0]   cfg_maxw_o,
  output logic [16*NC-1:0]   cfg_chunks_o   // FA, FB (8 bits each)
);

  // Configs: tr_e N=1; tr_e N=8, core 5; tr_b N=4, core 3; chunks 1,1 and
  // 32,32 with N=1024 (cores 1023 and 513); an odd mix with N=2, core 1.
  localparam int unsigned TIW [NC] = '{ 0,  3,  2,   10,  10,  1};
  localparam int unsigned TIV [NC] = '{ 0,  5,  3, 1023, 513,  1};
  localparam int unsigned FAV [NC] = '{ 3,  3,  8,    1,  32, 13};
  localparam int unsigned FBV [NC] = '{ 2,  2,  8,    1,  32,  7};

  for (genvar c = 0; c < NC; c++) begin : g_cfg
    localparam int unsigned MAXW = tm_pkg::data_max_bits(TIW[c], FAV[c], FBV[c]);
    localparam int unsigned LW   = $clog2(MAXW + 1);

    logic [MAXW-1:0] bits;
    logic [LW-1:0]   len;

    tm_data_enc #(
      .TIW (TIW[c]), .TI (TIV[c]), .FA (FAV[c]), .FB (FBV[c])
    ) u_dut (
      .valid_i (valid_i[c]),
      .fah_i   (fah_i[64*c +: 64]),
      .size_i  (size_i[7*c +: 7]),
      .value_i (value_i[512*c +: 512]),
      .bits_o  (bits),
      .len_o   (len)
    );

    assign bits_o[OW*c +: OW]       = OW'(bits);
    assign len_o[16*c +: 16]        = 16'(len);
    assign cfg_tiw_o[32*c +: 32]    = TIW[c];
    assign cfg_ti_o[32*c +: 32]     = TIV[c];
    assign cfg_maxw_o[32*c +: 32]   = MAXW;
    assign cfg_chunks_o[16*c +: 16] = {8'(FBV[c]), 8'(FAV[c])};
  end

endmodule
