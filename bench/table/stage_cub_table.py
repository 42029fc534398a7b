#!/usr/bin/env python3
"""Builds stage 05's (or 08's) comparison with CUB from bench_stageNN's Google Benchmark JSON.

bench_stage05 run with ``--benchmark_filter='^(block|device)/'`` (bench/stage05_block_bench.cu)
measures stage 05's block sort against cub::BlockRadixSort and its device sort against
cub::DeviceRadixSort beside a device-to-device copy. This script turns that JSON, without a
single hand-typed number, into:

* ``<results-dir>/<gpu>-stage05-cub.json``: a verbatim copy of the raw JSON;
* the block ``<!-- results:stage05-cub:begin/end -->`` of ``chapters/05_packed_rank/README.md``:
  a provenance line, the block sort table, the device sort table, a sentence under each
  generated from the numbers, footnotes for rows that did not converge and one line per
  benchmark that reported an error. A README without the markers is left alone (and the script
  says so).

Names (Google Benchmark's suffixes such as ``/iterations:1/manual_time`` are ignored):
``block/<stage05|cub>/<type>/<T>x<K>`` and ``device/<stage05|cub|copy>/<type>/n:<n>``. Rows of
any other shape are ignored with a message on stderr.

Everything below the command-line layer is a pure function from parsed JSON to markdown, so the
tests (tests/table/test_stage_cub_table.py) run on a small fixture without a GPU.

``--stage 08`` does the same for bench_stage08's ``device/`` rows (bench/device_vs_cub.hpp): the
block ``results:stage08-cub`` of ``chapters/08_onesweep/README.md`` (device table only) and
``<gpu>-stage08-cub.json``.

``--check`` regenerates the block in memory and exits 1 when the committed README block or the
committed JSON copy differs from it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, TextIO, Tuple

from results_table import (  # noqa: E402
    _BENCHMARK_FLAGS,
    _BENCHMARK_SUFFIXES,
    DASH,
    copy_raw,
    fmt_gbps,
    fmt_gkeys,
    fmt_ms,
    fmt_n,
    fmt_ratio,
    link,
    load_json,
    markdown_table,
    marker,
    replace_block,
    update_file_blocks,
)

PROG = "stage_cub_table"

# The stages whose benchmarks write such rows, and their READMEs: stage 05 (block and device rows,
# bench_stage05) and stage 08 (device rows, bench_stage08). The block is "results:stageNN-cub",
# the JSON copy "<gpu>-stageNN-cub.json", the stage's rows are named after it ("stage08").
STAGE_READMES = {"05": os.path.join("chapters", "05_packed_rank", "README.md"),
                 "08": os.path.join("chapters", "08_onesweep", "README.md")}
# Kept for stage 05's callers and tests.
BLOCK_NAME = "results:stage05-cub"
README = STAGE_READMES["05"]
JSON_SUFFIX = "-stage05-cub.json"


def block_name(stage: str = "05") -> str:
    """The README block of a stage's comparison: results:stageNN-cub."""
    return f"results:stage{stage}-cub"


def json_suffix(stage: str = "05") -> str:
    """The JSON copy's name after the GPU: -stageNN-cub.json."""
    return f"-stage{stage}-cub.json"


STAGE_IMPLS = tuple(f"stage{stage}" for stage in STAGE_READMES)
BLOCK_IMPLS = STAGE_IMPLS + ("cub",)
DEVICE_IMPLS = STAGE_IMPLS + ("cub", "copy")
_TYPE_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z][a-z0-9]*)?$")
_SHAPE_RE = re.compile(r"^(\d+)x(\d+)$")
_N_RE = re.compile(r"^n:(\d+)$")

# The size and type of the device sentence ("At 2^28 u32 keys stage 05 runs at 0.57× CUB.").
HEADLINE_N = 1 << 28
HEADLINE_TYPE = "u32"

