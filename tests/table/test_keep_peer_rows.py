"""CPU tests of bench/table/keep_peer_rows.py (a partial `make table` keeps the torch rows of the
stages it does not run) on SYNTHETIC torch JSON written into a temporary directory (made-up
times, not measurements):

* rows with a kept prefix are replaced by the committed file's, each marked with the committed
  run's date; the other rows stay as the new run measured them;
* the context says which prefixes were kept and from when, and accumulates over two calls;
* a missing committed file, or one without such rows, leaves the new file unchanged (exit 0).
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
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "table"))

import keep_peer_rows  # noqa: E402


def document(date, rows):
    return {"context": {"date": date},
            "benchmarks": [{"name": name, "median_ms": ms} for name, ms in rows]}


class KeepPeerRowsTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def write(self, name, content):
        path = os.path.join(self.directory.name, name)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(content, handle)
        return path

    def run_main(self, *args):
        with contextlib.redirect_stdout(io.StringIO()):
            return keep_peer_rows.main(list(args))

    def test_kept_rows_replace_the_new_ones_and_say_where_they_come_from(self):
        new = self.write("new.json", document("2026-11-25T10:00", [
            ("torch-sort/f32/keys/n:1024/ands:0", 1.0),
            ("torch-topk/f32/rows:1/cols:32000/k:1", 0.05),
            ("torch-segsort/f32/pairs/seg:8/n:67108864/ands:0", 23.0)]))
        committed = self.write("committed.json", document("2026-11-24T09:00", [
            ("torch-sort/f32/keys/n:1024/ands:0", 9.0),
            ("torch-topk/f32/rows:1/cols:32000/k:1", 0.06),
            ("torch-topk/bf16/rows:1/cols:32000/k:1", 0.07)]))
        self.assertEqual(self.run_main("--into", new, "--committed", committed,
                                       "--prefix", "torch-topk/", "--why", "07 not run"), 0)
        with open(new, encoding="utf-8") as handle:
            result = json.load(handle)
        rows = {row["name"]: row for row in result["benchmarks"]}
        # The new run's sort rows stay; its top-k row is replaced; the committed bf16 row joins.
        self.assertEqual(rows["torch-sort/f32/keys/n:1024/ands:0"]["median_ms"], 1.0)
        self.assertEqual(rows["torch-segsort/f32/pairs/seg:8/n:67108864/ands:0"]["median_ms"], 23.0)
        self.assertEqual(rows["torch-topk/f32/rows:1/cols:32000/k:1"]["median_ms"], 0.06)
        self.assertEqual(rows["torch-topk/bf16/rows:1/cols:32000/k:1"]["median_ms"], 0.07)
        self.assertEqual(len(result["benchmarks"]), 4)
        for name, row in rows.items():
            if name.startswith("torch-topk/"):
                self.assertEqual(row["kept_from_run"], "2026-11-24T09:00")
            else:
                self.assertNotIn("kept_from_run", row)
        self.assertIn("torch-topk/", result["context"]["sortlab_kept_rows"])
        self.assertIn("2026-11-24T09:00", result["context"]["sortlab_kept_rows"])
        self.assertIn("07 not run", result["context"]["sortlab_kept_rows"])
        # A second call (stage 06's rows) adds to the context note.
        committed_segsort = self.write("segsort.json", document("2026-11-23T08:00", [
            ("torch-segsort/f32/pairs/seg:8/n:67108864/ands:0", 24.0)]))
        self.run_main("--into", new, "--committed", committed_segsort,
                      "--prefix", "torch-segsort/")
        with open(new, encoding="utf-8") as handle:
            result = json.load(handle)
        rows = {row["name"]: row for row in result["benchmarks"]}
        self.assertEqual(rows["torch-segsort/f32/pairs/seg:8/n:67108864/ands:0"]["median_ms"], 24.0)
        self.assertIn("torch-topk/", result["context"]["sortlab_kept_rows"])
        self.assertIn("torch-segsort/", result["context"]["sortlab_kept_rows"])

    def test_nothing_to_keep_leaves_the_new_file_alone(self):
        content = document("2026-11-25T10:00", [("torch-topk/f32/rows:1/cols:8/k:1", 0.01)])
        new = self.write("new.json", content)
        with open(new, encoding="utf-8") as handle:
            before = handle.read()
        missing = os.path.join(self.directory.name, "absent.json")
        self.assertEqual(self.run_main("--into", new, "--committed", missing,
                                       "--prefix", "torch-topk/"), 0)
        empty = self.write("empty.json", document("2026-11-24T09:00", [
            ("torch-sort/f32/keys/n:1024/ands:0", 9.0)]))
        self.assertEqual(self.run_main("--into", new, "--committed", empty,
                                       "--prefix", "torch-topk/"), 0)
        with open(new, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), before)


if __name__ == "__main__":
    unittest.main()
