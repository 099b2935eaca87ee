#!/usr/bin/env bash
# The RTL's assertions fire (docs/rtl.md, "Assertions"): each mutant below
# changes one line of one module in a copy of the tree, so that one of that
# module's invariants breaks, and tm cosim of a stream that exercises it must
# stop on an assertion of the expected module (the "Assertion failed" line
# names its file), not pass and not fail on the comparison alone.  The
# tm_buffer mutants (and the tm_core stray bit, which tm_buffer's check of
# an offer catches) run the forced-overflow configuration (4 cores, shared,
# smallest buffer, 1-bit port); every other module has a mutant of its own,
# with a stream and options that reach it.  The unchanged copy must pass
# first (the harness works).
#   testbench/mutants.sh BUILD     (make regress; about a minute a mutant)
set -uo pipefail
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$root/$BUILD/bin/tm" ] && [ -f "$root/$BUILD/lib/libtm.a" ] ||
    { echo "mutants.sh: $root/$BUILD/bin/tm or lib/libtm.a is missing: build it first (make)" >&2; exit 2; }
work=$(mktemp -d /tmp/tm-mutants.XXXXXX)
trap 'rm -rf "$work"' EXIT
# tm cosim finds the tree from its own path: a copy of tm in a tree whose
# rtl/ is a copy (mutated), the rest links.
mkdir -p "$work/tree/build/bin" "$work/tree/build/lib"
for d in include testbench scripts; do ln -s "$root/$d" "$work/tree/$d"; done
cp "$root/$BUILD/bin/tm" "$work/tree/build/bin/tm"
cp "$root/$BUILD/lib/libtm.a" "$work/tree/build/lib/libtm.a"
tm=$root/$BUILD/bin/tm
{ "$tm" gen --directed overflow --threads 4 --seed 304 -o "$work/s.tmc" &&
  "$tm" gen --directed ras --threads 1 --seed 301 -o "$work/ras.tmc" &&
  "$tm" gen --directed ibtb --threads 1 --seed 301 -o "$work/ibtb.tmc" &&
  "$tm" gen --threads 2 --insns 60000 --seed 102 -o "$work/rand.tmc" &&
  "$tm" gen --threads 2 --insns 40000 --seed 402 --mem -o "$work/mem.tmc"; } 2> /dev/null ||
    { echo "mutants.sh: cannot generate the streams" >&2; exit 1; }
# The options of each stream's runs.
OVF="--config large --encoding tr_e --timestamps --shared --buffer min --port 1"
TAGE="--config tage-l --encoding tr_e"
CFIAT="--config large --encoding tr_e --cfiat --cache 1K --assoc 4 --line 16 --granularity 4"
DALL="--config large --encoding tr_e --shared --buffer min --port 1 --data all"
fails=0; runs=0

# mutant MODULE STREAM OPTIONS NAME FILE OLD NEW: FILE's one line OLD
# (exact) becomes NEW; tm cosim OPTIONS STREAM must stop on an assertion of
# MODULE (the unchanged RTL: OLD empty, must pass).
mutant() {
    local mod=$1 strm=$2 opts=$3 name=$4 file=$5 old=$6 new=$7 out
    rm -rf "$work/tree/rtl" "$work/tree/build/cosim"
    cp -r "$root/rtl" "$work/tree/rtl"
    if [ -n "$old" ]; then
        python3 - "$work/tree/rtl/$file" "$old" "$new" <<'PY' || { echo "FAIL $name: the line to change is not in $file exactly once"; fails=$((fails + 1)); return; }
import sys
p, old, new = sys.argv[1:]
s = open(p).read()
if s.count(old) != 1:
    sys.exit(1)
open(p, "w").write(s.replace(old, new))
PY
    fi
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    out=$("$work/tree/build/bin/tm" cosim $opts -q "$work/$strm.tmc" 2>&1)
    local rc=$?
    local hit
    hit=$(grep -E "Assertion failed" <<< "$out" | head -n 1)
    if [ -z "$old" ]; then
        if [ $rc -eq 0 ]; then echo "ok: the unchanged RTL passes ($strm: $opts)"; else
            echo "FAIL: the unchanged RTL does not pass ($strm: $opts):"; echo "$out" | tail -5; fails=$((fails + 1)); fi
    elif [ $rc -ne 0 ] && grep -qE "(^|[ /])$mod\.sv:[0-9]+: Assertion failed" <<< "$hit"; then
        echo "ok: $mod: $name: $(sed -E 's/.*Assertion failed in [^ ]*: *//' <<< "$hit")"
    else
        echo "FAIL $mod: $name: no $mod assertion stopped it (exit $rc):"; echo "$out" | tail -5; fails=$((fails + 1))
    fi
}

