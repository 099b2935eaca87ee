#!/usr/bin/env bash
# make bench, part 6: the speed rows of issue 39, each next to its baseline
# in the same run, and, with a second build (BENCH_BASE), before and after
# side by side on the same inputs, the two builds' runs interleaved.
#
# usage: bench/speed.sh BUILD [BASE_BUILD]
#   BASE_BUILD: the build folder of another version of tm (make bench
#   BENCH_BASE=REV builds REV into one: bench/base.sh).
# Rows (best of TM_BENCH_REPS runs, default 3, seconds; M instructions/s):
#   - tm decode --verify and --from-binary --verify of pigz -p 4 on
#     TM_BENCH_DEC_MB (4) MB, recorded with --commit (large, tr_e); the
#     parse alone (tm dump --count) and the replay alone beside them;
#   - the from-binary replay with tage-l (tr_e and tr_a) against large's;
#   - tm cosim at N = 1 and N = 8 (TM_BENCH_COSIM_INSNS, 2 M, tm gen);
#   - tm record of pigz -p 4 on TM_BENCH_REC_MB (1) MB: --timing cores
#     and serial, with and without --cfiat, against valgrind --tool=none;
#   - tm model with each encoding against the parse of the same stream
#     (TM_BENCH_SPEED_INSNS, 20 M generated instructions, 4 threads).
# The goals of issue 39 are printed beside each row.  The short rows (the
# co-simulation and the model sections: tens of milliseconds to a few
# tenths of a second each, which vary by a tenth from run to run) take the
# best of TM_BENCH_SHORT_REPS (default 7) runs.
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-build}"
BASE=${2:-}
builds=("$BUILD")
[ -n "$BASE" ] && builds+=("$BASE")
if [ -n "$BASE" ] && [ ! -x "$BASE/bin/tm" ]; then
    echo "bench: speed: no tm in the base build $BASE/bin" >&2
    exit 1
fi
# results in $dir/res: KEY BUILD-INDEX SECONDS
res="$dir/res"
: > "$res"
# run KEY CMD... (the word TM in CMD stands for each build's tm): best of
# $reps, the builds interleaved so that both see the same machine.
run() {
    local key=$1
    shift
    local -a best=()
    for _ in $(seq "$reps"); do
        for i in "${!builds[@]}"; do
            local -a cmd=()
            for a in "$@"; do
                if [ "$a" = TM ]; then cmd+=("${builds[$i]}/bin/tm"); else cmd+=("$a"); fi
            done
            local t0 t1
            t0=$(now)
            "${cmd[@]}" > /dev/null 2> "$dir/run.err" ||
                { echo "bench: speed: ${cmd[*]} failed: $(head -n 1 "$dir/run.err")" >&2; exit 1; }
            t1=$(now)
            best[$i]=$(python3 -c "t=$t1-$t0; b='${best[$i]:-}'; print(t if not b or t < float(b) else b)")
        done
    done
    for i in "${!builds[@]}"; do echo "$key $i ${best[$i]}" >> "$res"; done
}
# once KEY CMD...: the same, for a command that is not tm (one column)
once() {
    local key=$1
    shift
    local s
    s=$(best "$@")
    for i in "${!builds[@]}"; do echo "$key $i $s" >> "$res"; done
}

# 1. Replay and verification of a recorded real program.
mb=${TM_BENCH_DEC_MB:-4}
gen_text "$dir/in" "$mb"
echo "bench: speed: recording pigz -p 4 on $mb MB (--commit, large, tr_e)" >&2
"$TM" record --config large --encoding tr_e --commit -o "$dir/p" -- pigz -p 4 -c "$dir/in" > /dev/null
dinsns=$("$TM" dump --count "$dir/p.tmc" | awk '/^instructions:/ {print $2}')
"$TM" model --config tage-l "$dir/p.tmc" -o "$dir/p_tl.tmt" > /dev/null 2>&1
"$TM" model --config tage-l --encoding tr_a "$dir/p.tmc" -o "$dir/p_ta.tmt" > /dev/null 2>&1
echo "bench: speed: replay and verification ($dinsns instructions)" >&2
run parse TM dump --count "$dir/p.tmc"
run verify TM decode --verify -q "$dir/p.tmc" "$dir/p.tmt"
run fb TM decode --from-binary --summary --modules "$dir/p.modules" "$dir/p.tmt"
run fbv TM decode --from-binary --verify -q "$dir/p.tmc" "$dir/p.tmt"
run fbtl TM decode --from-binary --summary --modules "$dir/p.modules" "$dir/p_tl.tmt"
run fbta TM decode --from-binary --summary --modules "$dir/p.modules" "$dir/p_ta.tmt"

