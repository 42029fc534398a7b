/// \file
/// \brief Stage 08 kernels: the histogram of every digit place in one read of the keys, the scan
/// of those histograms, and the onesweep kernel that sorts a whole pass by one digit place.
///
/// Verified on the H100 (ctest -L stage08, compute-sanitizer; README point 13's kernel) and on an
/// H200 (point 14's, the staged pair values); against CUB: README.
///
/// The onesweep kernel reads as its phases: take a tile, load, count, publish aggregate, rank
/// (warp multi-split), scatter to shared (a pair sort's values staged beside the keys by
/// asynchronous copies), look back, scatter to global. Threads 0 .. kDigits - 1
/// do the per-digit work, one digit value each.
#pragma once

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "chapters/08_onesweep/onesweep_sort.hpp"
#include "chapters/08_onesweep/pass_roles.hpp"
#include "common/async_copy.cuh"
#include "common/block_scan.cuh"
#include "common/device_properties.hpp"
#include "common/key_traits.hpp"
#include "common/tile_status.hpp"
#include "common/warp_multisplit.cuh"

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

  // Count: every key adds one to one counter of every place. Each thread first loads several
  // keys a grid stride apart, then counts them: the loads are all in flight at once (one at a
  // time would leave the memory system idle between atomics).
  const auto count_key = [&](Key key) {
#pragma unroll
    for (int place = 0; place < kMaxPlaces<Key>; ++place) {
      if (place >= places) break;
      const int first_bit = bits.begin_bit + place * kRadixBits;
      const int width = min(kRadixBits, bits.end_bit - first_bit);
      atomicAdd(&counts[place][digit_of(key, first_bit, width, bits.descending)], 1u);
    }
  };
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t thread_index = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::size_t i = thread_index;
  if (reinterpret_cast<std::uintptr_t>(keys) % sizeof(uint4) == 0) {
    // Aligned keys (any cudaMalloc'd array) are read as 16-byte words, kHistogramWordsPerThread
    // per thread in flight: the same bytes in flight as the scalar loop below with a quarter of
    // its load instructions (a keys pointer into the middle of an allocation takes that loop).
    using Bits = typename KeyTraits<Key>::Bits;
    constexpr int kKeysPerWord = sizeof(uint4) / sizeof(Key);
    const std::size_t words = n / kKeysPerWord;
    const uint4* const key_words = reinterpret_cast<const uint4*>(keys);
    const auto count_word = [&](const uint4& word) {
      Bits bits[kKeysPerWord];
      memcpy(bits, &word, sizeof(word));
#pragma unroll
      for (int k = 0; k < kKeysPerWord; ++k) count_key(KeyTraits<Key>::from_raw_bits(bits[k]));
    };
    std::size_t w = thread_index;
    for (; w + (kHistogramWordsPerThread - 1) * stride < words;
         w += stride * kHistogramWordsPerThread) {
      uint4 batch[kHistogramWordsPerThread];
#pragma unroll
      for (int j = 0; j < kHistogramWordsPerThread; ++j) batch[j] = key_words[w + j * stride];
#pragma unroll
      for (int j = 0; j < kHistogramWordsPerThread; ++j) count_word(batch[j]);
    }
    for (; w < words; w += stride) count_word(key_words[w]);
    // The keys after the last whole word: fewer than kKeysPerWord, one per thread (the grid has
    // at least kHistogramThreads threads).
    const std::size_t tail_key = words * kKeysPerWord + thread_index;
    if (tail_key < n) count_key(keys[tail_key]);
    i = n;  // every key is counted: the scalar loops below have nothing left
  }
  const std::size_t batch_stride = stride * kHistogramKeysPerThread;
  for (; i + (kHistogramKeysPerThread - 1) * stride < n; i += batch_stride) {
    Key batch[kHistogramKeysPerThread];
#pragma unroll
    for (int j = 0; j < kHistogramKeysPerThread; ++j) batch[j] = keys[i + j * stride];
#pragma unroll
    for (int j = 0; j < kHistogramKeysPerThread; ++j) count_key(batch[j]);
  }
  for (; i < n; i += stride) count_key(keys[i]);  // the last, partial batch
  __syncthreads();

  // Flush: one global atomic per non-zero counter.
  for (int i = threadIdx.x; i < places * kDigits; i += blockDim.x) {
    const std::uint32_t count = counts[i / kDigits][i % kDigits];
    if (count != 0) atomicAdd(&histograms[i], count);
  }
}

