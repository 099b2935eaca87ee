#!/usr/bin/env python3
"""tm study: the bandwidth study (docs/study.md).

Records each program of a study once per thread count N under `tm record`,
feeding every configuration of the sweep in that one pass (`--and`), verifies
each recording by replay, computes from each recording's commit stream the
Intel PT of the same execution (tm pt, verified by libipt's decoder), caches
each (program, N, configuration) result and each PT under DIR/cache, and
writes the report: DIR/index.html with the paper's tables and
figures, DIR/results.json and a CSV per table.  Run through `tm study`, which
sets TM_BIN to the tm executable.  Standard library only, plus matplotlib for
the figures (study/report.py)."""
import argparse
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
import paper_programs  # noqa: E402 - study/paper_programs.py: a program's paper_name
ROOT = os.path.dirname(HERE)
PROG = "tm study"

# The embedded default study (tm study --print-default prints it).  Real
# multithreaded programs nobody here wrote (Debian's), and the project's own
# test programs; N = 1, 2, 4, 8; presets x encodings x time stamps; CFiat.
DEFAULT_STUDY = """\
# The default study of `tm study` (docs/study.md describes every key).
[study]
name = "default"
threads = [1, 2, 4, 8]       # N: the {N} of each program's command
verify = "commit"            # commit: replay from the binaries, compared with the commit stream
timing = ""                  # tm record's timing options, e.g. "--cpi 1.5 --l1 16K:4:2"
pt = true                    # Intel PT of each recording (tm pt, from its commit stream: needs verify = "commit")

[demand]                     # bandwidth demand: a port and buffer that drop nothing
port = 1024
buffer = 65536

[configs]                    # the grid: presets x encodings x time stamps x sharing
presets = @PRESETS@
encodings = @ENCODINGS@
timestamps = [false, true]
sharing = ["private"]

[[data]]                     # load-value tracing (on tr_e large): CFiat and the every-load baseline
name = "cfiat-tool"
options = "--cfiat --cache tool"
[[data]]
name = "cfiat-study"
options = "--cfiat --cache study"
[[data]]
name = "all"
options = "--data all"

[[config]]                   # TAGE-class predictors with the adaptive encoding (study/tra.toml), for the ISAs' table
name = "tr_a-tage-l"
options = "--config tage-l --encoding tr_a"

[delivery]                   # the port/buffer axis: drops, lost instructions, peak occupancy
configs = @DELIVERY@
ports = [1, 2, 4, 8, 16, 32]
buffers = [1024, 16384]

[chunks]                     # the TR_e chunk-size exploration: (i0, i1) in 1..max
max = 8

[[program]]
name = "pigz"
cmd = "pigz -p {N} -c {input}"
input = "text:1M"
[[program]]
name = "xz"
cmd = "xz -T {N} -3 --block-size=32KiB -c {input}"    # blocks small enough for N threads
input = "text:512K"
[[program]]
name = "pbzip2"
cmd = "pbzip2 -b1 -p{N} -c {input}"                   # 100 KB blocks
input = "text:512K"
[[program]]
name = "zstd"
cmd = "zstd -T{N} -3 -B512K -c {input}"               # 512 KB jobs
input = "text:2M"
[[program]]
name = "sort"
cmd = "sort --parallel={N} -S 256M {input}"          # one thread on this input (docs/study.md)
input = "text:4M"
[[program]]
name = "mt_pthread"
cmd = "{programs}/mt_pthread {N}"
[[program]]
name = "mt_omp"
cmd = "{programs}/mt_omp {N}"
env = { OMP_NUM_THREADS = "{N}" }

# The same work on AArch64 and RISC-V, under QEMU (tm record --frontend qemu;
# make isa-programs builds {isa} = build/isa): Debian's arm64 pigz, xz and zstd,
# zstd and xz built from Debian's sources for riscv64, mt_pthread
# cross-compiled; the same commands and inputs as the x86-64 programs above
# (the report's table isa compares them: compare_as, by default the name
# without -a64 / -rv64).
[[program]]
name = "pigz-a64"
cmd = "{isa}/arm64-root/usr/bin/pigz -p {N} -c {input}"
input = "text:1M"
frontend = "qemu"
env = { LD_LIBRARY_PATH = "{isa}/arm64-root/lib/aarch64-linux-gnu:{isa}/arm64-root/usr/lib/aarch64-linux-gnu" }
[[program]]
name = "xz-a64"
cmd = "{isa}/arm64-root/usr/bin/xz -T {N} -3 --block-size=32KiB -c {input}"
input = "text:512K"
frontend = "qemu"
env = { LD_LIBRARY_PATH = "{isa}/arm64-root/lib/aarch64-linux-gnu:{isa}/arm64-root/usr/lib/aarch64-linux-gnu" }
[[program]]
name = "zstd-a64"
cmd = "{isa}/arm64-root/usr/bin/zstd -T{N} -3 -B512K -c {input}"
input = "text:2M"
frontend = "qemu"
env = { LD_LIBRARY_PATH = "{isa}/arm64-root/lib/aarch64-linux-gnu:{isa}/arm64-root/usr/lib/aarch64-linux-gnu" }
[[program]]
name = "mt_pthread-a64"
cmd = "{isa}/aarch64/mt_pthread {N}"
frontend = "qemu"
[[program]]
name = "xz-rv64"
cmd = "{isa}/riscv64/xz -T {N} -3 --block-size=32KiB -c {input}"
input = "text:512K"
frontend = "qemu"
[[program]]
name = "zstd-rv64"
cmd = "{isa}/riscv64/zstd -T{N} -3 -B512K -c {input}"
input = "text:2M"
frontend = "qemu"
[[program]]
name = "mt_pthread-rv64"
cmd = "{isa}/riscv64/mt_pthread {N}"
frontend = "qemu"

[quick]                      # --quick: a few minutes on 2 cores (make run)
threads = [1, 2, 4]
programs = ["pigz", "xz", "mt_pthread"]
inputs = { pigz = "text:256K", xz = "text:128K" }
"""

TOP_KEYS = {"study", "demand", "configs", "data", "config", "delivery", "chunks", "program", "quick"}
SECTION_KEYS = {
    "study": {"name", "threads", "verify", "timing", "cores", "pt", "standards"},
    "demand": {"port", "buffer"},
    "configs": {"presets", "encodings", "timestamps", "sharing", "options"},
    "data": {"name", "options"},
    "config": {"name", "options"},
    "delivery": {"configs", "ports", "buffers"},
    "chunks": {"max"},
    "program": {"name", "cmd", "input", "env", "threads", "gen", "cores", "cwd", "stdin", "setup", "expect",
                "frontend", "isa", "compare_as", "paper_name"},
    "quick": {"threads", "programs", "inputs"},
}
# tm pt's options for each recording's Intel PT (docs/pt.md): PT without
# timing packets, with TSC+MTC and with TSC+MTC+CYC in one pass, verified by
# libipt's decoder against the commit stream.  A synthetic stream (tm gen)
# has no code to decode: --no-image, not verified.  Part of the PT results'
# cache key.
PT_ARGS = ["--timing-variants", "--verify"]
PT_ARGS_GEN = ["--timing-variants", "--no-image"]
PT_FORMATS = ("PT", "PT+mtc", "PT+cyc")
# tm std's options for each recording's ISA's own trace standard
# (docs/standards.md): Intel PT, ARM ETMv4 or RISC-V E-Trace in each of its
# variants beside the trace module (the rows the report shows: nx_b,
# tr_e-large, tage-l+tr_a), each variant verified by its decoder.  Part of the
# standards' cache key.
STD_ARGS = ["--verify", "--models", "nx_b,tr_e-large,tage-l+tr_a"]   # report.STD_TM_ROWS
# x86-64 with Intel PT on (pt = true): tm pt --verify decodes the recording's
# PT already, and decoding PT's three variants again would double the
# study's PT time; tm std then encodes without --verify (t_std decodes all
# three variants of the same encoder).
STD_ARGS_PT = ["--models", "nx_b,tr_e-large,tage-l+tr_a"]


# [[program]] frontend: what runs the program under tm record (--frontend), and
# the ISAs each records; ISA names as the recordings' statistics give them
# ("isa", absent for x86-64) and the ELF machine numbers they have.
FRONTENDS = {"valgrind": ("x86-64",), "pin": ("x86-64",), "qemu": ("aarch64", "riscv64")}
ISAS = ("x86-64", "aarch64", "riscv64")
ELF_ISA = {62: "x86-64", 183: "aarch64", 243: "riscv64"}
# a program's name without its ISA suffix: what it is compared as across ISAs (compare_as)
ISA_SUFFIX = r"-(a64|aarch64|arm64|rv64|riscv64|x86|x64|x86_64|x86-64)$"
# the substitutions of a [[program]]'s strings
SUBSTS = ("N", "input", "programs", "isa")

# Options that name outputs: tm study sets them for each configuration itself.
OUTPUT_OPTIONS = ("-o", "--stats", "--profile", "--commit", "--and", "--mode", "--capture", "--threads", "-q", "--")
# text:SIZE inputs (generated): at most this many bytes.
TEXT_MAX = 256 << 20


class StudyError(Exception):
    """A study file's error: printed as FILE:LINE: key K: message."""


def die(msg, code=2):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- the file

def tm_names(tm, what):
    """The model's predictor presets or message encodings (WHAT), as `tm config
    --list-presets` / `--list-encodings` prints them: the allowed values and
    the defaults of [configs]."""
    argv = [tm, "config", f"--list-{what}"]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        die(f"{' '.join(argv)}: {e}")
    names = tuple(r.stdout.split())
    if r.returncode or not names:
        die(f"{' '.join(argv)} failed: {r.stderr.strip() or 'no output'}")
    return names


