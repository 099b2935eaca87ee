#!/usr/bin/env bash
# tier: test
# The TAGE-class predictors (docs/spec.md §3.3.1-3) end to end: programs
# recorded with the tage-* presets, private and shared, every trace replayed
# (tm decode --verify) and replayed from the binaries (--from-binary), each
# reproducing the trace bit for bit; the predictors beat gshare and the iBTB
# of the same state budget on the same execution (printed, not a threshold
# on speed); bad options get one line and exit 2.  (The RTL's TAGE-class
# predictors are co-simulated by testbench/regress.sh.)  Run by tests/e2e/run.sh
# with TM, TMFAST, ROOT, TMP set.
# Sizes (E2E_TIER, tests/e2e/run.sh): in the regress tier section 2's pigz
# and xz compress 400,000 random bytes in base64 and sort sorts 60,000
# numbers; otherwise 100,000 bytes (pigz in 32 KiB blocks, so that its four
# threads share the work) and 20,000 numbers.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
if full_size; then in_size=400000 nums=60000 pigz_b=""; else in_size=100000 nums=20000 pigz_b="-b 32"; fi

# check TMBIN BASE CONFIG...: model BASE.tmc with CONFIG into BASE.c.tmt,
# then verify it both ways (--shared: with the commit stream only, as
# --from-binary replays the private organization only, docs/spec.md §6.1).
check() {
    local tmb=$1 base=$2; shift 2
    local name="$base ($*)" hows=("" "--from-binary --modules $base.modules")
    case " $* " in *" --shared "*) hows=("") ;; esac
    "$tmb" model "$@" "$base.tmc" -o "$base.c.tmt" > "$base.c.out" 2> "$base.c.err" ||
        { cat "$base.c.err"; die "$name: tm model failed"; }
    for how in "${hows[@]}"; do
        # shellcheck disable=SC2086
        "$tmb" decode $how --verify "$base.tmc" "$base.c.tmt" > "$base.c.v" 2> "$base.c.ve" ||
            { head -n 5 "$base.c.v" "$base.c.ve"; die "$name: tm decode ${how%% *} --verify failed"; }
        grep -q '^OK: ' "$base.c.v" || die "$name: tm decode ${how%% *} --verify: $(head -n 2 "$base.c.v")"
        sancheck "$base.c.ve" "$name: tm decode"
    done
    [ ${#hows[@]} -eq 2 ] && ok "$name: verified and replayed from the binaries" || ok "$name: verified"
}

# rates BASE CONFIG: "outcome% target% bpi" of the total line of tm model.
rates() {
    local base=$1; shift
    "$TMFAST" model "$@" "$base.tmc" -o "$base.r.tmt" 2> /dev/null | awk '/^total/ {print $4, $5, $8}'
}

echo "== 1. test programs: tage-s, tage-m shared, tage-l (sanitizer build)"
"$TM" record --commit --config tage-l -o bt -- "$P/branchtest" > /dev/null 2> bt.err
[ -s bt.tmc ] || { cat bt.err; die "branchtest: no recording"; }
verify "$TM" bt "branchtest, tage-l (recorded)"
ok "branchtest recorded with tage-l: verified and replayed from the binaries"
for prog in "traptortest 2" "multiblock" "mt_pthread 4 join" "signals"; do
    set -- $prog
    name=$1
    "$TMFAST" record --commit -o "$name" -- "$P/$@" > /dev/null 2> "$name.err"
    [ -s "$name.tmc" ] || { cat "$name.err"; die "$name: no recording"; }
    check "$TM" "$name" --config tage-s
    check "$TM" "$name" --config tage-m --shared
    check "$TM" "$name" --config tage-l
done
# a TAGE predictor with the iBTB, gshare with an ITTAGE one, odd sizes
check "$TM" mt_pthread --config large --tage 64 --tage-tables 8 --tage-entries 2 --tage-tag 4 --tage-hist 1:128
check "$TM" mt_pthread --config large --ittage 2 --ittage-tables 1 --ittage-entries 4 --ittage-tag 16 --ittage-hist 5:5

echo "== 2. real programs, tage-l private and tage-m shared, against large and medium"
head -c $in_size /dev/urandom | base64 > in.txt
seq 1 $nums | shuf --random-source=in.txt > nums.txt
runs=("pigz:$(command -v pigz) $pigz_b -p 4 -c in.txt" "xz:$(command -v xz) -T2 -c in.txt"
      "sort:$(command -v sort) --parallel=2 -n nums.txt")
for r in "${runs[@]}"; do
    name=${r%%:*}
    # shellcheck disable=SC2086
    "$TMFAST" record --commit -o "$name" -- ${r#*:} > /dev/null 2> "$name.err"
    [ -s "$name.tmc" ] || { cat "$name.err"; die "$name: no recording"; }
    check "$TMFAST" "$name" --config tage-l
    check "$TMFAST" "$name" --config tage-m --shared
    read -r lo lt lb <<< "$(rates "$name" --config large)"
    read -r to tt tb <<< "$(rates "$name" --config tage-l)"
    echo "     $name: large outcome $lo target $lt bpi $lb; tage-l outcome $to target $tt bpi $tb"
    [ -n "$lo" ] && [ -n "$to" ] || die "$name: no rates from tm model"
done

echo "== 3. bad options: one line, exit 2"
bad() {
    local want=$1; shift
    "$TMFAST" model "$@" bt.tmc -o bad.tmt > bad.out 2> bad.err && die "tm model $*: accepted"
    local st=$?
    [ "$st" -eq 2 ] && [ "$(wc -l < bad.err)" -eq 1 ] && grep -qF -- "$want" bad.err ||
        die "tm model $*: exit $st, '$(cat bad.err)' (wanted one line with '$want')"
    [ ! -e bad.tmt ] || die "tm model $*: left bad.tmt"
}
bad "--tage 100: allowed 0 or a power of two" --tage 100
bad "--tage-tables 9: allowed 1 to 8" --config tage-l --tage-tables 9
bad "--tage-hist 9:5" --config tage-m --tage-hist 9:5
bad "--tage-hist x: expected MIN:MAX" --config tage-m --tage-hist x
bad "--ittage-tag: only with --ittage N" --config large --ittage-tag 8
bad "one conditional predictor" --config tage-l --gshare 1024
bad "--config huge: allowed small, medium, large, tage-s, tage-m, tage-l" --config huge
ok "bad options refused in one line"
exit "$fails"
