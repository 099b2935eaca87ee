#!/usr/bin/env bash
# tier: test
# The QEMU user-mode frontend (issue 37, docs/qemu.md): the TCG plugin
# build/lib/qemu/tm_qemu.so records AArch64 and RISC-V (RV64GC) Linux
# programs under qemu-aarch64 / qemu-riscv64 (QEMU 7.2) as a capture stream
# (out=FILE), which tm record --capture turns into a recording that tm decode
# --verify must accept, with load values (--cfiat) and the commit stream.
#
# Per ISA (each needs qemu-<isa> and the cross compiler <triplet>-gcc with
# its C library; an ISA whose tools are missing is left out, and without
# either the script prints one line and exits 77, "not run"), the programs
# cross-compiled by make isa-own-<isa> (tests/programs/isa.mk, into
# build/isa/<isa>; dynamic, run with -L /usr/<triplet>):
#   mt_pthread 4       4 worker threads and main (tests/programs)
#   qwork 4 20         4 threads, loads and stores (tests/programs/qemu)
#   qsignals           raise() handled 5 times, 3 SIGSEGVs caught
#                      (siglongjmp), a worker in sigsuspend sent SIGUSR2
#   forkwork 2 2000    children forked (they run untraced)
#   qexec /bin/echo    a failed execve, then an execve that succeeds
#   crash segv         killed by SIGSEGV: QEMU 7.2 tells the plugin nothing,
#                      the capture is cut short (tm record exits 1)
#   qexitrun 4 5       main calls exit() while 4 threads compute (QEMU's
#                      exclusive section at exit_group, docs/qemu.md §3);
#                      then 5 runs more of it and 5 of "qexitrun 4 5 segv"
#                      (main dies by SIGSEGV while they compute): no hang
#                      (t_qemu_stress.sh, regress tier: 30 runs of each)
# every qemu under `timeout` (lib.sh tmo: a hang is one failed line)
# each: the program's output and exit status under the plugin equal those
# without it; tm record --capture ... --cfiat --commit complete (exec: ends
# at the execve; crash: cut short); tm decode --verify OK.  And the refusals: an unknown plugin argument (one line, QEMU stops),
# an ISA event that is not the first event or names an unknown ISA (one line
# naming the offset).  About 30 s.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
B=$(cd "$(dirname "$TMFAST")/.." && pwd)
PLUGIN=${TM_QEMU_PLUGIN:-$B/lib/qemu/tm_qemu.so}
isas=() # set by qemu_isas (lib.sh)
qemu_isas t_qemu
[ -f "$PLUGIN" ] || die "$PLUGIN is not built (make)"
cd "$TMP" || exit 1

