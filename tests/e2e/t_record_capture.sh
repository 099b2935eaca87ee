#!/usr/bin/env bash
# tier: test
# tm record --capture and --frontend end to end (issue 20; docs/capture.md §1):
# 1. Capture streams written by the Valgrind tool run directly (no tm record)
#    become recordings through tm record --capture FILE and --capture -
#    (a file, a pipe): they verify, replay from the binaries, and have the
#    instruction flow (tm dump --flow) of a live recording.
# 2. The options work through --capture: --mode descriptors as expected,
#    --and (byte for byte tm model's), the window (-s, -l), --threads auto.
# 3. Endings: the END event's status is the exit status (an exit status, a
#    signal), a stream without END is cut short, a signal to tm record stops
#    reading.
# 4. Bad input: one line naming the file (and the byte offset), the right
#    exit status, no output left; bad --frontend / --pin / --capture
#    combinations; a Pin frontend without a kit.
# 5. The Pin frontend's launch (rec_exec_pin) with a stand-in `pin` that
#    checks its command line and runs the Valgrind tool with the same
#    channel: the recording, BASE.pin.log, a missing tool, a frontend that
#    fails before its tool; and t_pin.sh itself (TM_PIN_QUICK=1) with it.
# 6. tests/e2e/flowcmp.py, which t_pin.sh uses to compare the Valgrind and
#    the Pin frontend's flows, on two Valgrind recordings: identical flows,
#    flows whose pointers differ (another stack), a program moved in memory
#    (PIE), threads, pigz's branch sets; and flows that differ.
# Sizes (E2E_TIER, tests/e2e/run.sh): section 6 records pigz -p 4 on 300 KB
# in the regress tier, 64 KB in 32 KiB blocks (two, for two of its threads)
# otherwise: flowcmp.py reads 7 KB of flow per byte compressed.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
RESOLVE="python3 $ROOT/tests/programs/resolve.py"
cd "$TMP" || exit 1
if full_size; then pigz_in=300000 pigz_b=(); else pigz_in=65536 pigz_b=(-b 32); fi
for p in branchtest mlstest mt_pthread crash; do
    [ -x "$P/$p" ] || die "$P/$p is not built (make BUILD=$B programs)"
done
[ -x "$TM_VALGRIND_LIB/tmtrace-amd64-linux" ] || die "$TM_VALGRIND_LIB/tmtrace-amd64-linux is not built"

# vgcap FILE PROG ARGS: the Valgrind tool run directly (the options tm record
# gives it, docs/capture.md §1), its capture stream into FILE; the program's
# exit status in VGST.
vgcap() {
    local out=$1
    shift
    VGST=0
    VALGRIND_LIB=$TM_VALGRIND_LIB valgrind --tool=tmtrace -q --tm-fd=3 --tm-mem=yes "$@" 3> "$out" \
        > "$out.out" 2> "$out.err" || VGST=$?
    [ -s "$out" ] || die "the Valgrind tool wrote no capture stream for $*: $(head -n 3 "$out.err")"
}

# rec "WANT..." TMBIN BASE [tm record options]: tm record, stdout to
# BASE.out, stderr to BASE.err; the exit status must be one of WANT.
rec() {
    local want=$1 tm=$2 base=$3 st=0
    shift 3
    "$tm" record "$@" > "$base.out" 2> "$base.err" || st=$?
    case " $want " in
    *" $st "*) ;;
    *)
        sed 's/^/    /' "$base.err" | tail -n 15
        die "tm record $* (in $TMP): exit status $st, wanted $want"
        ;;
    esac
    sancheck "$base.err" "tm record $*"
}

# one_line WANT-STATUS PATTERN BASE [tm record options]: the exit status,
# exactly one line on stderr matching PATTERN, and no output of BASE left
# (not even a temporary; KEEP: a file of that name that is not one).
one_line() {
    local want=$1 pat=$2 base=$3
    shift 3
    rec "$want" "$TM" "bad" "$@"
    if [ "$(wc -l < bad.err)" -ne 1 ] || ! grep -q -- "$pat" bad.err; then
        sed 's/^/    /' bad.err
        die "tm record $*: wanted one line on stderr matching '$pat'"
    fi
    local left
    left=$(find . -maxdepth 1 \( -name "$base.*" -o -name ".$base.*" \) ! -name "${KEEP:-$base.cap}" | head -n 3)
    [ -z "$left" ] || die "tm record $*: left $left"
    ok "tm record $* -> $want: $(cat bad.err)"
}

