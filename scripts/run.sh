#!/usr/bin/env bash
# make run: the main job.  Generates a 4-thread workload, runs every preset x
# encoding (functional and time-stamped), verifies each trace by replay, and
# prints a bits-per-instruction table shaped like the paper's Table 5 plus the
# misprediction rates.  Environment: TM_RUN_INSNS (default 20M), TM_RUN_THREADS
# (default 4), TM_RUN_SEED (default 7), TM_RUN_DIR (default a temp dir, kept
# only when given).
set -euo pipefail
BUILD=${1:-build}
TM="$BUILD/bin/tm"
insns=${TM_RUN_INSNS:-20000000}
threads=${TM_RUN_THREADS:-4}
seed=${TM_RUN_SEED:-7}
if [ -n "${TM_RUN_DIR:-}" ]; then dir=$TM_RUN_DIR; mkdir -p "$dir"; else dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; fi

# Replays trace TMT against commit stream TMC (verdict in OUT); stops the run
# with the verdict if it does not verify.
verify_or_stop() {  # NAME TMC TMT OUT
    if ! "$TM" decode --verify "$2" "$3" > "$4"; then
        echo "tm run: $1: replay does not verify:" >&2
        cat "$4" >&2
        exit 1
    fi
}

echo "tm run: generating $threads threads, $insns instructions (seed $seed)" >&2
"$TM" gen --threads "$threads" --insns "$insns" --seed "$seed" -o "$dir/w.tmc"
for ts in "" t; do
    for enc in nx_b tr_b tr_e; do
        for preset in small medium large; do
            name="$ts$enc-$preset"
            # demand: a port and buffer that drop nothing (the default 4-bit
            # port is the delivery question, below)
            "$TM" model --config $preset --encoding $enc ${ts:+--timestamps} --port 1024 --buffer 65536 -q \
                "$dir/w.tmc" -o "$dir/$name.tmt" --stats "$dir/$name.json"
            verify_or_stop "$name" "$dir/w.tmc" "$dir/$name.tmt" "$dir/$name.verify"
            echo "tm run: $name verified: $(cut -c1-60 "$dir/$name.verify")..." >&2
        done
    done
done
# delivery: the same streams through the default port (4 bits/cycle) and buffer
for name in nx_b-large tr_e-large; do
    "$TM" model --config "${name#*-}" --encoding "${name%-*}" -q "$dir/w.tmc" -o "$dir/p-$name.tmt" \
        --stats "$dir/p-$name.json"
    verify_or_stop "port $name" "$dir/w.tmc" "$dir/p-$name.tmt" "$dir/p-$name.verify"
done
python3 - "$dir" "$threads" "$insns" <<'PY'
import json, sys
d, n, insns = sys.argv[1], sys.argv[2], sys.argv[3]
presets = ["small", "medium", "large"]
def load(name): return json.load(open(f"{d}/{name}.json"))
def bpi(name):
    x = load(name)
    if not x["lossless"]:  # never a lossy bpi alone
        sys.exit(f"tm run: {name}: messages dropped with a 1024-bit port: not the demand")
    return x["bits_per_instruction"]
print(f"\nTrace port bandwidth demand [bits/instruction], {n} threads, {int(insns):,} instructions, private predictors")
print(f"(rows: encodings; columns: presets; nothing dropped; every trace verified by replay)\n")
print(f"{'':8}" + "".join(f"{p:>10}" for p in presets))
for ts in ("", "t"):
    for enc in ("nx_b", "tr_b", "tr_e"):
        row = [bpi(f"{ts}{enc}-{p}") for p in presets]
        print(f"{ts + enc:8}" + "".join(f"{v:10.4f}" for v in row))
nx = bpi("nx_b-large")
print(f"\nReduction against nx_b: " + ", ".join(f"tr_e {p} {nx / bpi('tr_e-' + p):.1f}x" for p in presets))
print(f"\nThrough the default port (4 bits/cycle, buffer of the default size):")
for name in ("nx_b-large", "tr_e-large"):
    x = load(f"p-{name}")
    t = x["total"]
    print(f"  {name:11} demand {bpi(name):.4f} bits/instruction; {t['dropped_messages']:,} messages dropped, "
          f"{t['lost_instructions']:,} instructions ({100 * t['lost_instructions'] / t['instructions']:.1f}%) "
          f"in overflow gaps")
print(f"\nMisprediction rates [%]")
print(f"{'':8}{'outcome':>10}{'target':>10}")
for p in presets:
    t = load(f"tr_e-{p}")["total"]
    print(f"{p:8}{100*t['outcome_misprediction_rate']:10.2f}{100*t['target_misprediction_rate']:10.2f}")
s = load("ttr_e-large")
print(f"\nttr_e large: {s['bits_per_cycle']:.4f} bits/cycle demand (buffer peak {s['buffer']['peak_occupancy']} "
      f"of {s['config']['buffer_bits']} bits, {s['buffer']['dropped_messages']} messages dropped)")
PY

