"""tm study's report (docs/study.md): the tables (CSV, results.json, HTML)
and figures (matplotlib, SVG) of a study's cached results, and the short
text summary `make run` prints."""
import csv
import datetime
import html
import json
import os
import subprocess

import breakdown
import paper
import paper_programs

FIELDS = ("ti", "cnt", "diffta", "diffcc")
FIELD_NAMES = {"ti": "Ti", "cnt": "bCnt", "diffta": "diffTA", "diffcc": "diffCC"}
# Intel PT as tm pt --timing-variants models it (docs/pt.md): without timing
# packets, with TSC+MTC, with TSC+MTC+CYC (cycle-accurate)
PT_FORMATS = ("PT", "PT+mtc", "PT+cyc")


def chunk_len(length, a, b):
    """Bits of a chunked field whose value has LENGTH significant bits with
    chunk sizes (A, B) (msg/bitio.h, tm_chunked_len)."""
    if length <= a:
        return a + 1
    return a + 1 + (length - a + b - 1) // b * (b + 1)


class Table:
    """A table of the report. HEADER: the column names shown in index.html
    (default COLUMNS, which the CSV and results.json keep); MERGED: configuration
    -> the label of its group of identical rows (its first row is shown once
    under that label in index.html and the summary, the others left out; the
    CSV and results.json keep every row); EXTRA: more keys for results.json."""

    def __init__(self, name, title, columns, note=""):
        self.name, self.title, self.columns, self.note, self.rows = name, title, columns, note, []
        self.header, self.merged, self.extra, self.fmts = None, {}, {}, {}   # fmts: column index -> formatter

    def add(self, *row):
        self.rows.append(list(row))

    def shown_rows(self):
        """The rows as index.html shows them: a group of identical configurations once, under its label."""
        out, seen = [], set()
        for r in self.rows:
            g = self.merged.get(r[0])
            if g is None:
                out.append(r)
            elif (g, r[1]) not in seen:
                seen.add((g, r[1]))
                out.append([g] + r[1:])
        return out

    def as_json(self):
        return {"title": self.title, "note": self.note, "columns": self.columns, "rows": self.rows, **self.extra}


def fmt(v):
    if isinstance(v, float):
        if v == 0:
            return "0"
        return f"{v:.4f}" if abs(v) < 10 else f"{v:,.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return "" if v is None else str(v)


class Data:
    """The results indexed by (program, N, configuration)."""

    def __init__(self, study, results, pt=None, std=None):
        self.s = study
        std = std or {}
        self.std_skipped = std.get("skipped")
        # (program, N) -> tm std's result (its statistics: the standard's rows and the trace module's)
        self.std = {(x["program"], x["N"]): x for x in std.get("results", [])}
        self.r = {(x["program"], x["N"], x["config"]): x for x in results}
        pt = pt or {}
        self.pt_skipped = pt.get("skipped")
        # (program, N) -> tm pt's statistics; its compare rows by format
        self.pt = {(x["program"], x["N"]): x for x in pt.get("results", [])}
        self.pt_rows = {k: {r["format"]: r for r in x["stats"]["compare"]} for k, x in self.pt.items()}
        self.programs = [p["name"] for p in study.programs]
        # the (program, ISA) pairs without Intel PT because they are not x86-64 recordings
        self.not_x86 = [tuple(x) for x in pt.get("not_x86", [])]
        self.ns = sorted({x["N"] for x in results})
        self.cfgs = {c["name"]: c for c in study.configs}

    def get(self, p, n, c):
        return self.r.get((p, n, c))

    def ran(self, p, n):
        """The threads that ran (executed instructions) in program P's recording at N
        (every configuration of a recording saw the same execution), or None."""
        x = next((x for c in self.cfgs if (x := self.get(p, n, c))), None)
        return sum(1 for th in x["stats"]["threads"] if th["instructions"]) if x else None

    def ran_all(self, n, progs=None):
        """The threads that ran at N: {avg, min, max, programs: {program: threads}}."""
        per = {p: t for p in progs or self.programs if (t := self.ran(p, n)) is not None}
        v = list(per.values()) or [0]
        return {"avg": round(sum(v) / len(v), 2), "min": min(v), "max": max(v), "programs": per}

    def ran_text(self, n, progs=None):
        """'4' when every program ran the same number of threads, else '3.7 avg, 1-4'."""
        r = self.ran_all(n, progs)
        return str(r["min"]) if r["min"] == r["max"] else f"{r['avg']:.1f} avg, {r['min']}-{r['max']}"

    def n_label(self, n, progs=None):
        """N with the threads that ran beside it: 'N=4 (ran 3.7 avg, 1-4)'."""
        return f"N={n} (ran {self.ran_text(n, progs)})"

    def identical(self):
        """Groups of demand configurations that differ only in their preset and gave
        identical results for every program and N (nx_b ignores the predictors):
        configuration -> the group's label, e.g. 'nx_b (any preset: small, large)'.
        Checked from the results (bits, bits by field, messages, cycles), not assumed."""
        groups = {}
        for c in self.cfgs.values():
            if c["kind"] == "demand":
                groups.setdefault((c["enc"], c["ts"], c["shared"]), []).append(c)

        def key(x):
            st = x["stats"]
            return (st["total"]["bits"], st["total"]["instructions"], st["execution_cycles"],
                    json.dumps(st["total"].get("bits_by_field"), sort_keys=True),
                    json.dumps(st["total"].get("messages"), sort_keys=True))
        out = {}
        for (enc, ts, sh), cs in groups.items():
            if len(cs) < 2:
                continue
            same = True
            for p in self.programs:
                for n in self.ns:
                    xs = [self.get(p, n, c["name"]) for c in cs]
                    if any(x is None for x in xs) or len({key(x) for x in xs}) != 1:
                        same = False
            if same:
                lab = (f"{'t' if ts else ''}{enc} (any preset: {', '.join(c['preset'] for c in cs)})"
                       f"{' shared' if sh else ''}")
                for c in cs:
                    out[c["name"]] = lab
        return out

    def machine(self, p, n):
        """The machine the cycles of program P's recording at N come from: its statistics'
        "machine" (tm record), or None (a synthetic stream's cycles, or older statistics)."""
        x = next((x for c in self.cfgs if (x := self.get(p, n, c))), None)
        return x["stats"].get("machine") if x else None

    def ipc_core(self, n, progs=None):
        """IPC per core at N, all programs together: their instructions / the sum over
        programs of cycles x threads that ran (each thread on its own core)."""
        ins = cyc = 0
        for p in progs or self.programs:
            x = next((x for c in self.cfgs if (x := self.get(p, n, c))), None)
            if x:
                ins += x["stats"]["total"]["instructions"]
                cyc += x["stats"]["execution_cycles"] * max(1, self.ran(p, n) or 1)
        return ins / cyc if cyc else None

    def machine_text(self):
        """The machine of the study's cycles in one line (the L2's size per N where it
        grows with the cores), or how the cycles were made when no recording says."""
        descs, l2 = {}, {}
        for n in self.ns:
            for p in self.programs:
                m = self.machine(p, n)
                if m:
                    descs.setdefault(machine_desc(m), []).append(p)
                    if m.get("l2"):
                        l2.setdefault(n, set()).add(m["l2"]["size"])
                else:
                    descs.setdefault(None, []).append(p)
        parts = []
        for dsc, ps in descs.items():
            who = "" if len(descs) == 1 else f" ({', '.join(dict.fromkeys(ps))})"
            if dsc is None:
                parts.append("the commit stream's own cycles (tm gen: one group per cycle per thread) or statistics "
                             "that do not name the machine" + who)
            else:
                if l2:
                    sizes = "; ".join(f"N={n}: {'/'.join(kb(v) for v in sorted(vs))}" for n, vs in sorted(l2.items()))
                    dsc = dsc.replace("L2 @", f"L2 ({sizes})")
                parts.append(dsc + who)
        return "; ".join(dict.fromkeys(parts))

    def ipc_text(self):
        return ", ".join(f"N={n}: {v:.3f}" if (v := self.ipc_core(n)) is not None else f"N={n}: -" for n in self.ns)

    def pick(self, *names):
        for nm in names:
            if nm in self.cfgs:
                return nm
        return None

    def agg(self, n, c, progs=None):
        """Aggregate bits, instructions, cycles, field bits, losses over programs."""
        a = {"bits": 0, "insns": 0, "cycles": 0, "fields": dict.fromkeys(FIELDS + ("sync",), 0), "dropped": 0,
             "lost": 0, "progs": 0}
        for p in progs or self.programs:
            x = self.get(p, n, c)
            if not x:
                continue
            st = x["stats"]
            a["bits"] += st["total"]["bits"]
            a["insns"] += st["total"]["instructions"]
            a["cycles"] += st["execution_cycles"]
            for f in a["fields"]:
                a["fields"][f] += st["total"]["bits_by_field"].get(f, 0)
            a["dropped"] += st["buffer"]["dropped_messages"]
            a["lost"] += st["total"]["lost_instructions"]
            a["progs"] += 1
        return a

    def pt_agg(self, n, f, progs=None):
        """Intel PT format F's bits, instructions and cycles summed over programs."""
        a = {"bits": 0, "insns": 0, "cycles": 0, "dropped": 0, "lost": 0, "progs": 0}
        for p in progs or self.programs:
            x = self.pt.get((p, n))
            if not x:
                continue
            a["bits"] += self.pt_rows[(p, n)][f]["bits"]
            a["insns"] += x["stats"]["instructions"]
            a["cycles"] += x["stats"]["cycles"]
            a["dropped"] += self.pt_rows[(p, n)][f].get("dropped_messages", 0)
            a["progs"] += 1
        return a


# the ISAs in the order the report shows them (tm record's statistics name a
# non-x86-64 recording's: recording.isa)
ISA_ORDER = ("x86-64", "aarch64", "riscv64")
# the configurations the table isa compares (those the study has; none: every demand configuration)
ISA_CONFIGS = ("nx_b-large", "tr_e-large", "tr_a-tage-l")


def result_isa(x):
    """The ISA of a result: what its recording says (absent: x86-64)."""
    return x.get("isa") or (x["stats"].get("recording") or {}).get("isa") or "x86-64"


def isa_groups(d):
    """The programs present on several ISAs: [(compare_as, {isa: program})] in the study's
    order, and the ISAs they have (ISA_ORDER first).  A program's ISA is its recordings'."""
    isa_of = {}
    for (p, _, _), x in d.r.items():
        isa_of.setdefault(p, result_isa(x))
    groups = {}
    for pr in d.s.programs:
        p = pr["name"]
        if p in isa_of:
            groups.setdefault(pr.get("compare_as", p), {}).setdefault(isa_of[p], p)
    gs = [(g, m) for g, m in groups.items() if len(m) > 1]
    isas = {i for _, m in gs for i in m}
    return gs, [i for i in ISA_ORDER if i in isas] + sorted(isas - set(ISA_ORDER))


