#!/usr/bin/env bash
# tier: test
# tm etm4 end to end: ARM ETMv4 instruction trace written from AArch64
# recordings made under QEMU, proved by OpenCSD's full ETMv4 decoder against
# the commit stream (docs/standards.md §3).
# 1. The project's AArch64 programs (make isa-own-aarch64: mt_pthread 4,
#    qsignals, forkwork 2 2000, qwork 4 20) recorded with tm record
#    --frontend qemu --threads 8 --commit; tm etm4 IN.tmc -o BASE --verify
#    (sanitizer build) exits 0 with "verify: ok" in each option combination:
#    plain, --return-stack, --timestamps --cycle-counts, all of them with
#    --sync-period 64; --check with the same options passes again.
# 2. Debian's arm64 pigz -p 4 (make isa-debian's arm64-root; without it this
#    part is skipped with a line) on 128 KB of generated text (1 MB in the
#    regress tier), --threads 8: plain and --return-stack verify (optimized
#    build); the bits per instruction are printed.
# 3. --compare --stats: the JSON has the four ETMv4 rows and the trace
#    module's, and its instruction count is the verified one.
# 4. Damaged streams (sanitizer build): 8 bytes overwritten at several
#    offsets of the largest stream, the stream cut to half, a core's stream
#    deleted: --check exits 1 with one line, never a crash or a hang; 40
#    random damages of 1..8 bytes to mt's streams (the same each run: RANDOM
#    seeded): exit 0 or 1, at most one line (this found OpenCSD 1.3.3
#    crashing on a Mispredict packet that damage made).
#    tm std --verify on the same stream: its four ETMv4 rows (std/std_etm4.c)
#    are verified and have tm etm4 --compare's bits; tm std -o writes the
#    plain streams tm etm4 writes.
# 5. Refusals: bad options (exit 2, one line), an x86-64 stream (tm gen;
#    exit 2, one line), no module map (exit 1, one line).
# 6. A second run with the same BASE and fewer cores leaves no stale
#    BASE.T<n>.etm behind.
# About 10 s on 2 cores in the test tier, 45 s in regress (pigz of 1 MB:
# 241 M instructions verified twice).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TM:?}" "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
B=$(cd "$(dirname "$TMFAST")/.." && pwd)
PLUGIN=${TM_QEMU_PLUGIN:-$B/lib/qemu/tm_qemu.so}
# shellcheck disable=SC2034
isas=() # set by qemu_isas (lib.sh)
qemu_isas t_etm4 aarch64
[ -f "$PLUGIN" ] || die "$PLUGIN is not built (make)"
fails=0
start=$(date +%s)
cd "$TMP" || exit 1
make -s -C "$ROOT" BUILD="$B" isa-own-aarch64 >make.log 2>&1 ||
    die "make isa-own-aarch64: $(grep -m1 -E 'error|not found' make.log)"
P=$B/isa/aarch64

# rec NAME PROG ARGS...: NAME.tmc (and NAME.modules) or the script stops
rec() {
    local name=$1
    shift
    tmo "$TMFAST" record --frontend qemu --threads 8 --commit -o "$name" -- "$@" >"$name.out" 2>"$name.err" ||
        die "$name: tm record --frontend qemu: $(head -n 1 "$name.err")"
    [ -s "$name.tmc" ] || die "$name: no commit stream"
}
# ver TM NAME OPTIONS...: --verify passes
ver() {
    local tm=$1 name=$2 out
    shift 2
    out=$(tmo "$tm" etm4 "$name.tmc" -o "E$name" --verify "$@" 2>&1)
    local st=$?
    sancheck <(echo "$out") "$name $*"
    if [ $st -eq 0 ] && grep -q "^verify: ok" <<<"$out"; then
        ok "$name ${*:-(plain)}: $(grep -m1 'bits/instruction' <<<"$out" | sed 's/^ *//'); $(grep '^verify' <<<"$out")"
    else
        fail "$name ${*:-(plain)}: status $st: $(grep -m1 -E 'tm etm4|verify' <<<"$out")"
    fi
}

