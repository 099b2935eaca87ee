#!/usr/bin/env bash
# tier: test
# tm record end to end: real programs under the Valgrind frontend.
# 1. The thesis's verification programs (seeds/000 ch. 4; tests/programs/):
#    BranchEnumeration and BranchTest (mcftrace), mlsTest (mlstrace),
#    traptortest (mcftraptor: gshare, RAS, iBTB), evict and multiblock
#    (mlvcfiat with a 32-byte, 2-way cache of 16-byte lines): the whole
#    ASCII descriptor file against tests/programs/expected/ (addresses by
#    symbol, resolve.py); binary files and compressed ones against it; the
#    statistics files; every commit stream replays.
# 2. Threads and signals: pthreads and OpenMP programs with N = 1, 2, 4, 8
#    workers sharing data, a program taking signals in handlers (raise, a
#    timer, SIGSEGV with siglongjmp and with a fix-up, pthread_kill): every
#    recording replays with and without --cfiat, encodings tr_e, tr_b, nx_b.
# 3. Programs nobody here wrote: pigz -p 4, xz -T4, zstd -T4 compress a
#    generated file under tm record --commit (with and without --cfiat):
#    output identical to an untraced run, more than 2 threads, replay OK.
# 4. The tracing window: -s, --no-shared-libs, --filter-rtn, -f (trace and
#    descriptor file): tracing starts with TRACE_ON, ends cleanly, replays.
#    (-l: tests/e2e/t_record_regress.sh.)
# 5. Bad input and bad endings: one clear line on stderr, the right exit
#    status (128 + signal for a killed program), a readable trace up to the
#    end, BASE.stats saying how the program ended; a full disk.
# Small recordings and every replay of them run in the sanitizer build
# (TM); the large ones in the optimized build (TMFAST).  The first failure
# ends the script with a message.
# Sizes (E2E_TIER, tests/e2e/run.sh): the regress tier records every program
# of section 2 in all three encodings with and without --cfiat, and
# compresses 640 KB (pigz), 300 KB (xz) and 1.6 MB (zstd) in section 3;
# otherwise each program of section 2 is recorded once without and once with
# --cfiat, the encodings taking turns (every pairing of encoding and data
# mode still runs), and section 3 compresses 160 KB in 32 KiB blocks (pigz),
# 128 KB in 32 KiB blocks (xz) and 600 KB (zstd; multithreaded above 512 KB).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
RESOLVE="python3 $ROOT/tests/programs/resolve.py"
cd "$TMP" || exit 1
if full_size; then
    mt_all=1 pigz_in=in640k.txt pigz_b=() xz_in=in300k.txt xz_block=64KiB zstd_in=in.txt
else
    mt_all=0 pigz_in=in160k.txt pigz_b=(-b 32) xz_in=in128k.txt xz_block=32KiB zstd_in=in600k.txt
fi

for p in branchenum branchtest traptortest evict multiblock mlstest mt_pthread mt_omp signals crash spin; do
    [ -x "$P/$p" ] || die "$P/$p is not built (make BUILD=$B programs)"
done
[ -x "$TM_VALGRIND_LIB/tmtrace-amd64-linux" ] || die "$TM_VALGRIND_LIB/tmtrace-amd64-linux is not built"

# rec WANT-STATUS TMBIN BASE [tm record options] -- PROG ARGS: tm record,
# stdout to BASE.out, stderr to BASE.err; the exit status must be WANT.
rec() {
    local want=$1 tm=$2 base=$3 st=0
    shift 3
    "$tm" record "$@" > "$base.out" 2> "$base.err" || st=$?
    if [ "$st" -ne "$want" ]; then
        sed 's/^/    /' "$base.err" | tail -n 15
        die "tm record $* (in $TMP): exit status $st, wanted $want"
    fi
    if grep -qE 'Sanitizer|runtime error' "$base.err"; then
        cat "$base.err"
        die "tm record $*: sanitizer report"
    fi
}

# verify TMBIN BASE WHAT [data]: tm decode --verify BASE.tmc BASE.tmt must
# print OK (with "data": and replay load values).
verify() {
    local tm=$1 base=$2 what=$3 st=0
    "$tm" decode --verify "$base.tmc" "$base.tmt" > "$base.vout" 2> "$base.verr" || st=$?
    if [ $st -ne 0 ] || ! grep -q '^OK: ' "$base.vout"; then
        sed 's/^/    /' "$base.vout" "$base.verr" | head -n 5
        die "$what: tm decode --verify: exit status $st"
    fi
    if [ "${4:-}" = data ] && ! grep -q 'load values replayed' "$base.vout"; then
        die "$what: the replay checked no load values: $(cat "$base.vout")"
    fi
    if grep -qE 'Sanitizer|runtime error' "$base.verr"; then die "$what: sanitizer report in tm decode"; fi
}

# same_desc PROG EXPECTED ACTUAL WHAT: the whole descriptor text.
same_desc() {
    $RESOLVE "$1" "$2" > "$3.expected" || die "$4: cannot resolve $2"
    if ! diff -u "$3.expected" "$3" > "$3.diff"; then
        sed 's/^/    /' "$3.diff" | head -n 40
        die "$4: $3 differs from $2 (expected -, recorded +)"
    fi
}

