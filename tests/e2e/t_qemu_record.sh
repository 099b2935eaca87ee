#!/usr/bin/env bash
# tier: test
# tm record --frontend qemu (issue 37, docs/qemu.md): AArch64 and RISC-V
# programs recorded by tm record itself (qemu-aarch64 / qemu-riscv64 with
# the plugin build/lib/qemu/tm_qemu.so through the transport's pipe), the
# program's ISA carried through every layer: the commit stream's header
# (docs/spec.md §2.1), the trace's (§5), the statistics, tm model, and the
# replay from the binaries (§6.1) with the ISA's classifier.
#
# Per ISA (each needs qemu-<isa> and <triplet>-gcc with its C library; an
# ISA whose tools are missing is left out; without either: exit 77, "not
# run"), the programs cross-compiled here (dynamic: tm record finds the
# guest's libraries in /usr/<triplet>):
#   mt_pthread 4    4 worker threads and main
#   qsignals        handled signals, SIGSEGVs caught, a thread sent SIGUSR2
#   forkwork 2 2000 children forked (untraced)
#   qexec           a failed execve, then one that succeeds
#   qtrap           three traps (BRK, EBREAK / UNIMP) caught: exceptions
#                   at the trapping instruction (SVC / ECALL are plain)
#   s.sh            a #! script whose interpreter is qtrap
# each: tm record --frontend qemu --cfiat --commit; the program's output
# and exit status equal those under qemu without tracing; tm decode
# --verify and tm decode --from-binary --verify OK; the ISA in .stats, the
# JSON and the from-binary listing.  Then: --threads auto with --and
# (tr_e and nx_b, the timing model's caches on the operands' addresses:
# addr=1), both traces verified; tm model of the commit stream (the ISA
# carried: tm decode --verify refuses a trace and a stream of two ISAs);
# tm cosim of a short recording PASS (first ISA).  Refusals: an AArch64 or
# RISC-V program with --frontend valgrind, an x86-64 one with --frontend
# qemu, a missing --qemu, a .tmt whose ISA byte is unknown, a .tmc whose
# ISA flags are, an ELF file of the wrong ISA in the module map.  About 40 s.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
: "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
B=$(cd "$(dirname "$TMFAST")/.." && pwd)
export TM_QEMU_PLUGIN=${TM_QEMU_PLUGIN:-$B/lib/qemu/tm_qemu.so}
isas=() # set by qemu_isas (lib.sh)
qemu_isas t_qemu_record
[ -f "$TM_QEMU_PLUGIN" ] || die "$TM_QEMU_PLUGIN is not built (make)"
cd "$TMP" || exit 1
unset QEMU_LD_PREFIX

# verify ISA BASE [TMC]: both replays of BASE.tmt against TMC (BASE.tmc).
verify() {
    local isa=$1 base=$2 tmc=${3:-$2.tmc}
    if ! "$TMFAST" decode --verify -q "$tmc" "$base.tmt" >"$base.v1" 2>&1; then
        fail "$isa $(basename "$base"): tm decode --verify: $(head -3 "$base.v1")"
        return 1
    fi
    if ! "$TMFAST" decode --from-binary --verify -q "$tmc" "$base.tmt" >"$base.v2" 2>&1; then
        fail "$isa $(basename "$base"): tm decode --from-binary --verify: $(head -3 "$base.v2")"
        return 1
    fi
}

