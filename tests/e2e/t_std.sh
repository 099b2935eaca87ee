#!/usr/bin/env bash
# tier: test
# tm std end to end (docs/standards.md): the recording's ISA's own trace
# standard beside the trace module, every variant verified, in one pass.
# 1. x86-64 (Valgrind): mt_pthread 4 and signals under tm record --threads 8
#    --commit; tm std --verify -o BASE --stats exits 0 with "verify: ok";
#    the rows are PT's three variants then the trace module's 16; the PT
#    rows' bits are tm pt --timing-variants' on the same stream; the files
#    BASE.T<n>.pt are those of the cores that ran and libipt checks them
#    (tm pt --check).
# 2. Bad input: a missing input, an unknown option, no IN.tmc, a tm gen
#    stream (no module map), a truncated stream, -o or --stats naming the
#    input: one line each, exit 1 or 2, no output left behind.
# 3. AArch64 and RISC-V (QEMU; not run without qemu_isas): see below.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1

# std NAME ARGS: tm std ARGS (TM: the sanitizer build), stdout NAME.out,
# stderr NAME.err; $st its exit status.
std() {
    local name=$1
    shift
    st=0
    "$TM" std "$@" > "$name.out" 2> "$name.err" || st=$?
    sancheck "$name.err" "tm std $*"
}
# one_line NAME WANT_STATUS WANT_TEXT: NAME's run exited WANT_STATUS with one
# line on stderr containing WANT_TEXT.
one_line() {
    local n=$1 want=$2 text=$3
    if [ "$st" -eq "$want" ] && [ "$(wc -l < "$n.err")" -eq 1 ] && grep -qF -- "$text" "$n.err"; then
        ok "$n: exit $want, one line: $(cat "$n.err")"
    else
        fail "$n: exit $st (want $want), stderr: $(head -c 300 "$n.err")"
    fi
}

rec() {
    local base=$1 st=0
    shift
    "$TMFAST" record --threads 8 --commit -o "$base" -- "$@" > "$base.out" 2> "$base.rerr" || st=$?
    [ $st -eq 0 ] && [ -s "$base.tmc" ] || { tail -n 5 "$base.rerr"; die "tm record $*: exit status $st"; }
}

# ---- 1. x86-64 ----
rec mt "$P/mt_pthread" 4
rec sg "$P/signals"
for b in mt sg; do
    std "$b.std" "$b.tmc" -o "$b.s" --verify --stats "$b.s.json"
    if [ "$st" -eq 0 ] && grep -q "^verify: ok, 3 variants of Intel PT decoded match $b.tmc" "$b.std.out"; then
        ok "$b: tm std --verify: $(tail -n 1 "$b.std.out")"
    else
        fail "$b: tm std --verify: exit $st: $(head -c 300 "$b.std.err")"
    fi
    "$TMFAST" pt "$b.tmc" -o "$b.p" --timing-variants --stats "$b.p.json" -q > /dev/null 2>&1 ||
        fail "$b: tm pt --timing-variants failed"
    python3 - "$b.s.json" "$b.p.json" <<'PY' && ok "$b: rows, PT bits as tm pt's, instructions" || fail "$b: the statistics"
import json, sys
s, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = [r["name"] for r in s["rows"]]
assert names[:3] == ["PT", "PT+mtc", "PT+cyc"], names
assert names[3:] == ["nx_b"] + [f"{e}-{q}" for e in ("tr_b", "tr_e", "tr_a") for q in ("small", "medium", "large")] + \
    [f"tage-{q}+{e}" for q in "sml" for e in ("tr_e", "tr_a")], names
assert s["isa"] == "x86-64" and s["standard"] == "Intel PT", s
assert all(r["verified"] is True for r in s["rows"][:3]), s["rows"][:3]
assert all(r["verified"] is None and r["dropped"] == 0 for r in s["rows"][3:]), s["rows"][3:]
pr = {r["format"]: r["bits"] for r in p["compare"]}
for r in s["rows"][:3]:
    assert r["bits"] == pr[r["name"]], (r, pr)
assert s["instructions"] == p["instructions"] and s["cycles"] == p["cycles"], (s, p)
assert s["checked"] == 3 * s["instructions"], s
big = {r["name"]: r["storage_bits"] for r in s["rows"]}
assert big["tr_e-large"] == 14980 and big["tage-l+tr_a"] == 13582 and big["nx_b"] == 0, big
PY
    n=$(ls "$b".s.T*.pt | wc -l)
    "$TMFAST" pt --check "$b.tmc" "$b.s" > "$b.chk" 2>&1 && [ "$n" -ge 1 ] &&
        ok "$b: $n files $b.s.T<n>.pt checked by tm pt --check" || fail "$b: tm pt --check of tm std's files: $(cat "$b.chk")"
done

# ---- 2. bad input ----
std missing nope.tmc;                              one_line missing 1 "nope.tmc"
std badopt mt.tmc --bogus;                         one_line badopt 2 "--bogus"
std noarg;                                         one_line noarg 2 "needs IN.tmc"
"$TMFAST" gen -o g.tmc --threads 2 --insns 2000 > /dev/null 2>&1 || die "tm gen failed"
std gen g.tmc;                                     one_line gen 1 "no module map g.modules beside it (--modules FILE)"
head -c 3000 mt.tmc > cut.tmc
cp mt.modules cut.modules
std cut cut.tmc -o cut.s;                          one_line cut 1 "cut.tmc"
ls cut.s.T* > /dev/null 2>&1 && fail "cut: files left behind: $(ls cut.s.T*)" || ok "cut: nothing written"
cp mt.tmc self.T0.pt
cp mt.modules self.T0.pt.modules
std selfout self.T0.pt -o self;                   one_line selfout 2 "the output of core 0 is the input self.T0.pt"
cmp -s mt.tmc self.T0.pt && ok "selfout: the input kept" || fail "selfout: the input was overwritten"
std selfstats mt.tmc --stats mt.tmc;              one_line selfstats 2 "mt.tmc"
std badrow mt.tmc --models nx_b,tr_e-huge;         one_line badrow 2 "'tr_e-huge' is not a row of the trace module"
std rowsboth mt.tmc --models nx_b --no-models;     one_line rowsboth 2 "--models and --no-models"
# --models: those rows only, the same bits as in the full table
std some mt.tmc --models tage-l+tr_a,nx_b --stats some.json
python3 - some.json mt.s.json <<'PY' && ok "some: --models gives those rows, as in the full table" || fail "some: --models"
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
names = [r["name"] for r in a["rows"]]
assert names == ["PT", "PT+mtc", "PT+cyc", "nx_b", "tage-l+tr_a"], names
full = {r["name"]: r["bits"] for r in b["rows"]}
assert all(r["bits"] == full[r["name"]] for r in a["rows"]), (a["rows"], full)
PY

exit $((fails > 0))
