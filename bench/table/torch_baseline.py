#!/usr/bin/env python3
"""torch.sort and torch.topk baselines for `make table`, written as Google Benchmark JSON.

Times, when PyTorch imports and sees a CUDA device:

* ``torch.sort`` of int32 and float32 keys (keys: the default unstable sort; pairs:
  ``stable=True``, whose returned indices are the values, as sortlab's pair benchmarks sort the
  values 0..n-1). torch.sort always returns int64 indices, so even its keys-only sort writes
  8 bytes per key more than a keys-only radix sort;
* ``torch.topk`` of float32 matrices (largest k of every row) for a few rows × cols × k shapes.

Timing follows bench/bench_support.cu: CUDA events around each call, two warm-up calls, the median
over repetitions (at least 5, until --min-time seconds are timed), rotating inputs that together
exceed 4× the L2 cache. Keys are random 32-bit patterns (float32 keys are those same bit patterns,
NaNs and infinities included, as in sortlab's f32 benchmarks).

The output uses the counters of bench_support (n, ands, median_ms, keys_per_s, GBps, bytes) and
names such as ``torch-sort/i32/keys/n:16777216/ands:0`` and
``torch-topk/f32/rows:4096/cols:32768/k:64``, so results_table.py reads it like bench_all's JSON.
Without PyTorch or CUDA it writes a JSON with an empty benchmark list and says why.
"""

from __future__ import annotations

import argparse
import datetime
import json
import socket
import statistics
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

# Sizes used when no bench_all JSON is given (bench_all's ladder and pairs sizes, log2 n).
DEFAULT_KEYS_LOG2 = (16, 20, 24, 28)
DEFAULT_PAIRS_LOG2 = (20, 24)

# torch.topk shapes (rows, cols, k): many short rows, a middle shape, one long row.
TOPK_SHAPES: Tuple[Tuple[int, int, int], ...] = (
    (65536, 1024, 16),
    (4096, 32768, 64),
    (1, 1 << 24, 1024),
)

# Bytes one element of each output/input takes.
KEY_BYTES = 4
INDEX_BYTES = 8  # torch returns int64 indices

WARMUP_CALLS = 2
MIN_REPETITIONS = 5
MAX_REPETITIONS = 1000


def benchmark_entry(name: str, label: str, n: int, samples_ms: Sequence[float],
                    bytes_moved: float, ands: int = 0) -> Dict[str, Any]:
    """One Google-Benchmark-format entry from the timed samples (milliseconds)."""
    median_ms = statistics.median(samples_ms)
    seconds = median_ms * 1e-3
    return {
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
        "keys_per_s": n / seconds,
        "bytes": float(bytes_moved),
        "GBps": bytes_moved / seconds * 1e-9,
    }


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


def topk_name(rows: int, cols: int, k: int) -> str:
    """Benchmark name of a torch.topk run."""
    return f"torch-topk/f32/rows:{rows}/cols:{cols}/k:{k}"


def sort_bytes(n: int) -> float:
    """What torch.sort must move at least: read the keys, write the keys and int64 indices."""
    return float(n * (KEY_BYTES + KEY_BYTES + INDEX_BYTES))


def topk_bytes(rows: int, cols: int, k: int) -> float:
    """What torch.topk must move at least: read the matrix, write k values and indices per row."""
    return float(rows * cols * KEY_BYTES + rows * k * (KEY_BYTES + INDEX_BYTES))


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


def input_set_text(keys: Sequence[int], pairs: Sequence[int]) -> str:
    """The torch part of the input set, for the JSON context (';' separates items)."""
    def powers(values: Sequence[int]) -> str:
        return " ".join(f"2^{v.bit_length() - 1}" for v in values)

    shapes = ", ".join(f"{r}×{c} k={k}" for r, c, k in TOPK_SHAPES)
    return (f"torch.sort: i32,f32 keys, n = {powers(keys)}; "
            f"torch.sort(stable=True), values = indices: i32,f32 pairs, n = {powers(pairs)}; "
            f"torch.topk (largest, f32 rows × cols): {shapes}")


def torch_unavailable_reason() -> Optional[str]:
    """Why torch cannot run here (None when it can)."""
    try:
        import torch  # noqa: PLC0415 (optional dependency)
    except ImportError as error:
        return f"PyTorch is not importable ({error})"
    if not torch.cuda.is_available():
        return f"PyTorch {torch.__version__} sees no CUDA device"
    return None


