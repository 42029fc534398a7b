/// \file
/// \brief Stage 03 benchmark program: stage 03 against CUB and stage 02 on the same inputs, plus
/// the sweep over the digit width r (variants "r:1" .. "r:8").
/// Example: `bench_stage03 --sizes=20,24,28 --benchmark_out=stage03.json`;
/// only the sweep: `bench_stage03 --benchmark_filter='r:'`.
#include "bench/ladder.hpp"

int main(int argc, char** argv) {
  return sortlab::bench::run_main(argc, argv, [](const sortlab::bench::BenchConfig& config) {
    sortlab::bench::register_copy_bandwidth(config);
    sortlab::bench::register_stage00(config);
    sortlab::bench::register_stage02(config);
    sortlab::bench::register_stage03(config);
    sortlab::bench::register_stage03_radix_sweep(config);
  });
}
