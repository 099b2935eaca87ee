#!/bin/bash
# tm — Yosys checks of the predictor, message-encoder and data-path RTL.
#
#   testbench/unit/yosys.sh          read every module with a few parameter
#                                    sets: read_verilog -sv; hierarchy; proc;
#                                    opt; stat (fails on an error or warning)
#   testbench/unit/yosys.sh --sim    also synthesize one parameter set per
#                                    module (synth -flatten), and run the
#                                    unit testbench (tb_*.sv / ref_*.c) on
#                                    the gate netlist: Yosys' reading of the
#                                    RTL against the C library (about 40
#                                    minutes on 2 cores: each tm_msg_enc
#                                    netlist compiles for about 15)
#
# tm_msg_enc needs rtl/tm_pkg.sv (msg_t, msg_max_bits).  Yosys 0.23 does not
# parse `return` in functions; if the package does not read, the check says
# so, fails, and goes on with a copy whose `return X;` are rewritten as
# `<function> = X;` so that the module itself is still checked.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TB=$ROOT/testbench/unit
OUT=$ROOT/build/vunit/yosys
mkdir -p "$OUT"
n=0
bad=0

# Files from rtl/tm.f, the RTL's one file list (expanded: Yosys reads no -F).
rtl_file() { bash "$ROOT/scripts/rtl_files.sh" "$1" || exit 1; }
PKG=$(rtl_file tm_pkg)
if ! yosys -q -p "read_verilog -sv $PKG" > "$OUT/pkg.log" 2>&1; then
    echo "FAIL rtl/tm_pkg.sv does not read in Yosys: $(grep -m1 ERROR "$OUT/pkg.log")"
    bad=$((bad + 1))
    python3 - "$PKG" "$OUT/tm_pkg.sv" <<'EOF'
import re, sys
fn, out = None, []
for line in open(sys.argv[1]).read().split('\n'):
    m = re.search(r'\bfunction\b.*?(\w+)\s*\(', line)
    if m:
        fn = m.group(1)
    out.append(re.sub(r'\breturn\s+(.*);', lambda r: '%s = %s;' % (fn, r.group(1)), line))
open(sys.argv[2], 'w').write('\n'.join(out))
EOF
    PKG=$OUT/tm_pkg.sv
    echo "     (tm_msg_enc is checked with $PKG: return rewritten as an assignment)"
fi

# read_check module "K=V K=V ..."
read_check() {
    local m=$1 params=$2 pkg="" ch="" kv log rc
    case $m in tm_msg_enc|tm_data_enc) pkg=$PKG ;; esac
    for kv in $params; do ch="$ch -set ${kv%%=*} ${kv#*=}"; done
    log=$OUT/$m.$(echo "$params" | tr ' =' '_-').log
    yosys -p "read_verilog -sv $pkg $(rtl_file "$m"); chparam $ch $m; hierarchy -top $m; proc; opt; stat" \
        > "$log" 2>&1
    rc=$?
    n=$((n + 1))
    if [ $rc -ne 0 ] || grep -qiE '^(warning|error)|ERROR:' "$log"; then
        echo "FAIL yosys read $m $params (see $log)"
        grep -iE 'warning|error' "$log" | head -5
        bad=$((bad + 1))
    else
        echo "PASS yosys read $m $params: $(grep -m1 'Number of cells' "$log" | tr -s ' ')"
    fi
}

read_check tm_gshare "ENTRIES=0 P=1"
read_check tm_gshare "ENTRIES=1 P=4"
read_check tm_gshare "ENTRIES=16 P=3"
read_check tm_ras "ENTRIES=0 P=1"
read_check tm_ras "ENTRIES=1 P=3"
read_check tm_ras "ENTRIES=7 P=3"
read_check tm_ibtb "ENTRIES=0 P=1"
read_check tm_ibtb "ENTRIES=2 P=3"
read_check tm_ibtb "ENTRIES=8 P=3"
read_check tm_msg_enc "TIW=0 TS=0"
read_check tm_msg_enc "TIW=3 TS=1"
read_check tm_msg_enc "TIW=3 TS=1 DATA=1"
read_check tm_msg_enc "ENC=3 TIW=2 TS=1"
read_check tm_msg_enc "ENC=3 TIW=0 TS=0 DATA=1"
read_check tm_data_enc "TIW=3 TI=5"
read_check tm_dcache "SIZE=512 ASSOC=2 LINE=16 GRAN=4 N=3"
read_check tm_dcache "SIZE=128 ASSOC=1 LINE=4 GRAN=1 N=1"

