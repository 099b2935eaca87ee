"""Where the cores' cycles go (study/breakdown.py; docs/study.md, table and
figure cycle_breakdown): the shares of each part of the cores' cycles per
program and N and for all programs together, IPC per core, the data stall
split only where every core's split is known, recordings without a
breakdown left out, and the table, figure and summary of a report, on
hand-made machine objects whose numbers are worked out here by hand."""
import os

from studytest import TmpCase, report

import breakdown  # noqa: E402 (study/, on the path studytest set)

STUDY = """\
[study]
threads = [1, 2]
[configs]
presets = ["large"]
encodings = ["tr_e"]
timestamps = [false]
[[program]]
name = "A"
cmd = "true"
[[program]]
name = "B"
cmd = "true"
"""


def core(i, ins, busy, ifetch, data, l1, l2, mem, futex=0, join=0, store=0, load=0, ns=0, ended=0, clamped=0):
    return {"core": i, "instructions": ins, "ipc": 0,
            "cycles": {"busy": busy, "ifetch": ifetch, "data": data, "data_l1": l1, "data_l2": l2, "data_memory": mem,
                       "futex": futex, "join": join, "store": store, "load": load, "not_started": ns,
                       "ended": ended, "clamped": clamped}}


# A at N=1: 1000 cycles: busy 600, ifetch 100, data 300 (L1 100, L2 50, memory 150)
# A at N=2: 1000 cycles x 2 cores: core 0 busy 500 data 100 (all L1) join 400; core 1 busy 400 futex 300
#   store 100 load 50 not started 100 ended 50: parts over 2000 cycles
# B at N=1: 400 cycles, its data split unknown (null): "data" whole for B, and for the N=1 total
MACHINES = {
    ("A", 1): {"timing": "cores", "cycles": 1000, "cores": [core(0, 600, 600, 100, 300, 100, 50, 150)]},
    ("A", 2): {"timing": "cores", "cycles": 1000,
               "cores": [core(0, 500, 500, 0, 100, 100, 0, 0, join=400),
                         core(1, 400, 400, 0, 0, 0, 0, 0, futex=300, store=100, load=50, ns=100, ended=50)]},
    ("B", 1): {"timing": "cores", "cycles": 400, "cores": [core(0, 400, 300, 0, 100, None, None, None)]},
    ("B", 2): {"timing": "serial", "cycles": 300, "cores": None},      # no breakdown: left out
}


def stats(p, n):
    m = MACHINES[(p, n)]
    return {"total": {"bits": 10, "instructions": 1000, "lost_instructions": 0, "exceptions": 0,
                      "bits_by_field": {"ti": 0}, "messages": {"branch": 1},
                      "branches": dict.fromkeys(("cond", "cond_taken", "jump", "call", "ijump", "icall", "ret"), 0),
                      "outcome_predictions": 1, "outcome_mispredictions": 0, "target_predictions": 1,
                      "target_mispredictions": 0},
            "execution_cycles": m["cycles"], "threads": [{"instructions": 1000}] * n,
            "buffer": {"dropped_messages": 0, "peak_occupancy": 1}, "lossless": True,
            "config": {"chunks": {"bcnt": [3, 2], "ta": [4, 4], "cc": [3, 3]}}, "machine": m}


class Breakdown(TmpCase):
    def setUp(self):
        super().setUp()
        self.d = report.Data(self.study(STUDY), [{"program": p, "N": n, "config": "tr_e-large", "stats": stats(p, n),
                                                  "profile": None} for (p, n) in MACHINES],
                             {"skipped": "no PT here", "results": []})

    def test_rows(self):
        rs = {(r["program"], r["N"]): r for r in breakdown.rows(self.d)}
        self.assertEqual(set(rs), {("A", 1), ("A", 2), ("B", 1), ("all programs", 1)})   # B N=2: serial
        a1 = rs[("A", 1)]
        self.assertEqual((a1["cores"], a1["ipc_per_core"], a1["busy"], a1["ifetch"]), (1, 0.6, 60.0, 10.0))
        self.assertEqual((a1["data L1"], a1["data L2"], a1["data memory"], a1["data"]), (10.0, 5.0, 15.0, None))
        a2 = rs[("A", 2)]
        # 2000 core cycles: busy 900, data 100 (L1), futex 300, join 400, other's store 150, not started 100,
        # ended 50: 45 + 5 + 15 + 20 + 7.5 + 5 + 2.5 = 100
        self.assertEqual((a2["cores"], a2["ipc_per_core"]), (2, 0.45))
        self.assertEqual((a2["busy"], a2["data L1"], a2["futex"], a2["join"], a2["other's store"], a2["not started"],
                          a2["ended"], a2["clamped"]), (45.0, 5.0, 15.0, 20.0, 7.5, 5.0, 2.5, 0.0))
        self.assertAlmostEqual(sum(v for k, v in a2.items() if k.endswith(("busy", "ifetch", "L1", "L2", "memory",
                                                                           "futex", "join", "store", "started",
                                                                           "ended", "clamped")) and v), 100.0)
        b1 = rs[("B", 1)]
        self.assertEqual((b1["busy"], b1["data"], b1["data L1"]), (75.0, 25.0, None))
        # N=1 together: 1400 cycles; busy 900 (64.29%), the data split unknown for B: whole, 400 (28.57%)
        t = rs[("all programs", 1)]
        self.assertEqual((t["cores"], t["ipc_per_core"], t["busy"], t["data"], t["data L1"]),
                         ("1", round(1000 / 1400, 4), 64.29, 28.57, None))

    def test_table_figure_summary(self):
        t = breakdown.table(self.d)
        self.assertEqual(t.name, "cycle_breakdown")
        self.assertEqual(t.columns[:4], ["program", "N", "cores", "IPC per core"])
        self.assertIn("busy %", t.columns)
        self.assertEqual(len(t.rows), 4)
        self.assertEqual(t.rows[0][:4], ["A", 1, 1, 0.6])
        lines = breakdown.summary(self.d)
        self.assertTrue(any(line.startswith("  N=1: IPC per core 0.714, busy 64.3%, data 28.6%") for line in lines),
                        lines)
        fs = report.FigureSet(self.d, self.tmp)
        breakdown.figure(fs)
        self.assertEqual([f[0] for f in fs.figs], ["cycle_breakdown"])
        self.assertTrue(os.path.getsize(os.path.join(self.tmp, "figures", "cycle_breakdown.svg")) > 1000)

    def test_nothing_without_a_breakdown(self):
        d = report.Data(self.study(STUDY), [{"program": "B", "N": 2, "config": "tr_e-large", "stats": stats("B", 2),
                                             "profile": None}], {"skipped": "no PT here", "results": []})
        self.assertEqual(breakdown.rows(d), [])
        self.assertIsNone(breakdown.table(d))
        self.assertEqual(breakdown.summary(d), [])