def default_study(tm):
    """DEFAULT_STUDY with its configurations from the manifest (rtl/configs.txt,
    through `tm config`): the grid's presets and encodings are those of the
    tier study, the delivery axis's configurations those of study-delivery."""
    def tier(name):
        argv = [tm, "config", "--list", name]
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            out = []
            for n in r.stdout.split() if r.returncode == 0 else []:
                o = subprocess.run([tm, "config", n, "--format", "opts"], capture_output=True, text=True,
                                   timeout=60)
                if o.returncode:
                    die(f"tm config {n} --format opts failed: {o.stderr.strip()}")
                w = o.stdout.split()
                val = {k: w[i + 1] for i, k in enumerate(w[:-1]) if k in ("--config", "--encoding")}
                out.append((val.get("--config", "large"), val.get("--encoding", "tr_e")))
        except (OSError, subprocess.SubprocessError) as e:
            die(f"{' '.join(argv)}: {e}")
        if r.returncode or not out:
            die(f"{' '.join(argv)} failed: {r.stderr.strip() or 'no entries'}")
        return out
    def toml_list(xs):
        return "[" + ", ".join(f'"{x}"' for x in dict.fromkeys(xs)) + "]"
    grid, delivery = tier("study"), tier("study-delivery")
    return (DEFAULT_STUDY.replace("@PRESETS@", toml_list(p for p, _ in grid))
            .replace("@ENCODINGS@", toml_list(e for _, e in grid))
            .replace("@DELIVERY@", toml_list(f"{e}-{p}" for p, e in delivery)))


