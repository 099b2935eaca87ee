#!/usr/bin/env bash
# make gates: Yosys area of the trace module RTL.
#
#   bash scripts/gates.sh BUILD_DIR
#
# Synthesizes, each on its own, the core logic (tm_core with N = 1 for nx_b,
# tr_b, tr_e, tr_a, and tr_e and tr_a with time stamps), the predictors at
# the preset sizes
# (tm_gshare 512/1024/4096, tm_ras 8/16/32, tm_ibtb 16/64; for the
# TAGE-class presets of cmodel/config.c tm_tage (B, T, E, W, LMIN, LMAX) =
# tage-s (128, 2, 32, 5, 3, 12), tage-m (256, 3, 32, 7, 3, 24), tage-l (512,
# 6, 64, 9, 3, 60) and tm_ittage tage-m (8, 2, 8, 6, 2, 16), tage-l (32, 3,
# 16, 8, 2, 32), each with its tm_hist; tage-s has no indirect predictor)
# and the shared buffer (tm_buffer for N = 1, 4, 8 at the default buffer
# size and a 4-bit port), and prints a table per module and one per preset
# (small, tage-s, medium, tage-m, large, tage-l; one core = tm_core tr_e +
# its private predictors; then large with ttr_e, tage-l with tr_a and
# ttr_a) with the predictor state bits of spec 3.3.3, next to the paper's
# estimates.  rtl/syn/gates_report.py checks the state bits
# of each preset against the spec's table, and every predictor's flip-flops
# against its state bits (plus the valid bits of the tables without reset:
# one per row of 32 gshare counters, one per TAGE base counter).
#
# The TAGE-class predictors are synthesized whole: their tables become
# flip-flops (tm_ittage's are reset packed vectors, not memories).  On one
# core of a machine busy with another job, tm_ittage of tage-l took about
# 18 minutes and 4.5 GB (tage-m's 4 minutes), tm_tage of tage-l 6 minutes,
# those of tage-s and tage-m under a minute: the first run of make gates
# takes about 30 minutes of one core longer (68 minutes in all with
# GATES_JOBS=1 on that machine).
#
# The CFiat cache (tm_dcache, one core's private cache, N = 1) of the presets
# tool (32 KB, 4-way, 32-byte lines, g 4) and study (64 KB, 4-way, 64-byte
# lines, g 4) has 256 sets; synthesized whole it would take hours (the time
# grows about threefold per doubling of the sets: 16 sets 1-2.5 min, 32 sets
# 3-8 min on 2 cores, so the first run of make gates takes about 8 minutes
# longer).  So each preset is synthesized at 16 and 32 sets (SIZE / 16 and
# SIZE / 8, same ways, line and granule) and extrapolated linearly in the
# number of sets S: gates(S) = gates(32) + (S - 32) * (gates(32) - gates(16))
# / 16 (the per-set logic is the sets' share of the read multiplexers and
# write enables: linear in S).  The flip-flops are counted exactly instead:
# S * ASSOC * (tag + flags + valid + flag-valid) + S * LRU bits, with the
# tag width of S sets (64 - log2 line - log2 S); the script checks this
# formula against both synthesized sizes.  The reduced caches' tags are
# log2(256 / 32) = 3 bits wider than the full cache's, so the extrapolated
# gates are a slight overestimate (tags are most of the per-set logic).
#
# Flow (rtl/syn/synth.ys.in): read_verilog -sv; hierarchy -chparam;
# synth -flatten (generic gates; the predictor tables are inferred as
# memories and memory_map turns them into flip-flops: all state is
# flip-flops); stat; dffunmap; abc -g NAND; stat.  What counts:
#   cells     generic cells after synth (gates and flip-flops)
#   FF        flip-flop bits
#   gates     two-input NANDs and inverters after abc -g NAND (an inverter
#             counts as one gate; enables of flip-flops are multiplexers here)
#   NAND2-eq  gates + 6 x FF (a D flip-flop with asynchronous reset is about
#             six NAND2 in common standard-cell libraries)
# Yosys 0.23 cannot read some SystemVerilog the RTL uses; the sources are
# copied to BUILD_DIR/gates/src and rewritten there by rtl/syn/yosys_compat.py
# (meaning-preserving; see that file).  tm_top (multi-dimensional packed
# ports) is not read: it is not needed.
#
# Results are cached in BUILD_DIR/gates/cache by a hash of the sources a
# module needs, the flow, the parameters and the Yosys version, so a second
# run is instant and an edit reruns only the modules it concerns.
# Environment: GATES_JOBS (parallel Yosys runs, default nproc).
# Exit status: 0, or 1 with one line on stderr (missing tool or module,
# unreadable RTL, a failed synthesis).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
out="$build/gates"
syn="$root/rtl/syn"
err() { echo "gates: $*" >&2; }

