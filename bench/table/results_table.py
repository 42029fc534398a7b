#!/usr/bin/env python3
"""Builds the results page of `make table` from Google Benchmark JSON.

Reads the JSON that `bench_all` (and, when PyTorch was usable, `torch_baseline.py`) wrote and
produces, without a single hand-typed number:

* ``docs/results/<gpu>.md``: the input set, the ladder tables (stage 00..04 in ladder order, never
  sorted by speed), pairs, reduced entropy, baselines, torch.topk, the stage 03 / stage 04 sweeps
  and the copy bandwidth;
* ``docs/results/<gpu>.json`` (and ``<gpu>-torch.json``): verbatim copies of the raw JSON;
* ``docs/results/<gpu>-keys-per-second.png``: G keys/s against n for every stage and baseline,
  with the copy floor drawn as the roofline (skipped with a note when matplotlib is missing);
* ``docs/results/<gpu>-gpu-state.json``: nvidia-smi's view of the GPU before and after the run
  (gpu_state.py), when make_table.sh recorded it;
* the marked blocks of the READMEs: ``<!-- results:table:begin/end -->`` in README.md,
  ``<!-- results:stageNN:begin/end -->`` and ``<!-- sweep:stageNN:begin/end -->`` in each
  ``chapters/NN_*/README.md``. A file without the markers is left alone (and the script says so).
* stages 06 (segmented sort) and 07 (top-k), measured by bench_stage06 and bench_stage07 into
  JSON of their own (``docs/results/<gpu>-stage06.json``, ``-stage07.json``; merge_bench_json.py
  joins a stage's runs): a page each (``<gpu>-stageNN.md``) and their README blocks, or "not
  measured yet" in the block when the stage's JSON is missing. Stage 07's run ``llm`` (issue
  18's LLM sampling shapes) gets a table per type (f32, bf16) beside torch.topk of that type and
  ``docs/results/<gpu>-stage07-llm-batch.png``, its time against batch beside torch.topk's
  (skipped with a note when matplotlib is missing); its runs ``rows`` (2^26 values in rows) and
  ``long`` (one row of 2^28) a table each, with issue 18's targets and the lowest measured values.

Everything below the command-line layer is a pure function from parsed JSON to markdown strings,
so tests can check tables and README rewriting on a small fixture without a GPU.

Benchmark names follow bench/bench_support.hpp:
``<entry>/<type>/<keys|pairs>[/<variant>]/n:<n>/<shape>`` with <shape> ``ands:<k>`` or
``dist:<name>`` (sorted, equal, few), plus Google Benchmark's own suffixes (``/min_time:0.050``,
``/iterations:1``, ``/manual_time``), which are ignored. Counters: n, ands, median_ms, min_ms,
p10_ms, p90_ms, samples, noise, converged, keys_per_s, GBps, bytes. JSON written before issue 13's
timing method (no ``sortlab_timing`` in its context, no p10/p90) is still read: its rows show
dashes where the spread would be.

``--check`` regenerates the page and the README blocks in memory and exits 1 when any committed
file differs (the committed docs can never drift from the committed JSON).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

# Name parts Google Benchmark appends to a benchmark's name; they say nothing about the input.
_BENCHMARK_SUFFIXES = ("min_time:", "min_warmup_time:", "repeats:", "iterations:", "threads:")
_BENCHMARK_FLAGS = ("manual_time", "real_time", "process_time")

_STAGE_RE = re.compile(r"^stage(\d\d)$")

# The baseline every "vs CUB" ratio uses: the fastest of CUB's u32, i32 and f32 sorts of the same
# bits (derived by ResultSet from the stage00 rows; the u32 row as shipped stays beside it).
CUB_BEST = "stage00-cub-best"
_CUB_KEY_TYPES = ("u32", "i32", "f32")

# Order of the baselines in their table (unknown entries follow, alphabetically).
_BASELINE_ORDER = ("stage00", CUB_BEST, "thrust", "cub-segmented-radix", "cub-segmented-sort",
                   "torch-sort")

# What a sweep's variant prefix means, for the sweep tables' first column.
_SWEEP_PARAMETERS = {"r": "r (bits per digit)", "kpt": "keys per thread"}

# The README sizes: the top-level README shows the ladder at these sizes.
README_LOG2_SIZES = (24, 28)

# Smallest n in the page's tables (every size of the ladder, 2^16 up, since issue 13's method
# keeps launch gaps out of the timed region).
TABLE_MIN_N = 1 << 16

# Entropy of keys ANDed k times (CUB's benchmarks and GPUSorting's generator use the same table).
AND_ENTROPY = {0: "1.000", 1: "0.811", 2: "0.544", 3: "0.337", 4: "0.201"}

# The key shapes other than AND-reduction (bench/key_shape.hpp), in the order the tables show them.
DISTRIBUTIONS = {"equal": "one value repeated (entropy 0)", "sorted": "already sorted",
                 "few": "16 distinct values in random order"}

DASH = "—"


@dataclass(frozen=True)
class Result:
    """One measured benchmark (one row of the JSON's ``benchmarks`` list)."""

    entry: str  # "stage03", "thrust", "cub-segmented-sort", "torch-sort", "torch-topk", "copy"
    key_type: str  # "u32", "i32", "f32"
    kind: str  # "keys", "pairs", or "" when the name has neither (torch-topk)
    variant: str  # "" or e.g. "r:4", "seg:128", "rows:4096/cols:32768/k:64"
    n: int  # number of keys (rows * cols for top-k)
    ands: int  # entropy reduction (0 = uniform keys)
    median_ms: float  # median time of one run
    keys_per_s: float  # n / median time
    gbps: float  # the entry's bytes model / median time, in GB/s
    bytes: float  # the entry's bytes model
    label: str  # what the entry is (a stage's kSummary)
    dist: str = ""  # "" for AND-reduced keys, else a DISTRIBUTIONS name ("sorted", ...)
    min_ms: Optional[float] = None  # fastest sample (None in JSON from before issue 13)
    p10_ms: Optional[float] = None  # 10th percentile of the samples
    p90_ms: Optional[float] = None  # 90th percentile of the samples
    samples: Optional[int] = None  # number of samples the median is of
    noise: Optional[float] = None  # robust relative noise of the samples
    converged: Optional[bool] = None  # whether the noise bound was met (else a cap stopped it)
    timed_with_events: bool = False  # the call waits for the host: timed on an idle GPU
    name: str = field(default="", compare=False)  # the benchmark's full name
    # Every numeric counter of the row (floor_fraction, blocks_per_row, ... of the stage
    # benchmarks), by name.
    counters: Mapping[str, float] = field(default_factory=dict, compare=False, hash=False)

    @property
    def stage_number(self) -> Optional[int]:
        """The NN of a "stageNN" entry, None for anything else."""
        match = _STAGE_RE.match(self.entry)
        return int(match.group(1)) if match else None


@dataclass(frozen=True)
class ParsedName:
    """The parts of a benchmark name."""

    entry: str
    key_type: str
    kind: str
    variant: str
    n: Optional[int]
    ands: Optional[int]
    dist: str = ""


def parse_name(name: str) -> ParsedName:
    """Splits a sortlab benchmark name into its parts, dropping Google Benchmark's suffixes.

    >>> parse_name("stage03/u32/keys/r:4/n:1024/ands:0/min_time:0.050/manual_time")
    ParsedName(entry='stage03', key_type='u32', kind='keys', variant='r:4', n=1024, ands=0, dist='')
    """
    parts = name.split("/")
    entry = parts[0]
    key_type = parts[1] if len(parts) > 1 else ""
    rest = parts[2:]
    kind = ""
    if rest and rest[0] in ("keys", "pairs"):
        kind = rest[0]
        rest = rest[1:]
    variant_parts: List[str] = []
    n: Optional[int] = None
    ands: Optional[int] = None
    dist = ""
    for part in rest:
        if part in _BENCHMARK_FLAGS or part.startswith(_BENCHMARK_SUFFIXES):
            continue
        if part.startswith("n:"):
            n = int(part[2:])
        elif part.startswith("ands:"):
            ands = int(part[5:])
        elif part.startswith("dist:"):
            dist = part[5:]
        else:
            variant_parts.append(part)
    return ParsedName(entry, key_type, kind, "/".join(variant_parts), n, ands, dist)


@dataclass(frozen=True)
class Failure:
    """A benchmark that ran but reported no result."""

    name: str  # the benchmark's full name
    parsed: ParsedName  # its parts
    message: str  # why (Google Benchmark's error message)


def parse_benchmarks(document: Mapping[str, Any]) -> Tuple[List[Result], List[Failure]]:
    """Results of one Google Benchmark JSON document, and the entries that failed.

    Aggregates (mean/median/stddev of repetitions) are left out: the counters already hold each
    run's median. Entries that reported an error (or carry no median_ms) become Failures.
    """
    results: List[Result] = []
    failures: List[Failure] = []
    for bench in document.get("benchmarks", []):
        name = str(bench.get("name", ""))
        if bench.get("run_type", "iteration") != "iteration":
            continue
        parsed = parse_name(name)
        if bench.get("error_occurred"):
            failures.append(Failure(name, parsed, str(bench.get("error_message", "error"))))
            continue
        if "median_ms" not in bench:
            failures.append(Failure(name, parsed, "no median_ms counter"))
            continue
        n = int(bench.get("n", parsed.n or 0))
        median_ms = float(bench["median_ms"])
        keys_per_s = float(bench.get("keys_per_s", n / (median_ms * 1e-3) if median_ms else 0.0))

        def optional(counter: str) -> Optional[float]:
            return float(bench[counter]) if counter in bench else None

        samples = optional("samples")
        converged = optional("converged")
        results.append(
            Result(
                entry=parsed.entry,
                key_type=parsed.key_type,
                kind=parsed.kind,
                variant=parsed.variant,
                n=n,
                ands=int(bench.get("ands", parsed.ands or 0)),
                median_ms=median_ms,
                keys_per_s=keys_per_s,
                gbps=float(bench.get("GBps", 0.0)),
                bytes=float(bench.get("bytes", 0.0)),
                label=str(bench.get("label", "")),
                dist=parsed.dist,
                min_ms=optional("min_ms"),
                p10_ms=optional("p10_ms"),
                p90_ms=optional("p90_ms"),
                samples=int(samples) if samples is not None else None,
                noise=optional("noise"),
                converged=bool(converged) if converged is not None else None,
                timed_with_events=bool(bench.get("timed_with_events", 0)),
                name=name,
                counters={key: float(value) for key, value in bench.items()
                          if isinstance(value, (int, float)) and not isinstance(value, bool)},
            )
        )
    return results, failures


class ResultSet:
    """All results of one `make table` run, with look-ups by what was measured."""

    def __init__(self, results: Iterable[Result], context: Optional[Mapping[str, Any]] = None,
                 failures: Iterable[Failure] = ()):
        """Indexes results and derives CUB's best instantiation (cub_best_results); context is
        the merged JSON context (GPU name, date, ...); failures are the benchmarks that reported
        an error."""
        self.results: List[Result] = list(results)
        self.context: Dict[str, Any] = dict(context or {})
        self.failures: List[Failure] = list(failures)
        self.results += cub_best_results(self.results)
        self._index: Dict[Tuple[str, str, str, str, int, int, str], Result] = {}
        for result in self.results:
            key = (result.entry, result.key_type, result.kind, result.variant, result.n,
                   result.ands, result.dist)
            self._index[key] = result

    def find(
        self, entry: str, n: int, key_type: str = "u32", kind: str = "keys", variant: str = "",
        ands: int = 0, dist: str = "",
    ) -> Optional[Result]:
        """The result of entry on one input, or None when it was not measured."""
        return self._index.get((entry, key_type, kind, variant, n, ands, dist))

    def failure(self, entry: str, n: int, key_type: str = "u32", kind: str = "keys",
                variant: str = "", ands: int = 0, dist: str = "") -> Optional[Failure]:
        """The failure of entry on one input, or None when it did not fail."""
        for failure in self.failures:
            p = failure.parsed
            if (p.entry, p.key_type, p.kind, p.variant, p.n, p.ands or 0, p.dist) == (
                    entry, key_type, kind, variant, n, ands, dist):
                return failure
        return None

    def stages(self) -> List[str]:
        """The stage entries present ("stage00", ...), in ladder order (by stage number)."""
        names = {r.entry for r in self.results if r.stage_number is not None}
        return sorted(names, key=lambda name: int(name[5:]))

    def sizes(self, entry: Optional[str] = None, kind: str = "keys", ands: int = 0,
              key_type: str = "u32", variant: Optional[str] = "", dist: str = "") -> List[int]:
        """Sorted sizes measured for entry (any stage when None) on the given inputs.

        variant None accepts any variant.
        """
        found = {
            r.n for r in self.results
            if (r.entry == entry if entry else r.stage_number is not None)
            and r.kind == kind and r.ands == ands and r.key_type == key_type and r.dist == dist
            and (variant is None or r.variant == variant)
        }
        return sorted(found)

    def shapes(self) -> List[Tuple[int, str]]:
        """The key shapes (ands, dist) the stages were measured on besides uniform keys: AND
        counts ascending, then the DISTRIBUTIONS in their order."""
        found = {(r.ands, r.dist) for r in self.results if r.stage_number is not None
                 and r.kind == "keys" and r.key_type == "u32"} - {(0, "")}
        order = list(DISTRIBUTIONS)
        return sorted(found, key=lambda s: (s[1] != "", order.index(s[1]) if s[1] in order
                                            else len(order), s[1], s[0]))

    def copy_ceiling(self) -> Optional[Result]:
        """The copy benchmark with the highest bandwidth: the practical ceiling of this GPU."""
        copies = [r for r in self.results if r.entry == "copy"]
        return max(copies, key=lambda r: r.gbps) if copies else None

    def copy_floor(self, n: int, kind: str = "keys") -> Optional[Result]:
        """The floor copy of a sort of n keys (kind "pairs": keys and values), measured in the
        same run: one read and one write of every key (and value). None when not measured."""
        return self.find("copy", n, "u32", kind)

    def cub(self, n: int, kind: str = "keys", ands: int = 0, dist: str = "") -> Optional[Result]:
        """The CUB baseline of one input: CUB's best instantiation (CUB_BEST)."""
        return self.find(CUB_BEST, n, "u32", kind, "", ands, dist)

    def label_of(self, entry: str) -> str:
        """The label (kSummary) of the entry's default variant, or of any of its results."""
        candidates = [r for r in self.results if r.entry == entry]
        for result in candidates:
            if result.variant == "" and result.label:
                return result.label
        return candidates[0].label if candidates else ""

    @property
    def gpu_name(self) -> str:
        """The GPU the results were measured on."""
        return str(self.context.get("sortlab_gpu_name") or self.context.get("torch_gpu_name")
                   or "unknown GPU")

    @property
    def gpu_file_name(self) -> str:
        """The GPU name as a file name ("NVIDIA-H100-80GB-HBM3"), as sortlab::gpu_file_name()."""
        name = self.context.get("sortlab_gpu_file_name")
        if name:
            return str(name)
        return re.sub(r"[^A-Za-z0-9.-]", "-", self.gpu_name)

    @property
    def date(self) -> str:
        """The day of the measurement (from Google Benchmark's context), YYYY-MM-DD."""
        return str(self.context.get("date", ""))[:10] or "unknown date"


def cub_best_results(results: Sequence[Result]) -> List[Result]:
    """CUB's best instantiation at every input it was measured on: the fastest of the stage00
    rows of the u32, i32 and f32 sorts of the same bits (same n, kind and key shape), as entry
    CUB_BEST with key type u32 (the ladder's), its label naming the winner and the candidates.
    A user picks the fastest instantiation; the ladder's u32 row as shipped stays beside it."""
    groups: Dict[Tuple[int, str, int, str], List[Result]] = {}
    for result in results:
        if result.entry == "stage00" and result.variant == "" and \
                result.key_type in _CUB_KEY_TYPES:
            groups.setdefault((result.n, result.kind, result.ands, result.dist), []).append(result)
    derived = []
    for members in groups.values():
        best = min(members, key=lambda r: (r.median_ms, _CUB_KEY_TYPES.index(r.key_type)))
        candidates = sorted((r.key_type for r in members), key=_CUB_KEY_TYPES.index)
        label = (f"CUB DeviceRadixSort, the fastest of its {', '.join(candidates)} sorts of the "
                 f"same bits (here {best.key_type})" if len(candidates) > 1 else
                 f"CUB DeviceRadixSort, only its {best.key_type} sort measured here")
        derived.append(replace(best, entry=CUB_BEST, key_type="u32", label=label))
    return derived


def load_result_set(documents: Sequence[Mapping[str, Any]]) -> ResultSet:
    """Merges parsed JSON documents (bench_all first, then torch) into one ResultSet.

    The context of an earlier document wins over a later one's for the same key.
    """
    results: List[Result] = []
    failures: List[Failure] = []
    context: Dict[str, Any] = {}
    for document in documents:
        parsed, failed = parse_benchmarks(document)
        results.extend(parsed)
        failures.extend(failed)
        for key, value in document.get("context", {}).items():
            context.setdefault(key, value)
    return ResultSet(results, context, failures)


# ---------------------------------------------------------------------------------------------
# Formatting


def fmt_n(n: int) -> str:
    """2^k for a power of two, the number otherwise."""
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def fmt_sig(value: float, digits: int = 3) -> str:
    """value with about digits significant digits, never in e-notation."""
    if value == 0:
        return "0"
    magnitude = len(str(int(abs(value)))) if abs(value) >= 1 else 0
    if abs(value) >= 1:
        decimals = max(0, digits - magnitude)
    else:
        decimals = digits
        scaled = abs(value)
        while scaled < 0.1 and decimals < 9:
            scaled *= 10
            decimals += 1
    return f"{value:,.{decimals}f}"


def fmt_ms(ms: float) -> str:
    """Milliseconds, 3 significant digits."""
    return fmt_sig(ms)


def fmt_gkeys(keys_per_s: float) -> str:
    """Keys per second in billions (G keys/s), 3 significant digits."""
    return fmt_sig(keys_per_s / 1e9)


def fmt_gbps(gbps: float) -> str:
    """GB/s, 3 significant digits (whole numbers from 100 up)."""
    return fmt_sig(gbps)


def fmt_percent(fraction: Optional[float]) -> str:
    """A fraction as a percentage, or a dash."""
    if fraction is None:
        return DASH
    percent = 100.0 * fraction
    return f"{percent:.0f}%" if percent >= 10 else f"{percent:.1f}%"


def fmt_ratio(ratio: Optional[float]) -> str:
    """A speed ratio such as 3.14×, 12.5× or 0.025×, or a dash."""
    if ratio is None:
        return DASH
    if ratio >= 10:
        return f"{ratio:.1f}×"
    if ratio >= 0.1:
        return f"{ratio:.2f}×"
    return f"{fmt_sig(ratio, 2)}×"


def fmt_spread(result: Result) -> str:
    """The p10–p90 range of the samples ("0.470–0.482"), or a dash when the JSON has none."""
    if result.p10_ms is None or result.p90_ms is None:
        return DASH
    return f"{fmt_ms(result.p10_ms)}–{fmt_ms(result.p90_ms)}"


def copies_worth(result: Result, copy: Optional[Result]) -> Optional[float]:
    """How many floor copies the result's time would pay for: result time / copy time, the copy
    of the same keys (and values) measured in the same run (ResultSet.copy_floor). 1 is the floor;
    unlike a bandwidth fraction it never rewards a design for moving more bytes."""
    if copy is None or copy.median_ms <= 0 or result.median_ms <= 0:
        return None
    return result.median_ms / copy.median_ms


def fmt_worth(worth: Optional[float]) -> str:
    """Copies' worth with 3 significant digits, or a dash."""
    return DASH if worth is None else fmt_sig(worth)


def escape_cell(text: str) -> str:
    """Text safe inside a markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
                   right_aligned: Sequence[bool]) -> str:
    """A GitHub-flavoured markdown table (numbers right-aligned)."""
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if right else "---" for right in right_aligned) + "|"]
    lines += ["| " + " | ".join(escape_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def speed_ratio(reference: Optional[Result], result: Optional[Result]) -> Optional[float]:
    """How many times faster result is than reference (reference time / result time)."""
    if reference is None or result is None or result.median_ms <= 0:
        return None
    return reference.median_ms / result.median_ms


def describe_shape(ands: int = 0, dist: str = "") -> str:
    """ "uniform", "ANDed 2× (entropy 0.544 bits per bit)", "already sorted" ..."""
    if dist:
        return DISTRIBUTIONS.get(dist, dist)
    return ("uniform" if ands == 0 else
            f"ANDed {ands}× (entropy {AND_ENTROPY.get(ands, '?')} bits per bit)")


def describe_input(n: int, kind: str = "keys", ands: int = 0, key_type: str = "u32",
                   dist: str = "") -> str:
    """ "n = 2^24 u32 keys, uniform" and the like."""
    return f"n = {fmt_n(n)} {key_type} {kind}, {describe_shape(ands, dist)}"


def short_shape(ands: int, dist: str) -> str:
    """A short input note for a table cell: "", ", ANDed 2×", ", sorted"."""
    if dist:
        return f", {dist}"
    return f", ANDed {ands}×" if ands else ""


# ---------------------------------------------------------------------------------------------
# Tables

LADDER_HEADERS = ("stage", "what changed", "median ms", "p10–p90 ms", "G keys/s",
                  "GB/s (own bytes)", "copies' worth", "vs previous stage", "vs CUB best")
_LADDER_ALIGN = (False, False, True, True, True, True, True, True, True)


# Stages that solve another problem than a full sort (segmented sort, top-k): never the rung a
# full sort's speed-up is measured against.
OFF_LADDER_STAGES = (6, 7)


def previous_stage(stage: str, present: Sequence[str] = ()) -> Optional[str]:
    r"""The rung below stage whose speed-up we report: the highest-numbered full-sort stage of
    \p present below it (stage 08 follows stage 05: stages 06 and 07 are segmented sort and
    top-k), or stageNN-1 when \p present is empty. None for stage 01 and 00: stage 01 is the
    first rung of our own (stage 00 is CUB, compared in its own column).

    >>> previous_stage("stage08", ["stage00", "stage01", "stage05", "stage06", "stage08"])
    'stage05'
    >>> previous_stage("stage03")
    'stage02'
    """
    number = int(stage[5:])
    if number < 2:
        return None
    below = [s for s in present if s.startswith("stage") and s[5:].isdigit()
             and 1 <= int(s[5:]) < number and int(s[5:]) not in OFF_LADDER_STAGES]
    if present:
        return max(below, key=lambda s: int(s[5:])) if below else None
    return f"stage{number - 1:02d}"


# On one repeated value every digit of every pass is the same for all keys, and a sort that skips
# such passes (stage 05) moves far fewer bytes than its model charges. Its modelled GB/s can then
# exceed what a plain copy of the same data reached in the same run, which no real traffic can
# do at these sizes: above this multiple of the copy's rate the cell shows OVERCOUNTED instead.
BYTES_MODEL_LIMIT = 1.05
OVERCOUNTED = "— (skips passes)"


def own_bytes_cell(result: Result, copy: Optional[Result]) -> str:
    """The GB/s of a design's own bytes model, or OVERCOUNTED on one repeated value when that
    exceeds the copy floor's measured rate (the model counts passes the sort skipped)."""
    if (result.dist == "equal" and copy is not None and copy.gbps > 0
            and result.gbps > BYTES_MODEL_LIMIT * copy.gbps):
        return OVERCOUNTED
    return fmt_gbps(result.gbps)


def measured_cells(result: Result, copy: Optional[Result]) -> List[str]:
    """median, spread, G keys/s, GB/s and copies' worth of one result."""
    return [fmt_ms(result.median_ms), fmt_spread(result), fmt_gkeys(result.keys_per_s),
            own_bytes_cell(result, copy), fmt_worth(copies_worth(result, copy))]


def ladder_table(results: ResultSet, n: int, kind: str = "keys", ands: int = 0,
                 key_type: str = "u32", dist: str = "") -> Optional[str]:
    """The ladder at one input: every stage in ladder order (not sorted by speed), CUB's best
    instantiation right after stage 00 (the u32 sort as shipped).

    A stage that was not measured at this size (the 1-bit stages cap their own sizes) keeps its
    row, with dashes. Returns None when no stage was measured on this input.
    """
    copy = results.copy_floor(n, kind)
    cub = results.cub(n, kind, ands, dist)
    rows: List[List[str]] = []
    any_measured = False
    for stage in results.stages():
        result = results.find(stage, n, key_type, kind, "", ands, dist)
        label = results.label_of(stage)
        if result is None:
            failure = results.failure(stage, n, key_type, kind, "", ands, dist)
            why = f"failed: {failure.message}" if failure else "not measured at this size"
            rows.append([stage, f"{label} ({why})"] + [DASH] * 7)
            continue
        any_measured = True
        previous = previous_stage(stage, results.stages())
        prev_result = (results.find(previous, n, key_type, kind, "", ands, dist)
                       if previous else None)
        rows.append([stage, result.label or label] + measured_cells(result, copy) + [
            fmt_ratio(speed_ratio(prev_result, result)), fmt_ratio(speed_ratio(cub, result))])
        if stage == "stage00" and cub is not None:
            rows.append([CUB_BEST, cub.label] + measured_cells(cub, copy) +
                        [DASH, fmt_ratio(speed_ratio(cub, cub))])
    if not any_measured:
        return None
    return markdown_table(LADDER_HEADERS, rows, _LADDER_ALIGN)


def _baseline_rank(result: Result) -> Tuple[int, str]:
    """Sort key placing the baselines in _BASELINE_ORDER."""
    if result.entry in _BASELINE_ORDER:
        return (_BASELINE_ORDER.index(result.entry), "")
    return (len(_BASELINE_ORDER), result.entry)


def natural_key(text: str) -> List[Any]:
    """Sort key that orders "seg:128" before "seg:16384" and "r:2" before "r:10"."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text)]


def baselines_table(results: ResultSet, min_n: int = TABLE_MIN_N) -> Optional[str]:
    """Thrust, the CUB segmented sorts and torch.sort beside CUB (stage 00 as shipped and its best
    instantiation) on the same inputs, for n >= min_n. torch.topk has a table of its own and the
    segmented torch.sort (TORCH_SEGSORT) is a column of stage 06's page.

    Rows are grouped by input (n, keys or pairs, key type, shape); each group starts with CUB's
    rows when CUB was measured on it. "vs CUB best" compares with CUB's best instantiation on
    the same n, kind and shape (the same bits, whatever the key type).
    """
    baseline_entries = {r.entry for r in results.results
                        if r.stage_number is None and r.entry not in ("copy", "torch-topk",
                                                                      TORCH_SEGSORT)}
    baseline_entries.discard(CUB_BEST)
    groups = sorted({(r.n, r.kind, r.key_type, r.ands, r.dist) for r in results.results
                     if r.entry in baseline_entries and r.n >= min_n},
                    key=lambda g: (g[0], g[1], _CUB_KEY_TYPES.index(g[2])
                                   if g[2] in _CUB_KEY_TYPES else 9, g[2], g[4], g[3]))
    if not groups:
        return None
    rows: List[List[str]] = []
    footnote = False
    for n, kind, key_type, ands, dist in groups:
        members = [r for r in results.results
                   if (r.entry in baseline_entries or (r.entry == "stage00" and r.variant == ""))
                   and (r.n, r.kind, r.key_type, r.ands, r.dist) == (n, kind, key_type, ands, dist)]
        cub = results.cub(n, kind, ands, dist)
        if key_type == "u32" and cub is not None:
            members.append(cub)
        members.sort(key=lambda r: (_baseline_rank(r), natural_key(r.variant)))
        copy = results.copy_floor(n, kind)
        for result in members:
            name = {"stage00": "CUB (stage00)", CUB_BEST: "CUB best"}.get(result.entry,
                                                                          result.entry)
            if result.variant:
                name += f" {result.variant}"
            if result.timed_with_events:
                name += " ‡"
                footnote = True
            what = f"{key_type} {kind}" + short_shape(ands, dist)
            rows.append([fmt_n(n), what, name, result.label] + measured_cells(result, copy) +
                        [fmt_ratio(speed_ratio(cub, result))])
    table = markdown_table(
        ("n", "input", "baseline", "what it is", "median ms", "p10–p90 ms", "G keys/s",
         "GB/s (own bytes)", "copies' worth", "vs CUB best"),
        rows, (True, False, False, False, True, True, True, True, True, True))
    if footnote:
        table += ("\n‡ The call waits for the host (it copies a count to it), so it cannot be held "
                  "behind the blocking kernel or captured as a graph: it is timed with CUDA events "
                  "on an idle GPU, host launch gaps included.\n")
    return table


def parse_variant(variant: str) -> Dict[str, str]:
    """"rows:4096/cols:32768/k:64" -> {"rows": "4096", "cols": "32768", "k": "64"}."""
    fields: Dict[str, str] = {}
    for part in variant.split("/"):
        if ":" in part:
            key, value = part.split(":", 1)
            fields[key] = value
    return fields


def topk_table(results: ResultSet) -> Optional[str]:
    """torch.topk on the measured shapes (rows × cols, k per row)."""
    topk = [r for r in results.results if r.entry == "torch-topk"]
    if not topk:
        return None
    topk.sort(key=lambda r: (r.key_type, natural_key(r.variant)))
    rows = []
    for result in topk:
        shape = parse_variant(result.variant)
        rows.append([result.key_type, shape.get("rows", "?"), shape.get("cols", "?"),
                     shape.get("k", "?"), fmt_ms(result.median_ms), fmt_gkeys(result.keys_per_s),
                     fmt_gbps(result.gbps)])
    return markdown_table(("type", "rows", "cols", "k", "median ms", "G items/s", "GB/s"), rows,
                          (False, True, True, True, True, True, True))


def variant_prefix(variant: str) -> str:
    """"r:5" -> "r": which parameter a sweep variant sets."""
    return variant.split(":", 1)[0]


def sweep_prefixes(results: ResultSet, stage: str) -> List[str]:
    """The parameters a stage is swept over ("kpt", "r"), the main sweep first: the one its
    ``sortlab_default_<stage>`` context entry names, then the others alphabetically."""
    prefixes = sorted({variant_prefix(r.variant) for r in results.results
                       if r.entry == stage and r.variant})
    main = results.context.get(f"sortlab_default_{stage}")
    if main and variant_prefix(main) in prefixes:
        prefixes.remove(variant_prefix(main))
        prefixes.insert(0, variant_prefix(main))
    return prefixes


def sweep_variants(results: ResultSet, stage: str, prefix: Optional[str] = None) -> List[str]:
    """The sweep variants ("r:1" ... "r:8") measured for stage, in numeric order; only those of
    one parameter when prefix is given."""
    variants = {r.variant for r in results.results if r.entry == stage and r.variant
                and (prefix is None or variant_prefix(r.variant) == prefix)}
    return sorted(variants, key=natural_key)


def sweep_default(results: ResultSet, stage: str, prefix: str) -> Optional[str]:
    """The default variant of one of a stage's sweeps, from the JSON context:
    ``sortlab_default_<stage>`` for its main sweep, ``sortlab_default_<stage>_<prefix>`` for
    any other."""
    main = results.context.get(f"sortlab_default_{stage}")
    if main and variant_prefix(main) == prefix:
        return main
    return results.context.get(f"sortlab_default_{stage}_{prefix}")


def sweep_table(results: ResultSet, stage: str, n: int,
                prefix: Optional[str] = None) -> Optional[str]:
    """One size of one of a stage's sweeps (the main one when prefix is None): one row per
    variant, compared with the sweep's default (sweep_default), whose row is marked
    "(default)"."""
    if prefix is None:
        prefixes = sweep_prefixes(results, stage)
        if not prefixes:
            return None
        prefix = prefixes[0]
    variants = [v for v in sweep_variants(results, stage, prefix)
                if results.find(stage, n, variant=v)]
    if not variants:
        return None
    default_variant = sweep_default(results, stage, prefix)
    default = results.find(stage, n, variant=default_variant) if default_variant else None
    copy = results.copy_floor(n)
    rows = []
    for variant in variants:
        result = results.find(stage, n, variant=variant)
        assert result is not None
        value = variant.split(":", 1)[1] if ":" in variant else variant
        if variant == default_variant:
            value += " (default)"
        rows.append([value] + measured_cells(result, copy) +
                    [fmt_ratio(speed_ratio(default, result))])
    return markdown_table(
        (_SWEEP_PARAMETERS.get(prefix, prefix), "median ms", "p10–p90 ms", "G keys/s",
         "GB/s (own bytes)", "copies' worth", "vs default"),
        rows, (False, True, True, True, True, True, True))


def sweep_block(results: ResultSet, stage: str) -> Optional[str]:
    """Every measured size of each of a stage's sweeps, one table each. A stage with more than
    one sweep gets the swept parameter in each table's heading."""
    prefixes = sweep_prefixes(results, stage)
    parts = []
    for prefix in prefixes:
        sizes = sorted({r.n for r in results.results
                        if r.entry == stage and r.variant and variant_prefix(r.variant) == prefix
                        and r.kind == "keys" and r.ands == 0 and r.key_type == "u32"})
        for n in sizes:
            table = sweep_table(results, stage, n, prefix)
            if not table:
                continue
            heading = describe_input(n)
            if len(prefixes) > 1:
                heading = f"{_SWEEP_PARAMETERS.get(prefix, prefix)} sweep, {heading}"
            parts.append(f"**{heading}**\n\n{table}")
    return "\n".join(parts) if parts else None


def stage_table(results: ResultSet, stage: str) -> Optional[str]:
    """One stage over every measured input: its speed, bandwidth, copies' worth, and ratios to
    the stage before and to CUB's best instantiation (the block a stage README shows)."""
    previous = previous_stage(stage, results.stages())
    order = list(DISTRIBUTIONS)
    inputs = sorted({(r.kind, r.ands, r.dist, r.n) for r in results.results
                     if r.entry == stage and r.variant == "" and r.key_type == "u32"},
                    key=lambda i: (i[0] != "keys", i[2] != "", order.index(i[2])
                                   if i[2] in order else len(order), i[1], i[3]))
    if not inputs:
        return None
    rows = []
    for kind, ands, dist, n in inputs:
        result = results.find(stage, n, "u32", kind, "", ands, dist)
        assert result is not None
        prev = results.find(previous, n, "u32", kind, "", ands, dist) if previous else None
        cub = results.cub(n, kind, ands, dist)
        rows.append([fmt_n(n), kind + short_shape(ands, dist)] +
                    measured_cells(result, results.copy_floor(n, kind)) +
                    [fmt_ratio(speed_ratio(prev, result)), fmt_ratio(speed_ratio(cub, result))])
    headers = ("n", "u32", "median ms", "p10–p90 ms", "G keys/s", "GB/s (own bytes)",
               "copies' worth", f"vs {previous}" if previous else "vs previous stage",
               "vs CUB best")
    return markdown_table(headers, rows, (True, False, True, True, True, True, True, True, True))


def copy_table(results: ResultSet) -> Optional[str]:
    """The device-to-device copies at every size: each table's floor, and the bandwidth."""
    copies = sorted((r for r in results.results if r.entry == "copy"),
                    key=lambda r: (r.kind != "keys", r.n))
    if not copies:
        return None
    rows = [[fmt_n(r.n), r.kind, fmt_sig(r.bytes / 2**20), fmt_ms(r.median_ms), fmt_spread(r),
             fmt_gbps(r.gbps), str(r.samples) if r.samples is not None else DASH]
            for r in copies]
    return markdown_table(("n (u32)", "of", "MiB read + written", "median ms", "p10–p90 ms",
                           "GB/s", "samples"), rows,
                          (True, False, True, True, True, True, True))


# ---------------------------------------------------------------------------------------------
# Pages and README blocks


def legend(results: ResultSet) -> str:
    """How to read the ladder columns."""
    return (
        "Columns: *median ms* is the median of the samples (CUDA events; see *Method*); "
        "*p10–p90 ms* their spread; *G keys/s* is n / median time; *GB/s (own bytes)* is the "
        "design's own bytes model (`bytes_moved`: the device-memory traffic its design needs) / "
        f"median time (\"{OVERCOUNTED}\" on one repeated value where that would exceed the copy "
        "floor's measured rate: the model then counts passes the sort skipped); *copies' worth* is the median time / the time of the table's floor, a "
        "device-to-device copy of the same keys (and values), measured in the same run: one "
        "read and one write of each, so 1 is the floor, and a design that moves more bytes "
        "scores worse, never better; *vs previous stage* is stage NN−1's time / stage NN's time "
        "(above 1× = faster; stage 01 is the first rung of our own, so it has none); *vs CUB "
        f"best* is the time of `{CUB_BEST}` (the fastest of CUB's u32, i32 and f32 sorts of the "
        "same bits, as a user would pick) / this time. The `stage00` row is CUB's u32 sort as "
        "shipped.\n")


def provenance(results: ResultSet, json_link: str) -> str:
    """The "generated, do not edit" line that opens every generated block."""
    return (f"*{results.gpu_name}, measured {results.date}. Generated by `make table` from "
            f"[the raw benchmark JSON]({json_link}) — do not edit by hand.*\n")


def method_lines(results: ResultSet) -> List[str]:
    """How the samples were taken, from the JSON context (JSON from before issue 13 says so)."""
    context = results.context
    timing = context.get("sortlab_timing")
    if not timing:
        return ["- Timing: CUDA events around each call on an idle GPU, no L2 flush, median over "
                "`--min_time` (the method before issue 13: host launch gaps are timed, small "
                "sizes partly run from the L2, no spread recorded)."]
    how = {"blocking": "a kernel spinning on a host-pinned flag holds the stream while each "
                       "sample's events and call are queued, so no host launch gap is timed",
           "graph": "each call is captured once per input set as a CUDA graph and replayed "
                    "between the events, behind the same blocking kernel",
           "events": "CUDA events around each call on an idle GPU (launch gaps are timed)"}
    lines = [f"- Timing: `{timing}`: {how.get(timing, timing)}."]
    flush = int(float(context.get("sortlab_l2_flush_bytes", 0) or 0))
    # JSON from before 2026-11-28 has no method: its flush wrote the buffer.
    method = context.get("sortlab_l2_flush_method", "write")
    if not flush:
        lines.append("- No L2 flush (--l2_flush=0).")
    elif method == "read":
        lines.append(f"- L2 flush before every sample: {flush / 2**20:.0f} MiB read (the L2 is "
                     "left clean, so no timed call pays for writing back the flush).")
    else:
        lines.append(f"- L2 flush before every sample: {flush / 2**20:.0f} MiB written (the method "
                     "before 2026-11-28: the timed call pays for writing back the flush's dirty "
                     "lines as it evicts them).")
    noise = float(context.get("sortlab_max_noise", 0) or 0)
    lines.append(f"- Samples until the robust relative noise (1.4826 × MAD / median) is at most "
                 f"{100 * noise:g}%, at least {context.get('sortlab_min_samples', '?')} samples, "
                 f"at most {float(context.get('sortlab_max_time_s', 0) or 0):g} s of sampling "
                 "per row; rotating inputs (keys and values) exceed 2× the L2 at every size.")
    measured = [r for r in results.results if r.converged is not None and r.entry != CUB_BEST]
    capped = [r for r in measured if not r.converged]
    if capped:
        lines.append(f"- {len(capped)} of {len(measured)} rows stopped at the time or sample cap "
                     "above the noise bound (their `converged` counter is 0): "
                     + ", ".join("`" + " ".join(part for part in (
                         r.entry, r.variant, r.key_type, r.kind, fmt_n(r.n)) if part) + "`"
                                 for r in capped[:8])
                     + (" ..." if len(capped) > 8 else "") + ".")
    return lines


# What provenance_lines() shows of nvidia-smi's state (make_table.sh's gpu_state.py).
_GPU_STATE_FIELDS = (("clocks.sm", "SM clock"), ("clocks.mem", "memory clock"),
                     ("clocks.max.sm", "max SM clock"), ("power.limit", "power limit"),
                     ("power.draw", "power draw"), ("temperature.gpu", "temperature (°C)"),
                     ("utilization.gpu", "GPU utilisation"), ("memory.used", "memory used"),
                     ("compute_processes", "other compute processes"),
                     ("pstate", "performance state"))


def provenance_lines(results: ResultSet) -> List[str]:
    """Software versions and the GPU's state before and after the run, from the JSON context."""
    context = results.context
    lines = []
    software = []
    for key, name in (("sortlab_cuda_runtime", "CUDA runtime"),
                      ("sortlab_cuda_driver", "CUDA driver API")):
        if context.get(key):
            version = int(context[key])
            software.append(f"{name} {version // 1000}.{version % 1000 // 10}")
    for key, name in (("sortlab_cccl", "CCCL"), ("torch_version", "PyTorch")):
        if context.get(key):
            software.append(f"{name} {context[key]}")
    if software:
        lines.append("- Software: " + ", ".join(software) + ".")
    for phase in ("before", "after"):
        state = context.get(f"nvidia_smi_{phase}")
        if isinstance(state, Mapping) and state:
            facts = [f"{label} {state[field]}" for field, label in _GPU_STATE_FIELDS
                     if state.get(field)]
            if state.get("driver_version") and phase == "before":
                facts.insert(0, f"driver {state['driver_version']}")
            lines.append(f"- GPU {phase} the run (nvidia-smi): " + ", ".join(facts) + ".")
    if not any(f"nvidia_smi_{phase}" in context for phase in ("before", "after")):
        lines.append("- GPU clocks, power limit, temperature and load: not recorded in this "
                     "JSON.")
    return lines


def input_set_lines(results: ResultSet) -> List[str]:
    """The input set as markdown bullets, from the JSON context (never typed here)."""
    lines = []
    for key in ("sortlab_input_set", "torch_input_set"):
        text = results.context.get(key)
        if text:
            lines += [f"- {part.strip()}" for part in str(text).split(";") if part.strip()]
    status = results.context.get("torch_status")
    if status and status != "ran":
        lines.append(f"- torch: {status}")
    return lines


def results_page(results: ResultSet, json_name: str,
                 torch_json_name: Optional[str], plot_name: Optional[str],
                 gpu_state_name: Optional[str] = None,
                 stage_links: Sequence[str] = ()) -> str:
    """The whole docs/results/<gpu>.md page; stage_links (stage_page_links) point at the pages
    of the stages measured by benchmarks of their own."""
    out: List[str] = [f"# sortlab results: {results.gpu_name}\n"]
    out.append(provenance(results, json_name))
    context = results.context
    facts = [f"GPU: {results.gpu_name}"]
    if context.get("sortlab_sm_count"):
        facts.append(f"{context['sortlab_sm_count']} SMs")
    if context.get("sortlab_l2_bytes"):
        facts.append(f"{int(context['sortlab_l2_bytes']) / 2**20:.0f} MiB L2")
    if context.get("sortlab_cuda_runtime"):
        version = int(context["sortlab_cuda_runtime"])
        facts.append(f"CUDA runtime {version // 1000}.{version % 1000 // 10}")
    if context.get("torch_version"):
        facts.append(f"PyTorch {context['torch_version']}")
    if context.get("sortlab_stages"):
        facts.append(f"stages built: {context['sortlab_stages']}")
    out.append("; ".join(facts) + ".\n")
    raw = [f"[{json_name}]({json_name})"]
    if torch_json_name:
        raw.append(f"[{torch_json_name}]({torch_json_name})")
    if gpu_state_name:
        raw.append(f"[{gpu_state_name}]({gpu_state_name}) (nvidia-smi)")
    out.append("Raw JSON: " + ", ".join(raw) +
               ". How the numbers are made: [README.md](README.md).\n")

    out.append("## Method and provenance\n")
    out.append("\n".join(method_lines(results) + provenance_lines(results)) + "\n")

    out.append("## Inputs\n")
    lines = input_set_lines(results)
    out.append("\n".join(lines) + "\n" if lines else "Not recorded in the JSON.\n")

    out.append("## The ladder: u32 keys\n")
    out.append(legend(results))
    for n in results.sizes():
        if n < TABLE_MIN_N:
            continue
        table = ladder_table(results, n)
        if table:
            out.append(f"### {describe_input(n)}\n\n{table}")
    shapes = results.shapes()
    if shapes:
        out.append("## Entropy sweep: u32 keys of other shapes\n")
        for ands, dist in shapes:
            for n in results.sizes(ands=ands, dist=dist):
                table = ladder_table(results, n, ands=ands, dist=dist)
                if table:
                    out.append(f"### {describe_input(n, ands=ands, dist=dist)}\n\n{table}")

    pair_sizes = results.sizes(kind="pairs")
    if pair_sizes:
        out.append("## The ladder: u32 keys with u32 values (pairs)\n")
        for n in pair_sizes:
            table = ladder_table(results, n, kind="pairs")
            if table:
                out.append(f"### {describe_input(n, kind='pairs')}\n\n{table}")

    for title, table in (("## Baselines\n", baselines_table(results)),
                         ("## torch.topk\n", topk_table(results))):
        if table:
            out.append(title)
            out.append(table)

    for stage, title in (("stage03", "## Stage 03: digit width r\n"),
                         ("stage04", "## Stage 04: keys per thread\n"),
                         ("stage05", "## Stage 05: digit width r\n")):
        block = sweep_block(results, stage)
        if block:
            out.append(title)
            out.append(block)

    if stage_links:
        out.append("## Segmented sort and top-k (stages 06 and 07)\n")
        out.append("They solve other problems than a full sort, on inputs of their own, so "
                   "`make table` measures them with their own benchmarks; each has a page:\n\n"
                   + "\n".join(stage_links) + "\n")

    table = copy_table(results)
    if table:
        out.append("## The copy floors (device-to-device copies)\n")
        out.append(table)

    if plot_name:
        out.append("## Keys per second against n\n")
        out.append(f"![G keys/s against n for every stage and baseline, with the copy floor]"
                   f"({plot_name})\n")

    if results.failures:
        out.append("## Failed\n")
        out.append("\n".join(f"- `{f.name}`: {escape_cell(f.message)}"
                              for f in results.failures) + "\n")
    return "\n".join(out)


def readme_table_block(results: ResultSet, page_link: str, plot_link: Optional[str],
                       json_link: str) -> Optional[str]:
    """The top-level README's block: the u32 ladder at 2^24 and 2^28 and the plot."""
    parts = [provenance(results, json_link)]
    for log2 in README_LOG2_SIZES:
        table = ladder_table(results, 1 << log2)
        if table:
            parts.append(f"**{describe_input(1 << log2)}**\n\n{table}")
    if len(parts) == 1:
        return None
    if plot_link:
        parts.append(f"![G keys/s against n for every stage and baseline, with the copy floor]"
                     f"({plot_link})\n")
    parts.append(f"All tables (pairs, baselines, sweeps): [{os.path.basename(page_link)}]"
                 f"({page_link}).\n")
    return "\n".join(parts)


def stage_block(results: ResultSet, stage: str, json_link: str) -> Optional[str]:
    """A stage README's results block."""
    table = stage_table(results, stage)
    if table is None:
        return None
    return "\n".join([provenance(results, json_link), table])


def stage_sweep_block(results: ResultSet, stage: str, json_link: str) -> Optional[str]:
    """A stage README's sweep block."""
    block = sweep_block(results, stage)
    if block is None:
        return None
    return "\n".join([provenance(results, json_link), block])


# ---------------------------------------------------------------------------------------------
# Stages with benchmarks of their own: 06 (segmented sort) and 07 (top-k)
#
# They solve other problems than the ladder's full sort, on inputs of their own, so bench_all
# does not run them: `make table` runs bench_stage06 and bench_stage07 and keeps each one's JSON
# beside the ladder's as docs/results/<gpu>-stageNN.json (merge_bench_json.py joins the runs of
# one stage). Each gets a page of its own, docs/results/<gpu>-stageNN.md, and fills the
# <!-- results:stageNN:begin/end --> block of its README. A stage whose JSON is missing is "not
# measured yet" in its block, and has no page.

# The stages measured by a benchmark of their own: what each solves, and its program.
STAGE_BENCHMARKS = {"stage06": ("segmented sort", "bench_stage06"),
                    "stage07": ("top-k", "bench_stage07")}

STAGE07_SORTED = "stage07-topk"
STAGE07_UNSORTED = "stage07-topk-unsorted"
TORCH_TOPK = "torch-topk"
# torch_baseline.py's torch.sort(dim=-1) of rows of S values: stage 06's torch column.
TORCH_SEGSORT = "torch-segsort"
TORCH_SEGSORT_NAME = "torch.sort"
# bench_stage06's power-law mix of segment sizes, after the equal sizes in stage 06's table.
STAGE06_POWERLAW = "seg:powerlaw"
SCHEDULE_NAMES = {"one": "one block per row", "multi": "several blocks per row",
                  "cluster": "one cluster per row"}

# Stage 06's peers, in their columns' order: entry and what it is.
STAGE06_PEERS = (("cub-segmented-sort", "CUB DeviceSegmentedSort"),
                 ("cub-segmented-radix", "CUB DeviceSegmentedRadixSort"))


@dataclass
class StageData:
    """One stage's own benchmark JSON (or its absence)."""

    stage: str  # "stage06" or "stage07"
    json_path: str  # where the stage's JSON lives beside the ladder's (linked from the docs)
    results: Optional[ResultSet]  # None: not measured yet (no JSON)
    gpu_name: str = "unknown GPU"  # the JSON's GPU, else the ladder's (see gpu_from_json)
    gpu_from_json: bool = False  # whether the JSON names its GPU itself
    # Stage 07's plot of time against batch on the LLM shapes (write_llm_batch_plot), when it was
    # drawn (or, under --check, is there): the page and README block show it; None: they do not.
    llm_plot: Optional[str] = None

    @property
    def runs(self) -> List[Mapping[str, Any]]:
        """merge_bench_json.py's runs ([] for the JSON of a single run)."""
        runs = self.results.context.get("sortlab_merged_runs") if self.results else None
        return list(runs) if isinstance(runs, list) else []

    def run_label(self, result: Result) -> str:
        """The label of the merged run that measured result ("" for a single run's JSON)."""
        for run in self.runs:
            if result.name in run.get("names", ()):
                return str(run.get("label", ""))
        return ""

    @property
    def page_path(self) -> str:
        """docs/results/<gpu>-stageNN.md."""
        return self.json_path[:-len(".json")] + ".md"


def load_stage_data(stage: str, source: Optional[str], json_path: str,
                    ladder: ResultSet) -> StageData:
    """The stage's results from source (None or a missing file: not measured yet); json_path is
    where the JSON lives in docs/results. The GPU is the JSON's own when it names one, else the
    ladder's: the file carries the ladder's GPU file name."""
    if source is None or not os.path.exists(source):
        return StageData(stage, json_path, None, ladder.gpu_name)
    document = load_json(source)
    results = load_result_set([document])
    named = results.context.get("sortlab_gpu_name")
    return StageData(stage, json_path, results, str(named) if named else ladder.gpu_name,
                     bool(named))


def stage_provenance(data: StageData, json_link: str) -> str:
    """The "generated, do not edit" line of a stage's page and README block."""
    assert data.results is not None
    gpu = data.gpu_name if data.gpu_from_json else (
        f"{data.gpu_name} (the GPU of the file's name: the JSON does not record it)")
    return (f"*{gpu}, measured {data.results.date}. Generated by `make table` from "
            f"[the raw benchmark JSON]({json_link}) — do not edit by hand.*\n")


def fmt_dim(value: int) -> str:
    """A top-k row count or length: 2^k from 2^20 up when a power of two, else the number."""
    if value >= 1 << 20 and value & (value - 1) == 0:
        return fmt_n(value)
    return str(value)


@dataclass(frozen=True)
class TopkShape:
    """One top-k input: rows × cols values of one type, k per row."""

    key_type: str
    rows: int
    cols: int
    k: int

    @property
    def variant(self) -> str:
        """The name part bench_stage07 and torch_baseline.py share: rows:R/cols:C/k:K."""
        return f"rows:{self.rows}/cols:{self.cols}/k:{self.k}"

    @property
    def shape(self) -> str:
        """ "64 × 2^20"."""
        return f"{fmt_dim(self.rows)} × {fmt_dim(self.cols)}"


def topk_shape(result: Result) -> Optional[Tuple[TopkShape, str]]:
    """The shape of a top-k row and its forced schedule ("" for the automatic rule), or None
    when the name has no rows, cols and k."""
    fields = parse_variant(result.variant)
    try:
        shape = TopkShape(result.key_type, int(fields["rows"]), int(fields["cols"]),
                          int(fields["k"]))
    except (KeyError, ValueError):
        return None
    return shape, fields.get("schedule", "")


def _topk_index(results: ResultSet) -> Dict[Tuple[str, TopkShape, str], Result]:
    """{(entry, shape, schedule): row} of stage 07's sorted and unsorted rows."""
    index = {}
    for result in results.results:
        parsed = topk_shape(result) if result.entry in (STAGE07_SORTED, STAGE07_UNSORTED) \
            else None
        if parsed:
            index[(result.entry, parsed[0], parsed[1])] = result
    return index


def torch_topk(torch: Optional[ResultSet], shape: TopkShape) -> Optional[Result]:
    """torch.topk's row of the same shape and type, None when torch did not measure it."""
    if torch is None:
        return None
    for result in torch.results:
        if result.entry == TORCH_TOPK and result.key_type == shape.key_type and \
                parse_variant(result.variant) == parse_variant(shape.variant):
            return result
    return None


def fmt_counter_percent(result: Optional[Result], counter: str) -> str:
    """A fraction counter of a row as a percentage, or a dash when absent."""
    if result is None or counter not in result.counters:
        return DASH
    return fmt_percent(result.counters[counter])


# bench_stage07's runs of issue 18's sets that `make table` runs as runs of their own, each
# labelled with its set: the LLM sampling shapes (--set=llm --sorted=1), 2^26 values in rows
# (--set=rows --sorted=1) and one long row (--set=long --sorted=both: sorted output stops at
# kMaxSortedK, and the issue asks for k up to 1% of the row); and the bytes of one value of each
# top-k type (the floor of a row whose run did not copy its input).
STAGE07_LLM_RUN = "llm"
STAGE07_ROWS_RUN = "rows"
STAGE07_LONG_RUN = "long"
TOPK_VALUE_BYTES = {"f32": 4, "bf16": 2}
TOPK_INDEX_BYTES = 8  # int64 indices
# The marks of those runs' tables: a row measured by another run, a floor taken from another
# run's copy, a time or ratio of unsorted output standing in where the run has no sorted row.
OTHER_RUN_MARK = "run `{}`"
OTHER_COPY_MARK = "†"
UNSORTED_MARK = " (unsorted)"


def topk_copy(data: StageData, shape: TopkShape) -> Optional[Result]:
    """The copy row of the shape's input (copy/<type>/rows:R/cols:C) in the stage's JSON."""
    assert data.results is not None
    wanted = {"rows": str(shape.rows), "cols": str(shape.cols)}
    for result in data.results.results:
        if result.entry == "copy" and result.key_type == shape.key_type and \
                parse_variant(result.variant) == wanted:
            return result
    return None


def topk_floor_from_copy(shape: TopkShape, copy: Result) -> Optional[float]:
    """bench_stage07's floor (ms) of a shape from a copy of its input: reading the input once and
    writing k values and int64 indices per row, at the rate the copy moved 2 × the input."""
    value = TOPK_VALUE_BYTES.get(shape.key_type)
    if value is None or copy.median_ms <= 0:
        return None
    in_bytes = shape.rows * shape.cols * value
    out_bytes = shape.rows * shape.k * (value + TOPK_INDEX_BYTES)
    return copy.median_ms * (in_bytes + out_bytes) / (2.0 * in_bytes)


# belongs(own shapes of a run) -> whether another run's shape is one of the run's set.
ShapeFilter = Callable[[TopkShape], bool]


def _llm_grid(own: Sequence[TopkShape]) -> ShapeFilter:
    """The llm run's grid: any of its batches × vocabularies × ks."""
    batches = {shape.rows for shape in own}
    vocabs = {shape.cols for shape in own}
    ks = {shape.k for shape in own}
    return lambda shape: shape.rows in batches and shape.cols in vocabs and shape.k in ks


def _same_input(own: Sequence[TopkShape]) -> ShapeFilter:
    """An input (rows × cols) of the run's own rows, at any k: the rows and long runs leave out
    whole shapes another run measured, their copy with them, but keep the other ks of that input
    (the long run keeps none of quick's k = 1024, so the run's own ks cannot say it belongs)."""
    inputs = {(shape.rows, shape.cols) for shape in own}
    return lambda shape: (shape.rows, shape.cols) in inputs


def _other_run_shapes(data: StageData, key_type: str, own: Sequence[TopkShape],
                      belongs: ShapeFilter) -> List[Tuple[TopkShape, str]]:
    """Rule rows of key_type from other runs whose shape belongs to the run's set but which the
    run left out (make table filters out what an earlier run measured): (shape, the run that
    measured it)."""
    assert data.results is not None
    found: List[Tuple[TopkShape, str]] = []
    for result in data.results.results:
        parsed = topk_shape(result) if result.entry in (STAGE07_SORTED, STAGE07_UNSORTED) \
            else None
        if not parsed or parsed[1] != "" or parsed[0].key_type != key_type:
            continue
        shape = parsed[0]
        if belongs(shape) and shape not in own and all(shape != other for other, _ in found):
            found.append((shape, data.run_label(result)))
    return found


def _values(values: Iterable[int]) -> str:
    """"1, 16, 64" from the distinct values, ascending."""
    return ", ".join(str(value) for value in sorted(set(values)))


def stage07_llm_heading(data: StageData, key_type: str) -> str:
    """The heading of the llm run's table of one type: the shapes, from the rows themselves."""
    assert data.results is not None
    own = [shape for shape, _ in _stage07_rule_shapes(data, STAGE07_LLM_RUN, key_type)]
    return (f"Top-k, run `{STAGE07_LLM_RUN}`: LLM sampling shapes (issue 18), {key_type} logits "
            f"uniform in [0, 1), batch {_values(s.rows for s in own)} × vocabulary "
            f"{_values(s.cols for s in own)}, k = {_values(s.k for s in own)}, sorted output "
            "(torch.topk's default), the rule's schedule")


def _issue_set_output(data: StageData, shapes: Sequence[TopkShape]) -> str:
    """The output a rows or long table shows: sorted, and the ks with unsorted rows only."""
    assert data.results is not None
    index = _topk_index(data.results)
    unsorted_only = [shape.k for shape in shapes if (STAGE07_SORTED, shape, "") not in index]
    return "sorted output (torch.topk's default)" + (
        f", unsorted only at k = {_values(unsorted_only)}" if unsorted_only else "")


def stage07_rows_heading(data: StageData, key_type: str) -> str:
    """The heading of the rows run's table: n, the row lengths and the ks, from the rows of the
    table (the run's own and those another run measured)."""
    shapes = [shape for shape, _ in _stage07_rule_shapes(data, STAGE07_ROWS_RUN, key_type)]
    n = max(shape.rows * shape.cols for shape in shapes)  # 2^26 at the lengths dividing it
    return (f"Top-k, run `{STAGE07_ROWS_RUN}`: {fmt_dim(n)} {key_type} values uniform in [0, 1) "
            f"as rows of {', '.join(fmt_dim(c) for c in sorted({s.cols for s in shapes}))} "
            f"(issue 18; n // row length whole rows), k = {_values(s.k for s in shapes)}, "
            f"{_issue_set_output(data, shapes)}, the rule's schedule")


def stage07_long_heading(data: StageData, key_type: str) -> str:
    """The heading of the long run's table: its row(s) and ks, from the rows of the table."""
    shapes = [shape for shape, _ in _stage07_rule_shapes(data, STAGE07_LONG_RUN, key_type)]
    inputs = sorted({(shape.rows, shape.cols) for shape in shapes})
    what = (f"one row of {fmt_dim(inputs[0][1])}" if inputs == [(1, inputs[0][1])] else
            ", ".join(f"{fmt_dim(rows)} × {fmt_dim(cols)}" for rows, cols in inputs))
    return (f"Top-k, run `{STAGE07_LONG_RUN}`: {what} {key_type} values uniform in [0, 1) "
            f"(issue 18), k = {_values(s.k for s in shapes)}, {_issue_set_output(data, shapes)}, "
            "the rule's schedule")


@dataclass(frozen=True)
class Stage07Row:
    """What the note under a set's table needs of one of its rows."""

    shape: TopkShape
    ms: float  # stage 07's time: sorted output, or unsorted where it stands in
    unsorted: bool  # ms (and ratio) are of unsorted output: the run has no sorted row
    fraction: Optional[float]  # floor / ms
    ratio: Optional[float]  # torch.topk / ms, None where torch did not measure the shape

    def where(self) -> str:
        """ "1 × 2^28, k = 65536, unsorted"."""
        return f"{self.shape.shape}, k = {self.shape.k}" + (", unsorted" if self.unsorted else "")


@dataclass(frozen=True)
class Stage07Target:
    """One of issue 18's targets for a set: "ms" (at most bound), "ratio" (torch.topk / ours, at
    least bound) or "fraction" (of the floor, at least bound), the issue's words for it (text)
    and the words for a row that meets it (met_text)."""

    measure: str
    bound: float
    text: str
    met_text: str

    def value(self, row: Stage07Row) -> Optional[float]:
        """The row's measured value of this target (None: not measured, e.g. no torch)."""
        return {"ms": row.ms, "ratio": row.ratio, "fraction": row.fraction}[self.measure]

    def met(self, value: float) -> bool:
        """Whether a measured value meets the target."""
        return value <= self.bound if self.measure == "ms" else value >= self.bound

    def measured(self, rows: Sequence[Stage07Row]) -> Optional[str]:
        """ "lowest *torch / ours* 2.50× (64 × 2^20, k = 8), 3 of the 4 shapes at ≥ 3×", from
        the rows (None when no row has the value)."""
        values = [(value, row) for row in rows for value in [self.value(row)]
                  if value is not None]
        if not values:
            return None
        pick = max if self.measure == "ms" else min
        worst, row = pick(values, key=lambda item: item[0])
        shown = {"ms": lambda v: f"slowest {fmt_ms(v)} ms",
                 "ratio": lambda v: f"lowest *torch / ours* {fmt_ratio(v)}",
                 "fraction": lambda v: f"lowest fraction of the floor {fmt_percent(v)}"}
        met = sum(1 for value, _ in values if self.met(value))
        return (f"{shown[self.measure](worst)} ({row.where()}), {met} of the {len(values)} "
                f"{'shapes' if len(values) != 1 else 'shape'} {self.met_text}")


def stage07_llm_tail(rows: Sequence[Stage07Row]) -> List[str]:
    """The end of the llm note: the lowest torch / ours and issue 18's targets for these shapes."""
    parts = []
    ratios = [(row.ratio, row.shape) for row in rows if row.ratio is not None]
    if ratios:
        lowest, shape = min(ratios, key=lambda item: item[0])
        ahead = sum(1 for ratio, _ in ratios if ratio >= 3)
        parts.append(f"Lowest *torch / ours*: {fmt_ratio(lowest)} ({shape.shape}, k = "
                     f"{shape.k}); {ahead} of the {len(ratios)} shapes with a torch.topk time "
                     "are at least 3× faster than torch.topk.")
    parts.append("Issue 18's targets: ≥ 10× torch.topk at batch 1 with k = 2048, ≥ 7× at "
                 "128 × 128256, ≥ 3× at every shape.")
    return parts


def _targets_tail(scope: str, targets: Sequence[Stage07Target]
                  ) -> Callable[[Sequence[Stage07Row]], List[str]]:
    """The end of a rows or long note: issue 18's targets (scope: where they hold) and, for
    each, the worst measured value and how many rows meet it — all from the rows."""
    def tail(rows: Sequence[Stage07Row]) -> List[str]:
        parts = [f"Issue 18's targets {scope}: {', '.join(t.text for t in targets)}."]
        measured = [text for text in (t.measured(rows) for t in targets) if text]
        if measured:
            parts.append("Measured: " + "; ".join(measured) + ".")
        return parts
    return tail


@dataclass(frozen=True)
class Stage07Set:
    """A bench_stage07 set that `make table` runs as a run of its own, labelled label. Its table
    also holds the set's shapes an earlier run measured (belongs), is ordered by row length,
    rows, k (order says so), takes a floor from another run's copy where the run left its copy
    out, and ends with a note whose last sentences tail writes (issue 18's targets)."""

    label: str
    heading: Callable[[StageData, str], str]
    belongs: Callable[[Sequence[TopkShape]], ShapeFilter]
    order: str
    tail: Callable[[Sequence[Stage07Row]], List[str]]
    # Compare torch.topk (sorted) with our unsorted time where the run has no sorted row (the
    # long set's ks above kMaxSortedK); marked, and said in the note.
    unsorted_stands_in: bool = False


STAGE07_SETS: Dict[str, Stage07Set] = {
    STAGE07_LLM_RUN: Stage07Set(
        STAGE07_LLM_RUN, stage07_llm_heading, _llm_grid,
        "Ordered by vocabulary, then batch, then k.", stage07_llm_tail),
    STAGE07_ROWS_RUN: Stage07Set(
        STAGE07_ROWS_RUN, stage07_rows_heading, _same_input,
        "Ordered by row length, then k.",
        _targets_tail("at every shape",
                      (Stage07Target("ratio", 3.0, "≥ 3× torch.topk", "at ≥ 3×"),
                       Stage07Target("fraction", 0.4, "≥ 40% of the floor", "at ≥ 40%"))),
        unsorted_stands_in=True),
    STAGE07_LONG_RUN: Stage07Set(
        STAGE07_LONG_RUN, stage07_long_heading, _same_input, "Ordered by k.",
        _targets_tail("for every k",
                      (Stage07Target("ms", 0.7, "at most 0.7 ms", "within 0.7 ms"),
                       Stage07Target("ratio", 7.0, "≥ 7× torch.topk", "at ≥ 7×"),
                       Stage07Target("fraction", 0.5, "≥ 50% of the floor", "at ≥ 50%"))),
        unsorted_stands_in=True),
}


def _stage07_rule_shapes(data: StageData, label: str,
                         key_type: str) -> List[Tuple[TopkShape, str]]:
    """(shape, run label) of the rule's rows (no forced schedule) of one run and type, in the
    JSON's order; the table of a set's run (STAGE07_SETS) adds the set's shapes other runs
    measured and is ordered by row length (vocabulary), then rows (batch), then k."""
    assert data.results is not None
    shapes: List[TopkShape] = []
    for result in data.results.results:
        parsed = topk_shape(result) if result.entry in (STAGE07_SORTED, STAGE07_UNSORTED) \
            else None
        if parsed and parsed[1] == "" and parsed[0].key_type == key_type and \
                data.run_label(result) == label and parsed[0] not in shapes:
            shapes.append(parsed[0])
    keyed = [(shape, label) for shape in shapes]
    spec = STAGE07_SETS.get(label)
    if spec is not None and shapes:
        keyed += _other_run_shapes(data, key_type, shapes, spec.belongs(shapes))
        keyed.sort(key=lambda item: (item[0].cols, item[0].rows, item[0].k))
    return keyed


STAGE07_HEADERS = ("rows × cols", "k", "blocks per row", "sorted ms", "p10–p90 ms",
                   "unsorted ms", "floor ms", "fraction of the floor", "torch.topk ms",
                   "torch / ours")


def stage07_table(data: StageData, torch: Optional[ResultSet], label: str,
                  key_type: str) -> Optional[str]:
    """The rule's rows (no forced schedule) of one run and type: sorted and unsorted time, the
    floor and torch.topk where torch measured the same shape (blank cells otherwise). The table
    of a set's run (STAGE07_SETS: llm, rows, long) also holds the set's shapes another run
    measured (marked with that run), is ordered by shape, takes a row's floor from another run's
    copy of the same input where its own run skipped that copy (marked †), compares torch.topk
    with the unsorted time where the set lets it and the run has no sorted row (marked), and
    ends with a note: the marks, the lowest values and issue 18's targets."""
    assert data.results is not None
    index = _topk_index(data.results)
    shapes = _stage07_rule_shapes(data, label, key_type)
    if not shapes:
        return None
    spec = STAGE07_SETS.get(label)
    rows = []
    facts: List[Stage07Row] = []
    other_runs: List[str] = []
    other_copies = False
    for shape, run in shapes:
        ours = index.get((STAGE07_SORTED, shape, ""))
        unsorted = index.get((STAGE07_UNSORTED, shape, ""))
        either = ours or unsorted
        assert either is not None
        blocks = either.counters.get("blocks_per_row")
        floor = either.counters.get("floor_ms")
        fraction_value = either.counters.get("floor_fraction")
        fraction = fmt_counter_percent(ours, "floor_fraction") if ours else (
            fmt_counter_percent(unsorted, "floor_fraction") + UNSORTED_MARK)
        floor_cell = fmt_ms(floor) if floor is not None else DASH
        if spec is not None and floor is None:
            copy = topk_copy(data, shape)
            floor = topk_floor_from_copy(shape, copy) if copy is not None else None
            if floor is not None:
                other_copies = True
                floor_cell = fmt_ms(floor) + " " + OTHER_COPY_MARK
                fraction_value = floor / either.median_ms
                fraction = fmt_percent(fraction_value) + ("" if ours else UNSORTED_MARK)
        theirs = torch_topk(torch, shape)
        stands_in = ours is None and spec is not None and spec.unsorted_stands_in
        compared = ours or (unsorted if stands_in else None)
        ratio = speed_ratio(theirs, compared) if theirs and compared else None
        facts.append(Stage07Row(shape, either.median_ms, ours is None, fraction_value, ratio))
        shape_cell = shape.shape
        if run != label:
            shape_cell += f" ({OTHER_RUN_MARK.format(run)})"
            if run not in other_runs:
                other_runs.append(run)
        marks = [mark for mark, counter in (("cluster", "cluster_per_row"),
                                            ("sampled", "cluster_sampled"),
                                            ("reduction", "argmax_reduction"),
                                            ("queues", "queue_reduction"),
                                            ("sampled, then one block",
                                             "sampled_one_block"))
                 if either.counters.get(counter, 0.0) >= 0.5]
        blocks_cell = (f"{blocks:.0f}" + (f" ({', '.join(marks)})" if marks else "")
                       if blocks is not None else DASH)
        rows.append([shape_cell, str(shape.k), blocks_cell,
                     fmt_ms(ours.median_ms) if ours else DASH,
                     fmt_spread(ours) if ours else DASH,
                     fmt_ms(unsorted.median_ms) if unsorted else DASH,
                     floor_cell, fraction,
                     fmt_ms(theirs.median_ms) if theirs else "",
                     (fmt_ratio(ratio) + (UNSORTED_MARK if ours is None else ""))
                     if ratio is not None else ""])
    table = markdown_table(STAGE07_HEADERS, rows, (False,) + (True,) * 9)
    if spec is not None:
        sorted_only = not any(
            index.get((STAGE07_UNSORTED, shape, "")) for shape, run in shapes if run == label)
        table += "\n" + stage07_set_note(spec, facts, other_runs, other_copies, sorted_only)
    return table


def stage07_set_note(spec: Stage07Set, rows: Sequence[Stage07Row], other_runs: Sequence[str],
                     other_copies: bool, sorted_only: bool) -> str:
    """The line under a set's table: its order, its marks, then the set's own end (spec.tail:
    the lowest values and issue 18's targets)."""
    parts = [spec.order]
    if sorted_only:
        parts.append("This run measures sorted output only (*unsorted ms* is — but where another "
                     "run measured the shape).")
    if other_runs:
        runs = ", ".join(f"`{run}`" for run in other_runs)
        parts.append(f"A shape marked with a run ({runs}) was measured there and is left out of "
                     "this run, so that no name is measured twice.")
    if other_copies:
        parts.append(f"{OTHER_COPY_MARK} The floor from the copy of the same input measured in "
                     "another run of the same `make table` (this run left that copy out with the "
                     "shape it shares with that run).")
    if spec.unsorted_stands_in and any(row.unsorted for row in rows):
        parts.append("Where the table has no sorted row of a shape (bench_stage07 measures sorted "
                     "output up to `kMaxSortedK` only), *torch / ours* and the targets take its "
                     "unsorted time (marked *unsorted*; torch.topk's output is sorted).")
    parts += spec.tail(rows)
    return " ".join(parts) + "\n"


STAGE07_SCHEDULE_HEADERS = ("rows × cols", "k", "output", "one block per row ms",
                            "several blocks per row ms", "blocks per row (several)",
                            "one cluster per row ms", "fastest", "the rule picks", "its pick is")


def stage07_schedule_table(data: StageData) -> Optional[str]:
    """The forced schedules on the same shapes (rows named /schedule:one, /schedule:multi and
    /schedule:cluster; a run without the cluster rows shows a dash there), and which one the
    automatic rule picked: the row without a schedule, by its cluster_per_row, several_blocks and
    blocks_per_row counters."""
    assert data.results is not None
    index = _topk_index(data.results)
    keys: List[Tuple[str, TopkShape]] = []
    for (entry, shape, schedule) in index:
        if schedule in SCHEDULE_NAMES and (entry, shape) not in keys:
            keys.append((entry, shape))
    if not keys:
        return None
    names = {"one": "one", "multi": "several", "cluster": "cluster"}
    rows = []
    for entry, shape in keys:
        forced = {name: index.get((entry, shape, name)) for name in names}
        rule = index.get((entry, shape, ""))
        timed = [(name, result) for name, result in forced.items() if result is not None]
        fastest = DASH
        if len(timed) >= 2:
            ordered = sorted(timed, key=lambda item: item[1].median_ms)
            fastest = f"{names[ordered[0][0]]}, {fmt_ratio(speed_ratio(ordered[1][1], ordered[0][1]))}"
        picks, verdict = DASH, DASH
        if rule is not None and "several_blocks" in rule.counters:
            cluster = rule.counters.get("cluster_per_row", 0.0) >= 0.5
            several = rule.counters["several_blocks"] >= 0.5
            blocks = rule.counters.get("blocks_per_row")
            picked_name = "cluster" if cluster else "multi" if several else "one"
            if (cluster or several) and blocks is not None:
                picks = f"{names[picked_name]} ({blocks:.0f} per row)"
            else:
                picks = names[picked_name]
            picked = forced.get(picked_name)
            others = [result for name, result in timed if name != picked_name]
            if picked and others:
                best_other = min(others, key=lambda result: result.median_ms)
                verdict = ("the fastest" if picked.median_ms <= best_other.median_ms else
                           f"slower ({fmt_ratio(speed_ratio(picked, best_other))})")
        multi = forced["multi"]
        blocks_multi = multi.counters.get("blocks_per_row") if multi else None
        rows.append([shape.shape + (f" {shape.key_type}" if shape.key_type != "f32" else ""),
                     str(shape.k), "sorted" if entry == STAGE07_SORTED else "unsorted",
                     fmt_ms(forced["one"].median_ms) if forced["one"] else DASH,
                     fmt_ms(multi.median_ms) if multi else DASH,
                     f"{blocks_multi:.0f}" if blocks_multi is not None else DASH,
                     fmt_ms(forced["cluster"].median_ms) if forced["cluster"] else DASH,
                     fastest, picks, verdict])
    return markdown_table(STAGE07_SCHEDULE_HEADERS, rows,
                          (False, True, False, True, True, True, True, False, False, False))


# The plot of time against batch, shown after the llm run's tables when it was drawn.
STAGE07_PLOT_HEADING = "Time against batch: LLM sampling shapes (issue 18)"
STAGE07_PLOT_ALT = ("stage 07 top-k (solid) and torch.topk (dashed): ms against batch, a panel "
                    "per type and vocabulary, a line per k")


def stage07_sections(data: StageData, torch: Optional[ResultSet],
                     plot_link: Optional[str] = None) -> List[Tuple[str, str]]:
    """(heading, table) pairs: the rule's rows per run and type (the llm run's tables followed
    by the plot at plot_link, when given), then the schedules."""
    assert data.results is not None
    groups: List[Tuple[str, str]] = []
    for result in data.results.results:
        parsed = topk_shape(result) if result.entry in (STAGE07_SORTED, STAGE07_UNSORTED) \
            else None
        if parsed and parsed[1] == "":
            group = (data.run_label(result), result.key_type)
            if group not in groups:
                groups.append(group)
    sections = []
    plot_at = None  # where the plot goes: after the last llm table
    for label, key_type in groups:
        table = stage07_table(data, torch, label, key_type)
        spec = STAGE07_SETS.get(label)
        if table and spec is not None:
            sections.append((spec.heading(data, key_type), table))
            if label == STAGE07_LLM_RUN:
                plot_at = len(sections)
        elif table:
            run = f"run `{label}`, " if label else ""
            sections.append((f"Top-k, {run}{key_type} values uniform in [0, 1), largest k of "
                             "every row (the rule's schedule)", table))
    if plot_link and plot_at is not None:
        sections.insert(plot_at, (STAGE07_PLOT_HEADING, f"![{STAGE07_PLOT_ALT}]({plot_link})\n"))
    table = stage07_schedule_table(data)
    if table:
        sections.append(("Schedules: each forced on the same shapes, and the rule's pick", table))
    return sections


STAGE07_LEGEND = (
    "Columns: *blocks per row* is the schedule the rule chose (1 = one block per row; "
    "*(cluster)*: one thread-block cluster of that many blocks per row, *(cluster, sampled)*: "
    "whose blocks keep the values at or above a sample's bound and one block selects from them; "
    "*(reduction)*: k = 1 "
    "as one read and a reduction, not a radix select; *(queues)*: 2 ≤ k ≤ 32 as per-thread "
    "queues of the best values and bitonic merges, not a radix select; *(sampled, then one "
    "block)*: that many blocks per row only for the sample pass, then one block per row selects "
    "from the sampled list); *sorted "
    "ms* is the median of the samples of `stage07-topk` (sorted output, torch.topk's default) "
    "and *p10–p90 ms* their spread; *unsorted ms* `stage07-topk-unsorted`'s median; *floor ms* "
    "the time of reading the input once and writing k values and int64 indices per row at the "
    "bandwidth of a device-to-device copy of the input measured in the same run; *fraction of "
    "the floor* = floor ms / sorted ms (100% is the floor); *torch.topk ms* the same shape in "
    "torch_baseline.py's JSON and *torch / ours* its time / sorted ms (above 1× = stage 07 is "
    "faster), both blank where torch did not measure the shape. In the schedules table, "
    "*fastest* says which forced schedule won and by how much over the next, *the rule picks* "
    "is what the row without a forced schedule ran, and *its pick is* compares that schedule's "
    "forced time with the fastest other one's. The forced cluster schedule uses at most 8 "
    "blocks per cluster unless the row needs more, where the rule may spread a single row over "
    "16 (so the rule's own time can be lower than the forced one).\n")

STAGE06_HEADERS = ("segment size", "segments", "stage 06 ms", "p10–p90 ms",
                   "CUB DeviceSegmentedSort ms", "CUB DeviceSegmentedRadixSort ms",
                   "torch.sort ms", "best peer", "best peer / stage 06", "copies' worth")


def stage06_variants(results: ResultSet, n: int, kind: str, key_type: str) -> List[str]:
    """The segment variants stage 06 or a CUB peer measured on one n, kind and key type: equal
    sizes ("seg:S") ascending, then the power-law mix (STAGE06_POWERLAW); others are left out."""
    entries = ("stage06",) + tuple(entry for entry, _ in STAGE06_PEERS)
    found = {r.variant for r in results.results
             if r.entry in entries and (r.n, r.kind, r.key_type) == (n, kind, key_type)}
    equal = [v for v in found if v.startswith("seg:") and v[4:].isdigit()]
    return sorted(equal, key=lambda v: int(v[4:])) + (
        [STAGE06_POWERLAW] if STAGE06_POWERLAW in found else [])


def stage06_segment_cells(variant: str, n: int, rows: Sequence[Optional[Result]]) -> List[str]:
    """The "segment size" and "segments" cells of one variant, from the segments,
    smallest_segment and largest_segment counters of its rows (the first row that has them);
    without counters equal segments fall back to n / size."""
    counters: Mapping[str, float] = next(
        (r.counters for r in rows if r is not None and "segments" in r.counters), {})
    count = counters.get("segments")
    smallest, largest = counters.get("smallest_segment"), counters.get("largest_segment")
    if variant == STAGE06_POWERLAW:
        size = ("power law" if largest is None else
                f"power law (up to {largest:,.0f})" if smallest is None else
                f"power law ({smallest:,.0f} – {largest:,.0f})")
        return [size, f"{count:,.0f}" if count is not None else DASH]
    segment = int(variant[4:])
    return [f"{segment:,}", f"{count:,.0f}" if count is not None else f"{-(-n // segment):,}"]


def stage06_table(data: StageData, n: int, kind: str, key_type: str,
                  torch: Optional[ResultSet] = None) -> Optional[Tuple[str, bool]]:
    """Stage 06, CUB's two segmented sorts and torch.sort(dim=-1) (from torch's JSON, — where it
    has no row) on every measured segment variant (one n, kind and key type), and whether a cell
    was timed with events (the ‡ footnote)."""
    assert data.results is not None
    results = data.results
    variants = stage06_variants(results, n, kind, key_type)
    if not variants:
        return None
    copy = results.find("copy", n, "u32", kind)
    rows = []
    footnote = False

    def cell(result: Optional[Result], entry: str, variant: str,
             source: Optional[ResultSet]) -> str:
        nonlocal footnote
        if result is None:
            failure = source.failure(entry, n, key_type, kind, variant) if source else None
            return "failed" if failure else DASH
        if result.timed_with_events:
            footnote = True
            return f"{fmt_ms(result.median_ms)} ‡"
        return fmt_ms(result.median_ms)

    for variant in variants:
        ours = results.find("stage06", n, key_type, kind, variant)
        peers = [(name, results.find(entry, n, key_type, kind, variant))
                 for entry, name in STAGE06_PEERS]
        theirs = torch.find(TORCH_SEGSORT, n, key_type, kind, variant) if torch else None
        measured = [(name, r) for name, r in peers + [(TORCH_SEGSORT_NAME, theirs)]
                    if r is not None]
        best = min(measured, key=lambda p: p[1].median_ms) if measured else None
        rows.append(stage06_segment_cells(variant, n, [ours] + [r for _, r in peers])
                    + [cell(ours, "stage06", variant, results),
                       fmt_spread(ours) if ours else DASH]
                    + [cell(r, entry, variant, results)
                       for (entry, _), (_, r) in zip(STAGE06_PEERS, peers)]
                    + [cell(theirs, TORCH_SEGSORT, variant, torch),
                       best[0] if best else DASH,
                       fmt_ratio(speed_ratio(best[1], ours)) if best else DASH,
                       fmt_worth(copies_worth(ours, copy)) if ours else DASH])
    table = markdown_table(STAGE06_HEADERS, rows,
                           (True, True, True, True, True, True, True, False, True, True))
    return table, footnote


def stage06_sections(data: StageData,
                     torch: Optional[ResultSet] = None) -> List[Tuple[str, str]]:
    """(heading, table) pairs: one table per n, kind and key type; torch is the ResultSet that
    holds torch_baseline.py's rows (None: none measured)."""
    assert data.results is not None
    entries = ("stage06",) + tuple(entry for entry, _ in STAGE06_PEERS)
    groups = sorted({(r.n, r.kind, r.key_type) for r in data.results.results
                     if r.entry in entries}, key=lambda g: (g[1] != "pairs", g[0], g[2]))
    sections = []
    for n, kind, key_type in groups:
        made = stage06_table(data, n, kind, key_type, torch)
        if not made:
            continue
        table, footnote = made
        if footnote:
            table += ("\n‡ The call waits for the host (CUB's DeviceSegmentedSort copies its "
                      "partition to it), so it is timed with CUDA events on an idle GPU, host "
                      "launch gaps included.\n")
        what = f"{key_type} keys with u32 values" if kind == "pairs" else f"{key_type} keys"
        variants = stage06_variants(data.results, n, kind, key_type)
        cut = ("a power-law mix of segments" if variants == [STAGE06_POWERLAW] else
               "equal segments and a power-law mix of segments"
               if STAGE06_POWERLAW in variants else "equal segments")
        sections.append((f"n = {fmt_n(n)} {what}, uniform, cut into {cut}", table))
        if kind == "pairs":
            rows_table = stage06_rows_table(data.results, n, key_type, torch)
            if rows_table:
                sections.append(rows_table)
    sweep = stage06_bin_sweep(data.results)
    if sweep:
        sections.append(sweep)
    return sections


STAGE06_ROWS = "stage06-rows"


def stage06_rows_table(results: ResultSet, n: int, key_type: str,
                       torch: Optional[ResultSet]) -> Optional[Tuple[str, str]]:
    """(heading, table) of sort_rows (entry stage06-rows: torch.sort's semantics, values and
    int64 indices) against torch.sort(dim=-1) on the same rows, beside stage 06's pair sort of
    the same segments; None when the JSON has no sort_rows row at n."""
    variants = sorted({r.variant for r in results.results
                       if r.entry == STAGE06_ROWS and r.n == n and r.key_type == key_type
                       and r.variant.startswith("seg:") and r.variant[4:].isdigit()},
                      key=lambda v: int(v[4:]))
    if not variants:
        return None
    headers = ("row length", "rows", "sort_rows ms", "p10–p90 ms", "torch.sort ms",
               "torch.sort / sort_rows", "stage 06 pairs ms", "sort_rows / pairs")
    rows = []
    for variant in variants:
        ours = results.find(STAGE06_ROWS, n, key_type, "pairs", variant)
        pairs = results.find("stage06", n, key_type, "pairs", variant)
        theirs = torch.find(TORCH_SEGSORT, n, key_type, "pairs", variant) if torch else None
        cols = int(variant[4:])
        rows.append([f"{cols:,}", f"{n // cols:,}",
                     fmt_ms(ours.median_ms) if ours else DASH,
                     fmt_spread(ours) if ours else DASH,
                     fmt_ms(theirs.median_ms) if theirs else DASH,
                     fmt_ratio(speed_ratio(theirs, ours)) if ours and theirs else DASH,
                     fmt_ms(pairs.median_ms) if pairs else DASH,
                     fmt_ratio(ours.median_ms / pairs.median_ms) if ours and pairs else DASH])
    table = markdown_table(headers, rows, (True,) * len(headers))
    table += (
        "\n`sort_rows` is `torch.sort(x, dim=-1, stable=True)`'s contract (sorted values and the "
        "int64 column of each, NaN as the largest value): a copy of the keys with every NaN made "
        "the positive quiet NaN (floating keys), one segmented pair sort with u32 columns, then the "
        "columns widened to int64 and the values gathered by them; "
        "on n // S rows of S f32 values, the very rows torch_baseline.py gives torch.sort. "
        "*torch.sort / sort_rows* above 1× = sort_rows is faster; *sort_rows / pairs* is its time "
        "over stage 06's sort of (f32, u32) pairs in the same segments (the issue's table above).\n")
    return (f"sort_rows against torch.sort: n = {fmt_n(n)} {key_type} values in rows", table)


STAGE06_BIN_SWEEP = "stage06-bins"


def stage06_bin_sweep(results: ResultSet) -> Optional[Tuple[str, str]]:
    """(heading, table) of bench_stage06's bin sweep (entry stage06-bins, variants
    "seg:S/bin:B"): per segment size, its own bin's time and the bigger bins' (each pads the
    segment to its width), the fastest, and the own bin's time over the fastest; None when the
    JSON has no sweep. One table, of the largest n the sweep measured (pairs)."""
    rows_by_n: Dict[int, Dict[int, Dict[int, Result]]] = {}
    for r in results.results:
        if r.entry != STAGE06_BIN_SWEEP:
            continue
        shape = parse_variant(r.variant)
        if "seg" not in shape or "bin" not in shape:
            continue
        rows_by_n.setdefault(r.n, {}).setdefault(int(shape["seg"]), {})[int(shape["bin"])] = r
    if not rows_by_n:
        return None
    n = max(rows_by_n)
    headers = ("segment size", "its bin", "its bin ms", "next bin ms", "the bin after ms",
               "fastest bin", "its bin / fastest")
    rows = []
    for size in sorted(rows_by_n[n]):
        by_bin = rows_by_n[n][size]
        own = max(size - 1, 1).bit_length()  # the segment's own bin: ceil(log2(size))
        cells = [f"{size:,}", str(own)]
        for bin_ in (own, own + 1, own + 2):
            r = by_bin.get(bin_)
            cells.append(f"{fmt_ms(r.median_ms)} (bin {bin_})" if r and bin_ != own
                         else fmt_ms(r.median_ms) if r else DASH)
        fastest = min(by_bin, key=lambda b: by_bin[b].median_ms)
        cells.append(str(fastest))
        cells.append(fmt_ratio(by_bin[own].median_ms / by_bin[fastest].median_ms)
                     if own in by_bin else DASH)
        rows.append(cells)
    table = markdown_table(headers, rows, (True, True, True, True, True, True, True))
    table += (
        "\nThe bin sweep (`bench_stage06 --set=bins`, pairs of f32 keys and u32 values): equal "
        "segments at both edges of every bin (2^(b−1) + 1 and 2^b keys), each sorted by its own bin "
        "(*its bin ms*) and, through `sort_pairs_with_min_bin`, by the next two bins' kernels, which "
        "pad the segment to their width; *its bin / fastest* above 1× would say that a bigger bin "
        "sorts the segment faster, and the edge should move.\n")
    return (f"Bin sweep: n = {fmt_n(n)} f32 keys with u32 values in equal segments, each size "
            "sorted by its own bin and by the two above it", table)


STAGE06_LEGEND = (
    "Columns: *segment size* is the keys of every segment, or, for *power law (smallest – "
    "largest)*, the power-law mix of `bench_stage06` (variant `seg:powerlaw`): segment sizes "
    "min(⌊8 u^(−1/α)⌋, 2^22) with α = 1 and u uniform in (0, 1], drawn from a fixed seed until "
    "they sum to n (the last one cut to fit), contiguous in draw order, so many short segments "
    "and a few huge ones; *segments* = n / segment size (the last one shorter when it does not "
    "divide n), or the count the benchmark reports; *stage 06 ms* is the median of the samples "
    "and *p10–p90 ms* their spread; the CUB columns are the medians of `cub-segmented-sort` "
    "(StableSortPairs / StableSortKeys) and `cub-segmented-radix` on the same segments (— where "
    "not measured); *torch.sort ms* is torch_baseline.py's `torch.sort(dim=-1, stable=True)` of "
    "n // S rows of S float32 values, returning int64 indices (the pairs' values), so for S = "
    "1000 it sorts 67,108,000 items, not n (— where torch did not measure it, and always for the "
    "power-law mix, which rows of one length cannot hold); *best peer* is the fastest of the CUB "
    "and torch columns and *best peer / stage 06* its time / stage 06's (above 1× = stage 06 is "
    "faster); *copies' worth* = stage 06's time / a device-to-device copy of the same keys and "
    "values measured in the same run (1 is the floor).\n")


def stage_sections(data: StageData, torch: Optional[ResultSet],
                   plot_link: Optional[str] = None) -> List[Tuple[str, str]]:
    """The tables of a measured stage (stage 07's with its plot at plot_link, when given)."""
    if data.stage == "stage07":
        return stage07_sections(data, torch, plot_link)
    if data.stage == "stage06":
        return stage06_sections(data, torch)
    return []


def stage_legend(stage: str) -> str:
    """How to read a stage's tables."""
    return STAGE07_LEGEND if stage == "stage07" else STAGE06_LEGEND


def not_measured_block(data: StageData, json_link: str) -> str:
    """A README block of a stage whose JSON is missing."""
    what, program = STAGE_BENCHMARKS[data.stage]
    folder = os.path.dirname(json_link) or "."
    return (f"*Not measured yet: there is no `{os.path.basename(data.json_path)}` (the {what}'s "
            f"benchmark JSON) in [the results folder]({folder}/). `make table` runs `{program}` "
            "on a GPU and fills this block — do not edit by hand.*\n")


def stage_readme_block(data: StageData, torch: Optional[ResultSet], here: str) -> str:
    """The <!-- results:stageNN --> block of stage 06's or 07's README (here: its folder)."""
    json_link = link(data.json_path, here)
    if data.results is None:
        return not_measured_block(data, json_link)
    parts = [stage_provenance(data, json_link)]
    plot_link = link(data.llm_plot, here) if data.llm_plot else None
    for heading, table in stage_sections(data, torch, plot_link):
        parts.append(f"**{heading}**\n\n{table}")
    if len(parts) == 1:
        parts.append("No stage rows in the JSON.\n")
    parts.append(stage_legend(data.stage))
    page = link(data.page_path, here)
    parts.append(f"Method, runs and provenance: [{os.path.basename(page)}]({page}).\n")
    return "\n".join(parts)


def run_lines(data: StageData) -> List[str]:
    """One bullet per merged run: its label, file, rows, date and sampling settings."""
    lines = []
    for run in data.runs:
        context = run.get("context", {}) or {}
        rows = sum(1 for name in run.get("names", ()) if name)
        facts = [f"{rows} row{'s' if rows != 1 else ''}", f"measured {str(context.get('date', '?'))[:19]}"]
        if context.get("sortlab_max_time_s"):
            facts.append(f"at most {float(context['sortlab_max_time_s']):g} s of sampling per row")
        if context.get("sortlab_min_samples"):
            facts.append(f"at least {context['sortlab_min_samples']} samples")
        for key, value in sorted(context.items()):
            if key.startswith("sortlab_note"):
                facts.append(str(value))
        lines.append(f"- Run `{run.get('label', '?')}` (`{run.get('file', '?')}`): "
                     + ", ".join(facts) + ".")
    return lines


def stage_page(data: StageData, torch: Optional[ResultSet]) -> str:
    """The whole docs/results/<gpu>-stageNN.md page of a measured stage."""
    assert data.results is not None
    what, program = STAGE_BENCHMARKS[data.stage]
    json_name = os.path.basename(data.json_path)
    out = [f"# sortlab {data.stage} ({what}) results: {data.gpu_name}\n",
           stage_provenance(data, json_name),
           f"Raw JSON: [{json_name}]({json_name}) (`{program}`"
           + (", runs merged by `bench/table/merge_bench_json.py`" if data.runs else "")
           + "). How the numbers are made: [README.md](README.md).\n",
           "## Method and provenance\n",
           "\n".join(method_lines(data.results) + run_lines(data)) + "\n"]
    plot_link = os.path.basename(data.llm_plot) if data.llm_plot else None
    for heading, table in stage_sections(data, torch, plot_link):
        out.append(f"## {heading}\n\n{table}")
    out.append(stage_legend(data.stage))
    if data.results.failures:
        out.append("## Failed\n")
        out.append("\n".join(f"- `{f.name}`: {escape_cell(f.message)}"
                              for f in data.results.failures) + "\n")
    return "\n".join(out)


def stage_page_links(stage_data: Mapping[str, StageData]) -> List[str]:
    """The main page's lines pointing at the stage pages (none when no stage was measured)."""
    if not any(data.results is not None for data in stage_data.values()):
        return []
    lines = []
    for stage, data in stage_data.items():
        what, program = STAGE_BENCHMARKS[stage]
        name = os.path.basename(data.page_path)
        lines.append(f"- {stage} ({what}, `{program}`): " +
                     (f"[{name}]({name})" if data.results is not None else "not measured yet"))
    return lines


def marker(name: str, end: bool) -> str:
    """The README marker line of a block: <!-- name:begin --> or <!-- name:end -->."""
    return f"<!-- {name}:{'end' if end else 'begin'} -->"


def replace_block(text: str, name: str, content: str) -> Optional[str]:
    """text with everything between the block's begin and end markers replaced by
    content (the markers stay). None when the markers are missing or out of order."""
    begin, end = marker(name, False), marker(name, True)
    start = text.find(begin)
    stop = text.find(end, start + len(begin)) if start >= 0 else -1
    if start < 0 or stop < 0:
        return None
    body = content if content.endswith("\n") else content + "\n"
    return text[:start + len(begin)] + "\n" + body + text[stop:]


def rewrite_blocks(text: str, path: str,
                   blocks: Mapping[str, Optional[str]]) -> Tuple[str, List[str]]:
    """text with the named blocks rewritten, and one message per block (path names the file in
    them). A block without data or without markers is left as it is, and the message says so."""
    messages = []
    for name, content in blocks.items():
        if content is None:
            messages.append(f"{path}: block {name}: no results for it, left alone")
            continue
        replaced = replace_block(text, name, content)
        if replaced is None:
            messages.append(f"{path}: no {marker(name, False)} / {marker(name, True)} markers, "
                            "left alone")
            continue
        text = replaced
        messages.append(f"{path}: block {name} rewritten")
    return text, messages


def update_file_blocks(path: str, blocks: Mapping[str, Optional[str]]) -> List[str]:
    """Rewrites the named blocks of one file in place; returns one message per block.

    A missing file, missing markers or a block without data leave the file (or that block)
    untouched, and the message says so.
    """
    if not os.path.exists(path):
        return [f"{path}: not found, left alone"]
    with open(path, encoding="utf-8") as handle:
        original = handle.read()
    text, messages = rewrite_blocks(original, path, blocks)
    if text != original:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    return messages


def stage_readmes(repo_root: str) -> Dict[str, str]:
    """{"stage03": "<root>/chapters/03_multibit_radix/README.md", ...} for existing READMEs."""
    found = {}
    for path in sorted(glob.glob(os.path.join(repo_root, "chapters", "[0-9][0-9]_*", "README.md"))):
        number = os.path.basename(os.path.dirname(path))[:2]
        found[f"stage{number}"] = path
    return found


def link(target: str, from_dir: str) -> str:
    """Relative link from a file in from_dir to target, with forward slashes."""
    return os.path.relpath(target, from_dir).replace(os.sep, "/")


def readme_blocks(results: ResultSet, repo_root: str, page_path: str, json_path: str,
                  plot_path: Optional[str],
                  stage_data: Optional[Mapping[str, StageData]] = None,
                  ) -> Dict[str, Dict[str, Optional[str]]]:
    """{README path: {block name: content}} for README.md and every stage README; the stages of
    stage_data (06, 07) get their block from their own JSON ("not measured yet" without one)."""
    top = os.path.join(repo_root, "README.md")
    top_dir = os.path.dirname(top)
    files: Dict[str, Dict[str, Optional[str]]] = {top: {
        "results:table": readme_table_block(
            results, link(page_path, top_dir), link(plot_path, top_dir) if plot_path else None,
            link(json_path, top_dir))}}
    for stage, path in stage_readmes(repo_root).items():
        here = os.path.dirname(path)
        if stage_data and stage in stage_data:
            files[path] = {f"results:{stage}": stage_readme_block(stage_data[stage], results,
                                                                  here)}
            continue
        blocks: Dict[str, Optional[str]] = {
            f"results:{stage}": stage_block(results, stage, link(json_path, here))}
        if sweep_variants(results, stage):
            blocks[f"sweep:{stage}"] = stage_sweep_block(results, stage, link(json_path, here))
        files[path] = blocks
    return files


def update_readmes(results: ResultSet, repo_root: str, page_path: str, json_path: str,
                   plot_path: Optional[str],
                   stage_data: Optional[Mapping[str, StageData]] = None) -> List[str]:
    """Rewrites the results blocks of README.md and of every stage README."""
    messages = []
    for path, blocks in readme_blocks(results, repo_root, page_path, json_path,
                                      plot_path, stage_data).items():
        messages += update_file_blocks(path, blocks)
    return messages


def drift(results: ResultSet, repo_root: str, page_path: str, json_path: str,
          plot_path: Optional[str], page: str,
          stage_data: Optional[Mapping[str, StageData]] = None) -> List[str]:
    """The committed files that differ from what the JSON regenerates: the page, the stage
    pages, and every README block (one message per file; empty when nothing drifted). A stage
    page whose JSON is missing must not exist."""
    problems = []
    expected = {page_path: page}
    for data in (stage_data or {}).values():
        if data.results is not None:
            expected[data.page_path] = stage_page(data, results)
        elif os.path.exists(data.page_path):
            problems.append(f"{data.page_path}: exists, but its JSON "
                            f"{os.path.basename(data.json_path)} does not")
    for path, blocks in readme_blocks(results, repo_root, page_path, json_path,
                                      plot_path, stage_data).items():
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                expected[path] = rewrite_blocks(handle.read(), path, blocks)[0]
    for path, text in expected.items():
        if not os.path.exists(path):
            problems.append(f"{path}: missing")
            continue
        with open(path, encoding="utf-8") as handle:
            committed = handle.read()
        if committed != text:
            first = next(i for i, (a, b) in enumerate(
                zip(committed.splitlines() + [""], text.splitlines() + [""])) if a != b)
            problems.append(f"{path}: differs from its regeneration from the JSON "
                            f"(first at line {first + 1})")
    return problems


# ---------------------------------------------------------------------------------------------
# Plot


def plot_series(results: ResultSet) -> Dict[str, List[Result]]:
    """The lines of the plot: every stage (default variant) and baseline on uniform keys-only
    inputs, each sorted by n. Sweep variants and CUB's other key types are left out."""
    series: Dict[str, List[Result]] = {}
    for result in results.results:
        if result.kind != "keys" or result.ands != 0 or result.dist or \
                result.entry in ("copy", "torch-topk", TORCH_SEGSORT):
            continue
        if result.stage_number is not None and (result.variant or result.key_type != "u32"):
            continue
        name = result.entry
        if result.variant:
            name += f" {result.variant}"
        if result.key_type != "u32":
            name += f" ({result.key_type})"
        series.setdefault(name, []).append(result)
    for points in series.values():
        points.sort(key=lambda r: r.n)
    ordered = sorted(series, key=lambda s: (series[s][0].stage_number is None,
                                            _baseline_rank(series[s][0]), natural_key(s)))
    return {name: series[name] for name in ordered}


def roofline_points(results: ResultSet) -> List[Tuple[int, float]]:
    """The copy floor as keys per second: (n, n / time of the keys' floor copy) at every size
    the copy was measured — no sort of n keys can beat it."""
    copies = sorted((r for r in results.results if r.entry == "copy" and r.kind == "keys"
                     and r.median_ms > 0), key=lambda r: r.n)
    return [(r.n, r.n / (r.median_ms * 1e-3)) for r in copies]


def write_plot(results: ResultSet, path: str) -> Optional[str]:
    """Draws G keys/s against n (log-log) to path, with the copy floor as the roofline. Returns
    a note instead when matplotlib is missing or there is nothing to draw, None on success."""
    try:
        import matplotlib  # noqa: PLC0415 (optional dependency)

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        return "matplotlib is not installed: plot skipped (pip install matplotlib)"
    series = plot_series(results)
    if not series:
        return "no keys-only results to plot"
    figure, axes = plt.subplots(figsize=(11, 6))
    markers = "osD^v<>phX*P"
    palette = plt.get_cmap("tab20")
    for index, (name, points) in enumerate(series.items()):
        is_stage = points[0].stage_number is not None
        # tab20's dark shades first, then its light ones: 20 distinct colours.
        color = palette((2 * index) % 20 + (2 * index) // 20)
        axes.plot([p.n for p in points], [p.keys_per_s / 1e9 for p in points],
                  linestyle="-" if is_stage else "--", marker=markers[index % len(markers)],
                  color=color, linewidth=2 if is_stage else 1.2,
                  label="stage00 (CUB u32 as shipped)" if name == "stage00" else name)
    roofline = roofline_points(results)
    if roofline:
        axes.plot([n for n, _ in roofline], [keys / 1e9 for _, keys in roofline],
                  linestyle=":", color="black", linewidth=2.5,
                  label="copy floor (read + write each key once)")
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("n (keys)")
    axes.set_ylabel("G keys/s")
    axes.set_title(f"sortlab, u32 keys (torch: its own key type), uniform — {results.gpu_name}, "
                   f"{results.date}", fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
    figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(figure)
    return None


# (batch, ms) points of one line of the llm plot, ascending batch.
Points = List[Tuple[int, float]]


def llm_batch_series(data: StageData, torch: Optional[ResultSet]
                     ) -> Dict[str, Dict[int, Dict[int, Tuple[Points, Points]]]]:
    """The lines of stage 07's plot of time against batch: {type: {vocabulary: {k: (stage 07's
    points, torch.topk's points)}}}, (batch, median ms) of the shapes of the llm run's table of
    that type (with the grid's shapes another run measured, as the table), sorted output on both
    sides (what the table's *torch / ours* compares). Empty without an llm run."""
    series: Dict[str, Dict[int, Dict[int, Tuple[Points, Points]]]] = {}
    if data.results is None:
        return series
    index = _topk_index(data.results)
    key_types = []
    for result in data.results.results:
        if result.entry in (STAGE07_SORTED, STAGE07_UNSORTED) and \
                data.run_label(result) == STAGE07_LLM_RUN and result.key_type not in key_types:
            key_types.append(result.key_type)
    for key_type in key_types:
        for shape, _ in _stage07_rule_shapes(data, STAGE07_LLM_RUN, key_type):
            ours = index.get((STAGE07_SORTED, shape, ""))
            if ours is None:
                continue
            line = series.setdefault(key_type, {}).setdefault(shape.cols, {}).setdefault(
                shape.k, ([], []))
            line[0].append((shape.rows, ours.median_ms))
            theirs = torch_topk(torch, shape)
            if theirs is not None:
                line[1].append((shape.rows, theirs.median_ms))
    for vocabs in series.values():
        for ks in vocabs.values():
            for ours_points, torch_points in ks.values():
                ours_points.sort()
                torch_points.sort()
    return series


def write_llm_batch_plot(data: StageData, torch: Optional[ResultSet], path: str) -> Optional[str]:
    """Draws stage 07's time against batch on the LLM sampling shapes to path (issue 18): a panel
    per type (row) and vocabulary (column), a colour per k, stage 07 solid and torch.topk dashed,
    both axes logarithmic. Returns a note instead when matplotlib is missing or there is nothing
    to draw (as write_plot), None on success."""
    try:
        import matplotlib  # noqa: PLC0415 (optional dependency)

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
        from matplotlib.lines import Line2D  # noqa: PLC0415
        from matplotlib.ticker import FuncFormatter  # noqa: PLC0415
    except ImportError:
        return "matplotlib is not installed: plot skipped (pip install matplotlib)"
    series = llm_batch_series(data, torch)
    if not series:
        return "no stage 07 llm run to plot"
    assert data.results is not None
    vocabs = sorted({vocab for by_vocab in series.values() for vocab in by_vocab})
    ks = sorted({k for by_vocab in series.values() for by_k in by_vocab.values() for k in by_k})
    batches = sorted({batch for by_vocab in series.values() for by_k in by_vocab.values()
                      for ours, theirs in by_k.values() for batch, _ in ours + theirs})
    palette = plt.get_cmap("tab10")
    colour = {k: palette(i % 10) for i, k in enumerate(ks)}

    def tick(value: float, _: Any) -> str:
        """ms as the tables write them (0.05, not 5 × 10^-2), on 1, 2 and 5 of each decade."""
        leading = f"{value:.1e}"[0]
        return fmt_sig(value, 1) if leading in "125" else ""

    figure, grid = plt.subplots(len(series), len(vocabs), figsize=(4.2 * len(vocabs) + 1.6,
                                                                   3.4 * len(series) + 0.8),
                                sharex=True, sharey=True, squeeze=False)
    for row, (key_type, by_vocab) in enumerate(series.items()):
        for column, vocab in enumerate(vocabs):
            axes = grid[row][column]
            for k, (ours, theirs) in sorted(by_vocab.get(vocab, {}).items()):
                if ours:
                    axes.plot([b for b, _ in ours], [ms for _, ms in ours], linestyle="-",
                              marker="o", markersize=4, color=colour[k], linewidth=1.8)
                if theirs:
                    axes.plot([b for b, _ in theirs], [ms for _, ms in theirs], linestyle="--",
                              marker="x", markersize=4, color=colour[k], linewidth=1.2)
            axes.set_xscale("log", base=2)
            axes.set_yscale("log")
            axes.yaxis.set_major_formatter(FuncFormatter(tick))
            axes.yaxis.set_minor_formatter(FuncFormatter(tick))
            axes.set_xticks(batches)
            axes.set_xticklabels([str(batch) for batch in batches])
            axes.grid(True, which="both", alpha=0.3)
            axes.set_title(f"{key_type}, vocabulary {vocab}", fontsize=9)
            if row == len(series) - 1:
                axes.set_xlabel("batch (rows)")
            if column == 0:
                axes.set_ylabel("ms (median)")
    handles = [Line2D([], [], color=colour[k], linewidth=2, label=f"k = {k}") for k in ks]
    handles += [Line2D([], [], color="black", linestyle="-", marker="o", label="stage 07"),
                Line2D([], [], color="black", linestyle="--", marker="x", label="torch.topk")]
    figure.legend(handles=handles, fontsize=8, loc="center right")
    figure.suptitle(f"Top-k time against batch, LLM sampling shapes, sorted output — "
                    f"{data.gpu_name}, {data.results.date}", fontsize=10)
    figure.tight_layout(rect=(0, 0, 1 - 1.4 / (4.2 * len(vocabs) + 1.6), 1))
    figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(figure)
    return None


# ---------------------------------------------------------------------------------------------
# Command line


def load_json(path: str) -> Dict[str, Any]:
    """Parses one JSON file, with a message naming the file when it is not valid JSON."""
    with open(path, encoding="utf-8") as handle:
        try:
            return json.load(handle)
        except json.JSONDecodeError as error:
            raise SystemExit(f"results_table: {path} is not valid JSON ({error}); did the "
                             "benchmark run stop early?") from error


def copy_raw(source: str, target: str) -> None:
    """Copies a raw JSON file next to the page (unless it already is that file)."""
    if os.path.abspath(source) != os.path.abspath(target):
        shutil.copyfile(source, target)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-json", required=True, help="bench_all's --benchmark_out file")
    parser.add_argument("--torch-json", help="torch_baseline.py's output (optional)")
    parser.add_argument("--gpu-state", help="gpu_state.py's output: nvidia-smi before and after "
                                            "the run (optional)")
    for stage, (what, program) in STAGE_BENCHMARKS.items():
        parser.add_argument(f"--{stage}-json",
                            help=f"{program}'s JSON (the {what}; merge_bench_json.py joins "
                                 f"several runs); default: <results-dir>/<gpu>-{stage}.json "
                                 "when it exists, else the stage is not measured yet")
    parser.add_argument("--results-dir", default="docs/results", help="where the page goes")
    parser.add_argument("--repo-root", default=".", help="where README.md and chapters/ are")
    parser.add_argument("--readme-gpu", default="H100",
                        help="rewrite README blocks only when the GPU name contains this "
                             "(the READMEs show H100 numbers); '' rewrites them for any GPU")
    parser.add_argument("--no-readmes", action="store_true", help="leave every README alone")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNGs")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the committed page or a README block "
                             "differs from what the JSON regenerates (uses the committed plot)")
    args = parser.parse_args(argv)

    documents = [load_json(args.bench_json)]
    if args.torch_json and os.path.exists(args.torch_json):
        documents.append(load_json(args.torch_json))
    if args.gpu_state and os.path.exists(args.gpu_state):
        documents.append(load_json(args.gpu_state))
    results = load_result_set(documents)
    if not results.results:
        print(f"results_table: no results in {args.bench_json}", file=sys.stderr)
        return 1

    base = os.path.join(args.results_dir, results.gpu_file_name)
    json_path = base + ".json"
    torch_json_path = base + "-torch.json" if args.torch_json and os.path.exists(
        args.torch_json) else None
    gpu_state_path = base + "-gpu-state.json" if args.gpu_state and os.path.exists(
        args.gpu_state) else None
    plot_path: Optional[str] = base + "-keys-per-second.png"
    llm_plot_path = base + "-stage07-llm-batch.png"  # stage 07's time against batch
    update = not args.no_readmes and not (
        args.readme_gpu and args.readme_gpu.lower() not in results.gpu_name.lower())
    stage_data: Dict[str, StageData] = {}
    for stage in STAGE_BENCHMARKS:
        given = getattr(args, f"{stage}_json")
        if given and not os.path.exists(given):
            print(f"results_table: --{stage}-json {given}: no such file", file=sys.stderr)
            return 1
        committed = f"{base}-{stage}.json"
        stage_data[stage] = load_stage_data(stage, given or committed, committed, results)
    stage_links = stage_page_links(stage_data)

    if args.check:
        if args.no_plot or not os.path.exists(plot_path):
            plot_path = None
        # As the main plot: the committed PNG is shown when it is there (and the JSON has what it
        # draws), which is exactly when a run that wrote the docs drew it.
        stage07 = stage_data["stage07"]
        if not args.no_plot and os.path.exists(llm_plot_path) and \
                llm_batch_series(stage07, results):
            stage07.llm_plot = llm_plot_path
        page = results_page(
            results, os.path.basename(json_path),
            os.path.basename(torch_json_path) if torch_json_path else None,
            os.path.basename(plot_path) if plot_path else None,
            os.path.basename(gpu_state_path) if gpu_state_path else None, stage_links)
        problems = drift(results, args.repo_root if update else "/nonexistent", base + ".md",
                         json_path, plot_path, page, stage_data)
        for problem in problems:
            print(f"results_table: DRIFT: {problem}", file=sys.stderr)
        if problems:
            print("results_table: regenerate with `make table` (or rerun results_table.py on "
                  "the committed JSON) and commit the result", file=sys.stderr)
            return 1
        print("results_table: the page and README blocks match the JSON")
        return 0

    os.makedirs(args.results_dir, exist_ok=True)
    copy_raw(args.bench_json, json_path)
    if torch_json_path:
        copy_raw(args.torch_json, torch_json_path)
    if gpu_state_path:
        copy_raw(args.gpu_state, gpu_state_path)
    for stage, data in stage_data.items():
        given = getattr(args, f"{stage}_json")
        if given:
            copy_raw(given, data.json_path)
        if stage == "stage07":
            note = ("plot skipped (--no-plot)" if args.no_plot else
                    write_llm_batch_plot(data, results, llm_plot_path))
            if note:
                # As the main plot: never link (or leave) a PNG of an earlier run.
                print(f"results_table: stage 07 {note}")
                if os.path.exists(llm_plot_path):
                    os.remove(llm_plot_path)
                    print(f"results_table: removed the stale {llm_plot_path}")
            else:
                data.llm_plot = llm_plot_path
                print(f"results_table: wrote {llm_plot_path}")
        if data.results is not None:
            with open(data.page_path, "w", encoding="utf-8") as handle:
                handle.write(stage_page(data, results))
            print(f"results_table: wrote {data.page_path}")
        elif os.path.exists(data.page_path):
            # Never leave a page whose JSON is gone: --check would call it drift.
            os.remove(data.page_path)
            print(f"results_table: removed {data.page_path}: no {stage} JSON")

    note = "plot skipped (--no-plot)" if args.no_plot else write_plot(results, plot_path)
    if note:
        # Never link (or leave) a PNG from an earlier run: it would show other numbers, and
        # --check would take it for this run's.
        print(f"results_table: {note}")
        if os.path.exists(plot_path):
            os.remove(plot_path)
            print(f"results_table: removed the stale {plot_path}")
        plot_path = None
    else:
        print(f"results_table: wrote {plot_path}")

    page_path = base + ".md"
    page = results_page(
        results, os.path.basename(json_path),
        os.path.basename(torch_json_path) if torch_json_path else None,
        os.path.basename(plot_path) if plot_path else None,
        os.path.basename(gpu_state_path) if gpu_state_path else None, stage_links)
    with open(page_path, "w", encoding="utf-8") as handle:
        handle.write(page)
    print(f"results_table: wrote {page_path}")

    if args.no_readmes:
        print("results_table: READMEs left alone (--no-readmes)")
    elif not update:
        print(f"results_table: READMEs left alone: they show {args.readme_gpu} results and this "
              f"is {results.gpu_name} (pass --readme-gpu '' to rewrite them anyway)")
    else:
        for message in update_readmes(results, args.repo_root, page_path, json_path, plot_path,
                                      stage_data):
            print(f"results_table: {message}")
    for failure in results.failures + [f for data in stage_data.values() if data.results
                                       for f in data.results.failures]:
        print(f"results_table: FAILED: {failure.name}: {failure.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
