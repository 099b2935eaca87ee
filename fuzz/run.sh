#!/usr/bin/env bash
# make fuzz: records a small real program (gzip, one thread) under tm record, with and
# without load values, turns its traces in several configurations into the
# seed corpus, and runs the libFuzzer target fuzz/fuzz_decode.c for SECONDS
# (default 300): libFuzzer mutates (flips bits in) the traces; a run over 5 s
# (-timeout) or output beyond a bound proportional to the trace (the
# target aborts) fails it, as a crash or a sanitizer report does.
# usage: fuzz/run.sh BUILD [SECONDS]
set -euo pipefail
BUILD=${1:-build}
SECS=${2:-300}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
TM=$BUILD/bin/tm
F=$BUILD/fuzz
mkdir -p "$F/seeds" "$F/corpus"
if [ ! -s "$F/rec.tmt" ]; then
    head -c 3000 docs/spec.md > "$F/input"
    "$TM" record --threads 1 --cfiat --config large --encoding tr_e --commit -o "$F/rec" -- gzip -c "$F/input" > /dev/null
fi
export TM_FUZZ_MODULES=$F/rec.modules
export TM_FUZZ_TMC=$F/rec.tmc
i=0
# seeds: the traces without load values in several configurations, and with
# load values (CFiat, the tool cache); the recording has its memory operands
for enc in $("$TM" config --list-encodings); do
    for x in "" "--timestamps" "--buffer min --port 1" "--cfiat" "--cfiat --buffer min --port 1"; do
        "$TM" model -q --config large --encoding $enc $x "$F/rec.tmc" -o "$F/seed.tmt"
        # 3 configuration bytes (fuzz_decode.c), then the trace bytes, at most 1 KB
        python3 - "$F/seed.tmt" "$F/seeds/s$i" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
enc, threads, flags, data = d[12], int.from_bytes(d[8:12], 'little'), d[13], d[33]
body = d[64:len(d) - (28 + 8 * threads)][:1024]   # header, trace, trailer (spec §5)
open(sys.argv[2], 'wb').write(bytes([enc, (threads - 1) % 8, (flags & 1) | (2 << 1) | ((data == 1) << 3)]) + body)
PY
        i=$((i + 1))
    done
done
echo "fuzz: $i seeds, $SECS s (module map $TM_FUZZ_MODULES)"
"$F/fuzz_decode" -max_total_time="$SECS" -max_len=2048 -timeout=5 -rss_limit_mb=4096 -print_final_stats=1 \
    "$F/corpus" "$F/seeds" 2>&1 | grep -vE '^#[0-9]+.*(NEW|REDUCE|pulse)' | tail -n 25
