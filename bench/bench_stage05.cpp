/// \file
/// \brief Stage 05 benchmark program: the device sort against CUB and stage 04 on the ladder's
/// inputs, then the block sort against cub::BlockRadixSort and 64-bit types against CUB.
/// Example: `bench_stage05 --sizes=24,28 --pairs=both`; `--benchmark_filter='^(block|device)/'`
/// for the comparisons with CUB alone (what `make table` runs for the stage README's tables).
#include <benchmark/benchmark.h>

#include "bench/ladder.hpp"
#include "common/gpu_detect.hpp"

int main(int argc, char** argv) {
  return sortlab::bench::run_main(argc, argv, [](const sortlab::bench::BenchConfig& config) {
    // The GPU, for the results scripts (bench_all records the same keys).
    benchmark::AddCustomContext("sortlab_gpu_name", sortlab::gpu_description());
    benchmark::AddCustomContext("sortlab_gpu_file_name", sortlab::gpu_file_name());
    sortlab::bench::register_copy_bandwidth(config);
    sortlab::bench::register_stage00(config);
    sortlab::bench::register_stage04(config);
    sortlab::bench::register_stage05(config);
    sortlab::bench::register_stage05_radix_sweep(config);
    sortlab::bench::register_stage05_block_sort(config);
    sortlab::bench::register_stage05_wide_types(config);
  });
}
