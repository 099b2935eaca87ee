#!/usr/bin/env bash
# tier: test
# The manifest of configurations (rtl/configs.txt) and tm config: the
# repository's manifest resolves; what tm config prints of a configuration
# is what tm cosim builds (the same build key); the lists of presets and
# encodings are the model's; bad input gives one line and a nonzero status;
# and a configuration added to the cosim-quick tier alone is linted and
# co-simulated by the commands make test runs (scripts/lint.sh,
# testbench/regress.sh quick) without editing anything else.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TM:?}" "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
B=$(cd "$(dirname "$TMFAST")/.." && pwd)
cd "$TMP" || exit 1
unset TM_MANIFEST

# The repository's manifest: every configuration resolves; every tier the
# Makefile and the scripts name has entries.
out=$("$TM" config --check 2>&1) && [[ $out == *" 0 bad" ]] && ok "tm config --check: $out" ||
    fail "tm config --check: $out"
for t in lint-check lint lint-full cosim-check cosim-quick cosim-full cosim-real unit-lint gates identity bench-sweep; do
    n=$("$TM" config --list "$t" 2>&1 | wc -l)
    [ "$n" -gt 0 ] && ok "tier $t: $n entries" || fail "tier $t is empty"
done
# The model's own lists.
[ "$("$TM" config --list-presets | tr '\n' ' ')" = "small medium large tage-s tage-m tage-l " ] &&
    ok "--list-presets" || fail "--list-presets: $("$TM" config --list-presets | tr '\n' ' ')"
[ "$("$TM" config --list-encodings | tr '\n' ' ')" = "nx_b tr_b tr_e tr_a " ] &&
    ok "--list-encodings" || fail "--list-encodings"
# A named configuration and the same options given directly agree.
k1=$("$TM" config q-tage-l-tr_e --format key)
k2=$("$TM" config --threads 2 --config tage-l --encoding tr_e --format key)
[ -n "$k1" ] && [ "$k1" = "$k2" ] && ok "key by name = key by options" || fail "keys differ: '$k1' '$k2'"
[ "$("$TM" config q-tage-l-tr_e --format opts)" = "--config tage-l --encoding tr_e" ] && ok "--format opts" ||
    fail "--format opts: $("$TM" config q-tage-l-tr_e --format opts)"
"$TM" config q-cfiat-small-nx_b --format json | python3 -c '
import json, sys
j = json.load(sys.stdin)
assert j["threads"] == 1 and j["stream"] == "mem", j
assert j["params"]["DC_LINE"] == 16 and j["sizes"]["dlmax"] == 5, j["sizes"]
assert j["sizes"]["maxw"] == j["params"]["MAXW"] and j["params"]["DATA"] == 1
assert any(m.startswith("tm_dcache SIZE=1024,ASSOC=2,LINE=16,GRAN=4") for m in j["modules"]), j["modules"]
' && ok "--format json" || fail "--format json"
vf=$("$TM" config gates-tage-l-tr_a --format vflags | tr '\n' ' ')
[[ $vf == *"-GENC=3 "* && $vf == *"-GTAGE_BASE=512 "* && $vf == *"-GTS=1'b0 "* ]] && ok "--format vflags" ||
    fail "--format vflags: $vf"

# Bad input: one line naming the file and line (or the option), nonzero.
expect() { # NAME STATUS TEXT CMD...
    local name=$1 want=$2 text=$3 st=0
    shift 3
    "$@" > "$name.out" 2> "$name.err" || st=$?
    if [ "$st" -ne "$want" ] || [ "$(wc -l < "$name.err")" -ne 1 ] || ! grep -qF -- "$text" "$name.err"; then
        fail "$name: status $st (want $want), stderr:"; sed 's/^/    /' "$name.err"
    else
        ok "$name: $(cat "$name.err")"
    fi
    sancheck "$name.err" "$name"
}
printf 'config a t 1 - --config large\nconfig b t {1,2 - --config large\n' > bad1.txt
expect unclosed 1 "bad1.txt:2:" "$TM" config --manifest bad1.txt --list t
printf 'config a t 1 - --config large\nconfig a t 2 - --config small\n' > bad2.txt
expect duplicate 1 "bad2.txt:2: name 'a' is already used on line 1" "$TM" config --manifest bad2.txt --list t
printf 'config a t 1 - --config huge\n' > bad3.txt
expect badpreset 1 "huge" "$TM" config --manifest bad3.txt --check
printf 'config a t 1 - --bogus 3\n' > bad4.txt
expect badoption 1 "bad4.txt:1: '--bogus' is not a model option" "$TM" config --manifest bad4.txt a --format key
expect missing 1 "nonexistent.txt: cannot open" "$TM" config --manifest nonexistent.txt --list t
expect notier 1 "--list nosuchtier" "$TM" config --list nosuchtier
expect noname 2 "nosuchname: no configuration" "$TM" config nosuchname
expect badformat 2 "--format yaml" "$TM" config r-large-tr_e --format yaml
expect nothreads 2 "give --threads N" "$TM" config real-large-tr_e --format key
expect badthreads 2 "--threads 0" "$TM" config r-large-tr_e --threads 0

# A configuration added to the quick tier: lint and co-simulation pick it up.
# The manifest holds only it, so the quick co-simulation's coverage check
# must then report missed bins: that it ran shows the new entry reached it.
printf '%s\n' "# a configuration added by t_manifest" \
    "config q-added cosim-quick 2 rand --config medium --encoding tr_a --timestamps --shared" > added.txt
export TM_MANIFEST=$TMP/added.txt
out=$(bash "$ROOT/scripts/lint.sh" "$B" 2>&1)
grep -q "lint (lint,cosim-quick): 1 passed, 0 failed" <<< "$out" && ok "make test's lint linted the added configuration" ||
    { fail "lint of the added configuration:"; echo "$out" | tail -5; }
out=$(bash "$ROOT/testbench/regress.sh" "$B" quick 2>&1)
st=$?
if grep -q "^PASS q-added n=2 rand --config medium --encoding tr_a --timestamps --shared" <<< "$out" &&
    grep -q "required bins missed" <<< "$out" && [ $st -ne 0 ]; then
    ok "make test's co-simulation ran the added configuration: $(grep '^PASS q-added' <<< "$out" | cut -c1-100)"
else
    fail "co-simulation of the added configuration (status $st):"; echo "$out" | tail -8
fi
unset TM_MANIFEST
exit $(( fails > 0 ))
