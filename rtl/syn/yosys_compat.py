#!/usr/bin/env python3
"""Rewrites copies of the RTL sources so that Yosys 0.23 can read them.

usage: yosys_compat.py FILE...   (rewrites the files in place: give it copies)

Yosys 0.23's SystemVerilog frontend lacks a few constructs the RTL uses.
Each rewrite below keeps the meaning exactly:
  - package tm_pkg: its declarations move to the compilation-unit scope
    (read first, in the same read_verilog call) and every `import tm_pkg::*;`
    and `tm_pkg::` prefix is dropped (Yosys 0.23 cannot import in a module
    header nor name package items in a header);
  - `return EXPR;` as the last statement of a function becomes
    `NAME = EXPR;` (any other return is refused: it would change the meaning);
  - `x OP= y;` becomes `x = x OP (y);` and `x++` becomes `x = x + 1`.
Exits 1 with one line on stderr for a construct it cannot rewrite."""
import pathlib
import re
import sys


def fix_returns(path, s):
    out, pos = [], 0
    for m in re.finditer(r'\bfunction\s+automatic\s+[^;(]*?\b([A-Za-z_]\w*)\s*\(.*?\bendfunction\b',
                         s, re.S):
        body, name = m.group(0), m.group(1)
        rets = list(re.finditer(r'\breturn\b\s*([^;]*);', body))
        if rets:
            tail = body[rets[-1].end():]
            if len(rets) > 1 or not re.fullmatch(r'\s*endfunction', tail):
                sys.exit('%s: function %s: a return that is not its last statement' % (path, name))
            body = body[:rets[-1].start()] + '%s = %s;' % (name, rets[-1].group(1)) + tail
        out.append(s[pos:m.start()])
        out.append(body)
        pos = m.end()
    out.append(s[pos:])
    return ''.join(out)


def main():
    for p in sys.argv[1:]:
        path = pathlib.Path(p)
        s = path.read_text()
        s = re.sub(r'^\s*package\s+tm_pkg\s*;', '', s, flags=re.M)
        s = re.sub(r'^\s*endpackage\b.*$', '', s, flags=re.M)
        s = re.sub(r'\bimport\s+tm_pkg::\*\s*;', '', s)
        s = s.replace('tm_pkg::', '')
        s = re.sub(r'(\b[A-Za-z_]\w*(?:\[[^\]]*\])?)\s*([-+|&^*])=\s*([^;]+);', r'\1 = \1 \2 (\3);', s)
        s = re.sub(r'(\b[A-Za-z_]\w*)\+\+', r'\1 = \1 + 1', s)
        s = fix_returns(p, s)
        if re.search(r'\bimport\s+\w+::', s):
            sys.exit('%s: imports a package other than tm_pkg' % p)
        path.write_text(s)


if __name__ == '__main__':
    main()
