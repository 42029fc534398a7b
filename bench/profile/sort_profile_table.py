#!/usr/bin/env python3
"""Turns the Nsight Compute CSVs of `make sort-profile` into the whole-sort profile tables.

sort_profile.sh profiles every kernel of one complete sort of `sortlab run --stage N --n 2^28
--repeat 1` (stages 05 and 08, u32 keys, uniform; ``stageN.csv``) and one copy kernel of the same
bytes (``copy.csv``, bench/profile/copy_reference.cu), each exported with ``ncu --csv --page raw
--print-units base``. This script cuts exactly one sort out of each stage's launches (from the
sort's first kernel to the launch before the next sort's first kernel) and writes, without a
hand-typed number:

* ``docs/results/<gpu>-sort-profile.md``: per stage, one row per kernel (its launches summed,
  e.g. ``downsweep_kernel`` x6), with time, DRAM bytes read + written per key, the GB/s they make,
  the fraction of the copy rate, the time above the copy rate, SM and memory throughput, registers,
  achieved occupancy and a first reading of the limiter; a total row for the whole sort; then every
  launch on its own;
* the ``<!-- profile:stageNN:begin/end -->`` blocks of chapters/05_packed_rank/README.md and
  chapters/08_onesweep/README.md.

The copy rate is the profiled copy kernel's (DRAM bytes / time, the same counters as the sort's
kernels); without ``copy.csv`` it is bench_all's copy floor of the same keys from
``docs/results/<gpu>.json`` (the run is named in the output).

``--launches-per-sort N --log2-n K`` prints how many kernels one sort of stage N launches at
n = 2^K (sort_profile.sh profiles that many plus the next sort's first kernel).

Everything below the command line is a pure function of the CSV text, tested on fixtures.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "table"))
sys.path.insert(0, HERE)
import results_table  # noqa: E402  (shared markdown and README-block helpers)
from memory_table import gpu_file_name, short_kernel_name  # noqa: E402

TIME = "gpu__time_duration.sum"
DRAM_READ = "dram__bytes_read.sum"
DRAM_WRITE = "dram__bytes_write.sum"
L2_WRITE_SECTORS = "lts__t_sectors_srcunit_tex_op_write.sum"
SM_PERCENT = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
MEMORY_PERCENT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_PERCENT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
REGISTERS = "launch__registers_per_thread"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"
METRICS = (TIME, DRAM_READ, DRAM_WRITE, L2_WRITE_SECTORS, SM_PERCENT, MEMORY_PERCENT,
           DRAM_PERCENT, REGISTERS, OCCUPANCY)

# The units `--print-units base` prints for each metric (any other unit is an error: the numbers
# would be in other units than the arithmetic below assumes). Registers never scale, so their
# unit is not checked.
BASE_UNITS: Mapping[str, Sequence[str]] = {
    TIME: ("nsecond", "ns"), DRAM_READ: ("byte",), DRAM_WRITE: ("byte",),
    L2_WRITE_SECTORS: ("sector",), SM_PERCENT: ("%",), MEMORY_PERCENT: ("%",),
    DRAM_PERCENT: ("%",), OCCUPANCY: ("%",),
}

SECTOR_BYTES = 32
KEY_BYTES = 4  # u32 keys
COPY_KERNEL = "copy_reference_kernel"

# Nsight Compute's rule of thumb: a unit below 60% of its peak is not what limits the kernel;
# when both the SM and the memory are below it, the warps mostly wait (latency).
BUSY_PERCENT = 60.0


@dataclass(frozen=True)
class StageShape:
    """What one sort of a stage launches, as far as cutting one sort out of a profile needs."""
    name: str
    first_kernel: str  # the kernel that opens every sort (launched once per chunk for stage 08)


STAGES: Mapping[int, StageShape] = {
    5: StageShape("packed_rank", "survey_kernel"),
    8: StageShape("onesweep", "histogram_kernel"),
}


@dataclass
class Launch:
    """One profiled kernel launch."""
    kernel: str
    grid: str
    metrics: Dict[str, float]

    @property
    def dram_bytes(self) -> float:
        return self.metrics[DRAM_READ] + self.metrics[DRAM_WRITE]


@dataclass
class KernelGroup:
    """Every launch of one kernel in one sort (e.g. the six downsweeps of stage 05)."""
    kernel: str
    launches: List[Launch] = field(default_factory=list)

    def total(self, metric: str) -> float:
        return sum(launch.metrics[metric] for launch in self.launches)

    @property
    def time_ns(self) -> float:
        return self.total(TIME)

    @property
    def dram_bytes(self) -> float:
        return sum(launch.dram_bytes for launch in self.launches)

    def time_weighted(self, metric: str) -> Optional[float]:
        return time_weighted(self.launches, metric)

    @property
    def registers(self) -> List[int]:
        return sorted({int(round(launch.metrics[REGISTERS])) for launch in self.launches})


@dataclass(frozen=True)
class CopyReference:
    """The copy rate the kernels are compared with, and where it came from: markdown in which
    ``{json}`` stands for the link to the ladder JSON (relative to the file it is written into)."""
    gbps: float
    source: str

    def text(self, json_link: str = "") -> str:
        return self.source.replace("{json}", json_link)


# ---------------------------------------------------------------------------------------------
# Parsing


def _number(text: str, metric: str) -> float:
    cleaned = text.replace(",", "").strip()
    if cleaned in ("", "n/a", "N/A"):
        raise ValueError(f"no value for {metric} ('{text}')")
    return float(cleaned)


def parse_ncu_csv(text: str, metrics: Sequence[str] = METRICS) -> List[Launch]:
    """Launches of an ``ncu --csv --page raw --print-units base`` export, in launch order.

    Raises ValueError when a metric is missing, when the units row is missing, or when a metric
    is not in the base unit the arithmetic assumes (an export without ``--print-units base``)."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [m for m in metrics if m not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"the ncu CSV lacks metrics {missing} (profile with sort_profile.sh's "
                         "metric list)")
    launches, units_seen = [], False
    for row in reader:
        if not row.get("ID", "").strip():  # the units row
            units_seen = True
            for metric in metrics:
                unit = (row.get(metric) or "").strip()
                if unit not in BASE_UNITS.get(metric, (unit,)):
                    raise ValueError(f"{metric} is in '{unit}', expected "
                                     f"'{BASE_UNITS[metric][0]}' (export with --print-units base)")
            continue
        if not units_seen:
            raise ValueError("the ncu CSV has no units row before its first launch (export with "
                             "ncu --import R --csv --page raw --print-units base)")
        launches.append(Launch(kernel=short_kernel_name(row.get("Kernel Name", "")),
                               grid=(row.get("Grid Size") or "").strip(),
                               metrics={m: _number(row[m], m) for m in metrics}))
    return launches


