# tests/e2e/lib.sh — the helpers the end-to-end scripts share; each t_*.sh
# sources it: source "$(dirname "$0")/lib.sh".
#
# Reporting: a script either counts failures and goes on (fail, then exit
# nonzero at the end if $fails > 0) or stops at the first one (die).
fails=${fails:-0}
# E2E_TIER (tests/e2e/run.sh): check, test (the default) or regress.
# full_size: true in the regress tier, where a script runs its full-size
# inputs (more repetitions, larger streams, every configuration); the check
# and test tiers run the same checks on inputs sized for their time budget:
#   if full_size; then seeds=40; else seeds=10; fi
E2E_TIER=${E2E_TIER:-test}
full_size() { [ "$E2E_TIER" = regress ]; }
# ok WHAT: a passed check.
ok() { echo "ok   $*"; }
# fail WHAT: a failed check, counted in $fails; the script goes on.
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# die WHAT: a failed check that stops the script.
die() { echo "FAIL: $*"; exit 1; }
# sancheck FILE WHAT: stops the script if FILE holds a sanitizer report.
sancheck() { if grep -qE 'Sanitizer|runtime error' "$1"; then cat "$1"; die "$2: sanitizer report"; fi; }

# record_env: for the scripts that record programs: checks TM, TMFAST, TMP,
# ROOT; sets B (the build folder of $TMFAST), P (its test programs), E (their
# expected descriptors) and TM_VALGRIND_LIB (the sanitizer build's tm has no
# lib/ next to it).
record_env() {
    : "${TM:?}" "${TMFAST:?}" "${TMP:?}" "${ROOT:?}"
    B=$(cd "$(dirname "$TMFAST")/.." && pwd)
    P=$B/programs
    E=$ROOT/tests/programs/expected
    export TM_VALGRIND_LIB=$B/lib/valgrind
}

# ---- hand-made commit streams: printf escapes of the decompressed bytes ----
# uv N: unsigned LEB128 varint of N (N < 2^63).
uv() {
    local v=$1 out=""
    while (( v >= 128 )); do
        out+=$(printf '\\x%02x' $(( (v & 127) | 128 )))
        v=$(( v >> 7 ))
    done
    out+=$(printf '\\x%02x' "$v")
    printf '%s' "$out"
}
# hdr THREADS: the 16-byte header.
hdr() { printf '%s' "TMC\\x00\\x01\\x00\\x10\\x00\\x$(printf %02x "$1")\\x00\\x00\\x00\\x00\\x00\\x00\\x00"; }
# mk NAME ESCAPES: NAME.tmc = zstd of the bytes.
mk() { printf "$2" | zstd -q -c > "$1.tmc"; }

# gen_bad WANT ARGS...: `tm gen ARGS` (with $TM) is a usage error: exit 2,
# one line on stderr containing WANT, nothing on stdout; else the script stops.
gen_bad() {
    local want=$1; shift
    set +e
    $TM gen "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    set -e
    [ "$rc" -eq 2 ] || die "tm gen $*: exit $rc, expected 2"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || die "tm gen $*: not one line: $(cat "$TMP/err")"
    grep -q -- "$want" "$TMP/err" || die "tm gen $*: '$(cat "$TMP/err")' lacks '$want'"
    [ ! -s "$TMP/out" ] || die "tm gen $*: wrote to stdout"
}

# ---- instruction flows (tm dump --flow) of two recordings ----
# flow_cmp MODE EXE BASE1 BASE2: BASE1.tmc and BASE2.tmc of program EXE have
# the same flow per thread (tests/e2e/flowcmp.py MODE: exact, threads,
# edges[:J]); prints flowcmp's line into $FLOW_CMP.  0 if they do; 1 if
# they do not (the line says why); 2 if it could not compare (the line says
# why).  TMBIN: the tm to dump with ($TM by default).
flow_cmp() {
    local mode=$1 exe=$2 a=$3 b=$4 tmb=${TMBIN:-$TM} st=0
    for x in "$a" "$b"; do
        if ! "$tmb" dump --flow "$x.tmc" > "$x.flow" 2> "$x.flowerr"; then
            FLOW_CMP="tm dump --flow $x.tmc: $(head -n 1 "$x.flowerr")"
            return 2
        fi
    done
    FLOW_CMP=$(python3 "$ROOT/tests/e2e/flowcmp.py" "$mode" "$exe" "$a.flow" "$a.modules" "$b.flow" "$b.modules" 2>&1) || st=$?
    FLOW_CMP=$(printf '%s' "$FLOW_CMP" | tail -n 1)
    return $st
}

