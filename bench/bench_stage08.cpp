/// \file
/// \brief Stage 08 benchmark program: onesweep against CUB (stage 00) and stage 05 on the
/// ladder's inputs, with the copy floor. Example: `bench_stage08 --sizes=20,24,28 --pairs=both
/// --types=u32,i32,f32`; `--benchmark_filter='^device/'` for the comparison with CUB over five
/// key and value types alone (what `make table` runs for the stage README's table).
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
    sortlab::bench::register_stage05(config);
    sortlab::bench::register_stage08(config);
    sortlab::bench::register_stage08_vs_cub(config);
  });
}
