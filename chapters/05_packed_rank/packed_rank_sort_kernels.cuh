/// \file
/// \brief Stage 05 kernels: the digit survey (which passes are trivial), the upsweep (block bucket
/// table), the downsweep (packed-counter rank, local scatter, coalesced global runs), and the copy
/// for a sort whose every pass is trivial. The scan of the table between upsweep and downsweep is
/// common/device_scan.
///
/// Which pass reads and writes which array is decided on the device from the survey: the host
/// queues every pass, a trivial pass returns at once, and the others alternate between keys_out
/// and the scratch copy so that the last one that runs writes keys_out (see pass_role()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "chapters/05_packed_rank/block_radix_sort.cuh"
#include "chapters/05_packed_rank/packed_rank.cuh"
#include "chapters/05_packed_rank/packed_rank_sort.hpp"
#include "common/key_traits.hpp"

namespace sortlab::stage05 {

/// The survey's result: the bitwise AND and OR of the ordered bits of every key (widened to 64
/// bits). A bit where they differ is a bit where at least two keys differ.
struct Survey {
  unsigned long long all_and;  ///< AND of every key's ordered bits
  unsigned long long all_or;   ///< OR of every key's ordered bits
};

/// The arrays a sort touches. Pass roles pick a source and a target among them.
template <typename Key, typename Value>
struct SortBuffers {
  const Key* keys_in;       ///< the caller's input keys (never written)
  Key* keys_out;            ///< the caller's output keys
  Key* alternate_keys;      ///< scratch keys
  const Value* values_in;   ///< the caller's input values (null for keys only)
  Value* values_out;        ///< the caller's output values
  Value* alternate_values;  ///< scratch values
};

/// Where a pass reads and writes.
enum class Array : int { kInput, kOutput, kAlternate };

/// What one pass does, decided by every block in the same way from the survey.
struct PassRole {
  bool runs = true;               ///< false: the digit is the same for every key, skip the pass
  Array source = Array::kInput;   ///< what the pass reads
  Array target = Array::kOutput;  ///< what the pass writes
};

/// Which digits of the sort [begin_bit, end_bit) take part: the pass plan every kernel shares.
struct PassPlan {
  int begin_bit = 0;   ///< first bit sorted
  int end_bit = 0;     ///< one past the last bit sorted
  int radix_bits = 0;  ///< digit width of a pass
  /// Survey of the input, or null to run every pass (trace_pass runs a single forced pass).
  const Survey* survey = nullptr;
};

/// True when pass \p pass of \p plan changes nothing: its digit is the same for every key.
/// \param plan bit range and survey
/// \param differing bits in which some keys differ (AND xor OR of the survey)
/// \param pass pass index
__host__ __device__ __forceinline__ bool pass_is_trivial(const PassPlan& plan,
                                                         unsigned long long differing, int pass) {
  const int first_bit = plan.begin_bit + pass * plan.radix_bits;
  const int remaining = plan.end_bit - first_bit;
  const int width = plan.radix_bits < remaining ? plan.radix_bits : remaining;
  return ((differing >> first_bit) & ((1ull << width) - 1ull)) == 0;
}

/// The role of pass \p pass. With m passes that run, the i-th of them (0-based) reads the input
/// when i = 0 and otherwise what the one before it wrote, and writes keys_out when m-1-i is even,
/// the scratch copy when it is odd: the last pass that runs always writes keys_out.
/// \param plan bit range and survey
/// \param pass pass index
__host__ __device__ __forceinline__ PassRole pass_role(const PassPlan& plan, int pass) {
  PassRole role;
  if (plan.survey == nullptr) return role;  // forced: input -> output
  const unsigned long long differing = plan.survey->all_and ^ plan.survey->all_or;
  const int passes = num_passes(plan.end_bit - plan.begin_bit, plan.radix_bits);
  int running_passes = 0, my_index = -1;
  for (int p = 0; p < passes; ++p) {
    if (pass_is_trivial(plan, differing, p)) continue;
    if (p == pass) my_index = running_passes;
    ++running_passes;
  }
  if (my_index < 0) {
    role.runs = false;
    return role;
  }
  auto written_by = [running_passes](int index) {
    return (running_passes - 1 - index) % 2 == 0 ? Array::kOutput : Array::kAlternate;
  };
  role.source = my_index == 0 ? Array::kInput : written_by(my_index - 1);
  role.target = written_by(my_index);
  return role;
}

/// The keys array \p which of \p arrays, for reading.
template <typename Key, typename Value>
__device__ __forceinline__ const Key* keys_of(const SortBuffers<Key, Value>& arrays, Array which) {
  return which == Array::kInput    ? arrays.keys_in
         : which == Array::kOutput ? arrays.keys_out
                                   : arrays.alternate_keys;
}

/// The keys array \p which of \p arrays, for writing (never the input).
template <typename Key, typename Value>
__device__ __forceinline__ Key* writable_keys_of(const SortBuffers<Key, Value>& arrays,
                                                 Array which) {
  return which == Array::kOutput ? arrays.keys_out : arrays.alternate_keys;
}

/// The values array \p which of \p arrays, for reading.
template <typename Key, typename Value>
__device__ __forceinline__ const Value* values_of(const SortBuffers<Key, Value>& arrays,
                                                  Array which) {
  return which == Array::kInput    ? arrays.values_in
         : which == Array::kOutput ? arrays.values_out
                                   : arrays.alternate_values;
}

/// The values array \p which of \p arrays, for writing (never the input).
template <typename Key, typename Value>
__device__ __forceinline__ Value* writable_values_of(const SortBuffers<Key, Value>& arrays,
                                                     Array which) {
  return which == Array::kOutput ? arrays.values_out : arrays.alternate_values;
}

/// Keys of the tile that starts at \p tile_first: a full tile, or fewer for the last one.
__device__ __forceinline__ std::uint32_t keys_in_tile(std::size_t n, std::size_t tile_first,
                                                      std::uint32_t tile_items) {
  const std::size_t remaining = n - tile_first;
  return remaining < tile_items ? static_cast<std::uint32_t>(remaining) : tile_items;
}

// ---- The survey ---------------------------------------------------------------------------------

/// Threads per block of the survey and the copy kernels.
inline constexpr int kSurveyThreads = 256;

/// AND and OR of the ordered bits of all keys, into \p survey (which the host set to all ones
/// and zero). Each thread folds a grid-stride share of the keys, each warp combines its lanes,
/// and one atomic per warp combines the warps.
/// \param keys device keys
/// \param n number of keys
/// \param survey receives the AND and OR
template <typename Key>
__global__ void __launch_bounds__(kSurveyThreads)
    survey_kernel(const Key* keys, std::size_t n, Survey* survey) {
  unsigned long long all_and = ~0ull, all_or = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const unsigned long long ordered = KeyTraits<Key>::to_ordered(keys[i]);
    all_and &= ordered;
    all_or |= ordered;
  }
  // Warp-wide AND and OR, 32 bits at a time (the hardware reductions are 32-bit).
  const auto low = [](unsigned long long bits) { return static_cast<unsigned>(bits); };
  const auto high = [](unsigned long long bits) { return static_cast<unsigned>(bits >> 32); };
  const unsigned long long warp_and =
      (static_cast<unsigned long long>(__reduce_and_sync(~0u, high(all_and))) << 32) |
      __reduce_and_sync(~0u, low(all_and));
  const unsigned long long warp_or =
      (static_cast<unsigned long long>(__reduce_or_sync(~0u, high(all_or))) << 32) |
      __reduce_or_sync(~0u, low(all_or));
  if ((threadIdx.x & 31u) == 0) {
    atomicAnd(&survey->all_and, warp_and);
    atomicOr(&survey->all_or, warp_or);
  }
}