# Load-value tracing (docs/spec.md §3.8): the same workload shape with memory
# operands, traced with CFiat (both cache presets, private and shared) and
# with the every-load baseline; every trace verified by replay, load values
# included.  TM_RUN_DATA_INSNS (default 4M).
dinsns=${TM_RUN_DATA_INSNS:-4000000}
echo "tm run: generating $threads threads, $dinsns instructions with memory operands" >&2
"$TM" gen --threads "$threads" --insns "$dinsns" --seed "$seed" --mem -o "$dir/m.tmc"
names=()
for v in "cfiat-tool:--cfiat" "cfiat-study:--cfiat --cache study" "cfiat-shared:--cfiat --cfiat-shared" \
         "all:--data all"; do
    name=${v%%:*}; opts=${v#*:}
    # shellcheck disable=SC2086
    "$TM" model --config large --encoding tr_e $opts --port 64 --buffer 65536 -q "$dir/m.tmc" \
        -o "$dir/d-$name.tmt" --stats "$dir/d-$name.json"
    verify_or_stop "data $name" "$dir/m.tmc" "$dir/d-$name.tmt" "$dir/d-$name.verify"
    echo "tm run: data $name verified: $(sed 's/.*; //' "$dir/d-$name.verify")" >&2
    names+=("$name")
done
python3 - "$dir" "$dinsns" "${names[@]}" <<'PY'
import json, sys
d, insns, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
print(f"\nLoad-value tracing, tr_e large, {insns:,} instructions, port 64 bits, every load value replayed")
print(f"{'':14}{'FA miss %':>10}{'bits/load':>10}{'data bpi':>10}{'control':>10}{'total bpi':>10}")
for n in names:
    j = json.load(open(f"{d}/d-{n}.json"))
    if not j["lossless"]:  # never a lossy bpi alone
        sys.exit(f"tm run: data {n}: messages dropped with a 64-bit port: not the demand")
    x = j["data"]
    print(f"{n:14}{100*x['fa_miss_rate']:10.2f}{x['bits_per_load']:10.2f}{x['bits_per_instruction']:10.4f}"
          f"{x['control_bits_per_instruction']:10.4f}{x['total_bits_per_instruction']:10.4f}")
a = json.load(open(f"{d}/d-all.json"))["data"]["bits_per_instruction"]
c = json.load(open(f"{d}/d-cfiat-tool.json"))["data"]["bits_per_instruction"]
print(f"\nCFiat (tool cache) needs {c/a*100:.1f}% of the every-load baseline's data bandwidth")
PY

# A real multithreaded program (issue 5): pigz -p 4 under tm record, control
# flow for every encoding and CFiat, each recording verified by replay.
if command -v pigz > /dev/null && command -v valgrind > /dev/null; then
    python3 - "$dir/text" <<'PY'
import random, sys
random.seed(5)
words = [''.join(random.choice('etaoinshrdlucmfwyp') for _ in range(random.randint(2, 8))) for _ in range(3000)]
out, n = [], 0
while n < 1_000_000:
    line = ' '.join(random.choice(words) for _ in range(10)) + '\n'
    out.append(line); n += len(line)
open(sys.argv[1], 'w').write(''.join(out))
PY
    pigz -p 4 -c "$dir/text" > "$dir/ref.gz"
    rnames=()
    for v in "nx_b:--encoding nx_b" "tr_b:--encoding tr_b" "tr_e:--encoding tr_e" "tr_e+cfiat:--encoding tr_e --cfiat"; do
        name=${v%%:*}; opts=${v#*:}
        # shellcheck disable=SC2086
        "$TM" record --config large $opts --port 1024 --buffer 65536 --commit -o "$dir/r-$name" -- \
            pigz -p 4 -c "$dir/text" > "$dir/r-$name.gz"
        cmp -s "$dir/ref.gz" "$dir/r-$name.gz" || { echo "tm run: pigz output differs under tm record" >&2; exit 1; }
        verify_or_stop "pigz $name" "$dir/r-$name.tmc" "$dir/r-$name.tmt" "$dir/r-$name.verify"
        echo "tm run: pigz $name verified: $(cut -c1-70 "$dir/r-$name.verify")..." >&2
        rnames+=("$name")
    done
    python3 - "$dir" "${rnames[@]}" <<'PY'
import json, sys
d, names = sys.argv[1], sys.argv[2:]
print("\nA real program: pigz -p 4 on 1 MB of text under tm record (large preset, the timing model's cores,")
print("a port and buffer that drop nothing), every recording replayed")
print(f"{'':12}{'threads':>8}{'instructions':>14}{'control bpi':>12}{'data bpi':>10}{'total bpi':>10}{'bits/cycle':>11}")
for n in names:
    x = json.load(open(f"{d}/r-{n}.json"))
    if not x["lossless"]:  # never a lossy bpi alone
        sys.exit(f"tm run: pigz {n}: messages dropped with a 1024-bit port: not the demand")
    tot = x["total"]
    insns = tot["instructions"]
    data = x.get("data", {})
    cbpi = data.get("control_bits_per_instruction", tot["bits"] / insns)
    dbpi = data.get("bits_per_instruction", 0.0)
    thr = sum(1 for t in x["threads"] if t["instructions"])
    print(f"{n:12}{thr:8}{insns:14,}{cbpi:12.4f}{dbpi:10.4f}{cbpi + dbpi:10.4f}{x['bits_per_cycle']:11.4f}")
PY
else
    echo "tm run: pigz and valgrind are needed (make deps installs them)" >&2
    exit 1
fi