command -v yosys >/dev/null 2>&1 || { err "yosys not found (make deps installs it)"; exit 1; }
command -v python3 >/dev/null 2>&1 || { err "python3 not found (make deps installs it)"; exit 1; }

# ---- the modules this needs ----
# The RTL's files: rtl/tm.f (the one file list), expanded for Yosys.
mapfile -t rtl < <(bash "$root/scripts/rtl_files.sh") && [ ${#rtl[@]} -gt 0 ] ||
    { err "cannot read the file list rtl/tm.f"; exit 1; }
missing=()
grep -qsE '^\s*package\s+tm_pkg\b' "$root/rtl/tm_pkg.sv" || missing+=("tm_pkg (rtl/tm_pkg.sv)")
for m in tm_gshare tm_ras tm_ibtb tm_hist tm_tage tm_ittage tm_msg_enc tm_core tm_buffer tm_dcache; do
    f=$(bash "$root/scripts/rtl_files.sh" "$m" 2>/dev/null) || { missing+=("$m (not in rtl/tm.f)"); continue; }
    grep -qsE "^\s*module\s+$m\b" "$f" || missing+=("$m (${f#"$root"/})")
done
if [ ${#missing[@]} -gt 0 ]; then
    err "missing RTL module(s): ${missing[*]}; nothing synthesized"
    exit 1
fi

# ---- sources readable by Yosys 0.23 ----
rm -rf "$out/src" "$out/work"
mkdir -p "$out/src" "$out/work" "$out/cache"
files=()
for f in "${rtl[@]}"; do   # tm_pkg first (the list's compile order)
    b=$(basename "$f")
    [ "$b" = tm_top.sv ] && continue
    cp "$f" "$out/src/" || { err "cannot copy $f"; exit 1; }
    files+=("$out/src/$b")
done
python3 "$syn/yosys_compat.py" "${files[@]}" 2>"$out/work/compat.err" || {
    err "cannot adapt the RTL for Yosys: $(head -n 1 "$out/work/compat.err")"; exit 1; }
yv=$(yosys -V 2>/dev/null | head -n 1)
if ! yosys -q -p "read_verilog -sv -defer ${files[*]}; hierarchy -check -top tm_core" \
        >"$out/work/parse.log" 2>&1; then
    err "yosys cannot read the RTL: $(grep -m1 -E 'ERROR' "$out/work/parse.log" | sed "s|$out/src/|rtl/|")"
    exit 1
fi

# ---- the jobs ----
# Longest message (spec 4.6; tm_pkg::msg_max_bits) for N threads, chunks
# bcnt (ca, cb), cc (ha, hb), time stamps ts.
chunked_max() { echo $(( $1 + 1 + ($1 < 64 ? (64 - $1 + $2 - 1) / $2 * ($2 + 1) : 0) )); }
ti_bits() { local w=0; while [ $((1 << w)) -lt "$1" ]; do w=$((w + 1)); done; echo $w; }
msg_max() { # n ca cb ha hb ts
    local n=$(( $(ti_bits "$1") + $2 + 1 + 5 + 2 * $(chunked_max "$2" "$3") + 64 ))
    [ "$6" = 1 ] && n=$(( n + $(chunked_max "$4" "$5") ))
    echo $n
}
buffer_job() { # N: tr_e without time stamps, default buffer, 4-bit port
    local n=$1 m b
    m=$(msg_max "$n" 3 2 4 2 0)
    b=$(( n * 64 )); local r=$(( (m + 63) / 64 * 64 ))
    [ $r -gt $b ] && b=$r
    echo "buffer_$n tm_buffer N=$n,SHARED=0,BUF_BITS=$b,PORT_BITS=4,MAXW=$m,RESERVE=$m"
}
TRE="CA=3,CB=2,TA=3,TB=4,HA=4,HB=2"
NXB="CA=8,CB=8,TA=16,TB=16,HA=8,HB=8"
# The caches at 16 and 32 sets (see above); SETS = SIZE / (LINE * ASSOC).
dcache_job() { # preset sets assoc line gran
    echo "dcache_$1_$2 tm_dcache SIZE=$(( $2 * $3 * $4 )),ASSOC=$3,LINE=$4,GRAN=$5,N=1"
}
# TAGE / ITTAGE of a tage-* preset (cmodel/config.c): base entries, tables,
# entries per table, tag bits, shortest and longest history.
tage_job() { # name module B T E W LMIN LMAX
    echo "$1 $2 BASE=$3,TABLES=$4,ENTRIES=$5,TAG=$6,LMIN=$7,LMAX=$8,P=1"
}
# Longest first (ittage_l takes about 18 minutes, tage_l about 6, on one core).
jobs=("$(dcache_job tool 32 4 32 4)"
      "$(dcache_job study 32 4 64 4)"
      "$(tage_job ittage_l tm_ittage 32 3 16 8 2 32)"
      "$(tage_job tage_l tm_tage 512 6 64 9 3 60)"
      "gshare_4096 tm_gshare ENTRIES=4096,P=1"
      "$(dcache_job tool 16 4 32 4)"
      "$(dcache_job study 16 4 64 4)"
      "$(tage_job ittage_m tm_ittage 8 2 8 6 2 16)"
       "ibtb_64 tm_ibtb ENTRIES=64,P=1"
       "gshare_1024 tm_gshare ENTRIES=1024,P=1"
       "ras_32 tm_ras ENTRIES=32,P=1"
       "core_tr_e tm_core N=1,ENC=2,TS=0,$TRE"
       "core_ttr_e tm_core N=1,ENC=2,TS=1,$TRE"
       "core_tr_a tm_core N=1,ENC=3,TS=0,$TRE"
       "core_ttr_a tm_core N=1,ENC=3,TS=1,$TRE"
       "core_tr_b tm_core N=1,ENC=1,TS=0,$NXB"
       "core_nx_b tm_core N=1,ENC=0,TS=0,$NXB"
       "$(buffer_job 8)"
       "gshare_512 tm_gshare ENTRIES=512,P=1"
       "ibtb_16 tm_ibtb ENTRIES=16,P=1"
       "$(tage_job tage_m tm_tage 256 3 32 7 3 24)"
       "$(tage_job tage_s tm_tage 128 2 32 5 3 12)"
       "ras_16 tm_ras ENTRIES=16,P=1"
       "$(buffer_job 4)"
       "$(buffer_job 1)"
       "ras_8 tm_ras ENTRIES=8,P=1")

# The files module TOP needs: the package, its own file and, recursively,
# those of the tm_* modules it instantiates.
deps() {
    local queue=("$1") seen=" " m sub
    echo "$out/src/tm_pkg.sv"
    while [ ${#queue[@]} -gt 0 ]; do
        m=${queue[0]}; queue=("${queue[@]:1}")
        case $seen in *" $m "*) continue ;; esac
        seen+="$m "
        [ -f "$out/src/$m.sv" ] || continue
        echo "$out/src/$m.sv"
        for sub in $(grep -oE '^\s*tm_[a-z0-9_]+\s+(#|u_)' "$out/src/$m.sv" | grep -oE 'tm_[a-z0-9_]+'); do
            queue+=("$sub")
        done
    done
}
# Cache key of a job: its files, the flow, its parameters, the Yosys version.
job_key() { # TOP PARAMS
    { cat $(deps "$1") "$syn/synth.ys.in"; printf '%s %s %s\n' "$1" "$2" "$yv"; } |
        sha256sum | cut -c1-24
}

# Runs one job (NAME TOP PARAMS) unless cached; prints nothing.
run_job() {
    local name=$1 top=$2 params=$3
    local key chp="" p
    key=$(job_key "$top" "$params")
    [ -s "$out/cache/$key.nand" ] && return 0
    for p in ${params//,/ }; do chp+=" -chparam ${p%%=*} ${p#*=}"; done
    sed -e "s|@FILES@|$(deps "$top" | tr '\n' ' ')|" -e "s|@TOP@|$top|g" -e "s|@PARAMS@|$chp|" \
        -e "s|@OUT@|$out/work/$name|g" "$syn/synth.ys.in" >"$out/work/$name.ys"
    local t0=$SECONDS
    if ! yosys -q -l "$out/work/$name.log" -s "$out/work/$name.ys" >/dev/null 2>&1; then
        echo "$name: $(grep -m1 -E 'ERROR' "$out/work/$name.log" || echo 'yosys failed')" \
            >"$out/work/$name.fail"
        return 1
    fi
    echo $(( SECONDS - t0 )) >"$out/work/$name.time"
    for s in generic nand time; do mv "$out/work/$name.$s" "$out/cache/$key.$s"; done
}

njobs=${GATES_JOBS:-$(nproc 2>/dev/null || echo 2)}
echo "gates: ${#jobs[@]} syntheses with $yv, $njobs at a time (cached in $out/cache)" >&2
for j in "${jobs[@]}"; do
    # shellcheck disable=SC2086
    set -- $j
    while [ "$(jobs -rp | wc -l)" -ge "$njobs" ]; do wait -n; done
    run_job "$1" "$2" "$3" &
done
wait
fails=$(cat "$out"/work/*.fail 2>/dev/null | head -n 1)
if [ -n "$fails" ]; then
    err "synthesis failed: $fails (log: $out/work/)"
    exit 1
fi

# ---- the tables ----
list="$out/work/jobs.tsv"
: >"$list"
for j in "${jobs[@]}"; do
    set -- $j
    key=$(job_key "$2" "$3")
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$out/cache/$key" >>"$list"
done
python3 "$syn/gates_report.py" "$list" "$yv" | tee "$out/gates.txt"
