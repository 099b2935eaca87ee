#!/usr/bin/env bash
# Runs the end-to-end test scripts tests/e2e/t_*.sh of a tier.  Each script gets
#   TM        the sanitizer build of tm (ASan + UBSan)
#   TMFAST    the optimized build (for the larger streams)
#   TMP       a fresh temporary directory (removed afterwards)
#   E2E_TIER  the tier (below), which also sizes the script's inputs
# and passes by exiting 0.  A script that exits 77 was not run (what it
# needs is not here, e.g. a Pin kit): "NOT RUN name: <its last line>", counted
# apart, neither passed nor failed.  Prints "PASS name (Ns)" as each one
# ends, then the five slowest scripts with their times, then
# "e2e: N passed, N failed, N not run"; the status is nonzero iff one failed.
#
#   [E2E_TIER=check|test|regress] [E2E_JOBS=N] tests/e2e/run.sh [BUILD] [NAME...]
#       NAME: t_cosim or cosim (default: every script of the tier)
#
# Tiers: each script says its own in a header line "# tier: check" or
# "# tier: test" (none: test).  E2E_TIER (default test) chooses:
#   check    the scripts marked check only, the fastest (make check, before
#            every commit: budget 90 s; 49 s on 2 idle cores);
#   test     the scripts marked check or test (make test: budget 8 minutes
#            with E2E_JOBS=2; 6.7 minutes on 2 idle cores), the heavy ones
#            on inputs sized for that budget;
#   regress  every script (make regress, no time limit), each on its
#            full-size inputs: the repetitions, larger streams and extra
#            configurations that the other tiers leave out (11 minutes
#            on 2 idle cores).
# A script reads E2E_TIER itself to size its inputs (lib.sh: full_size), e.g.
#   if [ "${E2E_TIER:-test}" = regress ]; then N=40; else N=10; fi
# so that every kind of check runs in the test tier and the heavy variants
# in regress; each heavy script's header says what its sizes are.  NAMEs
# given on the command line run whatever their tier, with the sizes of
# E2E_TIER.
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
tier=${E2E_TIER:-test}
case $tier in check | test | regress) ;; *) echo "run.sh: E2E_TIER='$tier': expected check, test or regress" >&2; exit 2 ;; esac
export E2E_TIER=$tier

# tier_of NAME: the tier in the script's header (test if it names none).
tier_of() {
    local t
    t=$(sed -n '1,15s/^# tier: *\([a-z]*\) *$/\1/p' "$here/$1.sh" | head -n 1)
    echo "${t:-test}"
}
# in_tier NAME: the script belongs to the tier run.
in_tier() {
    case $tier:$(tier_of "$1") in
        check:check | test:check | test:test | regress:*) return 0 ;;
        *) return 1 ;;
    esac
}

# The longest scripts first (in the test tier, from two and a half minutes
# down to 15 s each on 2 cores), so that the short ones fill in at the end.
slow=(t_faults t_timing t_record t_record_capture t_cosim t_record_regress t_tra
      t_roundtrip t_frombinary t_tage t_data t_study t_gen_directed t_pt t_study_slurm)
all=()
if [ $# -gt 0 ]; then
    for a in "$@"; do
        a=${a%.sh}; a=t_${a#t_}
        [ -f "$here/$a.sh" ] || { echo "run.sh: $a: no such test ($here/$a.sh)" >&2; exit 2; }
        all+=("$a")
    done
else
    for s in "${slow[@]}"; do [ -f "$here/$s.sh" ] && in_tier "$s" && all+=("$s"); done
    for t in "$here"/t_*.sh; do
        name=$(basename "$t" .sh)
        case " ${slow[*]} " in *" $name "*) ;; *) in_tier "$name" && all+=("$name") ;; esac
    done
fi

res=$(mktemp -d /tmp/tm-e2e-run.XXXXXX)
lock="$res/slurm.lock"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$res"' EXIT
trap 'exit 130' INT TERM

one() { # name: runs it, writes $res/name.out (the lines to print), name.st and name.time
    local name=$1 t="$here/$1.sh" st=0 start took
    TMP=$(mktemp -d /tmp/tm-e2e.XXXXXX)
    export TMP
    start=$(date +%s)
    case $name in
        *slurm*) flock "$lock" bash "$t" > "$TMP/log" 2>&1 || st=$? ;;
        *) bash "$t" > "$TMP/log" 2>&1 || st=$? ;;
    esac
    took=$(( $(date +%s) - start ))
    {
        if [ "$st" -eq 0 ]; then
            echo "PASS $name (${took}s)"
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
    echo "$took $name" > "$res/$name.time"
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
started=$(date +%s)
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
if [ ${#all[@]} -gt 0 ]; then
    echo "tier $tier: ${#all[@]} scripts in $(( $(date +%s) - started ))s with E2E_JOBS=$jobs; the slowest:"
    cat "$res"/*.time | sort -rn | head -n 5 | while read -r s n; do printf '    %5ss %s\n' "$s" "$n"; done
fi
echo "e2e: $pass passed, $fail failed, $notrun not run"
[ "$fail" -eq 0 ]