def run(keys_sizes: Sequence[int], pairs_sizes: Sequence[int], min_time: float,
        progress: Callable[[str], None]) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """Runs every torch case on the GPU; returns (context, benchmark entries)."""
    import torch  # noqa: PLC0415

    device = torch.device("cuda")
    properties = torch.cuda.get_device_properties(device)
    l2_bytes = int(getattr(properties, "L2_cache_size", 50 << 20) or (50 << 20))
    generator = torch.Generator(device=device)
    generator.manual_seed(1234)

    def random_bits(count: int) -> "torch.Tensor":
        """Uniform random 32-bit patterns as int32."""
        return torch.randint(-(1 << 31), 1 << 31, (count,), dtype=torch.int32, device=device,
                             generator=generator)

    def time_calls(inputs: List["torch.Tensor"], call: Callable[["torch.Tensor"], Any]
                   ) -> List[float]:
        """Milliseconds of each timed call, rotating over the inputs."""
        for i in range(WARMUP_CALLS):
            call(inputs[i % len(inputs)])
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples: List[float] = []
        while len(samples) < MAX_REPETITIONS and (
                len(samples) < MIN_REPETITIONS or sum(samples) * 1e-3 < min_time):
            x = inputs[len(samples) % len(inputs)]
            start.record()
            call(x)
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop))
        return samples

    def rotating(make: Callable[[], "torch.Tensor"], bytes_each: int) -> List["torch.Tensor"]:
        """Enough inputs that together they exceed the L2 four times (at most 64)."""
        count = min(64, max(1, -(-4 * l2_bytes // max(1, bytes_each))))
        return [make() for _ in range(count)]

    cases: List[Tuple[str, Callable[[], Dict[str, Any]]]] = []
    for key_type, dtype in (("i32", torch.int32), ("f32", torch.float32)):
        for pairs, sizes in ((False, keys_sizes), (True, pairs_sizes)):
            for n in sizes:
                def sort_case(n: int = n, pairs: bool = pairs, key_type: str = key_type,
                              dtype: "torch.dtype" = dtype) -> Dict[str, Any]:
                    inputs = rotating(lambda: random_bits(n).view(dtype), n * KEY_BYTES)
                    samples = time_calls(inputs, lambda x: torch.sort(x, stable=pairs))
                    label = (f"torch.sort(stable=True) of {dtype}: values = the int64 indices"
                             if pairs else
                             f"torch.sort of {dtype} (unstable; returns int64 indices too)")
                    return benchmark_entry(sort_name(key_type, pairs, n), label, n, samples,
                                           sort_bytes(n))
                cases.append((sort_name(key_type, pairs, n), sort_case))
    for rows, cols, k in TOPK_SHAPES:
        def topk_case(rows: int = rows, cols: int = cols, k: int = k) -> Dict[str, Any]:
            inputs = rotating(lambda: torch.rand((rows, cols), device=device,
                                                 generator=generator), rows * cols * KEY_BYTES)
            samples = time_calls(inputs, lambda x: torch.topk(x, k, dim=1))
            return benchmark_entry(topk_name(rows, cols, k),
                                   f"torch.topk(k={k}, dim=1, largest) of float32 rows",
                                   rows * cols, samples, topk_bytes(rows, cols, k))
        cases.append((topk_name(rows, cols, k), topk_case))

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
            progress(f"    {entry['median_ms']:.3f} ms, {entry['keys_per_s'] / 1e9:.3g} G/s")
        entries.append(entry)
        torch.cuda.empty_cache()
    context = {
        "torch_status": "ran",
        "torch_version": torch.__version__,
        "torch_cuda": str(torch.version.cuda),
        "torch_gpu_name": torch.cuda.get_device_name(device),
        "torch_input_set": input_set_text(keys_sizes, pairs_sizes),
    }
    return context, entries


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry point; returns the exit status (0 also when torch is unavailable)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="JSON file to write")
    parser.add_argument("--like", help="bench_all's JSON: run torch.sort on the same sizes")
    parser.add_argument("--min-time", type=float, default=0.05,
                        help="seconds of timed calls per case (at least 5 calls)")
    args = parser.parse_args(argv)

    reason = torch_unavailable_reason()
    if reason is not None:
        print(f"torch baseline skipped: {reason}")
        result = document({"torch_status": f"skipped: {reason}"}, [])
    else:
        keys_sizes, pairs_sizes = sizes_from_bench_json(args.like)
        context, entries = run(keys_sizes, pairs_sizes, args.min_time,
                               lambda line: print(line, flush=True))
        result = document(context, entries)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=2)
        handle.write("\n")
    print(f"torch baseline: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
