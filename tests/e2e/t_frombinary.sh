#!/usr/bin/env bash
# tier: test
# tm decode --from-binary end to end (issue 6): real programs recorded under
# tm record, replayed from their ELF files alone and compared with the commit
# stream, in every encoding and preset (with time stamps, with overflow gaps,
# with CFiat load values); the outputs; fault injection (flipped bits, a cut
# trace: detected with a bit offset, decoding resumes, no crash); the wrong
# binary (refused by build-id, or diverging cleanly with --ignore-build-id);
# --shared refused in one line.  Small replays run in the sanitizer build.
# Sizes (E2E_TIER, tests/e2e/run.sh): in the regress tier section 1
# compresses 200,000 bytes of each of three files and re-models each
# program's recording in all 27 configurations (preset x encoding x
# {plain, time stamps, overflows}); otherwise pigz (in 32 KiB blocks, so
# that its threads still share the work) and xz -1 (-6 spends 130 M
# instructions setting up its match finder) compress 60,000 bytes of each
# (zstd, the fastest, multithreaded above 512 KB only, the same 600 KB),
# and each recording is re-modelled in 9 configurations, every preset with
# every encoding, the third option taking turns so that the three programs
# together cover all 27.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
if full_size; then small=200000 pigz_b="" xz_l="" all27=1; else small=60000 pigz_b="-b 32" xz_l="-1" all27=0; fi

# fbverify TMBIN BASE TRACE WHAT: --from-binary --verify must print OK.
fbverify() {
    local tm=$1 base=$2 tr=$3 what=$4 st=0
    "$tm" decode --from-binary --verify --modules "$base.modules" "$base.tmc" "$tr" > v.out 2> v.err || st=$?
    if [ $st -ne 0 ] || ! grep -q '^OK: ' v.out; then
        head -c 1500 v.out v.err
        die "$what: tm decode --from-binary --verify: exit status $st"
    fi
    sancheck v.err "$what"
}

