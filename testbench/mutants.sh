#!/usr/bin/env bash
# The RTL's assertions fire: each mutant below breaks one rule of tm_buffer
# (docs/rtl.md, "Assertions") in a copy of the tree, and tm cosim of the
# forced-overflow configuration (4 cores, shared, smallest buffer, 1-bit
# port) must stop on a tm_buffer assertion, not pass and not fail on the
# comparison alone.  The unchanged copy must pass first (the harness works).
#   testbench/mutants.sh BUILD     (make regress; about a minute a mutant)
set -uo pipefail
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$root/$BUILD/bin/tm" ] && [ -f "$root/$BUILD/lib/libtm.a" ] ||
    { echo "mutants.sh: $root/$BUILD/bin/tm or lib/libtm.a is missing: build it first (make)" >&2; exit 2; }
work=$(mktemp -d /tmp/tm-mutants.XXXXXX)
trap 'rm -rf "$work"' EXIT
# tm cosim finds the tree from its own path: a copy of tm in a tree whose
# rtl/ is a copy (mutated), the rest links.
mkdir -p "$work/tree/build/bin" "$work/tree/build/lib"
for d in include testbench scripts; do ln -s "$root/$d" "$work/tree/$d"; done
cp "$root/$BUILD/bin/tm" "$work/tree/build/bin/tm"
cp "$root/$BUILD/lib/libtm.a" "$work/tree/build/lib/libtm.a"
"$root/$BUILD/bin/tm" gen --directed overflow --threads 4 --seed 304 -o "$work/s.tmc" 2> /dev/null ||
    { echo "mutants.sh: cannot generate the stream" >&2; exit 1; }
fails=0; runs=0

# mutant NAME FILE OLD NEW: FILE's one line OLD (exact) becomes NEW.
mutant() {
    local name=$1 file=$2 old=$3 new=$4 out
    rm -rf "$work/tree/rtl" "$work/tree/build/cosim"
    cp -r "$root/rtl" "$work/tree/rtl"
    if [ -n "$old" ]; then
        python3 - "$work/tree/rtl/$file" "$old" "$new" <<'PY' || { echo "FAIL $name: the line to change is not in $file exactly once"; fails=$((fails + 1)); return; }
import sys
p, old, new = sys.argv[1:]
s = open(p).read()
if s.count(old) != 1:
    sys.exit(1)
open(p, "w").write(s.replace(old, new))
PY
    fi
    runs=$((runs + 1))
    out=$("$work/tree/build/bin/tm" cosim --config large --encoding tr_e --timestamps --shared --buffer min --port 1 \
          -q "$work/s.tmc" 2>&1)
    local rc=$?
    if [ -z "$old" ]; then
        if [ $rc -eq 0 ]; then echo "ok: the unchanged RTL passes"; else
            echo "FAIL: the unchanged RTL does not pass:"; echo "$out" | tail -5; fails=$((fails + 1)); fi
    elif [ $rc -ne 0 ] && grep -q 'Assertion failed.*tm_buffer:' <<< "$out"; then
        echo "ok: $name: $(grep -o 'tm_buffer: .*' <<< "$out" | head -n 1)"
    else
        echo "FAIL $name: no tm_buffer assertion fired (exit $rc):"; echo "$out" | tail -5; fails=$((fails + 1))
    fi
}

mutant "unchanged" tm_buffer.sv "" ""
mutant "the reserve test removed" tm_buffer.sv \
    "(lostcnt == '0 || freeb - SW'(len_i[LENW*k +: LENW]) >= SW'(RESERVE));" "1'b1;"
mutant "the fit test of a resync removed" tm_buffer.sv \
    "ok = SW'(len_i[LENW*k +: LENW]) <= freeb;" "ok = 1'b1;"
mutant "a waiting resync reported as dropped" tm_buffer.sv \
    "drop_o[k]   = offer_i[k] && !ok && !resync_i[k];" "drop_o[k]   = offer_i[k] && !ok;"
mutant "the occupancy one short" tm_buffer.sv \
    "occ_d         = OCCW'(occ);" "occ_d         = OCCW'(occ) - OCCW'(occ != '0);"
mutant "the port always PORT_BITS lanes" tm_buffer.sv \
    "assign port_valid_o = PVW'(drain);" "assign port_valid_o = PVW'(PORT_BITS);"
mutant "a stray bit above every message" tm_core.sv \
    "assign offer_bits_o  = cbits;" "assign offer_bits_o  = cbits | (CMAXW'(1) << clen);"

echo "mutants: $((runs - 1)) mutants, $fails failing"
[ $fails -eq 0 ]
