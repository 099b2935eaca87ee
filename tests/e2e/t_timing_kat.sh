#!/usr/bin/env bash
# tier: test
# Known answers of the timing model (docs/capture.md §3): threads' clocks
# wait only for what a real multicore would make them wait for (a futex
# wait for its wake, a new thread for its creator's clone, a join for the
# thread's end, a load for the store whose bytes it read; false sharing
# orders nothing).  Five programs (tests/programs/ka_*.c), each recorded
# with `tm record --threads auto` through Valgrind (x86-64) and with
# --frontend qemu (their aarch64 and riscv64 builds, tests/programs/isa.mk),
# each on the default machine and with --no-caches; the checks read
# BASE.json's machine.cycles and machine.cores (per core: instructions, ipc
# and cycles {busy, ifetch, data, data_l1, data_l2, data_memory, futex,
# join, store, load, not_started, ended, clamped}, which add up to
# machine.cycles; data_l* a split of data), cycles(...) below being
# machine.cycles of a run on the same machine model:
#   a. ka_barrier N R W (N workers, R rounds of W units, a barrier each
#      round): cycles(N) within 5% of cycles(1), and at N >= 2 a core waited
#      in a futex or the workers' own cycles (busy+ifetch+data) agree within 5%.
#   b. ka_falseshare N M (thread i increments its own int of one line):
#      no core waits for a store; --no-caches: cycles(N) within 5% of cycles(1).
#   c. ka_lock N M (a mutex around nearly all the work): serialized,
#      cycles(N) - cycles(ka_lock 1 0) >= 0.75 N (cycles(1) - cycles(ka_lock 1 0))
#      (the start of the program, paid once at any N, left out).
#   d. ka_pipe S K W (S stages, queues of 4): cycles(S) within [0.85, 1.3]
#      cycles(1) (K + S - 1) / K.
#   e. ka_spin W1 W2 (B spins on main's flag, then works): cycles(W1, W2)
#      within 10% of cycles(W1, 0) + cycles(0, W2) - cycles(0, 0); through
#      Valgrind, B's core waited for main's store.
# Every run: one core per thread, no "load" waits (no values captured),
# with --no-caches no ifetch or data cycles; the program's own check passes
# (exit 0).  Sizes (each recording at most about 5 M instructions; test /
# regress tier): ka_barrier R 10 / 20, W 50 / 100, N 1 2 4 8 (QEMU 1 4 /
# 1 2 4 8); ka_falseshare M 100000 / 300000 at N 4 / 4 8; ka_lock M 3000 /
# 6000 at N 4 / 4 8; ka_pipe K 20 / 48, W 32 / 40 at S 4 / 4 8 (K > 5 (S - 1):
# the queues cannot hold every item, so that stage 0 cannot end, in the
# instrumenter's order, before main has created the last stage; else main's
# pthread_create would read the ended thread's store to glibc's thread count
# and start the last stage after it); ka_spin W1 1500 / 3000, W2 1000 / 2000.
# The programs keep glibc's own true sharing out of the answers: linked with
# -z now (no lazy binding one thread resolves and another reads), and
# ka_falseshare's threads neither exit nor are joined (its header).  Needs
# qemu-aarch64, qemu-riscv64 and the cross compilers (make deps): without
# them it fails in one line.  About 20 s (79 recordings).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
record_env
export TM_QEMU_PLUGIN=${TM_QEMU_PLUGIN:-$B/lib/qemu/tm_qemu.so}
unset QEMU_LD_PREFIX # tm record gives QEMU /usr/<triplet>
cd "$TMP" || exit 1
if full_size; then
    bar_r=20 bar_w=100 bar_nv="1 2 4 8" bar_nq="1 2 4 8" fs_m=300000 fs_n="4 8" lk_m=6000 lk_n="4 8"
    pp_k=48 pp_w=40 pp_s="4 8" sp_w1=3000 sp_w2=2000
else
    bar_r=10 bar_w=50 bar_nv="1 2 4 8" bar_nq="1 4" fs_m=100000 fs_n=4 lk_m=3000 lk_n=4
    pp_k=20 pp_w=32 pp_s=4 sp_w1=1500 sp_w2=1000
