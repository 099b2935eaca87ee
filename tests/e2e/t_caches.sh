#!/usr/bin/env bash
# tier: check
# The paper's caches in every recording (docs/capture.md §3, issue 34),
# timed by the frontend (the timing model's frontend half).
# 1. One single-thread program recorded twice: by default and with
#    --no-caches.  The commit streams are the same but for the cycles;
#    --no-caches gives each group n x CPI 1 after the previous, at least 1
#    (one thread: no wait); the default gives more, and the statistics and
#    the JSON "machine" say which machine.  A capture the tool wrote itself
#    with the default machine (--tm-timing) gives the live recording's
#    cycles (within 2%: the program's environment differs a little) through
#    tm record --capture.
# 2. A live default recording replays, and its JSON says so; tm model's
#    JSON has "machine": null.
# 3. Bad cache options: one line, exit 2.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1

echo "== 1. with and without the caches"
"$TMFAST" record --commit -o d -- "$P/spin" 1 > /dev/null 2> d.err || die "tm record: $(cat d.err)"
"$TMFAST" record --no-caches --commit -o nc -- "$P/spin" 1 > /dev/null 2> nc.err || die "tm record --no-caches: $(cat nc.err)"
"$TMFAST" dump d.tmc | sed -E 's/^c=[0-9]+ //' > d.dump
"$TMFAST" dump nc.tmc | sed -E 's/^c=[0-9]+ //' > nc.dump
cmp -s d.dump nc.dump || die "the commit streams differ beyond the cycles: $(diff d.dump nc.dump | head -n 4)"
# --no-caches: one thread, CPI 1: each group n cycles after the previous, at least 1
bad=$("$TMFAST" dump nc.tmc | awk '
function check() { want = acc + n > nxt ? acc + n : nxt; if (want != cur) bad++; acc = want; nxt = want + 1 }
$1 ~ /^c=/ {
    c = substr($1, 3) + 0
    if (!started || c != cur) { if (started) check(); cur = c; n = 0; started = 1 }
    if ($3 == "RUN") { split($4, a, "="); n += a[2] } else if ($3 == "BRANCH") n++
}
END { if (started) check(); print bad + 0 }')
[ "$bad" = 0 ] || die "--no-caches: $bad groups not at the cycle of the model without caches"
cd_=$(sed -n 's/^timing: \([0-9]*\) cycles.*/\1/p' d.stats); cnc=$(sed -n 's/^timing: \([0-9]*\) cycles.*/\1/p' nc.stats)
[ -n "$cd_" ] && [ -n "$cnc" ] && [ "$cd_" -gt "$cnc" ] || die "cycles: $cd_ with the caches, $cnc without"
grep -q '^timing: cores, CPI 1.000; L1I 8192 B 2-way 0 cycles, L1 8192 B 2-way 2 cycles, .*; order: loads after the stores they read; data addresses: addresses$' d.stats ||
    die "d.stats: $(grep '^timing: cores' d.stats)"
grep -q '^timing: cores, CPI 1.000; no L1I, no L1 data, no caches (IPC 1/CPI); order: loads after the stores they read; data addresses: addresses$' nc.stats ||
    die "nc.stats: $(grep '^timing: cores' nc.stats)"
python3 - d.json nc.json <<'PY' || die "the JSON machine objects"
import json, sys
keys = {"timing", "untimed_capture", "cpi", "line", "icache", "l1", "l2", "memory_latency", "data_addresses", "order",
        "cycles", "ipc", "ipc_per_core", "icache_hit_rate", "l1_hit_rate", "l2_hit_rate", "cores", "waits"}
d, nc = (json.load(open(f)) for f in sys.argv[1:])
md, mn = d["machine"], nc["machine"]
assert set(md) == keys and set(mn) == keys, (sorted(md), sorted(mn))
assert md["timing"] == "cores" and md["cpi"] == 1.0 and md["line"] == 64, md
assert md["icache"] == {"size": 8192, "ways": 2, "latency": 0}, md["icache"]
assert md["l1"] == {"size": 8192, "ways": 2, "latency": 2}, md["l1"]
assert md["l2"] == {"size": 8 * 65536, "ways": 8, "latency": 4} and md["memory_latency"] == 200, md
assert md["data_addresses"] == "addresses" and md["order"] == "store", md
assert all(0 < md[k] <= 1 for k in ("icache_hit_rate", "l1_hit_rate", "l2_hit_rate")), md
assert md["cycles"] == d["execution_cycles"], (md["cycles"], d["execution_cycles"])
assert abs(md["ipc"] - d["instructions"] / d["execution_cycles"]) < 1e-4, (md["ipc"], d["execution_cycles"])
assert len(md["ipc_per_core"]) == 1 and abs(md["ipc_per_core"][0] - md["ipc"]) < 1e-4, md
for m in (md, mn):
    c = m["cores"][0]["cycles"]
    assert sum(v for k, v in c.items() if not k.startswith("data_")) == m["cycles"], c
assert md["cores"][0]["cycles"]["ifetch"] > 0 and md["cores"][0]["cycles"]["data"] > 0, md["cores"]
assert mn["cores"][0]["cycles"]["ifetch"] == 0 and mn["cores"][0]["cycles"]["data"] == 0, mn["cores"]
assert mn["icache"] is None and mn["l1"] is None and mn["l2"] is None and mn["memory_latency"] is None, mn
assert mn["data_addresses"] == "addresses" and mn["l1_hit_rate"] is None, mn  # the order uses them
assert md["untimed_capture"] is False and mn["untimed_capture"] is False, (md, mn)
assert md["ipc"] < mn["ipc"] <= 1.0, (md["ipc"], mn["ipc"])
print(f"IPC {md['ipc']:.3f} with the caches, {mn['ipc']:.3f} without")
PY
# the tool's own capture of the default machine: the same cycles through --capture
VALGRIND_LIB=$B/lib/valgrind valgrind --tool=tmtrace -q --tm-fd=3 --tm-timing=64/8192:2:0/8192:2:2/524288:8:4/200/23/2000/1000000 \
    --fair-sched=yes "$P/spin" 1 3> s.cap > /dev/null 2> vg.err || die "valgrind --tm-timing: $(head -n 3 vg.err)"
"$TMFAST" record --commit --capture s.cap -o c > /dev/null 2> c.err || die "tm record --capture: $(cat c.err)"
cc_=$(sed -n 's/^timing: \([0-9]*\) cycles.*/\1/p' c.stats)
grep '^timing: cores' c.stats | cmp -s - <(grep '^timing: cores' d.stats) && [ -n "$cc_" ] &&
    [ $((cc_ > cd_ ? cc_ - cd_ : cd_ - cc_)) -le $((cd_ / 50)) ] ||
    die "the capture's recording is not the live one's machine and cycles: $(grep '^timing: [0-9]' c.stats d.stats)"
ok "spin 1: the same commit stream but for the cycles ($cd_ with the caches, $cnc without); the tool's own capture: $cc_"

echo "== 2. a live default recording"
"$TMFAST" record --commit -o live -- "$P/mt_pthread" 2 > /dev/null 2> live.err || die "tm record: $(cat live.err)"
grep -q '; order: loads after the stores they read; data addresses: addresses$' live.stats || die "live.stats: $(grep '^timing: cores' live.stats)"
"$TMFAST" decode --verify live.tmc live.tmt > v.out || die "the default recording does not replay: $(cat v.out)"
python3 -c "
import json; m = json.load(open('live.json'))['machine']
assert m['data_addresses'] == 'addresses' and m['l1'] and m['icache'] and len(m['ipc_per_core']) == 3, m
assert abs(sum(m['ipc_per_core']) - m['ipc']) < 1e-4, m
assert all(sum(v for k, v in c['cycles'].items() if not k.startswith('data_')) == m['cycles'] for c in m['cores']), m['cores']
assert m['waits']['clamped'] == 0, m['waits']" || die "live.json: $(grep machine live.json)"
"$TMFAST" model -q live.tmc -o m.tmt --stats m.json > /dev/null 2>&1 || die "tm model"
grep -q '"machine": null,' m.json || die "tm model's JSON: $(grep machine m.json)"
ok "mt_pthread 2: timed, replays, each core's cycles add up; $(grep '^timing: [0-9]' live.stats | cut -c1-60)"

echo "== 3. bad cache options"
record_rejects "--l1i 3000" "--l1i 8K:3" "--l1i 0" "--no-icache --l1i 8K" "--no-caches --l1i 4K" "--timing serial --no-caches" \
           "--timing serial --no-icache" "--timing serial --l1i 8K"
echo "all cache cases passed"