class Study:
    """A parsed, checked study: its programs, N values and configurations.
    PRESETS and ENCODINGS: those of the model (tm_names), allowed in [configs]
    and its defaults."""

    def __init__(self, text, path, presets, encodings):
        self.text, self.path = text, path
        self.dir = os.path.dirname(os.path.abspath(path)) if not path.startswith("<") else os.getcwd()
        # DIR/study.toml, the copy a study keeps: relative paths stay those of the original's folder
        m = re.match(r"(?:#[^\n]*\n){0,3}?# tm-study-base: ([^\n]+)\n", text)
        if m and os.path.isdir(m.group(1)):
            self.dir = m.group(1)
        self.all_presets, self.all_encodings = tuple(presets), tuple(encodings)
        try:
            self.raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
            line = m.group(1) if m else str(max(1, text.count("\n") + (0 if text.endswith("\n") else 1)))
            msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
            raise StudyError(f"{path}:{line}: {msg}")
        self.check()

    def line_of(self, key, nth=0, section=None):
        """The line of KEY (its nth [[section]] if given) in the file, for errors."""
        lines = self.text.splitlines()
        start = 0
        if section:
            seen = -1
            for i, l in enumerate(lines):
                s = l.strip()
                if s in (f"[[{section}]]", f"[{section}]"):
                    seen += 1
                    if seen == nth:
                        start = i
                        if key is None:
                            return i + 1
                        break
        if key is None:  # a section that is not there as one
            return "?"
        for i in range(start, len(lines)):
            if re.match(rf"\s*{re.escape(key)}\s*=", lines[i]):
                return i + 1
            if section and i > start and re.match(r"\s*\[", lines[i]):
                break
        return start + 1 if section else "?"

    def err(self, key, msg, nth=0, section=None):
        full = f"{section}[{nth}].{key}" if section in ("program", "data", "config") else (
            f"{section}.{key}" if section else key)
        raise StudyError(f"{self.path}:{self.line_of(key, nth, section)}: key '{full}': {msg}")

    def want(self, d, key, typ, section, nth=0, default=None, required=False):
        if key not in d:
            if required:
                raise StudyError(f"{self.path}:{self.line_of(None, nth, section) if section else '?'}: "
                                 f"{section}: key '{key}' is required")
            return default
        v = d[key]
        ok = isinstance(v, typ) and not (typ is int and isinstance(v, bool))
        if not ok:
            names = typ.__name__ if isinstance(typ, type) else " or ".join(t.__name__ for t in typ)
            self.err(key, f"expected {names}, got {type(v).__name__} {v!r}", nth, section)
        return v

    def ints(self, d, key, section, lo, hi, default):
        v = self.want(d, key, list, section, default=default)
        if not v:
            self.err(key, "needs at least one value", 0, section)
        for x in v:
            if not isinstance(x, int) or isinstance(x, bool) or not lo <= x <= hi:
                self.err(key, f"{x!r}: allowed integers {lo}..{hi}", 0, section)
        if len(set(v)) != len(v):
            self.err(key, f"{v}: {next(x for x in v if v.count(x) > 1)} appears twice", 0, section)
        return v

    def choices(self, d, key, section, allowed, default, typ=str):
        v = self.want(d, key, list, section, default=default)
        if not v:
            self.err(key, "needs at least one value", 0, section)
        for x in v:
            if not isinstance(x, typ) or x not in allowed:
                self.err(key, f"{x!r}: allowed {', '.join(map(str, allowed))}", 0, section)
        return v

    def options(self, d, key, section, nth, default=None, required=False):
        """KEY's tm options (shell words): no output options, which the study sets itself."""
        v = self.want(d, key, str, section, nth, default=default, required=required)
        try:
            words = shlex.split(v)
        except ValueError as e:
            self.err(key, f"{v!r}: {e} (shell words: close the quote)", nth, section)
        for w in words:
            o = w.split("=", 1)[0]
            if o in OUTPUT_OPTIONS:
                self.err(key, f"{o}: an output option; tm study names every output itself "
                         f"(not allowed: {', '.join(OUTPUT_OPTIONS)})", nth, section)
        return words

    def config_name(self, d, section, nth):
        nm = self.want(d, "name", str, section, nth, required=True)
        if not re.fullmatch(r"[A-Za-z0-9_.+-]+", nm):
            self.err("name", f"{nm!r}: a configuration name is part of file names: letters, digits and _.+- only",
                     nth, section)
        return nm

    def cores_value(self, d, section, nth, default):
        """tm record --threads: "auto", a number 1..1024, or a string with {N} (e.g. "{N}")."""
        v = self.want(d, "cores", (int, str), section, nth, default=default)
        if isinstance(v, int):
            if not 1 <= v <= 1024:
                self.err("cores", f"{v}: allowed auto, 1..1024 or \"{{N}}\"", nth, section)
        elif v != "auto" and not re.fullmatch(r"\d+|\{N\}", v):
            self.err("cores", f"{v!r}: allowed \"auto\", a number 1..1024 or \"{{N}}\"", nth, section)
        elif v.isdigit() and not 1 <= int(v) <= 1024:
            self.err("cores", f"{v!r}: allowed auto, 1..1024 or \"{{N}}\"", nth, section)
        return v

    def input_spec(self, v, key, nth, check, section="program"):
        """An input (KEY input or stdin): text:SIZE, or a file relative to the study file (with {N}: one
        per thread count, checked per N before the study starts)."""
        if v.startswith("text:"):
            if not re.fullmatch(r"text:\d+[KM]?", v):
                self.err(key, f"{v!r}: text:SIZE with SIZE in bytes, K or M (e.g. text:1M)", nth, section)
            if not 1 <= parse_size(v[5:]) <= TEXT_MAX:
                self.err(key, f"{v!r}: text:SIZE allows 1 byte to {TEXT_MAX >> 20}M", nth, section)
            return
        for m in re.findall(r"\{([^{}]*)\}", v):
            if m not in ("N", "programs", "isa"):
                self.err(key, f"{{{m}}}: allowed substitutions {{N}}, {{programs}}, {{isa}}", nth, section)
        if check and "{" not in v and not os.path.isfile(os.path.join(self.dir, v)):
            self.err(key, f"{v!r}: no such file (or text:SIZE, e.g. text:1M)", nth, section)

    def check(self):
        """Checks the study file and sets the study's settings from it (the
        first error raises StudyError: file, line and key)."""
        self.check_keys()
        self.check_study()
        self.check_configs()
        names = self.check_programs()
        self.check_quick(names)
        self.configs = self.make_configs()
        for dc in self.dl_configs:
            if dc not in {c["name"] for c in self.configs}:
                self.err("configs", f"{dc!r}: not a configuration of the study "
                         f"(e.g. {self.configs[0]['name']})", 0, "delivery")

    def check_keys(self):
        """The file's top-level keys and each section's keys are known, and
        each section is a table or an array of tables as it should be."""
        r = self.raw
        for k in r:
            if k not in TOP_KEYS:
                raise StudyError(f"{self.path}:{self.line_of(k) if not isinstance(r[k], (dict, list)) else self.line_of(None, 0, k)}: "
                                 f"unknown key '{k}' (allowed: {', '.join(sorted(TOP_KEYS))})")
        for sec, keys in SECTION_KEYS.items():
            items = r.get(sec, [] if sec in ("data", "config", "program") else {})
            if sec in ("data", "config", "program"):
                if not isinstance(items, list):
                    line = self.line_of(None, 0, sec) if isinstance(items, dict) else self.line_of(sec)
                    raise StudyError(f"{self.path}:{line}: '{sec}' must be an array of tables ([[{sec}]])")
            else:
                if not isinstance(items, dict):
                    raise StudyError(f"{self.path}:{self.line_of(sec)}: '{sec}' must be a table ([{sec}])")
                items = [items]
            for n, it in enumerate(items):
                for k in it:
                    if k not in keys:
                        self.err(k, f"unknown key (allowed: {', '.join(sorted(keys))})", n, sec)

    def check_study(self):
        """[study] (name, threads, verify, timing, cores, pt) and [demand]
        (port, buffer)."""
        r = self.raw
        st = r.get("study", {})
        self.name = self.want(st, "name", str, "study", default="study")
        self.threads = self.ints(st, "threads", "study", 1, 1024, [1, 2, 4, 8])
        self.verify = self.want(st, "verify", str, "study", default="commit")
        if self.verify not in ("commit", "binary", "none"):
            self.err("verify", f"{self.verify!r}: allowed commit, binary, none", 0, "study")
        self.timing = self.options(st, "timing", "study", 0, default="")
        self.cores = self.cores_value(st, "study", 0, "auto")
        self.pt = self.want(st, "pt", bool, "study", default=True)
        self.standards = self.want(st, "standards", bool, "study", default=True)
        dm = r.get("demand", {})
        self.port = self.want(dm, "port", int, "demand", default=1024)
        self.buffer = self.want(dm, "buffer", int, "demand", default=65536)
        if not 1 <= self.port <= 1 << 20:
            self.err("port", f"{self.port}: allowed 1..{1 << 20}", 0, "demand")
        if not 1 <= self.buffer <= 1 << 30:
            self.err("buffer", f"{self.buffer}: allowed 1..{1 << 30}", 0, "demand")

    def check_configs(self):
        """The configurations' sections: [configs] (the grid), [[data]],
        [[config]], [delivery] and [chunks]."""
        r = self.raw
        cf = r.get("configs", {})
        self.presets = self.choices(cf, "presets", "configs", self.all_presets, list(self.all_presets))
        self.encodings = self.choices(cf, "encodings", "configs", self.all_encodings, list(self.all_encodings))
        self.tstamps = self.choices(cf, "timestamps", "configs", (False, True), [False, True], bool)
        self.sharing = self.choices(cf, "sharing", "configs", ("private", "shared"), ["private"])
        self.grid_opts = self.options(cf, "options", "configs", 0, default="")
        self.data = []
        for n, d in enumerate(r.get("data", [])):
            nm = self.config_name(d, "data", n)
            self.data.append((nm, self.options(d, "options", "data", n, required=True)))
        self.extra = []
        for n, d in enumerate(r.get("config", [])):
            nm = self.config_name(d, "config", n)
            self.extra.append((nm, self.options(d, "options", "config", n, required=True)))
        dl = r.get("delivery", {})
        self.dl_configs = self.want(dl, "configs", list, "delivery", default=[])
        self.dl_ports = self.ints(dl, "ports", "delivery", 1, 1 << 20, [1, 2, 4, 8, 16, 32, 64]) if dl else []
        self.dl_buffers = self.ints(dl, "buffers", "delivery", 1, 1 << 30, [512, 4096, 65536]) if dl else []
        ch = r.get("chunks", {})
        self.chunk_max = self.want(ch, "max", int, "chunks", default=8)
        if not 1 <= self.chunk_max <= 16:
            self.err("max", f"{self.chunk_max}: allowed 1..16", 0, "chunks")

    def check_programs(self):
        """Each [[program]] into self.programs (at least one); returns the
        set of their names."""
        self.programs = []
        names = set()
        for n, p in enumerate(self.raw.get("program", [])):
            self.programs.append(self.check_program(p, n, names))
        if not self.programs:
            raise StudyError(f"{self.path}:1: no [[program]]: a study needs at least one")
        return names

    def program_source(self, p, n, names):
        """Program N's (P's) name (added to NAMES, which must not have it)
        and what it runs: (name, cmd as a list of words or None, gen or
        None), exactly one of cmd and gen."""
        nm = self.want(p, "name", str, "program", n, required=True)
        if not re.fullmatch(r"[A-Za-z0-9_.+-]+", nm):
            self.err("name", f"{nm!r}: letters, digits and _.+- only", n, "program")
        if nm in names:
            self.err("name", f"{nm!r}: two programs with this name", n, "program")
        names.add(nm)
        cmd = self.want(p, "cmd", (str, list), "program", n)
        gen = self.want(p, "gen", dict, "program", n)
        if (cmd is None) == (gen is None):
            raise StudyError(f"{self.path}:{self.line_of(None, n, 'program')}: program[{n}] ({nm}): "
                             f"give either 'cmd' (a program to record) or 'gen' (a synthetic stream)")
        if isinstance(cmd, list) and not all(isinstance(a, str) for a in cmd):
            self.err("cmd", "a list of strings", n, "program")
        if isinstance(cmd, str):
            try:
                cmd = shlex.split(cmd)
            except ValueError as e:
                self.err("cmd", f"{p['cmd']!r}: {e} (shell words: close the quote)", n, "program")
        if cmd is not None and (not cmd or not cmd[0]):
            self.err("cmd", "empty: the program to record and its arguments", n, "program")
        if gen is not None:
            for k, v in gen.items():
                if k not in ("insns", "seed", "mem") or (k == "mem" and not isinstance(v, bool)) or (
                        k != "mem" and (not isinstance(v, int) or isinstance(v, bool) or v < 1)):
                    self.err("gen", f"{k} = {v!r}: allowed insns (>= 1), seed (>= 1), mem (true/false)", n, "program")
            for k in ("cwd", "stdin", "setup", "expect", "input", "env", "frontend", "isa"):
                if k in p:
                    self.err(k, "only for a program to record ('cmd'), not a synthetic stream ('gen')", n, "program")
        return nm, cmd, gen

    def check_program(self, p, n, names):
        """Program N of the file (P, a [[program]] table) as the study keeps
        it (a dict); its name is added to NAMES."""
        nm, cmd, gen = self.program_source(p, n, names)
        setup = self.want(p, "setup", str, "program", n)
        if setup is not None and not setup.strip():
            self.err("setup", "empty: a shell command, or leave the key out", n, "program")
        inp = self.want(p, "input", str, "program", n)
        if inp is not None:
            self.input_spec(inp, "input", n, check=setup is None)
        stdin = self.want(p, "stdin", str, "program", n)
        if stdin is not None:
            if stdin == "{input}":
                if inp is None:
                    self.err("stdin", "'{input}' but the program has no 'input'", n, "program")
            else:
                self.input_spec(stdin, "stdin", n, check=setup is None)
        cwd = self.want(p, "cwd", str, "program", n)
        if cwd is not None and not cwd:
            self.err("cwd", "empty: a directory, or leave the key out", n, "program")
        expect = self.want(p, "expect", str, "program", n)
        if expect is not None:
            try:
                re.compile(expect)
            except re.error as e:
                self.err("expect", f"{expect!r}: not a regular expression: {e}", n, "program")
        env = self.want(p, "env", dict, "program", n, default={})
        for k, v in env.items():
            if not isinstance(v, str):
                self.err("env", f"{k} = {v!r}: values are strings", n, "program")
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                self.err("env", f"{k!r}: not a variable name", n, "program")
        th = self.want(p, "threads", list, "program", n)
        if th is not None:
            if not th or not all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 1024 for x in th):
                self.err("threads", "integers 1..1024 (at least one)", n, "program")
            if len(set(th)) != len(th):
                self.err("threads", f"{th}: a thread count appears twice", n, "program")
        cores = self.cores_value(p, "program", n, self.cores)
        for k, v in (("cmd", " ".join(cmd or [])), ("setup", setup or ""), ("cwd", cwd or ""),
                     ("stdin", stdin or "")):
            for m in re.findall(r"\{([^{}]*)\}", v):
                if m not in SUBSTS:
                    self.err(k, f"{{{m}}}: allowed substitutions {{N}}, {{input}}, {{programs}}, {{isa}}", n,
                             "program")
            if "{input}" in v and inp is None:
                self.err(k, "uses {input} but the program has no 'input'", n, "program")
        fe = self.want(p, "frontend", str, "program", n, default="valgrind")
        if fe not in FRONTENDS:
            self.err("frontend", f"{fe!r}: allowed {', '.join(FRONTENDS)}", n, "program")
        isa = self.want(p, "isa", str, "program", n)
        if isa is not None and isa not in ISAS:
            self.err("isa", f"{isa!r}: allowed {', '.join(ISAS)}", n, "program")
        if isa is not None and gen is None and isa not in FRONTENDS[fe]:
            self.err("isa", f"{isa!r}: frontend {fe} records {', '.join(FRONTENDS[fe])} programs"
                     + (' (frontend = "qemu" records aarch64 and riscv64)' if fe != "qemu" else ""), n, "program")
        cmp_as = self.want(p, "compare_as", str, "program", n, default=re.sub(ISA_SUFFIX, "", nm) or nm)
        if not re.fullmatch(r"[A-Za-z0-9_.+-]+", cmp_as):
            self.err("compare_as", f"{cmp_as!r}: letters, digits and _.+- only", n, "program")
        pname = self.want(p, "paper_name", str, "program", n)   # the paper's benchmark (report: paper_programs)
        if pname is not None and (why := paper_programs.check_name(pname)):
            self.err("paper_name", why, n, "program")
        return {"name": nm, "cmd": cmd, "gen": gen, "input": inp, "env": env,
                "threads": th, "cores": cores, "index": n, "cwd": cwd, "stdin": stdin,
                "setup": setup, "expect": expect, "frontend": fe, "isa": isa, "compare_as": cmp_as,
                "paper_name": pname}

    def check_quick(self, names):
        """[quick] (threads, programs, inputs), against NAMES, the programs'
        names."""
        q = self.raw.get("quick", {})
        self.quick = {"threads": self.ints(q, "threads", "quick", 1, 1024, [1, 2]) if "threads" in q else None,
                      "programs": self.want(q, "programs", list, "quick", default=None),
                      "inputs": self.want(q, "inputs", dict, "quick", default={})}
        for pn, v in self.quick["inputs"].items():
            if not isinstance(v, str):
                self.err("inputs", f"{pn} = {v!r}: a string (text:SIZE or a file)", 0, "quick")
            if pn in names:
                self.input_spec(v, "inputs", 0, check=True, section="quick")
        for pn in (self.quick["programs"] or []) + list(self.quick["inputs"]):
            if pn not in names:
                self.err("programs" if pn in (self.quick["programs"] or []) else "inputs",
                         f"{pn!r}: no such program", 0, "quick")

    def make_configs(self):
        """The demand configurations, then the delivery ones."""
        out = []
        lossless = ["--port", str(self.port), "--buffer", str(self.buffer)]
        for sh in self.sharing:
            for ts in self.tstamps:
                for enc in self.encodings:
                    for pr in self.presets:
                        name = f"{'t' if ts else ''}{enc}-{pr}{'-shared' if sh == 'shared' else ''}"
                        opts = ["--config", pr, "--encoding", enc] + (["--timestamps"] if ts else []) + (
                            ["--shared"] if sh == "shared" else []) + self.grid_opts
                        out.append({"name": name, "opts": opts + lossless, "base": opts, "kind": "demand",
                                    "enc": enc, "preset": pr, "ts": ts, "shared": sh == "shared"})
        for nm, o in self.data:
            base = ["--config", "large", "--encoding", "tr_e"] + o
            out.append({"name": f"tr_e-large+{nm}", "opts": base + lossless, "base": base, "kind": "data",
                        "data": nm, "enc": "tr_e", "preset": "large", "ts": False, "shared": False})
        for nm, o in self.extra:
            out.append({"name": nm, "opts": o + lossless, "base": o, "kind": "extra"})
        names = [c["name"] for c in out]
        for n in names:
            if names.count(n) > 1:
                raise StudyError(f"{self.path}:?: configuration name {n!r} appears twice")
        byname = {c["name"]: c for c in out}
        for dc in self.dl_configs:
            if dc in byname:
                for b in self.dl_buffers:
                    for p in self.dl_ports:
                        out.append({"name": f"{dc}@p{p}b{b}", "opts": byname[dc]["base"] + ["--port", str(p), "--buffer", str(b)],
                                    "kind": "delivery", "of": dc, "port": p, "buffer": b})
        if len(out) > 256:
            raise StudyError(f"{self.path}:?: {len(out)} configurations: tm record takes at most 256 in one pass")
        return out

    def pt_skipped(self):
        """Why the study has no Intel PT results (None: it has them)."""
        if not self.pt:
            return "pt = false in the study file"
        if self.verify != "commit":
            return f'verify = "{self.verify}" keeps no commit stream (tm pt needs one: verify = "commit")'
        return None

    def std_skipped(self):
        """Why the study has no results of the ISAs' trace standards (None: it has them)."""
        if not self.standards:
            return "standards = false in the study file"
        if self.verify != "commit":
            return f'verify = "{self.verify}" keeps no commit stream (tm std needs one: verify = "commit")'
        return None

    def apply_quick(self):
        q = self.quick
        if q["threads"]:
            self.threads = q["threads"]
        if q["programs"]:
            self.programs = [p for p in self.programs if p["name"] in q["programs"]]
        for p in self.programs:
            if p["name"] in q["inputs"]:
                p["input"] = q["inputs"][p["name"]]