# ======================================================================
echo "== 1. capture streams of the Valgrind tool run directly"
vgcap bt.cap "$P/branchtest"
[ "$VGST" -eq 7 ] || die "branchtest under the Valgrind tool: exit status $VGST, wanted 7"
# The Valgrind tool's END carries no exit status (Valgrind gives its tools
# none): 0 or, if the tool learns it, 7.
rec "0 7" "$TM" c1 --capture bt.cap --commit --cfiat -o c1
[ ! -s c1.out ] && [ ! -s c1.err ] || die "--capture: wrote to stdout or stderr: $(cat c1.out c1.err)"
verify "$TM" c1 "--capture bt.cap" data
grep -q '^program: unknown (tm record --capture bt.cap)$' c1.stats || die "c1.stats: $(grep ^program c1.stats)"
grep -q '^recording: complete$' c1.stats || die "c1.stats: $(grep ^recording c1.stats)"
[ ! -e c1.valgrind.log ] && [ ! -e c1.pin.log ] || die "--capture wrote a frontend log"
grep -q "^0x0000000000400000 [0-9a-f]* $P/branchtest\$" c1.modules || die "c1.modules: $(cat c1.modules)"
rec "0 7" "$TM" c2 --capture - --commit --cfiat -o c2 < bt.cap
cat bt.cap | rec "0 7" "$TM" c3 --capture - --commit --cfiat -o c3 || exit 1
for c in c2 c3; do
    cmp -s c1.tmc $c.tmc && cmp -s c1.tmt $c.tmt && cmp -s c1.modules $c.modules ||
        die "--capture - ($c): not the recording of --capture bt.cap"
done
rec 7 "$TM" live --commit --cfiat -o live -- "$P/branchtest"
flow_cmp exact "$P/branchtest" live c1 || die "branchtest, live and --capture: $FLOW_CMP"
case $FLOW_CMP in identical*) ;; *) die "branchtest, live and --capture: not identical: $FLOW_CMP" ;; esac
ok "--capture FILE, a redirected and a piped standard input: the same recording; it verifies, replays from the binaries, and has the live recording's flow ($FLOW_CMP)"

# ======================================================================
echo "== 2. options through --capture"
rec "0 7" "$TM" bt --capture bt.cap --commit --filter-rtn test_region --mode mcftrace -a -o btm
$RESOLVE "$P/branchtest" "$E/branchtest.mcftrace" > btm.expected || die "cannot resolve branchtest.mcftrace"
diff -u btm.expected btm.txt > btm.diff || { sed 's/^/    /' btm.diff | head -n 20; die "--capture --mode mcftrace: btm.txt differs"; }
verify "$TM" btm "--capture --mode mcftrace"
vgcap mls.cap "$P/mlstest"
rec 0 "$TM" mls --capture mls.cap --filter-rtn test_region --mode mlstrace --store -a -o mls
$RESOLVE "$P/mlstest" "$E/mlstest.mlstrace" > mls.expected || die "cannot resolve mlstest.mlstrace"
diff -u mls.expected mls.txt > mls.diff || { sed 's/^/    /' mls.diff | head -n 20; die "--capture --mode mlstrace: mls.txt differs"; }
ok "--capture with --mode mcftrace -a and mlstrace --store: the descriptors of tests/programs/expected"
vgcap mt.cap "$P/mt_pthread" 4 join
[ "$VGST" -eq 0 ] || die "mt_pthread under the Valgrind tool: exit status $VGST"
rec 0 "$TM" mta --capture mt.cap --commit --cfiat --threads 9 -o mta --and --encoding nx_b -o mtb --and --config small -o mtc
verify "$TM" mta "--capture mt_pthread" data
for x in "mtb --encoding nx_b" "mtc --config small"; do
    set -- $x
    "$TM" model "${@:2}" mta.tmc -o "$1.m.tmt" > /dev/null 2> "$1.m.err" || die "tm model $*: $(cat "$1.m.err")"
    cmp -s "$1.tmt" "$1.m.tmt" || die "--capture --and ${*:2}: $1.tmt is not tm model's trace of mta.tmc"
