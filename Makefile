# tm — top-level build.  `make` builds build/bin/tm; `make run` runs the main
# job; `make bench` runs the benchmarks.  The tests come in three tiers
# (docs/testing.md): `make check` (before every commit, about 5 minutes),
# `make test` (what CI runs, about 20 minutes; it installs the Debian
# packages it needs, make deps) and `make regress` (everything else, hours).
# The configurations they iterate are the manifest rtl/configs.txt, read
# through `tm config`.  See README.md.

SHELL := /bin/bash
CC ?= cc
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
BASE_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude $(WARN) -g
OPT_CFLAGS := -O2
SAN_CFLAGS := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LIBS := -pthread -lzstd -lZydis -lipt -lopencsd_c_api -lopencsd -lz -lm

# Component libraries, each a directory of C files; together they are libtm.
LIBDIRS := common config tmc msg cmodel decoder pt std gen timing capture record recmodes stats cosim
LIB_SRCS := $(foreach d,$(LIBDIRS),$(wildcard $(d)/*.c))
TOOL_SRCS := $(wildcard tools/tm/*.c)
UNIT_SRCS := $(wildcard tests/unit/*.c)
HDRS := $(wildcard include/tm/*.h) $(foreach d,$(LIBDIRS) tools/tm tests/unit,$(wildcard $(d)/*.h))

# Optimized build
OBJ := $(BUILD)/obj
LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/%.o)
TOOL_OBJS := $(TOOL_SRCS:%.c=$(OBJ)/%.o)
# Sanitizer build (tests)
SOBJ := $(BUILD)/asan/obj
SLIB_OBJS := $(LIB_SRCS:%.c=$(SOBJ)/%.o)
STOOL_OBJS := $(TOOL_SRCS:%.c=$(SOBJ)/%.o)
SUNIT_OBJS := $(UNIT_SRCS:%.c=$(SOBJ)/%.o)

# The Valgrind frontend's tool (rules below).
VG_LIBDIR := /usr/lib/x86_64-linux-gnu/valgrind
VG_EXECDIR := /usr/libexec/valgrind
VGDIR := $(BUILD)/lib/valgrind
VGTOOL := $(VGDIR)/tmtrace-amd64-linux

.PHONY: all deps build-all check test unit study-tests e2e run bench bench-speed clean asan gates lint cosim regress fuzz identity
.DEFAULT_GOAL := all

all: $(BUILD)/bin/tm $(VGTOOL)

# Each object depends on the headers it includes (compiler-generated .d files).
$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(OPT_CFLAGS) -MMD -MP -c $< -o $@

$(SOBJ)/tests/unit/%.o: BASE_CFLAGS += -Itools/tm
$(SOBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(SAN_CFLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# tm --version: the source tree's `git describe --always --dirty` ("unknown"
# when this folder is not the top of a git checkout), regenerated at every
# make but rewritten only when it changed (so nothing relinks needlessly).
VERSION_H := $(BUILD)/gen/tm_version.h
.PHONY: FORCE
$(VERSION_H): FORCE
	@mkdir -p $(dir $@)
	@v=unknown; \
	if [ "$$(git -C "$(CURDIR)" rev-parse --show-toplevel 2>/dev/null)" = "$$(cd "$(CURDIR)" && pwd -P)" ]; then \
		v=$$(git -C "$(CURDIR)" describe --always --dirty 2>/dev/null || echo unknown); fi; \
	printf '#define TM_VERSION "%s"\n' "$$v" > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(OBJ)/tools/tm/version.o $(SOBJ)/tools/tm/version.o: BASE_CFLAGS += -I$(BUILD)/gen
$(OBJ)/tools/tm/version.o $(SOBJ)/tools/tm/version.o: $(VERSION_H)

$(BUILD)/lib/libtm.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/asan/lib/libtm.a: $(SLIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/bin/tm: $(TOOL_OBJS) $(BUILD)/lib/libtm.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT_CFLAGS) -o $@ $(TOOL_OBJS) $(BUILD)/lib/libtm.a $(LIBS)

$(BUILD)/asan/bin/tm: $(STOOL_OBJS) $(BUILD)/asan/lib/libtm.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $(STOOL_OBJS) $(BUILD)/asan/lib/libtm.a $(LIBS)

# The Valgrind frontend (vg-frontend/): an out-of-tree tool, linked the way
# Valgrind links its own (Makefile.tool.am: static, no default libraries, text
# at the tool load address), in a folder with links to the installed preload
# objects, which `tm record` passes to valgrind as VALGRIND_LIB.
VG_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Wno-unused-parameter -Iinclude -I/usr/include/valgrind \
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
	-fno-strict-aliasing -fno-builtin -fno-stack-protector -fno-pie -fcf-protection=none
# The emitter and the timing model's frontend half (capture/capemit.c,
# capture/capsys.c, timing/tfront.c, timing/tshadow.c) are the frontends'
# shared code: built into the tool as into libtm (freestanding, no libc
# calls).
EMIT_SRCS := capture/capemit.c capture/capsys.c timing/tfront.c timing/tshadow.c
EMIT_HDRS := include/tm/capwire.h include/tm/x86op.h include/tm/capemit.h include/tm/tfront.h capture/capemit_int.h \
	timing/tfront_int.h
VG_OBJS := $(BUILD)/vg/tm_vg.o $(BUILD)/vg/capemit.o $(BUILD)/vg/capsys.o $(BUILD)/vg/tfront.o $(BUILD)/vg/tshadow.o
$(BUILD)/vg/tm_vg.o: vg-frontend/tm_vg.c $(EMIT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(VG_CFLAGS) -c $< -o $@
$(BUILD)/vg/capemit.o $(BUILD)/vg/capsys.o: $(BUILD)/vg/%.o: capture/%.c $(EMIT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(VG_CFLAGS) -c $< -o $@
$(BUILD)/vg/tfront.o $(BUILD)/vg/tshadow.o: $(BUILD)/vg/%.o: timing/%.c $(EMIT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(VG_CFLAGS) -c $< -o $@
$(VGTOOL): $(VG_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(VG_OBJS) -static -nodefaultlibs -nostartfiles -u _start -no-pie -Wl,--build-id=none \
		-Wl,-Ttext-segment=0x58000000 $(VG_LIBDIR)/libcoregrind-amd64-linux.a \
		$(VG_LIBDIR)/libvex-amd64-linux.a -lgcc $(VG_LIBDIR)/libgcc-sup-amd64-linux.a
	for f in $(VG_EXECDIR)/vgpreload_core-amd64-linux.so $(VG_EXECDIR)/default.supp \
		$(VG_EXECDIR)/none-amd64-linux $(VG_EXECDIR)/lackey-amd64-linux; do ln -sf $$f $(VGDIR)/; done

# The QEMU user-mode frontend (qemu-frontend/, docs/qemu.md): a TCG plugin
# over the frontends' emitter, for AArch64 and RISC-V programs.
QEMUTOOL := $(BUILD)/lib/qemu/tm_qemu.so
all: $(QEMUTOOL)
QEMU_CFLAGS := -std=c11 -O2 -g $(WARN) -Iinclude -fPIC -fvisibility=hidden
$(QEMUTOOL): qemu-frontend/tm_qemu.c qemu-frontend/qemu_api.h $(EMIT_SRCS) $(EMIT_HDRS) \
		include/tm/a64op.h include/tm/rvop.h include/tm/isa.h
	@mkdir -p $(dir $@)
	$(CC) $(QEMU_CFLAGS) -shared -o $@ qemu-frontend/tm_qemu.c $(EMIT_SRCS)

# The Pin frontend (pin-frontend/, docs/pin.md): built with the kit's own
# configuration (its makefiles' flags, PinCRT).  Pin is not in Debian: the
# user brings the kit.  pin-check compiles every object without linking.
PINDIR := $(BUILD)/lib/pin
define pin_root_check
	@if [ -z "$(PIN_ROOT)" ] || [ ! -f "$(PIN_ROOT)/source/tools/Config/makefile.config" ]; then \
		echo "make $@: PIN_ROOT=DIR must name a Pin 3.x kit (DIR/source/tools/Config/makefile.config)$(if $(PIN_ROOT), - not found in $(PIN_ROOT))" >&2; exit 2; fi
endef
.PHONY: pin pin-check
pin:
	$(pin_root_check)
	$(MAKE) -C pin-frontend PIN_ROOT=$(abspath $(PIN_ROOT)) TM_ROOT=$(CURDIR) OUT=$(abspath $(PINDIR)) tool
pin-check:
	$(pin_root_check)
	$(MAKE) -C pin-frontend PIN_ROOT=$(abspath $(PIN_ROOT)) TM_ROOT=$(CURDIR) OUT=$(abspath $(PINDIR)) check

# The unit tests also link the CLI's option parsers they test (tools/tm).
UNIT_TOOL_OBJS := $(SOBJ)/tools/tm/util.o
$(BUILD)/asan/bin/unit-tests: $(SUNIT_OBJS) $(UNIT_TOOL_OBJS) $(BUILD)/asan/lib/libtm.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $(SUNIT_OBJS) $(UNIT_TOOL_OBJS) $(BUILD)/asan/lib/libtm.a -lcriterion $(LIBS)

# Test harness of t_record_regress.sh: a capture fed by records or by groups.
$(BUILD)/asan/bin/capfeed: tests/e2e/capfeed.c $(BUILD)/asan/lib/libtm.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(SAN_CFLAGS) -o $@ $< $(BUILD)/asan/lib/libtm.a $(LIBS)

asan: $(BUILD)/asan/bin/tm $(BUILD)/asan/bin/unit-tests $(BUILD)/asan/bin/capfeed

# Debian packages the project needs.  As root: installed with apt-get.
# Otherwise the exact command is printed.
DEB_PKGS := build-essential pkg-config libzstd-dev zstd libcriterion-dev python3 verilator yosys \
	valgrind pigz xz-utils bzip2 pbzip2 gzip libzydis-dev zlib1g-dev clang \
	python3-matplotlib chromium slurm-wlm munge binutils coreutils libipt-dev libopencsd-dev ccache \
	qemu-user gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu libc6-dev-arm64-cross libc6-dev-riscv64-cross dpkg-dev
# `make deps` always checks; the targets that need the packages (test, lint,
# run, bench, gates) check once per build folder and say so afterwards (the
# stamp names the packages checked; a changed list checks again).
DEPS_STAMP := $(BUILD)/.deps-checked
deps:
	@bash scripts/deps.sh $(DEB_PKGS)
	@bash scripts/isa-deps.sh
	@mkdir -p $(BUILD) && echo "$(DEB_PKGS)" > $(DEPS_STAMP)
$(DEPS_STAMP).want:
	@mkdir -p $(BUILD)
	@if [ -f $(DEPS_STAMP) ] && [ "$$(cat $(DEPS_STAMP))" = "$(DEB_PKGS)" ]; then \
		echo "tm: Debian packages checked before ($(DEPS_STAMP)); make deps checks again" >&2; \
	else bash scripts/deps.sh $(DEB_PKGS) && echo "$(DEB_PKGS)" > $(DEPS_STAMP); fi
.PHONY: $(DEPS_STAMP).want

unit: $(BUILD)/asan/bin/unit-tests
	$(BUILD)/asan/bin/unit-tests --jobs $(JOBS)

# tm study's Python (study/*.py): unit tests of the study file parser, the
# cache keys and entries and the report's table arithmetic (tests/study,
# unittest; no tm, no recording; about a second).  The interpreter tm study
# runs (tools/tm/cmd_study.c): Debian's /usr/bin/python3 if there is one.
STUDY_PYTHON ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
study-tests:
	PYTHONDONTWRITEBYTECODE=1 $(STUDY_PYTHON) -m unittest discover -s tests/study -p 'test_*.py' -v

# E2E_TIER (check, test, regress) chooses the scripts and their input sizes.
E2E_TIER ?= test
e2e: $(BUILD)/asan/bin/tm $(BUILD)/asan/bin/capfeed $(BUILD)/bin/tm $(VGTOOL) programs
	E2E_TIER=$(E2E_TIER) bash tests/e2e/run.sh $(BUILD)

# The builds of a tier, in parallel: tm, the sanitizer build, the Valgrind
# tool, the test programs (and for make test the fuzz target).
BUILD_EXTRA ?=
build-all: $(DEPS_STAMP).want
	$(MAKE) -j$(JOBS) all asan programs $(BUILD_EXTRA)

# make check: before every commit (about 5 minutes on 2 cores): the unit
# tests (C, and the study's Python), the fast end-to-end scripts, lint and
# co-simulation of the manifest's check tiers (two simulators built at
# once), identity.
check: build-all
	$(MAKE) unit
	$(MAKE) study-tests
	$(MAKE) e2e E2E_TIER=check
	$(MAKE) lint LINT_TIERS=lint-check
	bash testbench/regress.sh $(BUILD) check
	$(MAKE) identity

# make test: what CI runs (.ci/run; about 20 minutes on 2 cores).
test: $(DEPS_STAMP).want
	$(MAKE) build-all BUILD_EXTRA=$(BUILD)/fuzz/fuzz_decode
	$(MAKE) unit
	$(MAKE) study-tests
	$(MAKE) e2e E2E_TIER=test
	$(MAKE) fuzz FUZZ_TIME=20
	$(MAKE) lint
	$(MAKE) cosim
	$(MAKE) identity

# Behaviour identity (issue 16): model, decode, record and cosim outputs hashed
# and compared with tests/identity/hashes, stored before the redesign.
identity: all programs
	bash tests/identity/run.sh $(BUILD)

# RTL: lint the manifest's lint tiers (tm_top, scripts/lint.sh; make test:
# lint and cosim-quick) and the modules alone (unit-lint); the two halves run
# at once and each runs one Verilator per processor.
LINT_TIERS ?= lint,cosim-quick
UNIT_LINT_TIERS ?= unit-lint
lint: $(DEPS_STAMP).want all
	@mkdir -p $(BUILD); bash testbench/unit/lint.sh $(BUILD) $(UNIT_LINT_TIERS) > $(BUILD)/lint-unit.log 2>&1 & p=$$!; \
	bash scripts/lint.sh $(BUILD) $(LINT_TIERS); s=$$?; wait $$p; u=$$?; cat $(BUILD)/lint-unit.log; \
	[ $$s -eq 0 ] && [ $$u -eq 0 ]

# Co-simulation: the unit harnesses against the C library (make test: 200,000
# cycles per predictor and cache set, 100,000 messages per encoder set) beside
# the manifest's cosim-quick tier with its coverage bins.
VUNIT_ARGS ?= +cycles=200000 +msgs=100000
cosim: all
	@bash testbench/unit/run.sh $(VUNIT_ARGS) > $(BUILD)/cosim-unit.log 2>&1 & p=$$!; \
	bash testbench/regress.sh $(BUILD) quick; s=$$?; wait $$p; u=$$?; cat $(BUILD)/cosim-unit.log; \
	[ $$s -eq 0 ] && [ $$u -eq 0 ]

# make regress: everything that is not in make test, with no time limit
# (hours): every end-to-end script at full size (the Slurm and browser checks
# among them), lint of lint-full, the unit harnesses at full length
# (1,000,000 cycles, 500,000 messages), the full co-simulation sweep
# (cosim-full, 144 parameter sets on four streams each), the real-program set
# at N = 1, 2, 4, 8 (cosim-real, testbench/cosim_real.sh, about two hours),
# the RTL's assertions against mutants of tm_buffer (testbench/mutants.sh),
# the timing model on real programs at 1..8 threads (bench/timing_scale.sh,
# about 40 minutes), five minutes of fuzzing and make gates.
regress: $(DEPS_STAMP).want
	$(MAKE) build-all BUILD_EXTRA=$(BUILD)/fuzz/fuzz_decode
	$(MAKE) e2e E2E_TIER=regress
	$(MAKE) lint LINT_TIERS=lint-full
	bash testbench/unit/run.sh
	bash testbench/regress.sh $(BUILD) full
	bash testbench/cosim_real.sh $(BUILD)
	bash testbench/mutants.sh $(BUILD)
	bash bench/timing_scale.sh $(BUILD)
	$(MAKE) fuzz FUZZ_TIME=300
	$(MAKE) gates

run: $(DEPS_STAMP).want
	$(MAKE) -j$(JOBS) all programs
	bash scripts/run.sh $(BUILD)

$(OBJ)/bench/model_bench.o: BASE_CFLAGS += -Itools/tm
$(BUILD)/bin/tm-bench: $(OBJ)/bench/model_bench.o $(OBJ)/tools/tm/modelopts.o $(OBJ)/tools/tm/util.o $(BUILD)/lib/libtm.a
	@mkdir -p $(dir $@)
	$(CC) $(OPT_CFLAGS) -o $@ $^ $(LIBS)

bench: $(DEPS_STAMP).want
	$(MAKE) all $(BUILD)/bin/tm-bench
	bash bench/run.sh $(BUILD)
	bash bench/sweep.sh $(BUILD)
	bash bench/record.sh $(BUILD)
	bash bench/record_qemu.sh $(BUILD)
	bash bench/decode_bench.sh $(BUILD)
	$(if $(BENCH_BASE),bash bench/base.sh $(BENCH_BASE) $(BUILD)/bench-base)
	bash bench/speed.sh $(BUILD) $(if $(BENCH_BASE),$(BUILD)/bench-base/build)

# The speed rows alone (bench/speed.sh), before and after with BENCH_BASE=REV.
bench-speed: $(DEPS_STAMP).want
	$(MAKE) all
	$(if $(BENCH_BASE),bash bench/base.sh $(BENCH_BASE) $(BUILD)/bench-base)
	bash bench/speed.sh $(BUILD) $(if $(BENCH_BASE),$(BUILD)/bench-base/build)

# libFuzzer target for the message parser and the replay from binaries
# (fuzz/); FUZZ_TIME seconds over a seed corpus recorded by fuzz/run.sh.
FUZZ_TIME ?= 300
$(BUILD)/fuzz/fuzz_decode: fuzz/fuzz_decode.c $(LIB_SRCS) $(HDRS)
	@mkdir -p $(dir $@)
	clang $(BASE_CFLAGS) -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ fuzz/fuzz_decode.c $(LIB_SRCS) $(LIBS)
fuzz: all $(BUILD)/fuzz/fuzz_decode
	bash fuzz/run.sh $(BUILD) $(FUZZ_TIME)

# Yosys area of each preset (one core) and of the shared buffer.
gates: $(DEPS_STAMP).want all
	bash scripts/gates.sh $(BUILD)

clean:
	rm -rf $(BUILD)

# The programs tm record's end-to-end tests run (make programs).
include tests/programs/programs.mk
# The QEMU frontend's programs, both ISAs (make isa-programs, isa-own).
include tests/programs/isa.mk
