#!/usr/bin/env bash
# make gates: Yosys area of the trace module RTL.
#
#   bash scripts/gates.sh BUILD_DIR
#   GATES_LIST=1 bash scripts/gates.sh BUILD_DIR   prints the jobs (name,
#                    module, parameters, rows) longest first and exits
#
# Synthesizes, each on its own, the modules of the manifest's gates tier
# (rtl/configs.txt, read through BUILD_DIR/bin/tm config; see "the jobs"
# below): the core logic (tm_core with N = 1) of each configuration's
# encoding with or without time stamps, the private predictors of each
# preset row at the preset's sizes (tm_gshare, tm_ras, tm_ibtb; for the
# TAGE-class presets tm_tage and tm_ittage, each with its tm_hist), the shared
# buffer (tm_buffer at the configurations' N, buffer size and port) and the
# CFiat cache (below), and prints a table per module and one per preset row
# (one core = tm_core + the preset's private predictors; rows of a preset's
# predictors with the core of another encoding are marked with it) with the
# predictor state bits of spec 3.3.3, next to the paper's estimates.
# rtl/syn/gates_report.py checks the state bits of each preset against the
# spec's table, and every predictor's flip-flops against its state bits (plus
# the valid bits of the tables without reset: one per row of 32 gshare
# counters, one per TAGE base counter).
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
# longer).  So the manifest lists each preset at 16 and 32 sets (same ways,
# line and granule) and the report extrapolates linearly in the number of
# sets S from the two largest synthesized sizes S1 < S2: gates(S) = gates(S2)
# + (S - S2) * (gates(S2) - gates(S1)) / (S2 - S1) (the per-set logic is
# the sets' share of the read multiplexers and write enables: linear in S).  The flip-flops are counted exactly instead:
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
# Environment: GATES_JOBS (parallel Yosys runs, default nproc), GATES_LIST.
# Exit status: 0, or 1 with one line on stderr (missing tool or module,
# unreadable RTL, a failed synthesis).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build="$root/$build" ;; esac
out="$build/gates"
syn="$root/rtl/syn"
err() { echo "gates: $*" >&2; }

TM=$build/bin/tm
[ -x "$TM" ] || { err "$TM is missing: make all first"; exit 1; }

