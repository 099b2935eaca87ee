"""tm study's report (docs/study.md): the tables (CSV, results.json, HTML)
and figures (matplotlib, SVG) of a study's cached results, and the short
text summary `make run` prints."""
import csv
import datetime
import html
import json
import os
import subprocess

FIELDS = ("ti", "cnt", "diffta", "diffcc")
FIELD_NAMES = {"ti": "Ti", "cnt": "bCnt", "diffta": "diffTA", "diffcc": "diffCC"}
# Intel PT as tm pt --timing-variants models it (docs/pt.md): without timing
# packets, with TSC+MTC, with TSC+MTC+CYC (cycle-accurate)
PT_FORMATS = ("PT", "PT+mtc", "PT+cyc")


def chunk_len(length, a, b):
    """Bits of a chunked field whose value has LENGTH significant bits with
    chunk sizes (A, B) (encoder/bitio.h, tm_chunked_len)."""
    if length <= a:
        return a + 1
    return a + 1 + (length - a + b - 1) // b * (b + 1)


class Table:
    def __init__(self, name, title, columns, note=""):
        self.name, self.title, self.columns, self.note, self.rows = name, title, columns, note, []

    def add(self, *row):
        self.rows.append(list(row))

    def as_json(self):
        return {"title": self.title, "note": self.note, "columns": self.columns, "rows": self.rows}


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

    def __init__(self, study, results, pt=None):
        self.s = study
        self.r = {(x["program"], x["N"], x["config"]): x for x in results}
        pt = pt or {}
        self.pt_skipped = pt.get("skipped")
        # (program, N) -> tm pt's statistics; its compare rows by format
        self.pt = {(x["program"], x["N"]): x for x in pt.get("results", [])}
        self.pt_rows = {k: {r["format"]: r for r in x["stats"]["compare"]} for k, x in self.pt.items()}
        self.programs = [p["name"] for p in study.programs]
        self.ns = sorted({x["N"] for x in results})
        self.cfgs = {c["name"]: c for c in study.configs}

    def get(self, p, n, c):
        return self.r.get((p, n, c))

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
                  ["program", "N", "NX_b bpi", "NX_b bpc", "tNX_b bpi", "tNX_b bpc", "losses"])
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
                t.add(p, n, *row, "; ".join(lo) or "none")
        T.append(t)
    # Table 4: misprediction rates per preset and N (all programs together)
    t = Table("table4", "Table 4: outcome and target misprediction rates (%) per preset and N, all programs together",
              ["preset", "N", "outcome predictions", "outcome mispredicted %", "target predictions",
               "target mispredicted %"])
    for pr in s.presets:
        c = d.pick(f"tr_e-{pr}", f"tr_b-{pr}", f"ttr_e-{pr}", f"ttr_b-{pr}")
        if not c:
            continue
        for n in d.ns:
            op = om = tp = tmp = 0
            for p in d.programs:
                x = d.get(p, n, c)
                if x:
                    tt = x["stats"]["total"]
                    op += tt["outcome_predictions"]
                    om += tt["outcome_mispredictions"]
                    tp += tt["target_predictions"]
                    tmp += tt["target_mispredictions"]
            t.add(pr, n, op, round(100 * om / max(1, op), 3), tp, round(100 * tmp / max(1, tp), 3))
    T.append(t)
    # Tables 5/6: bpi per encoding, preset, N; Total = aggregate bits / aggregate instructions
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


