"""CPU tests of the stage 06 and stage 07 results (results_table.py's stage section and
merge_bench_json.py):

* stage 07 from a recorded H100 run kept as a fixture (tests/table/fixtures/
  stage07_h100_three_runs.json: the quick run and the two schedule-forced runs of 2026-11-23,
  before candidate filtering; the committed page may hold a newer run, so the tests that name
  numbers read the fixture) with the committed torch JSON: every cell recomputed from the raw
  counters, torch only where torch measured the shape (blank otherwise);
* stage 07's llm run (issue 18's LLM sampling shapes, f32 and bf16) from a SYNTHETIC fixture
  (tests/table/fixtures/stage07_llm_synthetic_fixture.json: a quick run and an llm run merged,
  the llm run without the rows the quick run measured, as make table runs them; made-up numbers)
  with torch.topk rows of both types from a synthetic torch JSON
  (stage07_llm_torch_synthetic_fixture.json): a table per type, ordered by vocabulary, batch and
  k, the quick run's grid shapes in it (marked), the floor from the quick run's copy where the
  llm run skipped that copy (marked †), torch from the row of the same type only; the lines of
  the plot of time against batch drawn from them, and the plot shown on the page and in the
  README block exactly when it was drawn (or, under ``--check``, is there);
* stage 07's rows and long runs (issue 18's other two sets) from SYNTHETIC JSON built here
  (IssueSets: a quick run and the two runs without the names it measured, as make table runs
  them, merged; made-up numbers): bench_stage07's names and make table's filter keep every name
  once, each table by hand (the quick run's shapes marked, floors from its copies marked †, the
  unsorted time standing in for torch / ours where the long run has no sorted row), and the
  targets' lines with the lowest values and counts computed from the numbers;
* stage 06 from a SYNTHETIC fixture (tests/table/fixtures/stage06_synthetic_fixture.json: made-up
  numbers chosen so every ratio is easy to check by hand, not a measurement; equal segments and
  the power-law mix) with torch.sort(dim=-1) rows from a synthetic torch JSON
  (stage06_torch_synthetic_fixture.json, in torch_baseline.py's format): torch only where torch
  measured the segment size (— otherwise), and in the best peer;
* a stage without JSON is "not measured yet" and the check passes;
* the drift check covers the stage pages and README blocks: dropping a row or halving a time in
  a stage JSON changes the output and fails ``--check``; the committed docs match the committed
  JSON.

Run by ctest (`ctest -L table`), or directly:
    PYTHONPATH=bench/table python3 -m unittest discover -s tests/table -v
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "table"))

import merge_bench_json as mb  # noqa: E402
import results_table as rt  # noqa: E402

GPU = "NVIDIA-H100-80GB-HBM3"
RESULTS = os.path.join(REPO, "docs", "results")
STAGE07_COMMITTED = os.path.join(RESULTS, f"{GPU}-stage07.json")
STAGE07_JSON = os.path.join(HERE, "fixtures", "stage07_h100_three_runs.json")
TORCH_JSON = os.path.join(RESULTS, f"{GPU}-torch.json")
STAGE06_FIXTURE = os.path.join(HERE, "fixtures", "stage06_synthetic_fixture.json")
STAGE07_LLM_FIXTURE = os.path.join(HERE, "fixtures", "stage07_llm_synthetic_fixture.json")
STAGE07_LLM_TORCH_FIXTURE = os.path.join(HERE, "fixtures",
                                         "stage07_llm_torch_synthetic_fixture.json")
STAGE06_TORCH_FIXTURE = os.path.join(HERE, "fixtures", "stage06_torch_synthetic_fixture.json")
H100 = os.path.join(HERE, "fixtures", "h100_issue13")
LADDER_JSON = os.path.join(H100, "bench_all.json")

# The quick set's shapes in the order bench_stage07 registers them (kQuickShapes).
QUICK = [(1, 1 << 28, 1024), (64, 1 << 20, 64), (16384, 4096, 8), (1, 128256, 2048),
         (128, 128256, 50), (4096, 32768, 64)]


def read_json(path: str) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def result_set(document: Dict[str, Any]) -> rt.ResultSet:
    return rt.load_result_set([document])


def torch_set() -> rt.ResultSet:
    return result_set(read_json(TORCH_JSON))


def stage_data(stage: str, document: Optional[Dict[str, Any]]) -> rt.StageData:
    return rt.StageData(stage, f"/results/{GPU}-{stage}.json",
                        result_set(document) if document is not None else None,
                        "NVIDIA H100 80GB HBM3")


def table_rows(markdown: str) -> List[List[str]]:
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]


def row_named(document: Dict[str, Any], prefix: str) -> Dict[str, Any]:
    """The one row whose name is prefix followed only by /n:N/... or Google Benchmark's
    suffixes (so "stage07-topk-unsorted/f32/rows:1/cols:2/k:1" is not its /schedule:one row)."""

    def matches(name: str) -> bool:
        if not name.startswith(prefix):
            return False
        rest = name[len(prefix):]
        return rest == "" or (rest.startswith("/") and rest[1:].startswith(
            ("n:", "iterations:", "manual_time")))

    (row,) = [b for b in document["benchmarks"] if matches(b["name"])]
    return row


class MergeTest(unittest.TestCase):
    """merge_bench_json.py keeps every row and every run's context, and never picks one of two
    measurements of the same name."""

    def doc(self, date: str, *names: str) -> Dict[str, Any]:
        return {"context": {"date": date, "x": date},
                "benchmarks": [{"name": n, "run_type": "iteration", "median_ms": 1.0}
                               for n in names]}

    def test_rows_in_order_first_context_kept_and_runs_recorded(self) -> None:
        merged = mb.merge([("a", "a.json", self.doc("d1", "p/1", "p/2")),
                           ("b", "b.json", self.doc("d2", "q/1"))])
        self.assertEqual([b["name"] for b in merged["benchmarks"]], ["p/1", "p/2", "q/1"])
        self.assertEqual(merged["context"]["date"], "d1")
        runs = merged["context"][mb.MERGED_RUNS]
        self.assertEqual([(r["label"], r["file"], r["names"]) for r in runs],
                         [("a", "a.json", ["p/1", "p/2"]), ("b", "b.json", ["q/1"])])
        self.assertEqual(runs[1]["context"], {"date": "d2", "x": "d2"})

    def test_a_name_measured_twice_is_an_error(self) -> None:
        with self.assertRaises(ValueError):
            mb.merge([("a", "a.json", self.doc("d1", "p/1")),
                      ("b", "b.json", self.doc("d2", "p/1"))])

    def test_labels(self) -> None:
        self.assertEqual(mb.split_argument("quick=/x/b07_quick.json"),
                         ("quick", "/x/b07_quick.json"))
        self.assertEqual(mb.split_argument("/x/b07_one.json"), ("b07_one", "/x/b07_one.json"))

    def test_recorded_stage07_json_is_the_merge_of_three_runs(self) -> None:
        document = read_json(STAGE07_JSON)
        runs = document["context"][mb.MERGED_RUNS]
        self.assertEqual([r["label"] for r in runs], ["quick", "schedule-one", "schedule-multi"])
        self.assertEqual(sum(len(r["names"]) for r in runs), len(document["benchmarks"]))
        first = dict(document["context"])
        del first[mb.MERGED_RUNS]
        self.assertEqual(first, runs[0]["context"])

    def test_committed_stage07_json_is_a_merge(self) -> None:
        # Whatever runs the committed file merges (make table merges three; a run may keep fewer).
        document = read_json(STAGE07_COMMITTED)
        runs = document["context"][mb.MERGED_RUNS]
        self.assertGreaterEqual(len(runs), 1)
        self.assertEqual(runs[0]["label"], "quick")
        self.assertEqual(sum(len(r["names"]) for r in runs), len(document["benchmarks"]))
        # The first run's context is kept verbatim (the merge adds only its list of runs).
        first = dict(document["context"])
        del first[mb.MERGED_RUNS]
        self.assertEqual(first, runs[0]["context"])

    def test_main_writes_the_merge(self) -> None:
        root = tempfile.mkdtemp(prefix="sortlab-merge-test-")
        self.addCleanup(shutil.rmtree, root)
        paths = []
        for name, doc in (("one.json", self.doc("d1", "p/1")), ("two.json", self.doc("d2", "q"))):
            paths.append(os.path.join(root, name))
            with open(paths[-1], "w", encoding="utf-8") as handle:
                json.dump(doc, handle)
        out = os.path.join(root, "merged.json")
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertEqual(mb.main(["--out", out, f"x={paths[0]}", paths[1]]), 0)
        runs = read_json(out)["context"][mb.MERGED_RUNS]
        self.assertEqual([r["label"] for r in runs], ["x", "two"])


class Stage07TableTest(unittest.TestCase):
    """Stage 07's tables from the committed H100 run."""

    def setUp(self) -> None:
        self.document = read_json(STAGE07_JSON)
        self.data = stage_data("stage07", self.document)

    def main_table(self, document: Optional[Dict[str, Any]] = None,
                   torch: Optional[rt.ResultSet] = None) -> List[List[str]]:
        data = stage_data("stage07", document) if document is not None else self.data
        table = rt.stage07_table(data, torch if torch is not None else torch_set(), "quick",
                                 "f32")
        assert table is not None
        return table_rows(table)

    def test_every_cell_follows_from_the_counters(self) -> None:
        rows = self.main_table()
        self.assertEqual(len(rows), len(QUICK))
        torch_rows = {b["name"]: b for b in read_json(TORCH_JSON)["benchmarks"]}
        for row, (r, c, k) in zip(rows, QUICK):
            variant = f"rows:{r}/cols:{c}/k:{k}"
            ours = row_named(self.document, f"stage07-topk/f32/{variant}")
            unsorted = row_named(self.document, f"stage07-topk-unsorted/f32/{variant}")
            self.assertEqual(row[1], str(k))
            self.assertEqual(row[2], f"{ours['blocks_per_row']:.0f}")
            self.assertEqual(row[3], rt.fmt_ms(ours["median_ms"]))
            self.assertEqual(row[4], f"{rt.fmt_ms(ours['p10_ms'])}–{rt.fmt_ms(ours['p90_ms'])}")
            self.assertEqual(row[5], rt.fmt_ms(unsorted["median_ms"]))
            self.assertEqual(row[6], rt.fmt_ms(ours["floor_ms"]))
            self.assertEqual(row[7], rt.fmt_percent(ours["floor_fraction"]))
            theirs = torch_rows.get(f"torch-topk/f32/{variant}")
            if theirs is None:
                self.assertEqual(row[8:], ["", ""], "no torch number may be invented")
            else:
                self.assertEqual(row[8], rt.fmt_ms(theirs["median_ms"]))
                self.assertEqual(row[9], rt.fmt_ratio(theirs["median_ms"] / ours["median_ms"]))
        # torch measured every quick shape (torch_baseline.py's TOPK_SHAPES hold them all).
        self.assertEqual([row[0] for row in rows if row[8]], [row[0] for row in rows])

    def test_without_torch_the_torch_cells_are_blank(self) -> None:
        rows = self.main_table(torch=rt.ResultSet([]))
        self.assertTrue(all(row[8:] == ["", ""] for row in rows))

    def test_dropping_a_row_changes_the_table(self) -> None:
        document = copy.deepcopy(self.document)
        document["benchmarks"] = [b for b in document["benchmarks"] if not b["name"].startswith(
            "stage07-topk/f32/rows:64/cols:1048576/k:64/")]
        rows = {row[0]: row for row in self.main_table(document)}
        self.assertEqual(rows["64 × 2^20"][3:5], [rt.DASH, rt.DASH])
        self.assertIn("(unsorted)", rows["64 × 2^20"][7])

    def test_halving_a_time_changes_the_table(self) -> None:
        document = copy.deepcopy(self.document)
        row = row_named(document, "stage07-topk/f32/rows:4096/cols:32768/k:64")
        before = self.main_table()[-1]
        row["median_ms"] /= 2
        after = self.main_table(document)[-1]
        self.assertNotEqual(before[3], after[3])
        self.assertNotEqual(before[9], after[9])

    def test_blocks_per_row_marks_the_cluster_and_the_reduction(self) -> None:
        document = copy.deepcopy(self.document)
        for name, cluster, reduction in (
                ("stage07-topk/f32/rows:64/cols:1048576/k:64", 1.0, 1.0),
                ("stage07-topk/f32/rows:4096/cols:32768/k:64", 0.0, 1.0)):
            row = row_named(document, name)
            row["cluster_per_row"] = cluster
            row["argmax_reduction"] = reduction
        rows = {row[0]: row for row in self.main_table(document)}
        self.assertTrue(rows["64 × 2^20"][2].endswith(" (cluster, reduction)"))
        self.assertTrue(rows["4096 × 32768"][2].endswith(" (reduction)"))
        self.assertNotIn("(", self.main_table()[-1][2])  # the committed run: neither

    def test_blocks_per_row_marks_the_queues(self) -> None:
        document = copy.deepcopy(self.document)
        row_named(document, "stage07-topk/f32/rows:4096/cols:32768/k:64")["queue_reduction"] = 1.0
        rows = {row[0]: row for row in self.main_table(document)}
        self.assertTrue(rows["4096 × 32768"][2].endswith(" (queues)"))

    def test_schedule_table_shows_both_times_and_the_rules_pick(self) -> None:
        table = rt.stage07_schedule_table(self.data)
        assert table is not None
        rows = {row[0]: row for row in table_rows(table)}
        self.assertEqual(len(rows), len(QUICK))
        for r, c, k in QUICK:
            variant = f"rows:{r}/cols:{c}/k:{k}"
            one = row_named(self.document, f"stage07-topk-unsorted/f32/{variant}/schedule:one")
            multi = row_named(self.document,
                              f"stage07-topk-unsorted/f32/{variant}/schedule:multi")
            rule = row_named(self.document, f"stage07-topk-unsorted/f32/{variant}")
            row = rows[rt.TopkShape("f32", r, c, k).shape]
            self.assertEqual(row[2], "unsorted")
            self.assertEqual(row[3:5], [rt.fmt_ms(one["median_ms"]), rt.fmt_ms(multi["median_ms"])])
            self.assertEqual(row[6], rt.DASH)  # this run forced no cluster schedule
            self.assertTrue(row[7].startswith("one" if one["median_ms"] <= multi["median_ms"]
                                              else "several"))
            self.assertTrue(row[8].startswith("several" if rule["several_blocks"] else "one"))
        # On 4096 rows of 32768 the rule keeps one block per row, and the forced several-blocks
        # schedule (one block per row through the blocked kernels) was faster in this run.
        self.assertEqual(rows["4096 × 32768"][8:], ["one", "slower (1.12×)"])

    def test_schedule_table_shows_the_cluster_schedule(self) -> None:
        # The committed run, plus a forced cluster row and a rule's row that picked the cluster.
        document = copy.deepcopy(self.document)
        variant = "rows:1/cols:128256/k:2048"
        multi = row_named(document, f"stage07-topk-unsorted/f32/{variant}/schedule:multi")
        cluster = copy.deepcopy(multi)
        cluster["name"] = multi["name"].replace("/schedule:multi", "/schedule:cluster")
        cluster["run_name"] = cluster["name"]
        cluster["median_ms"] = multi["median_ms"] / 2
        cluster["cluster_per_row"] = 1.0
        cluster["several_blocks"] = 0.0
        cluster["blocks_per_row"] = 16.0
        document["benchmarks"].append(cluster)
        rule = row_named(document, f"stage07-topk-unsorted/f32/{variant}")
        rule["cluster_per_row"] = 1.0
        rule["several_blocks"] = 0.0
        rule["blocks_per_row"] = 16.0
        table = rt.stage07_schedule_table(stage_data("stage07", document))
        assert table is not None
        row = {r[0]: r for r in table_rows(table)}["1 × 128256"]
        self.assertEqual(row[6], rt.fmt_ms(multi["median_ms"] / 2))
        self.assertEqual(row[7], "cluster, 2.00×")
        self.assertEqual(row[8:], ["cluster (16 per row)", "the fastest"])

    def test_no_schedule_rows_no_schedule_table(self) -> None:
        document = copy.deepcopy(self.document)
        document["benchmarks"] = [b for b in document["benchmarks"] if "/schedule:" not in
                                  b["name"]]
        document["context"].pop("sortlab_merged_runs")
        self.assertIsNone(rt.stage07_schedule_table(stage_data("stage07", document)))
        # A single run's JSON has no run labels: its table is the unlabelled one.
        self.assertIsNotNone(rt.stage07_table(stage_data("stage07", document), None, "", "f32"))


