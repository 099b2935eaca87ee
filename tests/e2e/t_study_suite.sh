#!/usr/bin/env bash
# tier: test
# tm study on a suite-style benchmark (issue 33, docs/study.md "Programs of
# real suites"): three C programs built here — one reading its input from
# standard input (stdin), one opening a file relative to its directory (cwd),
# one whose input file is written per N by a setup command (setup, input =
# "in.{N}") — each checked by its output (expect), recorded at N = 1, 2,
# verified from the binaries, with Intel PT, and reported; the pre-flight
# (a missing program, directory or input, an output option, a repeated N:
# one line, exit 2, nothing recorded); the cache key covers the files a
# command names (an edited script is recorded again); a failing setup and an
# unmet expect fail their unit in one line.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
S="$TMFAST study"
D=$TMP/suite
mkdir -p "$D/bin" "$D/run/params" "$D/inputs"
for p in sum_stdin rel_file per_n; do
    cc -O1 -pthread -o "$D/bin/$p" "$ROOT/tests/e2e/suite/$p.c" || die "cc $p.c"
done
seq 1 3000 > "$D/numbers.txt"
echo 30000 > "$D/run/params/iters"
echo "threads @N@ work 20000" > "$D/template"
head='[study]
threads = [1, 2]
[configs]
presets = ["large"]
encodings = ["nx_b", "tr_e"]
timestamps = [false]
'
cat > "$D/suite.toml" <<EOF
$head
[[program]]
name = "sum_stdin"
cmd = "./sum_stdin {N}"          # in bin/, its numbers on standard input
cwd = "bin"
stdin = "numbers.txt"
expect = "TEST PASSED"

[[program]]
name = "rel_file"
cmd = "../bin/rel_file {N}"      # opens params/iters relative to run/
cwd = "run"
expect = "TEST PASSED"

[[program]]
name = "per_n"
cmd = "bin/per_n {N} {input}"    # refuses an input made for another N
cwd = "."
input = "inputs/in.{N}"
setup = "sed 's/@N@/{N}/' template > {input}"
expect = "^threads {N}: "
EOF
t0=$(date +%s)
if $S -f "$D/suite.toml" -o "$TMP/suite-out" > "$TMP/suite.out" 2> "$TMP/suite.err"; then
    ok "suite study: $(grep -c 'done, verified' "$TMP/suite.err") recordings verified ($(( $(date +%s) - t0 )) s)"
else
    cat "$TMP/suite.err"; die "the suite study failed"
fi
python3 - "$TMP/suite-out/results.json" <<'PY' && ok "suite study: every (program, N) recorded, verified from the binaries (with Intel PT), per-N work seen" || fail "suite study results"
import json, sys
R = json.load(open(sys.argv[1]))
rec = {(x["program"], x["N"], x["config"]): x for x in R["recordings"]}
assert sorted({(p, n) for p, n, _ in rec}) == sorted((p, n) for p in ("sum_stdin", "rel_file", "per_n") for n in (1, 2)), rec.keys()
for x in R["recordings"]:
    assert "from-binary --verify" in x["verified"] and x["instructions"] > 0, x
assert len(R["pt"]["recordings"]) == 6 and all(x["verify"]["ok"] for x in R["pt"]["recordings"]), R["pt"]
ins = {(p, n): rec[(p, n, "tr_e-large")]["instructions"] for p in ("sum_stdin", "rel_file", "per_n") for n in (1, 2)}
# per_n: each of N threads does the work its input gives; sum_stdin read 3000 numbers (scanf: > 1M instructions)
assert ins[("per_n", 2)] > ins[("per_n", 1)] + 100000, ins
assert ins[("sum_stdin", 1)] > 1000000, ins
# the machine the cycles come from, beside every per-cycle table (issue 34)
M = R["machine"]
assert "instruction cache 8 KB 2-way" in M["description"] and "fed by the memory operands' addresses" in M["description"] \
    and "memory +200 cycles" in M["description"] and "L2 (N=1: 64 KB; N=2: 128 KB)" in M["description"], M["description"]
assert all(0 < v < 1 for v in M["ipc_per_core"].values()), M["ipc_per_core"]
for t in ("table1", "table2", "table5_bpc", "pt"):
    assert R["tables"][t]["machine"] == M["description"] and R["tables"][t]["ipc_per_core"], t
assert {r["quantity"] for r in R["paper"]["comparison"]} >= {"IPC per core", "NX_b bits per cycle"}, R["paper"]["comparison"]
PY

# the folder's copy of the study keeps the original's folder for its relative paths
# (--report-only, and Slurm's jobs, read DIR/study.toml)
if (cd / && $S --report-only -o "$TMP/suite-out" > /dev/null 2> "$TMP/ro.err"); then
    ok "--report-only from another directory: the copy's relative paths (cwd, stdin, input) still resolve"
else
    fail "--report-only of the suite: $(cat "$TMP/ro.err")"
fi

