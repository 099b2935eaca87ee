#!/usr/bin/env bash
# make bench: model throughput next to the parse-only baseline, in one run.
# Generates a 100M-instruction stream (TM_BENCH_INSNS to change), then times
# `tm dump --count` (parse only) and `tm model --config large` for each
# encoding on the same stream; best of TM_BENCH_REPS (default 3) runs each.
# Prints M instructions/s and the ratio model time / parse time.
set -euo pipefail
BUILD=${1:-build}
TM="$BUILD/bin/tm"
insns=${TM_BENCH_INSNS:-100000000}
reps=${TM_BENCH_REPS:-3}
threads=${TM_BENCH_THREADS:-4}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

now() { date +%s.%N; }
best() {  # best wall time of $reps runs of the command
    local b=""
    for _ in $(seq "$reps"); do
        local t0 t1
        t0=$(now); "$@" > /dev/null; t1=$(now)
        b=$(python3 -c "import sys; t=$t1-$t0; b='$b'; print(t if not b or t < float(b) else b)")
    done
    echo "$b"
}

echo "bench: generating $threads threads, $insns instructions" >&2
t0=$(now)
"$TM" gen --threads "$threads" --insns "$insns" --seed 1 -o "$dir/b.tmc"
t1=$(now)
gen_s=$(python3 -c "print($t1-$t0)")
parse_s=$(best "$TM" dump --count "$dir/b.tmc")
rows=()
for enc in nx_b tr_b tr_e; do
    for ts in "" --timestamps; do
        s=$(best "$TM" model --config large --encoding $enc $ts -q "$dir/b.tmc" -o /dev/null)
        rows+=("${ts:+t}$enc $s")
    done
done
python3 - "$insns" "$gen_s" "$parse_s" "${rows[@]}" <<'PY'
import sys
insns = int(sys.argv[1]); gen = float(sys.argv[2]); parse = float(sys.argv[3])
print(f"\nmodel throughput, {insns/1e6:.0f}M instructions, large preset, one core")
print(f"{'':22}{'seconds':>10}{'M insn/s':>10}{'x parse':>9}")
print(f"{'tm gen (write)':22}{gen:10.3f}{insns/gen/1e6:10.1f}{'':>9}")
print(f"{'tm dump --count':22}{parse:10.3f}{insns/parse/1e6:10.1f}{1.0:9.2f}")
for r in sys.argv[4:]:
    name, s = r.split(); s = float(s)
    print(f"{'tm model ' + name:22}{s:10.3f}{insns/s/1e6:10.1f}{s/parse:9.2f}")
print("\ntargets: >= 100 M instructions/s for the large preset; model <= 2x the parse alone")
PY

# Co-simulation throughput (issue: RTL in lockstep with the model), large
# preset, N = 1 and N = 8, next to the model alone on the same stream.
if command -v verilator > /dev/null; then
    cinsns=${TM_BENCH_COSIM_INSNS:-2000000}
    rows=()
    for n in 1 8; do
        "$TM" gen --threads $n --insns "$cinsns" --seed 5 -o "$dir/c$n.tmc"
        "$TM" cosim --config large --encoding tr_e -q "$dir/c$n.tmc" > /dev/null 2>&1   # builds the simulator
        cyc=$("$TM" dump --count "$dir/c$n.tmc" | awk '/^cycles:/ {print $2}')
        s_co=$(best "$TM" cosim --config large --encoding tr_e -q "$dir/c$n.tmc")
        s_mo=$(best "$TM" model --config large --encoding tr_e -q "$dir/c$n.tmc" -o /dev/null)
        rows+=("$n $cyc $s_co $s_mo")
    done
    python3 - "$cinsns" "${rows[@]}" <<'PY'
import sys
insns = int(sys.argv[1])
print(f"\nco-simulation (tm cosim, large preset, tr_e), {insns/1e3:.0f}K instructions")
print(f"{'':8}{'cosim s':>10}{'insn/s':>12}{'cycles/s':>12}{'model s':>10}{'model insn/s':>14}{'ratio':>8}")
for r in sys.argv[2:]:
    n, cyc, co, mo = r.split(); cyc = int(cyc); co = float(co); mo = float(mo)
    print(f"N = {n:<4}{co:10.2f}{insns/co:12.0f}{cyc/co:12.0f}{mo:10.3f}{insns/mo:14.0f}{co/mo:8.0f}x")
print("target: >= 1 M instructions/s for N = 1")
PY
fi
