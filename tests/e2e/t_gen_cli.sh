#!/usr/bin/env bash
# tier: check
# tm gen on the command line: determinism, '-o -', option errors (one line,
# exit 2), write errors (exit 1), quiet small runs, progress for large ones.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# The documented invocation works and gives exactly the instructions asked for.
$TM gen --threads 4 --insns 2000000 --seed 7 -o "$TMP/a.tmc" 2>"$TMP/err" >"$TMP/out"
[ ! -s "$TMP/err" ] || die "small run wrote to stderr: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || die "gen to a file wrote to stdout"
$TM dump --count "$TMP/a.tmc" >"$TMP/count"
grep -qx 'instructions: 2000000' "$TMP/count" || die "instruction count: $(cat "$TMP/count")"
grep -q 'threads-started: 4 (of 4)' "$TMP/count" || die "threads: $(cat "$TMP/count")"

# Same options, same bytes; another seed, other bytes; '=' form of options.
$TM gen --threads=4 --insns=2M --seed=7 -o "$TMP/b.tmc"
cmp "$TMP/a.tmc" "$TMP/b.tmc" || die "two runs differ"
$TM gen --threads 4 --insns 2M --seed 8 -o "$TMP/c.tmc"
if cmp -s "$TMP/a.tmc" "$TMP/c.tmc"; then die "seeds 7 and 8 give the same stream"; fi

# '-o -' writes the same stream to stdout.
$TM gen --threads 4 --insns 2000000 --seed 7 -o - >"$TMP/d.tmc"
cmp "$TMP/a.tmc" "$TMP/d.tmc" || die "-o - differs from the file"
$TM gen --threads 2 --insns 100K --seed 3 --mem -o - | $TM dump --count - >"$TMP/count"
grep -qx 'instructions: 100000' "$TMP/count" || die "pipe: $(cat "$TMP/count")"
grep -q '^loads: [1-9]' "$TMP/count" || die "--mem gave no loads: $(cat "$TMP/count")"

# All knobs together.
$TM gen --threads 3 --insns 300K --seed 5 --mem --predictability 0.5 --exc-rate 0.001 \
    --recursion 100 -o "$TMP/e.tmc"
$TM dump --count "$TMP/e.tmc" >"$TMP/count"
grep -q '^exceptions: [1-9]' "$TMP/count" || die "no exceptions: $(cat "$TMP/count")"

# Usage errors: exit 2 and exactly one line naming the option.
gen_bad '--threads 0: allowed 1..1024' --threads 0 -o "$TMP/x.tmc"
gen_bad '--threads 1025: allowed 1..1024' --threads 1025 -o "$TMP/x.tmc"
gen_bad '--threads 99999999999: allowed 1..1024' --threads 99999999999 -o "$TMP/x.tmc"
gen_bad '--threads abc: not a number; allowed 1..1024' --threads abc -o "$TMP/x.tmc"
gen_bad '--insns 0: allowed 1..' --insns 0 -o "$TMP/x.tmc"
gen_bad '--insns 2000000000000: allowed 1..1000000000000' --insns 2000G -o "$TMP/x.tmc"
gen_bad '--insns -5: not a number' --insns -5 -o "$TMP/x.tmc"
gen_bad '--seed xyz: not a number' --seed xyz -o "$TMP/x.tmc"
gen_bad '--predictability 1.5: allowed 0..1' --predictability 1.5 -o "$TMP/x.tmc"
gen_bad '--predictability nan: not a number' --predictability nan -o "$TMP/x.tmc"
gen_bad '--exc-rate 0.5: allowed 0..0.1' --exc-rate 0.5 -o "$TMP/x.tmc"
gen_bad '--recursion 20000: allowed 0..10000' --recursion 20000 -o "$TMP/x.tmc"
gen_bad "unknown option '--bogus'" --bogus -o "$TMP/x.tmc"
gen_bad 'no output' --threads 2
gen_bad '--threads needs a value' -o "$TMP/x.tmc" --threads
gen_bad "unexpected argument 'extra'" -o "$TMP/x.tmc" extra
[ ! -e "$TMP/x.tmc" ] || die "a usage error created the output"

$TM gen --help >"$TMP/out"
grep -q 'usage: tm gen' "$TMP/out" || die "--help"

# Write errors: exit 1, one line.
set +e
$TM gen --insns 1000 -o "$TMP/no/such/dir/x.tmc" 2>"$TMP/err"; rc=$?
set -e
[ "$rc" -eq 1 ] || die "unwritable path: exit $rc"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || die "unwritable path: $(cat "$TMP/err")"
grep -q 'tm gen: ' "$TMP/err" || die "unwritable path: $(cat "$TMP/err")"
if [ -w /dev/full ]; then
    set +e
    $TM gen --insns 2M -o /dev/full 2>"$TMP/err"; rc=$?
    set -e
    [ "$rc" -eq 1 ] || die "/dev/full: exit $rc"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || die "/dev/full: $(cat "$TMP/err")"
fi

# Progress: a line about every 10% when stderr is not a terminal (>= 10M).
$TMFAST gen --insns 12M --seed 2 -o "$TMP/big.tmc" 2>"$TMP/err"
n=$(grep -c '^tm gen: [0-9]*% (' "$TMP/err")
[ "$n" -ge 8 ] && [ "$n" -le 11 ] || die "progress lines: $n: $(cat "$TMP/err")"
tail -n 1 "$TMP/err" | grep -q '100% (12000000 instructions)' || die "last progress: $(tail -n 1 "$TMP/err")"
echo ok
