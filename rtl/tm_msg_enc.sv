// tm — message encoder (docs/spec.md §4): the bits of one message, exactly
// as tm_msg_encode / tm_msg_bits of the C library write them.  Combinational.
//
// bits_o[0] is the first bit of the message on the stream; bits at and above
// len_o are 0.  valid_i = 0 gives bits_o = 0 and len_o = 0: the whole encoder
// sits in one always_comb under `if (valid_i)`, so a simulator skips it in
// the cycles without a message (hardware: an AND on the outputs).  Only
// valid messages are specified (BRANCH: cnt >= 1; SYNC:
// reason <= 2; END: reason <= 1); fields a kind does not carry are ignored.
//
// Layout (LSB first):
//   Ti (TIW bits) | [DATA: Q = 0] | head | f1 | f2 | f3 | [TS: diffCC]
//   kind    head                     f1                 f2               f3
//   BRANCH  cnt, T                   [T: S, |diffTA|]   -                -
//   EXC     cnt=0, K=0               iCnt               S, |diffTA|      -
//   SYNC    cnt=0, K=1, R, [R=2: D]  R=2 ? iCnt : ADDR  [R=2: gap]       [R=2: ADDR]
//   END     cnt=0, K=2, X, L         iCnt               [L: D, gap]      -
// With DATA != 0 (data tracing on, spec §4.8) the class bit Q = 0 follows Ti
// and MAXW is one bit more; DATA = 0 is the encoding of §4.3 unchanged.
//
// ENC = ENC_TR_A (spec §4.9): cnt and diffCC are Exp-Golomb codes
// (tm_pkg::eg_enc) of orders k(acnt_i) and k(acc_i), the thread's
// accumulators (tm_core keeps them); the cnt = 0 escape of the special
// messages is a one and k(acnt_i) zeros.  The thread's TF (tf_i) chooses
// the form of a BRANCH (tm_pkg::adapt_escape: TF x (k(acnt_i) + 3) < 256).
// In the escape form there is no T bit, and a target misprediction is the
// escape with K = 3, then bCnt; in the T-bit form a BRANCH is cnt, T as in
// tr_e (the T bit is a part of its own: an order-0 code of 2^64 - 1 fills
// the head):
//   kind               head          f1     f2               f3
//   BRANCH esc, T=0    cnt           -      -                -
//   BRANCH esc, T=1    cnt=0, K=3    bCnt   S, |diffTA|      -
//   BRANCH T-bit form  cnt           T      [T: S, |diffTA|] -
//   EXC .. END    as above, with the escape in place of the zero chunk
// Other encodings ignore acnt_i, acc_i and tf_i.
// The head sits at the fixed offset TIW (+ 1 with Q); each later part is
// placed with a shifter at the sum of the lengths before it.  A chunked
// field (tm_pkg::chunk_enc) is a fixed wiring of the value's bits plus the
// connect bits C_g = (v >> (a + g*b)) != 0, which are 0 past the last chunk,
// so its full-width form is 0 above its length without masking.
`include "tm_assert.svh"

module tm_msg_enc #(
  parameter int unsigned TIW = 2,       // Ti width = ceil(log2 N); 0 for N = 1
  parameter bit          TS  = 1'b0,    // diffCC present
  parameter int unsigned CA  = 3,       // cnt / iCnt / gap chunks (1 .. 32)
  parameter int unsigned CB  = 2,
  parameter int unsigned TA  = 3,       // |diffTA| chunks (1 .. 32)
  parameter int unsigned TB  = 4,
  parameter int unsigned HA  = 4,       // diffCC chunks (1 .. 32)
  parameter int unsigned HB  = 2,
  parameter int unsigned DATA = 0,      // data tracing (spec §3.8): 0 none, else Q = 0 after Ti
  parameter int unsigned ENC  = tm_pkg::ENC_TR_E,  // ENC_TR_A: the adaptive codes; others alike
  parameter int unsigned MAXW = tm_pkg::ctrl_max_bits(ENC, TIW, TS, CA, CB, TA, TB, HA, HB) +
                                ((DATA != 0) ? 1 : 0)
) (
  input  logic                         valid_i,
  input  tm_pkg::msg_t                 msg_i,
  input  logic [15:0]                  acnt_i,  // tr_a: the thread's A_cnt
  input  logic [15:0]                  acc_i,   // tr_a: the thread's A_cc
  input  logic [8:0]                   tf_i,    // tr_a: the thread's TF
  output logic [MAXW-1:0]              bits_o,
  output logic [$clog2(MAXW+1)-1:0]    len_o
);

  // A chunked field (tm_pkg::chunk_enc) is at most 128 bits long.
  localparam int unsigned FW = tm_pkg::CHUNK_W;
  // A part: a chunked field plus one leading bit (S or D).
  localparam int unsigned PW = FW + 1;
  localparam logic [9:0] TI_MASK = 10'((1 << TIW) - 1);
  // The class bit Q (0 here: a control message) follows Ti with data tracing.
  localparam int unsigned QW = (DATA != 0) ? 1 : 0;
  // The adaptive codes of tr_a; an Exp-Golomb code fits a part (EG_W <= PW).
  localparam bit AD = ENC == tm_pkg::ENC_TR_A;

  logic [FW-1:0] enc_cnt, enc_icnt, enc_gap, enc_ta, enc_cc;
  int unsigned   len_cnt, len_icnt, len_gap, len_ta, len_cc;
  logic [63:0]   mag;   // |diffTA| (2^63 for the most negative value)
  logic          neg;   // S
  // The parts: value and length.
  logic [PW-1:0] head, f1, f2, f3, f4;
  int unsigned   len_head, len_f1, len_f2, len_f3, len_f4;
  logic          ovf;
  // tr_a: the orders, the Exp-Golomb codes of cnt and diffCC; the escape
  // (cnt = 0) is esc_w bits: a zero chunk and C = 0 (fixed), or a one and
  // k(A_cnt) zeros (tr_a).
  logic [3:0]    k_cnt, k_cc;
  logic [PW-1:0] eg_cnt, eg_cc;
  int unsigned   len_eg_cnt, len_eg_cc, esc_w;
  logic          esc;
  logic          tform;  // tr_a: the T-bit form (TF x (k + 3) >= 256)
  // Placement.
  int unsigned   pos_f1, pos_f2, pos_f3, pos_f4, len;
  logic [9:0]    ti;

  always_comb begin
    neg      = 1'b0;
    mag      = '0;
    enc_cnt  = '0;
    len_cnt  = 0;
    enc_icnt = '0;
    len_icnt = 0;
    enc_gap  = '0;
    len_gap  = 0;
    enc_ta   = '0;
    len_ta   = 0;
    enc_cc   = '0;
    len_cc   = 0;
    ovf      = 1'b0;
    k_cnt    = '0;
    k_cc     = '0;
    eg_cnt   = '0;
    eg_cc    = '0;
    len_eg_cnt = 0;
    len_eg_cc  = 0;
    esc_w    = CA + 1;
    esc      = 1'b0;
    tform    = 1'b0;
    head     = '0;
    f1       = '0;
    f2       = '0;
    f3       = '0;
    f4       = '0;
    len_head = 0;
    len_f1   = 0;
    len_f2   = 0;
    len_f3   = 0;
    len_f4   = 0;
    ti       = '0;
    pos_f1   = 0;
    pos_f2   = 0;
    pos_f3   = 0;
    pos_f4   = 0;
    len      = 0;
    bits_o   = '0;
    len_o    = '0;
    if (valid_i) begin
      // The chunked fields.
      neg      = msg_i.diff_ta[63];
      mag      = neg ? 64'(-msg_i.diff_ta) : msg_i.diff_ta;
      enc_cnt  = tm_pkg::chunk_enc(msg_i.cnt, CA, CB);
      len_cnt  = tm_pkg::chunk_len(msg_i.cnt, CA, CB);
      enc_icnt = tm_pkg::chunk_enc(msg_i.icnt, CA, CB);
      len_icnt = tm_pkg::chunk_len(msg_i.icnt, CA, CB);
      enc_gap  = tm_pkg::chunk_enc(msg_i.gap, CA, CB);
      len_gap  = tm_pkg::chunk_len(msg_i.gap, CA, CB);
      enc_ta   = tm_pkg::chunk_enc(mag, TA, TB);
      len_ta   = tm_pkg::chunk_len(mag, TA, TB);
      if (AD) begin
        k_cnt      = tm_pkg::adapt_k(acnt_i);
        k_cc       = tm_pkg::adapt_k(acc_i);
        eg_cnt     = PW'(tm_pkg::eg_enc(msg_i.cnt, k_cnt));
        len_eg_cnt = tm_pkg::eg_len(msg_i.cnt, k_cnt);
        esc_w      = 32'(k_cnt) + 1;
        esc        = 1'b1;
        tform      = !tm_pkg::adapt_escape(tf_i, acnt_i);
        if (TS) begin
          eg_cc     = PW'(tm_pkg::eg_enc(msg_i.diff_cc, k_cc));
          len_eg_cc = tm_pkg::eg_len(msg_i.diff_cc, k_cc);
        end
      end else begin
        enc_cc   = tm_pkg::chunk_enc(msg_i.diff_cc, HA, HB);
        len_cc   = tm_pkg::chunk_len(msg_i.diff_cc, HA, HB);
      end

      // The parts.
      ovf      = msg_i.reason == tm_pkg::SYNC_OVERFLOW;
      head     = PW'(esc);
      len_head = esc_w + 2;  // cnt = 0, K
      unique case (msg_i.kind)
        tm_pkg::MSG_BRANCH: begin
          if (AD && tform) begin
            // cnt, T, [T: S, |diffTA|]
            head     = eg_cnt;
            len_head = len_eg_cnt;
            f1       = PW'(msg_i.t);
            len_f1   = 1;
            if (msg_i.t) begin
              f2     = {enc_ta, neg};
              len_f2 = len_ta + 1;
            end
          end else if (AD && msg_i.t) begin
            // the escape, K = 3, then bCnt
            head     = PW'(esc) | (PW'(2'b11) << esc_w);
            f1       = eg_cnt;
            len_f1   = len_eg_cnt;
            f2       = {enc_ta, neg};
            len_f2   = len_ta + 1;
          end else if (AD) begin
            head     = eg_cnt;
            len_head = len_eg_cnt;
          end else begin
            head     = PW'(enc_cnt) | (PW'(msg_i.t) << len_cnt);
            len_head = len_cnt + 1;
            if (msg_i.t) begin
              f1     = {enc_ta, neg};
              len_f1 = len_ta + 1;
            end
          end
        end
        tm_pkg::MSG_EXC: begin
          // K = 0
          f1     = PW'(enc_icnt);
          len_f1 = len_icnt;
          f2     = {enc_ta, neg};
          len_f2 = len_ta + 1;
        end
        tm_pkg::MSG_SYNC: begin
          // K = 1, R, [R = 2: D]
          head = PW'(esc) | (PW'({msg_i.dropped & ovf, msg_i.reason, 2'b01}) << esc_w);
          if (ovf) begin
            len_head = esc_w + 5;
            f1       = PW'(enc_icnt);
            len_f1   = len_icnt;
            f2       = PW'(enc_gap);
            len_f2   = len_gap;
            f3       = PW'(msg_i.addr);
            len_f3   = 64;
          end else begin
            len_head = esc_w + 4;
            f1       = PW'(msg_i.addr);
            len_f1   = 64;
          end
        end
        tm_pkg::MSG_END: begin
          // K = 2, X, L
          head     = PW'(esc) | (PW'({msg_i.lost, msg_i.reason[0], 2'b10}) << esc_w);
          len_head = esc_w + 4;
          f1       = PW'(enc_icnt);
          len_f1   = len_icnt;
          if (msg_i.lost) begin
            f2     = {enc_gap, msg_i.dropped};
            len_f2 = len_gap + 1;
          end
        end
        default: ;
      endcase
      f4     = !TS ? '0 : AD ? eg_cc : PW'(enc_cc);
      len_f4 = !TS ? 0 : AD ? len_eg_cc : len_cc;

      // Placement.
      ti     = msg_i.ti & TI_MASK;
      pos_f1 = TIW + QW + len_head;
      pos_f2 = pos_f1 + len_f1;
      pos_f3 = pos_f2 + len_f2;
      pos_f4 = pos_f3 + len_f3;
      len    = pos_f4 + len_f4;
      bits_o = MAXW'(ti)
             | (MAXW'(head) << (TIW + QW))
             | (MAXW'(f1) << pos_f1)
             | (MAXW'(f2) << pos_f2)
             | (MAXW'(f3) << pos_f3)
             | (MAXW'(f4) << pos_f4);
      len_o  = $bits(len_o)'(len);
      // The message fits MAXW bits and has none at or above its length.
      `TM_ASSERT_I(MsgEncLenMax, len <= MAXW)
      `TM_ASSERT_I(MsgEncNoBitsAbove, (bits_o >> len) == '0)
    end
  end

  // Ti bits above TIW and the high bits of the 32-bit length sum (always
  // < MAXW + 1) are not used.
  logic unused_bits;
  assign unused_bits = ^{msg_i.ti & ~TI_MASK, len};
  // The accumulators matter to tr_a only.
  if (!AD) begin : g_fixed
    logic unused_adapt;
    assign unused_adapt = ^{acnt_i, acc_i, tf_i};
  end

endmodule