UNCONVERGED_MARK = "*"
UNCONVERGED_NOTE = ("\\* not converged: the noise bound was not met before the time cap, so the "
                    "median is of the samples taken until then.\n")

def block_headers(ours: str = "stage05") -> Tuple[str, ...]:
    """Table 1's header for the stage whose rows are named ours."""
    return ("keys", "threads x keys/thread", f"{ours} ms", "CUB ms", f"{ours} vs CUB",
            f"{ours} p10–p90", "CUB p10–p90", f"registers ({ours} / CUB)",
            f"blocks per SM ({ours} / CUB)")


BLOCK_HEADERS = block_headers()
_BLOCK_ALIGN = (False, True, True, True, True, True, True, True, True)
def device_headers(ours: str = "stage05") -> Tuple[str, ...]:
    """Table 2's header for the stage whose rows are named ours."""
    return ("keys / pairs", "n", f"{ours} ms", "CUB ms", "copy ms", f"{ours} vs CUB",
            f"{ours} G keys/s", "CUB G keys/s", f"{ours} copies' worth", "CUB copies' worth",
            f"{ours} bytes/key", f"{ours} GB/s of own bytes")


DEVICE_HEADERS = device_headers()
_DEVICE_ALIGN = (False,) + (True,) * 11


@dataclass(frozen=True)
class Row:
    """One benchmark of the JSON: measured (counters) or failed (error)."""

    group: str  # "block" or "device"
    impl: str  # "stage05", "cub" or "copy"
    key_type: str  # "u32", "f32", "u64", "u32-u32", "f32-i64"
    shape: str  # "128x16" for block rows, "n:<n>" for device rows
    name: str  # the full benchmark name
    counters: Mapping[str, float] = field(default_factory=dict)
    error: Optional[str] = None  # the error message of a row that reported one

    @property
    def ok(self) -> bool:
        """Whether the row has a median to show."""
        return self.error is None and "median_ms" in self.counters

    @property
    def median_ms(self) -> float:
        return float(self.counters["median_ms"])

    @property
    def converged(self) -> bool:
        """False only when the row says it stopped at the time cap (converged 0)."""
        return bool(self.counters.get("converged", 1))

    @property
    def n(self) -> int:
        """Keys sorted: the n of a device name, else the n counter."""
        match = _N_RE.match(self.shape)
        return int(match.group(1)) if match else int(self.counters.get("n", 0))


def strip_suffixes(name: str) -> List[str]:
    """The parts of a benchmark name without Google Benchmark's own suffixes."""
    return [part for part in name.split("/")
            if part not in _BENCHMARK_FLAGS and not part.startswith(_BENCHMARK_SUFFIXES)]


def parse_row_name(name: str) -> Optional[Tuple[str, str, str, str]]:
    """(group, impl, type, shape) of a block or device name, None for any other shape.

    >>> parse_row_name("block/cub/u32/128x16/iterations:1/manual_time")
    ('block', 'cub', 'u32', '128x16')
    """
    parts = strip_suffixes(name)
    if len(parts) != 4 or not _TYPE_RE.match(parts[2]):
        return None
    group, impl, key_type, shape = parts
    if group == "block" and impl in BLOCK_IMPLS and _SHAPE_RE.match(shape):
        return group, impl, key_type, shape
    if group == "device" and impl in DEVICE_IMPLS and _N_RE.match(shape):
        return group, impl, key_type, shape
    return None


