#!/usr/bin/env bash
# tier: test
# tm record --frontend pin end to end (issue 20): the Pin tool writes the
# capture stream the Valgrind tool writes, so the two frontends' recordings of
# a program must have the same instruction flow.  Needs a Pin 3.x kit:
# PIN_ROOT=DIR (DIR/pin); without it the script prints one line and exits 77
# (tests/e2e/run.sh: "not run").
#
# 1. The tool: make pin PIN_ROOT=$PIN_ROOT into the build folder of $TMFAST
#    (TM_PIN_TOOL=FILE: that tool instead, nothing built).
# 2. The project's test programs (tests/programs: branchtest, traptortest 1-4,
#    evict, multiblock, mlstest, mt_pthread 4 join, signals, crash segv) and
#    pigz -p 4 on a file, each recorded under both frontends with --commit
#    and load values (--cfiat, a buffer large enough not to overflow): the
#    same exit status and output (but for the addresses a program prints;
#    pigz: the untraced run's); every Pin
#    recording complete (crash: ended by its signal), verified (tm decode
#    --verify, with load values) and replayed from the binaries (--from-binary
#    --verify).
# 3. The flows (tm dump --flow), compared by tests/e2e/flowcmp.py, which
#    t_record_capture.sh checks on Valgrind recordings:
#    - single-threaded programs (exact): identical, or else identical in the
#      program's own code: every straight run, branch (class, outcome,
#      target), exception and load (place, size, value; an 8-byte pointer
#      may differ, as the frontends lay the stack and the heap out
#      differently).  Not compared outside the program's code: Valgrind runs
#      code of its own (its signal return trampoline, redirections in ld.so)
#      and reports another CPU through CPUID, so glibc chooses other string
#      functions (ifuncs) than it does under Pin, which runs the real CPU;
#    - threads and signals (mt_pthread, signals: threads): each thread's set
#      of branches in the program's code, threads matched whatever their
#      order (their start, loops that wait, asynchronous signals differ from
#      run to run);
#    - pigz (edges:0.95): the branches of all its threads in its own code
#      agree to 95%: its threads' interleaving decides some of its waits.
# 4. --mode through Pin: BranchTest's mcftrace descriptors as expected.
# TM_PIN_QUICK=1: branchtest, traptortest 1, mlstest, crash, mt_pthread and
# 4. only (t_record_capture.sh runs this script so with a stand-in kit, to
# check the script where there is no Pin).
# Sizes (E2E_TIER, tests/e2e/run.sh): pigz compresses 600 KB in the regress
# tier, 64 KB in 32 KiB blocks (two, for two of its threads) otherwise:
# flowcmp.py reads some 7 KB of flow per byte compressed, twice.
set -uo pipefail
if [ -z "${PIN_ROOT:-}" ]; then
    echo "t_pin: needs PIN_ROOT (a Pin 3.x kit); not run"
    exit 77
fi
source "$(dirname "$0")/lib.sh"
record_env
RESOLVE="python3 $ROOT/tests/programs/resolve.py"
cd "$TMP" || exit 1
if full_size; then pigz_in=600000 pigz_b=(); else pigz_in=65536 pigz_b=(-b 32); fi
[ -x "$PIN_ROOT/pin" ] || die "PIN_ROOT=$PIN_ROOT: no pin launcher there ($PIN_ROOT/pin)"
[ -x "$TM_VALGRIND_LIB/tmtrace-amd64-linux" ] || die "$TM_VALGRIND_LIB/tmtrace-amd64-linux is not built"
for p in branchtest traptortest evict multiblock mlstest mt_pthread signals crash; do
    [ -x "$P/$p" ] || die "$P/$p is not built (make BUILD=$B programs)"
done
PIGZ=$(command -v pigz) || die "pigz is not installed (make deps)"

# ======================================================================
echo "== 1. the Pin tool"
if [ -n "${TM_PIN_TOOL:-}" ]; then
    [ -r "$TM_PIN_TOOL" ] || die "TM_PIN_TOOL=$TM_PIN_TOOL: no such file"
    ok "the Pin tool: $TM_PIN_TOOL (TM_PIN_TOOL)"
else
    make -C "$ROOT" BUILD="$B" pin PIN_ROOT="$PIN_ROOT" > make.log 2>&1 ||
        { tail -n 20 make.log | sed 's/^/    /'; die "make pin PIN_ROOT=$PIN_ROOT failed"; }
    for t in "$B/lib/pin/tm_pin.so" "$ROOT/build/lib/pin/tm_pin.so"; do
        if [ -r "$t" ]; then
            export TM_PIN_TOOL=$t
            break
        fi
    done
    [ -n "${TM_PIN_TOOL:-}" ] || die "make pin built no $B/lib/pin/tm_pin.so (nor $ROOT/build/lib/pin/tm_pin.so)"
    ok "the Pin tool: make pin PIN_ROOT=$PIN_ROOT -> $TM_PIN_TOOL"
fi
# (the sanitizer build's tm finds no lib/pin next to it: TM_PIN_TOOL says)

