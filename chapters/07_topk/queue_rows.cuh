/// \file
/// \brief Stage 07 for 2 <= k <= kMaxQueueK: per-thread queues of the K best values and bitonic
/// merges, not a radix select.
///
/// The argmax (argmax_rows.cuh) keeps one best per thread and reduces; this keeps the K best
/// (K = 8, 16 or 32, the smallest that holds k). "Best" is the same total order: larger select
/// bits, then the lower column; so the K best of a set are one well-defined list, and the first k
/// of it are the answer in sorted order. Phases:
///
/// - **read and insert**: every thread walks its share of the row (16-byte loads,
///   for_each_value_of_thread() of common/vector_loads.cuh)
///   and inserts each value that beats its queue's last entry where it belongs (the queue stays
///   sorted best first; a value that does not beat the last costs one comparison).
/// - **merge**: two sorted queues' K best are the better of entry i of one and entry K - 1 - i of
///   the other, for each i (a bitonic sequence), which K/2, K/4, ..., 1 half-cleaners sort (the
///   bitonic merge). A butterfly of such merges over shuffles gives every lane of a group the
///   group's K best; then the warps' queues through shared memory, and a cluster's blocks'
///   through distributed shared memory (sm_90 builds).
/// - **write**: sorted output is the first k entries; unsorted output is the same k in the
///   documented order (those better than the k-th in column order, then those equal to it in
///   column order), placed by counting. The values are read back from the row at their columns.
///
/// Rows of at most kMaxWarpRowLength values take a group of lanes each (8 lanes for rows of at
/// most kQueueNarrowRowLength values, so a short row pays three merge levels, not five); longer
/// rows a block each, or a cluster of blocks (the argmax's split), except that many rows of up to
/// kQueueWarpMaxRowLength values take one warp each (queue_split()).
#pragma once

#include <cooperative_groups.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "chapters/07_topk/topk.hpp"
#include "chapters/07_topk/topk_kernels.cuh"
#include "common/vector_loads.cuh"

namespace sortlab::stage07 {

/// Rows of at most this many values take 8 lanes each in the warp kernel (else 32).
inline constexpr std::uint32_t kQueueNarrowRowLength = 256;
/// Longest block span whose queues read it twice, with a bound first (the longest measured to
/// gain: rows of 4096 5% faster, of 65536 3% slower; fill_queue()).
inline constexpr std::uint32_t kQueueBoundMaxSpan = 4096;

/// A thread's (or, after the merges, a group's) K best values so far, best first: select bits
/// (widened to a shuffle's 32 or 64 bits) and columns. Empty entries are (0, ~0u), which every
/// value beats (a value with select bits 0 beats it by its lower column).
template <typename Bits, int K>
struct ThreadQueue {
  static_assert(K >= 2 && (K & (K - 1)) == 0, "the bitonic merge needs a power of two");
  /// The select bits as a shuffle can move them.
  using Wide = std::conditional_t<sizeof(Bits) <= 4, std::uint32_t, std::uint64_t>;
  Wide bits[K];              ///< select bits of entry i
  std::uint32_t columns[K];  ///< its column

  /// Whether (a_bits, a_column) is better than (b_bits, b_column).
  __device__ __forceinline__ static bool better(Wide a_bits, std::uint32_t a_column, Wide b_bits,
                                                std::uint32_t b_column) {
    return a_bits > b_bits || (a_bits == b_bits && a_column < b_column);
  }

  /// Every entry empty.
  __device__ __forceinline__ void clear() {
#pragma unroll
    for (int i = 0; i < K; ++i) {
      bits[i] = 0;
      columns[i] = 0xffffffffu;
    }
  }