def isa_table(d):
    """Bits per instruction of the same work on several ISAs: per program (compare_as) and
    N and configuration, each ISA's bpi, its ratio to the first ISA's, and instructions;
    Total = the bits of the programs / their instructions, per ISA; a ratio's Total
    over the programs both ISAs have."""
    gs, isas = isa_groups(d)
    if not gs:
        return None
    cfgs = [c for c in ISA_CONFIGS if c in d.cfgs] or [c for c, v in d.cfgs.items() if v["kind"] == "demand"]
    ref = isas[0]
    t = Table("isa", f"The same work on several ISAs ({', '.join(isas)}): bits per instruction per program, N and "
              f"configuration (lossless, demand), the ratio to {ref}'s, and the instructions each ISA executed; "
              f"Total = the programs' bits / their instructions on that ISA (a ratio's Total: over the programs both "
              f"ISAs have)",
              ["program", "N", "configuration"] + [f"{i} bpi" for i in isas] + [f"{i} / {ref}" for i in isas[1:]]
              + [f"{i} instructions" for i in isas] + ["threads ran (" + " / ".join(isas) + ")", "programs"])
    t.extra["isas"] = isas
    t.extra["programs"] = {g: m for g, m in gs}
    for g, m in gs + [("Total", None)]:
        for n in d.ns:
            for c in cfgs:
                aa, ratio = {}, {}
                for i in isas:
                    progs = ([m[i]] if i in m else []) if m else [mm[i] for _, mm in gs if i in mm]
                    aa[i] = d.agg(n, c, progs) if progs else None
                for i in isas[1:]:
                    both = [(mm[i], mm[ref]) for _, mm in (gs if not m else [(g, m)]) if i in mm and ref in mm]
                    if both:
                        a, b = d.agg(n, c, [x for x, _ in both]), d.agg(n, c, [y for _, y in both])
                        if a["progs"] == len(both) and b["progs"] == len(both) and bpi(b):
                            ratio[i] = round(bpi(a) / bpi(b), 3)
                vals = {i: (round(bpi(a), 5) if a and a["progs"] else None) for i, a in aa.items()}
                if all(v is None for v in vals.values()):
                    continue
                ran = " / ".join("-" if not m or i not in m or d.ran(m[i], n) is None else str(d.ran(m[i], n))
                                 for i in isas) if m else ""
                t.add(g, n, c, *[vals[i] for i in isas], *[ratio.get(i) for i in isas[1:]],
                      *[(aa[i]["insns"] if aa[i] and aa[i]["progs"] else None) for i in isas], ran,
                      ", ".join(m.values()) if m else "")
    return t


def kb(v):
    return f"{v // 1024} KB" if v % 1024 == 0 else f"{v} B"


def machine_desc(m):
    """A tm record statistics' "machine" in words (the L2's size left as 'L2 @': it grows with N)."""
    if not m:
        return None
    if m.get("timing") == "serial":
        return "timing model serial: one clock, one thread at a time, each group of instructions one cycle"
    parts = [f"timing model {m.get('timing', '?')}: each thread on its own in-order core, base CPI {m.get('cpi', 1):g}"]
    ic, l1, l2 = m.get("icache"), m.get("l1"), m.get("l2")
    if ic:
        parts.append(f"instruction cache {kb(ic['size'])} {ic['ways']}-way per core (a hit "
                     + (f"+{ic['latency']} cycles" if ic.get("latency") else "within the CPI") + ", a miss the L2's)")
    else:
        parts.append("no instruction cache")
    da = m.get("data_addresses")
    if l1:
        parts.append(f"data cache {kb(l1['size'])} {l1['ways']}-way per core, {l1['latency']} cycles a hit"
                     + (" (fed by the memory operands' addresses)" if da == "addresses" else
                        " (fed by the memory operands)" if da == "values" else ""))
    else:
        parts.append("no data cache (memory operands not captured: they cost nothing)")
    if l2:
        parts.append(f"L2 @ {l2['ways']}-way shared, +{l2['latency']} cycles")
    if m.get("memory_latency") is not None and (l1 or ic):
        parts.append(f"memory +{m['memory_latency']} cycles")
    if m.get("line"):
        parts.append(f"{m['line']}-byte lines")
    return ", ".join(parts)


def bpi(a):
    return a["bits"] / a["insns"] if a["insns"] else 0.0


def bpc(a):
    return a["bits"] / a["cycles"] if a["cycles"] else 0.0


def losses(a):
    return "none" if not a["dropped"] else f"LOSSY: {a['dropped']:,} messages dropped, {a['lost']:,} instructions in gaps"


def build_tables(d):
    T = []
    s = d.s
    ref = d.pick("tr_e-large", "ttr_e-large", *d.cfgs)
    # Table 1: the programs
    t = Table("table1", "Table 1: the programs (instructions, IPC of the timing model, branch mix as % of instructions)",
              ["program", "N", "threads ran", "instructions", "cycles", "IPC", "cond", "taken", "jump", "call",
               "ijump", "icall", "ret", "exceptions"])
    for p in d.programs:
        for n in d.ns:
            x = d.get(p, n, ref)
            if not x:
                continue
            st = x["stats"]
            tot = st["total"]
            ins = tot["instructions"] or 1
            br = tot["branches"]
            thr = sum(1 for th in st["threads"] if th["instructions"])
            t.add(p, n, thr, tot["instructions"], st["execution_cycles"],
                  round(tot["instructions"] / max(1, st["execution_cycles"]), 4),
                  *[round(100 * br[k] / ins, 3) for k in ("cond", "cond_taken", "jump", "call", "ijump", "icall", "ret")],
                  tot["exceptions"])
    T.append(t)
    # Table 2: the Nexus-like baseline
    nx = d.pick("nx_b-large", *[c for c in d.cfgs if c.startswith("nx_b-")])
    tnx = d.pick("tnx_b-large", *[c for c in d.cfgs if c.startswith("tnx_b-")])
    if nx or tnx:
        t = Table("table2", "Table 2: the Nexus-like baseline NX_b and time-stamped tNX_b: bits per instruction and per cycle",
                  ["program", "N", "threads ran", "NX_b bpi", "NX_b bpc", "tNX_b bpi", "tNX_b bpc", "losses"])
        for p in d.programs + ["Total"]:
            for n in d.ns:
                row, lo = [], []
                for c in (nx, tnx):
                    if not c:
                        row += [None, None]
                        continue
                    a = d.agg(n, c, None if p == "Total" else [p])
                    row += [round(bpi(a), 4), round(bpc(a), 4)]
                    if a["dropped"]:
                        lo.append(f"{c}: {losses(a)}")
                t.add(p, n, d.ran_text(n, None if p == "Total" else [p]), *row, "; ".join(lo) or "none")
        T.append(t)
    # Table 4: misprediction rates per preset and N (all programs together)
    t = Table("table4", "Table 4: outcome and target misprediction rates (%) per preset and N, all programs together",
              ["preset", "N", "threads ran", "outcome predictions", "outcome mispredicted %", "target predictions",
               "target mispredicted %"])
    for pr in s.presets:
        for n in d.ns:
            m = mispred(d, pr, n)
            if m:
                op, om, tp, tmp = m
                t.add(pr, n, d.ran_text(n), op, round(100 * om / max(1, op), 3), tp, round(100 * tmp / max(1, tp), 3))
    T.append(t)
    # Tables 5/6: bpi per encoding, preset, N; Total = aggregate bits / aggregate instructions
    same = d.identical()
    for ts, name in ((False, "table5"), (True, "table6")):
        cs = [c for c in d.cfgs.values() if c["kind"] == "demand" and c["ts"] == ts]
        if not cs:
            continue
        for unit, fn in (("bpi", bpi), ("bpc", bpc)):
            t = Table(name if unit == "bpi" else name + "_bpc",
                      f"Table {name[-1]}{'' if unit == 'bpi' else ' (per cycle)'}: {'time-stamped ' if ts else ''}"
                      f"bits per {'instruction' if unit == 'bpi' else 'cycle'} per configuration and N; Total = all "
                      f"programs' bits / all programs' {'instructions' if unit == 'bpi' else 'cycles'}",
                      ["configuration", "program"] + [f"N={n}" for n in d.ns] + ["losses"])
            # the threads that ran beside N (index.html's header; results.json threads_ran), and
            # the configurations the preset cannot change shown once (checked: identical results)
            t.header = ["configuration", "program"] + [d.n_label(n) for n in d.ns] + ["losses"]
            t.extra["threads_ran"] = {f"N={n}": d.ran_all(n) for n in d.ns}
            t.merged = {c["name"]: same[c["name"]] for c in cs if c["name"] in same}
            t.extra["identical"] = [{"label": g, "configs": [k for k, v in t.merged.items() if v == g]}
                                    for g in dict.fromkeys(t.merged.values())]
            for c in cs:
                for p in ["Total"] + d.programs:
                    row, lo = [], []
                    for n in d.ns:
                        a = d.agg(n, c["name"], None if p == "Total" else [p])
                        row.append(round(fn(a), 5) if a["progs"] else None)
                        if a["dropped"]:
                            lo.append(f"N={n}: {losses(a)}")
                    t.add(c["name"], p, *row, "; ".join(lo) or "none")
            # Intel PT of the same recordings (tm pt): three more rows per program
            for f in PT_FORMATS if d.pt else ():
                for p in ["Total"] + d.programs:
                    row, lo = [], []
                    for n in d.ns:
                        a = d.pt_agg(n, f, None if p == "Total" else [p])
                        row.append(round(fn(a), 5) if a["progs"] else None)
                        if a["dropped"]:
                            lo.append(f"N={n}: {a['dropped']:,} PT packets dropped")
                    t.add(f, p, *row, "; ".join(lo) or "none")
            T.append(t)
    if d.pt:
        T.append(pt_table(d))
    T.extend(std_tables(d))
    it = isa_table(d)
    if it:
        T.append(it)
    # the machine the cycles come from, and IPC per core, beside every table with bits per cycle
    for t in T:
        if t.name in ("table1", "table2", "table5_bpc", "table6_bpc", "pt"):
            t.extra["machine"] = d.machine_text()
            t.extra["ipc_per_core"] = {f"N={n}": (round(v, 4) if (v := d.ipc_core(n)) is not None else None)
                                       for n in d.ns}
    pp = paper_table(d)
    if pp.rows:
        T.append(pp)
    T += [t for t in (paper_programs.table(d),) if t]   # the paper's benchmarks, program by program
    T += [t for t in (breakdown.table(d),) if t]        # where the cores' cycles go, beside IPC per core
    # the chunk-size exploration
    ce = d.pick("ttr_e-large", "tr_e-large")
    if ce:
        T.append(chunk_table(d, ce))
    # buffer sizing
    if s.dl_configs:
        T.extend(delivery_tables(d))
    # CFiat
    dc = [c for c in d.cfgs.values() if c["kind"] == "data"]
    if dc:
        T.extend(cfiat_tables(d, dc))
    return T


def mispred(d, pr, n):
    """Preset PR's outcome predictions and mispredictions, target predictions and
    mispredictions at N, all programs together (of tr_e-PR, or the first of tr_b-PR,
    ttr_e-PR, ttr_b-PR the study has), or None."""
    c = d.pick(f"tr_e-{pr}", f"tr_b-{pr}", f"ttr_e-{pr}", f"ttr_b-{pr}")
    if not c:
        return None
    op = om = tp = tmp = 0
    for p in d.programs:
        x = d.get(p, n, c)
        if x:
            tt = x["stats"]["total"]
            op += tt["outcome_predictions"]
            om += tt["outcome_mispredictions"]
            tp += tt["target_predictions"]
            tmp += tt["target_mispredictions"]
    return op, om, tp, tmp


