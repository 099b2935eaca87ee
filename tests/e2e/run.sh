#!/usr/bin/env bash
# Runs every end-to-end test script tests/e2e/t_*.sh.  Each script gets
#   TM      the sanitizer build of tm (ASan + UBSan)
#   TMFAST  the optimized build (for the larger streams)
#   TMP     a fresh temporary directory (removed afterwards)
# and passes by exiting 0.  A script that exits 77 was not run (what it
# needs is not here, e.g. a Pin kit): "NOT RUN name: <its last line>", counted
# apart, neither passed nor failed.  Prints "N passed, N failed, N not run" at
# the end; the status is nonzero iff one failed.
set -uo pipefail
BUILD=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
case $BUILD in /*) build=$BUILD ;; *) build=$root/$BUILD ;; esac
export TM="$build/asan/bin/tm"
export TMFAST="$build/bin/tm"
export ROOT="$root"
pass=0; fail=0; notrun=0; failed=()
for t in "$here"/t_*.sh; do
    name=$(basename "$t" .sh)
    TMP=$(mktemp -d /tmp/tm-e2e.XXXXXX)
    export TMP
    start=$(date +%s)
    st=0
    bash "$t" >"$TMP/log" 2>&1 || st=$?
    if [ "$st" -eq 0 ]; then
        pass=$((pass + 1)); echo "PASS $name ($(( $(date +%s) - start ))s)"
    elif [ "$st" -eq 77 ]; then
        notrun=$((notrun + 1)); echo "NOT RUN $name: $(grep -v '^[[:space:]]*$' "$TMP/log" | tail -n 1)"
    else
        fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name"
        # every failed check (a long script's may be far from its end), then the end
        grep '^FAIL' "$TMP/log" | head -n 40 | sed 's/^/    /'
        echo "    -- the end of its log:"
        sed 's/^/    /' "$TMP/log" | tail -n 40
    fi
    rm -rf "$TMP"
done
echo "e2e: $pass passed, $fail failed, $notrun not run"
[ "$fail" -eq 0 ]
