#!/usr/bin/env bash
# tier: test
# The timing model of tm record (docs/capture.md §3, issue 17): recorded
# programs run on an N-core machine.
# 1. The project's pthreads program at N = 4 and pigz -p 4 with --cfiat:
#    the commit stream has cycles where several cores retire, it is in
#    (cycle, thread) order, and every recording replays (load values too).
# 2. pigz on the same input at 1 and 4 threads: fewer cycles at 4, more
#    bits per cycle (the direction, not a number).
# 3. Forced overflows (--buffer min --port 1) on a concurrent recording:
#    messages dropped, and the recording replays.
# 4. --timing serial (the default): one thread per cycle, as before.
# 5. A recording co-simulates (the RTL sees several cores in a cycle).
# 6. --threads auto: the .tmc header says the cores the program used; a
#    1-thread program carries no Ti bits.
# 7. Bad timing options: one line, exit 2.
# Sizes (E2E_TIER, tests/e2e/run.sh): in the regress tier pigz compresses
# 300,000 bytes in its default 128 KiB blocks, and section 3 replays three
# recordings of 200,000 random bytes in base64 from the binaries; otherwise
# 192 KiB in 64 KiB blocks (three blocks; with 32 KiB blocks 4 threads took
# up to 0.79 of the cycles of 1 on a loaded machine, against 0.5 to 0.56
# here) and two recordings of 96,000 random bytes.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
if full_size; then
    in_size=300000 pigz_b=() fb_runs=3 fb_size=200000
else
    in_size=196608 pigz_b=(-b 64) fb_runs=2 fb_size=96000
fi

# conc F.tmc: "CYCLES MULTI ORDERED" -- cycles with records, those with
# records of more than one thread, and 1 if the stream is in (cycle, tid) order.
# In one pass with the current cycle only (a dictionary of every cycle's
# threads took 5.6 GB on pigz -p 4), in awk (Python took 3 times as long over
# the 48 M lines of pigz -p 4's dump).  A cycle has records of several
# threads iff the tid changes within it (n > 1), in any order.
conc() {
    "$TMFAST" dump "$1" | awk '
BEGIN { lc = -1; lt = -1; cur = -1; ok = 1; cycles = 0; multi = 0; n = 0 }
$1 ~ /^c=/ && $2 ~ /^t=/ {
    c = substr($1, 3) + 0; t = substr($2, 3) + 0
    if (c < lc || (c == lc && t < lt)) ok = 0
    if (c != cur) { multi += n > 1; cycles++; cur = c; n = 0; pt = -1 }
    if (t != pt) { n++; pt = t }
    lc = c; lt = t
}
END { multi += n > 1; print cycles, multi, ok }'
}
# field F.stats WHAT: the number after "WHAT" on the bandwidth line
bw() { sed -n "s|^bandwidth:.*[ (]\([0-9.]*\) $2.*|\1|p" "$1" | head -n 1; }
cycles_of() { sed -n 's/^bandwidth: .*(\([0-9]*\) execution cycles.*/\1/p' "$1"; }

