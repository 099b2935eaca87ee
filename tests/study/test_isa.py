"""Programs of several ISAs in a study (issue 37; docs/study.md "Programs of
other ISAs"): the [[program]] keys frontend, isa and compare_as, the {isa}
substitution, the pre-flight's ISA checks, the frontend in tm record's command
line and in the cache key, Intel PT for x86-64 recordings only, and the
report's table isa (bits per instruction of the same work across ISAs) on
hand-made results whose numbers are worked out here by hand."""
import os
import shutil
import unittest

from studytest import TmpCase, report, tm_study, write

# ELF headers (20 bytes: the magic, class 64, little endian, e_machine at 18)
def elf(path, machine):
    hdr = b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"\x02\x00" + machine.to_bytes(2, "little")
    p = write(path, hdr + b"\0" * 44, "wb")
    os.chmod(p, 0o755)
    return p


class Keys(TmpCase):
    def error(self, text):
        with self.assertRaises(tm_study.StudyError) as e:
            self.study(text)
        return str(e.exception).split(":", 1)[1]

    def test_defaults(self):
        s = self.study('[[program]]\nname = "zstd-rv64"\ncmd = "true"\n[[program]]\nname = "pigz"\ncmd = "true"\n')
        p, q = s.programs
        self.assertEqual((p["frontend"], p["isa"], p["compare_as"]), ("valgrind", None, "zstd"))
        self.assertEqual(q["compare_as"], "pigz")
        for nm, base in (("a-a64", "a"), ("a-aarch64", "a"), ("b-riscv64", "b"), ("c-x86", "c"), ("d-arm64", "d"),
                         ("e-foo", "e-foo"), ("a64", "a64")):
            s = self.study(f'[[program]]\nname = "{nm}"\ncmd = "true"\n')
            self.assertEqual(s.programs[0]["compare_as"], base, nm)

    def test_keys_given(self):
        s = self.study('[[program]]\nname = "x"\ncmd = "true"\nfrontend = "qemu"\nisa = "riscv64"\n'
                       'compare_as = "zstd"\n')
        p = s.programs[0]
        self.assertEqual((p["frontend"], p["isa"], p["compare_as"]), ("qemu", "riscv64", "zstd"))

    def test_errors(self):
        base = '[[program]]\nname = "x"\ncmd = "true"\n'
        self.assertEqual(self.error(base + 'frontend = "gdb"\n'),
                         "4: key 'program[0].frontend': 'gdb': allowed valgrind, pin, qemu")
        self.assertEqual(self.error(base + 'frontend = 3\n'),
                         "4: key 'program[0].frontend': expected str, got int 3")
        self.assertEqual(self.error(base + 'isa = "mips"\n'),
                         "4: key 'program[0].isa': 'mips': allowed x86-64, aarch64, riscv64")
        self.assertEqual(self.error(base + 'isa = "aarch64"\n'),
                         "4: key 'program[0].isa': 'aarch64': frontend valgrind records x86-64 programs "
                         "(frontend = \"qemu\" records aarch64 and riscv64)")
        self.assertEqual(self.error(base + 'frontend = "qemu"\nisa = "x86-64"\n'),
                         "5: key 'program[0].isa': 'x86-64': frontend qemu records aarch64, riscv64 programs")
        self.assertEqual(self.error(base + 'compare_as = "a/b"\n'),
                         "4: key 'program[0].compare_as': 'a/b': letters, digits and _.+- only")
        self.assertEqual(self.error('[[program]]\nname = "g"\ngen = { insns = 10 }\nfrontend = "qemu"\n'),
                         "4: key 'program[0].frontend': only for a program to record ('cmd'), not a synthetic "
                         "stream ('gen')")
        self.assertEqual(self.error(base.replace('"true"', '"{isa}/{arch}/p"')),
                         "3: key 'program[0].cmd': {arch}: allowed substitutions {N}, {input}, {programs}, {isa}")
        # env's values may hold other braces (OMP_PLACES = "{0:4}"): only the known names are substituted
        self.assertEqual(self.study(base + 'env = { OMP_PLACES = "{0:4}" }\n').programs[0]["env"],
                         {"OMP_PLACES": "{0:4}"})


