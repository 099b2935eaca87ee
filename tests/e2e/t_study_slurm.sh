#!/usr/bin/env bash
# tier: check
# tm study --engine slurm (issue 18, docs/study.md): a small study of
# synthetic streams submitted to a single-node Slurm cluster that this test
# starts itself (scripts/slurm-local.sh: munged, slurmctld, slurmd on
# localhost) and stops at the end: the recordings run as a job array, the
# report as a job after it; the results equal a local run's.  Then a
# recording that fails: the report job fails and says which result is missing.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
S="$TMFAST study"
D=$(mktemp -d /tmp/tm-slurm.XXXXXX)
trap 'bash "$ROOT/scripts/slurm-local.sh" stop "$D"; rm -rf "$D"' EXIT
bash "$ROOT/scripts/slurm-local.sh" start "$D" || die "cannot start the single-node Slurm cluster"
# shellcheck disable=SC1091
. "$D/env.sh"
ok "single-node Slurm cluster up ($(sinfo -h -o '%N %t'))"
cat > "$TMP/s.toml" <<'TOML'
[study]
threads = [1, 2]
[configs]
presets = ["large"]
encodings = ["nx_b", "tr_e"]
timestamps = [false, true]
[delivery]
configs = ["tr_e-large"]
ports = [1, 8]
buffers = [4096]
[[program]]
name = "g1"
gen = { insns = 200000, seed = 3 }
[[program]]
name = "g2"
gen = { insns = 150000, seed = 9 }
TOML
mkdir -p "$D/study"
if $S -f "$TMP/s.toml" --engine slurm --wait --jobs 2 -o "$D/study" > "$TMP/slurm.out" 2> "$TMP/slurm.err"; then
    ok "slurm study: $(grep -m1 'submitted' "$TMP/slurm.err")"
else
    cat "$TMP/slurm.err"; tail -5 "$D"/study/slurm/*.out 2>/dev/null; die "the Slurm study failed"
fi
[ "$(ls "$D"/study/slurm/unit-*.out | wc -l)" -eq 4 ] && ok "4 array tasks ran" || fail "array task outputs: $(ls "$D/study/slurm")"
[ -s "$D/study/index.html" ] && ok "the report job wrote index.html" || fail "no index.html"
$S -f "$TMP/s.toml" -o "$TMP/local" > /dev/null 2> "$TMP/local.err" || { cat "$TMP/local.err"; die "the local study failed"; }
python3 - "$D/study/results.json" "$TMP/local/results.json" <<'PY' && ok "Slurm and local runs: the same tables" || fail "Slurm and local tables differ"
import json, sys
a, b = (json.load(open(f))["tables"] for f in sys.argv[1:])
assert a == b, [k for k in a if a[k] != b.get(k)]
PY
# a recording that fails (the program exits 1): the report job says what is missing
cat > "$TMP/f.toml" <<'TOML'
[study]
threads = [1]
[configs]
presets = ["large"]
encodings = ["tr_e"]
timestamps = [false]
[[program]]
name = "fails"
cmd = "false"
TOML
mkdir -p "$D/fail"
$S -f "$TMP/f.toml" --engine slurm -o "$D/fail" 2> "$TMP/fail.err" || die "submit: $(cat "$TMP/fail.err")"
for _ in $(seq 1 120); do [ -s "$D/fail/slurm/report.status" ] && break; sleep 1; done
st=$(cat "$D/fail/slurm/report.status" 2>/dev/null)
if [ -n "$st" ] && [ "$st" != 0 ] && grep -q 'results missing' "$D/fail/slurm/report.out"; then
    ok "failed recording: the report job fails: $(grep -m1 'missing' "$D/fail/slurm/report.out")"
else
    fail "failed recording: report status '$st': $(cat "$D/fail/slurm/report.out" 2>/dev/null)"
fi
[ "$fails" -eq 0 ]
