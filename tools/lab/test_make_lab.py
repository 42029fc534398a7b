"""CPU tests of the lab generator and the starter check (ctest: lab_generator, labels lab;cpu)."""

from __future__ import annotations

import pathlib
import re
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import check_lab_build  # noqa: E402
import check_starter  # noqa: E402
import make_lab  # noqa: E402

SOLUTION = """int f(int x) {
  int y = 0;
  // lab:begin cpu twice
  // lab:task Set y to twice x.
  // lab:stub static_cast<void>(x);
  y = 2 * x;
  // lab:end
  return y;
}
__global__ void k(int* out) {
    // lab:begin gpu write
    // lab:task Write 1 to out[0].
    out[0] = 1;
    // lab:end
}
"""


class ProcessSource(unittest.TestCase):
    def test_regions_of_the_chosen_levels_become_task_and_stub(self):
        result = make_lab.process_source(SOLUTION, ("cpu", "gpu"))
        self.assertEqual([(r.level, r.name) for r in result.regions],
                         [("cpu", "twice"), ("gpu", "write")])
        text = result.starter_text
        self.assertNotIn("y = 2 * x;", text)
        self.assertNotIn("out[0] = 1;", text)
        self.assertIn("  // LAB (cpu level, twice): write this part.\n  // Set y to twice x.\n"
                      "  static_cast<void>(x);\n  return y;", text)
        # The stub keeps the indentation of its lab:begin line.
        self.assertIn("    // LAB (gpu level, write): write this part.\n", text)
        self.assertNotIn("lab:", text)

    def test_a_level_left_solved_keeps_its_code_without_markers(self):
        text = make_lab.process_source(SOLUTION, ("cpu",)).starter_text
        self.assertNotIn("y = 2 * x;", text)
        self.assertIn("    out[0] = 1;\n}", text)
        self.assertNotIn("lab:", text)

    def test_no_level_gives_the_solution_less_its_markers(self):
        text = make_lab.process_source(SOLUTION, ()).starter_text
        without_markers = "".join(line for line in SOLUTION.splitlines(keepends=True)
                                  if "// lab:" not in line)
        self.assertEqual(text, without_markers)

    def test_marker_mistakes_name_the_file_and_line(self):
        cases = {
            "// lab:begin cpu a\n// lab:task t\n// lab:begin cpu b\n": "x.hpp:3: lab:begin inside",
            "// lab:end\n": "x.hpp:1: lab:end outside a region",
            "// lab:begin cpu a\n// lab:task t\n": "x.hpp:1: region 'a' has no lab:end",
            "// lab:begin fpga a\n": "x.hpp:1: expected",
            "// lab:begin cpu a\n// lab:end\n": "x.hpp:1: region 'a' has no '// lab:task'",
            "// lab:begin cpu a\n// lab:task t\n// lab:end\n"
            "// lab:begin gpu a\n// lab:task t\n// lab:end\n": "x.hpp:4: region 'a' is marked twice",
        }
        for text, message in cases.items():
            with self.subTest(message=message):
                with self.assertRaises(make_lab.LabError) as caught:
                    make_lab.process_source(text, ("cpu",), "x.hpp")
                self.assertIn(message, str(caught.exception))


