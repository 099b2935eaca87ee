"""Shared helpers of the study unit tests (tests/study/test_*.py): the study
modules imported from study/ (no tm, no recording), temporary folders, and a
study file parsed with a fixed list of presets and encodings (what `tm config
--list-presets` / `--list-encodings` would print)."""
import os
import shutil
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True          # no study/__pycache__ left behind by the tests
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STUDY = os.path.join(ROOT, "study")
if STUDY not in sys.path:
    sys.path.insert(0, STUDY)

import paper  # noqa: E402,F401
import report  # noqa: E402,F401
import tm_study  # noqa: E402,F401

PRESETS = ("small", "medium", "large", "tage-s", "tage-m", "tage-l")
ENCODINGS = ("nx_b", "tr_b", "tr_e", "tr_a")


def write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(text)
    return path


class TmpCase(unittest.TestCase):
    """A test with its own temporary folder self.tmp (removed afterwards)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tm-study-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        # build_id memoizes by path for the life of a process (one tm study run);
        # here each test's files are new
        tm_study.build_id.cache_clear()

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def study(self, text, name="s.toml"):
        """TEXT parsed as the study file TMP/NAME (written there too)."""
        p = write(self.path(name), text)
        return tm_study.Study(text, p, PRESETS, ENCODINGS)

    def fake_tm(self, name="tm", content="#!/bin/sh\nexit 0\n"):
        """A file standing for the tm executable (its bytes are its identity:
        readelf finds no build-id in it)."""
        p = write(self.path("bin", name), content)
        os.chmod(p, 0o755)
        return p

    def runner(self, study, out="out", tm=None, write_files=True):
        return tm_study.Runner(study, self.path(out), tm or self.fake_tm(), 1, False, False, write=write_files)