/// Block p scans place p's histograms. The keys are counted per chunk (one histogram kernel
/// launch per chunk of at most chunk_items_for() keys, so each count fits 32 bits): chunk c's count
/// of digit d in place p is at `chunk_histograms[(c * places + p) * kDigits + d]`. Thread d sums
/// digit d's counts over the chunks (64-bit: a sort may hold more than 2^32 keys), and the block
/// scans the sums: \p digit_starts[p * kDigits + d] is where pass p puts its first key of digit
/// d. If one digit holds all \p n keys the pass would change nothing, and its bit of
/// \p running_passes (zeroed by the host) stays clear: the pass is skipped (pass_roles.hpp).
/// Launched with one block per place and kDigits threads. `static`: every file that includes this
/// header (one per key type, instances/) launches its own copy.
/// \param chunk_histograms chunks x places x kDigits counts
/// \param num_chunks chunks of the sort (at least 1)
/// \param num_places digit places (passes) of the sort
/// \param n keys of the sort
/// \param digit_starts places x kDigits output positions
/// \param running_passes receives bit p for every pass p that must run (null: not recorded)
static __global__ void __launch_bounds__(kDigits)
    scan_histograms_kernel(const std::uint32_t* chunk_histograms, int num_chunks, int num_places,
                           std::size_t n, std::uint64_t* digit_starts,
                           std::uint32_t* running_passes) {
  __shared__ std::uint64_t sums[kDigits];
  const int place = blockIdx.x, digit = threadIdx.x;
  std::uint64_t total = 0;
  for (int chunk = 0; chunk < num_chunks; ++chunk)
    total +=
        chunk_histograms[(static_cast<std::size_t>(chunk) * num_places + place) * kDigits + digit];

  // A pass runs unless one digit holds every key.
  const bool trivial = __syncthreads_or(total == n) != 0;
  if (digit == 0 && !trivial && running_passes != nullptr) atomicOr(running_passes, 1u << place);

  // Inclusive scan of the 256 sums (Hillis-Steele: 8 steps; once per sort, so simplicity wins).
  sums[digit] = total;
  __syncthreads();
  for (int offset = 1; offset < kDigits; offset *= 2) {
    const std::uint64_t add = digit >= offset ? sums[digit - offset] : 0;
    __syncthreads();
    sums[digit] += add;
    __syncthreads();
  }
  digit_starts[static_cast<std::size_t>(place) * kDigits + digit] = sums[digit] - total;
}

// ---- One pass: the onesweep kernel
// ---------------------------------------------------------------

/// The arrays of a sort (values null for a keys-only sort); each pass picks its source and target
/// among them (pass_roles.hpp).
template <typename Key, typename Value>
struct PassArrays {
  const Key* keys_in;       ///< the caller's input keys
  Key* keys_out;            ///< the caller's output keys
  Key* keys_alternate;      ///< the scratch copy of the keys
  const Value* values_in;   ///< the caller's input values
  Value* values_out;        ///< the caller's output values
  Value* values_alternate;  ///< the scratch copy of the values
};

/// Everything but the arrays that one launch (one pass over one chunk) needs.
struct PassParams {
  int pass = 0;                 ///< the digit place (its bit in the running mask)
  int first_bit = 0;            ///< lowest bit of the digit
  int num_bits = kRadixBits;    ///< digit width (the last place may be narrower)
  bool descending = false;      ///< complemented digits
  std::size_t chunk_first = 0;  ///< the chunk's first key in the arrays
  std::size_t n = 0;            ///< keys of the chunk
  std::uint32_t num_tiles = 0;  ///< tiles of the chunk (= blocks)
  /// Where the chunk's first key of each digit goes (kDigits entries, 64-bit): for chunk 0 the
  /// scan kernel's digit starts, for a later chunk what the chunk before it left in
  /// next_chunk_starts.
  const std::uint64_t* digit_starts = nullptr;
  /// Null for the last chunk; otherwise the chunk's last tile writes here where the next chunk's
  /// first key of each digit goes (digit_starts plus the chunk's keys of that digit). The keys
  /// that lie in a chunk change from pass to pass, so no histogram of the input can say this.
  std::uint64_t* next_chunk_starts = nullptr;
  /// num_tiles x kDigits status words (tile_status.hpp), zeroed before the kernel.
  std::uint32_t* tile_status = nullptr;
  std::uint32_t* tile_counter = nullptr;  ///< this launch's tile counter, zeroed before the sort
  /// The scan kernel's running mask (pass_roles.hpp), or null: run, input to output (trace_pass).
  const std::uint32_t* running_passes = nullptr;
};