# rec WANT TMBIN BASE [tm record options] -- PROG ARGS: tm record, stdout to
# BASE.out, stderr to BASE.err; the exit status must be WANT.
rec() {
    local want=$1 tm=$2 base=$3 st=0
    shift 3
    "$tm" record "$@" > "$base.out" 2> "$base.err" || st=$?
    if [ "$st" -ne "$want" ]; then
        sed 's/^/    /' "$base.err" | tail -n 15
        [ -s "$base.pin.log" ] && sed 's/^/    pin.log: /' "$base.pin.log" | tail -n 10
        die "tm record $* (in $TMP): exit status $st, wanted $want"
    fi
    sancheck "$base.err" "tm record $*"
}

# both MODE NAME WANT TMBIN -- PROG ARGS: PROG recorded under each frontend
# (vg_NAME, pin_NAME), the Pin recording checked, the flows compared (MODE:
# flowcmp.py's).
both() {
    local mode=$1 name=$2 want=$3 tm=$4
    shift 5
    local data="--commit --cfiat --buffer 1048576 --port 256 --threads 16"
    # shellcheck disable=SC2086
    rec "$want" "$tm" "vg_$name" $data -o "vg_$name" -- "$@"
    # shellcheck disable=SC2086
    rec "$want" "$tm" "pin_$name" --frontend pin $data -o "pin_$name" -- "$@"
    # the same output, but for the addresses it prints (mlstest prints a
    # stack variable's)
    cmp -s <(LC_ALL=C sed -E 's/0x[0-9a-f]+/0x?/g' "vg_$name.out") <(LC_ALL=C sed -E 's/0x[0-9a-f]+/0x?/g' "pin_$name.out") ||
        die "$name: the program's output differs between the frontends (but for the addresses it prints)"
    local cap
    cap=$(sed -n 's/^capture: .* \([0-9]*\) threads, \(.*\)$/\1 threads, \2/p' "pin_$name.stats")
    case $name:$cap in
    crash*) ;;
    *:*", complete") ;;
    *) die "$name: pin_$name.stats: capture '$cap', wanted complete" ;;
    esac
    verify "$tm" "pin_$name" "$name under Pin" data
    local st=0
    TMBIN=$tm flow_cmp "$mode" "$1" "vg_$name" "pin_$name" || st=$?
    [ $st -eq 0 ] || die "$name: the frontends' flows ($mode): $FLOW_CMP"
    ok "$name: exit $want, $cap; the Pin recording verifies and replays from the binaries ($(grep -o '^OK: [0-9]* instructions' "pin_$name.fout")); flows ($mode): $FLOW_CMP"
}

# ======================================================================
echo "== 2, 3. the test programs and pigz under both frontends"
both exact branchtest 7 "$TM" -- "$P/branchtest"
quick=${TM_PIN_QUICK:-0}
for t in 1 2 3 4; do
    [ "$quick" = 1 ] && [ "$t" -gt 1 ] && break
    both exact "traptortest$t" 0 "$TM" -- "$P/traptortest" "$t"
done
if [ "$quick" != 1 ]; then
    both exact evict 0 "$TM" -- "$P/evict"
    both exact multiblock 0 "$TM" -- "$P/multiblock"
fi
both exact mlstest 0 "$TM" -- "$P/mlstest"
both exact crash 139 "$TM" -- "$P/crash" segv
grep -q '^ended: killed by signal 11' pin_crash.stats || die "crash under Pin: $(grep ^ended pin_crash.stats)"
# bound at load (LD_BIND_NOW): which thread resolves a lazy binding first
# (its PLT jump to the resolver, the others' to the function) is the
# frontends' schedule, not the program's
export LD_BIND_NOW=1
both threads mt_pthread 0 "$TMFAST" -- "$P/mt_pthread" 4 join
unset LD_BIND_NOW
if [ "$quick" != 1 ]; then
    both threads signals 0 "$TMFAST" -- "$P/signals"
    cat "$ROOT/docs/spec.md" "$ROOT/docs/guide.md" "$ROOT/capture/capture.c" "$ROOT/cmodel/model.c" |
        head -c $pigz_in > in.txt
    "$PIGZ" "${pigz_b[@]}" -p 4 -c in.txt > native.gz || die "pigz: the untraced run failed"
    both edges:0.95 pigz 0 "$TMFAST" -- "$PIGZ" "${pigz_b[@]}" -p 4 -c in.txt
    cmp -s pin_pigz.out native.gz || die "pigz under Pin: the output differs from the untraced run's"
    ok "pigz under Pin: output identical to the untraced run's ($(stat -c %s native.gz) bytes)"
fi

# ======================================================================
echo "== 4. --mode through Pin"
rec 7 "$TM" pbt --frontend pin --filter-rtn test_region --mode mcftrace -a -o pbt -- "$P/branchtest"
$RESOLVE "$P/branchtest" "$E/branchtest.mcftrace" > pbt.expected || die "cannot resolve branchtest.mcftrace"
diff -u pbt.expected pbt.txt > pbt.diff || { sed 's/^/    /' pbt.diff | head -n 20; die "Pin, --mode mcftrace: pbt.txt differs"; }
ok "BranchTest under Pin: the mcftrace descriptors of tests/programs/expected"

echo "all tm record --frontend pin tests passed"
