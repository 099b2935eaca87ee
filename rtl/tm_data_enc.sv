// tm — DATA message encoder (docs/spec.md §4.8): the bits of one DATA
// message of core TI, exactly as tm_msg_encode of the C library writes a
// TM_MSG_DATA with data tracing on.  Combinational.
//
// Layout (LSB first = first bit on the trace):
//   Ti (TIW bits, = TI) | Q = 1 | fahCnt (chunked, FA/FB) | VALUE (8 * size bits)
// VALUE is the operand's bytes in memory order, each least significant bit
// first: value_i holds byte k (the byte at address addr + k) in bits
// 8k+7..8k, so VALUE is value_i[8*size-1:0] as it stands.  Bytes at and
// above size_i are ignored.  bits_o[0] is the first bit of the message;
// bits at and above len_o are 0.  valid_i = 0 gives bits_o = 0 and len_o = 0
// (the whole encoder sits in one always_comb under `if (valid_i)`, as
// tm_msg_enc).  size_i must be 1..64.
`include "tm_assert.svh"

module tm_data_enc #(
  parameter int unsigned TIW  = 2,      // Ti width = ceil(log2 N); 0 for N = 1
  parameter int unsigned TI   = 0,      // this core's index, < 2^TIW
  parameter int unsigned FA   = 3,      // fahCnt chunks (1 .. 32)
  parameter int unsigned FB   = 2,
  parameter int unsigned MAXW = tm_pkg::data_max_bits(TIW, FA, FB)
) (
  input  logic                         valid_i,
  input  logic [63:0]                  fah_i,
  input  logic [6:0]                   size_i,
  input  logic [511:0]                 value_i,
  output logic [MAXW-1:0]              bits_o,
  output logic [$clog2(MAXW+1)-1:0]    len_o
);

  if (TIW > 10 || TI >= (1 << TIW) || FA < 1 || FA > 32 || FB < 1 || FB > 32) begin : g_bad_cfg
    $fatal(1, "tm_data_enc: TIW %0d TI %0d FA %0d FB %0d out of range", TIW, TI, FA, FB);
  end

  localparam int unsigned FW = tm_pkg::CHUNK_W;
  localparam int unsigned HW = TIW + 1;  // the head: Ti and the Q bit

  logic [FW-1:0]  enc_fah;
  int unsigned    len_fah, nbits, len;
  logic [511:0]   value;

  always_comb begin
    enc_fah = '0;
    len_fah = 0;
    nbits   = 0;
    len     = 0;
    value   = '0;
    bits_o  = '0;
    len_o   = '0;
    if (valid_i) begin
      enc_fah = tm_pkg::chunk_enc(fah_i, FA, FB);
      len_fah = tm_pkg::chunk_len(fah_i, FA, FB);
      nbits   = 8 * 32'(size_i);
      value   = value_i & ~({512{1'b1}} << nbits);
      len     = TIW + 1 + len_fah + nbits;
      bits_o  = MAXW'(TI)
              | (MAXW'(1) << TIW)
              | (MAXW'(enc_fah) << (TIW + 1))
              | (MAXW'(value) << (TIW + 1 + len_fah));
      len_o   = $bits(len_o)'(len);
      // The message starts with its Ti and the Q bit (1); for an operand of
      // 1 .. 64 bytes it fits MAXW bits and has none at or above its length.
      // (This block is not clocked: before the reset, with random state, it
      // may see any size; tm_core checks the size of its DATA messages on
      // the clock.)
      `TM_ASSERT_I(DataEncTiQ, HW'(bits_o) == HW'(32'(TI) | (32'd1 << TIW)))
      if (size_i >= 7'd1 && size_i <= 7'd64) begin
        `TM_ASSERT_I(DataEncLenMax, len <= MAXW)
        `TM_ASSERT_I(DataEncNoBitsAbove, (bits_o >> len) == '0)
      end
    end
  end

  // The high bits of the 32-bit length sum (always < MAXW + 1) are not used.
  logic unused_len;
  assign unused_len = ^len;

endmodule
