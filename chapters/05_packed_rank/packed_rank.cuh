/// \file
/// \brief Stage 05's central idea: rank a whole tile of digits at once with digit counters packed
/// several to a 32-bit word (the trick inside CUB's BlockRadixRank).
///
/// Stage 04 ranks a tile by its r-bit digit with r rounds of the 1-bit split, one block scan per
/// round. A tile can instead be ranked in one go if every thread keeps a counter per digit value:
/// the rank of a key is then "keys with a smaller digit, anywhere in the tile" plus "keys with the
/// same digit in lower-numbered threads" plus "keys with the same digit earlier in my own thread".
/// All three come out of one exclusive scan of the counters taken in (digit, thread) order.
///
/// 2^r counters per thread would be a lot of shared memory and a long scan, so counters are
/// narrow (16 bits, or 8 for tiny tiles) and packed kFieldsPerWord to a 32-bit word:
///  - digit d lives in *field* f = d >> kLogLanes of *lane* l = d & (kLanes - 1), so each thread
///    owns a column of kLanes words (one word per lane, kFieldsPerWord counters per word);
///  - the words are laid out lane-major, `word[l * kThreads + t]`, so one scan over the words in
///    memory order visits (lane, thread) in order, and a 32-bit add adds every field at once;
///  - after that scan field f of a word holds the count of field-f digits before it; adding the
///    totals of fields 0 .. f-1 (the *carry between packed fields*, one shifted add per field)
///    turns it into the count of all smaller digits as well.
/// A field never carries into its neighbour, because no count in it can exceed the tile size:
/// the static_assert in PackedRankShape proves tile_items < 2^kCounterBits for every shape
/// the code accepts.
///
/// The scan is a *raking* scan: thread t sums kLanes + 1 consecutive words (its raking segment,
/// including one padding lane so that segments start on different banks), one block-wide scan
/// combines the 256 partial sums, and every thread scans its segment again from its prefix.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/block_scan.cuh"

namespace sortlab::stage05 {

/// The geometry of a packed-counter rank: how digits map to lanes and fields, and how big the
/// shared counter array is. Separate from the device code so the CPU model uses the same numbers.
/// \tparam kThreads threads per block (a multiple of 32, at most 1024)
/// \tparam kKeysPerThread keys each thread ranks
/// \tparam kRadixBits digit width r (1..8)
/// \tparam kCounterBits width of one packed counter: 16 (two per word) or 8 (four per word)
template <int kThreads, int kKeysPerThread, int kRadixBits, int kCounterBits = 16>
struct PackedRankShape {
  static_assert(kThreads % 32 == 0 && kThreads >= 32 && kThreads <= 1024,
                "a block of whole warps, at most 1024 threads");
  static_assert(kKeysPerThread >= 1, "at least one key per thread");
  static_assert(kRadixBits >= 1 && kRadixBits <= 8, "digits of 1 to 8 bits");
  static_assert(kCounterBits == 8 || kCounterBits == 16, "counters of 8 or 16 bits");

  /// Keys ranked together.
  static constexpr int kTileItems = kThreads * kKeysPerThread;
  /// Distinct digit values.
  static constexpr int kDigits = 1 << kRadixBits;
  /// Counters per 32-bit word.
  static constexpr int kFieldsPerWord = 32 / kCounterBits;
  /// log2(kFieldsPerWord).
  static constexpr int kLogFieldsPerWord = kCounterBits == 16 ? 1 : 2;
  /// log2 of the number of lanes: the low digit bits pick the lane, the high ones the field.
  static constexpr int kLogLanes =
      kRadixBits > kLogFieldsPerWord ? kRadixBits - kLogFieldsPerWord : 0;
  /// Words in one thread's counter column.
  static constexpr int kLanes = 1 << kLogLanes;
  /// Words one thread rakes: its lanes plus one padding word. With an odd segment length the 32
  /// threads of a warp start their segments on 32 different banks.
  static constexpr int kRakingSegment = kLanes + 1;
  /// Words of the shared counter array: kRakingSegment lanes (the last one padding) x kThreads.
  static constexpr int kWords = kRakingSegment * kThreads;
  /// The largest value any counter may reach.
  static constexpr int kMaxCount = (1 << kCounterBits) - 1;

  // The overflow proof. Every value a field ever holds is a count of keys of this tile: a
  // thread's own running count (at most kKeysPerThread), a raking or block partial sum of one
  // field (at most kTileItems), or after the carry the number of keys with a smaller digit plus
  // those before it (at most kTileItems). So kTileItems <= kMaxCount means no field can carry into
  // the next one.
  static_assert(kTileItems <= kMaxCount,
                "a packed counter could overflow into its neighbour: use 16-bit counters or a "
                "smaller tile (threads x keys per thread must not exceed 2^counter_bits - 1)");

