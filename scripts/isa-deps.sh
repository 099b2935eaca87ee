#!/usr/bin/env bash
# The apt configuration that `make isa-programs` needs (docs/qemu.md,
# "Programs nobody here wrote"): arm64 as a foreign architecture (apt-get
# download of Debian's arm64 builds; nothing arm64 is installed) and a deb-src
# list for bookworm main (apt-get source of the programs cross-built for
# RISC-V).  Run by make deps.  As root it changes what is missing and runs
# apt-get update if it changed something; otherwise it prints the exact
# commands to run and exits 1.
set -euo pipefail
SRC_LIST=/etc/apt/sources.list.d/tm-deb-src.sources
cmds=()
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    cmds+=("dpkg --add-architecture arm64")
fi
# a deb-src entry for bookworm main, ours or the machine's own
have_src() {
    grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null
}
if ! have_src; then
    cmds+=("printf 'Types: deb-src\\nURIs: http://deb.debian.org/debian\\nSuites: bookworm\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n' > $SRC_LIST")
fi
[ ${#cmds[@]} -eq 0 ] && exit 0
cmds+=("apt-get update")
if [ "$(id -u)" -ne 0 ]; then
    echo "tm: apt is not configured for make isa-programs (arm64 packages, Debian sources)" >&2
    echo "tm: run as root:" >&2
    for c in "${cmds[@]}"; do echo "    $c" >&2; done
    exit 1
fi
for c in "${cmds[@]}"; do
    echo "tm: $c" >&2
    if [ "$c" = "apt-get update" ]; then apt-get update -qq; else bash -c "$c"; fi
done
