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
# the paper beside the numbers: results.json's "paper" holds study/paper.py's published numbers, and
# each comparison's measured total and ratio are computed from the recordings
python3 - "$TMP/whole" "$ROOT/study" <<'PY' && ok "results.json paper: the published totals, and measured / paper from the recordings" || fail "results.json paper section"
import json, sys
d, sd = sys.argv[1:]
sys.path.insert(0, sd)
import paper
R = json.load(open(f"{d}/results.json"))
P = R["paper"]
assert P["source"] == paper.CITATION and P["differs"] == paper.DIFFERS, P["source"]
assert P["published"] == json.loads(json.dumps(paper.as_json())), "published numbers differ from study/paper.py"
assert P["published"]["table5_total"]["tr_e-large"]["8"] == 0.045 and P["published"]["table4"]["large"]["outcome"]["1"] == 5.27
rec = {(x["program"], x["N"], x["config"]): x for x in R["recordings"]}
def tot(n, c, per="instructions"):
    xs = [rec[(p, n, c)] for p in R["programs"]]
    return sum(x["bits"] for x in xs) / sum(x[per] for x in xs)
C = {(r["quantity"], r["N"]): r for r in P["comparison"]}
want = {"NX_b bits per instruction": ("nx_b-large", paper.TABLE5_TOTAL["nx_b"], "instructions"),
        "TR_e-L bits per instruction": ("tr_e-large", paper.TABLE5_TOTAL["tr_e-large"], "instructions"),
        "tNX_b bits per instruction": ("tnx_b-large", paper.TABLE6_TOTAL["tnx_b"], "instructions"),
        "tTR_e-L bits per instruction": ("ttr_e-large", paper.TABLE6_TOTAL["ttr_e-large"], "instructions"),
        "NX_b bits per cycle": ("nx_b-large", paper.TABLE2_TOTAL["nx_b"]["bpc"], "execution_cycles"),
        "TR_e-L bits per cycle": ("tr_e-large", paper.FIG11_TOTAL["tr_e-large"], "execution_cycles")}
for q, (c, pub, per) in want.items():
    for n in R["N"]:
        if n not in pub:
            assert (q, n) not in C, (q, n)
            continue
        r = C[(q, n)]
        m = tot(n, c, per)
        assert r["config"] == c and r["paper"] == pub[n] and abs(r["measured"] - m) < 1e-4, (r, m)
        assert abs(r["ratio"] - r["measured"] / r["paper"]) < 2e-3, r
for n in R["N"]:   # the ratio NX_b / TR_e-L, measured and from Table 5's Totals
    r = C[("NX_b / TR_e-L", n)]
    assert abs(r["measured"] - tot(n, "nx_b-large") / tot(n, "tr_e-large")) < 2e-3, r
    assert r["paper"] == round(paper.TABLE5_TOTAL["nx_b"][n] / paper.TABLE5_TOTAL["tr_e-large"][n], 2), r
    assert C[("tNX_b / tTR_e-L", 1)]["paper"] == 16.3   # the ratio the text states (section 6.2)
    r = C[("outcome mispredicted, large", n)]   # Table 4 against the model's predictors (tr_e-large)
    xs = [rec[(p, n, "tr_e-large")] for p in R["programs"]]
    assert r["paper"] == paper.TABLE4["large"]["outcome"][n], r
assert not [r for r in P["comparison"] if r["N"] not in paper.NS or "medium" in r["quantity"] or "TR_b" in r["quantity"]]
assert [c for c in R["tables"]["paper"]["columns"]][-3:] == ["measured here", "paper", "measured / paper"]
# the threads that ran beside N; the nx_b rows shown once (they are identical) and kept in the table
for t in ("table5", "table6", "table5_bpc", "table6_bpc"):
    assert R["tables"][t]["threads_ran"]["N=4"] == {"avg": 4.0, "min": 4, "max": 4, "programs": {"g1": 4, "g2": 4, "g3": 4}}
