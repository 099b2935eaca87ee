#!/usr/bin/env bash
# tier: test
# --demand (tm model, tm record): every configuration of the run, those
# after --and included, gets the 1024-bit port and the 2^24-bit buffer
# (--port 1024 --buffer 16777216) and drops nothing; --port or --buffer
# beside it is a usage error; a drop that still happens fails the run
# (exit 1, one line) with the outputs written and saying "lossless": false.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
# lossless F.json: 0 if its top-level "lossless" is true
lossless() { grep -q '^  "lossless": true,' "$1"; }

echo "== 1. tm model --demand: every configuration, nothing dropped"
"$TMFAST" gen --threads 4 --insns 2000000 --seed 7 -o g.tmc
"$TM" model -q g.tmc -o p.tmt --stats p.json --and --encoding nx_b -o pn.tmt --stats pn.json
lossless pn.json && die "nx_b with the default port drops nothing: this test needs a run that does"
st=0
"$TM" model -q --demand g.tmc -o d.tmt --stats d.json --and --encoding nx_b -o dn.tmt --stats dn.json 2> d.err || st=$?
sancheck d.err "tm model --demand"
[ "$st" -eq 0 ] && [ ! -s d.err ] || fail "tm model --demand: exit $st: $(cat d.err)"
for j in d dn; do
    lossless $j.json || fail "tm model --demand: $j.json is not lossless"
    grep -q '"buffer_bits": 16777216, "port_bits": 1024' $j.json || fail "$j.json: $(grep -o '"buffer_bits[^,]*, "port_bits[^,]*' $j.json)"
done
"$TMFAST" model -q g.tmc --encoding nx_b --port 1024 --buffer 16777216 -o x.tmt
cmp -s x.tmt dn.tmt || fail "--and --encoding nx_b under --demand is not --port 1024 --buffer 16777216"
"$TMFAST" decode --verify -q g.tmc dn.tmt > v.out 2>&1 || fail "dn.tmt does not verify: $(cat v.out)"
[ "$fails" -eq 0 ] && ok "tm model --demand: both configurations lossless (nx_b without it: not), as --port 1024 --buffer 16777216"

echo "== 2. --port or --buffer beside --demand: a usage error"
# bad CMD...: exit 2, one line naming --demand, pointing to --help
bad() {
    local st=0
    "$@" > b.out 2> b.err || st=$?
    sancheck b.err "$*"
    if [ "$st" -eq 2 ] && [ "$(wc -l < b.err)" -eq 1 ] && grep -q -- "--demand.*(see tm [a-z]* --help)$" b.err; then
        ok "$(cat b.err)"
    else
        fail "$*: exit $st: $(cat b.err)"
    fi
}
bad "$TM" model --demand g.tmc --port 8 -o y.tmt
bad "$TM" model g.tmc -o y.tmt --and --buffer 4096 -o z.tmt --demand
bad "$TM" record --demand -o y --and --port 8 -o z -- "$P/spin" 5
bad "$TM" record -o y --buffer 4096 --demand -- "$P/spin" 5
ls y.* z.* > /dev/null 2>&1 && fail "a refused command line wrote $(ls y.* z.*)"

echo "== 3. a drop under --demand fails the run"
# 1024 cores, every load's value (64-byte ones among them): more than the
# port carries, for longer than the buffer holds
"$TMFAST" gen --threads 1024 --insns 5M --seed 3 --mem -o big.tmc
st=0
"$TM" model -q --demand --data all big.tmc -o big.tmt --stats big.json 2> big.err || st=$?
sancheck big.err "tm model --demand (a drop)"
if [ "$st" -eq 1 ] && [ "$(wc -l < big.err)" -eq 1 ] && grep -q "^tm model: --demand: big.tmt dropped [1-9][0-9]* messages" big.err &&
    [ -s big.tmt ] && ! lossless big.json; then
    ok "a drop under --demand: exit 1, $(cat big.err)"
else
    fail "a drop under --demand: exit $st: $(cat big.err)"
fi

echo "== 4. tm record --demand"
st=0
"$TM" record --demand -o r --and --encoding nx_b -o rn -- "$P/mt_pthread" 2 > r.out 2> r.err || st=$?
sancheck r.err "tm record --demand"
[ "$st" -eq 0 ] && [ ! -s r.err ] || fail "tm record --demand: exit $st: $(cat r.err)"
for j in r rn; do
    lossless $j.json && grep -q '"buffer_bits": 16777216, "port_bits": 1024' $j.json || fail "tm record --demand: $j.json"
done
[ "$fails" -eq 0 ] && ok "tm record --demand: both configurations lossless, port 1024, buffer 16777216"
"$TM" model --help | grep -q -- "--demand" && "$TM" record --help | grep -q -- "--demand" || fail "--help lacks --demand"
[ "$fails" -eq 0 ] || exit 1
echo "--demand cases passed"
