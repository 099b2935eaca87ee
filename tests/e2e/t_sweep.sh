#!/usr/bin/env bash
# tier: check
# tm model --and: several configurations over one commit stream in one pass
# (the library's sweep, tm/sweep.h) give byte for byte the traces, JSON
# statistics and text reports of separate runs, in the sanitizer build; a
# bad --and command line gets one line and status 2, and writes nothing.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
"$TMFAST" gen --threads 4 --insns 200000 --seed 21 --mem --exc-rate 0.002 -o "$TMP/w.tmc" || die "tm gen"
cfgs=("--config small --encoding nx_b" "--config medium --encoding tr_b --timestamps" "--config large"
      "--config large --shared --port 2" "--cfiat --port 64" "--cfiat --cache study --cfiat-shared --port 64 --buffer 65536" "--data all --port 64"
      "--encoding tr_e --chunks-bcnt 4,2 --ts-bits 16 --timestamps")
args=()
for i in "${!cfgs[@]}"; do
    [ "$i" -gt 0 ] && args+=(--and)
    # shellcheck disable=SC2206
    args+=(${cfgs[$i]} -o "$TMP/s$i.tmt" --stats "$TMP/s$i.json")
done
"$TM" model "$TMP/w.tmc" "${args[@]}" > "$TMP/sweep.txt" 2> "$TMP/err" || die "tm model --and: $(head -n 1 "$TMP/err")"
sancheck "$TMP/err" "tm model --and"
: > "$TMP/alone.txt"
for i in "${!cfgs[@]}"; do
    # shellcheck disable=SC2086
    "$TM" model "$TMP/w.tmc" ${cfgs[$i]} -o "$TMP/a$i.tmt" --stats "$TMP/a$i.json" > "$TMP/a.txt" || die "tm model ${cfgs[$i]}"
    { echo "== $TMP/s$i.tmt"; cat "$TMP/a.txt"; } >> "$TMP/alone.txt"
    cmp -s "$TMP/s$i.tmt" "$TMP/a$i.tmt" || fail "${cfgs[$i]}: the trace differs from a separate run's"
    cmp -s "$TMP/s$i.json" "$TMP/a$i.json" || fail "${cfgs[$i]}: the statistics differ from a separate run's"
    "$TMFAST" decode --verify "$TMP/w.tmc" "$TMP/s$i.tmt" > /dev/null || fail "${cfgs[$i]}: the sweep's trace does not replay"
done
cmp -s "$TMP/sweep.txt" "$TMP/alone.txt" || fail "the text reports differ from separate runs'"
grep -q "WITH LOSSES" "$TMP/sweep.txt" || fail "the 2-bit port configuration was to drop messages"
[ "$fails" -eq 0 ] && ok "${#cfgs[@]} configurations in one pass: traces, statistics and reports of separate runs"

bad() {  # PATTERN ARGS...
    local pat=$1; shift
    rm -f "$TMP"/x*.tmt
    "$TM" model "$TMP/w.tmc" "$@" > /dev/null 2> "$TMP/err"; local st=$?
    if [ $st -ne 2 ] || [ "$(wc -l < "$TMP/err")" -ne 1 ] || ! grep -q -- "$pat" "$TMP/err"; then
        fail "tm model $*: status $st: $(cat "$TMP/err")"; return
    fi
    sancheck "$TMP/err" "tm model $*"
    ls "$TMP"/x*.tmt > /dev/null 2>&1 && { fail "tm model $*: wrote an output"; return; }
    ok "$*: $(cat "$TMP/err")"
}
bad "both write" -o "$TMP/x1.tmt" --and --config small -o "$TMP/x1.tmt"
bad "both write" -o "$TMP/x1.tmt" --stats "$TMP/x.json" --and -o "$TMP/x2.tmt" --stats "$TMP/x.json"
bad "configuration 2 (after --and number 1): no output" -o "$TMP/x1.tmt" --and --config small
bad "--gshare 300" -o "$TMP/x1.tmt" --and --gshare 300 -o "$TMP/x2.tmt"
bad "--explain: one configuration only" --explain -o "$TMP/x1.tmt" --and -o "$TMP/x2.tmt"
[ "$fails" -eq 0 ] || exit 1
echo "sweep cases passed"
