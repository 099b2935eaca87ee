#!/usr/bin/env bash
# tm study (issue 18, docs/study.md): the study file's errors (one line naming
# the file, line and key; exit 2); a study of synthetic streams run whole, and
# the same study killed midway and run again (same results, nothing that was
# done recomputed); the report's figures render in a headless browser; a small
# study of a real program (mt_pthread) under tm record, verified by replay.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
S="$TMFAST study"   # the study drives the optimized tm (the sanitizer one is tested elsewhere)

# ---- the study file's errors ----
bad() {  # NAME EXPECTED-REGEX: the file $TMP/NAME.toml is refused so
    local out rc
    out=$($S -f "$TMP/$1.toml" -o "$TMP/bad-out" 2>&1 >/dev/null); rc=$?
    if [ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ "$out" =~ $2 ]]; then
        ok "bad study file $1: $out"
    else
        fail "bad study file $1: exit $rc, want 2 and one line matching '$2': $out"
    fi
}
printf '[study]\nthreads = [1, 2]\n\n[[program]]\nname = "a"\ncmd = "true"\n\n[[program]]\nname = "b"\ncmd = "true"\nfrob = 3\n' > "$TMP/unknown.toml"
bad unknown "unknown.toml:11: key 'program\[1\]\.frob': unknown key"
printf '[study]\nthreads = [1, 0]\n[[program]]\nname = "a"\ncmd = "true"\n' > "$TMP/range.toml"
bad range "range.toml:2: key 'study.threads': 0: allowed integers 1..1024"
printf '[study]\nthreads = [1,\n' > "$TMP/syntax.toml"
bad syntax "syntax.toml:[0-9]+: "
printf '[configs]\npresets = ["huge"]\n[[program]]\nname = "a"\ncmd = "true"\n' > "$TMP/preset.toml"
bad preset "preset.toml:2: key 'configs.presets': 'huge': allowed small, medium, large"
printf '[study]\nverify = 3\n[[program]]\nname = "a"\ncmd = "true"\n' > "$TMP/type.toml"
bad type "type.toml:2: key 'study.verify': expected str, got int 3"
printf '[[program]]\nname = "a"\n' > "$TMP/nocmd.toml"
bad nocmd "nocmd.toml:1: program\[0\] \(a\): give either 'cmd'"
printf '[[program]]\nname = "a"\ncmd = "cat {input}"\ninput = "no-such-file"\n' > "$TMP/noinput.toml"
bad noinput "noinput.toml:4: key 'program\[0\].input': 'no-such-file': no such file"
printf '[delivery]\nconfigs = ["tr_x-large"]\n[[program]]\nname = "a"\ncmd = "true"\n' > "$TMP/dlcfg.toml"
bad dlcfg "dlcfg.toml:2: key 'delivery.configs': 'tr_x-large': not a configuration"
printf '[[program]]\nname = "a"\ncmd = "no-such-program-here {N}"\n' > "$TMP/noprog.toml"
bad noprog "noprog.toml: program a: no-such-program-here: no such program"
out=$($S -f "$TMP/missing.toml" -o "$TMP/x" 2>&1); rc=$?
[ $rc -eq 2 ] && [[ "$out" == *"missing.toml: No such file"* ]] && ok "missing study file: $out" || fail "missing study file: exit $rc: $out"
for a in "--frob" "--jobs x" "--engine pbs"; do
    # shellcheck disable=SC2086
    out=$($S $a -o "$TMP/x" 2>&1); rc=$?
    [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && ok "$a: $out" || fail "$a: exit $rc: $out"
done
out=$($S --jobs 0 -o "$TMP/x" 2>&1); rc=$?
[ $rc -eq 2 ] && [[ "$out" == *"--jobs 0"* ]] && ok "--jobs 0: $out" || fail "--jobs 0: exit $rc: $out"

# ---- a study of synthetic streams: whole, then killed and resumed ----
cat > "$TMP/gen.toml" <<'EOF'
[study]
name = "synthetic"
threads = [1, 2, 4]
[configs]
presets = ["small", "large"]
encodings = ["nx_b", "tr_e"]
timestamps = [false, true]
[[data]]
name = "cfiat"
options = "--cfiat"
[[data]]
name = "all"
options = "--data all"
[[config]]
name = "c42"
options = "--config large --encoding tr_e --timestamps --chunks-bcnt 4,2 --chunks-ta 2,5 --chunks-cc 5,3"
[delivery]
configs = ["tr_e-large"]
ports = [1, 2, 8]
buffers = [512, 65536]
[chunks]
max = 6
[[program]]
name = "g1"
gen = { insns = 400000, seed = 3, mem = true }
[[program]]
name = "g2"
gen = { insns = 300000, seed = 11, mem = true }
[[program]]
name = "g3"
gen = { insns = 300000, seed = 5, mem = true }
EOF
if ! $S -f "$TMP/gen.toml" -o "$TMP/whole" --jobs 2 > "$TMP/whole.out" 2> "$TMP/whole.err"; then
    cat "$TMP/whole.err"; die "the synthetic study failed"
fi
ok "synthetic study: $(grep -c . "$TMP/whole.out") summary lines"
for f in index.html results.json summary.txt tables/table1.csv tables/table5.csv tables/table6.csv tables/table4.csv \
         tables/chunks.csv tables/buffer_sizing.csv tables/loss_curve.csv tables/cfiat.csv figures/fig9_cdf.svg \
         figures/fig14_timeline.svg; do
    [ -s "$TMP/whole/$f" ] && ok "report has $f" || fail "report lacks $f"
done
grep -q 'N=1' "$TMP/whole.out" && grep -q 'NX_b / TR_e-L' "$TMP/whole.out" && ok "summary: Table 5 totals and the ratio" \
    || fail "summary: $(cat "$TMP/whole.out")"
# every number checks against the recordings: Total = all bits / all instructions
python3 - "$TMP/whole" <<'PY' && ok "Table 5's Total and the chunk-size grid match the recordings (a run with other chunk sizes)" || fail "report numbers"
import json, sys, glob
d = sys.argv[1]
R = json.load(open(f"{d}/results.json"))
rec = {(x["program"], x["N"], x["config"]): x for x in R["recordings"]}
t5 = R["tables"]["table5"]
for row in t5["rows"]:
    if row[1] != "Total":
        continue
    for i, n in enumerate(R["N"]):
        xs = [rec[(p, n, row[0])] for p in R["programs"]]
        want = sum(x["bits"] for x in xs) / sum(x["instructions"] for x in xs)
        assert abs(row[2 + i] - want) < 1e-4, (row, n, want)
    assert row[-1] == "none", row
# the chunk exploration: its cells at (4,2), (2,5), (5,3) against a run with those chunk sizes
cache = [json.load(open(f)) for f in glob.glob(f"{d}/cache/*.json")]
n = max(R["N"])
G = R["chunk_grid"]
assert G["config"] == "ttr_e-large" and G["N"] == n, G["config"]
xs = {c["config"]: c for c in cache if c["N"] == n and c["program"] == "g1"}
def tot(cs):
    return sum(c["stats"]["total"]["bits"] for c in cache if c["N"] == n and c["config"] == cs), \
           sum(c["stats"]["total"]["instructions"] for c in cache if c["N"] == n and c["config"] == cs)
b0, ins = tot("ttr_e-large")
b1, _ = tot("c42")
g = G["bits_per_instruction"]
dflt = G["default"]
delta = sum(g[f][a - 1][b - 1] - g[f][dflt[f][0] - 1][dflt[f][1] - 1]
            for f, (a, b) in (("cnt", (4, 2)), ("diffta", (2, 5)), ("diffcc", (5, 3))))
assert abs(delta * ins - (b1 - b0)) < 0.5, (delta * ins, b1 - b0)
PY

# killed midway (after the first recording is cached), then run again
mkdir -p "$TMP/resumed"
$S -f "$TMP/gen.toml" -o "$TMP/resumed" --jobs 1 > /dev/null 2> "$TMP/killed.err" &
pid=$!
for _ in $(seq 1 600); do
    [ "$(ls "$TMP/resumed/cache" 2>/dev/null | grep -c '\.json$')" -gt 0 ] && break
    sleep 0.1
done
sleep 0.3
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" -ne 0 ] && ok "killed study exits $rc" || fail "killed study exited 0"
grep -q 'run the same command again to resume' "$TMP/killed.err" && ok "killed study says how to resume" \
    || fail "killed study: $(cat "$TMP/killed.err")"
ndone=$(ls "$TMP/resumed/cache" | grep -c '\.json$')
(cd "$TMP/resumed/cache" && stat -c '%n %i %Y' *.json | sort) > "$TMP/before"
if ! $S -f "$TMP/gen.toml" -o "$TMP/resumed" --jobs 2 > "$TMP/resumed.out" 2> "$TMP/resumed.err"; then
    cat "$TMP/resumed.err"; die "the resumed study failed"
fi
grep -q 'cached already (resuming)' "$TMP/resumed.err" && ok "resumed: $(grep 'resuming' "$TMP/resumed.err")" \
    || fail "resumed study did not resume: $(head -3 "$TMP/resumed.err")"
(cd "$TMP/resumed/cache" && stat -c '%n %i %Y' *.json | sort) > "$TMP/after"
if [ -n "$(comm -23 "$TMP/before" "$TMP/after")" ]; then
    fail "results done before the kill were recomputed: $(comm -23 "$TMP/before" "$TMP/after" | head -3)"
else
    ok "the $ndone results done before the kill were kept, not recomputed"
fi
python3 - "$TMP/whole/results.json" "$TMP/resumed/results.json" <<'PY' && ok "resumed study: the same tables" || fail "resumed study: tables differ"
import json, sys
a, b = (json.load(open(f))["tables"] for f in sys.argv[1:])
assert a == b, [k for k in a if a[k] != b.get(k)]
PY
cmp -s "$TMP/whole.out" "$TMP/resumed.out" && ok "resumed study: the same summary" || fail "resumed study: summary differs"
# a third run recomputes nothing and writes the same report
$S -f "$TMP/gen.toml" -o "$TMP/resumed" > /dev/null 2> "$TMP/third.err" && grep -q "cached already" "$TMP/third.err" \
    && ! grep -q 'recording [0-9]* configurations' "$TMP/third.err" && ok "a finished study reruns from the cache" \
    || fail "third run: $(cat "$TMP/third.err")"

# ---- the report in a real browser ----
if out=$(python3 "$ROOT/scripts/browser-check.py" "$TMP/whole/index.html" 2>&1); then
    ok "$out"
else
    fail "browser check: $out"
fi

# ---- a real program under tm record: mt_pthread, N = 1, 2 ----
cat > "$TMP/real.toml" <<'EOF'
[study]
threads = [1, 2]
verify = "commit"
[configs]
presets = ["large"]
encodings = ["nx_b", "tr_e"]
timestamps = [false, true]
[[data]]
name = "cfiat"
options = "--cfiat"
[delivery]
configs = ["tr_e-large"]
ports = [1, 4]
buffers = [4096]
[[program]]
name = "mt_pthread"
cmd = "{programs}/mt_pthread {N}"
EOF
if $S -f "$TMP/real.toml" -o "$TMP/real" --jobs 2 > "$TMP/real.out" 2> "$TMP/real.err"; then
    ok "real-program study: $(grep -c 'done, verified' "$TMP/real.err") recordings verified by replay"
    python3 - "$TMP/real/results.json" <<'PY' && ok "real-program study: every result verified from the binaries" || fail "real study results"
import json, sys
R = json.load(open(sys.argv[1]))
assert len(R["recordings"]) == 2 * 7, len(R["recordings"])  # 4 demand, 1 data, 2 delivery
for x in R["recordings"]:
    assert "from-binary --verify" in x["verified"], x
    assert x["instructions"] > 0
PY
else
    cat "$TMP/real.err"; fail "the real-program study failed"
fi
[ "$fails" -eq 0 ]
