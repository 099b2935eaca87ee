"""The paper's benchmarks beside the study's programs, one by one (docs/study.md,
table paper_programs): which program of the study is which of the ten
SPLASH-2 benchmarks of the paper's Tables 1 and 5 (study/paper.py), and, at
each N both have, the program's IPC, its IPC scaling IPC(N) / IPC(1), its
instructions and its NX_b, TR_b-L and TR_e-L bits per instruction beside the
paper's row, with measured / paper.

A program is matched by its `paper_name` key (`"none"`: never), or else by
its name; both are normalized (norm, key below): lower case, every run of
characters other than letters and digits one "_", a leading "splash2_" or
"splash2x_" and a trailing ISA suffix ("_a64", "_rv64", ... as compare_as
drops them) left out; the result must be a benchmark's key (the name
SPLASH-2 gives it: barnes, ..., water_nsquared, water_spatial) or a spelling
the paper prints (water_nsq, water_ns, water_sp).  So WATER-NSQUARED,
water-nsq, water_ns and water-ns-a64 are all the paper's water-nsquared."""
import re

import paper

# IPC(N) / IPC(1) here over the paper's: the band asked for (the scaling is the
# point of the comparison: the machine's cores, caches and memory, not the
# programs' instruction counts)
SCALING_BAND = (0.65, 1.5)
# paper_name = "none": the program is not compared, whatever its name
NONE = "none"
ISA_SUFFIX = r"_(a64|aarch64|arm64|rv64|riscv64|x86|x64|x86_64)$"
SUITE_PREFIX = r"^splash2x?_"
MATCH_RULE = ("a program's paper_name (\"none\": not compared), else its name, in lower case, every run of "
              "characters other than letters and digits as one '_', without a leading 'splash2_' or 'splash2x_' "
              "and without a trailing ISA suffix (_a64, _aarch64, _arm64, _rv64, _riscv64, _x86, _x64, _x86_64), "
              "is one of the paper's benchmarks: " + ", ".join(paper.BENCHMARKS) + " (or a spelling the paper "
              "prints: water_nsq, water_ns, water_sp)")


def norm(name):
    """NAME in lower case with every run of characters other than letters and digits one '_'."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _aliases():
    out = {}
    for k, v in paper.BENCHMARKS.items():
        for s in (k, v["table1"], v["table5"], *v.get("text", ())):
            out[norm(s)] = k
    return out


ALIASES = _aliases()


def key(name):
    """The paper's benchmark (its key in paper.BENCHMARKS) NAME names, or None."""
    n = re.sub(ISA_SUFFIX, "", re.sub(SUITE_PREFIX, "", norm(name)))
    return ALIASES.get(n)


def check_name(v):
    """What is wrong with a program's paper_name V (None: nothing)."""
    if norm(v) == NONE or key(v):
        return None
    return (f"{v!r}: not one of the paper's benchmarks (Tables 1 and 5): allowed {', '.join(paper.BENCHMARKS)} "
            f"(or water_nsq, water_ns, water_sp; \"none\": not compared)")


def match(prog):
    """The paper's benchmark of the study's program PROG (its dict) and how it was
    matched: (key, "paper_name" or "name"), or None."""
    pn = prog.get("paper_name")
    if pn is not None:
        return (key(pn), "paper_name") if key(pn) and norm(pn) != NONE else None
    k = key(prog["name"])
    return (k, "name") if k else None


def matched(d):
    """[(program, key, how)] of the study D's programs that match a benchmark and have results."""
    out = []
    for pr in d.s.programs:
        m = match(pr)
        if m and any(d.get(pr["name"], n, c) for n in d.ns for c in d.cfgs):
            out.append((pr["name"], *m))
    return out


def result(d, p, n):
    """Any result of program P's recording at N (every configuration saw the same execution)."""
    return next((x for c in d.cfgs if (x := d.get(p, n, c))), None)


def ipc(d, p, n):
    """Program P's IPC at N, all cores: the timing model's (tm record's machine.ipc), or, in
    statistics without it, instructions / execution cycles; None without a result."""
    x = result(d, p, n)
    if not x:
        return None
    m = x["stats"].get("machine") or {}
    if m.get("ipc"):
        return m["ipc"]
    cyc = x["stats"]["execution_cycles"]
    return x["stats"]["total"]["instructions"] / cyc if cyc else None


