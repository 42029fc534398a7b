/// \file
/// \brief Stage 04 kernels: step 1 (count digits into the block bucket table) and step 3 (local
/// split, then coalesced scatter) of one pass, with kKeysPerThread keys per thread. Step 2, the
/// scan of the whole table, is common/device_scan in separate launches (CUDA has no grid-wide
/// barrier inside an ordinary launch).
///
/// Two arrangements of a tile appear in these kernels:
///  - *striped*: thread t handles tile positions t, t + 256, t + 512, ... Consecutive threads touch
///    consecutive addresses, so global loads and stores are coalesced.
///  - *blocked*: thread t handles the K consecutive positions t*K .. t*K + K-1. The local split
///    needs this one: a thread can then count "ones before me" over its own keys in registers,
///    and thread order is input order, so one block-wide scan of per-thread counts ranks all
///    256 * K keys stably.
/// The kernels load and store striped and switch to blocked through shared memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/04_coarsened_radix/coarsened_radix.hpp"
#include "common/block_scan.cuh"
#include "common/key_traits.hpp"

namespace sortlab::stage04 {

/// Tile geometry of the instantiation for \p kKeysPerThread keys per thread.
template <int kKeysPerThread>
struct Tile {
  static_assert(is_supported_keys_per_thread(kKeysPerThread), "unsupported keys per thread");
  /// Keys in one block's tile.
  static constexpr std::uint32_t kItems = kThreadsPerBlock * kKeysPerThread;
  /// Shared-memory slots of the tile, including one padding slot per 32 keys (see padded()).
  static constexpr std::uint32_t kPaddedItems = kItems + kItems / 32;
};

/// Shared-memory slot of tile position \p p: one padding slot after every 32 keys. Without it,
/// the blocked reads of the split (thread t reads t*K + i) would put K threads of a warp on one
/// bank; with it, slot t*K + i + (t*K + i) / 32 spreads the 32 threads over all 32 banks for every
/// supported K. Striped accesses stay conflict-free (the padding is constant within a warp).
/// \param p position in the tile
__device__ __forceinline__ std::uint32_t padded(std::uint32_t p) {
  return p + (p >> 5);
}

/// Keys of the tile that starts at \p tile_first: kItems, or fewer for the last tile.
/// \param n number of keys
/// \param tile_first first key of the tile
/// \param tile_items keys in a full tile
__device__ __forceinline__ std::uint32_t keys_in_tile(std::size_t n, std::size_t tile_first,
                                                      std::uint32_t tile_items) {
  const std::size_t remaining = n - tile_first;
  return remaining < tile_items ? static_cast<std::uint32_t>(remaining) : tile_items;
}

/// The digit of \p key: radix_digit() for 32-bit keys, in 32-bit arithmetic. (radix_digit shifts
/// a 64-bit value so that it serves 64-bit keys too; for 32-bit keys that costs extra
/// instructions in the split's innermost loop, which runs w times per key per pass.)
/// \param key the key
/// \param first_bit lowest bit of the digit (0..31)
/// \param num_bits digit width (1..8)
/// \param descending use the complemented digit
template <typename Key>
__device__ __forceinline__ std::uint32_t digit_of(Key key, int first_bit, int num_bits,
                                                  bool descending) {
  static_assert(sizeof(typename KeyTraits<Key>::Bits) == 4, "stage 04 sorts 32-bit keys");
  const std::uint32_t ordered = KeyTraits<Key>::to_ordered(key, descending);
  return (ordered >> first_bit) & ((1u << num_bits) - 1u);
}

/// Step 1: block b counts the digits of its 256 * K keys and writes column b of the block bucket
/// table.
/// \param keys device input keys
/// \param block_bucket_table device table, 2^num_bits rows x gridDim.x columns, row-major
/// \param n number of keys
/// \param first_bit lowest bit of the digit
/// \param num_bits digit width w (1..8)
/// \param descending use the complemented digit
/// \param digits null, or (trace_pass) an array of n receiving each key's digit
template <typename Key, int kKeysPerThread>
__global__ void __launch_bounds__(kThreadsPerBlock)
    count_digits_kernel(const Key* keys, std::uint32_t* block_bucket_table, std::size_t n,
                        int first_bit, int num_bits, bool descending, std::uint32_t* digits) {
  constexpr int kWarps = kThreadsPerBlock / 32;
  constexpr std::uint32_t kTileItems = Tile<kKeysPerThread>::kItems;
  // One histogram per warp: a warp's atomics then only collide among its own 32 lanes, never
  // with the other 7 warps (with 16 buckets, a block-wide histogram would have 256 threads
  // aiming at 16 counters).
  __shared__ std::uint32_t warp_histograms[kWarps][kMaxBuckets];
  const std::uint32_t num_buckets = 1u << num_bits;
  const std::uint32_t t = threadIdx.x;
  const std::uint32_t warp = t / 32;
  const std::size_t tile_first = static_cast<std::size_t>(blockIdx.x) * kTileItems;
  const std::uint32_t tile_n = keys_in_tile(n, tile_first, kTileItems);

  // lab:begin gpu count_digits
  // lab:task Clear the per-warp histograms; load K keys per thread, striped (thread t reads tile
  // lab:task positions t, t + 256, ...: coalesced); add each key's digit to its warp's histogram
  // lab:task (write digits[tile_first + p] when digits is not null); then thread d < num_buckets
  // lab:task writes the sum of the warps' counters of digit d to the table's entry
  // lab:task block_bucket_table[d * gridDim.x + blockIdx.x].
  // Clear the histograms.
  for (std::uint32_t d = t % 32; d < num_buckets; d += 32) warp_histograms[warp][d] = 0;

  // Load K keys per thread, striped: each load instruction of a warp reads 32 consecutive keys
  // (coalesced), and all K loads are issued before any is used, so they are in flight together.
  Key tile_keys[kKeysPerThread];
#pragma unroll
  for (int j = 0; j < kKeysPerThread; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n) tile_keys[j] = keys[tile_first + p];
  }
  __syncthreads();  // histograms cleared

