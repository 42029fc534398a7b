/// \file
/// \brief Stage 02 benchmark program: stage 02 against CUB and stage 01 on the same inputs.
/// Example: `bench_stage02 --sizes=16,20,24,28 --pairs=both --benchmark_out=stage02.json`.
#include "bench/ladder.hpp"

int main(int argc, char** argv) {
  return sortlab::bench::run_main(argc, argv, [](const sortlab::bench::BenchConfig& config) {
    sortlab::bench::register_copy_bandwidth(config);
    sortlab::bench::register_stage00(config);
    sortlab::bench::register_stage01(config);
    sortlab::bench::register_stage02(config);
  });
}
