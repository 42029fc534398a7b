/// \file
/// \brief Registration functions of the benchmark ladder: one per stage and baseline, each in its
/// own file, combined by the per-stage programs and by bench_all (`make table`).
#pragma once

#include "bench/bench_support.hpp"

namespace sortlab::bench {

/// Stage 00: CUB DeviceRadixSort. \param config what to measure
void register_stage00(const BenchConfig& config);
/// Stage 01: 1-bit scan sort. \param config what to measure
void register_stage01(const BenchConfig& config);

}  // namespace sortlab::bench
