/// \file
/// \brief Stage 07's one key transform: the *select bits* of a value, an unsigned integer whose
/// larger values are the better answers of a top-k, in both directions.
///
/// Radix select works on unsigned digits, so every value is first mapped to bits whose unsigned
/// order is the order top-k wants. They start from the ordered bits every sortlab sort uses
/// (common/key_traits.hpp: -0.0 counts as +0.0, signed and floating types become unsigned
/// orders) and change one rule: **every NaN is the largest value** (PyTorch's rule for
/// torch.topk and torch.sort), whatever its sign and payload. The sorts order NaNs by their bits
/// (a NaN with the sign bit set sorts below -inf); a top-k of logits with a NaN in them should
/// return the NaN as the largest entry, as PyTorch does, so all NaNs map to the all-ones bits
/// and are equal to one another. For the k *smallest* the bits are complemented, so that "the
/// k largest select bits" is the question in both directions and NaNs come last there.
///
/// Host and device code call the same functions, so the CPU model tests the very transform the
/// kernels use.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/key_traits.hpp"

namespace sortlab::stage07 {

/// The transform of one value type.
template <typename T>
struct SelectKey {
  /// Unsigned bits as wide as T.
  using Bits = typename KeyTraits<T>::Bits;
  /// Bits of a value.
  static constexpr int kNumBits = KeyTraits<T>::kNumBits;

  /// The raw bits of +infinity (zero for integer types, which have no NaN): a floating value is
  /// a NaN exactly when its bits without the sign are above these.
  static constexpr Bits kInfinityBits = [] {
    if constexpr (std::is_same_v<T, float>)
      return Bits{0x7f800000u};
    else if constexpr (std::is_same_v<T, double>)
      return Bits{0x7ff0000000000000ull};
    else if constexpr (std::is_same_v<T, __half>)
      return Bits{0x7c00u};
    else if constexpr (std::is_same_v<T, __nv_bfloat16>)
      return Bits{0x7f80u};
    else
      return Bits{0};
  }();

  /// Whether \p value is a NaN (any sign, any payload); always false for integers. Works on the
  /// bits, so it needs no half-precision arithmetic on the host.
  /// \param value the value
  SORTLAB_HOST_DEVICE static bool is_nan(T value) {
    if constexpr (KeyTraits<T>::kIsFloating) {
      const Bits magnitude = static_cast<Bits>(KeyTraits<T>::raw_bits(value) &
                                               static_cast<Bits>(~KeyTraits<T>::kHighBit));
      return magnitude > kInfinityBits;
    } else {
      (void)value;
      return false;
    }
  }

  /// The select bits of \p value: larger bits are better answers. For the k largest these are
  /// the ordered bits with every NaN raised to all ones; for the k smallest their complement.
  /// \param value the value
  /// \param largest true for the k largest, false for the k smallest
  SORTLAB_HOST_DEVICE static Bits bits(T value, bool largest) {
    const Bits ordered =
        is_nan(value) ? static_cast<Bits>(~Bits{0}) : KeyTraits<T>::to_ordered(value);
    return largest ? ordered : static_cast<Bits>(~ordered);
  }

  /// The inverse of bits() where it has one: sets \p value to the one value whose select bits
  /// are \p bits and returns true. Two classes of floating values share their bits, the zeros
  /// (-0.0 and +0.0) and the NaNs (every sign and payload); for those it returns false and
  /// leaves \p value alone, and a caller that must return the input's own value reads it from
  /// the input. A kernel that turns its values into select bits once (the cluster's span) then
  /// writes its answers from the bits it kept, reading memory only for zeros and NaNs.
  /// \param bits select bits, as bits() returned them
  /// \param largest the direction bits() was called with
  /// \param value set to the value, when it is the only one with these bits
  SORTLAB_HOST_DEVICE static bool unique_value(Bits bits, bool largest, T& value) {
    constexpr Bits kHighBit = KeyTraits<T>::kHighBit;
    const Bits ordered = largest ? bits : static_cast<Bits>(~bits);
    Bits raw = ordered;
    if constexpr (KeyTraits<T>::kIsFloating) {
      // All ones: a NaN (no number's ordered bits reach them); the high bit alone: a zero.
      if (ordered == static_cast<Bits>(~Bits{0}) || ordered == kHighBit) return false;
      raw = (ordered & kHighBit) != 0 ? static_cast<Bits>(ordered & static_cast<Bits>(~kHighBit))
                                      : static_cast<Bits>(~ordered);
    } else if constexpr (std::is_signed_v<T>) {
      raw = static_cast<Bits>(ordered ^ kHighBit);
    }
    value = KeyTraits<T>::from_raw_bits(raw);
    return true;
  }
};

}  // namespace sortlab::stage07