def parse_rows(document: Mapping[str, Any], warn: Optional[TextIO] = None) -> List[Row]:
    """The block and device rows of one bench_stage05 JSON document, in its order.

    Aggregate rows are skipped; a row of unknown name shape is skipped with a message on warn
    (stderr by default); an errored row (or one without median_ms) keeps its error message.
    """
    warn = warn if warn is not None else sys.stderr
    rows: List[Row] = []
    for bench in document.get("benchmarks", []):
        if bench.get("run_type", "iteration") != "iteration":
            continue
        name = str(bench.get("name", ""))
        parsed = parse_row_name(name)
        if parsed is None:
            print(f"{PROG}: ignoring {name!r}: not block/<impl>/<type>/<T>x<K> or "
                  "device/<impl>/<type>/n:<n>", file=warn)
            continue
        counters = {key: float(value) for key, value in bench.items()
                    if isinstance(value, (int, float)) and not isinstance(value, bool)}
        error = None
        if bench.get("error_occurred"):
            error = str(bench.get("error_message", "error"))
        elif "median_ms" not in counters:
            error = "no median_ms counter"
        rows.append(Row(*parsed, name=name, counters=counters, error=error))
    return rows


Index = Dict[Tuple[str, str, str, str], Row]


def index_rows(rows: Sequence[Row]) -> Index:
    """{(group, impl, type, shape): row}; the first row of a name wins."""
    index: Index = {}
    for row in rows:
        index.setdefault((row.group, row.impl, row.key_type, row.shape), row)
    return index


def groups(rows: Sequence[Row], group: str) -> List[Tuple[str, str]]:
    """The (type, shape) pairs of one group, in the order the JSON first lists them."""
    seen: List[Tuple[str, str]] = []
    for row in rows:
        if row.group == group and (row.key_type, row.shape) not in seen:
            seen.append((row.key_type, row.shape))
    return seen


def measured(row: Optional[Row]) -> Optional[Row]:
    """row when it has a median, None when it is missing or errored."""
    return row if row is not None and row.ok else None


def ratio(reference: Optional[Row], row: Optional[Row]) -> Optional[float]:
    """How many times faster row is than reference (reference median / row median), from the
    unrounded medians; None when either is missing or errored."""
    reference, row = measured(reference), measured(row)
    if reference is None or row is None or row.median_ms <= 0:
        return None
    return reference.median_ms / row.median_ms


def worth(row: Optional[Row], copy: Optional[Row]) -> Optional[float]:
    """Copies' worth: row median / copy median (1 is the floor); None when either is missing."""
    row, copy = measured(row), measured(copy)
    if row is None or copy is None or copy.median_ms <= 0:
        return None
    return row.median_ms / copy.median_ms


def fmt_one_decimal(value: Optional[float]) -> str:
    """value with one decimal, or a dash."""
    return DASH if value is None else f"{value:,.1f}"


def ms_cell(row: Optional[Row]) -> str:
    """The median in ms, with the unconverged mark when the noise bound was not met."""
    row = measured(row)
    if row is None:
        return DASH
    return fmt_ms(row.median_ms) + ("" if row.converged else UNCONVERGED_MARK)


def spread_cell(row: Optional[Row]) -> str:
    """The p10–p90 range of the samples, or a dash."""
    row = measured(row)
    if row is None or "p10_ms" not in row.counters or "p90_ms" not in row.counters:
        return DASH
    return f"{fmt_ms(row.counters['p10_ms'])}–{fmt_ms(row.counters['p90_ms'])}"


def counter_pair(ours: Optional[Row], theirs: Optional[Row], counter: str) -> str:
    """"<ours> / <theirs>" of an integer counter, a dash for a side that lacks it."""
    def one(row: Optional[Row]) -> str:
        row = measured(row)
        if row is None or counter not in row.counters:
            return DASH
        return f"{int(row.counters[counter])}"
    return f"{one(ours)} / {one(theirs)}"


def fmt_shape(shape: str) -> str:
    """"128x16" as "128 x 16"."""
    match = _SHAPE_RE.match(shape)
    return f"{match.group(1)} x {match.group(2)}" if match else shape


def shown_ratio(value: float) -> float:
    """The ratio as the table shows it (fmt_ratio's two decimals below 10×)."""
    return float(f"{value:.2f}")


