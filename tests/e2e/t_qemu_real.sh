#!/usr/bin/env bash
# tier: test
# Programs nobody here wrote under the QEMU frontend (issue 37 item 4,
# docs/qemu.md "Programs nobody here wrote"): Debian's arm64 builds of pigz,
# xz and zstd (downloaded and extracted by make isa-debian into
# build/isa/arm64-root, run with qemu-aarch64 -L /usr/aarch64-linux-gnu and
# LD_LIBRARY_PATH into that folder) and Debian's sources of zstd and xz-utils
# cross-built for riscv64 (build/isa/riscv64), each multithreaded, each
# compressing deterministic text (awk, a fixed generator):
#   test tier:    arm64 pigz -p 4 -b 32 of 256 KB (8 blocks, about 85 M
#                 instructions); riscv64 zstd -T4 -B512K of 1 MB (about
#                 100 M instructions)
#   regress tier: arm64 pigz -p 4 of 2.9 MB (about 700 M instructions),
#                 arm64 xz -1 -T4 --block-size=128KiB of 512 KB, arm64 zstd
#                 -T4 -B512K of 2 MB, riscv64 zstd -T4 -B512K of 2 MB (about
#                 200 M), riscv64 xz -1 -T4 --block-size=128KiB of 512 KB
# each: run under QEMU alone and under `tm record --frontend qemu --cfiat
# --commit` (issue 37's acceptance): the same output and exit status 0, the
# output decompresses (x86 tool) to the input, and pigz's equals x86
# pigz's; the recording complete; tm decode --verify and --from-binary
# --verify exact.  Prints the instructions recorded and both times.  The
# test tier takes about a minute.
# The programs come from make isa-debian (the network, and apt configured by
# make deps); when it cannot get them: one line, not run (77).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
B=$(cd "$(dirname "$TMFAST")/.." && pwd)
PLUGIN=${TM_QEMU_PLUGIN:-$B/lib/qemu/tm_qemu.so}
I=$B/isa
for t in qemu-aarch64 qemu-riscv64 aarch64-linux-gnu-gcc riscv64-linux-gnu-gcc; do
    if ! command -v "$t" >/dev/null; then
        echo "t_qemu_real: needs $t (make deps: qemu-user, gcc-aarch64-linux-gnu, gcc-riscv64-linux-gnu); not run"
        exit 77
    fi
done
[ -f "$PLUGIN" ] || die "$PLUGIN is not built (make)"
# the programs: once per build folder (stamps), else nothing to do
if ! make -s -C "$ROOT" BUILD="$B" isa-debian >"$TMP/isa-make.log" 2>&1; then
    why=$(grep -m1 -E '^(isa-programs|make .*not found)' "$TMP/isa-make.log")
    echo "t_qemu_real: make isa-debian could not get the programs (${why:-$(tail -n 1 "$TMP/isa-make.log")}); not run"
    exit 77
fi
cd "$TMP" || exit 1
R=$I/arm64-root
QA=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
EA="LD_LIBRARY_PATH=$R/lib/aarch64-linux-gnu:$R/usr/lib/aarch64-linux-gnu" # the arm64 libraries (the guest gets tm's environment)
ER="TM_E2E_ISA=riscv64"  # nothing to add
QR=(qemu-riscv64 -L /usr/riscv64-linux-gnu)

