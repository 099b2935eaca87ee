#!/usr/bin/env bash
# make bench, the sweep: the configurations of the manifest's bench-sweep
# tier (rtl/configs.txt through tm config: the presets x encodings x time
# stamps off/on of its one line) over one generated stream
# (TM_BENCH_SWEEP_INSNS, default 10M instructions, 4 threads), as one pass of
# tm model --and (the library's sweep, tm/sweep.h) and as many separate
# runs, in one run; best of TM_BENCH_REPS.  Prints seconds, M instructions/s
# per configuration and the ratio; checks that both give the same traces.
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-build}"
insns=${TM_BENCH_SWEEP_INSNS:-10000000}
# The tm model options of each configuration (its N is the stream's).
cfgs=()
names=$("$TM" config --list bench-sweep)
for n in $names; do
    cfgs+=("$("$TM" config "$n" --format opts)")
done
[ ${#cfgs[@]} -gt 0 ] || { echo "bench: the bench-sweep tier is empty" >&2; exit 1; }
echo "bench: sweep of ${#cfgs[@]} configurations over $insns instructions" >&2
"$TM" gen --threads 4 --insns "$insns" --seed 3 -o "$dir/s.tmc"
# and_args PREFIX SUFFIX: every configuration, joined by --and, each with
# -o PREFIX$i$SUFFIX, into the array args.
and_args() {
    args=()
    for i in "${!cfgs[@]}"; do
        [ "$i" -gt 0 ] && args+=(--and)
        # shellcheck disable=SC2206
        args+=(${cfgs[$i]} -o "$1$i$2")
    done
}
and_args "$dir/one" .tmt
separate() {
    for i in "${!cfgs[@]}"; do
        # shellcheck disable=SC2086
        "$TM" model -q "$dir/s.tmc" ${cfgs[$i]} -o "$dir/sep$i.tmt"
    done
}
one=$(best "$TM" model -q "$dir/s.tmc" "${args[@]}")
sep=$(best separate)
for i in "${!cfgs[@]}"; do
    cmp -s "$dir/one$i.tmt" "$dir/sep$i.tmt" || { echo "bench: ${cfgs[$i]}: the sweep's trace differs" >&2; exit 1; }
done
# table TITLE ONE-LABEL MANY-LABEL INSNS ONE MANY: the two ways side by side.
table() {
    python3 - "$@" "${#cfgs[@]}" <<'PY'
import sys
title, l1, l2 = sys.argv[1:4]
insns, one, sep, k = int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7])
print(f"\n{title.format(k=k, m=insns / 1e6)}")
print(f"{'':34}{'seconds':>10}{'M insn/s x config':>19}{'x one pass':>12}")
print(f"{l1:34}{one:10.3f}{insns*k/one/1e6:19.1f}{1.0:12.2f}")
print(f"{l2.format(k=k):34}{sep:10.3f}{insns*k/sep/1e6:19.1f}{sep/one:12.2f}")
PY
}
table "sweep: {k} configurations over {m:.0f}M instructions (4 threads), the same traces both ways" \
    "one pass (tm model ... --and ...)" "{k} separate runs" "$insns" "$one" "$sep"

# The same configurations fed while a real program runs: one tm record with
# --and (the program executed once) against one tm record per configuration
# (as many executions), pigz -p 4 on TM_BENCH_SWEEP_MB MB of text (default
# 0.25).
if command -v pigz > /dev/null && command -v valgrind > /dev/null; then
    gen_text "$dir/text" "${TM_BENCH_SWEEP_MB:-0.25}"
    and_args "$dir/rone" ""
    rseparate() {
        for i in "${!cfgs[@]}"; do
            # shellcheck disable=SC2086
            "$TM" record --threads 8 ${cfgs[$i]} -o "$dir/rsep$i" -- pigz -p 4 -c "$dir/text"
        done
    }
    rone=$(best "$TM" record --threads 8 "${args[@]}" -- pigz -p 4 -c "$dir/text")
    rsep=$(best rseparate)
    rinsns=$(python3 -c "import json; print(json.load(open('$dir/rone0.json'))['instructions'])")
    for i in "${!cfgs[@]}"; do
        [ -s "$dir/rone$i.tmt" ] && [ -s "$dir/rsep$i.tmt" ] || { echo "bench: record ${cfgs[$i]}: no trace" >&2; exit 1; }
    done
    table "record sweep: {k} configurations while pigz -p 4 runs ({m:.0f}M instructions)" \
        "one tm record ... --and ..." "{k} tm records" "$rinsns" "$rone" "$rsep"
fi