class Stage07LlmTableTest(unittest.TestCase):
    """Stage 07's llm run from the synthetic fixtures (made-up numbers, easy ratios)."""

    # The llm table of f32, in its order: (shape cell, k, sorted ms, unsorted ms, torch ms).
    F32 = [("1 × 32000", 1, 0.01, None, 0.1), ("1 × 32000", 50, 0.01, None, 0.05),
           ("1 × 32000", 2048, 0.02, None, 0.4), ("1 × 128256", 1, 0.01, None, 0.05),
           ("1 × 128256 (run `quick`)", 2048, 0.02, 0.015, 0.3),
           ("128 × 128256 (run `quick`)", 50, 0.2, 0.16, 1.6),
           ("128 × 128256", 2048, 0.5, None, None)]

    def setUp(self) -> None:
        self.document = read_json(STAGE07_LLM_FIXTURE)
        self.data = stage_data("stage07", self.document)
        self.torch = result_set(read_json(STAGE07_LLM_TORCH_FIXTURE))

    def table(self, key_type: str, label: str = "llm",
              torch: Optional[rt.ResultSet] = None) -> Tuple[List[List[str]], str]:
        table = rt.stage07_table(self.data, torch if torch is not None else self.torch, label,
                                 key_type)
        assert table is not None
        return table_rows(table), table

    def test_the_fixture_is_a_merge_without_a_repeated_name(self) -> None:
        runs = self.document["context"][mb.MERGED_RUNS]
        self.assertEqual([r["label"] for r in runs], ["quick", rt.STAGE07_LLM_RUN])
        names = [b["name"] for b in self.document["benchmarks"]]
        self.assertEqual(len(names), len(set(names)))
        runs_docs = [(r["label"], r["file"], {"context": r["context"], "benchmarks": [
            b for b in self.document["benchmarks"] if b["name"] in r["names"]]}) for r in runs]
        self.assertEqual(mb.merge(runs_docs), self.document)

    def test_sections_quick_then_a_table_per_type_of_the_llm_run(self) -> None:
        headings = [heading for heading, _ in rt.stage07_sections(self.data, self.torch)]
        self.assertEqual(len(headings), 3)
        self.assertIn("run `quick`, f32 values", headings[0])
        for heading, key_type in zip(headings[1:], ("f32", "bf16")):
            self.assertTrue(heading.startswith("Top-k, run `llm`: LLM sampling shapes (issue 18), "
                                               f"{key_type} logits"), heading)
            self.assertIn("sorted output (torch.topk's default)", heading)
        # The shapes in the heading are the llm run's own rows.
        self.assertIn("batch 1, 128 × vocabulary 32000, 128256, k = 1, 50, 2048", headings[1])

    def test_f32_rows_in_order_with_the_quick_runs_grid_shapes_and_torch(self) -> None:
        rows, _ = self.table("f32")
        self.assertEqual([(row[0], row[1]) for row in rows],
                         [(cell, str(k)) for cell, k, *_ in self.F32])
        for row, (_, _, ours, unsorted, theirs) in zip(rows, self.F32):
            self.assertEqual(row[3], rt.fmt_ms(ours))
            self.assertEqual(row[5], rt.fmt_ms(unsorted) if unsorted else rt.DASH)
            if theirs is None:
                self.assertEqual(row[8:], ["", ""], "no torch number may be invented")
            else:
                self.assertEqual(row[8:], [rt.fmt_ms(theirs), rt.fmt_ratio(theirs / ours)])

    def test_a_floor_from_the_quick_runs_copy_is_marked(self) -> None:
        rows, table = self.table("f32")
        by_shape = {(row[0], row[1]): row for row in rows}
        # The llm run's own copy: its counters, unmarked.
        ours = row_named(self.document, "stage07-topk/f32/rows:1/cols:32000/k:1")
        self.assertEqual(by_shape[("1 × 32000", "1")][6:8],
                         [rt.fmt_ms(ours["floor_ms"]), rt.fmt_percent(ours["floor_fraction"])])
        # No copy in the llm run: bench_stage07's floor from the quick run's copy of the input.
        for cell, rows_, k, ms in (("1 × 128256", 1, "1", 0.01),
                                   ("128 × 128256", 128, "2048", 0.5)):
            copy_ms = row_named(self.document, f"copy/f32/rows:{rows_}/cols:128256")["median_ms"]
            in_bytes = rows_ * 128256 * 4
            floor = copy_ms * (in_bytes + rows_ * int(k) * 12) / (2.0 * in_bytes)
            self.assertEqual(by_shape[(cell, k)][6:8],
                             [rt.fmt_ms(floor) + " †", rt.fmt_percent(floor / ms)])
        self.assertIn("† The floor from the copy of the same input measured in another run",
                      table)

    def test_bf16_takes_torch_from_bf16_rows_only(self) -> None:
        rows, table = self.table("bf16")
        self.assertEqual([(row[0], row[1]) for row in rows],
                         [("1 × 32000", "1"), ("1 × 32000", "2048"), ("1 × 128256", "2048"),
                          ("128 × 128256", "50")])
        # f32 torch.topk of 1 × 32000 k=1 took 0.1 ms, bf16 0.2 ms: the bf16 row is used.
        self.assertEqual(rows[0][8:], [rt.fmt_ms(0.2), rt.fmt_ratio(20.0)])
        self.assertEqual(rows[3][8:], [rt.fmt_ms(0.25), rt.fmt_ratio(2.5)])
        self.assertNotIn("(run `", table)
        self.assertNotIn("†", table)
        self.assertIn("Lowest *torch / ours*: 2.50× (128 × 128256, k = 50); 3 of the 4 shapes",
                      table)
        self.assertIn("Issue 18's targets: ≥ 10× torch.topk at batch 1 with k = 2048", table)

    def test_without_torch_the_torch_cells_are_blank_and_no_ratio_is_claimed(self) -> None:
        rows, table = self.table("f32", torch=rt.ResultSet([]))
        self.assertTrue(all(row[8:] == ["", ""] for row in rows))
        self.assertNotIn("Lowest", table)

    def test_the_quick_table_is_as_without_the_llm_run(self) -> None:
        quick_only = copy.deepcopy(self.document)
        llm_names = set(quick_only["context"][mb.MERGED_RUNS][1]["names"])
        quick_only["benchmarks"] = [b for b in quick_only["benchmarks"]
                                    if b["name"] not in llm_names]
        quick_only["context"][mb.MERGED_RUNS].pop()
        alone = rt.stage07_table(stage_data("stage07", quick_only), self.torch, "quick", "f32")
        self.assertEqual(rt.stage07_table(self.data, self.torch, "quick", "f32"), alone)
        self.assertNotIn("Issue 18", alone or "")
        self.assertEqual(len(rt.stage07_sections(stage_data("stage07", quick_only),
                                                 self.torch)), 1)

    def test_the_page_and_block_hold_the_llm_tables(self) -> None:
        page = rt.stage_page(self.data, self.torch)
        self.assertIn("## Top-k, run `llm`: LLM sampling shapes (issue 18), bf16 logits", page)
        self.assertIn("- Run `llm` (`stage07_llm.json`)", page)
        block = rt.stage_readme_block(self.data, self.torch, "/chapters/07_topk")
        self.assertIn("**Top-k, run `llm`: LLM sampling shapes (issue 18), f32 logits", block)


