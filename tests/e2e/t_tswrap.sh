#!/usr/bin/env bash
# tier: check
# Time-stamp counters narrower than 64 bits wrap; the trace still verifies
# (cycles compared modulo 2^ts_bits), and wrapping actually happens: with
# 8-bit counters some diffCC values are smaller than the true distance.
set -euo pipefail
"$TMFAST" gen --threads 3 --insns 400000 --seed 9 -o "$TMP/g.tmc"
for bits in 8 12 16 64; do
    for enc in nx_b tr_e; do
        "$TM" model --encoding $enc --timestamps --ts-bits $bits -q "$TMP/g.tmc" -o "$TMP/t.tmt"
        "$TM" decode --verify "$TMP/g.tmc" "$TMP/t.tmt" | grep -q '^OK:'
    done
done
# With 8 bits no diffCC can reach 256 (the field wraps); with 64 some do.
"$TM" model --encoding tr_e --timestamps --ts-bits 8 -q "$TMP/g.tmc" -o "$TMP/a.tmt"
"$TM" model --encoding tr_e --timestamps -q "$TMP/g.tmc" -o "$TMP/b.tmt"
max8=$("$TM" decode "$TMP/a.tmt" | grep -o 'diffCC=[0-9]*' | cut -d= -f2 | sort -n | tail -1)
max64=$("$TM" decode "$TMP/b.tmt" | grep -o 'diffCC=[0-9]*' | cut -d= -f2 | sort -n | tail -1)
echo "largest diffCC: $max8 with 8-bit counters, $max64 with 64-bit"
[ "$max8" -lt 256 ] && [ "$max64" -ge 256 ]
