#!/usr/bin/env python3
"""Writes a student's starter for one sortlab stage (a "lab").

The solution's sources mark the heart of each stage:

    // lab:begin cpu model_pass
    // lab:task Fill trace.bits, trace.ones_before, ... (what the student writes)
    // lab:stub static_cast<void>(bit);   (code the starter keeps so that it compiles cleanly)
    ... the solution ...
    // lab:end

Every marker is a comment, so the solution compiles exactly as without them. The starter is the
stage's source files with every region of the chosen level(s) replaced by its task (as a
comment) and its stub lines (as code), plus a README.md for the student. Level `cpu` is the CPU
model (any laptop, graded by the model tests), level `gpu` the kernels (graded by the GPU suite
and the trace test that compares every intermediate array with the model).

    python3 tools/lab/make_lab.py --stage 02 --out lab02 [--level cpu|gpu|all] [--force]

The generated folder is what `-DSORTLAB_LAB_STAGE=02 -DSORTLAB_LAB_DIR=lab02` builds the stage
library from, so the stage's own tests grade it (docs/labs.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import re
import sys

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
LEVELS = ("cpu", "gpu")
SOURCE_SUFFIXES = (".hpp", ".cuh", ".cu")

MARKER = re.compile(r"^(?P<indent>\s*)//\s*lab:(?P<kind>begin|end|task|stub)\b\s?(?P<rest>.*)$")

# What each lab is about; the regions and the tests are read from the sources themselves.
STAGES = {
    "01": {
        "title": "the 1-bit scan sort",
        "pmpp": "PMPP 4th edition, section 13.3 (parallel radix sort), figures 13.3-13.5",
        "goal": "Sort by one bit per pass: every key learns its bit, an exclusive scan of the bits "
        "says how many ones come before it, and the textbook's two formulas send zeros to the "
        "front and ones after them, both in input order.",
        "trace": "--stage 1 --keys 12,3,6,9,15,8,5,10 --bits 4",
    },
    "02": {
        "title": "the coalesced 1-bit sort",
        "pmpp": "PMPP 4th edition, section 13.4 (memory coalescing), figures 13.6-13.8",
        "goal": "Split each block's tile locally, count each tile's zeros and ones into the "
        "row-major block bucket table, scan the table, and write each bucket's run to its global "
        "place, so that neighbouring threads write neighbouring addresses.",
        "trace": "--stage 2 --keys 12,3,6,9,15,8,5,10 --bits 4",
    },
    "03": {
        "title": "the multi-bit radix sort",
        "pmpp": "PMPP 4th edition, section 13.5 (choice of radix value), figures 13.9-13.10",
        "goal": "Sort by an r-bit digit per pass: 2^r buckets per block in the bucket table, a "
        "local sort of each tile by the whole digit (r rounds of the 1-bit split), and the "
        "coalesced scatter of stage 02.",
        "trace": "--stage 3 --keys 12,3,6,9,15,8,5,10 --bits 4 --radix-bits 2",
    },
    "04": {
        "title": "the coarsened radix sort",
        "pmpp": "PMPP 4th edition, section 13.6 (thread coarsening), figure 13.11",
        "goal": "Give every thread K keys: tiles of 256 * K keys, a bucket table K times smaller, "
        "and a local split in which each thread ranks its K consecutive keys in registers before "
        "one block-wide scan.",
        "trace": "--stage 4 --keys 12,3,6,9,15,8,5,10 --bits 4 --radix-bits 2",
    },
}


class LabError(Exception):
    """A marker error (with file and line) or a bad request."""


@dataclasses.dataclass
class Region:
    """One marked region of a source file."""

    name: str
    level: str
    task: list[str]
    stub: list[str]
    first_line: int  # 1-based line of `lab:begin`
    last_line: int  # 1-based line of `lab:end`
    indent: str


@dataclasses.dataclass
class Processed:
    """A source file's regions and its text in the starter."""

    regions: list[Region]
    starter_text: str


