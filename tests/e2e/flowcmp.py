#!/usr/bin/env python3
"""Compares the instruction flows of two recordings of one program, per thread
(tests/e2e/t_pin.sh: the Valgrind and the Pin frontend; t_record_capture.sh
checks this script on two Valgrind recordings).

    flowcmp.py MODE EXE A.flow A.modules B.flow B.modules

A.flow, B.flow: `tm dump --flow BASE.tmc`; A.modules, B.modules: the
recordings' module maps (BASE.modules, docs/capture.md §6); EXE: the program's
executable, whose code the comparison is restricted to unless the flows are
identical.  Prints one line and exits 0 if the flows agree, else prints what
differs and exits 1 (2: bad arguments or input).

The frontends differ where the comparison looks past the program's own code:
Valgrind runs some code of its own (its signal return trampoline, function
redirections in ld.so) and reports another CPU (CPUID), so glibc picks other
string functions (ifuncs); and they lay memory out differently (the stack,
the heap, a position-independent program's base).  So, unless the two flows
are identical line for line, only the program's own code is compared:
addresses there as offsets from its load address, a target outside it as
"out", and a load's value that differs is accepted when in each recording it
is an 8-byte pointer into that recording's memory (a module's image, or a
1 MiB region the program's memory operands touched): a saved frame pointer,
a heap pointer, a GOT entry.

MODE:
  exact    each thread's flow in the program's code: every straight run (its
           start and length), every branch (class, outcome, target), every
           exception and every load (place, size, value); threads by id
  threads  each thread's set of branches (pc, class, outcome, target) in the
           program's code; threads matched as a multiset (a program whose
           threads start in another order, loops that run more or fewer
           times, asynchronous signals)
  edges[:J]  the set of branches of all threads together; with J (0..1)
           the two sets need only agree to J (size of the intersection over
           the union): a program whose threads' interleaving decides some of
           its branches (pigz's waits)
"""
import os
import re
import struct
import sys


def unescape(s):
    """A path of BASE.modules (\\\\, \\n, \\xNN)."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "\\":
                out.append("\\"); i += 2; continue
            if n == "n":
                out.append("\n"); i += 2; continue
            if n == "x" and i + 3 < len(s):
                out.append(chr(int(s[i + 2:i + 4], 16))); i += 4; continue
        out.append(c)
        i += 1
    return "".join(out)


def elf_segments(path):
    """[(vaddr, memsz, offset, executable)] of the PT_LOAD segments, or None."""
    try:
        with open(path, "rb") as f:
            h = f.read(64)
            if len(h) < 64 or h[:4] != b"\x7fELF" or h[4] != 2:
                return None
            phoff, = struct.unpack_from("<Q", h, 0x20)
            phentsize, phnum = struct.unpack_from("<HH", h, 0x36)
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
    except OSError:
        return None
    segs = []
    for k in range(phnum):
        p_type, p_flags, p_offset, p_vaddr, _, _, p_memsz, _ = struct.unpack_from("<IIQQQQQQ", ph, k * phentsize)
        if p_type == 1:
            segs.append((p_vaddr, p_memsz, p_offset, bool(p_flags & 1)))
    return segs or None


class Recording:
    def __init__(self, flow, modules, exe):
        self.name = flow
        self.exe = os.path.realpath(exe)
        self.mods = []      # (lo, hi) of every module's image
        self.code = None    # (lo, hi, base) of the program's code
        try:
            lines = open(modules).read().splitlines()
        except OSError as e:
            sys.exit(f"flowcmp: {modules}: {e.strerror}")
        for line in lines:
            parts = line.split(" ", 2)
            if len(parts) < 3:
                continue
            base, path = int(parts[0], 16), unescape(parts[2])
            segs = elf_segments(path)
            if not segs:
                self.mods.append((base, base + (16 << 20)))
                continue
            v0, _, off0, _ = min(segs, key=lambda s: s[2])
            bias = base - (v0 - off0)
            self.mods.append((bias + min(s[0] for s in segs), bias + max(s[0] + s[1] for s in segs)))
            if self.code is None and os.path.realpath(path) == self.exe:
                x = [s for s in segs if s[3]]
                self.code = (bias + min(s[0] for s in x), bias + max(s[0] + s[1] for s in x), bias)
        if self.code is None:
            sys.exit(f"flowcmp: {modules}: {exe} is not among the modules")
        self.threads = {}   # tid -> raw lines
        self.regions = set()
        try:
            f = open(flow)
        except OSError as e:
            sys.exit(f"flowcmp: {flow}: {e.strerror}")
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"T(\d+) ", line)
            if not m:
                continue
            self.threads.setdefault(int(m.group(1)), []).append(line)
            at = line.rfind(" @0x")
            if at > 0:
                self.regions.add(int(line[at + 2:], 16) >> 20)

    def in_code(self, a):
        return self.code[0] <= a < self.code[1]

    def norm(self, a):
        """An address: an offset in the program's code, or 'out'."""
        return "M+0x%x" % (a - self.code[2]) if self.in_code(a) else "out"

    def pointer(self, v):
        return (v >> 20) in self.regions or any(lo <= v < hi for lo, hi in self.mods)

    def items(self, tid):
        """Thread TID's flow in the program's code: tuples, loads with their raw value last."""
        out = []
        for line in self.threads.get(tid, []):
            f = line.split()
            kind = f[1]
            if kind == "run":
                pc = int(f[2], 16)
                if self.in_code(pc):
                    out.append(("run", self.norm(pc), int(f[3])))
            elif kind == "branch":
                pc = int(f[2], 16)
                if self.in_code(pc):
                    out.append(("branch", self.norm(pc), f[3], f[4], self.norm(int(f[5], 16))))
            elif kind == "exc":
                pc = int(f[2], 16)
                if self.in_code(pc):
                    out.append(("exc", self.norm(pc), self.norm(int(f[3], 16))))
            elif kind == "load":
                pc, k = f[2].split("+")
                pc = int(pc, 16)
                if self.in_code(pc):
                    out.append(("load", self.norm(pc), int(k), int(f[3]), f[4]))
        return out

    def edges(self, tid):
        return {i for i in self.items(tid) if i[0] == "branch"}