/// Copies the input to the output when no pass runs (every digit is the same for every key);
/// returns at once otherwise.
/// \param plan bit range and survey
/// \param arrays the sort's arrays
/// \param n number of items
template <typename Key, typename Value, bool kHasValues>
__global__ void __launch_bounds__(kSurveyThreads)
    copy_when_every_pass_is_trivial_kernel(PassPlan plan, SortBuffers<Key, Value> arrays,
                                           std::size_t n) {
  const unsigned long long differing = plan.survey->all_and ^ plan.survey->all_or;
  for (int p = 0; p < num_passes(plan.end_bit - plan.begin_bit, plan.radix_bits); ++p)
    if (!pass_is_trivial(plan, differing, p)) return;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    arrays.keys_out[i] = arrays.keys_in[i];
    if constexpr (kHasValues) arrays.values_out[i] = arrays.values_in[i];
  }
}

// ---- Step 1: upsweep ----------------------------------------------------------------------------

/// Block b counts the digits of its tile and writes column b of the block bucket table (kDigits
/// rows; a narrower last pass leaves the rows above its digits at zero).
/// \param plan bit range and survey
/// \param pass pass index (first bit = begin_bit + pass * kRadixBits)
/// \param arrays the sort's arrays (the pass role picks the source)
/// \param block_bucket_table kDigits x gridDim.x entries, row-major by digit
/// \param n number of keys
/// \param descending use complemented digits
/// \param digits_out null, or (trace_pass) an array of n receiving each key's digit
template <typename Key, typename Value, typename Tiling>
__global__ void __launch_bounds__(Tiling::kThreads)
    upsweep_kernel(PassPlan plan, int pass, SortBuffers<Key, Value> arrays,
                   std::uint32_t* block_bucket_table, std::size_t n, bool descending,
                   std::uint32_t* digits_out) {
  constexpr int kThreadsPerBlock = Tiling::kThreads;
  constexpr int kKeysPerThread = Tiling::kKeysPerThread;
  constexpr int kRadixBits = Tiling::kRadixBits;
  constexpr int kDigits = Tiling::kDigits;
  constexpr int kWarps = kThreadsPerBlock / 32;
  constexpr std::uint32_t kTileItems = Tiling::kTileItems;
  const PassRole role = pass_role(plan, pass);
  if (!role.runs) return;
  const Key* keys = keys_of(arrays, role.source);
  const int first_bit = plan.begin_bit + pass * kRadixBits;
  const int num_bits = min(kRadixBits, plan.end_bit - first_bit);
  static_assert(kDigits <= kThreadsPerBlock, "one thread per digit writes the digit offsets");

  // One histogram per warp: a warp's shared atomics only collide among its own lanes.
  __shared__ std::uint32_t warp_histograms[kWarps][kDigits];
  const std::uint32_t t = threadIdx.x;
  const std::uint32_t warp = t / 32;
  const std::size_t tile_first = static_cast<std::size_t>(blockIdx.x) * kTileItems;
  const std::uint32_t tile_n = keys_in_tile(n, tile_first, kTileItems);
  for (std::uint32_t d = t % 32; d < kDigits; d += 32) warp_histograms[warp][d] = 0;

  // Striped loads (coalesced), all issued before any is used.
  Key tile_keys[kKeysPerThread];
#pragma unroll
  for (int j = 0; j < kKeysPerThread; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n) tile_keys[j] = keys[tile_first + p];
  }
  __syncthreads();  // histograms cleared
