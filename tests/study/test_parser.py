"""The study file parser (study/tm_study.py Study; docs/study.md "The study
file"): every key of a valid file, the per-N substitution of {N}, {input} and
{programs} in a unit, and the one-line FILE:LINE: key '...' errors."""
import os
import subprocess
import sys
import unittest

from studytest import ROOT, TmpCase, tm_study, write

FULL = """\
[study]
name = "mine"
threads = [1, 2, 4]
verify = "binary"
timing = "--cpi 1.5"
cores = "{N}"
pt = false

[demand]
port = 512
buffer = 4096

[configs]
presets = ["small", "large"]
encodings = ["nx_b", "tr_e"]
timestamps = [false, true]
sharing = ["private", "shared"]
options = "--ts-bits 32"

[[data]]
name = "cfiat-tool"
options = "--cfiat --cache tool"

[[config]]
name = "tr_e-c42"
options = "--encoding tr_e --config large --chunks-bcnt 4,2"

[delivery]
configs = ["nx_b-large", "tr_e-large"]
ports = [1, 8]
buffers = [512, 4096]

[chunks]
max = 6

[[program]]
name = "pigz"
cmd = "pigz -p {N} -c {input}"
input = "text:2M"
env = { OMP_NUM_THREADS = "{N}" }
threads = [1, 2]
cores = "auto"

[[program]]
name = "barnes"
cmd = ["./BARNES", "-n", "{N}"]
cwd = "splash2/barnes"
stdin = "splash2/barnes/input.{N}"
setup = "sed 's/NPROC/{N}/' input.tmpl > input.{N}"
expect = "COMPUTESTART"
cores = 8

[[program]]
name = "fmm"
cmd = "./FMM"
cwd = "splash2/fmm"
input = "splash2/fmm/in.{N}"
stdin = "{input}"

[[program]]
name = "synthetic"
gen = { insns = 2000, seed = 7, mem = true }

[quick]
threads = [1, 2]
programs = ["pigz", "synthetic"]
inputs = { pigz = "text:256K" }
"""


