#!/usr/bin/env bash
# tier: check
# Load-value tracing end to end (docs/spec.md §3.8, §4.8, §6 step 7, §8):
# - the issue's command lines: a 4-thread stream with memory operands, CFiat
#   with the default, a 64K and a shared cache; every trace replays (every
#   load value checked) and --stats has the data object;
# - round trips for N in 1, 2, 4, 8 over a matrix of data modes, caches,
#   encodings, time stamps, shared predictors and overflowing configurations
#   (which must show drops and still replay);
# - the replay catches a flipped bit in the VALUE of a DATA message;
# - bad options and bad inputs: nonzero exit, one line on stderr naming the
#   option (or the file and offset), no sanitizer report.
# The model and the decoder run in the sanitizer build; streams are
# generated with the optimized one.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TM:?}" "${TMFAST:?}" "${TMP:?}"
cd "$TMP" || exit 1
fails=0

# verify_ok TMC TMT WHAT: tm decode --verify must print OK with load values.
verify_ok() {
    local st=0
    "$TM" decode --verify "$1" "$2" > v.out 2> v.err || st=$?
    if [ $st -ne 0 ] || ! grep -q '^OK: .* load values replayed' v.out; then
        fail "$3: verify exit $st"; sed 's/^/    /' v.out v.err | head -n 5; return 1
    fi
    if grep -qE 'Sanitizer|runtime error' v.err; then fail "$3: sanitizer report"; return 1; fi
}

# check_json JSON VERIFY-OUT FLAGS: the data object of --stats, against the
# replay's counts.  FLAGS: "overflow" (drops expected), "all" (every load
# reported), "cfiat" (some loads inferred, none with --data all).
check_json() {
    python3 - "$@" <<'PY'
import json, math, re, sys
path, vout, flags = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
s = json.load(open(path))
d = s["data"]
for k in ("bits_per_load", "bits_per_instruction", "fa_miss_rate"):
    v = d[k]
    assert isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), f"data.{k} = {v!r}"
    assert v >= 0, f"data.{k} = {v}"
assert d["loads"] > 0 and d["stores"] > 0, "no memory operands"
assert 0 < d["fa_miss_rate"] <= 1
assert d["bits"] == sum(d["bits_by_field"].values()), "data bits are not the sum of their fields"
assert abs(d["bits_per_load"] - d["bits"] / d["loads"]) < 1e-4 * max(1, d["bits_per_load"])
assert abs(d["bits_per_instruction"] - d["bits"] / s["instructions"]) < 1e-4 * max(1, d["bits_per_instruction"])
if d["mode"] == "cfiat":
    by = d["by_size"]
    assert sum(c["load_refs"] for c in by.values()) == d["loads"], "by_size load references"
    assert sum(c["store_refs"] for c in by.values()) == d["stores"], "by_size store references"
    for name, c in by.items():
        assert c["load_hits"] + c["load_misses"] == c["load_refs"], name
        assert c["fa_hits"] + c["fa_misses"] == c["load_hits"], name
text = open(vout).read()
m = re.search(r"; (\d+) load values replayed \((\d+) from DATA messages, (\d+) from the replay's copy\), (\d+) loads in gaps", text)
assert m, "verify output lacks the load counts: " + text
replayed, reported, inferred, gaps = map(int, m.groups())
assert replayed + gaps == d["loads"], f"replay saw {replayed} + {gaps} loads, the model {d['loads']}"
assert reported == d["messages"], f"replay took {reported} values from DATA messages, the model accepted {d['messages']}"
assert gaps == d["lost_loads"], f"replay: {gaps} loads in gaps, the model's statistics: {d['lost_loads']}"
g = re.search(r"\((\d+) reconstructed, (\d+) in (\d+) overflow gaps\)", text)
assert g, "verify output lacks the gap counts: " + text
if s["total"]["exceptions"] == 0:
    assert int(g.group(2)) == s["total"]["lost_instructions"], \
        f"replay: {g.group(2)} instructions in gaps, the model's statistics: {s['total']['lost_instructions']}"
dropped = s["buffer"]["dropped_messages"]
if "overflow" in flags:
    assert dropped > 0, "expected the buffer to overflow"
    assert gaps > 0 and d["dropped_messages"] > 0, "expected loads in gaps and dropped DATA messages"
if "all" in flags:
    assert d["mode"] == "all" and inferred == 0, f"--data all: {inferred} loads inferred"
    assert abs(d["fa_miss_rate"] - 1) < 1e-9
else:
    assert d["mode"] == "cfiat" and inferred > 0, "CFiat inferred no load"
    assert d["fa_miss_rate"] < 1
PY
}