mutant - s "$OVF" "unchanged" tm_buffer.sv "" ""
mutant tm_buffer s "$OVF" "the reserve test removed" tm_buffer.sv \
    "(lostcnt == '0 || freeb - SW'(len_i[LENW*k +: LENW]) >= SW'(RESERVE));" "1'b1;"
mutant tm_buffer s "$OVF" "the fit test of a resync removed" tm_buffer.sv \
    "ok = SW'(len_i[LENW*k +: LENW]) <= freeb;" "ok = 1'b1;"
mutant tm_buffer s "$OVF" "a waiting resync reported as dropped" tm_buffer.sv \
    "drop_o[k]   = offer_i[k] && !ok && !resync_i[k];" "drop_o[k]   = offer_i[k] && !ok;"
mutant tm_buffer s "$OVF" "the occupancy one short" tm_buffer.sv \
    "occ_d         = OCCW'(occ);" "occ_d         = OCCW'(occ) - OCCW'(occ != '0);"
mutant tm_buffer s "$OVF" "the port always PORT_BITS lanes" tm_buffer.sv \
    "assign port_valid_o = PVW'(drain);" "assign port_valid_o = PVW'(PORT_BITS);"
mutant tm_buffer s "$OVF" "a stray bit above every message (tm_core)" tm_core.sv \
    "assign offer_bits_o  = cbits;" "assign offer_bits_o  = cbits | (CMAXW'(1) << clen);"
# One mutant per other module, caught by its own assertions.
mutant tm_top s "$OVF" "a suppressed core still offers" tm_top.sv \
    ".suppressed_i   (suppressed[k])," ".suppressed_i   (1'b0),"
mutant tm_core mem "$DALL" "DATA messages of a LOST thread" tm_core.sv \
    "assign data_raw = state_q == ST_RUN && dc_valid_o && !mem_store_i && need;" \
    "assign data_raw = dc_valid_o && !mem_store_i && need;"
mutant tm_msg_enc s "$OVF" "the length without the diffCC field" tm_msg_enc.sv \
    "len    = pos_f4 + len_f4;" "len    = pos_f4;"
mutant tm_data_enc mem "$CFIAT" "the Q bit at the end, not after Ti" tm_data_enc.sv \
    "| (MAXW'(1) << TIW)" "| (MAXW'(1) << len)"
mutant tm_dcache mem "$CFIAT" "an access leaves a younger way older" tm_dcache.sv \
    "if (k > w) lrow[pidx(w, k)] = 1'b0;" "if (k > w + 1) lrow[pidx(w, k)] = 1'b0;"
mutant tm_gshare s "$OVF" "a prediction without a branch" tm_gshare.sv \
    "pred_o[p] = valid_i[p] & cur[2*p+1];" "pred_o[p] = cur[2*p+1];"
mutant tm_ras ras "--config large --encoding tr_e" "a hit without a pop" tm_ras.sv \
    "end else if (pop_i[p] && cnt_c[CW*p +: CW] != '0) begin" "end else if (cnt_c[CW*p +: CW] != '0) begin"
mutant tm_ibtb ibtb "--config large --encoding tr_e" "a hit in way 0 rewrites the LRU way" tm_ibtb.sv \
    "way[p] = hit_way[2*p+1] ? 1'b1 : hit_way[2*p] ? 1'b0 : cur_lru[p];" "way[p] = hit_way[2*p+1] ? 1'b1 : cur_lru[p];"
mutant tm_hist rand "$TAGE" "the index fold drops the wrong bit" tm_hist.sv \
    "1:       r[8*i +: 8] = 8'(l % EB);" "1:       r[8*i +: 8] = 8'((l + 1) % EB);"
mutant tm_tage rand "$TAGE" "table i addressed as table i + 1" tm_tage.sv \
    "taddr = AW'(i * ENTRIES) | AW'(idx);" "taddr = AW'((i + 1) * ENTRIES) | AW'(idx);"
mutant tm_ittage rand "$TAGE" "a base index one bit wider" tm_ittage.sv \
    "idx[16*N*p +: BB] = pc_i[64*p +: BB] ^ pc_i[64*p+BB +: BB];" \
    "idx[16*N*p +: BB+1] = pc_i[64*p +: BB+1] ^ pc_i[64*p+BB +: BB+1];"

echo "mutants: $((runs - 1)) mutants, $fails failing"
[ $fails -eq 0 ]
