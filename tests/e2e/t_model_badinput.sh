#!/usr/bin/env bash
# tier: check
# Out-of-range options and bad files: one clear line, nonzero exit, no crash.
set -uo pipefail
"$TMFAST" gen --threads 2 --insns 20000 --seed 1 -o "$TMP/g.tmc" || exit 1
fails=0
check() {  # expected-status pattern command...
    local want=$1 pat=$2; shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"; local st=$?
    if [ $st -ne $want ]; then echo "FAIL ($st, wanted $want): $*"; cat "$TMP/err"; fails=$((fails+1)); return; fi
    if [ "$(wc -l < "$TMP/err")" -ne 1 ] || ! grep -q -- "$pat" "$TMP/err"; then
        echo "FAIL (message): $*"; cat "$TMP/err"; fails=$((fails+1)); return; fi
    if grep -q 'Sanitizer' "$TMP/err"; then echo "FAIL (sanitizer): $*"; fails=$((fails+1)); fi
}
check 2 '--gshare 300: allowed 0 or a power of two' "$TM" model --gshare 300 "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 '--ibtb 48: allowed' "$TM" model --ibtb 48 "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 '--ras 33: allowed 0 to 32' "$TM" model --ras 33 "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 '--encoding tr_x: allowed nx_b, tr_b, tr_e' "$TM" model --encoding tr_x "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 '--config huge: allowed small, medium, large' "$TM" model --config huge "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 '--buffer 16: allowed' "$TM" model --buffer 16 "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 '--port 0: allowed 1..1024' "$TM" model --port 0 "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 '--ts-bits 7: allowed 8..64' "$TM" model --ts-bits 7 "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 '--chunks-bcnt 0,2' "$TM" model --chunks-bcnt 0,2 "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 "unknown option '--frobnicate'" "$TM" model --frobnicate "$TMP/g.tmc" -o "$TMP/x.tmt"
check 2 'no output' "$TM" model "$TMP/g.tmc"
check 1 "$TMP/missing.tmc" "$TM" model "$TMP/missing.tmc" -o "$TMP/x.tmt"
check 2 "unknown option '--bogus'" "$TM" decode --bogus x.tmt
check 2 'needs the commit stream and the trace' "$TM" decode --verify "$TMP/g.tmc"
# A trace file: corrupt, truncated, not a trace, wrong stream.
"$TM" model -q "$TMP/g.tmc" -o "$TMP/t.tmt" || exit 1
head -c 40 "$TMP/t.tmt" > "$TMP/cut.tmt"
check 1 "$TMP/cut.tmt: offset 40: truncated" "$TM" decode "$TMP/cut.tmt"
head -c $(( $(stat -c %s "$TMP/t.tmt") - 10 )) "$TMP/t.tmt" > "$TMP/cut2.tmt"
check 1 "cut2.tmt: offset .*: trailer missing" "$TM" decode "$TMP/cut2.tmt"
printf 'hello world, this is not a trace file at all...........................................' > "$TMP/junk.tmt"
check 1 'junk.tmt: offset 0: not a tm trace file' "$TM" decode "$TMP/junk.tmt"
"$TMFAST" gen --threads 2 --insns 20000 --seed 2 -o "$TMP/other.tmc" || exit 1
"$TM" decode --verify "$TMP/other.tmc" "$TMP/t.tmt" > "$TMP/out" 2>"$TMP/err"
st=$?
if [ $st -ne 1 ] || ! grep -q '^MISMATCH:' "$TMP/out"; then echo "FAIL: wrong stream not detected ($st)"; cat "$TMP/out" "$TMP/err"; fails=$((fails+1)); fi
# Flip bits in the trace body: verify must fail cleanly (exit 1, no crash).
python3 - "$TMP/t.tmt" "$TMP" <<'PY'
import sys
data = bytearray(open(sys.argv[1], 'rb').read())
body = len(data) - 64 - (28 + 8 * int.from_bytes(data[8:12], 'little'))  # header, trailer (spec §5)
for k, frac in enumerate((0.1, 0.5, 0.9)):
    d = bytearray(data)
    d[64 + int(body * frac)] ^= 0x10
    open(f"{sys.argv[2]}/flip{k}.tmt", 'wb').write(d)
PY
for k in 0 1 2; do
    "$TM" decode --verify "$TMP/g.tmc" "$TMP/flip$k.tmt" > "$TMP/out" 2>"$TMP/err"; st=$?
    if [ $st -ne 1 ] || grep -q Sanitizer "$TMP/err"; then echo "FAIL: flipped bit $k ($st)"; cat "$TMP/out" "$TMP/err"; fails=$((fails+1)); fi
done
[ $fails -eq 0 ]
