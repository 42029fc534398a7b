/// \file
/// \brief Stage 02 kernels: step 1 (count each tile's 0s and 1s into the block bucket table) and
/// step 3 (local split in shared memory, then coalesced scatter) of one pass. Step 2, the scan of
/// the table, is common/device_scan in separate launches: CUDA has no grid-wide barrier inside an
/// ordinary launch, so "all blocks have counted" is the boundary between two kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/02_coalesced_sort/coalesced_sort.hpp"
#include "common/block_scan.cuh"
#include "common/key_traits.hpp"

namespace sortlab::stage02 {

/// Number of keys of tile \p block that exist (kTileItems except in the last, partial tile).
/// \param block the tile's index
/// \param n number of keys in the whole array
/// \return keys in the tile, 1 to kTileItems
__device__ __forceinline__ std::uint32_t tile_size(std::size_t block, std::size_t n) {
  const std::size_t first = block * kTileItems;
  return static_cast<std::uint32_t>(n - first < kTileItems ? n - first : kTileItems);
}

/// Step 1: each block counts the keys of its tile with bit 0 and with bit 1 and writes the two
/// counts to the block bucket table, row-major by bucket: entry (d, b) at d * num_blocks + b.
/// \param keys_in the keys of this pass
/// \param n number of keys
/// \param bit which bit of the ordered key to split on
/// \param descending split on the complemented bit
/// \param num_blocks blocks in the grid (= tiles), the table's row length
/// \param block_bucket_table output: 2 * num_blocks counts
/// \param digits optional output (tracing only, else nullptr): the bit of every key
template <typename Key>
__global__ void __launch_bounds__(kThreadsPerBlock)
    count_tile_buckets_kernel(const Key* __restrict__ keys_in, std::size_t n, int bit,
                              bool descending, std::uint32_t num_blocks,
                              std::uint32_t* __restrict__ block_bucket_table,
                              std::uint32_t* __restrict__ digits) {
  const std::size_t block = blockIdx.x;
  const std::size_t i = block * kTileItems + threadIdx.x;
  const std::uint32_t valid = tile_size(block, n);

  // lab:begin gpu count_tile_buckets
  // lab:task Load one key per thread (thread t of block b holds key b * kTileItems + t, if it
  // lab:task exists), take its bit, write it to digits[i] when digits is not null, count the
  // lab:task tile's ones (__syncthreads_count) and let one thread write the block's column of the
  // lab:task table: zeros at block_bucket_table[block], ones at [num_blocks + block].
  // Load: one key per thread, consecutive threads read consecutive keys (coalesced).
  const bool in_range = threadIdx.x < valid;
  const std::uint32_t digit = in_range ? radix_digit(keys_in[i], bit, 1, descending) : 0u;
  if (digits != nullptr && in_range) digits[i] = digit;

  // Count the tile's ones: a block-wide count of a predicate is exactly what
  // __syncthreads_count computes (a barrier plus a reduction in one instruction).
  const std::uint32_t ones = static_cast<std::uint32_t>(__syncthreads_count(digit));

  // Write the block bucket table: this block's column of the two rows.
  if (threadIdx.x == 0) {
    block_bucket_table[block] = valid - ones;       // bucket 0
    block_bucket_table[num_blocks + block] = ones;  // bucket 1
  }
  // lab:end
}

/// Step 3: each block reloads its tile, splits it by the bit in shared memory (zeros first, then
/// ones, each in input order), and writes each bucket's run to its global place. After the local
/// split thread t holds the t-th key of the locally sorted tile, so consecutive threads write
/// consecutive addresses of one bucket: the stores are coalesced.
/// \param keys_in the keys of this pass
/// \param keys_out the keys after this pass
/// \param values_in values travelling with the keys (kHasValues only)
/// \param values_out values after this pass (kHasValues only)
/// \param n number of keys
/// \param bit which bit of the ordered key to split on
/// \param descending split on the complemented bit
/// \param num_blocks blocks in the grid (= tiles), the table's row length
/// \param scanned_table exclusive scan of the block bucket table: global start of each (d, b)
/// \param local_sorted optional output (tracing only): each tile after the local split
/// \param destinations optional output (tracing only): where every input key was written
template <typename Key, bool kHasValues>
__global__ void __launch_bounds__(kThreadsPerBlock)
    split_and_scatter_kernel(const Key* __restrict__ keys_in, Key* __restrict__ keys_out,
                             const std::uint32_t* __restrict__ values_in,
                             std::uint32_t* __restrict__ values_out, std::size_t n, int bit,
                             bool descending, std::uint32_t num_blocks,
                             const std::uint32_t* __restrict__ scanned_table,
                             Key* __restrict__ local_sorted,
                             std::uint32_t* __restrict__ destinations) {
  __shared__ Key tile_keys[kTileItems];
  __shared__ std::uint32_t tile_values[kHasValues ? kTileItems : 1];
  __shared__ BlockScanStorage<kThreadsPerBlock> scan_storage;
  __shared__ std::uint32_t bucket_start[kNumBuckets];  // global start of (d, this block)

  const std::size_t block = blockIdx.x;
  const std::uint32_t t = threadIdx.x;
  const std::size_t i = block * kTileItems + t;
  const std::uint32_t valid = tile_size(block, n);

  // lab:begin gpu split_and_scatter
  // lab:task Load: one key (and value) per thread; threads past the end act as keys with bit 1.
  // lab:task Fetch this block's two global starts (scanned_table[d * num_blocks + block]).
  // lab:task Local split in shared memory: block_exclusive_sum of the bits gives ones_before;
  // lab:task a 0 goes to t - ones_before, a 1 to zeros + ones_before (tile_keys, tile_values).
  // lab:task After a barrier, write local_sorted and destinations when they are not null, and
  // lab:task scatter: thread t writes the t-th key of the split tile to its bucket's start plus
  // lab:task its rank within the bucket's run (coalesced).
  // Load: one key (and value) per thread, coalesced. Threads past the end of the last tile act
  // as keys with bit 1: being the highest-numbered threads, they land after every real key of
  // the tile and change no real key's local position.
  const bool in_range = t < valid;
  Key key{};
  std::uint32_t value = 0;
  std::uint32_t digit = 1;
  if (in_range) {
    key = keys_in[i];
    if constexpr (kHasValues) value = values_in[i];
    digit = radix_digit(key, bit, 1, descending);
  }
  // Threads 0 and 1 fetch this block's two global starts (scanned table entries (0, b) and
  // (1, b)) now, so the load's latency hides behind the local split.
  const std::uint32_t start = t < kNumBuckets ? scanned_table[t * num_blocks + block] : 0u;

  // Local split in shared memory: the 1-bit split of stage 01 within one tile. An exclusive sum
  // of the digits gives "ones before me"; zeros go to t - ones_before, ones after all zeros.
  std::uint32_t total_ones = 0;
  const std::uint32_t ones_before = block_exclusive_sum(digit, scan_storage, total_ones);
  const std::uint32_t zeros =  // the padding counts as ones, so this is the tile's real zeros
      static_cast<std::uint32_t>(kTileItems) - total_ones;
  const std::uint32_t local_position = digit == 0 ? t - ones_before : zeros + ones_before;
  tile_keys[local_position] = key;
  if constexpr (kHasValues) tile_values[local_position] = value;
  if (t < kNumBuckets) bucket_start[t] = start;
  __syncthreads();  // the whole tile is split and the starts are in shared memory

  if (local_sorted != nullptr && in_range) local_sorted[i] = tile_keys[t];
  if (destinations != nullptr && in_range)  // own key: rank within its bucket after its start
    destinations[i] =
        digit == 0 ? bucket_start[0] + local_position : bucket_start[1] + (local_position - zeros);

  // Coalesced scatter to global: thread t writes the t-th key of the split tile to the start of
  // its bucket plus its rank within the bucket's run (t - local start of the bucket).
  if (in_range) {
    const bool is_one = t >= zeros;
    const std::uint32_t destination = is_one ? bucket_start[1] + (t - zeros) : bucket_start[0] + t;
    keys_out[destination] = tile_keys[t];
    if constexpr (kHasValues) values_out[destination] = tile_values[t];
  }
  // lab:end
}

}  // namespace sortlab::stage02