#pragma unroll
  for (int j = 0; j < kKeysPerThread; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n) {
      const std::uint32_t digit = pass_digit(tile_keys[j], first_bit, num_bits, descending);
      atomicAdd(&warp_histograms[warp][digit], 1u);
      if (digits_out != nullptr) digits_out[tile_first + p] = digit;
    }
  }
  __syncthreads();
  if (t < kDigits) {
    std::uint32_t count = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) count += warp_histograms[w][t];
    block_bucket_table[static_cast<std::size_t>(t) * gridDim.x + blockIdx.x] = count;
  }
}

// ---- Step 3: downsweep --------------------------------------------------------------------------

/// Device arrays trace_pass fills (all null in a sort).
template <typename Key>
struct DownsweepTrace {
  std::uint32_t* counters_before = nullptr;  ///< per tile: lanes x threads words before the scan
  std::uint32_t* counters_after = nullptr;   ///< per tile: the same words after scan and carry
  std::uint32_t* carries = nullptr;          ///< per tile: the carry word
  std::uint32_t* ranks = nullptr;            ///< per key (input order): its rank in the tile
  Key* local_sorted = nullptr;               ///< per key: the tile after the local scatter
};

/// Block b ranks its tile with the packed-counter rank, moves every key to its rank in shared
/// memory, and writes the tile out digit by digit: the key at tile position p with digit d goes to
/// (global start of (d, b)) + (p - start of d in the tile), so neighbouring threads write
/// neighbouring addresses. Values follow the same ranks and destinations.
/// \param plan bit range and survey
/// \param pass pass index
/// \param arrays the sort's arrays (the pass role picks source and target)
/// \param scanned_table exclusive scan of the block bucket table
/// \param n number of keys
/// \param descending use complemented digits
/// \param trace null pointers, or (trace_pass) arrays for the intermediate steps
template <typename Key, typename Value, bool kHasValues, typename Tiling>
__global__ void __launch_bounds__(Tiling::kThreads, Tiling::kDownsweepBlocksPerSm)
    downsweep_kernel(PassPlan plan, int pass, SortBuffers<Key, Value> arrays,
                     const std::uint32_t* scanned_table, std::size_t n, bool descending,
                     DownsweepTrace<Key> trace) {
  constexpr int kThreadsPerBlock = Tiling::kThreads;
  constexpr int kK = Tiling::kKeysPerThread;
  constexpr int kRadixBits = Tiling::kRadixBits;
  constexpr int kDigits = Tiling::kDigits;
  constexpr std::uint32_t kTileItems = Tiling::kTileItems;
  constexpr std::uint32_t kPaddedItems = kTileItems + kTileItems / 32 + 1;
  using Rank = BlockPackedRank<kThreadsPerBlock, kK, kRadixBits, kCounterBits>;
  using Shape = typename Rank::Shape;
  using Bits = typename KeyTraits<Key>::Bits;
  using ExchangedValue = std::conditional_t<kHasValues, Value, unsigned char>;
  // The rank's counters and the exchange buffers are never live at once.
  __shared__ union Storage {
    typename Rank::TempStorage rank;
    Bits keys[kPaddedItems];
    ExchangedValue values[kHasValues ? kPaddedItems : 1];
  } storage;
  // Per digit d: global start of (d, b) minus the start of d in the ranked tile.
  __shared__ std::uint32_t digit_offset[kDigits];

  const PassRole role = pass_role(plan, pass);
  if (!role.runs) return;
  const Key* source_keys = keys_of(arrays, role.source);
  Key* target_keys = writable_keys_of(arrays, role.target);
  const int first_bit = plan.begin_bit + pass * kRadixBits;
  const int num_bits = min(kRadixBits, plan.end_bit - first_bit);
  static_assert(kDigits <= kThreadsPerBlock, "one thread per digit writes the digit offsets");
  const std::uint32_t t = threadIdx.x;
  const std::size_t tile_first = static_cast<std::size_t>(blockIdx.x) * kTileItems;
  const std::uint32_t tile_n = keys_in_tile(n, tile_first, kTileItems);

  // Load the tile striped (coalesced) into shared memory, read it back blocked.
#pragma unroll
  for (int j = 0; j < kK; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n)
      storage.keys[padded_slot(p)] = KeyTraits<Key>::raw_bits(source_keys[tile_first + p]);
  }
  __syncthreads();
  Key keys[kK];
  std::uint32_t digits[kK];