echo "== 1. several cores retire in one cycle; the recordings replay"
"$TMFAST" record --timing cores --cfiat --commit -o pt -- "$P/mt_pthread" 4 > /dev/null || die "tm record mt_pthread 4"
read -r nc multi ord < <(conc pt.tmc)
[ "$ord" = 1 ] || die "mt_pthread: the commit stream is not in (cycle, thread) order"
[ "$multi" -gt 0 ] || die "mt_pthread 4: no cycle with more than one thread ($nc cycles)"
"$TMFAST" decode --verify pt.tmc pt.tmt > v.out || die "mt_pthread: $(cat v.out)"
ok "mt_pthread 4 --cfiat: $multi of $nc cycles with several cores; $(cut -c1-100 v.out)"
# Each core's IPC on its own line; they add up to the module's.
python3 - pt.stats <<'PY' || die "mt_pthread: the per-core IPC line: $(grep '^timing' pt.stats)"
import re, sys
st = open(sys.argv[1]).read()
total = float(re.search(r"^timing: \d+ cycles, IPC ([0-9.]+);", st, re.M).group(1))
cores = re.findall(r" T(\d+) (\d+) instructions IPC ([0-9.]+)", re.search(r"^timing per core:(.*)$", st, re.M).group(1))
threads = int(re.search(r"^capture: .* (\d+) threads,", st, re.M).group(1))
assert [int(c[0]) for c in cores] == list(range(threads)), cores
assert abs(sum(float(c[2]) for c in cores) - total) <= 0.0005 * (len(cores) + 1), (total, cores)
assert min(int(c[1]) for c in cores) > 0, cores
PY
ok "mt_pthread: $(grep '^timing per core' pt.stats | cut -c1-120)"
head -c $in_size "$TMFAST" > in.bin
for n in 1 4; do
    "$TMFAST" record --timing cores --cfiat --commit -o z$n -- pigz "${pigz_b[@]}" -p $n -c in.bin > z$n.gz || die "tm record pigz -p $n"
    pigz -dc z$n.gz | cmp -s - in.bin || die "pigz -p $n: output differs under tm record"
    "$TMFAST" decode --verify z$n.tmc z$n.tmt > v.out || die "pigz -p $n: $(cat v.out)"
done
read -r nc multi ord < <(conc z4.tmc)
[ "$ord" = 1 ] && [ "$multi" -gt 0 ] || die "pigz -p 4: order $ord, $multi cycles with several cores"
ok "pigz -p 4 --cfiat: $multi of $nc cycles with several cores; replays"
grep -q '^timing: cores, CPI 1.000' z4.stats || die "z4.stats has no timing line: $(grep timing z4.stats)"

echo "== 2. pigz at 4 threads: fewer cycles, more bits per cycle than at 1"
c1=$(cycles_of z1.stats); c4=$(cycles_of z4.stats)
b1=$(bw z1.stats bits/cycle); b4=$(bw z4.stats bits/cycle)
[ -n "$c1" ] && [ -n "$c4" ] && [ "$c4" -lt $(( c1 * 3 / 4 )) ] || die "cycles: $c1 at 1 thread, $c4 at 4"
python3 -c "import sys; sys.exit(0 if float('$b4') > float('$b1') else 1)" || die "bits/cycle: $b1 at 1, $b4 at 4"
ok "pigz: $c1 cycles at 1 thread, $c4 at 4; $b1 -> $b4 bits/cycle"

echo "== 3. forced overflows on a concurrent recording"
"$TMFAST" record --timing cores --cfiat --commit --buffer min --port 1 -o ov -- pigz "${pigz_b[@]}" -p 4 -c in.bin > /dev/null || die "tm record --buffer min"
grep -qE 'dropped [1-9][0-9]* messages' ov.stats || die "no message dropped: $(grep buffer: ov.stats)"
"$TMFAST" decode --verify ov.tmc ov.tmt > v.out || die "forced overflows: $(cat v.out)"
ok "--buffer min --port 1: $(grep -o 'dropped [0-9]* messages' ov.stats); replays"
# The replay from the binaries too: with several cores offering in a cycle, a
# thread's start is dropped and its first message is a resynchronization
# with an empty gap, which --from-binary --verify took for a divergence
# ("the replay has plain instructions"; 3 of 5 recordings before the fix).
head -c $fb_size /dev/urandom | base64 > b64.txt
for i in $(seq $fb_runs); do
    "$TMFAST" record --timing cores --config large --encoding tr_b --cfiat --commit -o fb$i -- pigz "${pigz_b[@]}" -p 4 -c b64.txt \
        > /dev/null || die "tm record pigz ($i)"
    "$TMFAST" model -q --encoding tr_e --cfiat --buffer min --port 1 fb$i.tmc -o fb$i.x.tmt || die "tm model ($i)"
    cp fb$i.modules fb$i.x.modules
    "$TMFAST" decode --from-binary --verify fb$i.tmc --tmc fb$i.tmc fb$i.x.tmt > fb.out 2> /dev/null ||
        die "--from-binary --verify of a forced-overflow recording ($i): $(tail -n 1 fb.out)"
done
ok "--from-binary --verify of $fb_runs forced-overflow recordings of pigz -p 4"

