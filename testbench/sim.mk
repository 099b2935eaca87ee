# testbench/sim.mk — builds the co-simulation simulator of one parameter set
# (docs/rtl.md, "tm cosim"):
#
#   make -f testbench/sim.mk OUT=DIR [ROOT=.] [LIBTM=ROOT/build/lib/libtm.a]
#
# DIR holds the parameter set, written by tm cosim from the table
# include/tm/rtl_params.h: params.vc (tm_top's -G flags, read by Verilator as
# an -f file) and params.h (every row of the table as TM_RTL_<NAME>, for the
# testbench).  The rule builds DIR/tm-cosim-sim: the RTL of rtl/tm.f
# under the testbench's top testbench/tm_tb.sv, Verilated with testbench/glue.cpp and linked with testbench/cosim/*.c and
# libtm.  `tm cosim` runs this makefile when the simulator is missing or older
# than one of its sources; DIR/sim.deps, the list of those, lets it see
# without make that none changed since the last build (cosim/cosim.c).
ifeq ($(strip $(OUT)),)
$(error OUT=DIR names the parameter set's build directory (it holds params.vc and params.h))
endif
ROOT ?= .
override ROOT := $(abspath $(ROOT))
override OUT := $(abspath $(OUT))
LIBTM ?= $(ROOT)/build/lib/libtm.a
TB := $(ROOT)/testbench
COSIM_OBJS = $(patsubst $(TB)/cosim/%.c,$(OUT)/cosim_%.o,$(wildcard $(TB)/cosim/*.c))
SIM := $(OUT)/tm-cosim-sim
# Every file the simulator is made from, one a line (written after it): tm
# cosim's quick check (cosim/cosim.c) compares their time stamps with those
# it saw after the last build, and runs make only when one differs.  With
# the folders whose wildcards make the list, and the script that reads tm.f.
DEPS := $(OUT)/sim.deps
# The RTL: the files of rtl/tm.f (one file list).
RTL := $(ROOT)/rtl/tm.f $(ROOT)/rtl/tm_assert.svh $(shell bash $(ROOT)/scripts/rtl_files.sh)
ifeq ($(words $(RTL)),2)
$(error cannot read the file list rtl/tm.f)
endif
# Verilator's runtime (verilated.cpp, the FST writer, ...) is the same for
# every parameter set: ccache (Debian's, installed by make deps) compiles it
# once for all simulators; OBJCACHE= turns it off.
OBJCACHE ?= $(shell command -v ccache 2>/dev/null)
TB_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L \
	-I$(OUT) -I$(ROOT)/include -I$(TB)

.PHONY: sim
.DEFAULT_GOAL := sim
sim: $(SIM) $(DEPS)

# --assert: the RTL's assertions (rtl/tm_assert.svh) stop the simulation;
# +define+TM_OBS: tm_top's observation ports and idle_skip_i, which the
# testbench reads and drives (absent without it, as in synthesis);
# --x-initial unique with the testbench's random reset: state the reset does
# not cover shows up as a mismatch.  The top is testbench/tm_tb.sv: tm_top
# with its retire inputs through a register, so that Verilator evaluates the
# logic once per cycle instead of three times (see there).  The model code at -O2, not Verilator's
# default -Os.  libtm.a and the cosim_*.o are not dependencies of Verilator's own
# makefile, so the old simulator is removed first: with only them changed it
# would not relink.
SIM_PREREQS := $(RTL) $(TB)/tm_tb.sv $(TB)/glue.cpp $(TB)/glue.h $(OUT)/params.vc $(OUT)/params.h $(OUT)/tm_pkg.h \
	$(COSIM_OBJS) $(LIBTM) $(TB)/sim.mk
$(SIM): $(SIM_PREREQS)
	rm -f $@
	verilator --cc --exe --build -j 2 --trace-fst --assert --x-initial unique +define+TM_OBS \
		-MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2 OBJCACHE=$(OBJCACHE)" -Wno-fatal -Wno-lint -Wno-style \
		--top-module tm_tb -Mdir $(OUT)/obj -o $@ \
		-CFLAGS "-O2 -I$(OUT) -I$(ROOT)/include -I$(TB)" -LDFLAGS "$(COSIM_OBJS) $(LIBTM) -lzstd -lz -lm" \
		-f $(OUT)/params.vc -F $(ROOT)/rtl/tm.f $(TB)/tm_tb.sv $(TB)/glue.cpp

# The list is the prerequisites of the rules below (the simulator's, the
# objects', tm_pkg.h's: none is left out, or a change of it would go
# unnoticed by tm cosim's check).
$(DEPS): $(SIM)
	printf '%s\n' $(sort $(SIM_PREREQS) $(COSIM_PREREQS) $(PKG_PREREQS) \
		$(TB)/cosim $(ROOT)/include/tm $(ROOT)/scripts/rtl_files.sh) > $@.tmp && mv $@.tmp $@

# The C testbench (testbench/cosim/: main, drive, compare, coverage),
# compiled as C (tm/cache.h: the shadow caches of CFiat).
COSIM_COMMON := $(TB)/cosim/cosim.h $(TB)/glue.h $(OUT)/params.h $(OUT)/tm_pkg.h \
	$(wildcard $(ROOT)/include/tm/*.h) $(TB)/sim.mk
COSIM_PREREQS = $(wildcard $(TB)/cosim/*.c) $(COSIM_COMMON)
$(OUT)/cosim_%.o: $(TB)/cosim/%.c $(COSIM_COMMON)
	$(OBJCACHE) $(CC) $(TB_CFLAGS) -c $< -o $@

# tm_pkg's codes (events, branch classes, message kinds) and the layout of
# msg_t as C macros.
PKG_PREREQS := $(ROOT)/rtl/tm_pkg.sv $(TB)/tm_pkg_h.awk
$(OUT)/tm_pkg.h: $(PKG_PREREQS)
	awk -f $(TB)/tm_pkg_h.awk $< > $@.tmp && mv $@.tmp $@

$(OUT)/params.vc $(OUT)/params.h:
	@echo "sim.mk: $@ is missing: tm cosim writes it from include/tm/rtl_params.h" >&2; exit 1
