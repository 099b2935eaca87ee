#!/usr/bin/env bash
# make lint: verilator --lint-only -Wall of tm_top over the configurations of
# the manifest's tiers (rtl/configs.txt, read through `tm config`): each
# configuration's -G flags are derived by the library from its tm model
# options (tm config NAME --format vflags).  Configurations with the same RTL
# parameter set are linted once, in both views of tm_top: without and with
# TM_OBS (the observation ports, docs/rtl.md "Assertions").
#
#   scripts/lint.sh [BUILD] [TIERS]     TIERS: comma-separated (default
#                                       lint,cosim-quick: make test)
# make check lints lint-check, make regress lint-full.  LINT_JOBS runs at
# once (default: the number of processors).  Waivers live in the RTL next to
# the code they concern, each with a comment.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/pool.sh"
BUILD=${1:-build}
tiers=${2:-lint,cosim-quick}
case $BUILD in /*) B=$BUILD ;; *) B=$root/$BUILD ;; esac
TM=$B/bin/tm
[ -x "$TM" ] || { echo "lint: $TM is missing: make all first" >&2; exit 2; }
command -v verilator > /dev/null || { echo "lint: verilator not found (make deps installs it)" >&2; exit 2; }
jobs=${LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}
work=$(mktemp -d /tmp/tm-lint.XXXXXX)
trap 'rm -rf "$work"' EXIT

names=$("$TM" config --list "$tiers") || exit 2
# One run per RTL parameter set: NAME KEY lines, the first name of each key.
declare -A seen=()
unique=()
for n in $names; do
    key=$("$TM" config "$n" --format key) || { echo "lint: FAIL $n: tm config"; exit 1; }
    [ -n "${seen[$key]:-}" ] && continue
    seen[$key]=$n
    unique+=("$n")
done

one() { # NAME: lint it; writes $work/NAME.fail on a warning
    local n=$1 out
    local -a flags
    mapfile -t flags < <("$TM" config "$n" --format vflags)
    # Both views of tm_top: as synthesized (no observation ports) and as the
    # co-simulation builds it (+define+TM_OBS, testbench/sim.mk).
    for obs in "" +define+TM_OBS; do
        if ! out=$(verilator --lint-only -Wall --top-module tm_top "${flags[@]}" $obs -F "$root/rtl/tm.f" 2>&1) ||
            [ -n "$out" ]; then
            { echo "lint: FAIL $n${obs:+ ($obs)}: $("$TM" config "$n" --format opts) (N = $("$TM" config "$n" --format threads))"
              echo "$out" | head -20; } > "$work/$n.fail"
            return
        fi
    done
}
pool "$jobs" one "${unique[@]}"
print_fails "$work"
fails=$FAILS
echo "lint ($tiers): $(( ${#unique[@]} - fails )) passed, $fails failed"
[ $fails -eq 0 ]