# 1. the project's programs
rec mt "$P/mt_pthread" 4
rec qsignals "$P/qsignals"
rec forkwork "$P/forkwork" 2 2000
rec qwork "$P/qwork" 4 20
for n in mt qsignals forkwork qwork; do
    ver "$TM" $n
    ver "$TM" $n --return-stack
    ver "$TM" $n --timestamps --cycle-counts
    ver "$TM" $n --return-stack --timestamps --cycle-counts --sync-period 64
done
"$TM" etm4 --check --return-stack --timestamps --cycle-counts --sync-period 64 qwork.tmc Eqwork >check.out 2>&1 &&
    grep -q "^verify: ok" check.out && ok "--check with the options it was written with" ||
    fail "--check: $(head -n 1 check.out)"
"$TM" etm4 --check qwork.tmc Eqwork >check2.out 2>&1
st=$?
[ $st -eq 1 ] && [ "$(wc -l <check2.out)" -eq 1 ] && ok "--check without --return-stack: one line, exit 1" ||
    fail "--check with other options: status $st, $(wc -l <check2.out) lines"

# 2. pigz
R=$B/isa/arm64-root
if make -s -C "$ROOT" BUILD="$B" "$B/isa/.arm64-root.stamp" >isa.log 2>&1 && [ -x "$R/usr/bin/pigz" ]; then
    if full_size; then size=1048576; else size=131072; fi
    awk -v n="$size" 'BEGIN{k=split("trace module core branch predictor return address stack target buffer " \
        "message port load value cache line first access flag thread replay decoder encoder gshare " \
        "history table entry exit block signal memory store the a of to in and is for on with " \
        "instruction retired stream", w, " "); x=12345; s=0
        while (s < n) { x = (x * 16807) % 2147483647; t = w[x % k + 1] ((x % 11 == 0) ? "\n" : " ")
            printf "%s", t; s += length(t) } }' | head -c "$size" >in.txt
    LD_LIBRARY_PATH=$R/lib/aarch64-linux-gnu:$R/usr/lib/aarch64-linux-gnu rec pigz "$R/usr/bin/pigz" -p 4 -c in.txt
    gzip -dc <pigz.out | cmp -s - in.txt && ok "arm64 pigz -p 4 of $size bytes recorded" || fail "pigz: the output"
    ver "$TMFAST" pigz
    ver "$TMFAST" pigz --return-stack
else
    echo "note: arm64 pigz not here (make isa-debian: $(tail -n 1 isa.log)); part 2 skipped"
fi

# 3. --compare --stats
if "$TM" etm4 mt.tmc -o Ecmp --verify --compare --stats cmp.json -q 2>cmp.err; then
    python3 - cmp.json <<'PY' && ok "--compare --stats: ETMv4 rows, the trace module's, the counts" || fail "--compare JSON"
import json, sys
d = json.load(open(sys.argv[1]))
names = [r["name"] for r in d["rows"]]
assert names[:4] == ["ETMv4", "ETMv4+rs", "ETMv4+rs+ts", "ETMv4+rs+ts+cc"], names
assert "tr_e-large" in names and "tage-l+tr_a" in names, names
assert d["verify"]["ok"] and d["verify"]["checked"] == d["instructions"], d["verify"]
assert abs(d["rows"][0]["bits"] - 8 * d["bytes"]) < 1e-6
assert sum(p["bytes"] for p in d["packets"].values()) == d["bytes"]
PY
else
    fail "--compare: $(head -n 1 cmp.err)"
fi

# tm std on the same stream: its ETMv4 rows (std/std_etm4.c) are tm etm4 --compare's, each verified
if "$TM" std mt.tmc --verify -o Estd --stats std.json -q 2>std.err; then
    python3 - std.json cmp.json <<'PY' && ok "tm std: the four ETMv4 rows verified, bits equal to tm etm4's" ||
import json, sys
s, c = (json.load(open(f)) for f in sys.argv[1:3])
rs, rc = s["rows"][:4], c["rows"][:4]
assert [r["name"] for r in rs] == [r["name"] for r in rc], (rs, rc)
assert all(a["bits"] == b["bits"] for a, b in zip(rs, rc)), (rs, rc)
assert all(r["verified"] == 1 for r in rs), rs
PY
        fail "tm std's ETMv4 rows"
    cmp -s Estd.T0.etm Ecmp.T0.etm && ok "tm std -o writes tm etm4's plain streams" || fail "tm std's Estd.T0.etm"
