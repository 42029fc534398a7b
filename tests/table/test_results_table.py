"""CPU tests of `make table`'s scripts: results_table.py on a hand-written fixture (fake numbers,
chosen so every ratio is easy to check by hand), torch_baseline.py's JSON format, and
make_table.sh's stop without a GPU.

Run by ctest (`ctest -L table`), or directly:
    PYTHONPATH=bench/table python3 -m unittest discover -s tests/table -v
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from typing import Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "table"))

import results_table as rt  # noqa: E402
import torch_baseline as tb  # noqa: E402

try:
    import matplotlib  # noqa: F401

    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False

FIXTURES = os.path.join(HERE, "fixtures")
BENCH_JSON = os.path.join(FIXTURES, "bench_all.json")
TORCH_JSON = os.path.join(FIXTURES, "torch.json")
M, B = 1 << 20, 1 << 24


def load_fixture() -> rt.ResultSet:
    """The fixture's bench_all and torch JSON as one ResultSet."""
    documents = []
    for path in (BENCH_JSON, TORCH_JSON):
        with open(path, encoding="utf-8") as handle:
            documents.append(json.load(handle))
    return rt.load_result_set(documents)


def table_rows(markdown: str) -> List[List[str]]:
    """The body rows of the first markdown table in the text, as lists of cells."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[2:]]


def rows_by_first_cell(markdown: str) -> Dict[str, List[str]]:
    """Table rows keyed by their first cell."""
    return {row[0]: row for row in table_rows(markdown)}


class ParseTest(unittest.TestCase):
    """Benchmark names and JSON entries."""

    def test_name_parts_without_google_benchmark_suffixes(self) -> None:
        parsed = rt.parse_name("stage03/u32/keys/r:4/n:1024/ands:2/min_time:0.050/manual_time")
        self.assertEqual(parsed, rt.ParsedName("stage03", "u32", "keys", "r:4", 1024, 2))

    def test_name_with_several_variant_parts_and_no_kind(self) -> None:
        parsed = rt.parse_name("torch-topk/f32/rows:4096/cols:32768/k:64")
        self.assertEqual(parsed.kind, "")
        self.assertEqual(parsed.variant, "rows:4096/cols:32768/k:64")
        self.assertIsNone(parsed.n)

    def test_errors_become_failures_and_aggregates_are_dropped(self) -> None:
        results = load_fixture()
        self.assertEqual(len(results.failures), 1)
        self.assertIn("out of memory", results.failures[0].message)
        # The fixture's aggregate repeats stage00 at 2^24 with 1.1 ms: it must not win.
        self.assertEqual(results.find("stage00", B).median_ms, 1.0)

    def test_copy_ceiling_is_the_best_copy(self) -> None:
        self.assertEqual(load_fixture().copy_ceiling().gbps, 3000.0)

    def test_stages_in_ladder_order_whatever_the_json_order(self) -> None:
        self.assertEqual(load_fixture().stages(),
                         ["stage00", "stage01", "stage02", "stage03", "stage04"])


class FormatTest(unittest.TestCase):
    """Number formatting."""

    def test_numbers(self) -> None:
        self.assertEqual(rt.fmt_n(1 << 24), "2^24")
        self.assertEqual(rt.fmt_n(1000), "1,000")
        self.assertEqual(rt.fmt_sig(0.0123), "0.0123")
        self.assertEqual(rt.fmt_sig(12.345), "12.3")
        self.assertEqual(rt.fmt_sig(3012.4), "3,012")
        self.assertEqual(rt.fmt_ratio(3.2), "3.20×")
        self.assertEqual(rt.fmt_ratio(0.025), "0.025×")
        self.assertEqual(rt.fmt_ratio(None), rt.DASH)
        self.assertEqual(rt.fmt_percent(0.5), "50%")
        self.assertEqual(rt.fmt_percent(0.089), "8.9%")


class LadderTableTest(unittest.TestCase):
    """The ladder table: ladder order, ratios, missing stages."""

    def setUp(self) -> None:
        self.results = load_fixture()

    def test_rows_follow_the_ladder_not_the_speed(self) -> None:
        rows = table_rows(rt.ladder_table(self.results, M))
        self.assertEqual([row[0] for row in rows],
                         ["stage00", rt.CUB_BEST, "stage01", "stage02", "stage03", "stage04"])

    def test_cells_at_2_to_the_20(self) -> None:
        rows = rows_by_first_cell(rt.ladder_table(self.results, M))
        # stage | what changed | ms | p10-p90 | G keys/s | GB/s | copies' worth | vs previous |
        # vs CUB best. The old-format fixture has no spread; the keys' copy takes 0.0041943 ms.
        self.assertEqual(rows["stage00"][2:],
                         ["0.100", rt.DASH, "10.5", "1,500", "23.8", rt.DASH, "1.00×"])
        self.assertEqual(rows["stage01"][7:], [rt.DASH, "0.025×"])  # no previous rung of ours
        self.assertEqual(rows["stage02"][6:], ["477", "2.00×", "0.050×"])
        self.assertEqual(rows["stage03"][7:], ["4.00×", "0.20×"])
        self.assertEqual(rows["stage04"][7:], ["2.00×", "0.40×"])
        # The label is the stage's kSummary, with its '|' escaped for markdown.
        self.assertEqual(rows["stage04"][1], "thread coarsening: 8 keys per thread \\| 2048-key tiles")

    def test_missing_stage_keeps_its_row_and_breaks_the_next_ratio(self) -> None:
        rows = rows_by_first_cell(rt.ladder_table(self.results, B))
        self.assertIn("not measured at this size", rows["stage01"][1])
        self.assertEqual(rows["stage01"][2:], [rt.DASH] * 7)
        self.assertEqual(rows["stage02"][7], rt.DASH)  # stage01 missing: no speed-up
        self.assertEqual(rows["stage03"][7:], ["5.00×", "0.12×"])
        self.assertEqual(rows["stage04"][7:], ["3.20×", "0.40×"])

    def test_failed_stage_says_so(self) -> None:
        rows = rows_by_first_cell(rt.ladder_table(self.results, M, kind="pairs"))
        self.assertIn("failed: sort: out of memory", rows["stage02"][1])

    def test_no_stage_measured_gives_none(self) -> None:
        self.assertIsNone(rt.ladder_table(self.results, 1 << 28))


class OtherTablesTest(unittest.TestCase):
    """Baselines, sweeps, stage blocks."""

    def setUp(self) -> None:
        self.results = load_fixture()

    def test_baselines_against_cub_best_of_the_same_bits(self) -> None:
        table = rt.baselines_table(self.results)
        rows = {(row[1], row[2]): row for row in table_rows(table)}
        self.assertEqual(rows[("u32 keys", "thrust")][-1], "0.80×")
        # Every key type is compared with CUB's best instantiation at the same n (u32 here).
        self.assertEqual(rows[("f32 keys", "torch-sort")][-1], "0.25×")
        self.assertEqual(rows[("i32 keys", "torch-sort")][-1], "0.50×")
        order = [row[2] for row in table_rows(table) if row[1] == "u32 keys"]
        self.assertEqual(order, ["CUB (stage00)", "CUB best", "thrust",
                                 "cub-segmented-radix seg:128", "cub-segmented-radix seg:16384"])

    def test_sweep_marks_the_default_and_compares_with_it(self) -> None:
        rows = table_rows(rt.sweep_table(self.results, "stage03", B))
        self.assertEqual([row[0] for row in rows], ["1", "4 (default)", "8"])
        self.assertEqual([row[-1] for row in rows], ["0.25×", "1.00×", "2.00×"])
        rows = table_rows(rt.sweep_table(self.results, "stage04", B))
        self.assertEqual([row[0] for row in rows], ["1", "8 (default)", "16"])

    def test_a_second_sweep_gets_its_own_default_and_headings(self) -> None:
        self.assertEqual(rt.sweep_prefixes(self.results, "stage04"), ["kpt", "r"])
        rows = table_rows(rt.sweep_table(self.results, "stage04", B, "r"))
        self.assertEqual([row[0] for row in rows], ["4 (default)", "6"])
        self.assertEqual([row[-1] for row in rows], ["1.00×", "2.00×"])
        block = rt.sweep_block(self.results, "stage04")
        assert block is not None
        self.assertLess(block.index("keys per thread sweep"), block.index("r (bits per digit) sweep"))
        self.assertNotIn("sweep,", rt.sweep_block(self.results, "stage03") or "")

    def test_stage_block_over_sizes(self) -> None:
        rows = table_rows(rt.stage_table(self.results, "stage04"))
        self.assertEqual([(row[0], row[1]) for row in rows],
                         [("2^20", "keys"), ("2^24", "keys"), ("2^24", "keys, ANDed 2×"),
                          ("2^20", "pairs")])
        self.assertEqual(rows[1][-2:], ["3.20×", "0.40×"])
        self.assertIn("vs stage03", rt.stage_table(self.results, "stage04").splitlines()[0])

    def test_topk(self) -> None:
        rows = table_rows(rt.topk_table(self.results))
        self.assertEqual(rows, [["f32", "4096", "32768", "64", "0.500", "268", "1,080"]])

    def test_page_has_provenance_and_every_section(self) -> None:
        page = rt.results_page(self.results, "g.json", "g-torch.json", None)
        for text in ("do not edit", "NVIDIA H100 80GB HBM3", "2025-11-22", "## Inputs",
                     "- reduced entropy: stages: u32 keys, n = 2^24, ands = 2",
                     "## Baselines", "## torch.topk", "## Stage 03: digit width r",
                     "## Stage 04: keys per thread", "## The copy floors", "## Failed",
                     "## Method and provenance", "the method before issue 13"):
            self.assertIn(text, page)

    @unittest.skipUnless(HAVE_MATPLOTLIB, "matplotlib is not installed")
    def test_plot_is_written(self) -> None:
        root = tempfile.mkdtemp(prefix="sortlab-table-test-")
        self.addCleanup(shutil.rmtree, root)
        path = os.path.join(root, "plot.png")
        self.assertIsNone(rt.write_plot(self.results, path))
        with open(path, "rb") as handle:
            self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n")

    def test_plot_series(self) -> None:
        series = rt.plot_series(self.results)
        names = list(series)
        self.assertEqual(names[:4], ["stage00", "stage01", "stage02", "stage03"])
        self.assertIn(rt.CUB_BEST, names)  # the baseline the ratios use is drawn too
        self.assertIn("torch-sort (i32)", names)
        self.assertNotIn("stage03 r:4", names)  # sweeps are not lines of the plot
        self.assertNotIn("stage00 (f32)", names)
        self.assertEqual([p.n for p in series["stage00"]], [M, B])


README_TOP = """# sortlab