def process_source(text: str, levels: tuple[str, ...], where: str = "<source>") -> Processed:
    """Finds the regions of `text` and writes its starter: the regions of `levels` replaced by
    their task (comment) and stub (code); other regions keep their solution, without markers."""
    out: list[str] = []
    regions: list[Region] = []
    current: Region | None = None
    body: list[str] = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        match = MARKER.match(line.rstrip("\n"))
        if match is None:
            if current is None:
                out.append(line)
            else:
                body.append(line)
            continue
        kind, rest, indent = match["kind"], match["rest"].strip(), match["indent"]
        if kind == "begin":
            if current is not None:
                raise LabError(f"{where}:{number}: lab:begin inside region '{current.name}' "
                               f"(begun at line {current.first_line})")
            words = rest.split()
            if len(words) != 2 or words[0] not in LEVELS:
                raise LabError(f"{where}:{number}: expected '// lab:begin <cpu|gpu> <name>', "
                               f"got '{line.strip()}'")
            if any(r.name == words[1] for r in regions):
                raise LabError(f"{where}:{number}: region '{words[1]}' is marked twice")
            current = Region(words[1], words[0], [], [], number, 0, indent)
            body = []
        elif current is None:
            raise LabError(f"{where}:{number}: lab:{kind} outside a region")
        elif kind == "task":
            current.task.append(rest)
            body.append(line)
        elif kind == "stub":
            current.stub.append(rest)
            body.append(line)
        else:  # end
            current.last_line = number
            if not current.task:
                raise LabError(f"{where}:{current.first_line}: region '{current.name}' has no "
                               "'// lab:task' line saying what to write")
            regions.append(current)
            if current.level in levels:
                out.extend(stub_lines(current))
            else:  # this level stays solved: keep the solution, drop the marker comments
                out.extend(b for b in body if not MARKER.match(b.rstrip("\n")))
            current = None
    if current is not None:
        raise LabError(f"{where}:{current.first_line}: region '{current.name}' has no lab:end")
    return Processed(regions, "".join(out))


def stub_lines(region: Region) -> list[str]:
    """What replaces a region in the starter: a comment saying what to write, then the stub."""
    pad = region.indent
    lines = [f"{pad}// LAB ({region.level} level, {region.name}): write this part.\n"]
    lines += [f"{pad}// {task}\n" for task in region.task]
    lines += [f"{pad}{stub}\n" for stub in region.stub]
    return lines


def stage_folder(stage: str, root: pathlib.Path = REPO_ROOT) -> pathlib.Path:
    """The folder chapters/NN_* of `stage` ("01".."04")."""
    if stage not in STAGES:
        raise LabError(f"stage '{stage}' has no lab; labs exist for stages {', '.join(STAGES)}")
    matches = sorted((root / "chapters").glob(f"{stage}_*"))
    if len(matches) != 1:
        raise LabError(f"expected one folder chapters/{stage}_*, found {len(matches)}")
    return matches[0]


def stage_sources(stage: str, root: pathlib.Path = REPO_ROOT) -> list[pathlib.Path]:
    """The source files a starter holds: the stage's headers, kernels and launcher."""
    return sorted(p for p in stage_folder(stage, root).iterdir() if p.suffix in SOURCE_SUFFIXES)


def test_names(path: pathlib.Path) -> list[str]:
    """The GoogleTest names (Suite.Name) defined in one test file."""
    pattern = re.compile(r"^(?:TYPED_)?TEST(?:_F|_P)?\((\w+),\s*(\w+)\)", re.MULTILINE)
    return [f"{suite}.{name}" for suite, name in pattern.findall(path.read_text())]


