#!/usr/bin/env bash
# tier: check
# tm dump on hand-made commit streams (docs/spec.md §2): the text of a good
# stream, --count, stdin, `| head`, and on bad input (wrong magic, unknown
# record, thread out of range, cycle going backwards, corrupted or truncated
# zstd, missing file, ...) a nonzero status with exactly one line on stderr
# that names the file, and no sanitizer report.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
: "${TM:?}" "${TMP:?}"
cd "$TMP"
fails=0

# Streams are built with lib.sh's uv, hdr and mk.
START0='\x01\x00\x0c\x00'"$(uv $((0x401000)))"    # c=12 t=0 START pc=0x401000
RUN0='\x03\x00\x01\x05\x11'                        # c+1 t=0 RUN 5 insns 17 bytes
BR0='\x04\x00\x01\x08\x02\x00\x21'                 # c+1 t=0 BRANCH cond T len 2 -> pc-17

# expect_error NAME STATUS FILE-TEXT ARGS...: runs `tm dump ARGS`, which must
# exit with STATUS and print one stderr line containing FILE-TEXT.
expect_error() {
    local name=$1 want=$2 text=$3
    shift 3
    local st=0 before=$fails
    "$TM" dump "$@" > "$name.out" 2> "$name.err" < "${STDIN:-/dev/null}" || st=$?
    if [ "$st" -ne "$want" ]; then
        fail "$name: exit $st, expected $want"; sed 's/^/    /' "$name.err"
    fi
    local lines
    lines=$(wc -l < "$name.err")
    [ "$lines" -eq 1 ] || { fail "$name: $lines lines on stderr"; sed 's/^/    /' "$name.err"; }
    grep -qF -- "$text" "$name.err" || fail "$name: stderr lacks '$text': $(cat "$name.err")"
    grep -q '^tm dump: ' "$name.err" || fail "$name: stderr not 'tm dump: ...': $(cat "$name.err")"
    if grep -qE 'Sanitizer|runtime error' "$name.err"; then fail "$name: sanitizer report"; fi
    [ "$fails" -ne "$before" ] || echo "ok $name: $(head -n 1 "$name.err")"
}

# ---- a good stream ----
# c=12 START t0; c=13 RUN; c=14 MEM + BRANCH; two MODULEs; c=15 EXC t0,
# START t3 (trace on); c=17 EXIT t0, EXIT t3; END.
mk good "$(hdr 4)$START0$RUN0"'\x06\x00\x01\x00\x04'"$(uv $((0x7ffd1000)))"'\x2a\x00\x00\x80'\
'\x04\x00\x00\x08\x02\x00\x21\x07\x00\x0d/usr/bin/prog\x02\xbe\xef\x07\x00\x01a\x00'\
'\x05\x00\x01'"$(uv $((0xdead0000)))"'\x01\x03\x00\x01\x10\x02\x00\x02\x00\x02\x03\x00\x00\x08\x0a'
cat > good.expected <<'EOF'
# tmc v1 threads=4
c=12 t=0 START pc=0x401000
c=13 t=0 RUN n=5 bytes=17 pc=0x401000
c=14 t=0 MEM load size=4 addr=0x7ffd1000 value=0x8000002a
c=14 t=0 BRANCH cond T pc=0x401011 len=2 target=0x401000
MODULE addr=0x0 path=/usr/bin/prog build-id=beef
MODULE addr=0x0 path=a build-id=none
c=15 t=0 EXC pc=0x401000 handler=0xdead0000
c=15 t=3 START trace-on pc=0x10
c=17 t=0 EXIT
c=17 t=3 EXIT
END count=10
EOF
"$TM" dump good.tmc > good.out 2> good.err || { fail "good: exit $?"; cat good.err; }
diff -u good.expected good.out || fail "good: dump text differs"
[ ! -s good.err ] || fail "good: stderr not empty: $(cat good.err)"
"$TM" dump - < good.tmc > good-stdin.out 2> good.err || fail "good via stdin: exit $?"
diff -u good.expected good-stdin.out || fail "good via stdin: dump text differs"
cat good.tmc | "$TM" dump - > good-pipe.out || fail "good via pipe: exit $?"
diff -u good.expected good-pipe.out || fail "good via pipe: dump text differs"

"$TM" dump --count good.tmc > count.out 2> count.err || fail "count: exit $?"
cat > count.expected <<'EOF'
records: 10
instructions: 6
branches: 1
  cond: 1
  jump: 0
  call: 0
  ijump: 0
  icall: 0
  ret: 0
exceptions: 1
loads: 1
stores: 0
modules: 2
threads-started: 2 (of 4)
cycles: 17
EOF
diff -u count.expected count.out || fail "count: output differs"
"$TM" dump --help > help.out || fail "--help: exit $?"
grep -q '^usage: tm dump' help.out || fail "--help: no usage line"
echo "ok good stream, stdin, --count, --help"