Intro text.

<!-- results:table:begin -->
old numbers
<!-- results:table:end -->

Footer.
"""

README_STAGE03 = """# Stage 03

## Measured on the H100
<!-- results:stage03:begin -->
<!-- results:stage03:end -->

## Sweep
<!-- sweep:stage03:begin -->
stale
<!-- sweep:stage03:end -->
"""

README_NO_MARKERS = "# Stage 02\n\nNo markers here.\n"


class ReadmeTest(unittest.TestCase):
    """Rewriting the marked README blocks, on a temporary copy of a repository layout."""

    def test_replace_block(self) -> None:
        text = "a\n<!-- x:begin -->\nold\n<!-- x:end -->\nb\n"
        new = rt.replace_block(text, "x", "new")
        self.assertEqual(new, "a\n<!-- x:begin -->\nnew\n<!-- x:end -->\nb\n")
        self.assertEqual(rt.replace_block(new, "x", "new"), new)  # idempotent
        self.assertIsNone(rt.replace_block("no markers", "x", "new"))
        self.assertIsNone(rt.replace_block("<!-- x:end -->\n<!-- x:begin -->", "x", "new"))

    def make_repo(self, root: str) -> None:
        os.makedirs(os.path.join(root, "chapters", "03_multibit_radix"))
        os.makedirs(os.path.join(root, "chapters", "02_coalesced_sort"))
        files = {"README.md": README_TOP,
                 "chapters/03_multibit_radix/README.md": README_STAGE03,
                 "chapters/02_coalesced_sort/README.md": README_NO_MARKERS}
        for path, text in files.items():
            with open(os.path.join(root, path), "w", encoding="utf-8") as handle:
                handle.write(text)

    def run_main(self, root: str, *extra: str) -> str:
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            status = rt.main(["--bench-json", BENCH_JSON, "--torch-json", TORCH_JSON,
                              "--results-dir", os.path.join(root, "docs", "results"),
                              "--repo-root", root, "--no-plot", *extra])
        self.assertEqual(status, 0)
        return output.getvalue()

    def read(self, root: str, path: str) -> str:
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            return handle.read()

    def test_main_writes_page_raw_json_and_readme_blocks(self) -> None:
        root = tempfile.mkdtemp(prefix="sortlab-table-test-")
        self.addCleanup(shutil.rmtree, root)
        self.make_repo(root)
        output = self.run_main(root)

        results_dir = os.path.join(root, "docs", "results")
        self.assertEqual(sorted(os.listdir(results_dir)),
                         ["NVIDIA-H100-80GB-HBM3-torch.json", "NVIDIA-H100-80GB-HBM3.json",
                          "NVIDIA-H100-80GB-HBM3.md"])
        with open(BENCH_JSON, encoding="utf-8") as a, \
                open(os.path.join(results_dir, "NVIDIA-H100-80GB-HBM3.json"), encoding="utf-8") as b:
            self.assertEqual(a.read(), b.read())  # the raw JSON, verbatim

        top = self.read(root, "README.md")
        self.assertNotIn("old numbers", top)
        self.assertTrue(top.startswith("# sortlab\n\nIntro text.\n"))
        self.assertTrue(top.endswith("<!-- results:table:end -->\n\nFooter.\n"))
        self.assertIn("**n = 2^24 u32 keys, uniform**", top)
        self.assertIn("(docs/results/NVIDIA-H100-80GB-HBM3.md)", top)
        self.assertIn("](docs/results/NVIDIA-H100-80GB-HBM3.json)", top)
        self.assertIn("| stage04 |", top)

        stage03 = self.read(root, "chapters/03_multibit_radix/README.md")
        self.assertNotIn("stale", stage03)
        self.assertIn("](../../docs/results/NVIDIA-H100-80GB-HBM3.json)", stage03)
        self.assertIn("| 4 (default) |", stage03)
        self.assertIn("vs stage02", stage03)

        self.assertEqual(self.read(root, "chapters/02_coalesced_sort/README.md"), README_NO_MARKERS)
        self.assertIn("results:stage02:begin --> / <!-- results:stage02:end --> markers, left alone",
                      output)

        # A second run changes nothing.
        before = (top, stage03)
        self.run_main(root)
        self.assertEqual((self.read(root, "README.md"),
                          self.read(root, "chapters/03_multibit_radix/README.md")), before)

    def test_readmes_keep_h100_numbers_when_the_gpu_differs(self) -> None:
        root = tempfile.mkdtemp(prefix="sortlab-table-test-")
        self.addCleanup(shutil.rmtree, root)
        self.make_repo(root)
        output = self.run_main(root, "--readme-gpu", "A100")
        self.assertEqual(self.read(root, "README.md"), README_TOP)
        self.assertIn("READMEs left alone", output)


class TorchBaselineTest(unittest.TestCase):
    """torch_baseline.py's output is read like bench_all's."""

    def test_entry_round_trip(self) -> None:
        entry = tb.benchmark_entry(tb.sort_name("i32", True, 1024), "label", 1024,
                                   [3.0, 1.0, 2.0], tb.sort_bytes(1024))
        results, failures = rt.parse_benchmarks({"benchmarks": [entry]})
        self.assertEqual(failures, [])
        (result,) = results
        self.assertEqual((result.entry, result.key_type, result.kind, result.n, result.ands),
                         ("torch-sort", "i32", "pairs", 1024, 0))
        self.assertEqual(result.median_ms, 2.0)
        self.assertAlmostEqual(result.keys_per_s, 1024 / 2e-3)
        self.assertAlmostEqual(result.gbps, 16 * 1024 / 2e-3 * 1e-9)
        topk = rt.parse_name(tb.topk_name(4096, 32768, 64))
        self.assertEqual(topk.variant, "rows:4096/cols:32768/k:64")

    def test_sizes_follow_bench_all(self) -> None:
        self.assertEqual(tb.sizes_from_bench_json(BENCH_JSON), ([M, B], [M]))
        self.assertEqual(tb.sizes_from_bench_json("/nonexistent.json"),
                         ([1 << k for k in tb.DEFAULT_KEYS_LOG2],
                          [1 << k for k in tb.DEFAULT_PAIRS_LOG2]))

    @unittest.skipIf(tb.torch_unavailable_reason() is None,
                     "torch and CUDA are usable here: the script would really benchmark")
    def test_without_torch_writes_an_empty_list_and_says_why(self) -> None:
        root = tempfile.mkdtemp(prefix="sortlab-table-test-")
        self.addCleanup(shutil.rmtree, root)
        out = os.path.join(root, "torch.json")
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            self.assertEqual(tb.main(["--out", out]), 0)
        self.assertIn("torch baseline skipped:", output.getvalue())
        with open(out, encoding="utf-8") as handle:
            document = json.load(handle)
        self.assertEqual(document["benchmarks"], [])
        self.assertTrue(document["context"]["torch_status"].startswith("skipped: "))


class MakeTableScriptTest(unittest.TestCase):
    """make_table.sh stops at once, before building, when there is no GPU."""

    def test_no_gpu_message(self) -> None:
        root = tempfile.mkdtemp(prefix="sortlab-table-test-")
        self.addCleanup(shutil.rmtree, root)
        build = os.path.join(root, "build")
        env = dict(os.environ, NVIDIA_SMI=os.path.join(root, "no-such-nvidia-smi"))
        result = subprocess.run(["bash", os.path.join(REPO, "bench", "table", "make_table.sh"),
                                 build], env=env, capture_output=True, text=True, timeout=60,
                                check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("no NVIDIA GPU here", result.stderr)
        self.assertIn("sortlab trace --stage 1 --n 16 --bits 4", result.stderr)
        self.assertIn("make docs", result.stderr)
        self.assertFalse(os.path.exists(build))  # nothing was configured or built


if __name__ == "__main__":
    unittest.main()


class OwnBytesCellTest(unittest.TestCase):
    """A bytes model that counts passes the sort skipped must not be shown as a bandwidth above
    what a plain copy reached (stage 05 on one repeated value); every other row keeps its GB/s."""

    @staticmethod
    def result(entry: str, gbps: float, dist: str = "") -> "rt.Result":
        return rt.Result(entry=entry, key_type="u32", kind="keys", variant="", n=B, ands=0,
                         median_ms=1.0, keys_per_s=1e9, gbps=gbps, bytes=1.0, label=entry,
                         dist=dist)

    def test_equal_keys_above_the_copy_rate_are_marked(self) -> None:
        copy = self.result("copy", 3000.0)
        self.assertEqual(rt.own_bytes_cell(self.result("stage05", 7625.0, "equal"), copy),
                         rt.OVERCOUNTED)

    def test_equal_keys_below_the_copy_rate_keep_their_number(self) -> None:
        copy = self.result("copy", 3000.0)
        self.assertEqual(rt.own_bytes_cell(self.result("stage00", 2010.0, "equal"), copy), "2,010")

    def test_other_shapes_keep_their_number_even_above_the_copy_rate(self) -> None:
        # small multi-pass sorts run from the L2 and may exceed a DRAM copy legitimately
        copy = self.result("copy", 132.0)
        self.assertEqual(rt.own_bytes_cell(self.result("stage01", 2000.0), copy), "2,000")

    def test_committed_page_marks_stage05_equal_rows(self) -> None:
        page = os.path.join(REPO, "docs", "results", "NVIDIA-H100-80GB-HBM3.md")
        with open(page, encoding="utf-8") as handle:
            text = handle.read()
        rows = [line for line in text.splitlines()
                if line.startswith("| stage05 |") and rt.OVERCOUNTED in line]
        self.assertEqual(len(rows), 2, "both one-repeated-value ladders mark stage 05's GB/s")