def paper_compare(d):
    """The paper's published totals (study/paper.py) beside this study's: one dict per
    (quantity, N) that both have: quantity, unit, source, N, threads ran, the
    configuration measured here, measured, paper, measured / paper."""
    nxc = d.pick("nx_b-large", *[c for c in d.cfgs if c.startswith("nx_b-") and not c.endswith("-shared")])
    tnxc = d.pick("tnx_b-large", *[c for c in d.cfgs if c.startswith("tnx_b-") and not c.endswith("-shared")])
    here = {"nx_b": nxc, "tnx_b": tnxc}   # the paper's NX_b has no preset: any of ours (identical, Tables 5/6)
    name = {"nx_b": "NX_b", "tnx_b": "tNX_b", "tr_b-large": "TR_b-L", "tr_e-large": "TR_e-L", "ttr_b-large": "tTR_b-L",
            "ttr_e-large": "tTR_e-L", "tr_b-small": "TR_b-S", "tr_e-small": "TR_e-S"}
    rows = []

    def add(q, unit, src, n, cfg, m, pv):
        if m is None or pv is None:
            return
        rows.append({"quantity": q, "unit": unit, "source": src, "N": n, "threads_ran": d.ran_text(n),
                     "config": cfg, "measured": m, "paper": pv, "ratio": round(m / pv, 3) if pv else None})

    ns = [n for n in d.ns if n in paper.NS]
    for n in ns:
        a = d.agg(n, d.pick(*d.cfgs))
        add("IPC (all cores)", "instructions/cycle", "Table 1 Total", n, "timing model",
            round(a["insns"] / a["cycles"], 4) if a["cycles"] else None, paper.TABLE1_TOTAL["ipc"][n])
        ipc = d.ipc_core(n)
        add("IPC per core", "instructions/cycle", "Table 1 Total / N", n, "timing model",
            round(ipc, 4) if ipc is not None else None, round(paper.TABLE1_TOTAL["ipc"][n] / n, 4))
    for pr in ("small", "medium", "large"):
        for n in ns:
            m = mispred(d, pr, n)
            if pr in d.s.presets and m:
                op, om, tp, tmp = m
                c = d.pick(f"tr_e-{pr}", f"tr_b-{pr}", f"ttr_e-{pr}", f"ttr_b-{pr}")
                add(f"outcome mispredicted, {pr}", "%", "Table 4", n, c, round(100 * om / max(1, op), 3),
                    paper.TABLE4[pr]["outcome"][n])
                add(f"target mispredicted, {pr}", "%", "Table 4", n, c, round(100 * tmp / max(1, tp), 3),
                    paper.TABLE4[pr]["target"][n])
    for tab, src in ((paper.TABLE5_TOTAL, "Table 5 Total"), (paper.TABLE6_TOTAL, "Table 6 Total")):
        for k, vals in tab.items():
            c = here.get(k) or d.pick(k)
            for n in ns:
                add(f"{name[k]} bits per instruction", "bpi", src, n, c,
                    round(bpi(d.agg(n, c)), 5) if c else None, vals[n])
    # bits per cycle: NX_b and tNX_b from Table 2 (every N), TR_e-L and tTR_e-L from the totals of
    # Figs. 11 and 13 that the text quotes (N = 1 and 8)
    for k, vals, src in (("nx_b", paper.TABLE2_TOTAL["nx_b"]["bpc"], "Table 2 Total"),
                         ("tr_e-large", paper.FIG11_TOTAL["tr_e-large"], "Fig. 11 (section 6.1 text)"),
                         ("tnx_b", paper.TABLE2_TOTAL["tnx_b"]["bpc"], "Table 2 Total"),
                         ("ttr_e-large", paper.FIG13_TOTAL["ttr_e-large"], "Fig. 13 (section 6.2 text)")):
        c = here.get(k) or d.pick(k)
        for n in ns:
            if n in vals:
                add(f"{name[k]} bits per cycle", "bpc", src, n, c, round(bpc(d.agg(n, c)), 5) if c else None, vals[n])
    # NX_b / TR ratios: the text's where it states one, else from the Table 5 / 6 Totals
    for a, b in (("nx_b", "tr_b-large"), ("nx_b", "tr_e-large"), ("tnx_b", "ttr_b-large"), ("tnx_b", "ttr_e-large"),
                 ("nx_b", "tr_b-small"), ("nx_b", "tr_e-small")):
        ca, cb = here.get(a), d.pick(b)
        tab = paper.TABLE5_TOTAL if a == "nx_b" else paper.TABLE6_TOTAL
        for n in ns:
            txt = paper.TEXT_RATIOS.get((a, b), {}).get(n)
            if txt is not None:
                pv, src = txt, f"section 6.{1 if a == 'nx_b' else 2} text"
            elif b in tab:
                pv, src = round(tab[a][n] / tab[b][n], 2), f"{'Table 5' if a == 'nx_b' else 'Table 6'} Totals"
            else:
                continue
            y = bpi(d.agg(n, cb)) if ca and cb else 0
            add(f"{name[a]} / {name[b]}", "x", src, n, f"{ca} / {cb}" if ca and cb else None,
                round(bpi(d.agg(n, ca)) / y, 3) if y else None, pv)
    return rows


def paper_table(d):
    t = Table("paper", f"The paper beside this study: the published totals of {paper.SHORT} (study/paper.py) and "
              f"this study's, all programs together, at the N both have; what differs: {paper.DIFFERS}",
              ["quantity", "paper's source", "N", "threads ran", "configuration here", "measured here", "paper",
               "measured / paper"])
    t.fmts = {6: lambda v: f"{v:g}", 7: lambda v: "" if v is None else f"{v:.2f}"}   # the paper's digits as printed
    for r in paper_compare(d):
        t.add(r["quantity"] + ("" if r["unit"] in ("x", "bpi", "bpc") else f" ({r['unit']})"), r["source"], r["N"],
              r["threads_ran"], r["config"], r["measured"], r["paper"], r["ratio"])
    return t


def pt_table(d):
    """Intel PT beside the trace module, per program and N (and Total)."""
    ref = {k: d.pick(k) for k in ("nx_b-large", "tr_e-large", "ttr_e-large")}
    t = Table("pt", "Intel PT (tm pt: user-only tracing of the same execution, docs/pt.md) beside the trace module: "
              "bits per instruction and per cycle without timing packets (PT), with TSC+MTC (PT+mtc) and with "
              "TSC+MTC+CYC (PT+cyc); Total = all programs' bits / all programs' instructions (cycles)",
              ["program", "N", "threads ran", "instructions", "cycles"] + [f"{f} bpi" for f in PT_FORMATS] +
              [f"{f} bpc" for f in PT_FORMATS] + ["NX_b-L bpi", "TR_e-L bpi", "tTR_e-L bpi", "PT / TR_e-L",
                                                   "PT+cyc / tTR_e-L", "verified by libipt"])
    for p in d.programs + ["Total"]:
        for n in d.ns:
            progs = None if p == "Total" else [p]
            aa = {f: d.pt_agg(n, f, progs) for f in PT_FORMATS}
            if not aa["PT"]["progs"]:
                continue
            m = {k: (bpi(d.agg(n, c, progs)) if c else None) for k, c in ref.items()}
            pt_bpi, cyc_bpi = bpi(aa["PT"]), bpi(aa["PT+cyc"])
            if p == "Total":
                xs = [d.pt[(q, n)] for q in d.programs if (q, n) in d.pt]
                ok = sum(1 for x in xs if (x["stats"].get("verify") or {}).get("ok"))
                ver = f"{ok} of {len(xs)}"
            else:
                ver = "ok" if (d.pt[(p, n)]["stats"].get("verify") or {}).get("ok") else "no (no code: synthetic)"
            t.add(p, n, d.ran_text(n, progs), aa["PT"]["insns"], aa["PT"]["cycles"],
                  *[round(bpi(aa[f]), 5) for f in PT_FORMATS],
                  *[round(bpc(aa[f]), 5) for f in PT_FORMATS],
                  *[round(v, 5) if v is not None else None for v in m.values()],
                  round(pt_bpi / m["tr_e-large"], 3) if m["tr_e-large"] else None,
                  round(cyc_bpi / m["ttr_e-large"], 3) if m["ttr_e-large"] else None, ver)
    return t


# the trace module's rows of tm std that the standards' tables show (tm/stdcmp.h names)
STD_TM_ROWS = ("nx_b", "tr_e-large", "tage-l+tr_a")


def std_isas(d):
    """The ISAs of the recordings with a trace standard, in ISA order."""
    have = {x["isa"] for x in d.std.values()}
    return [i for i in ("x86-64", "aarch64", "riscv64") if i in have] + sorted(have - {"x86-64", "aarch64", "riscv64"})


def std_sum(d, isa, n, progs):
    """tm std's rows summed over PROGS (None: every program of ISA) at N:
    ({row: bits}, instructions, cycles, [program], [row names in order], {row: storage}, verified, dropped)."""
    bits, ins, cyc, ps, names, store, ver, drop = {}, 0, 0, [], [], {}, True, 0
    for (p, nn), x in d.std.items():
        if nn != n or x["isa"] != isa or (progs is not None and p not in progs):
            continue
        st = x["stats"]
        ps.append(p)
        ins += st["instructions"]
        cyc += st["cycles"]
        for r in st["rows"]:
            if r["name"] not in bits:
                names.append(r["name"])
            bits[r["name"]] = bits.get(r["name"], 0) + r["bits"]
            store[r["name"]] = r["storage_bits"]
            drop += r["dropped"]
            if r["kind"] == "standard" and r["verified"] is not True:
                # x86-64 beside tm pt: PT decoded by tm pt --verify, its timing variants not decoded again
                ver = False if not x.get("verified", "").startswith("PT ") else ver if ver is not True else "PT"
    return bits, ins, cyc, ps, names, store, ver, drop


