"""Where each core's cycles go (docs/study.md, table cycle_breakdown and the
figure cycle_breakdown): for each program and N, from its recording's
statistics ("machine": "cores", tm record's timing model, docs/capture.md
section 3), the share of the cores' cycles (cycles x cores that ran) spent
busy (instructions at the base CPI), stalled on instruction fetch, stalled on
data (the L1, the L2, memory), waiting on a synchronization (a futex wait:
a lock, a barrier, a condition; a join), waiting on another thread's store
(or, with values captured, load), not yet started, already ended, and moved
by the merge (clamped), beside IPC per core: why a program does or does not
scale.  Each core's parts add up to the recording's cycles, so the shares
of a row add up to 100%."""

# (column, the cores' cycle keys it adds up), in the order the table and the figure show them
PARTS = (("busy", ("busy",)), ("ifetch", ("ifetch",)), ("data L1", ("data_l1",)), ("data L2", ("data_l2",)),
         ("data memory", ("data_memory",)), ("data", ("data",)), ("futex", ("futex",)), ("join", ("join",)),
         ("other's store", ("store", "load")), ("not started", ("not_started",)), ("ended", ("ended",)),
         ("clamped", ("clamped",)))
# the figure's colours, one per part (a tab10-like palette, distinguishable in grey too)
COLOURS = ("#4c72b0", "#dd8452", "#c4ad66", "#937860", "#8c564b", "#a6761d", "#c44e52", "#da8bc3", "#8172b3",
           "#cccccc", "#8c8c8c", "#000000")


def machine(d, p, n):
    """The "machine" of program P's recording at N with its cores' cycles, or None
    (a synthetic stream's, --timing serial, or statistics without the breakdown)."""
    m = d.machine(p, n)
    if not m or m.get("timing") != "cores" or not m.get("cores"):
        return None
    return m


def parts(m):
    """The cycles of machine M by part (PARTS' columns) over all its cores, and the
    cores' total (cycles x cores): "data" whole, and its split into L1, L2 and
    memory where every core's split is known (else those None)."""
    cores = m["cores"]
    split = all(c["cycles"].get("data_l1") is not None for c in cores)
    out = {}
    for col, keys in PARTS:
        out[col] = None if col.startswith("data ") and not split else \
            sum(c["cycles"].get(k) or 0 for c in cores for k in keys)
    return out, m["cycles"] * len(cores)


def rows(d):
    """One dict per (program, N) with a breakdown, then per N the programs together:
    program, N, threads that ran, IPC per core (instructions / (cycles x cores)),
    and each part's share of the cores' cycles in % (None: not split)."""
    out, tot = [], {}
    for p in d.programs:
        for n in d.ns:
            m = machine(d, p, n)
            if not m:
                continue
            ps, total = parts(m)
            ins = sum(c["instructions"] for c in m["cores"])
            out.append(row(p, n, len(m["cores"]), ins, total, ps))
            t = tot.setdefault(n, {"ins": 0, "total": 0, "cores": [], "parts": {}})
            t["ins"] += ins
            t["total"] += total
            t["cores"].append(len(m["cores"]))
            for k, v in ps.items():
                t["parts"][k] = None if v is None or t["parts"].get(k, 0) is None else t["parts"].get(k, 0) + v
    for n, t in sorted(tot.items()):
        if len(t["cores"]) > 1:
            c = t["cores"]
            ran = str(c[0]) if min(c) == max(c) else f"{sum(c) / len(c):.1f} avg, {min(c)}-{max(c)}"
            out.append(row("all programs", n, ran, t["ins"], t["total"], t["parts"]))
    return out


def row(p, n, ran, ins, total, ps):
    """A row of rows(): the data stall split where known, else whole."""
    ps = dict(ps)
    if ps["data L1"] is not None:
        ps["data"] = None
    pct = {k: (None if v is None else round(100 * v / total, 2) if total else 0.0) for k, v in ps.items()}
    return {"program": p, "N": n, "cores": ran, "ipc_per_core": round(ins / total, 4) if total else None, **pct}


