#!/usr/bin/env bash
# tier: check
# The tm command line as a whole: --version (tm and every subcommand), an
# unknown or missing subcommand (every subcommand listed, exit 2), and one
# error style: "tm SUB: message", usage errors ending "(see tm SUB --help)",
# each one line with exit 2; other errors without the pointer.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TM:?}" "${TMP:?}" "${ROOT:?}"
cd "$TMP" || exit 1

# the subcommands, as tm --help lists them
"$TM" --help > help.out || die "tm --help: exit $?"
mapfile -t subs < <(sed -n '/^subcommands:/,/^$/s/^  \([a-z][a-z0-9]*\) .*/\1/p' help.out)
[ "${#subs[@]}" -ge 9 ] || die "tm --help lists ${#subs[@]} subcommands: ${subs[*]}"

echo "== 1. --version"
"$TM" --version > v.out 2> v.err || die "tm --version: exit $?"
[ ! -s v.err ] && [ "$(wc -l < v.out)" -eq 1 ] || die "tm --version: $(cat v.out v.err)"
grep -Eq '^tm [^ ]+ \(build-id [0-9a-f]{40}\)$' v.out || die "tm --version: '$(cat v.out)'"
id=$(readelf -n "$TM" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
grep -q "(build-id $id)" v.out || fail "tm --version: not the build-id readelf gives ($id): $(cat v.out)"
if [ "$(git -C "$ROOT" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$ROOT" && pwd -P)" ]; then
    # git describe when tm was built (a commit of this checkout; the tree may have moved on since)
    v=$(sed -n 's/^tm \([^ ]*\) .*/\1/p' v.out)
    if git -C "$ROOT" cat-file -e "${v%-dirty}^{commit}" 2>/dev/null \
        && [ "$(git -C "$ROOT" describe --always "${v%-dirty}")" = "${v%-dirty}" ]; then
        ok "tm --version: $(cat v.out) (a commit of this checkout, as git describe names it)"
    else
        fail "tm --version: '$v' is not git describe of a commit of this checkout: $(cat v.out)"
    fi
fi
for s in "${subs[@]}"; do
    st=0
    "$TM" "$s" --version > s.out 2> s.err || st=$?
    [ "$st" -eq 0 ] && cmp -s s.out v.out && [ ! -s s.err ] || fail "tm $s --version: exit $st: $(cat s.out s.err)"
done
ok "tm SUB --version for ${subs[*]}"
# outside a git checkout the version is "unknown" (the Makefile's rule alone)
mkdir -p nogit/tests/programs
cp "$ROOT/Makefile" nogit/ && cp "$ROOT/tests/programs/programs.mk" "$ROOT/tests/programs/isa.mk" nogit/tests/programs/
make -s -C nogit BUILD="$TMP/nogit/b" "$TMP/nogit/b/gen/tm_version.h" > mk.out 2>&1 || die "make tm_version.h: $(cat mk.out)"
grep -qx '#define TM_VERSION "unknown"' nogit/b/gen/tm_version.h && ok "outside a git checkout: unknown" ||
    fail "outside a git checkout: $(cat nogit/b/gen/tm_version.h)"

# one_err STATUS REGEX ARGS...: tm ARGS exits STATUS with one line on
# stderr matching REGEX (extended) and nothing on stdout
one_err() {
    local want=$1 re=$2 st=0
    shift 2
    "$TM" "$@" > o.out 2> o.err < /dev/null || st=$?
    sancheck o.err "tm $*"
    if [ "$st" -ne "$want" ] || [ "$(wc -l < o.err)" -ne 1 ] || ! grep -Eq -- "$re" o.err || [ -s o.out ]; then
        fail "tm $*: exit $st (wanted $want): $(head -c 300 o.err)"
        return
    fi
    ok "tm $*: $(cat o.err)"
}

echo "== 2. no subcommand, an unknown one"
list=$(printf '%s, ' "${subs[@]}")
list=${list%, }
one_err 2 "^tm: unknown subcommand 'bogus' \(one of: $list; see tm --help\)$" bogus
one_err 2 "^tm: no subcommand \(one of: $list; see tm --help\)$"

echo "== 3. usage errors: one line, exit 2, (see tm SUB --help)"
for s in "${subs[@]}"; do
    [ "$s" = study ] && continue # its options are the Python script's (study/tm_study.py)
    one_err 2 "^tm $s: unknown option '--bogus' \(see tm $s --help\)$" "$s" --bogus
    "$TM" "$s" --help > h.out 2> h.err && [ -s h.out ] || fail "tm $s --help: $(cat h.err)"
done
h='\(see tm %s --help\)$'
u() { printf "^tm %s: %s.* $h" "$1" "$2" "$1"; }
one_err 2 "$(u gen 'no output')" gen --threads 2
one_err 2 "$(u gen '--threads 0: allowed')" gen --threads 0 -o x.tmc
one_err 2 "$(u gen '--seed needs a value')" gen -o x.tmc --seed
one_err 2 "$(u dump 'missing FILE.tmc')" dump
one_err 2 "$(u dump 'more than one FILE')" dump a.tmc b.tmc
one_err 2 "$(u model 'no input commit stream')" model -o x.tmt
one_err 2 "$(u model '--gshare 3')" model --gshare 3 x.tmc -o x.tmt
one_err 2 "$(u model '--port needs a value')" model x.tmc --port
one_err 2 "$(u decode 'too many arguments')" decode a.tmt b.tmt c.tmt
one_err 2 "$(u decode 'too many arguments')" decode --from-binary a.tmt b.tmt c.tmt
one_err 2 "$(u cosim 'no commit stream')" cosim
one_err 2 "$(u record '--threads needs a value')" record --threads
one_err 2 "$(u record '--threads 0: allowed')" record --threads 0 -o x -- true
one_err 2 "$(u record '--timing bogus: allowed')" record --timing bogus -o x -- true
one_err 2 "$(u record '--mode bogus: allowed')" record --mode bogus -o x -- true
one_err 2 "$(u record 'no program to run')" record -o x
one_err 2 "$(u pt 'needs IN.tmc and -o BASE')" pt
one_err 2 "$(u pt '--tnt x: allowed')" pt --tnt x a.tmc -o b
one_err 2 "$(u config 'nothing to print')" config
one_err 2 "$(u config '--threads 0: allowed')" config --threads 0 --config small

echo "== 4. other errors: no pointer to --help"
one_err 1 "^tm dump: nosuch.tmc: [^(]*$" dump nosuch.tmc
one_err 1 "^tm model: nosuch.tmc: [^(]*$" model nosuch.tmc -o x.tmt
one_err 1 "^tm decode: nosuch.tmt: [^(]*$" decode nosuch.tmt
[ "$fails" -eq 0 ] || exit 1
echo "tm command line cases passed"
