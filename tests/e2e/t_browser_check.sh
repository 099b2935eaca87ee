#!/usr/bin/env bash
# tier: check
# scripts/browser-check.py against hand-made reports in headless Chromium
# (no matplotlib: a hand-written SVG and a 1x1 PNG made with zlib + struct):
# 1. a good page -- <img> of an SVG, <img> of a PNG, an inline
#    <svg class="figure">, tm-figures 3: exit 0, "3 figures render";
# 2. an <img> of a missing file: exit 1, a line naming its src;
# 3. an <img> of a file that is no image: exit 1, a line naming its src;
# 4. tm-figures 4 with 3 figures: exit 1, a line about the count;
# and the checker leaves no temporary copy next to the page.
# Needs chromium (make deps).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${ROOT:-$(cd "$here/../.." && pwd)}
check=$root/scripts/browser-check.py
dir=$(mktemp -d /tmp/tm-browser-check-test.XXXXXX)
trap 'rm -rf "$dir"' EXIT
die() { echo "FAIL: $*"; exit 1; }
cd "$dir"

cat > a.svg <<'EOF'
<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30" viewBox="0 0 40 30">
  <rect x="5" y="5" width="30" height="20" fill="steelblue"/>
</svg>
EOF
python3 - <<'EOF'
import struct, zlib
def chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))
png = (b"\x89PNG\r\n\x1a\n"
       + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))  # 1x1 RGB
       + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))           # one red pixel
       + chunk(b"IEND", b""))
open("b.png", "wb").write(png)
EOF
echo "this is not an image" > corrupt.png

# page FILE K BODY: a report declaring K figures.
page() {
    cat > "$1" <<EOF
<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta name="tm-figures" content="$2"><title>t</title></head>
<body><h1>report</h1>
$3
</body></html>
EOF
}
inline='<svg class="figure" xmlns="http://www.w3.org/2000/svg" width="60" height="40"><circle cx="20" cy="20" r="15" fill="tomato"/></svg>'
page good.html 3 "<img src=\"a.svg\" alt=\"a\"> <img src=\"b.png\" alt=\"b\"> $inline"
page missing.html 3 "<img src=\"a.svg\" alt=\"a\"> <img src=\"gone.png\" alt=\"b\"> $inline"
page corrupt.html 3 "<img src=\"a.svg\" alt=\"a\"> <img src=\"corrupt.png\" alt=\"b\"> $inline"
page count.html 4 "<img src=\"a.svg\" alt=\"a\"> <img src=\"b.png\" alt=\"b\"> $inline"

# run PAGE: the checker's exit status in $rc, its output in out.
run() { rc=0; python3 "$check" "$1" > out 2>&1 || rc=$?; }

# expect PAGE STATUS LINE-REGEX WHAT [ONE]: the check of PAGE exits STATUS
# with a line matching LINE-REGEX (and only that line if ONE is given).
expect() {
    run "$1"
    [ "$rc" -eq "$2" ] || { cat out; die "$4: exit $rc, expected $2"; }
    grep -q "$3" out || { cat out; die "$4: no line matching $3"; }
    if [ -n "${5:-}" ] && [ "$(wc -l < out)" -ne 1 ]; then cat out; die "$4: more than one line"; fi
    echo "ok   $4: $(cat out)"
}
expect good.html 0 '^browser-check: good.html: 3 figures render (chromium [0-9.]*)$' "good page" one
expect missing.html 1 "^browser-check: missing.html: .*'gone.png'.*not found" "missing image" one
expect corrupt.html 1 "^browser-check: corrupt.html: .*'corrupt.png'" "corrupt image" one
expect count.html 1 '^browser-check: count.html: tm-figures says 4 figures, the browser counts 3' "count mismatch"

leftover=$(find . -name '.browser-check-*')
[ -z "$leftover" ] || die "temporary copies left behind: $leftover"

echo "t_browser_check: ok"
