#!/usr/bin/env python3
"""A README's `sortlab trace` command prints the README's figure (ctest: sortlab_readme_trace_*).

    check_readme_trace.py SORTLAB README.md

The README holds a figure of one pass in a code block (rows such as `keys 12 3 6 ...`,
`bits 0 1 ...`, `ones_before ...`, `destinations ...`, `keys out ...`) and, after it, the
command that prints it, in backticks: `sortlab trace --stage 1 --keys ... --bits 4`. This runs
that command (on the GPU, or on the CPU model without one) and checks that its first pass prints
every row of the figure, number for number.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys

# Figure row label -> the label `sortlab trace` prints for the same array.
ROW_LABELS = {
    "keys": "keys in",
    "bits": "bits",
    "ones_before": "ones before",
    "destinations": "destinations",
    "keys out": "keys after",
}


def figure_rows(readme: str) -> dict[str, list[int]]:
    """The rows of the README's first code block whose labels `sortlab trace` prints."""
    block = re.search(r"```\n(.*?)```", readme, re.DOTALL)
    if block is None:
        raise ValueError("the README has no code block with a figure")
    rows = {}
    for line in block.group(1).splitlines():
        match = re.match(r"^(keys out|keys|bits|ones_before|destinations)\s+((?:\d+\s+)*\d+)",
                         line)
        if match:
            rows[match.group(1)] = [int(v) for v in match.group(2).split()]
    return rows


def trace_command(readme: str) -> list[str]:
    """The arguments of the first `sortlab trace ...` command in backticks."""
    match = re.search(r"`sortlab (trace [^`]*)`", readme)
    if match is None:
        raise ValueError("the README shows no `sortlab trace ...` command")
    return shlex.split(match.group(1))


def first_pass_rows(output: str) -> dict[str, list[int]]:
    """The arrays of "pass 1" in the output of `sortlab trace`, by their printed label."""
    section = re.search(r"^pass 1 of \d+.*?\n(.*?)(?:\n\n|\Z)", output, re.DOTALL | re.MULTILINE)
    if section is None:
        raise ValueError("the trace printed no 'pass 1'")
    rows = {}
    for line in section.group(1).splitlines():
        label, _, values = line.partition(":")
        if values.strip() and re.fullmatch(r"[\d\s]+", values.strip()):
            rows[label.strip()] = [int(v) for v in values.split()]
    return rows


def mismatches(figure: dict[str, list[int]], printed: dict[str, list[int]]) -> list[str]:
    """Every figure row the trace does not print as the README shows it."""
    problems = []
    for label, values in figure.items():
        got = printed.get(ROW_LABELS[label])
        if got != values:
            problems.append(f"'{label}': the README shows {values}, the trace prints {got}")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__)
        return 2
    program, readme_path = argv[1], argv[2]
    readme = open(readme_path, encoding="utf-8").read()
    figure = figure_rows(readme)
    arguments = trace_command(readme)
    run = subprocess.run([program, *arguments], capture_output=True, text=True, timeout=120)
    print(f"$ sortlab {' '.join(arguments)}\n{run.stdout}{run.stderr}")
    if run.returncode != 0:
        print(f"check_readme_trace: the command exited with {run.returncode}")
        return 1
    problems = mismatches(figure, first_pass_rows(run.stdout))
    if len(figure) < 3:
        problems.append(f"found only {len(figure)} figure rows in {readme_path}")
    for problem in problems:
        print(f"check_readme_trace: {readme_path}: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