def std_tables(d):
    """Per ISA: its own trace standard (tm std) in each variant beside the trace
    module, per program and N (and Total): bits per instruction and per cycle."""
    out = []
    for isa in std_isas(d):
        xs = [x for x in d.std.values() if x["isa"] == isa]
        std_rows = [r["name"] for r in xs[0]["stats"]["rows"] if r["kind"] == "standard"]
        standard = xs[0]["stats"]["standard"]
        progs = [p for p in d.programs if any(x["program"] == p for x in xs)]
        first, tm_ref = std_rows[0], "tage-l+tr_a"
        t = Table(f"std_{isa}", f"{standard}, the trace standard of {isa}, beside the trace module on the same "
                  f"executions (tm std, docs/standards.md): bits per instruction of each variant, every variant "
                  f"decoded and compared with the commit stream; the trace module with a buffer and port that drop "
                  f"nothing; Total = all programs' bits / all programs' instructions",
                  ["program", "N", "instructions", "cycles"] + [f"{r} bpi" for r in std_rows] +
                  [f"{r} bpi" for r in STD_TM_ROWS] + [f"{first} bpc", f"{tm_ref} bpc",
                                                      f"{first} / {tm_ref}", f"best {standard} / {tm_ref}",
                                                      "verified"])
        t.extra["isa"] = isa
        t.extra["standard"] = standard
        t.extra["state_bits"] = {}
        for p in progs + ["Total"]:
            for n in d.ns:
                bits, ins, cyc, ps, names, store, ver, drop = std_sum(d, isa, n, None if p == "Total" else [p])
                if not ps or not ins:
                    continue
                t.extra["state_bits"].update(store)
                b = {k: v / ins for k, v in bits.items()}
                best = min(b[r] for r in std_rows if r in b)
                ref = b.get(tm_ref)
                t.add(p, n, ins, cyc, *[round(b[r], 5) if r in b else None for r in std_rows],
                      *[round(b[r], 5) if r in b else None for r in STD_TM_ROWS],
                      round(bits[first] / cyc, 5) if cyc else None,
                      round(bits[tm_ref] / cyc, 5) if cyc and tm_ref in bits else None,
                      round(b[first] / ref, 3) if ref else None, round(best / ref, 3) if ref else None,
                      ("yes" if ver is True else "PT (by tm pt --verify)" if ver == "PT" else "NO") +
                      (f"; {drop:,} messages dropped" if drop else ""))
        out.append(t)
    return out


def field_bits(h, a, b):
    """A chunked field's bits over the length histogram H (tm_profile_field_bits)."""
    return sum(k * chunk_len(L, a, b) for L, k in enumerate(h) if k)


def chunk_bits(pf, f, a, b):
    """The bits that depend on field F's chunk sizes (A, B) in profile PF,
    as stats/profile.c's tm_profile_field_bits counts them: bCnt with T and
    the other messages' cnt = 0 escape, plus the iCnt and gap fields that use
    the same chunks; the sign and |diffTA|; diffCC."""
    k = pf["messages"]
    if f == "cnt":
        ctl = k["branch"] + k["exception"] + k["sync"] + k["end"]
        return (field_bits(pf["bcnt_len"], a, b) + k["branch"] + (ctl - k["branch"]) * (a + 1)
                + field_bits(pf["icnt_len"], a, b))
    if f == "diffta":
        return (field_bits(pf["diffta_len"], a, b) + field_bits(pf["exc_diffta_len"], a, b)
                + sum(pf["diffta_len"]) + sum(pf["exc_diffta_len"]))
    return field_bits(pf["diffcc_len"], a, b)


def chunk_grid(d, c):
    n = max(d.ns)
    pfs = [x["profile"] for p in d.programs if (x := d.get(p, n, c)) and x.get("profile")]
    ins = d.agg(n, c)["insns"] or 1
    m = d.s.chunk_max
    grid = {}
    for f in ("cnt", "diffta", "diffcc"):
        if f == "diffcc" and not any(sum(pf["diffcc_len"]) for pf in pfs):
            continue
        grid[f] = [[sum(chunk_bits(pf, f, a, b) for pf in pfs) / ins for b in range(1, m + 1)]
                   for a in range(1, m + 1)]
    return n, grid


def chunk_doc(d):
    """The whole chunk-size grid: FIELD -> [i0 - 1][i1 - 1] bits per instruction."""
    c = d.pick("ttr_e-large", "tr_e-large")
    if not c:
        return None
    n, grid = chunk_grid(d, c)
    return {"config": c, "N": n, "default": default_chunks(d, c), "bits_per_instruction": grid}


def default_chunks(d, c):
    x = next((d.get(p, n, c) for p in d.programs for n in d.ns if d.get(p, n, c)), None)
    ch = x["stats"]["config"]["chunks"]
    return {"cnt": tuple(ch["bcnt"]), "diffta": tuple(ch["ta"]), "diffcc": tuple(ch["cc"])}


def chunk_best(g):
    """The grid G's smallest bits per instruction and its (i0, i1): (bpi, i0, i1)."""
    return min((g[a][b], a + 1, b + 1) for a in range(len(g)) for b in range(len(g)))


def chunk_table(d, c):
    n, grid = chunk_grid(d, c)
    dflt = default_chunks(d, c)
    t = Table("chunks", f"TR_e chunk sizes (i0, i1): each field's bits per instruction over all programs at N={n} "
              f"({c}; bCnt includes the iCnt and gap fields that share its chunks), computed from the "
              f"field-length histograms (exact: a chunked field's bits depend only on its value's length), "
              f"(i0, i1) in 1..{d.s.chunk_max}; 'best on the edge': the best pair has i0 or i1 at 1 or "
              f"{d.s.chunk_max} (at the maximum, a larger [chunks] max may do better)",
              ["field", "default (i0,i1)", "default bpi", "best (i0,i1)", "best bpi", "change %", "best on the edge"])
    for f, g in grid.items():
        a0, b0 = dflt[f]
        cur = g[a0 - 1][b0 - 1] if a0 <= len(g) and b0 <= len(g) else None
        best = chunk_best(g)
        edge = [f"{k}={v}" for k, v in (("i0", best[1]), ("i1", best[2])) if v in (1, len(g))]
        t.add(FIELD_NAMES[f], f"({a0},{b0})", round(cur, 5) if cur is not None else None, f"({best[1]},{best[2]})",
              round(best[0], 5), round(100 * (best[0] - cur) / cur, 2) if cur else None,
              f"WARNING: {', '.join(edge)} (range 1..{len(g)})" if edge else "no")
    return t


def delivery_tables(d):
    s = d.s
    out = []
    t = Table("buffer_sizing", "Buffer sizing: the smallest port width (bits/cycle) of the study's list that drops "
              "nothing, per buffer size (bits) and N; 'all' = the largest any program needs", 
              ["configuration", "buffer bits", "N"] + d.programs + ["all"])
    curve = Table("loss_curve", "Delivery: what each port width and buffer size loses (all programs together); "
                  "bits per instruction here are delivered bits, WITH the losses beside them",
                  ["configuration", "buffer bits", "port bits/cycle", "N", "dropped messages", "instructions in gaps",
                   "% instructions in gaps", "peak occupancy bits", "delivered bpi (with losses)"])
    for dc in s.dl_configs:
        for b in s.dl_buffers:
            for n in d.ns:
                # per program, the smallest port of the list that drops nothing (None: none does)
                mins = []
                for p in d.programs:
                    ok = [pt for pt in s.dl_ports if (x := d.get(p, n, f"{dc}@p{pt}b{b}")) and
                          x["stats"]["buffer"]["dropped_messages"] == 0]
                    mins.append(min(ok) if ok else None)
                over = f">{max(s.dl_ports)}"
                t.add(dc, b, n, *[over if v is None else v for v in mins],
                      over if None in mins else max(mins))
                for pt in s.dl_ports:
                    a = d.agg(n, f"{dc}@p{pt}b{b}")
                    peak = max((d.get(p, n, f"{dc}@p{pt}b{b}")["stats"]["buffer"]["peak_occupancy"]
                                for p in d.programs if d.get(p, n, f"{dc}@p{pt}b{b}")), default=0)
                    curve.add(dc, b, pt, n, a["dropped"], a["lost"], round(100 * a["lost"] / max(1, a["insns"]), 3),
                              peak, f"{bpi(a):.4f} ({'no losses' if not a['dropped'] else losses(a)})")
    out += [t, curve]
    return out


def cfiat_tables(d, dcs):
    out = []
    t = Table("cfiat", "Load-value tracing (tr_e large): first-access miss rate, bits per load, data bits per "
              "instruction; CFiat against the every-load baseline (all programs together)",
              ["configuration", "N", "loads", "FA miss %", "bits/load", "data bpi", "control bpi", "total bpi",
               "x of every-load data bits", "losses"])
    base = next((c["name"] for c in dcs if "--data" in c["opts"] and "all" in c["opts"]), None)
    for c in dcs:
        for n in d.ns:
            L = R = B = I = CB = DR = 0
            for p in d.programs:
                x = d.get(p, n, c["name"])
                if not x or "data" not in x["stats"]:
                    continue
                dd = x["stats"]["data"]
                L += dd["loads"]; R += dd["reports_needed"]; B += dd["bits"]
                I += x["stats"]["total"]["instructions"]; CB += dd["control_bits"]; DR += dd["dropped_messages"]
            bb = 0
            if base:
                for p in d.programs:
                    x = d.get(p, n, base)
                    if x and "data" in x["stats"]:
                        bb += x["stats"]["data"]["bits"]
            t.add(c["name"], n, L, round(100 * R / max(1, L), 3), round(B / max(1, L), 3), round(B / max(1, I), 4),
                  round(CB / max(1, I), 4), round((B + CB) / max(1, I), 4), round(B / bb, 4) if bb else None,
                  "none" if not DR else f"LOSSY: {DR:,} data messages dropped")
    out.append(t)
    c = next((c for c in dcs if "--cfiat" in c["opts"] or "cfiat" in c["opts"]), dcs[0])
    n = max(d.ns)
    t = Table("cfiat_by_size", f"CFiat by operand size ({c['name']}, N={n}, all programs together): loads, "
              f"first-access misses (values reported), and the value bits per load against the every-load "
              f"baseline (which reports every value: 8 x size bits per load)",
              ["operand size", "loads", "cache misses", "hits, FA set", "hits, FA clear", "values reported",
               "FA miss % (reported / loads)", "value bits/load", "every-load value bits/load", "x of every-load"])
    sizes = {}
    for p in d.programs:
        x = d.get(p, n, c["name"])
        if x and "data" in x["stats"]:
            for k, v in x["stats"]["data"].get("by_size", {}).items():
                z = sizes.setdefault(k, [0, 0, 0, 0])
                z[0] += v["load_refs"]; z[1] += v["load_hits"]; z[2] += v["fa_hits"]; z[3] += v["fa_misses"]
    nbytes = {"byte": 1, "word": 2, "dword": 4, "qword": 8, "10-byte": 10, "oword": 16, "hword": 32, "64-byte": 64}
    for k, z in sizes.items():
        rep = z[0] - z[1] + z[3]  # cache misses + hits with a flag clear
        vb = 8 * nbytes[k] * rep / max(1, z[0]) if k in nbytes else None
        t.add(k, z[0], z[0] - z[1], z[2], z[3], rep, round(100 * rep / max(1, z[0]), 3),
              round(vb, 3) if vb is not None else None, 8 * nbytes[k] if k in nbytes else None,
              round(vb / (8 * nbytes[k]), 4) if vb is not None and z[0] else None)
    out.append(t)
    return out


# ---------------------------------------------------------------- figures

