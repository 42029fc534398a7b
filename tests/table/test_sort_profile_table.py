"""CPU tests of `make sort-profile`'s table script (bench/profile/sort_profile_table.py) on
fixtures in the layout `ncu --csv --page raw --print-units base` writes (round, made-up numbers
shaped like one 2^28 u32 sort of stage 05, 44 kernels plus the next sort's survey, and of stage 08,
6 kernels plus the next histogram, and one copy kernel).

Run by ctest (`ctest -L table`), or directly:
    python3 -m unittest discover -s tests/table -v
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "bench", "profile"))

import sort_profile_table as sp  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")
N = 1 << 28
GIB = 1 << 30


def fixture(name: str) -> str:
    with open(os.path.join(FIXTURES, f"ncu_sort_profile_{name}.csv"), encoding="utf-8") as handle:
        return handle.read()


def stage_launches(stage: int):
    return sp.one_sort(stage, sp.parse_ncu_csv(fixture(f"stage{stage}")))


def copy_reference() -> sp.CopyReference:
    return sp.copy_from_profile(sp.parse_ncu_csv(fixture("copy")), N)


def table_rows(table: str):
    """{first cell: [cells]} of a markdown table's body rows."""
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells
    return rows


class ParseTest(unittest.TestCase):
    def test_launches_metrics_and_thousands_separators(self):
        launches = sp.parse_ncu_csv(fixture("stage5"))
        self.assertEqual(len(launches), 45)
        self.assertEqual(launches[1].kernel, "upsweep_kernel")
        self.assertEqual(launches[2].kernel, "scan_tiles_kernel")
        self.assertEqual(launches[2].grid, "(4096, 1, 1)")
        self.assertEqual(launches[1].metrics[sp.DRAM_READ], GIB)
        self.assertEqual(launches[7].metrics[sp.TIME], 1_000_000)
        self.assertEqual(launches[7].metrics[sp.REGISTERS], 64)
        self.assertEqual(launches[7].dram_bytes, 1_090_519_040 + GIB)

    def test_a_missing_metric_is_an_error(self):
        text = fixture("stage5").replace(sp.DRAM_WRITE, "dram__bytes_other.sum")
        with self.assertRaisesRegex(ValueError, "lacks metrics.*dram__bytes_write.sum"):
            sp.parse_ncu_csv(text)

    def test_units_other_than_base_units_are_an_error(self):
        # ncu without --print-units base prints times in usecond and bytes in Mbyte.
        text = fixture("stage5").replace('"nsecond"', '"usecond"')
        with self.assertRaisesRegex(ValueError, "gpu__time_duration.sum is in 'usecond'.*"
                                                "--print-units base"):
            sp.parse_ncu_csv(text)
        lines = fixture("stage8").splitlines(keepends=True)
        lines[1] = lines[1].replace('"byte"', '"Mbyte"', 1)
        with self.assertRaisesRegex(ValueError, "is in 'Mbyte'"):
            sp.parse_ncu_csv("".join(lines))

    def test_a_csv_without_its_units_row_is_an_error(self):
        lines = fixture("stage8").splitlines(keepends=True)
        with self.assertRaisesRegex(ValueError, "no units row"):
            sp.parse_ncu_csv(lines[0] + "".join(lines[2:]))

    def test_a_metric_without_a_value_is_an_error(self):
        text = fixture("stage8").replace('"3,000"', '"n/a"')
        with self.assertRaisesRegex(ValueError, "no value for gpu__time_duration.sum"):
            sp.parse_ncu_csv(text)


