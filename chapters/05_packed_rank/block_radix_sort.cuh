/// \file
/// \brief A block-wide LSD radix sort of keys (and optional values) held in registers, in the
/// spirit of cub::BlockRadixSort: every pass ranks the tile by one digit with the packed-counter
/// rank (packed_rank.cuh) and moves the keys to their ranks through shared memory.
///
/// The caller owns the shared `TempStorage` and holds its keys in a *blocked* arrangement: thread
/// t holds tile positions t*K .. t*K + K-1. The sort leaves them blocked (sort(),
/// sort_descending()) or *striped* (thread t holds positions t, t + kThreads, ...;
/// sort_blocked_to_striped()), which is the arrangement for coalesced global stores. It is stable
/// in both directions, sorts by bits [begin_bit, end_bit) of the order-preserving key transform of
/// common/key_traits.hpp (so -0.0 and +0.0 are equal and keep their input order, NaNs sort by
/// their bits), and moves values with their keys.
///
/// \code
/// using Sort = sortlab::stage05::BlockRadixSort<float, 128, 8>;
/// __shared__ Sort::TempStorage storage;
/// float keys[8];            // blocked: thread t holds tile positions 8t .. 8t+7
/// ...
/// Sort(storage).sort(keys);  // keys now hold the sorted tile, still blocked
/// \endcode
#pragma once

#include <cstdint>
#include <type_traits>

#include "chapters/05_packed_rank/decomposed_key.cuh"
#include "chapters/05_packed_rank/packed_rank.cuh"
#include "common/key_traits.hpp"

namespace sortlab::stage05 {

/// Marks a keys-only BlockRadixSort (the default Value).
struct NullType {};

/// Digit of \p key for one pass: \p num_bits bits from \p first_bit of its ordered bits
/// (complemented when \p descending, which keeps a stable sort stable in both directions).
/// \param key the key
/// \param first_bit lowest bit of the digit
/// \param num_bits digit width (1..8)
/// \param descending use the complemented ordered bits
template <typename Key>
__device__ __forceinline__ std::uint32_t pass_digit(Key key, int first_bit, int num_bits,
                                                    bool descending) {
  const auto ordered = KeyTraits<Key>::to_ordered(key, descending);
  // Ordered bits are at most 64 bits wide; the digit is at most 8, so shift in the key's own
  // width and narrow afterwards (32-bit keys never touch 64-bit arithmetic).
  return static_cast<std::uint32_t>(ordered >> first_bit) & ((1u << num_bits) - 1u);
}

/// Shared-memory slot of tile position \p position: one padding slot after every 32 positions,
/// so that the blocked reads (thread t reads t*K + i) of a warp spread over the banks.
/// \param position position in the tile
__device__ __forceinline__ std::uint32_t padded_slot(std::uint32_t position) {
  return position + (position >> 5);
}

/// The block sort's register form of a key: its ordered bits without the -0.0 fold, which makes
/// the transform invertible (the sort twiddles once on entry and untwiddles once on exit instead
/// of transforming every key in every pass). -0.0 and +0.0 still get equal digits: see
/// TwiddledKey::digit().
template <typename Key>
struct TwiddledKey {
  /// Unsigned bits of the key.
  using Bits = typename KeyTraits<Key>::Bits;
  /// The sign bit.
  static constexpr Bits kHighBit = KeyTraits<Key>::kHighBit;

  /// Key -> bits whose unsigned order is the key order (-0.0 just below +0.0).
  /// \param key the key
  __host__ __device__ __forceinline__ static Bits in(Key key) {
    const Bits bits = KeyTraits<Key>::raw_bits(key);
    if constexpr (KeyTraits<Key>::kIsFloating)
      return static_cast<Bits>(bits & kHighBit ? static_cast<Bits>(~bits) : bits | kHighBit);
    else if constexpr (std::is_signed_v<Key>)
      return static_cast<Bits>(bits ^ kHighBit);
    else
      return bits;
  }

  /// The inverse of in().
  /// \param bits twiddled bits
  __host__ __device__ __forceinline__ static Key out(Bits bits) {
    if constexpr (KeyTraits<Key>::kIsFloating)
      bits = static_cast<Bits>(bits & kHighBit ? bits ^ kHighBit : static_cast<Bits>(~bits));
    else if constexpr (std::is_signed_v<Key>)
      bits = static_cast<Bits>(bits ^ kHighBit);
    return KeyTraits<Key>::from_raw_bits(bits);
  }

