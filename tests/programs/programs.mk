# The programs tm record's end-to-end tests run (tests/e2e/t_record.sh,
# tests/e2e/t_record_regress.sh), built into $(BUILD)/programs/ by
# `make programs`.  Included by the top-level Makefile.
#
# - the thesis's verification programs (seeds/000 ch. 4) as x86-64 assembly:
#   no libc, -static -no-pie, so that their descriptors are exact (the
#   expected files name addresses by symbol: expected/README);
# - mlstest: C (the thesis's Examples, -O0 -mavx) with an assembly region;
# - C programs with threads (pthreads, OpenMP), signals, bad endings, and
#   a long loop for the tracing window.  -no-pie, so that symbols are
#   addresses.
# - ka_*: the timing model's known answers (tests/e2e/t_timing_kat.sh):
#   barrier rounds, false sharing, a lock, a pipeline, a spin-wait; linked
#   with -z now, so that no thread resolves a lazy binding (a store to the
#   GOT) that another thread then reads.

BUILD ?= build
PROG_DIR := $(BUILD)/programs
PROG_SRC := tests/programs
PROG_ASM := branchenum branchtest branchfold traptortest evict multiblock mlsopt
PROG_CFLAGS := -std=gnu11 -O1 -g -no-pie -Wall -Wextra -Werror
KA_PROGS := ka_barrier ka_falseshare ka_lock ka_pipe ka_spin
PROGRAMS := $(PROG_ASM:%=$(PROG_DIR)/%) \
	$(addprefix $(PROG_DIR)/,mlstest mt_pthread mt_omp signals crash spin cleartid forkwork fdlist) \
	$(KA_PROGS:%=$(PROG_DIR)/%)

.PHONY: programs
programs: $(PROGRAMS)

$(PROG_ASM:%=$(PROG_DIR)/%): $(PROG_DIR)/%: $(PROG_SRC)/%.S
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static -no-pie -o $@ $<

$(PROG_DIR)/mlstest: $(PROG_SRC)/mlstest.c $(PROG_SRC)/mlstest_region.S
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O0 -g -no-pie -mavx -Wall -Wextra -Werror -Wno-unused-value -o $@ $^

$(PROG_DIR)/mt_pthread $(PROG_DIR)/signals: $(PROG_DIR)/%: $(PROG_SRC)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -pthread -o $@ $<

$(KA_PROGS:%=$(PROG_DIR)/%): $(PROG_DIR)/%: $(PROG_SRC)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -pthread -Wl,-z,now -o $@ $<

$(PROG_DIR)/mt_omp: $(PROG_SRC)/mt_omp.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fopenmp -o $@ $<

$(PROG_DIR)/cleartid $(PROG_DIR)/forkwork $(PROG_DIR)/fdlist: $(PROG_DIR)/%: $(PROG_SRC)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<

$(PROG_DIR)/crash: $(PROG_SRC)/crash.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<

$(PROG_DIR)/spin: $(PROG_SRC)/spin.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $< -lm