if [ "${1:-}" = --sim ]; then
    make -C "$ROOT" -s build/lib/libtm.a || exit 1
    REFS=()
    for r in "$TB"/ref_*.c; do  # the references (ref_<module>.c, ref_common.c)
        o=$OUT/$(basename "$r" .c).o
        cc -std=c11 -O2 -Wall -Wextra -Werror -I"$ROOT/include" -c "$r" -o "$o" || exit 1
        REFS+=("$o")
    done

    # gate_sim module "chparams" "shim module text" "wrapper sed script" extra-sources...
    # (GATE_TAG=X: the work directory sim_<module>X, for a second parameter set)
    gate_sim() {
        local m=$1 ch=$2 shim=$3 sedx=$4 t=${1#tm_}
        shift 4
        local d=$OUT/sim_$t${GATE_TAG:-} pkg=""
        [ "$m" = tm_msg_enc ] && pkg=$PKG
        mkdir -p "$d"
        n=$((n + 1))
        if ! yosys -q -p "read_verilog -sv $pkg $(rtl_file "$m"); chparam $ch $m; synth -flatten -top $m; rename $m ${m}_net; write_verilog -noattr $d/net.v" \
                > "$d/synth.log" 2>&1; then
            echo "FAIL yosys synth $m $ch (see $d/synth.log)"
            bad=$((bad + 1))
            return
        fi
        echo "$shim" > "$d/shim.sv"
        sed -E "$sedx" "$TB/tb_$t.sv" > "$d/tb_$t.sv"
        rm -f "$d/obj/V"
        if ! verilator --cc --exe --build -j 2 -Wno-fatal -Wno-lint -Wno-style -O3 \
                -CFLAGS "-O2 -I$TB" -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1" --Mdir "$d/obj" \
                --top-module "tb_$t" -o V "$@" "$d/net.v" "$d/shim.sv" "$d/tb_$t.sv" "$TB/tb_$t.cpp" \
                "${REFS[@]}" "$ROOT/build/lib/libtm.a" -LDFLAGS "-lzstd -lz -lm" > "$d/build.log" 2>&1; then
            echo "FAIL gate-level $m: build (see $d/build.log)"
            bad=$((bad + 1))
            return
        fi
        # Every config of the wrapper is the synthesized parameter set; one line is enough.
        if "$d/obj/V" +cycles=100000 +msgs=20000 > "$d/run.log" 2>&1; then
            echo "PASS gate-level $(head -1 "$d/run.log" | cut -d' ' -f2-)"
        else
            echo "FAIL gate-level $m (see $d/run.log)"
            grep -v '^PASS' "$d/run.log" | head -5
            bad=$((bad + 1))
        fi
    }

    one() { # sed script setting every entry of the wrapper's parameter arrays NAME.. to VALUE..
        local s="" a
        while [ $# -ge 2 ]; do
            a="s/(localparam (int unsigned|bit) +$1 +\[NC\] = )'\{[^}]*\};/\1'{default: $2};/;"
            s="$s$a"
            shift 2
        done
        echo "$s"
    }

    gate_sim tm_gshare "-set ENTRIES 16 -set P 3" \
        "module tm_gshare #(parameter int unsigned ENTRIES = 16, parameter int unsigned P = 3) (
  input logic clk_i, input logic rst_ni, input logic clear_i, input logic [P-1:0] valid_i,
  input logic [64*P-1:0] pc_i, input logic [P-1:0] taken_i, output logic [P-1:0] pred_o);
  tm_gshare_net u (.*);
endmodule" "$(one ENT 16 PP 3)"
    gate_sim tm_ras "-set ENTRIES 7 -set P 3" \
        "module tm_ras #(parameter int unsigned ENTRIES = 7, parameter int unsigned P = 3) (
  input logic clk_i, input logic rst_ni, input logic clear_i, input logic [P-1:0] push_i,
  input logic [64*P-1:0] push_addr_i, input logic [P-1:0] pop_i, output logic [P-1:0] hit_o,
  output logic [64*P-1:0] pred_o);
  tm_ras_net u (.*);
endmodule" "$(one ENT 7 PP 3)"
    gate_sim tm_ibtb "-set ENTRIES 8 -set P 3" \
        "module tm_ibtb #(parameter int unsigned ENTRIES = 8, parameter int unsigned P = 3) (
  input logic clk_i, input logic rst_ni, input logic clear_i, input logic [P-1:0] valid_i,
  input logic [64*P-1:0] pc_i, input logic [64*P-1:0] target_i, output logic [P-1:0] hit_o,
  output logic [64*P-1:0] pred_o);
  tm_ibtb_net u (.*);
endmodule" "$(one ENT 8 PP 3)"
    # tm_msg_enc: the shim has the module's parameters and ports (the
    # netlist's are fixed: the synthesized set); two sets, tr_e with N = 8 and
    # time stamps, and tr_a (ENC 3) with N = 4 and time stamps (the examples
    # of spec §4.9 first; random A_cnt, A_cc and TF: both forms).
    msg_shim() { # TIW TS ENC
        echo "module tm_msg_enc #(
  parameter int unsigned TIW = $1, parameter bit TS = 1'b$2,
  parameter int unsigned CA = 3, CB = 2, TA = 3, TB = 4, HA = 4, HB = 2,
  parameter int unsigned DATA = 0, parameter int unsigned ENC = $3,
  parameter int unsigned MAXW = tm_pkg::ctrl_max_bits(ENC, TIW, TS, CA, CB, TA, TB, HA, HB) + ((DATA != 0) ? 1 : 0)
) (input logic valid_i, input tm_pkg::msg_t msg_i, input logic [15:0] acnt_i, input logic [15:0] acc_i,
   input logic [8:0] tf_i, output logic [MAXW-1:0] bits_o, output logic [\$clog2(MAXW+1)-1:0] len_o);
  tm_msg_enc_net u (.valid_i (valid_i), .msg_i (msg_i), .acnt_i (acnt_i), .acc_i (acc_i), .tf_i (tf_i),
                    .bits_o (bits_o), .len_o (len_o));
endmodule"
    }
    gate_sim tm_msg_enc "-set TIW 3 -set TS 1" "$(msg_shim 3 1 2)" \
        "$(one TIW 3 TSV 1 CAV 3 CBV 2 TAV 3 TBV 4 HAV 4 HBV 2 DTV 0 ENV 2)" "$(rtl_file tm_pkg)"
    GATE_TAG=_tra gate_sim tm_msg_enc "-set ENC 3 -set TIW 2 -set TS 1" "$(msg_shim 2 1 3)" \
        "$(one TIW 2 TSV 1 CAV 3 CBV 2 TAV 3 TBV 4 HAV 4 HBV 2 DTV 0 ENV 3)" "$(rtl_file tm_pkg)"
fi

echo "yosys: $n checks, $bad failed"
[ "$bad" -eq 0 ]
