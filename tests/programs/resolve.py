#!/usr/bin/env python3
"""Expected descriptor files name addresses symbolically: @sym or @sym+N
(N decimal or 0x hex) stands for the symbol's address as 0x and 16 hex
digits, the form of every address in the thesis tools' ASCII descriptors.
usage: resolve.py PROGRAM EXPECTED   (prints the resolved text; the
symbols are read with nm from PROGRAM)"""
import re
import subprocess
import sys

prog, exp = sys.argv[1], sys.argv[2]
syms = {}
for line in subprocess.run(["nm", prog], check=True, capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3:
        syms[f[2]] = int(f[0], 16)


def sub(m):
    name, off = m.group(1), m.group(2)
    if name not in syms:
        sys.exit(f"resolve.py: {exp}: no symbol {name} in {prog}")
    return "0x%016x" % (syms[name] + (int(off, 0) if off else 0))


sys.stdout.write(re.sub(r"@([A-Za-z_.][A-Za-z0-9_.]*)(?:\+((?:0x)?[0-9a-fA-F]+))?", sub, open(exp).read()))