class FigureSet:
    """The report's figures as they are drawn: the study D, pyplot, the
    figures/ directory of OUTDIR and FIGS, the (name, caption, how) of each
    figure saved so far, in order.  One method per figure (or family)."""

    def __init__(self, d, outdir):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        # sizes that stay readable at index.html's width (about 1,150 pixels for a 4-panel row)
        plt.rcParams.update({"font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11, "xtick.labelsize": 10,
                             "ytick.labelsize": 10, "legend.fontsize": 10, "figure.titlesize": 13})
        self.d = d
        self.plt = plt
        self.fd = os.path.join(outdir, "figures")
        os.makedirs(self.fd, exist_ok=True)
        self.figs = []
        self.nmax = max(d.ns)

    def save(self, fig, name, caption, how):
        """Writes FIG as figures/NAME.svg (through a temporary file) and closes
        it; records it with its CAPTION (the machine and IPC added to a figure
        in cycles) and HOW it was computed."""
        d = self.d
        path = os.path.join(self.fd, name + ".svg")
        fig.savefig(path + ".tmp.svg", format="svg", bbox_inches="tight")
        os.replace(path + ".tmp.svg", path)
        self.plt.close(fig)
        if "_bpc" in name or name in ("fig14_timeline", "loss_curve"):
            caption += f". Cycles from the machine: {d.machine_text()}; IPC per core: {d.ipc_text()}"
        self.figs.append((name, caption, how))

    def grid(self, n, w=3.3, h=3.0):
        """A figure of N panels, at most 4 a row, with no empty axes (removed)."""
        cols = min(4, n)
        rows = (n + cols - 1) // cols
        fig, axs = self.plt.subplots(rows, cols, figsize=(w * cols, h * rows), squeeze=False)
        flat = [a for r in axs for a in r]
        for a in flat[n:]:
            fig.delaxes(a)
        return fig, flat[:n]

    @staticmethod
    def legend_below(fig, handles, labels, ncol=None):
        """The legend under the panels, outside the data (savefig's tight box keeps it)."""
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncol or min(len(labels), 6),
                   frameon=False)

    def fig9_curves(self, c9, panels):
        """Fig. 9's curves: field key -> [(program, CDF)] of each program's
        profile at the largest N in configuration C9 (a field without
        values in a program: no curve)."""
        d = self.d
        curves = {k: [] for _, k, _ in panels}
        for p in d.programs:
            x = d.get(p, self.nmax, c9)
            if not x or not x.get("profile"):
                continue
            pf = x["profile"]
            hs = {"bcnt": pf["bcnt_value"][1:] + [pf["bcnt_value"][0]],
                  "diffta": [a + b for a, b in zip(pf["diffta_len"], pf.get("exc_diffta_len", [0] * 65))],
                  "diffcc": pf["diffcc_len"]}
            for k, h in hs.items():
                tot = sum(h)
                if tot:
                    acc, ys = 0, []
                    for v in h:
                        acc += v
                        ys.append(acc / tot)
                    curves[k].append((p, ys))
        return curves

    def fig9(self):
        """Fig. 9: CDFs of bCnt and of |diffTA| and diffCC lengths (only the
        fields the configuration has)."""
        d, nmax = self.d, self.nmax
        c9 = d.pick("ttr_e-large", "tr_e-large")
        if not c9:
            return
        panels = (("bCnt (instructions between reported branches; 65 = more than 64)", "bcnt", range(1, 66)),
                  ("|diffTA| length (bits)", "diffta", range(65)), ("diffCC length (bits)", "diffcc", range(65)))
        curves = self.fig9_curves(c9, panels)
        panels = [pp for pp in panels if curves[pp[1]]]
        if not panels:
            return
        fig, axs = self.plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.6), squeeze=False)
        for ax, (t, k, xs) in zip(axs[0], panels):
            for p, ys in curves[k]:
                ax.step(list(xs), ys, where="post", label=p)
            ax.set_xlabel(t)
            ax.set_ylabel("CDF")
            ax.set_ylim(0, 1.02)
            ax.grid(alpha=.3)
            if k == "bcnt":
                ax.set_xscale("log")
            else:
                last = max(max((i for i, y in enumerate(ys) if y < 1), default=0) for _, ys in curves[k])
                ax.set_xlim(0, min(64, last + 2))
        self.legend_below(fig, *axs[0][0].get_legend_handles_labels())
        fig.suptitle(f"Fig. 9: distributions of the fields ({c9}, N={nmax})")
        fig.tight_layout()
        self.save(fig, "fig9_cdf", f"Fig. 9: CDFs of {', '.join(t.split(' (')[0] for t, _, _ in panels)} "
                  f"({c9}, N={nmax}, per program)", "profile histograms (tm record --profile) of each program at the "
                  "largest N")

    def figs10_13(self):
        """Figs. 10-13: bpi and bpc stacked by field vs N; on Total, the
        paper's Total where it gives one."""
        pub = {10: (paper.TABLE5_TOTAL["tr_e-large"], "Table 5"), 11: (paper.FIG11_TOTAL["tr_e-large"], "Fig. 11"),
               12: (paper.TABLE6_TOTAL["ttr_e-large"], "Table 6"), 13: (paper.FIG13_TOTAL["ttr_e-large"], "Fig. 13")}
        for num, c, unit in ((10, "tr_e-large", "bpi"), (11, "tr_e-large", "bpc"), (12, "ttr_e-large", "bpi"),
                             (13, "ttr_e-large", "bpc")):
            if c in self.d.cfgs:
                self.field_bars(num, c, unit, *pub[num])

    def field_bars(self, num, c, unit, pv, psrc):
        """Fig. NUM: configuration C's bits per UNIT (bpi or bpc) stacked by
        field vs N, a panel for Total and one per program; on Total, diamonds
        for the paper's Total PV (from PSRC) at the N it gives."""
        d = self.d
        colors = {"ti": "#4c72b0", "cnt": "#dd8452", "diffta": "#55a868", "diffcc": "#c44e52", "sync": "#999999"}
        panels = ["Total"] + d.programs
        fig, axs = self.grid(len(panels))
        fields = [f for f in FIELDS + ("sync",) if any(d.agg(n, c)["fields"][f] for n in d.ns)]
        pn = [n for n in d.ns if n in pv]
        for ax, p in zip(axs, panels):
            bottom = [0.0] * len(d.ns)
            for f in fields:
                vals = []
                for n in d.ns:
                    a = d.agg(n, c, None if p == "Total" else [p])
                    den = a["insns"] if unit == "bpi" else a["cycles"]
                    vals.append(a["fields"][f] / den if den else 0)
                ax.bar([str(n) for n in d.ns], vals, bottom=bottom, color=colors[f],
                       label=FIELD_NAMES.get(f, "sync/end"))
                bottom = [b + v for b, v in zip(bottom, vals)]
            if p == "Total" and pn:
                ax.plot([str(n) for n in pn], [pv[n] for n in pn], "kD", ms=7,
                        label=f"the paper's Total ({psrc}: SPLASH-2, IA32, Multi2Sim)")
            ax.set_title(p if p != "Total" else "Total (all programs)")
            ax.set_xlabel("N (threads asked for)")
            ax.set_ylabel(unit)
        h, lab = axs[0].get_legend_handles_labels()
        self.legend_below(fig, h, lab)
        fig.suptitle(f"Fig. {num}: {c} bits per {'instruction' if unit == 'bpi' else 'cycle'} by field vs N")
        fig.tight_layout()
        self.save(fig, f"fig{num}_{unit}_{c}", f"Fig. {num}: {c}, bits per "
                  f"{'instruction' if unit == 'bpi' else 'cycle'} stacked by field "
                  f"({', '.join(FIELD_NAMES.get(f, 'sync/end') for f in fields)}) vs N; Total = all "
                  f"programs' bits / all programs' {'instructions' if unit == 'bpi' else 'cycles'}"
                  + (f"; diamonds: the paper's Total ({psrc}, N = {', '.join(map(str, pn))}; other programs, "
                     f"instruction set and timing: table paper)" if pn else ""),
                  "stats bits_by_field of each recording; study/paper.py")

    def fig14(self):
        """Fig. 14: bandwidth over time, the two most demanding programs at
        the largest N."""
        d, nmax = self.d, self.nmax
        c14 = d.pick("ttr_e-large", "tr_e-large")
        if not c14:
            return

        # the two most demanding programs that ran at least 5 windows (a curve), else the longest one
        def windows(p):
            x = d.get(p, nmax, c14)
            return len(x["profile"]["timeline"]["bits"]) if x and x.get("profile") else 0
        long_ = [p for p in d.programs if windows(p) >= 5]
        dem = sorted(((bpc(d.agg(nmax, c14, [p])), p) for p in long_), reverse=True)[:2] or \
            [(0, max(d.programs, key=windows))]
        lines = [c for c in ("tnx_b-large", c14) if c in d.cfgs]
        fig, axs = self.plt.subplots(1, len(dem), figsize=(6 * len(dem), 3.6), squeeze=False)
        for ax, (_, p) in zip(axs[0], dem):
            for c in lines:
                x = d.get(p, nmax, c)
                if not x or not x.get("profile"):
                    continue
                pf = x["profile"]
                w = pf["window_cycles"]
                ys = [b / w for b in pf["timeline"]["bits"]]
                ax.plot([(i + .5) * w / 1e6 for i in range(len(ys))], ys, label=c, lw=1.2,
                        marker="o" if len(ys) < 30 else None)   # at the window's middle
                ax.set_xlim(0, len(ys) * w / 1e6)
            ax.set_title(f"{p}, N={nmax} (ran {d.ran_text(nmax, [p])})")
            ax.set_xlabel("cycles (millions)")
            ax.set_ylabel("bits/cycle per window")
            ax.set_yscale("log", nonpositive="mask")   # a window without trace bits is a gap in its line
            ax.grid(alpha=.3)
        self.legend_below(fig, *axs[0][0].get_legend_handles_labels())
        w = next((d.get(p, nmax, c14)["profile"]["window_cycles"] for _, p in dem if d.get(p, nmax, c14)), 0)
        fig.suptitle(f"Fig. 14: bandwidth over time (one point per {w:,} cycles)")
        fig.tight_layout()
        self.save(fig, "fig14_timeline", f"Fig. 14: bits per cycle over time, one point per {w:,} cycles, " + (
                  f"for the {'two programs' if len(dem) > 1 else 'program'} with the highest {c14} bits per cycle "
                  f"at N={nmax} among those that ran at least 5 windows" if long_ else
                  f"for {dem[0][1]}, the longest program at N={nmax} (no program ran 5 windows: no curve to draw)")
                  + "; log scale, a gap in a line is a window without trace bits",
                  "profile timeline of each recording")

    def chunks(self):
        """The chunk-size exploration: each field's bits per instruction over
        (i0, i1), with the default and the best of the range marked."""
        from matplotlib.lines import Line2D
        d = self.d
        ce = d.pick("ttr_e-large", "tr_e-large")
        if not ce:
            return
        n, cg = chunk_grid(d, ce)
        dflt = default_chunks(d, ce)
        if not cg:
            return
        edges = chunk_edges(d)
        fig, axs = self.plt.subplots(1, len(cg), figsize=(4.6 * len(cg), 4.4), squeeze=False)
        for ax, (f, g) in zip(axs[0], cg.items()):
            im = ax.imshow(g, origin="lower", cmap="viridis", extent=(0.5, len(g) + .5, 0.5, len(g) + .5))
            a0, b0 = dflt[f]
            ax.plot([b0], [a0], "wo", ms=11, mfc="none", mew=2)
            best = chunk_best(g)
            ax.plot([best[2]], [best[1]], "r+", ms=14, mew=2.5)
            ax.set_xticks(range(1, len(g) + 1))
            ax.set_yticks(range(1, len(g) + 1))
            ax.set_xlabel("i1 (further chunks)")
            ax.set_ylabel("i0 (first chunk)")
            edge = any(e[0] == FIELD_NAMES[f] for e in edges)
            ax.set_title(f"{FIELD_NAMES[f]} bpi: default ({a0},{b0}), best ({best[1]},{best[2]})"
                         + ("\nbest ON THE EDGE of the range" if edge else ""), color="#a00" if edge else "black",
                         fontsize=10)
            fig.colorbar(im, ax=ax, fraction=.046, label="bits per instruction")
        self.legend_below(fig, [Line2D([], [], color="k", marker="o", mfc="none", ls="", ms=9, mew=2),
                                Line2D([], [], color="r", marker="+", ls="", ms=11, mew=2.5)],
                          ["default (i0, i1)", "best (i0, i1) of the range"])
        fig.suptitle(f"TR_e chunk-size exploration ({ce}, N={n}, all programs; (i0, i1) in 1..{d.s.chunk_max})")
        fig.tight_layout()
        ew = edge_warning(edges)
        self.save(fig, "chunks", f"TR_e chunk sizes: each field's bits per instruction over (i0, i1) in "
                  f"1..{d.s.chunk_max}, computed from the field-length histograms ({ce}, N={n}); circle: the "
                  f"default, cross: the best" + (f". {ew}" if ew else ""),
                  "profile histograms bcnt_len, diffta_len, diffcc_len")

    def loss_curve(self):
        """Loss curves: % of instructions in overflow gaps, log scale, a panel
        per delivery configuration."""
        from matplotlib.lines import Line2D
        d = self.d
        if not d.s.dl_configs:
            return
        fig, axs = self.plt.subplots(1, len(d.s.dl_configs), figsize=(5.6 * len(d.s.dl_configs), 4.0),
                                     squeeze=False)
        handles = {}
        for ax, dc in zip(axs[0], d.s.dl_configs):
            self.loss_panel(ax, dc, handles)
        hs = list(handles.values()) + [Line2D([], [], color="k", marker="v", ls="", ms=9,
                                              label="this port loses nothing (0 %)")]
        self.legend_below(fig, hs, [h.get_label() for h in hs])
        fig.suptitle("Delivery: what a port and buffer lose")
        fig.tight_layout()
        self.save(fig, "loss_curve", f"Loss curves at N={self.nmax}: % of instructions in overflow gaps per port "
                  f"width and buffer size (all programs together; log scale, a triangle on the bottom edge: nothing "
                  f"lost at that port)", "stats buffer and lost_instructions of the delivery configurations")

    def loss_panel(self, ax, dc, handles):
        """The loss curves of delivery configuration DC on AX, a line per
        buffer size: a port from which a buffer loses nothing is a triangle
        on the bottom edge, a buffer that loses nothing at any port is said
        so.  Adds each buffer's legend entry to HANDLES (buffer -> Line2D)
        unless it has one."""
        from matplotlib.lines import Line2D
        d, nmax = self.d, self.nmax
        series = []
        for k, b in enumerate(d.s.dl_buffers):
            ys = [100 * (a := d.agg(nmax, f"{dc}@p{pt}b{b}"))["lost"] / max(1, a["insns"]) for pt in d.s.dl_ports]
            series.append((b, ys, f"C{k}"))
        nz = [y for _, ys, _ in series for y in ys if y > 0]
        ax.set_xscale("log", base=2)
        ax.set_xticks(d.s.dl_ports, [str(p) for p in d.s.dl_ports])
        ax.set_xlim(min(d.s.dl_ports) / 1.4, max(d.s.dl_ports) * 1.4)
        ax.set_xlabel("port width (bits/cycle)")
        ax.set_title(f"{dc}, N={nmax}")
        ax.grid(alpha=.3)
        if not nz:
            ax.set_yticks([])
            ax.text(0.5, 0.5, "nothing lost at any port width\nand buffer size of the study",
                    transform=ax.transAxes, ha="center", va="center")
            for b, _, col in series:
                handles.setdefault(b, Line2D([], [], color=col, marker="o", label=f"buffer {b:,} bits"))
            return
        lo, hi = min(nz) / 3, min(100.0, max(nz)) * 3
        ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        ax.set_ylabel("% instructions in overflow gaps")
        for b, ys, col in series:
            pts = [(pt, y) for pt, y in zip(d.s.dl_ports, ys) if y > 0]
            if pts:
                ax.plot(*zip(*pts), marker="o", color=col)
            zs = [pt for pt, y in zip(d.s.dl_ports, ys) if y == 0]
            if zs:   # side by side, not on top of each other
                k = [b2 for b2, _, _ in series].index(b)
                f = 2 ** (0.18 * (k - (len(series) - 1) / 2))
                ax.plot([z * f for z in zs], [lo] * len(zs), marker="v", ls="", color=col, ms=9, clip_on=False)
            handles.setdefault(b, Line2D([], [], color=col, marker="o",
                                         label=f"buffer {b:,} bits" + ("" if pts else " (nothing lost)")))

    def isa_bpi(self, t):
        """The same work on several ISAs: per configuration, a bar group per (program, N), a bar per ISA."""
        if not t:
            return
        bars = isa_bars(t)
        isas = t.extra["isas"]
        cols = {"x86-64": "#4c72b0", "aarch64": "#dd8452", "riscv64": "#55a868"}
        fig, axs = self.grid(len(bars), w=max(3.3, 0.45 * len(isas) * max(len(x) for x, _ in bars.values())), h=3.2)
        w = 0.8 / len(isas)
        for ax, (c, (xs, ys)) in zip(axs, bars.items()):
            for k, i in enumerate(isas):
                ax.bar([j + (k - (len(isas) - 1) / 2) * w for j in range(len(xs))], ys[i], w,
                       color=cols.get(i, f"C{k + 3}"), label=i)
            ax.set_xticks(range(len(xs)), [f"{p}\nN={n}" for p, n in xs], rotation=90 if len(xs) > 6 else 0,
                          fontsize=9)
            ax.set_title(c)
            ax.set_ylabel("bpi")
        fig.suptitle("The same work on several ISAs: bits per instruction")
        fig.tight_layout()
        self.legend_below(fig, *axs[0].get_legend_handles_labels())
        self.save(fig, "isa_bpi", "The same work on several ISAs: bits per instruction per program and N, a bar per "
                  f"ISA ({', '.join(isas)}), one panel per configuration (lossless demand); a missing bar: the "
                  "program has no build for that ISA",
                  "the table isa (each recording's statistics; its ISA: tm record's recording.isa)")

    def std_bpi(self, t):
        """An ISA's trace standard in each variant beside the trace module: a bar
        group per (program, N), a bar per row of the table std_ISA."""
        if not t or not t.rows:
            return
        cols = [c for c in t.columns if c.endswith(" bpi")]
        rows = [r for r in t.rows if r[0] != "Total"] or t.rows
        fig, ax = self.plt.subplots(figsize=(max(6.0, 0.35 * len(cols) * len(rows)), 3.6))
        w = 0.8 / len(cols)
        cmap = self.plt.get_cmap("tab20")
        for k, c in enumerate(cols):
            j = t.columns.index(c)
            ax.bar([i + (k - (len(cols) - 1) / 2) * w for i in range(len(rows))], [r[j] or 0.0 for r in rows], w,
                   color=cmap(k % 20), label=c[:-4])
        ax.set_xticks(range(len(rows)), [f"{r[0]}\nN={r[1]}" for r in rows], rotation=90 if len(rows) > 8 else 0,
                      fontsize=9)
        ax.set_ylabel("bpi")
        isa, std = t.extra["isa"], t.extra["standard"]
        ax.set_title(f"{std} ({isa}) beside the trace module: bits per instruction")
        fig.tight_layout()
        self.legend_below(fig, *ax.get_legend_handles_labels(), ncol=4)
        self.save(fig, f"std_bpi_{isa}", f"{std}, the trace standard of {isa}, in each variant beside the trace "
                  f"module (nx_b, tr_e-large, tage-l+tr_a): bits per instruction per program and N, lossless, "
                  f"every variant verified by its decoder",
                  f"tm std --verify on each recording's commit stream (docs/standards.md); the table std_{isa}")

    def pt_bpi(self):
        """Intel PT against NX_b, TR_e and time-stamped TR_e (large
        predictors), per program."""
        d = self.d
        if not d.pt:
            return
        bars = [(c, lab, col) for c, lab, col in (
            ("nx_b-large", "NX_b-L", "#8c8c8c"), ("tr_e-large", "TR_e-L", "#4c72b0"), ("PT", "PT (no timing)", "#dd8452"),
            ("ttr_e-large", "tTR_e-L (time stamps)", "#55a868"), ("PT+cyc", "PT+cyc (TSC+MTC+CYC)", "#c44e52"))
            if c in d.cfgs or c in PT_FORMATS]
        panels = ["Total"] + d.programs
        fig, axs = self.grid(len(panels))
        w = 0.8 / len(bars)
        for ax, p in zip(axs, panels):
            progs = None if p == "Total" else [p]
            for k, (c, lab, col) in enumerate(bars):
                ys = [bpi(d.pt_agg(n, c, progs) if c in PT_FORMATS else d.agg(n, c, progs)) for n in d.ns]
                ax.bar([j + (k - (len(bars) - 1) / 2) * w for j in range(len(d.ns))], ys, w, color=col, label=lab)
            ax.set_xticks(range(len(d.ns)), [str(n) for n in d.ns])
            ax.set_title(p if p != "Total" else "Total (all programs)")
            ax.set_xlabel("N (threads asked for)")
            ax.set_ylabel("bpi")
        fig.suptitle("Intel PT against the trace module: bits per instruction vs N")
        fig.tight_layout()
        self.legend_below(fig, *axs[0].get_legend_handles_labels())
        self.save(fig, "pt_bpi", "Intel PT against the trace module: bits per instruction vs N of NX_b-L, TR_e-L, "
                  "tTR_e-L (time stamps), PT (user-only, no timing packets) and PT+cyc (TSC+MTC+CYC, "
                  "cycle-accurate); Total = all programs' bits / all programs' instructions",
                  "tm pt --timing-variants on each recording's commit stream (docs/pt.md); stats of nx_b-large, "
                  "tr_e-large, ttr_e-large")