  /// Lane of digit \p digit (its low kLogLanes bits).
  static constexpr std::uint32_t lane_of(std::uint32_t digit) { return digit & (kLanes - 1); }
  /// Packed field of digit \p digit (its high bits).
  static constexpr std::uint32_t field_of(std::uint32_t digit) { return digit >> kLogLanes; }
  /// Word index of thread \p thread's counter for lane \p lane.
  static constexpr std::uint32_t word_of(std::uint32_t lane, std::uint32_t thread) {
    return lane * kThreads + thread;
  }
  /// The word added to every scanned word so that field f also counts all digits of fields
  /// below f: field f receives total_0 + ... + total_(f-1), the totals taken from \p block_total.
  static constexpr std::uint32_t carry_between_fields(std::uint32_t block_total) {
    std::uint32_t carry = 0;
    for (int shift = 1; shift < kFieldsPerWord; ++shift)
      carry += block_total << (shift * kCounterBits);
    return carry;
  }
};

/// Block-wide rank of one digit per key, kKeysPerThread keys per thread in a *blocked*
/// arrangement (thread t holds tile positions t*K .. t*K + K-1). The rank of a key is its position
/// after a stable sort of the tile by digit.
///
/// All kThreads threads must call every member function. Usage:
/// \code
/// using Rank = BlockPackedRank<256, 16, 6>;
/// __shared__ Rank::TempStorage storage;
/// std::uint32_t digits[16], ranks[16];  // ... digits in 0..63
/// Rank rank(storage);
/// rank.rank_digits(digits, ranks);      // ranks in 0..4095, a permutation of the tile
/// \endcode
template <int kThreads, int kKeysPerThread, int kRadixBits, int kCounterBits = 16>
class BlockPackedRank {
 public:
  /// The shape (lanes, fields, raking segment) of this rank.
  using Shape = PackedRankShape<kThreads, kKeysPerThread, kRadixBits, kCounterBits>;
  /// One packed counter.
  using Counter = std::conditional_t<kCounterBits == 16, std::uint16_t, std::uint8_t>;

  /// Shared memory the rank needs; the caller declares it `__shared__` (it may alias other
  /// storage that is not live while ranking).
  struct TempStorage {
    /// The counters, seen as packed words (raking scan) or one counter at a time (increments).
    union Counters {
      std::uint32_t words[Shape::kWords];                       ///< packed view
      Counter counters[Shape::kWords * Shape::kFieldsPerWord];  ///< unpacked view
    } counters;                                                 ///< digit counters, lane-major
    std::uint32_t warp_totals[kThreads / 32];                   ///< the block scan's per-warp sums
  };

  /// Binds the rank to the caller's shared storage.
  /// \param storage shared memory, used by every member function
  __device__ __forceinline__ explicit BlockPackedRank(TempStorage& storage) : storage_(storage) {}

  /// Ranks the tile: ranks[i] is where key i of this thread goes in the tile sorted stably by
  /// digit. Ends with a barrier after which the counters hold the scanned values (see
  /// digit_start()); the caller needs another barrier before reusing the storage.
  /// \param digits the digits of this thread's keys, each in 0 .. 2^kRadixBits - 1
  /// \param ranks receives the rank of each key
  __device__ __forceinline__ void rank_digits(const std::uint32_t (&digits)[kKeysPerThread],
                                              std::uint32_t (&ranks)[kKeysPerThread]) {
    std::uint32_t tickets[kKeysPerThread];
    count_digits(digits, tickets);
    scan_counters();
    collect_ranks(tickets, ranks);
  }

  /// Phase 1, the increment pass: clears this thread's counter column and counts its keys. For
  /// each key it returns a *ticket*: the index of the key's counter (high 16 bits) and the number
  /// of this thread's keys before it with the same digit (low 16 bits). One register per key
  /// carries everything phase 3 needs, so the digits need not stay live across the scan. Ends
  /// with a barrier (every column complete before the scan reads across columns).
  /// \param digits the digits of this thread's keys
  /// \param tickets receives one ticket per key
  __device__ __forceinline__ void count_digits(const std::uint32_t (&digits)[kKeysPerThread],
                                               std::uint32_t (&tickets)[kKeysPerThread]) {
    static_assert(Shape::kWords * Shape::kFieldsPerWord <= 0x10000 && kKeysPerThread <= 0x10000,
                  "a ticket packs a counter index and a count into 16 bits each");
    const std::uint32_t t = threadIdx.x;
    // Only this thread touches its column, so the increments need no atomics. Word
    // lane * kThreads + t: the 32 threads of a warp always hit 32 different banks.
#pragma unroll
    for (int lane = 0; lane < Shape::kRakingSegment; ++lane)
      storage_.counters.words[Shape::word_of(lane, t)] = 0;
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i) {
      const std::uint32_t index = unpacked_index(digits[i], t);
      const std::uint32_t earlier_in_thread = storage_.counters.counters[index];
      storage_.counters.counters[index] = static_cast<Counter>(earlier_in_thread + 1);
      tickets[i] = (index << 16) | earlier_in_thread;
    }
    __syncthreads();
  }

