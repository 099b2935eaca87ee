// tm — history of a TAGE-class predictor (docs/spec.md §3.3.1; §3.3.2 uses
// the same rules): the global history, the folded registers of every tagged
// table, and the tables' indices and tags.  The one RTL copy of these rules,
// instantiated by tm_tage and tm_ittage (each predictor keeps its own
// history, as each C predictor keeps its own tm_ghist and tm_fold of
// cmodel/hist_int.h: hist_len, ghist_push, hist_reset, hist_slot).
//
// State (reset 0, as hist_reset): a global history GHR of LMAX bits (bit 0
// the newest) and, per tagged table i (1..TABLES), three folded registers of
// its newest
//   L_i = LMIN + (LMAX - LMIN) * (2^(i-1) - 1) / (2^(TABLES-1) - 1)
// history bits (TABLES = 1: LMAX): FI (e = log2 ENTRIES bits), FT1 (TAG
// bits), FT2 (TAG - 1 bits).
//
// Shifting a bit h into the history (ghist_push): every folded register F
// of length L and width k becomes, with o = GHR[L-1] of the old GHR,
//   F = (F << 1) | h; F ^= o << (L mod k); F ^= F >> k; F &= 2^k - 1,
// then GHR = ((GHR << 1) | h) mod 2^LMAX.
// For every port p with valid_i[p]:
//   ind_i[p] = 0 (a conditional branch): taken_i[p] is shifted in;
//   ind_i[p] = 1 (an ijump / icall): the two bits
//     h = ((target_i[p] >> 4) ^ pc_i[p]) & 3 are shifted in, bit 1 first.
// Index and tag of table i for port p (hist_slot), for every port, valid or
// not, from the folded registers as left by the valid ports < p of the same
// cycle (ports are sequential, as if the C model were called in port order):
//   idx_o: (pc ^ (pc >> e) ^ FI_i) & (ENTRIES - 1),
//   tag_o: ((pc >> 1) ^ FT1_i ^ (FT2_i << 1)) & (2^TAG - 1),
// at idx_o[e*(TABLES*p + i-1) +: e] and tag_o[TAG*(TABLES*p + i-1) +: TAG].
// They are combinational from the inputs and the registered state; the
// history after all ports takes effect at the clock edge.  clear_i makes the
// next state the reset state (it overrides the shifts of its own cycle).
//
// Per-port vectors are flat (port p's pc is pc_i[64*p +: 64]): Yosys 0.23
// cannot parse multi-dimensional packed arrays.  The parameters are checked
// by tm_tage / tm_ittage.
`include "tm_assert.svh"

module tm_hist #(
  parameter int unsigned TABLES  = 3,   // tagged tables: 1 .. 8
  parameter int unsigned ENTRIES = 32,  // entries per tagged table: 2^k, 2 .. 4096
  parameter int unsigned TAG     = 7,   // tag bits: 4 .. 16
  parameter int unsigned LMIN    = 3,   // history length of table 1: 1 .. LMAX
  parameter int unsigned LMAX    = 24,  // history length of table TABLES: LMIN .. 128
  parameter int unsigned P       = 1    // sequential ports per cycle
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clear_i,
  input  logic [P-1:0]      valid_i,
  input  logic [P-1:0]      ind_i,
  input  logic [64*P-1:0]   pc_i,
  input  logic [P-1:0]      taken_i,
  input  logic [64*P-1:0]   target_i,
  output logic [$clog2(ENTRIES)*TABLES*P-1:0] idx_o,
  output logic [TAG*TABLES*P-1:0]             tag_o
);

  localparam int unsigned T  = TABLES;
  localparam int unsigned EB = $clog2(ENTRIES);  // index / FI width
  localparam int unsigned W  = TAG;
  localparam int unsigned W2 = TAG - 1;  // FT2 width

  // History length of table I (1 .. TABLES), as hist_len() in hist_int.h.
  // (Functions assign their name: Yosys 0.23 does not parse `return`.)
  function automatic int unsigned hist_len(int unsigned i);
    if (TABLES <= 1) hist_len = LMAX;
    else hist_len = LMIN + ((LMAX - LMIN) * ((32'd1 << (i - 1)) - 32'd1)) /
                           ((32'd1 << (TABLES - 1)) - 32'd1);
  endfunction

  // Per table i (0-based), 8 bits each: WHAT 0: L; 1: L mod EB; 2: L mod W;
  // 3: L mod (W - 1) (the place where the bit leaving a folded register is
  // folded out).
  function automatic logic [8*TABLES-1:0] tab_consts(int unsigned what);
    logic [8*TABLES-1:0] r;
    int unsigned l;
    r = '0;
    for (int unsigned i = 0; i < TABLES; i++) begin
      l = hist_len(i + 1);
      case (what)
        0:       r[8*i +: 8] = 8'(l);
        1:       r[8*i +: 8] = 8'(l % EB);
        2:       r[8*i +: 8] = 8'(l % W);
        default: r[8*i +: 8] = 8'(l % W2);
      endcase
    end
    tab_consts = r;
  endfunction

  localparam logic [8*T-1:0] LEN  = tab_consts(0);
  localparam logic [8*T-1:0] OUTI = tab_consts(1);
  localparam logic [8*T-1:0] OUT1 = tab_consts(2);
  localparam logic [8*T-1:0] OUT2 = tab_consts(3);

  // One history bit H into a folded register F of width K (bits above K
  // zero) whose oldest bit O leaves it (folded out at SH = L mod K).
  function automatic logic [15:0] fold_push(logic [15:0] f, logic h, logic o, int unsigned k,
                                            int unsigned sh);
    logic [16:0] v;
    v = {f, h};
    v = v ^ (17'(o) << sh);
    v = v ^ (v >> k);
    fold_push = 16'(v & ((17'd1 << k) - 17'd1));
  endfunction

  // ---- state ----
  logic [LMAX-1:0] ghr_q, ghr_d;
  logic [T*EB-1:0] fi_q, fi_d;    // table i (0-based): [EB*i +: EB]
  logic [T*W-1:0]  ft1_q, ft1_d;
  logic [T*W2-1:0] ft2_q, ft2_d;

  // ---- port by port: index and tag, then the port's history bits ----
  logic [63:0] h_pc;   // working values
  logic        h_bit;  // the bit shifted in
  logic        h_old;  // the bit leaving table i's window

  always_comb begin
    ghr_d = ghr_q;
    fi_d  = fi_q;
    ft1_d = ft1_q;
    ft2_d = ft2_q;
    idx_o = '0;
    tag_o = '0;
    h_pc  = '0;
    h_bit = 1'b0;
    h_old = 1'b0;
    for (int unsigned p = 0; p < P; p++) begin
      h_pc = pc_i[64*p +: 64];
      for (int unsigned i = 0; i < T; i++) begin
        idx_o[EB*(T*p+i) +: EB] = EB'(h_pc ^ (h_pc >> EB)) ^ fi_d[EB*i +: EB];
        tag_o[W*(T*p+i) +: W]   = W'(h_pc >> 1) ^ ft1_d[W*i +: W] ^ {ft2_d[W2*i +: W2], 1'b0};
      end
      // A conditional port shifts its outcome; an indirect one two bits of
      // (target >> 4) ^ pc, bit 1 first.
      for (int unsigned k = 0; k < 2; k++) begin
        if (valid_i[p] && (k == 0 || ind_i[p])) begin
          if (!ind_i[p]) h_bit = taken_i[p];
          else if (k == 0) h_bit = pc_i[64*p+1] ^ target_i[64*p+5];
          else h_bit = pc_i[64*p] ^ target_i[64*p+4];
          for (int unsigned i = 0; i < T; i++) begin
            h_old = |(ghr_d & (LMAX'(1) << (LEN[8*i +: 8] - 8'd1)));
            fi_d[EB*i +: EB]   = EB'(fold_push(16'(fi_d[EB*i +: EB]), h_bit, h_old, EB,
                                               32'(OUTI[8*i +: 8])));
            ft1_d[W*i +: W]    = W'(fold_push(16'(ft1_d[W*i +: W]), h_bit, h_old, W,
                                              32'(OUT1[8*i +: 8])));
            ft2_d[W2*i +: W2]  = W2'(fold_push(16'(ft2_d[W2*i +: W2]), h_bit, h_old, W2,
                                               32'(OUT2[8*i +: 8])));
          end
          ghr_d = (ghr_d << 1) | LMAX'(h_bit);
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ghr_q <= '0;
      fi_q  <= '0;
      ft1_q <= '0;
      ft2_q <= '0;
    end else if (clear_i) begin
      ghr_q <= '0;
      fi_q  <= '0;
      ft1_q <= '0;
      ft2_q <= '0;
    end else begin
      ghr_q <= ghr_d;
      fi_q  <= fi_d;
      ft1_q <= ft1_d;
      ft2_q <= ft2_d;
    end
  end

  // Only the low bits of pc (index, tag, history) and target[5:4] are used.
  logic unused_inputs;
  assign unused_inputs = ^{pc_i, target_i};

`ifndef SYNTHESIS
  // The folded histories are what they fold: the index fold of table i is
  // the XOR of the EB-bit chunks of the newest LEN(i) history bits (bit b at
  // b mod EB), the tag folds alike with TAG and TAG - 1 bits.  Checked
  // before each update (the registers change only then).
  function automatic logic [15:0] fold_of(logic [LMAX-1:0] h, int unsigned len, int unsigned k);
    logic [15:0] r;
    r = '0;
    for (int unsigned b = 0; b < LMAX; b++) begin
      if (b < len && h[b]) r[b % k] = ~r[b % k];
    end
    fold_of = r;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && valid_i != '0) begin
      for (int unsigned i = 0; i < T; i++) begin
        `TM_ASSERT_I(HistIndexFold, EB'(fold_of(ghr_q, 32'(LEN[8*i +: 8]), EB)) == fi_q[EB*i +: EB])
        `TM_ASSERT_I(HistTagFold, W'(fold_of(ghr_q, 32'(LEN[8*i +: 8]), W)) == ft1_q[W*i +: W] &&
                                  W2'(fold_of(ghr_q, 32'(LEN[8*i +: 8]), W2)) == ft2_q[W2*i +: W2])
      end
    end
  end
`endif

endmodule
