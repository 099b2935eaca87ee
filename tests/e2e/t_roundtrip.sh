#!/usr/bin/env bash
# tier: test
# Round trips model -> decode --verify for every preset x encoding x time
# stamps x private/shared x N in {1,2,3,4,8}, and the same with forced
# overflows (the smallest buffer and a 1-bit port), which must still verify
# after resynchronization.  Model and decoder run in the sanitizer build.
set -euo pipefail
runs=0; overflows=0
# the configurations: the manifest's e2e-grid tier (rtl/configs.txt)
grid=$("$TMFAST" config --list e2e-grid)
[ -n "$grid" ] || { echo "FAIL: tm config --list e2e-grid lists nothing"; exit 1; }
for n in 1 2 3 4 8; do
    "$TMFAST" gen --threads $n --insns 150000 --seed $((40 + n)) -o "$TMP/g$n.tmc"
    # An unpredictable stream for the forced overflows: even tr_e's short
    # messages then outrun a 1-bit port.
    "$TMFAST" gen --threads $n --insns 60000 --seed $((50 + n)) --predictability 0 --exc-rate 0.05 -o "$TMP/h$n.tmc"
    for c in $grid; do
        read -r -a args < <("$TMFAST" config "$c" --format opts)
        [ ${#args[@]} -gt 0 ] || { echo "FAIL: tm config $c --format opts: no options"; exit 1; }
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
echo "round trips: $runs verified, $overflows with overflows verified"

# Bandwidth is demand: a run that dropped messages carries its losses beside
# every bpi (the thread table's "in gaps" column, the bandwidth line) and
# says lossless false in its JSON; a run that dropped nothing carries none.
"$TM" model --encoding nx_b "$TMP/h4.tmc" -o "$TMP/o.tmt" --stats "$TMP/o.json" > "$TMP/o.txt"
"$TM" model --encoding nx_b --port 1024 --buffer 65536 "$TMP/h4.tmc" -o "$TMP/l.tmt" --stats "$TMP/l.json" > "$TMP/l.txt"
python3 - "$TMP" <<'PY'
import json, re, sys
d = sys.argv[1]
o, l = open(f"{d}/o.txt").read(), open(f"{d}/l.txt").read()
oj, lj = json.load(open(f"{d}/o.json")), json.load(open(f"{d}/l.json"))
assert oj["total"]["dropped_messages"] > 0 and oj["lossless"] is False, "the default port was to drop messages"
assert lj["total"]["dropped_messages"] == 0 and lj["lossless"] is True, "the 1024-bit port dropped messages"
head = next(x for x in o.splitlines() if x.startswith("thread"))
assert head.split()[-2:] == ["in", "gaps"], head
tot = next(x for x in o.splitlines() if x.startswith("total")).split()
gaps = float(tot[-1].rstrip("%"))
want = 100 * oj["total"]["lost_instructions"] / oj["total"]["instructions"]
assert abs(gaps - want) < 0.001, (gaps, want)
bw = next(x for x in o.splitlines() if x.startswith("bandwidth:"))
m = re.search(r"WITH LOSSES: (\d+) messages \((\d+) bits\) dropped, (\d+) instructions", bw)
assert m and int(m.group(1)) == oj["total"]["dropped_messages"] and int(m.group(3)) == oj["total"]["lost_instructions"], bw
assert "in gaps" not in l and "LOSSES" not in l, "a lossless run reported losses"
print(f"losses beside bpi: {oj['total']['dropped_messages']} dropped, {gaps}% of instructions in gaps")
PY
