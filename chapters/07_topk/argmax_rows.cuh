/// \file
/// \brief Stage 07 for k = 1: each row's best value by one reduction, not a radix select.
///
/// With k = 1 (greedy decoding's argmax over a vocabulary, a nearest neighbour) there is nothing
/// to select: the answer is the value with the largest select bits, ties to the lowest column,
/// which one read of the row and a reduction find. The radix schedules spend two to four passes
/// and their barriers on it. Here:
///
/// - **read and compare**: every thread walks its part of the row (16-byte loads, several in
///   flight) keeping the best (select bits, column) it has seen; "best" is a total order (larger
///   bits, then the lower column), so the order of the visits does not matter.
/// - **reduce**: across the warp with shuffles, then across the block's warps through shared
///   memory, and, when a row is spread over a cluster of blocks (sm_90 builds), across the
///   cluster through distributed shared memory after a cluster barrier.
/// - **write**: one thread writes the value (read back from the row at the winning column) and
///   its column.
///
/// Short rows (at most kMaxWarpRowLength values) take one warp each; longer ones one block, or a
/// cluster of up to 16 blocks when the rows are too few to fill the GPU (argmax_split()).
#pragma once

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "chapters/07_topk/topk_kernels.cuh"
#include "common/vector_loads.cuh"

namespace sortlab::stage07 {

/// The best value seen so far: its select bits (widened to a shuffle's 32 or 64 bits) and its
/// column; no value yet is (0, ~0u), which every value beats.
template <typename Bits>
struct ArgmaxBest {
  /// The select bits as a shuffle can move them.
  using Wide = std::conditional_t<sizeof(Bits) <= 4, std::uint32_t, std::uint64_t>;
  Wide bits = 0;                       ///< select bits of the best value
  std::uint32_t column = 0xffffffffu;  ///< its column (the lowest among equal bits)
  /// Keeps (\p other_bits, \p other_column) when it is better: larger bits, or equal bits at a
  /// lower column.
  __device__ __forceinline__ void offer(Wide other_bits, std::uint32_t other_column) {
    if (other_bits > bits || (other_bits == bits && other_column < column)) {
      bits = other_bits;
      column = other_column;
    }
  }
};

/// The best of a warp's bests, in every lane (a butterfly of shuffles: the order is total, so
/// every lane ends with the same).
template <typename Bits>
__device__ __forceinline__ ArgmaxBest<Bits> warp_best(ArgmaxBest<Bits> best) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const auto other_bits = __shfl_xor_sync(0xffffffffu, best.bits, offset);
    const auto other_column = __shfl_xor_sync(0xffffffffu, best.column, offset);
    best.offer(other_bits, other_column);
  }
  return best;
}

/// Phase **read and compare** for one thread of \p kThreads (\p thread is its index among them):
/// the best of its share of `row[begin, end)` (common/vector_loads.cuh: 16-byte loads, kVectors
/// in flight; end <= begin is an empty span).
template <typename T, int kThreads, int kVectors>
__device__ __forceinline__ ArgmaxBest<typename SelectKey<T>::Bits> thread_best(
    const T* row, std::uint32_t begin, std::uint32_t end, bool largest, std::uint32_t thread) {
  using Best = ArgmaxBest<typename SelectKey<T>::Bits>;
  Best best;
  for_each_value_of_thread<kThreads, kVectors>(
      row + begin, end > begin ? end - begin : 0u, thread, [&](const T& value, std::uint32_t i) {
        best.offer(static_cast<typename Best::Wide>(SelectKey<T>::bits(value, largest)), begin + i);
      });
  return best;
}

/// 16-byte loads each thread of the argmax kernels has in flight.
inline constexpr int kArgmaxVectorsPerThread = 4;

/// One warp per row (rows of at most kMaxWarpRowLength values; k = 1): read and compare, reduce
/// with shuffles, lane 0 writes. Launch ceil(num_rows / kWarpRowsPerBlock) blocks of
/// kBlockThreads threads.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads)
    topk_argmax_warp_rows_kernel(TopkArrays<T> arrays, std::size_t num_rows) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  const std::uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const std::size_t row_index = std::size_t{blockIdx.x} * kWarpRowsPerBlock + warp;
  if (row_index >= num_rows) return;  // the whole warp: no barrier follows
  const T* row = arrays.values_in + row_index * arrays.row_length;
  const auto best =
      warp_best(thread_best<T, 32, 1>(row, 0, arrays.row_length, arrays.largest, lane));
  if (lane == 0) {
    arrays.values_out[row_index] = row[best.column];
    arrays.indices_out[row_index] = static_cast<std::int64_t>(best.column);
  }
}

/// One block per row, or one cluster of blocks per row (the launch's cluster dimension, sm_90
/// builds; k = 1): block b of a row's cluster reads and compares `row[b x span, (b + 1) x span)`,
/// reduces over its warps, and block 0 reduces over the cluster's blocks and writes. Launch
/// num_rows x blocks-per-row blocks of kBlockThreads threads.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads)
    topk_argmax_rows_kernel(TopkArrays<T> arrays, std::uint32_t span) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Best = ArgmaxBest<typename SelectKey<T>::Bits>;
  __shared__ typename Best::Wide warp_bits[kBlockThreads / 32];
  __shared__ std::uint32_t warp_columns[kBlockThreads / 32];
  // The block's best, read by block 0 of the cluster (plain words: a __shared__ variable must not
  // have a constructor).
  __shared__ typename Best::Wide block_bits;
  __shared__ std::uint32_t block_column;
  std::uint32_t blocks = 1, rank = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && SORTLAB_CHAINED_LAUNCHES
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  blocks = cluster.num_blocks();
  rank = cluster.block_rank();
#endif
  const std::size_t row_index = blockIdx.x / blocks;
  const T* row = arrays.values_in + row_index * arrays.row_length;
  const std::uint32_t length = arrays.row_length;
  const std::uint32_t begin = rank * span < length ? rank * span : length;
  const std::uint32_t end = length - begin < span ? length : begin + span;

  // Phases **read and compare**, then **reduce** over the warps.
  const std::uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  Best best = warp_best(thread_best<T, kBlockThreads, kArgmaxVectorsPerThread>(
      row, begin, end, arrays.largest, threadIdx.x));
  if (lane == 0) {
    warp_bits[warp] = best.bits;
    warp_columns[warp] = best.column;
  }
  __syncthreads();
  if (warp == 0) {
    Best mine;
    if (lane < kBlockThreads / 32) mine.offer(warp_bits[lane], warp_columns[lane]);
    best = warp_best(mine);
    if (lane == 0) {
      block_bits = best.bits;
      block_column = best.column;
    }
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && SORTLAB_CHAINED_LAUNCHES
  if (blocks > 1) {
    // Phase **reduce** over the cluster: every block's best is visible after the barrier; block
    // 0 reads them; the second barrier keeps every block alive until it has.
    cluster.sync();
    if (rank == 0 && warp == 0) {
      Best mine;
      if (lane < blocks)
        mine.offer(*cluster.map_shared_rank(&block_bits, static_cast<int>(lane)),
                   *cluster.map_shared_rank(&block_column, static_cast<int>(lane)));
      best = warp_best(mine);
    }
    cluster.sync();
  }
#endif
  // Phase **write**.
  if (rank == 0 && threadIdx.x == 0) {
    arrays.values_out[row_index] = row[best.column];
    arrays.indices_out[row_index] = static_cast<std::int64_t>(best.column);
  }
}

}  // namespace sortlab::stage07
