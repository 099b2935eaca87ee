#!/usr/bin/env bash
# Round trips model -> decode --verify for every preset x encoding x time
# stamps x private/shared x N in {1,2,3,4,8}, and the same with forced
# overflows (the smallest buffer and a 1-bit port), which must still verify
# after resynchronization.  Model and decoder run in the sanitizer build.
set -euo pipefail
runs=0; overflows=0
for n in 1 2 3 4 8; do
    "$TMFAST" gen --threads $n --insns 150000 --seed $((40 + n)) -o "$TMP/g$n.tmc"
    # An unpredictable stream for the forced overflows: even tr_e's short
    # messages then outrun a 1-bit port.
    "$TMFAST" gen --threads $n --insns 60000 --seed $((50 + n)) --predictability 0 --exc-rate 0.05 -o "$TMP/h$n.tmc"
    for enc in nx_b tr_b tr_e; do
        for preset in small medium large; do
            for ts in "" --timestamps; do
                for sh in "" --shared; do
                    args=(--config $preset --encoding $enc $ts $sh)
                    "$TM" model "${args[@]}" -q "$TMP/g$n.tmc" -o "$TMP/t.tmt" --stats "$TMP/s.json"
                    "$TM" decode --verify "$TMP/g$n.tmc" "$TMP/t.tmt" > "$TMP/v.txt" || {
                        echo "verify failed: n=$n ${args[*]}"; cat "$TMP/v.txt"; exit 1; }
                    grep -q '^OK:' "$TMP/v.txt"
                    runs=$((runs + 1))
                    # Forced overflow: smallest buffer, 1-bit port.
                    "$TM" model "${args[@]}" --buffer min --port 1 -q "$TMP/h$n.tmc" -o "$TMP/o.tmt" --stats "$TMP/o.json"
                    "$TM" decode --verify "$TMP/h$n.tmc" "$TMP/o.tmt" > "$TMP/v.txt" || {
                        echo "overflow verify failed: n=$n ${args[*]}"; cat "$TMP/v.txt"; exit 1; }
                    python3 - "$TMP/o.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["buffer"]["dropped_messages"] > 0, "expected the tiny buffer to overflow"
assert s["total"]["messages"]["sync_overflow"] + s["total"]["messages"]["end"] > 0
PY
                    overflows=$((overflows + 1))
                done
            done
        done
    done
done
echo "round trips: $runs verified, $overflows with overflows verified"
