// Assertion macros of the RTL, in the style of lowRISC's prim_assert.sv
// (docs/rtl.md, "Assertions").  Every rtl/tm_*.sv module file includes this
// header; rtl/tm.f puts rtl/ on the include path (+incdir+.), Yosys finds it
// beside the including file.
//
//   `TM_ASSERT(Name, prop, clk = clk_i, rst_n = rst_ni)
//       a clocked check: prop holds at every rising edge of clk while rst_n
//       is high (sampled like the flip-flops: the values before the edge);
//       an always_ff block of its own with the flip-flops' sensitivity, at
//       module level.
//   `TM_ASSERT_I(Name, prop)
//       an immediate check, a statement inside procedural code (an
//       always_ff or always_comb block, a loop): prop holds whenever it runs.
//   `TM_ASSERT_KNOWN(Name, sig, clk = clk_i, rst_n = rst_ni)
//       sig carries no X or Z at every rising edge out of reset.  Verilator
//       simulates two states, where $isunknown is always 0: this check
//       means something only in a four-state simulator.
//
// A failing check reports "<file>:<line>: Assertion failed in <scope>.Name:
// <scope>: Name: prop" through $error, which stops a Verilator simulation
// built with --assert (tm cosim; testbench/unit/run.sh), and is ignored
// by a build without --assert.  Synthesis defines SYNTHESIS (Yosys does by
// default): the macros expand to nothing there, so no tool but a simulator
// sees an assertion.
`ifndef TM_ASSERT_SVH
`define TM_ASSERT_SVH

`define TM_STRINGIFY(x) `"x`"

`ifndef SYNTHESIS

`define TM_ASSERT_I(__name, __prop)                                                          \
  __name: assert (__prop)                                                                    \
    else $error("%m: %s: %s", `TM_STRINGIFY(__name), `TM_STRINGIFY(__prop));

`define TM_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni)                           \
  always_ff @(posedge __clk or negedge __rst_n) begin                                        \
    if (__rst_n) begin                                                                       \
      `TM_ASSERT_I(__name, __prop)                                                           \
    end                                                                                      \
  end

`define TM_ASSERT_KNOWN(__name, __sig, __clk = clk_i, __rst_n = rst_ni)                     \
  `TM_ASSERT(__name, !$isunknown(__sig), __clk, __rst_n)

`else  // SYNTHESIS

`define TM_ASSERT_I(__name, __prop)
`define TM_ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni)
`define TM_ASSERT_KNOWN(__name, __sig, __clk = clk_i, __rst_n = rst_ni)

`endif  // SYNTHESIS

`endif  // TM_ASSERT_SVH