class LaunchCountTest(unittest.TestCase):
    def test_stage05_launches_per_sort(self):
        # survey + 6 x (upsweep + 5 scan kernels of a 2^22-entry table + downsweep) + copy
        self.assertEqual(sp.launches_per_sort(5, 1 << 28), 44)
        # 2^26: a 2^20-entry table, 3 scan kernels per pass
        self.assertEqual(sp.launches_per_sort(5, 1 << 26), 32)

    def test_stage08_launches_per_sort(self):
        self.assertEqual(sp.launches_per_sort(8, 1 << 28), 6)  # histogram, scan, 4 passes
        # 2^30 keys are two chunks of just under 2^30: 2 histograms, scan, 4 x 2 passes
        self.assertEqual(sp.launches_per_sort(8, 1 << 30), 11)

    def test_the_fixtures_hold_one_sort_and_the_next_sorts_first_kernel(self):
        for stage in (5, 8):
            self.assertEqual(len(sp.parse_ncu_csv(fixture(f"stage{stage}"))),
                             sp.launches_per_sort(stage, N) + 1)

    def test_other_stages_have_no_whole_sort_profile(self):
        with self.assertRaises(ValueError):
            sp.launches_per_sort(4, N)


class OneSortTest(unittest.TestCase):
    def test_the_sort_runs_from_its_first_kernel_to_before_the_next_sorts(self):
        launches = stage_launches(5)
        self.assertEqual(len(launches), 44)
        self.assertEqual(launches[0].kernel, "survey_kernel")
        self.assertEqual(launches[-1].kernel, "copy_when_every_pass_is_trivial_kernel")
        launches = stage_launches(8)
        self.assertEqual([l.kernel for l in launches],
                         ["histogram_kernel", "scan_histograms_kernel"] + ["onesweep_kernel"] * 4)

    def test_launches_before_the_sort_are_left_out(self):
        launches = sp.parse_ncu_csv(fixture("stage8"))
        other = sp.Launch("fill_kernel", "(1, 1, 1)", dict(launches[1].metrics))
        self.assertEqual(len(sp.one_sort(8, [other] + launches)), 6)

    def test_every_chunks_histogram_opens_the_sort(self):
        launches = sp.parse_ncu_csv(fixture("stage8"))
        two_chunks = [launches[0]] + launches  # histogram, histogram, scan, ...
        self.assertEqual(len(sp.one_sort(8, two_chunks)), 7)

    def test_a_profile_that_stops_inside_the_sort_is_an_error(self):
        launches = sp.parse_ncu_csv(fixture("stage5"))
        with self.assertRaisesRegex(ValueError, "stops inside the sort"):
            sp.one_sort(5, launches[:-1])  # without the next sort's survey
        with self.assertRaisesRegex(ValueError, "no survey_kernel"):
            sp.one_sort(5, launches[1:10])


class GroupTest(unittest.TestCase):
    def test_repeated_passes_are_grouped_in_launch_order(self):
        groups = sp.group_by_kernel(stage_launches(5))
        self.assertEqual([(g.kernel, len(g.launches)) for g in groups],
                         [("survey_kernel", 1), ("upsweep_kernel", 6), ("scan_tiles_kernel", 18),
                          ("add_tile_offsets_kernel", 12), ("downsweep_kernel", 6),
                          ("copy_when_every_pass_is_trivial_kernel", 1)])
        self.assertEqual(sp.kernel_label(groups[4]), "`downsweep_kernel` ×6")
        self.assertEqual(sp.kernel_label(groups[0]), "`survey_kernel`")

    def test_percentages_are_time_weighted(self):
        scan = sp.group_by_kernel(stage_launches(5))[2]
        # per pass: 20 us at 30%, 5 us at 1%, 4 us at 0.5% SM throughput
        self.assertAlmostEqual(scan.time_weighted(sp.SM_PERCENT),
                               (20 * 30 + 5 * 1 + 4 * 0.5) / 29)
        self.assertEqual(scan.registers, [30])