# ---- pre-flight: before anything is recorded, one line each, exit 2 ----
preflight() {  # NAME REGEX: $D/NAME.toml is refused before recording, in under 10 s
    local out rc t0=$SECONDS
    rm -rf "$TMP/pf-out"
    out=$($S -f "$D/$1.toml" -o "$TMP/pf-out" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && [[ "$out" =~ $2 ]] \
        && [ ! -e "$TMP/pf-out" ] && [ $((SECONDS - t0)) -lt 10 ]; then
        ok "pre-flight $1 ($((SECONDS - t0)) s): $out"
    else
        fail "pre-flight $1: exit $rc, want 2, one line matching '$2', no folder, < 10 s: $out"
    fi
}
pf() { printf '%s\n[[program]]\nname = "p"\n%s\n' "$head" "$2" > "$D/$1.toml"; }
pf noprog 'cmd = "bin/no_such_prog {N}"
cwd = "."'
preflight noprog "^tm study: .*noprog.toml: program 'p': .*bin/no_such_prog: no such file$"
pf noprogs 'cmd = "{programs}/no_such_prog {N}"'
preflight noprogs "program 'p': .*/no_such_prog: no such file \(make programs builds it\)$"
pf nopath 'cmd = "no-such-tool-here {N}"'
preflight nopath "program 'p': no-such-tool-here: not found on PATH"
pf nocwd 'cmd = "./sum_stdin {N}"
cwd = "nodir"'
preflight nocwd "program 'p': cwd .*nodir: no such directory"
pf nostdin 'cmd = "bin/sum_stdin {N}"
cwd = "."
stdin = "nofile.txt"'
preflight nostdin "nostdin.toml:[0-9]+: key 'program\[0\].stdin': 'nofile.txt': no such file"
pf noinputn 'cmd = "bin/per_n {N} {input}"
cwd = "."
input = "inputs/none.{N}"'
preflight noinputn "program 'p': .*inputs/none.1: no such file \\(and 1 more\\)$"
printf 'not an ELF\n' > "$D/bin/text"; chmod +x "$D/bin/text"
pf notelf 'cmd = "bin/text"
cwd = "."'
preflight notelf "program 'p': .*bin/text: neither an ELF executable nor a script"
pf outopt 'cmd = "bin/sum_stdin {N}"
[[config]]
name = "c"
options = "--encoding tr_e -o x"'
preflight outopt "outopt.toml:[0-9]+: key 'config\[0\].options': -o: an output option"
printf '[study]\nthreads = [1, 2, 1]\n[[program]]\nname = "p"\ncmd = "true"\n' > "$D/dupn.toml"
preflight dupn "dupn.toml:2: key 'study.threads': \[1, 2, 1\]: 1 appears twice"

# ---- the cache key covers the bytes of the files the command names ----
cat > "$D/s.sh" <<'EOF'
i=0; while [ $i -lt 200 ]; do i=$((i + 1)); done; echo TEST PASSED
EOF
printf '[study]\nthreads = [1]\npt = false\n[configs]\npresets = ["large"]\nencodings = ["tr_e"]\ntimestamps = [false]\n[[program]]\nname = "script"\ncmd = ["/bin/sh", "s.sh"]\ncwd = "."\nexpect = "PASSED"\n' > "$D/script.toml"
ins() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recordings"][0]["instructions"])' "$1"; }
if $S -f "$D/script.toml" -o "$TMP/script-out" > /dev/null 2> "$TMP/script1.err"; then
    i1=$(ins "$TMP/script-out/results.json")
    sed -i 's/200/400/' "$D/s.sh"
    $S -f "$D/script.toml" -o "$TMP/script-out" > /dev/null 2> "$TMP/script2.err"
    i2=$(ins "$TMP/script-out/results.json")
    if ! grep -q 'cached already' "$TMP/script2.err" && [ "$i2" -gt "$i1" ]; then
        ok "an edited script is recorded again ($i1 -> $i2 instructions)"
    else
        fail "edited s.sh reused the old result ($i1 -> $i2): $(cat "$TMP/script2.err")"
    fi
else
    fail "script study: $(cat "$TMP/script1.err")"
fi

# ---- a failing setup, an unmet expect: their unit fails in one line ----
unit_fails() {  # NAME BODY REGEX
    printf '[study]\nthreads = [1]\npt = false\n[configs]\npresets = ["large"]\nencodings = ["tr_e"]\ntimestamps = [false]\n[[program]]\nname = "p"\ncwd = "."\n%s\n' "$2" > "$D/$1.toml"
    local out rc
    out=$($S -f "$D/$1.toml" -o "$TMP/$1-out" 2>&1 >/dev/null); rc=$?
    line=$(printf '%s\n' "$out" | grep -E "$3" | head -1)
    if [ $rc -eq 1 ] && [ -n "$line" ] && [ ${#line} -lt 700 ]; then
        ok "$1: $line"
    else
        fail "$1: exit $rc, want 1 and a line matching '$3': $out"
    fi
}
unit_fails setup 'cmd = "bin/per_n 1 {input}"
input = "inputs/x.{N}"
setup = "echo no template here >&2; exit 3"' "p-N1: setup exited 3 .*: no template here\)$"
unit_fails expect 'cmd = "bin/sum_stdin 1"
expect = "NEVER PRINTED"' "p-N1: its standard output does not match expect = 'NEVER PRINTED' .*its last line"
unit_fails nomake 'cmd = "bin/per_n 1 {input}"
input = "inputs/y.{N}"
setup = "true"' "p-N1: input .*inputs/y.1: no such file after the setup"
[ "$fails" -eq 0 ]