# ---- the issue's command lines ----
"$TM" gen --threads 4 --insns 2000000 --seed 11 --mem -o $TMP/d.tmc || fail "gen --mem"
for extra in "" "--cache 64K --assoc 4 --line 64 --granularity 4" "--cfiat-shared"; do
    rm -f d.tmt d.json
    # shellcheck disable=SC2086
    if ! "$TM" model --config large --encoding tr_e --cfiat $extra $TMP/d.tmc -o $TMP/d.tmt --stats $TMP/d.json > m.out 2> m.err; then
        fail "model --cfiat $extra"; cat m.err; continue
    fi
    verify_ok $TMP/d.tmc $TMP/d.tmt "--cfiat $extra" || continue
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["data"]; assert all(isinstance(d[k], (int, float)) and not isinstance(d[k], bool) for k in ("bits_per_load", "bits_per_instruction", "fa_miss_rate")), d' \
        $TMP/d.json || fail "--cfiat $extra: data.bits_per_load/bits_per_instruction/fa_miss_rate not numbers"
    check_json d.json v.out cfiat || fail "--cfiat $extra: statistics"
    grep -q '^data: ' m.out || fail "--cfiat $extra: no data line in the text statistics"
    echo "ok --cfiat $extra: $(grep -o '[0-9]* load values replayed.*' v.out)"
done