# ---------------------------------------------------------------- units

def fmt_subst(a, subst):
    """A with {N}, {input}, {programs} and {isa} substituted (those SUBST has)."""
    return re.sub(r"\{(N|input|programs|isa)\}", lambda m: subst.get(m.group(1), m.group(0)), a)


def shown(path):
    """PATH as the user knows it: relative to the current directory when under it."""
    path = os.path.normpath(path)
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


def one_line(text, limit=400):
    """TEXT on one line of at most LIMIT characters."""
    t = " ".join(str(text).split())
    return t if len(t) <= limit else t[:limit - 3] + "..."


def elf_machine(path):
    """(is an ELF file, its e_machine) of PATH; raises OSError."""
    with open(path, "rb") as f:
        h = f.read(20)
    if len(h) < 20 or h[:4] != b"\x7fELF":
        return False, None
    return True, int.from_bytes(h[18:20], "little" if h[5] == 1 else "big")


def exe_problem(exe, name, progs_dir, frontend="valgrind", isa_dir=None):
    """Why EXE (argv[0] NAME resolved) cannot be recorded, or None: it must exist,
    be executable, and be an ELF of an ISA FRONTEND records (valgrind, pin:
    x86-64; qemu: aarch64, riscv64), or (not with qemu) a script whose
    interpreter is an x86-64 ELF."""
    hint = ""
    if exe and os.path.abspath(exe).startswith(os.path.abspath(progs_dir) + os.sep):
        hint = " (make programs builds it)"
    if exe and isa_dir and os.path.abspath(exe).startswith(os.path.abspath(isa_dir) + os.sep):
        hint = " (make isa-programs builds it)"
    want = FRONTENDS.get(frontend, ("x86-64",))
    if not exe:
        return f"{name}: not found on PATH (make deps installs the default study's programs)"
    if not os.path.exists(exe):
        return f"{shown(exe)}: no such file{hint}"
    if not os.path.isfile(exe) or not os.access(exe, os.X_OK):
        return f"{shown(exe)}: not an executable file{hint}"
    try:
        is_elf, mach = elf_machine(exe)
        if is_elf:
            isa = ELF_ISA.get(mach, f"machine {mach}")
            if isa in want:
                return None
            fix = next((f' (frontend = "{f}" records {isa})' for f, xs in FRONTENDS.items() if isa in xs), "")
            return (f"{shown(exe)}: {an(isa)} {isa} ELF file; frontend {frontend} records "
                    f"{' and '.join(want)} programs{fix}")
        with open(exe, "rb") as f:
            first = f.readline(512)
    except OSError as e:
        return f"{shown(exe)}: {e.strerror}"
    if frontend == "qemu":
        return f"{shown(exe)}: not an ELF executable (frontend qemu records aarch64 and riscv64 ELF programs)"
    if not first.startswith(b"#!"):
        return f"{shown(exe)}: neither an ELF executable nor a script (#!)"
    words = first[2:].decode(errors="replace").split()
    if not words:
        return f"{shown(exe)}: a script without an interpreter on its #! line"
    interp = words[0]
    try:
        is_elf, mach = elf_machine(interp)
    except OSError as e:
        return f"{shown(exe)}: its interpreter {interp}: {e.strerror}"
    if not is_elf or mach != 62:
        return f"{shown(exe)}: its interpreter {interp} is not an x86-64 ELF executable"
    return None


def an(word):
    """The article before WORD (an x86-64, an aarch64, a riscv64)."""
    return "an" if word[:1] in "aeiox" else "a"


def exe_isa(exe):
    """The ISA of executable EXE (an ELF's machine; a script's, its #! interpreter's), or None."""
    try:
        is_elf, mach = elf_machine(exe)
        if not is_elf:
            with open(exe, "rb") as f:
                first = f.readline(512)
            words = first[2:].decode(errors="replace").split() if first.startswith(b"#!") else []
            if not words:
                return None
            is_elf, mach = elf_machine(words[0])
        return ELF_ISA.get(mach) if is_elf else None
    except (OSError, TypeError):
        return None


def recording_isa(stats):
    """The ISA a recording's statistics (tm record's JSON) name: recording.isa, absent for x86-64."""
    return (stats.get("recording") or {}).get("isa") or "x86-64"


def qemu_problem(isa, plugin):
    """Why tm record --frontend qemu cannot run an ISA program here, or None."""
    if not shutil.which(f"qemu-{isa}"):
        return f"qemu-{isa} not found on PATH (make deps installs qemu-user)"
    if not os.path.isfile(plugin):
        return f"{shown(plugin)}: no such file (make builds the QEMU plugin)"
    return None


