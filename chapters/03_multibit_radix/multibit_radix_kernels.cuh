/// \file
/// \brief Stage 03 kernels: step 1 (count digits into the block bucket table) and step 3 (local
/// split, then coalesced scatter) of one pass. Step 2, the scan of the whole table, is
/// common/device_scan in separate launches, because a scan across blocks needs every block's
/// counts first and CUDA has no grid-wide barrier inside an ordinary launch.
///
/// The digit width w (1..8) is a runtime argument, so the per-bucket arrays (2^w entries) live in
/// dynamic shared memory sized by the launcher; the tile arrays (kTileItems entries) are static.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/03_multibit_radix/multibit_radix.hpp"
#include "common/block_scan.cuh"
#include "common/key_traits.hpp"

namespace sortlab::stage03 {

/// Dynamic shared memory of count_digits_kernel: one counter per bucket.
/// \param num_bits digit width w of the pass
/// \return bytes of dynamic shared memory
inline std::size_t count_shared_bytes(int num_bits) {
  return (std::size_t{1} << num_bits) * sizeof(std::uint32_t);
}

/// Dynamic shared memory of local_sort_scatter_kernel: per bucket its count, its start in the
/// tile and its start in the output.
/// \param num_bits digit width w of the pass
/// \return bytes of dynamic shared memory
inline std::size_t scatter_shared_bytes(int num_bits) {
  return 3 * count_shared_bytes(num_bits);
}

/// Step 1: block b counts the digits of its tile and writes column b of the block bucket table.
/// \param keys device input keys
/// \param block_bucket_table device table, 2^num_bits rows x gridDim.x columns, row-major
/// \param n number of keys
/// \param first_bit lowest bit of the digit
/// \param num_bits digit width w (1..8)
/// \param descending use the complemented digit
/// \param digits null, or (trace_pass) an array of n receiving each key's digit
template <typename Key>
__global__ void __launch_bounds__(kThreadsPerBlock)
    count_digits_kernel(const Key* keys, std::uint32_t* block_bucket_table, std::size_t n,
                        int first_bit, int num_bits, bool descending, std::uint32_t* digits) {
  extern __shared__ std::uint32_t histogram[];  // 2^num_bits counters
  const std::uint32_t num_buckets = 1u << num_bits;
  const std::uint32_t t = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kTileItems + t;

  // lab:begin gpu count_digits
  // lab:task Clear the block's histogram (shared, 2^num_bits counters), count the digit of every
  // lab:task key of the tile (one key per thread, shared-memory atomicAdd; write digits[i] when
  // lab:task digits is not null), then write column blockIdx.x of the table, row-major by bucket:
  // lab:task block_bucket_table[d * gridDim.x + blockIdx.x] = count of digit d.
  // Clear the block's histogram (num_buckets <= threads, so one counter per thread at most).
  if (t < num_buckets) histogram[t] = 0;
  __syncthreads();

  // Load one key per thread and count its digit. Shared-memory atomics: the 256 keys of a tile
  // land in 2^w counters, so contention only matters for very low-entropy keys.
  if (i < n) {
    const std::uint32_t digit = radix_digit(keys[i], first_bit, num_bits, descending);
    atomicAdd(&histogram[digit], 1u);
    if (digits != nullptr) digits[i] = digit;
  }
  __syncthreads();

  // Write the block bucket table, row-major by bucket: (d, b) at d * num_blocks + b. One scan of
  // the whole table then orders bucket 0 of every block before bucket 1 of any block.
  if (t < num_buckets)
    block_bucket_table[static_cast<std::size_t>(t) * gridDim.x + blockIdx.x] = histogram[t];
  // lab:end
}

/// Step 3: block b reloads its tile, sorts it by digit in shared memory with w rounds of the
/// 1-bit split, and writes every key to its global position, coalesced within each bucket.
/// \param keys_in device input keys
/// \param keys_out device output keys
/// \param values_in device input values (null when !kHasValues)
/// \param values_out device output values (null when !kHasValues)
/// \param scanned_table exclusive scan of the block bucket table (global start of each (d, b))
/// \param n number of keys
/// \param first_bit lowest bit of the digit
/// \param num_bits digit width w (1..8)
/// \param descending use the complemented digit
/// \param local_sorted null, or (trace_pass) an array of n receiving each tile after the split
template <typename Key, bool kHasValues>
__global__ void __launch_bounds__(kThreadsPerBlock)
    local_sort_scatter_kernel(const Key* keys_in, Key* keys_out, const std::uint32_t* values_in,
                              std::uint32_t* values_out, const std::uint32_t* scanned_table,
                              std::size_t n, int first_bit, int num_bits, bool descending,
                              Key* local_sorted) {
  __shared__ Key tile_keys[kTileItems];
  __shared__ std::uint32_t tile_values[kHasValues ? kTileItems : 1];
  __shared__ BlockScanStorage<kThreadsPerBlock> scan_storage;
  extern __shared__ std::uint32_t bucket_arrays[];  // 3 arrays of 2^num_bits entries
  const std::uint32_t num_buckets = 1u << num_bits;
  std::uint32_t* local_count = bucket_arrays;                     // keys of digit d in the tile
  std::uint32_t* local_start = bucket_arrays + num_buckets;       // first tile slot of digit d
  std::uint32_t* global_start = bucket_arrays + 2 * num_buckets;  // first output slot of (d, b)

  const std::uint32_t t = threadIdx.x;
  const std::size_t tile_first = static_cast<std::size_t>(blockIdx.x) * kTileItems;
  const std::size_t remaining = n - tile_first;
  constexpr std::uint32_t kTile = static_cast<std::uint32_t>(kTileItems);
  const std::uint32_t tile_n = remaining < kTile ? static_cast<std::uint32_t>(remaining) : kTile;
  const bool valid = t < tile_n;  // the last tile may be partial

  // lab:begin gpu local_sort_scatter
  // lab:task Load the tile (one key and value per thread) and this block's global bucket starts
  // lab:task (scanned_table[d * gridDim.x + blockIdx.x]); count the tile's digits (local_count);
  // lab:task sort the tile by digit in shared memory with num_bits rounds of the 1-bit split
  // lab:task (block_exclusive_sum gives ones_before; barriers between rounds); scan the counts
  // lab:task for the local bucket starts; then thread t writes local key t to
  // lab:task global_start[d] + (t - local_start[d]) (and local_sorted when it is not null).
  // Load the tile, one key (and value) per thread. Threads t < 2^w also fetch this block's
  // global start of bucket t now, so the latency of that strided read hides behind the split.
  Key key{};
  std::uint32_t value = 0;
  if (valid) {
    key = keys_in[tile_first + t];
    if constexpr (kHasValues) value = values_in[tile_first + t];
  }
  std::uint32_t my_global_start = 0;
  if (t < num_buckets) {
    my_global_start = scanned_table[static_cast<std::size_t>(t) * gridDim.x + blockIdx.x];
    local_count[t] = 0;
  }
  __syncthreads();

  // Count the tile's digits again (the counts the count kernel put in column b of the table):
  // their exclusive scan below says where each digit starts inside the sorted tile.
  if (valid) atomicAdd(&local_count[radix_digit(key, first_bit, num_bits, descending)], 1u);

  // Local split in shared memory: w rounds of the 1-bit split, lowest digit bit first. Each
  // round is stable, so after the last one the tile is sorted by the whole digit (an LSD radix
  // sort inside the block). Invalid threads contribute a 0 bit and never move: they sit after
  // every valid key, so the valid keys' formulas only count valid keys.
  for (int bit = 0; bit < num_bits; ++bit) {
    const std::uint32_t flag = valid ? radix_digit(key, first_bit + bit, 1, descending) : 0u;
    std::uint32_t total_ones = 0;
    // block_exclusive_sum passes barriers before it returns, so every thread has read its slot
    // of the previous round before anyone overwrites tile_keys below.
    const std::uint32_t ones_before = block_exclusive_sum(flag, scan_storage, total_ones);
    if (valid) {
      const std::uint32_t slot = flag == 0 ? t - ones_before : tile_n - total_ones + ones_before;
      tile_keys[slot] = key;
      if constexpr (kHasValues) tile_values[slot] = value;
    }
    __syncthreads();
    if (valid) {
      key = tile_keys[t];
      if constexpr (kHasValues) value = tile_values[t];
    }
  }

  // Local bucket starts: exclusive scan of the block's 2^w counts (thread d holds bucket d).
  // The scan's own barriers also order the atomics above before these reads.
  const std::uint32_t my_count = t < num_buckets ? local_count[t] : 0u;
  std::uint32_t tile_total = 0;
  const std::uint32_t my_local_start = block_exclusive_sum(my_count, scan_storage, tile_total);
  if (t < num_buckets) {
    local_start[t] = my_local_start;
    global_start[t] = my_global_start;
  }
  __syncthreads();

  // Coalesced scatter to global memory: thread t writes local key t. Keys of one bucket are
  // contiguous in the tile and go to contiguous output slots, so neighbouring threads write
  // neighbouring addresses (a run of about 256 / 2^w keys per bucket).
  if (valid) {
    const std::uint32_t digit = radix_digit(key, first_bit, num_bits, descending);
    const std::uint32_t destination = global_start[digit] + (t - local_start[digit]);
    keys_out[destination] = key;
    if constexpr (kHasValues) values_out[destination] = value;
    if (local_sorted != nullptr) local_sorted[tile_first + t] = key;
  }
  // lab:end
}

}  // namespace sortlab::stage03
