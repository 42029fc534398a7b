#!/usr/bin/env bash
# `make table`: measure every stage and baseline on one fixed input set and write
# docs/results/<gpu>.md, the raw Google Benchmark JSON, the GPU's state before and after the run
# (gpu_state.py: clocks, power limit, temperature, load) and the G keys/s plot; then refresh the
# README blocks (results_table.py). What is measured is defined in code (bench/table/bench_all.cpp
# and torch_baseline.py) and described in docs/results/README.md; nothing here is typed by hand.
#
#   bash bench/table/make_table.sh [build-dir]        (or: make table BUILD=build)
#
# Environment: CUDA_ARCH (default 90) for a fresh configure, MAX_TIME (cap on the seconds of
# sampling per benchmark, default 0.5; each still takes at least 10 samples, and stops earlier
# once their noise is under 1%), TIMING (blocking, graph or events; default blocking),
# BENCH_FILTER (a --benchmark_filter regex, for a quick partial run), NVIDIA_SMI (the nvidia-smi
# to ask; tests point it at a missing command).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_arg=${1:-build}
case "$build_arg" in
  /*) build=$build_arg ;;
  *) build=$repo_root/$build_arg ;;
esac
nvidia_smi=${NVIDIA_SMI:-nvidia-smi}
max_time=${MAX_TIME:-${MIN_TIME:-0.5}}
timing=${TIMING:-blocking}
started=$(date +%s)

say() { echo "== make table: $* ($(( $(date +%s) - started ))s)"; }

# 1. No GPU, no table: stop before building anything.
gpus=""
if command -v "$nvidia_smi" >/dev/null 2>&1; then
  gpus=$("$nvidia_smi" -L 2>/dev/null | grep -E '^GPU [0-9]+' || true)
fi
if [ -z "$gpus" ]; then
  cat >&2 <<EOF
make table: no NVIDIA GPU here ('$nvidia_smi -L' lists none), so there is nothing to measure.
The table times real sorts on a GPU; nothing was built or run. Without a GPU you can still:
  - read the committed H100 results: docs/results/ (and the tables in README.md)
  - step through a pass of any stage: build/bench/sortlab/sortlab trace --stage 1 --n 16 --bits 4
  - build the reading guide: make docs (then open docs/html/index.html)
EOF
  exit 2
fi
command -v python3 >/dev/null 2>&1 || { echo "make table: python3 is needed for the tables" >&2; exit 2; }
say "GPU: $(echo "$gpus" | head -1)"

# 2. Build what the table needs.
cd "$repo_root"
if [ ! -f "$build/CMakeCache.txt" ]; then
  generator=()
  if command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
  say "configuring $build"
  cmake -S "$repo_root" -B "$build" "${generator[@]}" -DSORTLAB_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}"
fi
say "building bench_all"
cmake --build "$build" -j "$(nproc)" --target bench_all
bench_all=$build/bench/table/bench_all

# 3. Run the benchmarks; each row prints as it finishes, numbered [i/N].
out_dir=$build/table
mkdir -p "$out_dir"
bench_json=$out_dir/bench_all.json
torch_json=$out_dir/torch.json
gpu_state_json=$out_dir/gpu_state.json
rm -f "$gpu_state_json"
# The GPU's clocks, power limit, temperature and load before the run (and after it, below).
python3 "$repo_root/bench/table/gpu_state.py" --out "$gpu_state_json" --phase before \
  --nvidia-smi "$nvidia_smi"
filter=()
[ -n "${BENCH_FILTER:-}" ] && filter=(--benchmark_filter="$BENCH_FILTER")
total=$("$bench_all" --benchmark_list_tests=true "${filter[@]}" 2>/dev/null | grep -c /n: || true)
say "running $total benchmarks (stages, sweeps, baselines) -> $bench_json"
stdbuf -oL "$bench_all" --max_time="$max_time" --timing="$timing" "${filter[@]}" \
    --benchmark_out="$bench_json" --benchmark_out_format=json \
  | awk -v total="$total" '
      /\/n:[0-9]+/ && !/^(Benchmark|-)/ { printf "[%d/%d] %s\n", ++done, total, $0; fflush(); next }
      { print; fflush() }'

# 4. PyTorch baselines (skipped, with the reason in the JSON, when torch or CUDA is missing).
say "torch.sort / torch.topk"
python3 "$repo_root/bench/table/torch_baseline.py" --like "$bench_json" --out "$torch_json" \
  --max-time "$max_time"
python3 "$repo_root/bench/table/gpu_state.py" --out "$gpu_state_json" --phase after \
  --nvidia-smi "$nvidia_smi"

# 5. Tables, plot, README blocks.
say "writing docs/results"
python3 "$repo_root/bench/table/results_table.py" --bench-json "$bench_json" \
  --torch-json "$torch_json" --gpu-state "$gpu_state_json" \
  --results-dir "$repo_root/docs/results" --repo-root "$repo_root"
say "done"
