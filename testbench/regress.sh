#!/usr/bin/env bash
# Co-simulation regression: tm cosim over the configurations of a tier of the
# manifest (rtl/configs.txt, read through `tm config`: each entry names its
# thread count, its stream and its tm model options), then a coverage check
# (testbench/coverage.py): every required bin must be hit.
#   testbench/regress.sh BUILD check|quick|full [TIERS]
#   check (make check): the cosim-check tier (two parameter sets; no
#         coverage requirement);
#   quick (make test): the cosim-quick tier, the covering set: every preset x
#         encoding pair (and tage-l, a tiny shared TAGE), time stamps on/off,
#         private/shared, N in {1,2,4,8}, forced overflows, data tracing and
#         tr_a, on random and directed streams (tm gen --directed);
#   full  (make regress): cosim-full (the whole product presets x encodings x
#         time stamps x private/shared x N in {1,2,4,8}, each on four
#         streams) and the covering set.
# TIERS (comma-separated) replaces the mode's tiers.  COSIM_JOBS
# co-simulations run at once (default: the number of processors); the
# simulators of one run are built in parallel that way, each once.
set -uo pipefail
BUILD=${1:-build}
mode=${2:-quick}
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/pool.sh"
case $BUILD in /*) B=$BUILD ;; *) B=$root/$BUILD ;; esac
TM="$B/bin/tm"
case "$mode" in
    check) tiers=cosim-check ;;
    quick) tiers=cosim-quick ;;
    full) tiers=cosim-full,cosim-quick ;;
    *) echo "regress.sh: mode '$mode': allowed are check, quick and full" >&2; exit 2 ;;
esac
tiers=${3:-$tiers}
[ -x "$TM" ] || { echo "regress.sh: $TM is missing: build it first (make), or name the build directory: regress.sh BUILD check|quick|full" >&2; exit 2; }
jobs=${COSIM_JOBS:-$(nproc 2>/dev/null || echo 2)}
work=$(mktemp -d /tmp/tm-regress.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0; runs=0

stream() {  # n kind -> path
    local n=$1 kind=$2 f="$work/$kind-$n.tmc"
    if [ ! -f "$f" ]; then
        case $kind in
            rand) "$TM" gen --threads "$n" --insns $((60000 * n)) --seed $((100 + n)) -o "$f" ;;
            hard) "$TM" gen --threads "$n" --insns $((15000 * n)) --seed $((200 + n)) --predictability 0 \
                      --exc-rate 0.05 -o "$f" ;;
            mem)  "$TM" gen --threads "$n" --insns $((100000 * n)) --seed $((400 + n)) --mem -o "$f" ;;
            *)    "$TM" gen --directed "$kind" --threads "$n" --seed $((300 + n)) -o "$f" ;;
        esac
    fi
    echo "$f"
}

# A stream is generated once, under a lock (two co-simulations may want it).
stream_locked() {  # n kind -> path
    exec 9> "$work/$2-$1.lock"
    flock 9
    stream "$@"
    exec 9>&-
}

cosim() {  # NAME: writes $work/res.NAME (the verdict lines) and $work/cov.NAME
    local name=$1 n kind f out
    local -a opts
    n=$("$TM" config "$name" --format threads) && kind=$("$TM" config "$name" --format stream) &&
        read -r -a opts < <("$TM" config "$name" --format opts) ||
        { echo "FAIL $name: tm config" > "$work/res.$name"; return; }
    f=$(stream_locked "$n" "$kind") || { echo "FAIL $name: cannot generate $kind-$n" > "$work/res.$name"; return; }
    if out=$("$TM" cosim "${opts[@]}" --cov "$work/cov.$name" -q "$f" 2>&1); then
        echo "PASS $name n=$n $kind ${opts[*]}: ${out##*PASS: }" | head -1 > "$work/res.$name"
    else
        { echo "FAIL $name n=$n $kind ${opts[*]}"; echo "$out" | tail -25; } > "$work/res.$name"
    fi
}

names=$("$TM" config --list "$tiers") || exit 2
start=$(date +%s)
# shellcheck disable=SC2086
pool "$jobs" cosim $names
runs=$(wc -w <<< "$names")
for name in $names; do
    cat "$work/res.$name"
    grep -q '^PASS' "$work/res.$name" || fails=$((fails + 1))
done

cat "$work"/cov.* > "$work/coverage" 2>/dev/null || true
if [ "$mode" != check ] || [ $# -ge 3 ]; then
    python3 "$root/testbench/coverage.py" "$work/coverage" || fails=$((fails + 1))
fi
echo "cosim ($tiers): $((runs - fails)) passed, $fails failed, $(( $(date +%s) - start )) s"
[ $fails -eq 0 ]
