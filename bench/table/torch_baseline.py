#!/usr/bin/env python3
"""torch.sort and torch.topk baselines for `make table`, written as Google Benchmark JSON.

Times, when PyTorch imports and sees a CUDA device:

* ``torch.sort`` of int32 and float32 keys (keys: the default unstable sort; pairs:
  ``stable=True``, whose returned indices are the values, as sortlab's pair benchmarks sort the
  values 0..n-1). torch.sort always returns int64 indices, so even its keys-only sort writes
  8 bytes per key more than a keys-only radix sort;
* ``torch.sort(dim=-1, stable=True)`` of float32 rows of S values (the segmented sort of stage 06:
  n = 2^26 values cut into rows = n // S rows, so for an S that does not divide n it sorts
  rows × S items, e.g. 67,108,000 for S = 1000), for issue 17's S = 8 ... 2^20 (skip with
  --no-segsort);
* ``torch.topk`` of float32 matrices (largest k of every row) for a few rows × cols × k shapes;
* ``torch.topk`` on issue 18's LLM sampling shapes: batch 1, 16, 64, 128, 256 × vocabulary 32000,
  128256, 151936, k = 1, 50, 1024, 2048, float32 and bfloat16 logits (bench_stage07's
  ``--set=llm``; skip with --no-llm). A float32 shape already among the shapes above is timed
  once, there;
* ``torch.topk`` on issue 18's other two sets, float32 only (bench_stage07's ``--set=rows`` and
  ``--set=long``; skip both with --no-rows-long): 2^26 values as rows of 128, 1000, 4096, 65536
  and 2^20 with k = 1, 8, 64, 256 where k < row length, and one row of 2^28 with k = 1, 32, 1024,
  65536 and 1% of the row; again a shape timed above is timed once, there.

Timing follows bench/timing (issue 13), so torch is charged for its GPU work only, not for Python
dispatch or the caching allocator: outputs are allocated once (``out=``), each input set's call is
captured once as a CUDA graph and replayed between two ``torch.cuda.Event``s (when capture fails,
the call itself), and both are queued behind ``torch.cuda._sleep``, which holds the stream while
Python dispatches, as bench/timing's blocking kernel does (no launch gap is timed);
the L2 is flushed before every sample by reading a 2× L2 buffer (a sum of it, so the L2 is left
clean and no timed call pays for writing back the flush: docs/results/README.md, "The L2
flush"); samples are taken until the robust relative noise (1.4826 × MAD / median) is at most
1%, at least 10 and at most --max-time seconds; rotating input sets exceed 2× the L2 at every
size. Keys are random 32-bit patterns (float32 keys are those same bit patterns, NaNs and
infinities included, as in sortlab's f32 benchmarks).

The output uses the counters of bench_support (n, ands, median_ms, min_ms, p10_ms, p90_ms,
samples, noise, converged, keys_per_s, GBps, bytes) and
names such as ``torch-sort/i32/keys/n:16777216/ands:0``,
``torch-segsort/f32/pairs/seg:1000/n:67108864/ands:0`` (n the nominal 2^26 of stage 06's rows; the
counter ``items`` holds the rows × S items really sorted, which keys_per_s and bytes count) and
``torch-topk/f32/rows:4096/cols:32768/k:64`` (``torch-topk/bf16/...`` for bfloat16 logits), so
results_table.py reads it like bench_all's JSON.
Without PyTorch or CUDA it writes a JSON with an empty benchmark list and says why.
"""

from __future__ import annotations

import argparse
import datetime
import json
import socket
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

# Sizes used when no bench_all JSON is given (bench_all's ladder and pairs sizes, log2 n).
DEFAULT_KEYS_LOG2 = (16, 20, 24, 28)
DEFAULT_PAIRS_LOG2 = (20, 24)

# torch.sort(dim=-1) of rows of S values, stage 06's table (issue 17): n = 2^SEGSORT_LOG2_N values
# cut into n // S rows of every S in SEGSORT_SIZES (bench_stage06's kSegmentSizes).
SEGSORT_LOG2_N = 26
SEGSORT_SIZES: Tuple[int, ...] = (8, 32, 128, 1000, 4096, 65536, 1 << 20)