long_reps=$reps
reps=${TM_BENCH_SHORT_REPS:-7}
# 2. Co-simulation (each build's simulator is built by a first run).
cinsns=${TM_BENCH_COSIM_INSNS:-2000000}
if command -v verilator > /dev/null; then
    for n in 1 8; do
        "$TM" gen --threads $n --insns "$cinsns" --seed 5 -o "$dir/c$n.tmc"
        for b in "${builds[@]}"; do
            echo "bench: speed: building the simulator of $b (tm cosim, large)" >&2
            "$b/bin/tm" cosim --config large --encoding tr_e -q "$dir/c$n.tmc" > /dev/null 2>&1
        done
        run "cosim$n" TM cosim --config large --encoding tr_e -q "$dir/c$n.tmc"
        run "cmodel$n" TM model --config large --encoding tr_e -q "$dir/c$n.tmc" -o /dev/null
    done
fi

reps=$long_reps
# 3. Recording.
rmb=${TM_BENCH_REC_MB:-1}
rec=0
if [ -x "$BUILD/lib/valgrind/tmtrace-amd64-linux" ]; then
    rec=1
    gen_text "$dir/rin" "$rmb"
    prog=(pigz -p 4 -c "$dir/rin")
    echo "bench: speed: tm record on ${prog[*]}" >&2
    once none valgrind --tool=none "${prog[@]}"
    run rcores TM record --config large --encoding tr_e -o "$dir/r1" -- "${prog[@]}"
    run rserial TM record --timing serial --config large --encoding tr_e -o "$dir/r2" -- "${prog[@]}"
    run rcfiat TM record --config large --encoding tr_e --cfiat -o "$dir/r3" -- "${prog[@]}"
    run rscfiat TM record --timing serial --config large --encoding tr_e --cfiat -o "$dir/r4" -- "${prog[@]}"
    rinsns=$(awk '$1 == "total" {print $2; exit}' "$dir/r1.stats")
fi

reps=${TM_BENCH_SHORT_REPS:-7}
# 4. The model with each encoding against the parse.
minsns=${TM_BENCH_SPEED_INSNS:-20000000}
"$TM" gen --threads 4 --insns "$minsns" --seed 1 -o "$dir/g.tmc"
echo "bench: speed: tm model, $minsns generated instructions" >&2
run gparse TM dump --count "$dir/g.tmc"
encs=$("$TM" config --list-encodings)
for enc in $encs; do
    run "m_$enc" TM model --config large --encoding "$enc" -q "$dir/g.tmc" -o /dev/null
    run "mt_$enc" TM model --config large --encoding "$enc" --timestamps -q "$dir/g.tmc" -o /dev/null
done

python3 - "$res" "${#builds[@]}" "$dinsns" "$cinsns" "$minsns" "$rec" "${rinsns:-0}" "$encs" "$BUILD" "$BASE" <<'PY'
import sys
res, nb = sys.argv[1], int(sys.argv[2])
dinsns, cinsns, minsns, rec, rinsns = map(int, sys.argv[3:8])
encs = sys.argv[8].split()
names = [sys.argv[9]] + ([sys.argv[10]] if nb > 1 else [])
t = {}
for line in open(res):
    k, i, s = line.split()
    t[(k, int(i))] = float(s)
def has(k): return (k, 0) in t
cols = ["after", "before"] if nb > 1 else ["now"]
print("\nissue 39 speed rows" + (f": after = {names[0]}, before = {names[1]}, the same inputs, runs interleaved"
                               if nb > 1 else f": {names[0]}"))