echo "== 4. --timing serial: one thread per cycle"
"$TMFAST" record --timing serial --commit -o se -- "$P/mt_pthread" 4 > /dev/null || die "tm record --timing serial"
read -r nc multi ord < <(conc se.tmc)
[ "$multi" -eq 0 ] && [ "$ord" = 1 ] || die "--timing serial: $multi cycles with several threads"
grep -q '^timing: serial' se.stats || die "se.stats: $(grep timing se.stats)"
"$TM" decode --verify se.tmc se.tmt > /dev/null || die "--timing serial: replay"
ok "--timing serial: $nc cycles, one thread each"

echo "== 5. a recording co-simulates"
"$TMFAST" record --timing cores --commit -o cs -- "$P/mt_pthread" 2 > /dev/null || die "tm record mt_pthread 2"
"$TMFAST" cosim cs.tmc > cs.out 2>&1 || die "tm cosim: $(tail -n 5 cs.out)"
grep -q '^PASS: ' cs.out || die "tm cosim: $(cat cs.out)"
ok "tm cosim: $(head -c 150 cs.out)"

echo "== 6. --threads auto: as many cores as the program ran threads"
head -c 100000 in.bin > in1.bin
"$TMFAST" record --timing cores --threads auto --commit -o a1 -- gzip -c in1.bin > /dev/null || die "tm record --threads auto gzip"
"$TMFAST" record --timing cores --threads 8 --commit -o a8 -- gzip -c in1.bin > /dev/null || die "tm record --threads 8 gzip"
"$TMFAST" dump a1.tmc | head -n 1 | grep -q 'threads=1$' || die "a1.tmc: $("$TMFAST" dump a1.tmc | head -n 1)"
grep -q ' 1 threads,' a1.stats || die "a1.stats: $(grep config: a1.stats)"
"$TM" decode --verify a1.tmc a1.tmt > /dev/null || die "--threads auto: gzip does not replay"
b1=$(bw a1.stats bits/instruction); b8=$(bw a8.stats bits/instruction)
python3 -c "import sys; sys.exit(0 if float('$b1') < float('$b8') else 1)" || die "bits/instruction: $b1 (auto) vs $b8 (8 cores)"
"$TMFAST" record --timing cores --threads auto --cfiat --commit -o a5 -- "$P/mt_pthread" 4 > /dev/null || die "tm record --threads auto mt_pthread"
"$TMFAST" dump a5.tmc | head -n 1 | grep -q 'threads=5$' || die "a5.tmc: $("$TMFAST" dump a5.tmc | head -n 1)"
"$TMFAST" decode --verify a5.tmc a5.tmt > /dev/null || die "--threads auto: mt_pthread 4 does not replay"
ls .a*.spool* a*.spool.tmc 2> /dev/null && die "a spool was left behind"
ok "--threads auto: gzip 1 core ($b1 bits/instruction, $b8 with 8), mt_pthread 4 five cores; both replay"

echo "== 7. bad timing options"
record_rejects "--timing fast" "--timing cores --cpi 0" "--cpi 1.0005" "--timing cores --l1 3000" "--timing cores --l1 8K:3" "--timing cores --l2 1K:32" "--mem-latency -1" \
           "--timing-window 0" "--timing serial --cpi 2" "--threads auto --mode mcftrace" "--threads auto -f 1"
echo "== 8. the default: cores; serial with --mode, unless a cores option is given"
for v in ":cores" "--mode mcftrace:serial" "--mode mcftrace --cpi 2:cores" "--mode mcftrace --timing cores:cores" "--timing serial:serial"; do
    opts=${v%:*}; want=${v##*:}
    rm -f d.stats
    # shellcheck disable=SC2086
    "$TMFAST" record $opts -o d -- "$P/spin" 1 > /dev/null 2> o.err || die "tm record $opts: $(head -n 1 o.err)"
    grep -q "^timing: $want" d.stats || die "tm record $opts: $(grep '^timing:' d.stats | head -n 1), not $want"
    ok "tm record ${opts:-(no timing option)}: timing $want"
done
echo "all timing cases passed"
