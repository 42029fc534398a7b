#!/usr/bin/env bash
# One command that verifies sortlab on a GPU machine: configure and build with -j16, run the GPU
# and CPU suites, compute-sanitizer memcheck and racecheck on every stage's GPU tests, then the
# benchmarks. Every log goes to the folder given as the second argument.
#
#   bash .ci/device_check.sh [build-dir] [log-dir]
#   make device-check OUT=/some/folder
#
# Environment knobs: STAGES="stage00 stage01 ..." (sanitizer targets), SANITIZE=0 to skip the
# sanitizers, BENCH=none|quick|table (default quick), CTEST_EXTRA (extra ctest arguments).
set -uo pipefail
build=${1:-build}
logs=${2:-$build/device-logs}
mkdir -p "$logs"
status=0
step() { echo; echo "=== $* ($(date +%H:%M:%S))"; }

step "device"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv | tee "$logs/gpu.txt"

step "configure + build"
cmake -S . -B "$build" -G Ninja -DSORTLAB_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >"$logs/configure.log" 2>&1 \
  || { tail -30 "$logs/configure.log"; exit 1; }
cmake --build "$build" -j 16 >"$logs/build.log" 2>&1 || { grep -E "error|FAILED" "$logs/build.log" | head -40; exit 1; }
grep -E "warning" "$logs/build.log" | sort -u | head -20

step "ctest (GPU and CPU suites)"
(cd "$build" && ctest -j 16 --output-on-failure ${CTEST_EXTRA:-}) >"$logs/ctest.log" 2>&1 || status=1
grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Not Run|Skipped" "$logs/ctest.log" | head -40

if [ "${SANITIZE:-1}" != 0 ]; then
  # stage00 is CUB: not our kernels to sanitize (and racecheck on it takes minutes).
  stages=${STAGES:-$(cd "$build/tests" && ls -d stage* 2>/dev/null | grep -v stage00 | tr '\n' ' ')}
  for stage in $stages; do
    exe="$build/tests/$stage/test_${stage}_gpu"
    [ -x "$exe" ] || continue
    for tool in memcheck racecheck; do
      step "compute-sanitizer $tool $stage"
      # Sanitizers slow kernels 10-100x: cap the sizes (SORTLAB_TEST_MAX_N; every tile boundary
      # of stages 01-03 and the first of stage 04 stay in) and run the first key type (u32) of
      # every suite instance plus the trace tests; the other key types only change the digit
      # transform, which the full ctest run covers.
      max_n=$([ $tool = memcheck ] && echo ${MEMCHECK_MAX_N:-4200} || echo ${RACECHECK_MAX_N:-2100})
      SORTLAB_TEST_MAX_N=$max_n compute-sanitizer --tool $tool --error-exitcode 99 \
        ${SANITIZER_EXTRA:-} "$exe" --gtest_brief=1 \
        --gtest_filter="${SANITIZER_FILTER:-*/0.*:Stage04/*/5.*:Stage04/*/6.*:*Trace*:*Usage*}" \
        >"$logs/sanitizer-$tool-$stage.log" 2>&1
      rc=$?
      tail -3 "$logs/sanitizer-$tool-$stage.log"
      [ $rc = 0 ] || { echo "!!! $tool $stage failed (rc=$rc)"; status=1; }
    done
  done
fi

case "${BENCH:-quick}" in
  none) ;;
  quick)
    for b in "$build"/bench/bench_stage*; do
      [ -x "$b" ] || continue
      step "benchmark $(basename "$b")"
      "$b" --sizes=16,20,24 --min_time=0.05 --benchmark_out="$logs/$(basename "$b").json" \
        --benchmark_out_format=json >"$logs/$(basename "$b").txt" 2>&1 || status=1
      tail -12 "$logs/$(basename "$b").txt"
    done ;;
  table)
    step "make table"
    bash bench/table/make_table.sh "$build" 2>&1 | tee "$logs/table.log" || status=1 ;;
esac

step "summary"
grep -E "tests passed|tests failed" "$logs/ctest.log"
for f in "$logs"/sanitizer-*.log; do [ -f "$f" ] && echo "$(basename "$f"): $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$f" | tail -1)"; done
echo "device check status: $status"
exit $status