fi
progs=(ka_barrier ka_falseshare ka_lock ka_pipe ka_spin)
for p in "${progs[@]}"; do [ -x "$P/$p" ] || die "$P/$p is not built (make programs)"; done
for isa in aarch64 riscv64; do
    for t in "qemu-$isa" "$isa-linux-gnu-gcc"; do
        command -v "$t" >/dev/null || die "$isa: no $t (make deps installs qemu-user and gcc-$isa-linux-gnu)"
    done
    [ -d "/usr/$isa-linux-gnu/lib" ] || die "$isa: no /usr/$isa-linux-gnu/lib (make deps installs libc6-dev-*-cross)"
    make -s -C "$ROOT" BUILD="$B" "${progs[@]/#/$B/isa/$isa/}" >"make.$isa.log" 2>&1 ||
        die "$isa: make ${progs[*]/#/$B/isa/$isa/}: $(grep -m1 -E 'error|not found|No rule' "make.$isa.log")"
done
[ -f "$TM_QEMU_PLUGIN" ] || die "$TM_QEMU_PLUGIN is not built (make)"

# kat.py CHECK LABEL ARGS...: one check on the runs' BASE.json; prints the
# line for ok, or the reason (exit 1).
cat >kat.py <<'PY'
import json, sys
KEYS = ("busy", "ifetch", "data", "futex", "join", "store", "load", "not_started", "ended", "clamped")
SPLIT = ("data_l1", "data_l2", "data_memory")
class Bad(Exception):
    pass