# ---- round trips over a matrix ----
configs=(
    "cfiat|--cfiat"
    "cfiat|--cfiat --cfiat-shared"
    "all|--data all"
    "all|--data all --encoding nx_b --timestamps"
    "cfiat|--data cfiat --cache tool"
    "cfiat|--cfiat --cache study"
    "cfiat|--cfiat --cache 512 --assoc 1 --line 16 --granularity 16"
    "cfiat|--cfiat --cache 64 --assoc 4 --line 16 --granularity 16 --cfiat-shared"
    "cfiat|--cfiat --line 4 --granularity 1"
    "cfiat|--cfiat --cache 4M --assoc 64 --line 4096 --granularity 64"
    "cfiat|--cfiat --encoding tr_b"
    "cfiat|--cfiat --encoding nx_b --cfiat-shared"
    "cfiat|--cfiat --timestamps --ts-bits 12"
    "cfiat|--cfiat --shared"
    "cfiat|--cfiat --shared --cfiat-shared --timestamps --config small"
    "cfiat|--cfiat --chunks-fah 1,1"
    "cfiat,overflow|--cfiat --port 4 --buffer min"
    "cfiat,overflow|--cfiat --port 2"
    "cfiat,overflow|--cfiat --cfiat-shared --shared --port 4 --buffer min --timestamps"
    "all,overflow|--data all --port 2 --encoding tr_b"
)
runs=0
for n in 1 2 4 8; do
    "$TMFAST" gen --threads $n --insns 200000 --seed $((60 + n)) --mem -o g$n.tmc || { fail "gen N=$n"; continue; }
    for c in "${configs[@]}"; do
        flags=${c%%|*}; args=${c#*|}
        # shellcheck disable=SC2086
        if ! "$TM" model $args -q g$n.tmc -o t.tmt --stats s.json 2> m.err; then
            fail "N=$n $args: model"; cat m.err; continue
        fi
        verify_ok g$n.tmc t.tmt "N=$n $args" || continue
        check_json s.json v.out "$flags" || fail "N=$n $args: statistics"
        runs=$((runs + 1))
    done
done
# Without exceptions the replay's instructions in gaps are the model's
# lost_instructions exactly (a gap counts exceptions too).
"$TMFAST" gen --threads 4 --insns 200000 --seed 3 --mem --exc-rate 0 -o noexc.tmc || fail "gen --exc-rate 0"
for c in "cfiat|--cfiat --port 8" "cfiat|--cfiat --shared --cfiat-shared --port 4 --buffer min" "all|--data all --port 8"; do
    flags=${c%%|*}; args=${c#*|}
    # shellcheck disable=SC2086
    "$TM" model $args -q noexc.tmc -o t.tmt --stats s.json || { fail "$args: model"; continue; }
    verify_ok noexc.tmc t.tmt "no exceptions, $args" || continue
    check_json s.json v.out "$flags,overflow" || fail "no exceptions, $args: statistics"
    runs=$((runs + 1))
done
echo "round trips: $runs verified"

# ---- the replay catches a corrupted load value ----
# Flip the last bit of a DATA message (the top bit of its VALUE's last byte):
# the message keeps its length, so the trace still splits, and the replay
# must report the load value.
"$TMFAST" model --cfiat -q g2.tmc -o c.tmt || fail "model for the corruption test"
"$TM" decode c.tmt --tmc g2.tmc > c.lst || fail "decode --tmc"
grep -q ' T1 DATA fah=[0-9]* size=[0-9]* value=0x' c.lst || fail "decode --tmc lists no DATA message"
# The MISMATCH of a load names where the thread is: the pc after the
# instructions the commit stream retired before the operand (from tm dump).
mempc='
import re, sys
m = re.search(r"^MISMATCH: thread (\d+), instruction \d+ \((?:next )?pc 0x([0-9a-f]+), cycle (\d+)\): load \d+ of (\d+) bytes at 0x([0-9a-f]+)", open(sys.argv[1]).read())
assert m, "no load MISMATCH"
t, pc, cyc, size, addr = int(m[1]), int(m[2], 16), int(m[3]), int(m[4]), int(m[5], 16)
npc = {}
for line in sys.stdin:
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    if "t" not in f or int(f["t"]) != t:
        continue
    w = line.split()
    if w[2] == "START": npc[t] = int(f["pc"], 16)
    elif w[2] == "RUN": npc[t] = int(f["pc"], 16) + int(f["bytes"])
    elif w[2] == "BRANCH": npc[t] = int(f["target"], 16) if w[4] == "T" else int(f["pc"], 16) + int(f["len"])
    elif w[2] == "EXC": npc[t] = int(f["handler"], 16)
    elif w[2] == "MEM" and int(f["c"]) == cyc and int(f["addr"], 16) == addr and int(f["size"]) == size:
        assert pc == npc[t], f"MISMATCH names pc {pc:#x}, the thread is at {npc[t]:#x}"
        sys.exit(0)
sys.exit("the load of the MISMATCH is not in the commit stream")
'
"$TMFAST" dump g2.tmc > g2.dump || fail "dump"
for pick in 1 40 400; do
    # the PICK-th DATA message and the position of the message after it
    read -r pos next < <(awk -v k="$pick" '$1 ~ /^[0-9]+$/ { if (want) { print p, $1; exit } if ($3 == "DATA" && ++i == k) { want = 1; p = $1 } }' c.lst)
    [ -n "${next:-}" ] || { fail "no DATA message number $pick"; continue; }
    python3 - c.tmt bad.tmt "$next" <<'PY'
import sys
src, dst, nxt = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
k = nxt - 1
b[64 + k // 8] ^= 1 << (k % 8)
open(dst, "wb").write(b)
PY
    st=0
    "$TM" decode --verify g2.tmc bad.tmt > v.out 2> v.err || st=$?
    if [ $st -ne 1 ] || ! grep -q '^MISMATCH: .*load [0-9]* of [0-9]* bytes at 0x[0-9a-f]*: replayed value' v.out ||
        ! grep -q "from the DATA message at trace bit $pos)" v.out; then
        fail "flipped value bit of the DATA message at bit $pos: exit $st"; sed 's/^/    /' v.out v.err | head -n 4
    elif grep -qE 'Sanitizer|runtime error' v.err; then
        fail "flipped value bit: sanitizer report"
    elif ! python3 -c "$mempc" v.out < g2.dump; then
        fail "flipped value bit of the DATA message at bit $pos: the MISMATCH names the wrong pc"
    else
        echo "ok corrupt DATA at bit $pos: $(cut -c1-160 v.out)"
    fi
done

# ---- bad options and inputs ----
# check STATUS PATTERN COMMAND...: exit STATUS, one stderr line matching
# PATTERN (standard input: $STDIN or /dev/null).
check() {
    local want=$1 pat=$2; shift 2
    local st=0
    "$@" > out 2> err < "${STDIN:-/dev/null}" || st=$?
    if [ $st -ne "$want" ]; then fail "exit $st, wanted $want: ${*#$TM }"; sed 's/^/    /' err; return; fi
    if [ "$(wc -l < err)" -ne 1 ] || ! grep -qe "$pat" err; then
        fail "message of: ${*#$TM } (wanted '$pat')"; sed 's/^/    /' err; return; fi
    if grep -qE 'Sanitizer|runtime error' err; then fail "sanitizer: $*"; return; fi
    echo "ok $(cat err)"
}
G=g2.tmc
check 2 '^tm model: --cache 1000: allowed' "$TM" model --cfiat --cache 1000 $G -o x.tmt
check 2 '^tm model: --cache 0: allowed' "$TM" model --cfiat --cache 0 $G -o x.tmt
check 2 '^tm model: --cache 134217728: allowed .* to 64M' "$TM" model --cfiat --cache 128M $G -o x.tmt
check 2 '^tm model: --cache 64Q: allowed tool, study' "$TM" model --cfiat --cache 64Q $G -o x.tmt
check 2 '^tm model: --granularity 16: allowed .* line size 8' "$TM" model --cfiat --line 8 --granularity 16 $G -o x.tmt
check 2 '^tm model: --line 3: allowed a power of two' "$TM" model --cfiat --line 3 $G -o x.tmt
check 2 '^tm model: --assoc 3: allowed a power of two' "$TM" model --cfiat --assoc 3 $G -o x.tmt
check 2 '^tm model: --assoc 128: allowed .* at most 64' "$TM" model --cfiat --assoc 128 $G -o x.tmt
check 2 '^tm model: --granularity 0: allowed' "$TM" model --cfiat --granularity 0 $G -o x.tmt
check 2 '^tm model: --granularity 32: .*at most 64 flags' "$TM" model --cfiat --line 4096 --granularity 32 $G -o x.tmt
check 2 '^tm model: --cfiat-shared: only with CFiat' "$TM" model --cfiat-shared $G -o x.tmt
check 2 '^tm model: --cfiat-shared: only with CFiat' "$TM" model --data all --cfiat-shared $G -o x.tmt
check 2 '^tm model: --cache: only with CFiat' "$TM" model --cache 64K $G -o x.tmt
check 2 '^tm model: --cache: only with CFiat' "$TM" model --data all --cache study $G -o x.tmt
check 2 '^tm model: --line: only with CFiat' "$TM" model --line 64 $G -o x.tmt
check 2 '^tm model: --data foo: allowed none, cfiat, all' "$TM" model --data foo $G -o x.tmt
check 2 '^tm model: --chunks-fah 0,1: expected A,B' "$TM" model --cfiat --chunks-fah 0,1 $G -o x.tmt
check 2 '^tm model: --chunks-fah: only with data tracing' "$TM" model --chunks-fah 3,2 $G -o x.tmt
check 2 '^tm model: --cfiat contradicts --data all' "$TM" model --cfiat --data all $G -o x.tmt
check 2 '^tm model: --cache needs a value' "$TM" model --cfiat $G -o x.tmt --cache
"$TMFAST" model --cfiat -q $G -o dt.tmt || fail "model for the decode checks"
check 2 "^tm decode: dt.tmt: the trace has load values .* --tmc" "$TM" decode dt.tmt
STDIN=$G check 1 '^tm decode: .*give a file, not standard input' "$TM" decode --verify - dt.tmt
check 1 "^tm decode: missing.tmc" "$TM" decode dt.tmt --tmc missing.tmc
check 2 '^tm decode: --tmc needs' "$TM" decode dt.tmt --tmc

# Commit streams with a memory operand of 0 and of 65 bytes (decompressed
# bytes built with printf, as in t_tmc_badinput.sh); one of 64 bytes is fine.
# (uv, hdr and mk: lib.sh)
START0='\x01\x00\x0c\x00'"$(uv $((0x401000)))"     # offset 16: c=12 t=0 START pc=0x401000 (8 bytes)
RUN0='\x03\x00\x01\x01\x04'                         # offset 24: c=13 RUN 1 insn 4 bytes
bytes() { local s=""; for ((i = 1; i <= $1; i++)); do s+=$(printf '\\x%02x' $i); done; printf '%s' "$s"; }
# offset 29: c=13 MEM load size N addr 0x10, then EXIT at c=14, END
mk mem0 "$(hdr 1)$START0$RUN0"'\x06\x00\x00\x00\x00\x10\x02\x00\x01\x00\x08\x04'
mk mem65 "$(hdr 1)$START0$RUN0"'\x06\x00\x00\x00\x41\x10'"$(bytes 65)"'\x02\x00\x01\x00\x08\x04'
mk mem64 "$(hdr 1)$START0$RUN0"'\x06\x00\x00\x00\x40\x10'"$(bytes 64)"'\x02\x00\x01\x00\x08\x04'
for opt in --cfiat "--data all" ""; do
    # shellcheck disable=SC2086
    check 1 '^tm model: mem0.tmc: offset 29: operand size 0 at cycle 13, thread 0; allowed 1..64' "$TM" model $opt mem0.tmc -o x.tmt
    # shellcheck disable=SC2086
    check 1 '^tm model: mem65.tmc: offset 29: operand size 65 at cycle 13, thread 0; allowed 1..64' "$TM" model $opt mem65.tmc -o x.tmt
done
"$TM" model --data all -q mem64.tmc -o m64.tmt || fail "a 64-byte operand"
verify_ok mem64.tmc m64.tmt "a 64-byte operand" && grep -q '1 from DATA messages' v.out || fail "64-byte load not reported"
"$TM" decode m64.tmt --tmc mem64.tmc | grep -q 'T0 DATA fah=0 size=64 value=0x403f3e' || fail "64-byte DATA not listed"
check 1 '^tm decode: .*mem0.tmc: offset 29: operand size 0' "$TM" decode --verify mem0.tmc m64.tmt

[ $fails -eq 0 ] || { echo "$fails failures"; exit 1; }
echo "all data tracing checks passed"