# ---- the jobs ----
# From the manifest's gates tier (rtl/configs.txt, read through tm config),
# by the entries' names:
#   gates-ROW         a configuration: one row of the per-preset table, its
#                     tm_core and private predictors (--format modules); ROW
#                     is its preset (--config), or PRESET-SUFFIX for a row of
#                     that preset's predictors with another core (SUFFIX, e.g.
#                     ttr_e, is printed beside it)
#   gates-core-*      a configuration of which only its tm_core is synthesized
#   gates-buffer-*    a configuration of which only its tm_buffer is: N, buffer,
#                     port, MAXW (the longest message) and RESERVE (the space
#                     the buffer keeps for one message: the real reserve of the
#                     configuration, which the script used to set to MAXW)
#   gates-dcache-P-*  a module entry: tm_dcache of the cache preset P (--cache
#                     P) at a reduced SIZE; the report extrapolates to P's size
#   other module entries: their module
# Identical module + parameters are synthesized once.  A job is named after
# its module and parameters: core_ENC (core_tENC with time stamps),
# gshare/ras/ibtb_ENTRIES, tage/ittage_X of preset tage-X, buffer_N,
# dcache_P_SETS.  jobs.tsv (for rtl/syn/gates_report.py) gives each job's
# rows: the preset rows (PRESET or PRESET:SUFFIX) it belongs to, or the cache
# preset of a tm_dcache job, whose last column is then the full cache.
declare -A job_of=() top_of=() par_of=() rows_of=() full_of=()
order=()
pv() { # PARAM PARAMS: the value of PARAM in P=V,P=V
    local p
    for p in ${2//,/ }; do [ "${p%%=*}" = "$1" ] && { echo "${p#*=}"; return; }; done
}
job_name() { # TOP PARAMS PRESET
    local e
    case $1 in
        tm_core) case $(pv TS "$2") in 1|*\'b1) e=t ;; esac
                 echo "core_${e:-}${encs[$(pv ENC "$2")]}" ;;
        tm_buffer) echo "buffer_$(pv N "$2")" ;;
        tm_tage|tm_ittage) echo "${1#tm_}_${3##*-}" ;;
        *) e=$(pv ENTRIES "$2"); echo "${1#tm_}${e:+_$e}" ;;
    esac
}
add_job() { # NAME TOP PARAMS ROW: a job (once per TOP PARAMS) that belongs to ROW
    local name=$1 k=2
    if [ -z "${job_of["$2 $3"]:-}" ]; then
        while [ -n "${top_of[$name]:-}" ]; do name=$1_$k; k=$((k + 1)); done
        job_of["$2 $3"]=$name; top_of[$name]=$2; par_of[$name]=$3; rows_of[$name]=
        order+=("$name")
    fi
    name=${job_of["$2 $3"]}
    [ -z "$4" ] || rows_of[$name]+="${rows_of[$name]:+,}$4"
}
mapfile -t encs < <("$TM" config --list-encodings) && [ ${#encs[@]} -gt 0 ] ||
    { err "tm config --list-encodings failed"; exit 1; }
entries=$("$TM" config --list gates 2>&1) && [ -n "$entries" ] ||
    { err "tm config --list gates: $(head -n 1 <<<"$entries")"; exit 1; }
for e in $entries; do
    row=${e#gates-}
    if top=$("$TM" config "$e" --format module 2>/dev/null); then
        params=$("$TM" config "$e" --format params | paste -sd,)
        if [ "$top" = tm_dcache ]; then
            cp=${row#dcache-}; cp=${cp%-*}
            full=$("$TM" config --threads 1 --cfiat --cache "$cp" --format modules 2>&1) ||
                { err "$e: no cache preset '$cp': $(head -n 1 <<<"$full")"; exit 1; }
            full=$(awk '$1 == "tm_dcache" { print $2 }' <<<"$full")
            sets=$(( $(pv SIZE "$params") / ($(pv ASSOC "$params") * $(pv LINE "$params")) ))
            add_job "dcache_${cp}_$sets" "$top" "$params" "$cp"
            full_of[${job_of["$top $params"]}]=$full
        else
            add_job "$(job_name "$top" "$params" "")" "$top" "$params" ""
        fi
        continue
    fi
    mods=$("$TM" config "$e" --format modules 2>&1) || { err "tm config $e: $(head -n 1 <<<"$mods")"; exit 1; }
    # shellcheck disable=SC2046
    preset=$(set -- $("$TM" config "$e" --format opts)
             while [ $# -gt 1 ]; do [ "$1" = --config ] && { echo "$2"; break; }; shift; done)
    case $row in
        core-*) want=tm_core; label= ;;
        buffer-*) want=tm_buffer; label= ;;
        *)  want=
            [ -n "$preset" ] || { err "$e: a preset row needs --config PRESET"; exit 1; }
            label=$preset
            [ "$row" = "$preset" ] || label=$preset:${row#"$preset"-} ;;
    esac
    while read -r top params; do
        if [ -n "$want" ]; then
            [ "$top" = "$want" ] || continue
        else
            case $top in tm_buffer|tm_dcache) continue ;; esac
        fi
        add_job "$(job_name "$top" "$params" "$preset")" "$top" "$params" "$label"
    done <<<"$mods"
done
# Longest first, by a rough estimate of the synthesis effort (about the
# gates): stored bits x gates per stored bit (docs/rtl.md: about 7 for the
# predictor tables, 13 for the cache; tm_ittage's packed vectors about 30,
# and their shifters take Yosys the longest: x 4), the buffer about 25 gates
# per bit and N, a core about 20K.
effort() { # TOP PARAMS
    local p=$2
    case $1 in
        tm_core) echo 20000 ;;
        tm_gshare) echo $(( 2 * $(pv ENTRIES "$p") * 7 )) ;;
        tm_ras) echo $(( 64 * $(pv ENTRIES "$p") * 7 )) ;;
        tm_ibtb) echo $(( 73 * $(pv ENTRIES "$p") * 7 )) ;;
        tm_tage) echo $(( (2 * $(pv BASE "$p") + $(pv TABLES "$p") * $(pv ENTRIES "$p")
                           * (6 + $(pv TAG "$p"))) * 7 )) ;;
        tm_ittage) echo $(( (49 * $(pv BASE "$p") + $(pv TABLES "$p") * $(pv ENTRIES "$p")
                             * (52 + $(pv TAG "$p"))) * 30 * 4 )) ;;
        tm_dcache) echo $(( $(pv SIZE "$p") / $(pv LINE "$p") * (64 + $(pv LINE "$p") / $(pv GRAN "$p")) * 13 )) ;;
        tm_buffer) echo $(( $(pv BUF_BITS "$p") * $(pv N "$p") * 25 )) ;;
        *) echo 0 ;;
    esac
}
jobs=()
while read -r _ j; do jobs+=("$j"); done < <(
    for j in "${order[@]}"; do
        echo "$(effort "${top_of[$j]}" "${par_of[$j]}") $j ${top_of[$j]} ${par_of[$j]}"
    done | sort -s -k1,1nr)