def configs(d):
    """The study's configurations that stand for Table 5's: the paper's NX_b has no
    preset (any of ours: identical), TR_b and TR_e are Large (as report.paper_compare)."""
    nx = d.pick("nx_b-large", *[c for c in d.cfgs if c.startswith("nx_b-") and not c.endswith("-shared")])
    return {"nx_b": nx, "tr_b-large": d.pick("tr_b-large"), "tr_e-large": d.pick("tr_e-large")}


def sig(v):
    """V to 4 significant digits (a ratio: 1.25, 17.54, 0.0003584)."""
    return float(f"{v:.4g}")


NAME = {"nx_b": "NX_b", "tr_b-large": "TR_b-L", "tr_e-large": "TR_e-L"}


def compare(d):
    """One dict per (program, quantity, N) that the program and its benchmark's rows
    both have: program, benchmark, paper_row, matched_by, quantity, unit, source, N,
    threads_ran, config, measured, paper, ratio (measured / paper; None when the
    paper prints 0), note; the scaling rows also within_band."""
    rows = []
    lo, hi = SCALING_BAND
    cfgs = configs(d)
    for p, k, how in matched(d):
        t1, t5 = paper.TABLE1[k], paper.TABLE5[k]
        ns = [n for n in d.ns if n in paper.NS and result(d, p, n)]

        def add(q, unit, src, n, cfg, m, pv, row):
            if m is None or pv is None:
                return None
            r = {"program": p, "benchmark": k, "paper_row": row, "matched_by": how, "quantity": q, "unit": unit,
                 "source": src, "N": n, "threads_ran": d.ran_text(n, [p]), "config": cfg, "measured": m,
                 "paper": pv, "ratio": sig(m / pv) if pv else None,
                 "note": "" if pv else "the paper prints 0.000 (below 0.0005): no ratio"}
            rows.append(r)
            return r
        here = {n: ipc(d, p, n) for n in ns}
        for n in ns:
            add("IPC (all cores)", "instructions/cycle", f"Table 1, row {t1['row']}, IPC N={n}", n, "timing model",
                round(here[n], 4) if here[n] is not None else None, t1["ipc"][n], t1["row"])
        for n in ns:
            if n == 1 or not here.get(1) or here[n] is None:
                continue
            r = add("IPC(N) / IPC(1)", "x", f"Table 1, row {t1['row']}, IPC N={n} / IPC N=1", n, "timing model",
                    sig(here[n] / here[1]), sig(t1["ipc"][n] / t1["ipc"][1]), t1["row"])
            r["within_band"] = lo <= r["ratio"] <= hi
            r["note"] = f"{'within' if r['within_band'] else 'OUTSIDE'} {lo:g}-{hi:g}x"
        for n in ns:
            add("instructions", "instructions", f"Table 1, row {t1['row']}, IC N={n} (x 10^9)", n, "the recording",
                result(d, p, n)["stats"]["total"]["instructions"], round(t1["instructions_1e9"][n] * 1e9), t1["row"])
        for c, cfg in cfgs.items():
            for n in ns:
                a = d.agg(n, cfg, [p]) if cfg else None
                add(f"{NAME[c]} bits per instruction", "bpi", f"Table 5, row {t5['row']}, {NAME[c][:4]} N={n}", n,
                    cfg, round(a["bits"] / a["insns"], 5) if a and a["insns"] else None, t5[c][n], t5["row"])
    return rows


def scaling(rows):
    """The IPC scaling rows of ROWS: (how many within the band, how many, [rows outside])."""
    sc = [r for r in rows if "within_band" in r]
    return sum(r["within_band"] for r in sc), len(sc), [r for r in sc if not r["within_band"]]


