// tm — ITTAGE indirect-branch target predictor of one predictor set
// (docs/spec.md §3.3.2, history rules of §3.3.1), the twin of cmodel/ittage.c.
//
// State (all of it reset to 0, as tm_ittage_reset does):
//   base table: BASE entries {valid, 48-bit target};
//   tagged tables 1..TABLES: ENTRIES entries each {valid, TAG-bit tag,
//     48-bit target, 2-bit ctr, 1-bit u};
//   a global history GHR of LMAX bits (bit 0 the newest) and, per tagged
//   table i, three folded registers of its L_i newest history bits:
//   FI (width e = log2 ENTRIES), FT1 (width TAG), FT2 (width TAG - 1), with
//   L_i = LMIN + (LMAX - LMIN) * (2^(i-1) - 1) / (2^(TABLES-1) - 1)
//   (TABLES = 1: LMAX).
// For every port p with valid_i[p]:
//   cond_i[p] = 1 (a conditional branch's outcome, tm_ittage_push_cond):
//     taken_i[p] is shifted into the history; no prediction.
//   cond_i[p] = 0 (an ijump / icall, tm_ittage_predict + tm_ittage_update):
//     lookup: base index (pc ^ (pc >> b)) & (BASE - 1); table i index
//       (pc ^ (pc >> e) ^ FI_i) & (ENTRIES - 1), tag ((pc >> 1) ^ FT1_i ^
//       (FT2_i << 1)) & (2^TAG - 1); provider = highest table whose indexed
//       entry is valid with that tag, alternate = the next one below, else
//       the base if valid, else none.  No provider: the base's target if
//       valid (hit_o), else no prediction.  Provider with ctr = 0 and an
//       alternate: the alternate's target, else the provider's.
//     update with the actual target a (full 64 bits; entries store its low
//       48 bits, compared zero-extended with a):
//       provider: if no alternate or the provider's target differs from the
//         alternate's, u = (provider's target == a); then target == a: ctr
//         up (to 3); else ctr > 0: ctr down; else target = a.
//       no provider: base entry = {valid, a}.
//       prediction absent or wrong and provider < TABLES: the lowest table j
//         above the provider whose indexed entry is invalid or has u = 0 is
//         allocated {valid, tag_j, a, ctr 0, u 0}; none: u of the indexed
//         entries of every table above the provider is cleared.
//       two history bits h = ((a >> 4) ^ pc) & 3 are shifted in, bit 1
//         first.
//   Shifting a bit h into the history: every folded register F (history
//   length L, width k) becomes, with o = GHR[L-1] of the old GHR,
//     F = (F << 1) | h; F ^= o << (L mod k); F ^= F >> k; F &= 2^k - 1,
//   then GHR = ((GHR << 1) | h) mod 2^LMAX.
// Ports are sequential within a cycle: port p sees the history and the
// entries as left by the valid ports < p of the same cycle (exactly as if
// the C model were called in port order).  hit_o / pred_o are combinational
// from the inputs and the registered state; updates take effect at the clock
// edge.  hit_o[p] and pred_o[p] are 0 unless port p is a valid indirect
// branch with a prediction.  clear_i makes the next state the reset state
// (it overrides the updates of its own cycle; the predictions of that cycle
// still come from the current state).
//
// An indirect port touches at most one entry per table (its indexed one), so
// forwarding between ports is per table: port p's view of table i's entry is
// the registered entry, replaced by the updated entry of the latest earlier
// valid indirect port of the cycle with the same index in table i.
//
// The tables are kept as flat packed vectors (not unpacked arrays) so that
// every field can be reset as the C model does: Verilator 5.006 cannot
// reset an unpacked array in a non-blocking loop (BLKLOOPINIT).  Only the
// valid bits would strictly need a reset (tag, target, ctr and u of an
// invalid entry are never read: allocation writes all of them).
//
// Per-port vectors are flat (port p's pc is pc_i[64*p +: 64]), the same bit
// layout as a packed [P-1:0][63:0] array: Yosys 0.23 cannot parse
// multi-dimensional packed arrays.
module tm_ittage #(
  parameter int unsigned BASE    = 32,  // base entries: a power of two, 2 .. 16384
  parameter int unsigned TABLES  = 3,   // tagged tables: 1 .. 8
  parameter int unsigned ENTRIES = 16,  // entries per tagged table: a power of two, 2 .. 4096
  parameter int unsigned TAG     = 8,   // tag bits: 4 .. 16
  parameter int unsigned LMIN    = 2,   // history length of table 1: 1 .. LMAX
  parameter int unsigned LMAX    = 32,  // history length of table TABLES: LMIN .. 128
  parameter int unsigned P       = 1    // sequential ports per cycle: >= 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clear_i,
  input  logic [P-1:0]      valid_i,
  input  logic [P-1:0]      cond_i,
  input  logic [64*P-1:0]   pc_i,
  input  logic [P-1:0]      taken_i,
  input  logic [64*P-1:0]   target_i,
  output logic [P-1:0]      hit_o,
  output logic [64*P-1:0]   pred_o
);

  // ---- supported parameters (tm_tage_cfg_check) ----
  if (BASE < 2 || BASE > 16384 || (BASE & (BASE - 1)) != 0 || TABLES < 1 || TABLES > 8 ||
      ENTRIES < 2 || ENTRIES > 4096 || (ENTRIES & (ENTRIES - 1)) != 0 || TAG < 4 || TAG > 16 ||
      LMIN < 1 || LMIN > LMAX || LMAX > 128) begin : g_bad_cfg
    $fatal(1, "tm_ittage: BASE %0d TABLES %0d ENTRIES %0d TAG %0d LMIN %0d LMAX %0d is not an ITTAGE of spec 3.3.2",
           BASE, TABLES, ENTRIES, TAG, LMIN, LMAX);
  end
  if (P < 1) begin : g_bad_p
    $fatal(1, "tm_ittage: P = %0d", P);
  end

  localparam int unsigned T  = TABLES;
  localparam int unsigned N  = TABLES + 1;       // tables with the base (table 0)
  localparam int unsigned BB = $clog2(BASE);     // b
  localparam int unsigned EB = $clog2(ENTRIES);  // e
  localparam int unsigned W  = TAG;
  localparam int unsigned AW = 48;               // stored target bits
  localparam int unsigned BW = 1 + AW;           // base entry: valid [0], target [1 +: 48]
  // Tagged entry: valid [0], tag, target, ctr, u.  Base entries use the same
  // layout inside the per-port slots cur / nxt (tag, ctr, u held at 0).
  localparam int unsigned O_TAG = 1;
  localparam int unsigned O_TGT = 1 + W;
  localparam int unsigned O_CTR = 1 + W + AW;
  localparam int unsigned O_U   = 3 + W + AW;
  localparam int unsigned EW    = 4 + W + AW;
  // Folded registers of a table: FI, FT1, FT2 in 16-bit slots (bits above
  // the width stay 0).
  localparam int unsigned FS = 48;

  // History length L_i of table i (1..T) at 8*(i-1), as hist_len() of
  // cmodel/hist_int.h.  (No `return`: Yosys 0.23 does not parse it.)
  function automatic logic [8*TABLES-1:0] hist_lens();
    hist_lens = '0;
    for (int unsigned i = 1; i <= TABLES; i++) begin
      if (TABLES == 1) begin
        hist_lens[8*(i-1) +: 8] = 8'(LMAX);
      end else begin
        hist_lens[8*(i-1) +: 8] =
            8'(LMIN + (LMAX - LMIN) * ((32'd1 << (i - 1)) - 1) / ((32'd1 << (TABLES - 1)) - 1));
      end
    end
  endfunction
  localparam logic [8*TABLES-1:0] HL = hist_lens();

  // Width of folded register s (0 FI, 1 FT1, 2 FT2).
  function automatic int unsigned fold_width(int unsigned s);
    fold_width = (s == 0) ? EB : (s == 1) ? W : W - 1;
  endfunction

  // L_i mod width of folded register s of table i (1..T) at 8*(3*(i-1)+s).
  function automatic logic [24*TABLES-1:0] fold_outs();
    fold_outs = '0;
    for (int unsigned i = 0; i < TABLES; i++) begin
      for (int unsigned s = 0; s < 3; s++) begin
        fold_outs[8*(3*i+s) +: 8] = 8'(32'(HL[8*i +: 8]) % fold_width(s));
      end
    end
  endfunction
  localparam logic [24*TABLES-1:0] FO = fold_outs();

  // ---- state ----
  logic [BW*BASE-1:0]      bt_q;    // base entry x at BW*x
  logic [EW*T*ENTRIES-1:0] tt_q;    // table i (1..T), entry x at EW*(ENTRIES*(i-1) + x)
  logic [LMAX-1:0]         ghr_q;
  logic [FS*T-1:0]         fold_q;  // table i (1..T) at FS*(i-1)

  // ---- the ports in order ----
  logic [LMAX*(P+1)-1:0]   ghr_c;   // history port p sees at LMAX*p; the last: after all ports
  logic [FS*T*(P+1)-1:0]   fold_c;  // folded registers port p sees at FS*T*p
  logic [16*N*P-1:0]       idx;     // port p, table i (0 = base): index at 16*(N*p+i)
  logic [W*T*P-1:0]        tag;     // port p, table i (1..T): tag at W*(T*p+i-1)
  // Port p's indexed entry of table i (slot EW*(N*p+i)) as port p sees it
  // (cur) and after its update (nxt).
  logic [EW*N*P-1:0]       cur, nxt;

  // Per-port temporaries (rewritten for each port).
  int unsigned             prov, alt;
  logic                    havealt, usealt, pred, correct, found;
  logic [AW-1:0]           ptgt, atgt, ftgt, st;
  logic                    bv;      // the base entry's valid bit
  logic [EW-1:0]           pe;
  logic [LMAX-1:0]         ghr;
  logic [FS*T-1:0]         fold;
  logic [1:0]              h, hb;   // hb[0] is shifted in first
  logic [1:0]              nb;      // history bits to shift: 0, 1 or 2
  logic [16:0]             fv;

  always_comb begin
    // Whole-vector defaults first: every element is written before it is read.
    ghr_c                 = '0;
    fold_c                = '0;
    ghr_c[0 +: LMAX]      = ghr_q;
    fold_c[0 +: FS*T]     = fold_q;
    idx                   = '0;
    tag                   = '0;
    cur                   = '0;
    nxt                   = '0;
    hit_o                 = '0;
    pred_o                = '0;
    prov                  = 0;
    alt                   = 0;
    havealt               = 1'b0;
    usealt                = 1'b0;
    pred                  = 1'b0;
    correct               = 1'b0;
    found                 = 1'b0;
    ptgt                  = '0;
    atgt                  = '0;
    ftgt                  = '0;
    st                    = '0;
    bv                    = 1'b0;
    pe                    = '0;
    ghr                   = '0;
    fold                  = '0;
    h                     = '0;
    hb                    = '0;
    nb                    = '0;
    fv                    = '0;
    for (int unsigned p = 0; p < P; p++) begin
      // Indices and tags from the folded registers as port p sees them.
      idx[16*N*p +: BB] = pc_i[64*p +: BB] ^ pc_i[64*p+BB +: BB];
      for (int unsigned i = 1; i <= T; i++) begin
        idx[16*(N*p+i) +: EB] = pc_i[64*p +: EB] ^ pc_i[64*p+EB +: EB] ^
                                fold_c[FS*(T*p+i-1) +: EB];
        tag[W*(T*p+i-1) +: W] = pc_i[64*p+1 +: W] ^ fold_c[FS*(T*p+i-1)+16 +: W] ^
                                {fold_c[FS*(T*p+i-1)+32 +: W-1], 1'b0};
      end

      // The registered entries, then as left by the latest earlier valid
      // indirect port of this cycle with the same index in the same table.
      cur[EW*N*p]                  = bt_q[BW*idx[16*N*p +: 16]];
      cur[EW*N*p+O_TGT +: AW]      = bt_q[BW*idx[16*N*p +: 16]+1 +: AW];
      for (int unsigned i = 1; i <= T; i++) begin
        cur[EW*(N*p+i) +: EW] = tt_q[EW*(ENTRIES*(i-1)+32'(idx[16*(N*p+i) +: 16])) +: EW];
      end
      for (int unsigned q = 0; q < p; q++) begin
        if (valid_i[q] && !cond_i[q]) begin
          for (int unsigned i = 0; i <= T; i++) begin
            if (idx[16*(N*q+i) +: 16] == idx[16*(N*p+i) +: 16]) begin
              cur[EW*(N*p+i) +: EW] = nxt[EW*(N*q+i) +: EW];
            end
          end
        end
      end

      // Lookup (tm_ittage_lookup_pc).
      prov = 0;
      alt  = 0;
      for (int unsigned i = 1; i <= T; i++) begin
        if (cur[EW*(N*p+i)] && cur[EW*(N*p+i)+O_TAG +: W] == tag[W*(T*p+i-1) +: W]) begin
          alt  = prov;
          prov = i;
        end
      end
      bv      = cur[EW*N*p];
      pe      = cur[EW*(N*p+prov) +: EW];
      havealt = prov != 0 && (alt != 0 || bv);
      // The alternate's target (the base's when alt = 0).
      atgt    = havealt ? cur[EW*(N*p+alt)+O_TGT +: AW] : '0;
      if (prov == 0) begin
        pred   = bv;
        ptgt   = bv ? cur[EW*N*p+O_TGT +: AW] : '0;
        usealt = 1'b0;
        ftgt   = ptgt;
      end else begin
        pred   = 1'b1;
        ptgt   = pe[O_TGT +: AW];
        usealt = pe[O_CTR +: 2] == 2'd0 && havealt;
        ftgt   = usealt ? atgt : ptgt;
      end
      if (valid_i[p] && !cond_i[p]) begin
        hit_o[p]           = pred;
        pred_o[64*p +: 64] = {16'd0, ftgt};
      end

      // Update (tm_ittage_update), into nxt.
      st      = target_i[64*p +: AW];
      correct = pred && {16'd0, ftgt} == target_i[64*p +: 64];
      nxt[EW*N*p +: EW*N] = cur[EW*N*p +: EW*N];
      if (prov != 0) begin
        if (!havealt || ptgt != atgt) begin
          pe[O_U] = {16'd0, ptgt} == target_i[64*p +: 64];
        end
        if ({16'd0, ptgt} == target_i[64*p +: 64]) begin
          if (pe[O_CTR +: 2] != 2'd3) pe[O_CTR +: 2] = pe[O_CTR +: 2] + 2'd1;
        end else if (pe[O_CTR +: 2] != 2'd0) begin
          pe[O_CTR +: 2] = pe[O_CTR +: 2] - 2'd1;
        end else begin
          pe[O_TGT +: AW] = st;
        end
        nxt[EW*(N*p+prov) +: EW] = pe;
      end else begin
        nxt[EW*N*p +: EW]        = '0;
        nxt[EW*N*p]              = 1'b1;
        nxt[EW*N*p+O_TGT +: AW]  = st;
      end
      found = 1'b0;
      if (!correct && prov < T) begin
        for (int unsigned j = 1; j <= T; j++) begin
          if (j > prov && !found && (!cur[EW*(N*p+j)] || !cur[EW*(N*p+j)+O_U])) begin
            nxt[EW*(N*p+j) +: EW]        = '0;
            nxt[EW*(N*p+j)]              = 1'b1;
            nxt[EW*(N*p+j)+O_TAG +: W]   = tag[W*(T*p+j-1) +: W];
            nxt[EW*(N*p+j)+O_TGT +: AW]  = st;
            found = 1'b1;
          end
        end
        if (!found) begin
          for (int unsigned j = 1; j <= T; j++) begin
            if (j > prov) nxt[EW*(N*p+j)+O_U] = 1'b0;
          end
        end
      end

      // History: two bits for an indirect branch (bit 1 first), the outcome
      // for a conditional one.
      ghr  = ghr_c[LMAX*p +: LMAX];
      fold = fold_c[FS*T*p +: FS*T];
      h    = target_i[64*p+4 +: 2] ^ pc_i[64*p +: 2];
      hb   = cond_i[p] ? {1'b0, taken_i[p]} : {h[0], h[1]};
      nb   = !valid_i[p] ? 2'd0 : cond_i[p] ? 2'd1 : 2'd2;
      for (int unsigned k = 0; k < 2; k++) begin
        if (k < 32'(nb)) begin
          for (int unsigned i = 0; i < T; i++) begin
            for (int unsigned s = 0; s < 3; s++) begin
              fv = {fold[FS*i+16*s +: 16], hb[k]};
              fv = fv ^ (17'(ghr[32'(HL[8*i +: 8])-1 +: 1]) << FO[8*(3*i+s) +: 8]);
              fv = fv ^ (fv >> fold_width(s));
              fold[FS*i+16*s +: 16] = 16'(fv & ((17'd1 << fold_width(s)) - 17'd1));
            end
          end
          ghr = LMAX'({ghr, hb[k]});
        end
      end
      ghr_c[LMAX*(p+1) +: LMAX]   = ghr;
      fold_c[FS*T*(p+1) +: FS*T]  = fold;
    end
  end

  // In port order: a later port's entry for the same index wins (it already
  // includes the earlier updates).  A clear_i cycle writes nothing.
  // The tables are wider than 8k bits in large configurations: filling them
  // with '0 is intended (WIDTHCONCAT waived for the reset and clear only).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    /* verilator lint_off WIDTHCONCAT */
    if (!rst_ni) begin
      bt_q   <= '0;
      tt_q   <= '0;
      ghr_q  <= '0;
      fold_q <= '0;
    end else if (clear_i) begin
      bt_q   <= '0;
      tt_q   <= '0;
      ghr_q  <= '0;
      fold_q <= '0;
    /* verilator lint_on WIDTHCONCAT */
    end else begin
      for (int unsigned p = 0; p < P; p++) begin
        if (valid_i[p] && !cond_i[p]) begin
          bt_q[BW*idx[16*N*p +: 16] +: BW] <= {nxt[EW*N*p+O_TGT +: AW], nxt[EW*N*p]};
          for (int unsigned i = 1; i <= T; i++) begin
            tt_q[EW*(ENTRIES*(i-1)+32'(idx[16*(N*p+i) +: 16])) +: EW] <= nxt[EW*(N*p+i) +: EW];
          end
        end
      end
      ghr_q  <= ghr_c[LMAX*P +: LMAX];
      fold_q <= fold_c[FS*T*P +: FS*T];
    end
  end

  // Only the low pc bits reach the indices, tags and history; the base
  // slots' tag, ctr and u bits of nxt are always 0.
  logic unused_bits;
  assign unused_bits = ^{pc_i, nxt};

endmodule
