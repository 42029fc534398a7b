/// \file
/// \brief How a sort takes values of any type and moves them: sort_pairs deduces the value type
/// from its input alone (NotDeduced), and the kernels move a value as an unsigned integer of its
/// size (ValueCarrier), so every value type of one size shares one set of kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sortlab {

/// \p T itself, in a form template argument deduction skips: sort_pairs deduces Value from
/// values_in alone, so a size query may pass a plain nullptr for values_out.
template <typename T>
using NotDeduced = typename std::common_type<T>::type;

/// The type the kernels move a value of \p kBytes bytes as (4 or 8 bytes).
template <std::size_t kBytes>
struct ValueCarrierOf;
/// 4-byte values move as std::uint32_t.
template <>
struct ValueCarrierOf<4> {
  using type = std::uint32_t;  ///< the carrier
};
/// 8-byte values move as std::uint64_t.
template <>
struct ValueCarrierOf<8> {
  using type = std::uint64_t;  ///< the carrier
};
/// The carrier of a \p kBytes-byte value.
template <std::size_t kBytes>
using ValueCarrier = typename ValueCarrierOf<kBytes>::type;

/// Whether a Value can travel as its carrier: only copied, and no more aligned than the carrier.
template <typename Value>
inline constexpr bool kCarriableValue = std::is_trivially_copyable_v<Value> &&
                                        alignof(Value) <= alignof(ValueCarrier<sizeof(Value)>);

}  // namespace sortlab
