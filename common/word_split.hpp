/// \file
/// \brief How an array meets the 16-byte boundaries: the few values before the first, the whole
/// 16-byte words after it, the few values after the last word. Every kernel that reads or copies
/// an array a 16-byte word at a time (common/vector_loads.cuh, stage 07's cluster span) splits it
/// this way, so the arithmetic lives here once, on the host too, where a CPU test checks it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/key_traits.hpp"  // SORTLAB_HOST_DEVICE

namespace sortlab {

/// An array of \p kValueBytes-byte values split at 16-byte boundaries (split_at_words()).
/// \tparam kValueBytes bytes of one value (1, 2, 4, 8 or 16)
template <std::size_t kValueBytes>
struct WordSplit {
  static_assert(16 % kValueBytes == 0, "whole values per 16-byte word");
  /// Values in one 16-byte word.
  static constexpr std::uint32_t kPerWord = static_cast<std::uint32_t>(16 / kValueBytes);
  std::uint32_t head;   ///< values before the first 16-byte boundary (the whole array if shorter)
  std::uint32_t words;  ///< whole 16-byte words from there
  /// Index of the first value after the last whole word; the values from there to the end are
  /// fewer than kPerWord.
  SORTLAB_HOST_DEVICE constexpr std::uint32_t tail_begin() const { return head + words * kPerWord; }
};

/// The split of the \p size values of \p kValueBytes bytes each that start at byte \p address
/// (a multiple of kValueBytes): values [0, head) lie before the first 16-byte boundary, values
/// [head, tail_begin()) fill `words` whole 16-byte words, the rest follow the last one.
/// \tparam kValueBytes bytes of one value (1, 2, 4, 8 or 16)
/// \param address the array's address (a multiple of kValueBytes)
/// \param size its length in values
template <std::size_t kValueBytes>
SORTLAB_HOST_DEVICE constexpr WordSplit<kValueBytes> split_at_words(std::uintptr_t address,
                                                                    std::uint32_t size) {
  const auto to_boundary = static_cast<std::uint32_t>((16 - address % 16) % 16 / kValueBytes);
  const std::uint32_t head = to_boundary < size ? to_boundary : size;
  return {head, (size - head) / WordSplit<kValueBytes>::kPerWord};
}

/// split_at_words() of the array `values[0, size)`.
/// \tparam T the value type (1, 2, 4, 8 or 16 bytes)
/// \param values the array, aligned to sizeof(T)
/// \param size its length
template <typename T>
SORTLAB_HOST_DEVICE WordSplit<sizeof(T)> split_at_words(const T* values, std::uint32_t size) {
  return split_at_words<sizeof(T)>(reinterpret_cast<std::uintptr_t>(values), size);
}

}  // namespace sortlab