def block_table(rows: Sequence[Row], ours_name: str = "stage05",
                ) -> Tuple[Optional[str], List[Tuple[str, str, float]]]:
    """Table 1 (None without block rows) and the (type, shape, ratio) of every shape where both
    sorts were measured, in table order."""
    index = index_rows(rows)
    cells: List[List[str]] = []
    ratios: List[Tuple[str, str, float]] = []
    for key_type, shape in groups(rows, "block"):
        ours = index.get(("block", ours_name, key_type, shape))
        cub = index.get(("block", "cub", key_type, shape))
        speed = ratio(cub, ours)
        if speed is not None:
            ratios.append((key_type, shape, speed))
        cells.append([key_type, fmt_shape(shape), ms_cell(ours), ms_cell(cub), fmt_ratio(speed),
                      spread_cell(ours), spread_cell(cub),
                      counter_pair(ours, cub, "registers"),
                      counter_pair(ours, cub, "blocks_per_sm")])
    if not cells:
        return None, ratios
    return markdown_table(block_headers(ours_name), cells, _BLOCK_ALIGN), ratios


def block_sentence(ratios: Sequence[Tuple[str, str, float]]) -> Optional[str]:
    """"At least 1.00× CUB at 7 of 8 shapes; lowest 0.99× (u64, 256 x 8)." The count uses the
    ratio as displayed (two decimals), so sentence and table agree."""
    if not ratios:
        return None
    reached = sum(1 for _, _, value in ratios if shown_ratio(value) >= 1.0)
    key_type, shape, lowest = min(ratios, key=lambda item: item[2])
    return (f"At least 1.00× CUB at {reached} of {len(ratios)} shapes; lowest "
            f"{fmt_ratio(lowest)} ({key_type}, {fmt_shape(shape)}).\n")


def keys_per_s(row: Optional[Row]) -> Optional[float]:
    """The keys_per_s counter, else n / median."""
    row = measured(row)
    if row is None:
        return None
    if "keys_per_s" in row.counters:
        return row.counters["keys_per_s"]
    return row.n / (row.median_ms * 1e-3) if row.median_ms > 0 else None


def gkeys_cell(row: Optional[Row]) -> str:
    value = keys_per_s(row)
    return DASH if value is None else fmt_gkeys(value)


def own_bytes(row: Optional[Row]) -> Optional[float]:
    """Stage 05's bytes model of the row (None when missing or 0)."""
    row = measured(row)
    if row is None or row.counters.get("bytes", 0) <= 0:
        return None
    return row.counters["bytes"]


def bytes_per_key_cell(row: Optional[Row]) -> str:
    model = own_bytes(row)
    if model is None or row is None or row.n <= 0:
        return DASH
    return fmt_one_decimal(model / row.n)


def own_gbps_cell(row: Optional[Row]) -> str:
    """Stage 05's own bytes / its median, in GB/s."""
    model = own_bytes(row)
    if model is None or row is None or row.median_ms <= 0:
        return DASH
    return fmt_gbps(model / (row.median_ms * 1e-3) * 1e-9)


def device_table(rows: Sequence[Row], ours_name: str = "stage05",
                 ) -> Tuple[Optional[str], Dict[Tuple[str, int], float]]:
    """Table 2 (None without device rows) and {(type, n): stage05 vs CUB} where both were
    measured."""
    index = index_rows(rows)
    cells: List[List[str]] = []
    ratios: Dict[Tuple[str, int], float] = {}
    for key_type, shape in groups(rows, "device"):
        ours = index.get(("device", ours_name, key_type, shape))
        cub = index.get(("device", "cub", key_type, shape))
        copy = index.get(("device", "copy", key_type, shape))
        n = int(shape[2:])
        speed = ratio(cub, ours)
        if speed is not None:
            ratios[(key_type, n)] = speed
        cells.append([key_type, fmt_n(n), ms_cell(ours), ms_cell(cub), ms_cell(copy),
                      fmt_ratio(speed), gkeys_cell(ours), gkeys_cell(cub),
                      fmt_one_decimal(worth(ours, copy)), fmt_one_decimal(worth(cub, copy)),
                      bytes_per_key_cell(ours), own_gbps_cell(ours)])
    if not cells:
        return None, ratios
    return markdown_table(device_headers(ours_name), cells, _DEVICE_ALIGN), ratios