# verify TMBIN BASE WHAT [data]: the commit stream replays, and from the
# binaries (with "data": and load values are replayed).
verify() {
    local tm=$1 base=$2 what=$3 st=0
    "$tm" decode --verify "$base.tmc" "$base.tmt" > "$base.vout" 2> "$base.verr" || st=$?
    if [ $st -ne 0 ] || ! grep -q '^OK: ' "$base.vout"; then
        sed 's/^/    /' "$base.vout" "$base.verr" | head -n 5
        die "$what: tm decode --verify: exit status $st"
    fi
    if [ "${4:-}" = data ] && ! grep -q 'load values replayed' "$base.vout"; then
        die "$what: the replay checked no load values: $(cat "$base.vout")"
    fi
    sancheck "$base.verr" "$what: tm decode --verify"
    st=0
    "$tm" decode --from-binary --verify --modules "$base.modules" "$base.tmc" "$base.tmt" > "$base.fout" \
        2> "$base.ferr" || st=$?
    if [ $st -ne 0 ] || ! grep -q '^OK: ' "$base.fout"; then
        sed 's/^/    /' "$base.fout" "$base.ferr" | head -n 5
        die "$what: tm decode --from-binary --verify: exit status $st"
    fi
    sancheck "$base.ferr" "$what: tm decode --from-binary"
}

# record_rejects OPTIONS...: each string of options (split on spaces) makes
# `tm record OPTS -o bad -- $P/spin 1` a usage error: exit 2, one line, no
# sanitizer report, no bad.tmt; else the script stops.  Run in a scratch
# folder (it writes o.out and o.err there).
record_rejects() {
    local bad st
    for bad in "$@"; do
        st=0
        # shellcheck disable=SC2086
        "$TM" record $bad -o bad -- "$P/spin" 1 > o.out 2> o.err || st=$?
        [ $st -eq 2 ] && [ "$(wc -l < o.err)" -eq 1 ] || die "tm record $bad: exit $st: $(cat o.err)"
        sancheck o.err "tm record $bad"
        [ ! -e bad.tmt ] || die "tm record $bad left bad.tmt"
        ok "$bad: $(cat o.err)"
    done
}

# tmo CMD...: CMD under `timeout` (QEMU_TIMEOUT seconds, default 120; then
# SIGTERM, SIGKILL 5 s later): the QEMU scripts run every qemu (and every tm
# record that starts one) through it, so that a hang is a failed check of
# one line (hung STATUS: 124 or 137), never a stuck run.
QEMU_TIMEOUT=${QEMU_TIMEOUT:-120}
# (A subshell waits for it, its stderr elsewhere: the shell's "Segmentation
# fault" line about a program killed by a signal stays out of the command's
# output; the status is the same, 128 + the signal.)
tmo() { (timeout -k 5 "$QEMU_TIMEOUT" "$@" 2>&3 3>&-; exit $?) 3>&2 2>/dev/null; }
hung() { [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; }

# qemu_isas NAME [ISA...]: the ISAs (default aarch64 riscv64) whose
# qemu-<isa>, cross compiler and C library are here, into the array isas;
# none: NAME says so in one line and the script exits 77 (not run).
qemu_isas() {
    local name=$1 isa list
    shift
    list=("$@")
    [ ${#list[@]} -gt 0 ] || list=(aarch64 riscv64)
    isas=()
    for isa in "${list[@]}"; do
        if command -v "qemu-$isa" >/dev/null && command -v "$isa-linux-gnu-gcc" >/dev/null &&
            [ -d "/usr/$isa-linux-gnu/lib" ]; then
            isas+=("$isa")
        fi
    done
    if [ ${#isas[@]} -eq 0 ]; then
        echo "$name: needs qemu-user (qemu-aarch64, qemu-riscv64) and a cross compiler (aarch64-linux-gnu-gcc, riscv64-linux-gnu-gcc); not run"
        exit 77
    fi
}