def isa_bars(t):
    """The table isa's bars: {configuration: ([(program, N)], {isa: [bpi]})}, the Total rows left out."""
    isas = t.extra["isas"]
    out = {}
    for r in t.rows:
        if r[0] == "Total":
            continue
        xs, ys = out.setdefault(r[2], ([], {i: [] for i in isas}))
        xs.append((r[0], r[1]))
        for k, i in enumerate(isas):
            ys[i].append(r[3 + k] or 0.0)
    return out


def figures(d, outdir, tables):
    """Draws the report's figures into OUTDIR/figures (SVG) and returns
    their (name, caption, how), in the order index.html shows them."""
    fs = FigureSet(d, outdir)
    fs.fig9()
    fs.figs10_13()
    fs.fig14()
    breakdown.figure(fs)
    fs.chunks()
    fs.loss_curve()
    fs.pt_bpi()
    fs.isa_bpi(next((t for t in tables if t.name == "isa"), None))
    for t in tables:
        if t.name.startswith("std_"):
            fs.std_bpi(t)
    return fs.figs


# ---------------------------------------------------------------- output

def write_csv(path, t):
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(t.columns)
        w.writerows(t.rows)
    os.replace(path + ".tmp", path)


def html_table(t):
    h = [f'<h3 id="{t.name}">{html.escape(t.title)}</h3>',
         f'<p class="src">CSV: <a href="tables/{t.name}.csv">tables/{t.name}.csv</a></p>', "<table><tr>"]
    h += [f"<th>{html.escape(c)}</th>" for c in (t.header or t.columns)] + ["</tr>"]
    for r in t.shown_rows():
        cls = ' class="total"' if "Total" in r[:2] else ""
        h.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(t.fmts.get(i, fmt)(v))}</td>" for i, v in enumerate(r))
                 + "</tr>")
    h.append("</table>")
    for g in t.extra.get("identical", []):
        h.append(f'<p class="note">{html.escape(g["label"])}: {html.escape(", ".join(g["configs"]))} gave identical '
                 f"results for every program and N (checked from the results: bits, bits by field, messages, cycles), "
                 f"so they are shown once; the CSV and results.json keep each configuration's rows.</p>")
    if t.name in ("table5", "table6", "table5_bpc", "table6_bpc"):
        h.append('<p class="note">N=n (ran k): the threads that ran, the same for every program, or their average '
                 "and range over the programs (per program: Table 1).</p>")
    if "machine" in t.extra:
        h.append(f'<p class="note"><b>Cycles</b> (every bits-per-cycle number here) come from this machine: '
                 f'{html.escape(t.extra["machine"])}. <b>IPC per core</b>, all programs: '
                 f'{html.escape(", ".join(f"{k}: {v:.3f}" if v is not None else f"{k}: -" for k, v in t.extra["ipc_per_core"].items()))}.</p>')
    return "\n".join(h)