class ValidFile(TmpCase):
    def setUp(self):
        super().setUp()
        self.s = self.study(FULL)

    def test_study_section(self):
        s = self.s
        self.assertEqual(s.name, "mine")
        self.assertEqual(s.threads, [1, 2, 4])
        self.assertEqual(s.verify, "binary")
        self.assertEqual(s.timing, ["--cpi", "1.5"])
        self.assertEqual(s.cores, "{N}")
        self.assertIs(s.pt, False)
        self.assertEqual(s.pt_skipped(), "pt = false in the study file")
        # standards (tm std) default on, but verify = "binary" keeps no commit stream
        self.assertIs(s.standards, True)
        self.assertIn('tm std needs one: verify = "commit"', s.std_skipped())
        self.assertEqual((s.port, s.buffer), (512, 4096))
        self.assertEqual(s.presets, ["small", "large"])
        self.assertEqual(s.encodings, ["nx_b", "tr_e"])
        self.assertEqual(s.tstamps, [False, True])
        self.assertEqual(s.sharing, ["private", "shared"])
        self.assertEqual(s.grid_opts, ["--ts-bits", "32"])
        self.assertEqual(s.data, [("cfiat-tool", ["--cfiat", "--cache", "tool"])])
        self.assertEqual(s.extra, [("tr_e-c42", ["--encoding", "tr_e", "--config", "large", "--chunks-bcnt", "4,2"])])
        self.assertEqual((s.dl_configs, s.dl_ports, s.dl_buffers), (["nx_b-large", "tr_e-large"], [1, 8], [512, 4096]))
        self.assertEqual(s.chunk_max, 6)
        self.assertEqual(s.dir, self.tmp)          # relative paths: the study file's folder

    def test_programs(self):
        by = {p["name"]: p for p in self.s.programs}
        self.assertEqual(list(by), ["pigz", "barnes", "fmm", "synthetic"])
        pz = by["pigz"]
        self.assertEqual(pz["cmd"], ["pigz", "-p", "{N}", "-c", "{input}"])   # a string: shell words
        self.assertEqual((pz["input"], pz["env"], pz["threads"], pz["cores"]),
                         ("text:2M", {"OMP_NUM_THREADS": "{N}"}, [1, 2], "auto"))
        b = by["barnes"]
        self.assertEqual(b["cmd"], ["./BARNES", "-n", "{N}"])                  # a list: as given
        self.assertEqual((b["cwd"], b["stdin"], b["setup"], b["expect"], b["cores"], b["threads"]),
                         ("splash2/barnes", "splash2/barnes/input.{N}", "sed 's/NPROC/{N}/' input.tmpl > input.{N}",
                          "COMPUTESTART", 8, None))
        f = by["fmm"]
        self.assertEqual((f["input"], f["stdin"], f["cores"]), ("splash2/fmm/in.{N}", "{input}", "{N}"))  # study's cores
        g = by["synthetic"]
        self.assertEqual((g["cmd"], g["gen"], g["env"]), (None, {"insns": 2000, "seed": 7, "mem": True}, {}))
        self.assertEqual([p["index"] for p in self.s.programs], [0, 1, 2, 3])

    def test_configs(self):
        cs = self.s.configs
        # 2 sharing x 2 time stamps x 2 encodings x 2 presets, 1 [[data]], 1 [[config]],
        # 2 delivery configurations x 2 buffers x 2 ports
        self.assertEqual(len(cs), 16 + 1 + 1 + 8)
        names = [c["name"] for c in cs]
        self.assertEqual(names[:8], ["nx_b-small", "nx_b-large", "tr_e-small", "tr_e-large",
                                     "tnx_b-small", "tnx_b-large", "ttr_e-small", "ttr_e-large"])
        self.assertEqual(names[8:16], [n + "-shared" for n in names[:8]])
        self.assertEqual(names[16:18], ["tr_e-large+cfiat-tool", "tr_e-c42"])
        self.assertEqual(names[18:], ["nx_b-large@p1b512", "nx_b-large@p8b512", "nx_b-large@p1b4096",
                                      "nx_b-large@p8b4096", "tr_e-large@p1b512", "tr_e-large@p8b512",
                                      "tr_e-large@p1b4096", "tr_e-large@p8b4096"])
        by = {c["name"]: c for c in cs}
        self.assertEqual(by["ttr_e-large-shared"]["opts"],
                         ["--config", "large", "--encoding", "tr_e", "--timestamps", "--shared", "--ts-bits", "32",
                          "--port", "512", "--buffer", "4096"])
        self.assertEqual(by["tr_e-large+cfiat-tool"]["opts"],
                         ["--config", "large", "--encoding", "tr_e", "--cfiat", "--cache", "tool",
                          "--port", "512", "--buffer", "4096"])
        self.assertEqual(by["tr_e-c42"]["opts"][-4:], ["--port", "512", "--buffer", "4096"])
        self.assertEqual(by["tr_e-large@p8b4096"]["opts"],
                         ["--config", "large", "--encoding", "tr_e", "--ts-bits", "32", "--port", "8", "--buffer", "4096"])
        self.assertEqual((by["tr_e-large@p8b4096"]["kind"], by["tr_e-large@p8b4096"]["of"]), ("delivery", "tr_e-large"))

    def test_quick(self):
        self.s.apply_quick()
        self.assertEqual(self.s.threads, [1, 2])
        self.assertEqual([p["name"] for p in self.s.programs], ["pigz", "synthetic"])
        self.assertEqual(self.s.programs[0]["input"], "text:256K")

    def test_defaults(self):
        s = self.study('[[program]]\nname = "p"\ncmd = "true"\n')
        self.assertEqual((s.name, s.threads, s.verify, s.timing, s.cores, s.pt), ("study", [1, 2, 4, 8], "commit", [],
                                                                                  "auto", True))
        self.assertEqual((s.port, s.buffer, s.chunk_max), (1024, 65536, 8))
        self.assertIsNone(s.pt_skipped())
        # every preset x encoding, without and with time stamps, private
        self.assertEqual(len(s.configs), 2 * len(s.all_presets) * len(s.all_encodings))
        p = s.programs[0]
        self.assertEqual((p["cmd"], p["stdin"], p["cwd"], p["setup"], p["expect"], p["input"]),
                         (["true"], None, None, None, None, None))

    def test_copy_resolves_in_original_folder(self):
        # DIR/study.toml, the copy a study keeps, names the original's folder
        orig = self.path("orig")
        os.makedirs(orig)
        s = self.study(f"# tm study: the study file x.toml, as run\n# tm-study-base: {orig}\n"
                       '[[program]]\nname = "p"\ncmd = "true"\n', name="out/study.toml")
        self.assertEqual(s.dir, orig)