  // Count: every key adds one to its digit's counter in its warp's histogram.
#pragma unroll
  for (int j = 0; j < kKeysPerThread; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n) {
      const std::uint32_t digit = digit_of(tile_keys[j], first_bit, num_bits, descending);
      atomicAdd(&warp_histograms[warp][digit], 1u);
      if (digits != nullptr) digits[tile_first + p] = digit;
    }
  }
  __syncthreads();

  // Write the block bucket table, row-major by bucket: (d, b) at d * num_blocks + b, so one
  // scan of the whole table orders bucket 0 of every block before bucket 1 of any block.
  if (t < num_buckets) {
    std::uint32_t count = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) count += warp_histograms[w][t];
    block_bucket_table[static_cast<std::size_t>(t) * gridDim.x + blockIdx.x] = count;
  }
  // lab:end
}

/// Step 3: block b loads its 256 * K keys, sorts them by digit in shared memory with w rounds of
/// the 1-bit split (each thread ranking K consecutive keys), and writes every key to its global
/// position, coalesced within each bucket.
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
template <typename Key, int kKeysPerThread, bool kHasValues>
__global__ void __launch_bounds__(kThreadsPerBlock)
    local_sort_scatter_kernel(const Key* keys_in, Key* keys_out, const std::uint32_t* values_in,
                              std::uint32_t* values_out, const std::uint32_t* scanned_table,
                              std::size_t n, int first_bit, int num_bits, bool descending,
                              Key* local_sorted) {
  constexpr int kK = kKeysPerThread;
  constexpr std::uint32_t kTileItems = Tile<kK>::kItems;
  constexpr std::uint32_t kPaddedItems = Tile<kK>::kPaddedItems;
  __shared__ Key tile_keys[kPaddedItems];
  __shared__ std::uint32_t tile_values[kHasValues ? kPaddedItems : 1];
  __shared__ BlockScanStorage<kThreadsPerBlock> scan_storage;
  // Per bucket d: global start of (d, b) minus the start of digit d inside the sorted tile, so
  // that the key at tile position p goes to bucket_offset[d] + p (see the scatter below).
  __shared__ std::uint32_t bucket_offset[kMaxBuckets];

  const std::uint32_t num_buckets = 1u << num_bits;
  const std::uint32_t t = threadIdx.x;
  const std::size_t tile_first = static_cast<std::size_t>(blockIdx.x) * kTileItems;
  const std::uint32_t tile_n = keys_in_tile(n, tile_first, kTileItems);

  // lab:begin gpu local_sort_scatter
  // lab:task Load the tile striped into shared memory (tile_keys[padded(p)]); read this block's
  // lab:task bucket starts from the scanned table and scan their counts for the local starts
  // lab:task (bucket_offset[d] = global start - local start); sort the tile by digit with num_bits
  // lab:task rounds of the 1-bit split in which thread t ranks its K consecutive keys (blocked) in
  // lab:task registers around one block_exclusive_sum of its ones; then scatter striped: the key
  // lab:task at tile position p goes to bucket_offset[digit] + p (and local_sorted when not null).
  // Load: the tile from global memory, striped (coalesced), into shared memory.
#pragma unroll
  for (int j = 0; j < kK; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n) {
      tile_keys[padded(p)] = keys_in[tile_first + p];
      if constexpr (kHasValues) tile_values[padded(p)] = values_in[tile_first + p];
    }
  }

  // Bucket starts of this block, from the scanned table: thread d reads the global start of
  // (d, b). Its count is the gap to the next entry in row-major order ((d, b+1), or (d+1, 0)
  // after the last block), because the scan laid the table's entries end to end; the last entry
  // ends at n. An exclusive scan of the counts over the buckets gives where each digit starts
  // inside the sorted tile. (The scan's barriers also make the loaded tile visible to all.)
  const std::size_t table_entries = static_cast<std::size_t>(num_buckets) * gridDim.x;
  const std::size_t entry = static_cast<std::size_t>(t) * gridDim.x + blockIdx.x;
  std::uint32_t global_start = 0, count = 0;
  if (t < num_buckets) {
    global_start = scanned_table[entry];
    const std::uint32_t next =
        entry + 1 < table_entries ? scanned_table[entry + 1] : static_cast<std::uint32_t>(n);
    count = next - global_start;
  }
  std::uint32_t tile_total = 0;
  const std::uint32_t local_start = block_exclusive_sum(count, scan_storage, tile_total);
  // global_start + (p - local_start), regrouped; unsigned wrap-around cancels out exactly.
  if (t < num_buckets) bucket_offset[t] = global_start - local_start;

  // Local split in shared memory: w rounds of the 1-bit split, lowest digit bit first. Each
  // round is stable, so after the last one the tile is sorted by the whole digit. Thread t owns
  // the K consecutive positions t*K .. t*K+K-1 (blocked): it reads its K keys into registers and
  // counts their ones, one block-wide scan of the per-thread counts gives the ones before its
  // first key, and it places its keys in order: a 0 at p - (ones before p), a 1 at
  // (zeros in tile) + (ones before p). The scan's barriers, and the cost of the scan itself, are
  // paid once per K keys: this is where coarsening saves most.
  // Positions past tile_n (last tile only) all lie after the valid keys: they are never read,
  // counted or written, so the formulas only see valid keys.
  const std::uint32_t first_position = t * kK;
  // K divides 32, so a thread's K positions share one 32-key row: their slots are consecutive.
  static_assert(32 % kK == 0, "a thread's keys must not straddle a padding slot");
  const std::uint32_t first_slot = padded(first_position);
  const std::uint32_t my_items =
      tile_n > first_position ? min(static_cast<std::uint32_t>(kK), tile_n - first_position) : 0;
  for (int bit = 0; bit < num_bits; ++bit) {
    Key keys[kK];
    [[maybe_unused]] std::uint32_t values[kK];  // pairs only
    std::uint32_t flags = 0;                    // bit i = the split bit of key i
#pragma unroll
    for (int i = 0; i < kK; ++i) {
      if (static_cast<std::uint32_t>(i) < my_items) {
        keys[i] = tile_keys[first_slot + i];
        if constexpr (kHasValues) values[i] = tile_values[first_slot + i];
        flags |= digit_of(keys[i], first_bit + bit, 1, descending) << i;
      }
    }
    // The scan's barriers sit between every thread's reads above and the writes below.
    std::uint32_t total_ones = 0;
    const std::uint32_t ones_before = block_exclusive_sum(__popc(flags), scan_storage, total_ones);
    std::uint32_t next_zero = first_position - ones_before;        // p - ones before p
    std::uint32_t next_one = (tile_n - total_ones) + ones_before;  // zeros + ones before p
#pragma unroll
    for (int i = 0; i < kK; ++i) {
      if (static_cast<std::uint32_t>(i) < my_items) {
        // These stores are the kernel's one scattered shared-memory access (lanes of a warp hit
        // the same bank now and then); everything else it does in shared memory is conflict-free.
        const std::uint32_t slot = (flags >> i) & 1u ? next_one++ : next_zero++;
        tile_keys[padded(slot)] = keys[i];
        if constexpr (kHasValues) tile_values[padded(slot)] = values[i];
      }
    }
    __syncthreads();  // the round's placement is complete before the next round (or the
                      // scatter) reads; this also publishes bucket_offset (w >= 1 rounds)
  }

  // Coalesced scatter to global memory, striped: the key at tile position p with digit d goes to
  // global_start[d] + (p - local_start[d]). The keys of one bucket are contiguous in the tile and
  // go to contiguous addresses, so neighbouring threads write neighbouring addresses, in runs of
  // about 256 * K / 2^w keys.
#pragma unroll
  for (int j = 0; j < kK; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n) {
      const Key key = tile_keys[padded(p)];
      const std::uint32_t destination =
          bucket_offset[digit_of(key, first_bit, num_bits, descending)] + p;
      keys_out[destination] = key;
      if constexpr (kHasValues) values_out[destination] = tile_values[padded(p)];
      if (local_sorted != nullptr) local_sorted[tile_first + p] = key;
    }
  }
  // lab:end
}

}  // namespace sortlab::stage04
