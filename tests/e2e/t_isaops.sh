#!/usr/bin/env bash
# tier: test
# tm/a64op.h and tm/rvop.h (issue 37: the AArch64 and RISC-V control
# transfers) against GNU objdump, instruction by instruction: the driver
# tests/e2e/isaops_check.c classifies every instruction objdump disassembles
# (its bytes and address) and compares the kind, the length and the direct
# target with objdump's mnemonic, encoding and target (for RISC-V, -M
# no-aliases,numeric: jal / jalr / c.jr / c.jalr with their registers, which
# the RAS hints of the unprivileged spec make calls, returns or jumps).
# Per ISA, each with zero mismatches:
#   1. the cross C library's code (objdump -d /usr/<triplet>/lib/libc.so.6:
#      some 280,000 instructions each), at least 100,000 instructions;
#   2. raw code the driver writes (isaops_check gen-a64 / gen-rv; objdump -D
#      -b binary): every A64 "unconditional branch (register)" and
#      "exception generation" form, every 16-bit RISC-V encoding, every JALR
#      funct3 / rd / rs1, every direct branch's immediate bit by bit, and
#      pseudo-random words (the same every run); the encodings objdump does
#      not know must be OTHER for the headers.
# Needs the cross binutils and C libraries (Debian: binutils-aarch64-linux-gnu,
# libc6-arm64-cross; binutils-riscv64-linux-gnu, libc6-riscv64-cross); an ISA
# whose tools are missing is left out, and without either the script prints
# one line and exits 77 (tests/e2e/run.sh: "not run").  No tm build needed:
# the driver is compiled here (CC, default cc).  About 10 s.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
source "$here/lib.sh"
A64_LIBC=/usr/aarch64-linux-gnu/lib/libc.so.6
RV_LIBC=/usr/riscv64-linux-gnu/lib/libc.so.6
isas=()
if command -v aarch64-linux-gnu-objdump > /dev/null && [ -r "$A64_LIBC" ]; then isas+=(a64); fi
if command -v riscv64-linux-gnu-objdump > /dev/null && [ -r "$RV_LIBC" ]; then isas+=(rv); fi
if [ ${#isas[@]} -eq 0 ]; then
    echo "t_isaops: needs aarch64-linux-gnu-objdump with $A64_LIBC or riscv64-linux-gnu-objdump with $RV_LIBC (the cross toolchains); not run"
    exit 77
fi
if [ -z "${TMP:-}" ]; then
    TMP=$(mktemp -d /tmp/tm-isaops.XXXXXX)
    trap 'rm -rf "$TMP"' EXIT
fi
CHK=$TMP/isaops_check
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -I"$root/include" -Wall -Wextra -Werror -Wshadow \
    -Wstrict-prototypes -Wmissing-prototypes -O2 "$here/isaops_check.c" -o "$CHK" ||
    die "isaops_check.c does not compile"
ok "the driver: isaops_check.c"

# check ISA WHAT MIN: the driver on the disassembly on standard input.
check() {
    local out
    out=$("$CHK" "$1" "$3")
    local st=$?
    echo "$out" | sed '$d; s/^/    /' # the mismatches (the first 30)
    if [ "$st" -eq 0 ]; then ok "$1: $2: $(echo "$out" | tail -n 1)"; else fail "$1: $2: $(echo "$out" | tail -n 1)"; fi
}

for isa in "${isas[@]}"; do
    case $isa in
        a64) od=(aarch64-linux-gnu-objdump) libc=$A64_LIBC bin=(-b binary -m aarch64) ;;
        rv) od=(riscv64-linux-gnu-objdump -M 'no-aliases,numeric') libc=$RV_LIBC bin=(-b binary -m riscv:rv64) ;;
    esac
    echo "== $isa: $libc"
    "${od[@]}" -d "$libc" > "$TMP/$isa.libc.dis" || die "${od[*]} -d $libc failed"
    check "$isa" "$libc" 100000 < "$TMP/$isa.libc.dis"
    echo "== $isa: generated code"
    "$CHK" "gen-$isa" > "$TMP/$isa.bin" || die "isaops_check gen-$isa failed"
    "${od[@]}" -D "${bin[@]}" "$TMP/$isa.bin" > "$TMP/$isa.gen.dis" || die "${od[*]} -D ${bin[*]} failed"
    check "$isa" "generated code" 100000 < "$TMP/$isa.gen.dis"
done
[ ${#isas[@]} -eq 2 ] || echo "note: only ${isas[*]} checked (the other cross toolchain is missing)"
[ "$fails" -eq 0 ] || exit 1
