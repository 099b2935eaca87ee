#!/usr/bin/env bash
# tier: check
# tm gen --directed: every directed stream round-trips model -> decode --verify
# for every encoding x preset x time stamps x private/shared; the streams that
# are not meant to overflow drop nothing with the default buffer and port;
# overflow and all also verify (and drop) with --buffer min --port 1.
# Command line: default 4 threads, --threads 1..64, determinism, '-o -',
# option errors (one line, exit 2).  Generation and the small streams' runs
# use the sanitizer build; the grid uses the optimized build for speed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# ---- command line ----
$TM gen --directed ras -o "$TMP/r.tmc" 2>"$TMP/err" >"$TMP/out"
[ ! -s "$TMP/err" ] || die "stderr: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || die "gen to a file wrote to stdout"
$TM dump --count "$TMP/r.tmc" >"$TMP/count"
grep -q 'threads-started: 4 (of 4)' "$TMP/count" || die "default threads: $(cat "$TMP/count")"
$TM gen --directed ras --threads 4 --seed 1 -o - >"$TMP/r2.tmc"
cmp "$TMP/r.tmc" "$TMP/r2.tmc" || die "same stream twice (and via -o -) differs"
$TM gen --directed=overflow --threads=8 --seed=3 -o "$TMP/o3.tmc"
$TM gen --directed overflow --threads 8 --seed 4 -o "$TMP/o4.tmc"
if cmp -s "$TMP/o3.tmc" "$TMP/o4.tmc"; then die "seeds 3 and 4 give the same overflow stream"; fi
$TM gen --directed samecycle --threads 1 -o - | $TM dump --count - | grep -q 'threads-started: 1 (of 1)' \
    || die "--threads 1"
$TM gen --directed ibtb --threads 64 -o - | $TM dump --count - | grep -q 'threads-started: 64 (of 64)' \
    || die "--threads 64"

gen_bad "--directed bogus: unknown stream; allowed chunks, ras, ibtb, samecycle, overflow, idle, tswrap, all" \
    --directed bogus -o "$TMP/x.tmc"
gen_bad '--threads 65: allowed 1..64 with --directed' --directed ras --threads 65 -o "$TMP/x.tmc"
gen_bad '--threads 0: allowed 1..64 with --directed' --directed ras --threads 0 -o "$TMP/x.tmc"
gen_bad '--insns cannot be used with --directed' --directed ras --insns 5 -o "$TMP/x.tmc"
gen_bad '--mem cannot be used with --directed' --mem --directed ras -o "$TMP/x.tmc"
gen_bad 'no output' --directed ras
gen_bad '--directed needs a value' -o "$TMP/x.tmc" --directed
[ ! -e "$TMP/x.tmc" ] || die "a usage error created the output"
$TM gen --help | grep -q -- '--directed NAME' || die "--help lacks --directed"

# ---- round trips ----
# the configurations: the manifest's e2e-grid tier (rtl/configs.txt); a
# failing or empty list would leave the grids nothing to check
cfgs=$("$TMFAST" config --list e2e-grid) && [ -n "$cfgs" ] || die "tm config --list e2e-grid: failed or empty"
# grid STREAM THREADS [full|reduced]: model + decode --verify over encodings x
# presets x time stamps x private/shared (reduced: large only).  Streams other
# than overflow, samecycle and all must not drop with the default buffer and
# port ("overflow_cycles": 0 in the statistics); overflow and all also run
# with --buffer min --port 1 and must drop there.  Prints "STREAM N: K runs".
grid() {
    local s=$1 n=$2 f="$TMP/$1.$2.tmc" runs=0 c
    local -a args
    "$TMFAST" gen --directed "$s" --threads "$n" --seed 11 -o "$f"
    # the configurations: the manifest's e2e-grid tier (rtl/configs.txt);
    # reduced: those of the large preset only
    for c in $cfgs; do
        read -r -a args < <("$TMFAST" config "$c" --format opts)
        [ ${#args[@]} -gt 0 ] || { echo "tm config $c --format opts: no options"; return 1; }
        [ "${3:-full}" = full ] || [[ " ${args[*]} " == *" --config large "* ]] || continue
        "$TMFAST" model "${args[@]}" -q "$f" -o "$f.tmt" --stats "$f.json"
        "$TMFAST" decode --verify -q "$f" "$f.tmt" >"$f.v" || {
            echo "verify failed: $s n=$n ${args[*]}"; cat "$f.v"; return 1; }
        case $s in overflow|samecycle|all) ;;
        *) grep -q '"overflow_cycles": 0,' "$f.json" || {
               echo "$s n=$n ${args[*]}: dropped with the default buffer"; return 1; } ;;
        esac
        runs=$((runs + 1))
        if [ "$s" = overflow ] || [ "$s" = all ]; then
            "$TMFAST" model "${args[@]}" --buffer min --port 1 -q "$f" -o "$f.tmt" \
                --stats "$f.json"
            "$TMFAST" decode --verify -q "$f" "$f.tmt" >"$f.v" || {
                echo "overflow verify failed: $s n=$n ${args[*]}"; cat "$f.v"; return 1; }
            if grep -q '"overflow_cycles": 0,' "$f.json"; then
                echo "$s n=$n ${args[*]} --buffer min --port 1: no drop"; return 1
            fi
            runs=$((runs + 1))
        fi
    done
    [ $runs -gt 0 ] || { echo "$s $n: no configuration of e2e-grid ran"; return 1; }
    echo "$s $n: $runs runs verified"
}
# two at a time (the big ones first, side by side)
pairs=("chunks 2:all 4" "ras 3:ibtb 2" "samecycle 5:overflow 4" "idle 2:tswrap 3"
       "ras 1 reduced:overflow 1 reduced" "samecycle 8 reduced:tswrap 8 reduced")
for p in "${pairs[@]}"; do
    grid ${p%%:*} >"$TMP/g1.log" 2>&1 & p1=$!
    grid ${p##*:} >"$TMP/g2.log" 2>&1 & p2=$!
    r1=0; r2=0
    wait $p1 || r1=$?
    wait $p2 || r2=$?
    cat "$TMP/g1.log" "$TMP/g2.log"
    [ $r1 -eq 0 ] && [ $r2 -eq 0 ] || die "round trips (${p})"
done

# the sanitizer build on a small one
$TM model --encoding tr_e --timestamps --buffer min --port 1 -q "$TMP/o3.tmc" -o "$TMP/o3.tmt"
$TM decode --verify -q "$TMP/o3.tmc" "$TMP/o3.tmt" >/dev/null || die "asan overflow verify"
echo ok
