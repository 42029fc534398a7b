#!/usr/bin/env python3
"""The checks of bench/sortlab/make_figures.py fail where they should (ctest sortlab_figures_checks):
a figure that is not well-formed XML, not SVG or lacks a key, and a README that shows its figure
or the command only inside a generated results block, or not at all."""

from __future__ import annotations

import pathlib
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench" / "sortlab"))
import make_figures  # noqa: E402

SVG = '<svg xmlns="http://www.w3.org/2000/svg">{}</svg>'
ARGUMENTS = "--stage 2 --keys 3,1,2 --bits 2 --tile 2 --cpu"
FIGURE = "chapters/02_x/figures/pass1.svg"


class FigureProblems(unittest.TestCase):
    def check(self, text: str, keys: list[str]) -> list[str]:
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "figure.svg"
            path.write_text(text, encoding="utf-8")
            return make_figures.figure_problems(path, keys)

    def test_a_good_figure_has_no_problem(self):
        self.assertEqual(self.check(SVG.format("<text>3</text><text>1<tspan/></text>"), ["3", "1"]),
                         [])

    def test_malformed_xml_is_reported(self):
        problems = self.check(SVG.format("<text>3</text><text>1"), ["3"])
        self.assertEqual(len(problems), 1)
        self.assertIn("not well-formed XML", problems[0])

    def test_a_missing_key_or_root_is_reported(self):
        self.assertIn("key 2 is not drawn", self.check(SVG.format("<text>3</text>"), ["3", "2"])[0])
        self.assertIn("not svg", self.check("<html/>", ["3"])[0])


class ReadmeProblems(unittest.TestCase):
    def check(self, readme: str) -> list[str]:
        with tempfile.TemporaryDirectory() as root:
            folder = pathlib.Path(root) / "chapters" / "02_x"
            folder.mkdir(parents=True)
            (folder / "README.md").write_text(readme, encoding="utf-8")
            saved, make_figures.ROOT = make_figures.ROOT, pathlib.Path(root)
            try:
                return make_figures.readme_problems(FIGURE, ARGUMENTS)
            finally:
                make_figures.ROOT = saved

    def test_image_and_command_outside_generated_blocks_pass(self):
        readme = f"![pass](figures/pass1.svg)\n`sortlab trace {ARGUMENTS} --svg figures/pass1.svg`\n"
        self.assertEqual(self.check(readme), [])

    def test_inside_a_results_block_does_not_count(self):
        readme = ("<!-- results:stage02:begin -->\n![pass](figures/pass1.svg)\n"
                  f"`sortlab trace {ARGUMENTS}`\n<!-- results:stage02:end -->\n")
        self.assertEqual(len(self.check(readme)), 2)

    def test_a_different_command_is_reported(self):
        problems = self.check("![pass](figures/pass1.svg)\n`sortlab trace --stage 2 --tile 4`\n")
        self.assertEqual(len(problems), 1)
        self.assertIn("does not show the command", problems[0])


if __name__ == "__main__":
    unittest.main()