class Units(TmpCase):
    """Per-N substitution in the units a Runner plans (no program is run)."""

    TEXT = """\
[study]
threads = [1, 2, 3]
timing = "--cpi 2"
[configs]
presets = ["large"]
encodings = ["tr_e"]
timestamps = [false]
[[program]]
name = "p"
cmd = "{programs}/mt_prog {N} {input}"
cwd = "d{N}"
input = "in.{N}.txt"
stdin = "{input}"
setup = "cp tmpl {input} && echo {N}"
expect = "done {N}"
env = { T = "{N}", I = "{input}", P = "{programs}" }
cores = "{N}"
"""

    def setUp(self):
        super().setUp()
        self.s = self.study(self.TEXT)
        self.r = self.runner(self.s)

    def test_substitution(self):
        u = self.r.unit(self.s.programs[0], 2)
        progs = os.path.join(ROOT, "build", "programs")
        inp = os.path.join(self.tmp, "in.2.txt")
        self.assertEqual(u["id"], "p-N2")
        self.assertEqual(u["argv"], [progs + "/mt_prog", "2", inp])
        self.assertEqual(u["input_path"], inp)
        self.assertEqual(u["stdin"], inp)                         # stdin = "{input}"
        self.assertEqual(u["cwd"], os.path.join(self.tmp, "d2"))
        self.assertEqual(u["setup"], f"cp tmpl {inp} && echo 2")
        self.assertEqual(u["expect"], "done 2")
        self.assertEqual(u["env"], {"T": "2", "I": inp, "P": progs})
        self.assertEqual(u["cores"], "2")
        # the paper's L2: N x 64 KB, N rounded down to a power of two
        self.assertEqual(u["timing"], ["--cpi", "2", "--l2", "128K"])
        self.assertEqual(self.r.unit(self.s.programs[0], 3)["timing"], ["--cpi", "2", "--l2", "128K"])
        self.assertEqual(self.r.unit(self.s.programs[0], 1)["timing"], ["--cpi", "2", "--l2", "64K"])
        # the key names the input, not its path; the setup as written
        self.assertEqual(u["ident"]["args"], ["2", "{input}"])
        self.assertEqual(u["ident"]["setup"], "cp tmpl {input} && echo {N}")
        self.assertEqual((u["ident"]["cwd"], u["ident"]["stdin"]), ("d2", "{input}"))
        self.assertEqual(u["ident"]["files"], {"{input}": "written by the setup", "stdin": "{input}"})

    def test_preflight_problems(self):
        u = self.r.unit(self.s.programs[0], 1)
        # the cwd is missing: that is the problem (the executable is not looked at)
        self.assertEqual(u["problems"], [f"cwd {os.path.join(self.tmp, 'd1')}: no such directory"])
        os.makedirs(self.path("d1"))
        progs = os.path.join(ROOT, "build", "programs")
        u = self.runner(self.s, out="out2").unit(self.s.programs[0], 1)
        self.assertEqual(u["problems"], [f"{tm_study.shown(progs + '/mt_prog')}: no such file (make programs builds it)"])

    def test_study_timing_l2_wins(self):
        s = self.study(self.TEXT.replace('timing = "--cpi 2"', 'timing = "--l2 1M"'), name="t.toml")
        self.assertEqual(self.runner(s).unit(s.programs[0], 2)["timing"], ["--l2", "1M"])

    def test_program_threads_and_quick(self):
        s = self.study('[study]\nthreads = [1, 2, 4, 8]\n[[program]]\nname = "a"\ncmd = "true"\nthreads = [1, 3]\n'
                       '[[program]]\nname = "b"\ncmd = "true"\n', name="q.toml")
        self.assertEqual([u["id"] for u in self.runner(s).units()],
                         ["a-N1", "a-N3", "b-N1", "b-N2", "b-N4", "b-N8"])

    def test_exe_problem(self):
        junk = write(self.path("junk"), "hello\n")
        os.chmod(junk, 0o755)
        self.assertEqual(tm_study.exe_problem(junk, "junk", self.tmp + "/none"),
                         f"{junk}: neither an ELF executable nor a script (#!)")
        noexec = write(self.path("noexec"), "#!/bin/sh\n")
        self.assertEqual(tm_study.exe_problem(noexec, "noexec", self.tmp + "/none"), f"{noexec}: not an executable file")
        self.assertEqual(tm_study.exe_problem(None, "frob", self.tmp),
                         "frob: not found on PATH (make deps installs the default study's programs)")
        script = write(self.path("ok.sh"), "#!/bin/sh\necho\n")
        os.chmod(script, 0o755)
        self.assertIsNone(tm_study.exe_problem(script, "ok.sh", self.tmp + "/none"))   # /bin/sh: x86-64 ELF