def device_sentence(ratios: Mapping[Tuple[str, int], float],
                    stage: str = "05") -> Optional[str]:
    """"At 2^28 u32 keys stage 05 runs at 0.57× CUB." when that pair was measured."""
    value = ratios.get((HEADLINE_TYPE, HEADLINE_N))
    if value is None:
        return None
    return (f"At {fmt_n(HEADLINE_N)} {HEADLINE_TYPE} keys stage {stage} runs at "
            f"{fmt_ratio(value)} CUB.\n")


def unconverged(rows: Sequence[Row], group: str) -> bool:
    """Whether a measured row of the group stopped at the time cap."""
    return any(row.group == group and row.ok and not row.converged for row in rows)


def error_lines(rows: Sequence[Row]) -> List[str]:
    """One line per row that reported an error (never a number)."""
    lines = []
    for row in rows:
        if row.error is not None:
            name = "/".join(strip_suffixes(row.name))
            lines.append(f"- **error:** `{name}`: {' '.join(row.error.split())}\n")
    return lines


def provenance(context: Mapping[str, Any], json_link: str) -> str:
    """The "generated, do not edit" line of the block."""
    gpu = str(context.get("sortlab_gpu_name", "unknown GPU"))
    date = str(context.get("date", ""))[:10] or "on an unknown date"
    return (f"*{gpu}, measured {date}. Generated by `make table` from "
            f"[the raw benchmark JSON]({json_link}) — do not edit by hand.*\n")


def readme_block(document: Mapping[str, Any], json_link: str,
                 warn: Optional[TextIO] = None, stage: str = "05") -> str:
    """The whole content of the results:stageNN-cub block of one bench_stageNN JSON (stage 08
    has no block sort: its block holds the device table alone)."""
    rows = parse_rows(document, warn)
    ours_name = f"stage{stage}"
    parts = [provenance(document.get("context", {}), json_link)]
    table, block_ratios = block_table(rows, ours_name)
    if stage == "05":
        parts.append("**Block sort against cub::BlockRadixSort**\n")
    if table is None:
        if stage == "05":
            parts.append("No block sort rows in the JSON.\n")
    else:
        parts.append(table)
        sentence = block_sentence(block_ratios)
        if sentence:
            parts.append(sentence)
        if unconverged(rows, "block"):
            parts.append(UNCONVERGED_NOTE)
    table, device_ratios = device_table(rows, ours_name)
    parts.append("**Device sort against cub::DeviceRadixSort**\n")
    if table is None:
        parts.append("No device sort rows in the JSON.\n")
    else:
        parts.append(table)
        sentence = device_sentence(device_ratios, stage)
        if sentence:
            parts.append(sentence)
        if unconverged(rows, "device"):
            parts.append(UNCONVERGED_NOTE)
    errors = error_lines(rows)
    if errors:
        parts.append("Benchmarks that reported an error (no number is shown for them):\n\n"
                     + "".join(errors))
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Files


def json_copy_path(results_dir: str, document: Mapping[str, Any], stage: str = "05") -> str:
    """<results-dir>/<gpu_file_name>-stage05-cub.json."""
    gpu = str(document.get("context", {}).get("sortlab_gpu_file_name", "unknown-gpu"))
    return os.path.join(results_dir, gpu + json_suffix(stage))


def expected_block(document: Mapping[str, Any], readme_path: str, copy_path: str,
                   warn: Optional[TextIO] = None, stage: str = "05") -> str:
    """The block as the README at readme_path should hold it, linking to copy_path."""
    return readme_block(document, link(copy_path, os.path.dirname(readme_path)), warn, stage)