#pragma unroll
  for (int i = 0; i < kK; ++i) {
    const std::uint32_t p = t * kK + i;
    keys[i] = KeyTraits<Key>::from_raw_bits(storage.keys[padded_slot(p)]);
    // Positions past the end of a partial tile get the largest digit: being last in the tile
    // they rank after every real key, whose ranks are then 0 .. tile_n - 1.
    digits[i] = p < tile_n ? pass_digit(keys[i], first_bit, num_bits, descending) : kDigits - 1;
  }
  __syncthreads();  // the exchange is read before the counters overwrite it

  // Rank: increment pass, raking scan of the packed words, ranks.
  Rank rank(storage.rank);
  std::uint32_t tickets[kK], ranks[kK];
  rank.count_digits(digits, tickets);
  const std::size_t words_per_tile = static_cast<std::size_t>(Shape::kLanes) * kThreadsPerBlock;
  if (trace.counters_before != nullptr)
    for (int lane = 0; lane < Shape::kLanes; ++lane)
      trace.counters_before[blockIdx.x * words_per_tile + Shape::word_of(lane, t)] =
          storage.rank.counters.words[Shape::word_of(lane, t)];
  rank.scan_counters();
  if (trace.counters_after != nullptr) {
    for (int lane = 0; lane < Shape::kLanes; ++lane)
      trace.counters_after[blockIdx.x * words_per_tile + Shape::word_of(lane, t)] =
          storage.rank.counters.words[Shape::word_of(lane, t)];
    if (t == 0) trace.carries[blockIdx.x] = rank.carry();
  }
  rank.collect_ranks(tickets, ranks);
  if (t < kDigits)
    digit_offset[t] = scanned_table[static_cast<std::size_t>(t) * gridDim.x + blockIdx.x] -
                      rank.digit_start(t);  // unsigned wrap-around cancels in offset + p
  if (trace.ranks != nullptr)