def git_version():
    try:
        r = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "describe", "--always", "--dirty"],
                           capture_output=True, text=True, timeout=10)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


# Every abbreviation of the report, defined before its first use (index.html's
# "Terms", the summary's first lines): (term, definition)
GLOSSARY = (
    ("N", "the threads the program is asked for (each on its own core); 'ran' beside it: the threads that "
          "actually executed instructions (Table 1; the width of the thread field Ti follows them)"),
    ("bpi", "bits per instruction: trace bits / instructions, all cores together"),
    ("bpc", "bits per cycle: trace bits / cycles of the timing model"),
    ("IPC", "instructions per cycle, all cores together"),
    ("Total", "all programs' bits / all programs' instructions (or cycles), as in the paper: not a mean of ratios"),
    ("Ti, bCnt, iCnt, diffTA, diffCC", "the message fields: the thread, the branches since the thread's last "
                                       "message, its instructions (exceptions), the target minus the previous "
                                       "reported target, the cycles since the thread's last message"),
    ("NX_b", "the Nexus-like baseline: a message per taken conditional branch, indirect branch and exception; no "
             "predictors, so its bits do not depend on the preset"),
    ("TR_b", "the mcfTRaptor trace module's messages (sent only when its predictors mispredict) with fixed chunks "
             "(bCnt 8 bits, |diffTA| 16, diffCC 8, each chunk followed by a connect bit)"),
    ("TR_e", "the mcfTRaptor messages (only on mispredictions) with variable chunks (i0, i1): a first chunk of "
             "i0 bits, then chunks of i1 bits, each followed by a connect bit"),
    ("TR_a", "the adaptive encoding (docs/spec.md 4.9)"),
    ("t prefix", "the same with time stamps (a diffCC field in every message): tNX_b, tTR_b, tTR_e"),
    ("-S, -M, -L", "the small, medium and large predictor presets (a gshare outcome predictor, a return address "
                   "stack and an indirect branch target buffer; docs/spec.md 3.3): TR_e-L = tr_e-large, "
                   "tTR_e-L = ttr_e-large; tage-s/m/l: the presets with TAGE-class (tagged geometric history) "
                   "predictors"),
    ("PT", "Intel Processor Trace of the same execution (tm pt, user-only), without timing packets"),
    ("PT+mtc, PT+cyc", "PT with timing packets: time-stamp counter (TSC) and mini time counter (MTC) packets; "
                       "the same and cycle-count (CYC) packets (cycle-accurate)"),
    ("CFiat, FA", "load-value tracing filtered by the cache's first-access (FA) flags"),
)


def glossary_text(body=None):
    """The terms (those BODY uses, if given) as one line to wrap."""
    def used(k):
        words = {"t prefix": ["tNX_b", "tTR_", "ttr_", "tnx_"], "-S, -M, -L": ["-S", "-M", "-L", "-small", "-large",
                                                                              "-medium", "tage-"],
                 "N": ["N="], "Total": ["Total"]}.get(k, [w.strip() for w in k.split(",")])
        return any(w in body or w.lower() in body for w in words)
    return "Terms: " + "; ".join(f"{k} = {v}" for k, v in GLOSSARY if body is None or used(k)) + "."


def wrap(text, width=110, indent=""):
    import textwrap
    return textwrap.fill(text, width, subsequent_indent=indent, break_on_hyphens=False)


def chunk_edges(d):
    """The chunk-size exploration's fields whose best (i0, i1) lies on the edge of 1..max:
    [(field name, (i0, i1), max)]."""
    c = d.pick("ttr_e-large", "tr_e-large")
    if not c:
        return []
    _, grid = chunk_grid(d, c)
    out = []
    for f, g in grid.items():
        _, a, b = chunk_best(g)
        if {a, b} & {1, len(g)}:
            out.append((FIELD_NAMES[f], (a, b), len(g)))
    return out


def edge_warning(edges):
    if not edges:
        return ""
    return ("WARNING: the best (i0, i1) lies on the edge of the explored range for " +
            ", ".join(f"{f} ({a},{b}) of 1..{m}" for f, (a, b), m in edges) +
            ": at max a larger [chunks] max may do better (at 1 the chunk cannot be smaller)")


def summary(d, tables):
    """The text summary: the terms; Tables 5 and 6's totals with the threads that ran;
    the NX_b / TR_e-L and PT / TR_e-L ratios; the paper's totals beside ours."""
    out = [wrap(f"Machine (the cycles of every bits-per-cycle number): {d.machine_text()}. IPC per core, all "
                f"programs: {d.ipc_text()}.", 110, "  ")]
    byname = {t.name: t for t in tables}
    for nm in ("table5", "table6"):
        t = byname.get(nm)
        if not t:
            continue
        out.append(f"\n{t.title}\n")
        w = max(10, *(len(h) + 2 for h in t.header[2:-1]))
        lab = max([16] + [len(r[0]) + 1 for r in t.shown_rows() if r[1] == "Total"])
        out.append(f"{'':{lab}}" + "".join(f"{c:>{w}}" for c in t.header[2:-1]) + "  losses")
        for r in t.shown_rows():
            if r[1] == "Total":
                out.append(f"{r[0]:{lab}}" + "".join(f"{fmt(v):>{w}}" for v in r[2:-1]) + f"  {r[-1]}")
        for g in t.extra.get("identical", []):
            out.append(wrap(f"  {g['label']}: {', '.join(g['configs'])} gave identical results for every program "
                            f"and N (the preset changes only the predictors, which {g['label'].split()[0]} does not "
                            f"use); shown once", 110, "    "))
    for a, b in (("nx_b-large", "tr_e-large"), ("tnx_b-large", "ttr_e-large")):
        if a in d.cfgs and b in d.cfgs:
            rs = []
            for n in d.ns:
                x, y = bpi(d.agg(n, a)), bpi(d.agg(n, b))
                rs.append(f"N={n}: {x / y:.1f}x" if y else f"N={n}: -")
            label = {"nx_b-large": "NX_b", "tr_e-large": "TR_e-L", "tnx_b-large": "tNX_b", "ttr_e-large": "tTR_e-L"}
            out.append(f"\n{label[a]} / {label[b]} (bits per instruction, all programs): " + ", ".join(rs))
        # Intel PT against the same TR_e: PT without timing against TR_e-L, PT+cyc against tTR_e-L
        f = {"tr_e-large": "PT", "ttr_e-large": "PT+cyc"}[b]
        if d.pt and b in d.cfgs:
            rs = []
            for n in d.ns:
                x, y = bpi(d.pt_agg(n, f)), bpi(d.agg(n, b))
                rs.append(f"N={n}: {x / y:.1f}x" if y else f"N={n}: -")
            out.append(f"{f} / {'TR_e-L' if b == 'tr_e-large' else 'tTR_e-L'} (bits per instruction, all programs): "
                       + ", ".join(rs))
    if d.pt_skipped:
        out.append(f"\nIntel PT (tm pt): not computed: {d.pt_skipped}")
    elif d.not_x86:
        out.append("\n" + wrap(pt_isa_note(d), 110, "  "))
    t = byname.get("isa")
    if t:
        out.append("\n" + wrap(t.title, 110) + "\n")
        out += isa_text(t)
    out += std_summary(tables, d)
    out += paper_summary(d)
    out += paper_programs.summary(d)
    out += breakdown.summary(d)
    ew = edge_warning(chunk_edges(d))
    if ew:
        out.append("\n" + wrap("Chunk-size exploration (table chunks): " + ew, 110, "  "))
    body = "\n".join(out) + "\n"
    return wrap(glossary_text(body)) + "\n" + body


def std_summary(tables, d):
    """Each ISA's standard against the trace module, Totals per N, as text lines."""
    if d.std_skipped:
        return [f"\nThe ISAs' trace standards (tm std): not computed: {d.std_skipped}"]
    out = []
    for t in tables:
        if not t.name.startswith("std_"):
            continue
        cols = [c for c in t.columns if c.endswith(" bpi")]
        out.append("\n" + wrap(f"{t.extra['standard']} ({t.extra['isa']}), Total bits per instruction by N "
                                f"(table {t.name}; state bits per core: " + ", ".join(
                                    f"{k} {v:,}" for k, v in t.extra["state_bits"].items() if v) + ")", 110))
        for r in t.rows:
            if r[0] == "Total":
                out.append(f"  N={r[1]:<3}" + "".join(f"{c[:-4]}={fmt(r[t.columns.index(c)])}  " for c in cols)
                           + f"verified: {r[-1]}")
    return out


def pt_isa_note(d):
    """Which recordings have no Intel PT because they are not x86-64."""
    return ("Intel PT (tm pt) is computed for the x86-64 recordings only (it models Intel PT of x86-64): not for "
            + ", ".join(f"{p} ({i})" for p, i in d.not_x86) + "; the PT rows and Totals are those of the x86-64 "
            "programs.")


def isa_text(t):
    """The table isa as text lines (every column but the programs' names)."""
    cols = t.columns[:-1]
    rows = [[fmt(v) if not isinstance(v, float) else (f"{v:.3f}" if " / " in cols[k] else f"{v:.5f}")
             for k, v in enumerate(r[:-1])] for r in t.rows]
    w = [max(len(c), *(len(r[k]) for r in rows)) for k, c in enumerate(cols)]
    line = lambda r: "  ".join((f"{v:<{w[k]}}" if k in (0, 2) else f"{v:>{w[k]}}") for k, v in enumerate(r)).rstrip()
    return [line(cols)] + [line(r) for r in rows]


