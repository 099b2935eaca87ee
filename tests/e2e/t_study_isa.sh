#!/usr/bin/env bash
# tier: test
# tm study across ISAs (issue 37, docs/study.md "Programs of other ISAs"): a
# study of mt_pthread on x86-64 (Valgrind) and its AArch64 twin (QEMU,
# frontend = "qemu", cross-compiled by make isa-own-aarch64 into {isa} =
# build/isa) at N = 1, 2 with nx_b-large and tr_e-large: both recorded and
# verified, Intel PT for the x86-64 recordings only (the report says so), the
# table isa (tables/isa.csv) with each ISA's bits per instruction equal to its
# recordings' bits / instructions and the ratio aarch64 / x86-64, the figure
# isa_bpi; the pre-flight names a missing ISA program and a wrong frontend in
# one line.  Needs qemu-aarch64 and aarch64-linux-gnu-gcc: without them, one
# line and exit 77 (not run).  About 20 s.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
S="$TMFAST study"
if ! command -v qemu-aarch64 >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null ||
    [ ! -d /usr/aarch64-linux-gnu/lib ]; then
    echo "t_study_isa: needs qemu-user (qemu-aarch64) and aarch64-linux-gnu-gcc with its C library (make deps); not run"
    exit 77
fi
[ -f "$B/lib/qemu/tm_qemu.so" ] || die "$B/lib/qemu/tm_qemu.so is not built (make)"
make -s -C "$ROOT" isa-own-aarch64 >"$TMP/make.log" 2>&1 ||
    die "make isa-own-aarch64: $(grep -m1 -E 'error|not found' "$TMP/make.log")"
[ -x "$P/mt_pthread" ] || die "$P/mt_pthread is not built (make programs)"

