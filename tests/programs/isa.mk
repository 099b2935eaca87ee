# Programs for the QEMU frontend (docs/qemu.md, "Programs nobody here wrote"),
# built into $(BUILD)/isa/ by `make isa-programs`.  Included by the top-level
# Makefile.
#
# - isa-own: the project's own test programs that build for both ISAs
#   (no x86 code), cross-compiled with aarch64-linux-gnu-gcc and
#   riscv64-linux-gnu-gcc into $(BUILD)/isa/aarch64/ and $(BUILD)/isa/riscv64/
#   (dynamic: run with qemu-<isa> -L /usr/<isa>-linux-gnu);
#   tests/e2e/t_qemu.sh runs them.
# - isa-debian (scripts/isa-programs.sh, once: a stamp per part): Debian's
#   arm64 builds of pigz, xz and zstd with their libraries, downloaded and
#   extracted into $(BUILD)/isa/arm64-root/; Debian's sources of libzstd and
#   xz-utils cross-built into $(BUILD)/isa/riscv64/{zstd,xz} (Debian 12 has
#   no riscv64 binaries).  Needs the network and apt configured by make deps
#   (scripts/isa-deps.sh); tests/e2e/t_qemu_real.sh runs them.
# A missing tool: one line, and the target fails.

ISA_DIR := $(BUILD)/isa
ISA_ARCHES := aarch64 riscv64
# tests/programs/*.c and tests/programs/qemu/*.c without x86 code
# (signals.c edits x86 registers; mlstest is x86 assembly and AVX; ka_spin's
# pause is under #if defined(__x86_64__))
ISA_PROGS := mt_pthread mt_omp spin cleartid forkwork fdlist crash qwork qsignals qexec qexitrun \
	ka_barrier ka_falseshare ka_lock ka_pipe ka_spin
ISA_OWN := $(foreach a,$(ISA_ARCHES),$(addprefix $(ISA_DIR)/$(a)/,$(ISA_PROGS)))
ISA_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -pthread
ISA_STAMPS := $(ISA_DIR)/.arm64-root.stamp $(ISA_DIR)/.riscv64-zstd.stamp $(ISA_DIR)/.riscv64-xz.stamp

.PHONY: isa-programs isa-own isa-debian $(ISA_ARCHES:%=isa-own-%)
isa-programs: isa-own isa-debian
isa-own: $(ISA_OWN)
isa-debian: $(ISA_STAMPS)

define isa_rules
isa-own-$(1): $(addprefix $(ISA_DIR)/$(1)/,$(ISA_PROGS))
$(ISA_DIR)/$(1)/%: $(PROG_SRC)/%.c
	@command -v $(1)-linux-gnu-gcc >/dev/null || { echo "make $$@: $(1)-linux-gnu-gcc not found (make deps installs gcc-$(1)-linux-gnu)" >&2; exit 1; }
	@mkdir -p $$(dir $$@)
	$(1)-linux-gnu-gcc $(ISA_CFLAGS) -o $$@ $$< $$(ISA_LIBS_$$*)
$(ISA_DIR)/$(1)/%: $(PROG_SRC)/qemu/%.c
	@command -v $(1)-linux-gnu-gcc >/dev/null || { echo "make $$@: $(1)-linux-gnu-gcc not found (make deps installs gcc-$(1)-linux-gnu)" >&2; exit 1; }
	@mkdir -p $$(dir $$@)
	$(1)-linux-gnu-gcc $(ISA_CFLAGS) -o $$@ $$< $$(ISA_LIBS_$$*)
endef
$(foreach a,$(ISA_ARCHES),$(eval $(call isa_rules,$(a))))
ISA_LIBS_mt_omp := -fopenmp
ISA_LIBS_spin := -lm
$(foreach p,$(KA_PROGS),$(eval ISA_LIBS_$(p) := -Wl,-z,now))

# Each part once; make isa-debian-again (or removing the stamp) runs it again.
$(ISA_DIR)/.%.stamp: scripts/isa-programs.sh
	bash scripts/isa-programs.sh $* $(ISA_DIR)
	@touch $@
.PHONY: isa-debian-again
isa-debian-again:
	rm -f $(ISA_STAMPS)
	$(MAKE) isa-debian