# ---- `| head`: a long stream cut short by the reader of the pipe ----
# START, then 200000 RUNs of one instruction in consecutive cycles, END.
n=200000
printf "$(hdr 1)"'\x01\x00\x00\x00\x00' > long.raw
printf '\x03\x00\x01\x01\x01%.0s' $(seq $n) >> long.raw
printf '\x08'"$(uv $((n + 1)))" >> long.raw
zstd -q -c long.raw > long.tmc
"$TM" dump --count long.tmc | grep -qx "records: $((n + 1))" || fail "long: count"
st=0
"$TM" dump long.tmc 2> head.err | head -n 3 > head.out || st=$?
[ "$st" -eq 0 ] || fail "| head: pipeline status $st"
[ "$(wc -l < head.out)" -eq 3 ] || fail "| head: $(wc -l < head.out) lines"
[ ! -s head.err ] || fail "| head: stderr not empty: $(cat head.err)"
echo "ok | head"

# ---- bad input ----
mk magic 'TMX\x00\x01\x00\x10\x00\x01\x00\x00\x00\x00\x00\x00\x00\x08\x00'
expect_error magic 1 "magic.tmc: offset 0: bad magic" magic.tmc

mk version 'TMC\x00\x02\x00\x10\x00\x01\x00\x00\x00\x00\x00\x00\x00\x08\x00'
expect_error version 1 "version.tmc: offset 4: unsupported version 2" version.tmc

mk unknown "$(hdr 1)$START0"'\x0a\x00\x00'
expect_error unknown 1 "unknown.tmc: offset 24: unknown record type 10" unknown.tmc

mk tid "$(hdr 4)$START0"'\x01\x09\x00\x00\x00\x08\x02'
expect_error tid 1 "tid.tmc: offset 24: thread id 9 out of range (stream declares 4 threads)" tid.tmc

# dcycle 2^64-1 (10-byte varint), then +1: the cycle would wrap.
mk backwards "$(hdr 1)"'\x01\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00\x00\x03\x00\x01\x01\x01\x08\x02'
expect_error backwards 1 "backwards.tmc: offset 30: cycle goes backwards" backwards.tmc

mk decrease "$(hdr 2)"'\x01\x01\x05\x00\x00\x01\x00\x00\x00\x00\x08\x02'
expect_error decrease 1 "decrease.tmc: offset 21: thread id decreases within cycle 5" decrease.tmc

mk afterevent "$(hdr 1)$START0$BR0"'\x03\x00\x00\x01\x01\x08\x03'
expect_error afterevent 1 "afterevent.tmc: offset 31: RUN after the group's event (BRANCH)" afterevent.tmc

mk dpc "$(hdr 1)$START0"'\x04\x00\x01\x08\x02\x08\x00\x08\x02'
expect_error dpc 1 "dpc.tmc: offset 24: pc discontinuity" dpc.tmc

mk size0 "$(hdr 1)$START0"'\x06\x00\x01\x00\x00\x10\x08\x02'
expect_error size0 1 "operand size 0 at cycle 13, thread 0; allowed 1..64" size0.tmc

mk noend "$(hdr 1)$START0"
expect_error noend 1 "noend.tmc: offset 24: truncated: no END record" noend.tmc

mk count "$(hdr 1)$START0"'\x08\x05'
expect_error count 1 "count.tmc: offset 24: END record count 5" count.tmc

mk after "$(hdr 1)"'\x08\x00\x00'
expect_error after 1 "after.tmc: offset 18: data after the END record" after.tmc

# Corrupted zstd: the frame checksum (last 4 bytes) no longer matches.
cp good.tmc corrupt.tmc
size=$(stat -c %s corrupt.tmc)
printf '\xaa' | dd of=corrupt.tmc bs=1 seek=$((size - 1)) conv=notrunc status=none
expect_error corrupt 1 "corrupt.tmc: offset " corrupt.tmc
grep -q 'zstd' corrupt.err || fail "corrupt: message does not mention zstd"

# Corrupted zstd: a byte in the middle of the frame.
cp long.tmc corrupt2.tmc
size=$(stat -c %s corrupt2.tmc)
printf '\x5a\xa5\x5a\xa5' | dd of=corrupt2.tmc bs=1 seek=$((size / 2)) conv=notrunc status=none
expect_error corrupt2 1 "corrupt2.tmc: offset " corrupt2.tmc

head -c $(( $(stat -c %s long.tmc) / 2 )) long.tmc > truncated.tmc
expect_error truncated 1 "truncated.tmc: offset " truncated.tmc
grep -q 'truncated' truncated.err || fail "truncated: message does not say truncated"

: > empty.tmc
expect_error empty 1 "empty.tmc: offset 0: truncated: empty file" empty.tmc

echo "this is not zstd" > text.tmc
expect_error text 1 "text.tmc: offset 0: zstd: " text.tmc

printf "$(hdr 1)"'\x08\x00' > raw.tmc
expect_error raw 1 "raw.tmc: offset 0: not zstd-compressed" raw.tmc

expect_error missing 1 "nonexistent.tmc: cannot open: No such file or directory" nonexistent.tmc

STDIN=tid.tmc expect_error stdin 1 "<stdin>: offset 24: thread id 9 out of range" -

# ---- usage errors ----
expect_error bogus 2 "unknown option '--bogus'" --bogus good.tmc
expect_error noargs 2 "missing FILE" 
expect_error twofiles 2 "more than one FILE" good.tmc good.tmc
[ ! -s bogus.out ] || fail "bogus: stdout not empty"

echo "failures: $fails"
[ "$fails" -eq 0 ]
