#!/bin/bash
# tm — `verilator --lint-only -Wall` of the predictor, message-encoder and
# data-path RTL alone, over the module entries of the manifest's unit-lint
# tier (rtl/configs.txt, read through `tm config`); exit status 1 on any
# warning.
#   testbench/unit/lint.sh [BUILD] [TIERS]     (default: build, unit-lint)
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/scripts/pool.sh"
BUILD=${1:-build}
tiers=${2:-unit-lint}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
TM=$B/bin/tm
[ -x "$TM" ] || { echo "unit lint: $TM is missing: make all first" >&2; exit 2; }
VLT=$ROOT/testbench/unit/lint.vlt  # waives the package's unused constants only
jobs=${LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}
work=$(mktemp -d /tmp/tm-ulint.XXXXXX)
trap 'rm -rf "$work"' EXIT
names=$("$TM" config --list "$tiers") || exit 2

one() { # NAME
    local n=$1 m out rc
    local -a flags
    m=$("$TM" config "$n" --format module) || { echo "FAIL $n: tm config" > "$work/$n.fail"; return; }
    mapfile -t flags < <("$TM" config "$n" --format vflags)
    # rtl/tm.f, the RTL's one file list: modules outside $m's hierarchy are
    # not elaborated.
    out=$(verilator --lint-only -Wall "$VLT" -F "$ROOT/rtl/tm.f" --top-module "$m" "${flags[@]}" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || [ -n "$out" ]; then
        { echo "FAIL $n: $m ${flags[*]}"; echo "$out" | head -30; } > "$work/$n.fail"
    fi
}
# shellcheck disable=SC2086
set -- $names
n=$#
pool "$jobs" one "$@"
print_fails "$work"
bad=$FAILS
echo "lint: $n runs, $bad with warnings"
[ "$bad" -eq 0 ]