done
ok "--capture with --and: each configuration's trace is tm model's on the recording's commit stream"
rec 0 "$TM" win --capture mt.cap --commit -s 20000 -l 30000 -o win
grep -q '^window: 20000 instructions skipped, 30000 traced' win.stats || die "-s/-l: $(grep ^window win.stats)"
"$TM" dump win.tmc | grep -m1 ' START ' | grep -q trace-on || die "-s: the first START is not TRACE_ON"
verify "$TM" win "--capture -s 20000 -l 30000"
rec 0 "$TM" auto --capture mt.cap --commit --threads auto -o auto
[ "$("$TM" dump auto.tmc | head -n 1)" = "# tmc v1 threads=5" ] || die "--threads auto: $("$TM" dump auto.tmc | head -n 1)"
verify "$TM" auto "--capture --threads auto"
ok "--capture with -s/-l (the window) and --threads auto (5 threads)"
# --model-thread (docs/capture.md §3): the model on a thread of its own
# writes byte for byte what the model on the recording's thread writes, with
# the values captured (--cfiat: auto's case) and a sweep (--and), and with
# control flow alone; a bad value is one line.
for mt in no yes auto; do
    rec 0 "$TM" "th$mt" --capture mt.cap --cfiat --threads 9 --model-thread $mt -o "th$mt" --and --encoding nx_b -o "th${mt}b"
    rec 0 "$TM" "tf$mt" --capture mt.cap --threads 9 --model-thread $mt -o "tf$mt"
done
for mt in yes auto; do
    for b in th thb tf; do
        x=${b/th/th$mt}
        [ "$b" = tf ] && x=tf$mt
        y=${b/th/thno}
        [ "$b" = tf ] && y=tfno
        for e in tmt json stats modules; do
            cmp -s "$y.$e" "$x.$e" || die "--model-thread $mt: $x.$e is not $y.$e (--model-thread no)"
        done
    done
done
# with --commit (no thread) the recording mta above, which verifies
cmp -s thyes.tmt mta.tmt && cmp -s thyesb.tmt mtb.tmt || die "--model-thread yes: not the traces of mta, mtb (--commit)"
ok "--model-thread yes and auto: the outputs of --model-thread no, with --cfiat and --and, and without; the traces of the verified recording with --commit"

# ======================================================================
echo "== 3. endings"
# cap_edit IN OUT WHAT: a copy of a capture stream with its last word (END)
# replaced (end STATUS HOW) or left out (noend)
cap_edit() {
    python3 - "$@" << 'PY' || die "cannot edit $1"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
assert struct.unpack_from("<Q", d, len(d) - 8)[0] & 0xff == 11, "the stream does not end with END"
if sys.argv[3] == "noend":
    d = d[:-8]
else:
    struct.pack_into("<Q", d, len(d) - 8, 11 | int(sys.argv[4]) << 8 | int(sys.argv[5]) << 16)
open(sys.argv[2], "wb").write(d)
PY
}
cap_edit bt.cap e3.cap end 3 0
rec 3 "$TM" e3 --capture e3.cap --commit -o e3
grep -q '^ended: exit status 3$' e3.stats && [ ! -s e3.err ] || die "END status 3: $(grep ^ended e3.stats) $(cat e3.err)"
cap_edit bt.cap e11.cap end 11 1
rec 139 "$TM" e11 --capture e11.cap --commit -o e11
grep -q '^ended: killed by signal 11 (Segmentation fault)$' e11.stats || die "END signal 11: $(grep ^ended e11.stats)"
[ "$(wc -l < e11.err)" -eq 1 ] && grep -q '^tm record: the program captured in e11.cap was killed by signal 11' e11.err ||
    die "END signal 11: stderr: $(cat e11.err)"
verify "$TM" e11 "END signal 11"
ok "the END event's status is tm record's: exit status 3; killed by signal 11 -> 139 and one line"
cap_edit bt.cap noend.cap noend
rec 1 "$TM" noend --capture noend.cap --commit -o noend
[ "$(cat noend.err)" = "tm record: the capture was cut short: noend.cap ends without the frontend's end marker; the recording up to there is written and says so" ] ||
    die "no END: $(cat noend.err)"
grep -q '^recording: cut short' noend.stats && grep -q '^ended: unknown (the capture stream has no end marker)$' noend.stats ||
    die "no END: noend.stats: $(grep -E '^(recording|ended)' noend.stats)"
