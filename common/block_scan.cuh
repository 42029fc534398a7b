/// \file
/// \brief Warp- and block-wide exclusive sums (device functions) with caller-owned scratch.
///
/// The block scan is the two-level scheme of PMPP chapter 11: each warp scans its 32 values with
/// shuffles, one warp scans the warp totals, and every thread adds its warp's offset.
#pragma once

#include <cstdint>

namespace sortlab {

/// Inclusive sum over the 32 lanes of a full warp (Kogge-Stone with shuffles).
__device__ __forceinline__ std::uint32_t warp_inclusive_sum(std::uint32_t value) {
#pragma unroll
  for (unsigned offset = 1; offset < 32; offset <<= 1) {
    // shfl.sync.up sets its predicate only where the source lane exists (lane >= offset), so the
    // add needs no lane test of its own: two instructions a step where the plain C++ form
    // (__shfl_up_sync, then `if (lane >= offset)`) compiles to four. The scan runs once per pass
    // of every block rank, so this is about 4% of a block sort's instructions (stage 05 README).
    asm("{\n\t"
        ".reg .u32 from_below;\n\t"
        ".reg .pred has_lane_below;\n\t"
        "shfl.sync.up.b32 from_below|has_lane_below, %0, %1, 0, 0xffffffff;\n\t"
        "@has_lane_below add.u32 %0, %0, from_below;\n\t"
        "}"
        : "+r"(value)
        : "r"(offset));
  }
  return value;
}

/// Shared-memory scratch that block_exclusive_sum needs; the caller declares it `__shared__`.
template <int kThreads>
struct BlockScanStorage {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "block of whole warps, at most 1024");
  std::uint32_t warp_offsets[kThreads / 32];  ///< exclusive prefix of each warp's total
  std::uint32_t block_total;                  ///< sum over the whole block
};

/// Exclusive sum of one value per thread over a 1-D block of exactly kThreads threads.
/// All threads must call it. Returns the sum of the values of lower-numbered threads and sets
/// \p block_total to the sum of all values. The storage may be reused as soon as it returns.
template <int kThreads>
__device__ std::uint32_t block_exclusive_sum(std::uint32_t value,
                                             BlockScanStorage<kThreads>& storage,
                                             std::uint32_t& block_total) {
  constexpr int kWarps = kThreads / 32;
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int warp = static_cast<int>(threadIdx.x >> 5);

  const std::uint32_t inclusive = warp_inclusive_sum(value);
  if (lane == 31) storage.warp_offsets[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    const std::uint32_t warp_total = lane < kWarps ? storage.warp_offsets[lane] : 0u;
    const std::uint32_t scanned = warp_inclusive_sum(warp_total);
    if (lane < kWarps) storage.warp_offsets[lane] = scanned - warp_total;
    if (lane == 31) storage.block_total = scanned;
  }
  __syncthreads();
  const std::uint32_t exclusive = storage.warp_offsets[warp] + inclusive - value;
  block_total = storage.block_total;
  __syncthreads();  // everyone has read the storage: the caller may reuse it
  return exclusive;
}

}  // namespace sortlab
