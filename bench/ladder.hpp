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
/// Stage 02: shared-memory coalesced 1-bit sort. \param config what to measure
void register_stage02(const BenchConfig& config);
/// Stage 03: multi-bit radix, default radix width. \param config what to measure
void register_stage03(const BenchConfig& config);
/// Stage 03 for every radix width r = 1..8 (variant "r:R"). \param config what to measure
void register_stage03_radix_sweep(const BenchConfig& config);
/// Stage 04: thread coarsening, default keys per thread. \param config what to measure
void register_stage04(const BenchConfig& config);
/// Stage 04 for keys per thread 1, 2, 4, 8, 16 (variant "kpt:K"). \param config what to measure
void register_stage04_coarsening_sweep(const BenchConfig& config);
/// Stage 04 at the default keys per thread for radix widths r = 3..8 (variant "r:R").
/// \param config what to measure
void register_stage04_radix_sweep(const BenchConfig& config);
/// Stage 05: packed-counter rank device sort. \param config what to measure
void register_stage05(const BenchConfig& config);
/// Stage 05 at both compiled digit widths (variants "r:6" and "r:7"). \param config what to
/// measure
void register_stage05_radix_sweep(const BenchConfig& config);
/// Stage 05's block sort against cub::BlockRadixSort at the same shapes (load, sort, store one
/// tile per block over 2^24 keys; bench/stage05_block_bench.cu, linked into bench_stage05 only).
/// \param config sampling (the sizes are fixed)
void register_stage05_block_sort(const BenchConfig& config);
/// Stage 05's device sort against cub::DeviceRadixSort and a copy of the same bytes for u32, f32
/// and u64 keys, (u32, u32) and (f32, int64) pairs at 2^16, 2^20, 2^24 and 2^28 (bench_stage05
/// only). \param config sampling (the sizes are fixed)
void register_stage05_wide_types(const BenchConfig& config);

/// Stage 08: onesweep device sort. \param config what to measure
void register_stage08(const BenchConfig& config);
/// Stage 08's device sort against cub::DeviceRadixSort and a copy of the same bytes for u32, f32
/// and u64 keys, (u32, u32) and (f32, int64) pairs at 2^16, 2^20, 2^24 and 2^28 (rows
/// "device/..."; bench/device_vs_cub.hpp). \param config sampling (the sizes are fixed)
void register_stage08_vs_cub(const BenchConfig& config);

}  // namespace sortlab::bench
