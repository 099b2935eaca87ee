#!/usr/bin/env bash
# tier: test
# tm pt end to end: Intel PT written with libipt's encoder from real
# recordings, proved by libipt's instruction decoder against the commit
# stream (docs/pt.md).
# 1. Real programs under tm record --threads 8 --commit: pigz -p 4 and
#    xz -T4 --block-size=32KiB on ~300 KB of generated text, and the project's
#    mt_pthread, mt_omp, signals (exceptions) and forkwork (when it records):
#    tm pt IN.tmc -o BASE --verify exits 0 with "verify: ok".  The small
#    programs run in the sanitizer build (TM), pigz and xz in TMFAST; xz is
#    recorded and verified in the background while the rest runs.
#    -q: the verdict in the exit status alone.
# 2. Option variants on the pigz recording all verify (--tnt long,
#    --no-retcomp, --psb-period 256, --timing all, --timing tsc,mtc
#    --mtc-period 4, --timing tsc,mtc), and their statistics show the option
#    (with --tnt long, a flush of 6 branches or fewer is still a short TNT).
# 3. Damaged buffers (sanitizer build): bytes overwritten in the middle of the
#    largest buffer, a buffer cut to half, a core's buffer deleted: --check
#    exits 1 with one line naming the core; random damage to a small
#    recording's buffers: exit 0 or 1, one line, never a crash.
# 4. Bad input: a missing module map, tm gen streams with and without
#    --no-image, bad options (exit 2), a truncated .tmc (exit 1, nothing left
#    in the output folder), a nonexistent input: one line each.
# 5. --stats with --compare: the JSON's keys, the rows (PT's three, then each
#    encoding of tm config --list-encodings without and with time stamps), and
#    its counts against tm dump --count, tm decode --verify and the other runs.
# 6. --decode and --decode --block count what --verify checked.
# 7. Stale buffers of an earlier run with the same BASE do not make --verify
#    of a correct encoding fail (the bug this caught: -o BASE left the
#    BASE.T<n>.pt of cores that did not run this time, and --verify read
#    every BASE.T<n>.pt there was).
# Sizes (E2E_TIER, tests/e2e/run.sh): in the regress tier pigz and xz -6
# compress 300 KB; otherwise 128 KB, pigz in 32 KiB blocks (four, one per
# thread) and xz -1 (at -6 each of xz's block threads spends tens of
# millions of instructions setting up its match finder).
# The script prints its wall and CPU time (about 100 s and 85 s on 2 cores
# in the regress tier); speed is measured by make bench, not checked here.
# Long runs print "tm pt: NM records" progress lines on stderr (every 2^22
# records, at most every 5 s, even with -q); the one-line checks do not
# count those.  The first failure of a setup step ends the script; the
# checks go on and are counted.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
cd "$TMP" || exit 1
start=$(date +%s)
if full_size; then in_size=307200 pigz_b=() xz_l=(); else in_size=131072 pigz_b=(-b 32) xz_l=(-1); fi

for p in mt_pthread mt_omp signals forkwork; do
    [ -x "$P/$p" ] || die "$P/$p is not built (make BUILD=$B programs)"
done
[ -x "$TM_VALGRIND_LIB/tmtrace-amd64-linux" ] || die "$TM_VALGRIND_LIB/tmtrace-amd64-linux is not built"
command -v pigz > /dev/null && command -v xz > /dev/null || die "pigz and xz are needed"

# The background job (xz): ended if the script stops early.
bg=""
trap 'if [ -n "$bg" ]; then kill "$bg" 2> /dev/null; fi' EXIT

# rec BASE PROG ARGS: tm record (TMFAST) with 8 threads and a commit
# stream; stdout to BASE.out.
rec() {
    local base=$1 st=0
    shift
    "$TMFAST" record --threads 8 --commit -o "$base" -- "$@" > "$base.out" 2> "$base.rerr" || st=$?
    [ $st -eq 0 ] && [ -s "$base.tmc" ] || { tail -n 5 "$base.rerr"; die "tm record $*: exit status $st"; }
}

# pt TMBIN NAME ARGS: tm pt ARGS, stdout NAME.out, stderr NAME.err; $st is
# its exit status; a sanitizer report ends the script.
pt() {
    local tm=$1 name=$2
    shift 2
    st=0
    "$tm" pt "$@" > "$name.out" 2> "$name.err" || st=$?
    sancheck "$name.err" "tm pt $*"
}