for isa in "${isas[@]}"; do
    cc=$isa-linux-gnu-gcc
    mkdir -p "$isa"
    for p in mt_pthread forkwork; do
        $cc -std=gnu11 -O1 -o "$isa/$p" "$ROOT/tests/programs/$p.c" -lpthread || die "$isa: $p does not build"
    done
    for p in qsignals qexec qtrap; do
        $cc -std=gnu11 -O1 -Wall -Wextra -Werror -o "$isa/$p" "$ROOT/tests/programs/qemu/$p.c" -lpthread ||
            die "$isa: $p does not build"
    done
    # rec NAME THREADS program args...: recorded, compared, replayed
    rec() {
        local name=$1 threads=$2 base=$TMP/$isa/$1
        shift 2
        tmo "qemu-$isa" -L "/usr/$isa-linux-gnu" "$@" >"$base.nat.out" 2>"$base.nat.err"
        local st0=$?
        tmo "$TMFAST" record --frontend qemu --cfiat --commit --threads "$threads" -o "$base" -- "$@" \
            >"$base.out" 2>"$base.err"
        local st=$?
        if hung $st0 || hung $st; then
            fail "$isa $name: hung (killed after $QEMU_TIMEOUT s; tm record status $st, qemu alone $st0)"
            return
        fi
        if [ $st -ne $st0 ]; then
            fail "$isa $name: tm record exit status $st, $st0 under qemu alone: $(head -3 "$base.err")"
            return
        fi
        if ! cmp -s "$base.nat.out" "$base.out" || ! cmp -s "$base.nat.err" "$base.err"; then
            fail "$isa $name: the program's output under tm record differs from qemu's alone"
            diff "$base.nat.out" "$base.out" | head -5
            diff "$base.nat.err" "$base.err" | head -5
            return
        fi
        verify "$isa" "$base" || return
        if ! grep -qx "isa: $isa" "$base.stats" || ! grep -q "\"isa\": \"$isa\"" "$base.json"; then
            fail "$isa $name: .stats or .json does not name the ISA"
            return
        fi
        ok "$isa $name: $(grep -m1 '^capture:' "$base.stats" | cut -d, -f2-5); $(cut -d';' -f1 "$base.v2" | cut -c1-60)"
    }
    rec mt_pthread 5 "$isa/mt_pthread" 4
    rec qsignals 4 "$isa/qsignals"
    rec forkwork 1 "$isa/forkwork" 2 2000
    rec qexec 1 "$isa/qexec" /bin/echo 'done'
    rec qtrap 1 "$isa/qtrap"
    b=$TMP/$isa
    # a #! script whose interpreter is the ISA's program: QEMU is given the
    # interpreter, then the script, as the kernel would
    printf '#!%s\n' "$b/qtrap" >"$b/s.sh" && chmod +x "$b/s.sh"
    if tmo "$TMFAST" record --frontend qemu --commit --threads 1 -o "$b/s" -- "$b/s.sh" >"$b/s.out" 2>&1 &&
        [ "$(cat "$b/s.out")" = "traps 3" ] && verify "$isa" "$b/s"; then
        ok "$isa: a #! script whose interpreter is a program for $isa"
    else
        fail "$isa: a #! script: $(head -3 "$b/s.out")"
    fi
    grep -q '^capture: .* [1-9][0-9]* signals' "$b/qsignals.stats" || fail "$isa qsignals: the capture has no signals"
    grep -q '^exec: the program replaced itself' "$b/qexec.stats" || fail "$isa qexec: the recording does not end at the execve"
    # the from-binary listing says the ISA
    if "$TMFAST" decode --from-binary --tmc "$b/mt_pthread.tmc" -d "$b/mt_pthread.tmt" >"$b/list" 2>&1 &&
        head -1 "$b/list" | grep -q "; isa $isa" && grep -qE '^T0 0x[0-9a-f]+  \.ins[nt] 0x[0-9a-f]+$' "$b/list"; then
        ok "$isa: the from-binary listing: $(head -1 "$b/list" | cut -c1-70)"
    else
        fail "$isa: the from-binary listing: $(head -2 "$b/list")"
    fi

    # --threads auto, --and, the timing model's caches on addresses only
    tmo "$TMFAST" record --frontend qemu --threads auto --commit -o "$b/auto" --and --encoding nx_b -o "$b/auto2" \
        -- "$isa/mt_pthread" 4 >"$b/auto.out" 2>"$b/auto.err" || fail "$isa --threads auto --and: $(head -3 "$b/auto.err")"
    if verify "$isa" "$b/auto" && verify "$isa" "$b/auto2" "$b/auto.tmc" && cmp -s "$b/auto.out" "$b/mt_pthread.nat.out" &&
        grep -q 'data addresses: addresses' "$b/auto.stats"; then
        ok "$isa --threads auto --and (tr_e, nx_b; caches on addresses): both traces verify"
    else
        fail "$isa --threads auto --and: $(grep -m1 'data addresses' "$b/auto.stats")"
    fi

    # tm model of the commit stream carries its ISA into the trace (the
    # module map the recording wrote serves its replay from the binaries)
    cp "$b/mt_pthread.modules" "$b/m.modules"
    if "$TMFAST" model --cfiat "$b/mt_pthread.tmc" -o "$b/m.tmt" --stats "$b/m.json" >"$b/m.out" 2>&1 &&
        grep -q "\"isa\": \"$isa\"" "$b/m.json" && verify "$isa" "$b/m" "$b/mt_pthread.tmc"; then
        ok "$isa: tm model carries the ISA"
    else
        fail "$isa: tm model does not carry the ISA (tools/tm/cmd_model.c: tm_sweep_set_isa, tmt_write_isa): $(head -2 "$b/m.out") $(grep -o '"recording": {[^}]*}' "$b/m.json")"
    fi