  /// Digit of twiddled bits: \p num_bits bits from \p first_bit, complemented for a descending
  /// sort, with -0.0 (twiddled: all ones but the sign) counted as +0.0 (the sign alone) so that
  /// the two compare equal, as in KeyTraits::to_ordered().
  /// \param bits twiddled bits
  /// \param first_bit lowest bit of the digit
  /// \param num_bits digit width (1..8)
  template <bool kDescending>
  __host__ __device__ __forceinline__ static std::uint32_t digit(Bits bits, int first_bit,
                                                                 int num_bits) {
    if constexpr (KeyTraits<Key>::kIsFloating)
      bits = bits == static_cast<Bits>(~kHighBit) ? kHighBit : bits;
    const std::uint32_t mask = (1u << num_bits) - 1u;
    const std::uint32_t digit = static_cast<std::uint32_t>(bits >> first_bit) & mask;
    return kDescending ? digit ^ mask : digit;
  }
};

namespace detail {
/// Whether Key is one of common/key_traits.hpp's key types (else a user-defined key that needs a
/// decomposer).
template <typename Key>
inline constexpr bool kIsBuiltinKey =
    (std::is_integral_v<Key> && !std::is_same_v<Key, bool>) || std::is_floating_point_v<Key> ||
    std::is_same_v<Key, __half> || std::is_same_v<Key, __nv_bfloat16>;

/// How a key travels through shared memory: built-in keys as their unsigned bits, user-defined
/// keys as whole objects (their non-key members travel with them).
template <typename Key, bool = kIsBuiltinKey<Key>>
struct KeySlot {
  using type = Key;                ///< the slot type
  static constexpr int kBits = 0;  ///< user-defined keys take their width from the decomposer
};
/// Built-in keys.
template <typename Key>
struct KeySlot<Key, true> {
  using type = typename KeyTraits<Key>::Bits;             ///< the slot type
  static constexpr int kBits = KeyTraits<Key>::kNumBits;  ///< bits of the key
};

/// Enables the decomposer overloads only for functors (not for value arrays or bit numbers).
template <typename Decomposer>
using IfDecomposer = std::enable_if_t<std::is_class_v<Decomposer>, int>;
}  // namespace detail

/// Block-wide radix sort of kThreads x kKeysPerThread keys (and values, unless Value is
/// NullType), r = kRadixBits bits per pass. All kThreads threads of a 1-D block must call the same
/// member function. After a call, a barrier is needed before the storage is reused.
/// \tparam Key any key type of common/key_traits.hpp, or a trivially copyable struct sorted
/// through a decomposer (decomposed_key.cuh; the overloads that take one)
/// \tparam kThreads threads in the block (multiple of 32, at most 1024)
/// \tparam kKeysPerThread keys each thread holds
/// \tparam Value payload type (trivially copyable), or NullType for keys only
/// \tparam kRadixBits digit width per pass (1..8); 4 is cub::BlockRadixSort's default
/// \tparam kCounterBits packed counter width (16, or 8 for tiles of at most 255 keys)
template <typename Key, int kThreads, int kKeysPerThread, typename Value = NullType,
          int kRadixBits = 4, int kCounterBits = 16>
class BlockRadixSort {
 public:
  /// The block rank every pass uses.
  using Rank = BlockPackedRank<kThreads, kKeysPerThread, kRadixBits, kCounterBits>;
  /// Whether values travel with the keys.
  static constexpr bool kHasValues = !std::is_same_v<Value, NullType>;
  /// Keys in the tile.
  static constexpr int kTileItems = kThreads * kKeysPerThread;
  /// Bits of a built-in key (0 for a user-defined key: its decomposer says).
  static constexpr int kKeyBits = detail::KeySlot<Key>::kBits;

  static_assert(std::is_trivially_copyable_v<Value>, "values must be trivially copyable");

 private:
  /// Built-in keys go through shared memory as their twiddled bits (every key type is then a
  /// plain integer), user-defined keys as themselves.
  using Bits = typename detail::KeySlot<Key>::type;
  static constexpr int kPaddedItems = kTileItems + kTileItems / 32 + 1;
  using ExchangedValue = std::conditional_t<kHasValues, Value, unsigned char>;