else
    fail "tm std --verify: $(head -n 1 std.err)"
fi

# 4. damaged streams
"$TM" etm4 qwork.tmc -o D -q 2>/dev/null || die "tm etm4 qwork"
big=$(ls -S D.T*.etm | head -n 1)
size=$(stat -c %s "$big")
cp "$big" saved
one_line() { # WHAT EXPECTED-STATUS: the last --check
    local st=$1 want=$2 what=$3
    if hung "$st"; then
        fail "$what: hung"
    elif [ "$st" -ne "$want" ] || [ "$(wc -l <dmg.out)" -ne 1 ] || grep -qE 'Sanitizer|runtime error' dmg.out; then
        fail "$what: status $st, $(wc -l <dmg.out) lines: $(head -n 2 dmg.out)"
    else
        ok "$what: $(cut -c1-150 dmg.out)"
    fi
}
for frac in 1 3 5 7 9; do
    cp saved "$big"
    off=$((size * frac / 10))
    printf '\x55\xaa\x13\x37\x00\xff\x80\x90' | dd of="$big" bs=1 seek="$off" conv=notrunc 2>/dev/null
    tmo "$TM" etm4 --check qwork.tmc D >dmg.out 2>&1
    one_line $? 1 "8 bytes overwritten at $off of $size"
done
cp saved "$big"
head -c $((size / 2)) saved >"$big"
tmo "$TM" etm4 --check qwork.tmc D >dmg.out 2>&1
one_line $? 1 "cut to half"
cp saved "$big"
rm -f D.T2.etm
tmo "$TM" etm4 --check qwork.tmc D >dmg.out 2>&1
one_line $? 1 "core 2's stream deleted"

# random damage to mt's streams: exit 0 or 1, at most one line, never a crash or a hang
"$TM" etm4 mt.tmc -o R -q 2>/dev/null || die "tm etm4 mt"
mkdir -p rsave && cp R.T*.etm rsave/
RANDOM=38
bad=0
for i in $(seq 1 40); do
    cp rsave/R.T*.etm .
    files=(R.T*.etm)
    f=${files[$((RANDOM % ${#files[@]}))]}
    n=$(stat -c %s "$f")
    off=$((RANDOM % n))
    k=$((1 + RANDOM % 8)) bytes=
    for _ in $(seq "$k"); do bytes+=$(printf '\\x%02x' $((RANDOM % 256))); done
    printf "$bytes" | dd of="$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
    tmo "$TM" etm4 --check -q mt.tmc R >rnd.out 2>rnd.err
    st=$?
    if hung $st || { [ $st -ne 0 ] && [ $st -ne 1 ]; } || [ "$(wc -l <rnd.err)" -gt 1 ] ||
        grep -qE 'Sanitizer|runtime error' rnd.err; then
        bad=$((bad + 1))
        echo "random damage $i ($f at $off): status $st: $(head -n 2 rnd.err)"
    fi
done
[ $bad -eq 0 ] && ok "40 random damages: exit 0 or 1, one line at most, no crash" || fail "$bad random damages"

# 5. refusals
for args in "--sync-period 10" "--bogus" "" "--check -o X"; do
    # shellcheck disable=SC2086,SC2046
    "$TM" etm4 mt.tmc $args $([ -z "$args" ] || echo -o Ebad) >dmg.out 2>&1
    one_line $? 2 "bad options '${args:-no -o}'"
done
"$TM" gen --threads 2 --insns 20K -o x86.tmc 2>/dev/null || die "tm gen"
"$TM" etm4 x86.tmc -o Ex >dmg.out 2>&1
one_line $? 2 "an x86-64 stream"
cp mt.tmc nomap.tmc
"$TM" etm4 nomap.tmc -o En >dmg.out 2>&1
one_line $? 1 "no module map"

# 6. no stale streams
"$TM" etm4 mt.tmc -o S -q && [ -f S.T4.etm ] || fail "mt: 5 streams"
"$TM" etm4 qsignals.tmc -o S -q
[ ! -e S.T4.etm ] && [ -f S.T1.etm ] && ok "a second run with fewer cores removes the stale streams" ||
    fail "stale S.T4.etm left"

echo "duration: $(($(date +%s) - start)) s"
[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "all tm etm4 tests passed"
