#!/usr/bin/env python3
"""Builds the results page of `make table` from Google Benchmark JSON.

Reads the JSON that `bench_all` (and, when PyTorch was usable, `torch_baseline.py`) wrote and
produces, without a single hand-typed number:

* ``docs/results/<gpu>.md``: the input set, the ladder tables (stage 00..04 in ladder order, never
  sorted by speed), pairs, reduced entropy, baselines, torch.topk, the stage 03 / stage 04 sweeps
  and the copy bandwidth;
* ``docs/results/<gpu>.json`` (and ``<gpu>-torch.json``): verbatim copies of the raw JSON;
* ``docs/results/<gpu>-keys-per-second.png``: keys/s against n for every stage and baseline
  (skipped with a note when matplotlib is missing);
* the marked blocks of the READMEs: ``<!-- results:table:begin/end -->`` in README.md,
  ``<!-- results:stageNN:begin/end -->`` and ``<!-- sweep:stageNN:begin/end -->`` in each
  ``chapters/NN_*/README.md``. A file without the markers is left alone (and the script says so).

Everything below the command-line layer is a pure function from parsed JSON to markdown strings,
so tests can check tables and README rewriting on a small fixture without a GPU.

Benchmark names follow bench/bench_support.hpp:
``<entry>/<type>/<keys|pairs>[/<variant>]/n:<n>/ands:<k>`` plus Google Benchmark's own suffixes
(``/min_time:0.050``, ``/manual_time``), which are ignored. Counters: n, ands, median_ms,
keys_per_s, GBps, bytes.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import sys
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

# Name parts Google Benchmark appends to a benchmark's name; they say nothing about the input.
_BENCHMARK_SUFFIXES = ("min_time:", "min_warmup_time:", "repeats:", "iterations:", "threads:")
_BENCHMARK_FLAGS = ("manual_time", "real_time", "process_time")

_STAGE_RE = re.compile(r"^stage(\d\d)$")

# Order of the baselines in their table (unknown entries follow, alphabetically).
_BASELINE_ORDER = ("stage00", "thrust", "cub-segmented-radix", "cub-segmented-sort", "torch-sort")

# What a sweep's variant prefix means, for the sweep tables' first column.
_SWEEP_PARAMETERS = {"r": "r (bits per digit)", "kpt": "keys per thread"}

# The README sizes: the top-level README shows the ladder at these sizes.
README_LOG2_SIZES = (24, 28)

# Smallest n in the page's tables (smaller sizes are launch-bound; they stay in the plot and JSON).
TABLE_MIN_N = 1 << 20

# Entropy of keys ANDed k times (CUB's benchmarks and GPUSorting's generator use the same table).
AND_ENTROPY = {0: "1.000", 1: "0.811", 2: "0.544", 3: "0.337", 4: "0.201"}

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


def parse_name(name: str) -> ParsedName:
    """Splits a sortlab benchmark name into its parts, dropping Google Benchmark's suffixes.

    >>> parse_name("stage03/u32/keys/r:4/n:1024/ands:0/min_time:0.050/manual_time")
    ParsedName(entry='stage03', key_type='u32', kind='keys', variant='r:4', n=1024, ands=0)
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
    for part in rest:
        if part in _BENCHMARK_FLAGS or part.startswith(_BENCHMARK_SUFFIXES):
            continue
        if part.startswith("n:"):
            n = int(part[2:])
        elif part.startswith("ands:"):
            ands = int(part[5:])
        else:
            variant_parts.append(part)
    return ParsedName(entry, key_type, kind, "/".join(variant_parts), n, ands)


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
            )
        )
    return results, failures


