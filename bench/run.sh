#!/usr/bin/env bash
# make bench: model throughput next to the parse-only baseline, in one run.
# Generates a 100M-instruction stream (TM_BENCH_INSNS to change), then times
# `tm dump --count` (parse only) and `tm model --config large` for each
# encoding of the model (tm config --list-encodings), without and with time
# stamps, on the same stream; best of TM_BENCH_REPS (default 3) runs each.
# Prints M instructions/s and the ratio model time / parse time.
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-build}"
insns=${TM_BENCH_INSNS:-100000000}
threads=${TM_BENCH_THREADS:-4}

echo "bench: generating $threads threads, $insns instructions" >&2
t0=$(now)
"$TM" gen --threads "$threads" --insns "$insns" --seed 1 -o "$dir/b.tmc"
t1=$(now)
gen_s=$(python3 -c "print($t1-$t0)")
parse_s=$(best "$TM" dump --count "$dir/b.tmc")
rows=()
encs=$("$TM" config --list-encodings)
for enc in $encs; do
    for ts in "" --timestamps; do
        # shellcheck disable=SC2086
        s=$(best "$TM" model --config large --encoding "$enc" $ts -q "$dir/b.tmc" -o /dev/null)
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

# Load-value tracing (issue 4): memory operands per second through the model
# with CFiat on, next to the control-flow-only run of the same stream; the
# records are held in memory by tm-bench so that the figures are the model's.
# Two streams: tm gen's (random branches and operands: the host's branch
# predictor learns little) and a real program's, recorded by tm record.
data_rows() {  # data_rows F.tmc OUT: the seven configurations
    "$BUILD/bin/tm-bench" "$1" "$reps" \
        -- --cfiat --port 64 --buffer 65536 -- --cfiat --cache study --port 64 --buffer 65536 \
        -- --cfiat --cfiat-shared --port 64 --buffer 65536 -- --data all --port 64 --buffer 65536 \
        -- --cfiat -- --cache-only --cfiat > "$2"
}
data_table() {  # data_table TITLE F.tmc ROWS
    local insns mops
    insns=$("$TM" dump --count "$2" | awk '/^instructions:/ {print $2}')
    mops=$("$TM" dump --count "$2" | awk '/^loads:|^stores:/ {s += $2} END {print s}')
    python3 - "$1" "$insns" "$mops" "$3" <<'PY'
import sys
title = sys.argv[1]; insns = int(sys.argv[2]); mops = int(sys.argv[3])
rows = [l.rsplit(None, 3) for l in open(sys.argv[4])]
base = float(rows[0][1])
labels = ["control flow only", "cfiat, tool cache", "cfiat, study cache", "cfiat, shared tool cache",
          "all loads (baseline)", "cfiat, default port/buffer", "tool caches alone (no model)"]
print(f"\nmodel with load-value tracing: {title}, {insns/1e6:.1f}M instructions, {mops/1e6:.2f}M memory operands, "
      "records in memory")
print(f"{'':28}{'seconds':>9}{'M insn/s':>10}{'M ops/s':>9}{'x control':>10}{'data path M ops/s':>19}")
for lab, (name, s, mi, mo) in zip(labels, rows):
    s = float(s)
    extra = s - base
    dp = f"{mops/extra/1e6:19.1f}" if extra > 0 and lab not in (labels[0], labels[-1]) else f"{'':>19}"
    print(f"{lab:28}{s:9.3f}{float(mi):10.1f}{float(mo):9.1f}{s/base:10.2f}{dp}")
print("M ops/s: memory operands / model time; data path: memory operands / (time - control-only time);")
print("caches alone: the private tool caches and the invalidations between them, nothing else (a floor)")
print("target: >= 40 M memory operands/s with CFiat on")
PY
}
dinsns=${TM_BENCH_DATA_INSNS:-10000000}
"$TM" gen --threads "$threads" --insns "$dinsns" --seed 3 --mem -o "$dir/m.tmc"
echo "bench: data tracing, $dinsns generated instructions with memory operands" >&2
data_rows "$dir/m.tmc" "$dir/data.txt"
data_table "tm gen --mem, $threads threads" "$dir/m.tmc" "$dir/data.txt"
# A real program: pigz -p 4 compressing TM_BENCH_REAL_KB (default 100) KB of
# text, recorded with tm record --cfiat --commit (the operands are captured
# only with data tracing on; needs the Valgrind tool).
if [ -x "$BUILD/lib/valgrind/tmtrace-amd64-linux" ] && command -v pigz > /dev/null; then
    kb=${TM_BENCH_REAL_KB:-100}
    gen_text "$dir/text" "$(python3 -c "print($kb / 1000)")"
    echo "bench: recording pigz -p 4 on $kb KB for the data-tracing benchmark" >&2
    "$TM" record --cfiat --commit -o "$dir/rp" -- pigz -p 4 -c "$dir/text" > /dev/null
    data_rows "$dir/rp.tmc" "$dir/rdata.txt"
    data_table "pigz -p 4 ($kb KB of text) recorded by tm record" "$dir/rp.tmc" "$dir/rdata.txt"
    rm -f "$dir"/rp.*
fi

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