  /// Inserts (\p value_bits, \p column) where it belongs when it beats the last entry. The queue
  /// is sorted, so the flags `beats[i]` are true from the insertion point to the end: entry i
  /// takes entry i - 1 where the new value beats both, the new value where it beats i only, and
  /// otherwise stays.
  __device__ __forceinline__ void offer(Wide value_bits, std::uint32_t column) {
    if (!better(value_bits, column, bits[K - 1], columns[K - 1])) return;
    bool beats[K];
#pragma unroll
    for (int i = 0; i < K; ++i) beats[i] = better(value_bits, column, bits[i], columns[i]);
#pragma unroll
    for (int i = K - 1; i > 0; --i) {
      if (beats[i]) {
        bits[i] = beats[i - 1] ? bits[i - 1] : value_bits;
        columns[i] = beats[i - 1] ? columns[i - 1] : column;
      }
    }
    if (beats[0]) {
      bits[0] = value_bits;
      columns[0] = column;
    }
  }

  /// Puts the better of entries \p i and \p j (i < j) at i.
  __device__ __forceinline__ void order(int i, int j) {
    if (better(bits[j], columns[j], bits[i], columns[i])) {
      const Wide b = bits[i];
      bits[i] = bits[j];
      bits[j] = b;
      const std::uint32_t c = columns[i];
      columns[i] = columns[j];
      columns[j] = c;
    }
  }

  /// Phase **merge** with the queue of lane `lane ^ offset` (all 32 lanes call it): this lane's
  /// queue becomes the K best of both, sorted; both lanes end with the same queue.
  __device__ __forceinline__ void merge_with_lane(int offset) {
#pragma unroll
    for (int i = 0; i < K / 2; ++i) {
      const int j = K - 1 - i;
      // Both of the partner's entries are read before either of this lane's changes.
      const Wide other_bits_i = __shfl_xor_sync(0xffffffffu, bits[j], offset);
      const std::uint32_t other_column_i = __shfl_xor_sync(0xffffffffu, columns[j], offset);
      const Wide other_bits_j = __shfl_xor_sync(0xffffffffu, bits[i], offset);
      const std::uint32_t other_column_j = __shfl_xor_sync(0xffffffffu, columns[i], offset);
      if (better(other_bits_i, other_column_i, bits[i], columns[i])) {
        bits[i] = other_bits_i;
        columns[i] = other_column_i;
      }
      if (better(other_bits_j, other_column_j, bits[j], columns[j])) {
        bits[j] = other_bits_j;
        columns[j] = other_column_j;
      }
    }
    // The queue is now bitonic (better entries at both ends): the half-cleaners sort it.
#pragma unroll
    for (int distance = K / 2; distance > 0; distance /= 2) {
#pragma unroll
      for (int i = 0; i < K; ++i) {
        if ((i & distance) == 0) order(i, i + distance);
      }
    }
  }