MIN = """\
[study]
threads = [1, 2]

[[program]]
name = "p"
cmd = "true"
"""


class Errors(TmpCase):
    """Malformed values: one line FILE:LINE: key 'K': message (docs/study.md)."""

    def error(self, text):
        p = self.path("e.toml")
        with self.assertRaises(tm_study.StudyError) as cm:
            self.study(text, name="e.toml")
        msg = str(cm.exception)
        self.assertNotIn("\n", msg)
        self.assertTrue(msg.startswith(p + ":"), msg)
        return msg[len(p) + 1:]                     # LINE: ...

    def test_section_as_a_value(self):
        # `program = 3` was a TypeError traceback (line_of had no line for a
        # section that is not there as one)
        self.assertEqual(self.error("program = 3\n"),
                         "1: 'program' must be an array of tables ([[program]])")
        self.assertEqual(self.error('[study]\nthreads = [1]\n[program]\nname = "x"\n'),
                         "3: 'program' must be an array of tables ([[program]])")

    def test_minimal_is_valid(self):
        s = self.study(MIN)
        self.assertEqual([p["name"] for p in s.programs], ["p"])

    def test_cores_banana(self):
        self.assertEqual(self.error(MIN + 'cores = "banana"\n'),
                         """7: key 'program[0].cores': 'banana': allowed "auto", a number 1..1024 or "{N}\"""")

    def test_cores_zero(self):
        self.assertEqual(self.error(MIN.replace("threads = [1, 2]", "cores = 0")),
                         """2: key 'study.cores': 0: allowed auto, 1..1024 or "{N}\"""")
        self.assertEqual(self.error(MIN + 'cores = "2000"\n'),
                         """7: key 'program[0].cores': '2000': allowed auto, 1..1024 or "{N}\"""")

    def test_cmd_empty_string(self):
        self.assertEqual(self.error(MIN.replace('cmd = "true"', 'cmd = ""')),
                         "6: key 'program[0].cmd': empty: the program to record and its arguments")

    def test_cmd_empty_list(self):
        self.assertEqual(self.error(MIN.replace('cmd = "true"', 'cmd = []')),
                         "6: key 'program[0].cmd': empty: the program to record and its arguments")

    def test_cmd_unclosed_quote(self):
        self.assertEqual(self.error(MIN.replace('cmd = "true"', 'cmd = "sh -c \'echo"')),
                         """6: key 'program[0].cmd': "sh -c 'echo": No closing quotation (shell words: close the quote)""")

    def test_cmd_list_of_non_strings(self):
        self.assertEqual(self.error(MIN.replace('cmd = "true"', 'cmd = ["a", 1]')),
                         "6: key 'program[0].cmd': a list of strings")

    def test_config_name_slash(self):
        self.assertEqual(self.error(MIN + '\n[[config]]\nname = "x/y"\noptions = "--encoding tr_e"\n'),
                         "9: key 'config[0].name': 'x/y': a configuration name is part of file names: "
                         "letters, digits and _.+- only")

    def test_program_name_slash(self):
        self.assertEqual(self.error(MIN.replace('name = "p"', 'name = "x/y"')),
                         "5: key 'program[0].name': 'x/y': letters, digits and _.+- only")

    def test_threads_zero(self):
        self.assertEqual(self.error(MIN.replace("[1, 2]", "[1, 0]")), "2: key 'study.threads': 0: allowed integers 1..1024")

    def test_threads_twice(self):
        self.assertEqual(self.error(MIN.replace("[1, 2]", "[2, 1, 2]")), "2: key 'study.threads': [2, 1, 2]: 2 appears twice")

    def test_threads_wrong_type(self):
        self.assertEqual(self.error(MIN.replace("[1, 2]", '"4"')), "2: key 'study.threads': expected list, got str '4'")

    def test_unknown_key(self):
        self.assertEqual(self.error(MIN + 'frob = 1\n'),
                         "7: key 'program[0].frob': unknown key (allowed: cmd, compare_as, cores, cwd, env, expect, "
                         "frontend, gen, input, isa, name, paper_name, setup, stdin, threads)")

    def test_unknown_section(self):
        self.assertEqual(self.error(MIN + '[frob]\nx = 1\n'),
                         "7: unknown key 'frob' (allowed: chunks, config, configs, data, delivery, demand, program, "
                         "quick, study)")

    def test_second_program_line(self):
        # the key of the second [[program]], not the same key of the first
        self.assertEqual(self.error(MIN + '\n[[program]]\nname = "q"\ncmd = "true"\ncores = "x"\n'),
                         """11: key 'program[1].cores': 'x': allowed "auto", a number 1..1024 or "{N}\"""")

    def test_toml_syntax(self):
        self.assertEqual(self.error(MIN.replace('name = "p"', 'name = "p')), "5: Illegal character '\\n'")

    def test_verify(self):
        self.assertEqual(self.error(MIN.replace("threads = [1, 2]", 'verify = "maybe"')),
                         "2: key 'study.verify': 'maybe': allowed commit, binary, none")

    def test_output_option(self):
        self.assertEqual(self.error(MIN.replace("threads = [1, 2]", 'timing = "--cpi 2 --stats=x.json"')),
                         "2: key 'study.timing': --stats: an output option; tm study names every output itself "
                         "(not allowed: -o, --stats, --profile, --commit, --and, --mode, --capture, --threads, -q, --)")

    def test_cmd_and_gen(self):
        self.assertEqual(self.error(MIN + 'gen = { insns = 5 }\n'),
                         "4: program[0] (p): give either 'cmd' (a program to record) or 'gen' (a synthetic stream)")
        self.assertEqual(self.error(MIN.replace('cmd = "true"\n', '')),
                         "4: program[0] (p): give either 'cmd' (a program to record) or 'gen' (a synthetic stream)")

    def test_gen_with_cwd(self):
        self.assertEqual(self.error(MIN.replace('cmd = "true"', 'gen = { insns = 5 }\ncwd = "x"')),
                         "7: key 'program[0].cwd': only for a program to record ('cmd'), not a synthetic stream ('gen')")

    def test_substitutions(self):
        self.assertEqual(self.error(MIN.replace('cmd = "true"', 'cmd = "run {M}"')),
                         "6: key 'program[0].cmd': {M}: allowed substitutions {N}, {input}, {programs}, {isa}")
        self.assertEqual(self.error(MIN.replace('cmd = "true"', 'cmd = "run {input}"')),
                         "6: key 'program[0].cmd': uses {input} but the program has no 'input'")
        self.assertEqual(self.error(MIN + 'stdin = "{input}"\n'),
                         "7: key 'program[0].stdin': '{input}' but the program has no 'input'")

    def test_missing_input_file(self):
        self.assertEqual(self.error(MIN + 'input = "nothere.txt"\n'),
                         "7: key 'program[0].input': 'nothere.txt': no such file (or text:SIZE, e.g. text:1M)")
        # with a setup, the file may be written by it: not checked here
        s = self.study(MIN + 'input = "nothere.txt"\nsetup = "echo > nothere.txt"\n')
        self.assertEqual(s.programs[0]["input"], "nothere.txt")
        # an existing file is accepted
        write(self.path("here.txt"), "x")
        self.assertEqual(self.study(MIN + 'input = "here.txt"\n').programs[0]["input"], "here.txt")

    def test_text_size(self):
        self.assertEqual(self.error(MIN + 'input = "text:300M"\n'),
                         "7: key 'program[0].input': 'text:300M': text:SIZE allows 1 byte to 256M")
        self.assertEqual(self.error(MIN + 'input = "text:1G"\n'),
                         "7: key 'program[0].input': 'text:1G': text:SIZE with SIZE in bytes, K or M (e.g. text:1M)")

    def test_duplicate_program(self):
        self.assertEqual(self.error(MIN + '[[program]]\nname = "p"\ncmd = "true"\n'),
                         "8: key 'program[1].name': 'p': two programs with this name")

    def test_expect_regex(self):
        msg = self.error(MIN + 'expect = "a("\n')
        self.assertTrue(msg.startswith("7: key 'program[0].expect': 'a(': not a regular expression: "), msg)

    def test_delivery_unknown_config(self):
        self.assertEqual(self.error(MIN + '[configs]\npresets = ["large"]\nencodings = ["tr_e"]\ntimestamps = [false]\n'
                                          '[delivery]\nconfigs = ["nx_b-large"]\n'),
                         "12: key 'delivery.configs': 'nx_b-large': not a configuration of the study (e.g. tr_e-large)")

    def test_unknown_preset(self):
        self.assertEqual(self.error(MIN + '[configs]\npresets = ["huge"]\n'),
                         "8: key 'configs.presets': 'huge': allowed small, medium, large, tage-s, tage-m, tage-l")

    def test_no_program(self):
        self.assertEqual(self.error("[study]\nname = \"x\"\n"), "1: no [[program]]: a study needs at least one")


class Cli(TmpCase):
    """The same errors through tm study's command line: `tm study: FILE:LINE: ...`, exit 2, no traceback.
    TM_BIN is a script that answers only `tm config --list-presets / --list-encodings`."""

    def test_error_line_and_status(self):
        tm = self.fake_tm(content='#!/bin/sh\ncase "$2" in --list-presets) echo small large;; '
                                  '--list-encodings) echo nx_b tr_e;; *) exit 1;; esac\n')
        f = write(self.path("my.toml"), MIN + 'cores = "banana"\n')
        r = subprocess.run([sys.executable, os.path.join(ROOT, "study", "tm_study.py"), "-f", f, "-o", self.path("o")],
                           capture_output=True, text=True, env=dict(os.environ, TM_BIN=tm, PYTHONDONTWRITEBYTECODE="1"),
                           timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stdout, "")
        self.assertEqual(r.stderr, f"""tm study: {f}:7: key 'program[0].cores': 'banana': allowed "auto", a number """
                                   """1..1024 or "{N}"\n""")
        self.assertFalse(os.path.exists(self.path("o")))      # nothing written


if __name__ == "__main__":
    unittest.main()
