#!/usr/bin/env bash
# tier: test
# tm record --capture on damaged capture streams (issue 35): one-bit flips
# and truncations of a small capture of branchtest written by the Valgrind
# tool.  Each run of tm record (the sanitizer build) must
# - end within 60 s (no hang) without a sanitizer report (no crash);
# - either refuse the stream (no recording left) or write a recording that
#   its own `tm decode --verify` accepts.
# Known limitation, counted and not failed: a flipped MEM value that makes a
# load contradict the bytes its thread last loaded or stored, with no write
# in between.  The trace module sends no DATA message for such a load (the
# decoder is expected to know its value), so the replay diverges; the
# capture layer keeps no image of memory to catch it.
# Sizes: 50 damaged streams (25 flips, 25 truncations), 2,000 in regress.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
[ -x "$P/branchtest" ] || die "$P/branchtest is not built (make BUILD=$B programs)"
[ -x "$TM_VALGRIND_LIB/tmtrace-amd64-linux" ] || die "$TM_VALGRIND_LIB/tmtrace-amd64-linux is not built"
if full_size; then runs=2000; else runs=50; fi

VALGRIND_LIB=$TM_VALGRIND_LIB valgrind --tool=tmtrace -q --tm-fd=3 --tm-mem=yes "$P/branchtest" 3> bt.cap \
    > /dev/null 2>&1
[ -s bt.cap ] || die "the Valgrind tool wrote no capture stream for branchtest"
st=0
"$TM" record --capture bt.cap --commit --cfiat -o ref > ref.out 2> ref.err || st=$?
case $st in 0 | 7) ;; *) die "the undamaged capture: tm record exit status $st: $(cat ref.err)" ;; esac
"$TM" decode --verify ref.tmc ref.tmt > ref.vout 2>&1 || die "the undamaged capture does not verify: $(cat ref.vout)"

# damaged streams d0.cap ..: even-numbered ones one bit flipped (past the
# magic), odd-numbered ones truncated; their damage in dN.what
python3 - bt.cap "$runs" << 'PY' || die "cannot make the damaged captures"
import random, sys
d = open(sys.argv[1], "rb").read()
r = random.Random(35)
for i in range(int(sys.argv[2])):
    if i % 2 == 0:
        bit = r.randrange(64, 8 * len(d))
        b = bytearray(d)
        b[bit // 8] ^= 1 << (bit % 8)
        what = "bit %d flipped (byte %d)" % (bit, bit // 8)
    else:
        n = r.randrange(8, len(d))
        b = d[:n]
        what = "truncated to %d bytes" % n
    open("d%d.cap" % i, "wb").write(b)
    open("d%d.what" % i, "w").write(what + "\n")
PY

refused=0 recorded=0 known=0
for ((i = 0; i < runs; i++)); do
    rm -f d.tmc d.tmt d.stats d.modules
    what="d$i.cap ($(cat "d$i.what"))"
    st=0
    timeout 60 "$TM" record --capture "d$i.cap" --commit --cfiat -o d > d.out 2> d.err || st=$?
    [ $st -ne 124 ] || { fail "$what: tm record did not end within 60 s"; continue; }
    if grep -qE 'Sanitizer|runtime error' d.err; then
        sed 's/^/    /' d.err | head -n 20
        fail "$what: sanitizer report"
        continue
    fi
    if [ ! -e d.tmt ]; then
        [ $st -ne 0 ] || { fail "$what: exit status 0 but no recording"; continue; }
        refused=$((refused + 1))
        continue
    fi
    recorded=$((recorded + 1))
    vst=0
    timeout 60 "$TM" decode --verify d.tmc d.tmt > d.vout 2>&1 || vst=$?
    sancheck d.vout "$what: tm decode --verify"
    [ $vst -ne 0 ] || continue
    if grep -q 'from the bytes the thread last loaded or stored (no DATA message)' d.vout; then
        known=$((known + 1))
        echo "known: $what: tm record exit status $st, a load contradicts its thread's earlier bytes (no memory image in the capture layer)"
        continue
    fi
    sed 's/^/    /' d.vout | tail -n 5
    fail "$what: tm record exit status $st wrote a recording that tm decode --verify refuses (exit status $vst)"
done
[ "$fails" -eq 0 ] || exit 1
ok "$runs damaged captures of branchtest: $refused refused, $recorded recorded and verified or known ($known loads against earlier bytes: no memory image in the capture layer); no hang, no sanitizer report"
