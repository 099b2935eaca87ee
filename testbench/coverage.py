#!/usr/bin/env python3
"""Merges the coverage bins written by `tm cosim --cov` and fails if a
required bin was never hit.  Bins (testbench/cosim/coverage.c):
  ENC.FIELD.chunksK   a message of encoding ENC whose FIELD needed K chunks
  sync_start, sync_overflow, end_exit, end_stop, end_lost, exception, drop
  ras_wrap, ras_underflow, ibtb_fill_way0, ibtb_fill_way1
  conflict.I.J        cycles in which cores I and J both offered a message
data tracing (docs/rtl-data.md):
  ENC.data_fah.chunksK  an accepted DATA message of encoding ENC whose fahCnt
                        needed K chunks
  data_size.CLASS       accepted DATA messages by operand size class (spec §8)
  data.MODE.accepted, data.MODE.dropped   DATA messages, MODE cfiat or all
  data.bundle_accepted, data.bundle_dropped   bundles of DATA + control
  cache.load_line_miss, cache.load_line_hit_flags_all/_part/_none
                        lines of loads: miss, or hit with all / some / none
                        of the touched granules' flags set
  cache.store_line_miss, cache.store_line_hit   lines of stores
  cache.lines2, cache.lines3plus   operands covering 2, 3 or more lines
  cache.inv_held_before, cache.inv_held_after   another core's store found
                        a line held, before / after the own access
  cache.same_line_store_before/_after   in the same cycle, a lower / higher
                        core stores to a line this core accesses
  cache.flag_clear      flags cleared after a resynchronization
tr_a, the adaptive codes (spec §4.9), accepted control messages:
  tr_a.cnt.kK           the cnt field (BRANCH, or the cnt = 0 escape) coded in
                        order K (0..12)
  tr_a.diffcc.kK        diffCC coded in order K (ttr_a)
  tr_a.target_escape    target mispredictions in the escape form (the escape
                        with K = 3)
  tr_a.tbit_outcome, tr_a.tbit_target   BRANCH messages in the T-bit form
                        (TF x (k + 3) >= 256), T = 0 and T = 1
  tr_a.to_tbit, tr_a.to_escape   messages after which the thread's form
                        switched (escape to T bit; T bit to escape, by TF's
                        decay, a change of k or a SYNC)
  tr_a.sync_to_escape   SYNC messages accepted in the T-bit form (TF reset)
  tr_a.cnt_capped, tr_a.diffcc_capped   values >= 8191 folded in as 8191
  tr_a.sync_reset       SYNC messages that reset a state that had moved
  tr_a.messages, tr_a.ts_messages       tr_a / ttr_a runs took part (their
                        bins are required only then)
TAGE-class predictors (spec §3.3.1-2; PRED = tage or ittage):
  PRED.providerK        lookups whose provider was table K (0 = base)
  PRED.allocK           entries allocated in table K
  PRED.replace          allocations over a valid entry (its u was 0)
  PRED.alloc_fail       mispredictions below the last table with no entry
                        to allocate (usefulness decayed / cleared)
  PRED.use_alt          predictions given by the alternate
"""
import sys
from collections import Counter

# Chunk counts every regression must reach, per encoding and field.  Chosen
# to span every chunk boundary that the streams can produce in an RTL
# simulation of a few million cycles (tr_e (3,2): bCnt up to 2^9 = 5 chunks;
# |diffTA| (3,4) up to 2^23 = 6 chunks; diffCC (4,2) up to 2^12 = 5 chunks;
# 8/16-bit chunks: 2 chunks each).
REQUIRED = {
    "tr_e": {"branch_cnt": 4, "target_cnt": 3, "target_diffta": 6, "exc_icnt": 3, "exc_diffta": 5, "diffcc": 5},
    "tr_b": {"branch_cnt": 1, "target_cnt": 1, "target_diffta": 2, "exc_icnt": 1, "exc_diffta": 2, "diffcc": 2},
    "nx_b": {"branch_cnt": 2, "target_cnt": 2, "target_diffta": 2, "exc_icnt": 1, "exc_diffta": 2, "diffcc": 2},
}
EVENTS = ["sync_start", "sync_overflow", "end_exit", "end_stop", "end_lost", "exception", "drop",
          "ras_wrap", "ras_underflow", "ibtb_fill_way0", "ibtb_fill_way1"]
