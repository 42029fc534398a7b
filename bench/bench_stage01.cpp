/// \file
/// \brief Stage 01 benchmark program: stage 01 against CUB on the same inputs.
/// Example: `bench_stage01 --sizes=16,20,24 --pairs=both --benchmark_out=stage01.json`.
#include "bench/ladder.hpp"

int main(int argc, char** argv) {
  return sortlab::bench::run_main(argc, argv, [](const sortlab::bench::BenchConfig& config) {
    sortlab::bench::register_copy_bandwidth(config);
    sortlab::bench::register_stage00(config);
    sortlab::bench::register_stage01(config);
  });
}