# torch.topk shapes (rows, cols, k): many short rows, a middle shape, one long row, then the rest
# of bench_stage07's quick set (kQuickShapes), so that every row of stage 07's table has its
# torch.topk time from the same run.
TOPK_SHAPES: Tuple[Tuple[int, int, int], ...] = (
    (65536, 1024, 16),
    (4096, 32768, 64),
    (1, 1 << 24, 1024),
    (1, 1 << 28, 1024),
    (64, 1 << 20, 64),
    (16384, 4096, 8),
    (1, 128256, 2048),
    (128, 128256, 50),
)

# Issue 18's LLM sampling shapes, bench_stage07's llm_shapes() (--set=llm): every batch (rows) ×
# vocabulary (cols) × k, for float32 and bfloat16 logits (LLM_TYPES). make table runs the stage 07
# side with --sorted=1, torch.topk's default, and results_table.py pairs the two by name.
LLM_BATCHES: Tuple[int, ...] = (1, 16, 64, 128, 256)
LLM_VOCABS: Tuple[int, ...] = (32000, 128256, 151936)
LLM_KS: Tuple[int, ...] = (1, 50, 1024, 2048)
LLM_TYPES: Tuple[str, ...] = ("f32", "bf16")

# Issue 18's rows set, bench_stage07's row_shapes() (--set=rows): 2^ROWS_LOG2_N values as n // C
# whole rows of every C in ROWS_COLS, every k of ROWS_KS below C; and its long set, long_shapes()
# (--set=long): one row of 2^LONG_LOG2_N values, every k of LONG_KS (the last is 1% of the row).
# float32 only, largest, sorted (torch.topk's default): make table's rows and long runs of stage
# 07, which results_table.py pairs with these by name.
ROWS_LOG2_N = 26
ROWS_COLS: Tuple[int, ...] = (128, 1000, 4096, 65536, 1 << 20)
ROWS_KS: Tuple[int, ...] = (1, 8, 64, 256)
LONG_LOG2_N = 28
LONG_KS: Tuple[int, ...] = (1, 32, 1024, 65536, (1 << LONG_LOG2_N) // 100)

# Bytes one element of each output/input takes.
KEY_BYTES = 4
VALUE_BYTES = {"f32": 4, "bf16": 2}  # a top-k input's values, and its output values
INDEX_BYTES = 8  # torch returns int64 indices

WARMUP_CALLS = 2

# GPU cycles torch.cuda._sleep holds the stream before every timed call (about 1 ms at the H100's
# and H200's 1.98 GHz): far longer than Python takes to queue the start event, a graph replay or
# an eager call, and the stop event.
HOLD_CYCLES = 2_000_000
# Host seconds within which the start event, the work and the stop event must be queued after the
# sleep for the hold surely to cover them: half the hold at 2 GHz (it lasts longer at lower
# clocks). A sample queued later is kept but counted (the context's torch_hold), as bench/timing
# reports a blocking kernel that timed out.
HOLD_HOST_BUDGET_S = 0.5e-3

# The stopping rule of bench/timing/stopping_rule.hpp, with its defaults.
MIN_SAMPLES = 10
MAX_SAMPLES = 10000
MAX_RELATIVE_NOISE = 0.01
DEFAULT_MAX_TIME_S = 0.5

# bench/timing/buffer_plan.hpp: rotating inputs exceed this many L2s; the flush reads this many.
ROTATING_L2_MULTIPLE = 2
FLUSH_L2_MULTIPLE = 2


def percentile(sorted_samples: Sequence[float], fraction: float) -> float:
    """The fraction quantile of ascending samples, interpolated linearly between the closest
    ranks (NumPy's default; bench/timing/sample_statistics.cpp does the same)."""
    if not sorted_samples:
        raise ValueError("percentile: no samples")
    rank = fraction * (len(sorted_samples) - 1)
    below = int(rank)
    above = min(below + 1, len(sorted_samples) - 1)
    return sorted_samples[below] + (rank - below) * (sorted_samples[above] -
                                                      sorted_samples[below])


def robust_relative_noise(samples: Sequence[float]) -> float:
    """1.4826 × median absolute deviation / median (0 for fewer than two samples)."""
    if len(samples) < 2:
        return 0.0
    median = statistics.median(samples)
    if median == 0:
        return 0.0
    return 1.4826 * statistics.median(abs(x - median) for x in samples) / abs(median)


def should_stop(samples: Sequence[float], elapsed_s: float, max_time_s: float) -> bool:
    """The stopping rule: at least MIN_SAMPLES, then noise <= MAX_RELATIVE_NOISE, or the time or
    sample cap."""
    if len(samples) < MIN_SAMPLES:
        return False
    return (robust_relative_noise(samples) <= MAX_RELATIVE_NOISE or len(samples) >= MAX_SAMPLES
            or elapsed_s >= max_time_s)


def queued_within_hold(queued_seconds: float) -> bool:
    """Whether a sample's start event, work and stop event were queued soon enough after the
    stream-holding sleep (HOLD_HOST_BUDGET_S) that no launch gap can have been timed."""
    return queued_seconds <= HOLD_HOST_BUDGET_S


def rotating_count(bytes_per_input: int, l2_bytes: int, budget_bytes: int) -> int:
    """Input sets that together exceed ROTATING_L2_MULTIPLE × L2, bounded by the memory budget
    (bench/timing/buffer_plan.cpp's rotating_buffer_count)."""
    per_input = max(1, bytes_per_input)
    wanted = ROTATING_L2_MULTIPLE * l2_bytes // per_input + 1
    return max(1, min(wanted, budget_bytes // per_input))


def benchmark_entry(name: str, label: str, n: int, samples_ms: Sequence[float],
                    bytes_moved: float, ands: int = 0,
                    items: Optional[int] = None) -> Dict[str, Any]:
    """One Google-Benchmark-format entry from the timed samples (milliseconds). items, when
    given, is the count really sorted where it differs from the nominal n (a segmented sort of
    whole rows): it becomes the counter ``items``, and keys_per_s counts it instead of n."""
    ordered = sorted(samples_ms)
    median_ms = percentile(ordered, 0.5)
    seconds = median_ms * 1e-3
    noise = robust_relative_noise(ordered)
    entry = {
        "name": name,
        "run_name": name,
        "run_type": "iteration",
        "repetitions": 1,
        "repetition_index": 0,
        "threads": 1,
        "iterations": len(samples_ms),
        "real_time": median_ms,
        "cpu_time": median_ms,
        "time_unit": "ms",
        "label": label,
        "n": float(n),
        "ands": float(ands),
        "median_ms": median_ms,
        "min_ms": ordered[0],
        "p10_ms": percentile(ordered, 0.1),
        "p90_ms": percentile(ordered, 0.9),
        "samples": float(len(ordered)),
        "noise": noise,
        "converged": 1.0 if noise <= MAX_RELATIVE_NOISE else 0.0,
        "keys_per_s": (n if items is None else items) / seconds,
        "bytes": float(bytes_moved),
        "GBps": bytes_moved / seconds * 1e-9,
    }
    if items is not None:
        entry["items"] = float(items)
    return entry


def document(context: Dict[str, Any], benchmarks: List[Dict[str, Any]]) -> Dict[str, Any]:
    """A Google-Benchmark-format JSON document."""
    base = {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": "bench/table/torch_baseline.py",
    }
    base.update(context)
    return {"context": base, "benchmarks": benchmarks}


def sort_name(key_type: str, pairs: bool, n: int) -> str:
    """Benchmark name of a torch.sort run."""
    return f"torch-sort/{key_type}/{'pairs' if pairs else 'keys'}/n:{n}/ands:0"


def segsort_name(segment: int, n: int = 1 << SEGSORT_LOG2_N) -> str:
    """Benchmark name of a torch.sort(dim=-1) of rows of segment values, n the nominal count
    (stage 06's rows name the same n, so results_table.py puts them side by side)."""
    return f"torch-segsort/f32/pairs/seg:{segment}/n:{n}/ands:0"


def segsort_items(segment: int, n: int = 1 << SEGSORT_LOG2_N) -> int:
    """Items a segmented torch.sort really sorts: n // segment whole rows of segment values."""
    return n // segment * segment


def topk_name(rows: int, cols: int, k: int, key_type: str = "f32") -> str:
    """Benchmark name of a torch.topk run (key_type "f32" or "bf16": bench_stage07's names)."""
    return f"torch-topk/{key_type}/rows:{rows}/cols:{cols}/k:{k}"


def llm_topk_shapes() -> List[Tuple[str, int, int, int]]:
    """(key_type, rows, cols, k) of the LLM sampling shapes, by type, then vocabulary, batch and
    k (bench_stage07's order), leaving out the float32 shapes TOPK_SHAPES already times (their
    names would repeat)."""
    return [(key_type, rows, cols, k)
            for key_type in LLM_TYPES for cols in LLM_VOCABS for rows in LLM_BATCHES
            for k in LLM_KS
            if not (key_type == "f32" and (rows, cols, k) in TOPK_SHAPES)]


def rows_long_topk_shapes() -> List[Tuple[str, int, int, int]]:
    """(key_type, rows, cols, k) of the rows set, then the long set, in bench_stage07's order,
    leaving out the shapes TOPK_SHAPES already times (their names would repeat: 64 × 2^20 k=64,
    16384 × 4096 k=8 and 1 × 2^28 k=1024 are stage 07's quick shapes too)."""
    rows_n = 1 << ROWS_LOG2_N
    shapes = [(rows_n // cols, cols, k) for cols in ROWS_COLS for k in ROWS_KS if k < cols]
    shapes += [(1, 1 << LONG_LOG2_N, k) for k in LONG_KS]
    return [("f32", rows, cols, k) for rows, cols, k in shapes
            if (rows, cols, k) not in TOPK_SHAPES]


def sort_bytes(n: int) -> float:
    """What torch.sort must move at least: read the keys, write the keys and int64 indices."""
    return float(n * (KEY_BYTES + KEY_BYTES + INDEX_BYTES))


def segsort_bytes(segment: int, n: int = 1 << SEGSORT_LOG2_N) -> float:
    """What a segmented torch.sort must move at least: read the keys of its whole rows, write
    them and their int64 indices (sort_bytes of the items it sorts)."""
    return sort_bytes(segsort_items(segment, n))


def topk_bytes(rows: int, cols: int, k: int, key_type: str = "f32") -> float:
    """What torch.topk must move at least: read the matrix, write k values (of the input's type:
    VALUE_BYTES) and int64 indices per row."""
    value = VALUE_BYTES[key_type]
    return float(rows * cols * value + rows * k * (value + INDEX_BYTES))


def sizes_from_bench_json(path: Optional[str]) -> Tuple[List[int], List[int]]:
    """The n values of CUB's (stage 00) u32 keys and pairs runs in bench_all's JSON, so torch
    runs on the same sizes; the defaults when the file is missing or has none."""
    keys = [1 << k for k in DEFAULT_KEYS_LOG2]
    pairs = [1 << k for k in DEFAULT_PAIRS_LOG2]
    if not path:
        return keys, pairs
    try:
        with open(path, encoding="utf-8") as handle:
            benchmarks = json.load(handle).get("benchmarks", [])
    except (OSError, json.JSONDecodeError):
        return keys, pairs
    found: Dict[str, set] = {"keys": set(), "pairs": set()}
    for bench in benchmarks:
        parts = str(bench.get("name", "")).split("/")
        if len(parts) > 3 and parts[0] == "stage00" and parts[1] == "u32" and "ands:0" in parts:
            if parts[2] in found and "n" in bench:
                found[parts[2]].add(int(bench["n"]))
    return sorted(found["keys"]) or keys, sorted(found["pairs"]) or pairs


def input_set_text(keys: Sequence[int], pairs: Sequence[int],
                   segsort_sizes: Sequence[int] = (), llm: bool = False,
                   rows_long: bool = False) -> str:
    """The torch part of the input set, for the JSON context (';' separates items); the
    segmented sorts only when segsort_sizes names some, the LLM sampling shapes when llm, the
    rows and long sets when rows_long."""
    def powers(values: Sequence[int]) -> str:
        return " ".join(f"2^{v.bit_length() - 1}" for v in values)

    def size(value: int) -> str:
        return f"2^{value.bit_length() - 1}" if value >= 1 << 20 and value & (value - 1) == 0 \
            else str(value)

    shapes = ", ".join(f"{r}×{c} k={k}" for r, c, k in TOPK_SHAPES)
    segsort = (f"torch.sort(dim=-1, stable=True), values = indices: f32 rows of S values, "
               f"n // S rows of n = 2^{SEGSORT_LOG2_N} (rows × S items), "
               f"S = {' '.join(size(s) for s in segsort_sizes)}; " if segsort_sizes else "")
    return (f"torch.sort: i32,f32 keys, n = {powers(keys)}; "
            f"torch.sort(stable=True), values = indices: i32,f32 pairs, n = {powers(pairs)}; "
            + segsort + f"torch.topk (largest, f32 rows × cols): {shapes}"
            + (f"; torch.topk (largest, sorted) on issue 18's LLM sampling shapes, "
               f"{' and '.join(LLM_TYPES)} logits uniform in [0, 1): batch "
               f"{' '.join(map(str, LLM_BATCHES))} × vocabulary "
               f"{' '.join(map(str, LLM_VOCABS))}, k = {' '.join(map(str, LLM_KS))}"
               if llm else "")
            + (f"; torch.topk (largest, sorted) on issue 18's rows set, f32: 2^{ROWS_LOG2_N} "
               f"values as rows of {' '.join(size(c) for c in ROWS_COLS)}, k = "
               f"{' '.join(map(str, ROWS_KS))} where k < row length; torch.topk (largest, "
               f"sorted) on issue 18's long set, f32: one row of 2^{LONG_LOG2_N}, k = "
               f"{' '.join(map(str, LONG_KS))}"
               if rows_long else ""))


def torch_unavailable_reason() -> Optional[str]:
    """Why torch cannot run here (None when it can)."""
    try:
        import torch  # noqa: PLC0415 (optional dependency)
    except ImportError as error:
        return f"PyTorch is not importable ({error})"
    if not torch.cuda.is_available():
        return f"PyTorch {torch.__version__} sees no CUDA device"
    return None


def run(keys_sizes: Sequence[int], pairs_sizes: Sequence[int], max_time_s: float,
        progress: Callable[[str], None], segsort_sizes: Sequence[int] = SEGSORT_SIZES,
        llm: bool = True, rows_long: bool = True
        ) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """Runs every torch case on the GPU (the segmented sorts of segsort_sizes: none when
    empty; the LLM sampling shapes when llm; the rows and long sets when rows_long); returns
    (context, benchmark entries)."""
    import torch  # noqa: PLC0415

    device = torch.device("cuda")
    properties = torch.cuda.get_device_properties(device)
    l2_bytes = int(getattr(properties, "L2_cache_size", 50 << 20) or (50 << 20))
    # Read, not written, before every sample (bench/timing/l2_flush.hpp, FlushMethod::kRead).
    flush_words = torch.zeros(FLUSH_L2_MULTIPLE * l2_bytes // 8, dtype=torch.int64, device=device)
    flush_sink = torch.zeros((), dtype=torch.int64, device=device)
    generator = torch.Generator(device=device)
    generator.manual_seed(1234)
    modes_used: Dict[str, int] = {}
    # Samples queued later than HOLD_HOST_BUDGET_S after the sleep, and all samples.
    hold_counts = {"late": 0, "all": 0}

    def random_bits(count: int) -> "torch.Tensor":
        """Uniform random 32-bit patterns as int32."""
        return torch.randint(-(1 << 31), 1 << 31, (count,), dtype=torch.int32, device=device,
                             generator=generator)

    def input_budget() -> int:
        """Device memory the rotating inputs may take: the free memory less a reserve."""
        free, _ = torch.cuda.mem_get_info(device)
        return max(0, free - max(1 << 30, free // 10))

    def time_calls(inputs: List["torch.Tensor"], call: Callable[["torch.Tensor"], Any]
                   ) -> List[float]:
        """Milliseconds of each timed call (one per sample, rotating over the inputs), each
        replayed from a CUDA graph (or called directly when capture fails) after an L2 flush,
        queued behind torch.cuda._sleep."""
        for i in range(WARMUP_CALLS):
            call(inputs[i % len(inputs)])
        torch.cuda.synchronize()
        graphs: List[Optional["torch.cuda.CUDAGraph"]] = [None] * len(inputs)
        use_graphs = True
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples: List[float] = []
        replays = eager_calls = 0
        began = time.perf_counter()
        while not should_stop(samples, time.perf_counter() - began, max_time_s):
            slot = len(samples) % len(inputs)
            if use_graphs and graphs[slot] is None:
                try:
                    graph = torch.cuda.CUDAGraph()
                    pool = graphs[0].pool() if graphs[0] is not None else None
                    with torch.cuda.graph(graph, pool=pool):
                        call(inputs[slot])
                    graphs[slot] = graph
                except RuntimeError:
                    use_graphs = False  # e.g. an op that synchronises: hold the stream instead
                    torch.cuda.synchronize()
            torch.sum(flush_words, dim=0, out=flush_sink)
            # Both ways hold the stream (bench/timing's blocking kernel does the same for the
            # C++ benchmarks): the start event, the work and the stop event are queued behind
            # the sleep, so the work starts as soon as the start event is recorded. Without the
            # hold, whenever the flush finished before Python had queued the replay, the gap was
            # timed: at batch 1 (30-60 us calls) some runs' medians rose 10-50% above others'.
            queued_from = time.perf_counter()
            torch.cuda._sleep(HOLD_CYCLES)
            start.record()
            if use_graphs:
                graphs[slot].replay()
                replays += 1
            else:
                call(inputs[slot])
                eager_calls += 1
            stop.record()
            hold_counts["all"] += 1
            if not queued_within_hold(time.perf_counter() - queued_from):
                hold_counts["late"] += 1
            stop.synchronize()
            samples.append(start.elapsed_time(stop))
        mode = ("sleep-held graph" if eager_calls == 0 else
                "sleep-held events" if replays == 0 else "sleep-held graph, then events")
        modes_used[mode] = modes_used.get(mode, 0) + 1
        return samples

    def rotating(make: Callable[[], "torch.Tensor"], bytes_each: int) -> List["torch.Tensor"]:
        """Enough inputs that together they exceed 2× the L2, bounded by free memory."""
        return [make() for _ in range(rotating_count(bytes_each, l2_bytes, input_budget()))]

    cases: List[Tuple[str, Callable[[], Dict[str, Any]]]] = []
    for key_type, dtype in (("i32", torch.int32), ("f32", torch.float32)):
        for pairs, sizes in ((False, keys_sizes), (True, pairs_sizes)):
            for n in sizes:
                def sort_case(n: int = n, pairs: bool = pairs, key_type: str = key_type,
                              dtype: "torch.dtype" = dtype) -> Dict[str, Any]:
                    values = torch.empty(n, dtype=dtype, device=device)
                    indices = torch.empty(n, dtype=torch.int64, device=device)
                    inputs = rotating(lambda: random_bits(n).view(dtype), n * KEY_BYTES)
                    samples = time_calls(inputs, lambda x: torch.sort(
                        x, stable=pairs, out=(values, indices)))
                    label = (f"torch.sort(stable=True) of {dtype}: values = the int64 indices"
                             if pairs else
                             f"torch.sort of {dtype} (unstable; returns int64 indices too)")
                    return benchmark_entry(sort_name(key_type, pairs, n), label, n, samples,
                                           sort_bytes(n))
                cases.append((sort_name(key_type, pairs, n), sort_case))
    for segment in segsort_sizes:
        def segsort_case(segment: int = segment) -> Dict[str, Any]:
            n = 1 << SEGSORT_LOG2_N
            rows, items = n // segment, segsort_items(segment)
            values = torch.empty((rows, segment), dtype=torch.float32, device=device)
            indices = torch.empty((rows, segment), dtype=torch.int64, device=device)
            inputs = rotating(lambda: random_bits(items).view(torch.float32), items * KEY_BYTES)
            samples = time_calls(inputs, lambda x: torch.sort(
                x.view(rows, segment), dim=-1, stable=True, out=(values, indices)))
            label = (f"torch.sort(dim=-1, stable=True) of {rows} rows of {segment} float32 "
                     f"values: {items:,} items sorted (counter items; n is the nominal "
                     f"2^{SEGSORT_LOG2_N}), values = the int64 indices")
            return benchmark_entry(segsort_name(segment), label, n, samples,
                                   segsort_bytes(segment), items=items)
        cases.append((segsort_name(segment), segsort_case))
    topk_dtypes = {"f32": torch.float32, "bf16": torch.bfloat16}
    topk_shapes = [("f32", rows, cols, k) for rows, cols, k in TOPK_SHAPES]
    if llm:
        topk_shapes += llm_topk_shapes()
    if rows_long:
        topk_shapes += rows_long_topk_shapes()
    for key_type, rows, cols, k in topk_shapes:
        def topk_case(key_type: str = key_type, rows: int = rows, cols: int = cols,
                      k: int = k) -> Dict[str, Any]:
            dtype = topk_dtypes[key_type]
            values = torch.empty((rows, k), dtype=dtype, device=device)
            indices = torch.empty((rows, k), dtype=torch.int64, device=device)
            # Uniform in [0, 1) (bfloat16: the float32 draw rounded), as bench_stage07's inputs.
            inputs = rotating(lambda: torch.rand((rows, cols), device=device,
                                                 generator=generator).to(dtype),
                              rows * cols * VALUE_BYTES[key_type])
            samples = time_calls(inputs, lambda x: torch.topk(x, k, dim=1,
                                                              out=(values, indices)))
            return benchmark_entry(topk_name(rows, cols, k, key_type),
                                   f"torch.topk(k={k}, dim=1, largest) of "
                                   f"{'bfloat16' if key_type == 'bf16' else 'float32'} rows",
                                   rows * cols, samples, topk_bytes(rows, cols, k, key_type))
        cases.append((topk_name(rows, cols, k, key_type), topk_case))

    entries = []
    for index, (name, case) in enumerate(cases, start=1):
        progress(f"[torch {index}/{len(cases)}] {name}")
        try:
            entry = case()
        except RuntimeError as error:  # e.g. out of memory: record it, keep going
            entry = {"name": name, "run_name": name, "run_type": "iteration",
                     "error_occurred": True, "error_message": str(error).split("\n")[0]}
            progress(f"    failed: {entry['error_message']}")
        else:
            progress(f"    {entry['median_ms']:.4f} ms (p10 {entry['p10_ms']:.4f}, p90 "
                     f"{entry['p90_ms']:.4f}, {int(entry['samples'])} samples), "
                     f"{entry['keys_per_s'] / 1e9:.3g} G/s")
        entries.append(entry)
        torch.cuda.empty_cache()
    context = {
        "torch_status": "ran",
        "torch_version": torch.__version__,
        "torch_cuda": str(torch.version.cuda),
        "torch_gpu_name": torch.cuda.get_device_name(device),
        "torch_input_set": input_set_text(keys_sizes, pairs_sizes, segsort_sizes, llm,
                                          rows_long),
        "torch_timing": ", ".join(f"{mode}: {count} cases" for mode, count in
                                  sorted(modes_used.items())),
        "torch_l2_flush": f"read {FLUSH_L2_MULTIPLE}x L2 before every sample",
        "torch_hold": (f"torch.cuda._sleep({HOLD_CYCLES}) before every sample; "
                       f"{hold_counts['late']} of {hold_counts['all']} samples queued more than "
                       f"{HOLD_HOST_BUDGET_S * 1e3:g} ms after it"),
    }
    return context, entries


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry point; returns the exit status (0 also when torch is unavailable)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="JSON file to write")
    parser.add_argument("--like", help="bench_all's JSON: run torch.sort on the same sizes")
    parser.add_argument("--max-time", "--min-time", type=float, default=DEFAULT_MAX_TIME_S,
                        dest="max_time",
                        help="cap on the seconds of sampling per case (at least "
                             f"{MIN_SAMPLES} samples; --min-time is its old name)")
    parser.add_argument("--no-segsort", action="store_true",
                        help="skip the segmented torch.sort(dim=-1) cases of stage 06's table")
    parser.add_argument("--no-llm", action="store_true",
                        help="skip torch.topk on the LLM sampling shapes of stage 07's llm run")
    parser.add_argument("--no-rows-long", action="store_true",
                        help="skip torch.topk on the shapes of stage 07's rows and long runs")
    args = parser.parse_args(argv)

    reason = torch_unavailable_reason()
    if reason is not None:
        print(f"torch baseline skipped: {reason}")
        result = document({"torch_status": f"skipped: {reason}"}, [])
    else:
        keys_sizes, pairs_sizes = sizes_from_bench_json(args.like)
        context, entries = run(keys_sizes, pairs_sizes, args.max_time,
                               lambda line: print(line, flush=True),
                               () if args.no_segsort else SEGSORT_SIZES,
                               llm=not args.no_llm, rows_long=not args.no_rows_long)
        result = document(context, entries)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=2)
        handle.write("\n")
    print(f"torch baseline: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
