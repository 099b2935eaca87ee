#!/usr/bin/env bash
# Prints the RTL files of rtl/tm.f (the one file list), one absolute path a
# line, for the tools that do not read Verilator's -F files (Yosys).
#   scripts/rtl_files.sh            every file, in compile order
#   scripts/rtl_files.sh MODULE...  the files of these modules (tm_pkg, tm_core,
#                                   ...), in the order given; exit 1 with one
#                                   line on stderr if one is not in the list
set -uo pipefail
rtl=$(cd "$(dirname "$0")/../rtl" && pwd)
# Comments (// to the end of the line) and blank lines are not files.
files=$(sed -e 's#//.*##' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' -e '/^[+-]/d' "$rtl/tm.f") || exit 1
if [ $# -eq 0 ]; then
    for f in $files; do echo "$rtl/$f"; done
    exit 0
fi
for m in "$@"; do
    hit=
    for f in $files; do
        [ "$(basename "$f" .sv)" = "$m" ] && hit=$f
    done
    [ -n "$hit" ] || { echo "rtl_files: $m is not in rtl/tm.f" >&2; exit 1; }
    echo "$rtl/$hit"
done
