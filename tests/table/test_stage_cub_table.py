"""CPU tests of stage 05's comparison with CUB (bench/table/stage_cub_table.py) on a SYNTHETIC
fixture (tests/table/fixtures/stage05_cub.json: made-up round numbers in bench_stage05's JSON
layout, chosen so every ratio is easy to check by hand; not a measurement):

* the block table's ratio (CUB / stage05 from the unrounded medians) and its sentence (the count
  of shapes at 1.00× or more uses the displayed two decimals; the lowest shape is named);
* the device table's copies' worth, bytes/key, own GB/s and the 2^28 u32 sentence;
* a missing partner shows dashes, an errored row is an error line and never a number, an
  unconverged row gets its mark and footnote, a row of unknown name shape is ignored on stderr;
* the README block rewriting (markers kept, a file without markers left unchanged) and
  ``--check`` (1 on a drifted temporary tree, 0 on a fresh one), all in temporary directories.

Run by ctest (`ctest -L table`), or directly:
    python3 -m unittest discover -s tests/table -v
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

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "table"))

import stage_cub_table as sc  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "stage05_cub.json")
GPU_FILE = "Synthetic-GPU-9000"
DASH = "—"

README_TEXT = """# Stage 05

Text before.

<!-- results:stage05-cub:begin -->
old generated content
<!-- results:stage05-cub:end -->