# bin_as_text MODE BIN [store]: a binary descriptor file (docs/guide.md,
# "Descriptor formats") printed as the ASCII descriptors.
bin_as_text() {
    python3 - "$@" << 'PY'
import sys
mode, path = sys.argv[1], sys.argv[2]
store = len(sys.argv) > 3
d = open(path, "rb").read()
i, out = 0, []
le = lambda a, b: int.from_bytes(d[a:b], "little")
while i < len(d):
    tid = d[i]
    if mode == "mcftrace":
        to = {0: "U, I, T", 1: "U, D, T", 2: "C, D, T", 3: "C, D, NT"}[d[i + 17]]
        out.append(f"{tid}, 0x{le(i + 1, i + 9):016x}, 0x{le(i + 9, i + 17):016x}, {to}")
        i += 18
    elif mode == "mlstrace":
        j = i + 1
        ls = ""
        if store:
            ls = "LS"[d[j]] + ", "
            j += 1
        pc, addr, size = le(j, j + 8), le(j + 8, j + 16), d[j + 16]
        out.append(f"{tid}, {ls}0x{pc:016x}, 0x{addr:016x}, {size}, 0x{d[j + 17:j + 17 + size].hex()}")
        i = j + 17 + size
    elif mode == "mcftraptor":
        cnt = le(i + 1, i + 5)
        if cnt == 0:
            assert d[i + 17] == 2, "exception descriptor type"
            out.append(f"{tid}, 0, {le(i + 5, i + 9)}, 0x{le(i + 9, i + 17):016x}")
            i += 18
        elif d[i + 5] == 0:
            out.append(f"{tid}, {cnt}")
            i += 6
        else:
            assert d[i + 5] == 1 and d[i + 14] == 1, "target descriptor fields"
            out.append(f"{tid}, {cnt}, T, 0x{le(i + 6, i + 14):016x}")
            i += 15
    elif mode == "mlvcfiat":
        size = d[i + 5]
        out.append(f"{tid}, {le(i + 1, i + 5)}, 0x{d[i + 6:i + 6 + size].hex()}")
        i += 6 + size
print("\n".join(out))
PY
}

# ======================================================================
# 1. The thesis's verification programs
# ======================================================================
echo "== 1. the thesis's verification programs: exact descriptors"

# BranchEnumeration: every branch class once or more, both directions, jcc,
# loop and jrcxz to the next instruction, jmp/call to the next instruction,
# rep string instructions (no descriptor).
rec 0 "$TM" be --commit --filter-rtn test_region --mode mcftrace -a -o be -- "$P/branchenum"
[ "$(cat be.out)" = "BranchEnumeration" ] || die "branchenum: stdout did not pass through: $(cat be.out)"
same_desc "$P/branchenum" "$E/branchenum.mcftrace" be.txt "BranchEnumeration mcftrace"
verify "$TM" be "BranchEnumeration"
python3 - be.txt be.Statistics << 'PY' || die "BranchEnumeration: be.Statistics does not count the descriptors"
import sys
lines = open(sys.argv[1]).read().splitlines()
st = open(sys.argv[2]).read()
count = lambda tail: sum(1 for l in lines if l.endswith(tail))
want = {"Unconditional Direct": count("U, D, T"), "Conditional Direct Taken": count("C, D, T"),
        "Conditional Direct Not Taken": count("C, D, NT"), "Unconditional Indirect": count("U, I, T")}
assert f"mcfTrace: Recorded {len(lines)} control transfer instructions." in st, st
for name, n in want.items():
    assert f"\t{n} ( %{100 * n / len(lines):.2f} ) {name}\n" in st, (name, n, st)
assert "mcfTrace: Skipped 2 instructions" in st, st
# counted by hand from branchenum.S: each rep-prefixed instruction retires
# once, whatever its iterations (5, 0, 4, 3 of 8, 5 of 16, 3)
assert "mcfTrace: Traced 135 instructions" in st, st
PY
ok "BranchEnumeration: $(wc -l < be.txt) descriptors as expected (17 jcc and 5 loop/jrcxz not taken, taken ones, to the next instruction, direct, indirect, returns; rep strings none, each one instruction); statistics; replay"
rec 0 "$TM" beb --filter-rtn test_region --mode mcftrace -o beb -- "$P/branchenum"
bin_as_text mcftrace beb.bin > beb.txt || die "branchenum: cannot read beb.bin"
same_desc "$P/branchenum" "$E/branchenum.mcftrace" beb.txt "BranchEnumeration binary mcftrace"
[ "$(stat -c %s beb.bin)" -eq $((18 * $(wc -l < beb.txt))) ] || die "branchenum: beb.bin is not 18 bytes per descriptor"
ok "BranchEnumeration: binary descriptors (18 bytes) say the same"
for c in gzip zstd; do
    rec 0 "$TM" bez --filter-rtn test_region --mode mcftrace -a -c $c -o bez -- "$P/branchenum"
    case $c in gzip) gzip -dc bez.txt.gz > bez.txt ;; zstd) zstd -qdc bez.txt.zst > bez.txt ;; esac || die "-c $c: cannot decompress"
    same_desc "$P/branchenum" "$E/branchenum.mcftrace" bez.txt "BranchEnumeration -c $c"
