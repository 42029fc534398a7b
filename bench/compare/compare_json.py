#!/usr/bin/env python3
"""Compares benchmark runs of two builds: the medians of a base revision's runs against the
working tree's, row by row (bench/compare/compare_revisions.sh writes the runs; see its header).

Each input is a Google Benchmark JSON file (--benchmark_out). A row's time is its `median_ms`
counter when the benchmark reports one (every sortlab benchmark does: the median of its own
samples), else its real time in ms. Rows are matched by name; a row that errored or that only
one side has is listed apart, never compared. For each row the table shows every run of each
side, the ratio new / base of the median over the runs, and whether the two sides' spreads
overlap: a side's spread runs from the lowest p10_ms to the highest p90_ms of its runs (the
10th and 90th percentiles of the samples, which sortlab benchmarks report; the run's time alone
for rows without them). Overlapping spreads mean the difference is not a result.

    python3 bench/compare/compare_json.py --base b1.json b2.json --new n1.json n2.json
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from typing import Dict, List, Optional, Sequence, Tuple

_UNIT_TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def row_time_ms(row: dict) -> Optional[float]:
    """The row's time in ms: its median_ms counter, else real_time in its time_unit."""
    if row.get("error_occurred"):
        return None
    if "median_ms" in row:
        return float(row["median_ms"])
    if "real_time" in row:
        return float(row["real_time"]) * _UNIT_TO_MS.get(row.get("time_unit", "ns"), 1e-6)
    return None


def row_spread_ms(row: dict, time_ms: float) -> Tuple[float, float]:
    """The row's p10_ms .. p90_ms, or its time twice when it reports no percentiles."""
    if "p10_ms" in row and "p90_ms" in row:
        return float(row["p10_ms"]), float(row["p90_ms"])
    return time_ms, time_ms


Runs = Dict[str, List[Tuple[float, float, float]]]


def load_runs(paths: Sequence[str], name_filter: Optional[str]) -> Tuple[Runs, List[str]]:
    """(time, p10, p90) in ms per row name over the files (one entry per file that has the row),
    and the names of rows that errored in any file."""
    pattern = re.compile(name_filter) if name_filter else None
    times: Runs = {}
    errored: List[str] = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        for row in document.get("benchmarks", []):
            if row.get("run_type") == "aggregate":
                continue
            name = row.get("name", "")
            if pattern and not pattern.search(name):
                continue
            value = row_time_ms(row)
            if value is None:
                if name not in errored:
                    errored.append(name)
                continue
            times.setdefault(name, []).append((value, *row_spread_ms(row, value)))
    return times, errored


def compare(base: Runs, new: Runs) -> List[dict]:
    """One entry per row both sides measured, in the base's order."""
    rows = []
    for name, base_runs in base.items():
        new_runs = new.get(name)
        if not new_runs:
            continue
        base_median = statistics.median(run[0] for run in base_runs)
        new_median = statistics.median(run[0] for run in new_runs)
        base_low, base_high = min(run[1] for run in base_runs), max(run[2] for run in base_runs)
        new_low, new_high = min(run[1] for run in new_runs), max(run[2] for run in new_runs)
        overlap = new_low <= base_high and base_low <= new_high
        rows.append({
            "name": name,
            "base": [run[0] for run in base_runs],
            "new": [run[0] for run in new_runs],
            "ratio": new_median / base_median if base_median > 0 else float("nan"),
            "overlap": overlap,
        })
    return rows


def format_table(rows: List[dict], only_base: List[str], only_new: List[str],
                 errored: List[str]) -> str:
    """The Markdown table and the lists of rows that were not compared."""
    lines = [
        "| benchmark | base ms (each run) | new ms (each run) | new / base | verdict |",
        "|---|---|---|---:|---|",
    ]
    for row in rows:
        if row["overlap"]:
            verdict = "within the runs' spread"
        else:
            verdict = "faster" if row["ratio"] < 1 else "slower"
        lines.append("| {} | {} | {} | {:.3f} | {} |".format(
            row["name"], " ".join(f"{t:.4g}" for t in row["base"]),
            " ".join(f"{t:.4g}" for t in row["new"]), row["ratio"], verdict))
    if not rows:
        lines.append("| (no row measured on both sides) | | | | |")
    notes = []
    if only_base:
        notes.append("Only in the base's runs: " + ", ".join(only_base) + ".")
    if only_new:
        notes.append("Only in the new runs: " + ", ".join(only_new) + ".")
    if errored:
        notes.append("Errored in some run (not compared): " + ", ".join(errored) + ".")
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", nargs="+", required=True, help="the base revision's JSON runs")
    parser.add_argument("--new", nargs="+", required=True, help="the working tree's JSON runs")
    parser.add_argument("--filter", help="compare only rows whose name matches this regex")
    args = parser.parse_args(argv)
    try:
        base, base_errored = load_runs(args.base, args.filter)
        new, new_errored = load_runs(args.new, args.filter)
    except (OSError, ValueError) as error:
        print(f"compare_json.py: {error}", file=sys.stderr)
        return 2
    rows = compare(base, new)
    only_base = [name for name in base if name not in new]
    only_new = [name for name in new if name not in base]
    errored = base_errored + [name for name in new_errored if name not in base_errored]
    sys.stdout.write(format_table(rows, only_base, only_new, errored))
    return 0


if __name__ == "__main__":
    sys.exit(main())
