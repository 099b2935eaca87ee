// tm — ITTAGE indirect-branch target predictor of one predictor set
// (docs/spec.md §3.3.2, history rules of §3.3.1), the twin of cmodel/ittage.c.
//
// State (all of it reset to 0, as tm_ittage_reset does):
//   base table: BASE entries {valid, 48-bit target};
//   tagged tables 1..TABLES: ENTRIES entries each {valid, TAG-bit tag,
//     48-bit target, 2-bit ctr, 1-bit u};
//   the history (tm_hist, shared with tm_tage): a global history GHR of
//   LMAX bits (bit 0 the newest) and, per tagged table i, three folded
//   registers of its L_i newest history bits: FI (width e = log2 ENTRIES),
//   FT1 (width TAG), FT2 (width TAG - 1), with
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
//   Shifting a bit h into the history (tm_hist): every folded register F
//   (history length L, width k) becomes, with o = GHR[L-1] of the old GHR,
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
`include "tm_assert.svh"

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

  // ---- state ----
  logic [BW*BASE-1:0]      bt_q;    // base entry x at BW*x
  logic [EW*T*ENTRIES-1:0] tt_q;    // table i (1..T), entry x at EW*(ENTRIES*(i-1) + x)

  // ---- the history: indices and tags of the tagged tables per port ----
  // Port p, table i (1..T): index at EB*(T*p+i-1), tag at W*(T*p+i-1), from
  // the history as left by the valid ports < p.
  logic [EB*T*P-1:0]       hidx;
  logic [W*T*P-1:0]        tag;

  tm_hist #(.TABLES (TABLES), .ENTRIES (ENTRIES), .TAG (TAG), .LMIN (LMIN), .LMAX (LMAX), .P (P))
  u_hist (
    .clk_i, .rst_ni, .clear_i, .valid_i, .ind_i (~cond_i), .pc_i, .taken_i, .target_i,
    .idx_o (hidx), .tag_o (tag)
  );

  // ---- the ports in order ----
  logic [16*N*P-1:0]       idx;     // port p, table i (0 = base): index at 16*(N*p+i)
  // Port p's indexed entry of table i (slot EW*(N*p+i)) as port p sees it
  // (cur) and after its update (nxt).
  logic [EW*N*P-1:0]       cur, nxt;

  // Per-port temporaries (rewritten for each port).
  int unsigned             prov, alt;
  logic                    havealt, usealt, pred, correct, found;
  logic [AW-1:0]           ptgt, atgt, ftgt, st;
  logic                    bv;      // the base entry's valid bit
  logic [EW-1:0]           pe;

  always_comb begin
    // Whole-vector defaults first: every element is written before it is read.
    idx                   = '0;
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
    for (int unsigned p = 0; p < P; p++) begin
      // The base index; the tagged tables' from the history as port p sees it.
      idx[16*N*p +: BB] = pc_i[64*p +: BB] ^ pc_i[64*p+BB +: BB];
      for (int unsigned i = 1; i <= T; i++) begin
        idx[16*(N*p+i) +: EB] = hidx[EB*(T*p+i-1) +: EB];
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
      // (The history: tm_hist.)
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
    end else if (clear_i) begin
      bt_q   <= '0;
      tt_q   <= '0;
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
    end
  end

`ifndef SYNTHESIS
  // Index ranges: port p's base index within the base table, its tagged
  // indices within their tables; a prediction only for a valid indirect
  // branch.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      for (int unsigned p = 0; p < P; p++) begin
        `TM_ASSERT_I(IttageBaseInRange, 32'(idx[16*N*p +: 16]) < BASE)
        for (int unsigned i = 1; i <= T; i++) begin
          `TM_ASSERT_I(IttageEntryInRange, 32'(idx[16*(N*p+i) +: 16]) < ENTRIES)
        end
      end
      `TM_ASSERT_I(IttageHitOnlyIndirect, (hit_o & ~(valid_i & ~cond_i)) == '0)
    end
  end
`endif

  // The base slots' tag, ctr and u bits of nxt are always 0.
  logic unused_bits;
  assign unused_bits = ^nxt;

endmodule