/// Device arrays trace_pass fills (all null in a sort).
struct OnesweepTrace {
  std::uint32_t* digits = nullptr;              ///< per key: its digit
  std::uint32_t* ranks = nullptr;               ///< per key: its rank in the tile
  std::uint32_t* tile_counts = nullptr;         ///< per (tile, digit): the aggregate
  std::uint32_t* exclusive_prefixes = nullptr;  ///< per (tile, digit): what the look-back found
};

/// The tile of one onesweep kernel instantiation and the shared memory its block needs. The
/// storage is dynamic shared memory (the kernel's launch asks for sizeof(Storage)), so a tile may
/// use more than the 48 KiB a block's static shared memory is limited to.
template <typename Key, typename Value, bool kHasValues>
struct OnesweepTile {
  /// The value type (a placeholder byte for a keys-only sort).
  using ExchangedValue = std::conditional_t<kHasValues, Value, unsigned char>;
  /// Bytes of a value, 0 for a keys-only sort: 8-byte values take smaller tiles.
  static constexpr std::size_t kValueBytes = kHasValues ? sizeof(Value) : 0;
  static constexpr int kK = keys_per_thread_for(sizeof(Key), kValueBytes);  ///< keys per thread
  /// Keys per tile.
  static constexpr std::uint32_t kTileItems = tile_items_for(sizeof(Key), kValueBytes);
  static constexpr std::uint32_t kWarpItems = 32 * kK;  ///< a warp's share of the tile
  /// The key's raw bits: what the exchange buffer holds.
  using Bits = typename KeyTraits<Key>::Bits;

  /// Everything the block keeps in shared memory.
  struct Storage {
    // The warps' digit counters live apart from the exchange buffer, so that a key can go to its
    // place in shared memory the moment it is ranked (no array of ranks held in registers).
    std::uint32_t warp_counts[kWarpsPerBlock][kDigits];  ///< rank: per warp, per digit
    /// The tile by rank: sorted by digit, on its way to coalesced global writes.
    Bits exchange_keys[kTileItems];
    /// A pair sort's values by rank, copied there from global memory while the keys are ranked.
    ExchangedValue exchange_values[kHasValues ? kTileItems : 1];
    BlockScanStorage<kThreadsPerBlock> scan;  ///< the block scan of the tile's digit counts
    /// Output position of the tile's first key of digit d, minus that key's tile rank: the key at
    /// tile rank p with digit d goes to global_offset[d] + p (64-bit: a sort may pass 2^32 keys).
    std::uint64_t global_offset[kDigits];
    std::uint32_t tile;  ///< the tile this block took
  };
  static_assert(onesweep_blocks_per_sm(kHasValues, sizeof(Key)) *
                        (sizeof(Storage) + kSharedMemoryReservedPerBlock) <=
                    kSharedMemoryPerSm,
                "the blocks per SM that __launch_bounds__ asks for fit the SM's shared memory");
};

