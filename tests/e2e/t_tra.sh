#!/usr/bin/env bash
# tier: test
# The adaptive encoding tr_a and ttr_a (docs/spec.md §4.9) end to end:
# synthetic streams (several threads, load values, overflows with
# resynchronization) and recorded programs, every trace replayed with the
# commit stream (tm decode --verify) and, for the private organization, from
# the binaries, each reproducing the trace bit for bit; the from-binary flow
# of a tr_a trace is the flow of the tr_e trace of the same execution; the
# message listing splits the stream; damaged traces get one line and a
# nonzero exit; the RTL's encoder (tm cosim) passes ttr_a.  Run by
# tests/e2e/run.sh with TM,
# TMFAST, ROOT, TMP set.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1

# model TMBIN BASE OUT ARGS...: BASE.tmc -> OUT.tmt
model() {
    local tmb=$1 base=$2 out=$3; shift 3
    "$tmb" model "$@" "$base.tmc" -o "$out.tmt" > "$out.mout" 2> "$out.merr" ||
        { cat "$out.merr"; die "$base ($*): tm model failed"; }
}

# vcheck TMBIN BASE OUT [binary]: OUT.tmt verified with BASE.tmc (and from
# the binaries with BASE.modules when asked)
vcheck() {
    local tmb=$1 base=$2 out=$3 hows=("")
    [ "${4:-}" = binary ] && hows+=("--from-binary --modules $base.modules")
    for how in "${hows[@]}"; do
        # shellcheck disable=SC2086
        "$tmb" decode $how --verify "$base.tmc" "$out.tmt" > "$out.v" 2> "$out.ve" ||
            { head -n 5 "$out.v" "$out.ve"; die "$out: tm decode ${how%% *} --verify failed"; }
        grep -q '^OK: ' "$out.v" || die "$out: tm decode ${how%% *} --verify: $(head -n 2 "$out.v")"
        sancheck "$out.ve" "$out: tm decode"
    done
}

echo "== 1. synthetic streams: tr_a and ttr_a, private and shared, load values, overflows"
"$TMFAST" gen --threads 4 --insns 300K --seed 7 --mem -o g4.tmc > /dev/null 2>&1 || die "tm gen failed"
"$TMFAST" gen --directed overflow --threads 4 --seed 3 -o ov.tmc > /dev/null 2>&1 || die "tm gen --directed failed"
n=0
for enc in "--encoding tr_a" "--encoding tr_a --timestamps"; do
    for cfg in "--config large" "--config tage-l" "--config tage-m --shared" "--config small --cfiat"; do
        n=$((n + 1))
        # shellcheck disable=SC2086
        model "$TM" g4 "g4_$n" $enc $cfg
        vcheck "$TM" g4 "g4_$n"
        # the message listing splits the stream with the same states
        "$TM" decode "g4_$n.tmt" $( [[ $cfg == *cfiat* ]] && echo "--tmc g4.tmc" ) > "g4_$n.list" 2> "g4_$n.le" ||
            { cat "g4_$n.le"; die "g4 ($enc $cfg): tm decode (listing) failed"; }
        want=$(grep -m1 -oE '[0-9]+ messages' "g4_$n.v" | cut -d' ' -f1)
        grep -q "^# $want messages" "g4_$n.list" || die "g4 ($enc $cfg): the listing has $(tail -n 1 "g4_$n.list"), the replay $want"
        # shellcheck disable=SC2086
        model "$TM" ov "ov_$n" $enc ${cfg%--cfiat} --buffer min --port 1
        grep -qE 'dropped [1-9]' "ov_$n.mout" || die "ov ($enc $cfg): no overflow: $(grep buffer: "ov_$n.mout")"
        vcheck "$TM" ov "ov_$n"
    done
done
ok "$n configurations x 2 streams (with overflows): verified, message listings complete"