if [ -n "${GATES_LIST:-}" ]; then
    for j in "${jobs[@]}"; do
        set -- $j
        printf '%-18s %-10s %-62s %s\n' "$1" "$2" "$3" "${rows_of[$1]:--}${full_of[$1]:+ (full: ${full_of[$1]})}"
    done
    exit 0
fi

command -v yosys >/dev/null 2>&1 || { err "yosys not found (make deps installs it)"; exit 1; }
command -v python3 >/dev/null 2>&1 || { err "python3 not found (make deps installs it)"; exit 1; }

# ---- the modules this needs ----
# The RTL's files: rtl/tm.f (the one file list), expanded for Yosys.
mapfile -t rtl < <(bash "$root/scripts/rtl_files.sh") && [ ${#rtl[@]} -gt 0 ] ||
    { err "cannot read the file list rtl/tm.f"; exit 1; }
# The jobs' modules and, recursively, the tm_* modules they instantiate.
missing=()
grep -qsE '^\s*package\s+tm_pkg\b' "$root/rtl/tm_pkg.sv" || missing+=("tm_pkg (rtl/tm_pkg.sv)")
queue=(); for j in "${order[@]}"; do queue+=("${top_of[$j]}"); done
checked=" "
while [ ${#queue[@]} -gt 0 ]; do
    m=${queue[0]}; queue=("${queue[@]:1}")
    case $checked in *" $m "*) continue ;; esac
    checked+="$m "
    f=$(bash "$root/scripts/rtl_files.sh" "$m" 2>/dev/null) || { missing+=("$m (not in rtl/tm.f)"); continue; }
    grep -qsE "^\s*module\s+$m\b" "$f" || { missing+=("$m (${f#"$root"/})"); continue; }
    mapfile -t -O ${#queue[@]} queue < <(grep -oE '^\s*tm_[a-z0-9_]+\s+(#|u_)' "$f" | grep -oE 'tm_[a-z0-9_]+')
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
cp "$root/rtl/tm_assert.svh" "$out/src/" || { err "cannot copy rtl/tm_assert.svh"; exit 1; }  # included
python3 "$syn/yosys_compat.py" "${files[@]}" 2>"$out/work/compat.err" || {
    err "cannot adapt the RTL for Yosys: $(head -n 1 "$out/work/compat.err")"; exit 1; }
yv=$(yosys -V 2>/dev/null | head -n 1)
if ! yosys -q -p "read_verilog -sv -defer ${files[*]}; hierarchy -check -top tm_core" \
        >"$out/work/parse.log" 2>&1; then
    err "yosys cannot read the RTL: $(grep -m1 -E 'ERROR' "$out/work/parse.log" | sed "s|$out/src/|rtl/|")"
    exit 1
fi

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
# jobs.tsv: name, module, parameters, results prefix, rows ('-': none), full
# cache ('-'); in the manifest's order.
list="$out/work/jobs.tsv"
: >"$list"
for j in "${order[@]}"; do
    key=$(job_key "${top_of[$j]}" "${par_of[$j]}")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$j" "${top_of[$j]}" "${par_of[$j]}" "$out/cache/$key" \
        "${rows_of[$j]:--}" "${full_of[$j]:--}" >>"$list"
done
python3 "$syn/gates_report.py" "$list" "$yv" | tee "$out/gates.txt"