done

# tm cosim of a short recording (the RTL does not depend on the ISA)
isa=${isas[0]}
if "$TMFAST" cosim "$isa/forkwork.tmc" >cos.out 2>&1 && grep -q '^PASS: ' cos.out; then
    ok "$isa: tm cosim: $(head -c 90 cos.out)"
else
    fail "$isa: tm cosim: $(tail -n 3 cos.out)"
fi

# refusals
refused() { # WHAT WANT_STATUS WANT_TEXT command...
    local what=$1 want=$2 text=$3
    shift 3
    tmo "$@" >ref.out 2>ref.err
    local st=$?
    if [ $st -eq "$want" ] && [ "$(wc -l <ref.err)" -eq 1 ] && grep -q -- "$text" ref.err; then
        ok "$what: refused ($(cut -c1-110 ref.err))"
    else
        fail "$what: exit $st (want $want): $(head -3 ref.err)"
    fi
}
refused "a program for $isa with --frontend valgrind" 1 "give --frontend qemu" \
    "$TMFAST" record -o v -- "$isa/mt_pthread" 1
refused "an x86-64 program with --frontend qemu" 1 "give --frontend valgrind or pin" \
    "$TMFAST" record --frontend qemu -o x -- /bin/true
refused "a missing --qemu" 2 "--qemu /nonexistent/qemu-$isa: no such program" \
    "$TMFAST" record --frontend qemu --qemu "/nonexistent/qemu-$isa" -o x -- "$isa/mt_pthread" 1
refused "--qemu without --frontend qemu" 2 "only with --frontend qemu" \
    "$TMFAST" record --qemu "qemu-$isa" -o x -- "$isa/mt_pthread" 1
# the .tmt's ISA byte (37) unknown, its checksum right
python3 - "$isa/forkwork.tmt" bad37.tmt <<'EOF'
import sys, zlib, struct
b = bytearray(open(sys.argv[1], 'rb').read())
b[37] = 7
b[60:64] = struct.pack('<I', zlib.crc32(bytes(b[:60])))
open(sys.argv[2], 'wb').write(b)
EOF
refused "a .tmt whose ISA byte is 7" 1 "bad37.tmt: offset 37: unknown instruction set 7" \
    "$TMFAST" decode --verify "$isa/forkwork.tmc" bad37.tmt
# the .tmc's header flags: ISA 15
zstd -q -d -c "$isa/forkwork.tmc" | python3 -c '
import sys; b = bytearray(sys.stdin.buffer.read()); b[12] = 15; sys.stdout.buffer.write(b)' | zstd -q -c >bad12.tmc
refused "a .tmc whose ISA flags are 15" 1 "bad12.tmc: offset 12: header flags 0xf: unknown instruction set 15" \
    "$TMFAST" decode --verify bad12.tmc "$isa/forkwork.tmt"
# the module map names an ELF file of another ISA
other=$([ "$isa" = aarch64 ] && echo riscv64 || echo aarch64)
"$other"-linux-gnu-gcc -O1 -o other "$ROOT/tests/programs/forkwork.c" 2>/dev/null ||
    cp /bin/true other # no cross compiler for the other ISA: an x86-64 file
prog=$(cd "$isa" && pwd)/forkwork
sed "s|$prog\$|$TMP/other|" "$isa/forkwork.modules" >wrong.modules
refused "an ELF file of another ISA in the module map" 1 "other is an ELF file for .*, but the trace's program is for $isa" \
    "$TMFAST" decode --from-binary --verify --modules wrong.modules "$isa/forkwork.tmc" "$isa/forkwork.tmt"

[ "$fails" -eq 0 ] || exit 1
