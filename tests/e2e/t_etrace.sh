#!/usr/bin/env bash
# tier: test
# tm etrace end to end: RISC-V E-Trace (docs/standards.md §4) written from
# real RISC-V recordings and proved by the decoder against the commit
# stream.
# 1. The project's RISC-V programs (make isa-own-riscv64) under QEMU with
#    tm record --frontend qemu --threads 8 --commit: mt_pthread 4,
#    qsignals (signals: trap packets), qwork 4 20, forkwork 2 2000; and zstd
#    -T4 of 256 KB when make isa-debian has built it into $B/isa/riscv64:
#    tm etrace IN.tmc -o BASE --verify --variants exits 0 with "verify: ok"
#    and all 8 combinations of the extensions verified; qwork again with
#    the resync timer at 64 bytes (a synchronisation every few packets).
# 2. The sanitizer build (TM) on qsignals and mt_pthread with --compare and
#    --stats (valid JSON with the 8 variants and the trace module's rows).
# 3. Damaged streams (sanitizer build): 8 bytes overwritten in the middle
#    of the largest hart's stream, a stream cut to half, a hart's stream
#    deleted, --check with other options than the encoding's: exit 1 and
#    one line naming the hart; 20 random 8-byte overwrites: exit 0 or 1,
#    at most one line, never a crash.
# 4. Bad input: bad options (exit 2, nothing on stdout), a commit stream
#    that is not RISC-V (tm gen's x86-64: exit 2), a missing module map
#    (exit 1): one line each.
# Needs qemu-riscv64 and the cross compiler (qemu_isas); else exit 77.
# About 20-40 s on 2 cores.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TM:?}" "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
B=$(cd "$(dirname "$TMFAST")/.." && pwd)
isas=()
qemu_isas t_etrace riscv64
cd "$TMP" || exit 1
start=$(date +%s)
make -s -C "$ROOT" BUILD="$B" isa-own-riscv64 > make.log 2>&1 ||
    die "make isa-own-riscv64: $(grep -m1 -E 'error|not found' make.log)"
I=$B/isa/riscv64

# rec NAME PROG ARGS: a RISC-V recording NAME.tmc (8 threads, commit stream)
rec() {
    local name=$1 st=0
    shift
    TM_E2E_ISA=riscv64 tmo "$TMFAST" record --frontend qemu --threads 8 --commit -o "$name" -- "$@" \
        > "$name.out" 2> "$name.rerr" || st=$?
    [ $st -eq 0 ] && [ -s "$name.tmc" ] || { tail -n 3 "$name.rerr"; die "tm record $*: exit status $st"; }
}

# et TMBIN NAME ARGS: tm etrace ARGS, stdout NAME.out, stderr NAME.err, $st its status
et() {
    local tm=$1 name=$2
    shift 2
    st=0
    "$tm" etrace "$@" > "$name.out" 2> "$name.err" || st=$?
    sancheck "$name.err" "tm etrace $*"
}

# verified TMBIN NAME: NAME.tmc -o NAME.E --verify --variants: ok, 8 variants verified
verified() {
    local tm=$1 name=$2
    shift 2
    et "$tm" "$name.v" "$name.tmc" -o "$name.E" --verify --variants "$@"
    local n
    n=$(sed -n 's/^verify: ok, \([0-9]*\) instructions of \([0-9]*\) harts .*/\1 \2/p' "$name.v.out")
    local nv
    nv=$(grep -cE '^E-Trace.* ok$' "$name.v.out")
    if [ $st -eq 0 ] && [ -n "$n" ] && [ "$nv" -eq 8 ]; then
        ok "$name: verify: ok, ${n% *} instructions on ${n#* } harts; 8 variants verified"
    else
        fail "$name: tm etrace --verify --variants: exit status $st, $nv variants ok: $(head -c 400 "$name.v.err")"
    fi
}

# one WANT ERE WHAT TMBIN ARGS: exit WANT with exactly one line on stderr matching ERE
one() {
    local want=$1 ere=$2 what=$3 tm=$4
    shift 4
    et "$tm" one "$@"
    if [ $st -ne "$want" ]; then
        fail "$what: exit status $st, wanted $want: $(head -c 300 one.err)"
    elif [ "$(grep -c . one.err)" -ne 1 ]; then
        fail "$what: not one line on stderr: $(head -c 400 one.err)"
    elif ! grep -qE -- "$ere" one.err; then
        fail "$what: '$(cat one.err)' does not match '$ere'"
    elif [ "$want" -eq 2 ] && [ -s one.out ]; then
        fail "$what: wrote to stdout on a usage error"
    else
        ok "$what: exit $want, $(head -c 150 one.err)"
    fi
}