# Issue 18's rows and long sets, as bench_stage07 registers them (row_shapes(), long_shapes()).
N26, N28 = 1 << 26, 1 << 28
ROWS_SET = [(N26 // c, c, k) for c in (128, 1000, 4096, 65536, 1 << 20) for k in (1, 8, 64, 256)
            if k < c]
LONG_SET = [(1, N28, k) for k in (1, 32, 1024, 65536, N28 // 100)]
MAX_SORTED_K = 2048  # bench_stage07 registers sorted output up to kMaxSortedK


def registered_names(shapes: List[Tuple[int, int, int]], sorted_output: bool,
                     unsorted_output: bool) -> List[str]:
    """bench_stage07's names of f32 shapes (register_all): a copy per input before its first
    top-k, then sorted (k <= kMaxSortedK) and unsorted rows as asked."""
    names, copied = [], set()
    for r, c, k in shapes:
        key = f"f32/rows:{r}/cols:{c}"
        if key not in copied:
            copied.add(key)
            names.append(f"copy/{key}")
        if sorted_output and k <= MAX_SORTED_K:
            names.append(f"stage07-topk/{key}/k:{k}")
        if unsorted_output:
            names.append(f"stage07-topk-unsorted/{key}/k:{k}")
    return names


def synthetic_row(name: str, ms: float, **counters: float) -> Dict[str, Any]:
    """A SYNTHETIC Google Benchmark row (made-up numbers, not a measurement)."""
    full = name + "/iterations:1/manual_time"
    row: Dict[str, Any] = {"name": full, "run_name": full, "run_type": "iteration",
                           "iterations": 1, "real_time": ms, "cpu_time": ms, "time_unit": "ms",
                           "label": "synthetic", "median_ms": ms, "min_ms": ms,
                           "p10_ms": 0.9 * ms, "p90_ms": 1.1 * ms, "samples": 10.0,
                           "noise": 0.001, "converged": 1.0}
    row.update(counters)
    return row


def bench_floor(r: int, c: int, k: int, copy_ms: float) -> float:
    """bench_stage07's floor: read the f32 input once, write k f32 values and int64 indices per
    row, at the rate the copy moved 2 × the input."""
    in_bytes = r * c * 4
    return copy_ms * (in_bytes + r * k * 12) / (2.0 * in_bytes)


class IssueSets:
    """SYNTHETIC stage 07 and torch JSON for the rows and long runs (made-up numbers chosen so
    ratios and fractions are easy to check by hand), built the way make table runs them: a
    quick run with three of the sets' shapes and their copies, then the rows and long runs each
    without the names an earlier run measured, merged; torch.topk on some of the shapes."""

    # (shape, sorted ms, unsorted ms or None, torch ms or None); copies in COPY_MS.
    QUICK = [((1, N28, 1024), 1.6, 1.5, 16.0), ((64, 1 << 20, 64), 0.5, 0.45, 1.25),
             ((16384, 4096, 8), 0.8, 0.7, 1.6)]
    ROWS = [((16384, 4096, 1), 0.5, None, 2.0), ((16384, 4096, 64), 1.0, None, None),
            ((1024, 65536, 1), 0.4, None, 1.6), ((1024, 65536, 8), 0.625, None, 3.125),
            ((64, 1 << 20, 8), 0.3125, None, 1.25)]
    LONG = [((1, N28, 1), 1.25, 1.2, 10.0), ((1, N28, 32), 2.0, 1.9, 12.0),
            ((1, N28, 65536), None, 4.0, 40.0), ((1, N28, N28 // 100), None, 10.0, 50.0)]
    COPY_MS = {(1, N28): 2.0, (64, 1 << 20): 0.5, (16384, 4096): 0.5, (1024, 65536): 0.5}

    def __init__(self) -> None:
        self.runs: List[Tuple[str, List[Dict[str, Any]]]] = []
        measured: set = set()
        for label, rows, copies in (("quick", self.QUICK, {(1, N28), (64, 1 << 20),
                                                             (16384, 4096)}),
                                    ("rows", self.ROWS, {(1024, 65536)}),
                                    ("long", self.LONG, set())):
            bench: List[Dict[str, Any]] = []
            for (r, c, k), ours, unsorted, _ in rows:
                copy_ms = self.COPY_MS[(r, c)] if (r, c) in copies else None
                if copy_ms is not None and f"copy/f32/rows:{r}/cols:{c}" not in measured:
                    bench.append(synthetic_row(f"copy/f32/rows:{r}/cols:{c}", copy_ms,
                                               n=float(r * c)))
                    measured.add(f"copy/f32/rows:{r}/cols:{c}")
                for entry, ms in (("stage07-topk", ours), ("stage07-topk-unsorted", unsorted)):
                    if ms is None:
                        continue
                    counters = {"n": float(r * c), "rows": float(r), "cols": float(c),
                                "k": float(k), "blocks_per_row": 1.0}
                    if copy_ms is not None:  # the run copied the input: bench's own floor
                        floor = bench_floor(r, c, k, copy_ms)
                        counters.update(copy_ms=copy_ms, floor_ms=floor,
                                        floor_fraction=floor / ms)
                    bench.append(synthetic_row(f"{entry}/f32/rows:{r}/cols:{c}/k:{k}", ms,
                                               **counters))
            self.runs.append((label, bench))
        context = {"date": "2026-01-02T03:04:05+00:00", "host_name": "fixture",
                   "executable": "SYNTHETIC, not a measurement (tests/table/test_stage_tables.py)",
                   "sortlab_gpu_name": "NVIDIA H100 80GB HBM3",
                   "sortlab_gpu_file_name": GPU}
        self.document = mb.merge([(label, f"stage07_{label}.json",
                                   {"context": dict(context), "benchmarks": bench})
                                  for label, bench in self.runs])
        self.torch = {"context": {"date": "2026-01-02T03:04:05+00:00", "torch_status": "ran"},
                      "benchmarks": [
                          synthetic_row(f"torch-topk/f32/rows:{r}/cols:{c}/k:{k}", theirs,
                                        n=float(r * c))
                          for (r, c, k), _, _, theirs in self.QUICK + self.ROWS + self.LONG
                          if theirs is not None]}
        # Google Benchmark's suffixes are not part of a torch name.
        for row in self.torch["benchmarks"]:
            row["name"] = row["run_name"] = row["name"].split("/iterations:")[0]


class Stage07IssueSetsTest(unittest.TestCase):
    """Stage 07's rows and long runs (issue 18's other two sets) from SYNTHETIC JSON."""

    def setUp(self) -> None:
        self.sets = IssueSets()
        self.data = stage_data("stage07", self.sets.document)
        self.torch = result_set(self.sets.torch)

    def table(self, label: str, torch: Optional[rt.ResultSet] = None
              ) -> Tuple[List[List[str]], str]:
        table = rt.stage07_table(self.data, torch if torch is not None else self.torch, label,
                                 "f32")
        assert table is not None
        return table_rows(table), table

    def test_make_tables_filter_keeps_every_name_once(self) -> None:
        # make table's rows run is --set=rows --sorted=1, its long run --set=long --sorted=both,
        # each without the names an earlier run measured (here the quick run's).
        quick = registered_names([s for s, *_ in IssueSets.QUICK], True, True)
        rows = registered_names(ROWS_SET, True, False)
        long = registered_names(LONG_SET, True, True)
        self.assertEqual([n for n in rows if n in quick], [
            "copy/f32/rows:16384/cols:4096", "stage07-topk/f32/rows:16384/cols:4096/k:8",
            "copy/f32/rows:64/cols:1048576", "stage07-topk/f32/rows:64/cols:1048576/k:64"])
        self.assertEqual([n for n in long if n in quick], [
            "copy/f32/rows:1/cols:268435456", "stage07-topk/f32/rows:1/cols:268435456/k:1024",
            "stage07-topk-unsorted/f32/rows:1/cols:268435456/k:1024"])
        # Sorted output stops at kMaxSortedK: k = 65536 and 1% of the row are unsorted only.
        self.assertNotIn("stage07-topk/f32/rows:1/cols:268435456/k:65536", long)
        self.assertIn("stage07-topk-unsorted/f32/rows:1/cols:268435456/k:2684354", long)

        def doc(names: List[str]) -> Dict[str, Any]:
            return {"context": {}, "benchmarks": [{"name": n, "run_type": "iteration"}
                                                  for n in names]}

        with self.assertRaises(ValueError):  # unfiltered, the merge refuses the repeats
            mb.merge([("quick", "q", doc(quick)), ("rows", "r", doc(rows))])
        done = set(quick)
        kept_rows = [n for n in rows if n not in done]
        done.update(kept_rows)
        kept_long = [n for n in long if n not in done]
        merged = mb.merge([("quick", "q", doc(quick)), ("rows", "r", doc(kept_rows)),
                           ("long", "l", doc(kept_long))])
        names = [b["name"] for b in merged["benchmarks"]]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(len(kept_rows), 19 + 5 - 4)  # 19 shapes, 5 copies, 4 measured by quick
        # A copy, sorted and unsorted k = 1, 32, 1024, unsorted 65536 and 1%; 3 measured by quick.
        self.assertEqual(len(kept_long), 1 + 3 * 2 + 2 - 3)

    def test_sections_name_the_sets(self) -> None:
        headings = [heading for heading, _ in rt.stage07_sections(self.data, self.torch)]
        self.assertEqual(len(headings), 3)
        self.assertIn("run `quick`", headings[0])
        self.assertEqual(headings[1],
                         "Top-k, run `rows`: 2^26 f32 values uniform in [0, 1) as rows of 4096, "
                         "65536, 2^20 (issue 18; n // row length whole rows), k = 1, 8, 64, "
                         "sorted output (torch.topk's default), the rule's schedule")
        self.assertEqual(headings[2],
                         "Top-k, run `long`: one row of 2^28 f32 values uniform in [0, 1) "
                         "(issue 18), k = 1, 32, 1024, 65536, 2684354, sorted output "
                         "(torch.topk's default), unsorted only at k = 65536, 2684354, the "
                         "rule's schedule")

    def test_rows_table_by_hand(self) -> None:
        rows, table = self.table("rows")
        # Ordered by row length, then k; the quick run's two shapes in it, marked.
        self.assertEqual([(row[0], row[1]) for row in rows], [
            ("16384 × 4096", "1"), ("16384 × 4096 (run `quick`)", "8"), ("16384 × 4096", "64"),
            ("1024 × 65536", "1"), ("1024 × 65536", "8"),
            ("64 × 2^20", "8"), ("64 × 2^20 (run `quick`)", "64")])
        # The ratio is torch / sorted ms; blank where torch did not measure the shape.
        self.assertEqual([row[8:] for row in rows], [
            ["2.00", "4.00×"], ["1.60", "2.00×"], ["", ""], ["1.60", "4.00×"],
            ["3.12", "5.00×"], ["1.25", "4.00×"], ["1.25", "2.50×"]])
        # The floor: the run's own copy (1024 × 65536), else the quick run's copy of the input
        # (marked †), or the quick row's own counters.
        for row, (r, c, k, ms, marked) in zip(rows, [
                (16384, 4096, 1, 0.5, True), (16384, 4096, 8, 0.8, False),
                (16384, 4096, 64, 1.0, True), (1024, 65536, 1, 0.4, False),
                (1024, 65536, 8, 0.625, False), (64, 1 << 20, 8, 0.3125, True),
                (64, 1 << 20, 64, 0.5, False)]):
            floor = bench_floor(r, c, k, 0.5)
            self.assertEqual(row[6:8], [rt.fmt_ms(floor) + (" †" if marked else ""),
                                        rt.fmt_percent(floor / ms)], row)
        # The note: issue 18's targets and the lowest measured values, from the numbers.
        self.assertIn("This run measures sorted output only", table)
        self.assertIn("A shape marked with a run (`quick`)", table)
        self.assertIn("Issue 18's targets at every shape: ≥ 3× torch.topk, ≥ 40% of the floor.",
                      table)
        lowest = bench_floor(16384, 4096, 64, 0.5) / 1.0  # 26%
        self.assertIn("Measured: lowest *torch / ours* 2.00× (16384 × 4096, k = 8), 4 of the 6 "
                      "shapes at ≥ 3×; lowest fraction of the floor "
                      f"{rt.fmt_percent(lowest)} (16384 × 4096, k = 64), 5 of the 7 shapes at "
                      "≥ 40%.", table)
        self.assertNotIn("(unsorted)", table)
        self.assertNotIn("take its unsorted time", table)

    def test_long_table_by_hand(self) -> None:
        rows, table = self.table("long")
        self.assertEqual([row[1] for row in rows], ["1", "32", "1024", "65536", "2684354"])
        self.assertEqual(rows[2][0], "1 × 2^28 (run `quick`)")
        # Sorted where measured; k = 65536 and 1% only unsorted: the unsorted time stands in
        # for torch / ours, marked.
        self.assertEqual([row[3] for row in rows], ["1.25", "2.00", "1.60", rt.DASH, rt.DASH])
        self.assertEqual([row[5] for row in rows], ["1.20", "1.90", "1.50", "4.00", "10.0"])
        self.assertEqual([row[9] for row in rows],
                         ["8.00×", "6.00×", "10.0×", "10.0× (unsorted)", "5.00× (unsorted)"])
        floor = bench_floor(1, N28, N28 // 100, 2.0)
        self.assertEqual(rows[4][6:8], [rt.fmt_ms(floor) + " †",
                                        rt.fmt_percent(floor / 10.0) + " (unsorted)"])
        self.assertIn("*torch / ours* and the targets take its unsorted time", table)
        self.assertIn("Issue 18's targets for every k: at most 0.7 ms, ≥ 7× torch.topk, ≥ 50% "
                      "of the floor.", table)
        self.assertIn("Measured: slowest 10.0 ms (1 × 2^28, k = 2684354, unsorted), 0 of the 5 "
                      "shapes within 0.7 ms; lowest *torch / ours* 5.00× (1 × 2^28, k = "
                      "2684354, unsorted), 3 of the 5 shapes at ≥ 7×; lowest fraction of the "
                      f"floor {rt.fmt_percent(floor / 10.0)} (1 × 2^28, k = 2684354, unsorted), "
                      "3 of the 5 shapes at ≥ 50%.", table)
        self.assertNotIn("This run measures sorted output only", table)

    def test_halving_a_time_changes_the_lowest_values(self) -> None:
        document = copy.deepcopy(self.sets.document)
        row_named(document, "stage07-topk/f32/rows:16384/cols:4096/k:64")["median_ms"] /= 4
        table = rt.stage07_table(stage_data("stage07", document), self.torch, "rows", "f32")
        assert table is not None
        # k = 64 is above the floor now; the quick run's k = 8 is the lowest (its counters).
        lowest = bench_floor(16384, 4096, 8, 0.5) / 0.8
        self.assertIn(f"lowest fraction of the floor {rt.fmt_percent(lowest)} (16384 × 4096, "
                      "k = 8), 6 of the 7 shapes", table)
        torch = copy.deepcopy(self.sets.torch)
        row_named(torch, "torch-topk/f32/rows:1/cols:268435456/k:2684354")["median_ms"] = 80.0
        _, table = self.table("long", result_set(torch))
        self.assertIn("lowest *torch / ours* 6.00× (1 × 2^28, k = 32), 4 of the 5 shapes", table)

    def test_without_torch_no_ratio_is_claimed(self) -> None:
        rows, table = self.table("long", rt.ResultSet([]))
        self.assertTrue(all(row[8:] == ["", ""] for row in rows))
        self.assertNotIn("torch / ours*", table.split("Measured:")[1])
        self.assertIn("Issue 18's targets for every k", table)

    def test_without_the_rows_and_long_runs_nothing_changes(self) -> None:
        # The quick run alone: its table and the sections are those of a JSON without the runs.
        quick_only = copy.deepcopy(self.sets.document)
        runs = quick_only["context"][mb.MERGED_RUNS]
        later = set(runs[1]["names"]) | set(runs[2]["names"])
        quick_only["benchmarks"] = [b for b in quick_only["benchmarks"] if b["name"] not in later]
        del runs[1:]
        alone = stage_data("stage07", quick_only)
        self.assertEqual(rt.stage07_table(self.data, self.torch, "quick", "f32"),
                         rt.stage07_table(alone, self.torch, "quick", "f32"))
        self.assertEqual(len(rt.stage07_sections(alone, self.torch)), 1)
        self.assertNotIn("Issue 18", rt.stage_page(alone, self.torch))

    def test_the_page_and_block_hold_the_tables(self) -> None:
        page = rt.stage_page(self.data, self.torch)
        self.assertIn("## Top-k, run `rows`: 2^26 f32 values", page)
        self.assertIn("## Top-k, run `long`: one row of 2^28 f32 values", page)
        self.assertIn("- Run `long` (`stage07_long.json`)", page)
        block = rt.stage_readme_block(self.data, self.torch, "/chapters/07_topk")
        self.assertIn("**Top-k, run `rows`: 2^26 f32 values", block)
        # No llm run: no plot section, even with a plot path.
        self.data.llm_plot = f"/results/{GPU}-stage07-llm-batch.png"
        self.assertNotIn(rt.STAGE07_PLOT_HEADING, rt.stage_page(self.data, self.torch))


class Stage07PlotSeriesTest(unittest.TestCase):
    """The lines of stage 07's plot of time against batch, from the llm fixtures."""

    def test_series_follow_the_llm_tables(self) -> None:
        data = stage_data("stage07", read_json(STAGE07_LLM_FIXTURE))
        series = rt.llm_batch_series(data, result_set(read_json(STAGE07_LLM_TORCH_FIXTURE)))
        self.assertEqual(list(series), ["f32", "bf16"])
        self.assertEqual(sorted(series["f32"]), [32000, 128256])
        # The quick run's 1 × 128256 k=2048 joins the llm run's 128 × 128256 k=2048 (no torch).
        self.assertEqual(series["f32"][128256][2048], ([(1, 0.02), (128, 0.5)], [(1, 0.3)]))
        self.assertEqual(series["f32"][128256][50], ([(128, 0.2)], [(128, 1.6)]))
        self.assertEqual(series["bf16"][32000][1], ([(1, 0.01)], [(1, 0.2)]))
        # Without torch: stage 07's points only; without an llm run: nothing to draw.
        self.assertEqual(rt.llm_batch_series(data, None)["f32"][32000][1], ([(1, 0.01)], []))
        self.assertEqual(rt.llm_batch_series(stage_data("stage07", read_json(STAGE07_JSON)),
                                             None), {})
        self.assertEqual(rt.llm_batch_series(stage_data("stage07", None), None), {})


class Stage06TableTest(unittest.TestCase):
    """Stage 06's table from the synthetic fixtures (made-up numbers, easy ratios)."""

    def setUp(self) -> None:
        self.document = read_json(STAGE06_FIXTURE)
        self.torch = read_json(STAGE06_TORCH_FIXTURE)

    def rows(self, document: Optional[Dict[str, Any]] = None,
             torch: Optional[Dict[str, Any]] = None,
             no_torch: bool = False) -> Tuple[List[List[str]], str]:
        torch_results = None if no_torch else result_set(torch or self.torch)
        sections = rt.stage06_sections(stage_data("stage06", document or self.document),
                                       torch_results)
        self.assertEqual(len(sections), 1)
        heading, table = sections[0]
        return table_rows(table), heading + "\n" + table

    def test_cells_by_hand(self) -> None:
        rows, text = self.rows()
        self.assertIn("n = 2^20 f32 keys with u32 values, uniform, cut into equal segments and a "
                      "power-law mix of segments\n", text)
        # segment size | segments | stage 06 ms | p10-p90 | CUB sort | CUB radix | torch.sort |
        # best peer | best peer / stage 06 | copies' worth (the pairs' copy takes 0.01 ms).
        # Equal sizes ascending, then the power-law mix (its cells from the counters of the mix
        # at n = 2^20: 7392 segments of 8 to 326854 keys); torch measured seg:8 and seg:128.
        self.assertEqual(rows, [
            ["8", "131,072", "0.200", "0.190–0.210", "0.400 ‡", rt.DASH, "0.600",
             "CUB DeviceSegmentedSort", "2.00×", "20.0"],
            ["128", "8,192", "0.100", "0.0900–0.110", "0.300 ‡", "0.0500", "0.0250",
             "torch.sort", "0.25×", "10.0"],
            ["4,096", "256", "0.0800", "0.0750–0.0850", "0.160 ‡", "0.240", rt.DASH,
             "CUB DeviceSegmentedSort", "2.00×", "8.00"],
            ["power law (8 – 326,854)", "7,392", "0.500", "0.480–0.520", "1.00 ‡", "0.750",
             rt.DASH, "CUB DeviceSegmentedRadixSort", "1.50×", "50.0"]])
        self.assertIn("‡ The call waits for the host", text)

    def test_bin_sweep_rows_make_a_table_of_their_own(self) -> None:
        # Made-up sweep rows: 3 keys (bin 2) sorted by bins 2, 3, 4 and 4 keys (bin 2) by bins
        # 2 and 3, where bin 3 is faster for 3 keys: the table says so; the issue's table is
        # unchanged by them.
        document = copy.deepcopy(self.document)
        before, _ = self.rows()

        def sweep_row(size: int, bin_: int, ms: float) -> Dict[str, Any]:
            row = copy.deepcopy(row_named(document, "stage06/f32/pairs/seg:8"))
            name = f"stage06-bins/f32/pairs/seg:{size}/bin:{bin_}/n:1048576/ands:0"
            row.update(name=name, run_name=name, median_ms=ms, p10_ms=ms, p90_ms=ms)
            return row

        # 16 keys (bin 4) has no row of its own bin (a failed run): its cells say so instead of
        # taking bin 5 for its own.
        document["benchmarks"] += [sweep_row(3, 2, 0.3), sweep_row(3, 3, 0.2),
                                   sweep_row(3, 4, 0.4), sweep_row(4, 2, 0.1),
                                   sweep_row(4, 3, 0.5), sweep_row(16, 5, 0.7)]
        sections = rt.stage06_sections(stage_data("stage06", document), result_set(self.torch))
        self.assertEqual(len(sections), 2)
        self.assertEqual(table_rows(sections[0][1]), before)
        heading, table = sections[1]
        self.assertTrue(heading.startswith("Bin sweep: n = 2^20 f32 keys with u32 values"))
        # segment size | its bin | its bin ms | next bin ms | the bin after ms | fastest bin |
        # its bin / fastest
        self.assertEqual(table_rows(table), [
            ["3", "2", "0.300", "0.200 (bin 3)", "0.400 (bin 4)", "3", "1.50×"],
            ["4", "2", "0.100", "0.500 (bin 3)", rt.DASH, "2", "1.00×"],
            ["16", "4", rt.DASH, "0.700 (bin 5)", rt.DASH, "5", rt.DASH]])

    def test_sort_rows_rows_make_a_table_against_torch(self) -> None:
        # Made-up sort_rows rows at seg:8 (0.3 ms: torch's 0.6 is 2x, the pairs' 0.2 is 1.5x
        # less) and seg:4096 (no torch row): a table after the issue's, which keeps its rows.
        document = copy.deepcopy(self.document)
        before, _ = self.rows()

        def rows_row(size: int, ms: float) -> Dict[str, Any]:
            row = copy.deepcopy(row_named(document, "stage06/f32/pairs/seg:8"))
            name = f"stage06-rows/f32/pairs/seg:{size}/n:1048576/ands:0"
            row.update(name=name, run_name=name, median_ms=ms, p10_ms=ms, p90_ms=ms)
            return row

        document["benchmarks"] += [rows_row(8, 0.3), rows_row(4096, 0.16)]
        sections = rt.stage06_sections(stage_data("stage06", document), result_set(self.torch))
        self.assertEqual(len(sections), 2)
        self.assertEqual(table_rows(sections[0][1]), before)
        heading, table = sections[1]
        self.assertEqual(heading, "sort_rows against torch.sort: n = 2^20 f32 values in rows")
        # row length | rows | sort_rows ms | p10-p90 | torch.sort ms | torch / sort_rows |
        # stage 06 pairs ms | sort_rows / pairs
        self.assertEqual(table_rows(table), [
            ["8", "131,072", "0.300", "0.300–0.300", "0.600", "2.00×", "0.200", "1.50×"],
            ["4,096", "256", "0.160", "0.160–0.160", rt.DASH, rt.DASH, "0.0800", "2.00×"]])

    def test_without_torch_rows_the_torch_cells_are_blank(self) -> None:
        expected_best = [["CUB DeviceSegmentedSort", "2.00×"],
                         ["CUB DeviceSegmentedRadixSort", "0.50×"],
                         ["CUB DeviceSegmentedSort", "2.00×"],
                         ["CUB DeviceSegmentedRadixSort", "1.50×"]]
        # No torch JSON, an empty one, and the committed one (torch.sort and torch.topk rows,
        # none of them segmented).
        for rows, _ in (self.rows(no_torch=True), self.rows(torch={"benchmarks": []}),
                        self.rows(torch=read_json(TORCH_JSON))):
            self.assertEqual([row[6] for row in rows], [rt.DASH] * 4)
            self.assertEqual([row[7:9] for row in rows], expected_best)

    def test_halving_a_torch_time_changes_the_best_peer(self) -> None:
        before, _ = self.rows()
        torch = copy.deepcopy(self.torch)
        row_named(torch, "torch-segsort/f32/pairs/seg:8")["median_ms"] /= 2
        rows, _ = self.rows(torch=torch)
        self.assertEqual(before[0][6:9], ["0.600", "CUB DeviceSegmentedSort", "2.00×"])
        self.assertEqual(rows[0][6:9], ["0.300", "torch.sort", "1.50×"])
        self.assertEqual(rows[1:], before[1:])

    def test_a_failed_torch_row_says_so(self) -> None:
        torch = copy.deepcopy(self.torch)
        torch["benchmarks"].append({
            "name": "torch-segsort/f32/pairs/seg:4096/n:1048576/ands:0", "run_type": "iteration",
            "error_occurred": True, "error_message": "CUDA out of memory"})
        rows, _ = self.rows(torch=torch)
        self.assertEqual(rows[2][6:8], ["failed", "CUB DeviceSegmentedSort"])

    def test_segment_cells_follow_the_counters(self) -> None:
        changed = copy.deepcopy(self.document)
        mix = row_named(changed, "stage06/f32/pairs/seg:powerlaw")
        mix["segments"], mix["largest_segment"] = 7000.0, 4194304.0
        rows, _ = self.rows(changed)
        self.assertEqual(rows[3][:2], ["power law (8 – 4,194,304)", "7,000"])
        # Without the counters (JSON from before them): equal segments fall back to n / size,
        # the power-law mix has no numbers to show.
        bare = copy.deepcopy(self.document)
        for bench in bare["benchmarks"]:
            for counter in ("segments", "smallest_segment", "largest_segment"):
                bench.pop(counter, None)
        rows, _ = self.rows(bare)
        self.assertEqual([row[:2] for row in rows],
                         [["8", "131,072"], ["128", "8,192"], ["4,096", "256"],
                          ["power law", rt.DASH]])

    def test_without_the_power_law_rows_the_heading_and_rows_are_as_before(self) -> None:
        equal = copy.deepcopy(self.document)
        equal["benchmarks"] = [b for b in equal["benchmarks"] if "/seg:powerlaw/" not in b["name"]]
        rows, text = self.rows(equal)
        self.assertIn("n = 2^20 f32 keys with u32 values, uniform, cut into equal segments\n",
                      text)
        self.assertEqual(rows, self.rows()[0][:3])

    def test_dropping_a_row_or_halving_a_time_changes_the_table(self) -> None:
        before, _ = self.rows()
        dropped = copy.deepcopy(self.document)
        dropped["benchmarks"] = [b for b in dropped["benchmarks"]
                                 if not b["name"].startswith("stage06/f32/pairs/seg:128/")]
        rows, _ = self.rows(dropped)
        self.assertEqual(rows[1][2:4], [rt.DASH, rt.DASH])
        self.assertEqual(rows[1][8:], [rt.DASH, rt.DASH])
        halved = copy.deepcopy(self.document)
        row_named(halved, "cub-segmented-radix/f32/pairs/seg:4096")["median_ms"] /= 2
        rows, _ = self.rows(halved)
        self.assertNotEqual(rows, before)
        self.assertEqual(rows[2][5:9], ["0.120", rt.DASH, "CUB DeviceSegmentedRadixSort",
                                        "1.50×"])

    def test_a_failed_peer_says_so(self) -> None:
        document = copy.deepcopy(self.document)
        document["benchmarks"].append({
            "name": "cub-segmented-radix/f32/pairs/seg:8/n:1048576/ands:0/iterations:1/"
                    "manual_time", "run_type": "iteration", "error_occurred": True,
            "error_message": "out of memory"})
        rows, _ = self.rows(document)
        self.assertEqual(rows[0][5], "failed")

    def test_torch_segsort_rows_stay_off_the_ladder_page(self) -> None:
        # They are stage 06's column; the main page's baselines table compares with CUB's full
        # sort, which a segmented sort is not.
        results = rt.load_result_set([read_json(LADDER_JSON), self.torch])
        self.assertIsNotNone(results.find(rt.TORCH_SEGSORT, 1 << 20, "f32", "pairs", "seg:8"))
        self.assertNotIn(rt.TORCH_SEGSORT, rt.baselines_table(results) or "")
        self.assertFalse(any(name.startswith(rt.TORCH_SEGSORT) for name in rt.plot_series(results)))


README_TOP = "# sortlab\n\n<!-- results:table:begin -->\n<!-- results:table:end -->\n"
README_STAGE06 = ("# Stage 06\n\nText of others.\n\n## Measured on the H100\n\n"
                  "<!-- results:stage06:begin -->\n<!-- results:stage06:end -->\n\nMore text.\n")
README_STAGE07 = ("# Stage 07\n\n## Results\n\n<!-- results:stage07:begin -->\nstale\n"
                  "<!-- results:stage07:end -->\n")


class StageDriftTest(unittest.TestCase):
    """results_table.py writes and checks the stage pages and README blocks."""

    def make_repo(self) -> str:
        root = tempfile.mkdtemp(prefix="sortlab-stage-test-")
        self.addCleanup(shutil.rmtree, root)
        for path, text in (("README.md", README_TOP),
                           ("chapters/06_segmented_sort/README.md", README_STAGE06),
                           ("chapters/07_topk/README.md", README_STAGE07)):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as handle:
                handle.write(text)
        return root

    def results_dir(self, root: str) -> str:
        return os.path.join(root, "docs", "results")

    def run_main(self, root: str, *extra: str, torch_json: str = TORCH_JSON,
                 plot: bool = False) -> Tuple[int, str]:
        output = io.StringIO()
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            status = rt.main(["--bench-json", LADDER_JSON, "--torch-json", torch_json,
                              "--results-dir", self.results_dir(root), "--repo-root", root,
                              *(() if plot else ("--no-plot",)), *extra])
        return status, output.getvalue()

    def read(self, path: str) -> str:
        with open(path, encoding="utf-8") as handle:
            return handle.read()

    def rewrite_json(self, path: str, change) -> None:
        document = read_json(path)
        change(document)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(document, handle)

    def test_without_stage_json_the_blocks_say_not_measured_and_the_check_passes(self) -> None:
        root = self.make_repo()
        self.assertEqual(self.run_main(root)[0], 0)
        stage06 = self.read(os.path.join(root, "chapters/06_segmented_sort/README.md"))
        self.assertIn("*Not measured yet: there is no `NVIDIA-H100-80GB-HBM3-stage06.json`",
                      stage06)
        self.assertIn("[the results folder](../../docs/results/)", stage06)
        self.assertTrue(stage06.startswith("# Stage 06\n\nText of others."))
        self.assertTrue(stage06.endswith("<!-- results:stage06:end -->\n\nMore text.\n"))
        self.assertIn("Not measured yet",
                      self.read(os.path.join(root, "chapters/07_topk/README.md")))
        self.assertFalse(any("stage0" in name for name in os.listdir(self.results_dir(root))))
        status, output = self.run_main(root, "--check")
        self.assertEqual(status, 0, output)
        # A stage page left behind without its JSON is drift.
        stale = os.path.join(self.results_dir(root), f"{GPU}-stage07.md")
        with open(stale, "w", encoding="utf-8") as handle:
            handle.write("old\n")
        status, output = self.run_main(root, "--check")
        self.assertEqual(status, 1)
        self.assertIn(f"DRIFT: {stale}: exists, but its JSON", output)

    def test_check_covers_the_stage_pages_and_blocks(self) -> None:
        root = self.make_repo()
        status, output = self.run_main(root, "--stage06-json", STAGE06_FIXTURE,
                                       "--stage07-json", STAGE07_JSON)
        self.assertEqual(status, 0, output)
        results = self.results_dir(root)
        for stage in ("stage06", "stage07"):
            for suffix in (".json", ".md"):
                self.assertTrue(os.path.exists(os.path.join(results, f"{GPU}-{stage}{suffix}")))
        self.assertIn(f"[{GPU}-stage07.md]({GPU}-stage07.md)",
                      self.read(os.path.join(results, f"{GPU}.md")))
        stage07 = self.read(os.path.join(root, "chapters/07_topk/README.md"))
        self.assertNotIn("stale", stage07)
        self.assertIn("| 4096 × 32768 | 64 | 1 | 1.70 |", stage07)
        self.assertIn(f"(../../docs/results/{GPU}-stage07.json)", stage07)
        self.assertIn("| 4,096 | 256 | 0.0800 |",
                      self.read(os.path.join(root, "chapters/06_segmented_sort/README.md")))
        # The check reads the stage JSON from docs/results by default.
        self.assertEqual(self.run_main(root, "--check")[0], 0)

        def drop_row(document: Dict[str, Any]) -> None:
            document["benchmarks"] = [b for b in document["benchmarks"] if not b["name"]
                                      .startswith("stage07-topk/f32/rows:16384/")]

        def halve(name: str):
            def change(document: Dict[str, Any]) -> None:
                row_named(document, name)["median_ms"] /= 2
            return change

        for stage, change in (("stage07", drop_row),
                              ("stage07", halve("stage07-topk-unsorted/f32/rows:1/cols:128256/"
                                                "k:2048/schedule:one")),
                              ("stage06", halve("stage06/f32/pairs/seg:8")),
                              ("stage06", halve("cub-segmented-sort/f32/pairs/seg:128"))):
            path = os.path.join(results, f"{GPU}-{stage}.json")
            saved = self.read(path)
            self.rewrite_json(path, change)
            status, output = self.run_main(root, "--check")
            self.assertEqual(status, 1, (stage, output))
            self.assertIn(f"DRIFT: {os.path.join(results, f'{GPU}-{stage}.md')}", output)
            readme = {"stage06": "chapters/06_segmented_sort", "stage07": "chapters/07_topk"}
            self.assertIn(f"DRIFT: {os.path.join(root, readme[stage], 'README.md')}", output)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(saved)
            self.assertEqual(self.run_main(root, "--check")[0], 0)

    def test_torch_segsort_rows_reach_the_stage06_block_and_their_drift_is_caught(self) -> None:
        root = self.make_repo()
        torch_json = os.path.join(root, "torch.json")
        shutil.copyfile(STAGE06_TORCH_FIXTURE, torch_json)
        status, output = self.run_main(root, "--stage06-json", STAGE06_FIXTURE,
                                       torch_json=torch_json)
        self.assertEqual(status, 0, output)
        readme = os.path.join(root, "chapters/06_segmented_sort/README.md")
        self.assertIn("| 128 | 8,192 | 0.100 | 0.0900–0.110 | 0.300 ‡ | 0.0500 | 0.0250 | "
                      "torch.sort | 0.25× |", self.read(readme))
        self.assertEqual(self.run_main(root, "--check", torch_json=torch_json)[0], 0)

        def halve(document: Dict[str, Any]) -> None:
            row_named(document, "torch-segsort/f32/pairs/seg:8")["median_ms"] /= 2

        self.rewrite_json(torch_json, halve)
        status, output = self.run_main(root, "--check", torch_json=torch_json)
        self.assertEqual(status, 1, output)
        self.assertIn(f"DRIFT: {os.path.join(self.results_dir(root), f'{GPU}-stage06.md')}",
                      output)
        self.assertIn(f"DRIFT: {readme}", output)

    def test_the_llm_plot_is_shown_exactly_when_drawn(self) -> None:
        root = self.make_repo()
        results = self.results_dir(root)
        png = os.path.join(results, f"{GPU}-stage07-llm-batch.png")
        page = os.path.join(results, f"{GPU}-stage07.md")
        readme = os.path.join(root, "chapters/07_topk/README.md")
        args = ("--stage07-json", STAGE07_LLM_FIXTURE)

        def drawn(data: rt.StageData, torch: Optional[rt.ResultSet], path: str) -> None:
            with open(path, "wb") as handle:  # stands in for matplotlib (not needed here)
                handle.write(b"png")

        def missing(data: rt.StageData, torch: Optional[rt.ResultSet], path: str) -> str:
            return "matplotlib is not installed: plot skipped (pip install matplotlib)"

        no_main_plot = mock.patch.object(rt, "write_plot", lambda results, path: "skipped")
        with no_main_plot, mock.patch.object(rt, "write_llm_batch_plot", drawn):
            status, output = self.run_main(root, *args,
                                           torch_json=STAGE07_LLM_TORCH_FIXTURE, plot=True)
        self.assertEqual(status, 0, output)
        self.assertTrue(os.path.exists(png))
        text = self.read(page)
        image = f"![{rt.STAGE07_PLOT_ALT}]({GPU}-stage07-llm-batch.png)"
        self.assertIn(f"## {rt.STAGE07_PLOT_HEADING}\n\n{image}\n", text)
        # Right after the llm run's tables (f32, then bf16).
        self.assertLess(text.index("run `llm`: LLM sampling shapes (issue 18), bf16"),
                        text.index(rt.STAGE07_PLOT_HEADING))
        self.assertIn(f"(../../docs/results/{GPU}-stage07-llm-batch.png)", self.read(readme))
        # The check shows the committed PNG, as the main plot's.
        status, output = self.run_main(root, "--check", torch_json=STAGE07_LLM_TORCH_FIXTURE,
                                       plot=True)
        self.assertEqual(status, 0, output)
        # Not drawn (no matplotlib): the earlier PNG goes, nothing links it, the check passes.
        with no_main_plot, mock.patch.object(rt, "write_llm_batch_plot", missing):
            status, output = self.run_main(root, *args,
                                           torch_json=STAGE07_LLM_TORCH_FIXTURE, plot=True)
        self.assertEqual(status, 0, output)
        self.assertIn("stage 07 matplotlib is not installed", output)
        self.assertFalse(os.path.exists(png))
        self.assertNotIn(rt.STAGE07_PLOT_HEADING, self.read(page))
        self.assertNotIn("llm-batch", self.read(readme))
        status, output = self.run_main(root, "--check", torch_json=STAGE07_LLM_TORCH_FIXTURE,
                                       plot=True)
        self.assertEqual(status, 0, output)
        # A PNG beside a page that does not show it is drift (as the main plot's).
        with open(png, "wb") as handle:
            handle.write(b"png")
        status, output = self.run_main(root, "--check", torch_json=STAGE07_LLM_TORCH_FIXTURE,
                                       plot=True)
        self.assertEqual(status, 1, output)
        self.assertIn(f"DRIFT: {page}", output)

    def test_no_llm_run_no_plot(self) -> None:
        root = self.make_repo()
        png = os.path.join(self.results_dir(root), f"{GPU}-stage07-llm-batch.png")
        self.assertEqual(self.run_main(root, "--stage07-json", STAGE07_JSON)[0], 0)
        with open(png, "wb") as handle:
            handle.write(b"png")
        # The quick and schedule runs only: nothing to draw, so a PNG there is not shown.
        status, output = self.run_main(root, "--check", plot=True)
        self.assertEqual(status, 0, output)

    def test_a_missing_stage_json_named_on_the_command_line_is_an_error(self) -> None:
        root = self.make_repo()
        status, output = self.run_main(root, "--stage06-json", os.path.join(root, "none.json"))
        self.assertEqual(status, 1)
        self.assertIn("no such file", output)


class CommittedStageDocsTest(unittest.TestCase):
    """The committed stage 07 JSON is really covered by the committed docs' check."""

    def test_committed_blocks(self) -> None:
        with open(os.path.join(REPO, "chapters", "07_topk", "README.md"), encoding="utf-8") as h:
            stage07 = h.read()
        block = stage07.split("<!-- results:stage07:begin -->")[1].split(
            "<!-- results:stage07:end -->")[0]
        self.assertIn(f"[the raw benchmark JSON](../../docs/results/{GPU}-stage07.json)", block)
        # The schedule table is there exactly when the committed run forced the schedules.
        forced = any("/schedule:" in b["name"]
                     for b in read_json(STAGE07_COMMITTED)["benchmarks"])
        self.assertEqual("Schedules: each forced" in block, forced)
        self.assertTrue(os.path.exists(os.path.join(RESULTS, f"{GPU}-stage07.md")))
        with open(os.path.join(REPO, "chapters", "06_segmented_sort", "README.md"),
                  encoding="utf-8") as h:
            stage06 = h.read()
        block = stage06.split("<!-- results:stage06:begin -->")[1].split(
            "<!-- results:stage06:end -->")[0]
        measured = os.path.exists(os.path.join(RESULTS, f"{GPU}-stage06.json"))
        self.assertEqual("Not measured yet" in block, not measured)


if __name__ == "__main__":
    unittest.main()
