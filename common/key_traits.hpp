/// \file
/// \brief Order-preserving bit transforms: every key type becomes an unsigned integer whose
/// unsigned order is the key order, so one radix sort serves all types.
///
/// - unsigned keys are their own bits;
/// - signed keys flip the sign bit (two's complement negatives then come first);
/// - floating keys (f64, f32, __half, __nv_bfloat16) flip the sign bit of non-negative values
///   and every bit of negative values (IEEE-754 sign-magnitude becomes an unsigned order).
///
/// Two documented choices for floating keys:
/// - **-0.0 and +0.0 are equal**: -0.0 is mapped to the bits of +0.0 first, so a stable sort keeps
///   them in input order (as CUB does since 2.x).
/// - **NaN sorts by its bits**: NaNs with the sign bit clear come after +inf, NaNs with the sign
///   bit set come before -inf. The default quiet NaN (sign clear) therefore sorts last.
///
/// Descending order is the bitwise complement of the ascending order, which keeps a radix sort
/// stable in both directions.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifdef __CUDACC__
/// Marks a function callable from host and device code (empty for the host compiler).
#define SORTLAB_HOST_DEVICE __host__ __device__
#else
#define SORTLAB_HOST_DEVICE
#endif

namespace sortlab {

/// Reinterprets the bits of \p from as type To (same size), on host or device.
template <typename To, typename From>
SORTLAB_HOST_DEVICE inline To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs equal sizes");
  To to;
  std::memcpy(static_cast<void*>(&to), static_cast<const void*>(&from), sizeof(To));
  return to;
}

namespace detail {
/// The unsigned integer type of \p kBytes bytes.
template <int kBytes>
struct UnsignedOfSize;
/// One byte.
template <>
struct UnsignedOfSize<1> {
  using type = std::uint8_t;  ///< the unsigned type
};
/// Two bytes.
template <>
struct UnsignedOfSize<2> {
  using type = std::uint16_t;  ///< the unsigned type
};
/// Four bytes.
template <>
struct UnsignedOfSize<4> {
  using type = std::uint32_t;  ///< the unsigned type
};
/// Eight bytes.
template <>
struct UnsignedOfSize<8> {
  using type = std::uint64_t;  ///< the unsigned type
};

/// Which transform a key type needs.
enum class KeyKind { kUnsigned, kSigned, kFloating };

/// The KeyKind of Key.
template <typename Key>
constexpr KeyKind kind_of() {
  if constexpr (std::is_same_v<Key, __half> || std::is_same_v<Key, __nv_bfloat16> ||
                std::is_floating_point_v<Key>) {
    return KeyKind::kFloating;
  } else if constexpr (std::is_signed_v<Key>) {
    return KeyKind::kSigned;
  } else {
    return KeyKind::kUnsigned;
  }
}
}  // namespace detail

/// Traits of a sortable key type: its unsigned bit type and the order-preserving transform.
template <typename Key>
struct KeyTraits {
  static_assert(std::is_integral_v<Key> || std::is_floating_point_v<Key> ||
                    std::is_same_v<Key, __half> || std::is_same_v<Key, __nv_bfloat16>,
                "sortlab sorts integers, float, double, __half and __nv_bfloat16");
  static_assert(!std::is_same_v<Key, bool>, "bool is not a sortable key");

  /// Unsigned integer of the same width as Key.
  using Bits = typename detail::UnsignedOfSize<sizeof(Key)>::type;
  /// Number of bits in a key.
  static constexpr int kNumBits = static_cast<int>(8 * sizeof(Key));
  /// The sign bit (the highest bit) of Bits.
  static constexpr Bits kHighBit = static_cast<Bits>(Bits{1} << (kNumBits - 1));
  /// Whether Key is a floating-point type.
  static constexpr bool kIsFloating = detail::kind_of<Key>() == detail::KeyKind::kFloating;

  /// The raw bits of \p key.
  SORTLAB_HOST_DEVICE static Bits raw_bits(Key key) { return bit_cast<Bits>(key); }

  /// The key whose raw bits are \p bits.
  SORTLAB_HOST_DEVICE static Key from_raw_bits(Bits bits) { return bit_cast<Key>(bits); }

  /// Bits whose unsigned ascending order is the ascending order of the keys.
  SORTLAB_HOST_DEVICE static Bits to_ordered(Key key) {
    Bits bits = raw_bits(key);
    if constexpr (detail::kind_of<Key>() == detail::KeyKind::kUnsigned) {
      return bits;
    } else if constexpr (detail::kind_of<Key>() == detail::KeyKind::kSigned) {
      return static_cast<Bits>(bits ^ kHighBit);
    } else {
      if (bits == kHighBit) bits = 0;  // -0.0 sorts as +0.0
      const bool negative = (bits & kHighBit) != 0;
      return static_cast<Bits>(negative ? static_cast<Bits>(~bits)
                                        : static_cast<Bits>(bits | kHighBit));
    }
  }

  /// Ordered bits for the requested direction: descending is the complement of ascending.
  SORTLAB_HOST_DEVICE static Bits to_ordered(Key key, bool descending) {
    const Bits ascending = to_ordered(key);
    return descending ? static_cast<Bits>(~ascending) : ascending;
  }
};

/// The radix digit of \p key: \p num_bits bits of its ordered bits starting at \p first_bit.
/// This is the one line every radix stage uses to ask "which bucket does this key go to?".
template <typename Key>
SORTLAB_HOST_DEVICE inline std::uint32_t radix_digit(Key key, int first_bit, int num_bits,
                                                     bool descending) {
  using Bits = typename KeyTraits<Key>::Bits;
  const Bits ordered = KeyTraits<Key>::to_ordered(key, descending);
  const std::uint64_t shifted = static_cast<std::uint64_t>(ordered) >> first_bit;
  const std::uint64_t mask =
      (num_bits >= 64) ? ~std::uint64_t{0} : ((std::uint64_t{1} << num_bits) - 1);
  return static_cast<std::uint32_t>(shifted & mask);
}

}  // namespace sortlab
