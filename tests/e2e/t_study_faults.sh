#!/usr/bin/env bash
# tier: test
# tm study's faults (issue 33 §3): damaged cache entries (truncated, empty,
# garbled, edited) are reported in one line each, set aside and recomputed;
# a second study on the same folder is refused naming the holder; a signal
# stops the running recording and starts no other; --list and --report-only
# write nothing (--report-only uses the folder's own study); malformed values
# in the study file get one FILE:LINE line; a failing program's error line
# is one bounded line.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
S="$TMFAST study"

# ---- damaged cache entries ----
cat > "$TMP/g.toml" <<'EOF'
[study]
threads = [1, 2]
[configs]
presets = ["small", "large"]
encodings = ["nx_b", "tr_e"]
timestamps = [false]
[[program]]
name = "g1"
gen = { insns = 100000, seed = 3 }
[[program]]
name = "g2"
gen = { insns = 100000, seed = 4 }
EOF
$S -f "$TMP/g.toml" -o "$TMP/g" > "$TMP/g1.out" 2> "$TMP/g1.err" || { cat "$TMP/g1.err"; die "synthetic study failed"; }
cp "$TMP/g/results.json" "$TMP/results.first"
c=$TMP/g/cache
e1=$(ls "$c"/g1-N1.tr_e-large.*.json); e2=$(ls "$c"/g1-N2.nx_b-small.*.json)
e3=$(ls "$c"/g2-N1.tr_e-small.*.json); e4=$(ls "$c"/g2-N2.tr_e-large.*.json); e5=$(ls "$c"/pt/g1-N1.*.json)
head -c 300 "$e1" > "$e1.x" && mv "$e1.x" "$e1"                     # truncated
: > "$e2"                                                          # empty
printf '\x00\xff garbage' > "$e3"                                 # garbled
python3 - "$e4" <<'PY'                                            # hand-edited: a number changed, valid JSON
import json, sys
r = json.load(open(sys.argv[1]))
r["stats"]["total"]["bits"] += 1000
json.dump(r, open(sys.argv[1], "w"))
PY
python3 - "$e5" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["stats"]["bits"] = 7
json.dump(r, open(sys.argv[1], "w"))
PY
if $S -f "$TMP/g.toml" -o "$TMP/g" > "$TMP/g2.out" 2> "$TMP/g2.err"; then
    n=$(grep -c '^tm study: cache entry .*; set aside as .*/cache/bad/.*, it is recomputed$' "$TMP/g2.err")
    [ "$n" -eq 5 ] && ok "5 damaged cache entries reported, set aside, recomputed: $(grep 'cache entry' "$TMP/g2.err" | sed 's/.*: \([^:;]*\); set aside.*/\1/' | sort -u | paste -sd '|')" \
        || fail "damaged entries: $n lines: $(cat "$TMP/g2.err")"
    python3 - "$TMP/results.first" "$TMP/g/results.json" <<'PY' && ok "the recomputed study has the first one's tables" || fail "tables differ after recomputing"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["tables"] == b["tables"], [k for k in a["tables"] if a["tables"][k] != b["tables"].get(k)]
for x, y in zip(a["pt"]["recordings"], b["pt"]["recordings"]):
    x.pop("pt_seconds", None), y.pop("pt_seconds", None)   # how long tm pt took
    assert x == y, {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)}
PY
    [ "$(ls "$c/bad" | wc -l)" -eq 5 ] && ok "cache/bad holds the 5 entries" || fail "cache/bad: $(ls "$c/bad")"
else
    cat "$TMP/g2.err"; fail "the study with damaged cache entries failed"
fi

# ---- one study per folder; a signal stops it and starts nothing new ----
cat > "$TMP/sl.toml" <<'EOF'
[study]
threads = [1, 2]
verify = "none"
pt = false
[configs]
presets = ["large"]
encodings = ["tr_e"]
timestamps = [false]
[[program]]
name = "sleeper"
cmd = "sleep @M@{N}1"
EOF
M=$((1000 + $$ % 8000))   # the sleeps' marker: this run's own (another run's study may be going on)
sed -i "s/@M@/$M/" "$TMP/sl.toml"
$S -f "$TMP/sl.toml" -o "$TMP/sl" > /dev/null 2> "$TMP/sl.err" &
pid=$!
for _ in $(seq 1 300); do pgrep -f "sleep ${M}11" > /dev/null && break; sleep 0.1; done
pgrep -f "sleep ${M}11" > /dev/null || fail "the first recording did not start: $(cat "$TMP/sl.err")"
out=$($S -f "$TMP/sl.toml" -o "$TMP/sl" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ "$out" == *"in use by tm study pid $pid on "* ]] \
    && ok "a second study on the folder is refused: $out" || fail "second study: exit $rc: $out"
[ -d "$TMP/sl/work/sleeper-N1" ] && ok "the first study's work folder is intact" || fail "the second study removed the first's work folder"
kill -TERM "$pid"; wait "$pid"; rc=$?
sleep 1
left=$(pgrep -af "sleep ${M}[12]1" || true)
[ $rc -eq 143 ] && [ -z "$left" ] && grep -q 'stopped by signal 15' "$TMP/sl.err" \
    && ok "SIGTERM: exit 143, no recording running or started after it" \
    || fail "SIGTERM: exit $rc, still running: '$left': $(cat "$TMP/sl.err")"