"$TM" dump noend.tmc | grep -q '^CUT short$' || die "no END: no CUT record in noend.tmc"
verify "$TM" noend "no END"
ok "a capture stream without END: exit 1, one line, the recording says it was cut short and verifies"
# a signal to tm record while it reads a pipe (the END never comes): the
# script holds the pipe's write end open
mkfifo sig.fifo
"$TM" record --capture - --commit -o sig < sig.fifo > sig.out 2> sig.err &
rp=$!
exec 5> sig.fifo
head -c 4000 mt.cap >&5
sleep 1
kill -TERM $rp
st=0
wait $rp || st=$?
exec 5>&-
[ $st -eq 143 ] || die "SIGTERM to tm record --capture -: exit status $st: $(cat sig.err)"
grep -q '^recording: cut by signal 15' sig.stats || die "SIGTERM: sig.stats: $(grep ^recording sig.stats)"
[ "$(wc -l < sig.err)" -eq 1 ] || die "SIGTERM: stderr: $(cat sig.err)"
sancheck sig.err "SIGTERM"
"$TM" decode --verify sig.tmc sig.tmt > sig.vout 2>&1 || die "SIGTERM: the recording does not verify: $(cat sig.vout)"
ok "SIGTERM while reading standard input: exit 143, the recording up to there, cut by signal 15, verifies"