def lab_readme(stage: str, out_dir: pathlib.Path, levels: tuple[str, ...],
               regions: list[tuple[str, Region]], root: pathlib.Path = REPO_ROOT) -> str:
    """The student's README.md of the lab."""
    info = STAGES[stage]
    folder = stage_folder(stage, root)
    tests = root / "tests" / f"stage{stage}"
    build = f"build-lab{stage}"
    lines = [
        f"# Lab {stage}: {info['title']}",
        "",
        f"**Goal.** {info['goal']}",
        "",
        f"**Textbook.** {info['pmpp']}. The stage's own README explains the idea with a worked "
        f"example: `{folder.relative_to(root)}/README.md` in sortlab ({root}).",
        "",
        "**Prerequisites.** PMPP chapter 11 (prefix sum / scan) and chapter 6 (memory coalescing).",
        "",
        "## What you write",
        "",
        "Every place to fill in says `// LAB (<level> level, <name>): write this part.` followed "
        "by what it must compute. Do the CPU level first: it runs on any laptop, needs no GPU, and "
        "its arrays are exactly the ones your kernels must produce.",
        "",
    ]
    for level in LEVELS:
        mine = [(f, r) for f, r in regions if r.level == level]
        if not mine:
            continue
        heading = ("Level 1, CPU: the model of one pass" if level == "cpu"
                   else "Level 2, GPU: the kernels")
        state = "to write" if level in levels else "given: already solved in this starter"
        lines += [f"### {heading} ({state})", ""]
        for file_name, region in mine:
            lines.append(f"- `{file_name}`, `{region.name}`: {' '.join(region.task)}")
        if level == "gpu" and level in levels:
            lines += ["", "nvcc warns that some variables of the starter's kernels are \"declared "
                      "but never referenced\": they are the pieces your code will use."]
        lines.append("")
    out = out_dir.resolve()
    lines += [
        "## Build and run the tests",
        "",
        "Configure sortlab once with this folder as the stage's sources (the stage's library is then "
        "built from your files; every other stage stays the solution):",
        "",
        "```sh",
        f"cmake -S {root} -B {build} -DSORTLAB_LAB_STAGE={stage} -DSORTLAB_LAB_DIR={out}",
        "```",
        "",
        "Level 1 (CPU, no GPU needed):",
        "",
        "```sh",
        f"cmake --build {build} --target test_stage{stage}_model",
        f"ctest --test-dir {build} -L stage{stage} -LE gpu --output-on-failure   # the CPU tests",
        "```",
        "",
        "Level 2 (GPU):",
        "",
        "```sh",
        f"cmake --build {build} --target test_stage{stage}_gpu sortlab",
        f"ctest --test-dir {build} -L stage{stage} --output-on-failure   # CPU and GPU tests",
        f"{build}/bench/sortlab/sortlab trace {info['trace']}",
        "```",
        "",
        "`sortlab trace` prints every intermediate array of every pass (add `--cpu` to see your CPU "
        "model's arrays instead of the GPU's). Without a GPU the GPU tests are reported as "
        "skipped, not passed. Add `-DSORTLAB_CUDA_ARCHITECTURES=native` (or 80, 89, 90...) when "
        "configuring if the build does not find your GPU.",
        "",
        "## What the tests check",
        "",
        f"The CPU level is graded by `tests/stage{stage}/test_stage{stage}_model.cpp`:",
        "",
    ]
    lines += [f"- `{name}`" for name in test_names(tests / f"test_stage{stage}_model.cpp")]
    lines += [
        "",
        f"The GPU level is graded by `tests/stage{stage}/test_stage{stage}_gpu.cpp`: the shared "
        "sort suite (every key type, sizes around tile boundaries, distributions, bit ranges, "
        "descending order, pairs, bad arguments) and a test that compares every intermediate "
        "array of a GPU pass with the CPU model:",
        "",
    ]
    lines += [f"- `{name}`" for name in test_names(tests / f"test_stage{stage}_gpu.cpp")]
    lines += [
        "",
        "The starter compiles, and the tests of the parts you write fail until you write them "
        "(a few, such as the bytes model and the argument checks, test given code and pass from "
        "the start).",
        "",
    ]
    return "\n".join(lines)


def make_lab(stage: str, out_dir: pathlib.Path, levels: tuple[str, ...], force: bool = False,
             root: pathlib.Path = REPO_ROOT) -> list[pathlib.Path]:
    """Writes the starter of `stage` into `out_dir` and returns the files written."""
    sources = stage_sources(stage, root)
    if out_dir.exists() and any(out_dir.iterdir()) and not force:
        raise LabError(f"{out_dir} exists and is not empty (a student's work?); "
                       "choose another folder or pass --force to overwrite it")
    processed = {p.name: process_source(p.read_text(), levels, str(p.relative_to(root)))
                 for p in sources}
    regions = [(name, r) for name, p in processed.items() for r in p.regions]
    for level in LEVELS:
        if not any(r.level == level for _, r in regions):
            raise LabError(f"stage {stage} marks no region of level {level}")
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, result in processed.items():
        (out_dir / name).write_text(result.starter_text)
        written.append(out_dir / name)
    (out_dir / "README.md").write_text(lab_readme(stage, out_dir, levels, regions, root))
    written.append(out_dir / "README.md")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stage", required=True, help="stage number, 01 to 04")
    parser.add_argument("--out", required=True, type=pathlib.Path, help="folder to write")
    parser.add_argument("--level", choices=("all",) + LEVELS, default="all",
                        help="which regions to leave for the student (default: all)")
    parser.add_argument("--force", action="store_true", help="overwrite a non-empty folder")
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")
    args = parser.parse_args(argv)
    stage = args.stage.zfill(2)
    levels = LEVELS if args.level == "all" else (args.level,)
    try:
        written = make_lab(stage, args.out, levels, args.force)
    except LabError as error:
        print(f"make_lab: {error}", file=sys.stderr)
        return 2
    if not args.quiet:
        print(f"lab {stage} ({'+'.join(levels)} level) written to {args.out}: "
              + ", ".join(p.name for p in written))
        print(f"next: read {args.out / 'README.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
