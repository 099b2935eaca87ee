"""tm study's cache (docs/study.md "Cache and resume"): the keys of a
(program, N, configuration) result hash the files the command line, stdin,
setup and input name, and nothing unrelated; each entry carries a checksum
that finds an empty, truncated, garbled or edited entry."""
import contextlib
import hashlib
import io
import json
import os
import unittest

from studytest import TmpCase, tm_study, write


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()

STUDY = """\
[study]
name = "keys"
threads = [1, 2]
[configs]
presets = ["small", "large"]
encodings = ["tr_e"]
timestamps = [false]
[[program]]
name = "p"
cmd = ["/bin/sh", "run.sh", "data.{N}"]
cwd = "w"
stdin = "w/in.{N}"
input = "w/inp.txt"
setup = "cat tmpl.txt > out.{N}"
env = { X = "{N}" }
"""


class Keys(TmpCase):
    def setUp(self):
        super().setUp()
        for name, text in (("run.sh", "echo run\n"), ("data.1", "one\n"), ("data.2", "two\n"), ("in.1", "stdin 1\n"),
                           ("in.2", "stdin 2\n"), ("inp.txt", "input\n"), ("tmpl.txt", "template\n"),
                           ("unrelated.txt", "nothing\n")):
            write(self.path("w", name), text)
        self.tm = self.fake_tm()
        self.runs = 0

    def keys(self, text=STUDY, tm=None, program="p"):
        """{N: (config keys, PT key)} of PROGRAM as a new tm study run would compute them
        (a new Runner: its file hashes are computed afresh)."""
        self.runs += 1
        s = self.study(text, name=f"s{self.runs}.toml")
        r = self.runner(s, out=f"out{self.runs}", tm=tm or self.tm)
        return {u["N"]: (u["keys"], u["pt_key"]) for u in r.units() if u["program"] == program}

    def edit(self, name, text="edited\n"):
        write(self.path("w", name), text)

    def test_same_inputs_same_key(self):
        a, b = self.keys(), self.keys()
        self.assertEqual(a, b)
        self.assertEqual(sorted(a[1][0]), ["tr_e-large", "tr_e-small"])
        for n in (1, 2):
            for k in list(a[n][0].values()) + [a[n][1]]:
                self.assertRegex(k, r"^[0-9a-f]{24}$")
        self.assertNotEqual(a[1][0]["tr_e-large"], a[1][0]["tr_e-small"])     # the configuration's options
        self.assertNotEqual(a[1][0]["tr_e-large"], a[2][0]["tr_e-large"])     # N
        self.assertNotEqual(a[1][1], a[1][0]["tr_e-large"])                   # PT: tm pt's options instead

    def test_files_hashed(self):
        s = self.study(STUDY)
        u = self.runner(s).unit(s.programs[0], 1)
        sha = lambda n: hashlib.sha256(read(self.path("w", n), "rb")).hexdigest()   # noqa: E731
        self.assertEqual(u["ident"]["files"], {"{input}": sha("inp.txt"), "arg:run.sh": sha("run.sh"),
                                               "arg:data.1": sha("data.1"), "stdin": sha("in.1"),
                                               "setup:tmpl.txt": sha("tmpl.txt")})

    def assertChanged(self, before, after, ns):
        """The keys (every configuration's and the PT's) changed at the N in NS, and only there."""
        for n in (1, 2):
            same = [before[n][0][c] == after[n][0][c] for c in before[n][0]] + [before[n][1] == after[n][1]]
            if n in ns:
                self.assertFalse(any(same), f"N={n}: a key did not change")
            else:
                self.assertTrue(all(same), f"N={n}: a key changed")

    def test_script_named_by_cmd(self):
        k = self.keys()
        self.edit("run.sh", "echo edited\n")
        self.assertChanged(k, self.keys(), {1, 2})

    def test_argument_file_per_n(self):
        k = self.keys()
        self.edit("data.1")
        self.assertChanged(k, self.keys(), {1})

    def test_stdin_file_per_n(self):
        k = self.keys()
        self.edit("in.2")
        self.assertChanged(k, self.keys(), {2})

    def test_input_file(self):
        k = self.keys()
        self.edit("inp.txt")
        self.assertChanged(k, self.keys(), {1, 2})

    def test_file_named_by_setup(self):
        k = self.keys()
        self.edit("tmpl.txt")
        self.assertChanged(k, self.keys(), {1, 2})

    def test_setup_command(self):
        k = self.keys()
        self.assertChanged(k, self.keys(STUDY.replace("cat tmpl.txt", "cat  tmpl.txt")), {1, 2})

    def test_key_values(self):
        k = self.keys()
        for old, new in (('env = { X = "{N}" }', 'env = { X = "{N}", Y = "1" }'),   # environment
                         ('threads = [1, 2]', 'threads = [1, 2]\ntiming = "--cpi 2"'),  # timing options
                         ('threads = [1, 2]', 'threads = [1, 2]\nverify = "binary"'),  # verification
                         ('threads = [1, 2]', 'threads = [1, 2]\ncores = 4'),          # cores
                         ('cwd = "w"', 'cwd = "w"\nexpect = "run"'),                   # expect
                         ('"data.{N}"]', '"data.{N}", "-v"]')):                       # arguments
            self.assertChanged(k, self.keys(STUDY.replace(old, new)), {1, 2})

    def test_tm_build(self):
        k = self.keys()
        self.assertChanged(k, self.keys(tm=self.fake_tm("tm2", "#!/bin/sh\nexit 1\n")), {1, 2})

    def test_unrelated_changes(self):
        k = self.keys()
        self.edit("unrelated.txt")                                   # a file nothing names
        self.assertEqual(self.keys(), k)
        self.assertEqual(self.keys(STUDY.replace('name = "keys"', 'name = "renamed"')), k)     # the study's name
        more = STUDY + '[[program]]\nname = "q"\ncmd = ["/bin/sh", "unrelated.txt"]\ncwd = "w"\n'
        self.assertEqual(self.keys(more), k)                         # another program
        extra = self.keys(STUDY + '[[config]]\nname = "c42"\noptions = "--encoding tr_e"\n')
        for n in (1, 2):
            self.assertEqual({c: extra[n][0][c] for c in k[n][0]}, k[n][0])   # another configuration
            self.assertEqual(extra[n][1], k[n][1])

    def test_written_by_setup_not_hashed(self):
        # an input the setup writes (> {input}) is keyed by the setup, not by its bytes
        text = STUDY.replace('input = "w/inp.txt"', 'input = "w/gen.{N}"').replace(
            'setup = "cat tmpl.txt > out.{N}"', 'setup = "cat tmpl.txt > {input}"')
        write(self.path("w", "gen.1"), "from an earlier setup\n")
        k = self.keys(text)
        self.edit("gen.1")
        self.assertEqual(self.keys(text), k)
        self.edit("tmpl.txt")
        self.assertChanged(k, self.keys(text), {1, 2})

    def test_setup_output_not_hashed(self):
        # the file a setup writes by redirection (> out.{N}) is not an input of the
        # key: the run after the setup made it computes the same keys
        k = self.keys()
        write(self.path("w", "out.1"), "what the setup wrote\n")
        write(self.path("w", "out.2"), "what the setup wrote\n")
        self.assertEqual(self.keys(), k)

    def test_setup_redirections(self):
        # read: < F and <F hashed; written: >> F, 2> F, >F not hashed
        text = STUDY.replace('setup = "cat tmpl.txt > out.{N}"', 'setup = "sort <tmpl.txt >>log.txt 2> err.txt >o.{N}"')
        k = self.keys(text)
        for name in ("log.txt", "err.txt", "o.1", "o.2"):
            write(self.path("w", name), "written by the setup\n")
        self.assertEqual(self.keys(text), k)
        s = self.study(text)
        files = self.runner(s).unit(s.programs[0], 1)["ident"]["files"]
        self.assertEqual(sorted(f for f in files if f.startswith("setup:")), ["setup:tmpl.txt"])
        self.edit("tmpl.txt")
        self.assertChanged(k, self.keys(text), {1, 2})

    def test_text_input(self):
        text = STUDY.replace('input = "w/inp.txt"', 'input = "text:1K"')
        s = self.study(text)
        u = self.runner(s).unit(s.programs[0], 1)
        self.assertEqual(u["ident"]["files"]["{input}"], "text:1K:gen1")      # the generator, not bytes
        self.assertChanged(self.keys(text), self.keys(text.replace("text:1K", "text:2K")), {1, 2})

    def test_cache_file_names(self):
        s = self.study(STUDY)
        r = self.runner(s)
        u = r.unit(s.programs[0], 2)
        self.assertEqual(r.cached(u, "tr_e-large"),
                         self.path("out", "cache", f"p-N2.tr_e-large.{u['keys']['tr_e-large']}.json"))
        self.assertEqual(r.pt_cached(u), self.path("out", "cache", "pt", f"p-N2.{u['pt_key']}.json"))


