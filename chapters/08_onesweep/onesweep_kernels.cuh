/// \file
/// \brief Stage 08 kernels: the histogram of every digit place in one read of the keys, the scan
/// of those histograms, and the onesweep kernel that sorts a whole pass by one digit place.
///
/// Status: written and compiled for sm_90, not yet run on a GPU.
///
/// The onesweep kernel reads as six phases: take a tile, load, rank (warp multi-split), publish
/// aggregate, look back, scatter to shared, scatter to global. One thread per digit value does
/// the per-digit work (kThreadsPerBlock == kDigits).
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "chapters/08_onesweep/tile_status.hpp"
#include "common/block_scan.cuh"
#include "common/key_traits.hpp"

namespace sortlab::stage08 {

/// Marks a keys-only sort (the Value of the kernels when there are no values).
struct KeysOnly {};

/// Digit of \p key for one pass: \p num_bits bits from \p first_bit of its ordered bits,
/// complemented for a descending sort (which keeps the sort stable in both directions). The same
/// digit as sortlab::radix_digit(), without its 64-bit arithmetic for 32-bit keys.
/// \param key the key
/// \param first_bit lowest bit of the digit
/// \param num_bits digit width (1..8)
/// \param descending use the complemented ordered bits
template <typename Key>
__device__ __forceinline__ std::uint32_t digit_of(Key key, int first_bit, int num_bits,
                                                  bool descending) {
  const auto ordered = KeyTraits<Key>::to_ordered(key, descending);
  return static_cast<std::uint32_t>(ordered >> first_bit) & ((1u << num_bits) - 1u);
}

/// The bits of a sort, for the histogram kernel.
struct SortBits {
  int begin_bit = 0;        ///< first bit sorted
  int end_bit = 0;          ///< one past the last bit sorted
  bool descending = false;  ///< complemented digits
};

/// Digit places of a key of type Key at most (8 for 64-bit keys).
template <typename Key>
inline constexpr int kMaxPlaces = num_passes(KeyTraits<Key>::kNumBits);

// ---- Histograms of every digit place, in one read ---------------------------------------------

/// Adds the digit counts of every digit place of \p keys to \p histograms (place p's counter of
/// digit d at p * kDigits + d; zeroed by the host). Each block counts a grid-stride share of the
/// keys into shared counters (one row per place), then adds its non-zero counters to the global
/// ones: per block, at most places * 256 global atomics, whatever n is.
/// \param keys device keys
/// \param n number of keys
/// \param bits the sorted bits and the direction
/// \param histograms places x kDigits global counters
template <typename Key>
__global__ void __launch_bounds__(kHistogramThreads)
    histogram_kernel(const Key* keys, std::size_t n, SortBits bits, std::uint32_t* histograms) {
  __shared__ std::uint32_t counts[kMaxPlaces<Key>][kDigits];
  const int places = num_passes(bits.end_bit - bits.begin_bit);
  for (int i = threadIdx.x; i < kMaxPlaces<Key> * kDigits; i += blockDim.x)
    counts[i / kDigits][i % kDigits] = 0;
  __syncthreads();

  // Count: every key adds one to one counter of every place.
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const Key key = keys[i];
#pragma unroll
    for (int place = 0; place < kMaxPlaces<Key>; ++place) {
      if (place >= places) break;
      const int first_bit = bits.begin_bit + place * kRadixBits;
      const int width = min(kRadixBits, bits.end_bit - first_bit);
      atomicAdd(&counts[place][digit_of(key, first_bit, width, bits.descending)], 1u);
    }
  }
  __syncthreads();

  // Flush: one global atomic per non-zero counter.
  for (int i = threadIdx.x; i < places * kDigits; i += blockDim.x) {
    const std::uint32_t count = counts[i / kDigits][i % kDigits];
    if (count != 0) atomicAdd(&histograms[i], count);
  }
}