for isa in "${isas[@]}"; do
    Q=("qemu-$isa" -L "/usr/$isa-linux-gnu")
    mkdir -p "$isa"
    # built by make isa-own (tests/programs/isa.mk) into $B/isa/$isa
    make -s -C "$ROOT" BUILD="$B" "isa-own-$isa" >"$isa/make.log" 2>&1 ||
        die "$isa: make isa-own-$isa: $(grep -m1 -E 'error|not found' "$isa/make.log")"
    for p in mt_pthread forkwork crash qwork qsignals qexec qexitrun; do
        cp "$B/isa/$isa/$p" "$isa/$p" || die "$isa: $p is not built"
    done
    # name threads want_status record_status program args...
    run() {
        local name=$1 threads=$2 want=$3 want_rec=$4 base=$TMP/$isa/$1.rec
        shift 4
        tmo "${Q[@]}" "$@" >"$base.native" 2>&1
        local st0=$?
        tmo "${Q[@]}" -plugin "$PLUGIN,out=$base.cap,mem=1,log=$base.log" "$@" >"$base.out" 2>&1
        local st1=$?
        if hung $st0 || hung $st1; then
            fail "$isa $name: hung (killed after $QEMU_TIMEOUT s; status $st1 under the plugin, $st0 without it)"
            return
        fi
        if [ $st0 -ne "$want" ] || [ $st1 -ne "$want" ]; then
            fail "$isa $name: exit status $st1 under the plugin, $st0 without it (want $want)"
            cat "$base.log" 2>/dev/null
            return
        fi
        if ! cmp -s "$base.native" "$base.out"; then
            fail "$isa $name: the output differs under the plugin"
            diff "$base.native" "$base.out" | head -5
            return
        fi
        "$TMFAST" record --capture "$base.cap" -o "$base" --threads "$threads" --cfiat --commit >"$base.rec.out" 2>&1
        local st=$?
        if [ $st -ne "$want_rec" ]; then
            fail "$isa $name: tm record exit status $st (want $want_rec)"
            cat "$base.rec.out" "$base.log" 2>/dev/null | head -5
            return
        fi
        if ! "$TMFAST" decode --verify -q "$base.tmc" "$base.tmt" >"$base.verify" 2>&1; then
            fail "$isa $name: tm decode --verify"
            head -5 "$base.verify"
            return
        fi
        ok "$isa $name: $(grep -m1 '^capture:' "$base.stats" | cut -d, -f2-4)"
    }
    run mt_pthread 5 0 0 "$isa/mt_pthread" 4
    run qwork 5 0 0 "$isa/qwork" 4 20
    run qsignals 4 0 0 "$isa/qsignals"
    run forkwork 1 0 0 "$isa/forkwork" 2 2000
    run qexec 1 0 0 "$isa/qexec" /bin/echo "done"
    # QEMU 7.2 calls no plugin callback when a signal kills the program
    # (docs/qemu.md §8): the capture ends without END, cut short (exit 1)
    run crash 1 139 1 "$isa/crash" segv
    run qexitrun 5 0 0 "$isa/qexitrun" 4 5
    b=$TMP/$isa
    # threads still running when QEMU enters an exclusive section (exit_group;
    # a fatal signal's stop_all_tasks): no vCPU waits inside cpu_exec for a
    # lock held by a thread parked outside it (docs/qemu.md §3)
    hangs=0
    for ((k = 1; k <= 5; k++)); do
        for a in "4 5" "4 5 segv"; do
            # shellcheck disable=SC2086
            (tmo "${Q[@]}" -plugin "$PLUGIN,out=$b/ex.cap,mem=1,log=$b/ex.log" "$isa/qexitrun" $a >"$b/ex.out" 2>&1
                exit $?) 2>/dev/null
            st=$?
            if hung $st; then
                fail "$isa qexitrun $a: hung (killed after $QEMU_TIMEOUT s)"
                hangs=$((hangs + 1))
            fi
        done
    done
    [ $hangs -eq 0 ] && ok "$isa qexitrun: 10 runs with threads computing at exit() or at a fatal SIGSEGV, no hang"
    grep -q '^exec: the program replaced itself' "$b/qexec.rec.stats" || fail "$isa qexec: the recording does not end at the execve"
    grep -q 'cut short' "$b/crash.rec.rec.out" || fail "$isa crash: tm record does not say the capture was cut short"
    [ "$(grep -c . "$b/qsignals.rec.native")" -ge 1 ] || fail "$isa qsignals: no output"
    if ! grep -q '^capture: .* [1-9][0-9]* signals' "$b/qsignals.rec.stats"; then
        fail "$isa qsignals: the capture has no signals"
    fi
done

# refusals
isa=${isas[0]}
tmo "qemu-$isa" -L "/usr/$isa-linux-gnu" -plugin "$PLUGIN,out=x.cap,bogus=1" "$isa/qwork" 1 1 >bad.out 2>&1 &&
    fail "the plugin accepted an unknown argument"
if grep -q 'tm_qemu: unknown argument bogus=1' bad.out; then
    ok "an unknown plugin argument: refused"
else
    fail "an unknown plugin argument: $(cat bad.out)"
fi
# magic, ISA 1, ISA 1 (not first); magic, ISA 9
printf 'TM TCAP2\x0f\x01\0\0\0\0\0\0\x0f\x01\0\0\0\0\0\0' >isa2.cap
printf 'TM TCAP2\x0f\x09\0\0\0\0\0\0' >isa9.cap
"$TMFAST" record --capture isa2.cap -o isa2 >isa2.out 2>&1
st=$?
if [ $st -eq 1 ] && grep -q 'offset 16: an ISA event that is not the stream' isa2.out; then
    ok "a second ISA event: refused"
else
    fail "a second ISA event (exit $st): $(cat isa2.out)"
fi
"$TMFAST" record --capture isa9.cap -o isa9 >isa9.out 2>&1
st=$?
if [ $st -eq 1 ] && grep -q 'offset 8: unknown instruction set 9' isa9.out; then
    ok "an unknown ISA: refused"
else
    fail "an unknown ISA (exit $st): $(cat isa9.out)"
fi

[ "$fails" -eq 0 ] || exit 1