def show(item):
    return " ".join(str(x) for x in item) if item else "(the end of the thread's flow)"


def exact(a, b):
    if sorted(a.threads) != sorted(b.threads):
        return f"threads {sorted(a.threads)} in {a.name}, {sorted(b.threads)} in {b.name}"
    counts = {"run": 0, "branch": 0, "exc": 0, "load": 0}
    ptrs = 0
    for t in sorted(a.threads):
        ia, ib = a.items(t), b.items(t)
        for k in range(max(len(ia), len(ib))):
            x = ia[k] if k < len(ia) else None
            y = ib[k] if k < len(ib) else None
            same = x == y
            if not same and x and y and x[0] == y[0] == "load" and x[:4] == y[:4] and x[3] == 8:
                va, vb = int(x[4], 16), int(y[4], 16)
                same = a.pointer(va) and b.pointer(vb)
                ptrs += same
            if not same:
                ctx = " | ".join(show(i) for i in ia[max(0, k - 2):k])
                return (f"T{t}, item {k} of its flow in the program's code (after: {ctx or '-'}): "
                        f"{a.name}: {show(x)}; {b.name}: {show(y)}")
            counts[x[0]] += 1
    plural = {"run": "runs", "branch": "branches", "exc": "exceptions", "load": "loads"}
    return ("same in the program's code: " + ", ".join(f"{n} {plural[k]}" for k, n in counts.items()) +
            f" in {len(a.threads)} threads ({ptrs} loads of pointers differ)")


def threads(a, b):
    sa = [frozenset(a.edges(t)) for t in sorted(a.threads)]
    sb = [frozenset(b.edges(t)) for t in sorted(b.threads)]
    sa = [s for s in sa if s]
    sb = [s for s in sb if s]
    left = list(sb)
    unmatched = []
    for s in sa:
        if s in left:
            left.remove(s)
        else:
            unmatched.append(s)
    if not unmatched and not left:
        return None, (f"same branches per thread in the program's code: {len(sa)} threads, "
                      f"{sum(len(s) for s in sa)} branch edges")
    why = f"{len(unmatched)} of {len(sa)} threads of {a.name} have no thread of {b.name} with the same branches"
    if unmatched and left:
        x = min(left, key=lambda s: len(s ^ unmatched[0]))
        only_a, only_b = sorted(unmatched[0] - x), sorted(x - unmatched[0])
        why += (f"; the closest pair differs by {len(only_a)} + {len(only_b)} edges, e.g. "
                f"{a.name} only: {show(only_a[0]) if only_a else '-'}; {b.name} only: {show(only_b[0]) if only_b else '-'}")
    return why, None


def edges(a, b, j):
    ea = set().union(*[a.edges(t) for t in a.threads]) if a.threads else set()
    eb = set().union(*[b.edges(t) for t in b.threads]) if b.threads else set()
    u = len(ea | eb)
    r = len(ea & eb) / u if u else 1.0
    msg = (f"{len(ea & eb)} of {u} branch edges of the program's code in both ({100 * r:.1f}%; "
           f"{len(ea - eb)} only in {a.name}, {len(eb - ea)} only in {b.name})")
    if r + 1e-12 < j or not u:
        ex = sorted(ea - eb)[:2] + sorted(eb - ea)[:2]
        return msg + (": " + "; ".join(show(e) for e in ex) if ex else ": no branch at all"), None
    return None, msg


def main(argv):
    if len(argv) != 7 or not re.fullmatch(r"exact|threads|edges(:[01](\.\d+)?)?", argv[1]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    mode, exe = argv[1], argv[2]
    a = Recording(argv[3], argv[4], exe)
    b = Recording(argv[5], argv[6], exe)
    if a.threads == b.threads and a.threads:
        print(f"identical: {sum(len(v) for v in a.threads.values())} lines of flow in {len(a.threads)} threads")
        return 0
    if mode == "exact":
        r = exact(a, b)
        print(r)
        return 0 if r.startswith("same") else 1
    if mode == "threads":
        bad, good = threads(a, b)
    else:
        bad, good = edges(a, b, float(mode.split(":")[1]) if ":" in mode else 1.0)
    print(bad or good)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
