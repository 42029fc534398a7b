#!/usr/bin/env python3
"""Merges several Google Benchmark JSON files of one benchmark program into one file.

`make table` runs bench_stage06 and bench_stage07 more than once (a stage 07 run per forced
schedule; stage 06's slowest CUB rows with fewer samples) and keeps one JSON per stage beside the
ladder's (``docs/results/<gpu>-stage06.json``, ``-stage07.json``). This script makes that file
without editing a number:

    python3 bench/table/merge_bench_json.py --out stage07.json \\
        quick=b07_quick.json schedule-one=b07_one.json schedule-multi=b07_multi.json

* ``benchmarks``: every row of every input, verbatim, in the order given;
* ``context``: the first input's context, verbatim, plus ``sortlab_merged_runs``: one entry per
  input with its label (``LABEL=`` before the path, else the file's name without ``.json``), the
  file's name, its whole context and the names of its rows, so results_table.py can say which
  run measured a row and with which settings.

Two rows of the same name (an ``iteration`` row measured twice) are an error: the merge never
picks one of two measurements silently.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

MERGED_RUNS = "sortlab_merged_runs"


def split_argument(argument: str) -> Tuple[str, str]:
    """"label=path" -> (label, path); a bare path gets its file name without ".json"."""
    label, sep, path = argument.partition("=")
    if sep and label and os.sep not in label and not os.path.exists(argument):
        return label, path
    base = os.path.basename(argument)
    return (base[:-len(".json")] if base.endswith(".json") else base), argument


def merge(documents: Sequence[Tuple[str, str, Dict[str, Any]]]) -> Dict[str, Any]:
    """One document from (label, file name, parsed JSON) triples; raises ValueError on a row
    name measured twice or a label used twice."""
    if not documents:
        raise ValueError("nothing to merge")
    context = dict(documents[0][2].get("context", {}))
    context.pop(MERGED_RUNS, None)
    runs: List[Dict[str, Any]] = []
    benchmarks: List[Dict[str, Any]] = []
    seen: Dict[str, str] = {}
    for label, file_name, document in documents:
        if any(run["label"] == label for run in runs):
            raise ValueError(f"label {label!r} is used twice")
        names = []
        for bench in document.get("benchmarks", []):
            name = str(bench.get("name", ""))
            if bench.get("run_type", "iteration") == "iteration":
                if name in seen:
                    raise ValueError(f"{name} is in both {seen[name]} and {file_name}")
                seen[name] = file_name
            names.append(name)
            benchmarks.append(bench)
        runs.append({"label": label, "file": file_name,
                     "context": document.get("context", {}), "names": names})
    context[MERGED_RUNS] = runs
    return {"context": context, "benchmarks": benchmarks}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="the merged JSON")
    parser.add_argument("inputs", nargs="+", metavar="[LABEL=]FILE",
                        help="Google Benchmark JSON files, in the order their rows are kept")
    args = parser.parse_args(argv)
    documents = []
    for argument in args.inputs:
        label, path = split_argument(argument)
        with open(path, encoding="utf-8") as handle:
            try:
                documents.append((label, os.path.basename(path), json.load(handle)))
            except json.JSONDecodeError as error:
                print(f"merge_bench_json: {path} is not valid JSON ({error})", file=sys.stderr)
                return 1
    try:
        merged = merge(documents)
    except ValueError as error:
        print(f"merge_bench_json: {error}", file=sys.stderr)
        return 1
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(merged, handle, indent=2)
        handle.write("\n")
    print(f"merge_bench_json: wrote {args.out} ({len(merged['benchmarks'])} rows from "
          f"{len(documents)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