hdr = f"{'':58}" + "".join(f"{c + ' s':>10}{c + ' M/s':>12}" for c in cols) + (f"{'speed-up':>10}" if nb > 1 else "")
print(hdr)
def row(label, k, n):
    line = f"{label:58}"
    for i in range(nb):
        s = t[(k, i)]
        line += f"{s:10.3f}{n / s / 1e6:12.1f}"
    if nb > 1:
        line += f"{t[(k, 1)] / t[(k, 0)]:9.2f}x"
    print(line)
def ratio(label, a, b, goal):
    line = f"  {label:56}"
    for i in range(nb):
        line += f"{t[(a, i)] / t[(b, i)]:10.2f}x{'':11}"
    print(line + f"  goal {goal}")
print(f"replay and verification: pigz -p 4, {dinsns / 1e6:.1f} M instructions")
row("tm dump --count (parse alone)", "parse", dinsns)
row("tm decode --verify", "verify", dinsns)
row("tm decode --from-binary (large, tr_e)", "fb", dinsns)
row("tm decode --from-binary --verify", "fbv", dinsns)
row("tm decode --from-binary, tage-l (tr_e)", "fbtl", dinsns)
row("tm decode --from-binary, tage-l, tr_a", "fbta", dinsns)
for i, c in enumerate(cols):
    print(f"  {c}: --verify {dinsns / t[('verify', i)] / 1e6:.1f} M/s, --from-binary --verify "
          f"{dinsns / t[('fbv', i)] / 1e6:.1f} M/s (goal >= 150); tage-l replay {t[('fb', i)] / t[('fbtl', i)]:.2f}x "
          f"large's, tr_a {t[('fb', i)] / t[('fbta', i)]:.2f}x (goal >= 0.8x)")
if has("cosim1"):
    print(f"co-simulation (tm cosim, large, tr_e), {cinsns / 1e6:.1f} M generated instructions")
    for n in (1, 8):
        row(f"tm cosim, N = {n}", f"cosim{n}", cinsns)
        row(f"tm model, N = {n} (the same stream)", f"cmodel{n}", cinsns)
    for i, c in enumerate(cols):
        print(f"  {c}: N = 1 {cinsns / t[('cosim1', i)] / 1e6:.2f} M/s (goal >= 15), N = 8 "
              f"{cinsns / t[('cosim8', i)] / 1e6:.2f} M/s (goal >= 5)")
if rec:
    print(f"tm record: pigz -p 4, {rinsns / 1e6:.0f} M instructions (all threads)")
    row("valgrind --tool=none (one column: the same runs)", "none", rinsns)
    for k, lab in [("rcores", "tm record (--timing cores, the default)"), ("rserial", "tm record --timing serial"),
                   ("rcfiat", "tm record --cfiat"), ("rscfiat", "tm record --timing serial --cfiat")]:
        row(lab, k, rinsns)
    for i, c in enumerate(cols):
        n = t[("none", i)]
        print(f"  {c}: cores {t[('rcores', i)] / n:.2f}x --tool=none (goal <= 2.5x), serial "
              f"{t[('rserial', i)] / n:.2f}x; --cfiat {rinsns / t[('rcfiat', i)] / 1e6:.1f} M/s (goal >= 30), "
              f"serial --cfiat {rinsns / t[('rscfiat', i)] / 1e6:.1f} M/s")
print(f"the model on a stored stream: {minsns / 1e6:.0f} M generated instructions, 4 threads, large")
row("tm dump --count (parse alone)", "gparse", minsns)
for e in encs:
    row(f"tm model --encoding {e}", f"m_{e}", minsns)
    row(f"tm model --encoding {e} --timestamps", f"mt_{e}", minsns)
for i, c in enumerate(cols):
    worst = max((t[(k, i)] / t[("gparse", i)], k) for k in [f"m_{e}" for e in encs] + [f"mt_{e}" for e in encs])
    print(f"  {c}: model / parse at most {worst[0]:.2f}x ({worst[1]}; goal <= 1.5x for every encoding): " +
          ", ".join(f"{e} {t[(f'm_{e}', i)] / t[('gparse', i)]:.2f}x" for e in encs))
PY
