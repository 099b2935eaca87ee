#!/usr/bin/env bash
# Runs every end-to-end test script tests/e2e/t_*.sh.  Each script gets
#   TM      the sanitizer build of tm (ASan + UBSan)
#   TMFAST  the optimized build (for the larger streams)
#   TMP     a fresh temporary directory (removed afterwards)
# and passes by exiting 0.  Prints "N passed, N failed" at the end.
set -uo pipefail
BUILD=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export TM="$root/$BUILD/asan/bin/tm"
export TMFAST="$root/$BUILD/bin/tm"
export ROOT="$root"
pass=0; fail=0; failed=()
for t in "$here"/t_*.sh; do
    name=$(basename "$t" .sh)
    TMP=$(mktemp -d /tmp/tm-e2e.XXXXXX)
    export TMP
    start=$(date +%s)
    if bash "$t" >"$TMP/log" 2>&1; then
        pass=$((pass + 1)); echo "PASS $name ($(( $(date +%s) - start ))s)"
    else
        fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name"
        # every failed check (a long script's may be far from its end), then the end
        grep '^FAIL' "$TMP/log" | head -n 40 | sed 's/^/    /'
        echo "    -- the end of its log:"
        sed 's/^/    /' "$TMP/log" | tail -n 40
    fi
    rm -rf "$TMP"
done
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