class ResultSet:
    """All results of one `make table` run, with look-ups by what was measured."""

    def __init__(self, results: Iterable[Result], context: Optional[Mapping[str, Any]] = None,
                 failures: Iterable[Failure] = ()):
        """Indexes results; context is the merged JSON context (GPU name, date, ...);
        failures are the benchmarks that reported an error."""
        self.results: List[Result] = list(results)
        self.context: Dict[str, Any] = dict(context or {})
        self.failures: List[Failure] = list(failures)
        self._index: Dict[Tuple[str, str, str, str, int, int], Result] = {}
        for result in self.results:
            key = (result.entry, result.key_type, result.kind, result.variant, result.n, result.ands)
            self._index[key] = result

    def find(
        self, entry: str, n: int, key_type: str = "u32", kind: str = "keys", variant: str = "",
        ands: int = 0,
    ) -> Optional[Result]:
        """The result of entry on one input, or None when it was not measured."""
        return self._index.get((entry, key_type, kind, variant, n, ands))

    def failure(self, entry: str, n: int, key_type: str = "u32", kind: str = "keys",
                variant: str = "", ands: int = 0) -> Optional[Failure]:
        """The failure of entry on one input, or None when it did not fail."""
        for failure in self.failures:
            p = failure.parsed
            if (p.entry, p.key_type, p.kind, p.variant, p.n, p.ands or 0) == (
                    entry, key_type, kind, variant, n, ands):
                return failure
        return None

    def stages(self) -> List[str]:
        """The stage entries present ("stage00", ...), in ladder order (by stage number)."""
        names = {r.entry for r in self.results if r.stage_number is not None}
        return sorted(names, key=lambda name: int(name[5:]))

    def sizes(self, entry: Optional[str] = None, kind: str = "keys", ands: int = 0,
              key_type: str = "u32", variant: Optional[str] = "") -> List[int]:
        """Sorted sizes measured for entry (any stage when None) on the given inputs.

        variant None accepts any variant.
        """
        found = {
            r.n for r in self.results
            if (r.entry == entry if entry else r.stage_number is not None)
            and r.kind == kind and r.ands == ands and r.key_type == key_type
            and (variant is None or r.variant == variant)
        }
        return sorted(found)

    def copy_ceiling(self) -> Optional[Result]:
        """The copy benchmark with the highest bandwidth: the practical ceiling of this GPU."""
        copies = [r for r in self.results if r.entry == "copy"]
        return max(copies, key=lambda r: r.gbps) if copies else None

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


def copy_fraction(result: Result, copy: Optional[Result]) -> Optional[float]:
    """Fraction of the copy ceiling the result reaches by its own bytes model."""
    if copy is None or copy.gbps <= 0 or result.gbps <= 0:
        return None
    return result.gbps / copy.gbps


def describe_input(n: int, kind: str = "keys", ands: int = 0, key_type: str = "u32") -> str:
    """ "n = 2^24 u32 keys, uniform" and the like."""
    entropy = ("uniform" if ands == 0 else
               f"ANDed {ands}× (entropy {AND_ENTROPY.get(ands, '?')} bits per bit)")
    return f"n = {fmt_n(n)} {key_type} {kind}, {entropy}"


# ---------------------------------------------------------------------------------------------
# Tables

LADDER_HEADERS = ("stage", "what changed", "median ms", "G keys/s", "GB/s",
                  "% of copy BW", "vs previous stage", "vs CUB")
_LADDER_ALIGN = (False, False, True, True, True, True, True, True)


def previous_stage(stage: str) -> Optional[str]:
    """The rung below stage whose speed-up we report: stageNN-1 for NN >= 2.

    Stage 01 is the first rung of our own (stage 00 is CUB, compared in its own column).
    """
    number = int(stage[5:])
    return f"stage{number - 1:02d}" if number >= 2 else None