# errlines FILE: the lines of FILE that are not progress lines.
errlines() { grep -cvE '^tm pt: [0-9]+M records$' "$1"; }
errline() { grep -vE '^tm pt: [0-9]+M records$' "$1" | head -n 1; }

# one WANT-STATUS ERE WHAT TMBIN ARGS: tm pt ARGS must exit WANT-STATUS with
# exactly one line on stderr matching ERE; on exit status 2 nothing on
# stdout.  Returns 1 (after fail) otherwise.
one() {
    local want=$1 ere=$2 what=$3 tm=$4
    shift 4
    pt "$tm" one "$@"
    if [ $st -ne "$want" ]; then
        fail "$what: tm pt $*: exit status $st, wanted $want: $(head -c 400 one.err)"
        return 1
    fi
    if [ "$(errlines one.err)" -ne 1 ]; then
        fail "$what: tm pt $*: not one line on stderr: $(head -c 600 one.err)"
        return 1
    fi
    if ! errline one.err | grep -qE -- "$ere"; then
        fail "$what: tm pt $*: '$(errline one.err)' does not match '$ere'"
        return 1
    fi
    if [ "$want" -eq 2 ] && [ -s one.out ]; then
        fail "$what: tm pt $*: wrote to stdout on a usage error"
        return 1
    fi
    return 0
}

# verified TMBIN BASE WHAT ARGS: tm pt BASE.tmc -o BASE --verify ARGS must
# exit 0 and print "verify: ok"; sets $vn (instructions) and $vc (cores).
verified() {
    local tm=$1 base=$2 what=$3
    shift 3
    pt "$tm" "$base.pt" "$base.tmc" -o "$base" --verify "$@"
    vn=$(sed -n 's/^verify: ok, \([0-9]*\) instructions of \([0-9]*\) cores .*/\1/p' "$base.pt.out")
    vc=$(sed -n 's/^verify: ok, \([0-9]*\) instructions of \([0-9]*\) cores .*/\2/p' "$base.pt.out")
    if [ $st -ne 0 ] || [ -z "$vn" ]; then
        fail "$what: tm pt --verify $*: exit status $st: $(errline "$base.pt.err")"
        return 1
    fi
    return 0
}

# count FILE.tmc KEY: a total of tm dump --count.
count() { "$TMFAST" dump --count "$1" | sed -n "s/^ *$2: \([0-9]*\).*/\1/p"; }

# The input: ~300 KB (or 128 KB) of text-like lines.
python3 - $in_size << 'PY'
import random, sys
size = int(sys.argv[1])
r = random.Random(11)
words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9))) for _ in range(3000)]
out, n = [], 0
while n < size:
    line = " ".join(r.choice(words) for _ in range(12)) + " %d\n" % r.randint(0, 10**6)
    out.append(line)
    n += len(line)
open("input", "w").write("".join(out)[:size])
PY

# ======================================================================
# 1. Real programs
# ======================================================================
echo "== 1. real programs: tm pt --verify"
# xz (the longest: ~20 s to record, ~30 s to encode and verify) in the
# background.
"$TMFAST" record --threads 8 --commit -o xz -- xz -T4 "${xz_l[@]}" --block-size=32KiB -c input > xz.out 2> xz.rerr &
bg=$!

rec pigz pigz "${pigz_b[@]}" -p 4 -c input
pigz -dc pigz.out | cmp -s - input || die "pigz under tm record: the output does not decompress to the input"
# (sections 2, 3, 5 and 6 use its buffers)
verified "$TMFAST" pigz "pigz -p 4" || die "pigz: no verified buffers"
[ "$vc" -gt 2 ] && ok "pigz -p 4: verify: ok, $vn instructions on $vc cores" || fail "pigz -p 4: only $vc cores"
pigz_n=$vn

for p in mt_pthread mt_omp signals; do
    rec "$p" "$P/$p"
    if verified "$TM" "$p" "$p" --stats "$p.json"; then
        want=2
        [ $p = signals ] && want=1
        [ "$vc" -ge $want ] && ok "$p (sanitizer build): verify: ok, $vn instructions on $vc cores" ||
            fail "$p: $vc cores"
    fi
