#!/usr/bin/env python3
"""Turns the Nsight Compute CSVs of `make memory-profile` into the memory-traffic table.

memory_profile.sh profiles the first kernel launches of `sortlab run --stage N` for every stage
(``stageN.csv``, ``ncu --csv --page raw --print-units base``). This script cuts exactly one pass
out of each (from the pass's first kernel, the count or bit-extraction kernel, to its scatter
kernel, with the device scan's kernels in between) and writes, without a hand-typed number:

* ``docs/results/<gpu>-memory.md``: per stage, DRAM bytes read and L2 bytes written per key per
  pass (DRAM writes are not counted: a pass's last writes are still in the 50 MB L2 when its
  kernel ends, so DRAM write counters undercount them),
  the global load and store sectors per request of the pass's scatter kernel (4 is a perfectly
  coalesced warp of 4-byte accesses, 32 the worst), and the pass time under the profiler;
* the ``<!-- memory:ladder:begin/end -->`` block of chapters/02_coalesced_sort/README.md (and of
  any other stage README that has the markers).

Everything below the command line is a pure function of the CSV text, tested on a fixture.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import sys
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "table"))
import results_table  # noqa: E402  (shared markdown and README-block helpers)

TIME = "gpu__time_duration.sum"
DRAM_READ = "dram__bytes_read.sum"
L2_WRITE_SECTORS = "lts__t_sectors_srcunit_tex_op_write.sum"
LOAD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
LOAD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
STORE_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
STORE_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"
METRICS = (TIME, DRAM_READ, L2_WRITE_SECTORS, LOAD_REQUESTS, LOAD_SECTORS, STORE_REQUESTS,
           STORE_SECTORS)

SECTOR_BYTES = 32

# A pass starts with the kernel that reads the keys first and ends with the scatter kernel.
PASS_START = re.compile(r"extract_bit_kernel|count_\w*kernel")
PASS_END = re.compile(r"scatter\w*kernel")

# What each stage's pass consists of, for the table's first column.
STAGE_NAMES = {1: "stage01", 2: "stage02", 3: "stage03", 4: "stage04"}


@dataclass
class Launch:
    """One profiled kernel launch."""
    kernel: str
    metrics: Dict[str, float]


@dataclass
class PassProfile:
    """The kernels of one pass of one stage, and their metrics."""
    stage: int
    launches: List[Launch]

    def total(self, metric: str) -> float:
        return sum(launch.metrics[metric] for launch in self.launches)

    @property
    def scatter(self) -> Launch:
        return self.launches[-1]


def _number(text: str) -> float:
    cleaned = text.replace(",", "").strip()
    if cleaned in ("", "n/a", "N/A"):
        raise ValueError(f"no value in '{text}'")
    return float(cleaned)


def short_kernel_name(name: str) -> str:
    """``void sortlab::stage02::count_tile_buckets_kernel<unsigned int>(...)`` ->
    ``count_tile_buckets_kernel``; ``<unnamed>::scan_tiles_kernel(...)`` -> ``scan_tiles_kernel``."""
    head = name.split("(", 1)[0].strip()
    if head.startswith("void "):
        head = head[len("void "):]
    if head.endswith(">"):  # drop the trailing template arguments, nested ones included
        depth = 0
        for index in range(len(head) - 1, -1, -1):
            depth += {">": 1, "<": -1}.get(head[index], 0)
            if depth == 0:
                head = head[:index]
                break
    return head.rsplit("::", 1)[-1].strip()


def parse_ncu_csv(text: str) -> List[Launch]:
    """Launches of an ``ncu --csv --page raw`` export, in launch order. The units row (ID
    empty) is skipped; units must be base units (``--print-units base``: byte, nsecond)."""
    rows = list(csv.DictReader(io.StringIO(text)))
    launches = []
    for row in rows:
        if not row.get("ID", "").strip() or not row.get("Kernel Name"):
            continue  # the units row
        missing = [m for m in METRICS if m not in row]
        if missing:
            raise ValueError(f"ncu CSV lacks metrics {missing}")
        launches.append(Launch(kernel=short_kernel_name(row["Kernel Name"]),
                               metrics={m: _number(row[m]) for m in METRICS}))
    return launches


def units_row(text: str) -> Dict[str, str]:
    """The units ncu printed for each metric (to check they are base units)."""
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        if not row.get("ID", "").strip():
            return {m: row.get(m, "") for m in METRICS}
    return {}


def first_pass(stage: int, launches: Sequence[Launch]) -> PassProfile:
    """The launches from the first pass-start kernel through the next scatter kernel."""
    start = next((i for i, l in enumerate(launches) if PASS_START.search(l.kernel)), None)
    if start is None:
        raise ValueError(f"stage {stage}: no count or bit-extraction kernel among the launches")
    end = next((i for i in range(start, len(launches)) if PASS_END.search(launches[i].kernel)),
               None)
    if end is None:
        raise ValueError(f"stage {stage}: the pass has no scatter kernel among the profiled "
                         "launches (profile more launches)")
    return PassProfile(stage=stage, launches=list(launches[start:end + 1]))


def ratio(numerator: float, denominator: float) -> Optional[float]:
    return numerator / denominator if denominator > 0 else None


def fmt(value: Optional[float], digits: int = 3) -> str:
    return results_table.DASH if value is None else results_table.fmt_sig(value, digits)


def memory_table(passes: Sequence[PassProfile], n: int) -> str:
    """One row per stage: what one pass moves and how well its scatter kernel coalesces."""
    headers = ["stage", "kernels in one pass", "DRAM read B/key", "L2 write B/key",
               "scatter: load sectors/request", "scatter: store sectors/request",
               "pass time under ncu (µs)"]
    rows = []
    for profile in passes:
        scatter = profile.scatter.metrics
        rows.append([
            STAGE_NAMES.get(profile.stage, f"stage{profile.stage:02d}"),
            " → ".join(f"`{l.kernel}`" for l in profile.launches),
            fmt(profile.total(DRAM_READ) / n),
            fmt(profile.total(L2_WRITE_SECTORS) * SECTOR_BYTES / n),
            fmt(ratio(scatter[LOAD_SECTORS], scatter[LOAD_REQUESTS])),
            fmt(ratio(scatter[STORE_SECTORS], scatter[STORE_REQUESTS])),
            fmt(profile.total(TIME) / 1e3),
        ])
    return results_table.markdown_table(headers, rows, [False, False] + [True] * 5)


def legend(n_text: str) -> str:
    return (f"One pass (the first) of `sortlab run --stage N --n {n_text}` (u32 keys, uniform), "
            "profiled with Nsight Compute (`make memory-profile`; caches flushed before each "
            "kernel, clocks not locked). *DRAM read B/key* = bytes the pass's kernels read from "
            "DRAM / n. *L2 write B/key* = 32-byte sectors the kernels wrote into L2 × 32 / n: a "
            "partly filled sector costs a whole one, so badly coalesced stores show up here (DRAM "
            "write counters would miss the writes still in L2 when a kernel ends). "
            "*Sectors/request* = 32-byte sectors per warp-wide global access of "
            "the scatter kernel: 4 means a warp's 32 four-byte accesses fell into 4 consecutive "
            "sectors (fully coalesced), 32 means every access touched its own sector.")


def memory_block(passes: Sequence[PassProfile], n: int, gpu: str, page_link: str) -> str:
    n_text = results_table.fmt_n(n)
    return (f"*{gpu}. Generated by `make memory-profile` from Nsight Compute counters "
            f"([full page]({page_link})) — do not edit by hand.*\n\n"
            + legend(n_text) + "\n\n" + memory_table(passes, n))


def memory_page(passes: Sequence[PassProfile], n: int, gpu: str) -> str:
    n_text = results_table.fmt_n(n)
    lines = [f"# sortlab memory traffic: {gpu}", "",
             f"*{gpu}. Generated by `make memory-profile` (bench/profile/) from Nsight Compute "
             "counters — do not edit by hand.*", "", legend(n_text), "",
             memory_table(passes, n), "", "## Every kernel of the pass", ""]
    headers = ["stage", "kernel", "time (µs)", "DRAM read (MB)", "L2 write (MB)",
               "load sectors/request", "store sectors/request"]
    rows = []
    for profile in passes:
        for launch in profile.launches:
            m = launch.metrics
            rows.append([STAGE_NAMES.get(profile.stage, str(profile.stage)), f"`{launch.kernel}`",
                         fmt(m[TIME] / 1e3), fmt(m[DRAM_READ] / 1e6),
                         fmt(m[L2_WRITE_SECTORS] * SECTOR_BYTES / 1e6),
                         fmt(ratio(m[LOAD_SECTORS], m[LOAD_REQUESTS])),
                         fmt(ratio(m[STORE_SECTORS], m[STORE_REQUESTS]))])
    lines.append(results_table.markdown_table(headers, rows, [False, False] + [True] * 5))
    return "\n".join(lines) + "\n"


def gpu_file_name(gpu: str) -> str:
    """"NVIDIA H100 80GB HBM3" -> "NVIDIA-H100-80GB-HBM3": every character but letters, digits,
    '-' and '.' becomes '-', as sortlab::gpu_file_name() does."""
    return re.sub(r"[^A-Za-z0-9.-]", "-", gpu.strip()) or "unknown-gpu"


def load_passes(profile_dir: str, stages: Sequence[int]) -> List[PassProfile]:
    passes = []
    for stage in stages:
        path = os.path.join(profile_dir, f"stage{stage}.csv")
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for metric, unit in units_row(text).items():
            if metric == DRAM_READ and unit not in ("byte", ""):
                raise ValueError(f"{path}: {metric} is in '{unit}', expected bytes "
                                 "(export with --print-units base)")
        passes.append(first_pass(stage, parse_ncu_csv(text)))
    return passes


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile-dir", required=True)
    parser.add_argument("--results-dir", required=True)
    parser.add_argument("--repo-root", required=True)
    parser.add_argument("--log2-n", type=int, default=24)
    parser.add_argument("--stages", default="1,2,3,4")
    args = parser.parse_args(argv)
    stages = [int(s) for s in args.stages.split(",")]
    with open(os.path.join(args.profile_dir, "gpu.txt"), encoding="utf-8") as handle:
        gpu = handle.read().strip() or "unknown GPU"
    n = 1 << args.log2_n
    passes = load_passes(args.profile_dir, stages)
    page_path = os.path.join(args.results_dir, gpu_file_name(gpu) + "-memory.md")
    with open(page_path, "w", encoding="utf-8") as handle:
        handle.write(memory_page(passes, n, gpu))
    print(f"memory_table: wrote {page_path}")
    for readme in results_table.stage_readmes(args.repo_root).values():
        link = results_table.link(page_path, os.path.dirname(readme))
        for message in results_table.update_file_blocks(
                readme, {"memory:ladder": memory_block(passes, n, gpu, link)}):
            if "rewritten" in message:
                print("memory_table: " + message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
