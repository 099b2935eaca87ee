#!/usr/bin/env bash
# tier: test
# tm study (issue 18, docs/study.md): the study file's errors (one line naming
# the file, line and key; exit 2); a study of synthetic streams run whole, and
# the same study killed midway and run again (same results, nothing that was
# done recomputed); the report's figures render in a headless browser; a small
# study of real programs (mt_pthread, pigz) under tm record, verified by
# replay, with each recording's Intel PT (tm pt, verified by libipt's decoder)
# beside the trace module's encodings; PT skipped without a commit stream.
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
bad preset "preset.toml:2: key 'configs.presets': 'huge': allowed small, medium, large, tage-s, tage-m, tage-l"
printf '[study]\nverify = 3\n[[program]]\nname = "a"\ncmd = "true"\n' > "$TMP/type.toml"
bad type "type.toml:2: key 'study.verify': expected str, got int 3"
printf '[study]\npt = "yes"\n[[program]]\nname = "a"\ncmd = "true"\n' > "$TMP/pttype.toml"
bad pttype "pttype.toml:2: key 'study.pt': expected bool, got str 'yes'"
printf '[[program]]\nname = "a"\n' > "$TMP/nocmd.toml"
bad nocmd "nocmd.toml:1: program\[0\] \(a\): give either 'cmd'"
printf '[[program]]\nname = "a"\ncmd = "cat {input}"\ninput = "no-such-file"\n' > "$TMP/noinput.toml"
bad noinput "noinput.toml:4: key 'program\[0\].input': 'no-such-file': no such file"
printf '[delivery]\nconfigs = ["tr_x-large"]\n[[program]]\nname = "a"\ncmd = "true"\n' > "$TMP/dlcfg.toml"
bad dlcfg "dlcfg.toml:2: key 'delivery.configs': 'tr_x-large': not a configuration"
printf '[[program]]\nname = "a"\ncmd = "no-such-program-here {N}"\n' > "$TMP/noprog.toml"
bad noprog "noprog.toml: program 'a': no-such-program-here: not found on PATH"
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
         figures/fig14_timeline.svg tables/pt.csv figures/pt_bpi.svg; do
    [ -s "$TMP/whole/$f" ] && ok "report has $f" || fail "report lacks $f"
done
grep -q 'N=1' "$TMP/whole.out" && grep -q 'NX_b / TR_e-L' "$TMP/whole.out" && grep -q '^PT / TR_e-L' "$TMP/whole.out" \
    && grep -q '^PT+cyc / tTR_e-L' "$TMP/whole.out" && grep -q '^PT+mtc ' "$TMP/whole.out" \
    && ok "summary: Table 5/6 totals (with PT, PT+mtc, PT+cyc), the NX_b and PT ratios" \
    || fail "summary: $(cat "$TMP/whole.out")"
grep -q '<meta name="tm-figures" content="9">' "$TMP/whole/index.html" && ok "index.html lists 9 figures (with pt_bpi)" \
    || fail "index.html: $(grep -o '<meta name="tm-figures"[^>]*>' "$TMP/whole/index.html")"
# every number checks against the recordings: Total = all bits / all instructions
python3 - "$TMP/whole" <<'PY' && ok "Table 5's Total and the chunk-size grid match the recordings (a run with other chunk sizes)" || fail "report numbers"
import json, sys, glob
d = sys.argv[1]
R = json.load(open(f"{d}/results.json"))
rec = {(x["program"], x["N"], x["config"]): x for x in R["recordings"]}
# Intel PT of the synthetic streams: tm pt --no-image (no code to decode: not verified)
pt = {(x["program"], x["N"]): x for x in R["pt"]["recordings"]}
assert R["pt"]["skipped"] is None and len(pt) == len(R["programs"]) * len(R["N"]), R["pt"]
for x in pt.values():
    assert x["verify"] is None and "no code" in x["verified"], x
    assert x["instructions"] == rec[(x["program"], x["N"], "tr_e-large")]["instructions"], x
    assert x["cycles"] == rec[(x["program"], x["N"], "tr_e-large")]["execution_cycles"], x
    assert [r["format"] for r in x["rows"]] == ["PT", "PT+mtc", "PT+cyc"] and all(r["bits"] > 0 for r in x["rows"]), x
for name in ("table5", "table6", "table5_bpc", "table6_bpc"):
    per = "cycles" if name.endswith("bpc") else "instructions"
    rows = R["tables"][name]["rows"]
    assert [r[0] for r in rows if r[1] == "Total"][-3:] == ["PT", "PT+mtc", "PT+cyc"], (name, rows)
    for row in rows:
        if row[1] != "Total":
            continue
        for i, n in enumerate(R["N"]):
            if row[0].startswith("PT"):
                xs = [pt[(p, n)] for p in R["programs"]]
                want = sum(r["bits"] for x in xs for r in x["rows"] if r["format"] == row[0]) / sum(x[per] for x in xs)
                assert want > 0, row
            else:
                xs = [rec[(p, n, row[0])] for p in R["programs"]]
                want = sum(x["bits"] for x in xs) / sum(x["execution_cycles" if per == "cycles" else per] for x in xs)
            assert abs(row[2 + i] - want) < 1e-4, (name, row, n, want)
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

# ---- PT needs the commit stream: skipped, and the report says so, with verify = "binary" or pt = false ----
for v in 'verify = "binary"' 'pt = false'; do
    printf '[study]\nthreads = [1]\n%s\n[configs]\npresets = ["large"]\nencodings = ["tr_e"]\ntimestamps = [false]\n[[program]]\nname = "g"\ngen = { insns = 20000, seed = 3 }\n' "$v" > "$TMP/nopt.toml"
    rm -rf "$TMP/nopt"
    if $S -f "$TMP/nopt.toml" -o "$TMP/nopt" > "$TMP/nopt.out" 2> "$TMP/nopt.err" \
        && grep -q '^Intel PT (tm pt): not computed: ' "$TMP/nopt.out" && grep -q 'Intel PT: not computed' "$TMP/nopt/index.html" \
        && [ ! -e "$TMP/nopt/tables/pt.csv" ] && [ ! -e "$TMP/nopt/figures/pt_bpi.svg" ] && [ ! -e "$TMP/nopt/cache/pt" ] \
        && python3 -c '