/// Block p scans place p's histogram: \p digit_starts[p * kDigits + d] is the number of keys with
/// a smaller digit in place p, where the pass over place p puts its first key of digit d.
/// Launched with one block per place and kDigits threads.
/// \param histograms places x kDigits counts
/// \param digit_starts places x kDigits exclusive scans
__global__ void __launch_bounds__(kDigits)
    scan_histograms_kernel(const std::uint32_t* histograms, std::uint32_t* digit_starts) {
  __shared__ BlockScanStorage<kDigits> storage;
  const std::size_t entry = static_cast<std::size_t>(blockIdx.x) * kDigits + threadIdx.x;
  std::uint32_t total = 0;
  digit_starts[entry] = block_exclusive_sum<kDigits>(histograms[entry], storage, total);
}

// ---- One pass: the onesweep kernel
// ---------------------------------------------------------------

/// The arrays one pass reads and writes (values null for a keys-only sort).
template <typename Key, typename Value>
struct PassArrays {
  const Key* keys_in;      ///< source keys
  Key* keys_out;           ///< target keys
  const Value* values_in;  ///< source values
  Value* values_out;       ///< target values
};

/// Everything but the arrays that one pass needs.
struct PassParams {
  int first_bit = 0;                            ///< lowest bit of the digit
  int num_bits = kRadixBits;                    ///< digit width (the last place may be narrower)
  bool descending = false;                      ///< complemented digits
  std::size_t n = 0;                            ///< number of keys
  std::uint32_t num_tiles = 0;                  ///< tiles of the pass (= blocks)
  const std::uint32_t* digit_starts = nullptr;  ///< this place's kDigits scanned counts
  /// num_tiles x kDigits status words (tile_status.hpp), zeroed before the kernel.
  std::uint32_t* tile_status = nullptr;
  std::uint32_t* tile_counter = nullptr;  ///< this pass's tile counter, zeroed before the sort
};

/// Device arrays trace_pass fills (all null in a sort).
struct OnesweepTrace {
  std::uint32_t* digits = nullptr;              ///< per key: its digit
  std::uint32_t* ranks = nullptr;               ///< per key: its rank in the tile
  std::uint32_t* tile_counts = nullptr;         ///< per (tile, digit): the aggregate
  std::uint32_t* exclusive_prefixes = nullptr;  ///< per (tile, digit): what the look-back found
};

/// A relaxed, device-scope view of one status word: one 32-bit load or store, which no other
/// SM can see half done, and which the compiler may not keep in a register while it spins.
__device__ __forceinline__ cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device> status_word(
    std::uint32_t* words, std::size_t index) {
  return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(words[index]);
}