done
ok "BranchEnumeration: -c gzip and -c zstd descriptor files decompress to the same"

# BranchTest (Fig. 4.11): puts and the indirect call's callee are other
# functions: --filter-rtn leaves their branches out.
rec 7 "$TM" bt --commit --filter-rtn test_region --mode mcftrace -a -o bt -- "$P/branchtest"
[ "$(cat bt.out)" = "BranchTest" ] || die "branchtest: stdout did not pass through"
same_desc "$P/branchtest" "$E/branchtest.mcftrace" bt.txt "BranchTest mcftrace"
verify "$TM" bt "BranchTest"
grep -q '^ended: exit status 7$' bt.stats || die "branchtest: bt.stats does not say exit status 7"
ok "BranchTest: descriptors as Fig. 4.12 (loop T x4, NT; call; call rax), exit status 7 passed through; replay"

# mlsTest: the assembly region exactly (loads and stores of 1, 2, 4, 8, 10,
# 16, 32 bytes and implicit ones), then the thesis's C examples.
rec 0 "$TM" mls --commit --filter-rtn test_region --mode mlstrace --store -a -o mls -- "$P/mlstest"
same_desc "$P/mlstest" "$E/mlstest.mlstrace" mls.txt "mlsTest region mlstrace --store"
verify "$TM" mls "mlsTest"
rec 0 "$TM" mlsc --commit --cfiat --filter-rtn test_region -o mlsc -- "$P/mlstest"
verify "$TM" mlsc "mlsTest --cfiat" data
ok "mlsTest region: $(wc -l < mls.txt) load and store descriptors as expected (1, 2, 4, 8, 10, 16, 32 bytes); replay, with --cfiat with load values"
rec 0 "$TM" mlsl --filter-rtn test_region --mode mlstrace -a -o mlsl -- "$P/mlstest"
grep ', L, ' "$E/mlstest.mlstrace" | sed 's/, L, /, /' > mlsl.exp
same_desc "$P/mlstest" mlsl.exp mlsl.txt "mlsTest region mlstrace (loads only)"
rec 0 "$TM" mlsb --filter-rtn test_region --mode mlstrace --store -o mlsb -- "$P/mlstest"
bin_as_text mlstrace mlsb.bin store > mlsb.txt || die "mlstest: cannot read mlsb.bin"
same_desc "$P/mlstest" "$E/mlstest.mlstrace" mlsb.txt "mlsTest region binary mlstrace --store"
python3 - mls.Statistics << 'PY' || die "mlsTest: mls.Statistics does not count the operands by size"
import sys
st = open(sys.argv[1]).read()
# expected/mlstest.mlstrace: loads 1, 2, 4 x3, 8 x4, 10, 16, 32, rep 1 x2; stores 1 x3, 2, 4 x4, 8 x3, 10, 16, 32
for line in ("Total Load Operands: 14", "\t3 ( %21.43 ) Byte Operands", "\t1 ( %7.14 ) Word Operands",
             "\t1 ( %7.14 ) Extended Precision Operands", "\t1 ( %7.14 ) Hexaword Operands",
             "Total Store Operands: 14", "\t3 ( %21.43 ) Quadword Operands", "Number of Threads: 1"):
    assert line + "\n" in st, (line, st)
PY
ok "mlsTest region: loads only, binary with --store, statistics by size"

rec 0 "$TM" ex --filter-rtn mls_example1 --mode mlstrace --store -a -o ex1 -- "$P/mlstest"
cp ex.out ex1.out
rec 0 "$TM" ex --filter-rtn mls_example2 --mode mlstrace --store -a -o ex2 -- "$P/mlstest"
python3 - ex1.out ex1.txt ex2.txt << 'PY' || die "mlsTest Examples 1 and 2 (thesis Figs. 4.17-4.21)"
import re, sys
out = open(sys.argv[1]).read()
addr = {k: int(v, 16) for k, v in re.findall(r"^(\S+) address: (0x[0-9a-f]+)$", out, re.M)}
def desc(path):
    r = []
    for l in open(path).read().splitlines():
        t, ls, pc, a, size, val = l.split(", ")
        r.append((ls, int(a, 16), int(size), val))
    return r
d1, d2 = desc(sys.argv[2]), desc(sys.argv[3])
# Example 1: uint8[i] = i; sint8[i] = -i, in this order, 1-byte stores
u, s = addr["uint8"], addr["sint8"]
got = [(ls, a, n, v) for ls, a, n, v in d1 if ls == "S" and (u <= a < u + 17 or s <= a < s + 17)]
want = []
for i in range(17):
    want += [("S", u + i, 1, "0x%02x" % i), ("S", s + i, 1, "0x%02x" % (-i & 0xFF))]
