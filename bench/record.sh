#!/usr/bin/env bash
# make bench, part 2: tm record next to Valgrind's own tools, in one run, on
# the same program: pigz -p 4 compressing a generated file (TM_BENCH_REC_MB,
# default 1 MB).  Prints seconds, M instructions/s (instructions counted by
# tm record) and each run's time as a multiple of --tool=none's; and the
# default recording (the caches, data addresses captured) as a multiple of
# the control-flow recording without them (--no-caches; issue 34: <= 1.5x).
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-build}"
mb=${TM_BENCH_REC_MB:-1}
gen_text "$dir/in" "$mb"
prog=(pigz -p 4 -c "$dir/in")
echo "bench: tm record on ${prog[*]} ($mb MB)" >&2
native=$(best "${prog[@]}")
none=$(best valgrind --tool=none "${prog[@]}")
cf=$(best "$TM" record --config large --encoding tr_e -o "$dir/cf" -- "${prog[@]}")
cfnc=$(best "$TM" record --no-caches --config large --encoding tr_e -o "$dir/cfnc" -- "${prog[@]}")
full=$(best "$TM" record --config large --encoding tr_e --cfiat -o "$dir/full" -- "${prog[@]}")
fullnt=$(best "$TM" record --model-thread no --config large --encoding tr_e --cfiat -o "$dir/fullnt" -- "${prog[@]}")
cfs=$(best "$TM" record --timing serial --config large --encoding tr_e -o "$dir/cfs" -- "${prog[@]}")
fulls=$(best "$TM" record --timing serial --config large --encoding tr_e --cfiat -o "$dir/fulls" -- "${prog[@]}")
echo "bench: lackey --trace-mem=yes (slow)" >&2
t0=$(now); valgrind --tool=lackey --trace-mem=yes --log-file=/dev/null "${prog[@]}" > /dev/null 2>&1; t1=$(now)
lackey=$(python3 -c "print($t1-$t0)")
insns=$(awk '$1 == "total" {print $2; exit}' "$dir/cf.stats")
python3 - "$insns" "$native" "$none" "$lackey" "$cf" "$full" "$cfs" "$fulls" "$cfnc" "$fullnt" <<'PY'
import sys
insns = int(sys.argv[1]); native, none, lackey, cf, full, cfs, fulls, cfnc, fullnt = map(float, sys.argv[2:])
print(f"\ntm record: pigz -p 4, {insns/1e6:.0f}M instructions (all threads)")
print(f"{'':42}{'seconds':>9}{'M insn/s':>10}{'x none':>8}")
for name, s in [("native", native), ("valgrind --tool=none", none),
                ("valgrind --tool=lackey --trace-mem=yes", lackey),
                ("tm record (control flow; caches, addresses)", cf),
                ("  the same, --no-caches (no addresses)", cfnc),
                ("tm record --cfiat (control + load values)", full),
                ("  the same, --model-thread no", fullnt),
                ("tm record --timing serial (control flow)", cfs), ("tm record --timing serial --cfiat", fulls)]:
    print(f"{name:42}{s:9.3f}{insns/s/1e6:10.1f}{s/none:8.2f}")
print("timing model: cores (the default) unless the row says serial (docs/capture.md section 3); "
      "--cfiat with cores puts the model on a thread of its own (--model-thread auto)")
print(f"--cfiat, the model's thread (auto) / --model-thread no: {full/fullnt:.2f}x the time")
print(f"the default control-flow recording (the caches, data addresses captured) / --no-caches: {cf/cfnc:.2f}x "
      "(target <= 1.5x)")
print("targets: control flow >= 100 M insn/s and <= 2.5x --tool=none (with either timing model); full (--cfiat) >= 30 M insn/s")
PY