/// Sorts one tile of the pass by its digit and writes it to its place in the output. Blocks take
/// tiles in the order they start (an atomic counter, not blockIdx.x), so a tile only ever waits
/// on tiles whose blocks are already running: the look-back cannot deadlock whatever order the
/// hardware schedules blocks in.
/// \param arrays source and target of the pass
/// \param pass the digit place, the tile status words and the tile counter
/// \param trace null pointers, or (trace_pass) arrays for the intermediate steps
template <typename Key, typename Value, bool kHasValues>
__global__ void __launch_bounds__(kThreadsPerBlock, kOnesweepBlocksPerSm)
    onesweep_kernel(PassArrays<Key, Value> arrays, PassParams pass, OnesweepTrace trace) {
  constexpr int kK = keys_per_thread_for(sizeof(Key));
  constexpr std::uint32_t kTileItems = tile_items_for(sizeof(Key));
  constexpr std::uint32_t kWarpItems = 32 * kK;  // a warp's share of the tile
  using Bits = typename KeyTraits<Key>::Bits;
  using ExchangedValue = std::conditional_t<kHasValues, Value, unsigned char>;
  // The warps' digit counters and the exchange buffers are never live at once.
  __shared__ union Storage {
    std::uint32_t warp_counts[kWarpsPerBlock][kDigits];  ///< rank: per warp, per digit
    Bits keys[kTileItems];                               ///< scatter: the tile by rank
    ExchangedValue values[kHasValues ? kTileItems : 1];  ///< scatter: the values by rank
  } storage;
  __shared__ BlockScanStorage<kThreadsPerBlock> scan_storage;
  __shared__ std::uint32_t tile_digit_start[kDigits];  // first rank of digit d in the tile
  // Output position of the tile's first key of digit d, minus tile_digit_start[d]: the key at
  // tile rank p with digit d goes to global_offset[d] + p.
  __shared__ std::uint32_t global_offset[kDigits];
  __shared__ std::uint32_t shared_tile;

  const std::uint32_t t = threadIdx.x, lane = t % 32, warp = t / 32;
  const std::uint32_t digit = t;  // the digit this thread publishes and looks back for

  // ---- Take a tile: the next one in start order.
  if (t == 0) shared_tile = atomicAdd(pass.tile_counter, 1u);
  for (int d = lane; d < kDigits; d += 32) storage.warp_counts[warp][d] = 0;
  __syncthreads();
  const std::uint32_t tile = shared_tile;
  const std::size_t tile_first = static_cast<std::size_t>(tile) * kTileItems;
  const std::uint32_t tile_n = static_cast<std::uint32_t>(
      pass.n - tile_first < kTileItems ? pass.n - tile_first : kTileItems);

  // ---- Load, warp-striped: warp w owns tile positions [w * 32K, (w + 1) * 32K), and in step i
  // its lanes read 32 consecutive keys (coalesced). Tile order = (warp, step, lane) order, which
  // is the order the rank below counts in: that makes it stable.
  const auto position = [&](int i) { return warp * kWarpItems + i * 32 + lane; };
  Key keys[kK];
#pragma unroll
  for (int i = 0; i < kK; ++i)
    if (position(i) < tile_n) keys[i] = arrays.keys_in[tile_first + position(i)];

  // ---- Rank, warp multi-split: in each step the lanes with equal digits find each other
  // (__match_any_sync), the highest of them adds the group's size to the warp's counter, and
  // each lane's rank among the warp's keys of its digit is the counter before plus the group
  // lanes below it. Past-the-end positions get digit kDigits, which has no counter.
  std::uint32_t ranks[kK];
  const std::uint32_t lanes_below = (1u << lane) - 1u;
#pragma unroll
  for (int i = 0; i < kK; ++i) {
    const bool valid = position(i) < tile_n;
    const std::uint32_t d =
        valid ? digit_of(keys[i], pass.first_bit, pass.num_bits, pass.descending) : kDigits;
    const std::uint32_t peers = __match_any_sync(0xffffffffu, d);
    const std::uint32_t before = valid ? storage.warp_counts[warp][d] : 0u;
    __syncwarp();  // every peer has read the counter before the leader moves it on
    if (valid && lane == 31u - __clz(peers)) storage.warp_counts[warp][d] = before + __popc(peers);
    __syncwarp();
    ranks[i] = before + __popc(peers & lanes_below);
  }
  __syncthreads();
  // Per digit: the tile's count, and each warp's counter becomes the keys of the digit in the
  // warps before it.
  std::uint32_t tile_count = 0;
#pragma unroll
  for (int w = 0; w < kWarpsPerBlock; ++w) {
    const std::uint32_t count = storage.warp_counts[w][digit];
    storage.warp_counts[w][digit] = tile_count;
    tile_count += count;
  }

  // ---- Publish aggregate, as early as possible: later tiles may be waiting for it. Tile 0's
  // aggregate is already its inclusive prefix.
  const std::size_t my_word = static_cast<std::size_t>(tile) * kDigits + digit;
  status_word(pass.tile_status, my_word)
      .store(pack_status(tile == 0 ? TileFlag::kPrefix : TileFlag::kAggregate, tile_count),
             cuda::memory_order_relaxed);
  std::uint32_t tile_total = 0;
  tile_digit_start[digit] =
      block_exclusive_sum<kThreadsPerBlock>(tile_count, scan_storage, tile_total);

  // ---- Look back: add predecessors' words until one holds an inclusive prefix; spin on a tile
  // that has published nothing yet (it is running: it took its tile before this one did).
  std::uint32_t exclusive = 0;
  if (tile > 0) {
    std::uint32_t predecessor = tile - 1;
    while (true) {
      const std::uint32_t word =
          status_word(pass.tile_status, static_cast<std::size_t>(predecessor) * kDigits + digit)
              .load(cuda::memory_order_relaxed);
      const TileFlag flag = status_flag(word);
      if (flag == TileFlag::kNotReady) continue;
      exclusive += status_count(word);
      if (flag == TileFlag::kPrefix) break;
      --predecessor;  // an aggregate: tile 0 always holds a prefix, so this stays >= 0
    }
    // The last tile's inclusive prefix is never read (and is the one count that could reach
    // 2^30), so it is not published.
    if (tile + 1 < pass.num_tiles)
      status_word(pass.tile_status, my_word)
          .store(pack_status(TileFlag::kPrefix, exclusive + tile_count),
                 cuda::memory_order_relaxed);
  }
  global_offset[digit] = pass.digit_starts[digit] + exclusive - tile_digit_start[digit];
  if (trace.tile_counts != nullptr) {
    trace.tile_counts[my_word] = tile_count;
    trace.exclusive_prefixes[my_word] = exclusive;
  }
  __syncthreads();  // tile_digit_start and the warps' starts are written

  // Ranks in the tile: keys of smaller digits, of the same digit in earlier warps, of the same
  // digit earlier in this warp.
#pragma unroll
  for (int i = 0; i < kK; ++i) {
    if (position(i) >= tile_n) continue;
    const std::uint32_t d = digit_of(keys[i], pass.first_bit, pass.num_bits, pass.descending);
    ranks[i] += tile_digit_start[d] + storage.warp_counts[warp][d];
    if (trace.ranks != nullptr) {
      trace.ranks[tile_first + position(i)] = ranks[i];
      trace.digits[tile_first + position(i)] = d;
    }
  }
  __syncthreads();  // the counters are read: the exchange may overwrite them

  // ---- Scatter to shared: every key to its rank; the tile is now sorted by digit.
#pragma unroll
  for (int i = 0; i < kK; ++i)
    if (position(i) < tile_n) storage.keys[ranks[i]] = KeyTraits<Key>::raw_bits(keys[i]);
  __syncthreads();

  // ---- Scatter to global, striped: each digit's keys are consecutive in the tile and go to
  // consecutive addresses. Pair sorts keep each position's digit, four to a register, for the
  // values.
  [[maybe_unused]] std::uint32_t packed_digits[(kK + 3) / 4] = {};
#pragma unroll
  for (int j = 0; j < kK; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n) {
      const Key key = KeyTraits<Key>::from_raw_bits(storage.keys[p]);
      const std::uint32_t d = digit_of(key, pass.first_bit, pass.num_bits, pass.descending);
      arrays.keys_out[global_offset[d] + p] = key;
      if constexpr (kHasValues) packed_digits[j / 4] |= d << (8 * (j % 4));
    }
  }

  if constexpr (kHasValues) {
    // Values take the keys' route: warp-striped in (the positions the ranks belong to), to
    // their ranks in shared memory, striped out to the keys' destinations.
    Value values[kK];
#pragma unroll
    for (int i = 0; i < kK; ++i)
      if (position(i) < tile_n) values[i] = arrays.values_in[tile_first + position(i)];
    __syncthreads();  // the keys are read out of the exchange
#pragma unroll
    for (int i = 0; i < kK; ++i)
      if (position(i) < tile_n) storage.values[ranks[i]] = values[i];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kK; ++j) {
      const std::uint32_t p = t + j * kThreadsPerBlock;
      if (p < tile_n) {
        const std::uint32_t d = (packed_digits[j / 4] >> (8 * (j % 4))) & 0xFFu;
        arrays.values_out[global_offset[d] + p] = storage.values[p];
      }
    }
  }
}

}  // namespace sortlab::stage08