done
# signals: the exceptions are in the commit stream and in PT (FUP + TIP.PGD).
nexc=$(count signals.tmc exceptions)
pexc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"]["exceptions"])' signals.json)
[ "${nexc:-0}" -gt 0 ] && [ "$pexc" = "$nexc" ] &&
    ok "signals: $nexc exceptions in the commit stream, $pexc encoded, verified" ||
    fail "signals: $nexc exceptions in the commit stream, $pexc in PT's statistics"

# -q: no report, the verdict in the exit status.
pt "$TM" q mt_pthread.tmc -o q --verify -q
[ $st -eq 0 ] && [ ! -s q.out ] && [ ! -s q.err ] && ok "mt_pthread -q --verify: exit 0, nothing on stdout or stderr" ||
    fail "mt_pthread -q --verify: exit status $st, stdout '$(head -c 100 q.out)', stderr '$(head -c 200 q.err)'"

# forkwork: if its recording works (the parent's stream).
ref=$("$P/forkwork")
fst=0
"$TMFAST" record --threads 8 --commit -o forkwork -- "$P/forkwork" > forkwork.out 2> forkwork.rerr || fst=$?
if [ $fst -ne 0 ] || [ "$(cat forkwork.out)" != "$ref" ]; then
    echo "skip forkwork: tm record exit status $fst, or its output changed: $(tail -n 1 forkwork.rerr)"
elif verified "$TM" forkwork "forkwork"; then
    ok "forkwork (sanitizer build): verify: ok, $vn instructions on $vc cores"
fi

# ======================================================================
# 2. Option variants on the pigz recording
# ======================================================================
echo "== 2. option variants (pigz)"
# variant NAME CHECK(python expression on the stats dict d) ARGS
variant() {
    local name=$1 expr=$2
    shift 2
    if verified "$TMFAST" pigz "pigz $*" --stats "v_$name.json" "$@"; then
        if [ "$vn" != "$pigz_n" ]; then
            fail "pigz $*: $vn instructions verified, $pigz_n without options"
        elif python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if ($expr) else 1)" "v_$name.json"; then
            ok "pigz $*: verify: ok ($(python3 -c 'import json,sys; print("%.4f" % json.load(open(sys.argv[1]))["bpi"])' "v_$name.json") bits/instruction)"
        else
            fail "pigz $*: the statistics do not show the option ($expr)"
        fi
    fi
}
o='d["options"]'
k='d["packets"]'
variant tnt "${o}['tnt'] == 'long' and ${k}['tnt64']['count'] > 0 and ${k}['tnt64']['count'] > ${k}['tnt8']['count']" --tnt long
variant noret "${o}['retcomp'] is False and d['events']['ret_compressed'] == 0 and d['events']['ret'] > 0" --no-retcomp
variant psb "${o}['psb_period'] == 256 and d['events']['psb'] > 1000" --psb-period 256
variant all "${o}['timing'] == 'tsc,mtc,cyc' and min(${k}[x]['count'] for x in ('tsc', 'mtc', 'cyc')) > 0" --timing all
variant mtc4 "${o}['timing'] == 'tsc,mtc' and ${o}['mtc_period_log2'] == 4 and ${k}['mtc']['count'] > 0 and ${k}['cyc']['count'] == 0" \
    --timing tsc,mtc --mtc-period 4
variant mtc "${o}['timing'] == 'tsc,mtc' and ${o}['mtc_period_log2'] == 8 and ${k}['cyc']['count'] == 0" --timing tsc,mtc
# the plain encoding again, for the sections below
verified "$TMFAST" pigz "pigz (again)" || die "pigz: no verified buffers"

# xz: recorded by now?  Its PT in the background too.
wait "$bg"
xst=$?
bg=""
[ $xst -eq 0 ] && [ -s xz.tmc ] || { tail -n 5 xz.rerr; die "tm record xz: exit status $xst"; }
xz -dc xz.out | cmp -s - input || die "xz under tm record: the output does not decompress to the input"
"$TMFAST" pt xz.tmc -o xz --verify > xz.pt.out 2> xz.pt.err &
bg=$!

# ======================================================================
# 3. Damaged buffers (the sanitizer build)
# ======================================================================
echo "== 3. damaged buffers: tm pt --check"
pt "$TM" chk --check pigz.tmc pigz
[ $st -eq 0 ] && grep -q "^verify: ok, $pigz_n instructions" chk.out &&
    ok "--check on the intact buffers: $(cat chk.out)" || fail "--check on the intact buffers: exit status $st: $(errline chk.err)"

