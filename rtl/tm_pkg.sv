// tm — shared types and constants of the trace module RTL (docs/spec.md §3-§4).
package tm_pkg;

  // Message kinds (spec §4.3)
  typedef enum logic [1:0] {
    MSG_BRANCH = 2'd0,
    MSG_EXC    = 2'd1,
    MSG_SYNC   = 2'd2,
    MSG_END    = 2'd3
  } msg_kind_e;

  // SYNC reasons and END kinds
  localparam logic [1:0] SYNC_START    = 2'd0;
  localparam logic [1:0] SYNC_TRACE_ON = 2'd1;
  localparam logic [1:0] SYNC_OVERFLOW = 2'd2;
  localparam logic [1:0] END_EXIT      = 2'd0;
  localparam logic [1:0] END_STOP      = 2'd1;

  // Encodings (tr_b and tr_e differ only in their chunk sizes; tr_a has the
  // adaptive codes of spec §4.9)
  localparam int unsigned ENC_NX_B = 0;
  /* verilator lint_off UNUSEDPARAM */  // named for completeness: only nx_b is tested for
  localparam int unsigned ENC_TR_B = 1;
  /* verilator lint_on UNUSEDPARAM */
  localparam int unsigned ENC_TR_E = 2;
  localparam int unsigned ENC_TR_A = 3;

  // tr_a (spec §4.9): each thread's two 16-bit accumulators A_cnt and A_cc,
  // 32 at reset and after an accepted SYNC; an accepted message folds its
  // value v in as A <- A - (A >> 3) + min(v, 8191), so A <= 65528.
  localparam logic [15:0] ADAPT_INIT = 16'd32;
  localparam int unsigned ADAPT_CAP  = 8191;
  // The largest order an accumulator gives: floor(log2(65528 >> 3)).
  localparam int unsigned ADAPT_KMAX = 12;
  // The longest Exp-Golomb code: 2^64 - 1 in order 0 (2 * 64 + 1 bits).
  localparam int unsigned EG_W = 129;
  // Each thread's third accumulator TF (9 bits, 0 at reset and after an
  // accepted SYNC), the share of target mispredictions among its accepted
  // BRANCH messages: TF <- TF - (TF >> 4) + (16 if a target misprediction),
  // so TF <= 256.  It chooses the form of the message kind (adapt_escape).
  localparam logic [8:0] ADAPT_TF_INIT  = 9'd0;
  localparam int unsigned ADAPT_TF_SHIFT = 4;
  localparam int unsigned ADAPT_TF_ONE   = 16;
  localparam int unsigned ADAPT_TF_MAX   = 256;

  // Branch classes (commit stream, spec §2.2)
  typedef enum logic [2:0] {
    BR_COND  = 3'd0,
    BR_JUMP  = 3'd1,
    BR_CALL  = 3'd2,
    BR_IJUMP = 3'd3,
    BR_ICALL = 3'd4,
    BR_RET   = 3'd5
  } br_class_e;

  // Retire events (one per core per cycle at most)
  typedef enum logic [2:0] {
    EV_NONE   = 3'd0,
    EV_START  = 3'd1,
    EV_EXIT   = 3'd2,
    EV_BRANCH = 3'd3,
    EV_EXC    = 3'd4
  } ev_e;

  // One message with every field of every kind; fields a kind does not carry
  // are 0.  ti is wide enough for 1024 threads.
  typedef struct packed {
    msg_kind_e   kind;
    logic [9:0]  ti;
    logic [63:0] cnt;      // BRANCH: bCnt or SL (>= 1)
    logic        t;        // BRANCH: target follows
    logic [63:0] diff_ta;  // BRANCH with t, EXC (two's complement)
    logic [63:0] icnt;     // EXC, SYNC(OVERFLOW), END
    logic [63:0] gap;      // SYNC(OVERFLOW), END with lost
    logic [63:0] addr;     // SYNC
    logic [1:0]  reason;   // SYNC reason, END X bit (END_EXIT/END_STOP)
    logic        lost;     // END: L
    logic        dropped;  // D
    logic [63:0] diff_cc;  // with time stamps
  } msg_t;

  // Bits of a chunked field (spec §4.2) holding V with chunk sizes (A, B).
  function automatic int unsigned chunked_len(logic [63:0] v, int unsigned a, int unsigned b);
    int unsigned nbits;
    int unsigned n;
    nbits = 0;
    for (int i = 0; i < 64; i++) begin
      if (v[i]) nbits = i + 1;
    end
    n = a + 1;
    if (nbits > a) n += ((nbits - a + b - 1) / b) * (b + 1);
    chunked_len = n;
  endfunction

  // Width of Ti for N threads: ceil(log2 N).
  function automatic int unsigned ti_bits(int unsigned n);
    int unsigned w;
    w = 0;
    while ((1 << w) < n) w++;
    ti_bits = w;
  endfunction

  // Longest control message (spec §4.6): SYNC(OVERFLOW) with 64-bit
  // counters; with data tracing (spec §4.8) one bit more (the class bit Q).
  function automatic int unsigned msg_max_bits(int unsigned tiw, bit ts, int unsigned ca, int unsigned cb,
                                               int unsigned ha, int unsigned hb);
    int unsigned n;
    n = tiw + (ca + 1) + 2 + 2 + 1 + 2 * chunked_len(64'hFFFF_FFFF_FFFF_FFFF, ca, cb) + 64;
    if (ts) n += chunked_len(64'hFFFF_FFFF_FFFF_FFFF, ha, hb);
    msg_max_bits = n;
  endfunction

  // Longest DATA message (spec §4.8): Ti, Q, fahCnt = 2^64 - 1, 64 bytes.
  function automatic int unsigned data_max_bits(int unsigned tiw, int unsigned fa, int unsigned fb);
    data_max_bits = tiw + 1 + chunked_len(64'hFFFF_FFFF_FFFF_FFFF, fa, fb) + 512;
  endfunction

  // A chunked field of a 64-bit value with chunks of 1..32 bits is at most
  // 128 bits long (a = b = 1: 64 data bits + 64 connect bits).
  localparam int unsigned CHUNK_W = 128;

  // Full-width chunked encoding of v with chunk sizes (a, b) (spec §4.2):
  // the first a data bits, then per group g the connect bit
  // C_g = (v >> (a + g*b)) != 0 followed by the b data bits of chunk g + 1.
  // A group with C_g = 0 is all zeros (its data bits are 0 as well), so only
  // the groups with C_g = 1 are ORed in, and the result is 0 above its
  // length (chunk_len) without masking.
  function automatic logic [CHUNK_W-1:0] chunk_enc(logic [63:0] v, int unsigned a, int unsigned b);
    logic [CHUNK_W-1:0] e;
    logic [63:0]        r, d;
    d = v & ((64'd1 << a) - 64'd1);
    e = CHUNK_W'(d);
    for (int unsigned g = 0; g < 64; g++) begin
      if (a + g * b < 64) begin
        r = v >> (a + g * b);
        d = r & ((64'd1 << b) - 64'd1);
        if (r != '0) e = e | (CHUNK_W'({d, 1'b1}) << (a + g * (b + 1)));
      end
    end
    chunk_enc = e;
  endfunction

  // Length of the chunked encoding of v: a + 1, plus b + 1 per C_g = 1.
  function automatic int unsigned chunk_len(logic [63:0] v, int unsigned a, int unsigned b);
    int unsigned n;
    n = a + 1;
    for (int unsigned g = 0; g < 64; g++) begin
      if (a + g * b < 64) begin
        if (|(v >> (a + g * b))) n = n + b + 1;
      end
    end
    chunk_len = n;
  endfunction

  // ---- adaptive codes (tr_a, spec §4.9) ----

  // The order of accumulator A: floor(log2(A >> 3)), 0 when A >> 3 is 0.
  function automatic logic [3:0] adapt_k(logic [15:0] a);
    logic [3:0] k;
    k = '0;
    for (int unsigned i = 4; i < 16; i++) begin
      if (a[i]) k = 4'(i - 3);
    end
    adapt_k = k;
  endfunction

  // A after a message whose field is V: A - (A >> 3) + min(V, 8191), in 17
  // bits (bit 16 is never set: the callers assert it).
  function automatic logic [16:0] adapt_next(logic [15:0] a, logic [63:0] v);
    logic [16:0] add;
    add = (v < 64'(ADAPT_CAP)) ? 17'(v[12:0]) : 17'(ADAPT_CAP);
    adapt_next = 17'(a) - 17'(a[15:3]) + add;
  endfunction

  // TF after an accepted BRANCH (T: a target misprediction), in 10 bits
  // (bit 9 is never set: the callers assert it).
  function automatic logic [9:0] adapt_tf_next(logic [8:0] tf, logic t);
    adapt_tf_next = 10'(tf) - 10'(tf[8:ADAPT_TF_SHIFT]) + (t ? 10'(ADAPT_TF_ONE) : 10'd0);
  endfunction

  // The escape form of the message kind (no T bit; a target misprediction
  // is the cnt = 0 escape with K = 3) while TF x (k(A_cnt) + 3) < 256; else
  // the T-bit form (spec §4.9).  TF <= 256 and k <= 12: the product fits 12
  // bits.
  function automatic logic adapt_escape(logic [8:0] tf, logic [15:0] acnt);
    logic [11:0] p;
    p = 12'(tf) * (12'(adapt_k(acnt)) + 12'd3);
    adapt_escape = p < 12'd256;
  endfunction

  // Exp-Golomb code of V in order K (0 .. ADAPT_KMAX), LSB first: with
  // w = V + 2^K (65 bits) and n = floor(log2 w), n - K zeros, a one, then
  // the low n bits of w: 2n - K + 1 bits, 0 above them.  eg_len gives the
  // length (n from the same priority encoder).
  function automatic int unsigned eg_n(logic [63:0] v, logic [3:0] k);
    logic [64:0]  w;
    int unsigned  n;
    w = {1'b0, v} + (65'd1 << k);
    n = 0;
    for (int unsigned i = 0; i < 65; i++) begin
      if (w[i]) n = i;
    end
    eg_n = n;
  endfunction

  function automatic logic [EG_W-1:0] eg_enc(logic [63:0] v, logic [3:0] k);
    logic [64:0]  w;
    int unsigned  n;
    w = {1'b0, v} + (65'd1 << k);
    n = eg_n(v, k);
    // {the low n bits of w, the one}, shifted over the n - K zeros; bit n
    // of w (its leading one) is dropped
    w = w & ~(65'd1 << n);
    eg_enc = EG_W'({w[63:0], 1'b1}) << (n - 32'(k));
  endfunction

  function automatic int unsigned eg_len(logic [63:0] v, logic [3:0] k);
    eg_len = 2 * eg_n(v, k) - 32'(k) + 1;
  endfunction

  // The longest code of order K (2^64 - 1: n = 64).
  function automatic int unsigned eg_max_bits(int unsigned k);
    eg_max_bits = 129 - k;
  endfunction

  // The longest control messages of tr_a (spec §4.9 "Lengths"): every bound
  // taken over the states, as tm_msg_max_bits / tm_msg_reserve_bits compute
  // them: order ADAPT_KMAX for the cnt = 0 escape of the special messages,
  // order 0 for a target misprediction's bCnt in the escape form (TF = 0:
  // the escape then is 3 bits; the T-bit form is 2 bits shorter: T in place
  // of the escape and K) and for diffCC.  Without the class bit Q.
  //   target BRANCH: Ti, escape (3), bCnt (129), S, |diffTA| = 2^63
  //   EXC:           Ti, escape (13), K, iCnt, S, |diffTA| = 2^63
  //   SYNC(OVERFLOW): Ti, escape (13), K, R, D, iCnt, gap, ADDR
  //   END(lost):     shorter than SYNC(OVERFLOW) (X, L, D against R, D, ADDR)
  function automatic int unsigned reserve_bits_a(int unsigned tiw, bit ts, int unsigned ca, int unsigned cb);
    int unsigned n;
    n = tiw + (ADAPT_KMAX + 1) + 2 + 2 + 1 + 2 * chunked_len(64'hFFFF_FFFF_FFFF_FFFF, ca, cb) + 64;
    if (ts) n += eg_max_bits(0);
    reserve_bits_a = n;
  endfunction

  function automatic int unsigned msg_max_bits_a(int unsigned tiw, bit ts, int unsigned ca, int unsigned cb,
                                                 int unsigned ta, int unsigned tb);
    int unsigned n, b, e, ta_max;
    ta_max = chunked_len(64'h8000_0000_0000_0000, ta, tb);
    n = reserve_bits_a(tiw, ts, ca, cb);
    b = tiw + 3 + eg_max_bits(0) + 1 + ta_max + (ts ? eg_max_bits(0) : 0);
    e = tiw + (ADAPT_KMAX + 1) + 2 + chunked_len(64'hFFFF_FFFF_FFFF_FFFF, ca, cb) + 1 + ta_max +
        (ts ? eg_max_bits(0) : 0);
    if (b > n) n = b;
    if (e > n) n = e;
    msg_max_bits_a = n;
  endfunction

  // The longest control message and RESERVE (the longest SYNC(OVERFLOW) or
  // END(lost)) of encoding ENC, without Q.  The fixed encodings: SYNC
  // (OVERFLOW) is the longest message for every chunk size (spec §4.6).
  function automatic int unsigned ctrl_max_bits(int unsigned enc, int unsigned tiw, bit ts, int unsigned ca,
                                                int unsigned cb, int unsigned ta, int unsigned tb,
                                                int unsigned ha, int unsigned hb);
    ctrl_max_bits = (enc == ENC_TR_A) ? msg_max_bits_a(tiw, ts, ca, cb, ta, tb)
                                      : msg_max_bits(tiw, ts, ca, cb, ha, hb);
  endfunction

  function automatic int unsigned reserve_bits(int unsigned enc, int unsigned tiw, bit ts, int unsigned ca,
                                               int unsigned cb, int unsigned ha, int unsigned hb);
    reserve_bits = (enc == ENC_TR_A) ? reserve_bits_a(tiw, ts, ca, cb) : msg_max_bits(tiw, ts, ca, cb, ha, hb);
  endfunction

endpackage