pkill -f "sleep ${M}[12]1" 2>/dev/null || true
out=$($S -f "$TMP/sl.toml" -o "$TMP/sl" --list 2>&1); rc=$?
[ $rc -eq 0 ] && ok "the lock ends with the study (--list after it: exit 0)" || fail "--list after the stopped study: $out"

# ---- --list and --report-only write nothing ----
printf '[study]\nthreads = [1]\n[[program]]\nname = "big"\ncmd = "cat {input}"\ninput = "text:200M"\n' > "$TMP/big.toml"
out=$($S -f "$TMP/big.toml" -o "$TMP/list-out" --list 2>&1); rc=$?
[ $rc -eq 0 ] && [ ! -e "$TMP/list-out" ] && [[ "$out" == big-N1:* ]] && ok "--list writes nothing: $out" \
    || fail "--list: exit $rc, $(ls -R "$TMP/list-out" 2>&1 | head -3): $out"
n=$($S -f "$TMP/big.toml" -o "$TMP/list-out" --list | head -c 3; echo " ${PIPESTATUS[0]}")
[ "$n" = "big 0" ] && ok "--list | head: exit 0, quietly" || fail "--list | head: '$n'"
cp "$TMP/g/study.toml" "$TMP/g.study.before"
if $S --report-only -o "$TMP/g" > "$TMP/ro.out" 2> "$TMP/ro.err"; then
    cmp -s "$TMP/g/study.toml" "$TMP/g.study.before" && [ ! -e "$TMP/g/inputs" ] \
        && ok "--report-only reports the folder's own study and leaves its study.toml as it was" \
        || fail "--report-only changed study.toml or wrote inputs"
else
    fail "--report-only without -f: $(cat "$TMP/ro.err")"
fi
printf '[study]\nthreads = [1]\n[[program]]\nname = "big"\ncmd = "cat {input}"\ninput = "text:300M"\n' > "$TMP/huge.toml"

# ---- malformed values: one line FILE:LINE, exit 2 ----
bad() {  # NAME REGEX: $TMP/NAME.toml is refused in one line
    local out rc
    out=$($S -f "$TMP/$1.toml" -o "$TMP/bad-out" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ "$out" =~ $2 ]] && [[ "$out" != *Traceback* ]]; then
        ok "$1: $out"
    else
        fail "$1: exit $rc, want 2 and one line matching '$2': $out"
    fi
}
bad huge "huge.toml:6: key 'program\[0\].input': 'text:300M': text:SIZE allows 1 byte to 256M"
prog() { printf '[study]\nthreads = [1]\n[[program]]\nname = "p"\n%s\n' "$2" > "$TMP/$1.toml"; }
prog banana 'cmd = "true"
cores = "banana"'
bad banana "banana.toml:6: key 'program\[0\].cores': 'banana': allowed \"auto\""
prog emptycmd 'cmd = ""'
bad emptycmd "emptycmd.toml:5: key 'program\[0\].cmd': empty"
prog emptylist 'cmd = []'
bad emptylist "emptylist.toml:5: key 'program\[0\].cmd': empty"
prog quote "cmd = \"sh -c 'echo\""
bad quote "quote.toml:5: key 'program\[0\].cmd': .*No closing quotation"
printf '[[config]]\nname = "x/y"\noptions = "--encoding tr_e"\n[[program]]\nname = "p"\ncmd = "true"\n' > "$TMP/slash.toml"
bad slash "slash.toml:2: key 'config\[0\].name': 'x/y': a configuration name is part of file names"
printf '[study]\ntiming = "--cpi \x27 1"\n[[program]]\nname = "p"\ncmd = "true"\n' > "$TMP/timing.toml"
bad timing "timing.toml:2: key 'study.timing': .*No closing quotation"
printf '[study]\ncores = 0\n[[program]]\nname = "p"\ncmd = "true"\n' > "$TMP/cores0.toml"
bad cores0 "cores0.toml:2: key 'study.cores': 0: allowed"

# ---- a failing program's error line: one line of bounded length ----
printf '#!/bin/sh\nprintf "x%%.0s" $(seq 1 3000) >&2\necho >&2\nexit 1\n' > "$TMP/long.sh"; chmod +x "$TMP/long.sh"
printf '[study]\nthreads = [1]\nverify = "none"\npt = false\n[configs]\npresets = ["large"]\nencodings = ["tr_e"]\ntimestamps = [false]\n[[program]]\nname = "long"\ncmd = "%s"\n' "$TMP/long.sh" > "$TMP/long.toml"
$S -f "$TMP/long.toml" -o "$TMP/long-out" > /dev/null 2> "$TMP/long.err"; rc=$?
mx=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$TMP/long.err")
[ $rc -eq 1 ] && [ "$mx" -le 500 ] && grep -q 'long-N1: ' "$TMP/long.err" && ok "a failing program: exit 1, lines of at most $mx characters" \
    || fail "a failing program: exit $rc, longest line $mx: $(head -c 600 "$TMP/long.err")"
[ "$fails" -eq 0 ]
