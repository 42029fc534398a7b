#!/usr/bin/env bash
# `make memory-profile`: where each stage's memory traffic goes, measured with Nsight Compute.
# For every stage, profiles the kernels of one pass of `sortlab run` (2^24 u32 keys) and records
# DRAM bytes read, L2 sectors written and the sectors per global load/store request
# (coalescing). memory_table.py turns
# the CSVs into docs/results/<gpu>-memory.md and the README blocks; nothing is typed by hand.
#
#   bash bench/profile/memory_profile.sh [build-dir]
#
# Environment: PROFILE_STAGES (default "1 2 3 4"), LOG2_N (default 24), NCU (the ncu to run).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build_arg=${1:-build}
case "$build_arg" in
  /*) build=$build_arg ;;
  *) build=$repo_root/$build_arg ;;
esac
ncu=${NCU:-ncu}
stages=${PROFILE_STAGES:-1 2 3 4}
log2_n=${LOG2_N:-24}
out_dir=$build/profile
mkdir -p "$out_dir"

command -v "$ncu" >/dev/null 2>&1 || { echo "memory-profile: '$ncu' (Nsight Compute) not found" >&2; exit 2; }
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L | grep -q '^GPU 0' \
  || { echo "memory-profile: no NVIDIA GPU here, nothing to profile" >&2; exit 2; }

cmake --build "$build" -j "$(nproc)" --target sortlab
sortlab=$build/bench/sortlab/sortlab

# One pass of every stage fits in its first 12 launches (at most 7 kernels per pass at 2^24);
# memory_table.py cuts exactly one pass out of them by kernel name.
metrics=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
nvidia-smi --query-gpu=name --format=csv,noheader | head -1 >"$out_dir/gpu.txt"
for stage in $stages; do
  echo "== memory-profile: stage $stage, n = 2^$log2_n"
  report=$out_dir/stage$stage
  rm -f "$report.ncu-rep" "$report.csv"  # never publish an earlier run's counters
  # --clock-control none: profile at the clocks the benchmarks see. Caches are flushed before
  # every profiled kernel (ncu's default), so DRAM bytes are what a cold pass moves.
  "$ncu" --clock-control none --metrics "$metrics" --launch-count 12 --force-overwrite \
    --export "$report" "$sortlab" run --stage "$stage" --n "2^$log2_n" --repeat 1 \
    >"$report.log" 2>&1 || { tail -20 "$report.log"; exit 1; }
  "$ncu" --import "$report.ncu-rep" --csv --page raw --print-units base --metrics "$metrics" \
    >"$report.csv"
done
python3 "$repo_root/bench/profile/memory_table.py" --profile-dir "$out_dir" \
  --results-dir "$repo_root/docs/results" --repo-root "$repo_root" --log2-n "$log2_n" \
  --stages "$(echo $stages | tr ' ' ',')"
