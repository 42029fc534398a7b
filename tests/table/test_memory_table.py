"""CPU tests of `make memory-profile`'s table script (bench/profile/memory_table.py) on a fixture
in the layout `ncu --csv --page raw --print-units base` writes (round, made-up numbers).

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

import memory_table as mt  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "ncu_stage2.csv")


def read_fixture() -> str:
    with open(FIXTURE, encoding="utf-8") as handle:
        return handle.read()


class ParseTest(unittest.TestCase):
    def test_kernel_names_are_shortened(self):
        self.assertEqual(mt.short_kernel_name(
            "void stage02::count_tile_buckets_kernel<unsigned int>(const T1 *, int)"),
            "count_tile_buckets_kernel")
        self.assertEqual(mt.short_kernel_name(
            "<unnamed>::scan_tiles_kernel(const unsigned int *, unsigned long)"),
            "scan_tiles_kernel")

    def test_units_row_is_skipped_and_thousands_separators_parsed(self):
        launches = mt.parse_ncu_csv(read_fixture())
        self.assertEqual(len(launches), 5)
        self.assertEqual(launches[1].kernel, "count_tile_buckets_kernel")
        self.assertEqual(launches[1].metrics[mt.DRAM_READ], 4096.0)
        self.assertEqual(launches[3].metrics[mt.TIME], 3500.0)

    def test_a_missing_metric_is_an_error(self):
        text = read_fixture().replace("lts__t_sectors_srcunit_tex_op_write.sum", "other.sum")
        with self.assertRaises(ValueError):
            mt.parse_ncu_csv(text)


class FileNameTest(unittest.TestCase):
    def test_gpu_file_name_matches_the_cpp_rule(self):
        self.assertEqual(mt.gpu_file_name("NVIDIA H100 80GB HBM3"), "NVIDIA-H100-80GB-HBM3")
        self.assertEqual(mt.gpu_file_name("GPU 2.0 (x)"), "GPU-2.0--x-")


class PassTest(unittest.TestCase):
    def test_one_pass_runs_from_the_count_kernel_to_the_scatter_kernel(self):
        profile = mt.first_pass(2, mt.parse_ncu_csv(read_fixture()))
        self.assertEqual([l.kernel for l in profile.launches],
                         ["count_tile_buckets_kernel", "scan_tiles_kernel",
                          "split_and_scatter_kernel"])
        self.assertEqual(profile.total(mt.DRAM_READ), 4096 + 64 + 4160)
        self.assertEqual(profile.scatter.kernel, "split_and_scatter_kernel")

    def test_a_pass_without_its_scatter_kernel_is_an_error(self):
        launches = mt.parse_ncu_csv(read_fixture())[:3]
        with self.assertRaises(ValueError):
            mt.first_pass(2, launches)
        with self.assertRaises(ValueError):
            mt.first_pass(2, launches[:1])  # no count kernel either


class TableTest(unittest.TestCase):
    def test_bytes_per_key_and_sectors_per_request(self):
        profile = mt.first_pass(2, mt.parse_ncu_csv(read_fixture()))
        table = mt.memory_table([profile], n=1024)
        row = [line for line in table.splitlines() if line.startswith("| stage02")][0]
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        # DRAM read: (4096 + 64 + 4160) / 1024; L2 write: (8 + 32 + 256) sectors * 32 / 1024
        self.assertEqual(cells[2], mt.fmt((4096 + 64 + 4160) / 1024))
        self.assertEqual(cells[3], mt.fmt((8 + 32 + 256) * 32 / 1024))
        self.assertEqual(cells[4], "4.00")  # scatter loads: 128 sectors / 32 requests
        self.assertEqual(cells[5], "8.00")  # scatter stores: 256 sectors / 32 requests
        self.assertEqual(cells[6], mt.fmt(6.0))  # 2000 + 500 + 3500 ns

    def test_page_and_readme_block_are_written_from_the_csvs(self):
        work = tempfile.mkdtemp()
        try:
            profile_dir = os.path.join(work, "profile")
            results_dir = os.path.join(work, "docs", "results")
            chapter = os.path.join(work, "chapters", "02_coalesced_sort")
            for folder in (profile_dir, results_dir, chapter):
                os.makedirs(folder)
            shutil.copy(FIXTURE, os.path.join(profile_dir, "stage2.csv"))
            with open(os.path.join(profile_dir, "gpu.txt"), "w", encoding="utf-8") as handle:
                handle.write("NVIDIA H100 80GB HBM3\n")
            readme = os.path.join(chapter, "README.md")
            with open(readme, "w", encoding="utf-8") as handle:
                handle.write("before\n<!-- memory:ladder:begin -->\nold\n"
                             "<!-- memory:ladder:end -->\nafter\n")
            self.assertEqual(mt.main(["--profile-dir", profile_dir, "--results-dir", results_dir,
                                      "--repo-root", work, "--stages", "2", "--log2-n", "10"]), 0)
            page = os.path.join(results_dir, "NVIDIA-H100-80GB-HBM3-memory.md")
            with open(page, encoding="utf-8") as handle:
                self.assertIn("split_and_scatter_kernel", handle.read())
            with open(readme, encoding="utf-8") as handle:
                text = handle.read()
            self.assertNotIn("old", text)
            self.assertIn("| stage02 |", text)
            self.assertIn("../../docs/results/NVIDIA-H100-80GB-HBM3-memory.md", text)
            self.assertTrue(text.startswith("before\n") and text.endswith("after\n"))
        finally:
            shutil.rmtree(work)


if __name__ == "__main__":
    unittest.main()