ident = R["tables"]["table5"]["identical"]
assert ident == [{"label": "nx_b (any preset: small, large)", "configs": ["nx_b-small", "nx_b-large"]}], ident
rows = {(r[0], r[1]): r[2:] for r in R["tables"]["table5"]["rows"]}
assert rows[("nx_b-small", "g2")] == rows[("nx_b-large", "g2")] and rows[("tr_e-small", "g2")] != rows[("tr_e-large", "g2")]
assert R["tables"]["table4"]["columns"][:3] == ["preset", "N", "threads ran"]
PY
s=$TMP/whole/summary.txt
h=$TMP/whole/index.html
grep -q "^The paper beside this study" "$s" && grep -q '^What differs: the paper measured the 10 SPLASH-2' "$s" \
    && grep -qE '^NX_b bpi +0\.[0-9]+ +0\.789 +[0-9.]+ +0\.[0-9]+ +0\.858 ' "$s" \
    && grep -qE '^TR_e-L bpi +0\.[0-9]+ +0\.033 ' "$s" && grep -qE '^outcome mispr\. % large +[0-9.]+ +5\.27 ' "$s" \
    && grep -qE '^ +N=1 \(ran 1\) +N=2 \(ran 2\) +N=4 \(ran 4\)  losses' "$s" \
    && grep -q '^nx_b (any preset: small, large) ' "$s" && ! grep -q '^nx_b-large ' "$s" && grep -q '^tr_e-large ' "$s" \
    && ok "summary: the paper's totals beside ours, the threads that ran, nx_b once" || fail "summary: $(cat "$s")"
# every abbreviation is defined before its first use: in summary.txt and in index.html
python3 - "$s" "$h" <<'PY' && ok "summary.txt and index.html define NX_b, TR_e-L, tTR_e-L, bpi, bpc, PT+cyc, ... first" || fail "abbreviations used before their definition"
import re, sys
s, h = (open(f).read() for f in sys.argv[1:])
s = " ".join(s.split())
h = re.sub(r"<[^>]+>", " ", h[h.index("<body>"):])   # the page's text: the terms come before the first paragraph
for term, defn in (("NX_b", "NX_b ="), ("bpi", "bpi ="), ("bpc", "bpc ="), ("IPC", "IPC ="), ("TR_e", "TR_e ="),
                   ("TR_e-L", "TR_e-L = tr_e-large"), ("tTR_e-L", "tTR_e-L = ttr_e-large"), ("PT+cyc", "PT+mtc, PT+cyc ="),
                   ("diffCC", "Ti, bCnt, iCnt, diffTA, diffCC ="), ("bCnt", "Ti, bCnt, iCnt, diffTA, diffCC =")):
    assert s.find(term) >= 0 and s.find(defn) == s.find(term) - defn.find(term), ("summary.txt", term)
    assert h.find("Terms") < h.find(term) < h.find(" programs; N = "), ("index.html", term)
PY
grep -q '<h2 id="terms">Terms</h2>' "$h" && grep -q '<th>N=4 (ran 4)</th>' "$h" && grep -q '<td>nx_b (any preset: small, large)</td>' "$h" \
    && grep -q 'the paper measured the 10 SPLASH-2 benchmarks' "$h" && grep -q '<h3 id="paper">' "$h" \
    && ok "index.html: terms, the threads that ran beside N, nx_b once, the paper's table and what differs" || fail "index.html lacks the paper or the terms"
# the chunk-size exploration's best pair on its range's edge: a warning in the table, the caption and the summary
mkdir -p "$TMP/edge" && cp -r "$TMP/whole/cache" "$TMP/edge/" && sed 's/^max = 6/max = 3/' "$TMP/gen.toml" > "$TMP/edge.toml"
if $S -f "$TMP/edge.toml" -o "$TMP/edge" --report-only > "$TMP/edge.out" 2> "$TMP/edge.err" \
    && grep -q '^Chunk-size exploration (table chunks): WARNING: the best (i0, i1) lies on the edge' "$TMP/edge.out" \
    && ! grep -q 'WARNING' "$TMP/whole.out" && python3 -c '
import json, sys
R = json.load(open(sys.argv[1]))
rows = R["tables"]["chunks"]["rows"]
assert [r[-1] for r in rows] == ["no", "WARNING: i0=1, i1=3 (range 1..3)", "WARNING: i0=3 (range 1..3)"], rows
cap = next(f["caption"] for f in R["figures"] if f["file"] == "figures/chunks.svg")
assert "WARNING" in cap and "diffTA (1,3) of 1..3" in cap, cap' "$TMP/edge/results.json"; then
    ok "chunk sizes: the best pair on the edge of 1..3 is warned about (table, caption, summary); not on 1..6"
else
    cat "$TMP/edge.err"; fail "chunk sizes: no edge warning: $(tail -3 "$TMP/edge.out")"
fi

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