CORES = 8
# The TAGE-class bins every regression must hit: the tables of the covering
# set's tage-l (TAGE 6 tables, ITTAGE 3) and tage-m configurations up to
# the depths their streams reach.
TAGE = {"tage": 4, "ittage": 2}
TAGE_EVENTS = [f"{p}.{e}" for p in TAGE for e in ("replace", "alloc_fail", "use_alt")]
# Data tracing: fahCnt chunk counts per encoding (tr_e (3,2): up to 31 in 2
# chunks; (8,8): 1 chunk up to 255), and every event bin.
DATA_FAH = {"tr_e": 2, "tr_b": 1, "nx_b": 1}
SIZES = ["byte", "word", "dword", "qword", "10-byte", "oword", "hword", "64-byte", "other"]
DATA_EVENTS = (["data.cfiat.accepted", "data.cfiat.dropped", "data.all.accepted", "data.all.dropped",
                "data.bundle_accepted", "data.bundle_dropped"] +
               ["data_size." + z for z in SIZES] +
               ["cache." + b for b in ["load_line_miss", "load_line_hit_flags_all", "load_line_hit_flags_part",
                                       "load_line_hit_flags_none", "store_line_miss", "store_line_hit", "lines2",
                                       "lines3plus", "inv_held_before", "inv_held_after",
                                       "same_line_store_before", "same_line_store_after", "flag_clear"]])

# tr_a: every order of both accumulators and every event, required only
# when some tr_a (and for diffCC some ttr_a) run took part.
ADAPT_KMAX = 12
TRA_EVENTS = ["tr_a.target_escape", "tr_a.cnt_capped", "tr_a.sync_reset", "tr_a.tbit_outcome",
              "tr_a.tbit_target", "tr_a.to_tbit", "tr_a.to_escape", "tr_a.sync_to_escape"]
TTRA_EVENTS = ["tr_a.diffcc_capped"]

def main(path):
    bins = Counter()
    for line in open(path):
        name, count = line.split()
        bins[name] += int(count)
    missing = []
    for enc, fields in REQUIRED.items():
        for field, kmax in fields.items():
            for k in range(1, kmax + 1):
                if bins[f"{enc}.{field}.chunks{k}"] == 0:
                    missing.append(f"{enc}.{field}.chunks{k}")
    missing += [e for e in EVENTS if bins[e] == 0]
    for enc, kmax in DATA_FAH.items():
        missing += [f"{enc}.data_fah.chunks{k}" for k in range(1, kmax + 1) if bins[f"{enc}.data_fah.chunks{k}"] == 0]
    missing += [e for e in DATA_EVENTS if bins[e] == 0]
    for p, kmax in TAGE.items():
        missing += [f"{p}.provider{k}" for k in range(0, kmax + 1) if bins[f"{p}.provider{k}"] == 0]
        missing += [f"{p}.alloc{k}" for k in range(1, kmax + 1) if bins[f"{p}.alloc{k}"] == 0]
    missing += [e for e in TAGE_EVENTS if bins[e] == 0]
    if "tr_a.messages" in bins:
        missing += [f"tr_a.cnt.k{k}" for k in range(ADAPT_KMAX + 1) if bins[f"tr_a.cnt.k{k}"] == 0]
        missing += [e for e in TRA_EVENTS if bins[e] == 0]
    if "tr_a.ts_messages" in bins:
        missing += [f"tr_a.diffcc.k{k}" for k in range(ADAPT_KMAX + 1) if bins[f"tr_a.diffcc.k{k}"] == 0]
        missing += [e for e in TTRA_EVENTS if bins[e] == 0]
    for i in range(CORES):
        for j in range(i + 1, CORES):
            if bins[f"conflict.{i}.{j}"] == 0:
                missing.append(f"conflict.{i}.{j}")
    hit = sum(1 for b, c in bins.items() if c)
    print(f"coverage: {hit} bins hit; {len(missing)} required bins missed")
    if missing:
        print("missed: " + ", ".join(missing))
        return 1
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