def ladder_table(results: ResultSet, n: int, kind: str = "keys", ands: int = 0,
                 key_type: str = "u32") -> Optional[str]:
    """The ladder at one input: every stage in ladder order (not sorted by speed).

    A stage that was not measured at this size (the 1-bit stages cap their own sizes) keeps its
    row, with dashes. Returns None when no stage was measured on this input.
    """
    copy = results.copy_ceiling()
    cub = results.find("stage00", n, key_type, kind, "", ands)
    rows: List[List[str]] = []
    any_measured = False
    for stage in results.stages():
        result = results.find(stage, n, key_type, kind, "", ands)
        label = results.label_of(stage)
        if result is None:
            failure = results.failure(stage, n, key_type, kind, "", ands)
            why = f"failed: {failure.message}" if failure else "not measured at this size"
            rows.append([stage, f"{label} ({why})", DASH, DASH, DASH, DASH, DASH, DASH])
            continue
        any_measured = True
        previous = previous_stage(stage)
        prev_result = results.find(previous, n, key_type, kind, "", ands) if previous else None
        rows.append([
            stage, result.label or label, fmt_ms(result.median_ms), fmt_gkeys(result.keys_per_s),
            fmt_gbps(result.gbps), fmt_percent(copy_fraction(result, copy)),
            fmt_ratio(speed_ratio(prev_result, result)), fmt_ratio(speed_ratio(cub, result)),
        ])
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
    """Thrust, the CUB segmented sorts and torch.sort beside CUB (stage 00) on the same inputs,
    for n >= min_n.

    Rows are grouped by input (n, keys or pairs, key type); each group starts with CUB's row when
    CUB was measured on it. The "vs CUB" column compares with CUB on the same key type and kind;
    when CUB did not run on that key type the u32 run is used and the cell is marked †.
    """
    copy = results.copy_ceiling()
    baseline_entries = {r.entry for r in results.results
                        if r.stage_number is None and r.entry not in ("copy", "torch-topk")}
    if not any(r.entry in baseline_entries and r.n >= min_n for r in results.results):
        return None
    groups = sorted({(r.n, r.kind, r.key_type, r.ands) for r in results.results
                     if r.entry in baseline_entries and r.n >= min_n},
                    key=lambda g: (g[0], g[1], ["u32", "i32", "f32"].index(g[2])
                                   if g[2] in ("u32", "i32", "f32") else 9, g[2], g[3]))
    rows: List[List[str]] = []
    footnote = False
    for n, kind, key_type, ands in groups:
        members = [r for r in results.results
                   if (r.entry in baseline_entries or (r.entry == "stage00" and r.variant == ""))
                   and (r.n, r.kind, r.key_type, r.ands) == (n, kind, key_type, ands)]
        members.sort(key=lambda r: (_baseline_rank(r), natural_key(r.variant)))
        cub = results.find("stage00", n, key_type, kind, "", ands)
        fallback = cub is None
        if fallback:
            cub = results.find("stage00", n, "u32", kind, "", ands)
        for result in members:
            ratio = fmt_ratio(speed_ratio(cub, result))
            if fallback and ratio != DASH:
                ratio += " †"
                footnote = True
            name = "CUB (stage00)" if result.entry == "stage00" else result.entry
            if result.variant:
                name += f" {result.variant}"
            what = f"{key_type} {kind}" + (f", ANDed {ands}×" if ands else "")
            rows.append([fmt_n(n), what, name, result.label, fmt_ms(result.median_ms),
                         fmt_gkeys(result.keys_per_s), fmt_gbps(result.gbps),
                         fmt_percent(copy_fraction(result, copy)), ratio])
    table = markdown_table(
        ("n", "input", "baseline", "what it is", "median ms", "G keys/s", "GB/s",
         "% of copy BW", "vs CUB"),
        rows, (True, False, False, False, True, True, True, True, True))
    if footnote:
        table += ("\n† CUB was not measured on this key type and kind; compared with CUB on u32 "
                  "at the same n.\n")
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
    copy = results.copy_ceiling()
    rows = []
    for variant in variants:
        result = results.find(stage, n, variant=variant)
        assert result is not None
        value = variant.split(":", 1)[1] if ":" in variant else variant
        if variant == default_variant:
            value += " (default)"
        rows.append([value, fmt_ms(result.median_ms), fmt_gkeys(result.keys_per_s),
                     fmt_gbps(result.gbps), fmt_percent(copy_fraction(result, copy)),
                     fmt_ratio(speed_ratio(default, result))])
    return markdown_table(
        (_SWEEP_PARAMETERS.get(prefix, prefix), "median ms", "G keys/s", "GB/s", "% of copy BW",
         "vs default"),
        rows, (False, True, True, True, True, True))


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
    """One stage over every measured input: its speed, bandwidth, and ratios to the stage before
    and to CUB (the block a stage README shows)."""
    copy = results.copy_ceiling()
    previous = previous_stage(stage)
    inputs = sorted({(r.kind, r.ands, r.n) for r in results.results
                     if r.entry == stage and r.variant == "" and r.key_type == "u32"},
                    key=lambda i: (i[0] != "keys", i[1], i[2]))
    if not inputs:
        return None
    rows = []
    for kind, ands, n in inputs:
        result = results.find(stage, n, "u32", kind, "", ands)
        assert result is not None
        prev = results.find(previous, n, "u32", kind, "", ands) if previous else None
        cub = results.find("stage00", n, "u32", kind, "", ands)
        what = kind + (f", ANDed {ands}×" if ands else "")
        rows.append([fmt_n(n), what, fmt_ms(result.median_ms), fmt_gkeys(result.keys_per_s),
                     fmt_gbps(result.gbps), fmt_percent(copy_fraction(result, copy)),
                     fmt_ratio(speed_ratio(prev, result)), fmt_ratio(speed_ratio(cub, result))])
    headers = ("n", "u32", "median ms", "G keys/s", "GB/s", "% of copy BW",
               f"vs {previous}" if previous else "vs previous stage", "vs CUB")
    return markdown_table(headers, rows, (True, False, True, True, True, True, True, True))