class Units(TmpCase):
    def setUp(self):
        super().setUp()
        self.isa_dir = self.path("isa")
        self.a64 = elf(self.path("isa", "aarch64", "p"), 183)
        self.rv = elf(self.path("isa", "riscv64", "p"), 243)
        self.x86 = elf(self.path("x86", "p"), 62)

    def runner_of(self, text, plugin=True):
        s = self.study(text)
        tm = self.fake_tm()
        if plugin:
            write(self.path("lib", "qemu", "tm_qemu.so"), "plugin")
        r = tm_study.Runner(s, self.path("out"), tm, 1, False, False)
        r.isa_dir = self.isa_dir
        return s, r

    def test_isa_substitution_and_command_line(self):
        s, r = self.runner_of('[[program]]\nname = "p-a64"\ncmd = "{isa}/aarch64/p {N}"\nfrontend = "qemu"\n'
                              'env = { LD_LIBRARY_PATH = "{isa}/lib" }\nstdin = "{isa}/in.{N}"\n')
        write(self.path("isa", "in.2"), "x")
        u = r.unit(s.programs[0], 2)
        self.assertEqual(u["argv"], [self.a64, "2"])
        self.assertEqual(u["env"], {"LD_LIBRARY_PATH": self.isa_dir + "/lib"})
        self.assertEqual(u["stdin"], self.path("isa", "in.2"))
        self.assertEqual((u["isa"], u["frontend"], u["pt"]), ("aarch64", "qemu", False))
        self.assertEqual(u["ident"]["frontend"], "qemu")
        self.assertEqual(u["ident"]["stdin"], "{isa}/in.2")      # the key does not hold the folder's path
        if shutil.which("qemu-aarch64"):
            self.assertEqual(u["problems"], [])

    def test_frontend_in_the_cache_key(self):
        text = '[[program]]\nname = "p"\ncmd = "{isa}/aarch64/p"\nfrontend = "qemu"\n'
        s, r = self.runner_of(text)
        k1 = r.unit(s.programs[0], 1)["keys"]
        s.programs[0]["frontend"] = "pin"
        u = r.unit(s.programs[0], 1)
        self.assertNotEqual(k1, u["keys"])
        self.assertIn("frontend pin records x86-64 programs", u["problems"][0])

    def test_preflight_isa(self):
        s, r = self.runner_of(f'[[program]]\nname = "a"\ncmd = "{self.a64}"\n'
                              f'[[program]]\nname = "b"\ncmd = "{self.x86}"\nfrontend = "qemu"\n'
                              f'[[program]]\nname = "c"\ncmd = "{{isa}}/aarch64/missing"\nfrontend = "qemu"\n'
                              f'[[program]]\nname = "d"\ncmd = "{self.rv}"\nfrontend = "qemu"\nisa = "aarch64"\n')
        a, b, c, d = (r.unit(p, 1)["problems"][0] for p in s.programs)
        self.assertEqual(a, f"{self.a64}: an aarch64 ELF file; frontend valgrind records x86-64 programs "
                            f"(frontend = \"qemu\" records aarch64)")
        self.assertEqual(b, f"{self.x86}: an x86-64 ELF file; frontend qemu records aarch64 and riscv64 programs "
                            f"(frontend = \"valgrind\" records x86-64)")
        self.assertEqual(c, f"{self.isa_dir}/aarch64/missing: no such file (make isa-programs builds it)")
        self.assertEqual(d, f"{self.rv}: a riscv64 program, but the study file says isa = \"aarch64\"")

    def test_no_plugin_or_qemu(self):
        s, r = self.runner_of(f'[[program]]\nname = "a"\ncmd = "{self.a64}"\nfrontend = "qemu"\n', plugin=False)
        pr = r.unit(s.programs[0], 1)["problems"]
        self.assertEqual(len(pr), 1)
        self.assertRegex(pr[0], r"qemu-aarch64 not found on PATH|tm_qemu.so: no such file \(make builds")

    def test_pt_x86_only(self):
        s, r = self.runner_of(f'[[program]]\nname = "a"\ncmd = "{self.a64}"\nfrontend = "qemu"\n'
                              f'[[program]]\nname = "b"\ncmd = "{self.x86}"\n')
        ua, ub = r.unit(s.programs[0], 1), r.unit(s.programs[1], 1)
        self.assertFalse(r.pt_missing(ua))
        self.assertTrue(r.pt_missing(ub))
        self.assertEqual(tm_study.load_pt(r, [ua, ub])[1], ["b-N1/Intel PT"])

    def test_recording_isa(self):
        self.assertEqual(tm_study.recording_isa({"recording": {"ending": "complete"}}), "x86-64")
        self.assertEqual(tm_study.recording_isa({"recording": {"isa": "riscv64"}}), "riscv64")
        self.assertEqual(tm_study.recording_isa({}), "x86-64")
        self.assertEqual(tm_study.exe_isa(self.rv), "riscv64")

    def test_default_study_has_the_isa_sets(self):
        text = tm_study.DEFAULT_STUDY.replace("@PRESETS@", '["large"]').replace("@ENCODINGS@", '["nx_b", "tr_e"]') \
            .replace("@DELIVERY@", '["tr_e-large"]')
        s = self.study(text)
        byname = {p["name"]: p for p in s.programs}
        for nm in ("pigz-a64", "xz-a64", "zstd-a64", "mt_pthread-a64", "zstd-rv64", "xz-rv64", "mt_pthread-rv64"):
            self.assertEqual(byname[nm]["frontend"], "qemu", nm)
            twin = byname[byname[nm]["compare_as"]]
            self.assertEqual(twin["input"], byname[nm]["input"], nm)       # the same work
            self.assertEqual(twin["cmd"][1:], byname[nm]["cmd"][1:], nm)
        self.assertIn("tr_a-tage-l", [c["name"] for c in s.configs])
        s.apply_quick()
        self.assertEqual({p["frontend"] for p in s.programs}, {"valgrind"})   # --quick: x86-64 only