def isint(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0
def run(spec):
    """spec THREADS:BASE[:nocache]: BASE.json's machine.cycles and cores, checked."""
    threads, base, *mach = spec.split(":")
    f = base + ".json"
    try:
        d = json.load(open(f))
    except (OSError, ValueError) as e:
        raise Bad(f"{f}: {e}")
    m = d.get("machine")
    if not isinstance(m, dict) or not isint(m.get("cycles")) or m["cycles"] == 0:
        raise Bad(f"{f}: no machine.cycles: {str(m)[:200]}")
    cyc, cores = m["cycles"], m.get("cores")
    if not isinstance(cores, list) or len(cores) != int(threads):
        raise Bad(f"{f}: machine.cores: {len(cores) if isinstance(cores, list) else cores} cores, not {threads}")
    for i, c in enumerate(cores):
        w = f"{f}: core {i}"
        cy = c.get("cycles") if isinstance(c, dict) else None
        if not isinstance(cy, dict) or c.get("core") != i or not isint(c.get("instructions")):
            raise Bad(f"{w}: not {{core: {i}, instructions, ipc, cycles}}: {str(c)[:200]}")
        if not isinstance(c.get("ipc"), (int, float)) or isinstance(c.get("ipc"), bool):
            raise Bad(f"{w}: ipc {c.get('ipc')!r}")
        if set(cy) != set(KEYS + SPLIT) or not all(isint(cy[k]) for k in KEYS):
            raise Bad(f"{w}: cycles {cy}")
        if not all(cy[k] is None or isint(cy[k]) for k in SPLIT):
            raise Bad(f"{w}: cycles {cy}")
        if all(cy[k] is not None for k in SPLIT) and sum(cy[k] for k in SPLIT) != cy["data"]:
            raise Bad(f"{w}: data_l1 + data_l2 + data_memory != data: {cy}")
        if sum(cy[k] for k in KEYS) != cyc:
            raise Bad(f"{w}: its cycles add up to {sum(cy[k] for k in KEYS)}, machine.cycles {cyc}: {cy}")
        if cy["load"]:
            raise Bad(f"{w}: {cy['load']} cycles waiting for a load without values captured")
        if mach and (cy["ifetch"] or cy["data"]):
            raise Bad(f"{w}: --no-caches, yet ifetch {cy['ifetch']} data {cy['data']}")
    if isint(d.get("instructions")) and sum(c["instructions"] for c in cores) != d["instructions"]:
        raise Bad(f"{f}: the cores' instructions add up to {sum(c['instructions'] for c in cores)}, not {d['instructions']}")
    return cyc, [c["cycles"] for c in cores]
def within(x, lo, hi, what):
    if not lo <= x <= hi:
        raise Bad(f"{what} = {x:.3f}, not within [{lo}, {hi}]")
def barrier(*runs):  # N=SPEC...: cycles(N) within 5% of cycles(1)
    res = {int(n): run(s) for n, s in (a.split("=", 1) for a in runs)}
    c1, out = res[1][0], [f"N=1 {res[1][0]}"]
    for n in sorted(res)[1:]:
        c, cores = res[n]
        within(c / c1, 0.95, 1.05, f"cycles(N={n}) {c} / cycles(1) {c1}")
        fut = [i for i, cy in enumerate(cores) if cy["futex"] > 0]
        act = [cy["busy"] + cy["ifetch"] + cy["data"] for cy in cores[1:]]
        if fut:
            why = f"futex waits on {len(fut)} cores"
        elif max(act) <= 1.05 * min(act):
            why = f"no futex wait, the workers' own cycles within {max(act) / min(act) - 1:.1%}"
        else:
            raise Bad(f"N={n}: no core waited in a futex and the workers' own cycles range {min(act)}..{max(act)}")
        out.append(f"N={n} {c} ({c / c1:.3f}, {why})")
    return "; ".join(out)
def falseshare(n, spec, spec1=None):  # no store waits; cycles(N) within 5% of cycles(1)
    c, cores = run(spec)
    st = sum(cy["store"] for cy in cores)
    if st:
        raise Bad(f"N={n}: {st} cycles waiting for stores: {[cy['store'] for cy in cores]}")
    if spec1 is None:
        return f"N={n} {c} cycles, no store waits"
    c1, _ = run(spec1)
    within(c / c1, 0.95, 1.05, f"cycles(N={n}) {c} / cycles(1) {c1}")
    return f"N={n} {c} cycles, no store waits; N=1 {c1} ({c / c1:.3f})"
def lock(n, spec0, spec1, specn):  # serialized
    n, (c0, _), (c1, _), (c, _) = int(n), run(spec0), run(spec1), run(specn)
    if c1 <= c0:
        raise Bad(f"cycles(1) {c1} <= cycles(M=0) {c0}")
    r = (c - c0) / (n * (c1 - c0))
    if r < 0.75:
        raise Bad(f"cycles(N={n}) {c}, cycles(1) {c1}, M=0 {c0}: (c(N) - c0) / (N (c(1) - c0)) = {r:.3f} < 0.75")
    return f"N={n} {c}, N=1 {c1}, M=0 {c0}: {r:.3f} of N x the work of one (whole runs: {c / (n * c1):.3f})"
def pipe(s, k, spec1, specs):
    s, k, (c1, _), (c, _) = int(s), int(k), run(spec1), run(specs)
    want = c1 * (k + s - 1) / k
    within(c / want, 0.85, 1.3, f"cycles(S={s}) {c} / (cycles(1) {c1} x (K + S - 1) / K)")
    return f"S={s} {c}, S=1 {c1}: {c / want:.3f} x cycles(1) (K + S - 1) / K"
def spin(store, s12, s1, s2, s0):
    (c, cores), (c1, _), (c2, _), (c0, _) = run(s12), run(s1), run(s2), run(s0)
    want = c1 + c2 - c0
    within(c / want, 0.9, 1.1, f"cycles(W1, W2) {c} / (c(W1, 0) {c1} + c(0, W2) {c2} - c(0, 0) {c0})")
    if store == "store" and cores[1]["store"] <= 0:
        raise Bad(f"B's core (1) did not wait for main's store: {cores[1]}")
    return f"{c} / ({c1} + {c2} - {c0}) = {c / want:.3f}; B waited {cores[1]['store']} cycles for stores"
try:
    print(f"{sys.argv[2]}: {globals()[sys.argv[1]](*sys.argv[3:])}")
except (Bad, KeyError, TypeError, ZeroDivisionError) as e:
    print(f"{sys.argv[2]}: {e if isinstance(e, Bad) else f'{type(e).__name__} {e}'}")
    sys.exit(1)
PY
# kat CHECK WHAT ARGS...: kat.py's check, an ok line or the script stops.
kat() {
    local line
    if line=$(python3 kat.py "$@" 2>&1); then ok "$line"; else die "$line"; fi
}

# rec FE MACH THREADS NAME ARGS...: tm record --threads auto of NAME ARGS
# (FE: x86-64 through Valgrind, aarch64 or riscv64 through QEMU; MACH:
# default or nocache); sets R to THREADS:BASE[:nocache] for kat.py.  The
# program must exit 0 (its own check) and print its line.
rec() {
    local fe=$1 mach=$2 threads=$3 name=$4 st=0 prog opts=(--threads auto)
    shift 4
    local base
    base=$fe.$mach.$name.$(IFS=_; echo "$*")
    R=$threads:$base
    [ "$mach" = nocache ] && opts+=(--no-caches) && R+=:nocache
    if [ "$fe" = x86-64 ]; then
        prog=$P/$name
    else
        prog=$B/isa/$fe/$name
        opts+=(--frontend qemu)
    fi
    tmo "$TMFAST" record "${opts[@]}" -o "$base" -- "$prog" "$@" >"$base.out" 2>"$base.err" || st=$?
    hung $st && die "$fe $mach: tm record ${opts[*]} $name $*: hung (killed after $QEMU_TIMEOUT s)"
    [ $st -eq 0 ] || die "$fe $mach: tm record ${opts[*]} $name $*: exit $st: $(grep -v '^==' "$base.err" | head -n 2)"
    grep -q "^$name $*: " "$base.out" || die "$fe $mach: $name $*: printed '$(head -c 200 "$base.out")'"
}

for fe in x86-64 aarch64 riscv64; do
    for mach in default nocache; do
        w="$fe $mach"
        echo "== $w"
        nl=$bar_nv
        [ "$fe" = x86-64 ] || nl=$bar_nq
        runs=()
        for n in $nl; do
            rec "$fe" "$mach" $((n + 1)) ka_barrier "$n" "$bar_r" "$bar_w"
            runs+=("$n=$R")
        done
        kat barrier "$w a. ka_barrier R=$bar_r W=$bar_w" "${runs[@]}"

        one=()
        if [ "$mach" = nocache ]; then rec "$fe" "$mach" 2 ka_falseshare 1 "$fs_m" && one=("$R"); fi
        for n in $fs_n; do
            rec "$fe" "$mach" $((n + 1)) ka_falseshare "$n" "$fs_m"
            kat falseshare "$w b. ka_falseshare M=$fs_m" "$n" "$R" "${one[@]}"
        done

        rec "$fe" "$mach" 2 ka_lock 1 0 && r0=$R
        rec "$fe" "$mach" 2 ka_lock 1 "$lk_m" && r1=$R
        for n in $lk_n; do
            rec "$fe" "$mach" $((n + 1)) ka_lock "$n" "$lk_m"
            kat lock "$w c. ka_lock M=$lk_m" "$n" "$r0" "$r1" "$R"
        done

        rec "$fe" "$mach" 2 ka_pipe 1 "$pp_k" "$pp_w" && r1=$R
        for s in $pp_s; do
            rec "$fe" "$mach" $((s + 1)) ka_pipe "$s" "$pp_k" "$pp_w"
            kat pipe "$w d. ka_pipe K=$pp_k W=$pp_w" "$s" "$pp_k" "$r1" "$R"
        done

        sp=()
        for a in "$sp_w1 $sp_w2" "$sp_w1 0" "0 $sp_w2" "0 0"; do
            # shellcheck disable=SC2086
            rec "$fe" "$mach" 2 ka_spin $a
            sp+=("$R")
        done
        store=-
        [ "$fe" = x86-64 ] && store=store
        kat spin "$w e. ka_spin W1=$sp_w1 W2=$sp_w2" "$store" "${sp[@]}"
    done
done
echo "all timing known answers passed"
