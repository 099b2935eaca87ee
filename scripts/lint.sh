#!/usr/bin/env bash
# make lint: verilator --lint-only -Wall over every top-level configuration:
# the presets x encodings x time stamps x private/shared x N in {1,2,4,8};
# then data tracing (DATA 1 cfiat, 2 all): cache geometries (the presets,
# small, direct mapped with 4-byte lines, 4 KB lines with 64 flags) x
# N in {1,2,4,8}, the encoding, time stamps and predictor sharing rotating;
# then the TAGE-class presets (tage-s/m/l) x tr_b/tr_e x private/shared,
# N 1 or 4; then tr_a (ENC 3, spec §4.9) with the presets, time stamps,
# sharing, data tracing and N rotating.
# Waivers live in the RTL next to the code they concern, each with a comment.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rtl=(-F "$root/rtl/tm.f")  # the RTL's one file list
runs=0; fails=0
for preset in "512 8 0" "1024 16 16" "4096 32 64"; do
    set -- $preset
    for enc in "0 8 8 16 16 8 8" "1 8 8 16 16 8 8" "2 3 2 3 4 4 2"; do
        set -- $preset $enc
        g=$1 r=$2 i=$3 e=$4 ca=$5 cb=$6 ta=$7 tb=$8 ha=$9 hb=${10}
        for ts in 0 1; do
            for sh in 0 1; do
                for n in 1 2 4 8; do
                    args=(-GN=$n -GENC=$e "-GTS=1'b$ts" "-GSHARED=1'b$sh" -GGSHARE=$g -GRAS=$r -GIBTB=$i
                          -GCA=$ca -GCB=$cb -GTA=$ta -GTB=$tb -GHA=$ha -GHB=$hb -GBUF_BITS=$(( n * 64 > 384 ? n * 64 : 384 )))
                    if ! out=$(verilator --lint-only -Wall --top-module tm_top "${args[@]}" "${rtl[@]}" 2>&1); then
                        echo "lint: FAIL ${args[*]}"; echo "$out" | head -20; fails=$((fails + 1))
                    fi
                    runs=$((runs + 1))
                done
            done
        done
    done
done
encs=("2 3 2 3 4 4 2 3 2" "1 8 8 16 16 8 8 8 8" "0 8 8 16 16 8 8 8 8")
k=0
#        DATA SIZE  ASSOC LINE GRAN
for d in "1    32768 4     32   4" \
         "1    65536 4     64   4" \
         "1    1024  2     16   4" \
         "1    128   1     4    1" \
         "1    16384 2     4096 64" \
         "2    32768 4     32   4"; do
    set -- $d
    dm=$1 dsz=$2 das=$3 dln=$4 dgr=$5
    for n in 1 2 4 8; do
        set -- ${encs[$((k % 3))]}
        e=$1 ca=$2 cb=$3 ta=$4 tb=$5 ha=$6 hb=$7 fa=$8 fb=$9
        ts=$((k % 2)); sh=$(((k / 2) % 2)); k=$((k + 1))
        args=(-GN=$n -GENC=$e "-GTS=1'b$ts" "-GSHARED=1'b$sh" -GCA=$ca -GCB=$cb -GTA=$ta -GTB=$tb -GHA=$ha -GHB=$hb
              -GDATA=$dm -GDC_SIZE=$dsz -GDC_ASSOC=$das -GDC_LINE=$dln -GDC_GRAN=$dgr -GFA=$fa -GFB=$fb
              -GBUF_BITS=$(( n * 1024 > 2048 ? n * 1024 : 2048 )) -GPORT_BITS=32)
        if ! out=$(verilator --lint-only -Wall --top-module tm_top "${args[@]}" "${rtl[@]}" 2>&1); then
            echo "lint: FAIL ${args[*]}"; echo "$out" | head -20; fails=$((fails + 1))
        fi
        runs=$((runs + 1))
    done
done
# The TAGE-class presets (spec §3.3.1-3: tage-s, tage-m, tage-l; TAGE in
# place of gshare, ITTAGE in place of the iBTB) x tr_b/tr_e x private/shared,
# N (1, 4) and time stamps rotating.
k=0
#        RAS TAGE: BASE T E W LMIN LMAX  ITTAGE: BASE T E W LMIN LMAX
for t in "8   128 2 32 5 3 12   0 1 2 4 1 1" \
         "16  256 3 32 7 3 24   8 2 8 6 2 16" \
         "32  512 6 64 9 3 60   32 3 16 8 2 32"; do
    set -- $t
    r=$1; tg=(-GTAGE_BASE=$2 -GTAGE_TABLES=$3 -GTAGE_ENTRIES=$4 -GTAGE_TAG=$5 -GTAGE_LMIN=$6 -GTAGE_LMAX=$7
              -GITTAGE_BASE=$8 -GITTAGE_TABLES=$9 -GITTAGE_ENTRIES=${10} -GITTAGE_TAG=${11}
              -GITTAGE_LMIN=${12} -GITTAGE_LMAX=${13})
    for enc in "1 8 8 16 16 8 8" "2 3 2 3 4 4 2"; do
        set -- $enc
        for sh in 0 1; do
            n=$(( k % 2 ? 4 : 1 )); ts=$(( (k / 2) % 2 )); k=$((k + 1))
            args=(-GN=$n -GENC=$1 "-GTS=1'b$ts" "-GSHARED=1'b$sh" -GGSHARE=0 -GRAS=$r -GIBTB=0 "${tg[@]}"
                  -GCA=$2 -GCB=$3 -GTA=$4 -GTB=$5 -GHA=$6 -GHB=$7 -GBUF_BITS=$(( n * 64 > 384 ? n * 64 : 384 )))
            if ! out=$(verilator --lint-only -Wall --top-module tm_top "${args[@]}" "${rtl[@]}" 2>&1); then
                echo "lint: FAIL ${args[*]}"; echo "$out" | head -20; fails=$((fails + 1))
            fi
            runs=$((runs + 1))
        done
    done
done
# tr_a: the adaptive codes (tm_msg_enc) and the per-core state (tm_core);
# BUF_BITS holds the longest message (409 bits for N = 8 with time stamps
# and Q).
k=0
for preset in "512 8 0" "1024 16 16" "4096 32 64"; do
    set -- $preset
    for n in 1 2 4 8; do
        ts=$((k % 2)); sh=$(((k / 2) % 2)); dm=$(( k % 3 == 2 ? k % 2 + 1 : 0 )); k=$((k + 1))
        args=(-GN=$n -GENC=3 "-GTS=1'b$ts" "-GSHARED=1'b$sh" -GGSHARE=$1 -GRAS=$2 -GIBTB=$3
              -GCA=3 -GCB=2 -GTA=3 -GTB=4 -GHA=4 -GHB=2 -GDATA=$dm -GBUF_BITS=$(( dm ? 2048 : 512 )) -GPORT_BITS=8)
        if ! out=$(verilator --lint-only -Wall --top-module tm_top "${args[@]}" "${rtl[@]}" 2>&1); then
            echo "lint: FAIL ${args[*]}"; echo "$out" | head -20; fails=$((fails + 1))
        fi
        runs=$((runs + 1))
    done
done
echo "lint: $((runs - fails)) passed, $fails failed"
[ $fails -eq 0 ]