# (program, N): instructions, bits of nx_b-large, tr_e-large
RUNS = {("z", 1): (1000, 500, 100), ("z", 2): (1000, 600, 120),
        ("z-a64", 1): (800, 480, 64), ("z-a64", 2): (800, 560, 96),
        ("z-rv64", 1): (1600, 640, 80), ("z-rv64", 2): (1600, 800, 160),
        ("m", 1): (2000, 1000, 200), ("m", 2): (2000, 1000, 200),
        ("m-a64", 1): (1000, 700, 300), ("m-a64", 2): (1000, 700, 300),
        ("only", 1): (10, 10, 10), ("only", 2): (10, 10, 10)}
ISA = {"z": None, "z-a64": "aarch64", "z-rv64": "riscv64", "m": None, "m-a64": "aarch64", "only": None}

STUDY = """\
[study]
threads = [1, 2]
[configs]
presets = ["large"]
encodings = ["nx_b", "tr_e"]
timestamps = [false]
""" + "".join(f'[[program]]\nname = "{p}"\ncmd = "true"\n' for p in ISA)


def result(p, n, c):
    ins, nx, tr = RUNS[(p, n)]
    bits = nx if c == "nx_b-large" else tr
    rec = {"ending": "complete"} | ({"isa": ISA[p]} if ISA[p] else {})
    return {"program": p, "N": n, "config": c, "profile": None,
            "stats": {"total": {"bits": bits, "instructions": ins, "lost_instructions": 0, "bits_by_field": {},
                                "messages": {}, "exceptions": 0, "outcome_predictions": 0,
                                "outcome_mispredictions": 0, "target_predictions": 0, "target_mispredictions": 0,
                                "branches": dict.fromkeys(("cond", "cond_taken", "jump", "call", "ijump", "icall",
                                                           "ret"), 0)},
                      "execution_cycles": ins, "threads": [{"instructions": ins}] * n,
                      "buffer": {"dropped_messages": 0}, "recording": rec}}


