#!/usr/bin/env bash
# `make sort-profile`: where the time of one whole sort goes, measured with Nsight Compute
# (issues 15 and 16). For stages 05 and 08, profiles every kernel of one complete sort of
# `sortlab run --stage N --n 2^28 --repeat 1` (u32 keys, uniform) and one copy kernel of the same
# keys (copy_reference.cu, the reference rate), recording time, DRAM bytes read and written, L2
# sectors written, SM and memory throughput, registers and achieved occupancy.
# sort_profile_table.py turns the CSVs into docs/results/<gpu>-sort-profile.md and the
# <!-- profile:stageNN:begin/end --> blocks of the stage READMEs; nothing is typed by hand.
#
#   bash bench/profile/sort_profile.sh [build-dir]
#
# Environment: PROFILE_STAGES (default "5 8"), LOG2_N (default 28), NCU (the ncu to run),
# SORT_PROFILE_DIR (reports, CSVs and logs; default <build-dir>/sort-profile), EXTRA_LAUNCHES
# (launches profiled past one sort, default 1), NVCC and CUDA_ARCH (for the copy kernel).
#
# Which launches: `sortlab run --repeat 1` sorts twice with the same kernels (a warm-up, then the
# timed sort); the first sort is profiled. `sort_profile_table.py --launches-per-sort N` says how
# many kernels one sort launches (stage 05 at 2^28: 44 = survey + 6 x (upsweep + 5 device-scan
# kernels + downsweep) + the copy kernel for all-trivial sorts; stage 08: 6 = histogram + scan +
# 4 passes); one more launch, the next sort's first kernel, shows the sort was complete, and the
# table script cuts exactly one sort out by kernel name (or stops and says to raise
# EXTRA_LAUNCHES). Memsets are not kernels and are not profiled.
#
# This is memory_profile.sh's sibling, not an extension of it: that one profiles one pass of
# stages 01-04 at 2^24 for coalescing counters; this one every kernel of a whole sort against a
# copy, with other launches, metrics, page and README blocks.
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_arg=${1:-build}
case "$build_arg" in
  /*) build=$build_arg ;;
  *) build=$repo_root/$build_arg ;;
esac
ncu=${NCU:-ncu}
stages=${PROFILE_STAGES:-5 8}
log2_n=${LOG2_N:-28}
extra_launches=${EXTRA_LAUNCHES:-1}
out_dir=${SORT_PROFILE_DIR:-$build/sort-profile}
table=$repo_root/bench/profile/sort_profile_table.py
mkdir -p "$out_dir"

command -v "$ncu" >/dev/null 2>&1 \
  || { echo "sort-profile: '$ncu' (Nsight Compute) not found" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L | grep -q '^GPU 0' \
  || { echo "sort-profile: no NVIDIA GPU here, nothing to profile" >&2; exit 2; }

cmake --build "$build" -j "$(nproc)" --target sortlab
sortlab=$build/bench/sortlab/sortlab

# Kept small: ncu replays every kernel once per group of counters it cannot collect together.
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,lts__t_sectors_srcunit_tex_op_write.sum
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active

nvidia-smi --query-gpu=name --format=csv,noheader | head -1 >"$out_dir/gpu.txt"
# Never publish an earlier run's counters.
rm -f "$out_dir"/*.ncu-rep "$out_dir"/*.csv "$out_dir/timings.txt"

# profile NAME LAUNCHES COMMAND...: ncu of the first LAUNCHES kernels of COMMAND, exported raw.
# --clock-control none: the clocks the benchmarks see. Caches are flushed before every profiled
# kernel (ncu's default), so every kernel starts cold, as it does after a 1 GiB predecessor.
profile() {
  local name=$1 launches=$2
  shift 2
  local report=$out_dir/$name started=$SECONDS
  "$ncu" --clock-control none --metrics "$metrics" --launch-count "$launches" --force-overwrite \
    --export "$report" "$@" >"$report.log" 2>&1 || { tail -20 "$report.log"; exit 1; }
  "$ncu" --import "$report.ncu-rep" --csv --page raw --print-units base --metrics "$metrics" \
    >"$report.csv"
  echo "$name: $launches launches profiled in $((SECONDS - started)) s" \
    | tee -a "$out_dir/timings.txt"
}

# The copy reference: one kernel copying 2^LOG2_N u32 keys, built with the build's nvcc.
nvcc=${NVCC:-$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)}
nvcc=${nvcc:-nvcc}
copy_binary=$out_dir/copy_reference
build_copy() {
  "$nvcc" -O3 -std=c++17 -arch="$1" -o "$copy_binary" "$repo_root/bench/profile/copy_reference.cu"
}
if [ -n "${CUDA_ARCH:-}" ]; then
  build_copy "sm_$CUDA_ARCH"
else
  build_copy native || build_copy sm_90  # native: the GPU of this machine
fi
echo "== sort-profile: copy reference, n = 2^$log2_n"
profile copy 1 --kernel-name regex:copy_reference_kernel "$copy_binary" "$((1 << log2_n))"

for stage in $stages; do
  launches=$(python3 "$table" --launches-per-sort "$stage" --log2-n "$log2_n")
  echo "== sort-profile: stage $stage, n = 2^$log2_n: $launches kernels per sort + $extra_launches"
  profile "stage$stage" "$((launches + extra_launches))" \
    "$sortlab" run --stage "$stage" --n "2^$log2_n" --repeat 1
done

python3 "$table" --profile-dir "$out_dir" --results-dir "$repo_root/docs/results" \
  --repo-root "$repo_root" --log2-n "$log2_n" --stages "$(echo $stages | tr ' ' ',')"