  /// The butterfly over groups of \p kGroupLanes lanes (all 32 lanes call it): every lane ends
  /// with its group's K best.
  template <int kGroupLanes>
  __device__ __forceinline__ void merge_group() {
#pragma unroll
    for (int offset = kGroupLanes / 2; offset > 0; offset /= 2) merge_with_lane(offset);
  }
};

/// The \p k-th largest of \p value over each group of \p kGroupLanes lanes (every lane of the
/// warp calls it, with the same k <= kGroupLanes): a bitonic sort over the group's lanes, one
/// value each, best first, then the value of member k - 1.
template <typename Wide, int kGroupLanes>
__device__ __forceinline__ Wide group_kth_largest(Wide value, std::uint32_t k) {
  const std::uint32_t lane = threadIdx.x & 31u, member = lane % kGroupLanes;
#pragma unroll
  for (std::uint32_t size = 2; size <= kGroupLanes; size *= 2) {
#pragma unroll
    for (std::uint32_t stride = size / 2; stride > 0; stride /= 2) {
      const Wide other = __shfl_xor_sync(0xffffffffu, value, static_cast<int>(stride));
      const bool lower = (member & stride) == 0u;
      const bool best_first = (member & size) == 0u;  // true in the last run, the whole group
      value =
          (lower == best_first) ? (other > value ? other : value) : (other < value ? other : value);
    }
  }
  return __shfl_sync(0xffffffffu, value, static_cast<int>(lane - member + k - 1));
}

/// Phase **read and insert** for thread \p thread of \p kThreads sharing `row[begin, end)`, in
/// two reads. The first finds each lane's best select bits; the k-th best of its group's (the
/// lanes of \p kGroupLanes that share this row part) is a lower bound on the row's k-th value,
/// since that many of the row's values reach it. The second read offers only the values at or
/// above it, so far fewer reach the insertion (an insertion costs about 3K instructions, the test
/// one). Only where \p bounded (the same in every lane of the warp): the second read costs more
/// than the bound saves on rows of 8-lane groups and on long spans (README, "Small k"). Where
/// k > kGroupLanes the group has too few bests for a bound. Otherwise one read, every value
/// offered. Reads: common/vector_loads.cuh (16-byte loads, kVectors in flight; end <= begin is an
/// empty span).
template <typename T, int K, int kThreads, int kVectors, int kGroupLanes>
__device__ __forceinline__ void fill_queue(ThreadQueue<typename SelectKey<T>::Bits, K>& queue,
                                           const T* row, std::uint32_t begin, std::uint32_t end,
                                           bool largest, std::uint32_t thread, std::uint32_t k,
                                           bool bounded) {
  using Wide = typename ThreadQueue<typename SelectKey<T>::Bits, K>::Wide;
  queue.clear();
  const std::uint32_t span = end > begin ? end - begin : 0u;
  if (bounded && k <= kGroupLanes) {  // the same in every lane: the shuffles need them all
    Wide lane_best = 0;               // a lane with no values counts 0, which lowers the bound only
    for_each_value_of_thread<kThreads, kVectors>(
        row + begin, span, thread, [&](const T& value, std::uint32_t) {
          const auto bits = static_cast<Wide>(SelectKey<T>::bits(value, largest));
          lane_best = bits > lane_best ? bits : lane_best;
        });
    const Wide bound = group_kth_largest<Wide, kGroupLanes>(lane_best, k);
    for_each_value_of_thread<kThreads, kVectors>(
        row + begin, span, thread, [&](const T& value, std::uint32_t i) {
          const auto bits = static_cast<Wide>(SelectKey<T>::bits(value, largest));
          if (bits >= bound) queue.offer(bits, begin + i);
        });
    return;
  }
  // One read, every value offered: its own loop, so the spans that take no bound run the same
  // code as before the bound existed (a test against a bound of 0 cost long spans 1.5%).
  for_each_value_of_thread<kThreads, kVectors>(
      row + begin, span, thread, [&](const T& value, std::uint32_t i) {
        queue.offer(static_cast<Wide>(SelectKey<T>::bits(value, largest)), begin + i);
      });
}

/// Phase **write** of a group's queue (every lane of the group holds it; \p member is this
/// lane's index in the group of \p kGroupLanes): entry i (i < k) goes to position i (sorted), or
/// to its place in the documented unsorted order. Lane `member` writes the entries i with
/// i mod kGroupLanes = member.
template <typename T, int K, int kGroupLanes>
__device__ __forceinline__ void write_queue(
    const ThreadQueue<typename SelectKey<T>::Bits, K>& queue, const T* row, std::uint32_t k,
    bool sorted, std::uint32_t member, T* values_out, std::int64_t* indices_out) {
  using Wide = typename ThreadQueue<typename SelectKey<T>::Bits, K>::Wide;
  Wide kth_bits = 0;
#pragma unroll
  for (int i = 0; i < K; ++i)
    if (static_cast<std::uint32_t>(i) + 1 == k) kth_bits = queue.bits[i];
#pragma unroll
  for (int i = 0; i < K; ++i) {
    if (static_cast<std::uint32_t>(i) >= k || static_cast<std::uint32_t>(i % kGroupLanes) != member)
      continue;
    std::uint32_t position = static_cast<std::uint32_t>(i);
    if (!sorted) {
      // Those better than the k-th value first, each class in column order.
      const bool beyond = queue.bits[i] > kth_bits;
      position = 0;
#pragma unroll
      for (int j = 0; j < K; ++j) {
        if (static_cast<std::uint32_t>(j) >= k) continue;
        const bool other_beyond = queue.bits[j] > kth_bits;
        position += (other_beyond && !beyond) ||
                            (other_beyond == beyond && queue.columns[j] < queue.columns[i])
                        ? 1u
                        : 0u;
      }
    }
    values_out[position] = row[queue.columns[i]];
    indices_out[position] = static_cast<std::int64_t>(queue.columns[i]);
  }
}

/// Lanes per row of the warp kernel for rows of \p row_length values.
__host__ __device__ constexpr int queue_group_lanes(std::uint32_t row_length) {
  return row_length <= kQueueNarrowRowLength ? 8 : 32;
}

/// 16-byte loads in flight per lane in the 32-lane warp kernel for queues of \p K entries, on rows
/// longer than kMaxWarpRowLength (those the warp-per-row rule gives a warp). Measured on an H100
/// against 1 load: 4 hide the latency of a long row per warp for queues of 8 (8-25% faster on
/// rows of 2048 to 16384 values, within the spread at 1100 and 1500), but queues of 16 ran 15-18%
/// slower on rows of 1100 and gained at most 6% on rows of 4096, and queues of 32 need those
/// registers (1.76x slower); rows of at most kMaxWarpRowLength ran slower with 4 (rows of 1000:
/// 10% at k = 8), so they keep 1.
template <int K>
inline constexpr int kQueueWarpVectors = K <= 8 ? 4 : 1;

/// Groups of \p kGroupLanes lanes per row (rows of at most kMaxWarpRowLength values, or one warp
/// per row of up to kQueueWarpMaxRowLength where the rows are many: queue_split()): read and
/// insert, the butterfly, write, with \p kVectors 16-byte loads in flight per lane
/// (kQueueWarpVectors for 32 lanes). Launch ceil(num_rows / (kWarpRowsPerBlock x 32 /
/// kGroupLanes)) blocks of kBlockThreads threads.
template <typename T, int K, int kGroupLanes, int kVectors = 1>
__global__ void __launch_bounds__(kBlockThreads)
    topk_queue_warp_rows_kernel(TopkArrays<T> arrays, std::size_t num_rows) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  constexpr int kRowsPerWarp = 32 / kGroupLanes;
  const std::uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const std::size_t first_row = (std::size_t{blockIdx.x} * kWarpRowsPerBlock + warp) * kRowsPerWarp;
  if (first_row >= num_rows) return;  // the whole warp: its shuffles need every lane or none
  const std::size_t row_index = first_row + lane / kGroupLanes;
  const bool real_row = row_index < num_rows;  // groups past the last row take part empty
  const std::uint32_t member = lane % kGroupLanes;
  const T* row = arrays.values_in + (real_row ? row_index : 0) * arrays.row_length;
  ThreadQueue<typename SelectKey<T>::Bits, K> queue;
  fill_queue<T, K, kGroupLanes, kVectors, kGroupLanes>(
      queue, row, 0, real_row ? arrays.row_length : 0u, arrays.largest, member, arrays.k,
      /*bounded=*/kGroupLanes == 32);
  queue.template merge_group<kGroupLanes>();
  if (real_row)
    write_queue<T, K, kGroupLanes>(queue, row, arrays.k, arrays.sorted, member,
                                   arrays.values_out + row_index * arrays.k,
                                   arrays.indices_out + row_index * arrays.k);
}