# ======================================================================
echo "== 4. bad input"
: > empty.cap
printf 'TM T' > short.cap
head -c 4096 /dev/urandom > garbage.cap
python3 - bt.cap << 'PY' || die "cannot make the damaged captures"
import os, sys
d = open(sys.argv[1], "rb").read()
open("trunc.cap", "wb").write(d[:len(d) // 2 + 3])      # inside an event (and a word)
open("junk.cap", "wb").write(d[:8] + b"\xff" * 64)     # the magic, then no event
open("tcap1.cap", "wb").write(b"TM TCAP1" + d[8:])      # an older frontend's stream
PY
one_line 1 "^tm record: --capture nosuch.cap: No such file or directory$" x --capture nosuch.cap -o x
one_line 1 "^tm record: empty.cap: empty: not a tm capture stream$" x --capture empty.cap --commit -o x
one_line 1 "^tm record: short.cap: capture: offset 0: not a tm capture stream (4 bytes, shorter than its magic)$" x --capture short.cap -o x
one_line 1 "^tm record: garbage.cap: capture: offset 0: not a tm capture stream (bad magic)$" x --capture garbage.cap --commit -o x
one_line 1 "^tm record: standard input: capture: offset 0: not a tm capture stream (bad magic)$" x --capture - --commit -o x < garbage.cap
one_line 1 "^tm record: tcap1.cap: capture: offset 0: a capture stream of an older frontend (TM TCAP1): record it again$" \
    x --capture tcap1.cap -o x
one_line 1 "^tm record: trunc.cap: capture: offset [0-9]*: the stream ends inside an event ([0-9]* bytes of it): a truncated capture$" \
    x --capture trunc.cap --commit --cfiat -o x
one_line 1 "^tm record: junk.cap: capture: offset 8: unknown event type 255$" x --capture junk.cap --commit -o x
one_line 1 "^tm record: trunc.cap: capture: offset [0-9]*: the stream ends" x --capture trunc.cap --mode mcftrace -a -o x
one_line 2 "^tm record: --capture bt.cap: no program to run ('$P/branchtest'): the capture stream is the program's run (see tm record --help)$" \
    x --capture bt.cap -o x -- "$P/branchtest"
one_line 2 "no program to run" x --capture bt.cap -o x "$P/branchtest"
one_line 2 "^tm record: --model-thread maybe: allowed auto, yes, no" x --capture bt.cap --model-thread maybe -o x
one_line 2 "^tm record: --frontend: not with --capture" x --capture bt.cap --frontend valgrind -o x
one_line 2 "^tm record: --valgrind: not with --capture" x --capture bt.cap --valgrind valgrind -o x
one_line 2 "^tm record: --capture after --and" x -o x --and -o y --capture bt.cap
one_line 2 "^tm record: --frontend bogus: allowed valgrind, pin or qemu (see tm record --help)$" x --frontend bogus -o x -- "$P/branchtest"
( unset PIN_ROOT; one_line 2 "^tm record: --frontend pin: no Pin kit (give --pin PATH or set PIN_ROOT to a Pin 3.x kit folder)$" x \
    --frontend pin -o x -- "$P/branchtest" ) || exit 1
( export PIN_ROOT=$TMP/nokit; one_line 2 "^tm record: --frontend pin: PIN_ROOT=$TMP/nokit has no pin launcher ($TMP/nokit/pin); give --pin PATH" x \
    --frontend pin -o x -- "$P/branchtest" ) || exit 1
one_line 2 "^tm record: --pin $TMP: a folder without the pin launcher ($TMP/pin)" x --frontend pin --pin "$TMP" -o x -- "$P/branchtest"
one_line 2 "^tm record: --pin $TMP/nopin: no such program (or not an executable file)" x --frontend pin --pin "$TMP/nopin" -o x -- "$P/branchtest"
one_line 2 "^tm record: --valgrind: an option of the Valgrind frontend, not with --frontend pin (see tm record --help)$" x \
    --frontend pin --valgrind x -o x -- "$P/branchtest"
one_line 2 "^tm record: --pin $TMP: only with --frontend pin (see tm record --help)$" x --pin "$TMP" -o x -- "$P/branchtest"
one_line 2 "^tm record: --capture needs a file" x -o x --capture
# Events the capture layer cannot reconcile with what came before (issue
# 35): bt.cap with words put before its END (at offset $endoff) or after it.
endoff=$(( $(wc -c < bt.cap) - 8 ))
python3 - bt.cap << 'PY' || die "cannot make the unbalanced captures"
import struct, sys
d = open(sys.argv[1], "rb").read()
body, end = d[:-8], d[-8:]
w = lambda *x: struct.pack("<%dQ" % len(x), *x)
sysc = lambda tid, leave, no: 13 | tid << 8 | leave << 32 | no << 40
open("afterend.cap", "wb").write(d + w(3 | 1 << 8))                  # THREAD after END
open("sigret.cap", "wb").write(body + w(7 | 1 << 8) + end)             # SIGRET, no SIGNAL
open("sysleave.cap", "wb").write(body + w(sysc(1, 1, 39)) + end)       # a leave, no enter
open("sysenter2.cap", "wb").write(body + w(sysc(1, 0, 39), sysc(1, 0, 39)) + end)
open("sysother.cap", "wb").write(body + w(sysc(1, 0, 39), sysc(1, 1, 1)) + end)
PY
one_line 1 "^tm record: afterend.cap: capture: offset $((endoff + 8)): an event after the end marker (END at offset $endoff)$" x \
    --capture afterend.cap --commit -o x
one_line 1 "^tm record: sigret.cap: capture: offset $endoff: thread 1 returns from a signal handler (SIGRET) but no SIGNAL started one$" x \
    --capture sigret.cap --commit -o x
one_line 1 "^tm record: sysleave.cap: capture: offset $endoff: thread 1 leaves system call 39 without entering it$" x \
    --capture sysleave.cap --cfiat -o x
one_line 1 "^tm record: sysenter2.cap: capture: offset $((endoff + 8)): thread 1 enters system call 39 while in system call 39$" x \
    --capture sysenter2.cap --commit -o x
one_line 1 "^tm record: sysother.cap: capture: offset $((endoff + 8)): thread 1 leaves system call 1 but entered system call 39$" x \
    --capture sysother.cap --commit -o x
VALGRIND_LIB=$TM_VALGRIND_LIB valgrind --tool=tmtrace -q --tm-fd=3 --tm-mem=yes --tm-store-values=no "$P/branchtest" \
    3> nv.cap > /dev/null 2>&1
one_line 1 "^tm record: nv.cap: capture: offset [0-9]*: a store without its value (captured with --tm-store-values=no)" x \
    --capture nv.cap --commit -o x
rec "0 7" "$TM" nvm --capture nv.cap --cfiat -o nvm
cp bt.cap same.tmc
KEEP=same.tmc one_line 2 "same.tmc: the output is the input same.tmc .*(see tm record --help)$" same --capture same.tmc --commit -o same
cmp -s bt.cap same.tmc || die "--capture same.tmc -o same: the input was changed"
ok "a capture without store values: refused with --commit, fine for the model alone; an output that is the input: refused"

# ======================================================================
echo "== 5. the Pin frontend's launch, with a stand-in pin"
mkdir -p kit
# kit/pin: checks tm record's command line (rec_exec_pin) and runs the
# Valgrind tool on the same channel; FAKEPIN_FAIL=1: fails as Pin would
# before its tool runs.
cat > kit/pin << 'EOF'
#!/usr/bin/env bash
echo "$*" > "${FAKEPIN_ARGS:-/dev/null}"
[ "$1" = -logfile ] || { echo "stand-in pin: -logfile first, not: $*" >&2; exit 99; }
kitlog=$2
shift 2
[ "$1" = -t ] && [ -r "$2" ] || { echo "stand-in pin: -t TOOL, not: $*" >&2; exit 99; }
shift 2
fd="" shm="" mem="" sv="" log="" timing=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in
    -tm_fd) fd=$2 ;; -tm_shm) shm=$2 ;; -tm_mem) mem=$2 ;; -tm_store_values) sv=$2 ;; -tm_log) log=$2 ;;
    -tm_timing) timing=$2 ;;
    *) echo "stand-in pin: unknown knob $1" >&2; exit 99 ;;
    esac
    shift 2