Text after.
"""


def load_fixture() -> Dict[str, Any]:
    with open(FIXTURE, encoding="utf-8") as handle:
        return json.load(handle)


def render(document: Optional[Dict[str, Any]] = None) -> Tuple[str, str]:
    """The block of the document (the fixture by default) and what went to the warn stream."""
    warn = io.StringIO()
    block = sc.readme_block(document if document is not None else load_fixture(),
                            "../../docs/results/x.json", warn)
    return block, warn.getvalue()


def table_rows(block: str, first_header: str) -> List[List[str]]:
    """The body rows (cells stripped) of the table whose first header is first_header."""
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def block_row(block: str, key_type: str, shape: str) -> Dict[str, str]:
    for cells in table_rows(block, "keys"):
        if cells[0] == key_type and cells[1] == shape:
            return dict(zip(sc.BLOCK_HEADERS, cells))
    raise AssertionError(f"no block row {key_type} {shape}")


def device_row(block: str, key_type: str, n: str) -> Dict[str, str]:
    for cells in table_rows(block, "keys / pairs"):
        if cells[0] == key_type and cells[1] == n:
            return dict(zip(sc.DEVICE_HEADERS, cells))
    raise AssertionError(f"no device row {key_type} {n}")


class ParseTest(unittest.TestCase):

    def test_names_with_suffixes(self) -> None:
        self.assertEqual(sc.parse_row_name("block/stage05/u32-u32/256x8/iterations:1/manual_time"),
                         ("block", "stage05", "u32-u32", "256x8"))
        self.assertEqual(sc.parse_row_name("device/copy/f32-i64/n:65536/manual_time"),
                         ("device", "copy", "f32-i64", "n:65536"))

    def test_unknown_shapes(self) -> None:
        for name in ("block/stage05/u32/n:1024", "device/stage05/u32/128x16",
                     "device/thrust/u32/n:1024", "block/cub/u32", "stage05/u32/keys/n:1024",
                     "block/stage05/u32/128x16/extra"):
            self.assertIsNone(sc.parse_row_name(name), name)

    def test_unknown_row_ignored_with_message(self) -> None:
        document = load_fixture()
        bogus = copy.deepcopy(document["benchmarks"][0])
        bogus["name"] = "block/stage05/u32/n:1024/iterations:1/manual_time"
        bogus["median_ms"] = 9.876
        document["benchmarks"].append(bogus)
        block, warned = render(document)
        self.assertIn("block/stage05/u32/n:1024", warned)
        self.assertNotIn("9.88", block)
        self.assertEqual(block, render()[0])

    def test_fixture_rows(self) -> None:
        rows = sc.parse_rows(load_fixture(), io.StringIO())
        self.assertEqual(len([r for r in rows if r.group == "block"]), 8)
        self.assertEqual(len([r for r in rows if r.error is not None]), 1)


class BlockTableTest(unittest.TestCase):

    def test_rows_in_json_order(self) -> None:
        block, _ = render()
        shapes = [(cells[0], cells[1]) for cells in table_rows(block, "keys")]
        self.assertEqual(shapes, [("u32", "128 x 16"), ("u32", "256 x 8"),
                                  ("u64", "128 x 16"), ("u64", "256 x 8")])

    def test_ratio_is_cub_over_stage05(self) -> None:
        block, _ = render()
        row = block_row(block, "u32", "128 x 16")  # stage05 1.000 ms, CUB 1.050 ms
        self.assertEqual(row["stage05 ms"], "1.00")
        self.assertEqual(row["CUB ms"], "1.05")
        self.assertEqual(row["stage05 vs CUB"], "1.05×")
        self.assertEqual(block_row(block, "u64", "128 x 16")["stage05 vs CUB"], "0.75×")

    def test_spread_and_counter_pairs(self) -> None:
        row = block_row(render()[0], "u32", "128 x 16")
        self.assertEqual(row["stage05 p10–p90"], "0.950–1.05")
        self.assertEqual(row["CUB p10–p90"], "0.998–1.10")
        self.assertEqual(row["registers (stage05 / CUB)"], "40 / 48")
        self.assertEqual(row["blocks per SM (stage05 / CUB)"], "8 / 6")

    def test_sentence_counts_displayed_ratio(self) -> None:
        # u64 256x8: 2.490 / 2.500 = 0.996, shown as 1.00× and so counted; u32 256x8 is 1.00×
        # exactly; u64 128x16 (0.75×) is the lowest.
        block, _ = render()
        self.assertEqual(block_row(block, "u64", "256 x 8")["stage05 vs CUB"], "1.00×")
        self.assertIn("At least 1.00× CUB at 3 of 4 shapes; lowest 0.75× (u64, 128 x 16).",
                      block)

    def test_sentence_without_rounding_up(self) -> None:
        ratios = [("u32", "128x16", 1.2), ("u64", "256x8", 0.994), ("f32", "256x8", 0.9951)]
        self.assertEqual(sc.block_sentence(ratios),
                         "At least 1.00× CUB at 2 of 3 shapes; lowest 0.99× (u64, 256 x 8).\n")
        self.assertIsNone(sc.block_sentence([]))

    def test_missing_cub_partner(self) -> None:
        document = load_fixture()
        document["benchmarks"] = [b for b in document["benchmarks"]
                                  if not b["name"].startswith("block/cub/u64/256x8")]
        block, _ = render(document)
        row = block_row(block, "u64", "256 x 8")
        self.assertEqual(row["stage05 ms"], "2.50")
        self.assertEqual(row["CUB ms"], DASH)
        self.assertEqual(row["stage05 vs CUB"], DASH)
        self.assertEqual(row["CUB p10–p90"], DASH)
        self.assertEqual(row["registers (stage05 / CUB)"], f"48 / {DASH}")
        self.assertIn("At least 1.00× CUB at 2 of 3 shapes;", block)


class DeviceTableTest(unittest.TestCase):

    def test_copies_worth_and_bytes(self) -> None:
        # u32 2^20: stage05 2.000 ms, CUB 1.000 ms, copy 0.500 ms, 16 bytes/key modelled.
        row = device_row(render()[0], "u32", "2^20")
        self.assertEqual(row["stage05 vs CUB"], "0.50×")
        self.assertEqual(row["stage05 copies' worth"], "4.0")
        self.assertEqual(row["CUB copies' worth"], "2.0")
        self.assertEqual(row["stage05 bytes/key"], "16.0")
        self.assertEqual(row["stage05 G keys/s"], "0.524")  # 2^20 / 2 ms
        self.assertEqual(row["CUB G keys/s"], "1.05")
        self.assertEqual(row["stage05 GB/s of own bytes"], "8.39")  # 16 * 2^20 B / 2 ms

    def test_headline_sentence(self) -> None:
        block, _ = render()
        self.assertIn("At 2^28 u32 keys stage 05 runs at 0.40× CUB.", block)
        self.assertEqual(device_row(block, "u32", "2^28")["stage05 copies' worth"], "10.0")

    def test_headline_sentence_absent_without_2_28(self) -> None:
        document = load_fixture()
        document["benchmarks"] = [b for b in document["benchmarks"]
                                  if "/n:268435456" not in b["name"]]
        block, _ = render(document)
        self.assertNotIn("At 2^28", block)

    def test_missing_cub_partner_dashes(self) -> None:
        row = device_row(render()[0], "f32-i64", "2^20")
        self.assertEqual(row["stage05 ms"], "3.00")
        self.assertEqual(row["copy ms"], "1.50")
        self.assertEqual(row["stage05 copies' worth"], "2.0")
        for column in ("CUB ms", "stage05 vs CUB", "CUB G keys/s", "CUB copies' worth"):
            self.assertEqual(row[column], DASH, column)

    def test_errored_row_is_an_error_line_not_a_number(self) -> None:
        block, _ = render()
        row = device_row(block, "u64", "2^16")
        for column in ("stage05 ms", "stage05 vs CUB", "stage05 G keys/s",
                       "stage05 copies' worth", "stage05 bytes/key",
                       "stage05 GB/s of own bytes"):
            self.assertEqual(row[column], DASH, column)
        self.assertEqual(row["CUB ms"], "0.200")
        self.assertEqual(row["CUB copies' worth"], "2.0")
        # The errored row carries median_ms 7.777 in the fixture: it must not show.
        self.assertNotIn("7.78", block)
        error_lines = [line for line in block.splitlines() if "error:" in line]
        self.assertEqual(error_lines, ["- **error:** `device/stage05/u64/n:65536`: synthetic "
                                       "failure: out of memory"])

    def test_unconverged_mark_and_footnote(self) -> None:
        block, _ = render()
        self.assertEqual(device_row(block, "u32", "2^28")["copy ms"], "1.00*")
        self.assertEqual(device_row(block, "u32", "2^20")["copy ms"], "0.500")
        self.assertEqual(block.count(sc.UNCONVERGED_NOTE), 1)
        self.assertIn("noise bound was not met before the time cap", block)
        document = load_fixture()
        for bench in document["benchmarks"]:
            bench["converged"] = 1
        block, _ = render(document)
        self.assertNotIn("noise bound", block)
        self.assertNotIn("*", "".join(device_row(block, "u32", "2^28").values()))


class BlockContentTest(unittest.TestCase):

    def test_provenance_and_order(self) -> None:
        block = sc.readme_block(load_fixture(), "../../docs/results/G-stage05-cub.json",
                                io.StringIO())
        self.assertTrue(block.startswith(
            "*Synthetic GPU 9000, measured 2026-01-02. Generated by `make table` from "
            "[the raw benchmark JSON](../../docs/results/G-stage05-cub.json) — do not edit "
            "by hand.*\n"))
        first = block.index("Block sort against cub::BlockRadixSort")
        second = block.index("Device sort against cub::DeviceRadixSort")
        self.assertLess(first, second)

    def test_link_from_readme_folder(self) -> None:
        block = sc.expected_block(load_fixture(), os.path.join("r", sc.README),
                                  os.path.join("r", "docs", "results", "X.json"), io.StringIO())
        self.assertIn("](../../docs/results/X.json)", block)


class TreeTest(unittest.TestCase):
    """The command line on a temporary repository tree (never the real docs/ or chapters/)."""

    def setUp(self) -> None:
        self.root = tempfile.mkdtemp(prefix="stage05_cub_")
        self.addCleanup(shutil.rmtree, self.root)
        self.readme = os.path.join(self.root, sc.README)
        os.makedirs(os.path.dirname(self.readme))
        with open(self.readme, "w", encoding="utf-8") as handle:
            handle.write(README_TEXT)
        self.results = os.path.join(self.root, "docs", "results")
        self.source = os.path.join(self.root, "bench_stage05.json")
        shutil.copyfile(FIXTURE, self.source)

    def run_main(self, *extra: str) -> Tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = sc.main(["--json", self.source, "--results-dir", self.results,
                              "--repo-root", self.root, "--readme-gpu", "", *extra])
        return status, out.getvalue(), err.getvalue()

    def read(self, path: str) -> str:
        with open(path, encoding="utf-8") as handle:
            return handle.read()

    def test_rewrite_keeps_markers_and_surroundings(self) -> None:
        status, _, _ = self.run_main()
        self.assertEqual(status, 0)
        text = self.read(self.readme)
        self.assertNotIn("old generated content", text)
        self.assertTrue(text.startswith("# Stage 05\n\nText before.\n\n"
                                        "<!-- results:stage05-cub:begin -->\n*Synthetic GPU"))
        self.assertTrue(text.endswith("<!-- results:stage05-cub:end -->\n\nText after.\n"))
        self.assertIn("](../../docs/results/Synthetic-GPU-9000-stage05-cub.json)", text)
        self.assertIn("| u32 | 128 x 16 | 1.00 | 1.05 | 1.05× |", text)
        copied = os.path.join(self.results, GPU_FILE + sc.JSON_SUFFIX)
        with open(copied, "rb") as a, open(FIXTURE, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_file_without_markers_left_unchanged(self) -> None:
        plain = "# Stage 05\n\nNo markers here.\n"
        with open(self.readme, "w", encoding="utf-8") as handle:
            handle.write(plain)
        status, out, _ = self.run_main()
        self.assertEqual(status, 0)
        self.assertEqual(self.read(self.readme), plain)
        self.assertIn("markers", out)

    def test_update_file_blocks_directly(self) -> None:
        messages = sc.update_file_blocks(self.readme, {sc.BLOCK_NAME: "new content\n"})
        self.assertEqual(self.read(self.readme), README_TEXT.replace("old generated content",
                                                                     "new content"))
        self.assertIn("rewritten", messages[0])

    def test_check_fresh_tree_passes(self) -> None:
        self.run_main()
        status, _, err = self.run_main("--check")
        self.assertEqual(status, 0, err)
        # --check on the committed copy itself (the usual `make table` check) passes too.
        copied = os.path.join(self.results, GPU_FILE + sc.JSON_SUFFIX)
        out, errors = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(errors):
            status = sc.main(["--json", copied, "--results-dir", self.results,
                              "--repo-root", self.root, "--check"])
        self.assertEqual(status, 0, errors.getvalue())

    def test_check_catches_drifted_readme(self) -> None:
        self.run_main()
        text = self.read(self.readme)
        with open(self.readme, "w", encoding="utf-8") as handle:
            handle.write(text.replace("| 1.05× |", "| 1.06× |", 1))
        status, _, err = self.run_main("--check")
        self.assertEqual(status, 1)
        self.assertIn(self.readme, err)
        self.assertNotIn(sc.JSON_SUFFIX + ":", err)

    def test_check_catches_drifted_json_copy(self) -> None:
        self.run_main()
        copied = os.path.join(self.results, GPU_FILE + sc.JSON_SUFFIX)
        document = load_fixture()
        document["benchmarks"][0]["median_ms"] = 0.5
        with open(copied, "w", encoding="utf-8") as handle:
            json.dump(document, handle)
        status, _, err = self.run_main("--check")
        self.assertEqual(status, 1)
        self.assertIn(copied, err)

    def test_check_catches_changed_source(self) -> None:
        self.run_main()
        document = load_fixture()
        document["benchmarks"][1]["median_ms"] = 2.0  # block/cub/u32/128x16: 1.05 -> 2.00
        with open(self.source, "w", encoding="utf-8") as handle:
            json.dump(document, handle)
        status, _, err = self.run_main("--check")
        self.assertEqual(status, 1)
        self.assertIn(self.readme, err)

    def test_other_gpu_leaves_the_readme_alone(self) -> None:
        # The READMEs show one GPU's numbers (H100): a run on another GPU writes its JSON copy
        # and leaves the README's block as it was, and --check then checks only the copy.
        status, out, _ = self.run_main("--readme-gpu", "H100")
        self.assertEqual(status, 0)
        self.assertIn("left alone", out)
        self.assertEqual(self.read(self.readme), README_TEXT)
        self.assertTrue(os.path.exists(os.path.join(self.results, GPU_FILE + "-stage05-cub.json")))
        status, _, err = self.run_main("--readme-gpu", "H100", "--check")
        self.assertEqual(status, 0, err)
        status, _, err = self.run_main("--check")
        self.assertEqual(status, 1)
        self.assertIn(self.readme, err)

    def test_check_before_generation_fails(self) -> None:
        status, _, err = self.run_main("--check")
        self.assertEqual(status, 1)
        self.assertIn("missing", err)
        self.assertEqual(self.read(self.readme), README_TEXT)
        self.assertFalse(os.path.exists(self.results))


class CommittedBlocksTest(unittest.TestCase):
    """The committed README blocks of stages 05 and 08 are what their committed JSON generates
    (a hand edit of a number, or a JSON without its block, fails here)."""

    def test_committed_blocks_match_their_json(self) -> None:
        checked = 0
        for stage in sorted(sc.STAGE_READMES):
            pattern = os.path.join(REPO, "docs", "results", f"*-stage{stage}-cub.json")
            for path in sorted(__import__("glob").glob(pattern)):
                with contextlib.redirect_stdout(io.StringIO()), \
                        contextlib.redirect_stderr(io.StringIO()) as errors:
                    status = sc.main(["--json", path, "--stage", stage, "--check",
                                      "--results-dir", os.path.dirname(path),
                                      "--repo-root", REPO])
                self.assertEqual(status, 0, f"stage {stage}: {errors.getvalue()}")
                checked += 1
        self.assertGreaterEqual(checked, 2, "the H100 JSON of stages 05 and 08 is committed")

    def test_stage08_block_has_no_block_sort_table(self) -> None:
        with open(FIXTURE, encoding="utf-8") as handle:
            document = json.load(handle)
        block = sc.readme_block(document, "x.json", io.StringIO(), stage="08")
        self.assertNotIn("BlockRadixSort", block)
        self.assertIn("| stage08 ms |", block)
        self.assertNotIn("| stage05 ms |", block)


if __name__ == "__main__":
    unittest.main()
