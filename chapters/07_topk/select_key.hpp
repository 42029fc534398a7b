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
};

}  // namespace sortlab::stage07
