#!/usr/bin/env bash
# Co-simulation of real programs (make regress): the project's real-program
# set (pigz, xz, pbzip2, zstd -T, sort --parallel and the multithreaded test
# programs) at N = 1, 2, 4, 8 threads, each recorded once under tm record on
# a small input, then co-simulated (tm cosim: the RTL against the model, bit
# for bit, cycle for cycle) with the TAGE-class preset tage-l under tr_e and
# under the adaptive encoding tr_a (docs/spec.md §3.3, §4.9), and with the
# paper's large/tr_e for reference: the configurations of the manifest's
# cosim-real tier (rtl/configs.txt, read through `tm config`).  Prints a PASS
# line per run and the totals; exit 1 if any run fails.
#   testbench/cosim_real.sh BUILD [CONFIGS...]
# CONFIGS: names of the manifest (default: the cosim-real tier), or
# "PRESET:ENCODING" pairs such as tage-l:tr_e, where an encoding with a
# leading t (ttr_e, ttr_a) is the time-stamped variant (--timestamps).
# Takes about an hour on 2 cores (each co-simulation runs a few million
# instructions).
set -uo pipefail
BUILD=${1:-build}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$root/$BUILD" 2>/dev/null && pwd) || { echo "cosim_real.sh: no build directory $BUILD" >&2; exit 2; }
TM=$B/bin/tm
P=$B/programs
[ -x "$TM" ] && [ -x "$P/mt_pthread" ] ||
    { echo "cosim_real.sh: $TM or the test programs are missing: make all programs" >&2; exit 2; }
export TM_VALGRIND_LIB=$B/lib/valgrind
configs=("$@")
[ ${#configs[@]} -gt 0 ] || mapfile -t configs < <("$TM" config --list cosim-real)
[ ${#configs[@]} -gt 0 ] || { echo "cosim_real.sh: no configuration (tm config --list cosim-real)" >&2; exit 2; }
# The tm model options of each: a manifest name, or PRESET:[t]ENCODING.
declare -A opts_of=()
encs=" $("$TM" config --list-encodings | tr '\n' ' ') "
for c in "${configs[@]}"; do
    case $c in
        *:*) enc=${c#*:} ts=""
             [[ "$encs" == *" $enc "* ]] || { [[ "$encs" == *" ${enc#t} "* ]] && enc=${enc#t} ts=" --timestamps"; }
             [[ "$encs" == *" $enc "* ]] || { echo "cosim_real.sh: '$c': expected a manifest name or PRESET:ENCODING (encodings:$encs)" >&2; exit 2; }
             opts_of[$c]="--config ${c%%:*} --encoding $enc$ts" ;;
        *) opts_of[$c]=$("$TM" config "$c" --format opts) || exit 2 ;;
    esac
done
for p in pigz xz pbzip2 zstd sort; do
    command -v "$p" > /dev/null || { echo "cosim_real.sh: $p is missing (make deps installs it)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/tm-cosim-real.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
head -c 6000 /dev/urandom | base64 > text.txt
seq 1 20000 | shuf > nums.txt
fails=0 runs=0 start=$(date +%s)
for n in 1 2 4 8; do
    progs=("pigz:pigz -p $n -c text.txt" "xz:xz -T $n -3 --block-size=8KiB -c text.txt"
           "pbzip2:pbzip2 -b1 -p$n -c text.txt" "zstd:zstd -T$n -3 -B8K -c text.txt"
           "sort:sort --parallel=$n -n nums.txt" "mt_pthread:$P/mt_pthread $n" "mt_omp:$P/mt_omp $n")
    for pr in "${progs[@]}"; do
        name=${pr%%:*}-N$n
        # shellcheck disable=SC2086
        if ! OMP_NUM_THREADS=$n "$TM" record --commit --threads auto -o "$name" -- ${pr#*:} > /dev/null 2> "$name.err" ||
            [ ! -s "$name.tmc" ]; then
            echo "FAIL $name: recording failed: $(tail -n 1 "$name.err")"
            fails=$((fails + 1))
            continue
        fi
        for c in "${configs[@]}"; do
            runs=$((runs + 1))
            echo "cosim_real: $name $c ($(( $(date +%s) - start ))s elapsed)" >&2
            read -r -a o <<< "${opts_of[$c]}"
            if out=$("$TM" cosim "${o[@]}" -q "$name.tmc" 2>&1); then
                echo "PASS $name $c: $(grep -m1 '^PASS' <<< "$out" | sed 's/^PASS: //')"
            else
                echo "FAIL $name $c"
                tail -n 15 <<< "$out"
                fails=$((fails + 1))
            fi
        done
        rm -f "$name.tmc"
    done
done
echo "cosim_real: $runs co-simulations, $fails failed, $(( $(date +%s) - start )) s"
[ "$fails" -eq 0 ]