 public:
  /// Shared memory the sort needs; the caller declares it `__shared__`. The rank's counters and
  /// the exchange buffers are never live at once, so they share the bytes.
  union TempStorage {
    typename Rank::TempStorage rank;      ///< the packed counters while ranking
    Bits keys[kPaddedItems];              ///< keys moving to their ranks
    ExchangedValue values[kPaddedItems];  ///< values moving to their ranks
  };

  /// Binds the sort to the caller's shared storage.
  /// \param storage shared memory used by every call
  __device__ __forceinline__ explicit BlockRadixSort(TempStorage& storage) : storage_(storage) {}

  /// Ascending sort by bits [begin_bit, end_bit); keys stay blocked.
  /// \param keys this thread's keys (blocked), sorted in place
  /// \param begin_bit first bit of the ordered key to sort by
  /// \param end_bit one past the last bit
  __device__ __forceinline__ void sort(Key (&keys)[kKeysPerThread], int begin_bit = 0,
                                       int end_bit = kKeyBits) {
    run<false>(keys, nullptr, begin_bit, end_bit, false);
  }

  /// Descending sort by bits [begin_bit, end_bit) (stable); keys stay blocked.
  /// \param keys this thread's keys (blocked), sorted in place
  /// \param begin_bit first bit of the ordered key to sort by
  /// \param end_bit one past the last bit
  __device__ __forceinline__ void sort_descending(Key (&keys)[kKeysPerThread], int begin_bit = 0,
                                                  int end_bit = kKeyBits) {
    run<true>(keys, nullptr, begin_bit, end_bit, false);
  }

  /// Ascending pair sort by bits [begin_bit, end_bit); keys and values stay blocked.
  /// \param keys this thread's keys (blocked), sorted in place
  /// \param values this thread's values, moved with their keys
  /// \param begin_bit first bit of the ordered key to sort by
  /// \param end_bit one past the last bit
  __device__ __forceinline__ void sort(Key (&keys)[kKeysPerThread], Value (&values)[kKeysPerThread],
                                       int begin_bit = 0, int end_bit = kKeyBits) {
    run<false>(keys, &values, begin_bit, end_bit, false);
  }

  /// Descending pair sort by bits [begin_bit, end_bit); keys and values stay blocked.
  /// \param keys this thread's keys (blocked), sorted in place
  /// \param values this thread's values, moved with their keys
  /// \param begin_bit first bit of the ordered key to sort by
  /// \param end_bit one past the last bit
  __device__ __forceinline__ void sort_descending(Key (&keys)[kKeysPerThread],
                                                  Value (&values)[kKeysPerThread],
                                                  int begin_bit = 0, int end_bit = kKeyBits) {
    run<true>(keys, &values, begin_bit, end_bit, false);
  }

  /// Sort of blocked keys that leaves them striped (thread t: positions t, t + kThreads, ...).
  /// \param keys this thread's keys: blocked before, striped after
  /// \param descending largest first
  /// \param begin_bit first bit of the ordered key to sort by
  /// \param end_bit one past the last bit
  __device__ __forceinline__ void sort_blocked_to_striped(Key (&keys)[kKeysPerThread],
                                                          bool descending = false,
                                                          int begin_bit = 0,
                                                          int end_bit = kKeyBits) {
    if (descending)
      run<true>(keys, nullptr, begin_bit, end_bit, true);
    else
      run<false>(keys, nullptr, begin_bit, end_bit, true);
  }

  /// Pair sort of blocked keys and values that leaves both striped.
  /// \param keys this thread's keys: blocked before, striped after
  /// \param values this thread's values, moved with their keys
  /// \param descending largest first
  /// \param begin_bit first bit of the ordered key to sort by
  /// \param end_bit one past the last bit
  __device__ __forceinline__ void sort_blocked_to_striped(Key (&keys)[kKeysPerThread],
                                                          Value (&values)[kKeysPerThread],
                                                          bool descending = false,
                                                          int begin_bit = 0,
                                                          int end_bit = kKeyBits) {
    if (descending)
      run<true>(keys, &values, begin_bit, end_bit, true);
    else
      run<false>(keys, &values, begin_bit, end_bit, true);
  }

  /// Ascending sort of user-defined keys by bits [begin_bit, end_bit) of their members' ordered
  /// bits side by side (see decomposed_key.cuh); keys stay blocked.
  /// \param keys this thread's keys (blocked), sorted in place
  /// \param decomposer returns a tuple of references to a key's members, most significant first
  /// \param begin_bit first bit to sort by
  /// \param end_bit one past the last bit; -1 for all of the key's bits
  template <typename Decomposer, detail::IfDecomposer<Decomposer> = 0>
  __device__ __forceinline__ void sort(Key (&keys)[kKeysPerThread], Decomposer decomposer,
                                       int begin_bit = 0, int end_bit = -1) {
    run_decomposed<false>(keys, nullptr, decomposer, begin_bit, end_bit, false);
  }

