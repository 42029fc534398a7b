/// \file
/// \brief Stage 04 benchmark program: stage 04 (default configuration, the keys-per-thread
/// sweep and the radix-width sweep) against CUB and stage 03 on the same inputs.
/// Example: `bench_stage04 --sizes=20,24,28 --benchmark_out=stage04.json`.
#include "bench/ladder.hpp"

int main(int argc, char** argv) {
  return sortlab::bench::run_main(argc, argv, [](const sortlab::bench::BenchConfig& config) {
    sortlab::bench::register_copy_bandwidth(config);
    sortlab::bench::register_stage00(config);
    sortlab::bench::register_stage03(config);
    sortlab::bench::register_stage04(config);
    sortlab::bench::register_stage04_coarsening_sweep(config);
    sortlab::bench::register_stage04_radix_sweep(config);
  });
}
