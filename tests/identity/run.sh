#!/usr/bin/env bash
# Behaviour identity: a fixed set of model, decode, cosim and record runs whose
# outputs (traces, statistics, listings, verdict lines) are hashed and compared
# with tests/identity/hashes, stored before the redesign of issue 16.  Any
# difference means the behaviour changed.
#   tests/identity/run.sh BUILD           compare (exit 1 on any difference)
#   tests/identity/run.sh BUILD --update  rewrite tests/identity/hashes
# Needs BUILD/bin/tm, the Valgrind tool and the test programs (make all programs).
set -uo pipefail
BUILD=${1:-build}
mode=${2:-check}
case "$mode" in check|--update) ;; *) echo "identity: '$mode': allowed is --update" >&2; exit 2;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "$root/$BUILD" 2>/dev/null && pwd) || { echo "identity: no build directory $BUILD" >&2; exit 2; }
TM=$B/bin/tm
[ -x "$TM" ] || { echo "identity: $TM is missing: make all" >&2; exit 2; }
P=$B/programs
export TM_VALGRIND_LIB=$B/lib/valgrind
work=$(mktemp -d /tmp/tm-identity.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
out=$work/hashes
: > "$out"
h() {  # NAME FILE...: one line per file
    local name=$1; shift
    local f
    for f in "$@"; do
        echo "$name:$(basename "$f") $(sha256sum < "$f" | cut -c1-16)" >> "$out"
    done
}
run() {  # NAME CMD...: the command's stdout (without its speed) and exit status
    local name=$1; shift
    "$@" 2> /dev/null | sed -E 's#[0-9.]+ M instructions/s#- M instructions/s#g' > "$work/o"
    echo "rc=${PIPESTATUS[0]}" >> "$work/o"
    h "$name" "$work/o"
}

# Streams (tm gen is deterministic by seed).
"$TM" gen --threads 1 --insns 200K --seed 11 -o s1.tmc
"$TM" gen --threads 4 --insns 400K --seed 12 -o s4.tmc
"$TM" gen --threads 8 --insns 400K --seed 13 --predictability 0.3 --exc-rate 0.01 -o s8.tmc
"$TM" gen --threads 4 --insns 300K --seed 14 --mem -o m4.tmc
"$TM" gen --threads 2 --insns 100K --seed 15 --mem -o m2.tmc
"$TM" gen --directed all --threads 4 --seed 16 -o d4.tmc
h gen s1.tmc s4.tmc s8.tmc m4.tmc m2.tmc d4.tmc

# Model: every preset x encoding x time stamps on a 4-thread stream, shared
# predictors, narrow ports and minimum buffers (overflows), small time stamps.
i=0
model() {  # STREAM ARGS...
    local s=$1; shift
    i=$((i + 1))
    "$TM" model "$@" "$s" -o "t$i.tmt" --stats "t$i.json" > "t$i.txt" 2>&1
    echo "rc=$?" >> "t$i.txt"
    h "model$i $s $*" "t$i.tmt" "t$i.json" "t$i.txt"
}
# The configurations of the manifest's identity tier (rtl/configs.txt), in
# its order: every preset x encoding, with and without time stamps.
ids=$("$TM" config --list identity) || exit 2
for c in $ids; do
    read -r -a o < <("$TM" config "$c" --format opts)
    model s4.tmc "${o[@]}"
done
model s1.tmc
model s1.tmc --encoding tr_b --timestamps --ts-bits 8
model s8.tmc --shared --timestamps
model s8.tmc --config small --buffer min --port 1
model s8.tmc --encoding nx_b --shared --buffer min --port 2 --timestamps
model s8.tmc --gshare 256 --ras 4 --ibtb 8 --chunks-bcnt 2,3 --chunks-ta 5,4 --chunks-cc 3,3 --timestamps
model d4.tmc --timestamps --ts-bits 12
model d4.tmc --config small --encoding nx_b --buffer min --port 1
model m4.tmc --cfiat
model m4.tmc --cfiat --port 8
model m4.tmc --cfiat --cfiat-shared --timestamps
model m4.tmc --data all --buffer min --port 4 --shared
model m4.tmc --cfiat --cache 1K --assoc 2 --line 16 --granularity 4 --chunks-fah 2,2
model m4.tmc --cfiat --cache study --encoding tr_b
model m2.tmc --data all --encoding nx_b --timestamps
# (issue 39) LOST cores whose diffCC wraps while the buffer drains: the
# model's bulk of idle cycles must stop at the wrap (cmodel/model.c,
# advance_to).  Hashes of bd7eba8's outputs.
model d4.tmc --config small --encoding tr_e --port 1 --timestamps --ts-bits 8

# Decode: listings and verification of some of those traces.
run "decode t1" "$TM" decode t1.tmt
run "decode t18" "$TM" decode t18.tmt
run "decode t22" "$TM" decode t22.tmt
run "verify t22" "$TM" decode --verify s8.tmc t22.tmt
run "decode t27" "$TM" decode t27.tmt --tmc m4.tmc
run "verify t27" "$TM" decode --verify m4.tmc t27.tmt
run "verify t30" "$TM" decode --verify m4.tmc t30.tmt

# Record: the project's deterministic assembly programs (no scheduler, no
# libraries): the trace, its listing and its replay from the binary.
rec() {  # NAME PROG ARGS...
    local name=$1 prog=$2; shift 2
    "$TM" record --timing serial "$@" --commit -o "$name" -- "$P/$prog" > /dev/null 2>&1
    echo "rc=$?" > "$name.rc"
    # The commit stream without the module paths (they name the build folder).
    "$TM" dump "$name.tmc" | sed 's/ path=[^ ]*//' > "$name.dump"
    h "record $name $*" "$name.rc" "$name.tmt" "$name.dump"
    run "record $name decode" "$TM" decode "$name.tmt" --tmc "$name.tmc"
    run "record $name from-binary" "$TM" decode --from-binary --branches --tmc "$name.tmc" "$name.tmt"
    run "record $name verify" "$TM" decode --from-binary --verify "$name.tmc" "$name.tmt"
}
rec bt branchtest
rec bf branchfold --config small --encoding tr_b --timestamps
rec mb multiblock --cfiat
rec ev evict --data all --port 8
rec tt traptortest --encoding nx_b

# Cosim: verdict lines of parameter sets the quick regression also builds.
cos() {  # STREAM ARGS...
    local s=$1; shift
    # stdout only: the first run of a parameter set reports its build on stderr.
    "$TM" cosim -q "$@" "$s" > co.txt 2> /dev/null
    echo "rc=$?" >> co.txt
    h "cosim $s $*" co.txt
}
"$TM" gen --threads 1 --insns 60000 --seed 101 -o rand-1.tmc
"$TM" gen --directed overflow --threads 4 --seed 304 -o overflow-4.tmc
"$TM" gen --threads 4 --insns 400000 --seed 404 --mem -o mem-4.tmc
cos rand-1.tmc --config large --encoding tr_e
cos overflow-4.tmc --config large --encoding tr_e --timestamps --shared --buffer min --port 1
cos mem-4.tmc --config large --encoding tr_e --cfiat
cos d4.tmc --config small --encoding nx_b --timestamps

n=$(wc -l < "$out")
if [ "$mode" = --update ]; then
    cp "$out" "$root/tests/identity/hashes"
    echo "identity: $n hashes written to tests/identity/hashes"
    exit 0
fi
if diff -u "$root/tests/identity/hashes" "$out" > "$work/diff"; then
    echo "identity: $n outputs identical to tests/identity/hashes"
else
    echo "identity: outputs differ from tests/identity/hashes (stored - , now +):"
    grep '^[-+][^-+]' "$work/diff"
    exit 1
fi
