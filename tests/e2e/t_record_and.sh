#!/usr/bin/env bash
# tier: check
# tm record --and: one recording feeds several configurations of the trace
# module while the program runs (the library's sweep, tm/sweep.h), and
# --profile writes each one's field profile (tm/profile.h).
# 1. A threaded program recorded once with --commit and three more
#    configurations (nx_b; small with time stamps; CFiat): each one's
#    BASE.tmt, BASE.json and profile are byte for byte what tm model gives
#    on the recording's own commit stream with that configuration, its
#    BASE.stats ends with tm model's text report, its trace replays, and
#    its BASE.modules is the first one's (tm decode --from-binary of B.tmt).
# 2. A deterministic one-thread program without --commit (the capture's
#    groups to the sweep): `tm record --threads 2 -o A --and --encoding nx_b
#    -o B --and --config small --timestamps -o C` gives the traces,
#    statistics and profiles of `tm record --commit -o X` followed by tm
#    model X.tmc with each configuration.
# 3. --profile-window: the timeline's windows.
# 4. Bad command lines: one line, status 2 (1 for an output that cannot be
#    created), nothing written, the program not run.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
for p in mt_pthread spin; do
    [ -x "$P/$p" ] || die "$P/$p is not built (make BUILD=$B programs)"
done

# rec TMBIN ARGS...: tm record, stdout to rec.out, stderr to rec.err; exit 0.
rec() {
    local tm=$1 st=0
    shift
    "$tm" record "$@" > rec.out 2> rec.err || st=$?
    sancheck rec.err "tm record $*"
    [ "$st" -eq 0 ] || die "tm record $*: exit status $st: $(tail -n 3 rec.err)"
}

# same_as_model TMC BASE PROFILE WHAT OPTS...: BASE.tmt, BASE.json and
# PROFILE (if not -) are tm model's on TMC with OPTS; BASE.stats ends with
# its text report.
same_as_model() {
    local tmc=$1 base=$2 prof=$3 what=$4
    shift 4
    local pargs=()
    [ "$prof" != - ] && pargs=(--profile "m.$base.profile.json")
    "$TM" model "$tmc" "$@" -o "m.$base.tmt" --stats "m.$base.json" "${pargs[@]}" > "m.$base.txt" 2> m.err ||
        { fail "$what: tm model $*: $(head -n 1 m.err)"; return; }
    sancheck m.err "tm model $*"
    cmp -s "$base.tmt" "m.$base.tmt" || { fail "$what: $base.tmt differs from tm model's trace"; return; }
    # the same statistics but the machine the cycles come from (tm record's
    # timing model; tm model runs none: null)
    grep -q '^  "machine": {"timing": ' "$base.json" && grep -q '^  "machine": null,$' "m.$base.json" ||
        { fail "$what: the machine lines: $(grep -h '"machine"' "$base.json" "m.$base.json" | cut -c1-80)"; return; }
    cmp -s <(grep -v '^  "machine": ' "$base.json") <(grep -v '^  "machine": ' "m.$base.json") ||
        { fail "$what: $base.json differs from tm model's statistics"; return; }
    if [ "$prof" != - ]; then
        cmp -s "$prof" "m.$base.profile.json" || { fail "$what: $prof differs from tm model's profile"; return; }
    fi
    sed -n '/^config:/,$p' "$base.stats" > "$base.report"
    cmp -s "$base.report" "m.$base.txt" || { fail "$what: $base.stats does not end with tm model's report"; return; }
    ok "$what: trace, statistics${pargs:+, profile} and report of tm model on the commit stream"
}

echo "== 1. a threaded program, --commit, four configurations"
rec "$TM" --commit --threads 3 -o A --profile a.json --profile-window 10000 \
    --and --encoding nx_b -o B --profile b.json \
    --and --config small --timestamps -o C \
    --and --cfiat --port 64 -o D --profile d.json -- "$P/mt_pthread" 2
grep -q '^mt_pthread 2: sum' rec.out || die "mt_pthread did not run to its end: $(cat rec.out)"
[ ! -s rec.err ] || die "tm record wrote to stderr: $(cat rec.err)"
for f in A.tmt A.json A.stats A.tmc A.modules B.tmt B.json B.stats B.modules C.tmt C.json C.stats C.modules D.tmt D.json \
    D.stats D.modules a.json b.json d.json; do
    [ -s "$f" ] || die "$f is missing"
done
for f in B.tmc C.tmc C.profile.json B.lock; do
    [ -e "$f" ] && fail "$f was written"
done
same_as_model A.tmc A a.json "the first configuration" --profile-window 10000
same_as_model A.tmc B b.json "--and --encoding nx_b" --encoding nx_b --profile-window 10000
same_as_model A.tmc C - "--and --config small --timestamps" --config small --timestamps
same_as_model A.tmc D d.json "--and --cfiat --port 64" --cfiat --port 64 --profile-window 10000
for b in A B C D; do
    "$TM" decode --verify A.tmc "$b.tmt" > v.out 2> v.err || fail "$b.tmt: tm decode --verify: $(head -n 2 v.out v.err)"
    sancheck v.err "tm decode --verify $b.tmt"