/// 16-byte loads each thread of the block queue kernel has in flight: half the argmax's 4, to
/// leave registers to queues of up to 32 entries (a choice, not measured against 4).
inline constexpr int kQueueVectorsPerThread = 2;

/// One block per row, or one cluster of blocks per row (the launch's cluster dimension, sm_90
/// builds): block b of a row's cluster reads and inserts `row[b x span, (b + 1) x span)`, merges
/// over its warps' queues, and block 0 merges the cluster's blocks' queues and writes. Launch
/// num_rows x blocks-per-row blocks of kBlockThreads threads.
template <typename T, int K>
__global__ void __launch_bounds__(kBlockThreads)
    topk_queue_rows_kernel(TopkArrays<T> arrays, std::uint32_t span) {
  chain_to_previous_kernel();  // first: see common/chained_launch.cuh
  using Queue = ThreadQueue<typename SelectKey<T>::Bits, K>;
  using Wide = typename Queue::Wide;
  constexpr int kWarps = kBlockThreads / 32;
  static_assert(kWarps <= 32 && kMaxClusterBlocks <= 32, "one lane per warp or block to merge");
  __shared__ Wide warp_bits[kWarps][K];
  __shared__ std::uint32_t warp_columns[kWarps][K];
  // The block's K best, read by block 0 of the cluster.
  __shared__ Wide block_bits[K];
  __shared__ std::uint32_t block_columns[K];
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

  // Phases **read and insert**, **merge** in each warp, then over the warps.
  const std::uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  Queue queue;
  fill_queue<T, K, kBlockThreads, kQueueVectorsPerThread, 32>(
      queue, row, begin, end, arrays.largest, threadIdx.x, arrays.k,
      /*bounded=*/end - begin <= kQueueBoundMaxSpan);
  queue.template merge_group<32>();
#pragma unroll
  for (int i = 0; i < K; ++i) {
    if (static_cast<std::uint32_t>(i) % 32u == lane) {
      warp_bits[warp][i] = queue.bits[i];
      warp_columns[warp][i] = queue.columns[i];
    }
  }
  __syncthreads();
  if (warp == 0) {
    queue.clear();
    if (lane < kWarps) {
#pragma unroll
      for (int i = 0; i < K; ++i) {
        queue.bits[i] = warp_bits[lane][i];
        queue.columns[i] = warp_columns[lane][i];
      }
    }
    queue.template merge_group<32>();  // all 32 lanes: each writes entries below
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (static_cast<std::uint32_t>(i) % 32u == lane) {
        block_bits[i] = queue.bits[i];
        block_columns[i] = queue.columns[i];
      }
    }
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && SORTLAB_CHAINED_LAUNCHES
  if (blocks > 1) {
    // Phase **merge** over the cluster: every block's queue is visible after the barrier; block
    // 0's warp 0 reads them, one lane per block; the second barrier keeps every block alive
    // until it has.
    cluster.sync();
    if (rank == 0 && warp == 0) {
      queue.clear();
      if (lane < blocks) {
        const Wide* their_bits = cluster.map_shared_rank(block_bits, static_cast<int>(lane));
        const std::uint32_t* their_columns =
            cluster.map_shared_rank(block_columns, static_cast<int>(lane));
#pragma unroll
        for (int i = 0; i < K; ++i) {
          queue.bits[i] = their_bits[i];
          queue.columns[i] = their_columns[i];
        }
      }
      queue.template merge_group<32>();  // all 32 lanes: each writes entries below
    }
    cluster.sync();
  }
#endif
  // Phase **write** (every lane of block 0's warp 0 holds the row's K best).
  if (rank == 0 && warp == 0)
    write_queue<T, K, 32>(queue, row, arrays.k, arrays.sorted, lane,
                          arrays.values_out + row_index * arrays.k,
                          arrays.indices_out + row_index * arrays.k);
}

/// Launches the queue kernels for a call that queue_split() took (\p split used): a group of
/// lanes per row, a block per row or a cluster per row, K the smallest of 8, 16 and 32 that holds
/// arrays.k. Defined in queue_rows.cu (explicit instantiations for the seven value types).
template <typename T>
void launch_queue_rows(const TopkArrays<T>& arrays, std::size_t num_rows, const ArgmaxSplit& split,
                       cudaStream_t stream);

}  // namespace sortlab::stage07