  /// Phase 2, the raking scan: turns every counter into the number of tile keys that come before
  /// the keys it counted (all smaller digits, then the same digit in lower threads). Ends with a
  /// barrier.
  __device__ __forceinline__ void scan_counters() {
    std::uint32_t* segment = storage_.counters.words + threadIdx.x * Shape::kRakingSegment;
    // Upsweep: thread t sums its segment. The downsweep reads the segment again from shared
    // memory rather than keeping it in registers: a memoized segment costs a register per word,
    // and at r = 4 that was a block per SM fewer than cub::BlockRadixSort (README).
    std::uint32_t partial = 0;
#pragma unroll
    for (int i = 0; i < Shape::kRakingSegment; ++i)
      partial += segment[i];  // adds every packed field at once; none can overflow (see Shape)
    // One block scan of the packed partial sums, then the carry between fields.
    std::uint32_t block_total = 0;
    const std::uint32_t before_segment = block_exclusive_sum(partial, block_total);
    carry_ = Shape::carry_between_fields(block_total);
    std::uint32_t running = before_segment + carry_;
    // Downsweep: exclusive scan of the segment from the segment's prefix.
#pragma unroll
    for (int i = 0; i < Shape::kRakingSegment; ++i) {
      const std::uint32_t word = segment[i];
      segment[i] = running;
      running += word;
    }
    __syncthreads();
  }

  /// Phase 3: rank = the scanned counter named by the key's ticket + the keys with that digit
  /// earlier in this thread.
  /// \param tickets what count_digits() returned
  /// \param ranks receives the rank of each key
  __device__ __forceinline__ void collect_ranks(const std::uint32_t (&tickets)[kKeysPerThread],
                                                std::uint32_t (&ranks)[kKeysPerThread]) const {
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i)
      ranks[i] = storage_.counters.counters[tickets[i] >> 16] + (tickets[i] & 0xFFFFu);
  }

  /// Where digit \p digit starts in the ranked tile (the scanned counter of thread 0). Valid
  /// between scan_counters() and the next reuse of the storage.
  /// \param digit a digit value, 0 .. 2^kRadixBits - 1
  __device__ __forceinline__ std::uint32_t digit_start(std::uint32_t digit) const {
    return storage_.counters.counters[unpacked_index(digit, 0)];
  }

  /// The word scan_counters() added to every word to carry field totals upwards (for tracing).
  __device__ __forceinline__ std::uint32_t carry() const {
    return carry_;
  }

 private:
  /// Exclusive sum of one value per thread over the block, with one barrier: each warp scans
  /// with shuffles, and every thread then adds up the totals of the warps below its own (at most
  /// 32 broadcast reads). The totals are next written a whole pass later, after several
  /// barriers, so unlike common/block_scan's general version no barrier is needed on the way out.
  __device__ __forceinline__ std::uint32_t block_exclusive_sum(std::uint32_t value,
                                                               std::uint32_t& block_total) {
    const std::uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const std::uint32_t inclusive = warp_inclusive_sum(value);
    if (lane == 31) storage_.warp_totals[warp] = inclusive;
    __syncthreads();
    std::uint32_t below = 0;
    block_total = 0;
#pragma unroll
    for (std::uint32_t w = 0; w < kThreads / 32; ++w) {
      const std::uint32_t total = storage_.warp_totals[w];
      below += w < warp ? total : 0u;
      block_total += total;
    }
    return below + inclusive - value;
  }

  /// Index of the counter of \p digit in \p thread's column, in the unpacked view. Field f of a
  /// word is bits [f * kCounterBits, (f+1) * kCounterBits): counter f of the word in memory on a
  /// little-endian GPU.
  __device__ __forceinline__ static std::uint32_t unpacked_index(std::uint32_t digit,
                                                                 std::uint32_t thread) {
    return Shape::word_of(Shape::lane_of(digit), thread) * Shape::kFieldsPerWord +
           Shape::field_of(digit);
  }

  TempStorage& storage_;
  std::uint32_t carry_ = 0;
};

}  // namespace sortlab::stage05
