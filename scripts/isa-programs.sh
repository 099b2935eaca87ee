#!/usr/bin/env bash
# Programs nobody here wrote, for the QEMU frontend (docs/qemu.md, "Programs
# nobody here wrote"; run by make isa-programs, each part once: the Makefile
# keeps a stamp per part).
#
#   isa-programs.sh arm64-root DIR     Debian's arm64 builds of pigz, xz and
#       zstd with their libraries, downloaded (apt-get download: arm64 must be
#       a foreign architecture, scripts/isa-deps.sh) and extracted (dpkg -x,
#       nothing installed) into DIR/arm64-root; the C library is the cross
#       sysroot's (/usr/aarch64-linux-gnu, run with qemu-aarch64 -L).
#       DIR/arm64-root/packages.txt names the packages and versions.
#   isa-programs.sh riscv64-zstd DIR   Debian's source of libzstd (apt-get
#       source: a deb-src list) cross-built with riscv64-linux-gnu-gcc:
#       DIR/riscv64/zstd (multithreaded: -T N).
#   isa-programs.sh riscv64-xz DIR     Debian's source of xz-utils configured
#       for riscv64-linux-gnu (liblzma static): DIR/riscv64/xz (-T N).
#
# Anything missing (a tool, the apt configuration, the network): one line on
# standard error naming it, exit 1.
set -euo pipefail
part=${1:?usage: isa-programs.sh arm64-root|riscv64-zstd|riscv64-xz DIR}
dir=${2:?usage: isa-programs.sh PART DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
log=$dir/$part.log
: >"$log"

die() { echo "isa-programs $part: $*" >&2; exit 1; }
need() { for t in "$@"; do command -v "$t" >/dev/null || die "$t not found (make deps installs it)"; done; }
# run CMD...: CMD with its output in the log; on failure, one line and the log's end
run() {
    if ! "$@" >>"$log" 2>&1; then
        echo "isa-programs $part: '$*' failed (the log: $log):" >&2
        tail -n 5 "$log" >&2
        exit 1
    fi
}
# source_of PKG DEST: Debian's source package PKG unpacked into DEST
source_of() {
    local pkg=$1 dest=$2 work=$dir/src
    need apt-get dpkg-source
    grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ ||
        die "apt has no deb-src list for Debian's sources (make deps as root adds one: scripts/isa-deps.sh)"
    mkdir -p "$work"
    rm -rf "$dest"
    (cd "$work" && run apt-get source -qq --download-only "$pkg") ||
        die "apt-get source $pkg failed (no network, or apt-get update needed; the log: $log)"
    local dsc
    dsc=$(ls -t "$work/${pkg}"_*.dsc 2>/dev/null | head -n 1)
    [ -n "$dsc" ] || die "apt-get source $pkg gave no .dsc"
    run dpkg-source --no-check -x "$dsc" "$dest"
    basename "$dsc" .dsc >"$dir/riscv64/$pkg.source"
}

case $part in
arm64-root)
    need apt-get apt-cache dpkg-deb
    dpkg --print-foreign-architectures | grep -qx arm64 ||
        die "arm64 is not a foreign architecture of apt (make deps as root adds it: scripts/isa-deps.sh)"
    # The programs, their libraries, and the libraries' own: a fixed list,
    # checked against apt-cache below.  libc6 (and gcc-12-base, no files
    # needed) come from the cross sysroot.
    pkgs=(pigz zlib1g xz-utils liblzma5 zstd libzstd1 liblz4-1 libgcc-s1 libstdc++6)
    from_sysroot=" libc6 gcc-12-base "
    for p in "${pkgs[@]}"; do
        deps=$(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
            --no-enhances --no-pre-depends "$p:arm64" 2>>"$log") ||
            die "apt-cache depends $p:arm64 failed (apt-get update needed?)"
        for d in $(echo "$deps" | sed -n 's/^ *|\{0,1\}Depends: *\([^:<> ]*\).*/\1/p'); do
            case " ${pkgs[*]} $from_sysroot" in *" $d "*) ;; *)
                die "$p:arm64 depends on $d, not in the list (scripts/isa-programs.sh: pkgs)" ;;
            esac
        done
    done
    dl=$dir/arm64-debs
    rm -rf "$dl" "$dir/arm64-root.new"
    mkdir -p "$dl" "$dir/arm64-root.new"
    (cd "$dl" && run apt-get download -qq "${pkgs[@]/%/:arm64}") ||
        die "apt-get download of ${pkgs[*]} (arm64) failed (no network, or apt-get update needed; the log: $log)"
    for deb in "$dl"/*.deb; do
        run dpkg-deb -x "$deb" "$dir/arm64-root.new"
        dpkg-deb --show --showformat='${Package} ${Version}\n' "$deb" >>"$dir/arm64-root.new/packages.txt"
    done
    for b in pigz xz zstd; do
        [ -x "$dir/arm64-root.new/usr/bin/$b" ] || die "usr/bin/$b is not in the packages"
    done
    rm -rf "$dir/arm64-root"
    mv "$dir/arm64-root.new" "$dir/arm64-root"
    echo "isa-programs: $dir/arm64-root: $(paste -sd, "$dir/arm64-root/packages.txt" | sed 's/,/, /g')" >&2
    ;;
riscv64-zstd)
    need riscv64-linux-gnu-gcc make
    mkdir -p "$dir/riscv64"
    source_of libzstd "$dir/src/libzstd"
    run make -j2 -C "$dir/src/libzstd/programs" zstd CC=riscv64-linux-gnu-gcc HAVE_ZLIB=0 HAVE_LZMA=0 HAVE_LZ4=0
    cp "$dir/src/libzstd/programs/zstd" "$dir/riscv64/zstd"
    echo "isa-programs: $dir/riscv64/zstd ($(cat "$dir/riscv64/libzstd.source"))" >&2
    ;;
riscv64-xz)
    need riscv64-linux-gnu-gcc make
    mkdir -p "$dir/riscv64"
    source_of xz-utils "$dir/src/xz-utils"
    (cd "$dir/src/xz-utils" && run ./configure --host=riscv64-linux-gnu --disable-shared --disable-doc \
        --disable-nls --disable-scripts --disable-xzdec --disable-lzmadec --disable-lzmainfo \
        --disable-lzma-links) || die "xz-utils' configure failed (the log: $log)"
    run make -j2 -C "$dir/src/xz-utils"
    cp "$dir/src/xz-utils/src/xz/xz" "$dir/riscv64/xz"
    echo "isa-programs: $dir/riscv64/xz ($(cat "$dir/riscv64/xz-utils.source"))" >&2
    ;;
*) die "unknown part (arm64-root, riscv64-zstd, riscv64-xz)" ;;
esac