  /// Descending sort of user-defined keys (stable); keys stay blocked.
  /// \param keys this thread's keys (blocked), sorted in place
  /// \param decomposer returns a tuple of references to a key's members, most significant first
  /// \param begin_bit first bit to sort by
  /// \param end_bit one past the last bit; -1 for all of the key's bits
  template <typename Decomposer, detail::IfDecomposer<Decomposer> = 0>
  __device__ __forceinline__ void sort_descending(Key (&keys)[kKeysPerThread],
                                                  Decomposer decomposer, int begin_bit = 0,
                                                  int end_bit = -1) {
    run_decomposed<true>(keys, nullptr, decomposer, begin_bit, end_bit, false);
  }

  /// Pair sort of user-defined keys, either direction; keys and values stay blocked or become
  /// striped.
  /// \param keys this thread's keys (blocked), sorted in place
  /// \param values this thread's values, moved with their keys
  /// \param decomposer returns a tuple of references to a key's members, most significant first
  /// \param descending largest first
  /// \param striped_output leave keys and values striped instead of blocked
  /// \param begin_bit first bit to sort by
  /// \param end_bit one past the last bit; -1 for all of the key's bits
  template <typename Decomposer, detail::IfDecomposer<Decomposer> = 0>
  __device__ __forceinline__ void sort(Key (&keys)[kKeysPerThread], Value (&values)[kKeysPerThread],
                                       Decomposer decomposer, bool descending = false,
                                       bool striped_output = false, int begin_bit = 0,
                                       int end_bit = -1) {
    if (descending)
      run_decomposed<true>(keys, &values, decomposer, begin_bit, end_bit, striped_output);
    else
      run_decomposed<false>(keys, &values, decomposer, begin_bit, end_bit, striped_output);
  }

  /// Sort of blocked user-defined keys that leaves them striped.
  /// \param keys this thread's keys: blocked before, striped after
  /// \param decomposer returns a tuple of references to a key's members, most significant first
  /// \param descending largest first
  /// \param begin_bit first bit to sort by
  /// \param end_bit one past the last bit; -1 for all of the key's bits
  template <typename Decomposer, detail::IfDecomposer<Decomposer> = 0>
  __device__ __forceinline__ void sort_blocked_to_striped(Key (&keys)[kKeysPerThread],
                                                          Decomposer decomposer,
                                                          bool descending = false,
                                                          int begin_bit = 0, int end_bit = -1) {
    if (descending)
      run_decomposed<true>(keys, nullptr, decomposer, begin_bit, end_bit, true);
    else
      run_decomposed<false>(keys, nullptr, decomposer, begin_bit, end_bit, true);
  }

 private:
  using Twiddled = TwiddledKey<Key>;

  /// Tile position this thread's item \p i occupies after an exchange: blocked or striped.
  __device__ __forceinline__ static std::uint32_t position_of(int i, bool striped) {
    return striped ? threadIdx.x + static_cast<std::uint32_t>(i) * kThreads
                   : threadIdx.x * kKeysPerThread + static_cast<std::uint32_t>(i);
  }

  /// padded_slot(position_of(i, striped)). When K divides 32, a thread's K blocked positions
  /// never cross a 32-position boundary, so their slots are one per-thread base plus i: a
  /// constant offset in every load instead of a shift and an add per key and pass.
  __device__ __forceinline__ static std::uint32_t read_back_slot(int i, bool striped) {
    if constexpr (32 % kKeysPerThread == 0) {
      if (!striped)
        return padded_slot(threadIdx.x * kKeysPerThread) + static_cast<std::uint32_t>(i);
    }
    return padded_slot(position_of(i, striped));
  }