class ArithmeticTest(unittest.TestCase):
    def test_copy_rate_is_dram_bytes_over_time(self):
        copy = copy_reference()
        self.assertAlmostEqual(copy.gbps, 2 * GIB / 700_000)  # bytes per ns are GB/s
        self.assertIn("copy_reference_kernel", copy.text())

    def test_bytes_per_key_rate_and_fraction_of_the_copy_rate(self):
        copy = copy_reference()
        rows = table_rows(sp.sort_table(stage_launches(8), N, copy))
        onesweep = rows["`onesweep_kernel` ×4"]
        # 4 passes x (1 GiB read + 1 GiB written) over 2^28 keys = 32 B/key, in 4 x 1.8 ms
        self.assertEqual(onesweep[1], "7.20")
        self.assertEqual(onesweep[3], sp.fmt(32.0))
        rate = 8 * GIB / 7_200_000
        self.assertEqual(onesweep[4], sp.fmt(rate))
        self.assertEqual(onesweep[5], "39%")  # 1193 / 3068 GB/s
        self.assertEqual(onesweep[5], sp.results_table.fmt_percent(rate / copy.gbps))
        # time above the copy rate: 7.2 ms - 8 GiB / copy rate
        self.assertEqual(onesweep[6], sp.fmt_ms(7_200_000 - 8 * GIB / copy.gbps))
        self.assertEqual(onesweep[7:], ["62%", "48%", "80", "40%", "compute-bound"])

    def test_the_total_row_is_the_whole_sort(self):
        copy = copy_reference()
        launches = stage_launches(5)
        rows = table_rows(sp.sort_table(launches, N, copy))
        total = rows["**whole sort** (44 kernels)"]
        time_ns = 400_000 + 6 * (500_000 + 20_000 + 5_000 + 4_000 + 3_000 + 15_000 + 1_000_000) \
            + 2_000
        dram = GIB + 6 * (GIB + 4_194_304 + 16_777_216 + 16_384 + 16 + 16_777_216
                          + 1_090_519_040 + GIB)
        self.assertEqual(total[1], f"**{sp.fmt_ms(time_ns)}**")
        self.assertEqual(total[3], f"**{sp.fmt(dram / N)}**")
        self.assertEqual(total[4], sp.fmt(dram / time_ns))
        fraction = sp.results_table.fmt_percent(dram / time_ns / copy.gbps)
        self.assertEqual(total[5], f"**{fraction}**")
        self.assertEqual(total[2], "100%")
        self.assertEqual(rows["`downsweep_kernel` ×6"][2], "62%")  # 6 ms of 9.68

    def test_first_reading(self):
        self.assertEqual(sp.first_reading(20, 80), "memory-bound")
        self.assertEqual(sp.first_reading(75, 65), "compute-bound")
        self.assertEqual(sp.first_reading(59, 59), "latency-bound")
        self.assertEqual(sp.first_reading(None, 80), sp.results_table.DASH)

    def test_summary_names_the_kernel_with_most_time_above_the_copy_rate(self):
        text = sp.summary(stage_launches(5), N, copy_reference(), 9.64, "2026-11-23")
        self.assertIn("44 kernels take 9.68 ms", text)
        self.assertIn("`downsweep_kernel` (×6)", text)
        self.assertIn("9.64 ms, run of 2026-11-23", text)


class CopyFromResultsTest(unittest.TestCase):
    def test_the_ladder_copy_floor_of_the_same_n_is_used(self):
        document = {"context": {"date": "2026-11-23T16:57:48+00:00"}, "benchmarks": [
            {"name": f"copy/u32/keys/n:{N}/ands:0/iterations:1/manual_time",
             "run_type": "iteration",
             "real_time": 0.715, "time_unit": "ms", "n": N, "ands": 0, "median_ms": 0.715,
             "keys_per_s": N / 0.715e-3, "bytes": 8.0 * N, "GBps": 3003.0},
            {"name": "copy/u32/keys/n:65536/ands:0/iterations:1/manual_time",
             "run_type": "iteration", "real_time": 0.004, "time_unit": "ms", "n": 65536,
             "ands": 0, "median_ms": 0.004, "keys_per_s": 1.6e10, "bytes": 524288.0,
             "GBps": 131.0}]}
        results = sp.results_table.load_result_set([document])
        copy = sp.copy_from_results(results, N)
        self.assertEqual(copy.gbps, 3003.0)
        self.assertIn("run of 2026-11-23 ([JSON](x.json))", copy.text("x.json"))
        self.assertIsNone(sp.copy_from_results(sp.results_table.load_result_set([]), N))