# ---- the pre-flight: a missing ISA program, an AArch64 program without frontend = "qemu" ----
printf '[[program]]\nname = "m-a64"\ncmd = "{isa}/aarch64/no-such-program {N}"\nfrontend = "qemu"\n' > "$TMP/missing.toml"
out=$($S -f "$TMP/missing.toml" -o "$TMP/x" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
    [[ "$out" == *"program 'm-a64': build/isa/aarch64/no-such-program: no such file (make isa-programs builds it)"* ]] &&
    ok "missing ISA program: $out" || fail "missing ISA program: exit $rc: $out"
printf '[[program]]\nname = "m-a64"\ncmd = "{isa}/aarch64/mt_pthread {N}"\n' > "$TMP/nofe.toml"
out=$($S -f "$TMP/nofe.toml" -o "$TMP/x" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
    [[ "$out" == *"an aarch64 ELF file; frontend valgrind records x86-64 programs (frontend = \"qemu\" records aarch64)"* ]] &&
    ok "AArch64 program without frontend qemu: $out" || fail "without frontend qemu: exit $rc: $out"

# ---- the study: mt_pthread on x86-64 and AArch64 ----
cat > "$TMP/isa.toml" <<'TOML'
[study]
name = "isa"
threads = [1, 2]
[configs]
presets = ["large"]
encodings = ["nx_b", "tr_e"]
timestamps = [false]
[[program]]
name = "mt_pthread"
cmd = "{programs}/mt_pthread {N}"
[[program]]
name = "mt_pthread-a64"
cmd = "{isa}/aarch64/mt_pthread {N}"
frontend = "qemu"
TOML
O=$TMP/isa-out
if (cd "$ROOT" && $S -f "$TMP/isa.toml" -o "$O" --jobs 2) >"$TMP/isa.out" 2>"$TMP/isa.err"; then
    ok "the cross-ISA study ran ($(grep -c 'done, verified' "$TMP/isa.err") recordings verified)"
    if python3 - "$O" <<'PY'
import csv, json, sys
o = sys.argv[1]
r = json.load(open(f"{o}/results.json"))
rows = list(csv.DictReader(open(f"{o}/tables/isa.csv")))
rec = {(x["program"], x["N"], x["config"]): x for x in r["recordings"]}
assert len(rows) == 2 * 2 + 2 * 2, rows              # mt_pthread and Total, N = 1, 2, two configurations
for row in rows:
    n, c = int(row["N"]), row["configuration"]
    x86, a64 = rec[("mt_pthread", n, c)], rec[("mt_pthread-a64", n, c)]
    for x, col in ((x86, "x86-64"), (a64, "aarch64")):
        want = round(x["bits"] / x["instructions"], 5)
        assert abs(float(row[f"{col} bpi"]) - want) < 1e-9, (row, col, want)
        assert int(row[f"{col} instructions"]) == x["instructions"], (row, col)
    ratio = round((a64["bits"] / a64["instructions"]) / (x86["bits"] / x86["instructions"]), 3)
    assert abs(float(row["aarch64 / x86-64"]) - ratio) < 1e-9, (row, ratio)
assert r["tables"]["isa"]["isas"] == ["x86-64", "aarch64"]
assert {(x["program"], x["N"]) for x in r["pt"]["recordings"]} == {("mt_pthread", 1), ("mt_pthread", 2)}, r["pt"]
assert r["pt"]["not_x86"] == [{"program": "mt_pthread-a64", "isa": "aarch64"}], r["pt"]["not_x86"]
assert any(f["file"] == "figures/isa_bpi.svg" for f in r["figures"])
print("ok   the table isa: " + "; ".join(f"{x['program']} N={x['N']} {x['configuration']}: x86-64 {x['x86-64 bpi']}, "
                                        f"aarch64 {x['aarch64 bpi']}" for x in rows if x["program"] != "Total"))
PY
    then ok "the table isa agrees with the recordings' bits and instructions"
    else fail "the table isa"; fi
    grep -q "Intel PT (tm pt) is computed for the x86-64 recordings only" "$TMP/isa.out" &&
        ok "the summary says PT is x86-64 only" || fail "the summary does not say PT is x86-64 only"
    grep -q "^mt_pthread  *1  *tr_e-large " "$TMP/isa.out" && ok "the summary prints the table isa" ||
        fail "the summary lacks the table isa: $(cat "$TMP/isa.out")"
    [ -s "$O/figures/isa_bpi.svg" ] && ok "figure isa_bpi drawn" || fail "no figure isa_bpi"
    # each ISA's own standard (tm std, docs/standards.md): a table and a figure per ISA
    python3 - "$O" <<'PY' && ok "tables std_x86-64 (PT, by tm pt) and std_aarch64 (ETMv4, every variant verified)" ||
import csv, json, sys
o = sys.argv[1]
for isa, first, ver in (("x86-64", "PT bpi", "PT (by tm pt --verify)"), ("aarch64", "ETMv4 bpi", "yes")):
    rows = list(csv.DictReader(open(f"{o}/tables/std_{isa}.csv")))
    assert rows and all(r["verified"] == ver for r in rows), (isa, rows)
    assert all(float(r[first]) > float(r["tage-l+tr_a bpi"]) > 0 for r in rows), (isa, rows)
R = json.load(open(f"{o}/results.json"))
assert R["standards"]["skipped"] is None and len(R["standards"]["recordings"]) == 4, R["standards"]
assert {x["standard"] for x in R["standards"]["recordings"]} == {"Intel PT", "ARM ETMv4"}, R["standards"]
PY
        fail "the tables std_ISA: $(ls "$O/tables")"
    for f in std_bpi_x86-64 std_bpi_aarch64; do
        [ -s "$O/figures/$f.svg" ] && ok "figure $f drawn" || fail "no figure $f"
    done
    grep -q "^ARM ETMv4 (aarch64), Total bits per instruction by N" "$TMP/isa.out" &&
        ok "the summary gives ETMv4's Totals" || fail "the summary lacks ETMv4's Totals"
else
    cat "$TMP/isa.err"; fail "the cross-ISA study failed"
fi
[ "$fails" -eq 0 ]
