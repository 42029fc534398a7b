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
# BENCH_FILTER (a --benchmark_filter regex for bench_all, for a quick partial run), STAGE_BENCHES
# (1 by default: also run bench_stage05 and bench_stage08 (their CUB comparisons), bench_stage06
# and bench_stage07 (its quick set, each schedule forced, and issue 18's three sets: the LLM
# sampling shapes in f32 and bf16, 2^26 f32 values in rows and one f32 row of 2^28, which
# torch_baseline.py also times with torch.topk); 0 keeps their committed JSON; a list such as
# "06 08" runs those stages' and keeps the others' committed JSON, and with it the committed
# torch rows they are compared with: torch.sort(dim=-1) for 06, torch.topk for 07),
# NVIDIA_SMI (the nvidia-smi to ask; tests point it at a missing command).
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
stage_benches=${STAGE_BENCHES:-1}
case "$stage_benches" in
  1) stage_benches="05 06 07 08" ;;
  0) stage_benches="" ;;
esac
for stage in $stage_benches; do
  case "$stage" in
    05 | 06 | 07 | 08) ;;
    *) echo "make table: STAGE_BENCHES='${STAGE_BENCHES}': stages are 05, 06, 07, 08 (or 1, 0)" >&2; exit 2 ;;
  esac
done
# stage_runs NN: whether this run measures stage NN's own benchmark.
stage_runs() { [[ " $stage_benches " == *" $1 "* ]]; }
targets=(bench_all)
for stage in $stage_benches; do targets+=("bench_stage$stage"); done
say "building ${targets[*]}"
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
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

# 4. PyTorch baselines (skipped, with the reason in the JSON, when torch or CUDA is missing),
# among them torch.sort(dim=-1) of 2^26 f32 values in rows of 8 ... 2^20 (the torch column of
# stage 06's page) and torch.topk on stage 07's quick shapes, on issue 18's LLM sampling shapes
# in f32 and bf16 (118 more cases: stage 07's llm tables) and on its rows and long sets in f32
# (21 more: stage 07's rows and long tables), which results_table.py reads from this JSON.
# A stage left out of STAGE_BENCHES keeps its committed JSON, so its torch rows must stay the
# committed ones (measured in the same run as it; keep_peer_rows.py): those torch cases are not
# run, and the committed rows replace whatever of them this run has.
torch_skip=() keep_prefixes=()
if ! stage_runs 06; then torch_skip+=(--no-segsort); keep_prefixes+=(--prefix torch-segsort/); fi
if ! stage_runs 07; then
  torch_skip+=(--no-llm --no-rows-long)
  keep_prefixes+=(--prefix torch-topk/)
fi
say "torch.sort / torch.topk"
python3 "$repo_root/bench/table/torch_baseline.py" --like "$bench_json" --out "$torch_json" \
  --max-time "$max_time" "${torch_skip[@]}"