head -c 200000 "$ROOT/docs/spec.md" "$ROOT/docs/guide.md" "$ROOT/decoder/verify.c" > input
head -c $small "$ROOT/docs/spec.md" "$ROOT/docs/guide.md" "$ROOT/decoder/verify.c" > small
# 1. pigz, xz and zstd; each recording re-modelled in every configuration
#    (or in 9: program k, preset i, encoding j with the option (i + j + k) mod 3).
xs=("" "--timestamps" "--buffer min --port 1")
# (a failing or empty list would leave the loops below nothing to check)
pe=$("$TMFAST" config --list e2e-pe) && [ -n "$pe" ] || die "tm config --list e2e-pe: failed or empty"
k=0
for prog in "pigz -p 4 $pigz_b -c small" "xz -T4 $xz_l -c small" "zstd -T4 -q -c input"; do
    n=${prog%% *}
    "$TMFAST" record --config large --encoding tr_e --commit -o "$n" -- $prog > "$n.out" 2> "$n.err" ||
        die "tm record $prog: $(tail -n 3 "$n.err")"
    fbverify "$TMFAST" "$n" "$n.tmt" "$n as recorded"
    # the configurations: the manifest's e2e-pe tier (rtl/configs.txt),
    # presets (i) x encodings (j)
    nc=0 p=0
    for c in $pe; do
        i=$((p / 3)) j=$((p % 3)) p=$((p + 1))
        read -r -a o < <("$TMFAST" config "$c" --format opts)
        [ ${#o[@]} -gt 0 ] || die "tm config $c --format opts: no options"
        for xi in 0 1 2; do
            [ $all27 = 1 ] || [ $xi -eq $(( (i + j + k) % 3 )) ] || continue
            x=${xs[$xi]}
            "$TMFAST" model -q "${o[@]}" $x "$n.tmc" -o m.tmt || die "tm model ${o[*]} $x"
            fbverify "$TMFAST" "$n" m.tmt "$n ${o[*]} $x"
            nc=$((nc + 1))
        done
    done
    k=$((k + 1))
    ok "$n: replays from the binaries in $nc configurations ($(grep -o '^OK: [0-9]* instructions' v.out))"
done

# 2. The thesis's programs, threads and signals (make programs), in the
#    sanitizer build: each recorded once and re-modelled in every preset and
#    encoding, then once with CFiat.
[ -d "$P" ] || die "$P: the test programs are not built (make programs)"
for p in branchenum branchtest traptortest evict multiblock mlstest mt_pthread mt_omp signals; do
    [ -x "$P/$p" ] || die "$P/$p: not built (make programs)"
    "$TMFAST" record --config large --encoding tr_e --commit -o "p_$p" -- "$P/$p" > /dev/null 2> rec.err
    [ -s "p_$p.tmc" ] || die "tm record $p: $(tail -n 3 rec.err)"
    for c in $pe; do
        read -r -a o < <("$TMFAST" config "$c" --format opts)
        [ ${#o[@]} -gt 0 ] || die "tm config $c --format opts: no options"
        "$TMFAST" model -q "${o[@]}" "p_$p.tmc" -o pm.tmt || die "tm model $p ${o[*]}"
        fbverify "$TM" "p_$p" pm.tmt "$p ${o[*]}"
    done
    "$TMFAST" record --config large --encoding tr_e --cfiat --commit -o "c_$p" -- "$P/$p" > /dev/null 2> rec.err
    fbverify "$TM" "c_$p" "c_$p.tmt" "$p tr_e --cfiat"
    grep -q 'load values replayed' v.out || die "$p --cfiat: no load values checked"
    ok "$p: every preset and encoding, and CFiat, replay from the binaries"
done

# 3. Outputs.
"$TMFAST" decode --from-binary zstd.tmt > flow.txt 2> flow.err || die "text output: $(cat flow.err)"
sancheck flow.err "text output"
grep -q '^T0 0x' flow.txt || die "no instruction flow"
n1=$(grep -c '^T[0-9]* 0x' flow.txt)
n2=$("$TMFAST" decode --verify zstd.tmc zstd.tmt | sed -n 's/^OK: \([0-9]*\) instructions.*/\1/p')
[ "$n1" = "$n2" ] || die "the flow has $n1 instructions, the commit stream $n2"
{ "$TMFAST" decode --from-binary zstd.tmt || true; } | head -n 3 > head.txt
[ "$(wc -l < head.txt)" = 3 ] || die "--from-binary | head"
{ "$TM" decode --from-binary -s -d zstd.tmt 2>/dev/null || true; } | grep -m1 -qE '^T0 0x[0-9a-f]+ ld-linux-x86-64.so.2\+0x[0-9a-f]+ +[a-z]' ||
    die "--symbols --disasm"
{ "$TM" decode --from-binary --branches zstd.tmt 2>/dev/null || true; } | grep -m1 -qE '^T0 0x[0-9a-f]+ (cond|call|jump|ret|ijump|icall) +[TN] -> 0x' ||
    die "--branches"
{ "$TM" decode --from-binary --functions zstd.tmt 2>/dev/null || true; } | grep -qE '^T0 +[0-9]+ +[0-9.]+%  ' || die "--functions"
"$TM" decode --from-binary --summary -o zstd.fb zstd.tmt > sum.txt 2>&1 || die "--summary: $(cat sum.txt)"
head -c 4 zstd.fb | grep -q TMFB || die "binary output magic"
ok "outputs: flow ($n1 instructions, as the commit stream), symbols, disassembly, branches, functions, binary"

# 4. Fault injection on the zstd trace: flipped bits and cuts.  Each run
#    must end with exit status 1 and error lines with a trace bit offset, or
#    succeed (a flip in a don't-care bit), never crash.
python3 - zstd.tmt <<'PY'
import random, sys, zlib
d = bytearray(open(sys.argv[1], 'rb').read())
random.seed(6)
n = len(d)
# version 2: the trailer is 28 + 8 N bytes and ends with its CRC-32 and "TMTE"
tl = 28 + 8 * int.from_bytes(d[8:12], 'little')
for i in range(8):
    x = bytearray(d)
    for _ in range(1 + i % 3):
        p = random.randrange(64, n - tl)
        x[p] ^= 1 << random.randrange(8)
    open('flip%d.tmt' % i, 'wb').write(x)
body = d[64:-tl]
for i, frac in enumerate((0.1, 0.5, 0.9)):
    k = int(len(body) * frac)
    bits = k * 8
    tr = bytearray(d[-tl:])
    tr[0:8] = bits.to_bytes(8, 'little')
    tr[tl - 8:tl - 4] = zlib.crc32(bytes(tr[:tl - 8])).to_bytes(4, 'little')
    open('cut%d.tmt' % i, 'wb').write(d[:64] + body[:k] + tr)
PY
det=0
for f in flip*.tmt cut*.tmt; do
    st=0
    "$TM" decode --from-binary --summary --modules zstd.modules "$f" > f.out 2> f.err || st=$?
    sancheck f.err "$f"
    [ $st -le 1 ] || die "$f: exit status $st"
    if [ $st -eq 1 ]; then
        grep -qE 'trace bit [0-9]+' f.err || die "$f: error without a bit offset: $(head -n 3 f.err)"
        det=$((det + 1))
    fi
    grep -q 'instructions replayed from the binaries' f.out || die "$f: no summary after the errors"
    st=0
    "$TM" decode --from-binary --verify --modules zstd.modules zstd.tmc "$f" > f.out 2> f.err || st=$?
    sancheck f.err "$f --verify"
    [ $st -le 1 ] || die "$f --verify: exit status $st"
done
[ $det -ge 8 ] || die "only $det of 11 damaged traces detected"
ok "fault injection: $det of 11 damaged traces detected with bit offsets, decoding resumed, no crash"

# 5. The wrong binary.
sed 's#/usr/bin/zstd$#/usr/bin/xz#' zstd.modules > wrong.modules
st=0
"$TM" decode --from-binary --summary --modules wrong.modules zstd.tmt > w.out 2> w.err || st=$?
[ $st -eq 1 ] && [ "$(wc -l < w.err)" = 1 ] && grep -q 'build-id' w.err || die "wrong binary not refused: $(cat w.err)"
st=0
"$TM" decode --from-binary --verify --ignore-build-id --modules wrong.modules zstd.tmc zstd.tmt > w.out 2> w.err || st=$?
sancheck w.err "wrong binary"
[ $st -eq 1 ] && grep -q '^MISMATCH: ' w.out || die "wrong binary with --ignore-build-id: exit $st $(cat w.out)"
ok "wrong binary: refused by build-id; with --ignore-build-id the replay diverges cleanly"

# 6. --shared is refused in one line.
"$TMFAST" model -q --shared zstd.tmc -o s.tmt
st=0
"$TM" decode --from-binary --modules zstd.modules s.tmt > s.out 2> s.err || st=$?
[ $st -eq 1 ] && [ "$(wc -l < s.err)" = 1 ] && grep -q -- '--shared' s.err || die "--shared: $(cat s.err)"
ok "--shared refused: $(cut -c1-80 s.err)..."