# fresh DIR: a copy of the pigz buffers as DIR/p.T<n>.pt.
fresh() {
    rm -rf "$1"
    mkdir "$1"
    for f in pigz.T*.pt; do cp "$f" "$1/p.${f#pigz.}"; done
}
big=$(ls -S pigz.T*.pt | head -n 1)
core=${big#pigz.T}
core=${core%.pt}
size=$(stat -c %s "$big")
fresh c1
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of="c1/p.T$core.pt" bs=1 seek=$((size / 2)) conv=notrunc status=none
cmp -s "$big" "c1/p.T$core.pt" && die "dd did not change c1/p.T$core.pt"
one 1 "core ${core}[:,].*(packet offset 0x|instruction [0-9])" "8 bytes overwritten at $((size / 2)) of $big" \
    "$TM" --check pigz.tmc c1/p && ok "overwritten bytes in the middle of core $core's buffer: $(errline one.err | cut -c1-160)"

fresh c2
head -c $((size / 2)) "$big" > "c2/p.T$core.pt"
one 1 "core ${core}[:,].*(packet offset 0x|instruction [0-9])" "$big cut to half" "$TM" --check pigz.tmc c2/p &&
    ok "core $core's buffer cut to half: $(errline one.err | cut -c1-160)"

fresh c3
small=$(ls -S pigz.T*.pt | tail -n 1)
gone=${small#pigz.T}
gone=${gone%.pt}
rm "c3/p.T$gone.pt"
one 1 "(thread|core) ${gone}[^0-9]" "core $gone's buffer deleted" "$TM" --check pigz.tmc c3/p &&
    ok "core $gone's buffer deleted: $(errline one.err)"

# Random damage to the signals buffers: flipped bits, overwritten and zeroed
# bytes, cuts.  Exit status 0 (a don't-care bit) or 1 with one line naming
# the core and a packet offset; no sanitizer report; most detected.
python3 - << 'PY'
import os, random
r = random.Random(3)
src = sorted(f for f in os.listdir('.') if f.startswith('signals.T') and f.endswith('.pt'))
for i in range(16):
    d = 'r%d' % i
    os.makedirs(d, exist_ok=True)
    for f in src:
        open(os.path.join(d, 's' + f[len('signals'):]), 'wb').write(open(f, 'rb').read())
    f = r.choice(src)
    b = bytearray(open(f, 'rb').read())
    k = i % 4
    p = r.randrange(len(b))
    if k == 0:
        b[p] ^= 1 << r.randrange(8)
    elif k == 1:
        b[p:p + 8] = bytes(r.randrange(256) for _ in range(8))[:len(b) - p]
    elif k == 2:
        b[p:p + 32] = bytes(len(b[p:p + 32]))
    else:
        b = b[:p]
    open(os.path.join(d, 's' + f[len('signals'):]), 'wb').write(b)
PY
det=0
bad=""
for i in $(seq 0 15); do
    pt "$TM" rnd --check signals.tmc "r$i/s"
    if [ $st -eq 1 ]; then
        if [ "$(errlines rnd.err)" -eq 1 ] && errline rnd.err | grep -qE 'core [0-9]+.*(packet offset 0x|instruction [0-9])'; then
            det=$((det + 1))
        else
            bad="r$i: $(head -c 300 rnd.err)"
        fi
    elif [ $st -ne 0 ]; then
        bad="r$i: exit status $st: $(head -c 300 rnd.err)"
    fi
done
[ -z "$bad" ] && [ $det -ge 12 ] && ok "random damage to signals' buffers: $det of 16 detected, one line each, no crash" ||
    fail "random damage: $det of 16 detected; $bad"

# ======================================================================
# 4. Bad input
# ======================================================================
echo "== 4. bad input"
mkdir nomap
cp mt_pthread.tmc nomap/
one 1 "module map" "no module map" "$TM" nomap/mt_pthread.tmc -o nomap/x &&
    ok "no module map: exit 1: $(errline one.err)"
ls nomap/x.T*.pt > /dev/null 2>&1 && fail "no module map: buffers written"

mkdir gen
"$TM" gen --threads 4 --insns 200K --seed 3 -o gen/g.tmc 2> gen.err || die "tm gen: $(cat gen.err)"
pt "$TM" gen --no-image gen/g.tmc -o gen/g
[ $st -eq 0 ] && [ -s gen/g.T0.pt ] && [ ! -s gen.err ] &&
    ok "tm gen stream with --no-image: exit 0, $(ls gen/g.T*.pt | wc -l) buffers" ||
    fail "tm gen stream with --no-image: exit status $st: $(head -c 300 gen.err)"
rm -f gen/g.T*.pt
one 1 "module map" "tm gen stream without --no-image" "$TM" gen/g.tmc -o gen/g &&
    ok "tm gen stream without --no-image: exit 1: $(errline one.err)"
one 2 "no-image" "--no-image --verify" "$TM" gen/g.tmc -o gen/g --no-image --verify &&
    ok "--no-image --verify: exit 2: $(errline one.err)"
ls gen/g.T*.pt > /dev/null 2>&1 && fail "tm gen stream: buffers left by the failed runs"

mkdir bo
for a in "--psb-period 10|--psb-period" "--tnt medium|--tnt" "--timing foo|--timing" "--mtc-period 30|--mtc-period" \
         "--mtc-period 0|--mtc-period" "--frobnicate|unknown option" "--block|--block"; do
    opt=${a%%|*}
    # shellcheck disable=SC2086
    one 2 "${a#*|}" "$opt" "$TM" mt_pthread.tmc -o bo/x $opt && ok "$opt: exit 2: $(errline one.err)"
done
one 2 "-o BASE" "no -o" "$TM" mt_pthread.tmc && ok "no -o: exit 2: $(errline one.err)"
one 2 "needs a value" "-o without a value" "$TM" mt_pthread.tmc -o && ok "-o without a value: exit 2: $(errline one.err)"
one 2 "--check" "--check with -o" "$TM" --check mt_pthread.tmc mt_pthread -o bo/x &&
    ok "--check with -o: exit 2: $(errline one.err)"
[ -z "$(ls -A bo)" ] || fail "bad options: files written: $(ls -A bo)"

# A truncated commit stream: exit 1, one line, nothing in the output folder
# (no buffers, no statistics, no temporaries).
# cut TMBIN NAME SRC WHAT: SRC.tmc cut to half (its module map beside it).
cut_tmc() {
    local tm=$1 name=$2 src=$3
    mkdir -p "$name/out"
    head -c $(($(stat -c %s "$src.tmc") / 2)) "$src.tmc" > "$name/in.tmc"
    cp "$src.modules" "$name/in.modules"
    one 1 "truncated|in.tmc" "$src.tmc cut to half" "$tm" "$name/in.tmc" -o "$name/out/x" --verify --compare \
        --stats "$name/out/x.json" && ok "$src.tmc cut to half: exit 1: $(errline one.err)"
    [ -z "$(ls -A "$name/out")" ] || fail "$src.tmc cut to half: left in the output folder: $(ls -A "$name/out")"
}
cut_tmc "$TM" t1 mt_pthread
cut_tmc "$TMFAST" t2 pigz

one 1 "nothere.tmc" "a nonexistent input" "$TM" nothere.tmc -o bo/x &&
    ok "a nonexistent input: exit 1: $(errline one.err)"
one 1 "nothere.tmc" "a nonexistent input with --no-image" "$TM" nothere.tmc -o bo/x --no-image &&
    ok "a nonexistent input with --no-image: exit 1: $(errline one.err)"
one 1 "nothere.modules" "a nonexistent --modules" "$TM" mt_pthread.tmc -o bo/x --modules nothere.modules &&
    ok "a nonexistent --modules: exit 1: $(errline one.err)"
[ -z "$(ls -A bo)" ] || fail "bad input: files written: $(ls -A bo)"

# ======================================================================
# 5. --stats with --compare
# ======================================================================
echo "== 5. --stats and --compare"
# What is compared: tm pt's "instructions" (every instruction retired: the
# RUN records' counts plus one per BRANCH record, as PT's decoder sees them)
# with tm dump --count's "instructions" (which adds the branches to the RUN
# counts too), with tm decode --verify's replayed instructions, and with the
# instructions that --verify checked; the PT row of --compare with the
# buffers' bytes; the branch events with tm dump's classes.
# statcheck JSON BASE WHAT [ALL.json MTC.json]: the checks on one --stats
# file (with the statistics of --timing all and --timing tsc,mtc runs: the
# PT+cyc and PT+mtc rows must have their bits).
statcheck() {
    local js=$1 base=$2 what=$3 tall=${4:-} tmtc=${5:-}
    "$TMFAST" dump --count "$base.tmc" > "$base.count" || die "tm dump --count $base.tmc"
    "$TMFAST" decode --verify "$base.tmc" "$base.tmt" > "$base.dv" 2>&1 || die "tm decode --verify $base: $(tail -n 2 "$base.dv")"
    local sizes
    sizes=$(cat "$base".T*.pt | wc -c)
    local encs
    encs=$("$TMFAST" config --list-encodings | paste -sd,) || die "tm config --list-encodings"
    if ENCS=$encs python3 - "$js" "$base.count" "$base.dv" "$sizes" "$tall" "$tmtc" > "$base.sc" 2>&1 << 'PY'; then
import json, os, re, sys
d = json.load(open(sys.argv[1]))
cnt = {}
for line in open(sys.argv[2]):
    m = re.match(r'\s*([a-z-]+): (\d+)', line)
    if m:
        cnt[m.group(1)] = int(m.group(2))
dv = int(re.search(r'^OK: (\d+) instructions replayed', open(sys.argv[3]).read(), re.M).group(1))
files = int(sys.argv[4])
errs = []
def need(c, msg):
    if not c:
        errs.append(msg)
for key in ('bpi', 'bpc', 'packets', 'compare', 'instructions', 'bits', 'bytes', 'events', 'verify'):
    need(key in d, 'no key %s' % key)
n = d['instructions']
need(n == cnt['instructions'], 'instructions %d, tm dump --count %d' % (n, cnt['instructions']))
need(n == dv, 'instructions %d, tm decode --verify %d' % (n, dv))
need(d['verify'] and d['verify']['ok'] and d['verify']['checked'] == n, 'verify %r' % d['verify'])
need(d['cycles'] == cnt['cycles'] + 1, 'cycles %d, tm dump --count %d (+1)' % (d['cycles'], cnt['cycles']))
need(d['bits'] == 8 * d['bytes'] == 8 * files, 'bits %d, bytes %d, files %d bytes' % (d['bits'], d['bytes'], files))
need(sum(p['bytes'] for p in d['packets'].values()) == d['bytes'], 'packet bytes do not add up')
need(sum(c['bytes'] for c in d['per_core_bytes']) == d['bytes'], 'per-core bytes do not add up')
need(abs(d['bpi'] - d['bits'] / n) < 1e-5, 'bpi %f' % d['bpi'])
ev = d['events']
need(ev['cond'] == cnt['cond'], 'cond %d, tm dump %d' % (ev['cond'], cnt['cond']))
need(ev['ret'] == cnt['ret'], 'ret %d, tm dump %d' % (ev['ret'], cnt['ret']))
need(ev['indirect'] == cnt['ijump'] + cnt['icall'], 'indirect %d, tm dump %d' % (ev['indirect'], cnt['ijump'] + cnt['icall']))
need(ev['exceptions'] == cnt['exceptions'], 'exceptions %d, tm dump %d' % (ev['exceptions'], cnt['exceptions']))
encs = os.environ['ENCS'].split(',')
want = ['PT', 'PT+mtc', 'PT+cyc'] + [e + ts for e in encs for ts in ('', '+ts')]
rows = {r['format']: r for r in d['compare']}
need([r['format'] for r in d['compare']] == want, 'compare formats %r' % [r['format'] for r in d['compare']])
if not errs:
    need(rows['PT']['bits'] == d['bits'], 'the PT row has %d bits, the buffers %d' % (rows['PT']['bits'], d['bits']))
    for r in d['compare']:
        need(r['bits'] > 0 and abs(r['bpi'] * n - r['bits']) <= 1e-6 * n + 1, '%s: bpi %f, bits %d' % (r['format'], r['bpi'], r['bits']))
        need(r['dropped_messages'] == 0, '%s: %d messages dropped' % (r['format'], r['dropped_messages']))
    need(rows['PT']['bits'] < rows['PT+mtc']['bits'] < rows['PT+cyc']['bits'], 'PT < PT+mtc < PT+cyc')
    for f in encs:
        need(rows[f]['bits'] < rows[f + '+ts']['bits'], '%s < %s+ts' % (f, f))
    if sys.argv[5]:
        t = json.load(open(sys.argv[5]))
        need(t['bits'] == rows['PT+cyc']['bits'], 'PT+cyc %d bits, --timing all %d' % (rows['PT+cyc']['bits'], t['bits']))
    if sys.argv[6]:
        t = json.load(open(sys.argv[6]))
        need(t['bits'] == rows['PT+mtc']['bits'], 'PT+mtc %d bits, --timing tsc,mtc %d' % (rows['PT+mtc']['bits'], t['bits']))
print('; '.join(errs) if errs else '%d instructions (tm dump --count, tm decode --verify, --verify); rows %s'
      % (n, ' '.join('%s=%.4f' % (r['format'], r['bpi']) for r in d['compare'])))
sys.exit(1 if errs else 0)
PY
        ok "$what --stats: $(cat "$base.sc")"
    else
        fail "$what --stats: $(cat "$base.sc")"
    fi
}
if verified "$TMFAST" pigz "pigz --compare" --compare --stats pigz.json; then
    # the PT+cyc and PT+mtc rows are the --timing all and --timing tsc,mtc runs of section 2
    statcheck pigz.json pigz "pigz -p 4" v_all.json v_mtc.json
fi
for p in signals mt_omp; do
    verified "$TM" "$p" "$p --compare (sanitizer build)" --compare --stats "$p.json" &&
        statcheck "$p.json" "$p" "$p (sanitizer build)"
done

# ======================================================================
# 6. --decode and --decode --block
# ======================================================================
echo "== 6. --decode"
# decoded TMBIN BASE N WHAT
decoded() {
    local tm=$1 base=$2 n=$3 what=$4 blk
    for blk in "" --block; do
        # shellcheck disable=SC2086
        pt "$tm" dec --decode $blk "$base"
        local got
        got=$(sed -n 's/^decoded \([0-9]*\) instructions on .*/\1/p' dec.out)
        [ $st -eq 0 ] && [ "$got" = "$n" ] && ok "$what --decode $blk: $(cut -d' ' -f1-6 dec.out) (as --verify)" ||
            fail "$what --decode $blk: exit status $st, '$got' instructions, --verify checked $n: $(errline dec.err)"
    done
}
decoded "$TMFAST" pigz "$pigz_n" "pigz"
verified "$TM" signals "signals" && decoded "$TM" signals "$vn" "signals (sanitizer build)"

# ======================================================================
# 7. Stale buffers of an earlier run with the same BASE
# ======================================================================
echo "== 7. an output BASE used before"
mkdir stale
cp mt_pthread.tmc mt_pthread.modules stale/
cp signals.tmc signals.modules stale/
pt "$TM" s1 stale/mt_pthread.tmc -o stale/x -q
[ $st -eq 0 ] || die "tm pt stale/mt_pthread.tmc: exit status $st"
n1=$(ls stale/x.T*.pt | wc -l)
pt "$TM" s2 stale/signals.tmc -o stale/x --verify
if [ $st -eq 0 ] && grep -q '^verify: ok' s2.out; then
    ok "signals encoded over mt_pthread's $n1 buffers: verify: ok"
else
    fail "signals (2 cores) encoded to a BASE that holds mt_pthread's $n1 buffers: --verify exits $st: $(errline s2.err)"
fi

# ======================================================================
# 1 (end). xz
# ======================================================================
wait "$bg"
xst=$?
bg=""
sancheck xz.pt.err "xz"
xn=$(sed -n 's/^verify: ok, \([0-9]*\) instructions of \([0-9]*\) cores .*/\1 \2/p' xz.pt.out)
if [ $xst -eq 0 ] && [ -n "$xn" ] && [ "${xn#* }" -gt 2 ]; then
    ok "xz -T4 --block-size=32KiB: verify: ok, ${xn% *} instructions on ${xn#* } cores"
else
    fail "xz: tm pt --verify: exit status $xst: $(errline xz.pt.err) $(cat xz.pt.out)"
fi

# Duration, for the log (speed lives in make bench, not in a test).
took=$(($(date +%s) - start))
times > times.txt
cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' times.txt)
echo "duration: ${took} s, CPU time ${cpu} s (load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores)"
[ $fails -eq 0 ] || { echo "$fails checks failed"; exit 1; }
echo "all tm pt tests passed"