assert got == want, f"Example 1 stores: {got[:4]} ..."
# the loop counter (4 bytes): stored 0..17 by each loop
ctr = [(ls, n, v) for ls, a, n, v in d1 if a == addr["i"]]
assert [v for ls, n, v in ctr if ls == "S"] == ["0x%08x" % k for k in range(18)] * 2, ctr
assert all(n == 4 for ls, n, v in ctr), ctr
# Example 2: long doubles (10 bytes, x87 80-bit, most significant byte first)
def ext(n):
    if n == 0:
        return "0x" + "00" * 10
    e = n.bit_length() - 1
    return "0x%04x%016x" % (16383 + e, n << (63 - e))
x = addr["extendedPre80"]
got = [(ls, a, v) for ls, a, n, v in d2 if n == 10]
want = [("S", x + 16 * i, ext(i)) for i in range(8)]
for i in range(8):
    want += [("L", x + 16 * i, ext(i)), ("S", x + 16 * i, ext(2 * i))]
assert got == want, f"Example 2 10-byte operands: {got} != {want}"
# AVX: A = (8..1), B = (9..2), R = hadd(A, B) stored as 32-byte operands
f = lambda *v: "0x" + "".join("%08x" % {0.0: 0}.get(x, __import__("struct").unpack(">I", __import__("struct").pack(">f", x))[0]) for x in v)
A = f(1, 2, 3, 4, 5, 6, 7, 8)
Bv = f(2, 3, 4, 5, 6, 7, 8, 9)
R = f(5, 9, 3, 7, 13, 17, 11, 15)
st32 = {(a, v) for ls, a, n, v in d2 if ls == "S" and n == 32}
ld32 = {v for ls, a, n, v in d2 if ls == "L" and n == 32}
assert (addr["A"], A) in st32 and (addr["B"], Bv) in st32 and (addr["R"], R) in st32, st32
assert A in ld32 and Bv in ld32, ld32
PY
ok "mlsTest Examples 1 and 2 (C, -O0 -mavx): byte stores and the loop counter; 10-byte long doubles 0..7 and doubled; AVX vectors A, B and hadd(A, B)"

# traptortest: gshare, RAS (and its overflow), iBTB.
for t in 1 2 3 4; do
    case $t in 1) f=gshare_test ;; 2 | 4) f=ras_test ;; 3) f=ibtb_test ;; esac
    rec 0 "$TM" tt$t --commit --gshare 256 --ras 8 --ibtb 16 --filter-rtn $f --mode mcftraptor -a -o tt$t -- "$P/traptortest" $t
    same_desc "$P/traptortest" "$E/traptortest$t.mcftraptor" tt$t.txt "traptortest $t ($f) mcftraptor"
    verify "$TM" tt$t "traptortest $t"
done
rec 0 "$TM" ttb --gshare 256 --ras 8 --ibtb 16 --filter-rtn ibtb_test --mode mcftraptor -o ttb -- "$P/traptortest" 3
bin_as_text mcftraptor ttb.bin > ttb.txt || die "traptortest: cannot read ttb.bin"
same_desc "$P/traptortest" "$E/traptortest3.mcftraptor" ttb.txt "traptortest 3 binary mcftraptor"
# jle: 11, 1 predicted; indirect: 10 calls (3 predicted), 11 returns (10 predicted)
cat > tt3.stexp << 'EOF'
mcfTRaptor: Skipped 10 instructions
mcfTRaptor: Recorded 32 direct conditional branches, indirect unconditional branches, and exceptions
11 conditional direct branches
	1 ( %9.09 ) outcomes predicted
	10 ( %90.91 ) outcomes mispredicted
21 unconditional indirect branches
	13 ( %61.90 ) targets predicted
	8 ( %38.10 ) targets mispredicted
0 exceptions
tm: 18 descriptors, 274 bytes (ASCII) in tt3.txt
tm: descriptors: 10 mispredicted outcomes, 8 mispredicted targets, 0 exceptions
tm: 0 messages dropped by the trace buffer (0 DATA), 0 overflow resynchronizations: none missing
EOF
grep -v '^mcfTRaptor: Instrumentation Time' tt3.Statistics | diff -u tt3.stexp - > tt3.stdiff ||
    { sed 's/^/    /' tt3.stdiff; die "traptortest 3: tt3.Statistics differs (expected -, recorded +)"; }
ok "traptortest: gshare (BHR saturation), RAS (deep recursion, RAS overflow), iBTB (PIR fixed point): descriptors as expected/README derives; binary; replay"

# evict, multiblock: CFiat with the thesis's tiny cache.
for t in evict multiblock; do
    rec 0 "$TM" $t --commit --cfiat --cache 32 --assoc 2 --line 16 --granularity 4 --filter-rtn test_region \
        --mode mlvcfiat -a -o $t -- "$P/$t"
    same_desc "$P/$t" "$E/$t.mlvcfiat" $t.txt "$t mlvcfiat"
    verify "$TM" $t "$t" data
    rec 0 "$TM" ${t}b --cfiat --cache 32 --assoc 2 --line 16 --granularity 4 --filter-rtn test_region \
        --mode mlvcfiat -o ${t}b -- "$P/$t"
    bin_as_text mlvcfiat ${t}b.bin > ${t}b.txt || die "$t: cannot read ${t}b.bin"
    same_desc "$P/$t" "$E/$t.mlvcfiat" ${t}b.txt "$t binary mlvcfiat"
