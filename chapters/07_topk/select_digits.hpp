/// \file
/// \brief The digits radix select walks through: 8-bit digits of the select bits, most
/// significant first, and the prefix ("desired bits" under a "desired mask") that the passes
/// fix one digit at a time.
///
/// Pass p looks at digit p counted from the top. Before it, the passes have fixed the bits above
/// that digit: only values whose select bits agree with `desired` under `mask` can still be the
/// k-th value, and only those are counted. Host and device share these functions, so the CPU
/// model narrows exactly as the kernels do.
#pragma once

#include <cstdint>

#include "chapters/07_topk/select_key.hpp"

namespace sortlab::stage07 {

/// Bits per digit. Eight gives 256 buckets (one per thread of a 256-thread block, so choosing
/// the digit is one block scan) and four passes for 32-bit values; AIR top-k's 11-bit digits
/// (three passes) are a later step.
inline constexpr int kDigitBits = 8;
/// Buckets per pass.
inline constexpr int kNumDigits = 1 << kDigitBits;

/// Passes for values of type T: the width of T in digits (2 for 16-bit values, 4 for 32-bit,
/// 8 for 64-bit).
template <typename T>
SORTLAB_HOST_DEVICE constexpr int num_passes() {
  static_assert(SelectKey<T>::kNumBits % kDigitBits == 0, "whole digits only");
  return SelectKey<T>::kNumBits / kDigitBits;
}

/// The lowest bit of pass \p pass's digit (the top digit first).
/// \param pass pass number, 0 .. num_passes<T>() - 1
template <typename T>
SORTLAB_HOST_DEVICE constexpr int digit_shift(int pass) {
  return SelectKey<T>::kNumBits - kDigitBits * (pass + 1);
}

/// Digit of select bits \p bits at bit \p shift.
/// \param bits select bits of a value
/// \param shift lowest bit of the digit
template <typename Bits>
SORTLAB_HOST_DEVICE constexpr std::uint32_t digit_at(Bits bits, int shift) {
  return static_cast<std::uint32_t>(bits >> shift) & static_cast<std::uint32_t>(kNumDigits - 1);
}

/// What the passes have fixed so far: a value can still be the k-th one exactly when
/// `(bits & mask) == desired`. Both start at zero (every value is a candidate).
template <typename Bits>
struct SelectPrefix {
  Bits desired = 0;  ///< the fixed bits of the k-th value's select bits
  Bits mask = 0;     ///< which bits are fixed

  /// Whether select bits \p bits agree with the fixed prefix.
  /// \param bits select bits of a value
  SORTLAB_HOST_DEVICE constexpr bool matches(Bits bits) const { return (bits & mask) == desired; }

  /// Fixes digit \p digit at bit \p shift: the prefix grows by one digit.
  /// \param digit the chosen digit
  /// \param shift lowest bit of the digit
  SORTLAB_HOST_DEVICE constexpr void fix(std::uint32_t digit, int shift) {
    desired = static_cast<Bits>(desired | (static_cast<Bits>(digit) << shift));
    mask = static_cast<Bits>(mask | (static_cast<Bits>(kNumDigits - 1) << shift));
  }
};

}  // namespace sortlab::stage07
