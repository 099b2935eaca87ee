#!/usr/bin/env bash
# Runs every end-to-end test script tests/e2e/t_*.sh.  Each script gets
#   TM      the sanitizer build of tm (ASan + UBSan)
#   TMFAST  the optimized build (for the larger streams)
#   TMP     a fresh temporary directory (removed afterwards)
# and passes by exiting 0.  A script that exits 77 was not run (what it
# needs is not here, e.g. a Pin kit): "NOT RUN name: <its last line>", counted
# apart, neither passed nor failed.  Prints "N passed, N failed, N not run" at
# the end; the status is nonzero iff one failed.
#
#   tests/e2e/run.sh [BUILD] [NAME...]     NAME: t_cosim or cosim (default: all)
#
# E2E_JOBS scripts run at once (default: the number of processors), the
# longest first; each one's lines are printed when it ends.  The scripts that
# start Slurm daemons (t_*slurm*) take turns on one lock.
set -uo pipefail
BUILD=${1:-build}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $BUILD in /*) build=$BUILD ;; *) build=$root/$BUILD ;; esac
export TM="$build/asan/bin/tm"
export TMFAST="$build/bin/tm"
export ROOT="$root"
jobs=${E2E_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: E2E_JOBS='$jobs': expected a positive number" >&2; exit 2 ;; esac

# The longest scripts first (their durations on 2 cores, a few minutes each),
# so that the short ones fill in at the end.
slow=(t_timing t_cosim t_faults t_record t_frombinary t_record_capture t_tage
      t_record_regress t_pt t_gen_directed t_data t_roundtrip t_study)
all=()
if [ $# -gt 0 ]; then
    for a in "$@"; do
        a=${a%.sh}; a=t_${a#t_}
        [ -f "$here/$a.sh" ] || { echo "run.sh: $a: no such test ($here/$a.sh)" >&2; exit 2; }
        all+=("$a")
    done
else
    for s in "${slow[@]}"; do [ -f "$here/$s.sh" ] && all+=("$s"); done
    for t in "$here"/t_*.sh; do
        name=$(basename "$t" .sh)
        case " ${slow[*]} " in *" $name "*) ;; *) all+=("$name") ;; esac
    done
fi

res=$(mktemp -d /tmp/tm-e2e-run.XXXXXX)
lock="$res/slurm.lock"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$res"' EXIT
trap 'exit 130' INT TERM

one() { # name: runs it, writes $res/name.out (the lines to print) and $res/name.st
    local name=$1 t="$here/$1.sh" st=0 start
    TMP=$(mktemp -d /tmp/tm-e2e.XXXXXX)
    export TMP
    start=$(date +%s)
    case $name in
        *slurm*) flock "$lock" bash "$t" > "$TMP/log" 2>&1 || st=$? ;;
        *) bash "$t" > "$TMP/log" 2>&1 || st=$? ;;
    esac
    {
        if [ "$st" -eq 0 ]; then
            echo "PASS $name ($(( $(date +%s) - start ))s)"
        elif [ "$st" -eq 77 ]; then
            echo "NOT RUN $name: $(grep -v '^[[:space:]]*$' "$TMP/log" | tail -n 1)"
        else
            echo "FAIL $name"
            # every failed check (a long script's may be far from its end), then the end
            grep '^FAIL' "$TMP/log" | head -n 40 | sed 's/^/    /'
            echo "    -- the end of its log:"
            sed 's/^/    /' "$TMP/log" | tail -n 40
        fi
    } > "$res/$name.out"
    rm -rf "$TMP"
    echo "$st" > "$res/$name.st"
}

pass=0; fail=0; notrun=0
report() { # name
    cat "$res/$1.out"
    case $(cat "$res/$1.st") in
        0) pass=$((pass + 1)) ;;
        77) notrun=$((notrun + 1)) ;;
        *) fail=$((fail + 1)) ;;
    esac
    rm -f "$res/$1.st"
}
declare -A pid_of=()
next=0
while [ "$next" -lt ${#all[@]} ] || [ ${#pid_of[@]} -gt 0 ]; do
    while [ "$next" -lt ${#all[@]} ] && [ ${#pid_of[@]} -lt "$jobs" ]; do
        one "${all[$next]}" &
        pid_of[${all[$next]}]=$!
        next=$((next + 1))
    done
    wait -n 2>/dev/null || true
    for name in "${!pid_of[@]}"; do
        if [ -f "$res/$name.st" ]; then
            wait "${pid_of[$name]}" 2>/dev/null
            unset "pid_of[$name]"
            report "$name"
        fi
    done
done
echo "e2e: $pass passed, $fail failed, $notrun not run"
[ "$fail" -eq 0 ]