def copy_table(results: ResultSet) -> Optional[str]:
    """The device-to-device copy at every size: the bandwidth ceiling."""
    copies = sorted((r for r in results.results if r.entry == "copy"), key=lambda r: r.n)
    if not copies:
        return None
    rows = [[fmt_n(r.n), fmt_sig(r.bytes / 2**20), fmt_ms(r.median_ms), fmt_gbps(r.gbps)]
            for r in copies]
    return markdown_table(("n (u32)", "MiB read + written", "median ms", "GB/s"), rows,
                          (True, True, True, True))


# ---------------------------------------------------------------------------------------------
# Pages and README blocks


def legend(results: ResultSet) -> str:
    """How to read the ladder columns."""
    copy = results.copy_ceiling()
    ceiling = (f"{fmt_gbps(copy.gbps)} GB/s, the best device-to-device copy measured "
               f"({fmt_n(copy.n)} u32 keys)" if copy else "not measured")
    return (
        "Columns: *median ms* is the median of the timed runs (CUDA events); *G keys/s* is n / "
        "median time; *GB/s* is the stage's own bytes model (`bytes_moved`: the device-memory "
        "traffic its design needs) / median time; *% of copy BW* is that over the copy ceiling "
        f"({ceiling}) — the fraction of the bandwidth floor the stage reaches for the bytes it "
        "must move; *vs previous stage* is stage NN−1's time / stage NN's time (above 1× = "
        "faster; stage 01 is the first rung of our own, so it has none); *vs CUB* is CUB's "
        "time / this time (1× = CUB's speed).\n")


def provenance(results: ResultSet, json_link: str) -> str:
    """The "generated, do not edit" line that opens every generated block."""
    return (f"*{results.gpu_name}, measured {results.date}. Generated by `make table` from "
            f"[the raw benchmark JSON]({json_link}) — do not edit by hand.*\n")


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
                 torch_json_name: Optional[str], plot_name: Optional[str]) -> str:
    """The whole docs/results/<gpu>.md page."""
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
    out.append("Raw Google Benchmark JSON: " + ", ".join(raw) +
               ". How the numbers are made: [README.md](README.md).\n")

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
    for ands in sorted({r.ands for r in results.results if r.stage_number is not None} - {0}):
        for n in results.sizes(ands=ands):
            table = ladder_table(results, n, ands=ands)
            if table:
                out.append(f"### {describe_input(n, ands=ands)}\n\n{table}")

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
                         ("stage04", "## Stage 04: keys per thread\n")):
        block = sweep_block(results, stage)
        if block:
            out.append(title)
            out.append(block)

    table = copy_table(results)
    if table:
        out.append("## Copy bandwidth (the ceiling)\n")
        out.append(table)

    if plot_name:
        out.append("## Keys per second against n\n")
        out.append(f"![keys/s against n for every stage and baseline]({plot_name})\n")

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
        parts.append(f"![keys/s against n for every stage and baseline]({plot_link})\n")
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


def update_file_blocks(path: str, blocks: Mapping[str, Optional[str]]) -> List[str]:
    """Rewrites the named blocks of one file in place; returns one message per block.

    A missing file, missing markers or a block without data leave the file (or that block)
    untouched, and the message says so.
    """
    if not os.path.exists(path):
        return [f"{path}: not found, left alone"]
    with open(path, encoding="utf-8") as handle:
        original = handle.read()
    text = original
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


def update_readmes(results: ResultSet, repo_root: str, page_path: str, json_path: str,
                   plot_path: Optional[str]) -> List[str]:
    """Rewrites the results blocks of README.md and of every stage README."""
    messages = []
    top = os.path.join(repo_root, "README.md")
    top_dir = os.path.dirname(top)
    messages += update_file_blocks(top, {
        "results:table": readme_table_block(
            results, link(page_path, top_dir), link(plot_path, top_dir) if plot_path else None,
            link(json_path, top_dir))})
    for stage, path in stage_readmes(repo_root).items():
        here = os.path.dirname(path)
        blocks: Dict[str, Optional[str]] = {
            f"results:{stage}": stage_block(results, stage, link(json_path, here))}
        if sweep_variants(results, stage):
            blocks[f"sweep:{stage}"] = stage_sweep_block(results, stage, link(json_path, here))
        messages += update_file_blocks(path, blocks)
    return messages