done
grep -q 'load values replayed' v.out || fail "D.tmt: no load values replayed (memory operands captured for a later configuration)"
# every configuration has the module map beside its trace: tm decode
# --from-binary replays a later configuration's trace as the first one's
for b in B C D; do
    cmp -s A.modules "$b.modules" || fail "$b.modules is not A.modules"
done
"$TM" decode --from-binary --verify A.tmc B.tmt > v.out 2> v.err && grep -q '^OK: ' v.out &&
    ok "--and -o B: tm decode --from-binary --verify A.tmc B.tmt finds B.modules: $(head -c 80 v.out)" ||
    fail "--and -o B: tm decode --from-binary --verify A.tmc B.tmt: $(head -n 2 v.out v.err)"
sancheck v.err "tm decode --from-binary B.tmt"
# the parts of BASE.stats about the program and the capture are the recording's
for b in B C D; do
    cmp -s <(sed '/^config:/,$d' A.stats) <(sed '/^config:/,$d' "$b.stats") ||
        fail "$b.stats: the program's and the capture's lines differ from A.stats'"
done
python3 - a.json b.json << 'PY' || fail "the profiles' JSON"
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    for key in ("bcnt_len", "bcnt_value", "diffta_len", "exc_diffta_len", "icnt_len", "diffcc_len",
                "diffcc64_len", "fah_len"):
        assert len(d[key]) == 65, (f, key)
    assert sum(d["bits_by_field"].values()) == d["bits"], f
    assert sum(d["timeline"]["bits"]) == d["bits"], f
    assert sum(d["bcnt_len"]) == d["messages"]["branch"] > 0, f
PY
[ "$fails" -eq 0 ] && ok "one recording, four configurations, each as tm model gives it"

echo "== 1b. --threads auto: the spool feeds every configuration after the program"
rm -f A.* B.* a.json b.json
rec "$TM" --commit --threads auto -o A --profile a.json --and --encoding nx_b --timestamps -o B --profile b.json \
    -- "$P/mt_pthread" 2
same_as_model A.tmc A a.json "--threads auto, the first configuration"
same_as_model A.tmc B b.json "--threads auto, --and --encoding nx_b --timestamps" --encoding nx_b --timestamps
"$TM" decode --verify -q A.tmc B.tmt > v.out 2>&1 && ok "--threads auto: B replays: $(cat v.out)" || fail "--threads auto: B does not replay: $(cat v.out)"
grep -q '"threads": 3' B.json && ok "--threads auto: the module has the 3 cores that ran" || fail "--threads auto: B.json threads: $(grep -o '"threads": [0-9]*' B.json | head -1)"

echo "== 1c. a signal while the spool feeds the models ends the recording there"
rm -f A.* B.*
st=0
TM_TEST_SIGNAL_IN_REPLAY=1 "$TM" record --threads auto -o A --and --encoding nx_b -o B -- "$P/mt_pthread" 2 > rec.out 2> rec.err || st=$?
sancheck rec.err "tm record (signal in replay)"
if [ "$st" -eq 143 ] && grep -q 'stopped by signal 15' rec.err && grep -q 'cut by signal 15' A.stats && grep -q 'cut by signal 15' B.stats \
    && "$TM" decode A.tmt 2>/dev/null | grep -q 'recording cut by signal 15'; then
    ok "signal during the spool's replay: exit 143, A and B written, cut by the signal"
else
    fail "signal during the spool's replay: exit $st: $(cat rec.err) $(ls)"
fi

echo "== 2. without --commit: the capture's groups to the sweep"
rec "$TM" --threads 2 -o S --profile s.json --and --encoding nx_b -o SB --profile sb.json \
    --and --config small --timestamps -o SC --profile sc.json -- "$P/spin" 300
[ -e S.tmc ] && fail "S.tmc written without --commit"
rec "$TM" --commit --threads 2 -o X -- "$P/spin" 300
cmp -s X.tmt S.tmt || die "spin is not deterministic under tm record (X.tmt and S.tmt differ): this test needs it"
same_as_model X.tmc S s.json "-o S"
same_as_model X.tmc SB sb.json "--and --encoding nx_b -o SB" --encoding nx_b
same_as_model X.tmc SC sc.json "--and --config small --timestamps -o SC" --config small --timestamps

echo "== 3. --profile-window"
for w in 1 1000000; do
    "$TM" model -q X.tmc -o /dev/null --profile "w$w.json" --profile-window "$w" || fail "--profile-window $w"
