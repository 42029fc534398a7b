"""CPU tests of bench/compare/compare_json.py (what compare_revisions.sh prints) on SYNTHETIC
benchmark JSON written into a temporary directory (made-up times, not measurements):

* a row's time is its median_ms counter, else its real time converted from its time_unit;
* the ratio is new / base of the median over each side's runs;
* the verdict: spreads (lowest p10_ms .. highest p90_ms over a side's runs) that overlap are
  "within the runs' spread", otherwise "faster" or "slower";
* errored rows, rows only one side has and aggregate rows are never compared; --filter keeps the
  rows whose name matches; a missing file exits 2.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "compare"))

import compare_json  # noqa: E402


def row(name, median=None, p10=None, p90=None, real_time=None, unit="ms", **extra):
    entry = {"name": name, "run_type": "iteration", "time_unit": unit}
    if median is not None:
        entry["median_ms"] = median
    if p10 is not None:
        entry["p10_ms"] = p10
        entry["p90_ms"] = p90
    if real_time is not None:
        entry["real_time"] = real_time
    entry.update(extra)
    return entry


class CompareJsonTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, rows):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"context": {}, "benchmarks": rows}, handle)
        return path

    def run_main(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = compare_json.main(list(args))
        return code, out.getvalue()

    def test_times_ratios_and_verdicts(self):
        base = [
            self.write("b1.json", [row("a", 2.0, 1.9, 2.1), row("b", 1.0, 0.99, 1.01),
                                   row("c", 4.0, 3.9, 4.1)]),
            self.write("b2.json", [row("a", 2.2, 2.1, 2.3), row("b", 1.0, 0.99, 1.01),
                                   row("c", 4.0, 3.9, 4.1)]),
        ]
        new = [
            self.write("n1.json", [row("a", 1.0, 0.95, 1.05), row("b", 1.005, 1.0, 1.02),
                                   row("c", 5.0, 4.9, 5.1)]),
            self.write("n2.json", [row("a", 1.2, 1.15, 1.25), row("b", 1.005, 1.0, 1.02),
                                   row("c", 5.0, 4.9, 5.1)]),
        ]
        code, text = self.run_main("--base", *base, "--new", *new)
        self.assertEqual(code, 0)
        lines = {line.split(" | ")[0][2:]: line for line in text.splitlines()
                 if line.startswith("| ") and not line.startswith("| benchmark")}
        # a: median 2.1 against 1.1, spreads 1.9..2.3 and 0.95..1.25 apart.
        self.assertIn("| 2 2.2 | 1 1.2 | 0.524 | faster |", lines["a"])
        # b: 1.005 against 1.0, spreads 0.99..1.01 and 1.0..1.02 overlap.
        self.assertIn("| 1.005 | within the runs' spread |", lines["b"])
        # c: slower by 25%.
        self.assertIn("| 1.250 | slower |", lines["c"])

    def test_real_time_without_counters_and_units(self):
        base = self.write("b.json", [row("x", real_time=2000.0, unit="us")])
        new = self.write("n.json", [row("x", real_time=3.0, unit="ms")])
        code, text = self.run_main("--base", base, "--new", new)
        self.assertEqual(code, 0)
        self.assertIn("| x | 2 | 3 | 1.500 | slower |", text)

    def test_rows_not_compared(self):
        base = self.write("b.json", [row("both", 1.0, 1.0, 1.0), row("gone", 1.0, 1.0, 1.0),
                                     row("broken", 1.0, 1.0, 1.0),
                                     dict(row("both_mean", 1.0), run_type="aggregate")])
        new = self.write("n.json", [row("both", 1.0, 1.0, 1.0), row("fresh", 1.0, 1.0, 1.0),
                                    row("broken", 1.0, error_occurred=True)])
        code, text = self.run_main("--base", base, "--new", new)
        self.assertEqual(code, 0)
        self.assertIn("| both |", text)
        self.assertNotIn("| gone |", text)
        self.assertNotIn("| both_mean |", text)
        self.assertIn("Only in the base's runs: gone, broken.", text)
        self.assertIn("Only in the new runs: fresh.", text)
        self.assertIn("Errored in some run (not compared): broken.", text)

    def test_filter_and_empty(self):
        base = self.write("b.json", [row("device/x", 1.0), row("block/y", 1.0)])
        new = self.write("n.json", [row("device/x", 0.5), row("block/y", 1.0)])
        code, text = self.run_main("--base", base, "--new", new, "--filter", "^device/")
        self.assertEqual(code, 0)
        self.assertIn("| device/x |", text)
        self.assertNotIn("block/y", text)
        code, text = self.run_main("--base", base, "--new", new, "--filter", "^none")
        self.assertIn("(no row measured on both sides)", text)

    def test_missing_file(self):
        base = self.write("b.json", [row("x", 1.0)])
        code, _ = self.run_main("--base", base, "--new", os.path.join(self.dir.name, "no.json"))
        self.assertEqual(code, 2)


if __name__ == "__main__":
    unittest.main()
