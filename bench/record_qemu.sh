#!/usr/bin/env bash
# make bench, part 2b: tm record --frontend qemu next to QEMU without the
# plugin, in one run, on the same programs (issue 37): Debian's arm64 pigz
# -p 4 and the riscv64 zstd -T4 built from Debian's source (make
# isa-programs) compressing a generated file (TM_BENCH_REC_MB, default 1 MB;
# zstd gets twice that: its workers take 512 KB jobs).  Prints seconds,
# M instructions/s (instructions counted by tm record) and each run's time
# as a multiple of QEMU's alone.  Without qemu-user or the programs: one
# line, and the part is skipped (make bench's other parts still run).
set -euo pipefail
source "$(dirname "$0")/lib.sh" "${1:-build}"
mb=${TM_BENCH_REC_MB:-1}
R="$BUILD/isa/arm64-root"
if ! command -v qemu-aarch64 > /dev/null || ! command -v qemu-riscv64 > /dev/null ||
    ! make -s isa-debian BUILD="$BUILD" > "$dir/isa.log" 2>&1; then
    echo "bench: tm record --frontend qemu: needs qemu-user and make isa-programs ($(tail -n 1 "$dir/isa.log" 2>/dev/null)); skipped"
    exit 0
fi
gen_text "$dir/in" "$mb"
gen_text "$dir/in2" "$(python3 -c "print(2 * $mb)")"
export LD_LIBRARY_PATH="$R/lib/aarch64-linux-gnu:$R/usr/lib/aarch64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
rows=()
run_isa() { # NAME QEMU-ARGS... -- PROGRAM ARGS...
    local name=$1
    shift
    local qargs=()
    while [ "$1" != "--" ]; do qargs+=("$1"); shift; done
    shift
    echo "bench: tm record --frontend qemu on $name" >&2
    local alone cf full insns
    alone=$(best "${qargs[@]}" "$@")
    cf=$(best "$TM" record --frontend qemu --threads 8 --config large --encoding tr_e -o "$dir/$name-cf" -- "$@")
    full=$(best "$TM" record --frontend qemu --threads 8 --config large --encoding tr_e --cfiat -o "$dir/$name-full" -- "$@")
    insns=$(awk '$1 == "total" {print $2; exit}' "$dir/$name-cf.stats")
    rows+=("$name $insns $alone $cf $full")
}
run_isa "pigz-p4-aarch64" qemu-aarch64 -L /usr/aarch64-linux-gnu -- "$R/usr/bin/pigz" -p 4 -c "$dir/in"
run_isa "zstd-T4-riscv64" qemu-riscv64 -L /usr/riscv64-linux-gnu -- "$BUILD/isa/riscv64/zstd" -q -T4 -B512K -c "$dir/in2"
python3 - "${rows[@]}" <<'PY'
import sys
print("\ntm record --frontend qemu (issue 37): each time as a multiple of QEMU's alone on the same program")
print(f"{'':46}{'seconds':>9}{'M insn/s':>10}{'x qemu':>8}")
for row in sys.argv[1:]:
    name, insns, alone, cf, full = row.split()
    insns = int(insns)
    alone, cf, full = float(alone), float(cf), float(full)
    print(f"{name} ({insns/1e6:.0f}M instructions, all threads)")
    for label, s in [("  qemu alone (no plugin)", alone), ("  tm record --frontend qemu (control flow)", cf),
                     ("  tm record --frontend qemu --cfiat", full)]:
        print(f"{label:46}{s:9.3f}{insns/s/1e6:10.1f}{s/alone:8.2f}")
PY
