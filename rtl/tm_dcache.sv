// tm — the CFiat data cache of one core (docs/spec.md §3.8): tags, valid
// bits, true LRU and first-access (FA) flags of a private cache, exactly as
// cmodel/cache.c (tm_cache_load / _store / _invalidate / _clear_flags) with
// shared = 0.  The shared organization (`cfiat_shared`) is not built in RTL.
//
// Geometry: SETS = SIZE / (LINE * ASSOC); an address a is in line a / LINE,
// set (a / LINE) mod SETS, tag a / (LINE * SETS); each way holds valid, tag
// and FPL = LINE / GRAN flags (flag k vouches for bytes k*GRAN .. k*GRAN +
// GRAN - 1 of the line).  An operand of size bytes (1..64) at addr covers the
// lines of bytes addr .. addr + size - 1, at most LMAX = (LINE + 62) / LINE + 1
// of them; the RTL requires SETS >= LMAX, so that they fall in distinct sets
// and are looked up and updated in parallel (elaboration error otherwise).
// An operand whose last byte would lie above 2^64 - 1 covers no line (the C
// model's loop runs zero times for it): it neither looks up nor changes
// anything, and its result is lines 0, all hit, flags hit, no report.
//
// One cycle, in the C model's order (cores in index order, spec §3.8):
//   1. the stores of the other cores that come before this core
//      (inv_before_i = 1): each clears every flag of each line it covers
//      that this cache holds (valid, same tag); tags and LRU are unchanged;
//   2. the own access (valid_i), line by line in address order:
//      hit: the way holding the line (valid, same tag);
//      miss: fill the highest-numbered invalid way, else the least recently
//      used one; the filled line's flags are clear;
//      the way becomes the most recently used;
//      load: the line's flags hit iff it hit and every touched granule's
//      flag is set; then the flags of the fully covered granules are set;
//      store: the fully covered granules' flags are set; a touched granule
//      that is not fully covered keeps its flag only if it is valid for the
//      storing thread, which in a private cache is every set flag: it keeps
//      it (cache.c's `flags &= ~(part & ~valid_for(part))` is the identity);
//   3. the stores of the other cores that come after (inv_before_i = 0),
//      which see the tags as the own access left them (a line it just
//      filled is invalidated, a line it evicted is not held any more);
//   4. clear_i: every flag is cleared (the end of the cycle).
// Results of the own access (combinational, from this cycle's inputs and
// the registered state): lines_o, all_hit_o, flags_hit_o (1 for a store),
// report_o (a load with a missed line or a flag that did not hit); per line
// i < lines_o: line_hit_o[i], line_way_o (the way hit or filled: as
// tm_cache_last_ways), line_fall_o[i] / line_fany_o[i] (the line hit and
// all / some of its touched granules' flags were set, as the lookup saw
// them after step 1).  inv_lines_o: per invalidation port, the lines it
// covers that the cache held when it was applied (tm_cache_invalidate's
// result).  Everything is 0 for ports that are not valid and for lines
// >= lines_o.  State changes at the clock edge that ends the cycle.
//
// Storage: tags and flags are arrays of one entry per way (way w of set s
// is entry {s, w}), the LRU bits an array of one entry per set, all without
// reset (`tag_q`, `flg_q`, `lru_q`); valid bits (`val_q`) and flag-valid
// bits (`fok_q`, one per way) are registers with reset.  A way's flags read
// as 0 unless its fok bit is set, so an invalidation clears one fok bit and
// clear_i (and reset) clears all of them: the flag array itself is only
// written by the own access, one entry per line.  True LRU: one "older" bit
// per pair of ways (i < j: way i was used less recently than way j); an
// access of way w sets (i, w) for i < w and clears (w, j) for j > w; the
// LRU way is the one older than every other.  The bits have no reset: a
// victim is only chosen from them when every way of the set is valid, and
// every valid way was filled (an access) since the reset, so every pair is
// then defined.  Invalid ways exist only after reset (invalidation does not
// invalidate ways); the highest-numbered one is filled first, as in C.
//
// Invalidation ports: NI = max(1, N - 1), port j = one other core's store
// of the cycle (inv_valid_i[j], inv_addr_i[64*j +: 64], inv_size_i[7*j +:
// 7], inv_before_i[j] = that core's index is lower than this core's).  With
// N = 1 the ports are ignored.
//
// Per-port and per-line vectors are flat (line i's way is line_way_o[WW*i +:
// WW]): Yosys 0.23 cannot parse multi-dimensional packed arrays.
`include "tm_assert.svh"

module tm_dcache #(
  parameter int unsigned SIZE  = 32768,  // bytes, 2^k
  parameter int unsigned ASSOC = 4,      // ways, 2^k, 1 .. 64
  parameter int unsigned LINE  = 32,     // bytes, 2^k, 4 .. 4096
  parameter int unsigned GRAN  = 4,      // bytes per flag, 2^k, LINE / 64 .. LINE
  parameter int unsigned N     = 1,      // cores (N - 1 invalidation ports)
  // Derived; do not override.
  parameter int unsigned LMAX  = (LINE + 62) / LINE + 1,      // most lines of one operand
  parameter int unsigned NI    = (N > 1) ? N - 1 : 1,         // invalidation ports
  parameter int unsigned LNW   = $clog2(LMAX + 1),            // a count of lines 0 .. LMAX
  parameter int unsigned WW    = (ASSOC > 1) ? $clog2(ASSOC) : 1  // a way number
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                clear_i,
  // The own core's memory operand of the cycle.
  input  logic                valid_i,
  input  logic                store_i,
  input  logic [63:0]         addr_i,
  input  logic [6:0]          size_i,         // 1 .. 64
  // The other cores' stores of the cycle.
  input  logic [NI-1:0]       inv_valid_i,
  input  logic [NI-1:0]       inv_before_i,
  input  logic [64*NI-1:0]    inv_addr_i,
  input  logic [7*NI-1:0]     inv_size_i,
  // Results of the own access.
  output logic [LNW-1:0]      lines_o,
  output logic                all_hit_o,
  output logic                flags_hit_o,
  output logic                report_o,
  output logic [LMAX-1:0]     line_hit_o,
  output logic [WW*LMAX-1:0]  line_way_o,
  output logic [LMAX-1:0]     line_fall_o,
  output logic [LMAX-1:0]     line_fany_o,
  // Lines each invalidation found held.
  output logic [LNW*NI-1:0]   inv_lines_o
);

  localparam int unsigned SETS = SIZE / (LINE * ASSOC);
  localparam int unsigned FPL  = LINE / GRAN;                 // flags per line
  localparam int unsigned LS   = $clog2(LINE);                // line offset bits
  localparam int unsigned SS   = $clog2(SETS);                // set index bits (>= 1)
  localparam int unsigned GS   = $clog2(GRAN);
  localparam int unsigned SW   = (SS > 0) ? SS : 1;
  localparam int unsigned LNUM = 64 - LS;                     // line number bits
  localparam int unsigned TAGW = 64 - LS - SW;
  localparam int unsigned LRUW = (ASSOC > 1) ? ASSOC * (ASSOC - 1) / 2 : 1;

  // ---- supported geometry (docs/rtl.md) ----
  localparam bit POW2 = SIZE != 0 && (SIZE & (SIZE - 1)) == 0 && ASSOC != 0 &&
                        (ASSOC & (ASSOC - 1)) == 0 && LINE != 0 && (LINE & (LINE - 1)) == 0 &&
                        GRAN != 0 && (GRAN & (GRAN - 1)) == 0;
  if (!POW2 || LINE < 4 || LINE > 4096 || ASSOC > 64 || GRAN > LINE || LINE / GRAN > 64 ||
      SIZE < LINE * ASSOC || SIZE > (64 << 20)) begin : g_bad_cfg
    $fatal(1, "tm_dcache: SIZE %0d ASSOC %0d LINE %0d GRAN %0d is not a cache of spec 3.8",
           SIZE, ASSOC, LINE, GRAN);
  end
  if (SETS < LMAX) begin : g_bad_sets
    $fatal(1, "tm_dcache: %0d sets, but an operand covers up to %0d lines of %0d bytes: the RTL needs at least that many sets",
           SETS, LMAX, LINE);
  end
  if (N < 1) begin : g_bad_n
    $fatal(1, "tm_dcache: N = %0d", N);
  end

  // Pair (i, j), i < j, of the LRU bits.
  function automatic int unsigned pidx(int unsigned i, int unsigned j);
    pidx = i * ASSOC - (i * (i + 1)) / 2 + (j - i - 1);
  endfunction

  // Granules k of a line with k*GRAN .. k*GRAN + GRAN - 1 inside bytes
  // lo .. hi (full = 1) or meeting them (full = 0).
  function automatic logic [FPL-1:0] gmask(int unsigned lo, int unsigned hi, bit full);
    int unsigned first, past;
    logic [FPL-1:0] ones;
    ones  = '1;
    first = full ? (lo + GRAN - 1) >> GS : lo >> GS;
    past  = full ? (hi + 1) >> GS : (hi >> GS) + 1;
    gmask = (first >= FPL ? '0 : ones << first) & ~(past >= FPL ? '0 : ones << past);
  endfunction

  // Entry of way w of set s in the per-way arrays and bit vectors: s*ASSOC + w,
  // written as a concatenation ({s, w} for ASSOC > 1) so that a lookup of a
  // fixed way is a fixed wiring of the set index.
  localparam int unsigned AW = $clog2(ASSOC);
  function automatic int unsigned ent(logic [SW-1:0] s, int unsigned w);
    ent = (32'(s) << AW) | w;
  endfunction

  // ---- state ----
  logic [TAGW-1:0]        tag_q [SETS*ASSOC];  // no reset: read only while the way is valid
  logic [FPL-1:0]         flg_q [SETS*ASSOC];  // no reset: read only while its fok_q bit is set
  logic [LRUW-1:0]        lru_q [SETS];        // no reset: see above
  logic [SETS*ASSOC-1:0]  val_q;               // the way is valid
  logic [SETS*ASSOC-1:0]  fok_q;               // its flags are valid

  // ---- the own access, per line i < nl ----
  logic [63:0]          last;      // address of the operand's last byte
  logic [LNW-1:0]       nl;
  logic [64*LMAX-1:0]   lnum;      // line number (64-bit slots)
  logic [SW*LMAX-1:0]   lset;
  logic [LMAX-1:0]      lwe;       // line i is accessed
  logic [LMAX-1:0]      lhit;
  logic [WW*LMAX-1:0]   lway;      // way hit or filled
  logic [LMAX-1:0]      llow;      // a store of a lower core covers the line
  logic [LMAX-1:0]      lhigh;     // a store of a higher core covers the line
  logic [FPL*LMAX-1:0]  lflg;      // the line's flags after the access
  logic [LMAX-1:0]      lok;       // and whether they stay valid
  logic [LRUW*LMAX-1:0] llru;      // its set's LRU bits after the access
  // ---- the invalidations, per port j and line k (index LMAX*j + k) ----
  logic [SW*NI*LMAX-1:0] iset;
  logic [WW*NI*LMAX-1:0] iway;     // way holding the line before the own access
  logic [NI*LMAX-1:0]    iclr;     // clear that way's flags

  // Temporaries of the always_comb below (every one is written before it
  // is read there).
  logic [ASSOC-1:0] vrow;
  logic [LRUW-1:0]  lrow;
  logic [TAGW-1:0]  tag;
  logic [FPL-1:0]   seen, touch, full;
  logic [63:0]      iln, ilast;
  logic [SW-1:0]    set;
  logic [12:0]      off;
  logic [LNW-1:0]   inl, cnt;
  logic             ok, ihit, conflict, own;
  logic [WW-1:0]    v;
  int unsigned      w, lo, hi;

  always_comb begin
    last        = '0;
    nl          = '0;
    lnum        = '0;
    lset        = '0;
    lwe         = '0;
    lhit        = '0;
    lway        = '0;
    llow        = '0;
    lhigh       = '0;
    lflg        = '0;
    lok         = '0;
    llru        = '0;
    iset        = '0;
    iway        = '0;
    iclr        = '0;
    lines_o     = '0;
    all_hit_o   = 1'b0;
    flags_hit_o = 1'b0;
    report_o    = 1'b0;
    line_hit_o  = '0;
    line_way_o  = '0;
    line_fall_o = '0;
    line_fany_o = '0;
    inv_lines_o = '0;
    vrow        = '0;
    lrow        = '0;
    tag         = '0;
    seen        = '0;
    touch       = '0;
    full        = '0;
    iln         = '0;
    ilast       = '0;
    set         = '0;
    off         = '0;
    inl         = '0;
    cnt         = '0;
    ok          = 1'b0;
    ihit        = 1'b0;
    conflict    = 1'b0;
    own         = 1'b0;
    v           = '0;
    w           = 0;
    lo          = 0;
    hi          = 0;

    // 1. The own access: lookup and victim (tags, valid bits and LRU bits
    // are not changed by invalidations, so their order does not matter).
    if (valid_i) begin
      last = addr_i + 64'(size_i) - 64'd1;
      off  = 13'(addr_i[LS-1:0]) + 13'(size_i) - 13'd1;
      nl   = (last < addr_i) ? '0 : LNW'((off >> LS) + 13'd1);  // none past 2^64 - 1
      for (int unsigned i = 0; i < LMAX; i++) begin
        if (i < 32'(nl)) begin
          lwe[i]               = 1'b1;
          lnum[64*i +: 64]     = 64'(addr_i[63:LS]) + 64'(i);
          set                  = lnum[64*i +: SW];
          tag                  = TAGW'(lnum[64*i +: 64] >> SW);
          lset[SW*i +: SW]     = set;
          vrow                 = val_q[ent(set, 0) +: ASSOC];
          lrow                 = lru_q[set];
          w                    = 0;
          for (int unsigned k = 0; k < ASSOC; k++) begin
            if (vrow[k] && tag_q[ent(set, k)] == tag) begin
              lhit[i] = 1'b1;
              w       = k;
            end
          end
          if (!lhit[i]) begin
            if (!(&vrow)) begin
              for (int unsigned k = 0; k < ASSOC; k++) begin
                if (!vrow[k]) w = k;  // the highest invalid way
              end
            end else begin
              for (int unsigned k = 0; k < ASSOC; k++) begin
                ok = 1'b1;  // way k is older than every other way
                for (int unsigned j = 0; j < ASSOC; j++) begin
                  if (j < k) ok = ok & ~lrow[pidx(j, k)];
                  if (j > k) ok = ok & lrow[pidx(k, j)];
                end
                if (ok) w = k;
              end
            end
          end
          lway[WW*i +: WW] = WW'(w);
          for (int unsigned k = 0; k < ASSOC; k++) begin
            if (k < w) lrow[pidx(k, w)] = 1'b1;
            if (k > w) lrow[pidx(w, k)] = 1'b0;
          end
          llru[LRUW*i +: LRUW] = lrow;
        end
      end
    end

    // 2. The invalidations: lookup in the tags before the own access.
    if (N > 1) begin
      for (int unsigned j = 0; j < NI; j++) begin
        if (inv_valid_i[j]) begin
          ilast = inv_addr_i[64*j +: 64] + 64'(inv_size_i[7*j +: 7]) - 64'd1;
          off   = 13'(inv_addr_i[64*j +: LS]) + 13'(inv_size_i[7*j +: 7]) - 13'd1;
          inl   = (ilast < inv_addr_i[64*j +: 64]) ? '0 : LNW'((off >> LS) + 13'd1);
          cnt   = '0;
          for (int unsigned k = 0; k < LMAX; k++) begin
            if (k < 32'(inl)) begin
              iln  = 64'(inv_addr_i[64*j+LS +: LNUM]) + 64'(k);
              set  = iln[SW-1:0];
              tag  = TAGW'(iln >> SW);
              vrow = val_q[ent(set, 0) +: ASSOC];
              ihit = 1'b0;
              v    = '0;
              for (int unsigned q = 0; q < ASSOC; q++) begin
                if (vrow[q] && tag_q[ent(set, q)] == tag) begin
                  ihit = 1'b1;
                  v    = WW'(q);
                end
              end
              iset[SW*(LMAX*j+k) +: SW] = set;
              iway[WW*(LMAX*j+k) +: WW] = v;
              // The own access writes the same way: it hit this very line
              // (its own flags logic applies the clear) or it evicts it.
              conflict = 1'b0;
              own      = 1'b0;
              for (int unsigned i = 0; i < LMAX; i++) begin
                if (lwe[i] && lset[SW*i +: SW] == set && lway[WW*i +: WW] == v) conflict = 1'b1;
                if (lwe[i] && lnum[64*i +: 64] == iln) begin
                  own = 1'b1;
                  if (inv_before_i[j]) llow[i] = 1'b1;
                  else lhigh[i] = 1'b1;
                end
              end
              iclr[LMAX*j+k] = ihit & ~conflict;
              // Held when applied: before the own access, or after it (a
              // line it evicted is gone, a line it accessed is there).
              if (inv_before_i[j] ? ihit : (ihit & ~conflict) | own) cnt = cnt + LNW'(1);
            end
          end
          inv_lines_o[LNW*j +: LNW] = cnt;
        end
      end
    end

    // 3. The own access: flags, results.
    if (valid_i) begin
      lines_o     = nl;
      all_hit_o   = 1'b1;
      flags_hit_o = 1'b1;
      for (int unsigned i = 0; i < LMAX; i++) begin
        if (lwe[i]) begin
          set   = lset[SW*i +: SW];
          w     = 32'(lway[WW*i +: WW]);
          lo    = (i == 0) ? 32'(addr_i[LS-1:0]) : 0;
          hi    = (i + 1 == 32'(nl)) ? 32'(last[LS-1:0]) : LINE - 1;
          touch = gmask(lo, hi, 1'b0);
          full  = gmask(lo, hi, 1'b1);
          // The flags as the lookup sees them: none on a miss, none if a
          // lower core's store cleared them.
          seen  = (lhit[i] && fok_q[ent(set, w)] && !llow[i]) ? flg_q[ent(set, w)] : '0;
          lflg[FPL*i +: FPL] = seen | full;
          lok[i]         = ~lhigh[i];
          line_hit_o[i]  = lhit[i];
          line_fall_o[i] = lhit[i] && (seen & touch) == touch;
          line_fany_o[i] = lhit[i] && (seen & touch) != '0;
          if (!lhit[i]) all_hit_o = 1'b0;
          if (!store_i && lhit[i] && (seen & touch) != touch) flags_hit_o = 1'b0;
        end
      end
      line_way_o = lway;
      report_o   = !store_i && !(all_hit_o && flags_hit_o);
    end
  end

  // The accessed lines' entries (in distinct sets).  A hit leaves the tag.
  always_ff @(posedge clk_i) begin
    for (int unsigned i = 0; i < LMAX; i++) begin
      if (lwe[i]) begin
        if (!lhit[i]) begin
          tag_q[ent(lset[SW*i +: SW], 32'(lway[WW*i +: WW]))] <= TAGW'(lnum[64*i +: 64] >> SW);
        end
        flg_q[ent(lset[SW*i +: SW], 32'(lway[WW*i +: WW]))] <= lflg[FPL*i +: FPL];
        lru_q[lset[SW*i +: SW]] <= llru[LRUW*i +: LRUW];
      end
    end
  end

  // Valid and flag-valid bits.  The invalidations' clears never meet a way
  // the own access writes (iclr excludes it); clear_i comes last.  A cache
  // of more than 8192 lines clears more than 8192 bits at once.
  /* verilator lint_off WIDTHCONCAT */
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      val_q <= '0;
      fok_q <= '0;
    end else begin
      for (int unsigned m = 0; m < NI * LMAX; m++) begin
        if (iclr[m]) fok_q[ent(iset[SW*m +: SW], 32'(iway[WW*m +: WW]))] <= 1'b0;
      end
      for (int unsigned i = 0; i < LMAX; i++) begin
        if (lwe[i]) begin
          val_q[ent(lset[SW*i +: SW], 32'(lway[WW*i +: WW]))] <= 1'b1;
          fok_q[ent(lset[SW*i +: SW], 32'(lway[WW*i +: WW]))] <= lok[i];
        end
      end
      if (clear_i) fok_q <= '0;
    end
  end
  /* verilator lint_on WIDTHCONCAT */

  // With N = 1 there are no invalidations; of the line numbers and last
  // addresses only the bits named above are used.
  logic unused_bits;
  assign unused_bits = ^{inv_valid_i, inv_before_i, inv_addr_i, inv_size_i, last, ilast, iln, lnum};

`ifndef SYNTHESIS
  // Recomputed from the state, for every line an access touches: at most
  // one valid way holds its tag (one-hot hits: a line is never cached
  // twice), and a hit is on that way; in a full set (every way valid, so
  // every way was touched since reset) the LRU bits are a strict order of
  // the ways: the number of ways older than way k, over k, is a permutation
  // of 0 .. ASSOC - 1 (bit pidx(j, k), j < k: way j is older than way k).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (rst_ni && valid_i) begin : chk
      logic [ASSOC-1:0] hits;
      logic [ASSOC-1:0] vr;
      logic [ASSOC-1:0] ranks;
      logic [LRUW-1:0]  lr;
      logic [SW-1:0]    s;
      int unsigned      older;
      for (int unsigned i = 0; i < LMAX; i++) begin
        if (lwe[i]) begin
          s    = lset[SW*i +: SW];
          vr   = val_q[ent(s, 0) +: ASSOC];
          hits = '0;
          for (int unsigned k = 0; k < ASSOC; k++) begin
            hits[k] = vr[k] && tag_q[ent(s, k)] == TAGW'(lnum[64*i +: 64] >> SW);
          end
          `TM_ASSERT_I(DcacheHitOneHot, $onehot0(hits))
          `TM_ASSERT_I(DcacheHitWay, lhit[i] == (hits != '0) && (!lhit[i] || hits[lway[WW*i +: WW]]))
          if (ASSOC > 1 && &vr) begin
            lr    = lru_q[s];
            ranks = '0;
            for (int unsigned k = 0; k < ASSOC; k++) begin
              older = 0;
              for (int unsigned j = 0; j < ASSOC; j++) begin
                if (j < k && lr[pidx(j, k)]) older++;
                if (j > k && !lr[pidx(k, j)]) older++;
              end
              ranks[older] = 1'b1;
            end
            `TM_ASSERT_I(DcacheLruPermutation, &ranks)
          end
        end
      end
    end
  end
`endif

endmodule
