// tm — TAGE outcome predictor of one predictor set (docs/spec.md §3.3.1),
// the RTL twin of cmodel/tage.c (with cmodel/hist_int.h).
//
// BASE 2-bit counters (reset 1), TABLES tagged tables of ENTRIES entries
// {valid, 3-bit ctr, TAG-bit tag, 2-bit u} (reset invalid), a 4-bit USE_ALT
// counter (reset 8), and the history (tm_hist, shared with tm_ittage): a
// global history GHR of LMAX bits with three folded registers per table,
// from which it forms every table's index and tag.  Table i (1..TABLES)
// uses the newest
//   L_i = LMIN + (LMAX - LMIN) * (2^(i-1) - 1) / (2^(TABLES-1) - 1)
// history bits (TABLES = 1: LMAX).
//
// For every port p with valid_i[p]:
//   ind_i[p] = 0: a conditional branch at pc_i[p]: pred_o[p] is the
//     prediction of tm_tage_predict, then the tables are trained with
//     taken_i[p] and it is shifted into the history (tm_tage_update);
//   ind_i[p] = 1: an indirect branch's history event: the two bits
//     h = ((target >> 4) ^ pc) & 3 are shifted in, bit 1 first
//     (tm_tage_push_indirect); no prediction (pred_o[p] = 0).
// Ports are sequential within a cycle: port p sees the tables, the history
// and USE_ALT as left by the valid ports < p of the same
// cycle (exactly as if the C model were called in port order).
// Predictions are combinational from the inputs and the registered state;
// updates take effect at the clock edge.  pred_o[p] is 0 when valid_i[p] is
// 0.  clear_i makes the next state the reset state (it overrides the updates
// of its own cycle; the predictions of that cycle still come from the
// current state).
//
// Every write of a conditional port to table i is to its own lookup index of
// table i (provider update, allocation, u decay), so each port reads one
// entry per table (forwarded from the latest earlier port of the cycle that
// wrote the same entry) and writes it back.  The counters, tags and u of the
// tagged entries and the base counters are not reset: a valid bit per entry
// says whether they hold data (an invalid base counter reads as 1; an
// invalid tagged entry never hits, is always allocatable, and its u is never
// decayed — a failed allocation implies that all the entries it decays are
// valid — so its fields are unobservable until an allocation writes them).
//
// Per-port vectors are flat (port p's pc is pc_i[64*p +: 64]), the same bit
// layout as a packed [P-1:0][63:0] array: Yosys 0.23 cannot parse
// multi-dimensional packed arrays.
`include "tm_assert.svh"

module tm_tage #(
  parameter int unsigned BASE    = 256,  // base counters: 2^k, 2 .. 16384
  parameter int unsigned TABLES  = 3,    // tagged tables: 1 .. 8
  parameter int unsigned ENTRIES = 32,   // entries per tagged table: 2^k, 2 .. 4096
  parameter int unsigned TAG     = 7,    // tag bits: 4 .. 16
  parameter int unsigned LMIN    = 3,    // history length of table 1
  parameter int unsigned LMAX    = 24,   // history length of table TABLES: LMIN .. 128
  parameter int unsigned P       = 1     // sequential ports per cycle
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clear_i,
  input  logic [P-1:0]      valid_i,
  input  logic [P-1:0]      ind_i,
  input  logic [64*P-1:0]   pc_i,
  input  logic [P-1:0]      taken_i,
  input  logic [64*P-1:0]   target_i,
  output logic [P-1:0]      pred_o
);

  if (BASE < 2 || BASE > 16384 || (BASE & (BASE - 1)) != 0 || TABLES < 1 || TABLES > 8 ||
      ENTRIES < 2 || ENTRIES > 4096 || (ENTRIES & (ENTRIES - 1)) != 0 || TAG < 4 || TAG > 16 ||
      LMIN < 1 || LMIN > LMAX || LMAX > 128 || P < 1) begin : g_bad_cfg
    $fatal(1, "tm_tage: BASE %0d TABLES %0d ENTRIES %0d TAG %0d LMIN %0d LMAX %0d P %0d out of range",
           BASE, TABLES, ENTRIES, TAG, LMIN, LMAX, P);
  end

  localparam int unsigned T  = TABLES;
  localparam int unsigned W  = TAG;
  localparam int unsigned EB = $clog2(ENTRIES);       // tagged index width
  localparam int unsigned BB = $clog2(BASE);          // base index width
  localparam int unsigned EW = TAG + 5;               // entry: {tag, u[1:0], ctr[2:0]}
  localparam int unsigned AW = $clog2(TABLES * ENTRIES);  // entry address (all tables)

  // Address of entry IDX of table I (0-based) in the entry arrays.
  function automatic logic [AW-1:0] taddr(int unsigned i, logic [EB-1:0] idx);
    taddr = AW'(i * ENTRIES) | AW'(idx);
  endfunction

  // ---- state ----
  logic [EW-1:0]      ent_q [T*ENTRIES];   // no reset: tvld_q says which entries hold data
  logic [T*ENTRIES-1:0] tvld_q;
  logic [1:0]         base_q [BASE];       // no reset: bvld_q says which counters hold data
  logic [BASE-1:0]    bvld_q;
  logic [3:0]         use_alt_q;

  // ---- history: every port's index and tag per table ----
  // Per port p and table i (0-based; o = T*p + i), from the history as left
  // by the valid ports < p; the history itself depends on the inputs only
  // (outcomes and indirect targets), not on the predictions.
  logic [EB*T*P-1:0]  lk_idx;   // [EB*o +: EB]
  logic [W*T*P-1:0]   lk_tag;   // [W*o +: W]

  tm_hist #(.TABLES (TABLES), .ENTRIES (ENTRIES), .TAG (TAG), .LMIN (LMIN), .LMAX (LMAX), .P (P))
  u_hist (
    .clk_i, .rst_ni, .clear_i, .valid_i, .ind_i, .pc_i, .taken_i, .target_i,
    .idx_o (lk_idx), .tag_o (lk_tag)
  );

  // ---- lookup and update, port by port ----
  // Per port p and table i (0-based; o = T*p + i): the entry as port p sees
  // it and as it leaves it.
  logic [T*P-1:0]     cur_v;    // [o]
  logic [T*P-1:0]     nxt_v;
  logic [EW*T*P-1:0]  cur_e;    // [EW*o +: EW]
  logic [EW*T*P-1:0]  nxt_e;
  logic [BB*P-1:0]    bidx;     // base index of port p
  logic [2*P-1:0]     cur_b;    // base counter as port p sees it
  logic [2*P-1:0]     nxt_b;    // and as it leaves it
  logic [4*(P+1)-1:0] ua_v;     // USE_ALT port p sees; [4*P +: 4]: after all ports
  logic [P-1:0]       wen;      // port p is a conditional branch: it writes its entries back
  // Working values of one port.
  logic [63:0]        l_pc;
  logic [T-1:0]       l_hit;
  logic [3:0]         l_prov, l_alt;     // tables 1..T, 0 = base
  logic [4:0]         l_pe;              // provider entry's {u, ctr}
  logic               l_ap;              // the alternate table's prediction (ctr >= 4)
  logic               l_basepred, l_provpred, l_altpred, l_weak, l_usealt, l_pred, l_t, l_found;
  logic [3:0]         l_ua;
  logic [2:0]         l_ctr;
  logic [1:0]         l_u;

  always_comb begin
    // Whole-vector defaults first: every element is written before it is read.
    cur_v      = '0;
    nxt_v      = '0;
    cur_e      = '0;
    nxt_e      = '0;
    bidx       = '0;
    cur_b      = '0;
    nxt_b      = '0;
    ua_v       = '0;
    ua_v[0 +: 4] = use_alt_q;
    wen        = '0;
    pred_o     = '0;
    l_pc       = '0;
    l_hit      = '0;
    l_prov     = '0;
    l_alt      = '0;
    l_pe       = '0;
    l_ap       = 1'b0;
    l_basepred = 1'b0;
    l_provpred = 1'b0;
    l_altpred  = 1'b0;
    l_weak     = 1'b0;
    l_usealt   = 1'b0;
    l_pred     = 1'b0;
    l_t        = 1'b0;
    l_found    = 1'b0;
    l_ua       = '0;
    l_ctr      = '0;
    l_u        = '0;
    for (int unsigned p = 0; p < P; p++) begin
      l_pc   = pc_i[64*p +: 64];
      l_t    = taken_i[p];
      wen[p] = valid_i[p] & ~ind_i[p];

      // Lookup: every table's entry, forwarded from the latest earlier port
      // of this cycle that wrote it.
      l_hit = '0;
      for (int unsigned i = 0; i < T; i++) begin
        cur_v[T*p+i]             = tvld_q[taddr(i, lk_idx[EB*(T*p+i) +: EB])];
        cur_e[EW*(T*p+i) +: EW]  = ent_q[taddr(i, lk_idx[EB*(T*p+i) +: EB])];
        for (int unsigned q = 0; q < p; q++) begin
          if (wen[q] && lk_idx[EB*(T*q+i) +: EB] == lk_idx[EB*(T*p+i) +: EB]) begin
            cur_v[T*p+i]            = nxt_v[T*q+i];
            cur_e[EW*(T*p+i) +: EW] = nxt_e[EW*(T*q+i) +: EW];
          end
        end
        l_hit[i] = cur_v[T*p+i] && cur_e[EW*(T*p+i)+5 +: W] == lk_tag[W*(T*p+i) +: W];
      end
      bidx[BB*p +: BB] = BB'(l_pc ^ (l_pc >> BB));
      cur_b[2*p +: 2]  = bvld_q[bidx[BB*p +: BB]] ? base_q[bidx[BB*p +: BB]] : 2'd1;
      for (int unsigned q = 0; q < p; q++) begin
        if (wen[q] && bidx[BB*q +: BB] == bidx[BB*p +: BB]) cur_b[2*p +: 2] = nxt_b[2*q +: 2];
      end

      // Provider (highest hitting table) and alternate (next one below).
      l_prov = '0;
      l_alt  = '0;
      l_pe   = '0;
      l_ap   = 1'b0;
      for (int unsigned i = 0; i < T; i++) begin
        if (l_hit[i]) begin
          l_alt  = l_prov;
          l_ap   = l_pe[2];
          l_prov = 4'(i + 1);
          l_pe   = cur_e[EW*(T*p+i) +: 5];
        end
      end
      l_basepred = cur_b[2*p+1];
      l_provpred = (l_prov != '0) ? l_pe[2] : l_basepred;
      l_altpred  = (l_alt != '0) ? l_ap : l_basepred;
      l_weak     = (l_prov != '0) && (l_pe[2:0] == 3'd3 || l_pe[2:0] == 3'd4) && l_pe[4:3] == 2'd0;
      l_usealt   = l_weak && ua_v[4*p+3];  // USE_ALT >= 8
      l_pred     = l_usealt ? l_altpred : l_provpred;
      pred_o[p]  = wen[p] & l_pred;

      // 1. USE_ALT.
      l_ua = ua_v[4*p +: 4];
      if (wen[p] && l_weak && l_provpred != l_altpred) begin
        if (l_altpred == l_t) begin
          if (l_ua != 4'd15) l_ua = l_ua + 4'd1;
        end else if (l_ua != 4'd0) begin
          l_ua = l_ua - 4'd1;
        end
      end
      ua_v[4*(p+1) +: 4] = l_ua;

      // 2. Allocation above the provider on a misprediction, else u decay.
      nxt_v[T*p +: T]         = cur_v[T*p +: T];
      nxt_e[EW*T*p +: EW*T]   = cur_e[EW*T*p +: EW*T];
      if (l_pred != l_t && 32'(l_prov) < T) begin
        l_found = 1'b0;
        for (int unsigned i = 0; i < T; i++) begin
          if (i >= 32'(l_prov) && !l_found &&
              (!cur_v[T*p+i] || cur_e[EW*(T*p+i)+3 +: 2] == 2'd0)) begin
            l_found                 = 1'b1;
            nxt_v[T*p+i]            = 1'b1;
            nxt_e[EW*(T*p+i) +: EW] = {lk_tag[W*(T*p+i) +: W], 2'd0, l_t ? 3'd4 : 3'd3};
          end
        end
        if (!l_found) begin
          for (int unsigned i = 0; i < T; i++) begin
            if (i >= 32'(l_prov) && cur_e[EW*(T*p+i)+3 +: 2] != 2'd0) begin
              nxt_e[EW*(T*p+i)+3 +: 2] = cur_e[EW*(T*p+i)+3 +: 2] - 2'd1;
            end
          end
        end
      end

      // 3. The provider's ctr and u, else the base counter.
      for (int unsigned i = 0; i < T; i++) begin
        if (32'(l_prov) == i + 1) begin
          l_ctr = cur_e[EW*(T*p+i) +: 3];
          l_u   = cur_e[EW*(T*p+i)+3 +: 2];
          if (l_t) begin
            if (l_ctr != 3'd7) l_ctr = l_ctr + 3'd1;
          end else if (l_ctr != 3'd0) begin
            l_ctr = l_ctr - 3'd1;
          end
          if (l_provpred != l_altpred) begin
            if (l_provpred == l_t) begin
              if (l_u != 2'd3) l_u = l_u + 2'd1;
            end else if (l_u != 2'd0) begin
              l_u = l_u - 2'd1;
            end
          end
          nxt_e[EW*(T*p+i) +: 5] = {l_u, l_ctr};
        end
      end
      nxt_b[2*p +: 2] = cur_b[2*p +: 2];
      if (l_prov == '0) begin
        if (l_t) begin
          if (cur_b[2*p +: 2] != 2'd3) nxt_b[2*p +: 2] = cur_b[2*p +: 2] + 2'd1;
        end else if (cur_b[2*p +: 2] != 2'd0) begin
          nxt_b[2*p +: 2] = cur_b[2*p +: 2] - 2'd1;
        end
      end
      // 4. (The history: tm_hist.)
    end
  end

  // ---- registers ----
  // The entry arrays: in port order, a later port's entry wins (it already
  // includes the earlier updates).  A clear_i cycle writes nothing.
  always_ff @(posedge clk_i) begin
    for (int unsigned p = 0; p < P; p++) begin
      if (wen[p] && !clear_i) begin
        for (int unsigned i = 0; i < T; i++) begin
          ent_q[taddr(i, lk_idx[EB*(T*p+i) +: EB])] <= nxt_e[EW*(T*p+i) +: EW];
        end
        base_q[bidx[BB*p +: BB]] <= nxt_b[2*p +: 2];
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      // (bit by bit: these vectors may exceed 8k bits, where a '0 fill
      // draws Verilator's WIDTHCONCAT warning)
      for (int unsigned k = 0; k < T*ENTRIES; k++) tvld_q[k] <= 1'b0;
      for (int unsigned k = 0; k < BASE; k++) bvld_q[k] <= 1'b0;
      use_alt_q <= 4'd8;
    end else if (clear_i) begin
      // (bit by bit: these vectors may exceed 8k bits, where a '0 fill
      // draws Verilator's WIDTHCONCAT warning)
      for (int unsigned k = 0; k < T*ENTRIES; k++) tvld_q[k] <= 1'b0;
      for (int unsigned k = 0; k < BASE; k++) bvld_q[k] <= 1'b0;
      use_alt_q <= 4'd8;
    end else begin
      for (int unsigned p = 0; p < P; p++) begin
        if (wen[p]) begin
          for (int unsigned i = 0; i < T; i++) begin
            tvld_q[taddr(i, lk_idx[EB*(T*p+i) +: EB])] <= nxt_v[T*p+i];
          end
          bvld_q[bidx[BB*p +: BB]] <= 1'b1;
        end
      end
      use_alt_q <= ua_v[4*P +: 4];
    end
  end

`ifndef SYNTHESIS
  // Index ranges: a port that updates addresses an entry of table i within
  // the tables (i * ENTRIES .. (i + 1) * ENTRIES - 1) and a base counter
  // within the base.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni) begin
      for (int unsigned p = 0; p < P; p++) begin
        if (wen[p]) begin
          for (int unsigned i = 0; i < T; i++) begin
            `TM_ASSERT_I(TageEntryInRange, 32'(taddr(i, lk_idx[EB*(T*p+i) +: EB])) >= i * ENTRIES &&
                                           32'(taddr(i, lk_idx[EB*(T*p+i) +: EB])) < (i + 1) * ENTRIES)
          end
          `TM_ASSERT_I(TageBaseInRange, 32'(bidx[BB*p +: BB]) < BASE)
        end
      end
      `TM_ASSERT_I(TagePredOnlyCond, (pred_o & ~wen) == '0)
    end
  end
`endif

endmodule