done
# The statistics, derived in evict.S and multiblock.S (cache references are
# loads and stores; first-access references the loads that hit).
cat > evict.stexp << 'EOF'
Instructions Traced: 65
Skipped Instructions: 3

-- Cache References Hits: Misses (Hit Rate)
	Total 7:5(58%)
	Byte Operands 0:0(0%)
	Word Operands 0:0(0%)
	Doubleword Operands 6:3(66%)
	Quadword Operands 1:2(33%)
	Extended Precision Operands 0:0(0%)
	Octaword Operands 0:0(0%)
	Hexaword Operands 0:0(0%)
	Other Sized Operands 0:0(0%)
-- First Access Flag References Hits: Misses (Hit Rate)
	Total 0:1(0%)
	Byte Operands 0:0(0%)
	Word Operands 0:0(0%)
	Doubleword Operands 0:0(0%)
	Quadword Operands 0:1(0%)
	Extended Precision Operands 0:0(0%)
	Octaword Operands 0:0(0%)
	Hexaword Operands 0:0(0%)
	Other Sized Operands 0:0(0%)
EOF
cat > multiblock.stexp << 'EOF'
Instructions Traced: 28
Skipped Instructions: 3

-- Cache References Hits: Misses (Hit Rate)
	Total 8:7(53%)
	Byte Operands 0:0(0%)
	Word Operands 0:0(0%)
	Doubleword Operands 0:0(0%)
	Quadword Operands 7:5(58%)
	Extended Precision Operands 0:0(0%)
	Octaword Operands 0:0(0%)
	Hexaword Operands 1:2(33%)
	Other Sized Operands 0:0(0%)
-- First Access Flag References Hits: Misses (Hit Rate)
	Total 5:1(83%)
	Byte Operands 0:0(0%)
	Word Operands 0:0(0%)
	Doubleword Operands 0:0(0%)
	Quadword Operands 4:1(80%)
	Extended Precision Operands 0:0(0%)
	Octaword Operands 0:0(0%)
	Hexaword Operands 1:0(100%)
	Other Sized Operands 0:0(0%)
EOF
for t in evict multiblock; do
    grep -v '^Instrumentation Time\|^tm: ' $t.Statistics > $t.stgot
    diff -u $t.stexp $t.stgot > $t.stdiff || { sed 's/^/    /' $t.stdiff; die "$t: $t.Statistics differs (expected -, recorded +)"; }
done
ok "evict, multiblock (32-byte 2-way cache, 16-byte lines): CFiat descriptors and cache/first-access statistics as Figs. 4.42-4.45 derive; binary; replay with load values"

# ======================================================================
# 2. Threads and signals
# ======================================================================
echo "== 2. threads and signals: tm decode --verify, with and without --cfiat, tr_e / tr_b / nx_b"
export OMP_WAIT_POLICY=passive
runs=0
ncase=0
encs=(tr_e tr_b nx_b)
mt_case() { # NAME WANT-THREADS WANT-STDOUT-REGEX -- PROG ARGS
    local name=$1 nthr=$2 pat=$3 k=0 these
    shift 4
    for data in "" --cfiat; do
        # With --cfiat a large buffer, so that nothing overflows: with
        # threads, an overflowing CFiat trace sometimes does not replay
        # (a model/replay disagreement, t_record_regress.sh).
        local dopt=""
        [ -n "$data" ] && dopt="--cfiat --buffer 1048576 --port 256"
        # all three encodings, or one, in turn: case i without --cfiat
        # encoding i mod 3, with --cfiat i + 1 mod 3
        these=${encs[*]}
        [ "$mt_all" = 1 ] || these=${encs[$(( (ncase + k) % 3 ))]}
        k=$((k + 1))
        for enc in $these; do
            # shellcheck disable=SC2086
            rec 0 "$TMFAST" mt --commit --threads 9 --encoding $enc $dopt -o mt -- "$@"
            grep -qE "$pat" mt.out || die "$name $enc $data: unexpected output: $(cat mt.out)"
            verify "$TM" mt "$name --encoding $enc $data" ${data:+data}
            local got
            got=$(sed -n 's/^capture: .* \([0-9]*\) threads, \(.*\)$/\1 \2/p' mt.stats)
            [ "$got" = "$nthr complete" ] || die "$name $enc $data: mt.stats says '$got', wanted $nthr threads, complete"
            runs=$((runs + 1))
        done
        [ "$mt_all" = 1 ] || echo "     $name ${data:-(control flow)}: --encoding $these"
    done
    ncase=$((ncase + 1))
    if [ "$mt_all" = 1 ]; then
        ok "$name: $nthr threads; replays OK for tr_e, tr_b, nx_b, with and without --cfiat"
    else
        ok "$name: $nthr threads; replays OK without and with --cfiat"
    fi
}
for n in 1 2 4 8; do
    mt_case "pthreads, $n workers" $((n + 1)) "^mt_pthread $n: sum" -- "$P/mt_pthread" $n