# text BYTES FILE: deterministic text (a Lehmer generator over 48 words)
text() {
    awk -v n="$1" 'BEGIN{k=split("trace module core branch predictor return address stack target buffer " \
        "message port load value cache line first access flag thread replay decoder encoder gshare " \
        "history table entry exit block signal memory store the a of to in and is for on with " \
        "instruction retired stream", w, " "); x=12345; s=0
        while (s < n) { x = (x * 16807) % 2147483647; t = w[x % k + 1] ((x % 11 == 0) ? "\n" : " ")
            printf "%s", t; s += length(t) } }' | head -c "$1" >"$2"
}
now() { date +%s.%N; }
# real NAME THREADS UNZIP QEMU... -- PROG ARGS: the checks above; UNZIP is the
# x86 command that gives the input back from the output
real() {
    local name=$1 threads=$2 unzip=$3 envv=$4 base=$TMP/$1 q=() t0 t1 t2
    shift 4
    while [ "$1" != -- ]; do q+=("$1"); shift; done
    shift
    t0=$(now)
    tmo env "$envv" "${q[@]}" "$@" >"$base.native" 2>"$base.native.err"
    local st0=$?
    t1=$(now)
    tmo env "$envv" "$TMFAST" record --frontend qemu -o "$base" --threads "$threads" --cfiat --commit -- "$@" \
        >"$base.out" 2>"$base.err"
    local st1=$?
    t2=$(now)
    if hung $st0 || hung $st1; then
        fail "$name: hung (killed after $QEMU_TIMEOUT s; status $st1 under tm record, $st0 without it)"
        return
    fi
    if [ $st0 -ne 0 ] || [ $st1 -ne 0 ]; then
        fail "$name: exit status $st1 under tm record --frontend qemu, $st0 without it"
        cat "$base.native.err" "$base.err" "$base.qemu.log" 2>/dev/null | head -5
        return
    fi
    if ! cmp -s "$base.native" "$base.out"; then
        fail "$name: the output differs under tm record --frontend qemu"
        return
    fi
    if ! $unzip <"$base.out" | cmp -s - "$IN"; then
        fail "$name: the output does not decompress ($unzip) to the input"
        return
    fi
    grep -q '^recording: complete' "$base.stats" || { fail "$name: the recording is not complete"; return; }
    if ! "$TMFAST" decode --verify -q "$base.tmc" "$base.tmt" >"$base.verify" 2>&1; then
        fail "$name: tm decode --verify"
        head -5 "$base.verify"
        return
    fi
    if ! "$TMFAST" decode --from-binary --verify -q "$base.tmc" "$base.tmt" >"$base.fbverify" 2>&1; then
        fail "$name: tm decode --from-binary --verify"
        head -5 "$base.fbverify"
        return
    fi
    local insns nthr
    insns=$(awk '$1 == "total" { print $2; exit }' "$base.stats")
    nthr=$(grep -m1 '^capture:' "$base.stats" | sed 's/.* \([0-9]*\) threads.*/\1/')
    ok "$name: $insns instructions, $nthr threads, both replays exact; $(awk -v a="$t0" -v b="$t1" -v c="$t2" \
        'BEGIN { printf "%.2f s under qemu alone, %.2f s under tm record --frontend qemu --cfiat", b - a, c - b }')"
    rm -f "$base.tmc" "$base.tmt"
}

if full_size; then
    text 2916980 big.txt
    IN=$TMP/big.txt
    real "arm64 pigz -p 4 (2.9 MB)" 6 "gzip -dc" "$EA" "${QA[@]}" -- "$R/usr/bin/pigz" -p 4 -c big.txt
    pigz -p 4 -c big.txt | cmp -s - "$TMP/arm64 pigz -p 4 (2.9 MB).out" && ok "arm64 pigz: the output is x86 pigz's" ||
        fail "arm64 pigz: the output differs from x86 pigz's"
    text 524288 in512.txt
    IN=$TMP/in512.txt
    real "arm64 xz -1 -T4 (512 KB)" 6 "xz -dc" "$EA" "${QA[@]}" -- "$R/usr/bin/xz" -1 -T4 --block-size=128KiB -c in512.txt
    real "riscv64 xz -1 -T4 (512 KB)" 6 "xz -dc" "$ER" "${QR[@]}" -- "$I/riscv64/xz" -1 -T4 --block-size=128KiB -c in512.txt
    text 2097152 in2m.txt
    IN=$TMP/in2m.txt
    real "arm64 zstd -T4 (2 MB)" 7 "zstd -dc" "$EA" "${QA[@]}" -- "$R/usr/bin/zstd" -q -T4 -B512K -c in2m.txt
    real "riscv64 zstd -T4 (2 MB)" 7 "zstd -dc" "$ER" "${QR[@]}" -- "$I/riscv64/zstd" -q -T4 -B512K -c in2m.txt
else
    text 262144 in256.txt
    IN=$TMP/in256.txt
    real "arm64 pigz -p 4 -b 32 (256 KB)" 6 "gzip -dc" "$EA" "${QA[@]}" -- "$R/usr/bin/pigz" -p 4 -b 32 -c in256.txt
    pigz -p 4 -b 32 -c in256.txt | cmp -s - "$TMP/arm64 pigz -p 4 -b 32 (256 KB).out" &&
        ok "arm64 pigz: the output is x86 pigz's" || fail "arm64 pigz: the output differs from x86 pigz's"
    text 1048576 in1m.txt
    IN=$TMP/in1m.txt
    real "riscv64 zstd -T4 (1 MB)" 7 "zstd -dc" "$ER" "${QR[@]}" -- "$I/riscv64/zstd" -q -T4 -B512K -c in1m.txt
fi
[ "$fails" -eq 0 ] || exit 1