def table(d):
    """The report's table paper_programs (a report.Table), or None when no program matches."""
    import report
    rows = compare(d)
    if not rows:
        return None
    lo, hi = SCALING_BAND
    t = report.Table("paper_programs", f"The paper's benchmarks beside this study's programs: the rows of Tables 1 "
                     f"and 5 of {paper.SHORT} (study/paper.py) for the benchmark each program matches (its "
                     f"paper_name, or its name), at the N both have, with measured / paper; IPC(N) / IPC(1) is "
                     f"each side's own scaling, their ratio asked to be within {lo:g}-{hi:g}x; what differs: "
                     f"{paper.DIFFERS}",
                     ["program", "paper's benchmark", "quantity", "paper's source", "N", "threads ran",
                      "configuration here", "measured here", "paper", "measured / paper", "note"])
    # the paper's digits as printed; the ratio to 3 significant digits (an instruction count's can be 0.000358)
    t.fmts = {8: lambda v: f"{v:g}", 9: lambda v: "-" if v is None else f"{v:.3g}"}
    t.extra.update(doc(d, rows, comparison=False))
    for r in rows:
        unit = "" if r["unit"] in ("x", "bpi", r["quantity"]) else f" ({r['unit']})"
        t.add(r["program"], r["benchmark"], r["quantity"] + unit,
              r["source"], r["N"], r["threads_ran"], r["config"], r["measured"], r["paper"], r["ratio"], r["note"])
    return t


def doc(d, rows=None, comparison=True):
    """results.json's paper.programs: the rule, the band, the matched programs and
    every row of compare (with COMPARISON)."""
    rows = compare(d) if rows is None else rows
    k, m, _ = scaling(rows)
    out = {"rule": MATCH_RULE, "scaling_band": list(SCALING_BAND),
           "matched": [{"program": p, "benchmark": b, "matched_by": how, "table1_row": paper.TABLE1[b]["row"],
                        "table5_row": paper.TABLE5[b]["row"]} for p, b, how in matched(d)],
           "scaling_within_band": {"within": k, "of": m}}
    if comparison:
        out["comparison"] = rows
    return out


def summary(d):
    """The summary's lines: per matched program, one line per quantity with here,
    paper and ratio at each N; then the IPC scaling against the band.  Nothing when
    no program matches."""
    import report
    rows = compare(d)
    if not rows:
        return []
    lo, hi = SCALING_BAND
    out = ["\n" + report.wrap(f"The paper's benchmarks beside this study's programs (table paper_programs): the "
                              f"rows of {paper.SHORT}'s Tables 1 and 5 (study/paper.py) for the benchmark each "
                              f"program matches; ratio = here / paper; IPC(N) / IPC(1): each side's own scaling.",
                              110)]
    by = {}
    for r in rows:
        by.setdefault(r["program"], []).append(r)
    for p, rs in by.items():
        k, how = rs[0]["benchmark"], rs[0]["matched_by"]
        ns = [n for n in d.ns if any(r["N"] == n for r in rs)]
        out.append(f"\n{p}: the paper's {k} (by its {'paper_name' if how == 'paper_name' else 'name'}; Table 1 row "
                   f"{paper.TABLE1[k]['row']}, Table 5 row {paper.TABLE5[k]['row']})")
        lw, cw = 22, 26
        out.append(f"{'':{lw}}" + "".join(f"{d.n_label(n, [p]):>{cw}}" for n in ns))
        out.append(f"{'':{lw}}" + "".join(f"{'here':>9}{'paper':>8}{'ratio':>9}" for _ in ns))
        cell = {(r["quantity"], r["N"]): r for r in rs}
        for q in dict.fromkeys(r["quantity"] for r in rs):
            scale, lab = (1e-9, "instructions [x10^9]") if q == "instructions" else \
                (1, q.replace(" bits per instruction", " bpi"))
            cells = []
            for n in ns:
                r = cell.get((q, n))
                if r is None:
                    cells.append(f"{'':{cw}}")
                    continue
                v = r["ratio"]
                ratio = "-" if v is None else f"{v:.2f}" if v >= 0.1 else f"{v:.2g}"   # 0.00063: an instruction count's
                cells.append(f"{report.fmt3(r['measured'] * scale):>9}{report.fmt3(r['paper'] * scale):>8}"
                             f"{ratio:>9}")
            out.append(f"{lab:{lw}}" + "".join(cells).rstrip())
    k, m, bad = scaling(rows)
    if m:
        out.append("\n" + report.wrap(f"IPC(N) / IPC(1), here / paper's, within {lo:g}-{hi:g}x: {k} of {m}"
                                      + (": outside: " + ", ".join(f"{r['program']} N={r['N']} {r['ratio']:.2f}x"
                                                                   for r in bad) if bad else "") + ".", 110, "  "))
    if any(r["ratio"] is None for r in rows):
        out.append(report.wrap("A ratio '-': the paper prints 0.000 there (radix's TR_b and TR_e: below 0.0005).",
                               110, "  "))
    return out
