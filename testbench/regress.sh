#!/usr/bin/env bash
# Co-simulation regression: tm cosim over a set of configurations and
# streams, then a coverage check (testbench/coverage.py): every bin must be
# hit.  Usage: testbench/regress.sh BUILD quick|full
#   quick (make test): 19 parameter sets covering every preset x encoding
#         pair (and tage-l, tage-m), time stamps on/off, private/shared and
#         N in {1,2,4,8}, plus
#         forced overflows (smallest buffer, 1-bit port), on random and
#         directed streams (tm gen --directed); 3 data tracing sets
#         (docs/rtl-data.md) on streams with memory operands (tm gen --mem);
#         and 2 tr_a sets (spec §4.9: every order of the adaptive codes);
#   full  (make regress): the whole product presets x encodings x time
#         stamps x private/shared x N in {1,2,4,8} (144 simulators).
set -uo pipefail
BUILD=${1:-build}
mode=${2:-quick}
root=$(cd "$(dirname "$0")/.." && pwd)
TM="$root/$BUILD/bin/tm"
case "$mode" in quick|full) ;; *) echo "regress.sh: mode '$mode': allowed are quick and full" >&2; exit 2;; esac
[ -x "$TM" ] || { echo "regress.sh: $TM is missing: build it first (make), or name the build directory: regress.sh BUILD quick|full" >&2; exit 2; }
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

cosim() {  # kind n args...
    local kind=$1 n=$2; shift 2
    local f; f=$(stream "$n" "$kind") || { echo "FAIL: cannot generate $kind-$n"; fails=$((fails + 1)); return; }
    runs=$((runs + 1))
    local cov="$work/cov.$runs"
    if out=$("$TM" cosim "$@" --cov "$cov" -q "$f" 2>&1); then
        echo "PASS n=$n $kind $*: ${out##*PASS: }" | head -1
    else
        echo "FAIL n=$n $kind $*"; echo "$out" | tail -25; fails=$((fails + 1))
    fi
}

if [ "$mode" = full ]; then
    for preset in small medium large; do
        for enc in nx_b tr_b tr_e; do
            for ts in "" --timestamps; do
                for sh in "" --shared; do
                    for n in 1 2 4 8; do
                        cosim rand $n --config $preset --encoding $enc $ts $sh
                        cosim samecycle $n --config $preset --encoding $enc $ts $sh
                        cosim ras $n --config $preset --encoding $enc $ts $sh
                        cosim ibtb $n --config $preset --encoding $enc $ts $sh
                    done
                done
            done
        done
    done
fi
# The covering set (also part of the full run): every preset x encoding pair,
# time stamps on and off, private and shared, N in {1, 2, 4, 8}, and the
# directed streams of tm gen --directed.
cosim rand      1 --config large  --encoding tr_e
cosim chunks    1 --config large  --encoding tr_e --timestamps
cosim chunks    1 --config medium --encoding tr_b --timestamps
cosim chunks    1 --config small  --encoding nx_b --timestamps
cosim samecycle 8 --config large  --encoding tr_e --timestamps --shared
cosim rand      2 --config large  --encoding tr_b --timestamps
cosim rand      4 --config large  --encoding nx_b --shared
cosim ibtb      2 --config medium --encoding tr_e --shared
cosim ras       8 --config medium --encoding tr_b
cosim rand      1 --config medium --encoding nx_b --timestamps
cosim rand      4 --config small  --encoding tr_e --timestamps --ts-bits 12
cosim ras       1 --config small  --encoding tr_b --timestamps --shared
cosim samecycle 8 --config small  --encoding nx_b
# Forced overflows: the smallest buffer and a 1-bit port.
cosim overflow  4 --config large  --encoding tr_e --timestamps --shared --buffer min --port 1
cosim overflow  2 --config small  --encoding nx_b --buffer min --port 1
cosim overflow  8 --config medium --encoding tr_b --timestamps --buffer min --port 1
cosim hard      1 --config small  --encoding tr_e --buffer min --port 1
# The TAGE-class predictors (spec §3.3.1-2): tage-l private (TAGE and ITTAGE,
# one port each), and tiny TAGE / ITTAGE tables shared by 4 cores (4
# sequential ports, forwarding within a cycle; contention for every entry:
# deep tables, failed allocations) with overflows (predictor clears).
cosim rand      2 --config tage-l --encoding tr_e
cosim rand      4 --config tage-m --encoding tr_b --timestamps --shared --tage 16 --tage-tables 4 --tage-entries 2 \
    --tage-tag 4 --tage-hist 1:8 --ittage 2 --ittage-tables 3 --ittage-entries 2 --ittage-tag 4 --ittage-hist 1:4
# Data tracing: CFiat with the default cache on 4 cores (invalidations,
# same-cycle stores, overflows and flag clears at the default 32-bit port),
# every load reported with the smallest buffer and a 4-bit port (shared
# predictors: drops by lower cores), and CFiat with a small cache of 16-byte
# lines (operands on up to 5 lines) on one core.
cosim mem       4 --config large  --encoding tr_e --cfiat
cosim mem       2 --config medium --encoding tr_b --timestamps --shared --data all --buffer min --port 4
cosim mem       1 --config small  --encoding nx_b --cfiat --cache 1K --assoc 2 --line 16 --granularity 4 --port 8

# The adaptive encoding (spec §4.9): ttr_a on one core over every directed
# scenario (bCnt and diffCC up to 2^20 drive both accumulators through
# every order 0..12; target escapes; the overflow phase drops, and its
# SYNC(OVERFLOW) resets a state that had moved), and tr_a shared by 4 cores
# with forced overflows (the reserve rule with tr_a's RESERVE).
cosim all       1 --config large  --encoding tr_a --timestamps
cosim overflow  4 --config large  --encoding tr_a --shared --buffer min --port 1

cat "$work"/cov.* > "$work/coverage" 2>/dev/null || true
python3 "$root/testbench/coverage.py" "$work/coverage" || fails=$((fails + 1))
echo "cosim: $((runs - fails)) passed, $fails failed"
[ $fails -eq 0 ]
