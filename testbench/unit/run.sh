#!/bin/bash
# tm — unit testbenches of the predictor, message-encoder and data-path RTL
# (rtl/tm_gshare.sv, tm_ras.sv, tm_ibtb.sv, tm_tage.sv, tm_ittage.sv,
# tm_msg_enc.sv, tm_dcache.sv, tm_data_enc.sv) against the C library, bit for bit.  Builds one Verilator simulator per module into
# build/vunit/ (every tested parameter set of the module side by side in one
# model, see tb_*.sv), runs them and prints one PASS/FAIL line per parameter
# set, then "N passed, N failed".  Exit status 1 on any failure.
#
#   testbench/unit/run.sh [MODULE...] [+cycles=N] [+msgs=N] [+seed=S]
# MODULE: gshare, ras, ibtb, tage, ittage, msg_enc, dcache, data_enc (the
# harnesses tb_MODULE to run; default all of them).  Defaults: 1000000
# cycles per predictor and cache config, 500000 messages per encoder config,
# seed 1.  The + arguments are passed to every simulator.
# tb_dcache also prints the simulation speed of its caches ("speed:").
# Built with --assert: a module's assertion (rtl/tm_assert.svh) that fails
# stops its simulator, and the harness fails.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/scripts/pool.sh"
TB=$ROOT/testbench/unit
OUT=$ROOT/build/vunit
ALL=(gshare ras ibtb tage ittage msg_enc dcache data_enc)
ARGS=("+cycles=1000000" "+msgs=500000")
MODS=()
for a in "$@"; do
    case $a in
        +*) ARGS+=("$a") ;;
        *) [[ " ${ALL[*]} " == *" $a "* ]] || { echo "run.sh: no harness '$a' (${ALL[*]})" >&2; exit 2; }
           MODS+=("$a") ;;
    esac
done
[ ${#MODS[@]} -gt 0 ] || MODS=("${ALL[@]}")
mkdir -p "$OUT"

make -C "$ROOT" -s build/lib/libtm.a || { echo "FAIL build/lib/libtm.a"; exit 1; }
for r in $(cd "$TB" && ls ref_*.c | sed "s/\.c$//"); do
    cc -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -I"$ROOT/include" -c "$TB/$r.c" -o "$OUT/$r.o" ||
        { echo "FAIL $r.c"; exit 1; }
done

# Verilator's runtime is the same for every harness: ccache (make deps)
# compiles it once.  UNIT_JOBS harnesses are built and run at once (default:
# the number of processors); each one's lines are printed in order at the end.
OBJCACHE=${OBJCACHE-$(command -v ccache 2>/dev/null)}
jobs=${UNIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
one() { # MODULE: builds and runs tb_MODULE; writes $OUT/tb_MODULE.res (lines) and .nfail
    local m=$1 top=tb_$1 rc p f
    local -a refs srcs
    refs=("$OUT"/ref_*.o) # every reference: ref_<module>.c, ref_common.c
    # The RTL's one file list (rtl/tm.f): only tm_$m's hierarchy is
    # elaborated under the top tb_$m; lint.vlt waives the package's unused
    # constants.
    srcs=("$TB/lint.vlt" -F "$ROOT/rtl/tm.f")
    rm -f "$OUT/$top/V$top"   # relink even if only a ref_*.o or libtm.a changed
    if ! verilator --cc --exe --build -j 2 -Wall -O3 --assert --x-assign fast --x-initial fast \
            -CFLAGS "-O2 -I$TB" -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1 OBJCACHE=$OBJCACHE" \
            --Mdir "$OUT/$top" --top-module "$top" -o "V$top" \
            "${srcs[@]}" "$TB/$top.sv" "$TB/$top.cpp" "${refs[@]}" "$ROOT/build/lib/libtm.a" \
            -LDFLAGS "-lzstd -lz -lm" > "$OUT/$top.build.log" 2>&1; then
        { echo "FAIL $top: build (see $OUT/$top.build.log)"; tail -20 "$OUT/$top.build.log"; } > "$OUT/$top.res"
        echo 0 1 > "$OUT/$top.count"
        return
    fi
    "$OUT/$top/V$top" "${ARGS[@]}" > "$OUT/$top.log" 2>&1
    rc=$?
    grep -E '^(PASS|FAIL|speed:) ' "$OUT/$top.log" > "$OUT/$top.res"
    p=$(grep -c '^PASS ' "$OUT/$top.log")
    f=$(grep -c '^FAIL ' "$OUT/$top.log")
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $top: simulator exit status $rc" >> "$OUT/$top.res"
        f=1
    fi
    if [ "$f" -ne 0 ]; then grep -vE '^(PASS|FAIL|speed:) ' "$OUT/$top.log" | head -20 >> "$OUT/$top.res"; fi
    echo "$p $f" > "$OUT/$top.count"
}
for m in "${MODS[@]}"; do rm -f "$OUT/tb_$m.res" "$OUT/tb_$m.count"; done
pool "$jobs" one "${MODS[@]}"
pass=0
fail=0
for m in "${MODS[@]}"; do
    cat "$OUT/tb_$m.res" 2>/dev/null
    read -r p f < "$OUT/tb_$m.count" 2>/dev/null || { echo "FAIL tb_$m: no result"; p=0 f=1; }
    pass=$((pass + p))
    fail=$((fail + f))
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
