/// \file
/// \brief How a sort takes values of any type and moves them: sort_pairs deduces the value type
/// from its input alone (NotDeduced), and the kernels move a value as an unsigned integer of its
/// size (ValueCarrier), so every value type of one size shares one set of kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "common/errors.hpp"

namespace sortlab {

/// \p T itself, in a form template argument deduction skips: sort_pairs deduces Value from
/// values_in alone, so a size query may pass a plain nullptr for values_out.
template <typename T>
using NotDeduced = typename std::common_type<T>::type;

/// The type the kernels move a value of \p kBytes bytes as (4, 8 or 16 bytes; a stage says which
/// of them it compiles).
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
/// 16 bytes moved as one 128-bit load or store: the carrier of 16-byte values (a struct of four
/// floats, a pair of 64-bit indices).
struct alignas(16) Bytes16 {
  std::uint64_t low;   ///< bytes 0-7
  std::uint64_t high;  ///< bytes 8-15
};
/// 16-byte values move as Bytes16.
template <>
struct ValueCarrierOf<16> {
  using type = Bytes16;  ///< the carrier
};
/// The carrier of a \p kBytes-byte value.
template <std::size_t kBytes>
using ValueCarrier = typename ValueCarrierOf<kBytes>::type;

/// Whether a Value can travel as its carrier: only copied, and no more aligned than the carrier.
template <typename Value>
inline constexpr bool kCarriableValue = std::is_trivially_copyable_v<Value> &&
                                        alignof(Value) <= alignof(ValueCarrier<sizeof(Value)>);

/// Throws sortlab::Error unless \p values_in and \p values_out are aligned to the carrier of a
/// \p value_bytes-byte value. A value type may be less aligned than its carrier (a struct of four
/// floats is 4-byte aligned, its carrier 16), so a pointer into the middle of such an array is
/// legal C++ and still cannot be moved as 16-byte words: say so rather than fault.
/// \param value_bytes sizeof(Value)
/// \param carrier_alignment alignof(ValueCarrier<sizeof(Value)>)
/// \param values_in device input values (may be null in a size query)
/// \param values_out device output values (may be null in a size query)
inline void require_carrier_alignment(std::size_t value_bytes, std::size_t carrier_alignment,
                                      const void* values_in, const void* values_out) {
  for (const void* pointer : {values_in, values_out})
    require(reinterpret_cast<std::uintptr_t>(pointer) % carrier_alignment == 0, [&] {
      return "sort_pairs: values of " + std::to_string(value_bytes) +
             " bytes move as aligned words of " + std::to_string(carrier_alignment) +
             " bytes, but a values pointer is not aligned to " + std::to_string(carrier_alignment);
    });
}

}  // namespace sortlab