echo "== 2. recorded programs: tr_a against tr_e on the same execution"
for prog in "mt_pthread 4 join" "signals" "traptortest 2"; do
    set -- $prog
    name=$1
    "$TMFAST" record --commit -o "$name" -- "$P/$@" > /dev/null 2> "$name.err"
    [ -s "$name.tmc" ] || { cat "$name.err"; die "$name: no recording"; }
    for cfg in large tage-l; do
        for ts in "" "--timestamps"; do
            # shellcheck disable=SC2086
            model "$TM" "$name" "$name.a" --config $cfg --encoding tr_a $ts
            vcheck "$TM" "$name" "$name.a" binary
            # shellcheck disable=SC2086
            model "$TMFAST" "$name" "$name.e" --config $cfg --encoding tr_e $ts
            cp "$name.modules" "$name.a.modules"
            cp "$name.modules" "$name.e.modules"
            "$TM" decode --from-binary "$name.a.tmt" > "$name.a.flow" 2> "$name.a.fe" ||
                { cat "$name.a.fe"; die "$name ($cfg tr_a $ts): tm decode --from-binary failed"; }
            "$TMFAST" decode --from-binary "$name.e.tmt" > "$name.e.flow" 2> /dev/null ||
                die "$name ($cfg tr_e $ts): tm decode --from-binary failed"
            # the same flow, whatever the encoding (the first line names it,
            # comments give the messages' positions in the trace)
            strip() { tail -n +2 "$1" | sed 's/ \[trace bit [0-9]*\]$//'; }
            cmp -s <(strip "$name.a.flow") <(strip "$name.e.flow") ||
                die "$name ($cfg $ts): the from-binary flows of tr_a and tr_e differ"
            ba=$(stat -c %s "$name.a.tmt")
            be=$(stat -c %s "$name.e.tmt")
            echo "     $name $cfg ${ts:-(no time stamps)}: tr_a $ba bytes, tr_e $be bytes"
        done
    done
done
ok "test programs: tr_a/ttr_a verified, replayed from the binaries, same flows as tr_e"

echo "== 3. pigz -p 4: tage-l with tr_a against large with tr_e"
head -c 300000 /dev/urandom | base64 > in.txt
"$TMFAST" record --commit -o pigz -- "$(command -v pigz)" -p 4 -c in.txt > /dev/null 2> pigz.err
[ -s pigz.tmc ] || { cat pigz.err; die "pigz: no recording"; }
model "$TMFAST" pigz pigz.a --config tage-l --encoding tr_a --port 1024 --buffer 65536
vcheck "$TMFAST" pigz pigz.a binary
model "$TMFAST" pigz pigz.e --config large --encoding tr_e --port 1024 --buffer 65536
grep -q 'dropped 0 messages' pigz.a.mout && grep -q 'dropped 0 messages' pigz.e.mout ||
    die "pigz: the demand measurement dropped messages"
bpi() { awk '/^bandwidth:/ {print $2}' "$1"; }
echo "     pigz: tr_e-large $(bpi pigz.e.mout) bpi, tr_a-tage-l $(bpi pigz.a.mout) bpi (lossless)"
ok "pigz with tr_a and tage-l: verified and replayed from the binaries"

echo "== 4. damaged traces and what is not there: one line, nonzero exit"
# a trace cut inside its messages: the header's bit count no longer matches
tmt=mt_pthread.a.tmt
bytes=$(stat -c %s "$tmt")
head -c $((bytes - 40)) "$tmt" > cut.tmt
st=0
"$TM" decode --verify mt_pthread.tmc cut.tmt > cut.out 2> cut.err || st=$?
[ $st -ne 0 ] || die "a cut tr_a trace was accepted"
sancheck cut.err "cut trace"
# bits flipped in the middle of the messages: the replay stops with a line
python3 - "$tmt" flip.tmt <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
for i in range(80, min(len(b) - 200, 120)):
    b[i] ^= 0x5a
open(sys.argv[2], 'wb').write(b)
EOF
st=0
"$TM" decode --verify mt_pthread.tmc flip.tmt > flip.out 2> flip.err || st=$?
[ $st -ne 0 ] || die "a damaged tr_a trace was accepted"
sancheck flip.err "damaged trace"
st=0
"$TMFAST" model --encoding tr_x mt_pthread.tmc -o bad.tmt > /dev/null 2> bad.err || st=$?
[ $st -eq 2 ] && grep -q 'allowed nx_b, tr_b, tr_e, tr_a' bad.err || die "--encoding tr_x: exit $st, '$(cat bad.err)'"
ok "damaged tr_a traces refused; an unknown encoding refused in one line"

echo "== 5. the RTL's encoder (docs/rtl.md): ttr_a co-simulated bit for bit"
st=0
"$TMFAST" cosim --encoding tr_a --timestamps mt_pthread.tmc > cos.out 2> cos.err || st=$?
[ $st -eq 0 ] && grep -q '^PASS: ' cos.out && grep -q '^tr_a coverage: cnt codes by order' cos.out ||
    die "tm cosim --encoding tr_a --timestamps: exit $st, '$(tail -3 cos.out; cat cos.err)'"
grep '^PASS' cos.out | sed 's/^/     /'
ok "tm cosim --encoding tr_a --timestamps passes"
exit "$fails"