#pragma unroll
    for (int i = 0; i < kK; ++i)
      if (t * kK + i < tile_n) trace.ranks[tile_first + t * kK + i] = ranks[i];
  __syncthreads();  // counters read: the exchange may overwrite them

  // Local scatter: every key to its rank.
#pragma unroll
  for (int i = 0; i < kK; ++i)
    if (ranks[i] < tile_n) storage.keys[padded_slot(ranks[i])] = KeyTraits<Key>::raw_bits(keys[i]);
  __syncthreads();

  // Global scatter, striped: each digit's keys are consecutive in the tile and go to consecutive
  // addresses. Pair sorts keep each position's digit, four to a register, for the values.
  [[maybe_unused]] std::uint32_t packed_digits[(kK + 3) / 4] = {};
#pragma unroll
  for (int j = 0; j < kK; ++j) {
    const std::uint32_t p = t + j * kThreadsPerBlock;
    if (p < tile_n) {
      const Key key = KeyTraits<Key>::from_raw_bits(storage.keys[padded_slot(p)]);
      const std::uint32_t digit = pass_digit(key, first_bit, num_bits, descending);
      target_keys[digit_offset[digit] + p] = key;
      if constexpr (kHasValues) packed_digits[j / 4] |= digit << (8 * (j % 4));
      if (trace.local_sorted != nullptr) trace.local_sorted[tile_first + p] = key;
    }
  }

  if constexpr (kHasValues) {
    // Values take the same route: striped in, blocked (to pair with the ranks), to their ranks,
    // striped out to the keys' destinations.
    const Value* source_values = values_of(arrays, role.source);
    Value* target_values = writable_values_of(arrays, role.target);
    __syncthreads();  // the keys are read out of the exchange
#pragma unroll
    for (int j = 0; j < kK; ++j) {
      const std::uint32_t p = t + j * kThreadsPerBlock;
      if (p < tile_n) storage.values[padded_slot(p)] = source_values[tile_first + p];
    }
    __syncthreads();
    Value values[kK];
#pragma unroll
    for (int i = 0; i < kK; ++i) values[i] = storage.values[padded_slot(t * kK + i)];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kK; ++i)
      if (ranks[i] < tile_n) storage.values[padded_slot(ranks[i])] = values[i];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < kK; ++j) {
      const std::uint32_t p = t + j * kThreadsPerBlock;
      if (p < tile_n) {
        const std::uint32_t digit = (packed_digits[j / 4] >> (8 * (j % 4))) & 0xFFu;
        target_values[digit_offset[digit] + p] = storage.values[padded_slot(p)];
      }
    }
  }
}

}  // namespace sortlab::stage05