done
shift
if [ "${FAKEPIN_FAIL:-0}" = 1 ]; then
    echo "E: the stand-in cannot start" >> "$kitlog"
    exit 3
fi
echo "tm_pin: the stand-in's tool message" >> "$log"
echo "Pin: the stand-in's own log" >> "$kitlog"
yn() { if [ "$1" = 1 ]; then echo yes; else echo no; fi; }
exec valgrind --tool=tmtrace -q --log-file="$log.vg" --tm-fd="$fd" ${shm:+--tm-shm=$shm} --tm-mem="$(yn "$mem")" \
    --tm-store-values="$(yn "$sv")" ${timing:+--tm-timing=$timing} "$@"
EOF
chmod +x kit/pin
echo "not a real Pin tool" > kit/tm_pin.so
export TM_PIN_TOOL=$TMP/kit/tm_pin.so FAKEPIN_ARGS=$TMP/pin.args VALGRIND_LIB=$TM_VALGRIND_LIB
rec 7 "$TM" fp --frontend pin --pin "$TMP/kit" --commit --cfiat -o fp -- "$P/branchtest"
[ "$(cat fp.out)" = BranchTest ] || die "--frontend pin: the program's stdout: $(cat fp.out)"
want="^-logfile $TMP/\.fp\.pin\.log\.kit\.tmp\.[^ ]* -t $TMP/kit/tm_pin\.so -tm_fd [0-9]+ -tm_shm [0-9]+,[0-9]+,8,524288 -tm_mem 1 -tm_store_values 1 -tm_timing 64/8192:2:0/8192:2:2/524288:8:4/200/31/2000/1000000 -tm_log $TMP/\.fp\.pin\.log\.tmp\.[^ ]* -- $P/branchtest\$"
grep -qE "$want" pin.args || die "--frontend pin: the pin command line: $(cat pin.args)"
[ "$(cat fp.pin.log)" = "$(printf 'tm_pin: the stand-in'"'"'s tool message\nPin: the stand-in'"'"'s own log')" ] ||
    die "fp.pin.log: $(cat fp.pin.log)"
[ -z "$(find . -maxdepth 1 -name '*fp.pin.log.kit*')" ] && [ ! -e fp.valgrind.log ] || die "--frontend pin: stray logs: $(ls -a)"
verify "$TM" fp "--frontend pin (stand-in)" data
flow_cmp exact "$P/branchtest" live fp || die "--frontend pin (stand-in): $FLOW_CMP"
ok "--frontend pin --pin KIT: $(cut -c1-60 pin.args)...; BASE.pin.log has the tool's then Pin's lines; the recording verifies; $FLOW_CMP"
( export PIN_ROOT=$TMP/kit TM_CAPTURE_PIPE=1
  rec 0 "$TM" fq --frontend pin --cfiat -o fq -- "$P/mlstest" ) || exit 1
grep -qE -- "-t $TMP/kit/tm_pin\.so -tm_fd [0-9]+ -tm_mem 1 -tm_store_values 0 -tm_timing [^ ]+ -tm_log [^ ]* -- $P/mlstest\$" pin.args ||
    die "--frontend pin, PIN_ROOT, the pipe, the model alone: $(cat pin.args)"