# ---------------------------------------------------------------------------------------------
# One sort


def _scan_kernels(entries: int, tile: int = 1024) -> int:
    """Kernels common/device_scan.cu launches for an exclusive sum of ``entries`` items:
    one scan_tiles_kernel when they fit one 1024-item tile, else scan the tiles, scan their
    totals (recursively), add the offsets back."""
    tiles = -(-entries // tile)
    return 1 if tiles <= 1 else 2 + _scan_kernels(tiles, tile)


def launches_per_sort(stage: int, n: int) -> int:
    """Kernel launches of one keys-only sort of n u32 keys with the stage's default config, as its
    host launcher queues them (the memsets are not kernels; trivial passes are still launched).

    Stage 05: the survey, per pass (6 of 6 bits) upsweep -> device scan of the 2^6 x tiles table
    -> downsweep, then the copy kernel for a sort in which every pass is trivial (it returns at
    once otherwise). Stage 08: one histogram kernel per chunk (just under 2^30 keys), the scan,
    one onesweep kernel per pass (4 of 8 bits) and chunk."""
    if stage == 5:
        tiles = -(-n // 4096)  # 256 threads x 16 keys
        passes = -(-32 // 6)
        return 1 + passes * (2 + _scan_kernels(64 * tiles)) + 1
    if stage == 8:
        tile = 384 * 24
        chunk = (1 << 30) // tile * tile
        chunks = -(-n // chunk)
        return chunks + 1 + 4 * chunks
    raise ValueError(f"stage {stage}: no whole-sort profile (stages: "
                     f"{', '.join(str(s) for s in STAGES)})")


def one_sort(stage: int, launches: Sequence[Launch]) -> List[Launch]:
    """The launches of the first complete sort: from the first launch of the stage's first kernel
    (all of them, one per chunk) to the launch before that kernel comes again (the next sort).
    Raises ValueError when the profile has no such kernel or stops inside the sort."""
    first = STAGES[stage].first_kernel
    opens = [launch.kernel == first for launch in launches]
    if True not in opens:
        raise ValueError(f"stage {stage}: no {first} among the {len(launches)} profiled launches")
    start = opens.index(True)
    body = start
    while body < len(launches) and opens[body]:
        body += 1
    end = next((i for i in range(body, len(launches)) if opens[i]), None)
    if end is None:
        raise ValueError(f"stage {stage}: the profile stops inside the sort (no {first} of the "
                         f"next sort after launch {start}): profile more launches "
                         "(EXTRA_LAUNCHES)")
    return list(launches[start:end])


def group_by_kernel(launches: Sequence[Launch]) -> List[KernelGroup]:
    """One group per kernel name, in the order the kernels first ran."""
    groups: Dict[str, KernelGroup] = {}
    for launch in launches:
        groups.setdefault(launch.kernel, KernelGroup(launch.kernel)).launches.append(launch)
    return list(groups.values())


def time_weighted(launches: Sequence[Launch], metric: str) -> Optional[float]:
    """The mean of a percentage over launches, each weighted by its time (the share of the
    elapsed time the unit was busy, over all of them)."""
    total = sum(launch.metrics[TIME] for launch in launches)
    if total <= 0:
        return None
    return sum(launch.metrics[metric] * launch.metrics[TIME] for launch in launches) / total


def gbps(dram_bytes: float, time_ns: float) -> Optional[float]:
    """Bytes per nanosecond are GB/s."""
    return dram_bytes / time_ns if time_ns > 0 else None


def copy_fraction(rate: Optional[float], copy: CopyReference) -> Optional[float]:
    return rate / copy.gbps if rate is not None and copy.gbps > 0 else None


def time_above_copy_ns(time_ns: float, dram_bytes: float, copy: CopyReference) -> float:
    """What a kernel costs beyond moving its DRAM bytes at the copy rate."""
    return time_ns - dram_bytes / copy.gbps


def first_reading(sm_percent: Optional[float], memory_percent: Optional[float]) -> str:
    """memory-bound / compute-bound when that unit is at BUSY_PERCENT of its peak or more (the
    busier one wins), latency-bound when both are below."""
    if sm_percent is None or memory_percent is None:
        return results_table.DASH
    if max(sm_percent, memory_percent) < BUSY_PERCENT:
        return "latency-bound"
    return "memory-bound" if memory_percent >= sm_percent else "compute-bound"


# ---------------------------------------------------------------------------------------------
# The copy reference


def copy_from_profile(launches: Sequence[Launch], n: int) -> CopyReference:
    """The copy kernel's DRAM bytes / time, from copy.csv."""
    copies = [launch for launch in launches if launch.kernel == COPY_KERNEL]
    if not copies:
        raise ValueError(f"copy.csv has no {COPY_KERNEL}")
    launch = copies[0]
    rate = gbps(launch.dram_bytes, launch.metrics[TIME])
    if rate is None:
        raise ValueError(f"{COPY_KERNEL}: no time")
    return CopyReference(rate, (
        f"`{COPY_KERNEL}` (bench/profile/copy_reference.cu: {results_table.fmt_n(n)} u32 keys, "
        f"read once and written once with 16-byte accesses), profiled in the same session with "
        f"the same counters: {results_table.fmt_sig(launch.dram_bytes / n)} DRAM B/key in "
        f"{fmt_us(launch.metrics[TIME])} µs, **{results_table.fmt_gbps(rate)} GB/s**"))


def copy_from_results(results: "results_table.ResultSet", n: int) -> Optional[CopyReference]:
    """bench_all's copy floor of the same n keys (or, when that n was not measured, its fastest
    copy), from the ladder JSON."""
    result = results.copy_floor(n, "keys")
    what = f"of the same {results_table.fmt_n(n)} u32 keys (the ladder's copy floor)"
    if result is None:
        result = results.copy_ceiling()
        if result is None:
            return None
        what = f"of {results_table.fmt_n(result.n)} u32 keys (the fastest copy measured)"
    date = str(results.context.get("date", ""))[:10] or "an undated run"
    return CopyReference(result.gbps, (
        f"bench_all's `cudaMemcpyAsync` {what}, median of the `make table` run of {date} "
        "([JSON]({json})): **"
        f"{results_table.fmt_gbps(result.gbps)} GB/s**"))


# ---------------------------------------------------------------------------------------------
# Tables


def fmt(value: Optional[float], digits: int = 3) -> str:
    return results_table.DASH if value is None else results_table.fmt_sig(value, digits)


def fmt_us(ns: float) -> str:
    return results_table.fmt_sig(ns / 1e3)


def fmt_ms(ns: float) -> str:
    return results_table.fmt_ms(ns / 1e6)


def fmt_pct(percent: Optional[float]) -> str:
    return results_table.DASH if percent is None else f"{percent:.0f}%"


def fmt_registers(values: Sequence[int]) -> str:
    if not values:
        return results_table.DASH
    return str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"


def kernel_label(group: KernelGroup) -> str:
    count = len(group.launches)
    return f"`{group.kernel}`" + (f" ×{count}" if count > 1 else "")


SORT_HEADERS = ("kernel", "time (ms)", "share of time", "DRAM R+W B/key", "GB/s",
                "of copy rate", "time above copy rate (ms)", "SM %", "memory %", "registers",
                "occupancy", "first reading")
_SORT_ALIGN = (False,) + (True,) * 10 + (False,)


def sort_table(launches: Sequence[Launch], n: int, copy: CopyReference) -> str:
    """One row per kernel of the sort (its launches summed), then the whole sort."""
    sort_ns = sum(launch.metrics[TIME] for launch in launches)
    rows = []
    for group in group_by_kernel(launches):
        rate = gbps(group.dram_bytes, group.time_ns)
        sm, memory = group.time_weighted(SM_PERCENT), group.time_weighted(MEMORY_PERCENT)
        rows.append([
            kernel_label(group), fmt_ms(group.time_ns),
            results_table.fmt_percent(group.time_ns / sort_ns if sort_ns > 0 else None),
            fmt(group.dram_bytes / n), fmt(rate),
            results_table.fmt_percent(copy_fraction(rate, copy)),
            fmt_ms(time_above_copy_ns(group.time_ns, group.dram_bytes, copy)),
            fmt_pct(sm), fmt_pct(memory), fmt_registers(group.registers),
            fmt_pct(group.time_weighted(OCCUPANCY)), first_reading(sm, memory)])
    dram = sum(launch.dram_bytes for launch in launches)
    rate = gbps(dram, sort_ns)
    rows.append([
        f"**whole sort** ({len(launches)} kernels)", f"**{fmt_ms(sort_ns)}**", "100%",
        f"**{fmt(dram / n)}**", fmt(rate),
        f"**{results_table.fmt_percent(copy_fraction(rate, copy))}**",
        fmt_ms(time_above_copy_ns(sort_ns, dram, copy)),
        fmt_pct(time_weighted(launches, SM_PERCENT)),
        fmt_pct(time_weighted(launches, MEMORY_PERCENT)), results_table.DASH,
        fmt_pct(time_weighted(launches, OCCUPANCY)), results_table.DASH])
    return results_table.markdown_table(SORT_HEADERS, rows, _SORT_ALIGN)


def launch_table(launches: Sequence[Launch], n: int, copy: CopyReference) -> str:
    """Every launch of the sort on its own row."""
    headers = ("#", "kernel", "grid", "time (µs)", "DRAM read (MB)", "DRAM write (MB)",
               "L2 write (MB)", "GB/s", "of copy rate", "SM %", "memory %", "DRAM %",
               "registers", "occupancy")
    rows = []
    for index, launch in enumerate(launches, 1):
        m = launch.metrics
        rate = gbps(launch.dram_bytes, m[TIME])
        rows.append([str(index), f"`{launch.kernel}`", launch.grid or results_table.DASH,
                     fmt_us(m[TIME]), fmt(m[DRAM_READ] / 1e6), fmt(m[DRAM_WRITE] / 1e6),
                     fmt(m[L2_WRITE_SECTORS] * SECTOR_BYTES / 1e6), fmt(rate),
                     results_table.fmt_percent(copy_fraction(rate, copy)), fmt_pct(m[SM_PERCENT]),
                     fmt_pct(m[MEMORY_PERCENT]), fmt_pct(m[DRAM_PERCENT]),
                     str(int(round(m[REGISTERS]))), fmt_pct(m[OCCUPANCY])])
    return results_table.markdown_table(headers, rows, (True, False, False) + (True,) * 11)


def summary(launches: Sequence[Launch], n: int, copy: CopyReference,
            bench_ms: Optional[float] = None, bench_date: str = "") -> str:
    """Where the time goes, in one paragraph: the sort's time under ncu, what its bytes would take
    at the copy rate, and which kernel spends most of the rest."""
    sort_ns = sum(launch.metrics[TIME] for launch in launches)
    dram = sum(launch.dram_bytes for launch in launches)
    at_copy_ns = dram / copy.gbps
    floor_ns = 2 * KEY_BYTES * n / copy.gbps
    groups = group_by_kernel(launches)
    worst = max(groups, key=lambda g: time_above_copy_ns(g.time_ns, g.dram_bytes, copy))
    bench = (f" (`bench_all`'s median of the same sort: {results_table.fmt_ms(bench_ms)} ms, "
             f"run of {bench_date})" if bench_ms is not None else "")
    return (
        f"Under Nsight Compute the sort's {len(launches)} kernels take {fmt_ms(sort_ns)} ms, "
        f"each alone with cold caches{bench}, and move {fmt(dram / n)} DRAM bytes per key; at "
        f"the copy rate those bytes would take {fmt_ms(at_copy_ns)} ms "
        f"({results_table.fmt_percent(at_copy_ns / sort_ns if sort_ns > 0 else None)} of the "
        f"time), and a copy of the keys alone ({2 * KEY_BYTES} B/key) {fmt_ms(floor_ns)} ms "
        f"({fmt(sort_ns / floor_ns)} copies' worth). Of the {fmt_ms(sort_ns - at_copy_ns)} ms "
        f"above the copy rate, `{worst.kernel}` (×{len(worst.launches)}) takes "
        f"{fmt_ms(time_above_copy_ns(worst.time_ns, worst.dram_bytes, copy))} ms, "
        f"{first_reading(worst.time_weighted(SM_PERCENT), worst.time_weighted(MEMORY_PERCENT))} "
        f"by the first reading.")


def legend(n: int) -> str:
    return (
        f"Every kernel of one sort of `sortlab run --stage N --n {results_table.fmt_n(n)} "
        "--repeat 1` (u32 keys, uniform; the first sort, `sortlab run`'s warm-up, which launches "
        "the same kernels as the timed one), profiled with Nsight Compute (`make sort-profile`: "
        "each kernel replayed alone, caches flushed before it, clocks not locked). A row sums "
        "the launches of one kernel (e.g. ×6: once per pass). *DRAM R+W B/key* = (DRAM bytes "
        "read + written) / n; writes still in the 50 MB L2 when a kernel ends are not counted (a "
        "small table written by one kernel and read by the next can move no DRAM bytes at "
        "all). *GB/s* = those bytes / time. *of copy rate* = GB/s / the copy reference's GB/s. "
        "*time above copy rate* = time − bytes / copy rate: what the kernel costs beyond moving "
        "its bytes as fast as a copy does. *SM %* and *memory %* = `sm__throughput` and "
        "`gpu__compute_memory_throughput` in % of peak (memory: the busiest of L1, L2 and DRAM), "
        "*occupancy* = achieved occupancy (`sm__warps_active`, % of the SM's warp slots), all "
        "three time-weighted over the launches. *first reading* = memory- or compute-bound when "
        f"that unit reaches {BUSY_PERCENT:.0f}% of its peak (the busier one), latency-bound when "
        "neither does (Nsight Compute's rule of thumb): a first answer to where the rest of the "
        "time goes, not a diagnosis.")


def stage_title(stage: int, n: int) -> str:
    return (f"Stage {stage:02d} ({STAGES[stage].name}): one sort of "
            f"{results_table.fmt_n(n)} u32 keys")


def profile_block(stage: int, launches: Sequence[Launch], n: int, copy: CopyReference, gpu: str,
                  page_link: str, json_link: str = "", bench_ms: Optional[float] = None,
                  bench_date: str = "") -> str:
    """A stage README's profile block (links relative to the README)."""
    return (f"*{gpu}. Generated by `make sort-profile` from Nsight Compute counters "
            f"([full page, every launch]({page_link})) — do not edit by hand.*\n\n"
            + summary(launches, n, copy, bench_ms, bench_date) + "\n\n"
            + sort_table(launches, n, copy) + "\nCopy reference: " + copy.text(json_link) + ". "
            + legend(n) + "\n")


def profile_page(sorts: Mapping[int, Sequence[Launch]], n: int, copy: CopyReference, gpu: str,
                 json_link: str = "", bench: Optional[Mapping[int, float]] = None,
                 bench_date: str = "") -> str:
    """docs/results/<gpu>-sort-profile.md (links relative to the page)."""
    lines = [f"# sortlab whole-sort profile: {gpu}", "",
             f"*{gpu}. Generated by `make sort-profile` (bench/profile/) from Nsight Compute "
             "counters — do not edit by hand.*", "", legend(n), "",
             "Copy reference: " + copy.text(json_link) + ".", ""]
    for stage, launches in sorts.items():
        lines += [f"## {stage_title(stage, n)}", "",
                  summary(launches, n, copy, (bench or {}).get(stage), bench_date), "",
                  sort_table(launches, n, copy), f"### Every launch of stage {stage:02d}", "",
                  launch_table(launches, n, copy)]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Command line


def read_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--profile-dir", help="gpu.txt, stageN.csv, copy.csv")
    parser.add_argument("--results-dir", help="where the page goes (docs/results)")
    parser.add_argument("--repo-root", help="whose chapters/*/README.md get the blocks")
    parser.add_argument("--log2-n", type=int, default=28)
    parser.add_argument("--stages", default="5,8")
    parser.add_argument("--bench-json", help="bench_all's JSON for the copy rate when there is "
                        "no copy.csv, and the benchmark's median (default: "
                        "<results-dir>/<gpu>.json when it exists)")
    parser.add_argument("--launches-per-sort", type=int, metavar="STAGE",
                        help="print the kernel launches of one sort of STAGE at 2^LOG2_N, exit")
    args = parser.parse_args(argv)
    n = 1 << args.log2_n
    if args.launches_per_sort is not None:
        print(launches_per_sort(args.launches_per_sort, n))
        return 0
    if not (args.profile_dir and args.results_dir and args.repo_root):
        parser.error("--profile-dir, --results-dir and --repo-root are required")
    stages = [int(s) for s in args.stages.split(",")]
    gpu = read_text(os.path.join(args.profile_dir, "gpu.txt")).strip() or "unknown GPU"
    page_path = os.path.join(args.results_dir, gpu_file_name(gpu) + "-sort-profile.md")

    sorts: Dict[int, List[Launch]] = {}
    for stage in stages:
        path = os.path.join(args.profile_dir, f"stage{stage}.csv")
        try:
            sorts[stage] = one_sort(stage, parse_ncu_csv(read_text(path)))
        except ValueError as error:
            raise SystemExit(f"sort_profile_table: {path}: {error}") from error

    bench_json = args.bench_json or os.path.join(args.results_dir, gpu_file_name(gpu) + ".json")
    results = (results_table.load_result_set([results_table.load_json(bench_json)])
               if os.path.exists(bench_json) else None)
    memcpy = copy_from_results(results, n) if results is not None else None
    copy_csv = os.path.join(args.profile_dir, "copy.csv")
    if os.path.exists(copy_csv):
        try:
            copy = copy_from_profile(parse_ncu_csv(read_text(copy_csv)), n)
        except ValueError as error:
            raise SystemExit(f"sort_profile_table: {copy_csv}: {error}") from error
        if memcpy is not None:
            copy = CopyReference(copy.gbps, copy.source + "; for comparison, " + memcpy.source)
    elif memcpy is not None:
        copy = memcpy
    else:
        raise SystemExit(f"sort_profile_table: no copy reference: neither {copy_csv} nor a copy "
                         f"in {bench_json}")
    bench: Dict[int, float] = {}
    if results is not None:
        for stage in stages:
            found = results.find(f"stage{stage:02d}", n)
            if found is not None:
                bench[stage] = found.median_ms
    bench_date = str(results.context.get("date", ""))[:10] if results is not None else ""

    with open(page_path, "w", encoding="utf-8") as handle:
        handle.write(profile_page(sorts, n, copy, gpu,
                                  results_table.link(bench_json, args.results_dir), bench,
                                  bench_date))
    print(f"sort_profile_table: wrote {page_path}")
    readmes = results_table.stage_readmes(args.repo_root)
    for stage, launches in sorts.items():
        readme = readmes.get(f"stage{stage:02d}")
        if readme is None:
            print(f"sort_profile_table: no README for stage {stage:02d}, block not written")
            continue
        here = os.path.dirname(readme)
        block = profile_block(stage, launches, n, copy, gpu, results_table.link(page_path, here),
                              results_table.link(bench_json, here), bench.get(stage), bench_date)
        for message in results_table.update_file_blocks(readme,
                                                         {f"profile:stage{stage:02d}": block}):
            print("sort_profile_table: " + message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