class WriteTest(unittest.TestCase):
    def test_page_and_readme_blocks_are_written_from_the_csvs(self):
        work = tempfile.mkdtemp()
        try:
            profile_dir = os.path.join(work, "build", "sort-profile")
            results_dir = os.path.join(work, "docs", "results")
            os.makedirs(profile_dir)
            os.makedirs(results_dir)
            for name in ("stage5", "stage8", "copy"):
                shutil.copy(os.path.join(FIXTURES, f"ncu_sort_profile_{name}.csv"),
                            os.path.join(profile_dir, f"{name}.csv"))
            with open(os.path.join(profile_dir, "gpu.txt"), "w", encoding="utf-8") as handle:
                handle.write("NVIDIA H100 80GB HBM3\n")
            readmes = {}
            for stage, folder in ((5, "05_packed_rank"), (8, "08_onesweep")):
                chapter = os.path.join(work, "chapters", folder)
                os.makedirs(chapter)
                readmes[stage] = os.path.join(chapter, "README.md")
                with open(readmes[stage], "w", encoding="utf-8") as handle:
                    handle.write(f"before\n<!-- profile:stage{stage:02d}:begin -->\nNot profiled "
                                 f"yet.\n<!-- profile:stage{stage:02d}:end -->\nafter\n")
            self.assertEqual(sp.main(["--profile-dir", profile_dir, "--results-dir", results_dir,
                                      "--repo-root", work]), 0)
            page = os.path.join(results_dir, "NVIDIA-H100-80GB-HBM3-sort-profile.md")
            with open(page, encoding="utf-8") as handle:
                text = handle.read()
            self.assertIn("## Stage 05 (packed_rank): one sort of 2^28 u32 keys", text)
            self.assertIn("## Stage 08 (onesweep): one sort of 2^28 u32 keys", text)
            self.assertIn("| 44 | `copy_when_every_pass_is_trivial_kernel` |", text)
            self.assertNotIn("| 45 |", text)  # the next sort's survey is not part of it
            for stage, readme in readmes.items():
                with open(readme, encoding="utf-8") as handle:
                    text = handle.read()
                self.assertNotIn("Not profiled yet", text)
                self.assertIn("../../docs/results/NVIDIA-H100-80GB-HBM3-sort-profile.md", text)
                self.assertIn("**whole sort**", text)
                self.assertTrue(text.startswith("before\n") and text.endswith("after\n"))
        finally:
            shutil.rmtree(work)

    def test_without_a_copy_reference_it_stops(self):
        work = tempfile.mkdtemp()
        try:
            shutil.copy(os.path.join(FIXTURES, "ncu_sort_profile_stage8.csv"),
                        os.path.join(work, "stage8.csv"))
            with open(os.path.join(work, "gpu.txt"), "w", encoding="utf-8") as handle:
                handle.write("Some GPU\n")
            with self.assertRaises(SystemExit):
                sp.main(["--profile-dir", work, "--results-dir", work, "--repo-root", work,
                         "--stages", "8"])
        finally:
            shutil.rmtree(work)


class CommittedReadmesTest(unittest.TestCase):
    def test_the_stage_readmes_have_the_profile_markers(self):
        for stage, folder in ((5, "05_packed_rank"), (8, "08_onesweep")):
            with open(os.path.join(REPO, "chapters", folder, "README.md"),
                      encoding="utf-8") as handle:
                text = handle.read()
            begin = text.find(f"<!-- profile:stage{stage:02d}:begin -->")
            self.assertGreaterEqual(begin, 0, folder)
            self.assertGreater(text.find(f"<!-- profile:stage{stage:02d}:end -->"), begin, folder)


if __name__ == "__main__":
    unittest.main()