if [ ${#keep_prefixes[@]} -gt 0 ]; then
  gpu_file=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["context"].get("sortlab_gpu_file_name", ""))' "$bench_json")
  python3 "$repo_root/bench/table/keep_peer_rows.py" --into "$torch_json" \
    --committed "$repo_root/docs/results/$gpu_file-torch.json" "${keep_prefixes[@]}" \
    --why "STAGE_BENCHES='$stage_benches' left the stage they are compared with out"
fi

# 5. Stages 06 and 07 solve other problems (segmented sort, top-k) on inputs of their own: their
# own benchmarks, one JSON per stage (merge_bench_json.py joins a stage's runs, keeping each
# run's context), which results_table.py keeps as docs/results/<gpu>-stageNN.json.
stage_args=()
if [ -n "$stage_benches" ]; then
  merge=(python3 "$repo_root/bench/table/merge_bench_json.py")
  stage06=$build/bench/bench_stage06
  stage07=$build/bench/bench_stage07
  # to_json NAME COMMAND...: runs COMMAND with its JSON written to $out_dir/NAME.json.
  to_json() {
    local name=$1
    shift
    "$@" --benchmark_out="$out_dir/$name.json" --benchmark_out_format=json
  }
  if stage_runs 05; then
    # Stage 05 side by side with CUB where the ladder cannot show it: the block sort against
    # cub::BlockRadixSort (same tile shapes) and the device sort against cub::DeviceRadixSort for
    # u32, f32, u64 keys and two pair types, with a copy of the same bytes; stage_cub_table.py
    # writes the stage README's tables and keeps the JSON as docs/results/<gpu>-stage05-cub.json.
    # About two minutes.
    say "stage 05: block and device sorts against CUB"
    to_json stage05_cub "$build/bench/bench_stage05" --benchmark_filter='^(block|device)/' \
      --max_time="$max_time" --timing="$timing"
    python3 "$repo_root/bench/table/stage_cub_table.py" --json "$out_dir/stage05_cub.json" \
      --results-dir "$repo_root/docs/results" --repo-root "$repo_root"
  fi
  if stage_runs 08; then
    # Stage 08 against CUB type by type (the ladder's CUB row is the best of three 32-bit types):
    # u32, f32, u64 keys and two pair types, with a copy. About a minute.
    say "stage 08: device sort against CUB, five key and value types"
    to_json stage08_cub "$build/bench/bench_stage08" --benchmark_filter='^device/' \
      --max_time="$max_time" --timing="$timing"
    python3 "$repo_root/bench/table/stage_cub_table.py" --stage 08 \
      --json "$out_dir/stage08_cub.json" --results-dir "$repo_root/docs/results" \
      --repo-root "$repo_root"
  fi
  if stage_runs 06; then
    # Stage 06 against CUB's DeviceSegmentedSort and DeviceSegmentedRadixSort on 2^26 pairs (f32
    # keys, u32 values) cut into equal segments of 8 ... 2^20 and into a power-law mix of segments
    # (seg:powerlaw, about half a million of 8 ... 2^22 keys). DeviceSegmentedRadixSort gives every
    # segment a block of its own: about 1.6 s per call at seg:8 on an H100, so its two smallest
    # sizes get a run of their own with 3 samples (their rows say converged = 0; the page lists
    # them) instead of the usual 10 or more. About a minute in all.
    slow='^cub-segmented-radix/.*/seg:(8|32)/'
    say "stage 06: segmented sort, 2^26 pairs"
    to_json stage06_main "$stage06" --sizes=26 --pairs=1 --max_time="$max_time" \
      --timing="$timing" --benchmark_filter="-$slow"
    say "stage 06: CUB DeviceSegmentedRadixSort at seg:8 and seg:32, 3 samples"
    to_json stage06_cub_radix_small "$stage06" --sizes=26 --pairs=1 --max_time=0.001 \
      --min_samples=3 --timing="$timing" --benchmark_filter="$slow"
    # The bin sweep (bench_stage06 --set=bins): equal segments at both edges of every bin, each
    # sorted by its own bin and the two above it, 2^24 pairs; the measurement behind the bin
    # edges. About half a minute.
    say "stage 06: the bin sweep, 2^24 pairs"
    to_json stage06_bins "$stage06" --set=bins --sizes=24 --pairs=1 --max_time="$max_time" \
      --timing="$timing" --benchmark_filter='^stage06-bins/'
    "${merge[@]}" --out "$out_dir/stage06.json" main="$out_dir/stage06_main.json" \
      cub-radix-small-segments="$out_dir/stage06_cub_radix_small.json" \
      bins="$out_dir/stage06_bins.json"
  fi
  if stage_runs 07; then
    # Stage 07: the quick set (sorted and unsorted, the rule's schedule, a copy of each input as
    # the floor), then the same shapes with each schedule forced (unsorted, no copy rows: the
    # names would repeat the first run's; the cluster schedule skips the rows no cluster holds,
    # one row of 2^28 and 64 x 2^20), then the LLM sampling shapes (below). The forced
    # one-block run of one row of 2^28 takes about 1.4 s per call; under a minute before the
    # LLM shapes.
    say "stage 07: top-k, --set=quick"
    to_json stage07_quick "$stage07" --set=quick --max_time="$max_time" --timing="$timing"
    for schedule in one multi cluster; do
      say "stage 07: top-k, --set=quick --schedule=$schedule"
      to_json "stage07_$schedule" "$stage07" --set=quick --sorted=0 --schedule="$schedule" \
        --benchmark_filter='^stage07' --max_time="$max_time" --timing="$timing"
    done
    # Issue 18's three sets, each a run of its own with a copy of each input for the floor, the
    # output torch.topk gives by default (sorted; torch_baseline.py times torch.topk on the same
    # shapes):
    # - llm: the LLM sampling shapes, batch 1, 16, 64, 128, 256 x vocabulary 32000, 128256,
    #   151936, k = 1, 50, 1024, 2048, f32 and bf16 logits (120 top-k rows, 30 copies), sorted
    #   output; about two minutes;
    # - rows: 2^26 f32 values as rows of 128, 1000, 4096, 65536, 2^20, k = 1, 8, 64, 256 where
    #   k < row length (19 shapes), sorted output;
    # - long: one f32 row of 2^28, k = 1, 32, 1024, 65536 and 1% of the row, sorted and unsorted
    #   output (--sorted=both: sorted output stops at kMaxSortedK = 2048, so k = 65536 and 1% have
    #   unsorted rows only, and the issue's targets cover every k).
    # Some of their shapes are quick shapes too (f32 1 x 128256 k=2048 and 128 x 128256 k=50 in
    # llm, 16384 x 4096 k=8 and 64 x 2^20 k=64 in rows, 1 x 2^28 k=1024 in long), measured above
    # with the copies of their inputs: each run leaves out every row an earlier run's JSON already
    # has (its names, exactly: those top-k rows and their copy rows), so no name is measured twice
    # (the merge refuses that) and nothing needs picking. results_table.py shows those rows in the
    # set's table (marked with their run) and takes the floor of the other k of those inputs from
    # the earlier run's copy (marked).
    stage07_jsons=("$out_dir/stage07_quick.json" "$out_dir/stage07_one.json"
                   "$out_dir/stage07_multi.json" "$out_dir/stage07_cluster.json")
    # stage07_set LABEL ARGS...: runs `bench_stage07 ARGS` into $out_dir/stage07_LABEL.json
    # without the rows the JSON of an earlier stage 07 run already has.
    stage07_set() {
      local label=$1 repeated
      shift
      repeated=$("$stage07" "$@" --benchmark_list_tests=true 2>/dev/null \
        | grep -Fx -f <(python3 -c 'import json, sys
for path in sys.argv[1:]:
    for row in json.load(open(path))["benchmarks"]: print(row["name"])' \
          "${stage07_jsons[@]}") | paste -sd '|' - || true)
      local skip=()
      if [ -n "$repeated" ]; then
        say "stage 07: $label run without the $(tr '|' '\n' <<<"$repeated" | wc -l) rows" \
          "earlier runs measured"
        skip=(--benchmark_filter="-^($repeated)\$")
      fi
      say "stage 07: top-k, $* (run $label)"
      to_json "stage07_$label" "$stage07" "$@" "${skip[@]}" --max_time="$max_time" \
        --timing="$timing"
      stage07_jsons+=("$out_dir/stage07_$label.json")
    }
    stage07_set llm --set=llm --sorted=1
    stage07_set rows --set=rows --sorted=1
    stage07_set long --set=long --sorted=both
    "${merge[@]}" --out "$out_dir/stage07.json" quick="$out_dir/stage07_quick.json" \
      schedule-one="$out_dir/stage07_one.json" schedule-multi="$out_dir/stage07_multi.json" \
      schedule-cluster="$out_dir/stage07_cluster.json" llm="$out_dir/stage07_llm.json" \
      rows="$out_dir/stage07_rows.json" \
      long="$out_dir/stage07_long.json"
  fi
  if stage_runs 06; then stage_args+=(--stage06-json "$out_dir/stage06.json"); fi
  if stage_runs 07; then stage_args+=(--stage07-json "$out_dir/stage07.json"); fi
fi

python3 "$repo_root/bench/table/gpu_state.py" --out "$gpu_state_json" --phase after \
  --nvidia-smi "$nvidia_smi"

# 6. Tables, plot, README blocks (stages 06 and 07: pages of their own).
say "writing docs/results"
python3 "$repo_root/bench/table/results_table.py" --bench-json "$bench_json" \
  --torch-json "$torch_json" --gpu-state "$gpu_state_json" "${stage_args[@]}" \
  --results-dir "$repo_root/docs/results" --repo-root "$repo_root"
say "done"
