#!/usr/bin/env python3
"""Records the GPU's state (nvidia-smi / NVML) before or after `make table`'s run, so the results
page can say under which clocks, power limit, temperature and load its numbers were measured.

    gpu_state.py --out build/table/gpu_state.json --phase before
    gpu_state.py --out build/table/gpu_state.json --phase after

The file is a Google-Benchmark-shaped document with no benchmarks and the state in its context
(``nvidia_smi_before`` / ``nvidia_smi_after``: field -> value with units), so results_table.py
merges it like the other JSON. A field this nvidia-smi does not know is left out; without
nvidia-smi the phase records why.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Callable, Dict, List, Optional, Sequence

# What is asked of nvidia-smi (--query-gpu names), in the order the page shows them.
FIELDS = ("name", "driver_version", "pstate", "clocks.sm", "clocks.mem", "clocks.max.sm",
          "clocks.max.mem", "power.limit", "power.draw", "temperature.gpu", "utilization.gpu",
          "memory.used", "compute_mode")

Runner = Callable[[List[str]], Optional[str]]


def run_command(command: List[str]) -> Optional[str]:
    """stdout of command, or None when it cannot run or fails."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout if result.returncode == 0 else None


def parse_row(fields: Sequence[str], line: str) -> Dict[str, str]:
    """One CSV row of `nvidia-smi --query-gpu=... --format=csv,noheader` as field -> value."""
    values = [value.strip() for value in line.split(",")]
    if len(values) != len(fields):
        return {}
    return {field: value for field, value in zip(fields, values)
            if value and not value.startswith("[N/A") and value != "N/A"}


def query(nvidia_smi: str, runner: Runner = run_command, gpu: int = 0) -> Dict[str, str]:
    """The FIELDS of one GPU; fields this nvidia-smi rejects are asked one by one and dropped."""
    def ask(fields: Sequence[str]) -> Optional[Dict[str, str]]:
        output = runner([nvidia_smi, f"--id={gpu}", "--query-gpu=" + ",".join(fields),
                         "--format=csv,noheader"])
        if output is None or not output.strip():
            return None
        return parse_row(fields, output.strip().splitlines()[0])

    state = ask(FIELDS)
    if state is not None:
        return state
    state = {}
    for field in FIELDS:
        state.update(ask([field]) or {})
    return state


def compute_processes(nvidia_smi: str, runner: Runner = run_command, gpu: int = 0) -> str:
    """The other compute processes on the GPU ("none", or "pid name memory; ..."): a load that
    would share the GPU with the run."""
    output = runner([nvidia_smi, f"--id={gpu}", "--query-compute-apps=pid,process_name,used_memory",
                     "--format=csv,noheader"])
    if output is None:
        return ""
    apps = [" ".join(part.strip() for part in line.split(",")) for line in output.splitlines()
            if line.strip()]
    return "; ".join(apps) if apps else "none"


def main(argv: Optional[Sequence[str]] = None, runner: Runner = run_command) -> int:
    """Command-line entry point; adds one phase to the output file (creating it)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="JSON file to create or extend")
    parser.add_argument("--phase", choices=("before", "after"), required=True)
    parser.add_argument("--nvidia-smi", default=os.environ.get("NVIDIA_SMI", "nvidia-smi"))
    args = parser.parse_args(argv)
    document = {"context": {}, "benchmarks": []}
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as handle:
            document = json.load(handle)
    state = query(args.nvidia_smi, runner)
    if not state:
        state = {"error": f"'{args.nvidia_smi}' gave no answer"}
    else:
        processes = compute_processes(args.nvidia_smi, runner)
        if processes:
            state["compute_processes"] = processes
    document.setdefault("context", {})[f"nvidia_smi_{args.phase}"] = state
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, sort_keys=True)
        handle.write("\n")
    print(f"gpu_state: {args.phase}: " + ", ".join(f"{k} {v}" for k, v in state.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
