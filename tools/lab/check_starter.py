#!/usr/bin/env python3
"""Runs a stage's model-test program and checks the lab's promise (tests/lab, ctest label lab).

    check_starter.py --expect fail --must-fail Stage01Model.OnePassArraysByHand PROGRAM
    check_starter.py --expect pass PROGRAM

`fail`: the program is the model test compiled against a generated starter: it must end normally
(no crash, no hang) with GoogleTest failures, among them every --must-fail test: the lab is not
already solved, and the student sees failures, not a crash. `pass`: the program (the solution's
model test) must pass.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys


def failed_tests(output: str) -> set[str]:
    """The names GoogleTest lists as failed ("[  FAILED  ] Suite.Name", typed ones with /N)."""
    names = re.findall(r"^\[  FAILED  \] ([\w/.]+)(?:,|\s|$)", output, re.MULTILINE)
    return {name for name in names if "." in name}


def check(returncode: int, output: str, expect: str, must_fail: list[str]) -> list[str]:
    """The problems with one run (empty when the run is what the lab promises)."""
    if expect == "pass":
        return [] if returncode == 0 else [f"the solution's tests failed (exit {returncode})"]
    problems = []
    if returncode < 0 or returncode > 1:
        problems.append(f"the starter's tests did not end normally (exit {returncode}): a stub "
                        "must make them fail, not crash")
    elif returncode == 0:
        problems.append("the starter's tests pass: the lab is already solved")
    failed = failed_tests(output)
    for name in must_fail:
        if name not in failed:
            problems.append(f"{name} does not fail on the starter (failed: "
                            f"{', '.join(sorted(failed)) or 'none'})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--expect", choices=("pass", "fail"), required=True)
    parser.add_argument("--must-fail", action="append", default=[], metavar="SUITE.TEST",
                        help="a test the starter must fail (repeat for more)")
    parser.add_argument("program")
    args = parser.parse_args(argv)
    run = subprocess.run([args.program], capture_output=True, text=True, timeout=600)
    output = run.stdout + run.stderr
    problems = check(run.returncode, output, args.expect, args.must_fail)
    if problems:
        print(output[-6000:])
        print("\n".join(f"check_starter: {p}" for p in problems))
        return 1
    if args.expect == "pass":
        print(f"check_starter: {args.program}: passes")
    else:
        failed = sorted(failed_tests(output))
        print(f"check_starter: {args.program}: fails as a starter must ({len(failed)} tests fail: "
              + ", ".join(failed) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
