#!/usr/bin/env bash
# make bench BENCH_BASE=REV: REV of this repository (a commit, tag or
# branch) cloned into DIR and built there (make all), for bench/speed.sh to
# run beside the current build: the build folder is DIR/build.  A second
# make bench with the same REV reuses DIR (make all rebuilds nothing).
# usage: bench/base.sh REV DIR
set -euo pipefail
rev=$1
out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
if ! want=$(git -C "$root" rev-parse --verify --quiet "$rev^{commit}"); then
    echo "bench: BENCH_BASE=$rev: not a commit of $root" >&2
    exit 2
fi
if [ ! -d "$out/.git" ]; then
    rm -rf "$out"
    git clone -q --no-checkout "$root" "$out"
fi
git -C "$out" fetch -q "$root" "$want"
git -C "$out" checkout -q --detach "$want"
echo "bench: building BENCH_BASE=$rev ($(git -C "$out" log -1 --format='%h %s' | cut -c1-60)) in $out" >&2
if ! make -C "$out" -j2 all > "$out/build.log" 2>&1; then
    echo "bench: building BENCH_BASE=$rev failed: $(tail -n 1 "$out/build.log") (log: $out/build.log)" >&2
    exit 1
fi
