#!/usr/bin/env bash
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