def table(d):
    """The report's table cycle_breakdown (a report.Table), or None without a breakdown."""
    import report
    rs = rows(d)
    if not rs:
        return None
    cols = [c for c, _ in PARTS if any(r[c] is not None for r in rs)]
    t = report.Table("cycle_breakdown", "Where the cores' cycles go (the timing model, docs/capture.md section 3): "
                     "per program and N, the share of the cycles of all its cores (execution cycles x cores) "
                     "busy at the base CPI, stalled on instruction fetch or data (the L1, the L2, memory), waiting "
                     "in a futex wait (a lock, a barrier, a condition) or a join, waiting on another thread's "
                     "store, not yet started or already ended, and moved by the merge (clamped), beside IPC per "
                     "core; a row's shares add up to 100%",
                     ["program", "N", "cores", "IPC per core"] + [f"{c} %" for c in cols])
    t.extra["parts"] = {c: list(k) for c, k in PARTS}
    for r in rs:
        t.add(r["program"], r["N"], r["cores"], r["ipc_per_core"], *[r[c] for c in cols])
    return t


def figure(fs):
    """The figure cycle_breakdown: per program a panel, per N a bar of the cores'
    cycles stacked by part (in %), IPC per core over each bar."""
    d, plt = fs.d, fs.plt
    rs = [r for r in rows(d) if r["program"] != "all programs"]
    if not rs:
        return
    progs = list(dict.fromkeys(r["program"] for r in rs))
    cols = [c for c, _ in PARTS if any(r[c] for r in rs)]
    fig, axes = fs.grid(len(progs), w=3.0, h=2.8)
    for i_ax, (ax, p) in enumerate(zip(axes, progs)):
        mine = [r for r in rs if r["program"] == p]
        x = list(range(len(mine)))
        base = [0.0] * len(mine)
        for c in cols:
            v = [r[c] or 0.0 for r in mine]
            ax.bar(x, v, bottom=base, color=COLOURS[[k for k, _ in PARTS].index(c)], width=0.7, label=c)
            base = [a + b for a, b in zip(base, v)]
        for i, r in enumerate(mine):
            ax.text(i, 101, f"{r['ipc_per_core']:.2f}", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(x)
        ax.set_xticklabels([f"N={r['N']}" for r in mine])
        ax.set_ylim(0, 112)
        ax.set_title(p)
        if i_ax % 4 == 0:  # the first panel of its row
            ax.set_ylabel("% of the cores' cycles")
    h, lab = axes[0].get_legend_handles_labels()
    fs.legend_below(fig, h, lab, ncol=min(6, len(lab)))
    fs.save(fig, "cycle_breakdown", "Where the cores' cycles go, per program and N (table cycle_breakdown); the "
            "number over each bar is IPC per core",
            "per recording: the timing model's per-core cycles (BASE.json machine.cores[].cycles) summed over "
            "the cores, over execution cycles x cores")


def summary(d):
    """The summary's lines: per N, all programs together, IPC per core and the
    three largest parts beside busy; nothing without a breakdown."""
    import report
    rs = [r for r in rows(d) if r["program"] == "all programs" or len(d.programs) == 1]
    if not rs:
        return []
    out = ["\n" + report.wrap("Where the cores' cycles go (table cycle_breakdown, all programs together): IPC per "
                              "core, busy, and the largest other parts, in % of the cores' cycles.", 110)]
    for r in rs:
        rest = sorted(((r[c], c) for c, _ in PARTS if c != "busy" and r[c]), reverse=True)[:3]
        out.append(f"  N={r['N']}: IPC per core {r['ipc_per_core']:.3f}, busy {r['busy']:.1f}%"
                   + "".join(f", {c} {v:.1f}%" for v, c in rest))
    return out
