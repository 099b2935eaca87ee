#!/bin/bash
# tm — `verilator --lint-only -Wall` of the predictor, message-encoder and
# data-path RTL with several parameter sets each; exit status 1 on any
# warning.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VLT=$ROOT/testbench/unit/lint.vlt  # waives the package's unused constants only
n=0
bad=0

lint() { # module, -G overrides...
    local m=$1
    shift
    local out rc
    # rtl/tm.f, the RTL's one file list: modules outside $m's hierarchy are
    # not elaborated.
    out=$(verilator --lint-only -Wall "$VLT" -F "$ROOT/rtl/tm.f" --top-module "$m" "$@" 2>&1)
    rc=$?
    n=$((n + 1))
    if [ $rc -ne 0 ] || [ -n "$out" ]; then
        echo "FAIL $m $*"
        echo "$out" | head -30
        bad=$((bad + 1))
    fi
}

for p in 1 4; do for e in 0 1 2 256 4096; do lint tm_gshare -GENTRIES=$e -GP=$p; done; done
for p in 1 3; do for e in 0 1 2 7 8 32; do lint tm_ras -GENTRIES=$e -GP=$p; done; done
for p in 1 8; do for e in 0 2 4 16 64; do lint tm_ibtb -GENTRIES=$e -GP=$p; done; done
#        BASE  T E    W  LMIN LMAX
for c in "2     1 2    4  1    1" \
         "128   2 32   5  3    12" \
         "256   3 32   7  3    24" \
         "512   6 64   9  3    60" \
         "16384 8 4096 16 128  128"; do
    set -- $c
    for p in 1 3; do
        lint tm_tage -GBASE=$1 -GTABLES=$2 -GENTRIES=$3 -GTAG=$4 -GLMIN=$5 -GLMAX=$6 -GP=$p
    done
done
for c in "2     1 2    4  1    1" \
         "8     2 8    6  2    16" \
         "32    3 16   8  2    32" \
         "4     8 2    16 1    128"; do
    set -- $c
    for p in 1 3; do
        lint tm_ittage -GBASE=$1 -GTABLES=$2 -GENTRIES=$3 -GTAG=$4 -GLMIN=$5 -GLMAX=$6 -GP=$p
    done
done
#        TIW  TS     CA CB TA TB HA HB
for c in "0   1'b0   3  2  3  4  4  2" \
         "3   1'b1   3  2  3  4  4  2" \
         "2   1'b1   8  8  16 16 8  8" \
         "10  1'b1   1  1  1  1  1  1" \
         "10  1'b1   32 32 32 32 32 32" \
         "1   1'b0   5  7  13 1  32 3"; do
    set -- $c
    lint tm_msg_enc -GTIW=$1 -GTS=$2 -GCA=$3 -GCB=$4 -GTA=$5 -GTB=$6 -GHA=$7 -GHB=$8
done

for d in 0 1 2; do
    lint tm_msg_enc -GTIW=3 -GTS=1\'b1 -GDATA=$d
    lint tm_msg_enc -GTIW=0 -GTS=1\'b0 -GCA=1 -GCB=1 -GDATA=$d
done
# tr_a (ENC 3, spec §4.9): the adaptive codes
#        TIW  TS     CA CB TA TB DATA
for c in "0   1'b0   3  2  3  4  0" \
         "2   1'b1   3  2  3  4  0" \
         "10  1'b1   1  1  1  1  0" \
         "3   1'b1   32 32 1  1  0" \
         "3   1'b1   3  2  3  4  1" \
         "1   1'b0   5  7  13 1  2"; do
    set -- $c
    lint tm_msg_enc -GENC=3 -GTIW=$1 -GTS=$2 -GCA=$3 -GCB=$4 -GTA=$5 -GTB=$6 -GDATA=$7
done
#        TIW  TI    FA FB
for c in "0   0     3  2" \
         "3   5     3  2" \
         "2   3     8  8" \
         "10  1023  1  1" \
         "10  513   32 32" \
         "1   1     13 7"; do
    set -- $c
    lint tm_data_enc -GTIW=$1 -GTI=$2 -GFA=$3 -GFB=$4
done
#        SIZE      ASSOC LINE  GRAN N
for c in "32768    4     32    4    1" \
         "32768    4     32    4    4" \
         "65536    4     64    4    1" \
         "65536    4     64    4    8" \
         "1024     2     16    4    8" \
         "512      1     16    16   3" \
         "4096     16    16    1    2" \
         "8192     64    64    1    2" \
         "16384    2     4096  64   2" \
         "128      1     4     1    2" \
         "256      2     8     2    1" \
         "67108864 8     64    1    4"; do
    set -- $c
    lint tm_dcache -GSIZE=$1 -GASSOC=$2 -GLINE=$3 -GGRAN=$4 -GN=$5
done

echo "lint: $n runs, $bad with warnings"
[ "$bad" -eq 0 ]
