#!/usr/bin/env bash
# tier: regress
# The QEMU frontend's big lock under QEMU's exclusive sections (docs/qemu.md
# §3): the plugin once deadlocked when a vCPU left cpu_exec holding the lock
# and QEMU then waited for every vCPU (exit_group, a fatal signal, fork,
# tb_flush) while the others spun for the lock inside cpu_exec.  Per ISA
# (riscv64, aarch64; binaries of make isa-own-<isa>), RUNS times each
# (TM_QEMU_STRESS_RUNS; default 30, 5 outside the regress tier), under
# `timeout 60` (a hang is one failed line, never a stuck run):
#   mt_pthread 4, qwork 4 20, forkwork 2 2000 (threads, fork),
#   qexitrun 4 5       main calls exit() while 4 threads compute
#   qexitrun 4 5 segv  main dies by SIGSEGV while 4 threads compute
# and each program's first capture per ISA: tm record --capture + tm decode
# --verify (values consistent; the SIGSEGV one may be cut short).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
B=$(cd "$(dirname "$TMFAST")/.." && pwd)
PLUGIN=${TM_QEMU_PLUGIN:-$B/lib/qemu/tm_qemu.so}
if full_size; then runs=30; else runs=5; fi
runs=${TM_QEMU_STRESS_RUNS:-$runs}
limit=${TM_QEMU_STRESS_TIMEOUT:-60}
isas=() # set by qemu_isas (lib.sh)
qemu_isas t_qemu_stress riscv64 aarch64
[ -f "$PLUGIN" ] || die "$PLUGIN is not built (make)"
cd "$TMP" || exit 1

# prog NAME WANT_STATUS THREADS ARGS...
progs=(
    "mt_pthread 0 5 mt_pthread 4"
    "qwork 0 5 qwork 4 20"
    "forkwork 0 1 forkwork 2 2000"
    "qexitrun 0 5 qexitrun 4 5"
    "qexitseg 139 5 qexitrun 4 5 segv"
)
for isa in "${isas[@]}"; do
    make -s -C "$ROOT" BUILD="$B" "isa-own-$isa" >"make-$isa.log" 2>&1 ||
        die "$isa: make isa-own-$isa: $(grep -m1 -E 'error|not found' "make-$isa.log")"
    mkdir -p "$isa"
    hangs=0 bad=0 total=0
    for spec in "${progs[@]}"; do
        read -r name want threads prog args <<<"$spec"
        for ((i = 1; i <= runs; i++)); do
            base=$isa/$name.$i
            # shellcheck disable=SC2086
            # (in a subshell: its shell, not this one, reports a death by a signal)
            (timeout -k 5 "$limit" "qemu-$isa" -L "/usr/$isa-linux-gnu" \
                -plugin "$PLUGIN,out=$base.cap,mem=1,log=$base.log" "$B/isa/$isa/$prog" $args >"$base.out" 2>&1
                exit $?) 2>/dev/null
            st=$?
            total=$((total + 1))
            if [ $st -eq 124 ] || [ $st -eq 137 ]; then
                hangs=$((hangs + 1))
                fail "$isa $name run $i: hung (killed after ${limit} s)"
                continue
            fi
            if [ $st -ne "$want" ]; then
                bad=$((bad + 1))
                fail "$isa $name run $i: exit status $st (want $want): $(head -c 300 "$base.log")"
                continue
            fi
            if [ "$i" -eq 1 ]; then
                "$TMFAST" record --capture "$base.cap" -o "$base" --threads "$threads" --cfiat --commit >"$base.rec" 2>&1
                rst=$?
                if [ $rst -ne 0 ] && ! { [ "$want" -ne 0 ] && [ $rst -eq 1 ] && grep -q 'cut short' "$base.rec"; }; then
                    fail "$isa $name: tm record exit $rst: $(head -3 "$base.rec")"
                elif ! "$TMFAST" decode --verify -q "$base.tmc" "$base.tmt" >"$base.verify" 2>&1; then
                    fail "$isa $name: tm decode --verify: $(head -3 "$base.verify")"
                else
                    ok "$isa $name: recorded and verified"
                fi
            fi
            rm -f "$base.cap"
        done
    done
    [ $hangs -eq 0 ] && [ $bad -eq 0 ] && ok "$isa: $total runs under the plugin, no hang"
done
[ "$fails" -eq 0 ] || exit 1
