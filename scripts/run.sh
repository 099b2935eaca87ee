#!/usr/bin/env bash
# make run: the main job.  Generates a 4-thread workload, runs every preset x
# encoding (functional and time-stamped), verifies each trace by replay, and
# prints a bits-per-instruction table shaped like the paper's Table 5 plus the
# misprediction rates.  Environment: TM_RUN_INSNS (default 20M), TM_RUN_THREADS
# (default 4), TM_RUN_SEED (default 7), TM_RUN_DIR (default a temp dir, kept
# only when given).
set -euo pipefail
BUILD=${1:-build}
TM="$BUILD/bin/tm"
insns=${TM_RUN_INSNS:-20000000}
threads=${TM_RUN_THREADS:-4}
seed=${TM_RUN_SEED:-7}
if [ -n "${TM_RUN_DIR:-}" ]; then dir=$TM_RUN_DIR; mkdir -p "$dir"; else dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; fi

echo "tm run: generating $threads threads, $insns instructions (seed $seed)" >&2
"$TM" gen --threads "$threads" --insns "$insns" --seed "$seed" -o "$dir/w.tmc"
for ts in "" t; do
    for enc in nx_b tr_b tr_e; do
        for preset in small medium large; do
            name="$ts$enc-$preset"
            "$TM" model --config $preset --encoding $enc ${ts:+--timestamps} -q "$dir/w.tmc" -o "$dir/$name.tmt" \
                --stats "$dir/$name.json"
            if ! "$TM" decode --verify "$dir/w.tmc" "$dir/$name.tmt" > "$dir/$name.verify"; then
                echo "tm run: $name: replay does not verify:" >&2
                cat "$dir/$name.verify" >&2
                exit 1
            fi
            echo "tm run: $name verified: $(cut -c1-60 "$dir/$name.verify")..." >&2
        done
    done
done
python3 - "$dir" "$threads" "$insns" <<'PY'
import json, sys
d, n, insns = sys.argv[1], sys.argv[2], sys.argv[3]
presets = ["small", "medium", "large"]
def load(name): return json.load(open(f"{d}/{name}.json"))
print(f"\nTrace port bandwidth [bits/instruction], {n} threads, {int(insns):,} instructions, private predictors")
print(f"(rows: encodings; columns: presets; every trace verified by replay)\n")
print(f"{'':8}" + "".join(f"{p:>10}" for p in presets))
for ts in ("", "t"):
    for enc in ("nx_b", "tr_b", "tr_e"):
        row = [load(f"{ts}{enc}-{p}")["bits_per_instruction"] for p in presets]
        print(f"{ts + enc:8}" + "".join(f"{v:10.4f}" for v in row))
nx = load("nx_b-large")["bits_per_instruction"]
print(f"\nReduction against nx_b: " + ", ".join(
    f"tr_e {p} {nx / load('tr_e-' + p)['bits_per_instruction']:.1f}x" for p in presets))
print(f"\nMisprediction rates [%]")
print(f"{'':8}{'outcome':>10}{'target':>10}")
for p in presets:
    t = load(f"tr_e-{p}")["total"]
    print(f"{p:8}{100*t['outcome_misprediction_rate']:10.2f}{100*t['target_misprediction_rate']:10.2f}")
s = load("ttr_e-large")
print(f"\nttr_e large: {s['bits_per_cycle']:.4f} bits/cycle, buffer peak {s['buffer']['peak_occupancy']} "
      f"of {s['config']['buffer_bits']} bits, {s['buffer']['dropped_messages']} messages dropped")
PY
