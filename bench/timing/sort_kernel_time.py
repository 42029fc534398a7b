#!/usr/bin/env python3
"""The GPU's own kernel time of one benchmarked call, from Nsight Compute: the reference the timing
modes of bench/timing are checked against (docs/results/README.md, "A check of the method").

Profile ONE benchmark row, timed with events (ncu runs every kernel to completion before the launch
returns, so a blocking kernel would only time out), without ncu's own cache flush or clock lock:

    ncu --csv --page raw --print-units base --metrics gpu__time_duration.sum \\
        --cache-control none --clock-control none \\
        build/bench/table/bench_all --benchmark_filter='^stage04/u32/keys/n:65536/ands:0/' \\
        --timing=events --min_samples=5 --max_time=0.001 > stage04-65536.csv
    python3 bench/timing/sort_kernel_time.py --calls 7 stage04-65536.csv

Every call of the row (warm-up and samples alike) launches the same kernels, so the launch list is
one call's kernel sequence repeated; the script prints, per call, the number of kernels and the
sum of their durations (median and min over the calls). Give the number of calls the row made
(`--calls`: two warm-up calls plus `--min_samples`): without it the script takes the smallest
repeating unit of the launch list, which for a sort whose passes launch identical kernels is
one *pass*, not one call (stage 01's 32 passes repeat every 5 kernels). The events of a sample
also include the GPU's gaps between dependent kernels, so they should exceed this sum by about a
microsecond or two per kernel, never by the host's launch gaps.
"""

from __future__ import annotations

import csv
import io
import statistics
import sys
from typing import List, Optional, Sequence, Tuple

METRIC = "gpu__time_duration.sum"

# Kernels of the benchmark harness, not of the call: input generation (bench_support.cu) and the
# timing core's own (the blocking kernel; a GPU test's busy kernel).
HARNESS_KERNELS = ("generate_keys_kernel", "iota_kernel", "spin_until_released", "busy_kernel")

Kernel = Tuple[str, str, float]  # (name, grid size, duration in ns)


def parse_ncu_csv(text: str) -> List[Kernel]:
    """Kernels of an `ncu --csv --page raw --print-units base` export, in launch order, without
    the harness's own (HARNESS_KERNELS; the units row, with an empty ID, is skipped too)."""
    kernels = []
    for row in csv.DictReader(io.StringIO(text[text.find('"ID"'):] if '"ID"' in text else text)):
        if not row.get("ID", "").strip() or not row.get("Kernel Name"):
            continue
        if any(name in row["Kernel Name"] for name in HARNESS_KERNELS):
            continue
        if METRIC not in row:
            raise ValueError(f"the ncu CSV has no {METRIC} column")
        kernels.append((row["Kernel Name"], row.get("Grid Size", ""),
                        float(row[METRIC].replace(",", ""))))
    return kernels


def call_period(kernels: Sequence[Kernel]) -> Optional[int]:
    """The smallest number of kernels p such that the (name, grid) sequence repeats every p
    kernels over all whole periods (at least two); None when there is no such period."""
    signature = [(name, grid) for name, grid, _ in kernels]
    for period in range(1, len(signature) // 2 + 1):
        whole = len(signature) - len(signature) % period
        if all(signature[i] == signature[i - period] for i in range(period, whole)):
            return period
    return None


def per_call_ms(kernels: Sequence[Kernel], calls: Optional[int] = None) -> Tuple[int, List[float]]:
    """(kernels per call, the summed kernel time of each whole call in ms). With \p calls, the
    launch list must be exactly that many repetitions of one call; without it, the smallest
    repeating unit is taken as the call (see the module's note)."""
    if calls is not None:
        if calls < 1 or len(kernels) % calls != 0:
            raise ValueError(f"{len(kernels)} kernels are not {calls} calls of equal length")
        period = len(kernels) // calls
        signature = [(name, grid) for name, grid, _ in kernels]
        if any(signature[i] != signature[i - period] for i in range(period, len(signature))):
            raise ValueError(f"the {calls} calls do not launch the same kernels")
    else:
        period = call_period(kernels)
    if period is None:
        raise ValueError("the kernels do not repeat: profile exactly one benchmark row")
    calls = len(kernels) // period
    sums = [sum(k[2] for k in kernels[c * period:(c + 1) * period]) * 1e-6 for c in range(calls)]
    return period, sums


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Prints the per-call kernel time of each CSV given ([--calls N] CSV...)."""
    args = list(sys.argv[1:] if argv is None else argv)
    calls: Optional[int] = None
    if len(args) >= 2 and args[0] == "--calls":
        calls = int(args[1])
        args = args[2:]
    paths = args
    if not paths:
        print(__doc__)
        return 2
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            period, sums = per_call_ms(parse_ncu_csv(handle.read()), calls)
        print(f"{path}: {period} kernels per call, {len(sums)} calls, kernel time per call: "
              f"median {statistics.median(sums):.4f} ms, min {min(sums):.4f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
