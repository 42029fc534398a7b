#!/usr/bin/env python3
"""Configures sortlab in lab mode and checks what it would build (ctest: lab_build_option).

    check_lab_build.py --source ROOT --stage 02 --lab-dir STARTER --work DIR [--generator G]

Configures ROOT with -DSORTLAB_LAB_STAGE/-DSORTLAB_LAB_DIR (benchmarks off; nothing is compiled)
and checks, from Ninja's command list, that the stage's library compiles the lab folder's `.cu`
and that the stage's model test includes the lab folder's headers before the solution's. Then
checks that a stage without a lab is refused with a message naming the allowed stages.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import subprocess
import sys


def configure(source: pathlib.Path, build: pathlib.Path, generator: str,
              extra: list[str]) -> subprocess.CompletedProcess:
    """Runs one configure into a fresh `build`."""
    shutil.rmtree(build, ignore_errors=True)
    return subprocess.run(["cmake", "-S", str(source), "-B", str(build), "-G", generator,
                           "-DSORTLAB_BUILD_BENCH=OFF", "-DSORTLAB_CUDA_ARCHITECTURES=90", *extra],
                          capture_output=True, text=True, timeout=300)


def ninja_commands(build: pathlib.Path, target: str) -> list[str]:
    """The compile and link commands Ninja would run for `target`."""
    run = subprocess.run(["ninja", "-C", str(build), "-t", "commands", target],
                         capture_output=True, text=True, check=True)
    return run.stdout.splitlines()


def include_order(command: str) -> list[str]:
    """The -I directories of one compile command, in order."""
    words = command.split()
    return [w[2:] for w in words if w.startswith("-I") and len(w) > 2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=pathlib.Path, required=True)
    parser.add_argument("--stage", required=True)
    parser.add_argument("--lab-dir", type=pathlib.Path, required=True)
    parser.add_argument("--work", type=pathlib.Path, required=True)
    parser.add_argument("--generator", default="Ninja")
    args = parser.parse_args(argv)
    if args.generator != "Ninja" or shutil.which("ninja") is None:
        print("check_lab_build: needs Ninja to list the build's commands; skipped")
        return 77
    problems = []
    build = args.work / "lab-build"
    run = configure(args.source, build, args.generator,
                    [f"-DSORTLAB_LAB_STAGE={args.stage}", f"-DSORTLAB_LAB_DIR={args.lab_dir}"])
    if run.returncode != 0:
        print(run.stdout[-4000:], run.stderr[-4000:])
        print("check_lab_build: the lab configure failed")
        return 1
    if f"Lab: stage {args.stage}" not in run.stdout:
        problems.append("the configure does not say which stage is built from the lab folder")
    commands = ninja_commands(build, f"test_stage{args.stage}_model")
    lab_dir = str(args.lab_dir.resolve())
    if not any(f" -c {lab_dir}/" in c and c.rstrip().endswith(".o") for c in commands
               if ".cu" in c):
        problems.append(f"the stage's library does not compile a .cu from {lab_dir}")
    model_compiles = [c for c in commands if f"test_stage{args.stage}_model.cpp" in c and " -c " in c]
    if not model_compiles:
        problems.append("no compile command for the stage's model test")
    else:
        order = include_order(model_compiles[0])
        tree = str(build / "lab_include")
        root = str(args.source.resolve())
        if tree not in order or root not in order or order.index(tree) > order.index(root):
            problems.append(f"the model test's include path {order} does not put {tree} first")
    refused = configure(args.source, args.work / "bad-build", args.generator,
                        ["-DSORTLAB_LAB_STAGE=07", f"-DSORTLAB_LAB_DIR={args.lab_dir}"])
    if refused.returncode == 0 or "must be one of 01, 02, 03, 04" not in refused.stderr:
        problems.append("SORTLAB_LAB_STAGE=07 is not refused with the allowed stages")
    for problem in problems:
        print(f"check_lab_build: {problem}")
    if not problems:
        print(f"check_lab_build: stage {args.stage} builds from {lab_dir}, its headers first")
    shutil.rmtree(args.work, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