class Entries(TmpCase):
    RES = {"program": "p", "N": 1, "config": "tr_e-large", "stats": {"total": {"bits": 1234, "instructions": 5678}}}

    def test_checksum(self):
        # SHA-256 of the compact, key-sorted JSON of every key but 'checksum'
        self.assertEqual(tm_study.checksum({"b": 2, "a": [1, "x"]}),
                         hashlib.sha256(b'{"a":[1,"x"],"b":2}').hexdigest())
        self.assertEqual(tm_study.checksum({"a": 1, "checksum": "anything"}), tm_study.checksum({"a": 1}))
        self.assertNotEqual(tm_study.checksum({"a": 1}), tm_study.checksum({"a": 2}))

    def stored(self):
        s = self.study('[[program]]\nname = "p"\ncmd = "true"\n')
        r = self.runner(s)
        os.makedirs(r.cache, exist_ok=True)
        path = os.path.join(r.cache, "p-N1.tr_e-large.0123.json")
        r.store(path, dict(self.RES, checksum="stale"))
        return r, path

    def test_store_and_read(self):
        _, path = self.stored()
        self.assertFalse(os.path.exists(path + ".tmp"))
        on_disk = json.loads(read(path))
        self.assertEqual(on_disk["checksum"], tm_study.checksum(self.RES))      # recomputed, not the stale one
        res, why = tm_study.read_entry(path)
        self.assertIsNone(why)
        self.assertEqual(res, dict(self.RES, checksum=tm_study.checksum(self.RES)))
        # the checksum is of the content, not of the bytes: reformatted JSON still reads
        write(path, json.dumps(on_disk, indent=2))
        self.assertIsNone(tm_study.read_entry(path)[1])

    def damaged(self, damage):
        _, path = self.stored()
        write(path, damage(read(path, "rb")), "wb")
        return tm_study.read_entry(path)

    def test_truncated(self):
        res, why = self.damaged(lambda d: d[:len(d) // 2])
        self.assertIsNone(res)
        self.assertTrue(why.startswith("not JSON (truncated or garbled: "), why)

    def test_edited_number(self):
        res, why = self.damaged(lambda d: d.replace(b"1234", b"1235"))
        self.assertEqual((res, why), (None, "its checksum does not match its content (edited or damaged)"))

    def test_edited_key(self):
        res, why = self.damaged(lambda d: d.replace(b'"N": 1', b'"N": 2'))
        self.assertEqual((res, why), (None, "its checksum does not match its content (edited or damaged)"))

    def test_empty_garbled_old(self):
        self.assertEqual(self.damaged(lambda d: b""), (None, "empty"))
        res, why = self.damaged(lambda d: b"\x00\xff garbage")
        self.assertTrue(why.startswith("not JSON (truncated or garbled: "), why)
        self.assertEqual(self.damaged(lambda d: b"[1, 2]"), (None, "not a result (a JSON object)"))
        self.assertEqual(self.damaged(lambda d: json.dumps(self.RES).encode()),
                         (None, "no checksum (written by an older tm study)"))
        self.assertEqual(tm_study.read_entry(self.path("absent.json")), (None, None))

    def test_bad_entry_set_aside(self):
        r, path = self.stored()
        self.assertIsNotNone(tm_study.Runner(r.s, r.dir, r.tm, 1, False, False).entry(path))
        with open(path, "r+b") as f:
            f.truncate(40)
        r = tm_study.Runner(r.s, r.dir, r.tm, 1, False, False)       # the next run: entries read afresh
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertIsNone(r.entry(path))
        dest = os.path.join(r.cache, "bad", os.path.basename(path))
        self.assertFalse(os.path.exists(path))
        self.assertTrue(os.path.exists(dest))
        self.assertRegex(err.getvalue(), rf"^tm study: cache entry {path}: not JSON \(truncated or garbled: .*\); "
                                         rf"set aside as {dest}, it is recomputed\n$")

    def test_bad_entry_kept_when_not_writing(self):
        # --list and --report-only: counted as missing, nothing moved
        r, path = self.stored()
        write(path, "{}")
        r2 = tm_study.Runner(r.s, r.dir, r.tm, 1, False, False, write=False)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertIsNone(r2.entry(path))
        self.assertTrue(os.path.exists(path))
        self.assertFalse(os.path.exists(os.path.join(r.cache, "bad")))
        self.assertEqual(err.getvalue(), f"tm study: cache entry {path}: no checksum (written by an older tm study); "
                                         f"counted as missing\n")

    def test_missing_configurations(self):
        s = self.study('[study]\nthreads = [1]\n[configs]\npresets = ["small", "large"]\nencodings = ["tr_e"]\n'
                       'timestamps = [false]\n[[program]]\nname = "p"\ncmd = "true"\n')
        r = self.runner(s)
        u = r.unit(s.programs[0], 1)
        self.assertEqual([c["name"] for c in r.missing(u)], ["tr_e-small", "tr_e-large"])
        os.makedirs(r.cache)
        r.store(r.cached(u, "tr_e-large"), self.RES)
        self.assertEqual([c["name"] for c in r.missing(u)], ["tr_e-small"])
        # edited by hand: missing again for a new run, and set aside
        p = r.cached(u, "tr_e-large")
        write(p, read(p).replace("5678", "5679"))
        r2 = self.runner(s)
        with contextlib.redirect_stderr(io.StringIO()):
            self.assertEqual([c["name"] for c in r2.missing(u)], ["tr_e-small", "tr_e-large"])
        self.assertTrue(os.path.exists(os.path.join(r.cache, "bad", os.path.basename(p))))


if __name__ == "__main__":
    unittest.main()