class RealStages(unittest.TestCase):
    """The markers in the real sources of every lab stage."""

    def test_every_stage_marks_a_cpu_and_a_gpu_region_and_the_model_is_cpu(self):
        for stage in make_lab.STAGES:
            with self.subTest(stage=stage):
                levels = {}
                for path in make_lab.stage_sources(stage):
                    for region in make_lab.process_source(path.read_text(), ()).regions:
                        levels.setdefault(region.level, []).append(path.name)
                self.assertEqual(set(levels), {"cpu", "gpu"})
                self.assertTrue(all(name.endswith("_model.hpp") for name in levels["cpu"]))
                self.assertTrue(all(name.endswith(".cuh") for name in levels["gpu"]))

    def test_markers_are_comments_only(self):
        # Every marker line is a whole-line comment, so the solution compiles as without them.
        for stage in make_lab.STAGES:
            for path in make_lab.stage_sources(stage):
                for number, line in enumerate(path.read_text().splitlines(), 1):
                    if "lab:" in line and re.search(r"lab:(begin|end|task|stub)", line):
                        self.assertRegex(line, r"^\s*// lab:", f"{path.name}:{number}")
                        # clang-format (ColumnLimit 100) would reflow a longer comment into the
                        # next line, and the marker's text into the solution's comments.
                        self.assertLessEqual(len(line), 100, f"{path.name}:{number}")

    def test_make_lab_writes_sources_and_readme_and_refuses_to_overwrite(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "lab02"
            written = make_lab.make_lab("02", out, ("cpu", "gpu"))
            names = sorted(p.name for p in written)
            self.assertEqual(names, sorted(["README.md", "coalesced_sort.cu",
                                            "coalesced_sort.hpp", "coalesced_sort_kernels.cuh",
                                            "coalesced_sort_model.hpp"]))
            model = (out / "coalesced_sort_model.hpp").read_text()
            self.assertIn("// LAB (cpu level, model_pass): write this part.", model)
            self.assertNotIn("lab:begin", model)
            readme = (out / "README.md").read_text()
            self.assertIn("# Lab 02: the coalesced 1-bit sort", readme)
            self.assertIn("13.4", readme)
            self.assertIn(f"-DSORTLAB_LAB_STAGE=02 -DSORTLAB_LAB_DIR={out.resolve()}", readme)
            self.assertIn("`Stage02Model.OnePassArraysByHand`", readme)
            self.assertIn("Level 1, CPU", readme)
            with self.assertRaises(make_lab.LabError):
                make_lab.make_lab("02", out, ("cpu",))
            make_lab.make_lab("02", out, ("cpu",), force=True)  # --force overwrites
            kernels = (out / "coalesced_sort_kernels.cuh").read_text()
            self.assertIn("__syncthreads_count", kernels)  # the GPU level stays solved

    def test_unknown_stage_is_refused(self):
        with self.assertRaises(make_lab.LabError) as caught:
            make_lab.stage_folder("07")
        self.assertIn("labs exist for stages 01, 02, 03, 04", str(caught.exception))

    def test_main_exits_2_with_a_message_on_errors(self):
        with tempfile.TemporaryDirectory() as tmp:
            (pathlib.Path(tmp) / "work.txt").write_text("a student's work")
            self.assertEqual(make_lab.main(["--stage", "1", "--out", tmp, "--quiet"]), 2)


class CheckStarter(unittest.TestCase):
    OUTPUT = ("[  FAILED  ] Stage01Model.OnePassArraysByHand (0 ms)\n"
              "[  FAILED  ] Stage01ModelSort/0.FullModelSortMatchesReference, where TypeParam = u\n"
              "[  FAILED  ] 2 tests, listed below:\n")

    def test_failed_tests_are_read_from_googletest_output(self):
        self.assertEqual(check_starter.failed_tests(self.OUTPUT),
                         {"Stage01Model.OnePassArraysByHand",
                          "Stage01ModelSort/0.FullModelSortMatchesReference"})

    def test_a_starter_must_fail_normally_and_fail_the_named_tests(self):
        must = ["Stage01Model.OnePassArraysByHand"]
        self.assertEqual(check_starter.check(1, self.OUTPUT, "fail", must), [])
        self.assertIn("already solved", check_starter.check(0, "", "fail", [])[0])
        self.assertIn("not end normally", check_starter.check(-11, self.OUTPUT, "fail", [])[0])
        self.assertIn("does not fail",
                      check_starter.check(1, self.OUTPUT, "fail", ["Stage01Model.Other"])[0])
        self.assertEqual(check_starter.check(0, "", "pass", []), [])
        self.assertTrue(check_starter.check(1, "", "pass", []))



class CheckLabBuild(unittest.TestCase):
    def test_include_order_reads_the_compile_command(self):
        command = "g++ -I/b/lab_include -I/src -isystem /usr/include -c x.cpp -o x.o"
        self.assertEqual(check_lab_build.include_order(command), ["/b/lab_include", "/src"])


if __name__ == "__main__":
    unittest.main()