def checksum(res):
    """The checksum of a cache entry's content (every key but 'checksum')."""
    body = {k: v for k, v in res.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_entry(path):
    """(content, None) of cache file PATH, (None, None) if there is none, or
    (None, why) if it is empty, truncated, garbled or edited (its checksum)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, e.strerror
    if not data:
        return None, "empty"
    try:
        res = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        return None, f"not JSON (truncated or garbled: {one_line(e, 80)})"
    if not isinstance(res, dict):
        return None, "not a result (a JSON object)"
    if "checksum" not in res:
        return None, "no checksum (written by an older tm study)"
    if res["checksum"] != checksum(res):
        return None, "its checksum does not match its content (edited or damaged)"
    return res, None


@functools.lru_cache(maxsize=None)
def build_id(path):
    """The GNU build-id of ELF file PATH, or the SHA-256 of its bytes."""
    try:
        out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True, timeout=30).stdout
        m = re.search(r"Build ID:\s*([0-9a-f]+)", out)
        if m:
            return m.group(1)
    except (OSError, subprocess.SubprocessError):
        pass
    return file_hash(path)


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def make_text(path, size):
    """Deterministic text of SIZE bytes (a 3000-word vocabulary, seed 5)."""
    import random
    rnd = random.Random(5)
    words = ["".join(rnd.choice("etaoinshrdlucmfwyp") for _ in range(rnd.randint(2, 8))) for _ in range(3000)]
    out, n = [], 0
    while n < size:
        line = " ".join(rnd.choice(words) for _ in range(10)) + "\n"
        out.append(line)
        n += len(line)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("".join(out)[:size])
    os.replace(tmp, path)


def parse_size(s):
    m = re.fullmatch(r"(\d+)([KM]?)", s)
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20}[m.group(2)]


class Runner:
    """Plans and runs the units of a study: one (program, N) recording each."""

    def __init__(self, study, outdir, tm, jobs, keep, quick, write=True):
        self.s, self.dir, self.tm, self.jobs, self.keep = study, outdir, tm, jobs, keep
        self.quick = quick
        self.write = write          # False (--list, --report-only): create, move or delete no file
        self.cache = os.path.join(outdir, "cache")
        self.pt_cache = os.path.join(self.cache, "pt")
        self.pt_on = study.pt_skipped() is None
        self.std_cache = os.path.join(self.cache, "std")
        self.std_on = study.std_skipped() is None
        self.work = os.path.join(outdir, "work")
        self.progs_dir = os.path.join(ROOT, "build", "programs")
        self.isa_dir = os.path.join(ROOT, "build", "isa")
        self.qemu_plugin = os.path.join(os.path.dirname(tm), "..", "lib", "qemu", "tm_qemu.so")
        self.lock = threading.Lock()
        self.procs = set()
        self.stopping = False
        self.hashes = {}
        self.entries = {}           # cache file -> its checked content (None: absent or set aside)
        tool = os.path.join(os.path.dirname(tm), "..", "lib", "valgrind", "tmtrace-amd64-linux")
        self.version = {"tm": build_id(tm),
                        "valgrind_tool": build_id(tool) if os.path.exists(tool) else None}

    def file_ident(self, path):
        """PATH's bytes as a hash (memoized for the plan)."""
        if path not in self.hashes:
            self.hashes[path] = file_hash(path)
        return self.hashes[path]

    def spec_path(self, spec, subst):
        """A study file's input or stdin SPEC for one N: (path, identity).  text:SIZE
        is generated into DIR/inputs when the unit runs (ensure_input), its identity
        the generator's; a file is relative to the study file."""
        if spec.startswith("text:"):
            return os.path.join(self.dir, "inputs", f"text-{spec[5:]}.txt"), f"{spec}:gen1"
        path = os.path.join(self.s.dir, fmt_subst(spec, subst))
        return path, None

    def units(self):
        us = []
        for p in self.s.programs:
            for n in (p["threads"] or self.s.threads):
                if self.quick and self.s.quick["threads"] and p["threads"]:
                    if n not in self.s.quick["threads"]:
                        continue
                us.append(self.unit(p, n))
        return us

    def unit(self, p, n):
        u = {"program": p["name"], "N": n, "id": f"{p['name']}-N{n}", "problems": [], "input_path": None,
             "frontend": p.get("frontend", "valgrind"), "isa": "x86-64"}
        subst = {"N": str(n), "programs": self.progs_dir, "isa": self.isa_dir}
        if p["gen"] is not None:
            g = p["gen"]
            u["gen"] = ["--threads", str(n), "--insns", str(g.get("insns", 1000000)), "--seed", str(g.get("seed", 7))] + (
                ["--mem"] if g.get("mem") else [])
            ident = {"gen": u["gen"]}
        else:
            files = {}                 # what the recording reads: name -> its bytes' hash (or its generator)
            inp, gen_ident = self.spec_path(p["input"], subst) if p["input"] is not None else (None, None)
            setup_text = fmt_subst(p["setup"], dict(subst, input=inp or "")) if p["setup"] else ""

            def note(path, label, setup_made=False, setup_reads=False):
                # a file the setup mentions is taken as written by it (its content follows from the
                # setup's files), unless it is one of those files (SETUP_READS: hashed)
                if setup_text and not setup_reads and os.path.basename(path) in setup_text:
                    files[label] = "written by the setup"
                    return
                if os.path.isfile(path):
                    try:
                        files[label] = self.file_ident(path)
                    except OSError as e:
                        u["problems"].append(f"{label}: {e.strerror}")
                elif not setup_made:
                    u["problems"].append(f"{shown(path)}: no such file")
            has_setup = p["setup"] is not None
            cwd = os.path.join(self.s.dir, fmt_subst(p["cwd"], subst)) if p["cwd"] else None
            u["cwd"] = cwd
            if cwd is not None and not os.path.isdir(cwd):
                u["problems"].append(f"cwd {shown(cwd)}: no such directory")
            if inp is not None:
                u["input_text"] = p["input"][5:] if gen_ident else None
                u["input_path"] = inp
                if gen_ident:
                    files["{input}"] = gen_ident
                else:
                    note(inp, "{input}", has_setup)
            subst["input"] = inp or ""
            fmt = lambda a: fmt_subst(a, subst)
            argv = [fmt(a) for a in p["cmd"]]
            base = cwd or os.getcwd()
            if "/" in argv[0]:
                exe = os.path.join(base, argv[0])
            else:
                exe = shutil.which(argv[0])
            u["argv"], u["exe"] = argv, exe
            u["env"] = {k: fmt(v) for k, v in p["env"].items()}
            cores = p["cores"]
            u["cores"] = "auto" if cores == "auto" else str(int(fmt(str(cores))))
            # the files the command line names (scripts, data), relative to the program's cwd
            for a in argv[1:]:
                if a != inp and a and os.path.isfile(os.path.join(base, a)):
                    note(os.path.join(base, a), "arg:" + a)
            u["stdin"] = None
            if p["stdin"] is not None:
                if p["stdin"] == "{input}":
                    u["stdin"] = inp
                    files["stdin"] = "{input}"
                else:
                    path, gen_ident = self.spec_path(p["stdin"], subst)
                    u["stdin"] = path
                    if gen_ident:
                        files["stdin"] = gen_ident
                        u["stdin_text"] = p["stdin"][5:]
                    else:
                        note(path, "stdin", has_setup)
            u["setup"] = fmt(p["setup"]) if has_setup else None
            if has_setup:
                try:
                    words = shlex.split(u["setup"])
                except ValueError:
                    words = u["setup"].split()
                target = False          # the word after > or >>: a file the setup writes, not hashed
                for w in words:
                    if target or re.match(r"[0-9&]?>", w):
                        target = w.endswith(">")
                        continue
                    w = w.lstrip("<")
                    if w and w != inp and os.path.isfile(os.path.join(base, w)):
                        note(os.path.join(base, w), "setup:" + w, setup_reads=True)
            u["expect"] = fmt(p["expect"]) if p["expect"] is not None else None
            # the paper's machine: a shared L2 of N x 64 KB (tm record's default is cores x 64 KB, and with
            # cores = auto the cores are known only at the end); the study file's --l2 wins
            timing = list(self.s.timing)
            if not any(w == "--l2" or w.startswith("--l2=") for w in timing) and "serial" not in timing \
                    and "--no-caches" not in timing:
                timing += ["--l2", f"{64 << (n.bit_length() - 1)}K"]
            u["timing"] = timing
            problem = exe_problem(exe, argv[0], self.progs_dir, u["frontend"], self.isa_dir) \
                if cwd is None or os.path.isdir(cwd) else None
            # the ISA the recording will say (tm record's statistics "isa"): the ELF's; the file's isa key
            # must agree with it (and is checked against the recording after it)
            u["isa"] = (exe_isa(exe) if exe and os.path.isfile(exe) else None) or p.get("isa") or "x86-64"
            if not problem and p.get("isa") and p["isa"] != u["isa"]:
                problem = f"{shown(exe)}: {an(u['isa'])} {u['isa']} program, but the study file says isa = \"{p['isa']}\""
            if not problem and u["frontend"] == "qemu":
                problem = qemu_problem(u["isa"], self.qemu_plugin)
            if problem:
                u["problems"].insert(0, problem)
            ident = {"exe": os.path.basename(argv[0]),
                     "build_id": build_id(exe) if exe and os.path.isfile(exe) else None,
                     "args": ["{input}" if inp and a == inp else a for a in argv[1:]], "env": u["env"],
                     "cores": u["cores"], "timing": u["timing"], "files": files,
                     "cwd": p["cwd"] and fmt_subst(p["cwd"], {"N": str(n), "programs": "{programs}",
                                                              "isa": "{isa}"}),
                     "stdin": p["stdin"] and fmt_subst(p["stdin"], {"N": str(n), "programs": "{programs}",
                                                                  "isa": "{isa}"}),
                     "setup": p["setup"], "expect": p["expect"], "frontend": u["frontend"]}
            if u["frontend"] == "qemu":
                ident["qemu_tool"] = build_id(self.qemu_plugin) if os.path.isfile(self.qemu_plugin) else None
        u["ident"] = ident
        u["keys"] = {}
        for c in self.s.configs:
            k = json.dumps({"v": self.version, "unit": ident, "N": n, "config": c["opts"], "verify": self.s.verify},
                           sort_keys=True)
            u["keys"][c["name"]] = hashlib.sha256(k.encode()).hexdigest()[:24]
        u["pt_args"] = PT_ARGS_GEN if "gen" in u else PT_ARGS
        u["pt"] = u["isa"] == "x86-64"          # tm pt models Intel PT: x86-64 recordings only
        k = json.dumps({"v": self.version, "unit": ident, "N": n, "pt": u["pt_args"], "verify": self.s.verify},
                       sort_keys=True)
        u["pt_key"] = hashlib.sha256(k.encode()).hexdigest()[:24]
        u["std"] = "gen" not in u            # tm std: the ISA's standard, decoded over the ELF images
        u["std_args"] = STD_ARGS_PT if u["isa"] == "x86-64" and self.pt_on else STD_ARGS
        k = json.dumps({"v": self.version, "unit": ident, "N": n, "std": u["std_args"], "verify": self.s.verify},
                       sort_keys=True)
        u["std_key"] = hashlib.sha256(k.encode()).hexdigest()[:24]
        return u

    def ensure_inputs(self, u):
        """The unit's generated text inputs (text:SIZE), made when it runs."""
        for k in ("input_text", "stdin_text"):
            if u.get(k):
                path = os.path.join(self.dir, "inputs", f"text-{u[k]}.txt")
                with self.lock:
                    if not os.path.exists(path):
                        os.makedirs(os.path.dirname(path), exist_ok=True)
                        make_text(path, parse_size(u[k]))

    def cached(self, u, name):
        return os.path.join(self.cache, f"{u['id']}.{name}.{u['keys'][name]}.json")

    def entry(self, path):
        """The checked content of cache file PATH, or None (absent, or bad: reported
        in one line and set aside to DIR/cache/bad/ so that it is recomputed)."""
        if path in self.entries:
            return self.entries[path]
        res, why = read_entry(path)
        if why:
            if self.write:
                bad = os.path.join(self.cache, "bad")
                os.makedirs(bad, exist_ok=True)
                dest = os.path.join(bad, os.path.basename(path))
                try:
                    os.replace(path, dest)
                except OSError:
                    dest = None
                print(f"{PROG}: cache entry {path}: {why}; set aside"
                      f"{' as ' + dest if dest else ''}, it is recomputed", file=sys.stderr)
            else:
                print(f"{PROG}: cache entry {path}: {why}; counted as missing", file=sys.stderr)
        self.entries[path] = res
        return res

    def store(self, path, res):
        """RES as the cache entry PATH: with its checksum, written whole and renamed into place."""
        res = dict(res)
        res.pop("checksum", None)
        res["checksum"] = checksum(res)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(res, f)
        os.replace(tmp, path)
        with self.lock:
            self.entries[path] = res

    def missing(self, u):
        return [c for c in self.s.configs if self.entry(self.cached(u, c["name"])) is None]

    def pt_cached(self, u):
        """U's Intel PT result (tm pt's statistics): DIR/cache/pt/ID.KEY.json."""
        return os.path.join(self.pt_cache, f"{u['id']}.{u['pt_key']}.json")

    def pt_missing(self, u):
        return self.pt_on and u.get("pt", True) and self.entry(self.pt_cached(u)) is None

    def std_cached(self, u):
        """U's trace-standard result (tm std's statistics): DIR/cache/std/ID.KEY.json."""
        return os.path.join(self.std_cache, f"{u['id']}.{u['std_key']}.json")

    def std_missing(self, u):
        return self.std_on and u.get("std", False) and self.entry(self.std_cached(u)) is None

    def work_line(self, u):
        """What U's recording still has to make, for the progress lines."""
        k = len(self.missing(u))
        extra = " and ".join(w for w, m in (("Intel PT", self.pt_missing(u)), ("its trace standard",
                                                                                self.std_missing(u))) if m)
        if not extra:
            return f"recording {k} configurations"
        if k == len(self.s.configs):
            return f"recording {k} configurations and {extra}"
        return (f"recording {len(self.s.configs)} configurations ({len(self.s.configs) - k} of them cached, "
                f"kept) and {extra}")

    def run_cmd(self, argv, log, env=None, stdout=None, stdin=None, cwd=None, shell_note=None):
        """ARGV (its output to LOG) as a process of its own session, which stop() ends;
        none starts once the study is stopping."""
        with open(log, "ab") as lf:
            lf.write(("$ " + (shell_note or " ".join(shlex.quote(a) for a in argv)) + "\n").encode())
            lf.flush()
            with self.lock:
                if self.stopping:
                    raise RuntimeError("stopped before it started")
                p = subprocess.Popen(argv, stdout=stdout or lf, stderr=lf, stdin=stdin or subprocess.DEVNULL,
                                     env=env, cwd=cwd, start_new_session=True)
                self.procs.add(p)
            try:
                rc = p.wait()
            finally:
                with self.lock:
                    self.procs.discard(p)
        return rc

    def fail(self, u, what, log, tail=None):
        if tail is None:
            try:
                with open(log, errors="replace") as f:
                    lines = [l.strip() for l in f if l.strip() and not l.startswith("$ ")]
                tail = lines[-1] if lines else ""
            except OSError:
                tail = ""
        raise RuntimeError(one_line(f"{u['id']}: {what} (log {log}{': ' + one_line(tail, 200) if tail else ''})"))

    def run_unit(self, u):
        """Records U once with every configuration not cached yet, computes its
        Intel PT if not cached yet (tm pt on the commit stream); caches each result."""
        if self.stopping:
            raise RuntimeError(f"{u['id']}: not started (the study is stopping)")
        pending = self.missing(u)
        need_pt = self.pt_missing(u)
        need_std = self.std_missing(u)
        if not pending and not need_pt and not need_std:
            return 0
        # The Intel PT needs the commit stream of a pass with every
        # configuration: the timing model's cycles depend on whether memory
        # operands are captured (docs/capture.md §3), so a pass with fewer
        # configurations could time the program differently.  Results of
        # configurations cached already are kept as they are.
        to_record = list(self.s.configs) if need_pt or need_std else pending
        os.makedirs(self.cache, exist_ok=True)
        wd = os.path.join(self.work, u["id"])
        shutil.rmtree(wd, ignore_errors=True)
        os.makedirs(wd)
        log = os.path.join(wd, "log")
        # the first configuration is the recording's own (BASE.tmt, .stats, .modules)
        segs = []
        for i, c in enumerate(to_record):
            seg = list(c["opts"]) + ["-o", os.path.join(wd, f"c{i}")]
            if c["kind"] != "delivery":
                seg += ["--profile", os.path.join(wd, f"c{i}.prof.json")]
            segs.append(seg)
        t0 = time.time()
        if "gen" in u:
            tmc = os.path.join(wd, "w.tmc")
            if self.run_cmd([self.tm, "gen"] + u["gen"] + ["-o", tmc], log):
                self.fail(u, "tm gen failed", log)
            argv = [self.tm, "model", tmc, "-q"]
            for i, seg in enumerate(segs):
                o = seg.index("-o")
                seg = seg[:o] + ["-o", seg[o + 1] + ".tmt", "--stats", seg[o + 1] + ".json"] + seg[o + 2:]
                argv += (["--and"] if i else []) + seg
            if self.run_cmd(argv, log):
                self.fail(u, "tm model failed", log)
            verify = [[self.tm, "decode", "--verify", "-q", tmc, os.path.join(wd, "c0.tmt")]] if self.s.verify != "none" else []
            how = "tm decode --verify (commit stream)"
            pt_in, pt_how = tmc, "not verified: a synthetic stream has no code to decode (tm pt --no-image)"
        else:
            base = os.path.join(wd, "c0")
            argv = [self.tm, "record", "--threads", u["cores"]] + (
                ["--frontend", u["frontend"]] if u["frontend"] != "valgrind" else []) + u["timing"] + (
                ["--commit"] if self.s.verify == "commit" else []) + (
                # several recordings at once keep the processors busy: the
                # model stays on each recording's thread (docs/guide.md)
                ["--model-thread", "no"] if self.jobs > 1 else [])
            for i, seg in enumerate(segs):
                argv += (["--and"] if i else []) + seg
            argv += ["--"] + u["argv"]
            env = dict(os.environ)
            env.update(u["env"])
            self.ensure_inputs(u)
            if u["setup"] is not None:
                # untraced, in the program's directory, before each recording
                slog = os.path.join(wd, "setup.log")
                rc = self.run_cmd(["/bin/sh", "-c", u["setup"]], slog, env=env, cwd=u["cwd"],
                                  shell_note=f"(cd {u['cwd'] or os.getcwd()} && {u['setup']})")
                if rc:
                    self.fail(u, f"setup exited {rc}", slog)
                for what, path in (("input", u["input_path"]), ("stdin", u["stdin"])):
                    if path and not os.path.isfile(path):
                        self.fail(u, f"{what} {shown(path)}: no such file after the setup", slog, tail="")
            out_path = os.path.join(wd, "stdout") if u["expect"] is not None else os.devnull
            try:
                sin = open(u["stdin"], "rb") if u["stdin"] else None
            except OSError as e:
                self.fail(u, f"stdin {shown(u['stdin'])}: {e.strerror}", log, tail="")
            try:
                with open(out_path, "wb") as so:
                    rc = self.run_cmd(argv, log, env=env, stdout=so, stdin=sin, cwd=u["cwd"])
            finally:
                if sin:
                    sin.close()
            if rc:
                self.fail(u, f"tm record exited {rc}", log)
            if u["expect"] is not None:
                with open(out_path, "rb") as f:
                    text = f.read().decode(errors="replace")
                if not re.search(u["expect"], text, re.M):
                    last = [l for l in text.splitlines() if l.strip()]
                    self.fail(u, f"its standard output does not match expect = {u['expect']!r}", log,
                              tail=f"its last line: {last[-1]}" if last else "it printed nothing")
            if self.s.verify == "commit":
                verify = [[self.tm, "decode", "--from-binary", "--verify", "-q", base + ".tmc", base + ".tmt"]]
                how = "tm decode --from-binary --verify (the ELF images, compared with the commit stream)"
            elif self.s.verify == "binary":
                verify = [[self.tm, "decode", "--from-binary", "--summary", base + ".tmt"]]
                how = "tm decode --from-binary (the ELF images)"
            else:
                verify, how = [], "not verified"
            pt_in = base + ".tmc"
            pt_how = "tm pt --verify (libipt's decoder over the ELF images, compared with the commit stream)"
        t_rec = time.time() - t0
        for v in verify:
            if self.run_cmd(v, log):
                self.fail(u, "replay does not verify", log)
        with open(log, errors="replace") as f:
            verdict = [l.strip() for l in f if l.startswith(("verified", "OK", "ok"))]
        # the ISA the recording says (tm record's statistics: "isa", absent for x86-64) is the program's
        st0 = json.load(open(os.path.join(wd, "c0.json")))
        rec_isa = recording_isa(st0)
        if rec_isa != u["isa"]:
            self.fail(u, f"the recording says isa {rec_isa}, the program is {u['isa']}", log, tail="")
        if need_pt:
            # the same execution as the trace module's: instructions and cycles agree
            st0 = json.load(open(os.path.join(wd, "c0.json")))
            self.run_pt(u, wd, log, pt_in, pt_how, (st0["total"]["instructions"], st0["execution_cycles"]))
        if need_std:
            self.run_std(u, wd, log, pt_in, (st0["total"]["instructions"], st0["execution_cycles"]))
        for c in pending:
            i = to_record.index(c)
            stats = json.load(open(os.path.join(wd, f"c{i}.json")))
            prof = None
            if c["kind"] != "delivery":
                prof = json.load(open(os.path.join(wd, f"c{i}.prof.json")))
            res = {"program": u["program"], "N": u["N"], "config": c["name"], "options": c["opts"],
                   "unit": u["ident"], "version": self.version, "recorded_with": len(to_record),
                   "isa": rec_isa, "frontend": u["frontend"],
                   "record_seconds": round(t_rec, 2), "verified": how if i == 0 else f"same recording as {to_record[0]['name']} ({how})",
                   "verdict": verdict[-1] if verdict else None, "stats": stats, "profile": prof}
            self.store(self.cached(u, c["name"]), res)
        if not self.keep:
            shutil.rmtree(wd, ignore_errors=True)
        return len(pending)

    def run_pt(self, u, wd, log, tmc, how, want):
        """tm pt on U's commit stream TMC: the PT buffers in the work folder
        (wd/pt.T<n>.pt), its statistics cached (DIR/cache/pt); a PT that does
        not verify, or whose instructions and cycles are not WANT (the trace
        module's), is an error of the unit."""
        base, stats = os.path.join(wd, "pt"), os.path.join(wd, "pt.json")
        t0 = time.time()
        rc = self.run_cmd([self.tm, "pt", tmc, "-o", base] + u["pt_args"] + ["--stats", stats, "-q"], log)
        secs = time.time() - t0
        st = None
        try:
            with open(stats) as f:
                st = json.load(f)
        except (OSError, ValueError):
            pass
        if st and "--verify" in u["pt_args"] and not (st.get("verify") or {}).get("ok"):
            self.fail(u, "Intel PT does not verify (tm pt --verify)", log)
        if rc or not st:
            self.fail(u, f"tm pt exited {rc}" if rc else "tm pt wrote no statistics", log)
        if (st.get("instructions"), st.get("cycles")) != want:
            self.fail(u, f"tm pt saw {st.get('instructions')} instructions in {st.get('cycles')} cycles, the trace "
                      f"module {want[0]} in {want[1]}", log)
        rows = {r["format"]: r for r in st.get("compare", [])}
        if any(f not in rows for f in PT_FORMATS):
            self.fail(u, f"tm pt's statistics lack the rows {', '.join(f for f in PT_FORMATS if f not in rows)}", log)
        res = {"program": u["program"], "N": u["N"], "unit": u["ident"], "version": self.version,
               "options": u["pt_args"], "pt_seconds": round(secs, 2), "verified": how, "stats": st}
        os.makedirs(self.pt_cache, exist_ok=True)
        self.store(self.pt_cached(u), res)
        if not self.keep:
            for n in os.listdir(wd):
                if n.startswith("pt.T") and n.endswith(".pt"):
                    os.unlink(os.path.join(wd, n))

    def run_std(self, u, wd, log, tmc, want):
        """tm std on U's commit stream TMC: the recording's ISA's trace standard
        in each of its variants, decoded over the ELF images and compared with
        the commit stream, beside the trace module; its statistics cached
        (DIR/cache/std).  A variant that does not verify, or instructions and
        cycles that are not WANT (the trace module's), are an error of the unit."""
        stats = os.path.join(wd, "std.json")
        t0 = time.time()
        rc = self.run_cmd([self.tm, "std", tmc] + u["std_args"] + ["--stats", stats, "-q"], log)
        secs = time.time() - t0
        if rc:
            self.fail(u, f"tm std exited {rc} (its trace standard does not verify, or failed)", log)
        try:
            with open(stats) as f:
                st = json.load(f)
        except (OSError, ValueError):
            self.fail(u, "tm std wrote no statistics", log)
        if (st.get("instructions"), st.get("cycles")) != want:
            self.fail(u, f"tm std saw {st.get('instructions')} instructions in {st.get('cycles')} cycles, the "
                      f"trace module {want[0]} in {want[1]}", log)
        checked = "--verify" in u["std_args"]
        bad = [r["name"] for r in st["rows"] if r["kind"] == "standard" and r["verified"] is not True]
        if checked and bad:
            self.fail(u, f"tm std: {', '.join(bad)} not verified", log)
        how = ("every variant decoded by tm std --verify" if checked else
               "PT decoded by libipt in this study's tm pt --verify (the same encoder)")
        res = {"program": u["program"], "N": u["N"], "unit": u["ident"], "version": self.version,
               "options": u["std_args"], "std_seconds": round(secs, 2), "isa": u["isa"], "verified": how, "stats": st}
        os.makedirs(self.std_cache, exist_ok=True)
        self.store(self.std_cached(u), res)

    def run_all(self, units):
        os.makedirs(self.cache, exist_ok=True)
        pending = [u for u in units if self.missing(u) or self.pt_missing(u) or self.std_missing(u)]
        done_before = len(units) - len(pending)
        if done_before:
            print(f"{PROG}: {done_before} of {len(units)} recordings cached already (resuming)", file=sys.stderr)
        t0 = time.time()
        done, errors = 0, []
        total = len(pending)

        def progress(u, what):
            el = time.time() - t0
            left = f", about {fmt_s(el / done * (total - done))} left" if done else ""
            print(f"{PROG}: [{done}/{total}] {u['id']}: {what} ({fmt_s(el)} elapsed{left})", file=sys.stderr, flush=True)

        with ThreadPoolExecutor(max_workers=self.jobs) as ex:
            futs = {}
            for u in pending:
                futs[ex.submit(self.run_unit, u)] = u
            for u in pending[:self.jobs]:
                progress(u, self.work_line(u))
            started = self.jobs
            for f in as_completed(futs):
                u = futs[f]
                try:
                    f.result()
                    done += 1
                    progress(u, "done, verified" if self.s.verify != "none" else "done")
                except Exception as e:  # noqa: BLE001 - reported, the study goes on
                    done += 1
                    e = one_line(e if isinstance(e, RuntimeError) else f"{u['id']}: {type(e).__name__}: {e}")
                    errors.append(e)
                    if not self.stopping:
                        print(f"{PROG}: {e}", file=sys.stderr, flush=True)
                if started < len(pending) and not self.stopping:
                    progress(pending[started], self.work_line(pending[started]))
                    started += 1
        return errors

    def stop(self, sig):
        """SIG to every running tm (each ends its recording and removes its
        outputs' temporaries); waits for them, SIGKILL after 20 s."""
        with self.lock:
            self.stopping = True
            procs = list(self.procs)
        for p in procs:
            try:
                os.killpg(p.pid, sig)
            except OSError:
                pass
        end = time.time() + 20
        for p in procs:
            try:
                p.wait(timeout=max(0.1, end - time.time()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass


def fmt_s(s):
    s = int(s)
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def load_cached(runner, items):
    """The checked cache entries of ITEMS ((path, label) pairs), and the labels of those that are missing."""
    res, missing = [], []
    for p, label in items:
        r = runner.entry(p)
        if r is not None:
            res.append(r)
        else:
            missing.append(label)
    return res, missing


def load_results(runner, units):
    return load_cached(runner, ((runner.cached(u, c["name"]), f"{u['id']}/{c['name']}")
                                for u in units for c in runner.s.configs))


def load_std(runner, units):
    """The trace-standard results (tm std's statistics per recording) and the missing ones."""
    if not runner.std_on:
        return [], []
    return load_cached(runner, ((runner.std_cached(u), f"{u['id']}/trace standard")
                                for u in units if u.get("std", False)))


def load_pt(runner, units):
    """The Intel PT results (tm pt's statistics per recording) and the missing ones."""
    if not runner.pt_on:
        return [], []
    return load_cached(runner, ((runner.pt_cached(u), f"{u['id']}/Intel PT") for u in units if u.get("pt", True)))


# ---------------------------------------------------------------- slurm

def slurm_submit(args, study_file, units, runner):
    """The units as a Slurm job array (sbatch), the report as a job that
    depends on it; with --wait, waits for the report."""
    for tool in ("sbatch", "squeue"):
        if not shutil.which(tool):
            die(f"--engine slurm: {tool} not found (install slurm-wlm: make deps)", 2)
    sd = os.path.join(args.o, "slurm")
    os.makedirs(sd, exist_ok=True)
    common = [runner.tm, "study", "-f", study_file, "-o", args.o, "--slurm-task"] + (["--quick"] if args.quick else []) + (
        ["--keep-work"] if args.keep_work else [])
    with open(os.path.join(sd, "units.json"), "w") as f:
        json.dump([u["id"] for u in units], f)
    arr = os.path.join(sd, "unit.sh")
    with open(arr, "w") as f:
        f.write("#!/bin/bash\n# one (program, N) recording of the study: array task $SLURM_ARRAY_TASK_ID\n"
                f"exec {' '.join(shlex.quote(a) for a in common)} --run-unit \"$SLURM_ARRAY_TASK_ID\"\n")
    rep = os.path.join(sd, "report.sh")
    with open(rep, "w") as f:
        f.write("#!/bin/bash\n# the report, after every array task ended\n"
                f"{' '.join(shlex.quote(a) for a in common)} --report-only\n"
                f"echo $? > {shlex.quote(os.path.join(sd, 'report.status'))}\n")
    try:
        os.unlink(os.path.join(sd, "report.status"))
    except FileNotFoundError:
        pass
    extra = shlex.split(args.sbatch_args or "")

    def sbatch(what, opts, script):
        r = subprocess.run(["sbatch", "--parsable", "--chdir", args.o] + opts + extra + [script],
                           capture_output=True, text=True)
        if r.returncode:
            die(f"sbatch ({what}): {r.stderr.strip() or 'failed'}", 1)
        return r.stdout.strip().split(";")[0]
    thr = f"%{args.jobs}" if args.jobs_given else ""
    aid = sbatch("the recordings", [f"--array=0-{len(units) - 1}{thr}", "-J", "tm-study",
                                    "-o", os.path.join(sd, "unit-%a.out")], arr)
    rid = sbatch("the report", [f"--dependency=afterany:{aid}", "-J", "tm-study-report",
                                "-o", os.path.join(sd, "report.out")], rep)
    print(f"{PROG}: submitted {len(units)} recordings as job array {aid}, the report as job {rid} "
          f"(after {aid}); the report will be {os.path.join(args.o, 'index.html')}", file=sys.stderr)
    if not args.wait:
        return 0
    t0 = time.time()
    while True:
        q = subprocess.run(["squeue", "-h", "-j", f"{aid},{rid}", "-o", "%i %T"], capture_output=True, text=True)
        lines = [l for l in q.stdout.splitlines() if l.strip()]
        if q.returncode == 0 and not lines:
            break
        left = sum(1 for l in lines if l.split()[0].startswith(aid))
        print(f"{PROG}: slurm: {left} array tasks and the report pending or running ({fmt_s(time.time() - t0)})",
              file=sys.stderr, flush=True)
        time.sleep(5)
    try:
        st = open(os.path.join(sd, "report.status")).read().strip()
    except FileNotFoundError:
        die(f"slurm: the report job {rid} did not run (see {sd}/report.out)", 1)
    if st != "0":
        die(f"slurm: the report job {rid} failed (exit {st}; see {sd}/report.out)", 1)
    print(f"{PROG}: report: {os.path.join(args.o, 'index.html')}", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- main

USAGE = """usage: tm study [-f STUDY.toml] -o DIR [options]

the bandwidth study: programs x thread counts x configurations, recorded once
each, to the paper's tables and figures (docs/study.md)

  -o DIR               the study's folder: cache, results, report
  -f, --file FILE      the study file (default: the embedded default study)
  --quick              the study file's [quick] subset (make run)
  -j, --jobs J         recordings at once (default 1)
  --engine local|slurm run here (default) or submit to Slurm
  --wait               --engine slurm: wait for the report
  --sbatch-args ARGS   --engine slurm: more sbatch options (e.g. '-p big')
  --keep-work          keep each recording's traces, commit stream and PT buffers (DIR/work)
  --print-default      print the default study file and exit
  --list               list the recordings and configurations, run nothing, write nothing
  --report-only        write the report from the cache, record nothing (the study of DIR/study.toml
                       unless -f is given)
  --version            print tm's version
  -h, --help           this help
"""

# option -> (attribute, takes a value)
OPTS = {"-o": ("o", True), "-f": ("file", True), "--file": ("file", True), "--quick": ("quick", False),
        "-j": ("jobs", True), "--jobs": ("jobs", True), "--engine": ("engine", True), "--wait": ("wait", False),
        "--sbatch-args": ("sbatch_args", True), "--keep-work": ("keep_work", False),
        "--print-default": ("print_default", False), "--list": ("list", False),
        "--report-only": ("report_only", False), "--run-unit": ("run_unit", True),
        "--slurm-task": ("slurm_task", False), "--help": ("help", False), "-h": ("help", False),
        "--version": ("version", False)}


def usage_error(msg):
    die(f"{msg} (see tm study --help)")


def parse_args(argv):
    """tm study's options, in tm's error style (one line, exit 2)."""
    a = argparse.Namespace(o=None, file=None, quick=False, jobs=None, engine="local", wait=False, sbatch_args=None,
                           keep_work=False, print_default=False, list=False, report_only=False, run_unit=None,
                           slurm_task=False, help=False, version=False)
    i = 0
    while i < len(argv):
        w = argv[i]
        name, eq, val = w.partition("=") if w.startswith("--") else (w, "", "")
        if name not in OPTS:
            usage_error(f"unknown option {w}" if w.startswith("-") else f"unexpected argument '{w}'")
        attr, takes = OPTS[name]
        if takes:
            if not eq:
                i += 1
                if i >= len(argv):
                    usage_error(f"{name} needs a value")
                val = argv[i]
            setattr(a, attr, val)
        elif eq:
            usage_error(f"{name} takes no value")
        else:
            setattr(a, attr, True)
        i += 1
    for attr, opt, lo, hi in (("jobs", "--jobs", 1, 256), ("run_unit", "--run-unit", 0, 1 << 30)):
        v = getattr(a, attr)
        if v is not None:
            if not re.fullmatch(r"\d+", v) or not lo <= int(v) <= hi:
                usage_error(f"{opt} {v}: allowed {lo}..{hi}")
            setattr(a, attr, int(v))
    if a.engine not in ("local", "slurm"):
        usage_error(f"--engine {a.engine}: allowed local, slurm")
    return a


def take_lock(d):
    """One tm study per folder: an exclusive lock on DIR/.lock, kept while this
    study runs (released by the kernel when it ends, however it ends).  A
    second study on DIR is refused, naming the holder."""
    import fcntl
    path = os.path.join(d, ".lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            holder = one_line(os.read(fd, 400).decode(errors="replace"), 200) or "another tm study"
        except OSError:
            holder = "another tm study"
        die(f"-o {d}: in use by {holder} (one tm study per folder: wait for it, or stop it)")
    os.ftruncate(fd, 0)
    os.write(fd, f"tm study pid {os.getpid()} on {os.uname().nodename}, started "
                 f"{time.strftime('%Y-%m-%d %H:%M:%S')}\n".encode())
    return fd


def quiet_stdout(fn):
    """FN() with a closed standard output (| head) ending quietly, exit 0."""
    try:
        fn()
        sys.stdout.flush()
    except BrokenPipeError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        os._exit(0)


def main():
    args = parse_args(sys.argv[1:])
    if args.help:
        quiet_stdout(lambda: sys.stdout.write(USAGE))
        return 0
    tm = os.environ.get("TM_BIN") or shutil.which("tm")
    if not tm:
        die("cannot find the tm executable (run it as `tm study`, or set TM_BIN)")
    if args.version:
        return subprocess.run([tm, "--version"]).returncode
    if args.print_default:
        text = default_study(tm)
        quiet_stdout(lambda: sys.stdout.write(text))
        return 0
    if not args.o:
        usage_error("no output folder: give -o DIR")
    args.jobs_given = args.jobs is not None
    if args.jobs is None:
        args.jobs = 1
    if os.path.exists(args.o) and not os.path.isdir(args.o):
        die(f"-o {args.o}: not a folder")
    sf = os.path.join(args.o, "study.toml")
    if args.file:
        path = args.file
    elif args.report_only and os.path.isfile(sf):
        path = sf                      # the study the folder was made with
    else:
        path = None
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            die(f"{path}: {getattr(e, 'strerror', None) or e}")
    else:
        text, path = default_study(tm), "<default study>"
    try:
        s = Study(text, path, tm_names(tm, "presets"), tm_names(tm, "encodings"))
    except StudyError as e:
        die(one_line(e, 600))
    if args.quick:
        s.apply_quick()
    writes = not (args.list or args.report_only)
    runner = Runner(s, os.path.abspath(args.o), tm, args.jobs, args.keep_work, args.quick,
                    write=writes or args.run_unit is not None)
    units = runner.units()
    # pre-flight: every program, its directory and its inputs, before anything is recorded
    if not args.report_only:
        # one line per program: its first problem (and how many more)
        byprog = {}
        for u in units:
            for pr in u["problems"]:
                if pr not in byprog.setdefault(u["program"], []):
                    byprog[u["program"]].append(pr)
        lines = [f"{PROG}: {path}: program '{pn}': {prs[0]}" + (f" (and {len(prs) - 1} more)" if len(prs) > 1 else "")
                 for pn, prs in byprog.items() if prs]
        if lines:
            sys.stderr.write("\n".join(lines) + "\n")
            sys.exit(2)
    if args.list:
        def show():
            for u in units:
                print(f"{u['id']}: {' '.join(u.get('argv') or ['tm gen'] + u['gen'])}  "
                      f"[{len(runner.missing(u))} of {len(s.configs)} configurations to run"
                      f"{', and its Intel PT' if runner.pt_missing(u) else ''}"
                      f"{', and its trace standard' if runner.std_missing(u) else ''}]")
        quiet_stdout(show)
        return 0
    os.makedirs(args.o, exist_ok=True)
    args.o = os.path.abspath(args.o)
    if not args.slurm_task and args.run_unit is None:
        lock_fd = take_lock(args.o)  # noqa: F841 - held until the study ends
    if writes and args.run_unit is None:
        # the study as run: DIR/study.toml (what --engine slurm's jobs and --report-only read)
        sf = os.path.join(args.o, "study.toml")
        if re.match(r"(?:#[^\n]*\n){0,3}?# tm-study-base: ", text):
            kept = text                      # a copy already (tm study -f DIR/study.toml)
        else:
            kept = (f"# tm study: the study file {path}, as run; relative paths are relative to its folder:\n"
                    f"# tm-study-base: {s.dir}\n" + text)
        if not os.path.exists(sf) or open(sf, encoding="utf-8", errors="replace").read() != kept:
            with open(sf + ".tmp", "w") as f:
                f.write(kept)
            os.replace(sf + ".tmp", sf)
    if args.run_unit is not None:
        if not 0 <= args.run_unit < len(units):
            die(f"--run-unit {args.run_unit}: allowed 0..{len(units) - 1}")
        try:
            runner.run_unit(units[args.run_unit])
        except (RuntimeError, OSError, ValueError, KeyError) as e:
            die(one_line(f"{units[args.run_unit]['id']}: {e}" if not isinstance(e, RuntimeError) else e), 1)
        return 0
    if args.engine == "slurm" and not args.report_only:
        return slurm_submit(args, sf, units, runner)

    def on_sig(sig, _):
        runner.stop(sig)
        print(f"{PROG}: stopped by signal {sig}; what is done is cached in {runner.cache} "
              f"(run the same command again to resume)", file=sys.stderr)
        os._exit(128 + sig)
    for sg in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sg, on_sig)
    t0 = time.time()
    errors = [] if args.report_only else runner.run_all(units)
    results, missing = load_results(runner, units)
    pts, pt_missing = load_pt(runner, units)
    missing += pt_missing
    stds, std_missing = load_std(runner, units)
    missing += std_missing
    if missing:
        for e in errors:
            print(f"{PROG}: failed: {e}", file=sys.stderr)
        die(f"{len(missing)} results missing (e.g. {missing[0]}); the report needs them all"
            + ("" if args.report_only else "; fix the failure and run again (what is done is cached)"), 1)
    sys.path.insert(0, HERE)
    import report  # noqa: E402 - needs matplotlib only here
    pt = {"skipped": s.pt_skipped(), "options": PT_ARGS, "options_gen": PT_ARGS_GEN, "results": pts,
          "not_x86": sorted({(u["program"], u["isa"]) for u in units if not u.get("pt", True)})}
    summary = report.write(args.o, s, results, runner.version, {"seconds": round(time.time() - t0, 1),
                                                                 "quick": args.quick, "file": path}, pt,
                           {"skipped": s.std_skipped(), "options": STD_ARGS, "options_pt": STD_ARGS_PT,
                            "results": stds})
    quiet_stdout(lambda: sys.stdout.write(summary))
    print(f"{PROG}: report: {os.path.join(args.o, 'index.html')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