def read_bytes(path: str) -> Optional[bytes]:
    """A file's bytes, None when it does not exist."""
    if not os.path.exists(path):
        return None
    with open(path, "rb") as handle:
        return handle.read()


def has_markers(path: str, name: str = BLOCK_NAME) -> bool:
    """Whether the file holds the block's begin and end markers, in that order."""
    with open(path, encoding="utf-8") as handle:
        return replace_block(handle.read(), name, "") is not None


def drift(source: str, copy_path: str, readme_path: Optional[str], block: str,
          name: str = BLOCK_NAME) -> List[str]:
    """The committed files that differ from what the JSON at source regenerates (the JSON copy
    and the README block; readme_path None: the copy only, for a GPU the READMEs do not show);
    empty when nothing drifted. A README without the markers is not drift (the script leaves
    such a file alone); a missing README or copy is."""
    problems = []
    if os.path.abspath(source) != os.path.abspath(copy_path):
        committed = read_bytes(copy_path)
        if committed is None:
            problems.append(f"{copy_path}: missing")
        elif committed != read_bytes(source):
            problems.append(f"{copy_path}: differs from {source}")
    if readme_path is None:
        return problems
    if not os.path.exists(readme_path):
        problems.append(f"{readme_path}: missing")
        return problems
    with open(readme_path, encoding="utf-8") as handle:
        text = handle.read()
    regenerated = replace_block(text, name, block)
    if regenerated is not None and regenerated != text:
        problems.append(f"{readme_path}: block {name} differs from its regeneration "
                        "from the JSON")
    return problems


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", required=True, help="bench_stageNN's --benchmark_out file")
    parser.add_argument("--stage", default="05", choices=sorted(STAGE_READMES),
                        help="whose comparison: 05 (block and device rows) or 08 (device rows)")
    parser.add_argument("--results-dir", default="docs/results",
                        help="where the JSON copy goes")
    parser.add_argument("--repo-root", default=".", help="where chapters/ is")
    parser.add_argument("--readme-gpu", default="H100",
                        help="rewrite (or check) the README block only when the JSON's GPU name "
                             "contains this (the READMEs show H100 numbers, as results_table.py's "
                             "option of the same name); '' for any GPU")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when the committed README block or JSON "
                             "copy differs from what the JSON regenerates")
    args = parser.parse_args(argv)

    document = load_json(args.json)
    name = block_name(args.stage)
    copy_path = json_copy_path(args.results_dir, document, args.stage)
    readme_path = os.path.join(args.repo_root, STAGE_READMES[args.stage])
    block = expected_block(document, readme_path, copy_path, stage=args.stage)
    gpu = str(document.get("context", {}).get("sortlab_gpu_name", ""))
    readme_wanted = not args.readme_gpu or args.readme_gpu.lower() in gpu.lower()

    if args.check:
        problems = drift(args.json, copy_path, readme_path if readme_wanted else None, block,
                         name)
        if readme_wanted and os.path.exists(readme_path) and not has_markers(readme_path, name):
            print(f"{PROG}: {readme_path}: no {marker(name, False)} / "
                  f"{marker(name, True)} markers, block not checked", file=sys.stderr)
        for problem in problems:
            print(f"{PROG}: DRIFT: {problem}", file=sys.stderr)
        if problems:
            print(f"{PROG}: regenerate with `make table` (or rerun {PROG}.py on the committed "
                  "JSON) and commit the result", file=sys.stderr)
            return 1
        print(f"{PROG}: the README block and the JSON copy match the JSON")
        return 0

    os.makedirs(args.results_dir, exist_ok=True)
    copy_raw(args.json, copy_path)
    print(f"{PROG}: wrote {copy_path}")
    if not readme_wanted:
        print(f"{PROG}: {readme_path} left alone: it shows {args.readme_gpu} results and this is "
              f"{gpu} (pass --readme-gpu '' to rewrite it anyway)")
        return 0
    for message in update_file_blocks(readme_path, {name: block}):
        print(f"{PROG}: {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