done
for n in 1 2 4 8; do
    mt_case "OpenMP, $n threads" $n "^mt_omp $n: sum" -- "$P/mt_omp" $n
done
mt_case "signals" 2 "^signals: usr1 2 alrm 1 segv longjmp 1 segv fixed 1 usr2 1$" -- "$P/signals"
sig=$(sed -n 's/^capture: .* \([0-9]*\) signals,.*/\1/p' mt.stats)
[ "${sig:-0}" -ge 5 ] || die "signals: mt.stats counts $sig signals, wanted 5 or more"
grep -q '[1-9][0-9]* exceptions' mt.vout || die "signals: the replay saw no exception: $(cat mt.vout)"
ok "signals: $sig signals delivered, replayed as exceptions ($runs recordings in section 2)"

# ======================================================================
# 3. Programs nobody here wrote
# ======================================================================
echo "== 3. pigz, xz, zstd (threads) under tm record --commit"
python3 - << 'PY'
import random
r = random.Random(5)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9))) for _ in range(3000)]
out, n = [], 0
while n < 1600000:
    line = " ".join(r.choice(words) for _ in range(12)) + " %d\n" % r.randint(0, 10**6)
    out.append(line)
    n += len(line)
open("in.txt", "w").write("".join(out))
PY
head -c 655360 in.txt > in640k.txt
head -c 307200 in.txt > in300k.txt
head -c 163840 in.txt > in160k.txt
head -c 131072 in.txt > in128k.txt
head -c 600000 in.txt > in600k.txt
real_case() { # NAME -- PROG ARGS (the input named in ARGS, output on stdout)
    local name=$1
    shift 2
    "$@" > ref.out 2> ref.err || die "$name: the untraced run failed: $(cat ref.err)"
    for data in "" --cfiat; do
        local dopt=$data
        # CFiat with a large buffer, as in section 2
        [ -n "$data" ] && dopt="--cfiat --buffer 1048576 --port 256"
        # shellcheck disable=SC2086
        rec 0 "$TMFAST" real --commit --threads 16 $dopt -o real -- "$@"
        cmp -s real.out ref.out || die "$name $data: the output differs from the untraced run's"
        local thr
        thr=$(sed -n 's/^capture: .* \([0-9]*\) threads, complete$/\1/p' real.stats)
        [ "${thr:-0}" -gt 2 ] || die "$name $data: real.stats: '$(grep ^capture real.stats)': wanted more than 2 threads, complete"
        verify "$TMFAST" real "$name $data" ${data:+data}
        ok "$name ${data:-(control flow)}: output identical ($(stat -c %s ref.out) bytes), $thr threads, $(sed 's/^OK: \([0-9]*\) instructions.*/\1/' real.vout) instructions replayed"
        rm -f real.tmc real.tmt
    done
}
real_case "pigz -p 4" -- pigz -n "${pigz_b[@]}" -p 4 -c $pigz_in
real_case "xz -T4" -- xz -T4 -1 --block-size=$xz_block -c $xz_in
real_case "zstd -T4" -- zstd -q -T4 -B512K -c $zstd_in

# ======================================================================
# 4. The tracing window
# ======================================================================
echo "== 4. the tracing window"
# first_start BASE: the first START record; it must have TRACE_ON; the stream
# must end with END (tm dump reads it all).
first_start() {
    "$TM" dump "$1.tmc" > "$1.dump" 2> "$1.derr" || die "$1: tm dump: $(cat "$1.derr")"
    grep -m1 ' START ' "$1.dump"
}
ends_clean() {
    tail -n 1 "$1.dump" | grep -q '^END count=' || die "$2: the commit stream does not end with END"
}
spin_ref=$("$P/spin" 200)
rec 0 "$TM" w --commit -s 200000 -o w -- "$P/spin" 200
[ "$(cat w.out)" = "$spin_ref" ] || die "-s: the program's output changed"
first_start w | grep -q 'START trace-on' || die "-s 200000: the first START is not TRACE_ON: $(first_start w)"
ends_clean w "-s"
grep -q '^window: 200000 instructions skipped' w.stats || die "-s 200000: w.stats: $(grep ^window w.stats)"
verify "$TM" w "-s 200000"
ok "-s 200000: exactly 200000 skipped, TRACE_ON, END, replay"
# -l: t_record_regress.sh (tm record -l crashes in the capture at HEAD)
start_sym=$(nm "$P/spin" | awk '$3 == "_start" {print $1}')
work_sym=$(nm "$P/spin" | awk '$3 == "work" {print $1}')
rec 0 "$TM" w --commit --no-shared-libs -o w -- "$P/spin" 20
[ "$(first_start w)" = "$(printf 'c=0 t=0 START trace-on pc=0x%x' $((16#$start_sym)))" ] ||
    die "--no-shared-libs: tracing does not start at _start with TRACE_ON: $(first_start w)"