rec 0 "$TM" fq --frontend pin --pin "$TMP/kit/pin" -o fq -- "$P/mlstest"
grep -qE -- "-tm_mem 0 -tm_store_values 0 -tm_timing 64/8192:2:0/8192:2:2/524288:8:4/200/23/2000/1000000 " pin.args ||
    die "--frontend pin, control flow only: $(cat pin.args)"
ok "--frontend pin with PIN_ROOT, TM_CAPTURE_PIPE=1 (no -tm_shm), the model alone (-tm_store_values 0), control flow only (-tm_mem 0, the machine the tool times: -tm_timing)"
( export FAKEPIN_FAIL=1; rec 3 "$TM" ff --frontend pin --pin "$TMP/kit" -o ff -- "$P/branchtest" ) || exit 1
[ "$(cat ff.err)" = "tm record: pin: E: the stand-in cannot start (ff.pin.log)" ] || die "a Pin that fails: $(cat ff.err)"
ok "a Pin that fails before its tool: its exit status, one line from BASE.pin.log: $(cat ff.err)"
( export TM_PIN_TOOL=$TMP/kit/none.so
  one_line 1 "^tm record: the Pin tool $TMP/kit/none.so is not built (run make pin PIN_ROOT=DIR; or set TM_PIN_TOOL)$" x \
      --frontend pin --pin "$TMP/kit" -o x -- "$P/branchtest" ) || exit 1
# t_pin.sh itself (its comparisons of the two frontends' recordings), with
# the stand-in kit: every part of it but Pin
unset FAKEPIN_ARGS
mkdir -p pin_t
st=0
PIN_ROOT=$TMP/kit TM_PIN_QUICK=1 TMP=$TMP/pin_t bash "$ROOT/tests/e2e/t_pin.sh" > pin_t.log 2>&1 || st=$?
if [ $st -ne 0 ]; then
    sed 's/^/    /' pin_t.log | tail -n 20
    die "t_pin.sh with the stand-in kit: exit status $st"
fi
ok "t_pin.sh with the stand-in kit (TM_PIN_QUICK=1): $(grep -c '^ok ' pin_t.log) checks passed"
unset TM_PIN_TOOL VALGRIND_LIB

# ======================================================================
echo "== 6. flowcmp.py (t_pin.sh's comparison) on two Valgrind recordings"
# mlstest with another stack (a longer environment): the saved frame
# pointers differ, nothing else
rec 0 "$TM" ma --commit --cfiat -o ma -- "$P/mlstest"
( export TM_PAD=$(printf '%0999d' 0); rec 0 "$TM" mb --commit --cfiat -o mb -- "$P/mlstest" ) || exit 1
flow_cmp exact "$P/mlstest" ma mb || die "mlstest, two stacks: $FLOW_CMP"
case $FLOW_CMP in "same in the program's code"*) ;; *) die "mlstest, two stacks: $FLOW_CMP" ;; esac
[ "$(printf '%s' "$FLOW_CMP" | sed -n 's/.*(\([0-9]*\) loads of pointers differ).*/\1/p')" -gt 0 ] ||
    die "mlstest, two stacks: no pointer differs: $FLOW_CMP"
ok "mlstest with two stacks: $FLOW_CMP"
# the program moved in memory (as a PIE one would be): every address in its
# code, and its base in BASE.modules, 256 MB higher
python3 - "$P/mlstest" mb << 'PY' || die "cannot move mb"
import re, struct, sys
exe, b = sys.argv[1], sys.argv[2]
D = 0x10000000
segs = []
with open(exe, "rb") as f:
    h = f.read(64)
    phoff, = struct.unpack_from("<Q", h, 0x20)
    ent, num = struct.unpack_from("<HH", h, 0x36)
    f.seek(phoff)
    ph = f.read(ent * num)
for k in range(num):
    t, fl, off, va, _, _, msz, _ = struct.unpack_from("<IIQQQQQQ", ph, k * ent)
    if t == 1 and fl & 1:
        segs.append((va, va + msz))
