// The RTL of the trace module, one file per line in compile order (the
// package first), relative to this directory (Verilator's -F): the one file
// list of lint (scripts/lint.sh, testbench/unit/lint.sh), co-simulation
// (testbench/sim.mk), the unit harnesses (testbench/unit/run.sh) and the
// Yosys scripts (scripts/gates.sh, testbench/unit/yosys.sh), which expand it
// themselves (scripts/rtl_files.sh).  +incdir+. finds tm_assert.svh, which
// every module includes (lines starting with + are options, not files).
+incdir+.
tm_pkg.sv
tm_gshare.sv
tm_ras.sv
tm_ibtb.sv
tm_hist.sv
tm_tage.sv
tm_ittage.sv
tm_msg_enc.sv
tm_data_enc.sv
tm_dcache.sv
tm_core.sv
tm_buffer.sv
tm_top.sv