import json, sys
R = json.load(open(sys.argv[1]))
assert R["pt"]["skipped"] and not R["pt"]["recordings"], R["pt"]
assert not [r for r in R["tables"]["table5"]["rows"] if r[0].startswith("PT")]' "$TMP/nopt/results.json"; then
        ok "$v: no PT, and the report says so: $(grep '^Intel PT' "$TMP/nopt.out")"
    else
        cat "$TMP/nopt.err" "$TMP/nopt.out"; fail "$v: PT not skipped, or not said so"
    fi
done

# ---- real programs under tm record: mt_pthread and pigz, N = 1, 2, with Intel PT ----
command -v pigz > /dev/null || die "pigz is not installed (make deps)"
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
[[program]]
name = "pigz"
cmd = "pigz -p {N} -c {input}"
input = "text:128K"
EOF
if $S -f "$TMP/real.toml" -o "$TMP/real" --jobs 2 --keep-work > "$TMP/real.out" 2> "$TMP/real.err"; then
    ok "real-program study: $(grep -c 'done, verified' "$TMP/real.err") recordings verified by replay"
    python3 - "$TMP/real/results.json" <<'PY' && ok "real-program study: every result verified from the binaries, every PT by libipt's decoder" || fail "real study results"
import json, sys
R = json.load(open(sys.argv[1]))
assert len(R["recordings"]) == 4 * 7, len(R["recordings"])  # 2 programs x 2 N; 4 demand, 1 data, 2 delivery
for x in R["recordings"]:
    assert "from-binary --verify" in x["verified"], x
    assert x["instructions"] > 0
rec = {(x["program"], x["N"], x["config"]): x for x in R["recordings"]}
assert R["pt"]["skipped"] is None and len(R["pt"]["recordings"]) == 4, R["pt"]
for x in R["pt"]["recordings"]:
    assert x["verify"]["ok"] and x["verify"]["checked"] == x["instructions"] > 0, x
    assert "tm pt --verify" in x["verified"], x
    assert x["instructions"] == rec[(x["program"], x["N"], "tr_e-large")]["instructions"], x
    assert [r["format"] for r in x["rows"]] == ["PT", "PT+mtc", "PT+cyc"], x
    assert all(r["bits"] > 0 and r["bpi"] > 0 and r["bpc"] > 0 for r in x["rows"]), x
    assert x["rows"][0]["bits"] < x["rows"][1]["bits"] < x["rows"][2]["bits"], x   # timing packets cost bits
# PT's bits per instruction against TR_e-L's, in Table 5: larger for pigz (about 0.17 against 0.08 to 0.10)
row = {(r[0], r[1]): r[2:2 + len(R["N"])] for r in R["tables"]["table5"]["rows"]}
for i, n in enumerate(R["N"]):
    assert row[("PT", "pigz")][i] > row[("tr_e-large", "pigz")][i] > 0, (n, row[("PT", "pigz")], row[("tr_e-large", "pigz")])
t = R["tables"]["pt"]
c = t["columns"]
for r in t["rows"]:
    assert r[c.index("verified by libipt")] == ("2 of 2" if r[0] == "Total" else "ok"), r
    assert r[c.index("PT / TR_e-L")] > 0 and r[c.index("PT+cyc / tTR_e-L")] > 0, r
PY
    grep -q '^PT / TR_e-L' "$TMP/real.out" && ok "real-program study: $(grep '^PT / TR_e-L' "$TMP/real.out")" \
        || fail "real-program study: no PT / TR_e-L ratio: $(cat "$TMP/real.out")"
    # results.json's PT rows are what tm pt reports on the recording's kept commit stream
    w=$TMP/real/work/pigz-N2
    ls "$w"/pt.T*.pt > /dev/null 2>&1 && ok "--keep-work keeps the PT buffers ($(ls "$w" | grep -c '^pt\.T'))" \
        || fail "--keep-work: no PT buffers in $w: $(ls "$w")"
    if $TMFAST pt "$w/c0.tmc" -o "$TMP/ptagain" --timing-variants --verify --stats "$TMP/ptagain.json" -q; then
        python3 - "$TMP/real/results.json" "$TMP/ptagain.json" <<'PY' && ok "PT in results.json = tm pt on the kept commit stream (pigz, N=2)" || fail "PT in results.json differs from tm pt's"
import json, sys
R = json.load(open(sys.argv[1]))
P = json.load(open(sys.argv[2]))
x = next(x for x in R["pt"]["recordings"] if x["program"] == "pigz" and x["N"] == 2)
assert P["verify"]["ok"]
for k in ("instructions", "cycles", "bits", "bpi", "bpc"):
    assert x[k] == P[k], (k, x[k], P[k])
assert x["rows"] == [{k: r[k] for k in ("format", "bits", "bpi", "bpc")} for r in P["compare"]], (x["rows"], P["compare"])
PY
        for f in "$w"/pt.T*.pt; do
            cmp -s "$f" "$TMP/ptagain.${f##*/pt.}" || fail "the kept ${f##*/} differs from tm pt's"
        done
    else
        fail "tm pt on the kept commit stream $w/c0.tmc failed"
    fi
else
    cat "$TMP/real.err"; fail "the real-program study failed"
fi
[ "$fails" -eq 0 ]
