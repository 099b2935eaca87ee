#!/usr/bin/env bash
# Installs the Debian packages named on the command line when they are missing.
# As root it runs apt-get; otherwise it prints the exact command to run.
set -euo pipefail
missing=()
for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "tm: missing Debian packages: ${missing[*]}" >&2
    echo "tm: run as root:  apt-get update && $cmd" >&2
    exit 1
fi
echo "tm: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
$cmd >/dev/null
