#!/usr/bin/env bash
# tier: test
# tm std on AArch64 and RISC-V recordings (docs/standards.md): QEMU records
# the project's mt_pthread 4 and qsignals (signals: exceptions and their
# returns) of each ISA with tm record --frontend qemu --threads 8 --commit;
# tm std --verify -o BASE --stats then exits 0 with "verify: ok" for every
# variant of the ISA's standard (ARM ETMv4 for AArch64, RISC-V E-Trace for
# RV64); the rows are the standard's variants then the trace module's 16;
# the first variant's bits are its files' (BASE.T<n>.etm|ete), which the
# standard's own command checks again (tm etm4 --check, tm etrace --check);
# instructions are tm dump --count's.  Not run (exit 77) without qemu-user
# and the cross compilers.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TM:?}" "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
B=$(cd "$(dirname "$TMFAST")/.." && pwd)
isas=()
qemu_isas t_std_isa
cd "$TMP" || exit 1

for isa in "${isas[@]}"; do
    make -s -C "$ROOT" BUILD="$B" "isa-own-$isa" > "make-$isa.log" 2>&1 ||
        die "make isa-own-$isa: $(grep -m1 -E 'error|not found' "make-$isa.log")"
    case $isa in
    aarch64) std_name="ARM ETMv4" ext=etm sub=etm4 first=ETMv4 nvar=4 ;;
    riscv64) std_name="RISC-V E-Trace" ext=ete sub=etrace first=E-Trace nvar=10 ;;
    esac
    for prog in "mt_pthread 4" qsignals; do
        set -- $prog
        b=$isa-$1
        st=0
        TM_E2E_ISA=$isa tmo "$TMFAST" record --frontend qemu --threads 8 --commit -o "$b" -- "$B/isa/$isa/$1" "${@:2}" \
            > "$b.out" 2> "$b.rerr" || st=$?
        [ $st -eq 0 ] && [ -s "$b.tmc" ] || { tail -n 3 "$b.rerr"; die "$b: tm record: exit status $st"; }
        st=0
        "$TM" std "$b.tmc" -o "$b.s" --verify --stats "$b.json" > "$b.std" 2> "$b.err" || st=$?
        sancheck "$b.err" "tm std $b.tmc"
        if [ $st -eq 0 ] && grep -q "^verify: ok, $nvar variants of $std_name decoded match $b.tmc" "$b.std"; then
            ok "$b: $(tail -n 1 "$b.std")"
        else
            fail "$b: tm std --verify: exit $st: $(head -c 300 "$b.err")"
            continue
        fi
        ins=$("$TMFAST" dump --count "$b.tmc" | awk '/^instructions:/ {print $2}')
        bytes=$(cat "$b".s.T*."$ext" | wc -c)
        python3 - "$b.json" "$isa" "$std_name" "$first" "$nvar" "$ins" "$bytes" <<'PY' &&
import json, sys
s = json.load(open(sys.argv[1]))
isa, std, first, nvar, ins, nbytes = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
assert s["isa"] == isa and s["standard"] == std, s
rows = s["rows"]
assert [r["kind"] for r in rows] == ["standard"] * nvar + ["tm"] * 16, [r["name"] for r in rows]
assert rows[0]["name"] == first and rows[nvar]["name"] == "nx_b" and rows[-1]["name"] == "tage-l+tr_a", rows
assert all(r["verified"] is True for r in rows[:nvar]), rows[:nvar]
assert all(r["dropped"] == 0 for r in rows), rows
assert s["instructions"] == ins and s["checked"] == nvar * ins, (s["instructions"], s["checked"], ins)
assert rows[0]["bits"] == 8 * nbytes, (rows[0]["bits"], nbytes)
PY
            ok "$b: $nvar $std_name variants and the trace module's rows; the first is its files' $bytes bytes; $ins instructions" ||
            fail "$b: the statistics"
        if "$TMFAST" "$sub" --check "$b.tmc" "$b.s" > "$b.chk" 2>&1; then
            ok "$b: tm $sub --check accepts tm std's BASE.T<n>.$ext"
        else
            fail "$b: tm $sub --check of tm std's files: $(head -c 300 "$b.chk")"
        fi
    done
done
exit $((fails > 0))