# ---------------------------------------------------------------------------------------------
# Plot


def plot_series(results: ResultSet) -> Dict[str, List[Result]]:
    """The lines of the plot: every stage (default variant) and baseline on uniform keys-only
    inputs, each sorted by n. Sweep variants and CUB's other key types are left out."""
    series: Dict[str, List[Result]] = {}
    for result in results.results:
        if result.kind != "keys" or result.ands != 0 or result.entry in ("copy", "torch-topk"):
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
    ordered = sorted(series, key=lambda s: (not s.startswith("stage"),
                                            _baseline_rank(series[s][0]), natural_key(s)))
    return {name: series[name] for name in ordered}


def write_plot(results: ResultSet, path: str) -> Optional[str]:
    """Draws keys/s against n (log-log) to path. Returns a note instead when matplotlib is
    missing or there is nothing to draw, None on success."""
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
        is_stage = name.startswith("stage")
        # tab20's dark shades first, then its light ones: 20 distinct colours.
        color = palette((2 * index) % 20 + (2 * index) // 20)
        axes.plot([p.n for p in points], [p.keys_per_s for p in points],
                  linestyle="-" if is_stage else "--", marker=markers[index % len(markers)],
                  color=color, linewidth=2 if is_stage else 1.2,
                  label="stage00 (CUB)" if name == "stage00" else name)
    axes.set_xscale("log", base=2)
    axes.set_yscale("log")
    axes.set_xlabel("n (keys)")
    axes.set_ylabel("keys per second")
    axes.set_title(f"sortlab, u32 keys (torch: its own key type), uniform — {results.gpu_name}, "
                   f"{results.date}", fontsize=10)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    figure.tight_layout()
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
    parser.add_argument("--results-dir", default="docs/results", help="where the page goes")
    parser.add_argument("--repo-root", default=".", help="where README.md and chapters/ are")
    parser.add_argument("--readme-gpu", default="H100",
                        help="rewrite README blocks only when the GPU name contains this "
                             "(the READMEs show H100 numbers); '' rewrites them for any GPU")
    parser.add_argument("--no-readmes", action="store_true", help="leave every README alone")
    parser.add_argument("--no-plot", action="store_true", help="skip the PNG")
    args = parser.parse_args(argv)

    documents = [load_json(args.bench_json)]
    if args.torch_json and os.path.exists(args.torch_json):
        documents.append(load_json(args.torch_json))
    results = load_result_set(documents)
    if not results.results:
        print(f"results_table: no results in {args.bench_json}", file=sys.stderr)
        return 1

    os.makedirs(args.results_dir, exist_ok=True)
    base = os.path.join(args.results_dir, results.gpu_file_name)
    json_path = base + ".json"
    copy_raw(args.bench_json, json_path)
    torch_json_path = None
    if len(documents) > 1:
        torch_json_path = base + "-torch.json"
        copy_raw(args.torch_json, torch_json_path)

    plot_path: Optional[str] = base + "-keys-per-second.png"
    note = "plot skipped (--no-plot)" if args.no_plot else write_plot(results, plot_path)
    if note:
        # Never link a PNG left over from an earlier run: it would show other numbers.
        print(f"results_table: {note}")
        plot_path = None
    else:
        print(f"results_table: wrote {plot_path}")

    page_path = base + ".md"
    page = results_page(
        results, os.path.basename(json_path),
        os.path.basename(torch_json_path) if torch_json_path else None,
        os.path.basename(plot_path) if plot_path else None)
    with open(page_path, "w", encoding="utf-8") as handle:
        handle.write(page)
    print(f"results_table: wrote {page_path}")

    if args.no_readmes:
        print("results_table: READMEs left alone (--no-readmes)")
    elif args.readme_gpu and args.readme_gpu.lower() not in results.gpu_name.lower():
        print(f"results_table: READMEs left alone: they show {args.readme_gpu} results and this "
              f"is {results.gpu_name} (pass --readme-gpu '' to rewrite them anyway)")
    else:
        for message in update_readmes(results, args.repo_root, page_path, json_path, plot_path):
            print(f"results_table: {message}")
    for failure in results.failures:
        print(f"results_table: FAILED: {failure.name}: {failure.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