/// Sorts one tile of the pass by its digit and writes it to its place in the output. Blocks take
/// tiles in the order they start (an atomic counter, not blockIdx.x), so a tile only ever waits
/// on tiles whose blocks are already running: the look-back cannot deadlock whatever order the
/// hardware schedules blocks in. Launched with sizeof(OnesweepTile<Key, Value,
/// kHasValues>::Storage) bytes of dynamic shared memory.
/// \param arrays source and target of the pass
/// \param pass the digit place, the tile status words and the tile counter
/// \param trace with \p kTraced (trace_pass only), arrays for the intermediate steps; a sort's
///        kernel is instantiated without it, so it carries no code for them
template <typename Key, typename Value, bool kHasValues, bool kTraced = false>
__global__ void __launch_bounds__(kThreadsPerBlock, onesweep_blocks_per_sm(kHasValues, sizeof(Key)))
    onesweep_kernel(PassArrays<Key, Value> arrays, PassParams pass, OnesweepTrace trace) {
  using Tile = OnesweepTile<Key, Value, kHasValues>;
  using Bits = typename Tile::Bits;
  constexpr int kK = Tile::kK;
  constexpr std::uint32_t kTileItems = Tile::kTileItems;
  extern __shared__ __align__(16) unsigned char onesweep_shared_bytes[];
  auto& shared = *reinterpret_cast<typename Tile::Storage*>(onesweep_shared_bytes);

  const std::uint32_t t = threadIdx.x, lane = t % 32, warp = t / 32;
  // Threads 0 .. kDigits - 1 each own one digit: they publish and look back for it.
  const std::uint32_t digit = t;
  const bool owns_digit = t < kDigits;

  // ---- Take a tile: the next one in start order. The running mask (the role, below) is read at
  // the same time, so that its latency overlaps the atomic's.
  if (t == 0) shared.tile = atomicAdd(pass.tile_counter, 1u);
  const std::uint32_t running = pass.running_passes == nullptr ? 0u : *pass.running_passes;
  for (int d = lane; d < kDigits; d += 32) shared.warp_counts[warp][d] = 0;
  __syncthreads();

  // ---- Role: a pass whose digit is the same for every key returns at once (the histograms
  // showed it; pass_roles.hpp); when no pass runs, pass 0 copies the input to the output.
  // Otherwise the role picks the arrays this pass reads and writes. (A skipped pass's blocks have
  // taken tiles too: harmless, nothing reads that counter again.)
  const PassRole role = pass.running_passes == nullptr ? PassRole{} : pass_role(running, pass.pass);
  if (!role.runs) {
    if (role.copies) {
      const std::size_t first =
          pass.chunk_first + static_cast<std::size_t>(blockIdx.x) * kTileItems;
      const std::size_t end = pass.chunk_first + pass.n < first + kTileItems
                                  ? pass.chunk_first + pass.n
                                  : first + kTileItems;
      for (std::size_t i = first + t; i < end; i += kThreadsPerBlock) {
        arrays.keys_out[i] = arrays.keys_in[i];
        if constexpr (kHasValues) arrays.values_out[i] = arrays.values_in[i];
      }
    }
    return;
  }
  const auto pick = [&](SortArray which, auto* input, auto* output, auto* alternate) {
    return which == SortArray::kInput ? input : which == SortArray::kOutput ? output : alternate;
  };
  // The source is offset to the chunk (tiles index it from 0). The targets, which take 64-bit
  // output positions, are picked at the scatter from one flag: a pointer held through the rank
  // would take registers where they are scarcest.
  const bool writes_output = role.target == SortArray::kOutput;
  const Key* const source_keys =
      pick(role.source, arrays.keys_in, const_cast<const Key*>(arrays.keys_out),
           const_cast<const Key*>(arrays.keys_alternate)) +
      pass.chunk_first;
  [[maybe_unused]] const Value* source_values = nullptr;
  if constexpr (kHasValues)
    source_values = pick(role.source, arrays.values_in, const_cast<const Value*>(arrays.values_out),
                         const_cast<const Value*>(arrays.values_alternate)) +
                    pass.chunk_first;

  const std::uint32_t tile = shared.tile;
  const std::size_t tile_first = static_cast<std::size_t>(tile) * kTileItems;
  const std::uint32_t tile_n = static_cast<std::uint32_t>(
      pass.n - tile_first < kTileItems ? pass.n - tile_first : kTileItems);

  // The tile is sorted by one of two copies of the code below: a full tile's, with no bounds
  // check on any key, and the last tile's.
  const auto sort_tile = [&](auto full_tile) {
    constexpr bool kFullTile = decltype(full_tile)::value;
    const auto in_tile = [&](std::uint32_t p) { return kFullTile || p < tile_n; };

    // ---- Load, warp-striped: warp w owns tile positions [w * 32K, (w + 1) * 32K), and in step i
    // its lanes read 32 consecutive keys (coalesced). Tile order = (warp, step, lane) order, which
    // is the order the rank below counts in: that makes it stable.
    const auto position = [&](int i) { return warp * Tile::kWarpItems + i * 32 + lane; };
    Key keys[kK];
#pragma unroll
    for (int i = 0; i < kK; ++i)
      if (in_tile(position(i))) keys[i] = source_keys[tile_first + position(i)];

    // ---- Count: each warp counts its keys per digit (shared atomics), before any key is ranked,
    // so the tile can publish its counts early. Past-the-end positions get digit kDigits, which
    // has no counter.
    // (Recomputed where needed: a shift and a mask cost less than kK more live registers. So
    // does the key's order-preserving transform, redone for every digit taken: transformed once
    // on the way in and undone on the way out, as CUB does, the keys took more registers and the
    // sorts were slower, 2^28 u32 keys 5.95 ms against 5.63 and (f32, i64) pairs 16.5 against
    // 13.5.)
    const auto digit_at = [&](int i) {
      return in_tile(position(i))
                 ? digit_of(keys[i], pass.first_bit, pass.num_bits, pass.descending)
                 : static_cast<std::uint32_t>(kDigits);
    };
#pragma unroll
    for (int i = 0; i < kK; ++i) {
      const std::uint32_t d = digit_at(i);
      if (kFullTile || d < kDigits) atomicAdd(&shared.warp_counts[warp][d], 1u);
    }
    __syncthreads();
    // Per digit: the tile's count, and each warp's counter becomes the keys of the digit in the
    // warps before it.
    std::uint32_t tile_count = 0;
    if (owns_digit) {
#pragma unroll
      for (int w = 0; w < kWarpsPerBlock; ++w) {
        const std::uint32_t count = shared.warp_counts[w][digit];
        shared.warp_counts[w][digit] = tile_count;
        tile_count += count;
      }
    }

    // ---- Publish aggregate, as early as possible: later tiles may be waiting for it. Tile 0's
    // aggregate is already its inclusive prefix.
    const std::size_t my_word = static_cast<std::size_t>(tile) * kDigits + digit;
    if (owns_digit)
      status_word(pass.tile_status, my_word)
          .store(pack_status(tile == 0 ? TileFlag::kPrefix : TileFlag::kAggregate, tile_count),
                 cuda::memory_order_relaxed);

    // The first look-back read goes out now; the rank and the scatter to shared below hide its
    // latency (a look-back is a chain of dependent reads of words other SMs write).
    const auto read_status = [&](std::uint32_t of_tile) {
      return status_word(pass.tile_status, static_cast<std::size_t>(of_tile) * kDigits + digit)
          .load(cuda::memory_order_relaxed);
    };
    std::uint32_t word = owns_digit && tile > 0 ? read_status(tile - 1) : 0u;

    // Each warp's counter of digit d becomes the tile rank of the warp's first key of digit d:
    // the keys of smaller digits in the tile plus those of digit d in earlier warps.
    std::uint32_t tile_total = 0;
    const std::uint32_t digit_start =
        block_exclusive_sum<kThreadsPerBlock>(tile_count, shared.scan, tile_total);
    if (owns_digit) {
#pragma unroll
      for (int w = 0; w < kWarpsPerBlock; ++w) shared.warp_counts[w][digit] += digit_start;
    }

    // ---- Look back: add predecessors' words until one holds an inclusive prefix; wait on a tile
    // that has published nothing yet (it is running: it took its tile before this one did).
    // Where it runs is a tile constant (kLookBackBeforeRank): after the scatter to shared its
    // latency hides behind that work; before the rank, this tile's prefix is out sooner.
    const auto look_back = [&] {
      std::uint32_t exclusive = 0;
      if (owns_digit && tile > 0) {
        // The words of kLookbackWindow predecessors are read at once (independent loads, one
        // round trip), then added nearest first up to the first prefix; a tile that has published
        // nothing ends the window, and the next window starts at it.
        std::uint32_t predecessor = tile - 1;  // the nearest predecessor not added yet
        std::uint32_t window[kLookbackWindow];
        window[0] = word;  // read before the rank
#pragma unroll
        for (int j = 1; j < kLookbackWindow; ++j)
          window[j] =
              predecessor >= static_cast<std::uint32_t>(j) ? read_status(predecessor - j) : 0u;
        while (true) {
          std::uint32_t added = 0;
          bool stop = false, found_prefix = false;
#pragma unroll
          for (int j = 0; j < kLookbackWindow; ++j) {
            if (stop) continue;
            const TileFlag flag = status_flag(window[j]);
            if (flag == TileFlag::kNotReady) {
              stop = true;
              continue;
            }
            exclusive += status_count(window[j]);
            ++added;
            found_prefix = stop = flag == TileFlag::kPrefix;
          }
          if (found_prefix) break;
          // Tile 0 always publishes a prefix, so the walk never passes it.
          predecessor -= added;
          if constexpr (kLookbackBackoffNs > 0)
            if (added == 0) __nanosleep(kLookbackBackoffNs);
#pragma unroll
          for (int j = 0; j < kLookbackWindow; ++j)
            window[j] =
                predecessor >= static_cast<std::uint32_t>(j) ? read_status(predecessor - j) : 0u;
        }
        // The last tile's inclusive prefix is never read (and is the one count that could reach
        // 2^30), so it is not published.
        if (tile + 1 < pass.num_tiles)
          status_word(pass.tile_status, my_word)
              .store(pack_status(TileFlag::kPrefix, exclusive + tile_count),
                     cuda::memory_order_relaxed);
      }
      // Modulo 2^64, exclusive - digit_start may wrap below zero; adding a tile rank p >= the
      // digit's first rank brings every used position back to its true value.
      if (owns_digit) {
        const std::uint64_t chunk_start = pass.digit_starts[digit];
        shared.global_offset[digit] = chunk_start + exclusive - std::uint64_t{digit_start};
        if (tile + 1 == pass.num_tiles && pass.next_chunk_starts != nullptr)
          pass.next_chunk_starts[digit] = chunk_start + exclusive + tile_count;
      }
      if constexpr (kTraced) {
        if (owns_digit) {
          trace.tile_counts[my_word] = tile_count;
          trace.exclusive_prefixes[my_word] = exclusive;
        }
      }
    };
    if constexpr (kLookBackBeforeRank) look_back();
    __syncthreads();

    // ---- Rank, warp multi-split, and scatter to shared: in each step the lanes with equal
    // digits find each other (lanes_with_same_digit: one ballot per digit bit; a partial tile's
    // past-the-end lanes, digit kDigits, also split on that ninth bit); the highest of them moves
    // the warp's counter on by the group's size with one atomic and hands the old value to the
    // group (a shuffle), and each lane's rank is that value plus the group's lanes below it. Steps
    // run in key order, so the rank is stable. A rank is final the moment it is known, so the key
    // goes to its place in the tile at once. (CUB's other match, each lane ORing its bit into a
    // shared mask per warp and digit, measured no faster here: 2^28 u32 keys 5.72 ms against
    // 5.75, 2^24 0.429 against 0.414, (f32, i64) pairs 4% slower.)
    //
    // ---- Stage values: a pair sort's value goes the same way, from global memory straight to
    // its rank in shared memory, by an asynchronous copy (cp.async) issued the moment the rank is
    // known. No register holds a value or a rank while the look-back runs, and the copies are in
    // flight behind it. Loaded into registers instead (before the look-back for values of up to
    // the key's width, after it for wider ones), with the same tiles, they took 0.4-12% longer,
    // and they held the registers that now let a pair sort's tile grow (README, point 14).
#pragma unroll
    for (int i = 0; i < kK; ++i) {
      const std::uint32_t d = digit_at(i);
      const bool has_digit = kFullTile || d < kDigits;
      const std::uint32_t rank =
          kFullTile
              ? warp_multisplit_rank<kRadixBits>(d, has_digit, shared.warp_counts[warp], lane)
              : warp_multisplit_rank<kRadixBits + 1>(d, has_digit, shared.warp_counts[warp], lane);
      if (in_tile(position(i))) {
        shared.exchange_keys[rank] = KeyTraits<Key>::raw_bits(keys[i]);
        if constexpr (kHasValues)
          async_copy(&shared.exchange_values[rank], &source_values[tile_first + position(i)]);
      }
      if constexpr (kTraced) {
        if (d < kDigits) {
          trace.ranks[tile_first + position(i)] = rank;
          trace.digits[tile_first + position(i)] = d;
        }
      }
    }
    if constexpr (kHasValues) async_copy_commit();

    // ---- Look back (see look_back above), unless it ran before the rank.
    if constexpr (!kLookBackBeforeRank) look_back();
    if constexpr (kHasValues) async_copy_wait_all();  // this thread's value copies have landed
    __syncthreads();  // the offsets, the sorted tile and its values are in shared memory

    // ---- Scatter to global, striped: each digit's keys are consecutive in the tile and go to
    // consecutive addresses, and a pair sort's values go with them.
    Key* const target_keys = writes_output ? arrays.keys_out : arrays.keys_alternate;
    [[maybe_unused]] Value* target_values = nullptr;
    if constexpr (kHasValues)
      target_values = writes_output ? arrays.values_out : arrays.values_alternate;
#pragma unroll
    for (int j = 0; j < kK; ++j) {
      const std::uint32_t p = t + j * kThreadsPerBlock;
      if (in_tile(p)) {
        const Key key = KeyTraits<Key>::from_raw_bits(shared.exchange_keys[p]);
        const std::uint32_t d = digit_of(key, pass.first_bit, pass.num_bits, pass.descending);
        const std::uint64_t destination = shared.global_offset[d] + p;
        target_keys[destination] = key;
        if constexpr (kHasValues) target_values[destination] = shared.exchange_values[p];
      }
    }
  };
  if (tile_n == kTileItems)
    sort_tile(std::true_type{});
  else
    sort_tile(std::false_type{});
}

}  // namespace sortlab::stage08
