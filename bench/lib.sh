# Helpers of the make bench scripts, sourced by each with the build folder:
# sets BUILD, TM (its tm), reps (TM_BENCH_REPS, default 3) and dir (a
# temporary folder removed at exit).
BUILD=$1
TM="$BUILD/bin/tm"
reps=${TM_BENCH_REPS:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

now() { date +%s.%N; }

# best CMD...: the best wall time, in seconds, of $reps runs of CMD (its
# output discarded); a run that fails stops the bench (no time for it).
best() {
    local b=""
    for _ in $(seq "$reps"); do
        local t0 t1
        t0=$(now); "$@" > /dev/null 2> "$dir/best.err" ||
            { echo "bench: $* failed: $(head -n 1 "$dir/best.err")" >&2; exit 1; }
        t1=$(now)
        b=$(python3 -c "t=$t1-$t0; b='$b'; print(t if not b or t < float(b) else b)")
    done
    echo "$b"
}

# gen_text FILE MB: MB megabytes (a decimal number) of text, lines of twelve
# words from a fixed vocabulary and seed: the same file on every machine.
gen_text() {
    python3 - "$1" "$2" <<'PY'
import random, sys
random.seed(7)
words = [''.join(random.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(random.randint(2, 9))) for _ in range(5000)]
out, n = [], 0
target = int(float(sys.argv[2]) * 1e6)
while n < target:
    line = ' '.join(random.choice(words) for _ in range(12)) + '\n'
    out.append(line); n += len(line)
open(sys.argv[1], 'w').write(''.join(out))
PY
}
