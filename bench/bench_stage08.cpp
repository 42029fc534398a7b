/// \file
/// \brief Stage 08 benchmark program: onesweep against CUB (stage 00) and stage 05 on the
/// ladder's inputs, with the copy floor. Example: `bench_stage08 --sizes=20,24,28 --pairs=both
/// --types=u32,i32,f32`.
#include "bench/ladder.hpp"

int main(int argc, char** argv) {
  return sortlab::bench::run_main(argc, argv, [](const sortlab::bench::BenchConfig& config) {
    sortlab::bench::register_copy_bandwidth(config);
    sortlab::bench::register_stage00(config);
    sortlab::bench::register_stage05(config);
    sortlab::bench::register_stage08(config);
  });
}