class Table(TmpCase):
    def setUp(self):
        super().setUp()
        self.s = self.study(STUDY)
        self.res = [result(p, n, c["name"]) for c in self.s.configs for (p, n) in RUNS]
        self.d = report.Data(self.s, self.res, {"skipped": None, "results": [],
                                                "not_x86": [["z-a64", "aarch64"], ["z-rv64", "riscv64"]]})

    def test_groups(self):
        gs, isas = report.isa_groups(self.d)
        self.assertEqual(gs, [("z", {"x86-64": "z", "aarch64": "z-a64", "riscv64": "z-rv64"}),
                              ("m", {"x86-64": "m", "aarch64": "m-a64"})])     # "only": one ISA, left out
        self.assertEqual(isas, ["x86-64", "aarch64", "riscv64"])

    def test_table(self):
        t = report.isa_table(self.d)
        self.assertEqual(t.columns, ["program", "N", "configuration", "x86-64 bpi", "aarch64 bpi", "riscv64 bpi",
                                     "aarch64 / x86-64", "riscv64 / x86-64", "x86-64 instructions",
                                     "aarch64 instructions", "riscv64 instructions",
                                     "threads ran (x86-64 / aarch64 / riscv64)", "programs"])
        rows = {tuple(r[:3]): r[3:] for r in t.rows}
        # z at N=1, tr_e-large: 100/1000, 64/800, 80/1600; ratios 0.08/0.1, 0.05/0.1
        self.assertEqual(rows[("z", 1, "tr_e-large")],
                         [0.1, 0.08, 0.05, 0.8, 0.5, 1000, 800, 1600, "1 / 1 / 1", "z, z-a64, z-rv64"])
        # m has no riscv64 build
        self.assertEqual(rows[("m", 2, "nx_b-large")], [0.5, 0.7, None, 1.4, None, 2000, 1000, None, "2 / 2 / -",
                                                        "m, m-a64"])
        # Total at N=1, tr_e-large: x86-64 (100+200)/(1000+2000), aarch64 (64+300)/(800+1000),
        # riscv64 80/1600; aarch64 / x86-64 over z and m: 0.20222/0.1; riscv64 / x86-64 over z only: 0.05/0.1
        tot = rows[("Total", 1, "tr_e-large")]
        self.assertEqual(tot[:3], [0.1, round(364 / 1800, 5), 0.05])
        self.assertEqual(tot[3:5], [round((364 / 1800) / 0.1, 3), 0.5])
        self.assertEqual(tot[5:8], [3000, 1800, 1600])
        self.assertNotIn(("only", 1, "tr_e-large"), rows)

    def test_in_tables_summary_and_figure(self):
        ts = {"isa": report.isa_table(self.d)}
        text = report.summary(self.d, list(ts.values()))
        self.assertIn("not for z-a64 (aarch64), z-rv64 (riscv64)", text.replace("\n  ", " "))
        line = next(l for l in text.splitlines() if l.startswith("z ") and "tr_e-large" in l)
        self.assertEqual(line.split()[:8], ["z", "1", "tr_e-large", "0.10000", "0.08000", "0.05000", "0.800", "0.500"])
        bars = report.isa_bars(ts["isa"])
        self.assertEqual(bars["tr_e-large"][0], [("z", 1), ("z", 2), ("m", 1), ("m", 2)])
        self.assertEqual(bars["tr_e-large"][1]["riscv64"], [0.05, 0.1, 0.0, 0.0])

    def test_one_isa_no_table(self):
        s = self.study(STUDY.split("[[program]]")[0] + '[[program]]\nname = "z"\ncmd = "true"\n')
        d = report.Data(s, [result("z", n, c["name"]) for c in s.configs for n in (1, 2)], {})
        self.assertIsNone(report.isa_table(d))


if __name__ == "__main__":
    unittest.main()
