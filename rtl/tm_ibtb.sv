// tm — indirect branch target buffer with path information register of one
// predictor set (docs/spec.md §3.3).
//
// ENTRIES = 2 ways x Q sets (Q = ENTRIES / 2, K = log2 Q); each entry holds
// valid, an 8-bit tag and a 64-bit target; one LRU bit per set names the way
// to replace; the PIR has 8 + K bits.  Valid bits, LRU bits and the PIR
// reset to 0 (tags and targets need no reset).  For every
// port p with valid_i[p] (an ijump or icall at pc with actual target):
//   tag = (PIR ^ (pc >> 10)) & 0xFF,  set = ((PIR >> 8) ^ (pc >> 4)) & (Q - 1)
//   lookup: the valid way of the set with that tag gives pred_o[p] (hit_o[p]);
//   update: hit: that way's target = target, LRU = the other way;
//           miss: the LRU way = (valid, tag, target), LRU = the other way;
//   PIR = (((PIR << 2) ^ (pc >> 4)) | 1) & (2^(8+K) - 1).
// Ports are sequential within a cycle: port p sees the PIR and the sets as
// left by the valid ports < p of the same cycle (exactly as if the C model
// were called in port order).  hit_o / pred_o are combinational from the
// inputs and the registered state; updates take effect at the clock edge.
// hit_o[p] and pred_o[p] are 0 unless port p hits.  clear_i makes the next
// state the reset state (it overrides the updates of its own cycle; the
// predictions of that cycle still come from the current state).
//
// ENTRIES = 0: every lookup misses, there is no state.
//
// Per-port vectors are flat (port p's pc is pc_i[64*p +: 64]), the same bit
// layout as a packed [P-1:0][63:0] array: Yosys 0.23 cannot parse
// multi-dimensional packed arrays.
`include "tm_assert.svh"

module tm_ibtb #(
  parameter int unsigned ENTRIES = 64,  // 0 or a power of two, 2 .. 64
  parameter int unsigned P       = 1    // sequential ports per cycle
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              clear_i,
  input  logic [P-1:0]      valid_i,
  input  logic [64*P-1:0]   pc_i,
  input  logic [64*P-1:0]   target_i,
  output logic [P-1:0]      hit_o,
  output logic [64*P-1:0]   pred_o
);

  if (ENTRIES == 0) begin : g_none

    assign hit_o  = '0;
    assign pred_o = '0;

    logic unused_inputs;
    assign unused_inputs = ^{clk_i, rst_ni, clear_i, valid_i, pc_i, target_i};

  end else begin : g_btb

    localparam int unsigned Q  = ENTRIES / 2;
    localparam int unsigned K  = $clog2(Q);
    localparam int unsigned SW = (K > 0) ? K : 1;  // set index width (1 bit held at 0 for Q = 1)
    localparam int unsigned PW = 8 + K;            // PIR width
    localparam logic [SW-1:0] SMASK = SW'(Q - 1);

    // Set s: valid val[2*s +: 2], tags tag_q[s] (way w at bit 8*w), targets
    // tgt_q[s] (way w at bit 64*w), LRU lru[s].  Tags and targets have no
    // reset: a way's tag and target are only read while it is valid, and
    // every write that makes it valid writes both.
    logic [2*Q-1:0]   val_q;
    logic [15:0]      tag_q [Q];
    logic [127:0]     tgt_q [Q];
    logic [Q-1:0]     lru_q;
    logic [PW-1:0]    pir_q;

    logic [PW*(P+1)-1:0] pir_c;  // PIR port p sees: pir_c[PW*p +: PW]; the last: after all ports
    logic [SW*P-1:0]     set;    // set of port p
    logic [8*P-1:0]      tag;    // tag of port p
    // The set of port p as port p sees it (cur_*) and after its update (nxt_*).
    logic [2*P-1:0]      cur_val, nxt_val;
    logic [16*P-1:0]     cur_tag, nxt_tag;
    logic [128*P-1:0]    cur_tgt, nxt_tgt;
    logic [P-1:0]        cur_lru, nxt_lru;
    logic [2*P-1:0]      hit_way;
    logic [P-1:0]        way;    // the way port p writes

    always_comb begin
      // Whole-vector defaults first: every element is written before it is read.
      pir_c          = '0;
      pir_c[0 +: PW] = pir_q;
      set            = '0;
      tag            = '0;
      cur_val        = '0;
      cur_tag        = '0;
      cur_tgt        = '0;
      cur_lru        = '0;
      nxt_val        = '0;
      nxt_tag        = '0;
      nxt_tgt        = '0;
      nxt_lru        = '0;
      hit_way        = '0;
      way            = '0;
      hit_o          = '0;
      pred_o         = '0;
      for (int unsigned p = 0; p < P; p++) begin
        tag[8*p +: 8]   = pir_c[PW*p +: 8] ^ pc_i[64*p+10 +: 8];
        set[SW*p +: SW] = (SW'(pir_c[PW*p +: PW] >> 8) ^ pc_i[64*p+4 +: SW]) & SMASK;

        // The registered set, then the set as left by the latest earlier
        // valid port of this cycle that used the same set.
        cur_val[2*p +: 2]     = val_q[2*set[SW*p +: SW] +: 2];
        cur_tag[16*p +: 16]   = tag_q[set[SW*p +: SW]];
        cur_tgt[128*p +: 128] = tgt_q[set[SW*p +: SW]];
        cur_lru[p]            = lru_q[set[SW*p +: SW]];
        for (int unsigned q = 0; q < p; q++) begin
          if (valid_i[q] && set[SW*q +: SW] == set[SW*p +: SW]) begin
            cur_val[2*p +: 2]     = nxt_val[2*q +: 2];
            cur_tag[16*p +: 16]   = nxt_tag[16*q +: 16];
            cur_tgt[128*p +: 128] = nxt_tgt[128*q +: 128];
            cur_lru[p]            = nxt_lru[q];
          end
        end

        // Lookup (at most one way can hit; way 0 first, as the C model).
        for (int unsigned w = 0; w < 2; w++) begin
          hit_way[2*p+w] = cur_val[2*p+w] && cur_tag[16*p+8*w +: 8] == tag[8*p +: 8];
        end
        if (valid_i[p] && hit_way[2*p]) begin
          hit_o[p]           = 1'b1;
          pred_o[64*p +: 64] = cur_tgt[128*p +: 64];
        end else if (valid_i[p] && hit_way[2*p+1]) begin
          hit_o[p]           = 1'b1;
          pred_o[64*p +: 64] = cur_tgt[128*p+64 +: 64];
        end

        // Update: the hit way (the last one, as the C model), else the LRU way.
        way[p] = hit_way[2*p+1] ? 1'b1 : hit_way[2*p] ? 1'b0 : cur_lru[p];
        nxt_val[2*p +: 2]     = cur_val[2*p +: 2];
        nxt_tag[16*p +: 16]   = cur_tag[16*p +: 16];
        nxt_tgt[128*p +: 128] = cur_tgt[128*p +: 128];
        if (way[p]) begin
          nxt_val[2*p+1]              = 1'b1;
          nxt_tag[16*p+8 +: 8]        = tag[8*p +: 8];  // unchanged on a hit
          nxt_tgt[128*p+64 +: 64]     = target_i[64*p +: 64];
        end else begin
          nxt_val[2*p]                = 1'b1;
          nxt_tag[16*p +: 8]          = tag[8*p +: 8];
          nxt_tgt[128*p +: 64]        = target_i[64*p +: 64];
        end
        nxt_lru[p] = ~way[p];

        pir_c[PW*(p+1) +: PW] = valid_i[p]
            ? ((pir_c[PW*p +: PW] << 2) ^ pc_i[64*p+4 +: PW]) | PW'(1)
            : pir_c[PW*p +: PW];
      end
    end

    // In port order: a later port's value for the same set wins (it already
    // includes the earlier updates).  A clear_i cycle writes nothing.
    always_ff @(posedge clk_i) begin
      for (int unsigned p = 0; p < P; p++) begin
        if (valid_i[p] && !clear_i) begin
          tag_q[set[SW*p +: SW]] <= nxt_tag[16*p +: 16];
          tgt_q[set[SW*p +: SW]] <= nxt_tgt[128*p +: 128];
        end
      end
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        val_q <= '0;
        lru_q <= '0;
        pir_q <= '0;
      end else if (clear_i) begin
        val_q <= '0;
        lru_q <= '0;
        pir_q <= '0;
      end else begin
        for (int unsigned p = 0; p < P; p++) begin
          if (valid_i[p]) begin
            val_q[2*set[SW*p +: SW] +: 2] <= nxt_val[2*p +: 2];
            lru_q[set[SW*p +: SW]]        <= nxt_lru[p];
          end
        end
        pir_q <= pir_c[PW*P +: PW];
      end
    end

    // Only pc[17:4] (at most) reaches the tag, set and PIR.
    logic unused_pc;
    assign unused_pc = ^pc_i;

    // A hit only for a valid port; the set index within the sets; the two
    // ways of a set never hold the same tag (at most one way hits).
`ifndef SYNTHESIS
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (rst_ni) begin
        `TM_ASSERT_I(IbtbHitOnlyValid, (hit_o & ~valid_i) == '0)
        for (int unsigned p = 0; p < P; p++) begin
          if (valid_i[p]) begin
            `TM_ASSERT_I(IbtbSetInRange, 32'(set[SW*p +: SW]) < Q || (Q == 1 && set[SW*p +: SW] == '0))
            `TM_ASSERT_I(IbtbOneWayHits, !(hit_way[2*p] && hit_way[2*p+1]))
          end
        end
      end
    end
`endif

  end

endmodule