ends_clean w "--no-shared-libs"
verify "$TM" w "--no-shared-libs"
rec 0 "$TM" w --commit --filter-rtn work -o w -- "$P/spin" 20
[ "$(first_start w)" = "$(printf 'c=0 t=0 START trace-on pc=0x%x' $((16#$work_sym)))" ] ||
    die "--filter-rtn work: tracing does not start at work with TRACE_ON: $(first_start w)"
ends_clean w "--filter-rtn"
verify "$TM" w "--filter-rtn work"
ok "--no-shared-libs and --filter-rtn work: tracing starts at _start and at work with TRACE_ON; replay"
# descriptors of the program's own code only
rec 0 "$TM" w --no-shared-libs --mode mcftrace -a -o w -- "$P/spin" 20
# every descriptor's pc in the program's executable segment
python3 - "$P/spin" w.txt << 'PY' || die "--no-shared-libs --mode mcftrace: descriptors outside the program's code"
import subprocess, sys
seg = [l.split() for l in subprocess.run(["readelf", "-lW", sys.argv[1]], capture_output=True, text=True,
                                         check=True).stdout.splitlines()]
seg = [(int(f[2], 16), int(f[2], 16) + int(f[5], 16)) for f in seg if f and f[0] == "LOAD" and "E" in f[6:-1]]
assert len(seg) == 1, seg
lo, hi = seg[0]
bad = [l for l in open(sys.argv[2]) if not lo <= int(l.split(", ")[1], 16) < hi]
assert not bad, f"{len(bad)} outside [{lo:#x}, {hi:#x}): {bad[:3]}"
PY
[ -s w.txt ] || die "--no-shared-libs --mode mcftrace: no descriptor"
ok "--no-shared-libs --mode mcftrace: $(wc -l < w.txt) descriptors, all of the program's own code"
# -f: the trace stops at the limit, cleanly; the program runs on
rec 0 "$TM" w --commit --data all -f 1 -o w -- "$P/spin" 3000
[ "$(cat w.out)" = "$("$P/spin" 3000)" ] || die "-f 1: the program's output changed"
grep -q 'stopped at the size limit' w.stats || die "-f 1: w.stats does not say the limit stopped tracing: $(grep ^window w.stats)"
sz=$(stat -c %s w.tmt)
# tm record checks the size between reads of the capture pipe: the trace
# may pass the limit by what the last read added
[ "$sz" -ge 1048576 ] && [ "$sz" -le $((1048576 * 5 / 4)) ] || die "-f 1: w.tmt is $sz bytes, wanted 1 MiB to 1.25 MiB"
grep -q ' EXIT trace-off' <("$TM" dump w.tmc) || die "-f 1: no EXIT TRACE_OFF"
verify "$TM" w "-f 1" data
ok "-f 1 (trace): stopped at $sz bytes, EXIT TRACE_OFF, the program finished; replay with load values"
rec 0 "$TM" w --commit --mode mlstrace --store -f 1 -o w -- "$P/spin" 3000
sz=$(stat -c %s w.bin)
[ "$sz" -le 1048576 ] && [ "$sz" -ge $((1048576 - 100)) ] || die "-f 1 --mode mlstrace: w.bin is $sz bytes"
grep -q 'stopped at the size limit' w.stats || die "-f 1 --mode: w.stats does not say the limit stopped tracing"
verify "$TM" w "-f 1 --mode mlstrace"
ok "-f 1 --mode mlstrace: descriptor file $sz bytes (limit 1 MiB), tracing stopped; replay"

# ======================================================================
# 5. Bad input, bad endings
# ======================================================================
echo "== 5. bad input and bad endings"
# one_line WANT-STATUS PATTERN tm record ARGS: exit status and exactly one
# line on stderr matching PATTERN.
one_line() {
    local want=$1 pat=$2
    shift 2
    rec "$want" "$TM" bad "$@"
    if [ "$(wc -l < bad.err)" -ne 1 ] || ! grep -q -- "$pat" bad.err; then
        sed 's/^/    /' bad.err
        die "tm record $*: wanted one line on stderr matching '$pat'"
    fi
    ok "tm record $* -> $want: $(cat bad.err)"
}
printf 'just text\n' > notelf && chmod +x notelf
printf 'x\n' > noexec
one_line 2 "$TMP/nonexistent: no such program" -o x -- "$TMP/nonexistent"
one_line 2 "no-such-program-tm: no such program on PATH" -o x -- no-such-program-tm
one_line 2 "notelf: not an ELF executable" -o x -- ./notelf
one_line 2 "noexec: not an executable file" -o x -- ./noexec
one_line 2 "unknown option '--bogus'" --bogus -o x -- "$P/crash"
one_line 2 "^tm record: -l 0: allowed a number of instructions (at least 1)" -l 0 -o x -- "$P/crash"
one_line 2 "-s x1: allowed a number of instructions" -s x1 -o x -- "$P/crash"
one_line 2 "threads 0: allowed 1..1024" --threads 0 -o x -- "$P/crash"
one_line 2 "no program to run" -o x --
one_line 2 "no output: give -o BASE" -- "$P/crash"
one_line 2 "mode" --mode bogus -o x -- "$P/crash"
[ ! -e x.tmt ] || die "a refused command line wrote x.tmt"
rec 1 "$TM" bad -o "$TMP/no/such/dir/x" -- "$P/crash"
[ "$(wc -l < bad.err)" -eq 1 ] && [ ! -s bad.out ] || die "-o in a missing folder: wanted one line and no run: $(cat bad.err bad.out)"
ok "-o in a missing folder: one line, the program not run: $(cat bad.err)"
# more threads than cores: a clear error, the program still runs to its end
rec 1 "$TM" bad --threads 2 -o few -- "$P/mt_pthread" 4
grep -q '^mt_pthread 4: sum' bad.out || die "--threads 2: the program did not run to its end"
[ "$(wc -l < bad.err)" -eq 1 ] && grep -q 'more than 2 threads.*--threads' bad.err || die "--threads 2 with 5 threads: $(cat bad.err)"
ok "5 threads on --threads 2: exit 1, the program ran to its end: $(cat bad.err)"