  /// Moves every item to tile position ranks[i] through shared memory, then reads back the
  /// positions this thread holds in the requested arrangement. Starts with a barrier (the slots
  /// may alias the rank's counters, still being read), and the caller puts one between the
  /// read-back and the next write to the storage.
  template <typename T>
  __device__ __forceinline__ void exchange(T (&items)[kKeysPerThread], T* slots,
                                           const std::uint32_t (&ranks)[kKeysPerThread],
                                           bool striped) {
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i) slots[padded_slot(ranks[i])] = items[i];
    __syncthreads();
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i) items[i] = slots[read_back_slot(i, striped)];
  }

  /// Built-in keys: twiddle once, run the passes on the twiddled bits, untwiddle once.
  template <bool kDescending>
  __device__ __forceinline__ void run(Key (&keys)[kKeysPerThread], Value (*values)[kKeysPerThread],
                                      int begin_bit, int end_bit, bool striped_output) {
    static_assert(detail::kIsBuiltinKey<Key>, "a user-defined key needs a decomposer");
    Bits bits[kKeysPerThread];
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i) bits[i] = Twiddled::in(keys[i]);
    run_passes(bits, values, begin_bit, end_bit, striped_output,
               [](Bits twiddled, int first_bit, int num_bits) {
                 return Twiddled::template digit<kDescending>(twiddled, first_bit, num_bits);
               });
#pragma unroll
    for (int i = 0; i < kKeysPerThread; ++i) keys[i] = Twiddled::out(bits[i]);
  }

  /// User-defined keys: the passes move the keys themselves and take digits from the decomposer.
  template <bool kDescending, typename Decomposer>
  __device__ __forceinline__ void run_decomposed(Key (&keys)[kKeysPerThread],
                                                 Value (*values)[kKeysPerThread],
                                                 const Decomposer& decomposer, int begin_bit,
                                                 int end_bit, bool striped_output) {
    static_assert(std::is_trivially_copyable_v<Key>,
                  "user-defined keys must be trivially copyable");
    if (end_bit < 0) end_bit = kDecomposedKeyBits<Key, Decomposer>;
    run_passes(keys, values, begin_bit, end_bit, striped_output,
               [&decomposer](const Key& key, int first_bit, int num_bits) {
                 return decomposed_digit<kDescending>(key, decomposer, first_bit, num_bits);
               });
  }

  /// The passes: one per r-bit digit of [begin_bit, end_bit), least significant first (the last
  /// may be narrower); each ranks the tile by \p digit_of(item, first_bit, num_bits) and moves
  /// items and values to their ranks. With no bits to sort only the arrangement may change.
  template <typename Slot, typename DigitOf>
  __device__ __forceinline__ void run_passes(Slot (&items)[kKeysPerThread],
                                             Value (*values)[kKeysPerThread], int begin_bit,
                                             int end_bit, bool striped_output, DigitOf digit_of) {
    std::uint32_t ranks[kKeysPerThread];
    if (begin_bit >= end_bit) {
      if (!striped_output) return;  // the tile is already in order
#pragma unroll
      for (int i = 0; i < kKeysPerThread; ++i) ranks[i] = position_of(i, false);
      move_to_ranks(items, values, ranks, true);
      __syncthreads();
      return;
    }
    for (int bit = begin_bit; bit < end_bit; bit += kRadixBits) {
      const int pass_bits = min(kRadixBits, end_bit - bit);
      if (bit != begin_bit) __syncthreads();  // the last exchange is read before the counters
      // Digits are taken after the barrier, next to the increments that consume them: taken
      // before it, all K of them were live across it (at 128 x 16, 5 blocks per SM instead of
      // cub::BlockRadixSort's 7: the register table in the README).
      std::uint32_t digits[kKeysPerThread];
#pragma unroll
      for (int i = 0; i < kKeysPerThread; ++i) digits[i] = digit_of(items[i], bit, pass_bits);
      Rank(storage_.rank).rank_digits(digits, ranks);
      move_to_ranks(items, values, ranks, bit + kRadixBits >= end_bit && striped_output);
    }
    __syncthreads();  // the last exchange is read before the caller reuses the storage
  }

  /// Moves items and values to their ranks (one exchange each).
  template <typename Slot>
  __device__ __forceinline__ void move_to_ranks(Slot (&items)[kKeysPerThread],
                                                Value (*values)[kKeysPerThread],
                                                const std::uint32_t (&ranks)[kKeysPerThread],
                                                bool striped) {
    exchange(items, storage_.keys, ranks, striped);
    if constexpr (kHasValues) {
      if (values != nullptr) {
        __syncthreads();  // the items are read back before the values overwrite them
        exchange(*values, storage_.values, ranks, striped);
      }
    }
  }

  TempStorage& storage_;
};

}  // namespace sortlab::stage05
