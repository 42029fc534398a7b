#!/usr/bin/env python3
"""The stage READMEs' figures, drawn by `sortlab trace --svg` (`make figures`, ctest sortlab_figures).

    make_figures.py SORTLAB            write chapters/NN_*/figures/*.svg (make figures)
    make_figures.py SORTLAB --check    fail if a committed figure differs from what it would write

Each figure is the first pass of a CPU-model trace of small fixed keys (FIGURES below: one table,
so the figures, `make figures` and the check cannot disagree). Every figure written or checked
must be well-formed XML holding every key, and its stage README must show it next to the command
that draws it (outside the generated `<!-- results:... -->` blocks), so a README never shows a
figure the code no longer draws.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

ROOT = pathlib.Path(__file__).resolve().parents[2]

# A permutation of 0..15 whose 4-key blocks have different digit counts, so the bucket table's
# columns differ (tests/sortlab/test_sortlab_cli.cpp works the same keys by hand).
TILE_KEYS = "12,3,6,9,15,8,5,11,1,14,7,13,10,0,2,4"

# (figure file relative to the repository, trace arguments). --cpu: the same figure on a GPU
# machine (the model's arrays are the kernels' arrays, tested by each stage's GPU trace test).
FIGURES = [
    ("chapters/01_scan_sort/figures/pass1.svg",
     "--stage 1 --keys 12,3,6,9,15,8,5,10 --bits 4 --cpu"),
    ("chapters/02_coalesced_sort/figures/pass1.svg",
     f"--stage 2 --keys {TILE_KEYS} --bits 4 --tile 4 --cpu"),
    ("chapters/03_multibit_radix/figures/pass1.svg",
     f"--stage 3 --keys {TILE_KEYS} --bits 4 --radix-bits 2 --tile 4 --cpu"),
    ("chapters/04_coarsened_radix/figures/pass1.svg",
     f"--stage 4 --keys {TILE_KEYS} --bits 4 --radix-bits 2 --keys-per-thread 2 --tile 8 --cpu"),
    # Stage 05's tile is fixed (its trace has no --tile): the 16 keys are one block, and the
    # figure shows the packed-counter rank's result, the block's stable local sort by digit
    # (repeated 2-bit digits, so that ranks within a digit show).
    ("chapters/05_packed_rank/figures/pass1.svg",
     "--stage 5 --keys 1,3,0,1,2,1,1,0,3,3,2,0,2,1,3,0 --bits 2 --cpu"),
    # Stage 08: the README's look-back walk-through (11 keys, 2-bit digits, 3 tiles of 4).
    ("chapters/08_onesweep/figures/pass1.svg",
     "--stage 8 --keys 1,3,0,1,2,1,1,0,3,3,2 --bits 2 --tile 4 --cpu"),
]

SVG_NAMESPACE = "{http://www.w3.org/2000/svg}"


def draw(sortlab: str, arguments: str, path: pathlib.Path) -> None:
    """Runs `sortlab trace ARGUMENTS --svg PATH`; raises with the tool's output on failure."""
    command = [sortlab, "trace", *arguments.split(), "--svg", str(path)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        raise RuntimeError(f"`{' '.join(command)}` exited with {run.returncode}:\n"
                           f"{run.stdout}{run.stderr}")


def keys_of(arguments: str) -> list[str]:
    """The keys given with --keys."""
    words = arguments.split()
    return words[words.index("--keys") + 1].split(",")


def figure_problems(path: pathlib.Path, keys: list[str]) -> list[str]:
    """What is wrong with a drawn figure: not well-formed XML, not SVG, or a key missing."""
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        return [f"{path}: not well-formed XML: {error}"]
    if root.tag != SVG_NAMESPACE + "svg":
        return [f"{path}: the root element is {root.tag}, not svg"]
    texts = ["".join(element.itertext()) for element in root.iter(SVG_NAMESPACE + "text")]
    return [f"{path}: key {key} is not drawn" for key in keys if key not in texts]


def readme_problems(figure: str, arguments: str) -> list[str]:
    """What the stage README lacks: the image, or the command that draws it, outside the
    generated results blocks."""
    folder = ROOT / pathlib.Path(figure).parent.parent
    readme = (folder / "README.md").read_text(encoding="utf-8")
    handwritten = re.sub(r"<!-- results:(\w+):begin -->.*?<!-- results:\1:end -->", "", readme,
                         flags=re.DOTALL)
    relative = pathlib.Path(figure).relative_to(folder.relative_to(ROOT)).as_posix()
    problems = []
    if f"]({relative})" not in handwritten:
        problems.append(f"{folder}/README.md does not show ![...]({relative})")
    if f"sortlab trace {arguments}" not in handwritten:
        problems.append(f"{folder}/README.md does not show the command "
                        f"`sortlab trace {arguments} --svg {relative}`")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3) or (len(argv) == 3 and argv[2] != "--check"):
        print(__doc__)
        return 2
    sortlab, check = argv[1], len(argv) == 3
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        for figure, arguments in FIGURES:
            drawn = pathlib.Path(scratch) / figure.replace("/", "_")
            draw(sortlab, arguments, drawn)
            problems += figure_problems(drawn, keys_of(arguments))
            problems += readme_problems(figure, arguments)
            committed = ROOT / figure
            if check:
                if not committed.exists():
                    problems.append(f"{figure} is missing: run `make figures` and commit it")
                elif committed.read_bytes() != drawn.read_bytes():
                    problems.append(f"{figure} differs from what `sortlab trace {arguments} "
                                    "--svg` draws now: run `make figures` and commit it")
            elif not figure_problems(drawn, keys_of(arguments)):
                committed.parent.mkdir(parents=True, exist_ok=True)
                committed.write_bytes(drawn.read_bytes())
                print(f"wrote {figure}")
    for problem in problems:
        print(f"make_figures: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
