#!/usr/bin/env bash
# tier: test
# tm record --capture on damaged capture streams (issue 35): one-bit flips,
# truncations and swapped events of a small capture of branchtest written by the Valgrind
# tool.  Each run of tm record (the sanitizer build) must
# - end within 60 s (no hang) without a sanitizer report (no crash);
# - either refuse the stream (no recording left) or write a recording that
#   its own `tm decode --verify` accepts.
# A flipped MEM value that makes a load contradict the bytes the last load
# or store of them gave is refused by the capture layer's memory image (the
# trace module sends no DATA message for such a load, so its replay would
# diverge).
# Sizes: 51 damaged streams (17 of each kind), 2,001 in regress.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
[ -x "$P/branchtest" ] || die "$P/branchtest is not built (make BUILD=$B programs)"
[ -x "$TM_VALGRIND_LIB/tmtrace-amd64-linux" ] || die "$TM_VALGRIND_LIB/tmtrace-amd64-linux is not built"
if full_size; then runs=2001; else runs=51; fi

VALGRIND_LIB=$TM_VALGRIND_LIB valgrind --tool=tmtrace -q --tm-fd=3 --tm-mem=yes "$P/branchtest" 3> bt.cap \
    > /dev/null 2>&1
[ -s bt.cap ] || die "the Valgrind tool wrote no capture stream for branchtest"
st=0
"$TM" record --capture bt.cap --commit --cfiat -o ref > ref.out 2> ref.err || st=$?
case $st in 0 | 7) ;; *) die "the undamaged capture: tm record exit status $st: $(cat ref.err)" ;; esac
"$TM" decode --verify ref.tmc ref.tmt > ref.vout 2>&1 || die "the undamaged capture does not verify: $(cat ref.vout)"

# damaged streams d0.cap ..: in turn one bit flipped (past the magic), the
# stream truncated, two neighbouring events swapped (docs/capture.md §2: an
# event parser finds their bounds); their damage in dN.what
python3 - bt.cap "$runs" << 'PY' || die "cannot make the damaged captures"
import random, struct, sys
d = open(sys.argv[1], "rb").read()
w = struct.unpack("<%dQ" % (len(d) // 8), d[:len(d) // 8 * 8])
ev, dyn, i = [], {}, 1          # event bounds (word index, words); DYN exits per block
while i < len(w):
    t = w[i] & 0xff
    if t == 1:                  # BLOCK: ninsn words, nexit (kind, target) pairs
        ni, nx = (w[i] >> 8) & 0xffff, (w[i] >> 24) & 0xff
        x0 = i + 3 + ni
        dyn[w[i + 1]] = {k for k in range(nx) if (w[x0 + 2 * k] >> 24) & 1}
        n = 3 + ni + 2 * nx
    elif t == 2:                # EXEC: the target word if the exit is DYN
        n = 2 if (w[i] >> 8) & 0xff in dyn.get(w[i] >> 16, ()) else 1
    elif t == 6: n = 2          # SIGNAL
    elif t == 8:                # MEM
        n = 2 + (0 if w[i] >> 10 & 1 else (((w[i] >> 16) & 0xff) + 7) // 8)
    elif t == 9: n = 4 + (((w[i] >> 8) & 0xffff) + 7) // 8
    elif t == 10: n = 2 + (((w[i] >> 8) & 0xffffffff) + 7) // 8
    else: n = 1                 # THREAD CREATE EXIT SIGRET END EXECVE SYSCALL ADDR
    ev.append((i, n))
    i += n
assert i == len(w), "the capture does not parse"
r = random.Random(35)
for i in range(int(sys.argv[2])):
    if i % 3 == 0:
        bit = r.randrange(64, 8 * len(d))
        b = bytearray(d)
        b[bit // 8] ^= 1 << (bit % 8)
        what = "bit %d flipped (byte %d)" % (bit, bit // 8)
    elif i % 3 == 1:
        n = r.randrange(8, len(d))
        b = d[:n]
        what = "truncated to %d bytes" % n
    else:
        k = r.randrange(len(ev) - 1)
        (a, na), (_, nb) = ev[k], ev[k + 1]
        b = d[:8 * a] + d[8 * (a + na):8 * (a + na + nb)] + d[8 * a:8 * (a + na)] + d[8 * (a + na + nb):]
        what = "events %d and %d swapped (bytes %d..%d)" % (k, k + 1, 8 * a, 8 * (a + na + nb))
    open("d%d.cap" % i, "wb").write(b)
    open("d%d.what" % i, "w").write(what + "\n")
PY

refused=0 recorded=0 contra=0
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
        grep -q 'with no write in between' d.err && contra=$((contra + 1))
        continue
    fi
    recorded=$((recorded + 1))
    vst=0
    timeout 60 "$TM" decode --verify d.tmc d.tmt > d.vout 2>&1 || vst=$?
    sancheck d.vout "$what: tm decode --verify"
    [ $vst -ne 0 ] || continue
    sed 's/^/    /' d.vout | tail -n 5
    fail "$what: tm record exit status $st wrote a recording that tm decode --verify refuses (exit status $vst)"
done
[ "$fails" -eq 0 ] || exit 1
ok "$runs damaged captures of branchtest: $refused refused ($contra of them a load against the memory image), $recorded recorded and verified; no hang, no sanitizer report"
