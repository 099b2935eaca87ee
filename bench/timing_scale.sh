#!/usr/bin/env bash
# The timing model on real programs (issue 17's acceptance; docs/capture.md
# §3): each program at 1, 2, 4 and 8 threads recorded by
#   tm record --timing cores --threads auto --cfiat (memory operands captured,
#   so loads and stores pay the caches), large, tr_e, lossless port and buffer
# then, on each recording:
#   - tm decode --verify (load values too) and --from-binary --verify;
#   - tm cosim (large, tr_e; the RTL sees the concurrent cores);
#   - the cycles in which several cores retire (tm dump);
#   - tm model, lossless (--port 64 --buffer 65536), of the commit stream:
#     TR_e large and tNX_b (nx_b, time stamps), control flow only.
# Prints one row per program and N: cores, instructions, cycles, IPC,
# concurrent cycles, bits per instruction and per cycle of both.  Exits 1 if
# any recording does not replay or co-simulate.
#   bench/timing_scale.sh BUILD [KB]     (KB of input for pigz and xz: 1024)
# Slow (minutes): not part of make test; make regress runs it.
set -uo pipefail
source "$(dirname "$0")/lib.sh" "${1:-build}"
kb=${2:-1024}
[[ "$kb" =~ ^[1-9][0-9]*$ ]] || { echo "timing_scale.sh: KB '$kb': a positive whole number" >&2; exit 2; }
B=$(cd "$BUILD" && pwd)
TM=$B/bin/tm
P=$B/programs
[ -x "$P/mt_pthread" ] || { echo "timing_scale.sh: $P/mt_pthread is missing: make programs" >&2; exit 2; }
export TM_VALGRIND_LIB=$B/lib/valgrind
cd "$dir" || exit 2
gen_text in.txt "$(python3 -c "print($kb / 1024)")"
fails=0
rows=()

# bits F.json: "BPI BITS_PER_CYCLE" of tm model's statistics
bits() {
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["bits_per_instruction"], d["bits_per_cycle"])' "$1"
}

run() {  # NAME N CMD...
    local name=$1 n=$2; shift 2
    local o="r-$name-$n" why=""
    echo "timing_scale: $name at $n threads" >&2
    "$TM" record --timing cores --threads auto --cfiat --config large --encoding tr_e --port 64 --buffer 65536 \
        --commit -o "$o" -- "$@" > /dev/null 2> "$o.err" || why="tm record: $(tail -n 1 "$o.err")"
    [ -z "$why" ] && { "$TM" decode --verify "$o.tmc" "$o.tmt" > "$o.v" 2>&1 || why="decode --verify: $(tail -n 1 "$o.v")"; }
    [ -z "$why" ] && { "$TM" decode --from-binary --verify "$o.tmc" "$o.tmt" > "$o.fb" 2>&1 ||
                       why="--from-binary --verify: $(tail -n 1 "$o.fb")"; }
    [ -z "$why" ] && { "$TM" cosim --config large --encoding tr_e -q "$o.tmc" > "$o.co" 2>&1 ||
                       why="tm cosim: $(tail -n 1 "$o.co")"; }
    [ -z "$why" ] && { "$TM" model --config large --encoding tr_e --port 64 --buffer 65536 -q "$o.tmc" \
                           -o /dev/null --stats "$o.tre.json" > /dev/null 2>&1 &&
                       "$TM" model --config large --encoding nx_b --timestamps --port 64 --buffer 65536 -q "$o.tmc" \
                           -o /dev/null --stats "$o.tnx.json" > /dev/null 2>&1 || why="tm model failed"; }
    if [ -n "$why" ]; then
        echo "FAIL $name N=$n: $why"; fails=$((fails + 1)); return
    fi
    local cores insns cycles multi
    cores=$(sed -n 's/^config: .* \([0-9]*\) threads, .*/\1/p' "$o.stats" | head -n 1)
    insns=$(awk '$1 == "total" { print $2; exit }' "$o.stats")
    cycles=$(sed -n 's/^timing: \([0-9]*\) cycles, .*/\1/p' "$o.stats")
    multi=$("$TM" dump "$o.tmc" | awk '$1 ~ /^c=/ { if ($1 != lc) { if (k > 1) m++; lc = $1; k = 0; lt = "" }
                                                   if ($2 != lt) { k++; lt = $2 } } END { if (k > 1) m++; print m + 0 }')
    local row
    row="$name $n $cores $insns $cycles $multi $(bits "$o.tre.json") $(bits "$o.tnx.json")"
    [ "$(wc -w <<< "$row")" -eq 10 ] || { echo "FAIL $name N=$n: figures missing: $row"; fails=$((fails + 1)); return; }
    echo "timing_scale: $row" >&2
    rows+=("$row")
    rm -f "$o".*  # the next recordings need the room
}

for n in 1 2 4 8; do
    run pigz $n pigz -p $n -c in.txt
    run xz $n xz -1 -T$n --block-size=$((kb * 1024 / 8)) -c in.txt
    run mt_pthread $n "$P/mt_pthread" $n
    OMP_WAIT_POLICY=passive run mt_omp $n "$P/mt_omp" $n
done

python3 - "$kb" "${rows[@]}" <<'PY'
import sys
kb = sys.argv[1]
print(f"\ntm record --timing cores --threads auto --cfiat (CPI 1, L1 8 KB, L2 cores x 64 KB, memory 200 cycles);")
print(f"pigz and xz on {kb} KB of text; bits of the commit stream, lossless port and buffer (control flow)")
print(f"{'program':11}{'N':>3}{'cores':>6}{'M insns':>9}{'M cycles':>10}{'IPC':>7}{'concurrent':>12}"
      f"{'tr_e bpi':>10}{'b/cycle':>9}{'tnx_b bpi':>11}{'b/cycle':>9}")
for r in sys.argv[2:]:
    name, n, cores, insns, cycles, multi, ebpi, ebpc, nbpi, nbpc = r.split()
    insns, cycles, multi = int(insns), int(cycles), int(multi)
    print(f"{name:11}{n:>3}{cores:>6}{insns/1e6:9.1f}{cycles/1e6:10.1f}{insns/cycles:7.3f}"
          f"{100*multi/cycles:11.1f}%{float(ebpi):10.4f}{float(ebpc):9.4f}{float(nbpi):11.4f}{float(nbpc):9.4f}")
print("concurrent: the share of the cycles in which several cores retire")
PY
echo "timing_scale: $fails failing"
[ $fails -eq 0 ]