done
python3 - << 'PY' || fail "--profile-window: the timelines"
import json
one, big = json.load(open("w1.json")), json.load(open("w1000000.json"))
st = json.load(open("X.json"))
assert one["window_cycles"] == 1 and big["window_cycles"] == 1000000
assert len(one["timeline"]["bits"]) > len(big["timeline"]["bits"]) >= 1
assert sum(one["timeline"]["bits"]) == sum(big["timeline"]["bits"]) == st["bits"]
assert len(one["timeline"]["bits"]) <= st["execution_cycles"] + 1
PY
[ "$fails" -eq 0 ] && ok "--profile-window 1 and 1000000: the same bits, in more windows"

echo "== 4. bad command lines"
mkdir bad && cd bad || exit 1
# bad WANT-STATUS PATTERN ARGS...: tm record ARGS -- spin; one line with
# PATTERN, the status, no file left, the program not run.
bad() {
    local want=$1 pat=$2 st=0
    shift 2
    "$TM" record "$@" -- "$P/spin" 5 > out 2> err || st=$?
    sancheck err "tm record $*"
    if [ "$st" -ne "$want" ] || [ "$(wc -l < err)" -ne 1 ] || ! grep -q -- "$pat" err; then
        fail "tm record $*: status $st (wanted $want): $(cat err)"; return
    fi
    [ -s out ] && { fail "tm record $*: the program ran"; return; }
    local left
    left=$(ls -A | grep -v -x -e out -e err)
    [ -n "$left" ] && { fail "tm record $*: left $left"; rm -rf -- $left; return; }
    ok "$*: $(cat err)"
}
bad 2 "configuration 2 (after --and number 1): no output" -o A --and --config small
bad 2 "--timing after --and: an option of the whole recording" -o A --and --timing serial -o B
bad 2 "--cpi after --and" -o A --and -o B --cpi 2
bad 2 "-s after --and" -o A --and -o B -s 10
bad 2 "--commit after --and" -o A --and -o B --commit
bad 2 "--and: not with --mode" --mode mcftrace -o A --and -o B
bad 2 "--and: not with --mode" -o A --and -o B --mode mcftrace
bad 2 "--and: not with -f" -o A -f 1 --and -o B
bad 2 "--profile: not with --mode" --mode mcftrace -o A --profile p.json
bad 2 "--profile-window 0: allowed 1..1099511627776" -o A --profile p.json --profile-window 0
bad 2 "--profile-window 1099511627777: allowed" -o A --profile p.json --profile-window 1099511627777
bad 2 "--profile-window x: allowed" -o A --profile p.json --profile-window x
bad 2 "--profile-window: only with --profile" -o A --profile-window 10
bad 2 "configurations 1 and 2 both write A.tmt" -o A --and -o A
bad 2 "configurations 1 and 3 both write p.json" -o A --profile p.json --and -o B --and -o C --profile p.json
bad 2 "--profile A.json: the recording writes that file" -o A --profile A.json
bad 2 "--profile B.stats: the recording writes that file" -o A --and -o B --profile B.stats
bad 2 "--profile B.modules: the recording writes that file" -o A --and -o B --profile B.modules
bad 2 "--profile -: give a file" -o A --profile -
bad 2 "--gshare 3" -o A --and -o B --gshare 3
bad 2 "unknown option '--bogus'" -o A --and -o B --bogus
bad 1 "nonexistent/B.lock: cannot create" -o A --and -o nonexistent/B
bad 1 "nonexistent/p.json: cannot create" -o A --and -o B --profile nonexistent/p.json
"$TM" record --help > help.txt || fail "tm record --help"
grep -q -- "--and" help.txt && grep -q -- "--profile-window" help.txt || fail "tm record --help lacks --and or --profile"
"$TM" model --help > help.txt || fail "tm model --help"
grep -q -- "--profile FILE" help.txt || fail "tm model --help lacks --profile"
rm -f help.txt
cd .. || exit 1

# tm model's own
mbad() {  # PATTERN ARGS...
    local pat=$1 st=0
    shift
    "$TM" model X.tmc "$@" > /dev/null 2> err || st=$?
    if [ $st -ne 2 ] || [ "$(wc -l < err)" -ne 1 ] || ! grep -q -- "$pat" err; then
        fail "tm model $*: status $st: $(cat err)"; return
    fi
    ls y*.json > /dev/null 2>&1 && { fail "tm model $*: wrote a profile"; return; }
    ok "tm model $*: $(cat err)"
}
mbad "-o and --profile name the same file" -o y.json --profile y.json
mbad "--stats and --profile name the same file" -o y.tmt --stats y.json --profile y.json
mbad "configurations 1 and 2 both write y.json" -o y1.tmt --profile y.json --and -o y2.tmt --stats y.json
mbad "--profile-window 0" -o y.tmt --profile y1.json --profile-window 0
mbad "--profile-window: only with --profile" -o y.tmt --profile-window 5
[ "$fails" -eq 0 ] || exit 1
echo "record --and cases passed"