def pt_table(d):
    """Intel PT beside the trace module, per program and N (and Total)."""
    ref = {k: d.pick(k) for k in ("nx_b-large", "tr_e-large", "ttr_e-large")}
    t = Table("pt", "Intel PT (tm pt: user-only tracing of the same execution, docs/pt.md) beside the trace module: "
              "bits per instruction and per cycle without timing packets (PT), with TSC+MTC (PT+mtc) and with "
              "TSC+MTC+CYC (PT+cyc); Total = all programs' bits / all programs' instructions (cycles)",
              ["program", "N", "instructions", "cycles"] + [f"{f} bpi" for f in PT_FORMATS] +
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
            t.add(p, n, aa["PT"]["insns"], aa["PT"]["cycles"], *[round(bpi(aa[f]), 5) for f in PT_FORMATS],
                  *[round(bpc(aa[f]), 5) for f in PT_FORMATS],
                  *[round(v, 5) if v is not None else None for v in m.values()],
                  round(pt_bpi / m["tr_e-large"], 3) if m["tr_e-large"] else None,
                  round(cyc_bpi / m["ttr_e-large"], 3) if m["ttr_e-large"] else None, ver)
    return t


def field_bits(h, a, b):
    """A chunked field's bits over the length histogram H (tm_profile_field_bits)."""
    return sum(k * chunk_len(L, a, b) for L, k in enumerate(h) if k)


def chunk_bits(pf, f, a, b):
    """The bits that depend on field F's chunk sizes (A, B) in profile PF,
    as study/profile.c's tm_profile_field_bits counts them: bCnt with T and
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


def chunk_table(d, c):
    n, grid = chunk_grid(d, c)
    dflt = default_chunks(d, c)
    t = Table("chunks", f"TR_e chunk sizes (i0, i1): each field's bits per instruction over all programs at N={n} "
              f"({c}; bCnt includes the iCnt and gap fields that share its chunks), computed from the "
              f"field-length histograms (exact: a chunked field's bits depend only on its value's length)", ["field", "default (i0,i1)", "default bpi", "best (i0,i1)", "best bpi",
                                        "change %"])
    for f, g in grid.items():
        a0, b0 = dflt[f]
        cur = g[a0 - 1][b0 - 1] if a0 <= len(g) and b0 <= len(g) else None
        best = min(((g[a][b], a + 1, b + 1) for a in range(len(g)) for b in range(len(g))))
        t.add(FIELD_NAMES[f], f"({a0},{b0})", round(cur, 5) if cur is not None else None, f"({best[1]},{best[2]})",
              round(best[0], 5), round(100 * (best[0] - cur) / cur, 2) if cur else None)
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

def figures(d, outdir, tables):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fd = os.path.join(outdir, "figures")
    os.makedirs(fd, exist_ok=True)
    figs = []
    nmax = max(d.ns)

    def save(fig, name, caption, how):
        path = os.path.join(fd, name + ".svg")
        fig.savefig(path + ".tmp.svg", format="svg", bbox_inches="tight")
        os.replace(path + ".tmp.svg", path)
        plt.close(fig)
        figs.append((name, caption, how))

    # Fig. 9: CDFs of bCnt and of |diffTA| and diffCC lengths
    c9 = d.pick("ttr_e-large", "tr_e-large")
    if c9:
        fig, axs = plt.subplots(1, 3, figsize=(13, 3.6))
        for p in d.programs:
            x = d.get(p, nmax, c9)
            if not x or not x.get("profile"):
                continue
            pf = x["profile"]
            for ax, h, xs in ((axs[0], pf["bcnt_value"][1:] + [pf["bcnt_value"][0]], range(1, 66)),
                              (axs[1], [a + b for a, b in zip(pf["diffta_len"], pf.get("exc_diffta_len", [0] * 65))], range(65)),
                              (axs[2], pf["diffcc_len"], range(65))):
                tot = sum(h)
                if not tot:
                    continue
                acc, ys = 0, []
                for k in h:
                    acc += k
                    ys.append(acc / tot)
                ax.step(list(xs), ys, where="post", label=p)
        for ax, t in zip(axs, ("bCnt (instructions between reported branches; 65 = more than 64)",
                               "|diffTA| length (bits)", "diffCC length (bits)")):
            ax.set_xlabel(t, fontsize=8)
            ax.set_ylabel("CDF")
            ax.grid(alpha=.3)
        axs[0].set_xscale("log")
        axs[0].legend(fontsize=7)
        fig.suptitle(f"Fig. 9: distributions of the fields ({c9}, N={nmax})")
        save(fig, "fig9_cdf", f"Fig. 9: CDFs of bCnt and of the lengths of |diffTA| and diffCC ({c9}, N={nmax}, "
             f"per program)", "profile histograms (tm record --profile) of each program at the largest N")

    # Figs. 10-13: bpi and bpc stacked by field vs N
    colors = {"ti": "#4c72b0", "cnt": "#dd8452", "diffta": "#55a868", "diffcc": "#c44e52", "sync": "#999999"}
    for num, c, unit in ((10, "tr_e-large", "bpi"), (11, "tr_e-large", "bpc"), (12, "ttr_e-large", "bpi"),
                         (13, "ttr_e-large", "bpc")):
        if c not in d.cfgs:
            continue
        panels = ["Total"] + d.programs
        cols = min(4, len(panels))
        rows = (len(panels) + cols - 1) // cols
        fig, axs = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.8 * rows), squeeze=False)
        for i, p in enumerate(panels):
            ax = axs[i // cols][i % cols]
            bottom = [0.0] * len(d.ns)
            for f in FIELDS + ("sync",):
                vals = []
                for n in d.ns:
                    a = d.agg(n, c, None if p == "Total" else [p])
                    den = a["insns"] if unit == "bpi" else a["cycles"]
                    vals.append(a["fields"][f] / den if den else 0)
                ax.bar([str(n) for n in d.ns], vals, bottom=bottom, color=colors[f],
                       label=FIELD_NAMES.get(f, "sync/end"))
                bottom = [b + v for b, v in zip(bottom, vals)]
            ax.set_title(p, fontsize=9)
            ax.set_xlabel("N", fontsize=8)
            ax.set_ylabel(unit, fontsize=8)
            ax.tick_params(labelsize=7)
        for j in range(len(panels), rows * cols):
            axs[j // cols][j % cols].axis("off")
        axs[0][0].legend(fontsize=6)
        fig.suptitle(f"Fig. {num}: {c} bits per {'instruction' if unit == 'bpi' else 'cycle'} by field vs N")
        fig.tight_layout()
        save(fig, f"fig{num}_{unit}_{c}", f"Fig. {num}: {c}, bits per {'instruction' if unit == 'bpi' else 'cycle'} "
             f"stacked by field (Ti, bCnt, diffTA, diffCC, sync/end) vs N; Total = all programs' bits / all "
             f"programs' {'instructions' if unit == 'bpi' else 'cycles'}", "stats bits_by_field of each recording")

    # Fig. 14: bandwidth over time, the two most demanding programs at the largest N
    c14 = d.pick("ttr_e-large", "tr_e-large")
    if c14:
        dem = sorted(((bpc(d.agg(nmax, c14, [p])), p) for p in d.programs), reverse=True)[:2]
        lines = [c for c in ("tnx_b-large", c14) if c in d.cfgs]
        fig, axs = plt.subplots(1, len(dem), figsize=(6 * len(dem), 3.4), squeeze=False)
        for ax, (_, p) in zip(axs[0], dem):
            for c in lines:
                x = d.get(p, nmax, c)
                if not x or not x.get("profile"):
                    continue
                pf = x["profile"]
                w = pf["window_cycles"]
                ys = [b / w for b in pf["timeline"]["bits"]]
                ax.plot([i * w / 1e6 for i in range(len(ys))], ys, label=c, lw=1)
            ax.set_title(f"{p}, N={nmax}", fontsize=9)
            ax.set_xlabel("cycles (millions)")
            ax.set_ylabel("bits/cycle per window")
            ax.set_yscale("log")
            ax.grid(alpha=.3)
            ax.legend(fontsize=7)
        w = next((d.get(p, nmax, c14)["profile"]["window_cycles"] for _, p in dem if d.get(p, nmax, c14)), 0)
        fig.suptitle(f"Fig. 14: bandwidth over time (one point per {w:,} cycles)")
        fig.tight_layout()
        save(fig, "fig14_timeline", f"Fig. 14: bits per cycle over time, one point per {w:,} cycles, for the two "
             f"programs with the highest {c14} bits per cycle at N={nmax}", "profile timeline of each recording")

    # the chunk-size exploration
    ce = d.pick("ttr_e-large", "tr_e-large")
    if ce:
        n, grid = chunk_grid(d, ce)
        dflt = default_chunks(d, ce)
        if grid:
            fig, axs = plt.subplots(1, len(grid), figsize=(4.3 * len(grid), 3.8), squeeze=False)
            for ax, (f, g) in zip(axs[0], grid.items()):
                im = ax.imshow(g, origin="lower", cmap="viridis", extent=(0.5, len(g) + .5, 0.5, len(g) + .5))
                a0, b0 = dflt[f]
                ax.plot([b0], [a0], "wo", ms=8, mfc="none", label=f"default ({a0},{b0})")
                best = min((g[a][b], a + 1, b + 1) for a in range(len(g)) for b in range(len(g)))
                ax.plot([best[2]], [best[1]], "r+", ms=10, label=f"best ({best[1]},{best[2]})")
                ax.set_xlabel("i1 (further chunks)")
                ax.set_ylabel("i0 (first chunk)")
                ax.set_title(f"{FIELD_NAMES[f]} bits per instruction", fontsize=9)
                ax.legend(fontsize=7)
                fig.colorbar(im, ax=ax, fraction=.046)
            fig.suptitle(f"TR_e chunk-size exploration ({ce}, N={n}, all programs)")
            fig.tight_layout()
            save(fig, "chunks", f"TR_e chunk sizes: each field's bits per instruction over (i0, i1), computed from "
                 f"the field-length histograms ({ce}, N={n}); circle: the default, cross: the best",
                 "profile histograms bcnt_len, diffta_len, diffcc_len")

    # loss curves
    if d.s.dl_configs:
        fig, axs = plt.subplots(1, len(d.s.dl_configs), figsize=(5 * len(d.s.dl_configs), 3.5), squeeze=False)
        for ax, dc in zip(axs[0], d.s.dl_configs):
            for b in d.s.dl_buffers:
                ys = []
                for pt in d.s.dl_ports:
                    a = d.agg(nmax, f"{dc}@p{pt}b{b}")
                    ys.append(100 * a["lost"] / max(1, a["insns"]))
                ax.plot(d.s.dl_ports, ys, marker="o", label=f"buffer {b:,} bits")
            ax.set_xscale("log", base=2)
            ax.set_xlabel("port width (bits/cycle)")
            ax.set_ylabel("% instructions in overflow gaps")
            ax.set_title(f"{dc}, N={nmax}", fontsize=9)
            ax.grid(alpha=.3)
            ax.legend(fontsize=7)
        fig.suptitle("Delivery: what a port and buffer lose")
        fig.tight_layout()
        save(fig, "loss_curve", f"Loss curves at N={nmax}: % of instructions in overflow gaps per port width and "
             f"buffer size (all programs together)", "stats buffer and lost_instructions of the delivery configurations")

    # Intel PT against NX_b, TR_e and time-stamped TR_e (large predictors), per program
    if d.pt:
        bars = [(c, lab, col) for c, lab, col in (
            ("nx_b-large", "NX_b-L", "#8c8c8c"), ("tr_e-large", "TR_e-L", "#4c72b0"), ("PT", "PT (no timing)", "#dd8452"),
            ("ttr_e-large", "tTR_e-L (time stamps)", "#55a868"), ("PT+cyc", "PT+cyc (TSC+MTC+CYC)", "#c44e52"))
            if c in d.cfgs or c in PT_FORMATS]
        panels = ["Total"] + d.programs
        cols = min(4, len(panels))
        rows = (len(panels) + cols - 1) // cols
        fig, axs = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.8 * rows), squeeze=False)
        w = 0.8 / len(bars)
        for i, p in enumerate(panels):
            ax = axs[i // cols][i % cols]
            progs = None if p == "Total" else [p]
            for k, (c, lab, col) in enumerate(bars):
                ys = [bpi(d.pt_agg(n, c, progs) if c in PT_FORMATS else d.agg(n, c, progs)) for n in d.ns]
                ax.bar([j + (k - (len(bars) - 1) / 2) * w for j in range(len(d.ns))], ys, w, color=col, label=lab)
            ax.set_xticks(range(len(d.ns)), [str(n) for n in d.ns])
            ax.set_title(p, fontsize=9)
            ax.set_xlabel("N", fontsize=8)
            ax.set_ylabel("bpi", fontsize=8)
            ax.tick_params(labelsize=7)
        for j in range(len(panels), rows * cols):
            axs[j // cols][j % cols].axis("off")
        fig.suptitle("Intel PT against the trace module: bits per instruction vs N")
        fig.tight_layout()
        h, lab = axs[0][0].get_legend_handles_labels()
        fig.legend(h, lab, loc="upper center", bbox_to_anchor=(0.5, 0), ncol=len(bars), fontsize=8)
        save(fig, "pt_bpi", "Intel PT against the trace module: bits per instruction vs N of NX_b-L, TR_e-L, "
             "tTR_e-L (time stamps), PT (user-only, no timing packets) and PT+cyc (TSC+MTC+CYC, cycle-accurate); "
             "Total = all programs' bits / all programs' instructions",
             "tm pt --timing-variants on each recording's commit stream (docs/pt.md); stats of nx_b-large, "
             "tr_e-large, ttr_e-large")
    return figs


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
    h += [f"<th>{html.escape(c)}</th>" for c in t.columns] + ["</tr>"]
    for r in t.rows:
        cls = ' class="total"' if "Total" in r[:2] else ""
        h.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(fmt(v))}</td>" for v in r) + "</tr>")
    h.append("</table>")
    return "\n".join(h)


def git_version():
    try:
        r = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "describe", "--always", "--dirty"],
                           capture_output=True, text=True, timeout=10)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def summary(d, tables):
    """The text summary: Table 5's totals, the NX_b / TR_e-L and PT / TR_e-L ratios."""
    out = []
    byname = {t.name: t for t in tables}
    for nm in ("table5", "table6"):
        t = byname.get(nm)
        if not t:
            continue
        out.append(f"\n{t.title}\n")
        out.append(f"{'':16}" + "".join(f"{c:>10}" for c in t.columns[2:-1]) + "  losses")
        for r in t.rows:
            if r[1] == "Total":
                out.append(f"{r[0]:16}" + "".join(f"{fmt(v):>10}" for v in r[2:-1]) + f"  {r[-1]}")
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
    return "\n".join(out) + "\n"


def pt_doc(pt):
    """results.json's "pt": tm pt's rows (PT, PT+mtc, PT+cyc) per recording, or why there are none."""
    pt = pt or {}
    return {"skipped": pt.get("skipped", "no Intel PT results given"), "options": pt.get("options"),
            "options_synthetic": pt.get("options_gen"),
            "recordings": [{"program": x["program"], "N": x["N"], "verified": x["verified"],
                            "verify": x["stats"].get("verify"), "pt_seconds": x.get("pt_seconds"),
                            "instructions": x["stats"]["instructions"], "cycles": x["stats"]["cycles"],
                            "bits": x["stats"]["bits"], "bpi": x["stats"]["bpi"], "bpc": x["stats"]["bpc"],
                            "rows": [{k: r[k] for k in ("format", "bits", "bpi", "bpc")}
                                     for r in x["stats"]["compare"]]}
                           for x in pt.get("results", [])]}


def write(outdir, study, results, version, run, pt=None):
    d = Data(study, results, pt)
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
           "pt": pt_doc(pt)}
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
         "font-size:11px;overflow-x:auto}.src{font-size:11px;color:#666}</style></head><body>",
         f"<h1>tm study: {html.escape(study.name)}{' (--quick)' if run['quick'] else ''}</h1>",
         f"<p>{len(d.programs)} programs; N = {', '.join(map(str, d.ns))}; {len(study.configs)} configurations; "
         f"{len(results)} results; every recording verified by replay ({html.escape(study.verify)}). "
         + (f"Intel PT (the rows PT, PT+mtc, PT+cyc of Tables 5 and 6, and the table pt; docs/pt.md): user-only "
            f"tracing of the same execution, computed from each recording's commit stream by tm pt; "
            f"{pt_verified} of its {len(d.pt)} recordings verified by libipt's decoder against the commit stream"
            f"{' (synthetic streams have no code to decode)' if pt_verified < len(d.pt) else ''}. " if d.pt else
            f"Intel PT: not computed ({html.escape(d.pt_skipped or 'no results')}). ") +
         f"Bandwidth demand is measured with a {study.port}-bit port and a {study.buffer:,}-bit buffer that drop "
         f"nothing; any row with losses says so. Generated {doc['generated']}; this run took {run['seconds']} s, "
         f"the recordings {rec_s:,.0f} s of recording time in all (each pass of all its configurations).</p>",
         f"<p>Tool: tm {html.escape(gv or '?')} (build-id {html.escape(version['tm'])}; Valgrind tool "
         f"{html.escape(str(version['valgrind_tool']))}). Everything here is also in "
         f'<a href="results.json">results.json</a> and <a href="tables/">tables/*.csv</a>.</p>',
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
