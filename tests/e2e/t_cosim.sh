#!/usr/bin/env bash
# tier: test
# tm cosim: the issue's command lines pass; an injected fault is reported as a
# MISMATCH with the cycle, the core and a field-by-field table, exit 1, and
# --wave writes an FST waveform; bad options are usage errors.
set -euo pipefail
"$TMFAST" gen --threads 4 --insns 200000 --seed 3 -o "$TMP/c.tmc"
"$TMFAST" cosim --config large --encoding tr_e "$TMP/c.tmc" 2>/dev/null | tee "$TMP/out1"
grep -q '^PASS: 200000 instructions' "$TMP/out1"
"$TMFAST" cosim --config small --encoding nx_b --timestamps --shared "$TMP/c.tmc" 2>/dev/null | tee "$TMP/out2"
grep -q '^PASS: 200000 instructions' "$TMP/out2"
# The simulator is built once per parameter set: a second run reuses it, and
# a newer libtm.a makes the next run relink it (and only that one run).
"$TMFAST" cosim --config large --encoding tr_e -q "$TMP/c.tmc" > /dev/null 2> "$TMP/again"
if grep -q 'building the simulator' "$TMP/again"; then echo "rebuilt without a change"; exit 1; fi
touch "$(dirname "$TMFAST")/../lib/libtm.a"
"$TMFAST" cosim --config large --encoding tr_e -q "$TMP/c.tmc" > /dev/null 2> "$TMP/again"
grep -q 'building the simulator' "$TMP/again"
"$TMFAST" cosim --config large --encoding tr_e -q "$TMP/c.tmc" > /dev/null 2> "$TMP/again"
if grep -q 'building the simulator' "$TMP/again"; then echo "rebuilt without a change"; exit 1; fi
# Two tm cosim of one parameter set at once (parallel tests, two shells):
# one relinks the simulator, the other waits on its lock and finds it up to
# date; both pass.  (Without the lock both built it in the same folder.)
touch "$(dirname "$TMFAST")/../lib/libtm.a"
"$TMFAST" cosim --config large --encoding tr_e -q "$TMP/c.tmc" > "$TMP/p1" 2> "$TMP/p1.err" & pp=$!
"$TMFAST" cosim --config large --encoding tr_e -q "$TMP/c.tmc" > "$TMP/p2" 2> "$TMP/p2.err"
wait $pp
grep -q '^PASS: 200000 instructions' "$TMP/p1" && grep -q '^PASS: 200000 instructions' "$TMP/p2"
[ "$(cat "$TMP/p1.err" "$TMP/p2.err" | grep -c 'building the simulator')" -eq 1 ] ||
    { echo "two concurrent runs: $(cat "$TMP/p1.err" "$TMP/p2.err" | grep -c 'building the simulator') builds"; exit 1; }
# '--' ends the options: a commit stream whose name begins with '-'.
cp "$TMP/c.tmc" "$TMP/-c.tmc"
(cd "$TMP" && "$TMFAST" cosim --config large --encoding tr_e -q -- -c.tmc) | grep -q '^PASS: 200000 instructions'
set +e
"$TMFAST" cosim --config large --encoding tr_e --inject-fault 20000 --wave "$TMP/w.fst" "$TMP/c.tmc" > "$TMP/out3" 2>&1
st=$?
set -e
cat "$TMP/out3"
[ $st -eq 1 ]
grep -q '^MISMATCH: cycle [0-9]*, core [0-9]: ' "$TMP/out3"
grep -q 'cnt .*<--' "$TMP/out3"
[ -s "$TMP/w.fst" ]
set +e
"$TMFAST" cosim --port 65 "$TMP/c.tmc" 2>"$TMP/err"; st=$?
set -e
[ $st -eq 2 ] && grep -q -- '--port 65: co-simulation supports 1..64' "$TMP/err"
set +e
"$TMFAST" cosim --gshare 3 "$TMP/c.tmc" 2>"$TMP/err"; st=$?
set -e
[ $st -eq 2 ] && grep -q -- '--gshare 3: allowed' "$TMP/err"
# Data tracing (docs/rtl-data.md): CFiat co-simulates (the parameter set of a
# regress.sh quick run, so the simulator is shared); a fault in a DATA
# message is reported field by field; the shared cache organization and a
# cache with fewer sets than lines per operand are refused with one line.
"$TMFAST" gen --threads 4 --insns 100000 --seed 3 --mem -o "$TMP/m.tmc"
dopts=(--config large --encoding tr_e --cfiat)
"$TMFAST" cosim "${dopts[@]}" "$TMP/m.tmc" 2>/dev/null | tee "$TMP/out4"
grep -q '^PASS: 100000 instructions, .* DATA' "$TMP/out4"
grep -q '^cache coverage' "$TMP/out4"
set +e
"$TMFAST" cosim "${dopts[@]}" --inject-fault 0 "$TMP/m.tmc" > "$TMP/out5" 2>&1; st=$?
set -e
cat "$TMP/out5"
[ $st -eq 1 ] && grep -q '^MISMATCH: cycle [0-9]*, core [0-9]: DATA message differs' "$TMP/out5"
grep -q 'fahCnt .*<--' "$TMP/out5"
set +e
"$TMFAST" cosim --cfiat --cfiat-shared "$TMP/m.tmc" 2>"$TMP/err"; st=$?
set -e
[ $st -eq 2 ] && grep -q -- '--cfiat-shared: the RTL builds private caches only' "$TMP/err" && [ "$(wc -l < "$TMP/err")" -eq 1 ]
set +e
"$TMFAST" cosim --cfiat --cache 1K --assoc 64 --line 16 "$TMP/m.tmc" 2>"$TMP/err"; st=$?
set -e
[ $st -eq 2 ] && grep -q -- '--assoc 64 (with --cache 1024 --line 16): 1 set, but the RTL cache needs at least 5' "$TMP/err"
