/// \file
/// \brief User-defined keys for the block sort, through a *decomposer* as in cub::BlockRadixSort:
/// a functor that takes a key by reference and returns a `cuda::std::tuple` of references to its
/// arithmetic members, most significant first. The key's sort order is the lexicographic order of
/// those members (each in the order of common/key_traits.hpp: -0.0 equals +0.0, NaNs by their
/// bits), and bit ranges count from the least significant bit of the *last* member, as if the
/// members' ordered bits were written side by side:
/// \code
/// struct Point { int y; float x; std::uint16_t tag; };   // tag is not part of the key
/// struct ByYThenX {
///   __host__ __device__ cuda::std::tuple<int&, float&> operator()(Point& p) const {
///     return {p.y, p.x};
///   }
/// };
/// // bits [0, 32) are x's ordered bits, [32, 64) are y's: 64 key bits in all
/// \endcode
#pragma once

#include <cuda/std/tuple>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "common/key_traits.hpp"

namespace sortlab::stage05 {

namespace detail {

/// The member types a decomposer exposes for Key (references removed).
template <typename Key, typename Decomposer>
using DecomposedFields = decltype(std::declval<const Decomposer&>()(std::declval<Key&>()));

/// Sum of the bits of the tuple's (reference) element types.
template <typename Tuple, std::size_t... I>
constexpr int total_bits(std::index_sequence<I...>) {
  return (
      0 + ... +
      KeyTraits<std::remove_cv_t<std::remove_reference_t<::cuda::std::tuple_element_t<I, Tuple>>>>::
          kNumBits);
}

/// Adds the part of one member that falls in the digit's bits to \p digit. \p offset is the bit
/// position of the member's least significant ordered bit in the whole key; it moves past the
/// member.
template <typename Field>
__host__ __device__ __forceinline__ void gather_field_bits(const Field& field, int first_bit,
                                                           int num_bits, int& offset,
                                                           std::uint32_t& digit) {
  constexpr int kBits = KeyTraits<Field>::kNumBits;
  const int low = first_bit > offset ? first_bit : offset;
  const int end = first_bit + num_bits < offset + kBits ? first_bit + num_bits : offset + kBits;
  if (low < end) {
    const std::uint64_t ordered = KeyTraits<Field>::to_ordered(field);
    const std::uint64_t part =
        (ordered >> (low - offset)) & ((std::uint64_t{1} << (end - low)) - 1);
    digit |= static_cast<std::uint32_t>(part) << (low - first_bit);
  }
  offset += kBits;
}

/// Visits the members from the last (least significant) to the first.
template <typename Tuple, std::size_t... I>
__host__ __device__ __forceinline__ std::uint32_t gather_digit(const Tuple& fields, int first_bit,
                                                               int num_bits,
                                                               std::index_sequence<I...>) {
  constexpr std::size_t kCount = sizeof...(I);
  std::uint32_t digit = 0;
  int offset = 0;
  (gather_field_bits(::cuda::std::get<kCount - 1 - I>(fields), first_bit, num_bits, offset, digit),
   ...);
  return digit;
}

}  // namespace detail

/// Bits of a key that \p Decomposer exposes for \p Key: the sum of its members' widths.
template <typename Key, typename Decomposer>
inline constexpr int kDecomposedKeyBits =
    detail::total_bits<detail::DecomposedFields<Key, Decomposer>>(
        std::make_index_sequence<
            ::cuda::std::tuple_size_v<detail::DecomposedFields<Key, Decomposer>>>{});

/// The digit of a user-defined key for one pass: \p num_bits bits from \p first_bit of its
/// members' ordered bits side by side (the last member lowest), complemented for a descending sort.
/// A digit may straddle two members.
/// \param key the key (the decomposer needs a reference; the key is not modified)
/// \param decomposer returns a tuple of references to the key's members, most significant first
/// \param first_bit lowest bit of the digit
/// \param num_bits digit width (1..8)
template <bool kDescending, typename Key, typename Decomposer>
__host__ __device__ __forceinline__ std::uint32_t decomposed_digit(Key key,
                                                                   const Decomposer& decomposer,
                                                                   int first_bit, int num_bits) {
  using Fields = detail::DecomposedFields<Key, Decomposer>;
  const Fields fields = decomposer(key);
  const std::uint32_t digit = detail::gather_digit(
      fields, first_bit, num_bits, std::make_index_sequence<::cuda::std::tuple_size_v<Fields>>{});
  const std::uint32_t mask = (1u << num_bits) - 1u;
  return kDescending ? digit ^ mask : digit;
}

}  // namespace sortlab::stage05