def paper_summary(d):
    """The paper's totals beside ours, one line per quantity: per N, here, paper and here / paper."""
    rows = paper_compare(d)
    if not rows:
        return [f"\nThe paper ({paper.SHORT}): no quantity and N in common with this study."]
    ns = [n for n in d.ns if any(r["N"] == n for r in rows)]
    out = ["\n" + wrap(f"The paper beside this study (table paper): {paper.SHORT}'s published totals "
                       f"(study/paper.py) and ours, all programs together; ratio = here / paper.", 110),
           wrap(f"What differs: {paper.DIFFERS}.", 110, "  ")]
    short = {"bits per instruction": "bpi", "bits per cycle": "bpc", "outcome mispredicted,": "outcome mispr. %",
             "target mispredicted,": "target mispr. %", "IPC (all cores)": "IPC",
             "IPC per core": "IPC per core"}

    def label(qq):
        for k, v in short.items():
            qq = qq.replace(k, v)
        return qq
    q = list(dict.fromkeys(r["quantity"] for r in rows))
    srcs = {qq: list(dict.fromkeys(r["source"] for r in rows if r["quantity"] == qq)) for qq in q}
    lw = max(len(label(qq)) for qq in q) + 1
    cw = 23
    out.append("")
    out.append(f"{'':{lw}}" + "".join(f"{d.n_label(n):>{cw}}" for n in ns) + "  paper's source")
    out.append(f"{'':{lw}}" + "".join(f"{'here':>9}{'paper':>7}{'ratio':>7}" for _ in ns))
    by = {(r["quantity"], r["N"]): r for r in rows}
    for qq in q:
        cells = []
        for n in ns:
            r = by.get((qq, n))
            cells.append(f"{fmt3(r['measured']):>9}{fmt3(r['paper']):>7}{r['ratio']:>7.2f}" if r and r["ratio"]
                         is not None else f"{'-':>9}{'-':>7}{'-':>7}")
        out.append(f"{label(qq):{lw}}" + "".join(cells) + f"  {'; '.join(srcs[qq])}")
    return out


def fmt3(v):
    """A measured or published number in 7 characters."""
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    if abs(v) >= 1:
        return f"{v:.2f}"
    return f"{v:.4f}".rstrip("0") if abs(v) >= 0.001 else f"{v:.1e}"


def pt_doc(pt):
    """results.json's "pt": tm pt's rows (PT, PT+mtc, PT+cyc) per recording, or why there are none."""
    pt = pt or {}
    return {"skipped": pt.get("skipped", "no Intel PT results given"), "options": pt.get("options"),
            "not_x86": [{"program": p, "isa": i} for p, i in pt.get("not_x86", [])],
            "options_synthetic": pt.get("options_gen"),
            "recordings": [{"program": x["program"], "N": x["N"], "verified": x["verified"],
                            "verify": x["stats"].get("verify"), "pt_seconds": x.get("pt_seconds"),
                            "instructions": x["stats"]["instructions"], "cycles": x["stats"]["cycles"],
                            "bits": x["stats"]["bits"], "bpi": x["stats"]["bpi"], "bpc": x["stats"]["bpc"],
                            "rows": [{k: r[k] for k in ("format", "bits", "bpi", "bpc")}
                                     for r in x["stats"]["compare"]]}
                           for x in pt.get("results", [])]}


def std_doc(d):
    """results.json's "standards": tm std's rows per recording, or why there are none."""
    return {"skipped": d.std_skipped,
            "recordings": [{"program": x["program"], "N": x["N"], "isa": x["isa"], "standard": x["stats"]["standard"],
                            "std_seconds": x.get("std_seconds"), "instructions": x["stats"]["instructions"],
                            "cycles": x["stats"]["cycles"], "cores": x["stats"]["cores"], "rows": x["stats"]["rows"]}
                           for x in d.std.values()]}


def paper_doc(d):
    """results.json's "paper": the published numbers (study/paper.py) and, for each quantity and N
    this study has too, the measured total and measured / paper."""
    return {"source": paper.CITATION, "differs": paper.DIFFERS, "published": paper.as_json(),
            "comparison": paper_compare(d), "programs": paper_programs.doc(d)}


def write(outdir, study, results, version, run, pt=None, std=None):
    d = Data(study, results, pt, std)
    tables = build_tables(d)
    td = os.path.join(outdir, "tables")
    os.makedirs(td, exist_ok=True)
    for t in tables:
        write_csv(os.path.join(td, t.name + ".csv"), t)
    figs = figures(d, outdir, tables)
    gv = git_version()
    # each recording's time, once per (program, N) (the last pass that made its results)
    rec_s = sum({(x["program"], x["N"]): x.get("record_seconds", 0) for x in results}.values())
    doc = {"study": study.name, "file": run["file"], "quick": run["quick"], "tool": {"git": gv, **version},
           "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "seconds": run["seconds"], "recording_seconds": round(rec_s, 1), "programs": d.programs, "N": d.ns,
           "configurations": [{k: c[k] for k in ("name", "opts", "kind")} for c in study.configs],
           "tables": {t.name: t.as_json() for t in tables},
           "chunk_grid": chunk_doc(d),
           "figures": [{"file": f"figures/{n}.svg", "caption": c, "from": h} for n, c, h in figs],
           "recordings": [{"program": x["program"], "N": x["N"], "config": x["config"], "verified": x["verified"],
                           "verdict": x.get("verdict"), "bits": x["stats"]["total"]["bits"],
                           "instructions": x["stats"]["total"]["instructions"],
                           "execution_cycles": x["stats"]["execution_cycles"], "lossless": x["stats"]["lossless"]}
                          for x in results],
           "pt": pt_doc(pt),
           "standards": std_doc(d),
           "threads_ran": {f"N={n}": d.ran_all(n) for n in d.ns},
           "machine": {"description": d.machine_text(),
                       "ipc_per_core": {f"N={n}": d.ipc_core(n) for n in d.ns},
                       "recordings": [{"program": p, "N": n, "machine": d.machine(p, n)}
                                      for p in d.programs for n in d.ns]},
           "paper": paper_doc(d)}
    with open(os.path.join(outdir, "results.json.tmp"), "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(os.path.join(outdir, "results.json.tmp"), os.path.join(outdir, "results.json"))
    text = summary(d, tables)
    with open(os.path.join(outdir, "summary.txt.tmp"), "w") as f:
        f.write(text)
    os.replace(os.path.join(outdir, "summary.txt.tmp"), os.path.join(outdir, "summary.txt"))
    pt_verified = sum(1 for x in d.pt.values() if (x["stats"].get("verify") or {}).get("ok"))
    H = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
         f'<meta name="tm-figures" content="{len(figs)}">',
         f"<title>tm study: {html.escape(study.name)}</title>",
         "<style>body{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}"
         "table{border-collapse:collapse;font-size:12px;margin-bottom:1em}td,th{border:1px solid #ccc;"
         "padding:2px 6px;text-align:right}th{background:#eee}tr.total{font-weight:bold;background:#f6f6ff}"
         "img.figure{max-width:100%;border:1px solid #ddd;margin:.5em 0}pre{background:#f4f4f4;padding:.5em;"
         "font-size:11px;overflow-x:auto}.src{font-size:11px;color:#666}.note{font-size:12px;color:#444}"
         "dl.terms{font-size:13px;display:grid;grid-template-columns:max-content auto;gap:2px 1em}"
         "dl.terms dt{font-weight:bold}dl.terms dd{margin:0}.warn{color:#a00;font-weight:bold}</style></head><body>",
         f"<h1>tm study: {html.escape(study.name)}{' (--quick)' if run['quick'] else ''}</h1>",
         '<h2 id="terms">Terms</h2><dl class="terms">' + "".join(
             f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in GLOSSARY) + "</dl>",
         f"<p>{len(d.programs)} programs; N = {', '.join(map(str, d.ns))}; {len(study.configs)} configurations; "
         f"{len(results)} results; every recording verified by replay ({html.escape(study.verify)}). "
         + (f"Intel PT (the rows PT, PT+mtc, PT+cyc of Tables 5 and 6, and the table pt; docs/pt.md): user-only "
            f"tracing of the same execution, computed from each recording's commit stream by tm pt; "
            f"{pt_verified} of its {len(d.pt)} recordings verified by libipt's decoder against the commit stream"
            f"{' (synthetic streams have no code to decode)' if pt_verified < len(d.pt) else ''}. " if d.pt else
            f"Intel PT: not computed ({html.escape(d.pt_skipped or 'no results')}). ") +
         (html.escape(pt_isa_note(d)) + " " if d.not_x86 and d.pt else "") +
         f"Bandwidth demand is measured with a {study.port}-bit port and a {study.buffer:,}-bit buffer that drop "
         f"nothing; any row with losses says so. Generated {doc['generated']}; this run took {run['seconds']} s, "
         f"the recordings {rec_s:,.0f} s of recording time in all (each pass of all its configurations).</p>",
         f"<p>Tool: tm {html.escape(gv or '?')} (build-id {html.escape(version['tm'])}; Valgrind tool "
         f"{html.escape(str(version['valgrind_tool']))}). Everything here is also in "
         f'<a href="results.json">results.json</a> and <a href="tables/">tables/*.csv</a>.</p>',
         f"<p>Beside the published numbers: the table <a href=\"#paper\">paper</a> puts the totals of "
         f"{html.escape(paper.CITATION)} (Tables 1, 2, 4, 5, 6 and Figs. 11 and 13) beside this study's. What "
         f"differs: {html.escape(paper.DIFFERS)}." + (" The table <a href=\"#paper_programs\">paper_programs</a> puts "
         "its Tables 1 and 5, row by row, beside the programs that match its benchmarks." if
         paper_programs.matched(d) else "") + "</p>",
         "<h2>Summary</h2><pre>" + html.escape(text) + "</pre>", "<h2>Tables</h2>"]
    H += [html_table(t) for t in tables]
    H.append("<h2>Figures</h2>")
    for n, c, h in figs:
        H.append(f'<figure><img class="figure" src="figures/{n}.svg" alt="{html.escape(c)}">'
                 f"<figcaption>{html.escape(c)}. <span class=\"src\">From: {html.escape(h)}; redrawn by "
                 f"<code>tm study --report-only -o DIR</code>.</span></figcaption></figure>")
    H += ["<h2>Reproduce</h2>",
          "<p>The study file as run is <a href=\"study.toml\">study.toml</a>. <code>tm study -f DIR/study.toml -o DIR"
          f"{' --quick' if run['quick'] else ''}</code> reruns it; results cached under DIR/cache (keyed by each "
          "program's build-id, its arguments and inputs, the configuration and tm's build-id) are not recomputed. "
          "<code>--report-only</code> redraws the tables and figures from the cache.</p>",
          "<h2>Study file</h2><pre>" + html.escape(study.text) + "</pre>",
          "<h2>Configurations</h2><pre>" + html.escape("\n".join(f"{c['name']}: {' '.join(c['opts'])}"
                                                              for c in study.configs)) + "</pre>",
          "</body></html>"]
    with open(os.path.join(outdir, "index.html.tmp"), "w") as f:
        f.write("\n".join(H))
    os.replace(os.path.join(outdir, "index.html.tmp"), os.path.join(outdir, "index.html"))
    return text