# bad endings: exit status passes through; a crash or a kill ends with
# 128 + signal, BASE.stats says so and the trace so far replays.
rec 3 "$TM" end --commit -o end -- "$P/crash" exit 3
grep -q '^ended: exit status 3$' end.stats || die "exit 3: end.stats: $(grep ^ended end.stats)"
verify "$TM" end "exit 3"
ok "exit status 3 passes through; replay"
rec 139 "$TM" end --commit -o end -- "$P/crash" segv
grep -q '^crash: segv$' end.out || die "segv: the program's output was lost"
grep -q '^ended: killed by signal 11 (Segmentation fault)$' end.stats || die "segv: end.stats: $(grep ^ended end.stats)"
[ "$(wc -l < end.err)" -eq 1 ] && grep -q '^tm record: .*killed by signal 11' end.err || die "segv: wanted one line on stderr: $(cat end.err)"
verify "$TM" end "SIGSEGV"
ok "unhandled SIGSEGV: exit 139, end.stats 'killed by signal 11', one tm record line, the trace replays"
rec 137 "$TM" end --commit -o end -- "$P/crash" kill
grep -q '^ended: killed by signal 9 (Killed)$' end.stats || die "kill: end.stats: $(grep ^ended end.stats)"
[ "$(wc -l < end.err)" -eq 1 ] && grep -q '^tm record: .*killed by signal 9' end.err || die "SIGKILL itself: stderr: $(cat end.err)"
verify "$TM" end "SIGKILL itself"
ok "SIGKILL to itself: exit 137, end.stats 'killed by signal 9', one line, the trace replays"
# killed from outside, mid-run: the capture is cut short
"$TM" record --commit -o cut -- "$P/spin" 200000 > cut.out 2> cut.err &
rp=$!
vp=""
for _ in $(seq 100); do
    vp=$(cat /proc/$rp/task/*/children 2> /dev/null | awk '{print $1}')
    # the outputs are written under temporary names until the end
    [ -n "$vp" ] && [ -n "$(find . -maxdepth 1 -name '.cut.tmc.tmp.*' -size +0)" ] && break
    sleep 0.1
done
[ -n "$vp" ] || die "cannot find the valgrind process of tm record"
sleep 1
kill -KILL "$vp"
st=0
wait $rp || st=$?
[ $st -eq 137 ] || die "valgrind killed from outside: tm record exit status $st, wanted 137"
grep -q '^ended: killed by signal 9' cut.stats || die "killed from outside: cut.stats: $(grep ^ended cut.stats)"
grep -q '^capture: .*cut short' cut.stats || die "killed from outside: cut.stats does not say the capture was cut short"
[ "$(wc -l < cut.err)" -eq 1 ] || die "killed from outside: stderr: $(cat cut.err)"
verify "$TM" cut "killed from outside"
ok "killed from outside mid-run: exit 137, capture cut short, one line, the trace so far replays ($(sed 's/^OK: \([0-9]*\) .*/\1/' cut.vout) instructions)"

# a full disk: a file size limit and SIGXFSZ ignored -> write errors (the
# same with --commit: t_record_regress.sh)
(
    ulimit -f 256
    trap '' XFSZ
    exec "$TM" record --data all -o full -- "$P/spin" 3000
) > full.out 2> full.err
st=$?
[ $st -ne 0 ] || die "a full disk: tm record exit status 0"
[ "$(wc -l < full.err)" -eq 1 ] && grep -q '^tm record: .*full\.tmt.*File too large' full.err ||
    die "a full disk: wanted one line naming the file: $(cat full.err)"
grep -qE 'Sanitizer|runtime error' full.err && die "a full disk: sanitizer report"
grep -q '^spin 3000: ' full.out || die "a full disk: the program did not run to its end"
ok "a full disk (ulimit -f 256): exit $st, $(cat full.err)"

echo "all tm record tests passed"