# 1. real programs
rec mt "$I/mt_pthread" 4
rec qs "$I/qsignals"
rec qw "$I/qwork" 4 20
rec fw "$I/forkwork" 2 2000
for n in mt qs qw fw; do verified "$TMFAST" $n; done
cp qw.tmc qwr.tmc
cp qw.modules qwr.modules
verified "$TMFAST" qwr --resync 64
grep -qE '^f3_trap +[1-9]' qs.v.out && ok "qsignals: trap packets at the signal handlers" ||
    fail "qsignals: no trap packets: $(grep f3_trap qs.v.out)"
if [ -x "$I/zstd" ]; then
    awk 'BEGIN { x = 12345; for (i = 0; i < 40000; i++) { x = (x * 16807) % 2147483647; printf "w%d ", x % 97 } }' |
        head -c 262144 > in256.txt
    rec zs "$I/zstd" -q -T4 -B128K -c in256.txt
    verified "$TMFAST" zs
else
    echo "skip zstd: $I/zstd is not built (make isa-debian)"
fi

# 2. the sanitizer build, --compare, --stats
et "$TM" qsa qs.tmc -o qsa --verify --variants --implicit-return --bp 8 --jtc 4
[ $st -eq 0 ] && grep -q '^verify: ok' qsa.out && ok "sanitizer build: qsignals --implicit-return --bp 8 --jtc 4 verified" ||
    fail "sanitizer build: qsignals: exit $st $(head -c 300 qsa.err)"
et "$TM" mtc mt.tmc -o mtc --compare --stats mtc.json -q
if [ $st -eq 0 ] && python3 -c 'import json,sys; d=json.load(open("mtc.json")); assert len(d["variants"]) == 8 and \
        all(v["verified"] == 1 for v in d["variants"]) and any(r["name"].startswith("tage") for r in d["rows"])'; then
    ok "--compare --stats: 8 verified variants and the trace module's rows in the JSON"
else
    fail "--compare --stats: exit $st $(head -c 300 mtc.err)"
fi

# 3. damaged streams (mt's streams from the sanitizer build)
et "$TM" mtd mt.tmc -o d --implicit-return --bp 6 --jtc 4 -q
big=$(ls -S d.T*.ete | head -n 1)
cp "$big" big.keep
sz=$(stat -c %s "$big")
printf 'ZZZZZZZZ' | dd of="$big" bs=1 seek=$((sz / 2)) conv=notrunc status=none
one 1 '^tm etrace: hart [0-9]+: ' "8 bytes overwritten" "$TM" --check mt.tmc d --implicit-return --bp 6 --jtc 4
head -c $((sz / 2)) big.keep > "$big"
one 1 '^tm etrace: hart [0-9]+: ' "a stream cut to half" "$TM" --check mt.tmc d --implicit-return --bp 6 --jtc 4
rm -f "$big"
one 1 '^tm etrace: hart [0-9]+: no E-Trace stream' "a hart's stream deleted" "$TM" --check mt.tmc d \
    --implicit-return --bp 6 --jtc 4
cp big.keep "$big"
one 1 'announces options' "--check with other options" "$TM" --check mt.tmc d --bp 6
bad=0
for i in $(seq 1 20); do
    cp big.keep "$big"
    off=$(( (RANDOM * 32768 + RANDOM) % sz ))
    head -c 8 /dev/urandom | dd of="$big" bs=1 seek="$off" conv=notrunc status=none
    et "$TM" rnd --check mt.tmc d --implicit-return --bp 6 --jtc 4
    if [ $st -gt 1 ] || [ "$(grep -c . rnd.err)" -gt 1 ]; then
        bad=$((bad + 1))
        echo "random damage at $off: exit $st: $(head -c 300 rnd.err)"
    fi
done
[ $bad -eq 0 ] && ok "20 random 8-byte overwrites: exit 0 or 1, at most one line" || fail "$bad random damages mishandled"
cp big.keep "$big"

# 4. bad input
one 2 'not a number' "--bp 99" "$TMFAST" mt.tmc -o x --bp 99
one 2 'needs IN.tmc and -o BASE' "no -o" "$TMFAST" mt.tmc
one 2 "unknown option" "unknown option" "$TMFAST" --frob mt.tmc -o x
"$TMFAST" gen -o g.tmc > /dev/null 2>&1 || die "tm gen"
one 2 'not of a RISC-V program' "an x86-64 stream" "$TMFAST" g.tmc -o x
cp mt.tmc nomod.tmc
one 1 'no module map' "no module map" "$TMFAST" nomod.tmc -o x

took=$(($(date +%s) - start))
echo "duration: ${took} s"
[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "all tm etrace tests passed"