inside = lambda a: any(lo <= a < hi for lo, hi in segs)
move = lambda m: "0x%x" % (int(m.group(0), 16) + D) if inside(int(m.group(0), 16)) else m.group(0)
with open(b + ".flow") as f, open("mm.flow", "w") as o:
    for line in f:
        if line.startswith("T"):
            line = re.sub(r"0x[0-9a-f]+", move, line.split(" @")[0]) + (" @" + line.split(" @")[1] if " @" in line else "")
        o.write(line if line.endswith("\n") else line + "\n")
with open(b + ".modules") as f, open("mm.modules", "w") as o:
    for line in f:
        a, rest = line.split(" ", 1)
        if rest.rstrip("\n").endswith(" " + exe):
            a = "0x%016x" % (int(a, 16) + D)
        o.write(a + " " + rest)
PY
FLOW_CMP=$(python3 "$ROOT/tests/e2e/flowcmp.py" exact "$P/mlstest" ma.flow ma.modules mm.flow mm.modules) ||
    die "mlstest moved by 256 MB: $FLOW_CMP"
ok "mlstest moved by 256 MB (its code and base): $FLOW_CMP"
# a flow that differs: the outcome of a branch of the program's code that
# always goes one way flipped once
python3 - ma.flow mx.flow << 'PY' || die "cannot flip a branch"
import sys
lines = open(sys.argv[1]).read().splitlines()
seen = {tuple(l.split()[2:5]) for l in lines if l.split()[1:2] == ["branch"]}
for i, l in enumerate(lines):
    f = l.split()
    if len(f) == 6 and f[1] == "branch" and f[3] == "cond" and int(f[2], 16) < 0x500000:
        f[4] = "N" if f[4] == "T" else "T"
        if tuple(f[2:5]) not in seen:
            lines[i] = " ".join(f)
            break
else:
    sys.exit("no branch of mlstest's code goes one way only")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
PY
st=0
FLOW_CMP=$(python3 "$ROOT/tests/e2e/flowcmp.py" exact "$P/mlstest" ma.flow ma.modules mx.flow ma.modules) || st=$?
[ $st -eq 1 ] && case $FLOW_CMP in T0,\ item*) true ;; *) false ;; esac || die "a flipped branch: exit $st: $FLOW_CMP"
ok "a flipped branch is found: $FLOW_CMP"
st=0
FLOW_CMP=$(python3 "$ROOT/tests/e2e/flowcmp.py" edges "$P/mlstest" ma.flow ma.modules mx.flow ma.modules) || st=$?
[ $st -eq 1 ] || die "a flipped branch, edges: exit $st: $FLOW_CMP"
# threads: mt_pthread twice (the workers start in any order; bound at load,
# LD_BIND_NOW: which thread resolves a lazy binding first is the schedule's)
for x in mt1 mt2; do
    LD_BIND_NOW=1 rec 0 "$TMFAST" $x --commit --cfiat --threads 9 -o $x -- "$P/mt_pthread" 4 join
done
TMBIN=$TMFAST flow_cmp threads "$P/mt_pthread" mt1 mt2 || die "mt_pthread, two recordings: $FLOW_CMP"
ok "mt_pthread 4 join, two recordings: $FLOW_CMP"
grep -v '^T2 ' mt2.flow > mt3.flow
st=0
FLOW_CMP=$(python3 "$ROOT/tests/e2e/flowcmp.py" threads "$P/mt_pthread" mt1.flow mt1.modules mt3.flow mt2.modules) || st=$?
[ $st -eq 1 ] || die "mt_pthread with a thread left out: exit $st: $FLOW_CMP"
ok "mt_pthread with a thread left out: $FLOW_CMP"
# pigz: its threads' interleaving decides some branches
PIGZ=$(command -v pigz) || die "pigz is not installed (make deps)"
cat "$ROOT/docs/spec.md" "$ROOT/docs/guide.md" "$ROOT/capture/capture.c" "$ROOT/cmodel/model.c" | head -c $pigz_in > in.txt
for x in pz1 pz2; do rec 0 "$TMFAST" $x --commit --cfiat --threads 16 -o $x -- "$PIGZ" "${pigz_b[@]}" -p 4 -c in.txt; done
cmp -s pz1.out pz2.out || die "pigz: the two recordings' outputs differ"
TMBIN=$TMFAST flow_cmp edges:0.95 "$PIGZ" pz1 pz2 || die "pigz, two recordings: $FLOW_CMP"
ok "pigz -p 4, two recordings: $FLOW_CMP"

echo "all tm record --capture / --frontend tests passed"
